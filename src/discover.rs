//! Finding session files: walking directories for `*.jsonl` (and `*.jsonl.zst`), and the newest session of the
//! current project when no file is named (what the agents' own `--continue` would pick,
//! across the agents of [`crate::agents`]).

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// What a walk found: the files, and the directories it could not read.
pub type Walked = (Vec<PathBuf>, Vec<(PathBuf, std::io::Error)>);

/// Every `*.jsonl` and `*.jsonl.zst` file under `dir`, recursively, sorted by path for
/// stable output; a compressed file whose plain sibling exists is left out (the plain one
/// wins). Unreadable subdirectories are skipped (their errors are returned alongside, by
/// path).
pub fn walk_jsonl(dir: &Path) -> Walked {
    walk(dir, false)
}

/// [`walk_jsonl`] with sub-agent files too: for `audit`, where a file counted twice costs
/// nothing and one left out could hide a secret.
pub fn walk_every_jsonl(dir: &Path) -> Walked {
    walk(dir, true)
}

fn walk(dir: &Path, children: bool) -> Walked {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    // One level of directories at a time, its directories read on every worker: a folder
    // of many projects is a few hundred directories, each a few system calls.
    let mut level = vec![dir.to_path_buf()];
    while !level.is_empty() {
        let read: Vec<Listed> = level.into_par_iter().map(|d| list(d, children)).collect();
        level = Vec::new();
        for l in read {
            match l {
                Listed::Read { files: f, dirs } => {
                    files.extend(f);
                    level.extend(dirs);
                }
                Listed::Failed(d, e) => errors.push((d, e)),
            }
        }
    }
    files.sort();
    errors.sort_by(|a, b| a.0.cmp(&b.0));
    let plain: std::collections::HashSet<PathBuf> = files.iter().filter(|p| !is_jsonl_zst(p)).cloned().collect();
    files.retain(|p| !is_jsonl_zst(p) || !plain.contains(&p.with_extension("")));
    (files, errors)
}

/// What one directory of a walk holds: its session files and its subdirectories, or why it
/// could not be read.
enum Listed {
    Read { files: Vec<PathBuf>, dirs: Vec<PathBuf> },
    Failed(PathBuf, std::io::Error),
}

fn list(d: PathBuf, children: bool) -> Listed {
    let rd = match fs::read_dir(&d) {
        Ok(rd) => rd,
        Err(e) => return Listed::Failed(d, e),
    };
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    for ent in rd.flatten() {
        let p = ent.path();
        let Ok(ft) = ent.file_type() else { continue };
        if ft.is_dir() {
            dirs.push(p);
        } else if (p.extension().is_some_and(|x| x == "jsonl") || is_jsonl_zst(&p))
            && (ft.is_file() || p.is_file())
            && (children || !is_child_session(&p))
        {
            files.push(p);
        }
    }
    Listed::Read { files, dirs }
}

/// `name.jsonl.zst` (Codex's compressed rollouts).
fn is_jsonl_zst(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".jsonl.zst"))
}

/// The newest session for `cwd` across the agents (see [`crate::agents::newest_for_cwd`]).
///
/// Only regular files inside an agent's session folder qualify, after symlinks are
/// resolved: the default input is chosen without the user naming it, so a symlink in that
/// folder must not lead it to any other file or to a device (`/dev/zero`, a FIFO that never
/// answers). The path returned is the resolved one, so that opening it follows no link again.
pub fn newest_session(cwd: &Path) -> Option<PathBuf> {
    crate::agents::newest_for_cwd(cwd).map(|c| c.path)
}

/// The newest `session-<millis>.jsonl` in a crab session folder, by the time in its name.
pub fn newest_crab(dir: &Path) -> Option<PathBuf> {
    let root = fs::canonicalize(dir).ok()?;
    fs::read_dir(&root)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("session-") && name.ends_with(".jsonl")
        })
        .filter_map(|p| Some((crab_stamp(&p).unwrap_or(0), contained(&root, &p)?)))
        .max_by_key(|(stamp, _)| *stamp)
        .map(|(_, real)| real)
}

/// The most recently modified arcturn session under `dir` whose header names `cwd`.
pub fn newest_arcturn(dir: &Path, cwd: &Path) -> Option<PathBuf> {
    let root = fs::canonicalize(dir).ok()?;
    let (files, _) = walk_jsonl(&root);
    let cwd_text = cwd.to_string_lossy();
    files
        .into_iter()
        .filter_map(|p| contained(&root, &p))
        .filter(|p| header_cwd(p).as_deref() == Some(cwd_text.as_ref()))
        .max_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// `p` with every symlink resolved, when that is a regular file inside `root` (itself
/// resolved).
pub fn contained(root: &Path, p: &Path) -> Option<PathBuf> {
    let real = fs::canonicalize(p).ok()?;
    (real.starts_with(root) && fs::metadata(&real).ok()?.is_file()).then_some(real)
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    const HEADER: &str =
        r#"{"kind":"session","version":1,"id":"s","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/proj"}"#;

    #[test]
    fn a_walk_finds_the_session_files_of_every_level_sorted() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let files = [
            "z.jsonl",
            "notes.txt",
            "a/b/c/d/deep.jsonl",
            "a/b/c/d/deep.json",
            "a/one.jsonl",
            "a/one.jsonl.zst",
            "a/two.jsonl.zst",
            "b/s1.jsonl",
            "b/s1/subagents/agent-x.jsonl",
            "b/s1/subagents/other.jsonl",
            "c/empty/.keep",
        ];
        for f in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, "{}\n").unwrap();
        }
        for d in 0..40 {
            fs::create_dir_all(root.join(format!("wide/{d:02}"))).unwrap();
            fs::write(root.join(format!("wide/{d:02}/s.jsonl")), "{}\n").unwrap();
        }
        let names = |w: Walked| -> Vec<String> {
            assert!(w.1.is_empty(), "{:?}", w.1);
            w.0.iter().map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned()).collect()
        };
        let mut want: Vec<String> = [
            "a/b/c/d/deep.jsonl",
            "a/one.jsonl",
            "a/two.jsonl.zst",
            "b/s1.jsonl",
            "b/s1/subagents/other.jsonl",
            "z.jsonl",
        ]
        .map(String::from)
        .to_vec();
        want.extend((0..40).map(|d| format!("wide/{d:02}/s.jsonl")));
        // By path, component by component: `b/s1.jsonl` after the folder `b/s1`.
        let by_path = |a: &String, b: &String| Path::new(a).cmp(Path::new(b));
        want.sort_by(by_path);
        assert_eq!(names(walk_jsonl(root)), want);
        want.push("b/s1/subagents/agent-x.jsonl".into());
        want.sort_by(by_path);
        assert_eq!(names(walk_every_jsonl(root)), want);
        let (found, errors) = walk_jsonl(&root.join("missing"));
        assert!(found.is_empty());
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn default_input_never_follows_a_symlink_out_of_the_session_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("secret.jsonl");
        fs::write(&outside, "{}\n").unwrap();
        let crab = tmp.path().join("proj/.crab/sessions");
        fs::create_dir_all(&crab).unwrap();
        fs::write(crab.join("session-1000.jsonl"), "{}\n").unwrap();
        // Newer by name, but leading out of the folder, to a device, or nowhere.
        symlink(&outside, crab.join("session-3000.jsonl")).unwrap();
        symlink("/dev/zero", crab.join("session-4000.jsonl")).unwrap();
        symlink(tmp.path().join("missing"), crab.join("session-5000.jsonl")).unwrap();
        let real = fs::canonicalize(crab.join("session-1000.jsonl")).unwrap();
        assert_eq!(newest_crab(&crab), Some(real.clone()));
        // A symlink that stays inside the folder is followed, and the resolved path returned.
        symlink(crab.join("session-1000.jsonl"), crab.join("session-2000.jsonl")).unwrap();
        assert_eq!(newest_crab(&crab), Some(real.clone()));
        fs::remove_file(crab.join("session-1000.jsonl")).unwrap();
        assert_eq!(newest_crab(&crab), None, "only links out of the folder and a dangling one are left");

        let arcturn = tmp.path().join("home/.arcturn/sessions");
        fs::create_dir_all(arcturn.join("sub")).unwrap();
        let inside = arcturn.join("sub/a.jsonl");
        fs::write(&inside, format!("{HEADER}\n")).unwrap();
        fs::write(&outside, format!("{HEADER}\n")).unwrap();
        symlink(&outside, arcturn.join("b.jsonl")).unwrap();
        symlink("/dev/zero", arcturn.join("c.jsonl")).unwrap();
        let got = newest_arcturn(&arcturn, Path::new("/proj"));
        assert_eq!(got, Some(fs::canonicalize(&inside).unwrap()));
    }
}
