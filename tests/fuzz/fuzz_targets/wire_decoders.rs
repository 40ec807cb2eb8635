//! Each quirk decoder of `marketplace_client::wire` on arbitrary JSON: numbers from strings,
//! exact decimals, both date formats, zero as none, index-keyed collections, open enums. And an
//! oracle for exactness: digits decode to the same value as a JSON number and as a string.
#![no_main]

#[path = "../checks/wire_decoders.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
