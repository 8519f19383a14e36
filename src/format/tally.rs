//! Content blocks counted, not decoded: the characters a context estimate counts in a
//! message (`crate::context`), read straight from its line by a visitor over the skimming
//! parser. It follows [`blocks::list`] and [`blocks::block`] shape for shape, measures every
//! member a count could need as it passes (a block's type may come after them), and builds
//! no block and copies no string: the skimmer counts a text's UTF-16 units on its escaped
//! bytes ([`JS_LEN_TOKEN`]). Formats count a message through here ([`super::Decoder::tally`]).
//! The rules of a block's count are one function (`Parts::tally`), which the load's walk
//! also counts by as it decodes a message ([`super::Detail::Tallied`]).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

#[cfg(doc)]
use super::blocks;
use super::skim::{JSON_LEN_TOKEN, JS_LEN_TOKEN};
use crate::content::{js_len, Tally, IMAGE_CHARS};

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

/// A message's `content` counted as [`blocks::list`] decodes it and a context estimate counts its
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
            t = t.and(b);
        }
        Ok(ListTally(t))
    }
}

/// What a format's count reads of a line ([`crate::format::Decoder::tally`]): its `message`
/// member and its top-level `content`, each counted as [`blocks::list`] decodes it.
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
/// needs decoding whole, or when the skimmer declines the line. The line is one the load
/// decoded: the objects and arrays the count does not read (a Claude Code line's copy of
/// the tool output, say) are skipped unchecked ([`super::skim::from_accepted_str`]). The
/// count stops at the end of a `message` that has content: nothing after it can change
/// what is counted, as no format decodes a line that has a second `message` (serde's
/// duplicate field; `no_counted_format_decodes_a_line_with_two_messages` holds every
/// format that counts to it).
pub fn line_tally(text: &str) -> Option<LineTally> {
    super::skim::from_accepted_str::<LineTallyDe>(text).ok().map(|l| l.0)
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
                        Member::Message => {
                            l.message = a.next_value::<MessageTallyDe>()?.0;
                            if l.message.has_content {
                                // The rest of the line is not read.
                                return Ok(LineTallyDe(l));
                            }
                        }
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

/// One block counted as [`blocks::block`] decodes it. The type may come after the members it
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
        let mut p = Parts::default();
        while let Some(k) = a.next_key::<Member>()? {
            match k {
                Member::Type => p.ty = a.next_value::<Type>()?,
                Member::Text => p.text = a.next_value::<StrLen>()?.0,
                Member::Thinking => p.thinking = a.next_value::<StrLen>()?.0,
                Member::Name => p.name = a.next_value::<StrLen>()?.0,
                Member::Summary => p.summary = a.next_value::<StrLen>()?.0,
                Member::Data => p.data = a.next_value::<StrLen>()?.0,
                Member::Url => p.url = a.next_value::<StrLen>()?.0,
                Member::Source => p.source = Some(a.next_value::<SourceProbe>()?),
                Member::Arguments => p.arguments = Some(a.next_value::<JsonLen>()?.0),
                Member::Input => p.input = Some(a.next_value::<JsonLen>()?.0),
                Member::Block => p.block = Some(a.next_value::<JsonLen>()?.0),
                Member::Content => p.content = a.next_value::<Option<ListTally>>()?.map(|c| c.0),
                Member::Message | Member::Role | Member::Other => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        p.tally().map(BlockTally).map_err(de::Error::custom)
    }
}

/// What the count of one block reads of its members, each measured as it passes: by
/// [`BlockVisitor`] from a line, and by the load's walk as it decodes the block
/// (`super::de::Content::walk`, [`super::Detail::Tallied`]). A string member that is no
/// string is absent (`None`), as the decode reads it.
#[derive(Default)]
pub(super) struct Parts {
    pub ty: Type,
    pub text: Option<u64>,
    pub thinking: Option<u64>,
    pub name: Option<u64>,
    pub summary: Option<u64>,
    pub data: Option<u64>,
    pub url: Option<u64>,
    pub source: Option<SourceProbe>,
    /// The units of `arguments`, `input` and `block` written back as compact JSON
    /// ([`JsonLen`]); `None` when absent.
    pub arguments: Option<u64>,
    pub input: Option<u64>,
    pub block: Option<u64>,
    /// The list `content` holds (a tool result's), counted; `None` when absent or null.
    pub content: Option<Tally>,
}

impl Parts {
    /// The block counted as [`blocks::block`] decodes it and a context estimate counts it,
    /// or why it has to be decoded whole to be counted.
    pub fn tally(self) -> Result<Tally, &'static str> {
        // An absent member is decoded as null.
        let json_len = |v: Option<u64>| v.unwrap_or(NULL_LEN);
        let other = |n: u64| Ok(Tally { other: n, ..Tally::default() });
        match self.ty {
            Type::Text => other(self.text.unwrap_or(0)),
            Type::Thinking => Ok(Tally { thinking: self.thinking.unwrap_or(0), has_thinking: true, other: 0 }),
            Type::RedactedThinking => Ok(Tally { has_thinking: true, ..Tally::default() }),
            Type::ToolCall => other(self.name.unwrap_or(0) + json_len(self.arguments)),
            Type::ToolUse => other(self.name.unwrap_or(0) + json_len(self.input)),
            Type::ToolResult => other(self.content.map_or(0, Tally::nested)),
            Type::Image => {
                let source = self.source.unwrap_or_default();
                if self.data.is_some() || source.data || source.url || self.url.is_some() {
                    other(IMAGE_CHARS)
                } else {
                    Err("an image with no data or URL is counted whole")
                }
            }
            Type::Compaction => other(self.summary.unwrap_or(0)),
            Type::ServerTool => other(json_len(self.block)),
            Type::ToolResultRole | Type::Unknown => Err("a block of unknown type is counted whole"),
        }
    }
}

/// The units of `null`.
const NULL_LEN: u64 = 4;

/// The units of a value written back as compact JSON: `js_len(&v.to_string())` of the
/// `serde_json::Value` it decodes to, as a tool call's arguments are counted, measured as the
/// value passes (no value is built, no text written). Numbers are measured as serde_json
/// writes them (integers in decimal, floats by `zmij` as serde_json does, a float out of
/// range as null), strings with serde_json's escapes (counted by the skimmer on the escaped
/// bytes: [`JSON_LEN_TOKEN`]). The skimmer refuses a key written twice, the one case where a
/// `Value` (which keeps the last) would be shorter than the text it came from. Read by the
/// skimmer only, as `StrLen` is: another deserializer would hand `visit_newtype_struct` the
/// whole value, which it reads as a number.
pub struct JsonLen(pub u64);

impl<'de> Deserialize<'de> for JsonLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(JSON_LEN_TOKEN, JsonLenVisitor)
    }
}

struct JsonLenVisitor;

impl<'de> Visitor<'de> for JsonLenVisitor {
    type Value = JsonLen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<JsonLen, E> {
        Ok(JsonLen(if b { 4 } else { 5 }))
    }

    fn visit_unit<E: de::Error>(self) -> Result<JsonLen, E> {
        Ok(JsonLen(NULL_LEN))
    }

    fn visit_none<E: de::Error>(self) -> Result<JsonLen, E> {
        Ok(JsonLen(NULL_LEN))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<JsonLen, D::Error> {
        JsonLen::deserialize(d)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<JsonLen, E> {
        Ok(JsonLen(decimal_len(n)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<JsonLen, E> {
        Ok(JsonLen(decimal_len(n.unsigned_abs()) + u64::from(n < 0)))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<JsonLen, E> {
        // serde_json keeps no float that is not finite: it becomes null.
        Ok(JsonLen(if f.is_finite() { zmij::Buffer::new().format_finite(f).len() as u64 } else { NULL_LEN }))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<JsonLen, E> {
        Ok(JsonLen(quoted_len(s)))
    }

    /// A string measured by the skimmer ([`JSON_LEN_TOKEN`]): its length comes as a number.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<JsonLen, D::Error> {
        d.deserialize_u64(Units).map(|n| JsonLen(n.0.unwrap_or_default()))
    }

    /// A string read as it is written holds no byte serde_json escapes: a quote, a
    /// backslash or a control byte in it would have been written escaped.
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<JsonLen, E> {
        Ok(JsonLen(2 + js_len(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<JsonLen, A::Error> {
        // `[` and `]`, and a comma before every element but the first.
        let (mut n, mut len) = (0u64, 2u64);
        while let Some(JsonLen(v)) = a.next_element()? {
            len += v + u64::from(n > 0);
            n += 1;
        }
        Ok(JsonLen(len))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<JsonLen, A::Error> {
        // `{` and `}`; each member is its key, a colon and its value, after a comma but the first.
        let (mut n, mut len) = (0u64, 2u64);
        while let Some(JsonLen(k)) = a.next_key()? {
            let JsonLen(v) = a.next_value()?;
            len += k + 1 + v + u64::from(n > 0);
            n += 1;
        }
        Ok(JsonLen(len))
    }
}

/// The digits of `n` in decimal.
fn decimal_len(n: u64) -> u64 {
    u64::from(n.checked_ilog10().unwrap_or(0)) + 1
}

/// The units of `s` written as a JSON string by serde_json: its quotes, and each byte it
/// escapes one unit longer (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`) or five (`\u00XX`, the other
/// control bytes). Other characters are written as they are.
fn quoted_len(s: &str) -> u64 {
    let escapes: u64 = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    2 + js_len(s) + escapes
}

/// The members of a block that [`blocks::block`] reads to count it.
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

/// A block's `type`, as [`blocks::block`] tells them apart (a type that is no string is unknown).
#[derive(PartialEq, Default)]
pub(super) enum Type {
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
    #[default]
    Unknown,
}

impl Type {
    /// The type a string names.
    pub fn of(t: &str) -> Type {
        match t {
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
        }
    }
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
                Ok(Type::of(t))
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
pub(super) struct StrLen(pub Option<u64>);

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

/// Whether an image's `source` holds data or a URL as text ([`blocks::block`]).
#[derive(Default)]
pub(super) struct SourceProbe {
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

    /// `js_len` of the compact JSON that serde_json writes of the value `text` decodes to.
    fn written(text: &str) -> u64 {
        js_len(&serde_json::from_str::<serde_json::Value>(text).unwrap().to_string())
    }

    fn measured(text: &str) -> u64 {
        super::super::skim::from_str::<JsonLen>(text).unwrap_or_else(|_| panic!("skimmer declined {text}")).0
    }

    /// Numbers in every form serde_json reads (and rewrites: `1.50` as `1.5`, `1e5` as
    /// `100000.0`, an integer past `u64` as a float), every byte serde_json escapes, every
    /// escape the text may use, characters of 1 to 4 bytes, empty and nested containers.
    #[test]
    fn measured_json_is_the_length_serde_json_writes() {
        let atoms = [
            "0",
            "-0",
            "7",
            "-7",
            "1.50",
            "1e5",
            "1E-7",
            "-2.5e-3",
            "0.1",
            "1e300",
            "-1e-300",
            "5e-324",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "1.7976931348623157e308",
            "true",
            "false",
            "null",
            r#""""#,
            r#""plain""#,
            r#""\u0000\u0001\u001f\u007f""#,
            r#""\b\f\n\r\t\"\\\/""#,
            r#""é\u00e9😀\ud83d\ude00\u2028""#,
        ];
        let mut cases: Vec<String> = atoms.iter().map(|a| a.to_string()).collect();
        cases.push("[]".into());
        cases.push("{}".into());
        cases.push(format!("[{}]", atoms.join(",")));
        let members: Vec<String> = atoms.iter().enumerate().map(|(i, a)| format!(r#""k{i}\n\"":{a}"#)).collect();
        cases.push(format!("{{{}}}", members.join(",")));
        cases.push(r#"{"a":[{},[],[[1,{"b":null}]]], "c" : { "d" : [ 1.0 , "x" ] } }"#.to_string());
        // Every control byte, and every byte serde_json escapes, as an escape and in a key.
        for b in 0u32..0x80 {
            cases.push(format!(r#"{{"\u{b:04x}":"a\u{b:04x}b"}}"#));
        }
        for text in &cases {
            assert_eq!(measured(text), written(text), "{text}");
        }
    }

    /// Nested random values: the sums of lengths, commas, colons and brackets hold at depth.
    #[test]
    fn measured_json_holds_over_random_nestings() {
        let mut next = crate::test_corpus::xorshift(0x9e37_79b9_7f4a_7c15);
        fn value(next: &mut dyn FnMut() -> u64, depth: u32) -> String {
            match next() % if depth > 4 { 4 } else { 7 } {
                0 => format!("{}", next() as i64 >> (next() % 64)),
                1 => format!("{:e}", f64::from_bits(next() >> 2)),
                2 => ["\"\\u0007x\\\"\"", "\"é\\n\"", "\"😀\"", "true", "null"][(next() % 5) as usize].to_string(),
                // A long string: escapes of every kind at any offset of the scan's blocks.
                6 => {
                    let pieces = [
                        "a",
                        "é",
                        "😀",
                        "\\n",
                        "\\\\",
                        "\\\"",
                        "\\/",
                        "\\u0001",
                        "\\u0022",
                        "\\u00e9",
                        "\\ud83d\\ude00",
                        "\\t",
                        "xyz0123456789",
                    ];
                    let body: String =
                        (0..next() % 200).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
                    format!("\"{body}\"")
                }
                3 => format!("{}.{}", next() % 1000, next() % 100),
                4 => format!("[{}]", (0..next() % 4).map(|_| value(next, depth + 1)).collect::<Vec<_>>().join(",")),
                _ => format!(
                    "{{{}}}",
                    (0..next() % 4)
                        .map(|i| format!("\"k{i}\":{}", value(next, depth + 1)))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            }
        }
        for _ in 0..2000 {
            let text = value(&mut next, 0);
            assert_eq!(measured(&text), written(&text), "{text}");
        }
    }

    /// The count stops reading a line at the end of a `message` that has content
    /// ([`line_tally`]), which is sound only because no format that counts decodes a line
    /// with a second `message` (the decode would take the last): such a line is damaged, and
    /// no entry.
    #[test]
    fn no_counted_format_decodes_a_line_with_two_messages() {
        use crate::model::Format;
        let (one, two) =
            (r#"{"role":"user","content":"one"}"#, r#"{"role":"user","content":[{"type":"text","text":"second"}]}"#);
        let files = [
            (
                "arcturn",
                format!(
                    "{}\n{}",
                    r#"{"kind":"session","version":1,"id":"s","timestamp":"2026-11-02T09:14:03.463Z"}"#,
                    format_args!(
                        r#"{{"kind":"message","id":"a","parentId":null,"timestamp":"2026-11-02T09:16:20.530Z","message":{one},"message":{two}}}"#
                    )
                ),
            ),
            (
                "crab",
                format!(
                    "{}\n{}",
                    r#"{"kind":"meta","format_version":2,"created":"1793784600412ms"}"#,
                    format_args!(r#"{{"kind":"message","id":1,"parent_id":null,"message":{one},"message":{two}}}"#)
                ),
            ),
            (
                "claude",
                format!(
                    r#"{{"parentUuid":null,"sessionId":"s","type":"user","uuid":"a","timestamp":"2026-02-11T10:00:01.000Z","message":{one},"message":{two}}}"#
                ),
            ),
        ];
        for (format, text) in &files {
            let src = crate::source::Source::from_bytes(format, text.clone().into_bytes()).unwrap();
            let s = crate::session::Session::load(&src, None).unwrap();
            assert_eq!(s.format.as_str(), *format);
            assert!(s.entries.is_empty(), "{format}: a line with two messages was decoded");
            assert!(s.findings.iter().any(|f| f.code == crate::finding::Code::DuplicateKey), "{format}");
        }
        // Every format that counts from the line is here.
        for format in [Format::Arcturn, Format::Crab, Format::Pi, Format::Claude, Format::Codex] {
            if crate::format::decoder(format).tally.is_some() {
                assert!(files.iter().any(|(f, _)| *f == format.as_str()), "{format} counts but is not tried");
            }
        }
    }
}
