//! The spec loader and validator on arbitrary YAML and file names (`name\0yaml\0…`, see the
//! check): a located error or generated code, never a panic or a hang.
#![no_main]

#[path = "../checks/spec_loader.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|input: &[u8]| checks::check(input));
