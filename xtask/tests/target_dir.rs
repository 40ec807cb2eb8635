//! `cargo xtask target-dir`: cargo's target directory as cargo finds it, which the other
//! commands (package, public-api) and the scripts (`.ci/run`, the bench and fuzz scripts)
//! build under. Run as the scripts run it, a process with an environment of its own.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap()
}

/// `xtask target-dir <args>` at the workspace root, with `CARGO_TARGET_DIR` set to
/// `override_dir` or removed; its standard output.
fn target_dir(args: &[&str], override_dir: Option<&Path>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .current_dir(workspace_root())
        .arg("target-dir")
        .args(args)
        .env_remove("CARGO_BUILD_TARGET_DIR");
    match override_dir {
        Some(dir) => command.env("CARGO_TARGET_DIR", dir),
        None => command.env_remove("CARGO_TARGET_DIR"),
    };
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn cargo_target_dir_is_honoured_for_the_workspace_and_the_fuzz_workspace() {
    let elsewhere = tempfile::tempdir().unwrap();
    let expected = format!("{}\n", elsewhere.path().display());
    assert_eq!(target_dir(&[], Some(elsewhere.path())), expected);
    assert_eq!(
        target_dir(
            &["--manifest-path", "tests/fuzz/Cargo.toml"],
            Some(elsewhere.path())
        ),
        expected
    );
}

#[test]
fn a_manifest_that_is_not_there_is_an_error_that_says_what_failed() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(workspace_root())
        .args(["target-dir", "--manifest-path", "no/such/Cargo.toml"])
        .output()
        .unwrap();
    // An input error, as for every command.
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("metadata --format-version 1 --no-deps")
            && stderr.contains("the target directory is unknown"),
        "{stderr}"
    );
}
