//! The agents' own session folders: where each agent (arcturn, crab, pi, Claude Code, Codex)
//! keeps its sessions by default, and which of its files belong to a working directory.
//! Used by `sessions` with no DIR and by the default input (no FILE). Reads environment
//! variables and at most the first lines of a file, never a whole file.

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// An agent whose session folders are known (FORMATS.md, FORMATS-REAL.md 1.1, 2.1, 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Arcturn,
    Crab,
    Pi,
    Claude,
    Codex,
}

impl Agent {
    pub const ALL: [Agent; 5] = [Agent::Arcturn, Agent::Crab, Agent::Pi, Agent::Claude, Agent::Codex];

    /// The agent whose format this is (each agent writes one format).
    pub fn of_format(f: crate::model::Format) -> Agent {
        use crate::model::Format;
        match f {
            Format::Arcturn => Agent::Arcturn,
            Format::Crab => Agent::Crab,
            Format::Pi => Agent::Pi,
            Format::Claude => Agent::Claude,
            Format::Codex => Agent::Codex,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Arcturn => "arcturn",
            Agent::Crab => "crab",
            Agent::Pi => "pi",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }
}

/// Bytes of a file's head searched for its working directory.
const CWD_HEAD: u64 = 256 << 10;
/// Lines of a file's head searched for its working directory (Claude's first lines are
/// often metadata without one).
const CWD_LINES: usize = 32;
/// Codex keeps every project in one date tree: only this many of the newest rollouts are
/// opened when looking for the working directory's newest one.
const CODEX_RECENT: usize = 256;

fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn home() -> Option<PathBuf> {
    var("HOME").map(PathBuf::from)
}

/// The folders `agent` keeps sessions in, whether or not they exist. `cwd` is the working
/// directory (crab keeps its sessions inside the project).
pub fn folders(agent: Agent, cwd: &Path) -> Vec<PathBuf> {
    let home = home();
    let under_home = |parts: &[&str]| home.as_ref().map(|h| parts.iter().fold(h.clone(), |p, s| p.join(s)));
    match agent {
        Agent::Crab => vec![cwd.join(".crab").join("sessions")],
        Agent::Arcturn => under_home(&[".arcturn", "sessions"]).into_iter().collect(),
        Agent::Pi => {
            if let Some(d) = var("PI_CODING_AGENT_SESSION_DIR") {
                return vec![PathBuf::from(d)];
            }
            let base = var("PI_CODING_AGENT_DIR").map(PathBuf::from).or_else(|| under_home(&[".pi", "agent"]));
            base.map(|b| b.join("sessions")).into_iter().collect()
        }
        Agent::Claude => {
            let mut v: Vec<PathBuf> = match var("CLAUDE_CONFIG_DIR") {
                Some(d) => vec![PathBuf::from(d).join("projects")],
                None => under_home(&[".claude", "projects"]).into_iter().collect(),
            };
            v.extend(under_home(&[".config", "claude", "projects"]));
            v.dedup();
            v
        }
        Agent::Codex => {
            let base = var("CODEX_HOME").map(PathBuf::from).or_else(|| under_home(&[".codex"]));
            base.map(|b| vec![b.join("sessions"), b.join("archived_sessions")]).unwrap_or_default()
        }
    }
}

/// Every agent folder that exists, in [`Agent::ALL`] order.
pub fn existing_folders(cwd: &Path) -> Vec<(Agent, PathBuf)> {
    let mut out: Vec<(Agent, PathBuf)> = Vec::new();
    for a in Agent::ALL {
        for d in folders(a, cwd) {
            if d.is_dir() && !out.iter().any(|(_, e)| e == &d) {
                out.push((a, d));
            }
        }
    }
    out
}

/// pi's folder name for a working directory (FORMATS-REAL.md 1.1): `--<cwd>--`, the cwd
/// without its leading separator and with `/ \ :` replaced by `-`.
pub fn pi_folder_name(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    let inner: String = trimmed.chars().map(|c| if matches!(c, '/' | '\\' | ':') { '-' } else { c }).collect();
    format!("--{inner}--")
}

/// Claude Code's folder name for a working directory (FORMATS-REAL.md 2.1): every
/// character outside `[A-Za-z0-9]` becomes `-`. Lossy: the lines' `cwd` confirms.
pub fn claude_slug(cwd: &str) -> String {
    cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// A session file found for a working directory, with the time that orders it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub agent: Agent,
    pub path: PathBuf,
    /// Epoch milliseconds: crab's file-name stamp, else the modification time.
    pub stamp: i64,
}

/// The newest session of `cwd` across every agent, as each agent's own `--continue`
/// would find it.
pub fn newest_for_cwd(cwd: &Path) -> Option<Candidate> {
    Agent::ALL.iter().filter_map(|&a| newest_of(a, cwd)).max_by_key(|c| c.stamp)
}

/// The newest session of `cwd` that `agent` keeps.
pub fn newest_of(agent: Agent, cwd: &Path) -> Option<Candidate> {
    let cwd_text = cwd.to_string_lossy();
    let cand = |path: PathBuf| Candidate { agent, stamp: mtime_ms(&path).unwrap_or(0), path };
    let newest = |files: Vec<PathBuf>| files.into_iter().map(cand).max_by_key(|c| c.stamp);
    let matches = |p: &PathBuf| head_cwd(p).as_deref() == Some(cwd_text.as_ref());
    match agent {
        Agent::Crab => {
            let dir = folders(agent, cwd).pop()?;
            let path = crate::discover::newest_crab(&dir)?;
            Some(Candidate { agent, stamp: crate::discover::crab_stamp(&path).unwrap_or(0), path })
        }
        Agent::Arcturn => {
            let dir = folders(agent, cwd).pop()?;
            crate::discover::newest_arcturn(&dir, cwd).map(cand)
        }
        Agent::Pi => {
            let dir = folders(agent, cwd).pop()?;
            // The per-project folder, else (a custom session dir) files whose header names cwd.
            let own = dir.join(pi_folder_name(&cwd_text));
            let mut files = plain_files(&own, |n| n.ends_with(".jsonl"));
            files.extend(plain_files(&dir, |n| n.ends_with(".jsonl")).into_iter().filter(matches));
            newest(files)
        }
        Agent::Claude => {
            let slug = claude_slug(&cwd_text);
            let mut files = Vec::new();
            for root in folders(agent, cwd) {
                let own = root.join(&slug);
                // The slug is lossy (`/a-b` and `/a/b` share one): a file whose lines name
                // another cwd is not this project's.
                files.extend(plain_files(&own, |n| n.ends_with(".jsonl")).into_iter().filter(|p| match head_cwd(p) {
                    Some(c) => c == cwd_text,
                    None => true,
                }));
            }
            newest(files)
        }
        Agent::Codex => {
            // Only the live tree: archived rollouts are not what `resume --last` picks.
            let dir = folders(agent, cwd).into_iter().next()?;
            // A walk follows symlinks: keep only files that resolve inside the tree.
            let root = fs::canonicalize(&dir).ok()?;
            let (files, _) = crate::discover::walk_jsonl(&root);
            let mut files: Vec<PathBuf> =
                files.into_iter().filter_map(|p| crate::discover::contained(&root, &p)).collect();
            // Rollout names start with their creation time: the newest are last by name.
            files.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
            files.truncate(CODEX_RECENT);
            newest(files.into_iter().filter(matches).collect())
        }
    }
}

/// Regular files directly in `dir` whose name passes `keep`.
fn plain_files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir(dir) else { return Vec::new() };
    rd.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
        .collect()
}

fn mtime_ms(p: &Path) -> Option<i64> {
    let m = fs::metadata(p).ok()?.modified().ok()?;
    Some(m.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as i64)
}

/// The working directory a session file records in its first lines: a top-level `cwd`
/// (arcturn and pi headers, Claude lines) or a Codex `session_meta` payload's `cwd`.
pub fn head_cwd(p: &Path) -> Option<String> {
    let f = fs::File::open(p).ok()?;
    let mut r = BufReader::new(f.take(CWD_HEAD));
    let mut line = Vec::new();
    for _ in 0..CWD_LINES {
        line.clear();
        if r.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else { continue };
        let cwd = v.get("cwd").or_else(|| match v.get("type")?.as_str()? {
            "session_meta" => v.get("payload")?.get("cwd"),
            _ => None,
        });
        if let Some(c) = cwd.and_then(|c| c.as_str()) {
            return Some(c.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_folder_name_drops_the_leading_slash_and_dashes_separators() {
        assert_eq!(pi_folder_name("/home/ann/src/app"), "--home-ann-src-app--");
        assert_eq!(pi_folder_name("C:\\work\\app"), "--C--work-app--");
    }

    #[test]
    fn claude_slug_dashes_every_non_alphanumeric() {
        assert_eq!(claude_slug("/home/ann/my_app.v2"), "-home-ann-my-app-v2");
    }
}
