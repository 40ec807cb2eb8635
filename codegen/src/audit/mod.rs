//! `cargo xtask spec-audit`: the spec checked against the reference it transcribes.
//!
//! The reference (`../shared/marketplace-api.md`) is read by [`reference`](mod@reference) into the fields and
//! parameters it documents, with their types; [`audit`] then walks the resolved spec beside it
//! and reports, each located in the spec and in the reference:
//!
//! - [`FindingKind::MissingInSpec`]: a documented resource, method, field, parameter, envelope
//!   field or token-response variable the spec does not describe;
//! - [`FindingKind::UndocumentedInSpec`]: a spec type, method, field, parameter or variable the
//!   reference does not document;
//! - [`FindingKind::NarrowerThanReference`]: a spec type that would refuse some value the
//!   reference's type allows (below), with no `narrowed:` key saying why;
//! - [`FindingKind::StaleEvidence`]: a `narrowed:` key on a field or parameter whose type is not
//!   narrower than the reference's;
//! - [`FindingKind::EvidenceNotInReference`]: a `narrowed:` key quoting text the reference does
//!   not contain.
//!
//! How spec and reference are paired: a spec type is the resource it is `documented_as` (or
//! the resource of its own name); a method's `response` type is the method's `data:` line; a
//! field whose reference type is an object documented in place (`billing, an object with …`)
//! pairs the spec type of that field with the object. Fields match by wire name, or by the
//! name the reference documents (`documented_as`). The envelope's fields are not spec fields:
//! `api` is each method's name (or its `delivered_api`), `apiVersion` is `api.api_version`,
//! `data` each method's `response`, and `rcode` is read by the client runtime.
//!
//! # Narrower than the reference
//!
//! A spec type is narrower than the reference's when some value the reference's type allows
//! would fail to decode with the decoder the spec's type selects. So it is decided by what the
//! runtime decoders accept (`marketplace_client::wire`), not by names:
//!
//! - Values are sorted into disjoint kinds: text an enum lists, `DD-MON-YY` text, other text,
//!   epoch seconds, other integers, fractions, booleans. A type is the set of kinds it admits,
//!   and the spec's is narrower when the reference's has a kind the spec's lacks.
//! - The JSON form does not count: the reference says values are strings "cast by the
//!   documented type", and every numeric decoder takes a number or its digits as a string.
//! - `string` admits all text (and numbers too with `string_or_number`); an open enum admits
//!   all text (unknown values are kept in `Other`), a closed one only the values it lists; `id`,
//!   `count` and `integer` admit integers; `decimal` numbers; a `date` the formats of its
//!   encodings (`dmy`: `DD-MON-YY` text, `epoch`: epoch seconds). So `id`, `integer`,
//!   `decimal`, `date` or a closed enum from a `string` is narrower, `count` from a `number` is
//!   narrower, and `decimal` from a `number`, an open enum from a `string`, `date` with
//!   `encoding: epoch` from an epoch `integer` are not.
//! - Signedness is not width: `id` and `count` decode to `u64` where the reference says
//!   `integer`, and they are the same width. The reference's integers are IDs, counts, page
//!   numbers and epochs, none of them negative ("a value of 0 in a date or ID field means
//!   none"), and a spec that says `id` or `count` states that the value is one of those. A
//!   field the reference calls `integer` that may be negative is typed `integer` (`i64`).
//! - Records match by the reference's name (`documented_as`), collections by their elements;
//!   a collection whose element type the reference does not state admits any element. A field
//!   delivered per method in different formats admits all of them (the decoders do not vary
//!   by method).
//! - Parameters are judged the same way, by what the spec lets a caller send.
//!
//! The audit lives beside the IR because it judges the decoders the generator selects for each
//! spec type, and it reuses the resolver's location index for spec positions. Spec items are
//! found by name through maps ([`Lookup`], a field index per record), and every `narrowed:`
//! quote is looked up in one pass over the reference, so the audit is linear in the spec and
//! the reference.

mod quotes;
pub mod reference;
mod width;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use crate::SpecSource;
use crate::ir::{self, Api, Field, Lookup, Method, Record, TypeRef};
use crate::items::{ItemKind, Items};
use crate::location::{LineCol, SourceIndexes};

use reference::{RefField, RefMethod, RefType, Reference};
use width::{Shape, SpecTypes, is_narrower, param_shape, reference_shape, spec_shape};

pub use reference::{ReferenceError, ReferenceErrors, parse_reference};

/// What kind of disagreement a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// The reference documents it; the spec does not describe it.
    MissingInSpec,
    /// The spec describes it; the reference does not document it.
    UndocumentedInSpec,
    /// The spec's type refuses values the reference's type allows, and says not why.
    NarrowerThanReference,
    /// `narrowed:` on a type that is not narrower.
    StaleEvidence,
    /// `narrowed:` quotes text the reference does not contain.
    EvidenceNotInReference,
}

impl FindingKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [FindingKind; 5] = [
        FindingKind::MissingInSpec,
        FindingKind::UndocumentedInSpec,
        FindingKind::NarrowerThanReference,
        FindingKind::StaleEvidence,
        FindingKind::EvidenceNotInReference,
    ];

    /// The stable id, as printed.
    pub fn id(self) -> &'static str {
        match self {
            FindingKind::MissingInSpec => "missing-in-spec",
            FindingKind::UndocumentedInSpec => "undocumented-in-spec",
            FindingKind::NarrowerThanReference => "narrower-than-reference",
            FindingKind::StaleEvidence => "stale-evidence",
            FindingKind::EvidenceNotInReference => "evidence-not-in-reference",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Where a finding is in the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecPlace {
    /// The spec file, as loaded (e.g. `spec/api.yaml`).
    pub file: String,
    /// Line and column, when known.
    pub location: Option<LineCol>,
    /// The path inside the spec, e.g. `types.Bid.fields.jobId`.
    pub path: String,
}

/// The line of the reference that documents what a finding is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferencePlace {
    /// The reference, as named (e.g. `../shared/marketplace-api.md`).
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// What the reference says there (a table row, a list item, a heading).
    pub text: String,
}

/// One disagreement between the spec and the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What kind.
    pub kind: FindingKind,
    /// Where in the spec; `None` when the spec has nothing to point at (a missing method).
    pub spec: Option<SpecPlace>,
    /// Where in the reference; `None` when the reference has nothing to point at.
    pub reference: Option<ReferencePlace>,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// `spec/api.yaml:142:7: narrower-than-reference: types.Bid.fields.jobId: … [ref.md:63: | jobId | string | |]`
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.spec, &self.reference) {
            (Some(spec), reference) => {
                write!(f, "{}", spec.file)?;
                if let Some(LineCol { line, column }) = spec.location {
                    write!(f, ":{line}:{column}")?;
                }
                write!(f, ": {}: {}: {}", self.kind, spec.path, self.message)?;
                if let Some(reference) = reference {
                    write!(
                        f,
                        " [{}:{}: {}]",
                        reference.file, reference.line, reference.text
                    )?;
                }
                Ok(())
            }
            (None, Some(reference)) => write!(
                f,
                "{}:{}: {}: {} [{}]",
                reference.file, reference.line, self.kind, self.message, reference.text
            ),
            (None, None) => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

/// What [`audit`] found, and what it judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecAudit {
    /// The findings, in spec file and line order, then those only the reference locates.
    pub findings: Vec<Finding>,
    /// The spec's items judged against the reference: every method and type, the parameters
    /// of the methods the reference documents, the fields of the types it pairs with a
    /// resource, a `data:` line or an object, the OAuth endpoints whose variables it lists.
    /// Nothing when the reference documents nothing: there is nothing to judge them against.
    pub judged: Items,
    /// How many items the reference documents: envelope fields, resources and methods with
    /// their fields and parameters, token endpoints with their variables.
    pub documented: usize,
}

/// Audits the resolved `api` (loaded from `sources`, in the same order) against `reference`.
pub fn audit(api: &Api, sources: &[SpecSource], reference: &Reference) -> SpecAudit {
    let mut auditor = Auditor {
        api,
        lookup: api.lookup(),
        fields: HashMap::new(),
        sources,
        locations: SourceIndexes::new(sources),
        reference,
        findings: Vec::new(),
        judged: Items::default(),
    };
    auditor.run();
    let documented = documented_items(reference);
    let judged = if documented == 0 {
        Items::default()
    } else {
        auditor.judged
    };
    let mut findings = auditor.findings;
    let mut files: HashMap<&str, usize> = HashMap::new();
    for (at, source) in sources.iter().enumerate() {
        files.entry(source.path.as_str()).or_insert(at);
    }
    let file_order = |file: &str| files.get(file).copied();
    findings.sort_by_cached_key(|finding| {
        let spec = finding.spec.as_ref().map(|spec| {
            let at = spec.location.map(|l| (l.line, l.column));
            (file_order(&spec.file), at, spec.path.clone())
        });
        let reference = finding.reference.as_ref().map(|r| r.line);
        (spec.is_none(), spec, reference, finding.kind)
    });
    findings.dedup();
    SpecAudit {
        findings,
        judged,
        documented,
    }
}

/// How many items `reference` documents (see [`SpecAudit::documented`]).
fn documented_items(reference: &Reference) -> usize {
    let resources: usize = reference
        .resources
        .values()
        .map(|resource| 1 + resource.fields.as_ref().map_or(0, Vec::len))
        .sum();
    let methods: usize = reference
        .methods
        .values()
        .map(|method| 1 + method.params.len() + method.data.as_ref().map_or(0, Vec::len))
        .sum();
    let token_endpoints: usize = reference
        .token_responses
        .iter()
        .map(|endpoint| 1 + endpoint.variables.as_ref().map_or(0, Vec::len))
        .sum();
    reference.envelope.len() + resources + methods + token_endpoints
}

/// The envelope's fields the client reads: `api` (each method's name, or its `delivered_api`),
/// `apiVersion` (`api.api_version`), `rcode` (the runtime requires 1) and `data` (each method's
/// `response` type).
const ENVELOPE: [&str; 4] = ["api", "apiVersion", "rcode", "data"];

/// A list of documented fields a spec record is audited against.
struct Documented<'r> {
    /// How messages name it: `the BidData table`, `the data of pay/getInvoice`.
    what: String,
    /// The line that introduces it, and its text.
    line: usize,
    source: &'r str,
    /// `None`: the reference does not show the fields.
    fields: Option<&'r [RefField]>,
}

/// A field or parameter, typed on both sides.
struct Typed<'t> {
    /// The spec file and the path of the field or parameter in it.
    file: usize,
    path: &'t [&'t str],
    /// The reference's type and where it says it.
    documented: &'t RefType,
    here: ReferencePlace,
    /// What the spec's type lets through, and the type as the spec writes it.
    spec: Shape,
    spec_type: String,
    /// The spec's `narrowed:`.
    narrowed: Option<&'t str>,
}

struct Auditor<'a> {
    api: &'a Api,
    lookup: Lookup<'a>,
    /// Per record audited (by address: an edited `Api` may repeat a name), its fields by the
    /// names a documented field may match.
    fields: HashMap<*const Record, FieldNames<'a>>,
    sources: &'a [SpecSource],
    locations: SourceIndexes<'a>,
    reference: &'a Reference,
    findings: Vec<Finding>,
    /// The spec's items judged so far.
    judged: Items,
}

impl SpecTypes for Auditor<'_> {
    fn documented_name(&self, record: &str) -> String {
        self.record_named(record)
            .map_or(record, |r| r.documented_as.as_deref().unwrap_or(&r.name))
            .to_owned()
    }

    fn is_open(&self, enumeration: &str) -> bool {
        self.lookup.enum_named(enumeration).is_none_or(|e| e.open)
    }
}

/// A record's fields by wire name and by documented name: the first of each, by position.
struct FieldNames<'a> {
    wire: HashMap<&'a str, usize>,
    documented: HashMap<&'a str, usize>,
}

impl<'a> FieldNames<'a> {
    fn of(record: &'a Record) -> Self {
        let mut names = FieldNames {
            wire: HashMap::new(),
            documented: HashMap::new(),
        };
        for (at, field) in record.fields.iter().enumerate() {
            names.wire.entry(field.wire_name.as_str()).or_insert(at);
            if let Some(documented) = &field.documented_as {
                names.documented.entry(documented.as_str()).or_insert(at);
            }
        }
        names
    }

    /// The first field (in record order) that is `documented` by its wire name, by its own
    /// documented name, or that the reference says `documented` is delivered as.
    fn matching(&self, documented: &RefField) -> Option<usize> {
        let by_wire = self.wire.get(documented.name.as_str());
        let by_documented = self.documented.get(documented.name.as_str());
        let delivered_as = documented
            .documented_as
            .as_deref()
            .and_then(|name| self.wire.get(name));
        [by_wire, by_documented, delivered_as]
            .into_iter()
            .flatten()
            .min()
            .copied()
    }
}

impl<'a> Auditor<'a> {
    fn record_named(&self, name: &str) -> Option<&'a Record> {
        self.lookup.record_named(name)
    }

    fn spec_place(&self, file: usize, path: &[&str], key: Option<&str>) -> SpecPlace {
        let mut full: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
        full.extend(key.map(str::to_owned));
        SpecPlace {
            file: self
                .sources
                .get(file)
                .map_or_else(String::new, |s| s.path.clone()),
            location: self.locations.find(file, &full),
            path: path.join("."),
        }
    }

    /// Where `item` stands in the list at `path` of the spec file `file`, as the file writes
    /// it: the IR sorts the lists that are sets (`resolve::as_set`).
    fn written_index(&self, file: usize, path: &[&str], item: &str) -> Option<usize> {
        let list = self.sources.get(file)?.written_list(path)?;
        list.iter().position(|written| written == item)
    }

    fn reference_place(&self, line: usize, text: &str) -> ReferencePlace {
        ReferencePlace {
            file: self.reference.path.clone(),
            line,
            text: text.trim().to_owned(),
        }
    }

    fn report(
        &mut self,
        kind: FindingKind,
        spec: Option<SpecPlace>,
        reference: Option<ReferencePlace>,
        message: String,
    ) {
        self.findings.push(Finding {
            kind,
            spec,
            reference,
            message,
        });
    }

    fn run(&mut self) {
        let reference = self.reference;
        let mut queue: Vec<(&'a Record, Documented<'a>)> = Vec::new();
        let mut paired_resources = BTreeSet::new();
        for record in &self.api.records {
            // Paired with a resource, an object or a data: line below, or reported alone.
            self.judged.insert(ItemKind::Type, &record.name);
            let name = record.documented_as.as_deref().unwrap_or(&record.name);
            if let Some(resource) = reference.resources.get(name) {
                paired_resources.insert(name);
                queue.push((
                    record,
                    Documented {
                        what: format!("the {name} resource"),
                        line: resource.line,
                        source: &resource.source,
                        fields: resource.fields.as_deref(),
                    },
                ));
            }
        }
        for method in &self.api.methods {
            self.judged.insert(ItemKind::Method, &method.name);
            match reference.methods.get(&method.name) {
                Some(documented) => {
                    self.params(method, documented);
                    let response = self.record_named(method.response.as_str());
                    if let (Some(record), Some(data)) = (response, &documented.data) {
                        queue.push((
                            record,
                            Documented {
                                what: format!("the data of {}", method.name),
                                line: documented.data_line,
                                source: &documented.data_source,
                                fields: Some(data),
                            },
                        ));
                    }
                }
                None => {
                    let place = self.spec_place(method.file, &["methods", &method.name], None);
                    let message = "the reference documents no such method; a method the service \
                                   added is added to the reference first"
                        .to_owned();
                    self.report(FindingKind::UndocumentedInSpec, Some(place), None, message);
                }
            }
        }
        for documented in reference.methods.values() {
            if self.lookup.method_named(&documented.name).is_none() {
                let heading = format!("### {}", documented.name);
                let place = self.reference_place(documented.line, &heading);
                let message = format!("method {} is not in the spec", documented.name);
                self.report(FindingKind::MissingInSpec, None, Some(place), message);
            }
        }

        let mut paired_records = BTreeSet::new();
        let mut next = 0;
        while let Some((record, documented)) = queue.get(next) {
            paired_records.insert(record.name.as_str());
            let inline = self.record(record, documented);
            queue.extend(inline);
            next += 1;
        }
        for record in &self.api.records {
            if !paired_records.contains(record.name.as_str()) {
                let place = self.spec_place(record.file, &["types", &record.name], None);
                let message = match &record.documented_as {
                    Some(name) => {
                        format!("documented_as '{name}' names no resource of the reference")
                    }
                    None => {
                        let undocumented: Vec<&str> = record
                            .delivered_by
                            .iter()
                            .map(|method| method.as_str())
                            .filter(|method| !reference.methods.contains_key(*method))
                            .collect();
                        if !undocumented.is_empty()
                            && undocumented.len() == record.delivered_by.len()
                        {
                            format!(
                                "no resource, data: line or object of the reference documents it, \
                                 nor a method delivering it ({}); a type the service added is \
                                 added to the reference first, with its method; else set \
                                 documented_as to the resource it decodes",
                                undocumented.join(", ")
                            )
                        } else {
                            "no resource, data: line or object of the reference documents it; \
                             set documented_as to the resource it decodes"
                                .to_owned()
                        }
                    }
                };
                self.report(FindingKind::UndocumentedInSpec, Some(place), None, message);
            }
        }
        for resource in reference.resources.values() {
            if !paired_resources.contains(resource.name.as_str()) {
                let place = self.reference_place(resource.line, &resource.source);
                let message = format!(
                    "resource {} has no spec type (the type that decodes it says documented_as: {})",
                    resource.name, resource.name
                );
                self.report(FindingKind::MissingInSpec, None, Some(place), message);
            }
        }
        self.envelope();
        self.token_responses();
        self.evidence_quotes();
    }

    /// Audits a record's fields; returns the records to audit against objects documented in
    /// place.
    fn record(
        &mut self,
        record: &'a Record,
        documented: &Documented<'a>,
    ) -> Vec<(&'a Record, Documented<'a>)> {
        let name = record.name.as_str();
        let Some(fields) = documented.fields else {
            if !record.opaque {
                for field in &record.fields {
                    self.judged
                        .insert(ItemKind::Field, &format!("{name}.{}", field.wire_name));
                    let place = self.field_place(record, field, None);
                    let here = self.reference_place(documented.line, documented.source);
                    let message = format!(
                        "{} does not show its fields; mark the type opaque",
                        documented.what
                    );
                    self.report(
                        FindingKind::UndocumentedInSpec,
                        Some(place),
                        Some(here),
                        message,
                    );
                }
            }
            return Vec::new();
        };
        let mut inline = Vec::new();
        let mut matched = BTreeSet::new();
        let names = self
            .fields
            .entry(std::ptr::from_ref(record))
            .or_insert_with(|| FieldNames::of(record));
        let found: Vec<Option<&'a Field>> = fields
            .iter()
            .map(|documented| {
                names
                    .matching(documented)
                    .and_then(|at| record.fields.get(at))
            })
            .collect();
        for (documented_field, found) in fields.iter().zip(found) {
            let here = self.reference_place(documented_field.line, &documented_field.source);
            let Some(field) = found.filter(|_| !record.opaque) else {
                let key = if record.opaque { "opaque" } else { "fields" };
                let place = self.spec_place(record.file, &["types", name], Some(key));
                let message = format!(
                    "{} ({}) is documented in {} but not in the spec",
                    documented_field.name, documented_field.ty, documented.what
                );
                self.report(FindingKind::MissingInSpec, Some(place), Some(here), message);
                continue;
            };
            matched.insert(field.wire_name.as_str());
            self.judged
                .insert(ItemKind::Field, &format!("{name}.{}", field.wire_name));
            if let (RefType::Inline(object), TypeRef::Record(inner)) =
                (&documented_field.ty, &field.ty)
            {
                if let Some(inner) = self.record_named(inner.as_str()) {
                    inline.push((
                        inner,
                        Documented {
                            what: format!("{} in {}", documented_field.name, documented.what),
                            line: documented_field.line,
                            source: &documented_field.source,
                            fields: Some(object),
                        },
                    ));
                }
            }
            let encodings = field.encoding.distinct();
            self.judge_width(Typed {
                file: record.file,
                path: &["types", name, "fields", &field.wire_name],
                documented: &documented_field.ty,
                here,
                spec: spec_shape(&field.ty, &encodings, &*self),
                spec_type: self.field_type_text(field),
                narrowed: field.narrowed.as_deref(),
            });
        }
        for field in &record.fields {
            if !matched.contains(field.wire_name.as_str()) {
                self.judged
                    .insert(ItemKind::Field, &format!("{name}.{}", field.wire_name));
                let place = self.field_place(record, field, None);
                let here = self.reference_place(documented.line, documented.source);
                let message = format!("not documented in {}", documented.what);
                self.report(
                    FindingKind::UndocumentedInSpec,
                    Some(place),
                    Some(here),
                    message,
                );
            }
        }
        inline
    }

    fn field_place(&self, record: &Record, field: &Field, key: Option<&str>) -> SpecPlace {
        let path = ["types", record.name.as_str(), "fields", &field.wire_name];
        self.spec_place(record.file, &path, key)
    }

    /// Reports a narrower type without evidence, or evidence on a type that is not narrower.
    fn judge_width(&mut self, typed: Typed<'_>) {
        let Typed {
            file,
            path,
            documented,
            here,
            spec,
            spec_type,
            narrowed,
        } = typed;
        let narrower = is_narrower(&reference_shape(documented), &spec);
        match (narrower, narrowed) {
            (true, None) => {
                let place = self.spec_place(file, path, Some("type"));
                let message = format!(
                    "narrower than the reference ({documented} -> {spec_type}) with no recorded \
                     evidence: widen the type, or say why in narrowed:, quoting the reference"
                );
                self.report(
                    FindingKind::NarrowerThanReference,
                    Some(place),
                    Some(here),
                    message,
                );
            }
            (false, Some(_)) => {
                let place = self.spec_place(file, path, Some("narrowed"));
                let message = format!(
                    "narrowed: is stale: {documented} -> {spec_type} is not narrower; remove it"
                );
                self.report(FindingKind::StaleEvidence, Some(place), Some(here), message);
            }
            _ => {}
        }
    }

    /// The spec type as the spec writes it, with what decides its width.
    fn field_type_text(&self, field: &Field) -> String {
        let encodings = field.encoding.distinct();
        let names: Vec<&str> = encodings.iter().map(|e| e.spec_name()).collect();
        match &field.ty {
            TypeRef::Scalar(ir::Scalar::Date) => format!("date ({})", names.join(", ")),
            TypeRef::Scalar(ir::Scalar::String)
                if encodings
                    .iter()
                    .any(|e| e.info().reader == ir::Reader::Lenient) =>
            {
                format!("string ({})", names.join(", "))
            }
            TypeRef::Enum(name) if self.is_open(name.as_str()) => format!("{name} (open enum)"),
            TypeRef::Enum(name) => format!("{name} (closed enum)"),
            other => other.spec_name(),
        }
    }

    fn params(&mut self, method: &'a Method, documented: &'a RefMethod) {
        let name = method.name.as_str();
        let mut params = HashMap::new();
        for param in &method.params {
            params.entry(param.wire_name.as_str()).or_insert(param);
        }
        let documented_names: HashSet<&str> =
            documented.params.iter().map(|p| p.name.as_str()).collect();
        for param in &method.params {
            self.judged
                .insert(ItemKind::Parameter, &format!("{name}.{}", param.wire_name));
        }
        for documented_param in &documented.params {
            let here = self.reference_place(documented_param.line, &documented_param.source);
            let Some(param) = params.get(documented_param.name.as_str()) else {
                let place = self.spec_place(method.file, &["methods", name, "params"], None);
                let message = format!(
                    "parameter {} ({}) is documented but not in the spec",
                    documented_param.name, documented_param.ty
                );
                self.report(FindingKind::MissingInSpec, Some(place), Some(here), message);
                continue;
            };
            let spec_type = param.ty.spec_name().to_owned();
            let path = ["methods", name, "params", &param.wire_name];
            self.judge_width(Typed {
                file: method.file,
                path: &path,
                documented: &documented_param.ty,
                here,
                spec: param_shape(param.ty),
                spec_type,
                narrowed: param.narrowed.as_deref(),
            });
        }
        for param in &method.params {
            if !documented_names.contains(param.wire_name.as_str()) {
                let path = ["methods", name, "params", &param.wire_name];
                let place = self.spec_place(method.file, &path, None);
                let heading = format!("### {name}");
                let here = self.reference_place(documented.line, &heading);
                let message = format!(
                    "the reference documents no parameter {} of {name}",
                    param.wire_name
                );
                self.report(
                    FindingKind::UndocumentedInSpec,
                    Some(place),
                    Some(here),
                    message,
                );
            }
        }
    }

    fn envelope(&mut self) {
        let file = self.api.info.as_ref().map_or(0, |info| info.file);
        for field in &self.reference.envelope {
            if !ENVELOPE.contains(&field.name.as_str()) {
                let place = self.spec_place(file, &["api"], None);
                let here = self.reference_place(field.line, &field.source);
                let message = format!(
                    "the envelope field {} is documented but the client reads only {}",
                    field.name,
                    ENVELOPE.join(", ")
                );
                self.report(FindingKind::MissingInSpec, Some(place), Some(here), message);
            }
        }
    }

    fn token_responses(&mut self) {
        let Some(oauth) = &self.api.oauth else { return };
        for documented in &self.reference.token_responses {
            let Some(variables) = &documented.variables else {
                continue;
            };
            let here = self.reference_place(documented.line, &documented.source);
            let suffix = format!("/{}", documented.endpoint);
            let Some(endpoint) = oauth.endpoints.iter().find(|e| e.path.ends_with(&suffix)) else {
                let place = self.spec_place(oauth.file, &["oauth", "endpoints"], None);
                let message = format!(
                    "the token endpoint {} is documented but no endpoint's path ends in {suffix}",
                    documented.endpoint
                );
                self.report(FindingKind::MissingInSpec, Some(place), Some(here), message);
                continue;
            };
            self.judged.insert(ItemKind::OAuthEndpoint, &endpoint.name);
            let path = ["oauth", "endpoints", endpoint.name.as_str(), "response"];
            let in_spec: HashSet<&String> = endpoint.response.iter().collect();
            let documented: HashSet<&String> = variables.iter().collect();
            for variable in variables {
                if !in_spec.contains(variable) {
                    let place = self.spec_place(oauth.file, &path, None);
                    let message = format!("{variable} is documented but not in the spec");
                    self.report(
                        FindingKind::MissingInSpec,
                        Some(place),
                        Some(here.clone()),
                        message,
                    );
                }
            }
            for variable in &endpoint.response {
                if !documented.contains(variable) {
                    // The IR reads the list as the set it is (sorted): located as written.
                    let index = self
                        .written_index(oauth.file, &path, variable)
                        .map(|i| i.to_string());
                    let mut at = path.to_vec();
                    at.extend(index.as_deref());
                    let place = self.spec_place(oauth.file, &at, None);
                    let message = format!("{variable} is not documented by the reference");
                    self.report(
                        FindingKind::UndocumentedInSpec,
                        Some(place),
                        Some(here.clone()),
                        message,
                    );
                }
            }
        }
    }

    /// Every `narrowed:` quotes the reference word for word: every quote looked up at once.
    fn evidence_quotes(&mut self) {
        let mut evidence: Vec<(usize, [&str; 4], &str)> = Vec::new();
        for record in &self.api.records {
            for field in &record.fields {
                let path = ["types", &record.name, "fields", &field.wire_name];
                evidence.extend(field.narrowed.as_deref().map(|n| (record.file, path, n)));
            }
        }
        for method in &self.api.methods {
            for param in &method.params {
                let path = ["methods", &method.name, "params", &param.wire_name];
                evidence.extend(param.narrowed.as_deref().map(|n| (method.file, path, n)));
            }
        }
        let excerpts: Vec<&str> = evidence
            .iter()
            .flat_map(|(_, _, narrowed)| ir::quoted_excerpts(narrowed))
            .filter(|excerpt| !excerpt.trim().is_empty())
            .collect();
        let mut contained = self.reference.contains_quotes(&excerpts).into_iter();
        for (file, path, narrowed) in evidence {
            for excerpt in ir::quoted_excerpts(narrowed) {
                if excerpt.trim().is_empty() {
                    continue;
                }
                if contained.next() == Some(false) {
                    let place = self.spec_place(file, &path, Some("narrowed"));
                    let message = format!(
                        "narrowed: quotes \"{excerpt}\", which {} does not contain",
                        self.reference.path
                    );
                    self.report(
                        FindingKind::EvidenceNotInReference,
                        Some(place),
                        None,
                        message,
                    );
                }
            }
        }
    }
}
