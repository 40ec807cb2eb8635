//! The committed snapshots of emitted code (`codegen/tests/snapshots/`, one per wire quirk)
//! compile against the client's runtime, as progenitor compiles its goldens: each snapshot is
//! a module of a copy of the runtime (without the real generated code), built with one
//! `cargo build`. A snapshot that reads well but does not compile fails here.

use std::fs;
use std::path::Path;

use marketplace_codegen::GeneratedFile;

mod client_copy;

/// Every committed snapshot: its name and the module it holds (the insta header removed).
fn snapshots() -> Vec<(String, String)> {
    let dir = client_copy::workspace_root().join("codegen/tests/snapshots");
    let mut snapshots: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "snap"))
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let module = text
                .strip_prefix("---\n")
                .and_then(|rest| rest.split_once("\n---\n"))
                .map(|(_, module)| module.to_owned())
                .unwrap_or_else(|| panic!("{} has no insta header", path.display()));
            let stem = path.file_stem().unwrap().to_string_lossy();
            let name = stem.trim_start_matches("snapshots__").to_owned();
            (name, module)
        })
        .collect();
    snapshots.sort();
    snapshots
}

#[test]
fn every_snapshot_compiles_against_the_runtime() {
    let snapshots = snapshots();
    assert!(snapshots.len() >= 10, "{} snapshots", snapshots.len());
    let variants: Vec<(String, Vec<GeneratedFile>)> = snapshots
        .iter()
        .map(|(name, module)| {
            let files = vec![
                GeneratedFile {
                    path: "mod.rs".to_owned(),
                    contents:
                        "pub(crate) mod fragment;\n#[allow(unused_imports)]\npub use fragment::*;\n"
                            .to_owned(),
                },
                GeneratedFile {
                    path: "fragment.rs".to_owned(),
                    contents: module.clone(),
                },
            ];
            (name.clone(), files)
        })
        .collect();
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compiled-snapshots");
    client_copy::remove_all(&scratch);
    client_copy::write_workspace(&scratch, "snapshots-client", &[]);
    client_copy::write_client(&scratch, "snapshots-client", &variants);
    let built = client_copy::build(&scratch);
    assert!(
        built.errors.is_empty(),
        "snapshots that do not compile:\n\n{}",
        built
            .errors
            .values()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
