//! The witnesses of the response side: the JSON objects a server built to a spec may send for a
//! record in one method's answer, each scalar with a value no other scalar of the object has
//! (so a value read at another Rust path shows where it came from).
//!
//! An answer is a baseline (every field at its first value, in its first encoding) or the
//! baseline with one thing varied: each other declared spelling of a field for that method
//! (`string_or_number` both ways), `null` when nullable, `0` when `zero_is_none`, absent when
//! the field may be absent (or is absent in that method), every value of an enum and an
//! unlisted one for an open enum (the spec opens an enum because the service sends values it
//! does not list), a list in its other shape and empty; nested records and list elements
//! recursively. Values are concrete JSON, so the oracle test decodes the very answers the
//! simulation judged with the real crates.

use std::cell::Cell;

use super::json::Json;
use crate::ir::{
    Encoding, Field, FieldEncoding, Find, JsonForm, Kind, Presence, Record, Scalar, TypeRef,
};

/// One object a server may send, and which variation it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The varied value, e.g. `timesheets.0.rate = "12.50"`, or `baseline`.
    pub what: String,
    /// The object.
    pub json: Json,
}

/// What the model may build for the questions of one spec diff, and whether it ran out.
///
/// The model writes out each object a server may send, one variation at a time, so what it
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

/// Hands out the distinct values of one answer: the `n`-th scalar gets value `n`.
pub struct Values {
    next: Cell<u64>,
}

impl Values {
    /// Values from `first` on (answers built together start apart, so that their values
    /// differ too).
    pub fn from(first: u64) -> Values {
        Values {
            next: Cell::new(first.max(1)),
        }
    }

    fn take(&self) -> u64 {
        let n = self.next.get();
        self.next.set(n.saturating_add(1));
        n
    }
}

/// Every object the server of `api` may send for `record` in `method`'s answer: the baseline,
/// then one variation at a time; `None` when `budget` runs out.
pub fn answers(
    api: &dyn Find,
    record: &Record,
    method: &str,
    values: &Values,
    budget: &Budget,
) -> Option<Vec<Answer>> {
    let (baseline, variations) = record_values(api, record, method, 0, values, budget);
    if budget.spent() {
        return None;
    }
    let mut answers = vec![Answer {
        what: "baseline".to_owned(),
        json: baseline,
    }];
    answers.extend(
        variations
            .into_iter()
            .map(|(what, json)| Answer { what, json }),
    );
    Some(answers)
}

/// The baseline object of `record` in `method`'s answer (every field at its first value).
pub fn baseline(
    api: &dyn Find,
    record: &Record,
    method: &str,
    values: &Values,
    budget: &Budget,
) -> Json {
    let mut json = Vec::with_capacity(record.fields.len());
    if record.opaque {
        return opaque();
    }
    for field in &record.fields {
        let (first, _) = field_values(api, field, method, 0, values, budget);
        json.push((field.wire_name.clone(), first));
    }
    Json::Object(json)
}

/// The values the server of `api` may send for `field` in `method`'s answer: the first, then
/// each variation (named by its path below the field, if any).
pub fn field_sends(
    api: &dyn Find,
    field: &Field,
    method: &str,
    values: &Values,
    budget: &Budget,
) -> Option<Vec<(String, Json)>> {
    let (first, variations) = field_values(api, field, method, 0, values, budget);
    if budget.spent() {
        return None;
    }
    let mut sends = vec![(String::new(), first)];
    sends.extend(variations);
    Some(sends)
}

/// How deep records nest before the model stops (specs cannot nest records in a cycle, but the
/// model does not rely on it).
const MAX_DEPTH: usize = 8;

/// Whether `field` is sent in `method`'s answers.
pub fn delivered_in(field: &Field, method: &str) -> bool {
    match &field.presence {
        Presence::OnlyIn(methods) => methods.iter().any(|m| m == method),
        Presence::AbsentIn(methods) => !methods.iter().any(|m| m == method),
        Presence::Always | Presence::Optional(_) => true,
    }
}

/// A field's first value (the baseline) and its variations, each named by its path.
fn field_values(
    api: &dyn Find,
    field: &Field,
    method: &str,
    depth: usize,
    values: &Values,
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
    if !delivered_in(field, method) {
        return (Json::Absent, Vec::new());
    }
    let encodings = field.encoding.in_method(method);
    let (baseline, mut variations) = match &field.ty {
        TypeRef::List(element) => {
            let (first, element_variations) =
                element_values(api, element, method, depth, values, budget);
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
            let mut sent = encodings
                .iter()
                .flat_map(|encoding| scalar_values(*scalar, *encoding, values))
                .map(|json| (String::new(), json));
            let first = sent.next().map_or(Json::Null, |(_, json)| json);
            (first, sent.collect())
        }
        ty => element_values(api, ty, method, depth, values, budget),
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
    method: &str,
    depth: usize,
    values: &Values,
    budget: &Budget,
) -> (Json, Vec<(String, Json)>) {
    match ty {
        TypeRef::Record(name) => match api.record_named(name.as_str()) {
            Some(r) if depth < MAX_DEPTH => {
                record_values(api, r, method, depth + 1, values, budget)
            }
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
            // The values in turn, from one that depends on the answer's count: two fields of
            // one enum start at different values where the enum has more than one.
            let mut sent: Vec<Json> = e.values.iter().map(|v| Json::Str(v.wire.clone())).collect();
            if !sent.is_empty() {
                let start = usize::try_from(values.take()).unwrap_or(0) % sent.len();
                sent.rotate_left(start);
            }
            if e.open {
                // Only an open enum's server sends values the spec does not list.
                sent.push(Json::Str(format!("Unlisted{}{}", e.name, values.take())));
            }
            let mut sent = sent.into_iter();
            let first = sent.next().unwrap_or(Json::Null);
            (first, sent.map(|j| (String::new(), j)).collect())
        }
        // List elements are sent in their type's default encoding; a type without one (dates)
        // in each of its encodings.
        TypeRef::Scalar(scalar) => {
            let kind = Kind::Scalar(*scalar);
            let encodings: Vec<Encoding> = match Encoding::default_for(kind) {
                Some(default) => vec![default],
                None => Encoding::allowed_for(kind).collect(),
            };
            let mut sent = encodings
                .into_iter()
                .flat_map(|encoding| scalar_values(*scalar, encoding, values));
            (
                sent.next().unwrap_or(Json::Null),
                sent.map(|j| (String::new(), j)).collect(),
            )
        }
        TypeRef::List(inner) => {
            let (first, _) = element_values(api, inner, method, depth, values, budget);
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

/// An opaque record's object: kept as sent, whatever it holds.
fn opaque() -> Json {
    Json::Object(vec![("note".into(), Json::Str("kept as sent".into()))])
}

/// A record's baseline object and its variations (one field varied at a time).
fn record_values(
    api: &dyn Find,
    record: &Record,
    method: &str,
    depth: usize,
    values: &Values,
    budget: &Budget,
) -> (Json, Vec<(String, Json)>) {
    if record.opaque {
        return (opaque(), Vec::new());
    }
    let mut fields: Vec<(Json, Vec<(String, Json)>)> = Vec::with_capacity(record.fields.len());
    for field in &record.fields {
        if budget.spent() {
            return (Json::Object(Vec::new()), Vec::new());
        }
        fields.push(field_values(api, field, method, depth, values, budget));
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
                format!("{} = {}", join(&field.wire_name, path), brief(json)),
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

/// A value in a few characters: scalars as written, containers by their shape.
pub fn brief(json: &Json) -> String {
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

/// The values of a scalar in one encoding, each distinct: `w3` and `-3` and `3.04`, the day 3
/// after 2026-01-01 as `DD-MON-YY` text or epoch seconds; a `string_or_number` spelling both
/// ways.
fn scalar_values(scalar: Scalar, encoding: Encoding, values: &Values) -> Vec<Json> {
    let info = encoding.info();
    let one = |form: JsonForm| -> Json {
        let n = values.take();
        let text = match scalar {
            Scalar::String => format!("w{n}"),
            Scalar::Integer => format!("-{n}"),
            Scalar::Id | Scalar::Count => n.to_string(),
            Scalar::Decimal => format!("{n}.{:02}", n % 99 + 1),
            Scalar::Boolean => return Json::Bool(n % 2 == 1),
            Scalar::Date => match info.date {
                Some(crate::ir::DateForm::Instant) => return Json::Number(epoch_day(n)),
                _ => return Json::Str(dmy_day(n)),
            },
        };
        match form {
            JsonForm::Number => Json::Number(if scalar == Scalar::String {
                n.to_string()
            } else {
                text
            }),
            _ => Json::Str(text),
        }
    };
    match info.json {
        JsonForm::StringOrNumber => vec![one(JsonForm::String), one(JsonForm::Number)],
        JsonForm::IndexObject | JsonForm::Array => Vec::new(),
        form => vec![one(form)],
    }
}

/// Days since 1970-01-01 of 2026-01-01.
const FIRST_DAY: i64 = 20_454;

/// The day `n` after 2026-01-01 as `DD-MON-YY`.
fn dmy_day(n: u64) -> String {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    // DD-MON-YY names the years 2000 to 2099: days past 2099 wrap to 2026 again.
    let (year, month, day) = civil(FIRST_DAY + (n % 26_000) as i64);
    let month = MONTHS[usize::try_from(month - 1).unwrap_or(0)];
    format!("{day:02}-{month}-{:02}", year % 100)
}

/// The day `n` after 2026-01-01 at midnight UTC, in epoch seconds.
fn epoch_day(n: u64) -> String {
    ((FIRST_DAY + (n % 26_000) as i64) * 86_400).to_string()
}

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_calendar_days() {
        assert_eq!(civil(FIRST_DAY), (2026, 1, 1));
        assert_eq!(dmy_day(0), "01-JAN-26");
        assert_eq!(dmy_day(59), "01-MAR-26");
        assert_eq!(epoch_day(4), "1767571200");
    }

    #[test]
    fn answers_past_their_budget_are_not_built() {
        use crate::ir::{FieldEncoding, Presence};
        let field = |n: usize| Field {
            wire_name: format!("f{n}"),
            rust_name: format!("f{n}"),
            doc: "d".to_owned(),
            ty: TypeRef::Scalar(Scalar::Integer),
            encoding: FieldEncoding::Uniform(Encoding::STRING_OR_NUMBER),
            presence: Presence::Optional(None),
            nullable: true,
            zero_is_none: false,
            documented_as: None,
            documented_type: None,
            narrowed: None,
        };
        let record = Record {
            name: "R".to_owned(),
            documented_as: None,
            doc: "d".to_owned(),
            opaque: false,
            fields: (0..200).map(field).collect(),
            delivered_by: Vec::new(),
            file: 0,
        };
        let api = crate::ir::Api {
            files: Vec::new(),
            info: None,
            oauth: None,
            errors: Vec::new(),
            enums: Vec::new(),
            records: Vec::new(),
            methods: Vec::new(),
        };
        // Three variations of each of 200 fields, each a copy of a 200-field baseline.
        let small = Budget::new(100_000);
        assert_eq!(answers(&api, &record, "m", &Values::from(1), &small), None);
        assert!(small.spent());
        let large = Budget::unlimited();
        let all = answers(&api, &record, "m", &Values::from(1), &large).expect("built");
        assert_eq!(all.len(), 1 + 200 * 3);
    }

    #[test]
    fn every_scalar_of_an_answer_has_a_value_of_its_own() {
        let values = Values::from(1);
        let a = scalar_values(Scalar::Decimal, Encoding::STRING_OR_NUMBER, &values);
        let b = scalar_values(Scalar::Decimal, Encoding::NUMBER, &values);
        assert_eq!(a, [Json::Str("1.02".into()), Json::Number("2.03".into())]);
        assert_eq!(b, [Json::Number("3.04".into())]);
    }
}
