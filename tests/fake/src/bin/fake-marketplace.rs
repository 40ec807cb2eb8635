//! Runs the fake marketplace for manual use until Ctrl-C.
//!
//! ```text
//! cargo run -p marketplace-fake --bin fake-marketplace                 # HTTPS, a free port
//! cargo run -p marketplace-fake --bin fake-marketplace -- --http       # plain HTTP
//! cargo run -p marketplace-fake --bin fake-marketplace -- --port 8443  # the same URL each time
//! cargo run -p marketplace-fake --bin fake-marketplace -- --help       # the options, exit codes
//! ```
//!
//! Prints the base URL, the demo application's consumer key and secret, the demo users' logins
//! and password, (for HTTPS) the path of the server certificate, e.g. for `curl --cacert`:
//! `certificate.pem` in a new directory of the temporary folder, private to the user
//! (`fake-marketplace-` and random digits), removed when the server stops; then the seeded
//! workrooms (each bid ID, its kind, its client's and provider's logins: a workroom answers
//! only them) and how approving in a browser ends.

// Every line goes through `say`, `complain` or `write_out`, which a closed output cannot
// make panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::io;
use std::io::Write;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use marketplace_client::files::{FileError, OutputDir};
use marketplace_fake::{FakeMarketplace, Spellings, World};

/// The command line.
#[derive(Parser)]
#[command(
    name = "fake-marketplace",
    about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C",
    long_about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C.\n\n\
                  Prints the base URL, the demo application's consumer key and secret, the demo \
                  users' logins and password, (for HTTPS) the path of the server certificate, \
                  e.g. for curl --cacert: certificate.pem in a new directory of the temporary \
                  folder, private to the user, removed when the server stops; then the seeded \
                  workrooms (each bid ID, its kind, its client's and provider's logins: a \
                  workroom answers only those two users) and how approving in a browser ends.",
    after_help = "Examples:
  cargo run -p marketplace-fake --bin fake-marketplace                 # HTTPS, a free port
  cargo run -p marketplace-fake --bin fake-marketplace -- --http       # plain HTTP
  cargo run -p marketplace-fake --bin fake-marketplace -- --port 8443  # https://127.0.0.1:8443 on every start

Exit codes:
  0  stopped with Ctrl-C, SIGTERM or SIGHUP (or help printed)
  1  the server failed: it could not start, write its certificate or wait for Ctrl-C
  2  usage error: an unknown option or argument, a --port that cannot be listened on (in use, or reserved), or a MARKETPLACE_FAKE_SPELLING_SEED that is not a seed"
)]
struct Options {
    /// Serve plain HTTP instead of HTTPS (a client must opt in to plain HTTP for OAuth, which
    /// it allows on loopback only)
    #[arg(long)]
    http: bool,
    /// Listen on this port of 127.0.0.1, the same on every start, so that an app configured
    /// with the base URL keeps working after a restart (0, or no --port: a free port the OS
    /// chooses)
    #[arg(long, value_name = "PORT")]
    port: Option<u16>,
}

/// How approving in a browser ends, for an app's author signing in by hand.
const BROWSER: &str = "after Approve, the browser goes to the app's callback URL (e.g. \
                       myapp://callback?oauth_token=...&oauth_verifier=...), which it cannot \
                       open: copy that URL from the address bar into the app; with the callback \
                       oob, the page shows the verifier instead";

/// `text` with every control character but line feeds, and every
/// bidirectional-text control, written as `\u{…}`, as the project's tools print untrusted
/// text: clap's errors quote the arguments as typed.
fn escape_controls(text: &str) -> String {
    escape(text, false)
}

/// One line of what the binary says, with the values in it (a path of the environment's
/// temporary folder, an error naming one) untrusted: every control character written as
/// `\u{…}`, line feeds too, so a value can neither move the cursor nor start a line.
fn line(text: impl std::fmt::Display) -> String {
    escape(&text.to_string(), true)
}

fn escape(text: &str, line_feeds: bool) -> String {
    text.chars()
        .map(|c| {
            let control = (c.is_control() && (c != '\n' || line_feeds))
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
    let options = match Options::try_parse() {
        Ok(options) => options,
        Err(error) => {
            // Help (standard output, 0) or a usage error (standard error, 2), as plain text.
            let text = escape_controls(&error.render().to_string());
            if error.use_stderr() {
                write_out(&mut std::io::stderr(), &text);
                return ExitCode::from(2);
            }
            write_out(&mut std::io::stdout(), &text);
            return ExitCode::SUCCESS;
        }
    };
    // The environment is input too: a spelling seed that is none is a usage error, before
    // anything starts.
    if let Err(error) = Spellings::from_env() {
        complain(line(format_args!("fake-marketplace: {error}")));
        return ExitCode::from(2);
    }
    let plain_http = options.http;
    let listener = match listen(options.port.unwrap_or(0)) {
        Ok(listener) => listener,
        Err((code, message)) => {
            complain(line(format_args!("fake-marketplace: {message}")));
            return code;
        }
    };
    let started = if plain_http {
        FakeMarketplace::start_plain_http_on(listener).await
    } else {
        FakeMarketplace::start_on(listener).await
    };
    let fake = match started {
        Ok(fake) => fake,
        Err(error) => {
            complain(line(format_args!(
                "fake-marketplace: cannot start: {error}"
            )));
            return ExitCode::FAILURE;
        }
    };
    let credentials = fake.credentials();
    say(line(format_args!("base URL:        {}", fake.base_url())));
    say(line(format_args!(
        "consumer key:    {}",
        credentials.consumer_key
    )));
    say(line(format_args!(
        "consumer secret: {}",
        credentials.consumer_secret
    )));
    say(line(format_args!(
        "password:        {}",
        credentials.password
    )));
    say(line(format_args!(
        "logins:          {}",
        credentials.logins.join(", ")
    )));
    // The certificate goes into a fresh directory of the temporary folder that only this
    // user can read and nobody could name in advance, so no link planted there can take it.
    let certificate = if plain_http {
        None
    } else {
        match write_certificate(fake.certificate_pem()) {
            Ok(written) => {
                say(line(format_args!(
                    "certificate:     {}",
                    written.path().display()
                )));
                Some(written)
            }
            Err(error) => {
                complain(line(format_args!(
                    "fake-marketplace: cannot write the certificate: {error}"
                )));
                return ExitCode::FAILURE;
            }
        }
    };
    for text in workrooms(fake.world()) {
        say(line(text));
    }
    say(line(format_args!("in a browser:    {BROWSER}")));
    // Listening for Ctrl-C before saying so: a Ctrl-C right after the line stops it cleanly.
    let interrupted = interrupted();
    say("Ctrl-C stops the server.");
    let waited = match interrupted {
        Ok(interrupted) => {
            interrupted.await;
            Ok(())
        }
        Err(error) => Err(error),
    };
    if let Some(certificate) = certificate {
        if let Err(error) = certificate.remove() {
            complain(line(format_args!("fake-marketplace: {error}")));
        }
    }
    if let Err(error) = waited {
        complain(line(format_args!(
            "fake-marketplace: cannot wait for Ctrl-C: {error}"
        )));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Writes `text` whole: an output closed early (`fake-marketplace | head`) is not the
/// server's failure, so what could not be written is dropped, never a panic (`println!`
/// panics there, which clippy refuses in this file).
fn write_out(out: &mut dyn Write, text: &str) {
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// One line of what the binary says, on standard output (see [`write_out`]).
fn say(text: impl std::fmt::Display) {
    write_out(&mut std::io::stdout(), &format!("{text}\n"));
}

/// One line of what went wrong, on standard error (see [`write_out`]).
fn complain(text: impl std::fmt::Display) {
    write_out(&mut std::io::stderr(), &format!("{text}\n"));
}

/// The socket on `port` of 127.0.0.1 (0: one the OS chooses). A port given that cannot be
/// listened on (in use, reserved for the system) is a usage error (exit 2) naming it; any other
/// failure is the server's (exit 1).
fn listen(port: u16) -> Result<TcpListener, (ExitCode, String)> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|error| {
        if port == 0 {
            return (
                ExitCode::FAILURE,
                format!("cannot listen on 127.0.0.1: {error}"),
            );
        }
        let usage = matches!(
            error.kind(),
            io::ErrorKind::AddrInUse
                | io::ErrorKind::PermissionDenied
                | io::ErrorKind::AddrNotAvailable
        );
        let why = match error.kind() {
            io::ErrorKind::AddrInUse => "is in use".to_owned(),
            io::ErrorKind::PermissionDenied => "is reserved for the system".to_owned(),
            _ => "cannot be listened on".to_owned(),
        };
        let code = if usage {
            ExitCode::from(2)
        } else {
            ExitCode::FAILURE
        };
        (
            code,
            format!(
                "--port {port}: 127.0.0.1:{port} {why} ({error}); choose another port, or \
                 leave --port out for a free one"
            ),
        )
    })
}

/// The lines that list the seeded workrooms: each bid ID, hourly or fixed-price, and the
/// logins of its client and provider, the only users it answers.
fn workrooms(world: &World) -> Vec<String> {
    let login = |id: u64| world.user(id).map_or("?", |user| user.login.as_str());
    let rooms = world.workrooms();
    let width = rooms
        .iter()
        .map(|room| login(room.client).len())
        .max()
        .unwrap_or(0);
    let mut lines = vec![
        "workrooms:       bid ID, kind, client and provider (a workroom answers only these two \
         logins)"
            .to_owned(),
    ];
    lines.extend(rooms.iter().map(|room| {
        let kind = if room.hourly { "hourly" } else { "fixed-price" };
        format!(
            "  bid {}  {kind:<11}  client {:<width$}  provider {}",
            room.bid_id,
            login(room.client),
            login(room.provider)
        )
    }));
    lines
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

/// Ctrl-C (SIGINT), or SIGTERM or SIGHUP (how a process manager, `timeout`, CI or a closed
/// terminal stops a server), listened for from now on: each stops the server the same way, its
/// certificate's directory removed. Without a handler, SIGTERM and SIGHUP end the process
/// before it can remove anything.
#[cfg(unix)]
fn interrupted() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hang_up = signal(SignalKind::hangup())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
            _ = hang_up.recv() => {}
        }
    })
}

/// Ctrl-C, listened for from the first wait.
#[cfg(not(unix))]
fn interrupted() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
