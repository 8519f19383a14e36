//! The `trace` view: where the time went, run by run. A run is one user message and the
//! work it caused; its spans are model calls, tool calls and events.
//!
//! crab records spans itself (`obs` records grouped by `run_id`, FORMATS.md 2.2-2.3). arcturn
//! does not, so its trace is derived from the messages on one branch: a run per user
//! message, a model call per assistant message, a tool call per tool result, each timed
//! from the previous entry's timestamp. This module computes; it never prints.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::ahead;
use crate::call_cost;
use crate::content::Content;
use crate::model::{Entry, Id, Kind, Observation, Outcome, OwnedId, Role, Usage};
use crate::prefetch;
use crate::session::Session;
use crate::tree::Ix;

/// crab truncates error texts to this many characters; arcturn's are cut the same way.
pub const ERROR_CHARS: usize = 128;
/// How much of a run's prompt the view keeps.
const PROMPT_CHARS: usize = 200;

#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Complete,
    Interrupted,
    /// No `turn_end` (crab), or the last model call asked for tools that never answered
    /// (arcturn): still running, or the agent was killed.
    Open,
}

#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    LlmCall,
    ToolCall,
    Event,
}

#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpanOutcome {
    Ok,
    Aborted,
    Error,
}

/// One session's runs, in the order they started. Its names (models, tools, ids) are
/// borrowed from the session `'s`.
#[derive(Serialize, Debug, Default)]
pub struct Trace<'s> {
    /// arcturn: the entry whose branch was traced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf: Option<Value>,
    pub runs: Vec<Run<'s>>,
}

#[derive(Serialize, Debug)]
pub struct Run<'s> {
    /// crab: the `run_id` string. arcturn: the user message's entry id, typed as in the
    /// file (for a run of entries before any user message: its first entry's id).
    pub run_id: Value,
    pub status: Status,
    pub stop_reason: Option<String>,
    pub start_ms: Option<i64>,
    pub duration_ms: Option<u64>,
    /// Counted from the spans.
    pub llm_calls: u64,
    pub tool_calls: u64,
    /// What crab's `turn_end` says, when it says it (may differ from the spans counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_llm_calls: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_tool_calls: Option<u64>,
    /// Spans whose outcome is `error`.
    pub errors: u64,
    pub usage: Usage,
    /// Recorded cost in dollars (arcturn), null when none is recorded.
    pub cost: Option<f64>,
    /// A usage or cost sum passed what it can hold and is held at its maximum.
    pub usage_overflow: bool,
    /// Line of the run's first record.
    pub line: u32,
    /// The start of the user's message (arcturn; crab when its message can be placed).
    pub prompt: Option<String>,
    pub spans: Vec<Span<'s>>,
}

impl Run<'_> {
    /// Ask for what writing the run's rows or JSON reads beyond the run itself: the texts of
    /// its spans (names and ids borrowed from their lines, all over the file; errors and
    /// arguments made on other threads), their entries' ids and the usage their calls
    /// recorded ([`crate::prefetch`]). (The spans table asks for each run's while it writes
    /// the one before: 3% faster over the bench file; `trace --json`, tried, gained nothing
    /// measurable.)
    pub fn prefetch(&self) {
        self.prompt.as_deref().into_iter().for_each(prefetch::text);
        for sp in &self.spans {
            sp.error.as_deref().into_iter().for_each(prefetch::text);
            if let Some(id) = sp.entry_id {
                prefetch::value(id);
            }
            match &sp.detail {
                Detail::Llm { provider, model, stop_reason, usage, .. } => {
                    [provider, model, stop_reason].into_iter().flatten().for_each(|t| prefetch::text(t));
                    if let Some(u) = usage.0 {
                        prefetch::value(u);
                    }
                }
                Detail::Tool { tool, tool_call_id, argument, .. } => {
                    [tool, tool_call_id].into_iter().flatten().for_each(|t| prefetch::text(t));
                    argument.as_deref().into_iter().for_each(prefetch::text);
                }
                Detail::Event { obs, .. } => prefetch::text(obs),
            }
        }
    }

    pub fn failed(&self) -> bool {
        self.errors > 0
    }
}

#[derive(Serialize, Debug)]
pub struct Span<'s> {
    pub kind: SpanKind,
    pub start_ms: Option<i64>,
    pub duration_ms: Option<u64>,
    pub outcome: SpanOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub line: u32,
    /// arcturn: the entry the span was derived from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<&'s Id<'s>>,
    #[serde(flatten)]
    pub detail: Detail<'s>,
}

/// What each kind of span adds.
#[derive(Serialize, Debug)]
#[serde(untagged)]
pub enum Detail<'s> {
    Llm {
        provider: Option<&'s str>,
        model: Option<&'s str>,
        /// The usage as the call recorded it, total and cost included; shown as its four
        /// counts (zeros when it recorded none; the span's `cost` is the call's).
        usage: Recorded<'s>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_reason: Option<&'s str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cost: Option<f64>,
    },
    Tool {
        tool: Option<&'s str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<&'s str>,
        /// arcturn: the call's main argument (a path, a command), as a short preview.
        #[serde(skip_serializing_if = "Option::is_none")]
        argument: Option<String>,
        /// (Boxed: few traces are crab's, and the other spans need not carry its 80 bytes.)
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        crab: Option<Box<CrabTool<'s>>>,
    },
    Event {
        obs: &'s str,
        #[serde(flatten)]
        fields: Fields<'s>,
    },
}

/// A model call's usage as its line or observation recorded it (`None`: it recorded none),
/// borrowed where a span kept a copy of it (a span of 144 bytes, not 216). Written as the
/// four counts of [`Usage`]'s own `Serialize` (which leaves out its total and cost), zeros
/// when none was recorded.
#[derive(Clone, Copy, Debug)]
pub struct Recorded<'s>(pub Option<&'s Usage>);

impl Recorded<'_> {
    /// The four counts, the recorded total and cost left out.
    pub fn counts(self) -> Usage {
        self.0.map(|u| Usage { total: None, cost: None, ..*u }).unwrap_or_default()
    }
}

impl Serialize for Recorded<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(u) => u.serialize(s),
            None => Usage::default().serialize(s),
        }
    }
}

/// An event's own fields: the record minus what every span already says. A crab event's
/// are read from its line when they are asked for (a trace of many events holds none of
/// them, and `rows` never asks).
pub enum Fields<'s> {
    /// Made by the trace (arcturn's events; boxed, as few spans are events).
    Made(Box<Map<String, Value>>),
    /// The record on this line of the session.
    Line(&'s Session<'s>, std::ops::Range<usize>),
}

impl Fields<'_> {
    /// The fields, read from the line when they are not kept.
    pub fn map(&self) -> std::borrow::Cow<'_, Map<String, Value>> {
        const COMMON: &[&str] = &["kind", "run_id", "ts", "obs", "outcome", "duration_ms", "start_ms", "line", "error"];
        match self {
            Fields::Made(m) => std::borrow::Cow::Borrowed(&**m),
            Fields::Line(s, span) => std::borrow::Cow::Owned(match s.value_at(span.clone()) {
                Ok(Value::Object(m)) => m.into_iter().filter(|(k, _)| !COMMON.contains(&k.as_str())).collect(),
                _ => Map::new(),
            }),
        }
    }
}

impl Serialize for Fields<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.map().serialize(serializer)
    }
}

impl std::fmt::Debug for Fields<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fields::Made(m) => f.debug_tuple("Made").field(m).finish(),
            Fields::Line(_, span) => f.debug_tuple("Line").field(span).finish(),
        }
    }
}

/// The fields only crab records for a tool call.
#[derive(Serialize, Debug)]
pub struct CrabTool<'s> {
    pub call_seq: Option<u64>,
    pub bytes_in: Option<u64>,
    pub bytes_out: Option<u64>,
    pub args_digest: Option<&'s str>,
    pub result_digest: Option<&'s str>,
}

impl Span<'_> {
    pub fn end_ms(&self) -> Option<i64> {
        self.start_ms.map(|s| s + self.duration_ms.unwrap_or(0) as i64)
    }
}

/// What a trace reads back from the lines beside the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texts {
    /// All it shows: the runs' prompts, operator messages, the main argument of each tool
    /// call, and why calls failed.
    All,
    /// Why calls failed, and nothing else (the spans table shows no prompt and no
    /// argument): the lines of prompts and of the messages that make tool calls, a third of
    /// a long branch, are not read again. The runs have no prompt, the tool spans no
    /// argument, operator events no text; everything else is as [`Texts::All`] makes it.
    Errors,
}

/// The trace of a session: crab from its observations, arcturn from the branch to `leaf`
/// (default: the latest entry).
pub fn trace<'s>(s: &'s Session<'_>, leaf: Option<Ix>) -> Trace<'s> {
    trace_with(s, leaf, Texts::All)
}

/// [`trace`], reading back only `texts` from the lines.
pub fn trace_with<'s>(s: &'s Session<'_>, leaf: Option<Ix>, texts: Texts) -> Trace<'s> {
    if s.observed {
        return crab(s, texts);
    }
    match leaf.or_else(|| s.tree.latest()) {
        Some(l) => arcturn(s, l, texts),
        None => Trace::default(),
    }
}

fn outcome_of(o: Option<&Outcome<'_>>) -> (SpanOutcome, Option<String>) {
    match o {
        None | Some(Outcome::Ok) => (SpanOutcome::Ok, None),
        Some(Outcome::Aborted) => (SpanOutcome::Aborted, None),
        Some(Outcome::Error(t)) => (SpanOutcome::Error, Some(t.to_string())),
        // An outcome this tool does not know is not a success it can vouch for.
        Some(Outcome::Other(raw)) => (SpanOutcome::Error, Some(format!("unrecognized outcome {raw}"))),
    }
}

fn crab<'s>(s: &'s Session<'_>, texts: Texts) -> Trace<'s> {
    // Group by run id in order of first appearance; records without one share a group.
    let mut groups: Vec<Vec<&Observation<'_>>> = Vec::new();
    let mut by_id: HashMap<Option<&str>, usize> = HashMap::new();
    for o in &s.observations {
        let g = *by_id.entry(o.run_id.as_deref()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(o);
    }
    let prompts = if texts == Texts::All { crab_prompts(s) } else { Vec::new() };
    let runs = groups.into_iter().map(|g| crab_run(s, &g, &prompts)).collect();
    Trace { leaf: None, runs }
}

/// crab messages carry no run id; a run's prompt is the user message written between its
/// first and last observation lines. The user messages' lines and entries, in line order.
fn crab_prompts(s: &Session<'_>) -> Vec<(u32, Ix)> {
    let users = s.entries.iter().enumerate().filter(|(_, e)| e.message.as_ref().is_some_and(|m| m.role == Role::User));
    let mut prompts: Vec<(u32, Ix)> = users.map(|(i, e)| (e.line, i as Ix)).collect();
    // Already so (the format has no pass that moves entries): kept so by construction.
    prompts.sort_by_key(|&(line, _)| line);
    prompts
}

fn crab_run<'s>(s: &'s Session<'_>, obs: &[&'s Observation<'_>], prompts: &[(u32, Ix)]) -> Run<'s> {
    let mut start: Option<&Observation<'_>> = None;
    let mut end: Option<&Observation<'_>> = None;
    let mut spans = Vec::new();
    for &o in obs {
        match o.tag.as_ref() {
            "turn_start" if start.is_none() => start = Some(o),
            "turn_end" if end.is_none() => end = Some(o),
            _ => spans.push(crab_span(s, o)),
        }
    }
    // Spans in `ts` order; a span without `ts` stays after the one before it in the file.
    let mut last = i64::MIN;
    let mut keyed: Vec<(i64, Span<'s>)> = spans
        .into_iter()
        .map(|sp| {
            last = sp.start_ms.unwrap_or(last);
            (last, sp)
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    let spans: Vec<Span<'s>> = keyed.into_iter().map(|(_, sp)| sp).collect();

    let run_start = start.and_then(|o| o.ts).or_else(|| spans.iter().filter_map(|sp| sp.start_ms).min());
    let run_end = end
        .and_then(|o| o.ts)
        .or_else(|| spans.iter().filter_map(Span::end_ms).max())
        .or_else(|| obs.iter().filter_map(|o| o.ts).max());
    let status = match end {
        Some(e) if e.interrupted == Some(true) => Status::Interrupted,
        Some(_) => Status::Complete,
        None => Status::Open,
    };
    let first_line = obs.iter().map(|o| o.line).min().unwrap_or(0);
    let last_line = obs.iter().map(|o| o.line).max().unwrap_or(0);
    // The first user message inside the run: found by halving, since the prompts are in line
    // order (a search from the first prompt for every run took 14 s over 200,000 runs).
    let prompt = prompts
        .get(prompts.partition_point(|&(l, _)| l <= first_line))
        .filter(|&&(l, _)| l < last_line)
        .and_then(|&(_, i)| prompt_of(&s.content(i).ok()?));
    let mut run = Run {
        run_id: obs.first().and_then(|o| o.run_id.as_deref()).map(Value::from).unwrap_or(Value::Null),
        status,
        stop_reason: end.and_then(|e| e.stop_reason.as_deref()).map(str::to_string),
        start_ms: run_start,
        duration_ms: duration(run_start, run_end),
        llm_calls: 0,
        tool_calls: 0,
        recorded_llm_calls: end.and_then(|e| e.llm_calls),
        recorded_tool_calls: end.and_then(|e| e.tool_calls),
        errors: 0,
        usage: Usage::default(),
        cost: None,
        usage_overflow: false,
        line: first_line,
        prompt,
        spans,
    };
    tally(&mut run, true);
    run
}

fn crab_span<'s>(s: &'s Session<'_>, o: &'s Observation<'_>) -> Span<'s> {
    let (outcome, error) = outcome_of(o.outcome.as_ref());
    let (kind, detail) = match o.tag.as_ref() {
        "llm_call" => (
            SpanKind::LlmCall,
            Detail::Llm {
                provider: o.provider.as_deref(),
                model: o.model.as_deref(),
                usage: Recorded(o.usage.as_ref()),
                stop_reason: None,
                cost: None,
            },
        ),
        "tool_call" => (
            SpanKind::ToolCall,
            Detail::Tool {
                tool: o.tool.as_deref(),
                tool_call_id: None,
                argument: None,
                crab: Some(Box::new(CrabTool {
                    call_seq: o.call_seq,
                    bytes_in: o.bytes_in,
                    bytes_out: o.bytes_out,
                    args_digest: o.args_digest.as_deref(),
                    result_digest: o.result_digest.as_deref(),
                })),
            },
        ),
        tag => (SpanKind::Event, Detail::Event { obs: tag, fields: Fields::Line(s, o.span.clone()) }),
    };
    Span { kind, start_ms: o.ts, duration_ms: o.duration_ms, outcome, error, line: o.line, entry_id: None, detail }
}

fn duration(start: Option<i64>, end: Option<i64>) -> Option<u64> {
    match (start, end) {
        (Some(a), Some(b)) if b >= a => Some((b - a) as u64),
        _ => None,
    }
}

/// Count calls, errors and usage from the spans. With `whole`, each call's usage is added
/// with its recorded total and cost (crab's observations), else as its four counts (a sum
/// past `u64::MAX` is then said by the counts alone).
fn tally(run: &mut Run, whole: bool) {
    for sp in &run.spans {
        match &sp.detail {
            Detail::Llm { usage, cost, .. } => {
                run.llm_calls += 1;
                let (sum, cost_over) = crate::model::add_cost(run.cost, *cost);
                run.cost = sum;
                let usage = match (whole, usage.0) {
                    (true, Some(u)) => *u,
                    _ => usage.counts(),
                };
                run.usage_overflow |= run.usage.add(&usage) | cost_over;
            }
            Detail::Tool { .. } => run.tool_calls += 1,
            Detail::Event { .. } => {}
        }
        if sp.outcome == SpanOutcome::Error {
            run.errors += 1;
        }
    }
    // `Usage::add` keeps a running total; the view shows only the four parts and cost.
    run.usage.total = None;
    run.usage.cost = None;
}

fn arcturn<'s>(s: &'s Session<'_>, leaf: Ix, texts: Texts) -> Trace<'s> {
    let path = s.tree.path(leaf);
    let steps = Steps::of(s, &path, texts);
    let mut b = Runs::default();
    let taken = ahead::items(
        path.len(),
        STEP_BATCH,
        |p| steps.step(p),
        |batch| {
            batch.drain(..).for_each(|step| b.add(step));
            Ok::<(), std::convert::Infallible>(())
        },
    );
    let Ok(()) = taken;
    if let (true, Some(first)) = (b.runs.is_empty(), b.before_first.first()) {
        // Only events on the branch: one run holds them, as before any prompt.
        let (line, start) = (first.line, first.start_ms);
        let end = b.before_first.iter().filter_map(Span::end_ms).max();
        b.start_run(s.entry(path[path.iter().position(|&i| s.entry(i).line == line).unwrap_or(0)]), start, None);
        b.runs[0].duration_ms = duration(start, end);
    }
    let Runs { mut runs, last_stop, .. } = b;
    for (run, stop) in runs.iter_mut().zip(last_stop) {
        let last_is_tool =
            run.spans.iter().rev().find(|sp| sp.kind != SpanKind::Event).map(|sp| sp.kind) == Some(SpanKind::ToolCall);
        run.status = match stop {
            Some("aborted") => Status::Interrupted,
            // Tools were asked for and the model never saw their results.
            Some("toolUse") => Status::Open,
            _ if last_is_tool => Status::Open,
            _ => Status::Complete,
        };
        run.stop_reason = stop.map(str::to_string);
        tally(run, false);
    }
    Trace { leaf: Some(s.entry(leaf).id.to_json()), runs }
}

/// The runs of a traced path as its steps are added in path order.
#[derive(Default)]
struct Runs<'s> {
    runs: Vec<Run<'s>>,
    /// The stop reason of each run's last model call.
    last_stop: Vec<Option<&'s str>>,
    /// Tool call id (packed) -> main argument, from the assistant messages seen so far on
    /// the path.
    args: crate::format::FastMap<OwnedId, String>,
    /// Events before the first run, which they will belong to.
    before_first: Vec<Span<'s>>,
}

impl<'s> Runs<'s> {
    fn add(&mut self, step: Step<'s>) {
        let (e, ts) = (step.entry, step.ts);
        self.args.extend(step.arguments);
        if step.user {
            self.start_run(e, ts, step.prompt);
        } else if let Some(mut span) = step.span {
            if let (Some(call), Detail::Tool { argument, .. }) = (&step.call, &mut span.detail) {
                *argument = self.args.get(call).filter(|a| !a.is_empty()).cloned();
            }
            if self.runs.is_empty() && span.kind == SpanKind::Event {
                self.before_first.push(span);
                return;
            }
            if self.runs.is_empty() {
                self.start_run(e, ts, None);
            }
            if let Detail::Llm { stop_reason, .. } = &span.detail {
                *self.last_stop.last_mut().expect("a run was started") = *stop_reason;
            }
            self.runs.last_mut().expect("a run was started").spans.push(span);
        }
        if let (Some(run), Some(t)) = (self.runs.last_mut(), ts) {
            // The run lasts until its last entry, whatever its kind.
            run.duration_ms = duration(run.start_ms, Some(t)).or(run.duration_ms);
        }
    }

    /// A run starting at `e`. Operator messages before the first prompt (instructions an
    /// agent injects) belong to the first run rather than making a run of their own.
    fn start_run(&mut self, e: &Entry<'_>, ts: Option<i64>, prompt: Option<String>) {
        self.runs.push(Run {
            run_id: e.id.to_json(),
            status: Status::Complete,
            stop_reason: None,
            start_ms: ts,
            duration_ms: None,
            llm_calls: 0,
            tool_calls: 0,
            recorded_llm_calls: None,
            recorded_tool_calls: None,
            errors: 0,
            usage: Usage::default(),
            cost: None,
            usage_overflow: false,
            line: e.line,
            prompt,
            spans: std::mem::take(&mut self.before_first),
        });
        self.last_stop.push(None);
    }
}

/// What the trace shows of one path entry's payload, read from its line(s).
#[derive(Default)]
struct Payload {
    /// A prompt's or an operator message's first text, cut to [`PROMPT_CHARS`].
    prompt: Option<String>,
    /// Why a model call or a tool call failed, cut to [`ERROR_CHARS`].
    error: Option<String>,
    /// Tool call id (packed) -> main argument, for the message's tool calls.
    arguments: Vec<(OwnedId, String)>,
}

/// One entry of the traced path: its time, and what it adds to the trace.
struct Step<'s> {
    entry: &'s Entry<'s>,
    ts: Option<i64>,
    /// A user message: it starts a run, with this prompt.
    user: bool,
    prompt: Option<String>,
    /// Tool call id (packed) -> main argument, for the message's tool calls.
    arguments: Vec<(OwnedId, String)>,
    /// The span of anything else, if it is one (a tool span's argument not filled in yet:
    /// its call is on an earlier entry).
    span: Option<Span<'s>>,
    /// A tool span's call id, packed: the key of its call's argument. (Ids are packed on
    /// the workers, so that this thread hashes and compares ids it holds, not text it would
    /// read from the file or from another thread's memory.)
    call: Option<OwnedId>,
}

/// How many steps are built at a time: the trace holds its spans, and need not hold every
/// step of a long branch besides (a few hundred bytes each), only two batches (one added to
/// the runs while the next is built).
const STEP_BATCH: usize = 16 * 1024;

/// The steps of a path, each built on its own (in parallel, a batch at a time: the index
/// keeps no payloads, and re-reading lines is most of a trace's work on a long branch). Each
/// span is timed from the last time before its entry on the path, which is known before any
/// line is read.
struct Steps<'s, 'p> {
    s: &'s Session<'s>,
    path: &'p [Ix],
    /// Each entry's time.
    times: Vec<Option<i64>>,
    /// The last time before each entry.
    before: Vec<Option<i64>>,
    texts: Texts,
}

impl<'s, 'p> Steps<'s, 'p> {
    fn of(s: &'s Session<'_>, path: &'p [Ix], texts: Texts) -> Self {
        let times: Vec<Option<i64>> = path
            .iter()
            .map(|&i| {
                let e = s.entry(i);
                e.timestamp.get().or_else(|| e.message.as_ref().and_then(|m| m.timestamp.get()))
            })
            .collect();
        let before: Vec<Option<i64>> = times
            .iter()
            .scan(None, |last: &mut Option<i64>, &t| {
                let prev = *last;
                *last = t.or(prev);
                Some(prev)
            })
            .collect();
        Steps { s, path, times, before, texts }
    }

    /// The step of the `p`th entry of the path.
    fn step(&self, p: usize) -> Step<'s> {
        let i = self.path[p];
        let e = self.s.entry(i);
        let mut payload = payload(self.s, i, self.texts);
        let arguments = std::mem::take(&mut payload.arguments);
        let user = e.message.as_ref().is_some_and(|m| m.role == Role::User);
        let (prompt, span) = if user {
            (payload.prompt, None)
        } else {
            (None, arcturn_span(e, payload, (self.before[p], self.times[p])))
        };
        let call = match &span {
            Some(Span { detail: Detail::Tool { tool_call_id: Some(id), .. }, .. }) => Some(Id::copied(id)),
            _ => None,
        };
        Step { entry: e, ts: self.times[p], user, prompt, arguments, span, call }
    }
}

/// What the payload of an entry on the traced path shows. Only the lines whose payload shows
/// are read: prompts and operator messages, messages with tool calls (for their arguments;
/// the index records which those are), and failed model and tool calls; with
/// [`Texts::Errors`], the failed calls only.
fn payload(s: &Session<'_>, i: Ix, texts: Texts) -> Payload {
    let Some(m) = s.entry(i).message.as_ref() else { return Payload::default() };
    let all = texts == Texts::All;
    let prompt = all && matches!(m.role, Role::User | Role::System);
    let arguments = all && !m.tool_calls.is_empty();
    let failed = match m.role {
        Role::Assistant => m.stop_reason() == Some("error"),
        Role::ToolResult => m.tool_results.first().is_some_and(|r| r.is_error),
        _ => false,
    };
    if !prompt && !failed && !arguments {
        return Payload::default();
    }
    let content = s.content(i).ok();
    let c = content.as_ref();
    let error = failed.then(|| match m.role {
        Role::Assistant => assistant_error(c),
        _ => c
            .and_then(Content::first_text)
            .map(|t| t.chars().take(ERROR_CHARS).collect())
            .unwrap_or_else(|| "tool reported an error".into()),
    });
    Payload {
        prompt: prompt.then(|| c.and_then(prompt_of)).flatten(),
        error,
        arguments: if arguments { c.map(call_arguments).unwrap_or_default() } else { Vec::new() },
    }
}

fn arcturn_span<'s>(e: &'s Entry<'_>, payload: Payload, (prev, ts): (Option<i64>, Option<i64>)) -> Option<Span<'s>> {
    let span = |kind, outcome, error, detail| Span {
        kind,
        start_ms: prev.or(ts),
        duration_ms: if prev.is_some() { duration(prev, ts) } else { None },
        outcome,
        error,
        line: e.line,
        entry_id: Some(&e.id),
        detail,
    };
    if let Some(m) = &e.message {
        return match m.role {
            Role::Assistant => {
                let stop = m.stop_reason();
                let (outcome, error) = match stop {
                    Some("error") => (SpanOutcome::Error, payload.error),
                    Some("aborted") => (SpanOutcome::Aborted, None),
                    _ => (SpanOutcome::Ok, None),
                };
                Some(span(
                    SpanKind::LlmCall,
                    outcome,
                    error,
                    Detail::Llm {
                        provider: m.provider(),
                        model: m.model(),
                        usage: Recorded(m.usage()),
                        stop_reason: stop,
                        cost: call_cost::of(m.usage(), m.provider(), m.model()).dollars,
                    },
                ))
            }
            Role::ToolResult => {
                let r = m.tool_results.first();
                let failed = r.is_some_and(|r| r.is_error);
                Some(span(
                    SpanKind::ToolCall,
                    if failed { SpanOutcome::Error } else { SpanOutcome::Ok },
                    payload.error,
                    Detail::Tool {
                        tool: r.and_then(|r| r.tool_name.as_deref()),
                        tool_call_id: r.and_then(|r| r.call_id.as_deref()),
                        // Filled in from the call, in path order.
                        argument: None,
                        crab: None,
                    },
                ))
            }
            Role::System => {
                let mut f = Map::new();
                f.insert("text".into(), payload.prompt.map(Value::from).unwrap_or(Value::Null));
                Some(event(span, "operator", f))
            }
            Role::User | Role::Other => None,
        };
    }
    match e.kind() {
        Kind::Compaction => {
            let c = e.compaction()?;
            let mut f = Map::new();
            f.insert("tokens_before".into(), c.tokens_before.into());
            f.insert("tokens_after".into(), c.tokens_after.into());
            f.insert("up_to_id".into(), c.up_to.as_ref().map(|i| i.to_json()).unwrap_or(Value::Null));
            Some(event(span, "compaction", f))
        }
        Kind::State => {
            let ce = e.state()?.context_edit.as_ref()?;
            let mut f = Map::new();
            f.insert("elided".into(), ce.elided.len().into());
            f.insert(
                "withhold_thinking".into(),
                ce.withhold_thinking.as_deref().map(Value::from).unwrap_or(Value::Null),
            );
            Some(event(span, "context_edit", f))
        }
        _ => None,
    }
}

fn event<'s, F>(span: F, obs: &'static str, fields: Map<String, Value>) -> Span<'s>
where
    F: FnOnce(SpanKind, SpanOutcome, Option<String>, Detail<'s>) -> Span<'s>,
{
    let mut sp =
        span(SpanKind::Event, SpanOutcome::Ok, None, Detail::Event { obs, fields: Fields::Made(Box::new(fields)) });
    // An event is an instant, when its entry was written: no duration of its own.
    sp.start_ms = sp.end_ms();
    sp.duration_ms = None;
    sp
}

/// The error text of a model call that ended in an error, when the format records one.
fn assistant_error(c: Option<&Content>) -> String {
    match c.and_then(|c| c.error.as_deref()) {
        Some(t) => t.chars().take(ERROR_CHARS).collect(),
        None => "the model call ended in an error".into(),
    }
}

/// Totals over a trace, for summary lines.
#[derive(Serialize, Debug, Default, Clone)]
pub struct Summary {
    pub runs: u64,
    pub complete: u64,
    pub interrupted: u64,
    pub open: u64,
    pub llm_calls: u64,
    pub tool_calls: u64,
    pub errors: u64,
    pub duration_ms: u64,
    pub usage: Usage,
    /// A usage sum passed `u64::MAX` and is held there.
    pub usage_overflow: bool,
}

impl Trace<'_> {
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for r in &self.runs {
            s.runs += 1;
            match r.status {
                Status::Complete => s.complete += 1,
                Status::Interrupted => s.interrupted += 1,
                Status::Open => s.open += 1,
            }
            s.llm_calls += r.llm_calls;
            s.tool_calls += r.tool_calls;
            s.errors += r.errors;
            s.duration_ms = s.duration_ms.saturating_add(r.duration_ms.unwrap_or(0));
            s.usage_overflow |= s.usage.add(&r.usage) | r.usage_overflow;
        }
        s
    }
}

/// The first text of a message, cut to what a trace shows.
fn prompt_of(c: &Content) -> Option<String> {
    c.first_text().map(|t| t.chars().take(PROMPT_CHARS).collect())
}

/// Tool call id (packed) -> main argument, for every tool call block of a message.
fn call_arguments(c: &Content) -> Vec<(OwnedId, String)> {
    c.tool_calls().filter_map(|(id, _, args)| Some((Id::copied(id?), crate::preview::main_argument(args)))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace holds a span for every model call and tool call of its branch (hundreds of
    /// thousands on a long one): its size is what the trace's memory grows by.
    #[test]
    fn a_span_stays_small() {
        assert_eq!(std::mem::size_of::<Span>(), 144);
    }
}
