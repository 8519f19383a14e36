//! Time windows and groups as a user meets them: `stats --since/--until` (since inclusive,
//! until exclusive; a bare `--until` date includes its whole day), `--timezone`, `--by` every
//! key with totals equal to the plain report's, refused dates, and the one context estimate
//! that `stats` and `context` share.

#[path = "support/mod.rs"]
mod common;
use common::*;
use serde_json::Value;

/// An arcturn session whose assistant calls happen at the given instants (None: no timestamp),
/// each with 1,000 input tokens of claude-opus-4-6 and one `bash` tool call.
fn session(dir: &std::path::Path, name: &str, cwd: &str, at: &[Option<&str>]) -> String {
    let mut lines = vec![
        format!(r#"{{"kind":"session","version":1,"id":"s-{name}","timestamp":"2026-11-29T00:00:00.000Z","cwd":"{cwd}"}}"#),
        r#"{"kind":"message","id":"u0","parentId":null,"timestamp":"2026-11-29T00:00:01.000Z","message":{"role":"user","content":"go"}}"#.to_string(),
    ];
    let mut parent = "u0".to_string();
    for (i, t) in at.iter().enumerate() {
        let id = format!("a{i}");
        let ts = t.map(|t| format!(r#""timestamp":"{t}","#)).unwrap_or_default();
        lines.push(format!(
            r#"{{"kind":"message","id":"{id}","parentId":"{parent}",{ts}"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c{i}","name":"bash","arguments":{{"cmd":"ls"}}}}],"provider":"anthropic","model":"claude-opus-4-6","usage":{{"input":1000,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1000}},"stopReason":"toolUse"}}}}"#
        ));
        parent = id;
    }
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_string_lossy().into_owned()
}

const TIMES: [Option<&str>; 4] = [
    Some("2026-11-29T23:30:00.000Z"),
    Some("2026-11-30T00:00:00.000Z"),
    Some("2026-11-30T12:00:00.000Z"),
    Some("2026-12-01T00:00:00.000Z"),
];

fn calls(args: &[&str]) -> u64 {
    let mut a = vec!["stats", "--json", "-q"];
    a.extend(args);
    json(&a, 0)["total"]["usage"]["calls"].as_u64().unwrap()
}

#[test]
fn since_is_inclusive_until_is_exclusive_and_a_bare_until_date_is_its_whole_day() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "w.jsonl", "/p", &TIMES);
    let utc = ["--timezone", "UTC"];
    assert_eq!(calls(&[&f]), 4);
    // 2026-11-30 in UTC: the calls at 00:00 and 12:00; 12-01T00:00 is the next day.
    assert_eq!(calls(&[utc[0], utc[1], "--since", "2026-11-30", "--until", "2026-11-30", &f]), 2);
    // An instant: since includes it, until excludes it.
    assert_eq!(calls(&[utc[0], utc[1], "--since", "2026-11-30T12:00:00Z", &f]), 2);
    assert_eq!(calls(&[utc[0], utc[1], "--until", "2026-11-30T12:00:00Z", &f]), 2);
    assert_eq!(calls(&[utc[0], utc[1], "--since", "2026-11-30T00:00", "--until", "2026-11-30T00:00:01", &f]), 1);
    // The same day in Berlin (UTC+1) starts at 23:00 UTC on the 29th: the 23:30 call is in it,
    // and ends at 23:00 UTC on the 30th: the midnight call of 12-01 is not.
    let berlin = ["--timezone", "Europe/Berlin", "--since", "2026-11-30", "--until", "2026-11-30"];
    let mut a = berlin.to_vec();
    a.push(&f);
    assert_eq!(calls(&a), 3);
}

#[test]
fn a_call_at_2330_utc_is_on_the_next_day_in_berlin() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "w.jsonl", "/p", &TIMES[..1]);
    let doc = json(&["stats", "--json", "-q", "--by", "day", "--timezone", "Europe/Berlin", &f], 0);
    assert_eq!(doc["rows"][0]["key"], "2026-11-30", "{doc}");
    let doc = json(&["stats", "--json", "-q", "--by", "day", "--timezone", "UTC", &f], 0);
    assert_eq!(doc["rows"][0]["key"], "2026-11-29");
    // The plain report's per-day table follows the zone too.
    let doc = json(&["stats", "--json", "-q", "--timezone", "Europe/Berlin", &f], 0);
    assert_eq!(doc["sessions"][0]["by_day"][0]["day"], "2026-11-30");
}

#[test]
fn calls_without_a_timestamp_are_left_out_of_a_window_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path(), "n.jsonl", "/p", &[Some("2026-11-30T10:00:00.000Z"), None]);
    assert_eq!(calls(&[&f]), 2, "no window: every call counts");
    let doc = json(&["stats", "--json", "-q", "--timezone", "UTC", "--since", "2026-11-01", &f], 0);
    assert_eq!(doc["total"]["usage"]["calls"], 1);
    assert_eq!(doc["total"]["undated_calls"], 1);
    assert_eq!(doc["sessions"][0]["undated_calls"], 1);
    let doc = json(&["stats", "--json", "-q", "--by", "day", &f], 0);
    let keys: Vec<&Value> = doc["rows"].as_array().unwrap().iter().map(|r| &r["key"]).collect();
    assert_eq!(keys.last(), Some(&&Value::Null), "the undated row comes last: {doc}");
}

#[test]
fn a_window_keeps_only_sessions_with_calls_in_it() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path(), "old.jsonl", "/a", &[Some("2026-10-01T10:00:00.000Z")]);
    session(dir.path(), "new.jsonl", "/b", &[Some("2026-11-30T10:00:00.000Z")]);
    let d = dir.path().to_str().unwrap();
    let doc = json(&["stats", "--json", "-q", "--timezone", "UTC", "--since", "2026-11-01", d], 0);
    let files: Vec<&str> = doc["sessions"].as_array().unwrap().iter().map(|s| s["file"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 1);
    assert!(files[0].ends_with("new.jsonl"));
}

#[test]
fn every_group_has_totals_equal_to_the_plain_report() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path(), "one.jsonl", "/proj/one", &TIMES);
    session(dir.path(), "two.jsonl", "/proj/two", &TIMES[1..3]);
    let d = dir.path().to_str().unwrap();
    let plain = json(&["stats", "--json", "-q", "--timezone", "UTC", d], 0)["total"]["usage"].clone();
    assert_eq!(plain["calls"], 6);
    let expect = |by: &str, keys: &[&str]| {
        let doc = json(&["stats", "--json", "-q", "--timezone", "UTC", "--by", by, d], 0);
        assert_eq!((doc["schema_version"].as_u64(), doc["by"].as_str()), (Some(1), Some(by)));
        assert_eq!(doc["total"]["usage"], plain, "--by {by}");
        let rows = doc["rows"].as_array().unwrap();
        let got: Vec<&str> = rows.iter().map(|r| r["key"].as_str().unwrap_or("(none)")).collect();
        assert_eq!(got, keys, "--by {by}");
        if by != "tool" {
            for k in ["calls", "input", "total"] {
                let sum: u64 = rows.iter().map(|r| r["usage"][k].as_u64().unwrap()).sum();
                assert_eq!(plain[k], sum, "--by {by}: rows add up to the total ({k})");
            }
            let cost: f64 = rows.iter().map(|r| r["usage"]["cost"].as_f64().unwrap()).sum();
            assert!((cost - plain["cost"].as_f64().unwrap()).abs() < 1e-9);
        }
        doc
    };
    expect("day", &["2026-11-29", "2026-11-30", "2026-12-01"]);
    // 2026-11-29 is a Sunday: ISO week 48; the 30th starts week 49.
    expect("week", &["2026-W48", "2026-W49"]);
    expect("month", &["2026-11", "2026-12"]);
    expect("model", &["claude-opus-4-6"]);
    expect("project", &["/proj/one", "/proj/two"]);
    expect("agent", &["arcturn"]);
    let s = expect("session", &[&format!("{d}/one.jsonl"), &format!("{d}/two.jsonl")]);
    assert_eq!(s["rows"][0]["format"], "arcturn");
    // Every call issued `bash`: its row holds their usage; its runs are the results (none here).
    let t = expect("tool", &["bash"]);
    assert_eq!(t["rows"][0]["usage"]["calls"], 6);
    assert_eq!(t["rows"][0]["usage"]["cost_source"], "estimated");
    // The human table has the same rows.
    let o = run(&["stats", "--by", "week", "--timezone", "UTC", d]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("2026-W48") && stdout(&o).contains("Usage by week"), "{}", stdout(&o));
}

#[test]
fn impossible_dates_and_unknown_zones_are_usage_errors() {
    for args in [
        &["--since", "2026-02-31"][..],
        &["--until", "2026-02-30T10:00"],
        &["--since", "yesterday"],
        &["--since", "3y"],
        &["--timezone", "Mars/Olympus_Mons"],
        &["--since", "2026-12-01", "--until", "2026-11-01"],
    ] {
        let mut a = vec!["stats"];
        a.extend(args);
        a.push(D);
        let o = run(&a);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}

#[test]
fn relative_times_count_back_from_now() {
    // The testdata calls are from November 2026 or earlier; "the last hour" holds none of them
    // unless the clock says otherwise, and a window of a million weeks holds them all.
    let all = calls(&[D]);
    assert_eq!(calls(&["--since", "1000000w", D]), all);
    let o = run(&["stats", "--json", "-q", "--until", "1000000w", D]);
    assert_eq!(code(&o), 0);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["total"]["usage"]["calls"], 0);
}

/// Every session file under testdata: `stats` and `context` give one estimate at the latest leaf.
#[test]
fn stats_and_context_share_one_estimate_on_every_testdata_file() {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("testdata")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&d)).unwrap() {
            let p = d.join(e.unwrap().file_name());
            if std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&p).is_dir() {
                dirs.push(p);
            } else if p.to_string_lossy().ends_with(".jsonl") {
                files.push(p.to_string_lossy().into_owned());
            }
        }
    }
    assert!(files.len() > 20, "{files:?}");
    let mut compared = 0;
    for f in &files {
        let s = run(&["stats", "--json", "-q", f]);
        let c = run(&["context", "--json", "-q", f]);
        let (Ok(s), Ok(c)) = (serde_json::from_slice::<Value>(&s.stdout), serde_json::from_slice::<Value>(&c.stdout))
        else {
            continue;
        };
        let Some(sc) = s["sessions"].get(0).map(|x| &x["context"]) else { continue };
        assert_eq!(sc["estimated_tokens"], c["estimated_tokens"], "{f}");
        assert_eq!(sc["recorded_tokens"], c["recorded_tokens"], "{f}");
        compared += 1;
    }
    assert!(compared > 20, "only {compared} of {} files compared", files.len());
}
