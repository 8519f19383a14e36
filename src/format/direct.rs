//! Message content decoded straight from the text of its lines, with no JSON tree in
//! between ([`super::Decoder::direct`]): one pass of the skimming parser over the members the
//! content reads, each string unescaped once, into the block that keeps it. Tool arguments,
//! and the blocks no view looks into, are parsed into values, as the tree path parses them.
//! The tree path (each line's members as a [`serde_json::Value`], then
//! [`super::Decoder::content`]) stays the reference: whatever this module declines (a line
//! the skimming parser does not accept, a line that is not an object, a message role only the
//! tree path reads) is read that way instead, and `tests/content.rs` checks that both give
//! the same content for every entry of every bundled and real session.
//!
//! The rules are those of [`super::blocks`] and of the formats' `content` functions, over
//! the members as they are read: a member that is absent, `null` or of another type than
//! the one read counts as absent (an empty text, a false flag, no blocks).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::de::Str;
use super::skim::{self, Error, Result};
use crate::content::{Block, Content, ToolResult};
use crate::model::Entry;

/// Drain whatever a lenient visitor does not read.
fn drain_map<'de, A: MapAccess<'de>>(mut a: A) -> std::result::Result<(), A::Error> {
    while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut a: A) -> std::result::Result<(), A::Error> {
    while a.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// The visits of a lenient visitor for scalars it does not read: each gives `$none`.
macro_rules! skip_scalars {
    ($none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok($none)
        }
    };
}

/// A member that is a string: its text (borrowed when it had no escapes); `None` for any
/// other type.
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

/// The visitor of [`Text`] and [`Prose`].
struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
        Ok(Text(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(Text(Some(Cow::Owned(v.to_string()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(Text(Some(Cow::Owned(v))))
    }
    skip_scalars!(Text(None));
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> std::result::Result<Self::Value, A::Error> {
        drain_seq(a).map(|_| Text(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> std::result::Result<Self::Value, A::Error> {
        drain_map(a).map(|_| Text(None))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

/// A [`Text`] that a preview reads the start of: a message's text, thinking or error, cut
/// by the skimming parser when it is asked to ([`skim::PROSE_TOKEN`]).
#[derive(Default)]
struct Prose<'a>(Text<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for Prose<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_newtype_struct(skim::PROSE_TOKEN, TextVisitor).map(Prose)
    }
}

impl Text<'_> {
    fn owned(self) -> Option<String> {
        self.0.map(Cow::into_owned)
    }
}

/// A member that is `true`; any other value is false.
#[derive(Default)]
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(Flag(Value::deserialize(d)? == Value::Bool(true)))
    }
}

/// A member read as `T` when it is an object; any other value is skipped (`None`).
struct Obj<T>(Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> std::result::Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(a)).map(|t| Obj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> std::result::Result<Self::Value, A::Error> {
                drain_seq(a).map(|_| Obj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Self::Value, E> {
                Ok(Obj(None))
            }
            skip_scalars!(Obj(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A member that is present, `null` included (serde's `Option` takes `null` for absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Something read member by member when its first member is a `type` it reads (as agents
/// write them), else parsed whole into a value, as the tree path holds it, and read from that:
/// other types, `type` written later, anything but an object.
trait Typed: Sized {
    /// The types read member by member.
    const READ: &'static [&'static str];
    /// The rest of an object whose first member is `type`: `ty`, one of [`Typed::READ`].
    fn read<'de, A: MapAccess<'de>>(ty: &str, a: A) -> std::result::Result<Self, A::Error>;
    /// Anything else, whole.
    fn whole(v: &Value) -> Self;
}

/// The visitor of every [`Typed`].
struct TypedVisitor<T>(PhantomData<T>);

impl<'de, T: Typed> Visitor<'de> for TypedVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> std::result::Result<T, A::Error> {
        let mut whole = Map::new();
        let Some(key) = a.next_key::<Str>()? else { return Ok(T::whole(&Value::Object(whole))) };
        let value: Value = a.next_value()?;
        match value.as_str() {
            Some(ty) if key.0 == "type" && T::READ.contains(&ty) => return T::read(ty, a),
            _ => {
                whole.insert(key.0.into_owned(), value);
            }
        }
        while let Some((k, v)) = a.next_entry::<String, Value>()? {
            whole.insert(k, v);
        }
        Ok(T::whole(&Value::Object(whole)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> std::result::Result<T, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(a)).map(|v| T::whole(&v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::String(v.to_string())))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::Bool(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::from(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::from(v)))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<T, E> {
        Ok(T::whole(&Value::Null))
    }
}

/// `Deserialize` for a [`Typed`].
macro_rules! typed {
    ($t:ty) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                d.deserialize_any(TypedVisitor(PhantomData))
            }
        }
    };
}

/// A message's `content` ([`super::blocks::list`], [`super::codex::items`]): a string is one
/// text block, an array a list of `E`, `null` none, and anything else what `E` makes of it.
struct ListOf<E>(Vec<Block>, PhantomData<E>);

/// An element of a [`ListOf`].
trait Element: Typed {
    fn block(self) -> Block;
    /// The blocks of a `content` that is neither a string, an array nor `null`.
    fn other(v: Value) -> Vec<Block>;
}

/// Blocks of arcturn, pi, crab and Claude Code.
type List = ListOf<BlockDe>;

impl<'de, E: Element + Deserialize<'de>> Deserialize<'de> for ListOf<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<E>(PhantomData<E>);
        impl<'de, E: Element + Deserialize<'de>> Visitor<'de> for V<E> {
            type Value = ListOf<E>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<Er: de::Error>(self, v: &str) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(vec![Block::Text(v.to_string())], PhantomData))
            }
            fn visit_string<Er: de::Error>(self, v: String) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(vec![Block::Text(v)], PhantomData))
            }
            fn visit_unit<Er: de::Error>(self) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(Vec::new(), PhantomData))
            }
            fn visit_bool<Er: de::Error>(self, v: bool) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(E::other(Value::Bool(v)), PhantomData))
            }
            fn visit_u64<Er: de::Error>(self, v: u64) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(E::other(Value::from(v)), PhantomData))
            }
            fn visit_i64<Er: de::Error>(self, v: i64) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(E::other(Value::from(v)), PhantomData))
            }
            fn visit_f64<Er: de::Error>(self, v: f64) -> std::result::Result<Self::Value, Er> {
                Ok(ListOf(E::other(Value::from(v)), PhantomData))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> std::result::Result<Self::Value, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(a)).map(|v| ListOf(E::other(v), PhantomData))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = a.next_element::<E>()? {
                    blocks.push(b.block());
                }
                Ok(ListOf(blocks, PhantomData))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
        // A content that is a string is a text: a preview reads its start.
        d.deserialize_newtype_struct(skim::PROSE_TOKEN, V(PhantomData))
    }
}

/// One content block ([`super::blocks::block`]). A block whose first member is a `type` of
/// text, thinking, a tool call or a tool result (as agents write them) is read member by
/// member; any other (images, provider blocks, unknown types, `type` written later, anything
/// but an object) is parsed into a value and read by [`super::blocks::block`].
struct BlockDe(Block);

typed!(BlockDe);

impl Element for BlockDe {
    fn block(self) -> Block {
        self.0
    }
    fn other(v: Value) -> Vec<Block> {
        vec![Block::Unknown { type_name: "(not a block list)".into(), raw: v }]
    }
}

impl Typed for BlockDe {
    const READ: &'static [&'static str] =
        &["text", "thinking", "redacted_thinking", "toolCall", "tool_use", "tool_result"];
    fn read<'de, A: MapAccess<'de>>(ty: &str, a: A) -> std::result::Result<Self, A::Error> {
        read_block(ty, a).map(BlockDe)
    }
    fn whole(v: &Value) -> Self {
        BlockDe(super::blocks::block(v))
    }
}

/// The rest of a block of type `ty` (one of [`BlockDe`]'s [`Typed::READ`]), its members read as that type reads
/// them and the others skipped.
fn read_block<'de, A: MapAccess<'de>>(ty: &str, mut a: A) -> std::result::Result<Block, A::Error> {
    let (mut text, mut flag, mut id, mut name, mut arguments, mut content) =
        (Prose::default(), false, Text(None), Text(None), Value::Null, None);
    let (text_key, flag_key, id_key, arguments_key) = match ty {
        "text" => ("text", "", "", ""),
        "thinking" => ("thinking", "redacted", "", ""),
        "toolCall" => ("", "", "id", "arguments"),
        "tool_use" => ("", "", "id", "input"),
        "tool_result" => ("", "is_error", "tool_use_id", ""),
        _ => ("", "", "", ""),
    };
    let calls = matches!(ty, "toolCall" | "tool_use");
    while let Some(key) = a.next_key::<Str>()? {
        let k = key.0.as_ref();
        if k.is_empty() {
            a.next_value::<IgnoredAny>()?;
        } else if k == text_key {
            text = a.next_value()?;
        } else if k == flag_key {
            flag = a.next_value::<Flag>()?.0;
        } else if k == id_key {
            id = a.next_value()?;
        } else if calls && k == "name" {
            name = a.next_value()?;
        } else if k == arguments_key {
            arguments = a.next_value()?;
        } else if ty == "tool_result" && k == "content" {
            content = Some(a.next_value::<List>()?.0);
        } else {
            a.next_value::<IgnoredAny>()?;
        }
    }
    Ok(match ty {
        "text" => Block::Text(text.0.owned().unwrap_or_default()),
        "thinking" => Block::Thinking { text: text.0.owned().unwrap_or_default(), redacted: flag },
        "redacted_thinking" => Block::Thinking { text: String::new(), redacted: true },
        "tool_result" => Block::ToolResult(ToolResult {
            call_id: id.owned(),
            tool_name: None,
            is_error: flag,
            content: content.unwrap_or_default(),
            offloaded_path: None,
        }),
        _ => Block::ToolCall { id: id.owned(), name: name.owned().unwrap_or_default(), arguments },
    })
}

/// Parse a line that is an object; any other line is declined. The line was read whole
/// when the session was loaded: what the content does not read is skipped unchecked
/// ([`skim::from_accepted_str`]). With `cut`, prose is read up to that many characters.
fn line<'a, T: Deserialize<'a>>(text: &'a str, cut: Option<usize>) -> Result<T> {
    skim::from_accepted_str_cut::<Obj<T>>(text, cut)?.0.ok_or(Error::Declined)
}

#[derive(serde::Deserialize)]
struct MessageLine<'a> {
    #[serde(borrow, default)]
    message: Obj<Message<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message<'a> {
    #[serde(default)]
    content: Option<List>,
    #[serde(borrow, default)]
    role: Text<'a>,
    #[serde(borrow, default)]
    error_message: Prose<'a>,
    #[serde(borrow, default)]
    tool_call_id: Text<'a>,
    #[serde(borrow, default)]
    tool_name: Text<'a>,
    #[serde(default)]
    is_error: Flag,
    #[serde(borrow, default)]
    details: Obj<Details<'a>>,
}

#[derive(serde::Deserialize)]
struct Details<'a> {
    #[serde(default)]
    offloaded: Flag,
    #[serde(borrow, default)]
    path: Text<'a>,
}

/// arcturn ([`super::arcturn::content`]): the first line's message; a `toolResult` message
/// is one tool result block.
pub fn arcturn(_: &Entry<'_>, lines: &[&str], cut: Option<usize>) -> Result<Content> {
    arcturn_message(lines, None, cut)
}

/// The arcturn message of `lines`, declined when its role is `decline_role`.
fn arcturn_message(lines: &[&str], decline_role: Option<&str>, cut: Option<usize>) -> Result<Content> {
    let Some(first) = lines.first() else { return Ok(Content::default()) };
    let Some(m) = line::<MessageLine>(first, cut)?.message.0 else { return Ok(Content::default()) };
    let role = m.role.0.as_deref();
    if role.is_some() && role == decline_role {
        return Err(Error::Declined);
    }
    let blocks = m.content.map(|l| l.0).unwrap_or_default();
    let error = m.error_message.0.owned();
    if role == Some("toolResult") {
        let details = m.details.0;
        let offloaded = details.as_ref().is_some_and(|d| d.offloaded.0);
        let result = ToolResult {
            call_id: m.tool_call_id.owned(),
            tool_name: m.tool_name.owned(),
            is_error: m.is_error.0,
            content: blocks,
            offloaded_path: details.filter(|_| offloaded).and_then(|d| d.path.owned()),
        };
        return Ok(Content { blocks: vec![Block::ToolResult(result)], error });
    }
    Ok(Content { blocks, error })
}

/// pi ([`super::pi::content`]): arcturn's messages. The entries and roles only pi writes
/// (branch summaries, custom messages, shell executions) are declined, to the tree path.
pub fn pi(e: &Entry<'_>, lines: &[&str], cut: Option<usize>) -> Result<Content> {
    if matches!(e.kind_name(), "branch_summary" | "custom_message") {
        return Err(Error::Declined);
    }
    arcturn_message(lines, Some("bashExecution"), cut)
}

#[derive(serde::Deserialize)]
struct ContentOnly {
    #[serde(default, deserialize_with = "present")]
    content: Option<List>,
}

#[derive(serde::Deserialize)]
struct CrabLine {
    #[serde(default)]
    message: Obj<ContentOnly>,
}

/// crab ([`super::crab::content`]): the first line's `message.content`.
pub fn crab(_: &Entry<'_>, lines: &[&str], cut: Option<usize>) -> Result<Content> {
    let Some(first) = lines.first() else { return Ok(Content::default()) };
    let blocks = line::<CrabLine>(first, cut)?.message.0.and_then(|m| m.content).map(|l| l.0).unwrap_or_default();
    Ok(Content { blocks, error: None })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeLine {
    #[serde(default)]
    message: Obj<ContentOnly>,
    #[serde(default, deserialize_with = "present")]
    content: Option<List>,
    #[serde(default)]
    is_api_error_message: Flag,
}

/// Claude Code ([`super::claude::content`]): each line's `message.content`, else its
/// top-level `content`; an API error's text is its error.
pub fn claude(_: &Entry<'_>, lines: &[&str], cut: Option<usize>) -> Result<Content> {
    let mut out = Content::default();
    for text in lines {
        let l: ClaudeLine = line(text, cut)?;
        let body = l.message.0.and_then(|m| m.content).or(l.content);
        out.blocks.extend(body.map(|b| b.0).unwrap_or_default());
        if l.is_api_error_message.0 && out.error.is_none() {
            out.error = out.blocks.iter().find_map(|b| match b {
                Block::Text(t) => Some(t.clone()),
                _ => None,
            });
        }
    }
    Ok(out)
}

/// Codex ([`super::codex::content`]): each line's `payload`, a response item. A message's
/// text items, function calls and tool outputs whose first member is their `type` are read
/// member by member; any other item is parsed into a value and read by
/// [`super::codex::item_blocks`].
pub fn codex(_: &Entry<'_>, lines: &[&str], cut: Option<usize>) -> Result<Content> {
    let mut blocks = Vec::new();
    for text in lines {
        let l: CodexLine = line(text, cut)?;
        blocks.extend(l.payload.map(|p| p.0).unwrap_or_default());
    }
    Ok(Content { blocks, error: None })
}

#[derive(serde::Deserialize)]
struct CodexLine {
    #[serde(default, deserialize_with = "present")]
    payload: Option<CodexItem>,
}

/// The blocks of one response item.
struct CodexItem(Vec<Block>);

typed!(CodexItem);

impl Typed for CodexItem {
    const READ: &'static [&'static str] =
        &["message", "function_call", "function_call_output", "custom_tool_call_output", "local_shell_call_output"];
    fn read<'de, A: MapAccess<'de>>(ty: &str, a: A) -> std::result::Result<Self, A::Error> {
        read_codex_item(ty, a).map(CodexItem)
    }
    fn whole(v: &Value) -> Self {
        let mut out = Vec::new();
        super::codex::item_blocks(v, &mut out);
        CodexItem(out)
    }
}

/// The rest of an item of type `ty` (one of [`CodexItem`]'s [`Typed::READ`]).
fn read_codex_item<'de, A: MapAccess<'de>>(ty: &str, mut a: A) -> std::result::Result<Vec<Block>, A::Error> {
    let (mut call_id, mut name, mut value, mut items) = (Text(None), Text(None), None, None);
    let value_key = if ty == "function_call" { "arguments" } else { "output" };
    while let Some(key) = a.next_key::<Str>()? {
        match key.0.as_ref() {
            "content" if ty == "message" => items = Some(a.next_value::<ListOf<CodexContentItem>>()?.0),
            "call_id" if ty != "message" => call_id = a.next_value()?,
            "name" if ty == "function_call" => name = a.next_value()?,
            k if k == value_key && ty != "message" => value = Some(a.next_value::<Value>()?),
            _ => {
                a.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(match ty {
        "message" => items.unwrap_or_default(),
        "function_call" => vec![super::codex::call_block(call_id.owned(), name.owned(), value)],
        _ => vec![super::codex::output_block(call_id.owned(), value.unwrap_or(Value::Null))],
    })
}

/// One item of a Codex message's content ([`super::codex::content_item`]): a text item whose
/// first member is its `type` is read member by member, any other parsed into a value.
struct CodexContentItem(Block);

typed!(CodexContentItem);

impl Element for CodexContentItem {
    fn block(self) -> Block {
        self.0
    }
    fn other(_: Value) -> Vec<Block> {
        Vec::new()
    }
}

impl Typed for CodexContentItem {
    const READ: &'static [&'static str] = &["input_text", "output_text", "text", "refusal"];
    /// `text` if present (whatever its type), else `refusal`.
    fn read<'de, A: MapAccess<'de>>(_: &str, mut a: A) -> std::result::Result<Self, A::Error> {
        let (mut text, mut refusal) = (None, None);
        while let Some(k) = a.next_key::<Str>()? {
            match k.0.as_ref() {
                "text" => text = Some(a.next_value::<Prose>()?.0),
                "refusal" => refusal = Some(a.next_value::<Prose>()?.0),
                _ => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(CodexContentItem(Block::Text(text.or(refusal).and_then(Text::owned).unwrap_or_default())))
    }
    fn whole(v: &Value) -> Self {
        CodexContentItem(super::codex::content_item(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Kind};

    /// What the tree path gives for `line`: the whole line as a value, then the format's
    /// content function (which reads only its members).
    fn reference(format: Format, e: &Entry<'_>, lines: &[&str]) -> Content {
        let values: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        (super::super::decoder(format).content)(e, &values)
    }

    fn entry(kind: &'static str) -> Entry<'static> {
        Entry::new(1, 0..0, Kind::Message, crate::model::Id::copied("a")).named(std::borrow::Cow::Borrowed(kind))
    }

    /// Every odd shape a member can take is read as the tree path reads it, or declined.
    #[test]
    fn odd_shapes_read_as_the_tree_path_reads_them() {
        let blocks = [
            r#""plain text with \"escapes\" and \u00e9""#,
            r#"null"#,
            r#"42"#,
            r#"{"type":"text","text":"an object, not a list"}"#,
            r#"[]"#,
            r#"["a string block", 7, null, [1,2], true]"#,
            r#"[{"type":"text","text":"hi\n"},{"type":"text"},{"type":"text","text":null},{"type":"text","text":5}]"#,
            r#"[{"text":"type later","type":"text"},{"id":"c","type":"toolCall","name":"n"}]"#,
            r#"[{"text":"no type"},{"type":null,"text":"x"},{"type":7},{"type":"weird","x":[1,{"y":2}]}]"#,
            r#"[{"type":"thinking","thinking":"hm","redacted":true},{"type":"thinking","redacted":"yes"},{"type":"redacted_thinking","data":"x"}]"#,
            r#"[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a","n":1.5e3}},{"type":"toolCall","id":9,"name":null}]"#,
            r#"[{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls"},"arguments":{"x":1}},{"type":"toolCall","input":{"y":2}}]"#,
            r#"[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}]"#,
            r#"[{"type":"tool_result","tool_use_id":null,"is_error":"true","content":"just text"},{"type":"tool_result","content":null}]"#,
            r#"[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"image","url":"https://x"},{"type":"image"}]"#,
            r#"[{"type":"compaction","summary":"s","encryptedContent":"e"},{"type":"serverTool","provider":"p","block":{"k":[]}}]"#,
            r#"[{"type":"text","text":"emoji 😀 and \ud83d\ude00 and tab\t"}]"#,
            r#"[{}, {"type":"text","text":"after an empty block"}, {}]"#,
        ];
        let mut read = 0;
        for content in blocks {
            let arcturn = [
                format!(
                    r#"{{"kind":"message","id":"a","message":{{"role":"assistant","content":{content},"errorMessage":"boom"}}}}"#
                ),
                format!(
                    r#"{{"kind":"message","id":"a","message":{{"role":"toolResult","toolCallId":"c1","toolName":"read","isError":true,"content":{content},"details":{{"offloaded":true,"path":"/tmp/x"}}}}}}"#
                ),
                format!(
                    r#"{{"kind":"message","message":{{"role":"toolResult","content":{content},"details":{{"offloaded":"yes","path":"/tmp/x"}}}}}}"#
                ),
                format!(r#"{{"kind":"message","message":{{"role":"toolResult","content":{content},"details":[1]}}}}"#),
                format!(r#"{{"kind":"message","message":{{"role":7,"content":{content},"errorMessage":3}}}}"#),
            ];
            let claude = [
                format!(
                    r#"{{"type":"assistant","message":{{"role":"assistant","content":{content}}},"isApiErrorMessage":true}}"#
                ),
                format!(r#"{{"type":"user","message":{{"role":"user"}},"content":{content}}}"#),
                format!(r#"{{"type":"user","message":"not an object","content":{content}}}"#),
                format!(r#"{{"type":"user","message":{{"content":null}},"content":{content}}}"#),
            ];
            let crab = [format!(r#"{{"kind":"message","id":1,"message":{{"role":"user","content":{content}}}}}"#)];
            for (format, lines) in [
                (Format::Arcturn, &arcturn[..]),
                (Format::Pi, &arcturn[..]),
                (Format::Claude, &claude[..]),
                (Format::Crab, &crab[..]),
            ] {
                let e = entry("message");
                let direct = super::super::decoder(format).direct.unwrap();
                for line in lines {
                    let got = direct(&e, &[line.as_str()], None).unwrap_or_else(|_| panic!("declined: {line}"));
                    assert_eq!(got, reference(format, &e, &[line.as_str()]), "{format:?}: {line}");
                    read += 1;
                }
            }
        }
        assert_eq!(read, blocks.len() * 15);
    }

    /// Codex response items of every kind and odd shape are read as the tree path reads them.
    #[test]
    fn codex_items_read_as_the_tree_path_reads_them() {
        let payloads = [
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi \"there\"\n"},{"type":"output_text","text":null,"refusal":"no"},{"type":"refusal","refusal":"no"},{"text":"type later","type":"text"},{"type":"input_image","image_url":"data:image/png;base64,AA=="},{"type":"input_image"},"s",3,null,[1]]}"#,
            r#"{"type":"message","content":"plain"}"#,
            r#"{"type":"message","content":{"not":"a list"}}"#,
            r#"{"type":"message","content":null}"#,
            r#"{"type":"message"}"#,
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\",\"-la\"]}","call_id":"c1"}"#,
            r#"{"type":"function_call","name":7,"arguments":"not json","call_id":null}"#,
            r#"{"type":"function_call","arguments":{"already":"an object"}}"#,
            r#"{"type":"function_call","arguments":null}"#,
            r#"{"type":"function_call_output","call_id":"c1","output":"Exit code: 2\nWall time: 1s\nboom"}"#,
            r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ok\",\"metadata\":{\"exit_code\":0}}"}"#,
            r#"{"type":"custom_tool_call_output","call_id":"c2","output":[{"type":"input_text","text":"listed"}]}"#,
            r#"{"type":"local_shell_call_output","output":{"k":1}}"#,
            r#"{"type":"function_call_output","output":null}"#,
            r#"{"type":"function_call_output"}"#,
            r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"xx"}"#,
            r#"{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin","call_id":"c3"}"#,
            r#"{"type":"local_shell_call","id":"l1","action":{"command":["ls"]}}"#,
            r#"{"type":"web_search_call","status":"completed"}"#,
            r#"{"type":"weird","x":1}"#,
            r#"{"call_id":"c1","type":"function_call_output","output":"type later"}"#,
            r#"{}"#,
            r#""a string""#,
            r#"null"#,
            r#"[1,2]"#,
        ];
        let e = entry("message");
        let direct = super::super::decoder(Format::Codex).direct.unwrap();
        for p in payloads {
            let line = format!(r#"{{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{p}}}"#);
            let got = direct(&e, &[line.as_str()], None).unwrap_or_else(|_| panic!("declined: {line}"));
            assert_eq!(got, reference(Format::Codex, &e, &[line.as_str()]), "{line}");
        }
        let lines = [r#"{"type":"response_item"}"#, r#"{"payload":{"type":"message","content":"a"}}"#];
        assert_eq!(direct(&e, &lines, None).unwrap(), reference(Format::Codex, &e, &lines));
    }

    /// Lines and messages that are not objects, and members a line holds twice: read as the
    /// tree path reads them where that is plain, else declined (the tree path then answers).
    #[test]
    fn what_is_not_an_object_or_is_written_twice() {
        let e = entry("message");
        for line in [r#"{"kind":"message"}"#, r#"{"message":null}"#, r#"{"message":"text"}"#, r#"{"message":[1,2]}"#] {
            for format in [Format::Arcturn, Format::Crab] {
                let got = (super::super::decoder(format).direct.unwrap())(&e, &[line], None).unwrap();
                assert_eq!(got, reference(format, &e, &[line]), "{line}");
            }
        }
        let declined = [
            r#"["message"]"#,
            r#"{"message":{"content":"a","content":"b"}}"#,
            r#"{"message":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
            r#"{"message":{"content":[{"type":"toolCall","arguments":{"n":1e400}}]}}"#,
        ];
        for line in declined {
            assert!(direct_arcturn(&e, line).is_err(), "{line}");
        }
        // pi's own entries and roles go to the tree path.
        let pi = super::super::decoder(Format::Pi).direct.unwrap();
        assert!(pi(&entry("branch_summary"), &[r#"{"summary":"s"}"#], None).is_err());
        assert!(pi(&e, &[r#"{"message":{"role":"bashExecution","command":"ls"}}"#], None).is_err());
    }

    fn direct_arcturn(e: &Entry<'_>, line: &str) -> Result<Content> {
        arcturn(e, &[line], None)
    }
}
