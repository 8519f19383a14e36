//! How long the allocator (mimalloc, the binary's global allocator) keeps memory that was
//! freed before it hands it back to the system: the one setting where what suits one big
//! load and what suits many small ones differ.
//!
//! A big load builds one table after another (the tool uses' pairing, then the tree index)
//! and lets each go: kept for mimalloc 3's default second, a freed table is still resident
//! when the next is built, and the command's peak holds both (`check` on the 1 GiB bench
//! file: 190 against 143 bytes an entry, in the same time). So a command starts with a delay
//! of 10 ms, as mimalloc 2 had ([`hand_freed_memory_back_soon`]).
//!
//! A command over many inputs loads them one after another on each thread, and each load
//! frees what the next needs: handed back after 10 ms, every file's buffer and records are
//! faulted in afresh (`stats` over 1,000 files of 1 MiB: 0.45-0.6 s of kernel time against
//! 0.12-0.23 s). So once a command knows it has several inputs it keeps freed memory for the
//! default second ([`keep_freed_memory_for_reuse`]); its peak is a few files', not one
//! big file's.
//!
//! An explicit `MIMALLOC_PURGE_DELAY` in the environment wins over both.

// An allocator option is read and set by calls into C: two `unsafe` calls, in `purge_delay`
// and `set_purge_delay`.
#![allow(unsafe_code)]

use std::ffi::c_long;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e` (`mimalloc.h`), the same in
/// mimalloc 2 and 3. The bindings name the options around it, not this one.
const MI_OPTION_PURGE_DELAY: i32 = 15;

/// mimalloc 3's own purge delay, in milliseconds.
const DEFAULT_PURGE_DELAY: c_long = 1000;

/// The delay for a command over one input, in milliseconds.
const SOON_PURGE_DELAY: c_long = 10;

/// Hand freed memory back 10 ms after it is freed (a command over one input).
pub fn hand_freed_memory_back_soon() {
    set_purge_delay(SOON_PURGE_DELAY);
}

/// Keep freed memory for mimalloc's default second (a command over several inputs).
pub fn keep_freed_memory_for_reuse() {
    set_purge_delay(DEFAULT_PURGE_DELAY);
}

/// The purge delay now in force, in milliseconds.
pub fn purge_delay() -> c_long {
    // SAFETY: reads one integer option; no memory is touched.
    unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
}

fn set_purge_delay(ms: c_long) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets one integer option, which mimalloc reads atomically; no memory is
    // touched, and any value is valid.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms) };
}
