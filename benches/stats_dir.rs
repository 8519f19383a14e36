//! `stats` over a directory of many sessions, side by side with `wc -l` over the same files.
//!
//! Generates 1,000 sessions (1 GiB in all; `BENCH_DIR_MB` shrinks it) under
//! `target/bench-data/`, mixed arcturn and crab, with realistic lines (thinking, tool calls,
//! tool output full of escapes and non-ASCII text, compactions), builds the release binary, and
//! prints a Markdown table of median wall times (3 runs each) with the ratio to `wc -l`.
//! The files are dropped from the page cache first, so that the warm-up read of `wc -l`
//! caches them the same way every run.
//!
//! Run with `cargo bench --bench stats_dir`.

mod page_cache;

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SESSIONS: usize = 1000;
const RUNS: usize = 3;

fn main() {
    // `cargo test --all-targets` runs bench targets too; only `cargo bench` passes --bench.
    if !std::env::args().any(|a| a == "--bench") {
        println!("stats_dir: skipped (run it with `cargo bench --bench stats_dir`)");
        return;
    }
    let mb: u64 = std::env::var("BENCH_DIR_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(1024);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let dir = target.join("bench-data").join(format!("stats-dir-{mb}mb"));
    let files = generate(&dir, mb << 20);
    let bin = build(root, &target);

    page_cache::drop_files(&files);
    let total: u64 = files.iter().map(|f| fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
    println!("\n{} sessions, {:.1} MiB in {}\n", files.len(), total as f64 / (1 << 20) as f64, dir.display());
    let wc = median(|| {
        let mut c = Command::new("wc");
        c.arg("-l").args(&files);
        c
    });
    let rows: Vec<(&str, Duration)> = vec![
        ("`wc -l` (all files)", wc),
        ("`stats --json DIR`", median(|| cmd(&bin, &["stats", "--json", "-q"], &dir))),
        ("`stats DIR` (table)", median(|| cmd(&bin, &["stats", "-q"], &dir))),
        ("`stats --by model DIR`", median(|| cmd(&bin, &["stats", "-q", "--by", "model"], &dir))),
        ("`sessions DIR`", median(|| cmd(&bin, &["sessions", "-q"], &dir))),
    ];
    println!("| command | median of {RUNS} | vs `wc -l` |");
    println!("|---|---:|---:|");
    for (name, t) in rows {
        println!("| {name} | {:.3} s | {:.2}x |", t.as_secs_f64(), t.as_secs_f64() / wc.as_secs_f64());
    }
}

fn cmd(bin: &Path, args: &[&str], dir: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args(args).arg(dir);
    c
}

/// Median wall time of [`RUNS`] runs (after one warm-up that fills the page cache).
fn median(make: impl Fn() -> Command) -> Duration {
    let run = || {
        let start = Instant::now();
        let status = make().stdout(Stdio::null()).stderr(Stdio::null()).status().expect("command runs");
        let t = start.elapsed();
        assert!(status.success() || status.code() == Some(1), "command failed: {status}");
        t
    };
    run();
    let mut times: Vec<Duration> = (0..RUNS).map(|_| run()).collect();
    times.sort();
    times[RUNS / 2]
}

fn build(root: &Path, target: &Path) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--bin", "arcturn-inspect"])
        .current_dir(root)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "release build failed");
    target.join("release").join("arcturn-inspect")
}

/// A small deterministic generator (xorshift64*): the same data on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "fn",
    "let",
    "match",
    "the",
    "test",
    "failed",
    "résumé",
    "naïve",
    "über",
    "日本語",
    "données",
    "ok",
    "Err(e)",
    "src/lib.rs",
    "cargo",
    "warning:",
    "=>",
    "{",
    "}",
    "self",
    "π",
    "λ",
    "async",
    "await",
    "🦀",
];

/// Text with newlines, quotes, backslashes and tabs, so about 5% of the bytes are escapes.
fn text(r: &mut Rng, len: usize) -> String {
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        s.push_str(WORDS[r.below(WORDS.len() as u64) as usize]);
        s.push_str(match r.below(14) {
            0 => "\\n",
            1 => "\\\"",
            2 => "\\\\",
            3 => "\\t",
            _ => " ",
        });
    }
    s
}

/// Tool output sizes: mostly small, some large, a few huge.
fn output_len(r: &mut Rng) -> usize {
    match r.below(100) {
        0 => 200_000 + r.below(200_000) as usize,
        1..=10 => 8_000 + r.below(16_000) as usize,
        _ => 300 + r.below(3_000) as usize,
    }
}

fn generate(dir: &Path, total: u64) -> Vec<PathBuf> {
    let marker = dir.join(".complete");
    let files: Vec<PathBuf> = (0..SESSIONS)
        .map(|i| {
            if i % 10 < 7 {
                dir.join(format!("arcturn/{:02}/s-{i:05}.jsonl", i % 20))
            } else {
                dir.join(format!("crab/session-{}.jsonl", 1_792_661_000_000u64 + i as u64 * 60_000))
            }
        })
        .collect();
    if marker.exists() {
        return files;
    }
    eprintln!("generating {} MiB of sessions in {} ...", total >> 20, dir.display());
    let _ = fs::remove_dir_all(dir);
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mean = total / SESSIONS as u64;
    for (i, f) in files.iter().enumerate() {
        fs::create_dir_all(f.parent().expect("has a parent")).expect("create bench dir");
        // Sizes vary from 0.2x to 1.8x the mean; the last file absorbs rounding.
        let size = mean / 5 + r.below(mean * 8 / 5);
        let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(f).expect("create bench file"));
        if i % 10 < 7 {
            arcturn(&mut w, &mut r, i, size);
        } else {
            crab(&mut w, &mut r, size);
        }
        w.flush().expect("write bench file");
    }
    fs::write(&marker, b"").expect("write marker");
    files
}

fn arcturn(w: &mut impl Write, r: &mut Rng, n: usize, size: u64) {
    let t0 = 1_793_610_000_000u64 + n as u64 * 3_600_000;
    let mut written = 0u64;
    let mut line = format!(
        "{{\"kind\":\"session\",\"version\":1,\"id\":\"s-{n:05}\",\"timestamp\":{t0},\"cwd\":\"/home/dev/p{}\",\"title\":\"Session {n}\"}}\n",
        n % 20
    );
    let mut parent = String::from("null");
    let mut id = 0u64;
    let mut t = t0;
    while written < size {
        written += line.len() as u64;
        w.write_all(line.as_bytes()).expect("write");
        line.clear();
        id += 1;
        t += 500 + r.below(20_000);
        let me = format!("\"{:08x}\"", (n as u64) << 32 | id);
        let head = format!("{{\"kind\":\"message\",\"id\":{me},\"parentId\":{parent},\"timestamp\":{t},");
        match id % 4 {
            1 => {
                let _ = writeln!(
                    line,
                    "{head}\"message\":{{\"role\":\"user\",\"content\":\"{}\",\"timestamp\":{t}}}}}",
                    text(r, 200)
                );
            }
            2 => {
                let call = format!("call_{id}");
                let think = 600 + r.below(2000) as usize;
                let _ = writeln!(line, "{head}\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"thinking\",\"thinking\":\"{}\"}},{{\"type\":\"text\",\"text\":\"{}\"}},{{\"type\":\"toolCall\",\"id\":\"{call}\",\"name\":\"bash\",\"arguments\":{{\"command\":\"cargo test -p x{}\"}}}}],\"provider\":\"anthropic\",\"model\":\"{}\",\"usage\":{{\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{},\"cost\":{{\"total\":0.0123}}}},\"stopReason\":\"toolUse\",\"timestamp\":{t}}}}}",
                    text(r, think),
                    text(r, 300),
                    r.below(9),
                    if r.below(3) == 0 { "claude-opus-5" } else { "claude-sonnet-5-5" },
                    r.below(500),
                    r.below(900),
                    r.below(100_000),
                    r.below(5_000)
                );
            }
            3 => {
                let len = output_len(r);
                let _ = writeln!(line, "{head}\"message\":{{\"role\":\"toolResult\",\"toolCallId\":\"call_{}\",\"toolName\":\"bash\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"isError\":{},\"timestamp\":{t}}}}}",
                    id - 1,
                    text(r, len),
                    r.below(20) == 0
                );
            }
            _ => {
                if r.below(40) == 0 {
                    let _ = writeln!(
                        line,
                        "{{\"kind\":\"compaction\",\"id\":{me},\"parentId\":{parent},\"timestamp\":{t},\"summary\":\"{}\",\"upToId\":{parent},\"tokensBefore\":{},\"tokensAfter\":{}}}",
                        text(r, 3000),
                        150_000 + r.below(30_000),
                        10_000 + r.below(5_000)
                    );
                } else {
                    let _ = writeln!(line, "{head}\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"provider\":\"openai\",\"model\":\"gpt-5.1\",\"usage\":{{\"input\":{},\"output\":{},\"cacheRead\":0,\"cacheWrite\":0}},\"stopReason\":\"stop\",\"timestamp\":{t}}}}}", text(r, 800), r.below(9000), r.below(900));
                }
            }
        }
        parent = me;
    }
}

fn crab(w: &mut impl Write, r: &mut Rng, size: u64) {
    let mut t = 1_792_661_000_000u64 + r.below(1_000_000_000);
    let mut written = 0u64;
    let mut out = format!("{{\"kind\":\"meta\",\"format_version\":2,\"created\":\"{t}ms\"}}\n");
    let mut id = 0u64;
    let mut run = 0u64;
    while written < size {
        written += out.len() as u64;
        w.write_all(out.as_bytes()).expect("write");
        out.clear();
        run += 1;
        let rid = format!("r{run}");
        let parent = if id == 0 { "null".to_string() } else { id.to_string() };
        id += 1;
        let _ = writeln!(out, "{{\"kind\":\"obs\",\"run_id\":\"{rid}\",\"ts\":{t},\"obs\":\"turn_start\"}}");
        let _ = writeln!(out, "{{\"kind\":\"message\",\"id\":{id},\"parent_id\":{parent},\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}", text(r, 200));
        for k in 0..1 + r.below(4) {
            t += 10;
            let _ = writeln!(out, "{{\"kind\":\"obs\",\"run_id\":\"{rid}\",\"ts\":\"{t}ms\",\"obs\":\"llm_call\",\"provider\":\"deepseek\",\"model\":\"deepseek-chat\",\"duration_ms\":{},\"usage\":{{\"prompt\":{},\"completion\":{},\"cache_read\":{},\"cache_write\":0}},\"outcome\":\"Ok\"}}", r.below(3000), r.below(60_000), r.below(900), r.below(50_000));
            id += 1;
            let _ = writeln!(out, "{{\"kind\":\"message\",\"id\":{id},\"parent_id\":{},\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}},{{\"type\":\"tool_use\",\"id\":\"call_{id}\",\"name\":\"read\",\"input\":{{\"path\":\"src/m{k}.rs\"}}}}]}}}}", id - 1, text(r, 400));
            t += 2000;
            let len = output_len(r);
            let outcome = if r.below(15) == 0 { "{\"Error\":\"exit status 1\"}" } else { "\"Ok\"" };
            let _ = writeln!(out, "{{\"kind\":\"obs\",\"run_id\":\"{rid}\",\"ts\":{t},\"obs\":\"tool_call\",\"tool\":\"read\",\"call_seq\":{k},\"args_digest\":\"9f2c1a\",\"result_digest\":\"77ab03\",\"bytes_in\":41,\"bytes_out\":{len},\"duration_ms\":{},\"outcome\":{outcome}}}", r.below(50));
            id += 1;
            let _ = writeln!(out, "{{\"kind\":\"message\",\"id\":{id},\"parent_id\":{},\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"call_{}\",\"content\":\"{}\"}}]}}}}", id - 1, id - 1, text(r, len));
        }
        t += 500;
        let _ = writeln!(out, "{{\"kind\":\"obs\",\"run_id\":\"{rid}\",\"ts\":{t},\"obs\":\"turn_end\",\"stop_reason\":\"end_turn\",\"interrupted\":false,\"llm_calls\":1,\"tool_calls\":1}}");
        t += 60_000;
    }
}
