//! Which values a type lets through, on each side, and when the spec's lets fewer through:
//! the rules of "Narrower than the reference" in the parent module's docs.

use crate::ir::{DateForm, Encoding, Reader, Scalar, TypeRef};

use super::reference::RefType;

/// A set of kinds of value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Values(u8);

impl Values {
    /// The text values an enum lists.
    const LISTED_TEXT: Values = Values(1);
    /// `DD-MON-YY` text.
    const DAY_TEXT: Values = Values(1 << 1);
    /// Any other text.
    const OTHER_TEXT: Values = Values(1 << 2);
    /// Integers that are epoch seconds a timestamp holds.
    const EPOCH_SECONDS: Values = Values(1 << 3);
    /// Any other integer.
    const OTHER_INTEGER: Values = Values(1 << 4);
    /// Numbers with a fractional part.
    const FRACTION: Values = Values(1 << 5);
    /// `true` and `false`.
    const BOOLEAN: Values = Values(1 << 6);

    const TEXT: Values = Self::LISTED_TEXT.or(Self::DAY_TEXT).or(Self::OTHER_TEXT);
    const INTEGER: Values = Self::EPOCH_SECONDS.or(Self::OTHER_INTEGER);
    const NUMBER: Values = Self::INTEGER.or(Self::FRACTION);
    const NONE: Values = Values(0);

    const fn or(self, other: Values) -> Values {
        Values(self.0 | other.0)
    }

    fn contains(self, other: Values) -> bool {
        other.0 & !self.0 == 0
    }
}

/// What a type lets through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A scalar.
    Values(Values),
    /// A record, by the reference's name for it.
    Record(String),
    /// An object the reference documents in place (checked field by field elsewhere).
    Object,
    /// A collection; `None` when its elements are not stated.
    List(Option<Box<Shape>>),
    /// Anything (the envelope's `data`).
    Any,
}

/// Whether some value `reference` admits would fail to decode as `spec`.
pub(super) fn is_narrower(reference: &Shape, spec: &Shape) -> bool {
    match (reference, spec) {
        (Shape::Any, _) => false,
        (Shape::Values(reference), Shape::Values(spec)) => !spec.contains(*reference),
        (Shape::Record(reference), Shape::Record(spec)) => reference != spec,
        (Shape::Object, Shape::Record(_)) => false,
        (Shape::List(None), Shape::List(_)) => false,
        (Shape::List(Some(reference)), Shape::List(Some(spec))) => is_narrower(reference, spec),
        _ => true,
    }
}

/// What the reference's type admits.
pub(super) fn reference_shape(ty: &RefType) -> Shape {
    let values = match ty {
        // By the reference's convention, a value of no stated type is a string.
        RefType::Text | RefType::Unstated => Values::TEXT,
        RefType::Integer => Values::INTEGER,
        RefType::Number => Values::NUMBER,
        RefType::Boolean => Values::BOOLEAN,
        RefType::Epoch => Values::EPOCH_SECONDS,
        RefType::DayText => Values::DAY_TEXT,
        RefType::TextOrInteger => Values::TEXT.or(Values::INTEGER),
        RefType::PerMethod(per_method) => {
            // The decoders do not vary by method, so the field admits every method's values.
            let mut values = Values::NONE;
            for (_, ty) in per_method {
                match reference_shape(ty) {
                    Shape::Values(more) => values = values.or(more),
                    other => return other,
                }
            }
            values
        }
        RefType::Object => return Shape::Any,
        RefType::Record(name) => return Shape::Record(name.clone()),
        RefType::Inline(_) => return Shape::Object,
        RefType::List(element) => {
            return Shape::List(element.as_deref().map(|e| Box::new(reference_shape(e))));
        }
    };
    Shape::Values(values)
}

/// How the spec side describes the types it names: records and enums are looked up.
pub(super) trait SpecTypes {
    /// The reference's name for the record `name`.
    fn documented_name(&self, record: &str) -> String;
    /// Whether the enum `name` keeps unknown values.
    fn is_open(&self, enumeration: &str) -> bool;
}

/// What a spec field of type `ty`, declared with `encodings`, lets through.
pub(super) fn spec_shape(ty: &TypeRef, encodings: &[Encoding], types: &dyn SpecTypes) -> Shape {
    let values = match ty {
        // An encoding read by the runtime's lenient text decoder keeps a number as its text.
        TypeRef::Scalar(Scalar::String)
            if encodings.iter().any(|e| e.info().reader == Reader::Lenient) =>
        {
            Values::TEXT.or(Values::NUMBER)
        }
        TypeRef::Scalar(Scalar::String) => Values::TEXT,
        TypeRef::Scalar(Scalar::Integer | Scalar::Id | Scalar::Count) => Values::INTEGER,
        TypeRef::Scalar(Scalar::Decimal) => Values::NUMBER,
        TypeRef::Scalar(Scalar::Boolean) => Values::BOOLEAN,
        TypeRef::Scalar(Scalar::Date) => date_values(encodings),
        TypeRef::Enum(name) if types.is_open(name.as_str()) => Values::TEXT,
        TypeRef::Enum(_) => Values::LISTED_TEXT,
        TypeRef::Record(name) => return Shape::Record(types.documented_name(name.as_str())),
        // A list's encoding is the list's; its elements take their type's every encoding.
        TypeRef::List(element) => {
            return Shape::List(Some(Box::new(spec_shape(element, &[], types))));
        }
    };
    Shape::Values(values)
}

/// The formats a date decoder takes: those of its encodings (both when none is declared).
fn date_values(encodings: &[Encoding]) -> Values {
    let carries =
        |form| encodings.is_empty() || encodings.iter().any(|e| e.info().date == Some(form));
    let day = carries(DateForm::Day);
    let epoch = carries(DateForm::Instant);
    let mut values = Values::NONE;
    if day {
        values = values.or(Values::DAY_TEXT);
    }
    if epoch {
        values = values.or(Values::EPOCH_SECONDS);
    }
    values
}

/// What a parameter of the spec lets the caller send.
pub(super) fn param_shape(ty: crate::ir::ParamType) -> Shape {
    use crate::ir::ParamType;
    Shape::Values(match ty {
        ParamType::Integer | ParamType::Count | ParamType::Id => Values::INTEGER,
        ParamType::Date => Values::DAY_TEXT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Id;

    struct Types;

    impl SpecTypes for Types {
        fn documented_name(&self, record: &str) -> String {
            format!("{record}Data")
        }
        fn is_open(&self, enumeration: &str) -> bool {
            enumeration == "Open"
        }
    }

    fn narrower(reference: RefType, spec: TypeRef, encodings: &[Encoding]) -> bool {
        is_narrower(
            &reference_shape(&reference),
            &spec_shape(&spec, encodings, &Types),
        )
    }

    const STRING: TypeRef = TypeRef::Scalar(Scalar::String);
    const ID: TypeRef = TypeRef::Scalar(Scalar::Id);
    const DATE: TypeRef = TypeRef::Scalar(Scalar::Date);
    const DECIMAL: TypeRef = TypeRef::Scalar(Scalar::Decimal);
    const COUNT: TypeRef = TypeRef::Scalar(Scalar::Count);

    #[test]
    fn text_typed_as_numbers_dates_or_closed_enums_is_narrower() {
        assert!(narrower(RefType::Text, ID, &[Encoding::STRING]));
        assert!(narrower(RefType::Text, DECIMAL, &[Encoding::STRING]));
        assert!(narrower(RefType::Text, DATE, &[Encoding::DMY]));
        assert!(narrower(RefType::Unstated, DATE, &[Encoding::DMY]));
        assert!(narrower(
            RefType::Text,
            TypeRef::Enum(Id::new("Closed")),
            &[]
        ));
        assert!(!narrower(
            RefType::Text,
            TypeRef::Enum(Id::new("Open")),
            &[]
        ));
        assert!(!narrower(RefType::Text, STRING, &[Encoding::STRING]));
        assert!(!narrower(RefType::DayText, STRING, &[Encoding::STRING]));
        assert!(!narrower(RefType::DayText, DATE, &[Encoding::DMY]));
    }

    #[test]
    fn numbers_follow_what_the_decoders_take() {
        assert!(!narrower(RefType::Integer, ID, &[Encoding::NUMBER]));
        assert!(!narrower(RefType::Integer, DECIMAL, &[Encoding::NUMBER]));
        assert!(!narrower(RefType::Number, DECIMAL, &[Encoding::STRING]));
        assert!(narrower(RefType::Number, COUNT, &[Encoding::NUMBER]));
        assert!(!narrower(RefType::Epoch, DATE, &[Encoding::EPOCH]));
        assert!(narrower(RefType::Integer, DATE, &[Encoding::EPOCH]));
        assert!(!narrower(
            RefType::TextOrInteger,
            STRING,
            &[Encoding::STRING_OR_NUMBER]
        ));
        assert!(narrower(
            RefType::TextOrInteger,
            STRING,
            &[Encoding::STRING]
        ));
    }

    #[test]
    fn per_method_formats_need_every_format() {
        let both = RefType::PerMethod(vec![
            ("a/b".into(), RefType::DayText),
            ("a/c".into(), RefType::Epoch),
        ]);
        assert!(!narrower(
            both.clone(),
            DATE,
            &[Encoding::DMY, Encoding::EPOCH]
        ));
        assert!(narrower(both, DATE, &[Encoding::DMY]));
    }

    #[test]
    fn records_and_lists_compare_by_name_and_element() {
        let bid = RefType::Record("BidData".into());
        assert!(!narrower(bid.clone(), TypeRef::Record(Id::new("Bid")), &[]));
        assert!(narrower(
            bid.clone(),
            TypeRef::Record(Id::new("Other")),
            &[]
        ));
        assert!(narrower(bid, STRING, &[]));
        let ids = RefType::List(Some(Box::new(RefType::Integer)));
        assert!(!narrower(ids.clone(), TypeRef::List(Box::new(ID)), &[]));
        assert!(narrower(ids, ID, &[]));
        let unstated = RefType::List(None);
        let comments = TypeRef::List(Box::new(TypeRef::Record(Id::new("Comment"))));
        assert!(!narrower(unstated, comments, &[]));
    }
}
