//! `#[serde(deserialize_with = "wire::opaque::deserialize")]`: an object whose fields the
//! reference does not show, kept as sent in a `serde_json::Map`, under the rules every other
//! decoder keeps: a key sent twice is refused (never one of its values kept silently), and a
//! number is kept only when the map holds it exactly. A `serde_json::Value` holds a number as
//! a `u64`, an `i64` or an `f64`, so `0.1000000000000000000001` or an integer past `u64` would
//! be rounded: such a number is refused, naming its digits. A number's spelling is not kept:
//! `30.00` is the same number as `30.0`, which the map writes.
//!
//! The object's keys are read through the deserializer, so an error's path names the key; each
//! value's text is taken (`raw.rs`), read by serde_json (its depth bounded), then checked by one
//! pass over the same text without recursion (`check_text`): linear in the text, whatever its
//! nesting.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::raw::{NumberText, deserialize_number};

/// Decodes the object: its keys through the deserializer (so an error's path names the key),
/// each value from its text.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Map<String, Value>, D::Error> {
    deserializer.deserialize_map(ObjectVisitor)
}

struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {key:?} is sent twice"
                )));
            }
            let value = map.next_value_seed(ValueSeed)?;
            object.insert(key, value);
        }
        Ok(object)
    }
}

/// One value of the object, read from its text.
struct ValueSeed;

impl<'de> de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserialize_number(deserializer, ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    // From a deserializer that gives no text (not JSON text): as it gave it.
    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format_args!("the number {value} is not finite")))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Value::deserialize(deserializer)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map))
    }
}

impl NumberText<'_> for ValueVisitor {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<Value, E> {
        exact(text)
            .map(Value::Number)
            .ok_or_else(|| E::custom(inexact(text)))
    }

    // An object or array: read by serde_json (its depth bounded), then checked in one pass.
    fn visit_compound_text<E: de::Error>(self, text: &str) -> Result<Value, E> {
        let value: Value = serde_json::from_str(text).map_err(E::custom)?;
        check_text(text).map_err(E::custom)?;
        Ok(value)
    }
}

/// Checks JSON text (valid: serde_json read it) for a key sent twice in one object and a
/// number no `serde_json::Value` holds exactly. One pass, a stack of the open objects' keys.
fn check_text(text: &str) -> Result<(), String> {
    // Per open container: the keys seen (an object) or none (an array).
    let mut open: Vec<Option<HashSet<String>>> = Vec::new();
    let mut expecting_key = false;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                open.push(Some(HashSet::new()));
                expecting_key = true;
                at += 1;
            }
            b'[' => {
                open.push(None);
                at += 1;
            }
            b'}' | b']' => {
                open.pop();
                at += 1;
            }
            b',' => {
                expecting_key = matches!(open.last(), Some(Some(_)));
                at += 1;
            }
            b':' => {
                expecting_key = false;
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at);
                if expecting_key {
                    let key: String =
                        serde_json::from_str(&text[at..end]).map_err(|error| error.to_string())?;
                    if let Some(Some(keys)) = open.last_mut() {
                        if !keys.insert(key.clone()) {
                            return Err(format!("the key {key:?} is sent twice"));
                        }
                    }
                }
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[at..]
                    .iter()
                    .position(|byte| {
                        !matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    })
                    .map_or(bytes.len(), |length| at + length);
                let number = &text[at..end];
                if exact(number).is_none() {
                    return Err(inexact(number));
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    Ok(())
}

/// The refusal of a number no `serde_json::Value` holds exactly.
fn inexact(number: &str) -> String {
    format!(
        "the number {number} cannot be kept exactly (a JSON value holds an integer within 64 \
         bits, or a decimal an f64 holds exactly)"
    )
}

/// Where the string starting at `start` (its `"`) ends: just after its closing `"`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// `text` (a JSON number) as a `serde_json::Number` that is the same number, if there is one.
fn exact(text: &str) -> Option<Number> {
    if let Ok(integer) = text.parse::<u64>() {
        return Some(integer.into());
    }
    if let Ok(integer) = text.parse::<i64>() {
        return Some(integer.into());
    }
    let float: f64 = text.parse().ok()?;
    let number = Number::from_f64(float)?;
    // The float's shortest text is the float's value written out: the same number as `text`
    // exactly when no digit was rounded away.
    (Decimal::of(text)? == Decimal::of(&float.to_string())?).then_some(number)
}

/// A decimal number as sign, significant digits and the power of ten of the last one (zero:
/// no digits), so that two spellings compare equal exactly when they are the same number.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// Reads `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`; `None` for anything else or an exponent
    /// past `i64`.
    fn of(text: &str) -> Option<Decimal> {
        let (negative, unsigned) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
            None => (unsigned, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if whole.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let all = format!("{whole}{fraction}");
        let significant = all.trim_start_matches('0');
        let kept = significant.trim_end_matches('0');
        let trailing = (significant.len() - kept.len()) as i64;
        let exponent = exponent
            .checked_sub(fraction.len() as i64)?
            .checked_add(trailing)?;
        Some(if kept.is_empty() {
            Decimal {
                negative: false,
                digits: String::new(),
                exponent: 0,
            }
        } else {
            Decimal {
                negative,
                digits: kept.to_owned(),
                exponent,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, serde::Deserialize)]
    struct Opaque {
        #[serde(deserialize_with = "deserialize")]
        fields: Map<String, Value>,
    }

    fn read(json: &str) -> Result<Map<String, Value>, String> {
        crate::decode::<Opaque>(format!(r#"{{"fields":{json}}}"#).as_bytes())
            .map(|opaque| opaque.fields)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn an_object_is_kept_as_sent() {
        let json = r#"{"id":1,"text":"a \"b\"","n":-2,"x":1.5,"list":[1,{"a":null}],"t":true}"#;
        assert_eq!(
            Value::Object(read(json).unwrap()),
            serde_json::from_str::<Value>(json).unwrap()
        );
    }

    #[test]
    fn a_key_sent_twice_is_refused_at_any_depth() {
        for json in [
            r#"{"comment":"approve","comment":"reject"}"#,
            r#"{"comment":"approve","\u0063omment":"reject"}"#,
            r#"{"a":[{"k":1,"k":2}]}"#,
            r#"{"a":{"b":{"k":1,"k":1}}}"#,
        ] {
            let error = read(json).unwrap_err();
            assert!(error.contains("sent twice"), "{json}: {error}");
        }
    }

    #[test]
    fn a_number_a_value_would_round_is_refused_naming_its_digits() {
        for digits in [
            "0.1000000000000000000001",
            "12345678901234567.89",
            "18446744073709551616",
            "-9223372036854775809",
            "1e-999",
            "1e400",
            "123456789012345678901234567890",
        ] {
            for json in [
                format!(r#"{{"n":{digits}}}"#),
                format!(r#"{{"a":[{{"n":{digits}}}]}}"#),
            ] {
                let error = read(&json).unwrap_err();
                assert!(error.contains(digits), "{json}: {error}");
            }
        }
    }

    proptest! {
        /// Every number is kept exactly or refused: a kept one is the same number as sent.
        #[test]
        fn every_number_is_kept_exactly_or_refused(
            digits in "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
        ) {
            match read(&format!(r#"{{"n":{digits}}}"#)) {
                Ok(object) => {
                    let kept = object["n"].to_string();
                    prop_assert_eq!(Decimal::of(&kept), Decimal::of(&digits), "{} kept as {}", digits, kept);
                }
                Err(error) => prop_assert!(error.contains(&digits), "{}", error),
            }
        }
    }
}
