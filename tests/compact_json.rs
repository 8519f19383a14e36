//! The fast compact JSON writer against serde_json, its peer: for every JSONTestSuite
//! document, every kind of serde value and every string with a character to escape at
//! every place in a short or long text, it writes the bytes serde_json writes with the
//! same escaping of terminal-active characters, and it refuses what serde_json refuses.

mod prereq;

use std::collections::BTreeMap;

use arcturn_inspect::render::{compact, json};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// serde_json's compact bytes (the escaping writer), or that it refused.
fn peer<T: Serialize + ?Sized>(v: &T) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    json::write(&mut out, v, false).ok()?;
    assert_eq!(out.pop(), Some(b'\n'));
    Some(out)
}

fn ours<T: Serialize + ?Sized>(v: &T) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    compact::append(&mut out, v).ok()?;
    Some(out)
}

fn same<T: Serialize + ?Sized + std::fmt::Debug>(v: &T) {
    let (want, got) = (peer(v), ours(v));
    assert!(
        want == got,
        "{v:?}: serde_json wrote {:?}, the fast writer {:?}",
        want.map(String::from_utf8),
        got.map(String::from_utf8)
    );
}

#[test]
fn every_suite_document_as_a_value_and_as_raw_text() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/jsontestsuite");
    let Ok(dir) = std::fs::read_dir(&suite) else {
        return prereq::missing(
            &format!("JSONTestSuite corpus {} not found", suite.display()),
            "check out shared/ beside the crate",
            "ARCTURN_REQUIRE_SHARED",
        );
    };
    let mut written = 0;
    for e in dir.flatten() {
        let Ok(text) = String::from_utf8(std::fs::read(e.path()).unwrap()) else { continue };
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            same(&v);
            written += 1;
        }
        if let Ok(raw) = serde_json::from_str::<Box<RawValue>>(&text) {
            same(&raw);
            same(&vec![raw.clone(), raw]);
        }
    }
    assert!(written >= 90, "only {written} documents of the suite were read");
}

#[test]
fn strings_with_a_character_to_escape_anywhere() {
    let specials = [
        '\0',
        '\u{8}',
        '\t',
        '\n',
        '\u{1b}',
        '\u{1f}',
        ' ',
        '"',
        '\\',
        '/',
        '~',
        '\u{7f}',
        '\u{80}',
        '\u{9b}',
        '\u{9f}',
        '\u{a0}',
        'é',
        '\u{ad}',
        '\u{200b}',
        '\u{202e}',
        '\u{2028}',
        '\u{feff}',
        '設',
        '😀',
        '\u{E0041}',
    ];
    for c in specials {
        for before in 0..=17 {
            for after in [0, 1, 7, 8, 9, 40] {
                let s = format!("{}{c}{}", "a".repeat(before), "Z".repeat(after));
                same(&s);
                same(&BTreeMap::from([(s.clone(), 1)]));
            }
        }
    }
    for len in 0..=70 {
        same(&"k".repeat(len));
    }
}

#[derive(Serialize, Debug)]
enum Kinds {
    Unit,
    #[serde(rename = "new\u{202e}type")]
    Newtype(u8),
    Tuple(i8, String),
    Struct {
        a: Option<u8>,
        b: Vec<f32>,
    },
}

#[derive(Serialize, Debug)]
struct Unit;

#[derive(Serialize, Debug)]
struct Wrapped(&'static str);

#[derive(Serialize, Debug)]
struct Pair(u8, &'static str);

#[derive(Serialize, Debug)]
struct Inner {
    x: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<u32>,
}

#[derive(Serialize, Debug)]
struct Outer {
    #[serde(rename = "k\"ey")]
    key: &'static str,
    #[serde(flatten)]
    inner: Inner,
    kinds: Vec<Kinds>,
    unit: Unit,
    wrapped: Wrapped,
    pair: Pair,
    nothing: (),
    empty: Vec<u8>,
    empty_map: BTreeMap<String, u8>,
    tuple: (bool, char, i128, u128),
}

/// Bytes as serde's `serialize_bytes` (an array of numbers in JSON).
#[derive(Debug)]
struct Bytes(&'static [u8]);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// A value written from its `Display` (serde's `collect_str`).
#[derive(Debug)]
struct Shown(&'static str);

impl Serialize for Shown {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("<{}>", self.0))
    }
}

/// A map with one key of any type.
#[derive(Debug)]
struct KeyOf<K>(K);

impl<K: Serialize> Serialize for KeyOf<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(&self.0, &1)?;
        m.end()
    }
}

#[test]
fn every_kind_of_value() {
    same(&Outer {
        key: "v",
        inner: Inner { x: 7, y: None },
        kinds: vec![
            Kinds::Unit,
            Kinds::Newtype(3),
            Kinds::Tuple(-1, "t\u{9b}".into()),
            Kinds::Struct { a: None, b: vec![1.5, f32::NAN, -0.0, f32::MAX] },
            Kinds::Struct { a: Some(2), b: vec![] },
        ],
        unit: Unit,
        wrapped: Wrapped("w"),
        pair: Pair(1, "p"),
        nothing: (),
        empty: vec![],
        empty_map: BTreeMap::new(),
        tuple: (true, '\u{2028}', i128::MIN, u128::MAX),
    });
    for f in
        [0.0, -0.0, 1.0, 0.1 + 0.2, 1e21, 1e-7, 5e-324, f64::MAX, f64::MIN, f64::NAN, f64::INFINITY, -f64::INFINITY]
    {
        same(&f);
        same(&KeyOf(f));
    }
    same(&(i8::MIN, i16::MIN, i32::MIN, i64::MIN, u8::MAX, u16::MAX, u32::MAX, u64::MAX));
    same(&Bytes(b""));
    same(&Bytes(&[0, 1, 255]));
    same(&Shown("a\"b\u{7f}"));
    same(&Some(Some(1)));
    same(&None::<u8>);
}

#[test]
fn map_keys_are_quoted_or_refused_as_serde_json_does() {
    same(&KeyOf("k"));
    same(&KeyOf('\u{1b}'));
    same(&KeyOf(true));
    same(&KeyOf(-3i64));
    same(&KeyOf(u128::MAX));
    same(&KeyOf(2.5f32));
    same(&KeyOf(f32::INFINITY));
    same(&KeyOf(Kinds::Unit));
    same(&KeyOf(Wrapped("w")));
    same(&KeyOf(Some("s")));
    same(&KeyOf(Shown("s")));
    // Refused by both.
    same(&KeyOf(None::<&str>));
    same(&KeyOf(()));
    same(&KeyOf(Unit));
    same(&KeyOf(Kinds::Newtype(1)));
    same(&KeyOf(vec![1]));
    same(&KeyOf(Pair(1, "p")));
    same(&KeyOf(Bytes(b"k")));
    same(&KeyOf(BTreeMap::from([(1, 2)])));
    assert!(ours(&KeyOf(())).is_none());
}
