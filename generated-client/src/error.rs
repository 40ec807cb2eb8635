//! The one error type of the client, and how a failed response is read.
//!
//! The reference does not show the error body format nor the HTTP statuses of errors, so an
//! error response is read tolerantly ([`ApiFailure::parse`]): a JSON body's `rcode` and any
//! documented-looking code (`E_…`) in the usual places, or a code anywhere in a text body. The
//! raw body is always kept (with token secrets redacted).

use jiff::Timestamp;
use serde_json::Value;

use crate::ErrorCode;

/// Everything that can go wrong. Each variant names the API method (`pay/getTimesheet`,
/// `oauth/getRequestToken`, …) where one was being called.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service could not be reached, or the connection failed before a full response
    /// arrived (connect error, timeout, reset, truncated body).
    #[error("{method}: the request failed: {source}")]
    Transport {
        /// The API method.
        method: &'static str,
        /// The cause.
        #[source]
        source: reqwest::Error,
    },
    /// The response body is larger than `ClientBuilder::max_response_bytes`; it was not read.
    #[error("{method}: the response is larger than the limit of {limit} bytes")]
    ResponseTooLarge {
        /// The API method.
        method: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A non-success HTTP status without a recognizable API error in its body.
    #[error("{method}: HTTP {status}: {}", excerpt(body))]
    Status {
        /// The API method.
        method: &'static str,
        /// The HTTP status.
        status: u16,
        /// The response body, as text (token secrets redacted).
        body: String,
    },
    /// The service reported an error: an `rcode` other than 1, or an error code in the body.
    #[error("{method}: {failure}")]
    Api {
        /// The API method.
        method: &'static str,
        /// The HTTP status.
        status: u16,
        /// What the body said.
        failure: ApiFailure,
    },
    /// A success response that does not decode into the method's type.
    #[error("{method}: cannot decode the response at `{path}`: {message} (body starts: {excerpt})")]
    Decode {
        /// The API method.
        method: &'static str,
        /// JSON path of the value that failed, e.g. `data.timesheets.3.rate`.
        path: String,
        /// What was wrong with it.
        message: String,
        /// The start of the body.
        excerpt: String,
    },
    /// A page stream stopped before its end: the service sent the same items for two pages in a
    /// row, or kept sending pages beyond [`MAX_PAGES`](crate::paging::MAX_PAGES), or the next
    /// page number does not exist. The pages up to `after_page` were yielded.
    #[error("{method}: paging stopped after page {after_page}: {reason}")]
    Paging {
        /// The API method.
        method: &'static str,
        /// The last page yielded.
        after_page: u64,
        /// Why.
        reason: String,
    },
    /// The access token is past its six-hour lifetime; no request was sent.
    #[error(
        "the access token expired at {expires_at}; the user must authorize the application again"
    )]
    TokenExpired {
        /// When it expired.
        expires_at: Timestamp,
    },
    /// An argument the service would refuse; no request was sent.
    #[error("{method}: invalid argument `{name}`: {reason}")]
    InvalidArgument {
        /// The API method.
        method: &'static str,
        /// The parameter.
        name: String,
        /// Why it is refused.
        reason: String,
    },
    /// An OAuth callback URL that cannot be accepted.
    #[error("invalid OAuth callback: {reason}")]
    Callback {
        /// What is wrong with it.
        reason: String,
    },
    /// The client cannot be built or used as configured (bad base URL, plain HTTP for OAuth, …).
    #[error("invalid client configuration: {reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    /// The service's error code, when it sent one.
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            Error::Api { failure, .. } => failure.code.as_ref(),
            _ => None,
        }
    }

    /// The HTTP status, when a response arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Status { status, .. } | Error::Api { status, .. } => Some(*status),
            Error::Transport { source, .. } => source.status().map(|s| s.as_u16()),
            _ => None,
        }
    }
}

/// What an error response said, as far as it can be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiFailure {
    /// The error code, if the body carries one.
    pub code: Option<ErrorCode>,
    /// The envelope's `rcode`, if present.
    pub rcode: Option<i64>,
    /// A human-readable message, if the body carries one.
    pub message: Option<String>,
    /// The whole body as text (token secrets redacted).
    pub body: String,
}

impl std::fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the service answered with an error")?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        if let Some(rcode) = self.rcode {
            write!(f, " (rcode {rcode})")?;
        }
        match &self.message {
            Some(message) => write!(f, ": {message}"),
            None => write!(f, ": {}", excerpt(&self.body)),
        }
    }
}

/// Object keys where an error code or message is looked for, most specific first.
const CODE_KEYS: &[&str] = &["code", "errorCode", "error_code", "error", "oauth_problem"];
const MESSAGE_KEYS: &[&str] = &[
    "message",
    "errorMessage",
    "error_message",
    "msg",
    "description",
];

impl ApiFailure {
    /// Reads an error from a body, or `None` when the body does not look like one (an `rcode`
    /// of 1 and no error code).
    pub fn parse(body: &[u8]) -> Option<ApiFailure> {
        let text = String::from_utf8_lossy(body);
        let (code, rcode, message) = match serde_json::from_slice::<Value>(body) {
            Ok(value) => (
                find_code(&value, 0),
                rcode_of(&value),
                find_message(&value, 0),
            ),
            Err(_) => (code_in_text(&text), None, None),
        };
        let failed = code.is_some() || rcode.is_some_and(|rcode| rcode != 1);
        failed.then(|| ApiFailure {
            code: code.map(|code| ErrorCode::from(code.as_str())),
            rcode,
            message,
            body: crate::secret::redact(&text),
        })
    }

    /// Whether the service said the signature did not match.
    pub(crate) fn is_signature_mismatch(&self) -> bool {
        self.code == Some(ErrorCode::ApiAuthSignatureMismatch)
    }
}

fn rcode_of(value: &Value) -> Option<i64> {
    match value.get("rcode")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether `text` looks like a code of the service (`E_` and upper-case words).
fn looks_like_code(text: &str) -> bool {
    text.len() > 2
        && text.starts_with("E_")
        && text[2..]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// An error code in a JSON value: under the usual keys first, then any string value that looks
/// like one, two levels deep at most (codes are never buried deeper in any known API).
fn find_code(value: &Value, depth: usize) -> Option<String> {
    let object = value.as_object()?;
    for key in CODE_KEYS {
        match object.get(*key) {
            Some(Value::String(s)) if looks_like_code(s) => return Some(s.clone()),
            Some(nested @ Value::Object(_)) if depth < 2 => {
                if let Some(code) = find_code(nested, depth + 1) {
                    return Some(code);
                }
            }
            _ => {}
        }
    }
    object.values().find_map(|value| match value {
        Value::String(s) if looks_like_code(s) => Some(s.clone()),
        Value::Object(_) if depth < 2 => find_code(value, depth + 1),
        _ => None,
    })
}

/// A message in a JSON value: under the usual keys, then in nested objects (two levels at most).
fn find_message(value: &Value, depth: usize) -> Option<String> {
    let object = value.as_object()?;
    MESSAGE_KEYS
        .iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str).map(str::to_owned))
        .or_else(|| {
            object
                .values()
                .filter(|_| depth < 2)
                .find_map(|nested| find_message(nested, depth + 1))
        })
}

/// The first `E_…` word of a text body (form-encoded, HTML or plain).
fn code_in_text(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| looks_like_code(word))
        .map(str::to_owned)
}

/// The start of a body for a message: at most 160 characters, on one line.
pub(crate) fn excerpt(body: &str) -> String {
    const LIMIT: usize = 160;
    let flat: String = body
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(LIMIT + 1)
        .collect();
    if flat.chars().count() > LIMIT {
        let cut: String = flat.chars().take(LIMIT).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_codes_from_the_usual_json_shapes() {
        let shapes = [
            r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":0,"error":{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}}"#,
            r#"{"rcode":"0","errorCode":"E_VALIDATION_INVALID_ID","errorMessage":"bad id"}"#,
            r#"{"error":"E_VALIDATION_INVALID_ID","message":"bad id"}"#,
            r#"{"rcode":3,"data":{"error":{"code":"E_VALIDATION_INVALID_ID","message":"bad id"}}}"#,
        ];
        for body in shapes {
            let failure = ApiFailure::parse(body.as_bytes()).expect(body);
            assert_eq!(failure.code, Some(ErrorCode::ValidationInvalidId), "{body}");
            assert_eq!(failure.message.as_deref(), Some("bad id"), "{body}");
            assert_eq!(failure.body, body);
        }
    }

    #[test]
    fn an_rcode_other_than_one_is_a_failure_even_without_a_code() {
        let failure = ApiFailure::parse(br#"{"rcode": 7, "data": {}}"#).unwrap();
        assert_eq!((failure.code, failure.rcode), (None, Some(7)));
        assert!(ApiFailure::parse(br#"{"rcode": 1, "data": {}}"#).is_none());
    }

    #[test]
    fn reads_codes_from_text_bodies_and_keeps_unknown_ones() {
        let failure = ApiFailure::parse(b"oauth_problem=E_API_AUTH_SIGNATURE_MISMATCH").unwrap();
        assert!(failure.is_signature_mismatch());
        let failure = ApiFailure::parse(br#"{"error": "E_SOMETHING_NEW"}"#).unwrap();
        assert_eq!(
            failure.code,
            Some(ErrorCode::Other("E_SOMETHING_NEW".to_owned()))
        );
        assert!(ApiFailure::parse(b"<html>Bad gateway</html>").is_none());
    }

    #[test]
    fn excerpts_are_short_and_on_one_line() {
        assert_eq!(excerpt("a\nb"), "a b");
        let long = "x".repeat(500);
        assert_eq!(excerpt(&long).chars().count(), 161);
    }
}
