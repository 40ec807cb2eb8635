//! The wire model: what a server built to one spec may send, and what a client crate built
//! from another spec accepts, read off the runtime decoders (`marketplace_client::wire`) that
//! the generated code names. Values are concrete JSON, so the oracle test can send the very
//! samples the model judged to the real decoders and compare.
//!
//! What a field's decoder accepts follows [`rust_type::decoder`] and the value's Rust type:
//! - `String` (serde's own): any JSON string, never a number; with `string_or_number` the
//!   runtime's lenient text, which keeps a number as its text;
//! - `u64`, `i64`, `Decimal`: a JSON number or a string of digits that the type holds exactly
//!   (no sign for `u64`, no fraction for integers);
//! - `bool`: `true`, `false`, `1`, `0`, or those as strings;
//! - `Date`: `DD-MON-YY` or `YYYY-MM-DD` text; `Timestamp`: whole epoch seconds (number or
//!   digits); `DayOrInstant`: either;
//! - enums: a JSON string, any for an open enum, a documented one for a closed enum;
//! - records: an object whose every required field is present under its wire name or its
//!   `documented_as` alias; unknown keys are ignored; an opaque record takes any object;
//! - lists: an array, an object keyed `"0"`, `"1"`, …, or `null` (empty); scalar elements take
//!   every encoding of their type (a `list<string>` element may be a number);
//! - an `Option` takes `null` (and `0` for `zero_is_none`); absent only where
//!   [`rust_type::absent_is_none`] says so.
//!
//! What a server may send for a field in one method's response: each declared encoding of the
//! field for that method, an undocumented value for an open enum (the spec opens an enum
//! because the service sends values it does not list), `null` when nullable, `0` when
//! `zero_is_none`, nothing when optional or absent in that method; records and lists
//! recursively, one variation at a time.

use std::cell::Cell;
use std::collections::HashMap;

use crate::ir::{
    DateForm, Encoding, Field, FieldEncoding, Find, JsonForm, JsonKind, Kind, Method, Param,
    ParamType, Presence, Reader, Record, Scalar, TypeRef,
};
use crate::rust_type::{self, Decoder, RustTy};

/// A JSON value; `Absent` is a key left out of its object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Json {
    /// The key is not sent.
    Absent,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JSON number, as written.
    Number(String),
    /// A JSON string.
    Str(String),
    /// An object; keys with [`Json::Absent`] are left out.
    Object(Vec<(String, Json)>),
    /// An array, or an object keyed `"0"`, `"1"`, … (`keyed`).
    List {
        /// Sent as an index-keyed object.
        keyed: bool,
        /// The elements.
        items: Vec<Json>,
    },
}

impl Json {
    /// An example of the encoding table, written as JSON text (`true`, `1767571200`,
    /// `"05-JAN-26"`).
    pub fn from_example(text: &str) -> Json {
        match text {
            "null" => Json::Null,
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            _ => match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(inner) => Json::Str(inner.to_owned()),
                None => Json::Number(text.to_owned()),
            },
        }
    }

    /// A parsed JSON document: objects stay objects (an index-keyed list is an object until
    /// a spec says it is a list), arrays are unkeyed lists, numbers keep their text.
    pub fn from_value(value: &serde_json::Value) -> Json {
        use serde_json::Value;
        match value {
            Value::Null => Json::Null,
            Value::Bool(value) => Json::Bool(*value),
            Value::Number(number) => Json::Number(number.to_string()),
            Value::String(text) => Json::Str(text.clone()),
            Value::Array(items) => Json::List {
                keyed: false,
                items: items.iter().map(Json::from_value).collect(),
            },
            Value::Object(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.clone(), Json::from_value(value)))
                    .collect(),
            ),
        }
    }

    /// The kind of JSON value (`None` for an absent key).
    pub fn kind(&self) -> Option<JsonKind> {
        Some(match self {
            Json::Absent => return None,
            Json::Null => JsonKind::Null,
            Json::Bool(_) => JsonKind::Boolean,
            Json::Number(_) => JsonKind::Number,
            Json::Str(_) => JsonKind::String,
            Json::Object(_) | Json::List { keyed: true, .. } => JsonKind::Object,
            Json::List { keyed: false, .. } => JsonKind::Array,
        })
    }

    /// The elements of a collection as the runtime's collection decoder reads them: an
    /// array's items, or the values of an object whose every key is a canonical index
    /// (`"0"`, `"17"`: digits without a leading zero), with their keys. `None` for anything
    /// else.
    pub fn collection_items(&self) -> Option<Vec<(String, &Json)>> {
        match self {
            Json::List { items, .. } => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| (index.to_string(), item))
                    .collect(),
            ),
            Json::Object(entries) => entries
                .iter()
                .map(|(key, value)| is_index(key).then(|| (key.clone(), value)))
                .collect(),
            _ => None,
        }
    }

    /// The JSON text (for an absent value, `null`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Absent | Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(text) => out.push_str(text),
            Json::Str(text) => write_string(out, text),
            Json::Object(entries) => {
                out.push('{');
                let mut first = true;
                for (key, value) in entries.iter().filter(|(_, v)| *v != Json::Absent) {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
            Json::List { keyed, items } => {
                out.push(if *keyed { '{' } else { '[' });
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    if *keyed {
                        write_string(out, &index.to_string());
                        out.push(':');
                    }
                    item.write(out);
                }
                out.push(if *keyed { '}' } else { ']' });
            }
        }
    }
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// One response document a server may send, and which variation it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The varied value, e.g. `timesheets.0.rate = "12.50"`, or `baseline`.
    pub what: String,
    /// The document (the envelope's `data`).
    pub data: Json,
}

/// What the model may build for the questions of one spec diff, and whether it ran out.
///
/// The model writes out each document a server may send, one variation at a time, so what it
/// builds for a record is about the square of the record's size, and nested records multiply
/// (up to `MAX_DEPTH` levels): a hostile spec makes it as large as it likes. The budget is
/// counted in bytes, roughly (a value, a key or a string's bytes, a name of a method the model
/// looks for), before anything is built; once spent, every question asked with it is answered
/// `None`, for the caller to judge conservatively. A count, not a clock: the answers are a
/// function of the specs.
#[derive(Debug)]
pub struct Budget {
    left: Cell<usize>,
    spent: Cell<bool>,
}

/// What a value costs besides its strings' bytes.
const VALUE_COST: usize = 64;

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> Budget {
        Budget {
            left: Cell::new(bytes),
            spent: Cell::new(false),
        }
    }

    /// No bound (for tests and tools that look at the model on small specs).
    pub fn unlimited() -> Budget {
        Budget::new(usize::MAX)
    }

    /// Whether the budget ran out.
    pub fn spent(&self) -> bool {
        self.spent.get()
    }

    /// Takes `cost` from what is left; `false` (and spent from now on) when it is not there.
    fn take(&self, cost: usize) -> bool {
        if self.spent.get() || cost > self.left.get() {
            self.spent.set(true);
            self.left.set(0);
            return false;
        }
        self.left.set(self.left.get() - cost);
        true
    }

    /// Takes what a copy of `json` costs, measured no further than what is left.
    fn take_copy(&self, json: &Json) -> bool {
        match cost_within(json, self.left.get()) {
            Some(cost) => self.take(cost),
            None => self.take(usize::MAX),
        }
    }
}

/// What a copy of `json` costs, or `None` past `limit` (found after looking at no more than
/// `limit` of it).
fn cost_within(json: &Json, limit: usize) -> Option<usize> {
    let mut cost = 0usize;
    let mut stack = vec![json];
    while let Some(json) = stack.pop() {
        cost = cost.checked_add(VALUE_COST)?;
        match json {
            Json::Absent | Json::Null | Json::Bool(_) => {}
            Json::Number(text) | Json::Str(text) => cost = cost.checked_add(text.len())?,
            Json::Object(entries) => {
                for (key, value) in entries {
                    cost = cost.checked_add(key.len())?;
                    stack.push(value);
                }
            }
            Json::List { items, .. } => stack.extend(items),
        }
        if cost > limit {
            return None;
        }
    }
    Some(cost)
}

/// Every response document the server of `api` may send for `method`: a baseline with every
/// field at its first value, then one variation at a time.
pub fn samples(api: &dyn Find, method: &Method) -> Vec<Sample> {
    samples_within(api, method, &Budget::unlimited()).unwrap_or_default()
}

/// [`samples`] within `budget`: `None` when it runs out.
pub fn samples_within(api: &dyn Find, method: &Method, budget: &Budget) -> Option<Vec<Sample>> {
    let Some(record) = record(api, method.response.as_str()) else {
        return Some(Vec::new());
    };
    let (baseline, variations) = record_values(api, record, &method.name, 0, budget);
    if budget.spent() {
        return None;
    }
    let mut samples = vec![Sample {
        what: "baseline".to_owned(),
        data: baseline,
    }];
    samples.extend(
        variations
            .into_iter()
            .map(|(what, data)| Sample { what, data }),
    );
    Some(samples)
}

/// Whether the decoder of `record` in the crate of `api` accepts `json`.
pub fn record_accepts(api: &dyn Find, record: &Record, json: &Json) -> bool {
    let Json::Object(entries) = json else {
        return false;
    };
    if record.opaque {
        return true;
    }
    // Where each key is first sent: a field reads the first of its wire name and its alias.
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for (at, (key, value)) in entries.iter().enumerate() {
        if *value != Json::Absent {
            first.entry(key.as_str()).or_insert(at);
        }
    }
    record.fields.iter().all(|field| {
        let wire = first.get(field.wire_name.as_str());
        let alias = field
            .documented_as
            .as_deref()
            .and_then(|alias| first.get(alias));
        let value = wire
            .into_iter()
            .chain(alias)
            .min()
            .and_then(|&at| entries.get(at))
            .map_or(&Json::Absent, |(_, value)| value);
        field_accepts(api, field, value)
    })
}

/// Whether the decoder of `field` in the crate of `api` accepts `json` (absent included).
pub fn field_accepts(api: &dyn Find, field: &Field, json: &Json) -> bool {
    match json {
        Json::Absent => return rust_type::absent_is_none(field),
        Json::Null if field.is_optional() => return true,
        _ => {}
    }
    let decoder = rust_type::decoder(field);
    if matches!(decoder, Some(Decoder::Collection | Decoder::LenientList)) {
        return value_accepts(api, &field.ty, true, json);
    }
    if field.zero_is_none && number(json).is_some_and(|n| n.zero) {
        return value_accepts(api, &field.ty, false, json);
    }
    let lenient_text = decoder.is_some();
    match &field.ty {
        TypeRef::Scalar(Scalar::Date) => date_accepts(&rust_type::value_type(api, field), json),
        ty => value_accepts(api, ty, lenient_text, json),
    }
}

/// Whether a value of type `ty` decodes from `json`; `lenient_text` is whether a `string` takes
/// a number (the runtime's text decoder) rather than serde's `String`.
fn value_accepts(api: &dyn Find, ty: &TypeRef, lenient_text: bool, json: &Json) -> bool {
    match ty {
        TypeRef::Scalar(Scalar::String) => {
            matches!(json, Json::Str(_)) || (lenient_text && matches!(json, Json::Number(_)))
        }
        TypeRef::Scalar(Scalar::Integer) => number(json).is_some_and(|n| !n.fraction),
        TypeRef::Scalar(Scalar::Id | Scalar::Count) => {
            number(json).is_some_and(|n| !n.fraction && !n.negative)
        }
        TypeRef::Scalar(Scalar::Decimal) => number(json).is_some(),
        TypeRef::Scalar(Scalar::Boolean) => {
            let plain = match json {
                Json::Bool(_) => true,
                Json::Number(text) | Json::Str(text) => {
                    matches!(text.as_str(), "0" | "1")
                        || matches!(json, Json::Str(t) if t == "true" || t == "false")
                }
                _ => false,
            };
            plain || lenient_spellings(Scalar::Boolean).contains(json)
        }
        // A date inside a list is a DayOrInstant.
        TypeRef::Scalar(Scalar::Date) => date_accepts(&RustTy::DayOrInstant, json),
        TypeRef::Enum(name) => match (json, api.enum_named(name.as_str())) {
            (Json::Str(text), Some(e)) => e.open || api.lists(e, text),
            _ => false,
        },
        TypeRef::Record(name) => {
            record(api, name.as_str()).is_some_and(|r| record_accepts(api, r, json))
        }
        TypeRef::List(element) => match json {
            Json::Null => true,
            Json::List { items, .. } => items
                .iter()
                .all(|item| value_accepts(api, element, true, item)),
            _ => false,
        },
    }
}

/// The fixed spellings of every encoding of `scalar` that the runtime's lenient decoder reads
/// (the examples of the encoding table): what a decoder of the type takes beyond its plain
/// form.
fn lenient_spellings(scalar: Scalar) -> Vec<Json> {
    Encoding::allowed_for(Kind::Scalar(scalar))
        .filter(|encoding| encoding.info().reader == Reader::Lenient)
        .flat_map(|encoding| encoding.info().examples)
        .map(|text| Json::from_example(text))
        .collect()
}

fn date_accepts(rust_type: &RustTy, json: &Json) -> bool {
    let day = matches!(json, Json::Str(text) if is_day(text));
    let instant = number(json).is_some_and(|n| !n.fraction);
    match rust_type {
        RustTy::Date => day,
        RustTy::Timestamp => instant,
        _ => day || instant,
    }
}

/// Whether `key` is a canonical collection index: digits, no leading zero.
fn is_index(key: &str) -> bool {
    !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'))
}

/// The encodings of the table that `kind` may declare and whose spelling `json` is: its JSON
/// form (an index-keyed object for `index_object`) and, for dates, what the text or number
/// carries (`dmy`: `DD-MON-YY` text; `epoch`: whole seconds). Whether the value fits the type
/// is [`scalar_fits`]'s question; this one is only about the spelling.
pub fn encodings_of(kind: Kind, json: &Json) -> Vec<Encoding> {
    let Some(json_kind) = json.kind() else {
        return Vec::new();
    };
    Encoding::allowed_for(kind)
        .filter(|encoding| {
            let info = encoding.info();
            let form = info.json.kinds().contains(&json_kind)
                && (info.json != JsonForm::IndexObject || json.collection_items().is_some());
            form && match info.date {
                Some(DateForm::Day) => matches!(json, Json::Str(text) if is_day(text)),
                Some(DateForm::Instant) => number(json).is_some_and(|n| !n.fraction),
                None => true,
            }
        })
        .collect()
}

/// Whether a value of `scalar` can be read from `json` by the runtime's lenient decoder of
/// the type (text: a string or a number kept as its text; a date: either format).
pub fn scalar_fits(api: &dyn Find, scalar: Scalar, json: &Json) -> bool {
    value_accepts(api, &TypeRef::Scalar(scalar), true, json)
}

/// `DD-MON-YY` (upper-case month) or `YYYY-MM-DD`, the shapes the date decoder takes.
fn is_day(text: &str) -> bool {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = text.split('-').collect();
    match parts.as_slice() {
        [day, month, year] if day.len() == 2 && year.len() == 2 => {
            digits(day) && digits(year) && MONTHS.contains(month)
        }
        [year, month, day] if year.len() == 4 => digits(year) && digits(month) && digits(day),
        _ => false,
    }
}

/// What a number decoder sees in a JSON number or a string of digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Number {
    negative: bool,
    fraction: bool,
    zero: bool,
}

fn number(json: &Json) -> Option<Number> {
    let (Json::Number(text) | Json::Str(text)) = json else {
        return None;
    };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let zero = whole.bytes().all(|b| b == b'0') && fraction.bytes().all(|b| b == b'0');
    Some(Number {
        negative: negative && !zero,
        fraction: fraction.bytes().any(|b| b != b'0'),
        zero,
    })
}

/// Every value the server of `api` may send for `field` in `method`'s response.
pub fn field_sends(api: &dyn Find, field: &Field, method: &str) -> Vec<Json> {
    field_sends_within(api, field, method, &Budget::unlimited()).unwrap_or_default()
}

/// [`field_sends`] within `budget`: `None` when it runs out.
pub fn field_sends_within(
    api: &dyn Find,
    field: &Field,
    method: &str,
    budget: &Budget,
) -> Option<Vec<Json>> {
    let (baseline, variations) = field_values(api, field, method, 0, budget);
    if budget.spent() {
        return None;
    }
    Some(
        std::iter::once(baseline)
            .chain(variations.into_iter().map(|(_, json)| json))
            .collect(),
    )
}

/// How deep records nest before the model stops (specs cannot nest records in a cycle, but the
/// model does not rely on it).
const MAX_DEPTH: usize = 8;

/// A field's first value (the baseline) and its variations, each named by its path.
fn field_values(
    api: &dyn Find,
    field: &Field,
    method: &str,
    depth: usize,
    budget: &Budget,
) -> (Json, Vec<(String, Json)>) {
    // The lists of methods looked through, and the values below.
    let named = match &field.presence {
        Presence::OnlyIn(methods) | Presence::AbsentIn(methods) => methods.len(),
        Presence::Always | Presence::Optional(_) => 0,
    } + match &field.encoding {
        FieldEncoding::PerMethod(per_method) => per_method.len(),
        FieldEncoding::Itself | FieldEncoding::Uniform(_) => 0,
    };
    if !budget.take(VALUE_COST.saturating_add(named.saturating_mul(VALUE_COST))) {
        return (Json::Absent, Vec::new());
    }
    let delivered = match &field.presence {
        Presence::OnlyIn(methods) => methods.iter().any(|m| m == method),
        Presence::AbsentIn(methods) => !methods.iter().any(|m| m == method),
        Presence::Always | Presence::Optional(_) => true,
    };
    if !delivered {
        return (Json::Absent, Vec::new());
    }
    let encodings = field.encoding.in_method(method);
    let (baseline, mut variations) = match &field.ty {
        TypeRef::List(element) => {
            let (first, element_variations) = element_values(api, element, depth, budget);
            let list = |keyed, items| Json::List { keyed, items };
            let mut variations = Vec::new();
            let mut shapes = encodings
                .iter()
                .map(|e| e.info().json == JsonForm::IndexObject);
            let keyed = shapes.next().unwrap_or(true);
            for other in shapes {
                if !budget.take_copy(&first) {
                    break;
                }
                variations.push((String::new(), list(other, vec![first.clone()])));
            }
            variations.push((String::new(), list(keyed, Vec::new())));
            variations.extend(
                element_variations
                    .into_iter()
                    .map(|(path, json)| (join("0", &path), list(keyed, vec![json]))),
            );
            (list(keyed, vec![first]), variations)
        }
        TypeRef::Scalar(scalar) => {
            let mut values = encodings
                .iter()
                .flat_map(|encoding| scalar_values(*scalar, *encoding))
                .map(|json| (String::new(), json));
            let first = values.next().map_or(Json::Null, |(_, json)| json);
            (first, values.collect())
        }
        ty => element_values(api, ty, depth, budget),
    };
    if field.nullable {
        variations.push((String::new(), Json::Null));
    }
    if field.zero_is_none {
        let string = encodings.iter().all(|e| e.info().json == JsonForm::String);
        variations.push((
            String::new(),
            if string {
                Json::Str("0".into())
            } else {
                Json::Number("0".into())
            },
        ));
    }
    if field.presence != Presence::Always {
        variations.push((String::new(), Json::Absent));
    }
    (baseline, variations)
}

/// A record's, enum's or list element's first value and variations.
fn element_values(
    api: &dyn Find,
    ty: &TypeRef,
    depth: usize,
    budget: &Budget,
) -> (Json, Vec<(String, Json)>) {
    match ty {
        TypeRef::Record(name) => match record(api, name.as_str()) {
            Some(r) if depth < MAX_DEPTH => record_values(api, r, "", depth + 1, budget),
            _ => (Json::Object(Vec::new()), Vec::new()),
        },
        TypeRef::Enum(name) => {
            let Some(e) = api.enum_named(name.as_str()) else {
                return (Json::Null, Vec::new());
            };
            let cost = e.values.iter().fold(VALUE_COST, |cost, v| {
                cost.saturating_add(VALUE_COST.saturating_add(v.wire.len()))
            });
            if !budget.take(cost) {
                return (Json::Null, Vec::new());
            }
            let mut values = e.values.iter().map(|v| Json::Str(v.wire.clone()));
            if e.open {
                // Only an open enum's server sends values the spec does not list.
                let unlisted = format!("Unlisted{}", e.name);
                let first = values.next().unwrap_or(Json::Str(unlisted.clone()));
                let mut rest: Vec<Json> = values.collect();
                rest.push(Json::Str(unlisted));
                (
                    first,
                    rest.into_iter().map(|j| (String::new(), j)).collect(),
                )
            } else {
                let first = values.next().unwrap_or(Json::Null);
                (first, values.map(|j| (String::new(), j)).collect())
            }
        }
        // List elements are sent in their type's default encoding; a type without one (dates)
        // in each of its encodings.
        TypeRef::Scalar(scalar) => {
            let kind = Kind::Scalar(*scalar);
            let encodings: Vec<Encoding> = match Encoding::default_for(kind) {
                Some(default) => vec![default],
                None => Encoding::allowed_for(kind).collect(),
            };
            let mut values = encodings
                .into_iter()
                .flat_map(|encoding| scalar_values(*scalar, encoding));
            (
                values.next().unwrap_or(Json::Null),
                values.map(|j| (String::new(), j)).collect(),
            )
        }
        TypeRef::List(inner) => {
            let (first, _) = element_values(api, inner, depth, budget);
            (
                Json::List {
                    keyed: false,
                    items: vec![first],
                },
                Vec::new(),
            )
        }
    }
}

/// A record's baseline object and its variations (one field varied at a time).
fn record_values(
    api: &dyn Find,
    record: &Record,
    method: &str,
    depth: usize,
    budget: &Budget,
) -> (Json, Vec<(String, Json)>) {
    if record.opaque {
        return (
            Json::Object(vec![("note".into(), Json::Str("kept as sent".into()))]),
            Vec::new(),
        );
    }
    let mut fields: Vec<(Json, Vec<(String, Json)>)> = Vec::with_capacity(record.fields.len());
    for field in &record.fields {
        if budget.spent() {
            return (Json::Object(Vec::new()), Vec::new());
        }
        fields.push(field_values(api, field, method, depth, budget));
    }
    // Every variation is a copy of the baseline: its cost is paid before each copy.
    let mut baseline_cost = VALUE_COST;
    for (field, (first, _)) in record.fields.iter().zip(&fields) {
        match cost_within(first, usize::MAX) {
            Some(cost) if budget.take(cost.saturating_add(field.wire_name.len())) => {
                baseline_cost = baseline_cost
                    .saturating_add(cost)
                    .saturating_add(field.wire_name.len());
            }
            _ => return (Json::Object(Vec::new()), Vec::new()),
        }
    }
    let baseline: Vec<(String, Json)> = record
        .fields
        .iter()
        .zip(&fields)
        .map(|(field, (first, _))| (field.wire_name.clone(), first.clone()))
        .collect();
    let mut variations = Vec::new();
    for (index, (field, (_, field_variations))) in record.fields.iter().zip(&fields).enumerate() {
        for (path, json) in field_variations {
            let named = path.len().saturating_add(field.wire_name.len());
            if !budget.take(baseline_cost.saturating_add(named)) || !budget.take_copy(json) {
                return (Json::Object(baseline), variations);
            }
            let mut object = baseline.clone();
            if let Some(entry) = object.get_mut(index) {
                entry.1 = json.clone();
            }
            variations.push((
                format!("{} = {}", join(&field.wire_name, path), json_brief(json)),
                Json::Object(object),
            ));
        }
    }
    (Json::Object(baseline), variations)
}

fn join(head: &str, tail: &str) -> String {
    match tail.split_once(" = ") {
        Some((path, _)) if !path.is_empty() => format!("{head}.{path}"),
        _ if tail.is_empty() => head.to_owned(),
        _ => format!("{head}.{tail}"),
    }
}

fn json_brief(json: &Json) -> String {
    match json {
        Json::Absent => "(absent)".to_owned(),
        Json::Object(_) => "{…}".to_owned(),
        Json::List { keyed: true, items } if items.is_empty() => "{}".to_owned(),
        Json::List {
            keyed: false,
            items,
        } if items.is_empty() => "[]".to_owned(),
        Json::List { keyed: true, .. } => "{\"0\": …}".to_owned(),
        Json::List { keyed: false, .. } => "[…]".to_owned(),
        json => json.to_text(),
    }
}

/// The values of a scalar in one encoding: the encoding's examples when the table gives them,
/// else the scalar's typical value in the encoding's JSON form.
fn scalar_values(scalar: Scalar, encoding: Encoding) -> Vec<Json> {
    let info = encoding.info();
    if !info.examples.is_empty() {
        return info
            .examples
            .iter()
            .map(|text| Json::from_example(text))
            .collect();
    }
    let example = scalar.example();
    let text = || Json::Str(example.text.to_owned());
    let number = || Json::Number(example.number.to_owned());
    match info.json {
        JsonForm::Number => vec![number()],
        JsonForm::String => vec![text()],
        JsonForm::StringOrNumber => vec![text(), number()],
        JsonForm::Boolean => vec![Json::Bool(example.text == "1")],
        JsonForm::IndexObject | JsonForm::Array => {
            panic!(
                "{encoding} is a list's encoding, not a {}'s",
                scalar.spec_name()
            )
        }
    }
}

fn record<'a>(api: &'a dyn Find, name: &str) -> Option<&'a Record> {
    api.record_named(name)
}

// ---- requests --------------------------------------------------------------------------------

/// The values an old app may send for a parameter, as far as the server can tell them apart:
/// its smallest and largest allowed value (the client refuses others before sending).
fn param_range(param: &Param) -> (i128, i128) {
    let floor = match param.ty {
        ParamType::Integer => i128::from(i64::MIN),
        ParamType::Count | ParamType::Id | ParamType::Date => 0,
    };
    let ceiling = match param.ty {
        ParamType::Integer => i128::from(i64::MAX),
        _ => i128::from(u64::MAX),
    };
    (
        param.min.map_or(floor, i128::from).max(floor),
        param.max.map_or(ceiling, i128::from),
    )
}

/// Whether the server of the head spec takes every value an old app sends for `old` as `new`:
/// the same text format (a date is `DD-MON-YY`, the others decimal digits), nothing below the
/// new minimum; a value above the new cap is answered with the cap (the spec's rule for `max`).
pub fn param_accepts(old: &Param, new: &Param) -> bool {
    let date = |p: &Param| p.ty == ParamType::Date;
    if date(old) != date(new) {
        return false;
    }
    let (old_low, _) = param_range(old);
    let (new_low, _) = param_range(new);
    old_low >= new_low
}
