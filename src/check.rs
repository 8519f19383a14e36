//! The integrity report: every finding made while loading, plus the conversation lint only
//! `check` runs (tool calls and results that do not pair up, compactions whose target is not
//! on their own path).

use rayon::prelude::*;
use rustc_hash::FxHashSet as HashSet;

use serde::Serialize;

use crate::finding::{Code, Finding, Severity};
use crate::model::{Format, Kind, Role};
use crate::session::Session;
use crate::tree::{quoted, Ix, Key};

/// `check`'s view of one file. Serializes to the JSON contract.
#[derive(Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub file: String,
    pub format: Format,
    pub ok: bool,
    pub lines: u32,
    pub entries: usize,
    pub observations: usize,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// Build the report. With `strict`, every warning counts as an error.
pub fn check(s: &Session<'_>, strict: bool) -> Report {
    let mut findings = s.findings.clone();
    findings.extend(lint(s));
    if strict {
        for f in &mut findings {
            f.severity = Severity::Error;
        }
    }
    findings.sort_by_key(|f| (f.severity, f.line.unwrap_or(0), f.code));
    let ok = !findings.iter().any(|f| f.severity == Severity::Error);
    Report {
        schema_version: 1,
        file: s.name().to_string(),
        format: s.format,
        ok,
        lines: s.lines,
        entries: s.entries.len(),
        observations: s.observations.len(),
        findings,
    }
}

/// A tool call or result, by entry, with its id packed for cheap set lookups.
enum Tool<'a> {
    /// A call whose turn ran (a result is expected).
    Ran(Key<'a>, &'a str),
    /// A call whose turn was refused or aborted.
    NotRun(Key<'a>),
    Result(Option<(Key<'a>, &'a str)>),
}

fn lint(s: &Session<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    // Call ids point into the (cold) file: gather and pack them on all threads, then match
    // them in compact sets.
    let tools: Vec<(Ix, Tool)> = s
        .entries
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, e)| {
            let mut v = Vec::new();
            if let Some(m) = &e.message {
                // A refused or aborted turn's tool calls never ran: no result is expected.
                let ran = m.role == Role::Assistant
                    && !matches!(m.stop_reason.as_deref(), Some("refusal" | "aborted" | "error"));
                for c in &m.tool_calls {
                    if let Some(id) = &c.id {
                        v.push((
                            i as Ix,
                            if ran { Tool::Ran(Key::text(id), id.as_ref()) } else { Tool::NotRun(Key::text(id)) },
                        ));
                    }
                }
                for r in &m.tool_results {
                    v.push((i as Ix, Tool::Result(r.call_id.as_ref().map(|id| (Key::text(id), id.as_ref())))));
                }
            }
            v
        })
        .collect();
    let mut results: HashSet<&Key> = HashSet::default();
    let mut called: HashSet<&Key> = HashSet::default();
    for (_, t) in &tools {
        match t {
            Tool::Ran(k, _) | Tool::NotRun(k) => {
                called.insert(k);
            }
            Tool::Result(Some((k, _))) => {
                results.insert(k);
            }
            Tool::Result(None) => {}
        }
    }
    for (i, t) in &tools {
        let e = s.entry(*i);
        match t {
            Tool::Ran(k, id) if !results.contains(k) => out.push(
                Finding::new(
                    Code::ToolCallWithoutResult,
                    Some(e.line),
                    format!("tool call `{id}` has no result anywhere in the file"),
                )
                .with_id(e.id.to_owned_id()),
            ),
            Tool::Result(Some((k, id))) if !called.contains(k) => out.push(
                Finding::new(
                    Code::ToolResultWithoutCall,
                    Some(e.line),
                    format!("tool result for `{id}`, but no entry makes that call"),
                )
                .with_id(e.id.to_owned_id()),
            ),
            Tool::Result(None) => out.push(
                Finding::new(Code::ToolResultWithoutCall, Some(e.line), "tool result without a call id")
                    .with_id(e.id.to_owned_id()),
            ),
            _ => {}
        }
    }
    for (i, e) in s.entries.iter().enumerate() {
        if e.kind != Kind::Compaction {
            continue;
        }
        let c = e.compaction.as_ref();
        let problem = match c.and_then(|c| c.up_to.as_ref()) {
            None => Some("the compaction has no `upToId`".to_string()),
            Some(t) => match s.tree.get(t) {
                None => Some(format!("upToId {} names no entry in the file", quoted(t))),
                Some(j) if j as usize == i || !s.tree.is_ancestor(j, i as Ix) => Some(format!(
                    "upToId {} (line {}) is not on this compaction's own path",
                    quoted(t),
                    s.entry(j).line
                )),
                Some(_) => None,
            },
        };
        if let Some(msg) = problem {
            out.push(Finding::new(Code::CompactionTargetNotAncestor, Some(e.line), msg).with_id(e.id.to_owned_id()));
        }
    }
    for o in &s.observations {
        if o.tag == "compaction" {
            if let Some(t) = &o.up_to_id {
                if s.tree.get(t).is_none() {
                    out.push(Finding::new(
                        Code::CompactionTargetNotAncestor,
                        Some(o.line),
                        format!("compaction up_to_id {} names no message in the file", quoted(t)),
                    ));
                }
            }
        }
    }
    out
}
