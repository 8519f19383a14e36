//! The properties the fuzz targets check, one function per target, each taking the raw
//! fuzz input and panicking when a property fails. The targets in `fuzz_targets/` only call
//! these; `tests/fuzz_regressions.rs` in the main crate includes this file too and replays
//! every input committed under `fuzz/regressions/<target>/`, so a finding stays fixed.
//!
//! Only the library API and crates the main crate already depends on are used here, so the
//! file compiles in both places.

use std::collections::BTreeMap;
use std::rc::Rc;

use arcturn_inspect::export::{self, html, markdown, Item, Options};
use arcturn_inspect::format::skim;
use arcturn_inspect::format::tally::JsonLen;
use arcturn_inspect::model::{Entry, Format, Id, Kind};
use arcturn_inspect::query::{self, Origin, Record, RunOptions, Selection};
use arcturn_inspect::session::Session;
use arcturn_inspect::source::Source;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use serde::de::IgnoredAny;
use serde_json::Value;

/// Every way a file can be read: detected, then forced to each format.
const FORMATS: [Option<Format>; 6] =
    [None, Some(Format::Arcturn), Some(Format::Crab), Some(Format::Pi), Some(Format::Claude), Some(Format::Codex)];

/// A compile-time reminder: a new format must be added to [`FORMATS`].
#[allow(dead_code)]
fn every_format_is_fuzzed(f: Format) {
    match f {
        Format::Arcturn | Format::Crab | Format::Pi | Format::Claude | Format::Codex => {}
    }
}

// ---------------------------------------------------------------------------------------
// 1. The line decoder against serde_json

/// The skimmer against serde_json, as in `tests/skim.rs` and the skimmer's unit tests:
/// whatever it accepts serde_json accepts, with the same value, printed the same (so 7 and
/// 7.0 differ); whatever it skips as valid serde_json accepts. It may decline a line (the
/// loader then asks serde_json), but never accept one serde_json refuses.
pub fn skim_agrees(data: &[u8]) {
    let Ok(doc) = std::str::from_utf8(data) else { return };
    if let Ok(v) = skim::from_str::<Value>(doc) {
        let oracle = serde_json::from_str::<Value>(doc);
        assert_eq!(
            Some(v.to_string()),
            oracle.as_ref().ok().map(Value::to_string),
            "skimmer accepted {doc:?} differently (serde_json: {oracle:?})"
        );
        assert_eq!(Some(&v), oracle.as_ref().ok(), "skimmer accepted {doc:?} differently");
        // The count's measure of a value written back as compact JSON (a tool call's
        // arguments) is the length of what serde_json writes.
        let written = arcturn_inspect::content::js_len(&v.to_string());
        assert_eq!(skim::from_str::<JsonLen>(doc).ok().map(|j| j.0), Some(written), "JSON length of {doc:?}");
    }
    if skim::from_str::<IgnoredAny>(doc).is_ok() {
        let oracle = serde_json::from_str::<IgnoredAny>(doc);
        assert!(oracle.is_ok(), "skimmer skipped {doc:?}, which serde_json rejects: {oracle:?}");
        // A line accepted whole reads the same when the containers it ignores are skipped
        // by their brackets alone (what the count of a message does on a line the load read).
        let keys = |m: BTreeMap<String, IgnoredAny>| m.into_keys().collect::<Vec<_>>();
        assert_eq!(
            skim::from_str::<BTreeMap<String, IgnoredAny>>(doc).map(keys).ok(),
            skim::from_accepted_str::<BTreeMap<String, IgnoredAny>>(doc).map(keys).ok(),
            "members of {doc:?}"
        );
        assert_eq!(
            skim::from_str::<Vec<IgnoredAny>>(doc).map(|v| v.len()).ok(),
            skim::from_accepted_str::<Vec<IgnoredAny>>(doc).map(|v| v.len()).ok(),
            "elements of {doc:?}"
        );
    }
    content_read_directly_agrees(doc);
    // The UTF-16 units the skimmer counts on a string's escaped bytes are those of its text.
    if let (Ok(Units(units)), Ok(text)) = (skim::from_str::<Units>(doc), serde_json::from_str::<String>(doc)) {
        assert_eq!(units, text.encode_utf16().count() as u64, "units of {doc:?}");
    }
}

/// A message's content read straight from the line's text (`format::direct`) is the content
/// the format's content function reads from the line as a JSON value, whenever it is not
/// declined, and read for a preview it is that content cut; as a message entry and, for pi,
/// as each of the entry kinds it reads apart.
fn content_read_directly_agrees(doc: &str) {
    let Ok(whole) = serde_json::from_str::<Value>(doc) else { return };
    for format in FORMATS.into_iter().flatten() {
        let table = arcturn_inspect::format::decoder(format);
        let Some(direct) = table.direct else { continue };
        for kind in ["message", "branch_summary", "custom_message"] {
            let e = Entry::new(1, 0..doc.len(), Kind::Message, Id::copied("e")).named(std::borrow::Cow::Borrowed(kind));
            let reference = (table.content)(&e, std::slice::from_ref(&whole));
            if let Ok(got) = direct(&e, &[doc], None) {
                assert_eq!(got, reference, "{format:?} {kind}: content of {doc:?} read directly");
            }
            // Read for a preview, its texts cut as they are read: the content cut.
            for chars in [0, 3, 240] {
                if let Ok(got) = direct(&e, &[doc], Some(chars)) {
                    let want = reference.clone().cut(chars);
                    assert_eq!(got.cut(chars), want, "{format:?} {kind}: content of {doc:?} cut to {chars}");
                }
            }
        }
    }
}

/// A string's UTF-16 units as the skimmer counts them (`skim::JS_LEN_TOKEN`).
struct Units(u64);

impl<'de> serde::Deserialize<'de> for Units {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Units;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, d: D) -> Result<Units, D::Error> {
                <u64 as serde::Deserialize>::deserialize(d).map(Units)
            }
        }
        d.deserialize_newtype_struct(skim::JS_LEN_TOKEN, V)
    }
}

// ---------------------------------------------------------------------------------------
// 2. The tree index

/// Load any bytes as a session in each format; when it loads, the index is a forest over
/// exactly the entries: every entry is reached once from the roots (no cycle, no entry
/// shared by two parents, none lost), parents and children agree, depths count the edges,
/// and paths and leaves follow.
pub fn tree_holds(data: &[u8]) {
    let Ok(src) = Source::from_bytes("fuzz.jsonl", data.to_vec()) else { return };
    for format in FORMATS {
        let Ok(s) = Session::load(&src, format) else { continue };
        check_forest(&s);
    }
}

fn check_forest(s: &Session<'_>) {
    let t = &s.tree;
    let n = s.entries.len();
    assert_eq!(t.len(), n, "one node per entry");
    let mut seen = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    for &(r, _) in t.roots() {
        assert_eq!(t.parent(r), None, "root {r} has a parent");
        assert_eq!(t.depth(r), 0, "root {r} has depth 0");
        stack.push(r);
    }
    let mut visits = 0usize;
    while let Some(i) = stack.pop() {
        assert!(!seen[i as usize], "entry {i} reached twice: a cycle or a shared child");
        seen[i as usize] = true;
        visits += 1;
        assert!(visits <= n, "more visits than entries");
        for &c in t.children(i) {
            assert_eq!(t.parent(c), Some(i), "child {c} of {i} names another parent");
            assert_eq!(t.depth(c), t.depth(i) + 1, "depth of {c}");
            stack.push(c);
        }
    }
    let lost: Vec<usize> = (0..n).filter(|&i| !seen[i]).collect();
    assert!(lost.is_empty(), "entries not reachable from any root: {lost:?}");
    for i in 0..n as u32 {
        let path = t.path(i);
        assert_eq!(path.len(), t.depth(i) as usize + 1, "path length of {i}");
        assert_eq!(path.last(), Some(&i));
        assert!(t.roots().iter().any(|r| r.0 == path[0]), "path of {i} starts at a root");
        assert!(t.is_ancestor(path[0], i));
    }
    let leaves: Vec<u32> = t.leaves().collect();
    assert!(n == 0 || !leaves.is_empty(), "a non-empty forest has a leaf");
    assert!(leaves.iter().all(|&l| t.children(l).is_empty()));
}

// ---------------------------------------------------------------------------------------
// 3. The export renderers

/// Export any bytes that load as a session, to the latest entry and to the first leaf, with
/// thinking, both as the path and as sent. The HTML has no live markup; the Markdown holds no
/// terminal control, no raw HTML block but the renderer's own, a section per item, and
/// renders through the HTML export's own Markdown sanitizer to inert HTML too.
pub fn export_is_inert(data: &[u8]) {
    let Ok(src) = Source::from_bytes("fuzz.jsonl", data.to_vec()) else { return };
    for format in FORMATS {
        let Ok(s) = Session::load(&src, format) else { continue };
        let mut targets: Vec<u32> = s.tree.latest().into_iter().collect();
        targets.extend(s.tree.leaves().next().filter(|l| Some(*l) != s.tree.latest()));
        for target in targets {
            for as_sent in [false, true] {
                let Ok(t) = export::build(&s, target, Options { thinking: true, as_sent }) else { continue };
                assert_html_inert(&html::render(&t), true);
                let md = markdown::render(&t);
                assert_markdown_contained(&md, &t.items);
                assert_html_inert(&html::markdown(&md), false);
            }
        }
    }
}

/// Every tag in `html`, as (name, [(attribute, value)]). Text never holds a raw `<` (it is
/// escaped), so every `<` opens a tag or a comment.
pub fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        assert!(!rest.starts_with("!--"), "a comment in the page");
        if rest.starts_with("!DOCTYPE") || rest.starts_with('/') {
            rest = &rest[rest.find('>').expect("tag closes")..];
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

/// The elements the export writes (the page, pulldown-cmark's Markdown, the SVG chart).
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
    "sup",
];

/// No element outside [`ALLOWED_TAGS`], no event handler, no link but http(s), mailto and
/// in-page anchors, images only as checked `data:image/...;base64` URLs (README, "export"),
/// and no terminal control or bidi character. `page`: a whole page, with its CSP.
pub fn assert_html_inert(html: &str, page: bool) {
    for (name, attrs) in tags(html) {
        assert!(ALLOWED_TAGS.contains(&name.as_str()), "unexpected tag <{name}>");
        for (k, v) in &attrs {
            assert!(!k.starts_with("on"), "event handler {k} on <{name}>");
            assert!(!matches!(k.as_str(), "srcdoc" | "formaction" | "action" | "xlink:href"), "{k} on <{name}>");
            assert!(k != "http-equiv" || (page && name == "meta"), "{k} on <{name}>");
            let url = v.trim_start().to_ascii_lowercase();
            if k == "href" {
                let live = ["https://", "http://", "mailto:"].iter().any(|p| url.starts_with(p));
                assert!(live || url.starts_with('#'), "live link {v:?}");
            }
            if k == "src" {
                let ok =
                    ["png", "jpeg", "gif", "webp"].iter().any(|t| url.starts_with(&format!("data:image/{t};base64,")));
                assert!(ok && !v.contains(' ') && name == "img", "image source {v:?} on <{name}>");
            }
            if k == "style" {
                assert!(name == "td" || name == "th", "inline style on <{name}>");
            }
        }
        if name == "meta" {
            assert!(page, "a <meta> in rendered Markdown");
        }
    }
    if page {
        assert!(html.contains(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", html::CSP)));
    }
    let lower = html.to_ascii_lowercase();
    for bad in ["<script", "<iframe", "<object", "<embed", "<link", "<base", "<form", "javascript:\"", "<!--"] {
        assert!(!lower.contains(bad), "{bad} in the HTML");
    }
    assert_no_terminal_control(html);
}

fn assert_no_terminal_control(text: &str) {
    let bad = text.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    });
    assert!(bad.is_none(), "unescaped control character {bad:?}");
}

/// The Markdown's sections hold: no raw HTML block but the renderer's own `<details>`
/// wrapper (message text cannot open an unclosed `<pre>` or comment that swallows the
/// sections after it), at least one `##` heading per item, and no terminal control.
pub fn assert_markdown_contained(md: &str, items: &[Item]) {
    assert_no_terminal_control(md);
    let mut in_block = false;
    let mut h2 = 0;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::HtmlBlock) => in_block = true,
            Event::End(TagEnd::HtmlBlock) => in_block = false,
            Event::Html(h) if in_block => {
                let own = matches!(h.as_ref(), "<details>\n" | "<summary>Summary</summary>\n" | "</details>\n");
                assert!(own, "a raw HTML block from the content: {h:?}");
            }
            Event::Start(Tag::Heading { level: HeadingLevel::H2, .. }) => h2 += 1,
            _ => {}
        }
    }
    assert!(h2 >= items.len(), "{} items but {h2} sections: one was swallowed", items.len());
}

// ---------------------------------------------------------------------------------------
// 4. Query input

/// Most outputs taken from one run: a filter like `repeat(.)` never ends by itself.
const MAX_OUTPUTS: u64 = 2_000;
/// Longest filter tried: longer ones only slow the search down.
const MAX_FILTER: usize = 256;

/// Input: a flags byte, the filter text up to the first newline, then the input lines.
/// Compiling must return a result; running over the lines (as records parsed the way
/// `query` parses them, or as the lines `--path`/`--leaves` select from the loaded session)
/// must end in outputs, errors or a halt, never a panic.
pub fn query_runs(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let (filter, input) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    if filter.len() > MAX_FILTER {
        return;
    }
    let filter = String::from_utf8_lossy(filter);
    let named = vec![("x".to_string(), jaq_json::Val::from("fuzz".to_string()))];
    let Ok(program) = query::compile(&filter, named) else { return };
    let opts = RunOptions { null_input: flags & 1 != 0, slurp: flags & 2 != 0 };
    let file: Rc<str> = Rc::from("fuzz.jsonl");

    let mut lines: Vec<(u32, &[u8])> = Vec::new();
    let src = Source::from_bytes("fuzz.jsonl", input.to_vec()).ok();
    let session = src.as_ref().and_then(|s| Session::load(s, None).ok());
    match (&session, flags & 12) {
        (Some(s), 4 | 8) => {
            let sel = Selection { path: (flags & 4 != 0).then_some(None), leaves: flags & 8 != 0, kind: None };
            if let Ok(picks) = query::select(s, &sel) {
                lines.extend(picks.into_iter().map(|p| (p.line, &s.source.bytes()[p.span])));
            }
        }
        _ => lines.extend(input.split(|&b| b == b'\n').enumerate().map(|(i, l)| (i as u32 + 1, l))),
    }
    let records = lines.into_iter().filter_map(|(line, bytes)| {
        let value = query::parse_line(bytes)?;
        Some(Record { value, origin: Origin { file: file.clone(), line } })
    });
    let mut outputs = 0u64;
    let _ = program.run(
        records,
        opts,
        |v| {
            // Print it as `query` would, so the value's Display is exercised too.
            let _ = v.to_string();
            outputs += 1;
            if outputs >= MAX_OUTPUTS {
                return Err(std::io::Error::other("enough outputs"));
            }
            Ok(())
        },
        |_, _| {},
    );
}
