//! The pi format (FORMATS-REAL.md section 1), session versions 1 to 3: a `session` header,
//! then `type`-tagged entries. Messages have arcturn's shape; the differences are the tags,
//! the entry types (`model_change`, `thinking_level_change`, `branch_summary`,
//! `custom_message`, `custom`, `label`, `session_info`), the message roles `bashExecution`
//! and `custom` (v2 `hookMessage`), and a compaction that names the first entry it keeps.
//!
//! Version 1 has no ids: each entry's parent is the previous entry, and its compaction
//! names the first kept entry by its index among the parsed lines, the header being 0. The
//! fold migrates it in memory as pi does, with ids `L<line>` marked synthetic (pi draws
//! random ones, which a reader cannot reproduce).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::arcturn::{message_with, RawMessage};
use super::blocks::{self, str_of};
use super::de::{cow, num, present, text_of, IdDe, Num, Str, Ts};
use super::skim::{members, Walk};
use super::{push_lean, unknown, Decoded, Decoder, Detail, Effort, LineResult, Record};
use crate::content::{self, Block};
use crate::finding::{Code, Finding};
use crate::model::{Compaction, Entry, Header, Id, Kind, Message, Role, State, Text};
use crate::source::Line;

pub const DECODER: Decoder = Decoder {
    decode,
    explain,
    fold: Some(super::Fold::Whole(fold)),
    line_messages: true,
    content,
    content_keys: &["message", "summary", "content"],
    direct: Some(super::direct::pi),
    tally: None,
    rekeyed: true,
    observed: false,
    header_expected: true,
    is_prompt: super::any_prompt,
};

fn explain<'a>(b: &'a [u8]) -> Option<String> {
    super::explain_with::<RawLine<'a>>(b)
}

/// Entry types pi writes.
const TYPES: &[&str] = &[
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom_message",
    "custom",
    "label",
    "session_info",
];

#[derive(Deserialize, Default)]
struct RawLine<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<IdDe<'a>>,
    #[serde(borrow, rename = "parentId", default, deserialize_with = "present")]
    parent_id: Option<Option<IdDe<'a>>>,
    #[serde(default)]
    timestamp: Ts,
    /// Boxed, as arcturn's: the record moves without it.
    #[serde(borrow)]
    message: Option<Box<RawMessage<'a>>>,
    // model_change, thinking_level_change
    #[serde(borrow)]
    provider: Option<Str<'a>>,
    #[serde(borrow, rename = "modelId")]
    model_id: Option<&'a RawValue>,
    #[serde(borrow, rename = "thinkingLevel")]
    thinking_level: Option<Str<'a>>,
    // compaction, branch_summary
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, rename = "firstKeptEntryId")]
    first_kept_entry_id: Option<IdDe<'a>>,
    #[serde(rename = "firstKeptEntryIndex")]
    first_kept_entry_index: Option<Num>,
    #[serde(rename = "tokensBefore")]
    tokens_before: Option<Num>,
    // custom_message, custom
    #[serde(borrow, rename = "customType")]
    custom_type: Option<Str<'a>>,
    // label
    #[serde(borrow, rename = "targetId")]
    target_id: Option<IdDe<'a>>,
    #[serde(borrow)]
    label: Option<&'a RawValue>,
    // session_info
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    // header
    #[serde(borrow)]
    cwd: Option<Str<'a>>,
    version: Option<Num>,
    #[serde(borrow, rename = "parentSession")]
    parent_session: Option<Str<'a>>,
}

/// pi's message roles: arcturn's, less `system`, plus the user's own shell commands and
/// extension messages (both sent to the model as user content).
fn role(name: &str) -> Option<Role> {
    Some(match name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "toolResult" => Role::ToolResult,
        "bashExecution" | "custom" | "hookMessage" => Role::Other,
        _ => return None,
    })
}

impl<'a> RawLine<'a> {
    /// The members of a line's object, walked by hand, as arcturn's.
    fn walk(w: &mut Walk<'a>, l: &mut RawLine<'a>) -> Option<()> {
        members!(w, {
            "type" => l.ty = Str::walk(w)?,
            "id" => l.id = IdDe::walk(w)?,
            "parentId" => l.parent_id = Some(IdDe::walk(w)?),
            "timestamp" => l.timestamp = Ts::walk(w)?,
            "message" => l.message = w.nested(RawMessage::walk)?,
            "provider" => l.provider = Str::walk(w)?,
            "modelId" => l.model_id = w.value()?,
            "thinkingLevel" => l.thinking_level = Str::walk(w)?,
            "summary" => l.summary = w.value()?,
            "firstKeptEntryId" => l.first_kept_entry_id = IdDe::walk(w)?,
            "firstKeptEntryIndex" => l.first_kept_entry_index = Num::walk(w)?,
            "tokensBefore" => l.tokens_before = Num::walk(w)?,
            "customType" => l.custom_type = Str::walk(w)?,
            "targetId" => l.target_id = IdDe::walk(w)?,
            "label" => l.label = w.value()?,
            "name" => l.name = w.value()?,
            "cwd" => l.cwd = Str::walk(w)?,
            "version" => l.version = Num::walk(w)?,
            "parentSession" => l.parent_session = Str::walk(w)?,
        });
        Some(())
    }
}

fn decode<'a>(b: &'a str, line: &Line, effort: Effort) -> LineResult<'a> {
    let mut raw = RawLine::default();
    super::read_into(b, effort, &mut raw, RawLine::walk)?;
    let n = line.number;
    let mut notes = Vec::new();
    let ty = raw.ty.as_ref().map(|t| t.0.clone());
    match ty.as_deref() {
        Some("session") => {
            let header = Header {
                line: n,
                span: line.span.clone(),
                id: raw.id.map(|i| i.0.text().into_owned().into()),
                title: None,
                cwd: cow(raw.cwd),
                created: raw.timestamp.ms(),
                version: num(raw.version),
                origin: cow(raw.parent_session),
            };
            return Ok((Record::Header(Box::new(header)), notes));
        }
        Some(t) if !TYPES.contains(&t) => {
            notes.push(unknown(Code::UnknownKind, n, "entry type", t));
            if raw.id.is_none() {
                return Ok((Record::Other, notes));
            }
        }
        None => return Err(super::Fail::Finding(Finding::at(Code::MissingField, n, None, "the line has no `type`"))),
        _ => {}
    }
    let kind = match ty.as_deref() {
        Some("message" | "branch_summary" | "custom_message") => Kind::Message,
        Some("compaction") => Kind::Compaction,
        Some("label") => Kind::Label,
        Some("model_change" | "thinking_level_change" | "session_info" | "custom") => Kind::State,
        _ => Kind::Unknown,
    };
    // Version 1 has no ids: the fold links each entry to the one before it.
    let v1 = raw.id.is_none();
    let (id, parent) = if v1 {
        (super::made_up_id(), None)
    } else {
        let id = raw.id.map(|i| i.0).unwrap_or(Id::Int(0));
        let parent = match raw.parent_id {
            Some(p) => p.map(|p| p.0),
            None => {
                notes.push(
                    Finding::at(Code::MissingField, n, None, "the entry has no `parentId` (read as a root)")
                        .with_id(id.to_owned_id()),
                );
                None
            }
        };
        // pi writes a root's parent as null or as its own id.
        let parent = parent.filter(|p| *p != id);
        (id, parent)
    };
    match raw.timestamp {
        Ts::Bad => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "unparsable entry timestamp")),
        Ts::Absent if !v1 => notes.push(Finding::new(Code::InvalidTimestamp, Some(n), "entry without a timestamp")),
        _ => {}
    }
    let mut message = match (ty.as_deref(), raw.message) {
        (Some("message"), Some(m)) => Some(message_with(m, n, &mut notes, role)),
        (Some("message"), None) => {
            notes.push(
                Finding::at(Code::MissingField, n, None, "a message entry without `message`").with_id(id.to_owned_id()),
            );
            None
        }
        _ => None,
    };
    if let Some(t) = ty.as_deref().filter(|t| matches!(*t, "branch_summary" | "custom_message")) {
        // Both are sent to the model as user content; an empty branch summary is not sent.
        let empty = t == "branch_summary" && text_of(raw.summary).is_none_or(|s| s.decode().is_empty());
        message = Some(synthetic_message(if t == "branch_summary" { "branchSummary" } else { "custom" }, empty));
    }
    let compaction = (kind == Kind::Compaction).then(|| Compaction {
        up_to: None,
        first_kept: raw.first_kept_entry_id.map(|i| i.0),
        tokens_before: num(raw.tokens_before),
        tokens_after: None,
        strip_tail_thinking: false,
        summary: text_of(raw.summary),
    });
    let state = (kind == Kind::State).then(|| State {
        model: raw.model_id,
        thinking_level: cow(raw.thinking_level),
        note: match ty.as_deref() {
            Some("session_info") => {
                Some(Cow::Owned(format!("title {}", text_of(raw.name).map(|t| t.decode()).unwrap_or_default())))
            }
            Some("custom") => Some(Cow::Owned(format!(
                "extension state {}",
                raw.custom_type.as_ref().map(|c| c.0.as_ref()).unwrap_or("?")
            ))),
            Some("model_change") => cow(raw.provider).map(|p| Cow::Owned(format!("provider {p}"))),
            _ => None,
        },
        ..State::default()
    });
    let mut entry = {
        let mut e = Entry::new(n, line.span.clone(), kind, id);
        e.set_parent(parent);
        e.timestamp = raw.timestamp.ms().into();
        e.message = message.map(Box::new);
        e
    }
    .named(ty.unwrap_or(Cow::Borrowed("")))
    .with_parts(compaction, state, text_of(raw.label));
    if v1 {
        entry.set_synthetic_id(true);
        let x = entry.extra_mut();
        push_lean(&mut x.hints, ("v1", Cow::Borrowed("")));
        if let Some(k) = num(raw.first_kept_entry_index) {
            push_lean(&mut x.hints, ("first_kept_index", Cow::Owned(k.to_string())));
        }
    }
    if let Some(t) = raw.target_id {
        push_lean(&mut entry.extra_mut().hints, ("target", t.0.text().into_owned().into()));
    }
    if let Some(name) = text_of(raw.name) {
        push_lean(&mut entry.extra_mut().hints, ("title", Cow::Owned(name.decode())));
    }
    Ok((Record::Entry(entry), notes))
}

/// A message made from an entry that is not a `message` but is sent as one.
fn synthetic_message(role_name: &'static str, excluded: bool) -> Message<'static> {
    Message { excluded, ..Message::with_role(Role::Other, Cow::Borrowed(role_name)) }
}

/// The file-level pass, then the keys and tool uses rebuilt from what it changed.
fn fold(d: &mut Decoded<'_>, _: &[u8], _: Detail) {
    fold_entries(d);
    super::reindex(d);
}

/// Migrate version 1 in memory, drop the self-parent of roots, attach labels to their
/// targets (the last label wins, an empty one clears), and take the title from the latest
/// named `session_info`.
fn fold_entries(d: &mut Decoded<'_>) {
    let v1 = d.entries.iter().any(|e| e.hint("v1").is_some());
    if v1 {
        migrate_v1(d);
    }
    let mut labels: crate::format::FastMap<String, Option<String>> = Default::default();
    let mut title = None;
    for e in &d.entries {
        if e.kind() == Kind::Label {
            if let Some(t) = e.hint("target") {
                let text = e.label_text().map(Text::decode).filter(|l| !l.is_empty());
                labels.insert(t.to_string(), text);
            }
        }
        if let Some(t) = e.hint("title").filter(|t| !t.is_empty()) {
            title = Some(t.to_string());
        }
    }
    if !labels.is_empty() {
        for e in &mut d.entries {
            if let Some(Some(l)) = labels.get(e.id.text().as_ref()) {
                e.extra_mut().label = Some(l.clone());
            }
        }
    }
    if let (Some(t), Some(h)) = (title, d.header.as_mut()) {
        h.title = Some(Text::Plain(Cow::Owned(t)));
    }
}

/// Version 1: every entry's parent is the entry before it, and a compaction's
/// `firstKeptEntryIndex` counts the parsed lines from the header (0).
fn migrate_v1(d: &mut Decoded<'_>) {
    let mut parsed: Vec<u32> = d.header.iter().map(|h| h.line).collect();
    parsed.extend(d.entries.iter().map(|e| e.line));
    parsed.sort_unstable();
    let by_line: crate::format::FastMap<u32, Id<'static>> =
        d.entries.iter().map(|e| (e.line, e.id.to_owned_id())).collect();
    let mut previous: Option<Id<'static>> = None;
    for e in &mut d.entries {
        if e.hint("v1").is_some() {
            e.set_parent(previous.clone());
        }
        previous = Some(e.id.to_owned_id());
        let kept = e.hint("first_kept_index").and_then(|k| k.parse::<usize>().ok());
        if let (Some(k), Some(c)) = (kept, e.compaction_mut()) {
            // Index 0 is the header: no kept tail.
            c.first_kept = parsed.get(k).filter(|_| k > 0).and_then(|l| by_line.get(l)).cloned();
        }
    }
}

/// A message's content: arcturn's shapes, plus the entries and roles that only pi sends.
pub fn content(e: &Entry<'_>, lines: &[Value]) -> content::Content {
    let Some(line) = lines.first() else { return content::Content::default() };
    let text = |k: &str| line.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match e.kind_name() {
        "branch_summary" => return content::Content { blocks: vec![Block::Text(text("summary"))], error: None },
        "custom_message" => {
            let body = line.get("content").unwrap_or(&Value::Null);
            return content::Content { blocks: blocks::list(body), error: None };
        }
        _ => {}
    }
    let Some(m) = line.get("message") else { return content::Content::default() };
    if m.get("role").and_then(Value::as_str) == Some("bashExecution") {
        // Sent as a user message holding the command and what it printed.
        let mut t = format!("$ {}", str_of(m, "command").unwrap_or_default());
        let output = str_of(m, "output").unwrap_or_default();
        if !output.is_empty() {
            t.push('\n');
            t.push_str(&output);
        }
        if let Some(code) = m.get("exitCode").and_then(Value::as_i64).filter(|&c| c != 0) {
            t.push_str(&format!("\n[exit code {code}]"));
        }
        return content::Content { blocks: vec![Block::Text(t)], error: None };
    }
    super::arcturn::content(e, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member of a line the derived `Deserialize` reads, the walk reads too (the
    /// message's are arcturn's, tested there).
    #[test]
    fn the_walk_reads_every_member_serde_reads() {
        use crate::format::skim::tests::{struct_fields, walks_whole};
        for f in struct_fields::<RawLine>() {
            walks_whole(&format!(r#"{{"{f}":null}}"#), |w| RawLine::walk(w, &mut RawLine::default()));
        }
    }

    #[test]
    fn roles_pi_sends_are_known() {
        assert_eq!(role("bashExecution"), Some(Role::Other));
        assert_eq!(role("hookMessage"), Some(Role::Other));
        assert_eq!(role("system"), None);
    }
}
