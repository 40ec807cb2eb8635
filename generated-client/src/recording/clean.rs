//! What a recording keeps of an exchange: every field named, every text through the scrubber.

use std::borrow::Cow;

use super::{Exchange, KEPT_HEADERS};
use crate::scrub::Scrubber;
use crate::secret::{self, REDACTED};

/// Whether the body reaching [`redacted`] is still to be cleaned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// As it was given (an exchange from an app, a hook or a line of text).
    AsGiven,
    /// Cleaned already by a call's scrubber (a client's answer, `Answer::into_redacted`),
    /// which finds every secret-named value the structural scrubber here finds, and the
    /// call's secrets besides: a second reading would find nothing (the recorder's writer
    /// spends a quarter of its time less; `answer.rs` tests that the lines are the same).
    Cleaned,
}

/// [`Exchange::redacted`]: every field is named here, so a new one does not compile until it
/// says how it is cleaned.
pub(super) fn redacted(exchange: Exchange, given: Body) -> Exchange {
    let scrubber = Scrubber::structural();
    let clean = |text: String| match scrubber.text(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(clean) => clean,
    };
    // The answer of an OAuth endpoint (`oauth/…`) holds nothing but credentials.
    let oauth_success =
        exchange.method.starts_with("oauth/") && (200..300).contains(&exchange.status);
    let Exchange {
        format,
        side,
        time,
        method,
        http_method,
        path,
        params,
        attempt,
        latency_us,
        status,
        headers,
        body,
        body_redacted,
        note,
    } = exchange;
    let params = params
        .into_iter()
        .filter(|(name, _)| !name.starts_with("oauth_"))
        .map(|(name, value)| {
            let value = if secret::is_secret_name(&name) && !value.is_empty() {
                REDACTED.to_owned()
            } else {
                clean(value)
            };
            (clean(name), value)
        })
        .collect();
    let headers = headers
        .into_iter()
        .filter(|(name, _)| KEPT_HEADERS.contains(&name.to_ascii_lowercase().as_str()))
        .map(|(name, value)| (name, clean(value)))
        .collect();
    let (body, body_redacted, note) = match body {
        Some(_) if oauth_success => (
            None,
            false,
            Some(
                "the answer of an OAuth endpoint holds credentials only: body not recorded"
                    .to_owned(),
            ),
        ),
        Some(body) if given == Body::Cleaned => (Some(body), body_redacted, note.map(clean)),
        Some(body) => {
            let cleaned = scrubber.clean(body.as_bytes());
            let changed = cleaned.changed();
            let body = if changed { cleaned.into_string() } else { body };
            (Some(body), body_redacted || changed, note.map(clean))
        }
        None => (None, body_redacted, note.map(clean)),
    };
    Exchange {
        format,
        side,
        time,
        method: clean(method),
        http_method: clean(http_method),
        path: clean(path),
        params,
        attempt,
        latency_us,
        status,
        headers,
        body,
        body_redacted,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::Side;
    use crate::recording::tests::exchange;

    #[test]
    fn oauth_values_and_secrets_never_reach_a_line() {
        let mut leaky = exchange(
            r#"{"data":{"user":{"password":"hunter2","nested":[{"oauth_token_secret":"token-secret-value-42"}]}}}"#,
        );
        leaky
            .params
            .insert("oauth_token".into(), "token-value-7f3".into());
        leaky
            .params
            .insert("oauth_signature".into(), "signature-value-9c1".into());
        leaky
            .params
            .insert("client_secret".into(), "client-secret-value".into());
        leaky
            .headers
            .insert("authorization".into(), "OAuth x".into());
        leaky.headers.insert("set-cookie".into(), "a=b".into());
        leaky
            .headers
            .insert("date".into(), "Wed, 21 Jan 2026 13:52:18 GMT".into());
        let line = leaky.redacted().to_line();
        for secret in [
            "hunter2",
            "token-secret-value-42",
            "token-value-7f3",
            "signature-value-9c1",
            "client-secret-value",
            "OAuth x",
            "a=b",
            "authorization",
        ] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        let clean = Exchange::from_line(&line).unwrap();
        assert!(clean.body_redacted);
        assert_eq!(clean.params["client_secret"], REDACTED);
        assert_eq!(clean.params["id"], "9003");
        assert!(clean.headers.contains_key("date"));
    }

    #[test]
    fn a_token_endpoint_answer_loses_its_body_and_a_clean_body_is_kept_as_sent() {
        let mut token = Exchange::new(Side::Server, "oauth/getAccessToken", 200);
        token.body = Some("oauth_token=t&oauth_token_secret=s".into());
        let token = token.redacted();
        assert_eq!(token.body, None);
        assert!(token.note.unwrap().contains("credentials"));
        let body = r#"{"data": {"rate": 30.00, "keys": {"0": 1}}}"#;
        let kept = exchange(body).redacted();
        assert_eq!(kept.body.as_deref(), Some(body));
        assert!(!kept.body_redacted);
    }

    #[test]
    fn body_redacted_says_whether_cleaning_removed_anything() {
        // Error answers in the shapes the fake sends, a body cleaned before, and two with a
        // secret: the flag is set exactly when the recorded body is not the body given.
        let bodies = [
            (
                r#"{"api":"pay/getInvoice","apiVersion":1,"error":{"code":"E_VALIDATION_INVALID_ID","message":"Invalid invoice id 1","type":"validation"},"rcode":0}"#,
                false,
            ),
            (
                r#"{"errors":[{"code":"E_X","description":"d"},{"description":"The request was not processed."}]}"#,
                false,
            ),
            (
                "error=E_VALIDATION_INVALID_ID&error_description=Invalid+invoice+id+1",
                false,
            ),
            (
                "oauth_problem=signature_invalid&oauth_problem_advice=a",
                false,
            ),
            (
                "<h1>E_VALIDATION_INVALID_ID</h1>\n<p>Invalid invoice id 1</p>\n",
                false,
            ),
            (r#"{"error":{"code":"E_X","password":"[redacted]"}}"#, false),
            (r#"{"error":{"code":"E_X","password":"hunter2"}}"#, true),
            ("error=E_X&client_secret=s3cr3t", true),
        ];
        for (body, removed) in bodies {
            let mut answer = exchange(body);
            answer.status = 400;
            let line = answer.redacted();
            assert_eq!(line.body_redacted, removed, "{body}");
            assert_eq!(line.body.as_deref() != Some(body), removed, "{body}");
        }
    }
}
