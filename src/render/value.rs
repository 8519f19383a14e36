//! jq-style output of `query` results (jaq values): compact or indented, keys sorted on
//! request, coloured with jq's default colours when the caller says so (a terminal, never a
//! pipe, never `--json`).
//!
//! The text is JSON as jq writes it, with the same safety as [`super::json`]: characters a
//! terminal could act on are written as `\uXXXX` escapes, never raw. Values JSON cannot hold
//! become what jq prints for them: NaN is `null`, infinities are the largest finite double,
//! byte strings and non-string keys are written as strings.

use std::io::{self, Write};

use jaq_json::{Num, Val};

use crate::sanitize::is_invisible;

/// How to lay values out.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// One level of indentation (`None`: everything on one line).
    pub indent: Option<String>,
    /// Sort object keys (jq `-S`).
    pub sort_keys: bool,
    /// Colour with jq's default palette.
    pub color: bool,
}

// jq 1.7's default colours.
const NULL: &str = "\x1b[1;30m";
const FALSE: &str = "\x1b[0;39m";
const TRUE: &str = "\x1b[0;39m";
const NUMBER: &str = "\x1b[0;39m";
const STRING: &str = "\x1b[0;32m";
const ARRAY: &str = "\x1b[1;39m";
const OBJECT: &str = "\x1b[1;39m";
const KEY: &str = "\x1b[34;1m";
const RESET: &str = "\x1b[0m";

/// Write one value (no trailing newline).
pub fn write(w: &mut dyn Write, v: &Val, layout: &Layout) -> io::Result<()> {
    Writer { w, layout }.value(v, 0)
}

struct Writer<'w, 'l> {
    w: &'w mut dyn Write,
    layout: &'l Layout,
}

impl Writer<'_, '_> {
    fn styled(&mut self, style: &str, f: impl FnOnce(&mut Self) -> io::Result<()>) -> io::Result<()> {
        if self.layout.color {
            self.w.write_all(style.as_bytes())?;
            f(self)?;
            self.w.write_all(RESET.as_bytes())
        } else {
            f(self)
        }
    }

    fn newline(&mut self, level: usize) -> io::Result<()> {
        if let Some(indent) = &self.layout.indent {
            self.w.write_all(b"\n")?;
            for _ in 0..level {
                self.w.write_all(indent.as_bytes())?;
            }
        }
        Ok(())
    }

    // Depth is bounded by what the input parser and the filter engine can build; values are
    // walked recursively like jq and jaq do.
    fn value(&mut self, v: &Val, level: usize) -> io::Result<()> {
        match v {
            Val::Null => self.styled(NULL, |s| s.w.write_all(b"null")),
            Val::Bool(true) => self.styled(TRUE, |s| s.w.write_all(b"true")),
            Val::Bool(false) => self.styled(FALSE, |s| s.w.write_all(b"false")),
            Val::Num(n) => self.styled(NUMBER, |s| number(s.w, n)),
            Val::TStr(b) | Val::BStr(b) => self.styled(STRING, |s| string(s.w, &String::from_utf8_lossy(b))),
            Val::Arr(a) => {
                self.styled(ARRAY, |s| s.w.write_all(b"["))?;
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        self.styled(ARRAY, |s| s.w.write_all(b","))?;
                    }
                    self.newline(level + 1)?;
                    self.value(x, level + 1)?;
                }
                if !a.is_empty() {
                    self.newline(level)?;
                }
                self.styled(ARRAY, |s| s.w.write_all(b"]"))
            }
            Val::Obj(o) => {
                self.styled(OBJECT, |s| s.w.write_all(b"{"))?;
                let mut pairs: Vec<(&Val, &Val)> = o.iter().collect();
                if self.layout.sort_keys {
                    pairs.sort_by(|a, b| a.0.cmp(b.0));
                }
                for (i, (k, x)) in pairs.iter().enumerate() {
                    if i > 0 {
                        self.styled(OBJECT, |s| s.w.write_all(b","))?;
                    }
                    self.newline(level + 1)?;
                    let key = match k {
                        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
                        other => other.to_string(),
                    };
                    self.styled(KEY, |s| string(s.w, &key))?;
                    self.styled(OBJECT, |s| s.w.write_all(b":"))?;
                    if self.layout.indent.is_some() {
                        self.w.write_all(b" ")?;
                    }
                    self.value(x, level + 1)?;
                }
                if !pairs.is_empty() {
                    self.newline(level)?;
                }
                self.styled(OBJECT, |s| s.w.write_all(b"}"))
            }
        }
    }
}

fn number(w: &mut dyn Write, n: &Num) -> io::Result<()> {
    match n {
        Num::Float(f) if f.is_nan() => w.write_all(b"null"),
        Num::Float(f) if f.is_infinite() => {
            write!(w, "{}", if *f > 0.0 { "1.7976931348623157e+308" } else { "-1.7976931348623157e+308" })
        }
        n => write!(w, "{n}"),
    }
}

/// A JSON string literal, with every character a terminal could act on escaped.
pub fn string(w: &mut dyn Write, s: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&[u8]> = match c {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '\n' => Some(b"\\n"),
            '\t' => Some(b"\\t"),
            '\r' => Some(b"\\r"),
            '\u{8}' => Some(b"\\b"),
            '\u{c}' => Some(b"\\f"),
            _ => None,
        };
        let needs_u = c < ' ' || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || is_invisible(c);
        if esc.is_none() && !needs_u {
            continue;
        }
        w.write_all(&s.as_bytes()[start..i])?;
        match esc {
            Some(e) => w.write_all(e)?,
            None => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{:04x}", u)?;
                }
            }
        }
        start = i + c.len_utf8();
    }
    w.write_all(&s.as_bytes()[start..])?;
    w.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &str, layout: &Layout) -> String {
        let v = jaq_json::read::parse_single(v.as_bytes()).unwrap();
        let mut out = Vec::new();
        write(&mut out, &v, layout).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn compact_pretty_and_sorted() {
        let compact = Layout::default();
        assert_eq!(text(r#"{"b":[1,2.5,null],"a":{}}"#, &compact), r#"{"b":[1,2.5,null],"a":{}}"#);
        let pretty = Layout { indent: Some("  ".into()), ..Layout::default() };
        assert_eq!(text(r#"{"b":[1],"a":[]}"#, &pretty), "{\n  \"b\": [\n    1\n  ],\n  \"a\": []\n}");
        let sorted = Layout { sort_keys: true, ..Layout::default() };
        assert_eq!(text(r#"{"b":{"d":1,"c":2},"a":1}"#, &sorted), r#"{"a":1,"b":{"c":2,"d":1}}"#);
    }

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        let s = text(r#""a\u001b[31m\u009b\u202e\n\"\ud83d\ude00""#, &Layout::default());
        assert_eq!(s, "\"a\\u001b[31m\\u009b\\u202e\\n\\\"\u{1F600}\"");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\u{1b}[31m\u{9b}\u{202e}\n\"\u{1F600}");
    }

    #[test]
    fn colour_only_when_asked() {
        let on = Layout { color: true, ..Layout::default() };
        assert_eq!(text("null", &on), "\x1b[1;30mnull\x1b[0m");
        assert!(!text(r#"{"a":"b"}"#, &Layout::default()).contains('\x1b'));
    }
}
