//! The fake marketplace is held to the spec (`spec/`, read with marketplace-codegen): it serves
//! exactly the spec's data methods, and every response it renders is what the spec declares
//! for that method: the envelope's `api` is the method's `delivered_api`; every key is a field
//! of the spec's record; a field the spec says is present is, one it says is absent is not;
//! and each value has the JSON kind its declared encoding gives for that method (the encoding
//! table's `JsonForm`), recursively through records and lists. A new endpoint in the spec fails
//! here until the fake serves it and a call below shows it.
//!
//! With varied spellings (`fake::spelling`), every answer still holds the same values, each in
//! an encoding the spec declares, and over a few seeds every declared spelling of every field
//! is met, counted against the encoding table.
//!
//! The fake is read through a small surface only: `fake::data::{served_methods, respond}`,
//! `fake::spelling::write` and `fake::world::World::seeded`.

use std::collections::BTreeSet;
use std::path::Path;

use marketplace_codegen::ir::{
    Api, Encoding, Field, JsonKind, Kind, Method, Presence, Record, TypeRef,
};
use marketplace_tests::fake::data::{respond, served_methods};
use marketplace_tests::fake::spelling::{self, Spellings};
use marketplace_tests::fake::world::World;
use serde_json::Value;

const CLIENT: u64 = 40001;
const PROVIDER: u64 = 50002;

/// One call: the user it acts for, the method and the query.
type Call = (u64, &'static str, &'static [(&'static str, &'static str)]);

/// Calls that together show every method, and the variants of its response the seeded world
/// has: with and without an invoice, the stored and the draft status report, each page.
const CALLS: &[Call] = &[
    (CLIENT, "pay/getTimesheetsForBid", &[("bidId", "310001")]),
    (
        CLIENT,
        "pay/getTimesheetsForBid",
        &[("bidId", "310001"), ("page", "3")],
    ),
    (CLIENT, "pay/getStatusReportsForBid", &[("bidId", "310002")]),
    (CLIENT, "pay/getTimesheet", &[("id", "880104")]),
    (CLIENT, "pay/getTimesheet", &[("bidId", "310001")]),
    (PROVIDER, "pay/getStatusReport", &[("id", "990202")]),
    (CLIENT, "pay/getStatusReport", &[("bidId", "310002")]),
    (CLIENT, "pay/getBilling", &[("id", "9003")]),
    (CLIENT, "pay/getBilling", &[("id", "9001")]),
    (CLIENT, "pay/getInvoice", &[("id", "9001")]),
    (CLIENT, "pay/getInvoice", &[("id", "9003")]),
    (CLIENT, "pay/getPayment", &[("id", "7001")]),
    (CLIENT, "manage/getMyProviders", &[]),
    (CLIENT, "manage/getMyProviders", &[("bidId", "310001")]),
    (
        CLIENT,
        "workroom/getWorkviewDetails",
        &[("bidId", "310003"), ("userId", "50003")],
    ),
];

fn spec() -> Api {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let sources = marketplace_codegen::load_spec_dir(&dir, "spec").unwrap();
    marketplace_codegen::resolve(&sources).unwrap()
}

/// The fixtures' "now": Wednesday 2026-01-21 13:52:18 UTC.
fn now() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1769003538).unwrap()
}

#[test]
fn the_fake_serves_exactly_the_spec_methods_and_every_one_is_shown_here() {
    let api = spec();
    let spec_methods: BTreeSet<&str> = api.methods.iter().map(|m| m.name.as_str()).collect();
    let served: BTreeSet<&str> = served_methods().collect();
    assert_eq!(
        served, spec_methods,
        "the fake's data methods (fake::data::METHODS) and the spec's differ: a method the \
         spec gained is served by a line of METHODS in tests/fake/src/data.rs answering from \
         the seeded world (tests/fake/src/world/); one it lost, removed there"
    );
    let called: BTreeSet<&str> = CALLS.iter().map(|(_, method, _)| *method).collect();
    assert_eq!(
        called, spec_methods,
        "a spec method without a call here: add one to CALLS in this file"
    );
}

#[test]
fn every_response_field_is_declared_present_where_the_spec_says_and_of_its_encodings_json_kind() {
    let api = spec();
    let world = World::seeded();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (caller, method_name, query) in CALLS {
        let method = api
            .methods
            .iter()
            .find(|m| m.name == *method_name)
            .unwrap_or_else(|| panic!("{method_name} is not in the spec"));
        let query: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let reply = respond(&world, *caller, method_name, &query, now());
        assert_eq!(reply.status, 200, "{method_name} {query:?}: {}", reply.body);
        if reply.body["api"] != method.delivered_api.as_str() {
            problems.push(format!(
                "{method_name}: the envelope's api is {}, the spec says {}",
                reply.body["api"], method.delivered_api
            ));
        }
        let mut check = Check {
            api: &api,
            method,
            problems: &mut problems,
            fields: 0,
        };
        let response = api.record(&method.response);
        check.record(response, &reply.body["data"], "data");
        checked += check.fields;
    }
    assert!(checked > 200, "only {checked} fields were checked");
    assert!(
        problems.is_empty(),
        "{} places where the fake and the spec disagree:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// One response checked against the spec, for one method.
struct Check<'a> {
    api: &'a Api,
    method: &'a Method,
    problems: &'a mut Vec<String>,
    fields: usize,
}

impl Check<'_> {
    fn problem(&mut self, at: &str, what: String) {
        self.problems
            .push(format!("{}: {at}: {what}", self.method.name));
    }

    fn record(&mut self, record: &Record, json: &Value, at: &str) {
        let Some(object) = json.as_object() else {
            self.problem(
                at,
                format!("{} is sent as {json}, not an object", record.name),
            );
            return;
        };
        if record.opaque {
            return;
        }
        for key in object.keys() {
            let declared = record
                .fields
                .iter()
                .any(|f| f.wire_name == *key || f.documented_as.as_deref() == Some(key.as_str()));
            if !declared {
                self.problem(at, format!("{key} is not a field of {}", record.name));
            }
        }
        for field in &record.fields {
            let value = object.get(&field.wire_name).or_else(|| {
                field
                    .documented_as
                    .as_ref()
                    .and_then(|alias| object.get(alias))
            });
            self.field(field, value, &format!("{at}.{}", field.wire_name));
        }
    }

    fn field(&mut self, field: &Field, value: Option<&Value>, at: &str) {
        let name = self.method.name.as_str();
        let (must, may) = match &field.presence {
            Presence::Always => (true, true),
            Presence::Optional(_) => (false, true),
            Presence::OnlyIn(methods) => {
                let here = methods.iter().any(|m| *m == name);
                (false, here)
            }
            Presence::AbsentIn(methods) => {
                let here = !methods.iter().any(|m| *m == name);
                (here, here)
            }
        };
        let Some(value) = value else {
            if must {
                self.problem(
                    at,
                    "the spec says it is always sent; it is missing".to_owned(),
                );
            }
            return;
        };
        if !may {
            self.problem(at, format!("the spec says {name} does not send it"));
            return;
        }
        self.fields += 1;
        if value.is_null() && field.nullable {
            return;
        }
        let encodings = field.encoding.in_method(name);
        self.value(&field.ty, &encodings, value, at);
    }

    /// A value of type `ty` sent in one of `encodings` (none: a record's or enum's own form).
    fn value(&mut self, ty: &TypeRef, encodings: &[Encoding], value: &Value, at: &str) {
        let kind = json_kind(value);
        match ty {
            TypeRef::Record(id) => self.record(self.api.record(id), value, at),
            TypeRef::Enum(id) => {
                let e = self.api.enumeration(id);
                match value.as_str() {
                    Some(text) if e.open || e.values.iter().any(|v| v.wire == text) => {}
                    Some(text) => self.problem(
                        at,
                        format!("{text:?} is not a value of the closed {}", e.name),
                    ),
                    None => self.problem(at, format!("{value} is not a {} (a string)", e.name)),
                }
            }
            TypeRef::Scalar(_) | TypeRef::List(_) => {
                let allowed: Vec<JsonKind> = encodings
                    .iter()
                    .flat_map(|e| e.info().json.kinds())
                    .copied()
                    .collect();
                if !allowed.contains(&kind) {
                    let declared: Vec<&str> = encodings.iter().map(|e| e.spec_name()).collect();
                    self.problem(
                        at,
                        format!(
                            "{value} is a JSON {kind:?}; the spec declares {} ({allowed:?})",
                            declared.join(" or ")
                        ),
                    );
                    return;
                }
                if let TypeRef::List(element) = ty {
                    self.elements(element, value, at);
                }
            }
        }
    }

    /// A list's elements: records and enums as themselves, scalars in any encoding of their
    /// type (the spec declares the list's encoding, not its elements').
    fn elements(&mut self, element: &TypeRef, list: &Value, at: &str) {
        let items: Vec<(String, &Value)> = match list {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            Value::Object(items) => items.iter().map(|(k, v)| (k.clone(), v)).collect(),
            _ => return,
        };
        let encodings: Vec<Encoding> = match element.kind() {
            Some(kind @ Kind::Scalar(_)) => Encoding::allowed_for(kind).collect(),
            Some(Kind::List) | None => Vec::new(),
        };
        for (key, item) in items {
            self.value(element, &encodings, item, &format!("{at}.{key}"));
        }
    }
}

fn json_kind(value: &Value) -> JsonKind {
    match value {
        Value::Null => JsonKind::Null,
        Value::Bool(_) => JsonKind::Boolean,
        Value::Number(_) => JsonKind::Number,
        Value::String(_) => JsonKind::String,
        Value::Array(_) => JsonKind::Array,
        Value::Object(_) => JsonKind::Object,
    }
}

/// The seeds the variation tests try.
const SEEDS: std::ops::Range<u64> = 0..24;

/// The answers of [`CALLS`] spelled with `seed`.
fn varied_answers(world: &World, seed: u64) -> Vec<(&'static str, String)> {
    CALLS
        .iter()
        .map(|(caller, method, query)| {
            let query: Vec<(String, String)> = query
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            let reply = respond(world, *caller, method, &query, now());
            let text = spelling::write(method, &query, &reply.body, Spellings::Varied { seed });
            (*method, text)
        })
        .collect()
}

#[test]
fn varied_spellings_stay_within_the_declared_encodings_and_keep_every_value() {
    let api = spec();
    let world = World::seeded();
    let mut problems = Vec::new();
    for seed in SEEDS {
        for ((caller, method_name, query), (_, text)) in
            CALLS.iter().zip(varied_answers(&world, seed))
        {
            let method = api.methods.iter().find(|m| m.name == *method_name).unwrap();
            let varied: Value = serde_json::from_str(&text).unwrap();
            let mut check = Check {
                api: &api,
                method,
                problems: &mut problems,
                fields: 0,
            };
            check.record(
                api.record(&method.response),
                &varied["data"],
                &format!("seed {seed}: data"),
            );
            // Only spellings change: every value reads back as the fixed answer's.
            let query: Vec<(String, String)> = query
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            let fixed = respond(&world, *caller, method_name, &query, now()).body;
            assert_eq!(
                same_values(&varied),
                same_values(&fixed),
                "seed {seed}: {method_name} {query:?} changed a value, not only its spelling"
            );
        }
    }
    assert!(
        problems.is_empty(),
        "{} places where a varied spelling is not one the spec declares:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A JSON value with every number written as a string, so that `14` and `"14"` compare equal
/// and nothing else does.
fn same_values(value: &Value) -> Value {
    match value {
        Value::Number(number) => Value::String(number.to_string()),
        Value::Array(items) => Value::Array(items.iter().map(same_values).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(k, v)| (k.clone(), same_values(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// For each field of each method (items of a list as `*`), the encoding the spec declares and
/// what the varied answers showed of it.
#[derive(Debug, Default)]
struct Reached {
    encoding: Option<Encoding>,
    kinds: BTreeSet<&'static str>,
    /// A value that can be written as a JSON number was seen (a number, or a string whose
    /// text is a JSON number's): only such a field can reach both spellings of
    /// `string_or_number`.
    numeric: bool,
    /// An index-keyed object of two items or more was seen.
    several: bool,
    /// ... with its keys out of index order.
    shuffled: bool,
}

#[test]
fn variation_reaches_every_declared_spelling_of_every_field() {
    let api = spec();
    let world = World::seeded();
    let mut reached: std::collections::BTreeMap<(String, String), Reached> = Default::default();
    for seed in SEEDS {
        for (method_name, text) in varied_answers(&world, seed) {
            let method = api.methods.iter().find(|m| m.name == method_name).unwrap();
            let answer: Ordered = serde_json::from_str(&text).unwrap();
            let Ordered::Object(envelope) = answer else {
                panic!("{method_name}: not an object");
            };
            let data = &envelope.iter().find(|(k, _)| k == "data").unwrap().1;
            let mut walk = Reach {
                api: &api,
                method: method_name,
                reached: &mut reached,
            };
            walk.record(api.record(&method.response), data, "data");
        }
    }
    // Counted against the encoding table: each declared encoding's JSON forms, and for an
    // index-keyed object, its keys in another order than 0, 1, 2, ...
    let mut missing = Vec::new();
    let mut counted = std::collections::BTreeMap::<&str, usize>::new();
    for ((method, path), seen) in &reached {
        let Some(encoding) = seen.encoding else {
            continue;
        };
        if seen.kinds.is_empty() {
            continue; // only ever null: no value to spell
        }
        *counted.entry(encoding.spec_name()).or_default() += 1;
        for kind in encoding.info().json.kinds() {
            let admitted = seen.kinds.contains(kind_name(*kind))
                || (*kind == JsonKind::Number && seen.numeric)
                || (*kind == JsonKind::String && seen.kinds.contains("number"));
            if admitted && !seen.kinds.contains(kind_name(*kind)) {
                missing.push(format!(
                    "{method} {path}: declared {encoding} ({}), never sent as {} over seeds {SEEDS:?}",
                    encoding.describe(),
                    kind.words()
                ));
            }
        }
        if encoding == Encoding::INDEX_OBJECT && seen.several && !seen.shuffled {
            missing.push(format!(
                "{method} {path}: declared index_object, its keys never came out of order"
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "{} declared spellings never reached:\n{}",
        missing.len(),
        missing.join("\n")
    );
    // Not vacuous: the encodings that have more than one spelling were met.
    for name in ["string_or_number", "index_object"] {
        assert!(
            counted.get(name).copied().unwrap_or(0) > 2,
            "{name}: {counted:?}"
        );
    }
}

/// The walk of one varied answer beside the spec.
struct Reach<'a> {
    api: &'a Api,
    method: &'a str,
    reached: &'a mut std::collections::BTreeMap<(String, String), Reached>,
}

impl Reach<'_> {
    fn record(&mut self, record: &Record, json: &Ordered, at: &str) {
        let Ordered::Object(entries) = json else {
            return;
        };
        if record.opaque {
            return;
        }
        for (key, value) in entries {
            let Some(field) = record
                .fields
                .iter()
                .find(|f| f.wire_name == *key || f.documented_as.as_deref() == Some(key.as_str()))
            else {
                continue;
            };
            let encoding = field.encoding.in_method(self.method).first().copied();
            self.value(
                &field.ty,
                encoding,
                value,
                &format!("{at}.{}", field.wire_name),
            );
        }
    }

    fn value(&mut self, ty: &TypeRef, encoding: Option<Encoding>, json: &Ordered, at: &str) {
        if let TypeRef::Record(id) = ty {
            return self.record(self.api.record(id), json, at);
        }
        let seen = self
            .reached
            .entry((self.method.to_owned(), at.to_owned()))
            .or_default();
        seen.encoding = encoding;
        match json {
            Ordered::Scalar(JsonKind::Null, _) => {}
            Ordered::Scalar(kind, numeric) => {
                seen.kinds.insert(kind_name(*kind));
                seen.numeric |= numeric;
            }
            other => {
                seen.kinds.insert(other.kind());
            }
        }
        let TypeRef::List(element) = ty else {
            return;
        };
        let items: Vec<&Ordered> = match json {
            Ordered::Object(entries) => {
                if entries.len() > 1 {
                    seen.several = true;
                    let in_order = entries
                        .iter()
                        .enumerate()
                        .all(|(index, (key, _))| *key == index.to_string());
                    seen.shuffled |= !in_order;
                }
                entries.iter().map(|(_, item)| item).collect()
            }
            Ordered::Array(items) => items.iter().collect(),
            Ordered::Scalar(..) => Vec::new(),
        };
        for item in items {
            self.value(element, None, item, &format!("{at}.*"));
        }
    }
}

fn kind_name(kind: JsonKind) -> &'static str {
    match kind {
        JsonKind::Null => "null",
        JsonKind::Boolean => "boolean",
        JsonKind::Number => "number",
        JsonKind::String => "string",
        JsonKind::Array => "array",
        JsonKind::Object => "object",
    }
}

/// JSON read keeping each object's key order (serde_json's `Value` sorts keys).
enum Ordered {
    /// A scalar, and whether it can be written as a JSON number.
    Scalar(JsonKind, bool),
    Array(Vec<Ordered>),
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    fn kind(&self) -> &'static str {
        match self {
            Ordered::Scalar(kind, _) => kind_name(*kind),
            Ordered::Array(_) => "array",
            Ordered::Object(_) => "object",
        }
    }
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(JsonKind::Null, false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(JsonKind::Boolean, false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(JsonKind::Number, true))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(JsonKind::Number, true))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(JsonKind::Number, true))
            }
            fn visit_str<E>(self, text: &str) -> Result<Ordered, E> {
                // A string the service could have sent as a number: its text is one exactly.
                let numeric = text
                    .parse::<serde_json::Number>()
                    .is_ok_and(|number| number.to_string() == text);
                Ok(Ordered::Scalar(JsonKind::String, numeric))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered::Object(entries))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}
