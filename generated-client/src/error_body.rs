//! Reading what an error response says, whatever its shape.
//!
//! The reference shows neither the format of error bodies nor their HTTP statuses, so a body is
//! read by its structure, tried in this order, each parsed once:
//!
//! 1. **JSON**: the codes, messages and types of every listed error, from a top-level
//!    `code`/`errorCode`/`error` string, a nested `error: {code, message, type}` object, an
//!    `errors` array (or index-keyed object) of such objects or strings, the same inside `data`
//!    (an `rcode` other than 1 with `data`), or failing all that the first `E_…` string
//!    anywhere; and the envelope's `rcode`;
//! 2. **form pairs** (`error=E_…&error_description=…`, `oauth_problem=…&oauth_problem_advice=…`);
//! 3. **text** (HTML, plain text): every distinct `E_…` word.
//!
//! The body is cleaned of secrets by the scrubber (`scrub/`) before it is parsed: everything
//! read from it (codes, messages) and everything kept comes from the cleaned text. A body the
//! scrubber cannot read as the text it is (another charset, a content coding) is withheld
//! whole (`Scrubber::clean_body`).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde_json::{Map, Value};

use crate::api_failure::{ApiFailure, ListedError, RawErrorCode};
use crate::oauth::MAX_TOKEN_BYTES;
use crate::scrub::{Outcome, Scrubber};

/// Keys whose value is an error code.
const CODE_KEYS: [&str; 5] = ["code", "errorCode", "error_code", "oauth_problem", "error"];
/// Keys whose value is a human-readable message.
const MESSAGE_KEYS: [&str; 9] = [
    "message",
    "description",
    "error_description",
    "errorMessage",
    "error_message",
    "oauth_problem_advice",
    "detail",
    "msg",
    "reason",
];
/// Keys whose value is the kind of error.
const KIND_KEYS: [&str; 4] = ["type", "error_type", "errorType", "kind"];
/// Keys holding a list of errors.
const LIST_KEYS: [&str; 3] = ["errors", "errorList", "error_list"];
/// Keys of a nested payload that may carry the error (an `rcode` other than 1 with `data`).
const PAYLOAD_KEYS: [&str; 3] = ["data", "response", "result"];
/// How deep error objects are looked for (no known API nests them deeper).
const MAX_DEPTH: usize = 4;

/// A response body by its structure.
#[derive(Clone, Debug)]
pub(crate) enum Structure {
    Json(Value),
    Form(Vec<(String, String)>),
    Text(String),
}

/// A body read once: cleaned of secrets, then parsed when asked; the cleaned text is what
/// hooks see and errors keep.
#[derive(Clone, Debug)]
pub(crate) struct ReadBody {
    /// The body cleaned of secrets (the body itself, shared, when nothing was removed).
    text: Bytes,
    outcome: Outcome,
    structure: OnceLock<Structure>,
    kept: OnceLock<String>,
}

impl Structure {
    /// The structure of `body`: JSON if it parses as JSON, else form pairs if it is
    /// form-encoded, else text.
    pub(crate) fn parse(body: &[u8]) -> Structure {
        // A byte order mark is no content, here as for the decoder (`envelope::content`).
        let body = crate::envelope::content(body);
        if let Ok(value) = serde_json::from_slice::<Value>(body) {
            return Structure::Json(value);
        }
        let text = String::from_utf8_lossy(body);
        match form_pairs(&text) {
            Some(pairs) => Structure::Form(pairs),
            None => Structure::Text(text.into_owned()),
        }
    }
}

impl ReadBody {
    /// Cleans `body`, which came with `headers`, of secrets with `scrubber`: the one place an
    /// answer's body is cleaned, for hooks, recordings and errors alike.
    pub(crate) fn read(body: &Bytes, headers: &HeaderMap, scrubber: &Scrubber<'_>) -> ReadBody {
        let cleaned = scrubber.clean_body(body, headers);
        let outcome = cleaned.outcome;
        let text = match cleaned.bytes {
            Cow::Borrowed(_) => body.clone(),
            Cow::Owned(bytes) => Bytes::from(bytes),
        };
        ReadBody {
            text,
            outcome,
            structure: OnceLock::new(),
            kept: OnceLock::new(),
        }
    }

    /// [`ReadBody::read`] of a body held elsewhere (copied), without headers.
    pub(crate) fn read_slice(body: &[u8], scrubber: &Scrubber<'_>) -> ReadBody {
        ReadBody::read(&Bytes::copy_from_slice(body), &HeaderMap::new(), scrubber)
    }

    /// Whether the text kept is not the body as sent (secrets removed, or all withheld).
    pub(crate) fn changed(&self) -> bool {
        self.outcome != Outcome::Unchanged
    }

    /// The cleaned body's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.text
    }

    /// The cleaned body's bytes, shared (the body itself when nothing was removed).
    pub(crate) fn shared(&self) -> Bytes {
        self.text.clone()
    }

    /// The cleaned body, parsed on first use.
    fn structure(&self) -> &Structure {
        self.structure.get_or_init(|| Structure::parse(&self.text))
    }

    /// The cleaned body as text (invalid UTF-8 replaced), fit to keep in an error.
    pub(crate) fn kept(&self) -> &str {
        self.kept
            .get_or_init(|| String::from_utf8_lossy(&self.text).into_owned())
    }

    /// What the body says went wrong, or `None` when it does not look like an error (no error
    /// listed, and an `rcode` of 1 or none).
    pub(crate) fn failure(&self) -> Option<ApiFailure> {
        let found = match self.structure() {
            Structure::Json(value) => from_json(value),
            Structure::Form(pairs) => from_pairs(pairs),
            Structure::Text(text) => from_text(text),
        };
        let failed = !found.errors.is_empty() || found.rcode.is_some_and(|rcode| rcode != 1);
        failed.then(|| ApiFailure {
            code: found.errors.iter().find_map(|error| error.code.clone()),
            rcode: found.rcode,
            message: found.errors.iter().find_map(|error| error.message.clone()),
            errors: found.errors,
            body: self.kept().to_owned(),
        })
    }
}

impl ApiFailure {
    /// Reads an error from a body in any of the shapes the client knows (see the module
    /// docs), or `None` when the body does not look like one (no error listed, and an
    /// `rcode` of 1 or none). Secret-named values are redacted from what is kept.
    pub fn parse(body: &[u8]) -> Option<ApiFailure> {
        ReadBody::read_slice(body, &Scrubber::structural()).failure()
    }
}

/// What a structure says.
#[derive(Default)]
struct Found {
    rcode: Option<i64>,
    errors: Vec<ListedError>,
    /// The errors listed so far, to keep each once in time linear in the list.
    listed: HashSet<ListedError>,
}

impl Found {
    fn push(&mut self, error: ListedError) {
        let empty = error.code.is_none() && error.message.is_none();
        if !empty && self.listed.insert(error.clone()) {
            self.errors.push(error);
        }
    }

    /// When no listed error has a code, the first code-like word found elsewhere.
    fn fill_code(&mut self, code: impl FnOnce() -> Option<String>) {
        if self.errors.iter().any(|error| error.code.is_some()) {
            return;
        }
        let Some(code) = code() else { return };
        let code = Some(RawErrorCode::new(code.as_str()));
        match self.errors.first_mut() {
            Some(first) => first.code = code,
            None => self.push(ListedError {
                code,
                message: None,
                kind: None,
            }),
        }
    }
}

/// `name=value&…` pairs, when the text is form-encoded: no white space or markup, and every
/// non-empty `&`-separated part a pair whose name is made of URL characters.
fn form_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let text = text.trim();
    let is_name = |name: &str| {
        !name.is_empty()
            && name.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'_' | b'-' | b'.' | b'%' | b'+' | b'~' | b'[' | b']')
            })
    };
    let form = text.contains('=')
        && !text.bytes().any(|b| {
            b.is_ascii_whitespace()
                || b.is_ascii_control()
                || matches!(b, b'<' | b'>' | b'"' | b'{')
        })
        && text
            .split('&')
            .filter(|part| !part.is_empty())
            .all(|part| is_name(part.split('=').next().unwrap_or_default()));
    form.then(|| {
        url::form_urlencoded::parse(text.as_bytes())
            .into_owned()
            .collect()
    })
}

/// Whether `text` looks like a code of the service: `E_` and upper-case words.
fn is_service_code(text: &str) -> bool {
    text.len() > 2
        && text.starts_with("E_")
        && text[2..]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether a value under a code key is a code (`E_…`, or an identifier such as
/// `signature_invalid`), rather than a sentence.
fn is_code_like(text: &str) -> bool {
    is_service_code(text)
        || (text.len() <= 64
            && text.starts_with(|c: char| c.is_ascii_alphabetic())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn from_json(value: &Value) -> Found {
    let mut found = Found::default();
    match value {
        Value::Object(object) => {
            found.rcode = object.get("rcode").and_then(rcode_of);
            collect_object(object, 0, &mut found);
        }
        Value::Array(items) => collect_list(items.iter(), 0, &mut found),
        Value::String(_) => collect_item(value, 0, &mut found),
        _ => {}
    }
    found.fill_code(|| first_service_code(value, 0));
    found
}

/// The `rcode`: an integer, written as a JSON integer, an integral float (`0.0`) or text.
fn rcode_of(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// An object's own error (code, message and kind keys) and the errors below it.
fn collect_object(object: &Map<String, Value>, depth: usize, found: &mut Found) {
    if depth > MAX_DEPTH {
        return;
    }
    let own = own_error(object);
    let before = found.errors.len();
    match &own {
        // A message beside nested errors (`{"message", "error": {…}}`) is theirs, not one more.
        Some(own) if own.code.is_none() => {}
        Some(own) => found.push(own.clone()),
        None => {}
    }
    collect_nested(object, depth, found);
    if let Some(own) = own.filter(|own| own.code.is_none()) {
        match found.errors.get_mut(before) {
            Some(first) if first.message.is_none() => first.message = own.message,
            Some(_) => {}
            None => found.push(own),
        }
    }
}

/// The errors an object holds below it: its `error` object, its lists of errors, and, when
/// none of those said anything, its payload.
fn collect_nested(object: &Map<String, Value>, depth: usize, found: &mut Found) {
    match object.get("error") {
        Some(Value::Object(nested)) => collect_object(nested, depth + 1, found),
        Some(Value::Array(items)) => collect_list(items.iter(), depth + 1, found),
        _ => {}
    }
    for key in LIST_KEYS {
        match object.get(key) {
            Some(Value::Array(items)) => collect_list(items.iter(), depth + 1, found),
            // A single error object, or a collection keyed "0", "1", … as the service sends
            // its lists.
            Some(Value::Object(nested)) if own_error(nested).is_some() => {
                collect_object(nested, depth + 1, found)
            }
            Some(Value::Object(nested)) => collect_list(in_index_order(nested), depth + 1, found),
            Some(item @ Value::String(_)) => collect_item(item, depth + 1, found),
            _ => {}
        }
    }
    if found.errors.is_empty() {
        for key in PAYLOAD_KEYS {
            if let Some(Value::Object(nested)) = object.get(key) {
                collect_object(nested, depth + 1, found);
            }
        }
    }
}

/// The values of an index-keyed object in index order (`"2"` before `"10"`); other keys last.
fn in_index_order(object: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_by_key(|(key, _)| key.parse::<usize>().unwrap_or(usize::MAX));
    entries.into_iter().map(|(_, value)| value)
}

fn collect_list<'a>(items: impl Iterator<Item = &'a Value>, depth: usize, found: &mut Found) {
    for item in items {
        collect_item(item, depth, found);
    }
}

/// A list entry: an error object, or a string that is a code or a message.
fn collect_item(item: &Value, depth: usize, found: &mut Found) {
    match item {
        Value::Object(object) => collect_object(object, depth, found),
        Value::String(text) if is_code_like(text.trim()) => found.push(ListedError {
            code: Some(RawErrorCode::new(text.trim())),
            message: None,
            kind: None,
        }),
        Value::String(_) => found.push(ListedError {
            code: None,
            message: text_of(item),
            kind: None,
        }),
        _ => {}
    }
}

/// The error an object states with its own keys: a code under a code key (`error` counts when
/// it is a string: a code, or else the message), a message, a kind.
fn own_error(object: &Map<String, Value>) -> Option<ListedError> {
    let mut code = None;
    let mut message = None;
    for key in CODE_KEYS {
        let Some(text) = object.get(key).and_then(text_of) else {
            continue;
        };
        if is_code_like(&text) {
            code.get_or_insert(text);
        } else if key == "error" {
            message.get_or_insert(text);
        }
    }
    let first = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| object.get(*key).and_then(text_of))
    };
    let message = first(&MESSAGE_KEYS).or(message);
    (code.is_some() || message.is_some()).then(|| ListedError {
        code: code.map(|code| RawErrorCode::new(code.as_str())),
        message,
        kind: first(&KIND_KEYS),
    })
}

/// The first string that is a service code, anywhere within the depth limit.
fn first_service_code(value: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::String(text) if is_service_code(text.trim()) => Some(text.trim().to_owned()),
        Value::Object(object) => object
            .values()
            .find_map(|nested| first_service_code(nested, depth + 1)),
        Value::Array(items) => items
            .iter()
            .find_map(|nested| first_service_code(nested, depth + 1)),
        _ => None,
    }
}

/// Form pairs: each code-keyed pair is an error, given the messages and kinds in order.
fn from_pairs(pairs: &[(String, String)]) -> Found {
    let values = |keys: &[&str]| -> Vec<String> {
        pairs
            .iter()
            .filter(|(name, value)| keys.contains(&name.as_str()) && !value.trim().is_empty())
            .map(|(_, value)| value.trim().to_owned())
            .collect()
    };
    let mut found = Found {
        rcode: values(&["rcode"]).first().and_then(|r| r.parse().ok()),
        ..Found::default()
    };
    let codes = values(&CODE_KEYS);
    let messages = values(&MESSAGE_KEYS);
    let kinds = values(&KIND_KEYS);
    let count = codes.len().max(messages.len());
    for index in 0..count {
        let code = codes.get(index).filter(|code| is_code_like(code));
        found.push(ListedError {
            code: code.map(|code| RawErrorCode::new(code.as_str())),
            message: messages
                .get(index)
                .or(codes.get(index).filter(|_| code.is_none()))
                .cloned(),
            kind: kinds.get(index).cloned(),
        });
    }
    found.fill_code(|| {
        pairs
            .iter()
            .map(|(_, value)| value.trim())
            .find(|value| is_service_code(value))
            .map(str::to_owned)
    });
    found
}

/// Text: every distinct `E_…` word, in order.
fn from_text(text: &str) -> Found {
    let mut found = Found::default();
    for word in text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| is_service_code(word))
    {
        found.push(ListedError {
            code: Some(RawErrorCode::new(word)),
            message: None,
            kind: None,
        });
    }
    found
}

/// The token secrets a token endpoint's `body` issues: every non-empty `oauth_token_secret`
/// of its pairs ([`token_pairs`], as the client reads them), up to `MAX_TOKEN_BYTES` (longer
/// ones are refused, never adopted, and a scrubber's secrets stay bounded). Secrets of the call
/// from the moment the answer is read, so that nothing shown of it (a hook, a recording, an
/// error) holds one wherever it is echoed.
pub(crate) fn issued_secrets(body: &[u8]) -> Vec<String> {
    token_pairs(&Structure::parse(body))
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, value)| {
            name == "oauth_token_secret" && !value.is_empty() && value.len() <= MAX_TOKEN_BYTES
        })
        .map(|(_, value)| value)
        .collect()
}

/// The name/value pairs of a token endpoint's answer: form pairs, or a JSON object's
/// top-level strings and numbers; `None` for any other body.
pub(crate) fn token_pairs(structure: &Structure) -> Option<Vec<(String, String)>> {
    match structure {
        Structure::Form(pairs) => Some(pairs.clone()),
        Structure::Json(Value::Object(object)) => Some(
            object
                .iter()
                .filter_map(|(name, value)| match value {
                    Value::String(text) => Some((name.clone(), text.clone())),
                    Value::Number(_) | Value::Bool(_) => Some((name.clone(), value.to_string())),
                    _ => None,
                })
                .collect(),
        ),
        Structure::Json(_) | Structure::Text(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> ApiFailure {
        ReadBody::read_slice(body.as_bytes(), &Scrubber::structural())
            .failure()
            .unwrap_or_else(|| panic!("no failure read from {body}"))
    }

    fn codes(failure: &ApiFailure) -> Vec<&str> {
        failure
            .errors
            .iter()
            .map(|error| error.code.as_ref().map_or("-", RawErrorCode::as_str))
            .collect()
    }

    #[test]
    fn reads_every_shape_of_error_body() {
        let invalid = Some(RawErrorCode::new("E_VALIDATION_INVALID_ID"));
        for body in [
            r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":0,"error":{"code":"E_VALIDATION_INVALID_ID","type":"validation","message":"bad id"}}"#,
            r#"{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}"#,
            r#"{"error":"E_VALIDATION_INVALID_ID","error_description":"bad id"}"#,
            r#"{"errors":[{"code":"E_VALIDATION_INVALID_ID","description":"bad id","type":"validation"}]}"#,
            r#"{"errors":{"0":{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}}}"#,
            r#"{"rcode":3,"data":{"errorCode":"E_VALIDATION_INVALID_ID","errorMessage":"bad id"}}"#,
            r#"{"rcode":"0","errorCode":"E_VALIDATION_INVALID_ID","errorMessage":"bad id"}"#,
            r#"[{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}]"#,
            "error=E_VALIDATION_INVALID_ID&error_description=bad+id",
            "oauth_problem=E_VALIDATION_INVALID_ID&oauth_problem_advice=bad%20id",
        ] {
            let failure = read(body);
            assert_eq!(failure.code, invalid, "{body}");
            assert_eq!(failure.message.as_deref(), Some("bad id"), "{body}");
            assert_eq!(failure.errors.len(), 1, "{body}");
            assert_eq!(failure.body, body, "{body}");
        }
        for body in [
            "E_VALIDATION_INVALID_ID: bad id\n",
            "<html><title>400</title><h1>E_VALIDATION_INVALID_ID</h1><p>E_VALIDATION_INVALID_ID</p></html>",
        ] {
            let failure = read(body);
            assert_eq!(
                (failure.code, failure.errors.len()),
                (invalid.clone(), 1),
                "{body}"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_before_an_error_or_token_answer_is_no_content() {
        for body in [
            r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":0,"error":{"code":"E_VALIDATION_INVALID_ID","type":"validation","message":"bad id"}}"#,
            r#"[{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}]"#,
            "error=E_VALIDATION_INVALID_ID&error_description=bad+id",
        ] {
            let marked = format!("\u{feff}{body}");
            let (plain, failure) = (read(body), read(&marked));
            assert_eq!(
                (failure.code, failure.message, failure.errors),
                (plain.code, plain.message, plain.errors),
                "{body}"
            );
            // What is kept of the body is the body as sent.
            assert_eq!(failure.body, marked);
        }
        // The token is read under its name, not under `\u{feff}oauth_token`.
        let answer = "\u{feff}oauth_token=t&oauth_token_secret=s";
        assert_eq!(issued_secrets(answer.as_bytes()), ["s"]);
        let pairs = token_pairs(&Structure::parse(answer.as_bytes())).expect("a token answer");
        assert_eq!(pairs[0], ("oauth_token".to_owned(), "t".to_owned()));
    }

    #[test]
    fn keeps_every_listed_error_in_order() {
        let failure = read(
            r#"{"errors":[{"code":"E_VALIDATION_INVALID_ID","description":"bad id","type":"validation"},
                          {"code":"E_API_NOT_AUTHORIZED","message":"no access","type":"authorization"},
                          "E_SOMETHING_ELSE", "a sentence"]}"#,
        );
        assert_eq!(
            codes(&failure),
            [
                "E_VALIDATION_INVALID_ID",
                "E_API_NOT_AUTHORIZED",
                "E_SOMETHING_ELSE",
                "-"
            ]
        );
        assert_eq!(
            failure.code,
            Some(RawErrorCode::new("E_VALIDATION_INVALID_ID"))
        );
        assert_eq!(failure.errors[1].kind.as_deref(), Some("authorization"));
        assert_eq!(failure.errors[3].message.as_deref(), Some("a sentence"));
        assert!(failure.to_string().contains("and 3 more"), "{failure}");

        let failure = read("error=E_A&error_description=first&error=E_B&error_description=second");
        assert_eq!(codes(&failure), ["E_A", "E_B"]);
        assert_eq!(failure.errors[1].message.as_deref(), Some("second"));
    }

    #[test]
    fn an_rcode_other_than_one_is_a_failure_even_without_a_code() {
        let failure = read(r#"{"rcode": 7, "data": {}}"#);
        assert_eq!((failure.code, failure.rcode), (None, Some(7)));
        assert_eq!(read(r#"{"rcode": 0.0}"#).rcode, Some(0));
        assert!(failure.errors.is_empty());
        let success = ReadBody::read_slice(br#"{"rcode": 1, "data": {}}"#, &Scrubber::structural());
        assert!(success.failure().is_none());
    }

    #[test]
    fn codes_are_found_where_they_hide_and_unknown_ones_kept() {
        let failure =
            read(r#"{"status": "failed", "info": {"reason": {"id": "E_SOMETHING_NEW"}}}"#);
        assert_eq!(failure.code, Some(RawErrorCode::new("E_SOMETHING_NEW")));
        let failure = read(r#"{"error": "Something went wrong"}"#);
        assert_eq!(
            (failure.code, failure.message.as_deref()),
            (None, Some("Something went wrong"))
        );
        let failure = read("oauth_problem=signature_invalid");
        assert_eq!(failure.code, Some(RawErrorCode::new("signature_invalid")));
        for not_an_error in ["<html>Bad gateway</html>", "", "{}", "ok=1", "[1, 2]"] {
            let read = ReadBody::read_slice(not_an_error.as_bytes(), &Scrubber::structural());
            assert!(read.failure().is_none(), "{not_an_error}");
        }
    }

    #[test]
    fn a_body_is_parsed_by_structure_first() {
        let structure = |body: &str| Structure::parse(body.as_bytes());
        assert!(matches!(structure(r#"{"a": "b=c"}"#), Structure::Json(_)));
        assert!(matches!(structure("a=1&b=%20&c"), Structure::Form(_)));
        assert!(matches!(structure("E_X: a = b"), Structure::Text(_)));
        assert!(matches!(structure("<p>a=b</p>"), Structure::Text(_)));
    }

    #[test]
    fn secrets_are_gone_before_anything_is_read() {
        let read = ReadBody::read_slice(
            br#"{"error": {"code": "E_X", "message": "no", "oauth\u005ftoken_secret": "E_LEAKED"}}"#,
            &Scrubber::structural(),
        );
        let failure = read.failure().unwrap();
        assert_eq!(failure.code, Some(RawErrorCode::new("E_X")));
        // The body as sent, the value alone replaced.
        assert_eq!(
            failure.body,
            r#"{"error": {"code": "E_X", "message": "no", "oauth\u005ftoken_secret": "[redacted]"}}"#
        );

        let read = ReadBody::read_slice(
            b"oauth_token=t&oauth_token_secret=s%26x",
            &Scrubber::structural(),
        );
        assert_eq!(read.kept(), "oauth_token=t&oauth_token_secret=[redacted]");
        let raw = Structure::parse(b"oauth_token=t&oauth_token_secret=s%26x");
        assert_eq!(
            token_pairs(&raw).unwrap()[1],
            ("oauth_token_secret".to_owned(), "s&x".to_owned())
        );
    }

    /// The secrets a token answer issues are what the client would adopt from it, in every
    /// shape it reads (form pairs, JSON), each value of a repeated name: never an empty one, a
    /// refused one (past `MAX_TOKEN_BYTES`) or another name's.
    #[test]
    fn a_token_answer_issues_the_secrets_the_client_would_adopt() {
        let long = "L".repeat(MAX_TOKEN_BYTES + 1);
        let at_bound = "B".repeat(MAX_TOKEN_BYTES);
        for (body, expected) in [
            (
                "oauth_token=t&oauth_token_secret=s%26x&oauth_callback_confirmed=true".to_owned(),
                vec!["s&x".to_owned()],
            ),
            (
                r#"{"oauth_token": "t", "oauth_token_secret": "js0n-s3cret"}"#.to_owned(),
                vec!["js0n-s3cret".to_owned()],
            ),
            (
                format!(
                    "oauth_token_secret=first&oauth_token_secret=&oauth_token_secret={at_bound}&oauth_token_secret={long}&secret=other"
                ),
                vec!["first".to_owned(), at_bound.clone()],
            ),
            ("not a form at all <html>".to_owned(), vec![]),
        ] {
            assert_eq!(issued_secrets(body.as_bytes()), expected, "{body:.80}");
        }
    }
}
