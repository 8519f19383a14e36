//! The `tree` view: every entry as a node (the `--json` document), and for people the rows
//! in display order. Linear runs stay flat and only branch points indent; the path to the
//! latest entry is marked `•` and the latest entry `◀ latest`; `--collapse` folds long
//! linear runs into a count.

use std::rc::Rc;

use serde::Serialize;

use super::{entry_texts, latest_marker, no_entries, DocHead, EntryText, Fit, Line, Span, Style, CONNECTOR_COLUMNS};
use crate::model::{Id, Kind};
use crate::sanitize;
use crate::session::Session;
use crate::tree::{Ix, RootReason};

/// The whole tree: [`TreeView::write_json`] writes the `tree --json` document (what this
/// serializes to, with `nodes` after it); the fields for people are filled only when asked
/// for ([`TreeView::of`] with `rows`), since previews re-read lines.
#[derive(Serialize)]
pub struct TreeView<'s, 'a> {
    #[serde(flatten)]
    pub head: DocHead<'s>,
    pub latest: Option<&'s Id<'a>>,
    pub roots: Vec<&'s Id<'a>>,
    /// The session the nodes are made from ([`TreeView::node`]), as they are written: after
    /// the rest, on every worker.
    #[serde(skip)]
    s: &'s Session<'a>,
    /// Where the session was forked from (sanitized).
    #[serde(skip)]
    pub origin: Option<String>,
    /// The rows for people, in display order.
    #[serde(skip)]
    pub rows: Vec<Row>,
    /// What each entry's row says, by entry position.
    #[serde(skip)]
    pub texts: Vec<EntryText>,
    /// Set when a format without ids of its own reads as one chain of this many entries:
    /// said, so that a flat listing is not taken for a tree that failed to build.
    #[serde(skip)]
    pub one_chain: Option<usize>,
}

#[derive(Serialize)]
pub struct Node<'s, 'a> {
    pub id: &'s Id<'a>,
    pub parent: Option<&'s Id<'a>>,
    pub line: u32,
    pub depth: u32,
    pub kind: &'s str,
    pub role: Option<&'s str>,
    pub children: Children<'s, 'a>,
    /// The reader made the id up (`L<line>`): the format has none.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub synthetic_id: bool,
    /// The label another entry put on this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'s str>,
}

impl<'s, 'a> Node<'s, 'a> {
    /// The node of the entry at `i`.
    fn of(s: &'s Session<'a>, i: Ix) -> Self {
        let e = s.entry(i);
        Node {
            id: &e.id,
            parent: s.parent_id(i),
            line: e.line,
            depth: s.tree.depth(i),
            kind: e.kind_name(),
            role: s.role_name(i),
            children: Children { s, of: i },
            synthetic_id: e.synthetic_id(),
            label: e.extra.as_ref().and_then(|x| x.label.as_deref()),
        }
    }
}

impl Node<'_, '_> {
    /// The node as compact JSON, appended to `out`: the bytes
    /// [`crate::render::compact::append`] gives, each key with its quotes, colon and comma
    /// copied as one constant (a tree has a node for every entry, and writing each key as a
    /// string to check and quote took 4% of the instructions of `tree --json`).
    pub fn append(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        use crate::render::compact::append;
        out.extend_from_slice(b"{\"id\":");
        append(out, self.id)?;
        out.extend_from_slice(b",\"parent\":");
        append(out, &self.parent)?;
        out.extend_from_slice(b",\"line\":");
        append(out, &self.line)?;
        out.extend_from_slice(b",\"depth\":");
        append(out, &self.depth)?;
        out.extend_from_slice(b",\"kind\":");
        append(out, self.kind)?;
        out.extend_from_slice(b",\"role\":");
        append(out, &self.role)?;
        out.extend_from_slice(b",\"children\":");
        append(out, &self.children)?;
        if self.synthetic_id {
            out.extend_from_slice(b",\"synthetic_id\":true");
        }
        if let Some(label) = self.label {
            out.extend_from_slice(b",\"label\":");
            append(out, label)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// A node's children, in file order: serialized as their ids, read from the index (a
/// list per node would cost an allocation each, on trees of millions of entries).
#[derive(Clone, Copy)]
pub struct Children<'s, 'a> {
    s: &'s Session<'a>,
    of: Ix,
}

impl<'s, 'a> Children<'s, 'a> {
    pub fn ids(&self) -> impl Iterator<Item = &'s Id<'a>> + 's {
        let s = self.s;
        s.tree.children(self.of).iter().map(move |&c| &s.entry(c).id)
    }
}

impl Serialize for Children<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.ids())
    }
}

/// One row of the human tree.
#[derive(Clone, Debug)]
pub enum Row {
    /// Entry `node`, with the connectors left of it.
    Entry { node: Ix, connectors: Indent, on_path: bool, latest: bool },
    /// `--collapse` folded this many entries of a linear run here.
    Folded { connectors: Indent, entries: usize },
    /// Another root starts, for this reason.
    Root(RootReason),
}

/// One pending row: the node and the connectors of its first and later rows.
struct Frame {
    node: Ix,
    first: Indent,
    rest: Indent,
}

/// The connectors left of a row, one 3-column segment a level, innermost last. Levels are
/// shared with the parent's: a tree that branches at every level (a session resumed from
/// each of its turns) indents its rows up to a million levels, and copying whole prefixes
/// would be quadratic. Only the levels a row shows are ever read.
#[derive(Clone, Default)]
pub struct Indent(Option<Rc<Level>>);

struct Level {
    segment: &'static str,
    outer: Indent,
    depth: usize,
}

// The derived drop would recurse once per level.
impl Drop for Level {
    fn drop(&mut self) {
        let mut outer = self.outer.0.take();
        while let Some(level) = outer {
            outer = match Rc::try_unwrap(level) {
                Ok(mut l) => l.outer.0.take(),
                Err(_) => None,
            };
        }
    }
}

impl Indent {
    pub fn push(&self, segment: &'static str) -> Indent {
        Indent(Some(Rc::new(Level { segment, outer: self.clone(), depth: self.depth() + 1 })))
    }

    /// Levels of connectors.
    pub fn depth(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.depth)
    }

    /// The innermost `n` segments, outermost first.
    pub fn innermost(&self, n: usize) -> String {
        let mut segments = Vec::with_capacity(n.min(self.depth()));
        let mut at = &self.0;
        while let Some(l) = at.as_ref().filter(|_| segments.len() < n) {
            segments.push(l.segment);
            at = &l.outer.0;
        }
        segments.iter().rev().copied().collect()
    }

    /// The connectors as a span: every level a renderer could show, and how many there are.
    fn span(&self, style: Style) -> Span<'static> {
        let levels = self.depth();
        Span { text: self.innermost(CONNECTOR_COLUMNS / 3).into(), style, fit: Fit::Connectors { levels }, gap: false }
    }
}

impl std::fmt::Debug for Indent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Indent({} levels, {:?})", self.depth(), self.innermost(CONNECTOR_COLUMNS / 3))
    }
}

impl<'s, 'a> TreeView<'s, 'a> {
    /// The tree of `s`; with `rows`, the human rows too (`collapse`: fold linear runs longer
    /// than this).
    pub fn of(s: &'s Session<'a>, rows: bool, collapse: Option<usize>) -> Self {
        let id = |i: Ix| &s.entry(i).id;
        let mut view = TreeView {
            head: DocHead::of(s),
            latest: s.tree.latest().map(id),
            roots: s.tree.roots().iter().map(|r| id(r.0)).collect(),
            s,
            origin: None,
            rows: Vec::new(),
            texts: Vec::new(),
            one_chain: None,
        };
        if rows {
            view.origin = s.header.as_ref().and_then(|h| h.origin.as_deref()).map(|o| sanitize::inline(o).into_owned());
            view.texts = entry_texts(s, &(0..s.entries.len() as Ix).collect::<Vec<_>>());
            view.rows = display_rows(s, collapse);
            let synthetic = s.entries.first().is_some_and(|e| e.synthetic_id());
            if synthetic && s.tree.roots().len() == 1 && s.tree.leaves().count() == 1 {
                view.one_chain = Some(s.entries.len());
            }
        }
        view
    }

    /// The node of the entry at `i`.
    pub fn node(&self, i: Ix) -> Node<'s, 'a> {
        Node::of(self.s, i)
    }

    /// Every node, in file order.
    pub fn nodes(&self) -> impl Iterator<Item = Node<'s, 'a>> + '_ {
        (0..self.s.entries.len() as Ix).map(|i| self.node(i))
    }

    /// The `tree --json` document, its nodes made and serialized in parallel.
    pub fn write_json<W: std::io::Write + ?Sized>(&self, w: &mut W) -> std::io::Result<()> {
        let s = self.s;
        let node = |buf: &mut Vec<u8>, i: usize| Node::of(s, i as Ix).append(buf).map_err(std::io::Error::other);
        crate::render::json::write_with_items_by(
            w,
            self,
            "nodes",
            s.entries.len(),
            crate::render::json::NODE_BYTES,
            node,
        )
    }

    /// The human form, a line at a time (a tree can have millions of rows).
    pub fn lines(&self) -> Box<dyn Iterator<Item = Line<'_>> + '_> {
        if self.s.entries.is_empty() {
            return Box::new(std::iter::once(no_entries()));
        }
        let origin = self.origin.iter().map(|o| {
            let forked =
                Span { text: format!("forked from {o}").into(), style: Style::Dim, fit: Fit::CutStart, gap: false };
            Line::of(vec![forked])
        });
        let chain = self.one_chain.map(|n| {
            Line::of(vec![Span::whole(format!("one chain of {n} entries: the file records no branches"), Style::Dim)])
        });
        Box::new(origin.chain(self.rows.iter().map(|r| self.line(r))).chain(chain))
    }

    fn line(&self, row: &Row) -> Line<'_> {
        match row {
            Row::Entry { node, connectors, on_path, latest } => {
                let mut spans = vec![connectors.span(Style::Dim)];
                spans.push(if *on_path { Span::whole("•", Style::Marker) } else { Span::plain(" ") });
                spans.push(Span::plain(" "));
                self.texts[*node as usize].spans(!on_path, &mut spans);
                if *latest {
                    spans.push(latest_marker());
                }
                Line::of(spans)
            }
            Row::Folded { connectors, entries } => Line::of(vec![
                connectors.span(Style::Plain),
                Span::whole(format!("┆ ... {entries} entries ..."), Style::Dim),
            ]),
            Row::Root(reason) => {
                let why = match reason {
                    RootReason::Root => "another root",
                    RootReason::Dangling => "parent not in file",
                    RootReason::SelfParent => "names itself as parent",
                    RootReason::Cycle => "cycle, cut here",
                };
                Line::of(vec![Span::whole(format!("── {why} ──"), Style::Dim)])
            }
        }
    }
}

/// The rows in display order: roots in file order, each subtree depth first, children in
/// file order (iterative: real trees are 10^6 levels deep).
fn display_rows(s: &Session<'_>, collapse: Option<usize>) -> Vec<Row> {
    let latest = s.tree.latest();
    let mut on_path = vec![false; s.entries.len()];
    if let Some(l) = latest {
        for i in s.tree.path(l) {
            on_path[i as usize] = true;
        }
    }
    let entry = |i: Ix, connectors: &Indent| Row::Entry {
        node: i,
        connectors: connectors.clone(),
        on_path: on_path[i as usize],
        latest: Some(i) == latest,
    };
    let mut rows = Vec::with_capacity(s.entries.len());
    for (n, &(root, reason)) in s.tree.roots().iter().enumerate() {
        if n > 0 {
            rows.push(Row::Root(reason));
        }
        let mut stack = vec![Frame { node: root, first: Indent::default(), rest: Indent::default() }];
        while let Some(f) = stack.pop() {
            let i = f.node;
            rows.push(entry(i, &f.first));
            let kids = s.tree.children(i);
            match kids.len() {
                0 => {}
                1 => {
                    let mut next = kids[0];
                    if let Some(limit) = collapse {
                        let run = linear_run(s, next, latest);
                        if run.len() > limit.max(2) {
                            rows.push(entry(next, &f.rest));
                            rows.push(Row::Folded { connectors: f.rest.clone(), entries: run.len() - 2 });
                            next = run[run.len() - 1];
                        }
                    }
                    stack.push(Frame { node: next, first: f.rest.clone(), rest: f.rest });
                }
                k => {
                    for (j, &c) in kids.iter().enumerate().rev() {
                        let last = j + 1 == k;
                        let first = f.rest.push(if last { "└─ " } else { "├─ " });
                        let rest = f.rest.push(if last { "   " } else { "│  " });
                        stack.push(Frame { node: c, first, rest });
                    }
                }
            }
        }
    }
    rows
}

/// The single-child run starting at `start` that `--collapse` may fold: it stops before
/// anything worth seeing (a branch point, a compaction, a label, the latest entry).
fn linear_run(s: &Session<'_>, start: Ix, latest: Option<Ix>) -> Vec<Ix> {
    let mut run = vec![start];
    let mut at = start;
    loop {
        let e = s.entry(at);
        let foldable = matches!(e.kind(), Kind::Message | Kind::State) && Some(at) != latest;
        let kids = s.tree.children(at);
        if !foldable || kids.len() != 1 {
            break;
        }
        at = kids[0];
        run.push(at);
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node written by [`Node::append`] is the bytes serde's derive gives through the
    /// compact writer, over every entry of every bundled and real session (ids of every
    /// type, made-up ids, labels, roots, children).
    #[test]
    fn a_node_is_written_as_its_derive_writes_it() {
        let (mut nodes, mut synthetic, mut labels) = (0, 0, 0);
        for p in crate::test_corpus::session_files() {
            let Ok(src) = crate::source::Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            for i in 0..s.entries.len() {
                let node = Node::of(&s, i as Ix);
                let (mut want, mut got) = (Vec::new(), Vec::new());
                crate::render::compact::append(&mut want, &node).unwrap();
                node.append(&mut got).unwrap();
                assert!(got == want, "{}: {}", p.display(), String::from_utf8_lossy(&want));
                nodes += 1;
                synthetic += usize::from(node.synthetic_id);
                labels += usize::from(node.label.is_some());
            }
        }
        assert!(nodes > 500 && synthetic > 0 && labels > 0, "{nodes} nodes, {synthetic} made-up ids, {labels} labels");
    }

    #[test]
    fn connectors_keep_every_level_a_renderer_can_show() {
        let mut levels = vec!["│  "; 100];
        levels.push("└─ ");
        let indent = levels.iter().fold(Indent::default(), |i, s| i.push(s));
        let span = indent.span(Style::Dim);
        assert_eq!(span.fit, Fit::Connectors { levels: 101 });
        assert_eq!(span.text.chars().count(), CONNECTOR_COLUMNS / 3 * 3);
        assert!(span.text.ends_with("│  └─ "), "innermost last: {}", span.text);
    }

    /// `tree --json` loads only the roles of the messages ([`crate::format::Detail::Roles`]):
    /// its document is the one a full load gives, over every bundled and real session and a
    /// session with a role of no known name (whose message is kept, for the name).
    #[test]
    fn the_json_tree_is_the_same_from_the_roles_alone() {
        use crate::format::{Detail, Uses};
        use crate::source::Source;
        let json = |s: &Session<'_>| {
            let mut out = Vec::new();
            TreeView::of(s, false, None).write_json(&mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let odd = concat!(
            r#"{"kind":"session","version":1,"id":"s-1","timestamp":"2026-10-01T08:00:00.000Z"}"#,
            "\n",
            r#"{"kind":"message","id":"a1","parentId":null,"timestamp":"2026-10-01T08:00:01.000Z","message":{"role":"narrator","content":"once"}}"#,
            "\n",
            r#"{"kind":"message","id":"a2","parentId":"a1","timestamp":"2026-10-01T08:00:02.000Z","message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{"kind":"label","id":"a3","parentId":"a2","timestamp":"2026-10-01T08:00:03.000Z","targetId":"a1","label":"start"}"#,
            "\n",
        );
        let mut inputs = vec![("a role of no known name".to_string(), odd.as_bytes().to_vec())];
        for p in crate::test_corpus::session_files() {
            inputs.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
        let (mut compared, mut let_go) = (0, 0);
        for (name, bytes) in inputs {
            let Ok(src) = Source::from_bytes("t", bytes) else { continue };
            let Ok(full) = Session::load(&src, None) else { continue };
            let lean = Session::load_with(&src, None, Detail::Roles, Uses::Unlisted).unwrap();
            assert_eq!(json(&lean), json(&full), "{name}");
            if name == "a role of no known name" {
                assert!(json(&lean).contains(r#""role":"narrator""#));
                let kept: Vec<bool> = lean.entries.iter().map(|e| e.message.is_some()).collect();
                assert_eq!(kept, [true, false, false]);
            }
            compared += 1;
            let without = |s: &Session<'_>| s.entries.iter().filter(|e| e.message.is_none()).count();
            let_go += without(&lean) - without(&full);
        }
        assert!(compared > 40 && let_go > 500, "{compared} sessions compared, {let_go} messages let go");
    }
}
