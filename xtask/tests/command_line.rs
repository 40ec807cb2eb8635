//! `cargo xtask` as the ecosystem writes command lines: every command of the clap tree
//! (enumerated from it, so a new command is covered without a word here) answers `-h`,
//! `--help` and `help <command>` with a one-line description, each option explained, an
//! example and the exit codes; `cargo xtask` alone prints the overview and exits 2; a
//! misspelled command or option says what was meant and exits 2.

use std::path::Path;

use xtask::cli::{self, Output};
use xtask::codegen;
use xtask::command_line::EXIT_CODES;

/// `cargo xtask ARGS` in the workspace: the exit code, standard output and error.
fn run_cli(args: &[&str]) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(
        args,
        &codegen::workspace_root(),
        &mut Output::new(&mut out, &mut err),
    );
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The names of every command of the tree.
fn command_names() -> Vec<String> {
    cli::command()
        .get_subcommands()
        .map(|command| command.get_name().to_owned())
        .collect()
}

/// What the help of `command` must say, in `printed`: its description, each of its options with
/// its explanation, an example, and the exit codes at the end.
fn assert_complete_help(command: &clap::Command, printed: &str, shown_as: &str) {
    let about = command
        .get_about()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(!about.trim().is_empty(), "{shown_as}: no description");
    assert!(
        !about.contains('\n'),
        "{shown_as}: the description is one line"
    );
    assert!(
        printed.contains(about.trim_end_matches('.')),
        "{shown_as}: {printed}"
    );
    for arg in command.get_arguments() {
        if arg.get_id() == "help" {
            continue;
        }
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        assert!(
            !help.trim().is_empty(),
            "{shown_as}: {} is not explained",
            arg.get_id()
        );
        let name = match arg.get_long() {
            Some(long) => format!("--{long}"),
            None => format!(
                "<{}>",
                arg.get_value_names()
                    .and_then(|names| names.first())
                    .map_or(arg.get_id().to_string(), ToString::to_string)
            ),
        };
        assert!(printed.contains(&name), "{shown_as}: {name} in {printed}");
        assert!(
            printed.contains(help.trim()),
            "{shown_as}: {help} in {printed}"
        );
    }
    assert!(
        printed.contains("\nExample"),
        "{shown_as}: no example: {printed}"
    );
    assert!(
        printed.contains(&format!("\n  {shown_as}")),
        "{shown_as}: no example of the command itself: {printed}"
    );
    assert!(
        printed.trim_end().ends_with(EXIT_CODES),
        "{shown_as}: the exit codes do not end the help: {printed}"
    );
}

#[test]
fn every_command_answers_help_with_its_description_options_example_and_exit_codes() {
    let tree = cli::command();
    let names = command_names();
    assert!(names.len() >= 8, "{names:?}");
    for flag in ["-h", "--help"] {
        let (code, out, err) = run_cli(&[flag]);
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "{err}");
        assert_complete_help(&tree, &out, "cargo xtask");
        for name in &names {
            assert!(
                out.contains(&format!("  {name} ")),
                "{name} not listed: {out}"
            );
        }
    }
    for command in tree.get_subcommands() {
        let name = command.get_name();
        for args in [[name, "-h"], [name, "--help"], ["help", name]] {
            let (code, out, err) = run_cli(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(err.is_empty(), "{args:?}: {err}");
            assert!(
                out.contains(&format!("Usage: cargo xtask {name}")),
                "{args:?}: {out}"
            );
            assert_complete_help(command, &out, &format!("cargo xtask {name}"));
        }
    }
}

#[test]
fn no_command_prints_the_overview_and_exits_2() {
    let (code, out, err) = run_cli(&[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    for name in command_names() {
        assert!(
            err.contains(&format!("  {name} ")),
            "{name} not listed: {err}"
        );
    }
    assert!(err.trim_end().ends_with(EXIT_CODES), "{err}");
}

/// Misspellings of `name`: its last character dropped, its first two swapped, a character
/// doubled.
fn misspellings(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut swapped = chars.clone();
    swapped.swap(0, 1);
    let mut doubled = chars.clone();
    doubled.insert(2, chars[2]);
    vec![
        chars[..chars.len() - 1].iter().collect(),
        swapped.into_iter().collect(),
        doubled.into_iter().collect(),
    ]
}

#[test]
fn a_misspelled_command_or_option_says_what_was_meant_and_exits_2() {
    let (code, out, err) = run_cli(&["spec-dif"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("unrecognized subcommand 'spec-dif'"), "{err}");
    assert!(err.contains("'spec-diff'"), "{err}");
    for name in command_names() {
        for typo in misspellings(&name) {
            let (code, _, err) = run_cli(&[typo.as_str()]);
            assert_eq!(code, 2, "{typo}: {err}");
            assert!(
                err.contains(&format!("'{name}'")),
                "{typo} -> {name}: {err}"
            );
        }
    }
    for (args, meant) in [
        (&["spec-diff", "--bse", "main"][..], "--base"),
        (&["spec-diff", "--format", "jsn"][..], "json"),
        (&["wire-audit", "--propse", "r.jsonl"][..], "--propose"),
        (&["codegen", "--chek"][..], "--check"),
    ] {
        let (code, _, err) = run_cli(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(meant), "{args:?}: {err}");
    }
}

#[test]
fn wrong_arguments_are_usage_errors_of_every_command() {
    for name in command_names() {
        let (code, out, err) = run_cli(&[name.as_str(), "--no-such-option"]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(out.is_empty(), "{name}: {out}");
        assert!(
            err.starts_with("error: unexpected argument '--no-such-option'"),
            "{name}: {err}"
        );
        assert!(
            err.contains(&format!("Usage: cargo xtask {name}")),
            "{name}: {err}"
        );
    }
    for args in [
        &["wire-audit"][..],
        &["spec-audit", "--reference"][..],
        &["spec-diff", "--fail-on", "sometimes"][..],
        &["target-dir", "--manifest-path"][..],
    ] {
        let (code, _, err) = run_cli(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}

/// The manual's page of commands (`docs/commands.md`) lists every command.
#[test]
fn the_manual_names_every_command() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/commands.md"))
            .unwrap();
    for name in command_names() {
        assert!(
            page.contains(&format!("`cargo xtask {name}")),
            "docs/commands.md does not name cargo xtask {name}"
        );
    }
}
