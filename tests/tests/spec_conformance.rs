//! The fake marketplace is held to the spec (`spec/`, read with marketplace-codegen): it serves
//! exactly the spec's data methods, and every response it renders is what the spec declares
//! for that method: the envelope's `api` is the method's `delivered_api`; every key is a field
//! of the spec's record; a field the spec says is present is, one it says is absent is not;
//! and each value has the JSON kind its declared encoding gives for that method (the encoding
//! table's `JsonForm`), recursively through records and lists. A new endpoint in the spec fails
//! here until the fake serves it and a call below shows it.
//!
//! The fake is read through a small surface only: `fake::data::{served_methods, respond}` and
//! `fake::world::World::seeded`.

use std::collections::BTreeSet;
use std::path::Path;

use marketplace_codegen::ir::{
    Api, Encoding, Field, JsonKind, Kind, Method, Presence, Record, TypeRef,
};
use marketplace_tests::fake::data::{respond, served_methods};
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
        "the fake's data methods (fake::data::METHODS) and the spec's differ"
    );
    let called: BTreeSet<&str> = CALLS.iter().map(|(_, method, _)| *method).collect();
    assert_eq!(called, spec_methods, "a spec method without a call here");
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
