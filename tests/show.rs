//! `show`: one entry as stored. Every entry of every clean testdata file is compared with its
//! own line parsed independently; ids by full text, unique prefix and crab integer; errors
//! name the file; hostile content never reaches the terminal raw.

mod common;

use common::*;
use serde_json::Value;

/// Files whose ids are unique (damaged_tree has a duplicate id on purpose).
const FILES: &[&str] = &[
    "arcturn/basic.jsonl",
    "arcturn/branched.jsonl",
    "arcturn/crlf.jsonl",
    "arcturn/torn.jsonl",
    "arcturn/no_header.jsonl",
    "arcturn/hostile.jsonl",
    "arcturn/multi_root.jsonl",
    "crab/basic.jsonl",
    "crab/compacted.jsonl",
    "crab/v1_no_meta.jsonl",
];

/// Every tree entry of a file, read naively: (id as typed on the command line, parsed line).
fn entries(path: &str) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let text = text.trim_start_matches('\u{feff}');
    let mut out = Vec::new();
    for line in text.split('\n') {
        let Ok(v) = serde_json::from_str::<Value>(line.trim_end_matches('\r')) else { continue };
        if matches!(v["kind"].as_str(), Some("session" | "meta" | "obs")) || v.get("id").is_none() {
            continue;
        }
        let id = match &v["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push((id, v));
    }
    out
}

/// Every object key with its path, in document order: equal lists mean equal key order.
fn key_order(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}.{k}");
                out.push(p.clone());
                key_order(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                key_order(x, &format!("{at}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    key_order(v, "", &mut out);
    out
}

#[test]
fn json_output_is_exactly_the_stored_line() {
    for f in FILES {
        let path = testdata(f);
        let all = entries(&path);
        assert!(!all.is_empty(), "{f}");
        for (id, line) in &all {
            let out = run(&["show", "--json", &path, id]);
            assert_eq!(out.code, 0, "{f} {id}: {}", out.stderr);
            assert_eq!(out.stdout.trim_end().lines().count(), 1, "{f} {id}: --json is compact");
            let shown: Value = out.json();
            assert_eq!(&shown, line, "{f} {id}: the parsed line");
            assert_eq!(keys(&shown), keys(line), "{f} {id}: keys in file order");
        }
    }
}

#[test]
fn human_output_is_pretty_json_in_file_order() {
    let path = testdata("arcturn/branched.jsonl");
    let want = entries(&path).into_iter().find(|(id, _)| id == "1c5da707").unwrap().1;
    let out = run(&["show", "--color", "never", &path, "1c5da707"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("{\n  \""), "pretty, indented:\n{}", out.stdout);
    assert!(out.stdout.lines().count() > 10);
    let shown: Value = serde_json::from_str(&out.stdout).expect("human output is JSON too");
    assert_eq!(shown, want);
    assert_eq!(keys(&shown), keys(&want), "keys in file order");
    // The top-level keys appear in the order the file has them.
    let top: Vec<&str> =
        out.stdout.lines().filter(|l| l.starts_with("  \"")).map(|l| l.split('"').nth(1).unwrap()).collect();
    let file_top: Vec<&str> = want.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(top, file_top);
}

#[test]
fn ids_by_prefix_and_by_type() {
    let path = testdata("arcturn/branched.jsonl");
    let full = run(&["show", "--json", &path, "1c5da707"]);
    let prefix = run(&["show", "--json", &path, "1c5da"]);
    assert_eq!(prefix.code, 0, "{}", prefix.stderr);
    assert_eq!(prefix.json(), full.json(), "a unique prefix finds the entry");
    assert_eq!(prefix.json()["id"], "1c5da707");

    // Several ids of branched.jsonl start with "1" (156393d8, 1c5da707, 10a48b36, ...).
    let ambiguous = run(&["show", &path, "1"]);
    assert_eq!(ambiguous.code, 2);
    assert!(ambiguous.stdout.is_empty());
    assert!(ambiguous.stderr.contains(&path) && ambiguous.stderr.contains("ambiguous"), "{}", ambiguous.stderr);

    let crab = testdata("crab/basic.jsonl");
    let three = run(&["show", "--json", &crab, "3"]);
    assert_eq!(three.code, 0, "{}", three.stderr);
    let doc = three.json();
    assert_eq!(doc["id"], 3, "crab ids stay integers");
    assert_eq!(doc["parent_id"], 1);
    assert_eq!(doc["message"]["role"], "assistant");

    for (file, id) in [(&path, "nosuch"), (&crab, "2"), (&crab, "99999999999999999999")] {
        let out = run(&["show", file, id]);
        assert_eq!(out.code, 2, "{file} {id}");
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains(file.as_str()) && out.stderr.contains("no entry"), "{}", out.stderr);
    }
    let missing = run(&["show", "testdata/nosuch.jsonl", "a"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("testdata/nosuch.jsonl: no such file or directory"), "{}", missing.stderr);
}

#[test]
fn hostile_content_is_escaped() {
    let path = testdata("arcturn/hostile.jsonl");
    let mut saw_escape = false;
    for (id, _) in entries(&path) {
        for json in [false, true] {
            let mut args = vec!["show", "--color", "never", path.as_str(), id.as_str()];
            if json {
                args.insert(1, "--json");
            }
            let out = run(&args);
            assert_eq!(out.code, 0, "{id}: {}", out.stderr);
            for c in out.stdout.chars().chain(out.stderr.chars()) {
                let bad = (c.is_control() && c != '\n')
                    || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
                    || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}');
                assert!(!bad, "{id} (json {json}) printed raw {:?}", c);
            }
            saw_escape |= out.stdout.contains("\\u001b");
            // Escaped, not dropped: the text still parses to what the file holds.
            serde_json::from_str::<Value>(&out.stdout).expect("still JSON");
        }
    }
    assert!(saw_escape, "ESC is shown as \\u001b");
    let ids = entries(&path);
    let osc = ids.iter().find(|(_, v)| v.to_string().contains("\\u001b]52;")).expect("an OSC 52 entry");
    let osc52 = run(&["show", "--json", &path, &osc.0]);
    assert!(osc52.stdout.contains("\\u001b]52;c;ZXZpbA==\\u0007"), "{}", osc52.stdout);
    let rlo = ids.iter().find(|(_, v)| v.to_string().contains('\u{202e}')).expect("an entry with U+202E");
    let out = run(&["show", &path, &rlo.0]);
    assert!(out.stdout.to_lowercase().contains("\\u202e"), "U+202E as an escape");
}
