//! Hostile input never reaches a terminal or an exported page live: escape sequences, C1
//! controls, bidi overrides and tag characters in ids, parent ids, labels, kinds, model and
//! tool names, error messages, file names and command-line arguments are shown visibly, in
//! every command, coloured or not; long damage reports stay bounded; the Markdown export
//! renders to HTML without live markup.

use std::path::Path;
use std::process::Command;

use pulldown_cmark::{html, Options, Parser};

/// Every field a renderer touches, with OSC 52, `ESC [2J`, U+202E, tag characters and C1.
const ESCAPES: &str = "testdata/hostile/escapes.jsonl";
const HOSTILE: [&str; 3] = [ESCAPES, "testdata/hostile/hostile.jsonl", "testdata/arcturn/hostile.jsonl"];

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env("COLUMNS", "120");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let o = bin().args(args).output().expect("the binary runs");
    Run {
        code: o.status.code().expect("exited normally"),
        stdout: String::from_utf8(o.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(o.stderr).expect("utf-8 stderr"),
    }
}

/// What a terminal could act on, or what would hide or reorder text.
fn is_live(c: char) -> bool {
    matches!(c, '\x00'..='\x08' | '\x0b'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}')
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || ('\u{E0000}'..='\u{E007F}').contains(&c)
}

/// With colour on, the palette's own SGR sequences are allowed (and nothing else).
fn without_colours(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let n = after.bytes().take_while(|b| b.is_ascii_digit() || *b == b';').count();
        if after.as_bytes().get(n) == Some(&b'm') {
            rest = &after[n + 1..];
        } else {
            out.push('\x1b');
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

fn assert_clean(what: &str, r: &Run, colour: bool) {
    for (name, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
        let text = if colour { without_colours(text) } else { text.clone() };
        if let Some((i, c)) = text.char_indices().find(|&(_, c)| is_live(c)) {
            let from = text[..i].char_indices().rev().nth(40).map(|(j, _)| j).unwrap_or(0);
            panic!("{what}: raw U+{:04X} in {name} near {:?}", c as u32, &text[from..i]);
        }
    }
}

#[test]
fn dangling_parent_escape_sequences_are_shown_visibly_in_tree() {
    for cmd in ["tree", "leaves", "path"] {
        for colour in ["never", "always"] {
            let r = run(&[cmd, "--color", colour, ESCAPES]);
            assert_eq!(r.code, 0, "{cmd}: {}", r.stderr);
            assert_clean(&format!("{cmd} --color {colour}"), &r, colour == "always");
            // The dangling parent is still there to read, in its visible form, on the row
            // and in the warning.
            let shown = "\"gone\\e]52;c;ZXZpbA==\\x07\\e[2J<U+202E><U+E0049><U+E0047>";
            if cmd != "leaves" {
                // `leaves` lists only the tip, not the dangling root.
                assert!(without_colours(&r.stdout).contains(shown), "{cmd} stdout: {}", r.stdout);
            }
            assert!(without_colours(&r.stderr).contains(shown), "{cmd} stderr: {}", r.stderr);
        }
    }
}

#[test]
fn every_human_view_shows_hostile_names_and_messages_visibly() {
    for file in HOSTILE {
        let views: [&[&str]; 10] = [
            &["tree"],
            &["tree", "--collapse=2"],
            &["leaves"],
            &["path"],
            &["check"],
            &["context"],
            &["stats"],
            &["trace"],
            &["export"],
            &["sessions"],
        ];
        for view in views {
            for colour in ["never", "always"] {
                let mut args: Vec<&str> = view.to_vec();
                args.extend(["--color", colour, file]);
                if view[0] == "sessions" {
                    args.pop();
                    args.push(Path::new(file).parent().unwrap().to_str().unwrap());
                }
                let r = run(&args);
                assert!([0, 1].contains(&r.code), "{args:?}: exit {} {}", r.code, r.stderr);
                assert_clean(&format!("{args:?}"), &r, colour == "always");
            }
        }
    }
    // Each entry, and an unknown id given on the command line.
    for id in ["u1\x1b[2J", "a2\u{202e}", "t3", "e4", "l5", "k6", "x7"] {
        let r = run(&["show", "--color", "never", ESCAPES, id]);
        assert_eq!(r.code, 0, "show {id:?}: {}", r.stderr);
        assert_clean(&format!("show {id:?}"), &r, false);
    }
    let r = run(&["show", ESCAPES, "nope\x1b]52;c;ZXZpbA==\x07\u{202e}"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope\\e]52;c;ZXZpbA==\\x07<U+202E>"), "{}", r.stderr);
    assert_clean("show of an unknown id", &r, false);
    // The names that reach the terminal are there to read.
    let mut all = String::new();
    for view in [&["tree"][..], &["trace"], &["check"]] {
        let mut args = view.to_vec();
        args.extend(["--color", "never", ESCAPES]);
        let r = run(&args);
        all.push_str(&r.stdout);
        all.push_str(&r.stderr);
    }
    for shown in ["ba\\e[31msh<U+E0049>", "overloaded \\e]52;c;", "weird\\e[2J<U+202E>", "label \\e]52;c;"] {
        assert!(all.contains(shown), "{shown} not in {all}");
    }
}

#[test]
fn hostile_file_names_are_shown_visibly() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().join("s\x1b]52;c;ZXZpbA==\x07\u{202e}\u{E0041}.jsonl");
    std::fs::copy(ESCAPES, &name).unwrap();
    for cmd in ["tree", "check", "stats"] {
        let r = run(&[std::ffi::OsStr::new(cmd), name.as_os_str()]);
        assert!([0, 1].contains(&r.code), "{cmd}: {}", r.stderr);
        assert_clean(cmd, &r, false);
        assert!(format!("{}{}", r.stdout, r.stderr).contains("s\\e]52;c;ZXZpbA==\\x07<U+202E><U+E0041>.jsonl"));
    }
    let missing = dir.path().join("gone\x1b[2J\u{202e}.jsonl");
    let r = run(&[std::ffi::OsStr::new("tree"), missing.as_os_str()]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("gone\\e[2J<U+202E>.jsonl: no such file or directory"), "{}", r.stderr);
    assert_clean("a missing file", &r, false);
}

#[test]
fn usage_errors_show_hostile_arguments_visibly_and_exit_2() {
    let bogus = "--bogus\u{202e}x\x1b]52;c;ZXZpbA==\x07";
    let r = run(&["tree", bogus, ESCAPES]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unexpected argument '--bogus<U+202E>x"), "{}", r.stderr);
    assert_clean("an unknown flag", &r, false);
    assert!(!r.stderr.contains("]52;"), "clap drops the escape sequence or it is shown: {}", r.stderr);

    let r = run(&["tree", "--color", "\u{202e}always\u{E0041}", ESCAPES]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid value '<U+202E>always<U+E0041>' for '--color <WHEN>'"), "{}", r.stderr);
    assert_clean("an invalid --color", &r, false);

    let r = run(&["bogus\u{202e}cmd"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bogus<U+202E>cmd"), "{}", r.stderr);
    assert_clean("an unknown command", &r, false);

    // Help and version still print normally and exit 0.
    let r = run(&["--version"]);
    assert_eq!((r.code, r.stdout.starts_with("arcturn-inspect ")), (0, true), "{}", r.stdout);
    let r = run(&["tree", "--help"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("Usage: arcturn-inspect tree"), "{}", r.stdout);
}

#[test]
fn tag_characters_are_shown_visibly_in_tree_show_and_context() {
    let tags = "<U+E0049><U+E0047><U+E004E><U+E004F><U+E0052><U+E0045>";
    // `show` prints the record as JSON: tag characters are escapes there (a surrogate pair
    // each), like every other character a terminal must not get raw.
    for (args, shown) in [
        (vec!["tree", "--color", "never", ESCAPES], format!("tags only: {tags}")),
        (vec!["context", "--color", "never", ESCAPES], format!("hello {tags} hidden")),
        (vec!["show", "--color", "never", ESCAPES, "x7"], "tags only: \\udb40\\udc49\\udb40\\udc47".to_string()),
    ] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_clean(&format!("{args:?}"), &r, false);
        assert!(r.stdout.contains(&shown), "{args:?}: {}", r.stdout);
    }
    // JSON keeps the data, as escapes (a surrogate pair each) that parse back.
    let r = run(&["show", "--json", ESCAPES, "x7"]);
    assert_clean("show --json", &r, false);
    assert!(r.stdout.contains("\\udb40\\udc49"), "{}", r.stdout);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("valid JSON");
    assert!(v.to_string().contains('\u{E0049}'));
}

/// 10^6 entries whose parents close one loop: `c0 <- c1 <- ... <- c999999 <- c0`.
fn write_cycle(path: &Path, n: usize) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, r#"{{"kind":"session","version":1,"id":"s-cycle","timestamp":"2026-11-12T08:00:00.000Z","cwd":"/x"}}"#)
        .unwrap();
    for i in 0..n {
        let parent = if i == 0 { n - 1 } else { i - 1 };
        writeln!(
            f,
            r#"{{"kind":"label","id":"c{i}","parentId":"c{parent}","timestamp":"2026-11-12T08:00:01.000Z","label":"x"}}"#
        )
        .unwrap();
    }
}

#[test]
fn a_million_entry_cycle_is_reported_in_one_bounded_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cycle.jsonl");
    let n = 1_000_000;
    write_cycle(&path, n);
    let path = path.to_str().unwrap();
    // Each member is followed by its child; the loop closes at the first one named.
    let want = format!("parent links form a cycle of {n} entries: \"c1\" (line 3) -> \"c2\" (line 4) -> ");
    // --wide: a human finding wraps at the terminal's width otherwise.
    for args in [vec!["check", "--wide", "--color", "never", path], vec!["leaves", "--color", "never", path]] {
        let r = run(&args);
        assert!([0, 1].contains(&r.code), "{args:?}: {}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        let line = all.lines().find(|l| l.contains("[cycle]")).expect("the cycle is reported");
        assert!(line.contains(&want), "{line}");
        assert!(line.contains(&format!("... and {} more -> \"c1\" [cycle]", n - 10)), "{line}");
        assert!(
            all.lines().all(|l| l.len() < 2_000),
            "{args:?}: a line of {} bytes",
            all.lines().map(str::len).max().unwrap()
        );
    }
    // JSON carries the same bounded message; the cut entry is named by its id and line.
    let r = run(&["check", "--json", path]);
    assert_eq!(r.code, 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let cycle = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "cycle").expect("a cycle finding");
    assert!(cycle["message"].as_str().unwrap().len() < 2_000, "{cycle}");
    assert_eq!((cycle["id"].as_str(), cycle["line"].as_u64()), (Some("c0"), Some(2)));
    assert!(r.stdout.len() < 10_000, "check --json printed {} bytes", r.stdout.len());
}

/// Tags, attributes and URL schemes that make a page do something.
fn live_markup(html: &str) -> Vec<String> {
    const TAGS: [&str; 27] = [
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "em",
        "strong",
        "code",
        "pre",
        "a",
        "img",
        "ul",
        "ol",
        "li",
        "hr",
        "blockquote",
        "br",
        "del",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
    ];
    let mut found = Vec::new();
    // Text is entity-escaped by the renderer, so every `<` left starts a real tag.
    for tag in html.split('<').skip(1) {
        let Some(end) = tag.find('>') else {
            found.push(format!("unterminated <{tag}"));
            continue;
        };
        let body = &tag[..end];
        let name: String = body.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let name = name.to_ascii_lowercase();
        if !TAGS.contains(&name.as_str()) && name != "summary" && name != "input" && name != "sup" && name != "div" {
            found.push(format!("<{body}>"));
        }
        for (key, value) in attributes(body) {
            if key.starts_with("on") {
                found.push(format!("event handler in <{body}>"));
            }
            let value = value.trim_start().to_ascii_lowercase();
            if (key == "href" || key == "src")
                && ["javascript:", "vbscript:", "data:", "file:"].iter().any(|s| value.starts_with(s))
            {
                found.push(format!("{key}={value}"));
            }
        }
    }
    found
}

/// A tag's attributes as (lower-case name, value), quoted values read to their closing quote.
fn attributes(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = body.as_bytes();
    let mut i = body.find(|c: char| c.is_ascii_whitespace()).unwrap_or(body.len());
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'/' {
            i += 1;
        }
        let key = body[start..i].to_ascii_lowercase();
        let mut value = String::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                let end = body[i + 1..].find(q as char).map(|e| i + 1 + e).unwrap_or(b.len());
                value = body[i + 1..end].to_string();
                i = end + 1;
            } else {
                let end = body[i..].find(|c: char| c.is_ascii_whitespace()).map(|e| i + e).unwrap_or(b.len());
                value = body[i..end].to_string();
                i = end;
            }
        }
        if !key.is_empty() {
            out.push((key, value));
        }
    }
    out
}

#[test]
fn markdown_export_of_hostile_sessions_has_no_live_markup() {
    for file in HOSTILE {
        for extra in [&[][..], &["--thinking"][..]] {
            let mut args = vec!["-q", "export"];
            args.extend_from_slice(extra);
            args.push(file);
            let r = run(&args);
            assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
            assert_clean(&format!("{args:?}"), &r, false);
            for options in [Options::empty(), Options::all()] {
                let mut page = String::new();
                html::push_html(&mut page, Parser::new_ext(&r.stdout, options));
                let live = live_markup(&page);
                assert!(live.is_empty(), "{file} {extra:?}: live markup {live:?}");
            }
        }
    }
    // The checker itself sees what it must.
    let mut page = String::new();
    html::push_html(&mut page, Parser::new("<script>x</script>\n\n[a](javascript:x) <b onclick=x>b</b>"));
    let live = live_markup(&page);
    assert!(live.contains(&"<script>".to_string()) && live.contains(&"href=javascript:x".to_string()), "{live:?}");
    assert!(live.contains(&"event handler in <b onclick=x>".to_string()), "{live:?}");
}

#[test]
fn markdown_export_keeps_hostile_text_readable_and_safe_links_live() {
    let r = run(&["-q", "export", "testdata/arcturn/hostile.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = &r.stdout;
    // Shown as text: escaped, not dropped.
    assert!(md.contains("\\<script>alert(1)\\</script>"), "{md}");
    assert!(md.contains("\\[x](javascript:alert(1))"), "{md}");
    let mut page = String::new();
    html::push_html(&mut page, Parser::new(md));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{page}");
    assert!(page.contains("<a href=\"https://example.com/docs\">docs</a>"), "{page}");
    assert!(page.contains("<a href=\"mailto:security@example.com\">mail</a>"), "{page}");
    // The quoted README keeps its inner fences inside the outer, longer one.
    let block = page.split("<pre><code class=\"language-markdown\">").nth(1).expect("the quoted README block");
    let block = &block[..block.find("</code></pre>").unwrap()];
    assert!(block.contains("```bash\nnpm run escape-check\n```") && block.contains("keep going."), "{block}");
}
