//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `cargo xtask codegen` regenerates `generated-client/src/generated/` from `spec/`.
//! - `cargo xtask codegen --check` fails, with a unified diff, when the committed code is stale.
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

use std::process::ExitCode;

use xtask::{codegen, msrv, package, public_api, spec_audit, spec_diff, wire_audit};

const USAGE: &str = "usage: cargo xtask codegen [--check]
       cargo xtask spec-diff [--base REV] [--head REV] [--format text|markdown|json|changelog] [--fail-on breaking|any]
       cargo xtask spec-audit [--reference PATH]
       cargo xtask public-api [--check]
       cargo xtask package
       cargo xtask msrv
       cargo xtask wire-audit [--spec DIR] [--propose] [--propose-into DIR] <recording>...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = codegen::workspace_root();
    let result = match args.as_slice() {
        ["codegen"] => codegen::plan(&root).and_then(|changes| {
            codegen::apply(&changes)?;
            println!("{}", codegen::summary(&root, &changes));
            Ok(())
        }),
        ["codegen", "--check"] => {
            codegen::check(&root).map(|()| println!("{}", codegen::summary(&root, &[])))
        }
        ["spec-diff", rest @ ..] => {
            return report(spec_diff::Options::parse(rest), |options| {
                spec_diff::run(&root, options).map(|outcome| (outcome.report, outcome.failed))
            });
        }
        ["spec-audit", rest @ ..] => {
            return report(spec_audit::Options::parse(rest), |options| {
                let outcome = spec_audit::run(&root, options)?;
                let failed = !outcome.findings.is_empty();
                Ok::<_, spec_audit::SpecAuditError>((outcome.report, failed))
            });
        }
        ["wire-audit", rest @ ..] => {
            return report(wire_audit::Options::parse(rest), |options| {
                let outcome = wire_audit::run(&root, options)?;
                let failed = !outcome.audit.findings.is_empty();
                Ok::<_, wire_audit::WireAuditError>((outcome.report, failed))
            });
        }
        ["public-api"] => {
            return finish(
                public_api::update(&root).map(|changed| match changed.as_slice() {
                    [] => println!("the public API snapshots are up to date"),
                    changed => println!("updated {}", changed.join(", ")),
                }),
            );
        }
        ["public-api", "--check"] => {
            return finish(public_api::check(&root).map(|semver| {
                println!("the public API is its snapshot");
                print!("{semver}");
            }));
        }
        ["package"] => return finish(package::run(&root)),
        ["msrv"] => return finish(msrv::check(&root).map(|report| print!("{report}"))),
        ["help" | "--help" | "-h"] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    finish(result)
}

/// Exits 0 after success, 1 after printing the error.
fn finish<E: std::fmt::Display>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a command that reports: its options parsed, then its report printed. Exits 1 when the
/// command says it failed (findings, or breaking changes under `--fail-on`), 2 when it could
/// not run or its arguments are wrong.
fn report<O, E: std::fmt::Display>(
    options: Result<O, String>,
    run: impl FnOnce(&O) -> Result<(String, bool), E>,
) -> ExitCode {
    let options = match options {
        Ok(options) => options,
        Err(error) => {
            eprintln!("error: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok((report, failed)) => {
            print!("{report}");
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}
