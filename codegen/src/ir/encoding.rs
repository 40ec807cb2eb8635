//! How values are written on the wire: the one table of encodings, [`ENCODINGS`].
//!
//! Everything the generator knows about a wire spelling is in its row: validation reads which
//! types may declare it and which is a type's default, the generated docs read its description
//! and whether it is the plain JSON form of its Rust type, the emitter reads which runtime
//! decoder reads it, the spec diff's wire model reads its JSON form and examples, and the
//! spec-fake conformance test reads its JSON form. A new wire quirk is one row here and one
//! runtime decoder in `marketplace_client::wire` (with its tests).

use std::fmt;

use super::Scalar;

/// A spec type that declares an encoding: a scalar or a list (records and enums are written as
/// themselves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A built-in scalar.
    Scalar(Scalar),
    /// `list<T>`: the encoding is the container's.
    List,
}

/// Which runtime decoder reads a value. A field is read by the strongest of its type's own
/// ([`Scalar::reader`], lists: [`Reader::Collection`]) and those of its declared encodings, so
/// that a spelling the type's own `Deserialize` refuses always gets a decoder that takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reader {
    /// The Rust type's own `Deserialize` (serde's `String` refuses a JSON number).
    Serde,
    /// The runtime's `wire::Lenient` decoder of the type, which takes every spelling of the
    /// type in this table (numbers from their digits, never through `f64`).
    Lenient,
    /// The runtime's collection decoders, which take an array and an index-keyed object alike.
    Collection,
}

/// The JSON a value is sent as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonForm {
    /// A JSON number.
    Number,
    /// A JSON string.
    String,
    /// A JSON string or a JSON number.
    StringOrNumber,
    /// `true` or `false`.
    Boolean,
    /// An object keyed by index strings `"0"`, `"1"`, ...
    IndexObject,
    /// A JSON array.
    Array,
}

/// A kind of JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    /// The kind in words, with its article: `a JSON string`.
    pub fn words(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Boolean => "a JSON boolean",
            JsonKind::Number => "a JSON number",
            JsonKind::String => "a JSON string",
            JsonKind::Array => "a JSON array",
            JsonKind::Object => "a JSON object",
        }
    }
}

impl JsonForm {
    /// The kinds of JSON value the form allows.
    pub fn kinds(self) -> &'static [JsonKind] {
        match self {
            JsonForm::Number => &[JsonKind::Number],
            JsonForm::String => &[JsonKind::String],
            JsonForm::StringOrNumber => &[JsonKind::String, JsonKind::Number],
            JsonForm::Boolean => &[JsonKind::Boolean],
            JsonForm::IndexObject => &[JsonKind::Object],
            JsonForm::Array => &[JsonKind::Array],
        }
    }
}

/// What a date's spelling carries, which picks its Rust type: a day (`jiff::civil::Date`), an
/// instant (`jiff::Timestamp`), or, for a field sent both ways, `DayOrInstant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateForm {
    /// A calendar day.
    Day,
    /// An instant.
    Instant,
}

/// One row of [`ENCODINGS`].
#[derive(Debug, PartialEq, Eq)]
pub struct EncodingInfo {
    /// The name in the spec (`encoding: dmy`).
    pub name: &'static str,
    /// How the reference sends it, for documentation ("`DD-MON-YY` text").
    pub doc: &'static str,
    /// The types that may declare it.
    pub types: &'static [Kind],
    /// The types that have it when they declare none.
    pub default_for: &'static [Kind],
    /// The types whose plain JSON form it is: their docs need no "On the wire" note.
    pub plain_for: &'static [Kind],
    /// The runtime decoder that reads it.
    pub reader: Reader,
    /// The JSON it is sent as.
    pub json: JsonForm,
    /// For dates: what it carries.
    pub date: Option<DateForm>,
    /// Typical values as JSON text, when the spelling fixes them; otherwise the values come
    /// from the type ([`Scalar::example`]) in the row's [`JsonForm`].
    pub examples: &'static [&'static str],
}

const STRING: Kind = Kind::Scalar(Scalar::String);
const INTEGER: Kind = Kind::Scalar(Scalar::Integer);
const ID: Kind = Kind::Scalar(Scalar::Id);
const COUNT: Kind = Kind::Scalar(Scalar::Count);
const DECIMAL: Kind = Kind::Scalar(Scalar::Decimal);
const BOOLEAN: Kind = Kind::Scalar(Scalar::Boolean);
const DATE: Kind = Kind::Scalar(Scalar::Date);
const LIST: Kind = Kind::List;
const NUMBERS: &[Kind] = &[INTEGER, ID, COUNT, DECIMAL];

/// Every encoding a spec may declare. The order is the order of error messages and docs.
pub const ENCODINGS: &[EncodingInfo] = &[
    EncodingInfo {
        name: "number",
        doc: "a JSON number",
        types: NUMBERS,
        default_for: NUMBERS,
        plain_for: NUMBERS,
        reader: Reader::Lenient,
        json: JsonForm::Number,
        date: None,
        examples: &[],
    },
    EncodingInfo {
        name: "string",
        doc: "a JSON string",
        types: &[STRING, INTEGER, ID, COUNT, DECIMAL],
        default_for: &[STRING],
        plain_for: &[STRING],
        reader: Reader::Serde,
        json: JsonForm::String,
        date: None,
        examples: &[],
    },
    EncodingInfo {
        name: "string_or_number",
        doc: "a JSON string or number",
        types: &[STRING, INTEGER, ID, COUNT, DECIMAL],
        default_for: &[],
        plain_for: &[],
        reader: Reader::Lenient,
        json: JsonForm::StringOrNumber,
        date: None,
        examples: &[],
    },
    EncodingInfo {
        name: "boolean",
        doc: "a JSON boolean",
        types: &[BOOLEAN],
        default_for: &[BOOLEAN],
        plain_for: &[BOOLEAN],
        reader: Reader::Lenient,
        json: JsonForm::Boolean,
        date: None,
        examples: &["true"],
    },
    EncodingInfo {
        name: "dmy",
        doc: "`DD-MON-YY` text",
        types: &[DATE],
        default_for: &[],
        plain_for: &[],
        reader: Reader::Lenient,
        json: JsonForm::String,
        date: Some(DateForm::Day),
        examples: &["\"05-JAN-26\""],
    },
    EncodingInfo {
        name: "epoch",
        doc: "epoch seconds",
        types: &[DATE],
        default_for: &[],
        plain_for: &[],
        reader: Reader::Lenient,
        json: JsonForm::Number,
        date: Some(DateForm::Instant),
        examples: &["1767571200"],
    },
    EncodingInfo {
        name: "index_object",
        doc: "an object keyed \"0\", \"1\", ...",
        types: &[LIST],
        default_for: &[LIST],
        plain_for: &[],
        reader: Reader::Collection,
        json: JsonForm::IndexObject,
        date: None,
        examples: &[],
    },
    EncodingInfo {
        name: "array",
        doc: "a JSON array",
        types: &[LIST],
        default_for: &[],
        plain_for: &[LIST],
        reader: Reader::Collection,
        json: JsonForm::Array,
        date: None,
        examples: &[],
    },
];

/// How a value is written on the wire: a row of [`ENCODINGS`]. Ordered as the table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Encoding(u8);

impl Encoding {
    /// `DD-MON-YY` text.
    pub const DMY: Encoding = Encoding::named_in_table("dmy");
    /// Epoch seconds.
    pub const EPOCH: Encoding = Encoding::named_in_table("epoch");
    /// A JSON number.
    pub const NUMBER: Encoding = Encoding::named_in_table("number");
    /// A JSON string.
    pub const STRING: Encoding = Encoding::named_in_table("string");
    /// A JSON string or number.
    pub const STRING_OR_NUMBER: Encoding = Encoding::named_in_table("string_or_number");
    /// An index-keyed object.
    pub const INDEX_OBJECT: Encoding = Encoding::named_in_table("index_object");
    /// A JSON array.
    pub const ARRAY: Encoding = Encoding::named_in_table("array");
    /// A JSON boolean.
    pub const BOOLEAN: Encoding = Encoding::named_in_table("boolean");

    /// The encoding the spec calls `name`.
    pub fn named(name: &str) -> Option<Encoding> {
        Self::all().find(|encoding| encoding.spec_name() == name)
    }

    /// Every encoding, in table order.
    pub fn all() -> impl Iterator<Item = Encoding> {
        (0..ENCODINGS.len()).map(|index| Encoding(index as u8))
    }

    /// The encodings `kind` may declare, in table order.
    pub fn allowed_for(kind: Kind) -> impl Iterator<Item = Encoding> {
        Self::all().filter(move |encoding| encoding.info().types.contains(&kind))
    }

    /// The encoding `kind` has when it declares none.
    pub fn default_for(kind: Kind) -> Option<Encoding> {
        Self::all().find(|encoding| encoding.info().default_for.contains(&kind))
    }

    /// The row.
    pub fn info(self) -> &'static EncodingInfo {
        &ENCODINGS[usize::from(self.0)]
    }

    /// The spec name.
    pub fn spec_name(self) -> &'static str {
        self.info().name
    }

    /// How the reference says it, for documentation.
    pub fn describe(self) -> &'static str {
        self.info().doc
    }

    /// Whether it is the plain JSON form of `kind`'s Rust type.
    pub fn is_plain_for(self, kind: Kind) -> bool {
        self.info().plain_for.contains(&kind)
    }

    /// A row by name, at compile time (for the constants above: a missing row fails the build).
    const fn named_in_table(name: &str) -> Encoding {
        let mut index = 0;
        while index < ENCODINGS.len() {
            if const_eq(ENCODINGS[index].name, name) {
                return Encoding(index as u8);
            }
            index += 1;
        }
        panic!("no such encoding in ENCODINGS")
    }
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl fmt::Debug for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec_name())
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        assert!(ENCODINGS.len() <= usize::from(u8::MAX));
        for (index, row) in ENCODINGS.iter().enumerate() {
            let later = &ENCODINGS[index + 1..];
            assert!(
                later.iter().all(|other| other.name != row.name),
                "{} twice",
                row.name
            );
            for kind in row.default_for.iter().chain(row.plain_for) {
                assert!(row.types.contains(kind), "{}: {kind:?}", row.name);
            }
            assert_eq!(
                row.date.is_some(),
                row.types == [DATE],
                "{}: only dates carry a date form",
                row.name
            );
        }
        // At most one default per type; dates have none (neither format is the obvious one).
        for kind in ENCODINGS.iter().flat_map(|row| row.types) {
            let defaults = ENCODINGS
                .iter()
                .filter(|row| row.default_for.contains(kind))
                .count();
            assert_eq!(defaults, usize::from(*kind != DATE), "{kind:?}");
        }
    }

    #[test]
    fn names_round_trip() {
        for encoding in Encoding::all() {
            assert_eq!(Encoding::named(encoding.spec_name()), Some(encoding));
        }
        assert_eq!(Encoding::DMY.spec_name(), "dmy");
        assert_eq!(Encoding::named("yes_no_maybe"), None);
    }
}
