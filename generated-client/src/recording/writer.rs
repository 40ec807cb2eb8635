//! The recorder: a bounded queue that drops rather than blocks, one writer thread that takes
//! bursts as batches, cleans and writes them, and the files it writes, rotated by size.

use std::collections::VecDeque;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use jiff::Timestamp;

use super::{Exchange, Recorder};

/// At most this many exchanges wait for the writer; more are dropped (and counted).
pub const QUEUE_EXCHANGES: usize = 1024;

/// At most this many body bytes wait for the writer; more are dropped (and counted).
pub const QUEUE_BYTES: usize = 64 << 20;

/// How long the queue stays quiet before the writer flushes what it wrote to the file.
const FLUSH_AFTER: std::time::Duration = std::time::Duration::from_millis(50);

/// How long the writer lets a burst of exchanges gather after the first before it takes them.
const BATCH_WINDOW: std::time::Duration = std::time::Duration::from_millis(10);

impl Exchange {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::read;
    use crate::recording::tests::exchange;

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
