//! `rows`: every row of every table matches its JSON Schema (docs/schema/rows-<table>.json),
//! every column keeps one type, the counts and sums equal `stats --json` and `check --json`,
//! and the pairing, cost and ordering rules hold on files made for them.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::{prereq, run, temp_file};
use serde_json::Value;

const TABLES: [&str; 5] = ["entries", "calls", "tools", "spans", "sessions"];

/// Every format: the project's testdata and the real sessions beside the checkout.
fn inputs() -> Vec<&'static str> {
    let mut v = vec!["testdata"];
    if common::root().join("../shared/real").is_dir() {
        v.push("../shared/real");
    } else {
        prereq::missing("../shared/real", "the real session corpus beside the checkout", "ARCTURN_REQUIRE_REAL");
    }
    v
}

/// The rows of one table over `inputs`. testdata holds damaged files on purpose: exit 2,
/// with every readable row written.
fn rows(table: &str, inputs: &[&str]) -> Vec<Value> {
    let mut args = vec!["rows", "--table", table];
    args.extend_from_slice(inputs);
    let o = run(&args);
    assert!(o.code == 0 || o.code == 2, "rows --table {table}: exit {}\n{}", o.code, o.stderr);
    assert!(o.stdout.ends_with('\n'), "NDJSON ends with a newline");
    o.ndjson()
}

fn schema(table: &str) -> Value {
    let p = common::root().join(format!("docs/schema/rows-{table}.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).expect("schema file")).expect("schema is JSON")
}

#[test]
fn every_row_of_every_table_matches_its_schema() {
    let inputs = inputs();
    for table in TABLES {
        let schema = schema(table);
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
        let v = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{table}: invalid schema: {e}"));
        let all = rows(table, &inputs);
        assert!(!all.is_empty(), "{table}: no rows");
        for (n, r) in all.iter().enumerate() {
            let errors: Vec<String> = v.iter_errors(r).map(|e| format!("{} at {}", e, e.instance_path())).collect();
            assert!(errors.is_empty(), "{table} row {n} does not match the schema: {errors:?}\n{r}");
        }
        // Every column the schema documents is described, typed, and written.
        let props = schema["properties"].as_object().expect("properties");
        for (name, p) in props {
            assert!(p["description"].as_str().is_some_and(|d| !d.is_empty()), "{table}.{name}: no description");
            assert!(p.get("type").is_some(), "{table}.{name}: no type");
        }
        let first: Vec<&String> = all[0].as_object().expect("row is an object").keys().collect();
        assert_eq!(first, props.keys().collect::<Vec<_>>(), "{table}: columns in the schema's order");
    }
}

/// The JSON type of a value, as an engine infers it: integers and fractions apart.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[test]
fn each_column_keeps_one_flat_type_across_all_rows() {
    let inputs = inputs();
    for table in TABLES {
        let mut types: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
        for r in rows(table, &inputs) {
            for (k, v) in r.as_object().expect("row is an object") {
                types.entry(k.clone()).or_default().insert(kind(v));
            }
        }
        for (col, t) in &types {
            let non_null: Vec<_> = t.iter().filter(|k| **k != "null").collect();
            assert!(non_null.len() <= 1, "{table}.{col} has several types: {t:?}");
            assert!(!t.contains("array") && !t.contains("object"), "{table}.{col} is not flat: {t:?}");
        }
    }
}

fn stats(inputs: &[&str]) -> Value {
    let mut args = vec!["stats", "--json"];
    args.extend_from_slice(inputs);
    let o = run(&args);
    assert!(o.code == 0 || o.code == 2, "stats: exit {}\n{}", o.code, o.stderr);
    o.json()
}

fn by_file(rows: &[Value]) -> BTreeMap<String, Vec<&Value>> {
    let mut m: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for r in rows {
        m.entry(r["file"].as_str().expect("file").to_string()).or_default().push(r);
    }
    m
}

fn sum(rows: &[&Value], col: &str) -> u64 {
    rows.iter().filter_map(|r| r[col].as_u64()).sum()
}

#[test]
fn calls_tokens_and_tool_counts_equal_stats_per_session() {
    let inputs = inputs();
    let st = stats(&inputs);
    let calls = rows("calls", &inputs);
    let tools = rows("tools", &inputs);
    let sessions = rows("sessions", &inputs);
    let (calls, tools) = (by_file(&calls), by_file(&tools));
    let sessions_of_stats = st["sessions"].as_array().expect("sessions");
    assert_eq!(sessions.len(), sessions_of_stats.len(), "a sessions row per file stats read");
    for (s, row) in sessions_of_stats.iter().zip(&sessions) {
        let file = s["file"].as_str().expect("file");
        assert_eq!(row["file"], file, "sessions rows in the order of the inputs");
        let c = calls.get(file).cloned().unwrap_or_default();
        let u = &s["usage"];
        assert_eq!(c.len() as u64, u["calls"].as_u64().unwrap(), "{file}: calls");
        for (col, key) in [
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_tokens", "cache_read"),
            ("cache_write_tokens", "cache_write"),
            ("total_tokens", "total"),
        ] {
            assert_eq!(sum(&c, col), u[key].as_u64().unwrap(), "{file}: {col}");
            assert_eq!(row[col], u[key], "{file}: sessions.{col}");
        }
        let cost: Option<f64> =
            c.iter().filter_map(|r| r["cost"].as_f64()).fold(None, |a, b| Some(a.unwrap_or(0.0) + b));
        let unknown = c.iter().any(|r| r["cost"].is_null());
        match (cost, u["cost"].as_f64()) {
            (Some(a), Some(b)) if !unknown => {
                assert!((a - b).abs() < 1e-9, "{file}: cost {a} vs {b}");
                assert_eq!(row["cost"], u["cost"], "{file}: sessions.cost");
            }
            // A call of unknown cost makes the sum unknown; the known ones give its lower bound.
            (known, None) if unknown || c.is_empty() => {
                assert!(row["cost"].is_null(), "{file}: sessions.cost");
                let bound = u["cost_lower_bound"].as_f64();
                assert_eq!(bound.is_some(), unknown, "{file}: a lower bound when some cost is unknown");
                assert!((known.unwrap_or(0.0) - bound.unwrap_or(0.0)).abs() < 1e-9, "{file}: lower bound");
                assert_eq!(row["cost_lower_bound"], u["cost_lower_bound"], "{file}: sessions.cost_lower_bound");
            }
            other => panic!("{file}: cost known on one side only: {other:?}"),
        }
        assert_eq!(row["cost_source"], u["cost_source"].as_str().unwrap_or("unknown"), "{file}: cost_source");
        // Per tool: calls counted and errors.
        let t = tools.get(file).cloned().unwrap_or_default();
        let mut per_tool: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for r in t.iter().filter(|r| r["counted"] == true) {
            let e = per_tool.entry(r["tool"].as_str().unwrap_or("?").to_string()).or_default();
            e.0 += 1;
            e.1 += u64::from(r["outcome"] == "error");
        }
        let expected: BTreeMap<String, (u64, u64)> = s["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            // A tool issued but never answered has a stats row of 0 calls (for `--by tool`).
            .filter(|t| t["calls"] != 0)
            .map(|t| {
                (t["tool"].as_str().unwrap().to_string(), (t["calls"].as_u64().unwrap(), t["errors"].as_u64().unwrap()))
            })
            .collect();
        assert_eq!(per_tool, expected, "{file}: tool calls and errors per tool");
        assert_eq!(row["tool_calls"].as_u64(), Some(expected.values().map(|v| v.0).sum()), "{file}");
    }
}

#[test]
fn entry_rows_are_the_entries_check_counts() {
    let inputs = inputs();
    let entries = rows("entries", &inputs);
    let entries = by_file(&entries);
    let mut args = vec!["check", "--json"];
    args.extend_from_slice(&inputs);
    let o = run(&args);
    let mut checked = 0;
    for doc in o.ndjson() {
        let file = doc["file"].as_str().expect("file");
        let n = entries.get(file).map_or(0, Vec::len);
        assert_eq!(n as u64, doc["entries"].as_u64().expect("entries"), "{file}");
        checked += 1;
    }
    assert!(checked > 20, "check read the inputs ({checked})");
}

/// An arcturn session with a tool call answered, one answered with an error, one never
/// answered, one in a refused turn, and a result that names no call.
const TOOLS: &str = concat!(
    r#"{"kind":"session","version":1,"id":"s1","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#,
    "\n",
    r#"{"kind":"message","id":"u1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}"#,
    "\n",
    r#"{"kind":"message","id":"a1","parentId":"u1","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"bash","arguments":{}},{"type":"toolCall","id":"c3","name":"edit","arguments":{}}],"provider":"p","model":"m","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":2}}"#,
    "\n",
    r#"{"kind":"message","id":"r1","parentId":"a1","timestamp":"2026-11-02T09:00:02.250Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}}"#,
    "\n",
    r#"{"kind":"message","id":"r2","parentId":"r1","timestamp":"2026-11-02T09:00:03.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"bash","content":[{"type":"text","text":"boom"}],"isError":true,"timestamp":4}}"#,
    "\n",
    r#"{"kind":"message","id":"r9","parentId":"r2","timestamp":"2026-11-02T09:00:04.000Z","message":{"role":"toolResult","toolCallId":"nobody","toolName":"grep","content":[{"type":"text","text":"?"}],"isError":false,"timestamp":5}}"#,
    "\n",
    r#"{"kind":"message","id":"a2","parentId":"r9","timestamp":"2026-11-02T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c4","name":"rm","arguments":{}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"refusal","timestamp":6}}"#,
    "\n",
);

/// The tools table of the session `text`, which exits 0.
fn tool_rows(text: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(dir.path(), "tools.jsonl", text.as_bytes());
    let o = run(&["rows", "--table", "tools", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.ndjson()
}

#[test]
fn tool_rows_pair_calls_with_results_and_name_what_is_missing() {
    let got: Vec<(String, String, bool, Value)> = tool_rows(TOOLS)
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_string();
            (format!("{}:{}", s("tool"), s("call_id")), s("outcome"), r["counted"] == true, r["duration_ms"].clone())
        })
        .collect();
    let want = [
        ("read:c1", "ok", true, Value::from(250)),
        ("bash:c2", "error", true, Value::from(1000)),
        // Never answered: the turn ran, so a result was due.
        ("edit:c3", "missing_result", false, Value::Null),
        // A result no call claims: its own row, counted as stats counts results.
        ("grep:nobody", "ok", true, Value::Null),
        // The turn was refused: no result is expected.
        ("rm:c4", "not_run", false, Value::Null),
    ];
    let want: Vec<(String, String, bool, Value)> =
        want.iter().map(|(a, b, c, d)| (a.to_string(), b.to_string(), *c, d.clone())).collect();
    assert_eq!(got, want);
}

/// A session whose call id `d1` is written three times (twice in one message) and answered
/// four times: each result takes the first call of the id not taken yet, in file order, and
/// the fourth has no call left. The durations say which result each call got.
const SAME_ID: &str = concat!(
    r#"{"kind":"session","version":1,"id":"s2","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#,
    "\n",
    r#"{"kind":"message","id":"a1","parentId":null,"timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"d1","name":"read","arguments":{}},{"type":"toolCall","id":"d1","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}"#,
    "\n",
    r#"{"kind":"message","id":"r1","parentId":"a1","timestamp":"2026-11-02T09:00:02.100Z","message":{"role":"toolResult","toolCallId":"d1","toolName":"read","content":"x","isError":false,"timestamp":2}}"#,
    "\n",
    r#"{"kind":"message","id":"r2","parentId":"r1","timestamp":"2026-11-02T09:00:02.300Z","message":{"role":"toolResult","toolCallId":"d1","toolName":"bash","content":"x","isError":true,"timestamp":3}}"#,
    "\n",
    r#"{"kind":"message","id":"a2","parentId":"r2","timestamp":"2026-11-02T09:00:02.400Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"d1","name":"edit","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":4}}"#,
    "\n",
    r#"{"kind":"message","id":"r3","parentId":"a2","timestamp":"2026-11-02T09:00:02.900Z","message":{"role":"toolResult","toolCallId":"d1","toolName":"edit","content":"x","isError":false,"timestamp":5}}"#,
    "\n",
    r#"{"kind":"message","id":"r4","parentId":"r3","timestamp":"2026-11-02T09:00:03.000Z","message":{"role":"toolResult","toolCallId":"d1","toolName":"grep","content":"x","isError":false,"timestamp":6}}"#,
    "\n",
);

#[test]
fn results_take_the_calls_of_their_id_in_file_order() {
    let got: Vec<(String, String, Value)> = tool_rows(SAME_ID)
        .iter()
        .map(|r| (r["tool"].as_str().unwrap_or("-").to_string(), r["outcome"].to_string(), r["duration_ms"].clone()))
        .collect();
    let want = [
        ("read", r#""ok""#, Value::from(100)),
        ("bash", r#""error""#, Value::from(300)),
        ("edit", r#""ok""#, Value::from(500)),
        // No call of the id is left: the result is a row of its own.
        ("grep", r#""ok""#, Value::Null),
    ];
    let want: Vec<(String, String, Value)> =
        want.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.clone())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_cost_that_was_not_recorded_is_null_and_unknown_never_zero() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(dir.path(), "tools.jsonl", TOOLS.as_bytes());
    let o = run(&["rows", "--table", "calls", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let calls = o.ndjson();
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0]["cost"].as_f64(), calls[0]["cost_source"].as_str()), (Some(0.5), Some("recorded")));
    assert_eq!((calls[1]["cost"].clone(), calls[1]["cost_source"].as_str()), (Value::Null, Some("unknown")));
    let s = run(&["rows", "--table", "sessions", &f]).ndjson();
    // One call's cost is unknown, so the session's is (as stats says), bounded below by 0.5.
    assert_eq!((s[0]["cost"].as_f64(), s[0]["cost_source"].as_str()), (None, Some("unknown")));
    assert_eq!(s[0]["cost_lower_bound"].as_f64(), Some(0.5));
    assert_eq!(s[0]["calls_with_cost"].as_u64(), Some(1));
    // Entries that are not model calls have no cost source at all.
    let e = run(&["rows", "--table", "entries", &f]).ndjson();
    let sources: Vec<Value> = e.iter().map(|r| r["cost_source"].clone()).collect();
    assert_eq!(
        sources,
        ["null", "\"recorded\"", "null", "null", "null", "\"unknown\""]
            .map(|s| serde_json::from_str::<Value>(s).unwrap())
    );
}

#[test]
fn rows_of_many_files_come_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    // More files than the parallel window, of very different sizes, so that they finish
    // out of order.
    for i in 0..23 {
        let mut body = String::new();
        for _ in 0..(if i % 5 == 0 { 400 } else { 1 }) {
            body.push_str(TOOLS);
        }
        let body = body.replace("\"s1\"", &format!("\"s{i:02}\""));
        temp_file(dir.path(), &format!("f{i:02}.jsonl"), body.as_bytes());
    }
    let d = dir.path().to_str().unwrap();
    let o = run(&["rows", "--table", "sessions", d]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let ids: Vec<String> = o.ndjson().iter().map(|r| r["session_id"].as_str().unwrap().to_string()).collect();
    let want: Vec<String> = (0..23).map(|i| format!("s{i:02}")).collect();
    assert_eq!(ids, want);
    // Each file's entry rows stay together, in file order.
    let e = run(&["rows", "--table", "entries", d]).ndjson();
    let files: Vec<&str> = e.iter().map(|r| r["file"].as_str().unwrap()).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
}

#[test]
fn rows_skip_walked_files_of_no_known_format_and_fail_on_named_ones() {
    let dir = tempfile::tempdir().unwrap();
    temp_file(dir.path(), "a.jsonl", TOOLS.as_bytes());
    let other = temp_file(dir.path(), "b.jsonl", b"{\"hello\":1}\n");
    let o = run(&["rows", "--table", "calls", dir.path().to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("skipped: not a session file of a known format"), "{}", o.stderr);
    assert_eq!(o.ndjson().len(), 2);
    let o = run(&["rows", "--table", "calls", &other]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stdout.is_empty());
}

#[test]
fn damaged_lines_still_give_rows_and_exit_2() {
    let f = "testdata/arcturn/corrupt.jsonl";
    assert!(Path::new(&common::root()).join(f).exists());
    let o = run(&["rows", "--table", "entries", f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    let check = run(&["check", "--json", f]).json();
    assert_eq!(o.ndjson().len() as u64, check["entries"].as_u64().unwrap());
}

/// docs/scale-out.md gives ClickHouse and Spark schemas by hand: each must name exactly the
/// columns of the table's JSON Schema, in its order.
#[test]
fn the_scale_out_guide_declares_every_column_of_every_table() {
    let doc = std::fs::read_to_string(common::root().join("docs/scale-out.md")).unwrap();
    for table in TABLES {
        let schema = schema(table);
        let want: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let start = doc
            .find(&format!("CREATE TABLE rows_{table}\n("))
            .unwrap_or_else(|| panic!("no CREATE TABLE rows_{table}"));
        let body = &doc[start..start + doc[start..].find("\n)").unwrap()];
        let ch: Vec<&str> = body.lines().filter_map(|l| l.trim().strip_prefix('`')?.split('`').next()).collect();
        assert_eq!(ch, want, "ClickHouse rows_{table}");
        let key = format!("    \"{table}\": \"");
        let line = doc.lines().find(|l| l.starts_with(&key)).unwrap_or_else(|| panic!("no Spark schema for {table}"));
        let spark: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        assert_eq!(spark, want, "Spark {table}");
    }
}

/// The rows of a command's only file are written a batch at a time as they are made, not
/// held whole: over a generated session whose rows take several times its size, the peak
/// memory of `rows --table entries` is the load's (that of `--table calls`, the same load
/// with no row to write: the session has no model call) plus far less than the rows it
/// writes (a build that held them peaked at the load plus all of them). Peak RSS from GNU time; two worker
/// threads, so that a batch is the same size on any machine.
#[test]
fn the_rows_of_a_big_file_are_written_as_they_are_made() {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        prereq::missing("/usr/bin/time", "the Debian package `time`", "ARCTURN_REQUIRE_GNU_TIME");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from(
        r#"{"kind":"session","version":1,"id":"s-big","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/tmp/p"}"#,
    );
    body.push('\n');
    let n = 300_000;
    for i in 0..n {
        let parent = if i == 0 { "null".to_string() } else { format!("\"e{}\"", i - 1) };
        body.push_str(&format!(
            r#"{{"kind":"message","id":"e{i}","parentId":{parent},"timestamp":"2026-11-02T09:00:00.000Z","message":{{"role":"user","content":"hi"}}}}"#
        ));
        body.push('\n');
    }
    let file = temp_file(dir.path(), "big.jsonl", body.as_bytes());
    let peak = |table: &str| -> (u64, u64) {
        let report = dir.path().join(format!("{table}.time"));
        let o = Command::new(time)
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(env!("CARGO_BIN_EXE_arcturn-inspect"))
            .args(["rows", "--table", table, &file])
            .env("RAYON_NUM_THREADS", "2")
            .output()
            .unwrap();
        assert!(o.status.success(), "rows --table {table}: {}", String::from_utf8_lossy(&o.stderr));
        let kib = std::fs::read_to_string(&report).unwrap().trim().parse::<u64>().unwrap();
        (kib * 1024, o.stdout.len() as u64)
    };
    let (load, none) = peak("calls");
    assert_eq!(none, 0);
    let (entries, written) = peak("entries");
    assert!(written > 4 * body.len() as u64, "the rows outweigh the file: {written} bytes");
    assert!(
        entries < load + written / 3,
        "rows --table entries peaked at {entries} bytes, the load at {load}: {written} bytes of rows were held"
    );
}
