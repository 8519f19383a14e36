//! `grep`'s human output: one line per line of matching text, ripgrep-style, with the
//! matches highlighted, untrusted text made visible, and long lines cut around the match.

use std::ops::Range;

use crate::render::Palette;
use crate::sanitize;
use crate::search::{Hit, Submatch, What};

/// How a printed line is prefixed: `:` for a matching line, `-` for context.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Match,
    Context,
}

/// `FILE:LINE: ENTRY-ID ROLE[/TOOL]:` (with `-` for context lines).
pub fn prefix(file: &str, h: &Hit, mark: Mark, p: &Palette) -> String {
    let sep = if mark == Mark::Match { ':' } else { '-' };
    let id = h.entry_id.as_ref().map(|i| i.text().into_owned()).unwrap_or_else(|| "-".into());
    format!(
        "{}{sep}{}{sep} {} {}{sep}",
        p.file(sanitize::inline(file)),
        p.line_number(h.line),
        p.id(sanitize::inline(&id)),
        who(h, p)
    )
}

/// `user`, `assistant/bash`, `tool_result/read`, `assistant (thinking)`, `compaction`, ...
fn who(h: &Hit, p: &Palette) -> String {
    let role = match (h.part, h.role.as_deref()) {
        (What::Summary, None) => "compaction".to_string(),
        (What::Label, _) => "label".to_string(),
        (What::Damaged, _) => "damaged".to_string(),
        (_, Some(r)) => r.to_string(),
        (_, None) => "?".to_string(),
    };
    let mut s = match h.role.as_deref() {
        Some("user") => p.user(sanitize::inline(&role)),
        Some("assistant") => p.assistant(sanitize::inline(&role)),
        Some("tool_result") => p.tool(sanitize::inline(&role)),
        Some("system") => p.operator(sanitize::inline(&role)),
        _ => p.dim(sanitize::inline(&role)),
    };
    if let Some(t) = &h.tool {
        s.push('/');
        s.push_str(&p.tool(sanitize::inline(t)));
    }
    match h.part {
        What::Thinking => s.push_str(&p.dim(" (thinking)")),
        What::Summary if h.role.is_some() => s.push_str(&p.dim(" (summary)")),
        What::Error => s.push_str(&p.dim(" (error)")),
        _ => {}
    }
    s
}

/// The lines of a hit's text, each with the matches that touch it (offsets into the line).
pub fn lines(h: &Hit) -> Vec<(&str, Vec<Range<usize>>)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in h.text.split('\n') {
        let end = at + line.len();
        let subs = h
            .submatches
            .iter()
            .filter(|m| (at <= m.start && m.start <= end) || (m.start < at && m.end > at))
            .map(|&Submatch { start, end: e }| start.max(at) - at..e.min(end) - at)
            .collect();
        out.push((line, subs));
        at = end + 1;
    }
    out
}

/// One line of text: made visible, matches highlighted, cut to `max` characters (0: no
/// limit) around the first match, saying how many matches the cut hid.
pub fn line(text: &str, matches: &[Range<usize>], max: usize, p: &Palette) -> String {
    let (window, cut_left, cut_right) = window(text, matches, max);
    let mut out = String::new();
    if cut_left {
        out.push('…');
    }
    let mut at = window.start;
    let mut hidden = 0;
    for m in matches {
        if m.start < window.start || m.end > window.end {
            hidden += 1;
            continue;
        }
        if m.start < at {
            continue;
        }
        out.push_str(&sanitize::inline(&text[at..m.start]));
        out.push_str(&p.matched(sanitize::inline(&text[m.clone()])));
        at = m.end;
    }
    out.push_str(&sanitize::inline(&text[at..window.end]));
    if cut_right {
        out.push('…');
    }
    if hidden > 0 {
        out.push_str(&p.dim(format!(" [+{hidden} more match{}]", if hidden == 1 { "" } else { "es" })));
    }
    out
}

/// The byte range of `text` to show: all of it when it fits in `max` characters, else `max`
/// characters starting a quarter of the room before the first match (ripgrep's
/// `--max-columns-preview`, centred on what was found).
fn window(text: &str, matches: &[Range<usize>], max: usize) -> (Range<usize>, bool, bool) {
    let chars = text.chars().count();
    if max == 0 || chars <= max {
        return (0..text.len(), false, false);
    }
    let first = matches.first().map_or(0, |m| m.start);
    let first_char = text[..first].chars().count();
    // The match itself, when longer than the room, is shown from its start.
    let lead = (max / 4).min(first_char);
    let start_char = first_char - lead;
    let start_char = start_char.min(chars.saturating_sub(max));
    let byte_at = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(i, _)| i);
    let start = byte_at(start_char);
    let end = byte_at(start_char + max);
    (start..end, start > 0, end < text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_first_match() {
        let text = format!("{}needle{}", "a".repeat(1000), "b".repeat(1000));
        let m = 1000..1006;
        let s = line(&text, std::slice::from_ref(&m), 40, &Palette::plain());
        assert_eq!(s, format!("…{}needle{}…", "a".repeat(10), "b".repeat(24)));
        let short = line("x needle y", std::slice::from_ref(&(2..8)), 40, &Palette::plain());
        assert_eq!(short, "x needle y");
    }

    #[test]
    fn matches_outside_the_window_are_counted() {
        let text = format!("needle{}needle", "-".repeat(100));
        let s = line(&text, &[0..6, 106..112], 20, &Palette::plain());
        assert!(s.ends_with("… [+1 more match]"), "{s}");
    }

    #[test]
    fn control_characters_in_a_match_are_made_visible() {
        let s = line("a\x1b]52;c;x\x07b", std::slice::from_ref(&(1..10)), 0, &Palette::new(true));
        assert!(!s.contains('\x07') && s.contains("\\e]52;c;x\\x07"), "{s:?}");
        // Only the palette's own colour sequences remain.
        assert_eq!(s.matches('\x1b').count(), 2, "{s:?}");
    }
}
