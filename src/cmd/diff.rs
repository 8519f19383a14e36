//! `diff FILE [A B]`: two branches of one session (default: the two most recent leaves),
//! computed by [`crate::diff`], shown in two columns or as JSON.

use std::io::{self, Write};

use serde::Serialize;

use super::stats::thousands;
use super::{io_err, Ctx, DocHead, Outcome};
use crate::cli::DiffArgs;
use crate::diff::{diff, Diff, Relation, Side};
use crate::error::Result;
use crate::model::{Id, Kind, Role};
use crate::preview;
use crate::render::{fit, json, Palette};
use crate::sanitize;
use crate::session::Session;
use crate::stats::Tokens;
use crate::tree::Ix;

pub fn run(ctx: &Ctx, a: &DiffArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = ctx.open(a.file.as_deref())?;
    let s = ctx.load(src)?;
    let (x, y) = match (&a.a, &a.b) {
        (Some(x), Some(y)) => (s.find(x)?, s.find(y)?),
        _ => {
            let leaves: Vec<Ix> = s.tree.leaves().collect();
            match leaves[..] {
                [.., x, y] => (x, y),
                // Not an error: the answer to "how do the branches differ" is that there
                // is nothing to compare (exit 1, as a negative answer).
                _ => {
                    let what = if leaves.is_empty() { "no entries" } else { "only one branch" };
                    ctx.note(&format!(
                        "{}: {what}: nothing to compare (name two entries: diff FILE A B)",
                        sanitize::inline(s.name())
                    ));
                    return match ctx.finish(s)? {
                        Outcome::Success => Ok(Outcome::Negative),
                        other => Ok(other),
                    };
                }
            }
        }
    };
    let d = diff(&s, x, y);
    if ctx.global.json {
        json::write(out, &DiffDoc::of(&s, &d), false).map_err(io_err)?;
    } else {
        human(&s, &d, &ctx.palette, ctx.width.max(60), out).map_err(io_err)?;
    }
    ctx.finish(s)
}

#[derive(Serialize)]
struct DiffDoc<'s, 'a> {
    #[serde(flatten)]
    head: DocHead<'s>,
    ancestor: Option<&'s Id<'a>>,
    relation: Relation,
    a: SideDoc<'s, 'a>,
    b: SideDoc<'s, 'a>,
    aligned: Vec<RowDoc<'s, 'a>>,
}

#[derive(Serialize)]
struct SideDoc<'s, 'a> {
    leaf: &'s Id<'a>,
    entries: Vec<&'s Id<'a>>,
    usage: Option<Tokens>,
    tool_calls: u64,
    tool_errors: u64,
}

#[derive(Serialize)]
struct RowDoc<'s, 'a> {
    a: Option<&'s Id<'a>>,
    b: Option<&'s Id<'a>>,
    same_prompt: bool,
}

impl<'s, 'a> DiffDoc<'s, 'a> {
    fn of(s: &'s Session<'a>, d: &Diff) -> Self {
        let id = |i: Ix| &s.entry(i).id;
        let side = |x: &Side| SideDoc {
            leaf: id(x.leaf),
            entries: x.entries.iter().map(|&i| id(i)).collect(),
            usage: x.usage.clone(),
            tool_calls: x.tool_calls,
            tool_errors: x.tool_errors,
        };
        DiffDoc {
            head: DocHead::of(s),
            ancestor: d.ancestor.map(id),
            relation: d.relation,
            a: side(&d.a),
            b: side(&d.b),
            aligned: d
                .rows
                .iter()
                .map(|r| RowDoc { a: r.a.map(id), b: r.b.map(id), same_prompt: r.same_prompt })
                .collect(),
        }
    }
}

fn human(s: &Session<'_>, d: &Diff, p: &Palette, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let tip = |i: Ix| {
        let e = s.entry(i);
        format!("{} (line {}, depth {})", p.id(sanitize::inline(&e.id.text())), e.line, s.tree.depth(i))
    };
    writeln!(out, "{} {}", p.bold("A"), tip(d.a.leaf))?;
    writeln!(out, "{} {}", p.bold("B"), tip(d.b.leaf))?;
    let note = match d.relation {
        Relation::Same => Some("A and B are the same entry: nothing differs"),
        Relation::AAncestorOfB => Some("A is on the path to B: only B has entries of its own"),
        Relation::BAncestorOfA => Some("B is on the path to A: only A has entries of its own"),
        Relation::Unrelated => {
            Some("no common ancestor: A and B are in different trees (roots); each side runs from its root")
        }
        Relation::Forked => None,
    };
    match d.ancestor {
        Some(anc) => {
            let shared = format!("({} shared)", d.shared);
            let cell = cell(s, anc, p, width.saturating_sub("ancestor ".len() + 1 + shared.len()), false);
            writeln!(out, "{} {} {}", p.dim("ancestor"), cell.trim_end(), p.dim(shared))?;
        }
        None => writeln!(out, "{} none", p.dim("ancestor"))?,
    }
    if let Some(n) = note {
        for l in fit::wrap(n, width, 2) {
            writeln!(out, "{}", p.dim(l))?;
        }
    }
    if !d.rows.is_empty() {
        // Two columns and a three-character gutter: `=` a retried prompt, `|` both sides
        // have an entry here, `<` only A, `>` only B (sdiff's marks).
        let wide = width >= crate::render::UNLIMITED;
        let col = if wide {
            // `--wide`: the left column is as wide as its widest cell, and nothing is cut.
            let cells =
                d.rows.iter().filter_map(|r| r.a).map(|i| fit::width(&cell(s, i, &Palette::plain(), width, false)));
            cells.chain([fit::width(&header("A", &d.a))]).max().unwrap_or(0)
        } else {
            width.saturating_sub(3) / 2
        };
        writeln!(out)?;
        writeln!(out, "{}", p.dim(format!("{:<col$} | {}", header("A", &d.a), header("B", &d.b))))?;
        for r in &d.rows {
            let left = r.a.map(|i| cell(s, i, p, col, true)).unwrap_or_else(|| " ".repeat(col));
            let right = r.b.map(|i| cell(s, i, p, if wide { width } else { col }, false)).unwrap_or_default();
            let mark = match (r.same_prompt, r.a, r.b) {
                (true, _, _) => p.marker("="),
                (_, Some(_), Some(_)) => "|".to_string(),
                (_, Some(_), None) => p.dim("<"),
                _ => p.dim(">"),
            };
            writeln!(out, "{} {mark} {}", left, right.trim_end())?;
        }
    }
    writeln!(out)?;
    totals(d, p, width, out)
}

fn header(name: &str, x: &Side) -> String {
    let n = x.entries.len();
    format!("{name}: {n} entr{}", if n == 1 { "y" } else { "ies" })
}

/// `id label preview`, at most `width` columns (cut to fit; with `pad`, padded to exactly
/// that many), made terminal-safe.
fn cell(s: &Session<'_>, i: Ix, p: &Palette, width: usize, pad: bool) -> String {
    let e = s.entry(i);
    let d = preview::describe_at(s, i);
    let id = crate::render::fit::truncate(&sanitize::inline(&e.id.short()), 8).into_owned();
    let rest = format!(" {:<10} {}", sanitize::inline(&d.label), sanitize::inline(&d.text));
    let room = width.saturating_sub(crate::render::fit::width(&id));
    let rest = crate::render::fit::truncate(&rest, room).into_owned();
    let pad = if pad { room.saturating_sub(crate::render::fit::width(&rest)) } else { 0 };
    let rest = match (e.kind(), e.message.as_ref().map(|m| m.role)) {
        (Kind::Message, Some(Role::User)) => p.user(&rest),
        _ if d.alert => p.error(&rest),
        _ => rest,
    };
    format!("{}{rest}{}", p.id(id), " ".repeat(pad))
}

fn totals(d: &Diff, p: &Palette, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let unknown = "unknown";
    let usage = |x: &Side, f: fn(&Tokens) -> u64| x.usage.as_ref().map_or(unknown.to_string(), |u| thousands(f(u)));
    let cost = |x: &Side| match x.usage.as_ref().map(|u| u.cost) {
        Some(Some(c)) => format!("${c:.4}"),
        // Nothing recorded is not $0.
        Some(None) => "-".to_string(),
        None => unknown.to_string(),
    };
    let rows: Vec<(&str, String, String)> = vec![
        ("entries", d.a.entries.len().to_string(), d.b.entries.len().to_string()),
        ("model calls", usage(&d.a, |u| u.calls), usage(&d.b, |u| u.calls)),
        ("input", usage(&d.a, |u| u.input), usage(&d.b, |u| u.input)),
        ("output", usage(&d.a, |u| u.output), usage(&d.b, |u| u.output)),
        ("cache read", usage(&d.a, |u| u.cache_read), usage(&d.b, |u| u.cache_read)),
        ("cache write", usage(&d.a, |u| u.cache_write), usage(&d.b, |u| u.cache_write)),
        ("cost", cost(&d.a), cost(&d.b)),
        ("tool calls", d.a.tool_calls.to_string(), d.b.tool_calls.to_string()),
        ("tool errors", d.a.tool_errors.to_string(), d.b.tool_errors.to_string()),
    ];
    writeln!(out, "{}", p.bold(format!("{:<12} {:>14} {:>14}", "", "A", "B")))?;
    for (name, a, b) in rows {
        writeln!(out, "{} {a:>14} {b:>14}", p.dim(format!("{name:<12}")))?;
    }
    if d.a.usage.is_none() {
        let note = "usage is recorded per run in this format, not per entry: a branch's share is unknown";
        for l in fit::wrap(note, width, 2) {
            writeln!(out, "{}", p.dim(l))?;
        }
    }
    Ok(())
}
