//! `context`: the materialized branch (FORMATS.md 1.6) and the crab compaction replay.
//! Expected message lists and token counts were worked out by hand (and the estimate with a
//! separate Python script over the test file), never copied from the program.

use std::process::Command;

use serde_json::{json, Value};

const REVIEW: &str = "testdata/export/arcturn-review.jsonl";
const OFFPATH: &str = "testdata/export/arcturn-offpath.jsonl";
const CRAB: &str = "testdata/export/crab-review.jsonl";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"))
        .args(args)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

fn context(file: &str, id: Option<&str>) -> Value {
    let mut args = vec!["--json", "context", file];
    args.extend(id);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "stderr: {err}");
    serde_json::from_str(&out).expect("one JSON document")
}

/// `(entry_id, role, synthetic, elided)` per message, the CLI.md contract.
fn messages(doc: &Value) -> Vec<(Value, String, bool, bool)> {
    doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["entry_id"].clone(),
                m["role"].as_str().unwrap().to_string(),
                m["synthetic"].as_bool().unwrap(),
                m["elided"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn m(id: Value, role: &str, synthetic: bool, elided: bool) -> (Value, String, bool, bool) {
    (id, role.to_string(), synthetic, elided)
}

#[test]
fn arcturn_latest_folds_compaction_elides_and_skips_the_refusal() {
    let doc = context(REVIEW, None);
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["file"], REVIEW);
    assert_eq!(doc["format"], "arcturn");
    assert_eq!(doc["leaf"], "e25");
    assert_eq!(
        messages(&doc),
        vec![
            m(json!("e14"), "user", true, false),
            m(json!("e10"), "user", false, false),
            m(json!("e11"), "assistant", false, false),
            m(json!("e12"), "toolResult", false, false),
            m(json!("e13"), "assistant", false, false),
            m(json!("e16"), "user", false, false),
            m(json!("e18"), "user", false, false),
            m(json!("e19"), "assistant", false, false),
            m(json!("e20"), "toolResult", false, true),
            m(json!("e21"), "assistant", false, false),
            m(json!("e22"), "toolResult", false, false),
            m(json!("e24"), "assistant", false, false),
        ]
    );
    assert_eq!(doc["skipped"], json!([{"entry_id": "e17", "reason": "refusal", "line": 18}]));
    assert_eq!(doc["todos"], json!([{"text": "fix add", "done": true}, {"text": "add mul", "done": false}]));
    assert_eq!(doc["plan"], "1. add mul\n2. test it");
    assert_eq!(doc["model"], json!({"provider": "anthropic", "id": "claude-sonnet-5-5"}));
    assert_eq!(doc["elided"], json!(["c05"]));
    // e11: kept tail of a stripTailThinking compaction; e21: after the first result the
    // context-edit pass touched (e20). e19 comes before it and keeps its thinking.
    assert_eq!(doc["withheld_thinking"], json!(["e11", "e21"]));
    assert_eq!(doc["estimated_tokens"], 1462);
}

#[test]
fn arcturn_other_leaf_and_before_the_compaction() {
    let doc = context(REVIEW, Some("b01"));
    let ids: Vec<Value> = messages(&doc).into_iter().map(|m| m.0).collect();
    assert_eq!(
        ids,
        vec![json!("e14"), json!("e10"), json!("e11"), json!("e12"), json!("e13"), json!("e16"), json!("b01")]
    );
    assert_eq!(doc["skipped"], json!([]));
    assert_eq!(doc["elided"], json!([]));
    assert_eq!(doc["withheld_thinking"], json!(["e11"]));

    let doc = context(REVIEW, Some("e13"));
    let ids: Vec<String> = messages(&doc).into_iter().map(|m| m.0.as_str().unwrap().to_string()).collect();
    let expected: Vec<String> = (1..=13).map(|i| format!("e{i:02}")).collect();
    assert_eq!(ids, expected);
    assert_eq!(doc["todos"], Value::Null);
    assert_eq!(doc["withheld_thinking"], json!([]));
    assert!(messages(&doc).iter().all(|m| !m.2 && !m.3));
}

#[test]
fn refusal_folded_by_no_compaction_is_listed_only_on_its_path() {
    let doc = context(REVIEW, Some("e18"));
    assert_eq!(doc["skipped"][0]["entry_id"], "e17");
    let doc = context(REVIEW, Some("e16"));
    assert_eq!(doc["skipped"], json!([]));
}

#[test]
fn compaction_target_off_path_folds_everything_and_only_the_last_summary_survives() {
    // k1's upToId a2 is on another branch: everything before k1 is folded.
    let doc = context(OFFPATH, Some("a4"));
    assert_eq!(messages(&doc), vec![m(json!("k1"), "user", true, false), m(json!("a4"), "user", false, false)]);
    // k2 folds up to a4, including k1's summary.
    let doc = context(OFFPATH, None);
    assert_eq!(
        messages(&doc),
        vec![
            m(json!("k2"), "user", true, false),
            m(json!("a5"), "assistant", false, false),
            m(json!("a6"), "user", false, false),
        ]
    );
    // "summary two" = 11, "answer after it" = 15, "after the second compaction" = 27 characters.
    assert_eq!(doc["estimated_tokens"], 3 + 4 + 7);

    let (code, out, _) = run(&["--json", "check", OFFPATH]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(codes, vec!["compaction_target_not_ancestor"]);
    assert_eq!(report["findings"][0]["id"], "k1");
}

#[test]
fn crab_replays_shed_and_summarize_events() {
    let doc = context(CRAB, None);
    assert_eq!(doc["format"], "crab");
    assert_eq!(doc["leaf"], 13);
    let msgs = messages(&doc);
    assert_eq!(msgs[0], m(Value::Null, "user", true, false));
    assert_eq!(doc["messages"][0]["obs_line"], 27);
    let ids: Vec<Value> = msgs[1..].iter().map(|m| m.0.clone()).collect();
    assert_eq!(ids, vec![json!(8), json!(9), json!(10), json!(11), json!(12), json!(13)]);
    assert_eq!(doc["elided"], json!(["call_00_a1b2"]));

    // Before the summarize event: message 4's result is a placeholder.
    let doc = context(CRAB, Some("11"));
    let msgs = messages(&doc);
    let ids: Vec<Value> = msgs.iter().map(|m| m.0.clone()).collect();
    assert_eq!(ids, [1, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(|i| json!(i)).to_vec());
    let elided: Vec<Value> = msgs.iter().filter(|m| m.3).map(|m| m.0.clone()).collect();
    assert_eq!(elided, vec![json!(4)]);
    assert!(msgs.iter().all(|m| !m.2));
    assert_eq!(doc["estimated_tokens"], 1737);

    // Before the shed event nothing is elided.
    let doc = context(CRAB, Some("7"));
    assert!(messages(&doc).iter().all(|m| !m.3));
    assert_eq!(doc["elided"], json!([]));
}

#[test]
fn human_output_shows_stubs_withheld_thinking_state_and_tokens() {
    let (code, out, _) = run(&["context", REVIEW]);
    assert_eq!(code, 0);
    assert!(out.starts_with("context at e25 (line 27): 12 messages sent, 1 skipped\n"), "{out}");
    assert!(out.contains("[thinking withheld] → bash cargo llvm-cov"), "{out}");
    assert!(out.contains("[context-edited: the \"read\" result (6240 characters) was elided"), "{out}");
    assert!(out.contains("skipped e17 (line 18): refusal, not sent"), "{out}");
    assert!(out.contains("  [ ] add mul\n"), "{out}");
    assert!(out.contains("model: anthropic/claude-sonnet-5-5\n"), "{out}");
    assert!(out.contains("estimated context: ~1.5k tokens (5828 characters"), "{out}");
}

#[test]
fn hostile_text_is_sanitized_in_the_terminal() {
    let (code, out, _) = run(&["-q", "context", "testdata/hostile/hostile.jsonl"]);
    assert_eq!(code, 0);
    assert!(!out.contains('\x1b') && !out.contains('\u{9b}') && !out.contains('\u{202e}'), "{out:?}");
    assert!(out.contains("\\e[31mred"), "{out}");
}

#[test]
fn unknown_id_is_a_usage_error() {
    let (code, out, err) = run(&["context", REVIEW, "nope"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("no entry with id `nope`"), "{err}");
}
