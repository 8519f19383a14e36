//! Command-line definitions (clap) and nothing else: no logic lives here.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::Format;
use crate::render::palette::ColorChoice;

const EXAMPLES: &str = "\
Examples:
  arcturn-inspect tree session.jsonl             the branches, the latest path highlighted
  arcturn-inspect check --json sessions/         integrity report for CI (exit 1 on errors)
  arcturn-inspect path session.jsonl b27e9a10    how one entry was reached
  arcturn-inspect show session.jsonl b27e       one entry as stored (unique id prefixes work)";

/// An offline, read-only inspector for arcturn and crab coding-agent session files.
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
    /// Read files instead of memory-mapping them.
    #[arg(long, global = true)]
    pub no_mmap: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    Arcturn,
    Crab,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Format {
        match f {
            InputFormat::Arcturn => Format::Arcturn,
            InputFormat::Crab => Format::Crab,
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
    /// Show the span tree of each run: model calls, tool calls, events, and where the time went.
    #[command(
        after_help = "Examples:\n  arcturn-inspect trace .crab/sessions/session-1792661000878.jsonl\n  arcturn-inspect trace --errors session.jsonl          (only runs with a failing span)\n  arcturn-inspect trace --run r2 session.jsonl\n  arcturn-inspect trace --leaf b27e9a10 session.jsonl   (arcturn: trace another branch)\n  arcturn-inspect trace --json session.jsonl | jq '.runs[] | select(.status != \"complete\")'"
    )]
    Trace(TraceArgs),
    /// Token and activity statistics for sessions, files and directories.
    #[command(
        after_help = "Examples:\n  arcturn-inspect stats session.jsonl\n  arcturn-inspect stats --by model ~/.arcturn/sessions/\n  arcturn-inspect stats --by day .crab/sessions/\n  arcturn-inspect stats --max-tokens 2000000 --max-cost 5 sessions/   (CI gate: exit 1 when exceeded)\n  arcturn-inspect stats --json sessions/ | jq '.total.usage'"
    )]
    Stats(StatsArgs),
    /// List the sessions in a directory, newest first, reading only each file's head and tail.
    #[command(
        after_help = "Examples:\n  arcturn-inspect sessions                      (.crab/sessions, else ~/.arcturn/sessions)\n  arcturn-inspect sessions ~/.arcturn/sessions/ -n 20\n  arcturn-inspect sessions --sort activity\n  arcturn-inspect sessions --json | jq -r '.sessions[0].file'"
    )]
    Sessions(SessionsArgs),
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Session files or directories (walked for *.jsonl); default: the newest session.
    pub files: Vec<String>,
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
    /// A row per model (provider/model), summed over every input.
    Model,
    /// A row per UTC day of the model calls.
    Day,
    /// A row per session file, plus totals.
    Session,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Session files or directories (walked for *.jsonl); default: the newest session.
    pub files: Vec<String>,
    /// Group the summary table by model, day or session (default: the full report for one
    /// session, a row per session for several).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<StatsBy>,
    /// CI gate: exit 1 when a session used more tokens than this (file scope: input, output,
    /// cache read and cache write).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// CI gate: exit 1 when a session's recorded cost is above this many dollars.
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
    /// Directory to list (walked for *.jsonl); default: .crab/sessions when it exists here,
    /// else ~/.arcturn/sessions.
    pub dir: Option<String>,
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
    pub file: Option<String>,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    pub file: Option<String>,
    /// Fold linear runs longer than N entries into `... N entries ...`.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "6")]
    pub collapse: Option<usize>,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Session file (`-` for stdin; default: the newest session of this project).
    pub file: Option<String>,
    /// Entry id or unique prefix (default: the latest entry).
    pub id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Session file (`-` for stdin).
    pub file: String,
    /// Entry id or unique prefix.
    pub id: String,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Session files or directories (walked for *.jsonl); default: the newest session.
    pub files: Vec<String>,
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
