//! Parses the spec files, checks every rule, and builds the [`ir::Api`].
//!
//! All problems are collected (not just the first), each with its rule
//! ([`ErrorKind`](crate::diagnostic::ErrorKind)), file, line and column, spec path and the
//! nearest valid name, so one run shows everything to fix. One module per section of the spec:
//! `parse` (YAML into the [`crate::model`] shapes), `merge` (sections across files), `service`
//! (`api`, `oauth`, `errors`), `enums`, `records` (types, fields, encodings), `methods`
//! (parameters, paging), and `names` (the Rust names every section derives).

mod enums;
mod merge;
mod methods;
mod names;
mod parse;
mod records;
mod service;

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::diagnostic::{ErrorKind, SpecError, SpecErrors, suggesting};
use crate::ir::{self, Id, TypeRef};
use crate::location::SourceIndexes;
use crate::model::SpecFile;
use crate::naming;
use crate::spec_source::SpecSource;

/// Parses and validates `sources` (in the order given) into one API.
pub fn resolve(sources: &[SpecSource]) -> Result<ir::Api, SpecErrors> {
    match crate::diagnostic::with_suggestion_budget(|| resolve_within_budget(sources)) {
        Ok((api, broken)) if broken.is_empty() => Ok(api),
        Ok((_, broken)) => Err(SpecErrors(broken)),
        Err(errors) => Err(errors),
    }
}

/// Like [`resolve`], for a spec that may predate rules of agreement
/// ([`ErrorKind::is_agreement`]): a spec that breaks only those resolves, and the broken rules
/// come back beside it. What `spec-diff` reads a base revision with, so that adding such a
/// rule does not make every older revision impossible to compare against.
pub fn resolve_leniently(sources: &[SpecSource]) -> Result<(ir::Api, Vec<SpecError>), SpecErrors> {
    crate::diagnostic::with_suggestion_budget(|| resolve_within_budget(sources))
}

/// The description, with the rules of agreement it breaks; `Err` when it breaks any other.
fn resolve_within_budget(sources: &[SpecSource]) -> Result<(ir::Api, Vec<SpecError>), SpecErrors> {
    let mut resolver = Resolver {
        sources,
        locations: SourceIndexes::new(sources),
        errors: Vec::new(),
        suggested_types: HashSet::new(),
    };
    let files: Option<Vec<SpecFile>> = sources
        .iter()
        .enumerate()
        .map(|(file, source)| resolver.parse_file(file, source))
        // Every file read (and each unreadable one reported) before any is found missing.
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    // A file that cannot be read stops the run here, every such file named: the checks across
    // files would report each name it defines as unknown, a screen of follow-on errors before
    // the one that matters.
    let Some(files) = files else {
        return Err(SpecErrors(in_file_order(resolver.errors)));
    };
    let api = resolver.build(&files);
    let errors = in_file_order(resolver.errors);
    if errors.iter().all(|error| error.kind.is_agreement()) {
        debug_assert_eq!(api.check(), Ok(()), "resolve built an inconsistent Api");
        Ok((api, errors))
    } else {
        Err(SpecErrors(errors))
    }
}

/// `errors` by file and position, each once.
fn in_file_order(mut errors: Vec<SpecError>) -> Vec<SpecError> {
    errors.sort_by(|a, b| {
        let position = |e: &SpecError| e.location.map(|l| (l.line, l.column));
        (a.file.as_str(), position(a)).cmp(&(b.file.as_str(), position(b)))
    });
    errors.dedup();
    errors
}

/// A definition found in some file.
struct Defined<'a, T> {
    file: usize,
    name: &'a str,
    def: &'a T,
}

/// A method's `errors` and an error code's `methods`, by name, as the spec writes them.
struct WrittenErrorLists<'a> {
    of_method: HashMap<&'a str, &'a [String]>,
    of_code: HashMap<&'a str, &'a [String]>,
}

struct Resolver<'s> {
    sources: &'s [SpecSource],
    locations: SourceIndexes<'s>,
    errors: Vec<SpecError>,
    /// The type names suggested so far, so that two refused names are not given the same.
    suggested_types: HashSet<String>,
}

/// Where a problem is: the path shown, plus an optional key below it that locates it exactly.
struct At<'p> {
    file: usize,
    path: Vec<&'p str>,
    key: Option<&'p str>,
}

/// A list the spec writes that means a set (`absent_in`, `only_in`, `at_least_one_of`, a
/// method's `errors`, an error's `methods`, an OAuth endpoint's `response`, a per-method
/// `encoding` map's keys): sorted, so that no reader of the IR (the generator, spec-diff,
/// the OpenAPI export) sees the order the spec happens to write it in. Lists whose order is
/// meaning (fields, parameters, enum values, types, methods) keep the spec's.
fn as_set<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
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

/// All defined names, for lookups and suggestions.
struct Names<'a> {
    enums: BTreeSet<&'a str>,
    types: BTreeSet<&'a str>,
    methods: BTreeSet<&'a str>,
    errors: BTreeSet<&'a str>,
}

impl Resolver<'_> {
    fn report(&mut self, kind: ErrorKind, at: At<'_>, message: impl Into<String>) {
        let mut full: Vec<String> = at.path.iter().map(|s| (*s).to_owned()).collect();
        full.extend(at.key.map(str::to_owned));
        let location = self.locations.find(at.file, &full);
        self.errors.push(SpecError {
            kind,
            file: self.sources[at.file].path.clone(),
            location,
            path: at.path.join("."),
            message: message.into(),
        });
    }

    /// Each entry of the list at `path` that repeats an earlier one (`duplicate-name`): a list
    /// of the spec names each thing once, or its outputs repeat it (the export's lists, the
    /// docs' "Returned by").
    fn check_unique(&mut self, file: usize, path: &[&str], entries: &[String]) {
        let mut seen = HashSet::new();
        for (i, entry) in entries.iter().enumerate() {
            if !seen.insert(entry.as_str()) {
                let index = i.to_string();
                let mut full = path.to_vec();
                full.push(&index);
                self.report(
                    ErrorKind::DuplicateName,
                    at(file, &full),
                    format!("'{entry}' is already in this list"),
                );
            }
        }
    }

    /// A problem with a whole file (its name): located by the file alone.
    fn report_file(&mut self, kind: ErrorKind, file: usize, message: String) {
        self.errors.push(SpecError {
            kind,
            file: self.sources[file].path.clone(),
            location: None,
            path: String::new(),
            message,
        });
    }

    fn build(&mut self, files: &[SpecFile]) -> ir::Api {
        let file_infos: Vec<ir::SpecFileInfo> = self
            .sources
            .iter()
            .zip(files)
            .map(|(source, spec)| ir::SpecFileInfo {
                path: source.path.clone(),
                module: module_name(&source.path),
                doc: spec.doc.clone(),
            })
            .collect();
        self.check_modules(&file_infos);

        let errors = self.collect(files, "errors", |spec| &spec.errors);
        let enums = self.collect(files, "enums", |spec| &spec.enums);
        let types = self.collect(files, "types", |spec| &spec.types);
        let methods = self.collect(files, "methods", |spec| &spec.methods);
        for ty in types.values() {
            if let Some(other) = enums.get(ty.name) {
                let first = self.sources[other.file].path.clone();
                self.report(
                    ErrorKind::DuplicateName,
                    at(ty.file, &["types", ty.name]),
                    format!("'{}' is already defined as an enum in {first}", ty.name),
                );
            }
        }
        // A type's `documented_as` is the reference's name of it: one type's, and no other
        // type's own name (the export and the docs would give two schemas one name).
        let mut documented: HashMap<&str, &str> = HashMap::new();
        for ty in types.values() {
            let Some(alias) = ty.def.documented_as.as_deref() else {
                continue;
            };
            let clash = if alias == ty.name {
                Some("the type's own name".to_owned())
            } else if types.contains_key(alias) || enums.contains_key(alias) {
                Some(format!("the name of the type {alias}"))
            } else {
                documented
                    .get(alias)
                    .map(|other| format!("already the documented name of {other}"))
            };
            match clash {
                Some(clash) => self.report(
                    ErrorKind::DuplicateName,
                    at(ty.file, &["types", ty.name]).key("documented_as"),
                    format!("documented_as '{alias}' is {clash}"),
                ),
                None => {
                    documented.insert(alias, ty.name);
                }
            }
        }
        let names = Names {
            enums: enums.keys().copied().collect(),
            types: types.keys().copied().collect(),
            methods: methods.keys().copied().collect(),
            errors: errors.keys().copied().collect(),
        };

        // The error lists as the files write them: a disagreement is located at its entry
        // there, while the IR reads them sorted (`as_set`).
        let written = WrittenErrorLists {
            of_method: methods
                .iter()
                .map(|(name, m)| (*name, m.def.errors.as_slice()))
                .collect(),
            of_code: errors
                .iter()
                .filter_map(|(code, e)| e.def.methods.as_deref().map(|list| (*code, list)))
                .collect(),
        };

        let info = self.service_info(files);
        let oauth = self.oauth(files);
        let data_path = info
            .as_ref()
            .map_or("/api", |info| info.data_path.as_str())
            .to_owned();
        let enums: Vec<ir::Enum> = enums
            .values()
            .map(|e| self.enumeration(e, &names))
            .collect();
        // `ErrorCode` is open: its variants are the codes', checked as any enum's.
        let mut code_variants = enums::Variants::new(true);
        let errors: Vec<ir::ErrorCode> = errors
            .values()
            .map(|e| self.error_code(e, &names, &mut code_variants))
            .collect();
        // Field types first: which records each method delivers depends on them.
        let field_types: HashMap<&str, Vec<Option<TypeRef>>> = types
            .values()
            .map(|t| (t.name, self.field_types(t, &names)))
            .collect();
        self.check_containment(&types, &field_types);
        let records = methods::Records {
            types: &types,
            field_types: &field_types,
        };
        let methods: Vec<ir::Method> = methods
            .values()
            .map(|m| self.method(m, &names, &data_path, &records))
            .collect();
        self.check_paged_responses(&methods);
        self.check_error_lists(&errors, &methods, &written);
        self.check_paths(oauth.as_ref(), &methods);
        let (delivered_by, passed) = records::delivered_by(&methods, &types, &field_types);
        if let Some(method) = passed.map(|index| &methods[index]) {
            self.report(
                ErrorKind::TooLarge,
                at(method.file, &["methods", method.name.as_str()]),
                format!(
                    "with this method, the methods deliver types more than {} times in all \
                     (each method once for every type its response holds); refused",
                    records::MAX_DELIVERIES
                ),
            );
        }
        let records: Vec<ir::Record> = types
            .values()
            .map(|t| {
                let by = delivered_by.get(t.name).map_or(&[][..], Vec::as_slice);
                self.record(t, &field_types[t.name], by, &names)
            })
            .collect();
        self.check_method_names(&methods, &records, &enums);

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
}

impl Resolver<'_> {
    /// Every endpoint and data method at a path of its own: the OpenAPI export keys its
    /// operations by path (one would replace another), and the fake routes by it.
    fn check_paths(&mut self, oauth: Option<&ir::OAuth>, methods: &[ir::Method]) {
        let mut taken: HashMap<&str, String> = HashMap::new();
        let endpoints = oauth.into_iter().flat_map(|oauth| {
            oauth
                .endpoints
                .iter()
                .map(move |endpoint| (oauth.file, endpoint))
        });
        for (file, endpoint) in endpoints {
            let what = format!("the OAuth endpoint {}", endpoint.name);
            if let Some(first) = taken.get(endpoint.path.as_str()) {
                self.report(
                    ErrorKind::DuplicateName,
                    at(file, &["oauth", "endpoints", &endpoint.name]).key("path"),
                    format!("{} is already the path of {first}", endpoint.path),
                );
            } else {
                taken.insert(&endpoint.path, what);
            }
        }
        for method in methods {
            if let Some(first) = taken.get(method.path.as_str()) {
                self.report(
                    ErrorKind::DuplicateName,
                    at(method.file, &["methods", &method.name]),
                    format!("its path {} is already the path of {first}", method.path),
                );
            } else {
                taken.insert(&method.path, format!("the method {}", method.name));
            }
        }
    }

    /// ` (file:line:column)` of the entry at `path` in `file`, or of the nearest entry above it
    /// that is written (a method without an `errors` list: the method), or nothing.
    fn place(&self, file: usize, path: &[&str]) -> String {
        let path: Vec<String> = path.iter().map(|part| (*part).to_owned()).collect();
        (1..=path.len())
            .rev()
            .find_map(|len| self.locations.find(file, &path[..len]))
            .map_or_else(String::new, |at| {
                format!(" ({}:{}:{})", self.sources[file].path, at.line, at.column)
            })
    }

    /// An error code that names its methods and each method's `errors` agree, both ways (a
    /// code without `methods` is every method's, listed or not: `Api::errors_of`). Unknown
    /// names were reported where they are written; they are not reported again here.
    /// Linear: each list is looked up through a set made once (a hostile spec's lists are long).
    #[expect(
        clippy::disallowed_fields,
        reason = "the methods' own lists are what this checks"
    )]
    fn check_error_lists(
        &mut self,
        errors: &[ir::ErrorCode],
        methods: &[ir::Method],
        written: &WrittenErrorLists<'_>,
    ) {
        let codes_of: HashMap<&str, HashSet<&str>> = methods
            .iter()
            .map(|m| (m.name.as_str(), m.errors.iter().map(Id::as_str).collect()))
            .collect();
        let methods_of: HashMap<&str, Option<HashSet<&str>>> = errors
            .iter()
            .map(|e| {
                let named = e
                    .methods
                    .as_ref()
                    .map(|m| m.iter().map(Id::as_str).collect());
                (e.code.as_str(), named)
            })
            .collect();
        // Where the other list is, for the message: it is often in another file.
        let places: HashMap<&str, String> = methods
            .iter()
            .map(|m| {
                let place = self.place(m.file, &["methods", &m.name, "errors"]);
                (m.name.as_str(), place)
            })
            .collect();
        let code_files: HashMap<&str, usize> =
            errors.iter().map(|e| (e.code.as_str(), e.file)).collect();
        for error in errors {
            let Some(named) = written.of_code.get(error.code.as_str()) else {
                continue;
            };
            for (i, method) in named.iter().enumerate() {
                let Some(codes) = codes_of.get(method.as_str()) else {
                    continue;
                };
                if !codes.contains(error.code.as_str()) {
                    let index = i.to_string();
                    self.report(
                        ErrorKind::ErrorListsDisagree,
                        at(error.file, &["errors", &error.code, "methods", &index]),
                        format!(
                            "{} names method '{method}', whose errors leave it out; add it to \
                             methods.{method}.errors{}, or remove the method here",
                            error.code,
                            places.get(method.as_str()).map_or("", String::as_str),
                        ),
                    );
                }
            }
        }
        for method in methods {
            let listed = written.of_method.get(method.name.as_str());
            for (i, code) in listed.into_iter().flat_map(|list| list.iter()).enumerate() {
                let Some(Some(named)) = methods_of.get(code.as_str()) else {
                    continue;
                };
                if !named.contains(method.name.as_str()) {
                    let index = i.to_string();
                    self.report(
                        ErrorKind::ErrorListsDisagree,
                        at(method.file, &["methods", &method.name, "errors", &index]),
                        format!(
                            "{code} is named here, but its methods leave out '{}'; add the \
                             method to errors.{code}.methods{}, or remove the code here",
                            method.name,
                            self.place(
                                code_files[code.as_str()],
                                &["errors", code.as_str(), "methods"]
                            ),
                        ),
                    );
                }
            }
        }
    }
}

/// Whether `name` is `group/method`.
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

impl Resolver<'_> {
    /// Each file's module name is a Rust module name, and no other file's.
    fn check_modules(&mut self, files: &[ir::SpecFileInfo]) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut suggested: Vec<String> = Vec::new();
        for (file, info) in files.iter().enumerate() {
            let problem = match naming::module_name_problem(&info.module) {
                Some(problem) => problem,
                None => match seen.get(info.module.as_str()) {
                    Some(&first) => format!(
                        "{} already generates the module '{}'; rename one of them",
                        self.sources[first].path, info.module
                    ),
                    None => {
                        seen.insert(&info.module, file);
                        continue;
                    }
                },
            };
            let suggestion = naming::suggest_snake_name(&info.module, "spec", |candidate| {
                naming::module_name_problem(candidate).is_some()
                    || files.iter().any(|f| f.module == candidate)
                    || suggested.iter().any(|s| s == candidate)
            });
            self.report_file(
                ErrorKind::InvalidFileName,
                file,
                format!("{problem}{}", suggesting(&format!("{suggestion}.yaml"))),
            );
            suggested.push(suggestion);
        }
    }
}

/// The module a spec file generates: its file stem.
fn module_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(".yaml").unwrap_or(file).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

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
