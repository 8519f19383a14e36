//! `diff`: sessions built here with a known fork point, a known retried prompt and known
//! usage on each side, so the ancestor, the entries, the totals and the alignment follow
//! from the construction; and the real pi session with a branch, read independently.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::HashMap;

/// What one side of the built tree holds.
struct Built {
    entries: Vec<&'static str>,
    usage: Vec<Use>,
    results: usize,
    errors: usize,
}

const SHARED_PROMPT: &str = "add a test for parse";
const SECOND_PROMPT: &str = "now run clippy";

/// A common trunk (u1 a1 r1 a2), then branch A from a2, then branch B from a2 written after
/// it. Both branches ask the same two prompts; what happens between them differs.
fn forked(extra: impl FnOnce(&mut ArcturnBuilder)) -> (tempfile::TempDir, String, Built, Built) {
    let dir = tempfile::tempdir().unwrap();
    let mut b = ArcturnBuilder::new();
    b.user("u1", None, "set up the project")
        .assistant(
            "a1",
            "u1",
            "running",
            &[("c1", "bash", json!({"command": "cargo init"}))],
            Use(100, 10, 1000, 50, 0.1),
        )
        .result("r1", "a1", "c1", Some("bash"), "Created binary package", false)
        .assistant("a2", "r1", "done", &[], Use(200, 20, 2000, 0, 0.2));
    let ua = [Use(300, 30, 0, 100, 0.3), Use(400, 40, 0, 0, 0.4), Use(1, 2, 3, 4, 0.001)];
    b.user("ua1", Some("a2"), SHARED_PROMPT)
        .assistant(
            "aa1",
            "ua1",
            "writing it",
            &[("c2", "bash", json!({"command": "cargo test"})), ("c3", "read", json!({"path": "src/parse.rs"}))],
            ua[0],
        )
        .result("ra1", "aa1", "c2", Some("bash"), "error: could not compile", true)
        .result("ra2", "ra1", "c3", Some("read"), "fn parse() {}", false)
        .assistant("aa2", "ra2", "added", &[], ua[1])
        .user("ua2", Some("aa2"), SECOND_PROMPT)
        .assistant("aa3", "ua2", "clean", &[], ua[2]);
    let ub = [Use(500, 50, 0, 0, 0.5), Use(600, 60, 10, 20, 0.6), Use(7, 8, 9, 10, 0.07)];
    b.user("ub1", Some("a2"), SHARED_PROMPT)
        .assistant("ab1", "ub1", "trying again", &[("c4", "bash", json!({"command": "cargo test parse"}))], ub[0])
        .result("rb1", "ab1", "c4", None, "test parse ... ok", false)
        .assistant("ab2", "rb1", "added, and it passes", &[], ub[1])
        .user("ub2", Some("ab2"), SECOND_PROMPT)
        .assistant("ab3", "ub2", "clean too", &[], ub[2]);
    extra(&mut b);
    let f = b.write(dir.path(), "forked.jsonl");
    let a = Built {
        entries: vec!["ua1", "aa1", "ra1", "ra2", "aa2", "ua2", "aa3"],
        usage: ua.to_vec(),
        results: 2,
        errors: 1,
    };
    let b =
        Built { entries: vec!["ub1", "ab1", "rb1", "ab2", "ub2", "ab3"], usage: ub.to_vec(), results: 1, errors: 0 };
    (dir, f, a, b)
}

fn check_side(side: &Value, built: &Built, leaf: &str) {
    assert_eq!(side["leaf"], leaf);
    assert_eq!(side["entries"], json!(built.entries));
    let sum = |f: fn(&Use) -> u64| built.usage.iter().map(f).sum::<u64>();
    let u = &side["usage"];
    assert_eq!(u["calls"], built.usage.len() as u64);
    assert_eq!(u["input"], sum(|u| u.0));
    assert_eq!(u["output"], sum(|u| u.1));
    assert_eq!(u["cache_read"], sum(|u| u.2));
    assert_eq!(u["cache_write"], sum(|u| u.3));
    let cost: f64 = built.usage.iter().map(|u| u.4).sum();
    assert!((u["cost"].as_f64().unwrap() - cost).abs() < 1e-9, "{u}");
    assert_eq!(side["tool_calls"], built.results as u64);
    assert_eq!(side["tool_errors"], built.errors as u64);
}

#[test]
fn two_most_recent_leaves_by_default_with_their_fork_point_and_totals() {
    let (_d, f, a, b) = forked(|_| {});
    let out = run(&["diff", "--json", &f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["format"], "arcturn");
    assert_eq!(doc["ancestor"], "a2");
    assert_eq!(doc["relation"], "forked");
    check_side(&doc["a"], &a, "aa3");
    check_side(&doc["b"], &b, "ab3");
}

#[test]
fn retried_prompts_are_aligned() {
    let (_d, f, _, _) = forked(|_| {});
    let doc = run(&["diff", "--json", &f, "aa3", "ab3"]).json();
    let rows: Vec<(Value, Value, bool)> = doc["aligned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["a"].clone(), r["b"].clone(), r["same_prompt"].as_bool().unwrap()))
        .collect();
    // The two prompts pair up; what lies between them sits side by side, the longer side
    // alone at the end of its run.
    let want = [
        (json!("ua1"), json!("ub1"), true),
        (json!("aa1"), json!("ab1"), false),
        (json!("ra1"), json!("rb1"), false),
        (json!("ra2"), json!("ab2"), false),
        (json!("aa2"), Value::Null, false),
        (json!("ua2"), json!("ub2"), true),
        (json!("aa3"), json!("ab3"), false),
    ];
    assert_eq!(rows, want);
}

#[test]
fn the_human_view_fits_80_columns() {
    let (_d, f, _, _) = forked(|_| {});
    let out = cmd().env("COLUMNS", "80").args(["diff", &f]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for l in text.lines() {
        assert!(l.chars().count() <= 80, "{} columns: {l}", l.chars().count());
    }
    let prompt_rows: Vec<&str> = text.lines().filter(|l| l.contains(" = ")).collect();
    assert_eq!(prompt_rows.len(), 2, "{text}");
    assert!(prompt_rows[0].starts_with("ua1") && prompt_rows[0].contains("ub1"), "{text}");
    assert!(text.contains("ancestor a2"), "{text}");
    let row = |name: &str| {
        text.lines().find(|l| l.starts_with(name)).unwrap().split_whitespace().rev().take(2).collect::<Vec<_>>()
    };
    // (B, A) from the right.
    assert_eq!(row("input"), ["1,107", "701"]);
    assert_eq!(row("tool errors"), ["0", "1"]);
}

#[test]
fn an_ancestor_and_the_same_entry() {
    let (_d, f, a, _) = forked(|_| {});
    let doc = run(&["diff", "--json", &f, "a2", "aa3"]).json();
    assert_eq!((doc["ancestor"].clone(), doc["relation"].clone()), (json!("a2"), json!("a_ancestor_of_b")));
    assert_eq!(doc["a"]["entries"], json!([]));
    assert_eq!(doc["a"]["usage"]["calls"], 0);
    assert_eq!(doc["b"]["entries"], json!(a.entries));
    let doc = run(&["diff", "--json", &f, "aa3", "u1"]).json();
    assert_eq!((doc["ancestor"].clone(), doc["relation"].clone()), (json!("u1"), json!("b_ancestor_of_a")));
    assert_eq!(doc["b"]["entries"], json!([]));
    let doc = run(&["diff", "--json", &f, "aa3", "aa3"]).json();
    assert_eq!((doc["ancestor"].clone(), doc["relation"].clone()), (json!("aa3"), json!("same")));
    assert_eq!((doc["a"]["entries"].clone(), doc["b"]["entries"].clone()), (json!([]), json!([])));
    let human = run(&["diff", &f, "aa3", "aa3"]);
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains("the same entry"), "{}", human.stdout);
}

#[test]
fn different_roots_have_no_common_ancestor() {
    let (_d, f, _, _) = forked(|b| {
        b.user("x1", None, "an unrelated question").assistant("x2", "x1", "an answer", &[], Use(1, 1, 0, 0, 0.0));
    });
    let out = run(&["diff", "--json", &f, "aa3", "x2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_eq!(doc["ancestor"], Value::Null);
    assert_eq!(doc["relation"], "unrelated");
    // Each side runs from its own root.
    assert_eq!(doc["a"]["entries"], json!(["u1", "a1", "r1", "a2", "ua1", "aa1", "ra1", "ra2", "aa2", "ua2", "aa3"]));
    assert_eq!(doc["b"]["entries"], json!(["x1", "x2"]));
    let human = run(&["diff", &f, "aa3", "x2"]);
    assert!(human.stdout.contains("no common ancestor"), "{}", human.stdout);
}

#[test]
fn unknown_ids_and_a_single_branch() {
    let (_d, f, _, _) = forked(|_| {});
    let out = run(&["diff", &f, "aa3", "nosuch"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no entry with id `nosuch`"), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    // One id alone is a usage error: both or neither.
    assert_eq!(run(&["diff", &f, "aa3"]).code, 2);
    let dir = tempfile::tempdir().unwrap();
    let mut b = ArcturnBuilder::new();
    b.user("u1", None, "hello").assistant("a1", "u1", "hi", &[], Use(1, 1, 0, 0, 0.0));
    let linear = b.write(dir.path(), "linear.jsonl");
    for args in [vec!["diff", linear.as_str()], vec!["diff", "--json", linear.as_str()]] {
        let out = run(&args);
        assert_eq!(out.code, 1, "fewer than two branches is a negative answer");
        assert_eq!(out.stdout, "");
        assert!(out.stderr.contains("only one branch"), "{}", out.stderr);
    }
}

/// An independent reading of a pi file: ids, parents, lines and assistant usage.
struct PiOracle {
    parent: HashMap<String, Option<String>>,
    line_id: HashMap<u64, String>,
    usage: HashMap<String, (u64, u64)>,
}

impl PiOracle {
    fn read(path: &str) -> PiOracle {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        let mut o = PiOracle { parent: HashMap::new(), line_id: HashMap::new(), usage: HashMap::new() };
        for (n, line) in text.lines().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            let Some(id) = v.get("id").and_then(Value::as_str) else { continue };
            if v["type"] == "session" {
                continue;
            }
            o.parent.insert(id.into(), v["parentId"].as_str().map(String::from));
            o.line_id.insert(n as u64 + 1, id.into());
            if v["message"]["role"] == "assistant" {
                let u = &v["message"]["usage"];
                o.usage.insert(id.into(), (u["input"].as_u64().unwrap(), u["output"].as_u64().unwrap()));
            }
        }
        o
    }

    fn path(&self, id: &str) -> Vec<String> {
        let mut out = vec![id.to_string()];
        while let Some(Some(p)) = self.parent.get(out.last().unwrap()) {
            out.push(p.clone());
        }
        out.reverse();
        out
    }
}

#[test]
fn the_real_pi_branches() {
    let f = "../shared/real/agentlogs/pi/branched.jsonl";
    if !root().join(f).exists() {
        prereq::missing(f, "the shared real session files", "ARCTURN_REQUIRE_REAL");
        return;
    }
    let o = PiOracle::read(f);
    // FORMATS-REAL.md: the leaves are the entries on lines 11 and 16 (the tip).
    let (la, lb) = (o.line_id[&11].clone(), o.line_id[&16].clone());
    let (pa, pb) = (o.path(&la), o.path(&lb));
    let shared = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let out = run(&["diff", "--json", f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_eq!(doc["format"], "pi");
    assert_eq!(doc["ancestor"], json!(pa[shared - 1]));
    for (side, path, leaf) in [(&doc["a"], &pa, &la), (&doc["b"], &pb, &lb)] {
        assert_eq!(side["leaf"], json!(leaf));
        assert_eq!(side["entries"], json!(path[shared..]));
        let input: u64 = path[shared..].iter().filter_map(|i| o.usage.get(i)).map(|u| u.0).sum();
        let output: u64 = path[shared..].iter().filter_map(|i| o.usage.get(i)).map(|u| u.1).sum();
        assert_eq!((side["usage"]["input"].as_u64(), side["usage"]["output"].as_u64()), (Some(input), Some(output)));
        assert_eq!(side["tool_calls"], 1, "one write on each branch");
    }
    // The two branches ask different things: nothing pairs up.
    assert!(doc["aligned"].as_array().unwrap().iter().all(|r| r["same_prompt"] == false));
}

/// The keys an object must have, as the committed schema lists them.
fn schema_required(def: &str) -> Vec<String> {
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("docs/schema/diff.json")).unwrap()).unwrap();
    let node = if def.is_empty() { &s } else { &s["$defs"][def] };
    let mut keys: Vec<String> =
        node["required"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().into()).collect();
    keys.sort();
    keys
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn json_output_has_the_fields_its_schema_names() {
    let (_d, f, _, _) = forked(|_| {});
    let doc = run(&["diff", "--json", &f]).json();
    assert_eq!(keys(&doc), schema_required(""));
    assert_eq!(keys(&doc["a"]), schema_required("side"));
    assert_eq!(keys(&doc["b"]["usage"]), schema_required("usage"));
}

#[test]
fn crab_usage_per_branch_is_unknown_not_zero() {
    // crab records usage in run observations, not on entries: a branch's share is unknown.
    let out = run(&["diff", "--json", "-q", "testdata/stats/crab-branched.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_eq!(doc["format"], "crab");
    assert!(doc["ancestor"].is_u64(), "crab ids are integers: {}", doc["ancestor"]);
    assert_eq!((doc["a"]["usage"].clone(), doc["b"]["usage"].clone()), (Value::Null, Value::Null));
    let human = run(&["diff", "-q", "testdata/stats/crab-branched.jsonl"]);
    assert!(human.stdout.contains("unknown") && !human.stdout.contains("$0"), "{}", human.stdout);
}

/// `--wide` cuts nothing: each cell is whole (a preview, at most 240 characters), the left column as wide as its widest cell,
/// and the gutter in one column on every row (it once panicked formatting a column of the
/// unlimited width, and would have padded cells to it).
#[test]
fn wide_cuts_no_cell_and_keeps_the_gutter_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let long_a = format!("rewrite the parser {}end-of-a", "and keep every token span exact ".repeat(5));
    let long_b = format!("port the lexer {}end-of-b", "without losing a byte of input ".repeat(5));
    let mut b = ArcturnBuilder::new();
    b.user("u1", None, "set up the project")
        .assistant("a1", "u1", "done", &[], Use(1, 1, 0, 0, 0.0))
        .user("ua", Some("a1"), &long_a)
        .assistant("aa", "ua", "parser rewritten", &[], Use(1, 1, 0, 0, 0.0))
        .user("ub", Some("a1"), &long_b);
    let f = b.write(dir.path(), "wide.jsonl");
    for colour in ["never", "always"] {
        let out = cmd().env("COLUMNS", "80").args(["diff", "--wide", "--color", colour, &f]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("end-of-a") && text.contains("end-of-b"), "{text}");
        assert!(text.contains("ancestor"), "{text}");
        if colour == "never" {
            // The header, both rows and the row with only A's entry put their mark at one column.
            let marks: Vec<usize> = text
                .lines()
                .filter_map(|l| {
                    let at = [" | ", " < ", " > "].iter().filter_map(|m| l.find(m)).min()?;
                    Some(l[..at].chars().count())
                })
                .collect();
            assert!(marks.len() >= 3, "{text}");
            assert!(marks.windows(2).all(|w| w[0] == w[1]), "{marks:?}\n{text}");
        }
    }
}
