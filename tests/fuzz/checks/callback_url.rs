//! Reading the OAuth callback URL the user's browser was sent to: a verifier or a clear
//! `Error::Callback`, never a panic.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use std::sync::OnceLock;

use marketplace_client::oauth::RequestToken;
use marketplace_client::{Client, ConsumerCredentials, Error, Secret, http_client_builder};

fn client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // An HTTP client given explicitly: the fuzz build has no TLS feature (nothing connects),
        // and an https base URL then needs one.
        let http = http_client_builder()
            .expect("a reqwest builder")
            .build()
            .expect("an HTTP client");
        Client::builder(
            "https://marketplace.example",
            ConsumerCredentials::new("key", "secret"),
        )
        .http_client(http)
        .build()
        .expect("a valid configuration")
    })
}

pub fn check(input: &[u8]) {
    let Ok(url) = std::str::from_utf8(input) else {
        return;
    };
    let request = RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new("request-secret"),
        callback_confirmed: true,
    };
    match client().verifier_from_callback(&request, url) {
        Ok(verifier) => assert!(!verifier.as_str().is_empty()),
        Err(error) => assert!(matches!(error, Error::Callback { .. })),
    }
}
