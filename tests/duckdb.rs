//! `rows` as an engine reads it: each table of every format (testdata and the real sessions
//! beside the checkout) is written to a file, loaded with DuckDB's
//! `read_json(..., format='newline_delimited')` with no schema hints, and the SQL answers
//! must equal `stats --json` and `check --json` exactly.
//!
//! DuckDB comes from PyPI (`python3 -m pip install --user duckdb`; `.ci/run` installs it).
//! Missing, the test skips; under CI=true (or ARCTURN_REQUIRE_DUCKDB=1) it fails.

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::process::{Command, Stdio};

use common::{cmd, prereq};
use serde_json::Value;

const TABLES: [&str; 5] = ["entries", "calls", "tools", "spans", "sessions"];

/// The SQL, run by DuckDB's Python module; prints one JSON document of answers.
const QUERIES: &str = r#"
import duckdb, json, sys
d = sys.argv[1]
con = duckdb.connect()
def t(name):
    return f"read_json('{d}/{name}.ndjson', format='newline_delimited')"
def q(sql):
    return con.execute(sql).fetchall()
out = {"version": duckdb.__version__}
out["types"] = {n: {r[0]: r[1] for r in q(f"DESCRIBE SELECT * FROM {t(n)}")} for n in
    ["entries", "calls", "tools", "spans", "sessions"]}
out["calls"] = {r[0]: list(r[1:]) for r in q(f"""
    SELECT file, count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
           sum(cache_write_tokens), sum(total_tokens), sum(cost), count(cost)
    FROM {t('calls')} GROUP BY file""")}
out["tools"] = [list(r) for r in q(f"""
    SELECT file, coalesce(tool, '?'), count(*) FILTER (WHERE counted),
           count(*) FILTER (WHERE counted AND outcome = 'error')
    FROM {t('tools')} GROUP BY ALL HAVING count(*) FILTER (WHERE counted) > 0 ORDER BY ALL""")]
out["entries"] = {r[0]: r[1] for r in q(f"SELECT file, count(*) FROM {t('entries')} GROUP BY file")}
out["sessions"] = [list(r) for r in q(f"""
    SELECT file, calls, total_tokens, tool_calls, tool_errors, entries FROM {t('sessions')}""")]
out["llm_spans"] = {r[0]: r[1] for r in q(f"""
    SELECT file, count(*) FROM {t('spans')} WHERE span_kind = 'llm_call' GROUP BY file""")}
out["days"] = [list(r) for r in q(f"""
    SELECT strftime(timestamp, '%Y-%m-%d') AS day, coalesce(model, '?'), sum(total_tokens)
    FROM {t('calls')} WHERE timestamp IS NOT NULL GROUP BY ALL ORDER BY ALL LIMIT 3""")]
print(json.dumps(out, default=str))
"#;

fn duckdb_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import duckdb"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        prereq::missing("DuckDB's Python module", "python3 -m pip install --user duckdb", "ARCTURN_REQUIRE_DUCKDB");
    }
    ok
}

fn inputs() -> Vec<&'static str> {
    let mut v = vec!["testdata"];
    if common::root().join("../shared/real").is_dir() {
        v.push("../shared/real");
    } else {
        prereq::missing("../shared/real", "the real session corpus beside the checkout", "ARCTURN_REQUIRE_REAL");
    }
    v
}

/// Run the binary with stdout into a file; testdata's damaged files make exit 2 (`check`: 1).
fn write(args: &[&str], path: &std::path::Path) {
    let f = File::create(path).unwrap();
    let st = cmd().args(args).stdin(Stdio::null()).stdout(f).stderr(Stdio::null()).status().unwrap();
    assert!(matches!(st.code(), Some(0..=2)), "{args:?}: {st}");
}

#[test]
fn duckdb_reads_every_table_and_its_sums_equal_stats() {
    if !duckdb_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs();
    for table in TABLES {
        let mut args = vec!["rows", "--table", table];
        args.extend_from_slice(&inputs);
        write(&args, &dir.path().join(format!("{table}.ndjson")));
    }
    let with = |first: &[&'static str]| {
        let mut a = first.to_vec();
        a.extend_from_slice(&inputs);
        a
    };
    write(&with(&["stats", "--json"]), &dir.path().join("stats.json"));
    write(&with(&["check", "--json"]), &dir.path().join("check.ndjson"));
    write(&with(&["trace", "--json"]), &dir.path().join("trace.ndjson"));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let stats: Value = serde_json::from_str(&read("stats.json")).unwrap();

    let o = Command::new("python3").args(["-c", QUERIES]).arg(dir.path()).output().unwrap();
    assert!(o.status.success(), "duckdb: {}", String::from_utf8_lossy(&o.stderr));
    let db: Value = serde_json::from_slice(&o.stdout).unwrap();

    // Inference found one type per column, the one the schema gives.
    let types = &db["types"];
    for (table, col, want) in [
        ("entries", "entry_id", &["VARCHAR"][..]),
        ("entries", "timestamp", &["TIMESTAMP", "TIMESTAMP WITH TIME ZONE"]),
        ("entries", "on_latest_path", &["BOOLEAN"]),
        ("entries", "depth", &["BIGINT", "UBIGINT"]),
        ("calls", "input_tokens", &["BIGINT", "UBIGINT"]),
        ("calls", "cost", &["DOUBLE"]),
        ("calls", "timestamp", &["TIMESTAMP", "TIMESTAMP WITH TIME ZONE"]),
        ("tools", "duration_ms", &["BIGINT", "UBIGINT"]),
        ("tools", "counted", &["BOOLEAN"]),
        ("spans", "start", &["TIMESTAMP", "TIMESTAMP WITH TIME ZONE"]),
        ("sessions", "total_tokens", &["BIGINT", "UBIGINT"]),
    ] {
        let got = types[table][col].as_str().unwrap_or("(missing)");
        assert!(want.contains(&got), "{table}.{col}: DuckDB inferred {got}, expected one of {want:?}");
    }

    let sessions = stats["sessions"].as_array().unwrap();
    assert!(sessions.len() > 20, "stats read the inputs");
    let mut tool_rows = Vec::new();
    for s in sessions {
        let file = s["file"].as_str().unwrap();
        let u = &s["usage"];
        let got = db["calls"].get(file).cloned().unwrap_or(Value::Null);
        if u["calls"] == 0 {
            assert!(got.is_null(), "{file}: calls rows without calls");
        } else {
            let g = got.as_array().unwrap();
            let ints: Vec<u64> = g[..6].iter().map(|v| v.as_u64().unwrap_or(0)).collect();
            let want: Vec<u64> = ["calls", "input", "output", "cache_read", "cache_write", "total"]
                .iter()
                .map(|k| u[*k].as_u64().unwrap())
                .collect();
            assert_eq!(ints, want, "{file}: count and token sums");
            match (g[6].as_f64(), u["cost"].as_f64()) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{file}: cost {a} vs {b}"),
                // An unknown total: the known calls' costs sum to the lower bound stats
                // reports, and at least one call's cost is null.
                (known, None) => {
                    let bound = u["cost_lower_bound"].as_f64().unwrap_or(0.0);
                    assert!((known.unwrap_or(0.0) - bound).abs() < 1e-9, "{file}: cost lower bound");
                    assert!(g[7].as_u64().unwrap() < u["calls"].as_u64().unwrap(), "{file}: a null cost");
                }
                other => panic!("{file}: cost {other:?}"),
            }
        }
        // A tool a model call issued but no result answered has a stats row of 0 calls (it
        // carries the issuing call's tokens for `--by tool`); the tools table counts results.
        for t in s["tool_calls"].as_array().unwrap().iter().filter(|t| t["calls"] != 0) {
            tool_rows.push(vec![Value::from(file), t["tool"].clone(), t["calls"].clone(), t["errors"].clone()]);
        }
    }
    tool_rows.sort_by(|a, b| (a[0].as_str(), a[1].as_str()).cmp(&(b[0].as_str(), b[1].as_str())));
    let db_tools: Vec<Vec<Value>> = serde_json::from_value(db["tools"].clone()).unwrap();
    assert_eq!(db_tools, tool_rows, "tool calls and errors per tool");

    // The sessions table is stats itself, a row per file in the same order.
    let db_sessions: Vec<Vec<Value>> = serde_json::from_value(db["sessions"].clone()).unwrap();
    assert_eq!(db_sessions.len(), sessions.len());
    for (row, s) in db_sessions.iter().zip(sessions) {
        let tools: (u64, u64) = s["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .fold((0, 0), |a, t| (a.0 + t["calls"].as_u64().unwrap(), a.1 + t["errors"].as_u64().unwrap()));
        let want = vec![
            s["file"].clone(),
            s["usage"]["calls"].clone(),
            s["usage"]["total"].clone(),
            tools.0.into(),
            tools.1.into(),
            s["entries"].clone(),
        ];
        assert_eq!(row, &want);
    }

    // Entry rows are the entries `check` counts.
    let mut checked = 0;
    for doc in read("check.ndjson").lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        let file = doc["file"].as_str().unwrap();
        assert_eq!(db["entries"][file].as_u64().unwrap_or(0), doc["entries"].as_u64().unwrap(), "{file}: entries");
        checked += 1;
    }
    assert_eq!(checked, sessions.len());

    // Span rows are the trace: as many model-call spans per file as `trace --json` has.
    let mut llm: BTreeMap<String, u64> = BTreeMap::new();
    for doc in read("trace.ndjson").lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        let n: u64 = doc["runs"].as_array().unwrap().iter().map(|r| r["llm_calls"].as_u64().unwrap()).sum();
        if n > 0 {
            llm.insert(doc["file"].as_str().unwrap().to_string(), n);
        }
    }
    let db_llm: BTreeMap<String, u64> = serde_json::from_value(db["llm_spans"].clone()).unwrap();
    assert_eq!(db_llm, llm, "model call spans per file");
    assert!(!db["days"].as_array().unwrap().is_empty(), "tokens per day per model: {}", db["days"]);
}
