//! What every command shares on its command line: the exit codes (and the footer of every
//! `--help` that documents them), what each kind of error exits with, and parsing one
//! command's options on their own (clap's derive, as [`crate::cli`] parses them in the tree).

use std::fmt::Display;

use clap::{Args, FromArgMatches};

/// Done, and nothing found.
pub const SUCCESS: u8 = 0;
/// Findings: what the command checks failed.
pub const FINDINGS: u8 = 1;
/// A usage or input error: the command could not run, or judged nothing.
pub const USAGE: u8 = 2;

/// The exit codes, the same for every command: the last lines of every `--help`.
pub const EXIT_CODES: &str = "Exit codes (every command):
  0  done, and nothing found
  1  findings: differences, stale files, a moved API, breaking changes (spec-diff
     --fail-on), a failed package or dependency check
  2  usage or input error: an unknown command or option, input that cannot be read or is
     invalid, or nothing to judge (nothing judged is not a pass)";

/// What a command's error exits with: [`FINDINGS`] when it is what the command found (stale
/// generated code, a moved API, a dependency too new, a failed package), [`USAGE`] when the
/// command could not run or judged nothing (unreadable or invalid input, no item to judge).
pub trait CommandError: Display {
    /// Whether the error is a finding.
    fn is_finding(&self) -> bool;

    /// The exit code.
    fn exit_code(&self) -> u8 {
        if self.is_finding() { FINDINGS } else { USAGE }
    }
}

/// Parses `args` (without the command's name) as the options of `command`, as the command
/// line does; clap's message, rendered as plain text, when they are wrong.
pub fn parse<O: Args + FromArgMatches>(command: &'static str, args: &[&str]) -> Result<O, String> {
    let matches = O::augment_args(clap::Command::new(command))
        .try_get_matches_from(std::iter::once(command).chain(args.iter().copied()))
        .map_err(|error| error.render().to_string())?;
    O::from_arg_matches(&matches).map_err(|error| error.render().to_string())
}
