//! Finding session files: walking directories for `*.jsonl`, and the newest session of the
//! current project when no file is named (what the agents' own `--continue` would pick).

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Every `*.jsonl` file under `dir`, recursively, sorted by path for stable output.
/// Unreadable subdirectories are skipped (their error is returned alongside).
pub fn walk_jsonl(dir: &Path) -> (Vec<PathBuf>, Vec<(PathBuf, std::io::Error)>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = match fs::read_dir(&d) {
            Ok(rd) => rd,
            Err(e) => {
                errors.push((d, e));
                continue;
            }
        };
        for ent in rd.flatten() {
            let p = ent.path();
            let Ok(ft) = ent.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl")
                && (ft.is_file() || p.is_file())
                && !is_child_session(&p)
            {
                files.push(p);
            }
        }
    }
    files.sort();
    (files, errors)
}

/// The newest session for `cwd`: the newest `.crab/sessions/session-*.jsonl` under it,
/// else the newest file under `~/.arcturn/sessions/` whose header names `cwd`.
pub fn newest_session(cwd: &Path) -> Option<PathBuf> {
    let crab = cwd.join(".crab").join("sessions");
    if let Ok(rd) = fs::read_dir(&crab) {
        let newest = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("session-") && name.ends_with(".jsonl")
            })
            .max_by_key(|p| crab_stamp(p).unwrap_or(0));
        if newest.is_some() {
            return newest;
        }
    }
    let home = std::env::var_os("HOME")?;
    let root = Path::new(&home).join(".arcturn").join("sessions");
    let (files, _) = walk_jsonl(&root);
    let cwd_text = cwd.to_string_lossy();
    files
        .into_iter()
        .filter(|p| header_cwd(p).as_deref() == Some(cwd_text.as_ref()))
        .max_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// crab names files `session-<epoch-millis>.jsonl`.
pub fn crab_stamp(p: &Path) -> Option<i64> {
    let name = p.file_stem()?.to_str()?;
    name.strip_prefix("session-")?.parse().ok()
}

/// The `cwd` of an arcturn header, reading only the first line.
fn header_cwd(p: &Path) -> Option<String> {
    let f = fs::File::open(p).ok()?;
    let mut first = Vec::new();
    // Headers are small; never read more than 1 MiB looking for the newline.
    BufReader::new(f).take(1 << 20).read_until(b'\n', &mut first).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&first).ok()?;
    v.get("cwd")?.as_str().map(str::to_string)
}

/// A Claude Code sub-agent file, `<session>/subagents/agent-<id>.jsonl`: part of its
/// session, never a session of its own (FORMATS-REAL.md 2.1).
pub fn is_child_session(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = p.parent().and_then(|d| d.file_name()).and_then(|n| n.to_str());
    name.starts_with("agent-") && name.ends_with(".jsonl") && dir == Some("subagents")
}

/// The sub-agent files of a session file (`<dir>/<stem>/subagents/agent-*.jsonl`), sorted,
/// with the agent id each one names.
pub fn child_sessions(session: &Path) -> Vec<(String, PathBuf)> {
    let (Some(dir), Some(stem)) = (session.parent(), session.file_stem()) else { return Vec::new() };
    let Ok(rd) = fs::read_dir(dir.join(stem).join("subagents")) else { return Vec::new() };
    let mut out: Vec<(String, PathBuf)> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_child_session(p) && p.is_file())
        .filter_map(|p| {
            let id = p.file_stem()?.to_str()?.strip_prefix("agent-")?.to_string();
            Some((id, p))
        })
        .collect();
    out.sort();
    out
}
