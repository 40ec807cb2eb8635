//! The Rust names every section derives: type names, field and parameter names, and the names
//! each method adds to the generated crate (its request type and its `Session` constructors),
//! each of which must be free.

use std::collections::{HashMap, HashSet};

use super::{Names, Resolver, at};
use crate::diagnostic::{ErrorKind, suggesting};
use crate::ir;
use crate::naming::{self, RESERVED_TYPE_NAMES, constructor_names, request_type_name};

/// The methods of the runtime's `Session`, public or not, its own and of the traits it
/// derives, which a data method's constructor must not take: two inherent methods of one name
/// do not compile, and one of a trait's name takes the place of the trait's (the runtime calls
/// `session.clone()`). A test reads them from the runtime's source. And `new`, which readers
/// and clippy (`new_ret_no_self`) take for a constructor of `Session` itself.
const SESSION_METHODS: &[&str] = &[
    "call",
    "check_expiry",
    "clone",
    "clone_from",
    "clone_into",
    "expires_at",
    "fmt",
    "get",
    "new",
    "page_concurrency",
    "revoke",
    "revoke_unscrubbed",
    "scrubber",
    "to_owned",
    "token",
];

/// The methods of the runtime's `Request`, public or not, its own and of the traits it
/// derives, which a parameter's setter must not take. A test reads them from the runtime's
/// source.
const REQUEST_METHODS: &[&str] = &[
    "clone",
    "clone_from",
    "clone_into",
    "customize",
    "fmt",
    "items",
    "new",
    "pages",
    "send",
    "send_with_metadata",
    "to_owned",
    "walk",
];

/// The methods of a record's builder besides its setters, its own and of the traits it
/// derives (`builder()` calls `Default::default`): a field must not take them. A test reads
/// them from generated code.
pub(super) const BUILDER_METHODS: &[&str] = &[
    "build",
    "clone",
    "clone_from",
    "clone_into",
    "default",
    "fmt",
    "to_owned",
];

impl Resolver<'_> {
    /// A type or enum name: an UpperCamelCase Rust name that generated code does not reserve.
    /// The suggestion is free among `names`.
    pub(super) fn check_type_name(
        &mut self,
        file: usize,
        section: &str,
        name: &str,
        names: &Names<'_>,
    ) {
        if let Some(problem) = naming::type_name_problem(name) {
            let suggestion = naming::suggest_type_name(name, |candidate| {
                names.types.contains(candidate)
                    || names.enums.contains(candidate)
                    || self.suggested_types.contains(candidate)
            });
            self.suggested_types.insert(suggestion.clone());
            self.report(
                ErrorKind::InvalidTypeName,
                at(file, &[section, name]),
                format!("{problem}; rename it{}", suggesting(&suggestion)),
            );
        }
    }

    /// The Rust name of a field, parameter or method: the override, or the derived snake_case
    /// name.
    pub(super) fn rust_name(
        &mut self,
        file: usize,
        path: &[&str],
        wire: &str,
        explicit: Option<&str>,
    ) -> Option<String> {
        // What the name is of, to suggest one when the wire name gives nothing.
        let fallback = match path {
            ["types", ..] => "field",
            [_, _, "params", ..] => "param",
            _ => "method",
        };
        // A method's name also makes its request type, which must be a type name, and its
        // constructors `{name}_by_{param}`, which a trailing `_` would give a `__`.
        let suggestion = |name: &str| {
            suggesting(&naming::suggest_snake_name(name, fallback, |candidate| {
                fallback == "method"
                    && (candidate.ends_with('_')
                        || naming::type_name_problem(&naming::request_type_name_of(candidate))
                            .is_some())
            }))
        };
        match explicit {
            Some(name) if naming::is_snake_identifier(name) => Some(name.to_owned()),
            Some(name) => {
                self.report(
                    ErrorKind::InvalidRustName,
                    at(file, path).key("rust_name"),
                    format!(
                        "'{name}' is not a snake_case Rust name (or is a keyword){}",
                        suggestion(name)
                    ),
                );
                None
            }
            None => {
                let derived = naming::snake_name(wire);
                if naming::is_snake_identifier(&derived) {
                    Some(derived)
                } else if naming::is_keyword(&derived) {
                    self.report(
                        ErrorKind::InvalidRustName,
                        at(file, path),
                        format!(
                            "'{derived}' is a Rust keyword; set rust_name{}",
                            suggestion(&derived)
                        ),
                    );
                    None
                } else {
                    self.report(
                        ErrorKind::InvalidRustName,
                        at(file, path),
                        format!(
                            "cannot derive a Rust name from '{wire}'; set rust_name{}",
                            suggestion(wire)
                        ),
                    );
                    None
                }
            }
        }
    }

    /// A method's request type must not take the name of a type, an enum, a runtime type or
    /// another method's request type; its constructors must not take another method's or one
    /// of `Session`'s own. (Generated code with two items of one name does not compile.)
    /// Each refusal suggests a free name.
    pub(super) fn check_method_names(
        &mut self,
        methods: &[ir::Method],
        records: &[ir::Record],
        enums: &[ir::Enum],
    ) {
        let mut types: HashMap<String, String> = HashMap::new();
        for record in records {
            types.insert(record.name.clone(), format!("the type {}", record.name));
        }
        for e in enums {
            types.insert(e.name.clone(), format!("the enum {}", e.name));
        }
        for reserved in RESERVED_TYPE_NAMES {
            types.insert((*reserved).to_owned(), "a runtime type".to_owned());
        }
        for record in records.iter().filter(|r| !r.opaque) {
            let builder = format!("{}Builder", record.name);
            match types.get(&builder) {
                Some(taken) => {
                    let suggestion = naming::suggest_type_name(&record.name, |candidate| {
                        types.contains_key(candidate)
                            || types.contains_key(&format!("{candidate}Builder"))
                            || self.suggested_types.contains(candidate)
                    });
                    self.suggested_types.insert(suggestion.clone());
                    self.report(
                        ErrorKind::RustNameTaken,
                        at(record.file, &["types", record.name.as_str()]),
                        format!(
                            "its builder '{builder}' is already {taken}; rename one of them{}",
                            suggesting(&suggestion)
                        ),
                    );
                }
                None => {
                    types.insert(builder, format!("the builder of the type {}", record.name));
                }
            }
        }
        let mut constructors: HashMap<String, String> = SESSION_METHODS
            .iter()
            .map(|name| {
                (
                    (*name).to_owned(),
                    "a method of the runtime's Session".to_owned(),
                )
            })
            .chain(naming::STD_TRAIT_METHOD_NAMES.iter().map(|name| {
                (
                    (*name).to_owned(),
                    "the method of a standard trait (clippy: should_implement_trait)".to_owned(),
                )
            }))
            .collect();
        // The request types and constructors of the Rust names suggested so far: two methods
        // are not given the same.
        let mut suggested: (HashSet<String>, HashSet<String>) = Default::default();
        for method in methods.iter().filter(|m| !m.rust_name.is_empty()) {
            self.check_param_names(method);
            let place = || at(method.file, &["methods", method.name.as_str()]);
            // A Rust name whose request type and constructors are all free.
            let free_rust_name =
                |types: &HashMap<String, String>,
                 constructors: &HashMap<String, String>,
                 suggested: &mut (HashSet<String>, HashSet<String>)| {
                    let group = method.name.split('/').next().unwrap_or_default();
                    let base = format!("{group}_{}", method.rust_name);
                    let suggestion = naming::suggest_snake_name(&base, "method", |candidate| {
                        let request = naming::request_type_name_of(candidate);
                        naming::type_name_problem(&request).is_some()
                            || types.contains_key(&request)
                            || suggested.0.contains(&request)
                            || constructor_names_of(candidate, method).iter().any(|c| {
                                !naming::is_snake_identifier(c)
                                    || constructors.contains_key(c)
                                    || suggested.1.contains(c)
                            })
                    });
                    suggested
                        .0
                        .insert(naming::request_type_name_of(&suggestion));
                    suggested
                        .1
                        .extend(constructor_names_of(&suggestion, method));
                    suggestion
                };
            let request = request_type_name(method);
            if !naming::is_camel_identifier(&request) {
                let suggestion = free_rust_name(&types, &constructors, &mut suggested);
                self.report(
                    ErrorKind::InvalidRustName,
                    place(),
                    format!(
                        "its request type '{request}' (from the Rust name '{}') is not a Rust \
                         type name; set another rust_name{}",
                        method.rust_name,
                        suggesting(&suggestion)
                    ),
                );
                continue;
            }
            match types.get(&request) {
                Some(taken) => {
                    let suggestion = free_rust_name(&types, &constructors, &mut suggested);
                    self.report(
                        ErrorKind::RustNameTaken,
                        place(),
                        format!(
                            "its request type '{request}' (from the Rust name '{}') is already \
                             {taken}; set another rust_name{}",
                            method.rust_name,
                            suggesting(&suggestion)
                        ),
                    );
                }
                None => {
                    types.insert(request, format!("the request type of {}", method.name));
                }
            }
            if !method
                .at_least_one_of
                .iter()
                .all(|id| method.params.iter().any(|p| p.wire_name == *id))
            {
                continue; // reported as an unknown parameter
            }
            for constructor in constructor_names(method) {
                let problem = if !naming::is_snake_identifier(&constructor) {
                    Some((
                        ErrorKind::InvalidRustName,
                        "not a snake_case Rust name".to_owned(),
                    ))
                } else {
                    constructors
                        .get(&constructor)
                        .map(|taken| (ErrorKind::RustNameTaken, format!("already {taken}")))
                };
                match problem {
                    Some((kind, problem)) => {
                        let suggestion = free_rust_name(&types, &constructors, &mut suggested);
                        self.report(
                            kind,
                            place(),
                            format!(
                                "its constructor Session::{constructor} (from the Rust name \
                                 '{}') is {problem}; set another rust_name{}",
                                method.rust_name,
                                suggesting(&suggestion)
                            ),
                        );
                    }
                    None => {
                        constructors
                            .insert(constructor, format!("the constructor of {}", method.name));
                    }
                }
            }
        }
    }

    /// Two parameters of a method must not become the same Rust field, nor a setter one of
    /// the runtime's `Request` methods. Each refusal suggests a name free among the parameters.
    fn check_param_names(&mut self, method: &ir::Method) {
        let mut taken: HashMap<&str, &str> = HashMap::new();
        let all: Vec<&str> = method.params.iter().map(|p| p.rust_name.as_str()).collect();
        let mut suggested: Vec<String> = Vec::new();
        for param in &method.params {
            let rust = param.rust_name.as_str();
            let problem = if REQUEST_METHODS.contains(&rust) {
                Some((
                    format!("{rust}_value"),
                    format!("its setter Request::{rust} is a method of the runtime's Request"),
                ))
            } else if naming::STD_TRAIT_METHOD_NAMES.contains(&rust) {
                Some((
                    format!("{rust}_value"),
                    format!(
                        "its setter Request::{rust} is the method of a standard trait (clippy: \
                         should_implement_trait)"
                    ),
                ))
            } else {
                taken.get(rust).map(|previous| {
                    (
                        rust.to_owned(),
                        format!(
                            "'{}' and '{previous}' both become the Rust parameter '{rust}'",
                            param.wire_name
                        ),
                    )
                })
            };
            taken.entry(rust).or_insert(&param.wire_name);
            let Some((base, problem)) = problem else {
                continue;
            };
            let suggestion = naming::suggest_snake_name(&base, "param", |candidate| {
                all.contains(&candidate)
                    || suggested.iter().any(|s| s == candidate)
                    || REQUEST_METHODS.contains(&candidate)
                    || naming::STD_TRAIT_METHOD_NAMES.contains(&candidate)
            });
            self.report(
                ErrorKind::RustNameTaken,
                at(
                    method.file,
                    &[
                        "methods",
                        method.name.as_str(),
                        "params",
                        param.wire_name.as_str(),
                    ],
                ),
                format!("{problem}; set rust_name{}", suggesting(&suggestion)),
            );
            suggested.push(suggestion);
        }
    }
}

/// The constructors `method` would have with the Rust name `rust_name`, of the alternatives
/// that are parameters (a missing one is reported as an unknown parameter).
fn constructor_names_of(rust_name: &str, method: &ir::Method) -> Vec<String> {
    if method.at_least_one_of.is_empty() {
        return vec![rust_name.to_owned()];
    }
    method
        .at_least_one_of
        .iter()
        .filter_map(|id| method.params.iter().find(|p| p.wire_name == *id))
        .map(|param| format!("{rust_name}_by_{}", param.rust_name))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use heck::ToUpperCamelCase;
    use proc_macro2::{TokenStream, TokenTree};

    use super::{BUILDER_METHODS, REQUEST_METHODS, RESERVED_TYPE_NAMES, SESSION_METHODS};
    use crate::emit::GeneratedFile;
    use crate::ir::Api;

    /// The methods each trait a runtime or generated type derives or implements gives it (a
    /// trait's own, and those of the prelude's blanket impls it brings: `ToOwned` for
    /// `Clone`). A trait missing here fails the tests below, which say to add it.
    const TRAIT_METHODS: &[(&str, &[&str])] = &[
        ("Clone", &["clone", "clone_from", "to_owned", "clone_into"]),
        ("Copy", &[]),
        ("Debug", &["fmt"]),
        ("Default", &["default"]),
        ("PartialEq", &["eq", "ne"]),
        ("Eq", &[]),
    ];

    /// The methods of the traits in `traits`.
    fn methods_of_traits(traits: &BTreeSet<String>, of: &str) -> Vec<&'static str> {
        traits
            .iter()
            .flat_map(|name| {
                TRAIT_METHODS
                    .iter()
                    .find(|(t, _)| t == name)
                    .unwrap_or_else(|| panic!("{of} has the trait {name}: add it to TRAIT_METHODS"))
                    .1
                    .iter()
                    .copied()
            })
            .collect()
    }

    /// The runtime's source file `file`, parsed.
    fn runtime_file(file: &str) -> syn::File {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../generated-client/src")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("the runtime's source");
        syn::parse_file(&text).expect("the runtime's source parses")
    }

    /// The traits `#[derive(…)]` on the struct `type_name` of `file` names.
    fn derived(file: &syn::File, type_name: &str) -> BTreeSet<String> {
        let mut traits = BTreeSet::new();
        for item in &file.items {
            let syn::Item::Struct(s) = item else { continue };
            if s.ident != type_name {
                continue;
            }
            for attr in s.attrs.iter().filter(|a| a.path().is_ident("derive")) {
                let _ = attr.parse_nested_meta(|meta| {
                    if let Some(name) = meta.path.segments.last() {
                        traits.insert(name.ident.to_string());
                    }
                    Ok(())
                });
            }
        }
        traits
    }

    /// The methods of `type_name` in `file`, public or not: its inherent methods, and those of
    /// the traits it implements there or derives.
    fn methods(file: &syn::File, type_name: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut traits = derived(file, type_name);
        for item in &file.items {
            let syn::Item::Impl(block) = item else {
                continue;
            };
            let syn::Type::Path(ty) = &*block.self_ty else {
                continue;
            };
            let is_type = ty
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == type_name);
            if !is_type {
                continue;
            }
            if let Some((path, _)) = &block.trait_ {
                if let Some(name) = path.segments.last() {
                    traits.insert(name.ident.to_string());
                }
                continue;
            }
            for member in &block.items {
                if let syn::ImplItem::Fn(function) = member {
                    names.push(function.sig.ident.to_string());
                }
            }
        }
        names.extend(
            methods_of_traits(&traits, type_name)
                .into_iter()
                .map(str::to_owned),
        );
        names
    }

    /// A constructor or setter of the name of a runtime method, its own or of a trait it has,
    /// would not compile (or would hide it): the lists name every one.
    #[test]
    fn the_reserved_method_names_are_the_runtimes() {
        for (file, type_name, reserved) in [
            ("client.rs", "Session", SESSION_METHODS),
            ("request.rs", "Request", REQUEST_METHODS),
        ] {
            let methods = methods(&runtime_file(file), type_name);
            assert!(!methods.is_empty(), "no method of {type_name} in {file}");
            for method in methods {
                assert!(
                    reserved.contains(&method.as_str()),
                    "{type_name}::{method} (in {file}) is missing from the reserved names"
                );
            }
        }
    }

    /// The real spec, resolved, and the code generated from it (every emitter runs on it).
    fn real_spec() -> (Api, Vec<GeneratedFile>) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let sources = crate::load_spec_dir(&dir, "spec").expect("the spec loads");
        let api = crate::resolve(&sources).expect("the spec is valid");
        let files = crate::generate(&api).expect("the spec generates");
        (api, files)
    }

    /// The names the spec gives generated code: modules, types, builders, enums, variants,
    /// request types.
    fn spec_names(api: &Api) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = api.files.iter().map(|f| f.module.clone()).collect();
        for record in &api.records {
            names.insert(record.name.clone());
            names.insert(format!("{}Builder", record.name));
        }
        for e in &api.enums {
            names.insert(e.name.clone());
            names.extend(e.values.iter().map(|v| v.variant.clone()));
        }
        names.extend(api.errors.iter().map(|e| e.variant.clone()));
        names.extend(
            api.methods
                .iter()
                .map(|m| m.rust_name.to_upper_camel_case()),
        );
        names
    }

    /// Every identifier of `tokens` not reached through a path (`a::B`) or a value (`a.b`):
    /// what a module's own items may shadow.
    fn unqualified(tokens: TokenStream, names: &mut BTreeSet<String>) {
        let mut previous: Vec<char> = Vec::new();
        for token in tokens {
            match &token {
                TokenTree::Ident(ident) => {
                    let qualified = previous.ends_with(&[':', ':']) || previous.ends_with(&['.']);
                    if !qualified {
                        names.insert(ident.to_string());
                    }
                    previous.clear();
                }
                TokenTree::Punct(punct) => previous.push(punct.as_char()),
                TokenTree::Group(group) => {
                    unqualified(group.stream(), names);
                    previous.clear();
                }
                TokenTree::Literal(_) => previous.clear(),
            }
        }
    }

    /// Names generated code defines in a scope of their own, where a generated type of the same
    /// name does not reach: the variant of unknown values of an open enum, the associated
    /// types and constants of the runtime's traits (`type Response`, `const NAME`, …) and the
    /// type parameters of the serde impls.
    const SCOPED: &[&str] = &[
        "Other",
        "Response",
        "Item",
        "NAME",
        "PATH",
        "VALUES",
        "FIRST_PAGE",
        "BEYOND_LAST",
        "S",
        "D",
        "Self",
    ];

    /// A generated type named as something generated code names without a path would take
    /// its place there: every such name (a type, trait, derive or value of the prelude, an
    /// import) is reserved. Read from the code generated for the real spec.
    #[test]
    fn every_name_generated_code_uses_without_a_path_is_reserved() {
        let (api, files) = real_spec();
        let spec = spec_names(&api);
        let mut used = BTreeSet::new();
        for file in &files {
            let tokens: TokenStream = file.contents.parse().expect("generated code lexes");
            unqualified(tokens, &mut used);
        }
        let missing: Vec<&String> = used
            .iter()
            .filter(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
            .filter(|name| !spec.contains(*name) && !SCOPED.contains(&name.as_str()))
            .filter(|name| !RESERVED_TYPE_NAMES.contains(&name.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "generated code names these without a path; add them to RESERVED_TYPE_NAMES: {missing:?}"
        );
    }

    /// The crate root re-exports every generated item with a glob, which the runtime's own
    /// names there shadow without a word: every one is reserved.
    #[test]
    fn every_name_of_the_runtimes_crate_root_is_reserved() {
        let lib = runtime_file("lib.rs");
        let mut names = BTreeSet::new();
        fn leaves(tree: &syn::UseTree, names: &mut BTreeSet<String>) {
            match tree {
                syn::UseTree::Path(path) => leaves(&path.tree, names),
                syn::UseTree::Name(name) => {
                    names.insert(name.ident.to_string());
                }
                syn::UseTree::Rename(rename) => {
                    names.insert(rename.rename.to_string());
                }
                syn::UseTree::Glob(_) => {}
                syn::UseTree::Group(group) => {
                    for tree in &group.items {
                        leaves(tree, names);
                    }
                }
            }
        }
        for item in &lib.items {
            match item {
                syn::Item::Use(u) => leaves(&u.tree, &mut names),
                syn::Item::Struct(s) => {
                    names.insert(s.ident.to_string());
                }
                syn::Item::Enum(e) => {
                    names.insert(e.ident.to_string());
                }
                syn::Item::Trait(t) => {
                    names.insert(t.ident.to_string());
                }
                syn::Item::Type(t) => {
                    names.insert(t.ident.to_string());
                }
                _ => {}
            }
        }
        assert!(names.len() > 20, "{names:?}");
        let missing: Vec<&String> = names
            .iter()
            .filter(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
            .filter(|name| !RESERVED_TYPE_NAMES.contains(&name.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "the crate root names these; add them to RESERVED_TYPE_NAMES: {missing:?}"
        );
    }

    /// A field's setter of the name of one of its builder's methods (`build`, or of a trait
    /// the builder derives: `Default::default`, which `builder()` calls) would not compile.
    #[test]
    fn the_builders_own_methods_are_reserved() {
        let (api, files) = real_spec();
        let record = api
            .records
            .iter()
            .find(|r| !r.opaque)
            .expect("a record with a builder");
        let builder = format!("{}Builder", record.name);
        let file = files
            .iter()
            .find(|f| f.contents.contains(&format!("pub struct {builder} ")))
            .expect("the builder's file");
        let file = syn::parse_file(&file.contents).expect("generated code parses");
        let setters: BTreeSet<&str> = record.fields.iter().map(|f| f.rust_name.as_str()).collect();
        let own: Vec<String> = methods(&file, &builder)
            .into_iter()
            .filter(|m| !setters.contains(m.as_str()))
            .collect();
        assert!(own.contains(&"build".to_owned()), "{own:?}");
        for method in own {
            assert!(
                BUILDER_METHODS.contains(&method.as_str()),
                "{builder}::{method} is missing from BUILDER_METHODS"
            );
        }
    }
}
