//! `cargo xtask codegen`: the committed client matches the spec, stale code is caught with the
//! command that fixes it, an invalid spec writes nothing, and a spec edit changes only the
//! lines it should.

use std::fs;
use std::path::{Path, PathBuf};

use marketplace_client::files::{OutputDir, Problem};
use xtask::codegen::{self, Change, GENERATED_DIR, SPEC_DIR, XtaskError};

mod scratch;
mod tree;
use scratch::Scratch;
use tree::{Node, snapshot};

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
    codegen::apply(&scratch.root, &changes).unwrap();
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
    scratch.write(
        &format!("{GENERATED_DIR}/old.rs"),
        "// @generated by `cargo xtask codegen` from spec/old.yaml.\n",
    );
    scratch.write(
        &format!("{GENERATED_DIR}/notes.rs"),
        "// written by a person\n",
    );
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

// ---- where the files go: never through a link, never half-written ---------------------------

/// A scratch workspace beside an `outside` folder holding a file a link can point to.
fn beside_outside() -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    let outside = scratch.root.with_file_name(format!(
        "{}-outside",
        scratch.root.file_name().unwrap().to_string_lossy()
    ));
    OutputDir::create(&outside)
        .unwrap()
        .write("planted.rs", "outside, untouched\n")
        .unwrap();
    (scratch, outside)
}

fn remove_outside(outside: &Path) {
    OutputDir::open(outside.parent().unwrap())
        .unwrap()
        .remove_all(outside.file_name().unwrap())
        .unwrap();
}

/// A link planted at a generated file's name is replaced by the file, never written through;
/// one pointing at a file outside is refused before anything is written.
#[cfg(unix)]
#[test]
fn a_link_at_a_generated_file_is_replaced_or_refused_never_followed() {
    let (scratch, outside) = beside_outside();
    let before_outside = snapshot(&outside);
    let pay = scratch.path(&format!("{GENERATED_DIR}/pay.rs"));
    let committed = fs::read_to_string(&pay).unwrap();
    scratch
        .out()
        .remove(format!("{GENERATED_DIR}/pay.rs"))
        .unwrap();
    // Dangling: the generator takes the file as missing, and writes it in the link's place.
    std::os::unix::fs::symlink(outside.join("new.rs"), &pay).unwrap();
    let changes = regenerate(&scratch);
    assert!(matches!(&changes[..], [Change::Create { path, .. }] if path == &pay));
    assert!(fs::symlink_metadata(&pay).unwrap().is_file());
    assert_eq!(fs::read_to_string(&pay).unwrap(), committed);
    assert_eq!(snapshot(&outside), before_outside);
    // To a file outside: refused, naming it.
    scratch
        .out()
        .remove(format!("{GENERATED_DIR}/pay.rs"))
        .unwrap();
    std::os::unix::fs::symlink(outside.join("planted.rs"), &pay).unwrap();
    let error = codegen::plan(&scratch.root).unwrap_err().to_string();
    assert!(
        error.contains("pay.rs") && error.contains("outside"),
        "{error}"
    );
    assert_eq!(snapshot(&outside), before_outside);
    remove_outside(&outside);
}

/// The generated folder replaced by a link to a folder outside: the generator reads through
/// it (the input side follows a link that stays put), but writes nothing there.
#[cfg(unix)]
#[test]
fn a_link_at_a_generated_folder_is_refused_and_nothing_is_written_outside() {
    let (scratch, outside) = beside_outside();
    let out = scratch.out();
    let moved = OutputDir::open(&outside).unwrap();
    for (name, node) in snapshot(&scratch.path(GENERATED_DIR)) {
        if let Node::File(bytes) = node {
            moved
                .write(Path::new("generated").join(name), bytes)
                .unwrap();
        }
    }
    out.remove_all(GENERATED_DIR).unwrap();
    std::os::unix::fs::symlink(outside.join("generated"), scratch.path(GENERATED_DIR)).unwrap();
    scratch.edit(
        &format!("{SPEC_DIR}/workroom.yaml"),
        "      hours:\n        type: integer",
        "      hours:\n        type: decimal",
    );
    let before_outside = snapshot(&outside);
    let before = snapshot(&scratch.root);
    let changes = codegen::plan(&scratch.root).unwrap();
    // The workroom module, and the OpenAPI export outside the linked folder.
    assert_eq!(changes.len(), 2, "{changes:?}");
    let error = codegen::apply(&scratch.root, &changes).unwrap_err();
    let XtaskError::Write(error) = &error else {
        panic!("expected a write error, got {error:?}");
    };
    assert!(matches!(error.problem(), Problem::Link(link) if link.ends_with(GENERATED_DIR)));
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(snapshot(&outside), before_outside);
    assert_eq!(snapshot(&scratch.root), before);
    remove_outside(&outside);
}

/// A write failing midway (the third file's place is a non-empty directory, which fails for
/// root too) leaves every generated file as it was, and no temporary file.
#[test]
fn a_failure_midway_leaves_the_old_files_whole_and_nothing_else() {
    let scratch = Scratch::new();
    scratch.write(&format!("{GENERATED_DIR}/blocked.rs/inside"), "x");
    let before = snapshot(&scratch.root);
    let at = |name: &str| scratch.path(&format!("{GENERATED_DIR}/{name}"));
    let old = |name: &str| fs::read_to_string(at(name)).unwrap();
    let changes = [
        Change::Update {
            path: at("pay.rs"),
            old: old("pay.rs"),
            new: "// new pay\n".to_owned(),
        },
        Change::Create {
            path: at("fresh.rs"),
            new: "// new file\n".to_owned(),
        },
        Change::Create {
            path: at("blocked.rs"),
            new: "// cannot be written\n".to_owned(),
        },
        Change::Remove {
            path: at("workroom.rs"),
            old: old("workroom.rs"),
        },
    ];
    let error = codegen::apply(&scratch.root, &changes).unwrap_err();
    assert!(
        error.to_string().contains("blocked.rs") && error.to_string().contains("directory"),
        "{error}"
    );
    assert_eq!(snapshot(&scratch.root), before);
}
