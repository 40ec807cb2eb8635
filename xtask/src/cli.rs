//! The command line of `cargo xtask`: the arguments read, the command run, and everything it
//! prints passed through one escaping function on the way out.
//!
//! Reports carry untrusted text: spec strings, recorded values, file names, git's output
//! (commit subjects, revisions as typed). [`Output`] writes all of it through
//! [`marketplace_codegen::text::escape_controls`], so no control character (ESC, CR, other C0
//! and C1 controls, bidirectional-text controls) reaches a terminal or a CI log from any
//! command: there is no other way to print.

use std::fmt::Display;
use std::io::Write;
use std::path::Path;

use marketplace_codegen::text::escape_controls;

use crate::judgement::{Checked, Judgement, JudgementError};
use crate::{codegen, msrv, package, public_api, spec_audit, spec_diff, target_dir, wire_audit};

const USAGE: &str = "usage: cargo xtask codegen [--check]
       cargo xtask spec-diff [--base REV] [--head REV] [--format text|markdown|json|changelog] [--fail-on breaking|any]
       cargo xtask spec-audit [--reference PATH]
       cargo xtask public-api [--check]
       cargo xtask package
       cargo xtask msrv
       cargo xtask wire-audit [--spec DIR] [--propose] [--propose-into DIR] <recording>...
       cargo xtask target-dir [--manifest-path PATH]";

/// Where a command prints: its standard output and error, escaped.
pub struct Output<'w> {
    out: &'w mut dyn Write,
    err: &'w mut dyn Write,
}

impl<'w> Output<'w> {
    /// Prints to `out` and `err`.
    pub fn new(out: &'w mut dyn Write, err: &'w mut dyn Write) -> Self {
        Output { out, err }
    }

    /// Writes `text` to standard output, control characters escaped.
    pub fn print(&mut self, text: impl Display) {
        let _ = self
            .out
            .write_all(escape_controls(&text.to_string()).as_bytes());
    }

    /// Writes `text` and a line end to standard error, control characters escaped.
    pub fn error(&mut self, text: impl Display) {
        let _ = writeln!(self.err, "{}", escape_controls(&text.to_string()));
    }
}

/// Runs the command `args` (without the program name) in the workspace at `root`; returns the
/// exit code: 0 success, 1 failure or findings, 2 wrong arguments or a command that could not
/// run.
pub fn run(args: &[String], root: &Path, output: &mut Output<'_>) -> u8 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result: Result<(), String> = match args.as_slice() {
        ["codegen"] => codegen::plan(root)
            .and_then(|changes| {
                codegen::apply(&changes)?;
                output.print(format!("{}\n", codegen::summary(root, &changes)));
                Ok(())
            })
            .map_err(|error| error.to_string()),
        ["codegen", "--check"] => {
            let checked = codegen::check(root).map(|judged| Checked {
                report: format!(
                    "{}\ncodegen --check: {judged}\n",
                    codegen::summary(root, &[])
                ),
                judged,
            });
            return judge(output, checked);
        }
        ["spec-diff", rest @ ..] => {
            return with_options(output, spec_diff::Options::parse(rest), |options| {
                spec_diff::run(root, options)
            });
        }
        ["spec-audit", rest @ ..] => {
            return with_options(output, spec_audit::Options::parse(rest), |options| {
                spec_audit::run(root, options)
            });
        }
        ["wire-audit", rest @ ..] => {
            return with_options(output, wire_audit::Options::parse(rest), |options| {
                wire_audit::run(root, options)
            });
        }
        ["public-api"] => public_api::update(root)
            .map(|changed| match changed.as_slice() {
                [] => output.print("the public API snapshots are up to date\n"),
                changed => output.print(format!("updated {}\n", changed.join(", "))),
            })
            .map_err(|error| error.to_string()),
        ["public-api", "--check"] => return judge(output, public_api::check(root)),
        ["package"] => package::run(root).map_err(|error| error.to_string()),
        ["target-dir"] => target_dir::of_workspace(root)
            .map(|dir| output.print(format!("{}\n", dir.display())))
            .map_err(|error| error.to_string()),
        ["target-dir", "--manifest-path", manifest] => {
            // Relative to where the command runs, as cargo reads it; cargo itself runs there too.
            std::env::current_dir()
                .map_err(|error| format!("the current directory: {error}"))
                .and_then(|dir| {
                    target_dir::of_manifest(&dir, &dir.join(manifest))
                        .map_err(|error| error.to_string())
                })
                .map(|dir| output.print(format!("{}\n", dir.display())))
        }
        ["msrv"] => return judge(output, msrv::check(root)),
        ["help" | "--help" | "-h"] => {
            output.print(format!("{USAGE}\n"));
            Ok(())
        }
        _ => {
            output.error(USAGE);
            return 2;
        }
    };
    match result {
        Ok(()) => 0,
        Err(error) => {
            output.error(format!("error: {error}"));
            1
        }
    }
}

/// Runs a judging command whose options are parsed first: 2 when they are wrong.
fn with_options<O, J: Judgement, E: JudgementError>(
    output: &mut Output<'_>,
    options: Result<O, String>,
    run: impl FnOnce(&O) -> Result<J, E>,
) -> u8 {
    match options {
        Ok(options) => judge(output, run(&options)),
        Err(error) => {
            output.error(format!("error: {error}\n{USAGE}"));
            2
        }
    }
}

/// Prints a judgement: its report, and what it judged on standard error when the report (JSON,
/// changelog entries) does not say it. 1 when it found something, 2 when it could not judge
/// (nothing judged among the reasons: see [`crate::judgement`]).
fn judge<J: Judgement, E: JudgementError>(output: &mut Output<'_>, result: Result<J, E>) -> u8 {
    match result {
        Ok(outcome) => {
            output.print(outcome.report());
            let judged = outcome.judged();
            if !outcome.report().contains(&judged.to_string()) {
                output.error(format!("{}: {judged}", judged.tally().command));
            }
            u8::from(outcome.failed())
        }
        Err(error) => {
            output.error(format!("error: {error}"));
            if error.is_finding() { 1 } else { 2 }
        }
    }
}
