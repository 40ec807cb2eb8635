//! A Python venv under the target directory's `tmp/` (`CARGO_TARGET_TMPDIR`) with pinned
//! packages, made on first use, for the suites' Python judges (oauthlib in
//! `signing_oracles.rs`; openapi-spec-validator and Schemathesis in `openapi_judges.rs`).
//!
//! Packages come from a requirements file pinned by hash (`pip install --require-hashes
//! --no-deps -r`); the venv is made beside its place and renamed into it, so an interrupted
//! install is never taken for a finished one, and it is made again when the file changes.
//! Without CPython 3 (with `venv` and pip) or, the first time, PyPI, the caller fails with
//! what to install: a judge never skips.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

use marketplace_client::files::OutputDir;

/// What to install when Python is missing or cannot make a venv.
pub const INSTALL_HINT: &str = concat!(
    "the Python judges need CPython 3 with the venv module and pip \
     (Debian/Ubuntu: `apt-get install python3 python3-venv`; elsewhere python.org's installer), \
     and PyPI the first time (to install the pinned packages into ",
    env!("CARGO_TARGET_TMPDIR"),
    ")"
);

/// The venv `name` under `CARGO_TARGET_TMPDIR` with the packages of `requirements`
/// installed, made on first use; `probe` is Python code that must run in it (imports).
pub fn venv(name: &str, requirements: &str, probe: &str) -> PathBuf {
    // Tests of one binary run on threads of one process: one of them installs, the others
    // wait for it and find the venv made.
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(PoisonError::into_inner);
    let pinned = std::fs::read_to_string(requirements)
        .unwrap_or_else(|error| panic!("reading {requirements}: {error}"));
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let marker = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&marker).is_ok_and(|installed| installed == pinned) {
        return venv;
    }
    // Through the one writer (marketplace_client::files): the partial venv and the rename
    // never follow a link planted in the scratch folder.
    let scratch = OutputDir::create(env!("CARGO_TARGET_TMPDIR"))
        .unwrap_or_else(|error| panic!("the scratch folder: {error}"));
    let partial_name = format!("{name}.partial-{}", std::process::id());
    let partial = scratch.path().join(&partial_name);
    scratch.remove_all(&partial_name).ok();
    let python = system_python();
    run(
        Command::new(&python).args(["-m", "venv"]).arg(&partial),
        "creating a venv",
    );
    run(
        Command::new(bin(&partial, "python"))
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
                "--require-hashes",
                "--no-deps",
                "-r",
            ])
            .arg(requirements),
        &format!("installing {requirements} from PyPI"),
    );
    scratch
        .write(
            Path::new(&partial_name).join("installed-requirements.txt"),
            &pinned,
        )
        .unwrap_or_else(|error| panic!("marking the venv installed: {error}"));
    scratch.remove_all(name).ok();
    if scratch.rename(&partial_name, name).is_err() {
        // Another test process finished first: use its venv.
        scratch.remove_all(&partial_name).ok();
    }
    // A venv is not relocatable, so check the renamed one runs.
    run(
        Command::new(bin(&venv, "python")).args(["-c", probe]),
        &format!("running `{probe}` in the venv"),
    );
    venv
}

/// A program in a venv's `bin` (`Scripts` on Windows).
pub fn bin(venv: &Path, program: &str) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join(format!("{program}.exe"))
    } else {
        venv.join("bin").join(program)
    }
}

/// The first of `python3`, `python` on the PATH that is Python 3.
fn system_python() -> String {
    ["python3", "python"]
        .into_iter()
        .find(|candidate| {
            Command::new(candidate)
                .args(["-c", "import sys; sys.exit(sys.version_info[0] != 3)"])
                .output()
                .is_ok_and(|output| output.status.success())
        })
        .unwrap_or_else(|| panic!("no Python 3 found (tried python3, python): {INSTALL_HINT}"))
        .to_owned()
}

/// Runs `command`, failing with its output and the install hint.
pub fn run(command: &mut Command, what: &str) {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("{what}: {error}; {INSTALL_HINT}"));
    assert!(
        output.status.success(),
        "{what} failed ({}): {}{}\n{INSTALL_HINT}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
