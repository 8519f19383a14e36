//! `tree FILE`: the whole tree. Human output keeps linear runs flat and indents only at
//! branch points; the path to the latest entry is marked `•` and the latest entry `◀ latest`.

use std::io::Write;
use std::rc::Rc;

use serde::Serialize;

use super::{io_err, Ctx, DocHead, Outcome};
use crate::cli::TreeArgs;
use crate::error::Result;
use rayon::prelude::*;

use crate::model::{Id, Kind};
use crate::preview;
use crate::render::{json, text};
use crate::session::Session;
use crate::tree::{Ix, RootReason};

pub fn run(ctx: &Ctx, a: &TreeArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    if ctx.global.json {
        json::write(out, &TreeDoc::of(&s), false).map_err(io_err)?;
    } else if s.entries.is_empty() {
        writeln!(out, "no entries").map_err(io_err)?;
    } else {
        human(ctx, &s, a.collapse, out).map_err(io_err)?;
    }
    ctx.finish(s)
}

#[derive(Serialize)]
struct TreeDoc<'s, 'a> {
    #[serde(flatten)]
    head: DocHead<'s>,
    latest: Option<&'s Id<'a>>,
    roots: Vec<&'s Id<'a>>,
    nodes: Vec<Node<'s, 'a>>,
}

#[derive(Serialize)]
struct Node<'s, 'a> {
    id: &'s Id<'a>,
    parent: Option<&'s Id<'a>>,
    line: u32,
    depth: u32,
    kind: &'s str,
    role: Option<&'s str>,
    children: Vec<&'s Id<'a>>,
    /// The reader made the id up (`L<line>`): the format has none.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    synthetic_id: bool,
    /// The label another entry put on this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'s str>,
}

impl<'s, 'a> TreeDoc<'s, 'a> {
    fn of(s: &'s Session<'a>) -> Self {
        let id = |i: Ix| &s.entry(i).id;
        TreeDoc {
            head: DocHead::of(s),
            latest: s.tree.latest().map(id),
            roots: s.tree.roots().iter().map(|r| id(r.0)).collect(),
            nodes: (0..s.entries.len() as Ix)
                .map(|i| {
                    let e = s.entry(i);
                    Node {
                        id: &e.id,
                        parent: e.parent.as_ref(),
                        line: e.line,
                        depth: s.tree.depth(i),
                        kind: &e.kind_name,
                        role: e.role_name(),
                        children: s.tree.children(i).iter().map(|&c| id(c)).collect(),
                        synthetic_id: e.extra.as_ref().is_some_and(|x| x.synthetic_id),
                        label: e.extra.as_ref().and_then(|x| x.label.as_deref()),
                    }
                })
                .collect(),
        }
    }
}

/// One pending line of output: the node and the indentation of its first and later lines.
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
struct Indent(Option<Rc<Level>>);

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
    fn push(&self, segment: &'static str) -> Indent {
        Indent(Some(Rc::new(Level { segment, outer: self.clone(), depth: self.depth() + 1 })))
    }

    fn depth(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.depth)
    }

    /// The innermost `n` segments, outermost first.
    fn innermost(&self, n: usize) -> String {
        let mut segments = Vec::with_capacity(n.min(self.depth()));
        let mut at = &self.0;
        while let Some(l) = at.as_ref().filter(|_| segments.len() < n) {
            segments.push(l.segment);
            at = &l.outer.0;
        }
        segments.iter().rev().copied().collect()
    }
}

fn human(ctx: &Ctx, s: &Session<'_>, collapse: Option<usize>, out: &mut dyn Write) -> std::io::Result<()> {
    let p = &ctx.palette;
    let latest = s.tree.latest();
    let mut on_path = vec![false; s.entries.len()];
    if let Some(l) = latest {
        for i in s.tree.path(l) {
            on_path[i as usize] = true;
        }
    }
    // Descriptions re-read message lines; do that in parallel, in file order.
    let descs: Vec<preview::Description> =
        (0..s.entries.len() as Ix).into_par_iter().map(|i| preview::describe_at(s, i)).collect();
    let rows = Rows { ctx, s, descs, on_path, latest };
    if let Some(origin) = s.header.as_ref().and_then(|h| h.origin.as_deref()) {
        let line = format!("forked from {}", crate::sanitize::inline(origin));
        writeln!(out, "{}", p.dim(crate::render::fit::truncate_start(&line, ctx.width)))?;
    }
    for (n, &(root, reason)) in s.tree.roots().iter().enumerate() {
        if n > 0 {
            let why = match reason {
                RootReason::Root => "another root",
                RootReason::Dangling => "parent not in file",
                RootReason::SelfParent => "names itself as parent",
                RootReason::Cycle => "cycle, cut here",
            };
            writeln!(out, "{}", p.dim(format!("── {why} ──")))?;
        }
        let mut stack = vec![Frame { node: root, first: Indent::default(), rest: Indent::default() }];
        while let Some(f) = stack.pop() {
            let i = f.node;
            rows.print(i, &f.first, out)?;
            let kids = s.tree.children(i);
            match kids.len() {
                0 => {}
                1 => {
                    let mut next = kids[0];
                    if let Some(limit) = collapse {
                        let run = linear_run(s, next, latest);
                        if run.len() > limit.max(2) {
                            rows.print(next, &f.rest, out)?;
                            let folded = run.len() - 2;
                            let indent = fold_indent(&f.rest, indent_columns(ctx.width));
                            writeln!(out, "{indent}{}", p.dim(format!("┆ ... {folded} entries ...")))?;
                            next = run[run.len() - 1];
                        }
                    }
                    stack.push(Frame { node: next, first: f.rest.clone(), rest: f.rest.clone() });
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
    // A format without ids of its own (Codex) is one chain unless it records a rollback:
    // say so, so that a flat listing is not taken for a tree that failed to build.
    let synthetic = s.entries.first().and_then(|e| e.extra.as_ref()).is_some_and(|x| x.synthetic_id);
    if synthetic && s.tree.roots().len() == 1 && s.tree.leaves().count() == 1 {
        writeln!(out, "{}", p.dim(format!("one chain of {} entries: the file records no branches", s.entries.len())))?;
    }
    Ok(())
}

/// The single-child run starting at `start` that `--collapse` may fold: it stops before
/// anything worth seeing (a branch point, a compaction, a label, the latest entry).
fn linear_run(s: &Session<'_>, start: Ix, latest: Option<Ix>) -> Vec<Ix> {
    let mut run = vec![start];
    let mut at = start;
    loop {
        let e = s.entry(at);
        let foldable = matches!(e.kind, Kind::Message | Kind::State) && Some(at) != latest;
        let kids = s.tree.children(at);
        if !foldable || kids.len() != 1 {
            break;
        }
        at = kids[0];
        run.push(at);
    }
    run
}

/// Columns the connectors of a row may take: a third of the line, and never more than 80
/// (with `--wide` too: deep trees would otherwise print quadratic output).
fn indent_columns(width: usize) -> usize {
    (width / 3).min(80)
}

/// Every branch point on the way down adds a column of connectors; a session resumed from
/// older turns thousands of times would push its rows off any screen (and make the output
/// quadratic). Past `max` columns, the outer levels are folded into a count.
fn fold_indent(indent: &Indent, max: usize) -> String {
    const LEVEL: usize = 3;
    let limit = max.max(4 * LEVEL);
    let levels = indent.depth();
    if levels * LEVEL <= limit {
        return indent.innermost(levels);
    }
    let keep = limit / LEVEL - 2;
    format!("┆{}┆ {}", levels - keep, indent.innermost(keep))
}

/// What every row of one rendering shares.
struct Rows<'c, 's, 'a> {
    ctx: &'c Ctx,
    s: &'s Session<'a>,
    descs: Vec<preview::Description>,
    on_path: Vec<bool>,
    latest: Option<Ix>,
}

impl Rows<'_, '_, '_> {
    fn print(&self, i: Ix, indent: &Indent, out: &mut dyn Write) -> std::io::Result<()> {
        let p = &self.ctx.palette;
        let folded = fold_indent(indent, indent_columns(self.ctx.width));
        let prefix = folded.as_str();
        let on_path = self.on_path[i as usize];
        let is_latest = Some(i) == self.latest;
        let mark = if on_path { p.marker("•") } else { " ".to_string() };
        let used = crate::render::fit::width(prefix) + 2 + if is_latest { 9 } else { 0 };
        let row = text::entry_row(self.s, i, &self.descs[i as usize], p, self.ctx.width, used, !on_path && p.is_on());
        let tail = if is_latest { format!(" {}", p.marker("◀ latest")) } else { String::new() };
        writeln!(out, "{}{mark} {row}{tail}", p.dim(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::{fold_indent, Indent};

    fn indent(segments: &[&'static str]) -> Indent {
        segments.iter().fold(Indent::default(), |i, s| i.push(s))
    }

    #[test]
    fn deep_indentation_folds_into_a_count() {
        assert_eq!(fold_indent(&indent(&["│  ", "└─ "]), 40), "│  └─ ");
        let mut levels = vec!["│  "; 100];
        levels.push("└─ ");
        let folded = fold_indent(&indent(&levels), 40);
        assert!(folded.chars().count() <= 40, "{folded}");
        assert!(folded.starts_with("┆"), "{folded}");
        assert!(folded.ends_with("└─ "), "the nearest levels stay: {folded}");
        let hidden: usize = folded.trim_start_matches('┆').split('┆').next().unwrap().parse().unwrap();
        let shown = folded.chars().count() - format!("┆{hidden}┆ ").chars().count();
        assert_eq!(hidden * 3 + shown, 101 * 3);
    }
}
