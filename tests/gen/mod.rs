//! Deterministic generators of large, realistic session files, for tests and benchmarks.
//!
//! Shared by the integration tests (`mod gen;`) and by `benches/throughput.rs`
//! (`#[path = "../tests/gen/mod.rs"] mod gen;`), so it uses std only: a small xorshift
//! generator seeded by the caller makes every file reproducible byte for byte.
//!
//! Every generator returns a [`GenSummary`] computed while writing: the truth that tests
//! assert the inspector's answers against. The content imitates real sessions where it
//! changes parser speed: tool output sizes are log-normal (median ~1 KB) with a few outputs
//! of hundreds of KB, about 5% of the bytes are backslash escapes, and raw UTF-8 (accents,
//! CJK, emoji, Arabic) appears throughout. It never writes anything malformed.

// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{self, Write};

/// What a generator wrote, counted while writing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenSummary {
    /// Bytes written, newlines included.
    pub bytes: u64,
    /// Lines written (header or meta included); every line ends with `\n`.
    pub lines: u64,
    /// Tree nodes: arcturn entries (not the header), crab `message` records.
    pub entries: u64,
    pub roots: u64,
    pub leaves: u64,
    /// Depth of the deepest entry; a root has depth 0.
    pub max_depth: u64,
    /// Id of the last entry in file order (crab: the last message id, as text).
    pub latest_id: String,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub system_messages: u64,
    /// arcturn `toolResult` messages; crab `tool_result` blocks.
    pub tool_results: u64,
    /// Tool results flagged as errors (`isError` / `is_error`).
    pub tool_errors: u64,
    pub offloaded_results: u64,
    pub compactions: u64,
    pub states: u64,
    pub labels: u64,
    /// Entries whose parent is an older entry than the previous one (a resume).
    pub branches: u64,
    /// Sums over every assistant `usage` (arcturn) or every `llm_call` (crab:
    /// prompt, completion, cache_read, cache_write).
    pub input_tokens_total: u64,
    pub output_tokens_total: u64,
    pub cache_read_tokens_total: u64,
    pub cache_write_tokens_total: u64,
    /// Sum of the recorded `cost.total` values, added in file order.
    pub cost_total: f64,
    pub max_line_bytes: u64,
    /// Bytes that belong to backslash escape sequences (`\n` counts 2, `\u00e9` counts 6).
    pub escape_bytes: u64,
    /// crab only.
    pub runs: u64,
    pub llm_calls: u64,
    pub tool_calls: u64,
}

// ---------------------------------------------------------------------------------------
// Randomness

/// xorshift64*: tiny, fast, and good enough to make content look varied.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        // A zero state would stay zero forever; splitmix the seed so nearby seeds diverge.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// Log-normal with the given median; `sigma` is the spread of the underlying normal.
    pub fn log_normal(&mut self, median: f64, sigma: f64) -> f64 {
        // Box-Muller; 1 - unit() is in (0, 1], so ln never sees 0.
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        let normal = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        median * (sigma * normal).exp()
    }
}

/// A bijection on u32, so ids drawn from a counter never collide yet look random
/// (random 32-bit ids would collide a few times in a 300k-entry file).
fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

// ---------------------------------------------------------------------------------------
// Time

const START_MS: u64 = 1_790_841_600_000; // 2026-10-01T08:00:00.000Z

/// `2026-10-01T08:00:00.000Z` from epoch milliseconds (days-to-civil after H. Hinnant).
fn iso8601(ms: u64, out: &mut Vec<u8>) {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let sod = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        ms % 1000
    );
}

// ---------------------------------------------------------------------------------------
// JSON line building

/// One output line under construction, counting the escape bytes it writes.
struct Line {
    buf: Vec<u8>,
    escapes: u64,
}

impl Line {
    fn new() -> Self {
        Line { buf: Vec::with_capacity(1 << 16), escapes: 0 }
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.escapes = 0;
    }

    fn raw(&mut self, s: &str) -> &mut Self {
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    fn num(&mut self, n: u64) -> &mut Self {
        let _ = write!(self.buf, "{n}");
        self
    }

    fn float(&mut self, x: f64) -> &mut Self {
        // Display never uses an exponent and round-trips, like JSON.stringify for these values.
        let _ = write!(self.buf, "{x}");
        self
    }

    /// A JSON string: quotes, backslashes and control characters escaped, UTF-8 kept raw.
    fn str(&mut self, s: &str) -> &mut Self {
        self.string(s, false)
    }

    /// A JSON string written the way ASCII-only encoders do: non-ASCII as `\uXXXX`.
    fn str_ascii(&mut self, s: &str) -> &mut Self {
        self.string(s, true)
    }

    fn string(&mut self, s: &str, ascii_only: bool) -> &mut Self {
        self.buf.push(b'"');
        let bytes = s.as_bytes();
        // `start` = first byte not yet copied; bytes before it are written or escaped.
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if i < start {
                continue; // inside a multi-byte char already written as \u escapes
            }
            let short: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\t' => b"\\t",
                b'\r' => b"\\r",
                0x20..=0x7f => continue,
                0x80.. if !ascii_only => continue,
                _ => b"",
            };
            self.buf.extend_from_slice(&bytes[start..i]);
            start = i + 1;
            if !short.is_empty() {
                self.buf.extend_from_slice(short);
                self.escapes += short.len() as u64;
            } else if b < 0x20 {
                let _ = write!(self.buf, "\\u{b:04x}");
                self.escapes += 6;
            } else {
                // Non-ASCII in ASCII-only mode: the whole char as UTF-16 code units.
                let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
                let mut units = [0u16; 2];
                for u in ch.encode_utf16(&mut units) {
                    let _ = write!(self.buf, "\\u{u:04x}");
                    self.escapes += 6;
                }
                start = i + ch.len_utf8();
            }
        }
        self.buf.extend_from_slice(&bytes[start..]);
        self.buf.push(b'"');
        self
    }
}

/// Counts what goes out, so the summary's byte and line figures are exact.
struct Out<'w, W: Write> {
    w: &'w mut W,
    sum: GenSummary,
}

impl<W: Write> Out<'_, W> {
    fn emit(&mut self, line: &mut Line) -> io::Result<()> {
        line.buf.push(b'\n');
        self.w.write_all(&line.buf)?;
        let n = line.buf.len() as u64;
        self.sum.bytes += n;
        self.sum.lines += 1;
        self.sum.max_line_bytes = self.sum.max_line_bytes.max(n - 1);
        self.sum.escape_bytes += line.escapes;
        line.clear();
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Content pools: real-looking fragments, picked and stitched together.

const RUST_SRC: &[&str] = &[
    "use std::collections::HashMap;",
    "use std::path::{Path, PathBuf};",
    "",
    "/// Parses one line of the config file into a key and a value.",
    "pub fn parse_line(line: &str) -> Result<(String, String), ParseError> {",
    "    let (key, value) = line.split_once('=').ok_or(ParseError::MissingEquals)?;",
    "    let key = key.trim();",
    "    if key.is_empty() {",
    "        return Err(ParseError::EmptyKey { line: line.to_string() });",
    "    }",
    "    Ok((key.to_string(), value.trim().trim_matches('\"').to_string()))",
    "}",
    "",
    "#[derive(Debug, Clone, PartialEq, Eq)]",
    "pub enum ParseError {",
    "    MissingEquals,",
    "    EmptyKey { line: String },",
    "}",
    "",
    "impl std::fmt::Display for ParseError {",
    "    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {",
    "        match self {",
    "            ParseError::MissingEquals => write!(f, \"expected `key = value`\"),",
    "            ParseError::EmptyKey { line } => write!(f, \"empty key in {line:?}\"),",
    "        }",
    "    }",
    "}",
    "",
    "    // Déjà vu: the cache is keyed by the canonical path, not the one the user typed.",
    "    let cache: HashMap<PathBuf, Vec<u8>> = HashMap::with_capacity(64);",
    "    let greeting = \"¡Hola, señor Müller! 你好 👋\";",
    "    assert_eq!(parse_line(\"name = \\\"Zoë\\\"\"), Ok((\"name\".into(), \"Zoë\".into())));",
    "    let windows = r\"C:\\Users\\dev\\AppData\\Local\\arcturn\";",
    "    println!(\"{:>8} {:<24} {}\", n, name, path.display());",
];

const GO_SRC: &[&str] = &[
    "package store",
    "",
    "import (",
    "\t\"context\"",
    "\t\"database/sql\"",
    "\t\"fmt\"",
    "\t\"time\"",
    ")",
    "",
    "// Note is one row of the notes table.",
    "type Note struct {",
    "\tID        int64     `json:\"id\"`",
    "\tTitle     string    `json:\"title\"`",
    "\tBody      string    `json:\"body\"`",
    "\tUpdatedAt time.Time `json:\"updated_at\"`",
    "}",
    "",
    "func (s *Store) Get(ctx context.Context, id int64) (*Note, error) {",
    "\trow := s.db.QueryRowContext(ctx, `SELECT id, title, body, updated_at FROM notes WHERE id = $1`, id)",
    "\tvar n Note",
    "\tif err := row.Scan(&n.ID, &n.Title, &n.Body, &n.UpdatedAt); err != nil {",
    "\t\tif err == sql.ErrNoRows {",
    "\t\t\treturn nil, fmt.Errorf(\"note %d: %w\", id, ErrNotFound)",
    "\t\t}",
    "\t\treturn nil, fmt.Errorf(\"get note %d: %w\", id, err)",
    "\t}",
    "\treturn &n, nil",
    "}",
    "\t// 東京のタイムゾーンで保存する (store in Asia/Tokyo)",
    "\tloc, _ := time.LoadLocation(\"Asia/Tokyo\")",
];

const LOG_LINES: &[&str] = &[
    "2026-10-01T08:14:02.118Z INFO  http: request method=GET path=\"/api/notes\" status=200 dur=12.4ms",
    "2026-10-01T08:14:02.341Z INFO  http: request method=POST path=\"/api/notes\" status=201 dur=31.0ms",
    "2026-10-01T08:14:03.007Z WARN  db: slow query dur=812ms sql=\"SELECT * FROM notes WHERE body ILIKE $1\"",
    "2026-10-01T08:14:03.552Z ERROR auth: token rejected user=\"renée@example.com\" reason=\"expired\"",
    "2026-10-01T08:14:04.901Z DEBUG cache: miss key=\"notes:v2:1842\" size=0",
    "2026-10-01T08:14:05.230Z INFO  worker: job done id=7f3a queue=\"emails\" attempts=1",
    "   Compiling serde v1.0.229",
    "   Compiling tidyjson v0.3.1 (/home/dev/src/tidyjson)",
    "warning: unused variable: `cfg`",
    "  --> src/main.rs:41:9",
    "   |",
    "41 |     let cfg = Config::load(&path)?;",
    "   |         ^^^ help: if this is intentional, prefix it with an underscore: `_cfg`",
    "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.",
    "added 812 packages, and audited 813 packages in 14s",
    "✓ src/i18n/plural.test.ts (12 tests) 8ms",
    "✗ src/i18n/catalog.test.ts > ar > renders «ملاحظتان» for n=2",
    "    AssertionError: expected 'ملاحظة' to be 'ملاحظتان'",
    "PASS  src/util/date.test.ts — formatNoteDate: 3 nov. 2026 ✅",
    "Traceback (most recent call last):",
    "  File \"/home/dev/src/etl/run.py\", line 88, in <module>",
    "    main()",
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 14: invalid continuation byte",
    "C:\\Users\\dev\\src\\app> dotnet build -c Release",
    "  app -> C:\\Users\\dev\\src\\app\\bin\\Release\\net8.0\\app.dll",
];

const TEST_LINES: &[&str] = &[
    "running 43 tests",
    "test lex::tests::empty_input ... ok",
    "test lex::tests::escapes_in_keys ... ok",
    "test lex::tests::unicode_keys_été ... ok",
    "test parse::tests::nested_arrays ... ok",
    "test parse::tests::rejects_trailing_comma ... FAILED",
    "test span::tests::column_is_one_based_in_chars ... ok",
    "",
    "---- parse::tests::rejects_trailing_comma stdout ----",
    "thread 'parse::tests::rejects_trailing_comma' panicked at src/parse.rs:212:9:",
    "assertion `left == right` failed",
    "  left: Ok(Object({\"a\": Number(1)}))",
    " right: Err(TrailingComma { line: 1, column: 8 })",
    "test result: FAILED. 42 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s",
];

const JSON_LINES: &[&str] = &[
    "{\"id\": 1842, \"title\": \"Réunion d'équipe\", \"tags\": [\"work\", \"planning\"], \"pinned\": false}",
    "{\"id\": 1843, \"title\": \"買い物リスト\", \"tags\": [\"家\"], \"pinned\": true}",
    "{\"id\": 1844, \"title\": \"Quarterly review 📈\", \"tags\": [], \"pinned\": false}",
    "{\"id\": 1845, \"title\": \"ملاحظات الاجتماع\", \"tags\": [\"عمل\"], \"pinned\": false}",
    "{\"path\": \"C:\\\\Users\\\\dev\\\\notes.db\", \"size\": 4194304, \"wal\": true}",
    "  \"dependencies\": {\"react\": \"^19.1.0\", \"react-dom\": \"^19.1.0\"},",
];

const CSV_LINES: &[&str] = &[
    "order_id,placed_at,customer,city,country,items,total,currency,status,shipped_at,carrier,tracking",
    "ORD-48213,2026-09-14T10:22:07Z,Zoë Martínez,Lisboa,PT,3,49.90,EUR,shipped,2026-09-16T08:00:00Z,CTT,RR482130911PT",
    "ORD-48214,2026-09-14T10:25:41Z,田中 美咲,東京,JP,1,3980,JPY,delivered,2026-09-15T14:30:00Z,Yamato,4829-1130-5521",
    "ORD-48215,2026-09-14T10:31:02Z,Jürgen Weiß,München,DE,2,119.00,EUR,processing,,DHL,",
    "ORD-48216,2026-09-14T10:40:19Z,محمد العلي,الرياض,SA,5,845.50,SAR,shipped,2026-09-17T09:15:00Z,Aramex,AX77120934",
    "ORD-48217,2026-09-14T10:52:55Z,Chloé Dubois,Montréal,CA,1,24.99,CAD,cancelled,,Canada Post,",
    "ORD-48218,2026-09-14T11:03:12Z,Søren Ødegård,København,DK,4,612.00,DKK,delivered,2026-09-16T12:45:00Z,PostNord,00370712345678901234",
    "ORD-48219,2026-09-14T11:15:48Z,李伟,上海,CN,2,268.00,CNY,shipped,2026-09-15T18:20:00Z,SF Express,SF1402938475610",
    "ORD-48220,2026-09-14T11:27:30Z,Ana Beatriz Gonçalves,São Paulo,BR,1,189.90,BRL,processing,,Correios,",
    "ORD-48221,2026-09-14T11:39:04Z,Olivia Smith,Manchester,GB,6,72.40,GBP,delivered,2026-09-16T10:05:00Z,Royal Mail,JD014600006781234567",
];

const GREP_LINES: &[&str] = &[
    "src/parse.rs:212:        return Err(Error::TrailingComma { line, column });",
    "src/lex.rs:88:    fn string(&mut self) -> Result<Token<'a>> {",
    "src/lex.rs:97:            b'\\\\' => self.escape()?,",
    "src/i18n/locales.ts:3:export const SUPPORTED = ['en', 'de', 'ar', 'ja', 'fr'] as const;",
    "src/settings/SettingsPage.tsx:31:    <section className={styles.page} dir={isRtl(locale) ? 'rtl' : 'ltr'}>",
    "docs/guide.md:14:Les paramètres sont enregistrés dans « ~/.config/inkwell ».",
    "docs/guide.ja.md:9:設定は ~/.config/inkwell に保存されます。",
];

const DIFF_LINES: &[&str] = &[
    "diff --git a/src/parse.rs b/src/parse.rs",
    "index 3f9a1c2..7d40e81 100644",
    "--- a/src/parse.rs",
    "+++ b/src/parse.rs",
    "@@ -205,9 +205,12 @@ impl<'a> Parser<'a> {",
    "             b',' => {",
    "-                self.bump();",
    "+                self.bump();",
    "+                if self.peek() == Some(b'}') {",
    "+                    return Err(self.error(ErrorKind::TrailingComma));",
    "+                }",
    "             }",
];

const PROSE: &[&str] = &[
    "The failing assertion compares byte offsets with character columns.",
    "Let me read the file before changing anything.",
    "That explains the off-by-one: `é` is two bytes in UTF-8.",
    "The test expects \"two\" for n = 2, but the rules only know one/other.",
    "I'll keep the public signature and change only the body.",
    "Running the suite again to be sure nothing else depends on the old behaviour.",
    "The slow query scans every row because `body ILIKE $1` cannot use the index.",
    "Two options: batch the backfill, or move it out of the migration entirely.",
    "Note the path uses backslashes (C:\\Users\\dev), so it must be escaped in JSON.",
    "The Arabic string «ملاحظتان» is the dual form; Japanese needs a single category.",
    "Résumé: the cache was keyed by the path the user typed, not the canonical one.",
    "日本語のテキストは一文字ずつ数える必要があります。",
    "这个函数在处理空输入时会返回错误。",
    "Tests pass ✅ and clippy is clean 🎉.",
    "The tab-separated output looks like:\tid\tname\tsize",
];

const PROMPTS: &[&str] = &[
    "cargo test fails on the span tests since I added the UTF-8 fixtures. Can you fix it?",
    "Why is `make migrate` so slow on CI? Locally it's instant.",
    "Add a --json flag to the stats command, same fields as the table.",
    "The settings page has to render right-to-left for Arabic (العربية).",
    "Rename `Config::load_or_default` to `Config::load` and update every caller.",
    "Les dates doivent suivre la locale de l'utilisateur : « 3 nov. 2026 ».",
    "ログイン画面の文字化けを直してください。",
    "Continue where we left off, but skip the polyfill this time.",
    "Write a test for the trailing-comma case and make it pass 🙏",
    "Can you explain what this regex does: ^(?:\\d{3}-)?\\d{4}$",
];

const TOOLS: &[&str] = &["bash", "read", "grep", "edit", "write", "bash", "read", "bash"];
const MODELS: &[(&str, [f64; 4])] = &[
    // dollars per million tokens: input, output, cache read, cache write
    ("claude-sonnet-5-5", [3.0, 15.0, 0.30, 3.75]),
    ("claude-haiku-5-5", [1.0, 5.0, 0.10, 1.25]),
];
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends lines from `pool`, starting at a random place so the text stays coherent,
/// until `target` bytes are reached.
fn fill(rng: &mut Rng, pool: &[&str], target: usize, out: &mut String) {
    let mut i = rng.next_u64() as usize % pool.len();
    while out.len() < target {
        out.push_str(pool[i]);
        out.push('\n');
        i = (i + 1) % pool.len();
        // Jump now and then, as a real file or log does.
        if rng.chance(0.05) {
            i = rng.next_u64() as usize % pool.len();
        }
    }
}

fn tool_output(rng: &mut Rng, tool: &str, size: usize, out: &mut String) {
    out.clear();
    // Weighted so that escapes end up near 5% of the file, as in the sessions measured.
    let pool = match tool {
        "read" => rng.pick(&[RUST_SRC, RUST_SRC, RUST_SRC, RUST_SRC, GO_SRC, CSV_LINES, CSV_LINES]),
        "grep" => GREP_LINES,
        "bash" => rng.pick(&[
            LOG_LINES, LOG_LINES, LOG_LINES, LOG_LINES, LOG_LINES, LOG_LINES, TEST_LINES, TEST_LINES, TEST_LINES,
            TEST_LINES, TEST_LINES, DIFF_LINES, DIFF_LINES, DIFF_LINES, DIFF_LINES, CSV_LINES, CSV_LINES, CSV_LINES,
            JSON_LINES,
        ]),
        _ => {
            out.push_str("Successfully replaced text in src/parse.rs.");
            return;
        }
    };
    fill(rng, pool, size, out);
}

fn prose(rng: &mut Rng, sentences: u64, out: &mut String) {
    out.clear();
    for i in 0..sentences {
        if i > 0 {
            out.push_str(if rng.chance(0.2) { "\n\n" } else { " " });
        }
        out.push_str(rng.pick(PROSE));
    }
}

// ---------------------------------------------------------------------------------------
// arcturn

/// One entry on the current branch, remembered so branches and compactions can point back.
struct PathNode {
    id: String,
    depth: u64,
    /// An assistant message that ended a turn: a sensible place to resume from.
    turn_end: bool,
    call_id: Option<String>,
}

struct ArcGen<'w, W: Write> {
    out: Out<'w, W>,
    rng: Rng,
    line: Line,
    text: String,
    salt: u32,
    next_id: u32,
    next_call: u32,
    now_ms: u64,
    /// The tail of the current branch, root side first; bounded to keep memory flat.
    path: VecDeque<PathNode>,
    model: usize,
    /// Tokens already in the provider's prompt cache, and tokens appended since the last
    /// call: they become the next call's `cacheRead` and `cacheWrite`.
    context_tokens: u64,
    pending_tokens: u64,
    since_branch: u64,
    since_compaction: u64,
    since_state: u64,
}

const PATH_KEEP: usize = 256;

impl<'w, W: Write> ArcGen<'w, W> {
    fn new(w: &'w mut W, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let salt = rng.next_u64() as u32;
        ArcGen {
            out: Out { w, sum: GenSummary::default() },
            rng,
            line: Line::new(),
            text: String::new(),
            salt,
            next_id: 0,
            next_call: 0,
            now_ms: START_MS,
            path: VecDeque::new(),
            model: 0,
            context_tokens: 0,
            pending_tokens: 0,
            since_branch: 0,
            since_compaction: 0,
            since_state: 0,
        }
    }

    fn new_id(&mut self) -> String {
        self.next_id += 1;
        format!("{:08x}", mix32(self.next_id ^ self.salt))
    }

    fn new_call_id(&mut self) -> String {
        self.next_call += 1;
        format!("call_{:08x}", mix32(self.next_call ^ self.salt.rotate_left(13)))
    }

    fn header(&mut self, session_id: &str) -> io::Result<()> {
        let l = &mut self.line;
        l.raw("{\"kind\":\"session\",\"version\":1,\"id\":").str(session_id);
        l.raw(",\"timestamp\":\"");
        iso8601(self.now_ms, &mut l.buf);
        l.raw("\",\"cwd\":\"/home/dev/src/inkwell\",\"title\":")
            .str("Généré: RTL settings page, plural rules and the 設定 screen");
        l.raw("}");
        self.out.emit(&mut self.line)
    }

    /// Writes the fields every entry has and leaves the object open. `resume_from` is the
    /// index in `path` of an older entry to branch from; None continues the branch.
    fn open_entry(&mut self, kind: &str, resume_from: Option<usize>) {
        let id = self.new_id();
        self.now_ms += self.rng.range(40, 9000);
        let parent = match resume_from {
            Some(idx) => {
                // A resume: everything after `idx` on the old branch stays as it is.
                self.path.truncate(idx + 1);
                self.out.sum.branches += 1;
                self.out.sum.leaves += 1;
                self.path.back()
            }
            None => self.path.back(),
        };
        let depth = parent.map_or(0, |p| p.depth + 1);
        let l = &mut self.line;
        l.raw("{\"kind\":\"").raw(kind).raw("\",\"id\":\"").raw(&id).raw("\",\"parentId\":");
        match parent {
            Some(p) => {
                l.raw("\"").raw(&p.id).raw("\"");
            }
            None => {
                l.raw("null");
                self.out.sum.roots += 1;
            }
        }
        l.raw(",\"timestamp\":\"");
        iso8601(self.now_ms, &mut l.buf);
        l.raw("\"");
        self.out.sum.entries += 1;
        self.out.sum.max_depth = self.out.sum.max_depth.max(depth);
        self.out.sum.latest_id.clone_from(&id);
        self.path.push_back(PathNode { id, depth, turn_end: false, call_id: None });
        if self.path.len() > PATH_KEEP {
            self.path.pop_front();
        }
        self.since_branch += 1;
        self.since_compaction += 1;
        self.since_state += 1;
    }

    fn close_entry(&mut self) -> io::Result<()> {
        self.line.raw("}");
        self.out.emit(&mut self.line)
    }

    /// The message's own timestamp: when it was complete, a few ms before the append.
    fn message_ts(&mut self) {
        let ms = self.now_ms - self.rng.range(1, 15);
        self.line.raw(",\"timestamp\":").num(ms).raw("}");
    }

    fn user(&mut self, resume_from: Option<usize>) -> io::Result<()> {
        self.open_entry("message", resume_from);
        let prompt = self.rng.pick(PROMPTS);
        self.line.raw(",\"message\":{\"role\":\"user\",\"content\":").str(prompt);
        self.message_ts();
        self.out.sum.user_messages += 1;
        self.pending_tokens += prompt.len() as u64 / 4;
        self.close_entry()
    }

    fn system(&mut self) -> io::Result<()> {
        self.open_entry("message", None);
        self.line
            .raw(",\"message\":{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":")
            .str("Turn budget: 40 of 50 turns used in this run. Finish the current step, then summarize what is left.")
            .raw("}]");
        self.message_ts();
        self.out.sum.system_messages += 1;
        self.close_entry()
    }

    /// An assistant message making `calls` (tool, call id); no calls ends the turn.
    fn assistant(&mut self, calls: &[(&str, String)]) -> io::Result<()> {
        self.open_entry("message", None);
        self.line.raw(",\"message\":{\"role\":\"assistant\",\"content\":[");
        let content_start = self.line.buf.len();
        let mut first = true;
        if self.rng.chance(0.7) {
            let n = self.rng.range(1, 8);
            prose(&mut self.rng, n, &mut self.text);
            self.line.raw("{\"type\":\"thinking\",\"thinking\":").str(&self.text);
            self.line.raw(",\"thinkingSignature\":\"");
            for _ in 0..self.rng.range(200, 400) {
                let c = B64[(self.rng.next_u64() % 64) as usize];
                self.line.buf.push(c);
            }
            self.line.raw("\"}");
            first = false;
        }
        if calls.is_empty() || self.rng.chance(0.4) {
            let n = if calls.is_empty() { self.rng.range(2, 12) } else { 1 };
            prose(&mut self.rng, n, &mut self.text);
            if !first {
                self.line.raw(",");
            }
            self.line.raw("{\"type\":\"text\",\"text\":").str(&self.text).raw("}");
            first = false;
        }
        for (tool, call_id) in calls {
            let tool = *tool;
            if !first {
                self.line.raw(",");
            }
            first = false;
            self.line.raw("{\"type\":\"toolCall\",\"id\":\"").raw(call_id).raw("\",\"name\":\"");
            self.line.raw(tool).raw("\",\"arguments\":");
            match tool {
                "bash" => {
                    let cmd = self.rng.pick(&[
                        "cargo test --workspace 2>&1 | tail -80",
                        "npm test -- --selectProjects i18n",
                        "git diff --stat HEAD~3",
                        "rg -n \"TrailingComma\" src/",
                        "go test ./internal/... -run 'TestStore/Get'",
                    ]);
                    self.line.raw("{\"command\":").str(cmd).raw(",\"timeout\":120}");
                }
                "edit" => {
                    self.line
                        .raw("{\"path\":\"src/parse.rs\",\"oldText\":")
                        .str("            b',' => {\n                self.bump();\n            }")
                        .raw(",\"newText\":")
                        .str("            b',' => {\n                self.bump();\n                if self.peek() == Some(b'}') {\n                    return Err(self.error(ErrorKind::TrailingComma));\n                }\n            }")
                        .raw("}");
                }
                "write" => {
                    self.line
                        .raw("{\"path\":\"locales/fr.json\",\"content\":")
                        .str("{\n  \"settings.title\": \"Paramètres\",\n  \"settings.logout\": \"Déconnexion\"\n}\n")
                        .raw("}");
                }
                _ => {
                    let path = self.rng.pick(&["src/parse.rs", "internal/store/notes.go", "src/i18n/plural.ts"]);
                    self.line.raw("{\"path\":").str(path).raw("}");
                }
            }
            self.line.raw("}");
        }
        let (model, rates) = MODELS[self.model];
        let output = (self.line.buf.len() - content_start) as u64 / 4 + self.rng.range(5, 60);
        let input = self.rng.range(1, 6);
        let cache_read = self.context_tokens;
        let cache_write = self.pending_tokens + self.rng.range(0, 40);
        self.context_tokens += cache_write + output;
        self.pending_tokens = 0;
        if self.context_tokens > 185_000 {
            // Near the window a context-edit pass stubs old results; keep the figures sane.
            self.context_tokens = self.rng.range(110_000, 130_000);
        }
        let costs = [
            input as f64 * rates[0] / 1e6,
            output as f64 * rates[1] / 1e6,
            cache_read as f64 * rates[2] / 1e6,
            cache_write as f64 * rates[3] / 1e6,
        ];
        let total = costs.iter().sum::<f64>();
        let l = &mut self.line;
        l.raw("],\"api\":\"anthropic-messages\",\"provider\":\"anthropic\",\"model\":\"").raw(model);
        l.raw("\",\"usage\":{\"input\":").num(input).raw(",\"output\":").num(output);
        l.raw(",\"cacheRead\":").num(cache_read).raw(",\"cacheWrite\":").num(cache_write);
        l.raw(",\"totalTokens\":").num(input + output + cache_read + cache_write);
        l.raw(",\"cost\":{\"input\":").float(costs[0]).raw(",\"output\":").float(costs[1]);
        l.raw(",\"cacheRead\":").float(costs[2]).raw(",\"cacheWrite\":").float(costs[3]);
        l.raw(",\"total\":").float(total).raw("}},\"stopReason\":");
        l.raw(if calls.is_empty() { "\"stop\"" } else { "\"toolUse\"" });
        self.message_ts();
        let s = &mut self.out.sum;
        s.assistant_messages += 1;
        s.input_tokens_total += input;
        s.output_tokens_total += output;
        s.cache_read_tokens_total += cache_read;
        s.cache_write_tokens_total += cache_write;
        s.cost_total += total;
        if let Some(node) = self.path.back_mut() {
            node.turn_end = calls.is_empty();
        }
        self.close_entry()
    }

    fn tool_result(&mut self, tool: &str, call_id: &str) -> io::Result<()> {
        let session_offload = "/home/dev/.arcturn/offload/s-gen";
        self.open_entry("message", None);
        if let Some(node) = self.path.back_mut() {
            node.call_id = Some(call_id.to_string());
        }
        // Median ~1 KB with a long tail; a few outputs of hundreds of KB, as a verbose
        // build log or a minified bundle read back would be.
        let size = if self.rng.chance(0.000_1) {
            self.rng.range(190_000, 380_000) as usize
        } else if self.rng.chance(0.000_5) {
            self.rng.range(50_000, 300_000) as usize
        } else {
            self.rng.log_normal(1000.0, 2.0).clamp(40.0, 120_000.0) as usize
        };
        let mut text = std::mem::take(&mut self.text);
        tool_output(&mut self.rng, tool, size, &mut text);
        let is_error = self.rng.chance(0.05);
        let offload = tool == "bash" && text.len() > 16_000 && text.len() < 100_000 && self.rng.chance(0.5);
        self.line.raw(",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"").raw(call_id);
        self.line.raw("\",\"toolName\":\"").raw(tool).raw("\",\"content\":[{\"type\":\"text\",\"text\":");
        if offload {
            // What the agent keeps in the session: head, tail, counts and the path.
            let (bytes, lines) = (text.len(), text.lines().count());
            let mut head_end = 4000;
            while !text.is_char_boundary(head_end) {
                head_end -= 1;
            }
            let mut tail_start = text.len() - 1000;
            while !text.is_char_boundary(tail_start) {
                tail_start += 1;
            }
            let stub = format!(
                "{}\n\n[... {} bytes omitted ...]\n\n{}\n\n[Output offloaded: {bytes} bytes, {lines} lines. Full output: {session_offload}/{call_id}.txt]",
                &text[..head_end],
                tail_start - head_end,
                &text[tail_start..]
            );
            self.line.str(&stub).raw("}],\"details\":{\"offloaded\":true,\"path\":\"");
            self.line.raw(session_offload).raw("/").raw(call_id).raw(".txt\",\"bytes\":");
            self.line.num(bytes as u64).raw(",\"lines\":").num(lines as u64).raw("}");
            self.out.sum.offloaded_results += 1;
            self.pending_tokens += stub.len() as u64 / 4;
        } else {
            // Some tools encode their output ASCII-only, so non-ASCII arrives as \u escapes.
            if self.rng.chance(0.02) {
                self.line.str_ascii(&text);
            } else {
                self.line.str(&text);
            }
            self.line.raw("}]");
            self.pending_tokens += text.len() as u64 / 4;
        }
        self.text = text;
        self.line.raw(",\"isError\":").raw(if is_error { "true" } else { "false" });
        self.message_ts();
        self.out.sum.tool_results += 1;
        self.out.sum.tool_errors += u64::from(is_error);
        self.close_entry()
    }

    fn compaction(&mut self) -> io::Result<()> {
        // Keep-tail when a turn end a little way back exists, else fold everything (simple).
        let n = self.path.len();
        let keep_tail = (2..n.min(40)).map(|d| n - 1 - d).find(|&i| self.path[i].turn_end);
        let up_to = match keep_tail {
            Some(i) => self.path[i].id.clone(),
            None => self.path.back().map(|p| p.id.clone()).unwrap_or_default(),
        };
        let after = self.rng.range(6000, 16000);
        let before = (self.context_tokens + self.pending_tokens).max(after + 20_000);
        self.open_entry("compaction", None);
        let mut summary = String::from("## Goal\n");
        summary.push_str(self.rng.pick(PROMPTS));
        summary.push_str("\n\n## Progress\n- ");
        let k = self.rng.range(3, 10);
        prose(&mut self.rng, k, &mut self.text);
        summary.push_str(&self.text);
        summary.push_str(
            "\n\n## Key decisions\n- Keep the public API; change internals only.\n\n## Next steps\n- Re-run the full suite.\n\n## Critical context\n- Offloaded outputs live under /home/dev/.arcturn/offload/s-gen/.\n\n## Reasoning to carry forward\n- ",
        );
        let k = self.rng.range(1, 4);
        prose(&mut self.rng, k, &mut self.text);
        summary.push_str(&self.text);
        self.line.raw(",\"summary\":").str(&summary);
        self.line.raw(",\"upToId\":\"").raw(&up_to).raw("\",\"tokensBefore\":").num(before);
        self.line.raw(",\"tokensAfter\":").num(after);
        if keep_tail.is_some() && self.rng.chance(0.5) {
            self.line.raw(",\"stripTailThinking\":true");
        }
        self.context_tokens = 0;
        self.pending_tokens = after;
        self.since_compaction = 0;
        self.out.sum.compactions += 1;
        self.close_entry()
    }

    fn state(&mut self) -> io::Result<()> {
        let roll = self.rng.range(0, 9);
        // Tool calls on the current branch, for a context-edit pass to elide.
        let elided: Vec<String> = self.path.iter().rev().skip(8).filter_map(|p| p.call_id.clone()).take(6).collect();
        self.open_entry("state", None);
        match roll {
            0..=4 => {
                self.line.raw(",\"todos\":[{\"text\":").str("Fix the trailing-comma case in parse.rs");
                self.line.raw(",\"done\":true},{\"text\":").str("Traduire les messages d'erreur (fr, ja, ar)");
                self.line.raw(",\"done\":false}]");
            }
            5 | 6 => {
                self.model = (self.model + 1) % MODELS.len();
                self.line.raw(",\"model\":{\"provider\":\"anthropic\",\"id\":\"");
                self.line.raw(MODELS[self.model].0).raw("\"}");
            }
            _ if !elided.is_empty() => {
                self.line.raw(",\"contextEdit\":{\"elided\":[");
                for (i, id) in elided.iter().enumerate() {
                    self.line.raw(if i == 0 { "\"" } else { ",\"" }).raw(id).raw("\"");
                }
                self.line.raw("],\"withholdThinking\":\"afterFirstElided\"}");
            }
            _ => {
                self.line.raw(",\"plan\":").str("1. Reproduce\n2. Fix\n3. Test with é, 日本, 🎉");
            }
        }
        self.since_state = 0;
        self.out.sum.states += 1;
        self.close_entry()
    }

    fn label(&mut self) -> io::Result<()> {
        self.open_entry("label", None);
        let n = self.out.sum.labels + 1;
        self.line.raw(",\"label\":\"checkpoint-").num(n).raw("\"");
        self.out.sum.labels += 1;
        self.close_entry()
    }

    /// One user turn: a prompt, a few tool rounds, a final answer, plus the occasional
    /// resume, compaction, state change, label or operator message before it.
    fn turn(&mut self) -> io::Result<()> {
        let mut resume_from = None;
        if self.since_branch >= 450 + self.rng.range(0, 100) {
            // Resume from a turn end a few turns back (not the tip: that is no branch).
            let n = self.path.len();
            resume_from = (2..n.min(120)).map(|d| n - 1 - d).find(|&i| self.path[i].turn_end && self.rng.chance(0.3));
            self.since_branch = 0;
        }
        if resume_from.is_none() {
            if self.since_compaction >= 1900 + self.rng.range(0, 200) {
                self.compaction()?;
            }
            if self.since_state >= 250 + self.rng.range(0, 100) {
                self.state()?;
            }
            if self.rng.chance(0.01) {
                self.label()?;
            }
            if self.rng.chance(0.02) {
                self.system()?;
            }
        }
        self.user(resume_from)?;
        let rounds = self.rng.log_normal(4.0, 0.8).clamp(0.0, 40.0) as u64;
        let mut calls = Vec::new();
        for _ in 0..rounds {
            // A third of the rounds run tools in parallel: one message, several results.
            calls.clear();
            for _ in 0..if self.rng.chance(0.3) { self.rng.range(2, 3) } else { 1 } {
                let tool = self.rng.pick(TOOLS);
                calls.push((tool, self.new_call_id()));
            }
            self.assistant(&calls)?;
            for (tool, call_id) in &calls {
                self.tool_result(tool, call_id)?;
            }
        }
        self.assistant(&[])
    }
}

/// A realistic arcturn session of at least `target_bytes` (it stops at the first turn
/// boundary past the target): header, then turns of user prompts, assistant messages with
/// usage, cost, thinking and tool calls, and tool results; a resume from an older entry
/// every ~500 entries, a compaction every ~2000, state entries now and then.
pub fn arcturn_session(w: &mut impl Write, target_bytes: u64, seed: u64) -> io::Result<GenSummary> {
    let mut g = ArcGen::new(w, seed);
    g.header(&format!("s-gen-{seed:x}"))?;
    g.out.sum.leaves = 1; // the final tip; each resume adds the tip it left behind
    while g.out.sum.bytes < target_bytes {
        g.turn()?;
    }
    Ok(g.out.sum)
}

/// Header plus a linear chain of `depth` small entries (user, assistant, tool result in
/// turn), for tests of 10^6-deep trees.
pub fn arcturn_chain(w: &mut impl Write, depth: u64) -> io::Result<GenSummary> {
    let mut g = ArcGen::new(w, 0xc4a1);
    g.header("s-gen-chain")?;
    g.out.sum.leaves = u64::from(depth > 0);
    for i in 0..depth {
        g.open_entry("message", None);
        match i % 3 {
            0 => {
                g.line.raw(",\"message\":{\"role\":\"user\",\"content\":\"continue\"");
                g.out.sum.user_messages += 1;
            }
            1 => {
                g.line.raw(",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"provider\":\"anthropic\",\"model\":\"claude-haiku-5-5\",\"usage\":{\"input\":1,\"output\":1,\"cacheRead\":0,\"cacheWrite\":0},\"stopReason\":\"stop\"");
                g.out.sum.assistant_messages += 1;
                g.out.sum.input_tokens_total += 1;
                g.out.sum.output_tokens_total += 1;
            }
            _ => {
                g.line.raw(",\"message\":{\"role\":\"system\",\"content\":[{\"type\":\"text\",\"text\":\"é\"}]");
                g.out.sum.system_messages += 1;
            }
        }
        g.message_ts();
        g.close_entry()?;
    }
    Ok(g.out.sum)
}

/// Header plus one root with `children` children (each a one-line user message).
pub fn arcturn_wide(w: &mut impl Write, children: u64) -> io::Result<GenSummary> {
    let mut g = ArcGen::new(w, 0x31de);
    g.header("s-gen-wide")?;
    g.open_entry("message", None);
    g.line.raw(",\"message\":{\"role\":\"user\",\"content\":\"root\"");
    g.message_ts();
    g.close_entry()?;
    g.out.sum.user_messages = 1;
    let root = g.path.len() - 1;
    for _ in 0..children {
        g.path.truncate(root + 1);
        g.open_entry("message", None);
        g.line.raw(",\"message\":{\"role\":\"user\",\"content\":\"try again\"");
        g.message_ts();
        g.close_entry()?;
        g.out.sum.user_messages += 1;
    }
    g.out.sum.leaves = children.max(1);
    Ok(g.out.sum)
}

// ---------------------------------------------------------------------------------------
// Hostile shapes: valid files built to make a careless index or view quadratic

/// The header and one small entry per `(id, parent)`, in order: a user message, or a
/// compaction when `up_to` names its target. Counts lines and bytes (the shape-specific
/// fields are the caller's).
fn hostile(w: &mut impl Write, title: &str, entries: impl Iterator<Item = HostileEntry>) -> io::Result<GenSummary> {
    let mut out = Out { w, sum: GenSummary::default() };
    let mut l = Line::new();
    l.raw("{\"kind\":\"session\",\"version\":1,\"id\":\"s-hostile\",\"timestamp\":\"2026-11-02T09:14:03.463Z\"");
    l.raw(",\"cwd\":\"/tmp\",\"title\":").str(title).raw("}");
    out.emit(&mut l)?;
    for (id, parent, up_to) in entries {
        let kind = if up_to.is_some() { "compaction" } else { "message" };
        l.raw("{\"kind\":\"").raw(kind).raw("\",\"id\":").str(&id).raw(",\"parentId\":");
        match &parent {
            Some(p) => l.str(p),
            None => l.raw("null"),
        };
        l.raw(",\"timestamp\":\"2026-11-02T09:16:20.530Z\"");
        match &up_to {
            Some(t) => {
                l.raw(",\"summary\":\"s\",\"upToId\":").str(t).raw(",\"tokensBefore\":9,\"tokensAfter\":1}");
                out.sum.compactions += 1;
            }
            None => {
                l.raw(",\"message\":{\"role\":\"user\",\"content\":\"x\"}}");
                out.sum.user_messages += 1;
            }
        }
        out.emit(&mut l)?;
        out.sum.entries += 1;
        out.sum.latest_id = id;
    }
    Ok(out.sum)
}

/// An entry of a hostile file: id, parent, and for a compaction the id it folds up to.
type HostileEntry = (String, Option<String>, Option<String>);

/// `n` entries whose parent links form one cycle: each names the one before it, and the
/// first names the last. The index cuts the cycle at the first entry, which becomes the only
/// root, over a chain `n` deep.
pub fn arcturn_cycle(w: &mut impl Write, n: u64) -> io::Result<GenSummary> {
    let id = |i: u64| format!("c{i:08x}");
    let mut sum = hostile(w, "one long cycle", (0..n).map(|i| (id(i), Some(id((i + n - 1) % n)), None)))?;
    (sum.roots, sum.leaves, sum.max_depth) = (1, 1, n.saturating_sub(1));
    Ok(sum)
}

/// `n` entries without a parent: `n` roots, each its own leaf.
pub fn arcturn_roots(w: &mut impl Write, n: u64) -> io::Result<GenSummary> {
    let mut sum = hostile(w, "many roots", (0..n).map(|i| (format!("r{i:08x}"), None, None)))?;
    (sum.roots, sum.leaves) = (n, n);
    Ok(sum)
}

/// A chain of `n` entries whose ids were crafted so that every one has the same FxHash
/// (rustc-hash 2) as the index packs it, which made every id table quadratic.
pub fn arcturn_colliding_chain(w: &mut impl Write, n: u64) -> io::Result<GenSummary> {
    let ids = fx_colliding_ids(n as usize);
    let entries = (0..ids.len()).map(|i| (ids[i].clone(), i.checked_sub(1).map(|p| ids[p].clone()), None));
    let mut sum = hostile(w, "ids crafted to collide", entries)?;
    (sum.roots, sum.leaves, sum.max_depth) = (1, 1, n.saturating_sub(1));
    Ok(sum)
}

/// A comb: a spine of `n / 2` entries, each with one leaf beside the next spine entry, so
/// every spine entry is a branch point and the text tree indents one level more per entry.
pub fn arcturn_comb(w: &mut impl Write, n: u64) -> io::Result<GenSummary> {
    let m = n / 2;
    let spine = |i: u64| format!("s{i:08x}");
    let entries = (0..m).flat_map(move |i| {
        let parent = i.checked_sub(1).map(spine);
        [(spine(i), parent, None), (format!("l{i:08x}"), Some(spine(i)), None)]
    });
    let mut sum = hostile(w, "a comb", entries)?;
    (sum.roots, sum.leaves, sum.max_depth, sum.branches) = (1, m, m, m.saturating_sub(1));
    Ok(sum)
}

/// A chain of `n` compactions after a root message, each folding up to the root: every one
/// asks whether its target is an ancestor.
pub fn arcturn_compactions(w: &mut impl Write, n: u64) -> io::Result<GenSummary> {
    let id = |i: u64| format!("k{i:08x}");
    let entries = (0..=n).map(move |i| {
        let parent = i.checked_sub(1).map(id);
        let up_to = (i > 0).then(|| id(0));
        (id(i), parent, up_to)
    });
    let mut sum = hostile(w, "compactions", entries)?;
    (sum.roots, sum.leaves, sum.max_depth) = (1, 1, n);
    Ok(sum)
}

/// FxHash's multiplier (rustc-hash 2, 64-bit).
pub const FX_K: u64 = 0xf135_7aea_2e62_a9c5;

/// FxHash of a string id as the index packed it before it was keyed: the length byte and
/// the first 7 bytes as one little-endian word `w0`, the next 8 bytes as `w1`, hashed as
/// `((w0 * K) + w1) * K`, rotated left by 26.
pub fn fx_packed(id: &str) -> u64 {
    assert!(id.len() <= 15, "only ids of up to 15 bytes were packed");
    let mut b = [0u8; 16];
    b[0] = id.len() as u8;
    b[1..=id.len()].copy_from_slice(id.as_bytes());
    let w0 = u64::from_le_bytes(b[..8].try_into().unwrap());
    let w1 = u64::from_le_bytes(b[8..].try_into().unwrap());
    w0.wrapping_mul(FX_K).wrapping_add(w1).wrapping_mul(FX_K).rotate_left(26)
}

/// `n` distinct 15-byte printable ids with one and the same [`fx_packed`] hash.
///
/// Two ids collide when `w0 * K + w1` is the same target `T` (K is odd, so the last multiply
/// and the rotation are bijections). For any `w0`, `w1 = T - w0 * K` collides; it only has to
/// be printable too. Byte `k` of `w1` depends on bytes `0..=k` of `w0` alone (carries go
/// up), so a depth-first search picks `w0` one byte at a time, keeping the choices that leave
/// byte `k` of `w1` printable: about a third of them, so 10^6 ids take ~10^7 steps.
pub fn fx_colliding_ids(n: usize) -> Vec<String> {
    // Printable ASCII that needs no escape in JSON.
    let ok = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
    let len = 15u64;
    let mut target = 0x4141_4141_4141_4141u64;
    while !ok(target.wrapping_sub(len.wrapping_mul(FX_K)) as u8) {
        target += 1;
    }
    let mut out = Vec::with_capacity(n);
    // Byte 0 of w0 is the length; bytes 1..=7 are chosen; a stack of partial words.
    let mut stack: Vec<(usize, u64)> = vec![(1, len)];
    while let Some((k, w0)) = stack.pop() {
        if out.len() == n {
            break;
        }
        if k == 8 {
            let w1 = target.wrapping_sub(w0.wrapping_mul(FX_K));
            let mut id = w0.to_le_bytes()[1..].to_vec();
            id.extend_from_slice(&w1.to_le_bytes());
            out.push(String::from_utf8(id).expect("printable ASCII"));
            continue;
        }
        for c in (0x20u8..0x7f).rev().filter(|&c| ok(c)) {
            let w = w0 | u64::from(c) << (8 * k);
            if ok((target.wrapping_sub(w.wrapping_mul(FX_K)) >> (8 * k)) as u8) {
                stack.push((k + 1, w));
            }
        }
    }
    assert_eq!(out.len(), n, "the search space holds about 5 * 10^10 ids");
    out
}

// ---------------------------------------------------------------------------------------
// crab

struct CrabGen<'w, W: Write> {
    out: Out<'w, W>,
    rng: Rng,
    line: Line,
    text: String,
    now_ms: u64,
    next_id: u64,
    last_id: Option<u64>,
    ts_form: u8,
    context_tokens: u64,
    /// Recent tool_use ids, for a shed compaction to name.
    recent_calls: VecDeque<String>,
}

impl<W: Write> CrabGen<'_, W> {
    fn ts(&mut self) {
        let l = &mut self.line;
        match self.ts_form {
            0 => {
                l.raw("\"ts\":").num(self.now_ms);
            }
            1 => {
                l.raw("\"ts\":\"").num(self.now_ms).raw("ms\"");
            }
            _ => {
                l.raw("\"ts\":\"");
                iso8601(self.now_ms, &mut l.buf);
                l.raw("\"");
            }
        }
    }

    fn obs(&mut self, run: &str, tag: &str) {
        self.line.raw("{\"kind\":\"obs\",\"run_id\":\"").raw(run).raw("\",");
        self.ts();
        self.line.raw(",\"obs\":\"").raw(tag).raw("\"");
    }

    /// Opens a message record and returns its id; ids increase with gaps, as crab's do.
    fn message(&mut self, role: &str) -> u64 {
        let id = self.next_id;
        self.next_id += self.rng.range(1, 3);
        self.line.raw("{\"kind\":\"message\",\"id\":").num(id).raw(",\"parent_id\":");
        match self.last_id {
            Some(p) => {
                self.line.num(p);
                self.out.sum.max_depth += 1;
            }
            None => {
                self.line.raw("null");
                self.out.sum.roots += 1;
            }
        }
        self.line.raw(",\"message\":{\"role\":\"").raw(role).raw("\",\"content\":[");
        self.last_id = Some(id);
        self.out.sum.entries += 1;
        self.out.sum.latest_id = id.to_string();
        if role == "user" {
            self.out.sum.user_messages += 1;
        } else {
            self.out.sum.assistant_messages += 1;
        }
        id
    }

    fn llm_call(&mut self, run: &str, model: &str, outcome: &str) -> io::Result<()> {
        let prompt = self.context_tokens + self.rng.range(50, 400);
        let completion = self.rng.range(20, 900);
        let cache_read = prompt / 512 * 512;
        let duration = self.rng.range(600, 9000);
        self.obs(run, "llm_call");
        let l = &mut self.line;
        l.raw(",\"provider\":\"deepseek\",\"model\":\"").raw(model).raw("\",\"duration_ms\":").num(duration);
        l.raw(",\"usage\":{\"prompt\":").num(prompt).raw(",\"completion\":").num(completion);
        l.raw(",\"cache_read\":").num(cache_read).raw(",\"cache_write\":0},\"outcome\":").raw(outcome);
        l.raw("}");
        self.now_ms += duration;
        self.context_tokens = prompt + completion;
        let s = &mut self.out.sum;
        s.llm_calls += 1;
        s.input_tokens_total += prompt;
        s.output_tokens_total += completion;
        s.cache_read_tokens_total += cache_read;
        self.out.emit(&mut self.line)
    }

    fn run(&mut self, r: u32) -> io::Result<()> {
        let run = format!("r{r}");
        // Real files use one form; mixing them here keeps every reader path exercised.
        self.ts_form = match r % 10 {
            3 => 1,
            7 => 2,
            _ => 0,
        };
        self.now_ms += self.rng.range(20_000, 600_000);
        self.obs(&run, "turn_start");
        self.line.raw("}");
        self.out.emit(&mut self.line)?;
        let prompt = self.rng.pick(PROMPTS);
        let folded_up_to = self.last_id;
        self.message("user");
        self.line.raw("{\"type\":\"text\",\"text\":").str(prompt).raw("}]}}");
        self.out.emit(&mut self.line)?;
        if let Some(up_to) = folded_up_to.filter(|_| r.is_multiple_of(15)) {
            // Both stages, as crab records them: shed old tool results, then summarize.
            let before = self.context_tokens;
            let after = before * 2 / 3;
            self.obs(&run, "compaction");
            self.line.raw(",\"strategy\":\"shed\",\"tokens_before\":").num(before);
            self.line.raw(",\"tokens_after\":").num(after).raw(",\"shed\":[");
            for (i, id) in self.recent_calls.iter().enumerate() {
                self.line.raw(if i == 0 { "\"" } else { ",\"" }).raw(id).raw("\"");
            }
            self.line.raw("]}");
            self.out.emit(&mut self.line)?;
            self.now_ms += 3;
            self.obs(&run, "compaction");
            self.line.raw(",\"strategy\":\"summarize\",\"tokens_before\":").num(after);
            self.line.raw(",\"tokens_after\":").num(after / 8).raw(",\"summary\":");
            let n = self.rng.range(3, 8);
            prose(&mut self.rng, n, &mut self.text);
            self.line.str(&self.text).raw(",\"up_to_id\":").num(up_to).raw("}");
            self.out.emit(&mut self.line)?;
            self.context_tokens = after / 8;
        }
        let model = if r.is_multiple_of(4) { "deepseek-reasoner" } else { "deepseek-chat" };
        let interrupted = r % 12 == 11;
        let rounds = self.rng.log_normal(3.0, 0.7).clamp(0.0, 20.0) as u64;
        let (mut llm, mut tools) = (0, 0);
        for seq in 0..rounds {
            self.llm_call(&run, model, "\"Ok\"")?;
            llm += 1;
            let tool = self.rng.pick(TOOLS);
            let call_id = format!("call_{:02}_{:08x}", seq, self.rng.next_u64() as u32);
            self.message("assistant");
            self.line.raw("{\"type\":\"tool_use\",\"id\":\"").raw(&call_id).raw("\",\"name\":\"").raw(tool);
            self.line.raw("\",\"input\":{\"path\":\"crates/crab-core/src/session.rs\"}}]}}");
            self.out.emit(&mut self.line)?;
            let size = self.rng.log_normal(900.0, 1.5).clamp(40.0, 48_000.0) as usize;
            let mut text = std::mem::take(&mut self.text);
            tool_output(&mut self.rng, tool, size, &mut text);
            let failed = self.rng.chance(0.05);
            let duration = self.rng.range(2, 4000);
            self.obs(&run, "tool_call");
            let l = &mut self.line;
            l.raw(",\"tool\":\"").raw(tool).raw("\",\"call_seq\":").num(seq);
            let _ = write!(l.buf, ",\"args_digest\":\"{:06x}\"", self.rng.next_u64() & 0xff_ffff);
            let _ = write!(l.buf, ",\"result_digest\":\"{:06x}\"", self.rng.next_u64() & 0xff_ffff);
            l.raw(",\"bytes_in\":").num(40).raw(",\"bytes_out\":").num(text.len() as u64);
            l.raw(",\"duration_ms\":").num(duration).raw(",\"outcome\":");
            l.raw(if failed { "{\"Error\":\"exit status 101: test failed\"}" } else { "\"Ok\"" });
            l.raw("}");
            self.out.emit(&mut self.line)?;
            self.now_ms += duration;
            tools += 1;
            self.message("user");
            self.line.raw("{\"type\":\"tool_result\",\"tool_use_id\":\"").raw(&call_id).raw("\",\"content\":");
            self.line.str(&text);
            if failed {
                self.line.raw(",\"is_error\":true");
            }
            self.line.raw("}]}}");
            self.out.emit(&mut self.line)?;
            self.context_tokens += text.len() as u64 / 4;
            self.text = text;
            self.recent_calls.push_back(call_id);
            if self.recent_calls.len() > 4 {
                self.recent_calls.pop_front();
            }
            self.out.sum.tool_calls += 1;
            self.out.sum.tool_results += 1;
            self.out.sum.tool_errors += u64::from(failed);
        }
        self.llm_call(&run, model, if interrupted { "\"Aborted\"" } else { "\"Ok\"" })?;
        llm += 1;
        self.message("assistant");
        let n = self.rng.range(1, 6);
        prose(&mut self.rng, n, &mut self.text);
        self.line.raw("{\"type\":\"text\",\"text\":").str(&self.text).raw("}]}}");
        self.out.emit(&mut self.line)?;
        self.now_ms += self.rng.range(2, 20);
        self.obs(&run, "turn_end");
        let stop = if interrupted { "interrupted" } else { "end_turn" };
        self.line.raw(",\"stop_reason\":\"").raw(stop).raw("\",\"interrupted\":");
        self.line.raw(if interrupted { "true" } else { "false" });
        self.line.raw(",\"llm_calls\":").num(llm).raw(",\"tool_calls\":").num(tools).raw("}");
        self.out.emit(&mut self.line)?;
        self.out.sum.runs += 1;
        Ok(())
    }
}

/// A crab session: a `meta` line, then `runs` runs of turn_start, messages, `llm_call`
/// and `tool_call` observations and turn_end; every 15th run starts with a shed and a
/// summarize compaction, every 12th is interrupted. Linear, like crab v0.4 writes.
pub fn crab_session(w: &mut impl Write, runs: u32, seed: u64) -> io::Result<GenSummary> {
    let mut g = CrabGen {
        out: Out { w, sum: GenSummary::default() },
        rng: Rng::new(seed),
        line: Line::new(),
        text: String::new(),
        now_ms: START_MS,
        next_id: 1,
        last_id: None,
        ts_form: 0,
        context_tokens: 0,
        recent_calls: VecDeque::new(),
    };
    g.line.raw("{\"kind\":\"meta\",\"format_version\":2,\"created\":\"").num(START_MS).raw("ms\"}");
    g.out.emit(&mut g.line)?;
    for r in 1..=runs {
        g.run(r)?;
    }
    g.out.sum.leaves = u64::from(g.out.sum.entries > 0);
    Ok(g.out.sum)
}

pub mod real;

// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::{HashMap, HashSet};

    fn lines(bytes: &[u8]) -> Vec<Value> {
        assert_eq!(bytes.last(), Some(&b'\n'), "every line ends with a newline");
        bytes[..bytes.len() - 1]
            .split(|&b| b == b'\n')
            .enumerate()
            .map(|(i, l)| serde_json::from_slice(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)))
            .collect()
    }

    /// Escape bytes recounted from the output: in JSON text a backslash only ever starts
    /// an escape inside a string.
    fn count_escapes(bytes: &[u8]) -> u64 {
        let (mut i, mut n) = (0, 0);
        while i < bytes.len() {
            if bytes[i] == b'\\' {
                let len = if bytes[i + 1] == b'u' { 6 } else { 2 };
                n += len as u64;
                i += len;
            } else {
                i += 1;
            }
        }
        n
    }

    /// Recomputes the tree facts of an arcturn file with a plain, independent walk.
    fn arcturn_truth(values: &[Value]) -> GenSummary {
        let mut s = GenSummary { lines: values.len() as u64, ..Default::default() };
        let mut depth: HashMap<&str, u64> = HashMap::new();
        let mut has_child: HashSet<&str> = HashSet::new();
        let mut order = Vec::new();
        let mut calls = HashSet::new();
        for v in &values[1..] {
            let id = v["id"].as_str().unwrap();
            let d = match v["parentId"].as_str() {
                Some(p) => {
                    has_child.insert(p);
                    depth[p] + 1 // parents always come first in file order
                }
                None => {
                    s.roots += 1;
                    0
                }
            };
            assert!(depth.insert(id, d).is_none(), "duplicate id {id}");
            order.push(id);
            s.max_depth = s.max_depth.max(d);
            match v["kind"].as_str().unwrap() {
                "compaction" => s.compactions += 1,
                "state" => {
                    s.states += 1;
                    for e in v["contextEdit"]["elided"].as_array().into_iter().flatten() {
                        assert!(calls.contains(e.as_str().unwrap()), "elided id exists");
                    }
                }
                "label" => s.labels += 1,
                _ => {}
            }
            let m = &v["message"];
            match m["role"].as_str() {
                Some("user") => s.user_messages += 1,
                Some("system") => s.system_messages += 1,
                Some("toolResult") => {
                    s.tool_results += 1;
                    s.tool_errors += u64::from(m["isError"] == Value::Bool(true));
                    s.offloaded_results += u64::from(m["details"]["offloaded"] == Value::Bool(true));
                }
                Some("assistant") => {
                    s.assistant_messages += 1;
                    let u = &m["usage"];
                    s.input_tokens_total += u["input"].as_u64().unwrap();
                    s.output_tokens_total += u["output"].as_u64().unwrap();
                    s.cache_read_tokens_total += u["cacheRead"].as_u64().unwrap();
                    s.cache_write_tokens_total += u["cacheWrite"].as_u64().unwrap();
                    s.cost_total += u["cost"]["total"].as_f64().unwrap_or(0.0);
                    for b in m["content"].as_array().unwrap() {
                        if b["type"] == "toolCall" {
                            calls.insert(b["id"].as_str().unwrap().to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        s.entries = order.len() as u64;
        s.leaves = order.iter().filter(|id| !has_child.contains(*id)).count() as u64;
        s.latest_id = order.last().map(|id| id.to_string()).unwrap_or_default();
        s
    }

    #[test]
    fn crafted_ids_share_one_fxhash_and_are_distinct() {
        use std::hash::Hasher;
        let ids = fx_colliding_ids(20_000);
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        for id in &ids {
            assert_eq!(id.len(), 15);
            assert!(id.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'), "{id:?}");
            // The hash exactly as the index computed it before it was keyed.
            let mut h = rustc_hash::FxHasher::default();
            let mut w = [id.len() as u8; 16];
            w[1..].copy_from_slice(id.as_bytes());
            h.write_u128(u128::from_le_bytes(w));
            assert_eq!(h.finish(), fx_packed(id));
            assert_eq!(fx_packed(id), fx_packed(&ids[0]), "{id:?}");
        }
    }

    #[test]
    fn iso8601_matches_known_dates() {
        let mut b = Vec::new();
        iso8601(1_793_610_005_002, &mut b);
        assert_eq!(b, b"2026-11-02T09:00:05.002Z");
        b.clear();
        iso8601(951_782_400_000, &mut b); // a leap day
        assert_eq!(b, b"2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn ascii_only_strings_escape_as_utf16() {
        let mut l = Line::new();
        l.str_ascii("é😀\"");
        assert_eq!(l.buf, br#""\u00e9\ud83d\ude00\"""#);
        assert_eq!(l.escapes, 6 + 12 + 2);
        let back: String = serde_json::from_slice(&l.buf).unwrap();
        assert_eq!(back, "é😀\"");
    }

    #[test]
    fn session_summary_is_the_truth() {
        let mut buf = Vec::new();
        let sum = arcturn_session(&mut buf, 8 << 20, 7).unwrap();
        let values = lines(&buf);
        assert_eq!(values[0]["kind"], "session");
        let truth = arcturn_truth(&values);
        assert_eq!(sum.bytes, buf.len() as u64);
        assert_eq!(sum.lines, truth.lines);
        assert_eq!(sum.escape_bytes, count_escapes(&buf));
        let max_line = buf.split(|&b| b == b'\n').map(|l| l.len() as u64).max().unwrap();
        assert_eq!(sum.max_line_bytes, max_line);
        // serde_json's default float parsing may be off by an ulp: compare cost loosely.
        assert!((sum.cost_total - truth.cost_total).abs() < 1e-9 * sum.cost_total.max(1.0));
        // Everything else the walk can recompute must agree exactly.
        let recomputed = GenSummary {
            cost_total: sum.cost_total,
            bytes: sum.bytes,
            escape_bytes: sum.escape_bytes,
            max_line_bytes: sum.max_line_bytes,
            branches: sum.branches,
            ..truth
        };
        assert_eq!(sum, recomputed);
        // And the file must contain the features the benchmarks rely on.
        assert!(sum.branches >= 2, "{sum:?}");
        assert!(sum.compactions >= 1, "{sum:?}");
        assert!(sum.states >= 5 && sum.offloaded_results >= 1, "{sum:?}");
        assert_eq!(sum.leaves, sum.branches + 1);
        let escape_share = sum.escape_bytes as f64 / sum.bytes as f64;
        assert!((0.03..0.08).contains(&escape_share), "escape share {escape_share}");

        // Every compaction folds an ancestor, as materialization requires.
        let parent: HashMap<&str, Option<&str>> =
            values[1..].iter().map(|v| (v["id"].as_str().unwrap(), v["parentId"].as_str())).collect();
        for v in values.iter().filter(|v| v["kind"] == "compaction") {
            let target = v["upToId"].as_str().unwrap();
            let mut at = v["parentId"].as_str();
            while at.is_some_and(|a| a != target) {
                at = parent[at.unwrap()];
            }
            assert_eq!(at, Some(target), "upToId of {} is an ancestor", v["id"]);
        }
    }

    #[test]
    fn same_seed_same_bytes() {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        arcturn_session(&mut a, 1 << 20, 42).unwrap();
        arcturn_session(&mut b, 1 << 20, 42).unwrap();
        arcturn_session(&mut c, 1 << 20, 43).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn chain_is_linear() {
        let mut buf = Vec::new();
        let sum = arcturn_chain(&mut buf, 3000).unwrap();
        let truth = arcturn_truth(&lines(&buf));
        assert_eq!((sum.entries, sum.max_depth, sum.leaves, sum.roots), (3000, 2999, 1, 1));
        assert_eq!((truth.entries, truth.max_depth, truth.leaves, truth.roots), (3000, 2999, 1, 1));
        assert_eq!(sum.latest_id, truth.latest_id);
        assert!(sum.latest_id.len() >= 8 && sum.latest_id.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn wide_has_one_parent() {
        let mut buf = Vec::new();
        let sum = arcturn_wide(&mut buf, 2000).unwrap();
        let truth = arcturn_truth(&lines(&buf));
        assert_eq!((sum.entries, sum.leaves, sum.max_depth), (2001, 2000, 1));
        assert_eq!((truth.entries, truth.leaves, truth.max_depth), (2001, 2000, 1));
        assert_eq!(sum.latest_id, truth.latest_id);
    }

    #[test]
    fn crab_summary_is_the_truth() {
        let mut buf = Vec::new();
        let sum = crab_session(&mut buf, 40, 5).unwrap();
        let values = lines(&buf);
        assert_eq!(values[0]["kind"], "meta");
        assert_eq!(sum.lines, values.len() as u64);
        let msgs: Vec<&Value> = values.iter().filter(|v| v["kind"] == "message").collect();
        assert_eq!(sum.entries, msgs.len() as u64);
        assert_eq!(sum.latest_id, msgs.last().unwrap()["id"].to_string());
        let ids: Vec<u64> = msgs.iter().map(|m| m["id"].as_u64().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase");
        assert!(ids.windows(2).any(|w| w[1] - w[0] > 1), "ids are not consecutive");
        let obs = |tag: &str| values.iter().filter(|v| v["obs"] == tag).count() as u64;
        assert_eq!(sum.runs, obs("turn_start"));
        assert_eq!(sum.runs, obs("turn_end"));
        assert_eq!(sum.llm_calls, obs("llm_call"));
        assert_eq!(sum.tool_calls, obs("tool_call"));
        let prompt: u64 =
            values.iter().filter(|v| v["obs"] == "llm_call").map(|v| v["usage"]["prompt"].as_u64().unwrap()).sum();
        assert_eq!(sum.input_tokens_total, prompt);
        assert!(obs("compaction") >= 2);
        assert!(values.iter().any(|v| v["interrupted"] == Value::Bool(true)));
        assert!(values.iter().any(|v| v["ts"].is_string()) && values.iter().any(|v| v["ts"].is_u64()));
    }
}
