//! Which parser should the per-line decode use? Times the same skeleton decode (kind, id,
//! parent, timestamp, message role/model/usage; content skipped) over the lines of a
//! generated session with serde_json, simd-json (each line copied into a padded per-thread
//! scratch buffer, as it needs a mutable input) and this crate's skimmer, on all threads.
//!
//! `cargo bench --bench decode` (env BENCH_SIZE_MB, default 256). Prints a Markdown table.

#[path = "../tests/gen/mod.rs"]
mod gen;

use std::borrow::Cow;
use std::time::Instant;

use rayon::prelude::*;
use serde::de::IgnoredAny;
use serde::Deserialize;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Skel<'a> {
    #[serde(borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "parentId")]
    parent: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Msg<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Msg<'a> {
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    usage: Option<Usage>,
    #[serde(borrow, rename = "toolCallId")]
    tool_call_id: Option<Cow<'a, str>>,
    content: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Usage {
    input: Option<u64>,
    output: Option<u64>,
    #[serde(rename = "cacheRead")]
    cache_read: Option<u64>,
    #[serde(rename = "cacheWrite")]
    cache_write: Option<u64>,
}

fn time<F: Fn() -> usize>(name: &str, f: F) -> (String, f64, usize) {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..3 {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (name.to_string(), best, n)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let mb: u64 = std::env::var("BENCH_SIZE_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    let mut buf = Vec::with_capacity((mb << 20) as usize + (1 << 20));
    gen::arcturn_session(&mut buf, mb << 20, 7).expect("generate");
    let text = String::from_utf8(buf).expect("generator writes UTF-8");
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let chunks: Vec<&[&str]> = lines.chunks(2048).collect();
    let results = vec![
        time("serde_json::from_str", || {
            chunks.par_iter().map(|c| c.iter().filter(|l| serde_json::from_str::<Skel>(l).is_ok()).count()).sum()
        }),
        time("simd_json::serde::from_slice (copied line)", || {
            chunks
                .par_iter()
                .map(|c| {
                    let mut scratch: Vec<u8> = Vec::new();
                    c.iter()
                        .filter(|l| {
                            scratch.clear();
                            scratch.extend_from_slice(l.as_bytes());
                            simd_json::serde::from_slice::<Skel>(&mut scratch).is_ok()
                        })
                        .count()
                })
                .sum()
        }),
        time("arcturn_inspect skimmer", || {
            chunks
                .par_iter()
                .map(|c| c.iter().filter(|l| arcturn_inspect::format::skim::from_str::<Skel>(l).is_ok()).count())
                .sum()
        }),
    ];
    let base = results[0].1;
    println!("\n{} MiB, {} lines, {} threads, best of 3\n", mb, lines.len(), rayon::current_num_threads());
    println!("| parser | s | MB/s | vs serde_json | lines decoded |");
    println!("|---|---:|---:|---:|---:|");
    for (name, s, n) in &results {
        println!("| {name} | {s:.3} | {:.0} | {:.2}x | {n} |", mb as f64 / s, base / s);
    }
}
