//! Lines to records: format detection, then a parallel decode of every line into the
//! normalized [`model`](crate::model) records, with damage turned into findings.
//!
//! One module per format does the per-line work; this module owns what is common: line
//! preflight (blank, UTF-8, lone surrogates), error classification with precise columns,
//! the torn-tail rule, and keeping input order. Nothing after this layer knows which format
//! a file was.

pub mod arcturn;
pub mod blocks;
pub mod claude;
pub mod codex;
pub mod crab;
pub mod de;
pub mod direct;
pub mod pi;
pub mod skim;
pub mod tally;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

/// The maps a format keeps while it stitches a file (ids, call ids, labels): foldhash, seeded
/// at random per map as the id index is, so a file cannot be prepared to collide in them.
/// SipHash, the standard default, was most of the hashing time on Claude Code files.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

use rayon::prelude::*;
use serde::de::IgnoredAny;

use crate::content::Content;
use crate::error::{Error, Result};
use crate::finding::{Code, Finding};
use crate::model::{Brief, Entry, Format, Header, Id, Kind, Message, Observation, ToolSide, ToolUse, OTHER_ROLE};
use crate::pairing::Pairer;
use crate::source::{Line, Source};

/// Below this size a file is decoded on one thread: splitting costs more than it saves.
const PARALLEL_MIN_BYTES: usize = 4 << 20;
/// Chunks per thread, so a few huge lines do not leave a thread idle.
const CHUNKS_PER_THREAD: usize = 16;
/// How many first lines detection looks at.
const DETECT_LINES: usize = 50;
/// Once a format is recognised, detection reads on only until this many bytes of lines are
/// read: a session's first lines can be megabytes of tool output, all decoded again later.
const DETECT_BYTES: usize = 16 << 10;

/// What one line decoded to.
#[derive(Debug)]
pub enum Record<'a> {
    // Boxed so that the common case (an entry) sets the size of every line's result.
    Header(Box<Header<'a>>),
    Entry(Entry<'a>),
    Observation(Box<Observation<'a>>),
    /// A record that is not a tree node (an unknown kind without an id): counted, shown by
    /// `show`/`query`, never silently dropped.
    Other,
}

/// Why a line could not be decoded.
#[derive(Debug)]
pub enum Fail {
    /// The JSON parser refused the line (syntax, or a field of the wrong type).
    Json(serde_json::Error),
    /// The line is JSON but not a usable record (no id, say).
    Finding(Finding),
    /// Nested past [`MAX_NESTING`] at this 1-based column.
    TooDeep(usize),
    /// The skimmer declined the line and [`Effort::Skim`] was asked for.
    Declined,
}

/// How much of each record a decode keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything the views use: message roles, content blocks, usage, tool calls.
    #[default]
    Full,
    /// The index, the tool calls and the findings: message bodies are decoded and checked
    /// but not kept, which saves most of the memory a load takes (`check`).
    Index,
    /// [`Detail::Index`] in a format whose messages are each their line's alone
    /// ([`Decoder::line_messages`]), for a view that shows a few of them and reads those
    /// back ([`crate::session::Session::read_back`]); [`Detail::Full`] in the others.
    Shown,
    /// [`Detail::Index`], and each message's role, a byte an entry beside the entries
    /// ([`Decoded::roles`]), for a view that shows every entry's role and nothing else of
    /// its message (`tree --json`). A message whose role is not one of [`ROLE_NAMES`] is
    /// kept whole, for its name.
    Roles,
    /// [`Detail::Full`], and each message's content counted as a context estimate counts
    /// it, as the walk of its line passes ([`Message::counted`]), in a format that counts
    /// ([`Decoder::tally`]) and reads each line on its own (no [`Decoder::fold`]): the
    /// estimate of `stats` then reads no line a second time. Once a compaction is met
    /// anywhere in the file, the lines decoded after it are not counted, but for those of the
    /// file's last chunk (where the last compaction, and what it keeps, nearly always are):
    /// the estimate reads only what the last compaction keeps, few of the messages of a file
    /// that compacts, and counts a message that was not counted from its line
    /// ([`crate::session::Session::tally`]).
    Tallied,
    /// [`Detail::Tallied`], each entry shown with its message to the sink of its part
    /// ([`Sink`]) as it is decoded, and then the message let go unless no compaction comes
    /// after it in the file: the entries keep each message's role and whether it is sent
    /// ([`Decoded::briefs`], [`Decoded::roles`]) and the hashes of its results' call ids
    /// ([`Decoded::result_ids`]), and a view reads back any other message it needs
    /// ([`crate::session::Session::message`]). For `stats`, which counts every message once
    /// but reads whole only the few its context estimate sends: in a format whose messages
    /// are their line's alone and whose calls are on its entries (no [`Decoder::fold`], not
    /// [`Decoder::observed`]); in the others, what [`Detail::Tallied`] is ([`Detail::kept_in`]).
    Counted,
}

impl Detail {
    /// Whether a load asked for `self` keeps the messages it decodes (those of unknown roles
    /// aside).
    pub fn keeps_messages(self) -> bool {
        matches!(self, Detail::Full | Detail::Tallied)
    }

    /// How a line is read for a load asked for `self` (until a compaction is met): the walk
    /// counts the content of messages only for [`Detail::Tallied`].
    fn effort(self) -> Effort {
        match self {
            Detail::Tallied | Detail::Counted => Effort::Measure,
            _ => Effort::Skim,
        }
    }

    /// What a load asked for `self` keeps of a `format` file: [`Detail::Shown`] is one of the
    /// others, [`Detail::Tallied`] is [`Detail::Full`] where the format does not count, and
    /// [`Detail::Counted`] is [`Detail::Tallied`]'s where the format does not allow it.
    pub fn kept_in(self, format: Format) -> Detail {
        let dec = decoder(format);
        match self {
            Detail::Shown if dec.line_messages => Detail::Index,
            Detail::Shown => Detail::Full,
            Detail::Tallied if dec.tally.is_none() || dec.fold.is_some() => Detail::Full,
            Detail::Counted
                if dec.line_messages && !dec.observed && Detail::Tallied.kept_in(format) == Detail::Tallied =>
            {
                Detail::Counted
            }
            Detail::Counted => Detail::Tallied.kept_in(format),
            d => d,
        }
    }
}

/// What a load keeps of the tool calls and results ([`Decoded::tools`]), for the pairing
/// check. Only `check` reads them; a view that does not is spared them (about 50 bytes an
/// entry).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Uses {
    /// Every one, in file order.
    Listed,
    /// Those that found no partner, paired as the parts are decoded ([`Pairer`]), so that
    /// the list of every use is never held; in a format with a pass, which needs them all,
    /// the load lists them ([`Uses::Listed`]) and the session pairs them.
    Paired,
    /// None.
    #[default]
    Unlisted,
}

/// Which parser [`parse`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Effort {
    /// The skimmer: whatever it declines is [`Fail::Declined`], for the caller to retry
    /// with `Full` after its own preparation (lone-surrogate repair).
    #[default]
    Skim,
    /// [`Effort::Skim`], the walk of a line counting the content of its message as it
    /// passes ([`Detail::Tallied`]).
    Measure,
    /// serde_json, which has the last word on what is valid: for a line the skimmer
    /// declined, so the skimmer does not read it twice.
    Full,
}

/// A decoded line and the notes made about it, or why it failed.
pub type LineResult<'a> = std::result::Result<(Record<'a>, Vec<Finding>), Fail>;

/// Everything a format knows, behind one table: adding a format is one module, its
/// registration in [`decoder`] and [`detect`], its testdata and its tests.
pub struct Decoder {
    /// One line to a record (in parallel, in any order).
    pub decode: for<'a> fn(&'a str, &Line, Effort) -> LineResult<'a>,
    /// Re-parse a line that failed, naming the field at fault.
    pub explain: fn(&[u8]) -> Option<String>,
    /// The file-level pass, before the index is built (after every line is decoded, or fed
    /// the entries in file order as they are: [`Fold`]), for
    /// formats whose lines are not one tree entry each (responses split over several lines,
    /// entries without ids, progress lines between turns). It may merge, drop and re-parent
    /// entries, and leaves `tools` matching what it kept ([`reindex`] rebuilds them; a pass
    /// can carry them over instead). It gets the file's bytes, to re-read the
    /// few lines it needs more of, and the detail the load keeps: with [`Detail::Index`] the
    /// messages are let go after it, so what only a message shows (a result's tool name)
    /// need not be worked out.
    pub fold: Option<Fold>,
    /// An entry's message is what its line decodes to, whatever the rest of the file holds
    /// (the pass, if any, leaves messages as they are): it can be read back from the line
    /// alone ([`read_back`]).
    pub line_messages: bool,
    /// An entry's message content, from the parsed JSON of each of its lines.
    pub content: fn(&Entry<'_>, &[serde_json::Value]) -> Content,
    /// The top-level members of a line that `content` reads; the rest of the line is skipped
    /// unparsed when content is re-read ([`crate::session::Session::content`]).
    pub content_keys: &'static [&'static str],
    /// An entry's message content straight from the text of each of its lines, with no JSON
    /// tree built ([`direct`]); what it declines is read by `content`. Formats without it
    /// always go through `content`.
    pub direct: Option<Direct>,
    /// An entry's message counted as a context estimate counts it, straight from the text of
    /// each of its lines, with no block built ([`crate::content::Tally`]); `None` where the
    /// count needs the blocks whole (then `content` decodes them). Formats without it always
    /// decode the blocks.
    pub tally: Option<Count>,
    /// The pass rebuilds the tool uses from the entries it keeps ([`reindex`]), so the
    /// decode does not list them.
    pub rekeyed: bool,
    /// Where model calls, runs and compaction events are recorded: in observation records
    /// beside the entries (crab), or on the entries themselves (every other format), from
    /// which views derive them.
    pub observed: bool,
    /// A file is expected to open with a session header (a missing one is reported).
    pub header_expected: bool,
    /// Whether a user message's text is something a person typed, to title a session by:
    /// not the echo of a command or a marker the agent wrote ([`any_prompt`] for formats
    /// that write none).
    pub is_prompt: fn(&str) -> bool,
}

/// Decode an entry's message content from the text of each of its lines ([`Decoder::direct`]).
/// Given a number of characters, it may read only that many of each text of the message
/// (its prose: texts, thinking, the error), for a preview: [`Content::cut`] of what it gives
/// is then the content cut to them.
pub type Direct = fn(&crate::model::Entry<'_>, &[&str], Option<usize>) -> skim::Result<Content>;

/// Count an entry's message from the text of each of its lines ([`Decoder::tally`]).
pub type Count = fn(&[&str]) -> Option<crate::content::Tally>;

/// How a format's file-level pass gets the entries.
#[derive(Clone, Copy)]
pub enum Fold {
    /// Once every line is decoded, all at once: `fold(decoded, file bytes, detail)`.
    Whole(for<'a> fn(&mut Decoded<'a>, &'a [u8], Detail)),
    /// Part by part in file order, while the later parts are still being decoded, so that
    /// the pass runs beside the decode instead of after it: `start(file bytes, detail)`
    /// makes the pass, which gets the entries instead of [`Decoded::entries`] (see [`Stitch`]).
    Streamed(for<'a> fn(&'a [u8], Detail) -> Box<dyn Stitch<'a> + 'a>),
}

/// A file-level pass fed in file order ([`Fold::Streamed`]). It only looks back: nothing it
/// decides for an entry depends on a later line until [`Stitch::finish`].
pub trait Stitch<'a> {
    /// The next part's entries and their tool uses (none for a format that is
    /// [`Decoder::rekeyed`]), with lines and entry positions counted over the whole file
    /// (positions among the entries fed so far). Other findings and counts of the part are
    /// already in `d`; `d.entries` and `d.tools` are the pass's to fill.
    fn feed(&mut self, d: &mut Decoded<'a>, part: Fed<'a>);
    /// Every part is fed (and the file-level findings are in `d`): finish the entries and
    /// tool uses.
    fn finish(self: Box<Self>, d: &mut Decoded<'a>);
}

/// What a [`Stitch`] is fed of one part.
pub struct Fed<'a> {
    pub entries: Vec<Entry<'a>>,
    pub tools: Vec<ToolUse<'a>>,
    /// About how many entries the whole file holds (the first part's count scaled by its
    /// share of the bytes), to size tables once instead of growing them.
    pub expected: usize,
}

/// [`Decoder::is_prompt`] for formats whose user messages are all typed.
pub fn any_prompt(_: &str) -> bool {
    true
}

/// The table of a format.
pub fn decoder(format: Format) -> Decoder {
    match format {
        Format::Arcturn => arcturn::DECODER,
        Format::Crab => crab::DECODER,
        Format::Pi => pi::DECODER,
        Format::Claude => claude::DECODER,
        Format::Codex => codex::DECODER,
    }
}

/// The id the reader gives an entry its format leaves without one: `L` and its line
/// number in the file (marked `synthetic_id` wherever it is shown).
/// (Written on the stack: `L` and at most 10 digits always pack inline.)
pub fn line_id(line: u32) -> Id<'static> {
    use std::io::Write;
    let mut buf = [0u8; 11];
    let mut w = &mut buf[..];
    let _ = write!(w, "L{line}");
    let len = 11 - w.len();
    Id::copied(std::str::from_utf8(&buf[..len]).unwrap_or_default())
}

/// What a format's decode gives such an entry (with `synthetic_id` set): the line's number
/// in the file is known only once its part is placed, and then [`line_id`] names it, once.
pub fn made_up_id() -> Id<'static> {
    Id::copied("")
}

/// Rebuild the tool uses from the entries, after a fold changed them (when the load lists
/// them).
pub fn reindex(d: &mut Decoded<'_>) {
    if d.uses == Uses::Unlisted {
        return;
    }
    debug_assert_eq!(d.uses, Uses::Listed, "a format with a pass lists its uses");
    // On every worker: the entries were just rewritten by one thread, and each is a few
    // pointers to follow.
    const RUN: usize = 4096;
    d.tools = d
        .entries
        .par_chunks(RUN)
        .enumerate()
        .flat_map_iter(|(k, run)| {
            let mut tools = Vec::new();
            for (i, e) in run.iter().enumerate() {
                push_tool_uses(&mut tools, (k * RUN + i) as u32, e);
            }
            tools
        })
        .collect();
}

/// The tool calls and results an entry makes, packed for the pairing check.
fn push_tool_uses<'a>(tools: &mut Vec<ToolUse<'a>>, ix: u32, e: &Entry<'a>) {
    let Some(m) = &e.message else { return };
    let ran = m.tools_ran();
    let calls = m.tool_calls.iter().filter_map(|c| c.id.as_ref());
    tools.extend(calls.map(|id| ToolUse { entry: ix, side: ToolSide::Call, key: Some(Id::of_text(id)), ran }));
    tools.extend(m.tool_results.iter().map(|r| ToolUse {
        entry: ix,
        side: ToolSide::Result,
        key: r.call_id.as_ref().map(Id::of_text),
        ran: false,
    }));
}

/// Everything decoded from one file, in file order.
pub struct Decoded<'a> {
    pub format: Format,
    pub header: Option<Header<'a>>,
    pub entries: Vec<Entry<'a>>,
    /// The tool calls and results, in file order, for the pairing check: every one
    /// ([`Uses::Listed`]), those that found no partner ([`Uses::Paired`]), or none.
    pub tools: Vec<ToolUse<'a>>,
    /// What `tools` holds (a format's pass that rebuilds it reads this).
    pub uses: Uses,
    pub observations: Vec<Observation<'a>>,
    /// Records that are neither entries, observations nor the header.
    pub others: u32,
    /// Lines in the file, blank ones included.
    pub lines: u32,
    pub blank_lines: u32,
    pub findings: Vec<Finding>,
    /// The text of the lines checked as UTF-8 by the decode, for views that read a line again.
    pub checked: Checked<'a>,
    /// With [`Detail::Roles`] or [`Detail::Counted`], each entry's role as its place in
    /// [`ROLE_NAMES`], or [`NO_ROLE`] where the entry has no message or has kept it (a role of
    /// another name; with [`Detail::Counted`], the role of a message still kept is noted
    /// too); else empty.
    pub roles: Vec<u8>,
    /// With [`Detail::Counted`], each entry's message's [`Brief`] (`None`: no message); else
    /// empty.
    pub briefs: Vec<Option<Brief>>,
    /// With [`Detail::Counted`], each tool result's entry and the hash of its call id
    /// ([`call_id_hash`]), in file order: which messages may hold a result of a given call,
    /// without reading back those let go; else empty.
    pub result_ids: Vec<(u32, u32)>,
}

/// The hash of a tool call id noted in [`Decoded::result_ids`] (two ids may share one).
pub fn call_id_hash(id: &str) -> u32 {
    use std::hash::BuildHasher;
    static STATE: std::sync::LazyLock<foldhash::fast::RandomState> = std::sync::LazyLock::new(Default::default);
    STATE.hash_one(id) as u32
}

/// What a load asked for [`Detail::Counted`] shows each entry to, with its message, before
/// it lets go of the message: one for each part of the file, made by the worker that decodes
/// the part ([`Sinks`]) and shown the part's entries in order as they are decoded, then
/// placed, in file order, on the thread that asked for the load.
pub trait Sink<'a>: Send {
    /// The entry at position `at` of the part.
    fn entry(&mut self, at: u32, e: &Entry<'a>);
    /// The part is placed: its first entry is at `offset` in the file.
    fn place(self: Box<Self>, offset: u32);
}

/// Makes the [`Sink`] of each part.
pub trait Sinks<'a>: Sync {
    /// The sink of a part expected to hold about `room` entries (what its vectors may
    /// reserve, so that they are not copied as they grow).
    fn sink<'s>(&'s self, room: usize) -> Box<dyn Sink<'a> + 's>
    where
        'a: 's;
}

/// In [`Decoded::roles`]: the entry has no message, or kept it.
pub const NO_ROLE: u8 = OTHER_ROLE;

/// What [`Decoded::roles`] holds for `e`, whose message is then let go unless its role is
/// not one of [`ROLE_NAMES`].
fn take_role(e: &mut Entry<'_>) -> u8 {
    match e.message.as_ref().map(|m| m.role_at) {
        Some(OTHER_ROLE) | None => NO_ROLE,
        Some(at) => {
            e.message = None;
            at
        }
    }
}

/// The runs of lines the decode found valid UTF-8 ([`Utf8Run`]), with where each starts in
/// the file's bytes, in file order: a view that reads a line again (a context estimate, a
/// preview, `show`) cuts its text from its run instead of checking it again.
#[derive(Default)]
pub struct Checked<'a> {
    runs: Vec<(usize, &'a str)>,
}

impl<'a> Checked<'a> {
    /// The line at `span` of `bytes` (the decoded file's) as text: cut from the checked run
    /// that holds it, else checked now (a line checked alone, or a damaged one).
    pub fn line(&self, bytes: &'a [u8], span: Range<usize>) -> Option<&'a str> {
        let after = self.runs.partition_point(|&(start, _)| start <= span.start);
        if let Some(&(start, text)) = after.checked_sub(1).and_then(|i| self.runs.get(i)) {
            if let Some(line) = text.get(span.start - start..span.end.saturating_sub(start)) {
                return Some(line);
            }
        }
        simdutf8::basic::from_utf8(bytes.get(span)?).ok()
    }
}

/// Decode a whole source. `forced` skips detection.
pub fn decode(source: &Source, forced: Option<Format>, detail: Detail, uses: Uses) -> Result<Decoded<'_>> {
    decode_counted(source, forced, detail, uses, None, None)
}

/// What a load does with the entries placed so far while the last parts of a file are
/// decoded: told the entries (the first ones of the file, in their final order) and how many
/// the file is expected to hold, by the share of its bytes placed ([`decode_counted`]).
pub type Tail<'t, 'a> = &'t mut dyn FnMut(&[Entry<'a>], usize);

/// [`decode`], showing each entry to a sink of `sinks` when the load is [`Detail::Counted`]
/// (what `detail` is for the format: [`Detail::kept_in`]); no sink is made otherwise. Once
/// every part is being decoded and fewer are left than there are workers (so that one is
/// idle), `tail` is handed the entries placed so far after each part is placed, in a format
/// whose entries are final once placed (no [`Decoder::fold`]), when the file is decoded in
/// parts on this thread.
pub fn decode_counted<'t, 'a: 't>(
    source: &'a Source,
    forced: Option<Format>,
    detail: Detail,
    uses: Uses,
    sinks: Option<&'t dyn Sinks<'a>>,
    mut tail: Option<Tail<'t, 'a>>,
) -> Result<Decoded<'a>> {
    let format = match forced {
        Some(f) => f,
        None => detect(source)?,
    };
    let dec = decoder(format);
    let detail = detail.kept_in(format);
    let uses = if uses == Uses::Paired && dec.fold.is_some() { Uses::Listed } else { uses };
    // A fold reads the messages, so they are let go only after it.
    let part_detail = if dec.fold.is_some() { Detail::Full } else { detail };
    let body = source.body();
    let threads = rayon::current_num_threads();
    let chunks = if body.len() < PARALLEL_MIN_BYTES || threads < 2 {
        vec![body.clone()]
    } else {
        source.chunks(threads * CHUNKS_PER_THREAD)
    };
    let folded = std::sync::atomic::AtomicBool::new(false);
    let spares = Spares::default();
    let decode_chunk = |chunk: Range<usize>| {
        // Room for an entry and a tool use per KiB (lines average a few KiB), so the
        // vectors rarely grow; capacity never written costs address space, not memory.
        let guess = chunk.len() / 1024;
        let (entries, tools) = spares.take(guess);
        let mut part = Part {
            bytes: chunk.len(),
            detail: part_detail,
            effort: part_detail.effort(),
            // A pass may read the uses even when the load does not keep them.
            pack: !dec.rekeyed && (uses != Uses::Unlisted || dec.fold.is_some()),
            link: dec.fold.is_none(),
            entries,
            tools,
            utf8: Utf8Run { end: chunk.end, ..Utf8Run::default() },
            sink: sinks.filter(|_| part_detail == Detail::Counted).map(|s| s.sink(guess)),
            ..Part::default()
        };
        // The last chunk (a small file's only one) counts all its lines: read again for the
        // estimate, the lines after the last compaction cost more than counting them as
        // they pass (`stats` over 1,000 files of 1 MiB: 6% of its time).
        let last = chunk.end == body.end;
        for line in source.lines_in(chunk, 1) {
            part.add_line(source.bytes(), &line, &dec);
            if part.effort == Effort::Measure {
                // A compaction met by any part: the parts stop counting ([`Detail::Tallied`]).
                if part.folds {
                    folded.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                if !last && folded.load(std::sync::atomic::Ordering::Relaxed) {
                    part.effort = Effort::Skim;
                }
            }
        }
        part
    };
    let stitch = match dec.fold {
        Some(Fold::Streamed(start)) => Some(start(source.bytes(), detail)),
        _ => None,
    };
    let mut merger = Merger::new(format, body.len(), stitch, uses, dec.fold.is_none());
    if chunks.len() == 1 || rayon::current_thread_index().is_some() {
        // One chunk, or already on a worker (files decoded side by side, as `stats DIR`
        // does): blocking this thread on the channel below could leave no worker free to
        // decode the chunks it waits for. Collect the parts through rayon, then merge them.
        let parts: Vec<Part> = chunks.into_par_iter().map(decode_chunk).collect();
        parts.into_iter().for_each(|p| drop(merger.push(p)));
        return Ok(fold(merger.finish(source), source.bytes(), &dec, detail));
    }
    // The workers decode chunks (roughly in order) while this thread puts finished parts
    // together in file order, so little is left to do once the last chunk is decoded.
    let (tx, rx) = std::sync::mpsc::channel();
    let (total, started) = (chunks.len(), std::sync::atomic::AtomicUsize::new(0));
    if dec.fold.is_some() {
        tail = None;
    }
    rayon::in_place_scope(|scope| {
        for (k, chunk) in chunks.into_iter().enumerate() {
            let tx = tx.clone();
            let (decode_chunk, started) = (&decode_chunk, &started);
            scope.spawn(move |_| {
                started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // The receiver outlives the scope; a failed send cannot happen.
                let _ = tx.send((k, decode_chunk(chunk)));
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        for (received, (k, part)) in rx.into_iter().enumerate() {
            waiting.insert(k, part);
            // Once every chunk is started, no chunk takes spares: they go at once (before
            // the tail asks for memory of its own). Every chunk is started by the time the
            // last part comes (its job counts itself before it sends), so none outlives it.
            let all_started = started.load(std::sync::atomic::Ordering::Relaxed) == total;
            while let Some(part) = waiting.remove(&merger.parts) {
                let emptied = merger.push(part);
                if !all_started {
                    spares.give(emptied);
                }
            }
            if all_started {
                spares.clear();
            }
            // A worker is idle from here on: this thread takes on what would follow.
            let in_flight = total - (received + 1);
            if in_flight < threads && all_started {
                if let Some(tail) = tail.as_mut() {
                    // At most twice the entries placed: a part still in flight may hold one
                    // line of gigabytes, which would scale a few entries into millions.
                    let placed = merger.d.entries.len();
                    tail(&merger.d.entries, merger.scaled(placed).min(placed.saturating_mul(2)));
                }
            }
        }
    });
    Ok(fold(merger.finish(source), source.bytes(), &dec, detail))
}

/// The emptied entry and tool use vectors of the parts placed, for the chunks decoded after
/// them. A part's vectors (about a megabyte on a big file) freed once it is placed are handed
/// back to the system within 10 ms ([`crate::allocator`]), before the next chunk asks for as
/// much, and every chunk faulted its pages in afresh; reused, they are faulted in once for
/// the chunks in flight.
#[derive(Default)]
struct Spares<'a>(std::sync::Mutex<Vec<Emptied<'a>>>);

/// A placed part's vectors, emptied, their room kept.
type Emptied<'a> = (Vec<Entry<'a>>, Vec<ToolUse<'a>>);

impl<'a> Spares<'a> {
    /// Vectors for a chunk: spares, else new ones with room for `guess` elements each.
    fn take(&self, guess: usize) -> Emptied<'a> {
        let spare = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).pop();
        spare.unwrap_or_else(|| (Vec::with_capacity(guess), Vec::with_capacity(guess)))
    }

    fn clear(&self) {
        drop(std::mem::take(&mut *self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())));
    }

    fn give(&self, emptied: Emptied<'a>) {
        if emptied.0.capacity() > 0 || emptied.1.capacity() > 0 {
            self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(emptied);
        }
    }
}

/// Move the elements of `src` onto the end of `dst`, leaving `src` empty: the vector itself
/// when `dst` has neither elements nor room (a file's only part: no copy, no fresh pages),
/// else a copy.
fn append<T>(dst: &mut Vec<T>, src: &mut Vec<T>) {
    if dst.capacity() == 0 {
        std::mem::swap(dst, src);
    } else {
        dst.append(src);
    }
}

/// Run (or finish) the format's file-level pass, if it has one, then let go of what `detail`
/// does not keep.
fn fold<'a>(
    (mut d, stitch): (Decoded<'a>, Option<Box<dyn Stitch<'a> + 'a>>),
    bytes: &'a [u8],
    dec: &Decoder,
    detail: Detail,
) -> Decoded<'a> {
    match (dec.fold, stitch) {
        (_, Some(s)) => s.finish(&mut d),
        (Some(Fold::Whole(f)), None) => f(&mut d, bytes, detail),
        _ => return d,
    }
    // The entries are in their final order now.
    for i in 1..d.entries.len() {
        let (before, rest) = d.entries.split_at_mut(i);
        rest[0].link_parent(&before[i - 1]);
    }
    match detail {
        // Hundreds of thousands of frees: on every worker.
        Detail::Index => d.entries.par_iter_mut().for_each(|e| e.message = None),
        Detail::Roles => d.roles = d.entries.par_iter_mut().map(take_role).collect(),
        Detail::Full | Detail::Shown | Detail::Tallied | Detail::Counted => {}
    }
    d.findings.sort_by_key(|f| (f.line.unwrap_or(0), f.code));
    d
}

/// Let go of the message of `e` ([`Detail::Counted`]), unless its role is not one of
/// [`crate::model::ROLE_NAMES`] (kept whole, for its name).
fn let_go(e: &mut Entry<'_>) {
    if e.message.as_ref().is_some_and(|m| m.role_at != OTHER_ROLE) {
        e.message = None;
    }
}

/// Push onto a vector that usually holds one element, or none: the first push makes room
/// for one, where `Vec` makes room for four. A session holds a few of these per entry.
pub(crate) fn push_lean<T>(v: &mut Vec<T>, x: T) {
    if v.capacity() == 0 {
        v.reserve_exact(1);
    }
    v.push(x);
}

/// Name each entry whose id is made up ([`made_up_id`]) after its line in the file, now that
/// its part is placed (`lines` before it); with it its packed key, and the findings that name
/// it (few: found by line, the entries being in line order).
fn place_made_up_ids(p: &mut Part<'_, '_>, lines: u32) {
    for f in p.findings.iter_mut().filter(|f| f.id.is_some()) {
        let Some(line) = f.line else { continue };
        let Ok(i) = p.entries.binary_search_by_key(&line, |e| e.line) else { continue };
        let e = &p.entries[i];
        if e.synthetic_id() && f.id.as_ref().is_some_and(|id| id.text() == e.id.text()) {
            f.id = Some(line_id(line + lines));
        }
    }
    for e in p.entries.iter_mut().filter(|e| e.synthetic_id()) {
        e.id = line_id(e.line + lines);
    }
}

/// What one chunk of lines decoded to, with line numbers and entry positions local to the
/// chunk until [`Merger::push`] shifts them.
#[derive(Default)]
struct Part<'t, 'a> {
    /// The chunk's size in bytes.
    bytes: usize,
    detail: Detail,
    /// How its lines are read ([`Detail::effort`]).
    effort: Effort,
    /// Whether it met a compaction (an entry, or a crab observation).
    folds: bool,
    /// Whether each entry's tool uses are listed ([`Decoder::rekeyed`]).
    pack: bool,
    /// Whether an entry's parent is linked to the entry before it as it is added (in a
    /// format without a pass, whose entries are in their final order as decoded, and named
    /// by the file: no made-up id is compared before it is placed).
    link: bool,
    lines: u32,
    entries: Vec<Entry<'a>>,
    tools: Vec<ToolUse<'a>>,
    observations: Vec<Observation<'a>>,
    headers: Vec<Header<'a>>,
    others: u32,
    blank_lines: u32,
    /// The first few blank lines, for the finding.
    blank_at: Vec<u32>,
    first_content: Option<u32>,
    /// The last non-blank line, and whether it ended with a newline.
    last_content: Option<(u32, bool)>,
    findings: Vec<Finding>,
    utf8: Utf8Run<'a>,
    /// With [`Detail::Roles`] or [`Detail::Counted`], the role of each entry ([`Decoded::roles`]).
    roles: Vec<u8>,
    /// With [`Detail::Counted`]: what each entry is shown to, each message's [`Brief`] and
    /// results' call ids ([`Decoded::briefs`], [`Decoded::result_ids`]), the entries that
    /// kept their messages since the part's last compaction, and whether it has one.
    sink: Option<Box<dyn Sink<'a> + 't>>,
    briefs: Vec<Option<Brief>>,
    result_ids: Vec<(u32, u32)>,
    kept: Vec<u32>,
    compacted: bool,
}

/// The UTF-8 check of a chunk's lines, a run of lines at a time: one call of the validator
/// per [`UTF8_RUN`] bytes instead of one per line, each line then cut from the run's text.
/// The run is short enough to be in the cache still when its lines are decoded. Where a run
/// is not valid UTF-8, its lines are checked one by one (to say which is damaged, and
/// where), so a byte is checked at most twice however the damage is spread (and a damaged
/// line's once more, for the column).
#[derive(Default)]
struct Utf8Run<'a> {
    /// The checked text, and where it starts in the file's bytes.
    text: &'a str,
    start: usize,
    /// The end of the last run tried: lines that start before it and are not in `text` are
    /// in a run that failed.
    tried: usize,
    /// The end of the chunk.
    end: usize,
    /// Every run found valid, for [`Checked`].
    valid: Vec<(usize, &'a str)>,
}

/// How many bytes of lines [`Utf8Run`] checks at once (to the end of the line it reaches).
const UTF8_RUN: usize = 64 << 10;

impl<'a> Utf8Run<'a> {
    /// The line at `span` as text, when a run that holds it is valid UTF-8; `None` when it
    /// must be checked alone.
    fn line(&mut self, bytes: &'a [u8], span: Range<usize>) -> Option<&'a str> {
        if span.start < self.start || span.end > self.start + self.text.len() {
            if span.start < self.tried {
                return None;
            }
            let reach = (span.start + UTF8_RUN).max(span.end).min(self.end);
            let stop = memchr::memchr(b'\n', bytes.get(reach..self.end)?).map_or(self.end, |i| reach + i);
            self.tried = stop;
            self.start = span.start;
            self.text = simdutf8::basic::from_utf8(bytes.get(span.start..stop)?).unwrap_or_default();
            if !self.text.is_empty() {
                self.valid.push((self.start, self.text));
            }
        }
        self.text.get(span.start - self.start..span.end - self.start)
    }
}

impl<'t, 'a> Part<'t, 'a> {
    fn add_line(&mut self, bytes: &'a [u8], line: &Line, dec: &Decoder) {
        self.lines += 1;
        let b = &bytes[line.span.clone()];
        if b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r')) {
            self.blank_lines += 1;
            if self.blank_at.len() < 10 {
                self.blank_at.push(line.number);
            }
            return;
        }
        self.first_content.get_or_insert(line.number);
        self.last_content = Some((line.number, line.terminated));
        let checked = self.utf8.line(bytes, line.span.clone());
        let Some(text) = checked.or_else(|| simdutf8::basic::from_utf8(b).ok()) else {
            let at = simdutf8::compat::from_utf8(b).err().map(|e| e.valid_up_to()).unwrap_or(0);
            self.findings.push(Finding::at(
                Code::InvalidUtf8,
                line.number,
                Some(at as u32 + 1),
                format!("invalid UTF-8 at byte {} of the line", at + 1),
            ));
            return;
        };
        let (text, result) = decode_line(text, line, dec, self.effort, &mut self.findings);
        match result {
            Ok((record, notes)) => {
                self.findings.extend(notes);
                self.add_record(record);
            }
            Err(Fail::Finding(f)) => self.findings.push(f),
            // The typed decoders skip payloads they do not read, so such a line would index
            // fine and then fail in every view that re-reads it (`show`, `export`, ...).
            Err(Fail::TooDeep(col)) => self.findings.push(Finding::at(
                Code::NestingTooDeep,
                line.number,
                Some(col as u32),
                format!("nesting too deep (limit {MAX_NESTING})"),
            )),
            Err(Fail::Json(e)) => self.findings.push(classify(text.as_bytes(), line.number, &e, dec)),
            Err(Fail::Declined) => unreachable!("a full parse never declines"),
        }
    }

    /// Show the entry about to be pushed to the sink, note its message's role, [`Brief`] and
    /// results' call ids, and let go of the messages before it if it is a compaction
    /// ([`Detail::Counted`]).
    fn count(&mut self, e: &Entry<'a>) {
        let at = self.entries.len() as u32;
        if let Some(sink) = &mut self.sink {
            sink.entry(at, e);
        }
        if e.kind() == Kind::Compaction {
            for j in self.kept.drain(..) {
                let_go(&mut self.entries[j as usize]);
            }
            self.compacted = true;
        }
        self.briefs.push(e.message.as_ref().map(|m| m.brief()));
        self.roles.push(e.message.as_ref().map_or(NO_ROLE, |m| m.role_at));
        if let Some(m) = &e.message {
            self.kept.push(at);
            let ids = m.tool_results.iter().filter_map(|r| r.call_id.as_deref());
            self.result_ids.extend(ids.map(|id| (at, call_id_hash(id))));
        }
    }

    fn add_record(&mut self, record: Record<'a>) {
        match record {
            Record::Header(h) => self.headers.push(*h),
            Record::Entry(mut e) => {
                // List the tool uses now, their call ids packed while the line is in cache:
                // the pairing check then never touches the file again. (An entry's own id
                // and parent were packed as they were read.)
                if self.pack {
                    let ix = self.entries.len() as u32;
                    push_tool_uses(&mut self.tools, ix, &e);
                }
                if let Some(before) = self.entries.last().filter(|_| self.link) {
                    e.link_parent(before);
                }
                self.folds |= e.kind() == Kind::Compaction;
                // Decoded and checked, then let go at once: the allocator hands the same
                // memory to the next line instead of fresh pages.
                match self.detail {
                    Detail::Index => e.message = None,
                    Detail::Roles => self.roles.push(take_role(&mut e)),
                    Detail::Counted => self.count(&e),
                    Detail::Full | Detail::Shown | Detail::Tallied => {}
                }
                self.entries.push(e);
            }
            Record::Observation(o) => {
                self.folds |= o.tag == "compaction";
                self.observations.push(*o);
            }
            Record::Other => self.others += 1,
        }
    }
}

/// The message of entry `e` read back from its line, decoded as the load decoded it (the
/// findings are the load's, and not made again), for a load that let the messages go in a
/// format whose messages are their line's alone ([`Decoder::line_messages`]). `None` for an
/// entry without one. `text` is the entry's line.
pub fn read_back<'a>(text: &'a str, e: &Entry<'a>, format: Format) -> Option<Box<Message<'a>>> {
    let dec = decoder(format);
    let line = Line { number: e.line, span: e.span(), terminated: true };
    match decode_line(text, &line, &dec, Effort::Skim, &mut Vec::new()).1 {
        Ok((Record::Entry(read), _)) => read.message,
        _ => None,
    }
}

/// One line decoded: nearly every line is taken by the skimmer in one pass (`skim`, one of
/// its efforts); the rest (control bytes, lone surrogates, anything invalid) take the careful
/// path. Returns the text the result borrows from.
fn decode_line<'a>(
    text: &'a str,
    line: &Line,
    dec: &Decoder,
    skim: Effort,
    findings: &mut Vec<Finding>,
) -> (&'a str, LineResult<'a>) {
    match (dec.decode)(text, line, skim) {
        Err(Fail::Declined) => careful(text, line, dec, findings),
        r => (text, r),
    }
}

/// The path for lines the skimmer declined: repair lone surrogates, then parse with
/// serde_json as the fallback. Returns the text the result borrows from.
fn careful<'a>(text: &'a str, line: &Line, dec: &Decoder, findings: &mut Vec<Finding>) -> (&'a str, LineResult<'a>) {
    let mut text = text;
    if let Some(repaired) = repair_lone_surrogates(text.as_bytes()) {
        findings.push(Finding::at(
            Code::LoneSurrogate,
            line.number,
            None,
            "lone surrogate escape (a string cut mid-emoji) repaired to U+FFFD",
        ));
        // Entries borrow from the line they came from. A repaired line is a fresh buffer
        // that has to live as long as the source; lines that need repair are rare and
        // small, so giving them the program's lifetime is the simplest correct owner.
        // (Only ASCII escapes were rewritten, so the text is still UTF-8.)
        let fixed = String::from_utf8(repaired).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        text = Box::leak(fixed.into_boxed_str());
    }
    let result = (dec.decode)(text, line, Effort::Full);
    if result.is_ok() {
        // serde_json accepted what the skimmer declined: say what it let through silently.
        findings.extend(skim::audit(text).iter().map(|a| a.finding(line.number)));
    }
    (text, result)
}

/// How deeply arrays and objects may nest in a line: serde_json's recursion limit, which
/// [`crate::session::Session::value`] is bound by (it refuses level 128).
pub const MAX_NESTING: usize = 127;

/// The 1-based column of the bracket that opens a level past [`MAX_NESTING`], if any.
pub fn too_deep(b: &[u8]) -> Option<usize> {
    nested_past(b, MAX_NESTING)
}

/// The 1-based column of the bracket that opens a level past `limit` in JSON text, if any.
pub fn nested_past(b: &[u8], limit: usize) -> Option<usize> {
    // Fewer opening brackets than the limit cannot nest past it: most lines stop here
    // after one vectorized count.
    if memchr::memchr2_iter(b'[', b'{', b).count() <= limit {
        return None;
    }
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, &c) in b.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(i + 1);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Turn a parser error into a finding with the most useful code, column and message.
fn classify(b: &[u8], line: u32, err: &serde_json::Error, dec: &Decoder) -> Finding {
    if let Err(syntax) = serde_json::from_slice::<IgnoredAny>(b) {
        return Finding::at(Code::CorruptLine, line, Some(syntax.column() as u32), clean(&syntax));
    }
    let first = b.iter().find(|c| !c.is_ascii_whitespace()).copied().unwrap_or(b' ');
    if first != b'{' {
        let what = match first {
            b'[' => "an array",
            b'"' => "a string",
            b'n' => "null",
            b't' | b'f' => "a boolean",
            _ => "a number",
        };
        return Finding::at(Code::NotAnObject, line, Some(1), format!("the line is {what}, not a JSON object"));
    }
    let message = (dec.explain)(b).unwrap_or_else(|| clean(err));
    let code = if message.contains("duplicate field") {
        Code::DuplicateKey
    } else if message.ends_with("number out of range") {
        Code::NumberOutOfRange
    } else if message.starts_with("id:") || message.starts_with("id ") {
        Code::InvalidId
    } else {
        Code::InvalidField
    };
    Finding::at(code, line, Some(err.column() as u32), message)
}

/// Parse one line into a decoder's raw type: with the skimmer, or with serde_json for a line
/// the skimmer declined (a line with control bytes, anything it rejects). serde_json has the
/// last word, so a line the skimmer cannot handle is never called damaged because of it.
pub fn parse<'a, T: serde::Deserialize<'a>>(text: &'a str, effort: Effort) -> std::result::Result<T, Fail> {
    if effort != Effort::Full {
        return skim::from_str(text).map_err(|e| match e {
            skim::Error::TooDeep(col) => Fail::TooDeep(col),
            skim::Error::Declined => Fail::Declined,
        });
    }
    if let Some(col) = too_deep(text.as_bytes()) {
        return Err(Fail::TooDeep(col));
    }
    serde_json::from_str(text).map_err(Fail::Json)
}

/// Read one line into `raw` (a default record): walked by hand with `walk` ([`skim::Walk::line`]:
/// the line's object open, its members to read) when `effort` is the skimmer's and the walk
/// takes the line, else parsed by [`parse`]. Filled in place: the record, hundreds of bytes, is
/// not moved on its way out of the walk.
pub fn read_into<'a, T: serde::Deserialize<'a>>(
    text: &'a str,
    effort: Effort,
    raw: &mut T,
    walk: impl FnOnce(&mut skim::Walk<'a>, &mut T) -> Option<()>,
) -> std::result::Result<(), Fail> {
    if effort != Effort::Full && skim::Walk::line_with(text, effort == Effort::Measure, |w| walk(w, raw)).is_some() {
        return Ok(());
    }
    *raw = parse(text, effort)?;
    Ok(())
}

/// serde_json appends " at line 1 column 57"; the finding carries the position itself.
pub fn clean(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Explain a failed line with the path of the field at fault, for any decoder's raw type.
pub fn explain_with<'a, T: serde::Deserialize<'a>>(b: &'a [u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(b);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => None,
        Err(e) => {
            let path = e.path().to_string();
            let inner = clean(e.inner());
            Some(if path == "." { inner } else { format!("{path}: {inner}") })
        }
    }
}

/// A line's bytes with their lone surrogate escapes repaired ([`repair_lone_surrogates`]),
/// as every re-read of a line's content takes them.
pub fn repaired(b: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match repair_lone_surrogates(b) {
        Some(fixed) => std::borrow::Cow::Owned(fixed),
        None => std::borrow::Cow::Borrowed(b),
    }
}

/// Find `\uD800`-`\uDFFF` escapes that are not part of a valid pair and return a copy of
/// the line with each replaced by `\uFFFD` (same length, so columns stay true).
pub fn repair_lone_surrogates(b: &[u8]) -> Option<Vec<u8>> {
    let mut fixed: Option<Vec<u8>> = None;
    let mut skip_until = 0;
    for at in memchr::memmem::find_iter(b, b"\\u") {
        // Surrogates are \uD800-\uDFFF: look at the next byte before anything else, since
        // files that escape all non-ASCII text have an escape every few bytes.
        if at < skip_until || b.get(at + 2).is_none_or(|&c| c | 0x20 != b'd') || !is_escape_start(b, at) {
            continue;
        }
        let Some(v) = hex_at(b, at + 2) else { continue };
        let lone = match v {
            0xD800..=0xDBFF => {
                let paired =
                    b.get(at + 6..at + 8) == Some(b"\\u") && matches!(hex_at(b, at + 8), Some(0xDC00..=0xDFFF));
                if paired {
                    skip_until = at + 12;
                }
                !paired
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let buf = fixed.get_or_insert_with(|| b.to_vec());
            buf[at..at + 6].copy_from_slice(b"\\ufffd");
        }
    }
    fixed
}

/// A backslash starts an escape only when an even number of backslashes precede it.
fn is_escape_start(b: &[u8], at: usize) -> bool {
    b[..at].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0
}

pub(crate) fn hex_at(b: &[u8], at: usize) -> Option<u32> {
    let mut v = 0;
    for &c in b.get(at..at + 4)? {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Puts parts together in file order: renumbers their lines and entries, applies the
/// torn-tail rule, and folds repeated warnings into one finding per kind of problem.
struct Merger<'a> {
    d: Decoded<'a>,
    /// With [`Detail::Counted`], the entries placed since the last compaction that kept
    /// their messages.
    kept: Vec<u32>,
    /// How many parts were pushed, and their bytes.
    parts: usize,
    placed: usize,
    /// Bytes in the whole input (to size the vectors).
    total: usize,
    folded: BTreeMap<(Code, String), (u32, Vec<u32>)>,
    /// The format's pass, when it takes the entries part by part, and how many it was fed.
    stitch: Option<Box<dyn Stitch<'a> + 'a>>,
    fed: u32,
    /// Whether each part's first entry is linked to the entry before it ([`Part::link`]).
    link: bool,
    /// The tool uses paired part by part ([`Uses::Paired`]).
    pairer: Option<Pairer<'a>>,
    /// How many entries the whole file is expected to hold (from the first part).
    expected: usize,
    first_content_line: Option<u32>,
    last_content: Option<(u32, bool)>,
    blank_at: Vec<u32>,
}

impl<'a> Merger<'a> {
    fn new(
        format: Format,
        total: usize,
        stitch: Option<Box<dyn Stitch<'a> + 'a>>,
        uses: Uses,
        link: bool,
    ) -> Merger<'a> {
        Merger {
            kept: Vec::new(),
            d: Decoded {
                format,
                header: None,
                entries: Vec::new(),
                tools: Vec::new(),
                uses,
                observations: Vec::new(),
                others: 0,
                lines: 0,
                blank_lines: 0,
                findings: Vec::new(),
                checked: Checked::default(),
                roles: Vec::new(),
                briefs: Vec::new(),
                result_ids: Vec::new(),
            },
            parts: 0,
            total,
            folded: BTreeMap::new(),
            stitch,
            fed: 0,
            link,
            // (A format with a pass lists its uses: see `decode`.)
            pairer: (uses == Uses::Paired).then(Pairer::default),
            expected: 0,
            placed: 0,
            first_content_line: None,
            last_content: None,
            blank_at: Vec::new(),
        }
    }

    /// `n` things of the parts placed so far, scaled to the whole input by their share of
    /// its bytes.
    fn scaled(&self, n: usize) -> usize {
        (n as u128 * self.total as u128 / self.placed.max(1) as u128).min(usize::MAX as u128) as usize
    }

    /// Add the next part in file order; its entry and tool use vectors are given back
    /// emptied, their room kept (empty when they were handed on).
    fn push(&mut self, mut p: Part<'_, 'a>) -> Emptied<'a> {
        let lines = self.d.lines;
        place_made_up_ids(&mut p, lines);
        let d = &mut self.d;
        if self.parts == 0 {
            // The whole file's entries, guessed from the first part's share of the bytes.
            self.expected =
                (p.entries.len() as u128 * self.total.max(p.bytes) as u128 / p.bytes.max(1) as u128) as usize;
        }
        if self.parts == 0 && p.bytes < self.total {
            // Size the vectors from the first part, so that they are not copied as they
            // grow; capacity never written is address space, not memory.
            let scale = |n: usize| n + n * (self.total - p.bytes) / p.bytes.max(1) * 5 / 4;
            d.entries.reserve(scale(p.entries.len()));
            if d.uses == Uses::Listed {
                d.tools.reserve(scale(p.tools.len()));
            }
            d.observations.reserve(scale(p.observations.len()));
            d.roles.reserve(scale(p.roles.len()));
            d.briefs.reserve(scale(p.briefs.len()));
            d.result_ids.reserve(scale(p.result_ids.len()));
        }
        self.parts += 1;
        self.placed += p.bytes;
        d.checked.runs.append(&mut p.utf8.valid);
        d.lines += p.lines;
        d.blank_lines += p.blank_lines;
        let room = 10 - self.blank_at.len().min(10);
        self.blank_at.extend(p.blank_at.into_iter().take(room).map(|l| l + lines));
        if let Some(first) = p.first_content {
            self.first_content_line.get_or_insert(first + lines);
        }
        if let Some((last, terminated)) = p.last_content {
            self.last_content = Some((last + lines, terminated));
        }
        match &mut self.stitch {
            Some(s) => {
                let mut entries = std::mem::take(&mut p.entries);
                for e in &mut entries {
                    e.line += lines;
                }
                let fed = self.fed;
                self.fed += entries.len() as u32;
                let mut tools = std::mem::take(&mut p.tools);
                for t in &mut tools {
                    t.entry += fed;
                }
                s.feed(d, Fed { entries, tools, expected: self.expected });
            }
            None => {
                if let (true, Some(before), Some(first)) = (self.link, d.entries.last(), p.entries.first_mut()) {
                    first.link_parent(before);
                }
                let entries = d.entries.len() as u32;
                if lines > 0 {
                    p.entries.iter_mut().for_each(|e| e.line += lines);
                }
                if entries > 0 {
                    p.result_ids.iter_mut().for_each(|(e, _)| *e += entries);
                }
                append(&mut d.roles, &mut p.roles);
                append(&mut d.entries, &mut p.entries);
                append(&mut d.briefs, &mut p.briefs);
                append(&mut d.result_ids, &mut p.result_ids);
                if p.compacted {
                    // The messages before it are let go ([`Detail::Counted`]).
                    for j in self.kept.drain(..) {
                        let_go(&mut d.entries[j as usize]);
                    }
                }
                self.kept.extend(p.kept.into_iter().map(|e| e + entries));
                if let Some(sink) = p.sink {
                    sink.place(entries);
                }
                let tools = p.tools.drain(..).map(|mut t| {
                    t.entry += entries;
                    t
                });
                match &mut self.pairer {
                    Some(pairer) => pairer.add(tools),
                    None => d.tools.extend(tools),
                }
            }
        }
        d.observations.extend(p.observations.into_iter().map(|mut o| {
            o.line += lines;
            o
        }));
        d.others += p.others;
        for mut f in p.findings {
            f.line = f.line.map(|l| l + lines);
            if matches!(
                f.code,
                Code::UnknownKind
                    | Code::UnknownRole
                    | Code::UnknownBlock
                    | Code::UnknownObs
                    | Code::InvalidTimestamp
                    | Code::LoneSurrogate
            ) {
                let e = self.folded.entry((f.code, f.message)).or_insert((0, Vec::new()));
                e.0 += 1;
                if e.1.len() < 10 {
                    e.1.extend(f.line);
                }
            } else {
                d.findings.push(f);
            }
        }
        for mut h in p.headers {
            h.line += lines;
            if d.header.is_some() || Some(h.line) != self.first_content_line {
                d.findings.push(Finding::new(
                    Code::MisplacedHeader,
                    Some(h.line),
                    if d.header.is_some() {
                        "a second session header; the first one is used"
                    } else {
                        "the session header is not on the first line"
                    },
                ));
            }
            if d.header.is_none() {
                d.header = Some(h);
            }
        }
        (p.entries, p.tools)
    }

    /// Everything decoded, and the format's pass that was fed the entries, to finish.
    fn finish(self, source: &Source) -> (Decoded<'a>, Option<Box<dyn Stitch<'a> + 'a>>) {
        let Merger { mut d, folded, last_content, blank_at, stitch, pairer, .. } = self;
        if let Some(p) = pairer {
            d.tools = p.finish();
        }
        // The torn-tail rule: an unparsable last line is a crash mid-append, not corruption.
        if let Some((line, terminated)) = last_content {
            for f in &mut d.findings {
                if f.line == Some(line) && matches!(f.code, Code::CorruptLine | Code::InvalidUtf8) {
                    let bytes = last_line_len(source);
                    f.code = if terminated { Code::CorruptLastLine } else { Code::TornLastLine };
                    f.severity = f.code.severity();
                    f.message = if terminated {
                        format!("the last line is complete but unparsable ({}); dropped", f.message)
                    } else {
                        format!("torn last line ({bytes} bytes, no newline: a crash mid-write?) dropped: {}", f.message)
                    };
                }
            }
        }
        let total_lines = d.lines;
        if source.nul_tail > 0 {
            d.findings.push(Finding::new(
                Code::TornLastLine,
                Some(total_lines.max(1)),
                format!("{} NUL bytes at the end of the file (a torn write) ignored", source.nul_tail),
            ));
        }
        if source.bom {
            d.findings.push(Finding::at(
                Code::ByteOrderMark,
                1,
                Some(1),
                "UTF-8 byte order mark at the start of the file ignored",
            ));
        }
        if d.blank_lines > 0 {
            let list: Vec<String> = blank_at.iter().map(u32::to_string).collect();
            let more = if d.blank_lines as usize > blank_at.len() { ", ..." } else { "" };
            d.findings.push(Finding::new(
                Code::BlankLines,
                blank_at.first().copied(),
                format!("{} blank line(s) skipped (line {}{more})", d.blank_lines, list.join(", ")),
            ));
        }
        for ((code, message), (count, lines)) in folded {
            let first = lines.first().copied();
            let message = if count > 1 {
                let list: Vec<String> = lines.iter().map(u32::to_string).collect();
                let more = if count as usize > lines.len() { ", ..." } else { "" };
                format!("{message} ({count} lines: {}{more})", list.join(", "))
            } else {
                message
            };
            d.findings.push(Finding::new(code, first, message));
        }
        d.findings.sort_by_key(|f| (f.line.unwrap_or(0), f.code));
        (d, stitch)
    }
}

fn last_line_len(source: &Source) -> usize {
    let b = &source.bytes()[source.body()];
    let b = b.strip_suffix(b"\n").unwrap_or(b);
    match memchr::memrchr(b'\n', b) {
        Some(i) => b.len() - i - 1,
        None => b.len(),
    }
}

/// Tell the formats apart by the first lines (FORMATS.md section 3, FORMATS-REAL.md
/// section 5): every non-blank line of the first [`DETECT_LINES`] is matched against the
/// formats' signatures, never line 1 alone; two formats' signatures are an error naming
/// both lines. Once a format is recognised, the lines read stop at [`DETECT_BYTES`].
pub fn detect(source: &Source) -> Result<Format> {
    let bytes = source.bytes();
    // The first two lines, shown (masked) only when no format is recognised.
    let mut seen: Vec<&[u8]> = Vec::new();
    let mut found: Option<(Format, u32)> = None;
    let (mut lines, mut read) = (0, 0);
    for line in source.lines().take(DETECT_LINES * 4) {
        if found.is_some() && read >= DETECT_BYTES {
            break;
        }
        let b = &bytes[line.span.clone()];
        read += b.len();
        if b.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        lines += 1;
        if seen.len() < 2 {
            seen.push(b);
        }
        match (sniff(b), found) {
            (Some(f), None) => found = Some((f, line.number)),
            (Some(f), Some((g, at))) if f != g => {
                return Err(Error::at(
                    &source.name,
                    line.number,
                    None,
                    format!(
                        "line {} looks like {f} but line {at} looks like {g}: the file mixes two formats (use --input-format to force one)",
                        line.number
                    ),
                ))
            }
            _ => {}
        }
        if lines >= DETECT_LINES {
            break;
        }
    }
    if let Some((f, _)) = found {
        return Ok(f);
    }
    if seen.is_empty() {
        // Empty input: nothing to tell apart; commands report "no entries".
        return Ok(Format::Arcturn);
    }
    Err(Error::Unrecognized {
        path: source.name.clone(),
        message: format!(
            "unknown format: the first lines look like {}; expected a session of arcturn ({{\"kind\":\"session\",...}}), crab ({{\"kind\":\"meta\",...}}), pi ({{\"type\":\"session\",...}}), Claude Code (lines with uuid, parentUuid and sessionId) or codex ({{\"timestamp\":...,\"type\":\"session_meta\",\"payload\":...}}) (use --input-format to force one)",
            seen.iter().map(|b| excerpt(b)).collect::<Vec<_>>().join(" then ")
        ),
    })
}

/// What detection reads of one line: the fields of every format's signature, read in one
/// parse (a line is read once, not once per format). Only a JSON object has fields: serde
/// would also fill a derived struct from an array's elements, so anything else is no probe.
#[derive(serde::Deserialize)]
pub(crate) struct Probe<'a> {
    #[serde(borrow)]
    pub kind: Option<de::Str<'a>>,
    #[serde(borrow, rename = "type")]
    pub ty: Option<de::Str<'a>>,
    // Presence is what counts: a root's parent is `null`, and `Option` would read that
    // as absent, leaving a one-entry file without a header undetectable.
    #[serde(rename = "parentId", default, deserialize_with = "present")]
    pub parent_camel: bool,
    #[serde(default, deserialize_with = "present")]
    pub parent_id: bool,
    pub id: Option<serde_json::Value>,
    pub run_id: Option<IgnoredAny>,
    /// Claude Code's signature.
    pub uuid: Option<IgnoredAny>,
    #[serde(rename = "parentUuid", default, deserialize_with = "present")]
    pub parent_uuid: bool,
    #[serde(rename = "sessionId")]
    pub session_id: Option<IgnoredAny>,
    /// Codex's envelope.
    pub timestamp: Option<IgnoredAny>,
    pub payload: Option<IgnoredAny>,
}

impl<'a> Probe<'a> {
    /// Read by the skimming parser (it skips the long strings a probe does not ask for), or
    /// by serde_json when the skimmer declines the line, so the answer is serde_json's.
    pub(crate) fn of(b: &'a [u8]) -> Option<Probe<'a>> {
        if b.iter().find(|c| !c.is_ascii_whitespace()) != Some(&b'{') {
            return None;
        }
        if let Ok(text) = simdutf8::basic::from_utf8(b) {
            if let Ok(p) = skim::from_str(text) {
                return Some(p);
            }
        }
        serde_json::from_slice(b).ok()
    }
}

/// The format one line is a signature of, if any.
fn sniff(b: &[u8]) -> Option<Format> {
    let p = Probe::of(b)?;
    // Codex rollouts: the `{timestamp, type, payload}` envelope (FORMATS-REAL.md section 5).
    if codex::signature(&p) {
        return Some(Format::Codex);
    }
    tagged(&p).or_else(|| claude::signature(&p).then_some(Format::Claude))
}

/// arcturn, crab and pi: told apart by the `kind` or `type` tag and the id fields.
fn tagged(p: &Probe<'_>) -> Option<Format> {
    if let Some(kind) = &p.kind {
        return match kind.0.as_ref() {
            "meta" | "obs" => Some(Format::Crab),
            "session" => Some(Format::Arcturn),
            _ if p.parent_camel => Some(Format::Arcturn),
            _ if p.parent_id || p.run_id.is_some() || p.id.as_ref().is_some_and(|v| v.is_u64()) => Some(Format::Crab),
            _ => None,
        };
    }
    if let Some(ty) = &p.ty {
        // A `type`-tagged session header or entry is pi's (arcturn and crab tag with `kind`);
        // version 1 entries have no ids, and oh-my-pi writes a `title` line first.
        let pi = match ty.0.as_ref() {
            "session" => p.id.is_some(),
            "title" => true,
            "message" => p.id.is_none() || p.parent_camel,
            _ => p.parent_camel && p.id.is_some(),
        };
        if pi {
            return Some(Format::Pi);
        }
    }
    if p.parent_camel {
        return Some(Format::Arcturn);
    }
    if p.parent_id || p.run_id.is_some() || p.id.as_ref().is_some_and(|v| v.is_u64()) {
        return Some(Format::Crab);
    }
    None
}

/// A field that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    serde::Deserialize::deserialize(d).map(|_: IgnoredAny| true)
}

/// A short, printable look at a line for error messages. Secrets in the line are masked
/// first (over the whole line, so that one cut by the excerpt is still recognised).
fn excerpt(b: &[u8]) -> String {
    let whole = String::from_utf8_lossy(b);
    let masked = crate::secrets::mask_text(&whole);
    let mut s: String = masked.chars().take(60).collect();
    if b.len() > 60 {
        s.push_str("...");
    }
    format!("`{s}`")
}

/// What makes a line a tree entry, decided the same way in every format: an id (without one
/// the line is not an entry: an unknown kind is kept as a non-node record, anything else is
/// `missing_id`), a known kind (else a warning), and a parent link (a missing one reads as a
/// root, with an error naming the field). `Ok(None)`: keep the line as a non-node record.
pub fn identity<'a>(
    n: u32,
    kind: Kind,
    kind_name: &Option<Cow<'a, str>>,
    id: Option<de::IdDe<'a>>,
    parent: Option<Option<de::IdDe<'a>>>,
    parent_field: &str,
    notes: &mut Vec<Finding>,
) -> std::result::Result<Option<(Id<'a>, Option<Id<'a>>)>, Fail> {
    let Some(id) = id else {
        if let (Kind::Unknown, Some(k)) = (kind, kind_name) {
            notes.push(unknown(Code::UnknownKind, n, "kind", k));
            return Ok(None);
        }
        return Err(Fail::Finding(Finding::at(Code::MissingId, n, None, "the line has no `id`")));
    };
    match (kind_name, kind) {
        (None, _) => notes.push(Finding::at(Code::MissingField, n, None, "the line has no `kind`")),
        (Some(k), Kind::Unknown) => notes.push(unknown(Code::UnknownKind, n, "kind", k)),
        _ => {}
    }
    let parent = match parent {
        Some(p) => p.map(|p| p.0),
        None => {
            notes.push(
                Finding::at(Code::MissingField, n, None, format!("the entry has no `{parent_field}` (read as a root)"))
                    .with_id(id.0.to_owned_id()),
            );
            None
        }
    };
    Ok(Some((id.0, parent)))
}

/// Shared by both decoders: a note about a kind-like name this tool does not know.
pub fn unknown(code: Code, line: u32, what: &str, name: &str) -> Finding {
    Finding::new(code, Some(line), format!("unknown {what} `{name}` (kept and shown as is)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skimmer decodes a line to the record serde_json decodes it to, in every format:
    /// every line of every bundled and real session, and many variants of each (a value of
    /// another type or shape in its place, a key renamed to another the format reads, a few
    /// bytes changed), give the same record and the same notes on both paths wherever the
    /// skimmer takes the line. (The skimmer's speed comes from reading less; this is what
    /// keeps it from reading differently.)
    #[test]
    fn the_skimmer_decodes_every_line_as_serde_json_does() {
        let mut next = crate::test_corpus::xorshift(0x2545_f491_4f6c_dd1d);
        // Values one a line, keys spaced.
        const VALUES: &str = r#"null
true
false
0
-1
1.5
-0
1e3
18446744073709551615
18446744073709551616
1e400
12.0
1792661000878
123456789012345678
1234567890123456789
""
"x"
"caf\u00e9 \"q\"\n"
"2026-01-01T00:00:00.250Z"
"2026-01-01T00:00:00.250\u005a"
"1792661000878ms"
"\ud83d\ude00"
[]
{}
[1,"a",null]
{"type":"text","text":"t"}
[{"type":"toolCall","id":"c","name":"n"}]"#;
        const KEYS: &str = "type kind id parentId parentUuid uuid timestamp message role content usage model text \
                            toolCallId tool_use_id isError is_error cost total payload obs";
        let values: Vec<&str> = VALUES.lines().collect();
        let keys: Vec<&str> = KEYS.split_whitespace().collect();
        const SYMBOLS: &[u8] = b"{}[]\",:\\0123456789-.eEtrufalsn u";
        let (mut lines, mut compared, mut variants) = (0, 0, 0);
        for path in crate::test_corpus::session_files() {
            let Ok(source) = Source::from_bytes("t.jsonl", std::fs::read(&path).unwrap()) else { continue };
            let Ok(format) = detect(&source) else { continue };
            let dec = decoder(format);
            let bytes = source.bytes();
            for line in source.lines() {
                let Ok(text) = std::str::from_utf8(&bytes[line.span.clone()]) else { continue };
                lines += 1;
                compared += usize::from(alike(&dec, text, &line, &path));
                if text.len() > 20_000 {
                    continue;
                }
                for _ in 0..6 {
                    let variant = match next() % 3 {
                        0 => another_value(text, &mut next, &values),
                        1 => another_key(text, &mut next, &keys),
                        _ => bytes_changed(text, &mut next, SYMBOLS),
                    };
                    if let Some(v) = variant {
                        variants += 1;
                        compared += usize::from(alike(&dec, &v, &line, &path));
                    }
                }
            }
        }
        assert!(
            lines > 2_000 && variants > 10_000 && compared > 5_000,
            "{lines} lines, {variants} variants, {compared} compared"
        );
    }

    /// Whether the skimmer took `text` (a record or a definite failure), having checked that
    /// serde_json gives the same.
    fn alike(dec: &Decoder, text: &str, line: &Line, path: &std::path::Path) -> bool {
        let skimmed = (dec.decode)(text, line, Effort::Skim);
        if matches!(skimmed, Err(Fail::Declined)) {
            return false;
        }
        let full = (dec.decode)(text, line, Effort::Full);
        let shown = |r: &LineResult| match r {
            // serde_json's message is the fallback's own; the skimmer declines such lines.
            Err(Fail::Json(_)) => "a JSON error".to_string(),
            r => format!("{r:?}"),
        };
        assert_eq!(shown(&skimmed), shown(&full), "{}:{}: {text}", path.display(), line.number);
        true
    }

    /// `text` with the scalar value after one of its colons replaced by one of `values`.
    fn another_value(text: &str, next: &mut impl FnMut() -> u64, values: &[&str]) -> Option<String> {
        let colons: Vec<usize> = text.match_indices("\":").map(|(i, _)| i + 2).collect();
        let at = *colons.get(next() as usize % colons.len().max(1))?;
        let rest = &text[at..];
        let len = match rest.as_bytes().first()? {
            b'"' => {
                let mut escaped = false;
                1 + rest[1..].bytes().position(|c| {
                    let end = c == b'"' && !escaped;
                    escaped = c == b'\\' && !escaped;
                    end
                })? + 1
            }
            b'{' | b'[' => return None,
            _ => rest.find([',', '}', ']']).unwrap_or(rest.len()),
        };
        Some(format!("{}{}{}", &text[..at], values[next() as usize % values.len()], &text[at + len..]))
    }

    /// `text` with one of its keys renamed to one of `keys`.
    fn another_key(text: &str, next: &mut impl FnMut() -> u64, keys: &[&str]) -> Option<String> {
        let ends: Vec<usize> = text.match_indices("\":").map(|(i, _)| i).collect();
        let end = *ends.get(next() as usize % ends.len().max(1))?;
        let start = text[..end].rfind('"')?;
        Some(format!("{}\"{}{}", &text[..start], keys[next() as usize % keys.len()], &text[end..]))
    }

    /// `text` with one to three bytes replaced, removed or added; `None` when that is not
    /// UTF-8.
    fn bytes_changed(text: &str, next: &mut impl FnMut() -> u64, symbols: &[u8]) -> Option<String> {
        let mut m = text.as_bytes().to_vec();
        for _ in 0..1 + next() % 3 {
            if m.is_empty() {
                break;
            }
            let at = next() as usize % m.len();
            let c = symbols[next() as usize % symbols.len()];
            match next() % 3 {
                0 => m[at] = c,
                1 => {
                    m.remove(at);
                }
                _ => m.insert(at, c),
            }
        }
        String::from_utf8(m).ok()
    }

    /// Every line a view reads again comes back as the text of its bytes: cut from a run the
    /// decode checked, or checked again where its run was not valid (a damaged line among
    /// them), in a file split into parts on every worker.
    #[test]
    fn checked_lines_are_the_text_of_their_bytes() {
        let mut body = Vec::new();
        let mut spans = Vec::new();
        for i in 0..80_000 {
            let start = body.len();
            let text = if i % 7 == 0 { "é\u{1F600}" } else { "plain" };
            body.extend_from_slice(
                format!(r#"{{"kind":"message","id":"e{i}","parentId":null,"t":"{text}"}}"#).as_bytes(),
            );
            if i == 25_000 {
                // Invalid UTF-8: the run around it fails, and its lines are checked alone.
                body.extend_from_slice(b"\xff\xfe");
            }
            spans.push(start..body.len());
            body.push(b'\n');
        }
        assert!(body.len() > PARALLEL_MIN_BYTES, "{} bytes: the decode must split the file", body.len());
        let source = Source::from_bytes("t.jsonl", body).unwrap();
        let d = decode(&source, Some(Format::Arcturn), Detail::Index, Uses::Unlisted).unwrap();
        let bytes = source.bytes();
        let covered: usize = d.checked.runs.iter().map(|(_, t)| t.len()).sum();
        assert!(covered > bytes.len() * 9 / 10, "runs cover {covered} of {} bytes", bytes.len());
        for sp in spans.iter().cloned().chain([0..bytes.len(), 3..9, bytes.len() - 4..bytes.len()]) {
            assert_eq!(d.checked.line(bytes, sp.clone()), std::str::from_utf8(&bytes[sp.clone()]).ok(), "{sp:?}");
        }
        assert_eq!(d.checked.line(bytes, spans[25_000].clone()), None);
    }

    /// A load that counts messages as it reads them ([`Detail::Tallied`]) counts every
    /// message of a file read in one part, compactions (an arcturn entry, a crab observation)
    /// or not. Formats that do not count, or that count after a pass, count nothing at load.
    #[test]
    fn a_tallied_load_of_one_part_counts_every_message() {
        let at = r#""timestamp":"2026-11-02T09:16:20.530Z""#;
        let message = |i: usize| {
            format!(
                r#"{{"kind":"message","id":"e{i}","parentId":{},{at},"message":{{"role":"user","content":[{{"type":"text","text":"café {i}"}}]}}}}"#,
                if i == 0 { "null".to_string() } else { format!("\"e{}\"", i - 1) }
            )
        };
        let compaction = format!(r#"{{"kind":"compaction","id":"e2","parentId":"e1",{at},"summary":"s"}}"#);
        let arcturn = [
            format!(r#"{{"kind":"session","version":1,"id":"s",{at}}}"#),
            message(0),
            message(1),
            compaction,
            message(3),
        ];
        let crab = [
            r#"{"kind":"meta","format_version":2,"created":"1793784600412ms"}"#.to_string(),
            r#"{"kind":"message","id":1,"parent_id":null,"message":{"role":"user","content":"one"}}"#.to_string(),
            r#"{"kind":"obs","run_id":"r1","ts":1793784600500,"obs":"compaction","strategy":"summarize"}"#.to_string(),
            r#"{"kind":"message","id":2,"parent_id":1,"message":{"role":"assistant","content":"two"}}"#.to_string(),
        ];
        for (format, lines, counted) in [
            (Format::Arcturn, &arcturn[..], vec![true, true, false, true]),
            (Format::Crab, &crab[..], vec![true, true]),
        ] {
            let source = Source::from_bytes("t.jsonl", lines.join("\n").into_bytes()).unwrap();
            let d = decode(&source, Some(format), Detail::Tallied, Uses::Unlisted).unwrap();
            let got: Vec<bool> =
                d.entries.iter().map(|e| e.message.as_ref().is_some_and(|m| m.counted.is_some())).collect();
            assert_eq!(got, counted, "{format}");
            let full = decode(&source, Some(format), Detail::Full, Uses::Unlisted).unwrap();
            assert!(full.entries.iter().all(|e| e.message.as_ref().is_none_or(|m| m.counted.is_none())), "{format}");
        }
        assert_eq!(Detail::Tallied.kept_in(Format::Claude), Detail::Full);
        assert_eq!(Detail::Tallied.kept_in(Format::Pi), Detail::Full);
        assert_eq!(Detail::Tallied.kept_in(Format::Codex), Detail::Full);
    }

    /// In a file decoded in parts, a part stops counting messages once a compaction is met
    /// (by it or by a part beside it): those after it are counted from their lines when asked
    /// (few: the last compaction keeps few). The last part counts every message whatever it
    /// meets: the messages the last compaction keeps are nearly always there.
    #[test]
    fn a_tallied_load_in_parts_counts_until_a_compaction_but_in_the_last_part() {
        let message = |i: usize| {
            format!(
                r#"{{"kind":"message","id":"e{i}","parentId":"e{}","message":{{"role":"user","content":[{{"type":"text","text":"café {i} {}"}}]}}}}"#,
                i.saturating_sub(1),
                "words ".repeat(150)
            )
        };
        let mut lines = vec![r#"{"kind":"session","version":1,"id":"s"}"#.to_string()];
        lines.push(message(0).replace(r#""parentId":"e0""#, r#""parentId":null"#));
        lines.push(r#"{"kind":"compaction","id":"e1","parentId":"e0","summary":"s"}"#.to_string());
        let mut i = 2;
        while lines.iter().map(String::len).sum::<usize>() < 3 * PARALLEL_MIN_BYTES / 2 {
            lines.push(message(i));
            i += 1;
        }
        lines.push(r#"{"kind":"compaction","id":"last","parentId":"e1","summary":"s"}"#.to_string());
        lines.push(message(i).replace(&format!(r#""parentId":"e{}""#, i - 1), r#""parentId":"last""#));
        let source = Source::from_bytes("t.jsonl", lines.join("\n").into_bytes()).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let d = pool.install(|| decode(&source, Some(Format::Arcturn), Detail::Tallied, Uses::Unlisted)).unwrap();
        let chunks = pool.install(|| source.chunks(rayon::current_num_threads() * CHUNKS_PER_THREAD));
        assert!(chunks.len() > 2, "{} parts: the decode must split the file", chunks.len());
        let (first_end, last_start) = (chunks[0].end, chunks[chunks.len() - 1].start);
        let counted = |e: &Entry<'_>| e.message.as_ref().is_some_and(|m| m.counted.is_some());
        let (mut last_part, mut after_first) = (0, 0);
        for e in &d.entries {
            let start = e.span().start;
            if e.message.is_none() {
                continue;
            } else if e.line == 2 || start >= last_start {
                // Before any compaction, or in the last part.
                assert!(counted(e), "line {} must be counted", e.line);
                last_part += usize::from(start >= last_start);
            } else if start < first_end {
                // After the compaction, in the part that met it.
                assert!(!counted(e), "line {} must not be counted", e.line);
                after_first += 1;
            }
        }
        assert!(
            last_part > 10 && after_first > 10,
            "{last_part} counted in the last part, {after_first} not in the first"
        );
    }

    /// A file decoded in parts on this thread (not a worker: the pool is the global one, as
    /// for a command) hands the entries placed so far to its tail once a worker is idle: each
    /// time the first entries of the file as they end up, more each time, the last time all
    /// of them, with room for at least as many. With one worker, one part: no tail.
    #[test]
    fn the_tail_is_handed_the_first_entries_as_they_end_up() {
        let mut body = Vec::new();
        for i in 0..60_000 {
            let parent = if i == 0 { "null".to_string() } else { format!("\"e{}\"", i - 1) };
            let line = format!(
                r#"{{"kind":"message","id":"e{i}","parentId":{parent},"message":{{"role":"user","content":"{}"}}}}"#,
                "words ".repeat(i % 29)
            );
            body.extend_from_slice(line.as_bytes());
            body.push(b'\n');
        }
        assert!(body.len() > PARALLEL_MIN_BYTES, "{} bytes: the decode must split the file", body.len());
        let source = Source::from_bytes("t.jsonl", body).unwrap();
        let mut seen: Vec<(Vec<String>, usize)> = Vec::new();
        let mut tail = |e: &[Entry<'_>], room: usize| seen.push((e.iter().map(|e| e.id.to_string()).collect(), room));
        let d = decode_counted(&source, Some(Format::Arcturn), Detail::Index, Uses::Unlisted, None, Some(&mut tail))
            .unwrap();
        let all: Vec<String> = d.entries.iter().map(|e| e.id.to_string()).collect();
        if rayon::current_num_threads() < 2 {
            assert!(seen.is_empty());
            return;
        }
        assert!(!seen.is_empty());
        assert_eq!(seen.last().map(|s| &s.0), Some(&all));
        let mut before = 0;
        for (ids, room) in &seen {
            assert!(ids.len() >= before && *room >= ids.len(), "{} entries after {before}, room {room}", ids.len());
            assert_eq!(ids[..], all[..ids.len()]);
            before = ids.len();
        }
        // Only once a worker is idle: not from the first part.
        let chunks = source.chunks(rayon::current_num_threads() * CHUNKS_PER_THREAD);
        assert!(seen.len() < chunks.len(), "{} calls for {} parts", seen.len(), chunks.len());
    }

    /// A load that keeps only the roles ([`Detail::Roles`]) has each entry's role where a
    /// full load has its message, in a file split into parts on every worker: roles of
    /// known names as a byte (the message let go), others with their message kept, none
    /// for an entry without a message; damaged lines between them shift nothing.
    #[test]
    fn a_roles_load_has_every_entry_s_role_in_its_place() {
        let roles = ["user", "assistant", "toolResult", "narrator"];
        let mut body = Vec::new();
        for i in 0..60_000 {
            let line = match i % 11 {
                3 => format!(r#"{{"kind":"label","id":"e{i}","parentId":null,"targetId":"e0","label":"x"}}"#),
                7 => "{not json".to_string(),
                _ => format!(
                    r#"{{"kind":"message","id":"e{i}","parentId":null,"message":{{"role":"{}","content":"{}"}}}}"#,
                    roles[i % 4],
                    "words ".repeat(i % 13)
                ),
            };
            body.extend_from_slice(line.as_bytes());
            body.push(b'\n');
        }
        assert!(body.len() > PARALLEL_MIN_BYTES, "{} bytes: the decode must split the file", body.len());
        let source = Source::from_bytes("t.jsonl", body).unwrap();
        let full = decode(&source, Some(Format::Arcturn), Detail::Full, Uses::Unlisted).unwrap();
        let lean = decode(&source, Some(Format::Arcturn), Detail::Roles, Uses::Unlisted).unwrap();
        assert_eq!(lean.entries.len(), full.entries.len());
        assert_eq!(lean.roles.len(), full.entries.len());
        let mut known = 0;
        for ((f, l), &at) in full.entries.iter().zip(&lean.entries).zip(&lean.roles) {
            assert_eq!(f.line, l.line);
            match f.message.as_ref().map(|m| m.role_name()) {
                Some("narrator") => {
                    assert!(at == NO_ROLE && l.message.as_ref().is_some_and(|m| m.role_name() == "narrator"))
                }
                Some(name) => {
                    assert!(l.message.is_none(), "line {}", f.line);
                    assert_eq!(crate::model::ROLE_NAMES[usize::from(at)], name, "line {}", f.line);
                    known += 1;
                }
                None => assert!(at == NO_ROLE && l.message.is_none()),
            }
        }
        assert!(known > 30_000, "{known}");
    }

    #[test]
    fn repairs_only_lone_surrogates() {
        assert_eq!(repair_lone_surrogates(br#"{"a":"\ud83d\ude00"}"#), None);
        assert_eq!(repair_lone_surrogates(br#"{"a":"\\ud83d"}"#), None);
        assert_eq!(repair_lone_surrogates(br#"{"a":"x\ud83d"}"#).unwrap(), br#"{"a":"x\ufffd"}"#.to_vec());
        assert_eq!(
            repair_lone_surrogates(br#"{"a":"\udc00\ud83d\ud83d\ude00"}"#).unwrap(),
            br#"{"a":"\ufffd\ufffd\ud83d\ude00"}"#.to_vec()
        );
    }

    #[test]
    fn nesting_limit_agrees_with_serde_json() {
        for (depth, wrap) in [(MAX_NESTING, "["), (MAX_NESTING + 1, "["), (MAX_NESTING + 1, "{\"a\":")] {
            let close = if wrap == "[" { "]" } else { "}" };
            let line = format!("{}\"[{{\\\"\"{}", wrap.repeat(depth), close.repeat(depth));
            let serde_ok = serde_json::from_str::<serde_json::Value>(&line).is_ok();
            assert_eq!(too_deep(line.as_bytes()).is_none(), serde_ok, "depth {depth} {wrap}");
        }
        assert_eq!(too_deep(format!("{}{}", "[".repeat(128), "]".repeat(128)).as_bytes()), Some(128));
    }

    /// Two formats' signatures among the first lines are an error naming both lines; once a
    /// format is recognised, lines past the first [`DETECT_BYTES`] are not read for it.
    #[test]
    fn two_formats_in_the_first_lines_are_an_error_within_the_byte_budget() {
        let arcturn = r#"{"kind":"session","version":1,"id":"s"}"#;
        let crab = r#"{"kind":"meta","version":1}"#;
        let filler = |n: usize| format!(r#"{{"kind":"message","note":"{}"}}"#, "x".repeat(n));
        let detect_text = |lines: &[&str]| {
            let text = lines.join("\n") + "\n";
            detect(&Source::from_bytes("t.jsonl", text.into_bytes()).unwrap())
        };
        let small = filler(100);
        let err = detect_text(&[arcturn, &small, crab]).unwrap_err().to_string();
        assert!(
            err.contains("t.jsonl:3:") && err.contains("line 3 looks like crab but line 1 looks like arcturn"),
            "{err}"
        );
        // Lines are read while fewer than the budget's bytes are: a line just inside it is
        // followed by one more, a line past it by none.
        let inside = filler(DETECT_BYTES - 200);
        assert!(detect_text(&[arcturn, &inside, crab]).is_err());
        let big = filler(DETECT_BYTES);
        assert_eq!(detect_text(&[arcturn, &big, crab]).unwrap(), Format::Arcturn);
        // Before a format is recognised there is no budget: the first signature is found
        // however long the lines before it.
        assert_eq!(detect_text(&[&big, &big, crab]).unwrap(), Format::Crab);
    }

    #[test]
    fn a_root_with_a_null_parent_is_enough_to_detect() {
        let arcturn = br#"{"kind":"message","id":"x","parentId":null,"message":{"role":"user","content":"hi"}}"#;
        assert_eq!(sniff(arcturn), Some(Format::Arcturn));
        let crab = br#"{"kind":"message","id":"x","parent_id":null}"#;
        assert_eq!(sniff(crab), Some(Format::Crab));
        assert_eq!(sniff(br#"{"kind":"message","id":"x"}"#), None);
    }
}
