//! The `types` section: record types, their fields, the fields' types, encodings and presence.

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;

use super::names::BUILDER_METHODS;
use super::{Defined, Names, Resolver, as_set, at};
use crate::diagnostic::{ErrorKind, did_you_mean, or_list, suggesting};
use crate::ir::{self, Encoding, FieldEncoding, Id, Presence, Scalar, TypeRef};
use crate::model::{self, EncodingDef, Optional};
use crate::naming;

impl Resolver<'_> {
    /// The type of every field of `t`, in order; `None` where it is unknown (reported).
    pub(super) fn field_types(
        &mut self,
        t: &Defined<'_, model::TypeDef>,
        names: &Names<'_>,
    ) -> Vec<Option<TypeRef>> {
        t.def
            .fields
            .iter()
            .map(|(wire, field)| {
                let path = ["types", t.name, "fields", wire];
                match parse_type(&field.ty, names) {
                    Ok(ty) => Some(ty),
                    Err(message) => {
                        self.report(
                            ErrorKind::UnknownType,
                            at(t.file, &path).key("type"),
                            message,
                        );
                        None
                    }
                }
            })
            .collect()
    }

    pub(super) fn record(
        &mut self,
        t: &Defined<'_, model::TypeDef>,
        types: &[Option<TypeRef>],
        delivered_by: &[Id<ir::Method>],
        names: &Names<'_>,
    ) -> ir::Record {
        self.check_type_name(t.file, "types", t.name, names);
        if t.def.opaque && !t.def.fields.is_empty() {
            self.report(
                ErrorKind::InvalidFields,
                at(t.file, &["types", t.name]).key("opaque"),
                "an opaque type keeps the raw object and cannot declare fields",
            );
        } else if !t.def.opaque && t.def.fields.is_empty() {
            self.report(
                ErrorKind::InvalidFields,
                at(t.file, &["types", t.name]),
                "a type needs fields; mark it `opaque: true` if the reference does not show them",
            );
        }
        let delivery = Delivery::new(delivered_by);
        let fields: Vec<ir::Field> = t
            .def
            .fields
            .iter()
            .zip(types)
            .filter_map(|((wire, field), ty)| {
                self.field(t, wire, field, ty.clone()?, &delivery, names)
            })
            .collect();
        self.check_field_names(t, &fields);
        ir::Record {
            name: t.name.to_owned(),
            documented_as: t.def.documented_as.clone(),
            doc: t.def.doc.clone(),
            opaque: t.def.opaque,
            fields,
            delivered_by: delivered_by.to_vec(),
            file: t.file,
        }
    }

    /// No record holds itself by value (through fields that are not lists, its own or other
    /// records'): each cycle is refused once, at the field that closes it.
    pub(super) fn check_containment(
        &mut self,
        types: &IndexMap<&str, Defined<'_, model::TypeDef>>,
        field_types: &HashMap<&str, Vec<Option<TypeRef>>>,
    ) {
        let contained: Vec<(&str, Vec<(&str, &str)>)> = types
            .values()
            .map(|t| {
                let fields = t
                    .def
                    .fields
                    .keys()
                    .zip(&field_types[t.name])
                    .filter_map(|(wire, ty)| Some((wire.as_str(), ty.as_ref()?)));
                (t.name, ir::contained_records(fields))
            })
            .collect();
        for cycle in ir::containment_cycles(&contained) {
            let (record, field) = cycle[cycle.len() - 1];
            let file = types[record].file;
            self.report(
                ErrorKind::RecursiveType,
                at(file, &["types", record, "fields", field]).key("type"),
                format!(
                    "the type contains itself ({}): a value would be infinite; make one of these \
                     fields a list",
                    ir::cycle_text(&cycle)
                ),
            );
        }
    }

    /// Two fields of a record must not be read from the same JSON key, become the same Rust
    /// field, nor a setter of its builder one of the builder's own methods. Each refusal of a
    /// Rust name suggests one free among the fields.
    fn check_field_names(&mut self, t: &Defined<'_, model::TypeDef>, fields: &[ir::Field]) {
        // Each JSON key is read into one field: a `documented_as` (a serde alias) that is a
        // field's wire name, or another's alias, would make the decoder's match unreachable.
        let mut keys: HashMap<&str, &str> = fields
            .iter()
            .map(|f| (f.wire_name.as_str(), f.wire_name.as_str()))
            .collect();
        for field in fields {
            let Some(alias) = field.documented_as.as_deref() else {
                continue;
            };
            match keys.get(alias) {
                Some(other) => self.report(
                    ErrorKind::DuplicateName,
                    at(t.file, &["types", t.name, "fields", &field.wire_name]).key("documented_as"),
                    format!(
                        "the JSON key '{alias}' is already read into '{other}'; a field is read \
                         from its name and its documented_as, each once in a type"
                    ),
                ),
                None => {
                    keys.insert(alias, &field.wire_name);
                }
            }
        }
        let all: HashSet<&str> = fields.iter().map(|f| f.rust_name.as_str()).collect();
        let mut suggested: Vec<String> = Vec::new();
        let mut rust_names: HashMap<&str, &str> = HashMap::new();
        for field in fields {
            let wire = field.wire_name.as_str();
            let rust = field.rust_name.as_str();
            let problem = if !t.def.opaque && BUILDER_METHODS.contains(&rust) {
                Some((
                    format!("{rust}_value"),
                    format!("its builder's setter '{rust}' would take the builder's own method"),
                ))
            } else if !t.def.opaque && naming::STD_TRAIT_METHOD_NAMES.contains(&rust) {
                Some((
                    format!("{rust}_value"),
                    format!(
                        "its builder's setter '{rust}' is the method of a standard trait \
                         (clippy: should_implement_trait)"
                    ),
                ))
            } else {
                rust_names.get(rust).map(|previous| {
                    (
                        rust.to_owned(),
                        format!("'{wire}' and '{previous}' both become the Rust field '{rust}'"),
                    )
                })
            };
            rust_names.entry(rust).or_insert(wire);
            let Some((base, problem)) = problem else {
                continue;
            };
            let suggestion = naming::suggest_snake_name(&base, "field", |candidate| {
                all.contains(candidate)
                    || suggested.iter().any(|s| s == candidate)
                    || BUILDER_METHODS.contains(&candidate)
                    || naming::STD_TRAIT_METHOD_NAMES.contains(&candidate)
            });
            self.report(
                ErrorKind::RustNameTaken,
                at(t.file, &["types", t.name, "fields", wire]),
                format!("{problem}; set rust_name{}", suggesting(&suggestion)),
            );
            suggested.push(suggestion);
        }
    }

    fn field(
        &mut self,
        t: &Defined<'_, model::TypeDef>,
        wire: &str,
        field: &model::FieldDef,
        ty: TypeRef,
        delivered_by: &Delivery<'_>,
        names: &Names<'_>,
    ) -> Option<ir::Field> {
        let path = ["types", t.name, "fields", wire];
        let file = t.file;
        let rust_name = self.rust_name(file, &path, wire, field.rust_name.as_deref())?;
        let encoding = self.encoding(file, &path, &ty, field.encoding.as_ref(), delivered_by)?;
        let presence = self.presence(file, &path, field, t.name, delivered_by);

        if field.zero_is_none {
            let zero_capable = match &ty {
                TypeRef::Scalar(Scalar::Integer | Scalar::Id | Scalar::Count) => true,
                // A date can be 0 where some method sends it as a number of seconds; the
                // decoders read every documented form in every method, so a 0 sent where the
                // field is text would otherwise be the epoch (the reference: "A value of 0 in
                // a date or ID field means none/unset").
                TypeRef::Scalar(Scalar::Date) => encoding
                    .distinct()
                    .iter()
                    .any(|e| e.info().date == Some(ir::DateForm::Instant)),
                _ => false,
            };
            if !zero_capable {
                self.report(
                    ErrorKind::InvalidZeroIsNone,
                    at(file, &path).key("zero_is_none"),
                    "zero_is_none applies to integer, id and count fields, and to dates some \
                     method sends as epoch seconds",
                );
            }
        }
        if let Some(documented) = &field.documented_type {
            if *documented == field.ty {
                self.report(
                    ErrorKind::InvalidValue,
                    at(file, &path).key("documented_type"),
                    format!(
                        "documented_type names the field's own type {documented}; it is for \
                         the type the reference documents instead (remove it)"
                    ),
                );
            } else if !names.types.contains(documented.as_str()) {
                self.report(
                    ErrorKind::UnknownType,
                    at(file, &path).key("documented_type"),
                    format!(
                        "unknown type '{documented}'{}",
                        did_you_mean(documented, names.types.iter().copied())
                    ),
                );
            }
        }
        if field.doc.trim().is_empty() {
            self.report(
                ErrorKind::EmptyDoc,
                at(file, &path).key("doc"),
                "the doc is empty",
            );
        }
        self.check_narrowed(file, &path, field.narrowed.as_deref());
        Some(ir::Field {
            wire_name: wire.to_owned(),
            rust_name,
            doc: field.doc.clone(),
            ty,
            encoding,
            presence,
            nullable: field.nullable,
            zero_is_none: field.zero_is_none,
            documented_as: field.documented_as.clone(),
            documented_type: field.documented_type.as_deref().map(Id::new),
            narrowed: field.narrowed.clone(),
        })
    }

    fn presence(
        &mut self,
        file: usize,
        path: &[&str],
        field: &model::FieldDef,
        record: &str,
        delivered_by: &Delivery<'_>,
    ) -> Presence {
        let ids = |methods: &[String]| as_set(methods.iter().map(Id::new).collect());
        match (&field.optional, &field.only_in, &field.absent_in) {
            (None | Some(Optional::Flag(false)), None, None) => Presence::Always,
            (Some(Optional::Flag(true)), None, None) => Presence::Optional(None),
            (Some(Optional::When(when)), None, None) => Presence::Optional(Some(when.clone())),
            (None, Some(methods), None) => {
                self.check_delivering(file, path, "only_in", methods, record, delivered_by);
                Presence::OnlyIn(ids(methods))
            }
            (None, None, Some(methods)) => {
                self.check_delivering(file, path, "absent_in", methods, record, delivered_by);
                Presence::AbsentIn(ids(methods))
            }
            _ => {
                self.report(
                    ErrorKind::InvalidPresence,
                    at(file, path),
                    "use only one of optional, only_in and absent_in",
                );
                Presence::Optional(None)
            }
        }
    }

    /// The field's encodings: declared (each one its type may declare, per method for exactly
    /// the methods that deliver it) or its type's default (dates have none).
    fn encoding(
        &mut self,
        file: usize,
        path: &[&str],
        ty: &TypeRef,
        declared: Option<&EncodingDef>,
        delivered_by: &Delivery<'_>,
    ) -> Option<FieldEncoding> {
        let allowed: Vec<Encoding> = ty
            .kind()
            .map(|kind| Encoding::allowed_for(kind).collect())
            .unwrap_or_default();
        let allowed_names = || allowed.iter().map(|e| e.spec_name());
        let check = |this: &mut Self, name: &str, key: &[&str]| {
            let found = allowed.iter().copied().find(|e| e.spec_name() == name);
            if found.is_none() {
                let message = if allowed.is_empty() {
                    format!("a field of type {} takes no encoding", ty.spec_name())
                } else {
                    format!(
                        "unknown encoding '{name}' for {}{}; expected {}",
                        ty.spec_name(),
                        did_you_mean(name, allowed_names()),
                        or_list(allowed_names())
                    )
                };
                let mut full = path.to_vec();
                full.extend_from_slice(key);
                this.report(
                    ErrorKind::UnknownEncoding,
                    at(file, &full).key("encoding"),
                    message,
                );
            }
            found
        };
        let Some(declared) = declared else {
            return match ty.kind() {
                // Records and enums are written as themselves.
                None => Some(FieldEncoding::Itself),
                Some(kind) => match Encoding::default_for(kind) {
                    Some(default) => Some(FieldEncoding::Uniform(default)),
                    None => {
                        self.report(
                            ErrorKind::MissingEncoding,
                            at(file, path),
                            format!(
                                "a {} field needs an encoding: {} (or one per method)",
                                ty.spec_name(),
                                or_list(allowed_names())
                            ),
                        );
                        None
                    }
                },
            };
        };
        match declared {
            EncodingDef::Uniform(name) => check(self, name, &[]).map(FieldEncoding::Uniform),
            EncodingDef::PerMethod(per_method) => {
                let mut resolved = Vec::new();
                let mut ok = true;
                for (method, name) in per_method {
                    if !delivered_by.set.contains(method.as_str()) {
                        let mut full = path.to_vec();
                        full.push("encoding");
                        self.report(
                            ErrorKind::NotDelivered,
                            at(file, &full).key(method),
                            format!(
                                "'{method}' does not deliver this field{}; it is delivered by: {}",
                                did_you_mean(method, delivered_by.methods.iter().map(Id::as_str)),
                                list_or_none(delivered_by.methods)
                            ),
                        );
                        ok = false;
                    }
                    match check(self, name, &["encoding", method]) {
                        Some(encoding) => resolved.push((Id::new(method), encoding)),
                        None => ok = false,
                    }
                }
                let missing: Vec<&str> = delivered_by
                    .methods
                    .iter()
                    .filter(|m| !per_method.contains_key(m.as_str()))
                    .map(Id::as_str)
                    .collect();
                if !missing.is_empty() {
                    self.report(
                        ErrorKind::MissingEncoding,
                        at(file, path).key("encoding"),
                        format!(
                            "the encoding is not given for: {}",
                            shortened_list(missing.iter().copied(), missing.len())
                        ),
                    );
                    ok = false;
                }
                ok.then(|| FieldEncoding::PerMethod(as_set(resolved)))
            }
        }
    }

    /// `narrowed` says why, and quotes the reference's evidence so `cargo xtask spec-audit`
    /// can find it there.
    pub(super) fn check_narrowed(&mut self, file: usize, path: &[&str], narrowed: Option<&str>) {
        let Some(text) = narrowed else { return };
        let problem = if text.trim().is_empty() {
            "narrowed is empty: say why the type is narrower than the reference's, quoting the \
             reference's evidence in double quotes"
        } else if text.matches('"').count() % 2 == 1 {
            "narrowed has an unclosed double quote"
        } else if ir::quoted_excerpts(text).all(|excerpt| excerpt.trim().is_empty()) {
            "narrowed must quote the reference's evidence in double quotes (e.g. \
             Notes say \"Numeric text\")"
        } else {
            return;
        };
        self.report(
            ErrorKind::InvalidNarrowed,
            at(file, path).key("narrowed"),
            problem,
        );
    }

    /// `only_in` / `absent_in` must name methods that deliver the record.
    fn check_delivering(
        &mut self,
        file: usize,
        path: &[&str],
        key: &str,
        methods: &[String],
        record: &str,
        delivered_by: &Delivery<'_>,
    ) {
        if methods.is_empty() {
            self.report(
                ErrorKind::InvalidPresence,
                at(file, path).key(key),
                format!("{key} lists no method"),
            );
        }
        let named: std::collections::BTreeSet<&str> = methods.iter().map(String::as_str).collect();
        if !delivered_by.methods.is_empty()
            && delivered_by
                .methods
                .iter()
                .all(|m| named.contains(m.as_str()))
        {
            let what = if key == "only_in" {
                "the field is always present: remove only_in"
            } else {
                "the field is never delivered: remove the field"
            };
            self.report(
                ErrorKind::InvalidPresence,
                at(file, path).key(key),
                format!("{key} names every method that delivers {record}; {what}"),
            );
        }
        let mut full = path.to_vec();
        full.push(key);
        self.check_unique(file, &full, methods);
        for (i, method) in methods.iter().enumerate() {
            if !delivered_by.set.contains(method.as_str()) {
                let index = i.to_string();
                let mut full = path.to_vec();
                full.push(key);
                full.push(&index);
                self.report(
                    ErrorKind::NotDelivered,
                    at(file, &full),
                    format!(
                        "'{method}' does not deliver {record}{}; it is delivered by: {}",
                        did_you_mean(method, delivered_by.methods.iter().map(Id::as_str)),
                        list_or_none(delivered_by.methods)
                    ),
                );
            }
        }
    }
}

/// Parses a type expression: a scalar name, a type or enum name, or `list<T>`.
fn parse_type(text: &str, names: &Names<'_>) -> Result<TypeRef, String> {
    let text = text.trim();
    if let Some(inner) = text
        .strip_prefix("list<")
        .and_then(|rest| rest.strip_suffix('>'))
    {
        return match parse_type(inner, names)? {
            TypeRef::List(_) => Err(format!("nested lists are not supported: '{text}'")),
            element => Ok(TypeRef::List(Box::new(element))),
        };
    }
    if let Some(scalar) = Scalar::named(text) {
        return Ok(TypeRef::Scalar(scalar));
    }
    if names.types.contains(text) {
        return Ok(TypeRef::Record(Id::new(text)));
    }
    if names.enums.contains(text) {
        return Ok(TypeRef::Enum(Id::new(text)));
    }
    let candidates = Scalar::ALL
        .iter()
        .map(|scalar| scalar.spec_name())
        .chain(names.types.iter().copied())
        .chain(names.enums.iter().copied());
    Err(format!(
        "unknown type '{text}'{}",
        did_you_mean(text, candidates)
    ))
}

/// The most (method, record) pairs the methods may deliver in all: every pair is a line of the
/// record's docs and a key the checks and the wire audit look up, and methods × records grows
/// as the square of the spec's size. The spec has about fifty.
pub(super) const MAX_DELIVERIES: usize = 1 << 20;

/// For each record, the methods whose response contains it (directly or nested), in method
/// order; with the index of the method that passed [`MAX_DELIVERIES`], where the count stopped.
///
/// The records a response holds are walked once per response type, not once per method (the
/// methods of one response deliver the same records), and each record's fields once, into the
/// distinct records they name.
pub(super) fn delivered_by(
    methods: &[ir::Method],
    types: &IndexMap<&str, Defined<'_, model::TypeDef>>,
    field_types: &HashMap<&str, Vec<Option<TypeRef>>>,
) -> (HashMap<String, Vec<Id<ir::Method>>>, Option<usize>) {
    let children = record_children(types, field_types);
    let mut held: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut result: HashMap<String, Vec<Id<ir::Method>>> = HashMap::new();
    let mut pairs = 0usize;
    for (index, method) in methods.iter().enumerate() {
        let response = method.response.as_str();
        let records = held
            .entry(response)
            .or_insert_with(|| records_held(response, &children));
        for record in records.iter() {
            pairs += 1;
            if pairs > MAX_DELIVERIES {
                return (result, Some(index));
            }
            result
                .entry((*record).to_owned())
                .or_default()
                .push(Id::new(method.name.as_str()));
        }
    }
    (result, None)
}

/// Each record's fields' record types (in lists too), each once: where a type is named twice,
/// the later place is kept, which is where a walk that stacks every field's type in order
/// first reaches it.
fn record_children<'a>(
    types: &IndexMap<&'a str, Defined<'a, model::TypeDef>>,
    field_types: &'a HashMap<&str, Vec<Option<TypeRef>>>,
) -> HashMap<&'a str, Vec<&'a str>> {
    types
        .keys()
        .map(|&record| {
            let mut seen = HashSet::new();
            let mut named: Vec<&str> = field_types
                .get(record)
                .into_iter()
                .flatten()
                .flatten()
                .rev()
                .filter_map(|ty| {
                    let mut ty = ty;
                    while let TypeRef::List(element) = ty {
                        ty = element;
                    }
                    match ty {
                        TypeRef::Record(name) if types.contains_key(name.as_str()) => {
                            Some(name.as_str())
                        }
                        _ => None,
                    }
                })
                .filter(|name| seen.insert(*name))
                .collect();
            named.reverse();
            (record, named)
        })
        .collect()
}

/// The records `response` holds, itself first, in the order of a depth-first walk that stacks
/// each record's field types in order.
fn records_held<'a>(response: &'a str, children: &HashMap<&'a str, Vec<&'a str>>) -> Vec<&'a str> {
    let mut held = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![response];
    while let Some(record) = stack.pop() {
        let Some(named) = children.get(record) else {
            continue;
        };
        if seen.insert(record) {
            held.push(record);
            stack.extend(named);
        }
    }
    held
}

/// The methods, at most ten of them named (a message per error must not grow with the spec).
fn list_or_none(methods: &[Id<ir::Method>]) -> String {
    match methods {
        [] => "no method".to_owned(),
        _ => shortened_list(methods.iter().map(Id::as_str), methods.len()),
    }
}

/// The first ten of `items` (`count` in all), joined, then how many more.
fn shortened_list<'a>(items: impl Iterator<Item = &'a str>, count: usize) -> String {
    let shown: Vec<&str> = items.take(10).collect();
    match count.saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The methods that deliver a record, listed and as a set.
pub(super) struct Delivery<'a> {
    methods: &'a [Id<ir::Method>],
    set: HashSet<&'a str>,
}

impl<'a> Delivery<'a> {
    fn new(methods: &'a [Id<ir::Method>]) -> Self {
        Delivery {
            methods,
            set: methods.iter().map(Id::as_str).collect(),
        }
    }
}
