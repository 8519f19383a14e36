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
use crate::render::json;
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
    let read: Vec<(String, std::result::Result<SessionInfo, String>)> = files
        .par_iter()
        .map(|(ag, p)| {
            let shown = p.to_string_lossy().into_owned();
            let mut r = read_info(p, &shown);
            if let (Ok(i), Some(ag)) = (&mut r, ag) {
                i.agent = *ag;
            }
            (shown, r)
        })
        .collect();
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
        writeln!(out, "no sessions in {names}")?;
        return Ok(());
    }
    // One DIR: paths relative to it; the agents' folders: paths as found.
    let base = match dirs {
        [(None, d)] => Some(d.as_path()),
        _ => None,
    };
    // With a DIR, a session's agent is the one its format names: the column would repeat
    // `format`. It tells the agents' folders apart.
    let agent_w = if base.is_some() { 0 } else { 7 + 2 };
    let agent_col = |a: &str| if agent_w == 0 { String::new() } else { format!("{a:<7}  ") };
    let when = |ms: Option<i64>| ms.map(format_minutes).unwrap_or_else(|| "?".repeat(16));
    writeln!(
        out,
        "{}",
        p.dim(format!(
            "{:<16}  {:<16}  {:>7}  {:>9}  {}{:<7}  title",
            "created",
            "last activity",
            "entries",
            "size",
            agent_col("agent"),
            "format"
        ))
    )?;
    for s in sessions {
        let entries = if s.entries_exact { s.entries.to_string() } else { format!("~{}", tokens(s.entries)) };
        let rel = base.and_then(|b| Path::new(&s.file).strip_prefix(b).ok()).map(|r| r.to_string_lossy().into_owned());
        let file = rel.unwrap_or_else(|| s.file.clone());
        let fixed = 16 + 2 + 16 + 2 + 7 + 2 + 9 + 2 + agent_w + 7 + 2;
        let room = ctx.width.saturating_sub(fixed);
        let file_part = sanitize::inline(&file).into_owned();
        let title_room = room.saturating_sub(file_part.chars().count().min(room / 2) + 2).max(12);
        let title = sanitize::truncate(&sanitize::inline(&s.title), title_room).into_owned();
        let title = match s.title_source {
            crate::sessions::TitleSource::Title => p.bold(&title),
            _ => title,
        };
        let file_part = sanitize::truncate(&file_part, room.saturating_sub(title_room + 2).max(12)).into_owned();
        writeln!(
            out,
            "{}  {}  {:>7}  {:>9}  {}{:<7}  {}  {}",
            when(s.created_ms),
            when(s.last_activity_ms),
            entries,
            size(s.size),
            agent_col(s.agent.as_str()),
            s.format.as_str(),
            title,
            p.dim(file_part)
        )?;
    }
    let mut tail = format!("{} session{}", sessions.len(), if sessions.len() == 1 { "" } else { "s" });
    if skipped > 0 {
        tail.push_str(&format!(", {skipped} skipped"));
    }
    writeln!(out, "{}", p.dim(tail))
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
