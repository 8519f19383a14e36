//! The Claude Code format (FORMATS-REAL.md section 2): `~/.claude/projects/<slug>/<id>.jsonl`,
//! no header, `type`-tagged lines linked by `uuid` / `parentUuid`.
//!
//! The decode turns every line into an entry or a counted record; lines that only carry
//! links (progress, metadata with a `uuid`) become entries marked `drop` so that the fold
//! can re-hang their children. The fold (section 2.4) then removes them, merges a response
//! written one content block per line into one entry (usage counted once), attaches tool
//! results to the entry that issued their calls, hangs a `compact_boundary` under its
//! logical parent with the summary line folded into it, and sets the header (id, cwd,
//! created, title).

use crate::format::{FastMap as HashMap, FastSet};
use std::borrow::Cow;

use rayon::prelude::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::blocks;
use super::de::{cow, num, present, Content, MaybeContent, Num, Str, Ts};
use super::skim::{members, Walk};
use super::tally;
use super::{push_lean, unknown, Decoded, Decoder, Detail, Effort, Fail, Fed, LineResult, Record, Stitch};
use crate::content::{self, Block};
use crate::finding::{Code, Finding};
use crate::model::{
    Compaction, Entry, Header, Id, Kind, Message, Reply, Role, Text, ToolCall, ToolSide, ToolUse, Usage,
};
use crate::source::Line;

pub const DECODER: Decoder = Decoder {
    decode,
    explain,
    fold: Some(super::Fold::Streamed(start)),
    line_messages: false,
    content,
    content_keys: &["message", "content", "isApiErrorMessage"],
    direct: Some(super::direct::claude),
    tally: Some(tally),
    rekeyed: false,
    observed: false,
    header_expected: false,
    is_prompt,
};

/// Line types that describe the session rather than the conversation: never tree entries.
const METADATA: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "summary",
    "attachment",
    "last-prompt",
    "ai-title",
    "custom-title",
    "agent-name",
];

/// The model name Claude Code writes on messages it made up itself (API errors, interrupts):
/// not a model call.
const SYNTHETIC_MODEL: &str = "<synthetic>";

// Hint names: what the decode leaves for the fold.
/// Not an entry: a progress or metadata line kept only for its links.
const DROP: &str = "drop";
/// The model call an assistant line belongs to (`message.id` + `requestId`).
const CALL: &str = "call";
const SIDECHAIN: &str = "sidechain";
const LOGICAL_PARENT: &str = "logical_parent";
const COMPACT_SUMMARY: &str = "compact_summary";
/// The assistant line whose `tool_use` this result answers (2.1.x).
const SOURCE_TOOL: &str = "source_tool";
const CUSTOM_TITLE: &str = "custom_title";
const AI_TITLE: &str = "ai_title";
const SUMMARY: &str = "summary";
const SUMMARY_LEAF: &str = "summary_leaf";
/// The sub-agent a `Task`/`Agent` result names (`toolUseResult.agentId`).
const AGENT: &str = "agent";

/// Whether a line carries the Claude Code signature (FORMATS-REAL.md section 5): `uuid`, a
/// `parentUuid` key and `sessionId`, or a metadata line only Claude Code writes.
pub(crate) fn signature(p: &super::Probe<'_>) -> bool {
    let ty = p.ty.as_ref().map(|t| t.0.as_ref());
    (p.uuid.is_some() && p.parent_uuid && p.session_id.is_some())
        || matches!(ty, Some("file-history-snapshot" | "summary" | "queue-operation"))
}

fn explain<'a>(b: &'a [u8]) -> Option<String> {
    super::explain_with::<RawLine<'a>>(b)
}

#[derive(Deserialize, Default)]
struct RawLine<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    subtype: Option<Str<'a>>,
    #[serde(borrow)]
    uuid: Option<Str<'a>>,
    #[serde(borrow, rename = "parentUuid", default, deserialize_with = "present")]
    parent_uuid: Option<Option<Str<'a>>>,
    #[serde(borrow, rename = "logicalParentUuid")]
    logical_parent_uuid: Option<Str<'a>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(default)]
    timestamp: Ts,
    #[serde(borrow, rename = "requestId")]
    request_id: Option<Str<'a>>,
    /// Boxed, as arcturn's: the record moves without it.
    #[serde(borrow)]
    message: Option<Box<RawMessage<'a>>>,
    /// `system` lines carry their text here.
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "compactMetadata")]
    compact_metadata: Option<RawCompactMetadata>,
    #[serde(borrow, rename = "sourceToolAssistantUUID")]
    source_tool: Option<Str<'a>>,
    #[serde(borrow, rename = "toolUseResult")]
    tool_use_result: Option<&'a RawValue>,
    // metadata lines
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, rename = "leafUuid")]
    leaf_uuid: Option<Str<'a>>,
    #[serde(borrow, rename = "customTitle")]
    custom_title: Option<Str<'a>>,
    #[serde(borrow, rename = "aiTitle")]
    ai_title: Option<Str<'a>>,
    #[serde(borrow)]
    title: Option<Str<'a>>,
}

#[derive(Deserialize, Default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<MaybeContent<'a>>,
    usage: Option<RawUsage>,
    #[serde(borrow)]
    stop_reason: Option<Str<'a>>,
}

#[derive(Deserialize, Default)]
struct RawUsage {
    input_tokens: Option<Num>,
    output_tokens: Option<Num>,
    cache_creation_input_tokens: Option<Num>,
    cache_read_input_tokens: Option<Num>,
    cache_creation: Option<CacheCreation>,
}

/// How the cache writes split between the 5-minute and the 1-hour cache: the 1-hour part,
/// when `cache_creation` is an object whose `ephemeral_1h_input_tokens` is a count (or null).
/// Anything else in its place is ignored (the split is a detail of pricing, not worth a
/// damaged line). Read in one pass: no value is buffered to try one shape, then another.
struct CacheCreation {
    one_hour: Option<u64>,
}

impl<'de> Deserialize<'de> for CacheCreation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        /// A count, null, or anything else (`Err`), never an error of the line.
        struct Count(Result<Option<u64>, ()>);
        impl<'de> Deserialize<'de> for Count {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Count;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_u64<E>(self, v: u64) -> Result<Count, E> {
                        Ok(Count(Ok(Some(v))))
                    }
                    fn visit_i64<E>(self, v: i64) -> Result<Count, E> {
                        Ok(Count(u64::try_from(v).map(Some).map_err(|_| ())))
                    }
                    fn visit_f64<E>(self, v: f64) -> Result<Count, E> {
                        Ok(Count(if v >= 0.0 && v.is_finite() { Ok(Some(v as u64)) } else { Err(()) }))
                    }
                    fn visit_unit<E>(self) -> Result<Count, E> {
                        Ok(Count(Ok(None)))
                    }
                    fn visit_bool<E>(self, _: bool) -> Result<Count, E> {
                        Ok(Count(Err(())))
                    }
                    fn visit_str<E>(self, _: &str) -> Result<Count, E> {
                        Ok(Count(Err(())))
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                        while a.next_element::<IgnoredAny>()?.is_some() {}
                        Ok(Count(Err(())))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                        Ok(Count(Err(())))
                    }
                }
                d.deserialize_any(V)
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CacheCreation;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<CacheCreation, A::Error> {
                // A second `ephemeral_1h_input_tokens` makes the split unreadable, as a
                // value that is no count does.
                let mut one_hour: Option<Result<Option<u64>, ()>> = None;
                while let Some(k) = a.next_key::<Str<'de>>()? {
                    if k.0 == "ephemeral_1h_input_tokens" {
                        let v = a.next_value::<Count>()?.0;
                        one_hour = Some(if one_hour.is_some() { Err(()) } else { v });
                    } else {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(CacheCreation { one_hour: one_hour.and_then(|v| v.ok()).flatten() })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<CacheCreation, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_u64<E>(self, _: u64) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_i64<E>(self, _: i64) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_f64<E>(self, _: f64) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_bool<E>(self, _: bool) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_str<E>(self, _: &str) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
            fn visit_unit<E>(self) -> Result<CacheCreation, E> {
                Ok(CacheCreation { one_hour: None })
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct RawCompactMetadata {
    #[serde(rename = "preTokens")]
    pre_tokens: Option<Num>,
    #[serde(rename = "postTokens")]
    post_tokens: Option<Num>,
}

#[derive(Deserialize)]
struct RawToolUseResult<'a> {
    #[serde(borrow, rename = "agentId")]
    agent_id: Option<Str<'a>>,
}

/// A block of a user message, read only to find its first text (for the title).
#[derive(Deserialize)]
struct RawBlock<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

impl<'a> RawLine<'a> {
    /// The members of a line's object, walked by hand, as arcturn's.
    fn walk(w: &mut Walk<'a>, l: &mut RawLine<'a>) -> Option<()> {
        members!(w, {
            "type" => l.ty = Str::walk(w)?,
            "subtype" => l.subtype = Str::walk(w)?,
            "uuid" => l.uuid = Str::walk(w)?,
            "parentUuid" => l.parent_uuid = Some(Str::walk(w)?),
            "logicalParentUuid" => l.logical_parent_uuid = Str::walk(w)?,
            "isSidechain" => l.is_sidechain = w.value()?,
            "isMeta" => l.is_meta = w.value()?,
            "isCompactSummary" => l.is_compact_summary = w.value()?,
            "timestamp" => l.timestamp = Ts::walk(w)?,
            "requestId" => l.request_id = Str::walk(w)?,
            "message" => l.message = w.nested(RawMessage::walk)?,
            "content" => l.content = w.value()?,
            "compactMetadata" => l.compact_metadata = w.value()?,
            "sourceToolAssistantUUID" => l.source_tool = Str::walk(w)?,
            "toolUseResult" => l.tool_use_result = w.value()?,
            "summary" => l.summary = w.value()?,
            "leafUuid" => l.leaf_uuid = Str::walk(w)?,
            "customTitle" => l.custom_title = Str::walk(w)?,
            "aiTitle" => l.ai_title = Str::walk(w)?,
            "title" => l.title = Str::walk(w)?,
        });
        Some(())
    }
}

impl<'a> RawMessage<'a> {
    fn walk(w: &mut Walk<'a>) -> Option<Box<RawMessage<'a>>> {
        w.object()?;
        let mut m = Box::<RawMessage>::default();
        members!(w, {
            "id" => m.id = Str::walk(w)?,
            "model" => m.model = Str::walk(w)?,
            "content" => m.content = match w.peek()? {
                b'[' => Some(MaybeContent::Content(Content::walk(w)?)),
                _ => w.value()?,
            },
            "usage" => m.usage = w.nested(RawUsage::walk)?,
            "stop_reason" => m.stop_reason = Str::walk(w)?,
        });
        Some(m)
    }
}

impl RawUsage {
    fn walk(w: &mut Walk<'_>) -> Option<RawUsage> {
        w.object()?;
        let mut u = RawUsage::default();
        members!(w, {
            "input_tokens" => u.input_tokens = Num::walk(w)?,
            "output_tokens" => u.output_tokens = Num::walk(w)?,
            "cache_creation_input_tokens" => u.cache_creation_input_tokens = Num::walk(w)?,
            "cache_read_input_tokens" => u.cache_read_input_tokens = Num::walk(w)?,
            "cache_creation" => u.cache_creation = w.value()?,
        });
        Some(u)
    }
}

fn decode<'a>(b: &'a str, line: &Line, effort: Effort) -> LineResult<'a> {
    let mut raw = RawLine::default();
    super::read_into(b, effort, &mut raw, RawLine::walk)?;
    let n = line.number;
    let mut notes = Vec::new();
    let ty = raw.ty.as_ref().map(|t| t.0.clone()).unwrap_or(Cow::Borrowed(""));
    // Every line repeats `sessionId` and `cwd`: the fold reads them again from the first
    // lines that have them rather than keeping them for every line.
    let mut hints: Vec<(&'static str, Cow<'a, str>)> = Vec::new();
    if raw.is_sidechain == Some(true) {
        push_lean(&mut hints, (SIDECHAIN, Cow::Borrowed("1")));
    }
    let conversational = matches!(ty.as_ref(), "user" | "assistant" | "system");
    if !conversational {
        let known = ty == "progress" || METADATA.contains(&ty.as_ref());
        if !known {
            notes.push(if ty.is_empty() {
                Finding::at(Code::MissingField, n, None, "a line without `type` (kept and counted)")
            } else {
                unknown(Code::UnknownKind, n, "type", &ty)
            });
        }
        // Metadata the fold reads: titles and the conversation a summary names.
        if let Some(t) = raw.custom_title {
            push_lean(&mut hints, (CUSTOM_TITLE, t.0));
        }
        if let Some(t) = raw.ai_title.or(raw.title) {
            push_lean(&mut hints, (AI_TITLE, t.0));
        }
        if let (Some(s), Some(leaf)) = (raw.summary.filter(|s| s.get().starts_with('"')), raw.leaf_uuid) {
            push_lean(&mut hints, (SUMMARY, Cow::Borrowed(s.get())));
            push_lean(&mut hints, (SUMMARY_LEAF, leaf.0));
        }
        let has_links = raw.uuid.is_some();
        if hints.is_empty() && !has_links {
            return Ok((Record::Other, notes));
        }
        push_lean(&mut hints, (DROP, Cow::Borrowed("1")));
        let id = match raw.uuid {
            Some(u) => Id::from_text(u.0),
            None => super::made_up_id(),
        };
        let entry = {
            let mut e = Entry::new(n, 0..0, Kind::Unknown, id);
            e.set_parent(raw.parent_uuid.flatten().map(|p| Id::from_text(p.0)));
            e.timestamp = raw.timestamp.ms().into();
            e.extra = Some(Box::new(crate::model::Extra { hints, ..Default::default() }));
            // After the box: a line of 4 GiB or more keeps its end there.
            e.set_span(line.span.clone());
            e.set_synthetic_id(!has_links);
            e
        };
        // Not named after its type: the pass drops the entry once it has read its links and
        // hints, and nothing reads its kind.
        return Ok((Record::Entry(entry), notes));
    }
    let Some(uuid) = raw.uuid else {
        return Err(missing(n, "a conversational line without `uuid`"));
    };
    let parent = match raw.parent_uuid {
        Some(p) => p.map(|p| Id::from_text(p.0)),
        None => {
            notes.push(
                Finding::at(Code::MissingField, n, None, "the entry has no `parentUuid` (read as a root)")
                    .with_id(Id::copied(&uuid.0)),
            );
            None
        }
    };
    match raw.timestamp {
        Ts::Bad => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable entry timestamp")),
        Ts::Absent => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "entry without a timestamp")),
        Ts::Ms(_) => {}
    }
    let mut kind = Kind::Message;
    let mut compaction = None;
    let message = match ty.as_ref() {
        "system" if raw.subtype.as_ref().is_some_and(|s| s.0 == "compact_boundary") => {
            kind = Kind::Compaction;
            let meta = raw.compact_metadata.as_ref();
            compaction = Some(Box::new(Compaction {
                tokens_before: meta.and_then(|m| num(m.pre_tokens)),
                tokens_after: meta.and_then(|m| num(m.post_tokens)),
                ..Compaction::default()
            }));
            if let Some(lp) = raw.logical_parent_uuid {
                push_lean(&mut hints, (LOGICAL_PARENT, lp.0));
            }
            None
        }
        "system" => {
            let c = match raw.content {
                Some(c) => parse_content(c, effort)?,
                None => Content::default(),
            };
            Some(Message {
                blocks: c.blocks,
                // Claude Code shows these (hook summaries, turn timings, local command output)
                // but never sends them to the model.
                excluded: true,
                ..Message::with_role(Role::System, Cow::Borrowed("system"))
            })
        }
        _ => {
            let Some(m) = raw.message else {
                return Err(missing(n, format!("a `{ty}` line without `message`")));
            };
            let c = match m.content {
                Some(MaybeContent::Content(c)) => c,
                Some(MaybeContent::Bad(what)) => return Err(bad_content(b, n, what)),
                None => Content::default(),
            };
            for t in &c.unknown_types {
                notes.push(unknown(Code::UnknownBlock, n, "content block type", t));
            }
            let assistant = ty == "assistant";
            let only_results = c.blocks.tool_result > 0 && c.blocks.text == 0 && c.blocks.image == 0;
            let meta = raw.is_meta == Some(true);
            let model = cow(m.model);
            let synthetic = model.as_deref() == Some(SYNTHETIC_MODEL);
            let (role, role_name) = match () {
                // Made up by Claude Code (an API error, an interruption): no model call.
                _ if assistant && synthetic => (Role::Other, "synthetic"),
                _ if assistant => (Role::Assistant, "assistant"),
                _ if only_results => (Role::ToolResult, "toolResult"),
                // Context Claude Code injected (command output, reminders): sent to the
                // model, but nothing the user typed, so it starts no run.
                _ if meta => (Role::Other, "meta"),
                _ => (Role::User, "user"),
            };
            if raw.is_compact_summary == Some(true) {
                push_lean(&mut hints, (COMPACT_SUMMARY, Cow::Borrowed("1")));
            }
            if role == Role::ToolResult {
                if let Some(s) = raw.source_tool {
                    push_lean(&mut hints, (SOURCE_TOOL, s.0));
                }
                if let Some(agent) = raw.tool_use_result.and_then(agent_of) {
                    push_lean(&mut hints, (AGENT, agent));
                }
            }
            if assistant && !synthetic {
                if let Some(id) = &m.id {
                    let key = match &raw.request_id {
                        Some(r) => Cow::Owned([id.0.as_ref(), r.0.as_ref()].join("\u{1}")),
                        None => id.0.clone(),
                    };
                    push_lean(&mut hints, (CALL, key));
                }
            }
            Some(Message {
                blocks: c.blocks,
                tool_calls: c.tool_calls,
                tool_results: c.tool_results,
                reply: Reply {
                    provider: None,
                    model,
                    // A made-up message is no model call: it used nothing.
                    usage: if assistant && !synthetic { m.usage.map(usage) } else { None },
                    stop_reason: cow(m.stop_reason),
                }
                .boxed(),
                ..Message::with_role(role, Cow::Borrowed(role_name))
            })
        }
    };
    let entry = {
        let mut e = Entry::new(n, 0..0, kind, Id::from_text(uuid.0));
        e.set_parent(parent);
        e.timestamp = raw.timestamp.ms().into();
        e.message = message.map(Box::new);
        e.extra = (!hints.is_empty() || compaction.is_some())
            .then(|| Box::new(crate::model::Extra { hints, compaction, ..Default::default() }));
        // After the box: a line of 4 GiB or more keeps its end there.
        e.set_span(line.span.clone());
        e
    }
    .named(ty);
    Ok((Record::Entry(entry), notes))
}

/// A message whose content is neither a string nor a list of blocks, explained with the
/// path and column a strict reading of the line gives.
fn bad_content(b: &str, n: u32, what: &str) -> Fail {
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow, rename = "message")]
        _message: Strict<'a>,
    }
    #[derive(Deserialize)]
    struct Strict<'a> {
        #[serde(borrow, rename = "content")]
        _content: Content<'a>,
    }
    let mut de = serde_json::Deserializer::from_str(b);
    let (column, message) = match serde_path_to_error::deserialize::<_, Line>(&mut de) {
        Err(e) => (Some(e.inner().column() as u32), format!("{}: {}", e.path(), super::clean(e.inner()))),
        Ok(_) => (None, format!("message.content: {what}, expected a string or an array of content blocks")),
    };
    Fail::Finding(Finding::at(Code::InvalidField, n, column, message))
}

/// A line that cannot be an entry for want of a field.
fn missing(n: u32, msg: impl Into<String>) -> Fail {
    Fail::Finding(Finding::at(Code::MissingField, n, None, msg))
}

fn parse_content<'a>(c: &'a RawValue, effort: Effort) -> std::result::Result<Content<'a>, Fail> {
    super::parse(c.get(), effort)
}

fn usage(u: RawUsage) -> Usage {
    let cache_write = num(u.cache_creation_input_tokens).unwrap_or(0);
    Usage {
        input: num(u.input_tokens).unwrap_or(0),
        output: num(u.output_tokens).unwrap_or(0),
        cache_read: num(u.cache_read_input_tokens).unwrap_or(0),
        cache_write,
        // A part of the cache writes: never more than their total.
        cache_write_1h: u.cache_creation.and_then(|c| c.one_hour).unwrap_or(0).min(cache_write),
        total: None,
        cost: None,
    }
}

/// The text of a user prompt or a compaction summary, read again from its line (only the
/// few lines that can title a session or summarize one are): a raw JSON string literal, or
/// decoded text when the line needed its lone surrogates repaired.
fn prompt_text<'a>(e: &Entry<'a>, bytes: &'a [u8]) -> Option<Text<'a>> {
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: Option<Msg<'a>>,
    }
    #[derive(Deserialize)]
    struct Msg<'a> {
        #[serde(borrow)]
        content: Option<&'a RawValue>,
    }
    let line = bytes.get(e.span())?;
    if let Some(l) = std::str::from_utf8(line).ok().and_then(|t| serde_json::from_str::<Line<'a>>(t).ok()) {
        return first_text(l.message?.content?).map(Text::Json);
    }
    let fixed = super::repair_lone_surrogates(line)?;
    let l: Line<'_> = serde_json::from_slice(&fixed).ok()?;
    let raw = first_text(l.message?.content?)?;
    Some(Text::Plain(Cow::Owned(Text::Json(raw).decode())))
}

/// The first text of a user message as a raw JSON string literal: the content itself when
/// it is a string, else its first `text` block.
fn first_text(c: &RawValue) -> Option<&str> {
    let s = c.get();
    if s.starts_with('"') {
        return Some(s);
    }
    let list: Vec<RawBlock> = serde_json::from_str(s).ok()?;
    list.into_iter()
        .find(|b| b.ty.as_ref().is_some_and(|t| t.0 == "text"))
        .and_then(|b| b.text)
        .map(RawValue::get)
        .filter(|t| t.starts_with('"'))
}

/// The sub-agent a tool result names; `toolUseResult` is often a string, and only `Task` /
/// `Agent` results name one.
fn agent_of(r: &RawValue) -> Option<Cow<'_, str>> {
    if !r.get().starts_with('{') || memchr::memmem::find(r.get().as_bytes(), b"\"agentId\"").is_none() {
        return None;
    }
    let t: RawToolUseResult = serde_json::from_str(r.get()).ok()?;
    t.agent_id.map(|a| a.0)
}

/// Whether a user message's text was typed: not a slash command or its output, and not the
/// marker Claude Code writes when a request is interrupted (`[Request interrupted by user]`,
/// `... for tool use]`). Only typed text titles a session.
fn is_prompt(text: &str) -> bool {
    let t = text.trim_start();
    ![
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<local-command-caveat>",
        "<command-args>",
        "[Request interrupted by user",
    ]
    .iter()
    .any(|tag| t.starts_with(tag))
}

/// The file-level pass (section 2.4), fed the lines in file order as the decode puts them
/// together: each line is merged, dropped or kept from what came before it, so the pass
/// keeps up with the decode; [`Stitch::finish`] re-hangs the kept entries and sets the header.
/// It works on the ids and tool call ids packed while each line was in cache (a UUID is 16
/// bytes compared in place) and never reads an id from the file.
struct Pass<'a> {
    bytes: &'a [u8],
    detail: Detail,
    /// Entries stay where they are: a line's slot is emptied when it is merged or dropped.
    keep: Vec<Option<Entry<'a>>>,
    /// Each line's own id, kept when the line is merged or dropped (lookups by id find it);
    /// a kept line's parent is on its entry.
    ids: Vec<Id<'a>>,
    /// Every line's tool uses, in entry order, and the first not yet read.
    uses: Vec<ToolUse<'a>>,
    next_use: usize,
    /// Where each line's tool uses go: the slot of the entry that keeps its message.
    owner: Vec<u32>,
    /// A removed line's id -> where its children go instead: an alias names the entry it was
    /// merged into; a dropped line names its own parent, to be followed further.
    /// (The table holds a position in `redirects`, so that its buckets stay small.)
    redirect: HashMap<Id<'a>, u32>,
    redirects: Vec<Link<'a>>,
    /// A response's call key -> its first line.
    calls: HashMap<Id<'a>, usize>,
    /// Tool call id -> the entry that issued it.
    issuer: HashMap<Id<'a>, usize>,
    /// What each issuer's results attached so far leave for the next.
    issued: Issued<'a>,
    kept_by_id: KeptById<'a>,
    /// Results waiting for the end of their line to be attached.
    pending_results: Vec<(usize, Option<Id<'a>>)>,
    /// The lines whose ids were made up (they name no conversation a summary can point to).
    made_up: Vec<u32>,
    custom_title: Option<Cow<'a, str>>,
    ai_title: Option<Cow<'a, str>>,
    /// `summary` lines: the text and the leaf it names.
    summaries: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    prompt_title: Option<Text<'a>>,
    created: Option<i64>,
    session: Option<Cow<'a, str>>,
    cwd: Option<Cow<'a, str>>,
}

const NO_OWNER: u32 = u32::MAX;

fn start<'a>(bytes: &'a [u8], detail: Detail) -> Box<dyn Stitch<'a> + 'a> {
    Box::new(Pass {
        bytes,
        detail,
        keep: Vec::new(),
        ids: Vec::new(),
        uses: Vec::new(),
        next_use: 0,
        owner: Vec::new(),
        redirect: HashMap::default(),
        redirects: Vec::new(),
        calls: HashMap::default(),
        issuer: HashMap::default(),
        issued: Issued::default(),
        kept_by_id: KeptById::new(),
        pending_results: Vec::new(),
        made_up: Vec::new(),
        custom_title: None,
        ai_title: None,
        summaries: Vec::new(),
        prompt_title: None,
        created: None,
        session: None,
        cwd: None,
    })
}

impl<'a> Stitch<'a> for Pass<'a> {
    fn feed(&mut self, d: &mut Decoded<'a>, part: Fed<'a>) {
        if self.keep.is_empty() {
            // Sized for the whole file up front: growing a map re-hashes every key in it,
            // and a long key's hash reads its text again.
            let n = part.expected.max(part.entries.len());
            self.keep.reserve(n);
            self.ids.reserve(n);
            self.owner.reserve(n);
            self.redirect.reserve(n / 4);
            self.redirects.reserve(n / 4);
            self.calls.reserve(n / 2);
            self.issuer.reserve(n / 4);
            self.issued.last_result.reserve(n / 4);
        }
        if self.session.is_none() || self.cwd.is_none() {
            session_and_cwd(&part.entries, self.bytes, (&mut self.session, &mut self.cwd));
        }
        let from = self.keep.len();
        self.ids.extend(part.entries.iter().map(|e| e.id.clone()));
        self.uses.extend(part.tools);
        self.keep.extend(part.entries.into_iter().map(Some));
        self.kept_by_id.grow(self.keep.len());
        for slot in from..self.keep.len() {
            self.line(d, slot);
        }
    }

    fn finish(self: Box<Self>, d: &mut Decoded<'a>) {
        let Pass {
            mut keep,
            ids,
            uses,
            owner,
            redirect,
            redirects,
            mut kept_by_id,
            made_up,
            custom_title,
            ai_title,
            summaries,
            prompt_title,
            created,
            session,
            cwd,
            ..
        } = *self;
        // Re-hang every kept entry under its nearest kept ancestor, on every worker: each
        // chain of removed lines was followed once, below. Sidechain entries whose parent is
        // kept in this file are noted, for the check below.
        let ends = chain_ends(&redirect, &redirects);
        let sidechains: Vec<usize> = keep
            .par_iter_mut()
            .enumerate()
            .filter_map(|(slot, e)| {
                let e = e.as_mut()?;
                let mut p = e.parent.take().map(|p| *p);
                if let Some(&at) = p.as_ref().and_then(|cur| redirect.get(cur)) {
                    p = ends[at as usize].clone();
                }
                let check = p.is_some() && e.hint(SIDECHAIN).is_some();
                e.set_parent(p);
                // Claude Code keeps nothing between the boundary and what it summarized: the
                // context after it is the summary, then what follows. Naming the summarized
                // entry (its parent) says exactly that.
                // The field, not `compaction_mut()`: the entry's parent is read beside it.
                if let Some(c) = e.extra.as_mut().and_then(|x| x.compaction.as_mut()) {
                    c.up_to = e.parent.as_deref().cloned();
                }
                check.then_some(slot)
            })
            .collect();
        // A sub-agent's first line names a line of its parent's file: it is the sub-agent's root.
        for slot in sidechains {
            let Some(k) = keep[slot].as_ref().and_then(|e| e.parent_named().cloned()) else { continue };
            if kept_by_id.get(&ids, &k).is_none() {
                if let Some(e) = keep[slot].as_mut() {
                    e.set_parent(None);
                    if let Some(c) = e.compaction_mut() {
                        c.up_to = None;
                    }
                }
            }
        }
        // The conversations `summary` lines name (`leafUuid`) that are in the file (as the
        // id of any line, links-only lines included, whose id is not made up).
        let present_leaves: FastSet<Id<'a>> = if summaries.is_empty() {
            FastSet::default()
        } else {
            let leaves: FastSet<Id<'a>> = summaries.iter().map(|(_, l)| Id::of_text(l)).collect();
            let made_up: FastSet<u32> = made_up.into_iter().collect();
            ids.iter()
                .enumerate()
                .filter(|(slot, k)| leaves.contains(k) && !made_up.contains(&(*slot as u32)))
                .map(|(_, k)| k.clone())
                .collect()
        };
        // Slots to positions among the kept entries; then the tool uses of the kept entries,
        // in the order a rebuild from the entries would give.
        let mut position = vec![u32::MAX; keep.len()];
        let mut kept = 0u32;
        for (slot, e) in keep.iter().enumerate() {
            if e.is_some() {
                position[slot] = kept;
                kept += 1;
            }
        }
        // In place: the entries are most of the memory.
        keep.retain(Option::is_some);
        d.entries = keep.into_iter().map(|e| e.expect("a kept entry")).collect();
        // (Only when the load lists them: the pass itself needed them either way.)
        let uses = if d.uses == super::Uses::Listed { uses } else { Vec::new() };
        d.tools = uses
            .into_par_iter()
            .filter_map(|mut u| {
                let at = *position.get(owner[u.entry as usize] as usize)?;
                u.entry = at;
                (at != u32::MAX).then_some(u)
            })
            .collect();
        // Calls before results within an entry; otherwise file order (stable).
        d.tools.par_sort_by_key(|u| (u.entry, u.side == ToolSide::Result));
        let entries = &d.entries;
        d.tools.par_iter_mut().filter(|u| u.side == ToolSide::Call).for_each(|u| {
            u.ran = entries[u.entry as usize].message.as_ref().is_some_and(|m| m.tools_ran());
        });
        let title = custom_title
            .map(Text::Plain)
            .or_else(|| ai_title.map(Text::Plain))
            .or_else(|| {
                summaries
                    .into_iter()
                    .rev()
                    .find(|(_, leaf)| present_leaves.contains(&Id::of_text(leaf)))
                    .map(|(s, _)| Text::Json(leak_borrow(&s)))
            })
            .or(prompt_title);
        if d.header.is_none() && (session.is_some() || !d.entries.is_empty()) {
            d.header = Some(Header {
                line: d.entries.first().map(|e| e.line).unwrap_or(1),
                span: 0..0,
                id: session,
                title,
                cwd,
                created,
                version: None,
                origin: None,
            });
        }
    }
}

impl<'a> Pass<'a> {
    /// The children of the removed line of id `key` go to `to` (the last such line wins).
    fn redirect_to(&mut self, key: Id<'a>, to: Link<'a>) {
        self.redirect.insert(key, self.redirects.len() as u32);
        self.redirects.push(to);
    }

    /// Stitch the line in `slot`: every earlier line is stitched, no later one is.
    fn line(&mut self, d: &mut Decoded<'a>, slot: usize) {
        let (bytes, detail) = (self.bytes, self.detail);
        let id_key = self.ids[slot].clone();
        // Each slot is visited once, before anything else empties it.
        let mut e = self.keep[slot].take().expect("a slot not yet visited");
        if e.synthetic_id() {
            self.made_up.push(slot as u32);
        }
        if let Some(a) = e.hint(AGENT).map(|a| a.to_string()) {
            e.extra_mut().subagent = Some(a);
        }
        // This line's tool uses (they are in entry order).
        let first_use = self.next_use;
        while self.uses.get(self.next_use).is_some_and(|u| u.entry as usize == slot) {
            self.next_use += 1;
        }
        let line_uses = &self.uses[first_use..self.next_use];
        let call_keys = || line_uses.iter().filter(|u| u.side == ToolSide::Call).filter_map(|u| u.key.clone());
        let mut parent = e.parent.take().map(|p| *p);
        self.created = self.created.or(e.timestamp.get());
        if e.hint(DROP).is_some() {
            if let Some(t) = e.hint(CUSTOM_TITLE) {
                self.custom_title = Some(t.clone());
            }
            if let Some(t) = e.hint(AI_TITLE) {
                self.ai_title = Some(t.clone());
            }
            if let (Some(s), Some(l)) = (e.hint(SUMMARY), e.hint(SUMMARY_LEAF)) {
                self.summaries.push((s.clone(), l.clone()));
            }
            d.others += 1;
            self.redirect_to(id_key, parent);
            self.owner.push(NO_OWNER);
            return;
        }
        let sidechain = e.hint(SIDECHAIN).is_some();
        // A response written one block per line: merge into its first line's entry.
        if let Some(key) = e.take_hint(CALL).map(Id::from_text) {
            // One probe: the first line of a response is noted, a later one finds it.
            let first = match self.calls.entry(key) {
                std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(slot);
                    None
                }
            };
            if let Some(first) = first {
                let same_chain = self.keep[first].as_ref().is_some_and(|f| f.hint(SIDECHAIN).is_some() == sidechain);
                if same_chain {
                    for c in call_keys() {
                        self.issuer.insert(c, first);
                    }
                    let target = self.keep[first].as_mut().expect("a kept entry");
                    self.kept_by_id.keep(slot, &id_key, (first, target.kind()));
                    merge_response(target, e);
                    let alias = Some(target.id.clone());
                    self.redirect_to(id_key, alias);
                    self.owner.push(first as u32);
                    return;
                }
                // A copy of a response of the other chain (a sidechain repeating a main-chain
                // message): the first copy is the call; this one is no entry of its own.
                self.redirect_to(id_key, parent);
                self.owner.push(NO_OWNER);
                return;
            }
        }
        // The summary that follows a compact boundary is part of that compaction.
        if e.hint(COMPACT_SUMMARY).is_some() {
            let boundary = parent.as_ref().and_then(|p| self.kept_by_id.compaction(p));
            let text = prompt_text(&e, bytes);
            match boundary.filter(|&b| self.keep[b].as_ref().is_some_and(|b| b.kind() == Kind::Compaction)) {
                Some(b_ix) => {
                    let b = self.keep[b_ix].as_mut().expect("a kept entry");
                    let c = b.extra_mut().compaction.get_or_insert_with(Default::default);
                    if c.summary.is_none() {
                        c.summary = text;
                        b.extra_mut().more_spans.push(e.span());
                        let alias = Some(b.id.clone());
                        self.redirect_to(id_key, alias);
                        self.owner.push(NO_OWNER);
                        return;
                    }
                }
                None => {
                    // No boundary line (older files): the summary line is the compaction.
                    e.set_kind(Kind::Compaction);
                    e.message = None;
                    e.extra_mut().compaction = Some(Box::new(Compaction { summary: text, ..Compaction::default() }));
                }
            }
        }
        if e.kind() == Kind::Compaction {
            if let Some(lp) = e.hint(LOGICAL_PARENT).cloned() {
                parent = Some(Id::from_text(lp));
            }
        }
        if let Some(m) = &e.message {
            for c in call_keys() {
                self.issuer.insert(c, slot);
            }
            if m.role == Role::ToolResult {
                let first_result = line_uses.iter().filter(|u| u.side == ToolSide::Result).find_map(|u| u.key.clone());
                self.pending_results.push((slot, first_result));
            }
            if m.role == Role::User && !sidechain && self.prompt_title.is_none() {
                if let Some(text) = prompt_text(&e, bytes) {
                    if is_prompt(&text.prefix(40).0) {
                        self.prompt_title = Some(text);
                    }
                }
            }
        }
        self.owner.push(if e.message.is_some() { slot as u32 } else { NO_OWNER });
        self.kept_by_id.keep(slot, &id_key, (slot, e.kind()));
        e.set_parent(parent);
        self.keep[slot] = Some(e);
        // Results are attached once their issuer is known (it always precedes them).
        for r in self.pending_results.drain(..) {
            attach_result(&mut self.keep, &self.ids, r, &self.issuer, &mut self.kept_by_id, &mut self.issued, detail);
        }
    }
}

/// The session id and the working directory, each from the first line, in file order, that
/// has it (lines after the first that has both are not read). Only lines that can hold the
/// keys are read (a key written with escapes can hide from the byte search: a `\u` anywhere
/// sends the line to the parser too).
fn session_and_cwd<'a>(
    entries: &[Entry<'a>],
    bytes: &'a [u8],
    (session, cwd): (&mut Option<Cow<'a, str>>, &mut Option<Cow<'a, str>>),
) {
    #[derive(Deserialize)]
    struct Ids<'a> {
        #[serde(borrow, rename = "sessionId")]
        session_id: Option<Str<'a>>,
        #[serde(borrow)]
        cwd: Option<Str<'a>>,
    }
    for e in entries {
        if session.is_some() && cwd.is_some() {
            break;
        }
        let Some(line) = bytes.get(e.span()) else { continue };
        let escaped = memchr::memmem::find(line, b"\\u").is_some();
        let wanted = |key: &[u8]| escaped || memchr::memmem::find(line, key).is_some();
        if !((session.is_none() && wanted(b"\"sessionId\"")) || (cwd.is_none() && wanted(b"\"cwd\""))) {
            continue;
        }
        // The line decoded once, so it is valid JSON, unless it needed its lone surrogates
        // repaired (then its strings are owned).
        let ids: Option<Ids<'_>> = match std::str::from_utf8(line).ok().and_then(|t| serde_json::from_str(t).ok()) {
            Some(ids) => Some(ids),
            None => super::repair_lone_surrogates(line)
                .and_then(|fixed| {
                    serde_json::from_slice::<Ids<'_>>(&fixed).ok().map(|i| (owned(i.session_id), owned(i.cwd)))
                })
                .map(|(s, c)| Ids { session_id: s, cwd: c }),
        };
        let Some(ids) = ids else { continue };
        if session.is_none() {
            *session = ids.session_id.map(|s| s.0);
        }
        if cwd.is_none() {
            *cwd = ids.cwd.map(|c| c.0);
        }
    }
}

fn owned(s: Option<Str<'_>>) -> Option<Str<'static>> {
    s.map(|s| Str(Cow::Owned(s.0.into_owned())))
}

/// Hints that hold raw JSON text borrow from the line; a `Text::Json` needs that borrow back.
fn leak_borrow<'a>(c: &Cow<'a, str>) -> &'a str {
    match c {
        Cow::Borrowed(s) => s,
        // Raw JSON literals are always borrowed from the line; an owned one (never made by
        // the decode) is given the program's lifetime rather than dropped.
        Cow::Owned(s) => Box::leak(s.clone().into_boxed_str()),
    }
}

/// Fold a later line of a response into the entry of its first line.
fn merge_response<'a>(target: &mut Entry<'a>, e: Entry<'a>) {
    target.extra_mut().more_spans.push(e.span());
    let (Some(t), Some(mut m)) = (target.message.as_mut(), e.message) else { return };
    let b = &mut t.blocks;
    b.text += m.blocks.text;
    b.thinking += m.blocks.thinking;
    b.image += m.blocks.image;
    b.tool_call += m.blocks.tool_call;
    b.tool_result += m.blocks.tool_result;
    b.server_compaction += m.blocks.server_compaction;
    b.server_tool += m.blocks.server_tool;
    b.unknown += m.blocks.unknown;
    t.tool_calls.append(&mut m.tool_calls);
    t.tool_results.append(&mut m.tool_results);
    // Every line repeats the response's usage: keep one copy, the most complete.
    let Some(from) = m.reply.take() else { return };
    let to = t.reply_mut();
    to.usage = match (to.usage, from.usage) {
        (Some(a), Some(b)) => Some(if b.total() > a.total() { b } else { a }),
        (a, b) => a.or(b),
    };
    if from.stop_reason.is_some() {
        to.stop_reason = from.stop_reason;
    }
    if to.model.is_none() {
        to.model = from.model;
    }
}

/// Hang a tool result under the entry that issued its call (or the previous result of the
/// same entry, so that parallel results stay one chain), whatever its `parentUuid` says.
fn attach_result<'a>(
    keep: &mut [Option<Entry<'a>>],
    ids: &[Id<'a>],
    (r, call): (usize, Option<Id<'a>>),
    issuer: &HashMap<Id<'a>, usize>,
    kept_by_id: &mut KeptById<'a>,
    issued: &mut Issued<'a>,
    detail: Detail,
) {
    let Some(entry) = keep[r].as_ref() else { return };
    // The call id decides; the line's own pointer to its issuer only when no call matches.
    let by_call = call.and_then(|c| issuer.get(&c)).copied();
    let from = by_call.or_else(|| entry.hint(SOURCE_TOOL).and_then(|s| kept_by_id.get(ids, &Id::of_text(s))));
    // An issuer precedes its results (the attachment waits for it).
    let Some(from) = from.filter(|&f| f < r) else { return };
    let under = issued.last_result.get(&from).copied().unwrap_or(from);
    let Some(parent_id) = keep[under].as_ref().map(|p| p.id.clone()) else { return };
    let (before, rest) = keep.split_at_mut(r);
    let Some(e) = rest[0].as_mut() else { return };
    e.set_parent(Some(parent_id));
    issued.last_result.insert(from, r);
    if !detail.keeps_messages() {
        // The messages are let go after the pass: no view shows the names.
        return;
    }
    // Name the tool: Claude Code's results only carry the call id.
    let calls =
        before[from].as_ref().and_then(|f| f.message.as_ref()).map(|m| m.tool_calls.as_slice()).unwrap_or_default();
    if let Some(m) = e.message.as_mut() {
        for t in m.tool_results.iter_mut().filter(|t| t.tool_name.is_none()) {
            let call = t.call_id.as_deref().and_then(|id| issued.find(from, calls, id));
            t.tool_name = call.and_then(|k| calls[k].name.clone());
        }
    }
}

/// Per issuer of tool calls (by slot), what the results attached to it so far leave for the
/// next.
#[derive(Default)]
struct Issued<'a> {
    /// The last result attached, so that parallel results form a chain.
    last_result: HashMap<usize, usize>,
    /// For an issuer of many calls: how many of its calls are indexed (a response merged from
    /// several lines gains calls as they come), and the first call of each id, so that each
    /// result is named by one probe instead of a search of every call (one response of
    /// 80,000 calls, answered one result at a time, took 8 s). An issuer of few is searched.
    calls: HashMap<usize, (usize, HashMap<Cow<'a, str>, usize>)>,
}

impl<'a> Issued<'a> {
    /// Calls an issuer may have and still be searched.
    const FEW: usize = 32;

    /// The place among `calls`, the calls of the issuer in slot `from`, of the first whose
    /// id is `id`.
    fn find(&mut self, from: usize, calls: &[ToolCall<'a>], id: &str) -> Option<usize> {
        if calls.len() <= Self::FEW {
            return calls.iter().position(|c| c.id.as_deref() == Some(id));
        }
        let (indexed, by_id) = self.calls.entry(from).or_default();
        for (k, c) in calls.iter().enumerate().skip(*indexed) {
            if let Some(c) = &c.id {
                by_id.entry(c.clone()).or_insert(k);
            }
        }
        *indexed = calls.len();
        by_id.get(id).copied()
    }
}

/// Where the children of each removed line go (by its place in `redirects`): up its chain of
/// redirects to the first id that is not a removed line's (a kept entry's, or one the file
/// does not have), or to none (a root). Each link is followed once, whatever the shape: a
/// long run of removed lines under many kept entries took a walk of the whole run per entry
/// (40,000 lines, 9 s). A chain that loops (removed lines naming each other, which Claude Code
/// never writes) ends at the removed line where the loop closes, walked from the first of
/// them in the file: its children name a line that is not kept, and are told so.
fn chain_ends<'a>(redirect: &HashMap<Id<'a>, u32>, redirects: &[Link<'a>]) -> Vec<Link<'a>> {
    /// Not reached yet; on the walk under way; its end known.
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; redirects.len()];
    let mut ends: Vec<Link<'a>> = vec![None; redirects.len()];
    let mut walk = Vec::new();
    for start in 0..redirects.len() {
        if state[start] == DONE {
            continue;
        }
        state[start] = OPEN;
        walk.push(start);
        let mut p = redirects[start].clone();
        while let Some(&next) = p.as_ref().and_then(|id| redirect.get(id)) {
            let next = next as usize;
            match state[next] {
                DONE => {
                    p = ends[next].clone();
                    break;
                }
                // The loop closes at `p`.
                OPEN => break,
                _ => {
                    state[next] = OPEN;
                    walk.push(next);
                    p = redirects[next].clone();
                }
            }
        }
        for at in walk.drain(..) {
            ends[at] = p.clone();
            state[at] = DONE;
        }
    }
    ends
}

/// Id -> the line that keeps the last line of that id: its own, or the entry it was merged
/// into. The whole map is built on first use, from what each line recorded: few files ask it
/// (sub-agent roots, results whose call id matches no call), and a map of every line's id is
/// a table of tens of MB filled at random. What every compacted file asks, whether an id is
/// kept by a compaction, has a map of its own: of the ids ever kept by one.
struct KeptById<'a> {
    /// Per line: the line that keeps it, or [`KeptById::NONE`].
    by: Vec<u32>,
    map: Option<HashMap<Id<'a>, usize>>,
    /// The ids some line of which was kept by a compaction -> the keeper of the last line of
    /// that id (which may since be a line of another kind).
    compactions: HashMap<Id<'a>, usize>,
}

impl<'a> KeptById<'a> {
    const NONE: u32 = u32::MAX;

    fn new() -> Self {
        KeptById { by: Vec::new(), map: None, compactions: HashMap::default() }
    }

    /// Room for the lines up to `lines`, none of them kept yet.
    fn grow(&mut self, lines: usize) {
        self.by.resize(lines.max(self.by.len()), Self::NONE);
    }

    /// Line `slot`, of id `key`, is kept by line `by`, of kind `kind`.
    fn keep(&mut self, slot: usize, key: &Id<'a>, (by, kind): (usize, Kind)) {
        self.by[slot] = by as u32;
        if let Some(map) = &mut self.map {
            map.insert(key.clone(), by);
        }
        if kind == Kind::Compaction {
            self.compactions.insert(key.clone(), by);
        } else if let Some(keeper) = self.compactions.get_mut(key) {
            *keeper = by;
        }
    }

    /// [`KeptById::get`] when the answer is wanted only if it is a compaction: `None` when
    /// the keeper cannot be one (the caller checks the kind of what it gets).
    fn compaction(&self, key: &Id<'a>) -> Option<usize> {
        self.compactions.get(key).copied()
    }

    /// The line keeping the last line recorded with id `key` (`ids` holds each line's id).
    fn get(&mut self, ids: &[Id<'a>], key: &Id<'a>) -> Option<usize> {
        let by = &self.by;
        let map = self.map.get_or_insert_with(|| {
            let mut map = HashMap::default();
            for (slot, &b) in by.iter().enumerate().filter(|(_, &b)| b != Self::NONE) {
                map.insert(ids[slot].clone(), b as usize);
            }
            map
        });
        map.get(key).copied()
    }
}

/// Where an entry hangs: its parent's id (`None` for a root).
type Link<'a> = Option<Id<'a>>;

/// A message's content blocks, from every line of the entry in file order. A system line
/// keeps its text at the top level; a compaction's summary line is its text.
pub fn content(_: &Entry<'_>, lines: &[Value]) -> content::Content {
    let mut out = content::Content::default();
    for l in lines {
        let body = l.pointer("/message/content").or_else(|| l.get("content")).unwrap_or(&Value::Null);
        out.blocks.extend(blocks::list(body));
        if l.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) && out.error.is_none() {
            out.error = out.blocks.iter().find_map(|b| match b {
                Block::Text(t) => Some(t.clone()),
                _ => None,
            });
        }
    }
    out
}

/// [`content`] counted ([`Decoder::tally`]): each line's `message.content`, else its
/// top-level `content`.
fn tally(lines: &[&str]) -> Option<content::Tally> {
    let mut t = content::Tally::default();
    for l in lines {
        let l = tally::line_tally(l)?;
        let c = if l.message.has_content { l.message.content } else { l.content };
        t.thinking += c.thinking;
        t.has_thinking |= c.has_thinking;
        t.other += c.other;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member the derived `Deserialize` reads, the walk reads too, in the line and in
    /// its message and usage.
    #[test]
    fn the_walk_reads_every_member_serde_reads() {
        use crate::format::skim::tests::{struct_fields, walks_whole};
        let lines = (struct_fields::<RawLine>().iter().map(|f| format!(r#"{{"{f}":null}}"#)))
            .chain(struct_fields::<RawMessage>().iter().map(|f| format!(r#"{{"message":{{"{f}":null}}}}"#)))
            .chain(struct_fields::<RawUsage>().iter().map(|f| format!(r#"{{"message":{{"usage":{{"{f}":null}}}}}}"#)));
        for line in lines {
            walks_whole(&line, |w| RawLine::walk(w, &mut RawLine::default()));
        }
    }

    /// The walk takes nearly every line of the real sessions (the serde path reads the rest).
    #[test]
    fn the_walk_takes_the_common_lines() {
        let (mut lines, mut taken) = (0, 0);
        for path in crate::test_corpus::session_files() {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(source) = crate::source::Source::from_bytes("t.jsonl", bytes.clone()) else { continue };
            if !matches!(super::super::detect(&source), Ok(crate::model::Format::Claude)) {
                continue;
            }
            for l in String::from_utf8_lossy(&bytes).lines() {
                lines += 1;
                let walk = |w: &mut super::super::skim::Walk<'_>| RawLine::walk(w, &mut RawLine::default());
                taken += usize::from(super::super::skim::Walk::line(l, walk).is_some());
            }
        }
        assert!(lines > 200 && taken * 10 > lines * 9, "{taken} of {lines} lines walked");
    }

    fn sniff(b: &[u8]) -> bool {
        super::super::Probe::of(b).is_some_and(|p| signature(&p))
    }

    #[test]
    fn only_an_object_carries_the_signature() {
        assert!(sniff(br#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user"}"#));
        assert!(sniff(br#"{"type":"file-history-snapshot","messageId":"m"}"#));
        // An array fills a derived probe field by field: `[null, 1, "1", {}]` is no signature.
        assert!(!sniff(br#"[null, 1, "1", {}]"#));
        assert!(!sniff(br#"{"uuid":"u","sessionId":"s"}"#), "parentUuid must be there, even null");
    }

    /// The 1-hour part of the cache writes is read when it is a count, capped at the writes,
    /// and anything else in its place (or a key written twice) counts 0, never damage; both
    /// parsers agree.
    #[test]
    fn the_one_hour_cache_split_is_read_leniently() {
        for (split, want) in [
            (r#"{"ephemeral_1h_input_tokens":30}"#, 30),
            (r#"{"ephemeral_5m_input_tokens":70,"ephemeral_1h_input_tokens":30,"x":{"y":[1]}}"#, 30),
            (r#"{"ephemeral_1h_input_tokens":300}"#, 100),
            (r#"{"ephemeral_1h_input_tokens":30.0}"#, 30),
            (r#"{"ephemeral_1h_input_tokens":null}"#, 0),
            (r#"{"ephemeral_1h_input_tokens":"30"}"#, 0),
            (r#"{"ephemeral_1h_input_tokens":-1}"#, 0),
            (r#"{"ephemeral_1h_input_tokens":{"n":30}}"#, 0),
            (r#"{"ephemeral_1h_input_tokens":1,"ephemeral_1h_input_tokens":2}"#, 0),
            (r#"{}"#, 0),
            (r#"[30]"#, 0),
            (r#"30"#, 0),
            (r#""30""#, 0),
            (r#"null"#, 0),
        ] {
            let text = format!(r#"{{"input_tokens":1,"cache_creation_input_tokens":100,"cache_creation":{split}}}"#);
            let full: RawUsage = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{split}: {e}"));
            assert_eq!(usage(full).cache_write_1h, want, "{split} (serde_json)");
            // The skimmer declines a key written twice; serde_json then has the last word.
            if let Ok(skimmed) = super::super::skim::from_str::<RawUsage>(&text) {
                assert_eq!(usage(skimmed).cache_write_1h, want, "{split} (skimmer)");
            }
        }
    }

    /// The fold hands over tool uses of its own making, from those listed while decoding:
    /// they must be what a rebuild from the folded entries gives, on every Claude Code file
    /// of the testdata and of the real corpus.
    #[test]
    fn folded_tool_uses_are_a_rebuild_of_the_entries() {
        let files = crate::test_corpus::session_files();
        let mut inputs: Vec<(String, Vec<u8>)> =
            files.iter().map(|f| (f.display().to_string(), std::fs::read(f).unwrap())).collect();
        // Big enough to be decoded in parts: lines without a uuid (titles) get ids made from
        // their line numbers once the parts are placed, and their keys must follow.
        let mut big = String::new();
        for k in 0..2500u32 {
            let parent =
                if k == 0 { "null".to_string() } else { format!(r#""{:08x}-0000-4000-8000-{:012x}""#, k - 1, k - 1) };
            big += &format!(r#"{{"type":"custom-title","customTitle":"t{k}","sessionId":"s"}}"#);
            big += "\n";
            big += &format!(
                r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","uuid":"{k:08x}-0000-4000-8000-{k:012x}","sessionId":"s","timestamp":"2026-02-11T10:00:00.000Z","message":{{"role":"user","content":"{}"}}}}"#,
                "x".repeat(2000)
            );
            big += "\n";
        }
        assert!(big.len() > super::super::PARALLEL_MIN_BYTES);
        inputs.push(("generated".to_string(), big.into_bytes()));
        let (mut checked, mut uses) = (0, 0);
        for (f, bytes) in inputs {
            let src = crate::source::Source::from_bytes("t", bytes).unwrap();
            let Ok(d) = super::super::decode(&src, None, super::super::Detail::Full, super::super::Uses::Listed) else {
                continue;
            };
            if d.format != crate::model::Format::Claude {
                continue;
            }
            let mut tools = Vec::new();
            for (ix, e) in d.entries.iter().enumerate() {
                super::super::push_tool_uses(&mut tools, ix as u32, e);
            }
            fn flat<'k>(t: &[crate::model::ToolUse<'k>]) -> Vec<(u32, ToolSide, Option<Id<'k>>, bool)> {
                t.iter().map(|u| (u.entry, u.side, u.key.clone(), u.ran)).collect()
            }
            assert_eq!(flat(&tools), flat(&d.tools), "{f}: tool uses");
            checked += 1;
            uses += tools.len();
        }
        assert!(checked >= 8 && uses >= 50, "{checked} files, {uses} tool uses");
    }

    /// The lazily built keeper map and the compactions' map answer as one map filled at
    /// every line would: ids repeated by later lines (of other kinds, kept or merged), asked
    /// before and after the whole map is built, at every step.
    #[test]
    fn keepers_are_those_of_a_map_filled_at_every_line() {
        let ids = ["a", "b", "c", "a", "d", "b", "a", "c", "e", "a"];
        // (keeper offset back from the line, the keeper's kind); none: the line is removed.
        let kinds = [Kind::Compaction, Kind::Message, Kind::Compaction, Kind::Message, Kind::Label];
        let key = |t: &'static str| Id::of_text(&Cow::Borrowed(t));
        let line_ids: Vec<Id<'static>> = ids.iter().map(|i| key(i)).collect();
        for build_at in 0..=ids.len() {
            let mut lazy = KeptById::new();
            let mut eager: HashMap<Id<'static>, usize> = HashMap::default();
            let mut kind_of = vec![Kind::Message; ids.len()];
            for (slot, id) in ids.iter().enumerate() {
                // Lines arrive one part at a time: here, a line at a time.
                lazy.grow(slot + 1);
                let key = key(id);
                if slot == build_at {
                    assert_eq!(lazy.get(&line_ids, &key), eager.get(&key).copied());
                }
                if slot % 4 != 3 {
                    let by = slot - (slot % 3).min(slot);
                    if by == slot {
                        kind_of[slot] = kinds[slot % kinds.len()];
                    }
                    lazy.keep(slot, &key, (by, kind_of[by]));
                    eager.insert(key.clone(), by);
                }
                for probe in ["a", "b", "c", "d", "e", "f"].map(|t| Id::of_text(&Cow::Borrowed(t))) {
                    let want = eager.get(&probe).copied().filter(|&b| kind_of[b] == Kind::Compaction);
                    let got = lazy.compaction(&probe).filter(|&b| kind_of[b] == Kind::Compaction);
                    assert_eq!(got, want, "compaction keeper of {probe:?} after line {slot}");
                    if slot >= build_at {
                        assert_eq!(lazy.get(&line_ids, &probe), eager.get(&probe).copied(), "{probe:?} after {slot}");
                    }
                }
            }
        }
    }

    /// A response split over lines runs its tool calls only if the response as a whole did:
    /// a call on its first line is not run when a later line says the turn was refused.
    #[test]
    fn a_split_response_that_ends_refused_runs_none_of_its_calls() {
        let line = |uuid: &str, parent: &str, content: &str, stop: &str| {
            format!(
                r#"{{"parentUuid":{parent},"isSidechain":false,"type":"assistant","uuid":"{uuid}","sessionId":"s","timestamp":"2026-02-11T10:00:00.000Z","requestId":"req_1","message":{{"id":"msg_1","model":"m","role":"assistant","content":[{content}],"stop_reason":{stop},"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
            )
        };
        let text = [
            r#"{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u0","sessionId":"s","timestamp":"2026-02-11T10:00:00.000Z","message":{"role":"user","content":"go"}}"#.to_string(),
            line("a1", r#""u0""#, r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}"#, "null"),
            line("a2", r#""a1""#, r#"{"type":"text","text":"no"}"#, r#""refusal""#),
        ]
        .join("\n");
        let src = crate::source::Source::from_bytes("t", text.into_bytes()).unwrap();
        let d = super::super::decode(&src, None, super::super::Detail::Full, super::super::Uses::Listed).unwrap();
        assert_eq!(d.entries.len(), 2);
        let calls: Vec<_> = d.tools.iter().filter(|u| u.side == ToolSide::Call).map(|u| (u.entry, u.ran)).collect();
        assert_eq!(calls, vec![(1, false)]);
    }
}
