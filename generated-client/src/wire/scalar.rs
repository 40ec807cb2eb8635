//! Booleans and `string_or_number` text.
//!
//! The service is PHP-backed: flags may come as `1`/`0` or as strings, and some text fields
//! (`duration`, `phase`, IDs) are sometimes JSON numbers.

use core::fmt;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use super::Lenient;
use super::number::Float;
use super::raw::{NumberText, deserialize_number};

fn bool_error<E: de::Error>(value: impl fmt::Display) -> E {
    E::custom(format_args!(
        "invalid boolean {value}: expected true, false, 1 or 0"
    ))
}

struct BoolVisitor;

impl Visitor<'_> for BoolVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a boolean (true, false, 1, 0, \"true\", \"false\", \"1\" or \"0\")")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<bool, E> {
        Ok(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<bool, E> {
        match value {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bool_error(value)),
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<bool, E> {
        match value {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bool_error(value)),
        }
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<bool, E> {
        match value {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(bool_error(format_args!("{value:?}"))),
        }
    }
}

/// `true`/`false`, the integers `1`/`0`, or the strings `"true"`, `"false"`, `"1"`, `"0"`.
impl Lenient for bool {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BoolVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(*self)
    }
}

struct TextVisitor;

impl Visitor<'_> for TextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a number")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        Ok(value.to_owned())
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<String, E> {
        Ok(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
        if value.is_finite() {
            // Shortest round-trip text; the original spelling ("1.50") is not kept by the parser.
            Ok(value.to_string())
        } else {
            Err(E::custom(format_args!(
                "invalid number {}: not finite",
                Float(value)
            )))
        }
    }
}

impl NumberText<'_> for TextVisitor {
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<String, E> {
        Ok(text.to_owned())
    }
}

/// A JSON string, or a JSON number kept as its text exactly as sent (`12` becomes `"12"`, `1.50`
/// stays `"1.50"`; from a format other than JSON text, a float is written in its shortest
/// round-trip form). Written as a JSON string.
impl Lenient for String {
    fn deserialize_lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_number(deserializer, TextVisitor)
    }

    fn serialize_normalized<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use crate::wire;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Flag {
        #[serde(with = "wire::lenient")]
        v: bool,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Text {
        #[serde(with = "wire::lenient")]
        v: String,
    }

    fn flag(json: &str) -> bool {
        decode::<Flag>(&format!(r#"{{"v":{json}}}"#)).v
    }

    fn text(json: &str) -> String {
        decode::<Text>(&format!(r#"{{"v":{json}}}"#)).v
    }

    #[test]
    fn bool_accepts_the_documented_spellings() {
        for (json, expected) in [
            ("true", true),
            ("false", false),
            ("1", true),
            ("0", false),
            (r#""true""#, true),
            (r#""false""#, false),
            (r#""1""#, true),
            (r#""0""#, false),
        ] {
            assert_eq!(flag(json), expected, "{json}");
        }
    }

    #[test]
    fn bool_rejects_anything_else_naming_the_value() {
        for (json, shown) in [
            ("2", "2"),
            ("-1", "-1"),
            (r#""yes""#, r#""yes""#),
            (r#""TRUE""#, r#""TRUE""#),
            (r#""""#, r#""""#),
            (r#"" 1""#, r#"" 1""#),
        ] {
            let error = decode_err::<Flag>(&format!(r#"{{"v":{json}}}"#));
            assert!(
                error.starts_with(&format!(
                    "invalid boolean {shown}: expected true, false, 1 or 0"
                )),
                "{json}: {error}"
            );
        }
        let error = decode_err::<Flag>(r#"{"v":1.0}"#);
        assert!(
            error.starts_with("invalid type: floating point `1.0`, expected a boolean"),
            "{error}"
        );
    }

    #[test]
    fn text_keeps_strings_and_the_text_of_numbers() {
        assert_eq!(text(r#""abc""#), "abc");
        assert_eq!(text(r#""""#), "");
        assert_eq!(text(r#""a\"b""#), "a\"b");
        assert_eq!(text("12"), "12");
        assert_eq!(text("-12"), "-12");
        assert_eq!(text("1.5"), "1.5");
        // A number's text as sent: no trip through f64.
        assert_eq!(text("1.50"), "1.50");
        assert_eq!(text("12345678901234567.89"), "12345678901234567.89");
        assert_eq!(text("1e3"), "1e3");
        assert_eq!(text("-0.0"), "-0.0");
        let error = decode_err::<Text>(r#"{"v":true}"#);
        assert!(
            error.starts_with("invalid type: boolean `true`, expected a string or a number"),
            "{error}"
        );
    }

    #[test]
    fn round_trips() {
        assert_eq!(round_trip::<Flag>(r#"{"v":"1"}"#), r#"{"v":true}"#);
        assert_eq!(round_trip::<Flag>(r#"{"v":0}"#), r#"{"v":false}"#);
        assert_eq!(round_trip::<Text>(r#"{"v":12}"#), r#"{"v":"12"}"#);
        assert_eq!(round_trip::<Text>(r#"{"v":"x"}"#), r#"{"v":"x"}"#);
    }
}
