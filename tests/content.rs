//! A message's content is re-read from only the members of its lines that the format's
//! content function reads (the rest of each line is skipped unparsed). Whatever is skipped,
//! the content must be what the whole line gives: checked for every entry of every bundled
//! and real session.

mod common;

use arcturn_inspect::format;
use arcturn_inspect::model::{Format, ToolSide};
use arcturn_inspect::session::Session;
use arcturn_inspect::source::{ReadOptions, Source};
use common::{all_testdata, real_files, root};

/// The format of `rel` and the entries compared in it, after checking each one's content
/// both ways (none for a file that does not load: the hostile testdata).
fn compare(rel: &str) -> Option<(Format, usize)> {
    let src = Source::open(&root().join(rel), ReadOptions::default()).ok()?;
    let s = Session::load(&src, None).ok()?;
    let table = format::decoder(s.format);
    let mut compared = 0;
    for (i, e) in s.entries.iter().enumerate() {
        let whole: Result<Vec<_>, _> = e.spans().map(|sp| s.value_at(sp)).collect();
        let Ok(whole) = whole else {
            assert!(s.content(i as u32).is_err(), "{rel}:{}: the whole line fails, the members read", e.line);
            continue;
        };
        let expected = (table.content)(e, &whole);
        let got = s.content(i as u32).unwrap_or_else(|err| panic!("{rel}:{}: {err}", e.line));
        assert_eq!(got, expected, "{rel}:{}: content from the members differs from the whole line's", e.line);
        compared += 1;
    }
    Some((s.format, compared))
}

#[test]
fn content_from_members_equals_content_from_whole_lines() {
    let mut files = all_testdata();
    files.extend(real_files());
    let mut per_format = std::collections::BTreeMap::new();
    for (f, n) in files.iter().filter_map(|f| compare(f)) {
        *per_format.entry(f.as_str()).or_insert(0) += n;
    }
    // Every format's messages are in testdata, dozens at least.
    for f in ["arcturn", "crab", "pi", "claude", "codex"] {
        let n = per_format.get(f).copied().unwrap_or(0);
        assert!(n >= 20, "{f}: only {n} entries compared ({per_format:?})");
    }
}

#[test]
fn members_skip_what_is_not_asked_and_keep_escapes() {
    let line = r#"{"uuid":"u1","toolUseResult":{"stdout":"x\"y"},"message":{"role":"user","content":"caf\u00e9 \"q\"\n"},"cwd":"/tmp"}"#;
    let src = Source::from_bytes("inline.jsonl", format!("{line}\n").into_bytes()).unwrap();
    let s = Session::load(&src, Some(Format::Claude)).unwrap();
    let v = s.members_at(0..line.len(), &["message"]).unwrap();
    assert_eq!(v.as_object().unwrap().keys().collect::<Vec<_>>(), ["message"]);
    assert_eq!(v["message"]["content"], "café \"q\"\n");
    // A key the line holds twice is declined by the skimmer: the whole line is read, as serde_json
    // reads it (the last value wins).
    let dup = r#"{"message":{"content":"a"},"message":{"content":"b"}}"#;
    let src = Source::from_bytes("dup.jsonl", format!("{dup}\n").into_bytes()).unwrap();
    let s = Session::load(&src, Some(Format::Claude)).unwrap();
    assert_eq!(s.members_at(0..dup.len(), &["message"]).unwrap()["message"]["content"], "b");
}

#[test]
fn an_api_error_line_keeps_its_error_when_read_from_members() {
    // Claude Code writes a failed request as an assistant line flagged `isApiErrorMessage`,
    // the error text as its content; the flag is a member beside `message`.
    let lines = [
        r#"{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-02-11T10:00:00.000Z"}"#,
        r#"{"parentUuid":"u1","sessionId":"s1","type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>","id":"m1","type":"message","role":"assistant","content":[{"type":"text","text":"API Error: 529 overloaded"}],"usage":{"input_tokens":0,"output_tokens":0}},"uuid":"a1","timestamp":"2026-02-11T10:00:01.000Z"}"#,
    ];
    let src = Source::from_bytes("api-error.jsonl", (lines.join("\n") + "\n").into_bytes()).unwrap();
    let s = Session::load(&src, None).unwrap();
    assert_eq!(s.format, Format::Claude);
    let error = s.entries.iter().enumerate().find_map(|(i, _)| s.content(i as u32).ok()?.error);
    assert_eq!(error.as_deref(), Some("API Error: 529 overloaded"));
}

/// `f` over every bundled and real session that loads (the hostile testdata does not).
fn each_session(mut f: impl FnMut(&str, &Session)) {
    let mut files = all_testdata();
    files.extend(real_files());
    for rel in &files {
        let Ok(src) = Source::open(&root().join(rel), ReadOptions::default()) else { continue };
        let Ok(s) = Session::load(&src, None) else { continue };
        f(rel, &s);
    }
}

/// The tool calls the index keeps for each message are the ones its content holds, in order:
/// views that read payloads only for messages with tool calls (the trace's arguments) rely on
/// the index to say which those are. Checked for every entry of every bundled and real session.
#[test]
fn the_index_records_the_tool_calls_the_content_holds() {
    let mut with_calls = std::collections::BTreeMap::new();
    each_session(|rel, s| {
        for (i, e) in s.entries.iter().enumerate() {
            let Some(m) = &e.message else { continue };
            let Ok(c) = s.content(i as u32) else { continue };
            let content: Vec<(Option<&str>, &str)> = c.tool_calls().map(|(id, name, _)| (id, name)).collect();
            let index: Vec<(Option<&str>, &str)> =
                m.tool_calls.iter().map(|t| (t.id.as_deref(), t.name.as_deref().unwrap_or(""))).collect();
            assert_eq!(index, content, "{rel}:{}: the index and the content disagree on tool calls", e.line);
            *with_calls.entry(s.format.as_str()).or_insert(0) += usize::from(!content.is_empty());
        }
    });
    for f in ["arcturn", "crab", "pi", "claude", "codex"] {
        let n = with_calls.get(f).copied().unwrap_or(0);
        assert!(n >= 5, "{f}: only {n} messages with tool calls compared ({with_calls:?})");
    }
}

/// Content read straight from the lines' text ([`format::direct`]) is the content the tree
/// path gives (each line's members as JSON values, then the format's content function), for
/// every entry of every bundled and real session; and it is what most messages take.
#[test]
fn content_read_directly_equals_content_read_through_values() {
    // Per format: (messages read directly, messages declined to the tree path).
    let mut counts = std::collections::BTreeMap::new();
    each_session(|rel, s| {
        let table = format::decoder(s.format);
        let Some(direct) = table.direct else { return };
        for (i, e) in s.entries.iter().enumerate() {
            let Ok(members) = e.spans().map(|sp| s.members_at(sp, table.content_keys)).collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let reference = (table.content)(e, &members);
            let count = counts.entry(s.format.as_str()).or_insert((0, 0));
            match s.content_direct(i as u32, direct, None) {
                Some(got) => {
                    assert_eq!(got, reference, "{rel}:{}: read directly, the content differs", e.line);
                    count.0 += usize::from(e.message.is_some());
                }
                None => count.1 += usize::from(e.message.is_some()),
            }
        }
    });
    for f in ["arcturn", "crab", "pi", "claude", "codex"] {
        let (direct, declined) = counts.get(f).copied().unwrap_or_default();
        assert!(direct >= 20 && declined * 10 <= direct, "{f}: {direct} messages read directly, {declined} declined");
    }
}

/// A preview's content ([`Session::content_preview`]) is the content with every text cut to
/// its first characters, at every cut a preview could ask for, for every entry of every
/// bundled and real session: the texts read directly are cut as they are read, the rest
/// after. And the preview a row shows is the one the whole content gives.
#[test]
fn a_preview_reads_the_start_of_every_text() {
    let (mut entries, mut cut_short) = (0, 0);
    each_session(|rel, s| {
        for (i, e) in s.entries.iter().enumerate() {
            let Ok(whole) = s.content(i as u32) else {
                assert!(s.content_preview(i as u32, 240).is_err(), "{rel}:{}", e.line);
                continue;
            };
            for chars in [0, 1, 7, 240] {
                let got = s.content_preview(i as u32, chars).unwrap_or_else(|err| panic!("{rel}:{}: {err}", e.line));
                assert_eq!(got, whole.clone().cut(chars), "{rel}:{}: cut to {chars}", e.line);
            }
            let described = arcturn_inspect::preview::describe(e, Some(&whole));
            if e.kind() == arcturn_inspect::model::Kind::Message {
                assert_eq!(arcturn_inspect::preview::describe_at(s, i as u32), described, "{rel}:{}", e.line);
            }
            entries += 1;
            cut_short += usize::from(whole.clone().cut(240) != whole);
        }
    });
    // Texts longer than a preview are in the corpus: the cut is exercised.
    assert!(entries > 500 && cut_short >= 50, "{entries} entries, {cut_short} with a text past 240 characters");
}

/// A load that lets the messages go where the format allows ([`Detail::Shown`]), then reads
/// every entry's message back from its line, holds what a full load holds: the same entries
/// with the same messages, the same tool uses and the same findings. Checked for every bundled
/// and real session; the formats whose messages are built from several lines keep them.
#[test]
fn messages_read_back_are_the_ones_a_full_load_keeps() {
    use arcturn_inspect::format::{Detail, Uses};
    let mut read_back = std::collections::BTreeMap::new();
    let mut files = all_testdata();
    files.extend(real_files());
    for rel in &files {
        let Ok(src) = Source::open(&root().join(rel), ReadOptions::default()) else { continue };
        let Ok(full) = Session::load_with(&src, None, Detail::Full, Uses::Listed) else { continue };
        let mut lean =
            Session::load_with(&src, None, Detail::Shown, Uses::Listed).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let all: Vec<u32> = (0..lean.entries.len() as u32).collect();
        if lean.detail == Detail::Index {
            assert!(lean.entries.iter().all(|e| e.message.is_none()), "{rel}: messages kept");
            lean.read_back(&all);
            *read_back.entry(full.format.as_str()).or_insert(0) +=
                full.entries.iter().filter(|e| e.message.is_some()).count();
        } else {
            assert!(
                matches!(full.format, Format::Claude | Format::Codex),
                "{rel}: {:?} kept its messages",
                full.format
            );
        }
        assert_eq!(format!("{:?}", lean.entries), format!("{:?}", full.entries), "{rel}: entries");
        assert_eq!(format!("{:?}", lean.unpaired), format!("{:?}", full.unpaired), "{rel}: unpaired tool uses");
        assert_eq!(lean.findings, full.findings, "{rel}: findings");
        // Every tool use, as the decode lists them for the pairing.
        let uses = |detail| format::decode(&src, None, detail, Uses::Listed).map(|d| format!("{:?}", d.tools));
        assert_eq!(uses(Detail::Shown).unwrap(), uses(Detail::Full).unwrap(), "{rel}: tool uses");
    }
    for f in ["arcturn", "crab", "pi"] {
        let n = read_back.get(f).copied().unwrap_or(0);
        assert!(n >= 20, "{f}: only {n} messages read back ({read_back:?})");
    }
}

/// A load that does not list the tool uses ([`Uses::Unlisted`], every view but `check`)
/// keeps the same entries and findings as one that does, and pairs none; in every format,
/// the one that does lists some, and a session keeps only those that found no partner.
#[test]
fn a_load_without_tool_uses_differs_only_by_them() {
    use arcturn_inspect::format::{Detail, Uses};
    let (mut listed, mut unpaired) = (std::collections::BTreeMap::new(), 0);
    let mut files = all_testdata();
    files.extend(real_files());
    for rel in &files {
        let Ok(src) = Source::open(&root().join(rel), ReadOptions::default()) else { continue };
        for detail in [Detail::Full, Detail::Index] {
            let Ok(with) = Session::load_with(&src, None, detail, Uses::Listed) else { continue };
            let without =
                Session::load_with(&src, None, detail, Uses::Unlisted).unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert!(without.unpaired.is_empty(), "{rel}: {} tool uses paired", without.unpaired.len());
            assert_eq!(format!("{:?}", without.entries), format!("{:?}", with.entries), "{rel}: entries");
            assert_eq!(without.findings, with.findings, "{rel}: findings");
            let d = format::decode(&src, None, detail, Uses::Listed).unwrap();
            let unlisted = format::decode(&src, None, detail, Uses::Unlisted).unwrap();
            assert!(unlisted.tools.is_empty(), "{rel}: {} tool uses listed", unlisted.tools.len());
            // The session keeps the uses that found no partner, in file order: a result
            // naming no call id, and any use no use of the other side names (the oracle:
            // every call id of each side, as text), whether the decode paired them as it
            // went or listed them all.
            let named = |side| -> std::collections::HashSet<String> {
                d.tools
                    .iter()
                    .filter(|u| u.side == side)
                    .filter_map(|u| u.key.as_ref())
                    .map(|k| k.text().into_owned())
                    .collect()
            };
            let (calls, results) = (named(ToolSide::Call), named(ToolSide::Result));
            let expected: Vec<_> = d
                .tools
                .iter()
                .filter(|u| match (&u.key, u.side) {
                    (None, _) => true,
                    (Some(k), ToolSide::Call) => !results.contains(k.text().as_ref()),
                    (Some(k), ToolSide::Result) => !calls.contains(k.text().as_ref()),
                })
                .collect();
            assert_eq!(format!("{:?}", with.unpaired.iter().collect::<Vec<_>>()), format!("{expected:?}"), "{rel}");
            let paired = Session::load_with(&src, None, detail, Uses::Paired).unwrap();
            assert_eq!(format!("{:?}", paired.unpaired), format!("{:?}", with.unpaired), "{rel}: paired as decoded");
            assert_eq!(paired.findings, with.findings, "{rel}: findings");
            *listed.entry(with.format.as_str()).or_insert(0) += d.tools.len();
            unpaired += with.unpaired.len();
        }
    }
    for f in ["arcturn", "crab", "pi", "claude", "codex"] {
        let n = listed.get(f).copied().unwrap_or(0);
        assert!(n >= 20, "{f}: only {n} tool uses listed ({listed:?})");
    }
    assert!(unpaired >= 5, "only {unpaired} unpaired tool uses");
}

/// Every entry's parent reads as its line writes it, whether the load kept it whole or as a
/// link to the entry just before ([`arcturn_inspect::model::Entry::parent_is_previous`]), in
/// both details; and most entries of these sessions are linked (the memory it saves).
#[test]
fn parents_read_as_written_whether_linked_or_kept() {
    use arcturn_inspect::format::{Detail, Uses};
    let (mut entries, mut linked) = (0, 0);
    for rel in all_testdata().iter().filter(|r| r.starts_with("testdata/arcturn/") || r.starts_with("testdata/crab/")) {
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        let written: std::collections::HashMap<u32, Option<String>> = text
            .lines()
            .enumerate()
            .filter_map(|(n, l)| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                let p = v.get("parentId").or_else(|| v.get("parent_id"))?;
                Some((n as u32 + 1, (!p.is_null()).then(|| p.as_str().map_or_else(|| p.to_string(), str::to_string))))
            })
            .collect();
        let src = Source::open(&root().join(rel), ReadOptions::default()).unwrap();
        for detail in [Detail::Full, Detail::Index] {
            let s = Session::load_with(&src, None, detail, Uses::Unlisted).unwrap();
            for (i, e) in s.entries.iter().enumerate() {
                let Some(want) = written.get(&e.line) else { continue };
                let got = s.parent_id(i as u32).map(|p| p.text().into_owned());
                assert_eq!(&got, want, "{rel}:{}: parent", e.line);
                entries += 1;
                linked += usize::from(e.parent_is_previous());
            }
        }
    }
    assert!(entries >= 100 && linked * 2 > entries, "{linked} of {entries} parents linked");
}
