//! Reading the OAuth callback URL the user's browser was sent to: a verifier or a clear
//! `Error::Callback`, never a panic.
#![no_main]

#[path = "../checks/callback_url.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
