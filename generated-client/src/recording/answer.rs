//! A client's answer as the transport hands it to its recorders (`ClientBuilder::record`):
//! copied on the call's task as it arrived, with the call's secrets, and cleaned of those on
//! the recorder's thread, where the call does not wait for it.
//!
//! What the recorder writes is what it wrote when it was a response hook: the answer as a hook
//! sees it (headers and body cleaned of secret-named values and of the call's secrets by the
//! call's own scrubber), then [`Exchange::redacted`]. Only where the first cleaning runs moved.

use std::time::Duration;

use bytes::Bytes;
use jiff::Timestamp;
use reqwest::header::HeaderMap;
use url::Url;

use super::{Exchange, KEPT_HEADERS};
use crate::scrub::ScrubberParts;

/// What the call read of an answer's body.
#[derive(Clone)]
pub(crate) enum AnswerBody {
    /// Not read: a redirect, an answer from an intermediary, a body over the size limit.
    Unread,
    /// As it arrived (shared, not copied), cleaned on the recorder's thread.
    Raw(Bytes),
    /// Already cleaned on the call (an error, an OAuth endpoint's answer, or one the response
    /// hooks saw: the call reads those anyway), and whether cleaning changed it.
    Cleaned(Bytes, bool),
}

/// One answer of a client's call, with what cleaning it needs.
#[derive(Clone)]
pub(crate) struct Answer {
    api_method: &'static str,
    http_method: reqwest::Method,
    path: String,
    params: Vec<(&'static str, String)>,
    attempt: u32,
    sent_at: Timestamp,
    latency: Duration,
    status: u16,
    /// The headers of [`KEPT_HEADERS`] as they arrived (values shared, not copied).
    headers: HeaderMap,
    body: AnswerBody,
    /// The secrets of the call (and those the client remembered then), owned.
    secrets: ScrubberParts,
}

/// The exchange of an answer, for [`Answer::new`].
pub(crate) struct Sent<'a> {
    pub(crate) api_method: &'static str,
    pub(crate) http_method: &'a reqwest::Method,
    pub(crate) url: &'a Url,
    pub(crate) params: &'a [(&'static str, String)],
    pub(crate) attempt: u32,
    pub(crate) sent_at: Timestamp,
    pub(crate) latency: Duration,
}

impl Answer {
    /// What the call copies: the request's parameters and path, the kept headers and a
    /// reference to the body. Nothing is cleaned here.
    pub(crate) fn new(
        sent: Sent<'_>,
        status: u16,
        headers: &HeaderMap,
        body: AnswerBody,
        secrets: ScrubberParts,
    ) -> Answer {
        let mut kept = HeaderMap::new();
        for (name, value) in headers {
            if KEPT_HEADERS.contains(&name.as_str()) {
                kept.append(name.clone(), value.clone());
            }
        }
        Answer {
            api_method: sent.api_method,
            http_method: sent.http_method.clone(),
            path: sent.url.path().to_owned(),
            params: sent.params.to_vec(),
            attempt: sent.attempt,
            sent_at: sent.sent_at,
            latency: sent.latency,
            status,
            headers: kept,
            body,
            secrets,
        }
    }

    /// The body's size, for the queue's byte bound.
    pub(super) fn body_len(&self) -> usize {
        match &self.body {
            AnswerBody::Unread => 0,
            AnswerBody::Raw(body) | AnswerBody::Cleaned(body, _) => body.len(),
        }
    }

    /// The exchange the recorder writes: the one a response hook would have seen, redacted
    /// ([`Exchange::redacted`]; the body is not read again there, since the call's scrubber
    /// cleaned it). On the recorder's thread.
    pub(super) fn into_redacted(self) -> Exchange {
        super::clean::redacted(self.into_exchange(), super::clean::Body::Cleaned)
    }

    /// The exchange a response hook would have seen (see [`Exchange::from_response`]): headers
    /// and body cleaned with the call's secrets.
    fn into_exchange(self) -> Exchange {
        let scrubber = self.secrets.scrubber();
        let headers = scrubber.headers(&self.headers);
        let mut exchange = Exchange::answered(
            self.api_method,
            &self.http_method,
            &self.path,
            self.params
                .iter()
                .map(|(name, value)| (*name, value.as_str())),
            self.attempt,
            self.sent_at,
            self.latency,
            self.status,
        )
        .with_headers(
            headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_bytes())),
        );
        match self.body {
            AnswerBody::Unread => exchange.note = Some(super::UNREAD.to_owned()),
            AnswerBody::Raw(body) => {
                // The one body cleaning (a body a reader would decode otherwise is withheld).
                let cleaned = scrubber.clean_body(&body, &self.headers);
                exchange.body_redacted = cleaned.changed();
                exchange.body = Some(cleaned.into_string());
            }
            AnswerBody::Cleaned(body, changed) => {
                exchange = exchange.with_body(&body);
                exchange.body_redacted = changed;
            }
        }
        exchange
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error_body::ReadBody;
    use crate::hooks::{ReceivedResponse, Shown};
    use crate::scrub::{KnownSecrets, Scrubber, SecretRegistry};
    use crate::secret::Secret;
    use proptest::prelude::*;
    use reqwest::header::{HeaderName, HeaderValue};

    const CONSUMER: &str = "c0nsumer&secret/1é";
    const TOKEN: &str = "t0ken secret+2";
    const SIGNATURE: &str = "s1g/nature+3=";

    /// What the recorder writes of an answer, three ways: handed over as it arrived
    /// ([`AnswerBody::Raw`]), handed over cleaned by the call ([`AnswerBody::Cleaned`]), and
    /// as a response hook saw it ([`Exchange::from_response`], how the recorder worked when it
    /// was a hook). The three must be one line.
    fn written(status: u16, headers: &HeaderMap, body: Option<&[u8]>) -> [Exchange; 3] {
        let registry = SecretRegistry::new(&Secret::new(CONSUMER));
        registry.remember(TOKEN);
        let signatures = [SIGNATURE.to_owned()];
        let scrubber =
            Scrubber::new(KnownSecrets::new(CONSUMER, TOKEN).with_signatures(&signatures))
                .remembering(&registry);
        let url = Url::parse("https://api.example/api/pay/getInvoice?id=9003").unwrap();
        let params = [("id", "9003".to_owned())];
        let sent_at = Timestamp::from_second(1_700_000_000).unwrap();
        let sent = || Sent {
            api_method: "pay/getInvoice",
            http_method: &reqwest::Method::GET,
            url: &url,
            params: &params,
            attempt: 1,
            sent_at,
            latency: Duration::from_millis(3),
        };
        let raw = body.map(Bytes::copy_from_slice);
        let read = raw
            .as_ref()
            .map(|body| ReadBody::read(body, headers, &scrubber));
        let recorded =
            |body| Answer::new(sent(), status, headers, body, scrubber.to_parts()).into_redacted();
        let from_raw = recorded(raw.clone().map_or(AnswerBody::Unread, AnswerBody::Raw));
        let from_cleaned = recorded(read.as_ref().map_or(AnswerBody::Unread, |read| {
            AnswerBody::Cleaned(read.shared(), read.changed())
        }));
        let hook_headers = scrubber.headers(headers);
        let received = ReceivedResponse {
            api_method: "pay/getInvoice",
            http_method: &reqwest::Method::GET,
            url: &url,
            params: &params,
            attempt: 1,
            sent_at,
            latency: Duration::from_millis(3),
            status,
            shown: Shown::Cleaned {
                headers: &hook_headers,
                body: read.as_ref().map(ReadBody::bytes),
                body_redacted: read.as_ref().is_some_and(ReadBody::changed),
            },
        };
        [
            from_raw,
            from_cleaned,
            Exchange::from_response(&received).redacted(),
        ]
    }

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_bytes(value).unwrap(),
            );
        }
        headers
    }

    #[test]
    fn the_calls_secrets_are_cleaned_on_the_recorders_thread() {
        let body = format!(
            r#"{{"data":{{"echo":"{}","note":"{}","sig":"{}"}},"rcode":1}}"#,
            CONSUMER.replace('/', "\\/"),
            TOKEN.replace(' ', "%20"),
            SIGNATURE
        );
        let headers = headers(&[
            ("content-type", b"application/json; echo=t0ken secret+2"),
            ("set-cookie", b"session=abc"),
            ("x-request-id", b"r-1"),
            ("date", b"Tue, 14 Nov 2023 22:13:20 GMT"),
        ]);
        let [raw, cleaned, hook] = written(200, &headers, Some(body.as_bytes()));
        assert_eq!(raw, hook);
        assert_eq!(cleaned, hook);
        let line = raw.to_line();
        for secret in [CONSUMER, TOKEN, SIGNATURE, "t0ken", "session=abc", "r-1"] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        assert!(raw.body_redacted);
        assert_eq!(
            raw.headers.keys().collect::<Vec<_>>(),
            ["content-type", "date"]
        );
        assert!(raw.headers["content-type"].contains("[redacted]"));

        let clean = r#"{"data":{"id":9003},"rcode":1}"#;
        let [raw, ..] = written(200, &headers, Some(clean.as_bytes()));
        assert_eq!(raw.body.as_deref(), Some(clean));
        assert!(!raw.body_redacted);

        let [unread, _, hook] = written(302, &headers, None);
        assert_eq!(unread, hook);
        assert_eq!(unread.body, None);
        assert_eq!(unread.note.as_deref(), Some(super::super::UNREAD));
    }

    /// A piece of a hostile body: text, one of the call's secrets in some encoding, a
    /// secret-named pair, or bytes that are not UTF-8.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        let secret = prop::sample::select(vec![CONSUMER, TOKEN, SIGNATURE]);
        prop_oneof![
            "[ -~]{0,24}".prop_map(String::into_bytes),
            secret.clone().prop_map(|secret| secret.as_bytes().to_vec()),
            secret.clone().prop_map(|secret| {
                percent_encoding::utf8_percent_encode(secret, percent_encoding::NON_ALPHANUMERIC)
                    .to_string()
                    .into_bytes()
            }),
            secret.prop_map(|secret| {
                secret
                    .chars()
                    .map(|c| format!("\\u{:04x}", u32::from(c)))
                    .collect::<String>()
                    .into_bytes()
            }),
            "[a-z_]{0,6}(secret|password|oauth_signature)[a-z_]{0,6}"
                .prop_map(|name| format!(r#","{name}":"hunter2","#).into_bytes()),
            prop::collection::vec(0x80..=0xffu8, 1..3),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Whatever the answer, the recorder writes the line it wrote as a response hook, from
        /// the raw body and from the body the call cleaned alike; no secret of the call is in it.
        #[test]
        fn the_recorder_writes_what_a_hook_would_have_seen(
            pieces in prop::collection::vec(piece(), 0..12),
            content_type in prop::collection::vec(piece(), 0..3),
            status in prop::sample::select(vec![200u16, 400, 500]),
        ) {
            let body = pieces.concat();
            let content_type = content_type.concat();
            let content_type = if HeaderValue::from_bytes(&content_type).is_ok() {
                content_type
            } else {
                b"application/json".to_vec()
            };
            let headers = headers(&[("content-type", &content_type), ("set-cookie", b"a=b")]);
            let [raw, cleaned, hook] = written(status, &headers, Some(&body));
            prop_assert_eq!(&raw, &hook);
            prop_assert_eq!(&cleaned, &hook);
            let line = raw.to_line();
            for secret in [CONSUMER, TOKEN, SIGNATURE, "hunter2"] {
                prop_assert!(!line.contains(secret), "{} in {}", secret, line);
            }
        }
    }
}
