//! `rows --table TABLE FILE...|DIR...`: one table of flat rows (NDJSON) for analytical
//! engines. Files are read in parallel a few at a time (a window of twice the worker
//! threads) and each file's rows are written as soon as it and the files before it are
//! done, in input order: memory holds the files in flight, never the whole set. A file's
//! rows are serialized in parallel chunks too, so one big file uses every thread, a batch
//! of chunks at a time; the rows of a command's only file are written batch by batch, so
//! that memory holds two batches of its rows, never the table.

use std::io::{self, Write};

use rayon::prelude::*;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::{RowsArgs, RowsTable};
use crate::error::Result;
use crate::render::json;
use crate::rows::{self, Rows};
use crate::source::{ReadOptions, Source};
use crate::tree::Ix;

/// About the size of a row (an entry's is 600 to 700 bytes), so that a chunk's buffer is
/// rarely grown.
const ROW_BYTES: usize = 768;
/// About the bytes of a run's rows in the spans table (the run and a dozen spans).
const RUN_ROWS_BYTES: usize = 8192;

/// Where one input's finding lines and rows go.
trait Sink {
    /// The input's finding and error lines, before any of its rows.
    fn messages(&mut self, lines: Vec<String>);
    /// The next chunk of the input's rows, in order.
    fn rows(&mut self, chunk: &mut Vec<u8>) -> io::Result<()>;
}

/// An input read beside others: its lines and rows are kept until the inputs before it
/// are written.
#[derive(Default)]
struct Kept {
    /// The rows, NDJSON, in chunks.
    rows: Vec<Vec<u8>>,
    /// Finding and error lines for stderr, printed in input order.
    messages: Vec<String>,
}

impl Sink for Kept {
    fn messages(&mut self, lines: Vec<String>) {
        self.messages.extend(lines);
    }

    fn rows(&mut self, chunk: &mut Vec<u8>) -> io::Result<()> {
        self.rows.push(std::mem::take(chunk));
        Ok(())
    }
}

/// The command's only input: its lines and rows are written as they come.
struct Written<'c, 'o> {
    ctx: &'c Ctx,
    out: &'o mut dyn Write,
}

impl Sink for Written<'_, '_> {
    fn messages(&mut self, lines: Vec<String>) {
        print_messages(self.ctx, &lines);
    }

    fn rows(&mut self, chunk: &mut Vec<u8>) -> io::Result<()> {
        self.out.write_all(chunk)
    }
}

pub fn run(ctx: &Ctx, a: &RowsArgs, out: &mut dyn Write) -> Result<Outcome> {
    let files = ctx.expand(&a.files)?;
    let opts = ctx.read_options();
    let mut tally = Tally::default();
    if let [f] = &files[..] {
        one(ctx, f, opts, a.table, true, &mut tally, &mut Written { ctx, out: &mut *out }).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        return tally.exit(false);
    }
    let window = rayon::current_num_threads().max(1) * 2;
    for group in files.chunks(window) {
        let done: Vec<(Kept, Tally)> = group
            .par_iter()
            .map(|f| {
                let (mut kept, mut tally) = (Kept::default(), Tally::default());
                // Writing to memory cannot fail.
                let _ = one(ctx, f, opts, a.table, false, &mut tally, &mut kept);
                (kept, tally)
            })
            .collect();
        for (kept, t) in done {
            print_messages(ctx, &kept.messages);
            for chunk in &kept.rows {
                out.write_all(chunk).map_err(io_err)?;
            }
            tally.merge(t);
        }
        // Each window's rows reach the reader before the next window is read.
        out.flush().map_err(io_err)?;
    }
    tally.exit(false)
}

fn print_messages(ctx: &Ctx, lines: &[String]) {
    let mut err = ctx.stderr();
    for m in lines {
        let _ = writeln!(err, "{m}");
    }
}

/// Load one input and hand its finding lines, then its rows, to `sink`; `alone` when it is
/// the command's only one (kept until exit, see [`super::release`]). Fails only when the
/// sink cannot take the rows.
fn one(
    ctx: &Ctx,
    f: &Input,
    opts: ReadOptions,
    table: RowsTable,
    alone: bool,
    tally: &mut Tally,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let src = match Source::open(&f.path, opts) {
        Ok(s) => s,
        Err(e) => {
            sink.messages(tally.fail(ctx, f, &e).into_iter().collect());
            return Ok(());
        }
    };
    let src = if alone { super::keep_until_exit(src) } else { &src };
    let (s, mut messages) = ctx.load_reporting(src);
    let s = match s {
        Ok(s) => s,
        Err(e) => {
            messages.extend(tally.fail(ctx, f, &e));
            sink.messages(messages);
            return Ok(());
        }
    };
    sink.messages(messages);
    tally.read(&s);
    let written = {
        let r = Rows::new(&s);
        let mut emit = |chunk: &mut Vec<u8>| sink.rows(chunk);
        match table {
            RowsTable::Entries => json::write_lines(
                r.entries(),
                ROW_BYTES,
                |buf, i| rows::compact_line(buf, &r.entry(i as Ix)),
                &mut emit,
            ),
            RowsTable::Calls => {
                let calls = r.call_sources();
                json::write_lines(
                    calls.len(),
                    ROW_BYTES,
                    |buf, k| rows::compact_line(buf, &r.call(k, calls[k])),
                    &mut emit,
                )
            }
            RowsTable::Tools => {
                let tools = r.tool_sources();
                json::write_lines(
                    tools.len(),
                    ROW_BYTES,
                    |buf, k| rows::compact_line(buf, &r.tool(k, tools[k])),
                    &mut emit,
                )
            }
            RowsTable::Spans => {
                let t = r.trace();
                let run = |buf: &mut Vec<u8>, i: usize| {
                    // The next run's texts are asked for while this one's rows are made.
                    if let Some(next) = t.runs.get(i + 1) {
                        next.prefetch();
                    }
                    r.run_rows(i, &t.runs[i]).iter().try_for_each(|row| rows::compact_line(buf, row))
                };
                json::write_line_groups(t.runs.len(), RUN_ROWS_BYTES, run, &mut emit)
            }
            RowsTable::Sessions => {
                json::write_lines(1, ROW_BYTES, |buf, _| rows::compact_line(buf, &r.session()), &mut emit)
            }
        }
    };
    if alone {
        super::release(s);
    }
    written
}
