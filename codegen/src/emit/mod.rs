//! Turns the [`Api`] into Rust source: one module per spec file plus `mod.rs`.
//!
//! Emitters build token streams with `quote`; [`format_file`] parses them with `syn` and prints
//! them with `prettyplease`, behind a header that says where the file comes from.

mod builder;
mod enumeration;
mod fake_shapes;
pub(crate) mod method;
mod record;
mod service;

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote};

pub use fake_shapes::{FAKE_SHAPES_DIR, fake_shapes};

use crate::ident::{ident, take_not_identifiers};
use crate::ir::{Api, Enum, Inconsistency, Lookup, Method, Record};
use crate::rust_type::{Import, RustTy};

/// The command that regenerates the client; generated headers and stale-check messages name it.
pub const REGENERATE_COMMAND: &str = "cargo xtask codegen";

/// One generated file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the generated module folder, e.g. `pay.rs`.
    pub path: String,
    /// The full contents.
    pub contents: String,
}

/// Generation failed: a bug in the generator or in what built the [`Api`], never in the spec
/// (a spec with a mistake is refused by `resolve`).
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// Emitted code failed to parse as Rust.
    #[error(
        "generated code for {file} is not valid Rust ({source}); this is a bug in marketplace-codegen"
    )]
    InvalidRust {
        /// The file being generated.
        file: String,
        /// What syn reported.
        source: syn::Error,
    },
    /// The `Api` breaks an invariant (see [`Api::check`]), so nothing was generated.
    #[error("the API is inconsistent, so nothing was generated: {0}")]
    Inconsistent(#[from] Inconsistency),
}

/// Generates every file of the client's generated module, in a fixed order. An `Api` that
/// breaks an invariant of [`Api::check`] is refused before anything is emitted.
pub fn generate(api: &Api) -> Result<Vec<GeneratedFile>, EmitError> {
    api.check()?;
    take_not_identifiers();
    let files = emit_files(api)?;
    if let Some(name) = take_not_identifiers().into_iter().next() {
        return Err(EmitError::Inconsistent(Inconsistency {
            at: "generated code".to_owned(),
            invariant: format!("'{name}' is not a Rust identifier"),
        }));
    }
    Ok(files)
}

/// The items each spec file declares, in spec order.
struct Declared<'a> {
    enums: Vec<&'a Enum>,
    records: Vec<&'a Record>,
    methods: Vec<&'a Method>,
}

fn emit_files(api: &Api) -> Result<Vec<GeneratedFile>, EmitError> {
    let lookup = api.lookup();
    // Each item to its file once, rather than every item looked at for every file.
    let mut declared: Vec<Declared<'_>> = api
        .files
        .iter()
        .map(|_| Declared {
            enums: Vec::new(),
            records: Vec::new(),
            methods: Vec::new(),
        })
        .collect();
    for e in &api.enums {
        if let Some(file) = declared.get_mut(e.file) {
            file.enums.push(e);
        }
    }
    for record in &api.records {
        if let Some(file) = declared.get_mut(record.file) {
            file.records.push(record);
        }
    }
    for method in &api.methods {
        if let Some(file) = declared.get_mut(method.file) {
            file.methods.push(method);
        }
    }
    let mut files = Vec::new();
    let mut exports = Vec::new();
    for ((index, spec_file), declared) in api.files.iter().enumerate().zip(declared) {
        let mut module = Module::new(&lookup, index);
        let mut items = TokenStream::new();
        items.extend(service::emit(&mut module));
        for e in declared.enums {
            items.extend(enumeration::emit(&mut module, e));
        }
        for record in declared.records {
            items.extend(record::emit(&mut module, record));
            items.extend(builder::emit(&mut module, record));
        }
        for method in declared.methods {
            items.extend(method::emit(&mut module, method));
        }
        let doc = spec_file
            .doc
            .clone()
            .or_else(|| {
                api.info
                    .as_ref()
                    .filter(|i| i.file == index)
                    .map(|i| i.doc.clone())
            })
            .unwrap_or_else(|| format!("Types declared in `{}`.", spec_file.path));
        let doc = inner_doc(&doc);
        let imports = module.imports();
        let tokens = quote! {
            #doc
            #imports
            #items
        };
        let path = format!("{}.rs", spec_file.module);
        files.push(GeneratedFile {
            contents: format_file(&path, &spec_file.path, tokens)?,
            path,
        });
        exports.push((spec_file.module.clone(), module.exports));
    }
    files.push(mod_file(api, &exports)?);
    Ok(files)
}

/// `mod.rs`: declares the modules and re-exports their items at the crate root.
fn mod_file(api: &Api, exports: &[(String, Vec<String>)]) -> Result<GeneratedFile, EmitError> {
    let modules = exports.iter().map(|(module, names)| {
        let module = ident(module);
        // A file that declares nothing (a doc, error codes of another file's enum) exports
        // nothing: `pub use module::{};` would be an unused import.
        let reexport = (!names.is_empty()).then(|| {
            let names = names.iter().map(|name| ident(name));
            quote! { pub use #module::{#(#names),*}; }
        });
        quote! {
            pub(crate) mod #module;
            #reexport
        }
    });
    let doc = inner_doc(
        "The generated part of the client: one module per spec file, re-exported at the crate root.",
    );
    let tokens = quote! {
        #doc
        #(#modules)*
    };
    let sources = api
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(GeneratedFile {
        path: "mod.rs".to_owned(),
        contents: format_file("mod.rs", &sources, tokens)?,
    })
}

/// Parses and pretty-prints one file behind the generated-file header.
///
/// prettyplease keeps no blank lines, so items are printed one by one and separated the way a
/// person would: a blank line between items (imports stay together) and between the members
/// of an `impl` or `mod`.
fn format_file(path: &str, source: &str, tokens: TokenStream) -> Result<String, EmitError> {
    let mut file: syn::File = syn::parse2(tokens).map_err(|source| EmitError::InvalidRust {
        file: path.to_owned(),
        source,
    })?;
    let mut out = format!(
        "// @generated by `{REGENERATE_COMMAND}` from {source}.\n\
         // Do not edit by hand: change the spec and run `{REGENERATE_COMMAND}`.\n\n"
    );
    let items = std::mem::take(&mut file.items);
    out.push_str(&prettyplease::unparse(&file));
    file.attrs.clear();
    let mut previous_was_use = false;
    for item in items {
        let is_use = matches!(item, syn::Item::Use(_));
        if !(is_use && previous_was_use) {
            out.push('\n');
        }
        previous_was_use = is_use;
        file.items = vec![item];
        let text = prettyplease::unparse(&file);
        out.push_str(&space_members(&text));
    }
    Ok(out)
}

/// Puts a blank line between the members of an `impl` or `mod` (one indentation level deep).
fn space_members(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len() + 64);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        let ends_member = *line == "    }"
            || (line.starts_with("    ") && !line.starts_with("     ") && line.ends_with(';'));
        let starts_member = lines.get(i + 1).is_some_and(|next| {
            next.strip_prefix("    ")
                .is_some_and(|rest| !rest.starts_with(' ') && !rest.starts_with('}'))
        });
        if ends_member && starts_member {
            out.push('\n');
        }
    }
    out
}

/// What one module's items need imported, and what it exports.
pub(crate) struct Module<'a> {
    pub(crate) api: &'a Api,
    /// The `Api`'s items by name, for the types items name.
    pub(crate) lookup: &'a Lookup<'a>,
    pub(crate) file: usize,
    uses: BTreeSet<Use>,
    exports: Vec<String>,
}

/// An import a generated module may need.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Use {
    Fmt,
    Date,
    Timestamp,
    Decimal,
    Deserialize,
    Deserializer,
    Serialize,
    Serializer,
    DayOrInstant,
    Wire,
    Session,
    Error,
    /// `Client`, `ClientBuilder`, `ConsumerCredentials`, `Service`, `OAuthService`.
    Client,
    /// The runtime's error code, of which `ErrorCode` is the typed view.
    RawErrorCode,
    /// `DataMethod`, `Query` and `Request`.
    Request,
    /// `PagedMethod`.
    PagedMethod,
    Paging,
    /// An item of another generated module.
    Sibling(String, String),
}

impl<'a> Module<'a> {
    fn new(lookup: &'a Lookup<'a>, file: usize) -> Self {
        Module {
            api: lookup.api(),
            lookup,
            file,
            uses: BTreeSet::new(),
            exports: Vec::new(),
        }
    }

    pub(crate) fn uses(&mut self, used: Use) {
        self.uses.insert(used);
    }

    /// Records that this module exports `name` (re-exported by `mod.rs`).
    pub(crate) fn export(&mut self, name: &str) {
        self.exports.push(name.to_owned());
    }

    /// The tokens of `ty`, importing what it names: runtime and library types, and generated
    /// items of other modules.
    pub(crate) fn ty(&mut self, ty: &RustTy) -> TokenStream {
        for import in ty.imports() {
            let used = match import {
                Import::Decimal => Use::Decimal,
                Import::Date => Use::Date,
                Import::Timestamp => Use::Timestamp,
                Import::DayOrInstant => Use::DayOrInstant,
                Import::Item { module, name } => {
                    if module == self.api.files[self.file].module {
                        continue;
                    }
                    Use::Sibling(module, name)
                }
            };
            self.uses(used);
        }
        ty.to_token_stream()
    }

    fn imports(&self) -> TokenStream {
        let mut tokens = TokenStream::new();
        let has = |u: Use| self.uses.contains(&u);
        if has(Use::Fmt) {
            tokens.extend(quote! { use std::fmt; });
        }
        if has(Use::Timestamp) {
            tokens.extend(quote! { use jiff::Timestamp; });
        }
        if has(Use::Date) {
            tokens.extend(quote! { use jiff::civil::Date; });
        }
        if has(Use::Decimal) {
            tokens.extend(quote! { use rust_decimal::Decimal; });
        }
        // `use path::{A, B};` with the names this module uses, or nothing.
        let group = |tokens: &mut TokenStream, path: TokenStream, names: &[(Use, &str)]| {
            let used: Vec<Ident> = names
                .iter()
                .filter(|(u, _)| self.uses.contains(u))
                .map(|(_, name)| ident(name))
                .collect();
            if !used.is_empty() {
                tokens.extend(quote! { use #path::{#(#used),*}; });
            }
        };
        group(
            &mut tokens,
            quote! { serde },
            &[
                (Use::Deserialize, "Deserialize"),
                (Use::Deserializer, "Deserializer"),
                (Use::Serialize, "Serialize"),
                (Use::Serializer, "Serializer"),
            ],
        );
        group(
            &mut tokens,
            quote! { crate },
            &[
                (Use::Client, "Client"),
                (Use::Client, "ClientBuilder"),
                (Use::Client, "ConsumerCredentials"),
                (Use::Error, "Error"),
                (Use::Client, "OAuthService"),
                (Use::RawErrorCode, "RawErrorCode"),
                (Use::Client, "Service"),
                (Use::Session, "Session"),
            ],
        );
        if has(Use::Paging) {
            tokens.extend(quote! { use crate::paging; });
        }
        group(
            &mut tokens,
            quote! { crate::request },
            &[
                (Use::Request, "DataMethod"),
                (Use::PagedMethod, "PagedMethod"),
                (Use::Request, "Query"),
                (Use::Request, "Request"),
            ],
        );
        if has(Use::DayOrInstant) {
            tokens.extend(quote! { use crate::wire::DayOrInstant; });
        }
        if has(Use::Wire) {
            tokens.extend(quote! { use crate::wire; });
        }
        let mut siblings: Vec<(&str, Vec<Ident>)> = Vec::new();
        for used in &self.uses {
            if let Use::Sibling(module, name) = used {
                match siblings.last_mut() {
                    Some((last, names)) if last == module => names.push(ident(name)),
                    _ => siblings.push((module, vec![ident(name)])),
                }
            }
        }
        for (module, names) in siblings {
            let module = ident(module);
            tokens.extend(quote! { use super::#module::{#(#names),*}; });
        }
        tokens
    }
}

/// `///` lines for a doc text (one attribute per line, so it prints as plain doc comments).
pub(crate) fn doc(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #(#[doc = #lines])* }
}

/// `//!` lines for a module doc.
fn inner_doc(text: &str) -> TokenStream {
    let lines = doc_lines(text);
    quote! { #(#![doc = #lines])* }
}

fn doc_lines(text: &str) -> Vec<String> {
    text.trim_end()
        .lines()
        .map(|line| {
            let line = line.trim_end();
            if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            }
        })
        .collect()
}

/// Joins paragraphs with a blank line, skipping empty ones.
pub(crate) fn paragraphs(parts: impl IntoIterator<Item = String>) -> String {
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim().to_owned())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Why a field or parameter is typed narrower than the reference says, for its doc.
pub(crate) fn narrowed_note(narrowed: Option<&str>) -> String {
    narrowed.map_or_else(String::new, |why| {
        format!("Typed narrower than the reference: {}", why.trim())
    })
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
pub(crate) fn code_list(items: &[impl AsRef<str>]) -> String {
    let ticked: Vec<String> = items.iter().map(|i| format!("`{}`", i.as_ref())).collect();
    match ticked.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
