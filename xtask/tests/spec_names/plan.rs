//! A spec as the generator builds it: every name an author writes, in every position the spec
//! format gives a name (`spec/README.md`), written out as YAML files, and changed as the
//! loader's errors say (`Plan::repair`: renamed as suggested, or taken apart), so that a
//! refused spec leads to the largest spec the loader accepts with the rest of its names.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use marketplace_codegen::diagnostic::ErrorKind;
use marketplace_codegen::{SpecError, SpecSource};

/// One spec: its files, the first of which holds the service (`api`, `oauth`).
#[derive(Clone, Debug)]
pub struct Plan {
    pub files: Vec<FilePlan>,
}

/// One spec file, named `spec/{stem}.yaml`.
#[derive(Clone, Debug, Default)]
pub struct FilePlan {
    pub stem: String,
    pub errors: Vec<ErrorPlan>,
    pub enums: Vec<EnumPlan>,
    pub types: Vec<TypePlan>,
    pub methods: Vec<MethodPlan>,
}

#[derive(Clone, Debug)]
pub struct ErrorPlan {
    pub code: String,
    pub kind: Option<&'static str>,
    /// The methods that return it (`methods:`), by spec name.
    pub methods: Option<Vec<String>>,
}

#[derive(Clone, Debug)]
pub struct EnumPlan {
    pub name: String,
    pub open: bool,
    /// Wire values.
    pub values: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct TypePlan {
    pub name: String,
    pub documented_as: Option<String>,
    pub opaque: bool,
    pub fields: Vec<FieldPlan>,
}

#[derive(Clone, Debug)]
pub struct FieldPlan {
    /// The wire name (the key).
    pub wire: String,
    pub rust_name: Option<String>,
    /// A spec type: a scalar, `list<T>`, a type or an enum name.
    pub ty: String,
    pub optional: bool,
    pub nullable: bool,
    /// The reference's name: a serde alias.
    pub documented_as: Option<String>,
}

#[derive(Clone, Debug)]
pub struct MethodPlan {
    /// `group/method`.
    pub name: String,
    pub rust_name: Option<String>,
    pub response: String,
    pub params: Vec<ParamPlan>,
    pub at_least_one_of: Vec<String>,
    pub paging: Option<PagingPlan>,
    pub errors: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct ParamPlan {
    pub wire: String,
    pub rust_name: Option<String>,
    /// integer, count, id or date.
    pub ty: &'static str,
    pub required: bool,
}

#[derive(Clone, Debug)]
pub struct PagingPlan {
    pub page_param: String,
    pub size_param: String,
    pub items: String,
    pub total_pages: Option<String>,
}

/// The service every spec has, in its first file.
const SERVICE: &str = r#"api:
  name: "Adversarial API"
  doc: "A spec of hostile names."
  data_path: /api
  api_version: 1
oauth:
  doc: "OAuth."
  https_required: true
  signature_method: HMAC-SHA1
  version: "1.0"
  token_lifetime_seconds: 21600
  endpoints:
    request_token: { method: POST, path: /oauth/getRequestToken, doc: "Request.", response: [oauth_token, oauth_token_secret] }
    authorize: { method: GET, path: /oauth/authorizeToken, doc: "Authorize." }
    access_token: { method: POST, path: /oauth/getAccessToken, doc: "Access." }
    revoke: { method: POST, path: /oauth/revokeToken, doc: "Revoke." }
"#;

/// A YAML scalar holding `text` exactly: a JSON string, which YAML reads as a double-quoted
/// scalar.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

impl Plan {
    /// The spec's files, as the loader reads them.
    pub fn sources(&self) -> Vec<SpecSource> {
        self.files
            .iter()
            .enumerate()
            .map(|(index, file)| SpecSource {
                path: format!("spec/{}.yaml", file.stem),
                text: file.yaml(index == 0),
            })
            .collect()
    }

    /// Every name the spec writes, for reports and the coverage count.
    pub fn names(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for file in &self.files {
            names.insert(file.stem.clone());
            for e in &file.errors {
                names.insert(e.code.clone());
            }
            for e in &file.enums {
                names.insert(e.name.clone());
                names.extend(e.values.iter().cloned());
            }
            for t in &file.types {
                names.insert(t.name.clone());
                for f in &t.fields {
                    names.insert(f.wire.clone());
                    names.extend(f.rust_name.iter().cloned());
                    names.extend(f.documented_as.iter().cloned());
                }
            }
            for m in &file.methods {
                names.insert(m.name.clone());
                names.extend(m.rust_name.iter().cloned());
                for p in &m.params {
                    names.insert(p.wire.clone());
                    names.extend(p.rust_name.iter().cloned());
                }
            }
        }
        names
    }

    /// Keeps the first of the keys one YAML mapping would hold twice (a duplicate key is a
    /// YAML error, not a name), and gives a file whose name another file has another name.
    pub fn dedupe(&mut self) {
        fn first<T>(items: &mut Vec<T>, key: impl Fn(&T) -> String) {
            let mut seen = BTreeSet::new();
            items.retain(|item| seen.insert(key(item)));
        }
        let mut stems = BTreeSet::new();
        for (index, file) in self.files.iter_mut().enumerate() {
            if !stems.insert(file.stem.clone()) {
                file.stem = format!("{}_{index}", file.stem);
                stems.insert(file.stem.clone());
            }
            first(&mut file.errors, |e| e.code.clone());
            first(&mut file.enums, |e| e.name.clone());
            first(&mut file.types, |t| t.name.clone());
            first(&mut file.methods, |m| m.name.clone());
            for e in &mut file.enums {
                first(&mut e.values, Clone::clone);
            }
            for t in &mut file.types {
                first(&mut t.fields, |f| f.wire.clone());
            }
            for m in &mut file.methods {
                first(&mut m.params, |p| p.wire.clone());
                first(&mut m.at_least_one_of, Clone::clone);
            }
        }
    }

    /// The YAML of every file, for a report.
    pub fn show(&self) -> String {
        let mut out = String::new();
        for source in self.sources() {
            let _ = writeln!(out, "--- {}\n{}", source.path, source.text);
        }
        out
    }

    /// Follows the errors: renames what a name rule refuses to the name it suggests (with
    /// [`Follow::Suggestions`]), and takes out of the spec what any other error points at (the item at its spec path, or a file),
    /// so that what is left may be accepted. Returns the places renamed (file, spec path) with
    /// the rule that refused the name there, or `None` when no error points at anything the
    /// plan can change (it cannot be reduced).
    pub fn repair(&mut self, errors: &[SpecError], follow: Follow) -> Option<Vec<Renamed>> {
        let mut changed = false;
        let mut renamed = Vec::new();
        for error in errors {
            let suggested = suggestion(error).filter(|_| is_name_rule(error.kind));
            match suggested.filter(|_| follow == Follow::Suggestions) {
                Some(suggested) => match self.rename(error, suggested) {
                    Some(place) => {
                        renamed.push(Renamed {
                            place,
                            rule: error.kind,
                        });
                        changed = true;
                    }
                    None => changed |= self.drop_one(error),
                },
                None => changed |= self.drop_one(error),
            }
        }
        changed.then_some(renamed)
    }

    /// Gives the item `error` points at the name it suggests: a type or enum its new name, a
    /// field, parameter or method its `rust_name`, a file its new name. Where it is then.
    fn rename(&mut self, error: &SpecError, suggested: &str) -> Option<(String, String)> {
        let index = self.file_of(error)?;
        if error.path.is_empty() {
            let stem = suggested.strip_suffix(".yaml")?;
            self.files[index].stem = stem.to_owned();
            return Some((format!("spec/{stem}.yaml"), String::new()));
        }
        let path = error.path.as_str();
        let place = |path: String| Some((error.file.clone(), path));
        let file = &mut self.files[index];
        let mut renamed_type = None;
        for t in &mut file.types {
            let item = format!("types.{}", t.name);
            if path == item {
                renamed_type = Some(std::mem::replace(&mut t.name, suggested.to_owned()));
                break;
            }
            if let Some(f) = t
                .fields
                .iter_mut()
                .find(|f| path == format!("{item}.fields.{}", f.wire))
            {
                f.rust_name = Some(suggested.to_owned());
                return place(path.to_owned());
            }
        }
        for e in &mut file.enums {
            if path == format!("enums.{}", e.name) {
                renamed_type = Some(std::mem::replace(&mut e.name, suggested.to_owned()));
            }
        }
        if let Some(old) = renamed_type {
            let section = if path.starts_with("enums.") {
                "enums"
            } else {
                "types"
            };
            self.rename_references(&old, suggested);
            return place(format!("{section}.{suggested}"));
        }
        for m in &mut file.methods {
            let item = format!("methods.{}", m.name);
            if path == item {
                m.rust_name = Some(suggested.to_owned());
                return place(path.to_owned());
            }
            if let Some(p) = m
                .params
                .iter_mut()
                .find(|p| path == format!("{item}.params.{}", p.wire))
            {
                p.rust_name = Some(suggested.to_owned());
                return place(path.to_owned());
            }
        }
        None
    }

    /// Every reference to the type or enum `old` (field types, responses) made to `new`.
    fn rename_references(&mut self, old: &str, new: &str) {
        for file in &mut self.files {
            for t in &mut file.types {
                for f in &mut t.fields {
                    if f.ty == old {
                        f.ty = new.to_owned();
                    } else if f.ty == format!("list<{old}>") {
                        f.ty = format!("list<{new}>");
                    }
                }
            }
            for m in &mut file.methods {
                if m.response == old {
                    m.response = new.to_owned();
                }
            }
        }
    }

    fn file_of(&self, error: &SpecError) -> Option<usize> {
        self.files
            .iter()
            .position(|f| format!("spec/{}.yaml", f.stem) == error.file)
    }

    fn drop_one(&mut self, error: &SpecError) -> bool {
        let Some(index) = self.file_of(error) else {
            return false;
        };
        if error.path.is_empty() {
            // The file's name: a safe one instead, keeping what it declares.
            if error.kind != ErrorKind::InvalidFileName {
                return false;
            }
            let taken: BTreeSet<String> = self.files.iter().map(|f| f.stem.clone()).collect();
            let stem = (0..)
                .map(|n| format!("file{n}"))
                .find(|stem| !taken.contains(stem))
                .expect("a free name");
            self.files[index].stem = stem;
            return true;
        }
        let file = &mut self.files[index];
        let path = error.path.as_str();
        // The longest item path that is the error's path or a prefix of it (names may hold
        // dots, so every item is tried rather than the path split).
        let under = |item: &str| path == item || path.starts_with(&format!("{item}."));
        for e in &mut file.enums {
            let item = format!("enums.{}", e.name);
            if under(&item) {
                let before = e.values.len();
                e.values.retain(|v| !under(&format!("{item}.values.{v}")));
                if e.values.len() == before {
                    let name = e.name.clone();
                    file.enums.retain(|e| e.name != name);
                }
                return true;
            }
        }
        for t in &mut file.types {
            let item = format!("types.{}", t.name);
            if under(&item) {
                let before = t.fields.len();
                t.fields
                    .retain(|f| !under(&format!("{item}.fields.{}", f.wire)));
                if t.fields.len() == before {
                    let name = t.name.clone();
                    file.types.retain(|t| t.name != name);
                }
                return true;
            }
        }
        for m in &mut file.methods {
            let item = format!("methods.{}", m.name);
            if !under(&item) {
                continue;
            }
            if under(&format!("{item}.paging")) {
                m.paging = None;
                return true;
            }
            if let Some(at) = path.strip_prefix(&format!("{item}.errors.")) {
                if let Ok(at) = at.parse::<usize>() {
                    if at < m.errors.len() {
                        m.errors.remove(at);
                        return true;
                    }
                }
            }
            let before = m.params.len();
            let params = format!("{item}.params.");
            let dropped: Vec<String> = m
                .params
                .iter()
                .filter(|p| under(&format!("{params}{}", p.wire)))
                .map(|p| p.wire.clone())
                .collect();
            m.params.retain(|p| !dropped.contains(&p.wire));
            if m.params.len() != before {
                m.at_least_one_of.retain(|p| !dropped.contains(p));
                if m.at_least_one_of.len() < 2 {
                    m.at_least_one_of.clear();
                }
                return true;
            }
            if matches!(
                error.kind,
                ErrorKind::UnknownParameter | ErrorKind::InvalidAlternatives
            ) && !m.at_least_one_of.is_empty()
            {
                m.at_least_one_of.clear();
                return true;
            }
            let name = m.name.clone();
            file.methods.retain(|m| m.name != name);
            return true;
        }
        for e in &mut file.errors {
            let item = format!("errors.{}", e.code);
            if under(&item) {
                if let (Some(at), Some(methods)) = (
                    path.strip_prefix(&format!("{item}.methods.")),
                    e.methods.as_mut(),
                ) {
                    if let Ok(at) = at.parse::<usize>() {
                        if at < methods.len() {
                            methods.remove(at);
                            if methods.is_empty() {
                                e.methods = None;
                            }
                            return true;
                        }
                    }
                }
                let code = e.code.clone();
                file.errors.retain(|e| e.code != code);
                return true;
            }
        }
        false
    }
}

/// How [`Plan::repair`] follows a name rule's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// Renames the item to the name it suggests.
    Suggestions,
    /// Takes the item out: what is left has only names accepted as written.
    Drop,
}

/// A name the plan took from an error's suggestion: where it is now, and which rule refused
/// the name before.
pub struct Renamed {
    pub place: (String, String),
    pub rule: ErrorKind,
}

/// The rules about a Rust name the author chooses: each refusal suggests a free one.
pub fn is_name_rule(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::InvalidTypeName
            | ErrorKind::InvalidRustName
            | ErrorKind::RustNameTaken
            | ErrorKind::InvalidFileName
    )
}

/// The name an error suggests, from its `(did you mean '…'?)`.
pub fn suggestion(error: &SpecError) -> Option<&str> {
    let rest = error.message.split("(did you mean '").nth(1)?;
    rest.split("'?)").next()
}

impl FilePlan {
    fn yaml(&self, service: bool) -> String {
        let mut out = String::from("doc: \"A file of hostile names.\"\n");
        if service {
            out.push_str(SERVICE);
        }
        if !self.errors.is_empty() {
            out.push_str("errors:\n");
            for e in &self.errors {
                let _ = writeln!(out, "  {}:\n    doc: \"An error.\"", quoted(&e.code));
                if let Some(kind) = e.kind {
                    let _ = writeln!(out, "    kind: {kind}");
                }
                if let Some(methods) = &e.methods {
                    let methods: Vec<String> = methods.iter().map(|m| quoted(m)).collect();
                    let _ = writeln!(out, "    methods: [{}]", methods.join(", "));
                }
            }
        }
        if !self.enums.is_empty() {
            out.push_str("enums:\n");
            for e in &self.enums {
                let _ = writeln!(
                    out,
                    "  {}:\n    doc: \"An enum.\"\n    open: {}\n    values:",
                    quoted(&e.name),
                    e.open
                );
                for value in &e.values {
                    let _ = writeln!(out, "      {}: \"A value.\"", quoted(value));
                }
            }
        }
        if !self.types.is_empty() {
            out.push_str("types:\n");
            for t in &self.types {
                let _ = writeln!(out, "  {}:\n    doc: \"A type.\"", quoted(&t.name));
                if let Some(documented) = &t.documented_as {
                    let _ = writeln!(out, "    documented_as: {}", quoted(documented));
                }
                if t.opaque {
                    out.push_str("    opaque: true\n");
                }
                if !t.fields.is_empty() {
                    out.push_str("    fields:\n");
                }
                for f in &t.fields {
                    let _ = writeln!(
                        out,
                        "      {}:\n        type: {}\n        doc: \"A field.\"",
                        quoted(&f.wire),
                        quoted(&f.ty)
                    );
                    if f.ty == "date" || f.ty == "list<date>" {
                        out.push_str("        encoding: dmy\n");
                    }
                    if let Some(rust_name) = &f.rust_name {
                        let _ = writeln!(out, "        rust_name: {}", quoted(rust_name));
                    }
                    if f.optional {
                        out.push_str("        optional: true\n");
                    }
                    if f.nullable {
                        out.push_str("        nullable: true\n");
                    }
                    if let Some(documented) = &f.documented_as {
                        let _ = writeln!(out, "        documented_as: {}", quoted(documented));
                    }
                }
            }
        }
        if !self.methods.is_empty() {
            out.push_str("methods:\n");
            for m in &self.methods {
                let _ = writeln!(
                    out,
                    "  {}:\n    doc: \"A method.\"\n    response: {}",
                    quoted(&m.name),
                    quoted(&m.response)
                );
                if let Some(rust_name) = &m.rust_name {
                    let _ = writeln!(out, "    rust_name: {}", quoted(rust_name));
                }
                if !m.params.is_empty() {
                    out.push_str("    params:\n");
                }
                for p in &m.params {
                    let _ = writeln!(
                        out,
                        "      {}:\n        type: {}\n        doc: \"A parameter.\"\n        required: {}",
                        quoted(&p.wire),
                        p.ty,
                        p.required
                    );
                    if let Some(rust_name) = &p.rust_name {
                        let _ = writeln!(out, "        rust_name: {}", quoted(rust_name));
                    }
                }
                if !m.at_least_one_of.is_empty() {
                    let names: Vec<String> = m.at_least_one_of.iter().map(|p| quoted(p)).collect();
                    let _ = writeln!(out, "    at_least_one_of: [{}]", names.join(", "));
                }
                if let Some(paging) = &m.paging {
                    let _ = writeln!(
                        out,
                        "    paging:\n      page_param: {}\n      size_param: {}\n      items: {}\n      beyond_last: above_total",
                        quoted(&paging.page_param),
                        quoted(&paging.size_param),
                        quoted(&paging.items)
                    );
                    if let Some(total) = &paging.total_pages {
                        let _ = writeln!(out, "      total_pages: {}", quoted(total));
                    }
                }
                if !m.errors.is_empty() {
                    let codes: Vec<String> = m.errors.iter().map(|c| quoted(c)).collect();
                    let _ = writeln!(out, "    errors: [{}]", codes.join(", "));
                }
            }
        }
        out
    }
}
