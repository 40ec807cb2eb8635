//! Recording the wire: every exchange with the service as one JSON line, for
//! `cargo xtask wire-audit`, which checks recorded bodies against the spec.
//!
//! One definition serves both sides: [`Exchange`] is what a line holds, [`Recorder`] writes
//! lines (the client's, and the fake marketplace's for what it sends), [`read`] reads them back.
//!
//! # Secrets
//!
//! Every exchange is cleaned before it is written, on the recorder's own thread (see
//! [`Exchange::redacted`]): parameters named `oauth_*` are dropped and secret-named ones
//! blanked; only the response headers that matter to an audit are kept ([`KEPT_HEADERS`]: never
//! `Authorization`, cookies or anything unknown); a successful answer of an OAuth endpoint,
//! which holds nothing but credentials, is written without its body; and every text left (body,
//! header values, parameters, path, note) goes through the scrubber the client's errors and
//! hooks use: secret-named values removed wherever they are (JSON, form pairs, text, escaped,
//! nested, duplicated; a body that cannot be cleaned for certain is withheld). A client's
//! recorder (`ClientBuilder::record`) writes what its response hooks get, cleaned of the call's
//! own secrets (consumer secret, token secret, verifier, signature, the app's credential
//! headers) in any encoding by the call's own scrubber, on the recorder's thread: the call
//! hands it the answer as it arrived with those secrets (`answer.rs`), or the body it already
//! cleaned (an error, an OAuth endpoint's answer). What is left is fit to commit: the recording
//! of a test run holds no credential.
//!
//! # Cost
//!
//! [`Recorder::record`] never blocks: it hands the exchange to the writer thread through a
//! bounded queue and returns. When the queue is full (more than [`QUEUE_EXCHANGES`] exchanges
//! or [`QUEUE_BYTES`] of bodies waiting) the exchange is dropped and counted
//! ([`RecorderStats::dropped`]), so a slow disk slows no call. Cleaning, serializing and writing
//! happen on the writer thread, which wakes at the first exchange of a burst, lets the burst
//! gather for 10 ms and writes it as one batch (so a burst of calls wakes it once, not once per
//! call), through a buffer it flushes once the queue has been quiet for 50 ms, on
//! [`Recorder::flush`] and at the end. Files rotate by size ([`Rotation`]); each is written
//! through [`crate::files`] and appears whole, at rotation, at [`Recorder::flush`] and when
//! the last clone of the recorder is dropped.
//!
//! A client's recorder costs its calls a copy of the request's parameters and path, of the
//! kept headers (shared values) and of the call's secrets, and a reference to the body: the
//! cleaning a response hook's answer needs runs on the writer thread (BENCHMARKS.md, section
//! 5).
//!
//! The module's parts: [`Exchange`] and its line here, the cleaning in `clean.rs`, a client's
//! answer on its way to the writer in `answer.rs`, the writer (queue, batching thread,
//! rotation, stats) in `writer.rs`, the reader in `reader.rs`.

mod answer;
mod clean;
mod reader;
mod writer;

use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::hooks::ReceivedResponse;

pub(crate) use answer::{Answer, AnswerBody, Sent};
pub use reader::{MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES, Recorded, read};
pub use writer::{QUEUE_BYTES, QUEUE_EXCHANGES, RecorderStats, Rotation};

/// The format of a recording line; [`Exchange::format`] carries it, so that a reader can tell
/// a line of a later, incompatible format from a broken one.
pub const FORMAT: &str = "marketplace-recording/1";

/// The response headers a recording keeps (lower case): what an audit or a replay needs to
/// read the body and the service's clock and pacing. Nothing else is written.
pub const KEPT_HEADERS: [&str; 4] = ["content-type", "date", "retry-after", "content-length"];

/// The note of an exchange whose body the client did not read.
const UNREAD: &str = "the client did not read the body";

/// Who wrote a recording line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The client, of what it received.
    Client,
    /// A server (the fake marketplace), of what it sent.
    Server,
}

/// One exchange: the request as far as it is not a credential, and the answer. One JSON
/// line of a recording.
///
/// ```
/// use marketplace_client::recording::{Exchange, Side};
///
/// let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
/// exchange.params.insert("id".into(), "9003".into());
/// exchange.body = Some(r#"{"api":"pay/getBilling","apiVersion":1,"rcode":1,"data":{}}"#.into());
/// let line = exchange.to_line();
/// assert_eq!(Exchange::from_line(&line).unwrap(), exchange);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Exchange {
    /// [`FORMAT`].
    pub format: String,
    /// Who recorded it.
    pub side: Side,
    /// When the request was sent (client) or answered (server).
    pub time: Timestamp,
    /// The API method: `pay/getTimesheet`, `oauth/getRequestToken`, ….
    pub method: String,
    /// The HTTP method.
    pub http_method: String,
    /// The request path, without the query.
    pub path: String,
    /// The method's parameters as sent, without any OAuth value.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// Which attempt of a call it was, from 1 (client side only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// From sending the request to the end of the body, in microseconds (client side only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<u64>,
    /// The HTTP status.
    pub status: u16,
    /// The response headers of [`KEPT_HEADERS`], names in lower case.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The response body as text (invalid UTF-8 replaced), without secrets; `None` when it
    /// was not read or not kept.
    #[serde(default)]
    pub body: Option<String>,
    /// Whether secrets were removed from the body (it is then the body as sent with each
    /// secret replaced by `[redacted]`, or a note saying it was withheld).
    #[serde(default)]
    pub body_redacted: bool,
    /// What the recorder knows about the answer besides: `fault: …` when a test server
    /// injected it on purpose, or why the body is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Exchange {
    /// An exchange of `method` answered with `status`, now, with nothing else known yet.
    pub fn new(side: Side, method: impl Into<String>, status: u16) -> Exchange {
        Exchange {
            format: FORMAT.to_owned(),
            side,
            time: Timestamp::now(),
            method: method.into(),
            http_method: "GET".to_owned(),
            path: String::new(),
            params: BTreeMap::new(),
            attempt: None,
            latency_us: None,
            status,
            headers: BTreeMap::new(),
            body: None,
            body_redacted: false,
            note: None,
        }
    }

    /// Sets the body from bytes as received (invalid UTF-8 replaced).
    pub fn with_body(mut self, body: &[u8]) -> Exchange {
        self.body = Some(String::from_utf8_lossy(body).into_owned());
        self
    }

    /// Keeps the headers of [`KEPT_HEADERS`] from `headers`.
    pub fn with_headers<'a>(
        mut self,
        headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Exchange {
        for (name, value) in headers {
            let name = name.to_ascii_lowercase();
            if KEPT_HEADERS.contains(&name.as_str()) {
                self.headers
                    .insert(name, String::from_utf8_lossy(value).into_owned());
            }
        }
        self
    }

    /// The exchange a response hook sees (see [`ReceivedResponse`]): what
    /// [`ClientBuilder::record`](crate::ClientBuilder::record) writes for each answer. The body
    /// is copied as the hook has it; cleaning it happens on the recorder's thread.
    pub fn from_response(response: &ReceivedResponse<'_>) -> Exchange {
        let mut exchange = Exchange::answered(
            response.api_method(),
            response.http_method(),
            response.url().path(),
            response.params(),
            response.attempt(),
            response.sent_at(),
            response.latency(),
            response.status(),
        );
        let headers = response.headers();
        exchange = exchange.with_headers(
            headers
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_bytes())),
        );
        match response.body() {
            Some(body) => {
                exchange = exchange.with_body(body);
                exchange.body_redacted = response.body_is_redacted();
            }
            None => exchange.note = Some(UNREAD.to_owned()),
        }
        exchange
    }

    /// A client's exchange, without its headers and body: what [`Exchange::from_response`]
    /// and a client's recorder (`answer.rs`) both start from.
    #[allow(clippy::too_many_arguments, reason = "the fields of one answer, named")]
    fn answered<'p>(
        api_method: &str,
        http_method: &reqwest::Method,
        path: &str,
        params: impl Iterator<Item = (&'p str, &'p str)>,
        attempt: u32,
        sent_at: Timestamp,
        latency: std::time::Duration,
        status: u16,
    ) -> Exchange {
        let mut exchange = Exchange::new(Side::Client, api_method, status);
        exchange.time = sent_at;
        exchange.http_method = http_method.as_str().to_owned();
        exchange.path = path.to_owned();
        exchange.params = params
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        exchange.attempt = Some(attempt);
        exchange.latency_us = Some(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
        exchange
    }

    /// The exchange without secrets, as a recorder writes it: `oauth_*` parameters dropped,
    /// secret-named ones blanked, only [`KEPT_HEADERS`], no body for a successful answer of an
    /// OAuth endpoint, and every text left cleaned by the scrubber every channel uses (see
    /// the module docs). Every field is named where it is cleaned, so a new one does not
    /// compile until it says how it is cleaned.
    pub fn redacted(self) -> Exchange {
        // In this impl block, not beside the cleaning: the published API lists one block.
        clean::redacted(self, clean::Body::AsGiven)
    }

    /// The exchange as one JSON line, without the line break.
    pub fn to_line(&self) -> String {
        // Room for the body with its quotes escaped and the rest of the line, at once (the
        // recorder's writer serializes every exchange; growing by doubling copies the body
        // several times).
        let body = self.body.as_ref().map_or(0, String::len);
        let mut line = Vec::with_capacity(512 + body + body / 4);
        // Serializing these fields cannot fail: every map key is a string.
        if serde_json::to_writer(&mut line, self).is_err() {
            return String::new();
        }
        String::from_utf8(line).unwrap_or_default()
    }

    /// Reads one line written by [`Exchange::to_line`], cleaned as a recorder writes one
    /// ([`Exchange::redacted`]): a line may come from another recorder or another hand, and
    /// whatever reads it (a replay, the wire audit, an app) shows no secret it held. Reading is
    /// the one way an exchange comes from text, so no reader can skip the cleaning.
    ///
    /// A line that is not an exchange is told by where and why, never by the value found
    /// there: a recording is text of the service's, and a value under a secret-named key
    /// (`"params": {"password": 1234}`) is a secret whatever its type.
    pub fn from_line(line: &str) -> Result<Exchange, String> {
        let mut reader = serde_json::Deserializer::from_str(line);
        let exchange: Exchange = serde_path_to_error::deserialize(&mut reader)
            .map_err(|error| unreadable(&error.path().to_string(), error.inner()))?;
        reader.end().map_err(|error| unreadable(".", &error))?;
        if exchange.format != FORMAT {
            return Err(format!(
                "format {:?}: this reader reads {FORMAT:?}",
                exchange.format
            ));
        }
        Ok(exchange.redacted())
    }
}

/// Why a line is not an exchange, without a value of the line: serde's messages quote what
/// they found (``invalid type: integer `1234`, expected a string``); only what was expected,
/// which comes from the types here, is kept, with the path and the position.
fn unreadable(path: &str, inner: &serde_json::Error) -> String {
    let message = inner.to_string();
    let why = match inner.classify() {
        serde_json::error::Category::Syntax => "not JSON".to_owned(),
        serde_json::error::Category::Eof => "the line ends early".to_owned(),
        serde_json::error::Category::Io => "cannot be read".to_owned(),
        serde_json::error::Category::Data => {
            // serde's "missing field `name`" names a field of these types; an "expected …"
            // says what these types take. Anything else could quote the line.
            if message.starts_with("missing field `") {
                message
                    .split(" at line ")
                    .next()
                    .unwrap_or("a field is missing")
                    .to_owned()
            } else {
                match message
                    .split_once(", expected ")
                    .map(|(_, expected)| expected.split(" at line ").next().unwrap_or(expected))
                {
                    Some(expected) => format!("a value that is not {expected}"),
                    None => "a value these types do not take".to_owned(),
                }
            }
        }
    };
    let at = if path == "." {
        String::new()
    } else {
        format!(" at `{path}`")
    };
    format!(
        "{why}{at} (line {}, column {})",
        inner.line(),
        inner.column()
    )
}

/// Writes exchanges as JSON lines on a thread of its own. Cloning shares the recorder; the
/// writer thread ends, after writing what is queued, when the last clone is dropped, and that
/// drop waits for it (as `flush` does), so that a recording is whole once the last clone is
/// gone. A client holds a clone, and so does each call in flight: a page stream's calls run on
/// tasks of their own, which a dropped stream aborts and the runtime then drops, just after the
/// stream, on its own threads. An app that reads the recording right after dropping a stream
/// and its client waits for the file it expects, or keeps a clone and calls [`Recorder::flush`]
/// (everything queued before it is written). The wait is bounded: a client's answer is cleaned on the writer's thread only until its
/// call's deadline (past it, what is left is withheld), and every cleaning is linear in its
/// text.
///
/// ```no_run
/// use marketplace_client::recording::{Recorder, Rotation};
///
/// let recorder = Recorder::to_dir("recordings", "client", Rotation::default())?;
/// // Client::builder(..).record(recorder.clone()); the fake: fake.record(recorder.clone())
/// recorder.flush()?;
/// # Ok::<(), std::io::Error>(())
/// ```
// Defined here, its workings in `writer.rs`: other crates' published APIs (the fake's
// `record`) name a type by the module that defines it.
#[derive(Clone)]
pub struct Recorder {
    shared: Arc<writer::Shared>,
}

// Defined here, not in `reader`, so that other crates' APIs name it by its public path.
/// A recording that cannot be read. Its `Display` is on one line without a control character
/// ([`OneLine`](crate::OneLine)): the message may quote the file.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// A file or directory could not be read.
    #[error("{}", crate::OneLine(format_args!("cannot read {}: {source}", path.display())))]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not an exchange of [`FORMAT`].
    #[error(
        "{}",
        crate::OneLine(format_args!("{}:{line}: not a recorded exchange: {message}", path.display()))
    )]
    Line {
        /// The file.
        path: std::path::PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer of pay/getInvoice with `body`, for the tests of every part.
    pub(super) fn exchange(body: &str) -> Exchange {
        let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
        exchange.path = "/api/pay/getInvoice".to_owned();
        exchange.params.insert("id".into(), "9003".into());
        exchange.body = Some(body.to_owned());
        exchange
    }

    #[test]
    fn a_line_reads_back_as_the_exchange() {
        let original = exchange(r#"{"rcode":1,"data":{"n":30.00}}"#);
        let line = original.to_line();
        assert!(!line.contains('\n'));
        assert_eq!(Exchange::from_line(&line).unwrap(), original);
        let other = line.replace(FORMAT, "marketplace-recording/9");
        assert!(Exchange::from_line(&other).unwrap_err().contains("format"));
    }

    #[test]
    fn a_client_error_line_says_body_redacted_only_when_something_was_removed() {
        use crate::hooks::Shown;
        let get = reqwest::Method::GET;
        let url = url::Url::parse("https://api.example/api/pay/getInvoice?id=1").unwrap();
        let headers = reqwest::header::HeaderMap::new();
        let params = [("id", "1".to_owned())];
        let body =
            br#"{"error":{"code":"E_VALIDATION_INVALID_ID","message":"Invalid id 1"},"rcode":0}"#;
        let answer = |body_redacted| ReceivedResponse {
            api_method: "pay/getInvoice",
            http_method: &get,
            url: &url,
            params: &params,
            attempt: 1,
            sent_at: Timestamp::now(),
            latency: std::time::Duration::from_millis(3),
            status: 400,
            shown: Shown::Cleaned {
                headers: &headers,
                body: Some(body),
                body_redacted,
            },
        };
        let line = Exchange::from_response(&answer(false)).redacted();
        assert_eq!(line.body.as_deref().map(str::as_bytes), Some(&body[..]));
        assert!(!line.body_redacted);
        // The hook's body lost a secret of the call: the line says so, though the recorder's
        // own cleaning removes nothing more.
        assert!(
            Exchange::from_response(&answer(true))
                .redacted()
                .body_redacted
        );
    }
}
