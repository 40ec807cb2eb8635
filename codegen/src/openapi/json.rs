//! An ordered JSON value for the export: objects keep the order keys were inserted in (the
//! spec's order), so the export reads in spec order and is the same bytes on every run.
//! (`serde_json::Value` sorts keys unless its `preserve_order` feature is on, which would
//! change serde_json for every crate of the workspace.)

use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose objects keep insertion order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Str(String),
    Array(Vec<Json>),
    Object(Object),
}

/// A JSON object in insertion order.
pub(crate) type Object = IndexMap<String, Json>;

impl Json {
    /// The object, if this is one.
    pub(crate) fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// Inserts `key` into this object (nothing for another value); returns the value.
    pub(crate) fn with(mut self, key: &str, value: impl Into<Json>) -> Json {
        if let Some(object) = self.as_object_mut() {
            object.insert(key.to_owned(), value.into());
        }
        self
    }

    /// Inserts `key` when `value` is `Some`.
    pub(crate) fn with_some(self, key: &str, value: Option<impl Into<Json>>) -> Json {
        match value {
            Some(value) => self.with(key, value),
            None => self,
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Bool(value) => serializer.serialize_bool(*value),
            Json::Int(value) => serializer.serialize_i64(*value),
            Json::UInt(value) => serializer.serialize_u64(*value),
            Json::Str(value) => serializer.serialize_str(value),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl From<&str> for Json {
    fn from(value: &str) -> Self {
        Json::Str(value.to_owned())
    }
}

impl From<String> for Json {
    fn from(value: String) -> Self {
        Json::Str(value)
    }
}

impl From<&String> for Json {
    fn from(value: &String) -> Self {
        Json::Str(value.clone())
    }
}

impl From<bool> for Json {
    fn from(value: bool) -> Self {
        Json::Bool(value)
    }
}

impl From<i64> for Json {
    fn from(value: i64) -> Self {
        Json::Int(value)
    }
}

impl From<u64> for Json {
    fn from(value: u64) -> Self {
        Json::UInt(value)
    }
}

impl From<Vec<Json>> for Json {
    fn from(items: Vec<Json>) -> Self {
        Json::Array(items)
    }
}

impl From<Object> for Json {
    fn from(object: Object) -> Self {
        Json::Object(object)
    }
}

/// A JSON array of strings.
pub(crate) fn strings<T: AsRef<str>>(items: impl IntoIterator<Item = T>) -> Json {
    Json::Array(
        items
            .into_iter()
            .map(|item| Json::from(item.as_ref()))
            .collect(),
    )
}

/// `obj! { "key" => value, ... }`: an ordered JSON object.
macro_rules! obj {
    ($($key:expr => $value:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut object = $crate::openapi::json::Object::new();
        $(object.insert(String::from($key), $crate::openapi::json::Json::from($value));)*
        $crate::openapi::json::Json::Object(object)
    }};
}
pub(crate) use obj;
