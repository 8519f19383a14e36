//! `check FILE...`: the integrity report, grouped by severity, exit 1 on any error.

use std::io::Write;
use std::ops::ControlFlow;

use super::{io_err, Ctx, Outcome, Tally};
use crate::check::{check, Report};
use crate::cli::CheckArgs;
use crate::error::Result;
use crate::finding::Severity;
use crate::format::{Detail, Uses};
use crate::ordered::{self, NoThreads, Sink};
use crate::render::fit;
use crate::render::progress::Progress;
use crate::render::{json, text, Palette};
use crate::sanitize;
use crate::session::Session;
use crate::source::Source;

/// The stack of a worker thread: a load recurses no deeper than the nesting limit.
const WORKER_STACK: usize = 16 << 20;
/// Files a thread may check ahead of the one being reported, whose reports wait: a file
/// that takes long holds back only the reports after it, not the work on them.
const REACH: usize = 64;

pub fn run(ctx: &Ctx, a: &CheckArgs, out: &mut dyn Write) -> Result<Outcome> {
    let files = ctx.expand(&a.files)?;
    let mut tally = Tally::default();
    let mut with_errors = 0;
    let mut with_warnings = 0;
    let progress = Progress::new(ctx, files.len(), "files");
    // Files are checked in parallel (each big file is parallel inside too) and reported in
    // the order given, each as soon as every file before it is reported: a directory of small
    // sessions keeps every CPU busy, and a slow input (a FIFO, a huge file) holds back only
    // the reports after it. A failed write stops the run: files not started are not checked.
    let mut report_one = |(i, report): (usize, Result<Report>)| -> ControlFlow<std::io::Error> {
        let report = match report {
            Ok(r) => r,
            Err(e) => {
                // The other files are still checked; the tally decides the exit status.
                // Through the handle whose errors are ignored: `eprintln!` panics when
                // stderr is a closed pipe (`check DIR 2>&1 | head -1`).
                if let Some(line) = tally.fail(ctx, &files[i], &e) {
                    let _ = writeln!(ctx.stderr(), "{line}");
                }
                return ControlFlow::Continue(());
            }
        };
        // Damage is `check`'s answer (exit 1), not a failure to read.
        tally.read += 1;
        if !report.ok {
            with_errors += 1;
        } else if report.count(Severity::Warning) > 0 {
            with_warnings += 1;
        }
        let written = if ctx.global.json {
            json::write(out, &report, false)
        } else {
            human(&report, &ctx.palette, ctx.global.quiet, ctx.width, out)
        };
        written.map_or_else(ControlFlow::Break, ControlFlow::Continue)
    };
    let one = |i: usize| {
        let r = check_one(ctx, &files[i], i + 1 == files.len());
        progress.tick();
        (i, r)
    };
    let threads = rayon::current_num_threads().max(1);
    // A report is small, and a directory's small files can go far ahead of a big one.
    let workers = ordered::Workers { threads, stack: WORKER_STACK, ahead: threads * REACH };
    let work = |_: &mut (), i: usize, sink: &Sink<'_, (usize, Result<Report>)>| {
        sink.send(one(i));
    };
    let failed = match ordered::run(files.len(), workers, || (), work, &mut report_one) {
        Ok(failed) => failed,
        // No thread could start: one file after the other, here.
        Err(NoThreads) => (0..files.len()).find_map(|i| report_one(one(i)).break_value()),
    };
    if let Some(e) = failed {
        return Err(io_err(e));
    }
    progress.finish();
    if !ctx.global.json && files.len() > 1 {
        let clean = tally.read - with_errors - with_warnings;
        let line = format!(
            "{} files checked: {} with errors, {} with warnings only, {} clean{}",
            tally.read,
            with_errors,
            with_warnings,
            clean,
            tally.summary_suffix()
        );
        for l in fit::wrap(&line, ctx.width, 4) {
            writeln!(out, "{l}").map_err(io_err)?;
        }
    }
    out.flush().map_err(io_err)?;
    tally.exit(with_errors > 0)
}

/// The report of one input; `last` marks the command's last input, whose memory is left to
/// the process exit.
fn check_one(ctx: &Ctx, f: &super::Input, last: bool) -> Result<Report> {
    let src = Source::open(&f.path, ctx.read_options())?;
    let src = if last { super::keep_until_exit(src) } else { &src };
    // The report needs the index and the findings, not the message bodies.
    let s = Session::load_with(src, ctx.format(), Detail::Index, Uses::Paired)?;
    let report = check(&s, ctx.global.strict);
    if last {
        super::release(s);
    }
    Ok(report)
}

fn human(r: &Report, p: &Palette, quiet: bool, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let errors = r.count(Severity::Error);
    let warnings = r.count(Severity::Warning);
    for (sev, n) in [(Severity::Error, errors), (Severity::Warning, warnings)] {
        if n == 0 || (quiet && sev == Severity::Warning) {
            continue;
        }
        for f in r.findings.iter().filter(|f| f.severity == sev) {
            for l in text::finding_lines(&r.file, f, p, width) {
                writeln!(out, "{l}")?;
            }
        }
    }
    let (verdict, word) = if errors > 0 {
        (p.error("FAIL"), "FAIL")
    } else if warnings > 0 {
        (p.warning("ok"), "ok")
    } else {
        (p.ok("ok"), "ok")
    };
    let summary = format!(
        "{word} {}: {} error{}, {} warning{} ({} lines, {}{}, {})",
        sanitize::inline(&r.file),
        errors,
        if errors == 1 { "" } else { "s" },
        warnings,
        if warnings == 1 { "" } else { "s" },
        r.lines,
        // BAD-INPUTS.md: an empty or header-only file says "no entries", like the other views.
        if r.entries == 0 { "no entries".to_string() } else { format!("{} entries", r.entries) },
        if r.observations > 0 { format!(", {} observations", r.observations) } else { String::new() },
        r.format
    );
    for (n, l) in fit::wrap(&summary, width, 4).into_iter().enumerate() {
        match l.strip_prefix(word).filter(|_| n == 0) {
            Some(rest) => writeln!(out, "{verdict}{rest}")?,
            None => writeln!(out, "{l}")?,
        }
    }
    Ok(())
}
