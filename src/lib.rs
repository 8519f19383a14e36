//! arcturn-inspect: an offline, read-only inspector for coding-agent session files.
//!
//! Data flows one way, and no layer imports a higher one:
//!
//! 1. [`source`]: a path or stdin becomes bytes (read into memory, bounded) and line spans;
//! 2. [`format`]: each line is decoded, in parallel, into normalized [`model`] records;
//! 3. [`tree`]: ids and parents become an index (roots, children, leaves, paths), and
//!    [`pairing`] matches tool calls with their results;
//! 4. views ([`check`], ...) compute plain data from a [`session::Session`];
//! 5. [`render`] turns views into text for people or JSON for scripts; [`cmd`] wires it up.

// Inputs are read into memory the process owns, never mapped (see `source`): nothing
// needs `unsafe`, and nothing may add it unnoticed.
#![forbid(unsafe_code)]

pub mod agents;
pub mod audit;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod content;
pub mod context;
pub mod decompress;
pub mod diff;
pub mod discover;
pub mod error;
pub mod export;
pub mod finding;
pub mod format;
pub mod model;
pub mod pairing;
pub mod preview;
pub mod query;
pub mod render;
pub mod sanitize;
pub mod search;
pub mod secrets;
pub mod session;
pub mod sessions;
pub mod source;
pub mod stats;
pub mod time;
pub mod trace;
pub mod tree;
