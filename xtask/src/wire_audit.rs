//! `cargo xtask wire-audit [--spec DIR] [--propose] [--propose-into DIR] <recording>…`: recorded
//! traffic checked against the spec.
//!
//! Reads each recording (a `.jsonl` file or a directory of them, written by
//! `marketplace_client::recording`), reads every error answer by the client's own rules
//! (`ApiFailure::parse`), and prints one line per finding of
//! [`marketplace_codegen::wire_audit`] in spec-audit's style, then what was audited. With
//! `--propose` the findings' proposals are written into a copy of the spec in memory
//! (`--propose-into DIR` also writes the copy there), printed as a unified diff of the YAML,
//! resolved, and compared with the spec by `spec-diff`, whose verdicts end the report. Exits 0
//! when the traffic agrees with the spec, 1 with findings, 2 when a recording or the spec
//! cannot be read or the arguments are wrong.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use marketplace_client::ApiFailure;
use marketplace_client::recording::{self, Recorded, RecordingError};
use marketplace_codegen::wire_audit::{self, Audit, Failure, FindingKind, Observation};
use marketplace_codegen::{CodegenError, SpecErrors, SpecSource};

use crate::codegen::SPEC_DIR;
use crate::spec_diff;

/// The command's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The recordings: files or directories.
    pub recordings: Vec<PathBuf>,
    /// The spec directory, relative to the workspace root (default `spec`).
    pub spec: PathBuf,
    /// Write the proposals into a copy of the spec and judge them with spec-diff.
    pub propose: bool,
    /// Where to write the proposed copy of the spec files (implies `propose`).
    pub propose_into: Option<PathBuf>,
}

impl Options {
    /// Parses `[--spec DIR] [--propose] [--propose-into DIR] <recording>…`.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        let mut options = Options {
            recordings: Vec::new(),
            spec: PathBuf::from(SPEC_DIR),
            propose: false,
            propose_into: None,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .copied()
                    .ok_or_else(|| format!("{arg} needs a value"))
            };
            match *arg {
                "--spec" => options.spec = PathBuf::from(value()?),
                "--propose" => options.propose = true,
                "--propose-into" => {
                    options.propose = true;
                    options.propose_into = Some(PathBuf::from(value()?));
                }
                other if other.starts_with("--") => {
                    return Err(format!("unknown argument {other:?}"));
                }
                path => options.recordings.push(PathBuf::from(path)),
            }
        }
        if options.recordings.is_empty() {
            return Err(
                "wire-audit needs at least one recording (a .jsonl file or a directory)".into(),
            );
        }
        Ok(options)
    }
}

/// What the command found.
#[derive(Debug)]
pub struct Outcome {
    /// The audit.
    pub audit: Audit,
    /// The report.
    pub report: String,
    /// The proposed spec files, with `--propose`.
    pub proposed: Option<Vec<SpecSource>>,
}

/// Why the command could not audit.
#[derive(Debug, thiserror::Error)]
pub enum WireAuditError {
    /// A recording could not be read.
    #[error(transparent)]
    Recording(#[from] RecordingError),
    /// The spec could not be read.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The spec is invalid.
    #[error("{0}")]
    Spec(#[from] SpecErrors),
    /// The proposals could not be judged.
    #[error(transparent)]
    SpecDiff(#[from] spec_diff::SpecDiffError),
    /// The recordings hold no exchange to audit.
    #[error(
        "no exchange to audit: looked at {looked_at}; {} (nothing audited is not a pass: \
         record traffic first, e.g. with MARKETPLACE_FAKE_RECORD_DIR)",
        match exchanges { 0 => "they hold no exchange".to_owned(), n => format!("their {n} exchanges are all injected faults, refusals of requests outside the API or replays") }
    )]
    Nothing {
        /// The paths, with how many files and lines each held.
        looked_at: String,
        /// The exchanges read (all of them faults).
        exchanges: usize,
    },
    /// The proposed copy could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Audits the recordings the options name against the spec under `root`.
pub fn run(root: &Path, options: &Options) -> Result<Outcome, WireAuditError> {
    let shown = options.spec.display().to_string();
    let sources = marketplace_codegen::load_spec_dir(&root.join(&options.spec), &shown)?;
    let api = marketplace_codegen::resolve(&sources)?;
    let mut recorded = Vec::new();
    for path in &options.recordings {
        recorded.extend(recording::read(path)?);
    }
    let faults = recorded.iter().filter(|r| is_fault(r)).count();
    let observations: Vec<Observation> = recorded
        .iter()
        .filter(|r| !is_fault(r))
        .map(|r| observation(root, r))
        .collect();
    if observations.is_empty() {
        // Nothing audited is not a pass.
        return Err(WireAuditError::Nothing {
            looked_at: looked_at(&options.recordings),
            exchanges: recorded.len(),
        });
    }
    let audit = wire_audit::audit(&api, &sources, &observations);
    let mut report = report(&audit, recorded.len(), faults);
    let mut proposed = None;
    if options.propose {
        let proposals: Vec<_> = audit
            .findings
            .iter()
            .filter_map(|f| f.proposal.clone())
            .collect();
        let edited = wire_audit::propose(&api, &sources, &proposals);
        report.push_str(&proposal_report(&sources, &edited)?);
        if let Some(dir) = &options.propose_into {
            write_copy(dir, &edited.sources)?;
            let _ = writeln!(report, "The proposed spec is in {}.", dir.display());
        }
        proposed = Some(edited.sources);
    }
    Ok(Outcome {
        audit,
        report,
        proposed,
    })
}

/// What the recordings named are, for the message that they held nothing: each path with
/// how many recording files and lines it holds.
fn looked_at(paths: &[PathBuf]) -> String {
    let lines_of = |file: &Path, within: Option<&Path>| {
        marketplace_codegen::read_text_file(file, within, recording::MAX_FILE_BYTES)
            .map_or(0, |text| text.lines().count())
    };
    let described: Vec<String> = paths
        .iter()
        .map(|path| {
            if path.is_dir() {
                let files = marketplace_codegen::files_in(path, "jsonl", recording::MAX_FILES)
                    .unwrap_or_default();
                let lines: usize = files.iter().map(|file| lines_of(file, Some(path))).sum();
                format!(
                    "{} (a directory of {} .jsonl file{}, {lines} line{})",
                    path.display(),
                    files.len(),
                    plural(files.len()),
                    plural(lines)
                )
            } else {
                let lines = lines_of(path, None);
                format!("{} (1 file, {lines} line{})", path.display(), plural(lines))
            }
        })
        .collect();
    described.join(", ")
}

/// An exchange a test server marked as not the service's answer to an API request: a fault it
/// injected on purpose (`fault: …`), its refusal of a request the API does not describe
/// (`outside the API: …`, a wrong HTTP method or an oversized body), or an answer replayed
/// from a recording, audited where it was recorded (`replay: …`).
fn is_fault(recorded: &Recorded) -> bool {
    recorded.exchange.note.as_deref().is_some_and(|note| {
        ["fault:", "outside the API:", "replay:"]
            .iter()
            .any(|mark| note.starts_with(mark))
    })
}

/// A recorded exchange as the audit sees it: its body parsed, and for an error answer (a
/// status other than 2xx, or a body whose `rcode` is not 1) what the client reads from it.
fn observation(root: &Path, recorded: &Recorded) -> Observation {
    let exchange = &recorded.exchange;
    let body_text = exchange.body.as_deref().unwrap_or("");
    let body: Option<serde_json::Value> = serde_json::from_str(body_text).ok();
    let success_status = (200..300).contains(&exchange.status);
    let rcode_one = body
        .as_ref()
        .and_then(|b| b.get("rcode"))
        .and_then(serde_json::Value::as_i64)
        == Some(1);
    let failure = if success_status && rcode_one {
        None
    } else {
        match ApiFailure::parse(body_text.as_bytes()) {
            Some(failure) => Some(Failure {
                codes: {
                    // Each code once, in order (a set: a body may list thousands).
                    let mut seen = std::collections::HashSet::new();
                    failure
                        .errors
                        .iter()
                        .filter_map(|e| e.code.as_ref())
                        .chain(failure.code.as_ref())
                        .map(|code| code.as_str())
                        .filter(|code| seen.insert(*code))
                        .map(str::to_owned)
                        .collect()
                },
                rcode: failure.rcode,
            }),
            None if success_status => None,
            None => Some(Failure::default()),
        }
    };
    let file = recorded
        .file
        .strip_prefix(root)
        .unwrap_or(&recorded.file)
        .display()
        .to_string();
    Observation {
        source: format!("{file}:{}", recorded.line),
        method: exchange.method.clone(),
        status: exchange.status,
        body,
        failure,
    }
}

/// The findings, one per line, and what was audited.
pub fn report(audit: &Audit, exchanges: usize, faults: usize) -> String {
    let mut out = String::new();
    for finding in &audit.findings {
        let _ = writeln!(out, "{finding}");
    }
    let coverage = &audit.coverage;
    let counts: Vec<String> = FindingKind::ALL
        .iter()
        .filter_map(|kind| {
            let count = audit.findings.iter().filter(|f| f.kind == *kind).count();
            (count > 0).then(|| format!("{count} {kind}"))
        })
        .collect();
    let _ = write!(
        out,
        "wire-audit: {exchanges} exchange{} ({} answer{}, {} error{}",
        plural(exchanges),
        coverage.answers,
        plural(coverage.answers),
        coverage.errors,
        plural(coverage.errors),
    );
    if coverage.skipped > 0 {
        let _ = write!(
            out,
            ", {} OAuth token answer{} not audited",
            coverage.skipped,
            plural(coverage.skipped)
        );
    }
    if faults > 0 {
        let _ = write!(
            out,
            ", {faults} injected fault{s}, refusal{s} of requests outside the API or replay{s} not audited",
            s = plural(faults)
        );
    }
    out.push_str("): ");
    if audit.findings.is_empty() {
        out.push_str("no finding\n");
    } else {
        let _ = writeln!(
            out,
            "{} finding{} ({})",
            audit.findings.len(),
            plural(audit.findings.len()),
            counts.join(", ")
        );
    }
    if !coverage.unknown_methods.is_empty() {
        let methods: Vec<String> = coverage
            .unknown_methods
            .iter()
            .map(|(method, count)| format!("{method} ({count})"))
            .collect();
        let _ = writeln!(
            out,
            "Methods the spec does not have: {}.",
            methods.join(", ")
        );
    }
    if !coverage.unrecorded_methods.is_empty() {
        let _ = writeln!(
            out,
            "Not recorded (nothing said about them): {}.",
            coverage.unrecorded_methods.join(", ")
        );
    }
    out
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The unified diff of the proposed spec, whether it resolves, and spec-diff's verdicts.
fn proposal_report(
    sources: &[SpecSource],
    proposed: &wire_audit::Proposed,
) -> Result<String, WireAuditError> {
    let mut out = String::from("\nProposed spec edits:\n");
    let diff = yaml_diff(sources, &proposed.sources);
    if diff.is_empty() {
        out.push_str("(none: no finding says what the spec should say)\n");
        return Ok(out);
    }
    out.push_str(&diff);
    for refused in &proposed.refused {
        let _ = writeln!(out, "not written: {refused}");
    }
    if let Err(errors) = marketplace_codegen::resolve(&proposed.sources) {
        let _ = writeln!(
            out,
            "\nThe proposed spec does not resolve; fix it by hand:\n{errors}"
        );
        return Ok(out);
    }
    let options = spec_diff::Options::parse(&[]).unwrap_or_else(|_| unreachable!());
    let judged = spec_diff::compare(
        ("the spec", sources),
        ("the spec with the proposals", &proposed.sources),
        &options,
        false,
    )?;
    out.push('\n');
    out.push_str(&judged.report);
    Ok(out)
}

/// The unified diff of each changed spec file.
pub fn yaml_diff(before: &[SpecSource], after: &[SpecSource]) -> String {
    let mut out = String::new();
    for (old, new) in before.iter().zip(after) {
        if old.text != new.text {
            let _ = write!(
                out,
                "{}",
                similar::TextDiff::from_lines(&old.text, &new.text)
                    .unified_diff()
                    .context_radius(2)
                    .header(&format!("a/{}", old.path), &format!("b/{}", new.path))
            );
        }
    }
    out
}

/// Writes the proposed spec files into `dir` (created if needed), each under its file name,
/// all or none (`marketplace_client::files`: a link at a file's name is replaced, not followed).
fn write_copy(dir: &Path, sources: &[SpecSource]) -> Result<(), WireAuditError> {
    let failed = |error: marketplace_client::files::FileError| WireAuditError::Write {
        path: error.path().to_path_buf(),
        source: std::io::Error::other(error.problem().to_string()),
    };
    let out = marketplace_client::files::OutputDir::create(dir).map_err(failed)?;
    let mut set = out.stage();
    for source in sources {
        let name = Path::new(&source.path)
            .file_name()
            .map_or_else(|| source.path.clone().into(), |n| n.to_owned());
        set.write(name, source.text.as_bytes());
    }
    set.commit().map_err(failed)
}
