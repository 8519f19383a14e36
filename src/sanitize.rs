//! Terminal safety: every piece of untrusted text (model output, tool output, ids, paths)
//! passes through here before it reaches a terminal. Control characters, escape sequences
//! (CSI, OSC 52 clipboard writes, OSC 8 links), C1 controls, bidi overrides and invisible
//! characters are shown as visible escapes instead of being emitted raw.

use std::borrow::Cow;
use std::fmt::Write;

/// For one-line views: newlines and tabs are shown too (`↵`, `\t`).
pub fn inline(s: &str) -> Cow<'_, str> {
    clean(s, false)
}

/// For multi-line views: `\n` and `\t` are kept, everything else is made visible.
pub fn block(s: &str) -> Cow<'_, str> {
    clean(s, true)
}

fn clean(s: &str, keep_lines: bool) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) || (keep_lines && (b == b'\n' || b == b'\t'))) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
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
    Cow::Owned(out)
}

/// Characters that reorder or hide text: bidi controls, zero-width characters, line and
/// paragraph separators, the BOM.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
    )
}

/// Cut text to at most `max` characters (terminal columns, roughly), adding `…`.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if max == 0 {
        return Cow::Borrowed("");
    }
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some(_) => {
            let cut = s.char_indices().nth(max - 1).map(|(i, _)| i).unwrap_or(s.len());
            Cow::Owned(format!("{}…", &s[..cut]))
        }
    }
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
    fn truncates_on_char_boundaries() {
        assert_eq!(truncate("日本語テキスト", 4), "日本語…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
