//! The integrity report: every finding made while loading, plus the conversation lint only
//! `check` runs (tool calls and results that do not pair up, compactions whose target is not
//! on their own path).

use serde::Serialize;

use crate::finding::{Code, Finding, Severity};
use crate::model::{Format, Kind, ToolSide};
use crate::session::Session;
use crate::tree::{quoted, Ix};

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
    // Messages can quote session text; the JSON report must not carry a secret either.
    for f in &mut findings {
        if let std::borrow::Cow::Owned(m) = crate::secrets::mask_text(&f.message) {
            f.message = m;
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

fn lint(s: &Session<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &s.unpaired {
        let e = s.entry(t.entry);
        let finding = match (t.side, &t.key) {
            (ToolSide::Call, Some(k)) if t.ran => Finding::new(
                Code::ToolCallWithoutResult,
                Some(e.line),
                format!("tool call `{}` has no result anywhere in the file", k.text()),
            ),
            (ToolSide::Result, Some(k)) => Finding::new(
                Code::ToolResultWithoutCall,
                Some(e.line),
                format!("tool result for `{}`, but no entry makes that call", k.text()),
            ),
            (ToolSide::Result, None) => {
                Finding::new(Code::ToolResultWithoutCall, Some(e.line), "tool result without a call id")
            }
            _ => continue,
        };
        out.push(finding.with_id(e.id.to_owned_id()));
    }
    for (i, e) in s.entries.iter().enumerate() {
        if e.kind() != Kind::Compaction {
            continue;
        }
        let Some(c) = e.compaction() else { continue };
        let on_path = |t: &crate::model::Id<'_>| match s.tree.get(&s.entries, t) {
            None => Err(format!("{} names no entry in the file", quoted(t))),
            Some(j) if j as usize == i || !s.tree.is_ancestor(j, i as Ix) => {
                Err(format!("{} (line {}) is not on this compaction's own path", quoted(t), s.entry(j).line))
            }
            Some(_) => Ok(()),
        };
        // arcturn names the last folded entry (an error when it is off the path); pi the
        // first kept one, and pi itself then sends no kept tail (a warning).
        let finding = match (&c.up_to, &c.first_kept) {
            (Some(t), _) => on_path(t).err().map(|m| (Code::CompactionTargetNotAncestor, format!("upToId {m}"))),
            (None, Some(t)) => on_path(t).err().map(|m| {
                (Code::CompactionKeptNotOnPath, format!("firstKeptEntryId {m}: no kept tail is sent after it"))
            }),
            (None, None) => None,
        };
        if let Some((code, msg)) = finding {
            out.push(Finding::new(code, Some(e.line), msg).with_id(e.id.to_owned_id()));
        }
    }
    for o in &s.observations {
        if o.tag == "compaction" {
            if let Some(t) = &o.up_to_id {
                if s.tree.get(&s.entries, t).is_none() {
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
