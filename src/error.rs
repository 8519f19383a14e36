//! The one error type that crosses module boundaries. Errors carry data (path, line,
//! column) and are formatted once, at the edge, by `main`.

use std::fmt;

/// What went wrong, with enough context to print `FILE:LINE:COLUMN: message`.
#[derive(Debug)]
pub enum Error {
    /// Bad command-line usage that clap could not catch (an unknown id, say).
    Usage(String),
    /// Reading the input failed.
    Io { path: String, source: std::io::Error },
    /// The input cannot be read as a session at all (encoding, format).
    Input { path: String, line: Option<u32>, column: Option<u32>, message: String },
    /// The input matches no known session format (reported as `FILE:1: message`). A file
    /// found by walking a directory is skipped for it; a file named on the command line fails.
    Unrecognized { path: String, message: String },
    /// `--strict` turned damage into a fatal error; the findings were already reported.
    Strict { path: String, count: usize },
    /// A damaged line before the last: output was printed, but the exit status must be 2.
    Damaged { path: String, count: usize },
}

impl Error {
    pub fn input(path: &str, message: impl Into<String>) -> Error {
        Error::Input { path: path.to_string(), line: None, column: None, message: message.into() }
    }

    pub fn at(path: &str, line: u32, column: Option<u32>, message: impl Into<String>) -> Error {
        Error::Input { path: path.to_string(), line: Some(line), column, message: message.into() }
    }

    /// True when the error was already reported in detail and only the exit status remains.
    pub fn is_reported(&self) -> bool {
        matches!(self, Error::Strict { .. } | Error::Damaged { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => write!(f, "{m}"),
            Error::Io { path, source } => write!(f, "{path}: {}", io_message(source)),
            Error::Input { path, line, column, message } => {
                write!(f, "{path}")?;
                if let Some(l) = line {
                    write!(f, ":{l}")?;
                    if let Some(c) = column {
                        write!(f, ":{c}")?;
                    }
                }
                write!(f, ": {message}")
            }
            Error::Unrecognized { path, message } => write!(f, "{path}:1: {message}"),
            Error::Strict { path, count } => {
                write!(f, "{path}: {count} problem(s) found and --strict is set")
            }
            Error::Damaged { path, count } => {
                write!(f, "{path}: {count} damaged line(s), reported above; the output skips the unreadable ones")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `io::Error`'s Display adds "(os error 2)"; people want the plain sentence.
fn io_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => "no such file or directory".into(),
        PermissionDenied => "permission denied".into(),
        IsADirectory => "is a directory, expected a session file".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
