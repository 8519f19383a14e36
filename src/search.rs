//! `grep`'s view: a regular expression run over what a session says, decoded: message text,
//! thinking, tool call arguments, tool results, compaction summaries, labels. It never
//! searches JSON syntax (keys, quotes, escapes): a newline written `\n` in the file is a
//! newline in the text searched, and `\u00e9` is `é`.
//!
//! Each searched text is one [`Part`] of an entry (a text block, a tool result's text, one
//! string of a tool call's arguments, ...). A match may span lines of a part; the lines it
//! touches make one [`Hit`], with the byte offsets of every match on them, and the part's
//! lines around it as context. Lines that could not be decoded (a torn last line, a corrupt
//! line) are searched too, leniently: the string values on them, decoded as far as they go.
//! The view computes; printing is the renderer's job, and nothing here is sanitized.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use regex::{Regex, RegexBuilder};
use serde::Serialize;
use serde_json::Value;

use crate::content::Block;
use crate::finding::Code;
use crate::model::{unescape_json_str, Kind, OwnedId, Role};
use crate::session::Session;
use crate::tree::Ix;

/// How the pattern is read (ripgrep's `-i`, `-w`, `-F`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternOptions {
    pub ignore_case: bool,
    pub word: bool,
    pub fixed: bool,
}

/// Which parts are searched (`--role`, `--tool`).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// A role name of the project (`user`, `assistant`, `tool_result`, `system`).
    pub role: Option<String>,
    pub tool: Option<String>,
}

/// A compiled search.
pub struct Search {
    re: Regex,
    filter: Filter,
    /// Lines of context before and after each hit (`-C`).
    context: usize,
}

/// Parts larger than the regex's default size limits are fine; the compiled program is not.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

impl Search {
    /// Compile `pattern`. The error is the regex crate's own message, for a usage error.
    pub fn new(pattern: &str, o: PatternOptions, filter: Filter, context: usize) -> Result<Search, String> {
        let body = if o.fixed { regex::escape(pattern) } else { pattern.to_string() };
        // `-w` as ripgrep has it: the match is preceded and followed by a non-word
        // character or an edge (half boundaries, so `-w 'foo('` still matches `foo(x)`).
        let body = if o.word { format!(r"\b{{start-half}}(?:{body})\b{{end-half}}") } else { body };
        let re = RegexBuilder::new(&body)
            .case_insensitive(o.ignore_case)
            // `^` and `$` are line edges, as in a line-oriented grep.
            .multi_line(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Search { re, filter, context })
    }

    /// What a session's search goes through, in the order its hits are given: every
    /// entry, then (when no filter is set) the lines the session could not decode, placed
    /// among the entries by line.
    pub fn units(&self, s: &Session<'_>) -> Vec<Unit> {
        let mut units: Vec<Unit> = (0..s.entries.len() as Ix).map(Unit::Entry).collect();
        if self.filter.role.is_none() && self.filter.tool.is_none() {
            let damaged = damaged_lines(s);
            if !damaged.is_empty() {
                units.extend(damaged);
                // Stable: at one line, an entry's hits come before a damaged line's.
                units.sort_by_key(|u| u.line(s));
            }
        }
        units
    }

    /// Search `units` of `s` in order, handing each find to `found` as it is made; `found`
    /// returning `false` stops the search, and so does this function's `false`. `names`
    /// are the session's tool names by call id ([`call_names`]).
    pub fn search(
        &self,
        s: &Session<'_>,
        names: &HashMap<&str, &str>,
        units: &[Unit],
        want: Want,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> bool {
        for u in units {
            let going = match u {
                Unit::Entry(i) => self.entry(s, *i, names, want, found),
                Unit::Damaged { line, span } => {
                    let raw = String::from_utf8_lossy(&s.source.bytes()[span.clone()]);
                    let at = At { line: *line, entry: None, what: What::Damaged, role: None, tool: None };
                    string_values(&raw).iter().all(|text| self.part(text, &at, want, found))
                }
            };
            if !going {
                return false;
            }
        }
        true
    }

    fn entry(
        &self,
        s: &Session<'_>,
        i: Ix,
        names: &HashMap<&str, &str>,
        want: Want,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> bool {
        let e = s.entry(i);
        let parts = match e.kind() {
            Kind::Message => match s.content(i) {
                Ok(c) => message_parts(e.message.as_ref().map(|m| m.role), e.role_name(), c, names),
                // Reported at load time: an entry line that parsed once parses again.
                Err(_) => Vec::new(),
            },
            Kind::Compaction => {
                let t = e.compaction().and_then(|c| c.summary.as_ref()).map(|t| t.decode());
                t.into_iter().map(|text| Part { what: What::Summary, role: None, tool: None, text }).collect()
            }
            Kind::Label => e
                .label_text()
                .into_iter()
                .map(|t| Part { what: What::Label, role: None, tool: None, text: t.decode() })
                .collect(),
            Kind::State | Kind::Unknown => Vec::new(),
        };
        for p in parts {
            if !self.selects(&p) {
                continue;
            }
            let at = At { line: e.line, entry: Some(e.id.to_owned_id()), what: p.what, role: p.role, tool: p.tool };
            if !self.part(&p.text, &at, want, found) {
                return false;
            }
        }
        true
    }

    fn selects(&self, p: &Part) -> bool {
        let role_ok = self.filter.role.as_deref().is_none_or(|r| p.role.as_deref() == Some(r));
        let tool_ok = self.filter.tool.as_deref().is_none_or(|t| p.tool.as_deref() == Some(t));
        role_ok && tool_ok
    }

    /// Find every match in one text and group them by the lines they touch, handing on each
    /// group as soon as the next one shows where its context ends: a text of millions of
    /// matching lines holds one group at a time. With [`Want::Count`], only how many groups.
    fn part(&self, text: &str, at: &At, want: Want, found: &mut dyn FnMut(Found) -> bool) -> bool {
        let mut it = self.re.find_iter(text).peekable();
        if it.peek().is_none() {
            return true;
        }
        let mut lines = LineIndex::new(text);
        let mut shown = Shown { printed_to: 0, groups: 0 };
        // The group not yet handed on: its line range in the part, the byte range of those
        // lines, and its submatches relative to the start of those lines.
        let mut open: Option<Group> = None;
        for m in it {
            let first = lines.line_of(m.start());
            // A match that ends with a newline ends on the line before it.
            let last = lines.line_of(if m.end() > m.start() { m.end() - 1 } else { m.start() });
            if let Some(g) = open.as_mut().filter(|g| first < g.lines.end) {
                g.lines.end = g.lines.end.max(last + 1);
                if want == Want::Hits {
                    g.bytes.end = g.bytes.end.max(lines.end(last));
                    g.submatches.push(Submatch { start: m.start() - g.bytes.start, end: m.end() - g.bytes.start });
                }
                continue;
            }
            if let Some(g) = open.take() {
                if want == Want::Hits && !self.hand_on(g, Some(first), text, &mut lines, at, &mut shown, found) {
                    return false;
                }
            }
            shown.groups += 1;
            let (start, end) = (lines.start(first), lines.end(last));
            let submatches = match want {
                Want::Hits => vec![Submatch { start: m.start() - start, end: m.end() - start }],
                Want::Count => Vec::new(),
            };
            open = Some(Group { lines: first..last + 1, bytes: start..end, submatches });
        }
        match (want, open) {
            (Want::Hits, Some(g)) => self.hand_on(g, None, text, &mut lines, at, &mut shown, found),
            (Want::Count, _) => found(Found::Count(shown.groups)),
            (Want::Hits, None) => true,
        }
    }

    /// Make one group a hit, with its context up to `next` (the first line of the group
    /// after it, if any), and hand it on.
    #[allow(clippy::too_many_arguments)]
    fn hand_on(
        &self,
        g: Group,
        next: Option<u32>,
        text: &str,
        lines: &mut LineIndex<'_>,
        at: &At,
        shown: &mut Shown,
        found: &mut dyn FnMut(Found) -> bool,
    ) -> bool {
        let c = self.context as u32;
        let from = g.lines.start.saturating_sub(c).max(shown.printed_to);
        let to = g.lines.end.saturating_add(c).min(next.unwrap_or(u32::MAX)).min(lines.count());
        let before = (from..g.lines.start).map(|l| lines.text(l).to_string()).collect();
        let after = (g.lines.end..to).map(|l| lines.text(l).to_string()).collect();
        let continues = shown.groups > 1 && from <= shown.printed_to && shown.printed_to > 0;
        shown.printed_to = to;
        found(Found::Hit(Hit {
            line: at.line,
            entry_id: at.entry.clone(),
            role: at.role.clone(),
            tool: at.tool.clone(),
            part: at.what,
            text_line: g.lines.start + 1,
            text: text[g.bytes].to_string(),
            submatches: g.submatches,
            before,
            after,
            continues,
        }))
    }
}

/// What is searched, one at a time: an entry, or a line the session could not decode.
#[derive(Clone, Debug)]
pub enum Unit {
    Entry(Ix),
    Damaged { line: u32, span: Range<usize> },
}

impl Unit {
    /// The unit's (first) line in the file.
    fn line(&self, s: &Session<'_>) -> u32 {
        match self {
            Unit::Entry(i) => s.entry(*i).line,
            Unit::Damaged { line, .. } => *line,
        }
    }

    /// About how much work the unit is: the bytes of its lines.
    pub fn weight(&self, s: &Session<'_>) -> usize {
        match self {
            Unit::Entry(i) => s.entry(*i).spans().map(|sp| sp.len()).sum(),
            Unit::Damaged { span, .. } => span.len(),
        }
    }
}

/// What a search gives for each part of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Every hit, with its text and context.
    Hits,
    /// Only how many hits (`-c`, `-l`): no text is copied.
    Count,
}

/// One find, as [`Want`] asks.
#[derive(Debug)]
pub enum Found {
    Hit(Hit),
    /// The hits of one part (more than none).
    Count(usize),
}

/// The lines of a part that one or more matches touch, before context is attached.
struct Group {
    lines: Range<u32>,
    bytes: Range<usize>,
    submatches: Vec<Submatch>,
}

/// A part's groups so far, for the context of the next.
struct Shown {
    /// The first part line not yet shown.
    printed_to: u32,
    /// Groups started, the open one included.
    groups: usize,
}

/// Lines the session could not decode (their string values are searched, leniently).
fn damaged_lines(s: &Session<'_>) -> Vec<Unit> {
    let mut lines: Vec<u32> = s
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.code,
                Code::CorruptLine | Code::CorruptLastLine | Code::TornLastLine | Code::InvalidUtf8 | Code::NotAnObject
            )
        })
        .filter_map(|f| f.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let mut units = Vec::new();
    let mut want = lines.iter().peekable();
    for l in s.source.lines() {
        let Some(&&n) = want.peek() else { break };
        if l.number < n {
            continue;
        }
        want.next();
        units.push(Unit::Damaged { line: l.number, span: l.span.clone() });
    }
    units
}

/// Where a part sits, for its hits.
struct At {
    line: u32,
    entry: Option<OwnedId>,
    what: What,
    role: Option<String>,
    tool: Option<String>,
}

/// One searched text of an entry.
struct Part {
    what: What,
    role: Option<String>,
    tool: Option<String>,
    text: String,
}

/// What kind of text a part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum What {
    Text,
    Thinking,
    /// One string of a tool call's arguments.
    ToolCall,
    ToolResult,
    /// A compaction's summary (entry or provider-side).
    Summary,
    /// The error text of a failed model call, when it is not also a text block.
    Error,
    /// A string of a provider-run block, or of a block type this tool does not know.
    Block,
    Label,
    /// A string value of a line that could not be decoded.
    Damaged,
}

/// One match group: the lines of a part that one or more matches touch.
#[derive(Clone, Debug, Serialize)]
pub struct Hit {
    /// The entry's (first) line in the file.
    pub line: u32,
    pub entry_id: Option<OwnedId>,
    pub role: Option<String>,
    pub tool: Option<String>,
    pub part: What,
    /// 1-based line of the part's text where `text` starts.
    pub text_line: u32,
    /// The matching line(s), without the final newline.
    pub text: String,
    /// Byte offsets into `text`.
    pub submatches: Vec<Submatch>,
    /// Context lines (`-C`) of the same part before and after `text`.
    #[serde(skip)]
    pub before: Vec<String>,
    #[serde(skip)]
    pub after: Vec<String>,
    /// The context of this hit joins the previous hit's (no separator between them).
    #[serde(skip)]
    pub continues: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Submatch {
    pub start: usize,
    pub end: usize,
}

/// Tool names by call id over the whole file: a result is paired with its call as the
/// model pairs them (a result may sit on another branch than its call).
pub fn call_names<'s>(s: &'s Session<'_>) -> HashMap<&'s str, &'s str> {
    let mut names = HashMap::new();
    for m in s.entries.iter().filter_map(|e| e.message.as_ref()) {
        for c in &m.tool_calls {
            if let (Some(id), Some(name)) = (c.id.as_deref(), c.name.as_deref()) {
                names.entry(id).or_insert(name);
            }
        }
    }
    names
}

/// The project's name of a role (`--role`, JSON `role`).
pub fn role_name(role: Option<Role>, written: Option<&str>) -> Option<String> {
    match role? {
        Role::User => Some("user".into()),
        Role::Assistant => Some("assistant".into()),
        Role::ToolResult => Some("tool_result".into()),
        Role::System => Some("system".into()),
        Role::Other => written.map(str::to_string),
    }
}

/// The searchable parts of a message, in block order.
fn message_parts(
    role: Option<Role>,
    written: Option<&str>,
    c: crate::content::Content,
    names: &HashMap<&str, &str>,
) -> Vec<Part> {
    let role = role_name(role, written);
    let mut parts = Vec::new();
    let texts: Vec<&String> = c
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t),
            _ => None,
        })
        .collect();
    let error_is_new = c.error.as_ref().is_some_and(|e| !texts.contains(&e));
    let part = |what, role: &Option<String>, tool: Option<String>, text| Part { what, role: role.clone(), tool, text };
    for b in c.blocks {
        match b {
            Block::Text(t) => parts.push(part(What::Text, &role, None, t)),
            Block::Thinking { text, redacted: false } => parts.push(part(What::Thinking, &role, None, text)),
            Block::Thinking { redacted: true, .. } | Block::Image(_) => {}
            Block::ToolCall { name, arguments, .. } => {
                for s in strings(arguments) {
                    parts.push(part(What::ToolCall, &role, Some(name.clone()), s));
                }
            }
            Block::ToolResult(r) => {
                let tool = r
                    .tool_name
                    .clone()
                    .or_else(|| r.call_id.as_deref().and_then(|id| names.get(id)).map(|n| n.to_string()));
                let result_role = Some("tool_result".to_string());
                for b in r.content {
                    if let Block::Text(t) = b {
                        parts.push(part(What::ToolResult, &result_role, tool.clone(), t));
                    }
                }
            }
            Block::ProviderCompaction { summary: Some(s), .. } => parts.push(part(What::Summary, &role, None, s)),
            Block::ProviderCompaction { summary: None, .. } => {}
            Block::ServerTool { block, .. } | Block::Unknown { raw: block, .. } => {
                for s in strings(block) {
                    parts.push(part(What::Block, &role, None, s));
                }
            }
        }
    }
    if let (Some(e), true) = (c.error, error_is_new) {
        parts.push(part(What::Error, &role, None, e));
    }
    parts
}

/// The string values in a JSON value (not its keys), in document order: what a tool
/// call's arguments say. Iterative: arguments can nest deeply.
fn strings(v: Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => stack.extend(a.into_iter().rev()),
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v).rev().collect::<Vec<_>>()),
            _ => {}
        }
    }
    out
}

/// Keys whose values are bookkeeping, not something said: skipped on damaged lines.
const BOOKKEEPING: &[&str] = &[
    "type",
    "role",
    "id",
    "parentId",
    "parentUuid",
    "uuid",
    "timestamp",
    "kind",
    "model",
    "provider",
    "api",
    "stopReason",
    "sessionId",
    "toolCallId",
    "call_id",
    "customType",
    "cwd",
    "version",
];

/// The string values of a line that is not valid JSON, decoded leniently: every string
/// literal that is not a key (followed by `:`) nor the value of a bookkeeping key, including
/// an unterminated last one (a torn write stops mid-string).
pub fn string_values(raw: &str) -> Vec<String> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut key: Option<&str> = None;
    while let Some(q) = memchr::memchr(b'"', &b[i..]) {
        let start = i + q;
        let mut j = start + 1;
        let mut closed = false;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                b'"' => {
                    closed = true;
                    break;
                }
                _ => j += 1,
            }
        }
        let end = j.min(b.len());
        let body = &raw[start + 1..floor_char(raw, end)];
        // A key is followed by `:`; a value follows one directly.
        let after_colon = raw[..start].trim_end().ends_with(':');
        i = if closed { end + 1 } else { b.len() };
        if closed && raw[i..].trim_start().starts_with(':') {
            key = Some(body);
            continue;
        }
        let bookkeeping = after_colon && key.is_some_and(|k| BOOKKEEPING.contains(&k));
        if !bookkeeping && !body.is_empty() {
            out.push(unescape_json_str(body, usize::MAX).0);
        }
    }
    out
}

/// The largest char boundary at or below `i`.
fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Line starts of a text, found as far as they are asked for.
struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset of each line found so far.
    starts: Vec<usize>,
    /// Every line start is known.
    done: bool,
}

impl<'t> LineIndex<'t> {
    fn new(text: &'t str) -> Self {
        LineIndex { text, starts: vec![0], done: false }
    }

    /// Find line starts up to `at` (or all).
    fn scan_to(&mut self, at: usize) {
        while !self.done && *self.starts.last().unwrap_or(&0) <= at {
            let from = *self.starts.last().unwrap_or(&0);
            match memchr::memchr(b'\n', &self.text.as_bytes()[from..]) {
                Some(k) => self.starts.push(from + k + 1),
                _ => self.done = true,
            }
        }
    }

    /// The 0-based line holding byte `at`.
    fn line_of(&mut self, at: usize) -> u32 {
        self.scan_to(at);
        (self.starts.partition_point(|&s| s <= at) - 1) as u32
    }

    fn start(&mut self, line: u32) -> usize {
        self.starts[line as usize]
    }

    /// The end of a line, without its newline.
    fn end(&mut self, line: u32) -> usize {
        let s = self.starts[line as usize];
        self.scan_to(s);
        match self.starts.get(line as usize + 1) {
            Some(&next) => next - 1,
            None => self.text.len(),
        }
    }

    /// How many lines there are (a text ending in a newline has no empty last line).
    fn count(&mut self) -> u32 {
        self.scan_to(usize::MAX - 1);
        let n = self.starts.len() as u32;
        if n > 1 && self.starts[n as usize - 1] == self.text.len() {
            n - 1
        } else {
            n
        }
    }

    fn text(&mut self, line: u32) -> Cow<'t, str> {
        let s = self.start(line);
        let e = self.end(line);
        Cow::Borrowed(&self.text[s..e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pattern: &str, o: PatternOptions, context: usize, text: &str) -> Vec<Hit> {
        let s = Search::new(pattern, o, Filter::default(), context).unwrap();
        let at = At { line: 1, entry: None, what: What::Text, role: None, tool: None };
        let mut out = Vec::new();
        s.part(text, &at, Want::Hits, &mut |f| {
            if let Found::Hit(h) = f {
                out.push(h);
            }
            true
        });
        out
    }

    #[test]
    fn matches_on_one_line_make_one_hit() {
        let h = search("o", PatternOptions::default(), 0, "foo\nbar\nbaz boo");
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].text.as_str(), h[0].text_line), ("foo", 1));
        assert_eq!(h[0].submatches, [Submatch { start: 1, end: 2 }, Submatch { start: 2, end: 3 }]);
        assert_eq!((h[1].text.as_str(), h[1].text_line), ("baz boo", 3));
    }

    #[test]
    fn a_match_across_lines_shows_every_line_it_touches() {
        let h = search("a\nb", PatternOptions::default(), 0, "xa\nby\nz");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].text, "xa\nby");
        assert_eq!(h[0].submatches, [Submatch { start: 1, end: 4 }]);
    }

    #[test]
    fn context_lines_are_not_repeated_between_close_hits() {
        let text = "1\n2 hit\n3\n4\n5 hit\n6\n7\n8\n9\n10\n11 hit\n";
        let h = search("hit", PatternOptions::default(), 2, text);
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].before, ["1"]);
        assert_eq!(h[0].after, ["3", "4"]);
        assert!(h[1].before.is_empty() && h[1].continues);
        assert_eq!(h[1].after, ["6", "7"]);
        assert_eq!(h[2].before, ["9", "10"]);
        assert!(!h[2].continues);
        assert!(h[2].after.is_empty(), "no empty line after the final newline");
    }

    #[test]
    fn word_and_fixed_and_case() {
        let w = PatternOptions { word: true, ..Default::default() };
        assert_eq!(search("foo", w, 0, "foobar foo").len(), 1);
        assert_eq!(search("foo", w, 0, "foobar")[..].len(), 0);
        let f = PatternOptions { fixed: true, ..Default::default() };
        assert_eq!(search("a.c", f, 0, "abc").len(), 0);
        assert_eq!(search("a.c", f, 0, "a.c").len(), 1);
        let i = PatternOptions { ignore_case: true, ..Default::default() };
        assert_eq!(search("ÉTÉ", i, 0, "été").len(), 1);
    }

    #[test]
    fn damaged_lines_give_their_string_values() {
        let v =
            string_values(r#"{"id":"a1","message":{"content":[{"type":"text","text":"tab\there \u00e9 and a torn tai"#);
        assert_eq!(v, ["tab\there é and a torn tai"]);
        assert_eq!(string_values(r#"{"k": "v\"q", "n": 3}"#), ["v\"q"]);
        // A string cut after a backslash or inside a multi-byte character.
        assert_eq!(string_values("{\"k\":\"ab\\"), ["ab\\"]);
    }
}
