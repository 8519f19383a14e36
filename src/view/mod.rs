//! Views as data: what `tree`, `path` and `leaves` show, built from a [`Session`] as plain
//! values. Each view serializes to its `--json` document, and lays itself out for people as
//! [`Line`]s of styled [`Span`]s: text (sanitized, never cut) with a [`Style`] that names
//! what the text is and a [`Fit`] that says how it may shrink. Nothing here knows the
//! terminal: the text renderer (`render::lines`) fits spans to the width and applies colour
//! at print time, so no string of a view ever holds an escape sequence.

pub mod leaves;
pub mod path;
pub mod tree;

use std::borrow::Cow;

use serde::Serialize;

use crate::model::{Format, Kind, Role};
use crate::preview::{self, Description};
use crate::sanitize;
use crate::session::Session;
use crate::tree::{Ix, RootReason};

/// What a span of text is, for the palette to colour (or not) at print time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    /// Secondary text: connectors, counts, badges, entries off the path to the latest.
    Dim,
    /// An entry id.
    Id,
    /// The path-to-latest `•` and `◀ latest`.
    Marker,
    /// Something that went wrong (an error result, a refusal).
    Error,
    /// Entry labels, by who speaks or what the entry is.
    User,
    Assistant,
    Tool,
    Operator,
    Compaction,
    Label,
    State,
}

/// How a span may be fitted to the line's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Always shown: cut to `max` columns, then padded with spaces to `pad` (a column).
    Cell { max: usize, pad: usize },
    /// Cut at the end to the columns the line has left. Such spans are fitted last to
    /// first, each leaving `min` columns (and its gap) to every one before it that is still
    /// to be fitted; one cut to nothing is left out with its gap.
    Cut { min: usize },
    /// Like [`Fit::Cut`], but cut at the start: for paths, whose end says the most.
    CutStart,
    /// Tree connectors: `levels` three-column levels, of which the text holds the innermost
    /// (at most [`CONNECTOR_COLUMNS`] worth). Past the renderer's budget for connectors the
    /// outer levels fold into a count.
    Connectors { levels: usize },
}

/// Connectors never take more columns than this, whatever the width (with `--wide` too: a
/// tree that branches at every level would otherwise print quadratic output).
pub const CONNECTOR_COLUMNS: usize = 80;

/// A run of text in one style; it borrows from the view it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span<'v> {
    pub text: Cow<'v, str>,
    pub style: Style,
    pub fit: Fit,
    /// A space goes before the span (and is left out with it).
    pub gap: bool,
}

impl<'v> Span<'v> {
    /// Shown whole.
    pub fn whole(text: impl Into<Cow<'v, str>>, style: Style) -> Span<'v> {
        Span { text: text.into(), style, fit: Fit::Cell { max: usize::MAX, pad: 0 }, gap: false }
    }

    pub fn plain(text: impl Into<Cow<'v, str>>) -> Span<'v> {
        Span::whole(text, Style::Plain)
    }

    pub fn with_gap(mut self) -> Span<'v> {
        self.gap = true;
        self
    }
}

/// One line of human output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line<'v> {
    pub spans: Vec<Span<'v>>,
}

impl<'v> Line<'v> {
    pub fn of(spans: Vec<Span<'v>>) -> Line<'v> {
        Line { spans }
    }

    /// The whole text with no fitting: what the line says, for tests and searches.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for span in &self.spans {
            if span.gap {
                s.push(' ');
            }
            s.push_str(&span.text);
        }
        s
    }
}

/// The common JSON fields of a per-file document.
#[derive(Serialize)]
pub struct DocHead<'s> {
    pub schema_version: u32,
    pub file: &'s str,
    pub format: Format,
}

impl<'s> DocHead<'s> {
    pub fn of(s: &'s Session<'_>) -> DocHead<'s> {
        DocHead { schema_version: 1, file: s.name(), format: s.format }
    }
}

/// Width of the label column in entry rows.
const LABEL_WIDTH: usize = 12;
/// Ids are shown short; hostile ones grow when their escapes are made visible: bounded too.
const ID_COLUMNS: usize = 16;
/// Preview text keeps at least this many columns when badges compete for room.
const TEXT_MIN_COLUMNS: usize = 12;

/// What an entry's row says — `id  label  preview  badges` — sanitized and uncut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryText {
    pub id: String,
    /// `user`, `assistant`, `tool read`, `compaction`, ...
    pub label: String,
    /// How the label is coloured: by role, or by kind for entries that are not messages.
    pub tint: Style,
    pub text: String,
    /// The text deserves attention (an error, a refusal).
    pub alert: bool,
    /// What is wrong with the entry, and its tokens: `14k tok (parent "x" not in file)`.
    pub badges: String,
}

impl EntryText {
    /// Entry `i` as its row shows it; `d` is its description ([`preview::describe_at`]).
    pub fn of(s: &Session<'_>, i: Ix, d: &Description) -> EntryText {
        let e = s.entry(i);
        let mut badges = Vec::new();
        if let Some(u) = e.message.as_ref().and_then(|m| m.usage().copied()) {
            badges.push(format!("{} tok", preview::tokens(u.total())));
        }
        match s.tree.root_reason(i) {
            Some(RootReason::Dangling) => {
                let parent = s.parent_id(i).map(crate::tree::quoted).unwrap_or_default();
                badges.push(format!("(parent {} not in file)", sanitize::inline(&parent)))
            }
            Some(RootReason::SelfParent) => badges.push("(names itself as parent)".into()),
            Some(RootReason::Cycle) => badges.push("(cycle cut here)".into()),
            _ => {}
        }
        let tint = match (e.kind(), e.message.as_ref().map(|m| m.role)) {
            (Kind::Compaction, _) => Style::Compaction,
            (Kind::Label, _) => Style::Label,
            (Kind::State, _) => Style::State,
            (_, Some(Role::User)) => Style::User,
            (_, Some(Role::Assistant)) => Style::Assistant,
            (_, Some(Role::ToolResult)) => Style::Tool,
            (_, Some(Role::System)) => Style::Operator,
            _ => Style::Plain,
        };
        EntryText {
            id: sanitize::inline(&e.id.short()).into_owned(),
            label: sanitize::inline(&d.label).into_owned(),
            tint,
            text: sanitize::inline(&d.text).into_owned(),
            alert: d.alert,
            badges: badges.join(" "),
        }
    }

    /// The row's spans, appended to `line`. `dim` greys the text (entries off the path to
    /// the latest); an alert stays an alert.
    pub fn spans<'v>(&'v self, dim: bool, line: &mut Vec<Span<'v>>) {
        let text_style = match (self.alert, dim) {
            (true, _) => Style::Error,
            (false, true) => Style::Dim,
            (false, false) => Style::Plain,
        };
        line.push(Span {
            text: Cow::Borrowed(&self.id),
            style: Style::Id,
            fit: Fit::Cell { max: ID_COLUMNS, pad: 0 },
            gap: false,
        });
        line.push(Span {
            text: Cow::Borrowed(&self.label),
            style: self.tint,
            fit: Fit::Cell { max: 2 * LABEL_WIDTH, pad: LABEL_WIDTH },
            gap: true,
        });
        line.push(Span {
            text: Cow::Borrowed(&self.text),
            style: text_style,
            fit: Fit::Cut { min: TEXT_MIN_COLUMNS },
            gap: true,
        });
        // Fitted before the text (spans are fitted last to first): a badge says what is
        // wrong with the entry.
        line.push(Span { text: Cow::Borrowed(&self.badges), style: Style::Dim, fit: Fit::Cut { min: 0 }, gap: true });
    }
}

/// `◀ latest`, after the row of the latest entry.
fn latest_marker() -> Span<'static> {
    Span::whole("◀ latest", Style::Marker).with_gap()
}

/// The one line of a file with no entries.
fn no_entries() -> Line<'static> {
    Line::of(vec![Span::plain("no entries")])
}

/// Rows of entries `ix`, described in parallel and in order (descriptions re-read message
/// lines).
fn entry_texts(s: &Session<'_>, ix: &[Ix]) -> Vec<EntryText> {
    use rayon::prelude::*;
    ix.par_iter().map(|&i| EntryText::of(s, i, &preview::describe_at(s, i))).collect()
}
