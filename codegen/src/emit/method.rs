//! Data methods: a type holding the method's parameters that implements the runtime's
//! `DataMethod` (and `PagedMethod` when it pages), a constructor on `Session` returning a
//! `Request` of it, a setter per optional parameter on that `Request`, and for paged methods
//! the `Page` impl of the response. Sending, paging and the call options are the runtime's
//! (`marketplace_client::request`), once for every method.

use std::collections::HashSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::{Module, Use, code_list, doc, narrowed_note, paragraphs};
use crate::diagnostic::or_list;
use crate::ident::ident;
use crate::ir::{BeyondLast, Method, PagingParts, Param, ParamType, first_page};
use crate::naming::{constructor_names, request_type_name};
use crate::rust_type::{self, RustTy};

pub(super) fn emit(module: &mut Module<'_>, method: &Method) -> TokenStream {
    let type_name = request_type_name(method);
    module.export(&type_name);
    for used in [Use::Session, Use::Error, Use::Request] {
        module.uses(used);
    }
    let name = ident(&type_name);
    let response = module.ty(&rust_type::record_type(module.lookup, &method.response));
    let paging = module.lookup.paging_of(method);

    let fields = method.params.iter().map(|param| {
        let field = ident(&param.rust_name);
        let ty = module.ty(&param_type(method, param));
        quote! { #field: #ty, }
    });
    let fields: Vec<TokenStream> = fields.collect();
    let constructors = constructors(module, method, &name);
    let setters = setters(module, method, &name);
    let data_method = data_method(method, &name, &response);
    let paged = match &paging {
        Some(parts) => paged(module, method, &name, &response, parts),
        None => TokenStream::new(),
    };
    let type_doc = doc(&type_doc(method, paging.as_ref()));
    let body = if fields.is_empty() {
        quote! { ; }
    } else {
        quote! { { #(#fields)* } }
    };
    quote! {
        #constructors

        #type_doc
        #[derive(Clone, Debug)]
        pub struct #name #body

        #setters

        #data_method

        #paged
    }
}

/// Whether a parameter is an `Option` in the method's type: optional, or an alternative of
/// `at_least_one_of` (each constructor sets one of them).
fn is_field_optional(method: &Method, param: &Param) -> bool {
    !param.required
        || method
            .at_least_one_of
            .iter()
            .any(|id| *id == param.wire_name)
}

/// The type of a parameter's field.
fn param_type(method: &Method, param: &Param) -> RustTy {
    let ty = rust_type::param_type(param);
    if is_field_optional(method, param) {
        ty.optional()
    } else {
        ty
    }
}

fn type_doc(method: &Method, paging: Option<&PagingParts<'_>>) -> String {
    let constructors: Vec<String> = constructor_names(method)
        .into_iter()
        .map(|name| format!("[`Session::{name}`]"))
        .collect();
    let mut notes = vec![format!(
        "The parameters of a call of `{}`. {} makes a [`Request`] of them: set its options, then \
         [`send`](Request::send) it{}.",
        method.name,
        or_list(&constructors),
        if paging.is_some() {
            ", or stream its [`pages`](Request::pages) or [`items`](Request::items)"
        } else {
            ""
        }
    )];
    if let Some(parts) = paging {
        let first = first_page(parts.page);
        notes.push(format!(
            "Paged by `{}` (streams start at page {first} unless it is set) and `{}`. {}",
            parts.page.wire_name,
            parts.size.wire_name,
            if parts.total_pages.is_some() {
                format!(
                    "The response gives the page count (`{}`), so a stream fetches the pages \
                     after the first ahead, up to that count.",
                    parts
                        .paging
                        .total_pages
                        .as_ref()
                        .map_or("", |id| id.as_str())
                )
            } else {
                "The response gives no page count, so a stream fetches pages one by one until \
                 an empty page: the end costs one more request."
                    .to_owned()
            }
        ));
    }
    paragraphs(notes)
}

/// The arguments every constructor of `method` takes, in order (after the alternative of
/// `at_least_one_of` a constructor selects by, if any): its required parameters in spec order.
/// The spec diff reads their order from here (`param-order-changed`).
pub(crate) fn constructor_args(method: &Method) -> Vec<&Param> {
    method
        .params
        .iter()
        .filter(|p| !is_field_optional(method, p))
        .collect()
}

/// The arguments (`&self` included) past which clippy's `too_many_arguments` warns.
const MAX_ARGUMENTS: usize = 7;

/// `impl Session { pub fn get_x(&self, required...) -> Request<GetX> }`, or one constructor per
/// alternative of `at_least_one_of`.
fn constructors(module: &mut Module<'_>, method: &Method, name: &Ident) -> TokenStream {
    let required = constructor_args(method);
    let mut base_doc = vec![method.doc.clone(), format!("`GET {}`", method.path)];
    let errors = module.api.errors_of(method);
    if !errors.is_empty() {
        base_doc.push(format!("Documented errors: {}.", code_list(&errors)));
    }
    let alternatives: Vec<Option<&Param>> = if method.at_least_one_of.is_empty() {
        vec![None]
    } else {
        method
            .at_least_one_of
            .iter()
            .map(|id| Some(method.param(id)))
            .collect()
    };
    let mut functions = TokenStream::new();
    for (alternative, function) in alternatives.into_iter().zip(constructor_names(method)) {
        let mut notes = base_doc.clone();
        if let Some(param) = alternative {
            notes.push(format!(
                "Selects by `{}`: {} The service needs at least one of {}; add another with its setter.",
                param.wire_name,
                param.doc.trim(),
                code_list(&method.at_least_one_of)
            ));
        }
        if !required.is_empty() {
            let described: Vec<String> = required
                .iter()
                .map(|p| {
                    let narrowed = narrowed_note(p.narrowed.as_deref());
                    format!("`{}`: {} {narrowed}", p.rust_name, p.doc.trim())
                        .trim_end()
                        .to_owned()
                })
                .collect();
            notes.push(format!("Arguments: {}", described.join(" ")));
        }
        let args: Vec<&Param> = alternative
            .into_iter()
            .chain(required.iter().copied())
            .collect();
        let arg_names: Vec<Ident> = args.iter().map(|p| ident(&p.rust_name)).collect();
        let arg_types: Vec<TokenStream> = args
            .iter()
            .map(|p| module.ty(&rust_type::param_type(p)))
            .collect();
        let arg_wire_names: HashSet<&str> = args.iter().map(|a| a.wire_name.as_str()).collect();
        let inits = method.params.iter().map(|param| {
            let field = ident(&param.rust_name);
            let is_arg = arg_wire_names.contains(param.wire_name.as_str());
            match (
                is_arg,
                alternative.is_some_and(|a| a.wire_name == param.wire_name),
            ) {
                (true, true) => quote! { #field: Some(#field), },
                (true, false) => quote! { #field, },
                (false, _) => quote! { #field: None, },
            }
        });
        let constructor_doc = doc(&paragraphs(notes));
        let function = ident(&function);
        let value = if method.params.is_empty() {
            quote! { #name }
        } else {
            quote! { #name { #(#inits)* } }
        };
        // A method with many required parameters takes them all (clippy's limit is seven
        // arguments, `&self` included).
        let many =
            (args.len() >= MAX_ARGUMENTS).then(|| quote! { #[allow(clippy::too_many_arguments)] });
        functions.extend(quote! {
            #constructor_doc
            #many
            pub fn #function(&self, #(#arg_names: #arg_types),*) -> Request<#name> {
                Request::new(self, #value)
            }
        });
    }
    quote! {
        impl Session {
            #functions
        }
    }
}

/// `impl Request<GetX> { pub fn rpp(mut self, rpp: u64) -> Self { … } }` for the optional
/// parameters; nothing when there are none.
fn setters(module: &mut Module<'_>, method: &Method, name: &Ident) -> TokenStream {
    let setters: Vec<TokenStream> = method
        .params
        .iter()
        .filter(|p| is_field_optional(method, p))
        .map(|param| {
            let field = ident(&param.rust_name);
            let ty = module.ty(&rust_type::param_type(param));
            let setter_doc = doc(&param_doc(param));
            quote! {
                #setter_doc
                pub fn #field(mut self, #field: #ty) -> Self {
                    self.method.#field = Some(#field);
                    self
                }
            }
        })
        .collect();
    if setters.is_empty() {
        return TokenStream::new();
    }
    quote! {
        impl Request<#name> {
            #(#setters)*
        }
    }
}

/// What the call is: its name, path, response and checked query.
fn data_method(method: &Method, name: &Ident, response: &TokenStream) -> TokenStream {
    let wire_name = &method.name;
    let path = &method.path;
    let query_lines: Vec<TokenStream> = method
        .params
        .iter()
        .map(|param| {
            let field = ident(&param.rust_name);
            let wire = &param.wire_name;
            let value = if is_field_optional(method, param) {
                quote! { self.#field }
            } else {
                quote! { Some(self.#field) }
            };
            match param.ty {
                ParamType::Id => quote! { query.id(#wire, #value)?; },
                ParamType::Date => quote! { query.date(#wire, #value)?; },
                ParamType::Integer | ParamType::Count => {
                    let min = option_literal(param.min);
                    let max = option_literal(param.max);
                    quote! { query.number(#wire, #value, #min, #max)?; }
                }
            }
        })
        .collect();
    let body = if query_lines.is_empty() {
        quote! { Ok(Query::new(Self::NAME)) }
    } else {
        quote! {
            let mut query = Query::new(Self::NAME);
            #(#query_lines)*
            Ok(query)
        }
    };
    quote! {
        impl DataMethod for #name {
            type Response = #response;

            const NAME: &'static str = #wire_name;

            const PATH: &'static str = #path;

            fn query(&self) -> Result<Query, Error> {
                #body
            }
        }
    }
}

/// `impl PagedMethod for GetX` and `impl Page for XList`.
fn paged(
    module: &mut Module<'_>,
    method: &Method,
    name: &Ident,
    response: &TokenStream,
    parts: &PagingParts<'_>,
) -> TokenStream {
    module.uses(Use::PagedMethod);
    module.uses(Use::Paging);
    let page_field = ident(&parts.page.rust_name);
    // `fn page` returns the page parameter's field, which clippy's `misnamed_getters` takes for
    // a slip when another parameter's field is called `page`.
    let getter = (parts.page.rust_name != "page"
        && method.params.iter().any(|p| p.rust_name == "page"))
    .then(|| quote! { #[allow(clippy::misnamed_getters)] });
    let first = Literal::i64_unsuffixed(first_page(parts.page));
    let beyond_last = match parts.paging.beyond_last {
        BeyondLast::AboveTotal => quote! { paging::BeyondLast::AboveTotal },
        BeyondLast::AtOrAboveTotal => quote! { paging::BeyondLast::AtOrAboveTotal },
    };
    let item = module.ty(&rust_type::element_type(module.lookup, parts.item_type()));
    let items = ident(&parts.items.rust_name);
    // An optional items field holds no items when absent; an optional count is no count.
    let (borrowed, owned) = if parts.items.is_optional() {
        (
            quote! { self.#items.as_deref().unwrap_or_default() },
            quote! { self.#items.unwrap_or_default() },
        )
    } else {
        (quote! { &self.#items }, quote! { self.#items })
    };
    let total_pages = match parts.total_pages {
        Some(field) if field.is_optional() => {
            let field = ident(&field.rust_name);
            quote! { self.#field }
        }
        Some(field) => {
            let field = ident(&field.rust_name);
            quote! { Some(self.#field) }
        }
        None => quote! { None },
    };
    quote! {
        impl PagedMethod for #name {
            const FIRST_PAGE: u64 = #first;

            const BEYOND_LAST: paging::BeyondLast = #beyond_last;

            #getter
            fn page(&self) -> Option<u64> {
                self.#page_field
            }

            fn set_page(&mut self, page: u64) {
                self.#page_field = Some(page);
            }
        }

        impl paging::Page for #response {
            type Item = #item;

            fn total_pages(&self) -> Option<u64> {
                #total_pages
            }

            fn items(&self) -> &[#item] {
                #borrowed
            }

            fn into_items(self) -> Vec<#item> {
                #owned
            }
        }
    }
}

/// A setter's doc: the spec's text, then the rules.
fn param_doc(param: &Param) -> String {
    let mut rules = Vec::new();
    if let Some(default) = param.default {
        rules.push(format!("Default {default}."));
    }
    if let Some(min) = param.min {
        rules.push(format!("At least {min}."));
    }
    if let Some(max) = param.max {
        rules.push(format!(
            "At most {max}, the documented cap: a larger value is refused before sending."
        ));
    }
    if param.ty == ParamType::Date {
        rules.push("Sent as `DD-MON-YY`.".to_owned());
    }
    paragraphs([
        format!("`{}`: {}", param.wire_name, param.doc.trim()),
        narrowed_note(param.narrowed.as_deref()),
        rules.join(" "),
    ])
}

fn option_literal(value: Option<i64>) -> TokenStream {
    match value {
        Some(value) => {
            let value = Literal::i64_unsuffixed(value);
            quote! { Some(#value) }
        }
        None => quote! { None },
    }
}
