//! The HTML renderer: one self-contained page (inline CSS, no script, no network), readable
//! on a phone and a desktop, light and dark.
//!
//! Safety is the point, since every word of the content is untrusted. Text and attributes
//! are entity-escaped; message Markdown goes through pulldown-cmark with raw HTML turned into
//! escaped text, links kept live only for `http`, `https` and `mailto`, remote images turned
//! into plain links, and images only as checked `data:image/(png|jpeg|gif|webp)` URLs. A
//! Content-Security-Policy forbids scripts and every fetch, and no element carries an event
//! handler: the collapsible parts are `<details>`.

use std::fmt::Write;

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::markdown::cut_marker;
use super::{Card, Chart, ImagePart, Item, Msg, Note, Output, Part, Speaker, Transcript};
use crate::preview;
use crate::render::fit;

/// Outputs longer than this many lines start folded.
const FOLD_LINES: usize = 24;

pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

pub fn render(t: &Transcript) -> String {
    let mut o = String::with_capacity(64 << 10);
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(o, "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    o.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    o.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    let _ = writeln!(o, "<title>{}</title>", esc(&t.title));
    let _ = writeln!(o, "<style>{STYLE}</style>\n</head>\n<body>");
    header(&mut o, t);
    toc(&mut o, t);
    o.push_str("<main>\n");
    for item in &t.items {
        match item {
            Item::Message(m) => message(&mut o, m),
            Item::Compaction(c) => card(&mut o, c),
            Item::Note(n) => note(&mut o, n),
        }
    }
    o.push_str("</main>\n<footer>Exported by arcturn-inspect. Content is shown as text; links open only for http, https and mailto.</footer>\n</body>\n</html>\n");
    o
}

fn header(o: &mut String, t: &Transcript) {
    o.push_str("<header class=\"top\">\n");
    let _ = writeln!(o, "<h1>{}</h1>", esc(&t.title));
    o.push_str("<dl class=\"facts\">\n");
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(o, "<div><dt>{k}</dt><dd>{v}</dd></div>");
    };
    if let Some(id) = &t.session_id {
        fact("Session", format!("<code>{}</code>", esc(id)));
    }
    if let Some(c) = &t.created {
        fact("Created", esc(c));
    }
    fact("File", format!("<code>{}</code> ({})", esc(&t.file), t.format));
    fact("Scope", esc(&t.scope));
    if !t.models.is_empty() {
        fact("Models", t.models.iter().map(|m| format!("<code>{}</code>", esc(m))).collect::<Vec<_>>().join(" "));
    }
    let u = &t.usage;
    fact(
        "Tokens (branch)",
        format!(
            "{} calls · input {} · output {} · cache read {} · cache write {}",
            t.calls,
            num(u.input),
            num(u.output),
            num(u.cache_read),
            num(u.cache_write)
        ),
    );
    if let Some(c) = u.cost {
        fact("Cost (branch)", format!("${c:.4}"));
    }
    fact("Context at the end", format!("~{} tokens (estimated)", num(t.context_tokens)));
    o.push_str("</dl>\n");
    chart(o, &t.chart);
    o.push_str("</header>\n");
}

/// The table of contents: a link to each turn (a user message) and each compaction.
fn toc(o: &mut String, t: &Transcript) {
    let mut entries = Vec::new();
    let mut turn = 0;
    for item in &t.items {
        match item {
            Item::Message(m) if m.speaker == Speaker::User => {
                turn += 1;
                let first = m.parts.iter().find_map(|p| match p {
                    Part::Markdown(text) => Some(preview::first_line(text)),
                    _ => None,
                });
                let text = first.map(|f| fit::truncate(&f, 80).into_owned()).unwrap_or_default();
                entries.push(("turn", &m.anchor, format!("Turn {turn}"), text));
            }
            Item::Compaction(c) => {
                let drop = match (c.tokens_before, c.tokens_after) {
                    (Some(b), Some(a)) => format!("{} → {} tokens", num(b), num(a)),
                    _ => String::new(),
                };
                entries.push(("compaction", &c.anchor, c.title.clone(), drop));
            }
            _ => {}
        }
    }
    if entries.is_empty() {
        return;
    }
    o.push_str("<nav class=\"toc\" aria-label=\"Contents\"><details open><summary>Contents</summary><ol>\n");
    for (class, anchor, label, text) in entries {
        let _ = writeln!(
            o,
            "<li class=\"{class}\"><a href=\"#e-{}\">{}</a> <span class=\"dim\">{}</span></li>",
            esc(anchor),
            esc(&label),
            esc(&text)
        );
    }
    o.push_str("</ol></details></nav>\n");
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn num(n: u64) -> String {
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

/// Tokens per model call as stacked bars (cache read, cache write, input, output), with a
/// dashed line at each compaction. Pure SVG; `<title>` gives the hover text.
fn chart(o: &mut String, c: &Chart) {
    if c.bars.is_empty() {
        return;
    }
    let max = c.bars.iter().map(|b| b.usage.total()).max().unwrap_or(1).max(1);
    let (w, h, left, bottom, top) = (760.0, 200.0, 48.0, 22.0, 12.0);
    let plot_w = w - left - 8.0;
    let plot_h = h - bottom - top;
    let slot = plot_w / c.bars.len() as f64;
    let bar_w = (slot * 0.8).max(0.5);
    let _ = writeln!(
        o,
        "<figure class=\"chart\"><svg viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Tokens per model call\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    for frac in [0.0, 0.5, 1.0] {
        let y = top + plot_h * (1.0 - frac);
        let _ = writeln!(
            o,
            "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"axis\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            w - 8.0,
            left - 4.0,
            y + 4.0,
            esc(&preview::tokens((max as f64 * frac) as u64))
        );
    }
    for (i, b) in c.bars.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - bar_w) / 2.0;
        let u = &b.usage;
        let total = u.total().max(1) as f64;
        let full = plot_h * u.total() as f64 / max as f64;
        let mut y = top + plot_h;
        let title = format!(
            "{}: {} tokens (input {}, output {}, cache read {}, cache write {})",
            b.label,
            u.total(),
            u.input,
            u.output,
            u.cache_read,
            u.cache_write
        );
        let open = match &b.anchor {
            Some(a) => format!("<a href=\"#e-{}\">", frag(a)),
            None => String::new(),
        };
        let _ = write!(o, "{open}<g><title>{}</title>", esc(&title));
        for (class, part) in [("cr", u.cache_read), ("cw", u.cache_write), ("in", u.input), ("out", u.output)] {
            let hh = full * part as f64 / total;
            if hh <= 0.0 {
                continue;
            }
            y -= hh;
            let _ = write!(
                o,
                "<rect class=\"{class}\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{bar_w:.2}\" height=\"{hh:.2}\"/>"
            );
        }
        o.push_str("</g>");
        if b.anchor.is_some() {
            o.push_str("</a>");
        }
        o.push('\n');
    }
    for m in &c.markers {
        let x = left + slot * m.after as f64;
        let _ = writeln!(
            o,
            "<g class=\"marker\"><title>{}</title><line x1=\"{x:.2}\" x2=\"{x:.2}\" y1=\"{top}\" y2=\"{:.1}\"/><text x=\"{:.2}\" y=\"{:.1}\">C</text></g>",
            esc(&m.label),
            top + plot_h,
            x + 2.0,
            top + 9.0
        );
    }
    let _ = writeln!(
        o,
        "<text class=\"axis\" x=\"{left}\" y=\"{:.1}\">call 1</text><text class=\"axis\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">call {}</text>",
        h - 6.0,
        w - 8.0,
        h - 6.0,
        c.bars.len()
    );
    o.push_str("</svg>\n<figcaption><span class=\"key cr\"></span>cache read <span class=\"key cw\"></span>cache write <span class=\"key in\"></span>input <span class=\"key out\"></span>output <span class=\"key mk\"></span>compaction · tokens per model call on this branch</figcaption></figure>\n");
}

fn anchor_link(id: &str, anchor: &str) -> String {
    format!("<a class=\"id\" href=\"#e-{}\" title=\"link to this entry\">{}</a>", frag(anchor), esc(id))
}

fn message(o: &mut String, m: &Msg) {
    let (class, who) = match m.speaker {
        Speaker::User => ("user", "User".to_string()),
        Speaker::Assistant => ("assistant", "Assistant".to_string()),
        Speaker::ToolResult => ("tool", "Tool result".to_string()),
        Speaker::Operator => ("operator", "Operator".to_string()),
        Speaker::Summary => ("summary", "Compaction summary (sent)".to_string()),
        Speaker::Other => ("other", format!("Message ({})", m.role_name)),
    };
    let refused = m.stop_reason.as_deref() == Some("refusal");
    let _ = writeln!(
        o,
        "<article class=\"msg {class}{}\" id=\"e-{}\">",
        if refused { " refused" } else { "" },
        esc(&m.anchor)
    );
    let _ = write!(o, "<div class=\"head\"><span class=\"who\">{}</span>", esc(&who));
    if let Some(md) = &m.model {
        let _ = write!(o, "<span class=\"model\">{}</span>", esc(md));
    }
    if let Some(t) = &m.time {
        let _ = write!(o, "<span class=\"time\">{}</span>", esc(t));
    }
    if let Some(u) = &m.usage {
        let mut s = format!("{} tok", preview::tokens(u.total()));
        if let Some(c) = u.cost {
            s.push_str(&format!(" · ${c:.4}"));
        }
        let _ = write!(
            o,
            "<span class=\"tokens\" title=\"input {} · output {} · cache read {} · cache write {}\">{}</span>",
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            esc(&s)
        );
    }
    if let Some(r) = &m.stop_reason {
        if r != "stop" && r != "toolUse" {
            let _ = write!(o, "<span class=\"badge warn\">{}</span>", esc(r));
        }
    }
    let _ = writeln!(o, "{}</div>", anchor_link(&m.id, &m.anchor));
    for r in &m.remarks {
        let _ = writeln!(o, "<p class=\"remark\">{}</p>", esc(r));
    }
    if let Some(e) = &m.error {
        let _ = writeln!(o, "<pre class=\"error\">{}</pre>", esc(e));
    }
    for p in &m.parts {
        part(o, p);
    }
    o.push_str("</article>\n");
}

fn part(o: &mut String, p: &Part) {
    match p {
        Part::Markdown(t) => {
            let _ = writeln!(o, "<div class=\"md\">{}</div>", markdown(t));
        }
        Part::Thinking(t) => {
            let _ = writeln!(
                o,
                "<details class=\"thinking\"><summary>Thinking <span class=\"dim\">({})</span></summary><div class=\"md\">{}</div></details>",
                plural(t.lines().count(), "line"),
                markdown(t)
            );
        }
        Part::ToolCall { name, id, main, arguments } => {
            let _ = writeln!(
                o,
                "<details class=\"call\"><summary><span class=\"tag\">call</span> <code>{}</code> <span class=\"arg\">{}</span>{}</summary><pre><code>{}</code></pre></details>",
                esc(name),
                esc(main),
                id.as_ref().map(|i| format!(" <span class=\"dim\">{}</span>", esc(i))).unwrap_or_default(),
                esc(arguments)
            );
        }
        Part::ToolOutput(r) => output(o, r),
        Part::Image(i) => image(o, i),
        Part::ProviderCompaction { summary } => {
            o.push_str("<div class=\"note provider\">The provider compacted the conversation here.");
            if let Some(s) = summary {
                let _ = write!(
                    o,
                    "<details><summary>Provider summary</summary><div class=\"md\">{}</div></details>",
                    markdown(s)
                );
            }
            o.push_str("</div>\n");
        }
        Part::Note(n) => {
            let _ = writeln!(o, "<div class=\"note\">{}</div>", esc(n));
        }
    }
}

fn output(o: &mut String, r: &Output) {
    let shown_lines = r.text.lines().count();
    let open = if shown_lines <= FOLD_LINES && r.cut_lines == 0 { " open" } else { "" };
    let _ = write!(
        o,
        "<details class=\"result{}\"{open}><summary><span class=\"tag\">result</span> <code>{}</code>",
        if r.is_error { " err" } else { "" },
        esc(&r.tool)
    );
    if r.is_error {
        o.push_str(" <span class=\"badge err\">error</span>");
    }
    if r.elided {
        o.push_str(" <span class=\"badge warn\">sent as a stub</span>");
    }
    let _ = write!(o, " <span class=\"dim\">{}</span>", plural(r.total_lines, "line"));
    if let Some(id) = &r.call_id {
        let _ = write!(o, " <span class=\"dim\">{}</span>", esc(id));
    }
    o.push_str("</summary>");
    if let Some(p) = &r.offloaded_path {
        let _ = write!(o, "<p class=\"remark\">Offloaded: the full output is at <code>{}</code></p>", esc(p));
    }
    if r.text.is_empty() {
        o.push_str("<p class=\"dim\">(no output)</p>");
    } else {
        // The id lets a link (or a test) point into a folded output: browsers open the
        // enclosing <details> when a fragment targets something inside it.
        let id = r.call_id.as_ref().map(|c| format!(" id=\"out-{}\"", esc(c))).unwrap_or_default();
        let _ = write!(o, "<pre{id}><code>{}</code></pre>", esc(&r.text));
    }
    if r.cut_lines > 0 || r.cut_chars > 0 {
        let _ = write!(o, "<p class=\"cut\">{}</p>", esc(&cut_marker(r)));
    }
    for i in &r.images {
        image(o, i);
    }
    o.push_str("</details>\n");
}

fn image(o: &mut String, i: &ImagePart) {
    match i {
        ImagePart::Inline { mime, data, bytes } => {
            let _ = writeln!(
                o,
                "<figure class=\"img\"><img src=\"data:{};base64,{}\" alt=\"image ({} bytes)\"></figure>",
                esc(mime),
                esc(data),
                bytes
            );
        }
        ImagePart::Link(u) => {
            let _ = writeln!(
                o,
                "<p class=\"note\">Remote image, not loaded: <a href=\"{}\" rel=\"noopener noreferrer nofollow\">{}</a></p>",
                esc(u),
                esc(u)
            );
        }
        ImagePart::Rejected(why) => {
            let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(why));
        }
    }
}

fn card(o: &mut String, c: &Card) {
    let _ = write!(
        o,
        "<section class=\"compaction\" id=\"e-{}\"><div class=\"head\"><span class=\"who\">{}</span>",
        esc(&c.anchor),
        esc(&c.title)
    );
    if let Some(t) = &c.time {
        let _ = write!(o, "<span class=\"time\">{}</span>", esc(t));
    }
    let _ = writeln!(o, "{}</div>", anchor_link(&c.id, &c.anchor));
    if let (Some(b), Some(a)) = (c.tokens_before, c.tokens_after) {
        let _ = writeln!(o, "<p class=\"drop\"><b>{}</b> → <b>{}</b> tokens</p>", num(b), num(a));
    }
    if !c.detail.is_empty() {
        let _ = writeln!(o, "<p class=\"remark\">{}</p>", esc(&c.detail));
    }
    if let Some(s) = &c.summary {
        let _ = writeln!(
            o,
            "<details class=\"summary\"><summary>Summary</summary><div class=\"md\">{}</div></details>",
            markdown(s)
        );
    }
    o.push_str("</section>\n");
}

fn note(o: &mut String, n: &Note) {
    let _ = write!(o, "<aside class=\"state\" id=\"e-{}\"><span>{}</span>", esc(&n.anchor), esc(&n.text));
    if let Some(t) = &n.time {
        let _ = write!(o, " <span class=\"time\">{}</span>", esc(t));
    }
    let _ = writeln!(o, " {}</aside>", anchor_link(&n.id, &n.anchor));
}

/// Entity-escape text for element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Percent-encode an id for a `#fragment` (the browser decodes it back to match `id=`).
fn frag(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Whether a link target may stay live.
pub fn allowed_link(url: &str) -> bool {
    let u = url.trim_start().to_ascii_lowercase();
    u.starts_with("http://") || u.starts_with("https://") || u.starts_with("mailto:")
}

/// Render untrusted Markdown to safe HTML (see the module comment). The parser's events
/// are rewritten as they come and written at once: a text of millions of events holds none
/// of them.
pub fn markdown(text: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // What each open link/image became, so its end tag matches: the end event, or the text
    // to show in place of a refused target.
    let mut stack: Vec<Result<TagEnd, String>> = Vec::new();
    let events = Parser::new_ext(text, opts).flat_map(move |ev| defuse(ev, &mut stack)).flatten();
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    html::push_html(&mut out, events);
    out
}

/// What one event of untrusted Markdown is written as: up to two events.
fn defuse<'a>(ev: Event<'a>, stack: &mut Vec<Result<TagEnd, String>>) -> [Option<Event<'a>>; 2] {
    let one = |e| [Some(e), None];
    match ev {
        Event::Html(h) | Event::InlineHtml(h) => one(Event::Text(h)),
        Event::Start(Tag::HtmlBlock) => one(Event::Start(Tag::CodeBlock(CodeBlockKind::Indented))),
        Event::End(TagEnd::HtmlBlock) => one(Event::End(TagEnd::CodeBlock)),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            if allowed_link(&dest_url) {
                stack.push(Ok(TagEnd::Link));
                one(Event::Start(Tag::Link { link_type, dest_url, title, id }))
            } else {
                stack.push(Err(dest_url.to_string()));
                [None, None]
            }
        }
        Event::Start(Tag::Image { dest_url, title, id, .. }) => {
            let lower = dest_url.trim_start().to_ascii_lowercase();
            if safe_data_image(&dest_url) {
                stack.push(Ok(TagEnd::Image));
                one(Event::Start(Tag::Image { link_type: LinkType::Inline, dest_url, title, id }))
            } else if lower.starts_with("http://") || lower.starts_with("https://") {
                stack.push(Ok(TagEnd::Link));
                [
                    Some(Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url, title, id })),
                    Some(Event::Text(CowStr::Borrowed("[remote image, not loaded] "))),
                ]
            } else {
                stack.push(Err(dest_url.to_string()));
                one(Event::Text(CowStr::Borrowed("[image] ")))
            }
        }
        Event::End(TagEnd::Link | TagEnd::Image) => match stack.pop() {
            Some(Ok(end)) => one(Event::End(end)),
            Some(Err(url)) => one(Event::Text(CowStr::Boxed(format!(" ({url})").into_boxed_str()))),
            None => [None, None],
        },
        other => one(other),
    }
}

fn safe_data_image(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("data:") else { return false };
    let Some((mime, data)) = rest.split_once(";base64,") else { return false };
    super::check_image(mime, data).is_ok()
}

const STYLE: &str = r#"
:root{--bg:#f7f7f5;--fg:#1d1d1f;--dim:#6b6b70;--card:#fff;--line:#e2e2e0;--code:#f0f0ed;
--user:#1f6feb;--assistant:#8250df;--tool:#0a7d6c;--operator:#b35900;--compaction:#0969da;--err:#cf222e;--warn:#9a6700;
--cr:#9ecbff;--cw:#f6c177;--in:#1f6feb;--out:#8250df;--mk:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--fg:#e6e6e6;--dim:#9199a3;--card:#171a21;--line:#2b303a;--code:#1f232c;
--user:#58a6ff;--assistant:#c297ff;--tool:#3fb9a5;--operator:#f0a04b;--compaction:#79c0ff;--err:#ff7b72;--warn:#d29922;
--cr:#2f5f8f;--cw:#a0742a;--in:#58a6ff;--out:#c297ff;--mk:#ff7b72}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
header.top,main,footer{max-width:900px;margin:0 auto;padding:0 16px}
header.top{padding-top:24px}
h1{font-size:1.45em;line-height:1.25;margin:0 0 12px}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:6px 18px;margin:0 0 16px;font-size:.9em}
dl.facts div{min-width:0}dt{color:var(--dim);font-size:.8em;text-transform:uppercase;letter-spacing:.04em}dd{margin:0}
figure{margin:0}
figure.chart{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 10px 6px;margin-bottom:18px}
figure.chart svg{width:100%;height:auto;display:block}
figure.chart figcaption{font-size:.78em;color:var(--dim);margin-top:4px}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 8px;vertical-align:-1px}
.key.cr,rect.cr{background:var(--cr);fill:var(--cr)}.key.cw,rect.cw{background:var(--cw);fill:var(--cw)}
.key.in,rect.in{background:var(--in);fill:var(--in)}.key.out,rect.out{background:var(--out);fill:var(--out)}
.key.mk{background:var(--mk)}
line.grid{stroke:var(--line);stroke-width:1}
text.axis{fill:var(--dim);font-size:11px}
.marker line{stroke:var(--mk);stroke-width:1.5;stroke-dasharray:4 3}.marker text{fill:var(--mk);font-size:11px;font-weight:700}
article.msg,section.compaction{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);border-radius:10px;padding:10px 14px;margin:12px 0}
article.user{border-left-color:var(--user)}article.assistant{border-left-color:var(--assistant)}
article.tool{border-left-color:var(--tool)}article.operator{border-left-color:var(--operator);background:color-mix(in srgb,var(--operator) 6%,var(--card))}
article.summary,section.compaction{border-left-color:var(--compaction);background:color-mix(in srgb,var(--compaction) 6%,var(--card))}
article.refused{border-left-color:var(--err);opacity:.85}
.head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;font-size:.85em;color:var(--dim);margin-bottom:4px}
.who{font-weight:700;color:var(--fg);font-size:1.05em}
article.user .who{color:var(--user)}article.assistant .who{color:var(--assistant)}article.tool .who{color:var(--tool)}
article.operator .who{color:var(--operator)}section.compaction .who,article.summary .who{color:var(--compaction)}
a.id{margin-left:auto;color:var(--dim);text-decoration:none;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
a.id:hover{text-decoration:underline}
.badge{border-radius:999px;padding:0 8px;font-size:.8em;border:1px solid currentColor}.badge.err{color:var(--err)}.badge.warn{color:var(--warn)}
.remark{color:var(--dim);font-size:.85em;margin:2px 0 6px;font-style:italic}
.dim{color:var(--dim);font-weight:400}
.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md{margin:6px 0}
.md h1,.md h2,.md h3{font-size:1.1em;margin:12px 0 6px}
.md blockquote{margin:6px 0;padding-left:12px;border-left:3px solid var(--line);color:var(--dim)}
.md table{border-collapse:collapse;display:block;overflow-x:auto}.md td,.md th{border:1px solid var(--line);padding:3px 8px}
.md img{max-width:100%}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86em}
:not(pre)>code{background:var(--code);padding:1px 5px;border-radius:4px}
pre{background:var(--code);padding:10px 12px;border-radius:8px;overflow-x:auto;margin:6px 0;white-space:pre;line-height:1.4}
pre code{background:none;padding:0;font-size:1em}
pre.error{color:var(--err);white-space:pre-wrap}
details{margin:6px 0;border:1px solid var(--line);border-radius:8px;padding:0 10px}
details[open]{padding-bottom:6px}
summary{cursor:pointer;padding:6px 0;list-style-position:outside;margin-left:14px;overflow-wrap:anywhere}
details[open]>summary{border-bottom:1px dashed var(--line);margin-bottom:6px}
.tag{font-size:.72em;text-transform:uppercase;letter-spacing:.05em;font-weight:700;color:var(--dim)}
details.call .tag{color:var(--assistant)}details.result .tag{color:var(--tool)}details.result.err{border-color:var(--err)}
.arg{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.82em;color:var(--dim)}
details.thinking{border-style:dashed}details.thinking summary{color:var(--dim);font-style:italic}
.cut{color:var(--warn);font-size:.85em;margin:4px 0}
.note{color:var(--dim);font-size:.88em;border-left:3px solid var(--line);padding:2px 10px;margin:6px 0}
.note.provider{border-left-color:var(--compaction)}
.drop{margin:2px 0 4px}
aside.state{font-size:.84em;color:var(--dim);margin:6px 4px;display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
aside.state a.id{font-size:.95em}
figure.img img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px}
footer{color:var(--dim);font-size:.8em;padding:24px 16px 40px}
a{color:var(--user)}
nav.toc{max-width:900px;margin:0 auto 8px;padding:0 16px;font-size:.9em}
nav.toc ol{margin:4px 0 8px;padding-left:24px}nav.toc li{margin:1px 0;overflow-wrap:anywhere}
nav.toc li.compaction a{color:var(--compaction)}
@media print{:root{--bg:#fff;--card:#fff;--code:#f4f4f4;--fg:#000}
body{font-size:11pt;background:#fff;color:#000}
header.top,main,footer,nav.toc{max-width:none;padding:0}
article.msg,section.compaction,figure.chart,pre{break-inside:avoid}
h1,.head{break-after:avoid}
pre{white-space:pre-wrap;overflow:visible}
a{color:inherit;text-decoration:none}a.id{display:none}
details{border-color:#ccc}summary{list-style:none;margin-left:0}
footer{padding-top:12px}}
@media (max-width:600px){body{font-size:14px}header.top,main,footer{padding:0 10px}article.msg,section.compaction{padding:8px 10px;border-radius:8px}pre{padding:8px}a.id{margin-left:0}}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_defused() {
        let h = markdown("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](https://ok.example/) ![r](https://evil.example/p.png) <vbscript:msgbox>");
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"), "{h}");
        assert!(!h.contains("href=\"javascript"), "{h}");
        assert!(h.contains("a (javascript:alert(1))"), "{h}");
        assert!(h.contains("<a href=\"https://ok.example/\">b</a>"), "{h}");
        assert!(h.contains("<a href=\"https://evil.example/p.png\">[remote image, not loaded] r</a>"), "{h}");
    }

    #[test]
    fn attributes_are_escaped() {
        assert_eq!(esc("\"><script>"), "&quot;&gt;&lt;script&gt;");
        assert_eq!(frag("a\"b c"), "a%22b%20c");
        assert!(allowed_link("HTTPS://x") && allowed_link("mailto:a@b") && !allowed_link("data:text/html,x"));
    }
}
