//! `path FILE [ID]`: the root-first path to an entry, default the latest ([`PathView`]).

use std::io::Write;

use super::{io_err, Ctx, Outcome};
use crate::cli::PathArgs;
use crate::error::Result;
use crate::render::lines;
use crate::view::path::PathView;

pub fn run(ctx: &Ctx, a: &PathArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    // A file with no entries has no latest entry: an empty path, unless an id was asked for.
    let target = if s.entries.is_empty() && a.id.is_none() { None } else { Some(s.target(a.id.as_deref())?) };
    let human = !ctx.global.json;
    let view = PathView::of(&s, target, human);
    if human {
        lines::write(out, view.lines(), ctx.width, &ctx.palette).map_err(io_err)?;
    } else {
        view.write_json(out).map_err(io_err)?;
    }
    // Not freed, like the session (see `release`): the process is about to exit.
    std::mem::forget(view);
    ctx.finish(s)
}
