//! `sessions`: newest first, titles from header / first prompt / id, head-and-tail reading,
//! partial files skipped with a warning.

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::{json, Value};

#[test]
fn lists_both_formats_newest_first() {
    let doc = json(&["sessions", "--json", D], 0);
    let s = doc["sessions"].as_array().unwrap();
    let files: Vec<&str> = s.iter().map(|x| x["file"].as_str().unwrap().rsplit('/').next().unwrap()).collect();
    assert_eq!(
        files,
        ["arcturn-compacted.jsonl", "arcturn-branches.jsonl", "session-1792661000878.jsonl", "crab-branched.jsonl"]
    );
    let by = |name: &str| s.iter().find(|x| x["file"].as_str().unwrap().ends_with(name)).unwrap().clone();
    let a = by("arcturn-branches.jsonl");
    assert_eq!(
        (&a["title"], &a["title_source"], &a["format"]),
        (&json!("Fix the failing add test"), &json!("title"), &json!("arcturn"))
    );
    assert_eq!(
        (&a["created"], &a["last_activity"]),
        (&json!("2026-11-02T09:00:00.000Z"), &json!("2026-11-02T10:00:10.000Z"))
    );
    assert_eq!((&a["entries"], &a["entries_exact"], &a["id"]), (&json!(18), &json!(true), &json!("s-20261102-a1")));
    let c = by("session-1792661000878.jsonl");
    assert_eq!((&c["title"], &c["title_source"]), (&json!("add a --json flag to crab metrics"), &json!("prompt")));
    // meta `created`; last activity = the open run's last observation (09:30:01.500).
    assert_eq!(
        (&c["created_ms"], &c["last_activity"]),
        (&json!(1_792_661_000_878i64), &json!("2026-10-22T09:30:01.500Z"))
    );
    let size =
        std::fs::metadata(format!("{}/{D}/session-1792661000878.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap().len();
    assert_eq!(c["size"], size);
}

#[test]
fn sorts_and_limits() {
    let doc = json(&["sessions", "--json", "--sort", "size", "-n", "2", D], 0);
    let sizes: Vec<u64> = doc["sessions"].as_array().unwrap().iter().map(|x| x["size"].as_u64().unwrap()).collect();
    assert_eq!(sizes.len(), 2);
    assert!(sizes[0] >= sizes[1]);
}

#[test]
fn partial_files_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    std::fs::write(dir.path().join("torn.jsonl"), "{\"kind\":\"session\",\"version\":1,\"id\":\"s").unwrap();
    std::fs::copy(format!("{}/{D}/arcturn-compacted.jsonl", env!("CARGO_MANIFEST_DIR")), dir.path().join("ok.jsonl"))
        .unwrap();
    let o = run(&["sessions", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(doc["skipped"].as_array().unwrap().len(), 2);
    let err = stderr(&o);
    assert!(err.contains("empty.jsonl: skipped") && err.contains("torn.jsonl: skipped"), "{err}");
    let o = run(&["sessions", "-q", dir.path().to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    assert!(stderr(&o).is_empty());
    assert!(stdout(&o).contains("1 session, 2 skipped"));
}

#[test]
fn never_reads_a_big_file_whole() {
    // A 40 MB session whose middle is garbage: a head-and-tail reader never sees it.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.jsonl");
    let mut body = String::from("{\"kind\":\"session\",\"version\":1,\"id\":\"big\",\"timestamp\":\"2026-11-02T09:00:00.000Z\",\"title\":\"Big one\"}\n");
    body.push_str("{\"kind\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-11-02T09:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"go\",\"timestamp\":1}}\n");
    let junk = format!("{}\n", "x".repeat(1000));
    for _ in 0..40_000 {
        body.push_str(&junk);
    }
    body.push_str("{\"kind\":\"label\",\"id\":\"z\",\"parentId\":\"u1\",\"timestamp\":\"2026-11-05T12:00:00.000Z\",\"label\":\"end\"}\n");
    std::fs::write(&p, body).unwrap();
    let doc = json(&["sessions", "--json", dir.path().to_str().unwrap()], 0);
    let s = &doc["sessions"][0];
    assert_eq!((&s["title"], &s["last_activity"]), (&json!("Big one"), &json!("2026-11-05T12:00:00.000Z")));
    assert_eq!(s["entries_exact"], false);
}

#[test]
fn human_list() {
    let o = run(&["sessions", D]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.lines().nth(1).unwrap().contains("hello world"), "newest first:\n{out}");
    assert!(out.contains("Fix the failing add test") && out.contains("4 sessions"));
}

#[test]
fn a_claude_session_is_titled_by_its_first_typed_prompt_wherever_it_is() {
    // Claude Code writes slash commands, their expansion (`isMeta`) and interrupt markers as
    // user lines; none of them is typed. The typed prompt comes after 100 KiB of tool
    // output, past the head `sessions` reads first: the whole file (under 16 MiB) is read
    // for its counts, and gives the title every other view gives.
    let dir = tempfile::tempdir().unwrap();
    let line = |n: usize, parent: Option<usize>, extra: &str, content: Value| {
        let parent = parent.map_or(json!(null), |p| json!(format!("00000000-0000-4000-8000-{p:012}")));
        let mut v = json!({
            "parentUuid": parent, "isSidechain": false, "type": "user", "sessionId": "s-title",
            "uuid": format!("00000000-0000-4000-8000-{n:012}"), "timestamp": format!("2026-02-10T21:{:02}:00.000Z", n),
            "message": {"role": "user", "content": content}
        });
        if extra == "meta" {
            v["isMeta"] = json!(true);
        }
        v.to_string()
    };
    let big = "y".repeat(100 << 10);
    let lines = [
        line(1, None, "", json!("<command-message>plan</command-message>\n<command-name>/plan</command-name>")),
        line(2, Some(1), "meta", json!("Expand the plan command into steps")),
        line(3, Some(2), "", json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}])),
        line(4, Some(3), "", json!([{"type": "tool_result", "tool_use_id": "t1", "content": big}])),
        line(5, Some(4), "", json!("[Request interrupted by user]")),
        line(6, Some(5), "", json!("  make the build green")),
    ];
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let doc = json(&["sessions", "--json", dir.path().to_str().unwrap()], 0);
    assert_eq!(doc["sessions"][0]["title"], json!("  make the build green"), "{doc}");
    let rows = run(&["rows", "--table", "sessions", p.to_str().unwrap()]);
    assert_eq!(code(&rows), 0, "{}", stderr(&rows));
    let row: Value = serde_json::from_str(stdout(&rows).lines().next().unwrap()).unwrap();
    assert_eq!(row["title"], json!("  make the build green"));
}
