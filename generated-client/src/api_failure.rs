//! What an error response said: the code as sent ([`RawErrorCode`]) and every error the body
//! lists ([`ApiFailure`]). `error_body.rs` reads them from a body and `error.rs` carries them in
//! the [`Error`](crate::Error); both take the types from here, so they need not import each other.

/// An error code as the service sent it: a documented one (`E_VALIDATION_INVALID_ID`) or any
/// other (`E_QUOTA_EXCEEDED`, an OAuth problem such as `signature_invalid`). The generated
/// `ErrorCode` enum is its typed view: `ErrorCode::from(&code)`, or `ErrorCode::of(&error)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawErrorCode(String);

impl RawErrorCode {
    /// The code `code`, as sent.
    pub fn new(code: impl Into<String>) -> Self {
        RawErrorCode(code.into())
    }

    /// The code as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RawErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RawErrorCode {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for RawErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RawErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// What an error response said, as far as it can be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiFailure {
    /// The error code: the first one the body lists, if it carries one.
    pub code: Option<RawErrorCode>,
    /// The envelope's `rcode`, if present.
    pub rcode: Option<i64>,
    /// A human-readable message: the first one the body carries, if any.
    pub message: Option<String>,
    /// Every error the body lists, in order (one for a body with a single error; none for a
    /// body that only has an `rcode` other than 1).
    pub errors: Vec<ListedError>,
    /// The whole body as text, without secrets: as sent, or, when secrets were removed from
    /// its JSON or form structure, that structure written out again.
    pub body: String,
}

/// One error an error response lists.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ListedError {
    /// Its code, if given.
    pub code: Option<RawErrorCode>,
    /// Its message (`message`, `description`, …), if given.
    pub message: Option<String>,
    /// Its kind (`type`), if given.
    pub kind: Option<String>,
}

/// On one line without a control character ([`OneLine`](crate::OneLine)): the code and the
/// message are the service's text.
impl std::fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&crate::OneLine(Describe(self)), f)
    }
}

/// The text of an [`ApiFailure`], before it is written on one line.
struct Describe<'a>(&'a ApiFailure);

impl std::fmt::Display for Describe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Describe(failure) = self;
        f.write_str("the service answered with an error")?;
        if let Some(code) = &failure.code {
            write!(f, " {code}")?;
        }
        if let Some(rcode) = failure.rcode {
            write!(f, " (rcode {rcode})")?;
        }
        match &failure.message {
            Some(message) => write!(f, ": {message}")?,
            None => write!(f, ": {}", excerpt(&failure.body))?,
        }
        let more: Vec<String> = failure
            .errors
            .iter()
            .skip(1)
            .map(|error| match (&error.code, &error.message) {
                (Some(code), _) => code.to_string(),
                (None, Some(message)) => format!("{message:?}"),
                (None, None) => String::new(),
            })
            .collect();
        if !more.is_empty() {
            write!(f, " (and {} more: {})", more.len(), more.join(", "))?;
        }
        Ok(())
    }
}

impl ApiFailure {
    /// Whether the service refused the signature: one of its `authentication` error codes
    /// (the spec's, e.g. `E_API_AUTH_SIGNATURE_MISMATCH`, handed over in
    /// [`Service::authentication_errors`](crate::Service::authentication_errors)), or an OAuth
    /// problem-reporting code for a refused signature or timestamp (`signature_invalid`,
    /// `timestamp_refused`), in any listed error.
    pub(crate) fn is_signature_mismatch(&self, authentication_errors: &[&str]) -> bool {
        self.errors
            .iter()
            .filter_map(|error| error.code.as_ref())
            .chain(&self.code)
            .any(|code| {
                authentication_errors.contains(&code.as_str())
                    || matches!(code.as_str(), "signature_invalid" | "timestamp_refused")
            })
    }
}

impl ApiFailure {
    /// This failure with every text cleaned by `clean` (see [`Error::scrubbed`](crate::Error::scrubbed)).
    pub(crate) fn scrubbed(self, clean: &impl Fn(String) -> String) -> ApiFailure {
        let ApiFailure {
            code,
            rcode,
            message,
            errors,
            body,
        } = self;
        let clean_code = |code: Option<RawErrorCode>| code.map(|code| RawErrorCode(clean(code.0)));
        ApiFailure {
            code: clean_code(code),
            rcode,
            message: message.map(clean),
            errors: errors
                .into_iter()
                .map(|error| {
                    let ListedError {
                        code: listed,
                        message,
                        kind,
                    } = error;
                    ListedError {
                        code: clean_code(listed),
                        message: message.map(clean),
                        kind: kind.map(clean),
                    }
                })
                .collect(),
            body: clean(body),
        }
    }
}

/// The start of a body for a message: at most 160 characters, on one line, without the white
/// space around it (`(empty body)` for none), so a message does not end in a blank.
pub(crate) fn excerpt(body: &str) -> String {
    const LIMIT: usize = 160;
    let body = body.trim();
    if body.is_empty() {
        return "(empty body)".to_owned();
    }
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
    fn excerpts_are_short_and_on_one_line() {
        assert_eq!(excerpt("a\nb"), "a b");
        assert_eq!(
            excerpt(" injected fault: HTTP 503\n"),
            "injected fault: HTTP 503"
        );
        assert_eq!(excerpt(" \r\n"), "(empty body)");
        let long = "x".repeat(500);
        assert_eq!(excerpt(&long).chars().count(), 161);
    }
}
