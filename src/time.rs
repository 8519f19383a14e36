//! Timestamps: the ISO 8601 / RFC 3339 forms and epoch-millisecond forms session files use,
//! to and from epoch milliseconds (UTC). Small and strict; anything else is "unparsable".

/// Parse `2026-11-02T09:00:05.002Z` (offsets `+02:00`, no fraction, a space instead of `T`
/// are accepted) into epoch milliseconds.
pub fn parse_iso8601(s: &str) -> Option<i64> {
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
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
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

/// Any textual timestamp form a session file uses.
pub fn parse_text(s: &str) -> Option<i64> {
    parse_ms_suffix(s).or_else(|| parse_iso8601(s))
}

/// `2026-11-02T09:00:05.002Z`.
pub fn format_iso(ms: i64) -> String {
    Iso(ms).to_string()
}

/// [`format_iso`] as a `Display`, for writers that must not allocate per value.
pub struct Iso(pub i64);

impl std::fmt::Display for Iso {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (y, mo, d, h, mi, s, milli) = civil(self.0);
        write!(f, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn durations() {
        assert_eq!(format_duration(850), "850ms");
        assert_eq!(format_duration(4200), "4.2s");
        assert_eq!(format_duration(185_000), "3m 05s");
    }
}
