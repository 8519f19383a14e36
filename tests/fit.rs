//! Human output fits the terminal: run as a user would, with `COLUMNS=80`, on every testdata
//! file and every real session, every line of every human command is at most 80 display
//! columns (measured with unicode-width, as a terminal does), numbers are never split,
//! `--wide` shows the text whole, and flags a command has no use for are refused.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{all_testdata, prereq, root};
use unicode_width::UnicodeWidthStr;

const WIDTH: usize = 80;

fn bin(columns: usize) -> Command {
    let mut c = common::cmd();
    c.env("COLUMNS", columns.to_string()).stdin(Stdio::null());
    c
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_at(columns: usize, args: &[&str]) -> Out {
    let o = bin(columns).args(args).output().expect("run");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The text a terminal shows: colour sequences take no columns.
fn visible(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn real_files() -> Vec<String> {
    let base = root().join("../shared/real");
    if !base.is_dir() {
        prereq::missing("../shared/real (real session files)", "check out beside it", "ARCTURN_REQUIRE_REAL");
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut stack = vec![base];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

fn files() -> Vec<String> {
    let mut f = all_testdata();
    f.extend(real_files());
    f
}

fn dirs(files: &[String]) -> Vec<String> {
    let mut d: Vec<String> =
        files.iter().filter_map(|f| Path::new(f).parent().map(|p| p.to_string_lossy().into_owned())).collect();
    d.sort();
    d.dedup();
    d
}

fn too_wide(args: &[&str], out: &Out, max: usize) -> Vec<String> {
    out.stdout
        .lines()
        .map(visible)
        .filter(|l| l.width() > max)
        .map(|l| format!("{} ({} columns): {l}", args.join(" "), l.width()))
        .collect()
}

#[test]
fn every_human_line_fits_80_columns() {
    let files = files();
    let mut bad = Vec::new();
    for colour in ["never", "always"] {
        for cmd in ["tree", "path", "leaves", "trace", "stats", "context", "check", "diff", "audit"] {
            for f in &files {
                let args = [cmd, "--color", colour, f.as_str()];
                let out = run_at(WIDTH, &args);
                assert!(matches!(out.code, 0..=2), "{args:?}: exit {}: {}", out.code, out.stderr);
                bad.extend(too_wide(&args, &out, WIDTH));
            }
        }
        for d in dirs(&files) {
            for cmd in ["stats", "check", "sessions", "trace", "audit"] {
                let args = [cmd, "--color", colour, d.as_str()];
                bad.extend(too_wide(&args, &run_at(WIDTH, &args), WIDTH));
            }
        }
    }
    assert!(bad.is_empty(), "{} line(s) wider than {WIDTH} columns:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn narrower_terminals_fit_too() {
    let f = common::testdata("arcturn/branched.jsonl");
    for width in [40, 60] {
        for cmd in ["tree", "path", "leaves", "trace", "stats", "context", "check"] {
            let args = [cmd, f.as_str()];
            let bad = too_wide(&args, &run_at(width, &args), width);
            assert!(bad.is_empty(), "{}", bad.join("\n"));
        }
    }
}

/// `1,234,567` as `stats` prints exact figures.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn stats_tables_never_split_a_number() {
    let mut files = files();
    files.retain(|f| !f.contains("hostile"));
    for f in &files {
        let json = common::run(&["stats", "--json", f]);
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&json.stdout) else { continue };
        let Some(s) = doc["sessions"].get(0) else { continue };
        let out = run_at(WIDTH, &["stats", f]);
        // Every figure of the file-scope usage row appears whole: as one word of a line.
        let words: Vec<&str> = out.stdout.split_whitespace().collect();
        for key in ["calls", "input", "output", "cache_read", "cache_write", "total"] {
            let n = s["usage"][key].as_u64().unwrap();
            let want = thousands(n);
            assert!(words.contains(&want.as_str()), "{f}: usage.{key} = {want} is not shown whole:\n{}", out.stdout);
        }
    }
    // Several sessions: a table that would not fit is stacked, figures still whole.
    let out = run_at(WIDTH, &["stats", "testdata/stats"]);
    let json = common::run(&["stats", "--json", "testdata/stats"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let words: Vec<&str> = out.stdout.split_whitespace().collect();
    for s in doc["sessions"].as_array().unwrap() {
        let want = thousands(s["usage"]["total"].as_u64().unwrap());
        assert!(words.contains(&want.as_str()), "total {want} not whole:\n{}", out.stdout);
    }
}

#[test]
fn wide_shows_the_full_text() {
    // The plan in this session is one 200+ character line; at 80 columns it is cut.
    let f = common::testdata("arcturn/branched.jsonl");
    let tail = "overrides for margin/padding/text-align in SettingsPage.module.css";
    let cut = run_at(WIDTH, &["context", f.as_str()]);
    assert!(!cut.stdout.contains(tail), "cut at 80 columns:\n{}", cut.stdout);
    for args in [["--wide", "context", f.as_str()], ["context", "--wide", f.as_str()]] {
        let wide = run_at(WIDTH, &args);
        assert_eq!(wide.code, 0, "{}", wide.stderr);
        let plan = wide.stdout.lines().find(|l| l.starts_with("plan:")).expect("a plan line");
        assert!(plan.contains(tail) && plan.width() > WIDTH, "{plan}");
    }
    // Tree previews: the whole first line of a message, no `…` added by fitting.
    let wide = run_at(WIDTH, &["tree", "--wide", f.as_str()]);
    let narrow = run_at(WIDTH, &["tree", f.as_str()]);
    assert!(wide.stdout.lines().any(|l| l.width() > WIDTH), "{}", wide.stdout);
    assert!(
        wide.stdout.contains("The i18n tests started failing after I added `locales/ar.json` yesterday. C"),
        "{}",
        wide.stdout
    );
    assert!(narrow.stdout.lines().count() == wide.stdout.lines().count());
}

#[test]
fn unsupported_global_flags_are_refused() {
    let f = common::testdata("arcturn/basic.jsonl");
    let d = "testdata/arcturn";
    for (args, flag) in [
        (vec!["export", "--json", f.as_str()], "--json"),
        (vec!["--json", "export", f.as_str()], "--json"),
        (vec!["export", "--wide", f.as_str()], "--wide"),
        (vec!["show", "--wide", f.as_str(), "root"], "--wide"),
        (vec!["query", "--wide", ".", f.as_str()], "--wide"),
        (vec!["sessions", "--strict", d], "--strict"),
        (vec!["sessions", "--input-format", "crab", d], "--input-format"),
    ] {
        let out = run_at(WIDTH, &args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} printed: {}", out.stdout);
        let cmd = args.iter().find(|a| !a.starts_with('-')).unwrap();
        assert!(out.stderr.contains(&format!("{cmd} does not take {flag}")), "{args:?}: {}", out.stderr);
    }
    // The same flags where they mean something still work.
    for args in
        [vec!["tree", "--wide", f.as_str()], vec!["check", "--strict", f.as_str()], vec!["tree", "--json", f.as_str()]]
    {
        assert_eq!(run_at(WIDTH, &args).code, 0, "{args:?}");
    }
}

#[test]
fn sessions_lists_tokens_and_cost_as_stats_counts_them() {
    let dir = "testdata/stats";
    let sessions = common::run(&["sessions", "--json", dir]).json();
    for s in sessions["sessions"].as_array().unwrap() {
        let file = s["file"].as_str().unwrap();
        let stats = common::run(&["stats", "--json", file]).json();
        let want = &stats["sessions"][0];
        assert_eq!(s["entries"], want["entries"], "{file}");
        assert_eq!(s["entries_exact"], true, "{file}");
        for k in ["calls", "input", "output", "cache_read", "cache_write", "total", "cost"] {
            assert_eq!(s["usage"][k], want["usage"][k], "{file}: usage.{k}");
        }
    }
    let out = run_at(120, &["sessions", dir]);
    let head = out.stdout.lines().next().unwrap();
    assert!(head.contains("tokens") && head.contains("cost") && head.contains("entries"), "{head}");
    // arcturn-compacted.jsonl: one model call of 30 input and 4 output tokens, $0.0003.
    let row = out.stdout.lines().find(|l| l.contains("arcturn-compacted")).unwrap();
    let words: Vec<&str> = row.split_whitespace().collect();
    assert!(words.contains(&"34") && words.contains(&"$0.0003"), "{row}");
}

/// Runs `command` under a pseudo-terminal (util-linux `script`), in `cwd`.
fn in_pty(cwd: &Path, command: &str) -> Option<(i32, String)> {
    let o = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env("COLUMNS", "80")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some((o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned()))
}

#[test]
fn export_html_to_a_terminal_writes_a_file_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_arcturn-inspect");
    let input = root().join("testdata/export/arcturn-review.jsonl");
    let command = format!("'{bin}' export --html '{}'", input.display());
    let Some((code, shown)) = in_pty(dir.path(), &command) else {
        return prereq::missing("script (util-linux)", "apt-get install bsdutils", "ARCTURN_REQUIRE_PTY");
    };
    assert_eq!(code, 0, "{shown}");
    let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let name = written[0].to_string_lossy().into_owned();
    assert!(name.starts_with("arcturn-session-") && name.ends_with(".html"), "{name}");
    assert!(shown.contains(&format!("wrote {name}")), "says where: {shown}");
    assert!(!shown.contains("<html"), "no HTML on the terminal: {shown}");
    let html = std::fs::read_to_string(dir.path().join(&name)).unwrap();
    assert!(html.contains("<nav class=\"toc\"") && html.contains("@media print"), "contents and print styles");
    // The input was named by its absolute path: the page shows its file name only.
    let home = root().to_string_lossy().into_owned();
    assert!(!html.contains(&home), "an absolute local path in the page");
    assert!(html.contains("<code>arcturn-review.jsonl</code>"));
    // Again: the file exists and is not overwritten.
    let before = std::fs::read(dir.path().join(&name)).unwrap();
    let (code, shown) = in_pty(dir.path(), &command).unwrap();
    assert_eq!(code, 2, "{shown}");
    assert!(shown.contains("already exists"), "{shown}");
    assert_eq!(std::fs::read(dir.path().join(&name)).unwrap(), before);
    // Through a pipe the page goes to stdout as before.
    let piped = Command::new(bin).args(["export", "--html"]).arg(&input).current_dir(dir.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&piped.stdout).starts_with("<!DOCTYPE html>"));
}

#[test]
fn html_contents_link_every_turn_and_compaction() {
    let mut all_compactions = 0;
    for f in ["testdata/arcturn/branched.jsonl", "testdata/crab/compacted.jsonl", "testdata/pi/v3-compacted.jsonl"] {
        let out = common::run(&["export", "--html", f]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let html = out.stdout;
        let toc = &html[html.find("<nav class=\"toc\"").unwrap()..html.find("</nav>").unwrap()];
        let turns = html.matches("<article class=\"msg user").count();
        let compactions = html.matches("<section class=\"compaction\"").count();
        all_compactions += compactions;
        assert!(turns > 0, "{f}: the fixture has turns");
        assert_eq!(toc.matches("<li class=\"turn\">").count(), turns, "{f}");
        assert_eq!(toc.matches("<li class=\"compaction\">").count(), compactions, "{f}");
        // Each link's target exists.
        for href in toc.split("href=\"#").skip(1) {
            let id = &href[..href.find('"').unwrap()];
            assert!(html.contains(&format!("id=\"{id}\"")), "{f}: a link to #{id} with no target");
        }
    }
    assert!(all_compactions > 0, "the fixtures have compactions on their exported paths");
}
