//! Terminal safety: every piece of untrusted text (model output, tool output, ids, paths,
//! error messages, echoed arguments) passes through here before it reaches a terminal.
//! Control characters, escape sequences (CSI, OSC 52 clipboard writes, OSC 8 links), C1
//! controls, bidi overrides and invisible characters (zero-width, tag characters, ...) are
//! shown as visible escapes instead of being emitted raw.
//!
//! Two layers use the one character rule ([`escape_char`]): views clean each field where
//! they lay it out ([`inline`] for one-line views, so a newline cannot break a row; [`block`]
//! for multi-line text), and every human stream (stdout of the text views, all of stderr)
//! is a [`Terminal`] writer that applies the same rule to whatever reaches it, so a field a
//! view forgot is still shown visibly, never acted on. The only escape sequences that pass
//! the writer are the palette's own colours (SGR, `ESC [ digits/semicolons m`), and only
//! when colour is on.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// For one-line views: newlines and tabs are shown too (`↵`, `\t`).
pub fn inline(s: &str) -> Cow<'_, str> {
    clean(s, false)
}

/// For multi-line views: `\n` and `\t` are kept, everything else is made visible.
pub fn block(s: &str) -> Cow<'_, str> {
    clean(s, true)
}

/// Bytes that never need a look: printable ASCII, and newline and tab in multi-line text.
fn is_plain(b: u8, keep_lines: bool) -> bool {
    (0x20..0x7f).contains(&b) || (keep_lines && (b == b'\n' || b == b'\t'))
}

fn clean(s: &str, keep_lines: bool) -> Cow<'_, str> {
    if s.bytes().all(|b| is_plain(b, keep_lines)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    push_clean(&mut out, s, keep_lines, false);
    Cow::Owned(out)
}

/// Whether [`escape_char`] keeps `c` as it is.
fn kept(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => keep_lines,
        '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' => false,
        c => !is_invisible(c),
    }
}

/// The bytes that may start a character [`kept`] does not keep: the control bytes, DEL, and
/// the lead bytes of the C1 controls and of every invisible character ([`is_invisible`]).
/// Any other byte starts a character the rule keeps, or is inside one (a test checks every
/// Unicode scalar value), so only these are looked at.
const LOOK: [bool; 256] = {
    let mut look = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        look[b] = true;
        b += 1;
    }
    look[0x7f] = true;
    let leads = [0xC2, 0xCD, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3];
    let mut k = 0;
    while k < leads.len() {
        look[leads[k]] = true;
        k += 1;
    }
    look
};

/// Push `s` by [`escape_char`]'s rule, each run of characters it keeps copied whole; with
/// `sgr`, the palette's colour sequences (`ESC [ digits/semicolons m`) pass unchanged. Only
/// the characters that start with a [`LOOK`] byte are decoded and checked.
fn push_clean(out: &mut String, s: &str, keep_lines: bool, sgr: bool) {
    let b = s.as_bytes();
    let (mut run, mut i) = (0, 0);
    while let Some(skip) = b.get(i..).and_then(|rest| rest.iter().position(|&c| LOOK[usize::from(c)])) {
        i += skip;
        // A control byte, DEL or a lead byte: the start of a character.
        let Some(c) = s.get(i..).and_then(|rest| rest.chars().next()) else { break };
        if kept(c, keep_lines) {
            i += c.len_utf8();
            continue;
        }
        out.push_str(&s[run..i]);
        match if c == '\x1b' && sgr { sgr_len(&s[i..]) } else { None } {
            Some(n) => {
                out.push_str(&s[i..i + n]);
                i += n;
            }
            None => {
                escape_char(out, c, keep_lines);
                i += c.len_utf8();
            }
        }
        run = i;
    }
    out.push_str(&s[run..]);
}

/// The one rule: push `c`, or its visible form when a terminal could act on it or it would
/// be invisible.
pub fn escape_char(out: &mut String, c: char, keep_lines: bool) {
    match c {
        '\n' if keep_lines => out.push('\n'),
        '\t' if keep_lines => out.push('\t'),
        '\n' => out.push('↵'),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\x1b' => out.push_str("\\e"),
        '\0'..='\x1f' | '\x7f' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        '\u{80}'..='\u{9f}' => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c if is_invisible(c) => {
            let _ = write!(out, "<U+{:04X}>", c as u32);
        }
        c => out.push(c),
    }
}

/// Characters that reorder, hide or smuggle text: bidi controls, zero-width characters,
/// line and paragraph separators, the BOM, interlinear annotation marks, the soft hyphen
/// and the other default-ignorable format characters (Hangul fillers, Mongolian vowel
/// separator and variation selectors, Khmer inherent vowels, shorthand and musical format
/// controls), Unicode tag characters (U+E0000..U+E007F, invisible ASCII: the "ASCII
/// smuggling" of prompt injections) and the variation selectors that carry no emoji
/// meaning (U+FE00..U+FE0D, U+E0100..U+E01EF: a run of them can encode hidden bytes).
/// U+FE0E and U+FE0F (text and emoji presentation) stay: they follow ordinary emoji
/// (`❤️`) everywhere and a single one hides nothing.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0D}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// A human output stream. Whatever is written is shown with [`escape_char`]'s rule
/// (newlines and tabs kept); with `colour` on, the palette's SGR sequences pass unchanged.
/// Each write must be whole text, as `write!` and `write_all` of a `&str` are: a character
/// split across two writes is shown as `\xNN` bytes, never passed raw.
pub struct Terminal<W: Write> {
    inner: W,
    colour: bool,
    buf: String,
}

impl<W: Write> Terminal<W> {
    pub fn new(inner: W, colour: bool) -> Terminal<W> {
        Terminal { inner, colour, buf: String::new() }
    }

    pub fn into_inner(self) -> W {
        self.inner
    }

    fn write_clean(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.clear();
        for chunk in bytes.utf8_chunks() {
            push_clean(&mut self.buf, chunk.valid(), true, self.colour);
            for b in chunk.invalid() {
                let _ = write!(self.buf, "\\x{b:02x}");
            }
        }
        self.inner.write_all(self.buf.as_bytes())
    }
}

/// The length of a colour sequence (`ESC [ 1;31 m`) at the start of `s`.
fn sgr_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("\x1b[")?;
    let params = rest.bytes().take_while(|b| b.is_ascii_digit() || *b == b';').count();
    (params <= 32 && rest.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

impl<W: Write> Write for Terminal<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if buf.iter().all(|&b| is_plain(b, true)) {
            return self.inner.write_all(buf);
        }
        self.write_clean(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// stderr for human messages, made safe by [`Terminal`].
pub fn stderr(colour: bool) -> Terminal<io::StderrLock<'static>> {
    Terminal::new(io::stderr().lock(), colour)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_made_visible() {
        let hostile = "a\x1b[31mred\x1b]52;c;ZXZpbA==\x07 \u{9b}1m \u{202e}txt\u{200b}";
        let s = inline(hostile);
        assert!(!s.chars().any(|c| c.is_control() || is_invisible(c)), "{s}");
        assert_eq!(s, "a\\e[31mred\\e]52;c;ZXZpbA==\\x07 \\u{9b}1m <U+202E>txt<U+200B>");
        assert_eq!(block("a\nb\tc\r"), "a\nb\tc\\r");
        assert_eq!(inline("plain"), Cow::Borrowed("plain"));
        assert_eq!(inline("é ünïcode 日本"), "é ünïcode 日本");
    }

    #[test]
    fn tag_characters_and_format_controls_are_made_visible() {
        // "hi" spelled in tag characters, a soft hyphen, a Mongolian vowel separator.
        assert_eq!(inline("a\u{E0068}\u{E0069}b\u{AD}c\u{180E}"), "a<U+E0068><U+E0069>b<U+00AD>c<U+180E>");
        assert_eq!(inline("x\u{FE00}\u{E0100}"), "x<U+FE00><U+E0100>");
        // Emoji presentation selectors and joiners of ordinary emoji stay.
        assert_eq!(inline("\u{2764}\u{FE0F} ok"), "\u{2764}\u{FE0F} ok");
    }

    /// The runs copied whole are exactly the characters the rule keeps.
    #[test]
    fn kept_characters_are_those_the_rule_pushes_unchanged() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            for keep_lines in [false, true] {
                let mut out = String::new();
                escape_char(&mut out, c, keep_lines);
                assert_eq!(kept(c, keep_lines), out == c.to_string(), "{:?} {keep_lines}", c);
            }
        }
    }

    /// Every character the rule does not keep starts with a byte [`push_clean`] looks at.
    #[test]
    fn every_character_not_kept_starts_with_a_byte_looked_at() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut utf8 = [0; 4];
            let lead = c.encode_utf8(&mut utf8).as_bytes()[0];
            for keep_lines in [false, true] {
                assert!(kept(c, keep_lines) || LOOK[usize::from(lead)], "{c:?} {keep_lines}");
            }
        }
        // Continuation bytes are never looked at: a byte looked at starts a character.
        assert!((0x80..0xC0).all(|b| !LOOK[b]));
    }

    /// Cleaning a run at a time gives what the rule gives a character at a time, over text
    /// that holds every Unicode scalar value, colour sequences and broken ones among them.
    #[test]
    fn runs_are_cleaned_as_characters_are() {
        let all: Vec<char> = (0..=0x10FFFF).filter_map(char::from_u32).collect();
        for chunk in all.chunks(997) {
            let mut text: String = chunk.iter().collect();
            text.push_str("\x1b[1;31mred\x1b[0m \x1b[31 \x1b]8;;x\x07 plain");
            for keep_lines in [false, true] {
                for sgr in [false, true] {
                    let mut want = String::new();
                    let mut rest = text.as_str();
                    while let Some(c) = rest.chars().next() {
                        match if c == '\x1b' && sgr { sgr_len(rest) } else { None } {
                            Some(n) => {
                                want.push_str(&rest[..n]);
                                rest = &rest[n..];
                            }
                            None => {
                                escape_char(&mut want, c, keep_lines);
                                rest = &rest[c.len_utf8()..];
                            }
                        }
                    }
                    let mut got = String::new();
                    push_clean(&mut got, &text, keep_lines, sgr);
                    assert_eq!(got, want, "{keep_lines} {sgr}");
                }
            }
        }
    }

    fn through_terminal(bytes: &[u8], colour: bool) -> String {
        let mut t = Terminal::new(Vec::new(), colour);
        t.write_all(bytes).unwrap();
        String::from_utf8(t.into_inner()).unwrap()
    }

    #[test]
    fn the_terminal_writer_shows_what_a_view_forgot() {
        let hostile = "id \x1b]52;c;ZXZpbA==\x07 \x1b[2J \u{9b}1m \u{202e}x\u{E0041}\nnext\tcol\r";
        let want = "id \\e]52;c;ZXZpbA==\\x07 \\e[2J \\u{9b}1m <U+202E>x<U+E0041>\nnext\tcol\\r";
        assert_eq!(through_terminal(hostile.as_bytes(), false), want);
        assert_eq!(through_terminal(hostile.as_bytes(), true), want);
        // The palette's colours pass only when colour is on; anything else beginning with
        // ESC never does.
        assert_eq!(through_terminal(b"\x1b[1;31mred\x1b[0m", true), "\x1b[1;31mred\x1b[0m");
        assert_eq!(through_terminal(b"\x1b[1;31mred\x1b[0m", false), "\\e[1;31mred\\e[0m");
        assert_eq!(through_terminal(b"\x1b[31", true), "\\e[31");
        assert_eq!(through_terminal(b"bad \xff\xe2\x80", false), "bad \\xff\\xe2\\x80");
        assert_eq!(through_terminal("plain é\n".as_bytes(), false), "plain é\n");
    }
}
