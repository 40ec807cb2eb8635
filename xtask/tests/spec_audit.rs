//! `cargo xtask spec-audit`: the committed spec agrees with the committed reference, and each
//! kind of finding, planted in a small reference/spec pair (`spec-audit/<kind>/`), is reported
//! with its spec file:line:column and the reference's line (the lines expected are in
//! `spec-audit/<kind>/expect`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use marketplace_codegen::audit::{self, FindingKind, parse_reference};
use marketplace_codegen::{CodegenError, SpecSource, resolve};
use xtask::codegen::{SPEC_DIR, workspace_root};
use xtask::judgement::{Count, Tally};
use xtask::spec_audit::{
    Options, SHARED_REFERENCE, SNAPSHOT_REFERENCE, SpecAuditError, default_reference, report, run,
};

mod scratch;
use scratch::Scratch;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec-audit")
}

/// The findings of one case, as printed.
fn audit_case(case: &Path) -> Vec<String> {
    let read = |file: &str| fs::read_to_string(case.join(file)).unwrap();
    let reference = parse_reference(&read("reference.md"), "reference.md")
        .unwrap_or_else(|error| panic!("{}: {error}", case.display()));
    let sources = [SpecSource {
        path: "spec/api.yaml".to_owned(),
        text: read("spec.yaml"),
    }];
    let api = resolve(&sources).unwrap_or_else(|error| panic!("{}: {error}", case.display()));
    audit::audit(&api, &sources, &reference)
        .findings
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(cases_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    cases.sort();
    cases
}

/// The workspace test of the issue: `cargo xtask spec-audit` is clean on `spec/`.
#[test]
fn committed_spec_agrees_with_the_reference() {
    let outcome = run(&workspace_root(), &Options { reference: None })
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(outcome.findings.is_empty(), "{}", outcome.report);
    let shown = default_reference(&workspace_root());
    assert_eq!(
        outcome.report,
        format!(
            "spec-audit: {SPEC_DIR}/ agrees with {shown}: no finding\nspec-audit: {}\n",
            outcome.judged
        )
    );
    // Every method and type of the spec is judged.
    let api = resolve(
        &marketplace_codegen::load_spec_dir(&workspace_root().join(SPEC_DIR), SPEC_DIR).unwrap(),
    )
    .unwrap();
    let judged = outcome.judged.to_string();
    for (count, kind) in [(api.methods.len(), "methods"), (api.records.len(), "types")] {
        assert!(judged.contains(&format!(" {count} {kind}")), "{judged}");
    }
}

/// The snapshot a clone on its own audits against is the shared reference, wherever the
/// shared one is beside the workspace (on a machine without it, the snapshot is all there is).
#[test]
fn the_committed_snapshot_is_the_shared_reference() {
    let root = workspace_root();
    let snapshot = fs::read_to_string(root.join(SNAPSHOT_REFERENCE)).unwrap();
    match fs::read_to_string(root.join(SHARED_REFERENCE)) {
        Ok(shared) => assert!(
            shared == snapshot,
            "{SHARED_REFERENCE} changed: copy it to {SNAPSHOT_REFERENCE}, then run `cargo xtask \
             spec-audit` and fix what it finds"
        ),
        Err(_) => assert_eq!(default_reference(&root), SNAPSHOT_REFERENCE),
    }
    // Either way the snapshot is a reference the audit can read.
    parse_reference(&snapshot, SNAPSHOT_REFERENCE).unwrap_or_else(|error| panic!("{error}"));
}

#[test]
fn each_case_reports_its_planted_findings_located_in_spec_and_reference() {
    let mut wrong = String::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expected = fs::read_to_string(case.join("expect")).unwrap();
        let expected: Vec<&str> = expected.lines().filter(|l| !l.is_empty()).collect();
        let found = audit_case(&case);
        if found != expected {
            wrong += &format!("\n{name}/expect should be:\n{}\n", found.join("\n"));
        }
    }
    assert!(wrong.is_empty(), "{wrong}");
}

#[test]
fn every_kind_of_finding_has_a_case_that_plants_only_it() {
    let mut covered = BTreeSet::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let findings = audit_case(&case);
        if name == "clean" {
            assert!(findings.is_empty(), "{findings:#?}");
            continue;
        }
        let kind = FindingKind::ALL
            .into_iter()
            .find(|kind| kind.id() == name)
            .unwrap_or_else(|| panic!("{name} names no kind of finding"));
        let marker = format!(": {}: ", kind.id());
        assert!(!findings.is_empty(), "{name} plants nothing");
        for finding in &findings {
            assert!(finding.contains(&marker), "{name}: {finding}");
        }
        covered.insert(kind);
    }
    assert_eq!(covered, FindingKind::ALL.into_iter().collect());
}

/// The example: a `string` field typed as an integer without evidence, planted in a
/// copy of the committed spec, is reported at its `type:` line with the reference's row.
#[test]
fn an_id_typed_field_without_evidence_in_the_committed_spec_is_reported() {
    let scratch = Scratch::new();
    let planted = "      jobId:\n        type: id\n        encoding: string\n";
    scratch.edit(
        "spec/api.yaml",
        "      jobId:\n        type: string\n        encoding: string_or_number\n",
        planted,
    );
    let edited = fs::read_to_string(scratch.path("spec/api.yaml")).unwrap();
    let line = edited[..edited.find(planted).unwrap()].lines().count() + 2;
    let reference = workspace_root().join(SNAPSHOT_REFERENCE);
    let row = fs::read_to_string(&reference)
        .unwrap()
        .lines()
        .position(|l| l == "| jobId | string | |")
        .unwrap()
        + 1;

    let outcome = run(
        &scratch.root,
        &Options {
            reference: Some(reference.clone()),
        },
    )
    .unwrap();
    let shown = reference.display();
    assert_eq!(
        outcome.report,
        format!(
            "spec/api.yaml:{line}:9: narrower-than-reference: types.Bid.fields.jobId: narrower \
             than the reference (string -> id) with no recorded evidence: widen the type, or \
             say why in narrowed:, quoting the reference [{shown}:{row}: | jobId | string | |]\n\
             spec-audit: 1 finding against {shown} (1 narrower-than-reference)\n\
             spec-audit: {}\n",
            outcome.judged
        )
    );
}

#[test]
fn a_reference_that_cannot_be_read_is_an_error_at_its_lines() {
    let scratch = Scratch::new();
    let reference = scratch.path("reference.md");
    scratch.write(
        "reference.md",
        "## Resources and their fields\n\n### BidData\n\n| Field | Type | Notes |\n|---|---|---|\n\
         | bidId | strnig | |\n| x y | string | |\n\n## Endpoints\n\n### pay/getThing\n\n\
         data: a (integer) b (integer).\n",
    );
    let error = run(
        &scratch.root,
        &Options {
            reference: Some(reference.clone()),
        },
    )
    .unwrap_err();
    assert!(matches!(error, SpecAuditError::Reference(_)), "{error:?}");
    let shown = reference.display();
    assert_eq!(
        error.to_string(),
        format!(
            "{shown}:7: unknown type 'strnig' (did you mean 'string'?)\n\
             {shown}:8: cannot read a field name from 'x y'\n\
             {shown}:14: expected ',' or 'and' before 'b (integer)'\n\
             3 errors in the reference"
        )
    );
}

#[test]
fn a_missing_reference_is_an_error_naming_it() {
    let scratch = Scratch::new();
    let missing = scratch.path("nowhere.md");
    let error = run(
        &scratch.root,
        &Options {
            reference: Some(missing.clone()),
        },
    )
    .unwrap_err();
    assert!(
        matches!(error, SpecAuditError::Codegen(CodegenError::Io { .. })),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot read {}: ", missing.display())),
        "{error}"
    );
}

#[test]
fn an_invalid_spec_is_an_error_with_its_location() {
    let scratch = Scratch::new();
    scratch.edit("spec/api.yaml", "type: boolean", "type: boolen");
    let reference = workspace_root().join(SNAPSHOT_REFERENCE);
    let error = run(
        &scratch.root,
        &Options {
            reference: Some(reference),
        },
    )
    .unwrap_err();
    assert!(matches!(error, SpecAuditError::Spec(_)), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("unknown type 'boolen' (did you mean 'boolean'?)"),
        "{error}"
    );
}

#[test]
fn the_report_has_a_line_per_finding_then_the_counts() {
    let case = cases_dir().join("narrower-than-reference");
    let reference = parse_reference(
        &fs::read_to_string(case.join("reference.md")).unwrap(),
        "r.md",
    )
    .unwrap();
    let sources = [SpecSource {
        path: "spec/api.yaml".to_owned(),
        text: fs::read_to_string(case.join("spec.yaml")).unwrap(),
    }];
    let findings = audit::audit(&resolve(&sources).unwrap(), &sources, &reference).findings;
    let judged = Tally {
        command: "spec-audit",
        looked_at: "spec/ and r.md".to_owned(),
        read: vec![Count::new(1, "spec file")],
        judged: vec![Count::new(3, "field")],
        over: Some("against r.md".to_owned()),
        left_out: Vec::new(),
        remedy: "",
    }
    .verdict()
    .unwrap();
    let printed = report(&findings, "r.md", &judged);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), findings.len() + 2);
    assert_eq!(
        lines[findings.len()],
        "spec-audit: 3 findings against r.md (3 narrower-than-reference)"
    );
    let counts = "spec-audit: read 1 spec file; judged 3 fields against r.md";
    assert_eq!(lines.last().copied(), Some(counts));
    assert_eq!(
        report(&[], "r.md", &judged),
        format!("spec-audit: {SPEC_DIR}/ agrees with r.md: no finding\n{counts}\n")
    );
}

#[test]
fn options_take_a_reference_path_and_nothing_else() {
    assert_eq!(Options::parse(&[]), Ok(Options { reference: None }));
    assert_eq!(
        Options::parse(&["--reference", "a.md"]),
        Ok(Options {
            reference: Some(PathBuf::from("a.md"))
        })
    );
    let missing = Options::parse(&["--reference"]).unwrap_err();
    assert!(
        missing.starts_with("error: a value is required for '--reference <PATH>'"),
        "{missing}"
    );
    let unknown = Options::parse(&["--base", "main"]).unwrap_err();
    assert!(
        unknown.starts_with("error: unexpected argument '--base'"),
        "{unknown}"
    );
}
