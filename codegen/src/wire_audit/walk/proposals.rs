//! What the evidence says the spec should say, per finding: a field's presence, encoding or
//! type, a new field, an enum value, an error code, a method's `delivered_api`.

use std::collections::{BTreeMap, BTreeSet};

use super::Walker;
use super::evidence::{Key, Subject};
use crate::ir::{Api, Encoding, Field, FieldEncoding, TypeRef};
use crate::wire_audit::{FindingKind, Proposal, ProposedValue};

impl<'a> Walker<'a> {
    /// What the spec should say, where the evidence tells.
    pub(super) fn proposal(&self, key: &Key) -> Option<Proposal> {
        let api = self.api;
        match (&key.kind, &key.subject) {
            (FindingKind::UnknownField, Subject::Record { record, key: name }) => {
                self.new_field(record, name)
            }
            (FindingKind::UnknownField, Subject::Field { record, field }) => {
                // Sent where the spec says it is absent: it may be absent, no more.
                let keep = self.absent_everywhere(record, field);
                let (set, remove) = presence_proposal(api, record, &keep);
                Some(Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set,
                    remove,
                })
            }
            (FindingKind::MissingField, Subject::Field { record, field }) => {
                let absent = self.absent_everywhere(record, field);
                let (set, remove) = presence_proposal(api, record, &absent);
                Some(Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set,
                    remove,
                })
            }
            (FindingKind::UndeclaredEncoding, Subject::Field { record, field }) => {
                self.encoding_proposal(record, field)
            }
            (FindingKind::UnexpectedNull, Subject::Field { record, field }) => {
                let f = self.field_of(record, field)?;
                // A null list item is no field's null.
                (!key.path.ends_with(".*") && !f.nullable).then(|| Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set: vec![("nullable".into(), ProposedValue::True)],
                    remove: Vec::new(),
                })
            }
            (FindingKind::UnexpectedEmpty, Subject::Field { record, field }) => {
                let f = self.field_of(record, field)?;
                matches!(f.ty, TypeRef::Scalar(_)).then(|| self.as_text(record, field))
            }
            (FindingKind::UnlistedEnumValue, Subject::EnumValue { enumeration, value }) => {
                Some(Proposal::AddEnumValue {
                    enumeration: enumeration.clone(),
                    value: value.clone(),
                })
            }
            (FindingKind::UndeclaredError, Subject::Error { method, code }) => {
                Some(Proposal::AddMethodError {
                    method: method.clone(),
                    code: code.clone(),
                    declare: !self.index.errors.contains(code.as_str()),
                })
            }
            (FindingKind::EnvelopeMismatch, Subject::Method { method }) if key.path == "api" => {
                let tally = self.tallies.get(key)?;
                let sent = tally.example.as_deref()?;
                let name: String = serde_json::from_str(sent).ok()?;
                Some(Proposal::SetMethodKey {
                    method: method.clone(),
                    key: "delivered_api".into(),
                    value: name,
                })
            }
            _ => None,
        }
    }

    fn field_of(&self, record: &str, field: &str) -> Option<&'a Field> {
        // The map holds documented names too, but a wire name wins over them: the field under
        // `field` is the first of that wire name when there is one.
        let found = self.index.fields.get(record)?.get(field).copied()?;
        (found.wire_name == field).then_some(found)
    }
    /// The methods in whose every recorded answer the field was missing.
    fn absent_everywhere(&self, record: &str, field: &str) -> BTreeMap<String, (usize, usize)> {
        self.seen_of(record, field)
            .map(|(m, seen)| (m.clone(), (seen.present, seen.objects)))
            .collect()
    }

    /// The field as text: `type: string`, kept as its text when numbers came too.
    fn as_text(&self, record: &str, field: &str) -> Proposal {
        let numbers = self
            .misfits
            .get(&(record.to_owned(), field.to_owned()))
            .is_some_and(|(_, numbers)| *numbers);
        let encoding = if numbers {
            "string_or_number"
        } else {
            "string"
        };
        Proposal::EditField {
            record: record.to_owned(),
            field: field.to_owned(),
            set: vec![
                ("type".into(), ProposedValue::Text("string".into())),
                ("encoding".into(), ProposedValue::Text(encoding.into())),
            ],
            remove: vec!["zero_is_none".into(), "narrowed".into()],
        }
    }

    /// The encodings the evidence says the field has, per method that delivers it: the
    /// declared one where every value matched it, else the first encoding (table order) that
    /// every value of that method matched and that covers the declared spelling too, else the
    /// first every value matched, else the one most values matched. A type that cannot hold
    /// some value becomes text.
    fn encoding_proposal(&self, record: &str, field: &str) -> Option<Proposal> {
        let f = self.field_of(record, field)?;
        if self
            .misfits
            .get(&(record.to_owned(), field.to_owned()))
            .is_some_and(|(misfit, _)| *misfit)
        {
            return Some(self.as_text(record, field));
        }
        let kind = f.ty.kind()?;
        let r = self.index.records.get(record).copied()?;
        let methods: Vec<String> = match &f.encoding {
            FieldEncoding::PerMethod(per_method) => {
                per_method.iter().map(|(m, _)| m.to_string()).collect()
            }
            _ => r
                .delivered_by
                .iter()
                .map(|m| m.to_string())
                .filter(|m| self.index.presence(f, m).1)
                .collect(),
        };
        let mut proposed = Vec::new();
        for method in &methods {
            let declared = self.index.encodings_in(f, method);
            let sets = self
                .spellings
                .get(&(record.to_owned(), field.to_owned(), method.clone()))
                .cloned()
                .unwrap_or_default();
            let current = declared.first().copied();
            let fits_all = |e: &Encoding| sets.iter().all(|set| set.contains(e));
            let choice = if sets.is_empty() || current.is_some_and(|c| fits_all(&c)) {
                current
            } else {
                let declared_kinds: Vec<_> = declared
                    .iter()
                    .flat_map(|e| e.info().json.kinds())
                    .collect();
                let candidates: Vec<Encoding> =
                    Encoding::allowed_for(kind).filter(fits_all).collect();
                candidates
                    .iter()
                    .find(|e| {
                        declared_kinds
                            .iter()
                            .all(|k| e.info().json.kinds().contains(k))
                    })
                    .or(candidates.first())
                    .copied()
                    .or_else(|| {
                        Encoding::allowed_for(kind)
                            .max_by_key(|e| sets.iter().filter(|set| set.contains(e)).count())
                    })
            };
            proposed.push((method.clone(), choice?.spec_name().to_owned()));
        }
        let first = proposed.first()?.1.clone();
        let value = if proposed.iter().all(|(_, e)| *e == first) {
            ProposedValue::Text(first)
        } else {
            ProposedValue::PerMethod(proposed)
        };
        Some(Proposal::EditField {
            record: record.to_owned(),
            field: field.to_owned(),
            set: vec![("encoding".into(), value)],
            remove: Vec::new(),
        })
    }

    /// A new field from what its values were: its type, encoding, presence and nullability.
    fn new_field(&self, record: &str, key: &str) -> Option<Proposal> {
        let unknown = self.unknown.get(&(record.to_owned(), key.to_owned()))?;
        let scalar = |kinds: &BTreeSet<&'static str>,
                      fraction: bool|
         -> Option<(String, Option<String>)> {
            match kinds.iter().copied().collect::<Vec<_>>().as_slice() {
                [] | ["string"] => Some(("string".into(), None)),
                ["boolean"] => Some(("boolean".into(), None)),
                ["number"] if fraction => Some(("decimal".into(), None)),
                ["number"] => Some(("integer".into(), None)),
                ["number", "string"] => Some(("string".into(), Some("string_or_number".into()))),
                _ => None,
            }
        };
        let (ty, encoding) = match unknown.collection {
            Some(keyed) => {
                let (element, _) = scalar(&unknown.elements, unknown.fraction)?;
                let encoding = if keyed { "index_object" } else { "array" };
                (format!("list<{element}>"), Some(encoding.to_owned()))
            }
            None => scalar(&unknown.kinds, unknown.fraction)?,
        };
        let mut keys = vec![("type".to_owned(), ty)];
        if let Some(encoding) = encoding {
            keys.push(("encoding".to_owned(), encoding));
        }
        let objects = self.objects.get(record).copied().unwrap_or(0);
        let present = unknown.seen;
        if present < objects {
            keys.push((
                "optional".to_owned(),
                format!("Seen in {present} of {objects} recorded objects."),
            ));
        }
        if unknown.null {
            keys.push(("nullable".to_owned(), "true".to_owned()));
        }
        keys.push((
            "doc".to_owned(),
            "Not in the reference; seen in recorded traffic (cargo xtask wire-audit).".to_owned(),
        ));
        Some(Proposal::AddField {
            record: record.to_owned(),
            field: key.to_owned(),
            keys,
        })
    }
}

/// The presence the evidence says (`seen`: per method, answers with the field and answers
/// with the record): `absent_in` the methods that never sent it when the others always did,
/// else `optional`, saying how often it came; the keys it replaces removed.
fn presence_proposal(
    api: &Api,
    record: &str,
    seen: &BTreeMap<String, (usize, usize)>,
) -> (Vec<(String, ProposedValue)>, Vec<String>) {
    let every_key = ["optional", "only_in", "absent_in"];
    let never: Vec<String> = seen
        .iter()
        .filter(|(_, (present, _))| *present == 0)
        .map(|(m, _)| m.clone())
        .collect();
    let always = seen
        .iter()
        .all(|(_, (present, objects))| *present == 0 || present == objects);
    let delivering = api
        .records
        .iter()
        .find(|r| r.name == record)
        .map_or(0, |r| r.delivered_by.len());
    let remove = |keep: &str| {
        every_key
            .iter()
            .filter(|k| **k != keep)
            .map(|k| (*k).to_owned())
            .collect()
    };
    if always && !never.is_empty() && never.len() < delivering {
        return (
            vec![("absent_in".into(), ProposedValue::List(never))],
            remove("absent_in"),
        );
    }
    let (present, objects) = seen.values().fold((0, 0), |(p, o), (present, objects)| {
        (p + present, o + objects)
    });
    let sentence = format!("Sent in {present} of {objects} recorded answers.");
    (
        vec![("optional".into(), ProposedValue::Text(sentence))],
        remove("optional"),
    )
}
