//! The `stats` view: what one session spent and did, reduced to plain numbers that can be
//! summed across thousands of files (each file is reduced and dropped, so memory stays
//! bounded by the largest file).
//!
//! Tokens come in the three scopes of FORMATS.md 1.7, always named: `file` (every entry of
//! every branch, each counted once: the top-level `usage`), `branch` (the path to the latest
//! entry) and `context` (what the model is sent at the tip). crab records usage in `llm_call`
//! observations rather than in messages, so its scopes come from those.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::BuildHasher;

use serde::Serialize;

use crate::content::Block;
use serde_json::Value;

use crate::format::{Detail, FastMap, Sink};
use crate::model::{Format, Outcome, Role, Usage};
use crate::prefetch;
use crate::price::{self, Cost, CostSource, Prices};
use crate::session::Session;
use crate::time::{Period, PeriodKeys};
use crate::tree::Ix;

/// Messages by role.
#[derive(Serialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Messages {
    pub user: u64,
    pub assistant: u64,
    /// arcturn `toolResult` messages; crab `user` messages that carry only tool results.
    pub tool_result: u64,
    pub system: u64,
    /// Roles this tool does not know.
    pub other: u64,
}

impl Messages {
    fn count(&mut self, r: Role) {
        match r {
            Role::User => self.user += 1,
            Role::Assistant => self.assistant += 1,
            Role::ToolResult => self.tool_result += 1,
            Role::System => self.system += 1,
            Role::Other => self.other += 1,
        }
    }

    fn merge(&mut self, o: &Messages) {
        self.user += o.user;
        self.assistant += o.assistant;
        self.tool_result += o.tool_result;
        self.system += o.system;
        self.other += o.other;
    }

    pub fn total(&self) -> u64 {
        self.user + self.assistant + self.tool_result + self.system + self.other
    }
}

/// Token usage summed over model calls. `total` is always the sum of the four parts (a
/// recorded `totalTokens` is not trusted over them).
///
/// `cost` is the recorded costs plus the price table's estimates for calls that recorded
/// none, and `cost_source` says which (`recorded`, `estimated`, `mixed`). When a call's model
/// is not in the table its cost is unknown: `cost` is null, `cost_source` is `unknown`,
/// `unpriced_models` lists the models and `cost_lower_bound` sums the calls that are priced.
/// `cost` and `cost_source` are null when no call recorded usage.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct Tokens {
    pub calls: u64,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total: u64,
    #[serde(serialize_with = "cost_json")]
    pub cost: Option<f64>,
    pub cost_source: Option<CostSource>,
    /// The recorded and the estimated parts of `cost` (null when there is none of that kind).
    #[serde(serialize_with = "cost_json")]
    pub recorded_cost: Option<f64>,
    #[serde(serialize_with = "cost_json")]
    pub estimated_cost: Option<f64>,
    /// Only with `cost_source: "unknown"`: what the priced calls cost (a lower bound).
    #[serde(serialize_with = "cost_json", skip_serializing_if = "Option::is_none")]
    pub cost_lower_bound: Option<f64>,
    /// Models of calls whose cost is unknown, and how many such calls.
    /// (A set: a file may name any number of unpriced models.)
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub unpriced_models: BTreeSet<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub unpriced_calls: u64,
    /// A sum passed what it can hold and is held at its maximum (`u64::MAX` tokens,
    /// `f64::MAX` dollars): shown as such, and over every budget.
    pub usage_overflow: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One model call as the sums see it: its usage, what it cost, and its model (named when the
/// cost is unknown).
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    pub usage: &'a Usage,
    pub cost: Cost,
    pub model: Option<&'a str>,
}

impl<'a> Call<'a> {
    pub fn priced(usage: &'a Usage, provider: Option<&'a str>, model: Option<&'a str>, prices: &Prices) -> Call<'a> {
        Call { usage, cost: price::cost(usage, provider, model, prices), model }
    }

    /// An observed call (crab `llm_call`): counted as recorded, priced on the part of the
    /// prompt that is billed as input ([`crate::call_cost::billed_observed`]).
    pub fn observed(usage: &'a Usage, provider: Option<&'a str>, model: Option<&'a str>, prices: &Prices) -> Call<'a> {
        let billed = crate::call_cost::billed_observed(usage);
        Call { usage, cost: price::cost(&billed, provider, model, prices), model }
    }
}

/// Sums of dollar amounts pick up binary noise (`0.022600000000000002`); ten decimals is
/// far below a cent and keeps the JSON readable.
fn cost_json<S: serde::Serializer>(c: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match c {
        Some(v) => s.serialize_f64(round_cost(*v)),
        None => s.serialize_none(),
    }
}

/// A sum of dollars as `stats` prints it: to ten decimals.
pub fn round_cost(v: f64) -> f64 {
    // (A sum held at f64::MAX would round to infinity, which JSON cannot hold.)
    if v.abs() < 1e290 {
        (v * 1e10).round() / 1e10
    } else {
        v
    }
}

/// What one priced call adds to each row of usage it belongs to ([`Tokens::call`]).
struct Addend<'a> {
    /// The call, then its four token counts and their total.
    counts: [u64; 6],
    /// The total was held at its maximum.
    over: bool,
    /// Its recorded and its estimated cost (one of them at most).
    costs: (Option<f64>, Option<f64>),
    /// Its model, when its cost is unknown.
    unpriced: Option<&'a str>,
}

impl<'a> Addend<'a> {
    fn of(c: &Call<'a>) -> Addend<'a> {
        let u = c.usage;
        let (parts, over) = u.parts_total();
        let (costs, unpriced) = match (c.cost.source, c.cost.amount) {
            (CostSource::Recorded, a) => ((a, None), None),
            (CostSource::Unknown, _) | (_, None) => ((None, None), Some(c.model.unwrap_or("(no model)"))),
            (_, a) => ((None, a), None),
        };
        Addend { counts: [1, u.input, u.output, u.cache_read, u.cache_write, parts], over, costs, unpriced }
    }
}

impl Tokens {
    /// Count one model call; `call` is absent when the call recorded no usage. The call is
    /// added in place (this runs for every call, in every row it belongs to), with the sums
    /// [`Tokens::merge`] makes.
    pub fn call(&mut self, call: Option<&Call<'_>>) {
        self.count_call(call.map(Addend::of).as_ref());
        self.settle();
    }

    /// [`Tokens::call`] with the call's addends already worked out (a call is added to
    /// several rows: the file, its model, its day and period, each of its tools), without
    /// working out the derived fields: for the rows of [`Acc`], which take every call of a
    /// file and are settled once they have them all ([`Acc::settle`]).
    fn count_call(&mut self, a: Option<&Addend<'_>>) {
        match a {
            None => self.calls = self.calls.saturating_add(1),
            Some(a) => self.sum(a.counts, a.over, a.costs, (u64::from(a.unpriced.is_some()), a.unpriced)),
        }
    }

    /// Derive `cost`, `cost_source` and `cost_lower_bound` from the parts.
    fn settle(&mut self) {
        let (sum, over) = crate::model::add_cost(self.recorded_cost, self.estimated_cost);
        self.usage_overflow |= over;
        let (cost, source) =
            match (self.recorded_cost.is_some(), self.estimated_cost.is_some(), self.unpriced_calls > 0) {
                (_, _, true) => (None, Some(CostSource::Unknown)),
                (true, true, false) => (sum, Some(CostSource::Mixed)),
                (true, false, false) => (sum, Some(CostSource::Recorded)),
                (false, true, false) => (sum, Some(CostSource::Estimated)),
                (false, false, false) => (None, None),
            };
        self.cost = cost;
        self.cost_source = source;
        self.cost_lower_bound = if self.unpriced_calls > 0 { Some(sum.unwrap_or(0.0)) } else { None };
    }

    pub fn merge(&mut self, o: &Tokens) {
        let counts = [o.calls, o.input, o.output, o.cache_read, o.cache_write, o.total];
        let models = o.unpriced_models.iter().map(String::as_str);
        self.sum(counts, o.usage_overflow, (o.recorded_cost, o.estimated_cost), (o.unpriced_calls, models));
        self.settle();
    }

    /// Add calls, the four token counts and their total (`counts`, saturating), the
    /// recorded and estimated costs, and the calls of unknown cost with their models (the
    /// derived fields are left for [`Tokens::settle`]). `over`: the added parts were held at
    /// their maximum.
    fn sum<'m>(
        &mut self,
        counts: [u64; 6],
        over: bool,
        (recorded, estimated): (Option<f64>, Option<f64>),
        (unpriced, models): (u64, impl IntoIterator<Item = &'m str>),
    ) {
        let [calls, input, output, cache_read, cache_write, total] = counts;
        // Each sum on its own line (this runs for every call, in every row it belongs to):
        // `model::sum_saturating` over `&[*a, b]`, or a helper returning the sum and the flag,
        // took 4M more instructions of `stats --json` over the 64 MB cut than this closure.
        let mut over = self.usage_overflow | over;
        let mut add = |a: &mut u64, b: u64| match a.checked_add(b) {
            Some(sum) => *a = sum,
            None => {
                *a = u64::MAX;
                over = true;
            }
        };
        add(&mut self.calls, calls);
        add(&mut self.input, input);
        add(&mut self.output, output);
        add(&mut self.cache_read, cache_read);
        add(&mut self.cache_write, cache_write);
        add(&mut self.total, total);
        let (recorded, o1) = crate::model::add_cost(self.recorded_cost, recorded);
        let (estimated, o2) = crate::model::add_cost(self.estimated_cost, estimated);
        self.recorded_cost = recorded;
        self.estimated_cost = estimated;
        self.unpriced_calls = self.unpriced_calls.saturating_add(unpriced);
        for m in models {
            if !self.unpriced_models.contains(m) {
                self.unpriced_models.insert(m.to_string());
            }
        }
        self.usage_overflow = over | o1 | o2;
    }
}

/// File-scope usage of decoded records: every model call once (the assistant messages, or
/// for a format whose usage lives on observations, its `llm_call` records), as
/// [`SessionStats::of`] counts and prices them with the bundled price table.
pub fn file_usage(
    entries: &[crate::model::Entry<'_>],
    observations: &[crate::model::Observation<'_>],
    observed: bool,
) -> Tokens {
    let prices = Prices::bundled();
    let mut usage = Tokens::default();
    if observed {
        for o in observations.iter().filter(|o| o.tag.as_ref() == "llm_call") {
            let call = o.usage.as_ref().map(|u| Call::observed(u, o.provider.as_deref(), o.model.as_deref(), prices));
            usage.call(call.as_ref());
        }
    } else {
        for m in entries.iter().filter_map(|e| e.message.as_ref()).filter(|m| m.role == Role::Assistant) {
            let call = m.usage().map(|u| Call::priced(u, m.provider(), m.model(), prices));
            usage.call(call.as_ref());
        }
    }
    usage
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ModelRow {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub calls: u64,
    pub usage: Tokens,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct DayRow {
    /// Day of the calls in the report's time zone, `YYYY-MM-DD`; null for calls without a
    /// timestamp.
    pub day: Option<String>,
    pub calls: u64,
    pub usage: Tokens,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct ToolRow {
    pub tool: String,
    pub calls: u64,
    pub errors: u64,
    /// crab `Aborted` outcomes (not errors).
    pub aborted: u64,
    /// crab only: bytes of arguments and results, summed over the calls that recorded them.
    pub bytes_in: Option<u64>,
    pub bytes_out: Option<u64>,
    /// crab only: time spent in the tool.
    pub duration_ms: Option<u64>,
    /// Usage of the model calls that issued this tool (a call that issued several tools counts
    /// in each of their rows). Shown by `--by tool`.
    #[serde(skip)]
    pub usage: Tokens,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Compactions {
    pub count: u64,
    /// Summed over the compactions that recorded the figure; `null` when none did (an
    /// unknown figure is never 0).
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    /// Compactions that recorded no size after (pi records none).
    pub tokens_after_unknown: u64,
    /// `tokens_before - tokens_after`, summed over compactions that recorded both.
    pub saved: u64,
    /// crab: compactions by strategy (`shed`, `summarize`, ...).
    pub by_strategy: BTreeMap<String, u64>,
    /// crab: tool results replaced by placeholders by `shed` compactions.
    pub shed_results: u64,
    /// arcturn: provider-side compactions (`compaction` blocks in assistant messages).
    pub provider: u64,
}

impl Default for Compactions {
    /// No compactions: their sizes sum to a known 0.
    fn default() -> Self {
        Compactions {
            count: 0,
            tokens_before: Some(0),
            tokens_after: Some(0),
            tokens_after_unknown: 0,
            saved: 0,
            by_strategy: BTreeMap::new(),
            shed_results: 0,
            provider: 0,
        }
    }
}

impl Compactions {
    fn add(&mut self, before: Option<u64>, after: Option<u64>) {
        if self.count == 0 {
            (self.tokens_before, self.tokens_after) = (None, None);
        }
        self.count += 1;
        self.tokens_before = sum_known(self.tokens_before, before);
        self.tokens_after = sum_known(self.tokens_after, after);
        self.tokens_after_unknown += u64::from(after.is_none());
        if let (Some(b), Some(a)) = (before, after) {
            self.saved += b.saturating_sub(a);
        }
    }

    fn merge(&mut self, o: &Compactions) {
        if o.count > 0 {
            if self.count == 0 {
                (self.tokens_before, self.tokens_after) = (None, None);
            }
            self.tokens_before = sum_known(self.tokens_before, o.tokens_before);
            self.tokens_after = sum_known(self.tokens_after, o.tokens_after);
        }
        self.count += o.count;
        self.tokens_after_unknown += o.tokens_after_unknown;
        self.saved += o.saved;
        for (k, v) in &o.by_strategy {
            *self.by_strategy.entry(k.clone()).or_default() += v;
        }
        self.shed_results += o.shed_results;
        self.provider += o.provider;
    }
}

/// A sum over the figures that are known: `None` only when none is.
fn sum_known(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

/// arcturn context-editing passes (`state` entries with `contextEdit`).
#[derive(Serialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextEdits {
    pub passes: u64,
    /// Tool results the passes elided (ids listed, summed over passes).
    pub elided: u64,
}

/// The `branch` scope: the path from a root to the latest entry.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Branch {
    pub scope: &'static str,
    /// The entry the branch ends at (the latest entry), typed as in the file.
    pub leaf: Value,
    pub entries: u64,
    pub messages: Messages,
    /// null for a crab session with branches: its usage is recorded per run, not per message,
    /// so it cannot be split between branches.
    pub usage: Option<Tokens>,
}

/// Where the `context` figure comes from.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ContextSource {
    /// The last model call on the branch: what the model last saw (prompt plus answer).
    LastCall,
    /// crab: a compaction after the last call; its `tokens_after`.
    Compaction,
    /// No usage after the last compaction: characters / 4 of what would be sent.
    Estimate,
    /// Nothing to measure (no messages).
    None,
}

/// The `context` scope: what the model is sent at the tip.
///
/// Two figures, side by side: `recorded_tokens`, the size the file recorded for the last model
/// call (prompt plus answer, system prompt and tool definitions included), and
/// `estimated_tokens`, the `context` command's estimate at the latest leaf (characters / 4 of
/// the messages that would be sent; the system prompt and tool definitions are not in the
/// file, so it is below the recorded size). `tokens` is the recorded size when there is one,
/// else the estimate, as `source` says.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Context {
    pub scope: &'static str,
    pub source: ContextSource,
    pub tokens: Option<u64>,
    pub estimated_tokens: Option<u64>,
    pub recorded_tokens: Option<u64>,
    /// The entry the figure was taken at (arcturn), typed as in the file; null for crab,
    /// whose figures come from observation records.
    pub at: Value,
    /// The line of the record the figure was taken at.
    pub line: Option<u32>,
}

impl Context {
    /// Nothing known: no leaf, no recorded size, no estimate.
    fn none() -> Context {
        Context {
            scope: "context",
            source: ContextSource::None,
            tokens: None,
            estimated_tokens: None,
            recorded_tokens: None,
            at: Value::Null,
            line: None,
        }
    }
}

/// A session's sub-agents, read from their own files (Claude Code `subagents/`): separate
/// model calls of the same session, counted once, here, and never as sessions of their own.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Subagents {
    pub scope: &'static str,
    /// Sub-agent files read.
    pub files: u64,
    /// Their usage: the sub-agents' share of the session.
    pub usage: Tokens,
    /// The `session` scope: the file's usage plus the sub-agents'.
    pub session_usage: Tokens,
    /// Sub-agents the session names (a `Task` result's agent id) whose file is not there.
    pub missing: Vec<String>,
}

/// Everything `stats` reports about one session file.
#[derive(Serialize, Clone, Debug)]
pub struct SessionStats {
    pub file: String,
    pub format: Format,
    /// The session's working directory (its header), else the agent folder's project name.
    pub project: Option<String>,
    /// The session this one was forked from, as the file names it (pi `parentSession`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    pub bytes: u64,
    pub lines: u64,
    pub entries: u64,
    pub observations: u64,
    /// crab: distinct run ids.
    pub runs: u64,
    pub messages: Messages,
    /// The `file` scope.
    pub usage: Tokens,
    pub branch: Branch,
    pub context: Context,
    pub by_model: Vec<ModelRow>,
    pub by_day: Vec<DayRow>,
    pub tool_calls: Vec<ToolRow>,
    pub compactions: Compactions,
    pub context_edits: ContextEdits,
    /// arcturn tool results whose full output was offloaded to a file.
    pub offloaded: u64,
    pub leaves: u64,
    pub max_depth: u64,
    /// Sub-agent files of this session, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagents: Option<Subagents>,
    /// With `--since` / `--until`: model calls (and tool results) left out because they have
    /// no timestamp to place them in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undated_calls: Option<u64>,
    /// Usage by calendar period (`--by day|week|month`), in the report's time zone; `None` for
    /// calls without a timestamp.
    #[serde(skip)]
    pub periods: BTreeMap<Option<String>, Tokens>,
    /// Earliest and latest timestamps in the file (ISO 8601), and as epoch milliseconds.
    pub first: Option<String>,
    pub last: Option<String>,
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
}

/// How a report is cut: the price table, the time window (model calls at `since` or later
/// and before `until`), and the time zone and period of its calendar rows.
#[derive(Clone, Debug)]
pub struct Options<'p> {
    pub prices: &'p Prices,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub tz: jiff::tz::TimeZone,
    pub period: Period,
}

impl Default for Options<'static> {
    /// The bundled prices, no window, UTC days.
    fn default() -> Self {
        Options {
            prices: Prices::bundled(),
            since: None,
            until: None,
            tz: jiff::tz::TimeZone::UTC,
            period: Period::Day,
        }
    }
}

impl Options<'_> {
    fn windowed(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether something at `ms` is in the window; without a timestamp it is only when there
    /// is no window.
    fn admits(&self, ms: Option<i64>) -> bool {
        match ms {
            None => !self.windowed(),
            Some(t) => self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u),
        }
    }
}

/// Keyed accumulators that keep first-appearance order until they are sorted for output.
struct Acc<'o> {
    opts: &'o Options<'o>,
    models: Vec<ModelRow>,
    /// The rows of `models` by (provider, model): a file may name any number of models.
    model_rows: hashbrown::HashTable<usize>,
    hasher: foldhash::fast::RandomState,
    /// The row the last call counted in (calls come in runs of one model).
    last_model: usize,
    days: BTreeMap<Option<String>, DayRow>,
    periods: BTreeMap<Option<String>, Tokens>,
    /// The day and period keys of the last call's date.
    day_keys: PeriodKeys,
    period_keys: PeriodKeys,
    tools: Vec<ToolRow>,
    /// Tool name -> its row in `tools`.
    tool_rows: FastMap<String, usize>,
    first: Option<i64>,
    last: Option<i64>,
    undated: u64,
}

impl<'o> Acc<'o> {
    fn new(opts: &'o Options<'o>) -> Self {
        Acc {
            opts,
            models: Vec::new(),
            model_rows: hashbrown::HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
            last_model: 0,
            days: BTreeMap::new(),
            periods: BTreeMap::new(),
            day_keys: PeriodKeys::new(Period::Day),
            period_keys: PeriodKeys::new(opts.period),
            tools: Vec::new(),
            tool_rows: FastMap::default(),
            first: None,
            last: None,
            undated: 0,
        }
    }

    /// Whether a call or result at `ms` counts; counts those left out for want of a timestamp.
    fn admits(&mut self, ms: Option<i64>) -> bool {
        let ok = self.opts.admits(ms);
        self.undated += u64::from(ms.is_none() && !ok);
        ok
    }

    /// Count one model call everywhere it belongs: the file total, its model's row, its day
    /// and period, and the rows of the tools it issued.
    fn count(&mut self, usage: &mut Tokens, ms: Option<i64>, model: usize, call: Option<&Call<'_>>, tools: &[usize]) {
        let call = call.map(Addend::of);
        let call = call.as_ref();
        usage.count_call(call);
        let row = &mut self.models[model];
        row.calls += 1;
        row.usage.count_call(call);
        self.day(ms, call);
        for &t in tools {
            self.tools[t].usage.count_call(call);
        }
    }

    /// Work out the derived fields of every row, once it has all its calls
    /// ([`Tokens::count_call`]).
    fn settle(&mut self) {
        self.models.iter_mut().for_each(|m| m.usage.settle());
        self.days.values_mut().for_each(|d| d.usage.settle());
        self.periods.values_mut().for_each(Tokens::settle);
        self.tools.iter_mut().for_each(|t| t.usage.settle());
    }

    /// The row of `provider`'s `model`, made the first time.
    fn model_row(&mut self, provider: Option<&str>, model: Option<&str>) -> usize {
        let is = |m: &ModelRow| m.provider.as_deref() == provider && m.model.as_deref() == model;
        let pos = match self.models.get(self.last_model) {
            Some(m) if is(m) => self.last_model,
            _ => {
                let hash = self.hasher.hash_one((provider, model));
                let models = &self.models;
                match self.model_rows.find(hash, |&i| is(&models[i])) {
                    Some(&i) => i,
                    None => {
                        let (at, hasher) = (self.models.len(), &self.hasher);
                        self.models.push(ModelRow {
                            provider: provider.map(str::to_string),
                            model: model.map(str::to_string),
                            calls: 0,
                            usage: Tokens::default(),
                        });
                        let models = &self.models;
                        let rehash =
                            |&i: &usize| hasher.hash_one((models[i].provider.as_deref(), models[i].model.as_deref()));
                        self.model_rows.insert_unique(hash, at, rehash);
                        at
                    }
                }
            }
        };
        self.last_model = pos;
        pos
    }

    fn day(&mut self, ms: Option<i64>, usage: Option<&Addend<'_>>) {
        let tz = &self.opts.tz;
        let key = self.day_keys.key(ms, tz);
        let row = match self.days.get_mut(key) {
            Some(row) => row,
            None => {
                self.days.entry(key.clone()).or_insert(DayRow { day: key.clone(), calls: 0, usage: Tokens::default() })
            }
        };
        row.calls += 1;
        row.usage.count_call(usage);
        let key = self.period_keys.key(ms, tz);
        match self.periods.get_mut(key) {
            Some(t) => t.count_call(usage),
            None => self.periods.entry(key.clone()).or_default().count_call(usage),
        }
    }

    fn tool(&mut self, name: &str) -> &mut ToolRow {
        let at = self.tool_row(name);
        &mut self.tools[at]
    }

    /// The row of the tool `name`, made the first time.
    fn tool_row(&mut self, name: &str) -> usize {
        match self.tool_rows.get(name) {
            Some(&at) => at,
            None => {
                self.tools.push(ToolRow { tool: name.to_string(), ..ToolRow::default() });
                self.tool_rows.insert(name.to_string(), self.tools.len() - 1);
                self.tools.len() - 1
            }
        }
    }

    fn seen(&mut self, ms: Option<i64>) {
        if let Some(t) = ms {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
    }
}

/// Ask for the names an entry's counting reads (its provider and model, its calls' and
/// results' tools), ahead of reading them ([`crate::prefetch`]).
fn prefetch_names(m: &crate::model::Message<'_>) {
    m.prefetch_reply();
    m.tool_calls.iter().filter_map(|c| c.name.as_deref()).for_each(prefetch::text);
    m.tool_results.iter().filter_map(|r| r.tool_name.as_deref()).for_each(prefetch::text);
}

/// What the model replies on the entries add to a branch's usage ([`branch`]), kept for every
/// reply in the window so that the latest branch's sums need no message once the load is
/// done. Each reply's entry is in a list of its own (to search), and the rest in a stream of
/// bytes, about 17 a reply where a [`Usage`] alone takes 72: its model row and flags, its
/// four token counts as varints, its cost as the 8 bytes of an `f64`. The stream is kept in
/// blocks that are never copied as it grows, with the place of every [`Replies::MARK`]th
/// reply, so that any reply is read from the nearest mark.
#[derive(Default)]
struct Replies {
    entries: Vec<Ix>,
    blocks: Vec<Vec<u8>>,
    /// Where every `MARK`th reply starts: its block and its place in the block.
    marks: Vec<(u32, u32)>,
    /// The usage of the replies whose counts do not fit 32 bits, by entry.
    big: Vec<(Ix, Usage)>,
    /// Where the last reply read ends, and which it was (most reads are of the next one).
    read: std::cell::Cell<(usize, u32, u32)>,
}

impl Replies {
    /// Flags, under the model row shifted by `ROW_SHIFT`: it recorded usage, its cost is
    /// known, a token count does not fit 32 bits; then the cost's source in two bits.
    const HAS_USAGE: u64 = 1;
    const HAS_AMOUNT: u64 = 1 << 1;
    const BIG: u64 = 1 << 2;
    const SOURCE_SHIFT: u32 = 3;
    const ROW_SHIFT: u32 = 5;
    const SOURCES: [CostSource; 4] =
        [CostSource::Recorded, CostSource::Estimated, CostSource::Mixed, CostSource::Unknown];
    const MARK: usize = 32;
    const BLOCK: usize = 64 << 10;
    /// The most bytes a reply takes: five varints of a `u64` at most and a cost.
    const MOST: usize = 5 * 10 + 8;

    /// Add the reply on entry `entry` (after every one added before), counted in model row
    /// `row`, that made `call`.
    fn push(&mut self, entry: Ix, row: usize, call: Option<&Call<'_>>) {
        if self.blocks.last().is_none_or(|b| b.capacity() - b.len() < Replies::MOST) {
            self.blocks.push(Vec::with_capacity(Replies::BLOCK));
        }
        let block = self.blocks.len() - 1;
        let Some(out) = self.blocks.last_mut() else { return };
        if self.entries.len().is_multiple_of(Replies::MARK) {
            self.marks.push((block as u32, out.len() as u32));
        }
        self.entries.push(entry);
        let mut head = (row as u64) << Replies::ROW_SHIFT;
        let Some(c) = call else {
            varint(out, head);
            return;
        };
        let u = c.usage;
        head |= Replies::HAS_USAGE;
        let source = Replies::SOURCES.iter().position(|&s| s == c.cost.source).unwrap_or(3) as u64;
        head |= source << Replies::SOURCE_SHIFT;
        if c.cost.amount.is_some() {
            head |= Replies::HAS_AMOUNT;
        }
        let counts = [u.input, u.output, u.cache_read, u.cache_write];
        if counts.iter().any(|&n| n > u64::from(u32::MAX)) {
            head |= Replies::BIG;
            self.big.push((entry, *u));
        }
        varint(out, head);
        if head & Replies::BIG == 0 {
            for n in counts {
                varint(out, n);
            }
        }
        if let Some(a) = c.cost.amount {
            out.extend_from_slice(&a.to_le_bytes());
        }
    }

    /// The `k`th reply: its model row, and its usage (the parts a sum reads) and cost as
    /// [`Replies::push`] was given them (`None`: no usage recorded).
    fn get(&self, k: usize) -> (usize, Option<(Usage, Cost)>) {
        let (next, mut block, mut at) = self.read.get();
        // From the end of the last one read, when `k` is a few replies on; else from the
        // mark before it.
        let mut from = next;
        if k < next || k - next >= Replies::MARK {
            from = k - k % Replies::MARK;
            (block, at) = self.marks[k / Replies::MARK];
        }
        let mut r = Reader { bytes: &self.blocks[block as usize], at: at as usize };
        for _ in from..k {
            r.skip_reply();
            if r.at >= r.bytes.len() {
                block += 1;
                r = Reader { bytes: &self.blocks[block as usize], at: 0 };
            }
        }
        let head = r.varint();
        let row = (head >> Replies::ROW_SHIFT) as usize;
        let call = (head & Replies::HAS_USAGE != 0).then(|| {
            let usage = if head & Replies::BIG != 0 {
                let e = self.entries[k];
                let at = self.big.partition_point(|(x, _)| *x < e);
                self.big.get(at).map_or_else(Usage::default, |(_, u)| *u)
            } else {
                let [input, output, cache_read, cache_write] = [r.varint(), r.varint(), r.varint(), r.varint()];
                Usage { input, output, cache_read, cache_write, ..Usage::default() }
            };
            let source = Replies::SOURCES[((head >> Replies::SOURCE_SHIFT) & 3) as usize];
            let amount = (head & Replies::HAS_AMOUNT != 0).then(|| r.f64());
            (usage, Cost { amount, source })
        });
        if r.at >= r.bytes.len() {
            (block, r.at) = (block + 1, 0);
        }
        self.read.set((k + 1, block, r.at as u32));
        (row, call)
    }
}

/// `n` in 7-bit groups, low first, the high bit of each byte saying another follows.
fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads what [`Replies::push`] wrote.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn varint(&mut self) -> u64 {
        let mut n = 0u64;
        let mut shift = 0;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift.min(63);
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        n
    }

    fn f64(&mut self) -> f64 {
        let mut b = [0u8; 8];
        if let Some(s) = self.bytes.get(self.at..self.at + 8) {
            b.copy_from_slice(s);
        }
        self.at += 8;
        f64::from_le_bytes(b)
    }

    /// Past one reply.
    fn skip_reply(&mut self) {
        let head = self.varint();
        if head & Replies::HAS_USAGE != 0 && head & Replies::BIG == 0 {
            for _ in 0..4 {
                self.varint();
            }
        }
        // (A cost is written only with usage.)
        if head & Replies::HAS_AMOUNT != 0 {
            self.at += 8;
        }
    }
}

/// A model reply in the window as a part of a file met it, counted once the part is placed
/// ([`Counter::place`]): the sums of dollars depend on the order they are added in, and are
/// added in file order.
struct PendingCall {
    /// Its entry's position in the part.
    at: u32,
    ms: Option<i64>,
    /// Its provider and model: a row of the part's [`Acc::models`].
    model: u32,
    usage: Option<Usage>,
    /// The rows of the part's [`Acc::tools`] of the tools it called, each once, in
    /// [`PartCount::tool_rows`].
    tools: std::ops::Range<u32>,
}

/// What one part of a file counts of its entries on its own, in whatever order the parts are
/// read: every sum but those of the model calls, which it lists ([`PendingCall`]), their
/// models and tools already found in rows of its own (where the names are read, on the
/// worker that decoded them).
struct PartCount<'o> {
    /// The tool rows (results: calls and errors), the model rows (no calls counted), the
    /// first and last times, the calls left out for want of a timestamp.
    acc: Acc<'o>,
    /// Calls come from observation records (crab), not from the messages.
    observed: bool,
    messages: Messages,
    compactions: Compactions,
    context_edits: ContextEdits,
    offloaded: u64,
    calls: Vec<PendingCall>,
    tool_rows: Vec<u32>,
}

impl<'o> PartCount<'o> {
    /// The count of a part of about `room` entries: room for a model call an entry, so
    /// that the list of calls is not copied as it grows (a part of the 1 GiB bench file
    /// lists 5,000 calls, 112 bytes each; grown by doubling, copying them and faulting in
    /// fresh pages took 5% of `stats`). Capacity never written is address space, not
    /// memory.
    pub fn new(opts: &'o Options<'o>, observed: bool, room: usize) -> Self {
        PartCount {
            acc: Acc::new(opts),
            observed,
            messages: Messages::default(),
            compactions: Compactions::default(),
            context_edits: ContextEdits::default(),
            offloaded: 0,
            calls: Vec::with_capacity(room),
            tool_rows: Vec::new(),
        }
    }

    /// Count the entry at position `at` of the part.
    pub fn entry(&mut self, at: u32, e: &crate::model::Entry<'_>) {
        let acc = &mut self.acc;
        acc.seen(e.timestamp.get());
        if let Some(m) = &e.message {
            self.messages.count(m.role);
            self.compactions.provider += u64::from(m.blocks.server_compaction);
            if !self.observed {
                let ms = e.timestamp.get().or(m.timestamp.get());
                if m.role == Role::Assistant && acc.admits(ms) {
                    let from = self.tool_rows.len();
                    for c in &m.tool_calls {
                        self.tool_rows.push(acc.tool_row(c.name.as_deref().unwrap_or("?")) as u32);
                    }
                    let tools = &mut self.tool_rows[from..];
                    tools.sort_unstable();
                    let kept = dedup_len(tools);
                    self.tool_rows.truncate(from + kept);
                    self.calls.push(PendingCall {
                        at,
                        ms,
                        model: acc.model_row(m.provider(), m.model()) as u32,
                        usage: m.usage().copied(),
                        tools: from as u32..(from + kept) as u32,
                    });
                }
                // In crab, `tool_call` observations are the record of calls that ran.
                let results = if m.tool_results.is_empty() || acc.admits(ms) { &m.tool_results[..] } else { &[] };
                for r in results {
                    let row = acc.tool(r.tool_name.as_deref().unwrap_or("?"));
                    row.calls += 1;
                    row.errors += u64::from(r.is_error);
                    self.offloaded += u64::from(r.offloaded_path.is_some());
                }
            }
        }
        if let Some(c) = e.compaction() {
            self.compactions.add(c.tokens_before, c.tokens_after);
        }
        if let Some(ce) = e.state().and_then(|st| st.context_edit.as_ref()) {
            self.context_edits.passes += 1;
            self.context_edits.elided += ce.elided.len() as u64;
        }
    }
}

/// Move the distinct elements of sorted `v` to its front; how many there are.
fn dedup_len<T: PartialEq>(v: &mut [T]) -> usize {
    let mut kept = 0;
    for i in 0..v.len() {
        if kept == 0 || v[i] != v[kept - 1] {
            v.swap(kept, i);
            kept += 1;
        }
    }
    kept
}

/// Every statistic of a session that one pass over its entries gives: the sums of its parts
/// ([`PartCount`]), placed in file order ([`Counter::place`]), whether the parts were counted
/// as a load placed them ([`Detail::Counted`], [`Sink`]) or over a loaded
/// session ([`SessionStats::counted`]).
struct Counter<'o> {
    acc: Acc<'o>,
    messages: Messages,
    usage: Tokens,
    compactions: Compactions,
    context_edits: ContextEdits,
    offloaded: u64,
    replies: Replies,
    /// The tool rows of one call (its room reused from call to call).
    tools: Vec<usize>,
}

impl<'o> Counter<'o> {
    pub fn new(opts: &'o Options<'o>) -> Self {
        Counter {
            acc: Acc::new(opts),
            messages: Messages::default(),
            usage: Tokens::default(),
            compactions: Compactions::default(),
            context_edits: ContextEdits::default(),
            offloaded: 0,
            replies: Replies::default(),
            tools: Vec::new(),
        }
    }

    /// Add the next part of the file, whose first entry is at `offset`: its sums, then its
    /// model calls, one by one.
    pub fn place(&mut self, part: PartCount<'o>, offset: u32) {
        let PartCount { acc: p, messages, compactions, context_edits, offloaded, calls, tool_rows, .. } = part;
        self.messages.merge(&messages);
        self.compactions.merge(&compactions);
        self.context_edits.passes += context_edits.passes;
        self.context_edits.elided += context_edits.elided;
        self.offloaded += offloaded;
        let acc = &mut self.acc;
        // The part's rows, as rows of the file.
        let tool_at: Vec<usize> = p
            .tools
            .iter()
            .map(|t| {
                let at = acc.tool_row(&t.tool);
                acc.tools[at].calls += t.calls;
                acc.tools[at].errors += t.errors;
                at
            })
            .collect();
        let model_at: Vec<usize> =
            p.models.iter().map(|m| acc.model_row(m.provider.as_deref(), m.model.as_deref())).collect();
        for t in [p.first, p.last].into_iter().flatten() {
            acc.seen(Some(t));
        }
        acc.undated += p.undated;
        for c in &calls {
            let row = &p.models[c.model as usize];
            let (provider, model) = (row.provider.as_deref(), row.model.as_deref());
            let call = c.usage.as_ref().map(|u| Call::priced(u, provider, model, acc.opts.prices));
            self.tools.clear();
            let tools = &tool_rows[c.tools.start as usize..c.tools.end as usize];
            self.tools.extend(tools.iter().map(|&t| tool_at[t as usize]));
            let at = model_at[c.model as usize];
            acc.count(&mut self.usage, c.ms, at, call.as_ref(), &self.tools);
            self.replies.push(offset + c.at, at, call.as_ref());
        }
    }

    /// Count the session's observation records, and make the statistics of `s`, whose every
    /// entry was counted (the context estimate left unknown).
    /// `path`: the root-first path to the latest entry ([`latest_path`]).
    fn finish(self, s: &Session<'_>, path: &[Ix]) -> SessionStats {
        let Counter { mut acc, messages, mut usage, mut compactions, context_edits, offloaded, replies, .. } = self;
        let opts = acc.opts;
        let mut run_ids: Vec<&str> = Vec::new();
        for o in &s.observations {
            acc.seen(o.ts);
            if let Some(r) = o.run_id.as_deref() {
                run_ids.push(r);
            }
            match o.tag.as_ref() {
                "llm_call" if acc.admits(o.ts) => {
                    let (provider, model) = (o.provider.as_deref(), o.model.as_deref());
                    let call = o.usage.as_ref().map(|u| Call::observed(u, provider, model, opts.prices));
                    let row = acc.model_row(provider, model);
                    acc.count(&mut usage, o.ts, row, call.as_ref(), &[]);
                }
                "tool_call" if acc.admits(o.ts) => {
                    let row = acc.tool(o.tool.as_deref().unwrap_or("?"));
                    row.calls += 1;
                    match &o.outcome {
                        Some(Outcome::Error(_) | Outcome::Other(_)) => row.errors += 1,
                        Some(Outcome::Aborted) => row.aborted += 1,
                        _ => {}
                    }
                    for (sum, v) in [
                        (&mut row.bytes_in, o.bytes_in),
                        (&mut row.bytes_out, o.bytes_out),
                        (&mut row.duration_ms, o.duration_ms),
                    ] {
                        if let Some(v) = v {
                            *sum = Some(sum.unwrap_or(0) + v);
                        }
                    }
                }
                "compaction" => {
                    compactions.add(o.tokens_before, o.tokens_after);
                    let strategy = o.strategy.as_deref().unwrap_or("?").to_string();
                    *compactions.by_strategy.entry(strategy).or_default() += 1;
                    compactions.shed_results += o.shed.len() as u64;
                }
                _ => {}
            }
        }
        run_ids.sort_unstable();
        run_ids.dedup();
        // Every call is counted: the rows' derived fields are worked out once.
        usage.settle();
        acc.settle();
        let leaves = s.tree.leaves().count() as u64;
        let branch = branch(s, path, &replies, &acc.models, &usage, leaves);
        let mut st = SessionStats {
            project: project(s),
            forked_from: s.header.as_ref().and_then(|h| h.origin.as_deref()).map(str::to_string),
            file: s.name().to_string(),
            format: s.format,
            bytes: s.source.body().len() as u64,
            lines: u64::from(s.lines),
            entries: s.entries.len() as u64,
            observations: s.observations.len() as u64,
            runs: run_ids.len() as u64,
            messages,
            usage,
            branch,
            context: Context::none(),
            by_model: acc.models,
            by_day: acc.days.into_values().collect(),
            periods: acc.periods,
            undated_calls: opts.windowed().then_some(acc.undated),
            tool_calls: acc.tools,
            compactions,
            context_edits,
            offloaded,
            leaves,
            max_depth: if s.entries.is_empty() { 0 } else { u64::from(s.tree.max_depth()) },
            subagents: None,
            first: acc.first.map(crate::time::format_iso),
            last: acc.last.map(crate::time::format_iso),
            first_ms: acc.first,
            last_ms: acc.last,
        };
        sort_rows(&mut st.by_model, &mut st.tool_calls);
        st
    }
}

/// How `stats` loads a session: counting each entry as the worker that decodes its part reads
/// it, the parts' sums placed in file order, and letting the messages go but for those the
/// context estimate reads ([`Detail::Counted`]); where the format does not allow it, the
/// entries are counted once the session is loaded.
pub struct Counting<'o> {
    opts: &'o Options<'o>,
    whole: std::sync::Mutex<Counter<'o>>,
}

impl<'o> Counting<'o> {
    pub fn new(opts: &'o Options<'o>) -> Self {
        Counting { opts, whole: std::sync::Mutex::new(Counter::new(opts)) }
    }

    /// The statistics of `s`, loaded with these sinks.
    pub fn stats(self, s: &Session<'_>) -> SessionStats {
        let counter = self.whole.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        if s.detail != Detail::Counted {
            return SessionStats::of(s, self.opts);
        }
        // The context estimate walks the latest branch on its own: beside the rest, on the
        // one path both read.
        let path = latest_path(s);
        let (mut st, context) = rayon::join(|| counter.finish(s, &path), || context(s, &path));
        st.context = context;
        st
    }
}

/// It is the sinks to load with.
impl<'a> crate::format::Sinks<'a> for Counting<'_> {
    fn sink<'s>(&'s self, room: usize) -> Box<dyn Sink<'a> + 's>
    where
        'a: 's,
    {
        Box::new(PartSink { whole: &self.whole, part: PartCount::new(self.opts, false, room) })
    }
}

/// The [`Sink`] of one part of a load: its [`PartCount`], placed into the file's
/// [`Counter`] (behind a lock taken once a part, by the thread that places the parts).
struct PartSink<'w, 'o> {
    whole: &'w std::sync::Mutex<Counter<'o>>,
    part: PartCount<'o>,
}

impl<'a> Sink<'a> for PartSink<'_, '_> {
    fn entry(&mut self, at: u32, e: &crate::model::Entry<'a>) {
        self.part.entry(at, e);
    }

    fn place(self: Box<Self>, offset: u32) {
        let mut whole = self.whole.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        whole.place(self.part, offset);
    }
}

impl SessionStats {
    /// Reduce a loaded session to its statistics.
    pub fn of(s: &Session<'_>, opts: &Options<'_>) -> SessionStats {
        // The context estimate walks the latest branch on its own: beside the counting, on
        // the one path both read.
        let path = latest_path(s);
        let (mut st, context) = rayon::join(|| SessionStats::counted_on(s, opts, &path), || context(s, &path));
        st.context = context;
        st
    }

    /// Every statistic but the context estimate (left unknown): all a sub-agent's file adds
    /// to its session's ([`SessionStats::add_subagents`] reads its usage).
    pub fn counted(s: &Session<'_>, opts: &Options<'_>) -> SessionStats {
        SessionStats::counted_on(s, opts, &latest_path(s))
    }

    /// [`SessionStats::counted`], the latest branch's `path` already made.
    fn counted_on(s: &Session<'_>, opts: &Options<'_>, path: &[Ix]) -> SessionStats {
        let mut part = PartCount::new(opts, s.observed, s.entries.len());
        for (i, e) in s.entries.iter().enumerate() {
            if let Some(ahead) = prefetch::message_ahead(&s.entries, i) {
                prefetch_names(ahead);
            }
            part.entry(i as u32, e);
        }
        let mut counter = Counter::new(opts);
        counter.place(part, 0);
        counter.finish(s, path)
    }
}

impl SessionStats {
    /// Count the session's sub-agent files (their file-scope usage each) in its session scope.
    pub fn add_subagents(&mut self, children: &[SessionStats], missing: Vec<String>) {
        let mut usage = Tokens::default();
        for c in children {
            usage.merge(&c.usage);
        }
        let mut session_usage = self.usage.clone();
        session_usage.merge(&usage);
        self.subagents =
            Some(Subagents { scope: "session", files: children.len() as u64, usage, session_usage, missing });
    }
}

/// Biggest first, names breaking ties: stable, deterministic output.
fn sort_rows(models: &mut [ModelRow], tools: &mut [ToolRow]) {
    models.sort_by(|a, b| {
        b.usage
            .total
            .cmp(&a.usage.total)
            .then(b.calls.cmp(&a.calls))
            .then((&a.provider, &a.model).cmp(&(&b.provider, &b.model)))
    });
    tools.sort_by(|a, b| b.calls.cmp(&a.calls).then(a.tool.cmp(&b.tool)));
}

/// The project a session belongs to: its working directory, else the folder an agent keeps
/// the project's sessions in (Claude Code `projects/<slug>/`).
fn project(s: &Session<'_>) -> Option<String> {
    if let Some(cwd) = s.header.as_ref().and_then(|h| h.cwd.as_deref()).filter(|c| !c.is_empty()) {
        return Some(cwd.to_string());
    }
    let path = std::path::Path::new(s.name());
    let dir = path.parent()?;
    let up = dir.parent()?;
    (up.file_name()? == "projects").then(|| dir.file_name().map(|n| n.to_string_lossy().into_owned())).flatten()
}

/// The root-first path to the latest entry (empty for a session without entries).
fn latest_path(s: &Session<'_>) -> Vec<Ix> {
    s.tree.latest().map(|tip| s.tree.path(tip)).unwrap_or_default()
}

/// The `branch` scope: the messages on the root-first `path` to the latest entry, by role,
/// and the usage of the `replies` on it (every reply in the window, in file order; `models`
/// names their provider and model).
fn branch(
    s: &Session<'_>,
    path: &[Ix],
    replies: &Replies,
    models: &[ModelRow],
    file_usage: &Tokens,
    leaves: u64,
) -> Branch {
    let Some(&tip) = path.last() else {
        return Branch { scope: "branch", leaf: Value::Null, entries: 0, messages: Messages::default(), usage: None };
    };
    let mut messages = Messages::default();
    let mut usage = Tokens::default();
    // The path is nearly always in file order, as the replies are: found by a cursor that
    // moves forward a few replies at a time, and by a search where it would move further or
    // the path goes back (a file whose parents come after their children).
    let entries = &replies.entries;
    let mut next = 0;
    let mut last = None;
    for &i in path {
        if let Some(b) = s.brief(i) {
            messages.count(b.role);
        }
        if last.is_some_and(|l| i < l) {
            next = entries.partition_point(|&e| e < i);
        }
        last = Some(i);
        let mut steps = 0;
        while entries.get(next).is_some_and(|&e| e < i) {
            next += 1;
            steps += 1;
            if steps == 8 {
                next += entries[next..].partition_point(|&e| e < i);
            }
        }
        if entries.get(next) != Some(&i) {
            continue;
        }
        let (row, call) = replies.get(next);
        let model = models[row].model.as_deref();
        match call {
            Some((u, cost)) => usage.call(Some(&Call { usage: &u, cost, model })),
            None => usage.call(None),
        }
    }
    let usage = match s.observed {
        false => Some(usage),
        // One branch: every observation belongs to it.
        true if leaves <= 1 => Some(file_usage.clone()),
        true => None,
    };
    Branch { scope: "branch", leaf: s.entry(tip).id.to_json(), entries: path.len() as u64, messages, usage }
}

/// The context at the tip, the end of the root-first `path` ([`latest_path`]): the recorded
/// size of the last model call beside the `context` command's estimate at the same leaf (one
/// estimator for both views: [`crate::context`]).
pub fn context(s: &Session<'_>, path: &[Ix]) -> Context {
    let none = Context::none();
    // No entries: nothing is sent, as `context` says (0, not unknown).
    let Some(&tip) = path.last() else { return Context { estimated_tokens: Some(0), ..none } };
    // A message whose content cannot be decoded leaves the estimate unknown, never 0.
    let estimated = crate::context::estimate_on(s, path).ok();
    match crate::context::recorded_on(s, path) {
        Some(r) => Context {
            scope: "context",
            source: match r.source {
                crate::context::RecordedSource::LastCall => ContextSource::LastCall,
                crate::context::RecordedSource::Compaction => ContextSource::Compaction,
            },
            tokens: r.tokens,
            estimated_tokens: estimated,
            recorded_tokens: r.tokens,
            at: r.entry.map_or(Value::Null, |i| s.entry(i).id.to_json()),
            line: Some(r.line),
        },
        None if estimated.unwrap_or(0) > 0 => Context {
            scope: "context",
            source: ContextSource::Estimate,
            tokens: estimated,
            estimated_tokens: estimated,
            recorded_tokens: None,
            at: s.entry(tip).id.to_json(),
            line: Some(s.entry(tip).line),
        },
        None => Context { estimated_tokens: estimated, ..none },
    }
}

/// Characters a message puts in the context: texts, thinking, tool call names and arguments,
/// tool output. An image counts as 4,800 characters (1,200 tokens), the usual flat estimate.
pub fn message_chars(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.chars().count(),
            Block::Thinking { text, .. } => text.chars().count(),
            Block::Image(_) => 4800,
            Block::ToolCall { name, arguments, .. } => name.chars().count() + arguments.to_string().chars().count(),
            Block::ToolResult(r) => message_chars(&r.content),
            _ => 0,
        })
        .sum()
}

/// Sums over many sessions. Nothing is counted twice: a file is one session, and each
/// session's figures already count every entry once.
#[derive(Serialize, Clone, Debug, Default)]
pub struct Total {
    pub sessions: u64,
    pub bytes: u64,
    pub lines: u64,
    pub entries: u64,
    pub observations: u64,
    pub runs: u64,
    pub messages: Messages,
    pub usage: Tokens,
    /// Branch-scope usage summed over the sessions whose branch usage is known.
    pub branch_usage: Tokens,
    /// Usage of the sessions' sub-agent files (not in `usage`, which is the files named).
    pub subagent_usage: Tokens,
    pub by_model: Vec<ModelRow>,
    pub by_day: Vec<DayRow>,
    pub tool_calls: Vec<ToolRow>,
    pub compactions: Compactions,
    pub context_edits: ContextEdits,
    pub offloaded: u64,
    pub leaves: u64,
    /// The deepest session's depth.
    pub max_depth: u64,
    pub first: Option<String>,
    pub last: Option<String>,
    /// With `--since` / `--until`: calls left out for want of a timestamp, over all sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undated_calls: Option<u64>,
    #[serde(skip)]
    pub periods: BTreeMap<Option<String>, Tokens>,
}

impl Total {
    pub fn of<'a>(sessions: impl IntoIterator<Item = &'a SessionStats>) -> Total {
        let mut t = Total::default();
        let mut days: BTreeMap<Option<String>, DayRow> = BTreeMap::new();
        // Each row's place in `t.by_model` and `t.tool_calls`, by name: sessions may name
        // any number of models and tools between them.
        let mut model_rows: FastMap<(Option<String>, Option<String>), usize> = FastMap::default();
        let mut tool_rows: FastMap<String, usize> = FastMap::default();
        let (mut first, mut last): (Option<i64>, Option<i64>) = (None, None);
        for s in sessions {
            t.sessions += 1;
            t.bytes += s.bytes;
            t.lines += s.lines;
            t.entries += s.entries;
            t.observations += s.observations;
            t.runs += s.runs;
            t.messages.merge(&s.messages);
            t.usage.merge(&s.usage);
            if let Some(b) = &s.branch.usage {
                t.branch_usage.merge(b);
            }
            if let Some(sa) = &s.subagents {
                t.subagent_usage.merge(&sa.usage);
            }
            for m in &s.by_model {
                match model_rows.entry((m.provider.clone(), m.model.clone())) {
                    Entry::Occupied(o) => {
                        let r = &mut t.by_model[*o.get()];
                        r.calls += m.calls;
                        r.usage.merge(&m.usage);
                    }
                    Entry::Vacant(v) => {
                        v.insert(t.by_model.len());
                        t.by_model.push(m.clone());
                    }
                }
            }
            for d in &s.by_day {
                let row = days.entry(d.day.clone()).or_insert(DayRow {
                    day: d.day.clone(),
                    calls: 0,
                    usage: Tokens::default(),
                });
                row.calls += d.calls;
                row.usage.merge(&d.usage);
            }
            for tl in &s.tool_calls {
                match tool_rows.get(&tl.tool).map(|&i| &mut t.tool_calls[i]) {
                    Some(r) => {
                        r.calls += tl.calls;
                        r.errors += tl.errors;
                        r.aborted += tl.aborted;
                        r.usage.merge(&tl.usage);
                        for (sum, v) in [
                            (&mut r.bytes_in, tl.bytes_in),
                            (&mut r.bytes_out, tl.bytes_out),
                            (&mut r.duration_ms, tl.duration_ms),
                        ] {
                            if let Some(v) = v {
                                *sum = Some(sum.unwrap_or(0) + v);
                            }
                        }
                    }
                    None => {
                        tool_rows.insert(tl.tool.clone(), t.tool_calls.len());
                        t.tool_calls.push(tl.clone());
                    }
                }
            }
            for (k, u) in &s.periods {
                t.periods.entry(k.clone()).or_default().merge(u);
            }
            if let Some(n) = s.undated_calls {
                t.undated_calls = Some(t.undated_calls.unwrap_or(0) + n);
            }
            t.compactions.merge(&s.compactions);
            t.context_edits.passes += s.context_edits.passes;
            t.context_edits.elided += s.context_edits.elided;
            t.offloaded += s.offloaded;
            t.leaves += s.leaves;
            t.max_depth = t.max_depth.max(s.max_depth);
            first = match (first, s.first_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            last = match (last, s.last_ms) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        t.by_day = days.into_values().collect();
        t.first = first.map(crate::time::format_iso);
        t.last = last.map(crate::time::format_iso);
        sort_rows(&mut t.by_model, &mut t.tool_calls);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every reply reads back as it was added, read in order, backwards and at random, across
    /// blocks and marks: calls without usage, with and without a cost, costs of every
    /// source, counts over 32 bits, rows of every size.
    #[test]
    fn replies_read_back_as_added() {
        const N: u32 = 12_000;
        let sources = [CostSource::Recorded, CostSource::Estimated, CostSource::Mixed, CostSource::Unknown];
        let mut want: Vec<(usize, Option<(Usage, Cost)>)> = Vec::new();
        let mut replies = Replies::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for k in 0..N {
            let r = next();
            let row = match r % 4 {
                0 => 0,
                1 => (r >> 8) as usize % 4,
                2 => (r >> 8) as usize % 5_000,
                _ => (r >> 8) as usize % (1 << 27),
            };
            let call = (r % 7 != 0).then(|| {
                let big = r % 97 == 1;
                let mut n = |shift: u32| if big { (next() >> shift) | (1 << 33) } else { next() >> (shift + 32) };
                let usage =
                    Usage { input: n(20), output: n(10), cache_read: n(0), cache_write: n(16), ..Usage::default() };
                let source = sources[(r >> 3) as usize % 4];
                let amount = match (source, r % 5) {
                    (CostSource::Unknown, _) => None,
                    (_, 0) => Some(f64::MAX),
                    (_, 1) => Some(-0.0),
                    (_, 2) => Some(1e-300),
                    _ => Some(f64::from_bits(next() >> 2)),
                };
                (usage, Cost { amount, source })
            });
            let c = call.as_ref().map(|(u, cost)| Call { usage: u, cost: *cost, model: None });
            replies.push(k * 3 + 1, row, c.as_ref());
            want.push((row, call));
        }
        assert!(replies.blocks.len() >= 3, "{} blocks", replies.blocks.len());
        let same = |k: usize| {
            let (row, got) = replies.get(k);
            assert_eq!(row, want[k].0, "reply {k}");
            match (got, want[k].1) {
                (None, None) => {}
                (Some((u, c)), Some((w, wc))) => {
                    let counts = |u: &Usage| [u.input, u.output, u.cache_read, u.cache_write];
                    assert_eq!(counts(&u), counts(&w), "reply {k}");
                    assert_eq!(c.source, wc.source, "reply {k}");
                    assert_eq!(c.amount.map(f64::to_bits), wc.amount.map(f64::to_bits), "reply {k}");
                }
                (a, b) => panic!("reply {k}: {a:?} against {b:?}"),
            }
        };
        assert_eq!(replies.entries, (0..N).map(|k| k * 3 + 1).collect::<Vec<_>>());
        (0..N as usize).for_each(same);
        (0..N as usize).rev().for_each(same);
        for _ in 0..20_000 {
            let k = next() as usize % N as usize;
            same(k);
            same((k + (next() as usize % 40)).min(N as usize - 1));
        }
    }

    /// Every row of the statistics of every bundled and real session (the file, the branch,
    /// each model, day, period and tool) has its derived fields worked out, though its calls
    /// were counted without them ([`Tokens::count_call`]): settling it again changes nothing.
    #[test]
    fn every_row_is_settled() {
        let opts = Options::default();
        let (mut rows, mut priced) = (0, 0);
        for p in crate::test_corpus::session_files() {
            let Ok(src) = crate::source::Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            let st = SessionStats::of(&s, &opts);
            let all = [&st.usage]
                .into_iter()
                .chain(st.branch.usage.as_ref())
                .chain(st.by_model.iter().map(|m| &m.usage))
                .chain(st.by_day.iter().map(|d| &d.usage))
                .chain(st.periods.values())
                .chain(st.tool_calls.iter().map(|t| &t.usage));
            for t in all {
                let mut again = t.clone();
                again.settle();
                assert_eq!(&again, t, "{}", p.display());
                rows += 1;
                priced += usize::from(t.cost.is_some());
            }
        }
        assert!(rows > 300 && priced > 200, "{rows} rows, {priced} with a cost");
    }

    #[test]
    fn message_chars_counts_what_is_sent() {
        let m = json!({"role":"assistant","content":[
            {"type":"text","text":"héllo"},
            {"type":"thinking","thinking":"abc"},
            {"type":"toolCall","id":"c1","name":"read","arguments":{"p":"x"}}
        ]});
        let chars = |m: &Value| message_chars(&crate::format::blocks::list(&m["content"]));
        // 5 + 3 + 4 ("read") + 9 (`{"p":"x"}`)
        assert_eq!(chars(&m), 21);
        assert_eq!(chars(&json!({"role":"user","content":"four"})), 4);
        let r = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"12345"}]}]});
        assert_eq!(chars(&r), 5);
    }

    #[test]
    fn tokens_sum_parts_and_say_where_the_cost_comes_from() {
        let p = Prices::bundled();
        let priced = |u: &'static Usage, model: &'static str| Call::priced(u, None, Some(model), p);
        static A: Usage = Usage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            cache_write_1h: 0,
            total: Some(99),
            cost: None,
        };
        static B: Usage = Usage {
            input: 0,
            output: 0,
            cache_read: 0,
            cache_write: 0,
            cache_write_1h: 0,
            total: None,
            cost: Some(0.5),
        };
        let mut t = Tokens::default();
        t.call(None);
        assert_eq!((t.calls, t.cost, t.cost_source), (1, None, None), "no usage: no cost at all");
        t.call(Some(&priced(&A, "no-such-model")));
        assert_eq!((t.calls, t.total, t.cost, t.cost_source), (2, 10, None, Some(CostSource::Unknown)));
        assert_eq!(t.unpriced_models, BTreeSet::from(["no-such-model".to_string()]));
        let mut t = Tokens::default();
        t.call(Some(&priced(&B, "no-such-model")));
        assert_eq!((t.cost, t.cost_source), (Some(0.5), Some(CostSource::Recorded)));
        t.call(Some(&priced(&A, "claude-opus-4-6")));
        assert_eq!(t.cost_source, Some(CostSource::Mixed));
        // 1 x $5 + 2 x $25 + 3 x $0.50 + 4 x $6.25 per million.
        let est = (5.0 + 50.0 + 1.5 + 25.0) / 1e6;
        assert!((t.cost.unwrap() - (0.5 + est)).abs() < 1e-12);
    }
}
