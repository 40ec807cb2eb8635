//! Enumerations of wire strings. Open ones keep unknown values in `Other(String)`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, Use, doc, paragraphs};
use crate::ident::ident;
use crate::ir::{Enum, EnumValue};

pub(super) fn emit(module: &mut Module<'_>, e: &Enum) -> TokenStream {
    emit_values(module, &e.name, &e.doc, e.open, &e.values)
}

/// An enum with `as_str`, `Display`, serde impls and the runtime's `wire::WireEnum` impl.
pub(super) fn emit_values(
    module: &mut Module<'_>,
    name: &str,
    text: &str,
    open: bool,
    values: &[EnumValue],
) -> TokenStream {
    module.export(name);
    for used in [
        Use::Fmt,
        Use::Serialize,
        Use::Serializer,
        Use::Deserialize,
        Use::Deserializer,
        Use::Wire,
    ] {
        module.uses(used);
    }
    let name = ident(name);
    let policy = if open {
        "Open: a value the reference does not name is kept in [`Self::Other`]."
    } else {
        "Closed: a value the reference does not name fails to decode."
    };
    let enum_doc = doc(&paragraphs([text.to_owned(), policy.to_owned()]));
    let variants: Vec<_> = values.iter().map(|v| ident(&v.variant)).collect();
    let wires: Vec<&str> = values.iter().map(|v| v.wire.as_str()).collect();
    let docs = values.iter().map(|v| doc(&v.doc));

    let other_variant = open.then(|| {
        quote! {
            /// A value the reference does not name, kept as sent.
            Other(String),
        }
    });
    let other_str = open.then(|| quote! { Self::Other(value) => value, });
    // Open enums convert from any string, so they also get `From<&str>`.
    let from_str = open.then(|| {
        quote! {
            impl From<&str> for #name {
                fn from(value: &str) -> Self {
                    match value {
                        #(#wires => Self::#variants,)*
                        other => Self::Other(other.to_owned()),
                    }
                }
            }
        }
    });
    let from_wire = if open {
        quote! { Some(Self::from(value)) }
    } else {
        quote! {
            match value {
                #(#wires => Some(Self::#variants),)*
                _ => None,
            }
        }
    };

    quote! {
        #enum_doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            #(#docs #variants,)*
            #other_variant
        }

        impl #name {
            /// The value as written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#variants => #wires,)*
                    #other_str
                }
            }
        }

        #from_str

        impl wire::WireEnum for #name {
            const VALUES: &'static [&'static str] = &[#(#wires),*];

            fn from_wire(value: &str) -> Option<Self> {
                #from_wire
            }

            fn as_wire(&self) -> &str {
                self.as_str()
            }
        }

        impl fmt::Display for #name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for #name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for #name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                wire::deserialize_enum(deserializer)
            }
        }
    }
}
