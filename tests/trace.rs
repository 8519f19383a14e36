//! `trace`: runs, statuses, call counts, usage and failing spans, against hand-checked values
//! from testdata/stats (crab runs with `ts` in all three forms; an arcturn tree with branches).

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::{json, Value};

fn crab() -> Value {
    json(&["trace", "--json", "-q", &format!("{D}/session-1792661000878.jsonl")], 0)
}

fn col<'a>(runs: &'a Value, key: &str) -> Vec<&'a Value> {
    runs.as_array().unwrap().iter().map(|r| &r[key]).collect()
}

#[test]
fn crab_runs_statuses_and_counts() {
    let t = crab();
    assert_eq!(t["schema_version"], 1);
    assert_eq!(t["format"], "crab");
    let runs = &t["runs"];
    assert_eq!(col(runs, "run_id"), [&json!("r1"), &json!("r2"), &json!("r3")]);
    assert_eq!(col(runs, "status"), [&json!("complete"), &json!("interrupted"), &json!("open")]);
    assert_eq!(col(runs, "stop_reason"), [&json!("end_turn"), &json!("cancelled"), &Value::Null]);
    assert_eq!(col(runs, "llm_calls"), [&json!(2), &json!(2), &json!(1)]);
    assert_eq!(col(runs, "tool_calls"), [&json!(1), &json!(1), &json!(0)]);
    assert_eq!(col(runs, "recorded_llm_calls"), [&json!(2), &json!(2), &Value::Null]);
    assert_eq!(col(runs, "errors"), [&json!(0), &json!(1), &json!(0)]);
}

#[test]
fn crab_usage_maps_prompt_and_completion() {
    let runs = crab()["runs"].clone();
    // r1: 5120+5300 prompt, 96+150 completion, 4096+5120 cache read.
    assert_eq!(runs[0]["usage"], json!({"input":10420,"output":246,"cache_read":9216,"cache_write":0}));
    assert_eq!(runs[1]["usage"], json!({"input":11700,"output":80,"cache_read":5200,"cache_write":0}));
    assert_eq!(runs[2]["usage"], json!({"input":7000,"output":200,"cache_read":6000,"cache_write":100}));
    let s = &runs[0]["spans"][0];
    assert_eq!(s["kind"], "llm_call");
    assert_eq!((s["provider"].as_str(), s["model"].as_str()), (Some("deepseek"), Some("deepseek-chat")));
}

#[test]
fn crab_timestamps_in_all_three_forms() {
    let runs = crab()["runs"].clone();
    let base = 1_792_661_000_878i64;
    // Numbers (r1), "<n>ms" strings (r2), ISO 8601 (r3: 2026-10-22T09:30:00Z).
    assert_eq!(runs[0]["start_ms"], base + 22);
    assert_eq!(runs[1]["start_ms"], base + 10_000);
    assert_eq!(runs[2]["start_ms"], 1_792_661_400_000i64);
    assert_eq!(runs[0]["duration_ms"], 3200);
    assert_eq!(runs[1]["duration_ms"], 7700);
    // Open: until the last span seen (the cache_probe event 1.5 s in).
    assert_eq!(runs[2]["duration_ms"], 1500);
    let starts: Vec<i64> =
        runs[1]["spans"].as_array().unwrap().iter().map(|s| s["start_ms"].as_i64().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "spans in ts order: {starts:?}");
}

#[test]
fn crab_failing_aborted_and_event_spans() {
    let runs = crab()["runs"].clone();
    let spans = runs[1]["spans"].as_array().unwrap();
    let kinds: Vec<&str> = spans.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["llm_call", "tool_call", "event", "llm_call"]);
    let tool = &spans[1];
    assert_eq!(tool["outcome"], "error");
    assert_eq!(tool["error"], "exit status 101: test metrics::json failed");
    assert_eq!(
        (&tool["tool"], &tool["call_seq"], &tool["bytes_in"], &tool["bytes_out"]),
        (&json!("bash"), &json!(1), &json!(30), &json!(800))
    );
    assert_eq!((&tool["args_digest"], &tool["result_digest"]), (&json!("1b2c3d"), &json!("e4f5a6")));
    assert_eq!(spans[2]["obs"], "compaction");
    assert_eq!(spans[2]["strategy"], "shed");
    assert_eq!(spans[2]["shed"], json!(["call_00_a1b2"]));
    assert_eq!(spans[3]["outcome"], "aborted");
    assert!(spans[3].get("error").is_none());
    let probe = &runs[2]["spans"][2];
    assert_eq!(
        (&probe["kind"], &probe["obs"], &probe["hit"], &probe["keys"]),
        (&json!("event"), &json!("cache_probe"), &json!(true), &json!(3))
    );
    assert_eq!(probe["duration_ms"], Value::Null);
}

#[test]
fn arcturn_latest_branch() {
    let t = json(&["trace", "--json", &format!("{D}/arcturn-branches.jsonl")], 0);
    assert_eq!(t["leaf"], "d4000003");
    let runs = &t["runs"];
    assert_eq!(col(runs, "run_id"), [&json!("a1000001"), &json!("d4000001")]);
    assert_eq!(col(runs, "status"), [&json!("complete"), &json!("complete")]);
    assert_eq!(col(runs, "llm_calls"), [&json!(3), &json!(1)]);
    assert_eq!(col(runs, "tool_calls"), [&json!(2), &json!(0)]);
    assert_eq!(col(runs, "errors"), [&json!(1), &json!(0)]);
    // a1000002, a1000004, a1000006: 3+40+60 in, 112+80+150 out.
    assert_eq!(runs[0]["usage"], json!({"input":103,"output":342,"cache_read":10420,"cache_write":5420}));
    let first = &runs[0]["spans"][0];
    // From the user message (09:00:05.000) to the assistant entry (09:00:09.400).
    assert_eq!((&first["start_ms"], &first["duration_ms"]), (&json!(1_793_610_005_000i64), &json!(4400)));
    let bash = &runs[0]["spans"][3];
    assert_eq!(
        (&bash["tool"], &bash["outcome"], &bash["argument"]),
        (&json!("bash"), &json!("error"), &json!("cargo test"))
    );
    assert!(bash["error"].as_str().unwrap().starts_with("error: test add ... FAILED"));
    // 0.0209 + 0.004 + 0.006
    assert!((runs[0]["cost"].as_f64().unwrap() - 0.0309).abs() < 1e-9);
}

#[test]
fn arcturn_other_branch_with_leaf() {
    let t = json(&["trace", "--json", "--leaf", "c3000004", &format!("{D}/arcturn-branches.jsonl")], 0);
    let runs = &t["runs"];
    assert_eq!(col(runs, "run_id"), [&json!("a1000001"), &json!("b2000001"), &json!("c3000003")]);
    assert_eq!(col(runs, "status"), [&json!("complete"), &json!("complete"), &json!("interrupted")]);
    assert_eq!(col(runs, "stop_reason"), [&json!("stop"), &json!("error"), &json!("aborted")]);
    let spans = runs[1]["spans"].as_array().unwrap();
    let what: Vec<String> =
        spans.iter().map(|s| format!("{}:{}", s["kind"].as_str().unwrap(), s["obs"].as_str().unwrap_or(""))).collect();
    assert_eq!(what, ["llm_call:", "tool_call:", "llm_call:", "event:compaction", "event:context_edit"]);
    assert_eq!(spans[2]["error"], "overloaded_error: the server is busy");
    assert_eq!((&spans[3]["tokens_before"], &spans[3]["tokens_after"]), (&json!(182340), &json!(12011)));
    assert_eq!(runs[0]["spans"][5]["obs"], "operator");
}

#[test]
fn filters_select_runs() {
    let f = format!("{D}/session-1792661000878.jsonl");
    let t = json(&["trace", "--json", "-q", "--errors", &f], 0);
    assert_eq!(col(&t["runs"], "run_id"), [&json!("r2")]);
    let t = json(&["trace", "--json", "-q", "--run", "r3", &f], 0);
    assert_eq!(col(&t["runs"], "run_id"), [&json!("r3")]);
    let t = json(&["trace", "--json", "--run", "d400", &format!("{D}/arcturn-branches.jsonl")], 0);
    assert_eq!(col(&t["runs"], "run_id"), [&json!("d4000001")]);
    let o = run(&["trace", "-q", "--run", "nope", &f]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no run `nope`"), "{}", stderr(&o));
}

#[test]
fn human_output_is_a_sanitized_tree() {
    let o = run(&["trace", "-q", &format!("{D}/session-1792661000878.jsonl"), &format!("{D}/arcturn-branches.jsonl")]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    for want in [
        "run r1 complete (end_turn)",
        "run r2 interrupted (cancelled)",
        "run r3 open",
        "✗ exit status 101",
        "tool read",
        "session: 3 runs (1 complete, 1 interrupted, 1 open) · 5 llm calls · 2 tool calls",
        "run a1000001 complete (stop)",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // The tool output carried an escape sequence: shown, never emitted.
    assert!(!out.contains('\x1b'));
    assert!(out.contains("\\e[31m"));
}

#[test]
fn file_without_observations_has_no_runs() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, "{\"kind\":\"meta\",\"format_version\":2,\"created\":\"1792661000878ms\"}\n{\"kind\":\"message\",\"id\":1,\"parent_id\":null,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n").unwrap();
    let t = json(&["trace", "--json", p.to_str().unwrap()], 0);
    assert_eq!(t["runs"], json!([]));
    let o = run(&["trace", p.to_str().unwrap()]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("no runs"));
}

/// An arcturn branch that starts before any prompt, as the rules in `trace` say: operator
/// messages before the first prompt belong to the first run; a model call before any prompt
/// starts a run of its own (its entry's id), holding the events before it; a branch of
/// events only is one run of them, from the first event to the last.
#[test]
fn arcturn_entries_before_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let line = |id: &str, parent: Option<&str>, sec: u32, body: &str| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"kind":"message","id":"{id}","parentId":{parent},"timestamp":"2026-11-03T14:00:{sec:02}.000Z",{body}}}"#
        )
    };
    let operator =
        |text: &str| format!(r#""message":{{"role":"system","content":[{{"type":"text","text":"{text}"}}]}}"#);
    let user = r#""message":{"role":"user","content":"Fix the build."}"#;
    let reply = r#""message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"provider":"anthropic","model":"claude-sonnet-5-5","usage":{"input":3,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":8},"stopReason":"stop"}"#;
    let compaction = |id: &str, parent: &str, sec: u32| {
        format!(
            r#"{{"kind":"compaction","id":"{id}","parentId":"{parent}","timestamp":"2026-11-03T14:00:{sec:02}.000Z","summary":"s","upToId":"{parent}","tokensBefore":900,"tokensAfter":100}}"#
        )
    };
    let header = r#"{"kind":"session","version":1,"id":"s-1","timestamp":"2026-11-03T14:00:00.000Z","cwd":"/w"}"#;
    let write = |name: &str, lines: &[String]| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("{header}\n{}\n", lines.join("\n"))).unwrap();
        json(&["trace", "--json", p.to_str().unwrap()], 0)
    };
    let kinds = |run: &Value| -> Vec<String> {
        let spans = run["spans"].as_array().unwrap();
        spans.iter().map(|s| format!("{}{}", s["kind"].as_str().unwrap(), s["obs"].as_str().unwrap_or(""))).collect()
    };

    // Two operator messages, then the prompt: one run, the prompt's, holding both.
    let t = write(
        "operator-first.jsonl",
        &[
            line("o1", None, 1, &operator("Be brief.")),
            line("o2", Some("o1"), 2, &operator("Turn budget: 15.")),
            line("u1", Some("o2"), 3, user),
            line("a1", Some("u1"), 5, reply),
        ],
    );
    let runs = t["runs"].as_array().unwrap();
    assert_eq!(col(&t["runs"], "run_id"), [&json!("u1")]);
    assert_eq!(kinds(&runs[0]), ["eventoperator", "eventoperator", "llm_call"]);
    assert_eq!(runs[0]["spans"][1]["text"], "Turn budget: 15.");
    assert_eq!(runs[0]["prompt"], "Fix the build.");

    // An operator message, then a model call with no prompt before it, then a prompt: the
    // call starts a run of its own (no prompt), holding the operator message.
    let t = write(
        "call-first.jsonl",
        &[
            line("o1", None, 1, &operator("Be brief.")),
            line("a0", Some("o1"), 4, reply),
            line("u1", Some("a0"), 6, user),
            line("a1", Some("u1"), 9, reply),
        ],
    );
    let runs = t["runs"].as_array().unwrap();
    assert_eq!(col(&t["runs"], "run_id"), [&json!("a0"), &json!("u1")]);
    assert_eq!(kinds(&runs[0]), ["eventoperator", "llm_call"]);
    assert_eq!(runs[0]["prompt"], Value::Null);
    // From the model call's entry (its run starts at its time) to its last entry.
    assert_eq!((&runs[0]["start_ms"], &runs[0]["duration_ms"]), (&json!(1_793_714_404_000i64), &json!(0)));
    assert_eq!(kinds(&runs[1]), ["llm_call"]);

    // Events only: one run of them, named by the first, lasting from the first to the last.
    let t = write(
        "events-only.jsonl",
        &[
            line("o1", None, 1, &operator("Be brief.")),
            compaction("c1", "o1", 7),
            line("o2", Some("c1"), 9, &operator("Go on.")),
        ],
    );
    let runs = t["runs"].as_array().unwrap();
    assert_eq!(col(&t["runs"], "run_id"), [&json!("o1")]);
    assert_eq!(kinds(&runs[0]), ["eventoperator", "eventcompaction", "eventoperator"]);
    assert_eq!((&runs[0]["start_ms"], &runs[0]["duration_ms"]), (&json!(1_793_714_401_000i64), &json!(8000)));
    assert_eq!((&runs[0]["llm_calls"], &runs[0]["status"]), (&json!(0), &json!("complete")));
}

/// The fields of crab events this tool does not know are read from each event's line when
/// the trace is written: every event keeps its own, in the order written, less what every
/// span says (`kind`, `run_id`, `ts`, `obs`, `outcome`, `duration_ms`, ...), whatever their
/// type; `rows --table spans` names each event by its `obs`.
#[test]
fn many_unknown_crab_events_keep_their_own_fields() {
    let n = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("{\"kind\":\"meta\",\"format_version\":2,\"created\":\"1793784600412ms\"}\n");
    text.push_str("{\"kind\":\"obs\",\"run_id\":\"r1\",\"ts\":1793784600452,\"obs\":\"turn_start\"}\n");
    text.push_str("{\"kind\":\"message\",\"id\":1,\"parent_id\":null,\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go\"}]}}\n");
    for k in 0..n {
        text.push_str(&format!(
            "{{\"kind\":\"obs\",\"run_id\":\"r1\",\"ts\":{},\"obs\":\"probe_{}\",\"key\":\"k\\u00e9{k}\",\"outcome\":\"Ok\",\"hits\":{k},\"nested\":{{\"a\":[{k},null,true]}},\"ratio\":{}.5}}\n",
            1793784600460u64 + k,
            k % 5,
            k % 3
        ));
    }
    text.push_str(
        "{\"kind\":\"obs\",\"run_id\":\"r1\",\"ts\":1793784900000,\"obs\":\"turn_end\",\"outcome\":\"Ok\"}\n",
    );
    let f = dir.path().join("events.jsonl");
    std::fs::write(&f, text).unwrap();
    let f = f.to_string_lossy().into_owned();
    let t = json(&["trace", "--json", "-q", &f], 0);
    let spans = t["runs"][0]["spans"].as_array().unwrap();
    assert_eq!(spans.len(), n as usize);
    for (k, sp) in spans.iter().enumerate() {
        let own: Vec<(&String, &Value)> =
            sp.as_object().unwrap().iter().skip_while(|(key, _)| key.as_str() != "obs").collect();
        let want = json!({
            "obs": format!("probe_{}", k % 5),
            "key": format!("k\u{e9}{k}"),
            "hits": k,
            "nested": {"a": [k, null, true]},
            "ratio": (k % 3) as f64 + 0.5,
        });
        let want: Vec<(&String, &Value)> = want.as_object().unwrap().iter().collect();
        assert_eq!(own, want, "event {k}");
    }
    let rows = run(&["rows", "--table", "spans", "-q", &f]);
    let names: Vec<String> = stdout(&rows)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["span_kind"] == "event")
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, (0..n).map(|k| format!("probe_{}", k % 5)).collect::<Vec<_>>());
}
