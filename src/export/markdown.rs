//! The Markdown renderer: valid CommonMark, one `##` section per item. Message text is kept
//! as Markdown, but it cannot break out of its section or carry live markup: raw HTML
//! (blocks and inline tags) is escaped so a renderer shows it as text (an unclosed `<pre>`
//! or `<!--` cannot swallow what follows, a `<script>` or `onerror=` never runs), links and
//! images keep their target only for http, https and mailto (a `javascript:` or `data:`
//! one is shown as its source text), and an unclosed top-level code fence is closed. Everything verbatim (arguments, tool output, thinking) goes in a
//! fence longer than any backtick run inside it.

use std::fmt::Write;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag};

use super::{Card, ImagePart, Item, Msg, Note, Output, Part, Speaker, Transcript};
use crate::preview;

pub fn render(t: &Transcript) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# {}\n", inline(&t.title));
    let mut facts = Vec::new();
    if let Some(id) = &t.session_id {
        facts.push(format!("Session: {}", code(id)));
    }
    if let Some(c) = &t.created {
        facts.push(format!("Created: {c}"));
    }
    facts.push(format!("File: {} ({})", code(&t.file), t.format));
    facts.push(format!("Scope: {}", inline(&t.scope)));
    if !t.models.is_empty() {
        facts.push(format!("Models: {}", t.models.iter().map(|m| code(m)).collect::<Vec<_>>().join(", ")));
    }
    let u = &t.usage;
    facts.push(format!(
        "Tokens on this branch: {} model call(s); input {}, output {}, cache read {}, cache write {}{}",
        t.calls,
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
        u.cost.map(|c| format!("; cost ${c:.4}")).unwrap_or_default()
    ));
    facts.push(format!("Context at the end: ~{} tokens (estimated)", t.context_tokens));
    for f in facts {
        let _ = writeln!(o, "- {f}");
    }
    o.push('\n');
    for item in &t.items {
        o.push_str("---\n\n");
        match item {
            Item::Message(m) => message(&mut o, m),
            Item::Compaction(c) => card(&mut o, c),
            Item::Note(n) => note(&mut o, n),
        }
    }
    o
}

fn message(o: &mut String, m: &Msg) {
    let who = match m.speaker {
        Speaker::User => "User".to_string(),
        Speaker::Assistant => "Assistant".to_string(),
        Speaker::ToolResult => "Tool result".to_string(),
        Speaker::Operator => "Operator".to_string(),
        Speaker::Summary => "Compaction summary (sent)".to_string(),
        Speaker::Other => format!("Message ({})", m.role_name),
    };
    let mut head = vec![inline(&who)];
    if let Some(t) = &m.time {
        head.push(t.clone());
    }
    if let Some(md) = &m.model {
        head.push(inline(md));
    }
    let _ = writeln!(o, "## {}\n", head.join(" · "));
    let mut meta = vec![format!("entry {}", code(&m.id))];
    if let Some(u) = &m.usage {
        let mut s = format!("{} tokens", preview::tokens(u.total()));
        if let Some(c) = u.cost {
            s.push_str(&format!(", ${c:.4}"));
        }
        meta.push(s);
    }
    if let Some(r) = &m.stop_reason {
        meta.push(format!("stop: {}", inline(r)));
    }
    meta.extend(m.remarks.iter().map(|r| inline(r)));
    let _ = writeln!(o, "*{}*\n", meta.join(" · "));
    if let Some(e) = &m.error {
        let _ = writeln!(o, "**Error:**\n\n{}", fence(e, "text"));
    }
    for p in &m.parts {
        part(o, p);
    }
}

fn part(o: &mut String, p: &Part) {
    match p {
        Part::Markdown(t) => {
            let _ = writeln!(o, "{}\n", contain(t));
        }
        Part::Thinking(t) => {
            let _ = writeln!(o, "**Thinking**\n\n{}", fence(t, "text"));
        }
        Part::ToolCall { name, id, main, arguments } => {
            let mut line = format!("**Tool call** {}", code(name));
            if !main.is_empty() {
                line.push_str(&format!(" {}", code(main)));
            }
            if let Some(id) = id {
                line.push_str(&format!(" *(id {})*", code(id)));
            }
            let _ = writeln!(o, "{line}\n\n{}", fence(arguments, "json"));
        }
        Part::ToolOutput(r) => output(o, r),
        Part::Image(i) => {
            let _ = writeln!(o, "{}\n", image(i));
        }
        Part::ProviderCompaction { .. } => {
            let _ = writeln!(o, "> *The provider compacted the conversation here.*\n");
        }
        Part::Note(n) => {
            let _ = writeln!(o, "> *{}*\n", inline(n));
        }
    }
}

fn output(o: &mut String, r: &Output) {
    let mut line = format!("**Result** of {}", code(&r.tool));
    if let Some(id) = &r.call_id {
        line.push_str(&format!(" *(call {})*", code(id)));
    }
    if r.is_error {
        line.push_str(" · **error**");
    }
    if r.elided {
        line.push_str(" · *sent as a stub*");
    }
    let _ = writeln!(o, "{line}\n");
    if let Some(p) = &r.offloaded_path {
        let _ = writeln!(o, "*Offloaded: the full output is at* {}\n", code(p));
    }
    if r.text.is_empty() {
        let _ = writeln!(o, "*(no output)*\n");
    } else {
        let _ = writeln!(o, "{}", fence(&r.text, "text"));
    }
    if r.cut_lines > 0 || r.cut_chars > 0 {
        let _ = writeln!(o, "*{}*\n", cut_marker(r));
    }
    for i in &r.images {
        let _ = writeln!(o, "{}\n", image(i));
    }
}

/// `[... 123 more lines cut (323 in all)]`.
pub fn cut_marker(r: &Output) -> String {
    let mut s = format!(
        "[... {} more line{} cut ({} in all)",
        r.cut_lines,
        if r.cut_lines == 1 { "" } else { "s" },
        r.total_lines
    );
    if r.cut_chars > 0 {
        s.push_str(&format!("; {} characters cut", r.cut_chars));
    }
    s.push(']');
    s
}

fn image(i: &ImagePart) -> String {
    match i {
        ImagePart::Inline { mime, bytes, .. } => format!("*[image: {mime}, {bytes} bytes, shown in the HTML export]*"),
        ImagePart::Link(u) => format!("*[remote image, not loaded:* {}*]*", code(u)),
        ImagePart::Rejected(why) => format!("*[{}]*", inline(why)),
    }
}

fn card(o: &mut String, c: &Card) {
    let mut head = vec![inline(&c.title)];
    if let Some(t) = &c.time {
        head.push(t.clone());
    }
    let _ = writeln!(o, "## {}\n", head.join(" · "));
    let mut meta = vec![format!("entry {}", code(&c.id))];
    if let (Some(b), Some(a)) = (c.tokens_before, c.tokens_after) {
        meta.push(format!("{b} → {a} tokens"));
    }
    let _ = writeln!(o, "*{}*\n", meta.join(" · "));
    if !c.detail.is_empty() {
        let _ = writeln!(o, "{}\n", inline(&c.detail));
    }
    if let Some(s) = &c.summary {
        let _ = writeln!(o, "<details>\n<summary>Summary</summary>\n\n{}\n\n</details>\n", contain(s));
    }
}

fn note(o: &mut String, n: &Note) {
    let mut head = vec!["Note".to_string()];
    if let Some(t) = &n.time {
        head.push(t.clone());
    }
    let _ = writeln!(o, "## {}\n\n*entry {}*\n\n{}\n", head.join(" · "), code(&n.id), inline(&n.text));
}

/// A code span that no backtick inside can close.
pub fn code(s: &str) -> String {
    let s = s.replace('\n', " ");
    let run = longest_run(&s, '`');
    let ticks = "`".repeat(run + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.starts_with(' ') || s.is_empty() { " " } else { "" };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// A fenced block longer than any backtick run in the text.
pub fn fence(text: &str, info: &str) -> String {
    let n = (longest_run(text, '`') + 1).max(3);
    let f = "`".repeat(n);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{f}{info}\n{body}\n{f}\n")
}

fn longest_run(s: &str, c: char) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for ch in s.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Inline text that must stay plain: Markdown punctuation is backslash-escaped.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '!' | '|' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Keep a message's Markdown inside its section and free of live markup (see the module
/// comment): every raw HTML block and inline tag, and every link, autolink or image whose
/// scheme is not allowed, gets a backslash before its opening `<` or `[`, so a renderer
/// shows it as the text it is. Escaping one construct can expose another (an escaped HTML
/// block start turns its lines into a paragraph with inline HTML), so this repeats until
/// none is left. A text that has not settled after `ROUNDS` rounds is built to keep
/// exposing one more construct per round; it falls back to escaping all Markdown
/// punctuation of the text as written.
pub fn contain(text: &str) -> String {
    let text = text.trim_end();
    let mut cur = text.to_string();
    for _ in 0..ROUNDS {
        let starts = live_markup(&cur);
        if starts.is_empty() {
            return close_open_fence(cur);
        }
        cur = insert_backslashes(&cur, &starts);
    }
    text.lines().map(plain_line).collect::<Vec<_>>().join("\n")
}

/// A line of [`contain`]'s fallback: its Markdown punctuation escaped ([`inline`]), and so
/// is what would open a block at its start: a bullet (`-`, `+`), a setext underline or
/// thematic break (`=`, `-`), an ordered list's `1.` or `1)`. The text stays paragraphs of
/// plain text inside its section: no list, and no heading or rule that could pass for one of
/// the transcript's own.
fn plain_line(line: &str) -> String {
    let body = line.trim_start_matches([' ', '\t']);
    let lead = &line[..line.len() - body.len()];
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let opener = match body.as_bytes().get(digits) {
        Some(b'-' | b'+' | b'=') if digits == 0 => Some(0),
        Some(b'.' | b')') if digits > 0 => Some(digits),
        _ => None,
    };
    match opener {
        Some(k) => format!("{lead}{}\\{}", &body[..k], inline(&body[k..])),
        None => format!("{lead}{}", inline(body)),
    }
}

/// Rounds of escaping before `contain` falls back, each two full parses of the text. Texts
/// met in practice settle in two or three (an HTML block's lines are escaped together, see
/// `live_markup`); what needs more is built to cascade (links nested in links, HTML blocks
/// in containers nested in containers, each escape exposing the next), and would otherwise
/// cost a parse per level.
const ROUNDS: usize = 8;

/// Renderers differ in the extensions they enable; a construct counts as live if any of
/// these parses finds it.
const DIALECTS: [Options; 2] = [
    Options::empty(),
    Options::ENABLE_TABLES
        .union(Options::ENABLE_STRIKETHROUGH)
        .union(Options::ENABLE_TASKLISTS)
        .union(Options::ENABLE_FOOTNOTES)
        .union(Options::ENABLE_GFM),
];

/// Where a backslash makes each live construct plain text, in order.
///
/// An HTML block's first `<` makes it text, and its other lines become Markdown again:
/// each line that opens with a tag either starts a new HTML block (a `<div>` interrupts
/// the paragraph the escaped first line became) or is a paragraph line with that tag as
/// inline HTML; the next round would escape it either way, at that `<`. So those are
/// escaped in the same round (a round per line cost a full parse of the text per line,
/// and sent a text of more lines than rounds to the fallback). Lines are taken up to one
/// after which a code span or fence may still be open (a `<` inside code is text and
/// must stay as written); from there on this round escapes only each block's first `<`,
/// since what follows may now be code.
fn live_markup(text: &str) -> Vec<usize> {
    let mut at = Vec::new();
    for options in DIALECTS {
        // Whether lines are still escaped with their block's first, and whether the
        // previous `Html` event (an HTML block's line, or part of one) ended its line.
        let (mut going, mut line_start) = (true, true);
        for (ev, range) in Parser::new_ext(text, options).into_offset_iter() {
            let found = match ev {
                Event::Start(Tag::HtmlBlock) => {
                    line_start = true;
                    text[range.clone()].find('<')
                }
                Event::Html(_) => {
                    let line = &text[range.clone()];
                    let mut found = None;
                    // (The first line's `<` is the block's, found again.)
                    if going && line_start {
                        let indent = line.len() - line.trim_start_matches(' ').len();
                        if indent <= 3 && opens_tag(&line[indent..]) {
                            found = Some(indent);
                        }
                    }
                    going &= closes_its_code(line);
                    line_start = line.ends_with('\n');
                    found
                }
                Event::InlineHtml(_) => text[range.clone()].find('<'),
                Event::Start(Tag::Link { link_type, dest_url, .. }) if !allowed_link(link_type, &dest_url) => {
                    let opener = if matches!(link_type, LinkType::Autolink | LinkType::Email) { '<' } else { '[' };
                    text[range.clone()].find(opener)
                }
                Event::Start(Tag::Image { link_type, dest_url, .. }) if !allowed_link(link_type, &dest_url) => {
                    text[range.clone()].find('[')
                }
                _ => None,
            };
            if let Some(off) = found {
                at.push(range.start + off);
            }
        }
    }
    // Both dialects find most of them: sorted and deduplicated once (a set kept ordered
    // insert by insert cost more than the parses on a text of many lines).
    at.sort_unstable();
    at.dedup();
    at
}

/// Whether `s` opens with HTML that a renderer takes as markup wherever a line of Markdown
/// can start a block or continue a paragraph: an HTML block start of conditions 1 to 6
/// (which interrupt a paragraph), or a tag complete on this line (a block of condition 7,
/// or inline HTML). Not an autolink (`<https://…>`, `<a@b.c>`), a tag left open at the
/// line's end, nor `<3`, `<-`, `<=`: those stay as written. As pulldown-cmark reads it.
fn opens_tag(s: &str) -> bool {
    let Some(rest) = s.as_bytes().strip_prefix(b"<") else { return false };
    // A comment, processing instruction, CDATA section or declaration.
    if rest.starts_with(b"!--")
        || rest.starts_with(b"?")
        || rest.starts_with(b"![CDATA[")
        || rest.first() == Some(&b'!') && rest.get(1).is_some_and(u8::is_ascii_alphabetic)
    {
        return true;
    }
    let (closing, rest) = match rest.strip_prefix(b"/") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    if !rest.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let (name, rest) = rest.split_at(rest.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'-').count());
    let named = |names: &[&str]| names.iter().any(|n| name.eq_ignore_ascii_case(n.as_bytes()));
    let ended = matches!(rest.first(), None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'>'));
    if (!closing && ended && named(&RAW_TAGS)) || ((ended || rest.starts_with(b"/>")) && named(&BLOCK_TAGS)) {
        return true;
    }
    complete_tag(rest, closing)
}

/// Whether `rest`, what follows a tag's name on its line, completes the tag: attributes
/// (each after whitespace; a name, then optionally `=` and an unquoted, single- or
/// double-quoted value), then optional whitespace, `/` (an open tag only) and `>`.
fn complete_tag(rest: &[u8], closing: bool) -> bool {
    let space = |t: &[u8]| t.iter().take_while(|c| matches!(c, b' ' | b'\t' | 0x0b | 0x0c)).count();
    let mut i = 0;
    // A closing tag has no attributes.
    if !closing {
        loop {
            let gap = space(&rest[i..]);
            let at = i + gap;
            match rest.get(at) {
                Some(b'/' | b'>') => break,
                Some(&c) if gap > 0 && (c.is_ascii_alphabetic() || c == b'_' || c == b':') => {}
                _ => return false,
            }
            i = at + 1;
            i += rest[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
                .count();
            let eq = i + space(&rest[i..]);
            if rest.get(eq) != Some(&b'=') {
                continue;
            }
            let v = eq + 1 + space(&rest[eq + 1..]);
            i = match rest.get(v) {
                Some(&q @ (b'"' | b'\'')) => match rest[v + 1..].iter().position(|&c| c == q) {
                    Some(len) => v + 1 + len + 1,
                    None => return false,
                },
                _ => {
                    let len = rest[v..]
                        .iter()
                        .take_while(|c| !matches!(c, b'\'' | b'"' | b' ' | b'=' | b'>' | b'<' | b'`' | b'\n' | b'\r'))
                        .count();
                    if len == 0 {
                        return false;
                    }
                    v + len
                }
            };
        }
    }
    i += space(&rest[i..]);
    if !closing && rest.get(i) == Some(&b'/') {
        i += 1;
    }
    rest.get(i) == Some(&b'>')
}

/// HTML block start condition 1: these open a block, complete or not.
const RAW_TAGS: [&str; 4] = ["pre", "script", "style", "textarea"];

/// HTML block start condition 6: these open a block, complete or not, and so do their
/// closing tags.
const BLOCK_TAGS: [&str; 62] = [
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// Whether no code span or fence can be open past the end of `line`: it has no `~~~`, no
/// backslash before a backtick, and its backtick runs pair up as code spans close (a run
/// with the next run of the same length). A fence opener is a run left open.
fn closes_its_code(line: &str) -> bool {
    if line.contains("~~~") || line.contains("\\`") {
        return false;
    }
    if !line.contains('`') {
        return true;
    }
    let mut runs = Vec::new();
    let mut run = 0;
    for c in line.chars().chain(std::iter::once('\n')) {
        if c == '`' {
            run += 1;
        } else if run > 0 {
            runs.push(run);
            run = 0;
        }
    }
    let mut rest = &runs[..];
    while let Some((&open, after)) = rest.split_first() {
        match after.iter().position(|&r| r == open) {
            Some(close) => rest = &after[close + 1..],
            None => return false,
        }
    }
    true
}

/// Links stay live only for http, https and mailto (and for relative references, which
/// name no scheme). Browsers ignore ASCII whitespace and controls inside a scheme
/// (`java\tscript:`), so those are dropped before looking.
fn allowed_link(link_type: LinkType, dest: &str) -> bool {
    if link_type == LinkType::Email {
        return true;
    }
    let squeezed: String = dest.chars().filter(|c| !c.is_ascii_whitespace() && !c.is_ascii_control()).collect();
    let Some(colon) = squeezed.find(':') else { return true };
    let scheme = &squeezed[..colon];
    if scheme.contains(['/', '?', '#']) {
        return true;
    }
    matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https" | "mailto")
}

fn insert_backslashes(text: &str, at: &[usize]) -> String {
    let mut out = String::with_capacity(text.len() + at.len());
    let mut last = 0;
    for &i in at {
        out.push_str(&text[last..i]);
        out.push('\\');
        last = i;
    }
    out.push_str(&text[last..]);
    out
}

/// Close a top-level fenced code block left open at the end of the text.
fn close_open_fence(text: String) -> String {
    // A fence opens with three backticks or tildes: without either, no parse is needed.
    if !text.contains("```") && !text.contains("~~~") {
        return text;
    }
    let mut close = None;
    for (ev, range) in Parser::new_ext(&text, Options::empty()).into_offset_iter() {
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = ev {
            let block = &text[range.clone()];
            let line_start = text[..range.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let top_level = text[line_start..range.start].chars().all(|c| c == ' ');
            let opener = block.lines().next().unwrap_or("").trim_start();
            let Some(fc) = opener.chars().next() else { continue };
            let n = opener.chars().take_while(|&c| c == fc).count();
            let body = block.trim_end_matches('\n');
            let last = body.lines().last().unwrap_or("").trim();
            let closed = body.lines().count() > 1 && last.chars().all(|c| c == fc) && last.chars().count() >= n;
            if !closed && top_level && range.end >= text.len() {
                close = Some(fc.to_string().repeat(n));
            }
        }
    }
    match close {
        Some(f) => format!("{text}\n{f}"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backtick_runs() {
        assert_eq!(fence("a ```` b", "text"), "`````text\na ```` b\n`````\n");
        assert_eq!(fence("plain", ""), "```\nplain\n```\n");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
    }

    #[test]
    fn html_blocks_and_open_fences_are_contained() {
        assert_eq!(contain("<pre>\nswallow"), "\\<pre>\nswallow");
        assert_eq!(contain("text\n\n```rust\nfn main() {"), "text\n\n```rust\nfn main() {\n```");
        assert_eq!(contain("```\nclosed\n```"), "```\nclosed\n```");
        // The second start is only a block once the first one is escaped (so it is escaped
        // with it); then its closing tag is inline HTML in a paragraph, escaped in turn.
        assert_eq!(contain("<iframe x>\n<style>y</style>"), "\\<iframe x>\n\\<style>y\\</style>");
    }

    #[test]
    fn an_html_blocks_lines_are_escaped_together_but_not_in_code() {
        // Each line would be a block of its own once the one before is escaped.
        assert_eq!(contain(&"<div>\n".repeat(1000)), "\\<div>\n".repeat(1000).trim_end());
        assert_eq!(contain("<div>\nx <b>\n</div>"), "\\<div>\nx \\<b>\n\\</div>");
        // A fence or a code span that the escaped lines open keeps its `<` as written.
        assert_eq!(contain("<div>\n```\n<b>\n```"), "\\<div>\n```\n<b>\n```");
        assert_eq!(contain("<div>\na `x\n<b>` y"), "\\<div>\na `x\n<b>` y");
        // Autolinks and a `<` that opens no tag stay.
        assert_eq!(contain("<div>\n<https://e.org>\n<3 <- x"), "\\<div>\n<https://e.org>\n<3 <- x");
        assert_eq!(contain("<p>\n<LICENSE or https://e.org/L>, or"), "\\<p>\n<LICENSE or https://e.org/L>, or");
        assert_eq!(contain("<p>\n<a href='x' title=\"y\"/> z\n<td"), "\\<p>\n\\<a href='x' title=\"y\"/> z\n\\<td");
        assert_eq!(contain("<div>\n<javascript:x>"), "\\<div>\n\\<javascript:x>");
    }

    #[test]
    fn a_text_that_keeps_exposing_markup_falls_back_to_plain_text() {
        // Each escaped link exposes the one around it: one level per round.
        let nested = format!("{}x{}", "[".repeat(20), "](javascript:a)".repeat(20));
        assert_eq!(contain(&nested), format!("{}x{}", "\\[".repeat(20), "\\](javascript:a)".repeat(20)));
        // Nothing of the fallback opens a block: no list, heading or rule.
        let blocks = "Title\n===\n- a\n  + b\n1. c\n22) d\n---\n= e\n3 f\n-1";
        let fallen = contain(&format!("{nested}\n{blocks}"));
        assert_eq!(
            fallen.lines().skip(1).collect::<Vec<_>>(),
            ["Title", "\\===", "\\- a", "  \\+ b", "1\\. c", "22\\) d", "\\---", "\\= e", "3 f", "\\-1"]
        );
        for options in DIALECTS {
            for ev in Parser::new_ext(&fallen, options) {
                let block = matches!(
                    ev,
                    Event::Start(Tag::List(_) | Tag::Item | Tag::Heading { .. } | Tag::CodeBlock(_)) | Event::Rule
                );
                assert!(!block, "{ev:?} in {fallen:?}");
            }
        }
        let two = "[[x](javascript:a)](javascript:a)";
        assert_eq!(contain(two), "\\[\\[x](javascript:a)](javascript:a)");
    }

    #[test]
    fn inline_html_and_unsafe_links_become_text() {
        assert_eq!(contain("a <b>inline</b> c"), "a \\<b>inline\\</b> c");
        assert_eq!(
            contain("[x](javascript:alert(1)) [ok](https://e.org)"),
            "\\[x](javascript:alert(1)) [ok](https://e.org)"
        );
        assert_eq!(
            contain("![i](data:image/png;base64,AA) <vbscript:x>"),
            "!\\[i](data:image/png;base64,AA) \\<vbscript:x>"
        );
        assert_eq!(contain("[m](mailto:a@b.c) [r](../rel#x) <a@b.c>"), "[m](mailto:a@b.c) [r](../rel#x) <a@b.c>");
        assert_eq!(contain("[t](JaVaScRiPt:x)"), "\\[t](JaVaScRiPt:x)");
        assert!(contain("[t](<java\tscript:x>)").starts_with("\\[t]"));
        // Once `[r]` is text, `[1]` alone is a shortcut link to the same target.
        assert_eq!(contain("[r][1]\n\n[1]: file:///etc/passwd"), "\\[r]\\[1]\n\n[1]: file:///etc/passwd");
        assert_eq!(contain("`<b>` stays code"), "`<b>` stays code");
    }
}
