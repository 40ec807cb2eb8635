//! Enumerated text fields.
//!
//! The reference lists the values that "occur" and says the complete sets are not shown, so
//! generated enums are either closed (unknown text is an error) or open (unknown text is kept).
//! Both decode through [`deserialize_enum`] from the borrowed string, with no allocation of
//! their own.

use core::fmt;
use core::marker::PhantomData;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// An enum generated from the reference: maps between wire strings and variants.
pub trait WireEnum: Sized {
    /// The values the reference documents, in spec order.
    const VALUES: &'static [&'static str];

    /// The enum value for a wire string; `None` when it is unknown (open enums never return
    /// None: they keep it).
    fn from_wire(value: &str) -> Option<Self>;

    /// The value as written on the wire.
    fn as_wire(&self) -> &str;
}

/// Decodes a [`WireEnum`] from a JSON string.
///
/// An unknown value (for which [`WireEnum::from_wire`] returns `None`) is an error naming it
/// and [`WireEnum::VALUES`].
pub fn deserialize_enum<'de, D: Deserializer<'de>, T: WireEnum>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_str(EnumVisitor(PhantomData))
}

struct EnumVisitor<T>(PhantomData<T>);

impl<T: WireEnum> Visitor<'_> for EnumVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of {}", OneOf(T::VALUES))
    }

    // `visit_borrowed_str` forwards here; `from_wire` only reads the text.
    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        T::from_wire(value).ok_or_else(|| {
            E::custom(format_args!(
                "unknown value {value:?}, expected one of {}",
                OneOf(T::VALUES)
            ))
        })
    }
}

/// Lists values as `"A", "B"` without building a string.
struct OneOf(&'static [&'static str]);

impl fmt::Display for OneOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(no documented values)");
        }
        for (position, value) in self.0.iter().enumerate() {
            if position > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{value:?}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;
    use crate::wire::testing::{decode, decode_err};
    use serde::de::IntoDeserializer;
    use serde::de::value::{BorrowedStrDeserializer, Error as ValueError};
    use serde::{Deserialize, Serialize, Serializer};

    /// A closed enum, shaped like generated code.
    #[derive(Debug, PartialEq)]
    enum Status {
        Draft,
        Sent,
    }

    impl WireEnum for Status {
        const VALUES: &'static [&'static str] = &["Draft", "Sent"];

        fn from_wire(value: &str) -> Option<Self> {
            match value {
                "Draft" => Some(Status::Draft),
                "Sent" => Some(Status::Sent),
                _ => None,
            }
        }

        fn as_wire(&self) -> &str {
            match self {
                Status::Draft => "Draft",
                Status::Sent => "Sent",
            }
        }
    }

    impl<'de> Deserialize<'de> for Status {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            wire::deserialize_enum(deserializer)
        }
    }

    impl Serialize for Status {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(self.as_wire())
        }
    }

    /// An open enum that keeps unknown values.
    #[derive(Debug, PartialEq)]
    enum UserType {
        Client,
        Provider,
        Other(String),
    }

    impl WireEnum for UserType {
        const VALUES: &'static [&'static str] = &["CLIENT", "PROVIDER"];

        fn from_wire(value: &str) -> Option<Self> {
            Some(match value {
                "CLIENT" => UserType::Client,
                "PROVIDER" => UserType::Provider,
                other => UserType::Other(other.to_owned()),
            })
        }

        fn as_wire(&self) -> &str {
            match self {
                UserType::Client => "CLIENT",
                UserType::Provider => "PROVIDER",
                UserType::Other(other) => other,
            }
        }
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Row {
        status: Status,
        #[serde(
            deserialize_with = "wire::deserialize_enum",
            serialize_with = "as_wire"
        )]
        user: UserType,
        #[serde(default, with = "wire::collection")]
        history: Vec<Status>,
    }

    fn as_wire<S: Serializer>(value: &UserType, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.as_wire())
    }

    #[test]
    fn known_values_decode() {
        let row = decode::<Row>(
            r#"{"status":"Sent","user":"CLIENT","history":{"0":"Draft","1":"Sent"}}"#,
        );
        assert_eq!(row.status, Status::Sent);
        assert_eq!(row.user, UserType::Client);
        assert_eq!(row.history, [Status::Draft, Status::Sent]);
    }

    #[test]
    fn open_enums_keep_unknown_values() {
        let row = decode::<Row>(r#"{"status":"Draft","user":"AGENCY"}"#);
        assert_eq!(row.user, UserType::Other("AGENCY".to_owned()));
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"status":"Draft","user":"AGENCY","history":[]}"#
        );
    }

    #[test]
    fn closed_enums_name_the_value_and_the_documented_values() {
        let error = decode_err::<Row>(r#"{"status":"Approved","user":"CLIENT"}"#);
        assert!(
            error.starts_with(r#"unknown value "Approved", expected one of "Draft", "Sent""#),
            "{error}"
        );
        let error = decode_err::<Row>(r#"{"status":"draft","user":"CLIENT"}"#);
        assert!(error.starts_with(r#"unknown value "draft""#), "{error}");
        let error = decode_err::<Row>(r#"{"status":1,"user":"CLIENT"}"#);
        assert!(
            error.starts_with(r#"invalid type: integer `1`, expected one of "Draft", "Sent""#),
            "{error}"
        );
    }

    #[test]
    fn borrowed_and_escaped_text_decode_without_owning_it() {
        let borrowed: Result<Status, ValueError> =
            deserialize_enum(BorrowedStrDeserializer::<ValueError>::new("Draft"));
        assert_eq!(borrowed.unwrap(), Status::Draft);
        // An escape forces serde_json to hand over a scratch-buffer `&str` (visit_str).
        assert_eq!(
            decode::<Row>(r#"{"status":"S\u0065nt","user":"PROVIDER"}"#).status,
            Status::Sent
        );
        let owned: Result<Status, ValueError> =
            deserialize_enum("Nope".to_owned().into_deserializer());
        assert_eq!(
            owned.unwrap_err().to_string(),
            r#"unknown value "Nope", expected one of "Draft", "Sent""#
        );
    }

    #[test]
    fn values_list_formatting() {
        assert_eq!(OneOf(&[]).to_string(), "(no documented values)");
        assert_eq!(OneOf(&["A"]).to_string(), r#""A""#);
    }
}
