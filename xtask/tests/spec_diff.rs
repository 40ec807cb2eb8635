//! `cargo xtask spec-diff`: one base/head fixture pair per rule (in `spec-diff/<case>/`, with the
//! expected rule and verdicts in `expect` and the whole report, witnesses included, in
//! `report.txt`), and the command itself on a scratch git repository.
//!
//! `SPEC_DIFF_BLESS=1 cargo test -p xtask --test spec_diff` rewrites the `report.txt` files
//! from what the tool reports, for review in the diff.

mod fixture_files;

use std::fs;
use std::path::{Path, PathBuf};

mod fixture_pairs;

use fixture_pairs::{cases_dir, source};
use marketplace_client::files::OutputDir;
use marketplace_codegen::diff::{self, Impact, RULES, Side};
use marketplace_codegen::resolve;
use xtask::spec_diff::{FailOn, Format, Options, SpecDiffError, run};

fn verdict(impact: Impact) -> &'static str {
    match impact {
        Impact::Breaking => "breaking",
        Impact::NonBreaking => "ok",
    }
}

#[test]
fn each_fixture_pair_reports_its_rule_with_both_verdicts() {
    let mut covered = Vec::new();
    let mut failures = Vec::new();
    for name in fixture_pairs::names() {
        // One expected change a line: `rule wire=… rust=…`.
        let expect = fs::read_to_string(cases_dir().join(&name).join("expect")).unwrap();
        let wanted: Vec<&str> = expect.lines().filter(|l| !l.trim().is_empty()).collect();
        let (_, _, changes) = fixture_pairs::load(&name);
        let main: Vec<_> = changes
            .iter()
            .filter(|c| {
                c.rule != diff::rule::DOC_CHANGED || expect.contains(diff::rule::DOC_CHANGED)
            })
            .collect();
        let got: Vec<String> = main
            .iter()
            .map(|c| {
                format!(
                    "{} wire={} rust={}",
                    c.rule,
                    verdict(c.wire),
                    verdict(c.rust)
                )
            })
            .collect();
        if got != wanted {
            failures.push(format!(
                "{name}: expected {wanted:?}, got {got:?}: {main:#?}"
            ));
        }
        if main.iter().any(|c| c.base.is_none() && c.head.is_none()) {
            failures.push(format!("{name}: a change is not located"));
        }
        covered.extend(
            wanted
                .iter()
                .filter_map(|w| w.split_whitespace().next())
                .map(str::to_owned),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for rule in RULES {
        assert!(
            covered.iter().any(|c| c == rule.id),
            "rule {} has no fixture pair",
            rule.id
        );
    }
}

/// The text report of a fixture pair, without the generated code's diff.
fn report(name: &str, format: &str) -> xtask::spec_diff::Outcome {
    let read = |file: &str| source(fs::read_to_string(cases_dir().join(name).join(file)).unwrap());
    let (base, head) = (read("base.yaml"), read("head.yaml"));
    xtask::spec_diff::compare(
        ("base.yaml", &base),
        ("head.yaml", &head),
        &Options::parse(&["--format", format]).unwrap(),
        false,
    )
    .unwrap()
}

#[test]
fn each_fixture_pair_reports_what_its_report_file_shows() {
    let bless = std::env::var_os("SPEC_DIFF_BLESS").is_some();
    let mut failures = Vec::new();
    for name in fixture_pairs::names() {
        let path = cases_dir().join(&name).join("report.txt");
        let got = report(&name, "text").report;
        if bless {
            OutputDir::open(cases_dir().join(&name))
                .unwrap()
                .write("report.txt", &got)
                .unwrap();
            continue;
        }
        let want = fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            let diff = similar::TextDiff::from_lines(&want, &got)
                .unified_diff()
                .header("report.txt", "the tool's report")
                .to_string();
            failures.push(format!("{name}:\n{diff}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(SPEC_DIFF_BLESS=1 rewrites the report files)",
        failures.join("\n")
    );
}

/// Every breaking verdict of every fixture pair carries the witness that shows it (never the
/// budget's stand-in), and each format prints it: the text, the markdown, the changelog and
/// the JSON report.
#[test]
fn every_breaking_verdict_shows_its_witness_in_every_format() {
    let mut failures = Vec::new();
    let mut witnessed = 0;
    for name in fixture_pairs::names() {
        let outcome = report(&name, "text");
        let formats: Vec<(&str, String)> = ["text", "markdown", "changelog", "json"]
            .into_iter()
            .map(|format| (format, report(&name, format).report))
            .collect();
        for change in &outcome.changes {
            for (side, verdict, witness) in [
                ("wire", change.wire, &change.wire_witness),
                ("rust", change.rust, &change.rust_witness),
            ] {
                if (verdict == Impact::Breaking) != witness.is_some() {
                    failures.push(format!(
                        "{name}: {} {side} is {}, its witness {witness:?}",
                        change.rule,
                        verdict_word(verdict)
                    ));
                    continue;
                }
                let Some(witness) = witness else { continue };
                if matches!(witness, diff::Witness::Unsimulated { .. }) {
                    failures.push(format!("{name}: {} {side} was not simulated", change.rule));
                }
                witnessed += 1;
                let sentence = witness.sentence();
                for (format, text) in &formats {
                    let shown = match *format {
                        "json" => {
                            let json: serde_json::Value = serde_json::from_str(text).unwrap();
                            json["changes"].as_array().unwrap().iter().any(|c| {
                                c[format!("{side}_witness")]
                                    == serde_json::to_value(witness).unwrap()
                            })
                        }
                        "markdown" => shown_text(text).contains(&as_shown(&sentence)),
                        // Each a sentence of its own: the next witness starts after a stop.
                        "changelog" => {
                            let sentence = as_shown(&sentence);
                            let stop = if sentence.ends_with('.') { "" } else { "." };
                            shown_text(text).contains(&format!("{sentence}{stop}"))
                        }
                        _ => text.contains(&sentence),
                    };
                    if !shown {
                        failures.push(format!(
                            "{name}: the {format} report does not show the {side} witness of {}: {sentence}",
                            change.rule
                        ));
                    }
                }
            }
        }
    }
    assert!(
        witnessed > 40,
        "only {witnessed} witnesses: the fixtures lost their breaks"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The text a CommonMark reader (pulldown-cmark, with GitHub's tables) shows of `markdown`:
/// every text and code span, HTML and markup left out.
fn shown_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser};
    Parser::new_ext(
        markdown,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .filter_map(|event| match event {
        Event::Text(text) | Event::Code(text) => Some(text.into_string()),
        _ => None,
    })
    .collect()
}

/// What a Markdown reader shows of a message or witness: its code spans without their
/// backticks, on one line.
fn as_shown(text: &str) -> String {
    text.replace('`', "").replace('\n', " ")
}

/// Every message of every fixture pair is shown as itself by a Markdown reader, in the
/// markdown report (a pull request) and in the changelog (CHANGELOG.md): nothing in a message
/// (`Option<u64>`, a `*`, a `[`) is read as HTML or markup and lost.
#[test]
fn every_message_reads_as_itself_in_markdown_and_the_changelog() {
    let mut failures = Vec::new();
    for name in fixture_pairs::names() {
        let outcome = report(&name, "text");
        let markdown = shown_text(&report(&name, "markdown").report);
        let changelog = shown_text(&report(&name, "changelog").report);
        for change in &outcome.changes {
            let message = as_shown(&change.message);
            if !markdown.contains(&message) {
                failures.push(format!("{name}: markdown does not show {message:?}"));
            }
            if change.rule != diff::rule::DOC_CHANGED && !changelog.contains(&message) {
                failures.push(format!("{name}: the changelog does not show {message:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Rust in the reports is written as rustfmt would (`&Option<u64>`, `Request<GetX>::id()`),
/// not with the token stream's spaces (`& Option < u64 >`): every witness's code and item and
/// every broken item of every fixture pair's JSON report.
#[test]
fn rust_in_reports_is_written_without_the_token_streams_spaces() {
    let mut failures = Vec::new();
    let mut rust = 0;
    for name in fixture_pairs::names() {
        let json: serde_json::Value = serde_json::from_str(&report(&name, "json").report).unwrap();
        for change in json["changes"].as_array().unwrap() {
            let mut shown: Vec<&str> = change["broken_items"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|item| item.as_str())
                .collect();
            for witness in [&change["rust_witness"], &change["wire_witness"]] {
                shown.extend(
                    ["item", "code"]
                        .iter()
                        .filter_map(|key| witness[key].as_str()),
                );
            }
            for text in shown {
                rust += 1;
                if [" < ", " >", " ::", "& ", " ,"]
                    .iter()
                    .any(|s| text.contains(s))
                {
                    failures.push(format!("{name}: {} shows {text:?}", change["rule"]));
                }
            }
        }
    }
    assert!(
        rust > 40,
        "only {rust} Rust texts: the fixtures lost their breaks"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn verdict_word(impact: Impact) -> &'static str {
    verdict(impact)
}

#[test]
fn changes_are_located_in_both_specs() {
    let case = cases_dir().join("field-type-widened");
    let base_sources = source(fs::read_to_string(case.join("base.yaml")).unwrap());
    let head_sources = source(fs::read_to_string(case.join("head.yaml")).unwrap());
    let (base, head) = (
        resolve(&base_sources).unwrap(),
        resolve(&head_sources).unwrap(),
    );
    let changes = diff::diff(
        Side {
            api: &base,
            sources: &base_sources,
        },
        Side {
            api: &head,
            sources: &head_sources,
        },
    )
    .unwrap()
    .changes;
    let change = &changes[0];
    assert_eq!(change.subject, "types.Timesheet.fields.hours");
    assert_eq!(
        change.message,
        "Timesheet.hours: integer -> decimal (i64 -> Decimal); old decoders refuse some values the new server sends"
    );
    let at = change.head.as_ref().unwrap();
    assert_eq!(
        (at.file.as_str(), at.line, at.column),
        ("spec/api.yaml", 21, 7)
    );
    assert_eq!(change.base.as_ref().unwrap().line, 21);
}

// ---- the command on a git repository --------------------------------------------------------

struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    /// A repository on branch `main` whose first commit holds the real spec.
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let real = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .join("spec");
        let spec = OutputDir::open(&root).unwrap().subdir("spec").unwrap();
        for entry in fs::read_dir(real).unwrap() {
            let path = entry.unwrap().path();
            // The spec files; not the reference's snapshot under spec/reference/.
            if path.is_file() {
                spec.write(path.file_name().unwrap(), fs::read(&path).unwrap())
                    .unwrap();
            }
        }
        let repo = Repo { _dir: dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.commit("the spec");
        repo
    }

    fn git(&self, args: &[&str]) {
        fixture_files::git(&self.root, args);
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    fn edit(&self, file: &str, from: &str, to: &str) {
        let text = fs::read_to_string(self.root.join("spec").join(file)).unwrap();
        assert!(text.contains(from), "{from:?}");
        OutputDir::open(&self.root)
            .unwrap()
            .write(Path::new("spec").join(file), text.replacen(from, to, 1))
            .unwrap();
    }

    fn run(&self, args: &[&str]) -> Result<xtask::spec_diff::Outcome, SpecDiffError> {
        run(&self.root, &Options::parse(args).unwrap())
    }
}

#[test]
fn a_clean_tree_reports_no_change_and_succeeds() {
    let repo = Repo::new();
    let outcome = repo.run(&["--fail-on", "any"]).unwrap();
    assert!(outcome.changes.is_empty());
    assert!(!outcome.failed);
    assert!(
        outcome.report.contains("No change to the API."),
        "{}",
        outcome.report
    );
}

#[test]
fn fail_on_breaking_fails_exactly_when_a_change_breaks() {
    let repo = Repo::new();
    repo.edit(
        "pay.yaml",
        "doc: Date the timesheet was submitted.",
        "doc: When the timesheet was submitted.",
    );
    let outcome = repo.run(&["--fail-on", "breaking"]).unwrap();
    assert_eq!(outcome.changes.len(), 1);
    assert!(!outcome.failed, "a documentation change breaks nobody");
    assert!(
        outcome.report.contains(
            "1 change: 0 breaking on the wire, 0 breaking for the Rust API (semver-patch)."
        ),
        "{}",
        outcome.report
    );
    assert!(repo.run(&["--fail-on", "any"]).unwrap().failed);

    repo.edit(
        "workroom.yaml",
        "      userName:\n",
        "      user_name_removed:\n",
    );
    let outcome = repo.run(&["--fail-on", "breaking"]).unwrap();
    assert!(outcome.failed, "{}", outcome.report);
    assert!(
        outcome
            .report
            .contains("breaking for the Rust API (semver-major)."),
        "{}",
        outcome.report
    );
    assert!(
        outcome.report.contains("field-removed"),
        "{}",
        outcome.report
    );
    assert!(
        outcome.report.contains("Generated code:"),
        "{}",
        outcome.report
    );
    assert!(
        outcome.report.contains("-    pub user_name: String,"),
        "{}",
        outcome.report
    );
}

/// A base written before a rule of agreement (here `error-lists-disagree`) is compared as it
/// is, with a note; a head that breaks the rule is refused.
#[test]
fn a_base_older_than_a_rule_of_agreement_is_compared_with_a_note() {
    let repo = Repo::new();
    repo.edit(
        "manage.yaml",
        "errors: [E_API_AUTH_SIGNATURE_MISMATCH, E_VALIDATION_INVALID_ID]",
        "errors: [E_API_AUTH_SIGNATURE_MISMATCH]",
    );
    repo.commit("an older spec: the method's list leaves out a code that names it");
    repo.edit(
        "manage.yaml",
        "errors: [E_API_AUTH_SIGNATURE_MISMATCH]",
        "errors: [E_API_AUTH_SIGNATURE_MISMATCH, E_VALIDATION_INVALID_ID]",
    );
    repo.commit("the lists agree");
    let outcome = repo
        .run(&["--base", "HEAD~1", "--head", "HEAD"])
        .expect("an older base is compared");
    assert!(
        outcome.report.contains(
            "note: the base breaks a rule the head is held to; it is compared as it is: \
             spec/api.yaml"
        ) && outcome.report.contains("error-lists-disagree"),
        "{}",
        outcome.report
    );
    assert!(
        outcome
            .changes
            .iter()
            .any(|change| change.rule == "method-errors-changed"),
        "{}",
        outcome.report
    );
    let json = repo
        .run(&["--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&json.report).unwrap();
    assert_eq!(json["base_notes"].as_array().map(Vec::len), Some(1));
    // The other way round the head breaks the rule: refused, whatever the base.
    let error = repo
        .run(&["--base", "HEAD", "--head", "HEAD~1"])
        .unwrap_err();
    assert!(
        error.to_string().contains("error-lists-disagree"),
        "{error}"
    );
}

#[test]
fn revisions_are_read_with_git_and_the_work_tree_is_left_alone() {
    let repo = Repo::new();
    repo.edit(
        "workroom.yaml",
        "      hours:\n        type: integer",
        "      hours:\n        type: decimal",
    );
    repo.commit("hours are decimal");
    let before = fs::read_to_string(repo.root.join("spec/workroom.yaml")).unwrap();
    let outcome = repo
        .run(&["--base", "HEAD~1", "--head", "HEAD", "--format", "json"])
        .unwrap();
    assert_eq!(
        fs::read_to_string(repo.root.join("spec/workroom.yaml")).unwrap(),
        before
    );
    let json: serde_json::Value = serde_json::from_str(&outcome.report).unwrap();
    assert_eq!(json["schema"], "marketplace-spec-diff/1");
    assert_eq!(json["summary"]["changes"], 1);
    let change = &json["changes"][0];
    assert_eq!(change["rule"], "field-type-widened");
    assert_eq!(change["wire"], "breaking");
    assert_eq!(change["rust"], "breaking");
    assert_eq!(change["head"]["file"], "spec/workroom.yaml");
    assert!(
        json["generated_diff"]
            .as_str()
            .unwrap()
            .contains("+    pub hours: Decimal,")
    );
}

#[test]
fn markdown_is_a_table_with_the_generated_diff_folded() {
    let repo = Repo::new();
    repo.edit(
        "pay.yaml",
        "      Released: Released.\n",
        "      Released: Released.\n      Cancelled: Cancelled.\n",
    );
    let outcome = repo.run(&["--format", "markdown"]).unwrap();
    let report = &outcome.report;
    assert!(report.starts_with("### Spec changes"), "{report}");
    assert!(
        report.contains("| rule | wire | Rust API | what | where |"),
        "{report}"
    );
    assert!(
        report.contains("| `enum-value-added` | ✅ | ✅ |"),
        "{report}"
    );
    assert!(
        report.contains(
            "**1 change: 0 breaking on the wire, 0 breaking for the Rust API (semver-minor).**"
        ),
        "{report}"
    );
    assert!(
        report.contains("<details><summary>Generated code</summary>"),
        "{report}"
    );
}

#[test]
fn changelog_entries_go_under_keep_a_changelog_headings() {
    let repo = Repo::new();
    repo.edit(
        "pay.yaml",
        "      Released: Released.\n",
        "      Released: Released.\n      Cancelled: Cancelled.\n",
    );
    repo.edit("workroom.yaml", "type: integer", "type: decimal");
    let outcome = repo.run(&["--format", "changelog"]).unwrap();
    let report = &outcome.report;
    let added = report
        .find("### Added\n\n- InvoiceStatus::Cancelled")
        .expect(report);
    let changed = report
        .find(
            "### Changed\n\n- **Breaking** (wire and Rust API): Workview.hours: integer -> decimal",
        )
        .expect(report);
    assert!(added < changed, "{report}");
    assert!(
        report.contains("(`enums.InvoiceStatus.values.Cancelled`, spec-diff `enum-value-added`)"),
        "{report}"
    );
    assert!(!report.contains("### Removed"), "{report}");
}

#[test]
fn an_invalid_spec_at_a_revision_is_reported_with_its_location() {
    let repo = Repo::new();
    repo.edit("pay.yaml", "type: decimal", "type: decimall");
    repo.commit("typo");
    let error = repo
        .run(&["--base", "HEAD~1", "--head", "HEAD"])
        .unwrap_err()
        .to_string();
    assert!(error.contains("the spec at HEAD"), "{error}");
    assert!(error.contains("spec/pay.yaml:"), "{error}");
    assert!(
        error.contains("unknown type 'decimall' (did you mean 'decimal'?)"),
        "{error}"
    );
    let error = repo.run(&["--base", "no-such-revision"]).unwrap_err();
    assert!(matches!(error, SpecDiffError::Git { .. }), "{error}");
}

#[test]
fn options_are_checked() {
    assert!(Options::parse(&["--format", "yaml"]).is_err());
    assert!(Options::parse(&["--fail-on"]).is_err());
    assert!(Options::parse(&["--surprise"]).is_err());
    let options = Options::parse(&["--format", "json", "--fail-on", "breaking"]).unwrap();
    assert_eq!(
        (options.format, options.fail_on),
        (Format::Json, FailOn::Breaking)
    );
    assert_eq!(Options::parse(&[]), Ok(Options::default()));
    assert_eq!(
        Options::parse(&["--fail-on", "never"]).map(|options| options.fail_on),
        Ok(FailOn::Nothing)
    );
}
