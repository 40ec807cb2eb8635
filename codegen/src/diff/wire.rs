//! The wire's vocabulary for the tools that read recorded traffic (`wire_audit`): JSON values
//! as the spec diff's model writes them ([`Json`]), which encodings of the table a value is
//! spelled in, and whether a type's decoder reads it ([`scalar_fits`], the decoders' model of
//! [`super::decode`]).

use super::json;
pub use super::json::Json;
use crate::ir::{DateForm, Encoding, Find, JsonForm, Kind, Scalar};

/// The encodings of the table that `kind` may declare and whose spelling `json` is: its JSON
/// form (an index-keyed object for `index_object`) and, for dates, what the text or number
/// carries (`dmy`: `DD-MON-YY` text; `epoch`: whole seconds). Whether the value fits the type
/// is [`scalar_fits`]'s question; this one is only about the spelling.
pub fn encodings_of(kind: Kind, json: &Json) -> Vec<Encoding> {
    let Some(json_kind) = json.kind() else {
        return Vec::new();
    };
    Encoding::allowed_for(kind)
        .filter(|encoding| {
            let info = encoding.info();
            let form = info.json.kinds().contains(&json_kind)
                && (info.json != JsonForm::IndexObject || json.collection_items().is_some());
            form && match info.date {
                Some(DateForm::Day) => matches!(json, Json::Str(text) if json::is_day(text)),
                Some(DateForm::Instant) => json::number(json).is_some_and(|n| !n.fraction),
                None => true,
            }
        })
        .collect()
}

/// Whether a value of `scalar` can be read from `json` by the runtime's lenient decoder of
/// the type (text: a string or a number kept as its text; a date: either format).
pub fn scalar_fits(api: &dyn Find, scalar: Scalar, json: &Json) -> bool {
    super::decode::scalar_fits(api, scalar, json)
}
