//! Parses the spec files, checks every rule, and builds the [`ir::Api`].
//!
//! All problems are collected (not just the first), each with its file, line and column, spec
//! path and the nearest valid name, so one run shows everything to fix.

use std::collections::{BTreeSet, HashMap};

use indexmap::IndexMap;

use crate::diagnostic::{SpecError, SpecErrors, did_you_mean};
use crate::ir::{self, Encoding, FieldEncoding, Presence, Scalar, TypeRef};
use crate::location::{LineCol, SourceIndexes};
use crate::model::{self, EncodingDef, Optional, SpecFile};
use crate::naming;
use crate::prescan;

/// One spec file's text and the name to report it by (e.g. `spec/pay.yaml`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecSource {
    /// The path shown in messages.
    pub path: String,
    /// The YAML text.
    pub text: String,
}

/// Names that generated code imports from the runtime; spec types must not shadow them.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Date",
    "DayOrInstant",
    "Decimal",
    "Deserialize",
    "ErrorCode",
    "Option",
    "Serialize",
    "String",
    "Timestamp",
    "Vec",
];

/// Parses and validates `sources` (in the order given) into one API.
pub fn resolve(sources: &[SpecSource]) -> Result<ir::Api, SpecErrors> {
    let mut resolver = Resolver {
        sources,
        locations: SourceIndexes::new(sources),
        errors: Vec::new(),
    };
    let files: Vec<SpecFile> = sources
        .iter()
        .enumerate()
        .map(|(file, source)| resolver.parse_file(file, source))
        .collect();
    let api = resolver.build(&files);
    if resolver.errors.is_empty() {
        Ok(api)
    } else {
        let mut errors = resolver.errors;
        errors.sort_by(|a, b| {
            let position = |e: &SpecError| e.location.map(|l| (l.line, l.column));
            (a.file.as_str(), position(a)).cmp(&(b.file.as_str(), position(b)))
        });
        errors.dedup();
        Err(SpecErrors(errors))
    }
}

/// A definition found in some file.
struct Defined<'a, T> {
    file: usize,
    name: &'a str,
    def: &'a T,
}

struct Resolver<'s> {
    sources: &'s [SpecSource],
    locations: SourceIndexes<'s>,
    errors: Vec<SpecError>,
}

/// Where a problem is: the path shown, plus an optional key below it that locates it exactly.
struct At<'p> {
    file: usize,
    path: Vec<&'p str>,
    key: Option<&'p str>,
}

fn at<'p>(file: usize, path: &[&'p str]) -> At<'p> {
    At {
        file,
        path: path.to_vec(),
        key: None,
    }
}

impl<'p> At<'p> {
    fn key(mut self, key: &'p str) -> Self {
        self.key = Some(key);
        self
    }
}

impl Resolver<'_> {
    fn report(&mut self, at: At<'_>, message: impl Into<String>) {
        let mut full: Vec<String> = at.path.iter().map(|s| (*s).to_owned()).collect();
        full.extend(at.key.map(str::to_owned));
        let location = self.locations.find(at.file, &full);
        self.errors.push(SpecError {
            file: self.sources[at.file].path.clone(),
            location,
            path: at.path.join("."),
            message: message.into(),
        });
    }

    // ---- parsing -------------------------------------------------------------------------

    fn parse_file(&mut self, file: usize, source: &SpecSource) -> SpecFile {
        // Hostile nesting would make the YAML parser take minutes; refuse it first.
        if let Err(refusal) = prescan::check(&source.text) {
            self.errors.push(SpecError {
                file: source.path.clone(),
                location: refusal.location,
                path: String::new(),
                message: refusal.message,
            });
            return SpecFile::default();
        }
        let value: serde_yaml::Value = match serde_yaml::from_str(&source.text) {
            Ok(value) => value,
            Err(error) => {
                let message = error.to_string();
                let message = match message.find(" at line ") {
                    Some(end) => message[..end].to_owned(),
                    None => message,
                };
                self.errors.push(SpecError {
                    file: source.path.clone(),
                    location: error.location().map(|l| LineCol {
                        line: l.line(),
                        column: l.column(),
                    }),
                    path: String::new(),
                    message: format!("invalid YAML: {message}"),
                });
                return SpecFile::default();
            }
        };
        if value.is_null() {
            return SpecFile::default();
        }
        match serde_path_to_error::deserialize::<_, SpecFile>(value) {
            Ok(spec) => spec,
            Err(error) => {
                let path: Vec<String> = error
                    .path()
                    .iter()
                    .map(|segment| match segment {
                        serde_path_to_error::Segment::Seq { index } => index.to_string(),
                        serde_path_to_error::Segment::Map { key } => key.clone(),
                        serde_path_to_error::Segment::Enum { variant } => variant.clone(),
                        serde_path_to_error::Segment::Unknown => "?".to_owned(),
                    })
                    .collect();
                let (message, key) = explain_serde_error(&error.into_inner().to_string());
                let mut shown = path.clone();
                let mut located = path;
                match key {
                    // serde_path_to_error already ends the path with the offending key.
                    Some(key) if shown.last() == Some(&key) => {
                        shown.pop();
                    }
                    Some(key) => located.push(key),
                    None => {}
                }
                let location = self.locations.find(file, &located);
                self.errors.push(SpecError {
                    file: source.path.clone(),
                    location,
                    path: shown.join("."),
                    message,
                });
                SpecFile::default()
            }
        }
    }

    // ---- merging and building ------------------------------------------------------------

    fn build(&mut self, files: &[SpecFile]) -> ir::Api {
        let file_infos = self
            .sources
            .iter()
            .zip(files)
            .map(|(source, spec)| ir::SpecFileInfo {
                path: source.path.clone(),
                module: module_name(&source.path),
                doc: spec.doc.clone(),
            })
            .collect();

        let errors = self.collect(files, "errors", |spec| &spec.errors);
        let enums = self.collect(files, "enums", |spec| &spec.enums);
        let types = self.collect(files, "types", |spec| &spec.types);
        let methods = self.collect(files, "methods", |spec| &spec.methods);
        for ty in types.values() {
            if let Some(other) = enums.get(ty.name) {
                let first = self.sources[other.file].path.clone();
                self.report(
                    at(ty.file, &["types", ty.name]),
                    format!("'{}' is already defined as an enum in {first}", ty.name),
                );
            }
        }

        let names = Names {
            enums: enums.keys().copied().collect(),
            types: types.keys().copied().collect(),
            methods: methods.keys().copied().collect(),
            errors: errors.keys().copied().collect(),
        };

        let info = self
            .single(files, "api", |spec| spec.api.as_ref())
            .map(|(file, api)| {
                if !api.data_path.starts_with('/') {
                    self.report(
                        at(file, &["api", "data_path"]),
                        format!("'{}' must start with '/'", api.data_path),
                    );
                }
                ir::ApiInfo {
                    name: api.name.clone(),
                    doc: api.doc.clone(),
                    data_path: api.data_path.trim_end_matches('/').to_owned(),
                    api_version: api.api_version,
                    file,
                }
            });
        let oauth = self
            .single(files, "oauth", |spec| spec.oauth.as_ref())
            .map(|(file, oauth)| self.oauth(file, oauth));
        let data_path = info
            .as_ref()
            .map_or("/api", |info| info.data_path.as_str())
            .to_owned();

        let enums: Vec<ir::Enum> = enums.values().map(|e| self.enumeration(e)).collect();
        let errors: Vec<ir::ErrorCode> = errors
            .values()
            .map(|e| self.error_code(e, &names))
            .collect();
        // Field types first: which records each method delivers depends on them.
        let field_types: HashMap<&str, Vec<Option<TypeRef>>> = types
            .values()
            .map(|t| (t.name, self.field_types(t, &names)))
            .collect();
        let methods: Vec<ir::Method> = methods
            .values()
            .map(|m| self.method(m, &names, &data_path, &types, &field_types))
            .collect();
        let delivered_by = delivered_by(&methods, &types, &field_types);
        let records = types
            .values()
            .map(|t| {
                let empty = Vec::new();
                let by = delivered_by.get(t.name).unwrap_or(&empty);
                self.record(t, &field_types[t.name], by, &names)
            })
            .collect();

        ir::Api {
            files: file_infos,
            info,
            oauth,
            errors,
            enums,
            records,
            methods,
        }
    }

    /// Gathers one section across files; a name defined twice is an error.
    fn collect<'a, T>(
        &mut self,
        files: &'a [SpecFile],
        section: &'static str,
        get: impl Fn(&'a SpecFile) -> &'a IndexMap<String, T>,
    ) -> IndexMap<&'a str, Defined<'a, T>> {
        let mut all: IndexMap<&str, Defined<T>> = IndexMap::new();
        for (file, spec) in files.iter().enumerate() {
            for (name, def) in get(spec) {
                if let Some(first) = all.get(name.as_str()) {
                    let first = self.sources[first.file].path.clone();
                    self.report(
                        at(file, &[section, name]),
                        format!("'{name}' is already defined in {first}"),
                    );
                } else {
                    all.insert(name, Defined { file, name, def });
                }
            }
        }
        all
    }

    /// A section that at most one file may have.
    fn single<'a, T>(
        &mut self,
        files: &'a [SpecFile],
        section: &'static str,
        get: impl Fn(&'a SpecFile) -> Option<&'a T>,
    ) -> Option<(usize, &'a T)> {
        let mut found: Option<(usize, &T)> = None;
        for (file, spec) in files.iter().enumerate() {
            if let Some(def) = get(spec) {
                match found {
                    Some((first, _)) => {
                        let first = self.sources[first].path.clone();
                        self.report(
                            at(file, &[section]),
                            format!("'{section}' is already declared in {first}"),
                        );
                    }
                    None => found = Some((file, def)),
                }
            }
        }
        found
    }

    fn oauth(&mut self, file: usize, oauth: &model::OAuthDef) -> ir::OAuth {
        let e = &oauth.endpoints;
        let endpoints = [
            ("request_token", &e.request_token),
            ("authorize", &e.authorize),
            ("access_token", &e.access_token),
            ("revoke", &e.revoke),
        ];
        let endpoints = endpoints
            .into_iter()
            .map(|(name, endpoint)| {
                let path = ["oauth", "endpoints", name];
                if !matches!(endpoint.method.as_str(), "GET" | "POST") {
                    self.report(
                        at(file, &path).key("method"),
                        format!("unknown HTTP method '{}'; use GET or POST", endpoint.method),
                    );
                }
                if !endpoint.path.starts_with('/') {
                    self.report(
                        at(file, &path).key("path"),
                        format!("'{}' must start with '/'", endpoint.path),
                    );
                }
                ir::OAuthEndpoint {
                    name: name.to_owned(),
                    method: endpoint.method.clone(),
                    path: endpoint.path.clone(),
                    doc: endpoint.doc.clone(),
                    response: endpoint.response.clone(),
                }
            })
            .collect();
        if oauth.signature_method != "HMAC-SHA1" {
            self.report(
                at(file, &["oauth"]).key("signature_method"),
                format!(
                    "unsupported signature method '{}'; the client signs with HMAC-SHA1 only",
                    oauth.signature_method
                ),
            );
        }
        ir::OAuth {
            doc: oauth.doc.clone(),
            https_required: oauth.https_required,
            signature_method: oauth.signature_method.clone(),
            version: oauth.version.clone(),
            token_lifetime_seconds: oauth.token_lifetime_seconds,
            endpoints,
            file,
        }
    }

    fn enumeration(&mut self, e: &Defined<'_, model::EnumDef>) -> ir::Enum {
        self.check_type_name(e.file, "enums", e.name);
        if e.def.values.is_empty() {
            self.report(
                at(e.file, &["enums", e.name]),
                "an enum needs at least one value",
            );
        }
        let mut variants: HashMap<String, &str> = HashMap::new();
        let values = e
            .def
            .values
            .iter()
            .map(|(wire, doc)| {
                let variant = naming::variant_name(wire);
                if variant.is_empty() {
                    self.report(
                        at(e.file, &["enums", e.name, "values", wire]),
                        format!("cannot derive a Rust variant name from '{wire}'"),
                    );
                } else if e.def.open && variant == "Other" {
                    self.report(
                        at(e.file, &["enums", e.name, "values", wire]),
                        "the variant 'Other' is reserved for unknown values of an open enum",
                    );
                } else if let Some(previous) = variants.insert(variant.clone(), wire) {
                    self.report(
                        at(e.file, &["enums", e.name, "values", wire]),
                        format!("'{wire}' and '{previous}' both become the variant '{variant}'"),
                    );
                }
                ir::EnumValue {
                    wire: wire.clone(),
                    variant,
                    doc: doc.clone(),
                }
            })
            .collect();
        ir::Enum {
            name: e.name.to_owned(),
            doc: e.def.doc.clone(),
            open: e.def.open,
            values,
            file: e.file,
        }
    }

    fn error_code(&mut self, e: &Defined<'_, model::ErrorDef>, names: &Names<'_>) -> ir::ErrorCode {
        if let Some(methods) = &e.def.methods {
            for (i, method) in methods.iter().enumerate() {
                if !names.methods.contains(method.as_str()) {
                    let index = i.to_string();
                    self.report(
                        at(e.file, &["errors", e.name, "methods", &index]),
                        format!(
                            "unknown method '{method}'{}",
                            did_you_mean(method, names.methods.iter().copied())
                        ),
                    );
                }
            }
        }
        ir::ErrorCode {
            code: e.name.to_owned(),
            variant: naming::variant_name(e.name),
            doc: e.def.doc.clone(),
            kind: e.def.kind.clone(),
            methods: e.def.methods.clone(),
            file: e.file,
        }
    }

    fn check_type_name(&mut self, file: usize, section: &str, name: &str) {
        if !naming::is_camel_identifier(name) {
            self.report(
                at(file, &[section, name]),
                format!("'{name}' is not an UpperCamelCase Rust type name"),
            );
        } else if RESERVED_TYPE_NAMES.contains(&name) {
            self.report(
                at(file, &[section, name]),
                format!("'{name}' is reserved: generated code uses it for a runtime type"),
            );
        }
    }

    // ---- types ---------------------------------------------------------------------------

    fn field_types(
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
                        self.report(at(t.file, &path).key("type"), message);
                        None
                    }
                }
            })
            .collect()
    }

    fn record(
        &mut self,
        t: &Defined<'_, model::TypeDef>,
        types: &[Option<TypeRef>],
        delivered_by: &[String],
        names: &Names<'_>,
    ) -> ir::Record {
        self.check_type_name(t.file, "types", t.name);
        if t.def.opaque && !t.def.fields.is_empty() {
            self.report(
                at(t.file, &["types", t.name]).key("opaque"),
                "an opaque type keeps the raw object and cannot declare fields",
            );
        } else if !t.def.opaque && t.def.fields.is_empty() {
            self.report(
                at(t.file, &["types", t.name]),
                "a type needs fields; mark it `opaque: true` if the reference does not show them",
            );
        }
        let mut rust_names: HashMap<String, &str> = HashMap::new();
        let fields = t
            .def
            .fields
            .iter()
            .zip(types)
            .filter_map(|((wire, field), ty)| {
                let field = self.field(t, wire, field, ty.clone()?, delivered_by, names)?;
                if let Some(previous) = rust_names.insert(field.rust_name.clone(), wire) {
                    self.report(
                        at(t.file, &["types", t.name, "fields", wire]),
                        format!(
                            "'{wire}' and '{previous}' both become the Rust field '{}'; set rust_name",
                            field.rust_name
                        ),
                    );
                }
                Some(field)
            })
            .collect();
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

    fn field(
        &mut self,
        t: &Defined<'_, model::TypeDef>,
        wire: &str,
        field: &model::FieldDef,
        ty: TypeRef,
        delivered_by: &[String],
        names: &Names<'_>,
    ) -> Option<ir::Field> {
        let path = ["types", t.name, "fields", wire];
        let file = t.file;
        let rust_name = self.rust_name(file, &path, wire, field.rust_name.as_deref())?;
        let encoding = self.encoding(file, &path, &ty, field.encoding.as_ref(), delivered_by)?;

        let presence = match (&field.optional, &field.only_in, &field.absent_in) {
            (None | Some(Optional::Flag(false)), None, None) => Presence::Always,
            (Some(Optional::Flag(true)), None, None) => Presence::Optional(None),
            (Some(Optional::When(when)), None, None) => Presence::Optional(Some(when.clone())),
            (None, Some(methods), None) => {
                self.check_delivering(file, &path, "only_in", methods, t.name, delivered_by);
                Presence::OnlyIn(methods.clone())
            }
            (None, None, Some(methods)) => {
                self.check_delivering(file, &path, "absent_in", methods, t.name, delivered_by);
                Presence::AbsentIn(methods.clone())
            }
            _ => {
                self.report(
                    at(file, &path),
                    "use only one of optional, only_in and absent_in",
                );
                Presence::Optional(None)
            }
        };

        if field.zero_is_none {
            let zero_capable = match &ty {
                TypeRef::Scalar(Scalar::Integer | Scalar::Id | Scalar::Count) => true,
                TypeRef::Scalar(Scalar::Date) => encoding.distinct().contains(&Encoding::Epoch),
                _ => false,
            };
            if !zero_capable {
                self.report(
                    at(file, &path).key("zero_is_none"),
                    "zero_is_none applies to integer, id, count and epoch date fields only",
                );
            }
        }
        if let Some(documented) = &field.documented_type {
            if !names.types.contains(documented.as_str()) {
                self.report(
                    at(file, &path).key("documented_type"),
                    format!(
                        "unknown type '{documented}'{}",
                        did_you_mean(documented, names.types.iter().copied())
                    ),
                );
            }
        }
        if field.doc.trim().is_empty() {
            self.report(at(file, &path).key("doc"), "the doc is empty");
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
            documented_type: field.documented_type.clone(),
            narrowed: field.narrowed.clone(),
        })
    }

    /// The Rust name of a field or parameter: the override, or the derived snake_case name.
    fn rust_name(
        &mut self,
        file: usize,
        path: &[&str],
        wire: &str,
        explicit: Option<&str>,
    ) -> Option<String> {
        match explicit {
            Some(name) if naming::is_snake_identifier(name) => Some(name.to_owned()),
            Some(name) => {
                self.report(
                    at(file, path).key("rust_name"),
                    format!("'{name}' is not a snake_case Rust name (or is a keyword)"),
                );
                None
            }
            None => {
                let derived = naming::snake_name(wire);
                if naming::is_snake_identifier(&derived) {
                    Some(derived)
                } else if naming::is_keyword(&derived) {
                    self.report(
                        at(file, path),
                        format!("'{derived}' is a Rust keyword; set rust_name (e.g. 'kind')"),
                    );
                    None
                } else {
                    self.report(
                        at(file, path),
                        format!("cannot derive a Rust name from '{wire}'; set rust_name"),
                    );
                    None
                }
            }
        }
    }

    fn encoding(
        &mut self,
        file: usize,
        path: &[&str],
        ty: &TypeRef,
        declared: Option<&EncodingDef>,
        delivered_by: &[String],
    ) -> Option<FieldEncoding> {
        let allowed = allowed_encodings(ty);
        let allowed_names = || allowed.iter().map(|e| e.spec_name());
        let check = |this: &mut Self, name: &str, key: &[&str]| {
            let found = allowed.iter().copied().find(|e| e.spec_name() == name);
            if found.is_none() {
                let message = if allowed.is_empty() {
                    format!("a field of type {} takes no encoding", ty.spec_name())
                } else {
                    let expected: Vec<_> = allowed_names().collect();
                    format!(
                        "unknown encoding '{name}' for {}{}; expected {}",
                        ty.spec_name(),
                        did_you_mean(name, allowed_names()),
                        expected.join(" or ")
                    )
                };
                let mut full = path.to_vec();
                full.extend_from_slice(key);
                this.report(at(file, &full).key("encoding"), message);
            }
            found
        };
        match declared {
            None => match allowed.first() {
                // A date has two formats and neither is the obvious default.
                _ if matches!(ty, TypeRef::Scalar(Scalar::Date)) => {
                    self.report(
                        at(file, path),
                        "a date field needs an encoding: dmy or epoch (or one per method)",
                    );
                    None
                }
                Some(default) => Some(FieldEncoding::Uniform(*default)),
                // Records and enums are written as themselves.
                None => Some(FieldEncoding::Uniform(Encoding::String)),
            },
            Some(EncodingDef::Uniform(name)) => check(self, name, &[]).map(FieldEncoding::Uniform),
            Some(EncodingDef::PerMethod(per_method)) => {
                let mut resolved = Vec::new();
                let mut ok = true;
                for (method, name) in per_method {
                    if !delivered_by.contains(method) {
                        let mut full = path.to_vec();
                        full.push("encoding");
                        self.report(
                            at(file, &full).key(method),
                            format!(
                                "'{method}' does not deliver this field{}; it is delivered by: {}",
                                did_you_mean(method, delivered_by.iter().map(String::as_str)),
                                list_or_none(delivered_by)
                            ),
                        );
                        ok = false;
                    }
                    match check(self, name, &["encoding", method]) {
                        Some(encoding) => resolved.push((method.clone(), encoding)),
                        None => ok = false,
                    }
                }
                let missing: Vec<&str> = delivered_by
                    .iter()
                    .filter(|m| !per_method.contains_key(*m))
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    self.report(
                        at(file, path).key("encoding"),
                        format!("the encoding is not given for: {}", missing.join(", ")),
                    );
                    ok = false;
                }
                ok.then_some(FieldEncoding::PerMethod(resolved))
            }
        }
    }

    /// `narrowed` says why, and quotes the reference's evidence so `cargo xtask spec-audit`
    /// can find it there.
    fn check_narrowed(&mut self, file: usize, path: &[&str], narrowed: Option<&str>) {
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
        self.report(at(file, path).key("narrowed"), problem);
    }

    /// `only_in` / `absent_in` must name methods that deliver the record.
    fn check_delivering(
        &mut self,
        file: usize,
        path: &[&str],
        key: &str,
        methods: &[String],
        record: &str,
        delivered_by: &[String],
    ) {
        if methods.is_empty() {
            self.report(at(file, path).key(key), format!("{key} lists no method"));
        }
        for (i, method) in methods.iter().enumerate() {
            if !delivered_by.contains(method) {
                let index = i.to_string();
                let mut full = path.to_vec();
                full.push(key);
                full.push(&index);
                self.report(
                    at(file, &full),
                    format!(
                        "'{method}' does not deliver {record}{}; it is delivered by: {}",
                        did_you_mean(method, delivered_by.iter().map(String::as_str)),
                        list_or_none(delivered_by)
                    ),
                );
            }
        }
    }

    // ---- methods -------------------------------------------------------------------------

    fn method(
        &mut self,
        m: &Defined<'_, model::MethodDef>,
        names: &Names<'_>,
        data_path: &str,
        types: &IndexMap<&str, Defined<'_, model::TypeDef>>,
        field_types: &HashMap<&str, Vec<Option<TypeRef>>>,
    ) -> ir::Method {
        let file = m.file;
        let name = m.name;
        let def = m.def;
        if !is_method_name(name) {
            self.report(
                at(file, &["methods", name]),
                format!("'{name}' is not of the form group/method (e.g. pay/getTimesheet)"),
            );
        }
        let rust_name = self
            .rust_name(file, &["methods", name], name, def.rust_name.as_deref())
            .unwrap_or_default();
        if !names.types.contains(def.response.as_str()) {
            self.report(
                at(file, &["methods", name]).key("response"),
                format!(
                    "unknown response type '{}'{}",
                    def.response,
                    did_you_mean(&def.response, names.types.iter().copied())
                ),
            );
        }
        if let Some(delivered) = def.delivered_api.as_deref().filter(|d| !is_method_name(d)) {
            self.report(
                at(file, &["methods", name]).key("delivered_api"),
                format!("'{delivered}' is not of the form group/method"),
            );
        }
        let delivered_api = def.delivered_api.clone().unwrap_or_else(|| name.to_owned());

        let params: Vec<ir::Param> = def
            .params
            .iter()
            .filter_map(|(wire, param)| self.param(file, name, wire, param))
            .collect();
        let param_named = |wanted: &str| params.iter().find(|p| p.wire_name == wanted);

        let at_least_one_of = def.at_least_one_of.clone().unwrap_or_default();
        if def.at_least_one_of.is_some() && at_least_one_of.len() < 2 {
            self.report(
                at(file, &["methods", name]).key("at_least_one_of"),
                "at_least_one_of needs two or more parameters",
            );
        }
        for wanted in &at_least_one_of {
            match param_named(wanted) {
                None => self.report(
                    at(file, &["methods", name]).key("at_least_one_of"),
                    format!(
                        "unknown parameter '{wanted}'{}",
                        did_you_mean(wanted, def.params.keys().map(String::as_str))
                    ),
                ),
                Some(param) if param.required => self.report(
                    at(file, &["methods", name, "params", wanted]).key("required"),
                    format!("'{wanted}' is in at_least_one_of and so cannot be required"),
                ),
                Some(_) => {}
            }
        }

        let response_fields = types.get(def.response.as_str()).map(|t| {
            t.def
                .fields
                .keys()
                .map(String::as_str)
                .zip(field_types[t.name].iter())
                .collect::<Vec<_>>()
        });
        let paging = def.paging.as_ref().and_then(|paging| {
            let path = ["methods", name, "paging"];
            let mut ok = true;
            for (key, wanted) in [
                ("page_param", &paging.page_param),
                ("size_param", &paging.size_param),
            ] {
                match param_named(wanted) {
                    Some(param) if param.ty == ir::ParamType::Count => {}
                    Some(_) => {
                        self.report(
                            at(file, &path).key(key),
                            format!("'{wanted}' must be a count parameter"),
                        );
                        ok = false;
                    }
                    None => {
                        self.report(
                            at(file, &path).key(key),
                            format!(
                                "unknown parameter '{wanted}'{}",
                                did_you_mean(wanted, def.params.keys().map(String::as_str))
                            ),
                        );
                        ok = false;
                    }
                }
            }
            if let Some(fields) = &response_fields {
                let wanted_fields = [
                    ("items", Some(&paging.items)),
                    ("total_pages", paging.total_pages.as_ref()),
                ];
                for (key, wanted) in wanted_fields {
                    let Some(wanted) = wanted else { continue };
                    let found = fields.iter().find(|(wire, _)| *wire == wanted.as_str());
                    let fits = |ty: &TypeRef| match key {
                        "items" => matches!(ty, TypeRef::List(_)),
                        _ => matches!(ty, TypeRef::Scalar(Scalar::Count)),
                    };
                    match found {
                        Some((_, Some(ty))) if !fits(ty) => {
                            let kind = if key == "items" { "a list" } else { "a count" };
                            self.report(
                                at(file, &path).key(key),
                                format!("'{wanted}' of {} must be {kind}", def.response),
                            );
                            ok = false;
                        }
                        Some(_) => {}
                        None => {
                            self.report(
                                at(file, &path).key(key),
                                format!(
                                    "{} has no field '{wanted}'{}",
                                    def.response,
                                    did_you_mean(wanted, fields.iter().map(|(wire, _)| *wire))
                                ),
                            );
                            ok = false;
                        }
                    }
                }
            }
            let beyond_last = match paging.beyond_last.as_str() {
                "above_total" => ir::BeyondLast::AboveTotal,
                "at_or_above_total" => ir::BeyondLast::AtOrAboveTotal,
                other => {
                    self.report(
                        at(file, &path).key("beyond_last"),
                        format!(
                            "unknown rule '{other}'{}; expected above_total or at_or_above_total",
                            did_you_mean(other, ["above_total", "at_or_above_total"])
                        ),
                    );
                    ok = false;
                    ir::BeyondLast::AboveTotal
                }
            };
            ok.then(|| ir::Paging {
                page_param: paging.page_param.clone(),
                size_param: paging.size_param.clone(),
                items: paging.items.clone(),
                total_pages: paging.total_pages.clone(),
                beyond_last,
            })
        });

        for (i, code) in def.errors.iter().enumerate() {
            if !names.errors.contains(code.as_str()) {
                let index = i.to_string();
                self.report(
                    at(file, &["methods", name, "errors", &index]),
                    format!(
                        "unknown error code '{code}'{}",
                        did_you_mean(code, names.errors.iter().copied())
                    ),
                );
            }
        }

        ir::Method {
            name: name.to_owned(),
            rust_name,
            doc: def.doc.clone(),
            path: format!("{data_path}/{name}"),
            response: def.response.clone(),
            delivered_api,
            params,
            at_least_one_of,
            paging,
            errors: def.errors.clone(),
            file,
        }
    }

    fn param(
        &mut self,
        file: usize,
        method: &str,
        wire: &str,
        param: &model::ParamDef,
    ) -> Option<ir::Param> {
        let path = ["methods", method, "params", wire];
        let ty = match param.ty.as_str() {
            "integer" => ir::ParamType::Integer,
            "count" => ir::ParamType::Count,
            "id" => ir::ParamType::Id,
            "date" => ir::ParamType::Date,
            other => {
                self.report(
                    at(file, &path).key("type"),
                    format!(
                        "unknown parameter type '{other}'{}; expected integer, count, id or date",
                        did_you_mean(other, ["integer", "count", "id", "date"])
                    ),
                );
                return None;
            }
        };
        let rust_name = self.rust_name(file, &path, wire, param.rust_name.as_deref())?;
        let numeric = ty != ir::ParamType::Date;
        let unsigned = matches!(ty, ir::ParamType::Count | ir::ParamType::Id);
        for (key, value) in [
            ("default", param.default),
            ("min", param.min),
            ("max", param.max),
        ] {
            if value.is_some() && !numeric {
                self.report(
                    at(file, &path).key(key),
                    format!("{key} applies to integer, count and id parameters only"),
                );
            } else if unsigned && value.is_some_and(|value| value < 0) {
                self.report(
                    at(file, &path).key(key),
                    format!("{key} cannot be negative: the parameter is unsigned"),
                );
            }
        }
        if let (Some(min), Some(max)) = (param.min, param.max) {
            if min > max {
                self.report(
                    at(file, &path).key("min"),
                    format!("min {min} is above max {max}"),
                );
            }
        }
        if let Some(default) = param.default {
            if param.min.is_some_and(|min| default < min)
                || param.max.is_some_and(|max| default > max)
            {
                self.report(
                    at(file, &path).key("default"),
                    format!("default {default} is outside min..max"),
                );
            }
            if param.required {
                self.report(
                    at(file, &path).key("default"),
                    "a required parameter cannot have a default",
                );
            }
        }
        self.check_narrowed(file, &path, param.narrowed.as_deref());
        Some(ir::Param {
            wire_name: wire.to_owned(),
            rust_name,
            doc: param.doc.clone(),
            ty,
            required: param.required,
            default: param.default,
            min: param.min,
            max: param.max,
            narrowed: param.narrowed.clone(),
        })
    }
}

/// All defined names, for lookups and suggestions.
struct Names<'a> {
    enums: BTreeSet<&'a str>,
    types: BTreeSet<&'a str>,
    methods: BTreeSet<&'a str>,
    errors: BTreeSet<&'a str>,
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
    if let Some((scalar, _)) = Scalar::ALL.iter().find(|(_, name)| *name == text) {
        return Ok(TypeRef::Scalar(*scalar));
    }
    if names.types.contains(text) {
        return Ok(TypeRef::Record(text.to_owned()));
    }
    if names.enums.contains(text) {
        return Ok(TypeRef::Enum(text.to_owned()));
    }
    let candidates = Scalar::ALL
        .iter()
        .map(|(_, name)| *name)
        .chain(names.types.iter().copied())
        .chain(names.enums.iter().copied());
    Err(format!(
        "unknown type '{text}'{}",
        did_you_mean(text, candidates)
    ))
}

/// Encodings a type may declare; the first is the default.
fn allowed_encodings(ty: &TypeRef) -> &'static [Encoding] {
    match ty {
        TypeRef::Scalar(Scalar::String) => &[Encoding::String, Encoding::StringOrNumber],
        TypeRef::Scalar(Scalar::Integer | Scalar::Id | Scalar::Count | Scalar::Decimal) => {
            &[Encoding::Number, Encoding::String]
        }
        TypeRef::Scalar(Scalar::Boolean) => &[Encoding::Boolean],
        TypeRef::Scalar(Scalar::Date) => &[Encoding::Dmy, Encoding::Epoch],
        TypeRef::List(_) => &[Encoding::IndexObject, Encoding::Array],
        TypeRef::Record(_) | TypeRef::Enum(_) => &[],
    }
}

/// For each record, the methods whose response contains it (directly or nested), in method order.
fn delivered_by(
    methods: &[ir::Method],
    types: &IndexMap<&str, Defined<'_, model::TypeDef>>,
    field_types: &HashMap<&str, Vec<Option<TypeRef>>>,
) -> HashMap<String, Vec<String>> {
    let mut result: HashMap<String, Vec<String>> = HashMap::new();
    for method in methods {
        let mut stack = vec![method.response.as_str()];
        let mut seen = BTreeSet::new();
        while let Some(record) = stack.pop() {
            if !types.contains_key(record) || !seen.insert(record) {
                continue;
            }
            result
                .entry(record.to_owned())
                .or_default()
                .push(method.name.clone());
            for ty in field_types[record].iter().flatten() {
                let mut ty = ty;
                while let TypeRef::List(element) = ty {
                    ty = element;
                }
                if let TypeRef::Record(name) = ty {
                    stack.push(name);
                }
            }
        }
    }
    result
}

fn is_method_name(name: &str) -> bool {
    match name.split_once('/') {
        Some((group, method)) => {
            !group.is_empty()
                && group.chars().all(|c| c.is_ascii_lowercase())
                && method.starts_with(|c: char| c.is_ascii_lowercase())
                && method.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

fn list_or_none(methods: &[String]) -> String {
    if methods.is_empty() {
        "no method".to_owned()
    } else {
        methods.join(", ")
    }
}

/// The module a spec file generates: its file stem.
fn module_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(".yaml").unwrap_or(file).to_owned()
}

/// Rewrites serde's message into the spec's words; returns the offending key, if any, so the
/// error can point at it.
fn explain_serde_error(message: &str) -> (String, Option<String>) {
    let ticked = |text: &str| -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let names = ticked(rest);
        if let Some((unknown, expected)) = names.split_first() {
            let hint = did_you_mean(unknown, expected.iter().map(String::as_str));
            let list = if expected.is_empty() {
                "no keys are allowed here".to_owned()
            } else {
                format!("expected one of: {}", expected.join(", "))
            };
            return (
                format!("unknown key '{unknown}'{hint}; {list}"),
                Some(unknown.clone()),
            );
        }
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        if let Some(name) = ticked(rest).first() {
            return (format!("missing key '{name}'"), None);
        }
    }
    (message.to_owned(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_serde_unknown_field_with_a_suggestion() {
        let (message, key) =
            explain_serde_error("unknown field `tyep`, expected one of `type`, `doc`");
        assert_eq!(
            message,
            "unknown key 'tyep' (did you mean 'type'?); expected one of: type, doc"
        );
        assert_eq!(key.as_deref(), Some("tyep"));
    }

    #[test]
    fn module_names_come_from_file_stems() {
        assert_eq!(module_name("spec/pay.yaml"), "pay");
        assert_eq!(module_name("pay.yaml"), "pay");
    }

    #[test]
    fn method_names_are_group_slash_method() {
        assert!(is_method_name("pay/getTimesheet"));
        assert!(!is_method_name("getTimesheet"));
        assert!(!is_method_name("pay/"));
        assert!(!is_method_name("Pay/getTimesheet"));
    }
}
