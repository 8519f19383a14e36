//! Detection and discovery across agents: directory walks skip files of no known format
//! (one warning each, counted) and Claude sub-agent files; `sessions` with no DIR lists every
//! agent's folder under a fake HOME, with an `agent` field and `--agent` filter.

#[path = "support/mod.rs"]
mod common;
use common::*;
use std::fs;
use std::path::Path;

const PI: &str = "testdata/pi/v3-compacted.jsonl";
const ARCTURN: &str = "testdata/stats/arcturn-branches.jsonl";
const CLAUDE_LINE: &str = r#"{"parentUuid":null,"isSidechain":false,"cwd":"/home/dev/app","sessionId":"c1","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-11-21T10:00:00.000Z"}"#;
const CODEX_LINE: &str =
    r#"{"timestamp":"2026-11-22T10:00:00.000Z","type":"session_meta","payload":{"id":"x1","cwd":"/home/dev/app"}}"#;

fn copy(from: &str, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(from), to).unwrap();
}

fn write(to: &Path, text: &str) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::write(to, format!("{text}\n")).unwrap();
}

/// A fake HOME with an arcturn, a pi, a Claude (with a sub-agent file) and a Codex session.
fn fake_home() -> tempfile::TempDir {
    let h = tempfile::tempdir().unwrap();
    let p = h.path();
    copy(ARCTURN, &p.join(".arcturn/sessions/a.jsonl"));
    copy(PI, &p.join(".pi/agent/sessions/--home-dev-parser--/2026-11-20T10-00-00-000Z_5f0c.jsonl"));
    write(&p.join(".claude/projects/-home-dev-app/c1.jsonl"), CLAUDE_LINE);
    write(&p.join(".claude/projects/-home-dev-app/c1/subagents/agent-a1.jsonl"), CLAUDE_LINE);
    write(&p.join(".codex/sessions/2026/11/22/rollout-2026-11-22T10-00-00-x1.jsonl"), CODEX_LINE);
    h
}

fn sessions(home: &Path, extra: &[&str], cwd: &Path) -> std::process::Output {
    cmd()
        .args(["sessions", "--json"])
        .args(extra)
        .env("HOME", home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn sessions_without_dir_lists_every_agents_folder() {
    let home = fake_home();
    let o = sessions(home.path(), &[], home.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let agents: Vec<&str> = doc["dirs"].as_array().unwrap().iter().map(|d| d["agent"].as_str().unwrap()).collect();
    assert_eq!(agents, ["arcturn", "pi", "claude", "codex"]);
    let listed: Vec<(&str, &str)> = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["agent"].as_str().unwrap(), s["format"].as_str().unwrap()))
        .collect();
    // Newest first by creation time: Codex's `session_meta` (2026-11-22), Claude's first line
    // (2026-11-21), pi's header (2026-11-20), arcturn's header (2026-11-02). Each folder's agent
    // is the one its format names.
    assert_eq!(listed, [("codex", "codex"), ("claude", "claude"), ("pi", "pi"), ("arcturn", "arcturn")]);
    // The sub-agent file belongs to its session: never listed, not even as skipped.
    let files: Vec<&str> = doc["sessions"].as_array().unwrap().iter().map(|s| s["file"].as_str().unwrap()).collect();
    assert!(files.iter().all(|f| !f.contains("subagents")), "{files:?}");
    assert_eq!(doc["skipped"].as_array().unwrap().len(), 0, "{}", doc["skipped"]);
}

#[test]
fn sessions_agent_filter_keeps_one_agent() {
    let home = fake_home();
    let o = sessions(home.path(), &["--agent", "pi"], home.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = doc["sessions"].as_array().unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["agent"], "pi");
}

#[test]
fn sessions_honours_pi_folder_overrides() {
    let home = fake_home();
    let other = tempfile::tempdir().unwrap();
    copy(PI, &other.path().join("pi/--x--/s.jsonl"));
    let o = cmd()
        .args(["sessions", "--json", "--agent", "pi"])
        .env("HOME", home.path())
        .env("PI_CODING_AGENT_DIR", other.path().join("pi-agent"))
        .env("PI_CODING_AGENT_SESSION_DIR", other.path().join("pi"))
        .current_dir(home.path())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let dirs = doc["dirs"].as_array().unwrap();
    assert_eq!(dirs.len(), 1);
    assert!(dirs[0]["dir"].as_str().unwrap().ends_with("/pi"), "{dirs:?}");
    assert!(doc["sessions"][0]["file"].as_str().unwrap().ends_with("--x--/s.jsonl"));
}

#[test]
fn directory_walk_skips_unknown_files_with_one_warning_and_counts_them() {
    let d = tempfile::tempdir().unwrap();
    copy(ARCTURN, &d.path().join("a.jsonl"));
    copy(PI, &d.path().join("p.jsonl"));
    write(&d.path().join("c1.jsonl"), CLAUDE_LINE);
    write(&d.path().join("notes.jsonl"), r#"{"hello":"world"}"#);
    write(&d.path().join("s/subagents/agent-a1.jsonl"), r#"{"also":"unknown"}"#);
    let dir = d.path().to_str().unwrap();
    let o = run(&["stats", "--json", dir]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let formats: Vec<&str> =
        doc["sessions"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    // In path order: a.jsonl, c1.jsonl (Claude Code, read now that the format is known), p.jsonl.
    assert_eq!(formats, ["arcturn", "claude", "pi"]);
    assert_eq!(doc["skipped"].as_array().unwrap().len(), 1);
    let err = stderr(&o);
    assert_eq!(err.lines().filter(|l| l.contains("notes.jsonl")).count(), 1, "{err}");
    assert!(!err.contains("agent-a1"), "{err}");

    let o = run(&["check", dir]);
    assert_eq!(code(&o), 0, "the samples are clean; a skip is not an error: {}", stderr(&o));
    assert!(stdout(&o).contains("1 skipped (unknown format)"), "{}", stdout(&o));
    for cmd in ["trace", "query"] {
        let args: Vec<&str> = if cmd == "query" { vec!["query", "-c", ".id", dir] } else { vec![cmd, dir] };
        let o = run(&args);
        assert_eq!(code(&o), 0, "{cmd}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().filter(|l| l.contains("notes.jsonl: skipped")).count(), 1, "{cmd}");
    }
}

#[test]
fn a_named_file_of_no_known_format_is_still_an_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("notes.jsonl");
    write(&p, r#"{"hello":"world"}"#);
    let o = run(&["stats", p.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown format"), "{}", stderr(&o));
}

#[test]
fn a_directory_of_only_unknown_files_exits_2() {
    let d = tempfile::tempdir().unwrap();
    write(&d.path().join("notes.jsonl"), r#"{"hello":"world"}"#);
    let o = run(&["check", d.path().to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}
