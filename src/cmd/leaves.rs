//! `leaves FILE`: every branch tip in file order, the latest one marked ([`LeavesView`]).

use std::io::Write;

use super::{io_err, Ctx, Outcome};
use crate::cli::FileArg;
use crate::error::Result;
use crate::format::Detail;
use crate::render::{json, lines};
use crate::view::leaves::LeavesView;

pub fn run(ctx: &Ctx, a: &FileArg, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    // The messages of the leaves are all the view shows: the others are let go as they
    // are decoded, where the format allows, and the leaves' read back.
    let mut s = ctx.load_with(src, Detail::Shown)?;
    let leaves: Vec<_> = s.tree.leaves().collect();
    s.read_back(&leaves);
    let human = !ctx.global.json;
    let view = LeavesView::of(&s, human);
    if human {
        lines::write(out, view.lines(), ctx.width, &ctx.palette).map_err(io_err)?;
    } else {
        json::write(out, &view, false).map_err(io_err)?;
    }
    // Not freed, like the session (see `release`): the process is about to exit.
    std::mem::forget(view);
    ctx.finish(s)
}
