//! Serde building blocks shared by the format decoders: strings that borrow when they can,
//! typed ids, lenient numbers and timestamps, and the content-block walker. Everything here
//! skips payloads (text, arguments, tool output) without unescaping them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::push_lean;
use super::skim::{members, Walk, RAW_STR_TOKEN};
use super::tally::{JsonLen, Parts, StrLen, Type};
use crate::content::{js_len, Tally};
use crate::finding::{Code, Finding};
use crate::model::{Blocks, Id, Text, ToolCall, ToolResult, Usage};

/// A string that borrows from the line unless it had escapes.
#[derive(Debug, Clone)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'a> Str<'a> {
    /// An `Option<Str>` member in a walk ([`Walk`]): a string read straight, anything else
    /// (`null`, a value serde refuses) as serde reads it.
    #[inline(always)]
    pub fn walk(w: &mut Walk<'a>) -> Option<Option<Str<'a>>> {
        match w.peek()? {
            b'"' => w.string().map(|s| Some(Str(s))),
            _ => w.value(),
        }
    }
}

pub fn cow<'a>(s: Option<Str<'a>>) -> Option<Cow<'a, str>> {
    s.map(|s| s.0)
}

/// A string, or a number kept as its text (crab `run_id` is a string, but be kind).
#[derive(Debug, Clone)]
pub struct StrOrNum<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for StrOrNum<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrOrNum<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StrOrNum(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrOrNum(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(StrOrNum(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(StrOrNum(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(StrOrNum(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

/// An entry id: a non-negative integer that fits u64, or a string.
#[derive(Debug, Clone)]
pub struct IdDe<'a>(pub Id<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for IdDe<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IdDe<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an id (a string, or an integer from 0 to 2^64-1)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(IdDe(Id::Int(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Err(E::custom(format_args!("id {v} is negative")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                // An integer past u64 arrives here already rounded (18446744073709551616
                // would print as ...552000): do not quote a number the file does not hold.
                if v.fract() == 0.0 && v.abs() >= 9.2e18 {
                    Err(E::custom("id is an integer beyond 64 bits"))
                } else {
                    Err(E::custom(format_args!("id {v} is not an integer")))
                }
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(IdDe(Id::from_text(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(IdDe(Id::copied(v)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'a> IdDe<'a> {
    /// An `Option<IdDe>` member in a walk ([`Walk`]): a string or a small integer read
    /// straight, as the visitor above takes them; anything else as serde reads it.
    #[inline(always)]
    pub fn walk(w: &mut Walk<'a>) -> Option<Option<IdDe<'a>>> {
        let id = match w.peek()? {
            b'"' => Id::from_text(w.string()?),
            b'0'..=b'9' => match w.uint() {
                Some(v) => Id::Int(v),
                None => return w.value(),
            },
            _ => return w.value(),
        };
        Some(Some(IdDe(id)))
    }
}

/// `#[serde(deserialize_with)]` helper telling "absent" (outer `None`) from `null`
/// (`Some(None)`).
pub fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A count that tolerates floats (`12.0`) and `null`; negative or non-numeric is an error.
#[derive(Debug, Clone, Copy, Default)]
pub struct Num(pub Option<u64>);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-negative number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                u64::try_from(v).map(|v| Num(Some(v))).map_err(|_| E::custom(format_args!("{v} is negative")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                if v >= 0.0 && v.is_finite() {
                    Ok(Num(Some(v as u64)))
                } else {
                    Err(E::custom(format_args!("{v} is not a count")))
                }
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Num {
    /// An `Option<Num>` member in a walk ([`Walk`]): a small non-negative integer read
    /// straight, anything else as serde reads it.
    #[inline(always)]
    pub fn walk(w: &mut Walk<'_>) -> Option<Option<Num>> {
        walk_count(w, |v| Num(Some(v)))
    }
}

pub fn num(n: Option<Num>) -> Option<u64> {
    n.and_then(|n| n.0)
}

/// A token count in a usage record. A negative one is kept (as its text) rather than
/// failing the line: the entry stays, the count is read as 0 and noted, so a budget sum
/// never loses the rest of the record, nor goes down because of it.
#[derive(Debug, Clone, Default)]
pub enum Count {
    #[default]
    Absent,
    Value(u64),
    Negative(String),
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a token count")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count::Value(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(u64::try_from(v).map(Count::Value).unwrap_or_else(|_| Count::Negative(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                // (`as` saturates: 1e30 tokens count as u64::MAX.)
                Ok(if v >= 0.0 { Count::Value(v as u64) } else { Count::Negative(v.to_string()) })
            }
            fn visit_unit<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count::Absent)
            }
        }
        d.deserialize_any(V)
    }
}

impl Count {
    /// An `Option<Count>` member in a walk ([`Walk`]): a small non-negative integer read
    /// straight, anything else as serde reads it.
    #[inline(always)]
    pub fn walk(w: &mut Walk<'_>) -> Option<Option<Count>> {
        walk_count(w, Count::Value)
    }
}

/// An `Option<T>` count member in a walk: a small non-negative integer read straight
/// ([`Walk::uint`]) and made a `T` by `count`, anything else read by `T`'s `Deserialize`.
#[inline(always)]
fn walk_count<'a, T: Deserialize<'a>>(w: &mut Walk<'a>, count: impl FnOnce(u64) -> T) -> Option<Option<T>> {
    if let b'0'..=b'9' = w.peek()? {
        if let Some(v) = w.uint() {
            return Some(Some(count(v)));
        }
    }
    w.value()
}

/// Build a [`Usage`] from a record's counts and cost, noting (`invalid_usage`) each negative
/// count or cost, which is read as 0.
pub fn usage(
    line: u32,
    parts: [(&str, Option<Count>); 4],
    total: Option<Count>,
    cost: Option<f64>,
    notes: &mut Vec<Finding>,
) -> Usage {
    let mut bad = Vec::new();
    let mut read = |(name, c): (&str, Option<Count>)| match c.unwrap_or_default() {
        Count::Value(v) => v,
        Count::Absent => 0,
        Count::Negative(text) => {
            bad.push(format!("`{name}` is {text}"));
            0
        }
    };
    let [a, b, c, d] = parts;
    let (input, output, cache_read, cache_write) = (read(a), read(b), read(c), read(d));
    let total = match total {
        Some(Count::Absent) | None => None,
        t => Some(read(("totalTokens", t))),
    };
    let cost = match cost {
        Some(c) if c < 0.0 || c.is_nan() => {
            bad.push(format!("cost is {c}"));
            Some(0.0)
        }
        c => c,
    };
    if !bad.is_empty() {
        notes.push(Finding::new(
            Code::InvalidUsage,
            Some(line),
            format!("usage {}: counted as 0 in every sum", bad.join(", ")),
        ));
    }
    Usage { input, output, cache_read, cache_write, cache_write_1h: 0, total, cost }
}

/// A number that may be fractional (costs), tolerating `null`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Float(pub Option<f64>);

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<f64>::deserialize(d).map(Float)
    }
}

/// A timestamp in any form files use: epoch ms as a number, `"<n>ms"`, or ISO 8601. Never
/// fails: an unusable value is `Bad`, reported as a warning by the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Ts {
    #[default]
    Absent,
    Ms(i64),
    Bad,
}

impl Ts {
    pub fn ms(self) -> Option<i64> {
        match self {
            Ts::Ms(v) => Some(v),
            _ => None,
        }
    }
}

impl Ts {
    /// A timestamp member in a walk ([`Walk`]): a string, or milliseconds as a small
    /// non-negative integer, read straight, as the visitor below takes them; anything else as
    /// serde reads it.
    #[inline(always)]
    pub fn walk(w: &mut Walk<'_>) -> Option<Ts> {
        match w.peek()? {
            b'"' => w.string().map(|s| crate::time::parse_text(&s).map_or(Ts::Bad, Ts::Ms)),
            b'0'..=b'9' => match w.uint() {
                // (At most 18 digits: within i64.)
                Some(v) => Some(Ts::Ms(v as i64)),
                None => w.value(),
            },
            _ => w.value(),
        }
    }
}

impl<'de> Deserialize<'de> for Ts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a timestamp")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Ts, E> {
                Ok(i64::try_from(v).map(Ts::Ms).unwrap_or(Ts::Bad))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Ts, E> {
                // (`i64::MIN` is what an entry holds for no time: [`crate::model::Ms`].)
                Ok(if v == i64::MIN { Ts::Bad } else { Ts::Ms(v) })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Ts, E> {
                Ok(if v.is_finite() && v.abs() < 9.0e15 { Ts::Ms(v as i64) } else { Ts::Bad })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Ts, E> {
                Ok(crate::time::parse_text(v).map(Ts::Ms).unwrap_or(Ts::Bad))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Ts, E> {
                Ok(Ts::Absent)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Ts, E> {
                Ok(Ts::Bad)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Ts, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Ts::Bad)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Ts, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Ts::Bad)
            }
        }
        d.deserialize_any(V)
    }
}

/// Text from a raw JSON value: string literals stay raw; other values keep their JSON text.
pub fn text_of(raw: Option<&RawValue>) -> Option<Text<'_>> {
    let s = raw?.get();
    if s.starts_with('"') {
        Some(Text::Json(s))
    } else if s == "null" {
        None
    } else {
        Some(Text::Plain(Cow::Borrowed(s)))
    }
}

/// Message content in either format: a plain string, or an array of blocks. Block payloads
/// are kept raw; only what indexing and previews need is pulled out.
#[derive(Debug, Default)]
pub struct Content<'a> {
    pub blocks: Blocks,
    pub tool_calls: Vec<ToolCall<'a>>,
    pub tool_results: Vec<ToolResult<'a>>,
    pub unknown_types: Vec<Cow<'a, str>>,
    /// The types in `unknown_types`, once there are more than [`FEW_UNKNOWN_TYPES`] of them:
    /// a line of many distinct unknown types is then not searched type by type (100,000 in
    /// one message took 11 s).
    unknown_seen: Option<Box<super::FastSet<Cow<'a, str>>>>,
    /// The content counted as a context estimate counts it ([`super::tally`]), as the walk
    /// passed it ([`Walk::measures`]); `None` when it was not measured, and where the count
    /// needs the blocks whole.
    pub tally: Option<Tally>,
}

/// How many distinct unknown block types a message's list holds before a set keeps them.
const FEW_UNKNOWN_TYPES: usize = 16;

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                let mut c = Content::default();
                c.blocks.text = 1;
                Ok(c)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                Content::from_seq(a)
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
        // A text is one block whatever it says: the skimmer need not decode it.
        d.deserialize_newtype_struct(RAW_STR_TOKEN, V)
    }
}

/// Message content on a line that may not be a message at all (Claude Code writes `message`
/// on progress and metadata lines too): content in either shape, or what stood in its place,
/// which is an error only when the line is read as a message.
pub enum MaybeContent<'a> {
    Content(Content<'a>),
    Bad(&'static str),
}

impl<'de: 'a, 'a> Deserialize<'de> for MaybeContent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeContent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                let mut c = Content::default();
                c.blocks.text = 1;
                Ok(MaybeContent::Content(c))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeContent::Content(Content::default()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                Content::from_seq(a).map(MaybeContent::Content)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeContent::Bad("an object"))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeContent::Bad("a boolean"))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeContent::Bad("a number"))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeContent::Bad("a number"))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeContent::Bad("a number"))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
        // As for [`Content`]: a text need not be decoded.
        d.deserialize_newtype_struct(RAW_STR_TOKEN, V)
    }
}

impl<'a> Content<'a> {
    /// List an unknown block type once, in the order first met.
    fn note_unknown_type(&mut self, t: Cow<'a, str>) {
        let known = match &mut self.unknown_seen {
            Some(seen) => !seen.insert(t.clone()),
            None => self.unknown_types.contains(&t),
        };
        if known {
            return;
        }
        push_lean(&mut self.unknown_types, t);
        if self.unknown_seen.is_none() && self.unknown_types.len() > FEW_UNKNOWN_TYPES {
            self.unknown_seen = Some(Box::new(self.unknown_types.iter().cloned().collect()));
        }
    }

    /// The content at `w`, walked by hand: what [`Content`]'s `Deserialize` reads there from
    /// the skimmer, or `None` (the line is then read by serde). A block that is an object is
    /// walked member by member; any other value goes through serde. A walk that
    /// [measures](Walk::measures) counts the content as it passes ([`Content::tally`]).
    pub fn walk(w: &mut Walk<'a>) -> Option<Content<'a>> {
        let measure = w.measures();
        match w.peek()? {
            b'[' => {}
            // A text is one block, its units counted as the skimmer scans it.
            b'"' if measure => {
                let units = w.value::<StrLen>()?.0.unwrap_or_default();
                let mut c = Content { tally: Some(Tally { other: units, ..Tally::default() }), ..Content::default() };
                c.blocks.text = 1;
                return Some(c);
            }
            b'n' if measure => {
                let c: Content = w.value()?;
                return Some(Content { tally: Some(Tally::default()), ..c });
            }
            _ => return w.value(),
        }
        w.array()?;
        let mut c = Content::default();
        let mut tally = measure.then(Tally::default);
        let mut first = true;
        while w.element(first)? {
            first = false;
            let block = match w.peek()? {
                b'{' if measure => {
                    let (block, counted) = RawBlock::walk_measured(w)?;
                    tally = tally.zip(counted).map(|(t, b)| t.and(b));
                    Block::Object(block)
                }
                b'{' => Block::Object(RawBlock::walk(w)?),
                // Counted only as an object.
                _ => {
                    tally = None;
                    w.value()?
                }
            };
            c.add(block);
        }
        c.tally = tally;
        Some(c)
    }

    fn from_seq<A: SeqAccess<'a>>(mut a: A) -> Result<Content<'a>, A::Error> {
        let mut c = Content::default();
        while let Some(b) = a.next_element::<Block<'a>>()? {
            c.add(b);
        }
        Ok(c)
    }

    fn add(&mut self, b: Block<'a>) {
        let Block::Object(b) = b else {
            self.blocks.unknown += 1;
            return;
        };
        let ty = b.ty.as_ref().map(|t| t.0.as_ref()).unwrap_or("");
        match ty {
            "text" => self.blocks.text += 1,
            "thinking" | "redacted_thinking" => self.blocks.thinking += 1,
            "image" => self.blocks.image += 1,
            "toolCall" | "tool_use" => {
                self.blocks.tool_call += 1;
                push_lean(&mut self.tool_calls, ToolCall { id: cow(b.id), name: cow(b.name) });
            }
            "tool_result" => {
                self.blocks.tool_result += 1;
                push_lean(
                    &mut self.tool_results,
                    ToolResult {
                        call_id: cow(b.tool_use_id),
                        tool_name: None,
                        is_error: b.is_error.unwrap_or(false),
                        offloaded_path: None,
                    },
                );
            }
            "compaction" => self.blocks.server_compaction += 1,
            "serverTool" => self.blocks.server_tool += 1,
            _ => {
                self.blocks.unknown += 1;
                if let Some(t) = b.ty {
                    self.note_unknown_type(t.0);
                }
            }
        }
    }
}

/// A content block: an object we look into, or anything else (counted as unknown).
enum Block<'a> {
    Object(RawBlock<'a>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Block<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                RawBlock::deserialize(de::value::MapAccessDeserializer::new(a)).map(Block::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Block::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Block::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of a content block that either format uses. Payloads (text, thinking,
/// arguments, tool output) are not declared, so the parser skips them without unescaping
/// or copying: they are most of the bytes, and only views that show them re-read them.
#[derive(Deserialize, Default)]
struct RawBlock<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    tool_use_id: Option<Str<'a>>,
    is_error: Option<bool>,
}

impl<'a> RawBlock<'a> {
    /// The block object at `w`, as its derived `Deserialize` reads it ([`Content::walk`]).
    fn walk(w: &mut Walk<'a>) -> Option<RawBlock<'a>> {
        w.object()?;
        let mut b = RawBlock::default();
        members!(w, {
            "type" => b.ty = Str::walk(w)?,
            "id" => b.id = Str::walk(w)?,
            "name" => b.name = Str::walk(w)?,
            "tool_use_id" => b.tool_use_id = Str::walk(w)?,
            "is_error" => b.is_error = w.value()?,
        });
        Some(b)
    }

    /// [`RawBlock::walk`], and the block counted as [`super::tally`] counts it, its members
    /// measured as they pass ([`Parts`]); `None` for the count where it needs the block
    /// whole.
    fn walk_measured(w: &mut Walk<'a>) -> Option<(RawBlock<'a>, Option<Tally>)> {
        w.object()?;
        let mut b = RawBlock::default();
        let mut p = Parts::default();
        let mut whole = false;
        members!(w, {
            "type" => b.ty = Str::walk(w)?,
            "id" => b.id = Str::walk(w)?,
            "name" => b.name = Str::walk(w)?,
            "tool_use_id" => b.tool_use_id = Str::walk(w)?,
            "is_error" => b.is_error = w.value()?,
            "text" => p.text = w.value::<StrLen>()?.0,
            "thinking" => p.thinking = w.value::<StrLen>()?.0,
            "summary" => p.summary = w.value::<StrLen>()?.0,
            "data" => p.data = w.value::<StrLen>()?.0,
            "url" => p.url = w.value::<StrLen>()?.0,
            "source" => p.source = Some(w.value()?),
            "arguments" => p.arguments = Some(w.value::<JsonLen>()?.0),
            "input" => p.input = Some(w.value::<JsonLen>()?.0),
            "block" => p.block = Some(w.value::<JsonLen>()?.0),
            "content" => match list_tally(w)? {
                Some(t) => p.content = t,
                None => whole = true,
            },
        });
        // The type and the name, strings or absent once walked, are read from the block.
        p.ty = b.ty.as_ref().map_or(Type::Unknown, |t| Type::of(&t.0));
        p.name = b.name.as_ref().map(|n| js_len(&n.0));
        let counted = if whole { None } else { p.tally().ok() };
        Some((b, counted))
    }
}

/// A block's `content` (a tool result's) counted as a list of blocks, as it passes
/// ([`super::tally::ListTally`]): `Some(None)` for null, `None` inside where the count needs
/// the blocks whole; `None` where the walk declines the value.
fn list_tally(w: &mut Walk<'_>) -> Option<Option<Option<Tally>>> {
    match w.peek()? {
        b'[' => {
            w.array()?;
            let mut tally = Some(Tally::default());
            let mut first = true;
            while w.element(first)? {
                first = false;
                let counted = match w.peek()? {
                    b'{' => RawBlock::walk_measured(w)?.1,
                    // Counted only as an object.
                    _ => {
                        w.skip()?;
                        None
                    }
                };
                tally = tally.zip(counted).map(|(t, b)| t.and(b));
            }
            Some(tally.map(Some))
        }
        b'"' => {
            let units = w.value::<StrLen>()?.0.unwrap_or_default();
            Some(Some(Some(Tally { other: units, ..Tally::default() })))
        }
        b'n' => {
            w.skip()?;
            Some(Some(None))
        }
        // Neither a text, a list nor null.
        _ => {
            w.skip()?;
            Some(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value a walk reads straight ([`Str::walk`], [`IdDe::walk`], [`Count::walk`],
    /// [`Num::walk`], [`Ts::walk`]) reads as serde_json reads it, or is declined where
    /// serde_json refuses it; a value it does not read straight goes to serde. The values
    /// are the forms files hold and the edges of the forms read straight (lengths of
    /// numbers, leading zeros, fractions, escapes), with spaces around some.
    #[test]
    fn values_walked_straight_read_as_serde_reads() {
        const VALUES: &[&str] = &[
            "null",
            "true",
            "0",
            "00",
            "01",
            "7",
            "-1",
            "-0",
            "1.5",
            "12.0",
            "1e3",
            "1E3",
            "12e",
            "1.",
            "1792661000878",
            "999999999999999999",
            "1000000000000000000",
            "18446744073709551615",
            "18446744073709551616",
            "1e400",
            r#""""#,
            r#""x""#,
            r#""a\"b""#,
            r#""caf\u00e9""#,
            r#""\ud800""#,
            r#""2026-01-01T00:00:00.250Z""#,
            r#""2026-01-01T00:00:00.250\u005a""#,
            r#""2026-13-01T00:00:00.250Z""#,
            r#""1792661000878ms""#,
            r#""0b6e5c8f-1f4a-4c38-9d8e-2f7c1a3b4d5e""#,
            r#""unterminated"#,
            "[]",
            "{}",
            r#"{"a":1}"#,
            "[1,2]",
            " 5 ",
            r#" "s" "#,
        ];
        /// Whether the walk read `v` (in an array, `text`), after checking what it read.
        fn same<'a, T: Deserialize<'a> + fmt::Debug>(
            v: &str,
            text: &'a str,
            walk: fn(&mut Walk<'a>) -> Option<T>,
        ) -> bool {
            let mut w = Walk::new(text);
            let mut walked = || {
                w.array()?;
                w.element(true)?;
                let value = walk(&mut w)?;
                (!w.element(false)?).then_some(value)
            };
            let walked = walked();
            let read = serde_json::from_str::<Vec<T>>(text).ok().and_then(|mut l| l.pop());
            match (&walked, read) {
                (Some(a), Some(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{v}"),
                (Some(a), None) => panic!("{v}: walked as {a:?}, refused by serde_json"),
                (None, _) => {}
            }
            walked.is_some()
        }
        let mut walked = 0;
        for v in VALUES {
            let text = format!("[{v}]");
            walked += usize::from(same(v, &text, Str::walk));
            walked += usize::from(same(v, &text, IdDe::walk));
            walked += usize::from(same(v, &text, Count::walk));
            walked += usize::from(same(v, &text, Num::walk));
            walked += usize::from(same(v, &text, Ts::walk));
        }
        assert!(walked > 80, "{walked}");
    }

    /// Every member of a content block the derived `Deserialize` reads, the walk reads too.
    #[test]
    fn the_walk_reads_every_member_of_a_block() {
        use super::super::skim::tests::{skipping, struct_fields};
        for f in struct_fields::<RawBlock>() {
            let text = format!(r#"[{{"{f}":null}}]"#);
            let (walked, skipped) = skipping(|| Content::walk(&mut Walk::new(&text)).is_some());
            assert!(walked && skipped.is_empty(), "{text}: walked {walked}, skipped {skipped:?}");
        }
    }

    #[test]
    fn content_collects_calls_and_text() {
        let c: Content = serde_json::from_str(
            r#"[{"type":"thinking","thinking":"hm"},{"type":"text","text":"hi\n"},
               {"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}},
               {"type":"weird"},"junk"]"#,
        )
        .unwrap();
        assert_eq!(c.blocks.thinking, 1);
        assert_eq!(c.blocks.text, 1);
        assert_eq!(c.tool_calls[0].name.as_deref(), Some("read"));
        assert_eq!(c.unknown_types, vec!["weird"]);
        assert_eq!(c.blocks.unknown, 2);
    }

    /// Content read by the skimmer, which hands a text over undecoded ([`RAW_STR_TOKEN`]),
    /// and by serde_json, which decodes it: the same blocks, or the same refusal.
    #[test]
    fn content_is_read_alike_with_its_text_undecoded() {
        use super::super::skim;
        let shapes = [
            r#""plain""#,
            r#""a\nb\"c\u00e9\ud83d\ude00 and more than sixteen bytes of it""#,
            r#""""#,
            "null",
            r#"[{"type":"text","text":"x\ty"},"loose \"text\"",{"type":"toolCall","id":"c1","name":"read"}]"#,
            "[]",
        ];
        for text in shapes {
            let by_skim: Content = skim::from_str(text).unwrap_or_else(|_| panic!("skimmer declined {text}"));
            let by_serde: Content = serde_json::from_str(text).unwrap();
            assert_eq!(by_skim.blocks, by_serde.blocks, "{text}");
            assert_eq!(by_skim.tool_calls.len(), by_serde.tool_calls.len(), "{text}");
            for maybe in [skim::from_str::<MaybeContent>(text).ok(), serde_json::from_str::<MaybeContent>(text).ok()] {
                match maybe {
                    Some(MaybeContent::Content(c)) => assert_eq!(c.blocks, by_serde.blocks, "{text}"),
                    _ => panic!("{text} is content"),
                }
            }
        }
        for (text, what) in
            [("7", "a number"), ("-1.5", "a number"), ("true", "a boolean"), (r#"{"a":"\n"}"#, "an object")]
        {
            for maybe in [skim::from_str::<MaybeContent>(text).ok(), serde_json::from_str::<MaybeContent>(text).ok()] {
                assert!(matches!(maybe, Some(MaybeContent::Bad(w)) if w == what), "{text}");
            }
            assert!(serde_json::from_str::<Content>(text).is_err(), "{text}");
            assert!(skim::from_str::<Content>(text).is_err(), "{text}");
        }
        // The text handed over is the body as written, escapes and all.
        struct Body(String);
        impl<'de> Deserialize<'de> for Body {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Body;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Body, E> {
                        Ok(Body(s.to_string()))
                    }
                }
                d.deserialize_newtype_struct(RAW_STR_TOKEN, V)
            }
        }
        assert_eq!(skim::from_str::<Body>(r#""a\nb\u00e9""#).ok().map(|b| b.0).as_deref(), Some(r"a\nb\u00e9"));
    }

    #[test]
    fn ids_and_timestamps() {
        assert!(matches!(serde_json::from_str::<IdDe>("3").unwrap().0, Id::Int(3)));
        assert!(serde_json::from_str::<IdDe>("3.5").is_err());
        assert!(serde_json::from_str::<IdDe>("-1").is_err());
        assert!(serde_json::from_str::<IdDe>("18446744073709551616").is_err());
        assert_eq!(serde_json::from_str::<Ts>("\"5ms\"").unwrap(), Ts::Ms(5));
        assert_eq!(serde_json::from_str::<Ts>("{}").unwrap(), Ts::Bad);
        // The one time an entry cannot hold (it stands for none there) is reported, not
        // taken for an absent time.
        assert_eq!(serde_json::from_str::<Ts>("-9223372036854775808").unwrap(), Ts::Bad);
        assert_eq!(serde_json::from_str::<Ts>("-9223372036854775807").unwrap(), Ts::Ms(i64::MIN + 1));
        assert_eq!(crate::model::Ms::from(Some(-1)).get(), Some(-1));
        assert_eq!(crate::model::Ms::from(None).get(), None);
    }
}
