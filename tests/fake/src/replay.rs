//! Replay: the fake answers data calls from recordings of real traffic (the recorder's
//! `marketplace-recording/1` files, written by a client's [`ClientBuilder::record`] or by a
//! fake), while the OAuth flow and every signature check stay the fake's own.
//!
//! A data request is matched to a recorded exchange by its method and parameters (OAuth values
//! aside; the recorder never keeps them). Where the same request was recorded more than once
//! (a `503` and the retry that succeeded, or a page read twice) the recordings answer in
//! recorded order, and the last answers again once they are used up. An answer comes back as
//! recorded: status, `Content-Type`, `Retry-After` and body; the `Date` header stays the fake
//! clock's, which the client's clock correction reads. A request no recording matches is
//! answered `404 E_FAKE_NO_RECORDING` with the nearest recorded request and what differs, and
//! [`FakeMarketplace::check_replay`] fails with it; in strict mode it also fails on recordings
//! never used.
//!
//! Nothing replayed is not a pass: recordings without a single data exchange are refused when
//! read, and [`FakeMarketplace::check_replay`] fails when no data request came; otherwise it
//! says how many exchanges were loaded and how many requests they answered ([`ReplayCount`]).
//!
//! What the recording cannot carry is not replayed: an answer the recorder kept without its body
//! (a client that did not read it, a connection reset injected as a fault) comes back with an
//! empty body, and the exchanges of the OAuth endpoints are left out (the fake runs the flow).
//!
//! [`ClientBuilder::record`]: marketplace_client::ClientBuilder::record
//! [`FakeMarketplace::check_replay`]: crate::FakeMarketplace::check_replay

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use marketplace_client::recording::{self, Exchange, RecordingError};

/// The longest recorded latency replayed; a longer one is cut to this, so a recording cannot
/// hold a test for ever.
pub const MAX_REPLAYED_LATENCY: Duration = Duration::from_secs(30);

/// The error code of the answer to a request no recording matches.
pub const NO_RECORDING_CODE: &str = "E_FAKE_NO_RECORDING";

/// Whether the recorded latency of each answer is waited out before it is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Latency {
    /// Answer at once (the default).
    #[default]
    Skip,
    /// Wait the recorded latency (client-side recordings have one; at most
    /// [`MAX_REPLAYED_LATENCY`]).
    Replay,
}

/// A set of recorded exchanges for [`FakeMarketplace::replay`](crate::FakeMarketplace::replay).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use marketplace_fake::{FakeMarketplace, Replay};
///
/// let fake = FakeMarketplace::start().await?;
/// fake.replay(Replay::from_files(["tests/recordings/workroom.jsonl"])?.strict());
/// let client = fake.client()?;
/// let session = fake.sign_in(&client, "dana.whitfield").await?; // the fake's own OAuth flow
/// let sheets = session.get_timesheets_for_bid(310001).items().collect_all().await?;
/// let count = fake.check_replay()?; // every request matched, and (strict) every recording was used
/// assert!(count.answered > 0); // so it is: check_replay fails when nothing was replayed
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Replay {
    entries: Vec<Entry>,
    strict: bool,
    latency: Latency,
}

/// One recorded answer to a data request.
#[derive(Clone, Debug)]
struct Entry {
    /// Where it was recorded: `file:line`, or `exchange N`.
    origin: String,
    method: String,
    params: BTreeMap<String, String>,
    status: StatusCode,
    content_type: Option<HeaderValue>,
    retry_after: Option<HeaderValue>,
    body: String,
    latency: Option<Duration>,
}

impl Replay {
    /// Reads recordings: `.jsonl` files, or directories of them (see
    /// [`marketplace_client::recording::read`], which bounds what it reads). The data
    /// exchanges are kept in the order the files are named and their lines written.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, a line that is not an exchange, or an exchange that cannot
    /// be answered (its status or a header is not HTTP), each with its file and line; a set of
    /// files without a single data exchange.
    pub fn from_files<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
    ) -> Result<Replay, ReplayError> {
        let mut entries = Vec::new();
        let mut read = Vec::new();
        let mut exchanges = 0;
        for path in paths {
            let path = path.as_ref();
            read.push(path.display().to_string());
            for recorded in recording::read(path)? {
                exchanges += 1;
                let origin = format!("{}:{}", recorded.file.display(), recorded.line);
                entries.extend(Entry::new(origin, recorded.exchange)?);
            }
        }
        Replay::new(entries, read, exchanges)
    }

    /// Exchanges in memory, in order (named `exchange 1`, `exchange 2`, … in messages).
    ///
    /// # Errors
    ///
    /// As [`from_files`](Self::from_files), for an exchange that cannot be answered or a set
    /// without a data exchange.
    pub fn from_exchanges(
        exchanges: impl IntoIterator<Item = Exchange>,
    ) -> Result<Replay, ReplayError> {
        let mut entries = Vec::new();
        let mut read = 0;
        for (index, exchange) in exchanges.into_iter().enumerate() {
            read += 1;
            entries.extend(Entry::new(format!("exchange {}", index + 1), exchange)?);
        }
        Replay::new(entries, Vec::new(), read)
    }

    fn new(
        entries: Vec<Entry>,
        read: Vec<String>,
        exchanges: usize,
    ) -> Result<Replay, ReplayError> {
        if entries.is_empty() {
            return Err(ReplayError::Empty { read, exchanges });
        }
        Ok(Replay {
            entries,
            strict: false,
            latency: Latency::Skip,
        })
    }

    /// [`FakeMarketplace::check_replay`](crate::FakeMarketplace::check_replay) also fails when
    /// a recording was never used.
    #[must_use]
    pub fn strict(mut self) -> Replay {
        self.strict = true;
        self
    }

    /// Whether recorded latency is waited out ([`Latency::Skip`] by default).
    #[must_use]
    pub fn latency(mut self, latency: Latency) -> Replay {
        self.latency = latency;
        self
    }

    /// How many data exchanges it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none: never, a replay without a data exchange is refused.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Entry {
    /// The entry of a data exchange; `None` for an OAuth exchange or a refusal of a request
    /// outside the API, which replay leaves to the fake.
    fn new(origin: String, exchange: Exchange) -> Result<Option<Entry>, ReplayError> {
        let outside = exchange
            .note
            .as_deref()
            .is_some_and(|note| note.starts_with("outside the API"));
        if exchange.method.starts_with("oauth/") || outside {
            return Ok(None);
        }
        let unanswerable = |what: String| ReplayError::Unanswerable {
            origin: origin.clone(),
            what,
        };
        let status = StatusCode::from_u16(exchange.status)
            .map_err(|_| unanswerable(format!("status {} is not HTTP", exchange.status)))?;
        let header = |name: &str| {
            exchange
                .headers
                .get(name)
                .map(|value| {
                    HeaderValue::from_str(value)
                        .map_err(|_| unanswerable(format!("its {name} header is not HTTP")))
                })
                .transpose()
        };
        let content_type = header("content-type")?;
        let retry_after = header("retry-after")?;
        Ok(Some(Entry {
            method: exchange.method,
            params: exchange.params,
            status,
            content_type,
            retry_after,
            body: exchange.body.unwrap_or_default(),
            latency: exchange.latency_us.map(Duration::from_micros),
            origin,
        }))
    }

    fn request(&self) -> String {
        describe(&self.method, &self.params)
    }

    /// How far a request is from this recording: a different method outweighs any parameters.
    fn distance(&self, method: &str, params: &BTreeMap<String, String>) -> usize {
        let method_cost = if self.method == method { 0 } else { 1000 };
        let names: std::collections::BTreeSet<&String> =
            self.params.keys().chain(params.keys()).collect();
        method_cost
            + names
                .into_iter()
                .filter(|name| self.params.get(*name) != params.get(*name))
                .count()
    }

    /// What differs between a request and this recording, in words.
    fn differences(&self, method: &str, params: &BTreeMap<String, String>) -> Vec<String> {
        let mut differences = Vec::new();
        if self.method != method {
            differences.push(format!("the method is {method}, {} recorded", self.method));
        }
        let names: std::collections::BTreeSet<&String> =
            self.params.keys().chain(params.keys()).collect();
        for name in names {
            match (params.get(name), self.params.get(name)) {
                (Some(here), Some(recorded)) if here != recorded => {
                    differences.push(format!("{name} is {here:?}, {recorded:?} recorded"));
                }
                (Some(here), None) => {
                    differences.push(format!("{name} is {here:?}, not recorded"));
                }
                (None, Some(recorded)) => {
                    differences.push(format!("{name} is not sent, {recorded:?} recorded"));
                }
                _ => {}
            }
        }
        differences
    }

    async fn respond(self, latency: Latency) -> Response {
        if let (Latency::Replay, Some(recorded)) = (latency, self.latency) {
            tokio::time::sleep(recorded.min(MAX_REPLAYED_LATENCY)).await;
        }
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        if let Some(content_type) = self.content_type {
            headers.insert(header::CONTENT_TYPE, content_type);
        }
        if let Some(retry_after) = self.retry_after {
            headers.insert(header::RETRY_AFTER, retry_after);
        }
        response
    }
}

/// `pay/getTimesheet?id=880104`.
fn describe(method: &str, params: &BTreeMap<String, String>) -> String {
    let mut text = method.to_owned();
    for (index, (name, value)) in params.iter().enumerate() {
        let separator = if index == 0 { '?' } else { '&' };
        let _ = write!(text, "{separator}{name}={value}");
    }
    text
}

/// A replay that cannot be set up, or that did not go as recorded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A recording could not be read (its file and line are named).
    #[error(transparent)]
    Read(#[from] RecordingError),
    /// A recorded exchange that cannot be sent back.
    #[error("{origin}: the recorded answer cannot be replayed: {what}")]
    Unanswerable {
        /// `file:line`.
        origin: String,
        /// What is wrong with it.
        what: String,
    },
    /// The recordings hold no exchange of a data method.
    #[error(
        "no data exchange to replay in {}: {exchanges} exchange(s) read, {} (nothing replayed \
         is not a pass: record the data calls the test makes)",
        if read.is_empty() { "the exchanges given".to_owned() } else { read.join(", ") },
        if *exchanges == 0 { "none at all" } else { "all of them the OAuth endpoints' or refusals of requests outside the API, which the fake answers itself" }
    )]
    Empty {
        /// The files read.
        read: Vec<String>,
        /// The exchanges they held (none a data exchange).
        exchanges: usize,
    },
    /// No data request came while replaying: nothing was replayed.
    #[error(
        "the replay answered no request: {loaded} recorded data exchange(s) loaded, but no data \
         request came (nothing replayed is not a pass)"
    )]
    NothingAnswered {
        /// The data exchanges loaded.
        loaded: usize,
    },
    /// Requests no recording matched, each with the nearest recorded request.
    #[error("{} request(s) matched no recording:\n{}", misses.len(), misses.join("\n"))]
    Unmatched {
        /// One line per request.
        misses: Vec<String>,
    },
    /// Strict mode: recordings no request used.
    #[error("{} recording(s) were never used (strict replay):\n{}", unused.len(), unused.join("\n"))]
    Unused {
        /// `file:line: request`, one per recording.
        unused: Vec<String>,
    },
    /// [`check_replay`](crate::FakeMarketplace::check_replay) on a fake that is not replaying.
    #[error("the fake is not replaying recordings")]
    NotReplaying,
}

/// What a replay did: the recorded exchanges it loaded, and the requests it answered from
/// them ([`FakeMarketplace::check_replay`](crate::FakeMarketplace::check_replay)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayCount {
    /// The data exchanges loaded from the recordings.
    pub loaded: usize,
    /// The data requests that came.
    pub requests: usize,
    /// The requests answered from a recording.
    pub answered: usize,
}

/// `answered 6 of 6 requests from 8 recorded exchanges`.
impl std::fmt::Display for ReplayCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "answered {} of {} request(s) from {} recorded exchange(s)",
            self.answered, self.requests, self.loaded
        )
    }
}

/// A replay in progress: the recordings, which ones answered, and how many requests came.
#[derive(Debug)]
pub(crate) struct Player {
    replay: Replay,
    used: Vec<bool>,
    misses: Vec<String>,
    requests: usize,
}

/// What the player answers a request with.
pub(crate) enum Answer {
    /// This recording.
    Recorded(Box<RecordedAnswer>),
    /// No recording: the message names the nearest.
    Missing(String),
}

/// A recorded answer and how to send it.
pub(crate) struct RecordedAnswer {
    entry: Entry,
    latency: Latency,
}

impl RecordedAnswer {
    /// Where it was recorded: `file:line`, or `exchange N`.
    pub(crate) fn origin(&self) -> &str {
        &self.entry.origin
    }

    /// The answer, after the recorded latency when it is replayed.
    pub(crate) async fn respond(self) -> Response {
        self.entry.respond(self.latency).await
    }
}

impl Player {
    pub(crate) fn new(replay: Replay) -> Player {
        Player {
            used: vec![false; replay.entries.len()],
            replay,
            misses: Vec::new(),
            requests: 0,
        }
    }

    /// The answer to `method` with `params` (OAuth values already left out): the first unused
    /// recording of the same request, else the last used one, else a miss.
    pub(crate) fn answer(&mut self, method: &str, params: &BTreeMap<String, String>) -> Answer {
        self.requests += 1;
        let same = |entry: &&Entry| entry.method == method && entry.params == *params;
        let unused = self
            .replay
            .entries
            .iter()
            .enumerate()
            .find(|(index, entry)| !self.used[*index] && same(entry))
            .map(|(index, _)| index);
        let chosen = unused.or_else(|| self.replay.entries.iter().rposition(|e| same(&e)));
        if let Some(index) = chosen {
            self.used[index] = true;
            return Answer::Recorded(Box::new(RecordedAnswer {
                entry: self.replay.entries[index].clone(),
                latency: self.replay.latency,
            }));
        }
        let request = describe(method, params);
        let nearest = self
            .replay
            .entries
            .iter()
            .min_by_key(|entry| entry.distance(method, params));
        let message = match nearest {
            Some(entry) => format!(
                "no recording answers {request}; the nearest is {} ({}): {}",
                entry.request(),
                entry.origin,
                entry.differences(method, params).join("; ")
            ),
            None => format!("no recording answers {request}"),
        };
        self.misses.push(message.clone());
        Answer::Missing(message)
    }

    /// What was replayed, when every request matched, at least one came and, in strict mode,
    /// every recording was used.
    pub(crate) fn check(&self) -> Result<ReplayCount, ReplayError> {
        if !self.misses.is_empty() {
            return Err(ReplayError::Unmatched {
                misses: self.misses.clone(),
            });
        }
        let count = ReplayCount {
            loaded: self.replay.entries.len(),
            requests: self.requests,
            answered: self.requests - self.misses.len(),
        };
        if count.answered == 0 {
            return Err(ReplayError::NothingAnswered {
                loaded: count.loaded,
            });
        }
        if self.replay.strict {
            let unused: Vec<String> = self
                .replay
                .entries
                .iter()
                .zip(&self.used)
                .filter(|(_, used)| !**used)
                .map(|(entry, _)| format!("{}: {}", entry.origin, entry.request()))
                .collect();
            if !unused.is_empty() {
                return Err(ReplayError::Unused { unused });
            }
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use marketplace_client::recording::Side;

    fn exchange(method: &str, params: &[(&str, &str)], status: u16) -> Exchange {
        let mut exchange = Exchange::new(Side::Client, method, status);
        exchange.params = params
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        exchange.body = Some(format!("{{\"status\":{status}}}"));
        exchange
    }

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn status(answer: Answer) -> Result<StatusCode, String> {
        match answer {
            Answer::Recorded(recorded) => Ok(recorded.entry.status),
            Answer::Missing(message) => Err(message),
        }
    }

    #[test]
    fn repeats_answer_in_recorded_order_then_the_last_again() {
        let replay = Replay::from_exchanges([
            exchange("pay/getTimesheet", &[("id", "1")], 503),
            exchange("pay/getTimesheet", &[("id", "1")], 200),
        ])
        .unwrap();
        let mut player = Player::new(replay.strict());
        let request = params(&[("id", "1")]);
        assert_eq!(
            status(player.answer("pay/getTimesheet", &request)),
            Ok(StatusCode::SERVICE_UNAVAILABLE)
        );
        assert_eq!(
            status(player.answer("pay/getTimesheet", &request)),
            Ok(StatusCode::OK)
        );
        assert_eq!(
            status(player.answer("pay/getTimesheet", &request)),
            Ok(StatusCode::OK)
        );
        assert!(player.check().is_ok());
    }

    #[test]
    fn a_miss_names_the_nearest_recording_and_what_differs() {
        let replay = Replay::from_exchanges([
            exchange("pay/getInvoice", &[("id", "9003")], 200),
            exchange("pay/getTimesheet", &[("id", "1"), ("bidId", "7")], 200),
        ])
        .unwrap();
        let mut player = Player::new(replay);
        let message =
            status(player.answer("pay/getTimesheet", &params(&[("id", "2")]))).unwrap_err();
        assert_eq!(
            message,
            "no recording answers pay/getTimesheet?id=2; the nearest is \
             pay/getTimesheet?bidId=7&id=1 (exchange 2): bidId is not sent, \"7\" recorded; \
             id is \"2\", \"1\" recorded"
        );
        assert!(
            matches!(player.check(), Err(ReplayError::Unmatched { misses }) if misses == [message])
        );
    }

    #[test]
    fn strict_mode_names_the_unused_recordings() {
        let replay = Replay::from_exchanges([
            exchange("pay/getInvoice", &[("id", "9003")], 200),
            exchange("pay/getPayment", &[("id", "7001")], 200),
        ])
        .unwrap();
        let mut lenient = Player::new(replay.clone());
        let mut strict = Player::new(replay.strict());
        for player in [&mut lenient, &mut strict] {
            assert!(status(player.answer("pay/getInvoice", &params(&[("id", "9003")]))).is_ok());
        }
        assert!(lenient.check().is_ok());
        let Err(ReplayError::Unused { unused }) = strict.check() else {
            panic!("strict replay accepted an unused recording");
        };
        assert_eq!(unused, ["exchange 2: pay/getPayment?id=7001"]);
    }

    #[test]
    fn the_check_counts_what_was_loaded_and_answered_and_nothing_answered_fails() {
        let replay = Replay::from_exchanges([
            exchange("pay/getInvoice", &[("id", "9003")], 200),
            exchange("oauth/getRequestToken", &[], 200),
            exchange("pay/getPayment", &[("id", "7001")], 200),
        ])
        .unwrap();
        let mut player = Player::new(replay);
        assert!(matches!(
            player.check(),
            Err(ReplayError::NothingAnswered { loaded: 2 })
        ));
        assert!(status(player.answer("pay/getInvoice", &params(&[("id", "9003")]))).is_ok());
        assert!(status(player.answer("pay/getInvoice", &params(&[("id", "9003")]))).is_ok());
        let count = player.check().unwrap();
        assert_eq!((count.loaded, count.requests, count.answered), (2, 2, 2));
        assert_eq!(
            count.to_string(),
            "answered 2 of 2 request(s) from 2 recorded exchange(s)"
        );
    }

    #[test]
    fn oauth_exchanges_are_left_to_the_fake_and_bad_statuses_refused() {
        let error =
            Replay::from_exchanges([exchange("oauth/getRequestToken", &[], 200)]).unwrap_err();
        assert!(
            matches!(error, ReplayError::Empty { exchanges: 1, .. }),
            "{error}"
        );
        assert!(
            error.to_string().starts_with(
                "no data exchange to replay in the exchanges given: 1 exchange(s) read, all of \
                 them the OAuth endpoints'"
            ),
            "{error}"
        );
        let error = Replay::from_exchanges([exchange("pay/getInvoice", &[], 1000)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "exchange 1: the recorded answer cannot be replayed: status 1000 is not HTTP"
        );
    }
}
