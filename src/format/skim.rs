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
//!
//! Two things serde_json lets through are declined as well, because the views would
//! misreport them: a key that appears twice in one object (serde_json keeps the last value,
//! other parsers the first; BAD-INPUTS.md makes it an error) and a number beyond f64's range
//! (accepted while skipped, refused when a view re-reads the line). [`audit`] walks a
//! declined line again and says where each of them is, for the findings.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::MAX_NESTING;
use crate::finding::{Code, Finding};
/// serde_json's private protocol for `&RawValue`.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// This crate's own protocol, for counting text without copying it: a value deserialized as
/// a newtype struct of this name is, when it is a string, handed to `visit_newtype_struct`
/// as the number of UTF-16 code units of its text (a `u64`), counted on the escaped bytes
/// (`scan_str_units`) instead of unescaping them into a new string. Any other value is
/// deserialized as usual.
pub const JS_LEN_TOKEN: &str = "$arcturn_inspect::private::JsLen";

/// [`JS_LEN_TOKEN`] for a string measured as serde_json writes it back: handed to
/// `visit_newtype_struct` as the UTF-16 code units of its text quoted and escaped again
/// ([`requoted_len`]), counted on the escaped bytes without unescaping them. Any other value
/// is deserialized as usual.
pub const JSON_LEN_TOKEN: &str = "$arcturn_inspect::private::JsonLen";

/// This crate's own protocol for asking only whether a value is a string: a value deserialized
/// as a newtype struct of this name is, when it is a string, handed to `visit_borrowed_str`
/// as its body as written, escapes not decoded (no copy is made of a text whose content is not
/// read). Any other value is deserialized as usual. Another deserializer calls
/// `visit_newtype_struct`, which such a visitor answers by deserializing the value as usual.
pub const RAW_STR_TOKEN: &str = "$arcturn_inspect::private::RawStr";

/// This crate's own protocol for reading the start of a long text: a value deserialized as a
/// newtype struct of this name is, when it is a string and the parser was given a number of
/// characters ([`from_accepted_str_cut`]), handed to the visitor as its first that many
/// characters only (borrowed, or unescaped up to there: a preview of a thinking or of a tool's
/// output is a line, not its megabytes). Any other value, or with no number, is deserialized as
/// usual.
pub const PROSE_TOKEN: &str = "$arcturn_inspect::private::Prose";

/// Deserialize `T` from one line of valid UTF-8.
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T> {
    read(Skim::new(text, None), std::marker::PhantomData)
}

/// Deserialize with `seed` from one line of valid UTF-8 (as [`from_str`]).
pub fn from_str_seed<'de, S: DeserializeSeed<'de>>(text: &'de str, seed: S) -> Result<S::Value> {
    read(Skim::new(text, None), seed)
}

/// The one value of a whole line, nothing but whitespace after it.
fn read<'de, S: DeserializeSeed<'de>>(mut s: Skim<'de>, seed: S) -> Result<S::Value> {
    let v = seed.deserialize(&mut s)?;
    s.ws();
    if s.i != s.b.len() {
        return Err(DECLINED);
    }
    Ok(v)
}

/// Deserialize `T` from one line that was already read whole and accepted (by this parser
/// or by serde_json): an object or array `T` ignores is skipped by matching its brackets
/// outside strings, 64 bytes at a time, with nothing inside it checked again
/// ([`Skim::skip_container`]). What `T` reads is parsed and checked as in [`from_str`]. `T`
/// may also stop early (the visitor of the outermost object returns before its end): the
/// rest of the line is not read. On a line that is not valid JSON the result may differ
/// from [`from_str`]'s, never more.
pub fn from_accepted_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T> {
    from_accepted_str_cut(text, None)
}

/// [`from_accepted_str`], with each string read through [`PROSE_TOKEN`] cut to its first
/// `chars` characters when `chars` is given.
pub fn from_accepted_str_cut<'de, T: de::Deserialize<'de>>(text: &'de str, chars: Option<usize>) -> Result<T> {
    let mut s = Skim::new(text, None);
    s.accepted = true;
    s.cut = chars;
    T::deserialize(&mut s)
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

/// Something in a line that serde_json accepts but that no view can show faithfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anomaly {
    /// A key given twice in one object: 1-based columns of both opening quotes.
    DuplicateKey { key: String, first: usize, again: usize },
    /// A number whose magnitude is beyond f64 (`1e400`): 1-based column and its text.
    NumberOutOfRange { column: usize, text: String },
}

impl Anomaly {
    /// The finding for `line`, at the column of the anomaly. Values are never quoted (they
    /// can hold secrets); keys and numbers are.
    pub fn finding(&self, line: u32) -> Finding {
        match self {
            Anomaly::DuplicateKey { key, first, again } => Finding::at(
                Code::DuplicateKey,
                line,
                Some(*again as u32),
                format!(
                    "duplicate key `{}` (first at column {first}): parsers disagree on which value wins; views show the last one",
                    crate::render::fit::truncate(key, 80)
                ),
            ),
            Anomaly::NumberOutOfRange { column, text } => Finding::at(
                Code::NumberOutOfRange,
                line,
                Some(*column as u32),
                format!(
                    "number `{}` is beyond the range of a 64-bit float; views show it as text",
                    crate::render::fit::truncate(text, 40)
                ),
            ),
        }
    }
}

/// Every duplicate key and out-of-range number of a line, in the order met (a duplicate in
/// an object of more than [`FEW_KEYS`] keys is reported when the object closes). A line
/// that is not valid JSON yields what was found before the fault.
pub fn audit(text: &str) -> Vec<Anomaly> {
    let mut s = Skim::new(text, Some(Vec::new()));
    let _ = s.skip_value();
    s.audit.take().unwrap_or_default()
}

/// The line with every out-of-range number turned into a string of its own text
/// (`1e400` -> `"1e400"`), so that a view can still show the entry; `None` when it has
/// none.
pub fn big_numbers_as_text(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut done = 0;
    for a in audit(text) {
        if let Anomaly::NumberOutOfRange { column, text: number } = a {
            let at = column - 1;
            out.push_str(&text[done..at]);
            out.push('"');
            out.push_str(&number);
            out.push('"');
            done = at + number.len();
        }
    }
    (done > 0).then(|| {
        out.push_str(&text[done..]);
        out
    })
}

/// Objects with up to this many keys are checked for duplicates by comparing each new key
/// with the ones before it; bigger ones are sorted once when they close, so no object costs
/// quadratic time.
const FEW_KEYS: usize = 16;

/// A key seen in an object that is still open: its fingerprint and where it is. Its text is
/// read again from the line only when it must be compared (keys whose fingerprints are
/// equal), so the record borrows nothing and the stack of them outlives the line.
#[derive(Clone, Copy)]
struct SeenKey {
    /// [`fingerprint`] of the key: keys with different ones differ.
    print: u64,
    /// Byte offset of its opening quote.
    at: usize,
}

/// The text of a string's body `raw` (between its quotes): borrowed when it had no escapes.
#[inline]
fn body_text(raw: &str, escaped: bool) -> Result<Cow<'_, str>> {
    if !escaped {
        return Ok(Cow::Borrowed(raw));
    }
    unescape(raw).map(Cow::Owned)
}

/// The text of the key whose opening quote is at `at` in `s`, read again.
fn key_at(s: &str, at: usize) -> Result<Cow<'_, str>> {
    let (end, escaped) = scan_str(s.as_bytes(), at + 1).ok_or(DECLINED)?;
    body_text(s.get(at + 1..end - 1).ok_or(DECLINED)?, escaped)
}

/// What one line's reading needs room for, kept per thread from line to line, so that no
/// line allocates it anew: the keys of the open objects, and [`Skim::skip_value`]'s frames.
#[derive(Default)]
struct Scratch {
    keys: Vec<SeenKey>,
    frames: Vec<(usize, u64)>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = const { std::cell::Cell::new(Scratch { keys: Vec::new(), frames: Vec::new() }) };
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error::Declined
    }
}

pub type Result<T> = std::result::Result<T, Error>;

struct Skim<'de> {
    /// The line; slicing it at the ASCII bytes the scanner stops on is always valid.
    s: &'de str,
    b: &'de [u8],
    i: usize,
    depth: usize,
    /// The keys of every open object, innermost last; each object knows where its own start.
    keys: Vec<SeenKey>,
    /// [`Skim::skip_value`]'s frames, kept for its next call.
    frames: Vec<(usize, u64)>,
    /// One bit per key of the innermost open object ([`bloom_bit`]): a key whose bit is not
    /// set yet is new, without comparing it with the others. An object that opens inside
    /// another saves the outer one's bits and gives them back when it closes.
    bloom: u64,
    /// `Some` in [`audit`]: anomalies are collected here instead of declining the line.
    audit: Option<Vec<Anomaly>>,
    /// The line was accepted before ([`from_accepted_str`]): ignored containers are skipped
    /// unchecked.
    accepted: bool,
    /// How many characters of a [`PROSE_TOKEN`] string are read ([`from_accepted_str_cut`]).
    cut: Option<usize>,
    /// The key of a struct's member whose value is being read, not checked against the
    /// struct's other keys yet ([`Access::fields`]): where its object's keys start in
    /// `keys`, where the key is, and the depth of its value. Checked if the value turns out
    /// to be ignored ([`Deserializer::deserialize_ignored_any`] at that depth).
    unchecked: Option<Unchecked<'de>>,
}

impl Drop for Skim<'_> {
    /// The scratch vectors go back to the thread for its next line.
    fn drop(&mut self) {
        SCRATCH.set(Scratch { keys: std::mem::take(&mut self.keys), frames: std::mem::take(&mut self.frames) });
    }
}

impl<'de> Skim<'de> {
    fn new(text: &'de str, audit: Option<Vec<Anomaly>>) -> Skim<'de> {
        let Scratch { mut keys, mut frames } = SCRATCH.take();
        keys.clear();
        frames.clear();
        Skim {
            s: text,
            b: text.as_bytes(),
            i: 0,
            depth: 0,
            keys,
            frames,
            bloom: 0,
            audit,
            accepted: false,
            cut: None,
            unchecked: None,
        }
    }

    /// Note an anomaly: collected when auditing, else the line is declined.
    fn anomaly(&mut self, a: Anomaly) -> Result<()> {
        match &mut self.audit {
            Some(found) => {
                found.push(a);
                Ok(())
            }
            None => Err(DECLINED),
        }
    }

    /// Read an object key at `self.i` (its opening quote) and check it against the keys the
    /// object opened at `frame` already has.
    #[inline(always)]
    fn object_key(&mut self, frame: usize) -> Result<Cow<'de, str>> {
        let at = self.i;
        let key = self.parse_str()?;
        self.note_key(frame, at, &key, matches!(key, Cow::Owned(_)))?;
        Ok(key)
    }

    /// Check `key`, whose opening quote is at `at` (`escaped` when its text there has
    /// escapes), against the keys noted of the object opened at `frame`, and note it.
    #[inline(always)]
    fn note_key(&mut self, frame: usize, at: usize, key: &str, escaped: bool) -> Result<()> {
        let print = if escaped { fingerprint(key) } else { fingerprint_at(self.b, at + 1, key.as_bytes()) };
        let bit = bloom_bit(print);
        let seen = &self.keys[frame..];
        if self.bloom & bit != 0 && seen.len() < FEW_KEYS {
            let mut first = None;
            for k in seen.iter().filter(|k| k.print == print) {
                if key_at(self.s, k.at)? == key {
                    first = Some(k.at);
                    break;
                }
            }
            if let Some(first) = first {
                self.anomaly(Anomaly::DuplicateKey { key: key.to_string(), first: first + 1, again: at + 1 })?;
            }
        }
        self.bloom |= bit;
        self.keys.push(SeenKey { print, at });
        Ok(())
    }

    /// The object opened at `frame` is closed: check a big one for duplicates in one sort
    /// (small ones were checked key by key), then forget its keys.
    fn close_object(&mut self, frame: usize) -> Result<()> {
        if self.keys.len() > frame + FEW_KEYS {
            // Keys from this offset on were not compared when they were read.
            let unchecked = self.keys[frame + FEW_KEYS].at;
            self.keys[frame..].sort_unstable_by_key(|k| (k.print, k.at));
            // Only keys that share a fingerprint with another are read again: equal keys,
            // and the rare different ones alike in length and first 7 bytes.
            let mut dups = Vec::new();
            for alike in self.keys[frame..].chunk_by(|a, b| a.print == b.print).filter(|r| r.len() > 1) {
                let mut texts = alike.iter().map(|k| Ok((key_at(self.s, k.at)?, k.at))).collect::<Result<Vec<_>>>()?;
                texts.sort_unstable();
                dups.extend(
                    texts
                        .windows(2)
                        .filter(|w| w[0].0 == w[1].0 && w[1].1 >= unchecked)
                        .map(|w| (w[0].clone(), w[1].1)),
                );
            }
            // In the order of the keys' texts, as a sort of the texts gives them.
            dups.sort_unstable();
            for ((key, first), again) in dups {
                self.anomaly(Anomaly::DuplicateKey { key: key.into_owned(), first: first + 1, again: again + 1 })?;
            }
        }
        self.keys.truncate(frame);
        Ok(())
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Result<u8> {
        match self.b.get(self.i) {
            // Compact JSON (what agents write) has no whitespace between tokens.
            Some(&c) if c > b' ' => Ok(c),
            _ => {
                self.ws();
                self.b.get(self.i).copied().ok_or(DECLINED)
            }
        }
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
        let (end, escaped) = scan_str(self.b, self.i + 1).ok_or(DECLINED)?;
        self.i = end;
        Ok(escaped)
    }

    /// Parse a string at `self.i`, borrowing it when it has no escapes.
    #[inline(always)]
    fn parse_str(&mut self) -> Result<Cow<'de, str>> {
        let start = self.i + 1;
        let escaped = self.skip_str()?;
        body_text(self.s.get(start..self.i - 1).ok_or(DECLINED)?, escaped)
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
            Some(b'1'..=b'9') => i += digits_at(b, i),
            _ => return Err(DECLINED),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            match digits_at(b, i) {
                0 => return Err(DECLINED),
                n => i += n,
            }
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = b.get(i) {
            exponent = true;
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            match digits_at(b, i) {
                0 => return Err(DECLINED),
                n => i += n,
            }
        }
        self.i = i;
        let text = self.s.get(start..i).ok_or(DECLINED)?;
        // Without an exponent, only a number of more than 308 digits can pass f64::MAX.
        if (exponent || text.len() > 308) && !text.parse::<f64>().is_ok_and(f64::is_finite) {
            self.anomaly(Anomaly::NumberOutOfRange { column: start + 1, text: text.to_string() })?;
        }
        Ok(text)
    }

    /// Skip any value, iteratively (no recursion, whatever the nesting).
    fn skip_value(&mut self) -> Result<()> {
        let mut stack = std::mem::take(&mut self.frames);
        stack.clear();
        let skipped = self.skip_in(&mut stack);
        self.frames = stack;
        skipped
    }

    /// [`Skim::skip_value`] with `stack` for its frames: one per open container, an array,
    /// or an object and where its keys start, with the key bits of the object around it,
    /// put aside while it is open.
    fn skip_in(&mut self, stack: &mut Vec<(usize, u64)>) -> Result<()> {
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
                        let frame = self.keys.len();
                        stack.push((frame, std::mem::take(&mut self.bloom)));
                        self.key_colon(frame)?;
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    if self.peek()? == b']' {
                        self.i += 1;
                    } else {
                        stack.push((ARRAY, 0));
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
                let Some(&(top, outer)) = stack.last() else { return Ok(()) };
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if top != ARRAY {
                            self.key_colon(top)?;
                        }
                        break;
                    }
                    b'}' if top != ARRAY => {
                        self.i += 1;
                        stack.pop();
                        self.close_object(top)?;
                        self.bloom = outer;
                    }
                    b']' if top == ARRAY => {
                        self.i += 1;
                        stack.pop();
                    }
                    _ => return Err(DECLINED),
                }
            }
        }
    }

    /// Skip the object or array whose opening bracket is at `self.i` by matching brackets
    /// outside strings, without checking anything inside (for lines accepted before:
    /// [`from_accepted_str`]). Each 64-byte block is classified at once: quotes not escaped
    /// by a backslash run ([`escaped_bits`]) open and close strings (their running parity,
    /// a prefix XOR), and only brackets outside strings count; a block is walked bracket by
    /// bracket only when its closing brackets could bring the depth to zero. A container
    /// that does not close on the line is declined.
    fn skip_container(&mut self) -> Result<()> {
        let b = self.b;
        let mut at = self.i;
        let mut depth = 0u64;
        let mut carry = 0u64;
        // All ones while a string that began in an earlier block is still open.
        let mut in_string = 0u64;
        loop {
            let mut pad = [b' '; 64];
            let block = block_at(b, at, &mut pad).ok_or(DECLINED)?;
            let m = Masks::of64(block);
            let quotes = m.quote & !escaped_bits(m.backslash, &mut carry);
            let strings = prefix_xor(quotes) ^ in_string;
            in_string = 0u64.wrapping_sub(strings >> 63);
            let open = either64(block, b'{', b'[') & !strings;
            let close = either64(block, b'}', b']') & !strings;
            if close == 0 {
                if open != 0 {
                    depth += u64::from(open.count_ones());
                }
            } else if depth > u64::from(close.count_ones()) {
                depth = depth + u64::from(open.count_ones()) - u64::from(close.count_ones());
            } else {
                let mut all = open | close;
                while all != 0 {
                    let bit = all & all.wrapping_neg();
                    all &= all - 1;
                    if open & bit != 0 {
                        depth += 1;
                    } else {
                        depth = depth.checked_sub(1).ok_or(DECLINED)?;
                        if depth == 0 {
                            self.i = at + bit.trailing_zeros() as usize + 1;
                            return Ok(());
                        }
                    }
                }
            }
            at += 64;
        }
    }

    /// The key of an object being skipped, and its colon. Its text is read only when it
    /// must be compared: a key without escapes is noted from its bytes when its fingerprint's
    /// bit is new to the object, or when the object is past [`FEW_KEYS`] keys (checked as it
    /// closes); any other key goes through [`Skim::object_key`].
    fn key_colon(&mut self, frame: usize) -> Result<()> {
        if self.peek()? != b'"' {
            return Err(DECLINED);
        }
        let at = self.i;
        let (end, escaped) = scan_str(self.b, at + 1).ok_or(DECLINED)?;
        if !escaped {
            let print = fingerprint_at(self.b, at + 1, self.b.get(at + 1..end - 1).ok_or(DECLINED)?);
            let bit = bloom_bit(print);
            if self.bloom & bit == 0 || self.keys.len() - frame >= FEW_KEYS {
                self.bloom |= bit;
                self.keys.push(SeenKey { print, at });
                self.i = end;
                return self.eat(b':');
            }
        }
        self.object_key(frame)?;
        self.eat(b':')
    }

    /// The object at `self.i` (its opening brace), to `v` as a map; `fields` when `v` is a
    /// struct's visitor ([`Access::fields`]).
    fn object<V: Visitor<'de>>(&mut self, v: V, fields: bool) -> Result<V::Value> {
        self.i += 1;
        self.enter()?;
        let frame = self.keys.len();
        let outer = std::mem::take(&mut self.bloom);
        let value = v.visit_map(Access { de: &mut *self, first: true, close: b'}', frame, fields, key: None })?;
        self.keys.truncate(frame);
        self.bloom = outer;
        self.depth -= 1;
        Ok(value)
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

/// How many ASCII digits `b` has in a row from `at`, eight bytes at a time where the line
/// has them (a number's digits: epoch milliseconds, token counts).
#[inline(always)]
fn digits_at(b: &[u8], at: usize) -> usize {
    let mut i = at;
    while let Some(word) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        // Digits become 0-9. Adding 0x76 sets the top bit of a byte above 9; a byte of
        // 0x80 or more has it already. A carry out of a byte only reaches the bytes after
        // the first that is not a digit, which is the one looked for.
        let t = u64::from_le_bytes(*word) ^ 0x3030_3030_3030_3030;
        let others = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
        if others != 0 {
            return i - at + (others.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i - at
}

/// A [`Skim::skip_value`] frame that is an array (an object's frame is where its keys start).
const ARRAY: usize = usize::MAX;

/// Scan a string body starting at `from` (just after the opening quote). Returns the
/// position just after the closing quote and whether the string had escapes, or `None`
/// for anything serde_json might refuse or decode differently: a raw control byte, an
/// unknown escape, bad hex, a lone surrogate, no closing quote on the line.
///
/// Short strings (keys, ids, kinds) end within their first 16 bytes and take one vector
/// compare. Longer ones (text, thinking, tool output: most of the bytes, with an escape
/// every few dozen bytes) are scanned 64 bytes at a time with bit masks, the way simdjson
/// finds string ends: which quotes are escaped follows from the runs of backslashes by
/// integer arithmetic, so escapes cost no branch each. Only the rare escapes
/// (`\/ \b \f \r \u`) are looked at one by one.
fn scan_str(b: &[u8], from: usize) -> Option<(usize, bool)> {
    scan::<false>(b, from).map(|(end, escaped, _)| (end, escaped))
}

/// The 64 bytes of `b` from `at`; near the end of the line, the rest of it in `pad` (spaces
/// after it). `None` past the end.
fn block_at<'b>(b: &'b [u8], at: usize, pad: &'b mut [u8; 64]) -> Option<&'b [u8; 64]> {
    if let Some(full) = b.get(at..).and_then(|r| r.first_chunk::<64>()) {
        return Some(full);
    }
    let tail = b.get(at..).filter(|t| !t.is_empty())?;
    pad[..tail.len()].copy_from_slice(tail);
    Some(pad)
}

/// [`scan_str`], and the UTF-16 code units of the text the body stands for, counted on its
/// escaped bytes in the same pass ([`JS_LEN_TOKEN`]): a byte that starts a character is one
/// unit and a 4-byte character two (a surrogate pair), as in [`crate::content::js_len`]; an
/// escape is one unit for its two bytes (`\n`) or six (`\u00e9`), so each backslash that
/// starts one takes a unit off, and each `u` after one four more. Also whether the body had
/// escapes, as [`scan_str`] says.
fn scan_str_units(b: &[u8], from: usize) -> Option<(usize, bool, u64)> {
    scan::<true>(b, from)
}

/// The units of the string whose body (escaped, between its quotes, checked by [`scan`]) is
/// `body` and whose text has `units` UTF-16 code units, as serde_json writes that text back:
/// its quotes, and one unit more for each character it escapes in two (`\"`, `\\`, `\b`,
/// `\f`, `\n`, `\r`, `\t`), five more for the other control characters (`\u00XX`). Those
/// characters are written escaped in the body, so only its escapes are looked at: each stands
/// for one of them but `\/` (a slash) and a `\u` escape of any other character.
fn requoted_len(body: &[u8], units: u64) -> u64 {
    let mut extra = 0;
    let mut at = 0;
    while let Some(p) = body.get(at..).and_then(|r| memchr::memchr(b'\\', r)) {
        let p = at + p;
        at = p + 2;
        extra += match body.get(p + 1) {
            Some(b'/') => 0,
            Some(b'u') => {
                at = p + 6;
                match super::hex_at(body, p + 2) {
                    Some(0x22 | 0x5c | 0x08 | 0x0c | 0x0a | 0x0d | 0x09) => 1,
                    Some(0..=0x1f) => 5,
                    _ => 0,
                }
            }
            _ => 1,
        };
    }
    2 + units + extra
}

/// The scan of [`scan_str`]; with `UNITS`, the units of [`scan_str_units`] too (0 without).
#[inline(always)]
fn scan<const UNITS: bool>(b: &[u8], from: usize) -> Option<(usize, bool, u64)> {
    let rest = b.get(from..)?;
    // Most strings (ids, times, paths, names, short texts) have no escape: they end at their
    // first special byte, found 16 bytes at a time. The blocks below start where the first
    // special byte is not the closing quote, with the clean bytes before it counted.
    let mut clean = 0;
    while let Some(part) = rest.get(clean..).and_then(|r| r.first_chunk::<16>()) {
        let m = Masks::of16(part);
        let special = m.quote | m.backslash | m.control;
        if special == 0 {
            clean += 16;
            continue;
        }
        if special & m.quote & special.wrapping_neg() != 0 {
            // The first special byte is the closing quote.
            let len = clean + special.trailing_zeros() as usize;
            let units = if UNITS { crate::content::utf16_len(&rest[..len]) } else { 0 };
            return Some((from + len + 1, false, units));
        }
        break;
    }
    scan_blocks::<UNITS>(b, from, clean)
}

/// The rest of [`scan`], 64 bytes at a time from `from + clean` (the `clean` bytes before
/// it hold no special byte). Apart, so that the short strings' path stays small.
///
/// A CPU with AVX2 (nearly every x86-64 CPU since 2013) makes a block's masks 32 bytes at a
/// time, the others 16 ([`scan_blocks_avx2`]).
#[inline(never)]
fn scan_blocks<const UNITS: bool>(b: &[u8], from: usize, clean: usize) -> Option<(usize, bool, u64)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the one requirement of a `#[target_feature]` function is that the CPU
        // has the features it names, and it was just asked for them.
        #[allow(unsafe_code)]
        return unsafe { scan_blocks_avx2::<UNITS>(b, from, clean) };
    }
    scan_blocks_with::<UNITS>(b, from, clean, Masks::of64, CharMasks::of64, |k| either64(k, b'n', b't'))
}

/// [`scan_blocks`] compiled for AVX2 (and `popcnt`, which every AVX2 CPU has), with the
/// masks made 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn scan_blocks_avx2<const UNITS: bool>(b: &[u8], from: usize, clean: usize) -> Option<(usize, bool, u64)> {
    scan_blocks_with::<UNITS>(
        b,
        from,
        clean,
        |k| Masks::of64_avx2(k),
        |k| CharMasks::of64_avx2(k),
        |k| either64_avx2(k, b'n', b't'),
    )
}

/// The loop of [`scan_blocks`], with the functions that make a block's masks. Inlined in
/// each caller, so that the loop is compiled for the caller's instruction set.
#[inline(always)]
fn scan_blocks_with<const UNITS: bool>(
    b: &[u8],
    from: usize,
    clean: usize,
    masks: impl Fn(&[u8; 64]) -> Masks,
    char_masks: impl Fn(&[u8; 64]) -> CharMasks,
    n_or_t: impl Fn(&[u8; 64]) -> u64,
) -> Option<(usize, bool, u64)> {
    let mut at = from + clean;
    // 1 when the first byte of the next block is escaped by a backslash before it.
    let mut carry = 0u64;
    let mut had_escape = false;
    let mut units = if UNITS { crate::content::utf16_len(b.get(from..at)?) } else { 0 };
    // The position of the `u` of a low surrogate already checked with its high half.
    let mut paired = usize::MAX;
    loop {
        let mut pad = [b' '; 64];
        let block = block_at(b, at, &mut pad)?;
        let m = masks(block);
        let escaped = escaped_bits(m.backslash, &mut carry);
        let ends = m.quote & !escaped;
        // The bits before the closing quote, if it is in this block.
        let inside = if ends == 0 { !0 } else { (ends & ends.wrapping_neg()) - 1 };
        if m.control & inside != 0 {
            return None;
        }
        let escapes = escaped & inside;
        if UNITS {
            // Bit counts only where there are bits: the baseline x86-64 has no popcnt
            // instruction, and most blocks are ASCII text without escapes.
            let c = char_masks(block);
            let count = |bits: u64| if bits == 0 { 0 } else { u64::from(bits.count_ones()) };
            let inside_len = if ends == 0 { 64 } else { u64::from(ends.trailing_zeros()) };
            // (Wrapping: a `u` can end a block whose escape's digits are in the next, and a
            // string cut short is declined below, after its block was counted.)
            units = units.wrapping_add(inside_len + count(c.four & inside)).wrapping_sub(
                count(c.continuation & inside) + count(m.backslash & !escaped & inside) + 4 * count(c.u & escapes),
            );
        }
        if escapes != 0 {
            had_escape = true;
            let unusual = escapes & !(m.quote | m.backslash | n_or_t(block));
            let mut bits = unusual;
            while bits != 0 {
                let p = at + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                // (Past the end of the line is the padding: a backslash ended the line.)
                match b.get(p) {
                    Some(b'/' | b'b' | b'f' | b'r') => {}
                    Some(b'u') => unicode_escape(b, p, &mut paired)?,
                    _ => return None,
                }
            }
        }
        if ends != 0 {
            return Some((at + ends.trailing_zeros() as usize + 1, had_escape, units));
        }
        at += 64;
    }
}

/// Check the `\uXXXX` escape whose `u` is at `p`. A surrogate must come as a high-low pair:
/// a lone one is declined, so the caller's repair path (U+FFFD, with a warning) takes the
/// line. `paired` remembers a low half already checked with its high half.
fn unicode_escape(b: &[u8], p: usize, paired: &mut usize) -> Option<()> {
    match super::hex_at(b, p + 1)? {
        0xD800..=0xDBFF => match (b.get(p + 5..p + 7), super::hex_at(b, p + 7)) {
            (Some(b"\\u"), Some(0xDC00..=0xDFFF)) => {
                *paired = p + 6;
                Some(())
            }
            _ => None,
        },
        0xDC00..=0xDFFF => (*paired == p).then_some(()),
        _ => Some(()),
    }
}

/// The bits of bytes escaped by a backslash, given the block's backslash bits and whether
/// its first byte is escaped (`carry`, updated for the next block). A run of backslashes
/// escapes every other byte from its start, so an odd run escapes the byte after it.
/// (simdjson's `json_escape_scanner`.)
fn escaped_bits(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslash == 0 {
        return std::mem::take(carry);
    }
    let potential = backslash & !*carry;
    let codes = ((potential << 1) | ODD).wrapping_sub(potential) ^ ODD;
    let escaped = codes ^ (backslash | *carry);
    *carry = (codes & backslash) >> 63;
    escaped
}

/// Bit masks of a block's quotes, backslashes and control bytes (below 0x20, which JSON
/// forbids inside strings); bit `k` is byte `k`.
#[derive(Debug, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    control: u64,
}

#[cfg(target_arch = "x86_64")]
impl Masks {
    fn of16(block: &[u8; 16]) -> Masks {
        use safe_arch::{
            cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
        };
        let v = load_unaligned_m128i(block);
        let bits = |m| u64::from(move_mask_i8_m128i(m) as u16);
        Masks {
            quote: bits(cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8))),
            backslash: bits(cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8))),
            control: bits(cmp_eq_mask_i8_m128i(min_u8_m128i(v, set_splat_i8_m128i(0x1f)), v)),
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Masks {
    fn of16(block: &[u8; 16]) -> Masks {
        Masks::scalar(block)
    }
}

impl Masks {
    fn of64(block: &[u8; 64]) -> Masks {
        let mut m = Masks { quote: 0, backslash: 0, control: 0 };
        for (k, part) in block.chunks_exact(16).enumerate() {
            let Ok(part) = <&[u8; 16]>::try_from(part) else { break };
            let p = Masks::of16(part);
            m.quote |= p.quote << (16 * k);
            m.backslash |= p.backslash << (16 * k);
            m.control |= p.control << (16 * k);
        }
        m
    }

    /// [`Masks::of64`] 32 bytes at a time (callers check that the CPU has AVX2).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn of64_avx2(block: &[u8; 64]) -> Masks {
        use std::arch::x86_64::{_mm256_cmpeq_epi8, _mm256_min_epu8, _mm256_set1_epi8};
        let (quote, backslash, control) =
            (_mm256_set1_epi8(b'"' as i8), _mm256_set1_epi8(b'\\' as i8), _mm256_set1_epi8(0x1f));
        let mut m = Masks { quote: 0, backslash: 0, control: 0 };
        for (k, v) in halves(block).into_iter().enumerate() {
            let bits = |x| wide_bits(x) << (32 * k);
            m.quote |= bits(_mm256_cmpeq_epi8(v, quote));
            m.backslash |= bits(_mm256_cmpeq_epi8(v, backslash));
            m.control |= bits(_mm256_cmpeq_epi8(_mm256_min_epu8(v, control), v));
        }
        m
    }

    /// Byte by byte: the reference the vector version is tested against, and the version
    /// for other architectures.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn scalar(block: &[u8]) -> Masks {
        let mut m = Masks { quote: 0, backslash: 0, control: 0 };
        for (k, &c) in block.iter().enumerate() {
            m.quote |= u64::from(c == b'"') << k;
            m.backslash |= u64::from(c == b'\\') << k;
            m.control |= u64::from(c < 0x20) << k;
        }
        m
    }
}

/// Bit masks of a block's UTF-8 continuation bytes (0x80-0xBF: every other byte starts a
/// character), of the bytes that lead a 4-byte character (0xF0 and up) and of its `u`s.
#[derive(Debug, PartialEq, Eq)]
struct CharMasks {
    continuation: u64,
    four: u64,
    u: u64,
}

impl CharMasks {
    #[cfg(target_arch = "x86_64")]
    fn of64(block: &[u8; 64]) -> CharMasks {
        use safe_arch::{
            cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i,
            set_splat_i8_m128i,
        };
        let (cont, lead4, u) =
            (set_splat_i8_m128i(-0x40), set_splat_i8_m128i(0xF0u8 as i8), set_splat_i8_m128i(b'u' as i8));
        let mut c = CharMasks { continuation: 0, four: 0, u: 0 };
        for (k, part) in block.chunks_exact(16).enumerate() {
            let Ok(part) = <&[u8; 16]>::try_from(part) else { break };
            let v = load_unaligned_m128i(part);
            let bits = |m| u64::from(move_mask_i8_m128i(m) as u16) << (16 * k);
            c.continuation |= bits(cmp_lt_mask_i8_m128i(v, cont));
            c.four |= bits(cmp_eq_mask_i8_m128i(max_u8_m128i(v, lead4), v));
            c.u |= bits(cmp_eq_mask_i8_m128i(v, u));
        }
        c
    }

    /// [`CharMasks::of64`] 32 bytes at a time (callers check that the CPU has AVX2).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn of64_avx2(block: &[u8; 64]) -> CharMasks {
        use std::arch::x86_64::{_mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_max_epu8, _mm256_set1_epi8};
        let (cont, lead4, u) = (_mm256_set1_epi8(-0x40), _mm256_set1_epi8(0xF0u8 as i8), _mm256_set1_epi8(b'u' as i8));
        let mut c = CharMasks { continuation: 0, four: 0, u: 0 };
        for (k, v) in halves(block).into_iter().enumerate() {
            let bits = |x| wide_bits(x) << (32 * k);
            c.continuation |= bits(_mm256_cmpgt_epi8(cont, v));
            c.four |= bits(_mm256_cmpeq_epi8(_mm256_max_epu8(v, lead4), v));
            c.u |= bits(_mm256_cmpeq_epi8(v, u));
        }
        c
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of64(block: &[u8; 64]) -> CharMasks {
        CharMasks::scalar(block)
    }

    /// Byte by byte: the reference the vector version is tested against.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn scalar(block: &[u8]) -> CharMasks {
        let mut c = CharMasks { continuation: 0, four: 0, u: 0 };
        for (k, &b) in block.iter().enumerate() {
            c.continuation |= u64::from((b as i8) < -0x40) << k;
            c.four |= u64::from(b >= 0xF0) << k;
            c.u |= u64::from(b == b'u') << k;
        }
        c
    }
}

/// A key's length and first 7 bytes in one word, so that most keys of an object are told
/// apart without comparing their bytes (equal keys have equal fingerprints; keys of up to 7
/// bytes with equal fingerprints are equal).
fn fingerprint(key: &str) -> u64 {
    fingerprint_at(key.as_bytes(), 0, key.as_bytes())
}

/// [`fingerprint`] of a key that is the bytes of `b` from `from` (a key read straight from
/// the line, or the key itself): its first 8 bytes are one read when `b` has them, whatever
/// follows the key, else they are folded byte by byte. (No copy of a variable length: that
/// is a call to memcpy per key.)
#[inline(always)]
fn fingerprint_at(b: &[u8], from: usize, key: &[u8]) -> u64 {
    let head = match b.get(from..).and_then(|r| r.first_chunk::<8>()) {
        Some(word) => u64::from_le_bytes(*word),
        None => key.iter().take(7).rev().fold(0, |w, &c| w << 8 | u64::from(c)),
    };
    head & ((1u64 << (8 * key.len().min(7))) - 1) | (key.len() as u64) << 56
}

/// The bit of a key in [`Skim::bloom`]: 6 bits of its [`fingerprint`], mixed (keys alike in
/// their first bytes, as `k1`, `k2`, differ in few bits of it).
fn bloom_bit(print: u64) -> u64 {
    1 << (print.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58)
}

/// Bit `k` is the parity of the set bits `0..=k` of `x`: with `x` the unescaped quotes of a
/// block, the bits inside strings (each opening quote included, each closing one not).
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// A block as two 32-byte vectors (each loaded as two 16-byte halves: a load of 32 bytes
/// takes a raw pointer, the 16-byte load a reference).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn halves(block: &[u8; 64]) -> [std::arch::x86_64::__m256i; 2] {
    let mut parts = [safe_arch::m128i::default(); 4];
    for (part, bytes) in parts.iter_mut().zip(block.chunks_exact(16)) {
        let Ok(bytes) = <&[u8; 16]>::try_from(bytes) else { break };
        *part = safe_arch::load_unaligned_m128i(bytes);
    }
    [0, 2].map(|k| std::arch::x86_64::_mm256_set_m128i(parts[k + 1].0, parts[k].0))
}

/// The top bits of the 32 bytes of a comparison's result.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn wide_bits(x: std::arch::x86_64::__m256i) -> u64 {
    u64::from(std::arch::x86_64::_mm256_movemask_epi8(x) as u32)
}

/// Bits of the bytes of a block equal to `a` or `b`.
#[cfg(target_arch = "x86_64")]
fn either64(block: &[u8; 64], a: u8, b: u8) -> u64 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i};
    let (a, b) = (set_splat_i8_m128i(a as i8), set_splat_i8_m128i(b as i8));
    let mut out = 0;
    for (k, part) in block.chunks_exact(16).enumerate() {
        let Ok(part) = <&[u8; 16]>::try_from(part) else { break };
        let v = load_unaligned_m128i(part);
        let hit = bitor_m128i(cmp_eq_mask_i8_m128i(v, a), cmp_eq_mask_i8_m128i(v, b));
        out |= u64::from(move_mask_i8_m128i(hit) as u16) << (16 * k);
    }
    out
}

/// [`either64`] 32 bytes at a time (callers check that the CPU has AVX2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn either64_avx2(block: &[u8; 64], a: u8, b: u8) -> u64 {
    use std::arch::x86_64::{_mm256_cmpeq_epi8, _mm256_or_si256, _mm256_set1_epi8};
    let (a, b) = (_mm256_set1_epi8(a as i8), _mm256_set1_epi8(b as i8));
    let mut out = 0;
    for (k, v) in halves(block).into_iter().enumerate() {
        out |= wide_bits(_mm256_or_si256(_mm256_cmpeq_epi8(v, a), _mm256_cmpeq_epi8(v, b))) << (32 * k);
    }
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn either64(block: &[u8; 64], a: u8, b: u8) -> u64 {
    block.iter().enumerate().fold(0, |m, (k, &c)| m | u64::from(c == a || c == b) << k)
}

/// The length of the start of a string body `s` (escaped, without quotes, scanned already)
/// that stands for its first `chars` characters: an escape is one character (a surrogate
/// pair's two escapes one), any other character its UTF-8 bytes.
fn escaped_prefix_len(s: &str, chars: usize) -> usize {
    let b = s.as_bytes();
    // Every character takes a byte at least: a body that short is all of its start.
    if b.len() <= chars {
        return b.len();
    }
    let mut at = 0;
    for _ in 0..chars {
        let Some(&c) = b.get(at) else { break };
        at += match c {
            b'\\' if b.get(at + 1) == Some(&b'u') => match super::hex_at(b, at + 2) {
                Some(0xD800..=0xDBFF) => 12,
                _ => 6,
            },
            b'\\' => 2,
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
    }
    at.min(b.len())
}

/// Decode the escapes of a string body (without quotes). Lone surrogates are an error, as
/// in serde_json (lines with them were repaired before they got here).
fn unescape(s: &str) -> Result<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
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
            b'{' => self.object(v, false),
            b'[' => {
                self.i += 1;
                self.enter()?;
                let value = v.visit_seq(Access {
                    de: &mut *self,
                    first: true,
                    close: b']',
                    frame: ARRAY,
                    fields: false,
                    key: None,
                })?;
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
                let digits = text.as_bytes();
                if digits.len() <= 19 && digits.iter().all(u8::is_ascii_digit) {
                    // A non-negative integer of at most 19 digits always fits u64 (counts,
                    // timestamps: most numbers in a session).
                    return v.visit_u64(digits.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')));
                }
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

    /// A struct's members are read as a map's, but a member the struct knows is not checked
    /// for a duplicate here: its visitor refuses a member named twice ([`Access::fields`]).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        match self.peek()? {
            b'{' => self.object(v, self.audit.is_none()),
            _ => self.deserialize_any(v),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        // A member of a struct that the struct does not know: checked as a map's key is.
        if let Some(u) = self.unchecked.take() {
            if u.depth == self.depth {
                match u.text {
                    Some(text) => self.note_key(u.frame, u.at, text, false)?,
                    None => self.note_key(u.frame, u.at, &key_at(self.s, u.at)?, true)?,
                }
            }
        }
        if self.accepted && matches!(self.peek()?, b'{' | b'[') {
            self.skip_container()?;
        } else {
            self.skip_value()?;
        }
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
        if name == JS_LEN_TOKEN || name == JSON_LEN_TOKEN {
            if self.peek()? != b'"' {
                return self.deserialize_any(v);
            }
            let start = self.i + 1;
            let (end, escaped, units) = scan_str_units(self.b, start).ok_or(DECLINED)?;
            self.i = end;
            // The text's units, or those of the text written back as JSON.
            let count = match () {
                _ if name == JS_LEN_TOKEN => units,
                _ if escaped => requoted_len(&self.b[start..end - 1], units),
                _ => 2 + units,
            };
            return v.visit_newtype_struct(de::value::U64Deserializer::<Error>::new(count));
        }
        if name == RAW_STR_TOKEN {
            if self.peek()? != b'"' {
                return self.deserialize_any(v);
            }
            let start = self.i + 1;
            self.skip_str()?;
            return v.visit_borrowed_str(self.s.get(start..self.i - 1).ok_or(DECLINED)?);
        }
        if name == PROSE_TOKEN {
            return match (self.cut, self.peek()?) {
                (Some(chars), b'"') => {
                    let start = self.i + 1;
                    let escaped = self.skip_str()?;
                    let body = self.s.get(start..self.i - 1).ok_or(DECLINED)?;
                    match body_text(body.get(..escaped_prefix_len(body, chars)).ok_or(DECLINED)?, escaped)? {
                        Cow::Borrowed(text) => v.visit_borrowed_str(text),
                        Cow::Owned(text) => v.visit_string(text),
                    }
                }
                _ => self.deserialize_any(v),
            };
        }
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
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// Map and sequence access: `first` is true until the first element was read.
struct Access<'a, 'de> {
    de: &'a mut Skim<'de>,
    first: bool,
    close: u8,
    /// For a map, where its keys start in [`Skim::keys`].
    frame: usize,
    /// The map is a struct's members, read by the visitor serde derives for it, which refuses
    /// a member it knows named twice: only the members it ignores (which it skips with
    /// `deserialize_ignored_any`) are checked against each other here. (Every
    /// `deserialize_struct` of this crate is a derived one, and none of the library types the
    /// decoders read asks for one; a hand-written visitor asks for a map or for any value.)
    fields: bool,
    /// With `fields`, the last key read, for its value.
    key: Option<Unchecked<'de>>,
}

/// A struct member's key not checked yet ([`Skim::unchecked`]).
struct Unchecked<'de> {
    /// Where the keys of its object start in [`Skim::keys`].
    frame: usize,
    /// Where the key is (its opening quote), and its text when it has no escapes.
    at: usize,
    text: Option<&'de str>,
    /// The depth of its value.
    depth: usize,
}

impl Access<'_, '_> {
    /// Move to the next element; false at the closing bracket (consumed).
    fn next(&mut self) -> Result<bool> {
        let c = self.de.peek()?;
        if c == self.close {
            self.de.i += 1;
            if self.frame != ARRAY {
                self.de.close_object(self.frame)?;
            }
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
        let key = if self.fields {
            let at = self.de.i;
            let key = self.de.parse_str()?;
            let text = if let Cow::Borrowed(k) = key { Some(k) } else { None };
            self.key = Some(Unchecked { frame: self.frame, at, text, depth: self.de.depth });
            key
        } else {
            self.de.object_key(self.frame)?
        };
        match key {
            Cow::Borrowed(k) => seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(k)),
            Cow::Owned(k) => seed.deserialize(de::value::StringDeserializer::<Error>::new(k)),
        }
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.de.eat(b':')?;
        if !self.fields {
            return seed.deserialize(&mut *self.de);
        }
        self.de.unchecked = self.key.take();
        let value = seed.deserialize(&mut *self.de);
        self.de.unchecked = None;
        value
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

/// Walk the members of the object just opened on `$w` ([`Walk::object`]): each key named
/// here runs its statement (which reads the value), any other is skipped, and a key met twice
/// declines the line (`return None`), as the derived `Deserialize` refuses it.
macro_rules! members {
    ($w:ident, { $($name:literal => $read:expr),* $(,)? }) => {{
        const _: () = assert!([$($name),*].len() <= 32, "a walk tells 32 members apart");
        let mut seen = 0u32;
        let mut others = $crate::format::skim::Others::default();
        let mut first = true;
        while let Some(key) = $w.key(first)? {
            first = false;
            let mut bit = 1u32;
            let found = 'found: {
                $(
                    if key == $name {
                        $read;
                        break 'found true;
                    }
                    bit <<= 1;
                )*
                false
            };
            if !found {
                #[cfg(test)]
                $crate::format::skim::tests::skipped(key);
                $w.skip_other(key, &mut others)?;
            } else if seen & bit != 0 {
                return None;
            } else {
                seen |= bit;
            }
        }
    }};
}
pub(crate) use members;

/// The keys of one object that a [`Walk`] skipped ([`Walk::skip_other`]), to tell a key given
/// twice among them (those it reads, it tells apart itself): where each is in the line, and
/// its length. Objects of more such keys than this holds are declined (a Claude Code line
/// has a dozen).
#[derive(Default)]
pub struct Others {
    keys: [(u32, u32); 16],
    n: usize,
}

impl Others {
    /// Note `key`, a slice of `line`: `None` when it was met before, or when too many were.
    #[inline(always)]
    fn note(&mut self, line: &str, key: &str) -> Option<()> {
        if self.n == self.keys.len() {
            return None;
        }
        for &(at, len) in &self.keys[..self.n] {
            if len as usize == key.len() && line.get(at as usize..(at + len) as usize)? == key {
                return None;
            }
        }
        let at = (key.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        self.keys[self.n] = (u32::try_from(at).ok()?, u32::try_from(key.len()).ok()?);
        self.n += 1;
        Some(())
    }
}

/// A line read by hand, container by container, for a decoder that knows the common shape of
/// its lines ([`Walk::new`]): the objects and arrays it opens are walked here, the values it
/// asks for are deserialized by this parser as serde would (`T::deserialize`), and whatever it
/// skips is validated as [`from_str`] validates it. What the serde path spends on a struct's
/// members (the field visitor, the map access, the duplicate check by fingerprint) is left
/// out: the caller matches each key and tells a duplicate itself.
///
/// Every method answers `None` for anything it does not take (a key with escapes, a fault),
/// and the caller then declines the line to [`from_str`], which has the last word: so a walk
/// may decline more lines than the serde path, never accept one it would refuse.
pub struct Walk<'de> {
    s: Skim<'de>,
    /// Whether the walk counts each message's content as it passes, for a load that keeps
    /// the count ([`super::Detail::Tallied`]).
    measure: bool,
}

impl<'de> Walk<'de> {
    pub fn new(text: &'de str) -> Walk<'de> {
        Walk { s: Skim::new(text, None), measure: false }
    }

    /// Walk the line `text`, an object whose members `members` reads (the object open):
    /// `None` unless it took the whole line, nothing but whitespace after.
    #[inline(always)]
    pub fn line(text: &'de str, members: impl FnOnce(&mut Walk<'de>) -> Option<()>) -> Option<()> {
        Walk::line_with(text, false, members)
    }

    /// [`Walk::line`], counting each message's content as it passes when `measure`
    /// ([`Walk::measures`]).
    #[inline(always)]
    pub fn line_with(text: &'de str, measure: bool, members: impl FnOnce(&mut Walk<'de>) -> Option<()>) -> Option<()> {
        let mut w = Walk { s: Skim::new(text, None), measure };
        w.object()?;
        members(&mut w)?;
        w.s.ws();
        (w.s.i == w.s.b.len()).then_some(())
    }

    /// A member that is an object the caller walks (`walk`, which opens it), or `null` or any
    /// other value, read as `Option<T>` by serde (and refused as serde refuses it).
    #[inline(always)]
    pub fn nested<T: de::Deserialize<'de>>(&mut self, walk: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.peek()? {
            b'{' => walk(self).map(Some),
            _ => self.value(),
        }
    }

    /// Whether the walk counts message content as it passes ([`Walk::line_with`]).
    pub fn measures(&self) -> bool {
        self.measure
    }

    /// The first byte of the next value (whitespace skipped).
    #[inline(always)]
    pub fn peek(&mut self) -> Option<u8> {
        self.s.peek().ok()
    }

    /// Open the object that starts here.
    #[inline(always)]
    pub fn object(&mut self) -> Option<()> {
        if self.s.peek().ok()? != b'{' {
            return None;
        }
        self.s.i += 1;
        self.s.enter().ok()
    }

    /// Open the array that starts here.
    #[inline(always)]
    pub fn array(&mut self) -> Option<()> {
        if self.s.peek().ok()? != b'[' {
            return None;
        }
        self.s.i += 1;
        self.s.enter().ok()
    }

    /// The next key of the open object (`first`: none was read yet) and its colon, or
    /// `Some(None)` at its closing brace (the object is closed). A key with escapes is not
    /// taken: its text could equal another's.
    #[inline(always)]
    pub fn key(&mut self, first: bool) -> Option<Option<&'de str>> {
        let mut c = self.s.peek().ok()?;
        if c == b'}' {
            self.s.i += 1;
            self.s.depth -= 1;
            return Some(None);
        }
        if !first {
            if c != b',' {
                return None;
            }
            self.s.i += 1;
            c = self.s.peek().ok()?;
        }
        if c != b'"' {
            return None;
        }
        let start = self.s.i + 1;
        if self.s.skip_str().ok()? {
            return None;
        }
        let key = self.s.s.get(start..self.s.i - 1)?;
        self.s.eat(b':').ok()?;
        Some(Some(key))
    }

    /// Whether the open array has another element (`first`: none was read yet); false at its
    /// closing bracket (the array is closed).
    #[inline(always)]
    pub fn element(&mut self, first: bool) -> Option<bool> {
        let c = self.s.peek().ok()?;
        if c == b']' {
            self.s.i += 1;
            self.s.depth -= 1;
            return Some(false);
        }
        if !first {
            if c != b',' {
                return None;
            }
            self.s.i += 1;
        }
        Some(true)
    }

    /// The string here (its opening quote peeked by the caller), as this parser reads a
    /// string for serde: borrowed from the line unless it has escapes.
    #[inline(always)]
    pub fn string(&mut self) -> Option<Cow<'de, str>> {
        self.s.parse_str().ok()
    }

    /// The number here (its first byte peeked by the caller) if it is a non-negative integer
    /// of at most 18 digits, without fraction or exponent (a count, a time in milliseconds:
    /// what serde gets as a `u64` from this parser); `None`, nothing read, for any other
    /// value.
    #[inline(always)]
    pub fn uint(&mut self) -> Option<u64> {
        let (b, at) = (self.s.b, self.s.i);
        let n = digits_at(b, at);
        let lead_zero = n > 1 && b.get(at) == Some(&b'0');
        if n == 0 || n > 18 || lead_zero || matches!(b.get(at + n), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.s.i = at + n;
        Some(b.get(at..at + n)?.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0')))
    }

    /// The value here, as `T` reads it from this parser.
    #[inline(always)]
    pub fn value<T: de::Deserialize<'de>>(&mut self) -> Option<T> {
        T::deserialize(&mut self.s).ok()
    }

    /// Skip the value here, checked as [`from_str`] checks what it skips.
    #[inline(always)]
    pub fn skip(&mut self) -> Option<()> {
        self.s.skip_value().ok()
    }

    /// Skip the value of `key`, a member the caller does not read: `None` when the object
    /// had it already (`others` holds the keys skipped in it so far).
    #[inline(always)]
    pub fn skip_other(&mut self, key: &'de str, others: &mut Others) -> Option<()> {
        others.note(self.s.s, key)?;
        self.skip()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        static SKIPPED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    /// Note a key a [`members`] walk skipped on this thread.
    pub(crate) fn skipped(key: &str) {
        SKIPPED.with(|s| s.borrow_mut().push(key.to_string()));
    }

    /// The keys the [`members`] walks of `read` skipped, and what it returned.
    pub(crate) fn skipping<R>(read: impl FnOnce() -> R) -> (R, Vec<String>) {
        SKIPPED.with(|s| s.borrow_mut().clear());
        let r = read();
        (r, SKIPPED.with(|s| std::mem::take(&mut *s.borrow_mut())))
    }

    /// Assert that `members` (a line's walk, [`Walk::line`]) takes `line` whole and skips
    /// none of its keys as unknown.
    pub(crate) fn walks_whole<'a>(line: &'a str, members: impl FnOnce(&mut Walk<'a>) -> Option<()>) {
        let (walked, skipped) = skipping(|| Walk::line(line, members).is_some());
        assert!(walked && skipped.is_empty(), "{line}: walked {walked}, skipped {skipped:?}");
    }

    /// The members the derived `Deserialize` of the struct `T` knows: serde names them to
    /// `deserialize_struct`, which this deserializer answers with nothing else.
    pub(crate) fn struct_fields<'de, T: de::Deserialize<'de>>() -> &'static [&'static str] {
        struct Grab(Option<&'static [&'static str]>);
        impl<'de> Deserializer<'de> for &mut Grab {
            type Error = de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Self::Error> {
                Err(de::Error::custom("only a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> std::result::Result<V::Value, Self::Error> {
                self.0 = Some(fields);
                Err(de::Error::custom("fields taken"))
            }
            forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
                option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
                ignored_any
            }
        }
        let mut g = Grab(None);
        let _ = T::deserialize(&mut g);
        g.0.expect("a struct")
    }

    /// The units a scan counts on a string's escaped bytes.
    fn units_of(body: &str) -> Option<u64> {
        let quoted = format!("\"{body}\"");
        let (end, _, units) = scan_str_units(quoted.as_bytes(), 1)?;
        assert_eq!(end, quoted.len(), "{body:?}");
        Some(units)
    }

    /// Counting the units of an escaped body gives the units of its unescaped text, with
    /// every escape at the start, the middle and the end, next to 1-4 byte characters, in
    /// bodies short enough for the first probe and long enough to span 64-byte blocks at
    /// every offset.
    #[test]
    fn escaped_units_are_the_units_of_the_unescaped_text() {
        let escapes = [
            r#"\""#,
            r"\\",
            r"\/",
            r"\b",
            r"\f",
            r"\n",
            r"\r",
            r"\t",
            r"\u00e9",
            r"\u0041",
            r"\ud83d\ude00",
            r"\u2028",
            r"\u0075",
        ];
        let around = ["", "a", "é", "€", "😀", "\\\\", "ab\\ncd", "u"];
        let mut n = 0;
        for e in escapes {
            for a in around {
                for b in around {
                    for body in
                        [format!("{e}{a}{b}"), format!("{a}{e}{b}"), format!("{a}{b}{e}"), format!("{a}{e}{e}{b}")]
                    {
                        for body in [body.clone(), format!("{}{body}", "x".repeat(n % 70)), body.repeat(9)] {
                            let text = unescape(&body).unwrap();
                            assert_eq!(units_of(&body), Some(crate::content::js_len(&text)), "{body:?}");
                            assert_eq!(crate::content::js_len(&text), text.encode_utf16().count() as u64, "{body:?}");
                        }
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 2000);
        assert_eq!(scan_str_units(br#""cut \u00"#, 1), None);
        assert_eq!(scan_str_units(b"\"cut \\", 1), None);
        assert_eq!(scan_str_units(b"\"ctrl \x01\"", 1), None);
    }

    #[test]
    fn vector_char_masks_match_the_scalar_ones() {
        let mut block = [0u8; 64];
        for start in (0..=255u8).step_by(7) {
            for (k, b) in block.iter_mut().enumerate() {
                *b = start.wrapping_add((k * 37) as u8);
            }
            assert_eq!(CharMasks::of64(&block), CharMasks::scalar(&block), "{start}");
        }
    }

    use serde_json::Value;

    /// Whatever the skimmer accepts, serde_json accepts, with the same value.
    fn agrees(s: &str) {
        let ours: std::result::Result<Value, Error> = from_str(s);
        let oracle: std::result::Result<Value, _> = serde_json::from_str(s);
        if let Ok(v) = ours {
            // Compared as text too: `Value`'s equality would not tell 7 (u64) from 7.0.
            assert_eq!(Some(v.to_string()), oracle.as_ref().ok().map(Value::to_string), "{s:?}");
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
            r#"{"a":[0,7,9999999999999999999,10000000000000000000,18446744073709551615,-0,-7,1.0,1e2,0.5]}"#,
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
    fn vector_masks_match_the_scalar_ones() {
        let mut block = [0u8; 64];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..2000 {
            for c in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly the bytes that matter, some of everything else.
                *c = match x % 8 {
                    0 => b'"',
                    1 => b'\\',
                    2 => (x >> 8) as u8 % 0x21,
                    3 => 0x80 | (x >> 8) as u8,
                    _ => (x >> 8) as u8,
                };
            }
            assert_eq!(Masks::of64(&block), Masks::scalar(&block), "round {round}");
            for (a, b) in [(b'n', b't'), (b'"', b'"'), (0, 0xff)] {
                let want = block.iter().enumerate().fold(0, |m, (k, &c)| m | u64::from(c == a || c == b) << k);
                assert_eq!(either64(&block, a, b), want);
            }
        }
    }

    /// Whether this CPU takes the AVX2 build of the scan. Under `CI=true` it must: the
    /// machines the tests run on have it, and the test below would otherwise compare the
    /// 16-byte masks with themselves.
    #[cfg(target_arch = "x86_64")]
    fn has_avx2() -> bool {
        let has = std::arch::is_x86_feature_detected!("avx2");
        assert!(has || std::env::var("CI").is_err(), "CI=true: this CPU has no AVX2");
        has
    }

    #[test]
    fn every_instruction_set_scans_alike() {
        #[cfg(target_arch = "x86_64")]
        if !has_avx2() {
            eprintln!("no AVX2 here: the scan below is the 16-byte one only");
        }
        let mut next = crate::test_corpus::xorshift(0x2545_f491_4f6c_dd1d);
        // Bodies of every length up to four blocks and some, rich in what the masks find:
        // quotes, backslash runs, escapes, `u`s, control bytes (rarely: they end a scan),
        // continuation bytes and 4-byte leads.
        const PIECES: [&[u8]; 13] = [
            br"\\",
            br#"\""#,
            br"\n",
            br"\t",
            br"\u00e9",
            br"\ud83d\ude00",
            b"u",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"abcdefgh",
            br"\",
            br"\/",
            br"\\\",
        ];
        for round in 0..4000 {
            let mut body = vec![b'"'];
            let len = (next() % 300) as usize;
            while body.len() < len {
                let r = next();
                match r % 64 {
                    0 if round % 7 == 0 => body.push((r >> 8) as u8 % 0x20),
                    1..=30 => body.extend_from_slice(PIECES[(r >> 8) as usize % PIECES.len()]),
                    _ => body.push(b'a' + (r >> 8) as u8 % 26),
                }
            }
            if round % 3 != 0 {
                body.push(b'"');
            }
            body.extend_from_slice(br#" tail\""#);
            let n_or_t =
                |k: &[u8; 64]| k.iter().enumerate().fold(0, |m, (i, &c)| m | u64::from(c == b'n' || c == b't') << i);
            let scalar = scan_blocks_with::<true>(&body, 1, 0, |k| Masks::scalar(k), |k| CharMasks::scalar(k), n_or_t);
            let narrow =
                scan_blocks_with::<true>(&body, 1, 0, Masks::of64, CharMasks::of64, |k| either64(k, b'n', b't'));
            assert_eq!(narrow, scalar, "round {round}: {}", String::from_utf8_lossy(&body));
            assert_eq!(scan_blocks::<true>(&body, 1, 0), scalar, "round {round}: {}", String::from_utf8_lossy(&body));
            assert_eq!(scan_blocks::<false>(&body, 1, 0).map(|r| (r.0, r.1)), scalar.map(|r| (r.0, r.1)));
        }
    }

    #[test]
    fn escaped_bits_follow_backslash_runs_across_blocks() {
        // The escaped bytes of a 256-byte stream, block by block, against a byte walk.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let mut bytes = [b'a'; 256];
            for c in bytes.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x.is_multiple_of(3) {
                    *c = b'\\';
                }
            }
            let mut want = [false; 256];
            let mut esc = false;
            for (k, &c) in bytes.iter().enumerate() {
                want[k] = esc;
                esc = !esc && c == b'\\';
            }
            let mut carry = 0;
            for (blk, chunk) in bytes.chunks_exact(64).enumerate() {
                let backslash = chunk.iter().enumerate().fold(0u64, |m, (k, &c)| m | u64::from(c == b'\\') << k);
                let got = escaped_bits(backslash, &mut carry);
                for k in 0..64 {
                    assert_eq!(got >> k & 1 == 1, want[blk * 64 + k], "block {blk} byte {k}");
                }
            }
        }
    }

    /// Skipping a container of an accepted line by its brackets ends where walking it does:
    /// random nestings of objects and arrays whose strings hold brackets, escaped quotes and
    /// backslash runs, at every offset across the 64-byte blocks.
    #[test]
    fn skipping_an_accepted_container_ends_where_walking_it_does() {
        let mut random = crate::test_corpus::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut next = move |n: u64| random() % n;
        const PIECES: [&str; 14] =
            ["{", "}", "[", "]", r#"\""#, r"\\", "a", "é", "😀", " ", ",", ":", r"\n", r"\u005b"];
        fn value(next: &mut dyn FnMut(u64) -> u64, depth: u32, out: &mut String) {
            match if depth > 5 { 2 + next(2) } else { next(4) } {
                0 => {
                    out.push('{');
                    for k in 0..next(4) {
                        if k > 0 {
                            out.push(',');
                        }
                        out.push_str(&format!("\"k{k}\":"));
                        value(next, depth + 1, out);
                    }
                    out.push('}');
                }
                1 => {
                    out.push('[');
                    for k in 0..next(4) {
                        if k > 0 {
                            out.push(',');
                        }
                        value(next, depth + 1, out);
                    }
                    out.push(']');
                }
                2 => {
                    out.push('"');
                    for _ in 0..next(90) {
                        out.push_str(PIECES[next(PIECES.len() as u64) as usize]);
                    }
                    out.push('"');
                }
                _ => out.push_str(["1", "-2.5e3", "true", "null"][next(4) as usize]),
            }
        }
        let mut skipped = 0;
        for _ in 0..3000 {
            let mut v = String::new();
            value(&mut next, 0, &mut v);
            if !v.starts_with(['{', '[']) {
                continue;
            }
            let pad = " ".repeat(next(64) as usize);
            let line = format!("[{pad}{v},{v}]");
            assert!(serde_json::from_str::<Value>(&line).is_ok(), "{line}");
            let at = 1 + pad.len();
            let mut walked = Skim::new(&line, None);
            walked.i = at;
            walked.skip_value().unwrap();
            let mut matched = Skim::new(&line, None);
            matched.i = at;
            matched.skip_container().unwrap();
            assert_eq!(matched.i, walked.i, "{line}");
            assert_eq!(matched.i, at + v.len());
            let all: Vec<de::IgnoredAny> = from_accepted_str(&line).unwrap();
            assert_eq!(all.len(), 2);
            skipped += 1;
        }
        assert!(skipped > 1000, "{skipped}");
        // A container that does not close on the line is declined, never read past.
        for cut in ["[1,[2]", r#"{"a":"]}"#, r#"{"a":"\"}"#, "["] {
            let mut s = Skim::new(cut, None);
            assert_eq!(s.skip_container(), Err(DECLINED), "{cut}");
        }
    }

    #[test]
    fn strings_of_every_length_and_escape_position() {
        // Escapes straddling the 16- and 64-byte blocks, ends of line inside escapes.
        for n in 0..200 {
            let escapes = [
                "\\n",
                "\\\\",
                "\\\"",
                "\\u00e9",
                "\\ud83d\\ude00",
                "\\ud83d",
                "\\ude00",
                "\\\\ude00",
                "\\x",
                "\\u12",
                "\t",
                "",
                "\\n\\\\\\\"\\/x\\\\",
                "\\\\\\\\\\\"\\b\\f\\r",
            ];
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

    /// A string read through [`PROSE_TOKEN`] with a number of characters is the first that
    /// many characters of the string serde_json reads, at every number up to past its end,
    /// with every kind of escape and of character around the cut; without a number, or for a
    /// value that is not a string, it is read as usual.
    #[test]
    fn prose_cut_to_every_length_is_the_start_of_the_text() {
        struct Prose(Value);
        impl<'de> de::Deserialize<'de> for Prose {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Prose;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a value")
                    }
                    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Prose, E> {
                        Ok(Prose(Value::String(format!("borrowed:{v}"))))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Prose, E> {
                        Ok(Prose(Value::String(v.to_string())))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Prose, E> {
                        Ok(Prose(Value::from(v)))
                    }
                    fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Prose, A::Error> {
                        let mut n = 0;
                        while a.next_element::<de::IgnoredAny>()?.is_some() {
                            n += 1;
                        }
                        Ok(Prose(Value::from(n)))
                    }
                }
                d.deserialize_newtype_struct(PROSE_TOKEN, V)
            }
        }
        let text = |p: Prose| match p.0 {
            Value::String(s) => s.strip_prefix("borrowed:").map_or(s.clone(), str::to_string),
            v => panic!("not a string: {v}"),
        };
        let bodies = [
            String::new(),
            "plain ascii text".to_string(),
            r#"caf\u00e9 \n\t\\ \\\" end"#.to_string(),
            r"\ud83d\ude00 emoji \ud83d\ude00".to_string(),
            format!("d\u{e9}j\u{e0} \u{65e5}\u{672c} \u{1f600} {} \u{1f600}", r"\u00e9\n"),
            format!("{}{}{}", "x".repeat(70), r"\n", "\u{e9}".repeat(20)),
        ];
        for body in &bodies {
            let line = format!("\"{body}\"");
            let full: String = serde_json::from_str(&line).unwrap();
            let n = full.chars().count();
            assert_eq!(text(from_accepted_str_cut::<Prose>(&line, None).unwrap()), full);
            for cut in 0..=n + 2 {
                let got = text(from_accepted_str_cut::<Prose>(&line, Some(cut)).unwrap());
                assert_eq!(got, full.chars().take(cut).collect::<String>(), "{cut} of {line}");
            }
            // Borrowed when the string has no escape.
            let cut = from_accepted_str_cut::<Prose>(&line, Some(4)).unwrap();
            let borrowed = matches!(&cut.0, Value::String(s) if s.starts_with("borrowed:"));
            assert_eq!(borrowed, !body.contains('\\'), "{line}");
        }
        assert_eq!(from_accepted_str_cut::<Prose>("[1,2,3]", Some(1)).unwrap().0, Value::from(3));
        assert_eq!(from_accepted_str_cut::<Prose>("7", Some(0)).unwrap().0, Value::from(7));
        // A lone surrogate is declined, cut or not, as the full read declines it.
        assert!(from_accepted_str_cut::<Prose>(r#""a\ud800 b""#, Some(1)).is_err());
    }

    #[test]
    fn a_fingerprint_is_the_length_and_the_first_7_bytes() {
        assert_eq!(fingerprint(""), 0);
        assert_eq!(fingerprint("ab"), 2 << 56 | 0x6261);
        assert_eq!(fingerprint("parentI"), 7 << 56 | 0x0049_746e_6572_6170);
        assert_eq!(fingerprint("parentId"), 8 << 56 | 0x0049_746e_6572_6170);
        assert_eq!(fingerprint("parentIx"), fingerprint("parentId"));
        // Read from the line, whatever follows the key and wherever the line ends.
        let line = "parentUuid\":\"x\"}";
        for len in 0..=10 {
            for end in len..=line.len() {
                let b = &line.as_bytes()[..end];
                assert_eq!(fingerprint_at(b, 0, &line.as_bytes()[..len]), fingerprint(&line[..len]), "{len} of {end}");
            }
        }
    }

    #[test]
    fn duplicate_keys_are_declined_wherever_they_are() {
        #[derive(serde::Deserialize, Debug)]
        struct Only {
            #[allow(dead_code)]
            a: u64,
        }
        let wide: Vec<String> = (0..40).map(|k| format!("\"k{k}\":{k}")).collect();
        let big_dup = format!("{{{},\"k39\":0}}", wide.join(","));
        let big_ok = format!("{{{}}}", wide.join(","));
        for (doc, dup) in [
            (r#"{"a":1,"skip":{"x":1,"x":2}}"#.to_string(), true),
            (r#"{"a":1,"skip":[{"x":{"y":[{"z":1,"z":1}]}}]}"#.to_string(), true),
            (r#"{"a":1,"skip":{"k\u0065y":1,"key":2}}"#.to_string(), true),
            (r#"{"a":1,"skip":{"key":1,"k\u0065y":2}}"#.to_string(), true),
            (r#"{"a":1,"b":1,"b":2}"#.to_string(), true),
            (format!(r#"{{"a":1,"skip":{big_dup}}}"#), true),
            (format!(r#"{{"a":1,"skip":{big_ok}}}"#), false),
            (r#"{"a":1,"skip":[{"x":1},{"x":2}],"more":{"x":3}}"#.to_string(), false),
            // Keys alike in length and first 7 bytes (one fingerprint) are compared whole.
            (r#"{"a":1,"skip":{"parentId":1,"parentIx":2,"parentI":3,"parent":4}}"#.to_string(), false),
            (r#"{"a":1,"skip":{"parentId":1,"parentIx":2,"parentId":3}}"#.to_string(), true),
            (r#"{"a":1,"skip":{"":1,"\u0000":2,"\u0000\u0000":3}}"#.to_string(), false),
            // An object's keys are still known after an object inside it closes, and an
            // inner object's keys are its own.
            (r#"{"a":1,"skip":{"x":1,"in":{"y":1,"z":{"w":2}},"x":2}}"#.to_string(), true),
            (r#"{"a":1,"skip":{"x":1,"in":[{"y":1},{"y":2}],"x":2}}"#.to_string(), true),
            (r#"{"a":1,"b":{"c":{"d":1}},"a":2}"#.to_string(), true),
            (r#"{"a":1,"skip":{"a":1,"skip":{"a":1,"skip":2}},"x":[{"a":1,"x":2}]}"#.to_string(), false),
        ] {
            assert_eq!(from_str::<Only>(&doc).is_err(), dup, "{doc}");
            assert_eq!(from_str::<Value>(&doc).is_err(), dup, "{doc}");
            // serde_json lets all of them through, which is why the skimmer checks.
            assert!(serde_json::from_str::<Value>(&doc).is_ok(), "{doc}");
            let found: Vec<Anomaly> = audit(&doc);
            assert_eq!(found.len(), usize::from(dup), "{doc}: {found:?}");
        }
    }

    /// A struct's visitor refuses a member it knows named twice, and the skimmer checks the
    /// members it ignores against each other, at every depth: a line with either is declined,
    /// and one whose objects only share names with other objects is not. The structs are
    /// shaped as the decoders' are (optional members, a default, nested structs, a list of
    /// them, raw values).
    #[test]
    fn a_struct_declines_a_member_named_twice_whether_it_knows_it_or_not() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner<'a> {
            #[serde(borrow)]
            a: Option<&'a str>,
            b: Option<u64>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer<'a> {
            kind: Option<String>,
            #[serde(borrow)]
            inner: Option<Inner<'a>>,
            #[serde(borrow)]
            list: Option<Vec<Inner<'a>>>,
            #[serde(borrow)]
            raw: Option<&'a serde_json::value::RawValue>,
            map: Option<std::collections::BTreeMap<String, u64>>,
            #[serde(default)]
            n: u64,
        }
        let many: Vec<String> = (0..40).map(|k| format!("\"u{k}\":{k}")).collect();
        let many = many.join(",");
        let ok = [
            r#"{"kind":"x","inner":{"a":"1","b":2},"n":3}"#.to_string(),
            r#"{"x":1,"inner":{"x":1,"y":2},"y":2}"#.to_string(),
            r#"{"list":[{"x":1},{"x":2,"a":"z"}],"x":3,"a":4}"#.to_string(),
            r#"{"inner":{"a":"q","z":{"z":1,"y":{"z":2}}},"z":0}"#.to_string(),
            r#"{"raw":{"kind":1,"n":2},"kind":"k","n":1}"#.to_string(),
            r#"{"map":{"kind":1,"n":2},"kind":"k","n":1}"#.to_string(),
            r#"{"inner":{"b":1},"list":[],"b":2,"k\u0069nd":"x"}"#.to_string(),
            format!(r#"{{"kind":"k",{many},"inner":{{{many}}}}}"#),
        ];
        let twice = [
            r#"{"kind":"x","kind":"y"}"#.to_string(),
            r#"{"kind":null,"kind":"y"}"#.to_string(),
            r#"{"k\u0069nd":"x","kind":"y"}"#.to_string(),
            r#"{"n":1,"inner":{},"n":2}"#.to_string(),
            r#"{"x":1,"x":2}"#.to_string(),
            r#"{"x":1,"kind":"k","inner":{"x":1},"x":2}"#.to_string(),
            r#"{"\u0078":{"a":1},"x":[1]}"#.to_string(),
            r#"{"inner":{"a":"1","a":"2"}}"#.to_string(),
            r#"{"inner":{"q":1,"b":2,"q":3}}"#.to_string(),
            r#"{"list":[{"x":1},{"x":1,"b":1,"x":2}]}"#.to_string(),
            r#"{"z":{"k":1,"k":2}}"#.to_string(),
            r#"{"raw":{"k":1,"k":2}}"#.to_string(),
            r#"{"map":{"k":1,"k":2}}"#.to_string(),
            format!(r#"{{"kind":"k",{many},"u39":0}}"#),
            format!(r#"{{"inner":{{{many},"a":"1","u0":0}}}}"#),
        ];
        for doc in ok {
            assert!(from_str::<Outer>(&doc).is_ok(), "{doc}");
            assert!(serde_json::from_str::<Outer>(&doc).is_ok(), "{doc}");
        }
        for doc in twice {
            assert_eq!(from_str::<Outer>(&doc).err(), Some(Error::Declined), "{doc}");
            assert_eq!(from_str::<Value>(&doc).err(), Some(Error::Declined), "{doc}");
        }
    }

    /// In an object of more than [`FEW_KEYS`] keys, every duplicate is found, whatever the
    /// keys' fingerprints: those read before the limit against their first copy as they are
    /// read, the others when the object closes, in the order of their texts, each against
    /// the copy before it. The expected list is worked out here from the written keys.
    #[test]
    fn big_objects_report_every_duplicate_in_order() {
        // (as written, decoded): keys alike in length and first 7 bytes share a fingerprint.
        let alike = [
            ("parentId", "parentId"),
            ("parentIx", "parentIx"),
            ("parent\\u0049d", "parentId"),
            ("k1", "k1"),
            ("parentIx", "parentIx"),
            ("\\u00e9t\\u00e9", "\u{e9}t\u{e9}"),
        ];
        for filler in [0, 3, 11, 14, 20] {
            let mut keys: Vec<(String, String)> = (0..filler).map(|k| (format!("f{k}"), format!("f{k}"))).collect();
            for round in 0..3 {
                keys.extend(alike.iter().map(|(w, t)| (w.to_string(), t.to_string())));
                keys.push((format!("r{round}"), format!("r{round}")));
            }
            let mut doc = String::from("{\"a\":1,\"skip\":{");
            let mut at = Vec::new();
            for (i, (written, _)) in keys.iter().enumerate() {
                if i > 0 {
                    doc.push(',');
                }
                at.push(doc.len() + 1);
                doc.push_str(&format!("\"{written}\":{i}"));
            }
            doc.push_str("}}");
            let mut expected = Vec::new();
            for (i, (_, text)) in keys.iter().enumerate().take(FEW_KEYS) {
                if let Some(j) = keys[..i].iter().position(|(_, t)| t == text) {
                    expected.push(Anomaly::DuplicateKey { key: text.clone(), first: at[j], again: at[i] });
                }
            }
            if keys.len() > FEW_KEYS {
                let mut texts: Vec<&String> = keys.iter().map(|(_, t)| t).collect();
                texts.sort();
                texts.dedup();
                for text in texts {
                    let copies: Vec<usize> = (0..keys.len()).filter(|&i| &keys[i].1 == text).collect();
                    for w in copies.windows(2).filter(|w| w[1] >= FEW_KEYS) {
                        expected.push(Anomaly::DuplicateKey { key: text.clone(), first: at[w[0]], again: at[w[1]] });
                    }
                }
            }
            assert!(!expected.is_empty());
            assert_eq!(audit(&doc), expected, "{filler} keys before: {doc}");
            assert!(from_str::<Value>(&doc).is_err(), "{doc}");
            assert!(serde_json::from_str::<Value>(&doc).is_ok(), "{doc}");
        }
    }

    #[test]
    fn audit_gives_the_columns_of_both_keys_and_of_big_numbers() {
        let doc = r#"{"a":{"x":1,"y":2,"x":3},"n":[1e400,-2e308,1.5,1e-400]}"#;
        let col = |s: &str| doc.find(s).unwrap() + 1;
        assert_eq!(
            audit(doc),
            vec![
                Anomaly::DuplicateKey { key: "x".into(), first: col(r#""x":1"#), again: col(r#""x":3"#) },
                Anomaly::NumberOutOfRange { column: col("1e400"), text: "1e400".into() },
                Anomaly::NumberOutOfRange { column: col("-2e308"), text: "-2e308".into() },
            ]
        );
        let long = format!("[{}]", "9".repeat(400));
        assert_eq!(audit(&long), vec![Anomaly::NumberOutOfRange { column: 2, text: "9".repeat(400) }]);
    }

    #[test]
    fn numbers_beyond_f64_are_declined_even_when_skipped() {
        #[derive(serde::Deserialize)]
        struct Only {
            #[allow(dead_code)]
            skip: serde::de::IgnoredAny,
        }
        let max = format!("{:e}", f64::MAX);
        for (n, ok) in [("1e400", false), ("-1e400", false), ("1e-400", true), (max.as_str(), true), ("1.8e308", false)]
        {
            let doc = format!(r#"{{"skip":[{n}]}}"#);
            assert_eq!(from_str::<Only>(&doc).is_ok(), ok, "{doc}");
            // The oracle: serde_json refuses them as soon as it builds a value.
            assert_eq!(serde_json::from_str::<Value>(&doc).is_ok(), ok, "{doc}");
        }
        let fixed = big_numbers_as_text(r#"{"a":[1e400,2],"b":-1E999}"#).unwrap();
        assert_eq!(fixed, r#"{"a":["1e400",2],"b":"-1E999"}"#);
        assert_eq!(big_numbers_as_text(r#"{"a":1e300}"#), None);
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

    /// The digits in a row are counted alike eight at a time and byte by byte: every byte
    /// value after runs of every length, at every distance from the end of the line.
    #[test]
    fn digit_runs_are_counted_by_words_as_by_bytes() {
        for run in 0..20 {
            for next in 0..=255u8 {
                for tail in 0..10 {
                    let mut b: Vec<u8> = (0..run).map(|k| b'0' + (k * 7 % 10) as u8).collect();
                    b.push(next);
                    b.extend(std::iter::repeat_n(b'5', tail));
                    let mut want = 0;
                    while b.get(want).is_some_and(u8::is_ascii_digit) {
                        want += 1;
                    }
                    assert_eq!(digits_at(&b, 0), want, "{run} digits, then {next:#x}, then {tail} digits");
                    assert_eq!(digits_at(&b[..run], 0), run);
                }
            }
        }
    }
}
