//! JSON Schema (2020-12, as OpenAPI 3.1 has it) for the spec's values: every row of the
//! encoding table for every type that may declare it, enums (open ones accept any string),
//! and records, once per method where a record's fields are delivered differently by method.
//!
//! A record's schema is per method when one of its fields is present, or encoded, differently
//! in two of the methods that deliver it, or when it holds such a record: `Timesheet` is
//! `Timesheet.pay.getTimesheetsForBid` and `Timesheet.pay.getTimesheet`. Every other record is
//! one schema under its Rust name.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use super::json::{Json, obj, strings};
use crate::ir::{
    Api, DateForm, ENCODINGS, Encoding, Enum, Field, FieldEncoding, JsonForm, Kind, Lookup,
    Presence, Record, Scalar, TypeRef,
};
use crate::rust_type;

/// What the decoders of `id` and `count` take in a string: ASCII digits (leading zeros
/// too) of a value that fits a `u64`, exactly ([`digits_at_most`]).
pub(crate) static UNSIGNED_PATTERN: LazyLock<String> =
    LazyLock::new(|| format!("^{}$", digits_at_most(u128::from(u64::MAX))));
/// What the `integer` decoder takes in a string: digits with an optional leading `-` (`-0`
/// and leading zeros too) of a value that fits an `i64`, exactly.
pub(crate) static SIGNED_PATTERN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "^(?:{}|-{})$",
        digits_at_most(i64::MAX as u128),
        digits_at_most(u128::from(i64::MIN.unsigned_abs()))
    )
});
/// What the `decimal` decoder takes in a string: `-?[0-9]+(\.[0-9]+)?` (a value past
/// `Decimal`'s range or 28 places is refused too: `x-marketplace-range` says so).
pub(crate) const DECIMAL_PATTERN: &str = "^-?[0-9]+(\\.[0-9]+)?$";
/// `DD-MON-YY` of a day that exists (year 2000 + YY): two digits of a day the month has, an
/// upper-case English month, two digits of a year; 29-FEB only in a leap year. What the date
/// decoder takes in that form, exactly.
pub(crate) const DMY_PATTERN: &str = "^(?:(?:(?:0[1-9]|1[0-9]|2[0-8])-(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)\
                                     |(?:29|30)-(?:JAN|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)\
                                     |31-(?:JAN|MAR|MAY|JUL|AUG|OCT|DEC))-[0-9]{2}\
                                     |29-FEB-(?:[02468][048]|[13579][26]))$";
/// The first and last second of jiff's `Timestamp`, which the epoch decoder builds
/// (`tests/tests/red_team10_openapi.rs` holds the export to the decoder).
pub(crate) const EPOCH_MIN: i64 = -377_705_116_800;
pub(crate) const EPOCH_MAX: i64 = 253_402_207_200;
/// What `Decimal` holds: a magnitude of at most 2^96 - 1 units of its scale.
const DECIMAL_RANGE: &str = "at most 28 decimal places, magnitude below 2^96 (79228162514264337593543950336) units of the last place";

/// A regular expression (unanchored, one group) of the runs of ASCII digits, leading zeros
/// allowed, whose value is at most `bound`: for each place of the bound, its digits up to
/// there and a smaller digit, then any digits; fewer digits than the bound; the bound itself.
pub(crate) fn digits_at_most(bound: u128) -> String {
    format!("0*{}", digit_runs_at_most(bound, true))
}

/// The same without leading zeros (`0`, or a run starting with 1 to 9): an index key.
pub(crate) fn canonical_digits_at_most(bound: u128) -> String {
    digit_runs_at_most(bound, false)
}

fn digit_runs_at_most(bound: u128, leading_zeros: bool) -> String {
    let bound = bound.to_string();
    let places = bound.len();
    let mut alternatives = Vec::new();
    if places > 1 {
        alternatives.push(if leading_zeros {
            format!("[0-9]{{1,{}}}", places - 1)
        } else {
            format!("0|[1-9][0-9]{{0,{}}}", places - 2)
        });
    }
    for (at, digit) in bound.bytes().enumerate() {
        let lowest = if at == 0 && !leading_zeros && places > 1 {
            b'1'
        } else {
            b'0'
        };
        if digit > lowest {
            let rest = places - at - 1;
            let smaller = if digit - 1 == lowest {
                char::from(lowest).to_string()
            } else {
                format!("[{}-{}]", char::from(lowest), char::from(digit - 1))
            };
            let tail = if rest == 0 {
                String::new()
            } else {
                format!("[0-9]{{{rest}}}")
            };
            alternatives.push(format!("{}{smaller}{tail}", &bound[..at]));
        }
    }
    alternatives.push(bound.clone());
    format!("(?:{})", alternatives.join("|"))
}

/// The keys of an index-keyed collection: canonical non-negative integers that fit a `u64`,
/// as the collection decoder takes them.
pub(crate) static INDEX_KEY_PATTERN: LazyLock<String> =
    LazyLock::new(|| format!("^{}$", canonical_digits_at_most(u128::from(u64::MAX))));

/// Where schemas are referenced from.
pub(crate) const SCHEMAS: &str = "#/components/schemas/";

/// A `$ref` to the schema `name`.
pub(crate) fn reference(name: &str) -> Json {
    obj! { "$ref" => format!("{SCHEMAS}{name}") }
}

/// The schema of a scalar written in `encoding`. `Api::check` only lets a type declare the
/// encodings its row allows, so the combinations the match leaves out do not occur.
pub(crate) fn scalar_schema(scalar: Scalar, encoding: Encoding) -> Json {
    let row = encoding.info();
    let digits = |pattern: &str| obj! { "type" => "string", "pattern" => pattern };
    match (row.json, scalar) {
        (JsonForm::Number, Scalar::Integer) => obj! {
            "type" => "integer", "minimum" => i64::MIN, "maximum" => i64::MAX,
        },
        (JsonForm::Number, Scalar::Id | Scalar::Count) => obj! {
            "type" => "integer", "minimum" => 0u64, "maximum" => u64::MAX,
        },
        (JsonForm::Number, Scalar::Decimal) => obj! {
            "type" => "number", "x-marketplace-range" => DECIMAL_RANGE,
        },
        // The instants the client holds (jiff's `Timestamp`: years -9999 to 9999).
        (JsonForm::Number, Scalar::Date) if row.date == Some(DateForm::Instant) => obj! {
            "type" => "integer", "minimum" => EPOCH_MIN, "maximum" => EPOCH_MAX,
        },
        (JsonForm::String, Scalar::String) => obj! { "type" => "string" },
        (JsonForm::String, Scalar::Integer) => digits(&SIGNED_PATTERN),
        (JsonForm::String, Scalar::Id | Scalar::Count) => digits(&UNSIGNED_PATTERN),
        (JsonForm::String, Scalar::Decimal) => obj! {
            "type" => "string", "pattern" => DECIMAL_PATTERN, "x-marketplace-range" => DECIMAL_RANGE,
        },
        (JsonForm::String, Scalar::Date) if row.date == Some(DateForm::Day) => digits(DMY_PATTERN),
        (JsonForm::StringOrNumber, Scalar::String) => {
            obj! { "type" => strings(["string", "number"]) }
        }
        (JsonForm::StringOrNumber, Scalar::Integer) => obj! {
            "type" => strings(["string", "integer"]), "pattern" => SIGNED_PATTERN.as_str(),
            "minimum" => i64::MIN, "maximum" => i64::MAX,
        },
        (JsonForm::StringOrNumber, Scalar::Id | Scalar::Count) => obj! {
            "type" => strings(["string", "integer"]), "pattern" => UNSIGNED_PATTERN.as_str(),
            "minimum" => 0u64, "maximum" => u64::MAX,
        },
        (JsonForm::StringOrNumber, Scalar::Decimal) => obj! {
            "type" => strings(["string", "number"]), "pattern" => DECIMAL_PATTERN,
            "x-marketplace-range" => DECIMAL_RANGE,
        },
        (JsonForm::Boolean, Scalar::Boolean) => obj! { "type" => "boolean" },
        (form, scalar) => panic!(
            "encoding {encoding} ({form:?}) declared by {}: Api::check refuses it",
            scalar.spec_name()
        ),
    }
}

/// The schema of a list of `item` written in `encoding`: an index-keyed object (or `[]`, PHP's
/// spelling of an empty collection, which the decoders take too), or a JSON array.
pub(crate) fn list_schema(encoding: Encoding, item: Json) -> Json {
    match encoding.info().json {
        JsonForm::IndexObject => obj! {
            "anyOf" => vec![
                obj! {
                    "type" => "object",
                    "propertyNames" => obj! { "pattern" => INDEX_KEY_PATTERN.as_str() },
                    "additionalProperties" => item,
                },
                obj! { "type" => "array", "maxItems" => 0u64 },
            ],
        },
        JsonForm::Array => obj! { "type" => "array", "items" => item },
        form @ (JsonForm::Number
        | JsonForm::String
        | JsonForm::StringOrNumber
        | JsonForm::Boolean) => {
            panic!("encoding {encoding} ({form:?}) declared by a list: Api::check refuses it")
        }
    }
}

/// The encodings of a value of `kind` that declares none: its default, or every one it may
/// declare (dates have no default).
fn undeclared_encodings(kind: Kind) -> Vec<Encoding> {
    match Encoding::default_for(kind) {
        Some(encoding) => vec![encoding],
        None => Encoding::allowed_for(kind).collect(),
    }
}

/// One schema, or `anyOf` the several.
fn any_of(mut schemas: Vec<Json>) -> Json {
    if schemas.len() == 1 {
        schemas.remove(0)
    } else {
        obj! { "anyOf" => schemas }
    }
}

/// The encoding table as an extension: every row, for readers of the export.
pub(crate) fn encoding_table() -> Json {
    let kinds = |kinds: &[Kind]| {
        strings(kinds.iter().map(|kind| match kind {
            Kind::Scalar(scalar) => scalar.spec_name().to_owned(),
            Kind::List => "list<T>".to_owned(),
        }))
    };
    Json::Array(
        ENCODINGS
            .iter()
            .map(|row| {
                obj! {
                    "name" => row.name,
                    "description" => row.doc,
                    "json" => strings(row.json.kinds().iter().map(|kind| kind.words())),
                    "declared_by" => kinds(row.types),
                    "default_for" => kinds(row.default_for),
                }
            })
            .collect(),
    )
}

/// Where a field is in one method's answers (or, without a method, in any).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Present {
    /// Always sent: required.
    Always,
    /// May be left out.
    Sometimes,
    /// Never sent: not a property of that method's schema.
    Never,
}

/// Where `field` is in `method`'s answers; `None`: in the answers of any method.
pub(crate) fn presence_in(field: &Field, method: Option<&str>) -> Present {
    let listed = |methods: &[crate::ir::Id<crate::ir::Method>]| {
        method.map(|method| methods.iter().any(|m| *m == method))
    };
    match &field.presence {
        Presence::Always => Present::Always,
        Presence::Optional(_) => Present::Sometimes,
        Presence::OnlyIn(methods) => match listed(methods) {
            Some(true) => Present::Always,
            Some(false) => Present::Never,
            None => Present::Sometimes,
        },
        Presence::AbsentIn(methods) => match listed(methods) {
            Some(true) => Present::Never,
            Some(false) => Present::Always,
            None => Present::Sometimes,
        },
    }
}

/// The record schemas and their names.
pub(crate) struct Records<'a> {
    api: &'a Api,
    lookup: Lookup<'a>,
    /// Records whose schema differs by method (their own fields, or a record they hold).
    per_method: HashSet<&'a str>,
}

/// One record schema: the record's index, and the index of its method in `delivered_by`
/// (`usize::MAX`: the schema of any method, for a record no method delivers).
type Variant = (usize, usize);

const ANY_METHOD: usize = usize::MAX;

impl<'a> Records<'a> {
    pub(crate) fn new(api: &'a Api) -> Self {
        let lookup = api.lookup();
        let children: HashMap<&str, Vec<&str>> = api
            .records
            .iter()
            .map(|record| {
                let held = record
                    .fields
                    .iter()
                    .filter_map(|field| record_in(&field.ty))
                    .collect();
                (record.name.as_str(), held)
            })
            .collect();
        let mut per_method: HashSet<&str> = api
            .records
            .iter()
            .filter(|record| !fields_alike_in_every_method(record))
            .map(|record| record.name.as_str())
            .collect();
        // A record holding one whose schema is per method is per method too (to a fixed point,
        // so that records holding each other end).
        loop {
            let more: Vec<&str> = api
                .records
                .iter()
                .map(|record| record.name.as_str())
                .filter(|name| !per_method.contains(name))
                .filter(|name| children[name].iter().any(|c| per_method.contains(c)))
                .collect();
            if more.is_empty() {
                break;
            }
            per_method.extend(more);
        }
        Records {
            api,
            lookup,
            per_method,
        }
    }

    /// Whether `record`'s schema is one per method.
    pub(crate) fn is_per_method(&self, record: &Record) -> bool {
        self.per_method.contains(record.name.as_str())
    }

    /// The name of `record`'s schema in `method`'s answers (`None`: in any method's).
    pub(crate) fn name(&self, record: &Record, method: Option<&str>) -> String {
        match method {
            Some(method) if self.is_per_method(record) => {
                format!("{}.{}", record.name, method.replace('/', "."))
            }
            _ => record.name.clone(),
        }
    }

    /// The method a record's schema is written for: `method` for a per-method record, else the
    /// first that delivers it (all deliver it alike), else none.
    fn context<'m>(&'m self, record: &'m Record, method: Option<&'m str>) -> Option<&'m str> {
        if self.is_per_method(record) {
            method
        } else {
            record.delivered_by.first().map(|id| id.as_str())
        }
    }

    fn variant(&self, record: &Record, method: Option<&str>) -> Variant {
        let index = self
            .api
            .records
            .iter()
            .position(|r| r.name == record.name)
            .expect("a record of the Api");
        let method = match self.context(record, method) {
            Some(method) => record
                .delivered_by
                .iter()
                .position(|m| *m == method)
                .unwrap_or(ANY_METHOD),
            None => ANY_METHOD,
        };
        (index, method)
    }

    /// Every record schema the document needs, by name, in spec order: what each method's
    /// answer holds, and records no method delivers.
    pub(crate) fn schemas(&self) -> Vec<(String, Json)> {
        let mut needed: BTreeSet<Variant> = BTreeSet::new();
        let mut work: Vec<Variant> = Vec::new();
        for method in &self.api.methods {
            let record = self.lookup.record(&method.response);
            work.push(self.variant(record, Some(&method.name)));
        }
        for record in &self.api.records {
            if record.delivered_by.is_empty() {
                work.push(self.variant(record, None));
            }
        }
        while let Some(variant) = work.pop() {
            if !needed.insert(variant) {
                continue;
            }
            let (record, method) = self.of(variant);
            for field in &record.fields {
                if presence_in(field, method) == Present::Never {
                    continue;
                }
                if let Some(held) = record_in(&field.ty) {
                    let held = self
                        .lookup
                        .record_named(held)
                        .expect("checked by Api::check");
                    work.push(self.variant(held, method));
                }
            }
        }
        needed
            .into_iter()
            .map(|variant| {
                let (record, method) = self.of(variant);
                (
                    self.name(record, method),
                    self.record_schema(record, method),
                )
            })
            .collect()
    }

    fn of(&self, (index, method): Variant) -> (&'a Record, Option<&'a str>) {
        let record = &self.api.records[index];
        let method = record.delivered_by.get(method).map(|id| id.as_str());
        (record, method)
    }

    /// `record` as `method` delivers it (`None`: as any method does).
    fn record_schema(&self, record: &Record, method: Option<&str>) -> Json {
        let file = &self.api.files[record.file].path;
        let mut schema = obj! { "type" => "object", "description" => record.doc.trim_end() };
        if record.opaque {
            // Any member, said outright: JSON Schema's default, which generators of typed
            // clients read as "no member" (openapi-typescript: `Record<string, never>`).
            schema = schema
                .with("additionalProperties", true)
                .with("x-marketplace-opaque", true);
        }
        let mut properties = super::json::Object::new();
        let mut required = Vec::new();
        for field in &record.fields {
            let present = presence_in(field, method);
            if present == Present::Never {
                continue;
            }
            if present == Present::Always {
                required.push(field.wire_name.as_str());
            }
            properties.insert(field.wire_name.clone(), self.field_schema(field, method));
        }
        if !record.opaque {
            schema = schema.with("properties", properties);
        }
        if !required.is_empty() {
            schema = schema.with("required", strings(required));
        }
        schema
            .with("x-marketplace-rust-name", &record.name)
            .with_some("x-marketplace-documented-as", record.documented_as.as_ref())
            .with_some(
                "x-marketplace-method",
                method.filter(|_| self.is_per_method(record)),
            )
            .with(
                "x-marketplace-delivered-by",
                strings(record.delivered_by.iter().map(|id| id.as_str())),
            )
            .with("x-marketplace-spec-file", file)
    }

    /// A field's schema in `method`'s answers, with what JSON Schema cannot say as extensions.
    fn field_schema(&self, field: &Field, method: Option<&str>) -> Json {
        let encodings = match method {
            Some(method) => field.encoding.in_method(method),
            None => field.encoding.distinct(),
        };
        let mut value = self.value_schema(&field.ty, &encodings, method);
        // A `zero_is_none` date sent as text in this method: the client reads a 0 there as
        // none too (every decoder reads every form), so the schema admits it.
        let text_only_date = matches!(field.ty, TypeRef::Scalar(Scalar::Date))
            && !encodings
                .iter()
                .any(|encoding| encoding.info().date == Some(DateForm::Instant));
        if field.zero_is_none && text_only_date {
            let zero = obj! {
                "type" => strings(["integer", "string"]),
                "enum" => vec![Json::from(0_u64), Json::from("0")],
            };
            value = obj! { "anyOf" => vec![value, zero] };
        }
        let mut schema = if field.nullable {
            obj! { "anyOf" => vec![value, obj! { "type" => "null" }] }
        } else {
            value
        };
        let mut description = field.doc.trim_end().to_owned();
        if field.zero_is_none {
            description.push_str(" `0` means none.");
        }
        if let Presence::Optional(Some(when)) = &field.presence {
            description.push_str(&format!(" {when}"));
        }
        schema = schema.with("description", description);
        let encoding_names = strings(encodings.iter().map(|e| e.spec_name()));
        schema = match encodings.len() {
            0 => schema,
            1 => schema.with("x-marketplace-encoding", encodings[0].spec_name()),
            _ => schema.with("x-marketplace-encoding", encoding_names),
        };
        if let FieldEncoding::PerMethod(per_method) = &field.encoding {
            let mut map = super::json::Object::new();
            for (method, encoding) in per_method {
                map.insert(method.to_string(), encoding.spec_name().into());
            }
            schema = schema.with("x-marketplace-encoding-by-method", map);
        }
        schema
            .with("x-marketplace-type", field.ty.spec_name())
            .with("x-marketplace-rust-name", &field.rust_name)
            .with(
                "x-marketplace-rust-type",
                rust_type::field_type(&self.lookup, field).to_string(),
            )
            .with("x-marketplace-presence", presence(&field.presence))
            .with_some(
                "x-marketplace-zero-is-none",
                field.zero_is_none.then_some(true),
            )
            .with_some("x-marketplace-documented-as", field.documented_as.as_ref())
            .with_some(
                "x-marketplace-documented-type",
                field.documented_type.as_ref().map(|id| id.to_string()),
            )
            .with_some("x-marketplace-narrowed", field.narrowed.as_ref())
    }

    /// The schema of a value of `ty` in one of `encodings` (its own for records and enums).
    fn value_schema(&self, ty: &TypeRef, encodings: &[Encoding], method: Option<&str>) -> Json {
        match ty {
            TypeRef::Record(id) => {
                let record = self.lookup.record(id);
                reference(&self.name(record, self.context(record, method)))
            }
            TypeRef::Enum(id) => reference(id.as_str()),
            TypeRef::Scalar(scalar) => any_of(
                encodings
                    .iter()
                    .map(|encoding| scalar_schema(*scalar, *encoding))
                    .collect(),
            ),
            TypeRef::List(element) => {
                let item_encodings = match element.kind() {
                    Some(kind) => undeclared_encodings(kind),
                    None => Vec::new(),
                };
                let item = self.value_schema(element, &item_encodings, method);
                any_of(
                    encodings
                        .iter()
                        .map(|encoding| list_schema(*encoding, item.clone()))
                        .collect(),
                )
            }
        }
    }
}

/// The record `ty` holds, through lists.
fn record_in(ty: &TypeRef) -> Option<&str> {
    match ty {
        TypeRef::Record(id) => Some(id.as_str()),
        TypeRef::List(element) => record_in(element),
        TypeRef::Scalar(_) | TypeRef::Enum(_) => None,
    }
}

/// Whether every field of `record` is present and encoded alike in every method delivering it.
fn fields_alike_in_every_method(record: &Record) -> bool {
    record.fields.iter().all(|field| {
        let mut seen = record.delivered_by.iter().map(|method| {
            (
                presence_in(field, Some(method.as_str())),
                field.encoding.in_method(method.as_str()),
            )
        });
        match seen.next() {
            Some(first) => seen.all(|other| other == first),
            None => true,
        }
    })
}

/// A field's presence as the spec says it.
fn presence(presence: &Presence) -> Json {
    match presence {
        Presence::Always => "always".into(),
        Presence::Optional(when) => {
            obj! { "optional" => when.clone().map_or(Json::Bool(true), Json::from) }
        }
        Presence::OnlyIn(methods) => {
            obj! { "only_in" => strings(methods.iter().map(|m| m.as_str())) }
        }
        Presence::AbsentIn(methods) => {
            obj! { "absent_in" => strings(methods.iter().map(|m| m.as_str())) }
        }
    }
}

/// An enum: its documented values, and for an open enum any other string too.
pub(crate) fn enum_schema(api: &Api, enumeration: &Enum) -> Json {
    let values = strings(enumeration.values.iter().map(|v| v.wire.as_str()));
    let mut schema = if enumeration.open {
        obj! {
            "anyOf" => vec![
                obj! { "type" => "string", "enum" => values },
                obj! { "type" => "string" },
            ],
        }
    } else {
        obj! { "type" => "string", "enum" => values }
    };
    schema = schema.with("description", enumeration.doc.trim_end());
    schema
        .with("x-marketplace-rust-name", &enumeration.name)
        .with("x-marketplace-open", enumeration.open)
        .with(
            "x-marketplace-values",
            Json::Array(
                enumeration
                    .values
                    .iter()
                    .map(|value| {
                        obj! {
                            "value" => &value.wire,
                            "rust-variant" => &value.variant,
                            "description" => value.doc.trim_end(),
                        }
                    })
                    .collect(),
            ),
        )
        .with("x-marketplace-spec-file", &api.files[enumeration.file].path)
}
