//! `stats FILE...|DIR...`: token and activity statistics, one table per question. Files are
//! loaded in parallel, each reduced to its [`SessionStats`] and dropped at once, so memory is
//! bounded by the largest file, not the directory. `--max-tokens` / `--max-cost` turn it into
//! a CI gate (exit 1).

use std::io::{self, Write};
use std::path::Path;

use crate::render::fit;
use crate::render::progress::Progress;
use crate::render::table::Grid as Table;
use serde::Serialize;

use super::{io_err, Ctx, Input, Outcome, Tally};
use crate::cli::{StatsArgs, StatsBy};
use crate::discover;
use crate::error::{Error, Result};
use crate::price::{CostSource, Prices};
use crate::render::{json, Palette};
use crate::sanitize;
use crate::session::Session;
use crate::source::{ReadOptions, Source};
use crate::stats::{ContextSource, Counting, Options, SessionStats, Tokens, Total};
use crate::time::{self, format_duration, format_minutes, End, Period};

/// What became of one input.
struct Loaded {
    stats: Option<SessionStats>,
    /// The stats as they go into `--json`'s list, rendered on the worker (when asked).
    rendered: Option<io::Result<json::Rendered>>,
    /// Finding and error lines for stderr, printed in input order.
    messages: Vec<String>,
    tally: Tally,
}

pub fn run(ctx: &Ctx, a: &StatsArgs, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(c) = a.max_cost {
        if !(c >= 0.0 && c.is_finite()) {
            return Err(Error::Usage(format!("--max-cost must be a non-negative amount of dollars, not {c}")));
        }
    }
    let owned_prices;
    let prices = match &a.prices {
        Some(p) => {
            owned_prices = Prices::load(p)?;
            &owned_prices
        }
        None => Prices::bundled(),
    };
    let report = options(a, prices)?;
    let files = ctx.expand(&a.files)?;
    let opts = ctx.read_options();
    let progress = Progress::new(ctx, files.len(), "sessions");
    // The list of `--json` is most of its document: each session is rendered as it is loaded.
    let render = ctx.global.json && a.by.is_none();
    let loaded: Vec<Loaded> = super::map_biggest_first(&files, |f| {
        let l = load_one(ctx, f, opts, &report, files.len() == 1, render);
        progress.tick();
        l
    });
    progress.finish();

    let mut sessions = Vec::with_capacity(loaded.len());
    let mut rendered = Vec::with_capacity(loaded.len());
    // A window keeps the sessions it holds something of.
    let windowed = report.since.is_some() || report.until.is_some();
    let mut tally = Tally::default();
    {
        let mut err = ctx.stderr();
        for l in loaded {
            for m in &l.messages {
                let _ = writeln!(err, "{m}");
            }
            tally.merge(l.tally);
            let Some(s) = l.stats else { continue };
            if windowed && s.usage.calls == 0 && s.tool_calls.iter().all(|t| t.calls == 0) {
                continue;
            }
            sessions.push(s);
            rendered.extend(l.rendered);
        }
    }
    let total = Total::of(&sessions);
    if let (Some(by), true) = (a.by, ctx.global.json) {
        let doc = ByDoc {
            schema_version: 1,
            by: by.name(),
            rows: rows(by, &sessions, &total),
            total: ByTotal { usage: &total.usage, undated_calls: total.undated_calls },
            skipped: &tally.skipped,
        };
        json::write(out, &doc, false).map_err(io_err)?;
    } else if ctx.global.json {
        let rendered = rendered.into_iter().collect::<io::Result<Vec<_>>>().map_err(io_err)?;
        let doc = StatsDoc { schema_version: 1, sessions: &rendered, total: &total, skipped: &tally.skipped };
        json::write(out, &doc, false).map_err(io_err)?;
    } else {
        human(ctx, a, &sessions, &total, out).map_err(io_err)?;
        if !tally.skipped.is_empty() || tally.unreadable > 0 {
            writeln!(out, "{}", ctx.palette.dim(format!("{} session(s) read{}", tally.read, tally.summary_suffix())))
                .map_err(io_err)?;
        }
    }
    out.flush().map_err(io_err)?;
    let over = gates(ctx, a, &sessions);
    tally.exit(over)
}

/// The report's cut from the command line: prices, window and time zone. A bad time or zone
/// is a usage error (exit 2).
fn options<'p>(a: &StatsArgs, prices: &'p Prices) -> Result<Options<'p>> {
    let tz = time::zone(a.timezone.as_deref()).map_err(|e| Error::Usage(format!("--timezone: {e}")))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let when = |flag: &str, v: &Option<String>, end: End| -> Result<Option<i64>> {
        v.as_deref()
            .map(|v| time::parse_when(v, &tz, end, now).map_err(|e| Error::Usage(format!("{flag}: {e}"))))
            .transpose()
    };
    let since = when("--since", &a.since, End::Since)?;
    let until = when("--until", &a.until, End::Until)?;
    if let (Some(s), Some(u)) = (since, until) {
        if s >= u {
            return Err(Error::Usage(format!(
                "--since {} is not before --until {}: the window is empty",
                a.since.as_deref().unwrap_or_default(),
                a.until.as_deref().unwrap_or_default()
            )));
        }
    }
    let period = match a.by {
        Some(StatsBy::Week) => Period::Week,
        Some(StatsBy::Month) => Period::Month,
        _ => Period::Day,
    };
    Ok(Options { prices, since, until, tz, period })
}

/// Load one input; `alone` when it is the command's only one (kept until exit, see
/// [`super::release`]); `render` to render its stats for `--json`'s list as well.
fn load_one(ctx: &Ctx, f: &Input, opts: ReadOptions, report: &Options<'_>, alone: bool, render: bool) -> Loaded {
    let mut tally = Tally::default();
    let src = match Source::open(&f.path, opts) {
        Ok(s) => s,
        Err(e) => {
            let messages = tally.fail(ctx, f, &e).into_iter().collect();
            return Loaded { stats: None, rendered: None, messages, tally };
        }
    };
    let src = if alone { super::keep_until_exit(src) } else { &src };
    // Each entry counted as its part is placed, and the messages let go but for those the
    // context estimate reads; where the format does not allow it, each message counted for
    // the estimate as it is read, and the entries counted once the load is done.
    let counting = Counting::new(report);
    let (s, mut messages) = ctx.load_reporting_counted(src, crate::format::Detail::Counted, Some(&counting));
    match s {
        Ok(s) => {
            tally.read(&s);
            let mut stats = counting.stats(&s);
            subagents(ctx, &f.path, &s, opts, report, &mut stats, &mut messages);
            if alone {
                super::release(s);
            }
            let rendered = render.then(|| json::render(&stats));
            Loaded { stats: Some(stats), rendered, messages, tally }
        }
        Err(e) => {
            messages.extend(tally.fail(ctx, f, &e));
            Loaded { stats: None, rendered: None, messages, tally }
        }
    }
}

/// Read the session's sub-agent files, if it has any, into its session scope. Their own
/// findings are not repeated (their first lines name lines of the parent file); a sub-agent
/// the session names but whose file is gone (Claude Code deletes old files) is said.
fn subagents(
    ctx: &Ctx,
    f: &Path,
    s: &Session<'_>,
    opts: ReadOptions,
    report: &Options<'_>,
    stats: &mut SessionStats,
    messages: &mut Vec<String>,
) {
    if f == Path::new("-") {
        return;
    }
    let files = discover::child_sessions(f);
    let mut named: Vec<String> = s.entries.iter().filter_map(|e| e.subagent()).map(str::to_string).collect();
    named.sort();
    named.dedup();
    if files.is_empty() && named.is_empty() {
        return;
    }
    let mut children = Vec::new();
    for (_, p) in &files {
        let loaded = Source::open(p, opts).and_then(|src| {
            let c = Session::load(&src, ctx.format())?;
            // Only its usage is added to the session's: no context estimate.
            Ok(SessionStats::counted(&c, report))
        });
        match loaded {
            Ok(c) => children.push(c),
            Err(e) => messages.push(error_line(&e)),
        }
    }
    let found: std::collections::HashSet<&str> = files.iter().map(|(id, _)| id.as_str()).collect();
    let missing: Vec<String> = named.into_iter().filter(|a| !found.contains(a.as_str())).collect();
    if !ctx.global.quiet {
        for a in &missing {
            messages.push(format!(
                "{}: warning: sub-agent {} is named by a tool result but its file is not there (deleted?); its usage is not counted",
                sanitize::inline(&f.to_string_lossy()),
                sanitize::inline(a)
            ));
        }
    }
    stats.add_subagents(&children, missing);
}

fn error_line(e: &Error) -> String {
    format!("arcturn-inspect: {}", sanitize::inline(&e.to_string()))
}

/// `stats --by X --json`: one row per key, then the total.
#[derive(Serialize)]
struct ByDoc<'a> {
    schema_version: u32,
    by: &'static str,
    rows: Vec<Row>,
    total: ByTotal<'a>,
    skipped: &'a [String],
}

#[derive(Serialize)]
struct ByTotal<'a> {
    usage: &'a Tokens,
    #[serde(skip_serializing_if = "Option::is_none")]
    undated_calls: Option<u64>,
}

/// One row of a grouped report. `key` is null for calls without a timestamp (day, week,
/// month), a model not named, or a session with no known project.
#[derive(Serialize)]
struct Row {
    key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<String>,
    /// `--by tool`: tool calls that ran, and how many failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    calls: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    errors: Option<u64>,
    /// `--by session`: the session's format.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    usage: Tokens,
}

impl Row {
    fn new(key: Option<String>, usage: Tokens) -> Row {
        Row { key, provider: None, calls: None, errors: None, format: None, usage }
    }
}

/// The rows of a grouped report, in a stable order: periods and keys ascending (unknown
/// last), models and tools biggest first.
fn rows(by: StatsBy, sessions: &[SessionStats], total: &Total) -> Vec<Row> {
    let grouped = |key: &dyn Fn(&SessionStats) -> Option<String>| {
        let mut m: std::collections::BTreeMap<(bool, Option<String>), Tokens> = std::collections::BTreeMap::new();
        for s in sessions {
            let k = key(s);
            m.entry((k.is_none(), k)).or_default().merge(&s.usage);
        }
        m.into_iter().map(|((_, k), u)| Row::new(k, u)).collect::<Vec<_>>()
    };
    match by {
        StatsBy::Day | StatsBy::Week | StatsBy::Month => {
            let mut v: Vec<Row> = total
                .periods
                .iter()
                .filter(|(k, _)| k.is_some())
                .map(|(k, u)| Row::new(k.clone(), u.clone()))
                .collect();
            v.extend(total.periods.get(&None).map(|u| Row::new(None, u.clone())));
            v
        }
        StatsBy::Session => sessions
            .iter()
            .map(|s| Row { format: Some(s.format.to_string()), ..Row::new(Some(s.file.clone()), s.usage.clone()) })
            .collect(),
        StatsBy::Model => total
            .by_model
            .iter()
            .map(|m| Row { provider: m.provider.clone(), ..Row::new(m.model.clone(), m.usage.clone()) })
            .collect(),
        StatsBy::Project => grouped(&|s| s.project.clone()),
        StatsBy::Agent => grouped(&|s| Some(s.format.to_string())),
        StatsBy::Tool => total
            .tool_calls
            .iter()
            .map(|t| Row {
                calls: Some(t.calls),
                errors: Some(t.errors),
                ..Row::new(Some(t.tool.clone()), t.usage.clone())
            })
            .collect(),
    }
}

#[derive(Serialize)]
struct StatsDoc<'a> {
    schema_version: u32,
    sessions: &'a [json::Rendered],
    total: &'a Total,
    /// Files found in a directory that are of no known session format.
    skipped: &'a [String],
}

/// Check the CI gates; name every session over a limit on stderr. True when one was.
fn gates(ctx: &Ctx, a: &StatsArgs, sessions: &[SessionStats]) -> bool {
    let mut over = false;
    let mut err = ctx.stderr();
    let p = &ctx.err_palette;
    for s in sessions {
        let name = sanitize::inline(&s.file);
        if let Some(max) = a.max_tokens {
            if s.usage.total > max {
                over = true;
                let _ = writeln!(
                    err,
                    "arcturn-inspect: {}: {} {} tokens (file scope) is over --max-tokens {} by {}{}",
                    p.bold(&name),
                    p.error("over budget:"),
                    thousands(s.usage.total),
                    thousands(max),
                    thousands(s.usage.total - max),
                    if s.usage.usage_overflow {
                        " (the sum overflowed and is held at its maximum [usage_overflow])"
                    } else {
                        ""
                    }
                );
            }
        }
        if let Some(max) = a.max_cost {
            let u = &s.usage;
            let kind = match u.cost_source {
                Some(CostSource::Recorded) => "recorded cost",
                Some(CostSource::Estimated) => "estimated cost (priced from the table, the file records none)",
                Some(CostSource::Mixed) => "cost (recorded and estimated)",
                _ => "cost",
            };
            match (u.cost, u.cost_lower_bound) {
                (Some(c), _) if c > max => {
                    over = true;
                    let _ = writeln!(
                        err,
                        "arcturn-inspect: {}: {} {kind} ${c:.4} is over --max-cost ${max:.2} by ${:.4}",
                        p.bold(&name),
                        p.error("over budget:"),
                        c - max
                    );
                }
                (None, Some(low)) if low > max => {
                    over = true;
                    let _ = writeln!(
                        err,
                        "arcturn-inspect: {}: {} cost is at least ${low:.4} (models {} not priced), over --max-cost ${max:.2}",
                        p.bold(&name),
                        p.error("over budget:"),
                        sanitize::inline(&unpriced(u))
                    );
                }
                (None, _) if u.calls > 0 && !ctx.global.quiet => {
                    let why = if u.unpriced_models.is_empty() {
                        "no usage recorded".to_string()
                    } else {
                        format!("models {} are not in the price table (--prices FILE)", unpriced(u))
                    };
                    let _ = writeln!(
                        err,
                        "arcturn-inspect: {name}: {} cost unknown ({}), --max-cost not checked",
                        p.warning("warning:"),
                        sanitize::inline(&why)
                    );
                }
                _ => {}
            }
        }
    }
    over
}

fn human(ctx: &Ctx, a: &StatsArgs, sessions: &[SessionStats], total: &Total, out: &mut dyn Write) -> io::Result<()> {
    let p = &ctx.palette;
    let w = ctx.width;
    if sessions.is_empty() {
        return writeln!(out, "no sessions");
    }
    match (a.by, sessions) {
        (None, [one]) => return single(one, p, w, out),
        (Some(StatsBy::Model), _) => {
            title(out, p, w, "Usage by model", "file scope, all inputs")?;
            writeln!(out, "{}", models_table(&total.by_model, &total.usage, w))?;
        }
        (
            Some(
                by
                @ (StatsBy::Day | StatsBy::Week | StatsBy::Month | StatsBy::Project | StatsBy::Agent | StatsBy::Tool),
            ),
            _,
        ) => {
            let note = match by {
                StatsBy::Day | StatsBy::Week | StatsBy::Month => {
                    format!("{}, file scope, all inputs", a.timezone.as_deref().unwrap_or("local time"))
                }
                StatsBy::Tool => "calls that ran; usage of the model calls that issued them (a call issuing several tools counts in each row)".to_string(),
                _ => "file scope, all inputs".to_string(),
            };
            title(out, p, w, &format!("Usage by {}", by.name()), &note)?;
            writeln!(out, "{}", rows_table(by, &rows(by, sessions, total), &total.usage, w))?;
        }
        (Some(StatsBy::Session) | None, _) => {
            title(out, p, w, "Sessions", "usage in file scope: every entry of every branch")?;
            writeln!(out, "{}", sessions_table(sessions, total, w))?;
        }
    }
    let mut facts = vec![format!("{} session{}", total.sessions, plural(total.sessions))];
    facts.push(format!("{} entries", thousands(total.entries)));
    facts.push(format!("{} model calls", thousands(total.usage.calls)));
    facts.push(format!("{} tokens", thousands(total.usage.total)));
    facts.push(cost_fact(&total.usage));
    if let Some(n) = total.undated_calls.filter(|&n| n > 0) {
        facts.push(format!("{n} call(s) without a timestamp left out of the window"));
    }
    let tools: u64 = total.tool_calls.iter().map(|t| t.calls).sum();
    let errors: u64 = total.tool_calls.iter().map(|t| t.errors).sum();
    facts.push(format!("{} tool calls ({} failed)", thousands(tools), errors));
    if let (Some(f), Some(l)) = (&total.first, &total.last) {
        facts.push(format!("{} → {}", &f[..16].replace('T', " "), &l[..16].replace('T', " ")));
    }
    for l in fit::wrap_parts(&facts, " · ", w, 2) {
        writeln!(out, "{}", p.dim(l))?;
    }
    Ok(())
}

/// `Title (note)`, the note wrapped at spaces to `w` columns.
fn title(out: &mut dyn Write, p: &Palette, w: usize, t: &str, note: &str) -> io::Result<()> {
    let lines = fit::wrap(&format!("{t} ({note})"), w, 2);
    for (i, l) in lines.iter().enumerate() {
        match l.strip_prefix(t).filter(|_| i == 0) {
            Some(rest) => writeln!(out, "{}{}", p.bold(t), p.dim(rest))?,
            None => writeln!(out, "{}", p.dim(l))?,
        }
    }
    Ok(())
}

/// A table fitted to `width` columns (render::table: numbers whole, names cut, stacked
/// when even the numbers do not fit).
fn table(width: usize, header: &[&str]) -> Table {
    Table::new(width, header)
}

/// Every column from `from` on holds numbers.
fn numeric(t: &mut Table, from: usize) {
    t.numeric(from);
}

fn usage_cells(u: &Tokens) -> Vec<String> {
    vec![
        thousands(u.calls),
        thousands(u.input),
        thousands(u.output),
        thousands(u.cache_read),
        thousands(u.cache_write),
        thousands(u.total),
        cost(u),
    ]
}

/// A cost cell: `$1.2345` recorded, `$1.2345 est` estimated, `$1.2345 mix` both, `≥$1.2345`
/// when some calls are unpriced, `-` when nothing is known.
fn cost(u: &Tokens) -> String {
    match (u.cost_source, u.cost, u.cost_lower_bound) {
        (Some(CostSource::Recorded), Some(c), _) => format!("${c:.4}"),
        (Some(CostSource::Estimated), Some(c), _) => format!("${c:.4} est"),
        (Some(CostSource::Mixed), Some(c), _) => format!("${c:.4} mix"),
        (Some(CostSource::Unknown), _, Some(l)) if l > 0.0 => format!("≥${l:.4} ?"),
        (Some(CostSource::Unknown), ..) => "? (unpriced)".into(),
        _ => "-".into(),
    }
}

/// The cost in the summary line, with where it comes from.
fn cost_fact(u: &Tokens) -> String {
    let prices = Prices::bundled();
    let table = format!(
        "priced from {}",
        prices.retrieved.as_deref().map_or("the price table".to_string(), |d| format!("LiteLLM prices of {d}"))
    );
    match (u.cost_source, u.cost) {
        (Some(CostSource::Recorded), Some(c)) => format!("${c:.4} recorded"),
        (Some(CostSource::Estimated), Some(c)) => format!("${c:.4} estimated ({table})"),
        (Some(CostSource::Mixed), Some(c)) => format!(
            "${c:.4} (${:.4} recorded + ${:.4} estimated)",
            u.recorded_cost.unwrap_or(0.0),
            u.estimated_cost.unwrap_or(0.0)
        ),
        (Some(CostSource::Unknown), _) => format!(
            "cost unknown: at least ${:.4}; {} call(s) of {} not priced",
            u.cost_lower_bound.unwrap_or(0.0),
            u.unpriced_calls,
            sanitize::inline(&unpriced(u))
        ),
        _ => "no cost".to_string(),
    }
}

const USAGE_HEAD: [&str; 7] = ["calls", "input", "output", "cache read", "cache write", "total", "cost"];

fn single(s: &SessionStats, p: &Palette, w: usize, out: &mut dyn Write) -> io::Result<()> {
    let mut head = vec![s.format.to_string(), format!("{} entries", thousands(s.entries))];
    if s.observations > 0 {
        head.push(format!("{} observations in {} runs", thousands(s.observations), s.runs));
    }
    head.push(bytes(s.bytes));
    if let (Some(f), Some(l)) = (s.first_ms, s.last_ms) {
        head.push(format!("{} → {} ({})", format_minutes(f), format_minutes(l), format_duration((l - f) as u64)));
    }
    let file = sanitize::inline(&s.file);
    let facts = head.join(" · ");
    if fit::width(&file) + 2 + fit::width(&facts) <= w {
        writeln!(out, "{}  {}", p.bold(&file), p.dim(facts))?;
    } else {
        writeln!(out, "{}", p.bold(fit::truncate_start(&file, w)))?;
        for l in fit::wrap_parts(&head, " · ", w.saturating_sub(2), 0) {
            writeln!(out, "  {}", p.dim(l))?;
        }
    }
    if let Some(f) = &s.forked_from {
        let line = format!("forked from {}", sanitize::inline(f));
        writeln!(out, "{}", p.dim(fit::truncate_start(&line, w)))?;
    }
    writeln!(out)?;

    let scopes = if s.subagents.is_some() {
        "file: every entry of every branch · branch: the path to the latest entry · session: the file and its sub-agent files · context: what the model is sent at the tip"
    } else {
        "file: every entry of every branch · branch: the path to the latest entry · context: what the model is sent at the tip"
    };
    title(out, p, w, "Tokens", scopes)?;
    let mut head: Vec<&str> = vec!["scope"];
    head.extend(USAGE_HEAD);
    let mut t = table(w, &head);
    let mut row = vec!["file".to_string()];
    row.extend(usage_cells(&s.usage));
    t.add_row(row);
    let mut row = vec!["branch".to_string()];
    let mut notes: Vec<String> = Vec::new();
    match &s.branch.usage {
        Some(u) => row.extend(usage_cells(u)),
        None => {
            row.extend(USAGE_HEAD.iter().map(|_| "-".to_string()));
            notes.push("branch: not separable (crab records usage per run, and this file has branches)".into());
        }
    }
    t.add_row(row);
    if let Some(sa) = &s.subagents {
        let mut row = vec![format!("sub-agents ({} file{})", sa.files, plural(sa.files))];
        row.extend(usage_cells(&sa.usage));
        t.add_row(row);
        let mut row = vec!["session".to_string()];
        row.extend(usage_cells(&sa.session_usage));
        t.add_row(row);
    }
    // Two context figures: what the file recorded for the last call, and the `context`
    // command's estimate at the same leaf (it cannot see the system prompt and tools). Their
    // notes go under the table, wrapped, so the number columns keep their width.
    let figure = |n: Option<u64>| n.map(thousands).unwrap_or_else(|| "-".into());
    let mut context_row = |scope: &str, total: String, note: &str| {
        let mut row = vec![scope.to_string()];
        row.extend(std::iter::repeat_n(String::new(), 5));
        row.extend([total, String::new()]);
        t.add_row(row);
        notes.push(format!("{}: {note}", scope.trim()));
    };
    match s.context.source {
        ContextSource::LastCall | ContextSource::Compaction => {
            let note = if s.context.source == ContextSource::LastCall {
                "recorded, last call"
            } else {
                "recorded, compaction"
            };
            context_row("context", figure(s.context.recorded_tokens), note);
            context_row("  estimate", figure(s.context.estimated_tokens), "chars / 4, no system prompt or tools");
        }
        ContextSource::Estimate => {
            context_row("context", figure(s.context.estimated_tokens), "estimate: characters / 4")
        }
        ContextSource::None => context_row("context", "-".into(), "nothing to measure"),
    }
    numeric(&mut t, 1);
    writeln!(out, "{t}")?;
    for n in notes {
        for l in fit::wrap(&n, w.saturating_sub(1), 2) {
            writeln!(out, " {}", p.dim(l))?;
        }
    }

    writeln!(out)?;
    title(out, p, w, "Messages", "by role")?;
    let mut t = table(w, &["role", "file", "branch"]);
    let (f, b) = (&s.messages, &s.branch.messages);
    for (role, x, y) in [
        ("user", f.user, b.user),
        ("assistant", f.assistant, b.assistant),
        ("tool result", f.tool_result, b.tool_result),
        ("system (operator)", f.system, b.system),
        ("other", f.other, b.other),
    ] {
        if role != "other" || x > 0 {
            t.add_row(vec![role.to_string(), thousands(x), thousands(y)]);
        }
    }
    t.add_row(vec!["all".to_string(), thousands(f.total()), thousands(b.total())]);
    numeric(&mut t, 1);
    writeln!(out, "{t}")?;

    if !s.by_model.is_empty() {
        writeln!(out)?;
        title(out, p, w, "Usage by model", "file scope")?;
        writeln!(out, "{}", models_table(&s.by_model, &s.usage, w))?;
    }

    if !s.tool_calls.is_empty() {
        writeln!(out)?;
        title(out, p, w, "Tool calls", "calls that ran, by tool")?;
        writeln!(out, "{}", tools_table(&s.tool_calls, w))?;
    }

    writeln!(out)?;
    let c = &s.compactions;
    let mut lines = Vec::new();
    let mut comp = format!("{} compaction{}", c.count, plural(c.count));
    if c.count > 0 {
        let known = |n: Option<u64>| n.map(thousands).unwrap_or_else(|| "?".into());
        comp.push_str(&format!(
            ": {} → {} tokens, {} saved",
            known(c.tokens_before),
            known(c.tokens_after),
            thousands(c.saved)
        ));
        if c.tokens_after_unknown > 0 {
            comp.push_str(&format!(" ({} with no recorded size after)", c.tokens_after_unknown));
        }
        if !c.by_strategy.is_empty() {
            let by: Vec<String> = c.by_strategy.iter().map(|(k, v)| format!("{} {v}", sanitize::inline(k))).collect();
            comp.push_str(&format!(" ({})", by.join(", ")));
        }
        if c.shed_results > 0 {
            comp.push_str(&format!("; {} tool results shed", c.shed_results));
        }
    }
    lines.push(comp);
    if c.provider > 0 {
        lines.push(format!("{} provider-side compaction{}", c.provider, plural(c.provider)));
    }
    if s.context_edits.passes > 0 {
        lines.push(format!(
            "{} context-edit pass{}, {} tool result{} elided",
            s.context_edits.passes,
            if s.context_edits.passes == 1 { "" } else { "es" },
            s.context_edits.elided,
            plural(s.context_edits.elided)
        ));
        lines.push(format!("{} tool result{} offloaded to a file", s.offloaded, plural(s.offloaded)));
    }
    lines.push(format!("{} lea{}, max depth {}", s.leaves, if s.leaves == 1 { "f" } else { "ves" }, s.max_depth));
    title(out, p, w, "Context and branches", "compaction, editing, offloading, tree shape")?;
    for l in lines {
        for l in fit::wrap(&l, w.saturating_sub(2), 2) {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
}

fn models_table(rows: &[crate::stats::ModelRow], total: &Tokens, w: usize) -> Table {
    let mut head = vec!["provider", "model"];
    head.extend(USAGE_HEAD);
    let mut t = table(w, &head);
    for m in rows {
        let mut row = vec![
            sanitize::inline(m.provider.as_deref().unwrap_or("-")).into_owned(),
            sanitize::inline(m.model.as_deref().unwrap_or("-")).into_owned(),
        ];
        row.extend(usage_cells(&m.usage));
        t.add_row(row);
    }
    if rows.len() > 1 {
        let mut row = vec!["all".to_string(), String::new()];
        row.extend(usage_cells(total));
        t.add_row(row);
    }
    numeric(&mut t, 2);
    t
}

fn rows_table(by: StatsBy, rows: &[Row], total: &Tokens, w: usize) -> Table {
    let tool = by == StatsBy::Tool;
    let mut head = vec![by.name()];
    if tool {
        head.extend(["runs", "errors"]);
    }
    head.extend(USAGE_HEAD);
    let mut t = table(w, &head);
    let unknown = match by {
        StatsBy::Day | StatsBy::Week | StatsBy::Month => "(no timestamp)",
        _ => "(unknown)",
    };
    for r in rows {
        let mut row = vec![sanitize::inline(r.key.as_deref().unwrap_or(unknown)).into_owned()];
        if tool {
            row.extend([thousands(r.calls.unwrap_or(0)), thousands(r.errors.unwrap_or(0))]);
        }
        row.extend(usage_cells(&r.usage));
        t.add_row(row);
    }
    if !tool {
        let mut row = vec!["all".to_string()];
        row.extend(usage_cells(total));
        t.add_row(row);
    }
    numeric(&mut t, 1);
    t
}

fn tools_table(rows: &[crate::stats::ToolRow], w: usize) -> Table {
    let crab = rows.iter().any(|r| r.bytes_in.is_some() || r.bytes_out.is_some() || r.duration_ms.is_some());
    let aborted = rows.iter().any(|r| r.aborted > 0);
    let mut head = vec!["tool", "calls", "errors"];
    if aborted {
        head.push("aborted");
    }
    if crab {
        head.extend(["bytes in", "bytes out", "time"]);
    }
    let mut t = table(w, &head);
    for r in rows {
        let mut row = vec![sanitize::inline(&r.tool).into_owned(), thousands(r.calls), thousands(r.errors)];
        if aborted {
            row.push(thousands(r.aborted));
        }
        if crab {
            row.push(r.bytes_in.map(bytes).unwrap_or_else(|| "-".into()));
            row.push(r.bytes_out.map(bytes).unwrap_or_else(|| "-".into()));
            row.push(r.duration_ms.map(format_duration).unwrap_or_else(|| "-".into()));
        }
        t.add_row(row);
    }
    numeric(&mut t, 1);
    t
}

fn sessions_table(sessions: &[SessionStats], total: &Total, w: usize) -> Table {
    let mut head = vec!["session", "entries"];
    head.extend(["input", "output", "cache r", "cache w", "total", "cost"]);
    head.extend(["tools", "failed", "compact"]);
    let mut t = table(w, &head);
    let tool_cells = |rows: &[crate::stats::ToolRow]| {
        let calls: u64 = rows.iter().map(|r| r.calls).sum();
        let errors: u64 = rows.iter().map(|r| r.errors).sum();
        [thousands(calls), thousands(errors)]
    };
    // The per-session table has no room for the call count; the model table shows it.
    let usage = |u: &Tokens| usage_cells(u).into_iter().skip(1).collect::<Vec<_>>();
    let prefix = common_dir(sessions.iter().map(|s| s.file.as_str()));
    for s in sessions {
        let name = s.file.get(prefix..).filter(|n| !n.is_empty()).unwrap_or(&s.file);
        let mut row = vec![sanitize::inline(name).into_owned(), thousands(s.entries)];
        row.extend(usage(&s.usage));
        row.extend(tool_cells(&s.tool_calls));
        row.push(thousands(s.compactions.count));
        t.add_row(row);
    }
    if sessions.len() > 1 {
        let mut row = vec![format!("all {} sessions", sessions.len()), thousands(total.entries)];
        row.extend(usage(&total.usage));
        row.extend(tool_cells(&total.tool_calls));
        row.push(thousands(total.compactions.count));
        t.add_row(row);
    }
    numeric(&mut t, 1);
    t
}

/// Length of the directory prefix all names share (through its last `/`), so a table can
/// show names relative to it: `sessions/a/x.jsonl`, `sessions/b/y.jsonl` -> `a/x.jsonl`, ...
fn common_dir<'a>(mut names: impl Iterator<Item = &'a str>) -> usize {
    let Some(first) = names.next() else { return 0 };
    let mut len = first.len();
    for n in names {
        len = first.bytes().zip(n.bytes()).take(len).take_while(|(a, b)| a == b).count();
    }
    // Bytes, not chars: names that differ inside a multi-byte character (`é`, `è`) share
    // only part of it, and a `/` never sits inside one.
    first.as_bytes()[..len].iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1)
}

/// `1,234,567`: exact figures people can still read.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn bytes(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64)
    } else if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The models of calls whose cost is unknown, as a list for a line of text.
fn unpriced(u: &crate::stats::Tokens) -> String {
    u.unpriced_models.iter().map(String::as_str).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(182_340), "182,340");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn common_dir_stops_at_a_slash() {
        assert_eq!(super::common_dir(["d/a/x.jsonl", "d/b/y.jsonl"].into_iter()), 2);
        assert_eq!(super::common_dir(["d/ab.jsonl", "d/ac.jsonl"].into_iter()), 2);
        assert_eq!(super::common_dir(["x.jsonl", "y.jsonl"].into_iter()), 0);
        assert_eq!(super::common_dir(["d/x.jsonl"].into_iter()), 2);
    }
}
