//! `show FILE ID`: one entry as stored, pretty-printed (compact with `--json`). A line whose
//! parsed value would hide something (a key given twice, a number past f64) is printed as
//! its own text instead, so both values and the number's digits are there to see. An entry
//! written over several lines shows each line in file order.

use std::io::Write;

use super::{io_err, Ctx, Outcome};
use crate::cli::ShowArgs;
use crate::error::Result;
use crate::format::Detail;
use crate::render::json;

pub fn run(ctx: &Ctx, a: &ShowArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(Some(&a.file))?;
    // The entry is printed from its lines: no message is kept.
    let s = ctx.load_with(src, Detail::Index)?;
    let i = s.find(&a.id)?;
    let line = s.entry(i).line;
    if s.findings.iter().any(|f| f.line == Some(line) && f.code.is_hidden_by_parsers()) {
        let raw = String::from_utf8_lossy(s.raw(i));
        json::write_raw(out, raw.trim_end_matches(['\r', ' ', '\t'])).map_err(io_err)?;
        return ctx.finish(s);
    }
    // An entry written over several lines (a Codex request's items) shows each of them.
    for span in s.entry(i).spans() {
        let value = s.value_at(span)?;
        json::write(out, &value, !ctx.global.json).map_err(io_err)?;
    }
    ctx.finish(s)
}
