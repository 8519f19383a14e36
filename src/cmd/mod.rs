//! One module per subcommand: load -> view -> render. This module holds what they share:
//! resolving inputs, loading with damage reporting, and the outcome that maps to an exit
//! status.

pub mod audit;
pub mod check;
pub mod context;
pub mod diff;
pub mod export;
pub mod grep;
pub mod leaves;
pub mod path;
pub mod query;
pub mod redact;
pub mod rows;
pub mod sessions;
pub mod show;
pub mod stats;
pub mod trace;
pub mod tree;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command, Global};
use crate::error::{Error, Result};
use crate::finding::{Finding, Severity};
use crate::model::Format;
use crate::render::{self, palette, Palette};
use crate::sanitize;
use crate::session::Session;
use crate::source::{ReadOptions, Source};
pub use crate::view::DocHead;

/// How a command that ran to completion ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran fine and the answer is negative (`check` found errors).
    Negative,
    /// A command-specific status, already explained on stderr (`query` keeps jq's 3, 4, 5).
    Code(u8),
}

/// What every command gets: the global flags and the decided presentation.
pub struct Ctx {
    pub global: Global,
    /// Styles for stdout.
    pub palette: Palette,
    /// Styles for stderr.
    pub err_palette: Palette,
    /// Columns for one-line views.
    pub width: usize,
}

/// At most this many load findings per file are printed on stderr by commands other than
/// `check`; the rest are counted.
const MAX_STDERR_FINDINGS: usize = 12;

impl Ctx {
    pub fn new(global: Global) -> Ctx {
        // JSON is never coloured.
        let palette = Palette::new(!global.json && palette::enabled(global.color, io::stdout().is_terminal()));
        let err_palette = Palette::new(palette::enabled(global.color, io::stderr().is_terminal()));
        let width = if global.wide { render::UNLIMITED } else { render::width() };
        Ctx { global, palette, err_palette, width }
    }

    pub fn format(&self) -> Option<Format> {
        self.global.input_format.map(Format::from)
    }

    pub fn read_options(&self) -> ReadOptions {
        ReadOptions { max_bytes: self.global.max_bytes, mmap: !self.global.no_mmap }
    }

    /// A note on stderr (unless `-q`).
    pub fn note(&self, msg: &str) {
        if !self.global.quiet {
            let _ = writeln!(self.stderr(), "arcturn-inspect: {msg}");
        }
    }

    /// stderr, locked, behind the terminal-safe writer: every message a command prints
    /// there goes through it.
    pub fn stderr(&self) -> sanitize::Terminal<io::StderrLock<'static>> {
        sanitize::stderr(self.err_palette.is_on())
    }

    /// Open the input of a single-file command. It stays open until the process exits
    /// (see [`release`]).
    pub fn open(&self, file: Option<&Path>) -> Result<&'static Source> {
        let path = match file {
            Some(f) => f.to_path_buf(),
            None => self.default_input()?,
        };
        Source::open(&path, self.read_options()).map(keep_until_exit)
    }

    /// With no file named: stdin when it is not a terminal, else the newest session of the
    /// current project.
    pub fn default_input(&self) -> Result<PathBuf> {
        if !io::stdin().is_terminal() {
            return Ok(PathBuf::from("-"));
        }
        let cwd = std::env::current_dir().map_err(|e| Error::Io { path: ".".into(), source: e })?;
        match crate::discover::newest_session(&cwd) {
            Some(p) => {
                self.note(&format!("reading {}", sanitize::inline(&p.to_string_lossy())));
                Ok(p)
            }
            None => Err(Error::Usage(
                "no session file given, and none found for this directory in any agent's folder (crab, arcturn, pi, claude, codex; see `arcturn-inspect sessions`)"
                    .into(),
            )),
        }
    }

    /// Expand inputs for multi-file commands: directories are walked for session files
    /// (see [`crate::discover::walk_jsonl`]).
    pub fn expand(&self, files: &[PathBuf]) -> Result<Vec<Input>> {
        self.expand_with(files, crate::discover::walk_jsonl)
    }

    /// [`Ctx::expand`] with another walk.
    pub fn expand_with(&self, files: &[PathBuf], walk: fn(&Path) -> crate::discover::Walked) -> Result<Vec<Input>> {
        if files.is_empty() {
            return Ok(vec![Input { path: self.default_input()?, walked: false }]);
        }
        let mut out = Vec::new();
        for f in files {
            if f.as_path() != Path::new("-") && f.is_dir() {
                let (found, errors) = walk(f);
                for (d, e) in errors {
                    self.note(&format!("{}: {e}", sanitize::inline(&d.to_string_lossy())));
                }
                if found.is_empty() {
                    self.note(&format!("{}: no *.jsonl files", sanitize::inline(&f.to_string_lossy())));
                }
                out.extend(found.into_iter().map(|p| Input { path: p, walked: true }));
            } else {
                out.push(Input { path: f.clone(), walked: false });
            }
        }
        if out.len() > 1 {
            // Loaded one after another on each thread, each reuses what the last freed.
            crate::allocator::keep_freed_memory_for_reuse();
        }
        Ok(out)
    }

    /// Load a session and report its load-time findings on stderr: damage as errors,
    /// everything else as warnings (`-q` silences warnings). With `--strict`, any finding
    /// is fatal.
    pub fn load<'a>(&self, src: &'a Source) -> Result<Session<'a>> {
        self.load_with(src, crate::format::Detail::Full)
    }

    /// [`Ctx::load`], keeping only `detail` of each record.
    pub fn load_with<'a>(&self, src: &'a Source, detail: crate::format::Detail) -> Result<Session<'a>> {
        let (s, lines) = self.load_reporting_with(src, detail);
        let mut err = self.stderr();
        for l in lines {
            let _ = writeln!(err, "{l}");
        }
        s
    }

    /// [`Ctx::load`] without printing: the stderr lines come back for the caller to print
    /// in input order (commands that load many files in parallel need this).
    pub fn load_reporting<'a>(&self, src: &'a Source) -> (Result<Session<'a>>, Vec<String>) {
        self.load_reporting_with(src, crate::format::Detail::Full)
    }

    /// [`Ctx::load_reporting`], keeping only `detail` of each record.
    pub fn load_reporting_with<'a>(
        &self,
        src: &'a Source,
        detail: crate::format::Detail,
    ) -> (Result<Session<'a>>, Vec<String>) {
        self.load_reporting_counted(src, detail, None)
    }

    /// [`Ctx::load_reporting_with`], showing each entry to a sink of `sinks` when the load
    /// is [`crate::format::Detail::Counted`] ([`Session::load_counted`]).
    pub fn load_reporting_counted<'t, 'a: 't>(
        &self,
        src: &'a Source,
        detail: crate::format::Detail,
        sinks: Option<&'t dyn crate::format::Sinks<'a>>,
    ) -> (Result<Session<'a>>, Vec<String>) {
        let s = match Session::load_counted(src, self.format(), detail, crate::format::Uses::Unlisted, sinks) {
            Ok(s) => s,
            Err(e) => return (Err(e), Vec::new()),
        };
        let shown: Vec<&Finding> = s.findings.iter().filter(|f| !f.code.is_lint()).collect();
        if self.global.strict && !shown.is_empty() {
            let lines = self.finding_lines(&s, &shown, true);
            let err = Error::Strict { path: s.name().to_string(), count: shown.len() };
            return (Err(err), lines);
        }
        let lines = self.finding_lines(&s, &shown, false);
        (Ok(s), lines)
    }

    fn finding_lines(&self, s: &Session<'_>, shown: &[&Finding], all_errors: bool) -> Vec<String> {
        let mut lines = Vec::new();
        let mut hidden = 0;
        for f in shown {
            let mut f = (*f).clone();
            // Outside `check`, only line damage is an error; the rest are warnings.
            if all_errors || f.code.is_line_damage() {
                f.severity = Severity::Error;
            } else {
                f.severity = Severity::Warning;
                if self.global.quiet {
                    continue;
                }
            }
            if lines.len() >= MAX_STDERR_FINDINGS {
                hidden += 1;
                continue;
            }
            lines.push(render::text::finding_line(s.name(), &f, &self.err_palette));
        }
        if hidden > 0 {
            lines.push(format!(
                "arcturn-inspect: {}: {hidden} more finding(s); run `arcturn-inspect check` for all of them",
                sanitize::inline(s.name())
            ));
        }
        lines
    }

    /// After a command printed what it could: damaged lines before the last mean exit 2.
    pub fn outcome(&self, s: &Session<'_>) -> Result<Outcome> {
        match s.damaged_lines() {
            0 => Ok(Outcome::Success),
            n => Err(Error::Damaged { path: s.name().to_string(), count: n }),
        }
    }

    /// [`Ctx::outcome`] for the last session the command loads, which is then released.
    pub fn finish(&self, s: Session<'_>) -> Result<Outcome> {
        let outcome = self.outcome(&s);
        release(s);
        outcome
    }
}

/// One input of a multi-file command.
#[derive(Clone, Debug)]
pub struct Input {
    pub path: PathBuf,
    /// Found by walking a directory rather than named: a file of no known format is then
    /// skipped with a warning instead of failing the command.
    pub walked: bool,
}

/// `f` over `inputs` on every worker, the biggest files first: each worker takes the biggest
/// input left, so the last to finish are the smallest and no worker is left alone with a
/// big file at the end of a folder. The results come in input order.
pub fn map_biggest_first<R: Send>(inputs: &[Input], f: impl Fn(&Input) -> R + Sync) -> Vec<R> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let sizes: Vec<u64> = inputs.par_iter().map(|i| std::fs::metadata(&i.path).map_or(0, |m| m.len())).collect();
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    // Stable: inputs of one size are taken in input order.
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = (0..rayon::current_num_threads().clamp(1, inputs.len().max(1)))
        .into_par_iter()
        .flat_map_iter(|_| {
            let mut mine = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                mine.push((i, f(&inputs[i])));
            }
            mine
        })
        .collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// What became of the inputs of a multi-file command (`check`, `stats`, `trace`, `query`),
/// and the one rule that turns it into an exit status (README "Exit status"):
///
/// | inputs | exit |
/// |---|---|
/// | any unreadable (I/O, encoding, `--strict`, a named file of no known format) or with damaged lines before the last | 2 |
/// | none read at all: every walked file skipped | 2 |
/// | the command's answer is negative (`check` errors, `stats` budget) | 1 |
/// | otherwise (walked files of no known format skipped with a warning) | 0 |
#[derive(Default, Debug)]
pub struct Tally {
    /// Inputs read as sessions.
    pub read: usize,
    /// Inputs that could not be read at all.
    pub unreadable: usize,
    /// Inputs read with damaged lines before the last, and how many such lines.
    pub damaged: Vec<(String, usize)>,
    /// Walked files of no known format.
    pub skipped: Vec<String>,
}

impl Tally {
    /// A session was read; `damaged_lines` before the last make the exit status 2.
    pub fn read(&mut self, s: &Session<'_>) {
        self.read += 1;
        if s.damaged_lines() > 0 {
            self.damaged.push((s.name().to_string(), s.damaged_lines()));
        }
    }

    /// An input that could not be loaded: skipped when a walk found it and it is of no
    /// known format, else unreadable. Returns the one line to print on stderr (`None` when
    /// the error was reported already, or for a skip under `-q`).
    pub fn fail(&mut self, ctx: &Ctx, input: &Input, e: &Error) -> Option<String> {
        if let (true, Error::Unrecognized { .. }) = (input.walked, e) {
            self.skipped.push(input.path.to_string_lossy().into_owned());
            return (!ctx.global.quiet).then(|| {
                format!(
                    "arcturn-inspect: {}: skipped: not a session file of a known format",
                    sanitize::inline(&input.path.to_string_lossy())
                )
            });
        }
        self.unreadable += 1;
        (!e.is_reported())
            .then(|| format!("arcturn-inspect: {}", sanitize::inline(&crate::secrets::mask_text(&e.to_string()))))
    }

    pub fn merge(&mut self, o: Tally) {
        self.read += o.read;
        self.unreadable += o.unreadable;
        self.damaged.extend(o.damaged);
        self.skipped.extend(o.skipped);
    }

    /// ", 2 skipped, 1 unreadable" for a command's summary line.
    pub fn summary_suffix(&self) -> String {
        let mut s = String::new();
        if !self.skipped.is_empty() {
            s.push_str(&format!(", {} skipped (unknown format)", self.skipped.len()));
        }
        if self.unreadable > 0 {
            s.push_str(&format!(", {} unreadable", self.unreadable));
        }
        s
    }

    /// The exit status (see the table above). `negative` is the command's own answer.
    pub fn exit(&self, negative: bool) -> Result<Outcome> {
        if self.unreadable > 0 {
            return Err(Error::Usage(format!("{} input(s) could not be read", self.unreadable)));
        }
        match self.damaged.as_slice() {
            [] => {}
            [(path, count)] => return Err(Error::Damaged { path: path.clone(), count: *count }),
            more => return Err(Error::Usage(format!("{} input(s) have damaged lines (see above)", more.len()))),
        }
        if self.read == 0 && !self.skipped.is_empty() {
            return Err(Error::Usage(format!(
                "no session file of a known format among the inputs ({} skipped)",
                self.skipped.len()
            )));
        }
        Ok(if negative { Outcome::Negative } else { Outcome::Success })
    }
}

/// Let go of a session the process is about to exit with. Freeing a big session is about a
/// million deallocations (tens of milliseconds per GiB of input); the kernel takes the
/// whole heap back at exit at once, so the last session of a command is not freed.
pub fn release(s: Session<'_>) {
    std::mem::forget(s);
}

/// The same for the last input a command reads: returning a 1 GiB buffer to the system
/// while the worker threads are alive costs about 50 ms (the other CPUs' TLBs must be
/// flushed too), while the kernel tears the whole address space down at exit for less.
pub fn keep_until_exit(src: Source) -> &'static Source {
    Box::leak(Box::new(src))
}

/// Run the parsed command line, writing data to `out`.
///
/// Human text reaches `out` through the terminal-safe writer, always. Output for programs
/// (`--json`, `query`, `export`) is already escaped for safe printing by its renderer and
/// passes unchanged to a pipe or file (`query -r` must give scripts the raw text), but
/// goes through the writer too when stdout is a terminal.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(msg) = unsupported(&cli.command, &cli.global) {
        return Err(Error::Usage(msg));
    }
    let ctx = Ctx::new(cli.global);
    let for_programs =
        ctx.global.json || matches!(cli.command, Command::Query(_) | Command::Export(_) | Command::Rows(_));
    let mut shown;
    let out: &mut dyn Write = if for_programs && !io::stdout().is_terminal() {
        out
    } else {
        shown = sanitize::Terminal::new(out, ctx.palette.is_on());
        &mut shown
    };
    let outcome = match cli.command {
        Command::Tree(a) => tree::run(&ctx, &a, out),
        Command::Path(a) => path::run(&ctx, &a, out),
        Command::Leaves(a) => leaves::run(&ctx, &a, out),
        Command::Show(a) => show::run(&ctx, &a, out),
        Command::Check(a) => check::run(&ctx, &a, out),
        Command::Query(a) => query::run(&ctx, &a, out),
        Command::Context(a) => context::run(&ctx, &a, out),
        Command::Export(a) => export::run(&ctx, &a, out),
        Command::Trace(a) => trace::run(&ctx, &a, out),
        Command::Stats(a) => stats::run(&ctx, &a, out),
        Command::Sessions(a) => sessions::run(&ctx, &a, out),
        Command::Grep(a) => grep::run(&ctx, &a, out),
        Command::Diff(a) => diff::run(&ctx, &a, out),
        Command::Rows(a) => rows::run(&ctx, &a, out),
        Command::Audit(a) => audit::run(&ctx, &a, out),
        Command::Redact(a) => redact::run(&ctx, &a, out),
    }?;
    out.flush().map_err(|e| Error::Io { path: "<stdout>".into(), source: e })?;
    Ok(outcome)
}

/// Global flags a command has no use for, and why: such a flag is refused (exit 2) rather
/// than silently ignored, so that `export --json` never looks like it worked. README
/// "Global options" lists the same table.
pub const UNSUPPORTED: &[(&str, &[&str], &str)] = &[
    ("--json", &["export"], "export writes Markdown or HTML; use --html, or `query` for JSON"),
    ("--wide", &["show", "query", "export", "rows", "redact"], "this command's output is never fitted to the terminal"),
    ("--strict", &["sessions"], "sessions lists files and reports no damage; run `check --strict` on them"),
    ("--input-format", &["sessions"], "sessions detects each file's format on its own"),
];

/// The message for the first global flag in [`UNSUPPORTED`] that `command` was given.
fn unsupported(command: &Command, g: &Global) -> Option<String> {
    let name = command_name(command);
    UNSUPPORTED.iter().find_map(|&(flag, commands, why)| {
        let given = match flag {
            "--json" => g.json,
            "--wide" => g.wide,
            "--strict" => g.strict,
            "--input-format" => g.input_format.is_some(),
            _ => false,
        };
        (given && commands.contains(&name)).then(|| format!("{name} does not take {flag}: {why}"))
    })
}

/// The subcommand's name as typed.
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Tree(_) => "tree",
        Command::Path(_) => "path",
        Command::Leaves(_) => "leaves",
        Command::Show(_) => "show",
        Command::Check(_) => "check",
        Command::Query(_) => "query",
        Command::Context(_) => "context",
        Command::Export(_) => "export",
        Command::Trace(_) => "trace",
        Command::Stats(_) => "stats",
        Command::Sessions(_) => "sessions",
        Command::Grep(_) => "grep",
        Command::Diff(_) => "diff",
        Command::Rows(_) => "rows",
        Command::Audit(_) => "audit",
        Command::Redact(_) => "redact",
    }
}

/// What `arcturn-inspect` with no arguments prints (on stderr, like jq and ripgrep do with a
/// usage error): the commands and the invocations people start with. Built from the clap
/// definitions, so a new command shows up here by itself.
pub fn overview() -> String {
    let cmd = crate::cli::command();
    let mut s = format!(
        "arcturn-inspect {}: inspect coding-agent sessions: arcturn, crab, pi, Claude Code, Codex (read-only).\n\n\
         Usage: arcturn-inspect <COMMAND> [FILE]...   (no FILE: the newest session of this project)\n\nCommands:\n",
        cmd.get_version().unwrap_or_default()
    );
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|c| c.get_name() != "help").collect();
    let width = subs.iter().map(|c| c.get_name().len()).max().unwrap_or(0);
    for c in subs {
        let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
        s.push_str(&format!("  {:width$}  {about}\n", c.get_name()));
    }
    s.push_str(
        "\nMost common:\n\
         \x20 arcturn-inspect tree session.jsonl\n\
         \x20 arcturn-inspect check session.jsonl\n\
         \x20 arcturn-inspect query 'select(.kind == \"message\") | .message.role' session.jsonl\n\n\
         More: arcturn-inspect --help, arcturn-inspect <COMMAND> --help, man arcturn-inspect\n",
    );
    s
}

/// Map a write error on stdout to the error type (a closed pipe is handled by `main`).
pub fn io_err(e: io::Error) -> Error {
    Error::Io { path: "<stdout>".into(), source: e }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each worker takes the biggest input left (on one worker: biggest first, inputs of one
    /// size in input order); the results come in input order, on any number of workers.
    #[test]
    fn inputs_are_taken_biggest_first_and_answered_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let sizes = [3usize, 0, 700, 12, 700, 5000, 1];
        let mut inputs: Vec<Input> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let path = tmp.path().join(format!("{i}.jsonl"));
                std::fs::write(&path, vec![b'x'; n]).unwrap();
                Input { path, walked: true }
            })
            .collect();
        // An input that cannot be read is taken last, as if empty.
        inputs.push(Input { path: tmp.path().join("missing.jsonl"), walked: false });
        let name = |i: &Input| i.path.file_name().unwrap().to_string_lossy().into_owned();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let taken = std::sync::Mutex::new(Vec::new());
        let got = one.install(|| {
            map_biggest_first(&inputs, |i| {
                taken.lock().unwrap().push(name(i));
                name(i)
            })
        });
        assert_eq!(
            taken.into_inner().unwrap(),
            ["5.jsonl", "2.jsonl", "4.jsonl", "3.jsonl", "0.jsonl", "6.jsonl", "1.jsonl", "missing.jsonl"]
        );
        let in_order: Vec<String> = inputs.iter().map(name).collect();
        assert_eq!(got, in_order);
        let four = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        assert_eq!(four.install(|| map_biggest_first(&inputs, name)), in_order);
        assert!(map_biggest_first(&[], name).is_empty());
    }
}
