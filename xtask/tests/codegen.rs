//! `cargo xtask codegen`: the committed client matches the spec, stale code is caught with the
//! command that fixes it, an invalid spec writes nothing, and a spec edit changes only the
//! lines it should.

use std::fs;
use std::path::Path;

use xtask::codegen::{self, Change, GENERATED_DIR, SPEC_DIR, XtaskError};

mod scratch;
use scratch::Scratch;

/// The committed generated code is what the committed spec produces.
#[test]
fn committed_generated_code_is_up_to_date() {
    if let Err(error) = codegen::check(&codegen::workspace_root()) {
        panic!("{error}");
    }
}

/// Generating twice from the same spec gives byte-identical files.
#[test]
fn generation_is_deterministic() {
    let root = codegen::workspace_root();
    let sources = marketplace_codegen::load_spec_dir(&root.join(SPEC_DIR), SPEC_DIR).unwrap();
    let first = marketplace_codegen::generate_from_sources(&sources).unwrap();
    let second = marketplace_codegen::generate_from_sources(&sources).unwrap();
    assert_eq!(first, second);
}

/// Regenerates the scratch workspace's client; returns what changed.
fn regenerate(scratch: &Scratch) -> Vec<Change> {
    let changes = codegen::plan(&scratch.root).unwrap();
    codegen::apply(&changes).unwrap();
    changes
}

/// Every file of the scratch workspace's generated folder, by name.
fn generated(scratch: &Scratch) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(scratch.path(GENERATED_DIR))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn stale_message(root: &Path) -> String {
    match codegen::check(root) {
        Err(XtaskError::Stale(message)) => message,
        other => panic!("expected stale code, got {other:?}"),
    }
}

#[test]
fn the_spec_readme_part_from_the_code_is_rewritten_and_checked_the_rest_kept() {
    let scratch = Scratch::new();
    let readme = codegen::SPEC_README;
    scratch.edit(readme, "| `dmy` |", "| `dmy_edited` |");
    scratch.edit(readme, "## Types", "## Types (edited by hand, kept)");
    let message = stale_message(&scratch.root);
    assert!(message.contains("spec/README.md"), "{message}");
    assert!(message.contains("-| `dmy_edited` |"), "{message}");
    let changes = regenerate(&scratch);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let text = fs::read_to_string(scratch.path(readme)).unwrap();
    assert!(text.contains("| `dmy` |") && !text.contains("dmy_edited"));
    assert!(text.contains("## Types (edited by hand, kept)"));
    assert!(codegen::check(&scratch.root).is_ok());
}

#[test]
fn check_catches_a_hand_edit_with_a_diff_and_the_fix() {
    let scratch = Scratch::new();
    assert!(codegen::check(&scratch.root).is_ok());
    scratch.edit(
        &format!("{GENERATED_DIR}/pay.rs"),
        "pub struct Timesheet {",
        "pub struct Timesheet {\n    pub edited_by_hand: bool,",
    );
    let message = stale_message(&scratch.root);
    assert!(
        message.contains("generated-client/src/generated/pay.rs"),
        "{message}"
    );
    assert!(
        message.contains("-    pub edited_by_hand: bool,"),
        "{message}"
    );
    assert!(
        message.contains("Run `cargo xtask codegen` to update them."),
        "{message}"
    );
}

#[test]
fn changing_one_field_type_changes_exactly_its_lines() {
    let scratch = Scratch::new();
    scratch.edit(
        &format!("{SPEC_DIR}/workroom.yaml"),
        "      hours:\n        type: integer",
        "      hours:\n        type: decimal",
    );
    let (export, changes): (Vec<Change>, Vec<Change>) = regenerate(&scratch)
        .into_iter()
        .partition(|change| change.path().ends_with("spec/openapi.json"));
    assert_eq!(export.len(), 1, "the OpenAPI export changes too");
    assert_eq!(changes.len(), 1, "only workroom.rs changes of the Rust");
    let Change::Update { path, old, new } = &changes[0] else {
        panic!("expected an update, got {changes:?}");
    };
    assert!(path.ends_with("workroom.rs"));
    let diff = similar::TextDiff::from_lines(old, new);
    let changed: Vec<String> = diff
        .iter_all_changes()
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .map(|c| format!("{}{}", c.tag(), c.value().trim_end()))
        .collect();
    assert_eq!(
        changed,
        [
            "+use rust_decimal::Decimal;",
            "-    pub hours: i64,",
            "+    pub hours: Decimal,",
            // The field's slot and setter in the record's builder.
            "-    hours: Option<i64>,",
            "+    hours: Option<Decimal>,",
            "-    pub fn hours(mut self, hours: i64) -> Self {",
            "-        self.hours = Some(hours);",
            "+    pub fn hours(mut self, hours: impl Into<Decimal>) -> Self {",
            "+        self.hours = Some(hours.into());",
        ]
    );
    assert!(codegen::check(&scratch.root).is_ok());
}

#[test]
fn an_invalid_spec_writes_nothing() {
    let scratch = Scratch::new();
    let before = generated(&scratch);
    scratch.edit(
        &format!("{SPEC_DIR}/pay.yaml"),
        "type: decimal",
        "type: decimall",
    );
    let error = codegen::plan(&scratch.root).unwrap_err().to_string();
    assert!(
        error.contains("spec/pay.yaml:")
            && error.contains("unknown type 'decimall' (did you mean 'decimal'?)"),
        "{error}"
    );
    assert!(error.ends_with("nothing was written"), "{error}");
    assert_eq!(generated(&scratch), before);
}

#[test]
fn files_no_longer_generated_are_removed_but_hand_written_ones_kept() {
    let scratch = Scratch::new();
    let generated_dir = scratch.path(GENERATED_DIR);
    fs::write(
        generated_dir.join("old.rs"),
        "// @generated by `cargo xtask codegen` from spec/old.yaml.\n",
    )
    .unwrap();
    fs::write(generated_dir.join("notes.rs"), "// written by a person\n").unwrap();
    let changes = regenerate(&scratch);
    assert_eq!(changes.len(), 1);
    assert!(matches!(&changes[0], Change::Remove { path, .. } if path.ends_with("old.rs")));
    assert!(!generated_dir.join("old.rs").exists());
    assert!(generated_dir.join("notes.rs").exists());
}

#[test]
fn regenerating_an_up_to_date_tree_changes_nothing() {
    let scratch = Scratch::new();
    assert!(regenerate(&scratch).is_empty());
}

#[test]
fn a_hand_edit_of_the_fakes_wire_shapes_is_caught_and_undone() {
    let scratch = Scratch::new();
    let shapes = format!("{}/shapes.rs", marketplace_codegen::FAKE_SHAPES_DIR);
    scratch.edit(&shapes, "Encoding::StringOrNumber", "Encoding::String");
    let message = stale_message(&scratch.root);
    assert!(
        message.contains("tests/fake/src/generated/shapes.rs"),
        "{message}"
    );
    assert!(
        message
            .lines()
            .any(|line| line.starts_with('+') && line.contains("Encoding::StringOrNumber")),
        "{message}"
    );
    assert!(message.contains("Run `cargo xtask codegen`"), "{message}");
    let changes = regenerate(&scratch);
    assert_eq!(changes.len(), 1, "{changes:?}");
    codegen::check(&scratch.root).unwrap();
}
