//! `query` over big files in chunks on worker threads: stdout, stderr and the exit status
//! must be those of the run on one thread (`RAYON_NUM_THREADS=1`), byte for byte, and the
//! outputs those that jq or reasoning give. The parallel runs ask for 4 threads, so the
//! chunked path is taken on any machine.

mod common;
mod gen;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{cmd, prereq};

struct Fixture {
    _dir: tempfile::TempDir,
    /// A ~12 MiB generated arcturn session: a dozen chunks, three times the size below
    /// which a file stays on one thread.
    big: PathBuf,
    /// Its lines, as written.
    lines: Vec<String>,
    /// The same session with two lines planted: one nested 200 levels deep (past the
    /// loader's limit of 127, within jq's of 10,000) a quarter in, a corrupt one halfway.
    damaged: PathBuf,
    /// The planted lines' 1-based numbers, in file order.
    damaged_lines: [usize; 2],
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut buf = Vec::new();
        gen::arcturn_session(&mut buf, 12 << 20, 11).unwrap();
        let big = dir.path().join("big.jsonl");
        std::fs::write(&big, &buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut planted = lines.clone();
        let deep = format!(
            r#"{{"kind":"label","id":"deep","parentId":null,"timestamp":1,"label":"x","extra":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let damaged_lines = [lines.len() / 4 + 1, lines.len() / 2 + 1];
        planted.insert(damaged_lines[0] - 1, deep);
        planted.insert(damaged_lines[1] - 1, r#"{"kind":"message","id":"torn","parentId":null,"#.to_string());
        let damaged = dir.path().join("damaged.jsonl");
        std::fs::write(&damaged, planted.join("\n") + "\n").unwrap();
        Fixture { _dir: dir, big, lines, damaged, damaged_lines }
    })
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn run_with(threads: &str, args: &[&str]) -> Run {
    let out = cmd().env("RAYON_NUM_THREADS", threads).args(args).stdin(Stdio::null()).output().expect("run binary");
    Run {
        code: out.status.code().expect("exited"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run `args` on 4 threads and on 1; assert the two runs are the same, and return it.
fn same_both_ways(args: &[&str]) -> Run {
    let par = run_with("4", args);
    let seq = run_with("1", args);
    assert_eq!(par.code, seq.code, "exit status differs for {args:?}; stderr:\n{}", par.stderr);
    assert_eq!(par.stderr, seq.stderr, "stderr differs for {args:?}");
    assert!(
        par.stdout == seq.stdout,
        "stdout differs for {args:?} ({} vs {} bytes)",
        par.stdout.len(),
        seq.stdout.len()
    );
    par
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(r: &Run) -> &str {
    std::str::from_utf8(&r.stdout).expect("UTF-8 output")
}

/// The records `query` runs over: every line but the header (line 1).
fn records() -> impl Iterator<Item = (usize, serde_json::Value)> {
    let f = fixture();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&f.lines[0]).unwrap()["kind"], "session");
    f.lines.iter().enumerate().skip(1).map(|(i, l)| (i + 1, serde_json::from_str(l).unwrap()))
}

#[test]
fn chunked_ids_are_jqs_ids_in_file_order() {
    let f = fixture();
    let r = same_both_ways(&["query", "-c", ".id", path(&f.big)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let want: String = records().map(|(_, v)| format!("{}\n", v["id"])).collect();
    assert_eq!(text(&r), want);
    let Ok(jq) = Command::new("jq").args(["-c", ".id", path(&f.big)]).output() else {
        prereq::missing("jq not found; the comparison with jq is left out", "apt-get install jq", "ARCTURN_REQUIRE_JQ");
        return;
    };
    assert!(jq.status.success());
    // jq also prints the header's id, on its first line.
    let jq = String::from_utf8(jq.stdout).unwrap();
    let (_, rest) = jq.split_once('\n').unwrap();
    assert_eq!(text(&r), rest);
}

#[test]
fn chunked_whole_records_raw_strings_and_selections_match_one_thread() {
    let f = fixture();
    let big = path(&f.big);
    let r = same_both_ways(&["query", "-c", ".", big]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Every record once, in order (compared parsed: the layout is the renderer's).
    let got: Vec<serde_json::Value> = text(&r).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let want: Vec<serde_json::Value> = records().map(|(_, v)| v).collect();
    assert!(got == want, "`-c .` is not every record in order ({} vs {})", got.len(), want.len());

    let r = same_both_ways(&["query", "-r", ".kind", big]);
    let want: String = records().map(|(_, v)| format!("{}\n", v["kind"].as_str().unwrap())).collect();
    assert_eq!(text(&r), want);

    let filter = r#"select(.kind == "message" and .message.role == "user") | [$__line, input_line_number, .id]"#;
    let r = same_both_ways(&["query", "-c", filter, big]);
    let want: String = records()
        .filter(|(_, v)| v["kind"] == "message" && v["message"]["role"] == "user")
        .map(|(n, v)| format!("[{n},{n},{}]\n", v["id"]))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(text(&r), want);

    // Indented, sorted keys, joined raw output: the layout options reach the threads.
    same_both_ways(&["query", "--sort-keys", ".message.usage", big]);
    same_both_ways(&["query", "-j", ".id", big]);
    same_both_ways(&["query", "--tab", "-S", "{id, kind}", big]);
}

#[test]
fn a_path_filter_reads_the_path_alone_and_answers_as_over_whole_records() {
    // `.a.b` parses only that path of each record; `.a.b | .` is no bare path, so it parses
    // every record whole: same stdout, stderr and exit status, on one thread and on four.
    let f = fixture();
    for file in [path(&f.big), path(&f.damaged)] {
        for filter in [".message.usage", ".message.role", ".message.content", ".message.usage.input.nope", ".id.nope"] {
            for flags in [&["-c"][..], &["-r"], &["-e", "-c"]] {
                let cut: Vec<&str> = ["query"].iter().chain(flags).copied().chain([filter, file]).collect();
                let piped = format!("{filter} | .");
                let whole: Vec<&str> = ["query"].iter().chain(flags).copied().chain([piped.as_str(), file]).collect();
                let (a, b) = (same_both_ways(&cut), same_both_ways(&whole));
                assert_eq!((a.code, &a.stderr), (b.code, &b.stderr), "{cut:?}");
                assert!(
                    a.stdout == b.stdout,
                    "stdout differs: {cut:?} ({} vs {} bytes)",
                    a.stdout.len(),
                    b.stdout.len()
                );
            }
        }
    }
    // And the nested path as jq reads it from each record.
    let r = same_both_ways(&["query", "-c", ".message.role", path(&f.big)]);
    let want: String = records().map(|(_, v)| format!("{}\n", v["message"]["role"])).collect();
    assert_eq!(text(&r), want);
}

#[test]
fn chunked_runtime_errors_keep_their_place_and_exit_5() {
    let f = fixture();
    let filter = r#"if $__line % 97 == 0 then error("planted at \($__line)") else $__line end"#;
    let r = same_both_ways(&["query", "-c", filter, path(&f.big)]);
    assert_eq!(r.code, 5);
    let lines: Vec<usize> = records().map(|(n, _)| n).collect();
    let want_out: String = lines.iter().filter(|n| *n % 97 != 0).map(|n| format!("{n}\n")).collect();
    assert_eq!(text(&r), want_out);
    let want_err: String = lines
        .iter()
        .filter(|n| *n % 97 == 0)
        .map(|n| format!("arcturn-inspect: {}:{n}: error: planted at {n}\n", path(&f.big)))
        .collect();
    assert!(want_err.lines().count() > 20, "the file is big enough for errors in many chunks");
    assert_eq!(r.stderr, want_err);
}

#[test]
fn chunked_exit_status_follows_the_last_output() {
    let f = fixture();
    let big = path(&f.big);
    let last = f.lines.len();
    // Last output false: 1. Last output null after true ones: 1. Last output true: 0.
    let r = same_both_ways(&["query", "-e", "$__line < 10", big]);
    assert_eq!(r.code, 1);
    let null_last = format!("if $__line == {last} then null else true end");
    assert_eq!(same_both_ways(&["query", "-e", &null_last, big]).code, 1);
    let true_last = format!("$__line == {last} or $__line < 3");
    assert_eq!(same_both_ways(&["query", "-e", &true_last, big]).code, 0);
    // No output at all: 4.
    assert_eq!(same_both_ways(&["query", "-e", "empty", big]).code, 4);
}

#[test]
fn filters_reading_inputs_pair_records_as_on_one_thread() {
    let f = fixture();
    let r = same_both_ways(&["query", "-c", "[.id, (first(inputs) | .id)]", path(&f.big)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ids: Vec<serde_json::Value> = records().map(|(_, v)| v["id"].clone()).collect();
    let want: String = ids.chunks(2).map(|c| format!("{}\n", serde_json::Value::Array(c.to_vec()))).collect();
    assert_eq!(text(&r), want);
}

#[test]
fn several_files_keep_file_order_and_damaged_or_too_deep_lines_are_no_inputs() {
    let f = fixture();
    let (big, damaged) = (path(&f.big), path(&f.damaged));
    let r = same_both_ways(&[
        "query",
        "-c",
        "[input_filename, $__line]",
        big,
        damaged,
        "testdata/query/arcturn.jsonl",
        big,
    ]);
    assert_eq!(r.code, 2, "a damaged line before the last: exit 2 after the output");
    let out = text(&r);
    let n = f.lines.len();
    // The damaged copy has two more lines; neither is an input.
    let expect = |file: &str, lines: &mut dyn Iterator<Item = usize>| -> String {
        lines.map(|l| format!("[{},{l}]\n", serde_json::Value::from(file))).collect()
    };
    let mut want = expect(big, &mut (2..=n));
    want += &expect(damaged, &mut (2..=n + 2).filter(|l| !f.damaged_lines.contains(l)));
    let small = run_with("1", &["query", "-c", "[input_filename, $__line]", "testdata/query/arcturn.jsonl"]);
    assert_eq!(small.code, 0);
    want += text(&small);
    want += &expect(big, &mut (2..=n));
    assert!(out == want, "outputs are not file after file, line after line");
    for line in f.damaged_lines {
        assert!(r.stderr.contains(&format!("{damaged}:{line}:")), "line {line} is reported: {}", r.stderr);
    }
    assert!(r.stderr.contains("nesting too deep"), "{}", r.stderr);
}

#[test]
fn chunked_run_stops_quietly_when_the_reader_goes_away() {
    let f = fixture();
    let mut child = cmd()
        .env("RAYON_NUM_THREADS", "4")
        .args(["query", "-c", ". , ., .", path(&f.big)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with('{'), "{first}");
    // The pipe is closed now; the run must end, with exit 0 (a closed stdout is a normal
    // way to stop reading) and nothing on stderr.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("query went on after its reader was gone");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(err, "");
}
