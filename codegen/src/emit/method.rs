//! Data methods: a constructor on `Session`, a request builder with a setter per optional
//! parameter and `send()`, and for paged methods `pages()`, `items()` and the `Page` impl of the
//! response.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, Use, code_list, doc, ident, narrowed_note, paragraphs};
use crate::ir::{BeyondLast, Method, Param, ParamType, Record, TypeRef};
use crate::rust_type;

pub(super) fn emit(module: &mut Module<'_>, method: &Method) -> TokenStream {
    let builder_name = method.rust_name.to_upper_camel_case();
    module.export(&builder_name);
    for used in [Use::Session, Use::Error, Use::Query] {
        module.uses(used);
    }
    let builder = ident(&builder_name);
    let response = module.item(&method.response);
    let wire_name = &method.name;
    let path = &method.path;

    // A parameter of at_least_one_of is optional in the builder, but each constructor sets one.
    let alternative = |param: &Param| method.at_least_one_of.contains(&param.wire_name);
    let is_field_optional = |param: &Param| !param.required || alternative(param);

    let fields = method
        .params
        .iter()
        .map(|param| {
            let name = ident(&param.rust_name);
            let ty = param_type(module, param);
            if is_field_optional(param) {
                quote! { #name: Option<#ty>, }
            } else {
                quote! { #name: #ty, }
            }
        })
        .collect::<Vec<_>>();

    let constructors = constructors(module, method, &builder);

    let setters = method
        .params
        .iter()
        .filter(|p| is_field_optional(p))
        .map(|param| {
            let name = ident(&param.rust_name);
            let ty = param_type(module, param);
            let setter_doc = doc(&param_doc(param));
            quote! {
                #setter_doc
                pub fn #name(mut self, #name: #ty) -> Self {
                    self.#name = Some(#name);
                    self
                }
            }
        })
        .collect::<Vec<_>>();

    let query_binding = if method.params.is_empty() {
        quote! { let query = Query::new(#wire_name); }
    } else {
        quote! { let mut query = Query::new(#wire_name); }
    };
    let query_lines = method.params.iter().map(|param| {
        let name = ident(&param.rust_name);
        let wire = &param.wire_name;
        let value = if is_field_optional(param) {
            quote! { self.#name }
        } else {
            quote! { Some(self.#name) }
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
    });

    let (paging, page_impl) = method
        .paging
        .as_ref()
        .map(|paging| emit_paging(module, method, paging, &response))
        .unwrap_or_default();

    let builder_doc = doc(&format!(
        "A `{wire_name}` request: set its options, then [`send`](Self::send) it{}.",
        if method.paging.is_some() {
            ", or stream its [`pages`](Self::pages) or [`items`](Self::items)"
        } else {
            ""
        }
    ));
    let customize_doc = doc(&format!(
        "Overrides the client's timeout, deadline or retry policy, or adds headers, for this \
         call{} (see [`CallOptions`](crate::CallOptions)), e.g. \
         `.customize(|options| options.deadline(Duration::from_secs(5)))`.",
        if method.paging.is_some() {
            " and, when streamed, for each page's call"
        } else {
            ""
        }
    ));
    quote! {
        #constructors

        #builder_doc
        #[derive(Clone, Debug)]
        #[must_use = "a request does nothing until it is sent"]
        pub struct #builder {
            session: Session,
            #(#fields)*
            options: crate::CallOptions,
        }

        impl #builder {
            #(#setters)*

            #customize_doc
            pub fn customize(mut self, customize: impl FnOnce(crate::CallOptions) -> crate::CallOptions) -> Self {
                self.options = customize(self.options);
                self
            }

            /// Sends the request. Arguments are checked first: an invalid one fails without a
            /// request.
            pub async fn send(self) -> Result<#response, Error> {
                Ok(self.send_with_metadata().await?.data)
            }

            /// Sends the request like [`send`](Self::send), and returns the data with the
            /// response's metadata: status, headers, the envelope's `api` and `apiVersion`,
            /// attempts (see [`ResponseMeta`](crate::ResponseMeta)).
            pub async fn send_with_metadata(self) -> Result<crate::Response<#response>, Error> {
                #query_binding
                #(#query_lines)*
                self.session.get(#wire_name, #path, query.pairs(), &self.options).await
            }

            #paging
        }

        #page_impl
    }
}

/// `impl Session { pub fn get_x(&self, required...) -> GetX }`, or one constructor per
/// alternative of `at_least_one_of`.
fn constructors(
    module: &mut Module<'_>,
    method: &Method,
    builder: &proc_macro2::Ident,
) -> TokenStream {
    let required: Vec<&Param> = method
        .params
        .iter()
        .filter(|p| p.required && !method.at_least_one_of.contains(&p.wire_name))
        .collect();
    let mut base_doc = vec![method.doc.clone(), format!("`GET {}`", method.path)];
    if !method.errors.is_empty() {
        base_doc.push(format!("Documented errors: {}.", code_list(&method.errors)));
    }
    let alternatives: Vec<Option<&Param>> = if method.at_least_one_of.is_empty() {
        vec![None]
    } else {
        method
            .params
            .iter()
            .filter(|p| method.at_least_one_of.contains(&p.wire_name))
            .map(Some)
            .collect()
    };
    let mut functions = TokenStream::new();
    for alternative in alternatives {
        let (name, mut notes) = match alternative {
            None => (method.rust_name.clone(), base_doc.clone()),
            Some(param) => {
                let mut notes = base_doc.clone();
                notes.push(format!(
                    "Selects by `{}`: {} The service needs at least one of {}; add another with its setter.",
                    param.wire_name,
                    param.doc.trim(),
                    code_list(&method.at_least_one_of)
                ));
                (
                    format!("{}_by_{}", method.rust_name, param.rust_name),
                    notes,
                )
            }
        };
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
        let arg_names: Vec<_> = args.iter().map(|p| ident(&p.rust_name)).collect();
        let arg_types: Vec<_> = args.iter().map(|p| param_type(module, p)).collect();
        let inits = method.params.iter().map(|param| {
            let field = ident(&param.rust_name);
            let is_arg = args.iter().any(|a| a.wire_name == param.wire_name);
            match (
                is_arg,
                alternative.is_some_and(|a| a.wire_name == param.wire_name),
            ) {
                (true, true) => quote! { #field: Some(#field), },
                (true, false) => quote! { #field, },
                (false, _) => quote! { #field: None, },
            }
        });
        let constructor_doc = doc(&paragraphs(std::mem::take(&mut notes)));
        let name = ident(&name);
        functions.extend(quote! {
            #constructor_doc
            pub fn #name(&self, #(#arg_names: #arg_types),*) -> #builder {
                #builder {
                    session: self.clone(),
                    #(#inits)*
                    options: Default::default(),
                }
            }
        });
    }
    quote! {
        impl Session {
            #functions
        }
    }
}

fn emit_paging(
    module: &mut Module<'_>,
    method: &Method,
    paging: &crate::ir::Paging,
    response: &proc_macro2::Ident,
) -> (TokenStream, TokenStream) {
    module.uses(Use::Paging);
    module.uses(Use::Stream);
    let record: Option<&Record> = module
        .api
        .records
        .iter()
        .find(|r| r.name == method.response);
    let field_of = |wire: &str| record.and_then(|r| r.fields.iter().find(|f| f.wire_name == wire));
    let Some(items_field) = field_of(&paging.items) else {
        return Default::default();
    };
    let TypeRef::List(element) = &items_field.ty else {
        return Default::default();
    };
    let wire_name = &method.name;
    let item = match element.as_ref() {
        TypeRef::Record(name) | TypeRef::Enum(name) => {
            let name = module.item(name);
            quote! { #name }
        }
        _ => return Default::default(),
    };
    let items = ident(&items_field.rust_name);
    let total_pages = match paging.total_pages.as_deref().and_then(field_of) {
        Some(field) => {
            let name = ident(&field.rust_name);
            quote! { Some(self.#name) }
        }
        None => quote! { None },
    };
    let Some(page) = method
        .params
        .iter()
        .find(|p| p.wire_name == paging.page_param)
    else {
        return Default::default();
    };
    let page_field = ident(&page.rust_name);
    let first_page = proc_macro2::Literal::i64_unsuffixed(page.default.or(page.min).unwrap_or(1));
    let beyond_last = match paging.beyond_last {
        BeyondLast::AboveTotal => quote! { paging::BeyondLast::AboveTotal },
        BeyondLast::AtOrAboveTotal => quote! { paging::BeyondLast::AtOrAboveTotal },
    };
    let item_name = element_name(element);
    let pages_doc = doc(&paragraphs([
        format!(
            "Every page from [`{page}`](Self::{page}) (default {first_page}) on, in order. {}",
            if paging.total_pages.is_some() {
                "Once the first page gives the page count, the following pages are fetched ahead \
                 (see `ClientBuilder::page_concurrency`), up to that count. The stream ends there, \
                 at the first empty page, or at the first error."
            } else {
                "The response gives no page count, so pages are fetched one by one until an empty \
                 page or the first error. A page with fewer items than `rpp` does not end the \
                 stream (the service's real cap may be lower than the documented one), so the \
                 end costs one more request: the empty page."
            },
            page = page.rust_name,
        ),
        "At most [`paging::MAX_PAGES`](crate::paging::MAX_PAGES) pages are requested. A service \
         that sends the same items for two pages in a row, or pages beyond that bound, ends the \
         stream with [`Error::Paging`](crate::Error::Paging) after the pages before."
            .to_owned(),
    ]));
    let items_doc = doc(&format!(
        "Every `{item_name}` of every page, in order (see [`pages`](Self::pages))."
    ));
    let page_impl = quote! {
        impl paging::Page for #response {
            type Item = #item;

            fn total_pages(&self) -> Option<u64> {
                #total_pages
            }

            fn items(&self) -> &[#item] {
                &self.#items
            }

            fn into_items(self) -> Vec<#item> {
                self.#items
            }
        }
    };
    let stream_methods = quote! {
        #pages_doc
        pub fn pages(self) -> impl Stream<Item = Result<#response, Error>> + Send + 'static {
            let walk = paging::Walk {
                method: #wire_name,
                first_page: self.#page_field.unwrap_or(#first_page),
                beyond_last: #beyond_last,
                concurrency: self.session.page_concurrency(),
                max_pages: paging::MAX_PAGES,
            };
            paging::pages(walk, move |page| self.clone().#page_field(page).send())
        }

        #items_doc
        pub fn items(self) -> impl Stream<Item = Result<#item, Error>> + Send + 'static {
            paging::items(self.pages())
        }
    };
    (stream_methods, page_impl)
}

fn element_name(ty: &TypeRef) -> String {
    match ty {
        TypeRef::Record(name) | TypeRef::Enum(name) => name.clone(),
        other => format!("{other:?}"),
    }
}

fn param_type(module: &mut Module<'_>, param: &Param) -> TokenStream {
    module.type_tokens(rust_type::param_type(param))
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
            let value = proc_macro2::Literal::i64_unsuffixed(value);
            quote! { Some(#value) }
        }
        None => quote! { None },
    }
}
