//! The input layer against hostile files and processes, one test per behaviour: a file
//! rewritten or truncated while it is read, endless streams, `/proc`-style files, exports
//! aimed at their own input, file names that are not UTF-8, and pipes closed early.

mod common;
#[path = "gen/mod.rs"]
mod gen;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::*;

const SESSION: &str = "testdata/query/arcturn.jsonl";

fn good_session() -> Vec<u8> {
    fs::read(root().join(SESSION)).unwrap()
}

/// `cmd` run on OS-string arguments, stdin closed.
fn run_os(args: &[&std::ffi::OsStr]) -> Out {
    let o = cmd().args(args).stdin(Stdio::null()).output().expect("run binary");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `--no-mmap` is the documented way to read a file that another process rewrites: a map
/// assumes no rewrite in place (README, "Damaged and hostile input").
#[test]
fn file_truncated_and_rewritten_while_read_with_no_mmap_exits_0_or_2_never_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let mut content = Vec::new();
    gen::arcturn_session(&mut content, 48 << 20, 7).unwrap();
    fs::write(&path, &content).unwrap();
    let content = Arc::new(content);
    let mut outcomes = Vec::new();
    for round in 0..6 {
        // Another process truncates the file and writes it again in place, over and over,
        // as `cp`, `rsync --inplace` or an editor saving would, for as long as it is read.
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (stop, path, content) = (stop.clone(), path.clone(), content.clone());
            std::thread::spawn(move || {
                let mut passes = 0;
                while !stop.load(Ordering::Relaxed) {
                    let mut f = fs::OpenOptions::new().write(true).open(&path).unwrap();
                    f.set_len(0).unwrap();
                    for piece in content.chunks(1 << 20) {
                        f.write_all(piece).unwrap();
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                    passes += 1;
                }
                passes
            })
        };
        let command = if round % 2 == 0 { "tree" } else { "leaves" };
        let out = cmd()
            .args(["--no-mmap", command, "--json", path.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A signal (SIGBUS, SIGSEGV) leaves no exit code; a panic exits 101.
        let code = out.status.code().unwrap_or_else(|| panic!("round {round}: killed by a signal: {:?}", out.status));
        assert!(matches!(code, 0 | 2), "round {round}: exit {code}\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        if code == 2 {
            // Whatever the read caught (a shorter file, lines cut mid-record), the last word
            // names the file.
            let last = stderr.lines().last().unwrap_or("");
            assert!(last.starts_with("arcturn-inspect: "), "round {round}: {stderr}");
            assert!(last.contains("live.jsonl"), "round {round}: {stderr}");
        }
        outcomes.push(code);
    }
    eprintln!("exit codes while the file was rewritten: {outcomes:?}");
}

/// A mapped file cut short by another process while it is read: the touch past the new end
/// is a SIGBUS, which the handler turns into its message and exit 2; a cut before the open
/// or after the last touch is a normal run. Never a death by signal.
#[test]
fn mapped_file_truncated_while_read_exits_0_or_2_with_a_message_never_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.jsonl");
    let mut content = Vec::new();
    gen::arcturn_session(&mut content, 48 << 20, 11).unwrap();
    let mut outcomes = Vec::new();
    for round in 0..6u64 {
        fs::write(&path, &content).unwrap();
        let cutter = {
            let path = path.clone();
            std::thread::spawn(move || {
                // Different moments of the read in different rounds.
                std::thread::sleep(std::time::Duration::from_millis(5 + 15 * round));
                fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(4096).unwrap();
            })
        };
        let out = cmd()
            .args(["check", path.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        cutter.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code().unwrap_or_else(|| panic!("round {round}: killed by a signal: {:?}", out.status));
        assert!((0..=2).contains(&code), "round {round}: exit {code}\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        if stderr.contains("truncated while it was read") {
            assert_eq!(code, 2, "{stderr}");
            assert!(stderr.ends_with(arcturn_inspect::mapping::TRUNCATED_MESSAGE), "{stderr}");
        }
        outcomes.push(code);
    }
    eprintln!("exit codes while the mapped file was cut: {outcomes:?}");
}

/// Feed `input` to the binary's stdin from a thread (the binary may stop reading early).
fn run_fed(args: &[&str], input: impl FnOnce(&mut dyn Write) + Send + 'static) -> Out {
    let mut child =
        cmd().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || input(&mut stdin));
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn endless_stdin_is_refused_at_max_bytes_naming_the_input() {
    let line = String::from_utf8(good_session()).unwrap();
    let out = run_fed(&["check", "--max-bytes", "1M", "-"], move |w| {
        // Far more than the cap; the write fails once the binary has given up.
        for _ in 0..10_000 {
            if w.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("-: more than 1 MiB read and the input goes on"), "{}", out.stderr);
    assert!(out.stderr.contains("--max-bytes (default 2 GiB)"), "{}", out.stderr);
}

#[test]
fn stdin_within_max_bytes_is_read_whole() {
    let session = good_session();
    let len = session.len();
    // Every line of the file but its header is an entry.
    let entries = session.iter().filter(|&&b| b == b'\n').count() as u64 - 1;
    let cap = len.to_string();
    let out = run_fed(&["check", "--json", "--max-bytes", &cap, "-"], move |w| w.write_all(&session).unwrap());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["entries"].as_u64().unwrap(), entries, "{}", out.stdout);
    let under = (len - 1).to_string();
    let session = good_session();
    let out = run_fed(&["check", "--max-bytes", &under, "-"], move |w| {
        let _ = w.write_all(&session);
    });
    assert_eq!(out.code, 2, "one byte over the cap is refused: {}", out.stderr);
}

#[cfg(target_os = "linux")]
#[test]
fn endless_device_is_refused_at_max_bytes() {
    let out = run(&["check", "--max-bytes", "8M", "/dev/urandom"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.starts_with("arcturn-inspect: /dev/urandom: more than 8 MiB read"), "{}", out.stderr);
}

#[test]
fn max_bytes_that_is_not_a_byte_count_is_a_usage_error() {
    let out = run(&["check", "--max-bytes", "1.5G", SESSION]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("`1.5G` is not a byte count"), "{}", out.stderr);
}

#[cfg(target_os = "linux")]
#[test]
fn size_zero_proc_file_is_read_not_taken_as_empty() {
    // `/proc` files report size 0 and have content. Read as an arcturn session, every line
    // of /proc/self/status is a corrupt record: what matters is that they are there.
    let out = run(&["check", "--json", "--input-format", "arcturn", "/proc/self/status"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = out.json();
    assert!(doc["lines"].as_u64().unwrap() > 10, "{doc}");
}

#[test]
fn export_refuses_to_write_over_its_input_through_a_hard_link() {
    let dir = tempfile::tempdir().unwrap();
    let (sessions, elsewhere) = (dir.path().join("sessions"), dir.path().join("elsewhere"));
    fs::create_dir_all(&sessions).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    let input = sessions.join("s.jsonl");
    fs::write(&input, good_session()).unwrap();
    let link = elsewhere.join("review.md");
    fs::hard_link(&input, &link).unwrap();
    for extra in [&["-o"][..], &["--force", "-o"]] {
        let mut args = vec!["export"];
        args.extend_from_slice(extra);
        args.extend([link.to_str().unwrap(), input.to_str().unwrap()]);
        let out = run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("over the session file"), "{}", out.stderr);
        assert_eq!(fs::read(&input).unwrap(), good_session(), "the input is untouched");
    }
    // The same input read from stdin is still recognised.
    let file = fs::File::open(&input).unwrap();
    let o = cmd().args(["export", "-o", link.to_str().unwrap(), "-"]).stdin(file).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&input).unwrap(), good_session());
    // Another existing file in the same place is overwritten (and truncated) as asked.
    let other = elsewhere.join("other.md");
    fs::write(&other, "x".repeat(1 << 20)).unwrap();
    let out = run(&["export", "-o", other.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let md = fs::read_to_string(&other).unwrap();
    assert!(md.starts_with('#') && !md.contains("xxxx"), "{}", &md[..md.len().min(200)]);
}

#[cfg(unix)]
#[test]
fn export_refuses_to_write_over_its_input_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let (sessions, elsewhere) = (dir.path().join("sessions"), dir.path().join("elsewhere"));
    fs::create_dir_all(&sessions).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    let input = sessions.join("s.jsonl");
    fs::write(&input, good_session()).unwrap();
    let link = elsewhere.join("review.html");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let out = run(&["export", "--html", "-o", link.to_str().unwrap(), input.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("over the session file"), "{}", out.stderr);
    assert_eq!(fs::read(&input).unwrap(), good_session());
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_file_name_is_read_and_shown_lossily_and_sanitized() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(OsStr::from_bytes(b"s\xff.jsonl"));
    fs::write(&path, good_session()).unwrap();
    let out = run_os(&[OsStr::new("check"), OsStr::new("--json"), path.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let file = out.json()["file"].as_str().unwrap().to_string();
    assert!(file.ends_with("s\u{fffd}.jsonl"), "{file}");
    // A missing one is named in the error, its escape sequence made visible.
    let missing = dir.path().join(OsStr::from_bytes(b"gone\xff\x1b[31m.jsonl"));
    let out = run_os(&[OsStr::new("tree"), missing.as_os_str()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("gone\u{fffd}\\e[31m.jsonl: no such file or directory"), "{}", out.stderr);
    assert!(!out.stderr.contains('\x1b'));
}

/// A session whose only problem is its encoding: `check` cannot read it (exit 2) and says so
/// on stderr.
fn unreadable(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, b"\xFF\xFE{\0}\0\n\0").unwrap();
    p
}

#[cfg(unix)]
#[test]
fn stdout_and_stderr_closed_after_the_first_line_is_a_quiet_exit_0() {
    // `check FILES 2>&1 | head -1`: the first line is an error on stderr, then the reader
    // goes away. A FIFO holds the command up until the pipe is closed, so the next error
    // is written to a closed stderr every time, not only when the timing falls that way.
    let dir = tempfile::tempdir().unwrap();
    let first = unreadable(dir.path(), "a.jsonl");
    let fifo = dir.path().join("b.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let last = unreadable(dir.path(), "c.jsonl");
    let mut child = Command::new("sh")
        .args(["-c", "exec \"$0\" check \"$@\" 2>&1", env!("CARGO_BIN_EXE_arcturn-inspect")])
        .args([&first, &fifo, &last])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains("a.jsonl"), "{line}");
    drop(reader);
    // Now let the command go on: one good session through the FIFO.
    fs::write(&fifo, good_session()).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a panic exits 101, a signal has no code: {status:?}");
}
