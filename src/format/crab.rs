//! The crab format (FORMATS.md section 2): an optional `meta` line, `message` records with
//! integer ids and `parent_id`, and `obs` observation records grouped by `run_id`.

use std::borrow::Cow;

use serde::Deserialize;

use super::de::{cow, num, present, Content, Count, IdDe, Num, Str, StrOrNum, Ts};
use super::skim::{members, Walk};
use super::{unknown, Decoder, Effort, LineResult, Record};
use crate::finding::{Code, Finding};
use crate::model::{Entry, Header, Kind, Message, Observation, Outcome, Role};
use crate::source::Line;

pub const DECODER: Decoder = Decoder {
    decode,
    explain,
    fold: None,
    line_messages: true,
    content,
    content_keys: &["message"],
    direct: Some(super::direct::crab),
    tally: Some(tally),
    rekeyed: false,
    observed: true,
    header_expected: false,
    is_prompt: super::any_prompt,
};

/// A message's content blocks (`text`, `tool_use`, `tool_result`).
pub fn content(_: &Entry<'_>, lines: &[serde_json::Value]) -> crate::content::Content {
    let body = lines.first().and_then(|l| l.pointer("/message/content")).unwrap_or(&serde_json::Value::Null);
    crate::content::Content { blocks: super::blocks::list(body), error: None }
}

/// [`content`] counted ([`super::Decoder::tally`]): the first line's `message.content`.
fn tally(lines: &[&str]) -> Option<crate::content::Tally> {
    Some(super::tally::line_tally(lines.first()?)?.message.content)
}

fn explain<'a>(b: &'a [u8]) -> Option<String> {
    super::explain_with::<RawLine<'a>>(b)
}

/// Observation tags this tool understands; others are shown as events.
pub const KNOWN_OBS: &[&str] = &["turn_start", "llm_call", "tool_call", "turn_end", "compaction"];

#[derive(Deserialize, Default)]
struct RawLine<'a> {
    #[serde(borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<IdDe<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    parent_id: Option<Option<IdDe<'a>>>,
    /// Boxed, as arcturn's: the record moves without it.
    #[serde(borrow)]
    message: Option<Box<RawMessage<'a>>>,
    // meta
    format_version: Option<Num>,
    #[serde(default)]
    created: Ts,
    // obs
    #[serde(borrow)]
    run_id: Option<StrOrNum<'a>>,
    #[serde(default)]
    ts: Ts,
    #[serde(borrow)]
    obs: Option<Str<'a>>,
    #[serde(borrow)]
    provider: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    duration_ms: Option<Num>,
    usage: Option<RawUsage>,
    #[serde(borrow)]
    outcome: Option<RawOutcome<'a>>,
    #[serde(borrow)]
    tool: Option<Str<'a>>,
    call_seq: Option<Num>,
    #[serde(borrow)]
    args_digest: Option<Str<'a>>,
    #[serde(borrow)]
    result_digest: Option<Str<'a>>,
    bytes_in: Option<Num>,
    bytes_out: Option<Num>,
    #[serde(borrow)]
    stop_reason: Option<Str<'a>>,
    interrupted: Option<bool>,
    llm_calls: Option<Num>,
    tool_calls: Option<Num>,
    #[serde(borrow)]
    strategy: Option<Str<'a>>,
    tokens_before: Option<Num>,
    tokens_after: Option<Num>,
    #[serde(borrow)]
    up_to_id: Option<IdDe<'a>>,
    #[serde(borrow, default)]
    shed: Vec<Str<'a>>,
    #[serde(borrow)]
    summary: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize, Default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow, default)]
    content: Content<'a>,
}

#[derive(Deserialize)]
struct RawUsage {
    prompt: Option<Count>,
    completion: Option<Count>,
    cache_read: Option<Count>,
    cache_write: Option<Count>,
}

/// `"Ok"`, `"Aborted"`, `{"Error": "text"}`, or anything else kept as text.
struct RawOutcome<'a>(Outcome<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for RawOutcome<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum O<'a> {
            Tag(#[serde(borrow)] Str<'a>),
            Error {
                #[serde(borrow, rename = "Error")]
                error: Str<'a>,
            },
            Other(serde_json::Value),
        }
        Ok(RawOutcome(match O::deserialize(d)? {
            O::Tag(t) if t.0 == "Ok" => Outcome::Ok,
            O::Tag(t) if t.0 == "Aborted" => Outcome::Aborted,
            O::Tag(t) => Outcome::Other(t.0.into_owned()),
            O::Error { error } => Outcome::Error(error.0),
            O::Other(v) => Outcome::Other(v.to_string()),
        }))
    }
}

impl<'a> RawLine<'a> {
    /// The members of a line's object, walked by hand, as arcturn's.
    fn walk(w: &mut Walk<'a>, l: &mut RawLine<'a>) -> Option<()> {
        members!(w, {
            "kind" => l.kind = Str::walk(w)?,
            "id" => l.id = IdDe::walk(w)?,
            "parent_id" => l.parent_id = Some(IdDe::walk(w)?),
            "message" => l.message = w.nested(RawMessage::walk)?,
            "format_version" => l.format_version = Num::walk(w)?,
            "created" => l.created = Ts::walk(w)?,
            "run_id" => l.run_id = w.value()?,
            "ts" => l.ts = Ts::walk(w)?,
            "obs" => l.obs = Str::walk(w)?,
            "provider" => l.provider = Str::walk(w)?,
            "model" => l.model = Str::walk(w)?,
            "duration_ms" => l.duration_ms = Num::walk(w)?,
            "usage" => l.usage = w.value()?,
            "outcome" => l.outcome = w.value()?,
            "tool" => l.tool = Str::walk(w)?,
            "call_seq" => l.call_seq = Num::walk(w)?,
            "args_digest" => l.args_digest = Str::walk(w)?,
            "result_digest" => l.result_digest = Str::walk(w)?,
            "bytes_in" => l.bytes_in = Num::walk(w)?,
            "bytes_out" => l.bytes_out = Num::walk(w)?,
            "stop_reason" => l.stop_reason = Str::walk(w)?,
            "interrupted" => l.interrupted = w.value()?,
            "llm_calls" => l.llm_calls = Num::walk(w)?,
            "tool_calls" => l.tool_calls = Num::walk(w)?,
            "strategy" => l.strategy = Str::walk(w)?,
            "tokens_before" => l.tokens_before = Num::walk(w)?,
            "tokens_after" => l.tokens_after = Num::walk(w)?,
            "up_to_id" => l.up_to_id = IdDe::walk(w)?,
            "shed" => l.shed = w.value()?,
            "summary" => l.summary = w.value()?,
        });
        Some(())
    }
}

impl<'a> RawMessage<'a> {
    fn walk(w: &mut Walk<'a>) -> Option<Box<RawMessage<'a>>> {
        w.object()?;
        let mut m = Box::<RawMessage>::default();
        if w.measures() {
            // A message without content counts nothing.
            m.content.tally = Some(crate::content::Tally::default());
        }
        members!(w, {
            "role" => m.role = Str::walk(w)?,
            "content" => m.content = Content::walk(w)?,
        });
        Some(m)
    }
}

fn decode<'a>(b: &'a str, line: &Line, effort: Effort) -> LineResult<'a> {
    let mut raw = RawLine::default();
    super::read_into(b, effort, &mut raw, RawLine::walk)?;
    let n = line.number;
    let mut notes = Vec::new();
    let kind_name = raw.kind.as_ref().map(|k| k.0.clone());
    match kind_name.as_deref() {
        Some("meta") => {
            return Ok((
                Record::Header(Box::new(Header {
                    line: n,
                    span: line.span.clone(),
                    created: raw.created.ms(),
                    version: num(raw.format_version),
                    origin: None,
                    ..Header::default()
                })),
                notes,
            ))
        }
        Some("obs") => return Ok((Record::Observation(Box::new(observation(raw, line, &mut notes))), notes)),
        _ => {}
    }
    let kind = match kind_name.as_deref() {
        Some("message") => Kind::Message,
        _ => Kind::Unknown,
    };
    let Some((id, parent)) = super::identity(n, kind, &kind_name, raw.id, raw.parent_id, "parent_id", &mut notes)?
    else {
        return Ok((Record::Other, notes));
    };
    let message = match raw.message {
        Some(m) => Some(message(*m, n, &mut notes)),
        None if kind == Kind::Message => {
            notes.push(
                Finding::at(Code::MissingField, n, None, "a message record without `message`")
                    .with_id(id.to_owned_id()),
            );
            None
        }
        None => None,
    };
    let entry = {
        let mut e = Entry::new(n, line.span.clone(), kind, id);
        e.set_parent(parent);
        e.message = message.map(Box::new);
        e
    }
    .named(kind_name.unwrap_or(Cow::Borrowed("")));
    Ok((Record::Entry(entry), notes))
}

fn message<'a>(m: RawMessage<'a>, n: u32, notes: &mut Vec<Finding>) -> Message<'a> {
    let role_name = m.role.map(|r| r.0).unwrap_or(Cow::Borrowed(""));
    let c = m.content;
    // crab carries tool results in user messages; such a message is not something the user said.
    let only_results = c.blocks.tool_result > 0 && c.blocks.text == 0 && c.blocks.image == 0;
    let role = match role_name.as_ref() {
        "user" if only_results => Role::ToolResult,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "" => {
            notes.push(Finding::at(Code::MissingField, n, None, "a message without `role`"));
            Role::Other
        }
        other => {
            notes.push(unknown(Code::UnknownRole, n, "role", other));
            Role::Other
        }
    };
    for t in &c.unknown_types {
        notes.push(unknown(Code::UnknownBlock, n, "content block type", t));
    }
    Message {
        blocks: c.blocks,
        tool_calls: c.tool_calls,
        tool_results: c.tool_results,
        // Counted as [`tally`] counts the line.
        counted: c.tally.and_then(crate::content::Counted::of),
        ..Message::with_role(role, role_name)
    }
}

fn observation<'a>(raw: RawLine<'a>, line: &Line, notes: &mut Vec<Finding>) -> Observation<'a> {
    let n = line.number;
    let tag = raw.obs.map(|t| t.0).unwrap_or(Cow::Borrowed(""));
    if tag.is_empty() {
        notes.push(Finding::at(Code::MissingField, n, None, "an observation without an `obs` tag"));
    } else if !KNOWN_OBS.contains(&tag.as_ref()) {
        notes.push(unknown(Code::UnknownObs, n, "observation", &tag));
    }
    if raw.ts == Ts::Bad {
        notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable observation `ts`"));
    }
    Observation {
        line: n,
        span: line.span.clone(),
        run_id: raw.run_id.map(|r| r.0),
        ts: raw.ts.ms(),
        tag,
        provider: cow(raw.provider),
        model: cow(raw.model),
        duration_ms: num(raw.duration_ms),
        usage: raw.usage.map(|u| {
            let parts = [
                ("prompt", u.prompt),
                ("completion", u.completion),
                ("cache_read", u.cache_read),
                ("cache_write", u.cache_write),
            ];
            super::de::usage(n, parts, None, None, notes)
        }),
        outcome: raw.outcome.map(|o| o.0),
        tool: cow(raw.tool),
        call_seq: num(raw.call_seq),
        args_digest: cow(raw.args_digest),
        result_digest: cow(raw.result_digest),
        bytes_in: num(raw.bytes_in),
        bytes_out: num(raw.bytes_out),
        stop_reason: cow(raw.stop_reason),
        interrupted: raw.interrupted,
        llm_calls: num(raw.llm_calls),
        tool_calls: num(raw.tool_calls),
        strategy: cow(raw.strategy),
        tokens_before: num(raw.tokens_before),
        tokens_after: num(raw.tokens_after),
        up_to_id: raw.up_to_id.map(|i| i.0),
        shed: raw.shed.into_iter().map(|s| s.0).collect(),
        summary: super::de::text_of(raw.summary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member of a line and of its message the derived `Deserialize` reads, the walk
    /// reads too.
    #[test]
    fn the_walk_reads_every_member_serde_reads() {
        use crate::format::skim::tests::{struct_fields, walks_whole};
        // (`shed` is a list, never null.)
        let value = |f: &str| if f == "shed" { "[]" } else { "null" };
        let lines = (struct_fields::<RawLine>().iter().map(|f| format!(r#"{{"{f}":{}}}"#, value(f))))
            .chain(struct_fields::<RawMessage>().iter().map(|f| format!(r#"{{"message":{{"{f}":null}}}}"#)));
        for line in lines {
            walks_whole(&line, |w| RawLine::walk(w, &mut RawLine::default()));
        }
    }
}
