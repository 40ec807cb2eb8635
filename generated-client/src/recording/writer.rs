//! The recorder: a bounded queue that drops rather than blocks, one writer thread that takes
//! bursts as batches, cleans and writes them, and the files it writes, rotated by size, each
//! published whole through [`crate::files`].

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use jiff::Timestamp;

use super::{Answer, Exchange, Recorder};
use crate::files::{OutputDir, PendingFile};

/// At most this many exchanges wait for the writer; more are dropped (and counted).
pub const QUEUE_EXCHANGES: usize = 1024;

/// At most this many body bytes wait for the writer; more are dropped (and counted).
pub const QUEUE_BYTES: usize = 64 << 20;

/// How long the queue stays quiet before the writer flushes what it wrote to the file.
const FLUSH_AFTER: std::time::Duration = std::time::Duration::from_millis(50);

/// How long the writer lets a burst of exchanges gather after the first before it takes them.
const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(10);

/// What waits for the writer: an exchange, or a client's answer still to clean.
enum Queued {
    Exchange(Exchange),
    Answer(Answer),
}

impl Queued {
    /// The size of the body and a bit, for the queue's byte bound.
    fn weight(&self) -> usize {
        256 + match self {
            Queued::Exchange(exchange) => exchange.body.as_ref().map_or(0, String::len),
            Queued::Answer(answer) => answer.body_len(),
        }
    }

    /// The line written: cleaned (a client's answer first as its hooks would see it), then
    /// redacted.
    fn into_line(self) -> String {
        let exchange = match self {
            Queued::Exchange(exchange) => exchange.redacted(),
            Queued::Answer(answer) => answer.into_redacted(),
        };
        let mut line = exchange.to_line();
        line.push('\n');
        line
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
    /// Exchanges written: handed to the writer and flushed, or in a file published whole
    /// ([`Recorder::to_dir`]). An exchange counts here once it is there, at the latest at
    /// [`Recorder::flush`].
    pub written: u64,
    /// Exchanges dropped because the queue was full, or the writer had stopped (a writer that
    /// panicked: everything not yet written then, and everything recorded after).
    pub dropped: u64,
    /// Exchanges lost to a failed write: the one being written, and those written since the
    /// last flush that the failure let go of (the recorder goes on with the next).
    pub write_errors: u64,
    /// The first write error, if any, or why the writer stopped.
    pub first_error: Option<String>,
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("stats", &self.stats())
            .finish()
    }
}

/// What every clone of a [`Recorder`] shares.
pub(super) struct Shared {
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
    exchanges: VecDeque<Queued>,
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
    /// `{prefix}-{start, µs since 1970}-{process id}-{number}.jsonl`, which sort in the order
    /// written. Each file appears whole: it is written as a temporary file in `dir` and
    /// renamed into place (through [`crate::files`]: a link planted at its name is replaced,
    /// never followed) when the next line would pass the rotation size, at
    /// [`Recorder::flush`], and when the last clone of the recorder is dropped; the next line
    /// then starts the next file. A process killed before then leaves no file of its own; one
    /// killed in the instant a file is put in place can leave it, whole, under a random name
    /// beside it (no `.jsonl`: [`read`](super::read) of the directory leaves it out).
    pub fn to_dir(dir: impl AsRef<Path>, prefix: &str, rotation: Rotation) -> io::Result<Recorder> {
        let dir = OutputDir::create(dir)?;
        let stem = format!("{prefix}-{}-{}", unique_start(), std::process::id());
        let rotation = Rotation {
            max_files: rotation.max_files.max(1),
            ..rotation
        };
        Ok(Recorder::start(Target::Dir {
            dir,
            stem,
            rotation,
        }))
    }

    /// Records into any writer (a file, a `Vec<u8>` behind a mutex, a pipe), one line per
    /// exchange, without rotation.
    pub fn to_writer(writer: impl Write + Send + 'static) -> Recorder {
        Recorder::start(Target::Writer(Box::new(writer)))
    }

    fn start(target: Target) -> Recorder {
        let queue = Arc::new(Queue::default());
        let progress = Arc::new(Mutex::new(RecorderStats::default()));
        let thread = {
            let queue = Arc::clone(&queue);
            let progress = Arc::clone(&progress);
            std::thread::Builder::new()
                .name("wire-recorder".to_owned())
                .spawn(move || {
                    yield_to_the_calls();
                    match target {
                        // The files borrow the directory, which lives on this thread's stack.
                        Target::Dir {
                            dir,
                            stem,
                            rotation,
                        } => {
                            let mut sink = RotatingFiles::new(&dir, stem, rotation);
                            write_or_stop(&queue, &mut sink, &progress);
                        }
                        Target::Writer(writer) => {
                            write_or_stop(&queue, &mut OneWriter::new(writer), &progress);
                        }
                    }
                })
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
        self.queue(Queued::Exchange(exchange));
    }

    /// Queues a client's answer (`ClientBuilder::record`), cleaned on the writer thread.
    pub(crate) fn record_answer(&self, answer: Answer) {
        self.queue(Queued::Answer(answer));
    }

    fn queue(&self, exchange: Queued) {
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

    /// Waits until everything queued before this call is written and flushed to the writer,
    /// or written and published in a file of the recording directory ([`Recorder::to_dir`]).
    /// Fails when the writer has stopped or a write failed.
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

/// How much the writer yields to the app's threads, as nice values above the app's: cleaning and writing
/// the exchanges is work nobody waits for, and on a busy machine it should not take a core
/// from the calls it records. Still scheduled, a tenth of a normal thread's share under full
/// load, so a recording falls behind there only in bursts, which the queue holds (or drops,
/// counted in [`RecorderStats::dropped`]).
const WRITER_NICE: i32 = 10;

/// Lowers the calling thread's priority by [`WRITER_NICE`] where the system has per-thread
/// nice values (Linux); elsewhere, or if refused, the writer runs at the app's priority.
fn yield_to_the_calls() {
    #[cfg(target_os = "linux")]
    {
        // Linux applies PRIO_PROCESS to the one thread whose id is given. Relative to the
        // app's own value (19 the lowest priority there is).
        let thread = Some(rustix::thread::gettid());
        if let Ok(now) = rustix::process::getpriority_process(thread) {
            let _ = rustix::process::setpriority_process(
                thread,
                now.saturating_add(WRITER_NICE).min(19),
            );
        }
    }
}

/// [`write_loop`], and when the writer panics (an app's `Write` may): the recorder stops as
/// one whose thread could not start. Its queue is closed, so that every flush waiting or to
/// come fails at once rather than waiting for a thread that is gone, and what was not written
/// is counted dropped.
fn write_or_stop(queue: &Queue, sink: &mut dyn Sink, progress: &Mutex<RecorderStats>) {
    let wrote = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        write_loop(queue, sink, progress);
    }));
    if wrote.is_ok() {
        return;
    }
    let mut waiting = queue.lock();
    waiting.closed = true;
    let queued = waiting.exchanges.len() as u64;
    waiting.exchanges.clear();
    waiting.bytes = 0;
    // Their senders dropped: each waiting flush returns its error.
    waiting.flushes.clear();
    drop(waiting);
    let mut stats = progress.lock().unwrap_or_else(PoisonError::into_inner);
    stats.dropped += queued + sink.unconfirmed();
    stats
        .first_error
        .get_or_insert_with(|| "the recorder's writer panicked".to_owned());
}

fn write_loop(queue: &Queue, sink: &mut dyn Sink, progress: &Mutex<RecorderStats>) {
    let note = |result: io::Result<()>, sink: &mut dyn Sink| {
        let Counts { confirmed, lost } = sink.take_counts();
        let mut stats = progress.lock().unwrap_or_else(PoisonError::into_inner);
        stats.written += confirmed;
        stats.write_errors += lost;
        if let Err(error) = result {
            stats.first_error.get_or_insert_with(|| error.to_string());
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
                let settled = sink.settle();
                note(settled, sink);
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
            let line = exchange.into_line();
            let wrote = sink.write_line(line.as_bytes());
            note(wrote, sink);
            unflushed = true;
        }
        if !flushes.is_empty() || closed {
            let flushed = sink.flush();
            note(flushed, sink);
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

/// What a recorder writes to, handed to its thread.
enum Target {
    Dir {
        dir: OutputDir,
        stem: String,
        rotation: Rotation,
    },
    Writer(Box<dyn Write + Send>),
}

/// A start time for a recorder's file names that no other recorder of this process has: the
/// clock's microseconds, or one past the last one given.
fn unique_start() -> i64 {
    static LAST: AtomicI64 = AtomicI64::new(i64::MIN);
    let now = Timestamp::now().as_microsecond();
    let previous = LAST
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
            Some(now.max(last.saturating_add(1)))
        })
        .unwrap_or(now);
    now.max(previous.saturating_add(1))
}

/// Where lines go. Each sink counts its lines: written but not yet known to be in place,
/// then confirmed (flushed to the writer, or in a published file) or lost (a failed write let
/// go of them, so that none of them arrives later).
trait Sink {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()>;
    /// The queue has been quiet: hand buffered lines down.
    fn settle(&mut self) -> io::Result<()>;
    /// A flush was asked for, or the recorder closes: everything written and visible.
    fn flush(&mut self) -> io::Result<()>;
    /// The lines confirmed and lost since last asked.
    fn take_counts(&mut self) -> Counts;
    /// The lines written, neither confirmed nor lost.
    fn unconfirmed(&self) -> u64;
}

/// Lines confirmed and lost (see [`Sink`]).
#[derive(Default)]
struct Counts {
    confirmed: u64,
    lost: u64,
}

/// An app's writer, buffered.
struct OneWriter<W: Write> {
    /// `None` only while its buffer is being let go of.
    out: Option<BufWriter<W>>,
    /// Lines in the buffer, or handed to the writer but not flushed.
    unflushed: u64,
    /// A write failed: the writer may hold part of a line, which the next line must not
    /// continue (it starts on a line of its own; a reader skips an empty one).
    after_failure: bool,
    counts: Counts,
}

impl<W: Write> OneWriter<W> {
    fn new(writer: W) -> Self {
        OneWriter {
            out: Some(BufWriter::new(writer)),
            unflushed: 0,
            after_failure: false,
            counts: Counts::default(),
        }
    }

    fn out(&mut self) -> io::Result<&mut BufWriter<W>> {
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("the recorder's writer is gone"))
    }

    /// After a failed write: the unflushed lines are lost, and what the buffer holds of them is
    /// dropped (a later flush would otherwise write lines counted lost).
    fn let_go(&mut self) {
        self.counts.lost += std::mem::take(&mut self.unflushed);
        self.after_failure = true;
        if let Some(out) = self.out.take() {
            let (writer, _dropped) = out.into_parts();
            self.out = Some(BufWriter::new(writer));
        }
    }

    fn flushed(&mut self) -> io::Result<()> {
        match self.out()?.flush() {
            Ok(()) => {
                self.counts.confirmed += std::mem::take(&mut self.unflushed);
                Ok(())
            }
            Err(error) => {
                self.let_go();
                Err(error)
            }
        }
    }
}

impl<W: Write> Sink for OneWriter<W> {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let new_line: &[u8] = if std::mem::take(&mut self.after_failure) {
            b"\n"
        } else {
            b""
        };
        let out = self.out()?;
        match out.write_all(new_line).and_then(|()| out.write_all(line)) {
            Ok(()) => {
                self.unflushed += 1;
                Ok(())
            }
            Err(error) => {
                self.counts.lost += 1;
                self.let_go();
                Err(error)
            }
        }
    }

    fn settle(&mut self) -> io::Result<()> {
        self.flushed()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flushed()
    }

    fn take_counts(&mut self) -> Counts {
        std::mem::take(&mut self.counts)
    }

    fn unconfirmed(&self) -> u64 {
        self.unflushed
    }
}

/// The files of a recording directory: the one being written is pending until published.
struct RotatingFiles<'d> {
    dir: &'d OutputDir,
    stem: String,
    rotation: Rotation,
    number: u32,
    /// The file being written: its name, and its lines so far.
    current: Option<(String, BufWriter<PendingFile<'d>>)>,
    /// The bytes and lines in the current file.
    written: u64,
    lines: u64,
    counts: Counts,
    /// The files published, oldest first.
    published: VecDeque<String>,
}

impl<'d> RotatingFiles<'d> {
    fn new(dir: &'d OutputDir, stem: String, rotation: Rotation) -> Self {
        RotatingFiles {
            dir,
            stem,
            rotation,
            number: 0,
            current: None,
            written: 0,
            lines: 0,
            counts: Counts::default(),
            published: VecDeque::new(),
        }
    }

    fn open_next(&mut self) -> io::Result<()> {
        self.number += 1;
        let name = format!("{}-{:04}.jsonl", self.stem, self.number);
        let file = self.dir.pending(&name)?;
        self.current = Some((name, BufWriter::new(file)));
        self.written = 0;
        Ok(())
    }

    /// Renames the current file into place, then deletes the oldest beyond `max_files`.
    fn publish(&mut self) -> io::Result<()> {
        let Some((name, file)) = self.current.take() else {
            return Ok(());
        };
        let lines = std::mem::take(&mut self.lines);
        let published = file
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
            .and_then(|file| file.publish().map_err(io::Error::from));
        if let Err(error) = published {
            self.counts.lost += lines;
            return Err(error);
        }
        self.counts.confirmed += lines;
        self.published.push_back(name);
        while self.published.len() > self.rotation.max_files {
            if let Some(oldest) = self.published.pop_front() {
                self.dir.remove(&oldest)?;
            }
        }
        Ok(())
    }

    /// After a failed write to the current file: it is dropped (never published), its lines
    /// lost.
    fn let_go(&mut self) {
        self.current = None;
        self.counts.lost += std::mem::take(&mut self.lines);
    }

    fn write_to_current(&mut self, line: &[u8]) -> io::Result<()> {
        let len = line.len() as u64;
        if self.written > 0 && self.written + len > self.rotation.max_file_bytes {
            self.publish()?;
        }
        if self.current.is_none() {
            self.open_next()?;
        }
        let (_, file) = self
            .current
            .as_mut()
            .ok_or_else(|| io::Error::other("no file"))?;
        if let Err(error) = file.write_all(line) {
            self.let_go();
            return Err(error);
        }
        self.written += len;
        self.lines += 1;
        Ok(())
    }
}

impl Sink for RotatingFiles<'_> {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let wrote = self.write_to_current(line);
        if wrote.is_err() {
            self.counts.lost += 1;
        }
        wrote
    }

    fn settle(&mut self) -> io::Result<()> {
        let settled = self
            .current
            .as_mut()
            .map_or(Ok(()), |(_, file)| file.flush());
        if settled.is_err() {
            self.let_go();
        }
        settled
    }

    fn flush(&mut self) -> io::Result<()> {
        self.publish()
    }

    fn take_counts(&mut self) -> Counts {
        std::mem::take(&mut self.counts)
    }

    fn unconfirmed(&self) -> u64 {
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::read;
    use crate::recording::tests::exchange;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_recorder_writes_every_line_and_rotates_by_size() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("recording");
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
        let files = names(&dir);
        assert_eq!(files.len(), 3, "{files:?}");
        for file in &files {
            assert!(std::fs::metadata(dir.join(file)).unwrap().len() <= 2_000);
        }
        // The newest files are kept: the last exchanges, whole, in order.
        let read = read(&dir).unwrap();
        assert!(read.len() >= 3 && read.len() < 20);
        assert!(
            read.iter()
                .all(|r| r.exchange.body.as_deref() == Some(body.as_str()))
        );
    }

    #[test]
    fn a_file_appears_only_whole_at_rotation_flush_and_close() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("recording");
        let rotation = Rotation {
            max_file_bytes: 1 << 20,
            max_files: 8,
        };
        let recorder = Recorder::to_dir(&dir, "whole", rotation).unwrap();
        recorder.record(exchange("{}"));
        // Written, not yet published: the directory shows nothing (the temporary file is
        // anonymous, or hidden under a name without `.jsonl`).
        std::thread::sleep(FLUSH_AFTER * 4);
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
        recorder.flush().unwrap();
        assert_eq!(read(&dir).unwrap().len(), 1);
        assert_eq!(names(&dir).len(), 1, "{:?}", names(&dir));
        // The next line starts the next file, published when the last clone goes.
        let clone = recorder.clone();
        drop(recorder);
        clone.record(exchange("{}"));
        drop(clone);
        assert_eq!(read(&dir).unwrap().len(), 2);
        assert_eq!(names(&dir).len(), 2, "{:?}", names(&dir));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_a_file_name_is_replaced_and_what_it_points_to_is_untouched() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("recording");
        let outside = temp.path().join("outside.txt");
        crate::files::OutputDir::open(temp.path())
            .unwrap()
            .write("outside.txt", "kept")
            .unwrap();
        let recorder = Recorder::to_dir(&dir, "linked", Rotation::default()).unwrap();
        // The recorder's names are predictable once its first file is published: plant a link
        // at the next one.
        recorder.record(exchange("{}"));
        recorder.flush().unwrap();
        let first = names(&dir).remove(0);
        let stem = first.strip_suffix("-0001.jsonl").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join(format!("{stem}-0002.jsonl"))).unwrap();
        recorder.record(exchange("{}"));
        recorder.flush().unwrap();
        drop(recorder);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept");
        let second = dir.join(format!("{stem}-0002.jsonl"));
        assert!(std::fs::symlink_metadata(&second).unwrap().is_file());
        assert_eq!(read(&dir).unwrap().len(), 2);
    }

    #[test]
    fn a_failed_publish_leaves_nothing_and_is_counted() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("recording");
        let recorder = Recorder::to_dir(&dir, "blocked", Rotation::default()).unwrap();
        recorder.record(exchange("{}"));
        recorder.flush().unwrap();
        let first = names(&dir).remove(0);
        // A non-empty directory at the next file's name: publishing fails, for root too.
        let next = first.replace("-0001.jsonl", "-0002.jsonl");
        let out = crate::files::OutputDir::open(&dir).unwrap();
        out.write(format!("{next}/inside"), "x").unwrap();
        recorder.record(exchange("{}"));
        let error = recorder.flush().unwrap_err().to_string();
        assert!(
            error.contains(&next) && error.contains("directory"),
            "{error}"
        );
        drop(recorder);
        assert_eq!(names(&dir), [first, next.clone()]);
        assert_eq!(names(&dir.join(&next)), ["inside"]);
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

    /// The writer's nice value, read from outside (the kernel's view of each thread named
    /// `wire-recorder`), against the test thread's own.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_writer_runs_below_the_priority_of_the_thread_that_made_it() {
        let recorder = Recorder::to_writer(io::sink());
        // Written once: the writer has started and set its priority.
        recorder.record(Exchange::new(
            super::super::Side::Client,
            "pay/getInvoice",
            200,
        ));
        recorder.flush().unwrap();
        let own = rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        let mut writers = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let stat = std::fs::read_to_string(task.unwrap().path().join("stat")).unwrap();
            // `tid (comm) state ppid …`: the nice value is field 19, the 17th after the name.
            let (name, fields) = stat.rsplit_once(") ").unwrap();
            if name.ends_with("(wire-recorder") {
                let nice: i32 = fields.split(' ').nth(16).unwrap().parse().unwrap();
                writers.push(nice);
            }
        }
        assert!(!writers.is_empty(), "no writer thread found");
        for nice in writers {
            assert_eq!(nice, (own + WRITER_NICE).min(19));
        }
        drop(recorder);
    }
}
