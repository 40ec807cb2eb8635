//! Calls the origins named on its command line with a client built in each way an app builds
//! one, so that a test can run it in an environment of its choosing (proxy variables, which
//! tests in one process cannot set without racing each other) and watch where each request
//! went: `route_probe <plain-HTTP base URL> <HTTPS base URL>`.
//!
//! For each client (built by `ClientBuilder::build`, and given from `http_client_builder`) it
//! makes a data call over plain HTTP, an OAuth call over plain HTTP (loopback opt-in) and a data
//! call over HTTPS, once each, and prints how each ended. It fails only when a client cannot be
//! built; the calls themselves are expected to fail (the origins are taps).

use std::process::ExitCode;
use std::time::Duration;

use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ConsumerCredentials, RetryPolicy, http_client_builder};

/// A client of `base_url`, with `http` or the one it builds itself.
fn client(base_url: &str, http: Option<reqwest::Client>) -> Result<Client, String> {
    let mut builder = Client::builder(
        base_url,
        ConsumerCredentials::new("probe-key", "probe-secret"),
    )
    .allow_plain_http_oauth_on_loopback()
    .retry(RetryPolicy::none())
    .timeout(Duration::from_secs(5));
    if let Some(http) = http {
        builder = builder.http_client(http);
    }
    builder.build().map_err(|error| error.to_string())
}

async fn probe(plain: &str, https: &str) -> Result<(), String> {
    let given = http_client_builder()
        .map_err(|error| error.to_string())?
        .build()
        .map_err(|error| error.to_string())?;
    for (kind, http) in [("built", None), ("given", Some(given))] {
        let token = || AccessToken::new("probe-token", "probe-token-secret", Timestamp::now());
        let plain_client = client(plain, http.clone())?;
        let data = plain_client.session(token()).get_invoice(9003).send().await;
        println!("{kind} plain data: {:?}", data.map(|_| ()));
        let oauth = plain_client.request_token(None).await;
        println!("{kind} plain oauth: {:?}", oauth.map(|_| ()));
        let tls = client(https, http)?
            .session(token())
            .get_invoice(9003)
            .send()
            .await;
        println!("{kind} https data: {:?}", tls.map(|_| ()));
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [plain, https] = args.as_slice() else {
        eprintln!("usage: route_probe <plain-HTTP base URL> <HTTPS base URL>");
        return ExitCode::from(2);
    };
    match probe(plain, https).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("route_probe: {error}");
            ExitCode::FAILURE
        }
    }
}
