//! Conventions every command keeps, one test each, run over every subcommand that
//! `cli::command()` knows (so a new command is covered the day it is added): data on stdout
//! and everything else on stderr; no colour in `--json` output; `--color`, `NO_COLOR` and
//! `CLICOLOR_FORCE`; a closed pipe exits 0; `-q`; stdin as `-`; errors name file and line.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const GOOD: &str = "testdata/query/arcturn.jsonl";
const DAMAGED: &str = "testdata/query/damaged.jsonl";
/// An entry id of `GOOD`, for commands that need one.
const GOOD_ID: &str = "a1f0c3d2";

fn commands() -> Vec<String> {
    arcturn_inspect::cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

/// A typical invocation of `name` on `file` (`dir` for commands that take a directory).
fn invocation(name: &str, file: &str, id: &str, dir: &str) -> Vec<String> {
    let v: Vec<&str> = match name {
        "show" => vec![name, file, id],
        "query" => vec![name, ".", file],
        // Any character: every file with text matches.
        "grep" => vec![name, ".", file],
        // Both sides named (the same entry), so that a session of one branch is no answer of 1.
        "diff" => vec![name, file, id, id],
        "sessions" => vec![name, dir],
        "rows" => vec![name, "--table", "entries", file],
        "redact" => return [name, "--force", file, "-o", &format!("{dir}/redacted.jsonl")].map(String::from).to_vec(),
        _ => vec![name, file],
    };
    v.into_iter().map(String::from).collect()
}

/// Commands that read one session file line by line (not `sessions`, which lists a directory
/// from headers only).
fn reads_file(name: &str) -> bool {
    name != "sessions"
}

/// `--json` for the commands that print JSON; `export` refuses it (it writes Markdown or
/// HTML), so it runs without.
fn json_flag(name: &str) -> Vec<String> {
    if name == "export" {
        Vec::new()
    } else {
        vec!["--json".to_string()]
    }
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    for k in ["NO_COLOR", "CLICOLOR_FORCE", "COLUMNS"] {
        c.env_remove(k);
    }
    c.stdin(Stdio::null());
    c
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(c: &mut Command) -> Run {
    let o = c.output().unwrap();
    Run {
        code: o.status.code().expect("exited"),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A copy of `GOOD` whose last line was cut mid-write (a warning, not an error), in `dir`.
fn torn_copy(dir: &Path) -> PathBuf {
    let mut bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(GOOD)).unwrap();
    bytes.truncate(bytes.len() - 40);
    let p = dir.join("torn.jsonl");
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn data_on_stdout_everything_else_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let torn = torn_copy(dir.path());
    let torn = torn.to_str().unwrap();
    for name in commands() {
        let mut args = json_flag(&name);
        args.extend(invocation(&name, torn, GOOD_ID, dir.path().to_str().unwrap()));
        let r = run(bin().args(&args));
        assert_eq!(r.code, 0, "{name}: {}", r.err);
        // `check` reports findings as its data; everyone else warns on stderr.
        if name != "check" {
            assert!(!r.out.contains("torn last line"), "{name}: a warning on stdout:\n{}", r.out);
        }
        if reads_file(&name) && name != "check" {
            assert!(r.err.contains("torn last line"), "{name}: no warning on stderr: {}", r.err);
        }
        if name != "export" {
            for line in r.out.lines() {
                assert!(serde_json::from_str::<serde_json::Value>(line).is_ok(), "{name}: not JSON on stdout: {line}");
            }
        }
    }
}

#[test]
fn json_output_is_never_coloured() {
    let dir = tempfile::tempdir().unwrap();
    for name in commands() {
        for forced in [vec!["--color=always"], vec![]] {
            let mut args: Vec<String> = vec!["--json".into()];
            args.extend(forced.iter().map(|s| s.to_string()));
            args.extend(invocation(&name, GOOD, GOOD_ID, dir.path().to_str().unwrap()));
            let o = bin().args(&args).env("CLICOLOR_FORCE", "1").output().unwrap();
            assert!(!o.stdout.contains(&0x1b), "{name} {args:?}: colour in JSON");
        }
    }
}

#[test]
fn color_flag_no_color_and_clicolor_force() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let has_esc = |name: &str, flags: &[&str], env: &[(&str, &str)]| {
        let mut c = bin();
        c.args(flags).args(invocation(name, GOOD, GOOD_ID, dir));
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap().stdout.contains(&0x1b)
    };
    for name in commands() {
        let n = name.as_str();
        // A pipe gets no colour unless asked; NO_COLOR beats CLICOLOR_FORCE; --never beats both.
        assert!(!has_esc(n, &[], &[]), "{n}: colour on a pipe");
        assert!(!has_esc(n, &[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]), "{n}: NO_COLOR ignored");
        assert!(!has_esc(n, &["--color=never"], &[("CLICOLOR_FORCE", "1")]), "{n}: --color=never ignored");
        assert!(!has_esc(n, &[], &[("CLICOLOR_FORCE", "0")]), "{n}: CLICOLOR_FORCE=0 forced colour");
    }
    // Commands whose human output is styled: forcing works, and the flag beats NO_COLOR.
    for name in ["tree", "query"] {
        assert!(has_esc(name, &[], &[("CLICOLOR_FORCE", "1")]), "{name}: CLICOLOR_FORCE ignored");
        assert!(has_esc(name, &["--color=always"], &[("NO_COLOR", "1")]), "{name}: --color=always ignored");
    }
}

/// A linear arcturn session of `n` entries, big enough to fill any pipe buffer.
fn big_session(dir: &Path, n: usize) -> PathBuf {
    let p = dir.join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    writeln!(f, r#"{{"kind":"session","version":1,"id":"big","timestamp":"2026-11-02T09:00:00.000Z","cwd":"/tmp"}}"#)
        .unwrap();
    for i in 0..n {
        let parent = if i == 0 { "null".to_string() } else { format!("\"e{:07}\"", i - 1) };
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        writeln!(
            f,
            r#"{{"kind":"message","id":"e{i:07}","parentId":{parent},"timestamp":"2026-11-02T09:00:01.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"message number {i} with some words to make the line longer"}}],"timestamp":1793610001000}}}}"#
        )
        .unwrap();
    }
    f.flush().unwrap();
    p
}

#[test]
fn closed_pipe_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_session(dir.path(), 40_000);
    for name in commands() {
        for json in [false, true] {
            let mut c = bin();
            if json {
                c.args(json_flag(&name));
            }
            c.args(invocation(&name, big.to_str().unwrap(), "e0000001", dir.path().to_str().unwrap()));
            let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let mut first = String::new();
            BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
            // The reader is dropped here: the pipe is closed with most of the output unread.
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            let status = child.wait().unwrap();
            assert_eq!(status.code(), Some(0), "{name} (json: {json}): {err}");
            assert!(!err.to_lowercase().contains("broken pipe"), "{name}: {err}");
        }
    }
}

#[test]
fn quiet_silences_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let torn = torn_copy(dir.path());
    for name in commands() {
        for json in [false, true] {
            let mut c = bin();
            c.arg("-q");
            if json {
                c.args(json_flag(&name));
            }
            c.args(invocation(&name, torn.to_str().unwrap(), GOOD_ID, dir.path().to_str().unwrap()));
            let r = run(&mut c);
            assert_eq!(r.code, 0, "{name}: {}", r.err);
            assert_eq!(r.err, "", "{name} -q still warned");
            if name == "check" && !json {
                assert!(!r.out.contains("torn last line"), "{name} -q still lists warnings: {}", r.out);
            }
        }
    }
}

#[test]
fn stdin_as_dash() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(GOOD)).unwrap();
    for name in commands().into_iter().filter(|n| reads_file(n)) {
        let from_path =
            run(bin().args(json_flag(&name)).args(invocation(&name, GOOD, GOOD_ID, dir.path().to_str().unwrap())));
        let mut child = bin()
            .args(json_flag(&name))
            .args(invocation(&name, "-", GOOD_ID, dir.path().to_str().unwrap()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(from_path.code), "{name}: {err}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(!out.is_empty(), "{name}: nothing read from stdin");
        // Same answer as from the path, up to the `file` field naming the input.
        // (`export` writes the name into its Markdown header instead.)
        let out = out
            .replace("\"file\":\"-\"", &format!("\"file\":\"{GOOD}\""))
            .replace("File: `-`", &format!("File: `{GOOD}`"));
        assert_eq!(out, from_path.out, "{name}");
    }
}

#[test]
fn error_messages_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in commands().into_iter().filter(|n| reads_file(n)) {
        let r = run(bin().args(invocation(&name, DAMAGED, GOOD_ID, dir.path().to_str().unwrap())));
        // `check` reports damage as its answer (exit 1, findings on stdout); everyone else
        // prints what it can, reports on stderr and exits 2.
        let (code, report) = if name == "check" { (1, &r.out) } else { (2, &r.err) };
        assert_eq!(r.code, code, "{name}: {}", r.err);
        assert!(report.contains(&format!("{DAMAGED}:5:")), "{name}: the error does not say where:\n{report}");
    }
    // Inputs that cannot be opened are named too.
    for name in commands().into_iter().filter(|n| reads_file(n)) {
        let r = run(bin().args(invocation(&name, "no-such-file.jsonl", GOOD_ID, "")));
        assert_eq!(r.code, 2, "{name}");
        assert!(r.err.contains("no-such-file.jsonl"), "{name}: {}", r.err);
    }
}

#[test]
fn no_arguments_prints_an_overview() {
    let r = run(&mut bin());
    assert_eq!(r.code, 2);
    assert_eq!(r.out, "", "the overview is not data");
    for name in commands() {
        assert!(r.err.contains(&format!("\n  {name} ")), "overview lacks {name}:\n{}", r.err);
    }
    assert!(r.err.contains("arcturn-inspect tree session.jsonl"));
    // Asked-for help is data: stdout, exit 0, with examples.
    for name in commands() {
        let r = run(bin().args([name.as_str(), "--help"]));
        assert_eq!(r.code, 0);
        assert!(r.out.contains("Examples:"), "{name} --help has no examples");
    }
}
