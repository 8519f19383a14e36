//! Transcripts for review: one format-agnostic model built from the path to an entry (or
//! from the materialized context with `--as-sent`), and two renderers, [`markdown`] and
//! [`html`], that only lay it out.
//!
//! Every string taken from the session is made visible here, once (control characters,
//! escape sequences, bidi and zero-width characters become `\e[31m` / `<U+202E>` text), so
//! neither renderer can forget; the renderers add their own escaping on top (HTML entities,
//! Markdown fences). The seed rules live here too: tool results capped at 200 lines with a
//! marker, thinking only when asked, operator sections, provider-compaction and server-tool
//! notes, offloaded results with their path, images checked before they may be inlined.

pub mod html;
pub mod markdown;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::content::{Block, Image};
use crate::context::{self, Context};
use crate::error::Result;
use crate::model::{Format, Kind, Observation, Role, State, Usage};
use crate::sanitize;
use crate::session::Session;
use crate::time;
use crate::tree::Ix;

/// Lines of a tool result shown before the truncation marker.
pub const MAX_RESULT_LINES: usize = 200;
/// Characters of a tool result shown at most (a single huge line must not bloat the file).
pub const MAX_RESULT_CHARS: usize = 100_000;

#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub thinking: bool,
    pub as_sent: bool,
}

/// The whole transcript.
#[derive(Debug)]
pub struct Transcript {
    pub title: String,
    pub session_id: Option<String>,
    pub file: String,
    pub format: Format,
    pub created: Option<String>,
    /// The entry the transcript ends at.
    pub target: String,
    /// What the transcript covers, in words.
    pub scope: String,
    pub models: Vec<String>,
    /// Branch scope: every model call on the path (crab: every `llm_call` up to the entry).
    pub usage: Usage,
    pub calls: u64,
    /// Estimated tokens sent at the entry (the `context` view).
    pub context_tokens: u64,
    pub thinking: bool,
    pub items: Vec<Item>,
    pub chart: Chart,
}

#[derive(Debug)]
pub enum Item {
    Message(Msg),
    Compaction(Card),
    Note(Note),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
    ToolResult,
    Operator,
    /// A compaction summary as sent (`--as-sent`).
    Summary,
    Other,
}

#[derive(Debug)]
pub struct Msg {
    /// Anchor name without the `e-` prefix (the entry id, or `obs-<line>`).
    pub anchor: String,
    pub id: String,
    pub speaker: Speaker,
    /// The role as written, for `Other`.
    pub role_name: String,
    pub time: Option<String>,
    pub model: Option<String>,
    pub usage: Option<Usage>,
    pub stop_reason: Option<String>,
    pub error: Option<String>,
    /// Remarks on how the message was sent (refusal skipped, thinking withheld, ...).
    pub remarks: Vec<String>,
    pub parts: Vec<Part>,
}

#[derive(Debug)]
pub enum Part {
    /// Message text: Markdown.
    Markdown(String),
    Thinking(String),
    ToolCall {
        name: String,
        id: Option<String>,
        main: String,
        arguments: String,
    },
    ToolOutput(Output),
    Image(ImagePart),
    ProviderCompaction {
        summary: Option<String>,
    },
    /// A one-line note (server tools, unknown blocks).
    Note(String),
}

#[derive(Debug)]
pub struct Output {
    pub tool: String,
    pub call_id: Option<String>,
    pub is_error: bool,
    /// At most [`MAX_RESULT_LINES`] lines.
    pub text: String,
    pub total_lines: usize,
    pub cut_lines: usize,
    pub cut_chars: usize,
    pub offloaded_path: Option<String>,
    /// Sent as a stub (context edit / shed); `text` is the stub.
    pub elided: bool,
    pub images: Vec<ImagePart>,
}

#[derive(Debug)]
pub enum ImagePart {
    /// Declared type and base64 data, both checked: safe to inline as a `data:` URL.
    Inline { mime: String, data: String, bytes: usize },
    /// A remote image: shown as a plain link, never loaded.
    Link(String),
    /// Not shown: why.
    Rejected(String),
}

#[derive(Debug)]
pub struct Card {
    pub anchor: String,
    pub id: String,
    pub title: String,
    pub time: Option<String>,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    pub detail: String,
    pub summary: Option<String>,
}

#[derive(Debug)]
pub struct Note {
    pub anchor: String,
    pub id: String,
    pub time: Option<String>,
    pub text: String,
}

/// Tokens per model call, with compactions between them.
#[derive(Debug, Default)]
pub struct Chart {
    pub bars: Vec<Bar>,
    pub markers: Vec<Marker>,
}

#[derive(Debug)]
pub struct Bar {
    pub anchor: Option<String>,
    pub label: String,
    pub usage: Usage,
}

#[derive(Debug)]
pub struct Marker {
    /// How many bars come before it.
    pub after: usize,
    pub anchor: Option<String>,
    pub label: String,
}

/// Text for display: CRLF folded, every control/escape/invisible character made visible.
pub fn vis(s: &str) -> String {
    let s = if s.contains('\r') { s.replace("\r\n", "\n") } else { s.to_string() };
    sanitize::block(&s).into_owned()
}

/// One-line text for display.
pub fn vis_line(s: &str) -> String {
    sanitize::inline(s).into_owned()
}

fn clock(ms: Option<i64>) -> Option<String> {
    ms.map(|ms| {
        let iso = time::format_iso(ms);
        format!("{} {} UTC", &iso[..10], &iso[11..19])
    })
}

pub fn build(s: &Session<'_>, target: Ix, opts: Options) -> Result<Transcript> {
    let ctx = context::materialize(s, target)?;
    let path = s.tree.path(target);
    let limit = s.entries.get(target as usize + 1).map(|e| e.line).unwrap_or(u32::MAX);
    let events: Vec<&Observation<'_>> = s.observations.iter().filter(|o| o.line < limit).collect();
    let ledger = if opts.as_sent { ctx.elided.iter().cloned().collect() } else { HashSet::new() };
    let mut b = Builder { s, opts, call_names: HashMap::new(), ledger };
    for &ix in &path {
        if let Some(m) = &s.entry(ix).message {
            for c in &m.tool_calls {
                if let (Some(id), Some(name)) = (&c.id, &c.name) {
                    b.call_names.insert(id.to_string(), name.to_string());
                }
            }
        }
    }
    let items = if opts.as_sent { b.sent_items(&ctx) } else { b.path_items(&path, &events)? };
    let (usage, calls, models) = totals(s, &path, &events);
    let chart = chart(s, &path, &events);
    let target_id = vis_line(&s.entry(target).id.text());
    let scope = if opts.as_sent {
        format!(
            "what the model is sent at {target_id}: {} messages, ~{} tokens estimated{}",
            ctx.messages.len(),
            ctx.estimated_tokens,
            if ctx.skipped.is_empty() { String::new() } else { format!(", {} refusal(s) skipped", ctx.skipped.len()) }
        )
    } else {
        format!("the path from the root to {target_id} ({} entries)", path.len())
    };
    Ok(Transcript {
        title: title(s, &path),
        session_id: session_id(s),
        file: vis_line(&shown_name(s.name())),
        format: s.format,
        created: clock(s.created()),
        target: target_id,
        scope,
        models,
        usage,
        calls,
        context_tokens: ctx.estimated_tokens,
        thinking: opts.thinking,
        items,
        chart,
    })
}

/// The input as the transcript names it: as given on the command line, never made absolute;
/// an absolute path (given so, or the default input found in an agent's folder) is cut to
/// its file name, so that a shared export does not carry the exporter's home directory.
fn shown_name(name: &str) -> String {
    let p = std::path::Path::new(name);
    if p.is_absolute() {
        if let Some(f) = p.file_name() {
            return f.to_string_lossy().into_owned();
        }
    }
    name.to_string()
}

/// The transcript of a session with no entries (an empty or header-only file): no
/// messages, and a scope line that says so (BAD-INPUTS.md: "no entries", exit 0).
pub fn empty(s: &Session<'_>) -> Transcript {
    Transcript {
        title: title(s, &[]),
        session_id: session_id(s),
        file: vis_line(&shown_name(s.name())),
        format: s.format,
        created: clock(s.created()),
        target: String::new(),
        scope: "no entries: the file holds no messages".into(),
        models: Vec::new(),
        usage: Usage::default(),
        calls: 0,
        context_tokens: 0,
        thinking: false,
        items: Vec::new(),
        chart: Chart::default(),
    }
}

fn session_id(s: &Session<'_>) -> Option<String> {
    s.header.as_ref().and_then(|h| h.id.as_deref()).map(vis_line).or_else(|| {
        std::path::Path::new(s.name()).file_stem().map(|f| vis_line(&f.to_string_lossy())).filter(|_| s.name() != "-")
    })
}

fn title(s: &Session<'_>, path: &[Ix]) -> String {
    if let Some(t) = s.header.as_ref().and_then(|h| h.title.as_ref()) {
        return vis_line(&t.prefix(200).0);
    }
    let first_user = path.iter().copied().find(|&i| s.entry(i).message.as_ref().is_some_and(|m| m.role == Role::User));
    let content = first_user.and_then(|i| s.content(i).ok());
    if let Some(t) = content.as_ref().and_then(|c| c.first_text()) {
        let t: String = t.chars().take(200).collect();
        let line = t.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        if !line.is_empty() {
            return vis_line(&crate::render::fit::truncate(line, 80));
        }
    }
    "Session transcript".into()
}

fn totals(s: &Session<'_>, path: &[Ix], events: &[&Observation<'_>]) -> (Usage, u64, Vec<String>) {
    let mut usage = Usage::default();
    let mut calls = 0;
    let mut models: Vec<String> = Vec::new();
    // The names in `models` (a file may name any number of models).
    let mut named: HashSet<String> = HashSet::new();
    let mut add_model = |p: Option<&str>, m: Option<&str>| {
        if let Some(m) = m {
            let name = vis_line(&match p {
                Some(p) => format!("{p}/{m}"),
                None => m.to_string(),
            });
            if named.insert(name.clone()) {
                models.push(name);
            }
        }
    };
    match s.observed {
        false => {
            for m in path.iter().filter_map(|&i| s.entry(i).message.as_ref()) {
                if m.role == Role::Assistant {
                    add_model(m.provider(), m.model());
                    if let Some(u) = m.usage() {
                        usage.add(u);
                        calls += 1;
                    }
                }
            }
        }
        true => {
            for o in events.iter().filter(|o| o.tag == "llm_call") {
                add_model(o.provider.as_deref(), o.model.as_deref());
                if let Some(u) = &o.usage {
                    usage.add(u);
                }
                calls += 1;
            }
        }
    }
    (usage, calls, models)
}

fn chart(s: &Session<'_>, path: &[Ix], events: &[&Observation<'_>]) -> Chart {
    let mut c = Chart::default();
    match s.observed {
        false => {
            for &i in path {
                let e = s.entry(i);
                let anchor = Some(vis_line(&e.id.text()));
                match (&e.message, e.kind()) {
                    (Some(m), _) if m.role == Role::Assistant => {
                        if let Some(&u) = m.usage() {
                            let label = format!("call {} ({})", c.bars.len() + 1, vis_line(&e.id.short()));
                            c.bars.push(Bar { anchor, label, usage: u });
                        }
                    }
                    (_, Kind::Compaction) => {
                        let comp = e.compaction();
                        let label = match comp.map(|c| (c.tokens_before, c.tokens_after)) {
                            Some((Some(b), Some(a))) => format!("compaction: {b} -> {a} tokens"),
                            _ => "compaction".into(),
                        };
                        c.markers.push(Marker { after: c.bars.len(), anchor, label });
                    }
                    _ => {}
                }
            }
        }
        true => {
            for o in events {
                match o.tag.as_ref() {
                    "llm_call" => {
                        if let Some(u) = o.usage {
                            let label = format!(
                                "call {} ({})",
                                c.bars.len() + 1,
                                vis_line(o.run_id.as_deref().unwrap_or("run ?"))
                            );
                            c.bars.push(Bar { anchor: None, label, usage: u });
                        }
                    }
                    "compaction" => {
                        let label = format!(
                            "{}: {} -> {} tokens",
                            vis_line(o.strategy.as_deref().unwrap_or("compaction")),
                            o.tokens_before.map(|t| t.to_string()).unwrap_or_else(|| "?".into()),
                            o.tokens_after.map(|t| t.to_string()).unwrap_or_else(|| "?".into())
                        );
                        c.markers.push(Marker { after: c.bars.len(), anchor: Some(format!("obs-{}", o.line)), label });
                    }
                    _ => {}
                }
            }
        }
    }
    c
}

struct Builder<'s, 'a> {
    s: &'s Session<'a>,
    opts: Options,
    call_names: HashMap<String, String>,
    /// Tool-call ids whose results are sent as stubs (only with `--as-sent`).
    ledger: HashSet<String>,
}

impl Builder<'_, '_> {
    fn path_items(&self, path: &[Ix], events: &[&Observation<'_>]) -> Result<Vec<Item>> {
        let s = self.s;
        let mut items = Vec::new();
        let mut compaction_events = events.iter().filter(|o| o.tag == "compaction").peekable();
        for &ix in path {
            let e = s.entry(ix);
            while let Some(o) = compaction_events.next_if(|o| o.line < e.line) {
                items.push(self.crab_card(o));
            }
            let id = vis_line(&e.id.text());
            let time = clock(e.timestamp.get());
            match e.kind() {
                Kind::Message => {
                    let c = s.content(ix)?;
                    items.push(Item::Message(self.message(ix, c.error.as_deref(), &c.blocks, Vec::new(), None)));
                }
                Kind::Compaction => {
                    let c = e.compaction().cloned().unwrap_or_default();
                    let detail = match c.up_to.as_ref() {
                        Some(t) => {
                            // `ix` is on the path, so its ancestors are too.
                            let on_path = s.tree.get(&s.entries, t).is_some_and(|j| s.tree.is_ancestor(j, ix));
                            let mut d = format!("Folds everything up to and including {}", vis_line(&t.text()));
                            if !on_path {
                                d = format!(
                                    "Its target {} is not on this path: everything before it is folded",
                                    vis_line(&t.text())
                                );
                            }
                            if c.strip_tail_thinking {
                                d.push_str("; the kept tail is replayed without its thinking");
                            }
                            d
                        }
                        None => "No upToId: everything before it is folded".into(),
                    };
                    items.push(Item::Compaction(Card {
                        anchor: id.clone(),
                        id,
                        title: "Compaction".into(),
                        time,
                        tokens_before: c.tokens_before,
                        tokens_after: c.tokens_after,
                        detail,
                        summary: c.summary.as_ref().map(|t| vis(&t.decode())),
                    }));
                }
                Kind::State => {
                    let text = e.state().map(state_text).unwrap_or_else(|| "State entry".into());
                    items.push(Item::Note(Note { anchor: id.clone(), id, time, text }));
                }
                Kind::Label => {
                    let l = e.label_text().map(|l| vis_line(&l.decode())).unwrap_or_default();
                    items.push(Item::Note(Note { anchor: id.clone(), id, time, text: format!("Label: {l}") }));
                }
                Kind::Unknown => {
                    let text = format!("Entry of unknown kind \"{}\"", vis_line(e.kind_name()));
                    items.push(Item::Note(Note { anchor: id.clone(), id, time, text }));
                }
            }
        }
        items.extend(compaction_events.map(|o| self.crab_card(o)));
        Ok(items)
    }

    fn crab_card(&self, o: &Observation<'_>) -> Item {
        let strategy = o.strategy.as_deref().unwrap_or("?");
        let (title, detail, summary) = match strategy {
            "shed" => (
                "Compaction: shed".to_string(),
                format!("{} old tool result(s) now sent as placeholders", o.shed.len()),
                None,
            ),
            "summarize" => {
                let summary = o.summary.as_ref().map(|t| vis(&t.decode()));
                let target = o.up_to_id.as_ref().map(|t| vis_line(&t.text())).unwrap_or_else(|| "?".into());
                ("Compaction: summarize".to_string(), format!("Messages up to {target} replaced by a summary"), summary)
            }
            other => (format!("Compaction: {}", vis_line(other)), String::new(), None),
        };
        Item::Compaction(Card {
            anchor: format!("obs-{}", o.line),
            id: format!("obs line {}", o.line),
            title,
            time: clock(o.ts),
            tokens_before: o.tokens_before,
            tokens_after: o.tokens_after,
            detail,
            summary,
        })
    }

    fn sent_items(&self, ctx: &Context) -> Vec<Item> {
        let mut items = Vec::new();
        for m in &ctx.messages {
            let mut remarks = Vec::new();
            if m.thinking_withheld {
                remarks.push("thinking not replayed".to_string());
            }
            if m.elided {
                remarks.push("tool result sent as a stub".to_string());
            }
            match m.ix {
                Some(ix) if !m.synthetic => {
                    let error = self.s.content(ix).ok().and_then(|c| c.error);
                    items.push(Item::Message(self.message(ix, error.as_deref(), &m.blocks, remarks, Some(m.tokens))));
                }
                _ => {
                    let (anchor, id) = match (&m.entry_id, m.obs_line) {
                        (Some(id), _) => (vis_line(&id.text()), vis_line(&id.text())),
                        (None, line) => {
                            (format!("obs-{}", line.unwrap_or(m.line)), format!("obs line {}", line.unwrap_or(m.line)))
                        }
                    };
                    let parts = m.blocks.iter().filter_map(|b| self.part(b)).collect();
                    remarks.push(format!("~{} tokens", m.tokens));
                    items.push(Item::Message(Msg {
                        anchor,
                        id,
                        speaker: Speaker::Summary,
                        role_name: m.role.clone(),
                        time: None,
                        model: None,
                        usage: None,
                        stop_reason: None,
                        error: None,
                        remarks,
                        parts,
                    }));
                }
            }
        }
        items
    }

    fn message(
        &self,
        ix: Ix,
        error: Option<&str>,
        blocks: &[Block],
        mut remarks: Vec<String>,
        tokens: Option<u64>,
    ) -> Msg {
        let e = self.s.entry(ix);
        let m = e.message.as_ref();
        let speaker = match m.map(|m| m.role) {
            Some(Role::User) => Speaker::User,
            Some(Role::Assistant) => Speaker::Assistant,
            Some(Role::ToolResult) => Speaker::ToolResult,
            Some(Role::System) => Speaker::Operator,
            _ => Speaker::Other,
        };
        let stop_reason = m.and_then(|m| m.stop_reason()).map(vis_line);
        if stop_reason.as_deref() == Some("refusal") {
            remarks.insert(0, "refused: not sent to the provider again".into());
        }
        if let Some(t) = tokens {
            remarks.push(format!("~{t} tokens as sent"));
        }
        // What the parsed value cannot show (a second value under one key, a number past
        // f64) is said next to the message, not only on stderr.
        let anomalies = self.s.findings.iter().filter(|f| f.line == Some(e.line) && f.code.is_hidden_by_parsers());
        remarks.extend(anomalies.map(|f| {
            let col = f.column.map(|c| format!(":{c}")).unwrap_or_default();
            format!("{} at line {}{col}: {}", f.code.as_str(), e.line, vis_line(&f.message))
        }));
        let error = error.map(vis);
        let model = m.and_then(|m| m.model()).map(|md| {
            vis_line(&match m.and_then(|m| m.provider()) {
                Some(p) => format!("{p}/{md}"),
                None => md.to_string(),
            })
        });
        let time = clock(m.and_then(|m| m.timestamp.get()).or(e.timestamp.get()));
        Msg {
            anchor: vis_line(&e.id.text()),
            id: vis_line(&e.id.text()),
            speaker,
            role_name: vis_line(m.map(|m| m.role_name()).unwrap_or("message")),
            time,
            model,
            usage: m.and_then(|m| m.usage().copied()),
            stop_reason,
            error,
            remarks,
            parts: blocks.iter().filter_map(|b| self.part(b)).collect(),
        }
    }

    fn part(&self, b: &Block) -> Option<Part> {
        Some(match b {
            Block::Text(t) => {
                if t.trim().is_empty() {
                    return None;
                }
                Part::Markdown(vis(t))
            }
            Block::Thinking { text, redacted } => {
                if !self.opts.thinking {
                    return None;
                }
                if *redacted {
                    Part::Note("Thinking (redacted by the provider)".into())
                } else {
                    Part::Thinking(vis(text))
                }
            }
            Block::ToolCall { id, name, arguments } => Part::ToolCall {
                name: vis_line(name),
                id: id.as_deref().map(vis_line),
                main: vis_line(&crate::preview::main_argument(arguments)),
                arguments: vis(&serde_json::to_string_pretty(arguments).unwrap_or_default()),
            },
            Block::ToolResult(r) => {
                let tool = r
                    .tool_name
                    .clone()
                    .or_else(|| r.call_id.as_ref().and_then(|c| self.call_names.get(c).cloned()))
                    .unwrap_or_else(|| "tool".into());
                let text = r.text();
                let elided = r.call_id.as_ref().is_some_and(|c| self.ledger.contains(c));
                let (text, total_lines, cut_lines, cut_chars) = cap(&text);
                let images = r
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        Block::Image(i) => Some(image_part(i)),
                        _ => None,
                    })
                    .collect();
                Part::ToolOutput(Output {
                    tool: vis_line(&tool),
                    call_id: r.call_id.as_deref().map(vis_line),
                    is_error: r.is_error,
                    text: vis(&text),
                    total_lines,
                    cut_lines,
                    cut_chars,
                    offloaded_path: r.offloaded_path.as_deref().map(vis_line),
                    elided,
                    images,
                })
            }
            Block::Image(i) => Part::Image(image_part(i)),
            Block::ProviderCompaction { summary, .. } => {
                Part::ProviderCompaction { summary: summary.as_deref().map(vis) }
            }
            Block::ServerTool { provider, block } => Part::Note(server_tool_note(provider, block)),
            Block::Unknown { type_name, .. } => {
                Part::Note(format!("Content block of unknown type \"{}\"", vis_line(type_name)))
            }
        })
    }
}

/// `Server tool: anthropic web_search "rust mmap"`.
fn server_tool_note(provider: &str, block: &Value) -> String {
    let kind = block.get("name").or_else(|| block.get("type")).and_then(Value::as_str).unwrap_or("block");
    let arg = block.get("input").map(crate::preview::main_argument).unwrap_or_default();
    let mut note = format!("Server tool: {} {}", provider, kind);
    if !arg.is_empty() {
        note.push_str(&format!(" \"{}\"", crate::render::fit::truncate(&arg, 120)));
    }
    vis_line(&note)
}

/// Cap a tool result: at most [`MAX_RESULT_LINES`] lines and [`MAX_RESULT_CHARS`]
/// characters. Returns the kept text, the total line count, and what was cut.
pub fn cap(text: &str) -> (String, usize, usize, usize) {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let total = if text.is_empty() { 0 } else { text.split('\n').count() };
    let mut end = text.len();
    if total > MAX_RESULT_LINES {
        end = text.match_indices('\n').nth(MAX_RESULT_LINES - 1).map(|(i, _)| i).unwrap_or(text.len());
    }
    let mut kept = &text[..end];
    let mut cut_chars = 0;
    if let Some((i, _)) = kept.char_indices().nth(MAX_RESULT_CHARS) {
        cut_chars = kept[i..].chars().count();
        kept = &kept[..i];
    }
    let shown = if kept.is_empty() { 0 } else { kept.split('\n').count() };
    let cut_lines = if cut_chars > 0 { total - shown } else { total.saturating_sub(MAX_RESULT_LINES) };
    (kept.to_string(), total, cut_lines, cut_chars)
}

fn state_text(st: &State<'_>) -> String {
    let raw = |r: Option<&serde_json::value::RawValue>| r.and_then(|r| serde_json::from_str::<Value>(r.get()).ok());
    let mut parts = Vec::new();
    if let Some(t) = raw(st.todos) {
        let items: Vec<String> = t
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|t| {
                        let text = t.get("text").or_else(|| t.get("content")).and_then(Value::as_str).unwrap_or("?");
                        let done = t.get("done").and_then(Value::as_bool).unwrap_or(false)
                            || t.get("status").and_then(Value::as_str) == Some("completed");
                        format!("[{}] {}", if done { "x" } else { " " }, vis_line(text))
                    })
                    .collect()
            })
            .unwrap_or_default();
        parts.push(format!("Todos: {}", items.join("; ")));
    }
    if let Some(p) = raw(st.plan) {
        let text = p.as_str().map(str::to_string).unwrap_or_else(|| p.to_string());
        parts.push(format!("Plan: {}", vis_line(&crate::render::fit::truncate(&text, 300))));
    }
    if let Some(m) = raw(st.model) {
        let name = match (m.get("provider").and_then(Value::as_str), m.get("id").and_then(Value::as_str)) {
            (Some(p), Some(id)) => format!("{p}/{id}"),
            (None, Some(id)) => id.to_string(),
            _ => m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string()),
        };
        parts.push(format!("Model: {}", vis_line(&name)));
    }
    if let Some(t) = &st.thinking_level {
        parts.push(format!("Thinking: {}", vis_line(t)));
    }
    if let Some(n) = &st.note {
        parts.push(vis_line(n));
    }
    if let Some(ce) = &st.context_edit {
        let mut t = format!("Context edit: {} old tool result(s) now sent as stubs", ce.elided.len());
        t.push_str(match ce.withhold_thinking.as_deref() {
            Some("all") => "; earlier thinking no longer replayed",
            Some("afterFirstElided") => "; thinking after the first elided result no longer replayed",
            _ => "",
        });
        parts.push(t);
    }
    if parts.is_empty() {
        parts.push("State entry".into());
    }
    parts.join(" · ")
}

fn image_part(i: &Image) -> ImagePart {
    match i {
        Image::Url(u) => {
            let lower = u.trim().to_ascii_lowercase();
            if lower.starts_with("http://") || lower.starts_with("https://") {
                ImagePart::Link(vis_line(u.trim()))
            } else {
                ImagePart::Rejected(format!(
                    "image with a non-web URL: {}",
                    vis_line(&crate::render::fit::truncate(u, 200))
                ))
            }
        }
        Image::Inline { mime, data } => match check_image(mime, data) {
            Ok(bytes) => ImagePart::Inline { mime: mime.clone(), data: data.clone(), bytes },
            Err(why) => ImagePart::Rejected(why),
        },
    }
}

/// An inline image may be shown only when its declared type is one of four raster formats,
/// its data is valid base64, and the bytes start with that format's signature.
pub fn check_image(mime: &str, data: &str) -> std::result::Result<usize, String> {
    let magic: &[&[u8]] = match mime {
        "image/png" => &[b"\x89PNG\r\n\x1a\n"],
        "image/jpeg" => &[b"\xff\xd8\xff"],
        "image/gif" => &[b"GIF87a", b"GIF89a"],
        "image/webp" => &[b"RIFF"],
        _ => {
            return Err(format!(
                "image of unsupported type \"{}\" not shown",
                vis_line(&crate::render::fit::truncate(mime, 60))
            ))
        }
    };
    let bytes = base64_decode(data).ok_or_else(|| format!("{mime} image with invalid base64 data not shown"))?;
    let ok = magic.iter().any(|m| bytes.starts_with(m)) && (mime != "image/webp" || bytes.get(8..12) == Some(b"WEBP"));
    if !ok {
        return Err(format!("image declared {mime} whose bytes are not {mime}, not shown"));
    }
    Ok(bytes.len())
}

/// Strict standard base64 (RFC 4648 alphabet, `=` padding required, no whitespace).
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    let chunks = b.len() / 4;
    for (n, q) in b.chunks(4).enumerate() {
        let last = n + 1 == chunks;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut v = 0u32;
        for &c in &q[..4 - pad] {
            v = (v << 6) | val(c)?;
        }
        v <<= 6 * pad as u32;
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_strict() {
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
        assert_eq!(base64_decode("aGV5").unwrap(), b"hey");
        assert!(base64_decode("aGk").is_none());
        assert!(base64_decode("a=Gk").is_none());
        assert!(base64_decode("aGk=aGk=").is_none());
        assert!(base64_decode("!!!!").is_none());
        assert!(base64_decode("").is_none());
    }

    #[test]
    fn images_are_checked() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        assert!(check_image("image/png", png).is_ok());
        assert!(check_image("image/jpeg", png).is_err());
        assert!(check_image("image/png\" onload=\"x", png).is_err());
        assert!(check_image("image/svg+xml", png).is_err());
        assert!(check_image("image/png", "not base64!").is_err());
    }

    #[test]
    fn results_are_capped_with_a_count() {
        let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
        let (kept, total, cut, _) = cap(&text);
        assert_eq!((total, cut), (300, 100));
        assert_eq!(kept.lines().count(), 200);
        assert!(kept.ends_with("line 200"));
        let (kept, total, cut, _) = cap("a\nb");
        assert_eq!((kept.as_str(), total, cut), ("a\nb", 2, 0));
        let (_, _, _, cut_chars) = cap(&"x".repeat(MAX_RESULT_CHARS + 5));
        assert_eq!(cut_chars, 5);
    }

    #[test]
    fn visible_escapes() {
        assert_eq!(vis("a\x1b[31mb\r\nc\u{202e}"), "a\\e[31mb\nc<U+202E>");
    }
}
