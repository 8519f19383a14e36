//! `grep`: run as a user would, on every format's test data and on sessions built here, so
//! that what must be found (and what must not) follows from what the files say.

mod common;

use common::*;
use serde_json::{json, Value};

/// The text a hit's submatches cover.
fn matched(hit: &Value) -> Vec<String> {
    let text = hit["text"].as_str().unwrap();
    hit["submatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| text[m["start"].as_u64().unwrap() as usize..m["end"].as_u64().unwrap() as usize].to_string())
        .collect()
}

fn hits(args: &[&str]) -> Vec<Value> {
    let mut a = vec!["grep", "--json"];
    a.extend_from_slice(args);
    let out = run(&a);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    out.ndjson()
}

#[test]
fn every_format_is_searched_by_its_decoded_text() {
    // (file, pattern, line, entry id, role): each prompt as the file's own lines say it.
    let cases = [
        ("testdata/arcturn/basic.jsonl", "UTF-8 fixtures", "arcturn", 2, json!("8201e2bd"), "user"),
        ("testdata/crab/basic.jsonl", "show them as 1\\.84 s", "crab", 3, json!(1), "user"),
        ("testdata/pi/v3-compacted.jsonl", "split lexing", "pi", 3, json!("a0000002"), "user"),
        ("testdata/claude/split.jsonl", "`mix test` fail", "claude", 3, json!("u1"), "user"),
        ("testdata/codex/rollback.jsonl", "second, again", "codex", 13, json!("L13"), "user"),
    ];
    for (file, pattern, format, line, id, role) in cases {
        let h = hits(&[pattern, file]);
        assert_eq!(h.len(), 1, "{file}: {h:?}");
        let h = &h[0];
        assert_eq!(h["file"], file);
        assert_eq!(h["format"], format);
        assert_eq!(h["line"], line, "{file}");
        assert_eq!(h["entry_id"], id, "{file}: ids keep their JSON type");
        assert_eq!(h["role"], role);
        assert_eq!(h["tool"], Value::Null);
        assert_eq!(matched(h).len(), 1);
    }
}

#[test]
fn a_directory_is_searched_in_input_order_with_every_format() {
    let out = run(&[
        "grep",
        "-l",
        "-q",
        "e",
        "testdata/arcturn",
        "testdata/crab",
        "testdata/pi",
        "testdata/claude",
        "testdata/codex",
    ]);
    // testdata/arcturn/corrupt.jsonl has a damaged line: still searched, exit 2.
    assert_eq!(out.code, 2, "{}", out.stderr);
    let files: Vec<&str> = out.stdout.lines().collect();
    for dir in ["arcturn", "crab", "pi", "claude", "codex"] {
        assert!(files.iter().any(|f| f.starts_with(&format!("testdata/{dir}/"))), "{dir}: {files:?}");
    }
    let order: Vec<usize> = ["arcturn", "crab", "pi", "claude", "codex"]
        .iter()
        .map(|d| files.iter().position(|f| f.contains(d)).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "input order: {files:?}");
}

/// A user prompt whose text is escaped in the file: a newline, quotes, a backslash, `é`
/// as `\u00e9`, an emoji as a surrogate pair.
fn escaped_session(dir: &std::path::Path) -> String {
    let mut b = ArcturnBuilder::new();
    b.raw(
        r#"{"kind":"message","id":"e1","parentId":null,"timestamp":"2026-11-02T09:00:01.000Z","message":{"role":"user","content":"first line\nsay \"hi\" to the caf\u00e9 \ud83d\ude00 at C:\\temp"}}"#,
    );
    b.write(dir, "escaped.jsonl")
}

#[test]
fn escaped_text_is_found_by_its_decoded_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = escaped_session(dir.path());
    for pattern in ["line\nsay", r"line\nsay", "say \"hi\"", "café", "\u{1F600}", r"C:\\temp", r"^say"] {
        let h = hits(&[pattern, &f]);
        assert_eq!(h.len(), 1, "{pattern:?}");
        assert_eq!(h[0]["entry_id"], "e1");
    }
    let h = hits(&["-F", "C:\\temp", &f]);
    assert_eq!(matched(&h[0]), ["C:\\temp"]);
    // A match across the newline shows both lines of the text, offsets into them.
    let h = hits(&["line\nsay", &f]);
    assert_eq!(h[0]["text"], "first line\nsay \"hi\" to the café 😀 at C:\\temp");
    assert_eq!(h[0]["text_line"], 1);
    assert_eq!(matched(&h[0]), ["line\nsay"]);
    // The file's escapes are JSON syntax, not text: none of them is found.
    for pattern in [r"\\n", r#"\\""#, "u00e9", "ud83d"] {
        let out = run(&["grep", pattern, &f]);
        assert_eq!(out.code, 1, "{pattern:?} must not match: {}", out.stdout);
        assert_eq!(out.stdout, "");
    }
}

/// A session with two tool calls (bash, read), their results (one without a tool name,
/// one an error), thinking-free text in every role.
fn tools_session(dir: &std::path::Path) -> String {
    let mut b = ArcturnBuilder::new();
    b.user("u1", None, "Clean the Build folder\nthen list src")
        .assistant(
            "a1",
            "u1",
            "Removing build and reading src/main.rs",
            &[
                ("c1", "bash", json!({"command": "rm -rf build", "timeout": 30})),
                ("c2", "read", json!({"path": "src/main.rs"})),
            ],
            Use(10, 5, 0, 0, 0.01),
        )
        .result("r1", "a1", "c1", None, "removed build/\nremoved build/out.o", false)
        .result("r2", "a1", "c2", Some("read"), "error: src/main.rs: no such file", true)
        .assistant("a2", "r2", "The build folder is gone; src/main.rs does not exist.", &[], Use(20, 8, 0, 0, 0.02));
    b.write(dir, "tools.jsonl")
}

#[test]
fn case_word_and_fixed_strings() {
    let dir = tempfile::tempdir().unwrap();
    let f = tools_session(dir.path());
    // `Build` only in the prompt; -i finds every build.
    assert_eq!(hits(&["Build", &f]).len(), 1);
    let all = hits(&["-i", "build", &f]);
    let ids: Vec<&str> = all.iter().map(|h| h["entry_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["u1", "a1", "a1", "r1", "r1", "a2"]);
    // -w: `main` as a word is in `src/main.rs`; `mai` is not a word anywhere.
    assert!(!hits(&["-w", "main", &f]).is_empty());
    assert_eq!(run(&["grep", "-w", "mai", &f]).code, 1);
    // -F: `main.rs` as text; as a regex `.` would also match `mainXrs`.
    assert_eq!(run(&["grep", "-F", "main.r.", &f]).code, 1);
    assert_eq!(run(&["grep", "main.r.", &f]).code, 0);
}

#[test]
fn roles_and_tools_select_parts() {
    let dir = tempfile::tempdir().unwrap();
    let f = tools_session(dir.path());
    let user = hits(&["--role", "user", "-i", "build", &f]);
    assert_eq!(
        user.iter().map(|h| (h["entry_id"].as_str().unwrap(), h["role"].as_str().unwrap())).collect::<Vec<_>>(),
        [("u1", "user")]
    );
    let results = hits(&["--role", "tool_result", "build", &f]);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|h| h["role"] == "tool_result" && h["entry_id"] == "r1"));
    // The result r1 names no tool: its call id c1 names `bash`.
    assert!(results.iter().all(|h| h["tool"] == "bash"), "{results:?}");
    // --tool bash: the call's arguments and the result, nothing else.
    let bash = hits(&["--tool", "bash", "build", &f]);
    let got: Vec<(&str, &str, &str)> = bash
        .iter()
        .map(|h| (h["entry_id"].as_str().unwrap(), h["role"].as_str().unwrap(), h["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("a1", "assistant", "rm -rf build"),
            ("r1", "tool_result", "removed build/"),
            ("r1", "tool_result", "removed build/out.o")
        ]
    );
    assert_eq!(bash[0]["part"], "tool_call");
    // Keys and non-text values of arguments are not text that was said.
    assert_eq!(run(&["grep", "--tool", "bash", "command|timeout|30", &f]).code, 1);
    let read = hits(&["--tool", "read", "-F", "src/main.rs", &f]);
    assert_eq!(read.iter().map(|h| h["entry_id"].as_str().unwrap()).collect::<Vec<_>>(), ["a1", "r2"]);
    // Unknown role names are a usage error.
    assert_eq!(run(&["grep", "--role", "robot", "x", &f]).code, 2);
}

#[test]
fn files_with_matches_count_and_context() {
    let dir = tempfile::tempdir().unwrap();
    let f = tools_session(dir.path());
    let g = escaped_session(dir.path());
    let out = run(&["grep", "-l", "build", &f, &g]);
    assert_eq!((out.code, out.stdout.clone()), (0, format!("{f}\n")));
    let out = run(&["grep", "-c", "-i", "build", &f, &g]);
    assert_eq!((out.code, out.stdout.clone()), (0, format!("{f}:6\n")));
    let out = run(&["grep", "--json", "-c", "-i", "build", &f]);
    assert_eq!(out.json(), json!({"file": f, "format": "arcturn", "count": 6}));
    // -C 1 around the second line of r1's text: the line before, nothing after.
    let out = run(&["grep", "-C", "1", "--role", "tool_result", "out\\.o", &f]);
    assert_eq!(out.code, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    // r1 is on line 4 (header, u1, a1, r1).
    assert_eq!(
        lines,
        [
            format!("{f}-4- r1 tool_result/bash- removed build/"),
            format!("{f}:4: r1 tool_result/bash: removed build/out.o")
        ]
    );
    // Without context, no separators and no context lines.
    let out = run(&["grep", "--role", "tool_result", "out\\.o", &f]);
    assert_eq!(out.stdout.lines().count(), 1);
}

#[test]
fn exit_status_is_as_ripgrep() {
    let dir = tempfile::tempdir().unwrap();
    let f = tools_session(dir.path());
    assert_eq!(run(&["grep", "build", &f]).code, 0);
    assert_eq!(run(&["grep", "no such words", &f]).code, 1);
    let bad = run(&["grep", "(unclosed", &f]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("does not compile"), "{}", bad.stderr);
    let missing = run(&["grep", "build", &f, "no/such/file.jsonl"]);
    assert_eq!(missing.code, 2, "an unreadable input is an error even with a match");
    assert!(missing.stdout.contains("removed build"), "the readable file is still searched");
}

#[test]
fn damaged_lines_are_reported_and_the_rest_searched() {
    // Line 6 of corrupt.jsonl is not JSON (a missing comma); lines after it are entries.
    let out = run(&["grep", "--json", "Successfully replaced|Wrote 27 lines", "testdata/arcturn/corrupt.jsonl"]);
    assert_eq!(out.code, 2, "a damaged line before the last is exit 2");
    assert!(out.stderr.contains("corrupt.jsonl:6:"), "{}", out.stderr);
    let h = out.ndjson();
    // The corrupt line's text is searched leniently and said to be damaged; line 8 is whole.
    let at: Vec<(u64, &str)> = h.iter().map(|h| (h["line"].as_u64().unwrap(), h["part"].as_str().unwrap())).collect();
    assert_eq!(at, [(6, "damaged"), (8, "tool_result")]);
    assert_eq!(h[0]["entry_id"], Value::Null);
    // A torn last line: a warning, exit 0, and its text is still found.
    let out = run(&["grep", "--json", "Successfully repl", "testdata/arcturn/torn.jsonl"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("torn last line"), "{}", out.stderr);
    let h = out.ndjson();
    assert_eq!(h.last().unwrap()["line"], 10);
    assert_eq!(h.last().unwrap()["part"], "damaged");
    // Bookkeeping values (types, roles, ids) of a damaged line are not text.
    assert_eq!(run(&["grep", "^toolResult$", "testdata/arcturn/torn.jsonl"]).code, 1);
}

#[test]
fn control_characters_in_matches_are_neutralized_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = ArcturnBuilder::new();
    b.user("u\u{1b}[2J", None, "ring \u{7} then \u{1b}]52;c;ZXZpbA==\u{7} clear \u{1b}[2J\u{202e}done\u{9b}1m");
    let f = b.write(dir.path(), "hostile.jsonl");
    let out = run(&["grep", "--color", "always", "clear.*done", &f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let s = &out.stdout;
    // Only colour sequences (ESC [ digits m) may carry an ESC.
    let mut rest = s.as_str();
    while let Some(i) = rest.find('\u{1b}') {
        let tail = &rest[i + 1..];
        let end = tail.find('m').expect("an SGR sequence");
        assert!(tail.starts_with('[') && tail[1..end].chars().all(|c| c.is_ascii_digit() || c == ';'), "{s:?}");
        rest = &tail[end..];
    }
    for c in ['\u{7}', '\u{202e}', '\u{9b}'] {
        assert!(!s.contains(c), "{c:?} reached the terminal: {s:?}");
    }
    assert!(s.contains("\\e[2J") && s.contains("<U+202E>"), "{s:?}");
    // JSON keeps the text whole and exact (escaped as JSON).
    let h = hits(&["clear.*done", &f]);
    assert_eq!(h[0]["text"], "ring \u{7} then \u{1b}]52;c;ZXZpbA==\u{7} clear \u{1b}[2J\u{202e}done\u{9b}1m");
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = ArcturnBuilder::new();
    let text = format!("{}NEEDLE{}", "a".repeat(5000), "b".repeat(5000));
    b.user("u1", None, &text);
    let f = b.write(dir.path(), "long.jsonl");
    let out = run(&["grep", "-M", "100", "NEEDLE", &f]);
    assert_eq!(out.code, 0);
    let line = out.stdout.lines().next().unwrap();
    let shown = line.split_once(": u1 user: ").unwrap().1;
    assert_eq!(shown, format!("…{}NEEDLE{}…", "a".repeat(25), "b".repeat(69)));
    // --json never cuts.
    assert_eq!(hits(&["NEEDLE", &f])[0]["text"].as_str().unwrap().len(), 10006);
}

#[test]
fn the_real_pi_session_is_searched() {
    let f = "../shared/real/agentlogs/pi/branched.jsonl";
    if !root().join(f).exists() {
        prereq::missing(f, "the shared real session files", "ARCTURN_REQUIRE_REAL");
        return;
    }
    // The bash execution at the tip of the second branch (line 16).
    let h = hits(&["-F", "rm -f haiku1.txt", f]);
    assert_eq!(h.len(), 1);
    assert_eq!((h[0]["line"].as_u64(), h[0]["entry_id"].as_str()), (Some(16), Some("2bcf0b7d")));
    // Three `write` calls, three results paired with them.
    let w = hits(&["--tool", "write", "--role", "tool_result", "Successfully wrote", f]);
    assert_eq!(w.len(), 3);
}

/// The keys an object must have, as the committed schema lists them.
fn schema_required(schema: &str, def: &str) -> Vec<String> {
    let s: Value = serde_json::from_str(&std::fs::read_to_string(root().join(schema)).unwrap()).unwrap();
    let node = if def.is_empty() { &s } else { &s["$defs"][def] };
    let mut keys: Vec<String> =
        node["required"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().into()).collect();
    keys.sort();
    keys
}

#[test]
fn json_output_has_the_fields_its_schema_names() {
    let h = hits(&["-F", "UTF-8 fixtures", "testdata/arcturn/basic.jsonl"]);
    let mut keys: Vec<String> = h[0].as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, schema_required("docs/schema/grep.json", "match"));
    let c = run(&["grep", "--json", "-c", "UTF-8", "testdata/arcturn/basic.jsonl"]).json();
    assert_eq!(c, json!({"file": "testdata/arcturn/basic.jsonl", "format": "arcturn", "count": 1}));
}

/// An arcturn session of `n` user prompts, each `marker {k}`, with a corrupt line carrying
/// `marker damaged {k}` after every `every`-th prompt, and `pad` bytes of other text in each
/// prompt so that the file is big enough to be searched by several threads.
fn marked_session(dir: &std::path::Path, n: usize, every: usize, pad: usize) -> String {
    use std::io::Write;
    let path = dir.join("marked.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(w, r#"{{"kind":"session","version":1,"id":"s-m","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}}"#)
        .unwrap();
    let filler = "lorem ipsum ".repeat(pad / 12);
    for k in 0..n {
        let parent = if k == 0 { "null".to_string() } else { format!("\"e{}\"", k - 1) };
        writeln!(
            w,
            r#"{{"kind":"message","id":"e{k}","parentId":{parent},"timestamp":"2026-11-02T09:00:00.000Z","message":{{"role":"user","content":"{filler}\nmarker {k}"}}}}"#
        )
        .unwrap();
        if k % every == every - 1 {
            writeln!(w, r#"{{"kind":"message","id":"bad{k}","message":{{"content":"marker damaged {k}" oops}}"#)
                .unwrap();
        }
    }
    w.flush().unwrap();
    path.to_string_lossy().into_owned()
}

/// A session big enough for its search to be shared between threads gives every hit once,
/// in file order, damaged lines in their place among the entries; `-c` counts them all and
/// `-l` names the file once.
#[test]
fn a_big_session_searched_by_several_threads_gives_its_hits_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let (n, every) = (40_000, 97);
    let f = marked_session(dir.path(), n, every, 600);
    assert!(std::fs::metadata(&f).unwrap().len() > 24 << 20, "several chunks of a megabyte");
    let out = common::cmd().args(["grep", "--json", "marker", &f]).env("RAYON_NUM_THREADS", "4").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "corrupt lines before the last are an error");
    let hits: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut want = Vec::new();
    let mut line = 1;
    for k in 0..n {
        line += 1;
        want.push((line, format!("marker {k}")));
        if k % every == every - 1 {
            line += 1;
            want.push((line, format!("marker damaged {k}")));
        }
    }
    let got: Vec<(u64, String)> =
        hits.iter().map(|h| (h["line"].as_u64().unwrap(), h["text"].as_str().unwrap().to_string())).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "hits out of file order");
    assert!(hits.iter().all(|h| (h["part"] == "damaged") == h["text"].as_str().unwrap().contains("damaged")));
    let count = run(&["grep", "-c", "marker", &f]);
    assert_eq!(count.stdout, format!("{f}:{}\n", want.len()));
    let listed = run(&["grep", "-l", "marker", &f, &f]);
    assert_eq!(listed.stdout, format!("{f}\n{f}\n"));
}

/// One tool result of 2,000,000 matching lines: its hits are printed as they are found, and
/// counted without being made, so the peak memory of `grep` and `grep -c` stays near that of
/// a search that finds nothing (a build that made every hit first peaked 900 MB above it).
/// Peak RSS from GNU time.
#[test]
fn millions_of_hits_in_one_text_are_printed_in_bounded_memory() {
    let time = std::path::Path::new("/usr/bin/time");
    if !time.exists() {
        prereq::missing("/usr/bin/time", "the Debian package `time`", "ARCTURN_REQUIRE_GNU_TIME");
        return;
    }
    use std::io::Write;
    let n = 2_000_000;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("seq.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&f).unwrap());
    writeln!(w, r#"{{"kind":"session","version":1,"id":"s-seq","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/p"}}"#)
        .unwrap();
    writeln!(w, r#"{{"kind":"message","id":"u","parentId":null,"timestamp":"2026-11-02T09:00:00.000Z","message":{{"role":"user","content":"count"}}}}"#).unwrap();
    writeln!(w, r#"{{"kind":"message","id":"a","parentId":"u","timestamp":"2026-11-02T09:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"bash","arguments":{{"command":"seq"}}}}]}}}}"#).unwrap();
    let text: Vec<String> = (0..n).map(|k| format!("ok {k}")).collect();
    writeln!(
        w,
        r#"{{"kind":"message","id":"r","parentId":"a","timestamp":"2026-11-02T09:00:02.000Z","message":{{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{{"type":"text","text":"{}"}}],"isError":false}}}}"#,
        text.join("\\n")
    )
    .unwrap();
    drop(w);
    let f = f.to_string_lossy().into_owned();
    let size = std::fs::metadata(&f).unwrap().len();
    let peak = |args: &[&str], name: &str| -> (u64, std::path::PathBuf) {
        let report = dir.path().join(format!("{name}.time"));
        let printed = dir.path().join(format!("{name}.out"));
        let status = std::process::Command::new(time)
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(env!("CARGO_BIN_EXE_arcturn-inspect"))
            .args(args)
            .arg(&f)
            .stdout(std::fs::File::create(&printed).unwrap())
            .env("RAYON_NUM_THREADS", "2")
            .status()
            .unwrap();
        assert!(status.code() == Some(0) || status.code() == Some(1), "{args:?}: {status:?}");
        // GNU time says first when the status is not 0.
        let report = std::fs::read_to_string(&report).unwrap();
        let kib = report.lines().last().unwrap().trim().parse::<u64>().unwrap();
        (kib * 1024, printed)
    };
    let (none, _) = peak(&["grep", "-c", "^none$"], "none");
    let (counted, out) = peak(&["grep", "-c", "^ok"], "count");
    assert_eq!(std::fs::read_to_string(out).unwrap(), format!("{f}:{n}\n"));
    let (printed, out) = peak(&["grep", "--color", "never", "^ok"], "print");
    let text = std::fs::read_to_string(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), n);
    assert!(lines.iter().enumerate().all(|(k, l)| l.ends_with(&format!(": ok {k}"))), "every line, in order");
    // The file, its decoded text and the index of its lines are allowed; a hit apiece is not.
    for (what, bytes) in [("-c", counted), ("printing", printed)] {
        assert!(
            bytes < none + 3 * size,
            "grep {what} peaked at {bytes} bytes, a search finding nothing at {none}: the hits were held"
        );
    }
}
