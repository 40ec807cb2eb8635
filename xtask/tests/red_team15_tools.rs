//! Red team 15: "a byte order mark is no content at the start of a text input", reached
//! through the `cargo xtask` commands' other inputs.
//!
//! The property (CHANGELOG.md [Unreleased]: spec files and recordings read "a recording file
//! that starts with a byte order mark as without it, as the spec's files are read"; the brief's
//! rule for every reader of text: either the mark is no content or there is a typed error naming
//! file and line, never a silent misread; positions on line 1 as an editor shows them).
//!
//! Cases:
//! - `spec_audit_reads_a_reference_starting_with_a_mark_as_without_it`: `spec-audit --reference`
//!   on a reference whose first line is a `##` section heading (the reference's own sections,
//!   from "## Resources and their fields" on), with and without a mark: the same verdict.
//! - `spec_audit_reads_the_whole_reference_with_a_mark_as_without_it`: the shipped reference
//!   with a mark in front: the same report.
//! - `a_spec_file_with_a_mark_reports_line_one_columns_as_an_editor_shows_them`: `wire-audit
//!   --spec` with a YAML error on line 1 after a mark: the same `file:1:col` as without it.

// Fixtures are written only inside each test's own temporary directory.
mod fixture_files;

use fixture_files::write_file;
use std::path::{Path, PathBuf};
use std::process::Command;

const BOM: &[u8] = b"\xef\xbb\xbf";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn reference() -> String {
    let shared = root().join("../shared/marketplace-api.md");
    let path = if shared.exists() {
        shared
    } else {
        root().join("spec/reference/marketplace-api.md")
    };
    std::fs::read_to_string(path).unwrap()
}

/// Runs the xtask binary from the workspace root; returns (exit code, stdout + stderr) with
/// `name` replaced by `FILE`.
fn xtask(args: &[&str], names: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    for name in names {
        text = text.replace(name, "FILE");
    }
    (out.status.code(), text)
}

fn with_and_without_mark(dir: &Path, body: &str) -> (String, String) {
    let plain = dir.join("plain.md");
    let marked = dir.join("marked.md");
    write_file(&plain, body).unwrap();
    let mut bytes = BOM.to_vec();
    bytes.extend_from_slice(body.as_bytes());
    write_file(&marked, bytes).unwrap();
    (
        plain.to_str().unwrap().to_owned(),
        marked.to_str().unwrap().to_owned(),
    )
}

#[test]
fn spec_audit_reads_a_reference_starting_with_a_mark_as_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let full = reference();
    let start = full
        .find("## Resources and their fields")
        .expect("the reference has its resources section");
    let (plain, marked) = with_and_without_mark(dir.path(), &full[start..]);
    let without = xtask(&["spec-audit", "--reference", &plain], &[&plain]);
    let with = xtask(&["spec-audit", "--reference", &marked], &[&marked]);
    assert_eq!(
        without, with,
        "a mark before the first heading changed spec-audit's verdict"
    );
}

#[test]
fn spec_audit_reads_the_whole_reference_with_a_mark_as_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, marked) = with_and_without_mark(dir.path(), &reference());
    let without = xtask(&["spec-audit", "--reference", &plain], &[&plain]);
    let with = xtask(&["spec-audit", "--reference", &marked], &[&marked]);
    assert_eq!(without, with);
}

#[test]
fn a_spec_file_with_a_mark_reports_line_one_columns_as_an_editor_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec");
    marketplace_client::files::OutputDir::create(&spec).unwrap();
    for name in ["api.yaml", "manage.yaml", "pay.yaml", "workroom.yaml"] {
        write_file(
            spec.join(name),
            std::fs::read(root().join("spec").join(name)).unwrap(),
        )
        .unwrap();
    }
    let api = std::fs::read_to_string(root().join("spec/api.yaml")).unwrap();
    let rest = api.split_once('\n').unwrap().1;
    let broken = format!("a: b: c\n{rest}");
    let recordings = root().join("tests/app/tests/recordings");
    let spec_arg = spec.to_str().unwrap().to_owned();
    let run = || {
        xtask(
            &[
                "wire-audit",
                "--spec",
                &spec_arg,
                recordings.to_str().unwrap(),
            ],
            &[&spec_arg],
        )
    };
    write_file(spec.join("api.yaml"), &broken).unwrap();
    let without = run();
    let mut bytes = BOM.to_vec();
    bytes.extend_from_slice(broken.as_bytes());
    write_file(spec.join("api.yaml"), bytes).unwrap();
    let with = run();
    assert_eq!(without.0, Some(2), "{}", without.1);
    assert!(without.1.contains("api.yaml:1:"), "{}", without.1);
    assert_eq!(without, with);
}
