//! Where cargo writes its build output, found the way cargo finds it.
//!
//! The target directory is `target/` beside the workspace's manifest only by default:
//! `CARGO_TARGET_DIR`, `build.target-dir` in a cargo config (found from the current directory
//! up, and in `$CARGO_HOME`) or `CARGO_BUILD_TARGET_DIR` put it elsewhere. Rather than repeat
//! those rules, every command that writes under the target directory (or reads what cargo
//! wrote there, such as `cargo package`'s `.crate` files) asks cargo: `cargo metadata
//! --format-version 1 --no-deps`, whose `target_directory` is the folder after all of them,
//! absolute. `cargo xtask target-dir` prints it for the scripts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::command_line::CommandError;

/// Why the target directory could not be found.
#[derive(Debug, thiserror::Error)]
pub enum TargetDirError {
    /// cargo could not be started.
    #[error("cannot run `{} metadata` to find the target directory: {source}", cargo.display())]
    Run {
        /// The cargo program.
        cargo: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `cargo metadata` failed.
    #[error(
        "`{} metadata --format-version 1 --no-deps` in {} failed ({status}), so the target \
         directory is unknown:\n{stderr}",
        cargo.display(),
        dir.display()
    )]
    Failed {
        /// The cargo program.
        cargo: PathBuf,
        /// Where it ran.
        dir: PathBuf,
        /// Its exit status.
        status: String,
        /// What it said.
        stderr: String,
    },
    /// `cargo metadata` printed something without a `target_directory`.
    #[error(
        "`{} metadata --format-version 1 --no-deps` printed no target_directory: {reason}",
        cargo.display()
    )]
    Parse {
        /// The cargo program.
        cargo: PathBuf,
        /// What was wrong with its output.
        reason: String,
    },
}

/// The cargo program: `$CARGO` (set by cargo for what it runs, `cargo xtask` included), else
/// `cargo` from the `PATH`.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"))
}

impl CommandError for TargetDirError {
    fn is_finding(&self) -> bool {
        false
    }
}

/// The target directory of the workspace at `root`, as cargo run in `root` uses it.
pub fn of_workspace(root: &Path) -> Result<PathBuf, TargetDirError> {
    resolve(command(root, None))
}

/// The target directory of the workspace of `manifest` (a `Cargo.toml`), as cargo run in
/// `dir` with `--manifest-path manifest` uses it (cargo reads its configs from `dir`).
pub fn of_manifest(dir: &Path, manifest: &Path) -> Result<PathBuf, TargetDirError> {
    resolve(command(dir, Some(manifest)))
}

/// `cargo metadata --format-version 1 --no-deps` in `dir` (for `manifest` when given).
fn command(dir: &Path, manifest: Option<&Path>) -> Command {
    let mut command = Command::new(cargo());
    command
        .current_dir(dir)
        .args(["metadata", "--format-version", "1", "--no-deps"]);
    if let Some(manifest) = manifest {
        command.arg("--manifest-path").arg(manifest);
    }
    command
}

/// Runs `command` (a `cargo metadata`) once and reads its `target_directory`.
fn resolve(mut command: Command) -> Result<PathBuf, TargetDirError> {
    #[derive(serde::Deserialize)]
    struct Metadata {
        target_directory: PathBuf,
    }
    let cargo = PathBuf::from(command.get_program());
    let output = command.output().map_err(|source| TargetDirError::Run {
        cargo: cargo.clone(),
        source,
    })?;
    if !output.status.success() {
        return Err(TargetDirError::Failed {
            cargo,
            dir: command
                .get_current_dir()
                .map_or_else(PathBuf::new, Path::to_path_buf),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_owned(),
        });
    }
    let metadata: Metadata =
        serde_json::from_slice(&output.stdout).map_err(|error| TargetDirError::Parse {
            cargo: cargo.clone(),
            reason: error.to_string(),
        })?;
    if !metadata.target_directory.is_absolute() {
        return Err(TargetDirError::Parse {
            cargo,
            reason: format!(
                "{} is not an absolute path",
                metadata.target_directory.display()
            ),
        });
    }
    Ok(metadata.target_directory)
}

#[cfg(test)]
mod tests {
    use marketplace_client::files::OutputDir;

    use super::*;

    /// A package of its own in a temporary folder, outside this workspace.
    fn package() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::open(dir.path()).unwrap();
        out.write(
            "Cargo.toml",
            "[package]\nname = \"probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n",
        )
        .unwrap();
        out.write("src/lib.rs", "").unwrap();
        dir
    }

    /// What cargo says, with the test's own `CARGO_TARGET_DIR` (if any) removed.
    fn without_override(dir: &Path) -> Command {
        let mut command = command(dir, None);
        command
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR");
        command
    }

    #[test]
    fn cargo_target_dir_is_honoured() {
        let dir = package();
        let elsewhere = tempfile::tempdir().unwrap();
        let mut command = without_override(dir.path());
        command.env("CARGO_TARGET_DIR", elsewhere.path());
        assert_eq!(resolve(command).unwrap(), elsewhere.path());
    }

    #[test]
    fn build_target_dir_in_a_cargo_config_is_honoured() {
        let dir = package();
        OutputDir::open(dir.path())
            .unwrap()
            .write(
                ".cargo/config.toml",
                "[build]\ntarget-dir = \"build-output\"\n",
            )
            .unwrap();
        let found = resolve(without_override(dir.path())).unwrap();
        // A relative target-dir in a config is relative to the folder holding `.cargo/`.
        assert_eq!(
            found,
            dir.path().canonicalize().unwrap().join("build-output"),
            "{}",
            found.display()
        );
    }

    #[test]
    fn a_folder_without_a_workspace_is_an_error_that_says_what_failed() {
        let dir = tempfile::tempdir().unwrap();
        let error = of_manifest(dir.path(), &dir.path().join("Cargo.toml")).unwrap_err();
        assert!(matches!(error, TargetDirError::Failed { .. }), "{error}");
        let message = error.to_string();
        assert!(
            message.contains("metadata --format-version 1 --no-deps")
                && message.contains("the target directory is unknown")
                && message.contains("Cargo.toml"),
            "{message}"
        );
    }
}
