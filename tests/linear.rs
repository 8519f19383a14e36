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

// ---------------------------------------------------------------------------------------
// Other formats' passes and the views over them: files built so that a search of a list at
// every step turns quadratic (each of these took the previous release's build minutes).

/// `lines` written as a file of `dir`, one a line.
fn lines(dir: &Path, name: &str, lines: impl Iterator<Item = String>) -> String {
    use std::io::Write;
    let path = dir.join(name);
    let mut w = BufWriter::new(File::create(&path).unwrap());
    for l in lines {
        writeln!(w, "{l}").unwrap();
    }
    w.flush().unwrap();
    path.to_str().unwrap().to_string()
}

/// `len` characters of `alphabet`, chosen by a generator seeded with `seed`.
fn token(seed: u64, len: usize, alphabet: &[u8]) -> String {
    let mut x = seed;
    (0..len)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            alphabet[((z ^ (z >> 31)) % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

/// A Claude Code line of `ty` (`user`, `assistant`, `progress`), id `uuid` under `parent`,
/// with `rest` (the members after these, without a leading comma).
fn claude(ty: &str, uuid: &str, parent: Option<&str>, rest: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"{ty}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s-linear","timestamp":"2026-02-11T10:00:00.000Z",{rest}}}"#
    )
}

/// A prompt, a run of 100,000 progress lines each under the one before, and 100,000 prompts
/// under the last of them. Progress lines are not entries: each prompt hangs from the first
/// prompt, its nearest conversational ancestor (each prompt walked the whole run: 20,000
/// took 9 s).
#[test]
fn prompts_under_a_long_run_of_progress_lines_hang_from_their_ancestor_in_linear_time() {
    let n = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let prompt = |k: usize, parent: &str| {
        claude(
            "user",
            &format!("u-{k}"),
            Some(parent),
            &format!(r#""message":{{"role":"user","content":"again {k}"}}"#),
        )
    };
    let first = claude("user", "u-0", None, r#""message":{"role":"user","content":"go"}"#);
    let progress = (1..=n).map(|k| {
        let parent = if k == 1 { "u-0".to_string() } else { format!("p-{}", k - 1) };
        claude("progress", &format!("p-{k}"), Some(&parent), r#""data":{"type":"hook_progress"}"#)
    });
    let last = format!("p-{n}");
    let prompts = (1..=n).map(|k| prompt(k, &last));
    let p = lines(dir.path(), "progress.jsonl", std::iter::once(first).chain(progress).chain(prompts));
    let tree = run_within(&["tree", "--json", &p]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    let doc = tree.json();
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), n + 1, "the prompts are the entries");
    assert_eq!(doc["roots"], serde_json::json!(["u-0"]));
    assert!(nodes[1..].iter().all(|n| n["parent"] == "u-0" && n["depth"] == 1));
    assert_eq!(doc["latest"], format!("u-{n}"));
    let check = run_within(&["check", "--json", &p]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert_eq!(check.json()["entries"], n + 1);
    let stats = run_within(&["stats", "--json", &p]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    assert_eq!(stats.json()["sessions"][0]["leaves"], n);
}

/// One Claude Code response of 200,000 tool calls, then 200,000 results on lines of their
/// own, each answering one of the last seven calls: each result is named after its call (each
/// was named by a search of the calls up to its own: 80,000 took 8 s).
#[test]
fn the_results_of_a_response_of_200_000_calls_are_named_in_linear_time() {
    let n = 200_000;
    let dir = tempfile::tempdir().unwrap();
    let first = claude("user", "u-0", None, r#""message":{"role":"user","content":"go"}"#);
    let calls = (0..n).map(|k| format!(r#"{{"type":"tool_use","id":"t-{k}","name":"tool-{}","input":{{}}}}"#, k % 7));
    let response = claude(
        "assistant",
        "a-0",
        Some("u-0"),
        &format!(
            r#""requestId":"req_1","message":{{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{}],"usage":{{"input_tokens":1,"output_tokens":1}}}}"#,
            calls.collect::<Vec<_>>().join(",")
        ),
    );
    let results = (0..n).map(|k| {
        let parent = if k == 0 { "a-0".to_string() } else { format!("r-{}", k - 1) };
        let call = n - 1 - k % 7;
        let body = format!(
            r#""message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t-{call}","content":"ok"}}]}}"#
        );
        claude("user", &format!("r-{k}"), Some(&parent), &body)
    });
    let p = lines(dir.path(), "results.jsonl", [first, response].into_iter().chain(results));
    let tree = run_within(&["tree", "--color", "never", &p]);
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    let grep = run_within(&["grep", "--json", "^ok$", &p]);
    assert_eq!(grep.code, 0, "{}", grep.stderr);
    let hits = grep.ndjson();
    assert_eq!(hits.len(), n, "a hit a result");
    for (k, hit) in hits.iter().enumerate() {
        assert_eq!(hit["entry_id"], format!("r-{k}"));
        assert_eq!(hit["tool"], format!("tool-{}", (n - 1 - k % 7) % 7), "{hit}");
    }
}

/// A key of its own in each of 20,000 tool calls of one Claude Code response written a call
/// a line, and 200,000 keys in one tool result: each secret is placed in its call, the
/// result's are all the result's (each was placed by decoding and searching its entry again:
/// 10,000 calls took 105 s, 40,000 keys in a result 26 s).
#[test]
fn many_secrets_in_one_entry_are_placed_in_linear_time() {
    let n = 20_000;
    let dir = tempfile::tempdir().unwrap();
    // AWS access key ids: `AKIA` and 16 of [A-Z2-7], random, with no vowel, X or Y, so that
    // no key reads as a placeholder (`example`, `xxxx`).
    let keys: Vec<String> =
        (0..n).map(|k| format!("AKIA{}", token(k as u64, 16, b"BCDFGHJKLMNPQRSTVWZ234567"))).collect();
    assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), n, "distinct keys");
    let first = claude("user", "u-0", None, r#""message":{"role":"user","content":"go"}"#);
    let calls = (0..n).map(|k| {
        let parent = if k == 0 { "u-0".to_string() } else { format!("a-{}", k - 1) };
        let call = format!(r#"{{"type":"tool_use","id":"t-{k}","name":"tool-{k}","input":{{"command":"aws --key {}"}}}}"#, keys[k]);
        let body = format!(
            r#""requestId":"req_1","message":{{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{call}],"usage":{{"input_tokens":1,"output_tokens":1}}}}"#
        );
        claude("assistant", &format!("a-{k}"), Some(&parent), &body)
    });
    let p = lines(dir.path(), "calls.jsonl", std::iter::once(first).chain(calls));
    let audit = run_within(&["audit", "--json", &p]);
    assert_eq!(audit.code, 1, "{}", audit.stderr);
    let found = audit.json()["findings"].as_array().unwrap().clone();
    assert_eq!(found.len(), n);
    for (k, f) in found.iter().enumerate() {
        assert_eq!(
            (&f["line"], &f["entry_id"], &f["tool"]),
            (&serde_json::json!(k + 2), &serde_json::json!("a-0"), &serde_json::json!(format!("tool-{k}"))),
            "{f}"
        );
    }

    let m = 10 * n;
    let keys: Vec<String> =
        (0..m).map(|k| format!("ghp_{}", token((k as u64 + 1) << 32, 36, b"0123456789bcdfghjkBCDFGHJK"))).collect();
    assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), m, "distinct keys");
    let result = format!(
        r#""kind":"message","message":{{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{{"type":"text","text":"{}"}}],"isError":false}}"#,
        keys.join(" ")
    );
    let call = r#""kind":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"env"}}]}"#;
    let p = chain(dir.path(), "result.jsonl", [call.to_string(), result].into_iter());
    let audit = run_within(&["audit", "--json", &p]);
    assert_eq!(audit.code, 1, "{}", audit.stderr);
    let found = audit.json()["findings"].as_array().unwrap().clone();
    assert_eq!(found.len(), m);
    assert!(found.iter().all(|f| f["line"] == 3 && f["tool"] == "bash" && f["role"] == "tool_result"));
}

/// A crab session of 500,000 prompts, then 500,000 runs without one, then a run with one: each
/// run's prompt is the first user message inside it (each run searched the prompts from the
/// first: 200,000 runs took 14 s).
#[test]
fn the_prompts_of_500_000_crab_runs_are_found_in_linear_time() {
    let n = 500_000;
    let dir = tempfile::tempdir().unwrap();
    let ts = 1_793_784_600_000u64;
    let meta = r#"{"kind":"meta","format_version":2,"created":"1793784600000ms"}"#.to_string();
    let user = |id: usize, text: &str| {
        let parent = if id == 1 { "null".to_string() } else { (id - 1).to_string() };
        format!(r#"{{"kind":"message","id":{id},"parent_id":{parent},"message":{{"role":"user","content":"{text}"}}}}"#)
    };
    let obs =
        |run: usize, at: u64, what: &str| format!(r#"{{"kind":"obs","run_id":"r{run}","ts":{at},"obs":"{what}"}}"#);
    let prompts = (1..=n).map(|id| user(id, "earlier"));
    let runs = (0..n).flat_map(|r| [obs(r, ts + r as u64, "turn_start"), obs(r, ts + r as u64, "turn_end")]);
    let last = [obs(n, ts + n as u64, "turn_start"), user(n + 1, "the last prompt"), obs(n, ts + n as u64, "turn_end")];
    let p = lines(dir.path(), "runs.jsonl", std::iter::once(meta).chain(prompts).chain(runs).chain(last));
    let trace = run_within(&["trace", "--json", &p]);
    assert_eq!(trace.code, 0, "{}", trace.stderr);
    let doc = trace.json();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), n + 1);
    assert!(runs[..n].iter().all(|r| r["prompt"].is_null()), "no prompt inside the first runs");
    assert_eq!(runs[n]["prompt"], "the last prompt");
    assert_eq!(runs[n]["run_id"], format!("r{n}"));
}

// ---------------------------------------------------------------------------------------
// Codex rollouts (FORMATS-REAL.md section 3): a rollback reattaches to the parent of the
// first turn it drops, and an abort marks the turn's latest assistant entry, each found
// back along the current branch.

/// A Codex rollout: `session_meta`, then each `(type, payload)` as a line.
fn rollout(dir: &Path, name: &str, records: impl Iterator<Item = (&'static str, String)>) -> String {
    use std::io::Write;
    let path = dir.join(name);
    let mut w = BufWriter::new(File::create(&path).unwrap());
    let meta = r#"{"id":"thread-linear","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w","model_provider":"openai"}"#;
    for (ty, payload) in std::iter::once(("session_meta", meta.to_string())).chain(records) {
        writeln!(w, r#"{{"timestamp":"2026-03-01T09:00:00.000Z","type":"{ty}","payload":{payload}}}"#).unwrap();
    }
    w.flush().unwrap();
    path.to_str().unwrap().to_string()
}

/// A typed prompt: the user item and its `user_message` echo (two lines, one entry).
fn typed(text: &str) -> [(&'static str, String); 2] {
    [
        (
            "response_item",
            format!(r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#),
        ),
        ("event_msg", format!(r#"{{"type":"user_message","message":"{text}"}}"#)),
    ]
}

fn answer(text: &str) -> (&'static str, String) {
    (
        "response_item",
        format!(r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#),
    )
}

/// A base turn, then 250,000 turns each answered and rolled back, then a last turn: every
/// dropped turn stays as a branch off the base turn's answer, and the last turn attaches
/// there too. (The first dropped turn's parent was searched for by id, back over every
/// abandoned branch: 200,000 rollbacks took `check` 100 s in a release build.)
#[test]
fn a_quarter_million_rollbacks_reattach_in_linear_time() {
    let k = 250_000u64;
    let dir = tempfile::tempdir().unwrap();
    // Lines: 1 session_meta; 2-4 the base turn (prompt L2, echo, answer L4); from 5, four
    // per dropped turn (prompt, echo, answer, rollback); the last turn's prompt and answer.
    let dropped = (0..k).flat_map(|i| {
        let rollback = ("event_msg", r#"{"type":"thread_rolled_back","num_turns":1}"#.to_string());
        typed(&format!("try {i}")).into_iter().chain([answer(&format!("answer {i}")), rollback])
    });
    let records =
        typed("base").into_iter().chain([answer("ok")]).chain(dropped).chain(typed("last")).chain([answer("done")]);
    let p = rollout(dir.path(), "rollbacks.jsonl", records);
    let (last_prompt, last_answer) = (5 + 4 * k, 7 + 4 * k);

    let check = run_within(&["check", "--json", &p]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let doc = check.json();
    assert_eq!(doc["entries"], 2 * k + 4);
    assert_eq!(doc["findings"], serde_json::json!([]));

    let path = run_within(&["path", "--json", &p]);
    assert_eq!(path.code, 0, "{}", path.stderr);
    let ids: Vec<String> =
        path.json()["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["L2".to_string(), "L4".into(), format!("L{last_prompt}"), format!("L{last_answer}")]);

    // A leaf per dropped turn (its answer, three levels down), and the last answer.
    let leaves = run_within(&["leaves", "--json", &p]);
    assert_eq!(leaves.code, 0, "{}", leaves.stderr);
    let doc = leaves.json();
    assert_eq!(doc["latest"], format!("L{last_answer}").as_str());
    let leaves = doc["leaves"].as_array().unwrap();
    assert_eq!(leaves.len() as u64, k + 1);
    assert!(leaves.iter().all(|l| l["depth"] == 3 && l["role"] == "assistant"));
    assert_eq!(leaves[0]["id"], "L7");
    assert_eq!(leaves[k as usize - 1]["id"], format!("L{}", 7 + 4 * (k - 1)).as_str());
}

/// One turn whose request calls 150,000 tools, each output followed by a `turn_aborted`,
/// then a typed turn with no request, aborted too: every abort in the first turn marks its
/// one request, the last marks nothing (its turn has no assistant entry). (The request was
/// found by walking back from each abort to the turn's start: 120,000 aborts took `check`
/// 84 s in a release build.)
#[test]
fn a_turn_of_150_000_aborts_marks_its_request_in_linear_time() {
    let k = 150_000u64;
    let dir = tempfile::tempdir().unwrap();
    let aborted = || ("event_msg", r#"{"type":"turn_aborted","reason":"interrupted"}"#.to_string());
    // Lines: 1 session_meta; 2-3 the prompt (L2) and its echo; 4 to 3 + k the calls, one
    // request (L4); then each output (L(4 + k + 2i)) and an abort; the next prompt, its echo,
    // an abort.
    let calls = (0..k).map(|i| {
        let call = r#""type":"function_call","name":"exec_command","arguments":"{}""#;
        ("response_item", format!(r#"{{{call},"call_id":"call_{i}"}}"#))
    });
    let outputs = (0..k).flat_map(|i| {
        let output =
            format!(r#"{{"type":"function_call_output","call_id":"call_{i}","output":"Process exited with code 0"}}"#);
        [("response_item", output), aborted()]
    });
    let records = typed("go").into_iter().chain(calls).chain(outputs).chain(typed("next")).chain([aborted()]);
    let p = rollout(dir.path(), "aborts.jsonl", records);
    let next = 4 + 3 * k;

    let check = run_within(&["check", "--json", &p]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let doc = check.json();
    assert_eq!(doc["entries"], k + 3);
    assert_eq!(doc["findings"], serde_json::json!([]));

    // One model call, the request, marked aborted.
    let calls = run_within(&["rows", "--table", "calls", &p]);
    assert_eq!(calls.code, 0, "{}", calls.stderr);
    let rows: Vec<Value> = calls.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!((&rows[0]["entry_id"], &rows[0]["stop_reason"]), (&"L4".into(), &"aborted".into()));

    // The first run is interrupted with all its tool calls; the second has nothing to mark.
    let trace = run_within(&["trace", "--json", &p]);
    assert_eq!(trace.code, 0, "{}", trace.stderr);
    let doc = trace.json();
    assert_eq!(doc["leaf"], format!("L{next}").as_str());
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (&runs[0]["status"], &runs[0]["llm_calls"], &runs[0]["tool_calls"]),
        (&"interrupted".into(), &1.into(), &k.into())
    );
    assert_eq!(
        (&runs[1]["run_id"], &runs[1]["stop_reason"], &runs[1]["llm_calls"]),
        (&format!("L{next}").into(), &Value::Null, &0.into())
    );
}

// ---------------------------------------------------------------------------------------
// `diff`'s alignment of retried prompts, and the Markdown export's escaping of raw HTML:
// texts built so that a step per prompt or per line turns quadratic.

/// The header, then `(id, parent, body)` as lines (arcturn).
fn tree(dir: &Path, name: &str, entries: impl Iterator<Item = (String, Option<String>, String)>) -> String {
    use std::io::Write;
    let path = dir.join(name);
    let mut w = BufWriter::new(File::create(&path).unwrap());
    writeln!(
        w,
        r#"{{"kind":"session","version":1,"id":"s-tree","timestamp":"2026-11-02T09:14:03.463Z","cwd":"/tmp"}}"#
    )
    .unwrap();
    for (id, parent, body) in entries {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        writeln!(w, r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-11-02T09:16:20.530Z",{body}}}"#).unwrap();
    }
    w.flush().unwrap();
    path.to_str().unwrap().to_string()
}

/// A root prompt, then branch A of 700,000 prompts that all read "again", then branch B of
/// 700,001 more from the same root: `diff` pairs A's k-th prompt with B's k-th, in order,
/// and B's last sits alone at the end. (Above its table's limit the alignment searched the
/// list of B's "again" prompts from its start for each of A's: 200,000 a side took 6 s in
/// a release build, these more than 70 s.)
#[test]
fn two_branches_of_700_000_equal_prompts_align_in_linear_time() {
    let k = 700_000;
    let dir = tempfile::tempdir().unwrap();
    let prompt = |text: &str| format!(r#""kind":"message","message":{{"role":"user","content":"{text}"}}"#);
    let branch = |side: char, n: usize| {
        (0..n).map(move |i| {
            let parent = if i == 0 { "root".to_string() } else { format!("{side}{}", i - 1) };
            (format!("{side}{i}"), Some(parent), prompt("again"))
        })
    };
    let root = std::iter::once(("root".to_string(), None, prompt("start")));
    let p = tree(dir.path(), "retried.jsonl", root.chain(branch('a', k)).chain(branch('b', k + 1)));

    let out = run_within(&["diff", "--json", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_eq!((doc["relation"].as_str(), doc["ancestor"].as_str()), (Some("forked"), Some("root")));
    assert_eq!(doc["a"]["leaf"], format!("a{}", k - 1).as_str());
    assert_eq!(doc["b"]["leaf"], format!("b{k}").as_str());
    assert_eq!(doc["a"]["entries"].as_array().unwrap().len(), k);
    assert_eq!(doc["b"]["entries"].as_array().unwrap().len(), k + 1);
    let rows = doc["aligned"].as_array().unwrap();
    assert_eq!(rows.len(), k + 1);
    for (i, r) in rows[..k].iter().enumerate() {
        assert!(r["a"] == format!("a{i}").as_str() && r["b"] == format!("b{i}").as_str(), "row {i}: {r}");
        assert_eq!(r["same_prompt"], true, "row {i}");
    }
    assert_eq!(
        (&rows[k]["a"], &rows[k]["b"], &rows[k]["same_prompt"]),
        (&Value::Null, &format!("b{k}").into(), &false.into())
    );

    let text = run_within(&["diff", "--color", "never", &p]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_eq!(text.stdout.lines().filter(|l| l.contains(" = ")).count(), k, "a `=` row per pair");
}

/// Eight messages, each 400,000 lines of `<div>`: the Markdown export escapes every line,
/// so none reaches the Markdown as live HTML and each shows as the text it is. (Escaping
/// the first `<div>` made the next line a block of its own, one full parse per line up to
/// 64 and then escaping every punctuation mark: these took 17 s of CPU in a release
/// build, more than 50 s on a busy machine; `--html` took 0.3 s.)
#[test]
fn messages_of_400_000_html_block_lines_export_to_markdown_in_linear_time() {
    use pulldown_cmark::{Event, Parser};
    let (messages, lines) = (8, 400_000);
    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string(&"<div>\n".repeat(lines)).unwrap();
    let bodies = (0..messages).map(|i| {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        format!(r#""kind":"message","message":{{"role":"{role}","content":{text}}}"#)
    });
    let p = chain(dir.path(), "divs.jsonl", bodies);
    let out = run_within(&["export", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let md = &out.stdout;
    // Each line of each message is escaped where it opens, and kept as written.
    assert_eq!(md.lines().filter(|l| *l == "\\<div>").count(), messages * lines);
    let live: Vec<String> = Parser::new(md)
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(h.to_string()),
            _ => None,
        })
        .take(3)
        .collect();
    assert!(live.is_empty(), "{live:?}");
    let shown = Parser::new(md).filter(|e| matches!(e, Event::Text(t) if &**t == "<div>")).count();
    assert_eq!(shown, messages * lines, "each `<div>` renders as text");
}
