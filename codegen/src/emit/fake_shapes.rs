//! The fake marketplace's copy of the spec's wire shapes (`tests/fake/src/generated/shapes.rs`):
//! every row of the encoding table as an `Encoding` variant, every record as a static tree of
//! its fields by wire name with the encodings each declares (per method where they differ), and
//! every data method with its parameters and its response record.
//!
//! The fake varies how it spells each value within what this table declares, so the choice of
//! spellings comes from the spec's encoding table and never from a second hand-written list. A
//! new row of the table adds a variant here, and the fake's exhaustive match on it stops
//! compiling until the fake knows how to write it.

use proc_macro2::TokenStream;
use quote::quote;

use super::{EmitError, GeneratedFile, doc, format_file, ident, inner_doc};
use crate::ir::{Api, ENCODINGS, Encoding, FieldEncoding, Record, TypeRef};
use crate::naming::variant_name;

/// Where the file goes, relative to the workspace root.
pub const FAKE_SHAPES_DIR: &str = "tests/fake/src/generated";

/// The file, named relative to [`FAKE_SHAPES_DIR`].
pub fn fake_shapes(api: &Api) -> Result<GeneratedFile, EmitError> {
    api.check()?;
    let lookup = api.lookup();
    let encodings = ENCODINGS.iter().map(|row| {
        let variant = ident(&variant_name(row.name));
        let stop = if row.doc.ends_with('.') { "" } else { "." };
        let row_doc = doc(&format!("`{}`: {}{stop}", row.name, row.doc));
        quote! { #row_doc #variant, }
    });
    let records = api.records.iter().map(record_static);
    let methods = api.methods.iter().map(|method| {
        let name = &method.name;
        let response = static_ident(lookup.record(&method.response));
        let params = method.params.iter().map(|param| &param.wire_name);
        quote! { Method { name: #name, params: &[#(#params),*], response: &records::#response }, }
    });
    let module_doc = inner_doc(
        "The wire shape of every data method's answer, from the spec: each record's fields by \
         wire name with the encodings the spec declares for them. The fake's `spelling` module \
         writes each value in one of these encodings.",
    );
    let tokens = quote! {
        #module_doc

        use super::Method;

        /// A row of the spec's encoding table (`codegen/src/ir/encoding.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Encoding {
            #(#encodings)*
        }

        /// Every data method, with the parameters it takes (by wire name) and the record of its
        /// envelope's `data`.
        pub(crate) static METHODS: &[Method] = &[#(#methods)*];

        /// Every record, named as its Rust type (names the spec keeps distinct).
        #[allow(non_upper_case_globals)]
        pub(crate) mod records {
            use super::Encoding;
            use super::super::{Encoded, Field, Record, Value};

            #(#records)*
        }
    };
    let sources = api
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(GeneratedFile {
        path: "shapes.rs".to_owned(),
        contents: format_file("shapes.rs", &sources, tokens)?,
    })
}

fn encoding_ident(encoding: Encoding) -> proc_macro2::Ident {
    ident(&variant_name(encoding.spec_name()))
}

fn static_ident(record: &Record) -> proc_macro2::Ident {
    ident(&record.name)
}

fn record_static(record: &Record) -> TokenStream {
    let name = static_ident(record);
    let record_name = &record.name;
    let opaque = record.opaque;
    let fields = record.fields.iter().map(|field| {
        let wire = &field.wire_name;
        let alias = match &field.documented_as {
            Some(alias) => quote! { Some(#alias) },
            None => quote! { None },
        };
        let value = value(&field.ty);
        let encoded = match &field.encoding {
            FieldEncoding::Itself => quote! { Encoded::Itself },
            FieldEncoding::Uniform(encoding) => {
                let encoding = encoding_ident(*encoding);
                quote! { Encoded::Uniform(Encoding::#encoding) }
            }
            FieldEncoding::PerMethod(per_method) => {
                let pairs = per_method.iter().map(|(method, encoding)| {
                    let method = method.to_string();
                    let encoding = encoding_ident(*encoding);
                    quote! { (#method, Encoding::#encoding), }
                });
                quote! { Encoded::PerMethod(&[#(#pairs)*]) }
            }
        };
        quote! {
            Field { wire: #wire, alias: #alias, value: #value, encoded: #encoded },
        }
    });
    quote! {
        pub(crate) static #name: Record = Record {
            name: #record_name,
            opaque: #opaque,
            fields: &[#(#fields)*],
        };
    }
}

fn value(ty: &TypeRef) -> TokenStream {
    match ty {
        TypeRef::Scalar(_) => quote! { Value::Scalar },
        TypeRef::Enum(_) => quote! { Value::Enum },
        TypeRef::Record(id) => {
            let name = ident(id.as_ref());
            quote! { Value::Record(&#name) }
        }
        TypeRef::List(element) => {
            let element = value(element);
            quote! { Value::List(&#element) }
        }
    }
}
