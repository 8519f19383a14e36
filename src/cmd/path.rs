//! `path FILE [ID]`: the root-first path to an entry (default: the latest).

use std::io::Write;

use serde::Serialize;

use super::{io_err, Ctx, DocHead, Outcome};
use crate::cli::PathArgs;
use crate::error::Result;
use crate::model::Id;
use crate::preview;
use crate::render::{json, text};
use crate::session::Session;
use crate::tree::Ix;

pub fn run(ctx: &Ctx, a: &PathArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    if s.entries.is_empty() && a.id.is_none() {
        if ctx.global.json {
            json::write(out, &PathDoc { head: DocHead::of(&s), target: None, entries: vec![] }, false)
                .map_err(io_err)?;
        } else {
            writeln!(out, "no entries").map_err(io_err)?;
        }
        return ctx.finish(s);
    }
    let target = s.target(a.id.as_deref())?;
    let path = s.tree.path(target);
    if ctx.global.json {
        let doc = PathDoc {
            head: DocHead::of(&s),
            target: Some(&s.entry(target).id),
            entries: path.iter().map(|&i| Row::of(&s, i)).collect(),
        };
        json::write(out, &doc, false).map_err(io_err)?;
    } else {
        for &i in &path {
            let depth = format!("{:>4}", s.tree.depth(i));
            let row = text::entry_row(&s, i, &preview::describe_at(&s, i), &ctx.palette, ctx.width, 5, false);
            writeln!(out, "{} {row}", ctx.palette.dim(depth)).map_err(io_err)?;
        }
    }
    ctx.finish(s)
}

#[derive(Serialize)]
struct PathDoc<'s, 'a> {
    #[serde(flatten)]
    head: DocHead<'s>,
    target: Option<&'s Id<'a>>,
    entries: Vec<Row<'s, 'a>>,
}

#[derive(Serialize)]
pub struct Row<'s, 'a> {
    id: &'s Id<'a>,
    parent: Option<&'s Id<'a>>,
    line: u32,
    depth: u32,
    kind: &'s str,
    role: Option<&'s str>,
}

impl<'s, 'a> Row<'s, 'a> {
    pub fn of(s: &'s Session<'a>, i: Ix) -> Self {
        let e = s.entry(i);
        Row {
            id: &e.id,
            parent: e.parent.as_ref(),
            line: e.line,
            depth: s.tree.depth(i),
            kind: &e.kind_name,
            role: e.role_name(),
        }
    }
}
