//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//! `cargo xtask --help` lists the commands, and `cargo xtask <command> --help` says what each is
//! for, its options, an example and the exit codes (the command line is `cli.rs`):
//!
//! - `codegen [--check]` regenerates the client (`generated-client/src/generated/`), the fake's
//!   wire shapes and `spec/README.md`'s generated part from `spec/`; `--check` fails, with a
//!   unified diff, when the committed code is stale.
//! - `spec-diff [--base REV] [--head REV] [--format text|markdown|json|changelog]
//!   [--fail-on never|breaking|any]` reviews what a spec change does (see `docs/reviewing-spec-changes.md`).
//! - `spec-audit [--reference PATH]` checks the spec against the reference
//!   (`../shared/marketplace-api.md`, else its snapshot `spec/reference/marketplace-api.md`):
//!   what is missing, undocumented or typed narrower without evidence.
//! - `wire-audit [--spec DIR] [--propose] [--propose-into DIR] <RECORDING>…` checks recorded
//!   traffic against the spec and proposes spec edits, judged by spec-diff.
//! - `public-api [--check]` writes the public API of each published crate to its
//!   `public-api.txt`; `--check` fails when the API differs from it, moved since `main` without
//!   a `CHANGELOG.md` entry, or moved further than the version since the last release.
//! - `package` packages and verifies the published crates (`cargo publish --dry-run`), then
//!   tests the app of `tests/app` against the packages.
//! - `msrv` checks that no dependency of a published crate needs a newer Rust than the declared
//!   `rust-version`.
//! - `target-dir [--manifest-path PATH]` prints cargo's target directory (from `cargo
//!   metadata`: `CARGO_TARGET_DIR` and `build.target-dir` followed), for the scripts.
//!
//! Every command that judges says what it read, judged and left out. Exit codes, the same for
//! every command: 0 done and nothing found; 1 findings (differences, stale files, a moved API,
//! breaking changes under `--fail-on`, a failed package or dependency check); 2 a usage or
//! input error (an unknown command or option, `cargo xtask` alone, unreadable or invalid input,
//! nothing to judge).

// Every line goes through `cli::Output` (see lib.rs).
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

use std::process::ExitCode;

use xtask::cli::{self, Output};
use xtask::codegen;

fn main() -> ExitCode {
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    // As the operating system gave them: an argument that is not UTF-8 is clap's usage error,
    // never a panic.
    let code = cli::run(
        std::env::args_os().skip(1),
        &codegen::workspace_root(),
        &mut Output::new(&mut stdout, &mut stderr),
    );
    ExitCode::from(code)
}
