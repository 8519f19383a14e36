//! `show FILE ID`: one entry as stored, pretty-printed (compact with `--json`); an entry
//! written over several lines shows each line in file order.

use std::io::Write;

use super::{io_err, Ctx, Outcome};
use crate::cli::ShowArgs;
use crate::error::Result;
use crate::render::json;

pub fn run(ctx: &Ctx, a: &ShowArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(Some(&a.file))?;
    let s = ctx.load(src)?;
    let i = s.find(&a.id)?;
    // An entry written over several lines (a Codex request's items) shows each of them.
    for span in s.entry(i).spans() {
        let value = s.value_at(span)?;
        json::write(out, &value, !ctx.global.json).map_err(io_err)?;
    }
    ctx.finish(s)
}
