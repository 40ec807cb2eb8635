//! The Rust type of every field and parameter, as text: one mapping shared by the emitter (which
//! parses it into tokens) and by spec comparisons (which judge whether the Rust API changed).

use crate::ir::{Encoding, Field, Param, ParamType, Scalar, TypeRef};

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
