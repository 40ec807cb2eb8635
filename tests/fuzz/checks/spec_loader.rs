//! The spec loader and validator on arbitrary YAML: a located error or generated code, never a
//! panic or a hang.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use marketplace_codegen::{SpecSource, generate, resolve};

pub fn check(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let sources = [SpecSource {
        path: "spec/fuzz.yaml".to_owned(),
        text: text.to_owned(),
    }];
    match resolve(&sources) {
        Ok(api) => {
            // A valid spec must generate valid Rust (an EmitError would be a generator bug).
            generate(&api).expect("a valid spec generates");
        }
        Err(errors) => assert!(!errors.0.is_empty()),
    }
}
