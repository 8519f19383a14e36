//! `sessions [DIR]`: the sessions in a directory, newest first, from each file's head and
//! tail only. Unreadable or partially written files are skipped with a warning.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::{io_err, Ctx, Outcome};
use crate::cli::{SessionsArgs, SessionsSort};
use crate::error::{Error, Result};
use crate::preview::tokens;
use crate::render::json;
use crate::sanitize;
use crate::sessions::{read_info, SessionInfo, Skipped};
use crate::time::format_minutes;

pub fn run(ctx: &Ctx, a: &SessionsArgs, out: &mut dyn Write) -> Result<Outcome> {
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => default_dir()?,
    };
    if !dir.is_dir() {
        return Err(Error::Usage(format!("{}: not a directory", sanitize::inline(&dir.to_string_lossy()))));
    }
    let (files, walk_errors) = crate::discover::walk_jsonl(&dir);
    for (d, e) in &walk_errors {
        ctx.note(&format!("{}: {e}", sanitize::inline(&d.to_string_lossy())));
    }
    let read: Vec<(String, std::result::Result<SessionInfo, String>)> = files
        .par_iter()
        .map(|p| {
            let shown = p.to_string_lossy().into_owned();
            let r = read_info(p, &shown);
            (shown, r)
        })
        .collect();
    let mut sessions = Vec::new();
    let mut skipped = Vec::new();
    for (file, r) in read {
        match r {
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
    let shown_dir = dir.to_string_lossy().into_owned();
    if ctx.global.json {
        let doc = SessionsDoc { schema_version: 1, dir: &shown_dir, sessions: &sessions, skipped: &skipped };
        json::write(out, &doc, false).map_err(io_err)?;
    } else {
        human(ctx, &dir, &sessions, skipped.len(), out).map_err(io_err)?;
    }
    Ok(Outcome::Success)
}

/// `.crab/sessions` when it exists here, else `~/.arcturn/sessions`.
fn default_dir() -> Result<PathBuf> {
    let crab = Path::new(".crab").join("sessions");
    if crab.is_dir() {
        return Ok(crab);
    }
    match std::env::var_os("HOME") {
        Some(h) => Ok(Path::new(&h).join(".arcturn").join("sessions")),
        None => Err(Error::Usage("no directory given, no .crab/sessions here, and HOME is not set".into())),
    }
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
    dir: &'a str,
    sessions: &'a [SessionInfo],
    skipped: &'a [Skipped],
}

fn human(ctx: &Ctx, dir: &Path, sessions: &[SessionInfo], skipped: usize, out: &mut dyn Write) -> io::Result<()> {
    let p = &ctx.palette;
    if sessions.is_empty() {
        writeln!(out, "no sessions in {}", sanitize::inline(&dir.to_string_lossy()))?;
        return Ok(());
    }
    let when = |ms: Option<i64>| ms.map(format_minutes).unwrap_or_else(|| "?".repeat(16));
    writeln!(
        out,
        "{}",
        p.dim(format!(
            "{:<16}  {:<16}  {:>7}  {:>9}  {:<7}  title",
            "created", "last activity", "entries", "size", "format"
        ))
    )?;
    for s in sessions {
        let entries = if s.entries_exact { s.entries.to_string() } else { format!("~{}", tokens(s.entries)) };
        let rel = Path::new(&s.file).strip_prefix(dir).map(|r| r.to_string_lossy().into_owned());
        let file = rel.unwrap_or_else(|_| s.file.clone());
        let fixed = 16 + 2 + 16 + 2 + 7 + 2 + 9 + 2 + 7 + 2;
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
            "{}  {}  {:>7}  {:>9}  {:<7}  {}  {}",
            when(s.created_ms),
            when(s.last_activity_ms),
            entries,
            size(s.size),
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
