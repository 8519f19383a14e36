//! `rows --table TABLE FILE...|DIR...`: one table of flat rows (NDJSON) for analytical
//! engines. Files are read in parallel a few at a time (a window of twice the worker
//! threads) and each file's rows are written as soon as it and the files before it are
//! done, in input order: memory holds the files in flight, never the whole set. A file's
//! rows are serialized in parallel chunks too, so one big file uses every thread.

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::{RowsArgs, RowsTable};
use crate::error::Result;
use crate::render::json;
use crate::rows::Rows;
use crate::source::{ReadOptions, Source};
use crate::tree::Ix;

/// Rows serialized per parallel task: large enough that a task is worth scheduling,
/// small enough that a file of a few thousand entries still spreads over the threads.
const CHUNK: usize = 2048;

/// What became of one input.
struct Done {
    /// The file's rows, NDJSON, in chunks.
    rows: Vec<Vec<u8>>,
    /// Finding and error lines for stderr, printed in input order.
    messages: Vec<String>,
    tally: Tally,
}

pub fn run(ctx: &Ctx, a: &RowsArgs, out: &mut dyn Write) -> Result<Outcome> {
    let files = ctx.expand(&a.files)?;
    let opts = ctx.read_options();
    let window = rayon::current_num_threads().max(1) * 2;
    let mut tally = Tally::default();
    for group in files.chunks(window) {
        let done: Vec<Done> = group.par_iter().map(|f| one(ctx, f, opts, a.table, files.len() == 1)).collect();
        for d in done {
            {
                let mut err = ctx.stderr();
                for m in &d.messages {
                    let _ = writeln!(err, "{m}");
                }
            }
            for chunk in &d.rows {
                out.write_all(chunk).map_err(io_err)?;
            }
            tally.merge(d.tally);
        }
        // Each window's rows reach the reader before the next window is read.
        out.flush().map_err(io_err)?;
    }
    tally.exit(false)
}

/// Load one input and write its rows to a buffer; `alone` when it is the command's only one
/// (kept until exit, see [`super::release`]).
fn one(ctx: &Ctx, f: &Input, opts: ReadOptions, table: RowsTable, alone: bool) -> Done {
    let mut tally = Tally::default();
    let src = match Source::open(&f.path, opts) {
        Ok(s) => s,
        Err(e) => {
            let messages = tally.fail(ctx, f, &e).into_iter().collect();
            return Done { rows: Vec::new(), messages, tally };
        }
    };
    let src = if alone { super::keep_until_exit(src) } else { &src };
    let (s, mut messages) = ctx.load_reporting(src);
    let s = match s {
        Ok(s) => s,
        Err(e) => {
            messages.extend(tally.fail(ctx, f, &e));
            return Done { rows: Vec::new(), messages, tally };
        }
    };
    tally.read(&s);
    let rows = {
        let r = Rows::new(&s);
        match table {
            RowsTable::Entries => {
                let n = r.entries();
                (0..n.div_ceil(CHUNK))
                    .into_par_iter()
                    .map(|c| {
                        let mut buf = Vec::with_capacity(CHUNK * 512);
                        for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                            row(&mut buf, &r.entry(i as Ix));
                        }
                        buf
                    })
                    .collect()
            }
            RowsTable::Calls => ndjson(&r.calls()),
            RowsTable::Tools => ndjson(&r.tools()),
            RowsTable::Spans => {
                let t = r.trace();
                ndjson(&r.spans(&t))
            }
            RowsTable::Sessions => ndjson(std::slice::from_ref(&r.session())),
        }
    };
    if alone {
        super::release(s);
    }
    Done { rows, messages, tally }
}

/// Rows as NDJSON, serialized in parallel chunks, in order.
fn ndjson<T: Serialize + Sync>(rows: &[T]) -> Vec<Vec<u8>> {
    rows.par_chunks(CHUNK)
        .map(|c| {
            let mut buf = Vec::with_capacity(c.len() * 512);
            for r in c {
                row(&mut buf, r);
            }
            buf
        })
        .collect()
}

/// One row and its newline. Writing to memory cannot fail, and the rows' types serialize
/// without error (no maps with non-string keys, no non-finite floats: costs are held finite).
fn row<T: Serialize>(buf: &mut Vec<u8>, r: &T) {
    let _ = json::write(buf, r, false);
}
