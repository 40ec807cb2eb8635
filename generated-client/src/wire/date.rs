//! Dates: `DD-MON-YY` days and epoch-second instants.
//!
//! The reference uses two formats: day text `DD-MON-YY` (`05-JAN-26`, upper-case English month,
//! year 2000 + YY) and integer seconds since the epoch, sometimes sent as a string. Serializing
//! writes ISO 8601 (`2026-01-05`, `2026-01-05T00:00:00Z`), which is accepted back.

use core::fmt;

use jiff::Timestamp;
use jiff::civil::Date;
use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use super::number::{Float, Int, IntError};
use super::raw::{NumberText, deserialize_number};
use super::{Lenient, Zero};

/// Why a string is not a date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DateError {
    /// Neither `DD-MON-YY` nor `YYYY-MM-DD`.
    Format,
    /// The right shape, but not a day of the calendar (`31-FEB-26`).
    NoSuchDay,
}

fn two_digits(high: u8, low: u8) -> Option<i8> {
    if high.is_ascii_digit() && low.is_ascii_digit() {
        // Both are '0'..='9', so the result is at most 99.
        Some(((high - b'0') * 10 + (low - b'0')) as i8)
    } else {
        None
    }
}

fn month_number(name: [u8; 3]) -> Option<i8> {
    const MONTHS: [&[u8; 3]; 12] = [
        b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV",
        b"DEC",
    ];
    let index = MONTHS.iter().position(|month| **month == name)?;
    // At most 12.
    Some(index as i8 + 1)
}

/// Parses `DD-MON-YY` (the service's format) or `YYYY-MM-DD` (the normalized form).
pub(super) fn parse_date(text: &str) -> Result<Date, DateError> {
    let (year, month, day) = match *text.as_bytes() {
        [d1, d2, b'-', m1, m2, m3, b'-', y1, y2] => {
            match (
                two_digits(d1, d2),
                month_number([m1, m2, m3]),
                two_digits(y1, y2),
            ) {
                (Some(day), Some(month), Some(year)) => (2000 + i16::from(year), month, day),
                _ => return Err(DateError::Format),
            }
        }
        [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2] => {
            match (
                two_digits(y1, y2),
                two_digits(y3, y4),
                two_digits(m1, m2),
                two_digits(d1, d2),
            ) {
                (Some(century), Some(year), Some(month), Some(day)) => {
                    (i16::from(century) * 100 + i16::from(year), month, day)
                }
                _ => return Err(DateError::Format),
            }
        }
        _ => return Err(DateError::Format),
    };
    Date::new(year, month, day).map_err(|_| DateError::NoSuchDay)
}

/// The accepted date formats, for error messages.
const DATE_FORMATS: &str = "DD-MON-YY (like 05-JAN-26) or YYYY-MM-DD";

pub(super) fn date_error<E: de::Error>(error: DateError, text: &str) -> E {
    match error {
        DateError::Format => E::custom(format_args!(
            "invalid date {text:?}: expected {DATE_FORMATS}"
        )),
        DateError::NoSuchDay => E::custom(format_args!(
            "invalid date {text:?}: no such day; expected {DATE_FORMATS}"
        )),
    }
}

/// Why a value is not a timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InstantError {
    /// Neither whole epoch seconds nor RFC 3339.
    Format,
    /// Whole epoch seconds beyond what [`Timestamp`] represents.
    Range,
}

/// A timestamp from whole epoch seconds, already converted by the integer rules.
pub(super) fn instant_from_seconds(
    seconds: Result<i64, IntError>,
) -> Result<Timestamp, InstantError> {
    match seconds {
        Ok(seconds) => Timestamp::from_second(seconds).map_err(|_| InstantError::Range),
        Err(IntError::TooLarge | IntError::TooSmall) => Err(InstantError::Range),
        Err(IntError::Syntax | IntError::Fraction | IntError::NotFinite) => {
            Err(InstantError::Format)
        }
    }
}

/// A timestamp from epoch-second digits (optional leading `-`) or RFC 3339 text.
pub(super) fn parse_instant(text: &str) -> Result<Timestamp, InstantError> {
    match i64::from_text(text) {
        Err(IntError::Syntax) => text.parse().map_err(|_| InstantError::Format),
        seconds => instant_from_seconds(seconds),
    }
}

pub(super) fn instant_error<E: de::Error>(error: InstantError, value: impl fmt::Display) -> E {
    match error {
        InstantError::Format => E::custom(format_args!(
            "invalid timestamp {value}: expected whole epoch seconds or an RFC 3339 timestamp like \
             \"2026-01-05T00:00:00Z\""
        )),
        InstantError::Range => E::custom(format_args!(
            "epoch seconds {value} are out of range for a timestamp"
        )),
    }
}

struct DateVisitor;

impl Visitor<'_> for DateVisitor {
    type Value = Date;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a date as {DATE_FORMATS}")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Date, E> {
        parse_date(value).map_err(|error| date_error(error, value))
    }
}

/// `DD-MON-YY` (exactly two digits, an upper-case English month abbreviation, two digits meaning
/// 2000 + YY) or ISO `YYYY-MM-DD`; written as `YYYY-MM-DD`.
impl Lenient for Date {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DateVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

struct InstantVisitor;

impl Visitor<'_> for InstantVisitor {
    type Value = Timestamp;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("epoch seconds or an RFC 3339 timestamp")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Timestamp, E> {
        instant_from_seconds(i64::from_u64(value)).map_err(|error| instant_error(error, value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Timestamp, E> {
        instant_from_seconds(Ok(value)).map_err(|error| instant_error(error, value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Timestamp, E> {
        instant_from_seconds(i64::from_f64(value))
            .map_err(|error| instant_error(error, Float(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Timestamp, E> {
        parse_instant(value).map_err(|error| instant_error(error, format_args!("{value:?}")))
    }
}

impl NumberText<'_> for InstantVisitor {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<Timestamp, E> {
        instant_from_seconds(i64::from_number_text(text))
            .map_err(|error| instant_error(error, text))
    }
}

/// Epoch seconds as a JSON number that is exactly an integer (by the integer rules: `60`,
/// `60.0`) or a string of digits with an optional leading `-`, or an RFC 3339 string; written as
/// RFC 3339 in UTC.
impl Lenient for Timestamp {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, InstantVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The epoch (`0`) means "none".
impl Zero for Timestamp {
    fn is_zero(&self) -> bool {
        *self == Timestamp::UNIX_EPOCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use jiff::civil::date;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Day {
        #[serde(with = "wire::lenient")]
        v: Date,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Instant {
        #[serde(with = "wire::lenient")]
        v: Timestamp,
    }

    fn day(json: &str) -> Date {
        decode::<Day>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn day_err(json: &str) -> String {
        decode_err::<Day>(&format!(r#"{{"v":{json}}}"#))
    }

    fn instant(json: &str) -> Timestamp {
        decode::<Instant>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn instant_err(json: &str) -> String {
        decode_err::<Instant>(&format!(r#"{{"v":{json}}}"#))
    }

    fn ts(seconds: i64) -> Timestamp {
        Timestamp::from_second(seconds).unwrap()
    }

    #[test]
    fn date_reads_dd_mon_yy_for_every_month() {
        assert_eq!(day(r#""05-JAN-26""#), date(2026, 1, 5));
        assert_eq!(day(r#""29-FEB-24""#), date(2024, 2, 29));
        assert_eq!(day(r#""01-JAN-00""#), date(2000, 1, 1));
        assert_eq!(day(r#""31-DEC-99""#), date(2099, 12, 31));
        for (month, name) in [
            "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(
                day(&format!(r#""10-{name}-26""#)),
                date(2026, month as i8 + 1, 10)
            );
        }
    }

    #[test]
    fn date_reads_iso() {
        assert_eq!(day(r#""2026-01-05""#), date(2026, 1, 5));
        assert_eq!(day(r#""0001-12-31""#), date(1, 12, 31));
    }

    #[test]
    fn date_rejects_other_shapes_naming_value_and_format() {
        for bad in [
            "5-JAN-26",
            "05-jan-26",
            "05-Jan-26",
            "05-JUNE-26",
            "05-XYZ-26",
            "05-JAN-2026",
            "05/JAN/26",
            " 05-JAN-26",
            "05-JAN-26 ",
            "",
            "2026-1-05",
            "2026-01-05T00:00:00Z",
            "20260105",
            "+2026-01-05",
            "0a-JAN-26",
        ] {
            let error = day_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!(
                    "invalid date {bad:?}: expected DD-MON-YY (like 05-JAN-26) or YYYY-MM-DD"
                )),
                "{bad:?}: {error}"
            );
        }
        for bad in [
            "31-FEB-26",
            "29-FEB-26",
            "00-JAN-26",
            "32-JAN-26",
            "2026-13-01",
            "2026-02-30",
            "2026-00-10",
        ] {
            let error = day_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!(
                    "invalid date {bad:?}: no such day; expected DD-MON-YY (like 05-JAN-26) or YYYY-MM-DD"
                )),
                "{bad:?}: {error}"
            );
        }
        let error = day_err("1767571200");
        assert!(
            error.starts_with("invalid type: integer `1767571200`, expected a date"),
            "{error}"
        );
    }

    #[test]
    fn date_round_trips_as_iso() {
        assert_eq!(
            round_trip::<Day>(r#"{"v":"05-JAN-26"}"#),
            r#"{"v":"2026-01-05"}"#
        );
        assert_eq!(
            round_trip::<Day>(r#"{"v":"2026-01-05"}"#),
            r#"{"v":"2026-01-05"}"#
        );
    }

    #[test]
    fn timestamp_reads_epoch_seconds() {
        assert_eq!(instant("1767571200"), ts(1_767_571_200));
        assert_eq!(instant(r#""1767571200""#), ts(1_767_571_200));
        assert_eq!(instant("0"), Timestamp::UNIX_EPOCH);
        assert_eq!(instant("-86400"), ts(-86_400));
        assert_eq!(instant(r#""-86400""#), ts(-86_400));
        assert_eq!(instant("1767571200.0"), ts(1_767_571_200));
        assert_eq!(instant("1.7675712e9"), ts(1_767_571_200));
        assert_eq!(instant("-0.0"), Timestamp::UNIX_EPOCH);
        // f64 would round this to 1767571200.
        assert!(
            instant_err("1767571200.0000000000000000001")
                .starts_with("invalid timestamp 1767571200.0000000000000000001: expected whole")
        );
        assert!(instant_err("1e-999").starts_with("invalid timestamp 1e-999: expected whole"));
        let (min, max) = (Timestamp::MIN.as_second(), Timestamp::MAX.as_second());
        assert_eq!(instant(&max.to_string()), ts(max));
        assert_eq!(instant(&min.to_string()), ts(min));
        assert!(instant_err(&(max + 1).to_string()).contains("are out of range for a timestamp"));
        assert!(instant_err(&(min - 1).to_string()).contains("are out of range for a timestamp"));
    }

    #[test]
    fn timestamp_reads_rfc3339() {
        assert_eq!(instant(r#""2026-01-05T00:00:00Z""#), ts(1_767_571_200));
        assert_eq!(instant(r#""2026-01-05T02:00:00+02:00""#), ts(1_767_571_200));
        assert_eq!(
            instant(r#""1970-01-01T00:00:00.5Z""#),
            Timestamp::new(0, 500_000_000).unwrap()
        );
    }

    #[test]
    fn timestamp_rejects_other_values_naming_them() {
        for bad in [
            "",
            " 1",
            "+1",
            "1,000",
            "1.5",
            "2026-01-05",
            "05-JAN-26",
            "2026-01-05T00:00:00",
            "now",
        ] {
            let error = instant_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!(
                    "invalid timestamp {bad:?}: expected whole epoch seconds or an RFC 3339 timestamp"
                )),
                "{bad:?}: {error}"
            );
        }
        assert!(
            instant_err("1.5").starts_with("invalid timestamp 1.5: expected whole epoch seconds")
        );
        assert!(
            instant_err("99999999999999")
                .starts_with("epoch seconds 99999999999999 are out of range for a timestamp")
        );
        assert!(
            instant_err(r#""-99999999999999""#)
                .starts_with(r#"epoch seconds "-99999999999999" are out of range for a timestamp"#)
        );
        assert!(instant_err(r#""99999999999999999999""#).starts_with(
            r#"epoch seconds "99999999999999999999" are out of range for a timestamp"#
        ));
        assert!(
            instant_err("18446744073709551615")
                .starts_with("epoch seconds 18446744073709551615 are out of range for a timestamp")
        );
        assert!(
            instant_err("1e300")
                .starts_with("epoch seconds 1e300 are out of range for a timestamp")
        );
        assert!(instant_err("true").contains("expected epoch seconds or an RFC 3339 timestamp"));
    }

    #[test]
    fn timestamp_round_trips_as_rfc3339() {
        assert_eq!(
            round_trip::<Instant>(r#"{"v":1767571200}"#),
            r#"{"v":"2026-01-05T00:00:00Z"}"#
        );
        assert_eq!(
            round_trip::<Instant>(r#"{"v":"-1"}"#),
            r#"{"v":"1969-12-31T23:59:59Z"}"#
        );
        for limit in [Timestamp::MIN.as_second(), Timestamp::MAX.as_second()] {
            round_trip::<Instant>(&format!(r#"{{"v":{limit}}}"#));
        }
    }

    #[test]
    fn epoch_is_zero() {
        assert!(Timestamp::UNIX_EPOCH.is_zero());
        assert!(!ts(1).is_zero());
    }
}
