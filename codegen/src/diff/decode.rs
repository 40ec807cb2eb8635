//! What a crate's decoders make of an answer: the value at every Rust path of a record, read as
//! the generated serde code and the runtime's `wire` decoders read it, or the first refusal,
//! where serde stops.
//!
//! A record reads the keys of its JSON object in order: each key goes to the first field (in
//! declaration order) whose wire name or `documented_as` alias it is, a key no field has is
//! skipped, and a field reached twice is refused (`duplicate field`, serde's derive: an alias
//! and the wire name sent together, or a key sent twice). After the last key, a field not
//! read is `None` where [`rust_type::absent_is_none`] says so, and refused otherwise
//! (`missing field`). Values follow the field's decoder ([`rust_type::decoder`]) and its Rust
//! type:
//! - `String` (serde's own): a JSON string, never a number; with `string_or_number` the
//!   runtime's lenient text, which keeps a number as its text;
//! - `u64`, `i64`, `Decimal`: a JSON number or a string of digits that the type holds exactly
//!   (no sign for `u64`, no fraction for integers);
//! - `bool`: `true`, `false`, `1`, `0`, or those as strings;
//! - `Date`: `DD-MON-YY` or `YYYY-MM-DD` text; `Timestamp`: whole epoch seconds (number or
//!   digits); `DayOrInstant`: either;
//! - enums: a JSON string, any for an open enum (`Other`), a listed one for a closed enum;
//! - lists: an array, an object keyed `"0"`, `"1"`, …, or `null` (empty); scalar elements take
//!   every spelling of their type (a `list<string>` element may be a number);
//! - an `Option` takes `null` (and `0` for `zero_is_none`); absent only where
//!   [`rust_type::absent_is_none`] says so;
//! - an opaque record takes any object, kept as sent.
//!
//! The values are kept in a form both sides compare ([`Value`]): numbers as normalized text
//! (`12.50` and `"12.5"` are one decimal), days as `YYYY-MM-DD`, instants as epoch seconds,
//! enum values as their variant and their text.

use std::collections::HashMap;

use super::json::{self, Json};
use crate::ir::{Field, Find, Record, Scalar, TypeRef};
use crate::rust_type::{self, Decoder, RustTy};

/// A decoded value, in a form both crates' values compare in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// `None`: absent, `null`, or (for `zero_is_none`) zero.
    None,
    /// A `String`.
    Text(String),
    /// An integer or a decimal, as normalized text (`12.5`, `-7`, `0`).
    Number(String),
    /// A `bool`.
    Bool(bool),
    /// A day, as `YYYY-MM-DD`.
    Day(String),
    /// An instant, as epoch seconds (normalized text).
    Instant(String),
    /// An enum value: its variant (`None` for `Other`) and its text as sent.
    Variant {
        /// The variant's Rust name; `None` for an open enum's `Other`.
        variant: Option<String>,
        /// The text.
        wire: String,
    },
    /// A record: each field's Rust name and value, in declaration order.
    Record(Vec<(String, Value)>),
    /// A `Vec`.
    List(Vec<Value>),
    /// An opaque record: the JSON object as sent.
    Object(String),
}

impl Value {
    /// The value as a reviewer reads it: `12.5`, `"w3"`, `ReportStatus::Other("X")`, `None`.
    pub fn words(&self) -> String {
        match self {
            Value::None => "None".to_owned(),
            Value::Text(text) => format!("{text:?}"),
            Value::Number(text) | Value::Instant(text) => text.clone(),
            Value::Bool(flag) => flag.to_string(),
            Value::Day(day) => day.clone(),
            Value::Variant {
                variant: Some(variant),
                ..
            } => variant.clone(),
            Value::Variant {
                variant: None,
                wire,
            } => format!("Other({wire:?})"),
            Value::Record(_) => "{…}".to_owned(),
            Value::List(items) => format!("[{} item{}]", items.len(), plural(items.len())),
            Value::Object(text) => text.clone(),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Where a decoder stops and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The Rust path below the decoded record (`hours`, `timesheets.0.rate`); empty for the
    /// record itself.
    pub path: Vec<String>,
    /// The key of the record's object the decoder stopped at (`None` for a missing field).
    pub key: Option<String>,
    /// Why, as the decoders say it.
    pub reason: String,
}

impl Refusal {
    fn new(reason: impl Into<String>) -> Refusal {
        Refusal {
            path: Vec::new(),
            key: None,
            reason: reason.into(),
        }
    }

    /// The refusal one level up: below `step`, read from `key`.
    fn under(mut self, step: &str, key: Option<&str>) -> Refusal {
        self.path.insert(0, step.to_owned());
        if key.is_some() {
            self.key = key.map(str::to_owned);
        }
        self
    }
}

/// A record's fields as read, with the key each was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// Each field's Rust name and value, in declaration order.
    pub fields: Vec<(String, Value)>,
    /// Per field, the key it was read from (`None`: not sent).
    pub keys: Vec<Option<String>>,
}

impl Read {
    /// The record's value.
    pub fn value(self) -> Value {
        Value::Record(self.fields)
    }
}

/// What the decoder of `record` (of the crate of `api`) makes of `json`.
pub fn record(api: &dyn Find, record: &Record, json: &Json) -> Result<Read, Refusal> {
    read_record(api, record, json, Keys::Decoder)
}

/// What the server of `api` means by `json`, an object it sends for `record`: each field's
/// value under its wire name (the name the server sends it under; an alias is only another
/// name the crate's decoders read), in the field's type.
pub fn meant(api: &dyn Find, record: &Record, json: &Json) -> Result<Read, Refusal> {
    read_record(api, record, json, Keys::Server)
}

/// Which keys a record is read from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// As the generated decoder reads them: wire names and aliases, a field read twice refused.
    Decoder,
    /// As the server sends them: each field under its wire name.
    Server,
}

fn read_record(api: &dyn Find, record: &Record, json: &Json, keys: Keys) -> Result<Read, Refusal> {
    let Json::Object(entries) = json else {
        return Err(Refusal::new(format!(
            "invalid type: {}, expected struct {}",
            kind_words(json),
            record.name
        )));
    };
    if record.opaque {
        return Ok(Read {
            fields: vec![("fields".to_owned(), Value::Object(json.to_text()))],
            keys: vec![None],
        });
    }
    // Each key's field: the first that has it as its wire name or alias.
    let mut readers: HashMap<&str, usize> = HashMap::with_capacity(record.fields.len());
    for (at, field) in record.fields.iter().enumerate() {
        let alias = field
            .documented_as
            .as_deref()
            .filter(|_| keys == Keys::Decoder);
        for name in std::iter::once(field.wire_name.as_str()).chain(alias) {
            readers.entry(name).or_insert(at);
        }
    }
    let mut read: Vec<Option<(Value, String)>> = vec![None; record.fields.len()];
    for (key, value) in entries.iter().filter(|(_, v)| *v != Json::Absent) {
        let Some(&at) = readers.get(key.as_str()) else {
            continue;
        };
        let field = &record.fields[at];
        if read[at].is_some() && keys == Keys::Decoder {
            return Err(Refusal {
                path: vec![field.rust_name.clone()],
                key: Some(key.clone()),
                reason: format!("duplicate field `{}`", field.wire_name),
            });
        }
        let decoded = read_field(api, field, value, keys)
            .map_err(|e| e.under(&field.rust_name, Some(key)))?;
        read[at] = Some((decoded, key.clone()));
    }
    let mut fields = Vec::with_capacity(record.fields.len());
    let mut keys = Vec::with_capacity(record.fields.len());
    for (field, read) in record.fields.iter().zip(read) {
        match read {
            Some((value, key)) => {
                fields.push((field.rust_name.clone(), value));
                keys.push(Some(key));
            }
            None if rust_type::absent_is_none(field) => {
                fields.push((field.rust_name.clone(), Value::None));
                keys.push(None);
            }
            None => {
                return Err(Refusal {
                    path: vec![field.rust_name.clone()],
                    key: None,
                    reason: format!("missing field `{}`", field.wire_name),
                });
            }
        }
    }
    Ok(Read { fields, keys })
}

/// What the decoder of `field` makes of `json` (absent included).
pub fn field(api: &dyn Find, field: &Field, json: &Json) -> Result<Value, Refusal> {
    read_field(api, field, json, Keys::Decoder)
}

/// What the server means by `json`, which it sends for `field` (see [`meant`]).
pub fn field_meant(api: &dyn Find, field: &Field, json: &Json) -> Result<Value, Refusal> {
    read_field(api, field, json, Keys::Server)
}

fn read_field(api: &dyn Find, field: &Field, json: &Json, keys: Keys) -> Result<Value, Refusal> {
    match json {
        Json::Absent if rust_type::absent_is_none(field) => return Ok(Value::None),
        Json::Absent => {
            return Err(Refusal::new(format!("missing field `{}`", field.wire_name)));
        }
        Json::Null if field.is_optional() => return Ok(Value::None),
        _ => {}
    }
    let decoder = rust_type::decoder(field);
    if let (Some(Decoder::Collection | Decoder::LenientList), TypeRef::List(element)) =
        (decoder, &field.ty)
    {
        return list(api, element, json, keys);
    }
    let value = match &field.ty {
        TypeRef::Scalar(Scalar::Date) => date(&rust_type::value_type(api, field), json),
        ty => typed(api, ty, decoder.is_some(), json, keys),
    }?;
    let zero = match &value {
        Value::Number(text) | Value::Instant(text) => text == "0",
        _ => false,
    };
    Ok(if field.zero_is_none && zero {
        Value::None
    } else {
        value
    })
}

/// A value of type `ty`; `lenient_text` is whether a `string` takes a number (the runtime's
/// text decoder) rather than serde's `String`.
fn typed(
    api: &dyn Find,
    ty: &TypeRef,
    lenient_text: bool,
    json: &Json,
    keys: Keys,
) -> Result<Value, Refusal> {
    let refuse = |expected: &str| {
        Err(Refusal::new(format!(
            "invalid value: {}, expected {expected}",
            kind_words(json)
        )))
    };
    match ty {
        TypeRef::Scalar(Scalar::String) => match json {
            Json::Str(text) => Ok(Value::Text(text.clone())),
            Json::Number(text) if lenient_text => Ok(Value::Text(text.clone())),
            _ => refuse("a string"),
        },
        TypeRef::Scalar(scalar @ (Scalar::Integer | Scalar::Id | Scalar::Count)) => {
            match json::number(json) {
                Some(n) if !(n.fraction || n.negative && *scalar != Scalar::Integer) => {
                    Ok(Value::Number(n.canonical))
                }
                _ if *scalar == Scalar::Integer => refuse("an i64"),
                _ => refuse("a u64"),
            }
        }
        TypeRef::Scalar(Scalar::Decimal) => match json::number(json) {
            Some(n) => Ok(Value::Number(n.canonical)),
            None => refuse("a decimal"),
        },
        TypeRef::Scalar(Scalar::Boolean) => match json {
            Json::Bool(flag) => Ok(Value::Bool(*flag)),
            Json::Number(text) | Json::Str(text) if text == "1" => Ok(Value::Bool(true)),
            Json::Number(text) | Json::Str(text) if text == "0" => Ok(Value::Bool(false)),
            Json::Str(text) if text == "true" => Ok(Value::Bool(true)),
            Json::Str(text) if text == "false" => Ok(Value::Bool(false)),
            _ => refuse("a boolean"),
        },
        // A date inside a list is a DayOrInstant.
        TypeRef::Scalar(Scalar::Date) => date(&RustTy::DayOrInstant, json),
        TypeRef::Enum(name) => {
            let Some(e) = api.enum_named(name.as_str()) else {
                return refuse("an enum value");
            };
            let Json::Str(text) = json else {
                return refuse(&format!("one of the values of {}", e.name));
            };
            match e.values.iter().find(|v| v.wire == *text) {
                Some(value) => Ok(Value::Variant {
                    variant: Some(value.variant.clone()),
                    wire: text.clone(),
                }),
                None if e.open => Ok(Value::Variant {
                    variant: None,
                    wire: text.clone(),
                }),
                None => Err(Refusal::new(format!(
                    "unknown value {text:?} of the closed enum {}",
                    e.name
                ))),
            }
        }
        TypeRef::Record(name) => match api.record_named(name.as_str()) {
            Some(r) => read_record(api, r, json, keys).map(Read::value),
            None => refuse("a record"),
        },
        TypeRef::List(element) => list(api, element, json, keys),
    }
}

/// A collection: an array, an object keyed `"0"`, `"1"`, … (in index order), or `null`
/// (empty); each element in every encoding of its type.
fn list(api: &dyn Find, element: &TypeRef, json: &Json, keys: Keys) -> Result<Value, Refusal> {
    if *json == Json::Null {
        return Ok(Value::List(Vec::new()));
    }
    let Some(mut items) = json.collection_items() else {
        return Err(Refusal::new(format!(
            "invalid type: {}, expected a collection",
            kind_words(json)
        )));
    };
    items.sort_by_key(|(key, _)| key.parse::<u128>().unwrap_or(u128::MAX));
    let mut values = Vec::with_capacity(items.len());
    for (key, item) in items {
        let value = match element {
            TypeRef::Scalar(Scalar::Date) => date(&RustTy::DayOrInstant, item),
            ty => typed(api, ty, true, item, keys),
        };
        values.push(value.map_err(|e| e.under(&key, None))?);
    }
    Ok(Value::List(values))
}

/// A date of the Rust type `rust`: `Date` takes day text, `Timestamp` whole epoch seconds,
/// `DayOrInstant` either.
fn date(rust: &RustTy, json: &Json) -> Result<Value, Refusal> {
    let day = match json {
        Json::Str(text) => json::day(text),
        _ => None,
    };
    let instant = json::number(json).filter(|n| !n.fraction);
    match (rust, day, instant) {
        (RustTy::Date | RustTy::DayOrInstant, Some(day), _) => Ok(Value::Day(day)),
        (RustTy::Timestamp | RustTy::DayOrInstant, _, Some(n)) => Ok(Value::Instant(n.canonical)),
        (RustTy::Date, ..) => Err(Refusal::new(format!(
            "invalid date {}: expected DD-MON-YY",
            json.to_text()
        ))),
        _ => Err(Refusal::new(format!(
            "invalid instant {}: expected epoch seconds",
            json.to_text()
        ))),
    }
}

fn kind_words(json: &Json) -> String {
    match json {
        Json::Absent => "nothing".to_owned(),
        Json::Null => "null".to_owned(),
        other => format!(
            "{} {}",
            other.kind().map_or("", |k| k.words()),
            other.to_text()
        ),
    }
}

/// Whether the decoder of `scalar` that takes every spelling of the type (the runtime's
/// lenient one: text keeps a number as its text, a date is either format) reads `json`.
pub fn scalar_fits(api: &dyn Find, scalar: Scalar, json: &Json) -> bool {
    typed(api, &TypeRef::Scalar(scalar), true, json, Keys::Decoder).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FieldEncoding, Presence};

    fn field(name: &str, ty: TypeRef) -> Field {
        Field {
            wire_name: name.to_owned(),
            rust_name: name.to_owned(),
            doc: "d".to_owned(),
            ty,
            encoding: FieldEncoding::Itself,
            presence: Presence::Always,
            nullable: false,
            zero_is_none: false,
            documented_as: None,
            documented_type: None,
            narrowed: None,
        }
    }

    fn record(fields: Vec<Field>) -> Record {
        Record {
            name: "R".to_owned(),
            documented_as: None,
            doc: "d".to_owned(),
            opaque: false,
            fields,
            delivered_by: Vec::new(),
            file: 0,
        }
    }

    fn object(entries: &[(&str, Json)]) -> Json {
        Json::Object(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    fn api() -> crate::ir::Api {
        crate::ir::Api {
            files: Vec::new(),
            info: None,
            oauth: None,
            errors: Vec::new(),
            enums: Vec::new(),
            records: Vec::new(),
            methods: Vec::new(),
        }
    }

    #[test]
    fn an_alias_and_the_wire_name_sent_together_are_a_duplicate_field() {
        let mut a = field("invoiceId", TypeRef::Scalar(Scalar::String));
        a.documented_as = Some("invoice".to_owned());
        let r = record(vec![a]);
        let text = |t: &str| Json::Str(t.to_owned());
        let one = super::record(&api(), &r, &object(&[("invoice", text("x"))])).unwrap();
        assert_eq!(
            one.fields,
            [("invoiceId".to_owned(), Value::Text("x".into()))]
        );
        assert_eq!(one.keys, [Some("invoice".to_owned())]);
        let both = object(&[("invoiceId", text("x")), ("invoice", text("y"))]);
        let refusal = super::record(&api(), &r, &both).unwrap_err();
        assert_eq!(refusal.reason, "duplicate field `invoiceId`");
        assert_eq!(refusal.key.as_deref(), Some("invoice"));
    }

    #[test]
    fn a_key_goes_to_the_first_field_that_has_it_and_unknown_keys_are_skipped() {
        let a = field("a", TypeRef::Scalar(Scalar::Integer));
        let mut b = field("b", TypeRef::Scalar(Scalar::Integer));
        b.documented_as = Some("a".to_owned());
        b.presence = Presence::Optional(None);
        let r = record(vec![a, b]);
        let read = super::record(
            &api(),
            &r,
            &object(&[("z", Json::Null), ("a", Json::Number("-7".into()))]),
        )
        .unwrap();
        assert_eq!(
            read.fields,
            [
                ("a".to_owned(), Value::Number("-7".into())),
                ("b".to_owned(), Value::None)
            ]
        );
        let missing = super::record(&api(), &r, &object(&[])).unwrap_err();
        assert_eq!(missing.reason, "missing field `a`");
    }

    #[test]
    fn numbers_are_compared_as_values_and_zero_can_mean_none() {
        let mut hours = field("hours", TypeRef::Scalar(Scalar::Decimal));
        hours.encoding = FieldEncoding::Uniform(crate::ir::Encoding::STRING);
        let value = super::field(&api(), &hours, &Json::Str("12.50".into())).unwrap();
        assert_eq!(value, Value::Number("12.5".into()));
        let mut id = field("id", TypeRef::Scalar(Scalar::Id));
        id.encoding = FieldEncoding::Uniform(crate::ir::Encoding::NUMBER);
        assert!(super::field(&api(), &id, &Json::Number("-1".into())).is_err());
        id.zero_is_none = true;
        assert_eq!(
            super::field(&api(), &id, &Json::Str("0".into())).unwrap(),
            Value::None
        );
    }
}
