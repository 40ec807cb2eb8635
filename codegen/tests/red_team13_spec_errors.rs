//! Red team 13: where the spec loader reports a key given twice in one YAML mapping.
//!
//! Property attacked (docs/changing-the-spec.md, on `invalid-yaml`): "a name given twice in one
//! mapping of a file (`duplicate entry with key "…"`) [is reported] at the second copy, the one
//! to remove or rename (in a flow mapping, `{a: 1, a: 2}`, at its `{`, where the parser
//! noticed)", and "columns count characters". BRIEF.md: every spec error carries its file, line
//! and column, and bad input never panics.
//!
//! Every case builds one file `spec/test.yaml`, calls `marketplace_codegen::resolve`, and holds
//! the code to that sentence: exactly the `invalid-yaml` error naming the key, at the line and
//! column (in characters) of the second copy of the key (or of the `{` of the flow mapping that
//! holds both copies). Where the sentence does not decide (a key written with an anchor, tag or
//! `?`, which may be reported at the property or at the scalar; shapes the sentence does not
//! name), the case accepts either place, or asserts only: one `invalid-yaml` error, in
//! `spec/test.yaml`, at a line and column inside the file, and no panic.
//!
//! Cases (all hold the code to the sentence above unless said otherwise):
//! - `seq_*`: duplicates inside a mapping that is an item of a block sequence.
//! - `after_block_scalar_*`: the second copy follows `|`, `>`, `|-`, `|+`, `>2` block scalars.
//! - `after_multiline_*`: the second copy follows multi-line plain, double- and single-quoted scalars.
//! - `after_odd_comments`: comments at odd indentation between the copies.
//! - `non_ascii_*`: non-ASCII (and astral) characters before the `{` on its line: columns in characters.
//! - `escaped_*`: `"n\u0061me"`, `'name'`, `"n\x61me"` against `name` (the same key).
//! - `crlf_*`, `tab_*`: CRLF line endings, tabs as separators.
//! - `explicit_key_*`: `? key` entries (plain and block-scalar keys).
//! - `anchor_*`, `tag_*`: properties on the key.
//! - `numeric_*`, `bool_*`, `null_*`: keys that are not strings.
//! - `trailing_spaces_before_colon`, `first_line_flow`, `bom_*`, `document_start_*`.
//! - `nested_flow_*`: flow mappings inside block mappings, flow sequences, other flow mappings,
//!   and over several lines.
//! - `no_false_*`: the same text that must NOT be a duplicate (block scalar content, sibling
//!   mappings, `[a: 1, a: 2]`).
//! - `key_*`, `keys_*`, `empty_key`: the key's text elsewhere (comments, quoted continuation
//!   lines, flow values, sibling mappings, prefixes and suffixes, indicators inside quotes).
//! - `flow_*`: the `{` after a `{` inside a string, a comment or a block scalar; `{a, a}`.
//! - `multi_document_file_error_has_place`: BRIEF.md, every spec error has a line and column.
//! - `long_line_*`, `huge_*`: lines of 200 000 characters and files near 1 MB
//!   (`MAX_SPEC_FILE_BYTES`), also with the second copy written with a tab or a tag.
//! - `prop_block_duplicate_at_second_copy`, `prop_flow_duplicate_at_brace`: generated documents
//!   mixing all the shapes above.

use std::panic::{AssertUnwindSafe, catch_unwind};

use marketplace_codegen::diagnostic::{ErrorKind, SpecError};
use marketplace_codegen::{SpecSource, resolve};
use proptest::prelude::*;

const FILE: &str = "spec/test.yaml";

/// Every error the loader reports for `text`, failing the test on a panic.
fn errors(text: &str) -> Vec<SpecError> {
    let sources = vec![SpecSource {
        path: FILE.into(),
        text: text.to_string(),
    }];
    let outcome = catch_unwind(AssertUnwindSafe(|| resolve(&sources)));
    match outcome {
        Err(_) => panic!("resolve panicked on {text:?}"),
        Ok(Ok(_)) => Vec::new(),
        Ok(Err(e)) => e.0,
    }
}

fn describe(errs: &[SpecError]) -> String {
    errs.iter()
        .map(|e| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                e.kind, e.file, e.location, e.path, e.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n  ")
}

fn yaml_errors(errs: &[SpecError]) -> Vec<&SpecError> {
    errs.iter()
        .filter(|e| e.kind == ErrorKind::InvalidYaml)
        .collect()
}

/// (line, column) in characters, 1-based, of the byte offset `at` of `text`; `\r\n`, `\n`
/// end lines.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// The place of the `nth` (0-based) occurrence of `needle`.
fn place(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no occurrence {nth} of {needle:?}"))
        .0;
    line_col(text, at)
}

/// Is `(line, column)` a place inside `text` (a column may point just past a line's end)?
fn inside(text: &str, line: usize, column: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1
        && line <= lines.len()
        && column >= 1
        && column <= lines[line - 1].trim_end_matches('\r').chars().count() + 2
}

/// The one `invalid-yaml` duplicate-key error for `text` must be at one of `places`.
#[track_caller]
fn assert_dup_at(text: &str, key: Option<&str>, places: &[(usize, usize)]) {
    let errs = errors(text);
    let yaml = yaml_errors(&errs);
    let dups: Vec<&&SpecError> = yaml
        .iter()
        .filter(|e| e.message.contains("duplicate entry with"))
        .collect();
    assert!(
        !dups.is_empty(),
        "no invalid-yaml duplicate error for {text:?}; got:\n  {}",
        describe(&errs)
    );
    let e = dups[0];
    if let Some(key) = key {
        assert!(
            e.message
                .contains(&format!("duplicate entry with key \"{key}\"")),
            "message does not name key {key:?} for {text:?}: {}",
            describe(&errs)
        );
    }
    assert_eq!(e.file.as_str(), FILE, "{}", describe(&errs));
    let loc = e
        .location
        .unwrap_or_else(|| panic!("no location for {text:?}: {}", describe(&errs)));
    assert!(
        places.contains(&(loc.line, loc.column)),
        "duplicate reported at {}:{} but the doc places it at {places:?} for {text:?}; got:\n  {}",
        loc.line,
        loc.column,
        describe(&errs)
    );
}

/// Fallback: at least one `invalid-yaml` error, each with a location inside the file.
#[track_caller]
fn assert_some_yaml_error_inside(text: &str) {
    let errs = errors(text);
    let yaml = yaml_errors(&errs);
    assert!(
        !yaml.is_empty(),
        "no invalid-yaml error for {text:?}; got:\n  {}",
        describe(&errs)
    );
    for e in yaml {
        assert_eq!(e.file.as_str(), FILE);
        let loc = e
            .location
            .unwrap_or_else(|| panic!("no location: {}", describe(&errs)));
        assert!(
            inside(text, loc.line, loc.column),
            "location {}:{} outside the file for {text:?}: {}",
            loc.line,
            loc.column,
            describe(&errs)
        );
    }
}

/// No duplicate-key error at all (the text has no key given twice in one mapping).
#[track_caller]
fn assert_no_dup(text: &str) {
    let errs = errors(text);
    assert!(
        !errs
            .iter()
            .any(|e| e.message.contains("duplicate entry with key")),
        "false duplicate for {text:?}: {}",
        describe(&errs)
    );
    for e in &errs {
        if let Some(loc) = e.location {
            assert!(inside(text, loc.line, loc.column), "{}", describe(&errs));
        }
    }
}

// ---------------------------------------------------------------- hand-picked cases

#[test]
fn baseline_block_and_flow() {
    assert_dup_at("a: 1\na: 2\n", Some("a"), &[(2, 1)]);
    assert_dup_at("x: {a: 1, a: 2}\n", Some("a"), &[(1, 4)]);
}

#[test]
fn seq_item_mapping_duplicate() {
    let t = "- a: 1\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 3)]);
    let t = "types:\n  - name: x\n    doc: y\n    name: z\n";
    assert_dup_at(t, Some("name"), &[(4, 5)]);
    let t = "x:\n- b: 1\n- c: 1\n  d: 2\n  c: 3\n";
    assert_dup_at(t, Some("c"), &[(5, 3)]);
}

#[test]
fn seq_compact_nested_sequence_mapping() {
    let t = "- - a: 1\n    a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 5)]);
}

#[test]
fn after_block_scalar_literal_and_folded() {
    for ind in ["|", ">", "|-", ">-", "|+", ">+"] {
        let t = format!("a: {ind}\n  line one\n\n  line two\n\nb: x\na: 2\n");
        assert_dup_at(&t, Some("a"), &[(7, 1)]);
    }
}

#[test]
fn after_block_scalar_indentation_indicator() {
    let t = "a: |2\n    more indented first\n  normal\nb: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
    let t = "x:\n  a: >1-\n      deep\n    text\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 3)]);
    let t = "a: |+\n  keep\n\n\n\na: 2\n";
    assert_dup_at(t, Some("a"), &[(6, 1)]);
}

#[test]
fn after_block_scalar_containing_key_text() {
    let t = "a: |\n  a: 1\n  b: 2\nc: 1\na: 9\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
}

#[test]
fn after_multiline_plain_scalar() {
    let t = "a: one\n  two\n  three\nb: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
}

#[test]
fn after_multiline_double_quoted_scalar() {
    let t = "a: \"one\n  two \\\n  three\"\nb: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
}

#[test]
fn after_multiline_single_quoted_scalar() {
    let t = "a: 'it''s\n\n  two'\nb: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
}

#[test]
fn after_odd_comments() {
    let t = "a: 1\n       # deep comment\n # shallow\n   #x\na: 2 # trailing\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
    let t = "x:\n  a: 1\n# col 1 comment inside x\n     # deeper\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(5, 3)]);
}

#[test]
fn tab_before_comment_falls_back_gracefully() {
    assert_some_yaml_error_inside("a: 1\n\t# tab comment\na: 2\n");
}

#[test]
fn bom_without_duplicate_loads_or_reports_a_place() {
    // A BOM is allowed at the start of a YAML stream; whatever the loader says, it says where.
    let t = "\u{feff}doc: x\n";
    for e in errors(t) {
        assert!(
            e.location.is_some(),
            "error without location: {}",
            describe(std::slice::from_ref(&e))
        );
    }
}

#[test]
fn non_ascii_before_flow_brace() {
    let t = "\"ééé\": {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(1, 8)]);
    // Astral characters: one character each, two UTF-16 units, four bytes.
    let t = "\"😀😀\": {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(1, 7)]);
    let t = "名前: {ü: 1, ü: 2}\n";
    assert_dup_at(t, Some("ü"), &[(1, 5)]);
}

#[test]
fn non_ascii_in_earlier_flow_entries() {
    let t = "x: {ü: 1, ä: 2, b: {c: 1, c: 2}}\n";
    let (l, c) = place(t, "{", 1);
    assert_dup_at(t, Some("c"), &[(l, c)]);
}

#[test]
fn non_ascii_keys_block() {
    let t = "ü: 1\nä: 2\nü: 3\n";
    assert_dup_at(t, Some("ü"), &[(3, 1)]);
    let t = "- 😀k: 1\n  😀k: 2\n";
    assert_dup_at(t, Some("😀k"), &[(2, 3)]);
}

#[test]
fn non_ascii_value_before_dup_on_previous_line() {
    let t = "x:\n  a: ééééééééé\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 3)]);
}

#[test]
fn escaped_unicode_key_then_plain() {
    let t = "\"n\\u0061me\": 1\nname: 2\n";
    assert_dup_at(t, Some("name"), &[(2, 1)]);
}

#[test]
fn plain_key_then_escaped() {
    let t = "name: 1\n\"n\\x61me\": 2\n";
    assert_dup_at(t, Some("name"), &[(2, 1)]);
}

#[test]
fn plain_key_then_single_quoted() {
    let t = "name: 1\n'name': 2\n";
    assert_dup_at(t, Some("name"), &[(2, 1)]);
}

#[test]
fn plain_key_then_escaped_in_flow() {
    let t = "x: {name: 1, \"n\\u0061me\": 2}\n";
    assert_dup_at(t, Some("name"), &[(1, 4)]);
}

#[test]
fn escaped_astral_key() {
    let t = "\"\\U0001F600\": 1\n😀: 2\n";
    assert_dup_at(t, None, &[(2, 1)]);
}

#[test]
fn crlf_line_endings() {
    let t = "a: 1\r\nb: 2\r\na: 3\r\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
}

#[test]
fn crlf_after_block_scalar() {
    let t = "a: |\r\n  x\r\n  y\r\nb: 1\r\na: 3\r\n";
    assert_dup_at(t, Some("a"), &[(5, 1)]);
}

#[test]
fn crlf_flow_over_lines() {
    let t = "x: \"one\r\n  two\"\r\ny: {a: 1,\r\n  a: 2}\r\n";
    assert_dup_at(t, Some("a"), &[(3, 4)]);
}

#[test]
fn lone_cr_falls_back_gracefully() {
    assert_some_yaml_error_inside("a: 1\ra: 2\r");
}

#[test]
fn tab_after_colon_block() {
    let t = "a:\t1\na:\t2\n";
    assert_dup_at(t, Some("a"), &[(2, 1)]);
}

#[test]
fn tab_after_colon_only_on_second_copy() {
    let t = "x:\n  a: 1\n  a:\t2\n";
    assert_dup_at(t, Some("a"), &[(3, 3)]);
}

#[test]
fn tab_before_colon() {
    let t = "x:\n  a\t: 1\n  a\t: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 3)]);
}

#[test]
fn tab_before_flow_brace() {
    let t = "x:\t{a: 1,\ta: 2}\n";
    assert_dup_at(t, Some("a"), &[(1, 4)]);
}

#[test]
fn tab_before_trailing_comment() {
    let t = "x:\n  a: 1\t# c\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 3)]);
}

#[test]
fn tab_indentation_falls_back_gracefully() {
    assert_some_yaml_error_inside("x:\n\ta: 1\n\ta: 2\n");
}

#[test]
fn explicit_key_entries() {
    let t = "? a\n: 1\n? a\n: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 1), (3, 3)]);
}

#[test]
fn explicit_key_second_copy_only() {
    let t = "a: 1\n? a\n: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1), (2, 3)]);
}

#[test]
fn explicit_key_first_copy_only() {
    let t = "? a\n: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
}

#[test]
fn explicit_block_scalar_keys() {
    let t = "? |\n  k\n: 1\n? |\n  k\n: 2\n";
    assert_dup_at(t, None, &[(4, 1), (4, 3), (5, 3)]);
}

#[test]
fn anchor_on_key() {
    let t = "&x a: 1\n&y a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1), (2, 4)]);
}

#[test]
fn anchor_on_first_copy_only() {
    let t = "&x a: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1)]);
}

#[test]
fn anchor_on_second_copy_only() {
    let t = "a: 1\n&y a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1), (2, 4)]);
}

#[test]
fn tag_on_key() {
    let t = "!!str a: 1\n!!str a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1), (2, 7)]);
}

#[test]
fn tag_on_second_copy_only() {
    let t = "a: 1\n!!str a: 2\n";
    assert_dup_at(t, Some("a"), &[(2, 1), (2, 7)]);
}

#[test]
fn alias_as_key_falls_back_gracefully() {
    let t = "a: &k name\nname: 1\n*k : 2\n";
    assert_some_yaml_error_inside(t);
}

#[test]
fn numeric_keys() {
    assert_dup_at("1: x\n1: y\n", None, &[(2, 1)]);
}

#[test]
fn float_keys_nested() {
    assert_dup_at("x:\n  1.5: a\n  1.5: b\n", None, &[(3, 3)]);
}

#[test]
fn bool_keys() {
    assert_dup_at("true: x\ntrue: y\n", None, &[(2, 1)]);
}

#[test]
fn null_keys() {
    assert_dup_at("~: x\n~: y\n", None, &[(2, 1)]);
}

#[test]
fn trailing_spaces_before_colon() {
    let t = "a   : 1\nb: 2\na    : 3\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
}

#[test]
fn first_line_flow() {
    assert_dup_at("{a: 1, a: 2}\n", Some("a"), &[(1, 1)]);
    assert_dup_at("{a: 1, a: 2}", Some("a"), &[(1, 1)]);
}

#[test]
fn first_two_lines_no_trailing_newline() {
    assert_dup_at("a: 1\na: 2", Some("a"), &[(2, 1)]);
}

#[test]
fn bom_then_duplicate() {
    assert_dup_at("\u{feff}a: 1\na: 2\n", Some("a"), &[(2, 1)]);
}

#[test]
fn bom_then_flow_duplicate() {
    // An editor shows the `{` at column 1; accept the BOM counted as a character too.
    assert_dup_at("\u{feff}{a: 1, a: 2}\n", Some("a"), &[(1, 1), (1, 2)]);
}

#[test]
fn document_start_marker() {
    assert_dup_at("---\na: 1\na: 2\n", Some("a"), &[(3, 1)]);
    assert_dup_at("--- {a: 1, a: 2}\n", Some("a"), &[(1, 5)]);
    assert_dup_at(
        "%YAML 1.2\n---\nx:\n  a: 1\n  a: 2\n...\n",
        Some("a"),
        &[(5, 3)],
    );
    assert_dup_at("# c\n--- # c\na: 1\na: 2\n", Some("a"), &[(4, 1)]);
}

#[test]
fn nested_flow_in_block() {
    let t = "x:\n  y: {a: 1, b: {c: 1, c: 2}}\n";
    let (l, c) = place(t, "{", 1);
    assert_dup_at(t, Some("c"), &[(l, c)]);
    let t = "x:\n  y: [{a: 1}, {a: 1, a: 2}]\n";
    let (l, c) = place(t, "{", 1);
    assert_dup_at(t, Some("a"), &[(l, c)]);
    let t = "- {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(1, 3)]);
}

#[test]
fn nested_flow_over_lines() {
    let t = "x: {\n  a: 1,\n  b: 2,\n  a: 3\n}\n";
    assert_dup_at(t, Some("a"), &[(1, 4)]);
    let t = "x: {b: 0,\n  y: {\n    a: 1, a: 2}}\n";
    assert_dup_at(t, Some("a"), &[(2, 6)]);
}

#[test]
fn outer_flow_duplicate_after_inner_flow() {
    let t = "x: {a: {b: 1}, c: 2, a: 3}\n";
    assert_dup_at(t, Some("a"), &[(1, 4)]);
}

#[test]
fn block_duplicate_after_flow_value() {
    let t = "a: {b: 1,\n  c: 2}\nd: 1\na: 3\n";
    assert_dup_at(t, Some("a"), &[(4, 1)]);
}

#[test]
fn block_duplicate_after_nested_mapping_and_sequence() {
    let t = "a:\n  b: 1\n  c:\n  - 1\n  - 2\nd: x\na: 3\n";
    assert_dup_at(t, Some("a"), &[(7, 1)]);
    let t = "a:\n- 1\n- 2\na: 3\n";
    assert_dup_at(t, Some("a"), &[(4, 1)]);
}

#[test]
fn three_copies_first_report_is_second_copy() {
    let t = "a: 1\na: 2\na: 3\n";
    assert_dup_at(t, Some("a"), &[(2, 1)]);
}

#[test]
fn duplicate_inside_real_schema_sections() {
    let t = "types:\n  Agent:\n    doc: d\n    fields:\n      x:\n        type: string\n        doc: first\n        doc: second\n";
    assert_dup_at(t, Some("doc"), &[(8, 9)]);
}

#[test]
fn no_false_duplicate_in_block_scalar_or_siblings() {
    assert_no_dup("a: |\n  a: 1\n  a: 2\n");
    assert_no_dup("x:\n  a: 1\ny:\n  a: 1\n");
    assert_no_dup("- a: 1\n- a: 2\n");
    assert_no_dup("x: [a: 1, a: 2]\n");
    assert_no_dup("a: \"x\n  a: 2\"\n");
    assert_no_dup("a: 1\n# a: 2\n");
}

#[test]
fn long_line_before_duplicate() {
    let long = "x".repeat(200_000);
    let t = format!("a: {long}\na: 2\n");
    assert_dup_at(&t, Some("a"), &[(2, 1)]);
}

#[test]
fn long_non_ascii_line_before_flow_brace() {
    // A flow sequence item, not an implicit key (those are limited to 1024 characters).
    let long = "é".repeat(100_000);
    let t = format!("x: [\"{long}\", {{a: 1, a: 2}}]\n");
    let (l, c) = place(&t, "{", 0);
    assert_dup_at(&t, Some("a"), &[(l, c)]);
}

#[test]
fn long_flow_mapping_duplicate_at_end() {
    let body: Vec<String> = (0..20_000).map(|i| format!("k{i}: {i}")).collect();
    let t = format!("x: {{{}, k0: 9}}\n", body.join(", "));
    assert_dup_at(&t, Some("k0"), &[(1, 4)]);
}

#[test]
fn huge_block_file_duplicate_at_end() {
    let mut t = String::from("x:\n");
    let mut i = 0;
    while t.len() < 1_000_000 {
        t.push_str(&format!("  key{i}: value ü {i}\n"));
        i += 1;
    }
    let line = t.matches('\n').count() + 1;
    t.push_str("  key0: again\n");
    assert!(t.len() < 1_048_576);
    assert_dup_at(&t, Some("key0"), &[(line, 3)]);
}

#[test]
fn huge_file_many_duplicates_no_panic() {
    // Every entry of a near-1 MB file is a duplicate: one error at least, each inside the file.
    let mut t = String::from("x:\n");
    while t.len() < 1_000_000 {
        t.push_str("  a: 1\n");
    }
    assert_dup_at(&t, Some("a"), &[(3, 3)]);
}

#[test]
fn huge_deep_flow_nesting_no_panic() {
    let depth = 100_000;
    let t = format!(
        "x: {}a: 1, a: 2{}\n",
        "{b: ".repeat(depth),
        "}".repeat(depth)
    );
    let errs = errors(&t);
    assert!(!errs.is_empty(), "deep nesting accepted");
    for e in &errs {
        let loc = e.location.expect("location");
        assert!(inside(&t, loc.line, loc.column));
    }
}

// ---------------------------------------------------------------- generated cases

/// How a key is written: plain, quoted, escaped, with trailing spaces, a tag or an anchor.
/// Returns the text and the extra columns before the key scalar starts (for tags/anchors).
fn spell(key: &str, how: u8, n: usize) -> (String, usize) {
    match how % 7 {
        0 => (key.to_string(), 0),
        1 => (format!("\"{key}\""), 0),
        2 => (format!("'{key}'"), 0),
        3 => {
            // Escape the first character.
            let mut cs = key.chars();
            let first = cs.next().unwrap();
            // YAML's `\u` takes four hex digits, `\U` eight (a character beyond the BMP).
            let escaped = match first as u32 {
                code @ ..=0xFFFF => format!("\\u{code:04X}"),
                code => format!("\\U{code:08X}"),
            };
            (format!("\"{escaped}{}\"", cs.as_str()), 0)
        }
        4 => (format!("{key}   "), 0),
        5 => (format!("!!str {key}"), 6),
        _ => {
            let a = format!("&an{n} ");
            let l = a.chars().count();
            (format!("{a}{key}"), l)
        }
    }
}

/// A value after `key:` at indentation `ind`; the lines it adds after the key line.
fn value(shape: u8, ind: usize, key: &str) -> (String, Vec<String>) {
    let p = " ".repeat(ind + 2);
    match shape % 12 {
        0 => ("plain ü value".into(), vec![]),
        1 => ("one".into(), vec![format!("{p}two"), format!("{p}three ü")]),
        2 => (
            "\"one".into(),
            vec![format!("{p}two\\"), format!("{p}três\"")],
        ),
        3 => ("'it''s".into(), vec![String::new(), format!("{p}more'")]),
        4 => (
            "|".into(),
            vec![
                format!("{p}{key}: inside"),
                String::new(),
                format!("{p}  deeper ü"),
            ],
        ),
        5 => (">-".into(), vec![format!("{p}folded"), format!("{p}text")]),
        6 => (
            "|+".into(),
            vec![format!("{p}keep"), String::new(), String::new()],
        ),
        7 => (
            "|2".into(),
            vec![format!("{p}  first deeper"), format!("{p}normal")],
        ),
        8 => (
            String::new(),
            vec![format!("{p}sub: 1"), format!("{p}{key}: 2")],
        ),
        9 => (
            String::new(),
            vec![
                format!("{}- 1", " ".repeat(ind)),
                format!("{}- x: y", " ".repeat(ind)),
            ],
        ),
        10 => ("{x: 1, y: [1, 2], z: {w: ä}}".into(), vec![]),
        _ => (String::new(), vec![]),
    }
}

const KEYS: &[&str] = &[
    "name", "doc", "ü", "名前", "😀k", "a", "type", "Fields", "x_y",
];

#[derive(Debug, Clone)]
struct Entry {
    key: usize,
    how: u8,
    shape: u8,
    comment: Option<u8>,
}

fn entry() -> impl Strategy<Value = Entry> {
    entry_spelled(any::<u8>())
}

/// An entry whose key is written plainly, quoted or with trailing spaces (no tag, anchor, escape).
fn plain_entry() -> impl Strategy<Value = Entry> {
    entry_spelled(prop::sample::select(vec![0u8, 1, 2, 4]))
}

fn entry_spelled(how: impl Strategy<Value = u8>) -> impl Strategy<Value = Entry> {
    (
        0..KEYS.len(),
        how,
        any::<u8>(),
        proptest::option::of(0u8..12),
    )
        .prop_map(|(key, how, shape, comment)| Entry {
            key,
            how,
            shape,
            comment,
        })
}

/// Renders a block mapping at indentation `ind` (under `wrap`: 0 top level, 1 under `root:`,
/// 2 as an item of a sequence under `root:`); returns the lines and, for the last entry, its
/// line index and the column of its first character.
fn render(entries: &[Entry], wrap: u8) -> (Vec<String>, usize, usize) {
    let mut lines: Vec<String> = Vec::new();
    let ind = match wrap {
        0 => 0,
        1 => 2,
        _ => 4,
    };
    match wrap {
        0 => {}
        1 => lines.push("root:".into()),
        _ => {
            lines.push("root:".into());
            lines.push("  - seq: 0".into());
        }
    }
    let mut last = (0, 0);
    for (n, e) in entries.iter().enumerate() {
        let key = KEYS[e.key];
        let (spelled, _) = spell(key, e.how, n);
        let (v, more) = value(e.shape, ind, key);
        last = (lines.len(), ind + 1);
        let sep = if v.is_empty() { "" } else { " " };
        lines.push(format!("{}{spelled}:{sep}{v}", " ".repeat(ind)));
        let block = matches!(e.shape % 12, 4..=7);
        lines.extend(more);
        if let Some(c) = e.comment {
            // A block scalar's content is indented by ind + 2: keep comments out of it.
            let max = if block { ind + 1 } else { 12 };
            let c = usize::from(c) % (max + 1);
            lines.push(format!("{}# comment ü {n}", " ".repeat(c)));
        }
    }
    let _ = wrap;
    (lines, last.0, last.1)
}

fn block_case(
    entries: &mut Vec<Entry>,
    dup: prop::sample::Index,
    dup_how: u8,
    wrap: u8,
    crlf: bool,
) {
    // Keep the keys distinct, then repeat one.
    let mut seen = std::collections::HashSet::new();
    entries.retain(|e| seen.insert(e.key));
    let target = entries[dup.index(entries.len())].key;
    entries.push(Entry {
        key: target,
        how: dup_how,
        shape: 0,
        comment: None,
    });
    let (lines, line, col) = render(entries, wrap);
    let nl = if crlf { "\r\n" } else { "\n" };
    let text = format!("{}{nl}", lines.join(nl));
    let (_, extra) = spell(KEYS[target], dup_how, entries.len() - 1);
    let mut places = vec![(line + 1, col)];
    if extra > 0 {
        places.push((line + 1, col + extra));
    }
    assert_dup_at(&text, Some(KEYS[target]), &places);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A key repeated in a block mapping after any mix of shapes is reported at the second copy.
    #[test]
    fn prop_block_duplicate_at_second_copy(
        mut entries in proptest::collection::vec(entry(), 1..8),
        dup in any::<prop::sample::Index>(),
        dup_how in any::<u8>(),
        wrap in 0u8..3,
        crlf in any::<bool>(),
    ) {
        block_case(&mut entries, dup, dup_how, wrap, crlf);
    }

    /// The same, with every key written plainly, quoted or with trailing spaces (no tag,
    /// anchor or escape): only the values, comments, nesting and line ends vary.
    #[test]
    fn prop_block_duplicate_plain_keys(
        mut entries in proptest::collection::vec(plain_entry(), 1..8),
        dup in any::<prop::sample::Index>(),
        dup_how in prop::sample::select(vec![0u8, 1, 2, 4]),
        wrap in 0u8..3,
        crlf in any::<bool>(),
    ) {
        block_case(&mut entries, dup, dup_how, wrap, crlf);
    }

    /// A key repeated in a flow mapping is reported at that mapping's `{`, in characters, after
    /// any non-ASCII text before it on its line and over several lines.
    #[test]
    fn prop_flow_duplicate_at_brace(
        prefix in "[a-zé😀名]{1,12}",
        keys in proptest::collection::hash_set("[a-dü]{1,3}", 1..6),
        dup in any::<prop::sample::Index>(),
        nest in any::<bool>(),
        breaks in proptest::collection::vec(any::<bool>(), 8),
        dup_how in 0u8..3,
    ) {
        let keys: Vec<String> = keys.into_iter().collect();
        let target = keys[dup.index(keys.len())].clone();
        let mut parts: Vec<String> = keys.iter().map(|k| format!("{k}: ü")).collect();
        let (spelled, _) = spell(&target, dup_how, 0);
        parts.push(format!("{spelled}: 2"));
        let mut inner = String::from("{");
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                inner.push(',');
                inner.push_str(if breaks[i % breaks.len()] { "\n    " } else { " " });
            }
            inner.push_str(p);
        }
        inner.push('}');
        let head = format!("\"{prefix}\": ");
        let text = if nest {
            format!("{head}{{zz: 0, yy: {inner}}}\n")
        } else {
            format!("{head}{inner}\n")
        };
        let brace = head.len() + if nest { "{zz: 0, yy: ".len() } else { 0 };
        let (l, c) = line_col(&text, brace);
        assert_dup_at(&text, Some(&target), &[(l, c)]);
    }
}

// ---------------------------------------------------------------- key text elsewhere in the file

#[test]
fn key_text_in_earlier_comment() {
    let t = "a: 1\n# a: old\na: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
    let t = "x: 1 # a: 0\na: 1\na: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
}

#[test]
fn key_text_inside_quoted_continuation() {
    // The continuation line of the quoted value looks like an entry `b:` of the same mapping.
    let t = "x:\n  a: \"one\n   b: inside\"\n  b: 1\n  b: 2\n";
    assert_dup_at(t, Some("b"), &[(5, 3)]);
}

#[test]
fn key_text_in_earlier_flow_value() {
    let t = "a: 1\nb: {a: 0}\na: 2\n";
    assert_dup_at(t, Some("a"), &[(3, 1)]);
}

#[test]
fn key_in_sibling_mapping_before() {
    let t = "x:\n  b: 1\n  a: 1\ny:\n  a: 1\n  b: 1\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(7, 3)]);
}

#[test]
fn same_key_at_every_level() {
    let t = "a:\n  a:\n    a: 1\n    a: 2\n";
    assert_dup_at(t, Some("a"), &[(4, 5)]);
    let t = "a:\n  a:\n    a: 1\n  a: 2\n";
    assert_dup_at(t, Some("a"), &[(4, 3)]);
}

#[test]
fn key_prefix_and_suffix_neighbours() {
    assert_dup_at("ab: 1\na: 2\na: 3\n", Some("a"), &[(3, 1)]);
    assert_dup_at("a: 1\nab: 2\na: 3\n", Some("a"), &[(3, 1)]);
    assert_dup_at("ba: 1\na: 1\nba: 2\n", Some("ba"), &[(3, 1)]);
}

#[test]
fn keys_with_indicators_inside_quotes() {
    assert_dup_at("\"a:b\": 1\n\"a:b\": 2\n", Some("a:b"), &[(2, 1)]);
    assert_dup_at("'a #b': 1\n'a #b': 2\n", Some("a #b"), &[(2, 1)]);
    assert_dup_at("a b: 1\na b: 2\n", Some("a b"), &[(2, 1)]);
}

#[test]
fn empty_key() {
    assert_dup_at("\"\": 1\n'': 2\n", None, &[(2, 1)]);
}

#[test]
fn multi_document_file_error_has_place() {
    assert_some_yaml_error_inside("a: 1\n---\nb: 2\n");
}

#[test]
fn flow_implicit_null_entries() {
    assert_dup_at("x: {a, a}\n", Some("a"), &[(1, 4)]);
    assert_dup_at("x: {a: 1, ? a : 2}\n", Some("a"), &[(1, 4)]);
}

#[test]
fn flow_second_mapping_same_keys() {
    let t = "x: {a: 1}\ny: {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(2, 4)]);
}

#[test]
fn flow_nested_same_key() {
    let t = "x: {a: {a: 1, a: 2}}\n";
    assert_dup_at(t, Some("a"), &[(1, 8)]);
}

#[test]
fn flow_brace_in_string_before() {
    let t = "x: [\"{\", {a: 1, a: 2}]\n";
    assert_dup_at(t, Some("a"), &[(1, 10)]);
    let t = "\"{k\": {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(1, 7)]);
}

#[test]
fn flow_brace_in_comment_before() {
    let t = "# { not a mapping\nx: {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(2, 4)]);
}

#[test]
fn flow_in_multiline_flow_sequence() {
    let t = "x: [\n  {b: 0},\n  {a: 1, a: 2}\n]\n";
    assert_dup_at(t, Some("a"), &[(3, 3)]);
}

#[test]
fn flow_brace_after_block_scalar_containing_braces() {
    let t = "d: |\n  {a: 1, a: 2}\nx: {a: 1, a: 2}\n";
    assert_dup_at(t, Some("a"), &[(3, 4)]);
}

// ---------------------------------------------------------------- near 1 MB, other shapes

fn many_entries(ind: usize, target_len: usize) -> String {
    let mut t = String::new();
    let mut i = 0;
    while t.len() < target_len {
        t.push_str(&format!("{}key{i}: v {i}\n", " ".repeat(ind)));
        i += 1;
    }
    t
}

#[test]
fn huge_single_line_flow_mapping() {
    let body: Vec<String> = (0..65_000).map(|i| format!("k{i}: {i}")).collect();
    let t = format!("x: {{{}, k0: 9}}\n", body.join(", "));
    assert!(t.len() < 1_048_576, "{}", t.len());
    assert_dup_at(&t, Some("k0"), &[(1, 4)]);
}

#[test]
fn huge_file_tab_spelled_duplicate_at_end() {
    let mut t = String::from("x:\n");
    t.push_str(&many_entries(2, 1_000_000));
    let line = t.matches('\n').count() + 1;
    t.push_str("  key0:\tagain\n");
    assert_dup_at(&t, Some("key0"), &[(line, 3)]);
}

#[test]
fn huge_file_tagged_duplicate_at_end() {
    let mut t = String::from("x:\n");
    t.push_str(&many_entries(2, 1_000_000));
    let line = t.matches('\n').count() + 1;
    t.push_str("  !!str key0: again\n");
    assert_dup_at(&t, Some("key0"), &[(line, 3), (line, 9)]);
}

#[test]
fn huge_file_many_small_mappings_duplicate_in_last() {
    let mut t = String::new();
    let mut i = 0;
    while t.len() < 1_000_000 {
        t.push_str(&format!("m{i}:\n  a: 1\n  b: 2\n"));
        i += 1;
    }
    t.push_str("last:\n  a: 1\n  b: 2\n");
    let line = t.matches('\n').count() + 1;
    t.push_str("  a: 3\n");
    assert_dup_at(&t, Some("a"), &[(line, 3)]);
}

#[test]
fn huge_file_deep_block_nesting_duplicate() {
    // 60 levels (under the 64-level limit), then a wide last level with a duplicate at the end.
    let mut t = String::new();
    for d in 0..60 {
        t.push_str(&format!("{}l{d}:\n", " ".repeat(d)));
    }
    t.push_str(&many_entries(60, 1_000_000));
    let line = t.matches('\n').count() + 1;
    t.push_str(&format!("{}key1: again\n", " ".repeat(60)));
    assert!(t.len() < 1_048_576);
    assert_dup_at(&t, Some("key1"), &[(line, 61)]);
}
