//! Command-line definitions (clap) and nothing else: no logic lives here.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::Format;
use crate::render::palette::ColorChoice;

const EXAMPLES: &str = "\
Examples:
  arcturn-inspect tree session.jsonl             the branches, the latest path highlighted
  arcturn-inspect check --json sessions/         integrity report for CI (exit 1 on errors)
  arcturn-inspect path session.jsonl b27e9a10    how one entry was reached
  arcturn-inspect show session.jsonl b27e       one entry as stored (unique id prefixes work)";

/// An offline, read-only inspector for arcturn, crab and Codex coding-agent session files.
#[derive(Debug, Parser)]
#[command(name = "arcturn-inspect", version, about, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Machine output: one JSON document per input (NDJSON when several).
    #[arg(long, global = true)]
    pub json: bool,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Skip format detection.
    #[arg(long, value_enum, global = true, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,
    /// Treat any damage (torn last line, corrupt line, any warning) as fatal.
    #[arg(long, global = true)]
    pub strict: bool,
    /// No warnings on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Human output: print every line and text whole instead of fitting it to the
    /// terminal's width (`COLUMNS`, else the terminal's, else 120 columns).
    #[arg(long, global = true)]
    pub wide: bool,
    /// Read files into memory instead of mapping them: for a session that another process
    /// may rewrite or truncate while it is read.
    #[arg(long, global = true)]
    pub no_mmap: bool,
    /// Read at most N bytes from an input that is not a regular file (stdin, a pipe, a
    /// device), and decompress at most N bytes from a compressed one (`.jsonl.zst`); K, M, G
    /// suffixes are powers of 1024.
    #[arg(long, global = true, value_name = "N", default_value = "2G", value_parser = crate::source::parse_byte_count)]
    pub max_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    Arcturn,
    Crab,
    Pi,
    Codex,
    Claude,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Format {
        match f {
            InputFormat::Arcturn => Format::Arcturn,
            InputFormat::Crab => Format::Crab,
            InputFormat::Pi => Format::Pi,
            InputFormat::Codex => Format::Codex,
            InputFormat::Claude => Format::Claude,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the whole tree: branches, compactions, labels, the path to the latest entry.
    #[command(
        after_help = "Examples:\n  arcturn-inspect tree session.jsonl\n  arcturn-inspect tree --collapse session.jsonl\n  arcturn-inspect tree --json session.jsonl | jq '.roots'"
    )]
    Tree(TreeArgs),
    /// Print the root-first path to an entry (default: the latest).
    #[command(
        after_help = "Examples:\n  arcturn-inspect path session.jsonl\n  arcturn-inspect path session.jsonl b27e9a10\n  arcturn-inspect path --json session.jsonl | jq -r '.entries[].id'"
    )]
    Path(PathArgs),
    /// List every branch tip (entry without children), in file order.
    #[command(
        after_help = "Examples:\n  arcturn-inspect leaves session.jsonl\n  arcturn-inspect leaves --json session.jsonl | jq '.leaves | length'"
    )]
    Leaves(FileArg),
    /// Print one entry as stored.
    #[command(
        after_help = "Examples:\n  arcturn-inspect show session.jsonl b27e9a10\n  arcturn-inspect show session.jsonl 3      (crab ids are integers)\n  arcturn-inspect show --json session.jsonl b27e | jq .message.usage"
    )]
    Show(ShowArgs),
    /// Check files for damage and inconsistencies; exit 1 when an error is found.
    #[command(
        after_help = "Examples:\n  arcturn-inspect check session.jsonl\n  arcturn-inspect check --json .crab/sessions/ | jq 'select(.ok | not)'\n  arcturn-inspect check --strict session.jsonl   (warnings count as errors)"
    )]
    Check(CheckArgs),
    /// Run a jq filter over every record of each file, as jq would over NDJSON.
    #[command(after_help = QUERY_HELP)]
    Query(QueryArgs),
    /// Show what the model is sent at an entry: compactions folded, stubs, state, tokens.
    #[command(
        after_help = "Examples:\n  arcturn-inspect context session.jsonl\n  arcturn-inspect context session.jsonl b27e9a10\n  arcturn-inspect context --json session.jsonl | jq '.estimated_tokens'\n  arcturn-inspect context --json session.jsonl | jq -r '.messages[] | select(.elided) | .entry_id'\n\nestimated_tokens counts the messages that would be sent (characters / 4, the agents' own\nestimate); recorded_tokens is the size the file recorded for the last model call on the path.\nThe recorded size is larger: the system prompt and tool definitions are sent but not written\nto the file. `stats` shows the same two figures for the latest leaf."
    )]
    Context(ContextArgs),
    /// Write a Markdown or HTML transcript of the path to an entry.
    #[command(
        after_help = "Examples:\n  arcturn-inspect export session.jsonl > review.md\n  arcturn-inspect export --html -o review.html session.jsonl\n  arcturn-inspect export --html -O session.jsonl     (arcturn-session-<yyyy-MM-dd-HHmm>.html here)\n  arcturn-inspect export --as-sent --thinking session.jsonl b27e9a10"
    )]
    Export(ExportArgs),
    /// Show the span tree of each run: model calls, tool calls, events, and where the time went.
    #[command(
        after_help = "Examples:\n  arcturn-inspect trace .crab/sessions/session-1792661000878.jsonl\n  arcturn-inspect trace --errors session.jsonl          (only runs with a failing span)\n  arcturn-inspect trace --run r2 session.jsonl\n  arcturn-inspect trace --leaf b27e9a10 session.jsonl   (arcturn: trace another branch)\n  arcturn-inspect trace --json session.jsonl | jq '.runs[] | select(.status != \"complete\")'"
    )]
    Trace(TraceArgs),
    /// Token and activity statistics for sessions, files and directories.
    #[command(
        after_help = "Examples:\n  arcturn-inspect stats session.jsonl\n  arcturn-inspect stats --by model ~/.arcturn/sessions/\n  arcturn-inspect stats --by day --since 7d --timezone Europe/Berlin ~/.claude/projects/\n  arcturn-inspect stats --by week --since 2026-11-01 --until 2026-11-30 sessions/\n  arcturn-inspect stats --max-tokens 2000000 --max-cost 5 sessions/   (CI gate: exit 1 when exceeded)\n  arcturn-inspect stats --json sessions/ | jq '.total.usage'\n\nCosts: a cost the file recorded is kept (cost_source \"recorded\"); other calls are priced from the\nbundled table (LiteLLM's prices, dated in data/prices.json; --prices FILE overrides) as\n\"estimated\"; a sum of both is \"mixed\"; a model the table does not know makes the cost\n\"unknown\" (listed in unpriced_models), never 0.\n\nContext: `recorded` is the size the file recorded for the last model call; `estimated` is the\n`context` command's characters/4 estimate of the messages at the latest leaf. The estimate is\nsmaller: the system prompt and tool definitions are sent but not written to the file."
    )]
    Stats(StatsArgs),
    /// List the sessions in a directory, newest first, reading only each file's head and tail.
    #[command(
        after_help = "Examples:\n  arcturn-inspect sessions                      (.crab/sessions, else ~/.arcturn/sessions)\n  arcturn-inspect sessions ~/.arcturn/sessions/ -n 20\n  arcturn-inspect sessions --sort activity\n  arcturn-inspect sessions --json | jq -r '.sessions[0].file'"
    )]
    Sessions(SessionsArgs),
    /// Search what sessions say (text, thinking, tool calls and results), decoded, with a regex.
    #[command(after_help = GREP_HELP)]
    Grep(GrepArgs),
    /// Compare two branches of a session: their common ancestor, each side's entries, retried prompts side by side, totals.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// Write one table of flat rows (NDJSON) for DuckDB, ClickHouse or Spark: entries, model calls, tool calls, trace spans or sessions.
    #[command(
        after_help = "Tables (columns: docs/schema/rows-<table>.json):\n  entries   a row per tree entry\n  calls     a row per model call, with tokens and cost\n  tools     a row per tool call (and per result that names no call)\n  spans     a row per trace run and per span of it\n  sessions  a row per session file, with the totals of `stats`\n\nExamples:\n  arcturn-inspect rows --table calls sessions/ > calls.ndjson\n  arcturn-inspect rows --table tools ~/.arcturn/sessions/ | duckdb -c \"select tool, count(*) from read_json('/dev/stdin') group by all\"\n  arcturn-inspect rows --table sessions sessions/ > sessions.ndjson"
    )]
    Rows(RowsArgs),
    /// Find secrets (API keys, tokens, private keys, passwords) in sessions; exit 1 when any is found.
    #[command(after_help = AUDIT_HELP)]
    Audit(AuditArgs),
    /// Write a copy of a session with every secret `audit` finds replaced by [REDACTED:kind].
    #[command(
        after_help = "The copy has the same lines in the same order, byte for byte outside the secrets, and stays\nvalid JSON of the same format. The input is never written: OUT must be another file, and an\nexisting OUT is replaced only with --force (through a temporary file and a rename).\nDamage is reported as by every command (exit 2 after writing when a line before the last is\ncorrupt; that line is redacted in its raw text). --json: a summary on stdout.\n\nExamples:\n  arcturn-inspect redact session.jsonl -o shared/session.jsonl\n  arcturn-inspect redact --force session.jsonl -o /tmp/clean.jsonl"
    )]
    Redact(RedactArgs),
}

const GREP_HELP: &str = "\
Searched: the decoded text of every entry (message text, thinking, each string of a tool
call's arguments, tool results, compaction summaries, labels), never JSON syntax: `\\n` in
the file is a newline, `\\u00e9` is `é`. A match may span lines (write `\\n` in the
pattern). Lines that cannot be decoded (a torn last line, a corrupt line) are searched
leniently: their string values, decoded as far as they go (reported as `damaged`).
Output: FILE:LINE: ENTRY-ID ROLE[/TOOL]: TEXT, LINE being the entry's line in the file;
context lines (-C) use `-` instead of `:`. Lines longer than --max-columns are cut around
the first match. --json: one object per match group (NDJSON), text never cut.

Exit status: 0 a match; 1 no match; 2 an error (bad pattern, unreadable input, a damaged
line before the last), even when something matched (as ripgrep).

Examples:
  arcturn-inspect grep -i 'permission denied' ~/.arcturn/sessions/
  arcturn-inspect grep --tool bash -w rm session.jsonl
  arcturn-inspect grep --role user -F 'fix the' -C 2 session.jsonl
  arcturn-inspect grep -l TODO sessions/
  arcturn-inspect grep --json 'panicked at' s.jsonl | jq -r '.entry_id'";

const DIFF_HELP: &str = "\
A and B are entry ids (or unique prefixes); default: the two most recent leaves (the last
two branch tips in file order, as `leaves` lists them), A the older. Shown: the common
ancestor, then each side's entries after it, root-first, two columns; user prompts with the
same text on both sides (a retried prompt) share a row, marked `=`. Then per-side totals:
tokens, recorded cost, tool calls that ran (tool results) and those that failed.

Exit status: 0 the diff was shown (also when A is B or one is an ancestor of the other);
1 the session has fewer than two branches and no ids were given; 2 an unknown id, an
unreadable input or a damaged line before the last.

Examples:
  arcturn-inspect diff session.jsonl
  arcturn-inspect diff session.jsonl 760dc598 2bcf0b7d
  arcturn-inspect diff --json session.jsonl | jq '.b.usage.output - .a.usage.output'";

/// Roles for `grep --role`: the project's role names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GrepRole {
    User,
    Assistant,
    #[value(name = "tool_result", alias = "tool-result")]
    ToolResult,
    System,
}

impl GrepRole {
    pub fn as_str(self) -> &'static str {
        match self {
            GrepRole::User => "user",
            GrepRole::Assistant => "assistant",
            GrepRole::ToolResult => "tool_result",
            GrepRole::System => "system",
        }
    }
}

#[derive(Debug, Args)]
pub struct GrepArgs {
    /// A regular expression (Rust `regex` syntax), or text with -F.
    pub pattern: String,
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); `-` for stdin; default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
    /// Case-insensitive match.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Only whole words: the match is preceded and followed by a non-word character or an edge.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// The pattern is literal text, not a regex.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Print only the names of files with a match.
    #[arg(short = 'l', long, conflicts_with = "count")]
    pub files_with_matches: bool,
    /// Print only the number of match groups per file with a match.
    #[arg(short = 'c', long)]
    pub count: bool,
    /// Show N lines of the entry's text before and after each match.
    #[arg(short = 'C', long, value_name = "N", default_value_t = 0)]
    pub context: usize,
    /// Only text of this role (a tool result's text has role tool_result).
    #[arg(long, value_enum, value_name = "ROLE")]
    pub role: Option<GrepRole>,
    /// Only the arguments of calls to tool NAME and the results of those calls.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Cut printed lines longer than N characters around the first match (0: never cut).
    #[arg(short = 'M', long, value_name = "N", default_value_t = 240)]
    pub max_columns: usize,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
    /// The first branch: an entry id or unique prefix (default: the older of the two most recent leaves).
    #[arg(requires = "b")]
    pub a: Option<String>,
    /// The second branch (default: the most recent leaf).
    pub b: Option<String>,
}

/// The tables of `rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RowsTable {
    /// A row per tree entry (message, compaction, label, state).
    Entries,
    /// A row per model call, with its tokens and cost.
    Calls,
    /// A row per tool call, paired with its result.
    Tools,
    /// A row per trace run and per span (model call, tool call, event) of it.
    Spans,
    /// A row per session file, with the totals of `stats`.
    Sessions,
}

#[derive(Debug, Args)]
pub struct RowsArgs {
    /// Which table to write.
    #[arg(long, value_enum, value_name = "TABLE")]
    pub table: RowsTable,
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
}

const AUDIT_HELP: &str = "\
Every string of every line is scanned: message text, thinking, tool arguments and results,
offloaded stubs, file names, in every format; a line that is not valid JSON, and a file of
no known format, are scanned as raw text. Secrets are never printed whole: a finding shows
the first characters and the length (`ghp_ab…(40 chars)`).

Each finding has a fingerprint, SHA-256 of its kind and secret: the same secret has the same
fingerprint in every file. --allow FILE takes fingerprints, one per line (`#` comments),
and silences them (a baseline of known, accepted findings).

Exit status: 0 no finding; 1 a finding not allowed; 2 an input could not be read (listed
under not_scanned), a corrupt line before the last (scanned as raw text, its findings
printed first), or a usage error.

Examples:
  arcturn-inspect audit ~/.arcturn/sessions/
  arcturn-inspect audit --json sessions/ | jq -r '.findings[].fingerprint' > allowed.txt
  arcturn-inspect audit --allow allowed.txt sessions/
  arcturn-inspect audit --list-kinds";

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
    /// Fingerprints of accepted findings, one per line (`#` starts a comment).
    #[arg(long, value_name = "FILE", value_parser = clap::value_parser!(PathBuf))]
    pub allow: Option<PathBuf>,
    /// List the kinds of secret found, with a description, and exit.
    #[arg(long)]
    pub list_kinds: bool,
}

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Session file (`-` for stdin).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: PathBuf,
    /// Where to write the redacted copy (never the input).
    #[arg(short = 'o', long, value_name = "OUT", value_parser = clap::value_parser!(PathBuf))]
    pub output: PathBuf,
    /// Replace OUT when it exists.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
    /// Only the run with this id (crab run_id, or an arcturn user message id or unique prefix).
    #[arg(long, value_name = "ID")]
    pub run: Option<String>,
    /// Only runs that have a failing span.
    #[arg(long)]
    pub errors: bool,
    /// arcturn: trace the branch to this entry instead of the latest one.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
}

/// How `stats` groups its main table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsBy {
    /// A row per day of the model calls (in --timezone).
    Day,
    /// A row per ISO week of the model calls (`2026-W48`, in --timezone).
    Week,
    /// A row per month of the model calls (in --timezone).
    Month,
    /// A row per session file, plus totals.
    Session,
    /// A row per model (provider/model), summed over every input.
    Model,
    /// A row per project: the session's working directory, else its agent folder's project.
    Project,
    /// A row per agent (session format: claude, codex, pi, arcturn, crab).
    Agent,
    /// A row per tool: calls, errors, and the usage of the model calls that issued it.
    Tool,
}

impl StatsBy {
    pub fn name(self) -> &'static str {
        match self {
            StatsBy::Day => "day",
            StatsBy::Week => "week",
            StatsBy::Month => "month",
            StatsBy::Session => "session",
            StatsBy::Model => "model",
            StatsBy::Project => "project",
            StatsBy::Agent => "agent",
            StatsBy::Tool => "tool",
        }
    }
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
    /// Group the summary table (default: the full report for one session, a row per session
    /// for several). With --json: {"by", "rows": [{"key", "usage"}], "total": {"usage"}}.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<StatsBy>,
    /// Count only model calls at or after WHEN: a date (2026-11-30, from its start), a
    /// date-time (2026-11-30T14:00, or with Z / +01:00), or relative (7d, 12h, 30m, 2w ago).
    /// Calls without a timestamp are left out (and counted) when a window is set.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Count only model calls before WHEN (exclusive); a bare date includes that whole day.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Time zone of dates, --since/--until and day/week/month rows: an IANA name
    /// (Europe/Berlin) or UTC. Default: the local zone.
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,
    /// Price calls that recorded no cost with this table instead of the bundled one (same
    /// JSON shape as data/prices.json: {"models": {"NAME": {"input", "output", "cache_read",
    /// "cache_write", "above"}}}, dollars per million tokens).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// CI gate: exit 1 when a session used more tokens than this (file scope: input, output,
    /// cache read and cache write).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// CI gate: exit 1 when a session's cost (recorded or estimated from the price table) is
    /// above this many dollars.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
}

/// Orders for `sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsSort {
    /// Creation time, newest first.
    Created,
    /// Last activity, most recent first.
    Activity,
    /// File size, largest first.
    Size,
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Directory to list (walked for *.jsonl and *.jsonl.zst); default: every agent's session
    /// folder that exists (.crab/sessions here, ~/.arcturn/sessions, ~/.pi/agent/sessions,
    /// ~/.claude/projects, ~/.codex/sessions and their environment overrides).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub dir: Option<PathBuf>,
    /// Only sessions of this agent.
    #[arg(long, value_enum, value_name = "NAME")]
    pub agent: Option<crate::agents::Agent>,
    /// Order of the list.
    #[arg(long, value_enum, default_value_t = SessionsSort::Created, value_name = "ORDER")]
    pub sort: SessionsSort,
    /// Show at most N sessions.
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
}

#[derive(Debug, Args)]
pub struct FileArg {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
    /// Fold linear runs longer than N entries into `... N entries ...`.
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "6")]
    pub collapse: Option<usize>,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
    /// Entry id or unique prefix (default: the latest entry).
    pub id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Session file (`-` for stdin).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: PathBuf,
    /// Entry id or unique prefix.
    pub id: String,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); default: the newest session.
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
}

const QUERY_HELP: &str = "\
Inputs: every line of the file except the session header (entries, and crab `obs` records),
in file order; --path, --leaves and --kind narrow them. Each input also binds $__file and
$__line (its file and 1-based line; null with -s and -n); `input_filename` and
`input_line_number` give the same for the record read last (after `input`/`inputs`).
$ENV and $ARGS work as in jq.
Output is indented JSON, coloured on a terminal only; --json means compact and never coloured.

Exit status: 0 ok; 1 with -e when the last output was false or null; 2 usage error or a
damaged/unreadable input (after printing what it could); 3 the filter does not compile (the
error shows line and column); 4 with -e when there was no output; 5 a runtime error
(reported with the input's FILE:LINE; the other inputs still run).

Examples:
  arcturn-inspect query '.message.usage.output // empty' s.jsonl | paste -sd+ | bc
  arcturn-inspect query -s 'map(.message.usage.cost.total // 0) | add' s.jsonl
  arcturn-inspect query -r 'select(.message.role == \"user\") | .message.content' s.jsonl
  arcturn-inspect query --kind obs -c 'select(.obs == \"tool_call\") | {tool, duration_ms}' crab.jsonl
  arcturn-inspect query --path -r '\"\\($__line) \\(.kind)\"' s.jsonl
  arcturn-inspect query --arg tool read '.. | objects | select(.name? == $tool)' s.jsonl
  arcturn-inspect query -n '[inputs | .message.role // empty] | group_by(.) | map([.[0], length])' s.jsonl";

/// `query FILTER FILE...`: jq's flags keep jq's meanings.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The jq filter, e.g. `.message.role` (with -f, this is the first FILE instead).
    #[arg(value_name = "FILTER", required_unless_present = "from_file", value_parser = clap::value_parser!(OsString))]
    pub filter: Option<OsString>,
    /// Session files or directories (walked for *.jsonl and *.jsonl.zst); `-` for stdin; default: the newest session.
    #[arg(value_name = "FILE", value_parser = clap::value_parser!(PathBuf))]
    pub files: Vec<PathBuf>,
    /// Write strings without quotes or escapes (raw text).
    #[arg(short = 'r', long)]
    pub raw_output: bool,
    /// Like -r, and no newline after each output.
    #[arg(short = 'j', long)]
    pub join_output: bool,
    /// One line per output instead of indented JSON.
    #[arg(short = 'c', long)]
    pub compact_output: bool,
    /// Run the filter once, on an array of all inputs of all files.
    #[arg(short = 's', long)]
    pub slurp: bool,
    /// Run the filter once with `null` as input; read records with `input`/`inputs`.
    #[arg(short = 'n', long)]
    pub null_input: bool,
    /// Bind $NAME to the string VALUE (repeatable).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], action = clap::ArgAction::Append)]
    pub arg: Vec<String>,
    /// Bind $NAME to the JSON value TEXT (repeatable).
    #[arg(long, num_args = 2, value_names = ["NAME", "TEXT"], action = clap::ArgAction::Append)]
    pub argjson: Vec<String>,
    /// Exit 1 if the last output was false or null, 4 if there was no output.
    #[arg(short = 'e', long)]
    pub exit_status: bool,
    /// Indent with a tab.
    #[arg(long, conflicts_with = "indent")]
    pub tab: bool,
    /// Indent with N spaces (0-7; 0 is compact). Default 2.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=7))]
    pub indent: Option<u8>,
    /// Sort object keys in the output.
    #[arg(short = 'S', long)]
    pub sort_keys: bool,
    /// Read the filter from FILE; every positional argument is then an input file.
    #[arg(short = 'f', long = "from-file", value_name = "FILE", value_parser = clap::value_parser!(PathBuf))]
    pub from_file: Option<PathBuf>,
    /// Only the root-first path to ID (default: the latest entry). Write `--path=ID`.
    #[arg(long, value_name = "ID", num_args = 0..=1, require_equals = true, conflicts_with = "leaves")]
    pub path: Option<Option<String>>,
    /// Only the branch tips (entries without children), in file order.
    #[arg(long)]
    pub leaves: bool,
    /// Only records of this kind: message, compaction, state, label, obs; `session`/`meta` for the header.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
    /// Entry id or unique prefix to materialize at (default: the latest entry).
    pub id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    #[arg(value_parser = clap::value_parser!(PathBuf))]
    pub file: Option<PathBuf>,
    /// Entry id or unique prefix the transcript ends at (default: the latest entry).
    pub id: Option<String>,
    /// Write one self-contained HTML file instead of Markdown.
    #[arg(long)]
    pub html: bool,
    /// Write to PATH instead of stdout (never to the session file or its directory).
    #[arg(short = 'o', long, value_name = "PATH", conflicts_with = "auto_name", value_parser = clap::value_parser!(PathBuf))]
    pub output: Option<PathBuf>,
    /// Write arcturn-session-<yyyy-MM-dd-HHmm>.md (or .html) in the current directory,
    /// named from the session's creation time (UTC).
    #[arg(short = 'O', long)]
    pub auto_name: bool,
    /// Overwrite the file -O names when it already exists.
    #[arg(long)]
    pub force: bool,
    /// Include thinking blocks.
    #[arg(long)]
    pub thinking: bool,
    /// Export what the model is sent at the entry (the `context` view) instead of the full path.
    #[arg(long)]
    pub as_sent: bool,
    /// Replace every secret `audit` finds with [REDACTED:kind] in the transcript.
    #[arg(long)]
    pub redact: bool,
}

/// The clap command, for help, man page and completion generation.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        super::command().debug_assert();
    }
}
