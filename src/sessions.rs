//! The `sessions` view: what each session file in a directory is. Title, creation time and
//! latest activity come from the file's first lines (header or meta, first prompt) and last
//! lines only. The entry count, tokens and cost come from one pass of the skimming
//! decoder over every line (the decode `stats` runs, without the tree or the views) for
//! files up to [`WHOLE_MAX`]; a bigger file is never read whole: its entries are estimated
//! from the head and its usage is unknown.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Serialize;

use crate::agents::Agent;
use crate::format::{self, Decoded};
use crate::model::{Format, Role};
use crate::source::Source;
use crate::stats::{self, Tokens};

/// Bytes read from the start of a file; enough for the header and the first prompt.
const HEAD: u64 = 64 << 10;
/// When the first line is longer than [`HEAD`], read up to this much to finish it.
const HEAD_MAX: u64 = 1 << 20;
/// Bytes read from the end of a file for the last activity.
const TAIL: u64 = 64 << 10;
/// Files up to this size are read whole for exact entries, tokens and cost (the skimming
/// decoder reads a few hundred MB/s a core: about 50 ms each); bigger ones are listed from
/// their head and tail only, entries estimated and usage unknown.
pub const WHOLE_MAX: u64 = 16 << 20;
/// Characters of a first prompt kept as a title.
const TITLE_CHARS: usize = 160;

/// Where a session's title comes from.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TitleSource {
    /// The header's generated title (arcturn).
    Title,
    /// The first user message.
    Prompt,
    /// The session id (arcturn header).
    Id,
    /// Nothing better: the file name.
    File,
}

#[derive(Serialize, Clone, Debug)]
pub struct SessionInfo {
    pub file: String,
    /// The agent that wrote it: the folder's agent, or (a DIR given) the one its format names.
    pub agent: Agent,
    pub format: Format,
    pub id: Option<String>,
    pub title: String,
    pub title_source: TitleSource,
    pub cwd: Option<String>,
    /// The session this one was forked from (Codex `forked_from_id` / `parent_thread_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// Creation time: header/meta, else crab's file name, else the first record's time.
    pub created: Option<String>,
    pub created_ms: Option<i64>,
    /// The latest timestamp in the file's last lines (file modification time when the file
    /// records none).
    pub last_activity: Option<String>,
    pub last_activity_ms: Option<i64>,
    pub last_activity_from: &'static str,
    pub size: u64,
    /// Tree entries (arcturn entries, crab messages), counted over the whole file; estimated
    /// from the head's line lengths for a file over [`WHOLE_MAX`] or one that could not be
    /// read whole.
    pub entries: u64,
    pub entries_exact: bool,
    /// File-scope usage (every model call once) and cost, as `stats` counts and prices them;
    /// null when the file was not read whole.
    pub usage: Option<Tokens>,
}

#[derive(Serialize, Clone, Debug)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// Read what `sessions` shows about one file. `Err` says why the file is skipped.
pub fn read_info(path: &Path, display: &str) -> Result<SessionInfo, String> {
    let mut f = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let meta = f.metadata().map_err(|e| format!("cannot stat: {e}"))?;
    let size = meta.len();
    if size == 0 {
        return Err("empty file".into());
    }
    let mut head = read_at(&mut f, 0, size.min(HEAD))?;
    let compressed = crate::decompress::is_zstd(&head);
    if compressed {
        // A compressed rollout has no readable head: it is decompressed whole (bounded).
        f.seek(SeekFrom::Start(0)).map_err(|e| format!("cannot read: {e}"))?;
        head = crate::decompress::zstd(display, std::io::BufReader::new(&f), crate::source::DEFAULT_MAX_BYTES)
            .map_err(|e| e.to_string())?;
    } else if !head.contains(&b'\n') && size > head.len() as u64 {
        head = read_at(&mut f, 0, size.min(HEAD_MAX))?;
    }
    let whole = compressed || head.len() as u64 >= size;
    if !whole {
        match memchr::memrchr(b'\n', &head) {
            Some(i) => head.truncate(i + 1),
            None => return Err(format!("no complete first line in the first {} KiB", HEAD_MAX >> 10)),
        }
    }
    let head_len = head.len() as u64;
    let src = Source::from_bytes(display, head).map_err(|e| e.to_string())?;
    let fmt = format::detect(&src).map_err(|e| e.to_string())?;
    let d = format::decode(&src, Some(fmt), format::Detail::Full, format::Uses::Unlisted).map_err(|e| e.to_string())?;
    if let Some(f) = d.findings.iter().find(|f| f.line == Some(1) && f.code.is_line_damage()) {
        return Err(format!("partially written: line 1: {}", f.message));
    }
    if d.header.is_none() && d.entries.is_empty() && d.observations.is_empty() {
        return Err("no session records in the first lines".into());
    }

    let header = d.header.as_ref();
    let id = header.and_then(|h| h.id.as_deref()).map(str::to_string);
    let created = header.and_then(|h| h.created).or_else(|| crate::discover::crab_stamp(path)).or_else(|| first_ts(&d));

    // Last activity: the newest time among the last lines.
    let mut last = None;
    if !whole {
        let start = head_len.max(size.saturating_sub(TAIL));
        let mut tail = read_at(&mut f, start, size - start)?;
        if start > head_len {
            // Drop the partial line the window starts in.
            match memchr::memchr(b'\n', &tail) {
                Some(i) => drop(tail.drain(..=i)),
                None => tail.clear(),
            }
        }
        if let Ok(tsrc) = Source::from_bytes(display, tail) {
            if let Ok(td) = format::decode(&tsrc, Some(fmt), format::Detail::Full, format::Uses::Unlisted) {
                last = max_ts(&td);
            }
        }
    }
    let mut from = "record";
    let last = last.or_else(|| max_ts(&d)).or_else(|| {
        from = "mtime";
        meta.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_millis() as i64)
    });

    let observed = format::decoder(fmt).observed;
    // The header's title from the whole file when it is read whole (a format may find it past
    // the head), as every other view shows it; else from the head.
    let (entries, exact, usage, whole_title) = if whole {
        (d.entries.len() as u64, true, Some(stats::file_usage(&d.entries, &d.observations, observed)), None)
    } else {
        match (size <= WHOLE_MAX).then(|| whole_file(path, fmt)).flatten() {
            Some((n, u, title)) => (n, true, Some(u), title),
            None => {
                // Too big to read for a listing, or unreadable as a whole now (it shrank,
                // or is being rewritten): scale the head's entries-per-byte to the whole
                // file, and leave usage unknown (`stats` reads it all).
                let per_byte = d.entries.len() as f64 / head_len.max(1) as f64;
                ((per_byte * size as f64).round() as u64, false, None, None)
            }
        }
    };
    // The first prompt is read (its lines parsed again) only when there is no title.
    let (title, title_source) = if let Some(t) = whole_title.or_else(|| header_title(&d)) {
        (t, TitleSource::Title)
    } else if let Some(p) = first_prompt(&d, src.bytes()) {
        (p, TitleSource::Prompt)
    } else if let Some(i) = &id {
        (i.clone(), TitleSource::Id)
    } else {
        (path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), TitleSource::File)
    };
    Ok(SessionInfo {
        file: display.to_string(),
        agent: Agent::of_format(fmt),
        format: fmt,
        id,
        title,
        title_source,
        cwd: header.and_then(|h| h.cwd.as_deref()).map(str::to_string),
        forked_from: header.and_then(|h| h.origin.as_deref()).map(str::to_string),
        created: created.map(crate::time::format_iso),
        created_ms: created,
        last_activity: last.map(crate::time::format_iso),
        last_activity_ms: last,
        last_activity_from: if last.is_some() { from } else { "none" },
        size,
        entries,
        entries_exact: exact,
        usage,
    })
}

/// The first user message that a person typed (by the format's rule), cut to a title.
fn first_prompt(d: &Decoded<'_>, bytes: &[u8]) -> Option<String> {
    let table = format::decoder(d.format);
    let users = d.entries.iter().filter(|e| e.message.as_ref().is_some_and(|m| m.role == Role::User));
    users
        .filter_map(|e| {
            let lines = e.spans().map(|sp| serde_json::from_slice(&bytes[sp]).ok()).collect::<Option<Vec<_>>>()?;
            let c = (table.content)(e, &lines);
            c.first_text().map(|t| t.chars().take(TITLE_CHARS).collect::<String>())
        })
        .find(|t| !t.trim().is_empty() && (table.is_prompt)(t))
}

/// What reading every line of the file gives: its entries, file-scope usage, and the
/// header's title (a format may find it past the head), with the skimming decoder (`None`
/// when the file cannot be read whole now).
fn whole_file(path: &Path, fmt: Format) -> Option<(u64, Tokens, Option<String>)> {
    let src = Source::open(path, crate::source::ReadOptions::default()).ok()?;
    let d = format::decode(&src, Some(fmt), format::Detail::Full, format::Uses::Unlisted).ok()?;
    let usage = stats::file_usage(&d.entries, &d.observations, format::decoder(fmt).observed);
    Some((d.entries.len() as u64, usage, header_title(&d)))
}

/// The header's title, cut to [`TITLE_CHARS`]; `None` when it is blank.
fn header_title(d: &Decoded<'_>) -> Option<String> {
    let t = d.header.as_ref()?.title.as_ref()?.prefix(TITLE_CHARS).0;
    (!t.trim().is_empty()).then_some(t)
}

fn read_at(f: &mut File, at: u64, len: u64) -> Result<Vec<u8>, String> {
    f.seek(SeekFrom::Start(at)).map_err(|e| format!("cannot read: {e}"))?;
    let mut buf = Vec::with_capacity(len as usize);
    f.take(len).read_to_end(&mut buf).map_err(|e| format!("cannot read: {e}"))?;
    Ok(buf)
}

fn first_ts(d: &Decoded<'_>) -> Option<i64> {
    let e = d.entries.iter().filter_map(|e| e.timestamp.get().or_else(|| e.message.as_ref()?.timestamp.get())).min();
    let o = d.observations.iter().filter_map(|o| o.ts).min();
    match (e, o) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_ts(d: &Decoded<'_>) -> Option<i64> {
    let e = d.entries.iter().filter_map(|e| e.timestamp.get().or_else(|| e.message.as_ref()?.timestamp.get())).max();
    let o = d.observations.iter().filter_map(|o| o.ts.map(|t| t + o.duration_ms.unwrap_or(0) as i64)).max();
    e.max(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_head_and_tail_of_a_big_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let mut f = File::create(&p).unwrap();
        writeln!(f, r#"{{"kind":"session","version":1,"id":"s1","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}}"#)
            .unwrap();
        writeln!(f, r#"{{"kind":"message","id":"u1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{{"role":"user","content":"hello there","timestamp":1}}}}"#).unwrap();
        let pad = "x".repeat(1000);
        let mut parent = "u1".to_string();
        for i in 0..300 {
            let id = format!("e{i}");
            writeln!(f, r#"{{"kind":"label","id":"{id}","parentId":"{parent}","timestamp":"2026-11-02T10:00:{:02}.000Z","label":"{pad}"}}"#, i % 60).unwrap();
            parent = id;
        }
        writeln!(
            f,
            r#"{{"kind":"label","id":"z","parentId":"{parent}","timestamp":"2026-11-03T08:00:00.000Z","label":"end"}}"#
        )
        .unwrap();
        drop(f);
        let info = read_info(&p, "s.jsonl").unwrap();
        assert_eq!(info.title, "hello there");
        assert_eq!(info.title_source, TitleSource::Prompt);
        assert_eq!(info.created.as_deref(), Some("2026-11-02T09:00:00.000Z"));
        assert_eq!(info.last_activity.as_deref(), Some("2026-11-03T08:00:00.000Z"));
        // The file is bigger than the head and tail windows; the count comes from every line:
        // the user message, 300 labels and the last one.
        assert!(info.entries_exact);
        assert_eq!(info.entries, 302);
        // Labels record no model call: zero tokens, no recorded cost.
        let usage = info.usage.expect("read whole");
        assert_eq!((usage.total, usage.cost), (0, None));
    }
}
