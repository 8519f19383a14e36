//! Costs as a user meets them: `stats` prices the calls that recorded no cost from the bundled
//! table (data/prices.json), keeps recorded costs, says which (`cost_source`), names models it
//! cannot price, takes `--prices FILE`, and `--max-cost` gates on estimated costs too.
//! Expected amounts are computed here from the table's rates, by hand.

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::Value;

/// An arcturn session with one assistant call per `(model, usage JSON, recorded cost)`.
fn session(dir: &std::path::Path, name: &str, calls: &[(&str, &str, Option<f64>)]) -> String {
    let mut lines = vec![
        r#"{"kind":"session","version":1,"id":"s-cost","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/home/dev/cost"}"#
            .to_string(),
        r#"{"kind":"message","id":"u0","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"go","timestamp":1793610001000}}"#.to_string(),
    ];
    let mut parent = "u0".to_string();
    for (i, (model, usage, cost)) in calls.iter().enumerate() {
        let id = format!("a{i}");
        let usage = match cost {
            Some(c) => format!(
                r#"{},"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":{c}}}}}"#,
                usage.trim_end_matches('}')
            ),
            None => usage.to_string(),
        };
        lines.push(format!(
            r#"{{"kind":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-11-02T09:01:0{i}.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"provider":"p","model":"{model}","usage":{usage},"stopReason":"stop","timestamp":179361006{i}000}}}}"#
        ));
        parent = id;
    }
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_string_lossy().into_owned()
}

fn usage_of(file: &str, extra: &[&str]) -> Value {
    let mut args = vec!["stats", "--json", "-q"];
    args.extend(extra);
    args.push(file);
    json(&args, 0)["sessions"][0]["usage"].clone()
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-9)
}

const MILLION_IN: &str = r#"{"input":1000000,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1000000}"#;

#[test]
fn a_million_input_tokens_cost_the_tables_input_rate() {
    let dir = tempfile::tempdir().unwrap();
    // claude-opus-4-6: $5 per million input tokens (data/prices.json).
    let f = session(dir.path(), "opus.jsonl", &[("claude-opus-4-6", MILLION_IN, None)]);
    let u = usage_of(&f, &[]);
    assert!(close(&u["cost"], 5.0), "{u}");
    assert_eq!(u["cost_source"], "estimated");
    assert!(close(&u["estimated_cost"], 5.0));
    assert_eq!(u["recorded_cost"], Value::Null);
}

#[test]
fn each_part_is_priced_at_its_rate() {
    let dir = tempfile::tempdir().unwrap();
    // claude-haiku-4-5-20251001: $1 input, $5 output, $0.10 cache read, $1.25 cache write.
    let usage = r#"{"input":1000,"output":2000,"cacheRead":30000,"cacheWrite":4000,"totalTokens":37000}"#;
    let f = session(dir.path(), "haiku.jsonl", &[("claude-haiku-4-5-20251001", usage, None)]);
    let want = (1000.0 * 1.0 + 2000.0 * 5.0 + 30000.0 * 0.1 + 4000.0 * 1.25) / 1e6;
    assert!(close(&usage_of(&f, &[])["cost"], want));
}

#[test]
fn a_provider_prefixed_or_dated_name_finds_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(
        dir.path(),
        "names.jsonl",
        &[("anthropic/claude-opus-4-6", MILLION_IN, None), ("claude-opus-4-6-20991231", MILLION_IN, None)],
    );
    let u = usage_of(&f, &[]);
    assert!(close(&u["cost"], 10.0), "{u}");
    assert_eq!(u["cost_source"], "estimated");
}

#[test]
fn long_context_tier_prices_the_whole_call_above_it() {
    let dir = tempfile::tempdir().unwrap();
    // claude-sonnet-4-5: $3 / $15 up to 200k prompt tokens; above, $6 input and $22.50 output.
    let below = r#"{"input":200000,"output":1000,"cacheRead":0,"cacheWrite":0,"totalTokens":201000}"#;
    let above = r#"{"input":150000,"output":1000,"cacheRead":60000,"cacheWrite":0,"totalTokens":211000}"#;
    let f = session(dir.path(), "b.jsonl", &[("claude-sonnet-4-5", below, None)]);
    assert!(close(&usage_of(&f, &[])["cost"], (200000.0 * 3.0 + 1000.0 * 15.0) / 1e6));
    let f = session(dir.path(), "a.jsonl", &[("claude-sonnet-4-5", above, None)]);
    // Prompt 210,000 > 200,000: input $6, output $22.50, cache read $0.60.
    let want = (150000.0 * 6.0 + 1000.0 * 22.5 + 60000.0 * 0.6) / 1e6;
    assert!(close(&usage_of(&f, &[])["cost"], want), "{}", usage_of(&f, &[]));
}

#[test]
fn an_unknown_model_makes_the_cost_unknown_never_zero() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(
        dir.path(),
        "u.jsonl",
        &[
            ("claude-opus-4-6", MILLION_IN, None),
            ("house-model-7", MILLION_IN, None),
            ("house-model-7", MILLION_IN, None),
        ],
    );
    let u = usage_of(&f, &[]);
    assert_eq!(u["cost"], Value::Null, "{u}");
    assert_eq!(u["cost_source"], "unknown");
    assert_eq!(u["unpriced_models"], serde_json::json!(["house-model-7"]));
    assert_eq!(u["unpriced_calls"], 2);
    assert!(close(&u["cost_lower_bound"], 5.0));
    // The human report does not print a cost of 0 either.
    let o = run(&["stats", "-q", &f]);
    let out = stdout(&o);
    assert!(out.contains("≥$5.0000") && out.contains("house-model-7"), "{out}");
    assert!(!out.contains("$0.0000"), "{out}");
}

#[test]
fn recorded_and_estimated_costs_sum_to_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(
        dir.path(),
        "m.jsonl",
        &[("claude-opus-4-6", MILLION_IN, None), ("house-model-7", MILLION_IN, Some(0.25))],
    );
    let u = usage_of(&f, &[]);
    assert_eq!(u["cost_source"], "mixed");
    assert!(close(&u["cost"], 5.25), "{u}");
    assert!(close(&u["recorded_cost"], 0.25));
    assert!(close(&u["estimated_cost"], 5.0));
    // A recorded cost is kept even where the table would say otherwise.
    let f = session(dir.path(), "r.jsonl", &[("claude-opus-4-6", MILLION_IN, Some(1.5))]);
    let u = usage_of(&f, &[]);
    assert_eq!((u["cost_source"].as_str(), u["cost"].as_f64()), (Some("recorded"), Some(1.5)));
}

#[test]
fn prices_file_overrides_the_bundled_table() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "h.jsonl", &[("house-model-7", MILLION_IN, None)]);
    let prices = dir.path().join("prices.json");
    std::fs::write(&prices, r#"{"models": {"house-model-7": {"input": 2.5, "output": 10}}}"#).unwrap();
    let u = usage_of(&f, &["--prices", prices.to_str().unwrap()]);
    assert!(close(&u["cost"], 2.5), "{u}");
    assert_eq!(u["cost_source"], "estimated");
    // The override replaces the table: claude-opus-4-6 is no longer priced.
    let g = session(dir.path(), "o.jsonl", &[("claude-opus-4-6", MILLION_IN, None)]);
    assert_eq!(usage_of(&g, &["--prices", prices.to_str().unwrap()])["cost_source"], "unknown");
}

#[test]
fn bad_prices_file_is_exit_2_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "h.jsonl", &[("house-model-7", MILLION_IN, None)]);
    let prices = dir.path().join("bad.json");
    std::fs::write(&prices, "{\"models\": {\n  \"house-model-7\": {\"input\": \"cheap\", \"output\": 1}\n}}\n")
        .unwrap();
    let o = run(&["stats", "--prices", prices.to_str().unwrap(), &f]);
    assert_eq!(code(&o), 2);
    let want = format!("{}:2:", prices.display());
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    let o = run(&["stats", "--prices", dir.path().join("missing.json").to_str().unwrap(), &f]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn max_cost_fails_on_an_estimated_cost_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "opus.jsonl", &[("claude-opus-4-6", MILLION_IN, None)]);
    let o = run(&["stats", "-q", "--max-cost", "4", &f]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(err.contains("estimated cost") && err.contains("$5.0000") && err.contains("by $1.0000"), "{err}");
    assert_eq!(code(&run(&["stats", "-q", "--max-cost", "6", &f])), 0);
    // Unknown cost whose priced part is already over: over; under: warned, not checked.
    let g =
        session(dir.path(), "u.jsonl", &[("claude-opus-4-6", MILLION_IN, None), ("house-model-7", MILLION_IN, None)]);
    assert_eq!(code(&run(&["stats", "-q", "--max-cost", "4", &g])), 1);
    let o = run(&["stats", "--max-cost", "6", &g]);
    assert_eq!(code(&o), 0);
    assert!(stderr(&o).contains("house-model-7") && stderr(&o).contains("not checked"), "{}", stderr(&o));
}

#[test]
fn pi_files_keep_their_recorded_cost() {
    let p = "../shared/real/agentlogs/pi/crud.jsonl";
    if !std::path::Path::new(p).exists() {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "{p} is missing");
        return;
    }
    let u = usage_of(p, &[]);
    assert_eq!(u["cost_source"], "recorded");
    // pi's own figures: 0.019335 + 0.017860000000000004 + ... summed by the file's calls.
    assert!(u["cost"].as_f64().is_some_and(|c| c > 0.0));
}
