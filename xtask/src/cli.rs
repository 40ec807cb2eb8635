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

use crate::{
    codegen, msrv, openapi, package, public_api, spec_audit, spec_diff, target_dir, wire_audit,
};

const USAGE: &str = "usage: cargo xtask codegen [--check]
       cargo xtask openapi [--check] [--html DIR]
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
                codegen::apply(root, &changes)?;
                output.print(format!("{}\n", codegen::summary(root, &changes)));
                Ok(())
            })
            .map_err(|error| error.to_string()),
        ["codegen", "--check"] => codegen::check(root)
            .map(|()| output.print(format!("{}\n", codegen::summary(root, &[]))))
            .map_err(|error| error.to_string()),
        ["openapi"] => openapi::write(root)
            .map(|summary| output.print(format!("{summary}\n")))
            .map_err(|error| error.to_string()),
        ["openapi", "--check"] => openapi::check(root)
            .map(|()| output.print("spec/openapi.json is up to date with spec/\n"))
            .map_err(|error| error.to_string()),
        ["openapi", "--html", dir] => std::env::current_dir()
            .map_err(|error| format!("the current directory: {error}"))
            .and_then(|here| openapi::html(root, &here.join(dir)).map_err(|e| e.to_string()))
            .map(|page| output.print(format!("wrote {}\n", page.display()))),
        ["spec-diff", rest @ ..] => {
            return report(output, spec_diff::Options::parse(rest), |options| {
                spec_diff::run(root, options).map(|outcome| (outcome.report, outcome.failed))
            });
        }
        ["spec-audit", rest @ ..] => {
            return report(output, spec_audit::Options::parse(rest), |options| {
                let outcome = spec_audit::run(root, options)?;
                let failed = !outcome.findings.is_empty();
                Ok::<_, spec_audit::SpecAuditError>((outcome.report, failed))
            });
        }
        ["wire-audit", rest @ ..] => {
            return report(output, wire_audit::Options::parse(rest), |options| {
                let outcome = wire_audit::run(root, options)?;
                let failed = !outcome.audit.findings.is_empty();
                Ok::<_, wire_audit::WireAuditError>((outcome.report, failed))
            });
        }
        ["public-api"] => public_api::update(root)
            .map(|changed| match changed.as_slice() {
                [] => output.print("the public API snapshots are up to date\n"),
                changed => output.print(format!("updated {}\n", changed.join(", "))),
            })
            .map_err(|error| error.to_string()),
        ["public-api", "--check"] => public_api::check(root)
            .map(|semver| {
                output.print("the public API is its snapshot\n");
                output.print(semver);
            })
            .map_err(|error| error.to_string()),
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
        ["msrv"] => msrv::check(root)
            .map(|report| output.print(report))
            .map_err(|error| error.to_string()),
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

/// Runs a command that reports: its options parsed, then its report printed. 1 when the
/// command says it failed (findings, or breaking changes under `--fail-on`), 2 when it could
/// not run or its arguments are wrong.
fn report<O, E: Display>(
    output: &mut Output<'_>,
    options: Result<O, String>,
    run: impl FnOnce(&O) -> Result<(String, bool), E>,
) -> u8 {
    let options = match options {
        Ok(options) => options,
        Err(error) => {
            output.error(format!("error: {error}\n{USAGE}"));
            return 2;
        }
    };
    match run(&options) {
        Ok((report, failed)) => {
            output.print(report);
            u8::from(failed)
        }
        Err(error) => {
            output.error(format!("error: {error}"));
            2
        }
    }
}
