//! `cargo xtask wire-audit [--spec DIR] [--propose] [--propose-into DIR] <recording>…`: recorded
//! traffic checked against the spec.
//!
//! Reads each recording (a `.jsonl` file or a directory of them, written by
//! `marketplace_client::recording`), reads every error answer by the client's own rules
//! (`ApiFailure::parse`), and prints one line per finding of
//! [`marketplace_codegen::wire_audit`] in spec-audit's style, then what was audited. With
//! `--propose` the findings' proposals are written into a copy of the spec in memory
//! (`--propose-into DIR` also writes the copy there), printed as a unified diff of the YAML,
//! resolved, and compared with the spec by `spec-diff`, whose verdicts end the report. The
//! report's last line says what was read, judged and left out ([`crate::judgement`]). Exits 0
//! when the traffic agrees with the spec, 1 with findings, 2 when a recording or the spec
//! cannot be read, when nothing in the recordings could be judged (no exchange, or only
//! exchanges it does not audit: OAuth token answers, injected faults, refusals of requests
//! outside the API, replayed answers, methods the spec does not have), or the arguments are
//! wrong.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use marketplace_client::ApiFailure;
use marketplace_client::recording::{self, Recorded, RecordingError};
use marketplace_codegen::text::Untrusted;
use marketplace_codegen::wire_audit::{self, Audit, Failure, FindingKind, Observation};
use marketplace_codegen::{CodegenError, SpecErrors, SpecSource};

use crate::codegen::SPEC_DIR;
use crate::command_line::{self, CommandError};
use crate::judgement::{Count, Judged, Judgement, NothingJudged, Tally};
use crate::spec_diff;

/// The command's options.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Options {
    /// The recordings: `.jsonl` files, or directories of them
    #[arg(required = true, value_name = "RECORDING")]
    pub recordings: Vec<PathBuf>,
    /// The spec directory, relative to the workspace root
    #[arg(long, value_name = "DIR", default_value = SPEC_DIR)]
    pub spec: PathBuf,
    /// Write the findings' proposals into a copy of the spec in memory, print it as a unified
    /// diff and judge it with spec-diff
    #[arg(long)]
    pub propose: bool,
    /// As --propose, and write the proposed spec files into DIR
    #[arg(long, value_name = "DIR")]
    pub propose_into: Option<PathBuf>,
}

impl Options {
    /// Parses `[--spec DIR] [--propose] [--propose-into DIR] <RECORDING>…`, as the command
    /// line does.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        command_line::parse("wire-audit", args)
    }
}

/// What the command found.
#[derive(Debug)]
pub struct Outcome {
    /// The audit.
    pub audit: Audit,
    /// What was read, judged and left out.
    pub judged: Judged,
    /// The report.
    pub report: String,
    /// The proposed spec files, with `--propose`.
    pub proposed: Option<Vec<SpecSource>>,
}

impl Judgement for Outcome {
    fn judged(&self) -> &Judged {
        &self.judged
    }

    fn report(&self) -> &str {
        &self.report
    }

    fn failed(&self) -> bool {
        !self.audit.findings.is_empty()
    }
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
    /// The recordings hold no exchange the audit judges.
    #[error(transparent)]
    Nothing(#[from] NothingJudged),
    /// The proposed copy could not be written.
    #[error("cannot write {}: {source}", Untrusted(path.display()))]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl CommandError for WireAuditError {
    fn is_finding(&self) -> bool {
        match self {
            WireAuditError::Recording(_)
            | WireAuditError::Codegen(_)
            | WireAuditError::Spec(_)
            | WireAuditError::SpecDiff(_)
            | WireAuditError::Nothing(_)
            | WireAuditError::Write { .. } => false,
        }
    }
}

/// Audits the recordings the options name against the spec under `root`.
pub fn run(root: &Path, options: &Options) -> Result<Outcome, WireAuditError> {
    let shown = Untrusted(options.spec.display()).to_string();
    let sources = marketplace_codegen::load_spec_dir(&root.join(&options.spec), &shown)?;
    let api = marketplace_codegen::resolve(&sources)?;
    let mut recorded = Vec::new();
    for path in &options.recordings {
        recorded.extend(recording::read(path)?);
    }
    let mut unaudited = [0; Unaudited::ALL.len()];
    let mut observations = Vec::new();
    for exchange in &recorded {
        match Unaudited::of(exchange) {
            Some(reason) => unaudited[reason as usize] += 1,
            None => observations.push(observation(root, exchange)),
        }
    }
    let audit = wire_audit::audit(&api, &sources, &observations);
    let spec = (shown.as_str(), sources.len());
    let judged = tally(spec, &options.recordings, recorded.len(), &audit, unaudited).verdict()?;
    let mut report = report(&audit, &judged);
    let mut proposed = None;
    if options.propose || options.propose_into.is_some() {
        let proposals: Vec<_> = audit
            .findings
            .iter()
            .filter_map(|f| f.proposal.clone())
            .collect();
        let edited = wire_audit::propose(&api, &sources, &proposals);
        report.push_str(&proposal_report(&sources, &edited)?);
        if let Some(dir) = &options.propose_into {
            write_copy(dir, &edited.sources)?;
            let _ = writeln!(
                report,
                "The proposed spec is in {}.",
                Untrusted(dir.display())
            );
        }
        proposed = Some(edited.sources);
    }
    Ok(Outcome {
        audit,
        judged,
        report,
        proposed,
    })
}

/// What the audit read (the spec's files, the recording files the paths name, their exchanges),
/// judged (answers and error answers, over how many methods) and left out, and why.
fn tally(
    (spec, spec_files): (&str, usize),
    paths: &[PathBuf],
    exchanges: usize,
    audit: &Audit,
    unaudited: [usize; Unaudited::ALL.len()],
) -> Tally {
    let mut files = 0;
    let described: Vec<String> = paths
        .iter()
        .map(|path| {
            if path.is_dir() {
                let count = marketplace_codegen::files_in(path, "jsonl", recording::MAX_FILES)
                    .map_or(0, |listed| listed.len());
                files += count;
                format!(
                    "{} (a directory of {})",
                    Untrusted(path.display()),
                    Count::new(count, ".jsonl file")
                )
            } else {
                files += 1;
                Untrusted(path.display()).to_string()
            }
        })
        .collect();
    let coverage = &audit.coverage;
    let unknown: usize = coverage.unknown_methods.values().sum();
    let mut names: Vec<String> = coverage
        .unknown_methods
        .keys()
        .take(5)
        .map(|name| Untrusted(name).to_string())
        .collect();
    if coverage.unknown_methods.len() > names.len() {
        names.push("…".to_owned());
    }
    let names = names.join(", ");
    let mut left_out = vec![
        Count::new(coverage.skipped, "OAuth token answer"),
        Count::irregular(
            unknown,
            &format!("exchange of a method the spec does not have ({names})"),
            &format!("exchanges of methods the spec does not have ({names})"),
        ),
    ];
    left_out.extend(Unaudited::ALL.iter().map(|reason| {
        let (one, many) = reason.nouns();
        Count::irregular(unaudited[*reason as usize], one, many)
    }));
    Tally {
        command: "wire-audit",
        // The spec first: a spec directory that describes nothing makes every exchange one of
        // a method it does not have, and the count of its files says why.
        looked_at: format!(
            "the spec at {}/ and {}",
            spec.trim_end_matches('/'),
            described.join(", ")
        ),
        read: vec![
            Count::new(spec_files, "spec file"),
            Count::new(files, "recording file"),
            Count::new(exchanges, "exchange"),
        ],
        judged: vec![
            Count::new(coverage.answers, "answer"),
            Count::new(coverage.errors, "error answer"),
        ],
        over: Some(format!("of {}", Count::new(coverage.methods, "method"))),
        left_out,
        remedy: "record traffic of the methods the spec describes first (e.g. with \
                 MARKETPLACE_FAKE_RECORD_DIR), and audit the spec that describes them",
    }
}

/// Why an exchange a test server marked is not the service's answer to an API request, and
/// is left out: a fault it injected on purpose (`fault: …`), its refusal of a request the API
/// does not describe (`outside the API: …`, a wrong HTTP method or an oversized body), or an
/// answer replayed from a recording, audited where it was recorded (`replay: …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unaudited {
    Fault,
    OutsideTheApi,
    Replay,
}

impl Unaudited {
    const ALL: [Unaudited; 3] = [
        Unaudited::Fault,
        Unaudited::OutsideTheApi,
        Unaudited::Replay,
    ];

    /// The mark a recorder's note starts with.
    fn mark(self) -> &'static str {
        match self {
            Unaudited::Fault => "fault:",
            Unaudited::OutsideTheApi => "outside the API:",
            Unaudited::Replay => "replay:",
        }
    }

    /// The exchange in words, one and several.
    fn nouns(self) -> (&'static str, &'static str) {
        match self {
            Unaudited::Fault => ("injected fault", "injected faults"),
            Unaudited::OutsideTheApi => (
                "refusal of a request outside the API",
                "refusals of requests outside the API",
            ),
            Unaudited::Replay => ("replayed answer", "replayed answers"),
        }
    }

    fn of(recorded: &Recorded) -> Option<Unaudited> {
        let note = recorded.exchange.note.as_deref()?;
        Unaudited::ALL
            .into_iter()
            .find(|reason| note.starts_with(reason.mark()))
    }
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

/// The findings, one per line, then what was read, judged and left out.
pub fn report(audit: &Audit, judged: &Judged) -> String {
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
    let _ = write!(out, "wire-audit: {judged}: ");
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
    let options = spec_diff::Options::default();
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
