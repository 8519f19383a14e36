//! Big files are decoded in chunks on all threads and put back together in file order. The
//! answer must not depend on how a file was cut: line numbers, findings (folded warnings,
//! the header rule, the torn-tail rule), entries, tool pairing and the tree are compared
//! between one thread (one chunk) and several, on a generated session damaged all over.

mod common;
mod gen;

use std::process::Stdio;

use common::cmd;
use gen::real::Agent;

/// A ~12 MiB session (three times the size below which a file is decoded on one thread)
/// with damage spread through it. Returns the file and the 1-based lines that were damaged,
/// with the finding each must cause, or `paired` for a tool use that has its partner lines
/// or chunks away (a result before its call, a call id named again far later) and must
/// cause none.
fn damaged_session(dir: &std::path::Path) -> (std::path::PathBuf, Vec<(usize, &'static str)>) {
    let mut buf = Vec::new();
    gen::arcturn_session(&mut buf, 12 << 20, 7).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len();
    let mut damage = Vec::new();
    let call = |id: &str, call: &str| {
        format!(
            r#"{{"kind":"message","id":"{id}","parentId":null,"timestamp":1,"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"{call}","name":"bash","arguments":{{}}}}],"stopReason":"toolUse"}}}}"#
        )
    };
    let result = |id: &str, call: &str| {
        format!(
            r#"{{"kind":"message","id":"{id}","parentId":null,"timestamp":1,"message":{{"role":"toolResult","toolCallId":"{call}","toolName":"bash","content":[],"isError":false}}}}"#
        )
    };
    // A call id the generated session pairs early on, named again by a result near the end.
    let early = text.split(r#""toolCallId":""#).nth(1).and_then(|r| r.split('"').next()).unwrap().to_string();
    let (call_far, result_far) = (call("far-c", "call_far"), result("far-r", "call_far"));
    let (result_first, call_later) = (result("first-r", "call_first"), call("later-c", "call_first"));
    let (lone_call, lone_result) = (call("lone-c", "call_lone"), result("lone-r", "call_nobody"));
    let again = result("again-r", &early);
    // (position as a fraction of the file, line to insert, the finding it must cause), in
    // file order: each insertion lands after the earlier ones, so every recorded line
    // number stays exact.
    let edits: [(f64, &str, &'static str); 14] = [
        (0.02, &call_far, "paired"),
        (0.03, &result_first, "paired"),
        (0.04, &lone_call, "tool_call_without_result"),
        (0.05, r#"{"kind":"label","id":"sur","parentId":null,"timestamp":1,"label":"cut \ud83d"}"#, "lone_surrogate"),
        (0.21, "{\"kind\":\"message\",\"id\":\"ctl\",\"parentId\":null,\"timestamp\":1,\"message\":{\"role\":\"user\",\"content\":\"a\u{1}b\"}}", "corrupt_line"),
        (0.33, "", "blank_lines"),
        (0.47, r#"{"kind":"hologram","id":"h1","parentId":null,"timestamp":1}"#, "unknown_kind"),
        (0.64, r#"{"kind":"session","id":"s-again","timestamp":"2026-01-01T00:00:00Z"}"#, "misplaced_header"),
        (0.81, "", "blank_lines"),
        (0.93, "{\"kind\":\"message\",\"id\":\"broken\"", "corrupt_line"),
        (0.94, &lone_result, "tool_result_without_call"),
        (0.95, &result_far, "paired"),
        (0.96, &call_later, "paired"),
        (0.97, &again, "paired"),
    ];
    for (at, line, code) in edits {
        let i = (n as f64 * at) as usize;
        lines.insert(i, line.to_string());
        damage.push((i + 1, code));
    }
    let mut body = lines.join("\n");
    body.push('\n');
    body.push_str(r#"{"kind":"message","id":"torn","parentId":nu"#);
    let path = dir.join("damaged.jsonl");
    std::fs::write(&path, body).unwrap();
    (path, damage)
}

fn run_with_threads(threads: &str, args: &[&str]) -> (i32, String, String) {
    let o = cmd().env("RAYON_NUM_THREADS", threads).args(args).stdin(Stdio::null()).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn chunked_decode_gives_the_one_thread_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (path, damage) = damaged_session(dir.path());
    let file = path.to_str().unwrap();
    for args in [
        vec!["check", "--json", file],
        vec!["tree", "--json", file],
        vec!["leaves", "--json", file],
        vec!["stats", "--json", file],
    ] {
        let one = run_with_threads("1", &args);
        for threads in ["2", "3"] {
            let many = run_with_threads(threads, &args);
            assert_eq!(one, many, "{args:?} differs between 1 and {threads} threads");
        }
    }

    let (code, out, _) = run_with_threads("2", &["check", "--json", file]);
    assert_eq!(code, 1, "corrupt lines are errors");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let has = |line: usize, code: &str| {
        findings.iter().any(|f| {
            f["code"] == code
                && (f["line"] == line as u64 || f["message"].as_str().is_some_and(|m| m.contains(&format!(" {line}"))))
        })
    };
    let about_a_tool = |line: usize| {
        findings.iter().any(|f| f["line"] == line as u64 && f["code"].as_str().is_some_and(|c| c.starts_with("tool_")))
    };
    for (line, code) in &damage {
        match *code {
            "paired" => assert!(!about_a_tool(*line), "line {line} has its partner: {findings:#?}"),
            _ => assert!(has(*line, code), "no {code} at line {line}: {findings:#?}"),
        }
    }
    let last = report["lines"].as_u64().unwrap() as usize;
    assert!(has(last, "torn_last_line"), "the torn tail is line {last}");
}

/// Files decoded side by side (`stats DIR`), each big enough to be cut into chunks: the
/// chunks must still find a worker. This hung once, so the child gets a deadline.
#[test]
fn big_files_side_by_side_do_not_wait_on_each_other() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=3 {
        let mut buf = Vec::new();
        gen::arcturn_session(&mut buf, 5 << 20, seed).unwrap();
        std::fs::write(dir.path().join(format!("s{seed}.jsonl")), buf).unwrap();
    }
    let dir_arg = dir.path().to_str().unwrap();
    let run = |threads: &str| {
        let mut child = cmd()
            .env("RAYON_NUM_THREADS", threads)
            .args(["stats", "--json", dir_arg])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("`stats --json DIR` on {threads} threads did not finish in 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let two = run("2");
    let doc: serde_json::Value = serde_json::from_str(&two).unwrap();
    assert_eq!(doc["sessions"].as_array().map(Vec::len), Some(3), "{two}");
    assert_eq!(run("1"), two, "the answer depends on the thread count");
}

/// pi, Claude Code and Codex files are stitched by a file-level pass (Codex's is fed part by
/// part while the later parts are still decoding): the answer must not depend on how the
/// file was cut either.
#[test]
fn stitched_formats_give_the_one_thread_answer() {
    let dir = tempfile::tempdir().unwrap();
    for agent in [Agent::Pi, Agent::Claude, Agent::Codex] {
        let mut buf = Vec::new();
        gen::real::session(agent, &mut buf, 12 << 20, 11).unwrap();
        let path = dir.path().join(format!("{}.jsonl", agent.name()));
        std::fs::write(&path, buf).unwrap();
        let file = path.to_str().unwrap();
        for args in [
            vec!["check", "--json", file],
            vec!["tree", "--json", file],
            vec!["stats", "--json", file],
            vec!["trace", "--json", file],
        ] {
            let one = run_with_threads("1", &args);
            assert_eq!(one.0, 0, "{args:?} on {}: {}", agent.name(), one.2);
            let doc: serde_json::Value = serde_json::from_str(&one.1).unwrap();
            let format = doc.get("sessions").map_or(&doc["format"], |s| &s[0]["format"]);
            assert_eq!(format, agent.name(), "{args:?}");
            for threads in ["2", "3"] {
                let many = run_with_threads(threads, &args);
                assert_eq!(one, many, "{args:?} on {} differs between 1 and {threads} threads", agent.name());
            }
        }
    }
}
