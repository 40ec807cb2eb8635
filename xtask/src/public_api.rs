//! `cargo xtask public-api [--check]`: the public API of each published crate, one item per
//! line, committed beside the crate as `public-api.txt` so that every change of it shows in
//! review, and, with `--check` (CI), refused unless the snapshot and `CHANGELOG.md` say so.
//!
//! The API is read from rustdoc's JSON output by the `public-api` crate, which renders every
//! public item (functions with their signatures, fields, variants, trait impls, auto traits
//! such as `Send`) as a line; `#[doc(hidden)]` items are not part of it. rustdoc's JSON is
//! unstable: `RUSTC_BOOTSTRAP=1` unlocks it on the stable toolchain, and `public-api` reads
//! one format version (the one of the toolchain CI runs; a toolchain with another format is
//! reported as such, with the fix).
//!
//! There is no published release to compare with, so the baseline is the committed snapshot:
//! `--check` fails when the API differs from it (the fix: `cargo xtask public-api`, and an
//! entry under `[Unreleased]` in `CHANGELOG.md`), and when a snapshot differs from the merge
//! base with `main` while `CHANGELOG.md` does not.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The published crates: package name and folder.
pub const CRATES: [(&str, &str); 2] = [
    ("marketplace-client", "generated-client"),
    ("marketplace-fake", "tests/fake"),
];

/// The snapshot's file name in each crate's folder.
pub const SNAPSHOT: &str = "public-api.txt";

/// The changelog that must move with the API.
pub const CHANGELOG: &str = "CHANGELOG.md";

/// Why the public API could not be listed or checked.
#[derive(Debug, thiserror::Error)]
pub enum PublicApiError {
    /// rustdoc failed.
    #[error("rustdoc --output-format json for {package} failed:\n{stderr}")]
    Rustdoc {
        /// The package.
        package: String,
        /// What cargo said.
        stderr: String,
    },
    /// The JSON could not be read (most often: another rustdoc JSON format version).
    #[error(
        "reading the rustdoc JSON of {package} failed: {message}\n(the public-api crate reads \
         one rustdoc JSON format version; after a toolchain update, pin the public-api release \
         that reads the new one in the root Cargo.toml)"
    )]
    Read {
        /// The package.
        package: String,
        /// What public-api said.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The API differs from the snapshot, or moved without a changelog entry.
    #[error("{0}")]
    Stale(String),
}

/// The public API of `package` (in `folder`), one item per line, sorted.
pub fn listing(root: &Path, package: &str) -> Result<String, PublicApiError> {
    // A target folder of its own: RUSTC_BOOTSTRAP changes what cargo builds, and the
    // workspace's own builds should not be redone after this one.
    let target = root.join("target/public-api");
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args([
            "rustdoc",
            "--quiet",
            "--locked",
            "--lib",
            "-p",
            package,
            "--target-dir",
        ])
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .output()
        .map_err(|source| PublicApiError::Io {
            path: PathBuf::from(env!("CARGO")),
            source,
        })?;
    if !output.status.success() {
        return Err(PublicApiError::Rustdoc {
            package: package.to_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    let json = target
        .join("doc")
        .join(format!("{}.json", package.replace('-', "_")));
    let api = public_api::Builder::from_rustdoc_json(&json)
        .omit_blanket_impls(true)
        .build()
        .map_err(|error| PublicApiError::Read {
            package: package.to_owned(),
            message: error.to_string(),
        })?;
    Ok(api.to_string())
}

/// Writes every crate's snapshot; returns the ones that changed.
pub fn update(root: &Path) -> Result<Vec<String>, PublicApiError> {
    let mut changed = Vec::new();
    for (package, folder) in CRATES {
        let listing = listing(root, package)?;
        let path = root.join(folder).join(SNAPSHOT);
        if read(&path).ok().as_deref() != Some(listing.as_str()) {
            std::fs::write(&path, &listing).map_err(|source| PublicApiError::Io {
                path: path.clone(),
                source,
            })?;
            changed.push(format!("{folder}/{SNAPSHOT}"));
        }
    }
    Ok(changed)
}

/// Fails when a crate's API differs from its snapshot (with the diff), or when a snapshot
/// differs from the merge base with `main` and `CHANGELOG.md` does not.
pub fn check(root: &Path) -> Result<(), PublicApiError> {
    let mut problems = String::new();
    for (package, folder) in CRATES {
        let listing = listing(root, package)?;
        let path = root.join(folder).join(SNAPSHOT);
        let snapshot = read(&path)?;
        if snapshot != listing {
            let diff = similar::TextDiff::from_lines(&snapshot, &listing)
                .unified_diff()
                .header(&format!("{folder}/{SNAPSHOT}"), "the public API now")
                .to_string();
            let _ = write!(
                problems,
                "the public API of {package} is not its snapshot {folder}/{SNAPSHOT}:\n{diff}\n"
            );
        }
    }
    if !problems.is_empty() {
        problems.push_str(
            "If the change is meant, run `cargo xtask public-api` and say what changed under \
             [Unreleased] in CHANGELOG.md (a removed or changed item is a breaking change).",
        );
        return Err(PublicApiError::Stale(problems));
    }
    changelog_moved_with_the_api(root)
}

/// A snapshot that differs from the merge base with `main` needs a changelog that does too.
/// Where there is no `main` to compare with (a clone without it), there is nothing to check.
fn changelog_moved_with_the_api(root: &Path) -> Result<(), PublicApiError> {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let Some(base) = git(&["merge-base", "HEAD", "main"]) else {
        return Ok(());
    };
    let differs = |path: &str| {
        git(&["diff", "--name-only", &base, "--", path]).is_some_and(|names| !names.is_empty())
    };
    let moved: Vec<String> = CRATES
        .iter()
        .map(|(_, folder)| format!("{folder}/{SNAPSHOT}"))
        .filter(|snapshot| differs(snapshot))
        .collect();
    if !moved.is_empty() && !differs(CHANGELOG) {
        return Err(PublicApiError::Stale(format!(
            "{} changed since main ({base:.10}) but {CHANGELOG} did not: say what changed under \
             [Unreleased]",
            moved.join(" and ")
        )));
    }
    Ok(())
}

fn read(path: &Path) -> Result<String, PublicApiError> {
    std::fs::read_to_string(path).map_err(|source| PublicApiError::Io {
        path: path.to_owned(),
        source,
    })
}
