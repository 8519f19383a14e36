//! Which parser should the per-line decode use? Times the same skeleton decode (kind, id,
//! parent, timestamp, message role/model/usage; content skipped) over the lines of a
//! generated session with serde_json, simd-json (each line copied into a padded per-thread
//! scratch buffer, as it needs a mutable input) and this crate's skimmer, on all threads.
//!
//! `cargo bench --bench decode` (env BENCH_SIZE_MB, default 256; BENCH_RUNS, default 7).
//! Prints a Markdown table of the median and best round of each parser.

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

/// Rounds in which every parser runs once, so a noisy stretch of a shared machine hits all
/// of them alike (env BENCH_RUNS, default 7).
fn rounds(parsers: &[(&str, &(dyn Fn() -> usize + Sync))]) -> Vec<(String, f64, f64, usize)> {
    let runs: usize = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(7).max(1);
    let mut times = vec![Vec::new(); parsers.len()];
    let mut counts = vec![0; parsers.len()];
    for _ in 0..runs {
        for (k, (_, f)) in parsers.iter().enumerate() {
            let t = Instant::now();
            counts[k] = f();
            times[k].push(t.elapsed().as_secs_f64());
        }
    }
    parsers
        .iter()
        .zip(times)
        .zip(counts)
        .map(|(((name, _), mut t), n)| {
            t.sort_by(f64::total_cmp);
            (name.to_string(), t[t.len() / 2], t[0], n)
        })
        .collect()
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
    let serde_json = || -> usize {
        chunks.par_iter().map(|c| c.iter().filter(|l| serde_json::from_str::<Skel>(l).is_ok()).count()).sum()
    };
    let simd_json = || -> usize {
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
    };
    let skimmer = || -> usize {
        chunks
            .par_iter()
            .map(|c| c.iter().filter(|l| arcturn_inspect::format::skim::from_str::<Skel>(l).is_ok()).count())
            .sum()
    };
    let results = rounds(&[
        ("serde_json::from_str", &serde_json),
        ("simd_json::serde::from_slice (copied line)", &simd_json),
        ("arcturn_inspect skimmer", &skimmer),
    ]);
    let (base_median, base_best) = (results[0].1, results[0].2);
    println!(
        "\n{} MiB, {} lines, {} threads, {} rounds (each parser once per round)\n",
        mb,
        lines.len(),
        rayon::current_num_threads(),
        std::env::var("BENCH_RUNS").unwrap_or_else(|_| "7".into())
    );
    println!("| parser | median s | MB/s | median vs serde_json | best vs serde_json | lines decoded |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, median, best, n) in &results {
        println!(
            "| {name} | {median:.3} | {:.0} | {:.2}x | {:.2}x | {n} |",
            mb as f64 / median,
            base_median / median,
            base_best / best
        );
    }
}
