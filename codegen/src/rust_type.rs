//! The Rust type of every field and parameter, as a value ([`RustTy`]), and the runtime decoder
//! of every field: one mapping shared by the emitters (which print the type and name the
//! decoder in `#[serde(with)]`) and by spec comparisons (whose wire model asks what that
//! decoder accepts, and whose rules compare the types). Records and enums are found through
//! [`Find`]: callers in a loop pass a [`Lookup`](crate::ir::Lookup).

use std::fmt;
use std::hash::{Hash, Hasher};

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::ir::{
    DateForm, Encoding, Field, Find, Id, Kind, Param, ParamType, Presence, Reader, Record, Scalar,
    TypeRef,
};

/// A Rust type of the generated code, as a value: the emitters print it ([`ToTokens`]),
/// messages show it ([`fmt::Display`], e.g. `Option<Vec<Timesheet>>`), spec comparisons
/// compare it, and it knows the imports it needs ([`RustTy::imports`]).
#[derive(Clone, Debug, Eq)]
pub enum RustTy {
    /// `String`.
    String,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `bool`.
    Bool,
    /// `rust_decimal::Decimal`.
    Decimal,
    /// `jiff::civil::Date`.
    Date,
    /// `jiff::Timestamp`.
    Timestamp,
    /// The runtime's `wire::DayOrInstant`.
    DayOrInstant,
    /// A generated record or enum. Two items are the same type when their names are: every
    /// generated item is re-exported at the crate root, whatever module declares it.
    Item {
        /// The Rust name.
        name: String,
        /// The generated module that declares it (the spec file's stem).
        module: String,
    },
    /// `Vec<T>`.
    Vec(Box<RustTy>),
    /// `Option<T>`.
    Option(Box<RustTy>),
}

/// What a generated module imports for a [`RustTy`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Import {
    /// `use rust_decimal::Decimal;`
    Decimal,
    /// `use jiff::civil::Date;`
    Date,
    /// `use jiff::Timestamp;`
    Timestamp,
    /// `use crate::wire::DayOrInstant;`
    DayOrInstant,
    /// `use super::{module}::{name};`, needed outside the declaring module only.
    Item {
        /// The declaring module.
        module: String,
        /// The item.
        name: String,
    },
}

impl RustTy {
    /// The type wrapped in `Option`.
    pub fn optional(self) -> RustTy {
        RustTy::Option(Box::new(self))
    }

    /// The type wrapped in `Vec`.
    pub fn vec(self) -> RustTy {
        RustTy::Vec(Box::new(self))
    }

    /// Every import the type needs, outermost first.
    pub fn imports(&self) -> Vec<Import> {
        let mut imports = Vec::new();
        self.collect_imports(&mut imports);
        imports
    }

    fn collect_imports(&self, imports: &mut Vec<Import>) {
        match self {
            RustTy::String | RustTy::I64 | RustTy::U64 | RustTy::Bool => {}
            RustTy::Decimal => imports.push(Import::Decimal),
            RustTy::Date => imports.push(Import::Date),
            RustTy::Timestamp => imports.push(Import::Timestamp),
            RustTy::DayOrInstant => imports.push(Import::DayOrInstant),
            RustTy::Item { name, module } => imports.push(Import::Item {
                module: module.clone(),
                name: name.clone(),
            }),
            RustTy::Vec(inner) | RustTy::Option(inner) => inner.collect_imports(imports),
        }
    }

    /// The name of a one-word type, as written (`u64`, `Timesheet`).
    fn word(&self) -> Option<&str> {
        Some(match self {
            RustTy::String => "String",
            RustTy::I64 => "i64",
            RustTy::U64 => "u64",
            RustTy::Bool => "bool",
            RustTy::Decimal => "Decimal",
            RustTy::Date => "Date",
            RustTy::Timestamp => "Timestamp",
            RustTy::DayOrInstant => "DayOrInstant",
            RustTy::Item { name, .. } => name,
            RustTy::Vec(_) | RustTy::Option(_) => return None,
        })
    }

    /// `Vec` or `Option` and the wrapped type.
    fn wrapper(&self) -> Option<(&'static str, &RustTy)> {
        match self {
            RustTy::Vec(inner) => Some(("Vec", inner)),
            RustTy::Option(inner) => Some(("Option", inner)),
            _ => None,
        }
    }
}

impl PartialEq for RustTy {
    fn eq(&self, other: &Self) -> bool {
        match (self.wrapper(), other.wrapper()) {
            (Some((a, inner_a)), Some((b, inner_b))) => a == b && inner_a == inner_b,
            (None, None) => self.word() == other.word(),
            _ => false,
        }
    }
}

impl Hash for RustTy {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.wrapper() {
            Some((wrapper, inner)) => {
                wrapper.hash(state);
                inner.hash(state);
            }
            None => self.word().hash(state),
        }
    }
}

impl fmt::Display for RustTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.wrapper(), self.word()) {
            (Some((wrapper, inner)), _) => write!(f, "{wrapper}<{inner}>"),
            (None, Some(word)) => f.write_str(word),
            (None, None) => unreachable!("a RustTy is a wrapper or a word"),
        }
    }
}

impl ToTokens for RustTy {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match (self.wrapper(), self.word()) {
            (Some((wrapper, inner)), _) => {
                let wrapper = crate::ident::ident(wrapper);
                tokens.extend(quote! { #wrapper<#inner> });
            }
            (None, Some(word)) => crate::ident::ident(word).to_tokens(tokens),
            (None, None) => unreachable!("a RustTy is a wrapper or a word"),
        }
    }
}

/// The field's type before any `Option`, e.g. `Vec<Timesheet>` or `DayOrInstant`.
pub fn value_type(api: &dyn Find, field: &Field) -> RustTy {
    match &field.ty {
        // A list's encoding describes the container; its dates may come in either format.
        TypeRef::List(element) => type_of(api, element, &every_date_form()).vec(),
        ty => type_of(api, ty, &date_forms(&field.encoding.distinct())),
    }
}

/// The field's type as declared in the struct, e.g. `Option<u64>`.
pub fn field_type(api: &dyn Find, field: &Field) -> RustTy {
    let value = value_type(api, field);
    if field.is_optional() {
        value.optional()
    } else {
        value
    }
}

/// A parameter's type.
pub fn param_type(param: &Param) -> RustTy {
    match param.ty {
        ParamType::Integer => RustTy::I64,
        ParamType::Count | ParamType::Id => RustTy::U64,
        ParamType::Date => RustTy::Date,
    }
}

/// The type of a record.
pub fn record_type(api: &dyn Find, record: &Id<Record>) -> RustTy {
    type_of(api, &TypeRef::Record(record.clone()), &[])
}

/// The type of one item of a list, or of a record or enum: dates in either format.
pub fn element_type(api: &dyn Find, ty: &TypeRef) -> RustTy {
    type_of(api, ty, &every_date_form())
}

/// What the date spellings carry.
fn date_forms(encodings: &[Encoding]) -> Vec<DateForm> {
    encodings.iter().filter_map(|e| e.info().date).collect()
}

fn every_date_form() -> Vec<DateForm> {
    date_forms(&Encoding::allowed_for(Kind::Scalar(Scalar::Date)).collect::<Vec<_>>())
}

/// A date's type follows from the forms it arrives in: `DD-MON-YY` text carries a day, epoch
/// seconds an instant, and a field sent both ways needs both.
fn type_of(api: &dyn Find, ty: &TypeRef, dates: &[DateForm]) -> RustTy {
    match ty {
        TypeRef::Scalar(Scalar::String) => RustTy::String,
        TypeRef::Scalar(Scalar::Integer) => RustTy::I64,
        TypeRef::Scalar(Scalar::Id | Scalar::Count) => RustTy::U64,
        TypeRef::Scalar(Scalar::Boolean) => RustTy::Bool,
        TypeRef::Scalar(Scalar::Decimal) => RustTy::Decimal,
        TypeRef::Scalar(Scalar::Date) => match (
            dates.contains(&DateForm::Day),
            dates.contains(&DateForm::Instant),
        ) {
            (true, false) => RustTy::Date,
            (false, true) => RustTy::Timestamp,
            (true, true) => RustTy::DayOrInstant,
            (false, false) => panic!("a date field without a date encoding (see Api::check)"),
        },
        TypeRef::Record(_) | TypeRef::Enum(_) => RustTy::Item {
            name: ty.spec_name(),
            module: api
                .module_of(ty)
                .expect("a record or enum has a module")
                .to_owned(),
        },
        TypeRef::List(element) => type_of(api, element, dates).vec(),
    }
}

/// Which runtime decoder (`marketplace_client::wire`) a field goes through; `None` is the type's
/// own `Deserialize` (`String`, records, enums).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoder {
    /// A scalar taking every encoding of its type.
    Lenient,
    /// A scalar where `0` means none.
    ZeroIsNone,
    /// A collection of records or enums.
    Collection,
    /// A collection of scalars.
    LenientList,
}

impl Decoder {
    /// The `wire` module named in `#[serde(with)]`.
    pub fn module(self, optional: bool) -> &'static str {
        match (self, optional) {
            (Decoder::Lenient, false) => "lenient",
            (Decoder::Lenient, true) => "lenient_opt",
            (Decoder::ZeroIsNone, _) => "zero_is_none",
            (Decoder::Collection | Decoder::LenientList, true) => "collection_opt",
            (Decoder::Collection, false) => "collection",
            (Decoder::LenientList, false) => "lenient_list",
        }
    }
}

/// What reads a field: the strongest of its type's own reader and its encodings' (so a
/// `string` field keeps serde's `String`, which refuses a JSON number, unless it declares
/// `string_or_number`).
pub fn reader(field: &Field) -> Reader {
    let own = match &field.ty {
        TypeRef::Scalar(scalar) => scalar.reader(),
        TypeRef::List(_) => Reader::Collection,
        TypeRef::Record(_) | TypeRef::Enum(_) => Reader::Serde,
    };
    field
        .encoding
        .distinct()
        .into_iter()
        .map(|encoding| encoding.info().reader)
        .fold(own, Reader::max)
}

/// The decoder of a field.
pub fn decoder(field: &Field) -> Option<Decoder> {
    match reader(field) {
        Reader::Serde => None,
        Reader::Lenient if field.zero_is_none => Some(Decoder::ZeroIsNone),
        Reader::Lenient => Some(Decoder::Lenient),
        Reader::Collection => match &field.ty {
            TypeRef::List(element) if matches!(**element, TypeRef::Scalar(_)) => {
                Some(Decoder::LenientList)
            }
            _ => Some(Decoder::Collection),
        },
    }
}

/// Whether an absent field decodes (as `None`): an `Option` decoded by serde itself, or by a
/// runtime decoder with `#[serde(default)]`, which the emitter adds unless the field is always
/// present (then only `null` means none).
pub fn absent_is_none(field: &Field) -> bool {
    field.is_optional() && (decoder(field).is_none() || field.presence != Presence::Always)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn item(name: &str, module: &str) -> RustTy {
        RustTy::Item {
            name: name.to_owned(),
            module: module.to_owned(),
        }
    }

    #[test]
    fn prints_as_rust_and_as_tokens() {
        let ty = item("Timesheet", "pay").vec().optional();
        assert_eq!(ty.to_string(), "Option<Vec<Timesheet>>");
        assert_eq!(
            ty.to_token_stream().to_string(),
            "Option < Vec < Timesheet > >"
        );
        assert_eq!(
            RustTy::DayOrInstant.optional().to_string(),
            "Option<DayOrInstant>"
        );
    }

    #[test]
    fn carries_its_imports() {
        let ty = item("Bid", "api").optional();
        assert_eq!(
            ty.imports(),
            [Import::Item {
                module: "api".into(),
                name: "Bid".into()
            }]
        );
        assert_eq!(RustTy::Decimal.vec().imports(), [Import::Decimal]);
        assert!(RustTy::U64.optional().imports().is_empty());
    }

    #[test]
    fn items_are_the_same_type_wherever_they_are_declared() {
        assert_eq!(item("Bid", "api"), item("Bid", "pay"));
        assert_ne!(item("Bid", "api"), item("Agent", "api"));
        assert_ne!(RustTy::U64.vec(), RustTy::U64.optional());
    }
}
