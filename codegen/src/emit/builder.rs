//! Model builders: `Record::builder()` and a `RecordBuilder` per record, so that code outside the
//! crate (an app's unit tests above all) can make values of the `#[non_exhaustive]` records.
//!
//! A field the service always sends is required: `build()` refuses a builder without it, naming
//! every one missing (the runtime's `BuildError`). A field that is an `Option` starts as
//! `None` and a list as empty, which is what an absent value means on the wire. Setters take
//! `impl Into<T>` where that reads better at the call site (text, decimals, dates, lists) and
//! the type itself elsewhere, so integer literals keep their type.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, doc};
use crate::ident::ident;
use crate::ir::{Field, Record, Scalar, TypeRef};
use crate::rust_type;

/// The builder of `record`; nothing for an opaque record, whose one field is public and which
/// is not `#[non_exhaustive]`.
pub(super) fn emit(module: &mut Module<'_>, record: &Record) -> TokenStream {
    if record.opaque {
        return TokenStream::new();
    }
    let name = ident(&record.name);
    let builder_name = format!("{}Builder", record.name);
    module.export(&builder_name);
    let builder = ident(&builder_name);

    let fields: Vec<BuilderField> = record
        .fields
        .iter()
        .map(|field| BuilderField::new(module, field))
        .collect();
    let slots = fields.iter().map(|field| {
        let (name, ty) = (&field.name, &field.value_type);
        if field.kind == Kind::List {
            quote! { #name: #ty, }
        } else {
            quote! { #name: Option<#ty>, }
        }
    });
    let setters = fields.iter().map(|field| field.setter(&record.name));
    let required: Vec<&BuilderField> = fields.iter().filter(|f| f.kind == Kind::Required).collect();
    let all: Vec<&proc_macro2::Ident> = fields.iter().map(|f| &f.name).collect();
    let type_name = &record.name;
    let build_body = if required.is_empty() {
        quote! { Ok(#name { #(#all),* }) }
    } else {
        let names: Vec<&proc_macro2::Ident> = required.iter().map(|f| &f.name).collect();
        let wire: Vec<String> = required.iter().map(|f| f.name.to_string()).collect();
        quote! {
            match (#(#names,)*) {
                (#(Some(#names),)*) => Ok(#name { #(#all),* }),
                (#(#names,)*) => Err(crate::BuildError::new(
                    #type_name,
                    [#((#wire, #names.is_none())),*],
                )),
            }
        }
    };

    let builder_fn_doc = doc(&format!(
        "A builder of `{type_name}` values made outside a response: an app's unit \
         tests, above all. Set every field the service always sends, then \
         [`build`]({builder_name}::build); optional fields start as `None` and lists as empty."
    ));
    let builder_doc = doc(&format!(
        "Builds [`{type_name}`] values: from [`{type_name}::builder`], one setter per field."
    ));
    let build_doc = doc(&format!(
        "The `{type_name}`, or a [`BuildError`](crate::BuildError) naming every required \
         field left unset."
    ));
    quote! {
        impl #name {
            #builder_fn_doc
            pub fn builder() -> #builder {
                #builder::default()
            }
        }

        #builder_doc
        #[derive(Clone, Debug, Default)]
        #[must_use = "a builder makes nothing until it is built"]
        pub struct #builder {
            #(#slots)*
        }

        impl #builder {
            #(#setters)*

            #build_doc
            pub fn build(self) -> Result<#name, crate::BuildError> {
                let #builder { #(#all),* } = self;
                #build_body
            }
        }
    }
}

/// What a builder does with a field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Must be set before `build`.
    Required,
    /// An `Option` of the record: unset is `None`.
    Optional,
    /// A list: unset is empty.
    List,
}

/// One field as its builder sees it.
struct BuilderField {
    name: proc_macro2::Ident,
    value_type: TokenStream,
    kind: Kind,
    /// The setter takes `impl Into<T>`.
    into: bool,
}

impl BuilderField {
    fn new(module: &mut Module<'_>, field: &Field) -> Self {
        let kind = match &field.ty {
            _ if field.is_optional() => Kind::Optional,
            TypeRef::List(_) => Kind::List,
            _ => Kind::Required,
        };
        let into = matches!(
            field.ty,
            TypeRef::Scalar(Scalar::String | Scalar::Decimal | Scalar::Date) | TypeRef::List(_)
        );
        BuilderField {
            name: ident(&field.rust_name),
            value_type: module.ty(&rust_type::value_type(module.lookup, field)),
            kind,
            into,
        }
    }

    fn setter(&self, record: &str) -> TokenStream {
        let (name, ty) = (&self.name, &self.value_type);
        let setter_doc = doc(&format!("Sets [`{name}`]({record}::{name})."));
        let (param, converted) = if self.into {
            (quote! { impl Into<#ty> }, quote! { #name.into() })
        } else {
            (quote! { #ty }, quote! { #name })
        };
        let stored = if self.kind == Kind::List {
            converted
        } else {
            quote! { Some(#converted) }
        };
        quote! {
            #setter_doc
            pub fn #name(mut self, #name: #param) -> Self {
                self.#name = #stored;
                self
            }
        }
    }
}
