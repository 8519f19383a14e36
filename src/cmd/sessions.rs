//! `sessions [DIR]`: the sessions in a directory (default: every agent's folder), newest first, from each file's head and
//! tail only. Unreadable or partially written files are skipped with a warning.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::{io_err, Ctx, Outcome};
use crate::agents::{self, Agent};
use crate::cli::{SessionsArgs, SessionsSort};
use crate::error::{Error, Result};
use crate::preview::tokens;
use crate::render::fit;
use crate::render::json;
use crate::render::progress::Progress;
use crate::sanitize;
use crate::sessions::{read_info, SessionInfo, Skipped};
use crate::time::format_minutes;

pub fn run(ctx: &Ctx, a: &SessionsArgs, out: &mut dyn Write) -> Result<Outcome> {
    // (agent of the folder, folder): the agent is known when the folder is an agent's own.
    let dirs: Vec<(Option<Agent>, PathBuf)> = match &a.dir {
        Some(d) => {
            if !d.is_dir() {
                return Err(Error::Usage(format!("{}: not a directory", sanitize::inline(&d.to_string_lossy()))));
            }
            vec![(None, d.clone())]
        }
        None => {
            let cwd = std::env::current_dir().map_err(|e| Error::Io { path: ".".into(), source: e })?;
            let found = agents::existing_folders(&cwd);
            let found: Vec<_> = found.into_iter().filter(|(ag, _)| a.agent.is_none_or(|w| w == *ag)).collect();
            if found.is_empty() {
                let which = a.agent.map(|w| format!("{} ", w.as_str())).unwrap_or_default();
                ctx.note(&format!("no {which}session folder exists here or under HOME"));
            }
            found.into_iter().map(|(ag, d)| (Some(ag), relative(&cwd, d))).collect()
        }
    };
    let mut files: Vec<(Option<Agent>, PathBuf)> = Vec::new();
    for (ag, dir) in &dirs {
        let (found, walk_errors) = crate::discover::walk_jsonl(dir);
        for (d, e) in &walk_errors {
            ctx.note(&format!("{}: {e}", sanitize::inline(&d.to_string_lossy())));
        }
        files.extend(found.into_iter().map(|p| (*ag, p)));
    }
    if files.len() > 1 {
        crate::allocator::keep_freed_memory_for_reuse();
    }
    let progress = Progress::new(ctx, files.len(), "sessions");
    let read: Vec<(String, std::result::Result<SessionInfo, String>)> = files
        .par_iter()
        .map(|(ag, p)| {
            let _tick = Tick(&progress);
            let shown = p.to_string_lossy().into_owned();
            let mut r = read_info(p, &shown);
            if let (Ok(i), Some(ag)) = (&mut r, ag) {
                i.agent = *ag;
            }
            (shown, r)
        })
        .collect();
    progress.finish();
    let mut sessions = Vec::new();
    let mut skipped = Vec::new();
    for (file, r) in read {
        match r {
            Ok(i) if a.agent.is_some_and(|w| w != i.agent) => {}
            Ok(i) => sessions.push(i),
            Err(reason) => {
                ctx.note(&format!("{}: skipped: {}", sanitize::inline(&file), sanitize::inline(&reason)));
                skipped.push(Skipped { file, reason });
            }
        }
    }
    sort(&mut sessions, a.sort);
    if let Some(n) = a.limit {
        sessions.truncate(n);
    }
    let shown: Vec<Folder> =
        dirs.iter().map(|(ag, d)| Folder { agent: *ag, dir: d.to_string_lossy().into_owned() }).collect();
    if ctx.global.json {
        let dir = match shown.as_slice() {
            [one] if a.dir.is_some() => Some(one.dir.as_str()),
            _ => None,
        };
        let doc = SessionsDoc { schema_version: 1, dir, dirs: &shown, sessions: &sessions, skipped: &skipped };
        json::write(out, &doc, false).map_err(io_err)?;
    } else {
        human(ctx, &dirs, &sessions, skipped.len(), out).map_err(io_err)?;
    }
    Ok(Outcome::Success)
}

/// Ticks the bar when a file is done, whichever way its closure returns.
struct Tick<'a>(&'a Progress);

impl Drop for Tick<'_> {
    fn drop(&mut self) {
        self.0.tick();
    }
}

/// `.crab/sessions` rather than the absolute path when the folder is under the working
/// directory (it is shown in every row).
fn relative(cwd: &Path, d: PathBuf) -> PathBuf {
    d.strip_prefix(cwd).map(Path::to_path_buf).unwrap_or(d)
}

#[derive(Serialize)]
struct Folder {
    agent: Option<Agent>,
    dir: String,
}

fn sort(s: &mut [SessionInfo], by: SessionsSort) {
    // Newest (or largest) first; unknown times last; the path breaks ties.
    match by {
        SessionsSort::Created => s.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then_with(|| a.file.cmp(&b.file))),
        SessionsSort::Activity => {
            s.sort_by(|a, b| b.last_activity_ms.cmp(&a.last_activity_ms).then_with(|| a.file.cmp(&b.file)))
        }
        SessionsSort::Size => s.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.file.cmp(&b.file))),
    }
}

#[derive(Serialize)]
struct SessionsDoc<'a> {
    schema_version: u32,
    /// The DIR given; null when the agents' folders were listed (see `dirs`).
    dir: Option<&'a str>,
    /// Every folder listed, with its agent (null for a DIR given).
    dirs: &'a [Folder],
    sessions: &'a [SessionInfo],
    skipped: &'a [Skipped],
}

fn human(
    ctx: &Ctx,
    dirs: &[(Option<Agent>, PathBuf)],
    sessions: &[SessionInfo],
    skipped: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let p = &ctx.palette;
    if sessions.is_empty() {
        let names: Vec<String> =
            dirs.iter().map(|(_, d)| sanitize::inline(&d.to_string_lossy()).into_owned()).collect();
        let names = if names.is_empty() { "any agent's folder".to_string() } else { names.join(", ") };
        writeln!(out, "no sessions in {}", fit::truncate_start(&names, ctx.width.saturating_sub(15)))?;
        return Ok(());
    }
    // One DIR: paths relative to it; the agents' folders: paths as found.
    let base = match dirs {
        [(None, d)] => Some(d.as_path()),
        _ => None,
    };
    // With a DIR, a session's agent is the one its format names: the column would repeat
    // `format`. It tells the agents' folders apart.
    let show_agent = base.is_none();
    let when = |ms: Option<i64>| ms.map(format_minutes).unwrap_or_else(|| "?".repeat(16));
    let rows: Vec<Row> = sessions
        .iter()
        .map(|s| {
            let rel =
                base.and_then(|b| Path::new(&s.file).strip_prefix(b).ok()).map(|r| r.to_string_lossy().into_owned());
            Row {
                created: when(s.created_ms),
                activity: when(s.last_activity_ms),
                entries: if s.entries_exact { s.entries.to_string() } else { format!("~{}", tokens(s.entries)) },
                tokens: s.usage.as_ref().map_or_else(|| "?".into(), |u| tokens(u.total)),
                cost: s.usage.as_ref().map_or_else(|| "-".into(), cost),
                size: size(s.size),
                agent: s.agent.as_str(),
                format: s.format.as_str(),
                title: sanitize::inline(&s.title).into_owned(),
                bold_title: s.title_source == crate::sessions::TitleSource::Title,
                file: sanitize::inline(&rel.unwrap_or_else(|| s.file.clone())).into_owned(),
            }
        })
        .collect();
    let cols = columns(&rows, show_agent, ctx.width);
    let head: Vec<String> = cols.iter().map(|c| c.pad(c.name(), &Row::default())).collect();
    let mut head = head.join("  ");
    head.push_str("  title");
    writeln!(out, "{}", p.dim(head.trim_end()))?;
    let fixed: usize = cols.iter().map(|c| c.width + 2).sum();
    let room = ctx.width.saturating_sub(fixed);
    for r in &rows {
        let cells: Vec<String> = cols.iter().map(|c| c.pad(&c.text(r), r)).collect();
        // The title gets the room first; the file takes what the title leaves, and at least
        // a third of it so that rows stay tellable apart.
        let file_w = fit::width(&r.file);
        let title_w = fit::width(&r.title).min(room.saturating_sub(2 + file_w.min(room / 3)));
        let title = fit::truncate(&r.title, title_w).into_owned();
        let file_room = room.saturating_sub(fit::width(&title) + 2);
        let file = fit::truncate_start(&r.file, file_room).into_owned();
        let title = if r.bold_title { p.bold(&title) } else { title };
        let mut line = format!("{}  {title}", cells.join("  "));
        if !file.is_empty() {
            line.push_str("  ");
            line.push_str(&p.dim(file));
        }
        writeln!(out, "{line}")?;
    }
    if rows.iter().any(|r| r.entries.starts_with('~')) {
        let note = format!(
            "~ estimated from the first lines: files over {} MiB are listed without reading them whole (tokens ?: see `stats`)",
            crate::sessions::WHOLE_MAX >> 20
        );
        for l in fit::wrap(&note, ctx.width, 2) {
            writeln!(out, "{}", p.dim(l))?;
        }
    }
    let mut tail = format!("{} session{}", sessions.len(), if sessions.len() == 1 { "" } else { "s" });
    if skipped > 0 {
        tail.push_str(&format!(", {skipped} skipped"));
    }
    writeln!(out, "{}", p.dim(tail))
}

/// One session as the table shows it, before fitting.
#[derive(Default)]
struct Row {
    created: String,
    activity: String,
    entries: String,
    tokens: String,
    cost: String,
    size: String,
    agent: &'static str,
    format: &'static str,
    title: String,
    bold_title: bool,
    file: String,
}

/// The fixed columns before the title, in order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Created,
    Activity,
    Entries,
    Tokens,
    Cost,
    Size,
    Agent,
    Format,
}

struct Column {
    col: Col,
    width: usize,
}

impl Column {
    fn name(&self) -> &'static str {
        match self.col {
            Col::Created => "created",
            Col::Activity => "last activity",
            Col::Entries => "entries",
            Col::Tokens => "tokens",
            Col::Cost => "cost",
            Col::Size => "size",
            Col::Agent => "agent",
            Col::Format => "format",
        }
    }

    fn text(&self, r: &Row) -> String {
        match self.col {
            Col::Created => r.created.clone(),
            Col::Activity => r.activity.clone(),
            Col::Entries => r.entries.clone(),
            Col::Tokens => r.tokens.clone(),
            Col::Cost => r.cost.clone(),
            Col::Size => r.size.clone(),
            Col::Agent => r.agent.to_string(),
            Col::Format => r.format.to_string(),
        }
    }

    fn numeric(&self) -> bool {
        matches!(self.col, Col::Entries | Col::Tokens | Col::Cost | Col::Size)
    }

    fn pad(&self, text: &str, _: &Row) -> String {
        let gap = " ".repeat(self.width.saturating_sub(fit::width(text)));
        if self.numeric() {
            format!("{gap}{text}")
        } else {
            format!("{text}{gap}")
        }
    }
}

/// Columns the title and file need at least; below that, columns are dropped.
const TITLE_ROOM: usize = 30;

/// The fixed columns that fit `width` with room for the title: size, then last activity,
/// are dropped when they do not (`--wide` and `--json` keep everything).
fn columns(rows: &[Row], show_agent: bool, width: usize) -> Vec<Column> {
    let mut cols: Vec<Col> = vec![Col::Created, Col::Activity, Col::Entries, Col::Tokens, Col::Cost, Col::Size];
    if show_agent {
        cols.push(Col::Agent);
    }
    cols.push(Col::Format);
    let measure = |cols: &[Col]| -> Vec<Column> {
        cols.iter()
            .map(|&col| {
                let c = Column { col, width: 0 };
                let w = rows.iter().map(|r| fit::width(&c.text(r))).max().unwrap_or(0).max(fit::width(c.name()));
                Column { col, width: w }
            })
            .collect()
    };
    for drop in [None, Some(Col::Size), Some(Col::Activity)] {
        if let Some(d) = drop {
            cols.retain(|&c| c != d);
        }
        let m = measure(&cols);
        if m.iter().map(|c| c.width + 2).sum::<usize>() + TITLE_ROOM <= width {
            return m;
        }
    }
    measure(&cols)
}

/// Dollars, to the cent from a dollar up and to a hundredth of a cent below; `~` marks a
/// cost estimated from the price table (in part, for a mix), `≥` a lower bound (some calls
/// unpriced), `-` none known.
fn cost(u: &crate::stats::Tokens) -> String {
    use crate::price::CostSource;
    let dollars = |c: f64| match c {
        c if c >= 100.0 => format!("${c:.0}"),
        c if c >= 1.0 => format!("${c:.2}"),
        c => format!("${c:.4}"),
    };
    match (u.cost_source, u.cost, u.cost_lower_bound) {
        (Some(CostSource::Recorded), Some(c), _) => dollars(c),
        (Some(CostSource::Estimated | CostSource::Mixed), Some(c), _) => format!("~{}", dollars(c)),
        (Some(CostSource::Unknown), _, Some(l)) if l > 0.0 => format!("≥{}", dollars(l)),
        _ => "-".into(),
    }
}

fn size(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}
