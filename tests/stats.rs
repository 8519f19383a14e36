//! `stats`: usage in the three scopes, messages, tools, models, compactions, tree shape, the
//! one-document JSON over many files, and the CI gates. Expected figures were summed by hand
//! (and re-checked with a python one-liner) over the files in testdata/stats.

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::{json, Value};

fn one(file: &str) -> Value {
    let doc = json(&["stats", "--json", "-q", &format!("{D}/{file}")], 0);
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 1);
    doc["sessions"][0].clone()
}

fn usage4(u: &Value) -> [u64; 4] {
    ["input", "output", "cache_read", "cache_write"].map(|k| u[k].as_u64().unwrap_or_else(|| panic!("{k} in {u}")))
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-9)
}

#[test]
fn arcturn_file_scope() {
    let s = one("arcturn-branches.jsonl");
    assert_eq!(s["format"], "arcturn");
    assert_eq!(s["entries"], 18);
    assert_eq!(s["messages"], json!({"user":4,"assistant":7,"tool_result":3,"system":1,"other":0}));
    // Every assistant message on every branch, once.
    assert_eq!(usage4(&s["usage"]), [8623, 712, 27420, 5470]);
    assert_eq!(s["usage"]["calls"], 7);
    // $0.038 recorded by the claude-sonnet-5-5 calls, plus the gpt-5.1 calls priced from the
    // bundled table ($1.25 / $10 per million): 8,000 input and 300 output = $0.013.
    assert!(close(&s["usage"]["cost"], 0.051), "{}", s["usage"]["cost"]);
    assert_eq!(s["usage"]["cost_source"], "mixed");
    assert!(close(&s["usage"]["recorded_cost"], 0.038));
    assert!(close(&s["usage"]["estimated_cost"], 0.013));
    assert_eq!(s["leaves"], 2);
    assert_eq!(s["max_depth"], 14);
}

#[test]
fn arcturn_models_tools_compactions() {
    let s = one("arcturn-branches.jsonl");
    let models = s["by_model"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(
        (&models[0]["provider"], &models[0]["model"], &models[0]["calls"]),
        (&json!("anthropic"), &json!("claude-sonnet-5-5"), &json!(5))
    );
    assert_eq!(usage4(&models[0]["usage"]), [623, 412, 27420, 5470]);
    assert_eq!((&models[1]["model"], &models[1]["calls"]), (&json!("gpt-5.1"), &json!(2)));
    // No cost recorded for that model: estimated from the table (8,000 x $1.25 + 300 x $10 per
    // million).
    assert!(close(&models[1]["usage"]["cost"], 0.013), "{}", models[1]["usage"]);
    assert_eq!(models[1]["usage"]["cost_source"], "estimated");
    assert_eq!(models[0]["usage"]["cost_source"], "recorded");
    let tools: Vec<(String, u64, u64)> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["tool"].as_str().unwrap().to_string(), t["calls"].as_u64().unwrap(), t["errors"].as_u64().unwrap()))
        .collect();
    assert_eq!(tools, [("bash".to_string(), 2, 1), ("read".to_string(), 1, 0)]);
    assert_eq!(
        (&s["compactions"]["count"], &s["compactions"]["tokens_before"], &s["compactions"]["tokens_after"]),
        (&json!(1), &json!(182340), &json!(12011))
    );
    assert_eq!(s["compactions"]["saved"], 170329);
    assert_eq!(s["context_edits"], json!({"passes":1,"elided":1}));
    assert_eq!(s["offloaded"], 1);
}

#[test]
fn arcturn_branch_and_context_scopes() {
    let s = one("arcturn-branches.jsonl");
    let b = &s["branch"];
    assert_eq!((&b["scope"], &b["leaf"], &b["entries"]), (&json!("branch"), &json!("d4000003"), &json!(9)));
    // a1000002, a1000004, a1000006, d4000002.
    assert_eq!(usage4(&b["usage"]), [123, 372, 15420, 5470]);
    assert!(close(&b["usage"]["cost"], 0.0329));
    assert_eq!(b["messages"], json!({"user":2,"assistant":4,"tool_result":2,"system":0,"other":0}));
    // The last call on the branch, d4000002: 20 + 30 + 5000 + 50, recorded; the estimate is the
    // `context` command's at the same (latest) leaf.
    let estimated =
        json(&["context", "--json", "-q", &format!("{D}/arcturn-branches.jsonl")], 0)["estimated_tokens"].clone();
    assert!(estimated.as_u64().is_some_and(|e| e > 0 && e < 5100), "{estimated}");
    assert_eq!(
        s["context"],
        json!({"scope":"context","source":"last_call","tokens":5100,"estimated_tokens":estimated,"recorded_tokens":5100,"at":"d4000002","line":18})
    );
}

#[test]
fn context_is_estimated_after_a_compaction() {
    let s = one("arcturn-compacted.jsonl");
    // Summary "Summary text" (12) + kept tail after upToId: "second question here" (20) +
    // "answer two" (10) = 42 characters -> 11 tokens.
    assert_eq!(s["context"]["source"], "estimate");
    assert_eq!(s["context"]["tokens"], 11);
}

#[test]
fn crab_usage_from_observations() {
    let s = one("session-1792661000878.jsonl");
    assert_eq!(s["format"], "crab");
    assert_eq!(usage4(&s["usage"]), [29120, 526, 20416, 100]);
    // No cost recorded: deepseek prices from the table; crab's prompt counts the cached tokens,
    // so only prompt - cache_read is billed as input. Per call (input, output, cache read,
    // cache write at $0.28, $0.42, $0.028, $0 per million; the reasoner has no cache rates):
    // 441.728 + 256.76 + 291.2 + 1708 + 532 millionths of a dollar.
    assert!(close(&s["usage"]["cost"], 0.003229688), "{}", s["usage"]);
    assert_eq!(s["usage"]["cost_source"], "estimated");
    // A user message carrying only tool results is a tool result.
    assert_eq!(s["messages"], json!({"user":3,"assistant":5,"tool_result":2,"system":0,"other":0}));
    assert_eq!((&s["runs"], &s["observations"], &s["entries"]), (&json!(3), &json!(15), &json!(10)));
    let models: Vec<(&str, u64)> = s["by_model"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["model"].as_str().unwrap(), m["calls"].as_u64().unwrap()))
        .collect();
    assert_eq!(models, [("deepseek-chat", 4), ("deepseek-reasoner", 1)]);
    let bash = &s["tool_calls"][0];
    assert_eq!(
        (&bash["tool"], &bash["calls"], &bash["errors"], &bash["bytes_in"], &bash["bytes_out"], &bash["duration_ms"]),
        (&json!("bash"), &json!(1), &json!(1), &json!(30), &json!(800), &json!(4000))
    );
    let c = &s["compactions"];
    assert_eq!((&c["count"], &c["tokens_before"], &c["tokens_after"]), (&json!(2), &json!(16300), &json!(8000)));
    assert_eq!(c["by_strategy"], json!({"shed":1,"summarize":1}));
    assert_eq!((&s["leaves"], &s["max_depth"]), (&json!(1), &json!(9)));
    // The summarize compaction came after the last call: its tokens_after is the context.
    assert_eq!((&s["context"]["source"], &s["context"]["tokens"]), (&json!("compaction"), &json!(2000)));
    assert_eq!(usage4(&s["branch"]["usage"]), [29120, 526, 20416, 100]);
}

#[test]
fn crab_branches_make_branch_usage_unknown() {
    let s = one("crab-branched.jsonl");
    assert_eq!(s["leaves"], 2);
    assert_eq!(s["branch"]["usage"], Value::Null);
    assert_eq!(s["branch"]["leaf"], 3);
    // prompt 100 + completion 10: crab's prompt already counts cached tokens.
    assert_eq!((&s["context"]["source"], &s["context"]["tokens"]), (&json!("last_call"), &json!(110)));
}

#[test]
fn a_directory_is_one_document_whose_totals_add_up() {
    let doc = json(&["stats", "--json", "-q", D], 0);
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 4);
    let formats: Vec<&str> = sessions.iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert!(formats.contains(&"crab") && formats.contains(&"arcturn"));
    let t = &doc["total"];
    // 8623 + 30 + 100 + 29120, and so on per field (hand sums over the four files).
    assert_eq!(usage4(&t["usage"]), [37873, 1252, 47836, 5570]);
    // 0.051 + 0.0003 + 0.003229688 + 0.0000322 (each file's figure, checked above).
    assert!(close(&t["usage"]["cost"], 0.054561888), "{}", t["usage"]);
    assert_eq!(t["usage"]["cost_source"], "mixed");
    assert_eq!(
        (&t["sessions"], &t["entries"], &t["leaves"], &t["max_depth"]),
        (&json!(4), &json!(36), &json!(6), &json!(14))
    );
    assert_eq!(t["messages"], json!({"user":10,"assistant":16,"tool_result":5,"system":1,"other":0}));
    assert_eq!(t["compactions"]["count"], 4);
    for k in ["input", "output", "cache_read", "cache_write", "total", "calls"] {
        let sum: u64 = sessions.iter().map(|s| s["usage"][k].as_u64().unwrap()).sum();
        assert_eq!(t["usage"][k], sum, "{k}");
    }
    let model_calls: u64 = t["by_model"].as_array().unwrap().iter().map(|m| m["calls"].as_u64().unwrap()).sum();
    assert_eq!(model_calls, 15);
    let day_calls: u64 = t["by_day"].as_array().unwrap().iter().map(|m| m["calls"].as_u64().unwrap()).sum();
    assert_eq!(day_calls, 15);
}

#[test]
fn gates_exit_1_and_name_the_session() {
    let o = run(&["stats", "-q", "--max-tokens", "50000", D]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    // 50,162 - 50,000.
    assert!(err.contains("session-1792661000878.jsonl") && err.contains("by 162"), "{err}");
    assert!(!err.contains("arcturn-branches.jsonl"), "42,225 is under the limit: {err}");
    assert!(stdout(&o).contains("all 4 sessions"), "the stats are printed first");

    let o = run(&["stats", "-q", "--max-cost", "0.03", D]);
    assert_eq!(code(&o), 1);
    // $0.0510 - $0.03.
    assert!(stderr(&o).contains("arcturn-branches.jsonl") && stderr(&o).contains("by $0.0210"), "{}", stderr(&o));

    let o = run(&["stats", "-q", "--json", "--max-tokens", "60000", "--max-cost", "1", D]);
    assert_eq!(code(&o), 0);
    // No recorded cost, but an estimated one under the limit: checked, and quiet.
    let o = run(&["stats", "--max-cost", "1", &format!("{D}/session-1792661000878.jsonl")]);
    assert_eq!(code(&o), 0);
    assert!(!stderr(&o).contains("not checked"), "{}", stderr(&o));
}

#[test]
fn human_report_names_every_scope() {
    let o = run(&["stats", &format!("{D}/arcturn-compacted.jsonl")]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    for want in [
        "Tokens",
        "file",
        "branch",
        "context",
        "estimate: characters / 4",
        "Messages",
        "Usage by model",
        "1 compaction: 40 → 11 tokens, 29 saved",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let o = run(&["stats", "-q", "--by", "day", D]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.contains("2026-10-22") && out.contains("2026-11-02") && out.contains("37,873"), "{out}");
    let o = run(&["stats", "-q", "--by", "model", D]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("deepseek-reasoner"));
}

#[test]
fn damaged_and_unreadable_inputs_exit_2_after_printing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    let good = std::fs::read_to_string(format!("{}/{D}/arcturn-compacted.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(2, "{not json");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let o = run(&["stats", "--json", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["sessions"][0]["messages"]["user"], 2);
    let o = run(&["stats", "--json", "/nonexistent/x.jsonl", &format!("{D}/crab-branched.jsonl")]);
    assert_eq!(code(&o), 2);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["total"]["sessions"], 1);
}

#[test]
fn many_generated_files_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        std::fs::read_to_string(format!("{}/{D}/session-1792661000878.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("s{i:02}.jsonl")), &src).unwrap();
    }
    let doc = json(&["stats", "--json", "-q", dir.path().to_str().unwrap()], 0);
    assert_eq!(doc["total"]["sessions"], 40);
    assert_eq!(doc["total"]["usage"]["input"], 40 * 29120);
    let names: Vec<&str> = doc["sessions"].as_array().unwrap().iter().map(|s| s["file"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "input order is kept");
}

const GATE_HEADER: &str =
    r#"{"kind":"session","version":1,"id":"s-gate","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#;

/// A session of assistant messages with these `usage` objects (raw JSON), each a child of
/// the one before.
fn usage_session(dir: &std::path::Path, usages: &[&str]) -> String {
    let mut text = format!("{GATE_HEADER}\n");
    let mut parent = "null".to_string();
    for (k, u) in usages.iter().enumerate() {
        text.push_str(&format!(
            r#"{{"kind":"message","id":"m{k}","parentId":{parent},"timestamp":"2026-11-02T09:00:0{k}.000Z","message":{{"role":"assistant","content":"ok","usage":{u}}}}}"#
        ));
        text.push('\n');
        parent = format!("\"m{k}\"");
    }
    let p = dir.join("s.jsonl");
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn token_sums_saturate_and_flag_usage_overflow_so_no_gate_is_bypassed() {
    let dir = tempfile::tempdir().unwrap();
    // Two calls of 2^63 input tokens: a wrapping sum would be 0 and pass any budget.
    let big = r#"{"input":9223372036854775808,"output":0,"cacheRead":0,"cacheWrite":0}"#;
    let p = usage_session(dir.path(), &[big, big]);
    let out = run(&["stats", "--json", "--max-tokens", "1000", &p]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let doc = serde_json::from_slice::<Value>(&out.stdout).unwrap();
    let u = &doc["sessions"][0]["usage"];
    assert_eq!((u["input"].as_u64(), u["total"].as_u64()), (Some(u64::MAX), Some(u64::MAX)), "{u}");
    assert_eq!(u["usage_overflow"], true);
    assert!(stderr(&out).contains("usage_overflow"), "{}", stderr(&out));
    // Costs held at the largest double, never infinite (JSON has no infinity).
    let huge = r#"{"input":1,"cost":{"total":1.5e308}}"#;
    let p = usage_session(dir.path(), &[huge, huge]);
    let out = run(&["stats", "--json", "--max-cost", "5", &p]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let doc = serde_json::from_slice::<Value>(&out.stdout).unwrap();
    let u = &doc["sessions"][0]["usage"];
    assert_eq!((u["cost"].as_f64(), &u["usage_overflow"]), (Some(f64::MAX), &json!(true)), "{u}");
}

#[test]
fn negative_usage_is_invalid_usage_and_never_lowers_a_gate() {
    let dir = tempfile::tempdir().unwrap();
    let p = usage_session(
        dir.path(),
        &[r#"{"input":600,"output":0,"cost":{"total":0.6}}"#, r#"{"input":-500,"output":500,"cost":{"total":-0.5}}"#],
    );
    // Counted as 0: 600 + 500 tokens and $0.6, over both budgets.
    let out = run(&["stats", "--json", "--max-tokens", "1000", "--max-cost", "0.55", &p]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let doc = serde_json::from_slice::<Value>(&out.stdout).unwrap();
    let u = &doc["sessions"][0]["usage"];
    assert_eq!((u["input"].as_u64(), u["output"].as_u64(), u["total"].as_u64()), (Some(600), Some(500), Some(1100)));
    assert!(close(&u["cost"], 0.6), "{u}");
    assert!(stderr(&out).contains("invalid_usage"), "{}", stderr(&out));
    // `check` calls it an error on that line, and the entry is kept.
    let out = run(&["check", "--json", &p]);
    assert_eq!(code(&out), 1);
    let doc = serde_json::from_slice::<Value>(&out.stdout).unwrap();
    assert_eq!(doc["entries"], 2);
    let f = doc["findings"].as_array().unwrap().iter().find(|f| f["code"] == "invalid_usage").unwrap();
    assert_eq!((&f["line"], &f["severity"]), (&json!(3), &json!("error")), "{f}");
    assert!(f["message"].as_str().unwrap().contains("`input` is -500"), "{f}");
}

#[test]
fn names_that_differ_inside_a_character_share_only_their_directory() {
    // `é` and `è` share their first UTF-8 byte: a byte-wise common prefix ends inside a
    // character, and the table must cut names at the last `/` before it.
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a");
    std::fs::create_dir(&sub).unwrap();
    let session = std::fs::read(format!("{}/{D}/arcturn-branches.jsonl", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let names = [sub.join("é.jsonl"), sub.join("è.jsonl")];
    for n in &names {
        std::fs::write(n, &session).unwrap();
    }
    let args: Vec<&str> =
        ["stats", "--color", "never"].into_iter().chain(names.iter().map(|n| n.to_str().unwrap())).collect();
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let table = stdout(&o);
    let rows: Vec<&str> = table.lines().filter(|l| l.contains(".jsonl")).collect();
    assert!(rows.iter().any(|r| r.contains("│ é.jsonl") || r.trim_start().starts_with("é.jsonl")), "{table}");
    assert!(rows.iter().any(|r| r.contains("│ è.jsonl") || r.trim_start().starts_with("è.jsonl")), "{table}");
    assert!(!table.contains("a/é.jsonl"), "the shared directory is dropped: {table}");
}
