//! JSON output. Valid JSON as serde_json writes it, except that characters a terminal could
//! act on (DEL, C1 controls, bidi overrides, invisible and line-separator characters) are
//! written as `\uXXXX` escapes: the same data, safe to print. Never coloured.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use crate::ahead;
use crate::sanitize::is_invisible;

/// Write one JSON document followed by a newline.
pub fn write<W: Write + ?Sized, T: Serialize + ?Sized>(w: &mut W, value: &T, pretty: bool) -> io::Result<()> {
    if pretty {
        let mut ser = serde_json::Serializer::with_formatter(&mut *w, Safe(PrettyFormatter::with_indent(b"  ")));
        value.serialize(&mut ser).map_err(io_error)?;
    } else {
        let mut ser = serde_json::Serializer::with_formatter(&mut *w, Safe(CompactFormatter));
        value.serialize(&mut ser).map_err(io_error)?;
    }
    w.write_all(b"\n")
}

/// Write `doc`, which serializes as a JSON object, with one more member at its end: `key`,
/// an array of `items` serialized on every worker, a chunk each, and written in order. The
/// bytes are those [`write`] gives (compact) for the document with that array as its last
/// member. Such an array is most of a long document (`tree --json`: a node per entry), and
/// serializing it is most of the time after the load; the chunks are rendered a batch at a
/// time, so memory holds two batches, not the document. An item is about `item_bytes` of
/// JSON: a chunk holds fewer of bigger ones.
pub fn write_with_array<W, D, T>(w: &mut W, doc: &D, key: &str, items: &[T], item_bytes: usize) -> io::Result<()>
where
    W: Write + ?Sized,
    D: Serialize + ?Sized,
    T: Serialize + Sync,
{
    write_with_items(w, doc, key, items.len(), item_bytes, |i| &items[i])
}

/// [`write_with_array`] for an array of `count` items made by `item` from their positions as
/// they are serialized: memory holds two batches of them, not the array.
pub fn write_with_items<W, D, T, F>(
    w: &mut W,
    doc: &D,
    key: &str,
    count: usize,
    item_bytes: usize,
    item: F,
) -> io::Result<()>
where
    W: Write + ?Sized,
    D: Serialize + ?Sized,
    T: Serialize,
    F: Fn(usize) -> T + Sync,
{
    write_with_items_by(w, doc, key, count, item_bytes, |buf, i| compact(buf, &item(i)))
}

/// [`write_with_items`] for items that write themselves: `item` appends item `i` as compact
/// JSON (the bytes [`super::compact::append`] gives).
pub fn write_with_items_by<W, D, F>(
    w: &mut W,
    doc: &D,
    key: &str,
    count: usize,
    item_bytes: usize,
    item: F,
) -> io::Result<()>
where
    W: Write + ?Sized,
    D: Serialize + ?Sized,
    F: Fn(&mut Vec<u8>, usize) -> io::Result<()> + Sync,
{
    let mut head = Vec::new();
    compact(&mut head, doc)?;
    if head.pop() != Some(b'}') {
        return Err(io::Error::other("a document with an array member must be an object"));
    }
    if head != b"{" {
        head.push(b',');
    }
    compact(&mut head, key)?;
    head.extend_from_slice(b":[");
    w.write_all(&head)?;
    let mut first = true;
    let each = |buf: &mut Vec<u8>, i| {
        // (An item is never empty: an empty buffer is the start of its chunk.)
        if !buf.is_empty() {
            buf.push(b',');
        }
        item(buf, i)
    };
    in_batches(count, chunk_of(item_bytes), item_bytes, each, &mut |part| {
        if !first {
            w.write_all(b",")?;
        }
        first = false;
        w.write_all(part)
    })?;
    w.write_all(b"]}\n")
}

/// `count` lines made by `line` from their positions, serialized on every worker and handed
/// to `emit` in order, a chunk of lines at a time: NDJSON whose memory holds two batches of
/// lines, not the stream. `line` appends item `i`'s line of compact JSON (the bytes
/// [`write`] gives, about `line_bytes`), its newline included.
pub fn write_lines<F>(
    count: usize,
    line_bytes: usize,
    line: F,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<()>,
) -> io::Result<()>
where
    F: Fn(&mut Vec<u8>, usize) -> io::Result<()> + Sync,
{
    in_batches(count, CHUNK, line_bytes, line, emit)
}

/// [`write_lines`] for lines made in groups: `count` groups, about `group_bytes` of lines
/// each (a trace's run and its spans), `group` appending the lines of group `i` in their
/// order, each with its newline, and the groups in theirs.
pub fn write_line_groups<F>(
    count: usize,
    group_bytes: usize,
    group: F,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<()>,
) -> io::Result<()>
where
    F: Fn(&mut Vec<u8>, usize) -> io::Result<()> + Sync,
{
    in_batches(count, chunk_of(group_bytes), group_bytes, group, emit)
}

/// How many items of about `item_bytes` a chunk holds: about `CHUNK` items of `NODE_BYTES`,
/// fewer of bigger ones, so that the two batches in memory stay a few MB whatever an item
/// holds (a trace's run).
fn chunk_of(item_bytes: usize) -> usize {
    (CHUNK * NODE_BYTES / item_bytes.max(1)).clamp(1, CHUNK)
}

/// Items `0..count` serialized in parallel, `chunk` to a buffer (`each` appends item `i`
/// to its chunk's buffer, made for items of about `item_bytes`), and handed to `emit` in
/// order, a batch of chunks (four a worker) at a time ([`ahead::each`]): memory holds two
/// batches of serialized items, never all of them, and the workers serialize the next
/// batch while this thread hands one to `emit` (which writes it to a pipe or a file, as
/// long again on a fast reader).
///
/// `emit` may take a chunk's buffer (`std::mem::take`) to keep it; a buffer it leaves is
/// emptied and serialized into again ([`ahead::Spare`]): a long output reuses the memory of
/// two batches.
fn in_batches<F>(
    count: usize,
    chunk: usize,
    item_bytes: usize,
    each: F,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<()>,
) -> io::Result<()>
where
    F: Fn(&mut Vec<u8>, usize) -> io::Result<()> + Sync,
{
    let batch = chunk * 4 * rayon::current_num_threads().max(1);
    // The buffers `emit` left, for the chunks still to serialize.
    let spare = ahead::Spare::default();
    let make = |k: usize| -> Vec<io::Result<Vec<u8>>> {
        let end = count.min((k + 1) * batch);
        (k * batch..end)
            .step_by(chunk)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| {
                let items = start..end.min(start + chunk);
                let mut buf = spare.take();
                buf.reserve(items.len() * item_bytes);
                for i in items {
                    each(&mut buf, i)?;
                }
                Ok(buf)
            })
            .collect()
    };
    ahead::each(count.div_ceil(batch), make, |parts| {
        parts.into_iter().try_for_each(|part| {
            let mut buf = part?;
            emit(&mut buf)?;
            spare.give(buf);
            Ok(())
        })
    })
}

/// Items serialized to one buffer by one task of [`in_batches`].
const CHUNK: usize = 2048;

/// About the bytes of a `tree --json` node or a `path --json` step: what [`CHUNK`] is made for.
pub const NODE_BYTES: usize = 128;

/// A value rendered ahead of the document it goes into (on a worker, while others still
/// load): compact JSON with [`write`]'s escaping, written into a compact document as it is,
/// so the document's bytes are those of the value in its place.
pub struct Rendered(String);

/// serde_json's protocol for `RawValue`: a struct of this name, with one field of this
/// name holding the text, is written as that text.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// `value` as a [`Rendered`] piece.
pub fn render<T: Serialize + ?Sized>(value: &T) -> io::Result<Rendered> {
    let mut buf = Vec::new();
    compact(&mut buf, value)?;
    String::from_utf8(buf).map(Rendered).map_err(io::Error::other)
}

impl Serialize for Rendered {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = s.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, &self.0)?;
        raw.end()
    }
}

/// `value` as compact JSON, with [`write`]'s escaping, appended to `buf` (the bytes
/// serde_json gives, written faster: [`super::compact`]).
fn compact<T: Serialize + ?Sized>(buf: &mut Vec<u8>, value: &T) -> io::Result<()> {
    super::compact::append(buf, value).map_err(io_error)
}

/// A string as serde_json writes it with [`write`]'s escaping, appended to `buf`: for
/// [`super::compact`], which writes the strings that need no escaping itself. Kept out of
/// line: the writer inlines its check of every string, and this rare path would make each
/// copy save the registers it needs.
#[inline(never)]
pub(super) fn escaped_str(buf: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    use serde::Serializer;
    serde_json::Serializer::with_formatter(buf, Safe(CompactFormatter)).serialize_str(s)
}

/// A serializer error as an I/O error of the same kind: a closed pipe met while writing a
/// long stream of documents must stay a broken pipe, which exits 0.
fn io_error(e: serde_json::Error) -> io::Error {
    match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e),
        None => io::Error::other(e),
    }
}

/// Write a line of JSON text as stored (valid JSON, checked at load), with the same
/// escaping of terminal-active characters as [`write`] (in valid JSON they can only sit
/// inside strings, where `\uXXXX` means the same character).
pub fn write_raw<W: Write + ?Sized>(w: &mut W, text: &str) -> io::Result<()> {
    Safe(CompactFormatter).write_string_fragment(w, text)?;
    w.write_all(b"\n")
}

/// A formatter wrapper that escapes terminal-active characters inside strings.
struct Safe<F>(F);

fn needs_escape(c: char) -> bool {
    c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || is_invisible(c)
}

impl<F: Formatter> Formatter for Safe<F> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, fragment: &str) -> io::Result<()> {
        if fragment.is_ascii() && !fragment.contains('\u{7f}') {
            return w.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if needs_escape(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                // Tag characters and the like lie beyond the BMP: a surrogate pair.
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{:04x}", u)?;
                }
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }

    // Everything else is delegated unchanged.
    fn write_null<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.write_null(w)
    }
    fn write_bool<W: ?Sized + Write>(&mut self, w: &mut W, v: bool) -> io::Result<()> {
        self.0.write_bool(w, v)
    }
    fn write_i64<W: ?Sized + Write>(&mut self, w: &mut W, v: i64) -> io::Result<()> {
        self.0.write_i64(w, v)
    }
    fn write_u64<W: ?Sized + Write>(&mut self, w: &mut W, v: u64) -> io::Result<()> {
        self.0.write_u64(w, v)
    }
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        self.0.write_f64(w, v)
    }
    fn write_number_str<W: ?Sized + Write>(&mut self, w: &mut W, v: &str) -> io::Result<()> {
        self.0.write_number_str(w, v)
    }
    fn begin_string<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_string(w)
    }
    fn end_string<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_string(w)
    }
    fn write_char_escape<W: ?Sized + Write>(&mut self, w: &mut W, e: serde_json::ser::CharEscape) -> io::Result<()> {
        self.0.write_char_escape(w, e)
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_terminal_active_characters() {
        let mut out = Vec::new();
        super::write(&mut out, &serde_json::json!({"t": "a\u{9b}b\u{202e}c\u{1b}é\u{E0041}"}), false).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s, "{\"t\":\"a\\u009bb\\u202ec\\u001bé\\udb40\\udc41\"}\n");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["t"], "a\u{9b}b\u{202e}c\u{1b}é\u{E0041}");
    }

    /// Pieces rendered ahead go into a document as the values would have: the same bytes,
    /// terminal-active characters escaped once, in objects, arrays and alone.
    #[test]
    fn rendered_pieces_write_as_their_values() {
        use serde_json::json;
        let values = [
            json!({"file": "a\u{9b}b\u{202e}.jsonl", "n": [1, 2.5, null], "nested": {"k": "é\u{E0041}"}}),
            json!("plain"),
            json!([]),
            json!(-0.0),
        ];
        let rendered: Vec<super::Rendered> = values.iter().map(|v| super::render(v).unwrap()).collect();
        let mut want = Vec::new();
        super::write(&mut want, &json!({"schema_version": 1, "sessions": values, "total": {}}), false).unwrap();
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            schema_version: u32,
            sessions: &'a [super::Rendered],
            total: serde_json::Value,
        }
        let mut got = Vec::new();
        super::write(&mut got, &Doc { schema_version: 1, sessions: &rendered, total: json!({}) }, false).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap());
    }

    /// NDJSON written in batches is each item written alone, in order: off the workers
    /// (made while the one before is handed on) and on one (batch after batch), at counts
    /// around the chunk and batch sizes, whether the hand-over takes a chunk's buffer or
    /// leaves it to be serialized into again. A failing hand-over stops the stream with its
    /// error.
    #[test]
    fn lines_written_in_batches_are_each_item_written_alone() {
        use serde_json::json;
        let item = |i: usize| json!({"i": i, "t": format!("\u{202e}{i}")});
        let batch = super::CHUNK * 4 * rayon::current_num_threads().max(1);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for n in [0, 1, 2049, batch - 1, batch, batch + 1, 3 * batch + 5] {
            let mut want = Vec::new();
            for i in 0..n {
                super::write(&mut want, &item(i), false).unwrap();
            }
            // Every other chunk's buffer is taken, as a sink that keeps its rows takes
            // them; the others are left, and serialized into again.
            let lines = |got: &mut Vec<u8>| {
                let mut k = 0;
                super::write_lines(n, 40, |buf, i| line(buf, &item(i)), &mut |c| {
                    k += 1;
                    match k % 2 {
                        0 => got.extend(std::mem::take(c)),
                        _ => got.extend_from_slice(c),
                    }
                    Ok(())
                })
            };
            let mut got = Vec::new();
            lines(&mut got).unwrap();
            assert!(got == want, "{n} lines");
            let mut got = Vec::new();
            pool.install(|| lines(&mut got)).unwrap();
            assert!(got == want, "{n} lines on a worker");
        }
        let mut handed = 0;
        let closed = super::write_lines(3 * batch, 40, |buf, i| line(buf, &i), &mut |_| {
            handed += 1;
            Err(std::io::ErrorKind::BrokenPipe.into())
        });
        assert_eq!(closed.map_err(|e| e.kind()), Err(std::io::ErrorKind::BrokenPipe));
        assert_eq!(handed, 1);
    }

    /// `value` as a line of compact JSON, as the writers of lines append it.
    fn line(buf: &mut Vec<u8>, value: &impl serde::Serialize) -> std::io::Result<()> {
        super::compact(buf, value)?;
        buf.push(b'\n');
        Ok(())
    }

    /// Lines written in groups are the groups' lines written one after the other, in order:
    /// groups of none, one and many lines, at group counts around the chunk and batch
    /// sizes, with groups of three sizes (chunks of 2,048, 16 and one group).
    #[test]
    fn lines_written_in_groups_are_each_groups_lines_in_order() {
        use serde_json::json;
        let group = |g: usize| (0..g % 5).map(move |k| json!({"g": g, "k": k, "t": format!("\u{9b}{g}")}));
        let batch = super::CHUNK * 4 * rayon::current_num_threads().max(1);
        for n in [0, 1, 5, 2049, batch + 1, 3 * batch + 5] {
            let mut want = Vec::new();
            for line in (0..n).flat_map(group) {
                super::write(&mut want, &line, false).unwrap();
            }
            for group_bytes in [super::NODE_BYTES, 16 * 1024, 1 << 20] {
                let mut got = Vec::new();
                let each = |buf: &mut Vec<u8>, g| group(g).try_for_each(|l| line(buf, &l));
                super::write_line_groups(n, group_bytes, each, &mut |c| {
                    got.extend_from_slice(c);
                    Ok(())
                })
                .unwrap();
                assert!(got == want, "{n} groups of {group_bytes} bytes");
            }
        }
    }

    /// The array written in parallel chunks gives the bytes of the whole document written
    /// at once: at every count around the chunk and batch sizes, with chunks of every size,
    /// after an empty object and a full one, with text to escape in the items and the key.
    #[test]
    fn an_array_written_in_chunks_is_the_document_written_whole() {
        use serde_json::{json, Value};
        let batch = super::CHUNK * 4 * rayon::current_num_threads().max(1);
        for n in [0, 1, 2, 2047, 2048, 2049, 4097, batch - 1, batch, batch + 1, 2 * batch + 3] {
            let items: Vec<Value> = (0..n).map(|i| json!({"id": format!("e{i}\u{202e}"), "n": i})).collect();
            for head in [json!({}), json!({"schema_version": 1, "file": "a\u{9b}.jsonl", "roots": ["x"]})] {
                let mut whole = head.clone();
                whole.as_object_mut().unwrap().insert("nodes\u{7f}".into(), Value::Array(items.clone()));
                let mut want = Vec::new();
                super::write(&mut want, &whole, false).unwrap();
                // Items of a node's size (chunks of 2048), of a trace run's (chunks of 64) and
                // bigger than a chunk's bytes (chunks of one).
                for item_bytes in [super::NODE_BYTES, 4096, 1 << 20] {
                    let mut got = Vec::new();
                    super::write_with_array(&mut got, &head, "nodes\u{7f}", &items, item_bytes).unwrap();
                    assert!(got == want, "{n} items of {item_bytes} bytes after {head}");
                }
            }
        }
        let mut out = Vec::new();
        assert!(super::write_with_array(&mut out, &json!([1]), "nodes", &[1], super::NODE_BYTES).is_err());
    }
}
