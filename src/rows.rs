//! The `rows` view: a session as flat rows for analytical engines (DuckDB, ClickHouse,
//! Spark), one table at a time. Every row is a flat object of scalar columns, and every
//! column of a table is present in every row with one type (null when unknown, never 0 and
//! never another type), so an engine infers one schema from the rows alone. The columns are
//! documented in `docs/schema/rows-<table>.json`.
//!
//! The rows count what `stats` counts, by the same rules: a model call is an assistant
//! message (crab: an `llm_call` observation), a call's cost comes from [`call_cost::of`],
//! and a tool call is counted by `stats` once it has a result (crab: a `tool_call`
//! observation). This module computes rows; `cmd::rows` writes them.

use std::hash::BuildHasher;

use hashbrown::hash_table::{Entry as Slot, HashTable};
use rayon::prelude::*;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::agents::Agent;
use crate::call_cost::{self, CostSource};
use crate::format::FastMap;
use crate::model::{Entry, Format, Id, Kind, Message, Observation, Outcome, Role, Usage};
use crate::prefetch;
use crate::session::Session;
use crate::stats::SessionStats;
use crate::trace::{self, Detail, SpanKind, SpanOutcome, Status};
use crate::tree::Ix;

/// The tables `rows` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Entries,
    Calls,
    Tools,
    Spans,
    Sessions,
}

/// The columns of a row, or of a group of columns rows share ([`Head`], [`Tokens`],
/// [`CostCols`]), written into the row's object in their order.
pub trait Columns {
    /// How many columns.
    const COUNT: usize;
    fn columns<S: SerializeStruct>(&self, s: &mut S) -> Result<(), S::Error>;
    /// The columns as the members of a compact JSON object, each written after a comma
    /// (the bytes [`Columns::columns`] gives through [`crate::render::compact`]): each key
    /// with its quotes, colon and comma is one constant, copied as it is.
    fn members(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

/// `row` as one line of compact JSON, appended to `out`: its members ([`Columns::members`])
/// with the first comma made the object's opening brace. The same bytes as
/// [`crate::render::compact::append`] of the row and a newline.
pub fn compact_line<T: Columns>(out: &mut Vec<u8>, row: &T) -> std::io::Result<()> {
    let start = out.len();
    row.members(out).map_err(std::io::Error::other)?;
    match out.get_mut(start) {
        Some(first) => *first = b'{',
        None => out.push(b'{'),
    }
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// A struct of columns: the struct, its [`Columns`] (its fields through any serializer, and
/// its members as compact JSON with each key a constant), and a `Serialize` that writes it
/// as one flat object. A field marked `@flat` is a group of columns written where it stands. (serde's
/// `#[serde(flatten)]` did the same by writing the whole row as a map, each key through a
/// serializer of its own: about 88 instructions a key, most of what writing a row cost.)
macro_rules! columns {
    (
        $(#[$sm:meta])*
        pub struct $name:ident $(<$lt:lifetime>)? {
            $( $(#[$fm:meta])* $(@$flat:ident)? pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        pub struct $name $(<$lt>)? {
            $( $(#[$fm])* pub $field: $ty ),*
        }

        impl $(<$lt>)? Columns for $name $(<$lt>)? {
            const COUNT: usize = 0 $( + columns!(@count $($flat)? $ty) )*;
            fn columns<S: SerializeStruct>(&self, s: &mut S) -> Result<(), S::Error> {
                $( columns!(@write s, self, $field $(, $flat)?); )*
                Ok(())
            }
            fn members(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
                $( columns!(@member out, self, $field $(, $flat)?); )*
                Ok(())
            }
        }

        impl $(<$lt>)? Serialize for $name $(<$lt>)? {
            fn serialize<Ser: Serializer>(&self, ser: Ser) -> Result<Ser::Ok, Ser::Error> {
                let mut s = ser.serialize_struct(stringify!($name), <Self as Columns>::COUNT)?;
                self.columns(&mut s)?;
                s.end()
            }
        }
    };
    (@count flat $ty:ty) => { <$ty as Columns>::COUNT };
    (@count $ty:ty) => { 1 };
    (@write $s:ident, $self:ident, $field:ident, flat) => { $self.$field.columns($s)? };
    (@write $s:ident, $self:ident, $field:ident) => { $s.serialize_field(stringify!($field), &$self.$field)? };
    (@member $out:ident, $self:ident, $field:ident, flat) => { $self.$field.members($out)? };
    (@member $out:ident, $self:ident, $field:ident) => {{
        $out.extend_from_slice(concat!(",\"", stringify!($field), "\":").as_bytes());
        crate::render::compact::append($out, &$self.$field)?
    }};
}

columns! {
    /// The columns every row starts with.
    #[derive(Clone, Copy)]
    pub struct Head<'s> {
        pub file: &'s str,
        pub format: Format,
        pub agent: Agent,
        pub session_id: Option<&'s str>,
    }
}

/// A time as RFC 3339 UTC with milliseconds (`2026-11-02T09:00:05.002Z`), written without
/// allocating; null when it has no four-digit year (an engine could not read it).
#[derive(Clone, Copy)]
pub struct Stamp(pub Option<i64>);

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.and_then(crate::time::iso_bytes) {
            Some(b) => s.serialize_str(std::str::from_utf8(&b).unwrap_or_default()),
            None => s.serialize_none(),
        }
    }
}

/// An entry id as a string column (crab's integer ids as their digits), written without
/// allocating.
#[derive(Clone, Copy)]
pub struct IdText<'s, 'a>(pub &'s Id<'a>);

impl Serialize for IdText<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.with_text(|t| s.serialize_str(t))
    }
}

columns! {
    /// The token columns of a model call: null when the call recorded no usage.
    #[derive(Clone, Copy, Default)]
    pub struct Tokens {
        pub input_tokens: Option<u64>,
        pub output_tokens: Option<u64>,
        pub cache_read_tokens: Option<u64>,
        pub cache_write_tokens: Option<u64>,
        /// The sum of the four (as `stats` counts it), held at its maximum if it overflows.
        pub total_tokens: Option<u64>,
    }
}

impl Tokens {
    fn of(u: Option<&Usage>) -> Tokens {
        match u {
            Some(u) => Tokens {
                input_tokens: Some(u.input),
                output_tokens: Some(u.output),
                cache_read_tokens: Some(u.cache_read),
                cache_write_tokens: Some(u.cache_write),
                total_tokens: Some(u.parts_total().0),
            },
            None => Tokens::default(),
        }
    }
}

columns! {
    /// `cost` and `cost_source` of a model call (both null on a row that is not one).
    #[derive(Clone, Copy, Default)]
    pub struct CostCols {
        pub cost: Option<f64>,
        pub cost_source: Option<&'static str>,
    }
}

impl CostCols {
    fn of(u: Option<&Usage>, provider: Option<&str>, model: Option<&str>) -> CostCols {
        Self::from(call_cost::of(u, provider, model))
    }

    /// An observed call's (crab `llm_call`), billed as `stats` bills it.
    fn observed(u: Option<&Usage>, provider: Option<&str>, model: Option<&str>) -> CostCols {
        Self::from(call_cost::of_observed(u, provider, model))
    }

    fn from(c: call_cost::Cost) -> CostCols {
        CostCols { cost: c.dollars, cost_source: Some(c.source.as_str()) }
    }
}

columns! {
    pub struct EntryRow<'s> {
        @flat pub head: Head<'s>,
        pub entry_id: IdText<'s, 's>,
        pub parent_id: Option<IdText<'s, 's>>,
        pub synthetic_id: bool,
        pub line: u32,
        pub timestamp: Stamp,
        pub timestamp_ms: Option<i64>,
        pub kind: Kind,
        pub kind_name: &'s str,
        pub role: Option<Role>,
        pub role_name: Option<&'s str>,
        pub provider: Option<&'s str>,
        pub model: Option<&'s str>,
        pub stop_reason: Option<&'s str>,
        pub model_call: bool,
        @flat pub tokens: Tokens,
        @flat pub cost: CostCols,
        pub tool_calls: u32,
        pub tool_results: u32,
        pub tool_errors: u32,
        pub depth: u32,
        pub on_latest_path: bool,
        pub is_leaf: bool,
    }
}

columns! {
    pub struct CallRow<'s> {
        @flat pub head: Head<'s>,
        /// Position among the session's calls, from 0.
        pub call_index: u64,
        pub entry_id: Option<IdText<'s, 's>>,
        pub run_id: Option<&'s str>,
        pub line: u32,
        pub timestamp: Stamp,
        pub timestamp_ms: Option<i64>,
        pub provider: Option<&'s str>,
        pub model: Option<&'s str>,
        pub stop_reason: Option<&'s str>,
        pub outcome: &'static str,
        pub duration_ms: Option<u64>,
        @flat pub tokens: Tokens,
        @flat pub cost: CostCols,
    }
}

columns! {
    pub struct ToolRow<'s> {
        @flat pub head: Head<'s>,
        /// Position among the session's tool rows, from 0.
        pub tool_index: u64,
        pub tool: Option<&'s str>,
        pub call_id: Option<&'s str>,
        pub outcome: &'static str,
        pub is_error: bool,
        pub counted: bool,
        pub line: u32,
        pub timestamp: Stamp,
        pub timestamp_ms: Option<i64>,
        pub duration_ms: Option<u64>,
        pub call_entry_id: Option<IdText<'s, 's>>,
        pub call_line: Option<u32>,
        pub result_entry_id: Option<IdText<'s, 's>>,
        pub result_line: Option<u32>,
        pub run_id: Option<&'s str>,
        pub call_seq: Option<u64>,
        pub bytes_in: Option<u64>,
        pub bytes_out: Option<u64>,
        pub offloaded: Option<bool>,
    }
}

columns! {
    pub struct SpanRow<'s> {
        @flat pub head: Head<'s>,
        pub run_id: Option<JsonText<'s>>,
        pub run_index: u64,
        pub span_index: Option<u64>,
        pub span_kind: &'static str,
        pub name: Option<&'s str>,
        pub status: &'static str,
        pub error: Option<&'s str>,
        pub start: Stamp,
        pub end: Stamp,
        pub start_ms: Option<i64>,
        pub end_ms: Option<i64>,
        pub duration_ms: Option<u64>,
        pub line: u32,
        pub entry_id: Option<IdText<'s, 's>>,
        pub provider: Option<&'s str>,
        pub model: Option<&'s str>,
        pub tool: Option<&'s str>,
        pub tool_call_id: Option<&'s str>,
        pub stop_reason: Option<&'s str>,
        @flat pub tokens: Tokens,
        @flat pub cost: CostCols,
        pub llm_calls: Option<u64>,
        pub tool_calls: Option<u64>,
        pub errors: Option<u64>,
    }
}

columns! {
    pub struct SessionRow<'s> {
        @flat pub head: Head<'s>,
        pub title: Option<String>,
        pub cwd: Option<&'s str>,
        pub forked_from: Option<&'s str>,
        pub created: Stamp,
        pub first: Stamp,
        pub last: Stamp,
        pub first_ms: Option<i64>,
        pub last_ms: Option<i64>,
        pub bytes: u64,
        pub lines: u64,
        pub entries: u64,
        pub observations: u64,
        pub runs: u64,
        pub user_messages: u64,
        pub assistant_messages: u64,
        pub tool_result_messages: u64,
        pub system_messages: u64,
        pub other_messages: u64,
        pub calls: u64,
        pub input_tokens: u64,
        pub output_tokens: u64,
        pub cache_read_tokens: u64,
        pub cache_write_tokens: u64,
        pub total_tokens: u64,
        pub cost: Option<f64>,
        pub cost_source: &'static str,
        pub cost_lower_bound: Option<f64>,
        pub calls_with_cost: u64,
        pub usage_overflow: bool,
        pub branch_entries: u64,
        pub branch_total_tokens: Option<u64>,
        pub context_tokens: Option<u64>,
        pub context_source: crate::stats::ContextSource,
        pub tool_calls: u64,
        pub tool_errors: u64,
        pub compactions: u64,
        pub leaves: u64,
        pub max_depth: u64,
    }
}

/// A tool call or result, paired: what one tool row describes.
#[derive(Clone, Copy)]
pub enum ToolSrc {
    /// A call (entry, call index) and its result (entry, result index), either may be missing
    /// but not both.
    Pair { call: Option<(Ix, u32)>, result: Option<(Ix, u32)> },
    /// A crab `tool_call` observation.
    Observed(u32),
}

/// A model call: an assistant entry or a crab `llm_call` observation.
#[derive(Clone, Copy)]
pub enum CallSrc {
    Entry(Ix),
    Observed(u32),
}

/// One session, ready to be turned into rows of any table.
pub struct Rows<'s, 'a> {
    s: &'s Session<'a>,
    head: Head<'s>,
    /// Entries on the path to the latest entry (a bit per entry).
    latest: Vec<u64>,
}

impl<'s, 'a> Rows<'s, 'a> {
    pub fn new(s: &'s Session<'a>) -> Rows<'s, 'a> {
        let mut latest = vec![0u64; s.entries.len().div_ceil(64)];
        if let Some(tip) = s.tree.latest() {
            for i in s.tree.path(tip) {
                latest[i as usize / 64] |= 1 << (i % 64);
            }
        }
        let head = Head {
            file: s.name(),
            format: s.format,
            agent: Agent::of_format(s.format),
            session_id: s.header.as_ref().and_then(|h| h.id.as_deref()),
        };
        Rows { s, head, latest }
    }

    pub fn entries(&self) -> usize {
        self.s.entries.len()
    }

    /// The row of entry `i` (file order).
    pub fn entry(&self, i: Ix) -> EntryRow<'s> {
        let s = self.s;
        let e: &'s Entry<'a> = s.entry(i);
        let m = e.message.as_deref();
        let call = m.is_some_and(|m| m.role == Role::Assistant) && !s.observed;
        let u = m.and_then(|m| m.usage()).filter(|_| call);
        let (provider, model) = (m.and_then(|m| m.provider()), m.and_then(|m| m.model()));
        EntryRow {
            head: self.head,
            entry_id: IdText(&e.id),
            parent_id: s.parent_id(i).map(IdText),
            synthetic_id: e.synthetic_id(),
            line: e.line,
            timestamp: Stamp(entry_time(e)),
            timestamp_ms: entry_time(e),
            kind: e.kind(),
            kind_name: e.kind_name(),
            role: m.map(|m| m.role),
            role_name: m.map(|m| m.role_name()),
            provider,
            model,
            stop_reason: m.and_then(|m| m.stop_reason()),
            model_call: call,
            tokens: Tokens::of(u),
            cost: if call { CostCols::of(u, provider, model) } else { CostCols::default() },
            tool_calls: m.map_or(0, |m| m.tool_calls.len() as u32),
            tool_results: m.map_or(0, |m| m.tool_results.len() as u32),
            tool_errors: m.map_or(0, |m| m.tool_results.iter().filter(|r| r.is_error).count() as u32),
            depth: s.tree.depth(i),
            on_latest_path: self.latest[i as usize / 64] & (1 << (i % 64)) != 0,
            is_leaf: s.tree.children(i).is_empty(),
        }
    }

    /// The session's model calls, in file order: the calls table has a row for each
    /// ([`Rows::call`]).
    pub fn call_sources(&self) -> Vec<CallSrc> {
        let s = self.s;
        if s.observed {
            let obs = s.observations.iter().enumerate();
            return obs.filter(|(_, o)| o.tag == "llm_call").map(|(k, _)| CallSrc::Observed(k as u32)).collect();
        }
        let ents = s.entries.iter().enumerate();
        ents.filter(|(_, e)| e.message.as_ref().is_some_and(|m| m.role == Role::Assistant))
            .map(|(i, _)| CallSrc::Entry(i as Ix))
            .collect()
    }

    /// The calls table's row of the `k`th call, `c`.
    pub fn call(&self, k: usize, c: CallSrc) -> CallRow<'s> {
        let s = self.s;
        match c {
            CallSrc::Entry(i) => {
                let e: &'s Entry<'a> = s.entry(i);
                let m = e.message.as_deref();
                let (provider, model, u) =
                    (m.and_then(|m| m.provider()), m.and_then(|m| m.model()), m.and_then(|m| m.usage()));
                let stop_reason = m.and_then(|m| m.stop_reason());
                let at = entry_time(e);
                let since = s.tree.parent(i).and_then(|p| entry_time(s.entry(p)));
                CallRow {
                    head: self.head,
                    call_index: k as u64,
                    entry_id: Some(IdText(&e.id)),
                    run_id: None,
                    line: e.line,
                    timestamp: Stamp(at),
                    timestamp_ms: at,
                    provider,
                    model,
                    stop_reason,
                    outcome: match stop_reason {
                        Some("error") => "error",
                        Some("aborted") => "aborted",
                        _ => "ok",
                    },
                    duration_ms: elapsed(since, at),
                    tokens: Tokens::of(u),
                    cost: CostCols::of(u, provider, model),
                }
            }
            CallSrc::Observed(k_obs) => {
                let o: &'s Observation<'a> = &s.observations[k_obs as usize];
                let (provider, model, u) = (o.provider.as_deref(), o.model.as_deref(), o.usage.as_ref());
                CallRow {
                    head: self.head,
                    call_index: k as u64,
                    entry_id: None,
                    run_id: o.run_id.as_deref(),
                    line: o.line,
                    timestamp: Stamp(o.ts),
                    timestamp_ms: o.ts,
                    provider,
                    model,
                    stop_reason: o.stop_reason.as_deref(),
                    outcome: outcome_name(o.outcome.as_ref()),
                    duration_ms: o.duration_ms,
                    tokens: Tokens::of(u),
                    cost: CostCols::observed(u, provider, model),
                }
            }
        }
    }

    /// Tool calls paired with their results by call id (file-wide, as [`crate::pairing`]
    /// does): a result takes the first call of its id not taken yet; a call no result takes
    /// and a result no call is there for make rows of their own. Ordered by the line of the
    /// call (a lone result: its own line).
    pub fn tool_sources(&self) -> Vec<ToolSrc> {
        let s = self.s;
        if s.observed {
            let obs = s.observations.iter().enumerate();
            return obs.filter(|(_, o)| o.tag == "tool_call").map(|(k, _)| ToolSrc::Observed(k as u32)).collect();
        }
        static STATE: std::sync::LazyLock<foldhash::fast::RandomState> = std::sync::LazyLock::new(Default::default);
        let paired = pair_hashed(s, |id| STATE.hash_one(id)).unwrap_or_else(|| pair_exact(s));
        let mut out: Vec<(u32, ToolSrc)> = paired
            .calls
            .into_iter()
            .zip(paired.result_of)
            .map(|(c, r)| (s.entry(c.0).line, ToolSrc::Pair { call: Some(c), result: r }))
            .collect();
        out.extend(paired.lone.into_iter().map(|r| (s.entry(r.0).line, ToolSrc::Pair { call: None, result: Some(r) })));
        out.sort_by_key(|(line, _)| *line);
        out.into_iter().map(|(_, t)| t).collect()
    }

    /// The tools table's row of the `k`th tool call or result, `src`.
    pub fn tool(&self, k: usize, src: ToolSrc) -> ToolRow<'s> {
        let s = self.s;
        match src {
            ToolSrc::Pair { call, result } => {
                let ce: Option<&'s Entry<'a>> = call.map(|(i, _)| s.entry(i));
                let cm = ce.and_then(|e| e.message.as_deref());
                let c = call.and_then(|(_, j)| cm?.tool_calls.get(j as usize));
                let re: Option<&'s Entry<'a>> = result.map(|(i, _)| s.entry(i));
                let r = result.and_then(|(_, j)| re?.message.as_deref()?.tool_results.get(j as usize));
                let outcome = match r {
                    Some(r) if r.is_error => "error",
                    Some(_) => "ok",
                    None if cm.is_some_and(|m| m.tools_ran()) => "missing_result",
                    None => "not_run",
                };
                let (ct, rt) = (ce.and_then(entry_time), re.and_then(entry_time));
                let at = if ce.is_some() { ct } else { rt };
                let first = ce.or(re).expect("a tool row has a call or a result");
                ToolRow {
                    head: self.head,
                    tool_index: k as u64,
                    // What `stats` groups by: the name the result gives, else the call's.
                    tool: match r {
                        Some(r) => r.tool_name.as_deref(),
                        None => c.and_then(|c| c.name.as_deref()),
                    },
                    call_id: c.and_then(|c| c.id.as_deref()).or_else(|| r.and_then(|r| r.call_id.as_deref())),
                    outcome,
                    is_error: outcome == "error",
                    counted: r.is_some(),
                    line: first.line,
                    timestamp: Stamp(at),
                    timestamp_ms: at,
                    duration_ms: if ce.is_some() { elapsed(ct, rt) } else { None },
                    call_entry_id: ce.map(|e| IdText(&e.id)),
                    call_line: ce.map(|e| e.line),
                    result_entry_id: re.map(|e| IdText(&e.id)),
                    result_line: re.map(|e| e.line),
                    run_id: None,
                    call_seq: None,
                    bytes_in: None,
                    bytes_out: None,
                    offloaded: r.map(|r| r.offloaded_path.is_some()),
                }
            }
            ToolSrc::Observed(k_obs) => {
                let o: &'s Observation<'a> = &s.observations[k_obs as usize];
                let outcome = outcome_name(o.outcome.as_ref());
                ToolRow {
                    head: self.head,
                    tool_index: k as u64,
                    tool: o.tool.as_deref(),
                    call_id: None,
                    outcome,
                    is_error: outcome == "error",
                    counted: true,
                    line: o.line,
                    timestamp: Stamp(o.ts),
                    timestamp_ms: o.ts,
                    duration_ms: o.duration_ms,
                    call_entry_id: None,
                    call_line: None,
                    result_entry_id: None,
                    result_line: None,
                    run_id: o.run_id.as_deref(),
                    call_seq: o.call_seq,
                    bytes_in: o.bytes_in,
                    bytes_out: o.bytes_out,
                    offloaded: None,
                }
            }
        }
    }

    /// The trace of the session (crab: its runs; the others: the branch to the latest
    /// entry), to be turned into rows with [`Rows::run_rows`]: without the prompts and tool
    /// arguments, which no row shows ([`trace::Texts::Errors`]).
    pub fn trace(&self) -> trace::Trace<'s> {
        trace::trace_with(self.s, None, trace::Texts::Errors)
    }

    /// The spans table's rows of the run `run`, the `ri`th of its trace: a row for the run,
    /// then a row per span of it.
    pub fn run_rows<'t>(&self, ri: usize, run: &'t trace::Run<'s>) -> Vec<SpanRow<'t>>
    where
        's: 't,
    {
        let mut out = Vec::with_capacity(run.spans.len() + 1);
        let run_id = JsonText::of(&run.run_id);
        let end = run.start_ms.zip(run.duration_ms).map(|(a, d)| a.saturating_add(d as i64));
        let u = Usage { total: None, cost: None, ..run.usage };
        // Each model call priced once, from its usage as recorded (a call that recorded none
        // has null tokens), as the calls table prices it: as observed when the trace is of
        // observations (crab's, the trace of an observed session). Its row shows its cost;
        // the run's row their sum.
        let price = if self.s.observed { call_cost::of_observed } else { call_cost::of };
        let costs: Vec<Option<call_cost::Cost>> = run
            .spans
            .iter()
            .map(|sp| match sp.detail {
                Detail::Llm { provider, model, usage, .. } => Some(price(usage.0, provider, model)),
                _ => None,
            })
            .collect();
        let run_cost = costs.iter().flatten().fold(None, |a, c| crate::model::add_cost(a, c.dollars).0);
        out.push(SpanRow {
            head: self.head,
            run_id,
            run_index: ri as u64,
            span_index: None,
            span_kind: "run",
            name: None,
            status: match run.status {
                Status::Complete => "complete",
                Status::Interrupted => "interrupted",
                Status::Open => "open",
            },
            error: None,
            start: Stamp(run.start_ms),
            end: Stamp(end),
            start_ms: run.start_ms,
            end_ms: end,
            duration_ms: run.duration_ms,
            line: run.line,
            entry_id: None,
            provider: None,
            model: None,
            tool: None,
            tool_call_id: None,
            stop_reason: run.stop_reason.as_deref(),
            tokens: Tokens::of(Some(&u)),
            cost: CostCols {
                cost: run_cost,
                cost_source: call_cost::source_of_sum(costs.iter().flatten().map(|c| c.source)).map(CostSource::as_str),
            },
            llm_calls: Some(run.llm_calls),
            tool_calls: Some(run.tool_calls),
            errors: Some(run.errors),
        });
        for ((si, sp), cost) in run.spans.iter().enumerate().zip(costs) {
            let end = sp.end_ms().filter(|_| sp.duration_ms.is_some());
            let mut row = SpanRow {
                head: self.head,
                run_id,
                run_index: ri as u64,
                span_index: Some(si as u64),
                span_kind: match sp.kind {
                    SpanKind::LlmCall => "llm_call",
                    SpanKind::ToolCall => "tool_call",
                    SpanKind::Event => "event",
                },
                name: None,
                status: match sp.outcome {
                    SpanOutcome::Ok => "ok",
                    SpanOutcome::Aborted => "aborted",
                    SpanOutcome::Error => "error",
                },
                error: sp.error.as_deref(),
                start: Stamp(sp.start_ms),
                end: Stamp(end),
                start_ms: sp.start_ms,
                end_ms: end,
                duration_ms: sp.duration_ms,
                line: sp.line,
                entry_id: sp.entry_id.map(IdText),
                provider: None,
                model: None,
                tool: None,
                tool_call_id: None,
                stop_reason: None,
                tokens: Tokens::default(),
                cost: cost.map(CostCols::from).unwrap_or_default(),
                llm_calls: None,
                tool_calls: None,
                errors: None,
            };
            match &sp.detail {
                &Detail::Llm { provider, model, stop_reason, usage, .. } => {
                    row.name = model;
                    row.provider = provider;
                    row.model = model;
                    row.stop_reason = stop_reason;
                    row.tokens = Tokens::of(usage.0);
                }
                &Detail::Tool { tool, tool_call_id, .. } => {
                    row.name = tool;
                    row.tool = tool;
                    row.tool_call_id = tool_call_id;
                }
                Detail::Event { obs, .. } => row.name = Some(obs),
            }
            out.push(row);
        }
        out
    }

    /// The sessions table's row: `stats` figures (file scope) of the session.
    pub fn session(&self) -> SessionRow<'s> {
        let s = self.s;
        let st = SessionStats::of(s, &crate::stats::Options::default());
        let h = s.header.as_ref();
        let calls = self.call_sources().into_iter().enumerate();
        let with_cost = calls.filter(|&(k, c)| self.call(k, c).cost.cost.is_some()).count() as u64;
        SessionRow {
            head: self.head,
            title: h.and_then(|h| h.title.as_ref()).map(|t| t.decode()),
            cwd: h.and_then(|h| h.cwd.as_deref()),
            forked_from: h.and_then(|h| h.origin.as_deref()),
            created: Stamp(s.created()),
            first: Stamp(st.first_ms),
            last: Stamp(st.last_ms),
            first_ms: st.first_ms,
            last_ms: st.last_ms,
            bytes: st.bytes,
            lines: st.lines,
            entries: st.entries,
            observations: st.observations,
            runs: st.runs,
            user_messages: st.messages.user,
            assistant_messages: st.messages.assistant,
            tool_result_messages: st.messages.tool_result,
            system_messages: st.messages.system,
            other_messages: st.messages.other,
            calls: st.usage.calls,
            input_tokens: st.usage.input,
            output_tokens: st.usage.output,
            cache_read_tokens: st.usage.cache_read,
            cache_write_tokens: st.usage.cache_write,
            total_tokens: st.usage.total,
            cost: st.usage.cost.map(crate::stats::round_cost),
            cost_source: st.usage.cost_source.map_or("unknown", CostSource::as_str),
            cost_lower_bound: st.usage.cost_lower_bound.map(crate::stats::round_cost),
            calls_with_cost: with_cost,
            usage_overflow: st.usage.usage_overflow,
            branch_entries: st.branch.entries,
            branch_total_tokens: st.branch.usage.map(|u| u.total),
            context_tokens: st.context.tokens,
            context_source: st.context.source,
            tool_calls: st.tool_calls.iter().map(|t| t.calls).sum(),
            tool_errors: st.tool_calls.iter().map(|t| t.errors).sum(),
            compactions: st.compactions.count,
            leaves: st.leaves,
            max_depth: st.max_depth,
        }
    }
}

/// An entry's time: its own, else its message's.
fn entry_time(e: &Entry<'_>) -> Option<i64> {
    e.timestamp.get().or_else(|| e.message.as_ref().and_then(|m| m.timestamp.get()))
}

/// Milliseconds from `a` to `b`, when both are known and in order.
fn elapsed(a: Option<i64>, b: Option<i64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) if b >= a => Some((b - a) as u64),
        _ => None,
    }
}

/// A crab outcome as a column value (an unrecognized one counts as an error, as in `stats`).
fn outcome_name(o: Option<&Outcome<'_>>) -> &'static str {
    match o {
        None | Some(Outcome::Ok) => "ok",
        Some(Outcome::Aborted) => "aborted",
        Some(Outcome::Error(_) | Outcome::Other(_)) => "error",
    }
}

/// A JSON value as a text column: a string as it is, null as null, any other value (a
/// number) as its JSON text.
#[derive(Clone, Copy)]
pub struct JsonText<'t>(&'t serde_json::Value);

impl<'t> JsonText<'t> {
    fn of(v: &'t serde_json::Value) -> Option<Self> {
        (!v.is_null()).then_some(JsonText(v))
    }
}

impl Serialize for JsonText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            serde_json::Value::String(t) => s.serialize_str(t),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

/// A session's tool calls (entry, index among its message's calls) in file order, the
/// result each was paired with, and the results no call was there for.
#[derive(Debug, PartialEq)]
struct Paired {
    calls: Vec<(Ix, u32)>,
    result_of: Vec<Option<(Ix, u32)>>,
    lone: Vec<(Ix, u32)>,
}

/// No call follows in [`pair_exact`]'s and [`pair_hashed`]'s lists.
const NONE: usize = usize::MAX;

/// The session's calls and results paired by the text of their ids, on one thread.
fn pair_exact(s: &Session<'_>) -> Paired {
    // Each id's calls not taken yet, in file order: the first and the last in `by_id`, the
    // one after each in `later` (`NONE` after the last). The ids are in the lines, read long
    // before: each is asked for ahead ([`prefetch`]).
    let mut calls: Vec<(Ix, u32)> = Vec::new();
    let mut later: Vec<usize> = Vec::new();
    let mut by_id: FastMap<&str, (usize, usize)> = FastMap::default();
    for (i, e) in s.entries.iter().enumerate() {
        if let Some(m) = prefetch::message_ahead(&s.entries, i) {
            m.tool_calls.iter().filter_map(|c| c.id.as_deref()).for_each(prefetch::text);
        }
        let Some(m) = &e.message else { continue };
        for (j, c) in m.tool_calls.iter().enumerate() {
            let k = calls.len();
            later.push(NONE);
            if let Some(id) = c.id.as_deref() {
                let (_, last) = by_id.entry(id).or_insert((k, k));
                if *last != k {
                    later[*last] = k;
                    *last = k;
                }
            }
            calls.push((i as Ix, j as u32));
        }
    }
    let mut result_of: Vec<Option<(Ix, u32)>> = vec![None; calls.len()];
    let mut lone: Vec<(Ix, u32)> = Vec::new();
    for (i, e) in s.entries.iter().enumerate() {
        if let Some(m) = prefetch::message_ahead(&s.entries, i) {
            m.tool_results.iter().filter_map(|r| r.call_id.as_deref()).for_each(prefetch::text);
        }
        let Some(m) = &e.message else { continue };
        for (j, r) in m.tool_results.iter().enumerate() {
            let taken = r.call_id.as_deref().and_then(|id| {
                let (first, _) = by_id.get_mut(id)?;
                let c = *first;
                *first = *later.get(c)?;
                Some(c)
            });
            match taken {
                Some(c) => result_of[c] = Some((i as Ix, j as u32)),
                None => lone.push((i as Ix, j as u32)),
            }
        }
    }
    Paired { calls, result_of, lone }
}

/// The `j`th call or result of a message, if it has one, and its id, if it has one.
type IdAt = for<'m> fn(&'m Message<'m>, usize) -> Option<Option<&'m str>>;

/// Each call or result of the session's messages (`id_at`), in file order: its entry, its
/// place in its message's list, the hash of its id. Hashed on every worker.
fn hashed_ids(s: &Session<'_>, hash: &(impl Fn(&str) -> u64 + Sync), id_at: IdAt) -> Vec<(Ix, u32, Option<u64>)> {
    s.entries
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, e)| {
            let m = e.message.as_deref();
            (0..).map_while(move |j| Some((j, id_at(m?, j)?))).map(move |(j, id)| (i as Ix, j as u32, id.map(hash)))
        })
        .collect()
}

/// [`pair_exact`]'s pairing, made from the ids' hashes (`hash`), which every worker works out
/// for its share of the entries: the thread that pairs reads no id (each a cache miss into
/// the file) and compares none (`rows --table tools` over the 1 GiB bench file: 100 ms on
/// one thread, with [`pair_exact`]). Then every pair's two ids are compared, on every
/// worker; `None` if any differ (two ids of one hash), for [`pair_exact`] to pair them.
///
/// When every pair's ids are equal, the pairing is [`pair_exact`]'s: a result takes the first
/// call not taken of its hash; one of its id would be of its hash too, so none comes before,
/// and the calls taken so far are the same in both.
fn pair_hashed(s: &Session<'_>, hash: impl Fn(&str) -> u64 + Sync) -> Option<Paired> {
    let hash = &hash;
    let calls = hashed_ids(s, hash, |m, j| m.tool_calls.get(j).map(|c| c.id.as_deref()));
    let results = hashed_ids(s, hash, |m, j| m.tool_results.get(j).map(|r| r.call_id.as_deref()));
    // Each hash's calls not taken yet, as in [`pair_exact`]: the first and the last beside
    // the hash, the one after each in `later`.
    let mut later = vec![NONE; calls.len()];
    let mut by_hash: HashTable<(u64, usize, usize)> = HashTable::with_capacity(calls.len());
    for (k, &(_, _, h)) in calls.iter().enumerate() {
        let Some(h) = h else { continue };
        match by_hash.entry(h, |t| t.0 == h, |t| t.0) {
            Slot::Occupied(mut o) => {
                let last = &mut o.get_mut().2;
                later[*last] = k;
                *last = k;
            }
            Slot::Vacant(v) => {
                v.insert((h, k, k));
            }
        }
    }
    let mut result_of: Vec<Option<(Ix, u32)>> = vec![None; calls.len()];
    let mut lone: Vec<(Ix, u32)> = Vec::new();
    for &(i, j, h) in &results {
        let taken = h.and_then(|h| {
            let t = by_hash.find_mut(h, |t| t.0 == h)?;
            let c = t.1;
            t.1 = *later.get(c)?;
            Some(c)
        });
        match taken {
            Some(c) => result_of[c] = Some((i, j)),
            None => lone.push((i, j)),
        }
    }
    let calls: Vec<(Ix, u32)> = calls.into_iter().map(|(i, j, _)| (i, j)).collect();
    let call_id = |(i, j): (Ix, u32)| s.entry(i).message.as_ref()?.tool_calls.get(j as usize)?.id.as_deref();
    let result_id = |(i, j): (Ix, u32)| s.entry(i).message.as_ref()?.tool_results.get(j as usize)?.call_id.as_deref();
    let same = calls.par_iter().zip(&result_of).all(|(&c, r)| r.is_none_or(|r| call_id(c) == result_id(r)));
    same.then_some(Paired { calls, result_of, lone })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_rfc3339_utc_and_null_outside_four_digit_years() {
        let j = |ms| serde_json::to_string(&Stamp(ms)).unwrap();
        assert_eq!(j(Some(1_793_610_980_530)), r#""2026-11-02T09:16:20.530Z""#);
        assert_eq!(j(Some(0)), r#""1970-01-01T00:00:00.000Z""#);
        assert_eq!(j(Some(-1)), r#""1969-12-31T23:59:59.999Z""#);
        assert_eq!(j(Some(253_402_300_799_999)), r#""9999-12-31T23:59:59.999Z""#);
        assert_eq!(j(Some(253_402_300_800_000)), "null");
        assert_eq!(j(Some(i64::MIN)), "null");
        assert_eq!(j(None), "null");
    }

    /// A session of calls and results whose ids repeat, are missing or are answered by no
    /// call, in a shuffled order (a made-up generator, the same each run).
    fn tangled_tools() -> String {
        let mut x: u64 = 7;
        let mut next = |n: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % n
        };
        let id = |k: u64| if k == 9 { String::new() } else { format!(r#""id":"c{k}","#) };
        let mut lines = vec![r#"{"kind":"session","version":1,"id":"s"}"#.to_string()];
        for i in 0..400 {
            let parent = if i == 0 { "null".to_string() } else { format!("\"e{}\"", i - 1) };
            let message = if next(2) == 0 {
                let calls: Vec<String> = (0..next(4))
                    .map(|_| format!(r#"{{"type":"toolCall",{}"name":"t","arguments":{{}}}}"#, id(next(10))))
                    .collect();
                format!(r#"{{"role":"assistant","content":[{}],"stopReason":"toolUse"}}"#, calls.join(","))
            } else {
                format!(r#"{{"role":"toolResult","toolCallId":"c{}","toolName":"t","content":"x"}}"#, next(12))
            };
            lines.push(format!(r#"{{"kind":"message","id":"e{i}","parentId":{parent},"message":{message}}}"#));
        }
        lines.join("\n")
    }

    #[test]
    fn calls_paired_by_the_hashes_of_their_ids_are_paired_as_by_the_ids() {
        let src = crate::source::Source::from_bytes("t.jsonl", tangled_tools().into_bytes()).unwrap();
        let s = Session::load(&src, None).unwrap();
        let exact = pair_exact(&s);
        assert!(
            exact.calls.len() > 200 && exact.lone.len() > 20,
            "{} calls, {} lone",
            exact.calls.len(),
            exact.lone.len()
        );
        assert!(exact.result_of.iter().filter(|r| r.is_some()).count() > 100);
        let state = foldhash::fast::RandomState::default();
        assert_eq!(pair_hashed(&s, |id| state.hash_one(id)), Some(exact));
        // Ids of one hash paired, their texts differing: no pairing from the hashes.
        assert_eq!(pair_hashed(&s, |id| id.len() as u64), None);
        assert_eq!(pair_hashed(&s, |_| 0), None);
    }

    /// A session of one message calling `calls` (ids), then one result for each of `results`.
    fn calls_then_results(calls: &[&str], results: &[&str]) -> String {
        let calls: Vec<String> =
            calls.iter().map(|c| format!(r#"{{"type":"toolCall","id":"{c}","name":"t","arguments":{{}}}}"#)).collect();
        let mut lines = vec![
            r#"{"kind":"session","version":1,"id":"s"}"#.to_string(),
            format!(
                r#"{{"kind":"message","id":"e0","parentId":null,"message":{{"role":"assistant","content":[{}]}}}}"#,
                calls.join(",")
            ),
        ];
        for (i, r) in results.iter().enumerate() {
            lines.push(format!(
                r#"{{"kind":"message","id":"r{i}","parentId":"e0","message":{{"role":"toolResult","toolCallId":"{r}","toolName":"t","content":"x"}}}}"#
            ));
        }
        lines.join("\n")
    }

    /// All ids of one hash: the pairing from the hashes stands when no pair joins two ids,
    /// and is then the exact one; it is refused when one does.
    #[test]
    fn ids_of_one_hash_are_paired_from_it_only_when_no_pair_joins_two_ids() {
        for (calls, results, stands) in [
            (&["d", "d", "d"][..], &["d", "d", "d", "d"][..], true),
            (&["a", "b"][..], &["a", "b"][..], true),
            (&["a", "b", "a"][..], &["a", "b", "a", "c"][..], true),
            (&["a", "b"][..], &["b"][..], false),
            (&["a", "b"][..], &["b", "a"][..], false),
        ] {
            let src =
                crate::source::Source::from_bytes("t.jsonl", calls_then_results(calls, results).into_bytes()).unwrap();
            let s = Session::load(&src, None).unwrap();
            let exact = pair_exact(&s);
            assert_eq!(exact.calls.len(), calls.len());
            let hashed = pair_hashed(&s, |_| 0);
            assert_eq!(hashed.is_some(), stands, "{calls:?} {results:?}");
            assert!(hashed.is_none_or(|h| h == exact), "{calls:?} {results:?}");
        }
    }

    #[test]
    fn ids_are_string_columns_whatever_their_type_in_the_file() {
        let j = |id: &Id<'_>| serde_json::to_string(&IdText(id)).unwrap();
        assert_eq!(j(&Id::Int(u64::MAX)), r#""18446744073709551615""#);
        assert_eq!(j(&Id::Int(3)), r#""3""#);
        assert_eq!(j(&Id::copied("a\"b")), r#""a\"b""#);
    }

    /// Each row is one flat object of its table's columns, the same value from the compact
    /// writer (the same bytes as the line the view writes) and from serde_json (which starts
    /// an object by the count of its columns), over every bundled and real session.
    #[test]
    fn rows_are_flat_objects_of_their_columns_in_either_writer() {
        fn same<T: Serialize + Columns>(row: &T, rows: &mut usize) {
            let mut compact = Vec::new();
            crate::render::compact::append(&mut compact, row).unwrap();
            // The view writes each row's members with their keys as constants.
            let mut line = Vec::new();
            super::compact_line(&mut line, row).unwrap();
            assert_eq!(line.strip_suffix(b"\n"), Some(&compact[..]), "{}", String::from_utf8_lossy(&line));
            let json = serde_json::to_string(row).unwrap();
            // (The compact writer escapes more: control, invisible and bidi characters.)
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::from_slice::<serde_json::Value>(&compact).unwrap(), value, "{json}");
            let object = value.as_object().unwrap();
            assert_eq!(object.len(), T::COUNT, "{json}");
            assert!(object.values().all(|v| !v.is_object() && !v.is_array()), "{json}");
            *rows += 1;
        }
        let mut rows = 0;
        for p in crate::test_corpus::session_files() {
            let Ok(src) = crate::source::Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            let r = Rows::new(&s);
            for i in 0..r.entries() {
                same(&r.entry(i as Ix), &mut rows);
            }
            for (k, c) in r.call_sources().into_iter().enumerate() {
                same(&r.call(k, c), &mut rows);
            }
            for (k, t) in r.tool_sources().into_iter().enumerate() {
                same(&r.tool(k, t), &mut rows);
            }
            let t = r.trace();
            for (i, run) in t.runs.iter().enumerate() {
                for row in r.run_rows(i, run) {
                    same(&row, &mut rows);
                }
            }
            same(&r.session(), &mut rows);
        }
        assert!(rows > 2_000, "{rows}");
    }

    /// The spans table is made from a trace that reads back only why calls failed: its rows
    /// are those the whole trace gives, over every bundled and real session.
    #[test]
    fn the_spans_table_is_the_same_without_prompts_and_arguments() {
        let rows_of = |r: &Rows<'_, '_>, t: &trace::Trace<'_>| -> Vec<u8> {
            let mut out = Vec::new();
            for (i, run) in t.runs.iter().enumerate() {
                for row in r.run_rows(i, run) {
                    serde_json::to_writer(&mut out, &row).unwrap();
                    out.push(b'\n');
                }
            }
            out
        };
        let (mut traced, mut skipped, mut errors) = (0, 0, 0);
        for p in crate::test_corpus::session_files() {
            let Ok(src) = crate::source::Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            let r = Rows::new(&s);
            let whole = trace::trace(&s, None);
            let lean = r.trace();
            assert_eq!(rows_of(&r, &lean), rows_of(&r, &whole), "{}", p.display());
            fn spans<'t>(t: &'t trace::Trace<'_>) -> impl Iterator<Item = &'t trace::Span<'t>> {
                t.runs.iter().flat_map(|run| run.spans.iter())
            }
            let shown = |t: &trace::Trace<'_>| {
                t.runs.iter().filter(|run| run.prompt.is_some()).count()
                    + spans(t).filter(|sp| matches!(&sp.detail, Detail::Tool { argument: Some(_), .. })).count()
            };
            assert_eq!(shown(&lean), 0, "{}", p.display());
            traced += usize::from(!whole.runs.is_empty());
            skipped += usize::from(shown(&whole) > 0);
            errors += spans(&lean).filter(|sp| sp.error.is_some()).count();
        }
        assert!(traced > 20 && skipped > 10 && errors > 5, "{traced} traced, {skipped} with texts, {errors} errors");
    }
}
