//! Timestamps: the ISO 8601 / RFC 3339 forms and epoch-millisecond forms session files use,
//! to and from epoch milliseconds (UTC). Small and strict; anything else is "unparsable".

/// Parse `2026-11-02T09:00:05.002Z` (offsets `+02:00`, no fraction, a space instead of `T`
/// are accepted) into epoch milliseconds.
pub fn parse_iso8601(s: &str) -> Option<i64> {
    common_iso8601(s).or_else(|| parse_iso8601_any(s))
}

/// [`parse_iso8601`] of `s` if it is in the form agents write ([`utc_millis`]).
fn common_iso8601(s: &str) -> Option<i64> {
    <&[u8; 24]>::try_from(s.as_bytes()).ok().and_then(utc_millis)
}

/// [`parse_iso8601`] of the form agents write, `2026-11-02T09:00:05.002Z` exactly: its 24
/// bytes checked and read 8 at a time (the general parser's byte-by-byte reading cost more
/// than the rest of a line's timestamp). `None` for any other text, which the general
/// parser reads; the same value as it for this form.
fn utc_millis(b: &[u8; 24]) -> Option<i64> {
    const SHAPE: &[u8; 24] = b"0000-00-00T00:00:00.000Z";
    // The bytes that must equal the shape's (the others are digits).
    const SEPARATORS: [u8; 24] = {
        let mut m = [0u8; 24];
        let mut i = 0;
        while i < 24 {
            if SHAPE[i] != b'0' {
                m[i] = 0xFF;
            }
            i += 1;
        }
        m
    };
    let word = |bytes: &[u8; 24], k: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[8 * k..8 * k + 8]);
        u64::from_le_bytes(w)
    };
    let mut t = [0u8; 24];
    let mut bad = 0;
    for k in 0..3 {
        // A digit becomes 0-9, a separator as in the shape 0. Adding 0x76 sets the top bit
        // of a byte above 9 (a byte of 0x80 or more has it, and only such a byte carries).
        let w = word(b, k) ^ word(SHAPE, k);
        bad |= (w & word(&SEPARATORS, k)) | ((w.wrapping_add(0x7676_7676_7676_7676) | w) & 0x8080_8080_8080_8080);
        t[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
    }
    if bad != 0 {
        return None;
    }
    let n = |at: usize, width: usize| t[at..at + width].iter().fold(0i64, |v, &d| v * 10 + i64::from(d));
    let (y, mo, d, h, mi, sec, ms) = (n(0, 4), n(5, 2), n(8, 2), n(11, 2), n(14, 2), n(17, 2), n(20, 3));
    if !(1..=12).contains(&mo) || !(1..=days_in_month(y, mo)).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    Some((days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec) * 1000 + ms)
}

/// [`parse_iso8601`] of any form it takes, byte by byte.
fn parse_iso8601_any(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v = 0i64;
        for &c in b.get(r)? {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
        }
        Some(v)
    };
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=days_in_month(y, mo)).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut ms = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                ms = ms * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        for _ in (i - start)..3 {
            ms *= 10;
        }
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let v = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if sign == b'+' {
                v
            } else {
                -v
            }
        }
        None => 0,
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000 + ms)
}

/// Parse crab's `"1792661000878ms"` string form (a bare digit string is accepted too).
pub fn parse_ms_suffix(s: &str) -> Option<i64> {
    let digits = s.strip_suffix("ms").unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || digits.len() > 18 {
        return None;
    }
    digits.parse().ok()
}

/// Any textual timestamp form a session file uses. (The common ISO form first: it is never
/// a digit string.)
pub fn parse_text(s: &str) -> Option<i64> {
    common_iso8601(s).or_else(|| parse_ms_suffix(s)).or_else(|| parse_iso8601_any(s))
}

/// `2026-11-02T09:00:05.002Z`.
pub fn format_iso(ms: i64) -> String {
    Iso(ms).to_string()
}

/// [`format_iso`] as a `Display`, for writers that must not allocate per value.
pub struct Iso(pub i64);

impl std::fmt::Display for Iso {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(b) = iso_bytes(self.0) {
            return f.write_str(std::str::from_utf8(&b).unwrap_or_default());
        }
        let (y, mo, d, h, mi, s, milli) = civil(self.0);
        write!(f, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
    }
}

/// [`Iso`]'s text of a time in the years 0 to 9999 (those RFC 3339 can hold), written digit
/// by digit into its 24 bytes: millions of rows and nodes carry a time, and the formatting
/// machinery took longer than the date. `None` for a time outside those years.
pub fn iso_bytes(ms: i64) -> Option<[u8; 24]> {
    let (y, mo, d, h, mi, s, milli) = civil(ms);
    if !(0..=9999).contains(&y) {
        return None;
    }
    let mut b = *b"0000-00-00T00:00:00.000Z";
    for (at, width, v) in [(0, 4, y), (5, 2, mo), (8, 2, d), (11, 2, h), (14, 2, mi), (17, 2, s), (20, 3, milli)] {
        let mut v = v;
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    Some(b)
}

/// `2026-11-02 09:00` for people.
pub fn format_minutes(ms: i64) -> String {
    let (y, mo, d, h, mi, ..) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}")
}

/// `2026-11-02-0900`, the export file name stamp.
pub fn format_file_stamp(ms: i64) -> String {
    let (y, mo, d, h, mi, ..) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02}-{h:02}{mi:02}")
}

/// `2026-11-02`, for grouping by day.
pub fn format_day(ms: i64) -> String {
    let (y, mo, d, ..) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02}")
}

/// A duration for people: `850ms`, `4.2s`, `3m 05s`, `2h 10m`.
pub fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m {:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        format!("{}h {:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    }
}

fn civil(ms: i64) -> (i64, i64, i64, i64, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    (y, mo, d, rem / 3600, (rem / 60) % 60, rem % 60, milli)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil / civil_from_days (public domain algorithms).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A time zone named by the user (`--timezone`), or the local one. jiff carries its own copy
/// of the IANA database, so names work where /usr/share/zoneinfo is missing.
pub fn zone(name: Option<&str>) -> Result<jiff::tz::TimeZone, String> {
    match name {
        None => Ok(jiff::tz::TimeZone::system()),
        Some(n) if n.eq_ignore_ascii_case("utc") || n == "Z" => Ok(jiff::tz::TimeZone::UTC),
        Some(n) => jiff::tz::TimeZone::get(n)
            .map_err(|_| format!("unknown time zone {n:?} (an IANA name such as Europe/Berlin, or UTC)")),
    }
}

/// Which end of a window a user's time names: a bare date means the start of that day for
/// `--since` and the end of it (the start of the next) for `--until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Since,
    Until,
}

/// Parse a time the user typed (`--since`, `--until`) into epoch milliseconds:
/// - a date, `2026-11-30`, in `tz`;
/// - a date-time, `2026-11-30T10:00[:05]` or with a space, in `tz`; with `Z` or an offset
///   (`+01:00`) it is that instant;
/// - relative, `90m`, `12h`, `7d`, `2w`: that long before `now_ms`.
///
/// Invalid dates (`2026-02-31`) are refused, never rolled over.
pub fn parse_when(s: &str, tz: &jiff::tz::TimeZone, end: End, now_ms: i64) -> Result<i64, String> {
    use jiff::civil::{Date, DateTime};
    let s = s.trim();
    let bad = |why: &str| {
        format!(
            "{s:?} is not a time: {why} (use 2026-11-30, 2026-11-30T14:00, 2026-11-30T14:00Z, or 7d / 12h / 30m / 2w)"
        )
    };
    if let Some(unit) = s.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let num = &s[..s.len() - 1];
        if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = num.parse().map_err(|_| bad("too large"))?;
            let ms = match unit {
                'm' => 60_000,
                'h' => 3_600_000,
                'd' => 86_400_000,
                'w' => 7 * 86_400_000,
                _ => return Err(bad("unknown unit")),
            };
            return n.checked_mul(ms).and_then(|d| now_ms.checked_sub(d)).ok_or_else(|| bad("too large"));
        }
    }
    let ms_of = |z: jiff::Zoned| z.timestamp().as_millisecond();
    if s.len() == 10 {
        let d: Date = s.parse().map_err(|e: jiff::Error| bad(&e.to_string()))?;
        let d = match end {
            End::Since => d,
            End::Until => d.tomorrow().map_err(|e| bad(&e.to_string()))?,
        };
        return d.to_zoned(tz.clone()).map(ms_of).map_err(|e| bad(&e.to_string()));
    }
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let dt: DateTime = s.parse().map_err(|e: jiff::Error| bad(&e.to_string()))?;
    dt.to_zoned(tz.clone()).map(ms_of).map_err(|e| bad(&e.to_string()))
}

/// The key of a time that has no calendar date.
const OUT_OF_RANGE: &str = "(out of range)";

/// The calendar period of date `d`: `2026-11-30` (day), `2026-W48` (ISO week), `2026-11`
/// (month).
fn date_key(d: jiff::civil::Date, unit: Period) -> String {
    match unit {
        Period::Day => format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
        Period::Week => {
            let w = d.iso_week_date();
            format!("{:04}-W{:02}", w.year(), w.week())
        }
        Period::Month => format!("{:04}-{:02}", d.year(), d.month()),
    }
}

/// The calendar date of `ms` in `tz`, and the first instant after it that may be on another
/// date: the next local midnight or change of offset, whichever comes first (`None` out of
/// range). Every instant from `ms` up to that one is on the same date.
fn date_until(ms: i64, tz: &jiff::tz::TimeZone) -> Option<(jiff::civil::Date, i64)> {
    let ts = jiff::Timestamp::from_millisecond(ms).ok()?;
    let offset = tz.to_offset(ts);
    let date = offset.to_datetime(ts).date();
    let midnight =
        date.tomorrow().ok().and_then(|d| offset.to_timestamp(d.to_datetime(jiff::civil::Time::midnight())).ok());
    // (A change of offset is strictly after `ts`.)
    let change = tz.following(ts).next().map(|t| t.timestamp());
    let until = [midnight, change].into_iter().flatten().map(|t| t.as_millisecond()).min();
    Some((date, until.unwrap_or_else(|| ms.saturating_add(1))))
}

/// The calendar period of an instant in a time zone, as `stats` keys its rows (`None` for no
/// time): the key is made again only when the date changes, since times come in runs of the
/// same date (a session's calls), and the date is worked out again only for an instant
/// outside the span known to be on it.
pub struct PeriodKeys {
    unit: Period,
    at: Option<At>,
    /// The instants (epoch milliseconds) known to be on the date `at` is: from the last one
    /// whose date was worked out up to the next midnight or change of offset. Empty when
    /// `at` is no date.
    known: std::ops::Range<i64>,
    key: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Undated,
    OutOfRange,
    On(jiff::civil::Date),
}

impl PeriodKeys {
    pub fn new(unit: Period) -> PeriodKeys {
        PeriodKeys { unit, at: None, known: 0..0, key: None }
    }

    pub fn key(&mut self, ms: Option<i64>, tz: &jiff::tz::TimeZone) -> &Option<String> {
        if ms.is_some_and(|t| self.known.contains(&t)) {
            return &self.key;
        }
        self.known = 0..0;
        let at = match ms {
            None => At::Undated,
            Some(t) => match date_until(t, tz) {
                Some((date, until)) => {
                    self.known = t..until;
                    At::On(date)
                }
                None => At::OutOfRange,
            },
        };
        if self.at != Some(at) {
            self.key = match at {
                At::Undated => None,
                At::OutOfRange => Some(OUT_OF_RANGE.to_string()),
                At::On(d) => Some(date_key(d, self.unit)),
            };
            self.at = Some(at);
        }
        &self.key
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    Day,
    Week,
    Month,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 24-byte form read 8 bytes at a time gives what the byte-by-byte parser gives: on
    /// times spread over the years 0-9999 (which it must take itself), and on each of them
    /// with any one byte replaced by any other (which it must take or leave to the other).
    #[test]
    fn the_common_form_reads_as_any_form_reads() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let (first, last) = (-62_167_219_200_000i64, 253_402_300_799_999i64);
        let mut taken = 0;
        for round in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let ms = match round {
                0 => first,
                1 => last,
                2 => 951_782_400_000,
                _ => first + (x % (last - first + 1) as u64) as i64,
            };
            let b = iso_bytes(ms).unwrap();
            assert_eq!(utc_millis(&b), Some(ms), "{}", String::from_utf8_lossy(&b));
            for at in 0..24 {
                for byte in 0..=255u8 {
                    let mut v = b;
                    v[at] = byte;
                    let Ok(text) = std::str::from_utf8(&v) else { continue };
                    assert_eq!(parse_iso8601(text), parse_iso8601_any(text), "{text:?}");
                    assert_eq!(parse_text(text), parse_ms_suffix(text).or_else(|| parse_iso8601_any(text)), "{text:?}");
                    taken += usize::from(utc_millis(&v).is_some());
                }
            }
        }
        // Each digit replaced by another digit mostly stays a time.
        assert!(taken > 400 * 17 * 5, "{taken}");
    }

    /// The digits written one by one are the formatted ones, at the ends of the years it
    /// writes, around leap days and at times spread over all of them; outside, none.
    #[test]
    fn iso_bytes_are_the_formatted_time() {
        let formatted = |ms: i64| {
            let (y, mo, d, h, mi, s, milli) = civil(ms);
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
        };
        let (first, last) = (-62_167_219_200_000i64, 253_402_300_799_999i64);
        let mut times = vec![first, last, 0, -1, 951_782_400_000, 951_868_799_999, 1_793_610_980_530];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            times.push(first + (x % (last - first + 1) as u64) as i64);
        }
        for ms in times {
            let b = iso_bytes(ms).unwrap_or_else(|| panic!("{ms} is in range"));
            assert_eq!(std::str::from_utf8(&b).unwrap(), formatted(ms), "{ms}");
            assert_eq!(Iso(ms).to_string(), formatted(ms));
        }
        for ms in [first - 1, last + 1, i64::MIN, i64::MAX] {
            assert_eq!(iso_bytes(ms), None);
            assert_eq!(Iso(ms).to_string(), formatted(ms));
        }
    }

    #[test]
    fn round_trips() {
        let ms = parse_iso8601("2026-11-02T09:00:05.002Z").unwrap();
        assert_eq!(ms, 1_793_610_005_002);
        assert_eq!(format_iso(ms), "2026-11-02T09:00:05.002Z");
        assert_eq!(format_file_stamp(ms), "2026-11-02-0900");
        assert_eq!(parse_iso8601("2026-11-02T11:00:05+02:00"), Some(1_793_610_005_000));
        assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso8601("2026-11-02T09:00:05.1Z"), Some(1_793_610_005_100));
        assert_eq!(parse_iso8601("2026-13-02T09:00:05Z"), None);
        assert_eq!(parse_iso8601("yesterday"), None);
        assert_eq!(parse_ms_suffix("1792661000878ms"), Some(1_792_661_000_878));
        assert_eq!(parse_ms_suffix("ms"), None);
        assert_eq!(format_iso(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn impossible_dates_are_refused() {
        assert_eq!(parse_iso8601("2026-02-31T00:00:00Z"), None);
        assert_eq!(parse_iso8601("2026-04-31T00:00:00Z"), None);
        assert!(parse_iso8601("2028-02-29T00:00:00Z").is_some());
        assert_eq!(parse_iso8601("2026-02-29T00:00:00Z"), None);
        let utc = jiff::tz::TimeZone::UTC;
        assert!(parse_when("2026-02-31", &utc, End::Since, 0).is_err());
        assert!(parse_when("2026-02-31T10:00", &utc, End::Since, 0).is_err());
        assert!(parse_when("2026-13-01", &utc, End::Until, 0).is_err());
    }

    #[test]
    fn user_times_in_a_zone() {
        let utc = jiff::tz::TimeZone::UTC;
        let berlin = zone(Some("Europe/Berlin")).unwrap();
        let day = parse_iso8601("2026-11-30T00:00:00Z").unwrap();
        assert_eq!(parse_when("2026-11-30", &utc, End::Since, 0), Ok(day));
        assert_eq!(parse_when("2026-11-30", &utc, End::Until, 0), Ok(day + 86_400_000));
        assert_eq!(parse_when("2026-11-30", &berlin, End::Since, 0), Ok(day - 3_600_000));
        assert_eq!(parse_when("2026-11-30T10:00", &berlin, End::Since, 0), Ok(day + 9 * 3_600_000));
        assert_eq!(parse_when("2026-11-30T10:00Z", &berlin, End::Since, 0), Ok(day + 10 * 3_600_000));
        assert_eq!(parse_when("7d", &utc, End::Since, day), Ok(day - 7 * 86_400_000));
        assert_eq!(parse_when("12h", &utc, End::Since, day), Ok(day - 12 * 3_600_000));
        assert!(parse_when("7y", &utc, End::Since, day).is_err());
        assert!(zone(Some("Mars/Olympus")).is_err());
        let late = parse_iso8601("2026-11-29T23:30:00Z").unwrap();
        let key = |tz: &jiff::tz::TimeZone, unit| PeriodKeys::new(unit).key(Some(late), tz).clone();
        assert_eq!(key(&utc, Period::Day).as_deref(), Some("2026-11-29"));
        assert_eq!(key(&berlin, Period::Day).as_deref(), Some("2026-11-30"));
        assert_eq!(key(&berlin, Period::Week).as_deref(), Some("2026-W49"));
        assert_eq!(key(&utc, Period::Month).as_deref(), Some("2026-11"));
    }

    /// The keys `stats` caches by date are the keys of each time, across the days clocks
    /// change and a day a zone skipped (Apia, 2011-12-30), a millisecond either side of each
    /// half hour (where local midnights and changes of offset fall), in any order, with
    /// undated and out-of-range times between. The reference is jiff's own formatting of the
    /// zoned time.
    #[test]
    fn cached_period_keys_are_each_times_key() {
        let zones = ["UTC", "Europe/Berlin", "America/Santiago", "Pacific/Apia", "Australia/Lord_Howe"];
        let start = parse_iso8601("2011-12-28T00:00:00Z").unwrap();
        let mut times: Vec<Option<i64>> =
            (0..2_000).flat_map(|k| [-1, 0].map(|d| Some(start + k * 1_800_000 + d))).collect();
        for (at, ms) in [(100, None), (700, Some(i64::MAX)), (900, Some(start - 86_400_000)), (901, None)] {
            times.insert(at, ms);
        }
        let later = parse_iso8601("2026-03-27T00:00:00Z").unwrap();
        times.extend((0..400).map(|k| Some(later + k * 900_000)));
        for name in zones {
            let tz = zone(Some(name)).unwrap();
            for (unit, fmt) in [(Period::Day, "%Y-%m-%d"), (Period::Week, "%G-W%V"), (Period::Month, "%Y-%m")] {
                let mut keys = PeriodKeys::new(unit);
                for &ms in &times {
                    let want = ms.map(|t| match jiff::Timestamp::from_millisecond(t) {
                        Ok(ts) => ts.to_zoned(tz.clone()).strftime(fmt).to_string(),
                        Err(_) => "(out of range)".to_string(),
                    });
                    assert_eq!(keys.key(ms, &tz), &want, "{name} {unit:?} {ms:?}");
                }
            }
        }
    }

    #[test]
    fn durations() {
        assert_eq!(format_duration(850), "850ms");
        assert_eq!(format_duration(4200), "4.2s");
        assert_eq!(format_duration(185_000), "3m 05s");
    }
}
