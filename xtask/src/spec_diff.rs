//! `cargo xtask spec-diff`: what a spec change does to the API and to the generated Rust.
//!
//! Both revisions are read with git (through [`crate::git`], which verifies them and bounds
//! what it reads; the head defaults to the work tree), resolved, compared rule by rule ([`marketplace_codegen::diff`]) and generated in
//! memory; the report ends with the unified diff of the generated code, bounded in time
//! ([`GENERATED_DIFF_TIMEOUT`]; the report says when it was cut short). Nothing is written.
//!
//! The report says how many spec files each side had and which items were compared (those of
//! either side, by name: two identical specs are a judgement, "no change" over every item). A
//! side that describes nothing (a revision from before the spec, a directory without `.yaml`
//! files, files without a single item) leaves nothing to compare: an input error (exit 2).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use marketplace_codegen::diff::{self, Change, Impact, Side};
use marketplace_codegen::items::Items;
use marketplace_codegen::text::Untrusted;
use marketplace_codegen::{SpecSource, ir::Api};
use serde::Serialize;

use crate::codegen::{GENERATED_DIR, SPEC_DIR};
use crate::command_line::{self, CommandError};
use crate::git::{Commit, Git, GitError};
use crate::judgement::{Count, Judged, Judgement, NothingJudged, Tally, item_counts};

/// The report's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a terminal.
    #[default]
    Text,
    /// Ready to paste into a pull request.
    Markdown,
    /// Stable, documented, for tools (`schema` names its version).
    Json,
    /// Entries for `CHANGELOG.md`'s `[Unreleased]` section (keep-a-changelog headings).
    Changelog,
}

/// When the command fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Never (the default): the report is the product.
    #[default]
    #[value(name = "never")]
    Nothing,
    /// When any change breaks the wire or the Rust API.
    Breaking,
    /// When anything changed at all.
    Any,
}

/// The command's options.
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct Options {
    /// The base revision (a branch, tag or commit) [default: the merge base of HEAD and main]
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// The head revision [default: the work tree, uncommitted changes included]
    #[arg(long, value_name = "REV")]
    pub head: Option<String>,
    /// The report's format
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t)]
    pub format: Format,
    /// When to exit 1
    #[arg(long, value_enum, value_name = "WHEN", default_value_t)]
    pub fail_on: FailOn,
}

impl Options {
    /// Parses `[--base REV] [--head REV] [--format text|markdown|json|changelog]
    /// [--fail-on never|breaking|any]`, as the command line does.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        command_line::parse("spec-diff", args)
    }
}

/// What the command produced.
#[derive(Debug)]
pub struct Outcome {
    /// The report.
    pub report: String,
    /// The changes found.
    pub changes: Vec<Change>,
    /// Whether `--fail-on` is met.
    pub failed: bool,
    /// What was read and compared.
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
        self.failed
    }
}

/// Why the command could not compare.
#[derive(Debug, thiserror::Error)]
pub enum SpecDiffError {
    /// git failed (a revision that names no commit, not a repository, a spec file at a
    /// revision that is not a regular file or too large, …).
    #[error(transparent)]
    Git(#[from] GitError),
    /// A spec at one revision is invalid.
    #[error("the spec at {revision} is invalid:\n{errors}")]
    InvalidSpec {
        /// Which revision.
        revision: String,
        /// The located errors.
        errors: marketplace_codegen::SpecErrors,
    },
    /// The work tree's spec could not be read.
    #[error(transparent)]
    Codegen(#[from] marketplace_codegen::CodegenError),
    /// Generating code failed (a generator bug).
    #[error(transparent)]
    Emit(#[from] marketplace_codegen::EmitError),
    /// A side describes nothing to compare.
    #[error(transparent)]
    Nothing(#[from] NothingJudged),
}

impl CommandError for SpecDiffError {
    fn is_finding(&self) -> bool {
        match self {
            SpecDiffError::Git(_)
            | SpecDiffError::InvalidSpec { .. }
            | SpecDiffError::Codegen(_)
            | SpecDiffError::Emit(_)
            | SpecDiffError::Nothing(_) => false,
        }
    }
}

/// Runs the comparison in the repository at `root`. The revisions are verified to name
/// commits before git reads anything at them (see [`crate::git`]).
pub fn run(root: &Path, options: &Options) -> Result<Outcome, SpecDiffError> {
    let git = Git::new(root);
    let base = match &options.base {
        Some(rev) => git.commit(rev)?,
        None => git.merge_base_with_main()?,
    };
    let base_label = describe(&git, options.base.as_deref().unwrap_or("merge-base"), &base);
    // A revision's files read as text as the work tree's are: a file that is not UTF-8 is a
    // located spec error of that revision.
    let as_text = |label: &str, files| {
        marketplace_codegen::spec_sources(files).map_err(|errors| SpecDiffError::InvalidSpec {
            revision: label.to_owned(),
            errors,
        })
    };
    let base_sources = as_text(&base_label, git.spec_files(&base, SPEC_DIR)?)?;
    let (head_label, head_sources) = match &options.head {
        Some(rev) => {
            let head = git.commit(rev)?;
            let label = describe(&git, rev, &head);
            let sources = as_text(&label, git.spec_files(&head, SPEC_DIR)?)?;
            (label, sources)
        }
        None => (
            "the work tree".to_owned(),
            marketplace_codegen::load_spec_dir(&root.join(SPEC_DIR), SPEC_DIR)?,
        ),
    };
    compare(
        (&base_label, &base_sources),
        (&head_label, &head_sources),
        options,
        true,
    )
}

/// Compares two sets of spec files (each with the label the report shows): the rules, the
/// verdicts and the generated code's diff, in the options' format. `run` compares two
/// revisions with it; `wire-audit --propose` the spec and its proposed copy, without git, and
/// without the generated code's diff (`with_generated_code`).
pub fn compare(
    (base_label, base_sources): (&str, &[SpecSource]),
    (head_label, head_sources): (&str, &[SpecSource]),
    options: &Options,
    with_generated_code: bool,
) -> Result<Outcome, SpecDiffError> {
    // The base may predate a rule of agreement the head is held to: compared as it is, and
    // the rules it breaks are noted in the report.
    let (base, base_notes) =
        marketplace_codegen::resolve_leniently(base_sources).map_err(|errors| {
            SpecDiffError::InvalidSpec {
                revision: base_label.to_owned(),
                errors,
            }
        })?;
    let head = resolve(head_label, head_sources)?;
    let diff = diff::diff(
        Side {
            api: &base,
            sources: base_sources,
        },
        Side {
            api: &head,
            sources: head_sources,
        },
    )?;
    let judged = tally(
        (base_label, base_sources.len()),
        (head_label, head_sources.len()),
        &diff,
    )
    .verdict()?;
    let compared = diff.compared();
    let witnesses = diff.witnesses;
    let rust_added = diff.rust_added;
    let changes = diff.changes;
    let generated = if with_generated_code {
        generated_diff(&base, &head)?
    } else {
        String::new()
    };
    let breaking = changes
        .iter()
        .any(|c| c.wire == Impact::Breaking || c.rust == Impact::Breaking);
    let failed = match options.fail_on {
        FailOn::Nothing => false,
        FailOn::Breaking => breaking,
        FailOn::Any => !changes.is_empty(),
    };
    let base_notes: Vec<String> = base_notes.iter().map(ToString::to_string).collect();
    let report = Report {
        base: base_label,
        head: head_label,
        base_notes: &base_notes,
        changes: &changes,
        generated: &generated,
        judged: &judged,
        compared: &compared,
        witnesses,
        rust_added: &rust_added,
    };
    let report = match options.format {
        Format::Text => report.text(),
        Format::Markdown => report.markdown(),
        Format::Json => report.json(),
        Format::Changelog => report.changelog(),
    };
    Ok(Outcome {
        report,
        changes,
        failed,
        judged,
    })
}

/// What the comparison read (each side's spec files) and compared (the items of either side,
/// by kind); a side that describes nothing leaves the other's items out.
fn tally(
    (base, base_files): (&str, usize),
    (head, head_files): (&str, usize),
    diff: &diff::Diff,
) -> Tally {
    let compared = diff.compared();
    let mut left_out = Vec::new();
    for (side, items, other) in [
        ("head", &diff.head, &diff.base),
        ("base", &diff.base, &diff.head),
    ] {
        if other.is_empty() {
            let other_side = if side == "head" { "base" } else { "head" };
            left_out.push(Count::irregular(
                items.len(),
                &format!(
                    "item of the {side} (the {other_side} describes nothing to compare it with)"
                ),
                &format!(
                    "items of the {side} (the {other_side} describes nothing to compare them with)"
                ),
            ));
        }
    }
    Tally {
        command: "spec-diff",
        looked_at: format!("{SPEC_DIR}/ at {base} and at {head}"),
        read: vec![
            Count::irregular(
                base_files,
                "spec file of the base",
                "spec files of the base",
            ),
            Count::irregular(
                head_files,
                "spec file of the head",
                "spec files of the head",
            ),
        ],
        judged: item_counts(&compared),
        // The simulation's witnesses (answers decoded, calls read, walks, clock codes): none
        // when no item changed.
        over: (diff.witnesses > 0).then(|| {
            format!(
                "by running {}",
                Count::irregular(diff.witnesses, "witness", "witnesses")
            )
        }),
        left_out,
        remedy: "compare revisions whose spec/ describes the API (at least one method, type, \
                 enum, error code or endpoint on each side)",
    }
}

fn resolve(label: &str, sources: &[SpecSource]) -> Result<Api, SpecDiffError> {
    marketplace_codegen::resolve(sources).map_err(|errors| SpecDiffError::InvalidSpec {
        revision: label.to_owned(),
        errors,
    })
}

/// `rev (abc1234 subject)` for a verified commit, or the revision as given when git cannot
/// say.
fn describe(git: &Git<'_>, rev: &str, commit: &Commit) -> String {
    match git.describe(commit) {
        Ok(line) if !line.is_empty() => format!("{rev} ({line})"),
        _ => rev.to_owned(),
    }
}

/// How long the diff of the generated code may take in all. Myers' diff costs the lines of a
/// file times the lines that differ, which a hostile spec change makes quadratic in the spec;
/// past this, what is left of each file is shown removed and added whole, and the report
/// says so.
pub const GENERATED_DIFF_TIMEOUT: Duration = Duration::from_secs(10);

/// The unified diff of the generated code of both sides, generated in memory.
fn generated_diff(base: &Api, head: &Api) -> Result<String, SpecDiffError> {
    let old = marketplace_codegen::generate(base)?;
    let new = marketplace_codegen::generate(head)?;
    let deadline = Instant::now() + GENERATED_DIFF_TIMEOUT;
    Ok(files_diff(&old, &new, deadline))
}

/// The unified diff of two sets of generated files, file by file in name order, each diffed
/// until `deadline` (see [`GENERATED_DIFF_TIMEOUT`]); a note at the end when it passed.
fn files_diff(
    old: &[marketplace_codegen::GeneratedFile],
    new: &[marketplace_codegen::GeneratedFile],
    deadline: Instant,
) -> String {
    fn by_name(files: &[marketplace_codegen::GeneratedFile]) -> BTreeMap<&str, &str> {
        files
            .iter()
            .map(|f| (f.path.as_str(), f.contents.as_str()))
            .collect()
    }
    let (old, new) = (by_name(old), by_name(new));
    let names: BTreeSet<&str> = old.keys().chain(new.keys()).copied().collect();
    let mut out = String::new();
    let mut cut_short = false;
    for name in names {
        let before = old.get(name).copied().unwrap_or_default();
        let after = new.get(name).copied().unwrap_or_default();
        if before != after {
            let path = format!("{GENERATED_DIR}/{name}");
            let diff = similar::TextDiff::configure()
                .algorithm(similar::Algorithm::Myers)
                .deadline(deadline)
                .diff_lines(before, after);
            // similar gives up on the rest at the deadline: the ops are complete, not minimal.
            cut_short |= Instant::now() >= deadline;
            let _ = write!(
                out,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{path}"), &format!("b/{path}"))
            );
        }
    }
    if cut_short {
        let _ = writeln!(
            out,
            "(spec-diff: the diff of the generated code took longer than {} s and was cut \
             short: past that point, the changes of each file are shown as whole blocks \
             removed and added, not line by line)",
            GENERATED_DIFF_TIMEOUT.as_secs()
        );
    }
    out
}

struct Report<'a> {
    base: &'a str,
    head: &'a str,
    /// The rules of agreement the base breaks (an older spec, written before them).
    base_notes: &'a [String],
    changes: &'a [Change],
    generated: &'a str,
    judged: &'a Judged,
    compared: &'a Items,
    /// How many witnesses the simulation ran.
    witnesses: usize,
    /// The public items the head crate adds (see [`diff::Diff::rust_added`]).
    rust_added: &'a [String],
}

/// The keep-a-changelog heading a change goes under (its index in [`Report::changelog`]'s
/// sections): `…-added` (and a new optional parameter, `param-added-optional`) under Added,
/// `…-removed` under Removed, the rest under Changed; a newly required parameter is a change.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Added = 0,
    Changed = 1,
    Removed = 2,
}

fn section(change: &Change) -> Section {
    match change.rule {
        diff::rule::PARAM_ADDED_REQUIRED => Section::Changed,
        diff::rule::PARAM_ADDED_OPTIONAL => Section::Added,
        rule if rule.ends_with("-added") => Section::Added,
        rule if rule.ends_with("-removed") => Section::Removed,
        _ => Section::Changed,
    }
}

fn impact(impact: Impact) -> &'static str {
    match impact {
        Impact::Breaking => "breaking",
        Impact::NonBreaking => "ok",
    }
}

/// The witnesses of a change's breaking verdicts, each with the side it shows (`wire`, `rust`).
fn witnesses(change: &Change) -> impl Iterator<Item = (&'static str, &diff::Witness)> {
    [
        ("wire", &change.wire_witness),
        ("rust", &change.rust_witness),
    ]
    .into_iter()
    .filter_map(|(side, witness)| witness.as_ref().map(|w| (side, w)))
}

/// `text` as one code span of a table cell, whatever it holds (a spec name is the service's
/// and can hold backticks, pipes and line breaks): fenced by one backtick more than its
/// longest run, padded where it starts or ends with one or is empty (CommonMark), its line
/// breaks as spaces and its pipes escaped (GitHub reads `\|` as a pipe in a cell's code span).
fn code_span(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.is_empty() || text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}").replace('|', "\\|")
}

/// `text` as inline Markdown that renders as itself. The messages and witnesses quote Rust and
/// JSON in code spans (`` `…` ``), kept as they are; outside them, every character CommonMark
/// or GitHub would read as markup is escaped: `<` opens an HTML tag (GitHub drops the
/// `<Timestamp>` of an unquoted `Option<Timestamp>`), `*`, `_` and `~` emphasis, `[` and `]` a
/// link, `&` an entity, `\` an escape, and a backtick that closes no code span. A `_` inside a
/// word (`due_date`) emphasizes nothing and stays as it is, so the raw text reads as before.
fn markdown_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let (plain, from) = rest.split_at(start);
        escape_markup(plain, &mut out);
        let run = backtick_run(from);
        let inside = &from[run..];
        match closing_run(inside, run) {
            Some(end) => {
                out.push_str(&from[..run + end + run]);
                rest = &inside[end + run..];
            }
            None => {
                out.push_str(&"\\`".repeat(run));
                rest = inside;
            }
        }
    }
    escape_markup(rest, &mut out);
    out
}

/// How many backticks `text` starts with.
fn backtick_run(text: &str) -> usize {
    text.len() - text.trim_start_matches('`').len()
}

/// Where in `text` a run of exactly `len` backticks starts: the end of a code span opened by
/// such a run (CommonMark's rule).
fn closing_run(text: &str, len: usize) -> Option<usize> {
    let mut at = 0;
    while let Some(offset) = text[at..].find('`') {
        let start = at + offset;
        let run = backtick_run(&text[start..]);
        if run == len {
            return Some(start);
        }
        at = start + run;
    }
    None
}

/// Escapes the markup characters of plain text (no code span in it), see [`markdown_inline`].
fn escape_markup(plain: &str, out: &mut String) {
    let chars: Vec<char> = plain.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inside_a_word = || {
            i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|next| next.is_alphanumeric())
        };
        let markup = match c {
            '\\' | '<' | '*' | '~' | '[' | ']' | '&' => true,
            '_' => !inside_a_word(),
            _ => false,
        };
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
}

fn location(location: &Option<diff::Location>) -> String {
    location.as_ref().map_or("-".to_owned(), |l| {
        format!("{}:{}:{}", l.file, l.line, l.column)
    })
}

impl Report<'_> {
    fn count(&self, side: fn(&Change) -> Impact) -> usize {
        self.changes
            .iter()
            .filter(|c| side(c) == Impact::Breaking)
            .count()
    }

    /// The release of the generated crate the changes need, in semver's words: `major` when
    /// one breaks the Rust API; else `minor` when the head crate has a public item the base
    /// does not (a method, type, field, setter, variant, trait impl), whichever rule found the
    /// change; else `patch` (documentation, and changes only the wire sees).
    fn semver(&self) -> &'static str {
        if self.count(|c| c.rust) > 0 {
            "major"
        } else if !self.rust_added.is_empty() {
            "minor"
        } else {
            "patch"
        }
    }

    fn summary(&self) -> String {
        if self.changes.is_empty() {
            return "No change to the API.".to_owned();
        }
        format!(
            "{} change{}: {} breaking on the wire, {} breaking for the Rust API (semver-{}).",
            self.changes.len(),
            if self.changes.len() == 1 { "" } else { "s" },
            self.count(|c| c.wire),
            self.count(|c| c.rust),
            self.semver(),
        )
    }

    /// What a note on the base says before the rule it breaks.
    const BASE_NOTE: &'static str =
        "the base breaks a rule the head is held to; it is compared as it is";

    fn text(&self) -> String {
        let mut out = format!(
            "spec-diff: {} -> {}\n{}\nspec-diff: {}\n",
            self.base,
            self.head,
            self.summary(),
            self.judged
        );
        for note in self.base_notes {
            let _ = writeln!(out, "note: {}: {note}", Self::BASE_NOTE);
        }
        for change in self.changes {
            let _ = write!(
                out,
                "\n{:<7} {:<26} wire: {:<8} rust: {}\n  {}: {}\n  base {}  head {}\n",
                format!("{:?}", change.level).to_uppercase(),
                change.rule,
                impact(change.wire),
                impact(change.rust),
                Untrusted(&change.subject),
                Untrusted(&change.message),
                location(&change.base),
                location(&change.head),
            );
            for (side, witness) in witnesses(change) {
                let _ = writeln!(out, "  witness ({side}): {}", Untrusted(witness.sentence()));
            }
        }
        if !self.generated.is_empty() {
            let _ = write!(out, "\nGenerated code:\n{}", self.generated);
        }
        out
    }

    fn markdown(&self) -> String {
        let mut out = format!(
            "### Spec changes\n\n`{}` → `{}`\n\n**{}**\n\n_spec-diff: {}_\n",
            self.base,
            self.head,
            self.summary(),
            self.judged
        );
        for note in self.base_notes {
            let _ = writeln!(
                out,
                "\n_note: {}: {}_",
                Self::BASE_NOTE,
                markdown_inline(&note.replace('\n', " "))
            );
        }
        if !self.changes.is_empty() {
            out.push_str("\n| rule | wire | Rust API | what | where |\n|---|---|---|---|---|\n");
            for change in self.changes {
                let mark = |impact: Impact| match impact {
                    Impact::Breaking => "❌ breaking",
                    Impact::NonBreaking => "✅",
                };
                let shown: String = witnesses(change)
                    .map(|(side, w)| {
                        format!(
                            "<br>**witness ({side})**: {}",
                            markdown_inline(&w.sentence())
                        )
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {}: {}{} | {} |",
                    change.rule,
                    mark(change.wire),
                    mark(change.rust),
                    code_span(&change.subject),
                    markdown_inline(&change.message).replace('|', "\\|"),
                    shown.replace('|', "\\|").replace('\n', " "),
                    location(if change.head.is_some() {
                        &change.head
                    } else {
                        &change.base
                    }),
                );
            }
        }
        if !self.generated.is_empty() {
            let _ = write!(
                out,
                "\n<details><summary>Generated code</summary>\n\n```diff\n{}```\n\n</details>\n",
                self.generated
            );
        }
        out
    }

    /// keep-a-changelog entries, one per change but documentation changes, under the heading
    /// its rule belongs to (`…-added` under Added, `…-removed` under Removed, the rest under
    /// Changed; a newly required parameter is a change), breaking ones marked first.
    fn changelog(&self) -> String {
        let mut sections: [(&str, Vec<String>); 3] = [
            ("Added", Vec::new()),
            ("Changed", Vec::new()),
            ("Removed", Vec::new()),
        ];
        for change in self.changes.iter().filter(|c| c.rule != "doc-changed") {
            let section = section(change) as usize;
            let breaking = match (change.wire, change.rust) {
                (Impact::Breaking, Impact::Breaking) => "**Breaking** (wire and Rust API): ",
                (Impact::Breaking, Impact::NonBreaking) => "**Breaking** (wire): ",
                (Impact::NonBreaking, Impact::Breaking) => "**Breaking** (Rust API): ",
                (Impact::NonBreaking, Impact::NonBreaking) => "",
            };
            // Each witness a sentence of its own, so the next one does not run on from it.
            let shown: String = witnesses(change)
                .map(|(side, w)| {
                    let sentence = w.sentence();
                    let stop = if sentence.ends_with('.') { "" } else { "." };
                    format!(" Witness ({side}): {}{stop}", markdown_inline(&sentence))
                })
                .collect();
            sections[section].1.push(format!(
                "- {breaking}{} (`{}`, spec-diff `{}`).{shown}",
                markdown_inline(&change.message),
                change.subject,
                change.rule
            ));
        }
        let mut out = String::new();
        for (heading, entries) in sections.iter().filter(|(_, e)| !e.is_empty()) {
            let _ = write!(
                out,
                "### {heading}

{}

",
                entries.join("\n")
            );
        }
        out
    }

    fn json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            schema: &'static str,
            base: &'a str,
            head: &'a str,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            base_notes: &'a [String],
            summary: Summary,
            compared: Compared,
            changes: &'a [Change],
            generated_diff: &'a str,
        }
        /// The items compared: how many in all, and of each kind (by [`ItemKind::id`]); the
        /// witnesses the simulation ran on them.
        #[derive(Serialize)]
        struct Compared {
            items: usize,
            kinds: BTreeMap<&'static str, usize>,
            witnesses: usize,
        }
        #[derive(Serialize)]
        struct Summary {
            changes: usize,
            wire_breaking: usize,
            rust_breaking: usize,
        }
        let json = Json {
            schema: "marketplace-spec-diff/1",
            base: self.base,
            head: self.head,
            base_notes: self.base_notes,
            summary: Summary {
                changes: self.changes.len(),
                wire_breaking: self.count(|c| c.wire),
                rust_breaking: self.count(|c| c.rust),
            },
            compared: Compared {
                items: self.compared.len(),
                kinds: self
                    .compared
                    .counts()
                    .into_iter()
                    .map(|(kind, count)| (kind.id(), count))
                    .collect(),
                witnesses: self.witnesses,
            },
            changes: self.changes,
            generated_diff: self.generated,
        };
        serde_json::to_string_pretty(&json)
            .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use marketplace_codegen::GeneratedFile;
    use proptest::prelude::*;

    proptest! {
        /// A subject of any text is one code span in one table cell: no line break, no
        /// unescaped pipe, and a fence longer than any run of backticks inside.
        #[test]
        fn a_subject_of_any_text_is_one_code_span_of_one_cell(subject in "[a-z`|\n\r ]{0,12}") {
            let span = code_span(&subject);
            prop_assert!(!span.contains(['\n', '\r']), "{span:?}");
            prop_assert!(!span.replace("\\|", "").contains('|'), "{span:?}");
            let fence = span.len() - span.trim_start_matches('`').len();
            let inner = &span[fence..span.len() - fence];
            prop_assert!(!inner.contains(&"`".repeat(fence)), "{span:?}");
            prop_assert!(span.ends_with(&"`".repeat(fence)), "{span:?}");
        }
    }

    /// What a CommonMark reader (pulldown-cmark, with GitHub's tables and strikethrough) shows
    /// of `markdown`: its text, code spans' contents included, and the markup it found besides
    /// paragraphs (HTML, emphasis, links, breaks).
    fn rendered(markdown: &str) -> (String, Vec<String>) {
        use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        let mut text = String::new();
        let mut markup = Vec::new();
        for event in Parser::new_ext(markdown, options) {
            match event {
                Event::Text(t) | Event::Code(t) => text.push_str(&t),
                Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph) => {}
                other => markup.push(format!("{other:?}")),
            }
        }
        (text, markup)
    }

    /// Plain text as the messages write it: it starts with a name, and may hold any character
    /// Markdown reads as markup, but no backtick.
    const PLAIN: &str = "[a-zA-Z][a-zA-Z0-9 <>*_\\[\\]()&\\\\~!:;\"'{}.,=#/|+-]{0,40}";

    proptest! {
        /// Text without code spans renders as itself, with no markup.
        #[test]
        fn plain_text_renders_as_itself(text in PLAIN) {
            let (shown, markup) = rendered(&format!("x: {} end", markdown_inline(&text)));
            prop_assert_eq!(shown, format!("x: {text} end"));
            prop_assert!(markup.is_empty(), "{:?}", markup);
        }

        /// Code spans are kept as code, whatever they quote, and the text around them renders
        /// as itself.
        #[test]
        fn code_spans_stay_code_and_the_text_around_them_renders_as_itself(
            parts in proptest::collection::vec(
                (PLAIN, "[a-zA-Z0-9<>*_&\\[\\](){}:;.,|=-][a-zA-Z0-9 <>*_&\\[\\](){}:;.,|=-]{0,20}[a-zA-Z0-9<>*_&(){}:;.,|=-]"),
                1..4,
            )
        ) {
            let text: String = parts.iter().map(|(plain, code)| format!("{plain} `{code}` ")).collect();
            let wanted: String = parts.iter().map(|(plain, code)| format!("{plain} {code} ")).collect();
            let (shown, markup) = rendered(&format!("x: {}end", markdown_inline(&text)));
            prop_assert_eq!(shown, format!("x: {wanted}end"));
            prop_assert!(markup.is_empty(), "{:?}", markup);
        }

        /// Backticks anywhere, paired or not, never let markup through.
        #[test]
        fn stray_backticks_let_no_markup_through(text in "[a-z][a-z `<*_\\[\\]&\\\\~]{0,30}") {
            let (_, markup) = rendered(&format!("x: {} end", markdown_inline(&text)));
            prop_assert!(markup.is_empty(), "{:?}", markup);
        }
    }

    #[test]
    fn a_rust_type_keeps_its_parameter_and_a_name_reads_as_before() {
        assert_eq!(
            markdown_inline("Invoice.due_date was added (Option<Timestamp>)"),
            "Invoice.due_date was added (Option\\<Timestamp>)"
        );
        assert_eq!(
            markdown_inline("`fn f(value: &Option<u64>)` no longer compiles"),
            "`fn f(value: &Option<u64>)` no longer compiles"
        );
    }

    fn file(path: &str, contents: String) -> Vec<GeneratedFile> {
        vec![GeneratedFile {
            path: path.to_owned(),
            contents,
        }]
    }

    /// Lines that Myers' diff matches up one by one: every other line changed.
    fn interleaved(lines: usize, changed: bool) -> String {
        (0..lines)
            .map(|i| match (i % 2, changed) {
                (1, true) => format!("changed {i}\n"),
                _ => format!("line {i}\n"),
            })
            .collect()
    }

    fn change(rule: &'static str, wire: Impact, rust: Impact) -> Change {
        Change {
            rule,
            level: diff::Level::Info,
            wire,
            rust,
            surface: diff::Surface::None,
            subject: "types.T".to_owned(),
            message: "changed".to_owned(),
            base: None,
            head: None,
            broken_items: Vec::new(),
            wire_witness: None,
            rust_witness: None,
        }
    }

    fn summary(changes: &[Change]) -> String {
        summary_adding(changes, &[])
    }

    /// The summary of `changes` when the head crate adds the public items `added`.
    fn summary_adding(changes: &[Change], added: &[&str]) -> String {
        let added: Vec<String> = added.iter().map(|item| (*item).to_owned()).collect();
        let judged = Tally {
            command: "spec-diff",
            looked_at: String::new(),
            read: Vec::new(),
            judged: vec![Count::new(1, "type")],
            over: None,
            left_out: Vec::new(),
            remedy: "",
        }
        .verdict()
        .unwrap();
        Report {
            base: "base",
            head: "head",
            base_notes: &[],
            changes,
            generated: "",
            judged: &judged,
            compared: &Items::default(),
            witnesses: 0,
            rust_added: &added,
        }
        .summary()
    }

    #[test]
    fn the_semver_label_follows_the_rust_api_verdicts() {
        use Impact::{Breaking, NonBreaking};
        assert_eq!(summary(&[]), "No change to the API.");
        assert_eq!(
            summary(&[change("doc-changed", NonBreaking, NonBreaking)]),
            "1 change: 0 breaking on the wire, 0 breaking for the Rust API (semver-patch)."
        );
        // Breaking on the wire only: old apps need the new crate, whose API did not move.
        assert_eq!(
            summary(&[
                change("param-cap-changed", Breaking, NonBreaking),
                change("doc-changed", NonBreaking, NonBreaking),
            ]),
            "2 changes: 1 breaking on the wire, 0 breaking for the Rust API (semver-patch)."
        );
        assert_eq!(
            summary_adding(
                &[
                    change("enum-value-added", NonBreaking, NonBreaking),
                    change("doc-changed", NonBreaking, NonBreaking),
                ],
                &["ReportStatus::Approved"]
            ),
            "2 changes: 0 breaking on the wire, 0 breaking for the Rust API (semver-minor)."
        );
        assert_eq!(
            summary_adding(
                &[
                    change("enum-value-added", NonBreaking, NonBreaking),
                    change("field-removed", Breaking, Breaking),
                ],
                &["ReportStatus::Approved"]
            ),
            "2 changes: 1 breaking on the wire, 1 breaking for the Rust API (semver-major)."
        );
    }

    /// The label follows what the API gained, not the rule's name: a rule whose id does not
    /// end in `-added` may add items (a new optional parameter's setter, the `Other` variant
    /// of an opened enum), and a release adding items is at least minor.
    #[test]
    fn an_added_public_item_makes_the_release_minor_whichever_rule_found_it() {
        use Impact::{Breaking, NonBreaking};
        for rule in ["param-added-optional", "enum-opened", "paging-changed"] {
            assert_eq!(
                summary_adding(
                    &[change(rule, NonBreaking, NonBreaking)],
                    &["Request < GetTimesheetsForBid >::user_id()"]
                ),
                "1 change: 0 breaking on the wire, 0 breaking for the Rust API (semver-minor).",
                "{rule}"
            );
            assert_eq!(
                summary_adding(&[change(rule, Breaking, NonBreaking)], &[]),
                "1 change: 1 breaking on the wire, 0 breaking for the Rust API (semver-patch).",
                "{rule}"
            );
        }
    }

    /// Every rule that adds something files its entries under Added, but a required parameter,
    /// which breaks every caller: a change.
    #[test]
    fn every_adding_rule_files_its_entries_under_added() {
        for rule in diff::RULES {
            let adds = rule.id.split('-').any(|word| word == "added");
            let wanted = if rule.id == diff::rule::PARAM_ADDED_REQUIRED {
                Section::Changed
            } else if adds {
                Section::Added
            } else if rule.id.ends_with("-removed") {
                Section::Removed
            } else {
                Section::Changed
            };
            let change = change(rule.id, Impact::NonBreaking, Impact::NonBreaking);
            assert!(section(&change) == wanted, "{}", rule.id);
        }
    }

    #[test]
    fn the_generated_code_diff_is_line_by_line_before_its_deadline() {
        let (old, new) = (interleaved(40, false), interleaved(40, true));
        let far = Instant::now() + Duration::from_secs(3600);
        let diff = files_diff(&file("a.rs", old), &file("a.rs", new), far);
        assert!(!diff.contains("cut short"), "{diff}");
        assert!(diff.contains(" line 2\n-line 3\n+changed 3\n"), "{diff}");
    }

    #[test]
    fn a_generated_code_diff_past_its_deadline_is_cut_short_whole_and_says_so() {
        let (old, new) = (interleaved(40, false), interleaved(40, true));
        let past = Instant::now();
        let diff = files_diff(&file("a.rs", old), &file("a.rs", new), past);
        assert!(diff.contains("was cut short"), "{diff}");
        // Past the deadline the rest is removed and added whole: every line still shows.
        for i in 1..39 {
            let line = match i % 2 {
                1 => format!("+changed {i}\n"),
                _ => format!("-line {i}\n"),
            };
            assert!(diff.contains(&line), "{line} in {diff}");
        }
        assert!(!diff.contains(" line 2\n-line 3\n"), "{diff}");
    }
}
