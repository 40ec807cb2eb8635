//! Decoding a response of any data method from arbitrary bytes: never a panic, a hang or
//! unbounded memory; a failure names a JSON path. The first byte picks the method.
#![no_main]

#[path = "../checks/decode_response.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
