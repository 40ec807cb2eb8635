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
//! `--check` holds the API to three baselines:
//! - the committed snapshot: it fails when the API differs from it (the fix: `cargo xtask
//!   public-api`, and an entry under `[Unreleased]` in `CHANGELOG.md`);
//! - the merge base with `main`: a snapshot that moved needs `CHANGELOG.md` to move too;
//! - the last release (the semver check): the newest tag `<package>-v<version>`, whose snapshot
//!   is compared line by line with today's. A line gone (an item removed, or changed, which
//!   removes its old line) is a breaking change, a line added a compatible one, and the
//!   package's version must have moved at least that far since the release (below 1.0, a
//!   breaking change raises the minor version, an addition the patch). Before the first release
//!   there is no tag and the check says so. This is the public-API-diff form of a semver check
//!   (cargo-public-api's); `cargo-semver-checks` would also see breaks that leave the item
//!   lines alike, at several minutes of building it in every CI run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::command_line::CommandError;
use crate::git::Git;
use crate::judgement::{Checked, Count, NothingJudged, Tally};

/// The published crates: package name and folder.
pub const CRATES: [(&str, &str); 2] = [
    ("marketplace-client", "generated-client"),
    ("marketplace-fake", "tests/fake"),
];

/// The snapshot's file name in each crate's folder.
pub const SNAPSHOT: &str = "public-api.txt";

/// The largest public-API snapshot read (today's are tens of kilobytes).
pub const MAX_SNAPSHOT_BYTES: u64 = 16 << 20;

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
    /// The target directory could not be found.
    #[error(transparent)]
    TargetDir(#[from] crate::target_dir::TargetDirError),
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
    /// Nothing was compared.
    #[error(transparent)]
    Nothing(#[from] NothingJudged),
}

impl CommandError for PublicApiError {
    fn is_finding(&self) -> bool {
        match self {
            PublicApiError::Stale(_) => true,
            PublicApiError::Rustdoc { .. }
            | PublicApiError::Read { .. }
            | PublicApiError::TargetDir(_)
            | PublicApiError::Io { .. }
            | PublicApiError::Nothing(_) => false,
        }
    }
}

/// The public API of `package` (in `folder`), one item per line, sorted. `target` is the
/// workspace's target directory ([`crate::target_dir::of_workspace`]).
pub fn listing(root: &Path, target: &Path, package: &str) -> Result<String, PublicApiError> {
    // A target folder of its own: RUSTC_BOOTSTRAP changes what cargo builds, and the
    // workspace's own builds should not be redone after this one.
    let target = target.join("public-api");
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
    let target = crate::target_dir::of_workspace(root)?;
    let mut changed = Vec::new();
    for (package, folder) in CRATES {
        let listing = listing(root, &target, package)?;
        let path = root.join(folder).join(SNAPSHOT);
        if read(&path).ok().as_deref() != Some(listing.as_str()) {
            write_snapshot(root, folder, &listing)?;
            changed.push(format!("{folder}/{SNAPSHOT}"));
        }
    }
    Ok(changed)
}

/// Writes `listing` as the snapshot of the crate in `folder` below `root`, through the one
/// writer (`marketplace_client::files`): no link below `root` is followed (a link at the
/// snapshot's name is replaced), and the file is renamed into place whole.
pub fn write_snapshot(root: &Path, folder: &str, listing: &str) -> Result<(), PublicApiError> {
    marketplace_client::files::OutputDir::open(root)
        .and_then(|out| out.write(Path::new(folder).join(SNAPSHOT), listing))
        .map_err(|error| PublicApiError::Io {
            path: error.path().to_path_buf(),
            source: error.into(),
        })
}

/// Fails when a crate's API differs from its snapshot (with the diff), when a snapshot
/// differs from the merge base with `main` and `CHANGELOG.md` does not, or when the version
/// has not moved as far as the API since the last release. Returns the semver check's line
/// per crate and what was compared: every item line of each crate's API with its snapshot.
pub fn check(root: &Path) -> Result<Checked, PublicApiError> {
    let target = crate::target_dir::of_workspace(root)?;
    let mut problems = String::new();
    let (mut snapshots, mut items) = (0, 0);
    for (package, folder) in CRATES {
        let listing = listing(root, &target, package)?;
        let path = root.join(folder).join(SNAPSHOT);
        let snapshot = read(&path)?;
        snapshots += 1;
        items += listing.lines().count();
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
    let judged = Tally {
        command: "public-api --check",
        looked_at: format!("the published crates' {SNAPSHOT} snapshots"),
        read: vec![Count::new(snapshots, "snapshot")],
        judged: vec![Count::new(items, "public item")],
        over: Some(format!("of {}", Count::new(snapshots, "published crate"))),
        left_out: Vec::new(),
        remedy: "run it in the workspace, whose published crates have public items",
    }
    .verdict()?;
    changelog_moved_with_the_api(root)?;
    let semver = semver_since_release(root)?;
    let report = format!("the public API is its snapshot\n{semver}public-api --check: {judged}\n");
    Ok(Checked { report, judged })
}

/// A snapshot that differs from the merge base with `main` needs a changelog that does too.
/// Where there is no `main` to compare with (a clone without it), there is nothing to check.
fn changelog_moved_with_the_api(root: &Path) -> Result<(), PublicApiError> {
    let git = Git::new(root);
    let Ok(base) = git.merge_base_with_main() else {
        return Ok(());
    };
    let differs = |path: &str| {
        git.changed_since(&base, path)
            .is_ok_and(|names| !names.trim().is_empty())
    };
    let moved: Vec<String> = CRATES
        .iter()
        .map(|(_, folder)| format!("{folder}/{SNAPSHOT}"))
        .filter(|snapshot| differs(snapshot))
        .collect();
    if !moved.is_empty() && !differs(CHANGELOG) {
        return Err(PublicApiError::Stale(format!(
            "{} changed since main ({:.10}) but {CHANGELOG} did not: say what changed under \
             [Unreleased]",
            moved.join(" and "),
            base.id()
        )));
    }
    Ok(())
}

/// The semver check: each crate's API against its last release (see the module docs).
fn semver_since_release(root: &Path) -> Result<String, PublicApiError> {
    let mut checked = String::new();
    let mut problems = Vec::new();
    for (package, folder) in CRATES {
        let version = package_version(root, package)?;
        let Some((tag, released)) = last_release(root, package) else {
            let _ = writeln!(
                checked,
                "{package} {version}: no release yet (no tag {package}-v*), no semver baseline"
            );
            continue;
        };
        let git = Git::new(root);
        let path = format!("{folder}/{SNAPSHOT}");
        let old = git
            .commit(&format!("refs/tags/{tag}"))
            .and_then(|commit| git.file_at(&commit, &path, MAX_SNAPSHOT_BYTES))
            .ok()
            .flatten();
        let Some(old) = old else {
            let _ = writeln!(
                checked,
                "{package} {version}: {tag} has no {SNAPSHOT} to compare"
            );
            continue;
        };
        let new = read(&root.join(folder).join(SNAPSHOT))?;
        let change = ApiChange::between(&old, &new);
        match change.required_version(&released) {
            Some(required) if version < required => problems.push(format!(
                "{package} {version}: since {tag}, {change}; the version must be at least                  {required}:
{}",
                change.removed_sample()
            )),
            _ => {
                let _ = writeln!(checked, "{package} {version}: since {tag}, {change}");
            }
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(PublicApiError::Stale(problems.join("\n")))
    }
}

/// The public API's change between two snapshots, line by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiChange {
    /// Lines of the old API not in the new one: items removed, or changed.
    pub removed: Vec<String>,
    /// Lines of the new API not in the old one.
    pub added: usize,
}

impl ApiChange {
    /// What changed from `old` to `new` (snapshots, one item per line).
    pub fn between(old: &str, new: &str) -> ApiChange {
        let old_lines: std::collections::BTreeSet<&str> = old.lines().collect();
        let new_lines: std::collections::BTreeSet<&str> = new.lines().collect();
        ApiChange {
            removed: old_lines
                .difference(&new_lines)
                .map(|line| (*line).to_owned())
                .collect(),
            added: new_lines.difference(&old_lines).count(),
        }
    }

    /// The smallest version that may carry this change after `released`: a breaking change
    /// raises the major version (below 1.0, the minor), an addition the minor (below 1.0,
    /// the patch); `None` when nothing changed.
    pub fn required_version(&self, released: &semver::Version) -> Option<semver::Version> {
        let (major, minor, patch) = (released.major, released.minor, released.patch);
        let (major, minor, patch) = match (major, !self.removed.is_empty(), self.added > 0) {
            (0, true, _) => (0, minor + 1, 0),
            (_, true, _) => (major + 1, 0, 0),
            (0, false, true) => (0, minor, patch + 1),
            (_, false, true) => (major, minor + 1, 0),
            (_, false, false) => return None,
        };
        Some(semver::Version::new(major, minor, patch))
    }

    /// The first removed lines, for a report.
    fn removed_sample(&self) -> String {
        let mut sample: Vec<String> = self
            .removed
            .iter()
            .take(10)
            .map(|line| format!("  - {line}"))
            .collect();
        if self.removed.len() > 10 {
            sample.push(format!("  … and {} more", self.removed.len() - 10));
        }
        sample.join("\n")
    }
}

impl std::fmt::Display for ApiChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.removed.len(), self.added) {
            (0, 0) => f.write_str("the public API is unchanged"),
            (0, added) => write!(f, "{added} item lines added (compatible)"),
            (removed, added) => write!(
                f,
                "{removed} item lines removed or changed (breaking), {added} added"
            ),
        }
    }
}

/// The newest release of `package`: its tag and version, from the tags `<package>-v<version>`.
fn last_release(root: &Path, package: &str) -> Option<(String, semver::Version)> {
    let prefix = format!("{package}-v");
    Git::new(root)
        .tags(&format!("{prefix}*"))
        .ok()?
        .lines()
        .filter_map(|tag| {
            let version = semver::Version::parse(tag.strip_prefix(&prefix)?).ok()?;
            Some((tag.to_owned(), version))
        })
        .max_by(|a, b| a.1.cmp(&b.1))
}

/// The version of `package` in the workspace (`cargo pkgid`: `…#name@version`).
fn package_version(root: &Path, package: &str) -> Result<semver::Version, PublicApiError> {
    let output = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["pkgid", "--quiet", "-p", package])
        .output()
        .map_err(|source| PublicApiError::Io {
            path: PathBuf::from(env!("CARGO")),
            source,
        })?;
    let pkgid = String::from_utf8_lossy(&output.stdout);
    pkgid
        .trim()
        .rsplit(['@', '#'])
        .next()
        .and_then(|version| semver::Version::parse(version).ok())
        .ok_or_else(|| {
            PublicApiError::Stale(format!(
                "cannot read the version of {package} from `cargo pkgid`: {pkgid}{}",
                String::from_utf8_lossy(&output.stderr)
            ))
        })
}

/// A committed snapshot, read bounded (see `marketplace_codegen::read_text_file`).
fn read(path: &Path) -> Result<String, PublicApiError> {
    marketplace_codegen::read_text_file(path, None, MAX_SNAPSHOT_BYTES).map_err(|error| match error
    {
        marketplace_codegen::CodegenError::Io { path, source } => {
            PublicApiError::Io { path, source }
        }
        marketplace_codegen::CodegenError::NotUtf8 { path, at } => PublicApiError::Io {
            path,
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text (line {}, column {})", at.line, at.column),
            ),
        },
        other => PublicApiError::Stale(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> semver::Version {
        semver::Version::parse(text).unwrap()
    }

    #[test]
    fn a_removed_or_changed_line_is_breaking_and_an_added_one_is_not() {
        let old = "pub fn a()\npub fn b(x: u64)\n";
        let change = ApiChange::between(old, "pub fn a()\npub fn b(x: u32)\npub fn c()\n");
        assert_eq!(change.removed, vec!["pub fn b(x: u64)".to_owned()]);
        assert_eq!(change.added, 2);
        let change = ApiChange::between(old, "pub fn a()\npub fn b(x: u64)\npub fn c()\n");
        assert!(change.removed.is_empty());
        assert_eq!(change.added, 1);
        assert_eq!(ApiChange::between(old, old), ApiChange::default());
    }

    #[test]
    fn the_required_version_follows_semver_below_and_above_one() {
        let breaking = ApiChange {
            removed: vec!["pub fn gone()".to_owned()],
            added: 0,
        };
        let additive = ApiChange {
            removed: Vec::new(),
            added: 3,
        };
        assert_eq!(
            breaking.required_version(&version("0.1.4")),
            Some(version("0.2.0"))
        );
        assert_eq!(
            breaking.required_version(&version("1.3.2")),
            Some(version("2.0.0"))
        );
        assert_eq!(
            additive.required_version(&version("0.1.4")),
            Some(version("0.1.5"))
        );
        assert_eq!(
            additive.required_version(&version("1.3.2")),
            Some(version("1.4.0"))
        );
        assert_eq!(
            ApiChange::default().required_version(&version("0.1.0")),
            None
        );
        // 0.1.5 carries an addition but not a removal made after 0.1.4.
        assert!(version("0.1.5") < breaking.required_version(&version("0.1.4")).unwrap());
    }

    #[test]
    fn the_last_release_is_the_newest_tag_of_the_package_by_version() {
        let repo = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let status = Command::new("git")
                .current_dir(repo.path())
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        git(&["init", "-q"]);
        git(&["commit", "-q", "--allow-empty", "-m", "first"]);
        assert_eq!(last_release(repo.path(), "marketplace-client"), None);
        for tag in [
            "marketplace-client-v0.2.0",
            "marketplace-client-v0.10.0",
            "marketplace-client-v0.9.1",
            "marketplace-fake-v0.11.0",
            "marketplace-client-vnot-a-version",
        ] {
            git(&["tag", tag]);
        }
        assert_eq!(
            last_release(repo.path(), "marketplace-client"),
            Some(("marketplace-client-v0.10.0".to_owned(), version("0.10.0")))
        );
    }
}
