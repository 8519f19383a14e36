//! `tree FILE`: the whole tree ([`TreeView`]), as JSON or as text.

use std::io::Write;

use super::{io_err, Ctx, Outcome};
use crate::cli::TreeArgs;
use crate::error::Result;
use crate::format::Detail;
use crate::render::lines;
use crate::view::tree::TreeView;

pub fn run(ctx: &Ctx, a: &TreeArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let human = !ctx.global.json;
    // The JSON shows each entry's role and nothing else of its message.
    let s = if human { ctx.load(src)? } else { ctx.load_with(src, Detail::Roles)? };
    let view = TreeView::of(&s, human, a.collapse);
    if human {
        lines::write(out, view.lines(), ctx.width, &ctx.palette).map_err(io_err)?;
    } else {
        view.write_json(out).map_err(io_err)?;
    }
    // Not freed, like the session (see `release`): the process is about to exit.
    std::mem::forget(view);
    ctx.finish(s)
}
