//! `trace FILE...`: the span tree of every run, with a bar per span showing where in the
//! run its time went. `--run` and `--errors` select runs; `--leaf` picks an arcturn branch.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::{io_err, Ctx, DocHead, Outcome, Tally};
use crate::cli::TraceArgs;
use crate::error::{Error, Result};
use crate::model::Format;
use crate::preview::tokens;
use crate::render::fit;
use crate::render::{json, Palette};
use crate::sanitize;
use crate::source::Source;
use crate::time::format_duration;
use crate::trace::{self, Detail, Run, Span, SpanKind, SpanOutcome, Status, Trace};

/// Width of the time bar, in cells.
/// Cells of a span's time bar on a wide terminal; narrower ones get fewer.
const BAR: usize = 24;

/// Bar cells for a line of `width` columns: the bar gives way to the text first.
fn bar_cells(width: usize) -> usize {
    (width.saturating_sub(40) / 4).clamp(8, BAR)
}

pub fn run(ctx: &Ctx, a: &TraceArgs, out: &mut dyn Write) -> Result<Outcome> {
    let files = ctx.expand(&a.files)?;
    let mut run_found = false;
    let mut tally = Tally::default();
    let mut shown = 0;
    for (n, f) in files.iter().enumerate() {
        let last = n + 1 == files.len();
        let fail = |tally: &mut Tally, e: Error| {
            if let Some(line) = tally.fail(ctx, f, &e) {
                let _ = writeln!(ctx.stderr(), "{line}");
            }
        };
        let src = match Source::open(&f.path, ctx.read_options()) {
            Ok(src) => src,
            Err(e) => {
                fail(&mut tally, e);
                continue;
            }
        };
        let src = if last { super::keep_until_exit(src) } else { &src };
        let s = match ctx.load(src) {
            Ok(s) => s,
            Err(e) => {
                fail(&mut tally, e);
                continue;
            }
        };
        let leaf = match &a.leaf {
            Some(_) if s.observed => {
                ctx.note(&format!(
                    "{}: --leaf is ignored for {} sessions (their runs come from observations)",
                    sanitize::inline(s.name()),
                    s.format
                ));
                None
            }
            Some(id) => Some(s.find(id)?),
            None => None,
        };
        let mut t = trace::trace(&s, leaf);
        if let Some(want) = &a.run {
            let keep = select_run(&t, want).map_err(|m| Error::Usage(format!("{}: {m}", s.name())))?;
            t.runs.retain(|r| keep.contains(&r.run_id));
            run_found |= !t.runs.is_empty();
        }
        if a.errors {
            t.runs.retain(Run::failed);
        }
        if ctx.global.json {
            write_json(out, &s, &t).map_err(io_err)?;
        } else {
            if shown > 0 {
                writeln!(out).map_err(io_err)?;
            }
            human(&t, s.name(), (s.format, s.observed), a, &ctx.palette, ctx.width, out).map_err(io_err)?;
        }
        shown += 1;
        tally.read(&s);
        if last {
            super::release(s);
        }
    }
    tally.exit(false)?;
    if let (Some(want), false) = (&a.run, run_found) {
        return Err(Error::Usage(format!("no run `{}` in the input", sanitize::inline(want))));
    }
    Ok(Outcome::Success)
}

/// The run ids `--run` names: an exact id, else a unique prefix (arcturn ids are long).
fn select_run(t: &Trace, want: &str) -> std::result::Result<Vec<Value>, String> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let exact: Vec<Value> = t.runs.iter().filter(|r| text(&r.run_id) == want).map(|r| r.run_id.clone()).collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    let prefixed: Vec<Value> =
        t.runs.iter().filter(|r| text(&r.run_id).starts_with(want)).map(|r| r.run_id.clone()).collect();
    match prefixed.len() {
        0 | 1 => Ok(prefixed),
        n => Err(format!("run id prefix `{}` is ambiguous ({n} runs match)", sanitize::inline(want))),
    }
}

/// About the bytes of a run in a trace's JSON (a dozen spans): its chunks of runs are sized
/// by it ([`json::write_with_items`]).
const RUN_BYTES: usize = 4096;

/// The `--json` document of the trace `t` of `s`: [`DocHead`]'s members, then [`Trace`]'s.
/// The runs are most of it: serialized on every worker, in order ([`json::write_with_array`]).
fn write_json(out: &mut dyn Write, s: &crate::session::Session<'_>, t: &Trace) -> std::io::Result<()> {
    let doc = TraceHead { head: DocHead::of(s), leaf: t.leaf.as_ref() };
    json::write_with_array(out, &doc, "runs", &t.runs, RUN_BYTES)
}

/// A trace's document but its runs, which [`write_json`] adds as its last member: the
/// members of [`DocHead`], then those of [`Trace`] before `runs` (its last).
#[derive(Serialize)]
struct TraceHead<'s> {
    #[serde(flatten)]
    head: DocHead<'s>,
    #[serde(skip_serializing_if = "Option::is_none")]
    leaf: Option<&'s Value>,
}

fn human(
    t: &Trace,
    file: &str,
    (format, observed): (Format, bool),
    a: &TraceArgs,
    p: &Palette,
    width: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let sum = t.summary();
    let branch = match &t.leaf {
        Some(Value::String(leaf)) => format!(" branch to {}", fit::truncate(&sanitize::inline(leaf), 8)),
        _ => String::new(),
    };
    let room = width.saturating_sub(fit::width(&format!(" ({format}){branch}")));
    let file = fit::truncate_start(&sanitize::inline(file), room).into_owned();
    writeln!(out, "{} ({format}){}", p.bold(file), p.dim(branch))?;
    if t.runs.is_empty() {
        let why = match (a.errors, a.run.is_some()) {
            (true, _) => "no run has a failing span",
            (false, true) => "no matching run",
            _ if observed => "no runs: the file has no observation records",
            _ => "no runs: the branch has no messages",
        };
        return writeln!(out, "  {}", p.dim(why));
    }
    // One name column for the whole trace, so bars line up from run to run.
    let spans = t.runs.iter().flat_map(|r| &r.spans);
    // At most a quarter of the line (40 columns on a wide terminal), all of it with --wide.
    let cap = if width >= crate::render::UNLIMITED { usize::MAX } else { (width / 4).clamp(12, 40) };
    let name_w =
        spans.map(|sp| fit::width(&sanitize::inline(&span_name(sp)))).max().unwrap_or(0).clamp(12.min(cap), cap);
    for r in &t.runs {
        run_block(r, name_w, p, width, out)?;
    }
    let mut parts = vec![format!("{} run{}", sum.runs, if sum.runs == 1 { "" } else { "s" })];
    let mut states = vec![format!("{} complete", sum.complete)];
    if sum.interrupted > 0 {
        states.push(format!("{} interrupted", sum.interrupted));
    }
    if sum.open > 0 {
        states.push(format!("{} open", sum.open));
    }
    parts[0].push_str(&format!(" ({})", states.join(", ")));
    parts.push(format!("{} llm call{}", sum.llm_calls, if sum.llm_calls == 1 { "" } else { "s" }));
    parts.push(format!("{} tool call{}", sum.tool_calls, if sum.tool_calls == 1 { "" } else { "s" }));
    parts.push(usage_text(&sum.usage));
    parts.push(format_duration(sum.duration_ms));
    parts[0].insert_str(0, "session: ");
    let failing = format!("{} failing span{}", sum.errors, if sum.errors == 1 { "" } else { "s" });
    if sum.errors > 0 {
        parts.push(failing.clone());
    }
    for l in fit::wrap_parts(&parts, " · ", width, 2) {
        match l.strip_suffix(failing.as_str()).filter(|_| sum.errors > 0) {
            Some(before) => writeln!(out, "{}{}", p.bold(before), p.error(&failing))?,
            None => writeln!(out, "{}", p.bold(l))?,
        }
    }
    Ok(())
}

fn usage_text(u: &crate::model::Usage) -> String {
    let mut s = format!("{} in, {} out", tokens(u.input), tokens(u.output));
    if u.cache_read > 0 {
        s.push_str(&format!(", {} cache read", tokens(u.cache_read)));
    }
    if u.cache_write > 0 {
        s.push_str(&format!(", {} cache write", tokens(u.cache_write)));
    }
    s
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Complete => "complete",
        Status::Interrupted => "interrupted",
        Status::Open => "open",
    }
}

fn run_block(r: &Run, name_w: usize, p: &Palette, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let id = match &r.run_id {
        Value::String(s) => s.chars().take(12).collect(),
        Value::Null => "(no run id)".to_string(),
        v => v.to_string(),
    };
    let status = match r.status {
        Status::Complete => p.ok(status_word(r.status)),
        Status::Interrupted | Status::Open => p.warning(status_word(r.status)),
    };
    let id = fit::truncate(&sanitize::inline(&id), 16).into_owned();
    let stop = r.stop_reason.as_ref().map(|sr| format!(" ({})", fit::truncate(&sanitize::inline(sr), 24)));
    let mut line = format!("run {} {status}", p.id(&id));
    let mut plain = format!("run {id} {}", status_word(r.status));
    if let Some(stop) = &stop {
        line.push_str(&p.dim(stop));
        plain.push_str(stop);
    }
    let mut facts = vec![r.duration_ms.map(format_duration).unwrap_or_else(|| "?".into())];
    facts.push(format!("{} llm", r.llm_calls));
    facts.push(format!("{} tool", r.tool_calls));
    if r.llm_calls > 0 {
        facts.push(usage_text(&r.usage));
    }
    if let Some(c) = r.cost {
        facts.push(format!("${c:.4}"));
    }
    let failed = format!("{} failed", r.errors);
    if r.errors > 0 {
        facts.push(failed.clone());
    }
    let mismatch = [("llm", r.recorded_llm_calls, r.llm_calls), ("tool", r.recorded_tool_calls, r.tool_calls)]
        .into_iter()
        .filter_map(|(what, rec, seen)| {
            rec.filter(|&n| n != seen).map(|n| format!("turn_end says {n} {what} calls, {seen} recorded"))
        })
        .collect::<Vec<_>>();
    let mismatch = (!mismatch.is_empty()).then(|| format!("({})", mismatch.join("; ")));
    facts.extend(mismatch.clone());
    // The facts wrap below the run's name; colour goes on after the line is laid out.
    let mut all = vec![plain.clone()];
    all.extend(facts);
    for (n, l) in fit::wrap_parts(&all, " · ", width, 4).into_iter().enumerate() {
        let mut l = if n == 0 { l.replacen(&plain, &line, 1) } else { l };
        if r.errors > 0 {
            l = l.replacen(&failed, &p.error(&failed), 1);
        }
        if let Some(m) = &mismatch {
            l = l.replacen(m, &p.warning(m), 1);
        }
        writeln!(out, "{l}")?;
    }
    if let Some(prompt) = &r.prompt {
        let text = sanitize::inline(prompt.trim());
        writeln!(out, "  {}", p.user(fit::truncate(&format!("> {text}"), width.saturating_sub(2))))?;
    }
    let run_end = r.start_ms.zip(r.duration_ms).map(|(s, d)| s + d as i64);
    let count = r.spans.len();
    for (k, sp) in r.spans.iter().enumerate() {
        let conn = if k + 1 == count { "└─" } else { "├─" };
        span_line(sp, conn, name_w, (r.start_ms, run_end), p, width, out)?;
    }
    Ok(())
}

/// A span's label: what ran.
fn span_name(sp: &Span) -> String {
    match &sp.detail {
        Detail::Llm { provider, model, .. } => {
            let m = match (provider, model) {
                (Some(pr), Some(m)) => format!("{pr}/{m}"),
                (None, Some(m)) => m.to_string(),
                (Some(pr), None) => pr.to_string(),
                (None, None) => "model call".into(),
            };
            format!("llm  {m}")
        }
        Detail::Tool { tool, .. } => format!("tool {}", tool.as_deref().unwrap_or("?")),
        Detail::Event { obs, .. } => format!("event {obs}"),
    }
}

fn span_line(
    sp: &Span,
    conn: &str,
    name_w: usize,
    (run_start, run_end): (Option<i64>, Option<i64>),
    p: &Palette,
    width: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let detail = match &sp.detail {
        Detail::Llm { usage, .. } => usage_text(&usage.counts()),
        Detail::Tool { crab, argument, .. } => {
            let mut d = argument.clone().unwrap_or_default();
            if let Some(c) = crab {
                if let Some(seq) = c.call_seq {
                    d.push_str(&format!("#{seq} "));
                }
                if let (Some(i), Some(o)) = (c.bytes_in, c.bytes_out) {
                    d.push_str(&format!("{} in, {} out", bytes(i), bytes(o)));
                }
            }
            d
        }
        Detail::Event { obs, fields } => event_text(obs, &fields.map()),
    };
    let name = fit::truncate(&sanitize::inline(&span_name(sp)), name_w).into_owned();
    let name_cell = fit::pad(&name, name_w);
    let name_cell = match (sp.outcome, sp.kind) {
        (SpanOutcome::Error, _) => p.error(&name_cell),
        (SpanOutcome::Aborted, _) => p.warning(&name_cell),
        (_, SpanKind::LlmCall) => p.assistant(&name_cell),
        (_, SpanKind::ToolCall) => p.tool(&name_cell),
        (_, SpanKind::Event) => p.compaction(&name_cell),
    };
    let dur = sp.duration_ms.map(format_duration).unwrap_or_default();
    let cells = bar_cells(width);
    let bar = bar(sp, run_start, run_end, cells);
    // The detail, then the outcome, cut to the room left; colour goes on after cutting.
    let used = 2 + 3 + name_w + 1 + 8 + 1 + cells + 2 + 1;
    let room = width.saturating_sub(used);
    let detail = sanitize::inline(detail.trim()).into_owned();
    let outcome = match sp.outcome {
        SpanOutcome::Error => Some(format!("✗ {}", sanitize::inline(sp.error.as_deref().unwrap_or("error")))),
        SpanOutcome::Aborted => Some("aborted".to_string()),
        SpanOutcome::Ok => None,
    };
    let mut tail = fit::truncate(&detail, room).into_owned();
    if let Some(o) = outcome {
        // The outcome matters more than the detail: it keeps at least half the room.
        let o_room = room.saturating_sub(fit::width(&tail) + 1).max(room / 2);
        let o = fit::truncate(&o, o_room).into_owned();
        tail = fit::truncate(&tail, room.saturating_sub(fit::width(&o) + 1)).into_owned();
        let o = if sp.outcome == SpanOutcome::Error { p.error(&o) } else { p.warning(&o) };
        tail = if tail.is_empty() { o } else { format!("{tail} {o}") };
    }
    let line = format!("  {} {name_cell} {dur:>8} {} {tail}", p.dim(conn), p.dim(format!("▕{bar}▏")));
    writeln!(out, "{}", line.trim_end())
}

/// Where a span sits in its run: blank cells before and after, filled cells for its time.
fn bar(sp: &Span, run_start: Option<i64>, run_end: Option<i64>, cells: usize) -> String {
    let (Some(rs), Some(re), Some(ss)) = (run_start, run_end, sp.start_ms) else {
        return " ".repeat(cells);
    };
    let total = (re - rs).max(1) as f64;
    let at = |t: i64| (((t - rs) as f64 / total) * cells as f64).clamp(0.0, cells as f64);
    let from = at(ss).floor() as usize;
    let cells: String = match sp.duration_ms {
        Some(d) => {
            let to = (at(ss + d as i64).ceil() as usize).max(from + 1).min(cells);
            let from = from.min(to - 1);
            let mut s = " ".repeat(from);
            s.push_str(&"█".repeat(to - from));
            s.push_str(&" ".repeat(cells - to));
            s
        }
        None => {
            let from = from.min(cells - 1);
            format!("{}│{}", " ".repeat(from), " ".repeat(cells - from - 1))
        }
    };
    cells
}

fn event_text(obs: &str, f: &serde_json::Map<String, Value>) -> String {
    let num = |k: &str| f.get(k).and_then(Value::as_u64);
    let mut parts = Vec::new();
    if obs == "compaction" || f.contains_key("tokens_before") {
        if let Some(s) = f.get("strategy").and_then(Value::as_str) {
            parts.push(s.to_string());
        }
        if let (Some(b), Some(a)) = (num("tokens_before"), num("tokens_after")) {
            parts.push(format!("{} → {} tokens", tokens(b), tokens(a)));
        }
        if let Some(Value::Array(shed)) = f.get("shed") {
            parts.push(format!("{} tool result{} shed", shed.len(), if shed.len() == 1 { "" } else { "s" }));
        }
        return parts.join(", ");
    }
    match obs {
        "context_edit" => {
            let n = num("elided").unwrap_or(0);
            format!("{n} tool result{} elided", if n == 1 { "" } else { "s" })
        }
        "operator" => f.get("text").and_then(Value::as_str).map(crate::preview::first_line).unwrap_or_default(),
        _ => {
            // An unknown observation: show its scalar fields.
            for (k, v) in f.iter().take(4) {
                let v = match v {
                    Value::String(s) => s.chars().take(40).collect(),
                    Value::Object(_) | Value::Array(_) => "…".into(),
                    other => other.to_string(),
                };
                parts.push(format!("{k}={v}"));
            }
            parts.join(" ")
        }
    }
}

fn bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    /// The document written with its runs serialized apart is the one serde writes of the
    /// head and the trace whole, on every testdata and real session: no member of [`Trace`]
    /// is left out or moved.
    #[test]
    fn the_document_is_the_head_and_the_trace_serialized_whole() {
        #[derive(Serialize)]
        struct Whole<'s> {
            #[serde(flatten)]
            head: DocHead<'s>,
            #[serde(flatten)]
            trace: &'s Trace<'s>,
        }
        let mut traced = 0;
        for p in crate::test_corpus::session_files() {
            let Ok(src) = Source::from_bytes("t", std::fs::read(&p).unwrap()) else { continue };
            let Ok(s) = Session::load(&src, None) else { continue };
            let t = trace::trace(&s, None);
            let mut want = Vec::new();
            json::write(&mut want, &Whole { head: DocHead::of(&s), trace: &t }, false).unwrap();
            let mut got = Vec::new();
            write_json(&mut got, &s, &t).unwrap();
            assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want), "{}", p.display());
            traced += usize::from(!t.runs.is_empty());
        }
        assert!(traced > 20, "{traced} sessions with runs");
    }
}
