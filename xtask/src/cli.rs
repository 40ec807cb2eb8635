//! The command line of `cargo xtask`: the commands and their options (clap's derive, every
//! command with its `--help`: what it is for, each option, an example and the exit codes), the
//! command run, and everything it prints passed through one escaping function on the way out.
//!
//! Reports carry untrusted text: spec strings, recorded values, file names, git's output
//! (commit subjects, revisions as typed), and the arguments themselves, which clap's errors
//! quote. [`Output`] writes all of it through [`marketplace_codegen::text::escape_controls`]:
//! clap's help and errors are rendered to text ([`clap::Error::render`]) and printed through
//! it too, so no control character (ESC, CR, other C0 and C1 controls, bidirectional-text
//! controls) reaches a terminal or a CI log from any command: there is no other way to print.

use std::ffi::OsString;
use std::fmt::Display;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use marketplace_codegen::text::{Untrusted, escape_controls};

use crate::command_line::{CommandError, EXIT_CODES, FINDINGS, SUCCESS, USAGE};
use crate::judgement::{Checked, Judgement};
use crate::{
    codegen, msrv, openapi, package, public_api, spec_audit, spec_diff, target_dir, wire_audit,
};

/// `cargo xtask`: the project's automation.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "The project's automation: generate the client from the spec, review and audit the \
             spec, check the published crates",
    arg_required_else_help = true,
    disable_help_subcommand = true,
    after_help = "Examples:
  cargo xtask codegen --check
  cargo xtask spec-diff --base main
  cargo xtask spec-diff --help"
)]
struct CommandLine {
    #[command(subcommand)]
    command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Regenerates the client (generated-client/src/generated/), the fake's wire shapes,
    /// spec/openapi.json and spec/README.md's generated part from spec/
    ///
    /// Everything is generated in memory first: an invalid spec writes nothing. Only files
    /// whose bytes differ are written, and generated files the spec no longer produces are
    /// removed.
    #[command(after_help = "Examples:
  cargo xtask codegen           # regenerate after editing spec/
  cargo xtask codegen --check   # CI: fail with a unified diff when the committed code is stale")]
    Codegen {
        /// Write nothing: compare the committed generated files with what spec/ generates, and
        /// exit 1 with a unified diff when they differ
        #[arg(long)]
        check: bool,
    },
    /// Writes the OpenAPI 3.1 export of the spec (spec/openapi.json), checks it, or renders it
    /// as a browsable reference
    ///
    /// The export is one of codegen's outputs (cargo xtask codegen writes it too); this command
    /// writes or checks it alone. --html renders it with Redocly CLI's build-docs (installed
    /// pinned by xtask/redocly/package-lock.json with npm ci under the target directory's tmp/
    /// on first use; Node.js and npm needed) into DIR/index.html.
    #[command(after_help = "Examples:
  cargo xtask openapi                    # write spec/openapi.json when it differs
  cargo xtask openapi --check            # CI: exit 1 with a diff when it is stale
  cargo xtask openapi --html /tmp/ref    # then open /tmp/ref/index.html")]
    Openapi {
        /// Write nothing: exit 1 with a unified diff when spec/openapi.json is stale
        #[arg(long, conflicts_with = "html")]
        check: bool,
        /// Render the export as a browsable reference into DIR/index.html (writing the export
        /// first when it is stale)
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
    },
    /// Reviews a spec change: every change with its wire and Rust API verdicts, and the
    /// generated code's diff
    ///
    /// Both revisions are read with git (verified to name commits first) and compared rule by
    /// rule; nothing is written. The report says how many items were compared; a side that
    /// describes nothing is an input error.
    #[command(after_help = "Examples:
  cargo xtask spec-diff                                # the work tree against the merge base with main
  cargo xtask spec-diff --base main --head HEAD --format markdown
  cargo xtask spec-diff --fail-on breaking             # CI: exit 1 when a change breaks
  cargo xtask spec-diff --format changelog             # entries for CHANGELOG.md")]
    SpecDiff(spec_diff::Options),
    /// Audits the spec against the reference: what is missing, undocumented, or typed narrower
    /// without evidence
    ///
    /// One line per finding, located in the spec and in the reference, then what was read and
    /// judged. Nothing is written.
    #[command(after_help = "Examples:
  cargo xtask spec-audit
  cargo xtask spec-audit --reference ../shared/marketplace-api.md")]
    SpecAudit(spec_audit::Options),
    /// Checks recorded traffic against the spec, and proposes the spec edits the evidence
    /// supports
    ///
    /// Recordings are `.jsonl` files of marketplace_client::recording (a client's
    /// ClientBuilder::record, or a fake with MARKETPLACE_FAKE_RECORD_DIR). OAuth token answers,
    /// injected faults, refusals of requests outside the API, replayed answers and methods the
    /// spec does not have are left out and counted; recordings with nothing else are an input
    /// error.
    #[command(after_help = "Examples:
  cargo xtask wire-audit tests/app/tests/recordings
  cargo xtask wire-audit --propose recordings/
  cargo xtask wire-audit --propose-into /tmp/spec recordings/a.jsonl recordings/b.jsonl")]
    WireAudit(wire_audit::Options),
    /// Writes the public API of each published crate to its public-api.txt, or checks it
    ///
    /// The API is read from rustdoc's JSON (RUSTC_BOOTSTRAP=1 on the stable toolchain).
    #[command(after_help = "Examples:
  cargo xtask public-api           # after changing a published crate's API; then CHANGELOG.md
  cargo xtask public-api --check   # CI")]
    PublicApi {
        /// Write nothing: exit 1 when an API differs from its snapshot, moved since main
        /// without a CHANGELOG.md entry, or moved further than the version since the last
        /// release (the semver check)
        #[arg(long)]
        check: bool,
    },
    /// Packages the published crates (cargo publish --dry-run) and tests the app of tests/app
    /// against the packages
    #[command(after_help = "Example:
  cargo xtask package")]
    Package,
    /// Checks that no dependency of a published crate needs a newer Rust than the declared
    /// rust-version
    #[command(after_help = "Example:
  cargo xtask msrv")]
    Msrv,
    /// Prints cargo's target directory (CARGO_TARGET_DIR and build.target-dir followed), for
    /// scripts
    #[command(after_help = "Examples:
  cargo xtask target-dir
  cargo xtask target-dir --manifest-path tests/fuzz/Cargo.toml")]
    TargetDir {
        /// The directory of this manifest's workspace instead (relative to the current
        /// directory, as cargo reads it)
        #[arg(long, value_name = "PATH")]
        manifest_path: Option<PathBuf>,
    },
    /// Prints the overview of the commands, or one command's help (the same as `cargo xtask
    /// <COMMAND> --help`)
    ///
    /// A command misspelled is told what was meant, as it is anywhere else.
    #[command(after_help = "Examples:
  cargo xtask help
  cargo xtask help spec-diff")]
    Help {
        /// The command whose help to print (every command's, without one)
        #[arg(value_name = "COMMAND")]
        command: Option<OsString>,
    },
}

/// The whole command line, every command's `--help` ending with the exit codes.
pub fn command() -> clap::Command {
    fn with_exit_codes(command: clap::Command) -> clap::Command {
        let help = match command.get_after_help() {
            Some(before) => format!("{before}\n\n{EXIT_CODES}"),
            None => EXIT_CODES.to_owned(),
        };
        command.after_help(help)
    }
    with_exit_codes(CommandLine::command()).mut_subcommands(with_exit_codes)
}

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

/// Runs the command line `args` (without the program name) in the workspace at `root`;
/// returns the exit code (see [`EXIT_CODES`]).
pub fn run<I, T>(args: I, root: &Path, output: &mut Output<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let program = std::iter::once(OsString::from("cargo xtask"));
    let parsed = command()
        .try_get_matches_from(program.chain(args.into_iter().map(Into::into)))
        .and_then(|matches| CommandLine::from_arg_matches(&matches));
    let command = match parsed {
        Ok(command_line) => command_line.command,
        Err(error) => {
            // Help (standard output, 0), or a usage error (standard error, 2): rendered as
            // text, and printed escaped like everything else.
            let text = error.render().to_string();
            if error.use_stderr() {
                output.error(text.trim_end());
                return USAGE;
            }
            output.print(text);
            return SUCCESS;
        }
    };
    match command {
        // What clap's own `help` would do, as a command of its own: it answers `--help` and
        // tells a misspelled command what was meant, as every other command does.
        Command::Help { command } => {
            let args: Vec<OsString> = command.into_iter().chain(["--help".into()]).collect();
            run(args, root, output)
        }
        Command::Codegen { check: true } => {
            let checked = codegen::check(root).map(|judged| Checked {
                report: format!(
                    "{}\ncodegen --check: {judged}\n",
                    codegen::summary(root, &[])
                ),
                judged,
            });
            judge(output, checked)
        }
        Command::Codegen { check: false } => act(
            output,
            codegen::plan(root).and_then(|changes| {
                codegen::apply(root, &changes)?;
                Ok(format!("{}\n", codegen::summary(root, &changes)))
            }),
        ),
        Command::Openapi { check: true, .. } => {
            let checked = openapi::check(root).map(|judged| Checked {
                report: format!(
                    "{}/{} is up to date with spec/\nopenapi --check: {judged}\n",
                    marketplace_codegen::OPENAPI_DIR,
                    marketplace_codegen::OPENAPI_FILE
                ),
                judged,
            });
            judge(output, checked)
        }
        Command::Openapi {
            check: false,
            html: Some(dir),
        } => act(
            output,
            openapi::html(root, &dir).map(|page| format!("rendered {}\n", page.display())),
        ),
        Command::Openapi {
            check: false,
            html: None,
        } => act(
            output,
            openapi::write(root).map(|report| format!("{report}\n")),
        ),
        Command::SpecDiff(options) => judge(output, spec_diff::run(root, &options)),
        Command::SpecAudit(options) => judge(output, spec_audit::run(root, &options)),
        Command::WireAudit(options) => judge(output, wire_audit::run(root, &options)),
        Command::PublicApi { check: true } => judge(output, public_api::check(root)),
        Command::PublicApi { check: false } => act(
            output,
            public_api::update(root).map(|changed| match changed.as_slice() {
                [] => "the public API snapshots are up to date\n".to_owned(),
                changed => format!("updated {}\n", changed.join(", ")),
            }),
        ),
        Command::Package => act(output, package::run(root).map(|()| String::new())),
        Command::Msrv => judge(output, msrv::check(root)),
        Command::TargetDir { manifest_path } => {
            let dir = match manifest_path {
                None => target_dir::of_workspace(root),
                // Relative to where the command runs, as cargo reads it; cargo runs there too.
                Some(manifest) => match std::env::current_dir() {
                    Ok(dir) => target_dir::of_manifest(&dir, &dir.join(manifest)),
                    Err(error) => {
                        output.error(format!("error: the current directory: {error}"));
                        return USAGE;
                    }
                },
            };
            act(
                output,
                dir.map(|dir| format!("{}\n", Untrusted(dir.display()))),
            )
        }
    }
}

/// Prints what a command that is not a judgement did, or its error: 0, or the error's code.
fn act<E: CommandError>(output: &mut Output<'_>, result: Result<String, E>) -> u8 {
    match result {
        Ok(report) => {
            output.print(report);
            SUCCESS
        }
        Err(error) => {
            output.error(format!("error: {error}"));
            error.exit_code()
        }
    }
}

/// Prints a judgement: its report, and what it judged on standard error when the report (JSON,
/// changelog entries) does not say it. 1 when it found something, 2 when it could not judge
/// (nothing judged among the reasons: see [`crate::judgement`]).
fn judge<J: Judgement, E: CommandError>(output: &mut Output<'_>, result: Result<J, E>) -> u8 {
    match result {
        Ok(outcome) => {
            output.print(outcome.report());
            let judged = outcome.judged();
            if !outcome.report().contains(&judged.to_string()) {
                output.error(format!("{}: {judged}", judged.tally().command));
            }
            if outcome.failed() { FINDINGS } else { SUCCESS }
        }
        Err(error) => {
            output.error(format!("error: {error}"));
            error.exit_code()
        }
    }
}
