//! Runs the fake marketplace for manual use until Ctrl-C.
//!
//! ```text
//! cargo run -p marketplace-fake --bin fake-marketplace            # HTTPS
//! cargo run -p marketplace-fake --bin fake-marketplace -- --http  # plain HTTP
//! cargo run -p marketplace-fake --bin fake-marketplace -- --help  # the options, exit codes
//! ```
//!
//! Prints the base URL, the demo application's consumer key and secret, the demo users' logins
//! and password, and (for HTTPS) the path of a file in the temporary directory holding the
//! server certificate, e.g. for `curl --cacert`.

use std::process::ExitCode;

use clap::Parser;
use marketplace_fake::FakeMarketplace;

/// The command line.
#[derive(Parser)]
#[command(
    name = "fake-marketplace",
    about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C",
    long_about = "Runs the fake marketplace on 127.0.0.1 for manual use, until Ctrl-C.\n\n\
                  Prints the base URL, the demo application's consumer key and secret, the demo \
                  users' logins and password, and (for HTTPS) the path of a file in the \
                  temporary directory holding the server certificate, e.g. for curl --cacert.",
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
    if !plain_http {
        let port = fake.base_url().rsplit(':').next().unwrap_or("0");
        let path = std::env::temp_dir().join(format!("fake-marketplace-{port}.pem"));
        match std::fs::write(&path, fake.certificate_pem()) {
            Ok(()) => println!("certificate:     {}", path.display()),
            Err(error) => {
                eprintln!("fake-marketplace: cannot write {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    println!("Ctrl-C stops the server.");
    if let Err(error) = tokio::signal::ctrl_c().await {
        eprintln!("fake-marketplace: cannot wait for Ctrl-C: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
