//! Generated pi, Claude Code and Codex sessions of several megabytes, with every trap of
//! their formats (split responses repeating their usage, progress lines off the chain,
//! cumulative and re-emitted token counters, compactions, resumed branches), read by the
//! binary: its totals must equal what the generator wrote, each model call counted once.

mod common;
mod gen;

use std::fs::File;
use std::io::BufWriter;

use common::run;
use gen::real::{session, Agent};
use gen::GenSummary;

const BYTES: u64 = 6 << 20;

fn generated(agent: Agent, dir: &std::path::Path) -> (String, GenSummary) {
    let path = dir.join(format!("{}.jsonl", agent.name()));
    let mut w = BufWriter::new(File::create(&path).unwrap());
    let sum = session(agent, &mut w, BYTES, 7).unwrap();
    drop(w);
    (path.to_string_lossy().into_owned(), sum)
}

fn check_totals(agent: Agent) {
    let dir = tempfile::tempdir().unwrap();
    let (file, want) = generated(agent, dir.path());
    assert!(want.bytes >= BYTES && want.compactions >= 1, "{want:?}");

    let check = run(&["check", "--json", &file]);
    assert_eq!(check.code, 0, "{}{}", check.stderr, check.stdout.chars().take(2000).collect::<String>());
    let check = check.json();
    assert_eq!(check["format"], agent.name());
    assert_eq!(check["lines"], want.lines);

    let stats = run(&["stats", "--json", &file]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let s = &stats.json()["sessions"][0];
    let u = &s["usage"];
    assert_eq!(u["calls"], want.llm_calls, "model calls, each once");
    assert_eq!(u["input"], want.input_tokens_total);
    assert_eq!(u["output"], want.output_tokens_total);
    assert_eq!(u["cache_read"], want.cache_read_tokens_total);
    assert_eq!(u["cache_write"], want.cache_write_tokens_total);
    assert_eq!(s["messages"]["assistant"], want.assistant_messages);
    let calls: u64 = s["tool_calls"].as_array().unwrap().iter().map(|t| t["calls"].as_u64().unwrap()).sum();
    let errors: u64 = s["tool_calls"].as_array().unwrap().iter().map(|t| t["errors"].as_u64().unwrap()).sum();
    assert_eq!(calls, want.tool_calls);
    assert_eq!(errors, want.tool_errors);
    assert_eq!(s["compactions"]["count"], want.compactions);
    if agent == Agent::Pi {
        let cost = u["cost"].as_f64().unwrap();
        assert!((cost - want.cost_total).abs() < 1e-6 * want.cost_total.max(1.0), "{cost} vs {}", want.cost_total);
    }

    // Resumes are branches; nothing else is (progress lines and tool results are not).
    let leaves = run(&["leaves", "--json", &file]);
    assert_eq!(leaves.code, 0, "{}", leaves.stderr);
    assert_eq!(leaves.json()["leaves"].as_array().unwrap().len() as u64, want.leaves, "{want:?}");
    let tree = run(&["tree", "--json", &file]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
}

#[test]
fn generated_pi_session_totals_equal_what_was_written() {
    check_totals(Agent::Pi);
}

#[test]
fn generated_claude_session_counts_split_responses_once() {
    check_totals(Agent::Claude);
}

#[test]
fn generated_codex_session_counts_each_call_once() {
    check_totals(Agent::Codex);
}

/// pi version 1 has no ids: each entry is named by its line, also in the parts of a large
/// file decoded in parallel (a part once numbered its lines from its own start).
#[test]
fn pi_v1_line_ids_stay_unique_across_parallel_parts() {
    let dir = tempfile::tempdir().unwrap();
    let (file, want) = generated(Agent::Pi, dir.path());
    let v1: String = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            if o["type"] == "session" {
                o.insert("version".into(), 1.into());
                o.remove("id");
            }
            for k in ["id", "parentId", "firstKeptEntryId"] {
                o.remove(k);
            }
            format!("{v}\n")
        })
        .collect();
    let v1_file = dir.path().join("v1.jsonl");
    std::fs::write(&v1_file, v1).unwrap();
    let v1_file = v1_file.to_string_lossy().into_owned();

    let check = run(&["check", "--json", &v1_file]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let tree = run(&["tree", "--json", &v1_file]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    let nodes = tree.json()["nodes"].as_array().unwrap().clone();
    assert_eq!(nodes.len() as u64, want.lines - 1, "every line after the header is an entry");
    for n in &nodes {
        assert_eq!(n["id"], format!("L{}", n["line"]), "{n}");
    }
}
