//! Fitting text to terminal columns: the one place that measures how wide text is on a
//! screen and cuts or wraps it. Width is counted in display columns (`unicode-width`: CJK
//! and most emoji take 2, combining marks 0), never in characters or bytes, so a line of
//! Japanese text is cut at the same screen column as a line of ASCII.
//!
//! Everything here works on plain, already sanitized text: colour is applied by the
//! renderers after fitting, so escape sequences are never measured or cut.

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The mark that ends (or starts) cut text; one column wide.
pub const ELLIPSIS: char = '…';

/// Columns `s` takes on a terminal.
pub fn width(s: &str) -> usize {
    // Printable ASCII (most of what views show) is one column a byte.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return s.len();
    }
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` columns, ending in `…` when cut. A wide character that would
/// straddle the limit is dropped whole.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let mut used = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    Cow::Owned(format!("{}{ELLIPSIS}", &s[..end]))
}

/// `s` cut from the left to at most `max` columns, starting with `…` when cut: for paths,
/// whose end (the file name) says the most.
pub fn truncate_start(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let mut used = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        start = i;
    }
    Cow::Owned(format!("{ELLIPSIS}{}", &s[start..]))
}

/// `s` padded with spaces to `cols` columns (left-aligned); unchanged when already wider.
pub fn pad(s: &str, cols: usize) -> String {
    let w = width(s);
    let mut out = String::with_capacity(s.len() + cols.saturating_sub(w));
    out.push_str(s);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    out
}

/// Greedy wrap of `parts` joined by `sep` into lines of at most `max` columns; lines after
/// the first start with `indent` spaces. A break only ever falls between parts, so a part
/// (a number with its unit, a date range) is never split; a part wider than a line on its
/// own is cut from the left.
pub fn wrap_parts<S: AsRef<str>>(parts: &[S], sep: &str, max: usize, indent: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut line_w = 0;
    let sep_w = width(sep);
    for p in parts {
        let p = p.as_ref();
        let pw = width(p);
        if line_w > 0 && line_w + sep_w + pw > room(&lines, max, indent) {
            lines.push(std::mem::take(&mut line));
            line_w = 0;
        }
        if line_w > 0 {
            line.push_str(sep);
            line_w += sep_w;
        }
        // Alone on its line and still too wide: cut from the left.
        let p = if line_w == 0 { truncate_start(p, room(&lines, max, indent)) } else { Cow::Borrowed(p) };
        line.push_str(&p);
        line_w += width(&p);
    }
    if line_w > 0 || lines.is_empty() {
        lines.push(line);
    }
    let pad = " ".repeat(indent);
    for l in lines.iter_mut().skip(1) {
        l.insert_str(0, &pad);
    }
    lines
}

/// Columns for the next line's text: the first line has no indentation.
fn room(lines: &[String], max: usize, indent: usize) -> usize {
    if lines.is_empty() {
        max
    } else {
        max.saturating_sub(indent).max(1)
    }
}

/// Word wrap of prose at spaces into lines of at most `max` columns (later lines indented
/// by `indent`): a word is never split, and a word wider than a line is cut from the left.
pub fn wrap(s: &str, max: usize, indent: usize) -> Vec<String> {
    let words: Vec<&str> = s.split(' ').filter(|w| !w.is_empty()).collect();
    wrap_parts(&words, " ", max, indent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_counts_display_columns() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("🎉"), 2);
        // e + combining acute accent: one column.
        assert_eq!(width("e\u{301}"), 1);
        // The printable-ASCII shortcut agrees with the tables, and text with anything else
        // (a control, a tab) is measured by them.
        let ascii: String = (0x20u8..0x7f).map(char::from).collect();
        assert_eq!(width(&ascii), UnicodeWidthStr::width(ascii.as_str()));
        for s in ["a\tb", "a\x7fb", "a\nb"] {
            assert_eq!(width(s), UnicodeWidthStr::width(s), "{s:?}");
        }
    }

    #[test]
    fn truncation_counts_columns_not_characters() {
        assert_eq!(truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(width(&truncate("日本語テキスト", 8)), 7, "a wide character never straddles the limit");
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "ab…");
        assert_eq!(truncate("🎉🎉🎉", 5), "🎉🎉…");
        assert_eq!(truncate("e\u{301}e\u{301}e\u{301}x", 3), "e\u{301}e\u{301}…");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate_start("src/deep/path/file.rs", 10), "…h/file.rs");
    }

    #[test]
    fn wrapping_never_splits_a_part() {
        let parts = ["12 sessions", "500 entries", "16,154,063 tokens", "$0.2530 recorded"];
        let lines = wrap_parts(&parts, " · ", 30, 2);
        assert_eq!(lines, ["12 sessions · 500 entries", "  16,154,063 tokens", "  $0.2530 recorded"]);
        assert!(lines.iter().all(|l| width(l) <= 30));
        assert_eq!(wrap("a bb ccc", 4, 0), ["a bb", "ccc"]);
    }
}
