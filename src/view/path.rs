//! The `path` view: the root-first path to an entry, each row with its depth.

use serde::Serialize;

use super::{entry_texts, no_entries, DocHead, EntryText, Line, Span, Style};
use crate::model::Id;
use crate::session::Session;
use crate::tree::Ix;

/// The path to `target`. Serializes to the `path --json` document; `texts` is filled only
/// for people.
#[derive(Serialize)]
pub struct PathView<'s, 'a> {
    #[serde(flatten)]
    pub head: DocHead<'s>,
    pub target: Option<&'s Id<'a>>,
    pub entries: Vec<Step<'s, 'a>>,
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

impl<'s, 'a> PathView<'s, 'a> {
    /// The path to `target` (`None`: a file with no entries); `texts` for people.
    pub fn of(s: &'s Session<'a>, target: Option<Ix>, texts: bool) -> Self {
        let path = target.map(|t| s.tree.path(t)).unwrap_or_default();
        let entries = path
            .iter()
            .map(|&i| {
                let e = s.entry(i);
                Step {
                    id: &e.id,
                    parent: e.parent.as_ref(),
                    line: e.line,
                    depth: s.tree.depth(i),
                    kind: e.kind_name(),
                    role: e.role_name(),
                }
            })
            .collect();
        PathView {
            head: DocHead::of(s),
            target: target.map(|t| &s.entry(t).id),
            entries,
            texts: if texts { entry_texts(s, &path) } else { Vec::new() },
        }
    }

    /// The human form: a row per step, its depth first.
    pub fn lines(&self) -> Box<dyn Iterator<Item = Line<'_>> + '_> {
        if self.entries.is_empty() {
            return Box::new(std::iter::once(no_entries()));
        }
        Box::new(self.entries.iter().zip(&self.texts).map(|(step, text)| {
            let mut spans = vec![Span::whole(format!("{:>4}", step.depth), Style::Dim), Span::plain(" ")];
            text.spans(false, &mut spans);
            Line::of(spans)
        }))
    }
}
