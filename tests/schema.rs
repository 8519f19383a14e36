//! Every `--json` output against its JSON Schema (docs/schema/<command>.json, draft 2020-12),
//! on every testdata file and every real session beside the checkout.
//!
//! Schemas are discovered by listing docs/schema/*.json, so a schema added for a new command
//! is checked too: a schema with no runner in [`RUNNERS`] fails the test by name, as does a
//! runner whose schema file is missing.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{all_testdata, prereq, root};
use serde_json::Value;

/// What a command line is run on.
#[derive(Clone, Copy, Debug)]
enum Input {
    /// Each session file.
    File,
    /// Each session file and the id of its latest entry (from `tree --json`).
    FileAndLatest,
    /// Each directory that holds session files.
    Dir,
}

/// The one table from schema to the command lines whose output it describes.
const RUNNERS: &[(&str, &[&str], Input)] = &[
    ("tree", &["tree", "--json"], Input::File),
    ("path", &["path", "--json"], Input::File),
    ("leaves", &["leaves", "--json"], Input::File),
    ("show", &["show", "--json"], Input::FileAndLatest),
    ("check", &["check", "--json"], Input::File),
    ("check", &["check", "--json"], Input::Dir),
    ("trace", &["trace", "--json"], Input::File),
    ("stats", &["stats", "--json"], Input::File),
    ("stats", &["stats", "--json"], Input::Dir),
    ("context", &["context", "--json"], Input::File),
    ("sessions", &["sessions", "--json"], Input::Dir),
    ("diff", &["diff", "--json"], Input::File),
    ("grep", &["grep", "--json", "e"], Input::File),
    ("grep", &["grep", "--json", "-i", "error"], Input::Dir),
    ("stats-by", &["stats", "--json", "--by", "model"], Input::File),
    ("stats-by", &["stats", "--json", "--by", "day", "--timezone", "UTC"], Input::Dir),
    ("stats-by", &["stats", "--json", "--by", "tool"], Input::Dir),
    ("audit", &["audit", "--json"], Input::File),
    ("audit", &["audit", "--json"], Input::Dir),
    ("rows-entries", &["rows", "--table", "entries"], Input::File),
    ("rows-calls", &["rows", "--table", "calls"], Input::File),
    ("rows-tools", &["rows", "--table", "tools"], Input::File),
    ("rows-spans", &["rows", "--table", "spans"], Input::File),
    ("rows-sessions", &["rows", "--table", "sessions"], Input::Dir),
];

fn schema_dir() -> PathBuf {
    root().join("docs/schema")
}

/// Every schema file, by name without `.json`.
fn schemas() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(schema_dir()).expect("docs/schema exists").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", p.display()));
            out.insert(name, v);
        }
    }
    out
}

fn validator(name: &str, schema: &Value) -> jsonschema::Validator {
    assert_eq!(
        schema.get("$schema").and_then(Value::as_str),
        Some("https://json-schema.org/draft/2020-12/schema"),
        "{name}.json declares draft 2020-12"
    );
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{name}.json is not a valid schema: {e}"))
}

/// Session files of the real corpus beside the checkout (`../shared/real`), or `None`.
fn real_files() -> Option<Vec<String>> {
    let base = root().join("../shared/real");
    if !base.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![base];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    Some(out)
}

fn inputs() -> Vec<String> {
    let mut files = all_testdata();
    match real_files() {
        Some(real) => files.extend(real),
        None => prereq::missing("../shared/real (real session files)", "check out beside it", "ARCTURN_REQUIRE_REAL"),
    }
    files
}

/// Each JSON document a command printed: one, or NDJSON.
fn documents(stdout: &str) -> Vec<Value> {
    if stdout.trim().is_empty() {
        return Vec::new();
    }
    match serde_json::from_str::<Value>(stdout) {
        Ok(v) => vec![v],
        Err(_) => stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not NDJSON ({e}): {l}")))
            .collect(),
    }
}

fn run(args: &[String]) -> (i32, String) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = common::run(&refs);
    assert!(matches!(o.code, 0..=2), "{refs:?} exited {} (a crash?):\n{}", o.code, o.stderr);
    (o.code, o.stdout)
}

/// The command lines of one runner over the inputs.
fn command_lines(args: &[&str], input: Input, files: &[String]) -> Vec<Vec<String>> {
    let base: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match input {
        Input::File => files.iter().map(|f| [base.clone(), vec![f.clone()]].concat()).collect(),
        Input::FileAndLatest => files
            .iter()
            .filter_map(|f| {
                let (_, out) = run(&["tree".into(), "--json".into(), f.clone()]);
                let latest = documents(&out).first()?.get("latest").cloned()?;
                let id = match latest {
                    Value::String(s) => s,
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some([base.clone(), vec![f.clone(), id]].concat())
            })
            .collect(),
        Input::Dir => {
            let dirs: BTreeSet<String> =
                files.iter().filter_map(|f| Path::new(f).parent().map(|d| d.to_string_lossy().into_owned())).collect();
            dirs.into_iter().map(|d| [base.clone(), vec![d]].concat()).collect()
        }
    }
}

#[test]
fn every_schema_has_a_runner_and_every_runner_a_schema() {
    let names: BTreeSet<String> = schemas().into_keys().collect();
    let run: BTreeSet<String> = RUNNERS.iter().map(|r| r.0.to_string()).collect();
    let no_runner: Vec<_> = names.difference(&run).collect();
    let no_schema: Vec<_> = run.difference(&names).collect();
    assert!(no_runner.is_empty(), "docs/schema files with no runner in tests/schema.rs RUNNERS: {no_runner:?}");
    assert!(no_schema.is_empty(), "runners with no docs/schema/<name>.json: {no_schema:?}");
}

#[test]
fn every_json_output_matches_its_schema_on_every_file() {
    let schemas = schemas();
    let files = inputs();
    let mut failures = Vec::new();
    let mut validated: BTreeMap<&str, usize> = BTreeMap::new();
    for &(name, args, input) in RUNNERS {
        let Some(schema) = schemas.get(name) else { continue };
        let v = validator(name, schema);
        for line in command_lines(args, input, &files) {
            let (_, stdout) = run(&line);
            for doc in documents(&stdout) {
                *validated.entry(name).or_default() += 1;
                for e in v.iter_errors(&doc) {
                    failures.push(format!("{}: {} at {}: {e}", line.join(" "), name, e.instance_path()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} schema violation(s):\n{}", failures.len(), failures.join("\n"));
    for (name, _) in schemas.iter().filter(|(n, _)| RUNNERS.iter().any(|r| r.0 == n.as_str())) {
        assert!(
            validated.get(name.as_str()).copied().unwrap_or(0) > 0,
            "no document was validated against {name}.json"
        );
    }
}

/// A schema that let a renamed field through would guard nothing: renaming any required
/// top-level field of a real document must fail validation.
#[test]
fn schemas_catch_a_renamed_field() {
    let schemas = schemas();
    let file = common::testdata("arcturn/branched.jsonl");
    for &(name, args, input) in RUNNERS {
        let Some(schema) = schemas.get(name) else { continue };
        let v = validator(name, schema);
        let lines = command_lines(args, input, std::slice::from_ref(&file));
        let (_, stdout) = run(&lines[0]);
        let doc = documents(&stdout).into_iter().next().unwrap_or_else(|| panic!("{name}: no document"));
        assert!(v.is_valid(&doc), "{name}: the real document is valid first");
        let required = required_fields(schema, &doc);
        assert!(!required.is_empty() || name == "show", "{name}.json requires no field");
        for field in required {
            let mut renamed = doc.clone();
            let obj = renamed.as_object_mut().unwrap();
            let value = obj.remove(field).unwrap();
            obj.insert(format!("{field}_renamed"), value);
            assert!(!v.is_valid(&renamed), "{name}.json accepts a document whose `{field}` was renamed");
        }
    }
}

/// The fields `schema` requires at the top of `doc`: its own `required`, or for a schema that
/// is a `oneOf` of shapes (grep's match and file objects), those of the shape with the most
/// required fields that `doc` has.
fn required_fields<'a>(schema: &'a Value, doc: &Value) -> Vec<&'a str> {
    let names = |s: &'a Value| -> Vec<&'a str> {
        s["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect()
    };
    let own = names(schema);
    if !own.is_empty() {
        return own;
    }
    let shapes = schema["oneOf"].as_array().into_iter().flatten().filter_map(|branch| {
        let target = branch["$ref"].as_str()?.strip_prefix("#/")?;
        let s = target.split('/').try_fold(schema, |v, k| v.get(k))?;
        Some(names(s))
    });
    shapes.filter(|r| r.iter().all(|f| doc.get(*f).is_some())).max_by_key(Vec::len).unwrap_or_default()
}

/// Nested fields too: a node whose `parent` became `parent_id`, a finding whose `code` became
/// `kind`, a string where a number belongs.
#[test]
fn schemas_catch_renamed_nested_fields_and_wrong_types() {
    let schemas = schemas();
    let tree = validator("tree", &schemas["tree"]);
    let (_, out) = run(&["tree".into(), "--json".into(), common::testdata("arcturn/branched.jsonl")]);
    let mut doc = documents(&out).remove(0);
    let node = doc["nodes"][0].as_object_mut().unwrap();
    let parent = node.remove("parent").unwrap();
    node.insert("parent_id".into(), parent);
    assert!(!tree.is_valid(&doc));

    let stats = validator("stats", &schemas["stats"]);
    let (_, out) = run(&["stats".into(), "--json".into(), common::testdata("arcturn/branched.jsonl")]);
    let mut doc = documents(&out).remove(0);
    doc["sessions"][0]["usage"]["input"] = Value::String("12".into());
    assert!(!stats.is_valid(&doc));

    let check = validator("check", &schemas["check"]);
    let (_, out) = run(&["check".into(), "--json".into(), common::testdata("arcturn/corrupt.jsonl")]);
    let mut doc = documents(&out).remove(0);
    let f = doc["findings"][0].as_object_mut().unwrap();
    let code = f.remove("code").unwrap();
    f.insert("kind".into(), code);
    assert!(!check.is_valid(&doc));
}
