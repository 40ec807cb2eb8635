//! Which recorded answers are refusals the recording server made by its own OAuth: answers
//! whose cause is one of the decisions a replaying fake makes itself (authentication,
//! signature, nonce, token expiry and revocation, clock), so that replay never serves them.
//!
//! The rule, one function ([`own_oauth_refusal`]), whatever the data method, HTTP method and
//! status:
//!
//! - any `401` or `407`, whatever its body (or none): the status says the credentials were
//!   refused;
//! - any answer, whatever its status (a `200` whose envelope says `rcode` 0, a `400`, a `503`,
//!   even a `200` with `rcode` 1), of which an error code, as the client reads error bodies
//!   ([`ApiFailure::parse`]: JSON in any nesting, form pairs, text), is one of the spec's
//!   `authentication` errors ([`SERVICE`]`.authentication_errors`, generated from the spec, so a
//!   new one is covered without a change here) or an OAuth Problem Reporting code
//!   ([`OAUTH_PROBLEMS`], the extension's whole list); in a body that is not JSON (an HTML or
//!   text page, of which the client reads only `E_…` words), an OAuth problem as a word too.
//!
//! Everything else is data, replayed as recorded: a `403` `E_API_NOT_AUTHORIZED` or
//! `E_WORKROOM_BID_ACCESS` (the spec's `authorization` errors: the user's permission to a
//! record, which the recording holds and the fake's OAuth does not decide), a `403` without a
//! code, validation errors, `5xx` and `429`. Where the rule errs it errs loudly: a data answer
//! taken for a refusal is counted and named by
//! [`FakeMarketplace::check_replay`](crate::FakeMarketplace::check_replay), and a request left
//! without a recording fails naming it, whereas a refusal taken for data would be served, in
//! silence, to a call the fake accepted.
//!
//! [`SERVICE`]: marketplace_client::SERVICE

use marketplace_client::{ApiFailure, SERVICE};

/// The OAuth Problem Reporting extension's problems (`oauth_problem=…`), all of them: each is
/// a decision of the OAuth layer, which the replaying fake makes itself.
const OAUTH_PROBLEMS: [&str; 18] = [
    "version_rejected",
    "parameter_absent",
    "parameter_rejected",
    "timestamp_refused",
    "nonce_used",
    "signature_method_rejected",
    "signature_invalid",
    "consumer_key_unknown",
    "consumer_key_rejected",
    "consumer_key_refused",
    "token_used",
    "token_expired",
    "token_revoked",
    "token_rejected",
    "additional_authorization_required",
    "permission_unknown",
    "permission_denied",
    "user_refused",
];

/// Why a recorded answer is a refusal of the recording server's own OAuth: its status, and
/// the refusal code it carries, if one. Shown as `401`, `401 token_expired`, `200
/// E_API_AUTH_SIGNATURE_MISMATCH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    status: u16,
    code: Option<String>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.status)?;
        match &self.code {
            Some(code) => write!(f, " {code}"),
            None => Ok(()),
        }
    }
}

/// Whether an answer of `status` with `body` (empty when the recording kept none) is a refusal
/// the recording server made by its own OAuth (see the module docs), and why.
pub(crate) fn own_oauth_refusal(status: u16, body: &[u8]) -> Option<Refusal> {
    let listed = ApiFailure::parse(body).and_then(|failure| {
        failure
            .code
            .iter()
            .chain(
                failure
                    .errors
                    .iter()
                    .filter_map(|error| error.code.as_ref()),
            )
            .map(|code| code.as_str())
            .find(|code| is_refusal_code(code))
            .map(str::to_owned)
    });
    let code = listed.or_else(|| problem_in_page(body));
    (matches!(status, 401 | 407) || code.is_some()).then_some(Refusal { status, code })
}

/// The first OAuth problem written as a word in a body that is not JSON: a page such as
/// `<p>oauth_problem=token_rejected</p>`, which is neither JSON nor form pairs, so the client
/// reads no code from it but its `E_…` words.
fn problem_in_page(body: &[u8]) -> Option<String> {
    if serde_json::from_slice::<serde_json::Value>(body).is_ok() {
        return None;
    }
    String::from_utf8_lossy(body)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| OAUTH_PROBLEMS.contains(word))
        .map(str::to_owned)
}

/// A spec `authentication` error code or an OAuth problem.
fn is_refusal_code(code: &str) -> bool {
    SERVICE.authentication_errors.contains(&code) || OAUTH_PROBLEMS.contains(&code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(status: u16, body: &str) -> Option<String> {
        own_oauth_refusal(status, body.as_bytes()).map(|refusal| refusal.to_string())
    }

    #[test]
    fn refusals_of_every_shape_and_status_are_told_with_their_code() {
        let nested = r#"{"rcode":0,"error":{"code":"E_API_AUTH_SIGNATURE_MISMATCH"}}"#;
        assert_eq!(
            why(401, nested).as_deref(),
            Some("401 E_API_AUTH_SIGNATURE_MISMATCH")
        );
        assert_eq!(why(401, "").as_deref(), Some("401"));
        assert_eq!(why(407, "<html>proxy</html>").as_deref(), Some("407"));
        assert_eq!(
            why(
                401,
                "oauth_problem=token_expired&oauth_problem_advice=sign+in"
            )
            .as_deref(),
            Some("401 token_expired")
        );
        let in_data = r#"{"rcode":0,"data":{"code":"E_API_AUTH_SIGNATURE_MISMATCH"}}"#;
        assert_eq!(
            why(200, in_data).as_deref(),
            Some("200 E_API_AUTH_SIGNATURE_MISMATCH")
        );
        let listed_second = r#"{"errors":[{"code":"E_X"},"signature_invalid"]}"#;
        assert_eq!(
            why(400, listed_second).as_deref(),
            Some("400 signature_invalid")
        );
        let html = "<html><p>E_API_AUTH_SIGNATURE_MISMATCH: the signature differs</p></html>";
        assert_eq!(
            why(403, html).as_deref(),
            Some("403 E_API_AUTH_SIGNATURE_MISMATCH")
        );
        let page = "<html><p>oauth_problem=nonce_used</p></html>";
        assert_eq!(why(400, page).as_deref(), Some("400 nonce_used"));
        assert_eq!(
            why(400, "signature_invalid").as_deref(),
            Some("400 signature_invalid")
        );
    }

    #[test]
    fn data_answers_are_not_refusals() {
        for (status, body) in [
            (
                403,
                r#"{"rcode":0,"error":{"code":"E_API_NOT_AUTHORIZED"}}"#,
            ),
            (
                403,
                r#"{"rcode":0,"error":{"code":"E_WORKROOM_BID_ACCESS"}}"#,
            ),
            (403, ""),
            (
                400,
                r#"{"rcode":0,"errors":[{"code":"E_VALIDATION_INVALID_ID"}]}"#,
            ),
            (503, ""),
            (429, "slow down"),
            (
                200,
                r#"{"rcode":1,"data":{"note":"the token expired yesterday"}}"#,
            ),
            // JSON is read by its structure only: a word in a value is not a code.
            (200, r#"{"rcode":1,"data":{"note":"token_expired"}}"#),
            (500, "<html>a token_expiredness page</html>"),
        ] {
            assert_eq!(why(status, body), None, "{status} {body}");
        }
    }
}
