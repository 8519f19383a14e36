//! `export FILE [ID]`: a Markdown or HTML transcript to stdout, `-o PATH`, or `-O` (a name
//! from the session's creation time, in the current directory, never overwritten without
//! `--force`). Nothing is ever written to the session file or into its directory.

use std::fs::{self, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::{io_err, Ctx, Outcome};
use crate::cli::ExportArgs;
use crate::error::{Error, Result};
use crate::export::{self, html, markdown, Options};
use crate::sanitize;
use crate::source::{FileId, Source};
use crate::time;

pub fn run(ctx: &Ctx, a: &ExportArgs, out: &mut dyn Write) -> Result<Outcome> {
    let mut src = ctx.open(a.file.as_deref())?;
    if a.redact {
        // The transcript is made from the redacted copy of the file (what `redact` writes):
        // every string any view could show is then free of the secrets `audit` finds.
        let found = crate::audit::scan(src);
        let mut copy = Source::from_bytes(&src.name, crate::audit::redact(src, &found))?;
        copy.identity = src.identity;
        src = super::keep_until_exit(copy);
    }
    let s = ctx.load(src)?;
    // An empty or header-only file exports as an empty transcript that says so.
    let target = if s.entries.is_empty() && a.id.is_none() { None } else { Some(s.target(a.id.as_deref())?) };
    let ext = if a.html { "html" } else { "md" };
    // HTML is no use on a terminal: it goes to a file named as -O names it, and stderr says
    // where (README "export").
    let auto_name = a.auto_name || (a.html && a.output.is_none() && io::stdout().is_terminal());
    let dest = match (&a.output, auto_name) {
        (Some(p), _) => Some((PathBuf::from(p), true)),
        (None, true) => {
            let created = s.created().ok_or_else(|| {
                Error::Usage(format!(
                    "{}: the session has no creation time to name the file after; use -o PATH",
                    sanitize::inline(s.name())
                ))
            })?;
            Some((PathBuf::from(format!("arcturn-session-{}.{ext}", time::format_file_stamp(created))), a.force))
        }
        (None, false) => None,
    };
    // Refuse a bad destination before doing the work.
    if let Some((path, _)) = &dest {
        guard(path, src)?;
    }
    let t = match target {
        Some(target) => export::build(&s, target, Options { thinking: a.thinking, as_sent: a.as_sent })?,
        None => export::empty(&s),
    };
    let doc = if a.html { html::render(&t) } else { markdown::render(&t) };
    match dest {
        None => out.write_all(doc.as_bytes()).map_err(io_err)?,
        Some((path, overwrite)) => {
            write_file(&path, doc.as_bytes(), overwrite, src)?;
            // Said even under -q: the file is the command's whole output.
            let mut err = ctx.stderr();
            let _ = writeln!(
                err,
                "arcturn-inspect: wrote {} ({} bytes)",
                sanitize::inline(&path.to_string_lossy()),
                doc.len()
            );
        }
    }
    ctx.finish(s)
}

/// Refuse to write to the session file itself (under any name: a hard link, a symlink) or
/// next to it.
fn guard(path: &Path, src: &Source) -> Result<()> {
    // A path that does not exist yet cannot be the input; one that does is compared by
    // device and inode, following symlinks as the write would.
    if let Ok(meta) = fs::metadata(path) {
        refuse_if_input(path, FileId::of(&meta), src)?;
    }
    if src.name == "-" {
        return Ok(());
    }
    let canon = |p: &Path| fs::canonicalize(p).ok();
    let session_file = canon(Path::new(&src.name));
    let session_dir = session_file.as_ref().and_then(|f| f.parent().map(Path::to_path_buf));
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let out_dir = canon(&parent);
    let out_file = canon(path);
    if out_file.is_some() && out_file == session_file {
        return Err(over_input(path));
    }
    if out_dir.is_some() && out_dir == session_dir {
        return Err(Error::Usage(format!(
            "refusing to write {} next to the session file (exports never go into a session directory); choose another directory with -o",
            sanitize::inline(&path.to_string_lossy())
        )));
    }
    Ok(())
}

fn refuse_if_input(path: &Path, id: Option<FileId>, src: &Source) -> Result<()> {
    if id.is_some() && id == src.identity {
        return Err(over_input(path));
    }
    Ok(())
}

fn over_input(path: &Path) -> Error {
    Error::Usage(format!(
        "refusing to write the export over the session file: {} is the file being read (under this name or through a link)",
        sanitize::inline(&path.to_string_lossy())
    ))
}

fn write_file(path: &Path, bytes: &[u8], overwrite: bool, src: &Source) -> Result<()> {
    let shown = path.to_string_lossy().into_owned();
    let mut opts = OpenOptions::new();
    opts.write(true);
    if overwrite {
        // Not truncated at open: the file opened is checked first, so that a link swapped
        // in after `guard` still cannot make this write over the input.
        opts.create(true);
    } else {
        // create_new: no window between an existence check and the write.
        opts.create_new(true);
    }
    let mut f = opts.open(path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            Error::Usage(format!("{} already exists; pass --force to overwrite it", sanitize::inline(&shown)))
        } else {
            Error::Io { path: shown.clone(), source: e }
        }
    })?;
    let io = |e| Error::Io { path: shown.clone(), source: e };
    let meta = f.metadata().map_err(io)?;
    refuse_if_input(path, FileId::of(&meta), src)?;
    if meta.is_file() {
        f.set_len(0).map_err(io)?;
    }
    f.write_all(bytes).map_err(io)
}
