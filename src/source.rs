//! Bytes in: a path or stdin becomes one contiguous buffer, plus the newline-aligned line
//! spans the decoder walks.
//!
//! Regular files of at least [`MAP_MIN`] bytes are memory-mapped ([`crate::mapping`]): no
//! copy, no fresh pages, the page cache read in place. Everything else is read into memory
//! the process owns: stdin, pipes and devices, small files (a map costs more than the copy
//! of a few pages), compressed files (decompressed as they are read), and every file under
//! `--no-mmap`, the choice for a session that another process may rewrite or truncate while
//! it is read (a truncated map is a SIGBUS, reported as an error by the mapping module; an
//! owned copy only ever holds the bytes that were read).
//!
//! This module owns framing only (encoding sniffing, BOM, CRLF, NUL tails, line numbers)
//! and the bounds on what is read; it never parses JSON and never prints.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Inputs whose size is not known up front are read in blocks of this size.
const READ_BLOCK: usize = 4 << 20;
/// Regular files are read in parts of this size, side by side on the worker threads: the
/// copy out of the page cache (and the first touch of each page of the buffer) is most of
/// what reading costs, and it divides between CPUs like the decode does.
const READ_PART: usize = 8 << 20;
/// Regular files smaller than this are read, larger ones mapped (unless `--no-mmap`). Over
/// directories of files of one size, reading was 6% faster at 1 MiB, as fast at 2 and 4 MiB,
/// and mapping 10-25% faster from 8 MiB on.
pub const MAP_MIN: u64 = 2 << 20;
/// A single line longer than this in a stream is refused: `/dev/zero` must not eat memory.
pub const MAX_STREAM_LINE: usize = 1 << 30;
/// What `--max-bytes` defaults to: the most read from one input whose size is not known
/// up front (stdin, pipes, FIFOs, devices, `/proc`-style files that report size 0). Twice
/// the 1 GiB benchmark session, and far beyond real sessions (tens of MB), while an endless
/// stream (`/dev/urandom`) is refused after at most 2 GiB of memory and a few seconds.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;
/// Line numbers are 32-bit (they are stored for every entry and finding); a file with more
/// lines is refused rather than numbered wrongly.
const MAX_LINES: u64 = u32::MAX as u64;

/// The largest source: where an entry's line starts is kept in
/// [`crate::model::START_BITS`] bits.
const MAX_BYTES: u64 = 1 << crate::model::START_BITS;

/// How to get the bytes.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// The most bytes read from an input whose size is not known up front.
    pub max_bytes: u64,
    /// Map regular files of at least [`MAP_MIN`] bytes instead of reading them.
    pub mmap: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions { max_bytes: DEFAULT_MAX_BYTES, mmap: true }
    }
}

/// Which file an input is (device and inode), so that a command that writes a file can
/// refuse to write over its own input, whatever name or link leads to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of what `meta` describes; `None` where the platform has no inodes.
    pub fn of(meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId { dev: meta.dev(), ino: meta.ino() })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// One input's bytes and what framing found at its edges.
pub struct Source {
    /// The name as the user gave it (`-` for stdin), lossily decoded when the path is not
    /// UTF-8; untrusted text, sanitized wherever it is printed.
    pub name: String,
    data: Bytes,
    /// Byte range of the content: after a BOM, before a NUL tail.
    body: Range<usize>,
    /// A UTF-8 byte order mark was stripped at offset 0.
    pub bom: bool,
    /// Number of NUL bytes trimmed from the end (a torn write on some filesystems).
    pub nul_tail: usize,
    /// The file the bytes came from, when it is one (stdin redirected from a file is).
    pub identity: Option<FileId>,
}

/// Where the bytes live: a buffer the process owns, or a read-only map of the file.
enum Bytes {
    Owned(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m,
        }
    }
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
    pub fn open(path: &Path, opts: ReadOptions) -> Result<Source> {
        let name = path.to_string_lossy().into_owned();
        if path == Path::new("-") {
            let (identity, size) = stdin_file();
            let bytes = read_stream(io::stdin().lock(), &name, opts.max_bytes, size)?;
            let bytes = if crate::decompress::is_zstd(&bytes) {
                crate::decompress::zstd(&name, &bytes[..], opts.max_bytes)?
            } else {
                bytes
            };
            let mut s = Source::from_bytes(&name, bytes)?;
            s.identity = identity;
            return Ok(s);
        }
        let io = |source| Error::Io { path: name.clone(), source };
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Error::input(&name, "is a directory, expected a session file"));
        }
        // A regular file is read at the size seen at open: a file still being appended to
        // is read as the prefix that existed then. Size 0 says nothing for `/proc`-style
        // files, which are read like a stream.
        let mut magic = [0u8; 4];
        let compressed = meta.is_file()
            && meta.len() >= magic.len() as u64
            && read_at(&file, &mut magic, 0).is_ok_and(|n| n == magic.len())
            && crate::decompress::is_zstd(&magic);
        let bytes = if compressed {
            // A compressed rollout (Codex `.jsonl.zst`) is decompressed as it is read.
            crate::decompress::zstd(&name, io::BufReader::new(&file), opts.max_bytes)?
        } else if opts.mmap && meta.is_file() && meta.len() >= MAP_MIN {
            let len = usize::try_from(meta.len())
                .map_err(|_| Error::input(&name, format!("{} bytes is too large to map", meta.len())))?;
            let map = crate::mapping::map(&file, len).map_err(io)?;
            let mut s = Source::frame(&name, Bytes::Mapped(map))?;
            s.identity = FileId::of(&meta);
            return Ok(s);
        } else if meta.is_file() && meta.len() > 0 {
            read_file(&file, &name, meta.len())?
        } else {
            read_stream(&file, &name, opts.max_bytes, 0)?
        };
        let mut s = Source::from_bytes(&name, bytes)?;
        s.identity = FileId::of(&meta);
        Ok(s)
    }

    /// Wrap bytes already in memory (stdin, tests).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Source> {
        // A compressed rollout (Codex `.jsonl.zst`) is read as what it decompresses to.
        let bytes = if crate::decompress::is_zstd(&bytes) {
            crate::decompress::zstd(name, &bytes[..], DEFAULT_MAX_BYTES)?
        } else {
            bytes
        };
        Source::frame(name, Bytes::Owned(bytes))
    }

    /// Find the body (BOM, NUL tail) and refuse what is not line-oriented UTF-8 text.
    fn frame(name: &str, bytes: Bytes) -> Result<Source> {
        let all = &bytes[..];
        sniff_encoding(name, all)?;
        let bom = all.starts_with(b"\xEF\xBB\xBF");
        let start = if bom { 3 } else { 0 };
        let mut end = all.len();
        while end > start && all[end - 1] == 0 {
            end -= 1;
        }
        let nul_tail = all.len() - end;
        if all.len() as u64 > MAX_BYTES {
            return Err(Error::input(
                name,
                format!("{} bytes; at most {MAX_BYTES} bytes (2 PiB) can be read", all.len()),
            ));
        }
        check_cr_only(name, &all[start..end])?;
        check_line_count(name, &all[start..end], MAX_LINES)?;
        Ok(Source { name: name.to_string(), data: bytes, body: start..end, bom, nul_tail, identity: None })
    }

    /// The bytes are a map of the file, not a copy.
    pub fn is_mapped(&self) -> bool {
        matches!(self.data, Bytes::Mapped(_))
    }

    /// Every byte of the input, as read.
    pub fn bytes(&self) -> &[u8] {
        &self.data
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

/// Read `len` bytes of a regular file into one buffer, in parts side by side on the
/// worker threads. A file that ends before `len` was truncated by another process while it
/// was read: an error naming it, never a crash.
fn read_file(file: &File, name: &str, len: u64) -> Result<Vec<u8>> {
    let size = usize::try_from(len).map_err(|_| Error::input(name, format!("{len} bytes is too large to read")))?;
    let io = |source| Error::Io { path: name.to_string(), source };
    if size <= READ_PART {
        // Read into room never written: a small buffer comes from memory the allocator
        // reuses, which it would have to zero first. What the file gained since its size
        // was taken is not read.
        let mut buf = Vec::with_capacity(size);
        io::Seek::seek(&mut &*file, io::SeekFrom::Start(0)).map_err(io)?;
        let got = io::Read::read_to_end(&mut io::Read::take(file, len), &mut buf).map_err(io)?;
        return shrank(name, size, got).map(|()| buf);
    }
    // Zeroed memory straight from the OS (the allocator does not write it), filled once.
    let mut buf = vec![0u8; size];
    let parts = buf.par_chunks_mut(READ_PART).enumerate();
    let got = parts
        .map(|(k, part)| read_at_full(file, part, (k * READ_PART) as u64))
        .try_reduce(|| 0, |a, b| Ok(a + b))
        .map_err(io)?;
    shrank(name, size, got).map(|()| buf)
}

/// The error of a file that had `size` bytes at open and `got` when read, if fewer.
fn shrank(name: &str, size: usize, got: usize) -> Result<()> {
    if got < size {
        return Err(Error::input(
            name,
            format!(
                "the file shrank while it was read ({size} bytes at open, {got} readable): truncated or rewritten by another process?"
            ),
        ));
    }
    Ok(())
}

/// Fill `buf` from `offset`, retrying interrupted reads; fewer bytes only at end of file.
fn read_at_full(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match read_at(file, &mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// What standard input is when it was redirected from a file (`< s.jsonl`): its identity,
/// and its size (room to read it into); `(None, 0)` for anything else.
fn stdin_file() -> (Option<FileId>, u64) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let meta = io::stdin().as_fd().try_clone_to_owned().ok().and_then(|fd| File::from(fd).metadata().ok());
        match meta {
            Some(meta) if meta.is_file() => (FileId::of(&meta), meta.len()),
            _ => (None, 0),
        }
    }
    #[cfg(not(unix))]
    {
        (None, 0)
    }
}

/// Read an input whose size is not known for sure (standard input, pipe, FIFO, character
/// device, `/proc` file) until end of file, with bounds: at most `max_bytes` in all, and no line longer than
/// [`MAX_STREAM_LINE`], so that an endless stream fails instead of filling memory.
///
/// `room` is the size the input is expected to have (standard input redirected from a file
/// says it), or 0: the buffer is sized for it once, with a block to spare for the read that
/// finds the end. A buffer grown by doubling copies what was read at each step, and every
/// copy touches fresh pages (1 GiB through `-` took 1.9-4.2 s and up to 3 GiB). The size is
/// only room: the bounds hold on what is read.
fn read_stream(mut r: impl Read, path: &str, max_bytes: u64, room: u64) -> Result<Vec<u8>> {
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut buf: Vec<u8> = Vec::new();
    if room > 0 {
        let room = usize::try_from(room).unwrap_or(usize::MAX).min(max);
        // Address space only until read into; a refusal leaves the buffer to grow.
        let _ = buf.try_reserve_exact(room.saturating_add(READ_BLOCK + 1));
    }
    let mut line_start = 0usize;
    loop {
        let old = buf.len();
        // One byte past the cap is enough to know that the cap was passed.
        let want = READ_BLOCK.min(max.saturating_add(1) - old);
        buf.resize(old + want, 0);
        let n = loop {
            match r.read(&mut buf[old..]) {
                Ok(n) => break n,
                // A signal arrived mid-read (a resize, a timer): not the end of the input.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(Error::Io { path: path.to_string(), source }),
            }
        };
        buf.truncate(old + n);
        if n == 0 {
            break;
        }
        if buf.len() > max {
            return Err(Error::input(
                path,
                format!(
                    "more than {} read and the input goes on; inputs that are not regular files are read up to --max-bytes (default {})",
                    byte_count(max_bytes),
                    byte_count(DEFAULT_MAX_BYTES)
                ),
            ));
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

/// Line numbers are `u32`: refuse a body with more than `limit` lines instead of letting
/// the numbers wrap. Every line takes at least one byte, so only a body longer than
/// `limit` bytes (4 GiB) can have too many, and only then are its lines counted.
fn check_line_count(path: &str, body: &[u8], limit: u64) -> Result<()> {
    if body.len() as u64 <= limit {
        return Ok(());
    }
    let newlines = memchr::memchr_iter(b'\n', body).count() as u64;
    let lines = newlines + u64::from(body.last().is_some_and(|&b| b != b'\n'));
    if lines > limit {
        return Err(Error::input(
            path,
            format!("{lines} lines; at most {limit} lines can be read (line numbers are 32-bit)"),
        ));
    }
    Ok(())
}

/// Parse a byte count for `--max-bytes`: a whole number with an optional `K`, `M`, `G` or
/// `T` suffix (powers of 1024, as in `head -c`), case-insensitive, `B`/`iB` allowed after.
pub fn parse_byte_count(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let unit_text = lower.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = &t[..t.len() - unit_text.len()];
    let shift = match unit_text.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(format!("`{text}` is not a byte count (a number with an optional K, M, G or T suffix)")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count (a number with an optional K, M, G or T suffix)"))?;
    n.checked_mul(1u64 << shift).ok_or_else(|| format!("`{text}` is more than 2^64 bytes"))
}

/// A byte count for messages: the largest unit that divides it evenly.
fn byte_count(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
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

    /// A reader that hands out `data` a few bytes at a time, failing with EINTR before each
    /// piece, as a read interrupted by a signal does.
    struct Interrupted<'a> {
        data: &'a [u8],
        tick: bool,
    }

    impl Read for Interrupted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.tick = !self.tick;
            if self.tick {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            let n = buf.len().min(self.data.len()).min(3);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn interrupted_read_is_retried_not_taken_as_end_of_file() {
        let data = b"{\"a\":1}\n{\"b\":2}\n";
        let got = read_stream(Interrupted { data, tick: false }, "s", DEFAULT_MAX_BYTES, 0).unwrap();
        assert_eq!(got, data);
    }

    #[test]
    fn a_stream_of_known_size_is_read_into_one_buffer() {
        // Several read blocks and a tail: the buffer sized from the room is never regrown.
        let data = b"{\"a\":1}\n".repeat((3 * READ_BLOCK + 1000) / 8);
        let got = read_stream(&data[..], "s", DEFAULT_MAX_BYTES, data.len() as u64).unwrap();
        assert_eq!(got, data);
        assert_eq!(got.capacity(), data.len() + READ_BLOCK + 1, "sized once, never doubled");
        // Room is not a bound: a longer stream is read whole, and the cap still holds.
        assert_eq!(read_stream(&data[..], "s", DEFAULT_MAX_BYTES, 10).unwrap(), data);
        assert!(read_stream(&data[..], "s", 1000, data.len() as u64).is_err());
    }

    #[test]
    fn stream_past_max_bytes_is_refused_naming_the_input() {
        let data = vec![b'\n'; 10_000];
        let e = read_stream(&data[..], "pipe-in", 9_999, 0).unwrap_err().to_string();
        assert!(e.starts_with("pipe-in: more than 9999 bytes read"), "{e}");
        assert!(e.contains("--max-bytes"), "{e}");
        assert_eq!(read_stream(&data[..], "pipe-in", 10_000, 0).unwrap().len(), 10_000, "the cap itself is allowed");
        let e = read_stream(std::io::repeat(b'\n'), "endless", 3 << 20, 0).unwrap_err().to_string();
        assert!(e.contains("more than 3 MiB read"), "{e}");
    }

    #[test]
    fn more_lines_than_line_numbers_hold_is_refused() {
        // The same guard `from_bytes` applies with u32::MAX, with a limit small enough to
        // reach: lines are counted as `LineIter` yields them.
        assert!(check_line_count("t", b"a\nb\nc\n", 3).is_ok());
        assert!(check_line_count("t", b"a\nb\nc", 3).is_ok());
        let e = check_line_count("t", b"a\nb\nc\nd", 3).unwrap_err().to_string();
        assert_eq!(e, "t: 4 lines; at most 3 lines can be read (line numbers are 32-bit)");
        assert!(check_line_count("t", b"\n\n\n\n", 3).is_err());
        assert!(check_line_count("t", b"abcdefgh\n", 3).is_ok(), "one long line is one line");
        assert_eq!(count_lines(b"a\nb\nc\nd") as u64, 4);
    }

    #[test]
    fn byte_counts_take_binary_suffixes() {
        assert_eq!(parse_byte_count("0"), Ok(0));
        assert_eq!(parse_byte_count("4096"), Ok(4096));
        assert_eq!(parse_byte_count("64K"), Ok(64 << 10));
        assert_eq!(parse_byte_count("512m"), Ok(512 << 20));
        assert_eq!(parse_byte_count("2G"), Ok(2 << 30));
        assert_eq!(parse_byte_count("2GiB"), Ok(2 << 30));
        assert_eq!(parse_byte_count("1t"), Ok(1 << 40));
        for bad in ["", "G", "1.5G", "-1", "1X", "1 G", "99999999999T"] {
            assert!(parse_byte_count(bad).is_err(), "{bad:?}");
        }
        assert_eq!(byte_count(DEFAULT_MAX_BYTES), "2 GiB");
        assert_eq!(byte_count(1000), "1000 bytes");
    }

    /// A small file is read whole in one go, at the size seen at open: what it gains after
    /// is left for the next read, and what it loses is an error.
    #[test]
    fn small_file_is_read_at_its_size_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let body = b"{\"a\":1}\n".repeat(1000);
        std::fs::write(&path, &body).unwrap();
        let file = File::open(&path).unwrap();
        let len = file.metadata().unwrap().len();
        assert_eq!(read_file(&file, "s.jsonl", len).unwrap(), body);
        // Read again through the same handle: from the start, not from where the last read
        // stopped.
        assert_eq!(read_file(&file, "s.jsonl", len).unwrap(), body);
        let mut grow = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut grow, b"{\"b\":2}\n").unwrap();
        assert_eq!(read_file(&file, "s.jsonl", len).unwrap(), body, "only the size seen at open");
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 3).unwrap();
        let e = read_file(&file, "s.jsonl", len).unwrap_err().to_string();
        assert!(e.contains(&format!("({len} bytes at open, {} readable)", len - 3)), "{e}");
    }

    #[test]
    fn file_that_shrank_since_open_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let body = b"{}\n".repeat(READ_PART + 5);
        std::fs::write(&path, &body).unwrap();
        let file = File::open(&path).unwrap();
        let len = file.metadata().unwrap().len();
        assert_eq!(read_file(&file, "s.jsonl", len).unwrap(), body, "read whole, in parts");
        // Another process cuts the file between the size seen at open and the read.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len / 2).unwrap();
        let e = read_file(&file, "s.jsonl", len).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("s.jsonl: the file shrank while it was read ({len} bytes at open, {} readable): truncated or rewritten by another process?", len / 2)
        );
    }

    #[test]
    fn large_files_are_mapped_small_ones_and_no_mmap_read_with_the_same_framing() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.jsonl");
        let mut body = b"\xEF\xBB\xBF".to_vec();
        while body.len() < MAP_MIN as usize {
            body.extend_from_slice(b"{\"a\":1}\r\n");
        }
        body.extend_from_slice(b"{\"torn\0\0");
        std::fs::write(&big, &body).unwrap();
        let small = dir.path().join("small.jsonl");
        std::fs::write(&small, &body[..1000]).unwrap();
        let mapped = Source::open(&big, ReadOptions::default()).unwrap();
        let read = Source::open(&big, ReadOptions { mmap: false, ..ReadOptions::default() }).unwrap();
        assert!(mapped.is_mapped() && !read.is_mapped());
        assert!(!Source::open(&small, ReadOptions::default()).unwrap().is_mapped(), "below MAP_MIN: read");
        assert_eq!(mapped.bytes(), &body[..]);
        assert_eq!(mapped.bytes(), read.bytes());
        assert_eq!((mapped.body(), mapped.bom, mapped.nul_tail), (read.body(), read.bom, read.nul_tail));
        assert_eq!((mapped.body().start, mapped.nul_tail), (3, 2));
        assert!(mapped.lines().eq(read.lines()));
        assert_eq!(mapped.identity, read.identity);
    }

    #[test]
    fn stream_of_nuls_is_refused() {
        let zeros = std::io::repeat(0).take((READ_BLOCK * 3) as u64);
        assert!(read_stream(zeros, "z", DEFAULT_MAX_BYTES, 0).is_err());
    }
}
