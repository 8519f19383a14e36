//! pi sessions (FORMATS-REAL.md section 1): the real files written by pi, read in place from
//! `../shared/real/agentlogs/pi`, and synthetic v1 and v3 files under `testdata/pi/`. Expected
//! values are worked out from the files with pi's own rules (usage as recorded per assistant
//! message; the context after a compaction is its summary, the kept tail from
//! `firstKeptEntryId`, then what follows), never taken from this tool's output.

mod common;

use common::run;
use serde_json::Value;

const REAL: &str = "../shared/real/agentlogs/pi";

/// A real pi file, or a failure under CI when the shared corpus is missing (a visible skip
/// elsewhere).
fn real(name: &str) -> Option<String> {
    let p = format!("{REAL}/{name}");
    if common::root().join(&p).exists() {
        return Some(p);
    }
    common::prereq::missing(&format!("{p} not found"), "check out shared/ beside the crate", "ARCTURN_REQUIRE_SHARED");
    None
}

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    o.json()
}

fn ids(v: &Value, key: &str, field: &str) -> Vec<String> {
    v[key].as_array().unwrap().iter().map(|m| m[field].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_command_reads_every_real_pi_file() {
    for name in ["branched.jsonl", "crud.jsonl", "image.jsonl"] {
        let Some(f) = real(name) else { return };
        for cmd in ["tree", "path", "leaves", "check", "trace", "stats", "context", "export", "sessions"] {
            let target = if cmd == "sessions" { REAL.to_string() } else { f.clone() };
            let o = run(&[cmd, &target]);
            assert_eq!(o.code, 0, "{cmd} {f}: {}", o.stderr);
            assert!(!o.stdout.is_empty(), "{cmd} {f} printed nothing");
        }
        for cmd in ["tree", "path", "leaves", "check", "trace", "context"] {
            assert_eq!(json(&[cmd, "--json", &f])["format"], "pi", "{cmd} {f}");
        }
    }
}

#[test]
fn real_branched_file_has_two_leaves_and_usage_as_pi_records_it() {
    let Some(f) = real("branched.jsonl") else { return };
    let leaves = json(&["leaves", "--json", &f]);
    let lines: Vec<u64> = leaves["leaves"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [11, 16]);
    assert_eq!(leaves["latest"], "2bcf0b7d");
    // Six assistant messages: input 2960+3112+3206+3359+3204+3369, output 121+72+...
    let s = &json(&["stats", "--json", &f])["sessions"][0];
    assert_eq!(s["format"], "pi");
    assert_eq!(s["usage"]["input"], 19_210);
    assert_eq!(s["usage"]["output"], 631);
    assert!((s["usage"]["cost"].as_f64().unwrap() - 0.1118).abs() < 0.0001, "{}", s["usage"]["cost"]);
    // The branch to the tip holds four of them (lines 5, 7, 13, 15).
    assert_eq!(s["branch"]["usage"]["input"], 12_645);
    assert_eq!(s["branch"]["usage"]["output"], 442);
    // Context at the tip: every message on the path, the user's shell command included.
    let c = json(&["context", "--json", &f]);
    assert_eq!(c["messages"].as_array().unwrap().len(), 9);
    assert_eq!(c["model"], "claude-opus-4-5");
}

#[test]
fn real_crud_file_sums_its_input() {
    let Some(f) = real("crud.jsonl") else { return };
    let s = &json(&["stats", "--json", &f])["sessions"][0];
    assert_eq!(s["usage"]["input"], 16_652);
    assert_eq!(s["usage"]["output"], 655);
}

#[test]
fn v3_compaction_keeps_the_tail_from_first_kept_entry() {
    let f = "testdata/pi/v3-compacted.jsonl";
    // At the end of the compacted branch: the summary, the kept tail (a0000006, a0000007:
    // from firstKeptEntryId up to the compaction), then what follows, less the shell command
    // kept out of the context.
    let c = json(&["context", "--json", f, "a000000e"]);
    assert_eq!(ids(&c, "messages", "entry_id"), ["a0000009", "a0000006", "a0000007", "a000000b", "a000000d"]);
    assert_eq!(c["messages"][0]["synthetic"], true);
}

#[test]
fn v3_branch_summary_and_custom_message_are_sent_as_messages() {
    let f = "testdata/pi/v3-compacted.jsonl";
    let c = json(&["context", "--json", f]);
    assert_eq!(
        ids(&c, "messages", "entry_id"),
        ["a0000002", "a0000003", "a0000004", "a0000005", "a000000f", "a0000010", "a0000011", "a0000012"]
    );
    assert_eq!(c["model"], "claude-sonnet-4-5");
    let leaves = json(&["leaves", "--json", f]);
    assert_eq!(ids(&leaves, "leaves", "id"), ["a000000e", "a0000013"]);
    assert_eq!(leaves["latest"], "a0000013", "the tip is the last entry, whatever its type");
}

#[test]
fn v3_labels_attach_to_their_target_and_the_last_one_wins() {
    let tree = json(&["tree", "--json", "testdata/pi/v3-compacted.jsonl"]);
    let nodes = tree["nodes"].as_array().unwrap();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap().clone();
    assert_eq!(node("a0000005")["label"], "checkpoint");
    assert_eq!(node("a0000008")["kind"], "label", "the label entry stays a node");
    let human = run(&["tree", "--color", "never", "testdata/pi/v3-compacted.jsonl"]);
    assert!(human.stdout.contains("[checkpoint]"), "{}", human.stdout);
}

#[test]
fn v3_usage_title_and_unknown_tokens_after() {
    let f = "testdata/pi/v3-compacted.jsonl";
    let s = &json(&["stats", "--json", f])["sessions"][0];
    assert_eq!(s["usage"]["calls"], 5);
    assert_eq!(s["usage"]["input"], 100 + 50 + 60 + 70 + 80);
    assert_eq!(s["usage"]["output"], 20 + 30 + 40 + 10 + 25);
    assert_eq!(s["usage"]["cache_read"], 500 + 600 + 700 + 500);
    assert_eq!(s["usage"]["cache_write"], 500);
    assert!((s["usage"]["cost"].as_f64().unwrap() - 0.024).abs() < 1e-9);
    assert_eq!(s["branch"]["usage"]["input"], 100 + 50 + 80);
    assert_eq!(s["compactions"]["count"], 1);
    assert_eq!(s["compactions"]["tokens_before"], 1800);
    assert_eq!(s["compactions"]["tokens_after"], Value::Null, "pi records no size after: unknown, never 0");
    assert_eq!(
        s["forked_from"], "/home/dev/.pi/agent/sessions/--home-dev-parser--/2026-11-19T09-00-00-000Z_0a1b2c3d.jsonl",
        "parentSession is the fork's origin"
    );
    let out = run(&["export", f]);
    assert!(out.stdout.starts_with("# Parser refactor"), "title from session_info: {}", &out.stdout[..80]);
}

#[test]
fn v1_is_migrated_in_memory_with_synthetic_ids() {
    let f = "testdata/pi/v1-torn.jsonl";
    let tree = json(&["tree", "--json", f]);
    let nodes = tree["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 9, "lines 2-10; the torn line 11 is dropped");
    assert_eq!(tree["roots"], serde_json::json!(["L2"]));
    for (k, n) in nodes.iter().enumerate() {
        assert_eq!(n["id"], format!("L{}", k + 2));
        assert_eq!(n["synthetic_id"], true);
        let parent = if k == 0 { Value::Null } else { Value::from(format!("L{}", k + 1)) };
        assert_eq!(n["parent"], parent, "each entry's parent is the one before it");
    }
    // firstKeptEntryIndex 3 counts parsed lines from the header (0): line 4 is the first kept.
    let c = json(&["context", "--json", f]);
    assert_eq!(ids(&c, "messages", "entry_id"), ["L8", "L4", "L5", "L6", "L7", "L9", "L10"]);
    let s = &json(&["stats", "--json", f])["sessions"][0];
    assert_eq!((s["usage"]["input"].as_u64(), s["usage"]["output"].as_u64()), (Some(100), Some(26)));
    let check = run(&["check", "--json", f]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let findings = check.json()["findings"].as_array().unwrap().clone();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "torn_last_line");
}

#[test]
fn a_type_tagged_file_is_detected_as_pi_and_can_be_forced() {
    let f = "testdata/pi/v1-torn.jsonl";
    assert_eq!(json(&["leaves", "--json", f])["format"], "pi");
    assert_eq!(json(&["leaves", "--json", "--input-format", "pi", f])["format"], "pi");
}

/// A version 1 file big enough to be decoded in parts: a finding about an entry names the
/// entry's made-up id, and that id is made from the entry's line in the whole file.
#[test]
fn v1_findings_name_made_up_ids_from_the_line_in_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        r#"{"type":"session","id":"0b8e6f2a-1111-4c2d-8e3f-222233334444","timestamp":"2025-06-01T09:00:00.000Z","cwd":"/w"}"#,
    );
    text.push('\n');
    let message = format!(
        r#"{{"type":"message","timestamp":"2025-06-01T09:01:00.000Z","message":{{"role":"user","content":"{}","timestamp":1748768460000}}}}"#,
        "x".repeat(2000)
    );
    for _ in 0..4000 {
        text += &message;
        text.push('\n');
    }
    // Line 4002: past the first of the parts an 8 MB file is decoded in.
    text += "{\"type\":\"message\",\"timestamp\":\"2025-06-01T09:01:00.000Z\"}\n";
    text += &message;
    text.push('\n');
    let file = common::temp_file(dir.path(), "v1.jsonl", text.as_bytes());
    let out = run(&["check", "--json", &file]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let findings = out.json()["findings"].as_array().unwrap().clone();
    let f = findings.iter().find(|f| f["code"] == "missing_field").unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!((f["line"].as_u64(), f["id"].as_str()), (Some(4002), Some("L4002")), "{f}");
}
