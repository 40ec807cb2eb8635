//! The response envelope shared by every data method, and decoding that says where it failed.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::wire;

/// The JSON object every data method answers with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope<T> {
    /// `group/method` of the answering method. pay/getPayment and pay/getInvoice carry
    /// `pay/getBilling` here (the spec's `delivered_api`), so this is kept, not checked.
    pub api: String,
    /// Always 1 so far.
    #[serde(with = "wire::lenient")]
    pub api_version: i64,
    /// 1 on success; other values are not documented.
    #[serde(with = "wire::lenient")]
    pub rcode: i64,
    /// The method's data.
    pub data: T,
}

/// A response body that does not decode into the expected type.
///
/// Its `Display` is on one line without a control character ([`OneLine`](crate::OneLine)):
/// the path's keys and the value quoted are the service's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", crate::OneLine(format_args!("{path}: {message}")))]
pub struct DecodeError {
    /// JSON path of the value that failed, e.g. `data.timesheets.3.rate` (`.` for the root).
    pub path: String,
    /// What was wrong with it, and the value as it was spelled on the wire when the body is
    /// JSON (`…; on the wire: "1,000.00"`), at most 80 characters of it.
    pub message: String,
}

/// The most characters of the value at fault a [`DecodeError`] shows.
pub const SHOWN_VALUE_CHARS: usize = 80;

/// Decodes a JSON body, naming the JSON path of the first value that does not fit.
///
/// Path tracking costs an allocation per object key, so a body is decoded without it first; only
/// a body that fails is decoded again with it (decoding is deterministic, so the second pass
/// fails at the same place with the same message).
///
/// The first pass reads a body that is valid UTF-8 as a `str`, checked once as a whole: from
/// bytes, serde_json checks the UTF-8 of every string and of every number's text it hands out
/// (`wire/raw.rs`) one by one, a fifth of the instructions of decoding a page. On valid UTF-8
/// both readers give the same result. Any other body (rare: the service sends UTF-8) is read
/// as bytes by the second pass alone, which gives the same value as plain serde_json when it
/// succeeds: a third reader of `T` (plain bytes) would be one more instantiation of every
/// generated decoder in each crate that decodes, a third of what decoding costs an app's build
/// (BENCHMARKS.md section 8).
///
/// A UTF-8 byte order mark before the JSON is no content: RFC 8259 lets a JSON reader ignore
/// it, and the client's error and token readers do the same.
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, DecodeError> {
    let body = content(body);
    if let Ok(text) = std::str::from_utf8(body) {
        if let Ok(value) = serde_json::from_str(text) {
            return Ok(value);
        }
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value =
        serde_path_to_error::deserialize(&mut deserializer).map_err(|error| DecodeError {
            path: show_path(error.path()),
            message: match spelled_at(body, error.path()) {
                Some(spelled) => format!("{}; on the wire: {spelled}", error.inner()),
                None => error.inner().to_string(),
            },
        })?;
    deserializer.end().map_err(|error| DecodeError {
        path: ".".to_owned(),
        message: error.to_string(),
    })?;
    Ok(value)
}

/// `body` without the UTF-8 byte order mark it may start with. The mark is no content: RFC 8259
/// (section 8.1) lets a JSON reader ignore it, and servers behind some frameworks send one.
/// Every reader of an answer's body takes this (the decoder above, the error and token
/// readers, `error_body.rs`), so that none reads the mark as part of a key or refuses a body
/// another reads; what hooks and recordings are shown keeps it, as sent. The recording reader
/// takes it too, for a recording file's start (`recording::read`).
pub(crate) fn content(body: &[u8]) -> &[u8] {
    body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body)
}

/// The JSON text of the value at `path` in `body`, cut to [`SHOWN_VALUE_CHARS`] characters:
/// how the value at fault was spelled (a number as a string, a date as epoch seconds, …).
/// For a missing field, the path names its object, which is shown. `None` when the body is
/// not JSON or the path leads nowhere.
fn spelled_at(body: &[u8], path: &serde_path_to_error::Path) -> Option<String> {
    use serde_json::value::RawValue;
    use serde_path_to_error::Segment;
    use std::collections::HashMap;
    // Walked as text (`RawValue`), never as a `serde_json::Value`: a number is shown with the
    // digits it was sent with, not as the `f64` nearest to them.
    fn object(text: &str) -> Option<HashMap<String, &RawValue>> {
        serde_json::from_str(text).ok()
    }
    fn array(text: &str) -> Option<Vec<&RawValue>> {
        serde_json::from_str(text).ok()
    }
    let mut value: &RawValue = serde_json::from_slice(body).ok()?;
    for segment in path.iter() {
        let text = value.get();
        value = match (segment, text.as_bytes().first()?) {
            (Segment::Map { key }, b'{') => *object(text)?.get(key.as_str())?,
            (Segment::Map { key }, b'[') => *array(text)?.get(key.parse::<usize>().ok()?)?,
            (Segment::Seq { index }, b'[') => *array(text)?.get(*index)?,
            // An index-keyed collection: its items are read in key order.
            (Segment::Seq { index }, b'{') => *object(text)?.get(&index.to_string())?,
            _ => return None,
        };
    }
    let text = without_white_space(value.get());
    Some(match text.char_indices().nth(SHOWN_VALUE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    })
}

/// JSON text without the white space between its tokens (strings kept as they are).
fn without_white_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// A JSON path for people: `data.timesheets.3.rate`; `.` for the whole body; a key that is
/// empty or could be misread (`.`, `[`, space) is quoted: `data.[""]`, `data.["a.b"]`.
fn show_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let segments: Vec<String> = path
        .iter()
        .map(|segment| match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } if key.is_empty() || key.contains(['.', '[', ']', ' ']) => {
                format!("[{key:?}]")
            }
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => "?".to_owned(),
        })
        .collect();
    if segments.is_empty() {
        ".".to_owned()
    } else {
        segments.join(".")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Item {
        #[serde(with = "wire::lenient")]
        #[allow(dead_code)]
        rate: rust_decimal::Decimal,
    }

    #[derive(Debug, Deserialize)]
    struct Page {
        #[serde(with = "wire::collection")]
        #[allow(dead_code)]
        timesheets: Vec<Item>,
    }

    #[test]
    fn names_the_json_path_of_a_bad_element_of_an_index_keyed_object() {
        let body = br#"{"api":"pay/x","apiVersion":1,"rcode":1,"data":{"timesheets":{
            "0":{"rate":"1.00"},"1":{"rate":"2.00"},"2":{"rate":"3.00"},"3":{"rate":"1,000.00"}}}}"#;
        let error = decode::<Envelope<Page>>(body).unwrap_err();
        assert_eq!(error.path, "data.timesheets.3.rate");
        assert!(error.message.contains("1,000.00"), "{}", error.message);
    }

    #[test]
    fn a_number_that_does_not_fit_is_named_by_its_path_alone() {
        // Numbers are read as raw JSON text (wire/raw.rs), an entry keyed by a serde_json token;
        // the error is raised after that entry, so the token never shows in the path.
        let body = br#"{"api":"pay/x","apiVersion":1,"rcode":1,"data":{"timesheets":{
            "0":{"rate":1.00},"1":{"rate":12345678901234567890123456789.5}}}}"#;
        let error = decode::<Envelope<Page>>(body).unwrap_err();
        assert_eq!(error.path, "data.timesheets.1.rate");
        assert!(
            error
                .message
                .starts_with("decimal 12345678901234567890123456789.5 has more digits"),
            "{}",
            error.message
        );
        assert!(!error.message.contains('$'), "{}", error.message);
        let error = decode::<Envelope<Page>>(br#"{"api":"pay/x","apiVersion":1.5}"#).unwrap_err();
        assert_eq!(error.path, "apiVersion");
    }

    #[test]
    fn paths_are_never_empty_and_odd_keys_are_quoted() {
        // Found by the decode_response fuzz target: an empty key used to give an empty path.
        let error = decode::<Envelope<Page>>(b"{\n  \"\":  ").unwrap_err();
        assert_eq!(error.path, "[\"\"]");
        let error =
            decode::<Envelope<Page>>(br#"{"data": {"timesheets": {"a.b": {}}}}"#).unwrap_err();
        assert!(error.path.starts_with("data.timesheets"), "{}", error.path);
        let error = decode::<Envelope<Page>>(b"").unwrap_err();
        assert_eq!(error.path, ".");
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Named {
        name: String,
        #[serde(with = "wire::lenient")]
        rate: rust_decimal::Decimal,
    }

    proptest::proptest! {
        /// A byte order mark changes nothing a body decodes to, nor how it fails (the error's
        /// path and message), whatever the body: valid, cut short, or not JSON.
        #[test]
        fn a_byte_order_mark_before_a_body_is_no_content(
            name in "[a-z\u{e9}\u{feff}\"\\\\]{0,6}",
            rate in proptest::prop_oneof!["[0-9]{1,4}(\\.[0-9]{2})?", "\"[0-9,.]{1,6}\""],
            cut in proptest::prelude::any::<proptest::sample::Index>(),
            whole in proptest::prelude::any::<bool>(),
        ) {
            let json = format!("{{\"name\":{},\"rate\":{rate}}}", serde_json::json!(name));
            let cut = if whole { json.len() } else { cut.index(json.len() + 1) };
            let body = json.get(..cut).unwrap_or(&json);
            let marked = [b"\xEF\xBB\xBF".as_slice(), body.as_bytes()].concat();
            proptest::prop_assert_eq!(decode::<Named>(&marked), decode::<Named>(body.as_bytes()));
            let twice = [b"\xEF\xBB\xBF".as_slice(), &marked].concat();
            // Only one mark is a mark: a second is text before the JSON, refused.
            proptest::prop_assert!(decode::<Named>(&twice).is_err());
        }
    }

    #[test]
    fn a_body_decodes_as_serde_json_decodes_its_bytes_whatever_its_utf8() {
        // `decode` checks a valid body's UTF-8 once and reads it as a str; serde_json reading
        // the bytes (checking each value's UTF-8) is the oracle, for valid and invalid bodies.
        let bodies: [&[u8]; 7] = [
            b"{\"name\":\"caf\xc3\xa9\",\"rate\":30.00}",
            b"{\"name\":\"caf\xc3\xa9\",\"rate\":\"30.00\"}",
            b"{\"name\":\"caf\xe9\",\"rate\":30.00}",
            b"{\"name\":\"x\",\"other\":\"\xff\",\"rate\":1}",
            b"{\"name\":\"x\",\"rate\":\"1\xff\"}",
            b"{\"na\xffme\":\"x\",\"rate\":1}",
            b"{\"name\":\"\\u00e9\",\"rate\":1e2}",
        ];
        for body in bodies {
            let expected = serde_json::from_slice::<Named>(body).map_err(|e| e.to_string());
            match (decode::<Named>(body), expected) {
                (Ok(value), Ok(expected)) => assert_eq!(value, expected),
                (Err(error), Err(expected)) => assert!(
                    error.message.starts_with(&expected),
                    "{} against {expected}",
                    error.message
                ),
                (got, expected) => panic!("{body:?}: {got:?} against {expected:?}"),
            }
        }
    }

    #[test]
    fn the_message_shows_the_value_as_spelled_on_the_wire() {
        let body = br#"{"api":"pay/x","apiVersion":1,"rcode":1,"data":{"timesheets":{
            "0":{"rate":"1.00"},"1":{"rate":["12",{"a":1}]}}}}"#;
        let error = decode::<Envelope<Page>>(body).unwrap_err();
        assert_eq!(error.path, "data.timesheets.1.rate");
        assert!(
            error.message.ends_with(r#"; on the wire: ["12",{"a":1}]"#),
            "{}",
            error.message
        );
        let long = format!(r#"{{"name":"x","rate":"{}"}}"#, "9".repeat(200));
        let error = decode::<Named>(long.as_bytes()).unwrap_err();
        let shown = error.message.split("; on the wire: ").nth(1).unwrap();
        assert_eq!(shown.chars().count(), SHOWN_VALUE_CHARS + 1, "{shown}");
        assert!(shown.ends_with('…'));
        // A missing field: its object is shown. A body that is not JSON: serde's message only.
        let error = decode::<Named>(br#"{"rate":1}"#).unwrap_err();
        assert!(
            error.message.ends_with(r#"; on the wire: {"rate":1}"#),
            "{}",
            error.message
        );
        let error = decode::<Named>(br#"{"rate":1"#).unwrap_err();
        assert!(!error.message.contains("on the wire"), "{}", error.message);
    }

    proptest::proptest! {
        /// A number is quoted with the digits it was sent with, never as the `f64` nearest to
        /// them (`7.000000000000000000001` is not `7.0`), and white space between tokens is
        /// left out, never inside a string.
        #[test]
        fn the_value_at_fault_is_quoted_with_its_own_digits(
            digits in "[1-9][0-9]{0,30}(\\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?",
            pad in "[ \t\r\n]{0,3}",
        ) {
            let body = format!(r#"{{"name":{pad}{{"a b":{pad}[{pad}{digits}{pad}]}}{pad},"rate":1}}"#);
            let error = decode::<Named>(body.as_bytes()).unwrap_err();
            let shown = error.message.split("; on the wire: ").nth(1).unwrap_or_default();
            let expected = format!(r#"{{"a b":[{digits}]}}"#);
            let cut: String = expected.chars().take(SHOWN_VALUE_CHARS).collect();
            proptest::prop_assert!(shown.starts_with(&cut), "{shown} against {expected}");
        }
    }

    #[test]
    fn refuses_trailing_data() {
        let error = decode::<i64>(b"1 2").unwrap_err();
        assert_eq!(error.path, ".");
    }
}
