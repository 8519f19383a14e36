//! The materialized branch: what the model is sent at a leaf (FORMATS.md 1.6 for arcturn,
//! the replay of compaction events for crab). Plain data; the `context` command and
//! `export --as-sent` render it.
//!
//! arcturn: walking the root-first path, messages append; a compaction replaces every message
//! at or before its `upToId` (and any earlier summary) with one synthetic summary, keeping the
//! tail after `upToId` (without thinking when `stripTailThinking`); when `upToId` is not an
//! ancestor on the path, everything before the compaction is folded. State entries set todos,
//! plan and model (last wins) and add context-edit passes to the ledger; elided results are
//! sent as one-line stubs. Refusals stay in the working list (a later compaction may fold
//! them like any message) and are taken out at the end, listed in `skipped`.
//!
//! crab: `obs` compaction events are replayed in file order against the path's messages:
//! `shed` turns results into placeholders, `summarize` folds the messages up to `up_to_id`
//! into one synthetic summary. That summary has no entry of its own, so its `entry_id` is
//! `null` and `obs_line` names the event's line.
//!
//! `estimated_tokens` is the agents' own estimate: per message, ceil(characters / 4), summed,
//! where characters are counted as JavaScript does (UTF-16 code units) over what is sent:
//! text, thinking that is replayed, each tool call's name plus its arguments as compact JSON,
//! tool result text (or the stub that replaces it), a flat 4800 per image, a provider
//! compaction block's summary, a server-tool block as JSON, and the synthetic summary text.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::content::{self, Block, Image, Tally, IMAGE_CHARS};
use crate::error::Result;
use crate::format::{FastMap as HashMap, FastSet as HashSet};
use crate::model::{Kind, Message, OwnedId, Text};
use crate::session::Session;
use crate::tree::Ix;

/// The branch at a leaf as the model receives it. A session with no entries has no leaf
/// and sends nothing ([`Context::default`]).
#[derive(Debug, Default, Serialize)]
pub struct Context {
    pub leaf: Option<OwnedId>,
    pub messages: Vec<Sent>,
    pub skipped: Vec<Skipped>,
    pub todos: Value,
    pub plan: Value,
    pub model: Value,
    /// The context-edit ledger (arcturn) or the shed tool-use ids (crab), in order.
    pub elided: Vec<String>,
    /// Entry ids of assistant messages whose thinking is not replayed.
    pub withheld_thinking: Vec<OwnedId>,
    pub estimated_tokens: u64,
    /// The characters behind `estimated_tokens` (UTF-16 code units).
    pub estimated_chars: u64,
    /// The size the file recorded for the last model call on this path ([`recorded`]); null
    /// when it recorded none. Above `estimated_tokens` by the system prompt and tool
    /// definitions, which the file does not hold.
    pub recorded_tokens: Option<u64>,
    /// Provider and model of the last assistant message sent (not the `model` state).
    pub last_model: Option<ModelRef>,
    /// Compactions applied on the way (entries or crab events), in order.
    pub compactions: Vec<Applied>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelRef {
    pub provider: Option<String>,
    pub model: Option<String>,
}

/// One message as sent.
#[derive(Debug, Serialize)]
pub struct Sent {
    /// The message's entry; for an arcturn summary the compaction entry; `null` for a crab
    /// summary (see `obs_line`).
    pub entry_id: Option<OwnedId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub obs_line: Option<u32>,
    /// Line of the entry (or event) in the file.
    pub line: u32,
    /// The role as written in the file; a synthetic summary is sent as `user`.
    pub role: String,
    pub synthetic: bool,
    /// A tool result in it is sent as a stub (context edit) or placeholder (crab shed).
    pub elided: bool,
    /// The message had thinking that is not replayed (stripTailThinking, withholdThinking).
    pub thinking_withheld: bool,
    /// Characters counted for the estimate, and ceil(chars / 4).
    pub chars: u64,
    pub tokens: u64,
    /// The content as sent (stubs in place, withheld thinking removed).
    #[serde(skip)]
    pub blocks: Vec<Block>,
    /// The content counted instead of decoded ([`estimate`]): `blocks` is then empty.
    #[serde(skip)]
    tally: Option<Tally>,
    /// The entry behind the message (none for summaries).
    #[serde(skip)]
    pub ix: Option<Ix>,
    #[serde(skip)]
    pub refusal: bool,
    /// How many messages the walk pushed before this one ([`Walk`]); none for a summary.
    #[serde(skip)]
    seq: usize,
    /// An assistant message (the rules that withhold thinking look only at those).
    #[serde(skip)]
    assistant: bool,
}

#[derive(Debug, Serialize)]
pub struct Skipped {
    pub entry_id: OwnedId,
    pub reason: &'static str,
    pub line: u32,
}

/// A compaction applied during materialization.
#[derive(Debug, Serialize)]
pub struct Applied {
    pub entry_id: Option<OwnedId>,
    pub line: u32,
    /// `summary` (arcturn compaction, crab summarize) or `shed`.
    pub strategy: String,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    /// Whether `upToId` / `up_to_id` was found before it on this path.
    pub target_on_path: bool,
}

/// Where a recorded context size comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedSource {
    /// The last model call on the path since the last compaction: prompt plus answer.
    LastCall,
    /// crab: a compaction event after the last call; its `tokens_after`.
    Compaction,
}

/// The context size the file itself recorded at a leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub source: RecordedSource,
    pub tokens: Option<u64>,
    /// The entry of the call (none for crab, whose figures are observation records).
    pub entry: Option<Ix>,
    pub line: u32,
}

/// The recorded size of the last model call on the path to `leaf` after its last compaction
/// (every part of the call: uncached input, cache read and write, output), or for crab the
/// last `llm_call` (prompt + completion) unless a compaction with a known size came after it.
/// It counts what the estimate cannot see: the system prompt and the tool definitions.
pub fn recorded(s: &Session<'_>, leaf: Ix) -> Option<Recorded> {
    recorded_on(s, &s.tree.path(leaf))
}

/// [`recorded`] on the root-first `path` to the leaf, already made.
pub fn recorded_on(s: &Session<'_>, path: &[Ix]) -> Option<Recorded> {
    if s.observed {
        let o = s.observations.iter().rev().find(|o| match o.tag.as_ref() {
            "llm_call" => o.usage.is_some(),
            "compaction" => o.tokens_after.is_some(),
            _ => false,
        })?;
        // crab's `prompt` is the whole prompt, cached tokens included (it is never below
        // `cache_read`), so prompt + completion is the window in use.
        return Some(match (o.tag.as_ref(), o.usage) {
            ("llm_call", Some(u)) => Recorded {
                source: RecordedSource::LastCall,
                tokens: Some(u.input.saturating_add(u.output)),
                entry: None,
                line: o.line,
            },
            _ => Recorded { source: RecordedSource::Compaction, tokens: o.tokens_after, entry: None, line: o.line },
        });
    }
    let cut = path.iter().rposition(|&i| s.entry(i).kind() == Kind::Compaction);
    let after = cut.map_or(0, |c| c + 1);
    path[after..].iter().rev().find_map(|&i| {
        (s.brief(i)?.role == crate::model::Role::Assistant).then_some(())?;
        let u = *s.message(i)?.usage()?;
        Some(Recorded {
            source: RecordedSource::LastCall,
            tokens: Some(u.parts_total().0),
            entry: Some(i),
            line: s.entry(i).line,
        })
    })
}

pub fn materialize(s: &Session<'_>, leaf: Ix) -> Result<Context> {
    materialize_with(s, &s.tree.path(leaf), Skip::Folded, Mode::Blocks)
}

/// [`materialize`]'s `estimated_tokens`, with the messages counted from their lines where
/// the format can ([`Session::tally`]) instead of decoded into blocks. On a path where a
/// result may be elided (a context edit on it, a crab shed event before the leaf), the stubs
/// need the blocks, and every message is decoded as `materialize` does.
pub fn estimate(s: &Session<'_>, leaf: Ix) -> Result<u64> {
    estimate_on(s, &s.tree.path(leaf))
}

/// [`estimate`] on the root-first `path` to the leaf, already made (`stats` makes one path
/// for its branch and its context).
pub fn estimate_on(s: &Session<'_>, path: &[Ix]) -> Result<u64> {
    materialize_with(s, path, Skip::Folded, Mode::Count).map(|c| c.estimated_tokens)
}

/// What the walk gets of each message it sends.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Its blocks, decoded.
    Blocks,
    /// Its characters, counted where the format can ([`Session::tally`]).
    Count,
}

/// Whether messages the last compaction folds away are decoded (tests compare both).
#[derive(Clone, Copy, PartialEq)]
enum Skip {
    Folded,
    #[cfg(test)]
    Nothing,
}

/// The context at the end of the root-first `path`.
fn materialize_with(s: &Session<'_>, path: &[Ix], skip: Skip, mode: Mode) -> Result<Context> {
    let mut w = Walk::default();
    let Some(&leaf) = path.last() else {
        return Err(crate::error::Error::Usage("no entry to show the context at".into()));
    };
    if s.observed {
        crab(s, path, &mut w, mode)?;
    } else {
        arcturn(s, path, &mut w, skip, mode)?;
    }
    Ok(w.finish(s, path, leaf))
}

/// The walk down a path. A message goes into the list without its id and role written out
/// (most are folded away by a later compaction on a long branch): [`Walk::finish`] writes
/// them for the messages that are sent.
///
/// Every step costs what it adds or removes, never the length of the list, so that a file
/// built with many compactions that keep a long tail, or many context edits over a long
/// list, stays linear: a compaction takes what it folds off the front of the list's
/// messages by order (each message once) and marks it, the marked messages being let go in
/// bulk; a pass that withholds thinking notes the messages it covers as a range of pushes,
/// applied once, at the end, to the messages still sent (a message's thinking is withheld
/// once and for all, and a message folded away is never sent). (These were a scan or a copy
/// of the list at each step: 50,000 compactions keeping a tail of 50,000 messages took 15 s.)
#[derive(Default)]
struct Walk<'s> {
    /// The messages pushed, in order, less those let go: some folded away ([`Walk::alive`])
    /// until the next tidy.
    list: Vec<Sent>,
    /// The messages pushed that the path's last compaction is known to fold away
    /// ([`Decoded::Folded`]: all of them come before any of `list`), each only its `seq` and
    /// entry: it is never sent, and only the passes that look for an elided result read
    /// more of it (most of a long branch's messages, pushed in 16 bytes each, not a [`Sent`]).
    ghosts: Vec<(usize, Ix)>,
    /// The last compaction's summary, sent before every message of the list, and its text,
    /// decoded only then: a later compaction replaces it, unread.
    summary: Option<(Sent, Option<&'s Text<'s>>)>,
    /// Whether each message pushed (by its `seq`) is still in the context.
    alive: Bits,
    /// Folded messages still in `list`.
    dead: usize,
    /// The messages in the context by (order, seq), lowest first: those pushed in order (a
    /// path's, nearly always) in a queue, any other in a heap.
    in_order: VecDeque<(usize, usize)>,
    out_of_order: BinaryHeap<Reverse<(usize, usize)>>,
    /// Thinking withheld from the messages pushed after the first bound (after none: from
    /// the first) and before the second.
    withheld: Vec<(Option<usize>, usize)>,
    /// The call ids a pass may look for (`afterFirstElided`).
    tracked: HashSet<&'s str>,
    /// The entries let go by the load whose messages may hold a result of a tracked call
    /// ([`Session::results_hashed`]): the others need not be read back to know they hold none.
    maybe: Maybe,
    /// Messages a pass looked at in the list before it found what it looked for.
    scanned: usize,
    /// Once the passes have looked at more messages than [`SCAN_BUDGET`] allows: for each
    /// tracked call id, the messages that hold a result of that call (by `seq`), with how
    /// many of them are known folded.
    holders: Option<HashMap<&'s str, (Vec<usize>, usize)>>,
    todos: Option<Value>,
    plan: Option<Value>,
    model: Option<Value>,
    ledger: Vec<String>,
    /// The ids in `ledger`.
    in_ledger: HashSet<String>,
    shed: bool,
    /// Whether results can be elided on this path, so that their stubs may need call names.
    names: bool,
    /// Whether only the path's message entries are pushed (arcturn; crab pushes each
    /// entry of its path), so that the messages pushed are found again from the path
    /// ([`pushed`]) where an elided result's tool must be named.
    messages_only: bool,
    /// The tool calls of the messages pushed whose blocks were decoded, by their `seq`, to
    /// name the tool of an elided result that does not say it (read only when such a stub
    /// is written; the others' calls are read back then).
    named: Vec<(usize, Vec<(String, String)>)>,
    compactions: Vec<Applied>,
}

impl<'s> Walk<'s> {
    /// Append the message at `ix` with its decoded `blocks` (from [`decode_path`]), at
    /// `order`: its path position (arcturn) or line (crab), what a compaction's bound is
    /// compared with. A message that is sent but was not decoded (a later compaction folds it
    /// away) goes in with no blocks, so positions and the index-based rules still see it.
    fn push_message(&mut self, s: &'s Session<'_>, ix: Ix, order: usize, blocks: Decoded) -> Result<()> {
        let e = s.entry(ix);
        let Some(brief) = sent_brief(s, ix) else { return Ok(()) };
        let ghost = matches!(blocks, Decoded::Folded);
        let (blocks, tally) = match blocks {
            Decoded::Blocks(b) => (b?, None),
            Decoded::Counted(t) => (Vec::new(), Some(t)),
            Decoded::Folded | Decoded::NotSent => (Vec::new(), None),
        };
        let seq = self.alive.len();
        if self.names && !blocks.is_empty() {
            let named = blocks.iter().filter_map(|b| match b {
                Block::ToolCall { id: Some(id), name, .. } => Some((id.clone(), name.clone())),
                _ => None,
            });
            self.named.push((seq, named.collect()));
        }
        if let Some(holders) = &mut self.holders {
            hold(holders, (&self.tracked, &self.maybe), s, ix, seq);
        }
        self.alive.push(true);
        match self.in_order.back() {
            Some(&(last, _)) if order < last => self.out_of_order.push(Reverse((order, seq))),
            _ => self.in_order.push_back((order, seq)),
        }
        if ghost {
            debug_assert!(self.list.is_empty(), "a message known folded after one that may be sent");
            self.ghosts.push((seq, ix));
            return Ok(());
        }
        self.list.push(Sent {
            // Written by `finish`, for the messages that are sent (the texts are in the
            // file's pages, which a long walk would otherwise read for every message).
            entry_id: None,
            obs_line: None,
            line: e.line,
            role: String::new(),
            synthetic: false,
            elided: false,
            thinking_withheld: false,
            chars: 0,
            tokens: 0,
            blocks,
            tally,
            ix: Some(ix),
            refusal: false,
            seq,
            assistant: brief.role == crate::model::Role::Assistant,
        });
        Ok(())
    }

    /// Fold every message whose order is below `keep_from` (all of them when `None`) and
    /// the earlier summary into one synthetic summary placed first; with
    /// `strip_tail_thinking`, withhold the thinking of the messages kept.
    fn fold(&mut self, summary: (Sent, Option<&'s Text<'s>>), keep_from: Option<usize>, strip_tail_thinking: bool) {
        let keep_from = keep_from.unwrap_or(usize::MAX);
        while let Some(&(order, seq)) = self.in_order.front() {
            if order >= keep_from {
                break;
            }
            self.in_order.pop_front();
            self.alive.clear(seq);
            self.dead += 1;
        }
        while let Some(&Reverse((order, seq))) = self.out_of_order.peek() {
            if order >= keep_from {
                break;
            }
            self.out_of_order.pop();
            self.alive.clear(seq);
            self.dead += 1;
        }
        if strip_tail_thinking {
            self.withhold_all();
        }
        self.summary = Some(summary);
        // Let the folded go once they are half the list: each is moved at most once more.
        if self.dead > 64 && self.dead * 2 > self.list.len() + self.ghosts.len() {
            let alive = &self.alive;
            self.list.retain(|m| alive.get(m.seq));
            self.ghosts.retain(|&(seq, _)| alive.get(seq));
            self.dead = 0;
        }
    }

    /// Withhold the thinking of every message in the context now.
    fn withhold_all(&mut self) {
        self.withheld.push((None, self.alive.len()));
    }

    /// Withhold the thinking of every message in the context after the first one that holds
    /// a result `pass` elides (the first by order: the list is in path order). The list is
    /// looked through from its start, where an elided result usually is; once that has cost
    /// more than [`SCAN_BUDGET`] (passes that find nothing, or find it late, over a long
    /// list), the messages are indexed by the tracked results they hold instead, each once.
    fn withhold_after_first_elided(&mut self, s: &'s Session<'_>, pass: &HashSet<&str>) {
        if self.holders.is_none() && self.scanned > SCAN_BUDGET * (self.alive.len() + 1024) {
            let mut holders = HashMap::default();
            for (seq, ix) in self.in_context() {
                hold(&mut holders, (&self.tracked, &self.maybe), s, ix, seq);
            }
            self.holders = Some(holders);
        }
        let first = match &mut self.holders {
            Some(holders) => {
                let mut first = None;
                for &id in pass {
                    let Some((seqs, folded)) = holders.get_mut(id) else { continue };
                    // Folded messages never come back: each is skipped once.
                    while seqs.get(*folded).is_some_and(|&q| !self.alive.get(q)) {
                        *folded += 1;
                    }
                    if let Some(&q) = seqs.get(*folded) {
                        first = Some(first.map_or(q, |f: usize| f.min(q)));
                    }
                }
                first
            }
            None => {
                // A message let go is read back only when it holds a result of this pass's
                // ids by their hashes (not of any pass's).
                let hashes: HashSet<u32> = pass.iter().map(|c| crate::format::call_id_hash(c)).collect();
                let mut scanned = 0;
                let first = self.in_context().find(|&(_, ix)| {
                    scanned += 1;
                    !held_by(s, ix, pass, (&self.maybe, |h| hashes.contains(&h))).is_empty()
                });
                self.scanned += scanned;
                first.map(|(seq, _)| seq)
            }
        };
        if let Some(first) = first {
            self.withheld.push((Some(first), self.alive.len()));
        }
    }

    /// The messages in the context now that have an entry, in the order they were pushed:
    /// their `seq` and entry.
    fn in_context(&self) -> impl Iterator<Item = (usize, Ix)> + '_ {
        let pushed = self.list.iter().filter_map(|m| Some((m.seq, m.ix?)));
        self.ghosts.iter().copied().chain(pushed).filter(|&(seq, _)| self.alive.get(seq))
    }

    /// The messages sent, the summary first, with the passes' withheld thinking applied.
    fn sent(&mut self) -> Vec<Sent> {
        debug_assert!(self.ghosts.iter().all(|&(seq, _)| !self.alive.get(seq)), "a message known folded is sent");
        let alive = &self.alive;
        let mut list: Vec<Sent> = std::mem::take(&mut self.list).into_iter().filter(|m| alive.get(m.seq)).collect();
        // A message is withheld by a range that starts at or before it and ends after it:
        // the ranges by start, and the furthest end of those started.
        let start = |w: &(Option<usize>, usize)| w.0.map_or(0, |lo| lo + 1);
        self.withheld.sort_unstable_by_key(start);
        let (mut next, mut reach) = (0, 0);
        for m in &mut list {
            while let Some(w) = self.withheld.get(next).filter(|w| start(w) <= m.seq) {
                reach = reach.max(w.1);
                next += 1;
            }
            if m.seq < reach {
                withhold(m);
            }
        }
        let summary = self.summary.take().map(|(mut m, text)| {
            m.blocks = vec![Block::Text(text.map(Text::decode).unwrap_or_default())];
            m
        });
        summary.into_iter().chain(list).collect()
    }

    fn finish(mut self, s: &Session<'_>, path: &[Ix], leaf: Ix) -> Context {
        self.list = self.sent();
        for m in &mut self.list {
            // A summary has its id (or none, crab's) and role already.
            let Some(ix) = m.ix else { continue };
            let Some(msg) = s.message(ix) else { continue };
            let e = s.entry(ix);
            m.entry_id = Some(e.id.to_owned_id());
            m.role = msg.role_name().to_string();
            m.refusal = msg.stop_reason() == Some("refusal");
        }
        let ledger: HashSet<&str> = self.ledger.iter().map(String::as_str).collect();
        let mut names = None;
        for m in &mut self.list {
            let mut elided = false;
            for b in &mut m.blocks {
                let Block::ToolResult(r) = b else { continue };
                let Some(id) = r.call_id.as_deref() else { continue };
                if !ledger.contains(id) {
                    continue;
                }
                let tool = match &r.tool_name {
                    Some(t) => t.clone(),
                    None => names
                        .get_or_insert_with(|| {
                            let pushed = pushed(s, path, self.messages_only);
                            debug_assert_eq!(pushed.clone().count(), self.alive.len(), "the messages pushed");
                            call_names(pushed, &self.named, s)
                        })
                        .get(id)
                        .map_or_else(|| "tool".into(), |n| n.to_string()),
                };
                let n = content::js_len(&r.text());
                let stub = if self.shed {
                    format!("[shed: the \"{tool}\" result ({n} characters) was removed to save context; re-run the tool to see it again]")
                } else if let Some(p) = &r.offloaded_path {
                    format!("[context-edited: the \"{tool}\" result ({n} characters) was elided; the full output is at {p}]")
                } else {
                    format!("[context-edited: the \"{tool}\" result ({n} characters) was elided; re-run the tool to see it again]")
                };
                r.content = vec![Block::Text(stub)];
                elided = true;
            }
            m.elided = elided;
            if m.thinking_withheld {
                m.blocks.retain(|b| !matches!(b, Block::Thinking { .. }));
            }
        }
        let mut skipped = Vec::new();
        let mut messages = Vec::new();
        for m in self.list {
            if m.refusal {
                if let Some(id) = m.entry_id {
                    skipped.push(Skipped { entry_id: id, reason: "refusal", line: m.line });
                }
            } else {
                messages.push(m);
            }
        }
        let mut total_chars = 0;
        let mut total_tokens = 0;
        let mut last_model = None;
        for m in &mut messages {
            let counted = m.tally.map_or(0, |t| t.other + if m.thinking_withheld { 0 } else { t.thinking });
            m.chars = m.blocks.iter().map(chars).sum::<u64>() + counted;
            m.tokens = m.chars.div_ceil(4);
            total_chars += m.chars;
            total_tokens += m.tokens;
            if let Some(msg) = m.ix.and_then(|i| s.message(i)) {
                if msg.model().is_some() || msg.provider().is_some() {
                    last_model = Some(ModelRef {
                        provider: msg.provider().map(str::to_string),
                        model: msg.model().map(str::to_string),
                    });
                }
            }
        }
        let withheld_thinking =
            messages.iter().filter(|m| m.thinking_withheld).filter_map(|m| m.entry_id.clone()).collect();
        Context {
            leaf: Some(s.entry(leaf).id.to_owned_id()),
            messages,
            skipped,
            todos: self.todos.unwrap_or(Value::Null),
            plan: self.plan.unwrap_or(Value::Null),
            model: self.model.unwrap_or(Value::Null),
            elided: self.ledger,
            withheld_thinking,
            estimated_tokens: total_tokens,
            estimated_chars: total_chars,
            recorded_tokens: recorded(s, leaf).and_then(|r| r.tokens),
            last_model,
            compactions: self.compactions,
        }
    }

    fn add_to_ledger(&mut self, ids: impl IntoIterator<Item = String>) {
        for id in ids {
            if self.in_ledger.insert(id.clone()) {
                self.ledger.push(id);
            }
        }
    }
}

/// How many messages, per message pushed, the passes that withhold thinking after the first
/// elided result may look through before the walk indexes the results instead.
const SCAN_BUDGET: usize = 4;

/// Note that the message `seq` (entry `ix`) holds the results of its that are `tracked`.
fn hold<'s>(
    holders: &mut HashMap<&'s str, (Vec<usize>, usize)>,
    (tracked, maybe): (&HashSet<&'s str>, &Maybe),
    s: &Session<'_>,
    ix: Ix,
    seq: usize,
) {
    // Every hash `maybe` has is one of a tracked id's.
    for c in held_by(s, ix, tracked, (maybe, |_| true)) {
        holders.entry(c).or_default().0.push(seq);
    }
}

/// The call ids of `ids` that results of entry `ix`'s message answer, in the message's order.
/// A message the load let go is read back only when `maybe` has it with a hash `of_ids` takes
/// for one of `ids`'.
fn held_by<'k>(
    s: &Session<'_>,
    ix: Ix,
    ids: &HashSet<&'k str>,
    (maybe, of_ids): (&Maybe, impl Fn(u32) -> bool),
) -> Vec<&'k str> {
    if s.entry(ix).message.is_none() && !maybe.hashes(ix).any(of_ids) {
        return Vec::new();
    }
    let Some(m) = s.message(ix) else { return Vec::new() };
    m.tool_results.iter().filter_map(|r| r.call_id.as_deref()).filter_map(|c| ids.get(c).copied()).collect()
}

/// Mark an assistant message's thinking as not replayed (only when it has some).
fn withhold(m: &mut Sent) {
    let thinking = m.blocks.iter().any(|b| matches!(b, Block::Thinking { .. }));
    if m.assistant && (thinking || m.tally.is_some_and(|t| t.has_thinking)) {
        m.thinking_withheld = true;
    }
}

fn chars(b: &Block) -> u64 {
    match b {
        Block::Text(t) => content::js_len(t),
        Block::Thinking { text, .. } => content::js_len(text),
        Block::ToolCall { name, arguments, .. } => content::js_len(name) + content::js_len(&arguments.to_string()),
        Block::ToolResult(r) => r.content.iter().map(chars).sum(),
        Block::Image(Image::Inline { .. } | Image::Url(_)) => IMAGE_CHARS,
        Block::ProviderCompaction { summary, .. } => summary.as_deref().map(content::js_len).unwrap_or(0),
        Block::ServerTool { block, .. } => content::js_len(&block.to_string()),
        Block::Unknown { raw, .. } => content::js_len(&raw.to_string()),
    }
}

/// A compaction's summary as a message, with `text` (its blocks, decoded when it is sent).
fn summary_message<'s>(
    id: Option<OwnedId>,
    obs_line: Option<u32>,
    line: u32,
    text: Option<&'s Text<'s>>,
) -> (Sent, Option<&'s Text<'s>>) {
    let message = Sent {
        entry_id: id,
        obs_line,
        line,
        role: "user".into(),
        synthetic: true,
        elided: false,
        thinking_withheld: false,
        chars: 0,
        tokens: 0,
        blocks: Vec::new(),
        tally: None,
        ix: None,
        refusal: false,
        seq: usize::MAX,
        assistant: false,
    };
    (message, text)
}

fn raw_value(r: &serde_json::value::RawValue) -> Value {
    serde_json::from_str(r.get()).unwrap_or(Value::Null)
}

/// A list of bits (a bit a message pushed, where a `Vec<bool>` takes a byte).
#[derive(Default)]
struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.words[self.len / 64] |= u64::from(bit) << (self.len % 64);
        self.len += 1;
    }

    fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} of {}", self.len);
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    fn clear(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} of {}", self.len);
        self.words[i / 64] &= !(1 << (i % 64));
    }
}

/// The entries a load let go that may hold a result of a tracked call: each with the hash of
/// the call's id ([`Session::results_hashed`], in file order), and a bit an entry, so that
/// the passes that look through hundreds of thousands of messages ask a bit of most.
#[derive(Default)]
struct Maybe {
    hashed: Vec<(Ix, u32)>,
    bits: Vec<u64>,
}

impl Maybe {
    fn new(hashed: Vec<(Ix, u32)>, entries: usize) -> Maybe {
        let mut bits = vec![0u64; entries.div_ceil(64)];
        for &(e, _) in &hashed {
            bits[e as usize / 64] |= 1 << (e % 64);
        }
        Maybe { hashed, bits }
    }

    /// The hashes of the tracked call ids whose results entry `ix` may hold.
    fn hashes(&self, ix: Ix) -> impl Iterator<Item = u32> + '_ {
        let any = self.bits.get(ix as usize / 64).is_some_and(|w| w >> (ix % 64) & 1 == 1);
        let from = if any { self.hashed.partition_point(|&(e, _)| e < ix) } else { self.hashed.len() };
        self.hashed[from..].iter().take_while(move |&&(e, _)| e == ix).map(|&(_, h)| h)
    }
}

/// The brief of the message at `ix` when the walk pushes it (it is not excluded).
fn sent_brief(s: &Session<'_>, ix: Ix) -> Option<crate::model::Brief> {
    s.brief(ix).filter(|b| !b.excluded)
}

/// The entries of `path` the walk pushed ([`Walk::push_message`]), in order: each message
/// sent, and with `messages_only` (arcturn) only the path's message entries.
fn pushed<'p>(s: &'p Session<'_>, path: &'p [Ix], messages_only: bool) -> impl Iterator<Item = Ix> + Clone + 'p {
    path.iter()
        .copied()
        .filter(move |&ix| (!messages_only || s.entry(ix).kind() == Kind::Message) && sent_brief(s, ix).is_some())
}

/// Tool call id -> tool name over the messages pushed (`calls`, in order), the last one
/// winning: named from the decoded blocks of those `named` gives (by their `seq`, their place
/// in `calls`), else from the index (a message let go by the load is read back).
fn call_names(
    calls: impl Iterator<Item = Ix>,
    named: &[(usize, Vec<(String, String)>)],
    s: &Session<'_>,
) -> HashMap<String, String> {
    let mut names = HashMap::default();
    let mut named = named.iter().peekable();
    for (k, ix) in calls.enumerate() {
        if let Some((_, decoded)) = named.next_if(|(at, _)| *at == k) {
            names.extend(decoded.iter().cloned());
            continue;
        }
        let Some(m) = s.message(ix) else { continue };
        // As its blocks name them: a call without a name is named "".
        for c in &m.tool_calls {
            if let Some(id) = &c.id {
                names.insert(id.to_string(), c.name.as_deref().unwrap_or("").to_string());
            }
        }
    }
    names
}

/// A path entry's content, as the walk gets it.
enum Decoded {
    Blocks(Result<Vec<Block>>),
    /// Counted from its lines instead ([`Mode::Count`]).
    Counted(Tally),
    /// A position the last compaction on the path folds away: never decoded.
    Folded,
    /// Not a message that is sent.
    NotSent,
}

/// The content blocks of every message on `path` that is sent (not excluded), decoded in
/// parallel (or counted, with [`Mode::Count`], where the format can): re-reading each line's
/// content is most of the work on a long branch, and each message decodes on its own. The
/// caller gives only the positions that are not folded away (an item each: on a long
/// branch most are, and the list would hold one for every entry).
/// `mode` says, for each message, which of the two it gets.
fn decode_path(s: &Session<'_>, path: &[Ix], mode: impl Fn(&Message<'_>) -> Mode + Sync) -> Vec<Decoded> {
    path.par_iter()
        .map(|&ix| match s.message(ix).filter(|m| !m.excluded) {
            None => Decoded::NotSent,
            Some(m) => match (mode(&m) == Mode::Count).then(|| s.tally(ix)).flatten() {
                Some(t) => Decoded::Counted(t),
                None => Decoded::Blocks(s.content(ix).map(|c| c.blocks)),
            },
        })
        .collect()
}

/// Where `j` is on the root-first `path`, if it is on it: its depth, where the path is at
/// that depth.
fn position(s: &Session<'_>, path: &[Ix], j: Ix) -> Option<usize> {
    // A path is nearly always in file order: a search finds `j` without the depths (which
    // a view that only walks up need not hold). An entry is at most once on a path, so a
    // place found holding `j` is its place, sorted or not.
    if let Ok(d) = path.binary_search(&j) {
        return Some(d);
    }
    let d = s.tree.depth(j) as usize;
    (path.get(d) == Some(&j)).then_some(d)
}

/// The first position the compaction at position `p` keeps (`None`: it keeps nothing):
/// `up_to` names the last folded entry, `first_kept` the first kept one; a target that is
/// not on the path before the compaction keeps nothing.
fn keep_from(s: &Session<'_>, c: &crate::model::Compaction<'_>, path: &[Ix], p: usize) -> Option<usize> {
    let at = |t: &Option<crate::model::Id<'_>>| {
        t.as_ref().and_then(|t| s.tree.get(&s.entries, t)).and_then(|j| position(s, path, j)).filter(|&u| u < p)
    };
    match (&c.up_to, &c.first_kept) {
        (Some(_), _) => at(&c.up_to).map(|u| u + 1),
        (None, Some(_)) => at(&c.first_kept),
        (None, None) => None,
    }
}

/// The first position whose message can still be sent at the end of `path`: the last
/// compaction folds every message before its kept tail into its summary, and a fold never
/// brings one back. 0 when no compaction is on the path.
fn first_sent(s: &Session<'_>, path: &[Ix]) -> usize {
    let last = path.iter().enumerate().rev().find_map(|(p, &ix)| {
        let e = s.entry(ix);
        (e.kind() == Kind::Compaction).then_some((p, e.compaction()))
    });
    match last {
        Some((p, Some(c))) => keep_from(s, c, path, p).unwrap_or(p),
        Some((p, None)) => p,
        None => 0,
    }
}

fn arcturn<'s>(s: &'s Session<'_>, path: &[Ix], w: &mut Walk<'s>, skip: Skip, mode: Mode) -> Result<()> {
    let from = if skip == Skip::Folded { first_sent(s, path) } else { 0 };
    // The ledger of elided results (the only reader of call names) is filled by context
    // edits: without one on the path, no name is kept.
    let edits: Vec<_> = path.iter().filter_map(|&i| s.entry(i).state()?.context_edit.as_ref()).collect();
    w.names = !edits.is_empty();
    w.messages_only = true;
    // Elided results are written from their blocks: a message that holds a result some
    // context edit on the path elides is decoded, whatever `mode` says (its stub is counted
    // in place of the result). The ledger is every id those edits name, wherever they are.
    let elided: HashSet<&str> = edits.iter().flat_map(|ce| ce.elided.iter().map(|c| c.as_ref())).collect();
    if edits.iter().any(|ce| ce.withhold_thinking.as_deref() == Some("afterFirstElided")) {
        // Such a pass looks for the first message holding a result it elides.
        let hashes: HashSet<u32> = elided.iter().map(|id| crate::format::call_id_hash(id)).collect();
        w.maybe = Maybe::new(s.results_hashed(|h| hashes.contains(&h)), s.entries.len());
        w.tracked = elided.clone();
    }
    let holds_elided = |m: &Message<'_>| {
        !elided.is_empty() && m.tool_results.iter().any(|r| r.call_id.as_deref().is_some_and(|c| elided.contains(c)))
    };
    let mode = |m: &Message<'_>| if holds_elided(m) { Mode::Blocks } else { mode };
    let mut decoded = decode_path(s, path.get(from..).unwrap_or_default(), mode).into_iter();
    for (p, &ix) in path.iter().enumerate() {
        let e = s.entry(ix);
        // Before `from`, a message is folded away (and anything else is not sent: neither
        // reads its blocks).
        let blocks = if p < from { Decoded::Folded } else { decoded.next().unwrap_or(Decoded::NotSent) };
        match e.kind() {
            Kind::Message => w.push_message(s, ix, p, blocks)?,
            Kind::Compaction => {
                let text = e.compaction().and_then(|c| c.summary.as_ref());
                let c = e.compaction().cloned().unwrap_or_default();
                let keep_from = keep_from(s, &c, path, p);
                w.compactions.push(Applied {
                    entry_id: Some(e.id.to_owned_id()),
                    line: e.line,
                    strategy: "summary".into(),
                    tokens_before: c.tokens_before,
                    tokens_after: c.tokens_after,
                    target_on_path: keep_from.is_some(),
                });
                let summary = summary_message(Some(e.id.to_owned_id()), None, e.line, text);
                w.fold(summary, keep_from, c.strip_tail_thinking);
            }
            Kind::State => {
                let Some(st) = e.state() else { continue };
                if let Some(t) = st.todos {
                    w.todos = Some(raw_value(t));
                }
                if let Some(t) = st.plan {
                    w.plan = Some(raw_value(t));
                }
                if let Some(t) = st.model {
                    w.model = Some(raw_value(t));
                }
                if let Some(ce) = &st.context_edit {
                    let pass: HashSet<&str> = ce.elided.iter().map(|c| c.as_ref()).collect();
                    w.add_to_ledger(ce.elided.iter().map(|c| c.to_string()));
                    match ce.withhold_thinking.as_deref() {
                        Some("all") => w.withhold_all(),
                        // Found from the index, not the blocks: a message a later compaction
                        // folds away is never decoded.
                        Some("afterFirstElided") => w.withhold_after_first_elided(s, &pass),
                        _ => {}
                    }
                }
            }
            Kind::Label | Kind::Unknown => {}
        }
    }
    Ok(())
}

fn crab<'s>(s: &'s Session<'_>, path: &[Ix], w: &mut Walk<'s>, mode: Mode) -> Result<()> {
    w.shed = true;
    w.names = true;
    let Some(&leaf) = path.last() else { return Ok(()) };
    let on_path: HashSet<Ix> = path.iter().copied().collect();
    // Events up to the next message record after the leaf belong to the leaf's context.
    let limit = s.entries.get(leaf as usize + 1).map(|e| e.line).unwrap_or(u32::MAX);
    let mut events: Vec<_> = s.observations.iter().filter(|o| o.tag == "compaction" && o.line < limit).collect();
    events.sort_by_key(|o| o.line);
    // A shed result's placeholder is written from its blocks.
    let mode = if events.iter().any(|o| o.strategy.as_deref() == Some("shed")) { Mode::Blocks } else { mode };
    let mut next_event = events.into_iter().peekable();
    let mut apply_until = |w: &mut Walk<'s>, line: u32| {
        while let Some(o) = next_event.next_if(|o| o.line < line) {
            let strategy = o.strategy.as_deref().unwrap_or("");
            let mut target_on_path = true;
            match strategy {
                "shed" => w.add_to_ledger(o.shed.iter().map(|c| c.to_string())),
                "summarize" => {
                    let up_to =
                        o.up_to_id.as_ref().and_then(|t| s.tree.get(&s.entries, t)).filter(|j| on_path.contains(j));
                    target_on_path = up_to.is_some();
                    let keep_from = up_to.map(|j| s.entry(j).line as usize + 1);
                    w.fold(summary_message(None, Some(o.line), o.line, o.summary.as_ref()), keep_from, false);
                }
                _ => continue,
            }
            w.compactions.push(Applied {
                entry_id: None,
                line: o.line,
                strategy: strategy.to_string(),
                tokens_before: o.tokens_before,
                tokens_after: o.tokens_after,
                target_on_path,
            });
        }
    };
    for (&ix, blocks) in path.iter().zip(decode_path(s, path, |_| mode)) {
        let line = s.entry(ix).line;
        apply_until(w, line);
        w.push_message(s, ix, line as usize, blocks)?;
    }
    apply_until(w, u32::MAX);
    Ok(())
}

#[cfg(test)]
mod skip_tests {
    use super::*;
    use crate::source::Source;

    /// The bits read back as pushed and cleared, across the words' boundaries, beside a
    /// list of booleans given the same steps.
    #[test]
    fn bits_read_back_as_set() {
        let (mut bits, mut bools) = (Bits::default(), Vec::new());
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..1000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bit = !x.is_multiple_of(3);
            bits.push(bit);
            bools.push(bit);
            if i.is_multiple_of(5) {
                let k = (x >> 20) as usize % bools.len();
                bits.clear(k);
                bools[k] = false;
            }
            assert_eq!(bits.len(), bools.len());
        }
        for (i, &b) in bools.iter().enumerate() {
            assert_eq!(bits.get(i), b, "bit {i}");
        }
        assert!(std::panic::catch_unwind(|| bits.get(1000)).is_err(), "past the end");
    }

    /// Skipping the messages the last compaction folds away must change nothing: every leaf
    /// of every testdata file (compactions of every format, context edits, refusals) gives
    /// the same context as decoding every message of its path.
    #[test]
    fn skipping_folded_messages_changes_no_context() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut stack = vec![root];
        let (mut files, mut folded) = (0, 0);
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "jsonl") {
                    continue;
                }
                let Ok(src) = Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
                let Ok(s) = Session::load(&src, None) else { continue };
                files += 1;
                for leaf in s.tree.leaves() {
                    let path = s.tree.path(leaf);
                    let fast = materialize_with(&s, &path, Skip::Folded, Mode::Blocks)
                        .map(|c| serde_json::to_value(c).unwrap());
                    let full = materialize_with(&s, &path, Skip::Nothing, Mode::Blocks)
                        .map(|c| serde_json::to_value(c).unwrap());
                    match (fast, full) {
                        (Ok(a), Ok(b)) => assert_eq!(a, b, "{}: leaf {leaf}", p.display()),
                        (a, b) => assert_eq!(a.is_ok(), b.is_ok(), "{}: leaf {leaf}", p.display()),
                    }
                    if !s.observed {
                        folded += usize::from(first_sent(&s, &path) > 0);
                    }
                }
            }
        }
        assert!(files > 20, "testdata read: {files} files");
        assert!(folded > 3, "paths where messages were skipped: {folded}");
    }

    /// A message's blocks split as [`Tally`] counts them: top-level thinking apart.
    fn tally_of(blocks: &[Block]) -> Tally {
        let mut t = Tally::default();
        for b in blocks {
            if matches!(b, Block::Thinking { .. }) {
                t.has_thinking = true;
                t.thinking += chars(b);
            } else {
                t.other += chars(b);
            }
        }
        t
    }

    /// Compare, in one session, every message's count from its lines with the characters of
    /// its decoded blocks, and the estimate at every leaf with `materialize`'s. Returns how
    /// many messages were counted from their lines and how many fell back to their blocks.
    fn counts_agree(name: &str, s: &Session<'_>) -> (usize, usize) {
        let (mut counted, mut decoded) = (0, 0);
        for ix in 0..s.entries.len() as Ix {
            if s.entry(ix).message.is_none() {
                continue;
            }
            match s.tally(ix) {
                Some(t) => {
                    let blocks = s.content(ix).unwrap_or_else(|e| panic!("{name}: entry {ix}: {e}")).blocks;
                    assert_eq!(t, tally_of(&blocks), "{name}: line {}", s.entry(ix).line);
                    counted += 1;
                }
                None => decoded += 1,
            }
        }
        for leaf in s.tree.leaves() {
            let full = materialize(s, leaf).map(|c| c.estimated_tokens);
            match (estimate(s, leaf), full) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: leaf {leaf}"),
                (a, b) => assert_eq!(a.is_ok(), b.is_ok(), "{name}: leaf {leaf}"),
            }
        }
        (counted, decoded)
    }

    /// Load `src` again counting each message as it is read ([`Detail::Tallied`]), and check
    /// that session as [`counts_agree`] checks one: each count kept by the load is the
    /// characters of the message's blocks, and, where the message can be counted from its
    /// line, that count (`full` is the session loaded whole). Returns how many messages the
    /// load counted.
    fn counted_at_load(name: &str, src: &Source, full: &Session<'_>) -> usize {
        use crate::format::{Detail, Uses};
        let s = Session::load_with(src, Some(full.format), Detail::Tallied, Uses::Unlisted).unwrap();
        assert_eq!(s.entries.len(), full.entries.len(), "{name}");
        counts_agree(name, &s);
        let mut at_load = 0;
        for ix in 0..s.entries.len() as Ix {
            let Some(c) = s.entry(ix).message.as_ref().and_then(|m| m.counted) else { continue };
            if let Some(t) = full.tally(ix) {
                assert_eq!(c.tally(), t, "{name}: line {}", s.entry(ix).line);
            }
            at_load += 1;
        }
        at_load
    }

    /// Counting a message from its line gives what decoding its blocks gives, on every
    /// message of every testdata and real session (every format; those that count from the
    /// line are arcturn, crab and Claude Code), and the estimate at every leaf is `materialize`'s;
    /// so is each count a load keeps ([`counted_at_load`]).
    #[test]
    fn counting_messages_gives_the_characters_of_their_blocks() {
        let files = crate::test_corpus::session_files();
        let mut by_format: HashMap<&str, (usize, usize, usize)> = HashMap::default();
        for p in &files {
            let Ok(src) = Source::from_bytes("t", std::fs::read(p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            let name = p.display().to_string();
            let (c, d) = counts_agree(&name, &s);
            let at_load = counted_at_load(&name, &src, &s);
            let f = by_format.entry(s.format.as_str()).or_default();
            f.0 += c;
            f.1 += d;
            f.2 += at_load;
        }
        for (f, least, least_at_load) in [("arcturn", 150, 50), ("claude", 400, 0), ("crab", 50, 50)] {
            let (c, _, at_load) = by_format.get(f).copied().unwrap_or_default();
            assert!(c > least, "{f}: {c} messages counted from their lines");
            assert!(at_load >= least_at_load, "{f}: {at_load} messages counted as they were loaded");
        }
        // The formats that do not count, or that count only after their pass, count nothing
        // at load.
        for f in ["claude", "codex", "pi"] {
            assert_eq!(by_format.get(f).map_or(0, |c| c.2), 0, "{f}");
        }
    }

    /// The blocks whose count takes a path of its own, and the shapes that must fall back to
    /// decoding: escapes, surrogate pairs and a lone surrogate, thinking (redacted too),
    /// tool calls whose arguments are re-serialized, every image shape, nested results,
    /// unknown and malformed blocks, content that is text, null or a number, a message that
    /// is no object, a key written twice.
    #[test]
    fn counting_hostile_blocks_gives_the_characters_of_their_blocks() {
        let blocks = [
            r#""plain text with \"quotes\", \n newlines, \u00e9, caf\u00e9 and \ud83d\ude00""#,
            r#"[{"type":"text","text":"a\tb \ud800 lone"},{"type":"text","text":7}]"#,
            r#"[{"thinking":"after the type? no: before it","type":"thinking","signature":"c2ln"},{"type":"redacted_thinking","data":"eA=="}]"#,
            r#"[{"type":"toolCall","id":"c1","name":"bash","arguments":{"cmd":"ls\u002f","n":1.50,"big":1e300,"u":"\u00e9\ud83d\ude00","z":[true,null,{"a":"\u0001"}]}}]"#,
            r#"[{"type":"tool_use","id":"c2","name":"read","input":{"path":"/tmp/x"}},{"type":"tool_use","name":3}]"#,
            r#"[{"type":"toolCall","name":"no_args"},{"type":"tool_use","name":"null_input","input":null}]"#,
            r#"[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"image","source":{"type":"base64","data":"QQ=="}}]"#,
            r#"[{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"image","url":"https://x/z.png"}]"#,
            r#"[{"type":"image","source":"not an object","url":"https://x/z.png"},{"type":"image","source":{"data":5},"data":"AA"}]"#,
            r#"[{"type":"image","mimeType":"image/png"}]"#,
            r#"[{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"out"},{"type":"thinking","thinking":"nested"}]}]"#,
            r#"[{"type":"tool_result","tool_use_id":"c2","content":"plain \u00e9"},{"type":"tool_result","content":null},{"type":"tool_result"}]"#,
            r#"[{"type":"tool_result","tool_use_id":"c2","content":{"odd":true}}]"#,
            r#"[{"type":"tool_result","content":[{"type":"tool_result","content":[{"type":"text","text":"deep"}]}]}]"#,
            r#"[{"type":"compaction","summary":"folded \u2026"},{"type":"compaction","encryptedContent":"x"}]"#,
            r#"[{"type":"serverTool","provider":"p","block":{"q":"\u00e9","n":[1,2.5]}},{"type":"serverTool"}]"#,
            r#"[{"type":"mystery","x":1}]"#,
            r#"["a bare string"]"#,
            r#"[{"text":"no type"}]"#,
            r#"[{"type":5,"text":"type is a number"}]"#,
            r#"[{"type":"text","text":"twice","text":"written"}]"#,
            r#"null"#,
            r#"42"#,
            r#"{"type":"text","text":"an object, not a list"}"#,
            r#"[]"#,
            r#"[{"type":"text","citations":[{"q":"}]\"{[\\","n":[[],{}]}],"text":"after ignored brackets","cache_control":{"type":"ephemeral"}}]"#,
        ];
        let mut arcturn =
            vec![r#"{"kind":"session","version":1,"id":"s","timestamp":"2026-11-02T09:14:03.463Z"}"#.to_string()];
        let mut claude = Vec::new();
        let mut parent = "null".to_string();
        for (i, c) in blocks.iter().enumerate() {
            for (role, extra) in
                [("user", ""), ("assistant", ""), ("toolResult", r#","toolCallId":"c2","toolName":"read""#)]
            {
                let id = format!("e{i}{role}");
                arcturn.push(format!(
                    r#"{{"kind":"message","id":"{id}","parentId":{parent},"timestamp":"2026-11-02T09:16:20.530Z","message":{{"role":"{role}","content":{c}{extra}}}}}"#
                ));
                parent = format!("\"{id}\"");
            }
        }
        for odd in [
            r#""message":"a string""#,
            r#""message":null"#,
            r#""message":{"role":7,"content":"x"}"#,
            r#""message":{"role":"user"}"#,
        ] {
            let id = format!("o{}", arcturn.len());
            arcturn.push(format!(
                r#"{{"kind":"message","id":"{id}","parentId":{parent},"timestamp":"2026-11-02T09:16:20.530Z",{odd}}}"#
            ));
            parent = format!("\"{id}\"");
        }
        let mut cparent = "null".to_string();
        for (i, c) in blocks.iter().enumerate() {
            for (ty, body) in [
                ("user", format!(r#""message":{{"role":"user","content":{c}}}"#)),
                ("assistant", format!(r#""message":{{"id":"msg_{i}","role":"assistant","model":"m","content":{c}}}"#)),
                ("system", format!(r#""content":{c},"subtype":"x""#)),
                ("user", format!(r#""message":null,"content":{c}"#)),
                ("user", format!(r#""message":"text","content":{c}"#)),
                ("user", format!(r#""message":{{"role":"user","content":null}},"content":{c}"#)),
            ] {
                let id = format!("u{}", claude.len());
                claude.push(format!(
                    r#"{{"parentUuid":{cparent},"isSidechain":false,"sessionId":"s","type":"{ty}","uuid":"{id}","timestamp":"2026-02-11T10:00:01.000Z",{body}}}"#
                ));
                cparent = format!("\"{id}\"");
            }
        }
        // Objects and arrays the count does not read, with brackets and quotes in their strings,
        // before and after the message.
        for (i, c) in blocks.iter().enumerate() {
            let id = format!("t{i}");
            claude.push(format!(
                r#"{{"parentUuid":{cparent},"toolUseResult":{{"stdout":"}}]\"{{[\\","x":[{{"y":"]]]"}}]}},"sessionId":"s","type":"user","uuid":"{id}","timestamp":"2026-02-11T10:00:01.000Z","message":{{"role":"user","content":{c}}},"data":[{{"z":"}}"}}]}}"#
            ));
            cparent = format!("\"{id}\"");
        }
        for (name, lines, format) in [("arcturn", arcturn, "arcturn"), ("claude", claude, "claude")] {
            let src = Source::from_bytes(name, lines.join("\n").into_bytes()).unwrap();
            let s = Session::load(&src, None).unwrap();
            assert_eq!(s.format.as_str(), format);
            let (counted, decoded) = counts_agree(name, &s);
            // Every message counted from its line is counted as the load reads it in a
            // format without a pass (the file has no compaction to stop the count).
            let at_load = counted_at_load(name, &src, &s);
            assert_eq!(at_load, if format == "arcturn" { counted } else { 0 }, "{name}");
            // The shapes that have a count of their own are counted, not decoded: text with
            // escapes (a string and blocks), thinking, tool calls, images, nested results,
            // compaction and server-tool blocks, an empty list, content that is null.
            let must: &[&str] = match format {
                "arcturn" => &[
                    "e0user",
                    "e2assistant",
                    "e3assistant",
                    "e5user",
                    "e6user",
                    "e7user",
                    "e8user",
                    "e10toolResult",
                    "e11user",
                    "e13user",
                    "e14user",
                    "e15user",
                    "e21user",
                    "e24user",
                    "e25user",
                ],
                _ => &[
                    "u0", "u1", "u2", "u12", "u13", "u18", "u19", "u20", "u66", "u67", "u126", "u144", "u150", "t0",
                    "t2", "t25",
                ],
            };
            for id in must {
                let ix = s.entries.iter().position(|e| e.id.to_json() == serde_json::json!(id));
                let ix = ix.unwrap_or_else(|| panic!("{name}: no entry {id}")) as Ix;
                assert!(s.tally(ix).is_some(), "{name}: {id} (line {}) was not counted", s.entry(ix).line);
            }
            assert!(counted > 40 && decoded > 10, "{name}: {counted} counted, {decoded} decoded");
        }
    }

    /// On a path with context edits, the estimate counts the messages whose results no edit
    /// elides and decodes the others (their stubs are counted): at every leaf it is what
    /// decoding every message gives, with results elided by two edits on one branch and by
    /// another on a second, a call without a name (its stub names it as its blocks do: ""),
    /// thinking withheld after the first elided result, and all of it.
    /// On a long branch whose messages a load let go ([`Detail::Counted`]), with compactions
    /// that keep a tail and passes that withhold thinking after the first result they elide
    /// (hundreds, past [`SCAN_BUDGET`], results elided before and after the compactions),
    /// the estimate at every leaf is the one made from every message decoded, nothing
    /// skipped; the passes withhold something.
    #[test]
    fn an_estimate_over_let_go_messages_and_many_passes_is_the_decoded_one() {
        let at = r#""timestamp":"2026-11-02T09:16:20.530Z""#;
        let mut lines = vec![r#"{"kind":"session","version":1,"id":"s"}"#.to_string()];
        let mut parent = "null".to_string();
        let mut push = |lines: &mut Vec<String>, id: String, rest: String| {
            lines.push(format!(r#"{{"id":"{id}","parentId":{parent},{at},{rest}}}"#));
            parent = format!("\"{id}\"");
        };
        for i in 0..1_200 {
            push(
                &mut lines,
                format!("u{i}"),
                format!(r#""kind":"message","message":{{"role":"user","content":"step {i}"}}"#),
            );
            push(
                &mut lines,
                format!("a{i}"),
                format!(
                    r#""kind":"message","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"why {i} \u00e9"}},{{"type":"toolCall","id":"c{i}","name":"bash","arguments":{{"cmd":"ls {i}"}}}}]}}"#
                ),
            );
            push(
                &mut lines,
                format!("r{i}"),
                format!(
                    r#""kind":"message","message":{{"role":"toolResult","toolCallId":"c{i}","content":[{{"type":"text","text":"out {}"}}]}}"#,
                    "x".repeat(i % 37)
                ),
            );
            if i % 5 == 4 {
                // Results of earlier calls: one well back (folded by now, often), one a little
                // back (before the kept tail, still in the context, for the passes in the
                // tail), one near.
                let elided = format!(r#""c{}","c{}","c{}""#, i / 3, i.saturating_sub(150), i - 2);
                push(
                    &mut lines,
                    format!("e{i}"),
                    format!(
                        r#""kind":"state","contextEdit":{{"elided":[{elided}],"withholdThinking":"afterFirstElided"}}"#
                    ),
                );
            }
            if i % 300 == 299 {
                push(
                    &mut lines,
                    format!("k{i}"),
                    format!(
                        r#""kind":"compaction","summary":"so far","upToId":"r{}","tokensBefore":9000,"tokensAfter":900"#,
                        i - 40
                    ),
                );
            }
        }
        // A branch from before the last compaction.
        lines.push(format!(
            r#"{{"kind":"message","id":"side","parentId":"r1000",{at},"message":{{"role":"user","content":"other"}}}}"#
        ));
        let src = Source::from_bytes("t", lines.join("\n").into_bytes()).unwrap();
        let counted =
            Session::load_counted(&src, None, crate::format::Detail::Counted, crate::format::Uses::Unlisted, None)
                .unwrap();
        let full = Session::load(&src, None).unwrap();
        assert!(full.findings.is_empty(), "{:?}", full.findings);
        assert!(counted.entries.iter().filter(|e| e.message.is_none()).count() > 3_000, "the load let the messages go");
        let leaves: Vec<Ix> = full.tree.leaves().collect();
        assert_eq!(leaves.len(), 2);
        for leaf in leaves {
            let path = full.tree.path(leaf);
            let decoded = materialize_with(&full, &path, Skip::Nothing, Mode::Blocks).unwrap();
            assert!(!decoded.withheld_thinking.is_empty());
            assert_eq!(
                estimate_on(&counted, &path).unwrap(),
                decoded.estimated_tokens,
                "leaf {}",
                full.entry(leaf).line
            );
        }
    }

    #[test]
    fn an_estimate_across_context_edits_is_the_decoded_one() {
        let at = "\"timestamp\":\"2026-11-02T09:16:20.530Z\"";
        let msg = |id: &str, parent: &str, body: &str| {
            format!(r#"{{"kind":"message","id":"{id}","parentId":"{parent}",{at},"message":{body}}}"#)
        };
        let call = |id: &str, name: Option<&str>| {
            let name = name.map(|n| format!(r#","name":"{n}""#)).unwrap_or_default();
            format!(
                r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"why \u00e9"}},{{"type":"toolCall","id":"{id}"{name},"arguments":{{"cmd":"ls \"x\""}}}}]}}"#
            )
        };
        let result = |id: &str, name: Option<&str>, text: &str| {
            let name = name.map(|n| format!(r#","toolName":"{n}""#)).unwrap_or_default();
            format!(
                r#"{{"role":"toolResult","toolCallId":"{id}"{name},"content":[{{"type":"text","text":"{text}"}}]}}"#
            )
        };
        let edit = |id: &str, parent: &str, elided: &str, withhold: &str| {
            format!(
                r#"{{"kind":"state","id":"{id}","parentId":"{parent}",{at},"contextEdit":{{"elided":[{elided}],"withholdThinking":"{withhold}"}}}}"#
            )
        };
        let lines = [
            r#"{"kind":"session","version":1,"id":"s","timestamp":"2026-11-02T09:14:03.463Z"}"#.to_string(),
            format!(
                r#"{{"kind":"message","id":"m1","parentId":null,{at},"message":{{"role":"user","content":"fix it"}}}}"#
            ),
            msg("a1", "m1", &call("c1", Some("bash"))),
            msg("r1", "a1", &result("c1", None, r"out one \\ two")),
            msg("a2", "r1", &call("c2", None)),
            msg("r2", "a2", &result("c2", None, r"out \u00e9")),
            msg("a3", "r2", &call("c3", Some("read"))),
            msg("r3", "a3", &result("c3", Some("read"), "three")),
            edit("e1", "r3", r#""c1","c2""#, "afterFirstElided"),
            msg("u2", "e1", r#"{"role":"user","content":"go on"}"#),
            msg("a4", "u2", &call("c4", Some("bash"))),
            msg("r4", "a4", &result("c4", Some("bash"), "four")),
            edit("e2", "r4", r#""c4""#, "all"),
            msg(
                "a5",
                "e2",
                r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"done"}]}"#,
            ),
            msg("b1", "r3", r#"{"role":"user","content":"the other way"}"#),
            edit("e3", "a4", r#""c3""#, "all"),
        ];
        let src = Source::from_bytes("t", lines.join("\n").into_bytes()).unwrap();
        let s = Session::load(&src, None).unwrap();
        assert!(s.findings.is_empty(), "{:?}", s.findings);
        let leaves: Vec<Ix> = s.tree.leaves().collect();
        assert_eq!(leaves.len(), 3);
        for &leaf in &leaves {
            let full = materialize(&s, leaf).unwrap();
            assert_eq!(estimate(&s, leaf).unwrap(), full.estimated_tokens, "leaf {}", s.entry(leaf).line);
        }
        // The main leaf: three results elided, one of them of a call without a name.
        let tip = leaves.iter().copied().find(|&l| s.entry(l).id.to_json() == serde_json::json!("a5")).unwrap();
        let full = materialize(&s, tip).unwrap();
        assert_eq!(full.elided, ["c1", "c2", "c4"]);
        let stubs: Vec<String> = full
            .messages
            .iter()
            .flat_map(|m| &m.blocks)
            .filter_map(|b| match b {
                Block::ToolResult(r) => r.content.first().and_then(|c| match c {
                    Block::Text(t) if t.starts_with("[context-edited") => Some(t.clone()),
                    _ => None,
                }),
                _ => None,
            })
            .collect();
        assert_eq!(stubs.len(), 3, "{stubs:?}");
        assert!(stubs[0].contains(r#"the "bash" result"#) && stubs[1].contains(r#"the "" result"#), "{stubs:?}");
        assert!(full.messages.iter().any(|m| m.thinking_withheld));
    }
}
