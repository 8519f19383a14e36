//! `grep PATTERN FILE|DIR...`: load each input (in parallel), search it ([`crate::search`]),
//! print the hits in input order. Exit as ripgrep: 0 a match, 1 none, 2 an error.

use std::io::Write;
use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::GrepArgs;
use crate::error::{Error, Result};
use crate::model::{Format, OwnedId};
use crate::ordered::{self, NoThreads, Sink};
use crate::render::json;
use crate::render::matches::{self, Mark};
use crate::search::{call_names, Filter, Found, Hit, PatternOptions, Search, Submatch, Want};
use crate::source::Source;

/// Hits handed from a worker to the printer at a time.
const BATCH: usize = 256;
/// The bytes of a session's lines one worker searches at a time, when a session's search
/// is shared between threads.
const CHUNK: usize = 1 << 20;
/// Inputs a thread may search ahead of the one being printed, their hits held.
const REACH: usize = 64;
/// Chunks a session must have for its search to be shared: starting threads costs about
/// what searching a chunk does.
const SHARED: usize = 8;
/// The stack of a worker thread: a load recurses no deeper than the nesting limit.
const WORKER_STACK: usize = 16 << 20;

/// What a worker hands the printer about one input, in this order: `Loaded` once, then any
/// number of `Hits` or `Count`, then `Done`.
enum Piece {
    /// Finding and error lines for stderr; the session's name and format (none: it could
    /// not be read).
    Loaded {
        messages: Vec<String>,
        file: String,
        format: Option<Format>,
    },
    Hits(Vec<Hit>),
    Count(usize),
    Done(Tally),
}

/// The printer's state: where it is in the inputs, and what it has seen.
struct Printer<'c, 'a, 'o> {
    ctx: &'c Ctx,
    a: &'a GrepArgs,
    out: &'o mut dyn Write,
    file: String,
    format: Option<Format>,
    /// Hits of the current input so far.
    count: usize,
    /// Hits printed for the current input (for the `--` between groups).
    printed: usize,
    matched: bool,
    tally: Tally,
}

impl Printer<'_, '_, '_> {
    fn take(&mut self, piece: Piece) -> std::io::Result<()> {
        match piece {
            Piece::Loaded { messages, file, format } => {
                let mut err = self.ctx.stderr();
                for m in &messages {
                    let _ = writeln!(err, "{m}");
                }
                (self.file, self.format, self.count, self.printed) = (file, format, 0, 0);
            }
            Piece::Hits(hits) => {
                let Some(format) = self.format else { return Ok(()) };
                self.count += hits.len();
                self.matched = true;
                if !(self.a.count || self.a.files_with_matches) {
                    for h in &hits {
                        print_hit(self.ctx, self.a, &self.file, format, h, self.printed, &mut *self.out)?;
                        self.printed += 1;
                    }
                }
            }
            Piece::Count(n) => {
                self.count += n;
                self.matched |= n > 0;
            }
            Piece::Done(tally) => {
                self.tally.merge(tally);
                if let (Some(format), true) = (self.format, self.count > 0) {
                    if self.a.count || self.a.files_with_matches {
                        print_file(self.ctx, self.a, &self.file, format, self.count, &mut *self.out)?;
                    }
                }
            }
        }
        Ok(())
    }
}

pub fn run(ctx: &Ctx, a: &GrepArgs, out: &mut dyn Write) -> Result<Outcome> {
    let options = PatternOptions { ignore_case: a.ignore_case, word: a.word_regexp, fixed: a.fixed_strings };
    let filter = Filter { role: a.role.map(|r| r.as_str().to_string()), tool: a.tool.clone() };
    let search = Search::new(&a.pattern, options, filter, a.context)
        .map_err(|e| Error::Usage(format!("the pattern does not compile:\n{e}")))?;
    let files = ctx.expand(&a.files)?;
    let threads = rayon::current_num_threads().max(1);
    // Inputs are searched in parallel and printed in the order given, each as its hits
    // come: memory holds a few batches of hits per thread, never a file's or the run's.
    // A worker whose session is big enough shares its search with threads the run keeps
    // spare: one fewer than its CPUs, in all.
    let spare = Mutex::new(threads - 1);
    // A small file's hits are few, and a directory's small files can go far ahead of a big one.
    let workers = ordered::Workers { threads, stack: WORKER_STACK, ahead: threads * REACH };
    let work = |_: &mut (), i: usize, sink: &Sink<'_, Piece>| {
        search_one(ctx, &search, a, &files[i], i + 1 == files.len(), &spare, sink);
    };
    let mut printer = Printer {
        ctx,
        a,
        out,
        file: String::new(),
        format: None,
        count: 0,
        printed: 0,
        matched: false,
        tally: Tally::default(),
    };
    let mut take = |piece| printer.take(piece).map_or_else(ControlFlow::Break, ControlFlow::Continue);
    let failed = match ordered::run(files.len(), workers, || (), work, &mut take) {
        Ok(failed) => failed,
        // No thread could start: one input after the other, here.
        Err(NoThreads) => ordered::run_here(files.len(), || (), work, &mut take),
    };
    if let Some(e) = failed {
        return Err(io_err(e));
    }
    printer.out.flush().map_err(io_err)?;
    let matched = printer.matched;
    printer.tally.exit(!matched)
}

/// Load one input and search it, handing what it finds to `sink`.
fn search_one(
    ctx: &Ctx,
    search: &Search,
    a: &GrepArgs,
    f: &Input,
    last: bool,
    spare: &Mutex<usize>,
    sink: &Sink<'_, Piece>,
) {
    let mut tally = Tally::default();
    let file = f.path.to_string_lossy().into_owned();
    let src = match Source::open(&f.path, ctx.read_options()) {
        Ok(s) => s,
        Err(e) => {
            let messages = tally.fail(ctx, f, &e).into_iter().collect();
            return unread(sink, messages, file, tally);
        }
    };
    let src = if last { super::keep_until_exit(src) } else { &src };
    let (s, mut messages) = ctx.load_reporting(src);
    let s = match s {
        Ok(s) => s,
        Err(e) => {
            messages.extend(tally.fail(ctx, f, &e));
            return unread(sink, messages, file, tally);
        }
    };
    tally.read(&s);
    if !sink.send(Piece::Loaded { messages, file: s.name().to_string(), format: Some(s.format) }) {
        return;
    }
    let want = if a.count || a.files_with_matches { Want::Count } else { Want::Hits };
    let units = search.units(&s);
    let names = call_names(&s);
    let chunks = ordered::split(units.iter().map(|u| u.weight(&s)), CHUNK);
    let helpers = if chunks.len() >= SHARED { borrow(spare, chunks.len() - 1) } else { 0 };
    let first_only = a.files_with_matches;
    // `None`: the printer stopped reading; else whether the chunk found anything.
    let search_chunk = |k: usize, sink: &Sink<'_, Piece>| -> Option<bool> {
        let mut batch = Batch { sink, hits: Vec::new(), count: 0, first_only, found: false, closed: false };
        search.search(&s, &names, &units[chunks[k].clone()], want, &mut |found| batch.add(found));
        batch.flush().then_some(batch.found)
    };
    // Chunk after chunk on this thread; `false`: the printer stopped reading.
    let one_by_one = |sink: &Sink<'_, Piece>| {
        for k in 0..chunks.len() {
            match search_chunk(k, sink) {
                None => return false,
                Some(true) if first_only => break,
                Some(_) => {}
            }
        }
        true
    };
    let going = if helpers == 0 {
        one_by_one(sink)
    } else {
        // The chunks' pieces come back here in order, and go on to the printer.
        let work = |_: &mut (), k: usize, inner: &Sink<'_, Piece>| {
            search_chunk(k, inner);
        };
        let forward = |piece| if sink.send(piece) { ControlFlow::Continue(()) } else { ControlFlow::Break(()) };
        let threads = helpers + 1;
        let workers = ordered::Workers { threads, stack: WORKER_STACK, ahead: threads * 2 };
        let run = ordered::run(chunks.len(), workers, || (), work, forward);
        *spare.lock().unwrap_or_else(PoisonError::into_inner) += helpers;
        match run {
            Ok(stopped) => stopped.is_none(),
            Err(NoThreads) => one_by_one(sink),
        }
    };
    if going {
        sink.send(Piece::Done(tally));
    }
    if last {
        super::release(s);
    }
}

/// What an input that could not be read gives the printer: its messages, and its tally.
fn unread(sink: &Sink<'_, Piece>, messages: Vec<String>, file: String, tally: Tally) {
    if sink.send(Piece::Loaded { messages, file, format: None }) {
        sink.send(Piece::Done(tally));
    }
}

/// Take up to `want` of the run's spare threads.
fn borrow(spare: &Mutex<usize>, want: usize) -> usize {
    let mut n = spare.lock().unwrap_or_else(PoisonError::into_inner);
    let got = want.min(*n);
    *n -= got;
    got
}

/// Finds on their way to the printer, a batch at a time.
struct Batch<'s, 'p> {
    sink: &'s Sink<'p, Piece>,
    hits: Vec<Hit>,
    /// Hits counted and not yet handed on (`-c`).
    count: usize,
    /// `-l`: the first find is the answer; the search stops there.
    first_only: bool,
    found: bool,
    /// The printer stopped reading.
    closed: bool,
}

impl Batch<'_, '_> {
    /// Take one find; `false`: stop searching.
    fn add(&mut self, found: Found) -> bool {
        self.found = true;
        let going = match found {
            Found::Hit(h) => {
                self.hits.push(h);
                self.hits.len() < BATCH || self.flush()
            }
            // Counts go on with the batch's end: one piece per chunk, not per part.
            Found::Count(n) if !self.first_only => {
                self.count += n;
                true
            }
            Found::Count(n) => self.send(Piece::Count(n)),
        };
        going && !self.first_only
    }

    /// Hand on the hits held; `false`: the printer stopped reading.
    fn flush(&mut self) -> bool {
        if self.count > 0 {
            let n = std::mem::take(&mut self.count);
            self.send(Piece::Count(n));
        }
        if self.hits.is_empty() {
            return !self.closed;
        }
        let hits = std::mem::take(&mut self.hits);
        self.send(Piece::Hits(hits))
    }

    fn send(&mut self, piece: Piece) -> bool {
        self.closed = self.closed || !self.sink.send(piece);
        !self.closed
    }
}

/// One hit, as `--json` or as text; `printed` hits of the file came before it.
fn print_hit(
    ctx: &Ctx,
    a: &GrepArgs,
    file: &str,
    format: Format,
    h: &Hit,
    printed: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let p = &ctx.palette;
    if ctx.global.json {
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
        return json::write(out, &doc, false);
    }
    if a.context > 0 && printed > 0 && !h.continues {
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
    Ok(())
}

/// `-l` and `-c`: the file's line.
fn print_file(
    ctx: &Ctx,
    a: &GrepArgs,
    file: &str,
    format: Format,
    count: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let p = &ctx.palette;
    let count = (!a.files_with_matches).then_some(count);
    if ctx.global.json {
        return json::write(out, &FileDoc { file, format, count }, false);
    }
    match count {
        None => writeln!(out, "{}", p.file(crate::sanitize::inline(file))),
        Some(n) => writeln!(out, "{}:{}", p.file(crate::sanitize::inline(file)), n),
    }
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
