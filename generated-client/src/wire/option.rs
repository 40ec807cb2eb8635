//! Optional fields: absent, `null`, or (for [`Zero`] types) the service's `0` meaning "none".

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use super::{Lenient, Normalized};

/// Decodes `null` as `None` and anything else with [`Lenient`].
struct OptionVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient> Visitor<'de> for OptionVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or a value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        T::deserialize_lenient(deserializer).map(Some)
    }
}

fn deserialize_option<'de, D: Deserializer<'de>, T: Lenient>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    deserializer.deserialize_option(OptionVisitor(PhantomData))
}

fn serialize_option<T: Lenient, S: Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.serialize_some(&Normalized(value)),
        None => serializer.serialize_none(),
    }
}

/// `#[serde(default, with = "wire::lenient_opt")]` for an `Option<T>` with `T:`
/// [`Lenient`](crate::wire::Lenient): absent (through `default`) or `null` is `None`.
pub mod lenient_opt {
    use super::super::Lenient;
    use serde::{Deserializer, Serializer};

    /// Decodes `null` as `None`, anything else with [`Lenient::deserialize_lenient`].
    pub fn deserialize<'de, D: Deserializer<'de>, T: Lenient>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        super::deserialize_option(deserializer)
    }

    /// Writes `null` for `None`, else the normalized form.
    pub fn serialize<T: Lenient, S: Serializer>(
        value: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        super::serialize_option(value, serializer)
    }
}

/// `#[serde(with = "wire::zero_is_none")]` (optionally with `default`) for an `Option<T>` with
/// `T:` [`Lenient`](crate::wire::Lenient) + [`Zero`](crate::wire::Zero): `null`, `0` and `"0"`
/// (and for dates the epoch) are `None`.
pub mod zero_is_none {
    use super::super::{Lenient, Zero};
    use serde::{Deserializer, Serializer};

    /// Decodes like [`lenient_opt`](super::lenient_opt), then maps the zero value to `None`.
    pub fn deserialize<'de, D: Deserializer<'de>, T: Lenient + Zero>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        Ok(super::deserialize_option::<D, T>(deserializer)?.filter(|value| !value.is_zero()))
    }

    /// Writes `null` for `None`, else the normalized form.
    pub fn serialize<T: Lenient + Zero, S: Serializer>(
        value: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        super::serialize_option(value, serializer)
    }
}

#[cfg(test)]
mod tests {
    use crate::wire;
    use crate::wire::DayOrInstant;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use jiff::Timestamp;
    use jiff::civil::date;
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Optional {
        #[serde(default, with = "wire::lenient_opt")]
        count: Option<u64>,
        #[serde(default, with = "wire::lenient_opt")]
        rate: Option<Decimal>,
        #[serde(default, with = "wire::lenient_opt")]
        sent: Option<DayOrInstant>,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Zeroable {
        #[serde(with = "wire::zero_is_none")]
        milestone: Option<u64>,
        #[serde(default, with = "wire::zero_is_none")]
        delta: Option<i64>,
        #[serde(default, with = "wire::zero_is_none")]
        paid: Option<Timestamp>,
        #[serde(default, with = "wire::zero_is_none")]
        day: Option<DayOrInstant>,
    }

    #[test]
    fn lenient_opt_maps_absent_and_null_to_none() {
        let empty = Optional {
            count: None,
            rate: None,
            sent: None,
        };
        assert_eq!(decode::<Optional>("{}"), empty);
        assert_eq!(
            decode::<Optional>(r#"{"count":null,"rate":null,"sent":null}"#),
            empty
        );
        let full = decode::<Optional>(r#"{"count":"0","rate":"30.00","sent":"05-JAN-26"}"#);
        assert_eq!(full.count, Some(0));
        assert_eq!(
            full.rate.map(|rate| rate.to_string()),
            Some("30.00".to_owned())
        );
        assert_eq!(full.sent, Some(DayOrInstant::Day(date(2026, 1, 5))));
    }

    #[test]
    fn lenient_opt_keeps_the_inner_errors() {
        let error = decode_err::<Optional>(r#"{"count":"1,000"}"#);
        assert!(
            error.starts_with(r#"invalid integer "1,000": expected only digits"#),
            "{error}"
        );
        let error = decode_err::<Optional>(r#"{"rate":""}"#);
        assert!(
            error.starts_with(r#"invalid decimal "": expected digits"#),
            "{error}"
        );
    }

    #[test]
    fn zero_is_none_maps_null_zero_and_zero_text() {
        let none = Zeroable {
            milestone: None,
            delta: None,
            paid: None,
            day: None,
        };
        assert_eq!(decode::<Zeroable>(r#"{"milestone":null}"#), none);
        assert_eq!(
            decode::<Zeroable>(r#"{"milestone":0,"delta":0,"paid":0,"day":0}"#),
            none
        );
        assert_eq!(
            decode::<Zeroable>(r#"{"milestone":"0","delta":"-0","paid":"0","day":"0"}"#),
            none
        );
        assert_eq!(
            decode::<Zeroable>(r#"{"milestone":0.0,"paid":"1970-01-01T00:00:00Z"}"#),
            none
        );
        let some =
            decode::<Zeroable>(r#"{"milestone":"7","delta":-1,"paid":60,"day":"01-JAN-70"}"#);
        assert_eq!(some.milestone, Some(7));
        assert_eq!(some.delta, Some(-1));
        assert_eq!(some.paid, Some(Timestamp::from_second(60).unwrap()));
        assert_eq!(some.day, Some(DayOrInstant::Day(date(2070, 1, 1))));
    }

    #[test]
    fn zero_is_none_without_default_requires_the_field() {
        let error = decode_err::<Zeroable>("{}");
        assert!(error.starts_with("missing field `milestone`"), "{error}");
        let error = decode_err::<Zeroable>(r#"{"milestone":"x"}"#);
        assert!(
            error.starts_with(r#"invalid integer "x": expected only digits"#),
            "{error}"
        );
    }

    #[test]
    fn options_round_trip_with_null_for_none() {
        assert_eq!(
            round_trip::<Optional>(r#"{"count":"3","rate":1.5,"sent":"1767571200"}"#),
            r#"{"count":3,"rate":"1.5","sent":"2026-01-05T00:00:00Z"}"#
        );
        assert_eq!(
            round_trip::<Optional>("{}"),
            r#"{"count":null,"rate":null,"sent":null}"#
        );
        assert_eq!(
            round_trip::<Zeroable>(
                r#"{"milestone":"0","delta":"-5","paid":"0","day":"05-JAN-26"}"#
            ),
            r#"{"milestone":null,"delta":-5,"paid":null,"day":"2026-01-05"}"#
        );
    }
}
