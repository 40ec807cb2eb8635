//! Record types: a struct per spec type, fields decoded through the `wire` runtime.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, Use, code_list, doc, narrowed_note, paragraphs};
use crate::ident::ident;
use crate::ir::{Encoding, Field, FieldEncoding, Presence, Record};
use crate::naming::serde_camel_case;
use crate::rust_type;

pub(super) fn emit(module: &mut Module<'_>, record: &Record) -> TokenStream {
    module.export(&record.name);
    module.uses(Use::Serialize);
    module.uses(Use::Deserialize);
    let name = ident(&record.name);
    let mut notes = vec![record.doc.clone()];
    if let Some(documented) = &record.documented_as {
        notes.push(format!("The reference calls it `{documented}`."));
    }
    if !record.delivered_by.is_empty() {
        notes.push(format!("Delivered by {}.", code_list(&record.delivered_by)));
    }
    let record_doc = doc(&paragraphs(notes));

    if record.opaque {
        module.uses(Use::Wire);
        return quote! {
            #record_doc
            ///
            /// The reference does not show its fields, so the object is kept as sent: a key
            /// sent twice, or a number the map would round, is a decode error.
            #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
            #[serde(transparent)]
            pub struct #name {
                /// The fields as sent.
                #[serde(deserialize_with = "wire::opaque::deserialize")]
                pub fields: serde_json::Map<String, serde_json::Value>,
            }
        };
    }

    // `rename_all` pays off when some wire name is the camelCase of its Rust name; the rest
    // get an explicit `rename`.
    let camel_case = record
        .fields
        .iter()
        .any(|f| f.rust_name != f.wire_name && serde_camel_case(&f.rust_name) == f.wire_name);
    let rename_all = camel_case.then(|| quote! { #[serde(rename_all = "camelCase")] });
    let fields = record.fields.iter().map(|field| {
        let implied = if camel_case {
            serde_camel_case(&field.rust_name)
        } else {
            field.rust_name.clone()
        };
        emit_field(module, field, implied != field.wire_name)
    });
    quote! {
        #record_doc
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #rename_all
        #[non_exhaustive]
        pub struct #name {
            #(#fields)*
        }
    }
}

fn emit_field(module: &mut Module<'_>, field: &Field, rename: bool) -> TokenStream {
    let name = ident(&field.rust_name);
    let ty = module.ty(&rust_type::field_type(module.lookup, field));
    let decoder = rust_type::decoder(field);
    let optional = field.is_optional();

    let mut args = Vec::new();
    // With a custom decoder serde no longer treats a missing Option as None by itself.
    if decoder.is_some() && rust_type::absent_is_none(field) {
        args.push(quote! { default });
    }
    if rename {
        let wire = &field.wire_name;
        args.push(quote! { rename = #wire });
    }
    if let Some(documented) = &field.documented_as {
        args.push(quote! { alias = #documented });
    }
    if let Some(decoder) = decoder {
        module.uses(Use::Wire);
        let path = format!("wire::{}", decoder.module(optional));
        args.push(quote! { with = #path });
    }
    let serde = (!args.is_empty()).then(|| quote! { #[serde(#(#args),*)] });
    let field_doc = doc(&field_doc(field));
    quote! {
        #field_doc
        #serde
        pub #name: #ty,
    }
}

/// The field's doc: the spec text, then what the wire does with it.
fn field_doc(field: &Field) -> String {
    let mut notes = vec![field.doc.clone(), narrowed_note(field.narrowed.as_deref())];
    notes.push(encoding_note(field));
    let mut none = Vec::new();
    match &field.presence {
        Presence::Always => {}
        Presence::Optional(None) => none.push("`None` when absent.".to_owned()),
        Presence::Optional(Some(when)) => none.push(format!("`None` when absent. {when}")),
        Presence::OnlyIn(methods) => none.push(format!(
            "Sent only by {}; `None` elsewhere.",
            code_list(methods)
        )),
        Presence::AbsentIn(methods) => none.push(format!(
            "Absent from the responses of {}, where it is `None`.",
            code_list(methods)
        )),
    }
    if field.nullable {
        none.push("`null` on the wire is `None`.".to_owned());
    }
    if field.zero_is_none {
        none.push("`0` on the wire means none and is `None`.".to_owned());
    }
    notes.push(none.join(" "));
    if let Some(documented) = &field.documented_as {
        notes.push(format!(
            "The reference documents it as `{documented}` but the service sends `{}`; both are accepted.",
            field.wire_name
        ));
    }
    if let Some(documented) = &field.documented_type {
        notes.push(format!(
            "The reference declares it as `{documented}`, but it is delivered with the fields decoded here."
        ));
    }
    paragraphs(notes)
}

/// "On the wire: ..." where the wire form is not the plain JSON form of the Rust type (the
/// encoding table says which is).
fn encoding_note(field: &Field) -> String {
    let plain = |encoding: Encoding| {
        field
            .ty
            .kind()
            .is_some_and(|kind| encoding.is_plain_for(kind))
    };
    match &field.encoding {
        FieldEncoding::Itself => String::new(),
        FieldEncoding::Uniform(encoding) if plain(*encoding) => String::new(),
        FieldEncoding::Uniform(encoding) => format!("On the wire: {}.", encoding.describe()),
        FieldEncoding::PerMethod(per_method) => {
            let parts: Vec<String> = per_method
                .iter()
                .map(|(method, encoding)| format!("{} in `{method}`", encoding.describe()))
                .collect();
            format!("On the wire: {}.", parts.join(", "))
        }
    }
}
