//! Replay: the fake answers data calls from recordings of real traffic (the recorder's
//! `marketplace-recording/1` files, written by a client's [`ClientBuilder::record`] or by a
//! fake), while the OAuth flow and every signature check stay the fake's own.
//!
//! A data request is matched to a recorded exchange by its method and parameters (OAuth values
//! aside; the recorder never keeps them), read as the recorder writes them: a secret-named
//! value is blanked on both sides, so it matches any, and no miss text shows it. Where the same request was recorded more than once
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
//! # The recording server's OAuth decisions are not replayed
//!
//! A data call the recording server refused by its own OAuth (a signature, a clock, a nonce, a
//! token it had expired or revoked) is decided again by the fake, which may well accept it:
//! such an answer is left out when the recording is read, whatever its status and shape, so
//! the request is answered by the next recording of it that is kept, or else is a miss that
//! names the refusals left out. The rule: any `401` or `407`; any answer (a `200` with `rcode`
//! 0 too) carrying one of the spec's `authentication` error codes
//! (`marketplace_client::SERVICE.authentication_errors`) or an OAuth Problem Reporting code
//! (`token_expired`, `signature_invalid`, … the whole list), read from the body as the client
//! reads error bodies. The spec's `authorization` errors (`403 E_API_NOT_AUTHORIZED`,
//! `E_WORKROOM_BID_ACCESS`: the user's permission to a record, which the fake's OAuth does not
//! decide) are data and replayed as recorded, as are validation errors, `5xx` and `429`.
//! [`ReplayCount::refused`] counts the refusals left out, its text names the first few, and a
//! recording of nothing else is [`ReplayError::Empty`], saying so.
//!
//! A recorded `5xx` or `429` and the retry that succeeded stay in recorded order: the service's
//! availability is data the fake does not decide, and a client retrying as the recording's did
//! consumes both, as it did then (one that does not retry sees the `5xx`, as it would have).
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
use marketplace_client::OneLine;
use marketplace_client::recording::{self, Exchange, RecordingError};

use crate::refusal::{Refusal, own_oauth_refusal};

/// The longest recorded latency replayed; a longer one is cut to this, so a recording cannot
/// hold a test for ever.
pub const MAX_REPLAYED_LATENCY: Duration = Duration::from_secs(30);

/// The error code of the answer to a request no recording matches.
pub const NO_RECORDING_CODE: &str = "E_FAKE_NO_RECORDING";

/// How many refusals left out a message names (`file:line` and why); it counts them all.
const NAMED_REFUSALS: usize = 3;

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
/// // Strict: every recording must be used too, so the test makes each call they hold.
/// fake.replay(Replay::from_files(["tests/recordings/timesheets.jsonl"])?.strict());
/// let client = fake.client()?;
/// let session = fake.sign_in(&client, "dwhitfield").await?; // the fake's own OAuth flow
/// let sheets = session.get_timesheets_for_bid(310001).items().collect_all().await?;
/// let count = fake.check_replay()?; // every request matched, and every recording was used
/// assert!(count.answered > 0); // so it is: check_replay fails when nothing was replayed
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Replay {
    entries: Vec<Entry>,
    /// The recording server's own OAuth refusals, left out (see the module docs).
    refused: Vec<Refused>,
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

/// A recorded answer left out: a refusal the recording server made by its own OAuth.
#[derive(Clone, Debug)]
struct Refused {
    /// Where it was recorded: `file:line`, or `exchange N`.
    origin: String,
    method: String,
    params: BTreeMap<String, String>,
    why: Refusal,
}

/// What replay makes of a recorded exchange.
enum Sorted {
    /// A data answer, replayed.
    Data(Entry),
    /// A refusal the recording server made by its own OAuth, left out.
    Refused(Refused),
    /// An OAuth endpoint's exchange, or a refusal of a request outside the API: the fake
    /// answers those itself.
    FakesOwn,
}

/// The recorded exchanges, sorted.
#[derive(Default)]
struct Loaded {
    entries: Vec<Entry>,
    refused: Vec<Refused>,
    exchanges: usize,
}

impl Loaded {
    /// Every exchange a replay holds passes here, cleaned as the recorder writes one
    /// ([`Exchange::redacted`]): a recording is untrusted text, and one written by hand (or by
    /// another tool) may hold a value under a secret-named name, which no text of the replay
    /// (a miss, `check_replay`'s reports, its `Debug`) may show. A recording the recorder
    /// wrote is already so: cleaning it again changes nothing.
    fn push(&mut self, origin: String, exchange: Exchange) -> Result<(), ReplayError> {
        self.exchanges += 1;
        match Entry::sort(origin, exchange.redacted())? {
            Sorted::Data(entry) => self.entries.push(entry),
            Sorted::Refused(refused) => self.refused.push(refused),
            Sorted::FakesOwn => {}
        }
        Ok(())
    }
}

impl Refused {
    /// `file:line (401 token_expired)`.
    fn named(&self) -> String {
        format!("{} ({})", self.origin, self.why)
    }
}

/// The first refusals of `refused`, named.
fn first_named<'a>(refused: impl IntoIterator<Item = &'a Refused>) -> Vec<String> {
    refused
        .into_iter()
        .take(NAMED_REFUSALS)
        .map(Refused::named)
        .collect()
}

/// `a.jsonl:3 (401), a.jsonl:7 (200 token_expired) and 4 more`: `first` of `count`.
fn list_named(first: &[String], count: usize) -> String {
    let mut text = first.join(", ");
    if count > first.len() {
        let _ = write!(text, " and {} more", count - first.len());
    }
    text
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
        let mut loaded = Loaded::default();
        let mut read = Vec::new();
        for path in paths {
            let path = path.as_ref();
            // A file's name is the user's and can hold anything: it is named on one line
            // without a control character here, where every text of the replay takes it from.
            read.push(OneLine(path.display()).to_string());
            for recorded in recording::read(path)? {
                let origin = OneLine(format_args!(
                    "{}:{}",
                    recorded.file.display(),
                    recorded.line
                ))
                .to_string();
                loaded.push(origin, recorded.exchange)?;
            }
        }
        Replay::new(loaded, read)
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
        let mut loaded = Loaded::default();
        for (index, exchange) in exchanges.into_iter().enumerate() {
            loaded.push(format!("exchange {}", index + 1), exchange)?;
        }
        Replay::new(loaded, Vec::new())
    }

    fn new(loaded: Loaded, read: Vec<String>) -> Result<Replay, ReplayError> {
        let Loaded {
            entries,
            refused,
            exchanges,
        } = loaded;
        if entries.is_empty() {
            return Err(ReplayError::Empty {
                read,
                exchanges,
                refused: refused.len(),
                first_refused: first_named(&refused),
            });
        }
        Ok(Replay {
            entries,
            refused,
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

    /// How many data exchanges it holds (refusals of the recording server's own OAuth left
    /// out).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// How many recorded answers were left out as refusals the recording server made by its
    /// own OAuth (see [the module docs](crate::replay)).
    pub fn refused(&self) -> usize {
        self.refused.len()
    }

    /// Whether it holds none: never, a replay without a data exchange is refused.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Entry {
    /// The entry of a data exchange; a refusal the recording server made by its own OAuth
    /// (whose answer the fake's OAuth decides); or neither, for an OAuth exchange or a refusal
    /// of a request outside the API, which replay leaves to the fake.
    fn sort(origin: String, exchange: Exchange) -> Result<Sorted, ReplayError> {
        let outside = exchange
            .note
            .as_deref()
            .is_some_and(|note| note.starts_with("outside the API"));
        if exchange.method.starts_with("oauth/") || outside {
            return Ok(Sorted::FakesOwn);
        }
        let unanswerable = |what: String| ReplayError::Unanswerable {
            origin: origin.clone(),
            what,
        };
        // HTTP's statuses are 100 to 599 (RFC 9110 §15); `http` carries 600 to 999 too.
        let status = StatusCode::from_u16(exchange.status)
            .ok()
            .filter(|_| (100..600).contains(&exchange.status))
            .ok_or_else(|| unanswerable(format!("status {} is not HTTP", exchange.status)))?;
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
        let body = exchange.body.unwrap_or_default();
        if let Some(why) = own_oauth_refusal(exchange.status, body.as_bytes()) {
            return Ok(Sorted::Refused(Refused {
                origin,
                method: exchange.method,
                params: exchange.params,
                why,
            }));
        }
        Ok(Sorted::Data(Entry {
            method: exchange.method,
            params: exchange.params,
            status,
            content_type,
            retry_after,
            body,
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

/// `method` and `params` as a recorder writes a request ([`Exchange::redacted`], the client's
/// one cleaning: a secret-named value blanked, every text through the scrubber), as every
/// recorded exchange is read into a replay ([`Loaded::push`]).
fn as_recorded(
    method: &str,
    params: &BTreeMap<String, String>,
) -> (String, BTreeMap<String, String>) {
    let mut request = Exchange::new(recording::Side::Client, method, 0);
    request.params = params.clone();
    let request = request.redacted();
    (request.method, request.params)
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
    #[error(
        "{}",
        OneLine(format_args!("{origin}: the recorded answer cannot be replayed: {what}"))
    )]
    Unanswerable {
        /// `file:line`.
        origin: String,
        /// What is wrong with it.
        what: String,
    },
    /// The recordings hold no exchange of a data method that replay keeps.
    #[error(
        "{}",
        OneLine(format_args!(
            "no data exchange to replay in {}: {exchanges} exchange(s) read, {} (nothing \
             replayed is not a pass: record the data calls the test makes)",
            if read.is_empty() { "the exchanges given".to_owned() } else { read.join(", ") },
            none_kept(*exchanges, *refused, first_refused)
        ))
    )]
    #[non_exhaustive]
    Empty {
        /// The files read.
        read: Vec<String>,
        /// The exchanges they held (none a data exchange replay keeps).
        exchanges: usize,
        /// How many of them were refusals the recording server made by its own OAuth, left
        /// out (see [the module docs](crate::replay)).
        refused: usize,
        /// Where the first few of those were recorded, and why each is one: `file:line (401
        /// token_expired)`.
        first_refused: Vec<String>,
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
    #[error("{} request(s) matched no recording:\n{}", misses.len(), lines(misses))]
    Unmatched {
        /// One line per request.
        misses: Vec<String>,
    },
    /// Strict mode: recordings no request used.
    #[error("{} recording(s) were never used (strict replay):\n{}", unused.len(), lines(unused))]
    Unused {
        /// `file:line: request`, one per recording.
        unused: Vec<String>,
    },
    /// [`check_replay`](crate::FakeMarketplace::check_replay) on a fake that is not replaying.
    #[error("the fake is not replaying recordings")]
    NotReplaying,
}

/// `items`, a line each, each on one line without a control character: a line quotes the
/// request and the recording (a recorded value can hold a line feed or an escape sequence).
fn lines(items: &[String]) -> String {
    let lines: Vec<String> = items.iter().map(|item| OneLine(item).to_string()).collect();
    lines.join("\n")
}

/// Why recordings of `exchanges` exchanges, `refused` of them left out as the recording
/// server's own OAuth refusals, hold no data exchange replay keeps.
fn none_kept(exchanges: usize, refused: usize, first_refused: &[String]) -> String {
    const FAKES_OWN: &str = "the OAuth endpoints' or refusals of requests outside the API, \
                             which the fake answers itself";
    let refusals = || {
        format!(
            "refusals the recording server made by its own OAuth ({}), which replay leaves \
             out: the fake's OAuth decides those calls",
            list_named(first_refused, refused)
        )
    };
    match (exchanges, refused) {
        (0, _) => "none at all".to_owned(),
        (_, 0) => format!("all of them {FAKES_OWN}"),
        (all, refused) if refused == all => format!("all of them {}", refusals()),
        (_, refused) => format!("{refused} of them {}; the others {FAKES_OWN}", refusals()),
    }
}

/// What a replay did: the recorded exchanges it loaded, the requests it answered from them,
/// and the recorded refusals of the recording server's own OAuth it left out
/// ([`FakeMarketplace::check_replay`](crate::FakeMarketplace::check_replay)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayCount {
    /// The data exchanges loaded from the recordings.
    pub loaded: usize,
    /// The data requests that came.
    pub requests: usize,
    /// The requests answered from a recording.
    pub answered: usize,
    /// The recorded answers left out as refusals the recording server made by its own OAuth
    /// (a `401`, or an `authentication` or OAuth problem code in any shape and status: see
    /// [the module docs](crate::replay)); the fake's OAuth decided those calls.
    pub refused: usize,
    /// Where the first few of those were recorded, and why each is one: `file:line (401
    /// token_expired)`.
    pub first_refused: Vec<String>,
}

/// `answered 6 of 6 request(s) from 8 recorded exchange(s)`, then, when refusals were left out,
/// `; 2 recorded refusal(s) of the recording server's own OAuth left out (…): a.jsonl:3 (401
/// token_expired), a.jsonl:9 (401)`.
///
/// One line without a control character, as every text of the replay: a recording is named
/// through [`OneLine`] where it is read ([`Replay::from_files`]), whatever its file's name.
impl std::fmt::Display for ReplayCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "answered {} of {} request(s) from {} recorded exchange(s)",
            self.answered, self.requests, self.loaded
        )?;
        if self.refused > 0 {
            write!(
                f,
                "; {} recorded refusal(s) of the recording server's own OAuth left out (the \
                 fake's OAuth decided those calls): {}",
                self.refused,
                list_named(&self.first_refused, self.refused)
            )?;
        }
        Ok(())
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
    ///
    /// The request is matched and shown as a recording holds one ([`as_recorded`]): a
    /// recorded secret-named value is blanked, so only the blanked form can match it, and a
    /// miss text (the `404` answer, [`ReplayError::Unmatched`]) quotes no value of the request
    /// that a recording could not hold.
    pub(crate) fn answer(&mut self, method: &str, params: &BTreeMap<String, String>) -> Answer {
        let (method, params) = as_recorded(method, params);
        let (method, params) = (method.as_str(), &params);
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
        let mut message = format!("no recording answers {}", describe(method, params));
        let refused = || {
            self.replay
                .refused
                .iter()
                .filter(|refused| refused.method == method && refused.params == *params)
        };
        let count = refused().count();
        if count > 0 {
            let _ = write!(
                message,
                ": its {count} recorded answer(s) were refusals the recording server made by its \
                 own OAuth ({}), which replay leaves out (the fake's OAuth accepted this call)",
                list_named(&first_named(refused()), count)
            );
        }
        let nearest = self
            .replay
            .entries
            .iter()
            .min_by_key(|entry| entry.distance(method, params));
        if let Some(entry) = nearest {
            let _ = write!(
                message,
                "; the nearest is {} ({}): {}",
                entry.request(),
                entry.origin,
                entry.differences(method, params).join("; ")
            );
        }
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
            refused: self.replay.refused.len(),
            first_refused: first_named(&self.replay.refused),
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

    /// A request is read as the recorder writes one: a secret-named value is blanked, so it
    /// matches the blanked recording of it, and a miss shows none (red team 12).
    #[test]
    fn a_requested_secret_named_value_is_blanked_as_recorded_and_never_shown() {
        let replay = Replay::from_exchanges([exchange(
            "pay/getInvoice",
            &[("id", "9003"), ("client_secret", "recorded-one")],
            200,
        )])
        .unwrap();
        let mut player = Player::new(replay);
        let asked = params(&[("id", "9003"), ("Client-Secret", "asked-one")]);
        let matched = params(&[("id", "9003"), ("client_secret", "asked-one")]);
        assert!(status(player.answer("pay/getInvoice", &matched)).is_ok());
        let message = status(player.answer("pay/getInvoice", &asked)).unwrap_err();
        assert!(!message.contains("asked-one"), "{message}");
        let error = player.check().unwrap_err();
        assert!(
            !format!("{error}{error:?}").contains("asked-one"),
            "{error:?}"
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

    fn refusal(method: &str, params: &[(&str, &str)], status: u16, body: &str) -> Exchange {
        let mut exchange = exchange(method, params, status);
        exchange.body = Some(body.to_owned());
        exchange
    }

    #[test]
    fn refusals_are_left_out_counted_and_named_and_the_next_kept_answer_answers() {
        let expired = r#"{"rcode":0,"error":{"code":"token_expired"}}"#;
        let replay = Replay::from_exchanges([
            refusal("pay/getTimesheet", &[("id", "1")], 401, ""),
            exchange("pay/getTimesheet", &[("id", "1")], 503),
            refusal("pay/getTimesheet", &[("id", "1")], 200, expired),
            exchange("pay/getTimesheet", &[("id", "1")], 200),
            refusal("pay/getInvoice", &[("id", "9")], 401, ""),
            refusal("pay/getInvoice", &[("id", "9")], 401, ""),
        ])
        .unwrap();
        assert_eq!((replay.len(), replay.refused()), (2, 4));
        let mut player = Player::new(replay.strict());
        let request = params(&[("id", "1")]);
        for expected in [503, 200, 200] {
            let answered = status(player.answer("pay/getTimesheet", &request));
            assert_eq!(answered.map(|status| status.as_u16()), Ok(expected));
        }
        let count = player.check().unwrap();
        assert_eq!((count.loaded, count.answered, count.refused), (2, 3, 4));
        assert_eq!(
            count.to_string(),
            "answered 3 of 3 request(s) from 2 recorded exchange(s); 4 recorded refusal(s) of \
             the recording server's own OAuth left out (the fake's OAuth decided those calls): \
             exchange 1 (401), exchange 3 (200 token_expired), exchange 5 (401) and 1 more"
        );
        // A request recorded only as refusals misses, naming them.
        let missed = status(player.answer("pay/getInvoice", &params(&[("id", "9")])));
        assert_eq!(
            missed,
            Err(
                "no recording answers pay/getInvoice?id=9: its 2 recorded answer(s) were \
                 refusals the recording server made by its own OAuth (exchange 5 (401), \
                 exchange 6 (401)), which replay leaves out (the fake's OAuth accepted this \
                 call); the nearest is pay/getTimesheet?id=1 (exchange 2): the method is \
                 pay/getInvoice, pay/getTimesheet recorded; id is \"9\", \"1\" recorded"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_recording_of_refusals_only_is_empty_saying_why() {
        let error = Replay::from_exchanges([
            refusal("pay/getInvoice", &[("id", "9")], 401, ""),
            exchange("oauth/getAccessToken", &[], 200),
        ])
        .unwrap_err();
        assert!(
            matches!(&error, ReplayError::Empty { exchanges: 2, refused: 1, first_refused, .. }
                if first_refused == &["exchange 1 (401)"]),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            "no data exchange to replay in the exchanges given: 2 exchange(s) read, 1 of them \
             refusals the recording server made by its own OAuth (exchange 1 (401)), which \
             replay leaves out: the fake's OAuth decides those calls; the others the OAuth \
             endpoints' or refusals of requests outside the API, which the fake answers itself \
             (nothing replayed is not a pass: record the data calls the test makes)"
        );
        let error =
            Replay::from_exchanges([refusal("pay/getInvoice", &[], 400, "signature_invalid")])
                .unwrap_err();
        assert!(
            error.to_string().contains(
                "1 exchange(s) read, all of them refusals the recording server made by its own \
                 OAuth (exchange 1 (400 signature_invalid))"
            ),
            "{error}"
        );
    }
}
