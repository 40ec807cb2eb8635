//! Reading the OAuth callback URL the user's browser was sent to: a verifier or a clear
//! `Error::Callback`, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use marketplace_client::oauth::RequestToken;
use marketplace_client::{Client, ConsumerCredentials, Error, Secret};

fn client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        Client::builder(
            "https://marketplace.example",
            ConsumerCredentials::new("key", "secret"),
        )
        .build()
        .expect("a valid configuration")
    })
}

fuzz_target!(|input: &[u8]| {
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
});
