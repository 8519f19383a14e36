//! The normalized records every view works on, whatever the session format. Strings borrow
//! from the input buffer where they can; payloads (message text, tool output, arguments)
//! stay in the buffer as raw JSON and are decoded only by the view that shows them.

use std::borrow::Cow;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;
use std::sync::LazyLock;

use serde::Serialize;
use serde_json::value::RawValue;

/// The session formats this tool reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Arcturn,
    Crab,
    Pi,
    Codex,
    Claude,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Arcturn => "arcturn",
            Format::Crab => "crab",
            Format::Pi => "pi",
            Format::Codex => "codex",
            Format::Claude => "claude",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An entry id or a tool call id, typed as in the file: crab writes integers, arcturn
/// strings, and `1` and `"1"` are different ids that never match. Text is packed where it
/// can be: short text (8 hex digits, a made-up `L12`) inline, and a UUID in its canonical
/// form as 128 bits, so that comparing or hashing an id reads 16 bytes instead of chasing a
/// pointer into the file. Any other text stays text. Each text packs one way only, so two
/// ids are equal exactly when their texts are (and their types).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Id<'a> {
    Int(u64),
    /// Text of at most 15 bytes: its length, then its bytes (zeros after them).
    Short(u8, [u8; 15]),
    /// A UUID written in its canonical form (`8-4-4-4-12` lowercase hex digits), as 128 bits.
    Uuid([u64; 2]),
    /// Any other text (longer than 15 bytes, and not a canonical UUID).
    Long(Cow<'a, str>),
}

/// An id that owns its text, for findings and views that outlive the buffer.
pub type OwnedId = Id<'static>;

impl<'a> Id<'a> {
    /// The id of a text, taking it: a long one that owns its bytes keeps them, uncopied.
    pub fn from_text(s: Cow<'a, str>) -> Id<'a> {
        Id::packed(&s).unwrap_or(Id::Long(s))
    }

    /// The id of a text (a long text that borrows from the buffer is borrowed again).
    pub fn of_text(s: &Cow<'a, str>) -> Id<'a> {
        Id::packed(s).unwrap_or_else(|| Id::Long(s.clone()))
    }

    /// The id of a text that does not outlive the call: packed, or else copied.
    pub fn copied(s: &str) -> Id<'a> {
        Id::packed(s).unwrap_or_else(|| Id::Long(Cow::Owned(s.to_string())))
    }

    /// A short string or a canonical UUID, packed; `None` for any other text.
    fn packed(s: &str) -> Option<Id<'a>> {
        if s.len() <= 15 {
            let mut b = [0u8; 15];
            b[..s.len()].copy_from_slice(s.as_bytes());
            Some(Id::Short(s.len() as u8, b))
        } else {
            pack_uuid(s.as_bytes()).map(Id::Uuid)
        }
    }

    pub fn to_owned_id(&self) -> OwnedId {
        match self {
            Id::Int(n) => Id::Int(*n),
            Id::Short(n, b) => Id::Short(*n, *b),
            Id::Uuid(u) => Id::Uuid(*u),
            Id::Long(s) => Id::Long(Cow::Owned(s.to_string())),
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Id::Int(_))
    }

    /// The text of a string id; `None` for an integer.
    pub fn as_text(&self) -> Option<Cow<'_, str>> {
        match self {
            Id::Int(_) => None,
            Id::Short(n, b) => Some(Cow::Borrowed(std::str::from_utf8(&b[..*n as usize]).unwrap_or_default())),
            Id::Uuid([hi, lo]) => Some(Cow::Owned(uuid_text(*hi, *lo))),
            Id::Long(s) => Some(Cow::Borrowed(s)),
        }
    }

    /// `f` of the id's text, formatted on the stack when it is not text already (an
    /// integer's digits, a UUID's 36 characters): for writers that take a `&str`.
    pub fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match self {
            Id::Int(n) => {
                let mut buf = [0u8; 20];
                let mut at = buf.len();
                let mut v = *n;
                loop {
                    at -= 1;
                    buf[at] = b'0' + (v % 10) as u8;
                    v /= 10;
                    if v == 0 {
                        break;
                    }
                }
                f(std::str::from_utf8(&buf[at..]).unwrap_or_default())
            }
            Id::Short(n, b) => f(std::str::from_utf8(&b[..*n as usize]).unwrap_or_default()),
            Id::Uuid([hi, lo]) => {
                let buf = uuid_bytes(*hi, *lo);
                f(std::str::from_utf8(&buf).unwrap_or_default())
            }
            Id::Long(s) => f(s),
        }
    }

    /// The id as text (no quotes), as a user would type it.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Id::Int(n) => Cow::Owned(n.to_string()),
            _ => self.as_text().unwrap_or_default(),
        }
    }

    /// A short form for narrow views: long string ids are cut to 8 characters.
    pub fn short(&self) -> String {
        match self {
            Id::Int(n) => n.to_string(),
            _ => self.text().chars().take(8).collect(),
        }
    }

    /// The id as a JSON value of its own type.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Id::Int(n) => serde_json::Value::from(*n),
            _ => serde_json::Value::from(self.text().as_ref()),
        }
    }

    /// The hash the indexes use: foldhash of the packed form as whole words (one multiply
    /// for a short id), keyed with a seed drawn once per process. The key matters: with an
    /// unkeyed multiplicative hash (`FxHash`), ids can be crafted offline so that they all
    /// land in one bucket, and every index turns quadratic (80k such ids took 16 s to check).
    pub fn hash64(&self) -> u64 {
        static STATE: LazyLock<foldhash::fast::RandomState> = LazyLock::new(Default::default);
        let mut h = STATE.build_hasher();
        std::hash::Hash::hash(self, &mut h);
        h.finish()
    }
}

/// The canonical text of a packed UUID.
fn uuid_text(hi: u64, lo: u64) -> String {
    String::from_utf8_lossy(&uuid_bytes(hi, lo)).into_owned()
}

/// The 36 bytes of a packed UUID's canonical text.
fn uuid_bytes(hi: u64, lo: u64) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let v = (u128::from(hi) << 64) | u128::from(lo);
    let mut out = [b'-'; 36];
    let mut at = 0;
    for k in 0..32 {
        if matches!(k, 8 | 12 | 16 | 20) {
            at += 1;
        }
        out[at] = HEX[(v >> (124 - 4 * k)) as usize & 15];
        at += 1;
    }
    out
}

/// Integers before text, integers by value, text by its bytes (the order of the ids' texts,
/// however they are packed).
impl Ord for Id<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Id::Int(a), Id::Int(b)) => a.cmp(b),
            (Id::Int(_), _) => std::cmp::Ordering::Less,
            (_, Id::Int(_)) => std::cmp::Ordering::Greater,
            _ => self.as_text().cmp(&other.as_text()),
        }
    }
}

impl PartialOrd for Id<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            _ => self.with_text(|t| f.write_str(t)),
        }
    }
}

impl Serialize for Id<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Int(n) => s.serialize_u64(*n),
            _ => self.with_text(|t| s.serialize_str(t)),
        }
    }
}

/// The 128 bits of a UUID in canonical form, or `None` for any other text.
fn pack_uuid(s: &[u8]) -> Option<[u64; 2]> {
    if s.len() != 36 || s[8] != b'-' || s[13] != b'-' || s[18] != b'-' || s[23] != b'-' {
        return None;
    }
    // Without the dashes: 8, 4, 4, 4 and 12 digits, 16 to a half.
    let mut digits = [0u8; 32];
    digits[..8].copy_from_slice(&s[..8]);
    digits[8..12].copy_from_slice(&s[9..13]);
    digits[12..16].copy_from_slice(&s[14..18]);
    digits[16..20].copy_from_slice(&s[19..23]);
    digits[20..].copy_from_slice(&s[24..]);
    let (hi, lo) = digits.split_at(16);
    Some([hex16(hi.try_into().ok()?)?, hex16(lo.try_into().ok()?)?])
}

/// The 64 bits that 16 lowercase hex digits spell, or `None` when one is anything else.
/// With SSE2 (every x86-64): every digit's value at once, then the pairs of nibbles joined
/// and packed into 8 bytes.
#[cfg(target_arch = "x86_64")]
fn hex16(d: &[u8; 16]) -> Option<u64> {
    use safe_arch::{
        add_i8_m128i, bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i,
        move_mask_i8_m128i, pack_i16_to_u8_m128i, set_splat_i16_m128i, set_splat_i8_m128i, shl_imm_u16_m128i,
        shr_imm_u16_m128i, sub_i8_m128i, zeroed_m128i,
    };
    let v = load_unaligned_m128i(d);
    // A byte is a digit when it is at most 9 above `0`, a letter at most 5 above `a`
    // (wrapping: anything below lands high).
    let digit = sub_i8_m128i(v, set_splat_i8_m128i(b'0' as i8));
    let is_digit = cmp_eq_mask_i8_m128i(min_u8_m128i(digit, set_splat_i8_m128i(9)), digit);
    let letter = sub_i8_m128i(v, set_splat_i8_m128i(b'a' as i8));
    let is_letter = cmp_eq_mask_i8_m128i(min_u8_m128i(letter, set_splat_i8_m128i(5)), letter);
    if move_mask_i8_m128i(bitor_m128i(is_digit, is_letter)) != 0xFFFF {
        return None;
    }
    let value = bitor_m128i(
        bitand_m128i(is_digit, digit),
        bitand_m128i(is_letter, add_i8_m128i(letter, set_splat_i8_m128i(10))),
    );
    // Each 16-bit lane holds a pair, the first digit low: shift it up a nibble, bring the
    // second down, and keep the low byte of each lane.
    let first = shl_imm_u16_m128i::<4>(bitand_m128i(value, set_splat_i16_m128i(0x00ff)));
    let second = shr_imm_u16_m128i::<8>(value);
    let bytes: [u8; 16] = pack_i16_to_u8_m128i(bitor_m128i(first, second), zeroed_m128i()).into();
    Some(u64::from_be_bytes(bytes[..8].try_into().ok()?))
}

#[cfg(not(target_arch = "x86_64"))]
fn hex16(d: &[u8; 16]) -> Option<u64> {
    hex16_scalar(d)
}

/// [`hex16`] digit by digit: the reference the vector version is tested against, and the
/// version for other architectures.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn hex16_scalar(d: &[u8; 16]) -> Option<u64> {
    d.iter().try_fold(0u64, |v, &c| {
        let n = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        Some(v << 4 | u64::from(n))
    })
}

/// Hashing for maps keyed by ids (the keyed [`Id::hash64`] is what the tree index uses).
impl std::hash::Hash for Id<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self {
            Id::Int(n) => h.write_u64(*n),
            Id::Short(len, b) => {
                let mut w = [*len; 16];
                w[1..].copy_from_slice(b);
                h.write_u128(u128::from_le_bytes(w));
            }
            Id::Uuid([hi, lo]) => {
                h.write_u64(*hi);
                h.write_u64(*lo);
            }
            Id::Long(s) => h.write(s.as_bytes()),
        }
    }
}

/// A tool call or result made by an entry, with its call id packed while the line was in
/// cache, for the pairing check over the whole file.
#[derive(Clone, Debug)]
pub struct ToolUse<'a> {
    /// The entry's position in file order.
    pub entry: u32,
    pub side: ToolSide,
    /// The call id; `None` for a result that names none (a call without an id is not listed).
    pub key: Option<Id<'a>>,
    /// For a call: whether its turn ran, so that a result is expected
    /// ([`Message::tools_ran`]).
    pub ran: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSide {
    Call,
    Result,
}

/// The first line of a file when it describes the session rather than an entry
/// (arcturn `session` header, crab `meta`).
#[derive(Clone, Debug, Default)]
pub struct Header<'a> {
    pub line: u32,
    pub span: Range<usize>,
    pub id: Option<Cow<'a, str>>,
    pub title: Option<Text<'a>>,
    pub cwd: Option<Cow<'a, str>>,
    /// Creation time, epoch milliseconds.
    pub created: Option<i64>,
    pub version: Option<u64>,
    /// The session this one was forked from, as the file names it (pi `parentSession`).
    pub origin: Option<Cow<'a, str>>,
}

/// What kind of tree entry a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Message,
    Compaction,
    Label,
    State,
    /// A kind this tool does not know; kept as a node and shown generically.
    Unknown,
}

/// A time in epoch milliseconds, or none, in 8 bytes where `Option<i64>` takes 16: `i64::MIN`
/// stands for none (the decode reports a file's `i64::MIN` as an invalid time, and no text
/// time comes near it: that is 292 million years BC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ms(i64);

impl Ms {
    pub const NONE: Ms = Ms(i64::MIN);

    pub fn get(self) -> Option<i64> {
        (self.0 != i64::MIN).then_some(self.0)
    }

    pub fn is_some(self) -> bool {
        self.0 != i64::MIN
    }
}

impl From<Option<i64>> for Ms {
    fn from(t: Option<i64>) -> Ms {
        Ms(t.unwrap_or(i64::MIN))
    }
}

/// One node of the session tree.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    pub line: u32,
    /// The length of the line's bytes in the source ([`Entry::span`]); `u32::MAX` for a
    /// line of 4 GiB or more, whose end is in the box of rarer parts.
    len: u32,
    /// Packed in 8 bytes, where they took 20 with padding (an entry of 72 bytes, not 80):
    /// where the line starts in the source (the low [`START_BITS`] bits; [`Entry::span`]),
    /// the [`Kind`] (3 bits), whether the id was made up by the reader
    /// ([`Entry::synthetic_id`]), whether the parent is the entry just before
    /// ([`Entry::parent_is_previous`]), and the kind as written, as its place in
    /// [`KIND_NAMES`] (the top byte; [`Entry::kind_name`]).
    at: u64,
    pub id: Id<'a>,
    /// The parent's id: `None` for a root (`null`, and also when the field is missing:
    /// reported), and for an entry whose parent is the entry just before it
    /// ([`Entry::parent_is_previous`]). [`parent_id`] reads either way. (Boxed: nearly
    /// every entry continues from the one before, and keeps 8 bytes here instead of 24.)
    pub parent: Option<Box<Id<'a>>>,
    /// Entry time, epoch milliseconds (arcturn `timestamp`; crab messages have none).
    pub timestamp: Ms,
    // Boxed: entries are moved around in bulk. (A compaction, a state change or a label is
    // kept in `extra`: few entries are one.)
    pub message: Option<Box<Message<'a>>>,
    /// What only some formats have (`None` for nearly every entry, so entries stay small).
    pub extra: Option<Box<Extra<'a>>>,
}

/// How many bits of [`Entry`]'s packed word hold where its line starts: sources are
/// smaller than 2^51 bytes (2 PiB; [`crate::source`] refuses larger ones).
pub const START_BITS: u32 = 51;
const START_MASK: u64 = (1 << START_BITS) - 1;
const KIND_SHIFT: u32 = START_BITS;
const SYNTHETIC_BIT: u64 = 1 << (START_BITS + 3);
const PREVIOUS_BIT: u64 = 1 << (START_BITS + 4);
const KIND_AT_SHIFT: u32 = 56;
const KINDS: [Kind; 5] = [Kind::Message, Kind::Compaction, Kind::Label, Kind::State, Kind::Unknown];

/// The rarer parts of an entry, kept out of line.
#[derive(Clone, Debug, Default)]
pub struct Extra<'a> {
    /// Further lines of this entry, in file order (a model response written one content
    /// block per line is one entry).
    pub more_spans: Vec<Range<usize>>,
    /// The label another entry puts on this one (pi `label` entries: the last one wins).
    pub label: Option<String>,
    /// The end of the entry's line when it is 4 GiB long or more ([`Entry::span`]).
    pub long_end: Option<usize>,
    /// The sub-agent session this entry's tool result names (Claude Code `Task` results:
    /// `toolUseResult.agentId`); views that count a session's sub-agents look for its file.
    pub subagent: Option<String>,
    /// What a format's file-level pass needs from the line (read at decode time, while the
    /// line is in cache): the model call a line belongs to, a logical parent, ...
    pub hints: Vec<(&'static str, Cow<'a, str>)>,
    /// What a compaction entry says ([`Entry::compaction`]).
    pub compaction: Option<Box<Compaction<'a>>>,
    /// What a state entry sets ([`Entry::state`]).
    pub state: Option<Box<State<'a>>>,
    /// A label entry's text ([`Entry::label_text`]).
    pub label_text: Option<Text<'a>>,
    /// The kind as written, when it is not one of [`KIND_NAMES`] (the entry's `kind_at` is
    /// [`OTHER_KIND`] then).
    pub kind_name: Option<Cow<'a, str>>,
}

/// The kinds the formats write, so that an entry names its kind with a byte. Any other name
/// is kept whole ([`Extra::kind_name`]); the most frequent names come first.
pub const KIND_NAMES: &[&str] = &[
    "",
    "message",
    "user",
    "assistant",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "token_count",
    "meta",
    "system",
    "progress",
    "compaction",
    "compacted",
    "label",
    "state",
    "summary",
    "attachment",
    "file-history-snapshot",
    "queue-operation",
    "model_change",
    "thinking_level_change",
    "branch_summary",
    "custom_message",
    "custom",
    "session_info",
];

/// The `kind_at` of an entry whose kind's name is not one of [`KIND_NAMES`].
pub const OTHER_KIND: u8 = u8::MAX;

/// The id of the parent of `entries[i]`, where `entries` are a session's entries in their
/// final order (an entry may name its parent as the one before it:
/// [`Entry::parent_is_previous`]).
pub fn parent_id<'s, 'a>(entries: &'s [Entry<'a>], i: usize) -> Option<&'s Id<'a>> {
    let e = &entries[i];
    if e.parent_is_previous() {
        return entries.get(i.checked_sub(1)?).map(|p| &p.id);
    }
    e.parent.as_deref()
}

impl<'a> Entry<'a> {
    /// An entry of `kind` at the line `line` whose bytes are `span`, with the id `id`: no
    /// parent, time, message or rarer parts, its kind's name empty.
    pub fn new(line: u32, span: Range<usize>, kind: Kind, id: Id<'a>) -> Entry<'a> {
        let mut e = Entry { line, len: 0, at: 0, id, parent: None, timestamp: Ms::NONE, message: None, extra: None };
        e.set_span(span);
        e.set_kind(kind);
        e
    }

    /// The line's bytes in the source (for `show` and for views that need the payload).
    pub fn span(&self) -> Range<usize> {
        let start = (self.at & START_MASK) as usize;
        let end = match self.len {
            u32::MAX => self.extra.as_ref().and_then(|x| x.long_end).unwrap_or(start),
            len => start + len as usize,
        };
        start..end
    }

    /// Set the line's bytes ([`Entry::span`]). A start past [`START_BITS`] bits cannot
    /// be: the source refuses such sizes.
    pub fn set_span(&mut self, span: Range<usize>) {
        let start = span.start as u64;
        debug_assert!(start <= START_MASK, "a source under 2^{START_BITS} bytes");
        self.at = (self.at & !START_MASK) | (start & START_MASK);
        let len = span.end.saturating_sub(span.start);
        match u32::try_from(len) {
            Ok(l) if l < u32::MAX => {
                self.len = l;
                if let Some(x) = self.extra.as_mut() {
                    x.long_end = None;
                }
            }
            _ => {
                self.len = u32::MAX;
                self.extra_mut().long_end = Some(span.end);
            }
        }
    }

    pub fn kind(&self) -> Kind {
        KINDS[(self.at >> KIND_SHIFT & 7) as usize]
    }

    pub fn set_kind(&mut self, kind: Kind) {
        // The kind's place in its declaration, which is its place in `KINDS`.
        self.at = (self.at & !(7 << KIND_SHIFT)) | (kind as u64) << KIND_SHIFT;
    }

    /// The id was made up by the reader (`L<line>`), because the format has none. (In the
    /// entry itself, not in `extra`: formats without ids make one up for every entry.)
    pub fn synthetic_id(&self) -> bool {
        self.at & SYNTHETIC_BIT != 0
    }

    pub fn set_synthetic_id(&mut self, made_up: bool) {
        self.at = if made_up { self.at | SYNTHETIC_BIT } else { self.at & !SYNTHETIC_BIT };
    }

    /// The parent is the entry just before this one in the session's entries, so its id is
    /// not kept twice ([`Entry::link_parent`]). Only once the entries are in their final
    /// order: a format's pass sees every parent whole.
    pub fn parent_is_previous(&self) -> bool {
        self.at & PREVIOUS_BIT != 0
    }

    fn set_parent_is_previous(&mut self, previous: bool) {
        self.at = if previous { self.at | PREVIOUS_BIT } else { self.at & !PREVIOUS_BIT };
    }

    /// The kind as written in the file (meaningful for unknown kinds), as its place in
    /// [`KIND_NAMES`] when it is one of them (as it nearly always is), else
    /// [`OTHER_KIND`] and the name in the box of rarer parts: [`Entry::kind_name`] reads
    /// either way, and [`Entry::named`] sets it.
    fn kind_at(&self) -> u8 {
        (self.at >> KIND_AT_SHIFT) as u8
    }

    fn set_kind_at(&mut self, at: u8) {
        self.at = (self.at & !(0xff << KIND_AT_SHIFT)) | u64::from(at) << KIND_AT_SHIFT;
    }

    /// Name the parent by its id.
    pub fn set_parent(&mut self, parent: Option<Id<'a>>) {
        self.parent = parent.map(Box::new);
        self.set_parent_is_previous(false);
    }

    /// The parent's id when it is kept whole (as a format's pass sees it: before the
    /// entries are linked).
    pub fn parent_named(&self) -> Option<&Id<'a>> {
        self.parent.as_deref()
    }

    /// Keep the parent as a link when it is `before`, the entry just before this one in the
    /// final order.
    pub fn link_parent(&mut self, before: &Entry<'a>) {
        if self.parent.as_deref().is_some_and(|p| *p == before.id) {
            self.parent = None;
            self.set_parent_is_previous(true);
        }
    }

    /// The kind as written in the file (meaningful for unknown kinds).
    pub fn kind_name(&self) -> &str {
        match KIND_NAMES.get(usize::from(self.kind_at())) {
            Some(name) => name,
            None => self.extra.as_ref().and_then(|x| x.kind_name.as_deref()).unwrap_or_default(),
        }
    }

    /// The entry with the kind as written: a name of [`KIND_NAMES`] as its place there, any
    /// other in the box of rarer parts.
    pub fn named(mut self, name: Cow<'a, str>) -> Entry<'a> {
        match KIND_NAMES.iter().position(|k| *k == name) {
            Some(at) => {
                self.set_kind_at(at as u8);
                if let Some(x) = self.extra.as_mut() {
                    x.kind_name = None;
                }
            }
            None => {
                self.set_kind_at(OTHER_KIND);
                self.extra_mut().kind_name = Some(name);
            }
        }
        self
    }

    /// Every line of the entry, in file order.
    pub fn spans(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        std::iter::once(self.span()).chain(self.extra.iter().flat_map(|x| x.more_spans.iter().cloned()))
    }

    /// A hint the decoder left for the file-level pass.
    pub fn hint(&self, name: &str) -> Option<&Cow<'a, str>> {
        self.extra.as_ref()?.hints.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// A hint, taken out of the entry (for a pass that reads it once).
    pub fn take_hint(&mut self, name: &str) -> Option<Cow<'a, str>> {
        let hints = &mut self.extra.as_mut()?.hints;
        let at = hints.iter().position(|(k, _)| *k == name)?;
        Some(hints.swap_remove(at).1)
    }

    /// The sub-agent session this entry names, if it names one.
    pub fn subagent(&self) -> Option<&str> {
        self.extra.as_ref()?.subagent.as_deref()
    }

    /// The entry's extra part, created on first use.
    pub fn extra_mut(&mut self) -> &mut Extra<'a> {
        self.extra.get_or_insert_with(Default::default)
    }

    /// What the entry says as a compaction, if it is one.
    pub fn compaction(&self) -> Option<&Compaction<'a>> {
        self.extra.as_ref()?.compaction.as_deref()
    }

    pub fn compaction_mut(&mut self) -> Option<&mut Compaction<'a>> {
        self.extra.as_mut()?.compaction.as_deref_mut()
    }

    /// What the entry sets as a state change, if it is one.
    pub fn state(&self) -> Option<&State<'a>> {
        self.extra.as_ref()?.state.as_deref()
    }

    /// The text of a label entry.
    pub fn label_text(&self) -> Option<&Text<'a>> {
        self.extra.as_ref()?.label_text.as_ref()
    }

    /// The entry with its compaction, state and label text (a format's decode gives them
    /// together; nearly always all `None`, and nothing is allocated).
    pub fn with_parts(
        mut self,
        compaction: Option<Compaction<'a>>,
        state: Option<State<'a>>,
        label: Option<Text<'a>>,
    ) -> Self {
        if compaction.is_some() || state.is_some() || label.is_some() {
            let x = self.extra_mut();
            x.compaction = compaction.map(Box::new);
            x.state = state.map(Box::new);
            x.label_text = label;
        }
        self
    }
}

impl Entry<'_> {
    /// The message role as written (`user`, `assistant`, `toolResult`, ...), if a message.
    pub fn role_name(&self) -> Option<&str> {
        self.message.as_ref().map(|m| m.role_name())
    }
}

/// A message role, normalized across formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    /// arcturn `toolResult`, or a crab `user` message that carries only tool results.
    ToolResult,
    /// An operator message (arcturn `system`).
    System,
    Other,
}

/// Text as it sits in the file: either a raw JSON string literal (quotes and escapes
/// included, decoded on demand) or text already decoded.
#[derive(Clone, Debug)]
pub enum Text<'a> {
    Json(&'a str),
    Plain(Cow<'a, str>),
}

impl Text<'_> {
    /// The whole text, decoded. Lone surrogate escapes become U+FFFD.
    pub fn decode(&self) -> String {
        match self {
            Text::Plain(s) => s.to_string(),
            Text::Json(raw) => unescape_json_str(raw, usize::MAX).0,
        }
    }

    /// At most `max_chars` characters from the start, decoded, and whether more followed.
    pub fn prefix(&self, max_chars: usize) -> (String, bool) {
        match self {
            Text::Plain(s) => {
                let mut it = s.char_indices();
                match it.nth(max_chars) {
                    Some((i, _)) => (s[..i].to_string(), true),
                    None => (s.to_string(), false),
                }
            }
            Text::Json(raw) => unescape_json_str(raw, max_chars),
        }
    }
}

/// Decode a JSON string literal leniently, stopping after `max_chars` characters. The input
/// was validated by the JSON parser, so only lone surrogates need mercy (they become U+FFFD).
pub fn unescape_json_str(raw: &str, max_chars: usize) -> (String, bool) {
    let body = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
    let mut out = String::with_capacity(body.len().min(max_chars.saturating_mul(2)).min(1 << 20));
    let mut chars = body.chars();
    let mut count = 0usize;
    while let Some(c) = chars.next() {
        if count == max_chars {
            return (out, true);
        }
        count += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next().unwrap_or('\\');
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'u' => {
                let hi = hex4(&mut chars);
                let c = match hi {
                    Some(h @ 0xD800..=0xDBFF) => {
                        let mut look = chars.clone();
                        let lo =
                            (look.next() == Some('\\') && look.next() == Some('u')).then(|| hex4(&mut look)).flatten();
                        match lo {
                            Some(l @ 0xDC00..=0xDFFF) => {
                                chars = look;
                                char::from_u32(0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00))
                            }
                            _ => None,
                        }
                    }
                    Some(v) => char::from_u32(v),
                    None => None,
                };
                out.push(c.unwrap_or('\u{FFFD}'));
            }
            other => out.push(other),
        }
    }
    (out, false)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// Message metadata the views need; content stays raw.
#[derive(Clone, Debug)]
pub struct Message<'a> {
    pub role: Role,
    /// The role as written, as its place in [`ROLE_NAMES`] ([`Message::role_name`] reads
    /// it), or [`OTHER_ROLE`] and the name in `role_other` (a byte of the message's padding,
    /// where the text took 24 bytes).
    pub role_at: u8,
    pub role_other: Option<Box<Cow<'a, str>>>,
    /// Message time, epoch milliseconds (arcturn only).
    pub timestamp: Ms,
    /// What the content holds; the content itself stays in the buffer (`Session::value`).
    pub blocks: Blocks,
    pub tool_calls: Vec<ToolCall<'a>>,
    pub tool_results: Vec<ToolResult<'a>>,
    /// Who answered, what it used and why it stopped; `None` when the file records none of
    /// it (prompts and tool results, most of a session's messages).
    pub reply: Option<Box<Reply<'a>>>,
    /// Kept in the file but never sent to the model (pi `excludeFromContext`, an empty
    /// branch summary).
    pub excluded: bool,
    /// Its content counted as a context estimate counts it, as the load read it, for a
    /// load that asked ([`crate::format::Detail::Tallied`]) in a format that counts
    /// ([`crate::format::Decoder::tally`]); `None` elsewhere, and where the count needs the
    /// blocks whole ([`crate::session::Session::tally`] then counts from the line).
    pub counted: Option<crate::content::Counted>,
}

/// What a model's reply records beyond its content. Apart from [`Message`] and boxed, so
/// that the messages without it (about half) do not carry its 144 bytes.
#[derive(Clone, Debug, Default)]
pub struct Reply<'a> {
    pub provider: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    pub usage: Option<Usage>,
    pub stop_reason: Option<Cow<'a, str>>,
}

impl<'a> Reply<'a> {
    /// The reply, boxed, or `None` when it records nothing.
    pub fn boxed(self) -> Option<Box<Reply<'a>>> {
        let empty =
            self.provider.is_none() && self.model.is_none() && self.usage.is_none() && self.stop_reason.is_none();
        (!empty).then(|| Box::new(self))
    }
}

/// What a walk down a path reads of every message on it, kept beside the entries by a load
/// that lets the messages go ([`crate::format::Detail::Counted`]): its role, and whether it
/// is sent at all ([`Message::excluded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Brief {
    pub role: Role,
    pub excluded: bool,
}

/// The roles the formats write, so that a message names its role with a byte. Any other
/// name is kept whole ([`Message::role_other`]).
pub const ROLE_NAMES: &[&str] = &[
    "",
    "user",
    "assistant",
    "toolResult",
    "tool",
    "system",
    "developer",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "hookMessage",
    "synthetic",
    "meta",
];

/// The `role_at` of a message whose role's name is not one of [`ROLE_NAMES`].
pub const OTHER_ROLE: u8 = u8::MAX;

impl<'a> Message<'a> {
    /// The `role_at` and `role_other` of a role named `name` in the file.
    /// A message of `role`, written `name` in the file, that records nothing else yet: what
    /// a format's message starts from (`Message { blocks, ..Message::with_role(role, name) }`).
    pub fn with_role(role: Role, name: Cow<'a, str>) -> Message<'a> {
        let (role_at, role_other) = Message::role_parts(name);
        Message {
            role,
            role_at,
            role_other,
            timestamp: Ms::NONE,
            blocks: Blocks::default(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
            reply: None,
            excluded: false,
            counted: None,
        }
    }

    pub fn role_parts(name: Cow<'a, str>) -> (u8, Option<Box<Cow<'a, str>>>) {
        match ROLE_NAMES.iter().position(|r| *r == name) {
            Some(at) => (at as u8, None),
            None => (OTHER_ROLE, Some(Box::new(name))),
        }
    }

    /// Its role and whether it is sent ([`Brief`]).
    pub fn brief(&self) -> Brief {
        Brief { role: self.role, excluded: self.excluded }
    }

    /// The role as written (`user`, `assistant`, `toolResult`, ...).
    pub fn role_name(&self) -> &str {
        match ROLE_NAMES.get(usize::from(self.role_at)) {
            Some(name) => name,
            None => self.role_other.as_deref().map(|c| c.as_ref()).unwrap_or_default(),
        }
    }

    /// Whether this message's tool calls ran: an assistant turn that was not refused,
    /// aborted or cut by an error. Only calls that ran expect a result.
    pub fn tools_ran(&self) -> bool {
        self.role == Role::Assistant && !matches!(self.stop_reason(), Some("refusal" | "aborted" | "error"))
    }

    pub fn provider(&self) -> Option<&str> {
        self.reply.as_ref()?.provider.as_deref()
    }

    pub fn model(&self) -> Option<&str> {
        self.reply.as_ref()?.model.as_deref()
    }

    pub fn usage(&self) -> Option<&Usage> {
        self.reply.as_ref()?.usage.as_ref()
    }

    pub fn stop_reason(&self) -> Option<&str> {
        self.reply.as_ref()?.stop_reason.as_deref()
    }

    /// Ask for the texts of the reply (provider, model, stop reason) ahead of reading them
    /// ([`crate::prefetch`]).
    pub fn prefetch_reply(&self) {
        if let Some(r) = &self.reply {
            [&r.provider, &r.model, &r.stop_reason].into_iter().flatten().for_each(|t| crate::prefetch::text(t));
        }
    }

    /// The reply, made empty first if there was none.
    pub fn reply_mut(&mut self) -> &mut Reply<'a> {
        self.reply.get_or_insert_with(Default::default)
    }
}

/// How many content blocks of each kind a message has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    pub text: u32,
    pub thinking: u32,
    pub image: u32,
    pub tool_call: u32,
    pub tool_result: u32,
    /// Provider-side compaction blocks (arcturn `compaction` content).
    pub server_compaction: u32,
    pub server_tool: u32,
    pub unknown: u32,
}

/// A tool call requested by an assistant message.
#[derive(Clone, Debug)]
pub struct ToolCall<'a> {
    pub id: Option<Cow<'a, str>>,
    pub name: Option<Cow<'a, str>>,
}

/// A tool result: an arcturn `toolResult` message, or a crab `tool_result` block.
#[derive(Clone, Debug)]
pub struct ToolResult<'a> {
    pub call_id: Option<Cow<'a, str>>,
    pub tool_name: Option<Cow<'a, str>>,
    pub is_error: bool,
    /// Absolute path of the full output when the result was offloaded.
    pub offloaded_path: Option<Cow<'a, str>>,
}

/// Token usage of one model call, in the arcturn vocabulary (crab's `prompt` is `input`,
/// `completion` is `output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// The part of `cache_write` written to the 1-hour cache (Claude
    /// `cache_creation.ephemeral_1h_input_tokens`), which is billed at a higher rate than the
    /// 5-minute cache. 0 when the file does not split it.
    #[serde(skip)]
    pub cache_write_1h: u64,
    /// As recorded; when absent it is the sum of the four parts.
    #[serde(skip)]
    pub total: Option<u64>,
    /// Dollars as recorded at write time.
    #[serde(skip)]
    pub cost: Option<f64>,
}

impl Usage {
    /// The recorded total, else the sum of the four parts (saturating: see [`Usage::add`]).
    pub fn total(&self) -> u64 {
        self.total.unwrap_or_else(|| self.parts_total().0)
    }

    /// The sum of the four parts, and whether it passed `u64::MAX` (held there).
    pub fn parts_total(&self) -> (u64, bool) {
        sum_saturating(&[self.input, self.output, self.cache_read, self.cache_write])
    }

    /// Add another call's usage. Sums saturate instead of wrapping, so a budget gate can
    /// never be passed by overflowing it; returns true when a sum saturated.
    pub fn add(&mut self, o: &Usage) -> bool {
        let mut over = false;
        for (a, b) in [
            (&mut self.input, o.input),
            (&mut self.output, o.output),
            (&mut self.cache_read, o.cache_read),
            (&mut self.cache_write, o.cache_write),
            (&mut self.cache_write_1h, o.cache_write_1h),
        ] {
            let (sum, o) = sum_saturating(&[*a, b]);
            *a = sum;
            over |= o;
        }
        let (total, o_total) = sum_saturating(&[self.total(), o.total()]);
        self.total = Some(total);
        let (cost, o_cost) = add_cost(self.cost, o.cost);
        self.cost = cost;
        over | o_total | o_cost
    }
}

/// A saturating sum, and whether it saturated.
pub fn sum_saturating(parts: &[u64]) -> (u64, bool) {
    parts.iter().fold((0u64, false), |(sum, over), &p| match sum.checked_add(p) {
        Some(s) => (s, over),
        None => (u64::MAX, true),
    })
}

/// Add two recorded costs (`None`: none recorded), held at `f64::MAX` instead of becoming
/// infinite (which JSON cannot hold); true when it was held.
pub fn add_cost(a: Option<f64>, b: Option<f64>) -> (Option<f64>, bool) {
    match (a, b) {
        (None, None) => (None, false),
        (a, b) => {
            let sum = a.unwrap_or(0.0) + b.unwrap_or(0.0);
            if sum.is_finite() {
                (Some(sum), false)
            } else {
                (Some(f64::MAX), true)
            }
        }
    }
}

/// A compaction entry. What it keeps before itself is named one of two ways: `up_to`, the
/// last entry it summarizes (arcturn: the kept tail is after it), or `first_kept`, the first
/// entry it does not summarize (pi). Neither: nothing before the compaction is kept.
#[derive(Clone, Debug, Default)]
pub struct Compaction<'a> {
    pub up_to: Option<Id<'a>>,
    pub first_kept: Option<Id<'a>>,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    pub strip_tail_thinking: bool,
    pub summary: Option<Text<'a>>,
}

/// A state entry: raw values, parsed by the views that show them (arcturn `state`; pi
/// `model_change`, `thinking_level_change`, `session_info`, `custom`).
#[derive(Clone, Debug, Default)]
pub struct State<'a> {
    pub todos: Option<&'a RawValue>,
    pub plan: Option<&'a RawValue>,
    pub model: Option<&'a RawValue>,
    pub thinking_level: Option<Cow<'a, str>>,
    /// Anything else the entry records, in words (`title ...`, `extension state foo`).
    pub note: Option<Cow<'a, str>>,
    pub context_edit: Option<ContextEdit<'a>>,
}

/// One recorded context-editing pass.
#[derive(Clone, Debug, Default)]
pub struct ContextEdit<'a> {
    pub elided: Vec<Cow<'a, str>>,
    pub withhold_thinking: Option<Cow<'a, str>>,
}

/// How a crab span ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<'a> {
    Ok,
    Aborted,
    Error(Cow<'a, str>),
    /// Anything else, kept as text.
    Other(String),
}

/// A crab observation record (`kind: "obs"`): never part of the model's history.
#[derive(Clone, Debug, Default)]
pub struct Observation<'a> {
    pub line: u32,
    pub span: Range<usize>,
    pub run_id: Option<Cow<'a, str>>,
    /// Span start, epoch milliseconds.
    pub ts: Option<i64>,
    /// The `obs` tag: `turn_start`, `llm_call`, `tool_call`, `turn_end`, `compaction`, ...
    pub tag: Cow<'a, str>,
    pub provider: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    pub duration_ms: Option<u64>,
    pub usage: Option<Usage>,
    pub outcome: Option<Outcome<'a>>,
    pub tool: Option<Cow<'a, str>>,
    pub call_seq: Option<u64>,
    pub args_digest: Option<Cow<'a, str>>,
    pub result_digest: Option<Cow<'a, str>>,
    pub bytes_in: Option<u64>,
    pub bytes_out: Option<u64>,
    pub stop_reason: Option<Cow<'a, str>>,
    pub interrupted: Option<bool>,
    pub llm_calls: Option<u64>,
    pub tool_calls: Option<u64>,
    pub strategy: Option<Cow<'a, str>>,
    pub tokens_before: Option<u64>,
    pub tokens_after: Option<u64>,
    pub up_to_id: Option<Id<'a>>,
    pub shed: Vec<Cow<'a, str>>,
    /// A `summarize` compaction's summary text.
    pub summary: Option<Text<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an entry packs in one word reads back as set, each part alone whatever the
    /// others hold: the line's start up to the largest a source can have, lengths up to and
    /// past 4 GiB (the end then in the box of rarer parts, which keeps what else it holds),
    /// every kind, both flags, and the kind's name.
    #[test]
    fn an_entry_reads_back_what_it_packs() {
        let starts = [0usize, 1, 4095, (1 << 32) + 7, START_MASK as usize - 1, START_MASK as usize];
        let lens = [0usize, 1, 3000, u32::MAX as usize - 1, u32::MAX as usize, 5 << 30];
        let kinds = [Kind::Message, Kind::Compaction, Kind::Label, Kind::State, Kind::Unknown];
        for (k, &start) in starts.iter().enumerate() {
            for (l, &len) in lens.iter().enumerate() {
                let kind = kinds[(k + l) % kinds.len()];
                let mut e = Entry::new(7, start..start + len, kind, Id::copied("e"));
                let (made_up, previous) = ((k + l) % 2 == 0, (k * l) % 3 == 0);
                e.set_synthetic_id(made_up);
                e.set_parent_is_previous(previous);
                let name = KIND_NAMES[(k * 7 + l) % KIND_NAMES.len()];
                e = e.named(Cow::Borrowed(name));
                for _ in 0..2 {
                    assert_eq!(e.span(), start..start + len, "{start} {len}");
                    assert_eq!(e.spans().next(), Some(start..start + len));
                    assert_eq!((e.kind(), e.synthetic_id(), e.parent_is_previous()), (kind, made_up, previous));
                    assert_eq!(e.kind_name(), name);
                    assert_eq!(e.extra.is_some(), len >= u32::MAX as usize, "{len}: the box only for a long line");
                    assert_eq!(e.line, 7);
                    // Set again, each to the other values: the rest unchanged.
                    e.set_kind(kind);
                    e.set_synthetic_id(!made_up);
                    e.set_synthetic_id(made_up);
                    e.set_parent_is_previous(!previous);
                    e.set_parent_is_previous(previous);
                    e.set_span(0..0);
                    assert_eq!((e.span(), e.kind(), e.kind_name()), (0..0, kind, name));
                    e.set_span(start..start + len);
                }
                // A long line's end stays beside what else the box holds.
                e.extra_mut().subagent = Some("agent".into());
                e.set_span(start..start + len);
                assert_eq!(e.span(), start..start + len);
                assert_eq!(e.subagent(), Some("agent"));
            }
        }
    }

    /// A kind's or a role's name reads back as written, whether it is kept as a byte (a name
    /// the formats write) or whole (any other, borrowed or unescaped), and naming an entry
    /// again replaces the name either way.
    #[test]
    fn names_read_back_as_written_whether_kept_as_a_byte_or_whole() {
        assert!(KIND_NAMES.len() < usize::from(OTHER_KIND) && ROLE_NAMES.len() < usize::from(OTHER_ROLE));
        let entry = Entry::new(1, 0..0, Kind::Unknown, Id::copied("e"));
        let odd = ["weird", "messages", "Message", "user ", "\u{1b}[2J", "é"];
        for name in KIND_NAMES.iter().copied().chain(odd) {
            for written in [Cow::Borrowed(name), Cow::Owned(name.to_string())] {
                let e = entry.clone().named(written);
                assert_eq!(e.kind_name(), name);
                assert_eq!(e.extra.is_some(), !KIND_NAMES.contains(&name), "{name}: kept out of line");
                let again = e.named(Cow::Borrowed("message"));
                assert_eq!(again.kind_name(), "message", "{name}, then named again");
                assert!(again.extra.as_ref().is_none_or(|x| x.kind_name.is_none()));
            }
        }
        for name in ROLE_NAMES.iter().copied().chain(odd) {
            let m = Message::with_role(Role::Other, Cow::Owned(name.to_string()));
            assert_eq!(m.role_name(), name);
            assert_eq!(m.role_other.is_some(), !ROLE_NAMES.contains(&name), "{name}: boxed");
        }
    }

    #[test]
    fn uuids_pack_only_in_canonical_form_and_keys_stay_small() {
        let key = |s: &str| Id::copied(s);
        let canonical = "55d37ca7-989b-4ca7-8cf2-989b5cf255d3";
        assert!(matches!(key(canonical), Id::Uuid(_)));
        assert_eq!(key(canonical).text(), canonical);
        assert_eq!(key("00000000-0000-0000-0000-000000000000").text(), "00000000-0000-0000-0000-000000000000");
        assert_eq!(key("ffffffff-ffff-ffff-ffff-ffffffffffff").text(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
        // Another spelling of the same 128 bits is another id: it stays text.
        for other in [
            "55D37CA7-989B-4CA7-8CF2-989B5CF255D3",
            "55d37ca7989b4ca78cf2989b5cf255d3",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255d3 ",
            "55d37ca7-989b-4ca7-8cf2_989b5cf255d3",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255dg",
            "{55d37ca7-989b-4ca7-8cf2-989b5cf255d}",
        ] {
            assert!(matches!(key(other), Id::Long(_)), "{other}");
            assert_eq!(key(other).text(), other);
            assert_ne!(key(other), key(canonical));
        }
        assert_ne!(key(canonical), key("55d37ca7-989b-4ca7-8cf2-989b5cf255d4"));
        assert_eq!(key(canonical).hash64(), key(canonical).hash64());
        assert_eq!(std::mem::size_of::<Id>(), 24);
        // Where the line starts, the kind, its name's place and the two flags share 8 bytes;
        // the parts few entries have (a compaction, a state change, a label's text) are in
        // its box of rarer parts. The parent is boxed, and most entries keep none (it is the
        // entry before).
        assert_eq!(std::mem::size_of::<Entry>(), 72);
        // A reply's model, usage and stop reason are boxed apart: prompts and tool results
        // carry none of them. The role's name sits in the message's padding, and the count
        // kept for a context estimate in 12 bytes.
        assert_eq!(std::mem::size_of::<Message>(), 120);
        assert_eq!(std::mem::size_of::<Reply>(), 144);
    }

    /// The vector digits against the scalar ones: every byte at every place, between digits
    /// of every value.
    #[test]
    fn vector_hex_digits_match_the_scalar_ones() {
        let base: [u8; 16] = *b"0123456789abcdef";
        for at in 0..16 {
            for c in 0..=255u8 {
                let mut d = base;
                d[at] = c;
                assert_eq!(hex16(&d), hex16_scalar(&d), "{c:#04x} at {at}");
            }
        }
        assert_eq!(hex16(b"0123456789abcdef"), Some(0x0123_4567_89ab_cdef));
        assert_eq!(hex16(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(hex16(b"fedcba9876543210"), Some(0xfedc_ba98_7654_3210));
    }

    #[test]
    fn unescape_handles_pairs_and_lone_surrogates() {
        assert_eq!(unescape_json_str(r#""a\nb\u00e9""#, 100).0, "a\nb\u{e9}");
        assert_eq!(unescape_json_str(r#""\ud83d\ude00!""#, 100).0, "\u{1F600}!");
        assert_eq!(unescape_json_str(r#""x\ud83d y""#, 100).0, "x\u{FFFD} y");
        assert_eq!(unescape_json_str(r#""\ude00""#, 100).0, "\u{FFFD}");
        assert_eq!(unescape_json_str(r#""abcdef""#, 3), ("abc".to_string(), true));
        assert_eq!(unescape_json_str(r#""abc""#, 3), ("abc".to_string(), false));
    }

    #[test]
    fn ids_are_typed() {
        assert_ne!(Id::Int(1), Id::copied("1"));
        assert_eq!(serde_json::to_string(&Id::Int(3)).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Id::copied("a")).unwrap(), "\"a\"");
    }

    /// Texts of every packing (empty, short, 15 and 16 bytes, canonical UUIDs and other
    /// spellings of one, non-ASCII) and integers: equal exactly when typed texts are equal,
    /// ordered integers first by value, then by text, whatever the packing, and written back
    /// as they were read, by every writer.
    #[test]
    fn an_id_is_its_text_whatever_its_packing() {
        let texts = [
            "",
            "0",
            "1",
            "a1f0",
            "L12",
            "abcdefghijklmno",
            "abcdefghijklmnop",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255d3",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255d4",
            "55D37CA7-989B-4CA7-8CF2-989B5CF255D3",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255d",
            "55d37ca7-989b-4ca7-8cf2-989b5cf255d3x",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "\u{e9}t\u{e9}",
            "\u{e9}t\u{e9} \u{e9}t\u{e9} \u{e9}t\u{e9}",
            "\u{1f600}",
        ];
        let ints = [0u64, 1, 9, 10, 12, u64::MAX];
        // (what the id should be: integer or text, as the file typed it; the id)
        let mut all: Vec<(Result<u64, &str>, Id<'_>)> = Vec::new();
        for t in texts {
            for id in [Id::copied(t), Id::from_text(Cow::Borrowed(t)), Id::of_text(&Cow::Owned(t.to_string()))] {
                all.push((Err(t), id));
            }
        }
        all.extend(ints.map(|n| (Ok(n), Id::Int(n))));
        for (want, id) in &all {
            let text = match want {
                Ok(n) => n.to_string(),
                Err(t) => t.to_string(),
            };
            assert_eq!(id.text(), text);
            assert_eq!(id.to_string(), text);
            assert_eq!(id.with_text(str::to_string), text);
            assert_eq!(id.as_text().map(|t| t.into_owned()), want.err().map(str::to_string));
            assert_eq!(id.to_owned_id(), *id);
            let json = match want {
                Ok(n) => n.to_string(),
                Err(t) => serde_json::to_string(t).unwrap(),
            };
            assert_eq!(serde_json::to_string(id).unwrap(), json);
            assert_eq!(id.to_json().to_string(), json);
            for (other_want, other) in &all {
                assert_eq!(id == other, want == other_want, "{id:?} {other:?}");
                if id == other {
                    assert_eq!(id.hash64(), other.hash64());
                }
                let order = match (want, other_want) {
                    (Ok(a), Ok(b)) => a.cmp(b),
                    (Ok(_), Err(_)) => std::cmp::Ordering::Less,
                    (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
                    (Err(a), Err(b)) => a.cmp(b),
                };
                assert_eq!(id.cmp(other), order, "{id:?} {other:?}");
            }
        }
    }
}
