//! The scrubber every output channel of the client goes through, on arbitrary text with a
//! known secret: never a panic, idempotent, no secret left.
#![no_main]

#[path = "../checks/scrubber.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
