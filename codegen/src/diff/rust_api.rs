//! The public Rust items of a generated crate, read from the generated code with `syn`: the
//! Rust side of a spec diff compares these, not the spec, so its verdict is what the compiler
//! would say to a caller of the old crate.
//!
//! Every item has a key: `Timesheet` (a struct or enum), `Timesheet.rate` (a field),
//! `ReportStatus::Draft` (a variant), `Session::get_timesheet()` and `GetTimesheet::rpp()`
//! (inherent methods), `DATA_PATH` (a constant), `impl Page for Workview` and `impl Clone for Timesheet`
//! (trait impls, derives included). A caller breaks when an item it uses is gone or has
//! another signature, when a struct it builds gains a field or an enum it matches exhaustively
//! gains a variant (neither can happen to a `#[non_exhaustive]` one).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use quote::ToTokens;
use syn::punctuated::Punctuated;

use crate::emit::{EmitError, GeneratedFile};

/// What a module of [`RustApi::caller`] lines imports besides the generated crate's items.
pub const CALLER_IMPORTS: &str = "use marketplace_client::{CallOptions, ClientBuilder, \
    ConsumerCredentials, DayOrInstant, Decimal, Error, OAuthService, RawErrorCode, Request, Service, \
    paging, wire};\nuse marketplace_client::request::{DataMethod, PagedMethod};\nuse \
    marketplace_client::jiff::{Timestamp, civil::Date};\nuse futures::Stream;\n";

/// One public item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A struct; its public fields are items of their own.
    Struct {
        /// `#[non_exhaustive]`: callers cannot build it with a literal.
        non_exhaustive: bool,
    },
    /// A public field, with its type.
    Field {
        /// The type, as tokens.
        ty: String,
    },
    /// An enum; its variants are items of their own.
    Enum {
        /// `#[non_exhaustive]`: callers must match it with a wildcard.
        non_exhaustive: bool,
    },
    /// A variant, with its fields (`(String)`) or empty.
    Variant {
        /// The fields, as tokens.
        fields: String,
    },
    /// A constant, with its type.
    Const {
        /// The type, as tokens.
        ty: String,
    },
    /// A public inherent method.
    Method(Method),
    /// A trait implementation, with its associated types.
    TraitImpl {
        /// `type Item = X;` items, as tokens.
        associated: String,
    },
}

/// A method's signature, in parts a caller can be written from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// `async fn`.
    pub is_async: bool,
    /// `&self`, `self`, `mut self`, or `None` for an associated function.
    pub receiver: Option<String>,
    /// Argument names and types.
    pub params: Vec<(String, String)>,
    /// The return type (`Self` kept as written), empty for `()`.
    pub output: String,
}

/// Every public item of a generated crate, by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RustApi {
    /// Items by key, in key order.
    pub items: BTreeMap<String, Item>,
}

impl RustApi {
    /// Reads the public items of the generated files (the crate root re-exports each module's
    /// public items; `mod.rs` holds only those re-exports).
    pub fn from_files(files: &[GeneratedFile]) -> Result<RustApi, EmitError> {
        let mut api = RustApi::default();
        for file in files.iter().filter(|f| f.path != "mod.rs") {
            let parsed =
                syn::parse_file(&file.contents).map_err(|source| EmitError::InvalidRust {
                    file: file.path.clone(),
                    source,
                })?;
            for item in &parsed.items {
                api.item(item);
            }
        }
        Ok(api)
    }

    fn item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Struct(s) if public(&s.vis) => {
                let name = s.ident.to_string();
                for field in &s.fields {
                    if let (true, Some(ident)) = (public(&field.vis), &field.ident) {
                        self.insert(
                            format!("{name}.{ident}"),
                            Item::Field {
                                ty: tokens(&field.ty),
                            },
                        );
                    }
                }
                self.derives(&name, &s.attrs);
                self.insert(
                    name,
                    Item::Struct {
                        non_exhaustive: non_exhaustive(&s.attrs),
                    },
                );
            }
            syn::Item::Enum(e) if public(&e.vis) => {
                let name = e.ident.to_string();
                for variant in &e.variants {
                    self.insert(
                        format!("{name}::{}", variant.ident),
                        Item::Variant {
                            fields: tokens(&variant.fields),
                        },
                    );
                }
                self.derives(&name, &e.attrs);
                self.insert(
                    name,
                    Item::Enum {
                        non_exhaustive: non_exhaustive(&e.attrs),
                    },
                );
            }
            syn::Item::Const(c) if public(&c.vis) => {
                self.insert(c.ident.to_string(), Item::Const { ty: tokens(&c.ty) });
            }
            syn::Item::Impl(block) => self.impl_block(block),
            _ => {}
        }
    }

    fn impl_block(&mut self, block: &syn::ItemImpl) {
        let self_ty = tokens(&block.self_ty);
        if let Some((path, _)) = &block.trait_ {
            let associated: Vec<String> = block
                .items
                .iter()
                .filter_map(|item| match item {
                    syn::ImplItem::Type(t) => Some(tokens(t)),
                    _ => None,
                })
                .collect();
            self.insert(
                format!("impl {} for {self_ty}", last_segment(path)),
                Item::TraitImpl {
                    associated: associated.join(" "),
                },
            );
            return;
        }
        for item in &block.items {
            let syn::ImplItem::Fn(function) = item else {
                continue;
            };
            if !public(&function.vis) {
                continue;
            }
            let sig = &function.sig;
            let mut receiver = None;
            let mut params = Vec::new();
            for input in &sig.inputs {
                match input {
                    syn::FnArg::Receiver(r) => receiver = Some(tokens(r)),
                    syn::FnArg::Typed(typed) => {
                        params.push((tokens(&typed.pat), tokens(&typed.ty)));
                    }
                }
            }
            let output = match &sig.output {
                syn::ReturnType::Default => String::new(),
                syn::ReturnType::Type(_, ty) => tokens(ty),
            };
            self.insert(
                format!("{self_ty}::{}()", sig.ident),
                Item::Method(Method {
                    is_async: sig.asyncness.is_some(),
                    receiver,
                    params,
                    output,
                }),
            );
        }
    }

    /// `#[derive(Clone, Serialize)]` as `impl Clone for X` items.
    fn derives(&mut self, name: &str, attrs: &[syn::Attribute]) {
        for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
            let Ok(paths) =
                attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            else {
                continue;
            };
            for path in paths {
                self.insert(
                    format!("impl {} for {name}", last_segment(&path)),
                    Item::TraitImpl {
                        associated: String::new(),
                    },
                );
            }
        }
    }

    fn insert(&mut self, key: String, item: Item) {
        self.items.insert(key, item);
    }

    /// The items whose key starts with `prefix`: a range of the sorted keys.
    fn with_prefix<'s, 'p>(
        &'s self,
        prefix: &'p str,
    ) -> impl Iterator<Item = (&'s String, &'s Item)> + use<'s, 'p> {
        self.items
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(key, _)| key.starts_with(prefix))
    }

    /// The inherent methods of `ty`, by key.
    pub fn methods_of<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = (&'a str, &'a Method)> {
        let prefix = format!("{ty}::");
        let keys: Vec<(&'a String, &'a Item)> = self.with_prefix(&prefix).collect();
        keys.into_iter().filter_map(move |(key, item)| match item {
            Item::Method(method) if key.split_once("::").is_some_and(|(t, _)| t == ty) => {
                Some((key.as_str(), method))
            }
            _ => None,
        })
    }

    /// The keys of the items of `old` that a caller written against `old` can no longer use in
    /// `self`'s crate. `renames` maps type names of `old` to their new names: a signature that
    /// differs only by a renamed type is not broken (the rename itself is: the old name is gone).
    pub fn broken_since(
        &self,
        old: &RustApi,
        renames: &BTreeMap<String, String>,
    ) -> BTreeSet<String> {
        let mut broken = BTreeSet::new();
        for (key, item) in &old.items {
            let Some(new) = self.items.get(key) else {
                broken.insert(key.clone());
                continue;
            };
            let breaks = match (item, new) {
                // A struct literal of the old fields no longer builds; an exhaustive match of
                // the old variants no longer covers the enum.
                (
                    Item::Struct {
                        non_exhaustive: false,
                    },
                    Item::Struct { non_exhaustive },
                )
                | (
                    Item::Enum {
                        non_exhaustive: false,
                    },
                    Item::Enum { non_exhaustive },
                ) => *non_exhaustive || self.members(key) != old.members(key),
                (old_item, new_item) => unnamed(&renamed(old_item, renames)) != unnamed(new_item),
            };
            if breaks {
                broken.insert(key.clone());
            }
        }
        broken
    }

    /// One line of Rust that uses the item `key` as a caller of this crate does, as a function
    /// (or constant) called `name`: a field read, an enum matched with every variant, a
    /// variant built, a constant read, a method called with arguments of its types, a trait
    /// bound required. Written for a module that imports the crate's items and
    /// [`CALLER_IMPORTS`]; `crate` in a type is the client crate (`marketplace_client`).
    pub fn caller(&self, key: &str, name: &str) -> Option<String> {
        let fix = |text: &str, self_ty: &str| {
            text.replace("crate ::", "marketplace_client ::")
                .split(' ')
                .map(|word| if word == "Self" { self_ty } else { word })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let line = match self.items.get(key)? {
            Item::Field { ty } => {
                let (owner, field) = key.split_once('.')?;
                format!(
                    "fn {name}(value: &{owner}) -> &{} {{ &value.{field} }}",
                    fix(ty, owner)
                )
            }
            Item::Struct { non_exhaustive } => {
                // An exhaustive struct with public fields is built with a literal of them.
                let prefix = format!("{key}.");
                let fields: Vec<(&str, &str)> = self
                    .with_prefix(&prefix)
                    .filter_map(|(k, item)| match item {
                        Item::Field { ty } => Some((&k[prefix.len()..], ty.as_str())),
                        _ => None,
                    })
                    .collect();
                if *non_exhaustive || fields.is_empty() {
                    format!("fn {name}(value: &{key}) -> &{key} {{ value }}")
                } else {
                    let params: Vec<String> = fields
                        .iter()
                        .enumerate()
                        .map(|(i, (_, ty))| format!("a{i}: {}", fix(ty, key)))
                        .collect();
                    let inits: Vec<String> = fields
                        .iter()
                        .enumerate()
                        .map(|(i, (field, _))| format!("{field}: a{i}"))
                        .collect();
                    format!(
                        "fn {name}({}) -> {key} {{ {key} {{ {} }} }}",
                        params.join(", "),
                        inits.join(", ")
                    )
                }
            }
            Item::Enum { non_exhaustive } => {
                let prefix = format!("{key}::");
                let mut arms: Vec<String> = self
                    .with_prefix(&prefix)
                    .filter_map(|(k, item)| match item {
                        Item::Variant { fields } => k.strip_prefix(&prefix).map(|v| {
                            format!(
                                "{key}::{v}{} => {{}}",
                                if fields.is_empty() { "" } else { "(..)" }
                            )
                        }),
                        _ => None,
                    })
                    .collect();
                if *non_exhaustive {
                    arms.push("_ => {}".to_owned());
                }
                format!(
                    "fn {name}(value: &{key}) {{ match value {{ {} }} }}",
                    arms.join(", ")
                )
            }
            Item::Variant { fields } => {
                let (owner, _) = key.split_once("::")?;
                if fields.is_empty() {
                    format!("fn {name}() -> {owner} {{ {key} }}")
                } else {
                    format!("fn {name}(value: &{owner}) -> bool {{ matches!(value, {key}(..)) }}")
                }
            }
            Item::Const { ty } => {
                format!("const {}: {} = {key};", name.to_uppercase(), fix(ty, ""))
            }
            Item::Method(method) => {
                let (owner, function) = key.trim_end_matches("()").split_once("::")?;
                let mut params: Vec<String> = Vec::new();
                let args: Vec<String> = (0..method.params.len()).map(|i| format!("a{i}")).collect();
                let call = match method.receiver.as_deref() {
                    Some(receiver) => {
                        let by_ref = receiver.starts_with('&');
                        params.push(format!(
                            "receiver: {}{owner}",
                            if by_ref { "&" } else { "" }
                        ));
                        format!("receiver.{function}({})", args.join(", "))
                    }
                    // The OAuth service's builder is the variant's `client::builder` in the
                    // oracle's copy (one `Client` is shared by every variant).
                    None if owner == "Client" => format!("client::{function}({})", args.join(", ")),
                    None => format!("{owner}::{function}({})", args.join(", ")),
                };
                params.extend(
                    method
                        .params
                        .iter()
                        .zip(&args)
                        .map(|((_, ty), arg)| format!("{arg}: {}", fix(ty, owner))),
                );
                let output = if method.output.is_empty() {
                    String::new()
                } else {
                    format!(" -> {}", fix(&method.output, owner))
                };
                let (prefix, suffix) = if method.is_async {
                    ("async ", ".await")
                } else {
                    ("", "")
                };
                format!(
                    "{prefix}fn {name}({}){output} {{ {call}{suffix} }}",
                    params.join(", ")
                )
            }
            Item::TraitImpl { associated } => {
                let (trait_name, ty) = key.trim_start_matches("impl ").split_once(" for ")?;
                let bound = match trait_name {
                    "Clone" | "Copy" | "Default" | "PartialEq" | "Eq" | "PartialOrd" | "Ord" => {
                        trait_name.to_owned()
                    }
                    "Hash" => "std::hash::Hash".to_owned(),
                    "Debug" | "Display" => format!("std::fmt::{trait_name}"),
                    "Serialize" => "serde::Serialize".to_owned(),
                    "Deserialize" => "for<'de> serde::Deserialize<'de>".to_owned(),
                    "Page" | "DataMethod" | "PagedMethod" => {
                        let path = match trait_name {
                            "Page" => "paging::Page",
                            other => other,
                        };
                        let bindings = associated
                            .replace("type ", "")
                            .replace(" ;", "")
                            .replace(';', "");
                        if bindings.trim().is_empty() {
                            path.to_owned()
                        } else {
                            format!("{path}<{}>", bindings.trim())
                        }
                    }
                    "WireEnum" => "wire::WireEnum".to_owned(),
                    _ => return None,
                };
                format!("fn {name}() {{ fn bound<T: {bound}>() {{}} bound::<{ty}>(); }}")
            }
        };
        Some(line)
    }

    /// How many fields (or variants) a struct (or enum) has: two ranges of the sorted keys.
    fn members(&self, ty: &str) -> usize {
        let (fields, variants) = (format!("{ty}."), format!("{ty}::"));
        let fields = self
            .with_prefix(&fields)
            .filter(|(_, item)| matches!(item, Item::Field { .. }))
            .count();
        let variants = self
            .with_prefix(&variants)
            .filter(|(_, item)| matches!(item, Item::Variant { .. }))
            .count();
        fields + variants
    }
}

/// An item as a caller sees it: a function's argument names are not part of its API (a call
/// passes arguments by position), so they are left out.
fn unnamed(item: &Item) -> Item {
    match item {
        Item::Method(method) => Item::Method(Method {
            params: method
                .params
                .iter()
                .map(|(_, ty)| (String::new(), ty.clone()))
                .collect(),
            ..method.clone()
        }),
        other => other.clone(),
    }
}

/// An item with the names of renamed types replaced by their new names.
fn renamed(item: &Item, renames: &BTreeMap<String, String>) -> Item {
    let text = |text: &String| rename_words(text, renames);
    match item {
        Item::Field { ty } => Item::Field { ty: text(ty) },
        Item::Variant { fields } => Item::Variant {
            fields: text(fields),
        },
        Item::Const { ty } => Item::Const { ty: text(ty) },
        Item::TraitImpl { associated } => Item::TraitImpl {
            associated: text(associated),
        },
        Item::Method(method) => Item::Method(Method {
            is_async: method.is_async,
            receiver: method.receiver.clone(),
            params: method
                .params
                .iter()
                .map(|(name, ty)| (name.clone(), text(ty)))
                .collect(),
            output: text(&method.output),
        }),
        Item::Struct { .. } | Item::Enum { .. } => item.clone(),
    }
}

/// `text` with every whole word that `renames` renames replaced, in one pass: as the renames
/// applied one after the other in key order would (a word renamed to a later rename's old name
/// is renamed again; the new names are type names, words themselves).
fn rename_words(text: &str, renames: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            out.push_str(renamed_word(&word, renames));
            word.clear();
            out.push(c);
        }
    }
    out.pop();
    out
}

/// What the renames, applied in key order, make of one word.
fn renamed_word<'w>(word: &'w str, renames: &'w BTreeMap<String, String>) -> &'w str {
    let mut word = word;
    let mut last: Option<&str> = None;
    // Each step moves to a later key, so this ends.
    while let Some((from, to)) = renames.get_key_value(word) {
        if last.is_some_and(|last| from.as_str() <= last) {
            break;
        }
        last = Some(from);
        word = to;
    }
    word
}

fn public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn non_exhaustive(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("non_exhaustive"))
}

fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|segment| segment.ident.to_string())
        .unwrap_or_default()
}

fn tokens(node: &impl ToTokens) -> String {
    node.to_token_stream().to_string()
}

/// Serializes an item key as [`tidy`] writes it (`Request<GetTimesheet>::id()`): what the JSON
/// report shows of `broken_items` and a witness's `item`.
pub(crate) fn serialize_tidy<S: serde::Serializer>(
    key: &str,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&tidy(key))
}

/// Serializes item keys as [`tidy`] writes them, see [`serialize_tidy`].
pub(crate) fn serialize_tidy_all<S: serde::Serializer>(
    keys: &[String],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(keys.iter().map(|key| tidy(key)))
}

/// A line of [`RustApi::caller`] (or an item key) as a reviewer reads it: the types it took
/// from the token stream, which spaces every token (`& Option < u64 >`, `crate :: wire ::
/// DayOrInstant`), written as rustfmt would (`&Option<u64>`, `crate::wire::DayOrInstant`).
/// The same tokens: only spaces go. The keys keep the token stream's spelling inside the diff;
/// this is for what is shown.
pub fn tidy(line: &str) -> String {
    line.replace(":: ", "::")
        .replace(" ::", "::")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" ,", ",")
        .replace(" ;", ";")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: &str) -> RustApi {
        RustApi::from_files(&[GeneratedFile {
            path: "api.rs".to_owned(),
            contents: code.to_owned(),
        }])
        .unwrap()
    }

    /// Every use of every public item of the real generated crate, tidied, is the same
    /// tokens as the caller line it tidies, with none of the token stream's spacing left.
    #[test]
    fn tidy_callers_are_the_same_tokens_written_as_rustfmt_would() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let sources = crate::load_spec_dir(&dir, "spec").expect("the spec loads");
        let api = crate::resolve(&sources).expect("the spec is valid");
        let rust = RustApi::from_files(&crate::generate(&api).expect("the spec generates"))
            .expect("the generated code parses");
        // The item syn reads, printed back: `>>` and `> >` close the same generics.
        let tokens = |line: &str| {
            syn::parse_str::<syn::Item>(line)
                .unwrap_or_else(|error| panic!("{line}: {error}"))
                .to_token_stream()
                .to_string()
        };
        let mut tidied = 0;
        for key in rust.items.keys() {
            let Some(line) = rust.caller(key, "old_caller") else {
                continue;
            };
            let shown = tidy(&line);
            assert_eq!(tokens(&shown), tokens(&line), "{key}: {shown}");
            for spaced in [" < ", "< ", " >", " ::", ":: ", "& ", " ,", " ;"] {
                assert!(!shown.contains(spaced), "{key}: {spaced:?} in {shown}");
            }
            tidied += usize::from(shown != line);
        }
        assert!(tidied > 100, "only {tidied} lines had spacing to tidy");
    }

    #[test]
    fn exhaustive_types_break_when_they_grow_and_non_exhaustive_ones_do_not() {
        let old = api(
            "pub struct A { pub x: u64 } #[non_exhaustive] pub struct B { pub x: u64 }
                       pub enum E { One } #[non_exhaustive] pub enum F { One }",
        );
        let new = api("pub struct A { pub x: u64, pub y: u64 } #[non_exhaustive] pub struct B { pub x: u64, pub y: u64 }
                       pub enum E { One, Two } #[non_exhaustive] pub enum F { One, Two }");
        let broken: Vec<String> = new
            .broken_since(&old, &BTreeMap::new())
            .into_iter()
            .collect();
        assert_eq!(broken, ["A", "E"]);
    }

    #[test]
    fn words_are_renamed_in_one_pass_as_one_rename_after_the_other() {
        let renames: BTreeMap<String, String> = [("A", "B"), ("B", "C"), ("D", "A")]
            .into_iter()
            .map(|(from, to)| (from.to_owned(), to.to_owned()))
            .collect();
        let sequential = |text: &str| {
            renames.iter().fold(text.to_owned(), |text, (from, to)| {
                let words: Vec<String> = text
                    .split(' ')
                    .map(|w| if w == from { to.clone() } else { w.to_owned() })
                    .collect();
                words.join(" ")
            })
        };
        for text in ["A", "B", "D", "A B D", "Vec < D >", "AB A_ D"] {
            assert_eq!(rename_words(text, &renames), sequential(text), "{text}");
        }
    }

    #[test]
    fn a_renamed_type_breaks_its_name_but_not_the_signatures_that_mention_it() {
        let old = api(
            "pub struct Old { pub x: u64 } impl Session { pub fn get(&self) -> Old { todo() } }",
        );
        let new = api(
            "pub struct New { pub x: u64 } impl Session { pub fn get(&self) -> New { todo() } }",
        );
        let renames = BTreeMap::from([("Old".to_owned(), "New".to_owned())]);
        let broken: Vec<String> = new.broken_since(&old, &renames).into_iter().collect();
        assert_eq!(broken, ["Old", "Old.x"]);
    }
}
