//! `check`: the integrity report of every testdata file against the findings listed by hand in
//! testdata/README.md, the human layout, several inputs at once, `--strict`, the JSONTestSuite
//! corpus spliced into a session (no crash, no hang, the damaged line named), and a generated
//! 50 MB session against the generator's own counts.

mod common;
#[path = "gen/mod.rs"]
mod gen;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// One expected finding: severity, code, line.
type Want = (&'static str, &'static str, u64);

struct Expect {
    file: &'static str,
    ok: bool,
    lines: u64,
    entries: u64,
    findings: &'static [Want],
}

/// Transcribed from testdata/README.md (not from the program's output). Where the README
/// gives no line for a whole-file warning, the line is the one the finding is about: the
/// second root for `multiple_roots`, the first line for `missing_header`. `lines` counts
/// every line of the file, so a torn last line still counts as one.
const EXPECTED: &[Expect] = &[
    Expect { file: "arcturn/basic.jsonl", ok: true, lines: 9, entries: 8, findings: &[] },
    Expect { file: "arcturn/branched.jsonl", ok: true, lines: 70, entries: 69, findings: &[] },
    Expect {
        file: "arcturn/corrupt.jsonl",
        ok: false,
        lines: 12,
        entries: 9,
        findings: &[
            ("error", "corrupt_line", 6),
            ("error", "dangling_parent", 7),
            ("warning", "tool_call_without_result", 5),
            ("warning", "blank_lines", 11),
        ],
    },
    Expect {
        file: "arcturn/crlf.jsonl",
        ok: true,
        lines: 5,
        entries: 4,
        findings: &[("warning", "byte_order_mark", 1)],
    },
    Expect {
        file: "arcturn/damaged_tree.jsonl",
        ok: false,
        lines: 16,
        entries: 15,
        findings: &[
            ("error", "duplicate_id", 7),
            ("error", "self_parent", 8),
            ("error", "cycle", 9),
            ("error", "compaction_target_not_ancestor", 15),
            ("warning", "lone_surrogate", 5),
            ("warning", "tool_call_without_result", 5),
            ("warning", "unknown_kind", 11),
            ("warning", "tool_result_without_call", 12),
        ],
    },
    Expect {
        file: "arcturn/hostile.jsonl",
        ok: true,
        lines: 13,
        entries: 12,
        findings: &[("warning", "invalid_session_id", 1)],
    },
    Expect {
        file: "arcturn/multi_root.jsonl",
        ok: false,
        lines: 11,
        entries: 10,
        findings: &[("error", "dangling_parent", 10), ("warning", "multiple_roots", 6)],
    },
    Expect {
        file: "arcturn/no_header.jsonl",
        ok: true,
        lines: 6,
        entries: 6,
        findings: &[("warning", "missing_header", 1)],
    },
    Expect {
        file: "arcturn/torn.jsonl",
        ok: true,
        lines: 10,
        entries: 8,
        findings: &[("warning", "tool_call_without_result", 9), ("warning", "torn_last_line", 10)],
    },
    Expect { file: "crab/basic.jsonl", ok: true, lines: 27, entries: 12, findings: &[] },
    Expect {
        file: "crab/compacted.jsonl",
        ok: true,
        lines: 54,
        entries: 24,
        findings: &[("warning", "unknown_obs", 37)],
    },
    Expect { file: "crab/torn.jsonl", ok: true, lines: 9, entries: 3, findings: &[("warning", "torn_last_line", 9)] },
    Expect { file: "crab/v1_no_meta.jsonl", ok: true, lines: 9, entries: 4, findings: &[] },
];

fn findings_of(doc: &Value) -> Vec<(String, String, u64)> {
    let mut v: Vec<(String, String, u64)> = doc["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    v.sort();
    v
}

fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"].as_array().unwrap().iter().find(|f| f["code"] == code).unwrap_or_else(|| panic!("no {code}"))
}

#[test]
fn every_testdata_file_has_exactly_the_readme_findings() {
    let covered: Vec<String> = EXPECTED.iter().map(|e| testdata(e.file)).collect();
    for f in all_testdata().iter().filter(|f| f.starts_with("testdata/arcturn/") || f.starts_with("testdata/crab/")) {
        assert!(covered.contains(f), "{f} is in testdata but not in EXPECTED: add its README facts");
    }
    for e in EXPECTED {
        let path = testdata(e.file);
        let out = run(&["check", "--json", &path]);
        assert_eq!(out.code, if e.ok { 0 } else { 1 }, "{}: exit code; stderr: {}", e.file, out.stderr);
        let doc = out.json();
        assert_eq!(doc["schema_version"], 1);
        assert_eq!(doc["file"], path.as_str());
        assert_eq!(doc["format"], if e.file.starts_with("crab") { "crab" } else { "arcturn" });
        assert_eq!(doc["ok"], e.ok, "{}", e.file);
        assert_eq!(doc["lines"], e.lines, "{}: lines", e.file);
        assert_eq!(doc["entries"], e.entries, "{}: entries", e.file);
        let mut want: Vec<(String, String, u64)> =
            e.findings.iter().map(|(s, c, l)| (s.to_string(), c.to_string(), *l)).collect();
        want.sort();
        assert_eq!(findings_of(&doc), want, "{}: findings (severity, code, line)", e.file);
        for f in doc["findings"].as_array().unwrap() {
            assert!(
                f.get("id").is_some() && f.get("message").is_some(),
                "{}: every finding has id and message",
                e.file
            );
            assert!(!f["message"].as_str().unwrap().is_empty());
        }
    }
}

#[test]
fn finding_details_from_the_readme() {
    let corrupt = run(&["check", "--json", "testdata/arcturn/corrupt.jsonl"]).json();
    let c = finding(&corrupt, "corrupt_line");
    assert_eq!(c["column"], 57, "the space where the comma belongs");
    assert!(c["message"].as_str().unwrap().contains("expected `,` or `}`"), "{c}");
    assert_eq!(finding(&corrupt, "dangling_parent")["id"], "00290f12");
    assert!(finding(&corrupt, "tool_call_without_result")["message"].as_str().unwrap().contains("call_02"));

    let torn = run(&["check", "--json", "testdata/arcturn/torn.jsonl"]).json();
    assert!(finding(&torn, "torn_last_line")["message"].as_str().unwrap().contains("218 bytes"));
    assert!(finding(&torn, "tool_call_without_result")["message"].as_str().unwrap().contains("call_03"));
    let crab_torn = run(&["check", "--json", "testdata/crab/torn.jsonl"]).json();
    assert!(finding(&crab_torn, "torn_last_line")["message"].as_str().unwrap().contains("144 bytes"));

    let d = run(&["check", "--json", "testdata/arcturn/damaged_tree.jsonl"]).json();
    let dup = finding(&d, "duplicate_id");
    assert_eq!(dup["id"], "22dc0816");
    assert!(dup["message"].as_str().unwrap().contains("line 3"), "both lines are named: {dup}");
    let cycle = &finding(&d, "cycle")["message"];
    assert!(cycle.as_str().unwrap().contains("line 9") && cycle.as_str().unwrap().contains("line 10"), "{cycle}");
    assert_eq!(finding(&d, "self_parent")["id"], "c2e3f1a8");
    assert!(finding(&d, "unknown_kind")["message"].as_str().unwrap().contains("bookmark2"));
    assert!(finding(&d, "tool_result_without_call")["message"].as_str().unwrap().contains("call_99"));
    assert!(finding(&d, "compaction_target_not_ancestor")["message"].as_str().unwrap().contains("4e1fe812"));

    let m = run(&["check", "--json", "testdata/arcturn/multi_root.jsonl"]).json();
    let dangling = finding(&m, "dangling_parent");
    assert_eq!(dangling["id"], "17d625f8");
    assert!(dangling["message"].as_str().unwrap().contains("5e0c77aa"));

    let h = run(&["check", "--json", "testdata/arcturn/hostile.jsonl"]).json();
    assert!(finding(&h, "invalid_session_id")["message"].as_str().unwrap().contains("/../"));
    let crab = run(&["check", "--json", "testdata/crab/compacted.jsonl"]).json();
    assert!(finding(&crab, "unknown_obs")["message"].as_str().unwrap().contains("retry"));
}

#[test]
fn human_output_groups_errors_then_warnings() {
    // One line per finding: --wide keeps long findings unwrapped.
    let out = run(&["check", "--wide", "--color", "never", "testdata/arcturn/damaged_tree.jsonl"]);
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 9, "8 findings and a summary:\n{}", out.stdout);
    let file = "testdata/arcturn/damaged_tree.jsonl";
    let mut severities = Vec::new();
    for l in &lines[..8] {
        // FILE:LINE[:COL]: severity: message [code]
        let rest = l.strip_prefix(file).unwrap_or_else(|| panic!("starts with the file: {l}"));
        let rest = rest.strip_prefix(':').unwrap();
        let (pos, rest) = rest.split_once(": ").unwrap();
        assert!(pos.split(':').all(|n| n.parse::<u32>().is_ok()), "LINE[:COL]: {l}");
        let (sev, rest) = rest.split_once(": ").unwrap();
        assert!(rest.ends_with(']') && rest.contains(" ["), "message [code]: {l}");
        severities.push(sev);
    }
    assert_eq!(severities, ["error"; 4].iter().chain(["warning"; 4].iter()).copied().collect::<Vec<_>>());
    assert!(lines[0].starts_with(&format!("{file}:7: error: ")) && lines[0].ends_with("[duplicate_id]"));
    assert!(lines.iter().any(|l| l.starts_with(&format!("{file}:5: warning: ")) && l.ends_with("[lone_surrogate]")));
    let summary = lines[8];
    assert!(summary.starts_with("FAIL ") && summary.contains("4 errors, 4 warnings"), "{summary}");
    assert!(summary.contains("16 lines") && summary.contains("15 entries"), "{summary}");

    let corrupt = run(&["check", "--color", "never", "testdata/arcturn/corrupt.jsonl"]);
    assert!(corrupt.stdout.lines().next().unwrap().starts_with("testdata/arcturn/corrupt.jsonl:6:57: error: "));

    let clean = run(&["check", "--color", "never", "testdata/arcturn/basic.jsonl"]);
    assert_eq!(clean.code, 0);
    assert_eq!(clean.stdout.lines().count(), 1, "a clean file is one summary line");
    assert!(clean.stdout.starts_with("ok ") && clean.stdout.contains("0 errors, 0 warnings"), "{}", clean.stdout);

    let quiet = run(&["check", "-q", "--color", "never", "testdata/arcturn/damaged_tree.jsonl"]);
    assert_eq!(quiet.code, 1);
    assert!(!quiet.stdout.contains(": warning: "), "-q hides warnings:\n{}", quiet.stdout);
    assert_eq!(quiet.stdout.matches(": error: ").count(), 4);
}

#[test]
fn several_files_give_one_document_each() {
    let out = run(&["check", "--json", "testdata/arcturn/basic.jsonl", "testdata/arcturn/corrupt.jsonl"]);
    assert_eq!(out.code, 1, "one file has errors");
    let docs = out.ndjson();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["file"], "testdata/arcturn/basic.jsonl");
    assert_eq!(docs[0]["ok"], true);
    assert_eq!(docs[1]["ok"], false);

    let clean = run(&["check", "--json", "testdata/arcturn/basic.jsonl", "testdata/crab/basic.jsonl"]);
    assert_eq!(clean.code, 0);
    assert_eq!(clean.ndjson().len(), 2);

    // A directory is walked for *.jsonl.
    let dir = run(&["check", "--json", "testdata/crab"]);
    assert_eq!(dir.code, 0, "{}", dir.stderr);
    let mut files: Vec<String> = dir.ndjson().iter().map(|d| d["file"].as_str().unwrap().to_string()).collect();
    files.sort();
    let names: Vec<&str> = files.iter().map(|f| f.rsplit('/').next().unwrap()).collect();
    assert_eq!(names, ["basic.jsonl", "compacted.jsonl", "torn.jsonl", "v1_no_meta.jsonl"]);
    assert!(dir.ndjson().iter().all(|d| d["format"] == "crab"));

    let human = run(&["check", "--color", "never", "testdata/crab"]);
    assert_eq!(human.code, 0);
    assert!(human.stdout.lines().last().unwrap().starts_with("4 files checked"), "{}", human.stdout);
}

#[test]
fn a_missing_file_among_others() {
    let out =
        run(&["check", "--json", "testdata/arcturn/basic.jsonl", "testdata/nosuch.jsonl", "testdata/crab/basic.jsonl"]);
    assert_eq!(out.code, 2, "an unreadable input is an error");
    let docs = out.ndjson();
    assert_eq!(docs.len(), 2, "the other files are still checked");
    assert_eq!(docs[0]["file"], "testdata/arcturn/basic.jsonl");
    assert_eq!(docs[1]["file"], "testdata/crab/basic.jsonl");
    assert!(out.stderr.contains("testdata/nosuch.jsonl: no such file or directory"), "{}", out.stderr);
    // The exit status for an unreadable file beats the one for errors found.
    let out = run(&["check", "--json", "testdata/arcturn/corrupt.jsonl", "testdata/nosuch.jsonl"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.ndjson().len(), 1);
}

#[test]
fn strict_turns_warnings_into_errors() {
    let out = run(&["check", "--strict", "--json", "testdata/arcturn/crlf.jsonl"]);
    assert_eq!(out.code, 1, "a warning is an error with --strict");
    let doc = out.json();
    assert_eq!(doc["ok"], false);
    assert_eq!(findings_of(&doc), vec![("error".to_string(), "byte_order_mark".to_string(), 1)]);
    let torn = run(&["check", "--strict", "--json", "testdata/arcturn/torn.jsonl"]).json();
    assert!(torn["findings"].as_array().unwrap().iter().all(|f| f["severity"] == "error"));
    assert_eq!(torn["findings"].as_array().unwrap().len(), 2);
    let clean = run(&["check", "--strict", "testdata/arcturn/basic.jsonl"]);
    assert_eq!(clean.code, 0, "no findings, nothing to turn");
    let without = run(&["check", "testdata/arcturn/crlf.jsonl"]);
    assert_eq!(without.code, 0);
}

// ---------------------------------------------------------------------------------------
// JSONTestSuite spliced into a session

const HEADER: &str =
    r#"{"kind":"session","version":1,"id":"s-splice","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}"#;
const FIRST: &str = r#"{"kind":"message","id":"e1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1793610001000}}"#;
const LAST: &str = r#"{"kind":"message","id":"e2","parentId":"e1","timestamp":"2026-11-02T09:00:02.000Z","message":{"role":"user","content":"again","timestamp":1793610002000}}"#;

/// The corpus, from the copy of shared/ beside the checkout (where CI puts it too).
fn suite() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/jsontestsuite");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        prereq::missing(
            &format!("JSONTestSuite corpus {} not found", dir.display()),
            "check out shared/ beside the crate",
            "ARCTURN_REQUIRE_SHARED",
        );
        return None;
    };
    let mut files: Vec<PathBuf> =
        rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    assert!(files.len() >= 300, "the corpus has 318 files, found {}", files.len());
    Some(files)
}

fn splice(doc: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(HEADER.as_bytes());
    b.push(b'\n');
    b.extend_from_slice(FIRST.as_bytes());
    b.push(b'\n');
    b.extend(doc.iter().map(|&c| if c == b'\n' { b' ' } else { c }));
    b.push(b'\n');
    b.extend_from_slice(LAST.as_bytes());
    b.push(b'\n');
    b
}

/// Run with a deadline: a hang is a failure, not a stuck test run.
fn run_timeout(args: &[&str], limit: Duration) -> Out {
    let mut child =
        cmd().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let o = child.wait_with_output().unwrap();
    // No exit code means a signal: a stack overflow or an abort.
    let code = o.status.code().unwrap_or_else(|| panic!("{args:?} was killed by a signal: {:?}", o.status));
    Out {
        code,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn is_blank(b: &[u8]) -> bool {
    b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

#[test]
fn json_test_suite_spliced_into_check() {
    let Some(files) = suite() else { return };
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for deep in ["n_structure_100000_opening_arrays.json", "n_structure_open_array_object.json"] {
        assert!(names.iter().any(|n| n == deep), "{deep} is part of the run");
    }
    for (f, name) in files.iter().zip(&names) {
        let raw = std::fs::read(f).unwrap();
        let p = temp_file(dir.path(), &format!("{name}l"), &splice(&raw));
        let out = run_timeout(&["check", "--json", &p], Duration::from_secs(20));
        assert!(matches!(out.code, 0..=2), "{name}: exit {}", out.code);
        assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
        if out.code == 2 {
            continue;
        }
        let doc = out.json();
        assert!(doc["entries"].as_u64().unwrap() >= 2, "{name}: both entries around line 3 survive: {doc}");
        let at3: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["line"] == 3)
            .map(|x| x["code"].as_str().unwrap())
            .collect();
        if name.starts_with("n_") {
            assert!(!at3.is_empty(), "{name}: an invalid document gives a finding at line 3: {doc}");
            if is_blank(&raw) {
                assert_eq!(at3, ["blank_lines"], "{name}");
            } else {
                assert_eq!(doc["ok"], false, "{name}: {doc}");
                assert_eq!(out.code, 1, "{name}");
            }
        }
        if name.starts_with("y_") {
            assert!(
                !at3.iter().any(|c| matches!(*c, "corrupt_line" | "invalid_utf8")),
                "{name}: valid JSON is never called corrupt: {at3:?}"
            );
        }
    }
}

#[test]
fn json_test_suite_spliced_into_tree() {
    let Some(files) = suite() else { return };
    let dir = tempfile::tempdir().unwrap();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read(f).unwrap();
        let p = temp_file(dir.path(), &format!("{name}l"), &splice(&raw));
        let out = run_timeout(&["tree", "--json", &p], Duration::from_secs(20));
        assert!(matches!(out.code, 0..=2), "{name}: exit {}", out.code);
        assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
        let doc = out.json();
        let ids: Vec<&Value> = doc["nodes"].as_array().unwrap().iter().map(|n| &n["id"]).collect();
        assert!(ids.contains(&&Value::from("e1")) && ids.contains(&&Value::from("e2")), "{name}: {ids:?}");
        if name.starts_with("n_") && !is_blank(&raw) {
            assert_eq!(out.code, 2, "{name}: a corrupt line before the last is exit 2");
            assert!(out.stderr.contains(&format!("{p}:3:")), "{name}: stderr names FILE:3: {}", out.stderr);
        }
        if name.starts_with("n_") && is_blank(&raw) {
            assert_eq!(out.code, 0, "{name}: a blank line is skipped, not damage");
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    // Deep inside a payload the decoder otherwise skips: it must be reported, or `show`
    // would fail on a line `check` called fine.
    let deep = format!(
        r#"{{"kind":"message","id":"d","parentId":"e1","timestamp":"2026-11-02T09:00:01.500Z","message":{{"role":"user","content":"x","extra":{}{}}}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let p = temp_file(dir.path(), "deep.jsonl", &splice(deep.as_bytes()));
    let out = run_timeout(&["check", "--json", &p], Duration::from_secs(20));
    assert_eq!(out.code, 1);
    let doc = out.json();
    let f = finding(&doc, "nesting_too_deep");
    assert_eq!(f["line"], 3);
    assert_eq!(f["severity"], "error");
    assert!(f["message"].as_str().unwrap().contains("nesting too deep (limit "), "{f}");
    let tree = run_timeout(&["tree", "--json", &p], Duration::from_secs(20));
    assert_eq!(tree.code, 2);
    assert!(tree.stderr.contains(&format!("{p}:3:")) && tree.stderr.contains("nesting too deep"), "{}", tree.stderr);
    // Just under the limit is fine everywhere, `show` included.
    let ok = format!(
        r#"{{"kind":"message","id":"d","parentId":"e1","timestamp":"2026-11-02T09:00:01.500Z","message":{{"role":"user","content":"x","extra":{}{}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let p = temp_file(dir.path(), "ok.jsonl", &splice(ok.as_bytes()));
    assert_eq!(run(&["check", &p]).code, 0);
    let show = run(&["show", "--json", &p, "d"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert_eq!(show.json(), serde_json::from_str::<Value>(&ok).unwrap());
}

// ---------------------------------------------------------------------------------------
// Scale

#[test]
fn fifty_megabyte_generated_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let sum = gen::arcturn_session(&mut w, 50 << 20, 0x5eed).unwrap();
    drop(w);
    let p = path.to_str().unwrap();
    let check = run(&["check", "--json", p]);
    assert_eq!(check.code, 0, "{}", check.stdout.chars().take(2000).collect::<String>());
    let doc = check.json();
    assert_eq!(doc["entries"], sum.entries);
    assert_eq!(doc["lines"], sum.lines);
    let leaves = run(&["leaves", "--json", p]);
    assert_eq!(leaves.code, 0);
    let leaves = leaves.json();
    assert_eq!(leaves["leaves"].as_array().unwrap().len() as u64, sum.leaves);
    assert_eq!(leaves["latest"].as_str().unwrap(), sum.latest_id);
    let stats = run(&["stats", "--json", p]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let s = &stats.json()["sessions"][0];
    assert_eq!(s["entries"], sum.entries);
    assert_eq!(s["usage"]["input"], sum.input_tokens_total);
    assert_eq!(s["usage"]["output"], sum.output_tokens_total);
    assert_eq!(s["usage"]["cache_read"], sum.cache_read_tokens_total);
    assert_eq!(s["usage"]["cache_write"], sum.cache_write_tokens_total);
    let cost = s["usage"]["cost"].as_f64().unwrap();
    assert!((cost - sum.cost_total).abs() <= 1e-6 * sum.cost_total.max(1.0), "cost {cost} vs {}", sum.cost_total);
    assert_eq!(s["leaves"], sum.leaves);
    assert_eq!(s["max_depth"], sum.max_depth);
}

#[test]
fn many_files_are_reported_in_the_order_given() {
    // More files than one parallel window holds (four per CPU): every testdata session
    // (clean, damaged, every format), given in reverse order, twice over. Each document and
    // each human summary must come in the order of the arguments, whichever file finished first.
    let mut files = common::all_testdata();
    files.reverse();
    let twice: Vec<String> = files.iter().chain(files.iter()).cloned().collect();
    let mut args = vec!["check", "--json"];
    args.extend(twice.iter().map(String::as_str));
    let out = run(&args);
    let reported: Vec<String> = out.ndjson().iter().map(|d| d["file"].as_str().unwrap().to_string()).collect();
    // A file that cannot be read as a session is on stderr, not in the documents.
    let unread: Vec<&String> = twice.iter().filter(|f| !reported.contains(f)).collect();
    let expected: Vec<&String> = twice.iter().filter(|f| reported.contains(f)).collect();
    assert_eq!(reported.iter().collect::<Vec<_>>(), expected, "documents out of order");
    assert!(reported.len() > 64, "only {} documents: the test needs several windows", reported.len());
    for f in unread {
        assert!(out.stderr.contains(f.as_str()), "{f} is neither reported nor named on stderr:\n{}", out.stderr);
    }
    let mut human = vec!["check", "--color", "never"];
    human.extend(twice.iter().map(String::as_str));
    let text = run(&human).stdout;
    let order: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("ok ").or_else(|| l.strip_prefix("FAIL ")))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    let expected: Vec<&str> = expected.iter().map(|s| s.as_str()).collect();
    assert_eq!(order, expected, "human summaries out of order");
}

/// A kind written with escapes is read as its text, whether it names a known kind or not:
/// the reader keeps a reference into the file for a plain name and an unescaped copy for an
/// escaped one, and every view must see the same name either way.
#[test]
fn an_escaped_kind_name_reads_as_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let session = concat!(
        r#"{"kind":"session","version":1,"id":"s-1","timestamp":"2026-11-06T16:40:00.390Z","cwd":"/w"}"#,
        "\n",
        r#"{"kind":"mess\u0061ge","id":"a1","parentId":null,"timestamp":"2026-11-06T16:41:42.480Z","message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"kind":"bookm\u0061rk","id":"b2","parentId":"a1","timestamp":"2026-11-06T16:41:43.480Z"}"#,
        "\n",
        r#"{"kind":"bookmark","id":"c3","parentId":"b2","timestamp":"2026-11-06T16:41:44.480Z"}"#,
        "\n",
    );
    let p = temp_file(dir.path(), "escaped-kind.jsonl", session.as_bytes());

    let doc = run(&["check", "--json", &p]).json();
    assert_eq!(doc["entries"], 3, "{doc}");
    let unknown: Vec<(u64, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "unknown_kind")
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    // `mess\u0061ge` is the known kind `message`; both spellings of `bookmark` are one name,
    // so one finding names both lines.
    assert_eq!(unknown.len(), 1, "{doc}");
    let (line, message) = unknown[0];
    assert!(line == 3 && message.contains("`bookmark`") && message.contains("lines: 3, 4"), "{line}: {message}");

    let rows = run(&["rows", "--table", "entries", &p]).ndjson();
    let kinds: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["kind"].as_str().unwrap(), r["kind_name"].as_str().unwrap())).collect();
    assert_eq!(kinds, [("message", "message"), ("unknown", "bookmark"), ("unknown", "bookmark")]);

    let tree = run(&["tree", "--color", "never", &p]).stdout;
    assert_eq!(tree.matches("bookmark?").count(), 2, "{tree}");
}
