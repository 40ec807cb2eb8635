//! Integers and decimals: JSON numbers, or strings of digits, converted exactly.
//!
//! List methods send `"30.00"` and `"12"` where single-record methods send `30` and `12`; both
//! must give the same value, and anything else in a string (spaces, `+`, separators, exponents)
//! is rejected rather than guessed at. A JSON number is decoded from its digits
//! ([`raw`](super::raw)), never through `f64`: `30.00` and `"30.00"` are the same decimal with
//! the same scale, and a number that the type cannot hold exactly (`12345678901234567.89` as an
//! integer, `1e-999` as a decimal) is an error, never a rounded value.
//!
//! The rule for integers, decided here for every integer and epoch field ([`Int`]): a JSON
//! number is taken when its value is exactly a whole number in the type's range, however it is
//! spelled (`7`, `7.0`, `7e0`, `70e-1`, `-0`): JSON Schema's `integer`, the type the OpenAPI
//! export gives these fields, and what PHP (`JSON_PRESERVE_ZERO_FRACTION`, `-0`) or Python
//! write for a whole float. A string must be ASCII digits (with a leading `-` for `i64`), as
//! list methods write them. Anything else (a fraction that is not zero however far out, a value
//! out of range, a string with a sign, spaces, a point or an exponent) is refused.

use core::fmt::{self, Write as _};
use core::marker::PhantomData;

use rust_decimal::Decimal;
use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use super::raw::{NumberText, deserialize_number};
use super::{Lenient, Zero};

/// Whether `text` is a non-empty run of ASCII digits.
pub(super) fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The value of a non-empty run of ASCII digits in one pass: `Err(Syntax)` for anything else,
/// `Ok(None)` when it does not fit a `u64`.
fn digits_value(digits: &[u8]) -> Result<Option<u64>, IntError> {
    if digits.is_empty() {
        return Err(IntError::Syntax);
    }
    // 19 digits are below 10^19 < u64::MAX: no overflow check is needed for them.
    let (head, tail) = digits.split_at(digits.len().min(19));
    let mut value = 0_u64;
    for &byte in head {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(IntError::Syntax);
        }
        value = value * 10 + u64::from(digit);
    }
    let mut value = Some(value);
    for &byte in tail {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(IntError::Syntax);
        }
        value = value.and_then(|v| v.checked_mul(10)?.checked_add(u64::from(digit)));
    }
    Ok(value)
}

/// Why a value is not an integer of the wanted type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IntError {
    Syntax,
    Fraction,
    NotFinite,
    TooLarge,
    TooSmall,
}

/// The integer types of the wire, with their exact conversions.
pub(super) trait Int: Sized {
    /// The type's name, for error messages.
    const NAME: &'static str;
    /// What a string must look like, for error messages.
    const SYNTAX: &'static str;
    fn from_u64(value: u64) -> Result<Self, IntError>;
    fn from_i64(value: i64) -> Result<Self, IntError>;
    fn from_i128(value: i128) -> Result<Self, IntError>;
    fn from_f64(value: f64) -> Result<Self, IntError>;
    /// A string of digits (the type's [`Int::SYNTAX`]).
    fn from_text(text: &str) -> Result<Self, IntError>;

    /// A JSON number's text: digits as in a string, or any spelling whose value is exactly a
    /// whole number in range (`12.0`, `1e3`, `120e-1`, `-0.0`); see the module's rule.
    fn from_number_text(text: &str) -> Result<Self, IntError> {
        match Self::from_text(text) {
            Err(IntError::Syntax) => Self::from_i128(exact_integer(text)?),
            converted => converted,
        }
    }
}

/// Splits a JSON number's text into the part before the exponent and the exponent (0 when
/// there is none; saturated, since only its sign and size matter beyond `i64`). `None` when the
/// exponent is malformed.
fn split_exponent(text: &str) -> Option<(&str, i64)> {
    let Some(at) = text.find(['e', 'E']) else {
        return Some((text, 0));
    };
    let (base, exponent) = (text.get(..at)?, text.get(at + 1..)?);
    let (negative, digits) = match exponent.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let magnitude = digits.iter().fold(0_i64, |value, digit| {
        value
            .saturating_mul(10)
            .saturating_add(i64::from(digit - b'0'))
    });
    Some((base, if negative { -magnitude } else { magnitude }))
}

/// The integer a JSON number's text spells exactly: `12.0`, `1.5e1` and `-0.0` are integers,
/// `0.5` and `1e-1` are not (`Fraction`). Never rounds: every digit is looked at.
fn exact_integer(text: &str) -> Result<i128, IntError> {
    let (base, exponent) = split_exponent(text).ok_or(IntError::Syntax)?;
    let (negative, base) = match base.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, base),
    };
    let (whole, fraction) = match base.split_once('.') {
        Some((whole, fraction)) if all_digits(fraction) => (whole, fraction),
        Some(_) => return Err(IntError::Syntax),
        None => (base, ""),
    };
    if !all_digits(whole) {
        return Err(IntError::Syntax);
    }
    let too_far = if negative {
        IntError::TooSmall
    } else {
        IntError::TooLarge
    };
    // The digits before the decimal point once the exponent has moved it (at most ~2^63 + 2^64,
    // so i128 holds it).
    let kept = whole.len() as i128 + i128::from(exponent);
    let mut magnitude: Option<u128> = Some(0);
    for (position, digit) in whole.bytes().chain(fraction.bytes()).enumerate() {
        let digit = u128::from(digit - b'0');
        if (position as i128) < kept {
            magnitude = magnitude.and_then(|m| m.checked_mul(10)?.checked_add(digit));
        } else if digit != 0 {
            return Err(IntError::Fraction);
        }
    }
    // Zeros the exponent appends; stops at zero (any exponent) or at the first overflow.
    let mut zeros = kept - (whole.len() + fraction.len()) as i128;
    while zeros > 0 && magnitude.is_some_and(|m| m != 0) {
        magnitude = magnitude.and_then(|m| m.checked_mul(10));
        zeros -= 1;
    }
    let magnitude = magnitude
        .and_then(|m| i128::try_from(m).ok())
        .ok_or(too_far)?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// A float is an integer only if it is finite and has no fractional part.
fn integral(value: f64) -> Result<f64, IntError> {
    if !value.is_finite() {
        Err(IntError::NotFinite)
    } else if value.trunc() != value {
        Err(IntError::Fraction)
    } else {
        Ok(value)
    }
}

impl Int for u64 {
    const NAME: &'static str = "u64";
    const SYNTAX: &'static str = "expected only digits";

    fn from_u64(value: u64) -> Result<Self, IntError> {
        Ok(value)
    }

    fn from_i64(value: i64) -> Result<Self, IntError> {
        u64::try_from(value).map_err(|_| IntError::TooSmall)
    }

    fn from_i128(value: i128) -> Result<Self, IntError> {
        u64::try_from(value).map_err(|_| {
            if value < 0 {
                IntError::TooSmall
            } else {
                IntError::TooLarge
            }
        })
    }

    fn from_f64(value: f64) -> Result<Self, IntError> {
        let value = integral(value)?;
        if value < 0.0 {
            Err(IntError::TooSmall)
        } else if value >= 18_446_744_073_709_551_616.0 {
            Err(IntError::TooLarge)
        } else {
            // In range and integral, so the cast is exact.
            Ok(value as u64)
        }
    }

    fn from_text(text: &str) -> Result<Self, IntError> {
        digits_value(text.as_bytes())?.ok_or(IntError::TooLarge)
    }
}

impl Int for i64 {
    const NAME: &'static str = "i64";
    const SYNTAX: &'static str = "expected only digits, optionally after a leading '-'";

    fn from_u64(value: u64) -> Result<Self, IntError> {
        i64::try_from(value).map_err(|_| IntError::TooLarge)
    }

    fn from_i64(value: i64) -> Result<Self, IntError> {
        Ok(value)
    }

    fn from_i128(value: i128) -> Result<Self, IntError> {
        i64::try_from(value).map_err(|_| {
            if value < 0 {
                IntError::TooSmall
            } else {
                IntError::TooLarge
            }
        })
    }

    fn from_f64(value: f64) -> Result<Self, IntError> {
        let value = integral(value)?;
        if value < -9_223_372_036_854_775_808.0 {
            Err(IntError::TooSmall)
        } else if value >= 9_223_372_036_854_775_808.0 {
            Err(IntError::TooLarge)
        } else {
            // In range and integral, so the cast is exact.
            Ok(value as i64)
        }
    }

    fn from_text(text: &str) -> Result<Self, IntError> {
        match text.as_bytes() {
            [b'-', digits @ ..] => match digits_value(digits)? {
                Some(magnitude) => Self::from_i128(-i128::from(magnitude)),
                None => Err(IntError::TooSmall),
            },
            digits => Self::from_i128(digits_value(digits)?.map_or(i128::MAX, i128::from)),
        }
    }
}

/// The error for `value` (already formatted, strings quoted) that is not a `T`.
pub(super) fn int_error<T: Int, E: de::Error>(error: IntError, value: impl fmt::Display) -> E {
    let name = T::NAME;
    match error {
        IntError::Syntax => E::custom(format_args!("invalid integer {value}: {}", T::SYNTAX)),
        IntError::Fraction => E::custom(format_args!(
            "invalid integer {value}: has a fractional part"
        )),
        IntError::NotFinite => {
            E::custom(format_args!("invalid integer {value}: not a finite number"))
        }
        IntError::TooLarge => E::custom(format_args!("integer {value} is too large for {name}")),
        IntError::TooSmall => E::custom(format_args!("integer {value} is too small for {name}")),
    }
}

/// Shows a float in error messages: plain when short, in exponent form when huge or tiny.
pub(super) struct Float(pub f64);

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.0.abs();
        if !magnitude.is_finite() || magnitude == 0.0 || (1e-6..1e21).contains(&magnitude) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// Decodes an integer of type `T` from a JSON number or a string of digits.
pub(super) struct IntVisitor<T>(PhantomData<T>);

impl<T> IntVisitor<T> {
    pub(super) const NEW: Self = IntVisitor(PhantomData);
}

impl<T: Int> Visitor<'_> for IntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an integer ({}) as a JSON number or a string of digits",
            T::NAME
        )
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<T, E> {
        T::from_u64(value).map_err(|error| int_error::<T, E>(error, value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<T, E> {
        T::from_i64(value).map_err(|error| int_error::<T, E>(error, value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<T, E> {
        T::from_f64(value).map_err(|error| int_error::<T, E>(error, Float(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        T::from_text(value).map_err(|error| int_error::<T, E>(error, format_args!("{value:?}")))
    }
}

impl<T: Int> NumberText<'_> for IntVisitor<T> {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<T, E> {
        T::from_number_text(text).map_err(|error| int_error::<T, E>(error, text))
    }
}

/// A JSON number that is exactly an integer in range (`12`, `12.0`, `1.2e1`; never rounded), or
/// a string of ASCII digits.
impl Lenient for u64 {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, IntVisitor::NEW)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(*self)
    }
}

/// A JSON number that is exactly an integer in range, or a string of ASCII digits with an
/// optional leading `-`.
impl Lenient for i64 {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, IntVisitor::NEW)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(*self)
    }
}

impl Zero for u64 {
    fn is_zero(&self) -> bool {
        *self == 0
    }
}

impl Zero for i64 {
    fn is_zero(&self) -> bool {
        *self == 0
    }
}

/// Why a value is not a [`Decimal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DecimalError {
    Syntax,
    NotFinite,
    OutOfRange,
    Inexact,
}

/// Parses `-?[0-9]+(\.[0-9]+)?` exactly, keeping the scale (`"30.00"` has scale 2).
fn decimal_from_text(text: &str) -> Result<Decimal, DecimalError> {
    match short_decimal_from_text(text) {
        Ok(decimal) => return Ok(decimal),
        Err(ShortText::Syntax) => return Err(DecimalError::Syntax),
        Err(ShortText::TooLong) => {}
    }
    Decimal::from_str_exact(text).map_err(|error| match error {
        rust_decimal::Error::Underflow | rust_decimal::Error::ScaleExceedsMaximumPrecision(_) => {
            DecimalError::Inexact
        }
        _ => DecimalError::OutOfRange,
    })
}

/// Why [`short_decimal_from_text`] gave no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShortText {
    /// Not `-?[0-9]+(\.[0-9]+)?`.
    Syntax,
    /// Well-formed, but more than 19 digits, or zero (left to `Decimal::from_str_exact`).
    TooLong,
}

/// Checks the syntax and, for the usual short values (at most 19 digits, so the digits fit a
/// `u64`), builds the decimal in the same single pass, without `Decimal::from_str_exact`.
fn short_decimal_from_text(text: &str) -> Result<Decimal, ShortText> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        bytes => (false, bytes),
    };
    let mut mantissa: u64 = 0;
    let mut count: u32 = 0;
    let mut scale: Option<u32> = None;
    let mut previous_is_digit = false;
    for &byte in digits {
        match byte {
            b'0'..=b'9' => {
                // 19 digits always fit a u64; more are left to the general parser.
                if count < 19 {
                    mantissa = mantissa * 10 + u64::from(byte - b'0');
                }
                count += 1;
                if let Some(scale) = &mut scale {
                    *scale += 1;
                }
                previous_is_digit = true;
            }
            b'.' if scale.is_none() && previous_is_digit => {
                scale = Some(0);
                previous_is_digit = false;
            }
            _ => return Err(ShortText::Syntax),
        }
    }
    if !previous_is_digit {
        // Empty, "-", or a trailing '.'.
        return Err(ShortText::Syntax);
    }
    if count > 19 || mantissa == 0 {
        // Long values, and zero (whose sign and scale the general parser decides).
        return Err(ShortText::TooLong);
    }
    // Both halves of a u64; the scale is at most 18 here.
    Ok(Decimal::from_parts(
        mantissa as u32,
        (mantissa >> 32) as u32,
        0,
        negative,
        scale.unwrap_or(0),
    ))
}

/// A JSON number's text, exactly: the digits before any exponent give the value and the scale
/// as for a string (`30.00` has scale 2), and the exponent moves the point (`1.5e3` is `1500`,
/// `25e-1` is `2.5`). More than 28 decimal places, or too large, is an error.
fn decimal_from_number_text(text: &str) -> Result<Decimal, DecimalError> {
    match decimal_from_text(text) {
        // Only an exponent makes a JSON number's text other than a string's.
        Err(DecimalError::Syntax) => {}
        converted => return converted,
    }
    let (base, exponent) = split_exponent(text).ok_or(DecimalError::Syntax)?;
    let mut decimal = decimal_from_text(base)?;
    let scale = i64::from(decimal.scale());
    if exponent <= scale {
        // The point moves left, or right within the fraction: only the scale changes.
        let places = i128::from(scale) - i128::from(exponent);
        let places = u32::try_from(places).map_err(|_| DecimalError::Inexact)?;
        decimal
            .set_scale(places)
            .map_err(|_| DecimalError::Inexact)?;
        return Ok(decimal);
    }
    // The point moves past the last digit: an integer, with zeros appended to the mantissa
    // (stops at zero, or at the first overflow, so a huge exponent costs nothing).
    decimal.set_scale(0).map_err(|_| DecimalError::Inexact)?;
    let mut zeros = exponent - scale;
    while zeros > 0 && !decimal.is_zero() {
        decimal = decimal
            .checked_mul(Decimal::TEN)
            .ok_or(DecimalError::OutOfRange)?;
        zeros -= 1;
    }
    Ok(decimal)
}

/// Converts a float (from a format other than JSON text) through its shortest round-trip text,
/// so `30.1` becomes exactly `30.1`.
fn decimal_from_f64(value: f64) -> Result<Decimal, DecimalError> {
    if !value.is_finite() {
        return Err(DecimalError::NotFinite);
    }
    // A Decimal's text is at most 31 bytes ("-0." and 28 places); a float that does not fit is
    // either too large or has more places than a Decimal keeps.
    let mut text = StackText::<40>::new();
    match write!(text, "{value}").ok().and_then(|()| text.as_str()) {
        Some(text) => decimal_from_text(text),
        None if value.abs() >= 1.0 => Err(DecimalError::OutOfRange),
        None => Err(DecimalError::Inexact),
    }
}

fn decimal_error<E: de::Error>(error: DecimalError, value: impl fmt::Display) -> E {
    match error {
        DecimalError::Syntax => E::custom(format_args!(
            "invalid decimal {value}: expected digits with an optional leading '-' and an optional \
             '.' fraction, like \"30.00\""
        )),
        DecimalError::NotFinite => {
            E::custom(format_args!("invalid decimal {value}: not a finite number"))
        }
        DecimalError::OutOfRange => {
            E::custom(format_args!("decimal {value} is out of range for Decimal"))
        }
        DecimalError::Inexact => E::custom(format_args!(
            "decimal {value} has more digits than a Decimal holds exactly (at most 28 decimal places)"
        )),
    }
}

struct DecimalVisitor;

impl Visitor<'_> for DecimalVisitor {
    type Value = Decimal;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a decimal as a JSON number or a string like \"30.00\"")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Decimal, E> {
        Ok(Decimal::from(value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Decimal, E> {
        decimal_from_f64(value).map_err(|error| decimal_error(error, Float(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Decimal, E> {
        decimal_from_text(value).map_err(|error| decimal_error(error, format_args!("{value:?}")))
    }
}

impl NumberText<'_> for DecimalVisitor {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<Decimal, E> {
        decimal_from_number_text(text).map_err(|error| decimal_error(error, text))
    }
}

/// A JSON number, decoded exactly from its digits (`30.00` keeps scale 2, `1.5e3` is `1500`), or
/// a string `-?[0-9]+(\.[0-9]+)?` kept at its scale; written as a string that keeps the scale
/// (`"30.00"`). A float from a format other than JSON text goes through its shortest round-trip
/// text.
impl Lenient for Decimal {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, DecimalVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Written by hand rather than with `Decimal: Serialize`, which rust_decimal's
        // `serde-float` feature would turn into a lossy float.
        serializer.serialize_str(self.array_string().as_ref())
    }
}

/// A fixed-size text buffer, so formatting a float needs no heap allocation.
struct StackText<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> StackText<N> {
    fn new() -> Self {
        StackText {
            bytes: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> Option<&str> {
        core::str::from_utf8(self.bytes.get(..self.len)?).ok()
    }
}

impl<const N: usize> fmt::Write for StackText<N> {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        let end = self.len.checked_add(piece.len()).ok_or(fmt::Error)?;
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(piece.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use serde::de::IntoDeserializer;
    use serde::de::value::Error as ValueError;
    use serde::{Deserialize, Serialize};
    use std::str::FromStr;

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Unsigned {
        #[serde(with = "wire::lenient")]
        v: u64,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Signed {
        #[serde(with = "wire::lenient")]
        v: i64,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Amount {
        #[serde(with = "wire::lenient")]
        v: Decimal,
    }

    fn unsigned(json: &str) -> u64 {
        decode::<Unsigned>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn unsigned_err(json: &str) -> String {
        decode_err::<Unsigned>(&format!(r#"{{"v":{json}}}"#))
    }

    fn signed(json: &str) -> i64 {
        decode::<Signed>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn signed_err(json: &str) -> String {
        decode_err::<Signed>(&format!(r#"{{"v":{json}}}"#))
    }

    fn amount(json: &str) -> Decimal {
        decode::<Amount>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn amount_err(json: &str) -> String {
        decode_err::<Amount>(&format!(r#"{{"v":{json}}}"#))
    }

    fn dec(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn u64_accepts_numbers_integral_floats_and_digit_strings() {
        assert_eq!(unsigned("12"), 12);
        assert_eq!(unsigned("0"), 0);
        assert_eq!(unsigned("18446744073709551615"), u64::MAX);
        assert_eq!(unsigned("12.0"), 12);
        assert_eq!(unsigned("-0.0"), 0);
        assert_eq!(unsigned("1e3"), 1000);
        assert_eq!(unsigned(r#""12""#), 12);
        assert_eq!(unsigned(r#""007""#), 7);
        assert_eq!(unsigned(r#""18446744073709551615""#), u64::MAX);
    }

    #[test]
    fn u64_rejects_other_spellings_naming_the_value() {
        assert!(
            unsigned_err(r#""1,000""#)
                .starts_with(r#"invalid integer "1,000": expected only digits"#)
        );
        for bad in [
            "", " 1", "1 ", "+1", "-1", "1_000", "1.0", "1e3", "0x10", "١",
        ] {
            let error = unsigned_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!("invalid integer {bad:?}: expected only digits")),
                "{bad:?}: {error}"
            );
        }
        assert!(unsigned_err("1.5").starts_with("invalid integer 1.5: has a fractional part"));
        assert!(unsigned_err("-1").starts_with("integer -1 is too small for u64"));
        assert!(unsigned_err("-2.0").starts_with("integer -2.0 is too small for u64"));
        assert!(
            unsigned_err(r#""18446744073709551616""#)
                .starts_with(r#"integer "18446744073709551616" is too large for u64"#)
        );
        assert!(
            unsigned_err("18446744073709551616")
                .starts_with("integer 18446744073709551616 is too large for u64")
        );
        assert!(unsigned_err("1e300").starts_with("integer 1e300 is too large for u64"));
        assert!(
            unsigned_err("true")
                .contains("invalid type: boolean `true`, expected an integer (u64)")
        );
        assert!(unsigned_err("null").contains("invalid type: null"));
    }

    #[test]
    fn i64_accepts_signs_and_limits() {
        assert_eq!(signed("-12"), -12);
        assert_eq!(signed(r#""-12""#), -12);
        assert_eq!(signed(r#""-0""#), 0);
        assert_eq!(signed("-9223372036854775808"), i64::MIN);
        assert_eq!(signed(r#""-9223372036854775808""#), i64::MIN);
        assert_eq!(signed(r#""9223372036854775807""#), i64::MAX);
        assert_eq!(signed("-3.0"), -3);
    }

    #[test]
    fn i64_rejects_other_spellings_naming_the_value() {
        for bad in ["", "-", "--1", "+1", "- 1", "1-", "1,000"] {
            let error = signed_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!(
                    "invalid integer {bad:?}: expected only digits, optionally after a leading '-'"
                )),
                "{bad:?}: {error}"
            );
        }
        assert!(
            signed_err("9223372036854775808")
                .starts_with("integer 9223372036854775808 is too large for i64")
        );
        assert!(
            signed_err(r#""9223372036854775808""#)
                .starts_with(r#"integer "9223372036854775808" is too large for i64"#)
        );
        assert!(
            signed_err(r#""-9223372036854775809""#)
                .starts_with(r#"integer "-9223372036854775809" is too small for i64"#)
        );
        assert!(signed_err("-1e19").starts_with("integer -1e19 is too small for i64"));
        assert!(signed_err("0.5").starts_with("invalid integer 0.5: has a fractional part"));
    }

    #[test]
    fn non_finite_floats_are_rejected() {
        let error = u64::deserialize_lenient(f64::NAN.into_deserializer()).unwrap_err();
        let error: ValueError = error;
        assert_eq!(
            error.to_string(),
            "invalid integer NaN: not a finite number"
        );
        let error: ValueError =
            Decimal::deserialize_lenient(f64::INFINITY.into_deserializer()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid decimal inf: not a finite number"
        );
    }

    #[test]
    fn integers_round_trip_as_json_numbers() {
        assert_eq!(round_trip::<Unsigned>(r#"{"v":"42"}"#), r#"{"v":42}"#);
        assert_eq!(round_trip::<Signed>(r#"{"v":"-42"}"#), r#"{"v":-42}"#);
        assert_eq!(round_trip::<Signed>(r#"{"v":7.0}"#), r#"{"v":7}"#);
    }

    #[test]
    fn decimal_keeps_the_scale_of_strings() {
        let value = amount(r#""30.00""#);
        assert_eq!(value, dec("30"));
        assert_eq!(value.scale(), 2);
        assert_eq!(value.to_string(), "30.00");
        assert_eq!(amount(r#""-0.50""#).to_string(), "-0.50");
        assert_eq!(amount(r#""007""#), dec("7"));
        assert_eq!(amount(r#""0.0000000000000000000000000001""#).scale(), 28);
        assert_eq!(amount(r#""79228162514264337593543950335""#), Decimal::MAX);
    }

    #[test]
    fn decimal_converts_numbers_exactly() {
        assert_eq!(amount("30"), dec("30"));
        assert_eq!(amount("-30"), dec("-30"));
        assert_eq!(amount("18446744073709551615"), Decimal::from(u64::MAX));
        assert_eq!(amount("30.1").to_string(), "30.1");
        assert_eq!(amount("0.1").to_string(), "0.1");
        assert_eq!(amount("1.5e3").to_string(), "1500");
        assert_eq!(amount("1e-7").to_string(), "0.0000001");
        assert_eq!(amount("-0.25").to_string(), "-0.25");
        // Built without the JSON parser so the test does not depend on float_roundtrip.
        let sum = 0.1_f64 + 0.2_f64;
        let value: Result<Decimal, ValueError> =
            Decimal::deserialize_lenient(sum.into_deserializer());
        assert_eq!(value.unwrap().to_string(), "0.30000000000000004");
        let value: Result<Decimal, ValueError> =
            Decimal::deserialize_lenient(1e28_f64.into_deserializer());
        assert_eq!(value.unwrap(), dec("10000000000000000000000000000"));
    }

    /// `mantissa / 10^scale`, built without any parser.
    fn exact_value(mantissa: i128, scale: u32) -> [u8; 16] {
        exact(Decimal::from_i128_with_scale(mantissa, scale))
    }

    #[test]
    fn decimal_numbers_are_read_from_their_digits() {
        // Each of these is changed by a trip through f64.
        assert_eq!(
            exact(amount("12345678901234567.89")),
            exact_value(1_234_567_890_123_456_789, 2)
        );
        assert_eq!(
            exact(amount("0.1000000000000000000001")),
            exact_value(1_000_000_000_000_000_000_001, 22)
        );
        assert_eq!(
            exact(amount("18446744073709551616")),
            exact_value(18_446_744_073_709_551_616, 0)
        );
        assert_eq!(
            exact(amount("79228162514264337593543950335")),
            exact(Decimal::MAX)
        );
        // The scale follows the digits, as for strings.
        for text in ["30.00", "-0.50", "0", "-0", "0.0", "-0.0", "1500.000", "7"] {
            assert_eq!(
                exact(amount(text)),
                exact(amount(&format!("{text:?}"))),
                "{text}"
            );
        }
        assert_eq!(amount("30.00").to_string(), "30.00");
        // An exponent moves the point.
        assert_eq!(exact(amount("1e3")), exact_value(1000, 0));
        assert_eq!(exact(amount("1.5E+3")), exact_value(1500, 0));
        assert_eq!(exact(amount("1.50e1")), exact_value(150, 1));
        assert_eq!(exact(amount("25e-1")), exact_value(25, 1));
        assert_eq!(exact(amount("-75e-28")), exact_value(-75, 28));
        assert_eq!(exact(amount("1e28")), exact_value(10_i128.pow(28), 0));
        assert_eq!(exact(amount("0e999999999999999999999")), exact_value(0, 0));
    }

    #[test]
    fn decimal_numbers_a_decimal_cannot_hold_are_refused() {
        for (text, error) in [
            ("1e-999", "has more digits than a Decimal holds"),
            ("1e-29", "has more digits than a Decimal holds"),
            (
                "1e-9223372036854775808",
                "has more digits than a Decimal holds",
            ),
            (
                "0.00000000000000000000000000001",
                "has more digits than a Decimal holds",
            ),
            (
                "79228162514264337593543950336",
                "is out of range for Decimal",
            ),
            ("1e29", "is out of range for Decimal"),
            ("-1e300", "is out of range for Decimal"),
            ("1e999999999999999999999", "is out of range for Decimal"),
        ] {
            let message = amount_err(text);
            assert!(
                message.starts_with(&format!("decimal {text} {error}")),
                "{text}: {message}"
            );
        }
    }

    #[test]
    fn integer_numbers_are_exact_or_refused() {
        // f64 would give 12345678901234568.
        assert_eq!(unsigned("12345678901234567.0"), 12_345_678_901_234_567);
        assert_eq!(unsigned("1.2345678901234567e16"), 12_345_678_901_234_567);
        assert_eq!(unsigned("1.8446744073709551615e19"), u64::MAX);
        assert_eq!(unsigned("0e-999"), 0);
        assert_eq!(unsigned("0e999999999999999999999"), 0);
        assert_eq!(unsigned("-0"), 0);
        assert_eq!(signed("-9.223372036854775808e18"), i64::MIN);
        for (text, error) in [
            (
                "12345678901234567.89",
                "invalid integer 12345678901234567.89: has a fractional part",
            ),
            (
                "0.99999999999999999999",
                "invalid integer 0.99999999999999999999: has a fractional part",
            ),
            ("1e-999", "invalid integer 1e-999: has a fractional part"),
            (
                "12e-1000000000000000000000000",
                "invalid integer 12e-1000000000000000000000000: has a fractional part",
            ),
            (
                "18446744073709551616",
                "integer 18446744073709551616 is too large for u64",
            ),
            (
                "1.8446744073709551616e19",
                "integer 1.8446744073709551616e19 is too large for u64",
            ),
            (
                "1e999999999999999999999",
                "integer 1e999999999999999999999 is too large for u64",
            ),
            (
                "123456789012345678901234567890123456789012",
                "integer 123456789012345678901234567890123456789012 is too large for u64",
            ),
            ("-1e-0", "integer -1e-0 is too small for u64"),
        ] {
            let message = unsigned_err(text);
            assert!(message.starts_with(error), "{text}: {message}");
        }
        let message = signed_err("-9223372036854775809");
        assert!(
            message.starts_with("integer -9223372036854775809 is too small for i64"),
            "{message}"
        );
        let message = signed_err("-1e999999999999999999999");
        assert!(
            message.starts_with("integer -1e999999999999999999999 is too small for i64"),
            "{message}"
        );
    }

    #[test]
    fn decimal_rejects_other_spellings_naming_the_value() {
        for bad in [
            "", " 1", "1 ", "+1", "1,5", "1_000", "1e3", "1E3", ".5", "5.", "-", "-.5", "1.2.3",
            "NaN", "--1",
        ] {
            let error = amount_err(&format!("{bad:?}"));
            assert!(
                error.starts_with(&format!("invalid decimal {bad:?}: expected digits")),
                "{bad:?}: {error}"
            );
        }
        assert!(
            amount_err(r#""79228162514264337593543950336""#).starts_with(
                r#"decimal "79228162514264337593543950336" is out of range for Decimal"#
            )
        );
        assert!(
            amount_err(r#""0.00000000000000000000000000001""#).starts_with(
                r#"decimal "0.00000000000000000000000000001" has more digits than a Decimal holds"#
            )
        );
        assert!(amount_err("1e30").starts_with("decimal 1e30 is out of range for Decimal"));
        assert!(amount_err("-1e300").starts_with("decimal -1e300 is out of range for Decimal"));
        assert!(
            amount_err("1e-40").starts_with("decimal 1e-40 has more digits than a Decimal holds")
        );
        assert!(amount_err("true").contains("invalid type: boolean `true`, expected a decimal"));
    }

    #[test]
    fn decimal_round_trips_as_a_string_keeping_scale() {
        assert_eq!(round_trip::<Amount>(r#"{"v":"30.00"}"#), r#"{"v":"30.00"}"#);
        assert_eq!(round_trip::<Amount>(r#"{"v":30.1}"#), r#"{"v":"30.1"}"#);
        assert_eq!(round_trip::<Amount>(r#"{"v":-4}"#), r#"{"v":"-4"}"#);
    }

    #[test]
    fn float_text_fits_the_stack_buffer_or_fails_cleanly() {
        let mut text = StackText::<8>::new();
        assert!(write!(text, "{}", 30.25_f64).is_ok());
        assert_eq!(text.as_str(), Some("30.25"));
        let mut text = StackText::<8>::new();
        assert!(write!(text, "{}", 1e10_f64).is_err());
        assert_eq!(decimal_from_f64(f64::MAX), Err(DecimalError::OutOfRange));
        assert_eq!(
            decimal_from_f64(f64::MIN_POSITIVE),
            Err(DecimalError::Inexact)
        );
        assert_eq!(decimal_from_f64(5e-324), Err(DecimalError::Inexact));
    }

    /// The exact representation (mantissa, scale and sign), which `==` does not compare.
    fn exact(decimal: Decimal) -> [u8; 16] {
        decimal.serialize()
    }

    /// A deterministic stream of pseudo-random 64-bit numbers (an LCG).
    fn lcg(seed: u64) -> impl Iterator<Item = u64> {
        core::iter::successors(Some(seed), |x| {
            Some(
                x.wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407),
            )
        })
    }

    #[test]
    fn the_single_pass_text_parser_gives_what_from_str_exact_gives() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "0.00",
            "-0.00",
            "1",
            "-1",
            "30.00",
            "12.50",
            "007.50",
            "0.1",
            "-0.001",
            "1500.00",
            "9999999999999999999",
            "999999999999999999.9",
            "0.000000000000000001",
            "18446744073709551615",
            "10000000000000000000",
            "1.0000000000000000000",
            "79228162514264337593543950335",
            "0.0000000000000000000000000001",
        ]
        .map(str::to_owned)
        .to_vec();
        for (i, random) in lcg(7).take(20_000).enumerate() {
            let digits = random.to_string();
            let cut = i % (digits.len() + 1);
            let (whole, fraction) = digits.split_at(cut);
            let whole = if whole.is_empty() { "0" } else { whole };
            let sign = if i % 3 == 0 { "-" } else { "" };
            if fraction.is_empty() {
                texts.push(format!("{sign}{whole}"));
            } else {
                texts.push(format!("{sign}{whole}.{fraction}"));
            }
        }
        for text in &texts {
            let general = Decimal::from_str_exact(text).expect(text);
            match short_decimal_from_text(text) {
                Ok(short) => assert_eq!(exact(short), exact(general), "{text}"),
                Err(ShortText::TooLong) => {}
                Err(ShortText::Syntax) => panic!("{text}: well-formed"),
            }
            assert_eq!(
                decimal_from_text(text).map(exact),
                Ok(exact(general)),
                "{text}"
            );
        }
        for bad in [
            "", "-", "--1", "+1", ".5", "1.", "-.5", "1..2", "1.2.3", "1e5", "1_000", " 1", "1 ",
            "١", "0x10", "1,5",
        ] {
            assert_eq!(
                short_decimal_from_text(bad),
                Err(ShortText::Syntax),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn digit_runs_are_valued_in_one_pass_with_overflow_only_past_19_digits() {
        for text in [
            "0",
            "7",
            "0000000000000000000000042",
            "9999999999999999999",
            "18446744073709551615",
        ] {
            assert_eq!(
                digits_value(text.as_bytes()),
                Ok(text.parse().ok()),
                "{text}"
            );
        }
        for text in [
            "18446744073709551616",
            "99999999999999999999",
            "100000000000000000000000",
        ] {
            assert_eq!(digits_value(text.as_bytes()), Ok(None), "{text}");
        }
        for text in [
            "",
            "-1",
            "1x",
            "1234567890123456789x",
            "12345678901234567890x",
            " 1",
        ] {
            assert_eq!(
                digits_value(text.as_bytes()),
                Err(IntError::Syntax),
                "{text:?}"
            );
        }
    }

    #[test]
    fn zero_is_recognised() {
        assert!(0_u64.is_zero() && !1_u64.is_zero());
        assert!(0_i64.is_zero() && !(-1_i64).is_zero());
    }
}
