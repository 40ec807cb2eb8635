//! Decoding the service's loosely typed JSON into exact Rust types.
//!
//! The reference says "unless otherwise specified, JSON values are strings" and then delivers
//! some fields as strings in list methods and as JSON numbers in single-record methods. Generated
//! code therefore never relies on a type's own `Deserialize`; it names one of the `with` modules
//! here, and each module accepts exactly the spellings the service is known to use and nothing
//! else:
//!
//! | quirk of the service | handled by |
//! |---|---|
//! | integers, decimals and booleans arrive as JSON values or as strings (`"30.00"`, `"1"`) | [`Lenient`] via [`lenient`], [`lenient_opt`] |
//! | a JSON number with more digits than an `f64` holds (`12345678901234567.89`) | every number decoder reads the number's digits, never an `f64` |
//! | `0` means none/unset in ID and date fields (`paidDate`, `paymentId`, `milestoneId`) | [`Zero`] via [`zero_is_none`] |
//! | dates are `DD-MON-YY` text or epoch seconds, sometimes the same field in two methods | [`Lenient`] for `jiff` types, [`DayOrInstant`] |
//! | arrays arrive as objects keyed `"0"`, `"1"`, ... (`{}` when empty, gaps after filtering) | [`collection`], [`collection_opt`], [`lenient_list`] |
//! | enumerated text, documented values known, others possible | [`WireEnum`], [`deserialize_enum`] |
//! | an object whose fields the reference does not show | [`opaque`]: kept as sent, a key sent twice or a number a `serde_json::Value` would round refused |
//!
//! Serializing writes the normalized form (JSON numbers for integers, decimal strings that keep
//! their scale, ISO dates, RFC 3339 timestamps, JSON arrays, `null` for `None`), which every
//! decoder here accepts again, so `decode(encode(x)) == x`.
//!
//! Every error is built with [`serde::de::Error`], names the offending value and keeps the
//! position of the value in the document. Nothing here panics on any input.

use serde::{Deserializer, Serialize, Serializer};

mod date;
mod day_or_instant;
mod enums;
mod list;
mod number;
pub mod opaque;
mod option;
mod raw;
mod scalar;

pub use day_or_instant::DayOrInstant;
pub use enums::{WireEnum, deserialize_enum};
pub use list::{collection, collection_opt, lenient_list};
pub use option::{lenient_opt, zero_is_none};

/// A type that the service spells in more than one way.
///
/// Implemented for `u64`, `i64`, [`Decimal`](rust_decimal::Decimal), `bool`, `String`,
/// [`jiff::civil::Date`], [`jiff::Timestamp`] and [`DayOrInstant`]. Each implementation documents
/// the spellings it accepts.
pub trait Lenient: Sized {
    /// Decodes a value written in any of the spellings the service uses for this type.
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;

    /// Writes the value in its normalized form, which [`Lenient::deserialize_lenient`] accepts.
    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// A type with a value that the service uses to mean "none" (`0`, or the epoch for dates).
pub trait Zero {
    /// Whether this is the "none" value.
    fn is_zero(&self) -> bool;
}

/// `#[serde(with = "wire::lenient")]` for a field whose type implements [`Lenient`].
pub mod lenient {
    use super::{Lenient, Normalized};
    use serde::{Deserializer, Serialize, Serializer};

    /// Decodes the field with [`Lenient::deserialize_lenient`].
    pub fn deserialize<'de, D: Deserializer<'de>, T: Lenient>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        T::deserialize_lenient(deserializer)
    }

    /// Writes the field's normalized form.
    pub fn serialize<T: Lenient, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        Normalized(value).serialize(serializer)
    }
}

/// Serializes a [`Lenient`] value in its normalized form (for use inside options and lists).
struct Normalized<'a, T>(&'a T);

impl<T: Lenient> Serialize for Normalized<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_normalized(serializer)
    }
}

/// Decodes a [`Lenient`] value as a seed, so lists and options can decode their elements through
/// `next_value_seed` / `next_element_seed` and keep each element's position in error paths.
struct LenientSeed<T>(core::marker::PhantomData<T>);

impl<T> LenientSeed<T> {
    const NEW: Self = LenientSeed(core::marker::PhantomData);
}

impl<T> Clone for LenientSeed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for LenientSeed<T> {}

impl<'de, T: Lenient> serde::de::DeserializeSeed<'de> for LenientSeed<T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize_lenient(deserializer)
    }
}

/// Helpers shared by the unit tests of the submodules.
#[cfg(test)]
mod testing {
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// Decodes `json`, panicking with the error on failure.
    pub fn decode<T: DeserializeOwned>(json: &str) -> T {
        match serde_json::from_str(json) {
            Ok(value) => value,
            Err(error) => panic!("decoding {json} failed: {error}"),
        }
    }

    /// Decodes `json`, expecting failure, and returns the error text.
    pub fn decode_err<T: DeserializeOwned + Debug>(json: &str) -> String {
        match serde_json::from_str::<T>(json) {
            Ok(value) => panic!("decoding {json} should fail, got {value:?}"),
            Err(error) => error.to_string(),
        }
    }

    /// Checks `decode(serialize(decode(json))) == decode(json)` and returns the serialized text.
    pub fn round_trip<T: DeserializeOwned + Serialize + PartialEq + Debug>(json: &str) -> String {
        let first: T = decode(json);
        let written = serde_json::to_string(&first).expect("serialize");
        let second: T = decode(&written);
        assert_eq!(first, second, "round trip of {json} through {written}");
        written
    }
}
