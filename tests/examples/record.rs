//! Records a reading of the fake's hourly workroom, as the client received it, into the
//! recording the replay suite and the app's tests play back:
//!
//! ```sh
//! cargo run -p marketplace-tests --example record -- tests/app/tests/recordings/workroom.jsonl
//! cargo xtask wire-audit tests/app/tests/recordings   # audit before committing
//! ```
//!
//! (That path is the committed recording: writing it replaces it. `--help` says more.)
//!
//! The fake varies its spellings (seed [`SEED`]), so the recording holds mixed spellings, as
//! traffic recorded against a deployment does. The client's recorder keeps no OAuth value and
//! no credential (see `marketplace_client::recording`); the OAuth exchanges are recorded
//! without their bodies, and replay leaves them out.

use std::error::Error;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use clap::Parser;

use marketplace_client::files::OutputDir;
use marketplace_client::recording::Recorder;
use marketplace_tests::fake::{FakeMarketplace, Spellings};
use marketplace_tests::workroom_reading::read_workroom;

/// The spelling seed of the committed recording.
const SEED: u64 = 2026;

/// Records a reading of the fake's hourly workroom (the OAuth flow, then its timesheets, an
/// invoice and its providers), as the client received it, into a recording of JSON lines that
/// the fake replays (`marketplace_fake::Replay`) and `cargo xtask wire-audit` audits.
#[derive(Parser)]
#[command(
    name = "record",
    after_help = "Example:\n  cargo run -p marketplace-tests --example record -- \
                  recordings/workroom.jsonl\n  cargo xtask wire-audit recordings\n\n\
                  Exit codes: 0 recorded; 1 the recording failed (nothing is written); 2 usage \
                  error."
)]
struct Arguments {
    /// The recording to write (JSON lines). Its directory is created when missing; a file
    /// already there is replaced whole, only once the reading succeeded.
    recording: PathBuf,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let path = Arguments::parse().recording;
    match record(&path).await {
        Ok(count) => {
            println!("recorded {count} exchanges to {}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("recording stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn record(path: &Path) -> Result<u64, Box<dyn Error>> {
    let fake = FakeMarketplace::start().await?;
    fake.set_spellings(Spellings::Varied { seed: SEED });
    let workroom = fake.world().hourly_workroom();
    let login = fake
        .world()
        .user(workroom.client)
        .ok_or("the hourly workroom's client is a seeded user")?
        .login
        .clone();
    // Kept in memory, then written whole through the one writer (a temporary file renamed
    // over the old one), so a failed run leaves the old file.
    let lines = Lines::default();
    let recorder = Recorder::to_writer(lines.clone());
    let client = fake.client_builder().record(recorder.clone()).build()?;
    let session = fake.sign_in(&client, &login).await?;
    let invoice = *workroom
        .invoices
        .first()
        .ok_or("the workroom has invoices")?;
    read_workroom(&session, workroom.bid_id, invoice).await?;
    recorder.flush()?;
    let stats = recorder.stats();
    let name = path.file_name().ok_or("the recording needs a file name")?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let recorded = lines
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    OutputDir::create(dir)?.write(name, recorded)?;
    Ok(stats.written)
}

/// The recorder's lines, in memory.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut lines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        lines.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
