//! Every command stays linear on files built to make it quadratic: a parent cycle 10^6
//! entries long, 10^6 roots, and 10^6 ids crafted to share one hash under the id index's
//! former (unkeyed) hash; and the context walk over a huge ledger of elided results, many
//! context edits over a long list, and many compactions that keep a long tail. Each command
//! runs under a deadline, and its answer is checked against what the generator wrote.

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

// ---------------------------------------------------------------------------------------
// The context walk (`context`, and `stats`' context figure): files built so that a walk
// that scans its list at every step, or a ledger searched id by id, turns quadratic.

/// The header, then `entries` as lines, each the child of the line before (arcturn).
fn chain(dir: &Path, name: &str, entries: impl Iterator<Item = String>) -> String {
    use std::io::Write;
    let path = dir.join(name);
    let mut w = BufWriter::new(File::create(&path).unwrap());
    writeln!(
        w,
        r#"{{"kind":"session","version":1,"id":"s-walk","timestamp":"2026-11-02T09:14:03.463Z","cwd":"/tmp"}}"#
    )
    .unwrap();
    let mut parent = "null".to_string();
    for (i, body) in entries.enumerate() {
        let id = format!("w{i:08x}");
        writeln!(w, r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-11-02T09:16:20.530Z",{body}}}"#).unwrap();
        parent = format!("\"{id}\"");
    }
    w.flush().unwrap();
    path.to_str().unwrap().to_string()
}

/// `context --json` and `stats --json` of `p`, each within the deadline.
fn context_and_stats(p: &str) -> (Value, Value) {
    let context = run_within(&["context", "--json", p]);
    assert_eq!(context.code, 0, "{}", context.stderr);
    let stats = run_within(&["stats", "--json", p]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    (context.json(), stats.json()["sessions"][0].clone())
}

/// One context edit eliding 300,000 call ids, and a second naming them all again: the
/// ledger holds each id once, in order. (It was searched id by id: 100,000 ids took 12 s
/// in a release build, these more than 90 s.)
#[test]
fn a_ledger_of_300_000_elided_ids_is_kept_in_linear_time() {
    let n = 300_000;
    let dir = tempfile::tempdir().unwrap();
    let ids = (0..n).map(|i| format!("\"call_{i}\"")).collect::<Vec<_>>().join(",");
    let edit = format!(r#""kind":"state","contextEdit":{{"elided":[{ids}],"withholdThinking":"all"}}"#);
    let user = r#""kind":"message","message":{"role":"user","content":"go"}"#.to_string();
    let p = chain(dir.path(), "ledger.jsonl", [user, edit.clone(), edit].into_iter());
    let (context, stats) = context_and_stats(&p);
    let elided = context["elided"].as_array().unwrap();
    assert_eq!(elided.len(), n);
    assert_eq!((elided[0].as_str(), elided[n - 1].as_str()), (Some("call_0"), Some(&*format!("call_{}", n - 1))));
    assert_eq!(stats["context_edits"]["passes"], 2);
    assert_eq!(stats["context_edits"]["elided"], 2 * n);
}

/// 100,000 assistant messages with thinking, each calling a tool whose result follows, then
/// 100,000 context edits that elide the first call's result and withhold the thinking
/// after it (`afterFirstElided`): every assistant message but the first is withheld. (Each
/// edit went through the whole list: 20,000 edits over 60,000 messages took 10 s in a
/// release build, these more than 90 s.)
#[test]
fn many_context_edits_over_a_long_list_withhold_thinking_in_linear_time() {
    let (m, e) = (100_000, 100_000);
    let dir = tempfile::tempdir().unwrap();
    let turns = (0..m).flat_map(|i| {
        [
            format!(
                r#""kind":"message","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"plan {i}"}},{{"type":"toolCall","id":"call_{i}","name":"read","arguments":{{"path":"f{i}"}}}}],"stopReason":"toolUse"}}"#
            ),
            format!(
                r#""kind":"message","message":{{"role":"toolResult","toolCallId":"call_{i}","toolName":"read","content":[{{"type":"text","text":"out {i}"}}],"isError":false}}"#
            ),
        ]
    });
    let edits = (0..e).map(|_| {
        r#""kind":"state","contextEdit":{"elided":["call_0"],"withholdThinking":"afterFirstElided"}"#.to_string()
    });
    let p = chain(dir.path(), "edits.jsonl", turns.chain(edits));
    let (context, stats) = context_and_stats(&p);
    assert_eq!(context["messages"].as_array().unwrap().len(), 2 * m);
    let withheld = context["withheld_thinking"].as_array().unwrap();
    assert_eq!(withheld.len(), m - 1);
    // The assistant messages are the even lines after the header: the first withheld is
    // the second one (entry 2), the last the last one (entry 2m - 2).
    assert_eq!(withheld[0], "w00000002");
    assert_eq!(withheld[m - 2], format!("w{:08x}", 2 * m - 2).as_str());
    assert_eq!(context["elided"], serde_json::json!(["call_0"]));
    assert_eq!(stats["context_edits"]["passes"], e);
}

/// 150,000 user messages, then 150,000 compactions that each fold up to the first message
/// and keep the rest: one summary and every message but the first are sent. (Each
/// compaction went through the whole list: 50,000 of them over 50,000 messages took 15 s in
/// a release build, these more than 90 s.)
#[test]
fn many_compactions_that_keep_a_long_tail_fold_in_linear_time() {
    let (m, c) = (150_000, 150_000);
    let dir = tempfile::tempdir().unwrap();
    let users = (0..m).map(|i| format!(r#""kind":"message","message":{{"role":"user","content":"u{i}"}}"#));
    let compactions = (0..c).map(|k| {
        format!(r#""kind":"compaction","summary":"s{k}","upToId":"w00000000","tokensBefore":9,"tokensAfter":1"#)
    });
    let p = chain(dir.path(), "folds.jsonl", users.chain(compactions));
    let (context, stats) = context_and_stats(&p);
    let messages = context["messages"].as_array().unwrap();
    assert_eq!(messages.len(), m);
    assert_eq!(messages[0]["synthetic"], true);
    assert_eq!(messages[0]["entry_id"], format!("w{:08x}", m + c - 1).as_str());
    assert_eq!(messages[1]["entry_id"], "w00000001");
    assert_eq!(messages[m - 1]["entry_id"], format!("w{:08x}", m - 1).as_str());
    assert_eq!(context["compactions"].as_array().unwrap().len(), c);
    assert_eq!(stats["compactions"]["count"], c);
}

// ---------------------------------------------------------------------------------------
// Names a file may hold any number of: a message's unknown block types, a session's models.

/// One message of 300,000 distinct unknown block types, each written twice: every command
/// decodes it with one finding per type (the types were searched one by one: 100,000 took
/// every command 11 s).
#[test]
fn a_message_of_300_000_unknown_block_types_decodes_in_linear_time() {
    let n = 300_000;
    let dir = tempfile::tempdir().unwrap();
    let blocks = (0..2 * n).map(|i| format!(r#"{{"type":"kind_{}"}}"#, i % n)).collect::<Vec<_>>().join(",");
    let message = format!(r#""kind":"message","message":{{"role":"assistant","content":[{blocks}]}}"#);
    let p = chain(dir.path(), "types.jsonl", std::iter::once(message));
    let check = run_within(&["check", "--json", &p]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let findings = check.json()["findings"].as_array().unwrap().clone();
    assert!(findings.iter().all(|f| f["code"] == "unknown_block" && f["line"] == 2));
    assert_eq!(findings.len(), n);
    let named: std::collections::HashSet<&str> = findings.iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(named.len(), n, "each type named once");
    assert!(named.contains("unknown content block type `kind_299999` (kept and shown as is)"));
}

/// 150,000 model calls, each by a model of its own that the price table does not know:
/// `stats` has a row and an unpriced model for each, `export` lists each once (each call's
/// model was looked for row by row: 100,000 took `stats` 58 s, `export` 13 s).
#[test]
fn a_session_of_150_000_models_is_counted_in_linear_time() {
    let n = 150_000;
    let dir = tempfile::tempdir().unwrap();
    let calls = (0..n).map(|i| {
        format!(
            r#""kind":"message","message":{{"role":"assistant","content":[{{"type":"text","text":"x"}}],"provider":"house","model":"m-{i}","usage":{{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3}}}}"#
        )
    });
    let p = chain(dir.path(), "models.jsonl", calls);
    let stats = run_within(&["stats", "--json", &p]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let doc = stats.json();
    let s = &doc["sessions"][0];
    assert_eq!(s["usage"]["calls"], n);
    assert_eq!(s["usage"]["total"], 3 * n);
    assert_eq!(s["usage"]["cost_source"], "unknown");
    assert_eq!(s["usage"]["unpriced_models"].as_array().unwrap().len(), n);
    assert_eq!(s["by_model"].as_array().unwrap().len(), n);
    assert_eq!(doc["total"]["by_model"].as_array().unwrap().len(), n);
    let export = run_within(&["export", &p]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    assert!(export.stdout.contains("house/m-149999"), "the last model is listed");
}
