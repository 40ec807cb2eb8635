//! Runs the fake marketplace for manual use until Ctrl-C.
//!
//! ```text
//! cargo run -p marketplace-fake --bin fake-marketplace            # HTTPS
//! cargo run -p marketplace-fake --bin fake-marketplace -- --http  # plain HTTP
//! cargo run -p marketplace-fake --bin fake-marketplace -- --help  # the options, exit codes
//! ```
//!
//! Prints the base URL, the demo application's consumer key and secret, the demo users' logins
//! and password, and (for HTTPS) the path of the server certificate, e.g. for `curl --cacert`:
//! `certificate.pem` in a new directory of the temporary folder, private to the user
//! (`fake-marketplace-` and random digits), removed when the server stops.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use marketplace_client::files::{FileError, OutputDir};
use marketplace_fake::FakeMarketplace;

/// The command line.
#[derive(Parser)]
#[command(
    name = "fake-marketplace",
    about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C",
    long_about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C.\n\n\
                  Prints the base URL, the demo application's consumer key and secret, the demo \
                  users' logins and password, and (for HTTPS) the path of the server \
                  certificate, e.g. for curl --cacert: certificate.pem in a new directory of the \
                  temporary folder, private to the user, removed when the server stops.",
    after_help = "Examples:
  cargo run -p marketplace-fake --bin fake-marketplace            # HTTPS
  cargo run -p marketplace-fake --bin fake-marketplace -- --http  # plain HTTP

Exit codes:
  0  stopped with Ctrl-C (or help printed)
  1  the server failed: it could not start, write its certificate or wait for Ctrl-C
  2  usage error: an unknown option or argument"
)]
struct Options {
    /// Serve plain HTTP instead of HTTPS (a client must opt in to plain HTTP for OAuth, which
    /// it allows on loopback only)
    #[arg(long)]
    http: bool,
}

/// `text` with every control character but line feeds and tabs, and every
/// bidirectional-text control, written as `\u{…}`, as the project's tools print untrusted
/// text: clap's errors quote the arguments as typed.
fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            let control = (c.is_control() && c != '\n' && c != '\t')
                || matches!(
                    c,
                    '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
                );
            if control {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[tokio::main]
async fn main() -> ExitCode {
    let plain_http = match Options::try_parse() {
        Ok(options) => options.http,
        Err(error) => {
            // Help (standard output, 0) or a usage error (standard error, 2), as plain text.
            let text = escape_controls(&error.render().to_string());
            if error.use_stderr() {
                eprint!("{text}");
                return ExitCode::from(2);
            }
            print!("{text}");
            return ExitCode::SUCCESS;
        }
    };
    let started = if plain_http {
        FakeMarketplace::start_plain_http().await
    } else {
        FakeMarketplace::start().await
    };
    let fake = match started {
        Ok(fake) => fake,
        Err(error) => {
            eprintln!("fake-marketplace: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let credentials = fake.credentials();
    println!("base URL:        {}", fake.base_url());
    println!("consumer key:    {}", credentials.consumer_key);
    println!("consumer secret: {}", credentials.consumer_secret);
    println!("password:        {}", credentials.password);
    println!("logins:          {}", credentials.logins.join(", "));
    // The certificate goes into a fresh directory of the temporary folder that only this
    // user can read and nobody could name in advance, so no link planted there can take it.
    let certificate = if plain_http {
        None
    } else {
        match write_certificate(fake.certificate_pem()) {
            Ok(written) => {
                println!("certificate:     {}", written.path().display());
                Some(written)
            }
            Err(error) => {
                eprintln!("fake-marketplace: cannot write the certificate: {error}");
                return ExitCode::FAILURE;
            }
        }
    };
    // Listening for Ctrl-C before saying so: a Ctrl-C right after the line stops it cleanly.
    let interrupted = interrupted();
    println!("Ctrl-C stops the server.");
    let waited = match interrupted {
        Ok(interrupted) => {
            interrupted.await;
            Ok(())
        }
        Err(error) => Err(error),
    };
    if let Some(certificate) = certificate {
        if let Err(error) = certificate.remove() {
            eprintln!("fake-marketplace: {error}");
        }
    }
    if let Err(error) = waited {
        eprintln!("fake-marketplace: cannot wait for Ctrl-C: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The certificate written in its private directory.
struct Certificate {
    /// The temporary folder.
    parent: OutputDir,
    /// The private directory's name in it.
    dir: PathBuf,
    path: PathBuf,
}

impl Certificate {
    fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the private directory and the certificate in it.
    fn remove(self) -> Result<(), FileError> {
        self.parent.remove_all(&self.dir)
    }
}

/// Writes `pem` as `certificate.pem` in a new private directory of the temporary folder.
fn write_certificate(pem: &str) -> Result<Certificate, FileError> {
    let parent = OutputDir::open(std::env::temp_dir())?;
    let private = parent.create_private("fake-marketplace-")?;
    let name = "certificate.pem";
    let dir = PathBuf::from(private.path().file_name().unwrap_or_default());
    if let Err(error) = private.write(name, pem) {
        let _ = parent.remove_all(&dir);
        return Err(error);
    }
    Ok(Certificate {
        path: private.path().join(name),
        parent,
        dir,
    })
}

/// Ctrl-C, listened for from now on.
#[cfg(unix)]
fn interrupted() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        interrupt.recv().await;
    })
}

/// Ctrl-C, listened for from the first wait.
#[cfg(not(unix))]
fn interrupted() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
