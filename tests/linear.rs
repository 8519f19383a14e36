//! Every command stays linear on files built to make it quadratic: a parent cycle 10^6
//! entries long, 10^6 roots, and 10^6 ids crafted to share one hash under the id index's
//! former (unkeyed) hash. Each command runs under a deadline, in the debug build, and its
//! answer is checked against what the generator wrote.

mod common;
mod gen;

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{cmd, Out};
use gen::GenSummary;
use serde_json::Value;

const N: u64 = 1_000_000;
/// Generous for a debug build on a busy machine: a linear run takes a few seconds, a
/// quadratic one hours.
const DEADLINE: Duration = Duration::from_secs(60);

/// Run with a deadline; a hang or a signal (stack overflow, abort) fails the test.
fn run_within(args: &[&str]) -> Out {
    let mut child =
        cmd().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    // Drain the pipes while waiting: the outputs are megabytes.
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut r: Box<dyn io::Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            r.read_to_end(&mut b).map(|_| b)
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    eprintln!("{:?}: {:.2} s", &args[..args.len() - 1], start.elapsed().as_secs_f64());
    let code = status.code().unwrap_or_else(|| panic!("{args:?} was killed by a signal: {status:?}"));
    Out {
        code,
        stdout: String::from_utf8_lossy(&out.join().unwrap().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap().unwrap()).into_owned(),
    }
}

fn generate(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<GenSummary>,
) -> (String, GenSummary) {
    let path = dir.join(name);
    let mut w = BufWriter::new(File::create(&path).unwrap());
    let sum = write(&mut w).unwrap();
    drop(w);
    (path.to_str().unwrap().to_string(), sum)
}

/// `check`, `tree` (JSON and text), `leaves` and `stats` each finish within the deadline
/// and agree with the generator; `check` exits `check_code`.
fn every_view_answers_in_time(p: &str, sum: &GenSummary, check_code: i32) {
    let check = run_within(&["check", "--json", p]);
    assert_eq!(check.code, check_code, "{}", check.stderr);
    assert_eq!(check.json()["entries"], sum.entries);

    let tree = run_within(&["tree", "--json", p]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    let doc = tree.json();
    assert_eq!(doc["nodes"].as_array().unwrap().len() as u64, sum.entries);
    assert_eq!(doc["roots"].as_array().unwrap().len() as u64, sum.roots);
    assert_eq!(doc["latest"], sum.latest_id.as_str());
    let deepest = doc["nodes"].as_array().unwrap().iter().map(|n| n["depth"].as_u64().unwrap()).max();
    assert_eq!(deepest, Some(sum.max_depth));

    let text = run_within(&["tree", "--color", "never", p]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.lines().count() as u64 >= sum.entries, "a row per entry");

    let leaves = run_within(&["leaves", "--json", p]);
    assert_eq!(leaves.code, 0, "{}", leaves.stderr);
    assert_eq!(leaves.json()["leaves"].as_array().unwrap().len() as u64, sum.leaves);
    let text = run_within(&["leaves", "--color", "never", p]);
    assert_eq!(text.code, 0, "{}", text.stderr);

    let stats = run_within(&["stats", "--json", p]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let s: Value = stats.json()["sessions"][0].clone();
    assert_eq!(s["entries"], sum.entries);
    assert_eq!(s["leaves"], sum.leaves);
    assert_eq!(s["max_depth"], sum.max_depth);
}

#[test]
fn a_million_entry_parent_cycle_is_cut_once_and_every_view_stays_linear() {
    let dir = tempfile::tempdir().unwrap();
    let (p, sum) = generate(dir.path(), "cycle.jsonl", |w| gen::arcturn_cycle(w, N));
    every_view_answers_in_time(&p, &sum, 1);
    let check = run_within(&["check", "--json", &p]);
    let findings = check.json()["findings"].as_array().unwrap().clone();
    let cycles: Vec<&Value> = findings.iter().filter(|f| f["code"] == "cycle").collect();
    assert_eq!(cycles.len(), 1, "one cycle, one finding");
    // Cut at its first member in file order (line 2); the message names a few members, not
    // a million.
    assert_eq!(cycles[0]["line"], 2);
    let message = cycles[0]["message"].as_str().unwrap();
    assert!(message.len() < 2000, "{} bytes", message.len());
    assert!(message.contains(&format!("of {N} entries")), "{message}");
}

#[test]
fn a_million_roots_keep_every_view_linear() {
    let dir = tempfile::tempdir().unwrap();
    let (p, sum) = generate(dir.path(), "roots.jsonl", |w| gen::arcturn_roots(w, N));
    every_view_answers_in_time(&p, &sum, 0);
}

#[test]
fn a_million_ids_crafted_to_collide_keep_every_view_linear() {
    let dir = tempfile::tempdir().unwrap();
    let (p, sum) = generate(dir.path(), "collide.jsonl", |w| gen::arcturn_colliding_chain(w, N));
    every_view_answers_in_time(&p, &sum, 0);
}

#[test]
fn a_million_entry_comb_keeps_the_text_tree_linear() {
    let dir = tempfile::tempdir().unwrap();
    let (p, sum) = generate(dir.path(), "comb.jsonl", |w| gen::arcturn_comb(w, N));
    every_view_answers_in_time(&p, &sum, 0);
    // Half a million levels of connectors fold into a count on every row.
    let text = run_within(&["tree", "--color", "never", &p]);
    let last = text.stdout.lines().last().unwrap();
    assert!(last.chars().count() <= 100, "{last}");
    // The last leaf sits under the last spine entry, 499,999 levels in: 9 levels stay.
    assert!(last.starts_with(&format!("┆{}┆", N / 2 - 1 - 9)), "{last}");
}

#[test]
fn a_million_compactions_check_their_targets_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let (p, sum) = generate(dir.path(), "compactions.jsonl", |w| gen::arcturn_compactions(w, N));
    every_view_answers_in_time(&p, &sum, 0);
}
