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
//! recorder (`ClientBuilder::record`) gets what its response hooks get, already cleaned of the
//! call's own secrets (consumer secret, token secret, verifier, signature) in any encoding.
//! What is left is fit to commit: the recording of a test run holds no credential.
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
//! [`Recorder::flush`] and at the end. Files rotate by size ([`Rotation`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::hooks::ReceivedResponse;
use crate::input_file;
use crate::scrub::Scrubber;
use crate::secret::{self, REDACTED};

/// The format of a recording line; [`Exchange::format`] carries it, so that a reader can tell
/// a line of a later, incompatible format from a broken one.
pub const FORMAT: &str = "marketplace-recording/1";

/// The response headers a recording keeps (lower case): what an audit or a replay needs to
/// read the body and the service's clock and pacing. Nothing else is written.
pub const KEPT_HEADERS: [&str; 4] = ["content-type", "date", "retry-after", "content-length"];

/// At most this many exchanges wait for the writer; more are dropped (and counted).
pub const QUEUE_EXCHANGES: usize = 1024;

/// At most this many body bytes wait for the writer; more are dropped (and counted).
pub const QUEUE_BYTES: usize = 64 << 20;

/// How long the queue stays quiet before the writer flushes what it wrote to the file.
const FLUSH_AFTER: std::time::Duration = std::time::Duration::from_millis(50);

/// How long the writer lets a burst of exchanges gather after the first before it takes them.
const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(10);

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
        let mut exchange = Exchange::new(Side::Client, response.api_method(), response.status());
        exchange.time = response.sent_at();
        exchange.http_method = response.http_method().as_str().to_owned();
        exchange.path = response.url().path().to_owned();
        exchange.params = response
            .params()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        exchange.attempt = Some(response.attempt());
        exchange.latency_us =
            Some(u64::try_from(response.latency().as_micros()).unwrap_or(u64::MAX));
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
            None => exchange.note = Some("the client did not read the body".to_owned()),
        }
        exchange
    }

    /// Whether the method is an OAuth endpoint (`oauth/…`), whose answers hold credentials.
    fn is_oauth_endpoint(&self) -> bool {
        self.method.starts_with("oauth/")
    }

    /// The exchange without secrets, as a recorder writes it: `oauth_*` parameters dropped,
    /// secret-named ones blanked, only [`KEPT_HEADERS`], no body for a successful answer of an
    /// OAuth endpoint, and every text left cleaned by the scrubber every channel uses (see
    /// the module docs). Every field is named here, so a new one does not compile until it
    /// says how it is cleaned.
    pub fn redacted(self) -> Exchange {
        let scrubber = Scrubber::structural();
        let clean = |text: String| match scrubber.text(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(clean) => clean,
        };
        let oauth_success = self.is_oauth_endpoint() && (200..300).contains(&self.status);
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
        } = self;
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

    /// The exchange as one JSON line, without the line break.
    pub fn to_line(&self) -> String {
        // Serializing these fields cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads one line written by [`Exchange::to_line`].
    pub fn from_line(line: &str) -> Result<Exchange, String> {
        let exchange: Exchange = serde_json::from_str(line).map_err(|error| error.to_string())?;
        if exchange.format != FORMAT {
            return Err(format!(
                "format {:?}: this reader reads {FORMAT:?}",
                exchange.format
            ));
        }
        Ok(exchange)
    }

    /// The size of the body, for the queue's byte bound.
    fn weight(&self) -> usize {
        self.body.as_ref().map_or(0, String::len) + 256
    }
}

/// How a recording directory rotates: a new file when the current one would pass
/// `max_file_bytes`, and the oldest of this recorder's files deleted beyond `max_files`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// The size a file may reach (a line is never split: a longer line gets a file alone).
    pub max_file_bytes: u64,
    /// How many files a recorder keeps (at least 1).
    pub max_files: usize,
}

impl Default for Rotation {
    /// 16 MiB files, 8 of them.
    fn default() -> Self {
        Rotation {
            max_file_bytes: 16 << 20,
            max_files: 8,
        }
    }
}

/// What a recorder has done so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecorderStats {
    /// Exchanges written.
    pub written: u64,
    /// Exchanges dropped because the queue was full, or the writer had stopped.
    pub dropped: u64,
    /// Writes that failed (the exchange is lost; the recorder goes on with the next).
    pub write_errors: u64,
    /// The first write error, if any.
    pub first_error: Option<String>,
}

/// Writes exchanges as JSON lines on a thread of its own. Cloning shares the recorder; the
/// writer thread ends, after writing what is queued, when the last clone is dropped.
///
/// ```no_run
/// use marketplace_client::recording::{Recorder, Rotation};
///
/// let recorder = Recorder::to_dir("recordings", "client", Rotation::default())?;
/// // Client::builder(..).record(recorder.clone()); the fake: fake.record(recorder.clone())
/// recorder.flush()?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct Recorder {
    shared: Arc<Shared>,
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("stats", &self.stats())
            .finish()
    }
}

struct Shared {
    queue: Arc<Queue>,
    dropped: AtomicU64,
    progress: Arc<Mutex<RecorderStats>>,
    /// `None` when the writer thread could not start (then everything is dropped).
    thread: Option<JoinHandle<()>>,
}

/// The exchanges waiting for the writer. The writer sleeps until the first one arrives, then
/// lets the queue fill for [`BATCH_WINDOW`] and takes the whole batch: a burst of calls wakes
/// it once, not once per call (a wakeup costs the calls' cores more than the copy does).
#[derive(Default)]
struct Queue {
    state: Mutex<Waiting>,
    wake: Condvar,
}

#[derive(Default)]
struct Waiting {
    exchanges: VecDeque<Exchange>,
    bytes: usize,
    /// Callers of [`Recorder::flush`] waiting for everything before them to be written.
    flushes: Vec<SyncSender<()>>,
    /// The last recorder is gone: write what is left, then stop.
    closed: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Recorder {
    /// Records into `dir` (created if needed), in files named
    /// `{prefix}-{start, µs since 1970}-{process id}-{number}.jsonl`, which sort in the order written.
    pub fn to_dir(dir: impl AsRef<Path>, prefix: &str, rotation: Rotation) -> io::Result<Recorder> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir)?;
        let stem = format!(
            "{prefix}-{}-{}",
            Timestamp::now().as_microsecond(),
            std::process::id()
        );
        let sink = RotatingFiles {
            dir,
            stem,
            rotation: Rotation {
                max_files: rotation.max_files.max(1),
                ..rotation
            },
            number: 0,
            current: None,
            written: 0,
            files: Vec::new(),
        };
        Ok(Recorder::start(Box::new(sink)))
    }

    /// Records into any writer (a file, a `Vec<u8>` behind a mutex, a pipe), one line per
    /// exchange, without rotation.
    pub fn to_writer(writer: impl Write + Send + 'static) -> Recorder {
        Recorder::start(Box::new(OneWriter(BufWriter::new(writer))))
    }

    fn start(mut sink: Box<dyn Sink>) -> Recorder {
        let queue = Arc::new(Queue::default());
        let progress = Arc::new(Mutex::new(RecorderStats::default()));
        let thread = {
            let queue = Arc::clone(&queue);
            let progress = Arc::clone(&progress);
            std::thread::Builder::new()
                .name("wire-recorder".to_owned())
                .spawn(move || write_loop(&queue, sink.as_mut(), &progress))
        };
        // A thread that cannot start leaves a recorder that drops everything (and says so in
        // its stats) rather than failing the client that asked for it.
        let thread = match thread {
            Ok(thread) => Some(thread),
            Err(error) => {
                if let Ok(mut stats) = progress.lock() {
                    stats.first_error = Some(format!("cannot start the writer thread: {error}"));
                }
                queue.lock().closed = true;
                None
            }
        };
        Recorder {
            shared: Arc::new(Shared {
                queue,
                dropped: AtomicU64::new(0),
                progress,
                thread,
            }),
        }
    }

    /// Queues `exchange` for writing and returns at once; drops it when the queue is full.
    /// Secrets are removed on the writer thread, before anything is written.
    pub fn record(&self, exchange: Exchange) {
        let shared = &self.shared;
        let weight = exchange.weight();
        let mut waiting = shared.queue.lock();
        if waiting.closed
            || waiting.exchanges.len() >= QUEUE_EXCHANGES
            || waiting.bytes + weight > QUEUE_BYTES
        {
            drop(waiting);
            shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let first = waiting.exchanges.is_empty();
        waiting.exchanges.push_back(exchange);
        waiting.bytes += weight;
        drop(waiting);
        if first {
            shared.queue.wake.notify_one();
        }
    }

    /// Waits until everything queued before this call is written and flushed to the file or
    /// writer. Fails when the writer has stopped or a write failed.
    pub fn flush(&self) -> io::Result<()> {
        let (done, wait) = sync_channel(1);
        let stopped = || io::Error::other("the recorder's writer has stopped");
        {
            let mut waiting = self.shared.queue.lock();
            if waiting.closed {
                return Err(stopped());
            }
            waiting.flushes.push(done);
        }
        self.shared.queue.wake.notify_one();
        wait.recv().map_err(|_| stopped())?;
        match self.stats().first_error {
            Some(error) => Err(io::Error::other(error)),
            None => Ok(()),
        }
    }

    /// What the recorder has done so far.
    pub fn stats(&self) -> RecorderStats {
        let mut stats = self
            .shared
            .progress
            .lock()
            .map(|stats| stats.clone())
            .unwrap_or_default();
        stats.dropped += self.shared.dropped.load(Ordering::Relaxed);
        stats
    }
}

impl Drop for Shared {
    /// The last clone is gone: let the writer finish what is queued, and wait for it.
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn write_loop(queue: &Queue, sink: &mut dyn Sink, progress: &Mutex<RecorderStats>) {
    let note = |result: io::Result<()>, wrote: bool| {
        if let Ok(mut stats) = progress.lock() {
            match result {
                Ok(()) => stats.written += u64::from(wrote),
                Err(error) => {
                    stats.write_errors += 1;
                    stats.first_error.get_or_insert_with(|| error.to_string());
                }
            }
        }
    };
    // Lines reach the file when the buffer fills, on `Recorder::flush`, at the end, and once
    // the queue has been quiet for FLUSH_AFTER.
    let mut unflushed = false;
    loop {
        let mut waiting = queue.lock();
        while waiting.exchanges.is_empty() && waiting.flushes.is_empty() && !waiting.closed {
            if !unflushed {
                waiting = queue
                    .wake
                    .wait(waiting)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let (again, timeout) = queue
                .wake
                .wait_timeout(waiting, FLUSH_AFTER)
                .unwrap_or_else(PoisonError::into_inner);
            waiting = again;
            if timeout.timed_out() {
                drop(waiting);
                note(sink.flush(), false);
                unflushed = false;
                waiting = queue.lock();
            }
        }
        if waiting.flushes.is_empty() && !waiting.closed {
            // The first of a burst: let the rest of it join before writing.
            drop(waiting);
            std::thread::sleep(BATCH_WINDOW);
            waiting = queue.lock();
        }
        let batch = std::mem::take(&mut waiting.exchanges);
        waiting.bytes = 0;
        let flushes = std::mem::take(&mut waiting.flushes);
        let closed = waiting.closed;
        drop(waiting);
        for exchange in batch {
            let mut line = exchange.redacted().to_line();
            line.push('\n');
            note(sink.write_line(line.as_bytes()), true);
            unflushed = true;
        }
        if !flushes.is_empty() || closed {
            note(sink.flush(), false);
            unflushed = false;
            for done in flushes {
                let _ = done.send(());
            }
        }
        if closed && queue.lock().exchanges.is_empty() {
            return;
        }
    }
}

/// Where lines go.
trait Sink: Send {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()>;
    fn flush(&mut self) -> io::Result<()>;
}

struct OneWriter<W: Write>(BufWriter<W>);

impl<W: Write + Send> Sink for OneWriter<W> {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        self.0.write_all(line)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

struct RotatingFiles {
    dir: PathBuf,
    stem: String,
    rotation: Rotation,
    number: u32,
    current: Option<BufWriter<File>>,
    written: u64,
    files: Vec<PathBuf>,
}

impl RotatingFiles {
    fn open_next(&mut self) -> io::Result<()> {
        if let Some(mut file) = self.current.take() {
            file.flush()?;
        }
        self.number += 1;
        let path = self
            .dir
            .join(format!("{}-{:04}.jsonl", self.stem, self.number));
        let file = File::options().create_new(true).append(true).open(&path)?;
        self.current = Some(BufWriter::new(file));
        self.written = 0;
        self.files.push(path);
        while self.files.len() > self.rotation.max_files {
            let oldest = self.files.remove(0);
            fs::remove_file(&oldest)?;
        }
        Ok(())
    }
}

impl Sink for RotatingFiles {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let len = line.len() as u64;
        let full = self.written > 0 && self.written + len > self.rotation.max_file_bytes;
        if self.current.is_none() || full {
            self.open_next()?;
        }
        let file = self
            .current
            .as_mut()
            .ok_or_else(|| io::Error::other("no file"))?;
        file.write_all(line)?;
        self.written += len;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.current.as_mut().map_or(Ok(()), Write::flush)
    }
}

/// One exchange read back, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The file it was read from.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// The exchange.
    pub exchange: Exchange,
}

/// A recording that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A line is not an exchange of [`FORMAT`].
    #[error("{}:{line}: not a recorded exchange: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// The largest recording file [`read`] reads: sixteen times a rotated file of the default
/// [`Rotation`] (a line is never split, so one exchange with a body at the client's 32 MiB cap,
/// JSON-escaped, can make a file larger than its rotation size).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The most bytes [`read`] reads in all, over every file of a directory.
pub const MAX_TOTAL_BYTES: u64 = 1 << 30;

/// The most recording files [`read`] reads from one directory.
pub const MAX_FILES: usize = 4096;

/// Reads a recording: a `.jsonl` file, or every `.jsonl` file of a directory in name order
/// (the order a recorder wrote them). Blank lines are skipped; any other line that is not an
/// exchange is an error naming its file and line.
///
/// The input is untrusted and bounded before it is read: only regular files (a FIFO, a device
/// or a directory named `….jsonl` is refused, and a symbolic link is followed only to a file
/// of the same directory), at most [`MAX_FILE_BYTES`] each, [`MAX_FILES`] files and
/// [`MAX_TOTAL_BYTES`] in all.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<Recorded>, RecordingError> {
    let path = path.as_ref();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RecordingError::Io { path, source }
    };
    let (files, within) = if path.is_dir() {
        (
            input_file::files_in(path, "jsonl", MAX_FILES).map_err(io(path))?,
            Some(path),
        )
    } else {
        (vec![path.to_path_buf()], None)
    };
    let mut recorded = Vec::new();
    let mut total: u64 = 0;
    for file in files {
        let left = MAX_TOTAL_BYTES - total;
        let bytes = input_file::read_file(&file, within, MAX_FILE_BYTES.min(left)).map_err(
            |source| match source.kind() {
                io::ErrorKind::FileTooLarge if left < MAX_FILE_BYTES => RecordingError::Io {
                    path: file.clone(),
                    source: io::Error::new(
                        io::ErrorKind::FileTooLarge,
                        format!(
                            "the recording passes {MAX_TOTAL_BYTES} bytes in all with this file; \
                             audit fewer files at once"
                        ),
                    ),
                },
                _ => io(&file)(source),
            },
        )?;
        total += bytes.len() as u64;
        for (index, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
            let line_error = |message: String| RecordingError::Line {
                path: file.clone(),
                line: index + 1,
                message,
            };
            let line = std::str::from_utf8(line).map_err(|error| {
                line_error(format!(
                    "not UTF-8 (invalid byte at column {})",
                    error.valid_up_to() + 1
                ))
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let exchange = Exchange::from_line(line).map_err(line_error)?;
            recorded.push(Recorded {
                file: file.clone(),
                line: index + 1,
                exchange,
            });
        }
    }
    Ok(recorded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(body: &str) -> Exchange {
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
    fn a_recorder_writes_every_line_and_rotates_by_size() {
        let dir = std::env::temp_dir().join(format!(
            "recording-test-{}-{}",
            std::process::id(),
            Timestamp::now().as_nanosecond()
        ));
        let rotation = Rotation {
            max_file_bytes: 2_000,
            max_files: 3,
        };
        let recorder = Recorder::to_dir(&dir, "unit", rotation).unwrap();
        let body = format!(r#"{{"data":{{"pad":"{}"}}}}"#, "x".repeat(500));
        for _ in 0..20 {
            recorder.record(exchange(&body));
        }
        recorder.flush().unwrap();
        let stats = recorder.stats();
        assert_eq!((stats.written, stats.dropped), (20, 0), "{stats:?}");
        drop(recorder);
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 3, "{files:?}");
        for file in &files {
            assert!(fs::metadata(file).unwrap().len() <= 2_000);
        }
        // The newest files are kept: the last exchanges, whole, in order.
        let read = read(&dir).unwrap();
        assert!(read.len() >= 3 && read.len() < 20);
        assert!(
            read.iter()
                .all(|r| r.exchange.body.as_deref() == Some(body.as_str()))
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_that_is_not_an_exchange_is_named_by_file_and_line() {
        let dir = std::env::temp_dir().join(format!("recording-bad-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.jsonl");
        fs::write(
            &file,
            format!("{}\n\n{{\"status\": 200}}\n", exchange("{}").to_line()),
        )
        .unwrap();
        let error = read(&dir).unwrap_err().to_string();
        assert!(
            error.contains("a.jsonl:3: not a recorded exchange"),
            "{error}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_queue_drops_instead_of_blocking() {
        /// A writer that never finishes its first write until told.
        struct Stalled(std::sync::mpsc::Receiver<()>);
        impl Write for Stalled {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                let _ = self.0.recv();
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (release, stalled) = std::sync::mpsc::channel();
        let recorder = Recorder::to_writer(Stalled(stalled));
        // The writer takes at most one queue's worth and stalls on it; the queue holds
        // QUEUE_EXCHANGES more; everything after that is dropped, at once.
        for _ in 0..(3 * QUEUE_EXCHANGES) {
            recorder.record(exchange("{}"));
        }
        let stats = recorder.stats();
        // Released before any assertion: dropping the recorder waits for its writer.
        drop(release);
        assert!(stats.dropped >= QUEUE_EXCHANGES as u64, "{stats:?}");
        drop(recorder);
    }
}
