//! A skimming JSON deserializer for the per-line decode: the same serde data model as
//! serde_json, but values the decoders do not ask for (message text, thinking, tool output,
//! arguments: most of the bytes) are skipped with a SIMD scan for the closing quote instead
//! of being walked byte by byte.
//!
//! It validates everything it passes over (structure, escapes, numbers, literals, control
//! bytes); the caller guarantees the line is valid UTF-8. It never explains a failure: on any
//! error the caller re-parses the line with serde_json, which is the oracle for what is valid and
//! for the message and column. So the one property that matters is that this parser never
//! accepts a line serde_json would reject, nor decodes one differently; the tests below and
//! `tests/skim.rs` check that against serde_json.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::MAX_NESTING;
/// serde_json's private protocol for `&RawValue`.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Deserialize `T` from one line of valid UTF-8.
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T> {
    let mut s = Skim { s: text, b: text.as_bytes(), i: 0, depth: 0 };
    let v = T::deserialize(&mut s)?;
    s.ws();
    if s.i != text.len() {
        return Err(DECLINED);
    }
    Ok(v)
}

/// Why the skimmer stopped. It explains nothing else: the caller asks serde_json.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Anything this parser does not accept; serde_json decides.
    Declined,
    /// A bracket at this 1-based column opens a level past [`MAX_NESTING`].
    TooDeep(usize),
}

const DECLINED: Error = Error::Declined;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Declined => f.write_str("not accepted by the skimming parser"),
            Error::TooDeep(c) => write!(f, "nesting too deep at column {c}"),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error::Declined
    }
}

type Result<T> = std::result::Result<T, Error>;

struct Skim<'de> {
    /// The line; slicing it at the ASCII bytes the scanner stops on is always valid.
    s: &'de str,
    b: &'de [u8],
    i: usize,
    depth: usize,
}

impl<'de> Skim<'de> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Result<u8> {
        self.ws();
        self.b.get(self.i).copied().ok_or(DECLINED)
    }

    fn eat(&mut self, c: u8) -> Result<()> {
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(DECLINED)
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(DECLINED)
        }
    }

    /// Skip a string whose opening quote is at `self.i`; true when it had escapes.
    fn skip_str(&mut self) -> Result<bool> {
        self.i += 1;
        let mut escaped = false;
        loop {
            let at = find_special(&self.b[self.i..]).ok_or(DECLINED)?;
            self.i += at;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Ok(escaped);
                }
                b'\\' => escaped = true,
                // A raw control byte inside a string: serde_json names it.
                _ => return Err(DECLINED),
            }
            match self.b.get(self.i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 2,
                Some(b'u') => {
                    // A surrogate must come as a high-low pair: a lone one is declined, so
                    // the caller's repair path (U+FFFD, with a warning) handles the line.
                    self.i += match super::hex_at(self.b, self.i + 2).ok_or(DECLINED)? {
                        0xD800..=0xDBFF => {
                            match (self.b.get(self.i + 6..self.i + 8), super::hex_at(self.b, self.i + 8)) {
                                (Some(b"\\u"), Some(0xDC00..=0xDFFF)) => 12,
                                _ => return Err(DECLINED),
                            }
                        }
                        0xDC00..=0xDFFF => return Err(DECLINED),
                        _ => 6,
                    };
                }
                _ => return Err(DECLINED),
            }
        }
    }

    /// Parse a string at `self.i`, borrowing it when it has no escapes.
    fn parse_str(&mut self) -> Result<Cow<'de, str>> {
        let start = self.i + 1;
        let escaped = self.skip_str()?;
        let raw = self.s.get(start..self.i - 1).ok_or(DECLINED)?;
        if !escaped {
            return Ok(Cow::Borrowed(raw));
        }
        unescape(raw).map(Cow::Owned)
    }

    /// Skip a number per the JSON grammar; returns its text.
    fn skip_number(&mut self) -> Result<&'de str> {
        let b = self.b;
        let start = self.i;
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(DECLINED),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let d = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == d {
                return Err(DECLINED);
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let d = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == d {
                return Err(DECLINED);
            }
        }
        self.i = i;
        self.s.get(start..i).ok_or(DECLINED)
    }

    /// Skip any value, iteratively (no recursion, whatever the nesting).
    fn skip_value(&mut self) -> Result<()> {
        let mut stack: Vec<u8> = Vec::new();
        loop {
            // A value starts here.
            let c = self.peek()?;
            if matches!(c, b'{' | b'[') && self.depth + stack.len() + 1 > MAX_NESTING {
                return Err(Error::TooDeep(self.i + 1));
            }
            match c {
                b'{' => {
                    self.i += 1;
                    if self.peek()? == b'}' {
                        self.i += 1;
                    } else {
                        self.key_colon()?;
                        stack.push(b'{');
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    if self.peek()? == b']' {
                        self.i += 1;
                    } else {
                        stack.push(b'[');
                        continue;
                    }
                }
                b'"' => {
                    self.skip_str()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => {
                    self.skip_number()?;
                }
                _ => return Err(DECLINED),
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&top) = stack.last() else { return Ok(()) };
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if top == b'{' {
                            self.key_colon()?;
                        }
                        break;
                    }
                    b'}' if top == b'{' => {
                        self.i += 1;
                        stack.pop();
                    }
                    b']' if top == b'[' => {
                        self.i += 1;
                        stack.pop();
                    }
                    _ => return Err(DECLINED),
                }
            }
        }
    }

    fn key_colon(&mut self) -> Result<()> {
        if self.peek()? != b'"' {
            return Err(DECLINED);
        }
        self.skip_str()?;
        self.eat(b':')
    }

    /// Called just after an opening bracket.
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Error::TooDeep(self.i));
        }
        Ok(())
    }
}

/// The first byte a string scan must stop at: `"`, `\\`, or a control byte (below 0x20,
/// which JSON forbids inside strings). One vector compare per 16 bytes, so the scan over
/// text, tool output and arguments (most of the bytes) is also their control-byte check.
#[cfg(target_arch = "x86_64")]
fn find_special(b: &[u8]) -> Option<usize> {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let quote = set_splat_i8_m128i(b'"' as i8);
    let backslash = set_splat_i8_m128i(b'\\' as i8);
    let below = set_splat_i8_m128i(0x1f);
    let blocks = b.chunks_exact(16);
    let done = b.len() - blocks.remainder().len();
    for (k, block) in blocks.enumerate() {
        let Ok(block) = <&[u8; 16]>::try_from(block) else { break };
        let v = load_unaligned_m128i(block);
        let control = cmp_eq_mask_i8_m128i(min_u8_m128i(v, below), v);
        let hits =
            bitor_m128i(bitor_m128i(cmp_eq_mask_i8_m128i(v, quote), cmp_eq_mask_i8_m128i(v, backslash)), control);
        let m = move_mask_i8_m128i(hits);
        if m != 0 {
            return Some(k * 16 + m.trailing_zeros() as usize);
        }
    }
    b[done..].iter().position(|&c| is_special(c)).map(|p| done + p)
}

#[cfg(not(target_arch = "x86_64"))]
fn find_special(b: &[u8]) -> Option<usize> {
    find_special_swar(b)
}

/// The same search, eight bytes at a time (SWAR), where there is no SSE2.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn find_special_swar(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The lowest flagged byte is exact in each of these (higher ones may be false hits).
    let equal = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    let words = b.chunks_exact(8);
    let done = b.len() - words.remainder().len();
    for (k, word) in words.enumerate() {
        let Ok(word) = <[u8; 8]>::try_from(word) else { break };
        let w = u64::from_le_bytes(word);
        let m = equal(w, b'"') | equal(w, b'\\') | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if m != 0 {
            return Some(k * 8 + (m.trailing_zeros() / 8) as usize);
        }
    }
    b[done..].iter().position(|&c| is_special(c)).map(|p| done + p)
}

fn is_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// Decode the escapes of a string body (without quotes). Lone surrogates are an error, as
/// in serde_json (lines with them were repaired before they got here).
fn unescape(s: &str) -> Result<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let b = rest.as_bytes();
        let (c, used) = match b.get(at + 1).ok_or(DECLINED)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let hi = super::hex_at(b, at + 2).ok_or(DECLINED)?;
                match hi {
                    0xD800..=0xDBFF => {
                        if rest.get(at + 6..at + 8) != Some("\\u") {
                            return Err(DECLINED);
                        }
                        let lo = super::hex_at(b, at + 8).ok_or(DECLINED)?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return Err(DECLINED);
                        }
                        (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).ok_or(DECLINED)?, 12)
                    }
                    0xDC00..=0xDFFF => return Err(DECLINED),
                    v => (char::from_u32(v).ok_or(DECLINED)?, 6),
                }
            }
            _ => return Err(DECLINED),
        };
        out.push(c);
        rest = &rest[at + used..];
    }
    out.push_str(rest);
    Ok(out)
}

impl<'de> Deserializer<'de> for &mut Skim<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.peek()? {
            b'{' => {
                self.i += 1;
                self.enter()?;
                let value = v.visit_map(Access { de: &mut *self, first: true, close: b'}' })?;
                self.depth -= 1;
                Ok(value)
            }
            b'[' => {
                self.i += 1;
                self.enter()?;
                let value = v.visit_seq(Access { de: &mut *self, first: true, close: b']' })?;
                self.depth -= 1;
                Ok(value)
            }
            b'"' => match self.parse_str()? {
                Cow::Borrowed(s) => v.visit_borrowed_str(s),
                Cow::Owned(s) => v.visit_string(s),
            },
            b't' => {
                self.literal(b"true")?;
                v.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                v.visit_bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                v.visit_unit()
            }
            b'-' | b'0'..=b'9' => {
                let text = self.skip_number()?;
                let integer = !text.contains(['.', 'e', 'E']);
                if text == "-0" {
                    // serde_json reads a negative zero as a float.
                    return v.visit_f64(-0.0);
                }
                if integer {
                    if let Ok(n) = text.parse::<u64>() {
                        return v.visit_u64(n);
                    }
                    if let Ok(n) = text.parse::<i64>() {
                        return v.visit_i64(n);
                    }
                }
                let f: f64 = text.parse().map_err(|_| DECLINED)?;
                if !f.is_finite() {
                    // serde_json refuses numbers out of f64's range.
                    return Err(DECLINED);
                }
                v.visit_f64(f)
            }
            _ => Err(DECLINED),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.skip_value()?;
        v.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value> {
        if name == RAW_VALUE_TOKEN {
            // Hand serde_json's `&RawValue` the raw text of the value, as serde_json does.
            self.ws();
            let start = self.i;
            self.skip_value()?;
            let raw = self.s.get(start..self.i).ok_or(DECLINED)?;
            return v.visit_map(RawValueAccess { raw: Some(raw) });
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> Result<V::Value> {
        // Not used by the decoders; serde_json will answer.
        Err(DECLINED)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// Map and sequence access: `first` is true until the first element was read.
struct Access<'a, 'de> {
    de: &'a mut Skim<'de>,
    first: bool,
    close: u8,
}

impl Access<'_, '_> {
    /// Move to the next element; false at the closing bracket (consumed).
    fn next(&mut self) -> Result<bool> {
        let c = self.de.peek()?;
        if c == self.close {
            self.de.i += 1;
            return Ok(false);
        }
        if self.first {
            self.first = false;
        } else if c == b',' {
            self.de.i += 1;
        } else {
            return Err(DECLINED);
        }
        Ok(true)
    }
}

impl<'de> MapAccess<'de> for Access<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.next()? {
            return Ok(None);
        }
        if self.de.peek()? != b'"' {
            return Err(DECLINED);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.de.eat(b':')?;
        seed.deserialize(&mut *self.de)
    }
}

impl<'de> SeqAccess<'de> for Access<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.next()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// One-entry map `{TOKEN: raw}`: the shape serde_json's `&RawValue` expects.
struct RawValueAccess<'de> {
    raw: Option<&'de str>,
}

impl<'de> MapAccess<'de> for RawValueAccess<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.raw.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(RAW_VALUE_TOKEN)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let raw = self.raw.take().ok_or(DECLINED)?;
        seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Whatever the skimmer accepts, serde_json accepts, with the same value.
    fn agrees(s: &str) {
        let ours: std::result::Result<Value, Error> = from_str(s);
        let oracle: std::result::Result<Value, _> = serde_json::from_str(s);
        if let Ok(v) = ours {
            assert_eq!(Some(v), oracle.ok(), "skimmer accepted {s:?} differently");
        }
    }

    #[test]
    fn agrees_with_serde_json() {
        for s in [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u00e9\ud83d\ude00"},"f":-1.5e3}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\ud83d"}"#,
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            r#"[1,2,]"#,
            r#"{"a":1} x"#,
            r#"{"a":1e400}"#,
            r#"{"a":18446744073709551616}"#,
            r#"{"a":-9223372036854775809}"#,
            r#"{"a":tru}"#,
            r#"{"a":"x"#,
            r#"   {"k": [ {"x": [] }, {} ] }   "#,
            "{\"a\":\"\\u0000\"}",
        ] {
            agrees(s);
        }
    }

    #[test]
    fn skipped_values_are_validated() {
        #[derive(serde::Deserialize, Debug)]
        struct Only {
            a: u64,
        }
        assert_eq!(from_str::<Only>(r#"{"a":1,"skip":{"x":[1,"y\"z",{"w":null}]}}"#).unwrap().a, 1);
        for bad in [
            r#"{"a":1,"skip":{"x":[1,}}"#,
            r#""{"a":1,"skip":{"x" 1}}"#,
            r#"{"a":1,"skip":"\q"}"#,
            r#"{"a":1,"skip":[01]}"#,
            r#"{"a":1,"skip":[1 2]}"#,
            r#"{"a":1,"skip":{"x":1]}"#,
            r#"{"a":1,"skip":nul}"#,
        ] {
            assert!(from_str::<Only>(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<Only>(bad).is_err());
        }
    }

    #[test]
    fn lone_surrogates_are_declined_even_when_skipped() {
        #[derive(serde::Deserialize, Debug)]
        struct Only {
            a: u64,
        }
        for bad in [
            r#"{"a":1,"skip":"x\ud83d"}"#,
            r#"{"a":1,"skip":"\ude00x"}"#,
            r#"{"a":1,"skip":"\ud83d\u0041"}"#,
            r#"{"a":1,"skip":"\ud83d\n"}"#,
        ] {
            assert_eq!(from_str::<Only>(bad).unwrap_err(), Error::Declined, "{bad}");
        }
        for good in [r#"{"a":1,"skip":"\ud83d\ude00"}"#, r#"{"a":1,"skip":"\\ud83d"}"#] {
            assert_eq!(from_str::<Only>(good).unwrap().a, 1, "{good}");
        }
    }

    #[test]
    fn raw_values_and_borrowing() {
        #[derive(serde::Deserialize)]
        struct R<'a> {
            #[serde(borrow)]
            raw: &'a serde_json::value::RawValue,
            #[serde(borrow)]
            s: Cow<'a, str>,
        }
        let r: R = from_str(r#"{"raw": {"x": [1, 2]}, "s": "plain"}"#).unwrap();
        assert_eq!(r.raw.get(), r#"{"x": [1, 2]}"#);
        assert_eq!(r.s, "plain");
    }

    #[test]
    fn nesting_limit_matches_the_fallback() {
        #[derive(serde::Deserialize)]
        struct Only {
            #[allow(dead_code)]
            skip: serde::de::IgnoredAny,
        }
        for depth in [MAX_NESTING - 1, MAX_NESTING] {
            let ok = format!("{{\"skip\":{}{}}}", "[".repeat(depth - 1), "]".repeat(depth - 1));
            assert!(from_str::<Only>(&ok).is_ok(), "depth {depth}");
            assert!(from_str::<Value>(&ok).is_ok(), "depth {depth}");
            assert_eq!(super::super::too_deep(ok.as_bytes()), None);
        }
        let deep = format!("{{\"skip\":{}{}}}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        let col = super::super::too_deep(deep.as_bytes()).unwrap();
        assert_eq!(from_str::<Only>(&deep).err(), Some(Error::TooDeep(col)));
        assert_eq!(from_str::<Value>(&deep).err(), Some(Error::TooDeep(col)));
    }

    #[test]
    fn finds_the_first_special_byte() {
        for n in 0..80 {
            for tail in ["\"", "\\", "\t", "\u{1f}", ""] {
                let s = format!("{}{tail}x\"", "a\u{e9}".repeat(n / 3));
                let want = s.bytes().position(is_special);
                assert_eq!(find_special(s.as_bytes()), want, "{s:?}");
                assert_eq!(find_special_swar(s.as_bytes()), want, "{s:?}");
            }
        }
        for f in [find_special, find_special_swar] {
            assert_eq!(f(b"\x80\xff\x20\x7f\x22"), Some(4));
            assert_eq!(f(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x1f"), Some(9));
            assert_eq!(f(&[0xc3; 40]), None);
        }
    }

    #[test]
    fn strings_of_every_length_and_escape_position() {
        // Escapes straddling the 16-byte blocks, ends of line inside escapes.
        for n in 0..140 {
            let escapes =
                ["\\n", "\\\\", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\x", "\t", "", "\\n\\\\\\\"\\/x\\\\"];
            for esc in escapes {
                let body = format!("{}{esc}{}", "x".repeat(n), "\u{e9}".repeat(n % 7));
                for doc in [format!("[\"{body}\"]"), format!("[\"{body}"), format!("[\"{body}\\")] {
                    let ours = from_str::<serde::de::IgnoredAny>(&doc).is_ok();
                    let oracle = serde_json::from_str::<Value>(&doc).is_ok();
                    assert_eq!(ours, oracle, "{doc:?}");
                }
            }
        }
    }

    #[test]
    fn control_bytes_in_strings_are_declined() {
        assert!(from_str::<Value>("{\"a\":\t1}").is_ok());
        assert_eq!(from_str::<Value>("{\"a\":\"tab\there\"}"), Err(Error::Declined));
        let mut long = format!("{{\"a\":\"{}\"}}", "x".repeat(1000));
        long.replace_range(777..778, "\u{1b}");
        assert_eq!(from_str::<serde::de::IgnoredAny>(&long).map(|_| ()), Err(Error::Declined));
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(&long).is_err());
    }
}
