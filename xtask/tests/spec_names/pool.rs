//! The names the generator writes into specs, derived from the code rather than listed: every
//! identifier and short string of the committed generated client that the spec did not give it
//! (the prelude items, std items, runtime items and helper names generated code uses, serde's
//! attribute names and values), every name the runtime's crate root declares or re-exports
//! (generated items are re-exported beside them), the methods of the runtime's `Session` and
//! `Request` (which generated constructors and setters sit beside), every identifier of the
//! runtime; with the Rust keywords, the prelude and its traits' methods, and each name's
//! spellings that meet after case conversion.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use heck::{ToKebabCase, ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{TokenStream, TokenTree};

/// Rust's keywords: strict (2015, 2018, 2024), reserved, and weak or contextual ones, which are
/// identifiers in most places (`union`, `raw`, `macro_rules`, `safe`, `auto`) and were not
/// always keywords (`dyn` in 2015). The language, not the code, defines them.
pub const KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "union",
    "raw",
    "macro_rules",
    "safe",
    "auto",
    "_",
];

/// The Rust 2024 prelude and the names every module sees without an import (primitive types,
/// the built-in derives and attributes, the extern prelude's `std`, `core`, `alloc`). Whatever
/// of these the generated code uses also comes from [`generated_identifiers`]; these cover what
/// it may use tomorrow.
pub const PRELUDE: &[&str] = &[
    "Copy",
    "Send",
    "Sized",
    "Sync",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "AsyncFn",
    "AsyncFnMut",
    "AsyncFnOnce",
    "drop",
    "align_of",
    "align_of_val",
    "size_of",
    "size_of_val",
    "Box",
    "ToOwned",
    "Clone",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "Default",
    "Iterator",
    "Extend",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "ToString",
    "Vec",
    "TryFrom",
    "TryInto",
    "FromIterator",
    "Future",
    "IntoFuture",
    "Debug",
    "Hash",
    "bool",
    "char",
    "str",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "std",
    "core",
    "alloc",
    "derive",
    "doc",
    "allow",
    "cfg",
    "test",
    "must_use",
    "non_exhaustive",
    "deprecated",
    "vec",
    "format",
    "panic",
    "assert",
    "write",
    "matches",
    "todo",
    "unreachable",
    "include",
    "env",
    "concat",
    "stringify",
];

/// The methods of the prelude's traits, which a type's own method of the name hides (the
/// traits generated code derives and calls among them).
pub const PRELUDE_METHODS: &[&str] = &[
    "clone",
    "clone_from",
    "to_owned",
    "clone_into",
    "to_string",
    "into",
    "from",
    "try_into",
    "try_from",
    "default",
    "eq",
    "ne",
    "cmp",
    "partial_cmp",
    "max",
    "min",
    "hash",
    "fmt",
    "as_ref",
    "as_mut",
    "borrow",
    "deref",
    "drop",
    "next",
    "into_iter",
    "extend",
    "from_iter",
    "into_future",
    "poll",
];

/// The methods of the runtime's types that generated code extends (`impl Session`, `impl
/// Request<…>`) or hands values to: what generated constructors and setters sit beside.
pub fn runtime_methods() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for path in rust_files(&runtime_src(), Some(&generated_dir())) {
        let Ok(file) = syn::parse_file(&fs::read_to_string(&path).unwrap()) else {
            continue;
        };
        for item in file.items {
            let syn::Item::Impl(block) = item else {
                continue;
            };
            let syn::Type::Path(ty) = &*block.self_ty else {
                continue;
            };
            let extended = ty
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Session" || s.ident == "Request");
            if !extended {
                continue;
            }
            for member in block.items {
                if let syn::ImplItem::Fn(function) = member {
                    names.insert(function.sig.ident.to_string());
                }
            }
        }
    }
    names
}

/// The names of one spec run: see the module doc.
pub struct Pool {
    /// Keywords, the prelude, the generated client's own identifiers and strings (those the
    /// spec does not give it), the runtime's crate-root names: every one goes into every
    /// position of the systematic specs.
    pub core: Vec<String>,
    /// The spellings of the core names that meet after case conversion (`fooBar`,
    /// `foo_bar`, `FooBar`, `FOO_BAR`, `HTTPServer`/`HttpServer`, digits, underscores,
    /// non-ASCII letters).
    pub spellings: Vec<String>,
    /// Every identifier of the runtime's source, for random picks.
    pub runtime: Vec<String>,
    /// The names the real spec gives the generated client, for random picks.
    pub spec: Vec<String>,
}

/// Every name the real spec gives the generated client: modules, types and their builders,
/// enums and variants, fields, methods, their request types, constructors and parameters,
/// and the wire names.
pub fn spec_names() -> BTreeSet<String> {
    let sources = marketplace_codegen::load_spec_dir(&workspace_root().join("spec"), "spec")
        .expect("the spec loads");
    let api = marketplace_codegen::resolve(&sources).expect("the spec is valid");
    let mut names = BTreeSet::new();
    names.extend(api.files.iter().map(|f| f.module.clone()));
    for e in &api.errors {
        names.extend([e.code.clone(), e.variant.clone()]);
    }
    for e in &api.enums {
        names.insert(e.name.clone());
        for v in &e.values {
            names.extend([v.wire.clone(), v.variant.clone()]);
        }
    }
    for r in &api.records {
        names.extend([r.name.clone(), format!("{}Builder", r.name)]);
        names.extend(r.documented_as.clone());
        for f in &r.fields {
            names.extend([f.wire_name.clone(), f.rust_name.clone()]);
            names.extend(f.documented_as.clone());
        }
    }
    for m in &api.methods {
        names.extend([
            m.name.clone(),
            m.delivered_api.clone(),
            m.rust_name.clone(),
            m.rust_name.to_upper_camel_case(),
        ]);
        for p in &m.params {
            names.extend([p.wire_name.clone(), p.rust_name.clone()]);
            names.insert(format!("{}_by_{}", m.rust_name, p.rust_name));
        }
    }
    names
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn runtime_src() -> PathBuf {
    workspace_root().join("generated-client/src")
}

fn generated_dir() -> PathBuf {
    runtime_src().join("generated")
}

/// The `.rs` files under `dir`, sorted, recursively; `skip` left out.
fn rust_files(dir: &Path, skip: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if Some(path.as_path()) == skip {
            continue;
        }
        if path.is_dir() {
            files.extend(rust_files(&path, skip));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// Every identifier of `tokens`, and the text of every short string literal (wire names,
/// serde's attribute values, method names).
fn collect(
    tokens: TokenStream,
    identifiers: &mut BTreeSet<String>,
    strings: &mut BTreeSet<String>,
) {
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                let text = ident.to_string();
                identifiers.insert(text.trim_start_matches("r#").to_owned());
            }
            TokenTree::Group(group) => collect(group.stream(), identifiers, strings),
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    if !inner.is_empty()
                        && inner.len() <= 40
                        && !inner.contains([' ', '\\', '{', '`'])
                    {
                        strings.insert(inner.to_owned());
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

fn tokens_of(path: &Path) -> TokenStream {
    let text = fs::read_to_string(path).unwrap();
    text.parse()
        .unwrap_or_else(|e| panic!("{} lexes: {e}", path.display()))
}

/// Every identifier and short string of the committed generated client: what generated code
/// names, imports and writes into attributes.
pub fn generated_identifiers() -> (BTreeSet<String>, BTreeSet<String>) {
    let mut identifiers = BTreeSet::new();
    let mut strings = BTreeSet::new();
    for file in rust_files(&generated_dir(), None) {
        collect(tokens_of(&file), &mut identifiers, &mut strings);
    }
    (identifiers, strings)
}

/// Every name the runtime's crate root declares or re-exports (`lib.rs`), where the generated
/// items are re-exported too.
pub fn runtime_root_names() -> BTreeSet<String> {
    runtime_root_items().into_keys().collect()
}

/// [`runtime_root_names`], each with whether the root makes it public.
pub fn runtime_root_items() -> std::collections::BTreeMap<String, bool> {
    let text = fs::read_to_string(runtime_src().join("lib.rs")).unwrap();
    let file = syn::parse_file(&text).expect("lib.rs parses");
    let mut items = std::collections::BTreeMap::new();
    for item in &file.items {
        let (names, vis) = match item {
            syn::Item::Use(u) => {
                let mut names = BTreeSet::new();
                use_leaves(&u.tree, &mut names);
                (names, &u.vis)
            }
            syn::Item::Mod(m) => (BTreeSet::from([m.ident.to_string()]), &m.vis),
            syn::Item::Struct(s) => (BTreeSet::from([s.ident.to_string()]), &s.vis),
            syn::Item::Enum(e) => (BTreeSet::from([e.ident.to_string()]), &e.vis),
            syn::Item::Fn(f) => (BTreeSet::from([f.sig.ident.to_string()]), &f.vis),
            syn::Item::Const(c) => (BTreeSet::from([c.ident.to_string()]), &c.vis),
            syn::Item::Static(s) => (BTreeSet::from([s.ident.to_string()]), &s.vis),
            syn::Item::Trait(t) => (BTreeSet::from([t.ident.to_string()]), &t.vis),
            syn::Item::Type(t) => (BTreeSet::from([t.ident.to_string()]), &t.vis),
            _ => continue,
        };
        let public = matches!(vis, syn::Visibility::Public(_));
        for name in names {
            items.insert(name, public);
        }
    }
    items
}

/// The names a `use` tree brings into scope.
pub fn use_leaves(tree: &syn::UseTree, names: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(path) => use_leaves(&path.tree, names),
        syn::UseTree::Name(name) => {
            names.insert(name.ident.to_string());
        }
        syn::UseTree::Rename(rename) => {
            names.insert(rename.rename.to_string());
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_leaves(tree, names);
            }
        }
    }
}

/// Every identifier of the runtime's own source (the generated folder left out).
pub fn runtime_identifiers() -> BTreeSet<String> {
    let mut identifiers = BTreeSet::new();
    let mut strings = BTreeSet::new();
    for file in rust_files(&runtime_src(), Some(&generated_dir())) {
        collect(tokens_of(&file), &mut identifiers, &mut strings);
    }
    identifiers
}

/// The spellings of `word` that case conversion may bring together: snake, camel and shouty
/// forms, an acronym kept upper case, digits, leading and trailing underscores, a non-ASCII
/// letter.
pub fn spellings(word: &str) -> Vec<String> {
    let snake = word.to_snake_case();
    let camel = word.to_upper_camel_case();
    let mut out = vec![
        word.to_owned(),
        snake.clone(),
        word.to_lower_camel_case(),
        camel.clone(),
        word.to_shouty_snake_case(),
        word.to_kebab_case(),
        format!("_{snake}"),
        format!("{snake}_"),
        format!("{snake}__x"),
        format!("{snake}2"),
        format!("{snake}_2"),
        format!("2{snake}"),
        format!("{camel}2"),
        format!("{camel}Builder"),
        format!("{camel}_"),
        format!("{}é", snake),
        format!("É{camel}"),
    ];
    // An acronym: the first part upper case (`HTTPServer` beside `HttpServer`).
    let parts: Vec<&str> = snake.split('_').filter(|p| !p.is_empty()).collect();
    if let Some((first, rest)) = parts.split_first() {
        let rest: String = rest.iter().map(|p| p.to_upper_camel_case()).collect();
        out.push(format!("{}{rest}", first.to_uppercase()));
        out.push(format!("{first}{}", rest.to_uppercase()));
    }
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

impl Pool {
    pub fn new() -> Pool {
        let (identifiers, strings) = generated_identifiers();
        let spec = spec_names();
        let mut core: BTreeSet<String> = KEYWORDS.iter().map(|k| (*k).to_owned()).collect();
        core.extend(PRELUDE.iter().map(|p| (*p).to_owned()));
        // What the generated code names of its own, not what the spec named.
        core.extend(identifiers.into_iter().filter(|i| !spec.contains(i)));
        core.extend(strings.into_iter().filter(|s| !spec.contains(s)));
        core.extend(runtime_root_names());
        core.extend(runtime_methods());
        core.extend(PRELUDE_METHODS.iter().map(|m| (*m).to_owned()));
        let mut spellings_of: BTreeSet<String> = BTreeSet::new();
        for word in &core {
            spellings_of.extend(spellings(word));
        }
        Pool {
            core: core.into_iter().collect(),
            spellings: spellings_of.into_iter().collect(),
            runtime: runtime_identifiers().into_iter().collect(),
            spec: spec.into_iter().collect(),
        }
    }
}
