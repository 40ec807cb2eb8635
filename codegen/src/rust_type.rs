//! The Rust type of every field and parameter, as text, and the runtime decoder of every field:
//! one mapping shared by the emitter (which parses the type into tokens and names the decoder in
//! `#[serde(with)]`) and by spec comparisons (whose wire model asks what that decoder accepts).

use crate::ir::{Encoding, Field, Param, ParamType, Presence, Scalar, TypeRef};

/// The field's type before any `Option`, e.g. `Vec<Timesheet>` or `DayOrInstant`.
pub fn value_type(field: &Field) -> String {
    match &field.ty {
        // A list's encoding describes the container; its dates may come in either format.
        TypeRef::List(element) => format!(
            "Vec<{}>",
            type_name(element, &[Encoding::Dmy, Encoding::Epoch])
        ),
        ty => type_name(ty, &field.encoding.distinct()),
    }
}

/// The field's type as declared in the struct, e.g. `Option<u64>`.
pub fn field_type(field: &Field) -> String {
    let value = value_type(field);
    if field.is_optional() {
        format!("Option<{value}>")
    } else {
        value
    }
}

/// A parameter's type.
pub fn param_type(param: &Param) -> &'static str {
    match param.ty {
        ParamType::Integer => "i64",
        ParamType::Count | ParamType::Id => "u64",
        ParamType::Date => "Date",
    }
}

/// A date's type follows from the formats it arrives in: `DD-MON-YY` text carries a day,
/// epoch seconds an instant, and a field sent both ways needs both.
fn type_name(ty: &TypeRef, encodings: &[Encoding]) -> String {
    match ty {
        TypeRef::Scalar(Scalar::String) => "String".to_owned(),
        TypeRef::Scalar(Scalar::Integer) => "i64".to_owned(),
        TypeRef::Scalar(Scalar::Id | Scalar::Count) => "u64".to_owned(),
        TypeRef::Scalar(Scalar::Boolean) => "bool".to_owned(),
        TypeRef::Scalar(Scalar::Decimal) => "Decimal".to_owned(),
        TypeRef::Scalar(Scalar::Date) => match (
            encodings.contains(&Encoding::Dmy),
            encodings.contains(&Encoding::Epoch),
        ) {
            (true, false) => "Date",
            (false, true) => "Timestamp",
            _ => "DayOrInstant",
        }
        .to_owned(),
        TypeRef::Record(name) | TypeRef::Enum(name) => name.clone(),
        TypeRef::List(element) => format!("Vec<{}>", type_name(element, encodings)),
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

/// The decoder of a field. A `string` field without `string_or_number` keeps serde's `String`,
/// which refuses a JSON number.
pub fn decoder(field: &Field) -> Option<Decoder> {
    match &field.ty {
        TypeRef::List(element) if matches!(**element, TypeRef::Scalar(_)) => {
            Some(Decoder::LenientList)
        }
        TypeRef::List(_) => Some(Decoder::Collection),
        TypeRef::Scalar(Scalar::String)
            if !field
                .encoding
                .distinct()
                .contains(&Encoding::StringOrNumber) =>
        {
            None
        }
        TypeRef::Scalar(_) if field.zero_is_none => Some(Decoder::ZeroIsNone),
        TypeRef::Scalar(_) => Some(Decoder::Lenient),
        TypeRef::Record(_) | TypeRef::Enum(_) => None,
    }
}

/// Whether an absent field decodes (as `None`): an `Option` decoded by serde itself, or by a
/// runtime decoder with `#[serde(default)]`, which the emitter adds unless the field is always
/// present (then only `null` means none).
pub fn absent_is_none(field: &Field) -> bool {
    field.is_optional() && (decoder(field).is_none() || field.presence != Presence::Always)
}
