//! Compact JSON appended to a byte buffer: the bytes serde_json's compact writer gives with
//! [`super::json`]'s escaping, written faster for the values this tool writes by the
//! hundred thousand (NDJSON rows, tree nodes, trace runs). serde_json looks up every byte of
//! every string, keys included, in its escape table, then hands the text to the escaping
//! formatter, which checks it again; here a string of printable ASCII with no quote or
//! backslash (nearly every key, id, name and time) is copied as it is, after a check of 8
//! bytes at a time, and numbers go from `itoa` and `zmij` (serde_json's own formatters)
//! straight into the buffer. A string with anything to escape is written by
//! serde_json with the escaping formatter, so its bytes are the same by construction.
//!
//! Every value serializes as serde_json serializes it, raw values (`RawValue`, and the
//! pieces [`super::json::render`] makes) included: map keys that are not strings are
//! quoted or refused as serde_json does, non-finite floats are `null`.

use std::fmt::Display;

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;

type Result<T = ()> = std::result::Result<T, Error>;

/// `value` as compact JSON, appended to `out`.
pub fn append<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result {
    value.serialize(&mut Compact { out })
}

/// serde_json's name for a struct whose one field is JSON text to write as it is.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

struct Compact<'b> {
    out: &'b mut Vec<u8>,
}

/// Whether `s` can be written between quotes as it is: printable ASCII (a control, DEL or
/// anything past ASCII may need an escape, [`super::json`]'s or JSON's) with no quote and
/// no backslash. Most strings are short (keys, ids, names, times): checked 8 bytes at a
/// time, without a branch per byte.
#[inline(always)]
fn plain(s: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of a byte of the result is set for a byte to take care of (and may be
    // set for a byte after it: any, not which, is what counts).
    let care = |w: u64| {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v;
        let below_space = w.wrapping_sub(ONES * 0x20) & !w;
        let del_or_past = w.wrapping_add(ONES) | w;
        (below_space | del_or_past | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')))) & HIGH
    };
    let mut words = s.chunks_exact(8);
    let mut any = 0;
    for w in &mut words {
        any |= care(u64::from_le_bytes(w.try_into().unwrap_or_default()));
    }
    // The bytes after the last whole word: the last 8 bytes again (a load, where copying
    // them out to a buffer and reading it back as a word stalled). A string shorter than a
    // word (most keys, many names) is read as two overlapping halves of 4 bytes, or as its
    // first, middle and last byte over harmless letters: no loop over its bytes.
    if let Some(last) = s.last_chunk::<8>() {
        if !words.remainder().is_empty() {
            any |= care(u64::from_le_bytes(*last));
        }
    } else if let (Some(first), Some(last)) = (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        any |= care(u64::from(u32::from_le_bytes(*first)) | u64::from(u32::from_le_bytes(*last)) << 32);
    } else if let (Some(&first), Some(&last)) = (s.first(), s.last()) {
        let middle = s.get(s.len() / 2).copied().unwrap_or(first);
        let word = (ONES * u64::from(b'a')) & !0xff_ffff;
        any |= care(word | u64::from(first) | u64::from(middle) << 8 | u64::from(last) << 16);
    }
    any == 0
}

/// `s` as a JSON string. Inlined in every caller: it writes every key and string value, most
/// of them a few bytes long, where a call (saving and restoring the registers the escaping
/// path needs) cost as much as the check. The escaping path stays out of line.
#[inline(always)]
fn string(out: &mut Vec<u8>, s: &str) -> Result {
    if plain(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        super::json::escaped_str(out, s)
    }
}

fn digits<I: itoa::Integer>(out: &mut Vec<u8>, v: I) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A float as serde_json writes it: `null` when it is not finite.
fn float<F: zmij::Float>(out: &mut Vec<u8>, v: F, finite: bool) {
    if finite {
        out.extend_from_slice(zmij::Buffer::new().format_finite(v).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// serde's ten integer methods, each calling the serializer's own `integer`.
macro_rules! integers {
    () => {
        integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128);
        integers!(serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);
    };
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result {
            self.integer(v)
        }
    )*};
}

impl Compact<'_> {
    fn integer<I: itoa::Integer>(&mut self, v: I) -> Result {
        digits(self.out, v);
        Ok(())
    }
}

impl<'a, 'b> ser::Serializer for &'a mut Compact<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a, 'b>;
    type SerializeTuple = Seq<'a, 'b>;
    type SerializeTupleStruct = Seq<'a, 'b>;
    type SerializeTupleVariant = Seq<'a, 'b>;
    type SerializeMap = Map<'a, 'b>;
    type SerializeStruct = Map<'a, 'b>;
    type SerializeStructVariant = Map<'a, 'b>;

    fn serialize_bool(self, v: bool) -> Result {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    integers!();
    fn serialize_f32(self, v: f32) -> Result {
        float(self.out, v, v.is_finite());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result {
        float(self.out, v, v.is_finite());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        string(self.out, v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result {
        string(self.out, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        self.out.push(b'[');
        for (i, &b) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            digits(self.out, b);
        }
        self.out.push(b']');
        Ok(())
    }
    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result {
        string(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> Result {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result {
        self.out.push(b'{');
        string(self.out, variant)?;
        self.out.push(b':');
        v.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a, 'b>> {
        self.out.push(b'[');
        Ok(Seq { ser: self, first: true, close: b"]" })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a, 'b>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a, 'b>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a, 'b>> {
        self.out.push(b'{');
        string(self.out, variant)?;
        self.out.extend_from_slice(b":[");
        Ok(Seq { ser: self, first: true, close: b"]}" })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a, 'b>> {
        self.out.push(b'{');
        Ok(Map { ser: self, first: true, close: b"}", raw: false })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Map<'a, 'b>> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Map { ser: self, first: true, close: b"", raw: true });
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Map<'a, 'b>> {
        self.out.push(b'{');
        string(self.out, variant)?;
        self.out.extend_from_slice(b":{");
        Ok(Map { ser: self, first: true, close: b"}}", raw: false })
    }
    fn collect_str<T: Display + ?Sized>(self, v: &T) -> Result {
        string(self.out, &v.to_string())
    }
}

/// An array being written (a tuple variant's, inside its object).
pub struct Seq<'a, 'b> {
    ser: &'a mut Compact<'b>,
    first: bool,
    close: &'static [u8],
}

impl Seq<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result {
        if !std::mem::take(&mut self.first) {
            self.ser.out.push(b',');
        }
        v.serialize(&mut *self.ser)
    }

    fn close(self) -> Result {
        self.ser.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// serde's four kinds of array, each written by the same two calls.
macro_rules! arrays {
    ($($kind:ident :: $add:ident),*) => {$(
        impl ser::$kind for Seq<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $add<T: Serialize + ?Sized>(&mut self, v: &T) -> Result {
                self.element(v)
            }
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

arrays!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// An object being written (a struct variant's, inside its object), or a raw value.
pub struct Map<'a, 'b> {
    ser: &'a mut Compact<'b>,
    first: bool,
    close: &'static [u8],
    /// serde_json's raw value: its one field is JSON text, written as it is.
    raw: bool,
}

impl Map<'_, '_> {
    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.ser.out.push(b',');
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result {
        if self.raw {
            return RawAgain(v).serialize(&mut serde_json::Serializer::new(&mut *self.ser.out));
        }
        self.comma();
        string(self.ser.out, key)?;
        self.ser.out.push(b':');
        v.serialize(&mut *self.ser)
    }

    fn close(self) -> Result {
        self.ser.out.extend_from_slice(self.close);
        Ok(())
    }
}

impl ser::SerializeMap for Map<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        key.serialize(Key { out: self.ser.out })?;
        self.ser.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result {
        v.serialize(&mut *self.ser)
    }
    fn end(self) -> Result {
        self.close()
    }
}

/// serde's two kinds of struct, each written by the same two calls.
macro_rules! structs {
    ($($kind:ident),*) => {$(
        impl ser::$kind for Map<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result {
                self.field(key, v)
            }
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

structs!(SerializeStruct, SerializeStructVariant);

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// A map key, as serde_json writes one: a string, or a number or a boolean in quotes.
struct Key<'b> {
    out: &'b mut Vec<u8>,
}

impl Key<'_> {
    fn integer<I: itoa::Integer>(self, v: I) -> Result {
        self.quoted(|o| digits(o, v))
    }

    fn quoted(self, write: impl FnOnce(&mut Vec<u8>)) -> Result {
        self.out.push(b'"');
        write(self.out);
        self.out.push(b'"');
        Ok(())
    }
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(|o| o.extend_from_slice(if v { b"true" } else { b"false" }))
    }
    integers!();
    fn serialize_f32(self, v: f32) -> Result {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.quoted(|o| float(o, v, true))
    }
    fn serialize_f64(self, v: f64) -> Result {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.quoted(|o| float(o, v, true))
    }
    fn serialize_char(self, v: char) -> Result {
        string(self.out, v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result {
        string(self.out, v)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result {
        string(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> Result {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_must_be_a_string())
    }
    fn collect_str<T: Display + ?Sized>(self, v: &T) -> Result {
        string(self.out, &v.to_string())
    }
}

/// A raw value's field handed back to serde_json as the raw value it came from, so that
/// serde_json writes its text as it is.
struct RawAgain<'v, T: ?Sized>(&'v T);

impl<T: Serialize + ?Sized> Serialize for RawAgain<'_, T> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeStruct;
        let mut raw = s.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        raw.serialize_field(RAW_VALUE_TOKEN, self.0)?;
        raw.end()
    }
}
