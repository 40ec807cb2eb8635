//! `cargo xtask msrv`: the declared `rust-version` held against what the published crates pull
//! in.
//!
//! The only toolchain on the project's machines is the current stable one, and no other can be
//! fetched, so the MSRV cannot be proven by building with it. What is checked instead: every
//! package in the normal and build dependency graph of each published crate, for each of its
//! TLS features, declares a `rust-version` no newer than the workspace's (from `cargo tree` on
//! the locked graph and `cargo metadata`); clippy's `incompatible_msrv` lint (CI denies
//! warnings) refuses standard-library APIs newer than it. Language features newer than it are
//! not machine-checked (a let chain, Rust 1.88, would pass both).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::command_line::CommandError;
use crate::judgement::{Checked, Count, NothingJudged, Tally};
use crate::public_api::CRATES;

/// The feature sets checked per crate: the default, then the default with each other TLS
/// feature (a superset of that feature alone).
const FEATURE_SETS: [Option<&str>; 3] = [None, Some("rustls-aws-lc"), Some("native-tls")];

/// Why the check could not run, or what it found.
#[derive(Debug, thiserror::Error)]
pub enum MsrvError {
    /// cargo failed.
    #[error("cargo {args}: {message}")]
    Cargo {
        /// The arguments.
        args: String,
        /// What it said.
        message: String,
    },
    /// `cargo metadata` printed something unexpected.
    #[error("cargo metadata: {0}")]
    Metadata(String),
    /// No dependency declares a rust-version: nothing was checked.
    #[error(transparent)]
    Nothing(#[from] NothingJudged),
    /// Dependencies need a newer Rust than declared.
    #[error(
        "rust-version {declared} is older than what dependencies declare:\n{needs}raise \
         rust-version in the root Cargo.toml, or hold those dependencies back"
    )]
    TooOld {
        /// The declared MSRV.
        declared: String,
        /// One line per package that needs more.
        needs: String,
    },
}

impl CommandError for MsrvError {
    fn is_finding(&self) -> bool {
        match self {
            MsrvError::TooOld { .. } => true,
            MsrvError::Cargo { .. } | MsrvError::Metadata(_) | MsrvError::Nothing(_) => false,
        }
    }
}

/// A Rust version, compared numerically (`1.86` < `1.100`).
type Version = Vec<u64>;

fn version(text: &str) -> Version {
    text.split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// Checks every published crate's dependency graph against the declared rust-version; the
/// report names the newest requirement found per crate and feature set, and how many packages
/// were judged (those that declare a rust-version) and left out (those that do not).
pub fn check(root: &Path) -> Result<Checked, MsrvError> {
    let metadata = cargo(root, &["metadata", "--format-version", "1", "--locked"])?;
    let metadata: serde_json::Value =
        serde_json::from_str(&metadata).map_err(|error| MsrvError::Metadata(error.to_string()))?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or_else(|| MsrvError::Metadata("no packages".to_owned()))?;
    let mut declared_by: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut declared = None;
    for package in packages {
        let (Some(name), Some(ver)) = (package["name"].as_str(), package["version"].as_str())
        else {
            continue;
        };
        if let Some(rust) = package["rust_version"].as_str() {
            declared_by.insert((name.to_owned(), ver.to_owned()), rust.to_owned());
        }
        if name == CRATES[0].0 {
            declared = package["rust_version"].as_str().map(str::to_owned);
        }
    }
    let declared = declared
        .ok_or_else(|| MsrvError::Metadata(format!("{} has no rust-version", CRATES[0].0)))?;

    let mut report = format!("rust-version {declared}:\n");
    let mut too_new = BTreeSet::new();
    let (mut judged, mut undeclared) = (BTreeSet::new(), BTreeSet::new());
    for (package, _) in CRATES {
        for features in FEATURE_SETS {
            let mut args = vec![
                "tree",
                "--locked",
                "-p",
                package,
                "-e",
                "normal,build",
                "--prefix",
                "none",
                "-f",
                "{p}",
            ];
            if let Some(features) = features {
                args.extend(["--features", features]);
            }
            let tree = cargo(root, &args)?;
            let mut newest: Option<(Version, String)> = None;
            for line in tree.lines() {
                let mut words = line.split_whitespace();
                let (Some(name), Some(ver)) = (words.next(), words.next()) else {
                    continue;
                };
                let key = (name.to_owned(), ver.trim_start_matches('v').to_owned());
                // The published crates declare the rust-version being checked.
                let ours = CRATES.iter().any(|(crate_name, _)| *crate_name == name);
                if ours {
                    continue;
                }
                let Some(rust) = declared_by.get(&key) else {
                    undeclared.insert(key);
                    continue;
                };
                judged.insert(key.clone());
                if version(rust) > version(&declared) {
                    too_new.insert(format!("  {name} {} needs Rust {rust}\n", key.1));
                }
                if newest.as_ref().is_none_or(|(v, _)| version(rust) > *v) {
                    newest = Some((version(rust), format!("{name} {}: {rust}", key.1)));
                }
            }
            let _ = writeln!(
                report,
                "  {package} (default features{}): newest dependency requirement {}",
                features
                    .map(|extra| format!(" + {extra}"))
                    .unwrap_or_default(),
                newest.map_or("none declared".to_owned(), |(_, which)| which),
            );
        }
    }
    let judged = Tally {
        command: "msrv",
        looked_at: format!(
            "the normal and build dependencies of {} with {} feature sets each",
            CRATES.map(|(package, _)| package).join(" and "),
            FEATURE_SETS.len()
        ),
        read: vec![Count::new(judged.len() + undeclared.len(), "package")],
        judged: vec![Count::irregular(
            judged.len(),
            "package's rust-version",
            "packages' rust-versions",
        )],
        over: Some(format!("against rust-version {declared}")),
        left_out: vec![Count::irregular(
            undeclared.len(),
            "package that declares no rust-version",
            "packages that declare no rust-version",
        )],
        remedy: "run it in the workspace, whose published crates have dependencies",
    }
    .verdict()?;
    if !too_new.is_empty() {
        return Err(MsrvError::TooOld {
            declared,
            needs: too_new.into_iter().collect(),
        });
    }
    let _ = writeln!(report, "msrv: {judged}");
    Ok(Checked { report, judged })
}

fn cargo(root: &Path, args: &[&str]) -> Result<String, MsrvError> {
    let failed = |message: String| MsrvError::Cargo {
        args: args.join(" "),
        message,
    };
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(args)
        .output()
        .map_err(|error| failed(error.to_string()))?;
    if !output.status.success() {
        return Err(failed(String::from_utf8_lossy(&output.stderr).into_owned()));
    }
    String::from_utf8(output.stdout).map_err(|error| failed(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::version;

    #[test]
    fn versions_compare_by_number_not_text() {
        assert!(version("1.100") > version("1.86"));
        assert!(version("1.86.1") > version("1.86"));
        assert!(version("1.85.0") < version("1.86"));
        assert_eq!(version("1.86"), version("1.86"));
    }
}
