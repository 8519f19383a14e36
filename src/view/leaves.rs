//! The `leaves` view: every branch tip in file order, the latest one marked.

use serde::Serialize;

use super::{entry_texts, latest_marker, no_entries, DocHead, EntryText, Line, Span, Style};
use crate::model::Id;
use crate::session::Session;
use crate::tree::Ix;

/// The branch tips. Serializes to the `leaves --json` document; the fields for people are
/// filled only when asked for.
#[derive(Serialize)]
pub struct LeavesView<'s, 'a> {
    #[serde(flatten)]
    pub head: DocHead<'s>,
    pub latest: Option<&'s Id<'a>>,
    pub leaves: Vec<Leaf<'s, 'a>>,
    /// What each leaf's row says, in the order of `leaves`.
    #[serde(skip)]
    pub texts: Vec<EntryText>,
    /// Entries in the file, for the closing count.
    #[serde(skip)]
    pub entries: usize,
}

#[derive(Serialize)]
pub struct Leaf<'s, 'a> {
    pub id: &'s Id<'a>,
    pub line: u32,
    pub depth: u32,
    pub kind: &'s str,
    pub role: Option<&'s str>,
    /// The latest entry of the file: where a resume continues.
    #[serde(skip)]
    pub latest: bool,
}

impl<'s, 'a> LeavesView<'s, 'a> {
    /// The leaves of `s`; `texts` for people.
    pub fn of(s: &'s Session<'a>, texts: bool) -> Self {
        let latest = s.tree.latest();
        let ix: Vec<Ix> = s.tree.leaves().collect();
        let leaves = ix
            .iter()
            .map(|&i| {
                let e = s.entry(i);
                Leaf {
                    id: &e.id,
                    line: e.line,
                    depth: s.tree.depth(i),
                    kind: e.kind_name(),
                    role: e.role_name(),
                    latest: Some(i) == latest,
                }
            })
            .collect();
        LeavesView {
            head: DocHead::of(s),
            latest: latest.map(|l| &s.entry(l).id),
            leaves,
            texts: if texts { entry_texts(s, &ix) } else { Vec::new() },
            entries: s.entries.len(),
        }
    }

    /// The human form: a row per leaf, its depth first, then a count.
    pub fn lines(&self) -> Box<dyn Iterator<Item = Line<'_>> + '_> {
        if self.leaves.is_empty() {
            return Box::new(std::iter::once(no_entries()));
        }
        // The depth column is as wide as the deepest leaf needs.
        let digits = self.leaves.iter().map(|l| l.depth.to_string().len()).max().unwrap_or(1);
        let rows = self.leaves.iter().zip(&self.texts).map(move |(leaf, text)| {
            let mut spans = vec![Span::whole(format!("depth {:>digits$}", leaf.depth), Style::Dim), Span::plain("  ")];
            text.spans(false, &mut spans);
            if leaf.latest {
                spans.push(latest_marker());
            }
            Line::of(spans)
        });
        let count = format!("{} leaves, {} entries", self.leaves.len(), self.entries);
        Box::new(rows.chain(std::iter::once(Line::of(vec![Span::whole(count, Style::Dim)]))))
    }
}
