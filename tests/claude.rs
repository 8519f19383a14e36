//! Claude Code sessions (FORMATS-REAL.md section 2): the fold of the raw uuid tree, usage
//! counted once per response, sub-agent files, and every command on real files.
//!
//! Expected figures were worked out from the files by the rules of section 2.6 (one usage per
//! `message.id` + `requestId`, the copy with the largest total; `<synthetic>` lines and
//! `agent_progress` copies never counted), independently of this tool's output.

mod common;

use common::{run, Out};
use std::path::Path;

/// A file under ../shared/real; missing is a failure under CI=true, a skip otherwise.
fn real(rel: &str) -> Option<String> {
    let p = format!("../shared/real/{rel}");
    if Path::new(env!("CARGO_MANIFEST_DIR")).join(&p).exists() {
        return Some(p);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{p} is missing (CI=true)");
    }
    println!("skipped: {p} not found");
    None
}

fn stats(file: &str) -> serde_json::Value {
    let out = run(&["stats", "--json", "-q", file]);
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    out.json()["sessions"][0].clone()
}

/// (responses, input, output, cache read, cache write) of the file scope.
fn usage(s: &serde_json::Value) -> (u64, u64, u64, u64, u64) {
    let u = &s["usage"];
    let n = |k: &str| u[k].as_u64().unwrap_or_else(|| panic!("usage.{k} in {s}"));
    (n("calls"), n("input"), n("output"), n("cache_read"), n("cache_write"))
}

fn leaves(file: &str) -> Vec<String> {
    let out = run(&["leaves", "--json", "-q", file]);
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    out.json()["leaves"].as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap().to_string()).collect()
}

/// The `sessions` title of one file, listing its directory.
fn title(file: &str) -> String {
    let dir = Path::new(file).parent().unwrap().to_str().unwrap();
    let out = run(&["sessions", "--json", dir]);
    assert_eq!(out.code, 0, "{dir}: {}", out.stderr);
    let doc = out.json();
    let row = doc["sessions"].as_array().unwrap().iter().find(|s| s["file"] == file).cloned();
    row.unwrap_or_else(|| panic!("{file} not listed: {doc}"))["title"].as_str().unwrap().to_string()
}

fn path_ids(file: &str) -> Vec<String> {
    let out = run(&["path", "--json", "-q", file]);
    assert_eq!(out.code, 0, "{file}: {}", out.stderr);
    let doc = out.json();
    let list = doc["path"].as_array().or_else(|| doc["entries"].as_array()).unwrap_or_else(|| panic!("{doc}"));
    list.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect()
}

const REAL: &[&str] = &[
    "agentlogs/claudecode/compact.jsonl",
    "agentlogs/claudecode/crud.jsonl",
    "agentlogs/claudecode/subagent.jsonl",
    "agentlogs/claudecode/todos.jsonl",
    "spotter/short.jsonl",
    "spotter/subagent.jsonl",
    "spotter/tool_heavy.jsonl",
    "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
    "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
];

#[test]
fn every_real_claude_file_goes_through_every_command() {
    for rel in REAL {
        let Some(f) = real(rel) else { continue };
        let f = f.as_str();
        for args in [
            vec!["tree", f],
            vec!["path", f],
            vec!["leaves", f],
            vec!["check", f],
            vec!["trace", f],
            vec!["stats", f],
            vec!["context", f],
            vec!["export", f],
            vec!["export", "--html", f],
            vec!["query", ".type", f],
            vec!["sessions", Path::new(f).parent().unwrap().to_str().unwrap()],
        ] {
            let out = run(&args);
            assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
            assert!(!out.stdout.contains('\u{1b}'), "{args:?}: a raw escape reached the output");
        }
        let latest = run(&["leaves", "--json", f]).json()["latest"].as_str().unwrap().to_string();
        let show = run(&["show", f, &latest]);
        assert_eq!(show.code, 0, "show {f}: {}", show.stderr);
        for cmd in ["tree", "stats", "check", "context", "trace", "path"] {
            let doc = run(&[cmd, "--json", f]);
            let first = doc.stdout.lines().next().unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(first).unwrap_or_else(|_| doc.json());
            let format = v.get("format").or_else(|| v["sessions"][0].get("format")).cloned();
            assert_eq!(format, Some("claude".into()), "{cmd} --json {f}");
        }
    }
}

#[test]
fn real_files_count_one_usage_per_response() {
    // (file, responses, input, output, cache read, cache write)
    let expect: &[(&str, u64, u64, u64, u64, u64)] = &[
        ("agentlogs/claudecode/compact.jsonl", 1, 10, 148, 13_522, 2_128),
        ("agentlogs/claudecode/crud.jsonl", 10, 25, 1_508, 148_958, 12_593),
        ("agentlogs/claudecode/subagent.jsonl", 3, 24, 276, 20_952, 23_122),
        ("agentlogs/claudecode/todos.jsonl", 6, 24, 660, 87_863, 2_151),
        ("spotter/short.jsonl", 1, 3, 13, 11_515, 13_835),
        ("spotter/subagent.jsonl", 12, 1_576, 1_586, 427_286, 25_842),
        ("spotter/tool_heavy.jsonl", 4, 54, 212, 88_231, 17_696),
        ("spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl", 152, 180, 38_899, 14_771_617, 349_474),
        ("spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl", 3, 15, 3, 34_159, 42_176),
        ("spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl", 1, 3, 6, 166_758, 2_487),
    ];
    for &(rel, calls, input, output, read, write) in expect {
        let Some(f) = real(rel) else { continue };
        assert_eq!(usage(&stats(&f)), (calls, input, output, read, write), "{rel}");
    }
}

#[test]
fn real_files_fold_to_their_conversation() {
    // Folded leaves: progress lines, split responses and parallel results make none.
    for (rel, n) in [
        ("spotter/short.jsonl", 1),
        ("spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl", 1),
        ("spotter/subagent.jsonl", 1),
        ("spotter/tool_heavy.jsonl", 1),
        ("agentlogs/claudecode/compact.jsonl", 1),
        ("agentlogs/claudecode/crud.jsonl", 1),
        ("agentlogs/claudecode/todos.jsonl", 1),
        // The inline sub-agent is a tree of its own beside the conversation.
        ("agentlogs/claudecode/subagent.jsonl", 2),
    ] {
        let Some(f) = real(rel) else { continue };
        assert_eq!(leaves(&f).len(), n, "{rel}");
    }
    let Some(f) = real("spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl") else { return };
    let s = stats(&f);
    assert_eq!(s["leaves"], 1);
    assert_eq!(s["branch"]["usage"]["cache_read"], 14_771_617, "one linear chain: the branch is the file");
}

#[test]
fn sub_agent_files_count_once_in_their_session() {
    let Some(f) = real("spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl") else { return };
    let s = stats(&f);
    let sa = &s["subagents"];
    assert_eq!(sa["files"], 2);
    // agent-a881341 (3 responses) + agent-acompact-fffbd0 (1).
    assert_eq!(sa["usage"]["calls"], 4);
    assert_eq!(sa["usage"]["cache_read"], 34_159 + 166_758);
    assert_eq!(sa["session_usage"]["cache_read"], 14_771_617 + 34_159 + 166_758);
    // A directory walk never lists them as sessions of their own.
    let Some(dir) = real("spotter") else { return };
    let all = run(&["stats", "--json", "-q", &dir]).json();
    let files: Vec<&str> = all["sessions"].as_array().unwrap().iter().map(|s| s["file"].as_str().unwrap()).collect();
    assert!(files.iter().all(|f| !f.contains("/subagents/")), "{files:?}");
    assert_eq!(files.len(), 4, "{files:?}");
    let listed = run(&["sessions", "--json", &dir]);
    assert!(!listed.stdout.contains("/subagents/"), "{}", listed.stdout);
}

#[test]
fn a_missing_sub_agent_file_is_said_never_fatal() {
    let Some(f) = real("spotter/subagent.jsonl") else { return };
    let out = run(&["stats", &f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("sub-agent afb92ff") && out.stderr.contains("not there"), "{}", out.stderr);
}

#[test]
fn slash_command_escapes_are_sanitized() {
    let Some(f) = real("agentlogs/claudecode/compact.jsonl") else { return };
    for args in [vec!["tree", f.as_str()], vec!["path", f.as_str()], vec!["export", f.as_str()]] {
        let out = run(&args);
        assert_eq!(out.code, 0);
        assert!(!out.stdout.contains('\u{1b}'), "{args:?}");
        assert!(out.stdout.contains("Compacted"), "{args:?}: the command text is still shown");
    }
}

#[test]
fn foreign_summary_is_never_a_title() {
    let Some(f) = real("agentlogs/claudecode/subagent.jsonl") else { return };
    // Line 1 is a `summary` whose leafUuid names a line of another file.
    assert_eq!(title(&f), "ask a subagent how he's doing");
}

// ---------------------------------------------------------------------------------------
// Synthetic sessions (testdata/claude, described in testdata/README.md)

#[test]
fn split_response_is_one_entry_with_one_usage() {
    let f = "testdata/claude/split.jsonl";
    // msg_A over three lines: the largest copy (output 95, not the streaming-start 1) once.
    assert_eq!(usage(&stats(f)), (2, 3 + 2, 95 + 40, 12_000 + 12_900, 800 + 300));
    assert_eq!(path_ids(f), ["u1", "a1", "r1", "a4", "s1"]);
    // `show` keeps the raw lines.
    let show = run(&["show", f, "a1"]);
    assert_eq!(show.code, 0);
    assert!(show.stdout.contains("\"a1\""));
    let t = run(&["trace", "--json", f]).json();
    let run0 = &t["runs"][0];
    assert_eq!(run0["llm_calls"], 2);
    assert_eq!(run0["tool_calls"], 1);
    assert_eq!(run0["spans"][1]["tool"], "Bash", "a result is named after its call");
    // The export reads every line of the merged response, in file order.
    let md = run(&["export", "--thinking", f]).stdout;
    let (a, b, c) =
        (md.find("Look at the test output"), md.find("Let me run the tests"), md.find("mix test test/cart"));
    assert!(a.is_some() && a < b && b < c, "{md}");
}

#[test]
fn parallel_tool_results_make_no_branch() {
    let f = "testdata/claude/parallel.jsonl";
    assert_eq!(leaves(f), ["a3"]);
    assert_eq!(path_ids(f), ["u1", "a1", "r1", "r2", "a3"]);
    assert_eq!(usage(&stats(f)), (2, 6, 150, 18_600, 1_200));
    let check = run(&["check", "--json", f]).json();
    assert_eq!(check["ok"], true);
    assert_eq!(check["findings"].as_array().unwrap().len(), 0, "{check}");
}

#[test]
fn compaction_is_one_entry_and_context_starts_from_its_summary() {
    let f = "testdata/claude/compaction.jsonl";
    assert_eq!(path_ids(f), ["u1", "a1", "b1", "m1", "u2", "a2"]);
    let ctx = run(&["context", "--json", f]).json();
    let c = &ctx["compactions"][0];
    assert_eq!(c["tokens_before"], 21_055);
    assert_eq!(c["tokens_after"], serde_json::Value::Null, "no postTokens: unknown, never 0");
    let ids: Vec<&str> = ctx["messages"].as_array().unwrap().iter().map(|m| m["entry_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["b1", "m1", "u2", "a2"]);
    let sent = run(&["export", "--as-sent", f]).stdout;
    let body = &sent[sent.find("\n---").unwrap()..];
    assert!(body.contains("the cart gained a `discount` field"), "{sent}");
    assert!(!body.contains("default of 0"), "what was summarized is not sent again: {sent}");
    assert_eq!(usage(&stats(f)), (2, 11, 120, 24_000, 3_500));
    assert_eq!(run(&["check", f]).code, 0);
    let human = run(&["stats", f]).stdout;
    assert!(human.contains("1 compaction: 21,055 → ? tokens"), "unknown after is never 0: {human}");
}

#[test]
fn inline_sidechain_is_its_own_tree_and_its_copy_is_not_counted() {
    let f = "testdata/claude/sidechain.jsonl";
    assert_eq!(leaves(f), ["x2", "a2"]);
    assert_eq!(path_ids(f), ["u1", "a1", "r1", "a2"]);
    // msg_T once (the sidechain's copy loses), msg_S, msg_U; the Task's totalTokens never.
    assert_eq!(usage(&stats(f)), (3, 3 + 10 + 2, 80 + 25 + 20, 8_000 + 8_900, 900 + 3_000 + 120));
    assert_eq!(title(f), "Ask a subagent to list the migrations", "a foreign summary is no title");
}

#[test]
fn rewind_keeps_both_branches_and_unknown_lines_are_counted() {
    let f = "testdata/claude/rewind.jsonl";
    assert_eq!(leaves(f), ["a2", "a3"]);
    assert_eq!(path_ids(f), ["u1", "a1", "u3", "a3"]);
    assert_eq!(usage(&stats(f)), (3, 12, 105, 21_700, 1_050));
    let check = run(&["check", "--json", f]);
    assert_eq!(check.code, 0, "unknown types and a torn tail are warnings");
    let doc = check.json();
    let codes: Vec<(&str, u64)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["code"].as_str().unwrap(), x["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(codes, [("unknown_kind", 5), ("torn_last_line", 10)], "one warning for both unknown lines");
    assert_eq!(title(f), "Cart → Basket rename", "the custom title wins");
}

#[test]
fn sub_agent_folder_is_part_of_its_session() {
    let f = "testdata/claude/agents.jsonl";
    let s = stats(f);
    // Main: msg_G (largest copy) + msg_H; the agent_progress copy of msg_sub1 is not counted.
    assert_eq!(usage(&s), (2, 5, 210, 21_000, 1_500));
    let sa = &s["subagents"];
    assert_eq!(sa["files"], 2);
    assert_eq!(sa["usage"]["calls"], 3);
    assert_eq!(sa["usage"]["output"], 30 + 12 + 400);
    assert_eq!(sa["usage"]["cache_write"], 4_000 + 200 + 9_000);
    assert_eq!(sa["session_usage"]["output"], 210 + 442);
    assert_eq!(sa["missing"], serde_json::json!(["c9d2"]));
    let human = run(&["stats", f]);
    assert!(human.stdout.contains("sub-agents (2 files)"), "{}", human.stdout);
    assert!(human.stderr.contains("sub-agent c9d2"), "{}", human.stderr);
    // The folder is walked without its sub-agents becoming sessions.
    let dir = run(&["stats", "--json", "-q", "testdata/claude"]).json();
    assert_eq!(dir["sessions"].as_array().unwrap().len(), 6);
    assert_eq!(dir["total"]["subagent_usage"]["calls"], 3);
}

#[test]
fn claude_is_detected_and_can_be_forced() {
    for f in ["testdata/claude/split.jsonl", "testdata/claude/rewind.jsonl"] {
        let out: Out = run(&["tree", "--json", f]);
        assert_eq!(out.json()["format"], "claude");
        let forced = run(&["tree", "--json", "--input-format", "claude", f]);
        assert_eq!(forced.code, 0);
        assert_eq!(forced.json()["format"], "claude");
    }
}

/// The session id and the working directory are each the first one in file order: a line
/// that has neither (a snapshot) is passed over, a key spelled with escapes still counts,
/// and a later line's different values do not replace them.
#[test]
fn session_id_and_cwd_come_from_the_first_line_that_has_each() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = r#"{"type":"file-history-snapshot","messageId":"m0","snapshot":{"messageId":"m0","trackedFileBackups":{}},"isSnapshotUpdate":false}"#;
    let user = |uuid: &str, parent: &str, extra: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","uuid":"{uuid}","timestamp":"2026-02-11T10:00:0{}.000Z",{extra},"message":{{"role":"user","content":"hello"}}}}"#,
            uuid.len() % 10
        )
    };
    let lines = [
        snapshot.to_string(),
        user("u1", "null", r#""sessionId":"first-session""#),
        user("u2", r#""u1""#, r#""\u0063wd":"/escaped/key","sessionId":"second-session""#),
        user("u3x", r#""u2""#, r#""cwd":"/later","sessionId":"third-session""#),
    ];
    let file = common::temp_file(dir.path(), "s.jsonl", (lines.join("\n") + "\n").as_bytes());
    let out = run(&["rows", "--table", "sessions", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let row: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(row["session_id"], "first-session", "{row}");
    assert_eq!(row["cwd"], "/escaped/key", "{row}");
}

/// `message.content` that is an object is damage on a user or assistant line (the finding
/// points at the object), and nothing on a progress line, which is no message.
#[test]
fn message_content_of_the_wrong_type_is_damage_only_on_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let line = |ty: &str, uuid: &str, parent: &str, content: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"type":"{ty}","uuid":"{uuid}","sessionId":"s","timestamp":"2026-02-11T10:00:00.000Z","message":{{"role":"user","content":{content}}}}}"#
        )
    };
    let lines = [
        line("user", "u1", "null", r#""hello""#),
        line("progress", "p1", r#""u1""#, r#"{"odd":1}"#),
        line("user", "u2", r#""p1""#, r#"{"odd":1}"#),
        line("user", "u3", r#""p1""#, r#"[{"type":"text","text":"ok"}]"#),
    ];
    let file = common::temp_file(dir.path(), "s.jsonl", (lines.join("\n") + "\n").as_bytes());
    let out = run(&["check", "--json", &file]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let findings = out.json()["findings"].as_array().unwrap().clone();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let f = &findings[0];
    let column = lines[2].find(r#""content":{"#).unwrap() + r#""content":"#.len() + 1;
    assert_eq!(
        (f["code"].as_str(), f["line"].as_u64(), f["column"].as_u64()),
        (Some("invalid_field"), Some(3), Some(column as u64))
    );
    assert!(f["message"].as_str().unwrap().starts_with("message.content: invalid type: map"), "{f}");
}
