//! Content blocks as the agents write them in JSON, turned into the neutral
//! [`Block`](crate::content::Block) vocabulary. The block shapes are shared across formats
//! (arcturn and pi `text`/`thinking`/`toolCall`/`image`; crab and Claude Code `tool_use`/
//! `tool_result`/`image{source}`), so every format module reads them through here.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::skim::JS_LEN_TOKEN;
use crate::content::{js_len, Block, Image, Tally, ToolResult, IMAGE_CHARS};

/// A message's `content`: a string is one text block, an array a list of blocks.
pub fn list(content: &Value) -> Vec<Block> {
    match content {
        Value::String(s) => vec![Block::Text(s.clone())],
        Value::Array(items) => items.iter().map(block).collect(),
        Value::Null => Vec::new(),
        other => vec![Block::Unknown { type_name: "(not a block list)".into(), raw: other.clone() }],
    }
}

/// One content block.
pub fn block(b: &Value) -> Block {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
    let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "text" => Block::Text(text("text")),
        "thinking" => Block::Thinking {
            text: text("thinking"),
            redacted: b.get("redacted").and_then(Value::as_bool).unwrap_or(false),
        },
        "redacted_thinking" => Block::Thinking { text: String::new(), redacted: true },
        "toolCall" | "tool_use" => Block::ToolCall {
            id: str_of(b, "id"),
            name: text("name"),
            arguments: b.get(if ty == "toolCall" { "arguments" } else { "input" }).cloned().unwrap_or(Value::Null),
        },
        "tool_result" => Block::ToolResult(ToolResult {
            call_id: str_of(b, "tool_use_id"),
            tool_name: None,
            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            content: list(b.get("content").unwrap_or(&Value::Null)),
            offloaded_path: None,
        }),
        "image" => image(b),
        "compaction" => {
            Block::ProviderCompaction { summary: str_of(b, "summary"), encrypted: str_of(b, "encryptedContent") }
        }
        "serverTool" => {
            Block::ServerTool { provider: text("provider"), block: b.get("block").cloned().unwrap_or(Value::Null) }
        }
        _ => Block::Unknown { type_name: ty.to_string(), raw: b.clone() },
    }
}

/// arcturn and pi `{type:"image", data, mimeType}`; also the `source` shape
/// (`{type:"base64", media_type, data}` or `{type:"url", url}`) other agents write.
fn image(b: &Value) -> Block {
    if let Some(data) = b.get("data").and_then(Value::as_str) {
        let mime = str_of(b, "mimeType").or_else(|| str_of(b, "mime_type")).unwrap_or_default();
        return Block::Image(Image::Inline { mime, data: data.to_string() });
    }
    if let Some(src) = b.get("source") {
        if let Some(data) = src.get("data").and_then(Value::as_str) {
            let mime = str_of(src, "media_type").unwrap_or_default();
            return Block::Image(Image::Inline { mime, data: data.to_string() });
        }
        if let Some(url) = src.get("url").and_then(Value::as_str) {
            return Block::Image(Image::Url(url.to_string()));
        }
    }
    if let Some(url) = b.get("url").and_then(Value::as_str) {
        return Block::Image(Image::Url(url.to_string()));
    }
    Block::Unknown { type_name: "image".into(), raw: b.clone() }
}

pub fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// The visits of a value that is not what is looked for: read and let go.
macro_rules! not_it {
    ($v:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($v)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok($v)
        }
    };
}

/// A message's `content` counted as [`list`] decodes it and a context estimate counts its
/// blocks (`crate::context`), read straight from the line: no block is built and no string
/// copied. It fails, and the caller decodes the blocks instead, wherever the count needs a
/// block whole: a block that is not an object or whose type is unknown, an image with no
/// data or URL, a tool result whose content is neither text, a list nor null (the skimmer
/// also fails on a key written twice, which serde_json settles).
pub struct ListTally(pub Tally);

impl<'de> Deserialize<'de> for ListTally {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Text is counted by the skimmer, uncopied.
        d.deserialize_newtype_struct(JS_LEN_TOKEN, ListVisitor)
    }
}

struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = ListTally;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("text, a list of blocks or null")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<ListTally, E> {
        Ok(ListTally(Tally { other: js_len(s), ..Tally::default() }))
    }

    /// Text, counted by the skimmer ([`JS_LEN_TOKEN`]).
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<ListTally, D::Error> {
        let units = d.deserialize_u64(Units)?.0.unwrap_or_default();
        Ok(ListTally(Tally { other: units, ..Tally::default() }))
    }

    fn visit_unit<E: de::Error>(self) -> Result<ListTally, E> {
        Ok(ListTally(Tally::default()))
    }

    fn visit_none<E: de::Error>(self) -> Result<ListTally, E> {
        Ok(ListTally(Tally::default()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ListTally, A::Error> {
        let mut t = Tally::default();
        while let Some(BlockTally(b)) = a.next_element()? {
            t.thinking += b.thinking;
            t.has_thinking |= b.has_thinking;
            t.other += b.other;
        }
        Ok(ListTally(t))
    }
}

/// What a format's count reads of a line ([`crate::format::Decoder::tally`]): its `message`
/// member and its top-level `content`, each counted as [`list`] decodes it.
#[derive(Default)]
pub struct LineTally {
    pub message: MessageTally,
    /// The top-level `content` (absent and null both count nothing).
    pub content: Tally,
}

/// A line's `message`, when it is an object.
#[derive(Default)]
pub struct MessageTally {
    /// Its `role` is `toolResult`.
    pub tool_result: bool,
    /// It has a `content` member (even null).
    pub has_content: bool,
    pub content: Tally,
}

/// Count one line (see [`LineTally`]); `None` when the line is no object, when a block
/// needs decoding whole, or when the skimmer declines the line.
pub fn line_tally(text: &str) -> Option<LineTally> {
    super::skim::from_str::<LineTallyDe>(text).ok().map(|l| l.0)
}

struct LineTallyDe(LineTally);

impl<'de> Deserialize<'de> for LineTallyDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LineTallyDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a line")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<LineTallyDe, A::Error> {
                let mut l = LineTally::default();
                while let Some(k) = a.next_key::<Member>()? {
                    match k {
                        Member::Message => l.message = a.next_value::<MessageTallyDe>()?.0,
                        Member::Content => {
                            l.content = a.next_value::<Option<ListTally>>()?.map(|c| c.0).unwrap_or_default()
                        }
                        _ => {
                            a.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(LineTallyDe(l))
            }
        }
        d.deserialize_map(V)
    }
}

struct MessageTallyDe(MessageTally);

impl<'de> Deserialize<'de> for MessageTallyDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageTallyDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<MessageTallyDe, A::Error> {
                let mut m = MessageTally::default();
                while let Some(k) = a.next_key::<Member>()? {
                    match k {
                        Member::Role => m.tool_result = a.next_value::<Type>()? == Type::ToolResultRole,
                        Member::Content => {
                            m.has_content = true;
                            m.content = a.next_value::<Option<ListTally>>()?.map(|c| c.0).unwrap_or_default();
                        }
                        _ => {
                            a.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(MessageTallyDe(m))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<MessageTallyDe, E> {
                Ok(MessageTallyDe(MessageTally::default()))
            }
            not_it!(MessageTallyDe(MessageTally::default()));
        }
        d.deserialize_any(V)
    }
}

/// One block counted as [`block`] decodes it. The type may come after the members it
/// decides on, so every member the count could need is measured as it passes.
struct BlockTally(Tally);

impl<'de> Deserialize<'de> for BlockTally {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = BlockTally;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<BlockTally, A::Error> {
        let mut ty = None;
        let (mut text, mut thinking, mut name, mut summary) = (None, None, None, None);
        let (mut data, mut url, mut source) = (None, None, None);
        let (mut arguments, mut input, mut block) = (None, None, None);
        let mut content: Option<ListTally> = None;
        while let Some(k) = a.next_key::<Member>()? {
            match k {
                Member::Type => ty = Some(a.next_value::<Type>()?),
                Member::Text => text = a.next_value::<StrLen>()?.0,
                Member::Thinking => thinking = a.next_value::<StrLen>()?.0,
                Member::Name => name = a.next_value::<StrLen>()?.0,
                Member::Summary => summary = a.next_value::<StrLen>()?.0,
                Member::Data => data = a.next_value::<StrLen>()?.0,
                Member::Url => url = a.next_value::<StrLen>()?.0,
                Member::Source => source = Some(a.next_value::<SourceProbe>()?),
                Member::Arguments => arguments = Some(a.next_value::<Value>()?),
                Member::Input => input = Some(a.next_value::<Value>()?),
                Member::Block => block = Some(a.next_value::<Value>()?),
                Member::Content => content = a.next_value::<Option<ListTally>>()?,
                Member::Message | Member::Role | Member::Other => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        let json_len = |v: Option<Value>| js_len(&v.unwrap_or(Value::Null).to_string());
        let other = |n: u64| Ok(BlockTally(Tally { other: n, ..Tally::default() }));
        match ty.unwrap_or(Type::Unknown) {
            Type::Text => other(text.unwrap_or(0)),
            Type::Thinking => Ok(BlockTally(Tally { thinking: thinking.unwrap_or(0), has_thinking: true, other: 0 })),
            Type::RedactedThinking => Ok(BlockTally(Tally { has_thinking: true, ..Tally::default() })),
            Type::ToolCall => other(name.unwrap_or(0) + json_len(arguments)),
            Type::ToolUse => other(name.unwrap_or(0) + json_len(input)),
            Type::ToolResult => other(content.map_or(0, |c| c.0.nested())),
            Type::Image => {
                let source = source.unwrap_or_default();
                if data.is_some() || source.data || source.url || url.is_some() {
                    other(IMAGE_CHARS)
                } else {
                    Err(de::Error::custom("an image with no data or URL is counted whole"))
                }
            }
            Type::Compaction => other(summary.unwrap_or(0)),
            Type::ServerTool => other(json_len(block)),
            Type::ToolResultRole | Type::Unknown => Err(de::Error::custom("a block of unknown type is counted whole")),
        }
    }
}

/// The members of a block that [`block`] reads to count it.
enum Member {
    Type,
    Text,
    Thinking,
    Name,
    Summary,
    Data,
    Url,
    Source,
    Arguments,
    Input,
    Block,
    Content,
    Message,
    Role,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, k: &str) -> Result<Member, E> {
                Ok(match k {
                    "type" => Member::Type,
                    "text" => Member::Text,
                    "thinking" => Member::Thinking,
                    "name" => Member::Name,
                    "summary" => Member::Summary,
                    "data" => Member::Data,
                    "url" => Member::Url,
                    "source" => Member::Source,
                    "arguments" => Member::Arguments,
                    "input" => Member::Input,
                    "block" => Member::Block,
                    "content" => Member::Content,
                    "message" => Member::Message,
                    "role" => Member::Role,
                    _ => Member::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

/// A block's `type`, as [`block`] tells them apart (a type that is no string is unknown).
#[derive(PartialEq)]
enum Type {
    Text,
    Thinking,
    RedactedThinking,
    ToolCall,
    ToolUse,
    ToolResult,
    Image,
    Compaction,
    ServerTool,
    /// Not a block type: the role of an arcturn tool result message.
    ToolResultRole,
    Unknown,
}

impl<'de> Deserialize<'de> for Type {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Type;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a block type")
            }
            fn visit_str<E: de::Error>(self, t: &str) -> Result<Type, E> {
                Ok(match t {
                    "text" => Type::Text,
                    "thinking" => Type::Thinking,
                    "redacted_thinking" => Type::RedactedThinking,
                    "toolCall" => Type::ToolCall,
                    "tool_use" => Type::ToolUse,
                    "tool_result" => Type::ToolResult,
                    "image" => Type::Image,
                    "compaction" => Type::Compaction,
                    "serverTool" => Type::ServerTool,
                    "toolResult" => Type::ToolResultRole,
                    _ => Type::Unknown,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Type, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Type::Unknown)
            }
            not_it!(Type::Unknown);
        }
        d.deserialize_any(V)
    }
}

/// The characters of a string member ([`js_len`]); `None` when the member is no string,
/// which the decode reads as absent.
struct StrLen(Option<u64>);

impl<'de> Deserialize<'de> for StrLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(JS_LEN_TOKEN, StrLenVisitor)
    }
}

struct StrLenVisitor;

impl<'de> Visitor<'de> for StrLenVisitor {
    type Value = StrLen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<StrLen, E> {
        Ok(StrLen(Some(js_len(s))))
    }

    /// Text, counted by the skimmer ([`JS_LEN_TOKEN`]): its units come as a number.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<StrLen, D::Error> {
        d.deserialize_u64(Units)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<StrLen, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(StrLen(None))
    }

    not_it!(StrLen(None));
}

/// The units of a text as the skimmer counts them ([`JS_LEN_TOKEN`]).
struct Units;

impl Visitor<'_> for Units {
    type Value = StrLen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a count of UTF-16 units")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<StrLen, E> {
        Ok(StrLen(Some(n)))
    }
}

/// Whether an image's `source` holds data or a URL as text ([`image`]).
#[derive(Default)]
struct SourceProbe {
    data: bool,
    url: bool,
}

impl<'de> Deserialize<'de> for SourceProbe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SourceVisitor)
    }
}

struct SourceVisitor;

impl<'de> Visitor<'de> for SourceVisitor {
    type Value = SourceProbe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<SourceProbe, E> {
        Ok(SourceProbe::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<SourceProbe, A::Error> {
        let mut p = SourceProbe::default();
        while let Some(k) = a.next_key::<Member>()? {
            match k {
                Member::Data => p.data = a.next_value::<StrLen>()?.0.is_some(),
                Member::Url => p.url = a.next_value::<StrLen>()?.0.is_some(),
                _ => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(p)
    }

    not_it!(SourceProbe::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_use_and_tool_result_blocks() {
        let v = json!([
            {"type":"tool_result","tool_use_id":"t1","content":"out"},
            {"type":"tool_use","id":"t2","name":"read","input":{"path":"x"}}]);
        let b = list(&v);
        assert!(matches!(&b[0], Block::ToolResult(r) if r.text() == "out" && r.call_id.as_deref() == Some("t1")));
        assert!(matches!(&b[1], Block::ToolCall { name, .. } if name == "read"));
    }

    #[test]
    fn string_content_is_one_text_block() {
        assert_eq!(list(&json!("hi")), vec![Block::Text("hi".into())]);
    }
}
