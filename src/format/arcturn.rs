//! The arcturn format (FORMATS.md section 1): a `session` header, then entries of kind
//! `message`, `compaction`, `label` and `state` with string ids and `parentId`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::blocks::{self, str_of};
use super::de::{cow, num, present, text_of, Content, Count, Float, IdDe, Num, Str, Ts};
use super::skim::{members, Walk};
use super::tally;
use super::{push_lean, unknown, Decoder, Effort, LineResult, Record};
use crate::content::{self, Block};
use crate::finding::{Code, Finding};
use crate::model::{Compaction, ContextEdit, Entry, Header, Kind, Message, Reply, Role, State, ToolResult};
use crate::source::Line;

pub const DECODER: Decoder = Decoder {
    decode,
    explain,
    fold: None,
    line_messages: true,
    content,
    content_keys: &["message"],
    direct: Some(super::direct::arcturn),
    tally: Some(tally),
    rekeyed: false,
    observed: false,
    header_expected: true,
    is_prompt: super::any_prompt,
};

/// A message's content: its blocks; a `toolResult` message is one tool result block.
pub fn content(_: &Entry<'_>, lines: &[Value]) -> content::Content {
    let Some(m) = lines.first().and_then(|l| l.get("message")) else { return content::Content::default() };
    let body = m.get("content").unwrap_or(&Value::Null);
    let error = m.get("errorMessage").and_then(Value::as_str).map(str::to_string);
    if m.get("role").and_then(Value::as_str) == Some("toolResult") {
        let details = m.get("details");
        let offloaded = details.and_then(|d| d.get("offloaded")).and_then(Value::as_bool) == Some(true);
        let result = content::ToolResult {
            call_id: str_of(m, "toolCallId"),
            tool_name: str_of(m, "toolName"),
            is_error: m.get("isError").and_then(Value::as_bool).unwrap_or(false),
            content: blocks::list(body),
            offloaded_path: if offloaded { details.and_then(|d| str_of(d, "path")) } else { None },
        };
        return content::Content { blocks: vec![Block::ToolResult(result)], error };
    }
    content::Content { blocks: blocks::list(body), error }
}

/// [`content()`] counted ([`Decoder::tally`]): the first line's `message.content`, all of it
/// inside one tool result when the role is `toolResult`.
fn tally(lines: &[&str]) -> Option<content::Tally> {
    let m = tally::line_tally(lines.first()?)?.message;
    Some(if m.tool_result { content::Tally { other: m.content.nested(), ..Default::default() } } else { m.content })
}

fn explain<'a>(b: &'a [u8]) -> Option<String> {
    super::explain_with::<RawLine<'a>>(b)
}

#[derive(Deserialize, Default)]
struct RawLine<'a> {
    #[serde(borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<IdDe<'a>>,
    #[serde(borrow, rename = "parentId", default, deserialize_with = "present")]
    parent_id: Option<Option<IdDe<'a>>>,
    #[serde(default)]
    timestamp: Ts,
    /// Boxed: a line's record is moved several times on its way out of the parser (about 1.4%
    /// of `check`'s instructions when the message, 432 of its 792 bytes, was moved with it).
    #[serde(borrow)]
    message: Option<Box<RawMessage<'a>>>,
    // compaction
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, rename = "upToId")]
    up_to_id: Option<IdDe<'a>>,
    #[serde(rename = "tokensBefore")]
    tokens_before: Option<Num>,
    #[serde(rename = "tokensAfter")]
    tokens_after: Option<Num>,
    #[serde(rename = "stripTailThinking")]
    strip_tail_thinking: Option<bool>,
    // label
    #[serde(borrow)]
    label: Option<&'a RawValue>,
    // state
    #[serde(borrow)]
    todos: Option<&'a RawValue>,
    #[serde(borrow)]
    plan: Option<&'a RawValue>,
    #[serde(borrow)]
    model: Option<&'a RawValue>,
    #[serde(borrow, rename = "contextEdit")]
    context_edit: Option<RawContextEdit<'a>>,
    // header
    #[serde(borrow)]
    title: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    version: Option<Num>,
}

/// A message payload; pi writes the same shape.
#[derive(Deserialize, Default)]
pub(super) struct RawMessage<'a> {
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow, default)]
    content: Content<'a>,
    #[serde(default)]
    timestamp: Ts,
    #[serde(borrow)]
    provider: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    usage: Option<RawUsage>,
    #[serde(borrow, rename = "stopReason")]
    stop_reason: Option<Str<'a>>,
    #[serde(borrow, rename = "toolCallId")]
    tool_call_id: Option<Str<'a>>,
    #[serde(borrow, rename = "toolName")]
    tool_name: Option<Str<'a>>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    #[serde(borrow)]
    details: Option<&'a RawValue>,
    #[serde(rename = "excludeFromContext")]
    exclude_from_context: Option<bool>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawUsage {
    input: Option<Count>,
    output: Option<Count>,
    #[serde(rename = "cacheRead")]
    cache_read: Option<Count>,
    #[serde(rename = "cacheWrite")]
    cache_write: Option<Count>,
    #[serde(rename = "totalTokens")]
    total_tokens: Option<Count>,
    cost: Option<RawCost>,
}

#[derive(Deserialize, Default)]
struct RawCost {
    total: Option<Float>,
}

#[derive(Deserialize)]
struct RawContextEdit<'a> {
    #[serde(borrow, default)]
    elided: Vec<Str<'a>>,
    #[serde(borrow, rename = "withholdThinking")]
    withhold_thinking: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct RawDetails<'a> {
    offloaded: Option<bool>,
    #[serde(borrow)]
    path: Option<Str<'a>>,
}

impl<'a> RawLine<'a> {
    /// The members of a line's object, walked by hand ([`super::read_into`]): what the derived
    /// `Deserialize` reads from the skimmer, or `None` for the serde path to read the line.
    fn walk(w: &mut Walk<'a>, l: &mut RawLine<'a>) -> Option<()> {
        members!(w, {
            "kind" => l.kind = Str::walk(w)?,
            "type" => l.ty = Str::walk(w)?,
            "id" => l.id = IdDe::walk(w)?,
            "parentId" => l.parent_id = Some(IdDe::walk(w)?),
            "timestamp" => l.timestamp = Ts::walk(w)?,
            "message" => l.message = w.nested(RawMessage::walk)?,
            "summary" => l.summary = w.value()?,
            "upToId" => l.up_to_id = IdDe::walk(w)?,
            "tokensBefore" => l.tokens_before = Num::walk(w)?,
            "tokensAfter" => l.tokens_after = Num::walk(w)?,
            "stripTailThinking" => l.strip_tail_thinking = w.value()?,
            "label" => l.label = w.value()?,
            "todos" => l.todos = w.value()?,
            "plan" => l.plan = w.value()?,
            "model" => l.model = w.value()?,
            "contextEdit" => l.context_edit = w.value()?,
            "title" => l.title = w.value()?,
            "cwd" => l.cwd = Str::walk(w)?,
            "version" => l.version = Num::walk(w)?,
        });
        Some(())
    }
}

impl<'a> RawMessage<'a> {
    /// The message object at `w` ([`RawLine::walk`]).
    pub(super) fn walk(w: &mut Walk<'a>) -> Option<Box<RawMessage<'a>>> {
        w.object()?;
        let mut m = Box::<RawMessage>::default();
        if w.measures() {
            // A message without content counts nothing.
            m.content.tally = Some(content::Tally::default());
        }
        members!(w, {
            "role" => m.role = Str::walk(w)?,
            "content" => m.content = Content::walk(w)?,
            "timestamp" => m.timestamp = Ts::walk(w)?,
            "provider" => m.provider = Str::walk(w)?,
            "model" => m.model = Str::walk(w)?,
            "usage" => m.usage = w.nested(RawUsage::walk)?,
            "stopReason" => m.stop_reason = Str::walk(w)?,
            "toolCallId" => m.tool_call_id = Str::walk(w)?,
            "toolName" => m.tool_name = Str::walk(w)?,
            "isError" => m.is_error = w.value()?,
            "details" => m.details = w.value()?,
            "excludeFromContext" => m.exclude_from_context = w.value()?,
        });
        Some(m)
    }
}

impl RawUsage {
    fn walk(w: &mut Walk<'_>) -> Option<RawUsage> {
        w.object()?;
        let mut u = RawUsage::default();
        members!(w, {
            "input" => u.input = Count::walk(w)?,
            "output" => u.output = Count::walk(w)?,
            "cacheRead" => u.cache_read = Count::walk(w)?,
            "cacheWrite" => u.cache_write = Count::walk(w)?,
            "totalTokens" => u.total_tokens = Count::walk(w)?,
            "cost" => u.cost = w.nested(RawCost::walk)?,
        });
        Some(u)
    }
}

impl RawCost {
    fn walk(w: &mut Walk<'_>) -> Option<RawCost> {
        w.object()?;
        let mut c = RawCost::default();
        members!(w, {
            "total" => c.total = w.value()?,
        });
        Some(c)
    }
}

fn decode<'a>(b: &'a str, line: &Line, effort: Effort) -> LineResult<'a> {
    let mut raw = RawLine::default();
    super::read_into(b, effort, &mut raw, RawLine::walk)?;
    let n = line.number;
    let mut notes = Vec::new();
    let kind_name = raw.kind.as_ref().or(raw.ty.as_ref()).map(|k| k.0.clone());
    if kind_name.as_deref() == Some("session") {
        return Ok((
            Record::Header(Box::new(Header {
                line: n,
                span: line.span.clone(),
                id: raw.id.map(|i| match i.0 {
                    crate::model::Id::Long(s) => s,
                    other => Cow::Owned(other.text().into_owned()),
                }),
                title: text_of(raw.title),
                cwd: cow(raw.cwd),
                created: raw.timestamp.ms(),
                version: num(raw.version),
                origin: None,
            })),
            notes,
        ));
    }
    let kind = match kind_name.as_deref() {
        Some("message") => Kind::Message,
        Some("compaction") => Kind::Compaction,
        Some("label") => Kind::Label,
        Some("state") => Kind::State,
        _ => Kind::Unknown,
    };
    let Some((id, parent)) = super::identity(n, kind, &kind_name, raw.id, raw.parent_id, "parentId", &mut notes)?
    else {
        return Ok((Record::Other, notes));
    };
    match raw.timestamp {
        Ts::Bad => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable entry timestamp")),
        Ts::Absent => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "entry without a timestamp")),
        Ts::Ms(_) => {}
    }
    let message = match raw.message {
        Some(m) => Some(message(m, n, &mut notes)),
        None if kind == Kind::Message => {
            notes.push(
                Finding::at(Code::MissingField, n, None, "a message entry without `message`").with_id(id.to_owned_id()),
            );
            None
        }
        None => None,
    };
    if kind == Kind::Compaction && raw.up_to_id.is_none() {
        let f = Finding::new(Code::CompactionTargetNotAncestor, Some(n), "the compaction has no `upToId`");
        notes.push(f.with_id(id.to_owned_id()));
    }
    let compaction = (kind == Kind::Compaction).then(|| Compaction {
        up_to: raw.up_to_id.map(|i| i.0),
        first_kept: None,
        tokens_before: num(raw.tokens_before),
        tokens_after: num(raw.tokens_after),
        strip_tail_thinking: raw.strip_tail_thinking.unwrap_or(false),
        summary: text_of(raw.summary),
    });
    let state = (kind == Kind::State).then(|| State {
        todos: raw.todos,
        plan: raw.plan,
        model: raw.model,
        thinking_level: None,
        note: None,
        context_edit: raw.context_edit.map(|c| ContextEdit {
            elided: c.elided.into_iter().map(|s| s.0).collect(),
            withhold_thinking: cow(c.withhold_thinking),
        }),
    });
    let entry = {
        let mut e = Entry::new(n, line.span.clone(), kind, id);
        e.set_parent(parent);
        e.timestamp = raw.timestamp.ms().into();
        e.message = message.map(Box::new);
        e
    }
    .named(kind_name.unwrap_or(Cow::Borrowed("")))
    .with_parts(compaction, state, text_of(raw.label));
    Ok((Record::Entry(entry), notes))
}

/// arcturn's roles.
fn role(name: &str) -> Option<Role> {
    Some(match name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "toolResult" => Role::ToolResult,
        "system" => Role::System,
        _ => return None,
    })
}

fn message<'a>(m: Box<RawMessage<'a>>, n: u32, notes: &mut Vec<Finding>) -> Message<'a> {
    message_with(m, n, notes, role)
}

/// A message payload, with the format's own table of known roles.
pub(super) fn message_with<'a>(
    m: Box<RawMessage<'a>>,
    n: u32,
    notes: &mut Vec<Finding>,
    roles: fn(&str) -> Option<Role>,
) -> Message<'a> {
    let role_name = m.role.map(|r| r.0).unwrap_or(Cow::Borrowed(""));
    let role = match (roles(&role_name), role_name.as_ref()) {
        (Some(role), _) => role,
        (None, "") => {
            notes.push(Finding::at(Code::MissingField, n, None, "a message without `role`"));
            Role::Other
        }
        (None, other) => {
            notes.push(unknown(Code::UnknownRole, n, "role", other));
            Role::Other
        }
    };
    for t in &m.content.unknown_types {
        notes.push(unknown(Code::UnknownBlock, n, "content block type", t));
    }
    if m.timestamp == Ts::Bad {
        notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable message timestamp"));
    }
    // Counted as [`tally`] counts the line: a tool result message's content is all one block.
    let counted = m.content.tally.map(|t| match role_name.as_ref() {
        "toolResult" => content::Tally { other: t.nested(), ..content::Tally::default() },
        _ => t,
    });
    let counted = counted.and_then(content::Counted::of);
    let mut tool_results = m.content.tool_results;
    if role == Role::ToolResult {
        let offloaded_path = m.details.and_then(|d| {
            // Most details never mention offloading; only parse the ones that do.
            memchr::memmem::find(d.get().as_bytes(), b"\"offloaded\"")?;
            let d: RawDetails = serde_json::from_str(d.get()).ok()?;
            d.offloaded.unwrap_or(false).then(|| cow(d.path).unwrap_or(Cow::Borrowed("")))
        });
        push_lean(
            &mut tool_results,
            ToolResult {
                call_id: cow(m.tool_call_id),
                tool_name: cow(m.tool_name),
                is_error: m.is_error.unwrap_or(false),
                offloaded_path,
            },
        );
    }
    Message {
        timestamp: m.timestamp.ms().into(),
        blocks: m.content.blocks,
        tool_calls: m.content.tool_calls,
        tool_results,
        reply: Reply {
            provider: cow(m.provider),
            model: cow(m.model),
            usage: m.usage.map(|u| {
                let parts = [
                    ("input", u.input),
                    ("output", u.output),
                    ("cacheRead", u.cache_read),
                    ("cacheWrite", u.cache_write),
                ];
                super::de::usage(n, parts, u.total_tokens, u.cost.and_then(|c| c.total).and_then(|f| f.0), notes)
            }),
            stop_reason: cow(m.stop_reason),
        }
        .boxed(),
        excluded: m.exclude_from_context.unwrap_or(false),
        counted,
        ..Message::with_role(role, role_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::skim::tests::{skipping, struct_fields, walks_whole};
    use crate::format::skim::Walk;

    /// Whether the walk takes `line`.
    fn walked(line: &str) -> bool {
        Walk::line(line, |w| RawLine::walk(w, &mut RawLine::default())).is_some()
    }

    /// The walk reads `line` and skips none of its keys as unknown.
    fn read_whole(line: &str) {
        walks_whole(line, |w| RawLine::walk(w, &mut RawLine::default()));
    }

    /// Every member the derived `Deserialize` reads, the walk reads too, in the line and in
    /// its message, usage and cost: a member added to one and not the other fails here.
    #[test]
    fn the_walk_reads_every_member_serde_reads() {
        for f in struct_fields::<RawLine>() {
            read_whole(&format!(r#"{{"{f}":null}}"#));
        }
        for f in struct_fields::<RawMessage>() {
            read_whole(&format!(r#"{{"message":{{"{f}":null}}}}"#));
        }
        for f in struct_fields::<RawUsage>() {
            read_whole(&format!(r#"{{"message":{{"usage":{{"{f}":null}}}}}}"#));
        }
        for f in struct_fields::<RawCost>() {
            read_whole(&format!(r#"{{"message":{{"usage":{{"cost":{{"{f}":null}}}}}}}}"#));
        }
        let (taken, skipped) = skipping(|| walked(r#"{"kind":"message","api":"x","message":{"api":1}}"#));
        assert!(taken);
        assert_eq!(skipped, ["api", "api"]);
    }

    /// The walk takes nearly every line of the bundled sessions (the serde path reads the
    /// rest): a walk that declined them all would pass every other test.
    #[test]
    fn the_walk_takes_the_common_lines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/arcturn");
        let (mut lines, mut taken) = (0, 0);
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            for l in text.lines() {
                lines += 1;
                taken += usize::from(walked(l));
            }
        }
        assert!(lines > 100 && taken * 10 > lines * 9, "{taken} of {lines} lines walked");
    }
}
