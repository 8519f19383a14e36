//! Human text from view [`Line`]s: each line is fitted to the width on its plain text
//! first (display columns, [`fit`]), and only then coloured from the [`Palette`], so colour
//! never changes what is cut or where, and `--color never` prints the same characters.

use std::borrow::Cow;
use std::io::{self, Write};

use rayon::prelude::*;

use crate::render::{fit, Palette};
use crate::view::{Fit, Line, Style, CONNECTOR_COLUMNS};

/// A span after fitting: the text to print, its style, and whether a space goes before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted<'l> {
    pub text: Cow<'l, str>,
    pub style: Style,
    pub gap: bool,
}

/// Print `lines`, each fitted to `width` columns and coloured with `p`, a newline after
/// each. The lines are taken a batch at a time and rendered on every worker, a chunk each,
/// then written in order: the bytes are those of rendering them one by one, and memory
/// holds a batch, not the output (a tree of a million entries is a million lines).
pub fn write<'v>(
    out: &mut dyn Write,
    lines: impl Iterator<Item = Line<'v>>,
    width: usize,
    p: &Palette,
) -> io::Result<()> {
    const CHUNK: usize = 1024;
    let batch_len = CHUNK * 4 * rayon::current_num_threads().max(1);
    let mut lines = lines.fuse();
    let mut batch = Vec::with_capacity(batch_len);
    loop {
        batch.extend(lines.by_ref().take(batch_len));
        if batch.is_empty() {
            return Ok(());
        }
        let parts: Vec<String> = batch
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut text = String::new();
                for line in chunk {
                    text.push_str(&render(line, width, p));
                    text.push('\n');
                }
                text
            })
            .collect();
        batch.clear();
        for part in &parts {
            out.write_all(part.as_bytes())?;
        }
    }
}

/// One line, fitted and coloured.
pub fn render(line: &Line<'_>, width: usize, p: &Palette) -> String {
    let mut s = String::new();
    for f in fit(line, width) {
        if f.gap {
            s.push(' ');
        }
        s.push_str(&paint(p, f.style, &f.text));
    }
    s
}

/// The spans of `line` that are shown, cut to fit `width` columns (see [`Fit`]).
pub fn fit<'l>(line: &'l Line<'_>, width: usize) -> Vec<Fitted<'l>> {
    let mut out: Vec<Option<Fitted<'_>>> = line
        .spans
        .iter()
        .map(|sp| {
            let text = match sp.fit {
                Fit::Cell { max, pad } => match fit::truncate(&sp.text, max) {
                    t if fit::width(&t) < pad => Cow::Owned(fit::pad(&t, pad)),
                    t => t,
                },
                Fit::Connectors { levels } => fold_connectors(&sp.text, levels, width),
                Fit::Cut { .. } | Fit::CutStart => return None,
            };
            Some(Fitted { text, style: sp.style, gap: sp.gap })
        })
        .collect();
    let shown = |f: &Fitted<'_>| fit::width(&f.text) + usize::from(f.gap);
    let mut used: usize = out.iter().flatten().map(shown).sum();
    // Columns the cut spans not yet fitted keep for themselves.
    let mut reserved: usize = line
        .spans
        .iter()
        .map(|sp| match sp.fit {
            Fit::Cut { min } => min + usize::from(sp.gap),
            Fit::CutStart => usize::from(sp.gap),
            _ => 0,
        })
        .sum();
    for (k, sp) in line.spans.iter().enumerate().rev() {
        let own = match sp.fit {
            Fit::Cut { min } => min + usize::from(sp.gap),
            Fit::CutStart => usize::from(sp.gap),
            _ => continue,
        };
        reserved -= own;
        let room = width.saturating_sub(used + reserved + usize::from(sp.gap));
        let text = match sp.fit {
            Fit::CutStart => fit::truncate_start(&sp.text, room),
            _ => fit::truncate(&sp.text, room),
        };
        if text.is_empty() {
            continue;
        }
        let f = Fitted { text, style: sp.style, gap: sp.gap };
        used += shown(&f);
        out[k] = Some(f);
    }
    out.into_iter().flatten().collect()
}

/// Connectors folded to the columns a row may give them: a third of the line, never more
/// than [`CONNECTOR_COLUMNS`]. Every branch point on the way down adds a level; a session
/// resumed from older turns thousands of times would push its rows off any screen (and
/// make the output quadratic), so past the budget the outer levels fold into a count:
/// `┆N┆ ` and the innermost levels.
fn fold_connectors(text: &str, levels: usize, width: usize) -> Cow<'_, str> {
    const LEVEL: usize = 3;
    let limit = (width / 3).clamp(4 * LEVEL, CONNECTOR_COLUMNS);
    if levels * LEVEL <= limit {
        return Cow::Borrowed(text);
    }
    let keep = limit / LEVEL - 2;
    // Every segment is three one-column characters.
    let skip = text.chars().count().saturating_sub(keep * LEVEL);
    let start = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    Cow::Owned(format!("┆{}┆ {}", levels - keep, &text[start..]))
}

/// Colour for a style: the one place view styles meet the palette.
fn paint(p: &Palette, style: Style, text: &str) -> String {
    match style {
        Style::Plain => text.to_string(),
        Style::Dim => p.dim(text),
        Style::Id => p.id(text),
        Style::Marker => p.marker(text),
        Style::Error => p.error(text),
        Style::User => p.user(text),
        Style::Assistant => p.assistant(text),
        Style::Tool => p.tool(text),
        Style::Operator => p.operator(text),
        Style::Compaction => p.compaction(text),
        Style::Label => p.label(text),
        Style::State => p.state(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Span;

    fn connectors(segments: &[&str]) -> (String, usize) {
        let all: String = segments.concat();
        let kept = segments.len().min(CONNECTOR_COLUMNS / 3);
        (segments[segments.len() - kept..].concat(), all.chars().count() / 3)
    }

    #[test]
    fn deep_connectors_fold_into_a_count() {
        let (text, levels) = connectors(&["│  ", "└─ "]);
        assert_eq!(fold_connectors(&text, levels, 120), "│  └─ ");
        let mut segments = vec!["│  "; 100];
        segments.push("└─ ");
        let (text, levels) = connectors(&segments);
        let folded = fold_connectors(&text, levels, 120);
        assert!(folded.chars().count() <= 40, "{folded}");
        assert!(folded.starts_with('┆'), "{folded}");
        assert!(folded.ends_with("└─ "), "the nearest levels stay: {folded}");
        let hidden: usize = folded.trim_start_matches('┆').split('┆').next().unwrap().parse().unwrap();
        let shown = folded.chars().count() - format!("┆{hidden}┆ ").chars().count();
        assert_eq!(hidden * 3 + shown, 101 * 3);
        // With --wide the budget stays bounded.
        assert!(fold_connectors(&text, levels, crate::render::UNLIMITED).chars().count() <= CONNECTOR_COLUMNS);
    }

    fn cut(text: &str, min: usize) -> Span<'_> {
        Span { text: text.into(), style: Style::Plain, fit: Fit::Cut { min }, gap: true }
    }

    #[test]
    fn cut_spans_fit_last_first_and_keep_room_for_the_ones_before() {
        let line = Line::of(vec![Span::plain("id"), cut("a long preview text", 5), cut("badge badge", 0)]);
        // 20 columns: "id" takes 2; the badge, fitted first, leaves 1 + 5 for the preview
        // and needs 1 for its own space: 11 columns, all it needs.
        let shown: Vec<String> = fit(&line, 20).iter().map(|f| f.text.to_string()).collect();
        assert_eq!(shown, ["id", "a lo…", "badge badge"]);
        let text = render(&line, 20, &Palette::plain());
        assert_eq!(text, "id a lo… badge badge");
        assert_eq!(fit::width(&text), 20);
        // Narrower, the badge is cut first down to what the preview keeps.
        assert_eq!(render(&line, 12, &Palette::plain()), "id a lo… ba…");
    }

    #[test]
    fn a_span_cut_to_nothing_is_left_out_with_its_space() {
        let dim = Span { style: Style::Dim, ..cut("preview", 0) };
        let line = Line::of(vec![Span::plain("0123456789"), dim]);
        assert_eq!(render(&line, 11, &Palette::plain()), "0123456789");
        assert_eq!(render(&line, 11, &Palette::new(true)), "0123456789", "nor is an empty span painted");
    }

    #[test]
    fn colour_goes_on_after_fitting() {
        let line = Line::of(vec![Span::whole("id", Style::Id), cut("日本語テキスト", 0)]);
        let plain = render(&line, 10, &Palette::plain());
        let coloured = render(&line, 10, &Palette::new(true));
        assert_eq!(plain, "id 日本語…");
        assert_ne!(plain, coloured);
        assert_eq!(strip_sgr(&coloured), plain);
    }

    fn strip_sgr(s: &str) -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(at) = rest.find("\x1b[") {
            out.push_str(&rest[..at]);
            let end = rest[at..].find('m').unwrap();
            rest = &rest[at + end + 1..];
        }
        out.push_str(rest);
        out
    }
}
