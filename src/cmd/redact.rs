//! `redact FILE -o OUT`: a copy of a session with every secret `audit` finds replaced by
//! `[REDACTED:kind]`. Same lines, same order, the same bytes outside the secrets; each
//! replacement is inside one JSON string, so the copy is valid JSON of the same format
//! wherever the input was. The input is never written: OUT is refused when it is the input
//! under any name, an existing OUT is replaced only with `--force`, and the copy is written
//! to a temporary file in OUT's directory, then moved into place.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{io_err, Ctx, Outcome};
use crate::audit;
use crate::cli::RedactArgs;
use crate::error::{Error, Result};
use crate::model::Format;
use crate::render::json;
use crate::sanitize;
use crate::source::{FileId, Source};

/// The `--json` summary.
#[derive(serde::Serialize)]
struct Summary<'a> {
    schema_version: u32,
    file: &'a str,
    /// `null`: not a session of a known format (redacted as raw text lines).
    format: Option<Format>,
    output: String,
    secrets: usize,
    lines: usize,
}

pub fn run(ctx: &Ctx, a: &RedactArgs, out: &mut dyn Write) -> Result<Outcome> {
    let src = Source::open(&a.file, ctx.read_options())?;
    let dest = &a.output;
    refuse_input(dest, &src)?;
    if !a.force && fs::symlink_metadata(dest).is_ok() {
        return Err(Error::Usage(format!("{} already exists; pass --force to replace it", shown(dest))));
    }
    // Loaded only to report damage as every command does (and refuse under --strict); the
    // redaction itself reads lines, whatever they hold.
    let (loaded, report) = ctx.load_reporting(&src);
    let mut err = ctx.stderr();
    for l in report {
        let _ = writeln!(err, "{l}");
    }
    drop(err);
    let (format, damaged) = match loaded {
        Ok(s) => (Some(s.format), s.damaged_lines()),
        Err(Error::Unrecognized { .. }) => {
            ctx.note(&format!("{}: not a session of a known format; redacted as raw text lines", shown(&a.file)));
            (None, 0)
        }
        Err(e) => return Err(e),
    };
    let found = audit::scan(&src);
    let bytes = audit::redact(&src, &found);
    write_atomically(dest, &bytes, a.force, &src)?;
    let lines = {
        let mut l: Vec<u32> = found.iter().map(|f| f.line).collect();
        l.dedup();
        l.len()
    };
    if ctx.global.json {
        let doc = Summary {
            schema_version: 1,
            file: &src.name,
            format,
            output: dest.to_string_lossy().into_owned(),
            secrets: found.len(),
            lines,
        };
        json::write(out, &doc, false).map_err(io_err)?;
    }
    ctx.note(&format!(
        "wrote {}: {} secret{} redacted on {} line{}",
        shown(dest),
        found.len(),
        if found.len() == 1 { "" } else { "s" },
        lines,
        if lines == 1 { "" } else { "s" }
    ));
    match damaged {
        0 => Ok(Outcome::Success),
        n => Err(Error::Damaged { path: src.name.clone(), count: n }),
    }
}

fn shown(p: &Path) -> String {
    sanitize::inline(&p.to_string_lossy()).into_owned()
}

fn over_input(dest: &Path) -> Error {
    Error::Usage(format!(
        "refusing to write the redacted copy over the session file: {} is the file being read (under this name or through a link)",
        shown(dest)
    ))
}

/// OUT must not be the input: not the same path once links are resolved, not the same
/// file (device and inode) under another name.
fn refuse_input(dest: &Path, src: &Source) -> Result<()> {
    if let Ok(meta) = fs::metadata(dest) {
        if FileId::of(&meta).is_some() && FileId::of(&meta) == src.identity {
            return Err(over_input(dest));
        }
    }
    if src.name == "-" {
        return Ok(());
    }
    let input = fs::canonicalize(&src.name).ok();
    if input.is_some() && canonical_target(dest) == input {
        return Err(over_input(dest));
    }
    Ok(())
}

/// Where a path points once its directory (and the path itself, when it exists) is
/// resolved.
fn canonical_target(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = fs::canonicalize(p) {
        return Some(c);
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(fs::canonicalize(parent).ok()?.join(p.file_name()?))
}

/// Write `bytes` to a temporary file next to `dest`, then move it into place: a rename
/// when replacing is allowed, else a hard link (which fails when `dest` appeared
/// meanwhile) with a no-clobber fallback.
fn write_atomically(dest: &Path, bytes: &[u8], force: bool, src: &Source) -> Result<()> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dest.file_name().ok_or_else(|| Error::Usage(format!("{}: not a file name", shown(dest))))?;
    let tmp = dir.join(format!(".{}.redact-{}.tmp", name.to_string_lossy(), std::process::id()));
    let io = |p: &Path| {
        let p = p.to_string_lossy().into_owned();
        move |e: io::Error| Error::Io { path: p, source: e }
    };
    let result = (|| {
        let mut f: File = OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        drop(f);
        // Checked again just before the move: a link to the input swapped in meanwhile.
        refuse_input(dest, src)?;
        if force {
            return fs::rename(&tmp, dest).map_err(io(dest));
        }
        match fs::hard_link(&tmp, dest) {
            Ok(()) => fs::remove_file(&tmp).map_err(io(&tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(Error::Usage(format!("{} already exists; pass --force to replace it", shown(dest))))
            }
            // A filesystem without hard links: the existence check above is what stands.
            Err(_) => fs::rename(&tmp, dest).map_err(io(dest)),
        }
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
