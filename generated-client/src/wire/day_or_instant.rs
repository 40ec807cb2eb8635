//! A date field that one method sends as `DD-MON-YY` and another as epoch seconds.
//!
//! `TimesheetData.startDate` and friends are `"05-JAN-26"` in `pay/getTimesheetsForBid` and
//! `1767571200` in `pay/getTimesheet`; one type keeps both without inventing a time of day or a
//! time zone for the first.

use core::fmt;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::Offset;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::date::{
    DateError, InstantError, date_error, instant_error, instant_from_seconds, parse_date,
    parse_instant,
};
use super::number::{Float, Int};
use super::raw::{NumberText, deserialize_number};
use super::{Lenient, Zero};

/// A calendar day or an instant, as the service sends the same field in either form.
///
/// Decodes a JSON number that is exactly an integer, or a string of digits (optional leading
/// `-`), as epoch seconds ([`DayOrInstant::Instant`]), `DD-MON-YY` or `YYYY-MM-DD` as [`DayOrInstant::Day`], and an
/// RFC 3339 string as [`DayOrInstant::Instant`]. Serializes (and displays) as `YYYY-MM-DD` or
/// RFC 3339, which decode back to the same variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DayOrInstant {
    /// A day sent as `DD-MON-YY` text, without time or time zone.
    Day(Date),
    /// An instant sent as epoch seconds.
    Instant(Timestamp),
}

impl DayOrInstant {
    /// The calendar day: the day itself, or the UTC day of the instant.
    ///
    /// The service does not say in which time zone its epoch values are meant, so an instant is
    /// projected in UTC; use the [`DayOrInstant::Instant`] value directly for another zone.
    pub fn date(&self) -> Date {
        match *self {
            DayOrInstant::Day(day) => day,
            DayOrInstant::Instant(instant) => Offset::UTC.to_datetime(instant).date(),
        }
    }
}

impl From<Date> for DayOrInstant {
    fn from(day: Date) -> Self {
        DayOrInstant::Day(day)
    }
}

impl From<Timestamp> for DayOrInstant {
    fn from(instant: Timestamp) -> Self {
        DayOrInstant::Instant(instant)
    }
}

/// The normalized form: `2026-01-05` or `2026-01-05T00:00:00Z`.
impl fmt::Display for DayOrInstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DayOrInstant::Day(day) => fmt::Display::fmt(day, f),
            DayOrInstant::Instant(instant) => fmt::Display::fmt(instant, f),
        }
    }
}

/// An instant at the epoch (`0`) means "none"; a day never does.
impl Zero for DayOrInstant {
    fn is_zero(&self) -> bool {
        matches!(self, DayOrInstant::Instant(instant) if instant.is_zero())
    }
}

struct DayOrInstantVisitor;

impl Visitor<'_> for DayOrInstantVisitor {
    type Value = DayOrInstant;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("epoch seconds, a DD-MON-YY or YYYY-MM-DD date, or an RFC 3339 timestamp")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<DayOrInstant, E> {
        instant_from_seconds(i64::from_u64(value))
            .map(DayOrInstant::Instant)
            .map_err(|error| instant_error(error, value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<DayOrInstant, E> {
        instant_from_seconds(Ok(value))
            .map(DayOrInstant::Instant)
            .map_err(|error| instant_error(error, value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<DayOrInstant, E> {
        instant_from_seconds(i64::from_f64(value))
            .map(DayOrInstant::Instant)
            .map_err(|error| instant_error(error, Float(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<DayOrInstant, E> {
        match parse_date(value) {
            Ok(day) => Ok(DayOrInstant::Day(day)),
            Err(DateError::NoSuchDay) => Err(date_error(DateError::NoSuchDay, value)),
            Err(DateError::Format) => match parse_instant(value) {
                Ok(instant) => Ok(DayOrInstant::Instant(instant)),
                Err(InstantError::Range) => Err(instant_error(
                    InstantError::Range,
                    format_args!("{value:?}"),
                )),
                Err(InstantError::Format) => Err(E::custom(format_args!(
                    "invalid date or timestamp {value:?}: expected epoch seconds, DD-MON-YY (like \
                     05-JAN-26), YYYY-MM-DD or RFC 3339"
                ))),
            },
        }
    }
}

impl NumberText<'_> for DayOrInstantVisitor {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<DayOrInstant, E> {
        instant_from_seconds(i64::from_number_text(text))
            .map(DayOrInstant::Instant)
            .map_err(|error| instant_error(error, text))
    }
}

/// See [`DayOrInstant`] for the accepted forms.
impl Lenient for DayOrInstant {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, DayOrInstantVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for DayOrInstant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_normalized(serializer)
    }
}

/// Same rules as [`Lenient`], so the type also works without a `with` attribute.
impl<'de> Deserialize<'de> for DayOrInstant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::deserialize_lenient(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use jiff::civil::date;

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Row {
        #[serde(with = "wire::lenient")]
        v: DayOrInstant,
    }

    fn value(json: &str) -> DayOrInstant {
        decode::<Row>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn value_err(json: &str) -> String {
        decode_err::<Row>(&format!(r#"{{"v":{json}}}"#))
    }

    fn instant(seconds: i64) -> DayOrInstant {
        DayOrInstant::Instant(Timestamp::from_second(seconds).unwrap())
    }

    #[test]
    fn numbers_and_digit_strings_are_instants() {
        assert_eq!(value("1767571200"), instant(1_767_571_200));
        assert_eq!(value(r#""1767571200""#), instant(1_767_571_200));
        assert_eq!(value("-60"), instant(-60));
        assert_eq!(value(r#""-60""#), instant(-60));
        assert_eq!(value("60.0"), instant(60));
        assert_eq!(value("6e1"), instant(60));
        let error = value_err("1767571200.0000000000000000001");
        assert!(
            error.starts_with("invalid timestamp 1767571200.0000000000000000001: expected whole"),
            "{error}"
        );
        assert_eq!(value(r#""2026-01-05T00:00:00Z""#), instant(1_767_571_200));
    }

    #[test]
    fn day_text_is_a_day() {
        assert_eq!(value(r#""05-JAN-26""#), DayOrInstant::Day(date(2026, 1, 5)));
        assert_eq!(
            value(r#""2026-01-05""#),
            DayOrInstant::Day(date(2026, 1, 5))
        );
    }

    #[test]
    fn bad_values_are_named() {
        let error = value_err(r#""31-FEB-26""#);
        assert!(
            error.starts_with(r#"invalid date "31-FEB-26": no such day; expected DD-MON-YY"#),
            "{error}"
        );
        for bad in ["5-JAN-26", "05-jan-26", "", " 1", "1.5", "tomorrow"] {
            let error = value_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!(
                    "invalid date or timestamp {bad:?}: expected epoch seconds, DD-MON-YY"
                )),
                "{bad:?}: {error}"
            );
        }
        let error = value_err(r#""99999999999999""#);
        assert!(
            error.starts_with(r#"epoch seconds "99999999999999" are out of range"#),
            "{error}"
        );
        let error = value_err("99999999999999");
        assert!(
            error.starts_with("epoch seconds 99999999999999 are out of range"),
            "{error}"
        );
        let error = value_err("1.5");
        assert!(
            error.starts_with("invalid timestamp 1.5: expected whole epoch seconds"),
            "{error}"
        );
        let error = value_err("null");
        assert!(
            error.starts_with("invalid type: null, expected epoch seconds"),
            "{error}"
        );
    }

    #[test]
    fn round_trips_keep_the_variant() {
        assert_eq!(
            round_trip::<Row>(r#"{"v":"05-JAN-26"}"#),
            r#"{"v":"2026-01-05"}"#
        );
        assert_eq!(
            round_trip::<Row>(r#"{"v":1767571200}"#),
            r#"{"v":"2026-01-05T00:00:00Z"}"#
        );
        assert_eq!(
            round_trip::<Row>(r#"{"v":"0"}"#),
            r#"{"v":"1970-01-01T00:00:00Z"}"#
        );
        // The type's own Serialize/Deserialize follow the same rules.
        let plain: DayOrInstant = serde_json::from_str(r#""05-JAN-26""#).unwrap();
        assert_eq!(serde_json::to_string(&plain).unwrap(), r#""2026-01-05""#);
    }

    #[test]
    fn date_projects_instants_in_utc() {
        assert_eq!(value(r#""05-JAN-26""#).date(), date(2026, 1, 5));
        assert_eq!(instant(1_767_571_200 + 86_399).date(), date(2026, 1, 5));
        assert_eq!(instant(-1).date(), date(1969, 12, 31));
        assert_eq!(
            DayOrInstant::from(date(2026, 1, 5)),
            DayOrInstant::Day(date(2026, 1, 5))
        );
        assert_eq!(DayOrInstant::from(Timestamp::UNIX_EPOCH), instant(0));
        assert_eq!(
            DayOrInstant::Instant(Timestamp::MAX).date(),
            date(9999, 12, 30)
        );
        assert_eq!(
            DayOrInstant::Instant(Timestamp::MIN).date(),
            date(-9999, 1, 2)
        );
    }

    #[test]
    fn only_the_epoch_instant_is_zero() {
        assert!(instant(0).is_zero());
        assert!(!instant(1).is_zero());
        assert!(!DayOrInstant::Day(date(1970, 1, 1)).is_zero());
    }
}
