//! `stats` counts each entry as its part of the file is placed and lets the messages go but
//! for those its context estimate reads (`Detail::Counted`). Its figures must be those of a
//! load that keeps every message and counts them once the file is read (`Detail::Tallied`,
//! the way every other view loads), whatever the file and however the load cut it: every
//! bundled and real session, and generated ones cut into many parts, with compactions,
//! context edits and a branch resumed from before the last compaction. The context at every
//! leaf (which reads back the messages let go) must be the same as well.

mod gen;

use std::path::{Path, PathBuf};

use arcturn_inspect::context;
use arcturn_inspect::format::{Detail, Uses};
use arcturn_inspect::model::Kind;
use arcturn_inspect::session::Session;
use arcturn_inspect::source::Source;
use arcturn_inspect::stats::{Counting, Options, SessionStats};
use arcturn_inspect::time::Period;

/// Every `.jsonl` file of the testdata and of the real corpus beside the project (which
/// must be there under `CI=true`).
fn session_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let real = root.join("../shared/real");
    assert!(real.exists() || std::env::var("CI").as_deref() != Ok("true"), "{} is missing (CI=true)", real.display());
    let mut files = Vec::new();
    let mut dirs = vec![root.join("testdata"), real];
    while let Some(dir) = dirs.pop() {
        let Ok(list) = std::fs::read_dir(&dir) else { continue };
        for e in list.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The report of every kind: no window, and a window that starts halfway through the file
/// (so that some calls and results are left out, and undated ones counted), by week.
fn options(mid: Option<i64>) -> Options<'static> {
    match mid {
        None => Options::default(),
        Some(t) => Options { since: Some(t), period: Period::Week, ..Options::default() },
    }
}

/// `stats` of `src` both ways under `opts`, compared (with the rows that `--by` prints);
/// whether the load let messages go, and the statistics.
fn compare(name: &str, src: &Source, opts: &Options<'_>) -> Option<(bool, SessionStats)> {
    let full = Session::load_with(src, None, Detail::Tallied, Uses::Unlisted).ok()?;
    let expected = SessionStats::of(&full, opts);
    let counting = Counting::new(opts);
    let s = Session::load_counted(src, None, Detail::Counted, Uses::Unlisted, Some(&counting)).unwrap();
    let got = counting.stats(&s);
    let json = |st: &SessionStats| serde_json::to_string(st).unwrap();
    assert_eq!(json(&got), json(&expected), "{name}");
    assert_eq!(format!("{:?}", got.periods), format!("{:?}", expected.periods), "{name}");
    let counted = s.detail == Detail::Counted;
    if counted {
        for leaf in full.tree.leaves() {
            let view = |s: &Session<'_>| match context::materialize(s, leaf) {
                Ok(c) => serde_json::to_string(&c).unwrap(),
                Err(e) => e.to_string(),
            };
            assert_eq!(view(&s), view(&full), "{name}: the context at leaf {leaf}");
        }
    }
    Some((counted, got))
}

/// Both windows.
fn compare_all(name: &str, src: &Source) -> bool {
    let Some((counted, st)) = compare(name, src, &options(None)) else { return false };
    if let (Some(a), Some(b)) = (st.first_ms, st.last_ms) {
        compare(name, src, &options(Some(a + (b - a) / 2)));
    }
    counted
}

#[test]
fn every_bundled_and_real_session_counts_the_same_either_way() {
    let (mut files, mut counted) = (0, 0);
    for path in session_files() {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Ok(src) = Source::from_bytes(&path.to_string_lossy(), bytes) else { continue };
        files += 1;
        counted += usize::from(compare_all(&path.to_string_lossy(), &src));
    }
    assert!(files > 40 && counted > 15, "{files} files, {counted} loaded counting");
}

/// The generated session, with a branch resumed from a message before its last compaction
/// appended: the latest leaf's context then needs messages the load let go.
fn resumed_session(bytes: u64, seed: u64) -> String {
    let mut buf = Vec::new();
    gen::arcturn_session(&mut buf, bytes, seed).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.iter().rposition(|l| l.starts_with(r#"{"kind":"compaction""#)).expect("a compaction");
    let id = |l: &str| l.split(r#""id":""#).nth(1).and_then(|r| r.split('"').next()).map(str::to_string);
    let before = lines[..last].iter().rev().filter(|l| l.contains(r#""role":"user""#)).nth(3).expect("a prompt");
    let parent = id(before).unwrap();
    let mut out = text.clone();
    out.push_str(&format!(
        r#"{{"kind":"message","id":"resumed-1","parentId":"{parent}","timestamp":"2026-10-02T08:00:00.000Z","message":{{"role":"user","content":"Go back to the parser instead."}}}}
{{"kind":"message","id":"resumed-2","parentId":"resumed-1","timestamp":"2026-10-02T08:00:05.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"Back to the parser."}}],"provider":"anthropic","model":"claude-haiku-5-5","usage":{{"input":7,"output":11,"cacheRead":1000,"cacheWrite":20,"totalTokens":1038,"cost":{{"input":0.00001,"output":0.0002,"cacheRead":0.0003,"cacheWrite":0.00004,"total":0.00055}}}},"stopReason":"stop"}}}}
"#
    ));
    out
}

#[test]
fn generated_sessions_cut_into_parts_count_the_same_either_way() {
    for (bytes, seed) in [(12 << 20, 7), (6 << 20, 11)] {
        let text = resumed_session(bytes, seed);
        let src = Source::from_bytes("resumed.jsonl", text.into_bytes()).unwrap();
        assert!(compare_all("resumed.jsonl", &src), "the generated session loads counting");
        // The load kept the messages after the last compaction, and let go of most others.
        let opts = options(None);
        let counting = Counting::new(&opts);
        let s = Session::load_counted(&src, None, Detail::Counted, Uses::Unlisted, Some(&counting)).unwrap();
        let last = s.entries.iter().rposition(|e| e.kind() == Kind::Compaction).unwrap();
        let (mut kept, mut after) = (0, 0);
        for (i, e) in s.entries.iter().enumerate() {
            kept += usize::from(e.message.is_some());
            if i > last && s.brief(i as u32).is_some() {
                after += 1;
                assert!(e.message.is_some(), "entry {i}, after the last compaction, kept its message");
            }
        }
        assert_eq!(kept, after, "only the messages after the last compaction are kept");
        assert!(kept * 4 < s.entries.len(), "{kept} of {} entries kept their messages", s.entries.len());
        // The latest branch's context is read back in part: messages after the last
        // compaction on it that the load let go (the file compacted again after them).
        let tip = s.tree.latest().unwrap();
        assert_eq!(s.entry(tip).id.text(), "resumed-2");
        let path = s.tree.path(tip);
        let cut = path.iter().rposition(|&i| s.entry(i).kind() == Kind::Compaction).map_or(0, |c| c + 1);
        let read_back = path[cut..].iter().filter(|&&i| s.brief(i).is_some() && s.entry(i).message.is_none()).count();
        assert!(read_back > 3, "{read_back} messages of the latest context were let go");
    }
}

/// An elided result that does not name its tool is named after its call, in a message the
/// load let go (before the compaction that keeps the result) and read back for it.
#[test]
fn an_elided_result_is_named_after_a_call_the_load_let_go() {
    let lines = [
        r#"{"kind":"session","version":1,"id":"s-named","timestamp":"2026-11-03T10:00:00.000Z","cwd":"/tmp/named"}"#,
        r#"{"kind":"message","id":"u1","parentId":null,"timestamp":"2026-11-03T10:00:01.000Z","message":{"role":"user","content":"find x"}}"#,
        r#"{"kind":"message","id":"a1","parentId":"u1","timestamp":"2026-11-03T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_x","name":"search","arguments":{"q":"x"}}],"stopReason":"toolUse"}}"#,
        r#"{"kind":"message","id":"r1","parentId":"a1","timestamp":"2026-11-03T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_x","content":[{"type":"text","text":"hit"}],"isError":false}}"#,
        r#"{"kind":"message","id":"a2","parentId":"r1","timestamp":"2026-11-03T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"found"}],"stopReason":"stop"}}"#,
        r#"{"kind":"state","id":"st","parentId":"a2","timestamp":"2026-11-03T10:00:05.000Z","contextEdit":{"elided":["call_x"]}}"#,
        r#"{"kind":"message","id":"u2","parentId":"st","timestamp":"2026-11-03T10:00:06.000Z","message":{"role":"user","content":"go on"}}"#,
        r#"{"kind":"compaction","id":"cmp","parentId":"u2","timestamp":"2026-11-03T10:00:07.000Z","summary":"Looked for x.","upToId":"a1"}"#,
        r#"{"kind":"message","id":"a3","parentId":"cmp","timestamp":"2026-11-03T10:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}}"#,
    ];
    let src = Source::from_bytes("named.jsonl", (lines.join("\n") + "\n").into_bytes()).unwrap();
    let opts = options(None);
    let counting = Counting::new(&opts);
    let s = Session::load_counted(&src, None, Detail::Counted, Uses::Unlisted, Some(&counting)).unwrap();
    assert_eq!(s.detail, Detail::Counted);
    let (a1, r1) = (s.find("a1").unwrap(), s.find("r1").unwrap());
    assert!(s.entry(a1).message.is_none() && s.entry(r1).message.is_none(), "let go before the compaction");
    let got = context::materialize(&s, s.find("a3").unwrap()).unwrap();
    let blocks = format!("{:?}", got.messages);
    assert!(blocks.contains(r#"the \"search\" result (3 characters) was elided"#), "{blocks}");
    let full = Session::load_with(&src, None, Detail::Full, Uses::Unlisted).unwrap();
    let want = context::materialize(&full, full.find("a3").unwrap()).unwrap();
    assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap());
    assert_eq!(blocks, format!("{:?}", want.messages));
    assert!(compare_all("named.jsonl", &src));
}

/// A branch whose entries are not in file order (each parent written after its child): the
/// branch's usage finds each reply on it all the same.
#[test]
fn a_branch_out_of_file_order_counts_its_replies() {
    let reply = |id: &str, parent: &str, input: u32| {
        format!(
            r#"{{"kind":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-11-03T10:00:0{input}.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"provider":"anthropic","model":"claude-haiku-5-5","usage":{{"input":{input},"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":{},"cost":{{"total":0.00{input}}}}},"stopReason":"stop"}}}}"#,
            input + 1
        )
    };
    let prompt = |id: &str, parent: Option<&str>| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"kind":"message","id":"{id}","parentId":{parent},"timestamp":"2026-11-03T10:00:00.000Z","message":{{"role":"user","content":"go"}}}}"#
        )
    };
    let lines = [
        r#"{"kind":"session","version":1,"id":"s-order","timestamp":"2026-11-03T10:00:00.000Z","cwd":"/tmp/order"}"#
            .to_string(),
        reply("a1", "u1", 3),
        reply("a2", "u2", 5),
        reply("x1", "u1", 7),
        prompt("u1", None),
        prompt("u2", Some("a1")),
        prompt("u3", Some("a2")),
    ];
    let src = Source::from_bytes("order.jsonl", (lines.join("\n") + "\n").into_bytes()).unwrap();
    assert!(compare_all("order.jsonl", &src));
    let opts = options(None);
    let counting = Counting::new(&opts);
    let s = Session::load_counted(&src, None, Detail::Counted, Uses::Unlisted, Some(&counting)).unwrap();
    let st = counting.stats(&s);
    let usage = st.branch.usage.expect("a branch's usage");
    assert_eq!((usage.calls, usage.input), (2, 8), "a1 and a2 are on the branch, x1 is not");
}
