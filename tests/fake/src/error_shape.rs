//! How the fake writes an error answer: the reference shows neither the body of an error nor
//! its status, so the fake can answer every error (data methods and OAuth endpoints alike) in
//! each plausible shape, switched with
//! [`FakeMarketplace::set_error_shape`](crate::FakeMarketplace::set_error_shape).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

/// The shape of the fake's error answers. The default is the fake's own choice
/// ([`Nested`](Self::Nested)); the others are what other servers plausibly send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ErrorShape {
    /// `{"api", "apiVersion": 1, "rcode": 0, "error": {"code", "type", "message"}}`.
    #[default]
    Nested,
    /// `{"code", "message", "type"}`.
    TopLevelCode,
    /// `{"error": "E_…", "error_description"}`, as OAuth 2 servers write errors.
    TopLevelError,
    /// `{"errors": [{"code", "description", "type"}, {"description", "type"}]}`: the error,
    /// then a second entry without a code (a general note), so a reader must keep every entry
    /// and take the code and message from the first. (No second code: a code the spec does not
    /// declare would be the fake disagreeing with the spec, which `cargo xtask wire-audit`
    /// reports.)
    ErrorsArray,
    /// HTTP 200 with `{"api", "apiVersion": 1, "rcode": 0, "data": {"errorCode",
    /// "errorMessage", "errorType"}}`: the envelope alone says it failed.
    RcodeWithData,
    /// `{"api", "apiVersion": 1, "rcode": 0, "error_code", "error_message", "error_type"}`.
    RcodeWithoutData,
    /// `application/x-www-form-urlencoded`: `error=E_…&error_description=…&error_type=…`.
    Form,
    /// `application/x-www-form-urlencoded`, OAuth problem reporting:
    /// `oauth_problem=E_…&oauth_problem_advice=…`.
    OAuthProblem,
    /// `text/plain`: `E_…: message`.
    Text,
    /// `text/html`: a page whose heading is the code.
    Html,
}

impl ErrorShape {
    /// Every shape.
    pub const ALL: [ErrorShape; 10] = [
        ErrorShape::Nested,
        ErrorShape::TopLevelCode,
        ErrorShape::TopLevelError,
        ErrorShape::ErrorsArray,
        ErrorShape::RcodeWithData,
        ErrorShape::RcodeWithoutData,
        ErrorShape::Form,
        ErrorShape::OAuthProblem,
        ErrorShape::Text,
        ErrorShape::Html,
    ];
}

/// One error the fake answers: where, with which status, code, type and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    /// The method or endpoint, e.g. `pay/getTimesheet`, `oauth/getAccessToken`.
    pub api: String,
    /// The HTTP status (400, 401, 403, 404, 408, 413, 500).
    pub status: u16,
    /// The error code, e.g. `E_VALIDATION_INVALID_ID`.
    pub code: String,
    /// The error type (`validation`, `authentication`, `authorization`, `request`, …).
    pub kind: String,
    /// What went wrong.
    pub message: String,
}

impl ServiceError {
    /// An error of `api`.
    pub fn new(api: &str, status: u16, code: &str, kind: &str, message: &str) -> Self {
        ServiceError {
            api: api.to_owned(),
            status,
            code: code.to_owned(),
            kind: kind.to_owned(),
            message: message.to_owned(),
        }
    }

    /// The status, content type and body of the answer in `shape`.
    pub fn render(&self, shape: ErrorShape) -> (u16, &'static str, String) {
        const JSON: &str = "application/json";
        const FORM: &str = "application/x-www-form-urlencoded";
        let ServiceError {
            api,
            status,
            code,
            kind,
            message,
        } = self;
        let json = |body: Value| (*status, JSON, body.to_string());
        let form = |pairs: &[(&str, &str)]| {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(pairs)
                .finish();
            (*status, FORM, body)
        };
        match shape {
            ErrorShape::Nested => json(error_body(api, code, kind, message)),
            ErrorShape::TopLevelCode => {
                json(json!({"code": code, "message": message, "type": kind}))
            }
            ErrorShape::TopLevelError => json(json!({"error": code, "error_description": message})),
            ErrorShape::ErrorsArray => json(json!({"errors": [
                {"code": code, "description": message, "type": kind},
                {"description": "The request was not processed.", "type": "request"},
            ]})),
            ErrorShape::RcodeWithData => (
                200,
                JSON,
                json!({"api": api, "apiVersion": 1, "rcode": 0,
                       "data": {"errorCode": code, "errorMessage": message, "errorType": kind}})
                .to_string(),
            ),
            ErrorShape::RcodeWithoutData => json(json!({"api": api, "apiVersion": 1, "rcode": 0,
                "error_code": code, "error_message": message, "error_type": kind})),
            ErrorShape::Form => form(&[
                ("error", code),
                ("error_description", message),
                ("error_type", kind),
            ]),
            ErrorShape::OAuthProblem => {
                form(&[("oauth_problem", code), ("oauth_problem_advice", message)])
            }
            ErrorShape::Text => (
                *status,
                "text/plain; charset=utf-8",
                format!("{code}: {message}\n"),
            ),
            ErrorShape::Html => {
                let reason = StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|status| status.canonical_reason())
                    .unwrap_or("Error");
                (
                    *status,
                    "text/html; charset=utf-8",
                    format!(
                        "<!DOCTYPE html>\n<html>\n<head><title>{status} {reason}</title></head>\n\
                         <body>\n<h1>{code}</h1>\n<p>{}</p>\n</body>\n</html>\n",
                        crate::html::escape(message)
                    ),
                )
            }
        }
    }

    /// The answer in `shape`.
    pub(crate) fn response(&self, shape: ErrorShape) -> Response {
        let (status, content_type, body) = self.render(shape);
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        crate::faults::text(status, content_type, body)
    }
}

/// The error envelope of every failure (the server half uses it too, for OAuth failures):
/// `{"api": api, "apiVersion": 1, "rcode": 0, "error": {"code": code, "type": kind, "message": message}}`.
pub fn error_body(api: &str, code: &str, kind: &str, message: &str) -> Value {
    json!({
        "api": api,
        "apiVersion": 1,
        "rcode": 0,
        "error": {"code": code, "type": kind, "message": message},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_carries_the_code_and_the_message() {
        let error = ServiceError::new(
            "pay/getTimesheet",
            400,
            "E_VALIDATION_INVALID_ID",
            "validation",
            "Invalid id <7> & more",
        );
        for shape in ErrorShape::ALL {
            let (status, _, body) = error.render(shape);
            assert!(
                body.contains("E_VALIDATION_INVALID_ID"),
                "{shape:?}: {body}"
            );
            assert_eq!(
                status,
                if shape == ErrorShape::RcodeWithData {
                    200
                } else {
                    400
                }
            );
        }
        let (_, kind, body) = error.render(ErrorShape::Form);
        assert_eq!(kind, "application/x-www-form-urlencoded");
        assert_eq!(
            body,
            "error=E_VALIDATION_INVALID_ID&error_description=Invalid+id+%3C7%3E+%26+more&error_type=validation"
        );
        let (_, _, body) = error.render(ErrorShape::Html);
        assert!(
            body.contains("<p>Invalid id &lt;7&gt; &amp; more</p>"),
            "{body}"
        );
    }
}
