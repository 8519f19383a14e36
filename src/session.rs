//! A loaded session: the decoded records of one source plus its tree index and the findings
//! made while loading. This is what every view takes as input.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::content::Content;
use crate::error::{Error, Result};
use crate::finding::{Code, Finding, Severity};
use crate::format::{self, Detail, Uses};
use crate::model::{Brief, Entry, Format, Header, Id, Message, Observation, ToolUse};
use crate::pairing::Pairer;
use crate::source::Source;
use crate::tree::{Ix, Tree};

pub struct Session<'a> {
    pub source: &'a Source,
    pub format: Format,
    /// Model calls, runs and compaction events are in observation records, not derived
    /// from the entries (see [`format::Decoder::observed`]).
    pub observed: bool,
    /// What the load kept of each record ([`Detail::kept_in`] the format: [`Detail::Index`],
    /// [`Detail::Full`], [`Detail::Tallied`], which counted the messages as well, ...).
    pub detail: Detail,
    pub header: Option<Header<'a>>,
    /// Tree entries (arcturn entries, crab messages) in file order.
    pub entries: Vec<Entry<'a>>,
    /// The tool calls and results that found no partner anywhere in the file, in file
    /// order ([`Pairer`]), when the load asked for the tool uses ([`Uses::Listed`] or
    /// [`Uses::Paired`]); else empty.
    pub unpaired: Vec<ToolUse<'a>>,
    /// crab observation records in file order.
    pub observations: Vec<Observation<'a>>,
    /// Records that are neither entries, observations nor the header.
    pub others: u32,
    pub lines: u32,
    pub blank_lines: u32,
    pub tree: Tree,
    /// Everything found while loading, sorted by line; `check` adds its lint on top.
    pub findings: Vec<Finding>,
    /// The lines the load checked as UTF-8, as text ([`Session::line_text`]).
    checked: format::Checked<'a>,
    /// Each entry's role, after a load that kept only the roles of the messages
    /// ([`Detail::Roles`], [`Detail::Counted`]): [`Session::role_name`] reads it.
    roles: Vec<u8>,
    /// Each entry's message's role and whether it is sent, after a load that let some
    /// messages go ([`Detail::Counted`]): [`Session::brief`] reads it.
    briefs: Vec<Option<Brief>>,
    /// After such a load, the hashes of the tool results' call ids ([`format::Decoded::result_ids`]).
    result_ids: Vec<(u32, u32)>,
}

/// A message of a session: the one its load kept, or one read back from its line.
pub enum Held<'s, 'a> {
    Kept(&'s Message<'a>),
    Read(Box<Message<'a>>),
}

impl<'a> std::ops::Deref for Held<'_, 'a> {
    type Target = Message<'a>;

    fn deref(&self) -> &Message<'a> {
        match self {
            Held::Kept(m) => m,
            Held::Read(m) => m,
        }
    }
}

impl<'a> Session<'a> {
    /// Decode and index a source. Fails only when the input cannot be read as a session at
    /// all; damaged lines become findings.
    pub fn load(source: &'a Source, format: Option<Format>) -> Result<Session<'a>> {
        Session::load_with(source, format, Detail::Full, Uses::Unlisted)
    }

    /// [`Session::load`], keeping only `detail` of each record, and listing the tool uses
    /// and pairing them when `uses` asks.
    pub fn load_with(source: &'a Source, format: Option<Format>, detail: Detail, uses: Uses) -> Result<Session<'a>> {
        Session::load_counted(source, format, detail, uses, None)
    }

    /// [`Session::load_with`], showing each entry with its message to a sink of `sinks`
    /// when the load is [`Detail::Counted`] ([`format::decode_counted`]).
    pub fn load_counted<'t>(
        source: &'a Source,
        format: Option<Format>,
        detail: Detail,
        uses: Uses,
        sinks: Option<&'t dyn format::Sinks<'a>>,
    ) -> Result<Session<'a>>
    where
        'a: 't,
    {
        // The tree's id lookup is begun while the last parts are decoded.
        let mut ids = crate::tree::Ids::default();
        let mut d =
            format::decode_counted(source, format, detail, uses, sinks, Some(&mut |e, room| ids.extend(e, room)))?;
        // The pairing (if the decode did not pair them as it went), then the tree: the tool
        // uses are let go before the tree is built, so that a load holds one of them at a
        // time beside the entries, for the few milliseconds the two would save side by side.
        let tools = std::mem::take(&mut d.tools);
        let unpaired = match d.uses {
            Uses::Paired => tools,
            Uses::Listed | Uses::Unlisted => {
                let mut pairer = Pairer::default();
                pairer.add(tools);
                pairer.finish()
            }
        };
        let tree = Tree::build_with(&d.entries, ids);
        let mut findings = d.findings;
        findings.extend(tree.findings.iter().cloned());
        let table = format::decoder(d.format);
        if table.header_expected && d.header.is_none() && !d.entries.is_empty() {
            let line = d.entries.first().map(|e| e.line);
            findings.push(Finding::new(
                Code::MissingHeader,
                line,
                "no session header: the first line is an entry, so every line is read as one",
            ));
        }
        if let Some(id) = d.header.as_ref().and_then(|h| h.id.as_ref()) {
            let ok = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
            if !ok {
                let line = d.header.as_ref().map(|h| h.line);
                findings.push(Finding::new(
                    Code::InvalidSessionId,
                    line,
                    format!("session id `{id}` has characters outside [A-Za-z0-9._-]"),
                ));
            }
        }
        let mut out_of_order = Vec::new();
        let mut last = i64::MIN;
        for e in &d.entries {
            if let Some(t) = e.timestamp.get() {
                if t < last {
                    out_of_order.push(e.line);
                }
                last = last.max(t);
            }
        }
        if let Some(&first) = out_of_order.first() {
            let list: Vec<String> = out_of_order.iter().take(10).map(u32::to_string).collect();
            findings.push(Finding::new(
                Code::TimestampOutOfOrder,
                Some(first),
                format!(
                    "{} entr{} older than an entry before {} (lines {}{}); file order is kept",
                    out_of_order.len(),
                    if out_of_order.len() == 1 { "y is" } else { "ies are" },
                    if out_of_order.len() == 1 { "it" } else { "them" },
                    list.join(", "),
                    if out_of_order.len() > 10 { ", ..." } else { "" }
                ),
            ));
        }
        findings.sort_by_key(|f| (f.line.unwrap_or(0), f.code));
        Ok(Session {
            source,
            format: d.format,
            observed: table.observed,
            detail: detail.kept_in(d.format),
            header: d.header,
            entries: d.entries,
            unpaired,
            observations: d.observations,
            others: d.others,
            lines: d.lines,
            blank_lines: d.blank_lines,
            tree,
            findings,
            checked: d.checked,
            roles: d.roles,
            briefs: d.briefs,
            result_ids: d.result_ids,
        })
    }

    /// The input's name as the user gave it.
    pub fn name(&self) -> &str {
        &self.source.name
    }

    pub fn entry(&self, i: Ix) -> &Entry<'a> {
        &self.entries[i as usize]
    }

    /// The role of entry `i`'s message as written; `None` for an entry without one. After a
    /// load that kept only the roles ([`Detail::Roles`]), read from those.
    pub fn role_name(&self, i: Ix) -> Option<&str> {
        let e = self.entry(i);
        match (&e.message, self.roles.get(i as usize)) {
            (Some(m), _) => Some(m.role_name()),
            (None, Some(&at)) if at != format::NO_ROLE => crate::model::ROLE_NAMES.get(usize::from(at)).copied(),
            _ => None,
        }
    }

    /// The id entry `i` names as its parent (`None` for a root), whether or not an entry
    /// with that id is in the file.
    pub fn parent_id(&self, i: Ix) -> Option<&Id<'a>> {
        crate::model::parent_id(&self.entries, i as usize)
    }

    /// Give the entries `ix` their messages back, read from their lines, after a load that
    /// let them go ([`Detail::Shown`], some of them with [`Detail::Counted`]); nothing to do
    /// for those it kept.
    pub fn read_back(&mut self, ix: &[Ix]) {
        if self.detail.keeps_messages() {
            return;
        }
        let format = self.format;
        let messages: Vec<_> = ix
            .par_iter()
            .map(|&i| {
                let e = &self.entries[i as usize];
                if e.message.is_some() {
                    return None;
                }
                format::read_back(self.line_text(e.span())?, e, format)
            })
            .collect();
        for (&i, m) in ix.iter().zip(messages) {
            if m.is_some() {
                self.entries[i as usize].message = m;
            }
        }
    }

    /// Entry `i`'s message's role and whether it is sent; `None` for an entry without one.
    /// After a load that let some messages go ([`Detail::Counted`]), read from what it noted
    /// of each.
    pub fn brief(&self, i: Ix) -> Option<Brief> {
        match &self.entry(i).message {
            Some(m) => Some(m.brief()),
            None => self.briefs.get(i as usize).copied().flatten(),
        }
    }

    /// The entries whose messages the load let go ([`Detail::Counted`]) that hold a tool
    /// result whose call id's hash ([`format::call_id_hash`]) is `wanted`, each with that
    /// hash, in file order: those of them that may hold a result of a given call, found
    /// without reading them back.
    pub fn results_hashed(&self, wanted: impl Fn(u32) -> bool) -> Vec<(Ix, u32)> {
        self.result_ids
            .iter()
            .copied()
            .filter(|&(e, h)| wanted(h) && self.entries[e as usize].message.is_none())
            .collect()
    }

    /// Entry `i`'s message: the one the load kept, else, after a load that let it go
    /// ([`Detail::Counted`]), read back from its line (decoded as the load decoded it, its
    /// count left to [`Session::tally`]). `None` for an entry without one.
    pub fn message(&self, i: Ix) -> Option<Held<'_, 'a>> {
        let e = self.entry(i);
        match &e.message {
            Some(m) => Some(Held::Kept(m)),
            None if self.brief(i).is_some() => {
                format::read_back(self.line_text(e.span())?, e, self.format).map(Held::Read)
            }
            None => None,
        }
    }

    /// The raw bytes of an entry's line.
    pub fn raw(&self, i: Ix) -> &'a [u8] {
        &self.source_bytes()[self.entries[i as usize].span()]
    }

    fn source_bytes(&self) -> &'a [u8] {
        self.source.bytes()
    }

    /// The line at `span` as text, as the load checked it (`None`: not UTF-8).
    fn line_text(&self, span: std::ops::Range<usize>) -> Option<&'a str> {
        self.checked.line(self.source_bytes(), span)
    }

    /// The text of the line at `span` once `fixed` ([`format::repaired`] of it): the load's
    /// check of the line when nothing was repaired, else a check of the repaired copy.
    // (The `Cow` itself, not its bytes: whether it borrows says whether anything was repaired.)
    #[allow(clippy::ptr_arg)]
    fn repaired_text<'s>(&self, span: std::ops::Range<usize>, fixed: &'s Cow<'a, [u8]>) -> Option<&'s str> {
        match fixed {
            Cow::Borrowed(_) => self.line_text(span),
            Cow::Owned(fixed) => simdutf8::basic::from_utf8(fixed).ok(),
        }
    }

    /// The full JSON value of a line (lone surrogates repaired, numbers beyond f64 kept as
    /// their text: both were reported at load), for views that need the payload.
    pub fn value_at(&self, span: std::ops::Range<usize>) -> Result<serde_json::Value> {
        let fixed = format::repaired(&self.source_bytes()[span.clone()]);
        // Parsing the line as a `str` spares serde_json a check of every string it meets.
        let text = self.repaired_text(span, &fixed);
        let b: &[u8] = &fixed;
        let parsed = match text {
            Some(text) => serde_json::from_str(text),
            None => serde_json::from_slice(b),
        };
        let parsed = parsed.or_else(|e| {
            let text = std::str::from_utf8(b).ok();
            match text.and_then(format::skim::big_numbers_as_text) {
                Some(t) => serde_json::from_str(&t),
                None => Err(e),
            }
        });
        parsed.map_err(|e| Error::input(self.name(), format!("cannot re-read a line: {}", format::clean(&e))))
    }

    /// The full JSON value of an entry's (first) line, as stored.
    pub fn value(&self, i: Ix) -> Result<serde_json::Value> {
        self.value_at(self.entries[i as usize].span())
    }

    /// What an entry's message says, in the neutral vocabulary (read from its lines: the
    /// index keeps no payloads).
    pub fn content(&self, i: Ix) -> Result<Content> {
        self.content_cut(i, None)
    }

    /// [`Session::content`] with every text cut to its first `chars` characters
    /// ([`Content::cut`]): what a one-line preview needs, read without unescaping or copying
    /// the rest of a long text (a thinking, a tool's output).
    pub fn content_preview(&self, i: Ix, chars: usize) -> Result<Content> {
        self.content_cut(i, Some(chars)).map(|c| c.cut(chars))
    }

    /// [`Session::content`], its prose read up to `cut` characters when given (see
    /// [`format::Direct`]).
    fn content_cut(&self, i: Ix, cut: Option<usize>) -> Result<Content> {
        let e = self.entry(i);
        let table = format::decoder(self.format);
        if let Some(c) = table.direct.and_then(|direct| self.content_direct(i, direct, cut)) {
            return Ok(c);
        }
        let lines = e.spans().map(|sp| self.members_at(sp, table.content_keys)).collect::<Result<Vec<_>>>()?;
        Ok((table.content)(e, &lines))
    }

    /// [`Session::content`] straight from the text of the entry's lines ([`format::direct`]),
    /// its prose read up to `cut` characters when given; `None` when `direct` declines it, or
    /// a line is not UTF-8. A line is read as it is stored, and again with its lone surrogate
    /// escapes repaired ([`format::repaired`]) only when that is declined: the skimming parser
    /// declines a lone surrogate in what it reads.
    pub fn content_direct(&self, i: Ix, direct: format::Direct, cut: Option<usize>) -> Option<Content> {
        let bytes = self.source_bytes();
        let e = self.entry(i);
        let stored = e.spans().map(|sp| self.line_text(sp)).collect::<Option<Vec<&str>>>()?;
        if let Ok(c) = direct(e, &stored, cut) {
            return Some(c);
        }
        let lines: Vec<_> = e.spans().map(|sp| format::repaired(&bytes[sp])).collect();
        if lines.iter().all(|l| matches!(l, Cow::Borrowed(_))) {
            return None;
        }
        let texts = e.spans().zip(&lines).map(|(sp, l)| self.repaired_text(sp, l)).collect::<Option<Vec<&str>>>()?;
        direct(e, &texts, cut).ok()
    }

    /// An entry's message counted as a context estimate counts it: as the load counted it
    /// ([`Detail::Tallied`]), else straight from its lines, where the format can
    /// ([`format::Decoder::tally`]); `None` where it cannot, and the
    /// blocks are to be decoded ([`Session::content`]). A line that is not UTF-8 or holds a
    /// lone surrogate escape (which the skimming parser declines) is one of those: its
    /// repair is [`Session::members_at`]'s.
    pub fn tally(&self, i: Ix) -> Option<crate::content::Tally> {
        if let Some(c) = self.entry(i).message.as_ref().and_then(|m| m.counted) {
            return Some(c.tally());
        }
        let count = format::decoder(self.format).tally?;
        let lines = self.entry(i).spans().map(|sp| self.line_text(sp));
        count(&lines.collect::<Option<Vec<&str>>>()?)
    }

    /// The top-level members `keys` of the line at `span`, as a JSON object; the other members
    /// are skipped unparsed (on real files most of a line is metadata and copies of tool
    /// output no view reads). A line the skimming parser declines is read whole by
    /// [`Session::value_at`], so the members are the same either way.
    pub fn members_at(&self, span: std::ops::Range<usize>, keys: &[&str]) -> Result<serde_json::Value> {
        let fixed = format::repaired(&self.source_bytes()[span.clone()]);
        match self.repaired_text(span.clone(), &fixed).map(|t| format::skim::from_str_seed(t, Members(keys))) {
            Some(Ok(v)) => Ok(v),
            _ => self.value_at(span),
        }
    }

    /// Findings that make a line unreadable, excluding the last line's torn-write rule.
    pub fn damaged_lines(&self) -> usize {
        self.findings.iter().filter(|f| f.code.is_line_damage() && f.severity == Severity::Error).count()
    }

    /// Resolve an id argument as the user typed it: exact (in the file's own id type), then
    /// the other type, then a unique prefix of a string id.
    pub fn find(&self, arg: &str) -> Result<Ix> {
        let as_int = arg.parse::<u64>().ok().map(Id::Int);
        let as_str = Id::copied(arg);
        // The file's own id type first: crab writes integers, the others strings.
        let ints = self.entries.first().is_some_and(|e| e.id.is_int());
        let ordered = if ints { [as_int, Some(as_str)] } else { [Some(as_str), as_int] };
        for id in ordered.into_iter().flatten() {
            if let Some(i) = self.tree.get(&self.entries, &id) {
                return Ok(i);
            }
        }
        if !arg.is_empty() {
            let mut hits =
                self.entries.iter().enumerate().filter(|(_, e)| e.id.as_text().is_some_and(|s| s.starts_with(arg)));
            if let Some((i, _)) = hits.next() {
                let others = hits.count();
                if others == 0 {
                    return Ok(i as Ix);
                }
                return Err(Error::Usage(format!(
                    "{}: id prefix `{}` is ambiguous ({} entries match); give more characters",
                    self.name(),
                    crate::sanitize::inline(arg),
                    others + 1
                )));
            }
        }
        Err(Error::Usage(format!("{}: no entry with id `{}`", self.name(), crate::sanitize::inline(arg))))
    }

    /// The entry an optional id argument names, defaulting to the latest entry.
    pub fn target(&self, arg: Option<&str>) -> Result<Ix> {
        match arg {
            Some(a) => self.find(a),
            None => self.tree.latest().ok_or_else(|| Error::Usage(format!("{}: no entries", self.name()))),
        }
    }

    /// Session creation time: the header's, else the first timestamp seen.
    pub fn created(&self) -> Option<i64> {
        self.header
            .as_ref()
            .and_then(|h| h.created)
            .or_else(|| self.entries.iter().find_map(|e| e.timestamp.get()))
            .or_else(|| self.observations.iter().find_map(|o| o.ts))
    }
}

/// Deserializes a JSON object keeping only the members named (see [`Session::members_at`]).
struct Members<'k>(&'k [&'k str]);

impl<'de> serde::de::DeserializeSeed<'de> for Members<'_> {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Members<'_> {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(MemberKey(k)) = a.next_key()? {
            if self.0.contains(&k.as_ref()) {
                out.insert(k.into_owned(), a.next_value()?);
            } else {
                a.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct MemberKey<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for MemberKey<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MemberKey<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(MemberKey(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(MemberKey(std::borrow::Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(MemberKey(std::borrow::Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}
