//! `query FILTER FILE...`: a jq filter over the records of each file, with jq's flags and exit
//! codes. Files are opened one at a time, when the filter first needs their records, so a
//! directory of sessions costs the memory of one.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use jaq_json::Val;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::QueryArgs;
use crate::error::{Error, Result};
use crate::query::{self, CompileError, Origin, Pick, Record, RunOptions, Selection};
use crate::render::value::{self, Layout};
use crate::sanitize;
use crate::source::Source;

pub fn run(ctx: &Ctx, a: &QueryArgs, out: &mut dyn Write) -> Result<Outcome> {
    let mut files: Vec<PathBuf> = a.files.clone();
    let (code, code_name) = match &a.from_file {
        Some(path) => {
            // jq's rule: with -f, the first positional argument is an input, not a filter.
            if let Some(first) = &a.filter {
                files.insert(0, PathBuf::from(first));
            }
            let name = path.to_string_lossy().into_owned();
            let code = std::fs::read_to_string(path).map_err(|e| Error::Io { path: name.clone(), source: e })?;
            (code, name)
        }
        None => {
            let filter = a.filter.clone().unwrap_or_default().into_string();
            let filter = filter.map_err(|_| Error::Usage("the filter is not valid UTF-8".into()))?;
            (filter, "<filter>".to_string())
        }
    };

    let program = match query::compile(&code, named_args(a)?) {
        Ok(p) => p,
        Err(errors) => {
            report_compile_errors(&code_name, &code, &errors, ctx);
            return Ok(Outcome::Code(3));
        }
    };

    // With no FILE, the default input (stdin or the newest session) is found only when the
    // filter first reads a record: `query -n '1 + 1'` needs no session at all.
    let default_input = files.is_empty();
    let files = if default_input { Vec::new() } else { ctx.expand(&files)? };
    let single = default_input || files.len() == 1;
    let tally = RefCell::new(Tally::default());
    let selection = Selection { path: a.path.clone(), leaves: a.leaves, kind: a.kind.clone() };
    // Each input on its own (no -s, -n, `input`, `halt`, ...): big files are shared out to
    // threads. `RAYON_NUM_THREADS=1` keeps everything on this one.
    let per_input = !a.slurp && !a.null_input && query::per_input(&code);
    // A filter that reads one path of each input by itself needs only that path parsed.
    let fields = if per_input { query::field_path(&code) } else { None };
    let mut records = Records {
        ctx,
        files: files.into(),
        default_input,
        selection,
        fields: fields.clone(),
        current: None,
        tally: &tally,
    };

    let terminal = io::stdout().is_terminal();
    let layout = Layout {
        indent: if ctx.global.json || a.compact_output || a.indent == Some(0) {
            None
        } else if a.tab {
            Some("\t".into())
        } else {
            Some(" ".repeat(a.indent.unwrap_or(2) as usize))
        },
        sort_keys: a.sort_keys,
        // `ctx.palette` is already off for `--json`, `--color never`, NO_COLOR and pipes.
        color: ctx.palette.is_on(),
    };
    let style = Style { layout, raw: a.raw_output || a.join_output, join: a.join_output, terminal };
    let opts = RunOptions { null_input: a.null_input, slurp: a.slurp };

    let threads = rayon::current_num_threads();
    let out = RefCell::new(out);
    let summary = if per_input && threads > 1 {
        let shared = Shared { ctx, a, code: &code, style: &style, threads, fields: fields.as_deref() };
        run_by_file(&program, &mut records, &shared, &out)?
    } else {
        program
            .run(records, opts, |v| render(&mut **out.borrow_mut(), v, &style), |m, o| report(ctx, &out, m, o))
            .map_err(io_err)?
    };
    out.into_inner().flush().map_err(io_err)?;

    if let Some(code) = summary.halt {
        return Ok(match code {
            0 => Outcome::Success,
            c => Outcome::Code(u8::try_from(c).unwrap_or(5)),
        });
    }
    let tally = tally.into_inner();
    if tally.read == 0 && tally.damaged.is_empty() && tally.unreadable == 0 && !tally.skipped.is_empty() {
        // Every walked file was of no known format: the shared rule's exit 2.
        tally.exit(false)?;
    }
    match (tally.unreadable, tally.damaged.as_slice()) {
        (0, []) => {}
        (0, [(path, count)]) => return Err(Error::Damaged { path: path.clone(), count: *count }),
        // The one input's error was printed already; a summary would only repeat it.
        (1, []) if single => return Ok(Outcome::Code(2)),
        (n, d) => {
            let mut parts = Vec::new();
            if n > 0 {
                parts.push(format!("{n} input(s) could not be read or had no such entry"));
            }
            if !d.is_empty() {
                parts.push(format!("{} input(s) have damaged lines", d.len()));
            }
            return Err(Error::Usage(format!("{}; the output above skips them", parts.join(", "))));
        }
    }
    if summary.errors > 0 {
        return Ok(Outcome::Code(5));
    }
    if a.exit_status {
        return Ok(match summary.last_truthy {
            None => Outcome::Code(4),
            Some(false) => Outcome::Negative,
            Some(true) => Outcome::Success,
        });
    }
    Ok(Outcome::Success)
}

/// The `--arg`/`--argjson` variables, in order.
fn named_args(a: &QueryArgs) -> Result<Vec<(String, Val)>> {
    let mut named = Vec::new();
    for pair in a.arg.chunks(2) {
        named.push((pair[0].clone(), Val::from(pair[1].clone())));
    }
    for pair in a.argjson.chunks(2) {
        let v = query::parse_json_arg(&pair[1])
            .map_err(|e| Error::Usage(format!("--argjson {}: not valid JSON ({e})", sanitize::inline(&pair[0]))))?;
        named.push((pair[0].clone(), v));
    }
    Ok(named)
}

/// How outputs are written.
struct Style {
    layout: Layout,
    /// `-r`/`-j`: strings as raw text.
    raw: bool,
    /// `-j`: no newline after an output.
    join: bool,
    /// stdout is a terminal.
    terminal: bool,
}

/// Write one output.
fn render(out: &mut dyn Write, v: &Val, style: &Style) -> io::Result<()> {
    match v {
        Val::TStr(s) if style.raw => {
            let text = String::from_utf8_lossy(s);
            // Raw text goes to scripts as is; on a terminal, control characters are made
            // visible like every other untrusted text.
            if style.terminal {
                out.write_all(sanitize::block(&text).as_bytes())?;
            } else {
                out.write_all(text.as_bytes())?;
            }
        }
        v => value::write(out, v, &style.layout)?,
    }
    if !style.join {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The stderr line of a runtime error, after `arcturn-inspect: `.
fn error_line(message: &str, origin: Option<&Origin>) -> String {
    let at = match origin {
        Some(o) => format!("{}:{}: ", o.file, o.line),
        None => String::new(),
    };
    // Errors quote the value at fault, which can be a whole message.
    let line = format!("{at}error: {}", crate::render::fit::truncate(message, 300));
    sanitize::inline(&line).into_owned()
}

/// Print a runtime error line, after what was written to stdout before it.
fn print_error(ctx: &Ctx, out: &RefCell<&mut dyn Write>, line: &str) {
    // Keep stdout and stderr in order on a terminal.
    let _ = out.borrow_mut().flush();
    let _ = writeln!(ctx.stderr(), "arcturn-inspect: {line}");
}

fn report(ctx: &Ctx, out: &RefCell<&mut dyn Write>, message: &str, origin: Option<&Origin>) {
    print_error(ctx, out, &error_line(message, origin));
}

/// Below this many bytes of input, a file is run on this thread: starting threads and
/// compiling the filter on each costs more than it saves.
const PARALLEL_MIN: usize = 4 << 20;

/// Input bytes per chunk handed to a thread: about a MiB, so a big file makes many more
/// chunks than there are threads and none waits long for a slow one.
const CHUNK: usize = 1 << 20;

/// What an input counts for in a chunk's size besides its bytes: a filter that does much
/// work per input (`[range(1000)]`) costs per input, not per byte, and a run of short lines
/// must not all land in one chunk.
const INPUT_WEIGHT: usize = 1 << 10;

/// Output bytes a chunk gathers before handing them on.
const PIECE: usize = 256 << 10;

/// The stack of the threads that run the filter: as deep as the main thread's (`main.rs`),
/// so a filter that recurses deeply runs alike on both. Only the pages touched are used.
const STACK: usize = 1 << 30;

/// What the threads that run the filter share.
struct Shared<'s> {
    ctx: &'s Ctx,
    a: &'s QueryArgs,
    code: &'s str,
    style: &'s Style,
    threads: usize,
    /// The path the filter reads ([`query::field_path`]).
    fields: Option<&'s [String]>,
}

/// What a chunk of inputs hands back, in order.
enum Piece {
    /// Rendered outputs.
    Out(Vec<u8>),
    /// A runtime error, as its stderr line.
    Error(String),
    /// The chunk is done.
    End(query::RunSummary),
    /// The filter could not be compiled on the thread (it compiled on the main one).
    Failed(String),
}

/// Run a filter that takes each input on its own, file after file: a big file in chunks on
/// worker threads, its outputs and errors written in input order; a small one here.
/// Outputs, errors, their order and the summary are those of one run over all the files.
fn run_by_file(
    program: &query::Program,
    records: &mut Records<'_, '_>,
    shared: &Shared<'_>,
    out: &RefCell<&mut dyn Write>,
) -> Result<query::RunSummary> {
    let mut total = query::RunSummary::default();
    while let Some(mut open) = records.next_file() {
        let picks = open.picks.as_slice();
        let bytes: usize = picks.iter().map(|p| p.span.len()).sum();
        let parallel = if bytes >= PARALLEL_MIN { run_chunks(&open, shared, out)? } else { None };
        let summary = match parallel {
            Some(s) => s,
            None => program
                .run(
                    std::iter::from_fn(|| open.next_record()),
                    RunOptions::default(),
                    |v| render(&mut **out.borrow_mut(), v, shared.style),
                    |m, o| report(shared.ctx, out, m, o),
                )
                .map_err(io_err)?,
        };
        total.outputs += summary.outputs;
        total.errors += summary.errors;
        total.last_truthy = summary.last_truthy.or(total.last_truthy);
        if summary.halt.is_some() {
            total.halt = summary.halt;
            break;
        }
    }
    Ok(total)
}

/// Run over one file's inputs in chunks on worker threads. `None`: no thread could be
/// started, and nothing was run.
fn run_chunks(open: &Open, shared: &Shared<'_>, out: &RefCell<&mut dyn Write>) -> Result<Option<query::RunSummary>> {
    let picks = open.picks.as_slice();
    let bytes = open.source.bytes();
    let chunks = crate::ordered::split(picks.iter().map(|p| p.span.len() + INPUT_WEIGHT), CHUNK);
    let name: &str = &open.name;
    let init = || {
        named_args(shared.a).map_err(|e| e.to_string()).and_then(|named| {
            query::compile(shared.code, named).map_err(|_| "the filter did not compile on a worker thread".to_string())
        })
    };
    let work = |program: &mut std::result::Result<query::Program, String>,
                i: usize,
                sink: &crate::ordered::Sink<'_, Piece>| {
        let program = match program {
            Ok(p) => p,
            Err(e) => {
                sink.send(Piece::Failed(e.clone()));
                return;
            }
        };
        run_chunk(program, &picks[chunks[i].clone()], bytes, name, shared, sink);
    };

    let mut total = query::RunSummary::default();
    let mut failure: Option<Error> = None;
    let consume = |piece: Piece| {
        match piece {
            Piece::Out(b) => {
                if let Err(e) = out.borrow_mut().write_all(&b) {
                    failure = Some(io_err(e));
                    return ControlFlow::Break(());
                }
            }
            Piece::Error(line) => print_error(shared.ctx, out, &line),
            Piece::End(s) => {
                total.outputs += s.outputs;
                total.errors += s.errors;
                total.last_truthy = s.last_truthy.or(total.last_truthy);
                if s.halt.is_some() {
                    total.halt = s.halt;
                    return ControlFlow::Break(());
                }
            }
            Piece::Failed(why) => {
                failure = Some(Error::Usage(format!("internal error: {why}")));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    };
    let workers = crate::ordered::Workers { threads: shared.threads, stack: STACK, ahead: shared.threads * 2 };
    match crate::ordered::run(chunks.len(), workers, init, work, consume) {
        Err(crate::ordered::NoThreads) => Ok(None),
        Ok(_) => match failure {
            Some(e) => Err(e),
            None => Ok(Some(total)),
        },
    }
}

/// Run over one chunk's inputs, sending outputs and errors as they come.
fn run_chunk(
    program: &query::Program,
    picks: &[Pick],
    bytes: &[u8],
    name: &str,
    shared: &Shared<'_>,
    sink: &crate::ordered::Sink<'_, Piece>,
) {
    let style = shared.style;
    let file: Rc<str> = Rc::from(name);
    // The reader stopped (a closed pipe, a halt before this chunk): read no more inputs.
    let stopped = std::cell::Cell::new(false);
    let records = picks.iter().take_while(|_| !stopped.get()).filter_map(|p| {
        let value = query::parse_input(&bytes[p.span.clone()], shared.fields)?;
        Some(Record { value, origin: Origin { file: file.clone(), line: p.line } })
    });
    let buf = RefCell::new(Vec::new());
    let send = |piece: Piece| {
        if !sink.send(piece) {
            stopped.set(true);
        }
        !stopped.get()
    };
    let result = program.run(
        records,
        RunOptions::default(),
        |v| {
            let mut b = buf.borrow_mut();
            render(&mut *b, v, style)?;
            if b.len() >= PIECE && !send(Piece::Out(std::mem::take(&mut *b))) {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the reader stopped"));
            }
            Ok(())
        },
        |m, o| {
            let pending = std::mem::take(&mut *buf.borrow_mut());
            if !pending.is_empty() {
                send(Piece::Out(pending));
            }
            send(Piece::Error(error_line(m, o)));
        },
    );
    if let Ok(summary) = result {
        let pending = buf.into_inner();
        if !pending.is_empty() {
            send(Piece::Out(pending));
        }
        send(Piece::End(summary));
    }
}

/// `arcturn-inspect: <filter>:1:6: undefined filter `lenght/0``, then the line with a caret
/// under the culprit, so a long filter need not be searched by eye.
fn report_compile_errors(name: &str, code: &str, errors: &[CompileError], ctx: &Ctx) {
    let mut err = ctx.stderr();
    let p = &ctx.err_palette;
    for e in errors {
        let _ = writeln!(
            err,
            "arcturn-inspect: {}:{}:{}: {} {}",
            sanitize::inline(name),
            e.line,
            e.column,
            p.error("error:"),
            sanitize::inline(&e.message)
        );
        let line_text = code.lines().nth(e.line - 1).unwrap_or("");
        let shown = sanitize::inline(line_text);
        let before: String = line_text.chars().take(e.column - 1).collect();
        let pad = sanitize::inline(&before).chars().count();
        let culprit = &code[e.span.clone()];
        let width = sanitize::inline(culprit.lines().next().unwrap_or("")).chars().count().max(1);
        let _ = writeln!(err, "  {shown}");
        let _ = writeln!(err, "  {}{}", " ".repeat(pad), p.error("^".repeat(width)));
    }
}

/// The record stream: file after file, each loaded (and its damage reported) when the filter
/// first reaches it.
struct Records<'c, 't> {
    ctx: &'c Ctx,
    files: VecDeque<Input>,
    /// No FILE was named: find the default input when the first record is needed.
    default_input: bool,
    selection: Selection,
    /// The path the filter reads, when that is all it reads ([`query::field_path`]).
    fields: Option<Vec<String>>,
    current: Option<Open>,
    tally: &'t RefCell<Tally>,
}

struct Open {
    name: Rc<str>,
    source: Source,
    picks: std::vec::IntoIter<Pick>,
    fields: Option<Vec<String>>,
}

impl Records<'_, '_> {
    fn open(&self, path: &Path) -> Result<Open> {
        let source = Source::open(path, self.ctx.read_options())?;
        let picks = {
            // The index is all the selection reads (lines, ids, the tree, the findings):
            // the records themselves are parsed again, by jaq, as the filter's inputs.
            let (s, report) = self.ctx.load_reporting_with(&source, crate::format::Detail::Index);
            let mut err = self.ctx.stderr();
            for l in report {
                let _ = writeln!(err, "{l}");
            }
            drop(err);
            let s = s?;
            let picks = query::select(&s, &self.selection)?;
            self.tally.borrow_mut().read += 1;
            let damaged = s.damaged_lines();
            if damaged > 0 {
                self.tally.borrow_mut().damaged.push((s.name().to_string(), damaged));
            }
            picks
        };
        let name = Rc::from(source.name.as_str());
        Ok(Open { name, source, picks: picks.into_iter(), fields: self.fields.clone() })
    }
}

impl Open {
    /// The next input of this file.
    fn next_record(&mut self) -> Option<Record> {
        for p in self.picks.by_ref() {
            // Lines the loader could not read were reported already; jq would stop at
            // them, we skip them and exit 2 at the end.
            if let Some(value) = query::parse_input(&self.source.bytes()[p.span], self.fields.as_deref()) {
                return Some(Record { value, origin: Origin { file: self.name.clone(), line: p.line } });
            }
        }
        None
    }
}

impl Records<'_, '_> {
    /// The next file that could be read, in order; those that could not are reported.
    fn next_file(&mut self) -> Option<Open> {
        loop {
            if std::mem::take(&mut self.default_input) {
                match self.ctx.default_input() {
                    Ok(path) => self.files.push_back(Input { path, walked: false }),
                    Err(e) => self.fail(&Input { path: PathBuf::from("-"), walked: false }, e),
                }
            }
            let input = self.files.pop_front()?;
            match self.open(&input.path) {
                Ok(open) => return Some(open),
                Err(e) => self.fail(&input, e),
            }
        }
    }
}

impl Iterator for Records<'_, '_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(record) = self.current.as_mut().and_then(Open::next_record) {
                return Some(record);
            }
            // The file before is closed first: a directory costs the memory of one file.
            self.current = None;
            self.current = Some(self.next_file()?);
        }
    }
}

impl Records<'_, '_> {
    /// An input that cannot be read: say so now, exit 2 at the end.
    fn fail(&self, input: &Input, e: Error) {
        let line = self.tally.borrow_mut().fail(self.ctx, input, &e);
        if let Some(line) = line {
            let _ = writeln!(self.ctx.stderr(), "{line}");
        }
    }
}
