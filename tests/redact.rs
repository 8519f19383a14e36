//! `redact FILE -o OUT` and `export --redact`: the copy keeps every line (count, order,
//! bytes outside the secrets), stays valid JSON of the same format, audits clean; the
//! input is never written; transcripts hold no secret.

mod planted;
mod support;

use std::fs;
use std::path::{Path, PathBuf};

use planted::{plant_into, plants, FORMATS};
use support::{code, run, stderr, stdout};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).expect("write");
    p
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn secrets_of(seed: u64) -> Vec<String> {
    plants(seed).into_iter().map(|p| p.secret).collect()
}

fn leaks<'a>(text: &str, secrets: &'a [String]) -> Vec<&'a str> {
    secrets
        .iter()
        .map(|s| s.lines().nth(1).filter(|l| l.len() > 20).unwrap_or(s))
        .filter(|probe| text.contains(probe))
        .collect()
}

#[test]
fn redacted_copies_audit_clean_and_keep_every_other_byte_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (fmt, file) in FORMATS {
        let ps = plants(21);
        let texts: Vec<String> = ps.iter().map(|p| p.text.clone()).collect();
        let (text, lines) = plant_into(file, &texts);
        let input = write(dir.path(), &format!("{fmt}.jsonl"), &text);
        let out = dir.path().join(format!("{fmt}.redacted.jsonl"));
        let o = run(&["redact", s(&input), "-o", s(&out)]);
        assert_eq!(code(&o), 0, "{fmt}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("{} secrets redacted", ps.len())), "{}", stderr(&o));
        assert_eq!(fs::read_to_string(&input).unwrap(), text, "{fmt}: the input changed");
        let red = fs::read_to_string(&out).unwrap();
        assert_eq!(leaks(&red, &secrets_of(21)), Vec::<&str>::new(), "{fmt}");
        // Same lines; untouched lines byte for byte; touched lines valid JSON with the
        // same keys.
        let (a, b): (Vec<&str>, Vec<&str>) = (text.split('\n').collect(), red.split('\n').collect());
        assert_eq!(a.len(), b.len(), "{fmt}: line count");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            if lines.contains(&(i as u32 + 1)) {
                let vx: serde_json::Value = serde_json::from_str(x).unwrap();
                let vy: serde_json::Value = serde_json::from_str(y).unwrap_or_else(|e| panic!("{fmt}:{}: {e}", i + 1));
                assert_eq!(keys(&vx), keys(&vy), "{fmt}:{}", i + 1);
                assert!(y.contains("[REDACTED:"), "{fmt}:{}", i + 1);
            } else {
                assert_eq!(x, y, "{fmt}:{}: a line without secrets changed", i + 1);
            }
        }
        let o = run(&["audit", s(&out)]);
        assert_eq!(code(&o), 0, "{fmt}: {}", stdout(&o));
        // Still a session of the same format, as sound as the input.
        let check = |p: &Path| {
            let o = run(&["check", "--json", s(p)]);
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            (code(&o), v["format"].clone(), v["entries"].clone())
        };
        assert_eq!(check(&input), check(&out), "{fmt}");
    }
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, p: String, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| walk(x, format!("{p}.{k}"), out)),
            serde_json::Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| walk(x, format!("{p}[{i}]"), out)),
            _ => out.push(p),
        }
    }
    walk(v, String::new(), &mut out);
    out
}

#[test]
fn a_secret_written_with_escapes_is_redacted_whole() {
    let dir = tempfile::tempdir().unwrap();
    let k = ["gh", "p_", &planted::body(5, 36, planted::ALNUM)].concat();
    // `g` as \u0067 and a slash-escaped URL password around it.
    let escaped = format!("\\u0067{}", &k[1..]);
    let p = planted::body(6, 16, planted::ALNUM);
    let text = format!(
        "{{\"kind\":\"session\",\"version\":1,\"id\":\"s1\",\"createdAt\":1}}\n{{\"kind\":\"message\",\"id\":\"a1\",\"parentId\":null,\"message\":{{\"role\":\"user\",\"content\":\"x\\n{escaped} and https:\\/\\/u:{p}@h\\/x \\u00e9\"}}}}\n"
    );
    let input = write(dir.path(), "e.jsonl", &text);
    let out = dir.path().join("e.out.jsonl");
    let o = run(&["redact", s(&input), "-o", s(&out)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let red = fs::read_to_string(&out).unwrap();
    let line: serde_json::Value = serde_json::from_str(red.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        line["message"]["content"], "x\n[REDACTED:github_token] and https://u:[REDACTED:url_password]@h/x é",
        "{red}"
    );
    // Bytes outside the secrets kept as written (escapes included).
    assert!(
        red.contains("\"x\\n[REDACTED:github_token] and https:\\/\\/u:[REDACTED:url_password]@h\\/x \\u00e9\""),
        "{red}"
    );
}

#[test]
fn damaged_lines_are_redacted_in_their_raw_text() {
    let dir = tempfile::tempdir().unwrap();
    let k = ["np", "m_", &planted::body(8, 36, planted::ALNUM)].concat();
    let base = fs::read_to_string("testdata/crab/basic.jsonl").unwrap();
    let text = format!("{base}{{\"kind\":\"message\",\"text\":\"{k}");
    let input = write(dir.path(), "t.jsonl", &text);
    let out = dir.path().join("t.out.jsonl");
    assert_eq!(code(&run(&["redact", s(&input), "-o", s(&out)])), 0);
    let red = fs::read_to_string(&out).unwrap();
    assert!(red.ends_with("{\"kind\":\"message\",\"text\":\"[REDACTED:npm_token]"), "{red}");
    assert!(red.starts_with(&base));
}

#[test]
fn redact_refuses_to_write_over_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let (text, _) = plant_into(FORMATS[0].1, &[plants(3)[6].text.clone()]);
    let input = write(dir.path(), "in.jsonl", &text);
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = dir.path().join("hard.jsonl");
    fs::hard_link(&input, &hard).unwrap();
    let dotted = format!("{}/./in.jsonl", s(dir.path()));
    for out in [s(&input), s(&link), s(&hard), dotted.as_str()] {
        for force in [false, true] {
            let mut args = vec!["redact", s(&input), "-o", out];
            if force {
                args.push("--force");
            }
            let o = run(&args);
            assert_eq!(code(&o), 2, "{args:?}");
            assert!(stderr(&o).contains("refusing to write"), "{args:?}: {}", stderr(&o));
            assert_eq!(fs::read_to_string(&input).unwrap(), text, "{args:?}: the input changed");
        }
    }
    // An existing other file: only with --force.
    let other = write(dir.path(), "other.jsonl", "keep\n");
    let o = run(&["redact", s(&input), "-o", s(&other)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&other).unwrap(), "keep\n");
    let o = run(&["redact", "--force", s(&input), "-o", s(&other)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(fs::read_to_string(&other).unwrap().contains("[REDACTED:github_token]"));
    // No temporary file left behind.
    let names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn export_redact_leaves_no_secret_in_markdown_or_html() {
    let dir = tempfile::tempdir().unwrap();
    for (fmt, file) in FORMATS {
        let ps = plants(31);
        let texts: Vec<String> = ps.iter().map(|p| p.text.clone()).collect();
        let (text, _) = plant_into(file, &texts);
        let input = write(dir.path(), &format!("{fmt}.jsonl"), &text);
        let secrets = secrets_of(31);
        for html in [false, true] {
            let mut args = vec!["export", "--thinking", s(&input)];
            if html {
                args.insert(1, "--html");
            }
            // Without --redact the transcript shows secrets (the check below can fail).
            let plain = run(&args);
            assert!(!leaks(&stdout(&plain), &secrets).is_empty(), "{fmt} html={html}: nothing planted on the path");
            args.insert(1, "--redact");
            let o = run(&args);
            assert!(code(&o) == 0, "{fmt} html={html}: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(leaks(&out, &secrets), Vec::<&str>::new(), "{fmt} html={html}");
            assert_eq!(leaks(&stderr(&o), &secrets), Vec::<&str>::new(), "{fmt} html={html}");
            assert!(out.contains("[REDACTED:"), "{fmt} html={html}");
        }
    }
}
