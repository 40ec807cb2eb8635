//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `cargo xtask codegen` regenerates `generated-client/src/generated/` from `spec/`.
//! - `cargo xtask codegen --check` fails, with a unified diff, when the committed code is stale.

use std::process::ExitCode;

use xtask::codegen;

const USAGE: &str = "usage: cargo xtask codegen [--check]";

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
