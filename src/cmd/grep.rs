//! `grep PATTERN FILE|DIR...`: load each input (in parallel), search it ([`crate::search`]),
//! print the hits in input order. Exit as ripgrep: 0 a match, 1 none, 2 an error.

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::GrepArgs;
use crate::error::{Error, Result};
use crate::model::{Format, OwnedId};
use crate::render::json;
use crate::render::matches::{self, Mark};
use crate::search::{Filter, Hit, PatternOptions, Search, Submatch};
use crate::source::Source;

/// What one input gave.
struct Searched {
    file: String,
    format: Option<Format>,
    hits: Vec<Hit>,
    /// Finding and error lines for stderr, printed in input order.
    messages: Vec<String>,
    tally: Tally,
}

pub fn run(ctx: &Ctx, a: &GrepArgs, out: &mut dyn Write) -> Result<Outcome> {
    let options = PatternOptions { ignore_case: a.ignore_case, word: a.word_regexp, fixed: a.fixed_strings };
    let filter = Filter { role: a.role.map(|r| r.as_str().to_string()), tool: a.tool.clone() };
    let search = Search::new(&a.pattern, options, filter, a.context)
        .map_err(|e| Error::Usage(format!("the pattern does not compile:\n{e}")))?;
    let files = ctx.expand(&a.files)?;
    let results: Vec<Searched> = files.par_iter().map(|f| search_one(ctx, &search, f, files.len() == 1)).collect();

    let mut tally = Tally::default();
    let mut matched = false;
    for r in results {
        {
            let mut err = ctx.stderr();
            for m in &r.messages {
                let _ = writeln!(err, "{m}");
            }
        }
        tally.merge(r.tally);
        let Some(format) = r.format else { continue };
        if r.hits.is_empty() {
            continue;
        }
        matched = true;
        print(ctx, a, &r.file, format, &r.hits, out).map_err(io_err)?;
    }
    out.flush().map_err(io_err)?;
    tally.exit(!matched)
}

fn search_one(ctx: &Ctx, search: &Search, f: &Input, alone: bool) -> Searched {
    let mut tally = Tally::default();
    let file = f.path.to_string_lossy().into_owned();
    let src = match Source::open(&f.path, ctx.read_options()) {
        Ok(s) => s,
        Err(e) => {
            let messages = tally.fail(ctx, f, &e).into_iter().collect();
            return Searched { file, format: None, hits: Vec::new(), messages, tally };
        }
    };
    let src = if alone { super::keep_until_exit(src) } else { &src };
    let (s, mut messages) = ctx.load_reporting(src);
    match s {
        Ok(s) => {
            tally.read(&s);
            let hits = search.session(&s);
            let format = Some(s.format);
            let file = s.name().to_string();
            if alone {
                super::release(s);
            }
            Searched { file, format, hits, messages, tally }
        }
        Err(e) => {
            messages.extend(tally.fail(ctx, f, &e));
            Searched { file, format: None, hits: Vec::new(), messages, tally }
        }
    }
}

fn print(
    ctx: &Ctx,
    a: &GrepArgs,
    file: &str,
    format: Format,
    hits: &[Hit],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let p = &ctx.palette;
    if ctx.global.json {
        if a.files_with_matches {
            return json::write(out, &FileDoc { file, format, count: None }, false);
        }
        if a.count {
            return json::write(out, &FileDoc { file, format, count: Some(hits.len()) }, false);
        }
        for h in hits {
            let doc = MatchDoc {
                file,
                format,
                line: h.line,
                entry_id: h.entry_id.as_ref(),
                role: h.role.as_deref(),
                tool: h.tool.as_deref(),
                part: h.part,
                text_line: h.text_line,
                text: &h.text,
                submatches: &h.submatches,
            };
            json::write(out, &doc, false)?;
        }
        return Ok(());
    }
    if a.files_with_matches {
        return writeln!(out, "{}", p.file(crate::sanitize::inline(file)));
    }
    if a.count {
        return writeln!(out, "{}:{}", p.file(crate::sanitize::inline(file)), hits.len());
    }
    for (k, h) in hits.iter().enumerate() {
        if a.context > 0 && k > 0 && !h.continues {
            writeln!(out, "{}", p.dim("--"))?;
        }
        let context = matches::prefix(file, h, Mark::Context, p);
        for l in &h.before {
            writeln!(out, "{context} {}", matches::line(l, &[], a.max_columns, p))?;
        }
        let prefix = matches::prefix(file, h, Mark::Match, p);
        for (l, subs) in matches::lines(h) {
            writeln!(out, "{prefix} {}", matches::line(l, &subs, a.max_columns, p))?;
        }
        for l in &h.after {
            writeln!(out, "{context} {}", matches::line(l, &[], a.max_columns, p))?;
        }
    }
    Ok(())
}

/// `--json`: one object per match group (docs/schema/grep.json).
#[derive(Serialize)]
struct MatchDoc<'h> {
    file: &'h str,
    format: Format,
    line: u32,
    entry_id: Option<&'h OwnedId>,
    role: Option<&'h str>,
    tool: Option<&'h str>,
    part: crate::search::What,
    text_line: u32,
    text: &'h str,
    submatches: &'h [Submatch],
}

/// `--json -l` and `--json -c`: one object per file with a match.
#[derive(Serialize)]
struct FileDoc<'h> {
    file: &'h str,
    format: Format,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
}
