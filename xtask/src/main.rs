//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `cargo xtask codegen` regenerates `generated-client/src/generated/` from `spec/`.
//! - `cargo xtask codegen --check` fails, with a unified diff, when the committed code is stale.
//! - `cargo xtask spec-diff [--base REV] [--head REV] [--format text|markdown|json]
//!   [--fail-on breaking|any]` reviews what a spec change does (see the README).
//! - `cargo xtask spec-audit [--reference PATH]` checks the spec against the reference
//!   (`../shared/marketplace-api.md`): what is missing, undocumented or typed narrower without
//!   evidence. Exits 1 when it finds anything, 2 when it cannot read either side.

use std::process::ExitCode;

use xtask::{codegen, spec_audit, spec_diff};

const USAGE: &str = "usage: cargo xtask codegen [--check]
       cargo xtask spec-diff [--base REV] [--head REV] [--format text|markdown|json] [--fail-on breaking|any]
       cargo xtask spec-audit [--reference PATH]";

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
        ["codegen", "--check"] => codegen::check(&root).map(|()| {
            println!(
                "{} is up to date with {}/",
                codegen::GENERATED_DIR,
                codegen::SPEC_DIR
            );
        }),
        ["spec-diff", rest @ ..] => {
            let options = match spec_diff::Options::parse(rest) {
                Ok(options) => options,
                Err(error) => {
                    eprintln!("error: {error}\n{USAGE}");
                    return ExitCode::from(2);
                }
            };
            return match spec_diff::run(&root, &options) {
                Ok(outcome) => {
                    print!("{}", outcome.report);
                    if outcome.failed {
                        ExitCode::FAILURE
                    } else {
                        ExitCode::SUCCESS
                    }
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(2)
                }
            };
        }
        ["spec-audit", rest @ ..] => {
            let options = match spec_audit::Options::parse(rest) {
                Ok(options) => options,
                Err(error) => {
                    eprintln!("error: {error}\n{USAGE}");
                    return ExitCode::from(2);
                }
            };
            return match spec_audit::run(&root, &options) {
                Ok(outcome) => {
                    print!("{}", outcome.report);
                    if outcome.findings.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(2)
                }
            };
        }
        ["help" | "--help" | "-h"] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
