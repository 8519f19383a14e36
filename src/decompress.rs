//! Compressed inputs: Codex stores cold rollouts as `.jsonl.zst`. A zstd frame (magic
//! `28 B5 2F FD` at offset 0, whatever the file is called) is decompressed as a stream into
//! the in-memory buffer the session is read from: never to disk, never the compressed file
//! held whole beside it, and never past `--max-bytes` of output, so a small bomb cannot take
//! the machine's memory.

use std::io::{BufRead, Read};

use crate::error::{Error, Result};

/// The zstd frame magic number, as it sits at the start of a file.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether the bytes start with a zstd frame.
pub fn is_zstd(b: &[u8]) -> bool {
    b.starts_with(&ZSTD_MAGIC)
}

/// Decompress a whole zstd stream (concatenated frames included) from `compressed`, read
/// as it goes, into memory, refusing to go past `limit` bytes of output.
///
/// The buffer is sized once from the size the first frame declares, when it declares one
/// within `limit` (zstd's command line and libraries write it): a buffer grown by doubling
/// copies the output each time and touches fresh pages for every copy, which on a 1 GiB
/// file cost more than the decompression. Past a declared size (more frames, or a header
/// that lied) the buffer grows as any `Vec` does; a declared size is never trusted for
/// more than room.
pub fn zstd(name: &str, mut compressed: impl BufRead, limit: u64) -> Result<Vec<u8>> {
    let fail = |what: String| Error::at(name, 1, None, format!("zstd-compressed input: {what}"));
    let declared = compressed
        .fill_buf()
        .ok()
        .and_then(|head| zstd::zstd_safe::get_frame_content_size(head).ok().flatten())
        .filter(|&n| n <= limit);
    let mut out: Vec<u8> = Vec::new();
    if let Some(n) = declared {
        // Address space only until written; a refusal (no room) just leaves it to grow.
        let _ = out.try_reserve_exact(n as usize);
    }
    let dec = zstd::stream::read::Decoder::with_buffer(compressed).map_err(|e| fail(e.to_string()))?;
    // One byte past the limit tells an output at the limit from one beyond it.
    if let Err(e) = dec.take(limit.saturating_add(1)).read_to_end(&mut out) {
        return Err(fail(format!("{e} after {} decompressed bytes (a truncated or damaged file?)", out.len())));
    }
    if out.len() as u64 > limit {
        return Err(fail(format!(
            "more than {} MiB once decompressed; refusing to read on (--max-bytes sets the limit)",
            limit >> 20
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_cap() {
        let text = b"{\"a\":1}\n".repeat(1000);
        let z = zstd::stream::encode_all(&text[..], 3).unwrap();
        assert!(is_zstd(&z));
        assert_eq!(zstd("t", &z[..], 1 << 20).unwrap(), text);
        assert!(zstd("t", &z[..], 100).is_err(), "the cap holds");
        assert!(zstd("t", &z[..z.len() / 2], 1 << 20).is_err(), "a truncated frame is an error");
    }

    #[test]
    fn a_declared_size_is_room_for_the_output_in_one_allocation() {
        // One-shot compression declares the frame's size, as the zstd command line does.
        let text = b"{\"type\":\"response_item\",\"n\":12345}\n".repeat(30_011);
        let z = zstd::bulk::compress(&text, 3).unwrap();
        assert_eq!(zstd::zstd_safe::get_frame_content_size(&z).ok().flatten(), Some(text.len() as u64));
        let out = zstd("t", &z[..], 1 << 30).unwrap();
        assert_eq!(out, text);
        assert_eq!(out.capacity(), text.len(), "sized once from the header, never doubled");
        // A second frame after it: more than the first declared, still read whole.
        let mut two = z.clone();
        two.extend_from_slice(&z);
        assert_eq!(zstd("t", &two[..], 1 << 30).unwrap().len(), 2 * text.len());
        // The limit holds whatever the header says.
        assert!(zstd("t", &two[..], text.len() as u64 + 10).is_err(), "past the limit by a second frame");
        assert!(zstd("t", &z[..], text.len() as u64 - 1).is_err(), "a declared size past the limit");
        assert_eq!(zstd("t", &z[..], text.len() as u64).unwrap().len(), text.len(), "exactly the limit");
    }
}
