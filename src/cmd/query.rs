//! `query FILTER FILE...`: a jq filter over the records of each file, with jq's flags and exit
//! codes. Files are opened one at a time, when the filter first needs their records, so a
//! directory of sessions costs the memory of one.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
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

    let mut named = Vec::new();
    for pair in a.arg.chunks(2) {
        named.push((pair[0].clone(), Val::from(pair[1].clone())));
    }
    for pair in a.argjson.chunks(2) {
        let v = query::parse_json_arg(&pair[1])
            .map_err(|e| Error::Usage(format!("--argjson {}: not valid JSON ({e})", sanitize::inline(&pair[0]))))?;
        named.push((pair[0].clone(), v));
    }

    let program = match query::compile(&code, named) {
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
    let records = Records { ctx, files: files.into(), default_input, selection, current: None, tally: &tally };

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
    let raw = a.raw_output || a.join_output;
    let opts = RunOptions { null_input: a.null_input, slurp: a.slurp };

    let out = RefCell::new(out);
    let summary = program
        .run(
            records,
            opts,
            |v| {
                let mut out = out.borrow_mut();
                match v {
                    Val::TStr(s) if raw => {
                        let text = String::from_utf8_lossy(s);
                        // Raw text goes to scripts as is; on a terminal, control characters
                        // are made visible like every other untrusted text.
                        if terminal {
                            out.write_all(sanitize::block(&text).as_bytes())?;
                        } else {
                            out.write_all(text.as_bytes())?;
                        }
                    }
                    v => value::write(&mut **out, v, &layout)?,
                }
                if !a.join_output {
                    out.write_all(b"\n")?;
                }
                Ok(())
            },
            |message, origin| {
                // Keep stdout and stderr in order on a terminal.
                let _ = out.borrow_mut().flush();
                let at = match origin {
                    Some(o) => format!("{}:{}: ", o.file, o.line),
                    None => String::new(),
                };
                // Errors quote the value at fault, which can be a whole message.
                let line = format!("{at}error: {}", crate::render::fit::truncate(message, 300));
                let _ = writeln!(ctx.stderr(), "arcturn-inspect: {}", sanitize::inline(&line));
            },
        )
        .map_err(io_err)?;
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
    current: Option<Open>,
    tally: &'t RefCell<Tally>,
}

struct Open {
    name: Rc<str>,
    source: Source,
    picks: std::vec::IntoIter<Pick>,
}

impl Records<'_, '_> {
    fn open(&self, path: &Path) -> Result<Open> {
        let source = Source::open(path, self.ctx.read_options())?;
        let picks = {
            let s = self.ctx.load(&source)?;
            let picks = query::select(&s, &self.selection)?;
            self.tally.borrow_mut().read += 1;
            let damaged = s.damaged_lines();
            if damaged > 0 {
                self.tally.borrow_mut().damaged.push((s.name().to_string(), damaged));
            }
            picks
        };
        let name = Rc::from(source.name.as_str());
        Ok(Open { name, source, picks: picks.into_iter() })
    }
}

impl Iterator for Records<'_, '_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(open) = &mut self.current {
                for p in open.picks.by_ref() {
                    // Lines the loader could not read were reported already; jq would stop
                    // at them, we skip them and exit 2 at the end.
                    if let Some(value) = query::parse_line(&open.source.bytes()[p.span]) {
                        return Some(Record { value, origin: Origin { file: open.name.clone(), line: p.line } });
                    }
                }
                self.current = None;
            }
            if std::mem::take(&mut self.default_input) {
                match self.ctx.default_input() {
                    Ok(path) => self.files.push_back(Input { path, walked: false }),
                    Err(e) => self.fail(&Input { path: PathBuf::from("-"), walked: false }, e),
                }
            }
            let input = self.files.pop_front()?;
            match self.open(&input.path) {
                Ok(open) => self.current = Some(open),
                Err(e) => self.fail(&input, e),
            }
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
