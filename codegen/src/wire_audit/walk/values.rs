//! Each value of an answer against what the spec says of its place: the object of a record,
//! a field's presence and nullability, an enum's values, a scalar's spellings (the encoding
//! table's, through [`encodings_of`]) and whether its type can hold it ([`scalar_fits`]).

use std::collections::HashMap;

use super::evidence::{Subject, note_kind, per_method};
use super::{Place, Walker};
use crate::diff::wire::{Json, encodings_of, scalar_fits};
use crate::ir::{Encoding, Field, Kind, Record, Scalar, TypeRef};
use crate::wire_audit::{FindingKind, example, json_words};

impl Walker<'_> {
    /// A value where the spec says `place.record`'s object is (`place` has no field).
    pub(super) fn record(&mut self, place: Place<'_>, json: &Json) {
        let record = place.record;
        let Json::Object(entries) = json else {
            let message = format!(
                "{} is sent as {}, not an object",
                record.name,
                json_words(json)
            );
            self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
            return;
        };
        if record.opaque {
            return;
        }
        *self.objects.entry(record.name.clone()).or_default() += 1;
        // Each declared key's first value and its place: one pass over the object.
        let mut values: HashMap<&str, (usize, &Json)> = HashMap::with_capacity(entries.len());
        for (place_in_object, (key, value)) in entries.iter().enumerate() {
            let declared = self
                .index
                .fields
                .get(record.name.as_str())
                .is_some_and(|fields| fields.contains_key(key.as_str()));
            if declared {
                values
                    .entry(key.as_str())
                    .or_insert((place_in_object, value));
            } else {
                let path = format!("{}.{key}", place.path);
                self.unknown_key(
                    Place {
                        path: &path,
                        ..place
                    },
                    key,
                    value,
                );
            }
        }
        for field in &record.fields {
            // The first of its wire name and its documented name in the object.
            let wire = values.get(field.wire_name.as_str()).copied();
            let documented = field
                .documented_as
                .as_deref()
                .and_then(|name| values.get(name).copied());
            let value = match (wire, documented) {
                (Some(a), Some(b)) => Some(if a.0 <= b.0 { a.1 } else { b.1 }),
                (one, other) => one.or(other).map(|(_, value)| value),
            };
            self.field(place, field, value);
        }
    }

    /// A key of `place.record`'s object that the record does not declare (`place.path` is
    /// the key's).
    fn unknown_key(&mut self, place: Place<'_>, key: &str, value: &Json) {
        let record = place.record;
        let unknown = self
            .unknown
            .entry((record.name.clone(), key.to_owned()))
            .or_default();
        unknown.seen += 1;
        unknown.methods.insert(place.answer.method.to_owned());
        note_kind(unknown, value);
        let message = format!("{key} is not a field of {}", record.name);
        let subject = Subject::Record {
            record: record.name.clone(),
            key: key.to_owned(),
        };
        let tally_key = place.key(FindingKind::UnknownField, subject);
        self.tally(tally_key, Some(value), place.answer.source, message);
    }

    /// `field` of the object at `object` (its place without a field), with its value if the
    /// object has one.
    fn field(&mut self, object: Place<'_>, field: &Field, value: Option<&Json>) {
        let method = object.answer.method;
        let (must, may) = self.index.presence(field, method);
        let seen = self
            .seen
            .entry(per_method(object.record, field, method))
            .or_default();
        seen.objects += 1;
        seen.path = object.path.to_owned();
        let path = format!("{}.{}", object.path, field.wire_name);
        let place = Place {
            field: Some(field),
            path: &path,
            ..object
        };
        let source = place.answer.source;
        let Some(value) = value else {
            if must {
                seen.missing_at.get_or_insert_with(|| source.to_owned());
                let message = format!("the spec says {method} always sends it; it is missing");
                let key = place.key(FindingKind::MissingField, place.subject());
                self.tally(key, None, source, message);
            }
            return;
        };
        seen.present += 1;
        if !may {
            let message = format!("the spec says {method} does not send {}", field.wire_name);
            let key = place.key(FindingKind::UnknownField, place.subject());
            self.tally(key, Some(value), source, message);
            return;
        }
        if *value == Json::Null {
            if !field.nullable {
                let message = "null, and the spec does not say nullable".to_owned();
                self.value_problem(place, FindingKind::UnexpectedNull, value, message);
            }
            return;
        }
        let encodings = self.index.encodings_in(field, method);
        self.value(place, &field.ty, &encodings, value);
    }

    /// A problem of the value `json` at `place`, about its field (its record when it has none).
    fn value_problem(&mut self, place: Place<'_>, kind: FindingKind, json: &Json, message: String) {
        let key = place.key(kind, place.subject());
        self.tally(key, Some(json), place.answer.source, message);
    }

    /// A value of type `ty` at `place` (no field: a list element), declared in `encodings`.
    fn value(&mut self, place: Place<'_>, ty: &TypeRef, encodings: &[Encoding], json: &Json) {
        let api = self.api;
        match ty {
            TypeRef::Record(id) => {
                if let Some(record) = self.index.records.get(id.as_str()).copied() {
                    let object = Place {
                        record,
                        field: None,
                        ..place
                    };
                    self.record(object, json);
                }
            }
            TypeRef::Enum(id) => {
                let Some((e, values)) = self.index.enums.get(id.as_str()) else {
                    return;
                };
                let known = matches!(json, Json::Str(text) if values.contains(text.as_str()));
                let e = *e;
                match json {
                    Json::Str(text) if text.is_empty() => {
                        let message = format!("an empty string, which is no value of {}", e.name);
                        self.value_problem(place, FindingKind::UnexpectedEmpty, json, message);
                    }
                    Json::Str(_) if known => {}
                    Json::Str(text) => {
                        let how = if e.open {
                            "the client keeps it as Other"
                        } else {
                            "the enum is closed: the client refuses it"
                        };
                        let message = format!("{text:?} is not a value of {} ({how})", e.name);
                        let subject = Subject::EnumValue {
                            enumeration: e.name.clone(),
                            value: text.clone(),
                        };
                        let key = place.key(FindingKind::UnlistedEnumValue, subject);
                        self.tally(key, Some(json), place.answer.source, message);
                    }
                    other => {
                        let message = format!("{} where {} is a string", json_words(other), e.name);
                        self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
                    }
                }
            }
            TypeRef::Scalar(scalar) => {
                if *scalar != Scalar::String && *json == Json::Str(String::new()) {
                    let message = format!("an empty string, which no {} is", scalar.spec_name());
                    self.value_problem(place, FindingKind::UnexpectedEmpty, json, message);
                    return;
                }
                self.spelling(place, Kind::Scalar(*scalar), encodings, json);
                if !scalar_fits(api, *scalar, json) {
                    if let Some(field) = place.field {
                        let misfit = self
                            .misfits
                            .entry((place.record.name.clone(), field.wire_name.clone()))
                            .or_default();
                        misfit.0 = true;
                    }
                    let message = format!(
                        "{} {} is no {}: the client refuses it",
                        json_words(json),
                        example(json),
                        scalar.spec_name()
                    );
                    self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
                }
                if let (Some(field), Json::Number(_)) = (place.field, json) {
                    self.misfits
                        .entry((place.record.name.clone(), field.wire_name.clone()))
                        .or_default()
                        .1 = true;
                }
            }
            TypeRef::List(element) => {
                self.spelling(place, Kind::List, encodings, json);
                let Some(items) = json.collection_items() else {
                    return;
                };
                let element_encodings: Vec<Encoding> = match element.kind() {
                    Some(kind @ Kind::Scalar(_)) => Encoding::allowed_for(kind).collect(),
                    _ => Vec::new(),
                };
                let item_path = format!("{}.*", place.path);
                let item_place = Place {
                    path: &item_path,
                    ..place
                };
                for (_, item) in items {
                    if *item == Json::Null {
                        let message = "a null item".to_owned();
                        self.value_problem(item_place, FindingKind::UnexpectedNull, item, message);
                        continue;
                    }
                    let element_place = Place {
                        field: None,
                        ..item_place
                    };
                    self.value(element_place, element, &element_encodings, item);
                }
            }
        }
    }

    /// Checks the spelling of a field's value against its declared encodings and keeps which
    /// encodings it matched, for the proposal.
    fn spelling(&mut self, place: Place<'_>, kind: Kind, declared: &[Encoding], json: &Json) {
        let method = place.answer.method;
        let matched = encodings_of(kind, json);
        if matched.iter().any(|e| declared.contains(e)) {
            if let Some(field) = place.field {
                self.keep_spelling(place.record, field, method, matched);
            }
            return;
        }
        let Some(field) = place.field else {
            // A list element in no encoding of its type: the value check says why.
            return;
        };
        self.keep_spelling(place.record, field, method, matched.clone());
        let names: Vec<&str> = declared.iter().map(|e| e.spec_name()).collect();
        let spelled: Vec<&str> = matched.iter().map(|e| e.spec_name()).collect();
        let message = format!(
            "{} where the spec declares {} for {}{}",
            json_words(json),
            names.join(" or "),
            method,
            if spelled.is_empty() {
                String::new()
            } else {
                format!(" (it is {})", spelled.join(" or "))
            }
        );
        self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
    }

    fn keep_spelling(
        &mut self,
        record: &Record,
        field: &Field,
        method: &str,
        matched: Vec<Encoding>,
    ) {
        let sets = self
            .spellings
            .entry(per_method(record, field, method))
            .or_default();
        if !sets.contains(&matched) {
            sets.push(matched);
        }
    }
}
