//! `audit FILE|DIR...`: the secrets in sessions, one finding per occurrence, masked in
//! every output. Exit 1 when a finding is not allowed by `--allow`; 2 when an input could
//! not be read at all (it is listed under `not_scanned`; the others are still scanned) or
//! has a damaged line before the last (scanned as raw text, reported, then exit 2 as every
//! command does).
//!
//! A file is scanned line by line independently of its format ([`crate::audit::scan`]),
//! so damaged lines and files of no known format are scanned too; the session model, when
//! the file loads, names the entry, role and tool of each finding.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{io_err, Ctx, Outcome};
use crate::audit::{self, Found, Place};
use crate::cli::AuditArgs;
use crate::error::{Error, Result};
use crate::format::Detail;
use crate::model::{Format, OwnedId};
use crate::render::json;
use crate::sanitize;
use crate::secrets;
use crate::session::Session;
use crate::source::Source;

/// The `--json` document (CLI.md "audit").
#[derive(Serialize)]
struct Doc {
    schema_version: u32,
    /// Inputs scanned.
    files: usize,
    findings: Vec<Item>,
    not_scanned: Vec<NotScanned>,
    /// Findings silenced by `--allow`.
    allowed: usize,
}

#[derive(Serialize)]
struct Item {
    file: String,
    /// `null` for a file of no known format (scanned as raw text lines).
    format: Option<Format>,
    line: u32,
    entry_id: Option<OwnedId>,
    role: Option<String>,
    tool: Option<String>,
    kind: &'static str,
    masked: String,
    fingerprint: String,
}

#[derive(Serialize)]
struct NotScanned {
    file: String,
    reason: String,
}

pub fn run(ctx: &Ctx, a: &AuditArgs, out: &mut dyn Write) -> Result<Outcome> {
    if a.list_kinds {
        return list_kinds(ctx, out);
    }
    let allow = match &a.allow {
        Some(p) => read_allow(p)?,
        None => HashSet::new(),
    };
    // Sub-agent files too: every file that can hold a secret.
    let inputs = ctx.expand_with(&a.files, crate::discover::walk_every_jsonl)?;
    let mut doc = Doc { schema_version: 1, files: 0, findings: Vec::new(), not_scanned: Vec::new(), allowed: 0 };
    let mut files_with = 0;
    let mut damaged_files: Vec<(String, usize)> = Vec::new();
    for input in &inputs {
        let name = input.path.to_string_lossy().into_owned();
        let src = match Source::open(&input.path, ctx.read_options()) {
            Ok(s) => s,
            Err(e) => {
                let reason = secrets::mask_text(&e.to_string()).into_owned();
                let _ = writeln!(ctx.stderr(), "arcturn-inspect: {}", sanitize::inline(&reason));
                doc.not_scanned.push(NotScanned { file: name, reason });
                continue;
            }
        };
        doc.files += 1;
        let (found, (format, damaged, places)) = rayon::join(|| audit::scan(&src), || describe(ctx, &src));
        if damaged > 0 {
            damaged_files.push((src.name.clone(), damaged));
        }
        let places = places(&found);
        let before = doc.findings.len();
        for (f, p) in found.iter().zip(places.into_iter().chain(std::iter::repeat_with(Place::default))) {
            let fingerprint = secrets::fingerprint(f.kind(), &f.secret);
            if allow.contains(&fingerprint) {
                doc.allowed += 1;
                continue;
            }
            if !ctx.global.json {
                human(out, src.name.as_str(), f, &p).map_err(io_err)?;
            }
            doc.findings.push(Item {
                file: src.name.clone(),
                format,
                line: f.line,
                entry_id: p.entry_id,
                role: p.role,
                tool: p.tool,
                kind: f.kind(),
                masked: secrets::mask(&f.secret),
                fingerprint,
            });
        }
        if doc.findings.len() > before {
            files_with += 1;
        }
    }
    if ctx.global.json {
        json::write(out, &doc, false).map_err(io_err)?;
    } else {
        let mut line = match doc.findings.len() {
            0 => format!("no secrets found in {} file{}", doc.files, plural(doc.files)),
            n => format!("{n} secret{} found in {files_with} of {} file{}", plural(n), doc.files, plural(doc.files)),
        };
        if doc.allowed > 0 {
            line.push_str(&format!(", {} allowed", doc.allowed));
        }
        if !doc.not_scanned.is_empty() {
            line.push_str(&format!(", {} not scanned", doc.not_scanned.len()));
        }
        writeln!(out, "{line}").map_err(io_err)?;
    }
    out.flush().map_err(io_err)?;
    if !doc.not_scanned.is_empty() {
        return Err(Error::Usage(format!("{} input(s) could not be read", doc.not_scanned.len())));
    }
    // Damaged lines were scanned as raw text (their findings are above); the status still
    // says the input is damaged, as every command's does.
    match damaged_files.as_slice() {
        [] => {}
        [(path, count)] => return Err(Error::Damaged { path: path.clone(), count: *count }),
        more => return Err(Error::Usage(format!("{} input(s) have damaged lines (see above)", more.len()))),
    }
    Ok(if doc.findings.is_empty() { Outcome::Success } else { Outcome::Negative })
}

/// Load the session for naming findings, reporting its damage on stderr as the other
/// commands do. Returns the format (None: not a session of a known format), the number of
/// damaged lines before the last, and a function from findings to their places.
#[allow(clippy::type_complexity)]
fn describe<'s>(
    ctx: &Ctx,
    src: &'s Source,
) -> (Option<Format>, usize, Box<dyn Fn(&[Found]) -> Vec<Place> + Send + 's>) {
    // The index only (as `check` reads it): message bodies are read again only for a file
    // with findings, to name their roles and tools.
    let (loaded, lines) = ctx.load_reporting_with(src, Detail::Index);
    let mut err = ctx.stderr();
    for l in lines {
        let _ = writeln!(err, "{l}");
    }
    match loaded {
        Ok(s) => {
            let (format, damaged) = (s.format, s.damaged_lines());
            drop(s);
            let places = move |found: &[Found]| {
                if found.is_empty() {
                    return Vec::new();
                }
                match Session::load(src, Some(format)) {
                    Ok(full) => audit::attribute(&full, found),
                    Err(_) => Vec::new(),
                }
            };
            (Some(format), damaged, Box::new(places))
        }
        Err(e) => {
            if matches!(e, Error::Unrecognized { .. }) {
                ctx.note(&format!(
                    "{}: not a session of a known format; scanned as raw text lines",
                    sanitize::inline(&src.name)
                ));
            } else if !e.is_reported() {
                ctx.note(&format!(
                    "{}; scanned as raw text lines",
                    sanitize::inline(&secrets::mask_text(&e.to_string()))
                ));
            }
            (None, 0, Box::new(|_| Vec::new()))
        }
    }
}

/// `FILE:LINE: entry ID, ROLE/TOOL, KIND, MASKED`.
fn human(out: &mut dyn Write, file: &str, f: &Found, p: &Place) -> std::io::Result<()> {
    let entry = p.entry_id.as_ref().map_or("-".to_string(), |id| id.to_string());
    let who = match (p.role.as_ref().or(p.entry_kind.as_ref()), &p.tool) {
        (Some(r), Some(t)) => format!("{r}/{t}"),
        (Some(r), None) => r.clone(),
        (None, Some(t)) => format!("-/{t}"),
        (None, None) => "-".into(),
    };
    writeln!(
        out,
        "{}:{}: entry {}, {}, {}, {}{}",
        sanitize::inline(file),
        f.line,
        sanitize::inline(&entry),
        sanitize::inline(&who),
        f.kind(),
        sanitize::inline(&secrets::mask(&f.secret)),
        if f.raw { " (in the raw text of a line that is not valid JSON)" } else { "" }
    )
}

fn list_kinds(ctx: &Ctx, out: &mut dyn Write) -> Result<Outcome> {
    if ctx.global.json {
        #[derive(Serialize)]
        struct K {
            kind: &'static str,
            description: &'static str,
        }
        let kinds: Vec<K> = secrets::kinds().map(|r| K { kind: r.kind, description: r.description }).collect();
        json::write(out, &serde_json::json!({ "schema_version": 1, "kinds": kinds }), false).map_err(io_err)?;
    } else {
        for r in secrets::kinds() {
            writeln!(out, "{:<24} {}", r.kind, r.description).map_err(io_err)?;
        }
    }
    Ok(Outcome::Success)
}

/// Fingerprints, one per line; `#` starts a comment; blank lines are skipped.
fn read_allow(path: &Path) -> Result<HashSet<String>> {
    let shown = path.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io { path: shown.clone(), source: e })?;
    let mut out = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if l.len() != 64 || !l.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::at(
                &shown,
                i as u32 + 1,
                Some(1),
                "expected a fingerprint (64 hex digits) or a `#` comment",
            ));
        }
        out.insert(l.to_ascii_lowercase());
    }
    Ok(out)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
