//! When a label was set, as pi shows it beside the label in local time: `14:05` today,
//! `3/9 14:05` this year, `25/3/9 14:05` before.

/// A calendar time in the local zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Local {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

/// Seconds since the Unix epoch of an ISO 8601 UTC time (`2026-03-09T14:05:00.123Z`).
pub(super) fn parse_iso(s: &str) -> Option<i64> {
    let date = s.get(0..10)?;
    let time = s.get(11..19)?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next()??);
    Some(days_from_civil(y, m, day) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `secs` (Unix time) in the local time zone (UTC where it cannot be read).
pub(super) fn local(secs: i64) -> Local {
    #[cfg(unix)]
    {
        let t = secs as libc::time_t;
        // SAFETY: `tm` is plain data localtime_r fills in; both pointers are valid for the call.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        if !unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
            return Local {
                year: i64::from(tm.tm_year) + 1900,
                month: (tm.tm_mon + 1) as u32,
                day: tm.tm_mday as u32,
                hour: tm.tm_hour as u32,
                minute: tm.tm_min as u32,
            };
        }
    }
    utc(secs)
}

fn utc(secs: i64) -> Local {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Local {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        minute: ((rem % 3600) / 60) as u32,
    }
}

/// pi's label time for `at` seen at `now` (both local).
pub(super) fn label_time(at: Local, now: Local) -> String {
    let time = format!("{:02}:{:02}", at.hour, at.minute);
    if (at.year, at.month, at.day) == (now.year, now.month, now.day) {
        return time;
    }
    if at.year == now.year {
        return format!("{}/{} {time}", at.month, at.day);
    }
    format!(
        "{:02}/{}/{} {time}",
        at.year.rem_euclid(100),
        at.month,
        at.day
    )
}

/// The label time of an ISO timestamp, now.
pub(super) fn label_time_now(iso: &str) -> Option<String> {
    let at = local(parse_iso(iso)?);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Some(label_time(at, local(now)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_and_pis_label_format() {
        assert_eq!(parse_iso("1970-01-02T00:00:01.000Z"), Some(86_401));
        let secs = parse_iso("2026-03-09T14:05:59Z").unwrap_or_default();
        let t = utc(secs);
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.minute),
            (2026, 3, 9, 14, 5)
        );
        let now = Local {
            year: 2026,
            month: 3,
            day: 9,
            hour: 20,
            minute: 0,
        };
        assert_eq!(label_time(t, now), "14:05");
        assert_eq!(label_time(t, Local { day: 10, ..now }), "3/9 14:05");
        assert_eq!(label_time(t, Local { year: 2027, ..now }), "26/3/9 14:05");
        assert_eq!(parse_iso("not a time"), None);
    }
}
