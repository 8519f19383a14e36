//! Bytes in: a path or stdin becomes one contiguous buffer, memory-mapped for regular files
//! and read for everything else, plus the newline-aligned line spans the decoder walks.
//!
//! This module owns framing only (encoding sniffing, BOM, CRLF, NUL tails, line numbers);
//! it never parses JSON and never prints.

use std::fs::File;
use std::io::Read;
use std::ops::Range;

use memmap2::Mmap;

use crate::error::{Error, Result};

/// Inputs that are not regular files are read in blocks of this size.
const READ_BLOCK: usize = 4 << 20;
/// A single line longer than this in a stream is refused: `/dev/zero` must not eat memory.
pub const MAX_STREAM_LINE: usize = 1 << 30;

/// How to get the bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Read instead of mapping, even for regular files.
    pub no_mmap: bool,
}

enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

/// One input's bytes and what framing found at its edges.
pub struct Source {
    /// The name as the user gave it (`-` for stdin).
    pub name: String,
    data: Data,
    /// Byte range of the content: after a BOM, before a NUL tail.
    body: Range<usize>,
    /// A UTF-8 byte order mark was stripped at offset 0.
    pub bom: bool,
    /// Number of NUL bytes trimmed from the end (a torn write on some filesystems).
    pub nul_tail: usize,
    /// The input was memory-mapped.
    pub mapped: bool,
}

/// One line of the body: where it is and whether a `\n` ended it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u32,
    /// Byte range in [`Source::bytes`], without the `\n` and without a `\r` before it.
    pub span: Range<usize>,
    /// A newline followed the line (false only for the very last line of the file).
    pub terminated: bool,
}

impl Source {
    /// Open a path, or standard input for `-`.
    pub fn open(path: &str, opts: ReadOptions) -> Result<Source> {
        if path == "-" {
            let stdin = std::io::stdin();
            let bytes = read_bounded(stdin.lock(), path)?;
            return Source::from_bytes(path, bytes);
        }
        let io = |source| Error::Io { path: path.to_string(), source };
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Error::input(path, "is a directory, expected a session file"));
        }
        if meta.is_file() && !opts.no_mmap && meta.len() > 0 {
            // SAFETY: the map is read-only and private to this process. If another process
            // truncates the file while it is mapped, reading the vanished pages raises SIGBUS
            // and the process dies; it cannot read wrong data or corrupt memory. The map
            // covers the length seen at open, so a file that is still being appended to is
            // read as the consistent prefix that existed then. `--no-mmap` reads instead and
            // cannot be hit by this.
            let map = unsafe { memmap2::MmapOptions::new().len(meta.len() as usize).map(&file) }.map_err(io)?;
            return Source::new(path, Data::Mapped(map));
        }
        let bytes = if meta.is_file() {
            // Read exactly the size seen at open, even if the file grows meanwhile.
            let mut buf = Vec::with_capacity(meta.len() as usize);
            file.take(meta.len()).read_to_end(&mut buf).map_err(io)?;
            buf
        } else {
            read_bounded(file, path)?
        };
        Source::from_bytes(path, bytes)
    }

    /// Wrap bytes already in memory (stdin, tests).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Source> {
        Source::new(name, Data::Owned(bytes))
    }

    fn new(name: &str, data: Data) -> Result<Source> {
        let all: &[u8] = match &data {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        };
        // A compressed rollout (Codex `.jsonl.zst`) is read as what it decompresses to.
        if crate::decompress::is_zstd(all) {
            let plain = crate::decompress::zstd(name, all, crate::decompress::MAX_DECOMPRESSED)?;
            return Source::framed(name, Data::Owned(plain));
        }
        Source::framed(name, data)
    }

    fn framed(name: &str, data: Data) -> Result<Source> {
        let all: &[u8] = match &data {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        };
        sniff_encoding(name, all)?;
        let bom = all.starts_with(b"\xEF\xBB\xBF");
        let start = if bom { 3 } else { 0 };
        let mut end = all.len();
        while end > start && all[end - 1] == 0 {
            end -= 1;
        }
        let nul_tail = all.len() - end;
        check_cr_only(name, &all[start..end])?;
        let mapped = matches!(data, Data::Mapped(_));
        Ok(Source { name: name.to_string(), data, body: start..end, bom, nul_tail, mapped })
    }

    /// Every byte of the input, as read.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }

    /// The content range: after a BOM, before a NUL tail.
    pub fn body(&self) -> Range<usize> {
        self.body.clone()
    }

    /// Split the body into at most `n` newline-aligned byte ranges of similar size, so that
    /// threads can each take whole lines.
    pub fn chunks(&self, n: usize) -> Vec<Range<usize>> {
        let bytes = self.bytes();
        let Range { start, end } = self.body();
        let n = n.max(1);
        let step = ((end - start) / n).max(1);
        let mut out = Vec::with_capacity(n);
        let mut at = start;
        while at < end {
            let guess = (at + step).min(end);
            let cut = if guess >= end {
                end
            } else {
                match memchr::memchr(b'\n', &bytes[guess..end]) {
                    Some(i) => guess + i + 1,
                    None => end,
                }
            };
            out.push(at..cut);
            at = cut;
        }
        out
    }

    /// Iterate the lines of one chunk (from [`Source::chunks`]), numbering them from
    /// `first_number`.
    pub fn lines_in(&self, chunk: Range<usize>, first_number: u32) -> LineIter<'_> {
        LineIter { bytes: self.bytes(), at: chunk.start, end: chunk.end, number: first_number }
    }

    /// Iterate every line of the body.
    pub fn lines(&self) -> LineIter<'_> {
        self.lines_in(self.body(), 1)
    }
}

/// Lines of a byte range, split with memchr.
pub struct LineIter<'a> {
    bytes: &'a [u8],
    at: usize,
    end: usize,
    number: u32,
}

impl Iterator for LineIter<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.at >= self.end {
            return None;
        }
        let rest = &self.bytes[self.at..self.end];
        let (len, terminated) = match memchr::memchr(b'\n', rest) {
            Some(i) => (i, true),
            None => (rest.len(), false),
        };
        let start = self.at;
        let mut stop = start + len;
        if terminated && stop > start && self.bytes[stop - 1] == b'\r' {
            stop -= 1;
        }
        self.at = start + len + usize::from(terminated);
        let number = self.number;
        self.number += 1;
        Some(Line { number, span: start..stop, terminated })
    }
}

/// Count the lines in a byte range (what [`LineIter`] would yield), for numbering chunks.
pub fn count_lines(bytes: &[u8]) -> u32 {
    let n = memchr::memchr_iter(b'\n', bytes).count();
    let tail = usize::from(!bytes.is_empty() && bytes[bytes.len() - 1] != b'\n');
    (n + tail) as u32
}

/// Read a non-regular input (pipe, FIFO, character device) with a bound on line length, so
/// that an endless stream without newlines fails instead of filling memory.
fn read_bounded(mut r: impl Read, path: &str) -> Result<Vec<u8>> {
    let mut buf: Vec<u8> = Vec::new();
    let mut line_start = 0usize;
    loop {
        let old = buf.len();
        buf.resize(old + READ_BLOCK, 0);
        let n = match r.read(&mut buf[old..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
            Err(source) => return Err(Error::Io { path: path.to_string(), source }),
        };
        buf.truncate(old + n);
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memrchr(b'\n', &buf[old..]) {
            line_start = old + i + 1;
        }
        if buf[line_start..].len() > READ_BLOCK && buf[line_start..].iter().all(|&b| b == 0) {
            let line = count_lines(&buf[..line_start]) + 1;
            return Err(Error::at(path, line, Some(1), "the input is a stream of NUL bytes, not a session"));
        }
        if buf.len() - line_start > MAX_STREAM_LINE {
            let line = count_lines(&buf[..line_start]) + 1;
            return Err(Error::at(
                path,
                line,
                None,
                format!("line longer than {} MiB in a stream; refusing to read on", MAX_STREAM_LINE >> 20),
            ));
        }
    }
    Ok(buf)
}

/// Refuse UTF-16 and UTF-32 text with a clear message instead of a wall of parse errors.
fn sniff_encoding(path: &str, b: &[u8]) -> Result<()> {
    let what = if b.starts_with(&[0xFF, 0xFE, 0, 0]) || b.starts_with(&[0, 0, 0xFE, 0xFF]) {
        Some("UTF-32")
    } else if b.starts_with(&[0xFF, 0xFE]) || b.starts_with(&[0xFE, 0xFF]) {
        Some("UTF-16")
    } else if b.len() >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0 {
        Some("UTF-16LE")
    } else if b.len() >= 4 && b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0 {
        Some("UTF-16BE")
    } else {
        None
    };
    match what {
        Some(enc) => Err(Error::at(
            path,
            1,
            Some(1),
            format!("unsupported encoding ({enc}); session files are UTF-8 (try `iconv -t UTF-8`)"),
        )),
        None => Ok(()),
    }
}

/// Old Mac line endings would make the whole file one line; say so instead of calling it
/// torn or corrupt.
fn check_cr_only(path: &str, body: &[u8]) -> Result<()> {
    let head = &body[..body.len().min(1 << 20)];
    if memchr::memchr(b'\n', head).is_some() {
        return Ok(());
    }
    if let Some(i) = memchr::memchr(b'\r', head) {
        // Only when a record follows the CR: a stray CR in binary junk is not a line ending,
        // and the hint would send the user the wrong way.
        if head.get(i + 1) == Some(&b'{') {
            return Err(Error::at(
                path,
                1,
                Some(i as u32 + 1),
                "lines end in CR only (old Mac style); convert them to LF, e.g. with `tr '\\r' '\\n'`",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(b: &[u8]) -> Source {
        Source::from_bytes("t", b.to_vec()).unwrap()
    }

    fn spans(s: &Source) -> Vec<(u32, String, bool)> {
        s.lines().map(|l| (l.number, String::from_utf8_lossy(&s.bytes()[l.span]).into_owned(), l.terminated)).collect()
    }

    #[test]
    fn splits_lf_and_crlf() {
        let s = src(b"a\r\nb\n\nc");
        assert_eq!(
            spans(&s),
            vec![(1, "a".into(), true), (2, "b".into(), true), (3, "".into(), true), (4, "c".into(), false)]
        );
    }

    #[test]
    fn strips_bom_and_nul_tail() {
        let s = src(b"\xEF\xBB\xBF{}\n{\0\0\0");
        assert!(s.bom);
        assert_eq!(s.nul_tail, 3);
        assert_eq!(spans(&s), vec![(1, "{}".into(), true), (2, "{".into(), false)]);
    }

    #[test]
    fn refuses_utf16_and_cr_only() {
        assert!(Source::from_bytes("t", b"{\0\"\0".to_vec()).is_err());
        assert!(Source::from_bytes("t", b"\xFF\xFE{\0".to_vec()).is_err());
        assert!(Source::from_bytes("t", b"{}\r{}\r".to_vec()).is_err());
        assert!(Source::from_bytes("t", b"{}\r".to_vec()).is_ok());
        assert!(Source::from_bytes("t", b"\x91z\rq\x05".to_vec()).is_ok(), "junk is not CR-only text");
    }

    #[test]
    fn chunks_cover_body_on_line_boundaries() {
        let mut b = Vec::new();
        for i in 0..1000 {
            b.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        b.extend_from_slice(b"tail");
        let s = src(&b);
        for n in [1, 2, 7, 64, 5000] {
            let chunks = s.chunks(n);
            assert_eq!(chunks.first().unwrap().start, 0);
            assert_eq!(chunks.last().unwrap().end, b.len());
            let mut number = 1;
            let mut all = Vec::new();
            for c in chunks {
                assert!(c.start == 0 || b[c.start - 1] == b'\n');
                let lines: Vec<_> = s.lines_in(c.clone(), number).collect();
                assert_eq!(lines.len() as u32, count_lines(&b[c]));
                number += lines.len() as u32;
                all.extend(lines);
            }
            assert_eq!(all, s.lines().collect::<Vec<_>>());
        }
    }

    #[test]
    fn stream_of_nuls_is_refused() {
        let zeros = std::io::repeat(0).take((READ_BLOCK * 3) as u64);
        assert!(read_bounded(zeros, "z").is_err());
    }
}
