//! `tree`, `path` and `leaves`: JSON checked against an independent reading of the files,
//! human output against goldens, and the 10^6-deep chain.

mod common;
#[path = "gen/mod.rs"]
mod gen;

use common::*;
use serde_json::Value;
use std::collections::HashMap;

/// An independent, naive reading of a session's tree: what the JSON must say.
struct Oracle {
    ids: Vec<Value>,
    parents: Vec<Value>,
    lines: Vec<u64>,
    kinds: Vec<Value>,
    roles: Vec<Value>,
}

impl Oracle {
    fn read(path: &str) -> Oracle {
        let text = String::from_utf8_lossy(&std::fs::read(root().join(path)).unwrap()).into_owned();
        let text = text.trim_start_matches('\u{feff}');
        let mut o = Oracle { ids: vec![], parents: vec![], lines: vec![], kinds: vec![], roles: vec![] };
        for (n, line) in text.split('\n').enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(line.trim_end_matches('\r')) else { continue };
            if v.get("kind").and_then(Value::as_str) == Some("obs") || v.get("id").is_none() {
                continue;
            }
            if matches!(v.get("kind").and_then(Value::as_str), Some("session" | "meta")) {
                continue;
            }
            o.ids.push(v["id"].clone());
            o.parents.push(v.get("parentId").or_else(|| v.get("parent_id")).cloned().unwrap_or(Value::Null));
            o.lines.push(n as u64 + 1);
            o.kinds.push(v["kind"].clone());
            o.roles.push(v.get("message").map(|m| m["role"].clone()).unwrap_or(Value::Null));
        }
        o
    }

    fn index(&self) -> HashMap<String, usize> {
        self.ids.iter().enumerate().map(|(i, id)| (id.to_string(), i)).collect()
    }

    fn depth(&self, mut i: usize) -> u64 {
        let ix = self.index();
        let mut d = 0;
        while let Some(&p) = ix.get(&self.parents[i].to_string()) {
            d += 1;
            i = p;
        }
        d
    }

    fn children(&self, i: usize) -> Vec<Value> {
        let me = &self.ids[i];
        (0..self.ids.len()).filter(|&j| self.parents[j] == *me).map(|j| self.ids[j].clone()).collect()
    }
}

/// Files whose tree has no damage (cycles and duplicates have their own tests).
const CLEAN: &[&str] = &[
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
    "crab/torn.jsonl",
];

#[test]
fn tree_json_matches_an_independent_reading() {
    for f in CLEAN {
        let path = testdata(f);
        let o = Oracle::read(&path);
        let out = run(&["tree", "--json", &path]);
        assert_eq!(out.code, 0, "{f}: {}", out.stderr);
        let doc = out.json();
        assert_eq!(doc["schema_version"], 1);
        assert_eq!(doc["file"], path.as_str());
        let format = if f.starts_with("crab") { "crab" } else { "arcturn" };
        assert_eq!(doc["format"], format, "{f}");
        assert_eq!(doc["latest"], *o.ids.last().unwrap(), "{f}: latest is the last entry in file order");
        let nodes = doc["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), o.ids.len(), "{f}: one node per entry");
        for (i, n) in nodes.iter().enumerate() {
            assert_eq!(n["id"], o.ids[i], "{f}: nodes in file order");
            assert_eq!(n["parent"], o.parents[i], "{f}");
            assert_eq!(n["line"], o.lines[i], "{f}");
            assert_eq!(n["depth"], o.depth(i), "{f}: depth of {}", o.ids[i]);
            assert_eq!(n["children"], Value::Array(o.children(i)), "{f}: children of {}", o.ids[i]);
            assert_eq!(n["kind"], o.kinds[i], "{f}");
            assert_eq!(n["role"], o.roles[i], "{f}");
        }
        let roots: Vec<Value> = (0..o.ids.len())
            .filter(|&i| !o.index().contains_key(&o.parents[i].to_string()))
            .map(|i| o.ids[i].clone())
            .collect();
        assert_eq!(doc["roots"], Value::Array(roots), "{f}: roots (null and dangling parents)");
    }
}

#[test]
fn leaves_and_paths_match_an_independent_reading() {
    for f in CLEAN {
        let path = testdata(f);
        let o = Oracle::read(&path);
        let out = run(&["leaves", "--json", &path]);
        assert_eq!(out.code, 0, "{f}: {}", out.stderr);
        let doc = out.json();
        let want: Vec<usize> = (0..o.ids.len()).filter(|&i| o.children(i).is_empty()).collect();
        let got = doc["leaves"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{f}");
        for (g, &i) in got.iter().zip(&want) {
            assert_eq!(g["id"], o.ids[i]);
            assert_eq!(g["line"], o.lines[i]);
            assert_eq!(g["depth"], o.depth(i));
            // Every leaf's path walks parent links back to a root, root first.
            let id_text = match &o.ids[i] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            let p = run(&["path", "--json", &path, &id_text]);
            assert_eq!(p.code, 0, "{f} path {id_text}: {}", p.stderr);
            let p = p.json();
            assert_eq!(p["target"], o.ids[i]);
            let entries = p["entries"].as_array().unwrap();
            assert_eq!(entries.len() as u64, o.depth(i) + 1, "{f}: path length of {id_text}");
            assert_eq!(entries.last().unwrap()["id"], o.ids[i]);
            for w in entries.windows(2) {
                assert_eq!(w[1]["parent"], w[0]["id"], "{f}: path links");
                assert_eq!(w[1]["depth"].as_u64().unwrap(), w[0]["depth"].as_u64().unwrap() + 1);
            }
        }
    }
}

#[test]
fn branched_session_facts() {
    // Facts computed by hand in testdata/README.md.
    let doc = run(&["leaves", "--json", "testdata/arcturn/branched.jsonl"]).json();
    let lines: Vec<u64> = doc["leaves"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![58, 64, 70]);
    assert_eq!(doc["latest"], "49510ee3");
    let depths: Vec<u64> = doc["leaves"].as_array().unwrap().iter().map(|l| l["depth"].as_u64().unwrap()).collect();
    assert_eq!(depths, vec![56, 20, 38]);
    let tree = run(&["tree", "--json", "testdata/arcturn/branched.jsonl"]).json();
    let n16 = tree["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "1c5da707").unwrap().clone();
    assert_eq!(n16["children"], serde_json::json!(["d44ba293", "2f1e271c"]));
    assert_eq!(n16["role"], "assistant");
    let label = tree["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "d44ba293").unwrap().clone();
    assert_eq!(label["kind"], "label");
    assert_eq!(label["role"], Value::Null);
}

#[test]
fn crab_ids_keep_their_integer_type() {
    let doc = run(&["tree", "--json", "testdata/crab/basic.jsonl"]).json();
    assert_eq!(doc["format"], "crab");
    assert_eq!(doc["latest"], 28);
    assert_eq!(doc["roots"], serde_json::json!([1]));
    assert!(doc["nodes"].as_array().unwrap().iter().all(|n| n["id"].is_u64()));
    // An id argument is matched as text.
    let p = run(&["path", "--json", "testdata/crab/basic.jsonl", "6"]).json();
    assert_eq!(p["target"], 6);
    assert_eq!(p["entries"][0]["id"], 1);
}

#[test]
fn tree_human_output() {
    let out = run(&["tree", "--color", "never", "testdata/arcturn/branched.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("◀ latest"));
    assert!(out.stdout.lines().filter(|l| l.contains("◀ latest")).count() == 1);
    assert!(out.stdout.contains("182k -> 12k tokens"), "compactions show their token drop");
    assert!(out.stdout.contains("i18n-green"), "labels are shown");
    golden("tree/branched.txt", &out.stdout);
    let collapsed = run(&["tree", "--color", "never", "--collapse", "testdata/arcturn/branched.jsonl"]);
    assert_eq!(collapsed.code, 0);
    assert!(collapsed.stdout.contains("entries ..."), "long linear runs fold");
    assert!(collapsed.stdout.lines().count() < out.stdout.lines().count());
    golden("tree/branched-collapsed.txt", &collapsed.stdout);
    let crab = run(&["tree", "--color", "never", "testdata/crab/compacted.jsonl"]);
    assert_eq!(crab.code, 0);
    golden("tree/crab-compacted.txt", &crab.stdout);
}

#[test]
fn colour_follows_the_flag() {
    let on = run(&["tree", "--color", "always", "testdata/arcturn/basic.jsonl"]);
    assert!(on.stdout.contains('\x1b'));
    let off = run(&["tree", "--color", "never", "testdata/arcturn/basic.jsonl"]);
    assert!(!off.stdout.contains('\x1b'));
    let json = run(&["tree", "--json", "--color", "always", "testdata/arcturn/basic.jsonl"]);
    assert!(!json.stdout.contains('\x1b'), "JSON is never coloured");
}

#[test]
fn hostile_text_is_escaped_in_human_views() {
    for cmd in ["tree", "leaves", "path"] {
        let out = run(&[cmd, "--color", "never", "testdata/arcturn/hostile.jsonl"]);
        assert_eq!(out.code, 0, "{cmd}: {}", out.stderr);
        for bad in ['\x1b', '\u{9b}', '\u{202e}', '\u{7}', '\u{8}', '\u{7f}', '\u{85}', '\r'] {
            assert!(!out.stdout.contains(bad), "{cmd} printed raw {:?}", bad);
            assert!(!out.stderr.contains(bad), "{cmd} printed raw {:?} on stderr", bad);
        }
        assert!(out.stdout.contains("\\e[") || cmd != "tree", "{cmd}: escapes are shown, not dropped");
    }
}

#[test]
fn million_deep_chain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let summary = gen::arcturn_chain(&mut f, 1_000_000).unwrap();
    drop(f);
    let p = path.to_str().unwrap();
    let leaves = run(&["leaves", "--json", p]);
    assert_eq!(leaves.code, 0, "{}", leaves.stderr);
    let doc = leaves.json();
    assert_eq!(doc["leaves"].as_array().unwrap().len(), 1);
    assert_eq!(doc["leaves"][0]["depth"], 999_999);
    assert_eq!(doc["latest"].as_str().unwrap(), summary.latest_id);
    let path_out = run(&["path", "--json", p]);
    assert_eq!(path_out.code, 0);
    assert_eq!(path_out.json()["entries"].as_array().unwrap().len(), 1_000_000);
    let tree = run(&["tree", "--color", "never", "--collapse", p]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    assert!(tree.stdout.lines().count() < 10, "a linear chain collapses to a few lines");
    let check = run(&["check", p]);
    assert_eq!(check.code, 0, "{}", check.stdout);
}
