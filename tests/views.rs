//! Views as data: the `tree`, `path` and `leaves` view values checked against what the
//! files say (an independent, naive reading), no escape sequence anywhere in them even for
//! hostile input, and colour that only ever adds SGR sequences around the same text.

mod common;

use std::collections::HashMap;

use arcturn_inspect::render::{self, json, lines, Palette};
use arcturn_inspect::session::Session;
use arcturn_inspect::source::{ReadOptions, Source};
use arcturn_inspect::view::leaves::LeavesView;
use arcturn_inspect::view::path::PathView;
use arcturn_inspect::view::tree::{Row, TreeView};
use arcturn_inspect::view::{Fit, Line, Style};
use common::{all_testdata, real_files, root, run};
use serde_json::Value;

fn open(rel: &str) -> Source {
    Source::open(&root().join(rel), ReadOptions::default()).unwrap()
}

/// Entries of an arcturn file as written: (id, parent, kind), in file order.
fn written(rel: &str) -> Vec<(String, Option<String>, String)> {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] != "session")
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v["parentId"].as_str().map(str::to_string),
                v["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The root-first path to the last entry, by following parents as written.
fn path_to_last(entries: &[(String, Option<String>, String)]) -> Vec<String> {
    let parent: HashMap<&str, Option<&str>> = entries.iter().map(|(i, p, _)| (i.as_str(), p.as_deref())).collect();
    let mut at = Some(entries.last().unwrap().0.as_str());
    let mut path = Vec::new();
    while let Some(i) = at {
        path.push(i.to_string());
        at = parent[i];
    }
    path.reverse();
    path
}

/// Pre-order over the written tree, children in file order: the order people read.
fn preorder(entries: &[(String, Option<String>, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<&str> = entries.iter().filter(|e| e.1.is_none()).map(|e| e.0.as_str()).rev().collect();
    while let Some(i) = stack.pop() {
        out.push(i.to_string());
        let kids: Vec<&str> = entries.iter().filter(|e| e.1.as_deref() == Some(i)).map(|e| e.0.as_str()).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

const BRANCHED: &str = "testdata/arcturn/branched.jsonl";

#[test]
fn tree_view_marks_the_path_to_the_latest_entry_and_indents_at_branch_points() {
    let src = open(BRANCHED);
    let s = Session::load(&src, None).unwrap();
    let view = TreeView::of(&s, true, None);
    let entries = written(BRANCHED);
    let on_path = path_to_last(&entries);
    let id_of = |node: u32| view.node(node).id.text().into_owned();

    // A row per entry, in pre-order; no other rows (one root, nothing collapsed).
    let shown: Vec<(String, bool, bool, String)> = view
        .rows
        .iter()
        .map(|r| match r {
            Row::Entry { node, connectors, on_path, latest } => {
                (id_of(*node), *on_path, *latest, connectors.innermost(connectors.depth()))
            }
            other => panic!("unexpected row {other:?}"),
        })
        .collect();
    assert_eq!(shown.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), preorder(&entries));
    for (id, marked, latest, _) in &shown {
        assert_eq!(*marked, on_path.contains(id), "{id}: on the path to the latest iff marked");
        assert_eq!(*latest, id == &entries.last().unwrap().0, "{id}: only the last entry is the latest");
    }
    // 1c5da707 has two children (d44ba293, then 2f1e271c); d0f41976, on the first branch,
    // has e444edcc then c107d305: the first child of each gets ├─, the last └─, and rows
    // under a non-last child keep │ in its column.
    let connectors: HashMap<&str, &str> = shown.iter().map(|r| (r.0.as_str(), r.3.as_str())).collect();
    assert_eq!(connectors["156393d8"], "");
    assert_eq!(connectors["1c5da707"], "");
    assert_eq!(connectors["d44ba293"], "├─ ");
    assert_eq!(connectors["2f1e271c"], "└─ ");
    assert_eq!(connectors["08a74b39"], "│  ");
    assert_eq!(connectors["e444edcc"], "│  ├─ ");
    assert_eq!(connectors["c107d305"], "│  └─ ");
    assert_eq!(connectors["49510ee3"], "│     ");
    assert_eq!(connectors["9bb92ab2"], "   ");

    // Depth is the number of ancestors, as written.
    let parent: HashMap<&str, Option<&str>> = entries.iter().map(|(i, p, _)| (i.as_str(), p.as_deref())).collect();
    for n in view.nodes() {
        let (mut d, mut at) = (0, parent[n.id.text().into_owned().as_str()]);
        while let Some(p) = at {
            d += 1;
            at = parent[p];
        }
        assert_eq!(n.depth, d, "{}", n.id);
    }
    assert_eq!(view.nodes().find(|n| n.id.text().into_owned() == "49510ee3").unwrap().depth, on_path.len() as u32 - 1);

    // The lines carry the markers as styled spans: • and ◀ latest only where they belong.
    let lines: Vec<Line> = view.lines().collect();
    assert_eq!(lines.len(), entries.len());
    for (line, (id, marked, latest, _)) in lines.iter().zip(&shown) {
        let has = |text: &str, style: Style| line.spans.iter().any(|sp| sp.text == text && sp.style == style);
        assert_eq!(has("•", Style::Marker), *marked, "{id}: {line:?}");
        assert_eq!(has("◀ latest", Style::Marker), *latest, "{id}: {line:?}");
        assert!(has(id, Style::Id), "{id}: {line:?}");
        // Off the path the preview is dim (unless it is an alert).
        let text = &line.spans[line.spans.len() - 2 - usize::from(*latest)];
        assert!(matches!(text.fit, Fit::Cut { .. }), "{id}: {text:?}");
        if !marked {
            assert!(matches!(text.style, Style::Dim | Style::Error), "{id}: {text:?}");
        }
    }
}

#[test]
fn tree_view_collapse_folds_linear_runs_into_a_count() {
    let src = open(BRANCHED);
    let s = Session::load(&src, None).unwrap();
    let view = TreeView::of(&s, true, Some(3));
    // From the root's child 57c02ebe, fourteen entries run without a branch, compaction or
    // label to the branch point 1c5da707 (lines 3 to 16): the first and last are shown and
    // the twelve between are folded.
    match &view.rows[..4] {
        [Row::Entry { node: a, .. }, Row::Entry { node: b, .. }, Row::Folded { entries, connectors }, Row::Entry { node: c, .. }] =>
        {
            let id = |n: &u32| view.node(*n).id.text().into_owned();
            assert_eq!((id(a), id(b), id(c)), ("156393d8".into(), "57c02ebe".into(), "1c5da707".into()));
            assert_eq!(*entries, 12);
            assert_eq!(connectors.depth(), 0);
        }
        rows => panic!("{rows:?}"),
    }
    let text = lines::render(&view.lines().nth(2).unwrap(), 80, &Palette::plain());
    assert_eq!(text, "┆ ... 12 entries ...");
}

#[test]
fn path_and_leaves_views_follow_the_written_parents() {
    let src = open(BRANCHED);
    let s = Session::load(&src, None).unwrap();
    let entries = written(BRANCHED);
    let path = PathView::of(&s, s.tree.latest(), true);
    let ids: Vec<String> = path.steps().map(|e| e.id.text().into_owned()).collect();
    assert_eq!(ids, path_to_last(&entries));
    assert!(path.steps().enumerate().all(|(d, e)| e.depth == d as u32));
    assert_eq!(path.lines().count(), ids.len());

    // Leaves: entries nobody names as parent, in file order; the last entry is one of them.
    let leaves = LeavesView::of(&s, true);
    let parents: Vec<&str> = entries.iter().filter_map(|e| e.1.as_deref()).collect();
    let tips: Vec<String> = entries.iter().map(|e| e.0.clone()).filter(|i| !parents.contains(&i.as_str())).collect();
    assert_eq!(leaves.leaves.iter().map(|l| l.id.text().into_owned()).collect::<Vec<_>>(), tips);
    let latest: Vec<String> = leaves.leaves.iter().filter(|l| l.latest).map(|l| l.id.text().into_owned()).collect();
    assert_eq!(latest, [entries.last().unwrap().0.clone()]);
    let lines: Vec<Line> = leaves.lines().collect();
    assert_eq!(lines.len(), tips.len() + 1, "a row per leaf and the count");
    assert_eq!(lines.last().unwrap().text(), format!("{} leaves, {} entries", tips.len(), entries.len()));
}

/// Every string of the three views' human form, and their JSON.
fn view_strings(s: &Session<'_>) -> Vec<String> {
    let tree = TreeView::of(s, true, Some(2));
    let path = PathView::of(s, s.tree.latest(), true);
    let leaves = LeavesView::of(s, true);
    let mut out: Vec<String> = Vec::new();
    let texts = tree.texts.iter().chain(&path.texts).chain(&leaves.texts);
    for t in texts {
        out.extend([t.id.clone(), t.label.clone(), t.text.clone(), t.badges.clone()]);
    }
    out.extend(tree.origin.clone());
    for line in tree.lines().chain(path.lines()).chain(leaves.lines()) {
        out.extend(line.spans.into_iter().map(|sp| sp.text.into_owned()));
    }
    // The JSON documents hold ids and labels as written; the JSON renderer escapes them.
    let mut docs = Vec::new();
    tree.write_json(&mut docs).unwrap();
    path.write_json(&mut docs).unwrap();
    json::write(&mut docs, &leaves, false).unwrap();
    out.push(String::from_utf8(docs).unwrap());
    out
}

#[test]
fn no_string_in_a_view_holds_an_escape_even_for_hostile_input() {
    let mut hostile: Vec<String> = all_testdata()
        .into_iter()
        .filter(|f| f.starts_with("testdata/hostile/") || f.ends_with("hostile.jsonl"))
        .collect();
    hostile.sort();
    assert!(hostile.len() >= 3, "{hostile:?}");
    for f in &hostile {
        let src = open(f);
        let s = Session::load(&src, None).unwrap();
        // The files do put escapes in ids and text: the views must have made them visible.
        assert!(std::fs::read(root().join(f)).unwrap().windows(6).any(|w| w == b"\\u001b"), "{f} holds no ESC");
        let strings = view_strings(&s);
        assert!(strings.iter().any(|t| t.contains("\\e[") || t.contains("\\u001b")), "{f}: escapes shown, not dropped");
        for t in &strings {
            for bad in ['\x1b', '\u{9b}', '\u{202e}', '\u{7}'] {
                assert!(!t.contains(bad), "{f}: {bad:?} in a view string: {t:?}");
            }
        }
    }
}

/// `s` with every SGR sequence (`ESC [ params m`) taken out.
fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let params = tail.bytes().take_while(|b| b.is_ascii_digit() || *b == b';').count();
        assert_eq!(tail.as_bytes().get(params), Some(&b'm'), "only colour sequences: {:?}", &rest[at..]);
        rest = &tail[params + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn colour_only_adds_sgr_sequences_around_the_same_text() {
    let mut files = all_testdata();
    files.extend(real_files());
    let mut coloured = 0;
    for f in &files {
        for cmd in [&["tree"][..], &["tree", "--collapse"], &["path"], &["leaves"]] {
            for wide in [false, true] {
                let mut args: Vec<&str> = cmd.to_vec();
                args.push(f);
                if wide {
                    args.push("--wide");
                }
                let never = run(&[&args[..], &["--color", "never"]].concat());
                let always = run(&[&args[..], &["--color", "always"]].concat());
                assert_eq!(never.code, always.code, "{args:?}");
                assert!(!never.stdout.contains('\x1b'), "{args:?}");
                coloured += usize::from(always.stdout.contains("\x1b["));
                assert_eq!(strip_sgr(&always.stdout), never.stdout, "{args:?}");
            }
        }
    }
    assert!(coloured > files.len(), "colour was applied: {coloured} outputs");
}

#[test]
fn rendered_rows_fit_the_width_they_are_given() {
    let src = open(BRANCHED);
    let s = Session::load(&src, None).unwrap();
    let view = TreeView::of(&s, true, None);
    for width in [40, 57, 80, 120] {
        for line in view.lines() {
            let text = lines::render(&line, width, &Palette::plain());
            assert!(render::fit::width(&text) <= width, "{width}: {text}");
        }
    }
}

#[test]
fn path_rows_deeper_than_9999_still_fit_the_width() {
    // The depth column is four wide; a fifth digit used to push the row one column past
    // the width. The row is fitted to what the column really takes.
    let dir = tempfile::tempdir().unwrap();
    let mut b = common::ArcturnBuilder::new();
    let long = "word ".repeat(40);
    b.user("e0", None, &long);
    for i in 1..=10_000 {
        b.user(&format!("e{i}"), Some(&format!("e{}", i - 1)), &long);
    }
    let p = b.write(dir.path(), "deep.jsonl");
    let out = run(&["path", "--color", "never", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(rows.len(), 10_001);
    assert!(rows[10_000].starts_with("10000 e10000 "), "{}", rows[10_000]);
    for r in [rows[9_999], rows[10_000]] {
        assert_eq!(render::fit::width(r), 100, "COLUMNS=100, the text cut to fill it: {r}");
    }
}
