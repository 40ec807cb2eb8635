//! Reading an error response from arbitrary bytes (`ApiFailure::parse`: JSON, then form pairs,
//! then text): never a panic; the code is the first listed one; and a secret placed under
//! `oauth_token_secret` in any JSON object is never kept.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use marketplace_client::ApiFailure;

const MARKER: &str = "FUZZ-SECRET-MARKER";

pub fn check(input: &[u8]) {
    if let Some(failure) = ApiFailure::parse(input) {
        let first = failure.errors.iter().find_map(|error| error.code.clone());
        assert_eq!(failure.code, first);
    }
    if let Ok(serde_json::Value::Object(mut object)) = serde_json::from_slice(input) {
        object.insert("oauth_token_secret".to_owned(), MARKER.into());
        object.insert("rcode".to_owned(), 0.into());
        let body = serde_json::to_vec(&object).expect("a JSON object serializes");
        let failure = ApiFailure::parse(&body).expect("an rcode of 0 is a failure");
        assert!(!failure.body.contains(MARKER), "{}", failure.body);
        assert!(!format!("{failure:?} {failure}").contains(MARKER));
    }
}
