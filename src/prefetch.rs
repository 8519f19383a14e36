//! Asking the CPU for memory ahead of reading it. A loop over a big session's entries that
//! reads text out of their lines (names, ids) reads lines decoded long before: over a file
//! bigger than the caches, each read is a cache miss and a TLB miss that stalls the loop.
//! Asked for a few entries ahead, the text is in cache when the loop comes to it
//! (`stats`' counting over the 1 GiB bench file: 90 ms to 50 ms).

use crate::model::{Entry, Message};

/// How many entries ahead of the one it reads a loop asks for text: far enough for memory to
/// answer, near enough that what it asked for is still in cache (8 and 16 measured alike,
/// 32 and 64 slower).
pub const AHEAD: usize = 16;

/// The message of the entry [`AHEAD`] after the `i`th of `entries`: the one whose texts a
/// loop at entry `i` asks for.
pub fn message_ahead<'s, 'a>(entries: &'s [Entry<'a>], i: usize) -> Option<&'s Message<'a>> {
    entries.get(i + AHEAD)?.message.as_deref()
}

/// Ask for the first bytes of `s`.
#[inline(always)]
pub fn text(s: &str) {
    bytes(s.as_ptr());
}

/// Ask for the first bytes of the value `r` refers to.
#[inline(always)]
pub fn value<T>(r: &T) {
    bytes((r as *const T).cast());
}

/// Ask for the cache line at `p`, without waiting for it.
#[inline(always)]
fn bytes(p: *const u8) {
    // SAFETY: a prefetch reads nothing the program sees and never faults, whatever the
    // address; SSE, which has it, is part of every x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
