//! Secrets in a session file: where they sit (line, byte range, entry, role, tool), and
//! the redacted copy of the file's bytes. The rules live in [`crate::secrets`]; this module
//! decides what text they see.
//!
//! Every line is scanned on its own, whatever the format, so nothing depends on a line
//! decoding as a session record: a valid JSON line is scanned string by string (object
//! keys and values, decoded, and each member as `NAME=value`), a line that is not valid
//! JSON (corrupt, torn, not UTF-8, another format) as its raw text. The session model only
//! names what a finding belongs to ([`attribute`]).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use rayon::prelude::*;
use serde::de::IgnoredAny;

use crate::content::Block;
use crate::format::repair_lone_surrogates;
use crate::model::{OwnedId, Role};
use crate::secrets::{self, scanner, Hit};
use crate::session::Session;
use crate::source::Source;
use crate::tree::Ix;

/// One secret in a file.
#[derive(Clone, Debug)]
pub struct Found {
    /// 1-based line number.
    pub line: u32,
    /// Index in [`secrets::RULES`].
    pub rule: usize,
    /// The secret as decoded (what the fingerprint hashes).
    pub secret: String,
    /// Its bytes in the file: replacing them keeps the line valid JSON (they are whole
    /// characters and escapes inside one string literal).
    pub at: Range<usize>,
    /// Found in the raw text of a line that is not valid JSON.
    pub raw: bool,
}

impl Found {
    pub fn kind(&self) -> &'static str {
        secrets::RULES[self.rule].kind
    }
}

/// Files below this size are scanned on one thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Every secret of a source, in file order.
pub fn scan(src: &Source) -> Vec<Found> {
    let body = src.body();
    let threads = rayon::current_num_threads();
    let chunks = if body.len() < PARALLEL_MIN_BYTES || threads < 2 { vec![body] } else { src.chunks(threads * 16) };
    let bytes = src.bytes();
    let parts: Vec<(u32, Vec<Found>)> = chunks
        .into_par_iter()
        .map(|chunk| {
            let mut found = Vec::new();
            let mut lines = 0;
            for line in src.lines_in(chunk, 1) {
                lines = line.number;
                let start = line.span.start;
                for h in scan_line(&bytes[line.span]) {
                    found.push(Found { line: line.number, at: start + h.at.start..start + h.at.end, ..h });
                }
            }
            (lines, found)
        })
        .collect();
    let mut out = Vec::new();
    let mut before = 0;
    for (lines, found) in parts {
        out.extend(found.into_iter().map(|f| Found { line: f.line + before, ..f }));
        before += lines;
    }
    out
}

/// The secrets of one line (`at` relative to the line, `line` 0).
pub fn scan_line(b: &[u8]) -> Vec<Found> {
    let s = scanner();
    if !s.any(b) && !hidden_ascii(b) {
        return Vec::new();
    }
    match std::str::from_utf8(b) {
        Ok(text) if valid_json(b) => json_line(text),
        _ => raw_line(b),
    }
}

/// A `\u00XX` escape of a character no encoder needs to escape (a letter, digit or
/// `_-:/.=@+ `): it could spell out a keyword the prefilter would not see in the raw line.
fn hidden_ascii(b: &[u8]) -> bool {
    memchr::memmem::find_iter(b, b"\\u00").any(|i| {
        let hex = |k: usize| b.get(i + k).and_then(|c| (*c as char).to_digit(16));
        match (hex(4), hex(5)) {
            (Some(h), Some(l)) => {
                let c = (h * 16 + l) as u8;
                c.is_ascii_alphanumeric() || b"_-:/.=@+ ".contains(&c)
            }
            _ => false,
        }
    })
}

fn valid_json(b: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(b).is_ok()
        || repair_lone_surrogates(b).is_some_and(|r| serde_json::from_slice::<IgnoredAny>(&r).is_ok())
}

/// A line that is not valid JSON: its text as it stands, run by run of valid UTF-8.
fn raw_line(b: &[u8]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut at = 0;
    for chunk in b.utf8_chunks() {
        let text = chunk.valid();
        for h in scanner().find(text) {
            out.push(found(0, h, text, at, None, true));
        }
        at += text.len() + chunk.invalid().len();
    }
    out
}

/// A valid JSON line: every string literal, decoded; members also as `NAME=value`.
fn json_line(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut key: Option<String> = None;
    for (inner, is_key) in literals(text.as_bytes()) {
        let raw = &text[inner.clone()];
        let (decoded, map) = decode(raw);
        let mut hits = scanner().find(&decoded);
        if let (false, Some(k)) = (is_key, key.take()) {
            let member = scanner().find_member(&k, &decoded);
            if !member.is_empty() {
                hits.extend(member);
                hits = secrets::resolve(hits);
            }
        }
        for h in hits {
            out.push(found(0, h, &decoded, inner.start, map.as_deref(), false));
        }
        if is_key {
            key = Some(decoded.into_owned());
        }
    }
    out
}

fn found(line: u32, h: Hit, decoded: &str, base: usize, map: Option<&[u32]>, raw: bool) -> Found {
    let to_raw = |i: usize| base + map.map_or(i, |m| m[i] as usize);
    Found { line, rule: h.rule, secret: decoded[h.start..h.end].to_string(), at: to_raw(h.start)..to_raw(h.end), raw }
}

/// The string literals of a valid JSON line: the range inside the quotes, and whether the
/// literal is an object key.
fn literals(b: &[u8]) -> Vec<(Range<usize>, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &b[i.min(b.len())..]) {
        let start = i + q + 1;
        let mut j = start;
        let end = loop {
            match memchr::memchr2(b'"', b'\\', &b[j.min(b.len())..]) {
                Some(k) if b[j + k] == b'\\' => j += k + 2,
                Some(k) => break j + k,
                None => break b.len(),
            }
        };
        let end = end.min(b.len());
        let mut k = end + 1;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        out.push((start..end, b.get(k) == Some(&b':')));
        i = end + 1;
    }
    out
}

/// A string literal's content decoded, and (when it had escapes) the raw offset of each
/// decoded byte, plus one for the end. Lone surrogates become U+FFFD.
fn decode(raw: &str) -> (Cow<'_, str>, Option<Vec<u32>>) {
    if !raw.contains('\\') {
        return (Cow::Borrowed(raw), None);
    }
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut map: Vec<u32> = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    let hex4 = |at: usize| raw.get(at..at + 4).and_then(|h| u32::from_str_radix(h, 16).ok());
    while i < b.len() {
        // A run without escapes is copied whole: each byte is its own raw offset.
        let run = memchr::memchr(b'\\', &b[i..]).unwrap_or(b.len() - i);
        if run > 0 {
            out.push_str(&raw[i..i + run]);
            map.extend((i..i + run).map(|k| k as u32));
            i += run;
            continue;
        }
        let (c, len) = if i + 1 < b.len() {
            match b[i + 1] {
                b'n' => ('\n', 2),
                b't' => ('\t', 2),
                b'r' => ('\r', 2),
                b'b' => ('\u{8}', 2),
                b'f' => ('\u{c}', 2),
                b'u' => match hex4(i + 2) {
                    Some(hi @ 0xD800..=0xDBFF) => match (raw.get(i + 6..i + 8), hex4(i + 8)) {
                        (Some("\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            (char::from_u32(c).unwrap_or('\u{FFFD}'), 12)
                        }
                        _ => ('\u{FFFD}', 6),
                    },
                    Some(v) => (char::from_u32(v).unwrap_or('\u{FFFD}'), 6),
                    None => ('\\', 1),
                },
                other => (other as char, 2),
            }
        } else {
            ('\\', 1)
        };
        for _ in 0..c.len_utf8() {
            map.push(i as u32);
        }
        out.push(c);
        i += len;
    }
    map.push(b.len() as u32);
    (Cow::Owned(out), Some(map))
}

/// The source's bytes with each secret replaced by `[REDACTED:kind]`; every other byte
/// (other lines, line endings, a byte order mark) as it was.
pub fn redact(src: &Source, found: &[Found]) -> Vec<u8> {
    let bytes = src.bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    let mut sorted: Vec<&Found> = found.iter().collect();
    sorted.sort_by_key(|f| f.at.start);
    for f in sorted {
        if f.at.start < at {
            continue;
        }
        out.extend_from_slice(&bytes[at..f.at.start]);
        out.extend_from_slice(secrets::redaction(f.kind()).as_bytes());
        at = f.at.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// What a finding belongs to in the session.
#[derive(Clone, Debug, Default)]
pub struct Place {
    pub entry_id: Option<OwnedId>,
    pub role: Option<String>,
    pub tool: Option<String>,
    /// The entry's kind as written, for entries that are not messages (`compaction`).
    pub entry_kind: Option<String>,
}

/// The entry, role and tool of each finding (same order), read from the session model.
pub fn attribute(s: &Session<'_>, found: &[Found]) -> Vec<Place> {
    if found.is_empty() {
        return Vec::new();
    }
    let mut by_line: HashMap<u32, Ix> = HashMap::new();
    let mut more: HashMap<usize, Ix> = HashMap::new();
    for (i, e) in s.entries.iter().enumerate() {
        by_line.insert(e.line, i as Ix);
        for sp in e.spans().skip(1) {
            more.insert(sp.start, i as Ix);
        }
    }
    if !more.is_empty() {
        let wanted: HashSet<u32> = found.iter().map(|f| f.line).collect();
        for line in s.source.lines() {
            if wanted.contains(&line.number) {
                if let Some(&ix) = more.get(&line.span.start) {
                    by_line.insert(line.number, ix);
                }
            }
        }
    }
    let calls: HashMap<&str, &str> = s
        .entries
        .iter()
        .filter_map(|e| e.message.as_ref())
        .flat_map(|m| m.tool_calls.iter())
        .filter_map(|c| Some((c.id.as_deref()?, c.name.as_deref()?)))
        .collect();
    // Each entry's findings placed together, its content decoded and searched once for all
    // of them: one tool result of 40,000 keys, placed key by key, took 26 s.
    let mut of_entry: HashMap<Ix, Vec<usize>> = HashMap::new();
    for (k, f) in found.iter().enumerate() {
        if let Some(&ix) = by_line.get(&f.line) {
            of_entry.entry(ix).or_default().push(k);
        }
    }
    let mut places = vec![Place::default(); found.len()];
    for (ix, ks) in of_entry {
        let secrets: Vec<&str> = ks.iter().map(|&k| found[k].secret.as_str()).collect();
        for (k, p) in ks.into_iter().zip(place(s, ix, &secrets, &calls)) {
            places[k] = p;
        }
    }
    places
}

/// Where each of `secrets`, found in entry `ix`, sits: the entry, its role, and the tool of
/// the first tool call or result that holds it (the tool of the message's one result when
/// none does).
fn place(s: &Session<'_>, ix: Ix, secrets: &[&str], calls: &HashMap<&str, &str>) -> Vec<Place> {
    let e = s.entry(ix);
    let mut p = Place { entry_id: Some(e.id.to_owned_id()), ..Place::default() };
    let Some(m) = e.message.as_ref() else {
        p.entry_kind = Some(e.kind_name().to_string());
        return vec![p; secrets.len()];
    };
    p.role = Some(match m.role {
        Role::User => "user".into(),
        Role::Assistant => "assistant".into(),
        Role::ToolResult => "tool_result".into(),
        Role::System => "system".into(),
        Role::Other => m.role_name().to_string(),
    });
    if m.tool_calls.is_empty() && m.tool_results.is_empty() {
        return vec![p; secrets.len()];
    }
    let result_tool = |call: Option<&str>, name: Option<&str>| {
        name.or_else(|| call.and_then(|c| calls.get(c).copied())).map(str::to_string)
    };
    // A whole message that is one tool's result: the secret is somewhere in it.
    let whole = match m.tool_results.as_slice() {
        [r] => result_tool(r.call_id.as_deref(), r.tool_name.as_deref()),
        _ => None,
    };
    let content = s.content(ix).ok();
    let blocks = content.as_ref().map_or(&[][..], |c| c.blocks.as_slice());
    let tool_of = |holder: Option<usize>| match holder.map(|b| &blocks[b]) {
        Some(Block::ToolCall { name, .. }) => Some(name.clone()),
        Some(Block::ToolResult(r)) => result_tool(r.call_id.as_deref(), r.tool_name.as_deref()),
        _ => whole.clone(),
    };
    // When every block that could hold a secret names the tool the message would be given
    // anyway (a message that is one tool's result), there is nothing to look for.
    let mut holders = (0..blocks.len()).filter(|&b| matches!(blocks[b], Block::ToolCall { .. } | Block::ToolResult(_)));
    if holders.all(|b| tool_of(Some(b)) == whole) {
        return vec![Place { tool: whole, ..p }; secrets.len()];
    }
    first_holders(blocks, secrets).into_iter().map(|holder| Place { tool: tool_of(holder), ..p.clone() }).collect()
}

/// For each of `secrets`, the first of `blocks` that holds it: a tool call whose name, or a
/// string or key of whose arguments, contains it; a tool result whose text or offloaded
/// path does. Many secrets are looked for in one pass over each text.
fn first_holders(blocks: &[Block], secrets: &[&str]) -> Vec<Option<usize>> {
    /// Secrets few enough to be looked for one by one.
    const FEW: usize = 8;
    let mut first = vec![None; secrets.len()];
    let many = if secrets.len() > FEW { aho_corasick::AhoCorasick::new(secrets).ok() } else { None };
    let mut left = secrets.len();
    for (b, block) in blocks.iter().enumerate() {
        let mut texts: Vec<Cow<'_, str>> = Vec::new();
        match block {
            Block::ToolCall { name, arguments, .. } => {
                texts.push(Cow::Borrowed(name));
                strings_of(arguments, &mut texts);
            }
            Block::ToolResult(r) => {
                texts.push(Cow::Owned(r.text()));
                texts.extend(r.offloaded_path.as_deref().map(Cow::Borrowed));
            }
            _ => continue,
        }
        let mut holds = |k: usize| {
            if first[k].is_none() {
                first[k] = Some(b);
                left -= 1;
            }
        };
        match &many {
            Some(ac) => {
                for text in &texts {
                    ac.find_overlapping_iter(text.as_ref()).for_each(|hit| holds(hit.pattern().as_usize()));
                }
            }
            None => {
                for (k, secret) in secrets.iter().enumerate() {
                    if texts.iter().any(|t| t.contains(secret)) {
                        holds(k);
                    }
                }
            }
        }
        if left == 0 {
            break;
        }
    }
    first
}

/// Every string and key in `v` (in no particular order).
fn strings_of<'v>(v: &'v serde_json::Value, out: &mut Vec<Cow<'v, str>>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => out.push(Cow::Borrowed(s)),
            serde_json::Value::Array(a) => stack.extend(a),
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    out.push(Cow::Borrowed(k));
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> String {
        ["gh", "p_", "Zq3vR8kLm2Nx7Pw4Ty6Ub1Hc9Jd5Ke0AfGsY"].concat()
    }

    /// Decoding copies unescaped runs whole: the text must be what a JSON parser decodes, and
    /// every character boundary must map to the raw offset where that character starts.
    #[test]
    fn decoded_text_and_offsets_agree_with_a_json_parser() {
        for raw in [
            r#"plain ascii"#,
            r#"caf\u00e9 \\ \"q\" \n naïve ✓ \ud83d\ude00 end"#,
            r#"ключ=\u0041KIA \/ 東京\t"#,
            r#"\\"#,
            r#"x\u00"#,
        ] {
            let (text, map) = decode(raw);
            if let Ok(want) = serde_json::from_str::<String>(&format!("\"{raw}\"")) {
                assert_eq!(text, want, "{raw}");
            }
            let Some(map) = map else { continue };
            assert_eq!(map.len(), text.len() + 1);
            let mut at = 0;
            for (i, c) in text.char_indices() {
                let r = map[i] as usize;
                assert!(r >= at && raw.is_char_boundary(r), "{raw}: {c:?} at {i} maps to {r}");
                at = r;
            }
            assert_eq!(map[text.len()] as usize, raw.len());
        }
    }

    #[test]
    fn a_secret_spanning_an_escape_maps_to_whole_escapes() {
        let t = token();
        // The `h` written as `\u0068`, after an escaped newline.
        let k = ["g", "\\u0068", "p_", &t[4..]].concat();
        let line = format!("{{\"text\":\"a\\n{k} b\"}}");
        let found = scan_line(line.as_bytes());
        assert_eq!(found.len(), 1, "{line}");
        assert_eq!(found[0].secret, t);
        assert_eq!(&line[found[0].at.clone()], k);
    }

    #[test]
    fn members_named_secret_are_found() {
        let v = "Q7x9KpL2mN4vB8rT6yW1zA3s";
        let line = format!("{{\"env\":{{\"SERVICE_API_TOKEN\":\"{v}\"}}}}");
        let found = scan_line(line.as_bytes());
        assert_eq!(found.iter().map(|f| f.kind()).collect::<Vec<_>>(), ["generic_secret"]);
        assert_eq!(&line[found[0].at.clone()], v);
    }

    #[test]
    fn a_line_that_is_not_json_is_scanned_as_text() {
        let t = token();
        let mut line = format!("{{\"text\":\"{t}").into_bytes();
        line.push(0xff);
        let found = scan_line(&line);
        assert_eq!(found.len(), 1);
        assert!(found[0].raw);
        assert_eq!(&line[found[0].at.clone()], t.as_bytes());
    }
}
