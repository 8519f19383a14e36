//! `leaves FILE`: every branch tip, in file order, the latest one marked.

use std::io::Write;

use serde::Serialize;

use super::{io_err, Ctx, DocHead, Outcome};
use crate::cli::FileArg;
use crate::error::Result;
use crate::model::Id;
use crate::preview;
use crate::render::{json, text};
use crate::tree::Ix;

pub fn run(ctx: &Ctx, a: &FileArg, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    let latest = s.tree.latest();
    let leaves: Vec<Ix> = s.tree.leaves().collect();
    if ctx.global.json {
        let doc = LeavesDoc {
            head: DocHead::of(&s),
            latest: latest.map(|l| &s.entry(l).id),
            leaves: leaves
                .iter()
                .map(|&i| {
                    let e = s.entry(i);
                    Leaf { id: &e.id, line: e.line, depth: s.tree.depth(i), kind: &e.kind_name, role: e.role_name() }
                })
                .collect(),
        };
        json::write(out, &doc, false).map_err(io_err)?;
    } else if leaves.is_empty() {
        writeln!(out, "no entries").map_err(io_err)?;
    } else {
        let p = &ctx.palette;
        // The depth column is as wide as the deepest leaf needs.
        let digits = leaves.iter().map(|&i| s.tree.depth(i).to_string().len()).max().unwrap_or(1);
        for &i in &leaves {
            let is_latest = Some(i) == latest;
            let depth = format!("depth {:>digits$}", s.tree.depth(i));
            let row = text::entry_row(
                &s,
                i,
                &preview::describe_at(&s, i),
                p,
                ctx.width,
                depth.len() + 2 + if is_latest { 9 } else { 0 },
                false,
            );
            let tail = if is_latest { format!(" {}", p.marker("◀ latest")) } else { String::new() };
            writeln!(out, "{}  {row}{tail}", p.dim(depth)).map_err(io_err)?;
        }
        writeln!(out, "{}", p.dim(format!("{} leaves, {} entries", leaves.len(), s.entries.len()))).map_err(io_err)?;
    }
    ctx.finish(s)
}

#[derive(Serialize)]
struct LeavesDoc<'s, 'a> {
    #[serde(flatten)]
    head: DocHead<'s>,
    latest: Option<&'s Id<'a>>,
    leaves: Vec<Leaf<'s, 'a>>,
}

#[derive(Serialize)]
struct Leaf<'s, 'a> {
    id: &'s Id<'a>,
    line: u32,
    depth: u32,
    kind: &'s str,
    role: Option<&'s str>,
}
