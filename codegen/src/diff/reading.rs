//! What an old app reads from an answer of the new server, against what the server means: the
//! answer decoded by the old crate's model (every value at its Rust path, or where it is
//! refused) and by the new crate's (what the server means at each path), compared path by path
//! through the pairing of [`super::pairing::meant`]. A value that lands at another path, a
//! value lost (the old app reads `None` where the server sent one), a value read otherwise, or
//! a refusal is a misreading, and the answer is its witness.

use std::collections::{HashMap, HashSet};

use super::decode::{self, Read, Refusal, Value};
use super::json::{self, Json};
use super::pairing;
use crate::ir::{Find, Record, TypeRef};

/// One misreading of an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misreading {
    /// The record of the old crate where it happens (the deepest), and its field.
    pub at: (String, String),
    /// The Rust path from the decoded record: `TimesheetList.timesheets.0.hours`.
    pub path: String,
    /// Whether it comes from the keys, not the values: the old field reads a key the new
    /// server sends for another field, or does not read the key the server sends its value
    /// under, or reads two keys at once, or its field is gone.
    pub by_key: bool,
    /// For a value read from another field's key: that field of the new spec (record and
    /// field, by their Rust names).
    pub source: Option<(String, String)>,
    /// What happens, in a sentence.
    pub finding: String,
}

/// Every misreading of `json`, an object the server of `head` sends for `head_record`, by the
/// decoder of `base_record` in the crate of `base`: at most one when the old decoder refuses
/// it (serde stops at the first error), else one per field read otherwise. Nothing when the
/// new crate's own decoders refuse it (the server means nothing by it).
pub fn misreadings(
    base: &dyn Find,
    base_record: &Record,
    head: &dyn Find,
    head_record: &Record,
    json: &Json,
) -> Vec<Misreading> {
    let Ok(meant) = decode::meant(head, head_record, json) else {
        return Vec::new();
    };
    match decode::record(base, base_record, json) {
        Err(refusal) => vec![refused(base, base_record, head_record, json, &refusal)],
        Ok(read) => compared(base, base_record, &read, head, head_record, &meant, json),
    }
}

/// The misreading of a refusal, located at the deepest record it names.
fn refused(
    base: &dyn Find,
    base_record: &Record,
    head_record: &Record,
    json: &Json,
    refusal: &Refusal,
) -> Misreading {
    let meant = pairing::meant(base_record, head_record);
    let at_top = refusal.path.len() <= 1;
    let by_key = match refusal
        .path
        .first()
        .and_then(|f| base_record.fields.iter().position(|x| x.rust_name == *f))
    {
        Some(index) => {
            let counterpart = meant[index];
            let duplicate = refusal.reason.starts_with("duplicate field");
            // The head field that sent the key the old field stopped at.
            let sender = refusal
                .key
                .as_deref()
                .and_then(|key| head_record.fields.iter().find(|f| f.wire_name == key));
            let foreign =
                sender.is_some_and(|s| counterpart.is_none_or(|c| c.wire_name != s.wire_name));
            let unread = at_top
                && refusal.key.is_none()
                && counterpart.is_none_or(|c| sent_under(json, &c.wire_name));
            duplicate || foreign || unread
        }
        None => false,
    };
    // A misreading by key is the top field's (where the key is read); one by value, the
    // deepest field's.
    let (record, field) = if by_key {
        (
            base_record.name.clone(),
            refusal.path.first().cloned().unwrap_or_default(),
        )
    } else {
        locate(base, base_record, &refusal.path)
    };
    let source = refusal.key.as_deref().and_then(|key| {
        head_record
            .fields
            .iter()
            .find(|f| f.wire_name == key)
            .map(|f| (head_record.name.clone(), f.rust_name.clone()))
    });
    let path = join(&base_record.name, &refusal.path);
    Misreading {
        at: (record, field),
        path: path.clone(),
        by_key,
        source: source.filter(|_| by_key),
        finding: format!("old decoders refuse it at `{path}`: {}", refusal.reason),
    }
}

/// A record's fields by wire name (the first of each).
fn by_wire(record: &Record) -> HashMap<&str, &crate::ir::Field> {
    let mut fields = HashMap::with_capacity(record.fields.len());
    for field in &record.fields {
        fields.entry(field.wire_name.as_str()).or_insert(field);
    }
    fields
}

/// Whether `json` sends a value under `key`.
fn sent_under(json: &Json, key: &str) -> bool {
    matches!(json, Json::Object(entries) if entries.iter().any(|(k, v)| k == key && *v != Json::Absent))
}

/// The record and field (Rust names) a Rust path below `record` ends in.
fn locate(base: &dyn Find, record: &Record, path: &[String]) -> (String, String) {
    let mut record = record;
    let mut at = (
        record.name.clone(),
        path.first().cloned().unwrap_or_default(),
    );
    let mut steps = path.iter();
    while let Some(step) = steps.next() {
        let Some(field) = record.fields.iter().find(|f| f.rust_name == *step) else {
            break;
        };
        at = (record.name.clone(), field.rust_name.clone());
        let mut ty = &field.ty;
        if let TypeRef::List(element) = ty {
            ty = element;
            // The element's index.
            steps.next();
        }
        match ty {
            TypeRef::Record(name) => match base.record_named(name.as_str()) {
                Some(inner) => record = inner,
                None => break,
            },
            _ => break,
        }
    }
    at
}

fn join(record: &str, path: &[String]) -> String {
    std::iter::once(record)
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(".")
}

/// The fields of an old reading against the new meaning.
fn compared(
    base: &dyn Find,
    base_record: &Record,
    read: &Read,
    head: &dyn Find,
    head_record: &Record,
    meant: &Read,
    json: &Json,
) -> Vec<Misreading> {
    let indices = pairing::meant_indices(base_record, head_record);
    let counterparts: Vec<Option<&crate::ir::Field>> = indices
        .iter()
        .map(|at| at.and_then(|at| head_record.fields.get(at)))
        .collect();
    let senders = by_wire(head_record);
    let sent: HashSet<&str> = match json {
        Json::Object(entries) => entries
            .iter()
            .filter(|(_, v)| *v != Json::Absent)
            .map(|(k, _)| k.as_str())
            .collect(),
        _ => HashSet::new(),
    };
    let mut found = Vec::new();
    for (index, (old, counterpart)) in base_record.fields.iter().zip(&counterparts).enumerate() {
        let got = &read.fields[index].1;
        let (meant_value, new_ty) = match (counterpart, indices[index]) {
            (Some(new), Some(at)) => (&meant.fields[at].1, Some(&new.ty)),
            _ => (&Value::None, None),
        };
        let difference = match new_ty {
            Some(new_ty) => differs(base, &old.ty, got, head, new_ty, meant_value),
            None if *got == Value::None => None,
            None => Some(Vec::new()),
        };
        let Some(below) = difference else {
            continue;
        };
        let key = read.keys[index].as_deref();
        let sender = key.and_then(|key| senders.get(key).copied());
        let foreign = sender.filter(|s| counterpart.is_none_or(|c| !std::ptr::eq(*s, c)));
        let unread = key.is_none()
            && meant_value != &Value::None
            && counterpart.is_some_and(|c| sent.contains(c.wire_name.as_str()));
        let field_path = join(&base_record.name, std::slice::from_ref(&old.rust_name));
        let mut full = vec![old.rust_name.clone()];
        let (finding, source, by_key) = if let Some(sender) = foreign {
            let instead = match counterpart {
                Some(_) if *meant_value != Value::None => {
                    format!(", not the {} it means there", meant_value.words())
                }
                _ => String::new(),
            };
            (
                format!(
                    "an old app reading `{field_path}` gets {}, the value the new server sends \
                     as `{}.{}`{instead}",
                    got.words(),
                    head_record.name,
                    sender.rust_name,
                ),
                Some((head_record.name.clone(), sender.rust_name.clone())),
                true,
            )
        } else if unread || counterpart.is_none() {
            let under = counterpart.map_or(String::new(), |c| {
                format!(
                    ": the new server sends its {} under \"{}\", which the old decoders do not \
                     read there",
                    meant_value.words(),
                    c.wire_name
                )
            });
            (
                format!(
                    "an old app reading `{field_path}` gets {}{under}",
                    got.words()
                ),
                None,
                true,
            )
        } else {
            full.extend(below);
            let path = join(&base_record.name, &full);
            (
                format!(
                    "an old app reading `{path}` gets {} where the new server means {}",
                    leaf(got, &full[1..]).words(),
                    leaf(meant_value, &full[1..]).words()
                ),
                None,
                false,
            )
        };
        found.push(Misreading {
            at: locate(base, base_record, &full),
            path: join(&base_record.name, &full),
            by_key,
            source,
            finding,
        });
    }
    found
}

/// The value below `path` (field names and list indices) of a decoded value.
fn leaf<'v>(value: &'v Value, path: &[String]) -> &'v Value {
    let Some((step, rest)) = path.split_first() else {
        return value;
    };
    match value {
        Value::Record(fields) => fields
            .iter()
            .find(|(name, _)| name == step)
            .map_or(value, |(_, v)| leaf(v, rest)),
        Value::List(items) => step
            .parse::<usize>()
            .ok()
            .and_then(|i| items.get(i))
            .map_or(value, |v| leaf(v, rest)),
        _ => value,
    }
}

/// Where an old value (`got`, of the old type `old_ty`) differs from what the server means
/// (`meant`, of the new type `new_ty`): `None` when they are the same value, else the path
/// below them (field names, list indices) of the first difference.
pub fn differs(
    base: &dyn Find,
    old_ty: &TypeRef,
    got: &Value,
    head: &dyn Find,
    new_ty: &TypeRef,
    meant: &Value,
) -> Option<Vec<String>> {
    if same_scalar(got, meant) {
        return None;
    }
    let element = |ty: &TypeRef| match ty {
        TypeRef::List(element) => (**element).clone(),
        other => other.clone(),
    };
    match (got, meant) {
        (Value::List(a), Value::List(b)) => {
            if a.len() != b.len() {
                return Some(Vec::new());
            }
            let (old_element, new_element) = (element(old_ty), element(new_ty));
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
                differs(base, &old_element, x, head, &new_element, y).map(|mut below| {
                    below.insert(0, i.to_string());
                    below
                })
            })
        }
        (Value::Record(a), Value::Record(b)) => {
            let (TypeRef::Record(old_name), TypeRef::Record(new_name)) =
                (element(old_ty), element(new_ty))
            else {
                return (a != b).then(Vec::new);
            };
            let (Some(old), Some(new)) = (
                base.record_named(old_name.as_str()),
                head.record_named(new_name.as_str()),
            ) else {
                return Some(Vec::new());
            };
            let counterparts = pairing::meant_indices(old, new);
            for ((field, (name, value)), counterpart) in old.fields.iter().zip(a).zip(&counterparts)
            {
                let counterpart =
                    counterpart.and_then(|at| Some((new.fields.get(at)?, b.get(at)?)));
                let difference = match counterpart {
                    Some((c, (_, meant))) => differs(base, &field.ty, value, head, &c.ty, meant),
                    None if *value == Value::None => None,
                    None => Some(Vec::new()),
                };
                if let Some(mut below) = difference {
                    below.insert(0, name.clone());
                    return Some(below);
                }
            }
            None
        }
        (
            Value::Variant { variant, wire },
            Value::Variant {
                variant: new_variant,
                wire: new_wire,
            },
        ) => {
            let (TypeRef::Enum(old_name), TypeRef::Enum(new_name)) =
                (element(old_ty), element(new_ty))
            else {
                return (got != meant).then(Vec::new);
            };
            let old_enum = base.enum_named(old_name.as_str());
            let new_enum = head.enum_named(new_name.as_str());
            // What the old crate should give for the value the server means: the variant of
            // that name, else the variant of that spelling, else `Other`.
            let expected = match (new_variant, old_enum) {
                (Some(name), Some(e)) if e.values.iter().any(|v| v.variant == *name) => {
                    Some(name.clone())
                }
                (_, Some(e)) => e
                    .values
                    .iter()
                    .find(|v| v.wire == *new_wire)
                    .filter(|v| {
                        // A spelling kept by another variant of the new enum is that variant's.
                        new_enum.is_none_or(|n| {
                            !n.values
                                .iter()
                                .any(|nv| nv.variant == v.variant && nv.wire != v.wire)
                        })
                    })
                    .map(|v| v.variant.clone()),
                (_, None) => None,
            };
            (*variant != expected || (expected.is_none() && wire != new_wire)).then(Vec::new)
        }
        (Value::Object(_), _) => None,
        _ => Some(Vec::new()),
    }
}

/// Whether two scalar values (or two absences) are the same value, whatever the type each
/// side holds it in: a number read as text is the number, a day's text is the day, `None` is
/// the zero or the empty list that means it.
fn same_scalar(a: &Value, b: &Value) -> bool {
    let number = |text: &str| json::number(&Json::Str(text.to_owned())).map(|n| n.canonical);
    let none_like = |v: &Value| match v {
        Value::None => true,
        Value::Number(n) | Value::Instant(n) => n == "0",
        Value::List(items) => items.is_empty(),
        _ => false,
    };
    match (a, b) {
        (Value::None, other) | (other, Value::None) => none_like(other),
        (Value::Text(x), Value::Number(y) | Value::Instant(y))
        | (Value::Number(y) | Value::Instant(y), Value::Text(x)) => number(x).as_deref() == Some(y),
        (Value::Number(x) | Value::Instant(x), Value::Number(y) | Value::Instant(y)) => x == y,
        (Value::Text(x), Value::Day(y)) | (Value::Day(y), Value::Text(x)) => {
            json::day(x).as_deref() == Some(y)
        }
        (Value::Text(x), Value::Variant { wire, .. })
        | (Value::Variant { wire, .. }, Value::Text(x)) => x == wire,
        (Value::Text(x), Value::Text(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Day(x), Value::Day(y)) => x == y,
        _ => false,
    }
}
