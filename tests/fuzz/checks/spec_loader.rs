//! The spec loader and validator on arbitrary YAML and arbitrary file names: a located error
//! or generated code, never a panic or a hang.
//!
//! An input without a NUL byte is one file, `spec/fuzz.yaml` (the committed corpus). With NUL
//! bytes it is `name\0yaml\0name\0yaml…`: files the fuzzer names too (a name is the text a
//! generated module and file are named from, so hostile names must be refused, located by
//! their file, not panic in the generator).
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use marketplace_codegen::diagnostic::ErrorKind;
use marketplace_codegen::{SpecSource, generate, resolve};

pub fn check(input: &[u8]) {
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let sources: Vec<SpecSource> = if text.contains('\0') {
        let parts: Vec<&str> = text.split('\0').collect();
        parts
            .chunks(2)
            .map(|file| SpecSource {
                path: format!("spec/{}", file[0]),
                text: file.get(1).copied().unwrap_or_default().to_owned(),
            })
            .collect()
    } else {
        vec![SpecSource {
            path: "spec/fuzz.yaml".to_owned(),
            text: text.to_owned(),
        }]
    };
    match resolve(&sources) {
        Ok(api) => {
            // A valid spec must generate valid Rust (an EmitError would be a generator bug).
            generate(&api).expect("a valid spec generates");
        }
        Err(errors) => {
            assert!(!errors.0.is_empty());
            for error in &errors.0 {
                // A file's name and size, and what is wrong with the document as a whole, are
                // the file's; the parser locates what it can.
                let by_file = error.path.is_empty()
                    || error.path.split('.').any(|segment| segment == "?")
                    || matches!(
                        error.kind,
                        ErrorKind::InvalidFileName | ErrorKind::TooLarge | ErrorKind::InvalidYaml
                    );
                assert!(
                    error.location.is_some() || by_file,
                    "an error without a location: {error}"
                );
            }
        }
    }
}
