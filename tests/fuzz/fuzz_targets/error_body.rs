//! Reading an error response from arbitrary bytes (`ApiFailure::parse`: JSON, then form pairs,
//! then text): never a panic; the code is the first listed one; and a secret placed under
//! `oauth_token_secret` in any JSON object is never kept.
#![no_main]

#[path = "../checks/error_body.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
