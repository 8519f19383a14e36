//! Compressed inputs: Codex stores cold rollouts as `.jsonl.zst`. A zstd frame (magic
//! `28 B5 2F FD` at offset 0, whatever the file is called) is decompressed as a stream into
//! the in-memory buffer the session is read from: never to disk, never the compressed file
//! held whole beside it, and never past `--max-bytes` of output, so a small bomb cannot take
//! the machine's memory.

use std::io::Read;

use crate::error::{Error, Result};

/// The zstd frame magic number, as it sits at the start of a file.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Decompressed in blocks of this size, so the buffer grows with the output, not ahead of it.
const BLOCK: usize = 4 << 20;

/// Whether the bytes start with a zstd frame.
pub fn is_zstd(b: &[u8]) -> bool {
    b.starts_with(&ZSTD_MAGIC)
}

/// Decompress a whole zstd stream (concatenated frames included) from `compressed`, read
/// as it goes, into memory, refusing to go past `limit` bytes of output.
pub fn zstd(name: &str, compressed: impl Read, limit: u64) -> Result<Vec<u8>> {
    let fail = |what: String| Error::at(name, 1, None, format!("zstd-compressed input: {what}"));
    let mut dec = zstd::stream::read::Decoder::new(compressed).map_err(|e| fail(e.to_string()))?;
    let mut out: Vec<u8> = Vec::new();
    loop {
        let old = out.len();
        out.resize(old + BLOCK, 0);
        let n = match dec.read(&mut out[old..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
            Err(e) => {
                out.truncate(old);
                return Err(fail(format!("{e} after {old} decompressed bytes (a truncated or damaged file?)")));
            }
        };
        out.truncate(old + n);
        if out.len() as u64 > limit {
            return Err(fail(format!(
                "more than {} MiB once decompressed; refusing to read on (--max-bytes sets the limit)",
                limit >> 20
            )));
        }
        if n == 0 {
            break;
        }
    }
    out.shrink_to_fit();
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
}
