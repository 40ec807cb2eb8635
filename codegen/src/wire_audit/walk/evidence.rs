//! What the walk keeps of what it saw: the tallies of findings by spec place and JSON path,
//! and per field and method what came, for the proposals.

use std::collections::BTreeSet;

use super::Walker;
use crate::diff::wire::Json;
use crate::ir::{Field, Record};
use crate::wire_audit::FindingKind;

/// What a finding is about in the spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Subject {
    /// A field of a record.
    Field { record: String, field: String },
    /// A record itself (a key it does not declare).
    Record { record: String, key: String },
    /// A value of an enum.
    EnumValue { enumeration: String, value: String },
    /// A method (its envelope, its error list).
    Method { method: String },
    /// An error code, for a method.
    Error { method: String, code: String },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
/// The tally a finding is counted in: its kind, what it is about, the method, the JSON path.
pub(super) struct Key {
    pub(super) kind: FindingKind,
    pub(super) subject: Subject,
    pub(super) method: String,
    pub(super) path: String,
}

#[derive(Clone, Debug)]
/// How often a finding was seen, with its first example, where, and its message.
pub(super) struct Tally {
    pub(super) count: usize,
    pub(super) example: Option<String>,
    pub(super) source: String,
    pub(super) message: String,
}

/// Where a field was expected and found, per method.
#[derive(Clone, Debug, Default)]
pub(super) struct Seen {
    /// Objects of the record in this method's answers.
    pub(super) objects: usize,
    /// Of them, those with the field.
    pub(super) present: usize,
    /// The JSON path of the record's objects.
    pub(super) path: String,
    /// A recording line of an object without the field.
    pub(super) missing_at: Option<String>,
}

/// A key the spec does not declare, over every object of its record.
#[derive(Clone, Debug, Default)]
pub(super) struct Unknown {
    /// Objects of the record that held the key.
    pub(super) seen: usize,
    pub(super) kinds: BTreeSet<&'static str>,
    pub(super) fraction: bool,
    pub(super) null: bool,
    pub(super) collection: Option<bool>,
    pub(super) elements: BTreeSet<&'static str>,
    pub(super) methods: BTreeSet<String>,
}

impl Walker<'_> {
    /// What was seen of a field, per method (a range of the map, not a scan of it).
    pub(super) fn seen_of<'s>(
        &'s self,
        record: &'s str,
        field: &'s str,
    ) -> impl Iterator<Item = (&'s String, &'s Seen)> + 's {
        let from = (record.to_owned(), field.to_owned(), String::new());
        self.seen
            .range(from..)
            .take_while(move |((r, f, _), _)| r == record && f == field)
            .map(|((_, _, m), seen)| (m, seen))
    }
}

/// The key of what is kept per field and method: record, field (wire name), method.
pub(super) fn per_method(record: &Record, field: &Field, method: &str) -> (String, String, String) {
    (
        record.name.clone(),
        field.wire_name.clone(),
        method.to_owned(),
    )
}

/// Notes the JSON kind of a value of an unknown key, for its proposed type.
pub(super) fn note_kind(unknown: &mut Unknown, value: &Json) {
    let scalar_kind = |json: &Json| match json {
        Json::Str(_) => Some("string"),
        Json::Number(_) => Some("number"),
        Json::Bool(_) => Some("boolean"),
        _ => None,
    };
    if let Json::Number(text) = value {
        unknown.fraction |= text.contains(['.', 'e', 'E']);
    }
    match value {
        Json::Null => unknown.null = true,
        Json::List { .. } | Json::Object(_) => match value.collection_items() {
            Some(items)
                if !matches!(value, Json::Object(entries) if entries.is_empty())
                    || unknown.collection.is_none() =>
            {
                unknown.collection = Some(matches!(value, Json::Object(_)));
                for (_, item) in items {
                    if let Json::Number(text) = item {
                        unknown.fraction |= text.contains(['.', 'e', 'E']);
                    }
                    match scalar_kind(item) {
                        Some(kind) => {
                            unknown.elements.insert(kind);
                        }
                        None => {
                            unknown.elements.insert("object");
                        }
                    }
                }
            }
            Some(_) => {}
            None => {
                unknown.kinds.insert("object");
            }
        },
        other => {
            if let Some(kind) = scalar_kind(other) {
                unknown.kinds.insert(kind);
            }
        }
    }
}
