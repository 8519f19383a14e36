//! `context FILE [ID]`: the branch at an entry as the model receives it, then the state
//! (todos, plan, model) and the estimated token count.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::{io_err, Ctx, DocHead, Outcome};
use crate::cli::ContextArgs;
use crate::content::{Block, Image};
use crate::context::{materialize, Context, Sent};
use crate::error::Result;
use crate::preview;
use crate::render::fit;
use crate::render::{json, Palette};
use crate::sanitize;

pub fn run(ctx: &Ctx, a: &ContextArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    if s.entries.is_empty() && a.id.is_none() {
        // An empty or header-only file: nothing is sent (BAD-INPUTS.md: "no entries", exit 0).
        if ctx.global.json {
            let c = Context::default();
            json::write(out, &Doc { head: DocHead::of(&s), context: &c }, false).map_err(io_err)?;
        } else {
            writeln!(out, "no entries: nothing is sent").map_err(io_err)?;
        }
        return ctx.finish(s);
    }
    let leaf = s.target(a.id.as_deref())?;
    let c = materialize(&s, leaf)?;
    if ctx.global.json {
        json::write(out, &Doc { head: DocHead::of(&s), context: &c }, false).map_err(io_err)?;
    } else {
        human(&c, s.entry(leaf).line, &ctx.palette, ctx.width, out).map_err(io_err)?;
    }
    ctx.finish(s)
}

#[derive(Serialize)]
struct Doc<'s> {
    #[serde(flatten)]
    head: DocHead<'s>,
    #[serde(flatten)]
    context: &'s Context,
}

fn human(c: &Context, leaf_line: u32, p: &Palette, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let leaf =
        fit::truncate(&sanitize::inline(&c.leaf.as_ref().map(|l| l.text()).unwrap_or_default()), 16).into_owned();
    let rest = format!(
        "(line {leaf_line}): {} message{} sent{}",
        c.messages.len(),
        if c.messages.len() == 1 { "" } else { "s" },
        if c.skipped.is_empty() { String::new() } else { format!(", {} skipped", c.skipped.len()) }
    );
    fitted(
        out,
        width,
        format!("{} {} {}", p.bold("context at"), p.id(&leaf), p.dim(&rest)),
        &format!("context at {leaf} {rest}"),
    )?;
    for comp in &c.compactions {
        let who = match &comp.entry_id {
            Some(id) => format!("compaction {}", sanitize::inline(&id.text())),
            None => format!("{} event (line {})", sanitize::inline(&comp.strategy), comp.line),
        };
        let tokens = match (comp.tokens_before, comp.tokens_after) {
            (Some(b), Some(a)) => format!(": {} -> {} tokens", preview::tokens(b), preview::tokens(a)),
            _ => String::new(),
        };
        let off =
            if comp.target_on_path { "" } else { " (its target is not on this path: everything before it folded)" };
        for l in fit::wrap(&format!("{who}{tokens}{off}"), width.saturating_sub(2), 2) {
            writeln!(out, "  {}", p.compaction(l))?;
        }
    }
    writeln!(out)?;
    for (n, m) in c.messages.iter().enumerate() {
        message_row(n + 1, m, p, width, out)?;
    }
    if c.messages.is_empty() {
        writeln!(out, "  (nothing is sent)")?;
    }
    writeln!(out)?;
    for sk in &c.skipped {
        writeln!(
            out,
            "{} {} {}",
            p.warning("skipped"),
            p.id(fit::truncate(&sanitize::inline(&sk.entry_id.text()), 16)),
            p.dim(fit::truncate(&format!("(line {}): {}, not sent", sk.line, sk.reason), width.saturating_sub(26)))
        )?;
    }
    state_line("todos", &c.todos, p, width, out)?;
    state_line("plan", &c.plan, p, width, out)?;
    let model = match (&c.model, &c.last_model) {
        (Value::Null, Some(m)) => Value::String(format!(
            "{}{} (last assistant message; no model state)",
            m.provider.as_deref().map(|p| format!("{p}/")).unwrap_or_default(),
            m.model.as_deref().unwrap_or("?")
        )),
        (v, _) => v.clone(),
    };
    state_line("model", &model, p, width, out)?;
    if !c.elided.is_empty() {
        let ids: Vec<String> = c.elided.iter().map(|i| sanitize::inline(i).into_owned()).collect();
        writeln!(out, "{} {}", p.bold("elided:"), fit::truncate(&ids.join(", "), width.saturating_sub(8)))?;
    }
    if !c.withheld_thinking.is_empty() {
        let n = c.withheld_thinking.len();
        fitted(
            out,
            width,
            format!("{} {n} assistant message(s)", p.bold("thinking withheld:")),
            &format!("thinking withheld: {n} assistant message(s)"),
        )?;
    }
    let tokens = preview::tokens(c.estimated_tokens);
    let note = format!("({} characters, ceil(chars / 4) per message)", c.estimated_chars);
    fitted(
        out,
        width,
        format!("{} ~{tokens} tokens {}", p.bold("estimated context:"), p.dim(&note)),
        &format!("estimated context: ~{tokens} tokens {note}"),
    )?;
    match c.recorded_tokens {
        Some(r) => {
            let r = preview::tokens(r);
            let note = "(the last model call's size as the file records it; it also counts the system prompt and tool definitions, which the file does not hold)";
            fitted(
                out,
                width,
                format!("{} {r} tokens {}", p.bold("recorded context:"), p.dim(note)),
                &format!("recorded context: {r} tokens {note}"),
            )
        }
        None => {
            let note = "(no model call on this path recorded its size)";
            fitted(
                out,
                width,
                format!("{} {}", p.bold("recorded context:"), p.dim(note)),
                &format!("recorded context: {note}"),
            )
        }
    }
}

/// `styled` when its text, `plain`, fits in `width` columns; else `plain` wrapped at spaces.
fn fitted(out: &mut dyn Write, width: usize, styled: String, plain: &str) -> std::io::Result<()> {
    if fit::width(plain) <= width {
        return writeln!(out, "{styled}");
    }
    for l in fit::wrap(plain, width, 2) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

fn message_row(n: usize, m: &Sent, p: &Palette, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let id = match (&m.entry_id, m.obs_line) {
        (Some(id), _) => id.short(),
        (None, Some(l)) => format!("obs@{l}"),
        (None, None) => "-".into(),
    };
    let role = if m.synthetic { "summary".to_string() } else { m.role.clone() };
    let role_plain = fit::pad(&fit::truncate(&sanitize::inline(&role), 16), 10);
    let role_cell = role_plain.clone();
    let role_cell = match role.as_str() {
        "summary" => p.compaction(&role_cell),
        "user" => p.user(&role_cell),
        "assistant" => p.assistant(&role_cell),
        "toolResult" => p.tool(&role_cell),
        "system" => p.operator(&role_cell),
        _ => role_cell,
    };
    let mut marks = Vec::new();
    if m.thinking_withheld {
        marks.push("[thinking withheld]".to_string());
    }
    let text = describe(m);
    let tokens = format!("~{} tok", preview::tokens(m.tokens));
    let id = fit::truncate(&sanitize::inline(&id), 16).into_owned();
    let used = 4 + 1 + fit::width(&id) + 1 + fit::width(&role_plain) + 1 + tokens.len() + 2;
    let room = width.saturating_sub(used + marks.iter().map(|s| fit::width(s) + 1).sum::<usize>());
    let text = sanitize::inline(&text);
    let text = fit::truncate(&text, room);
    let text = if m.elided { p.warning(&text) } else { text.into_owned() };
    let marks = marks.join(" ");
    let marks = fit::truncate(&marks, width.saturating_sub(used + 1)).into_owned();
    let marks = if marks.is_empty() { String::new() } else { format!("{} ", p.warning(marks)) };
    writeln!(out, "{:>4} {} {role_cell} {marks}{text}  {}", n, p.id(&id), p.dim(tokens))
}

/// A one-line account of a message's content as sent.
fn describe(m: &Sent) -> String {
    let mut parts: Vec<String> = Vec::new();
    for b in &m.blocks {
        match b {
            Block::Text(t) => parts.push(first_line(t)),
            Block::Thinking { .. } => parts.push("(thinking)".into()),
            Block::ToolCall { name, arguments, .. } => {
                let arg = preview::main_argument(arguments);
                parts.push(format!("→ {name} {arg}").trim_end().to_string());
            }
            Block::ToolResult(r) => {
                let mut t = first_line(&r.text());
                if r.is_error {
                    t = format!("[error] {t}");
                }
                parts.push(t);
            }
            Block::Image(Image::Inline { mime, .. }) => parts.push(format!("[image {mime}]")),
            Block::Image(Image::Url(u)) => parts.push(format!("[image {u}]")),
            Block::ProviderCompaction { .. } => parts.push("(provider compaction block)".into()),
            Block::ServerTool { provider, .. } => parts.push(format!("(server tool, {provider})")),
            Block::Unknown { type_name, .. } => parts.push(format!("({type_name} block)")),
        }
    }
    parts.retain(|s| !s.is_empty());
    parts.join(" ")
}

fn first_line(t: &str) -> String {
    let t = t.trim_start();
    let line = t.lines().next().unwrap_or("");
    if t.len() > line.len() + 1 {
        format!("{line} …")
    } else {
        line.to_string()
    }
}

fn state_line(name: &str, v: &Value, p: &Palette, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let label = p.bold(format!("{name}:"));
    let room = width.saturating_sub(name.len() + 2);
    match v {
        Value::Null => writeln!(out, "{label} {}", p.dim("(none)")),
        Value::String(s) => writeln!(out, "{label} {}", fit::truncate(&sanitize::inline(s), room)),
        Value::Array(items) if name == "todos" => {
            writeln!(out, "{label}")?;
            for t in items {
                let text = t
                    .get("text")
                    .or_else(|| t.get("content"))
                    .or_else(|| t.get("title"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| t.to_string());
                let done = t.get("done").and_then(Value::as_bool).unwrap_or(false)
                    || t.get("status").and_then(Value::as_str) == Some("completed");
                let text = sanitize::inline(&text);
                writeln!(
                    out,
                    "  [{}] {}",
                    if done { "x" } else { " " },
                    fit::truncate(&text, width.saturating_sub(6))
                )?;
            }
            Ok(())
        }
        Value::Object(o) if name == "model" && o.contains_key("id") => {
            let prov = o.get("provider").and_then(Value::as_str).map(|p| format!("{p}/")).unwrap_or_default();
            let id = o.get("id").and_then(Value::as_str).unwrap_or("?");
            writeln!(out, "{label} {}", fit::truncate(&sanitize::inline(&format!("{prov}{id}")), room))
        }
        other => writeln!(out, "{label} {}", fit::truncate(&sanitize::inline(&other.to_string()), room)),
    }
}
