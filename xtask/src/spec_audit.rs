//! `cargo xtask spec-audit [--reference PATH]`: the spec checked against the reference.
//!
//! Reads the reference and the spec, and prints one line per finding of
//! [`marketplace_codegen::audit`], located in the spec and in the reference. Nothing is
//! written. The reference is `--reference PATH` (relative to the current directory) when
//! given, else the shared one beside the workspace ([`SHARED_REFERENCE`]) when it is there,
//! else the snapshot committed with the spec ([`SNAPSHOT_REFERENCE`]), so that a clone on its
//! own (CI) audits too; a workspace test keeps the snapshot equal to the shared file wherever
//! both exist.
//!
//! The report ends with what was read (the spec files, the items the reference documents) and
//! judged (the spec's items, by kind). A reference in which nothing is recognized, or a spec
//! that describes nothing, leaves nothing to judge: an input error (exit 2).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use marketplace_codegen::audit::{self, Finding, FindingKind, ReferenceErrors};
use marketplace_codegen::items::Items;
use marketplace_codegen::text::Untrusted;
use marketplace_codegen::{CodegenError, SpecErrors};

use crate::codegen::SPEC_DIR;
use crate::command_line::{self, CommandError};
use crate::judgement::{Count, Judged, Judgement, NothingJudged, Tally, item_counts};

/// The reference as shared beside the workspace, relative to its root: the default.
pub const SHARED_REFERENCE: &str = "../shared/marketplace-api.md";

/// The snapshot of the reference committed with the spec, relative to the workspace root:
/// the default where the shared one is absent.
pub const SNAPSHOT_REFERENCE: &str = "spec/reference/marketplace-api.md";

/// The largest reference read: the reference is about 40 KB.
pub const MAX_REFERENCE_BYTES: u64 = 4 << 20;

/// The reference audited against when `--reference` is not given, as shown in messages:
/// [`SHARED_REFERENCE`] when it exists under `root`, else [`SNAPSHOT_REFERENCE`].
pub fn default_reference(root: &Path) -> &'static str {
    if root.join(SHARED_REFERENCE).is_file() {
        SHARED_REFERENCE
    } else {
        SNAPSHOT_REFERENCE
    }
}

/// The command's options.
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct Options {
    /// The reference to audit against, relative to the current directory [default:
    /// ../shared/marketplace-api.md beside the workspace, else its snapshot
    /// spec/reference/marketplace-api.md]
    #[arg(long, value_name = "PATH")]
    pub reference: Option<PathBuf>,
}

impl Options {
    /// Parses `[--reference PATH]`, as the command line does.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        command_line::parse("spec-audit", args)
    }
}

/// What the command found.
#[derive(Debug)]
pub struct Outcome {
    /// The findings, in spec order.
    pub findings: Vec<Finding>,
    /// One line per finding and a closing line (or one line saying the spec is clean), then
    /// what was read and judged.
    pub report: String,
    /// What was read and judged.
    pub judged: Judged,
}

impl Judgement for Outcome {
    fn judged(&self) -> &Judged {
        &self.judged
    }

    fn report(&self) -> &str {
        &self.report
    }

    fn failed(&self) -> bool {
        !self.findings.is_empty()
    }
}

/// Why the command could not audit.
#[derive(Debug, thiserror::Error)]
pub enum SpecAuditError {
    /// Lines of the reference do not follow its conventions.
    #[error("{0}")]
    Reference(#[from] ReferenceErrors),
    /// The reference or the spec could not be read.
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The spec is invalid.
    #[error("{0}")]
    Spec(#[from] SpecErrors),
    /// The reference documents nothing recognizable, or the spec describes nothing.
    #[error(transparent)]
    Nothing(#[from] NothingJudged),
}

impl CommandError for SpecAuditError {
    fn is_finding(&self) -> bool {
        match self {
            SpecAuditError::Reference(_)
            | SpecAuditError::Codegen(_)
            | SpecAuditError::Spec(_)
            | SpecAuditError::Nothing(_) => false,
        }
    }
}

/// Audits the spec under `root` against the reference the options name.
pub fn run(root: &Path, options: &Options) -> Result<Outcome, SpecAuditError> {
    let (path, shown) = match &options.reference {
        Some(path) => (path.clone(), Untrusted(path.display()).to_string()),
        None => {
            let shown = default_reference(root);
            (root.join(shown), shown.to_owned())
        }
    };
    let text =
        marketplace_codegen::read_text_file(&path, None, MAX_REFERENCE_BYTES).map_err(|error| {
            match error {
                CodegenError::Io { source, .. } => CodegenError::Io {
                    path: PathBuf::from(&shown),
                    source,
                },
                // A line it cannot read is named by its line.
                CodegenError::NotUtf8 { at, .. } => CodegenError::NotUtf8 {
                    path: PathBuf::from(&shown),
                    at,
                },
                other => other,
            }
        })?;
    let reference = audit::parse_reference(&text, &shown)?;
    let sources = marketplace_codegen::load_spec_dir(&root.join(SPEC_DIR), SPEC_DIR)?;
    let api = marketplace_codegen::resolve(&sources)?;
    let audited = audit::audit(&api, &sources, &reference);
    let described = Items::of(&api).len();
    let judged = Tally {
        command: "spec-audit",
        looked_at: format!("{SPEC_DIR}/ and {shown}"),
        read: vec![
            Count::new(sources.len(), "spec file"),
            Count::irregular(
                audited.documented,
                "item the reference documents",
                "items the reference documents",
            ),
        ],
        judged: item_counts(&audited.judged),
        over: Some(format!("against {shown}")),
        left_out: vec![Count::irregular(
            if audited.documented == 0 {
                described
            } else {
                0
            },
            "spec item (the reference documents nothing recognizable to judge it against)",
            "spec items (the reference documents nothing recognizable to judge them against)",
        )],
        remedy: "audit a spec that describes the API against the marketplace API reference \
                 (its `## Resources and their fields` and `## Endpoints` sections, with their \
                 tables and data: lines)",
    }
    .verdict()?;
    let report = report(&audited.findings, &shown, &judged);
    Ok(Outcome {
        findings: audited.findings,
        report,
        judged,
    })
}

/// The printed report: a line per finding and their counts (or a line saying the spec is
/// clean), then what was read and judged.
pub fn report(findings: &[Finding], reference: &str, judged: &Judged) -> String {
    if findings.is_empty() {
        return format!(
            "spec-audit: {SPEC_DIR}/ agrees with {reference}: no finding\nspec-audit: {judged}\n"
        );
    }
    let mut out = String::new();
    for finding in findings {
        let _ = writeln!(out, "{finding}");
    }
    let counts: Vec<String> = FindingKind::ALL
        .iter()
        .filter_map(|kind| {
            let count = findings.iter().filter(|f| f.kind == *kind).count();
            (count > 0).then(|| format!("{count} {kind}"))
        })
        .collect();
    let _ = writeln!(
        out,
        "spec-audit: {} finding{} against {reference} ({})",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        counts.join(", ")
    );
    let _ = writeln!(out, "spec-audit: {judged}");
    out
}
