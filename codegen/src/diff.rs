//! What a spec change does, for reviewers: every difference between two resolved specs as a
//! [`Change`] with a stable rule id (see [`RULES`]) and two verdicts: for the wire (would an
//! existing app break against the server as the new spec describes it?) and for the generated
//! Rust API (is it a semver-major change of the crate?).
//!
//! Verdicts rest on how the client is built: records and enums are `#[non_exhaustive]` (new
//! fields and values are not breaking Rust changes), decoders accept every encoding of a type
//! (a number sent as a string is not a wire break), and unknown JSON keys are ignored.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::ir::{Api, Enum, Field, Method, Param, Record, Scalar, TypeRef};
use crate::location::LocationIndex;
use crate::resolve::SpecSource;
use crate::rust_type;

/// How loud a change is in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Breaks someone.
    Error,
    /// Changes behaviour without breaking a build or a decode.
    Warning,
    /// Worth knowing.
    Info,
}

/// Whether a change breaks users of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Existing users break.
    Breaking,
    /// Existing users keep working.
    NonBreaking,
}

impl Impact {
    fn when(breaking: bool) -> Impact {
        if breaking {
            Impact::Breaking
        } else {
            Impact::NonBreaking
        }
    }
}

/// A kind of change.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rule {
    /// Stable id, used in reports, JSON and CI configuration.
    pub id: &'static str,
    /// What it detects.
    pub summary: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal: $summary:literal;)*) => {
        /// The ids of the rules, as constants.
        pub mod rule {
            $(#[doc = $summary] pub const $name: &str = $id;)*
        }
        /// Every rule, in report order.
        pub const RULES: &[Rule] = &[$(Rule { id: $id, summary: $summary },)*];
    };
}

rules! {
    METHOD_ADDED = "method-added": "A data method was added.";
    METHOD_REMOVED = "method-removed": "A data method was removed.";
    METHOD_RENAMED = "method-renamed": "A data method's path changed (same response and parameters).";
    METHOD_RUST_NAME_CHANGED = "method-rust-name-changed": "A data method's Rust name changed; the wire is unchanged.";
    METHOD_RESPONSE_CHANGED = "method-response-changed": "A data method now responds with another type.";
    PARAM_ADDED_REQUIRED = "param-added-required": "A required parameter was added.";
    PARAM_ADDED_OPTIONAL = "param-added-optional": "An optional parameter was added.";
    PARAM_REMOVED = "param-removed": "A parameter was removed.";
    PARAM_BECAME_REQUIRED = "param-became-required": "An optional parameter became required.";
    PARAM_BECAME_OPTIONAL = "param-became-optional": "A required parameter became optional.";
    PARAM_TYPE_CHANGED = "param-type-changed": "A parameter's type changed.";
    PARAM_DEFAULT_CHANGED = "param-default-changed": "A parameter's default changed.";
    PARAM_CAP_CHANGED = "param-cap-changed": "A parameter's documented bounds (min or cap) changed.";
    PARAM_EITHER_OR_CHANGED = "param-either-or-changed": "The set of parameters of which one must be sent changed.";
    PAGING_CHANGED = "paging-changed": "How a method pages changed.";
    FIELD_ADDED = "field-added": "A response field was added.";
    FIELD_REMOVED = "field-removed": "A response field was removed.";
    FIELD_TYPE_CHANGED = "field-type-changed": "A response field's type changed.";
    FIELD_TYPE_WIDENED = "field-type-widened": "A response field's type was widened (e.g. integer to decimal).";
    FIELD_TYPE_NARROWED = "field-type-narrowed": "A response field's type was narrowed (e.g. decimal to integer).";
    FIELD_BECAME_OPTIONAL = "field-became-optional": "A response field may now be absent (or 0 now means none).";
    FIELD_BECAME_NULLABLE = "field-became-nullable": "A response field may now be null.";
    FIELD_BECAME_REQUIRED = "field-became-required": "A response field is now always present.";
    FIELD_WIRE_NAME_CHANGED = "field-wire-name-changed": "A response field's wire name changed; its Rust name is kept.";
    FIELD_RUST_NAME_CHANGED = "field-rust-name-changed": "A response field's Rust name changed; its wire name is kept.";
    FIELD_ENCODING_CHANGED = "field-encoding-changed": "How a response field is encoded on the wire changed (e.g. number to string, index-keyed object to array, DD-MON-YY to epoch).";
    ENUM_VALUE_ADDED = "enum-value-added": "An enum value was added.";
    ENUM_VALUE_REMOVED = "enum-value-removed": "An enum value was removed.";
    ENUM_OPENED = "enum-opened": "An enum now keeps unknown values.";
    ENUM_CLOSED = "enum-closed": "An enum now refuses unknown values.";
    TYPE_ADDED = "type-added": "A type or enum was added.";
    TYPE_REMOVED = "type-removed": "A type or enum was removed.";
    TYPE_RENAMED = "type-renamed": "A type or enum was renamed (same fields or values).";
    ERROR_CODE_ADDED = "error-code-added": "An error code was documented.";
    ERROR_CODE_REMOVED = "error-code-removed": "An error code was removed.";
    SERVICE_CHANGED = "service-changed": "A service constant changed (data path, OAuth endpoint, token lifetime, ...).";
    DOC_CHANGED = "doc-changed": "Only documentation changed.";
}

/// A spec side of the comparison: the resolved API and the files it came from (for locations).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The resolved API.
    pub api: &'a Api,
    /// Its spec files.
    pub sources: &'a [SpecSource],
}

/// A position in a spec file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file, e.g. `spec/pay.yaml`.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// One difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The rule id (see [`RULES`]).
    pub rule: &'static str,
    /// How loud it is.
    pub level: Level,
    /// Would an existing app break against the server?
    pub wire: Impact,
    /// Is it a semver-major change of the generated crate?
    pub rust: Impact,
    /// What changed, as a spec path, e.g. `types.Timesheet.fields.rate`.
    pub subject: String,
    /// A sentence for reviewers.
    pub message: String,
    /// Where it is in the base spec.
    pub base: Option<Location>,
    /// Where it is in the head spec.
    pub head: Option<Location>,
}

/// Every change from `base` to `head`, in spec order (methods, types, enums, errors, service).
pub fn diff(base: Side<'_>, head: Side<'_>) -> Vec<Change> {
    let mut differ = Differ {
        base,
        head,
        renamed_types: renamed_types(base.api, head.api),
        base_index: base.sources.iter().map(|_| OnceCell::new()).collect(),
        head_index: head.sources.iter().map(|_| OnceCell::new()).collect(),
        changes: Vec::new(),
    };
    differ.methods();
    differ.records();
    differ.enums();
    differ.errors();
    differ.service();
    differ.changes
}

struct Differ<'a> {
    base: Side<'a>,
    head: Side<'a>,
    /// Types and enums renamed from base to head (old name -> new name).
    renamed_types: BTreeMap<String, String>,
    /// Line and column of every node, per spec file of each side, built when first needed.
    base_index: Vec<OnceCell<LocationIndex>>,
    head_index: Vec<OnceCell<LocationIndex>>,
    changes: Vec<Change>,
}

/// Where an item is: the file index and the spec path.
type Place<'p> = (usize, Vec<&'p str>);

impl<'a> Differ<'a> {
    /// Where `place` is written on one side; each file is indexed once, on first use.
    fn locate(
        side: Side<'_>,
        indexes: &[OnceCell<LocationIndex>],
        place: &Place<'_>,
    ) -> Option<Location> {
        let (file, path) = place;
        let source = side.sources.get(*file)?;
        let index = indexes
            .get(*file)?
            .get_or_init(|| LocationIndex::new(&source.text));
        let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
        let at = index.find(&path)?;
        Some(Location {
            file: source.path.clone(),
            line: at.line,
            column: at.column,
        })
    }

    fn push(
        &mut self,
        rule: &'static str,
        wire_breaks: bool,
        rust_breaks: bool,
        base: Option<Place<'_>>,
        head: Option<Place<'_>>,
        message: String,
    ) {
        let subject = head
            .as_ref()
            .or(base.as_ref())
            .map(|(_, path)| path.join("."))
            .unwrap_or_default();
        let (wire, rust) = (Impact::when(wire_breaks), Impact::when(rust_breaks));
        let level = if wire_breaks || rust_breaks {
            Level::Error
        } else if rule == rule::DOC_CHANGED || rule.ends_with("-added") {
            Level::Info
        } else {
            Level::Warning
        };
        self.changes.push(Change {
            rule,
            level,
            wire,
            rust,
            subject,
            message,
            base: base.and_then(|place| Self::locate(self.base, &self.base_index, &place)),
            head: head.and_then(|place| Self::locate(self.head, &self.head_index, &place)),
        });
    }

    /// A change located on both sides.
    fn both(
        &mut self,
        rule: &'static str,
        wire_breaks: bool,
        rust_breaks: bool,
        base: &Place<'_>,
        head: &Place<'_>,
        message: String,
    ) {
        self.push(
            rule,
            wire_breaks,
            rust_breaks,
            Some(base.clone()),
            Some(head.clone()),
            message,
        );
    }

    fn doc(&mut self, old: &str, new: &str, base: Place<'_>, head: Place<'_>) {
        if old.trim() != new.trim() {
            self.push(
                rule::DOC_CHANGED,
                false,
                false,
                Some(base),
                Some(head),
                format!("documentation: {:?} -> {:?}", short(old), short(new)),
            );
        }
    }

    // ---- methods ----------------------------------------------------------------------------

    fn methods(&mut self) {
        let (base, head) = (self.base.api, self.head.api);
        let mut added: Vec<&Method> = head
            .methods
            .iter()
            .filter(|m| find(&base.methods, |b| b.name == m.name).is_none())
            .collect();
        for old in &base.methods {
            let base_place = (old.file, vec!["methods", old.name.as_str()]);
            if let Some(new) = find(&head.methods, |m| m.name == old.name) {
                self.method(old, new, false);
                continue;
            }
            let same_shape =
                |m: &&Method| m.response == old.response && param_names(m) == param_names(old);
            if let Some(index) = added.iter().position(same_shape) {
                let new = added.remove(index);
                self.push(
                    rule::METHOD_RENAMED,
                    true,
                    new.rust_name != old.rust_name,
                    Some(base_place),
                    Some((new.file, vec!["methods", new.name.as_str()])),
                    format!(
                        "{} became {} (path {} -> {})",
                        old.name, new.name, old.path, new.path
                    ),
                );
                self.method(old, new, true);
            } else {
                self.push(
                    rule::METHOD_REMOVED,
                    true,
                    true,
                    Some(base_place),
                    None,
                    format!("{} was removed", old.name),
                );
            }
        }
        for new in added {
            self.push(
                rule::METHOD_ADDED,
                false,
                false,
                None,
                Some((new.file, vec!["methods", new.name.as_str()])),
                format!("{} was added (Session::{})", new.name, new.rust_name),
            );
        }
    }

    /// Compares a method with its counterpart; a renamed method's new Rust name is part of the
    /// rename already reported.
    fn method(&mut self, old: &'a Method, new: &'a Method, renamed: bool) {
        let at = |m: &'a Method| -> Place<'a> { (m.file, vec!["methods", m.name.as_str()]) };
        if old.rust_name != new.rust_name && !renamed {
            self.push(
                rule::METHOD_RUST_NAME_CHANGED,
                false,
                true,
                Some(at(old)),
                Some(at(new)),
                format!(
                    "Session::{} became Session::{}",
                    old.rust_name, new.rust_name
                ),
            );
        }
        if self
            .renamed_types
            .get(&old.response)
            .unwrap_or(&old.response)
            != &new.response
        {
            self.push(
                rule::METHOD_RESPONSE_CHANGED,
                true,
                true,
                Some(at(old)),
                Some(at(new)),
                format!(
                    "{} now responds with {} instead of {}",
                    new.name, new.response, old.response
                ),
            );
        }
        self.doc(&old.doc, &new.doc, at(old), at(new));
        self.params(old, new);
        if old.at_least_one_of != new.at_least_one_of {
            self.push(
                rule::PARAM_EITHER_OR_CHANGED,
                true,
                true,
                Some(at(old)),
                Some(at(new)),
                format!(
                    "{}: at least one of [{}] became [{}]",
                    new.name,
                    old.at_least_one_of.join(", "),
                    new.at_least_one_of.join(", ")
                ),
            );
        }
        if old.paging != new.paging {
            let rust = old.paging.is_some() != new.paging.is_some();
            self.push(
                rule::PAGING_CHANGED,
                false,
                rust,
                Some(at(old)),
                Some(at(new)),
                match (&old.paging, &new.paging) {
                    (None, Some(_)) => {
                        format!("{} is now paged (pages() and items() added)", new.name)
                    }
                    (Some(_), None) => format!(
                        "{} is no longer paged (pages() and items() removed)",
                        new.name
                    ),
                    (Some(a), Some(b)) => {
                        format!("{} pages differently: {}", new.name, paging_change(a, b))
                    }
                    (None, None) => String::new(),
                },
            );
        }
        let added: Vec<&String> = new
            .errors
            .iter()
            .filter(|e| !old.errors.contains(e))
            .collect();
        let removed: Vec<&String> = old
            .errors
            .iter()
            .filter(|e| !new.errors.contains(e))
            .collect();
        if !added.is_empty() || !removed.is_empty() || old.delivered_api != new.delivered_api {
            self.push(
                rule::DOC_CHANGED,
                false,
                false,
                Some(at(old)),
                Some(at(new)),
                format!(
                    "{}: documented errors +{added:?} -{removed:?}, envelope api {} -> {}",
                    new.name, old.delivered_api, new.delivered_api
                ),
            );
        }
    }

    fn params(&mut self, old_method: &'a Method, new_method: &'a Method) {
        let at = |m: &'a Method, p: &'a Param| -> Place<'a> {
            (
                m.file,
                vec!["methods", m.name.as_str(), "params", p.wire_name.as_str()],
            )
        };
        // A parameter of at_least_one_of is optional in the builder but set by a constructor.
        let required =
            |m: &Method, p: &Param| p.required && !m.at_least_one_of.contains(&p.wire_name);
        for old in &old_method.params {
            let Some(new) = find(&new_method.params, |p| p.wire_name == old.wire_name) else {
                self.push(
                    rule::PARAM_REMOVED,
                    true,
                    true,
                    Some(at(old_method, old)),
                    None,
                    format!(
                        "{}: parameter {} was removed",
                        old_method.name, old.wire_name
                    ),
                );
                continue;
            };
            let (o, n) = (at(old_method, old), at(new_method, new));
            let name = format!("{}: parameter {}", new_method.name, new.wire_name);
            match (required(old_method, old), required(new_method, new)) {
                (false, true) => self.both(
                    rule::PARAM_BECAME_REQUIRED,
                    true,
                    true,
                    &o,
                    &n,
                    format!("{name} became required (a constructor argument)"),
                ),
                (true, false) => self.both(
                    rule::PARAM_BECAME_OPTIONAL,
                    false,
                    true,
                    &o,
                    &n,
                    format!("{name} became optional (a setter)"),
                ),
                _ => {}
            }
            if old.ty != new.ty || old.rust_name != new.rust_name {
                let rust = rust_type::param_type(old) != rust_type::param_type(new)
                    || old.rust_name != new.rust_name;
                self.both(
                    rule::PARAM_TYPE_CHANGED,
                    old.ty != new.ty,
                    rust,
                    &o,
                    &n,
                    format!(
                        "{name}: {:?} {} -> {:?} {}",
                        old.ty, old.rust_name, new.ty, new.rust_name
                    ),
                );
            }
            if old.default != new.default {
                self.both(
                    rule::PARAM_DEFAULT_CHANGED,
                    false,
                    false,
                    &o,
                    &n,
                    format!("{name}: default {:?} -> {:?}", old.default, new.default),
                );
            }
            if old.min != new.min || old.max != new.max {
                // The client refuses values beyond the bounds, so tighter bounds can turn a
                // call that used to work into an InvalidArgument error at run time.
                self.both(
                    rule::PARAM_CAP_CHANGED,
                    false,
                    false,
                    &o,
                    &n,
                    format!(
                        "{name}: bounds {:?}..{:?} -> {:?}..{:?}",
                        old.min, old.max, new.min, new.max
                    ),
                );
            }
            self.doc(&old.doc, &new.doc, o, n);
        }
        for new in &new_method.params {
            if find(&old_method.params, |p| p.wire_name == new.wire_name).is_none() {
                let (rule, breaks) = if required(new_method, new) {
                    (rule::PARAM_ADDED_REQUIRED, true)
                } else {
                    (rule::PARAM_ADDED_OPTIONAL, false)
                };
                self.push(
                    rule,
                    breaks,
                    breaks,
                    None,
                    Some(at(new_method, new)),
                    format!("{}: parameter {} was added", new_method.name, new.wire_name),
                );
            }
        }
    }

    // ---- records ---------------------------------------------------------------------------

    fn records(&mut self) {
        let (base, head) = (self.base.api, self.head.api);
        let at = |r: &'a Record| -> Place<'a> { (r.file, vec!["types", r.name.as_str()]) };
        for old in &base.records {
            let new_name = self.renamed_types.get(&old.name).unwrap_or(&old.name);
            match find(&head.records, |r| &r.name == new_name) {
                Some(new) => {
                    if new.name != old.name {
                        self.push(
                            rule::TYPE_RENAMED,
                            false,
                            true,
                            Some(at(old)),
                            Some(at(new)),
                            format!("type {} was renamed {}", old.name, new.name),
                        );
                    }
                    self.record(old, new);
                }
                None => {
                    let delivered = !old.delivered_by.is_empty();
                    self.push(
                        rule::TYPE_REMOVED,
                        delivered,
                        true,
                        Some(at(old)),
                        None,
                        format!("type {} was removed", old.name),
                    );
                }
            }
        }
        for new in &head.records {
            let known = base
                .records
                .iter()
                .any(|old| self.renamed_types.get(&old.name).unwrap_or(&old.name) == &new.name);
            if !known {
                self.push(
                    rule::TYPE_ADDED,
                    false,
                    false,
                    None,
                    Some(at(new)),
                    format!("type {} was added", new.name),
                );
            }
        }
    }

    fn record(&mut self, old: &'a Record, new: &'a Record) {
        let at = |r: &'a Record, f: &'a Field| -> Place<'a> {
            (
                r.file,
                vec!["types", r.name.as_str(), "fields", f.wire_name.as_str()],
            )
        };
        self.doc(
            &old.doc,
            &new.doc,
            (old.file, vec!["types", old.name.as_str()]),
            (new.file, vec!["types", new.name.as_str()]),
        );
        if old.opaque != new.opaque {
            self.push(
                rule::FIELD_TYPE_CHANGED,
                true,
                true,
                Some((old.file, vec!["types", old.name.as_str()])),
                Some((new.file, vec!["types", new.name.as_str()])),
                format!(
                    "type {} is {} opaque",
                    new.name,
                    if new.opaque { "now" } else { "no longer" }
                ),
            );
        }
        let mut added: Vec<&Field> = new
            .fields
            .iter()
            .filter(|f| find(&old.fields, |o| o.wire_name == f.wire_name).is_none())
            .collect();
        for old_field in &old.fields {
            if let Some(new_field) = find(&new.fields, |f| f.wire_name == old_field.wire_name) {
                self.field(old, old_field, new, new_field);
                continue;
            }
            if let Some(index) = added
                .iter()
                .position(|f| f.rust_name == old_field.rust_name)
            {
                let new_field = added.remove(index);
                self.push(
                    rule::FIELD_WIRE_NAME_CHANGED,
                    !old_field.is_optional(),
                    false,
                    Some(at(old, old_field)),
                    Some(at(new, new_field)),
                    format!(
                        "{}.{} is now sent as {:?} instead of {:?}",
                        new.name, new_field.rust_name, new_field.wire_name, old_field.wire_name
                    ),
                );
                self.field(old, old_field, new, new_field);
            } else {
                // An old client decodes an absent Option as None; a required field fails.
                self.push(
                    rule::FIELD_REMOVED,
                    !old_field.is_optional(),
                    true,
                    Some(at(old, old_field)),
                    None,
                    format!("{}.{} was removed", old.name, old_field.rust_name),
                );
            }
        }
        for new_field in added {
            self.push(
                rule::FIELD_ADDED,
                false,
                false,
                None,
                Some(at(new, new_field)),
                format!(
                    "{}.{} was added ({})",
                    new.name,
                    new_field.rust_name,
                    rust_type::field_type(new_field)
                ),
            );
        }
    }

    fn field(
        &mut self,
        old_record: &'a Record,
        old: &'a Field,
        new_record: &'a Record,
        new: &'a Field,
    ) {
        let o = (
            old_record.file,
            vec![
                "types",
                old_record.name.as_str(),
                "fields",
                old.wire_name.as_str(),
            ],
        );
        let n = (
            new_record.file,
            vec![
                "types",
                new_record.name.as_str(),
                "fields",
                new.wire_name.as_str(),
            ],
        );
        let name = format!("{}.{}", new_record.name, new.rust_name);
        if old.rust_name != new.rust_name {
            self.both(
                rule::FIELD_RUST_NAME_CHANGED,
                false,
                true,
                &o,
                &n,
                format!("{}.{} became {name}", old_record.name, old.rust_name),
            );
        }
        let (old_value, new_value) = (rust_type::value_type(old), rust_type::value_type(new));
        let renamed_value = self
            .renamed_types
            .iter()
            .fold(old_value.clone(), |text, (from, to)| {
                rename_word(&text, from, to)
            });
        if self.renamed(&old.ty) != new.ty {
            let (rule, wire) = match widening(&old.ty, &new.ty) {
                // Values of the wider type do not fit an old client's narrower decoder.
                Some(true) => (rule::FIELD_TYPE_WIDENED, true),
                Some(false) => (rule::FIELD_TYPE_NARROWED, false),
                None => (rule::FIELD_TYPE_CHANGED, true),
            };
            self.both(
                rule,
                wire,
                renamed_value != new_value,
                &o,
                &n,
                format!("{name}: {old_value} -> {new_value}"),
            );
        } else if old.encoding != new.encoding {
            let wire = !old_decoder_accepts(old, new);
            self.both(
                rule::FIELD_ENCODING_CHANGED,
                wire,
                renamed_value != new_value,
                &o,
                &n,
                format!(
                    "{name}: sent as {} -> {}{}",
                    encodings(old),
                    encodings(new),
                    if old_value != new_value {
                        format!(" (Rust type {old_value} -> {new_value})")
                    } else {
                        String::new()
                    }
                ),
            );
        }
        match (old.is_optional(), new.is_optional()) {
            (false, true) if new.nullable && !old.nullable => self.both(
                rule::FIELD_BECAME_NULLABLE,
                true,
                true,
                &o,
                &n,
                format!("{name} may now be null (now Option)"),
            ),
            (false, true) => self.both(
                rule::FIELD_BECAME_OPTIONAL,
                true,
                true,
                &o,
                &n,
                format!("{name} may now be absent or none (now Option)"),
            ),
            (true, false) => self.both(
                rule::FIELD_BECAME_REQUIRED,
                false,
                true,
                &o,
                &n,
                format!("{name} is now always present (no longer Option)"),
            ),
            (true, true) if new.nullable && !old.nullable => self.both(
                rule::FIELD_BECAME_NULLABLE,
                true,
                false,
                &o,
                &n,
                format!("{name} may now be null"),
            ),
            _ => {}
        }
        if old.presence != new.presence && old.is_optional() == new.is_optional() {
            self.both(
                rule::DOC_CHANGED,
                false,
                false,
                &o,
                &n,
                format!("{name}: presence {:?} -> {:?}", old.presence, new.presence),
            );
        }
        if old.documented_as != new.documented_as || old.documented_type != new.documented_type {
            self.both(
                rule::DOC_CHANGED,
                false,
                false,
                &o,
                &n,
                format!(
                    "{name}: documented as {:?}/{:?} -> {:?}/{:?}",
                    old.documented_as, old.documented_type, new.documented_as, new.documented_type
                ),
            );
        }
        self.doc(&old.doc, &new.doc, o, n);
    }

    // ---- enums, errors, service ---------------------------------------------------------------

    fn enums(&mut self) {
        let (base, head) = (self.base.api, self.head.api);
        let at = |e: &'a Enum| -> Place<'a> { (e.file, vec!["enums", e.name.as_str()]) };
        for new in &head.enums {
            let known = base
                .enums
                .iter()
                .any(|old| self.renamed_types.get(&old.name).unwrap_or(&old.name) == &new.name);
            if !known {
                self.push(
                    rule::TYPE_ADDED,
                    false,
                    false,
                    None,
                    Some(at(new)),
                    format!("enum {} was added", new.name),
                );
            }
        }
        for old in &base.enums {
            let new_name = self
                .renamed_types
                .get(&old.name)
                .unwrap_or(&old.name)
                .clone();
            let Some(new) = find(&head.enums, |e| e.name == new_name) else {
                self.push(
                    rule::TYPE_REMOVED,
                    false,
                    true,
                    Some(at(old)),
                    None,
                    format!("enum {} was removed", old.name),
                );
                continue;
            };
            if new.name != old.name {
                self.push(
                    rule::TYPE_RENAMED,
                    false,
                    true,
                    Some(at(old)),
                    Some(at(new)),
                    format!("enum {} was renamed {}", old.name, new.name),
                );
            }
            self.doc(&old.doc, &new.doc, at(old), at(new));
            match (old.open, new.open) {
                (false, true) => self.push(
                    rule::ENUM_OPENED,
                    false,
                    false,
                    Some(at(old)),
                    Some(at(new)),
                    format!("{} now keeps unknown values in Other", new.name),
                ),
                (true, false) => self.push(
                    rule::ENUM_CLOSED,
                    false,
                    true,
                    Some(at(old)),
                    Some(at(new)),
                    format!("{} now refuses unknown values (Other removed)", new.name),
                ),
                _ => {}
            }
            for value in &old.values {
                let place = (
                    old.file,
                    vec!["enums", old.name.as_str(), "values", value.wire.as_str()],
                );
                match find(&new.values, |v| v.wire == value.wire) {
                    None => self.push(
                        rule::ENUM_VALUE_REMOVED,
                        false,
                        true,
                        Some(place),
                        None,
                        format!(
                            "{}::{} ({:?}) was removed",
                            old.name, value.variant, value.wire
                        ),
                    ),
                    Some(kept) => self.doc(
                        &value.doc,
                        &kept.doc,
                        place,
                        (
                            new.file,
                            vec!["enums", new.name.as_str(), "values", kept.wire.as_str()],
                        ),
                    ),
                }
            }
            for value in &new.values {
                if find(&old.values, |v| v.wire == value.wire).is_none() {
                    // An old client of a closed enum refuses the new value.
                    self.push(
                        rule::ENUM_VALUE_ADDED,
                        !old.open,
                        false,
                        None,
                        Some((
                            new.file,
                            vec!["enums", new.name.as_str(), "values", value.wire.as_str()],
                        )),
                        format!(
                            "{}::{} ({:?}) was added",
                            new.name, value.variant, value.wire
                        ),
                    );
                }
            }
        }
    }

    fn errors(&mut self) {
        let (base, head) = (self.base.api, self.head.api);
        for old in &base.errors {
            let place = (old.file, vec!["errors", old.code.as_str()]);
            match find(&head.errors, |e| e.code == old.code) {
                None => self.push(
                    rule::ERROR_CODE_REMOVED,
                    false,
                    true,
                    Some(place),
                    None,
                    format!("ErrorCode::{} ({}) was removed", old.variant, old.code),
                ),
                Some(new) => self.doc(
                    &old.doc,
                    &new.doc,
                    place,
                    (new.file, vec!["errors", new.code.as_str()]),
                ),
            }
        }
        for new in &head.errors {
            if find(&base.errors, |e| e.code == new.code).is_none() {
                self.push(
                    rule::ERROR_CODE_ADDED,
                    false,
                    false,
                    None,
                    Some((new.file, vec!["errors", new.code.as_str()])),
                    format!("ErrorCode::{} ({}) was added", new.variant, new.code),
                );
            }
        }
    }

    fn service(&mut self) {
        let base = service_constants(self.base.api);
        let head = service_constants(self.head.api);
        let names: std::collections::BTreeSet<&String> = base.keys().chain(head.keys()).collect();
        for name in names {
            let (old, new) = (base.get(name), head.get(name));
            let value = |entry: Option<&(String, Place<'a>)>| {
                entry.map_or("none".to_owned(), |(v, _)| v.clone())
            };
            if value(old) != value(new) {
                // A lifetime change does not break a request; a path or method does.
                let wire = name != "token lifetime";
                let message = format!("{name}: {} -> {}", value(old), value(new));
                self.push(
                    rule::SERVICE_CHANGED,
                    wire,
                    false,
                    old.map(|(_, p)| p.clone()),
                    new.map(|(_, p)| p.clone()),
                    message,
                );
            }
        }
    }
}

/// The service's constants by name: value and place.
fn service_constants(api: &Api) -> BTreeMap<String, (String, Place<'_>)> {
    let mut constants = BTreeMap::new();
    if let Some(info) = &api.info {
        constants.insert(
            "data path".to_owned(),
            (
                info.data_path.clone(),
                (info.file, vec!["api", "data_path"]),
            ),
        );
        constants.insert(
            "api version".to_owned(),
            (
                info.api_version.to_string(),
                (info.file, vec!["api", "api_version"]),
            ),
        );
    }
    if let Some(oauth) = &api.oauth {
        constants.insert(
            "token lifetime".to_owned(),
            (
                oauth.token_lifetime_seconds.to_string(),
                (oauth.file, vec!["oauth", "token_lifetime_seconds"]),
            ),
        );
        constants.insert(
            "signature method".to_owned(),
            (
                oauth.signature_method.clone(),
                (oauth.file, vec!["oauth", "signature_method"]),
            ),
        );
        for endpoint in &oauth.endpoints {
            constants.insert(
                format!("{} endpoint", endpoint.name),
                (
                    format!("{} {}", endpoint.method, endpoint.path),
                    (
                        oauth.file,
                        vec!["oauth", "endpoints", endpoint.name.as_str()],
                    ),
                ),
            );
        }
    }
    constants
}

impl Differ<'_> {
    /// `ty` with the names of renamed types replaced by their new names.
    fn renamed(&self, ty: &TypeRef) -> TypeRef {
        match ty {
            TypeRef::Record(name) => {
                TypeRef::Record(self.renamed_types.get(name).unwrap_or(name).clone())
            }
            TypeRef::Enum(name) => {
                TypeRef::Enum(self.renamed_types.get(name).unwrap_or(name).clone())
            }
            TypeRef::List(element) => TypeRef::List(Box::new(self.renamed(element))),
            TypeRef::Scalar(_) => ty.clone(),
        }
    }
}

/// Types and enums that exist under a new name only, with the same fields (or values).
fn renamed_types(base: &Api, head: &Api) -> BTreeMap<String, String> {
    let mut renames = BTreeMap::new();
    let fields = |r: &Record| {
        (
            r.opaque,
            r.fields
                .iter()
                .map(|f| f.wire_name.clone())
                .collect::<Vec<_>>(),
        )
    };
    let mut added: Vec<&Record> = head
        .records
        .iter()
        .filter(|r| find(&base.records, |b| b.name == r.name).is_none())
        .collect();
    for old in base
        .records
        .iter()
        .filter(|r| find(&head.records, |h| h.name == r.name).is_none())
    {
        if let Some(index) = added.iter().position(|new| fields(new) == fields(old)) {
            renames.insert(old.name.clone(), added.remove(index).name.clone());
        }
    }
    let values = |e: &Enum| e.values.iter().map(|v| v.wire.clone()).collect::<Vec<_>>();
    let mut added: Vec<&Enum> = head
        .enums
        .iter()
        .filter(|e| find(&base.enums, |b| b.name == e.name).is_none())
        .collect();
    for old in base
        .enums
        .iter()
        .filter(|e| find(&head.enums, |h| h.name == e.name).is_none())
    {
        if let Some(index) = added.iter().position(|new| values(new) == values(old)) {
            renames.insert(old.name.clone(), added.remove(index).name.clone());
        }
    }
    renames
}

/// `text` with the whole word `from` replaced by `to`.
fn rename_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            out.push_str(if word == from { to } else { &word });
            word.clear();
            out.push(c);
        }
    }
    out.pop();
    out
}

/// The first 60 characters of a doc, on one line.
fn short(doc: &str) -> String {
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// What differs between two paging rules, e.g. `beyond_last above_total -> at_or_above_total`.
fn paging_change(old: &crate::ir::Paging, new: &crate::ir::Paging) -> String {
    let rule = |b: crate::ir::BeyondLast| match b {
        crate::ir::BeyondLast::AboveTotal => "above_total",
        crate::ir::BeyondLast::AtOrAboveTotal => "at_or_above_total",
    };
    let fields = [
        ("page_param", old.page_param.clone(), new.page_param.clone()),
        ("size_param", old.size_param.clone(), new.size_param.clone()),
        ("items", old.items.clone(), new.items.clone()),
        (
            "total_pages",
            format!("{:?}", old.total_pages),
            format!("{:?}", new.total_pages),
        ),
        (
            "beyond_last",
            rule(old.beyond_last).to_owned(),
            rule(new.beyond_last).to_owned(),
        ),
    ];
    fields
        .iter()
        .filter(|(_, a, b)| a != b)
        .map(|(name, a, b)| format!("{name} {a} -> {b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn find<T>(items: &[T], predicate: impl Fn(&T) -> bool) -> Option<&T> {
    items.iter().find(|item| predicate(item))
}

fn param_names(method: &Method) -> Vec<&str> {
    method.params.iter().map(|p| p.wire_name.as_str()).collect()
}

fn encodings(field: &Field) -> String {
    field
        .encoding
        .distinct()
        .iter()
        .map(|e| e.spec_name())
        .collect::<Vec<_>>()
        .join("/")
}

/// `Some(true)` when `new` takes every value of `old` and more, `Some(false)` the reverse,
/// `None` when neither holds.
fn widening(old: &TypeRef, new: &TypeRef) -> Option<bool> {
    let rank = |ty: &TypeRef| match ty {
        TypeRef::Scalar(Scalar::Id) => Some(0),
        TypeRef::Scalar(Scalar::Integer) => Some(1),
        TypeRef::Scalar(Scalar::Decimal) => Some(2),
        TypeRef::Scalar(Scalar::String) => Some(3),
        _ => None,
    };
    match (old, new) {
        (TypeRef::List(a), TypeRef::List(b)) => widening(a, b),
        (TypeRef::Enum(_), TypeRef::Scalar(Scalar::String)) => Some(true),
        (TypeRef::Scalar(Scalar::String), TypeRef::Enum(_)) => Some(false),
        _ => match (rank(old)?, rank(new)?) {
            (a, b) if a < b => Some(true),
            (a, b) if a > b => Some(false),
            _ => None,
        },
    }
}

/// Whether an old client's decoder for `old` accepts what the server sends for `new`: decoders
/// take every encoding of their type, except that a day and an instant are different things.
fn old_decoder_accepts(old: &Field, new: &Field) -> bool {
    match rust_type::value_type(old).as_str() {
        "Date" | "Option<Date>" => !new
            .encoding
            .distinct()
            .contains(&crate::ir::Encoding::Epoch),
        "Timestamp" => !new.encoding.distinct().contains(&crate::ir::Encoding::Dmy),
        _ => true,
    }
}
