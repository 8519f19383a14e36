//! The fuzz targets' properties (fuzz/src/lib.rs), replayed on every committed input: the
//! findings kept under `fuzz/regressions/<target>/` and the fuzzers' seeds (the bundled
//! sessions, `fuzz/seeds/`). A fuzz run needs nightly and minutes; this needs neither, so
//! a finding once fixed stays fixed in `cargo test`.

#[path = "../fuzz/src/lib.rs"]
mod props;

use std::path::{Path, PathBuf};

fn files(dirs: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(root.join(d)) else { continue };
        out.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
    }
    out.sort();
    out
}

fn replay(target: &str, seeds: &[&str], check: fn(&[u8])) {
    let regressions = format!("fuzz/regressions/{target}");
    let mut dirs = vec![regressions.as_str()];
    dirs.extend_from_slice(seeds);
    let all = files(&dirs);
    assert!(!all.is_empty(), "{target}: no input to replay");
    for f in all {
        let data = std::fs::read(&f).unwrap();
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            panic!("{target}: the property fails on {}", f.display());
        }
    }
}

const SESSIONS: &[&str] = &[
    "testdata/arcturn",
    "testdata/crab",
    "testdata/pi",
    "testdata/export",
    "testdata/hostile",
    "testdata/stats",
    "testdata/query",
];

#[test]
fn skimmer_agrees_with_serde_json_on_every_kept_input() {
    // Whole files are single documents only when they hold one line; every line counts too.
    replay("skim", SESSIONS, props::skim_agrees);
    for f in files(SESSIONS) {
        for line in std::fs::read(&f).unwrap().split(|&b| b == b'\n') {
            props::skim_agrees(line);
        }
    }
    // Strings whose units the skimmer counts: every kind of character and escape, at lengths
    // on both sides of its 16- and 64-byte blocks.
    let piece = r#"aé€😀\n\"\\\u00e9\ud83d\ude00\/"#;
    for n in 0..40 {
        for cut in [0, 5, 17] {
            let body = format!("{}{}", &"x".repeat(cut), piece.repeat(n));
            props::skim_agrees(format!("\"{body}\"").as_bytes());
            props::skim_agrees(format!(r#"{{"a":[{{"b":"{body}"}}],"c":"{body}"}}"#).as_bytes());
        }
    }
}

#[test]
fn tree_index_is_a_forest_over_every_kept_input() {
    replay("tree", SESSIONS, props::tree_holds);
}

#[test]
fn exports_are_inert_for_every_kept_input() {
    replay("export", SESSIONS, props::export_is_inert);
}

#[test]
fn queries_run_to_an_end_on_every_kept_input() {
    replay("query", &["fuzz/seeds/query"], props::query_runs);
}

#[test]
fn the_markup_check_refuses_live_markup() {
    let refused = |html: &str| std::panic::catch_unwind(|| props::assert_html_inert(html, false)).is_err();
    assert!(!refused("<p>a &lt;script&gt; <a href=\"https://x.example/\">x</a> <a href=\"#e-1\">1</a></p>"));
    for live in [
        "<script>alert(1)</script>",
        "<p onclick=\"x\">a</p>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<a href=\" JAVASCRIPT:alert(1)\">x</a>",
        "<a href=\"data:text/html,x\">x</a>",
        "<img src=\"data:text/html;base64,PHNjcmlwdD4=\">",
        "<img src=\"https://evil.example/p.png\">",
        "<iframe srcdoc=\"x\"></iframe>",
        "<p>\u{1b}[31m</p>",
        "<p>\u{202e}</p>",
        "<!-- x -->",
    ] {
        assert!(refused(live), "{live:?} passed the check");
    }
}
