//! Runs the fake marketplace for manual use until Ctrl-C.
//!
//! ```text
//! cargo run -p marketplace-fake --bin fake-marketplace            # HTTPS
//! cargo run -p marketplace-fake --bin fake-marketplace -- --http  # plain HTTP
//! ```
//!
//! Prints the base URL, the demo application's consumer key and secret, the demo users' logins
//! and password, and (for HTTPS) the path of a file in the temporary directory holding the
//! server certificate, e.g. for `curl --cacert`.

use std::process::ExitCode;

use marketplace_fake::FakeMarketplace;

#[tokio::main]
async fn main() -> ExitCode {
    let mut plain_http = false;
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--http" => plain_http = true,
            "-h" | "--help" => {
                println!("usage: fake-marketplace [--http]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!(
                    "fake-marketplace: unknown argument {other:?}\nusage: fake-marketplace [--http]"
                );
                return ExitCode::from(2);
            }
        }
    }
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
