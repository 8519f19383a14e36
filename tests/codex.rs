//! Codex CLI rollouts (FORMATS-REAL.md section 3): every command on the real sample, usage
//! counted once per request from re-emitted cumulative counters, typed prompts versus
//! injected context, compaction with a replacement history, rollback as an abandoned
//! branch, files without `session_meta`, unknown record types, torn last lines, and
//! `.jsonl.zst` inputs. Expected figures were worked out by hand from the files (the
//! synthetic ones in testdata/codex were written for these figures).

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::{json, Value};

const REAL: &str = "../shared/real/agentlogs/codex/crud.jsonl";
const C: &str = "testdata/codex";

/// The real sample, or `None` (a skip) when it is missing; under CI=true a missing sample
/// fails the test instead.
fn real() -> Option<&'static str> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(REAL);
    if path.is_file() {
        return Some(REAL);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{} is missing and CI=true", path.display());
    }
    println!("skipped: {} not found", path.display());
    None
}

fn stats(file: &str) -> Value {
    let doc = json(&["stats", "--json", "-q", file], 0);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 1);
    doc["sessions"][0].clone()
}

fn usage(u: &Value) -> [u64; 5] {
    ["input", "output", "cache_read", "cache_write", "total"]
        .map(|k| u[k].as_u64().unwrap_or_else(|| panic!("{k} in {u}")))
}

fn models(s: &Value) -> Vec<(String, u64)> {
    s["by_model"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["model"].as_str().unwrap_or("?").to_string(), m["calls"].as_u64().unwrap()))
        .collect()
}

fn finding_codes(file: &str) -> Vec<String> {
    let o = run(&["check", "--json", file]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("check --json is JSON");
    doc["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_command_reads_the_real_rollout() {
    let Some(f) = real() else { return };
    let runs: &[&[&str]] = &[
        &["tree", f],
        &["path", f],
        &["leaves", f],
        &["show", f, "L10"],
        &["check", f],
        &["trace", f],
        &["stats", f],
        &["context", f],
        &["export", f],
        &["export", "--html", f],
        &["query", ".type", f],
        &["sessions", "../shared/real/agentlogs/codex"],
    ];
    for args in runs {
        let o = run(args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(!stdout(&o).is_empty(), "{args:?} printed nothing");
    }
    for cmd in ["tree", "path", "leaves", "check", "trace", "context", "stats"] {
        let doc = json(&[cmd, "--json", f], 0);
        let format = if cmd == "stats" { &doc["sessions"][0]["format"] } else { &doc["format"] };
        assert_eq!(format, "codex", "{cmd}");
    }
}

#[test]
fn real_rollout_usage_counts_each_request_once() {
    let Some(f) = real() else { return };
    let s = stats(f);
    // Changed cumulative counters at lines 12, 18, 25, 32, 38 (lines 15, 21, 28, 35 repeat
    // the one before, line 8 is null). Their last_token_usage: input 9162 + 9351 + 9467 +
    // 9597 + 9680 = 47,257 of which 6656 + 9216 + 9344 + 9472 + 9472 = 44,160 cached;
    // output 144 + 34 + 65 + 34 + 23 = 300. Uncached input 47,257 - 44,160 = 3,097.
    assert_eq!(usage(&s["usage"]), [3097, 300, 44160, 0, 47557]);
    assert_eq!(s["usage"]["calls"], 5);
    // Codex records no cost: it is estimated from the table (gpt-5.2-codex: $1.75 input,
    // $0.175 cache read, $14 output per million): 3,097 x 1.75 + 44,160 x 0.175 + 300 x 14
    // = 17,347.75 millionths of a dollar, ccusage's figure too (bench/README-ccusage.md).
    assert!(s["usage"]["cost"].as_f64().is_some_and(|c| (c - 0.01734775).abs() < 1e-12), "{}", s["usage"]);
    assert_eq!(s["usage"]["cost_source"], "estimated");
    assert_eq!(usage(&s["branch"]["usage"].clone()), [3097, 300, 44160, 0, 47557], "one chain: branch = file");
    assert_eq!(models(&s), [("gpt-5.2-codex".to_string(), 5)]);
    // Line 2 is the developer message, lines 3-4 AGENTS.md and the environment: operator
    // messages; line 5 is the typed prompt (echoed by the user_message on line 6).
    assert_eq!(s["messages"], json!({"user":1,"assistant":5,"tool_result":4,"system":3,"other":0}));
    let tools: Vec<(String, u64, u64)> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["tool"].as_str().unwrap().to_string(), t["calls"].as_u64().unwrap(), t["errors"].as_u64().unwrap()))
        .collect();
    assert_eq!(tools, [("exec_command".to_string(), 3, 0), ("apply_patch".to_string(), 1, 0)]);
    // The context at the tip is the last request: 9680 input (9472 cached) + 23 output.
    assert_eq!(s["context"]["tokens"], 9703);
    assert_eq!(s["context"]["at"], "L37");
}

#[test]
fn real_rollout_trace_is_one_run_of_requests_and_tool_calls() {
    let Some(f) = real() else { return };
    let t = json(&["trace", "--json", f], 0);
    let runs = t["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "one typed prompt, one run");
    let r = &runs[0];
    assert_eq!((&r["llm_calls"], &r["tool_calls"], &r["errors"]), (&json!(5), &json!(4), &json!(0)));
    assert!(r["prompt"].as_str().unwrap().starts_with("create a file `JOKE.md`"));
    assert_eq!(
        usage(
            &json!({"total": 47557, "input": r["usage"]["input"], "output": r["usage"]["output"], "cache_read": r["usage"]["cache_read"], "cache_write": r["usage"]["cache_write"]})
        ),
        [3097, 300, 44160, 0, 47557]
    );
    let llm: Vec<&Value> = r["spans"].as_array().unwrap().iter().filter(|s| s["kind"] == "llm_call").collect();
    assert_eq!(llm.iter().map(|s| s["model"].as_str().unwrap()).collect::<Vec<_>>(), ["gpt-5.2-codex"; 5]);
}

#[test]
fn real_rollout_header_title_and_show() {
    let Some(f) = real() else { return };
    let doc = json(&["sessions", "--json", "../shared/real/agentlogs/codex"], 0);
    let s = &doc["sessions"][0];
    assert_eq!(s["format"], "codex");
    assert_eq!(s["id"], "019bf4b5-e7b0-75a0-8bf2-05fbf1b13c9b");
    assert_eq!(s["cwd"], "/Users/philipp/dev/agentlogs/fixtures");
    assert!(s["title"].as_str().unwrap().starts_with("create a file `JOKE.md`"), "the typed prompt, not AGENTS.md");
    // L10 is one request: its reasoning (line 10) and its function call (line 11).
    let o = run(&["show", "--json", f, "L10"]);
    assert_eq!(code(&o), 0);
    let lines: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let types: Vec<&str> = lines.iter().map(|v| v["payload"]["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["reasoning", "function_call"]);
}

#[test]
fn re_emitted_counters_count_once_and_a_new_segment_is_one_request() {
    let f = format!("{C}/no-meta.jsonl");
    let s = stats(&f);
    // Requests: line 7 (100 in, 40 cached, 10 out), line 8 repeats it, line 12 restarts the
    // counter lower (50, 0, 5: a new segment, still one request), line 16 (80, 80, 7).
    // Input 60 + 50 + 0 = 110 uncached, cache read 40 + 0 + 80 = 120, output 22.
    assert_eq!(usage(&s["usage"]), [110, 22, 120, 0, 252]);
    assert_eq!(s["usage"]["calls"], 3);
    assert_eq!(models(&s), [("m2".to_string(), 2), ("m1".to_string(), 1)], "model of the latest turn_context");
    assert_eq!(s["messages"], json!({"user":1,"assistant":3,"tool_result":1,"system":1,"other":0}));
    assert_eq!(s["tool_calls"][0]["errors"], 1, "`Process exited with code 1` is the only error signal");
}

#[test]
fn a_file_without_session_meta_is_detected_and_damage_is_reported() {
    let f = format!("{C}/no-meta.jsonl");
    let doc = json(&["check", "--json", &f], 0);
    assert_eq!(doc["format"], "codex");
    let codes = finding_codes(&f);
    assert!(codes.contains(&"unknown_kind".to_string()), "{codes:?}");
    assert!(codes.contains(&"torn_last_line".to_string()), "{codes:?}");
    assert_eq!(codes.len(), 2, "{codes:?}");
    let o = run(&["sessions", "--json", C]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"].as_str().unwrap().ends_with("no-meta.jsonl"))
        .unwrap();
    assert_eq!(s["title"], "hello", "the typed prompt, not the environment context");
}

#[test]
fn rollback_leaves_an_abandoned_branch() {
    let f = format!("{C}/rollback.jsonl");
    let t = json(&["tree", "--json", &f], 0);
    let parent = |id: &str| t["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id).unwrap()["parent"].clone();
    // The second turn (line 7) was rolled back by line 12: the next prompt (line 13)
    // attaches to the last surviving entry, line 5.
    assert_eq!(parent("L7"), "L5");
    assert_eq!(parent("L13"), "L5");
    assert_eq!(t["latest"], "L16");
    let leaves = json(&["leaves", "--json", &f], 0);
    let ids: Vec<&str> = leaves["leaves"].as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["L10", "L16"]);
    let s = stats(&f);
    assert_eq!(usage(&s["usage"]), [60, 6, 0, 0, 66], "file: every request once");
    assert_eq!(usage(&s["branch"]["usage"].clone()), [40, 4, 0, 0, 44], "branch: lines 5 and 16");
}

#[test]
fn a_fork_with_a_non_fresh_first_counter_says_usage_is_inherited() {
    let f = format!("{C}/rollback.jsonl");
    assert!(finding_codes(&f).contains(&"inherited_usage".to_string()));
    let o = run(&["check", &f]);
    let said = stdout(&o) + &stderr(&o);
    assert!(said.contains("includes inherited usage, parent not found"), "{said}");
    assert!(stdout(&run(&["tree", &f])).contains("forked from thread-parent"));
    // A fresh first counter (total = last) is not inherited.
    assert!(!finding_codes(&format!("{C}/compacted.jsonl")).contains(&"inherited_usage".to_string()));
}

#[test]
fn compaction_with_replacement_history_is_what_the_model_sees() {
    let f = format!("{C}/compacted.jsonl");
    let ctx = json(&["context", "--json", &f], 0);
    let msgs = ctx["messages"].as_array().unwrap();
    let got: Vec<(Value, bool)> =
        msgs.iter().map(|m| (m["entry_id"].clone(), m["synthetic"].as_bool().unwrap())).collect();
    assert_eq!(got, [(json!("L7"), true), (json!("L9"), false), (json!("L12"), false)]);
    // The summary is the replacement history: "[user] do x" and "[assistant] x done".
    assert_eq!(msgs[0]["chars"], "[user] do x\n\n[assistant] x done".len());
    let s = stats(&f);
    assert_eq!(s["compactions"]["count"], 1);
    assert_eq!(s["compactions"]["provider"], 1, "response_item/compaction is provider-side");
    assert_eq!(code(&run(&["check", &f])), 0, "a compaction that keeps nothing needs no upToId");
    assert!(stdout(&run(&["tree", &f])).contains("one chain of 5 entries"));
}

/// A `.jsonl.zst` copy made here, in a temporary directory.
fn compressed(dir: &std::path::Path, name: &str, from: &str) -> std::path::PathBuf {
    let plain = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(from)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, zstd::stream::encode_all(&plain[..], 3).unwrap()).unwrap();
    path
}

#[test]
fn jsonl_zst_reads_like_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let z = compressed(dir.path(), "rollout-2026-03-01T10-00-00-a.jsonl.zst", &format!("{C}/rollback.jsonl"));
    let zs = stats(z.to_str().unwrap());
    let plain = stats(&format!("{C}/rollback.jsonl"));
    assert_eq!(zs["format"], "codex");
    assert_eq!(zs["usage"], plain["usage"]);
    assert_eq!(zs["entries"], plain["entries"]);
    // Detected by its magic number, whatever the name.
    let odd = compressed(dir.path(), "no-extension", &format!("{C}/rollback.jsonl"));
    assert_eq!(stats(odd.to_str().unwrap())["usage"], plain["usage"]);
    for cmd in ["tree", "trace", "context", "check", "export"] {
        let o = run(&[cmd, z.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{cmd}: {}", stderr(&o));
    }
    let s = json(&["sessions", "--json", dir.path().to_str().unwrap()], 0);
    assert_eq!(s["sessions"].as_array().unwrap().len(), 1, "the walk takes .jsonl.zst, not other names");
    assert_eq!(s["sessions"][0]["format"], "codex");
}

#[test]
fn a_plain_sibling_wins_over_its_zst() {
    let dir = tempfile::tempdir().unwrap();
    compressed(dir.path(), "a.jsonl.zst", &format!("{C}/rollback.jsonl"));
    compressed(dir.path(), "b.jsonl.zst", &format!("{C}/compacted.jsonl"));
    std::fs::copy(format!("{}/{C}/rollback.jsonl", env!("CARGO_MANIFEST_DIR")), dir.path().join("a.jsonl")).unwrap();
    let doc = json(&["stats", "--json", "-q", dir.path().to_str().unwrap()], 0);
    let files: Vec<String> = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| std::path::Path::new(s["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["a.jsonl", "b.jsonl.zst"]);
}

#[test]
fn a_truncated_zst_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let z = compressed(dir.path(), "t.jsonl.zst", &format!("{C}/rollback.jsonl"));
    let b = std::fs::read(&z).unwrap();
    std::fs::write(&z, &b[..b.len() / 2]).unwrap();
    let o = run(&["stats", z.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("zstd"), "{}", stderr(&o));
}

#[test]
fn forced_codex_format_is_accepted() {
    let o = run(&["--input-format", "codex", "stats", "--json", &format!("{C}/compacted.jsonl")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// The output of a compressed file is bounded by `--max-bytes`, read from a file or from
/// standard input: a small file that inflates past it is refused, naming the flag.
#[test]
fn jsonl_zst_decompresses_at_most_max_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plain =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("{C}/rollback.jsonl"))).unwrap();
    // About 4 MiB once decompressed, a few KiB compressed.
    let big = plain.repeat((4 << 20) / plain.len() + 1);
    let z = dir.path().join("big.jsonl.zst");
    let packed = zstd::stream::encode_all(&big[..], 19).unwrap();
    assert!(packed.len() < 64 << 10, "{}", packed.len());
    std::fs::write(&z, &packed).unwrap();
    let z = z.to_str().unwrap();
    let o = run(&["check", "--max-bytes", "1M", z]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("once decompressed") && stderr(&o).contains("--max-bytes"), "{}", stderr(&o));
    let o = cmd().args(["check", "--max-bytes", "1M", "-"]).stdin(std::fs::File::open(z).unwrap()).output().unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Under the limit the same file reads (its repeated ids are the file's own damage).
    let o = run(&["stats", "--json", "--max-bytes", "8M", z]);
    assert!(stdout(&o).contains("\"format\":\"codex\""), "{}", stderr(&o));
}
