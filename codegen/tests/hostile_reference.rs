//! The reference reader (`cargo xtask spec-audit`'s input) on large hostile documents: lines
//! of the real reference sampled, repeated, cut and spliced with the pieces that steer the
//! reader (table pipes, headings, `an object with`, code fences, long lines), hundreds of
//! kilobytes at a time. It returns a reference or errors, each on a line of the document, and
//! never panics. How its cost grows is the `linear_readers` bench's (BENCHMARKS.md, section 7).

use marketplace_codegen::audit::parse_reference;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The real reference's lines.
fn reference_lines() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/reference/marketplace-api.md"
    );
    std::fs::read_to_string(path)
        .expect("the reference snapshot")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Pieces a hostile line is made of besides the reference's own.
const PIECES: &[&str] = &[
    "| ",
    " |",
    "|",
    "## ",
    "### pay/getTimesheet",
    "an object with ",
    "`data`",
    "```",
    "- ",
    "  ",
    "Parameters identical to ",
    "integer",
    "string",
    "\\|",
    "é",
    "\t",
];

/// One line of a hostile document.
fn line(real: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(real.clone()),
        2 => (prop::sample::select(real), 0..200usize).prop_map(|(line, cut)| {
            line.chars().take(cut).collect()
        }),
        2 => prop::collection::vec(prop::sample::select(PIECES.to_vec()), 1..40)
            .prop_map(|pieces| pieces.concat()),
        1 => (prop::sample::select(PIECES.to_vec()), 200..4_000usize)
            .prop_map(|(piece, times)| piece.repeat(times)),
    ]
}

#[test]
fn megabytes_of_hostile_reference_are_read_whole_without_a_panic() {
    let real = reference_lines();
    let mut runner = TestRunner::new(Config {
        cases: 8,
        failure_persistence: None,
        max_shrink_iters: 32,
        ..Config::default()
    });
    runner
        .run(&prop::collection::vec(line(real), 500..3_000), |lines| {
            let text = lines.join("\n");
            let line_count = text.lines().count().max(1);
            match std::panic::catch_unwind(|| parse_reference(&text, "hostile.md")) {
                Ok(Ok(_)) => {}
                Ok(Err(errors)) => {
                    prop_assert!(!errors.0.is_empty());
                    for error in &errors.0 {
                        prop_assert!(
                            (1..=line_count).contains(&error.line),
                            "{error} (of {line_count} lines)"
                        );
                    }
                }
                Err(_) => prop_assert!(false, "the reader panicked"),
            }
            Ok(())
        })
        .unwrap();
}

/// Found by the test above: a table of one row at the end of the document was reported on the
/// line after the last.
#[test]
fn a_table_without_a_separator_at_the_end_is_reported_on_its_header() {
    let errors = parse_reference("# Reference\n\n| Field | Type | Notes |", "one-row.md")
        .expect_err("a table without its separator");
    assert_eq!(errors.0[0].line, 3, "{errors}");
}
