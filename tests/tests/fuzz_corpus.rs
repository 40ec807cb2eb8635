//! Every committed fuzz corpus input, replayed through the same check its fuzz target runs
//! (`tests/fuzz/checks/`), on every CI run. The fuzz targets themselves need cargo-fuzz and a
//! campaign (`tests/fuzz/campaign.sh`); this keeps what the campaigns learned from regressing, and
//! keeps the checks themselves compiling and runnable with the client's current API.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

#[path = "../fuzz/checks/callback_url.rs"]
mod callback_url;
#[path = "../fuzz/checks/decode_response.rs"]
mod decode_response;
#[path = "../fuzz/checks/error_body.rs"]
mod error_body;
#[path = "../fuzz/checks/scrubber.rs"]
mod scrubber;
#[path = "../fuzz/checks/spec_loader.rs"]
mod spec_loader;
#[path = "../fuzz/checks/wire_decoders.rs"]
mod wire_decoders;

/// Runs `check` on every file of `tests/fuzz/corpus/<target>`, and names each input that panics.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.expect("a readable corpus entry").path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{} has no corpus", dir.display());
    let failing: Vec<String> = inputs
        .iter()
        .filter(|path| {
            let input = std::fs::read(path).expect("a readable corpus file");
            catch_unwind(AssertUnwindSafe(|| check(&input))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failing.is_empty(),
        "{} of {} {target} inputs fail their check (reproduce with \
         `cargo fuzz run -s none --fuzz-dir tests/fuzz {target} <file>`):\n{}",
        failing.len(),
        inputs.len(),
        failing.join("\n")
    );
}

#[test]
fn callback_url_corpus_passes_its_check() {
    replay("callback_url", callback_url::check);
}

#[test]
fn decode_response_corpus_passes_its_check() {
    replay("decode_response", decode_response::check);
}

#[test]
fn error_body_corpus_passes_its_check() {
    replay("error_body", error_body::check);
}

#[test]
fn spec_loader_corpus_passes_its_check() {
    replay("spec_loader", spec_loader::check);
}

#[test]
fn wire_decoders_corpus_passes_its_check() {
    replay("wire_decoders", wire_decoders::check);
}

#[test]
fn scrubber_corpus_passes_its_check() {
    replay("scrubber", scrubber::check);
}
