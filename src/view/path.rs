//! The `path` view: the root-first path to an entry, each row with its depth.

use serde::Serialize;

use super::{entry_texts, no_entries, DocHead, EntryText, Line, Span, Style};
use crate::model::Id;
use crate::session::Session;
use crate::tree::Ix;

/// The path to `target`. [`PathView::write_json`] writes the `path --json` document (what
/// this serializes to, with `entries` after it); `texts` is filled only for people.
#[derive(Serialize)]
pub struct PathView<'s, 'a> {
    #[serde(flatten)]
    pub head: DocHead<'s>,
    pub target: Option<&'s Id<'a>>,
    /// The session the steps are made from ([`PathView::step`]), as they are written.
    #[serde(skip)]
    s: &'s Session<'a>,
    /// The path's entries, root first.
    #[serde(skip)]
    pub path: Vec<Ix>,
    /// What each step's row says, in path order.
    #[serde(skip)]
    pub texts: Vec<EntryText>,
}

/// One entry on the path.
#[derive(Serialize)]
pub struct Step<'s, 'a> {
    pub id: &'s Id<'a>,
    pub parent: Option<&'s Id<'a>>,
    pub line: u32,
    pub depth: u32,
    pub kind: &'s str,
    pub role: Option<&'s str>,
}

impl<'s, 'a> Step<'s, 'a> {
    /// The step of the entry at `i`.
    fn of(s: &'s Session<'a>, i: Ix) -> Self {
        let e = s.entry(i);
        Step {
            id: &e.id,
            parent: s.parent_id(i),
            line: e.line,
            depth: s.tree.depth(i),
            kind: e.kind_name(),
            role: e.role_name(),
        }
    }
}

impl<'s, 'a> PathView<'s, 'a> {
    /// The path to `target` (`None`: a file with no entries); `texts` for people.
    pub fn of(s: &'s Session<'a>, target: Option<Ix>, texts: bool) -> Self {
        let path = target.map(|t| s.tree.path(t)).unwrap_or_default();
        PathView {
            head: DocHead::of(s),
            target: target.map(|t| &s.entry(t).id),
            s,
            texts: if texts { entry_texts(s, &path) } else { Vec::new() },
            path,
        }
    }

    /// The step of the `n`th entry on the path.
    pub fn step(&self, n: usize) -> Step<'s, 'a> {
        Step::of(self.s, self.path[n])
    }

    /// Every step, root first.
    pub fn steps(&self) -> impl Iterator<Item = Step<'s, 'a>> + '_ {
        self.path.iter().map(|&i| Step::of(self.s, i))
    }

    /// The `path --json` document, its steps made and serialized in parallel.
    pub fn write_json<W: std::io::Write + ?Sized>(&self, w: &mut W) -> std::io::Result<()> {
        let (s, path) = (self.s, &self.path);
        crate::render::json::write_with_items(w, self, "entries", path.len(), crate::render::json::NODE_BYTES, |n| {
            Step::of(s, path[n])
        })
    }

    /// The human form: a row per step, its depth first.
    pub fn lines(&self) -> Box<dyn Iterator<Item = Line<'_>> + '_> {
        if self.path.is_empty() {
            return Box::new(std::iter::once(no_entries()));
        }
        Box::new(self.steps().zip(&self.texts).map(|(step, text)| {
            let mut spans = vec![Span::whole(format!("{:>4}", step.depth), Style::Dim), Span::plain(" ")];
            text.spans(false, &mut spans);
            Line::of(spans)
        }))
    }
}
