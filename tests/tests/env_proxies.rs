//! No proxy the environment names ever carries a request: the client's HTTP clients (the one
//! `ClientBuilder::build` makes, and `http_client_builder`'s) take no proxy from `HTTP_PROXY`,
//! `HTTPS_PROXY`, `ALL_PROXY` or their lower-case forms, so a signed request over plain HTTP
//! never goes through an intermediary the app did not name (SECURITY.md, "Routes").
//!
//! Tests of one binary share the environment, and setting it is `unsafe`: each environment
//! is given to a child process instead, the `route_probe` binary, which calls a plain-HTTP
//! origin (a data call and an OAuth call) and an HTTPS origin with both clients. The proxy the
//! variables name is a tap that records whatever reaches it: it must receive nothing, while
//! the origins receive every call, directly.

use std::process::Command;

use marketplace_tests::tap::{Tap, TapAnswer};

/// Every variable reqwest reads a proxy from.
const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// Variables that would hide a proxy from reqwest: exemptions, and CGI's marker (reqwest
/// ignores `HTTP_PROXY` under CGI). The child never sees them.
const HIDING_VARIABLES: [&str; 3] = ["NO_PROXY", "no_proxy", "REQUEST_METHOD"];

/// Runs the probe against `plain` and `https` with `variables` naming `proxy`; its output.
async fn probe(variables: &[&str], proxy: &str, plain: String, https: String) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_route_probe"));
    command.args([plain, https]);
    for variable in PROXY_VARIABLES.iter().chain(&HIDING_VARIABLES) {
        command.env_remove(variable);
    }
    for variable in variables {
        command.env(variable, proxy);
    }
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{variables:?}: {printed}");
    printed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_proxy_the_environment_names_receives_anything() {
    let proxy = Tap::start(TapAnswer::Status(502)).await.unwrap();
    let mut environments: Vec<Vec<&str>> = PROXY_VARIABLES.iter().map(|v| vec![*v]).collect();
    environments.push(PROXY_VARIABLES.to_vec());
    for variables in environments {
        let plain = Tap::start(TapAnswer::Json("{}".to_owned())).await.unwrap();
        let tls = Tap::start(TapAnswer::Status(400)).await.unwrap();
        let printed = probe(
            &variables,
            &proxy.url(),
            plain.url(),
            format!("https://{}", tls.addr()),
        )
        .await;

        let reached = proxy.connections();
        assert!(
            reached.is_empty(),
            "{variables:?}: the proxy received {reached:?}\n{printed}"
        );
        // Each client's data call and OAuth call went to the origin itself: origin-form
        // targets (a proxy is sent absolute URLs), signed.
        let mut requests = plain.requests();
        requests.sort_by(|a, b| a.method.cmp(&b.method));
        let methods: Vec<&str> = requests.iter().map(|r| r.method.as_str()).collect();
        assert_eq!(
            methods,
            ["GET", "GET", "POST", "POST"],
            "{variables:?}\n{printed}"
        );
        for request in &requests {
            assert!(
                request.target.starts_with('/'),
                "{variables:?}: {request:?}"
            );
            assert!(
                request
                    .header("authorization")
                    .is_some_and(|value| value.starts_with("OAuth ")),
                "{variables:?}: {request:?}"
            );
        }
        // Each client's HTTPS call opened a TLS handshake with the origin itself.
        let handshakes = tls.connections();
        assert_eq!(
            handshakes.len(),
            2,
            "{variables:?}: {handshakes:?}\n{printed}"
        );
        for handshake in &handshakes {
            assert_eq!(
                handshake.raw.first(),
                Some(&0x16),
                "{variables:?}: not a TLS handshake: {handshake:?}"
            );
        }
    }
}
