//! arcturn-inspect: an offline, read-only inspector for coding-agent session files.
//!
//! Data flows one way, and no layer imports a higher one:
//!
//! 1. [`source`]: a path or stdin becomes bytes (mapped, or read into memory, bounded) and
//!    line spans;
//! 2. [`format`]: each line is decoded, in parallel, into normalized [`model`] records;
//! 3. [`tree`]: ids and parents become an index (roots, children, leaves, paths), and
//!    [`pairing`] matches tool calls with their results;
//! 4. views ([`check`], [`view`] for tree, path and leaves, ...) compute plain data from a
//!    [`session::Session`];
//! 5. [`render`] turns views into text for people or JSON for scripts; [`cmd`] wires it up.

// Only the memory map of an input and its SIGBUS handler need `unsafe` (see `mapping`), the
// call of the string scan built for AVX2 (`format::skim`, once the CPU is found to have it)
// and the allocator's purge delay (`allocator`, two calls into C): they allow it where it
// is, and nothing else may add it unnoticed.
#![deny(unsafe_code)]

pub mod agents;
pub mod ahead;
pub mod allocator;
pub mod audit;
pub mod call_cost;
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
pub mod mapping;
pub mod model;
pub mod ordered;
pub mod pairing;
pub mod prefetch;
pub mod preview;
pub mod price;
pub mod query;
pub mod render;
pub mod rows;
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
pub mod view;

#[cfg(test)]
mod test_corpus;
