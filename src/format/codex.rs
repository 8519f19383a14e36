//! The Codex CLI rollout format (FORMATS-REAL.md section 3): `{timestamp, type, payload}`
//! lines without ids. History is the `response_item` and `compacted` lines; everything else
//! (`session_meta`, `turn_context`, `event_msg`) is metadata that the file-level pass turns
//! into the header, the model of each request, the usage of each request, the typed prompts
//! and rollbacks, and then drops (counted as non-entry records).
//!
//! Decisions this module owns:
//! - Entry ids are `L<line>` (marked synthetic); the parent is the previous entry, except
//!   after `thread_rolled_back`, where the next entry attaches to the last surviving turn
//!   (the dropped turns stay in the tree as an abandoned branch).
//! - The assistant-side items of one model request (reasoning, message, tool calls, provider
//!   compaction) are one entry: its first line is the entry, the others are `more_spans`.
//!   A request ends at a `turn_context` (written before each request), at a `token_count`
//!   whose cumulative changed, or at any other history item.
//! - A request's usage is the `last_token_usage` of the `token_count` whose
//!   `total_token_usage` differs from the previous one (the counter is re-emitted unchanged),
//!   put on the request's entry, with the model of the latest `turn_context`. A request with
//!   no history item of its own keeps its `token_count` line as an empty assistant entry.
//! - User `response_item`s that the user did not type (AGENTS.md, `<environment_context>`,
//!   ...) are operator messages (`Role::System`, role as written `user`): the typed prompt is
//!   the user item an `event_msg/user_message` echoes; files without those events fall back
//!   to the known prefixes of injected context.
//! - `compacted` is a compaction that keeps nothing before it; its summary is `message`
//!   followed by the `replacement_history` rendered as text, which is what the model is sent
//!   after it.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::de::{num, Num, Str, Ts};
use super::skim::members;
use super::{push_lean, unknown, Decoded, Decoder, Detail, Effort, Fed, LineResult, Record, Stitch};
use crate::content::{self, Block, Image};
use crate::finding::{Code, Finding};
use crate::model::{Blocks, Compaction, Entry, Header, Id, Kind, Message, Role, Text, ToolCall, ToolResult, Usage};
use crate::source::Line;

pub const DECODER: Decoder = Decoder {
    decode,
    explain,
    fold: Some(super::Fold::Streamed(start)),
    line_messages: false,
    content,
    content_keys: &["payload"],
    direct: Some(super::direct::codex),
    tally: None,
    rekeyed: true,
    observed: false,
    header_expected: false,
    is_prompt: super::any_prompt,
};

/// The record types of section 3.2 (what detection accepts, with `ordinal` or without).
pub const TYPES: &[&str] = &["session_meta", "turn_context", "response_item", "event_msg", "compacted"];

/// The start of user items the agent injects rather than the user types, for files that
/// carry no `event_msg/user_message` to tell them apart.
const INJECTED: &[&str] = &[
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
];

/// Hint names (metadata lines become entries with these hints; the fold drops them).
const META: &str = "codex_meta";
/// A `token_count` event's total and last figures ([`counter_hint`]).
const COUNTER: &str = "counter";

fn explain<'a>(b: &'a [u8]) -> Option<String> {
    super::explain_with::<RawLine<'a>>(b)
}

#[derive(Deserialize, Default)]
struct RawLine<'a> {
    #[serde(default)]
    timestamp: Ts,
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    /// Boxed, as arcturn's message: the record moves without it.
    #[serde(borrow)]
    payload: Option<Box<RawPayload<'a>>>,
}

#[derive(Deserialize, Default)]
struct RawPayload<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    call_id: Option<Str<'a>>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    #[serde(borrow)]
    model_provider: Option<Str<'a>>,
    #[serde(borrow)]
    forked_from_id: Option<Str<'a>>,
    #[serde(borrow)]
    parent_thread_id: Option<Str<'a>>,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
    #[serde(default)]
    timestamp: Ts,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    replacement_history: Option<&'a RawValue>,
    info: Option<RawInfo>,
    num_turns: Option<Num>,
}

#[derive(Deserialize)]
struct RawInfo {
    total_token_usage: Option<RawTokens>,
    last_token_usage: Option<RawTokens>,
}

#[derive(Deserialize)]
struct RawTokens {
    input_tokens: Option<Num>,
    cached_input_tokens: Option<Num>,
    output_tokens: Option<Num>,
    total_tokens: Option<Num>,
}

impl RawTokens {
    /// `input cached output total` (total defaults to input + output).
    fn figures(&self) -> [u64; 4] {
        let (i, c, o) = (num(self.input_tokens).unwrap_or(0), num(self.cached_input_tokens), num(self.output_tokens));
        let o = o.unwrap_or(0);
        let t = num(self.total_tokens).unwrap_or(i.saturating_add(o));
        [i, c.unwrap_or(0), o, t]
    }
}

/// A counter's total and last figures as one text for the fold: eight numbers, spaced.
fn counter_hint(total: &RawTokens, last: &RawTokens) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(96);
    for (k, n) in total.figures().into_iter().chain(last.figures()).enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{n}");
    }
    s
}

impl<'a> RawLine<'a> {
    /// The members of a line's object, walked by hand, as arcturn's.
    fn walk(w: &mut super::skim::Walk<'a>, l: &mut RawLine<'a>) -> Option<()> {
        members!(w, {
            "timestamp" => l.timestamp = Ts::walk(w)?,
            "type" => l.ty = Str::walk(w)?,
            "payload" => l.payload = w.nested(RawPayload::walk)?,
        });
        Some(())
    }
}

impl<'a> RawPayload<'a> {
    fn walk(w: &mut super::skim::Walk<'a>) -> Option<Box<RawPayload<'a>>> {
        w.object()?;
        let mut p = Box::<RawPayload>::default();
        members!(w, {
            "type" => p.ty = Str::walk(w)?,
            "role" => p.role = Str::walk(w)?,
            "content" => p.content = w.value()?,
            "name" => p.name = Str::walk(w)?,
            "call_id" => p.call_id = Str::walk(w)?,
            "output" => p.output = w.value()?,
            "id" => p.id = w.value()?,
            "cwd" => p.cwd = Str::walk(w)?,
            "model_provider" => p.model_provider = Str::walk(w)?,
            "forked_from_id" => p.forked_from_id = Str::walk(w)?,
            "parent_thread_id" => p.parent_thread_id = Str::walk(w)?,
            "source" => p.source = w.value()?,
            "timestamp" => p.timestamp = Ts::walk(w)?,
            "model" => p.model = Str::walk(w)?,
            "message" => p.message = w.value()?,
            "replacement_history" => p.replacement_history = w.value()?,
            "info" => p.info = w.value()?,
            "num_turns" => p.num_turns = Num::walk(w)?,
        });
        Some(p)
    }
}

fn decode<'a>(b: &'a str, line: &Line, effort: Effort) -> LineResult<'a> {
    let mut raw = RawLine::default();
    super::read_into(b, effort, &mut raw, RawLine::walk)?;
    let n = line.number;
    let mut notes = Vec::new();
    if raw.timestamp == Ts::Bad {
        notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable record timestamp"));
    }
    let Some(ty) = raw.ty.map(|t| t.0) else {
        return Err(missing(n, "the record has no `type`"));
    };
    let Some(p) = raw.payload else {
        if TYPES.contains(&ty.as_ref()) {
            return Err(missing(n, "the record has no `payload`"));
        }
        notes.push(unknown(Code::UnknownKind, n, "record type", &ty));
        return Ok((Record::Other, notes));
    };
    let ts = raw.timestamp.ms();
    let sub = p.ty.as_ref().map(|t| t.0.clone());
    match ty.as_ref() {
        "response_item" => Ok((Record::Entry(item(p, sub, line, ts, &mut notes)), notes)),
        "compacted" => Ok((Record::Entry(compacted(p, line, ts)), notes)),
        "session_meta" => {
            let fork = p.forked_from_id.or(p.parent_thread_id).map(|s| s.0).or_else(|| subagent_parent(p.source));
            let mut hints = vec![(META, Cow::Borrowed("session_meta"))];
            hints.extend(
                p.id.and_then(|v| v.get().strip_prefix('"')?.strip_suffix('"')).map(|id| ("id", Cow::Borrowed(id))),
            );
            hints.extend(p.cwd.map(|c| ("cwd", c.0)));
            hints.extend(p.model_provider.map(|c| ("provider", c.0)));
            hints.extend(fork.map(|f| ("fork", f)));
            hints.extend(p.timestamp.ms().map(|t| ("created", Cow::Owned(t.to_string()))));
            Ok((meta(line, ts, hints), notes))
        }
        "turn_context" => {
            let mut hints = vec![(META, Cow::Borrowed("turn_context"))];
            hints.extend(p.model.map(|m| ("model", m.0)));
            Ok((meta(line, ts, hints), notes))
        }
        "event_msg" => {
            let mut hints = vec![(META, Cow::Borrowed("event_msg"))];
            match sub.as_deref() {
                Some("token_count") => {
                    if let Some((t, l)) = p.info.and_then(|i| Some((i.total_token_usage?, i.last_token_usage?))) {
                        push_lean(&mut hints, (COUNTER, Cow::Owned(counter_hint(&t, &l))));
                    }
                }
                Some("user_message") => {
                    push_lean(
                        &mut hints,
                        ("user_message", p.message.map(|m| Cow::Borrowed(m.get())).unwrap_or_default()),
                    );
                }
                Some("thread_rolled_back") => {
                    push_lean(&mut hints, ("rollback", Cow::Owned(num(p.num_turns).unwrap_or(0).to_string())));
                }
                Some("turn_aborted") => push_lean(&mut hints, ("aborted", Cow::Borrowed("1"))),
                _ => {}
            }
            Ok((meta(line, ts, hints), notes))
        }
        _ => {
            notes.push(unknown(Code::UnknownKind, n, "record type", &ty));
            Ok((Record::Other, notes))
        }
    }
}

/// A record without a field every record has.
fn missing(n: u32, what: &str) -> super::Fail {
    super::Fail::Finding(Finding::at(Code::MissingField, n, None, what))
}

/// Older sub-agent rollouts name their parent in `source.subagent.thread_spawn`.
fn subagent_parent(source: Option<&RawValue>) -> Option<Cow<'_, str>> {
    let s = source?.get();
    if !s.contains("parent_thread_id") {
        return None;
    }
    let v: Value = serde_json::from_str(s).ok()?;
    let id = v.pointer("/subagent/thread_spawn/parent_thread_id")?.as_str()?;
    Some(Cow::Owned(id.to_string()))
}

/// A metadata line, carried to the fold as an entry with hints (the fold drops it).
fn meta<'a>(line: &Line, ts: Option<i64>, hints: Vec<(&'static str, Cow<'a, str>)>) -> Record<'a> {
    let mut e = entry(line, ts, Kind::Unknown, Cow::Borrowed("meta"), Id::Int(u64::from(line.number)));
    e.extra_mut().hints = hints;
    Record::Entry(e)
}

fn entry<'a>(line: &Line, ts: Option<i64>, kind: Kind, kind_name: Cow<'a, str>, id: Id<'a>) -> Entry<'a> {
    let mut e = Entry::new(line.number, line.span.clone(), kind, id);
    e.timestamp = ts.into();
    e.named(kind_name)
}

/// One `response_item`: a message, reasoning, a tool call or its output, a provider-side
/// compaction, or a type this tool does not know (kept as an unknown entry).
fn item<'a>(
    p: Box<RawPayload<'a>>,
    sub: Option<Cow<'a, str>>,
    line: &Line,
    ts: Option<i64>,
    notes: &mut Vec<Finding>,
) -> Entry<'a> {
    let n = line.number;
    let kind_name = sub.clone().unwrap_or(Cow::Borrowed(""));
    let mut e = entry(line, ts, Kind::Message, kind_name, super::made_up_id());
    e.set_synthetic_id(true);
    let mut blocks = Blocks::default();
    let mut tool_calls = Vec::new();
    let mut tool_results = Vec::new();
    let call_id = p.call_id.map(|c| c.0);
    let (role, role_name): (Role, Cow<'a, str>) = match sub.as_deref().unwrap_or("") {
        "message" => {
            let written = p.role.map(|r| r.0).unwrap_or(Cow::Borrowed(""));
            count_content(p.content, &mut blocks, n, notes);
            let role = match written.as_ref() {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "developer" | "system" => Role::System,
                "" => {
                    notes.push(Finding::at(Code::MissingField, n, None, "a message without `role`"));
                    Role::Other
                }
                other => {
                    notes.push(unknown(Code::UnknownRole, n, "role", other));
                    Role::Other
                }
            };
            if role == Role::User && injected_text(p.content) {
                push_lean(&mut e.extra_mut().hints, ("injected", Cow::Borrowed("1")));
            }
            (role, written)
        }
        "reasoning" => {
            blocks.thinking = 1;
            (Role::Assistant, Cow::Borrowed("assistant"))
        }
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            blocks.tool_call = 1;
            let name = p
                .name
                .map(|s| s.0)
                .or_else(|| (sub.as_deref() == Some("local_shell_call")).then_some(Cow::Borrowed("local_shell")));
            let id =
                call_id.or_else(|| p.id.and_then(|v| v.get().strip_prefix('"')?.strip_suffix('"')).map(Cow::Borrowed));
            push_lean(&mut tool_calls, ToolCall { id, name });
            (Role::Assistant, Cow::Borrowed("assistant"))
        }
        "web_search_call" => {
            // Run by the provider: no output item follows.
            blocks.server_tool = 1;
            (Role::Assistant, Cow::Borrowed("assistant"))
        }
        "compaction" | "compaction_summary" => {
            blocks.server_compaction = 1;
            (Role::Assistant, Cow::Borrowed("assistant"))
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            blocks.tool_result = 1;
            let code = p.output.and_then(output_exit_code);
            push_lean(
                &mut tool_results,
                ToolResult { call_id, tool_name: None, is_error: code.is_some_and(|c| c != 0), offloaded_path: None },
            );
            (Role::ToolResult, Cow::Borrowed("tool"))
        }
        other => {
            notes.push(unknown(
                Code::UnknownKind,
                n,
                "response item type",
                if other.is_empty() { "(none)" } else { other },
            ));
            e.set_kind(Kind::Unknown);
            return e;
        }
    };
    e.message = Some(Box::new(Message { blocks, tool_calls, tool_results, ..Message::with_role(role, role_name) }));
    e
}

/// Count a message's content items (`input_text`, `output_text`, `input_image`, ...).
fn count_content(content: Option<&RawValue>, blocks: &mut Blocks, n: u32, notes: &mut Vec<Finding>) {
    #[derive(Deserialize)]
    struct Item<'a> {
        #[serde(borrow, rename = "type")]
        ty: Option<Str<'a>>,
    }
    let Some(raw) = content else { return };
    if raw.get().starts_with('"') {
        blocks.text += 1;
        return;
    }
    let Ok(items) = serde_json::from_str::<Vec<Item>>(raw.get()) else {
        blocks.unknown += 1;
        return;
    };
    for it in items {
        match it.ty.as_ref().map(|t| t.0.as_ref()).unwrap_or("") {
            "input_text" | "output_text" | "text" | "refusal" => blocks.text += 1,
            "input_image" | "image" => blocks.image += 1,
            other => {
                blocks.unknown += 1;
                notes.push(unknown(Code::UnknownBlock, n, "content item type", other));
            }
        }
    }
}

/// Whether a user item's first text starts like context the agent injects.
fn injected_text(content: Option<&RawValue>) -> bool {
    let Some(raw) = content else { return false };
    let Ok(v) = serde_json::from_str::<Value>(raw.get()) else { return false };
    first_text_of(&v).is_some_and(|t| {
        let t = t.trim_start();
        INJECTED.iter().any(|p| t.starts_with(p))
    })
}

fn first_text_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Array(items) => items.iter().find_map(|i| i.get("text").and_then(Value::as_str)),
        _ => None,
    }
}

/// A tool output's text: a JSON string decoded, anything else as its JSON text.
fn output_text(raw: &RawValue) -> String {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::String(s)) => s,
        Ok(v) => first_text_of(&v).map(str::to_string).unwrap_or_else(|| v.to_string()),
        Err(_) => String::new(),
    }
}

/// The exit code a tool output records, if it records one: `metadata.exit_code` in an output
/// that is itself JSON (`custom_tool_call_output`, older `function_call_output`), else the
/// `Process exited with code N` / `Exit code: N` line of a shell output. Nothing else is an
/// error signal: Codex writes no error flag.
pub fn exit_code(text: &str) -> Option<i64> {
    if text.trim_start().starts_with('{') {
        #[derive(Deserialize)]
        struct Output {
            metadata: Option<Metadata>,
        }
        #[derive(Deserialize)]
        struct Metadata {
            exit_code: Option<i64>,
        }
        // The skimmer passes over the output's text without decoding it; serde_json has the
        // last word on whatever the skimmer declines.
        let output = super::skim::from_str::<Output>(text).ok().or_else(|| serde_json::from_str(text).ok());
        if let Some(Output { metadata: Some(Metadata { exit_code: Some(c) }) }) = output {
            return Some(c);
        }
    }
    marker_code(text.as_bytes())
}

/// The code after the first shell-output marker in `text`.
fn marker_code(text: &[u8]) -> Option<i64> {
    for marker in ["Process exited with code ", "Exit code: "] {
        if let Some(at) = memchr::memmem::find(text, marker.as_bytes()) {
            let rest = &text[at + marker.len()..];
            let end = rest.iter().position(|&c| !(c.is_ascii_digit() || c == b'-')).unwrap_or(rest.len());
            if let Some(c) = std::str::from_utf8(&rest[..end]).ok().and_then(|d| d.parse().ok()) {
                return Some(c);
            }
        }
    }
    None
}

/// [`exit_code`] of a tool output as written in the line. A JSON string that is not itself
/// JSON (today's shell outputs, most of the bytes of a rollout) is searched as written,
/// without decoding it: the markers and digits hold no character JSON escapes, so they read
/// the same escaped or not (a writer that escapes plain letters as `\u0045` would hide them;
/// none does).
fn output_exit_code(raw: &RawValue) -> Option<i64> {
    if let Some(body) = raw.get().strip_prefix('"') {
        let lead = body.trim_start_matches([' ', '\t']);
        if !lead.starts_with(['{', '\\']) {
            return marker_code(body.as_bytes());
        }
        // JSON inside the string: decode the string alone (no `Value` around it).
        if let Ok(Str(text)) = super::skim::from_str::<Str>(raw.get()) {
            return exit_code(&text);
        }
    }
    exit_code(&output_text(raw))
}

/// `compacted{message, replacement_history?}`: nothing before it is kept; what the model is
/// sent after it is the summary text: `message`, then each replacement item as text.
fn compacted<'a>(p: Box<RawPayload<'a>>, line: &Line, ts: Option<i64>) -> Entry<'a> {
    let mut e = entry(line, ts, Kind::Compaction, Cow::Borrowed("compacted"), super::made_up_id());
    e.set_synthetic_id(true);
    let message = p.message.and_then(|m| serde_json::from_str::<Value>(m.get()).ok());
    let mut parts: Vec<String> = Vec::new();
    if let Some(m) = message.as_ref().and_then(Value::as_str).filter(|m| !m.trim().is_empty()) {
        parts.push(m.to_string());
    }
    if let Some(Ok(Value::Array(items))) = p.replacement_history.map(|r| serde_json::from_str::<Value>(r.get())) {
        for it in &items {
            if let Some(t) = replacement_text(it) {
                parts.push(t);
            }
        }
    }
    e.extra_mut().compaction = Some(Box::new(Compaction {
        summary: (!parts.is_empty()).then(|| Text::Plain(Cow::Owned(parts.join("\n\n")))),
        ..Compaction::default()
    }));
    e
}

/// One replacement history item as `[role] text` (messages) or `[type]` (anything else).
fn replacement_text(it: &Value) -> Option<String> {
    let ty = it.get("type").and_then(Value::as_str).unwrap_or("?");
    if ty != "message" {
        return Some(format!("[{ty}]"));
    }
    let role = it.get("role").and_then(Value::as_str).unwrap_or("?");
    let texts: Vec<&str> = match it.get("content") {
        Some(Value::Array(c)) => c.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect(),
        Some(Value::String(s)) => vec![s.as_str()],
        _ => Vec::new(),
    };
    Some(format!("[{role}] {}", texts.join("\n")))
}

/// An entry's content in the neutral vocabulary, from the payloads of its line(s).
pub fn content(_: &Entry<'_>, lines: &[Value]) -> content::Content {
    let mut blocks = Vec::new();
    for l in lines {
        let Some(p) = l.get("payload") else { continue };
        item_blocks(p, &mut blocks);
    }
    content::Content { blocks, error: None }
}

/// The blocks of one response item (a line's `payload`), from its value.
pub fn item_blocks(p: &Value, out: &mut Vec<Block>) {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    match ty {
        "message" => out.extend(items(p.get("content").unwrap_or(&Value::Null))),
        "reasoning" => {
            let mut text = Vec::new();
            for k in ["summary", "content"] {
                if let Some(Value::Array(parts)) = p.get(k) {
                    text.extend(parts.iter().filter_map(|x| x.get("text").and_then(Value::as_str)));
                }
            }
            let redacted = text.is_empty() && p.get("encrypted_content").is_some_and(|v| !v.is_null());
            out.push(Block::Thinking { text: text.join("\n\n"), redacted });
        }
        "function_call" => out.push(call_block(s("call_id"), s("name"), p.get("arguments").cloned())),
        "custom_tool_call" => {
            let input = p.get("input").cloned().unwrap_or(Value::Null);
            let mut args = serde_json::Map::new();
            args.insert("input".into(), input);
            out.push(Block::ToolCall {
                id: s("call_id"),
                name: s("name").unwrap_or_default(),
                arguments: Value::Object(args),
            });
        }
        "local_shell_call" => out.push(Block::ToolCall {
            id: s("call_id").or_else(|| s("id")),
            name: "local_shell".into(),
            arguments: p.get("action").cloned().unwrap_or(Value::Null),
        }),
        "web_search_call" => out.push(Block::ServerTool { provider: "openai".into(), block: p.clone() }),
        "compaction" | "compaction_summary" => {
            out.push(Block::ProviderCompaction { summary: None, encrypted: s("encrypted_content") })
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            out.push(output_block(s("call_id"), p.get("output").cloned().unwrap_or(Value::Null)))
        }
        other => out.push(Block::Unknown { type_name: other.to_string(), raw: p.clone() }),
    }
}

/// A `function_call` item's block: `arguments` is a JSON document inside a string, parsed for
/// display (`None`: the item has none).
pub fn call_block(call_id: Option<String>, name: Option<String>, arguments: Option<Value>) -> Block {
    let arguments = match arguments {
        Some(Value::String(a)) => serde_json::from_str(&a).unwrap_or(Value::String(a)),
        Some(v) => v,
        None => Value::Null,
    };
    Block::ToolCall { id: call_id, name: name.unwrap_or_default(), arguments }
}

/// A tool output item's block, from its `output` (`null` when it has none).
pub fn output_block(call_id: Option<String>, raw: Value) -> Block {
    let (text, list) = match raw {
        Value::String(t) => (t, None),
        other => {
            let text = first_text_of(&other).map(str::to_string).unwrap_or_else(|| other.to_string());
            (text, Some(other).filter(Value::is_array))
        }
    };
    let code = exit_code(&text);
    // A JSON output (`{"output": ..., "metadata": ...}`) shows its output text.
    let shown = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("output").and_then(Value::as_str).map(str::to_string));
    let body = match (list, shown) {
        (Some(list), _) => items(&list),
        (None, Some(t)) => vec![Block::Text(t)],
        _ => vec![Block::Text(text)],
    };
    Block::ToolResult(content::ToolResult {
        call_id,
        tool_name: None,
        is_error: code.is_some_and(|c| c != 0),
        content: body,
        offloaded_path: None,
    })
}

/// A message's content items.
pub fn items(content: &Value) -> Vec<Block> {
    let Value::Array(list) = content else {
        return match content {
            Value::String(s) => vec![Block::Text(s.clone())],
            _ => Vec::new(),
        };
    };
    list.iter().map(content_item).collect()
}

/// One content item of a message.
pub fn content_item(b: &Value) -> Block {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "input_text" | "output_text" | "text" | "refusal" => {
            Block::Text(b.get("text").or_else(|| b.get("refusal")).and_then(Value::as_str).unwrap_or("").to_string())
        }
        "input_image" | "image" => match b.get("image_url").and_then(Value::as_str) {
            Some(url) => match url.strip_prefix("data:").and_then(|r| r.split_once(";base64,")) {
                Some((mime, data)) => Block::Image(Image::Inline { mime: mime.into(), data: data.into() }),
                None => Block::Image(Image::Url(url.to_string())),
            },
            None => Block::Unknown { type_name: ty.to_string(), raw: b.clone() },
        },
        _ => Block::Unknown { type_name: ty.to_string(), raw: b.clone() },
    }
}

/// Cumulative or per-request token figures: input (cached included), cached, output, total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Figures([u64; 4]);

impl Figures {
    /// The total and last figures of a [`counter_hint`].
    fn pair(s: &str) -> Option<(Figures, Figures)> {
        let mut it = s.split(' ').map(|x| x.parse::<u64>());
        let mut four = || Some(Figures([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?]));
        Some((four()?, four()?))
    }

    fn usage(self) -> Usage {
        let [input, cached, output, total] = self.0;
        Usage {
            input: input.saturating_sub(cached),
            output,
            cache_read: cached,
            cache_write: 0,
            cache_write_1h: 0,
            total: Some(total),
            cost: None,
        }
    }
}

/// What the fold knows while it walks the file.
#[derive(Default)]
struct Walk {
    /// The entry the next one attaches to.
    attach: Option<usize>,
    /// The open request: its entry, while assistant items may still join it.
    open: Option<usize>,
    /// The request whose usage the next changed `token_count` settles (the open one, or the
    /// last one closed by a history item before its counter arrived).
    pending: Option<usize>,
    model: Option<String>,
    provider: Option<String>,
    total: Option<Figures>,
    /// Typed prompts on the current branch, oldest first (for rollbacks).
    turns: Vec<usize>,
    /// User items since the last typed prompt was placed (the echo names the last one).
    users: Vec<usize>,
    /// What each placed entry attaches to, by position ([`Placed`]).
    placed: Vec<Placed>,
}

/// A placed entry's parent and the latest assistant entry on its branch, as positions: a
/// rollback restores the first dropped turn's parent, and an abort marks the latest assistant
/// entry of the turn, each in one step. (Found by id, walking parent by parent, each took
/// time in the entries before it: many rollbacks, or many aborts in one turn, were
/// quadratic.) Positions fit in `u32`: each entry is a line of its own.
#[derive(Clone, Copy)]
struct Placed {
    parent: Option<u32>,
    /// The entry itself when it is an assistant entry, else its parent's.
    assistant: Option<u32>,
}

/// The file-level pass, fed the entries in file order as the decode puts them together:
/// metadata lines to the header, usage and typed prompts; entries chained, assistant items
/// merged per request; rollbacks turned into branches. Each decides from what came before,
/// so the pass keeps up with the decode; the placed entries go straight to
/// [`Decoded::entries`], and the keys and tool uses are rebuilt from them at the end.
struct Pass<'a> {
    detail: Detail,
    w: Walk,
    header: Option<Header<'a>>,
    saw_user_event: bool,
    first_counter: Option<(Figures, Figures, u32)>,
    fork: Option<String>,
}

fn start<'a>(_: &'a [u8], detail: Detail) -> Box<dyn Stitch<'a> + 'a> {
    Box::new(Pass { detail, w: Walk::default(), header: None, saw_user_event: false, first_counter: None, fork: None })
}

impl<'a> Stitch<'a> for Pass<'a> {
    fn feed(&mut self, d: &mut Decoded<'a>, part: Fed<'a>) {
        for e in part.entries {
            self.take(d, e);
        }
    }

    fn finish(self: Box<Self>, d: &mut Decoded<'a>) {
        let Pass { detail, header, saw_user_event, first_counter, fork, .. } = *self;
        // Files without user_message events: the known injected prefixes decide.
        d.entries.par_iter_mut().for_each(|e| {
            let injected = match saw_user_event {
                true => e.hint("typed").is_none(),
                false => e.hint("injected").is_some(),
            };
            if let Some(m) = e.message.as_mut().filter(|m| m.role == Role::User && injected) {
                m.role = Role::System;
            }
        });
        if let Some((t, l, line)) = first_counter {
            if t != l {
                let why = match &fork {
                    Some(p) => format!("forked from {p}: "),
                    None => String::new(),
                };
                d.findings.push(Finding::new(
                    Code::InheritedUsage,
                    Some(line),
                    format!(
                        "{why}the first token counter ({} tokens) is not a fresh one ({} in its own request): includes inherited usage, parent not found",
                        t.0[3], l.0[3]
                    ),
                ));
            }
        }
        if detail.keeps_messages() {
            name_results(&mut d.entries);
        }
        d.header = header;
        super::reindex(d);
    }
}

impl<'a> Pass<'a> {
    /// The next line's entry: placed, or read for what it says about the file.
    fn take(&mut self, d: &mut Decoded<'a>, e: Entry<'a>) {
        let (w, out) = (&mut self.w, &mut d.entries);
        let Some(what) = e.hint(META) else {
            place(out, w, e);
            return;
        };
        let hint = |k: &str| e.hint(k).map(|v| v.to_string());
        match what.as_ref() {
            "session_meta" if self.header.is_none() => {
                self.fork = hint("fork");
                w.provider = hint("provider");
                self.header = Some(Header {
                    line: e.line,
                    span: e.span(),
                    id: hint("id").map(Cow::Owned),
                    title: None,
                    cwd: hint("cwd").map(Cow::Owned),
                    created: hint("created").and_then(|c| c.parse().ok()).or(e.timestamp.get()),
                    version: None,
                    origin: hint("fork").map(Cow::Owned),
                });
            }
            "turn_context" => {
                if let Some(m) = hint("model") {
                    w.model = Some(m);
                }
                w.open = None;
            }
            _ => {}
        }
        if let Some((t, l)) = e.hint(COUNTER).and_then(|c| Figures::pair(c)) {
            self.first_counter.get_or_insert((t, l, e.line));
            if w.total != Some(t) {
                // A decreasing counter starts a new segment (a restarted counter): its
                // figures are still this request's, read from `last` like any other.
                w.total = Some(t);
                if !settle(out, w, e, l) {
                    d.others += 1;
                }
                return;
            }
        }
        d.others += 1;
        if let Some(raw) = hint("user_message") {
            self.saw_user_event = true;
            if let Some(&u) = w.users.last() {
                mark_typed(&mut out[u]);
                w.turns.push(u);
            }
            w.users.clear();
            if let Some(h) = self.header.as_mut().filter(|h| h.title.is_none()) {
                if raw.starts_with('"') && raw.len() > 2 {
                    h.title = Some(Text::Plain(Cow::Owned(crate::model::unescape_json_str(&raw, usize::MAX).0)));
                }
            }
        }
        if let Some(n) = hint("rollback").and_then(|n| n.parse::<usize>().ok()) {
            if n > 0 && n <= w.turns.len() {
                let first_dropped = w.turns[w.turns.len() - n];
                w.turns.truncate(w.turns.len() - n);
                w.attach = w.placed[first_dropped].parent.map(|p| p as usize);
            } else if n > 0 {
                d.findings.push(Finding::new(
                    Code::InvalidField,
                    Some(e.line),
                    format!("rollback of {n} turns, but only {} typed turns precede it", w.turns.len()),
                ));
            }
            w.open = None;
            w.pending = None;
            w.users.clear();
        }
        if hint("aborted").is_some() {
            let turn_start = w.turns.last().copied().unwrap_or(0);
            if let Some(a) = last_assistant(w, turn_start) {
                if let Some(m) = out[a].message.as_mut() {
                    m.reply_mut().stop_reason = Some(Cow::Borrowed("aborted"));
                }
            }
        }
    }
}

/// Place a history entry: merge it into the open request, or chain it after the last entry.
fn place<'a>(out: &mut Vec<Entry<'a>>, w: &mut Walk, e: Entry<'a>) {
    let assistant = e.message.as_ref().is_some_and(|m| m.role == Role::Assistant);
    if assistant {
        if let Some(o) = w.open {
            merge(&mut out[o], e);
            return;
        }
    }
    if e.message.as_ref().is_some_and(|m| m.role == Role::User) {
        w.users.push(out.len());
    }
    let ix = chain(out, w, e);
    if assistant {
        w.open = Some(ix);
        w.pending = Some(ix);
    } else {
        w.open = None;
    }
}

/// Add one more assistant item to a request's entry.
fn merge<'a>(into: &mut Entry<'a>, e: Entry<'a>) {
    let span = e.span();
    let Some(m) = e.message else { return };
    if let Some(t) = into.message.as_mut() {
        let (a, b) = (&mut t.blocks, m.blocks);
        a.text += b.text;
        a.thinking += b.thinking;
        a.image += b.image;
        a.tool_call += b.tool_call;
        a.tool_result += b.tool_result;
        a.server_compaction += b.server_compaction;
        a.server_tool += b.server_tool;
        a.unknown += b.unknown;
        t.tool_calls.extend(m.tool_calls);
    }
    into.extra_mut().more_spans.push(span);
}

/// A changed counter ends a request: its usage goes on the request's entry, or, when the
/// request left no history item of its own, on the counter's line kept as an empty entry.
/// Returns whether the counter's line became an entry.
fn settle<'a>(out: &mut Vec<Entry<'a>>, w: &mut Walk, mut counter: Entry<'a>, last: Figures) -> bool {
    let usage = last.usage();
    let target = w.pending.filter(|&p| out[p].message.as_ref().is_some_and(|m| m.usage().is_none()));
    let kept = target.is_none();
    let ix = match target {
        Some(p) => p,
        None => {
            let n = counter.line;
            counter.id = super::line_id(n);
            counter.set_kind(Kind::Message);
            counter = counter.named(Cow::Borrowed("token_count"));
            counter.extra_mut().hints.clear();
            counter.set_synthetic_id(true);
            counter.message = Some(Box::new(Message::with_role(Role::Assistant, Cow::Borrowed("assistant"))));
            chain(out, w, counter)
        }
    };
    if let Some(m) = out[ix].message.as_mut() {
        let r = m.reply_mut();
        r.usage = Some(usage);
        r.model = w.model.clone().map(Cow::Owned);
        r.provider = w.provider.clone().map(Cow::Owned);
    }
    w.open = None;
    w.pending = None;
    kept
}

fn mark_typed(e: &mut Entry<'_>) {
    push_lean(&mut e.extra_mut().hints, ("typed", Cow::Borrowed("1")));
}

/// Chain an entry after the one the next attaches to, and attach the next to it. Returns its
/// position.
fn chain<'a>(out: &mut Vec<Entry<'a>>, w: &mut Walk, mut e: Entry<'a>) -> usize {
    let ix = out.len();
    let assistant = match e.message.as_ref().is_some_and(|m| m.role == Role::Assistant) {
        true => Some(ix as u32),
        false => w.attach.and_then(|a| w.placed[a].assistant),
    };
    w.placed.push(Placed { parent: w.attach.map(|a| a as u32), assistant });
    e.set_parent(w.attach.map(|a| out[a].id.clone()));
    out.push(e);
    w.attach = Some(ix);
    ix
}

/// The latest assistant entry on the current branch at or after `from`. Positions fall
/// along a branch toward its root, so the branch's latest assistant entry is at or after
/// `from` exactly when a walk back from the tip to `from` meets it.
fn last_assistant(w: &Walk, from: usize) -> Option<usize> {
    let a = w.placed[w.attach?].assistant? as usize;
    (a >= from).then_some(a)
}

/// Tool outputs name no tool: take the name from the call with the same id.
fn name_results<'a>(out: &mut [Entry<'a>]) {
    let mut names: crate::format::FastMap<Cow<'a, str>, Cow<'a, str>> = Default::default();
    for e in out.iter() {
        for c in e.message.iter().flat_map(|m| &m.tool_calls) {
            if let (Some(id), Some(n)) = (&c.id, &c.name) {
                // Borrowed from the file: no copies.
                names.insert(id.clone(), n.clone());
            }
        }
    }
    out.par_iter_mut().for_each(|e| {
        for r in e.message.iter_mut().flat_map(|m| m.tool_results.iter_mut()) {
            if r.tool_name.is_none() {
                r.tool_name = r.call_id.as_ref().and_then(|id| names.get(id.as_ref())).cloned();
            }
        }
    });
}

/// Whether a line has the Codex envelope: `timestamp`, `type` (a section 3.2 type) and
/// `payload`, with or without `ordinal`.
pub(crate) fn signature(p: &super::Probe<'_>) -> bool {
    p.timestamp.is_some() && p.payload.is_some() && p.ty.as_ref().is_some_and(|t| TYPES.contains(&t.0.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member of a line and of its payload the derived `Deserialize` reads, the walk
    /// reads too.
    #[test]
    fn the_walk_reads_every_member_serde_reads() {
        use crate::format::skim::tests::{struct_fields, walks_whole};
        let lines = (struct_fields::<RawLine>().iter().map(|f| format!(r#"{{"{f}":null}}"#)))
            .chain(struct_fields::<RawPayload>().iter().map(|f| format!(r#"{{"payload":{{"{f}":null}}}}"#)));
        for line in lines {
            walks_whole(&line, |w| RawLine::walk(w, &mut RawLine::default()));
        }
    }

    /// A total the counter leaves out is input + output, held at the largest count when the
    /// sum passes it (as every sum of tokens is), not wrapped around to a small number (nor a
    /// panic in a debug build).
    #[test]
    fn a_missing_total_is_held_at_the_largest_count() {
        let figures = |text: &str| serde_json::from_str::<RawTokens>(text).unwrap().figures();
        assert_eq!(figures(r#"{"input_tokens":5,"cached_input_tokens":1,"output_tokens":2}"#), [5, 1, 2, 7]);
        assert_eq!(figures(r#"{"input_tokens":5,"output_tokens":2,"total_tokens":9}"#), [5, 0, 2, 9]);
        let max = u64::MAX;
        assert_eq!(figures(&format!(r#"{{"input_tokens":{max},"output_tokens":2}}"#)), [max, 0, 2, max]);
    }

    fn sniff(b: &[u8]) -> bool {
        super::super::Probe::of(b).is_some_and(|p| signature(&p))
    }

    #[test]
    fn exit_codes_only_when_recorded() {
        assert_eq!(exit_code("Chunk ID: x\nProcess exited with code 2\nOutput:\n"), Some(2));
        assert_eq!(exit_code(r#"{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.0}}"#), Some(0));
        assert_eq!(exit_code("Exit code: 127\nWall time: 1s"), Some(127));
        // As written in the line: decoded or not, the same answers.
        for (text, code) in [
            ("Chunk ID: x\nProcess exited with code 2\nOutput:\n\"quoted\"\t\\", Some(2)),
            ("Exit code: 127\nWall time: 1s", Some(127)),
            ("no marker here \u{1f9e9}", None),
            (r#"{"output":"Exit code: 3","metadata":{"exit_code":0}}"#, Some(0)),
            (r#"{"output":"Exit code: 3"}"#, Some(3)),
            ("\n{\"metadata\":{\"exit_code\":4}}", Some(4)),
            // A code that is no integer, or a key written twice: no recorded code, so the
            // marker in the text decides.
            (r#"{"output":"Exit code: 9","metadata":{"exit_code":1.5}}"#, Some(9)),
            (r#"{"metadata":{"exit_code":1},"metadata":{"exit_code":2}}"#, None),
            (r#"{"output":"\u00e9 Process exited with code 6","metadata":{"exit_code":0}}"#, Some(0)),
        ] {
            let raw = serde_json::to_string(text).unwrap();
            let raw: Box<RawValue> = RawValue::from_string(raw).unwrap();
            assert_eq!(output_exit_code(&raw), code, "{text:?}");
            assert_eq!(exit_code(text), code, "{text:?}");
        }
        assert_eq!(exit_code("plain output, no code"), None);
    }

    #[test]
    fn sniffs_the_envelope_with_a_known_type() {
        assert!(sniff(br#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{}}"#));
        assert!(sniff(br#"{"ordinal":3,"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{}}"#));
        assert!(!sniff(br#"{"timestamp":"2026-01-01T00:00:00Z","type":"session","payload":{}}"#));
        assert!(!sniff(br#"{"type":"response_item","payload":{}}"#));
    }
}
