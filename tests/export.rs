//! `export`: goldens for both formats and both renderers, the seed rules, where files may be
//! written, and the hostile session (no live markup, hostile text still visible).
//! Regenerate the goldens with `ARCTURN_BLESS=1 cargo test --test export`.

mod prereq;

use std::path::Path;
use std::process::Command;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

const REVIEW: &str = "testdata/export/arcturn-review.jsonl";
const CRAB: &str = "testdata/export/crab-review.jsonl";
const HOSTILE: &str = "testdata/hostile/hostile.jsonl";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"));
    c.env_remove("CLICOLOR_FORCE").env_remove("COLUMNS").env("NO_COLOR", "1");
    c
}

fn run_in(dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut c = bin();
    c.args(args);
    if let Some(d) = dir {
        c.current_dir(d);
    }
    let out = c.output().expect("run the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

fn export(args: &[&str]) -> String {
    let mut all = vec!["-q", "export"];
    all.extend_from_slice(args);
    let (code, out, err) = run_in(None, &all);
    assert_eq!(code, 0, "stderr: {err}");
    out
}

fn golden(name: &str, actual: &str) {
    let path = Path::new("tests/golden").join(name);
    if prereq::bless() {
        std::fs::create_dir_all("tests/golden").unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run ARCTURN_BLESS=1 cargo test --test export", path.display()));
    if expected != actual {
        let line = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{} differs at line {}:\n  expected: {:?}\n  actual:   {:?}\n(run ARCTURN_BLESS=1 cargo test --test export to accept)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

#[test]
fn goldens() {
    golden("export-arcturn-review.md", &export(&[REVIEW]));
    golden("export-arcturn-review-thinking.html", &export(&["--html", "--thinking", REVIEW]));
    golden("export-arcturn-review-as-sent.md", &export(&["--as-sent", REVIEW]));
    golden("export-crab-review.md", &export(&[CRAB]));
    golden("export-crab-review.html", &export(&["--html", CRAB]));
}

/// The transcript's own section headings (H2 headings that start with a section label),
/// parsed back with pulldown-cmark. Message text may hold headings of its own.
fn h2_headings(md: &str) -> Vec<String> {
    const LABELS: &[&str] = &["User", "Assistant", "Tool result", "Operator", "Compaction", "Note", "Message ("];
    all_h2(md).into_iter().filter(|h| LABELS.iter().any(|l| h.starts_with(l))).collect()
}

fn all_h2(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::Heading { level: HeadingLevel::H2, .. }) => cur = Some(String::new()),
            Event::Text(t) | Event::Code(t) if cur.is_some() => cur.as_mut().unwrap().push_str(&t),
            Event::End(TagEnd::Heading(HeadingLevel::H2)) => out.push(cur.take().unwrap()),
            _ => {}
        }
    }
    out
}

#[test]
fn markdown_round_trips_one_section_per_entry() {
    let md = export(&[REVIEW]);
    let heads = h2_headings(&md);
    // 25 entries on the path to e25 (b01 is on another branch).
    assert_eq!(heads.len(), 25, "{heads:#?}");
    assert!(heads[0].starts_with("User · 2026-11-02 09:00:06 UTC"), "{}", heads[0]);
    assert!(heads[1].starts_with("Assistant · ") && heads[1].ends_with("anthropic/claude-sonnet-5-5"), "{}", heads[1]);
    assert_eq!(heads.iter().filter(|h| h.starts_with("Operator")).count(), 1);
    assert_eq!(heads.iter().filter(|h| h.starts_with("Compaction")).count(), 1);

    // The hostile file's unclosed fences, HTML blocks and backtick runs stay in their section.
    let md = export(&[HOSTILE]);
    let heads = h2_headings(&md);
    assert_eq!(heads.len(), 8, "{heads:#?}");
    assert!(heads[0].starts_with("User"), "{heads:?}");
    assert!(heads[7].starts_with("Assistant"), "{heads:?}");
}

#[test]
fn seed_rules() {
    let md = export(&[REVIEW]);
    // e07 has 1 + 312 + 1 + 1 = 315 lines: 200 shown, 115 cut.
    assert!(md.contains("test tests::case_199 ... ok\n```"), "the 200th line closes the fence");
    assert!(!md.contains("case_200"));
    assert!(md.contains("\n*[... 115 more lines cut (315 in all)]*\n"), "marker");
    assert!(!md.contains("Read the test first."), "thinking only with --thinking");
    assert!(export(&["--thinking", REVIEW]).contains("Read the test first."));
    assert!(md.contains("## Operator · 2026-11-02 09:00:55 UTC"));
    assert!(md.contains("> *The provider compacted the conversation here.*"));
    assert!(!md.contains("Earlier turns summarized by the provider."), "provider summary folded away");
    assert!(md.contains("> *Server tool: anthropic web\\_search \"llvm-cov region coverage\"*"));
    assert!(md.contains("*Offloaded: the full output is at* `/home/dev/.arcturn/offload/s-20261102-rv/c04.txt`"));
    assert!(md.contains("*entry `e14` · 182340 → 12011 tokens*"));
    assert!(md.contains("<details>\n<summary>Summary</summary>\n\n## Goal"));
    assert!(md.contains("refused: not sent to the provider again"));

    let html = export(&["--html", REVIEW]);
    assert!(html.contains("<section class=\"compaction\" id=\"e-e14\">"));
    assert!(html.contains("<b>182,340</b> → <b>12,011</b> tokens"));
    assert!(html.contains("The provider compacted the conversation here."));
    assert!(html.contains("<p class=\"cut\">[... 115 more lines cut (315 in all)]</p>"));
    assert!(html.contains("<img src=\"data:image/png;base64,iVBORw0KGgo"), "checked PNG is inlined");
    // One bar per assistant message with usage on the path (10) and one compaction marker.
    assert_eq!(html.matches("<rect class=\"cr\"").count(), 9, "e02 has no cache read");
    assert_eq!(html.matches("<g class=\"marker\">").count(), 1);
}

#[test]
fn as_sent_exports_the_materialized_context() {
    let md = export(&["--as-sent", REVIEW]);
    let heads = h2_headings(&md);
    assert_eq!(heads.len(), 12, "{heads:#?}");
    assert!(heads[0].starts_with("Compaction summary (sent)"));
    assert!(!md.contains("Fix the failing test in"), "folded into the summary");
    assert!(
        !md.contains("delete ~/old-projects to free") || !md.contains("I can't delete directories"),
        "refusal not sent"
    );
    assert!(md.contains("[context-edited: the \"read\" result (6240 characters) was elided"));
    assert!(md.contains("sent as a stub"));
    let thinking = export(&["--as-sent", "--thinking", REVIEW]);
    assert!(!thinking.contains("Append mul after add."), "withheld thinking is not sent");
    assert!(thinking.contains("Read the file again."), "e19 keeps its thinking");
}

#[test]
fn crab_transcript_shows_events_and_resolves_tool_names() {
    let md = export(&[CRAB]);
    assert!(md.contains("## Compaction: shed"));
    assert!(md.contains("1 old tool result(s) now sent as placeholders"));
    assert!(md.contains("## Compaction: summarize"));
    assert!(md.contains("**Result** of `read` *(call `call_00_a1b2`)*"));
    assert!(
        md.contains("[... 51 more lines cut (251 in all)]") || md.contains("\\[... 51 more lines cut (251 in all)\\]")
    );
    let html = export(&["--html", CRAB]);
    // Six llm_call records, two compaction events.
    assert_eq!(html.matches("<title>call ").count(), 6);
    assert_eq!(html.matches("<g class=\"marker\">").count(), 2);
}

#[test]
fn auto_name_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let session = std::fs::canonicalize(REVIEW).unwrap();
    let s = session.to_str().unwrap();
    let (code, _, err) = run_in(Some(dir.path()), &["export", "-O", s]);
    assert_eq!(code, 0, "{err}");
    let name = dir.path().join("arcturn-session-2026-11-02-0900.md");
    assert!(std::fs::read_to_string(&name).unwrap().starts_with("# Fix the failing add test\n"));
    std::fs::write(&name, "keep me").unwrap();
    let (code, _, err) = run_in(Some(dir.path()), &["export", "-O", s]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists; pass --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&name).unwrap(), "keep me");
    let (code, _, _) = run_in(Some(dir.path()), &["export", "-O", "--force", s]);
    assert_eq!(code, 0);
    assert_ne!(std::fs::read_to_string(&name).unwrap(), "keep me");
    let (code, _, _) = run_in(Some(dir.path()), &["export", "--html", "-O", s]);
    assert_eq!(code, 0);
    assert!(dir.path().join("arcturn-session-2026-11-02-0900.html").exists());
    // crab: named from the meta line's creation time (1792661000878 ms = 2026-10-22 09:23 UTC).
    let crab = std::fs::canonicalize(CRAB).unwrap();
    let (code, _, _) = run_in(Some(dir.path()), &["export", "-O", crab.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(dir.path().join("arcturn-session-2026-10-22-0923.md").exists());
}

#[test]
fn never_writes_to_or_next_to_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    std::fs::copy(REVIEW, &session).unwrap();
    let before = std::fs::read(&session).unwrap();
    let s = session.to_str().unwrap();
    let (code, _, err) = run_in(None, &["export", "-o", s, s]);
    assert_eq!(code, 2);
    assert!(err.contains("over the session file"), "{err}");
    let (code, _, err) = run_in(None, &["export", "-o", dir.path().join("x.md").to_str().unwrap(), s]);
    assert_eq!(code, 2);
    assert!(err.contains("next to the session file"), "{err}");
    let (code, _, _) = run_in(Some(dir.path()), &["export", "-O", s]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read(&session).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("t.html");
    let (code, stdout, _) = run_in(None, &["export", "--html", "-o", target.to_str().unwrap(), s]);
    assert_eq!(code, 0);
    assert!(stdout.is_empty());
    assert!(std::fs::read_to_string(&target).unwrap().starts_with("<!DOCTYPE html>"));
}

/// Every tag in the page, as (name, [(attribute, value)]). Text never holds a raw `<`
/// (it is escaped), so every `<` opens a tag; values are double-quoted.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if rest.starts_with("!DOCTYPE") || rest.starts_with('/') {
            rest = &rest[rest.find('>').unwrap()..];
            continue;
        }
        let end = rest.find('>').expect("tag closes");
        let inner = &rest[..end];
        rest = &rest[end..];
        let name_end = inner.find(|c: char| c.is_whitespace() || c == '/').unwrap_or(inner.len());
        let name = inner[..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut a = inner[name_end..].trim_start();
        while !a.is_empty() && a != "/" {
            let eq = a.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(a.len());
            let key = a[..eq].to_ascii_lowercase();
            a = &a[eq..];
            let mut value = String::new();
            if let Some(v) = a.strip_prefix("=\"") {
                let close = v.find('"').expect("quoted value closes");
                value = v[..close].to_string();
                a = &v[close + 1..];
            } else {
                assert!(!a.starts_with('='), "unquoted attribute value in <{name}>: {inner}");
            }
            attrs.push((key, value));
            a = a.trim_start();
        }
        out.push((name, attrs));
    }
    out
}

const ALLOWED_TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "nav",
    "main",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "dl",
    "dt",
    "dd",
    "div",
    "span",
    "p",
    "a",
    "code",
    "pre",
    "article",
    "section",
    "aside",
    "details",
    "summary",
    "b",
    "em",
    "strong",
    "del",
    "ul",
    "ol",
    "li",
    "blockquote",
    "hr",
    "br",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "figure",
    "figcaption",
    "img",
    "input",
    "svg",
    "g",
    "rect",
    "line",
    "text",
];

fn assert_no_live_markup(html: &str) {
    let tags = tags(html);
    assert!(tags.len() > 50, "the scanner found the page's tags");
    let mut metas = 0;
    for (name, attrs) in &tags {
        assert!(ALLOWED_TAGS.contains(&name.as_str()) || name == "title", "unexpected tag <{name}>");
        for (k, v) in attrs {
            assert!(!k.starts_with("on"), "event handler {k} on <{name}>");
            assert!(!matches!(k.as_str(), "srcdoc" | "formaction" | "action" | "xlink:href"), "{k} on <{name}>");
            if k == "href" {
                assert!(
                    v.starts_with("https://")
                        || v.starts_with("http://")
                        || v.starts_with("mailto:")
                        || v.starts_with("#e-"),
                    "live link {v:?}"
                );
            }
            if k == "src" {
                let ok =
                    ["png", "jpeg", "gif", "webp"].iter().any(|t| v.starts_with(&format!("data:image/{t};base64,")));
                assert!(ok && !v.contains(' '), "image source {v:?}");
            }
            if k == "style" {
                assert!(name == "td" || name == "th", "inline style on <{name}>");
            }
        }
        if name == "meta" {
            metas += 1;
        }
    }
    assert_eq!(metas, 5, "charset, CSP, viewport, referrer, color-scheme");
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
    ));
    let lower = html.to_ascii_lowercase();
    for bad in ["<script", "<iframe", "<object", "<embed", "<link", "<base", "<form", "<svg onload", "javascript:\""] {
        assert!(!lower.contains(bad), "{bad} in the page");
    }
    assert!(
        !html.contains('\x1b') && !html.contains('\u{9b}') && !html.contains('\u{202e}') && !html.contains('\u{200b}')
    );
}

#[test]
fn hostile_html_has_no_live_markup_and_shows_the_text() {
    let html = export(&["--html", "--thinking", HOSTILE]);
    assert_no_live_markup(&html);
    for visible in [
        "&lt;script&gt;document.title='pwned-md'&lt;/script&gt;",
        "inline &lt;img src=x onerror=\"document.body.insertAdjacentHTML('beforeend','&lt;p id=pwned&gt;')\"&gt;",
        "js (javascript:document.title='pwned-js')",
        "vb (vbscript:msgbox(1))",
        "data (data:text/html;base64,",
        "<a href=\"https://evil.example/track.png\">[remote image, not loaded] remote</a>",
        "\\e[31mred\\e[0m",
        "\\e]52;c;ZXZpbA==\\x07",
        "\\e]8;;http://evil.example\\x07osc8",
        "\\u{9b}31m",
        "&lt;U+202E&gt;txt.exe",
        "a&lt;U+200B&gt;b",
        "&lt;b&gt;bold&lt;/b&gt;&quot;onmouseover=&quot;alert(1)",
        "id=\"e-x&quot;&gt;&lt;script&gt;document.title=&#39;pwned-id&#39;&lt;/script&gt;\"",
        "image of unsupported type &quot;image/png&quot; onload=&quot;document.title=&#39;pwned-mime&#39;&quot; not shown",
        "image/png image with invalid base64 data not shown",
        "&lt;script&gt;document.title='pwned-thinking'&lt;/script&gt;",
        "Server tool: &lt;script&gt;x&lt;/script&gt; &lt;b&gt;web&lt;/b&gt;",
    ] {
        assert!(html.contains(visible), "missing visible text {visible:?}");
    }
    // The one valid PNG of the tool result and the valid data: PNG in the markdown.
    assert_eq!(html.matches("<img src=\"data:image/png;base64,").count(), 2);
}

#[test]
fn hostile_markdown_is_terminal_safe() {
    let md = export(&["--thinking", HOSTILE]);
    assert!(!md.contains('\x1b') && !md.contains('\u{9b}') && !md.contains('\u{202e}'));
    assert!(md.contains("\\e[31mred"));
    // Raw HTML is escaped, so it renders as text, not as HTML.
    assert!(md.contains("\\<script>document.title='pwned-md'\\</script>"));
    let raw: Vec<String> = Parser::new(&md)
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(h.to_string()),
            _ => None,
        })
        .filter(|h| !matches!(h.as_str(), "<details>\n" | "<summary>Summary</summary>\n" | "</details>\n"))
        .collect();
    // No raw HTML is left but the exporter's own `<details>` card.
    assert!(raw.is_empty(), "{raw:#?}");
    assert!(Parser::new(&md).filter(|e| matches!(e, Event::Start(Tag::HtmlBlock))).count() == 2, "the card's own");
}
