//! The two time formats the store meets: the catalog's `generatedAt` (ISO 8601, UTC) and a
//! catalog response's `Last-Modified` (an HTTP date), both as Unix ms.

/// An ISO 8601 UTC time (`2026-11-20T10:48:49.496Z`) as Unix ms; `None` when it is not one.
pub fn iso_to_ms(text: &str) -> Option<i64> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let millis: i64 = format!("{frac:0<3}").get(..3)?.parse().ok()?;
    Some(to_ms(year, month, day, hms)? + millis)
}

/// An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`) as Unix ms; `None` when it is not one
/// (pi then records 0).
pub fn http_date_to_ms(text: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = text.trim().split_once(", ")?.1;
    let mut parts = rest.split_whitespace();
    let day = parts.next()?.parse().ok()?;
    let name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == name)? as i64 + 1;
    let year = parts.next()?.parse().ok()?;
    let hms = parts.next()?;
    (parts.next()? == "GMT").then_some(())?;
    to_ms(year, month, day, hms)
}

fn to_ms(year: i64, month: i64, day: i64, hms: &str) -> Option<i64> {
    let mut t = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (t.next()??, t.next()??, t.next()??);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some((((days * 24 + hour) * 60 + minute) * 60 + second) * 1000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_read_as_unix_ms() {
        assert_eq!(iso_to_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(iso_to_ms("2000-03-01T00:00:01Z"), Some(951_868_801_000));
        assert_eq!(
            iso_to_ms("2026-11-20T10:48:49.496Z"),
            Some(1_795_171_729_496)
        );
        assert_eq!(iso_to_ms("yesterday"), None);
        assert_eq!(
            http_date_to_ms("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(1_445_412_480_000)
        );
        assert_eq!(http_date_to_ms("Wed, 21 Foo 2015 07:28:00 GMT"), None);
        assert_eq!(http_date_to_ms(""), None);
    }
}
