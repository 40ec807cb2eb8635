//! The `fake-marketplace` binary as `cargo test --workspace` builds it, for the tests that run
//! it as a process (a binary of another package gets no `CARGO_BIN_EXE_` path).
//!
//! It is asked of cargo with the suite's own selection: `cargo test --workspace --no-run
//! --test certificate` (the fake's integration test, which needs the binary) resolves the
//! features `cargo test --workspace` resolves, so after the suite's build it rebuilds nothing
//! and leaves the suite's binary in place; run alone, it builds what is out of date. `cargo
//! build -p marketplace-fake` would resolve the fake's features alone: its dependencies built
//! a second time (minutes on a fresh machine) and the suite's binary replaced by another.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The binary's path, beside the test's own profile folder (`target/<profile>/`), built once.
pub fn fake_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let target_dir = profile_dir.parent().expect("the target directory");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("a package of the workspace");
    let output = Command::new(cargo)
        .args([
            "test",
            "--quiet",
            "--workspace",
            "--no-run",
            "--test",
            "certificate",
        ])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "the fake's binary builds:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let binary = profile_dir.join("fake-marketplace");
    assert!(binary.is_file(), "no fake binary at {}", binary.display());
    binary
}
