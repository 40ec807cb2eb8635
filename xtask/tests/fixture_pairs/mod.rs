//! The spec-diff fixture pairs (`spec-diff/<case>/{base.yaml,head.yaml,expect}`), shared by the
//! fixture test and the oracle test.

use std::fs;
use std::path::{Path, PathBuf};

use marketplace_codegen::diff::{self, Change, Side};
use marketplace_codegen::ir::Api;
use marketplace_codegen::{SpecSource, resolve};

pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec-diff")
}

/// Every case name, sorted.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(cases_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A spec of one file, as the fixtures are.
pub fn source(text: String) -> Vec<SpecSource> {
    vec![SpecSource {
        path: "spec/api.yaml".to_owned(),
        text,
    }]
}

/// A case's two specs, resolved, and the changes the tool finds.
pub fn load(name: &str) -> (Api, Api, Vec<Change>) {
    let read = |file: &str| source(fs::read_to_string(cases_dir().join(name).join(file)).unwrap());
    let (base_sources, head_sources) = (read("base.yaml"), read("head.yaml"));
    let base = resolve(&base_sources).unwrap_or_else(|e| panic!("{name} base: {e}"));
    let head = resolve(&head_sources).unwrap_or_else(|e| panic!("{name} head: {e}"));
    let changes = diff::diff(
        Side {
            api: &base,
            sources: &base_sources,
        },
        Side {
            api: &head,
            sources: &head_sources,
        },
    )
    .unwrap()
    .changes;
    (base, head, changes)
}
