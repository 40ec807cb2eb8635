//! A value's JSON text, so numbers are decoded from their digits and never through `f64`.
//!
//! serde_json hands a visitor a JSON number as a `u64`, an `i64` or an `f64`, so a decimal such
//! as `12345678901234567.89` is already rounded when a decoder sees it. Its `raw_value` feature
//! (additive: it changes nothing for other crates) lets a `Deserialize` impl ask for the text of
//! the value instead. Its `arbitrary_precision` feature would too, but it is global: it changes
//! `serde_json::Number` and every number inside `#[serde(flatten)]` or untagged enums of every
//! crate in an app (serde-rs/json#505, #721, #1108), so it is never enabled.
//!
//! The request is the protocol behind `serde_json::value::RawValue`: `deserialize_newtype_struct`
//! with a reserved name, which serde_json answers with `visit_map` holding one entry (that name,
//! then the text; borrowed from the input when the input is a slice or `&str`, so nothing is
//! allocated; a `serde_json::Value` writes itself out). The name is private to serde_json; rather than copying it, [`raw_value_token`]
//! asks `RawValue`'s own `Deserialize` impl for it. This module is the only place that knows the
//! protocol; if serde_json ever changed it, the exact-decoding tests (`tests` below and in
//! `number.rs`) fail.
//!
//! Any other deserializer (other formats, serde's buffered `Content` inside `flatten` or untagged
//! enums) answers with `visit_newtype_struct` or forwards to `deserialize_any`; both end in the
//! visitor's ordinary `visit_*` methods, so the generated types still decode from any format.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use serde_json::value::RawValue;

/// A visitor that also decodes a JSON number from its text.
pub(super) trait NumberText<'de>: Visitor<'de> {
    /// Decodes a number written as serde_json validated it: `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn visit_number_text<E: de::Error>(self, text: &str) -> Result<Self::Value, E>;

    /// Decodes an object or an array from its text (as serde_json validated it); refused unless
    /// the visitor reads one.
    fn visit_compound_text<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        let unexpected = match text.as_bytes().first() {
            Some(b'[') => Unexpected::Seq,
            _ => Unexpected::Map,
        };
        Err(E::invalid_type(unexpected, &self))
    }
}

/// Decodes with `visitor`, giving it a JSON number's text where the deserializer can (serde_json)
/// and the ordinary `visit_*` calls elsewhere.
pub(super) fn deserialize_number<'de, D, V>(
    deserializer: D,
    visitor: V,
) -> Result<V::Value, D::Error>
where
    D: Deserializer<'de>,
    V: NumberText<'de>,
{
    match raw_value_token() {
        Some(token) => {
            deserializer.deserialize_newtype_struct(token, TextVisitor { token, visitor })
        }
        None => deserializer.deserialize_any(visitor),
    }
}

/// The name under which serde_json hands out a value's text, as `RawValue` asks for it.
fn raw_value_token() -> Option<&'static str> {
    static TOKEN: OnceLock<Option<&'static str>> = OnceLock::new();
    *TOKEN.get_or_init(|| match Box::<RawValue>::deserialize(Probe) {
        Err(Probed(name)) => name,
        Ok(_) => None,
    })
}

/// A deserializer that only records the name of the newtype struct it is asked for.
struct Probe;

/// What [`Probe`] saw: the newtype struct's name, if it was asked for one.
#[derive(Debug)]
struct Probed(Option<&'static str>);

impl fmt::Display for Probed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probe")
    }
}

impl std::error::Error for Probed {}

impl de::Error for Probed {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Probed(None)
    }
}

impl<'de> Deserializer<'de> for Probe {
    type Error = Probed;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Probed> {
        Err(Probed(None))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: V,
    ) -> Result<V::Value, Probed> {
        Err(Probed(Some(name)))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Takes serde_json's raw value, or passes every ordinary visit on to `visitor`.
struct TextVisitor<V> {
    token: &'static str,
    visitor: V,
}

impl<'de, V: NumberText<'de>> Visitor<'de> for TextVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    // serde_json's answer: one entry, keyed by the token, whose value is the JSON text. Errors
    // are raised after the entry is read, so a JSON path names the field, never the token.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        if map.next_key_seed(IsToken(self.token))? != Some(true) {
            return Err(de::Error::invalid_type(Unexpected::Map, &self.visitor));
        }
        let text = map.next_value_seed(JsonText)?;
        visit_json_text(self.visitor, &text)
    }

    // A deserializer that does not know the token (serde's `Content`, other formats).
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        deserializer.deserialize_any(self.visitor)
    }

    // A deserializer that forwards `deserialize_newtype_struct` to `deserialize_any`.
    fn visit_bool<E: de::Error>(self, value: bool) -> Result<V::Value, E> {
        self.visitor.visit_bool(value)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<V::Value, E> {
        self.visitor.visit_i64(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<V::Value, E> {
        self.visitor.visit_u64(value)
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<V::Value, E> {
        self.visitor.visit_i128(value)
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<V::Value, E> {
        self.visitor.visit_u128(value)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<V::Value, E> {
        self.visitor.visit_f64(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        self.visitor.visit_str(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        self.visitor.visit_borrowed_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        self.visitor.visit_string(value)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(seq)
    }
}

/// Decodes `visitor`'s value from the text of one JSON value (as serde_json validated it).
fn visit_json_text<'de, V: NumberText<'de>, E: de::Error>(
    visitor: V,
    text: &str,
) -> Result<V::Value, E> {
    match text.as_bytes().first() {
        Some(b'"') => match text.get(1..text.len() - 1) {
            // A plain loop: the strings here are short, too short for a memchr to pay off.
            Some(content) if !content.bytes().any(|byte| byte == b'\\') => {
                visitor.visit_str(content)
            }
            // An escape: let serde_json read the string.
            _ => visitor.visit_string(serde_json::from_str(text).map_err(E::custom)?),
        },
        Some(b'-' | b'0'..=b'9') => visitor.visit_number_text(text),
        Some(b't') => visitor.visit_bool(true),
        Some(b'f') => visitor.visit_bool(false),
        Some(b'n') => visitor.visit_unit(),
        Some(b'[' | b'{') => visitor.visit_compound_text(text),
        _ => Err(E::custom(format_args!("invalid JSON value {text:?}"))),
    }
}

/// Reads a map key and says whether it is the raw-value token.
struct IsToken(&'static str);

impl<'de> DeserializeSeed<'de> for IsToken {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for IsToken {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        // serde_json hands back the very string it was given: compare the pointers first.
        Ok(core::ptr::eq(key, self.0) || key == self.0)
    }
}

/// Reads the raw value's text, borrowed when the input allows it.
struct JsonText;

impl<'de> DeserializeSeed<'de> for JsonText {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for JsonText {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the text of a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records how a value reached it.
    struct Recorder;

    impl Visitor<'_> for Recorder {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("anything")
        }

        fn visit_bool<E: de::Error>(self, value: bool) -> Result<String, E> {
            Ok(format!("bool {value}"))
        }

        fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
            Ok(format!("u64 {value}"))
        }

        fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
            Ok(format!("f64 {value}"))
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
            Ok(format!("str {value}"))
        }

        fn visit_unit<E: de::Error>(self) -> Result<String, E> {
            Ok("unit".to_owned())
        }
    }

    impl NumberText<'_> for Recorder {
        fn visit_number_text<E: de::Error>(self, text: &str) -> Result<String, E> {
            Ok(format!("text {text}"))
        }
    }

    fn via_json(json: &str) -> Result<String, serde_json::Error> {
        deserialize_number(&mut serde_json::Deserializer::from_str(json), Recorder)
    }

    #[test]
    fn serde_json_still_hands_out_the_raw_value_token() {
        // If this fails, serde_json changed the raw-value protocol: numbers would silently go
        // through f64 again. The exact-decoding tests of number.rs fail as well.
        let token = raw_value_token().expect("RawValue asks for a newtype struct");
        assert!(token.starts_with('$'), "{token}");
        let raw: Box<RawValue> = serde_json::from_str(" 12345678901234567.89 ").unwrap();
        assert_eq!(raw.get(), "12345678901234567.89");
    }

    #[test]
    fn serde_json_gives_the_text_of_every_kind_of_value() {
        assert_eq!(
            via_json("12345678901234567.89").unwrap(),
            "text 12345678901234567.89"
        );
        assert_eq!(via_json("-0.0").unwrap(), "text -0.0");
        assert_eq!(via_json("1e-999").unwrap(), "text 1e-999");
        assert_eq!(via_json(r#""30.00""#).unwrap(), "str 30.00");
        assert_eq!(via_json(r#""3\u0030.00""#).unwrap(), "str 30.00");
        assert_eq!(via_json("true").unwrap(), "bool true");
        assert_eq!(via_json("false").unwrap(), "bool false");
        assert_eq!(via_json("null").unwrap(), "unit");
        let error = via_json("[1]").unwrap_err().to_string();
        assert!(
            error.starts_with("invalid type: sequence, expected anything"),
            "{error}"
        );
        let error = via_json(r#"{"a":1}"#).unwrap_err().to_string();
        assert!(
            error.starts_with("invalid type: map, expected anything"),
            "{error}"
        );
    }

    #[test]
    fn serde_json_values_and_readers_give_the_text_too() {
        let value = serde_json::json!(30.25);
        assert_eq!(deserialize_number(&value, Recorder).unwrap(), "text 30.25");
        assert_eq!(deserialize_number(value, Recorder).unwrap(), "text 30.25");
        let reader = std::io::Cursor::new(b"18446744073709551616".to_vec());
        let mut from_reader = serde_json::Deserializer::from_reader(reader);
        assert_eq!(
            deserialize_number(&mut from_reader, Recorder).unwrap(),
            "text 18446744073709551616"
        );
    }

    #[test]
    fn other_deserializers_fall_back_to_the_ordinary_visits() {
        use serde::de::IntoDeserializer;
        use serde::de::value::{Error, MapDeserializer};
        // serde's value deserializers forward newtype structs to deserialize_any.
        let number: Result<String, Error> = deserialize_number(7_u64.into_deserializer(), Recorder);
        assert_eq!(number.unwrap(), "u64 7");
        let float: Result<String, Error> =
            deserialize_number(1.5_f64.into_deserializer(), Recorder);
        assert_eq!(float.unwrap(), "f64 1.5");
        let text: Result<String, Error> = deserialize_number("30.00".into_deserializer(), Recorder);
        assert_eq!(text.unwrap(), "str 30.00");
        // A real map is not mistaken for a raw value.
        let map = MapDeserializer::<_, Error>::new([("a", 1_u64)].into_iter());
        let error = deserialize_number(map, Recorder).unwrap_err().to_string();
        assert_eq!(error, "invalid type: map, expected anything");
    }
}
