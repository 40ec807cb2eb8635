//! Redocly CLI (pinned by `xtask/redocly/package-lock.json`, installed by `cargo xtask openapi`'s
//! code with `npm ci` under the target directory's `tmp/` on first use) lints the export with
//! its recommended rules: no error and no warning. Without Node.js and npm, or the npm registry
//! the first time, it fails saying what to install; it never skips.

use xtask::codegen::workspace_root;
use xtask::openapi;

#[test]
fn redocly_lints_the_export_clean() {
    let report = openapi::lint(&workspace_root()).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        (report.errors, report.warnings),
        (0, 0),
        "Redocly CLI's lint of spec/openapi.json:\n{}",
        report.problems
    );
}

#[test]
fn the_export_renders_as_a_reference() {
    let dir = tempfile::tempdir().unwrap();
    let page = openapi::html(&workspace_root(), dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains("pay/getTimesheetsForBid"),
        "the page names the methods"
    );
}
