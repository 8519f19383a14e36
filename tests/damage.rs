//! Damaged and unusual inputs (shared/BAD-INPUTS.md), one test each: the exit code and the
//! message a user sees. Also: the mapped and read paths and stdin agree, wide trees work, and
//! no command ever writes to its input.

mod common;
#[path = "gen/mod.rs"]
mod gen;

use common::*;
use serde_json::Value;

const HEADER: &str =
    r#"{"kind":"session","version":1,"id":"s-damage","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#;
const E1: &str = r#"{"kind":"message","id":"e1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1793610001000}}"#;
const E2: &str = r#"{"kind":"message","id":"e2","parentId":"e1","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"user","content":"again","timestamp":1793610002000}}"#;

/// Header, first entry, `middle` as line 3, an entry whose parent is the first: `\n` framing.
fn session(middle: &str) -> Vec<u8> {
    format!("{HEADER}\n{E1}\n{middle}\n{E2}\n").into_bytes()
}

/// A message entry with id `e3` (parent `e1`) whose fields after `parentId` are `rest`.
fn entry3(rest: &str) -> String {
    format!(r#"{{"kind":"message","id":"e3","parentId":"e1","timestamp":"2026-11-02T09:00:01.500Z",{rest}}}"#)
}

fn findings(doc: &Value) -> Vec<(String, String, u64)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap().into(),
                f["code"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"].as_array().unwrap().iter().find(|f| f["code"] == code).unwrap_or_else(|| panic!("no {code}: {doc}"))
}

fn ids(tree: &Value) -> Vec<Value> {
    tree["nodes"].as_array().unwrap().iter().map(|n| n["id"].clone()).collect()
}

/// Check a one-line damage: `check` reports `code` at line 3 with this severity, and the
/// entries around it survive.
fn check_line3(bytes: &[u8], code: &str, severity: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", bytes);
    let out = run(&["check", "--json", &p]);
    assert_eq!(out.code, if severity == "error" { 1 } else { 0 }, "{}", out.stdout);
    let doc = out.json();
    let f = finding(&doc, code);
    assert_eq!(f["line"], 3, "{f}");
    assert_eq!(f["severity"], severity, "{f}");
    let tree = run(&["tree", "--json", &p]);
    let t = tree.json();
    assert!(ids(&t).contains(&Value::from("e1")) && ids(&t).contains(&Value::from("e2")));
    if severity == "error" {
        assert_eq!(tree.code, 2, "line damage before the last line: exit 2");
        assert!(tree.stderr.contains(&format!("{p}:3")), "{}", tree.stderr);
    }
    doc
}

#[test]
fn missing_file() {
    for cmd in ["tree", "leaves", "path", "check", "stats", "trace", "context", "export"] {
        let out = run(&[cmd, "testdata/no such file.jsonl"]);
        assert_eq!(out.code, 2, "{cmd}");
        assert!(out.stderr.contains("testdata/no such file.jsonl: no such file or directory"), "{cmd}: {}", out.stderr);
    }
    // The path is shown escaped: a hostile file name cannot drive the terminal.
    let hostile = run(&["tree", "no\x1b[31mfile\x07.jsonl"]);
    assert_eq!(hostile.code, 2);
    assert!(hostile.stderr.contains("no such file or directory"), "{}", hostile.stderr);
    assert!(!hostile.stderr.contains('\x1b') && !hostile.stderr.contains('\x07'), "{:?}", hostile.stderr);
    let show = run(&["show", "testdata/none.jsonl", "x"]);
    assert_eq!(show.code, 2);
    assert!(show.stderr.contains("testdata/none.jsonl: no such file or directory"));
}

#[test]
fn a_directory_where_a_file_is_needed() {
    for cmd in ["tree", "leaves", "path", "context", "export"] {
        let out = run(&[cmd, "testdata/crab"]);
        assert_eq!(out.code, 2, "{cmd}");
        assert!(out.stderr.contains("testdata/crab: is a directory"), "{cmd}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{cmd}: one line");
    }
}

#[test]
fn empty_and_header_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let empty = temp_file(dir.path(), "empty.jsonl", b"");
    let header = temp_file(dir.path(), "header.jsonl", format!("{HEADER}\n").as_bytes());
    for p in [&empty, &header, &"/dev/null".to_string()] {
        for cmd in ["tree", "leaves", "path"] {
            let out = run(&[cmd, p]);
            assert_eq!(out.code, 0, "{cmd} {p}: {}", out.stderr);
            assert!(out.stdout.contains("no entries"), "{cmd} {p}: {}", out.stdout);
        }
        let check = run(&["check", "--color", "never", p]);
        assert_eq!(check.code, 0, "{p}");
        assert!(check.stdout.contains("no entries"), "{p}: {}", check.stdout);
        let doc = run(&["check", "--json", p]).json();
        assert_eq!(doc["entries"], 0);
        assert_eq!(doc["ok"], true);
        let tree = run(&["tree", "--json", p]);
        assert_eq!(tree.code, 0);
        assert_eq!(tree.json()["nodes"], serde_json::json!([]));
    }
}

#[test]
fn torn_last_line() {
    let out = run(&["tree", "--json", "testdata/arcturn/torn.jsonl"]);
    assert_eq!(out.code, 0);
    let doc = out.json();
    assert_eq!(doc["nodes"].as_array().unwrap().len(), 8, "everything before the torn line");
    assert_eq!(doc["nodes"].as_array().unwrap().last().unwrap()["line"], 9);
    assert_eq!(out.stderr.lines().count(), 1, "one warning: {}", out.stderr);
    assert!(
        out.stderr.contains("testdata/arcturn/torn.jsonl:10") && out.stderr.contains("218 bytes"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("warning"));
    let strict = run(&["tree", "--strict", "testdata/arcturn/torn.jsonl"]);
    assert_eq!(strict.code, 2, "--strict makes a torn line fatal");
    assert!(strict.stderr.contains("torn"), "{}", strict.stderr);
    let quiet = run(&["tree", "-q", "testdata/arcturn/torn.jsonl"]);
    assert_eq!(quiet.code, 0);
    assert!(quiet.stderr.is_empty(), "-q: {}", quiet.stderr);
}

#[test]
fn corrupt_last_line_with_newline() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", format!("{HEADER}\n{E1}\n{E2}\n{{\"kind\":\"mess\n").as_bytes());
    let out = run(&["tree", "--json", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(ids(&out.json()), vec![Value::from("e1"), Value::from("e2")]);
    assert!(out.stderr.contains(&format!("{p}:4")) && out.stderr.contains("corrupt_last_line"), "{}", out.stderr);
    assert!(!out.stderr.contains("torn"), "a complete line is not a torn write: {}", out.stderr);
    let doc = run(&["check", "--json", &p]).json();
    assert_eq!(findings(&doc), vec![("warning".into(), "corrupt_last_line".into(), 4)]);
}

#[test]
fn corrupt_line_before_the_last() {
    let f = "testdata/arcturn/corrupt.jsonl";
    let id = "00290f12"; // line 7, whose parent was on the corrupt line
    for args in [
        vec!["tree", f],
        vec!["tree", "--json", f],
        vec!["leaves", f],
        vec!["leaves", "--json", f],
        vec!["path", f],
        vec!["path", "--json", f, id],
        vec!["show", f, id],
        vec!["stats", f],
        vec!["trace", f],
        vec!["context", f],
        vec!["export", f],
        vec!["query", ".id", f],
    ] {
        let out = run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(!out.stdout.trim().is_empty(), "{args:?}: prints what it can");
        assert!(out.stderr.contains("testdata/arcturn/corrupt.jsonl:6:57: "), "{args:?}: {}", out.stderr);
    }
    let tree = run(&["tree", "--json", f]).json();
    assert_eq!(tree["nodes"].as_array().unwrap().len(), 9);
    // check reports it as its answer: exit 1, not a failure to run.
    assert_eq!(run(&["check", f]).code, 1);
}

#[test]
fn nul_run_at_the_end() {
    let mut b = session(E1.replace("e1", "e0").replace("null", "\"e1\"").as_str());
    b.extend(std::iter::repeat_n(0u8, 300));
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", &b);
    let out = run(&["tree", "--json", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(ids(&out.json()).len(), 3);
    assert!(out.stderr.contains("300 NUL bytes"), "{}", out.stderr);
    let doc = run(&["check", "--json", &p]).json();
    assert_eq!(findings(&doc), vec![("warning".into(), "torn_last_line".into(), 4)]);
    assert_eq!(run(&["tree", "--strict", &p]).code, 2);
}

#[test]
fn utf8_bom() {
    let out = run(&["tree", "--json", "testdata/arcturn/crlf.jsonl"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.json()["nodes"].as_array().unwrap().len(), 4, "entries intact");
    assert!(out.stderr.contains("byte order mark"), "{}", out.stderr);
    assert!(out.stderr.contains("warning"));
}

#[test]
fn utf16_and_utf32() {
    let text = String::from_utf8(session(&entry3(r#""message":{"role":"user","content":"x"}"#))).unwrap();
    let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let be_no_bom: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let le32: Vec<u8> =
        [0xFF, 0xFE, 0, 0].into_iter().chain(text.chars().flat_map(|c| (c as u32).to_le_bytes())).collect();
    let dir = tempfile::tempdir().unwrap();
    for (name, b, enc) in [("le", le, "UTF-16"), ("be", be_no_bom, "UTF-16BE"), ("le32", le32, "UTF-32")] {
        let p = temp_file(dir.path(), name, &b);
        for cmd in ["tree", "check"] {
            let out = run(&[cmd, &p]);
            assert_eq!(out.code, 2, "{name} {cmd}");
            assert!(out.stderr.contains("unsupported encoding") && out.stderr.contains(enc), "{name}: {}", out.stderr);
            assert!(out.stderr.contains(&format!("{p}:1:1:")), "{}", out.stderr);
        }
    }
}

#[test]
fn cr_only_line_endings() {
    let text = String::from_utf8(session(&entry3(r#""message":{"role":"user","content":"x"}"#))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "mac.jsonl", text.replace('\n', "\r").as_bytes());
    for cmd in ["tree", "check"] {
        let out = run(&[cmd, &p]);
        assert_eq!(out.code, 2, "{cmd}");
        assert!(out.stderr.contains(&format!("{p}:1:")), "{}", out.stderr);
        assert!(out.stderr.contains("CR only") && out.stderr.contains("tr '\\r' '\\n'"), "a hint: {}", out.stderr);
    }
}

#[test]
fn binary_junk_is_not_called_cr_only() {
    // No newline anywhere, a stray CR: not old Mac text, just not a session.
    let mut junk: Vec<u8> =
        (0..4000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).filter(|&c| c != b'\n').collect();
    junk.insert(100, b'\r');
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "junk.jsonl", &junk);
    let out = run(&["tree", &p]);
    assert_eq!(out.code, 2);
    assert!(!out.stderr.contains("CR only"), "{}", out.stderr);
    assert!(out.stderr.contains(&format!("{p}:1")), "{}", out.stderr);
}

#[test]
fn crlf_gives_the_same_tree_as_lf() {
    let crlf = std::fs::read(root().join("testdata/arcturn/crlf.jsonl")).unwrap();
    assert!(crlf.starts_with(b"\xEF\xBB\xBF") && crlf.windows(2).any(|w| w == b"\r\n"));
    let lf: Vec<u8> = crlf[3..].iter().copied().filter(|&c| c != b'\r').collect();
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "lf.jsonl", &lf);
    for cmd in ["tree", "leaves", "path"] {
        let mut a = run(&[cmd, "--json", "testdata/arcturn/crlf.jsonl"]).json();
        let mut b = run(&[cmd, "--json", &p]).json();
        a["file"] = Value::Null;
        b["file"] = Value::Null;
        assert_eq!(a, b, "{cmd}");
    }
    // Columns do not count the `\r`: the same broken line reports the same column.
    let broken = r#"{"kind":"message","id":"e3","parentId":"e1" "timestamp":"x"}"#;
    let lf = session(broken);
    let crlf: Vec<u8> = String::from_utf8(lf.clone()).unwrap().replace('\n', "\r\n").into_bytes();
    let a = temp_file(dir.path(), "a.jsonl", &lf);
    let b = temp_file(dir.path(), "b.jsonl", &crlf);
    let fa = finding(&run(&["check", "--json", &a]).json(), "corrupt_line").clone();
    let fb = finding(&run(&["check", "--json", &b]).json(), "corrupt_line").clone();
    assert_eq!(fa["column"], 45);
    assert_eq!(fa["column"], fb["column"]);
    assert_eq!(fa["message"], fb["message"]);
}

#[test]
fn blank_lines_are_skipped_and_counted() {
    let b = format!("{HEADER}\n\n{E1}\n   \n\t\n{E2}\n");
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", b.as_bytes());
    let out = run(&["tree", "--json", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<u64> = out.json()["nodes"].as_array().unwrap().iter().map(|n| n["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![3, 6], "line numbers count blank lines");
    let doc = run(&["check", "--json", &p]).json();
    assert_eq!(doc["lines"], 6);
    assert_eq!(findings(&doc), vec![("warning".into(), "blank_lines".into(), 2)]);
    assert!(finding(&doc, "blank_lines")["message"].as_str().unwrap().contains("3 blank line"));
}

#[test]
fn invalid_utf8_inside_a_line() {
    let prefix = entry3(r#""message":{"role":"user","content":"caf"#);
    let mut line = prefix.clone().into_bytes();
    line.extend_from_slice(b"\xE9 au lait\"}}");
    let mut b = format!("{HEADER}\n{E1}\n").into_bytes();
    b.extend_from_slice(&line);
    b.extend_from_slice(format!("\n{E2}\n").as_bytes());
    let doc = check_line3(&b, "invalid_utf8", "error");
    assert_eq!(finding(&doc, "invalid_utf8")["column"], prefix.len() as u64 + 1, "the column of the bad byte");
}

/// Lines are checked for UTF-8 a run of lines at a time: damage anywhere in a long file, on
/// lines next to each other or alone far apart, is still said line by line, at its column,
/// and every other line of the run it spoils is read.
#[test]
fn invalid_utf8_on_lines_spread_over_a_long_file() {
    let total = 6_000u32;
    // Lines 2 (the first entry), 3 and 4 together, one far in, and the one before the last
    // (damage on the last line is a torn tail, another finding).
    let bad = [2, 3, 4, 2_500, total - 1];
    let mut b = format!("{HEADER}\n").into_bytes();
    let mut columns = Vec::new();
    for n in 2..=total {
        let parent = if n == 2 { "null".to_string() } else { format!("\"e{}\"", n - 1) };
        let head = format!(
            r#"{{"kind":"message","id":"e{n}","parentId":{parent},"timestamp":"2026-11-02T09:00:01.000Z","message":{{"role":"user","content":"caf"#
        );
        b.extend_from_slice(head.as_bytes());
        if bad.contains(&n) {
            columns.push((n, head.len() as u64 + 1));
            b.extend_from_slice(b"\xE9");
        } else {
            b.extend_from_slice("\u{e9}".as_bytes());
        }
        b.extend_from_slice(" au lait, with enough text to make the file longer than a few runs\"}}\n".as_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", &b);
    let doc = run(&["check", "--json", &p]).json();
    let said: Vec<(u64, u64)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "invalid_utf8")
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(u64, u64)> = columns.iter().map(|&(n, c)| (u64::from(n), c)).collect();
    assert_eq!(said, expected);
    assert_eq!(doc["entries"], u64::from(total - 1) - bad.len() as u64, "every other line is read");
}

#[test]
fn lone_surrogate_is_repaired() {
    let b = session(&entry3(r#""message":{"role":"user","content":"cut \ud83d here"}"#));
    let doc = check_line3(&b, "lone_surrogate", "warning");
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["entries"], 3);
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", &b);
    let tree = run(&["tree", &p]);
    assert_eq!(tree.code, 0, "a warning, not corruption");
    assert!(tree.stderr.contains(&format!("{p}:3")) && tree.stderr.contains("lone surrogate"), "{}", tree.stderr);
    let show = run(&["show", "--json", &p, "e3"]);
    assert_eq!(show.code, 0);
    assert_eq!(show.json()["message"]["content"], "cut \u{fffd} here");
}

#[test]
fn duplicate_key() {
    let line = r#"{"kind":"message","id":"a","id":"b","parentId":"e1","timestamp":"2026-11-02T09:00:01.500Z","message":{"role":"user","content":"x"}}"#;
    let doc = check_line3(&session(line), "duplicate_key", "error");
    assert!(finding(&doc, "duplicate_key")["message"].as_str().unwrap().contains("id"));
    assert_eq!(doc["entries"], 2, "neither reading of the line is trusted");
}

#[test]
fn invalid_ids() {
    for id in ["1.5", "18446744073709551616", "-1", "1e3"] {
        let line = format!(
            r#"{{"kind":"message","id":{id},"parentId":"e1","timestamp":"2026-11-02T09:00:01.500Z","message":{{"role":"user","content":"x"}}}}"#
        );
        let doc = check_line3(&session(&line), "invalid_id", "error");
        let msg = finding(&doc, "invalid_id")["message"].as_str().unwrap().to_string();
        assert!(msg.starts_with("id"), "{id}: {msg}");
        assert!(!msg.contains("18446744073709552000"), "no rounded number the file does not hold: {msg}");
    }
}

#[test]
fn top_level_non_objects() {
    for v in ["[]", "[1,2]", r#""x""#, "null", "42", "true"] {
        let doc = check_line3(&session(v), "not_an_object", "error");
        assert_eq!(finding(&doc, "not_an_object")["column"], 1, "{v}");
    }
}

#[test]
fn required_fields_of_the_wrong_type() {
    for (rest, field) in [
        (r#""message":{"role":5,"content":"x"}"#, "message.role"),
        (r#""message":{"role":"assistant","content":[],"usage":{"input":"many"}}"#, "message.usage.input"),
        (r#""message":"hello""#, "message"),
    ] {
        let doc = check_line3(&session(&entry3(rest)), "invalid_field", "error");
        let msg = finding(&doc, "invalid_field")["message"].as_str().unwrap().to_string();
        assert!(msg.starts_with(&format!("{field}:")), "the field is named: {msg}");
    }
    let kind = r#"{"kind":7,"id":"e3","parentId":"e1"}"#;
    let doc = check_line3(&session(kind), "invalid_field", "error");
    assert!(finding(&doc, "invalid_field")["message"].as_str().unwrap().starts_with("kind:"));
    let no_role = entry3(r#""message":{"content":"x"}"#);
    let doc = run_check(&session(&no_role));
    assert!(finding(&doc, "missing_field")["message"].as_str().unwrap().contains("role"));
    let crab = "{\"kind\":\"meta\",\"format_version\":2,\"created\":\"1792661000878ms\"}\n\
        {\"kind\":\"message\",\"id\":1,\"parent_id\":null,\"message\":{\"role\":\"user\",\"content\":[]}}\n\
        {\"kind\":\"message\",\"id\":2,\"parent_id\":1,\"message\":{\"role\":7,\"content\":[]}}\n\
        {\"kind\":\"message\",\"id\":3,\"parent_id\":1,\"message\":{\"role\":\"user\",\"content\":[]}}\n";
    let doc = run_check(crab.as_bytes());
    assert_eq!(doc["format"], "crab");
    let f = finding(&doc, "invalid_field");
    assert_eq!(f["line"], 3);
    assert!(f["message"].as_str().unwrap().starts_with("message.role:"), "{f}");
}

fn run_check(b: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", b);
    let out = run(&["check", "--json", &p]);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    out.json()
}

#[test]
fn unterminated_valid_last_line_is_accepted() {
    // A live agent has written the line but not yet its newline.
    let b = format!("{HEADER}\n{E1}\n{E2}");
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", b.as_bytes());
    let out = run(&["tree", "--json", &p]);
    assert_eq!(out.code, 0);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    assert_eq!(out.json()["latest"], "e2");
    let doc = run(&["check", "--json", &p]).json();
    assert_eq!(findings(&doc), vec![]);
    assert_eq!(doc["entries"], 2);
}

const COMMANDS: &[&[&str]] =
    &[&["tree"], &["leaves"], &["path"], &["check"], &["stats"], &["trace"], &["context"], &["query", "."]];

#[test]
fn no_mmap_reads_the_same() {
    for f in all_testdata() {
        for c in COMMANDS {
            let mut mapped: Vec<&str> = c.to_vec();
            mapped.extend(["--json", &f]);
            let mut read = mapped.clone();
            read.insert(1, "--no-mmap");
            let a = run(&mapped);
            let b = run(&read);
            assert_eq!((a.code, &a.stdout, &a.stderr), (b.code, &b.stdout, &b.stderr), "{c:?} {f}");
        }
    }
}

/// Files of 1 MiB or more are mapped, smaller ones read: a large session, with a corrupt
/// line and a torn last line, gives the same output, findings and exit code either way.
#[test]
fn mapped_large_file_reads_the_same_as_no_mmap() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    gen::arcturn_session(&mut bytes, 3 << 20, 7).unwrap();
    assert!(bytes.len() >= 3 << 20, "above the 2 MiB mapping threshold");
    let mid = bytes[..bytes.len() / 2].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(mid..mid, b"{\"type\":\"message\",\"id\":\n".iter().copied());
    bytes.extend_from_slice(b"{\"type\":\"mess");
    let p = temp_file(dir.path(), "big.jsonl", &bytes);
    for c in COMMANDS {
        let mut mapped: Vec<&str> = c.to_vec();
        mapped.extend(["--json", &p]);
        let mut read = mapped.clone();
        read.insert(1, "--no-mmap");
        let a = run(&mapped);
        let b = run(&read);
        assert_eq!((a.code, &a.stdout, &a.stderr), (b.code, &b.stdout, &b.stderr), "{c:?}");
    }
    let doc = run(&["check", "--json", &p]).json();
    assert!(doc["findings"].as_array().unwrap().len() >= 2, "the corrupt and the torn line are found: {doc}");
}

#[test]
fn stdin_reads_the_same() {
    for f in ["arcturn/branched.jsonl", "arcturn/corrupt.jsonl", "arcturn/torn.jsonl", "crab/compacted.jsonl"] {
        let f = testdata(f);
        let bytes = std::fs::read(root().join(&f)).unwrap();
        for c in COMMANDS {
            let mut file_args: Vec<&str> = c.to_vec();
            file_args.extend(["--json", &f]);
            let mut stdin_args: Vec<&str> = c.to_vec();
            stdin_args.extend(["--json", "-"]);
            let a = run(&file_args);
            let b = run_stdin(&stdin_args, &bytes);
            assert_eq!(a.code, b.code, "{c:?} {f}");
            // Apart from the `file` field (and the name in messages), the same.
            assert_eq!(a.stdout.replace(&format!("\"{f}\""), "\"-\""), b.stdout, "{c:?} {f}");
            assert_eq!(a.stderr.replace(&f, "-"), b.stderr, "{c:?} {f}");
        }
    }
}

#[test]
fn one_parent_with_100000_children() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let sum = gen::arcturn_wide(&mut w, 100_000).unwrap();
    drop(w);
    let p = path.to_str().unwrap();
    let tree = run(&["tree", "--json", p]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    let doc = tree.json();
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len() as u64, sum.entries);
    assert_eq!(nodes[0]["children"].as_array().unwrap().len(), 100_000);
    assert!(nodes[1..].iter().all(|n| n["depth"] == 1 && n["parent"] == nodes[0]["id"]));
    let leaves = run(&["leaves", "--json", p]);
    assert_eq!(leaves.code, 0);
    assert_eq!(leaves.json()["leaves"].as_array().unwrap().len() as u64, sum.leaves);
    let human = run(&["tree", "--color", "never", p]);
    assert_eq!(human.code, 0);
    assert_eq!(run(&["check", p]).code, 0);
}

#[test]
fn nothing_writes_to_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for f in ["arcturn/branched.jsonl", "arcturn/torn.jsonl", "arcturn/corrupt.jsonl", "crab/compacted.jsonl"] {
        let bytes = std::fs::read(root().join(testdata(f))).unwrap();
        inputs.push(temp_file(dir.path(), &f.replace('/', "-"), &bytes));
    }
    let listing = |d: &std::path::Path| {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        v.sort();
        v
    };
    let before_listing = listing(dir.path());
    for p in &inputs {
        let meta = std::fs::metadata(p).unwrap();
        let (bytes, mtime, len) = (std::fs::read(p).unwrap(), meta.modified().unwrap(), meta.len());
        let id = run(&["tree", "--json", p]).json()["latest"].clone();
        let id = match id {
            Value::String(s) => s,
            v => v.to_string(),
        };
        let mut all: Vec<Vec<&str>> = COMMANDS.iter().map(|c| c.to_vec()).collect();
        all.extend([vec!["show"], vec!["export", "--html"], vec!["export"], vec!["sessions"]]);
        for mut args in all {
            if args[0] == "show" {
                args = vec!["show", p, &id];
            } else if args[0] == "sessions" {
                args.push(dir.path().to_str().unwrap());
            } else {
                args.push(p);
            }
            for extra in [None, Some("--no-mmap"), Some("--strict")] {
                let mut a = args.clone();
                if let Some(x) = extra {
                    a.insert(1, x);
                }
                let out = run(&a);
                assert!(matches!(out.code, 0..=2), "{a:?}: {}", out.stderr);
            }
        }
        let meta = std::fs::metadata(p).unwrap();
        assert_eq!(std::fs::read(p).unwrap(), bytes, "{p}: bytes unchanged");
        assert_eq!(meta.modified().unwrap(), mtime, "{p}: mtime unchanged");
        assert_eq!(meta.len(), len);
    }
    assert_eq!(listing(dir.path()), before_listing, "nothing written next to the inputs");
}

/// A tool call whose arguments are `args` (raw JSON), as entry e3.
fn call_with(args: &str) -> String {
    entry3(&format!(
        r#""message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"bash","arguments":{args}}}]}}"#
    ))
}

#[test]
fn a_number_beyond_f64_in_a_payload_is_an_error_and_views_show_its_text() {
    let line = call_with(r#"{"n":1e400}"#);
    let bytes = session(&line);
    let doc = check_line3(&bytes, "number_out_of_range", "error");
    let f = finding(&doc, "number_out_of_range");
    assert_eq!(f["column"], line.find("1e400").unwrap() + 1, "{f}");
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", &bytes);
    // The views agree with check: the entry is there, the number as written, exit 2 (E).
    let show = run(&["show", "--json", &p, "e3"]);
    assert_eq!(show.code, 2, "{}", show.stderr);
    assert!(show.stdout.contains(r#""n":1e400"#), "{}", show.stdout);
    assert!(show.stderr.contains(":3:") && show.stderr.contains("number_out_of_range"), "{}", show.stderr);
    let export = run(&["export", &p, "e3"]);
    assert_eq!(export.code, 2, "{}", export.stderr);
    assert!(
        export.stdout.contains("\"1e400\"") && export.stdout.contains("number\\_out\\_of\\_range"),
        "{}",
        export.stdout
    );
    let context = run(&["context", "--json", &p, "e3"]);
    assert_eq!(context.code, 2, "{}", context.stderr);
    assert_eq!(context.json()["messages"].as_array().unwrap().len(), 2);
}

#[test]
fn a_number_beyond_f64_in_a_field_the_tool_reads_drops_the_line() {
    let line = entry3(r#""message":{"role":"assistant","content":"x","usage":{"input":1e400}}"#);
    let doc = check_line3(&session(&line), "number_out_of_range", "error");
    assert_eq!(doc["entries"], 2, "{doc}");
}

#[test]
fn duplicate_keys_inside_payloads_are_errors_and_views_show_both() {
    let line = call_with(r#"{"command":"ls","command":"rm -rf ~"}"#);
    let bytes = session(&line);
    let doc = check_line3(&bytes, "duplicate_key", "error");
    let f = finding(&doc, "duplicate_key");
    let second = line.rfind(r#""command""#).unwrap() + 1;
    let first = line.find(r#""command""#).unwrap() + 1;
    assert_eq!(f["column"], second, "{f}");
    assert!(f["message"].as_str().unwrap().contains(&format!("`command` (first at column {first})")), "{f}");
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "s.jsonl", &bytes);
    let show = run(&["show", &p, "e3"]);
    assert_eq!(show.code, 2, "{}", show.stderr);
    assert!(show.stdout.contains(r#""command":"ls","command":"rm -rf ~""#), "{}", show.stdout);
    for html in [false, true] {
        let args: &[&str] = if html { &["export", "--html", &p, "e3"] } else { &["export", &p, "e3"] };
        let export = run(args);
        assert_eq!(export.code, 2, "{}", export.stderr);
        assert!(export.stdout.contains(&format!("(first at column {first})")), "{}", export.stdout);
    }
}

#[test]
fn duplicate_keys_are_found_at_any_depth_and_in_any_object_size() {
    // Nested in a skipped payload, escaped spelling of the same key, and a big object whose
    // duplicate comes after the first sixteen keys.
    let wide: Vec<String> = (0..40).map(|k| format!(r#""k{k}":{k}"#)).collect();
    for args in [
        r#"{"a":[{"x":{"deep":1,"deep":2}}]}"#.to_string(),
        r#"{"key":1,"k\u0065y":2}"#.to_string(),
        format!("{{{},\"k3\":0}}", wide.join(",")),
    ] {
        check_line3(&session(&call_with(&args)), "duplicate_key", "error");
    }
    // ... and at the top level of a record, in a field no decoder declares.
    check_line3(
        &session(&entry3(r#""message":{"role":"user","content":"x"},"extra":1,"extra":2"#)),
        "duplicate_key",
        "error",
    );
}

#[test]
fn empty_and_header_only_files_have_no_entries_and_exit_0_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("empty.jsonl", String::new()),
        ("arcturn.jsonl", format!("{HEADER}\n")),
        ("crab.jsonl", "{\"kind\":\"meta\",\"format_version\":2,\"created\":1793610000000}\n".to_string()),
    ];
    for (name, text) in files {
        let p = temp_file(dir.path(), name, text.as_bytes());
        for cmd in ["tree", "path", "leaves", "check", "trace", "stats", "context", "export"] {
            // `export` writes Markdown or HTML and refuses --json.
            for json in [false, true].into_iter().filter(|&j| !(j && cmd == "export")) {
                let mut args = vec![cmd];
                if json {
                    args.push("--json");
                }
                args.push(&p);
                let out = run(&args);
                assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
                assert!(!out.stderr.contains("error"), "{args:?}: {}", out.stderr);
            }
        }
        let html = run(&["export", "--html", &p]);
        assert_eq!(html.code, 0, "{}", html.stderr);
        assert!(run(&["export", &p]).stdout.contains("no entries"));
        let context = run(&["context", "--json", &p]).json();
        assert_eq!(context["leaf"], Value::Null);
        for list in ["messages", "skipped", "elided", "withheld_thinking", "compactions"] {
            assert_eq!(context[list], serde_json::json!([]), "{list}");
        }
        let query = run(&["query", ".", &p]);
        assert_eq!((query.code, query.stdout.as_str()), (0, ""), "{}", query.stderr);
    }
}
