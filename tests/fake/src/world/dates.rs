//! Civil dates and UTC instants of the world, and the `DD-MON-YY` spelling of days.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

/// The instant of `day` at `h:m:s` UTC.
pub(crate) fn at(day: Date, h: i8, m: i8, s: i8) -> Timestamp {
    day.at(h, m, s, 0)
        .to_zoned(TimeZone::UTC)
        .expect("seeded instants are in range")
        .timestamp()
}

/// Midnight UTC of `day`, the instant of a day-type epoch.
pub(crate) fn midnight(day: Date) -> Timestamp {
    at(day, 0, 0, 0)
}

/// The UTC day of an instant.
pub(crate) fn day_of(instant: Timestamp) -> Date {
    instant.to_zoned(TimeZone::UTC).date()
}

/// `day` moved by `n` days.
pub(crate) fn plus_days(day: Date, n: i64) -> Date {
    day.checked_add(n.days())
        .expect("seeded dates are in range")
}

/// `instant` moved by `seconds`.
pub(crate) fn plus_seconds(instant: Timestamp, seconds: i64) -> Timestamp {
    instant
        .checked_add(seconds.seconds())
        .expect("seeded instants are in range")
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

/// `DD-MON-YY`, e.g. `05-JAN-26`.
pub(crate) fn dmy(day: Date) -> String {
    format!(
        "{:02}-{}-{:02}",
        day.day(),
        MONTHS[usize::try_from(day.month() - 1).expect("month 1..=12")],
        day.year().rem_euclid(100)
    )
}

/// Parses `DD-MON-YY` (two-digit day, upper-case English month, year 20YY); `None` otherwise.
pub(crate) fn parse_dmy(text: &str) -> Option<Date> {
    let bytes = text.as_bytes();
    if !text.is_ascii() || bytes.len() != 9 || bytes[2] != b'-' || bytes[6] != b'-' {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<i16> {
        let part = &text[range];
        if part.bytes().all(|b| b.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let day = digits(0..2)?;
    let year = digits(7..9)?;
    let month = MONTHS.iter().position(|m| *m == &text[3..6])?;
    Date::new(
        2000 + year,
        i8::try_from(month + 1).ok()?,
        i8::try_from(day).ok()?,
    )
    .ok()
}
