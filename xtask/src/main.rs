//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `cargo xtask codegen` regenerates `generated-client/src/generated/` from `spec/`.
//! - `cargo xtask codegen --check` fails, with a unified diff, when the committed code is stale.
//! - `cargo xtask openapi` writes the OpenAPI export `spec/openapi.json` alone (`--check` fails
//!   when it is stale); `--html DIR` renders it into `DIR/index.html` with Redocly CLI.
//! - `cargo xtask spec-diff [--base REV] [--head REV] [--format text|markdown|json]
//!   [--fail-on breaking|any]` reviews what a spec change does (see the README).
//! - `cargo xtask spec-audit [--reference PATH]` checks the spec against the reference
//!   (`../shared/marketplace-api.md`, else its snapshot `spec/reference/marketplace-api.md`):
//!   what is missing, undocumented or typed narrower without
//!   evidence. Exits 1 when it finds anything, 2 when it cannot read either side.
//! - `cargo xtask public-api` writes the public API of each published crate to its
//!   `public-api.txt`; `--check` fails when the API differs from it, moved since `main`
//!   without a `CHANGELOG.md` entry, or moved further than the version since the last release
//!   (the semver check).
//! - `cargo xtask package` packages and verifies the published crates (`cargo publish
//!   --dry-run`), then tests the app of `tests/app` against the packages.
//! - `cargo xtask msrv` checks that no dependency of a published crate needs a newer Rust than
//!   the declared `rust-version`.
//! - `cargo xtask wire-audit [--spec DIR] [--propose] [--propose-into DIR] <recording>…`
//!   checks recorded traffic against the spec and proposes spec edits, judged by spec-diff.
//!   Exits 1 when it finds anything, 2 when it cannot read a recording or the spec.
//! - `cargo xtask target-dir` prints cargo's target directory for the workspace (from `cargo
//!   metadata`: `CARGO_TARGET_DIR` and `build.target-dir` followed), for the scripts; with
//!   `--manifest-path PATH`, the one of that manifest's workspace (`tests/fuzz`'s, say), as cargo
//!   run in the current directory finds it.

use std::process::ExitCode;

use xtask::cli::{self, Output};
use xtask::codegen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = cli::run(
        &args,
        &codegen::workspace_root(),
        &mut Output::new(&mut stdout, &mut stderr),
    );
    ExitCode::from(code)
}
