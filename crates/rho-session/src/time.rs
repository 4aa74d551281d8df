//! ISO-8601 timestamps as pi writes them on entries (`2025-03-01T09:15:02.481Z`, UTC, milliseconds)
//! and their conversion to the Unix milliseconds messages carry.
//!
//! Hand-rolled (civil-date arithmetic) to keep a date crate out of the dependency tree.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The current time as an entry timestamp.
pub fn now_iso() -> String {
    format_iso(now_ms())
}

/// Formats Unix milliseconds like JavaScript's `Date.toISOString()`.
pub fn format_iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let day_ms = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// Parses an ISO-8601 date-time (`YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`) to Unix milliseconds.
/// `None` for anything else, so a malformed timestamp never fails a load.
pub fn parse_iso(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> { s.get(from..to)?.parse().ok() };
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &frac[..digits.min(3)]);
        millis = padded.parse::<i64>().ok()?;
        rest = &frac[digits..];
    }
    let offset_ms = parse_offset(rest)?;
    let days = days_from_civil(y, mo, d);
    Some(days * 86_400_000 + ((h * 60 + mi) * 60 + sec) * 1000 + millis - offset_ms)
}

/// `Z` → 0, `±HH:MM` → the offset in milliseconds.
fn parse_offset(rest: &str) -> Option<i64> {
    if rest == "Z" || rest == "z" {
        return Some(0);
    }
    let sign = match rest.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &rest[1..];
    let (h, m) = body
        .split_once(':')
        .unwrap_or((body.get(..2)?, body.get(2..)?));
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    Some(sign * (h * 60 + m) * 60_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
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
    fn formats_like_to_iso_string() {
        assert_eq!(format_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(1_740_820_502_481), "2025-03-01T09:15:02.481Z");
        assert_eq!(format_iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn parses_what_it_formats_and_offsets() {
        for ms in [0, 1_740_820_502_481, 951_782_400_000, 4_102_444_799_999] {
            assert_eq!(parse_iso(&format_iso(ms)), Some(ms));
        }
        assert_eq!(
            parse_iso("2025-03-01T10:15:02.481+01:00"),
            Some(1_740_820_502_481)
        );
        assert_eq!(parse_iso("2025-03-01T09:15:02Z"), Some(1_740_820_502_000));
        assert_eq!(parse_iso("2025-03-01T09:15:02.4Z"), Some(1_740_820_502_400));
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "yesterday",
            "2025-13-01T00:00:00Z",
            "2025-03-01T09:15:02",
            "2025-03-01T09:15:02.Z",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }
}
