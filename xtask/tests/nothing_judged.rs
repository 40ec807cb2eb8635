//! Nothing judged is not a pass (SECURITY.md): every judging command, given inputs of each kind
//! it takes in which there is nothing to judge, exits 2 with a message naming what it looked
//! at; given at least one item it judges, it never says it judged nothing, and the count it
//! prints is the number of such items generated. Through the command line's entry point.
//!
//! - `wire-audit`: recordings of OAuth token answers, injected faults, refusals of requests
//!   outside the API, replayed answers, methods the spec does not have, blank lines and lines
//!   that are not exchanges, mixed, in files or directories; spec directories without methods.
//! - `spec-audit`: references in which no section, table or field is recognized; spec
//!   directories that describe nothing.
//! - `spec-diff`: revisions without `spec/`, with a `spec/` without `.yaml` files or with files
//!   that describe nothing, in a temporary git repository, on either side.

mod fixture_files;

use fixture_files::{git, write_file};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use xtask::cli::{self, Output};
use xtask::codegen::{self, SPEC_DIR};
use xtask::spec_audit::SNAPSHOT_REFERENCE;

/// `cargo xtask ARGS` in `root`: the exit code, standard output and error.
fn run_cli(args: &[String], root: &Path) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(args, root, &mut Output::new(&mut out, &mut err));
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

fn plural(count: usize, one: &str) -> String {
    format!("{count} {one}{}", if count == 1 { "" } else { "s" })
}

// ---- wire-audit ----

/// A line of a recording the audit does not judge against the committed spec.
#[derive(Clone, Debug)]
enum Unjudged {
    /// A successful OAuth token answer (no body: nothing the spec describes).
    OAuthToken,
    /// A fault a test server injected.
    Fault,
    /// A test server's refusal of a request outside the API.
    OutsideTheApi,
    /// An answer a replaying fake sent from a recording.
    Replayed,
    /// An answer of a method the spec does not have.
    UnknownMethod(String),
    /// A line of white space.
    Blank(String),
}

fn unjudged() -> impl Strategy<Value = Unjudged> {
    prop_oneof![
        Just(Unjudged::OAuthToken),
        Just(Unjudged::Fault),
        Just(Unjudged::OutsideTheApi),
        Just(Unjudged::Replayed),
        "[a-z]{1,6}/[a-zA-Z]{1,10}".prop_map(Unjudged::UnknownMethod),
        "[ \t]{0,3}".prop_map(Unjudged::Blank),
    ]
}

/// A recorded exchange of `method` with `status`, a body and a note.
fn exchange(method: &str, status: u16, body: Option<&str>, note: Option<&str>) -> String {
    let mut line = serde_json::json!({
        "format": "marketplace-recording/1",
        "side": "server",
        "time": "2024-01-01T00:00:00Z",
        "method": method,
        "http_method": "GET",
        "path": format!("/api/{method}"),
        "status": status,
    });
    if let Some(body) = body {
        line["body"] = body.into();
    }
    if let Some(note) = note {
        line["note"] = note.into();
    }
    line.to_string()
}

/// An answer of a method of the committed spec: a success, or an error answer with a code.
fn judged_line(error: bool) -> String {
    if error {
        let body = r#"{"rcode":0,"errors":[{"code":"E_VALIDATION_INVALID_ID"}]}"#;
        exchange("pay/getTimesheet", 400, Some(body), None)
    } else {
        let body = r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":1,"data":{}}"#;
        exchange("pay/getTimesheet", 200, Some(body), None)
    }
}

fn unjudged_line(line: &Unjudged) -> String {
    let data = Some(r#"{"api":"pay/getInvoice","apiVersion":1,"rcode":1,"data":{}}"#);
    match line {
        Unjudged::OAuthToken => exchange("oauth/getAccessToken", 200, None, None),
        Unjudged::Fault => exchange("pay/getInvoice", 503, None, Some("fault: 503 injected")),
        Unjudged::OutsideTheApi => exchange(
            "pay/getInvoice",
            405,
            None,
            Some("outside the API: POST is not a data method's HTTP method"),
        ),
        Unjudged::Replayed => exchange(
            "pay/getInvoice",
            200,
            data,
            Some("replay: answered from a.jsonl:1"),
        ),
        Unjudged::UnknownMethod(method) => exchange(&format!("zz{method}"), 200, data, None),
        Unjudged::Blank(space) => space.clone(),
    }
}

/// Lines written into `files` recordings (round robin) under `dir`, in a directory of their
/// own (`as_dir`) or side by side; the paths the command is given.
fn write_recordings(dir: &Path, lines: &[String], files: usize, as_dir: bool) -> Vec<PathBuf> {
    let folder = dir.join("recordings");
    make_dir(&folder).unwrap();
    let mut texts = vec![String::new(); files];
    for (at, line) in lines.iter().enumerate() {
        let _ = writeln!(texts[at % files], "{line}");
    }
    let paths: Vec<PathBuf> = texts
        .iter()
        .enumerate()
        .map(|(at, text)| {
            let path = folder.join(format!("r{at}.jsonl"));
            write_file(&path, text).unwrap();
            path
        })
        .collect();
    if as_dir { vec![folder] } else { paths }
}

fn wire_audit(paths: &[PathBuf], spec: Option<&Path>) -> (u8, String, String) {
    let mut args = vec!["wire-audit".to_owned()];
    if let Some(spec) = spec {
        args.extend(["--spec".to_owned(), spec.display().to_string()]);
    }
    args.extend(paths.iter().map(|path| path.display().to_string()));
    run_cli(&args, &codegen::workspace_root())
}

/// A spec file that describes no method: documentation, a type, an enum (named by `at`).
fn methodless_file(kind: usize, at: usize) -> String {
    match kind % 4 {
        0 => "doc: Nothing but words.\n".to_owned(),
        1 => "# A comment.\ndoc: >-\n  Words.\n".to_owned(),
        2 => format!(
            "doc: A type.\ntypes:\n  Thing{at}:\n    doc: A thing.\n    fields:\n      name:\n        type: string\n        doc: Its name.\n"
        ),
        _ => format!(
            "doc: An enum.\nenums:\n  Kind{at}:\n    doc: A kind.\n    values:\n      a: The first.\n"
        ),
    }
}

/// A spec directory of `kinds.len()` files without a method.
fn write_methodless_spec(dir: &Path, kinds: &[usize]) -> PathBuf {
    let spec = dir.join("spec-without-methods");
    make_dir(&spec).unwrap();
    for (at, kind) in kinds.iter().enumerate() {
        write_file(
            spec.join(format!("part{at}.yaml")),
            methodless_file(*kind, at),
        )
        .unwrap();
    }
    spec
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Recordings of nothing the audit judges: exit 2, naming every path looked at.
    #[test]
    fn recordings_of_nothing_judgeable_are_an_input_error(
        lines in prop::collection::vec(unjudged(), 0..12),
        files in 1..4usize,
        as_dir in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = lines.iter().map(unjudged_line).collect();
        let paths = write_recordings(dir.path(), &lines, files, as_dir);
        let (code, out, err) = wire_audit(&paths, None);
        prop_assert_eq!(code, 2, "{}{}", out, err);
        prop_assert!(err.contains("wire-audit: nothing to judge"), "{}", err);
        prop_assert!(err.contains("judged nothing"), "{}", err);
        for path in &paths {
            prop_assert!(err.contains(&path.display().to_string()), "{}", err);
        }
        prop_assert!(out.is_empty(), "{}", out);
    }

    /// A line that is not an exchange among them: exit 2, naming the file and the line.
    #[test]
    fn a_line_that_is_not_an_exchange_is_an_input_error_naming_its_file(
        lines in prop::collection::vec(unjudged(), 0..6),
        judged in 0..3usize,
        bad in prop_oneof![
            Just("{}".to_owned()),
            Just("[1, 2]".to_owned()),
            Just("42".to_owned()),
            Just(r#"{"format": "marketplace-recording/1"}"#.to_owned()),
            "\"[a-z ]{0,12}\"",
            "[a-z{}:,]{1,12}",
        ],
        at in any::<prop::sample::Index>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut lines: Vec<String> = lines.iter().map(unjudged_line).collect();
        lines.extend((0..judged).map(|i| judged_line(i % 2 == 1)));
        lines.insert(at.index(lines.len() + 1), bad);
        let paths = write_recordings(dir.path(), &lines, 1, false);
        let (code, _, err) = wire_audit(&paths, None);
        prop_assert_eq!(code, 2, "{}", err);
        prop_assert!(err.contains(&format!("{}:", paths[0].display())), "{}", err);
        prop_assert!(!err.contains("nothing to judge"), "{}", err);
    }

    /// At least one answer of a method of the spec: never the nothing-judged error, and the
    /// count printed is the number of answers and error answers generated.
    #[test]
    fn judgeable_answers_are_judged_and_counted(
        noise in prop::collection::vec(unjudged(), 0..10),
        answers in 0..4usize,
        errors in 0..4usize,
        files in 1..4usize,
        as_dir in any::<bool>(),
    ) {
        prop_assume!(answers + errors > 0);
        let dir = tempfile::tempdir().unwrap();
        let mut lines: Vec<String> = noise.iter().map(unjudged_line).collect();
        lines.extend((0..answers).map(|_| judged_line(false)));
        lines.extend((0..errors).map(|_| judged_line(true)));
        let paths = write_recordings(dir.path(), &lines, files, as_dir);
        let (code, out, err) = wire_audit(&paths, None);
        prop_assert_ne!(code, 2, "{}{}", out, err);
        prop_assert!(!err.contains("nothing to judge"), "{}", err);
        let mut judged = Vec::new();
        if answers > 0 {
            judged.push(plural(answers, "answer"));
        }
        if errors > 0 {
            judged.push(plural(errors, "error answer"));
        }
        let expected = format!("; judged {} of 1 method", judged.join(", "));
        prop_assert!(out.contains(&expected), "{} in {}", expected, out);
    }

    /// A spec without methods: whatever was recorded is of methods it does not have.
    #[test]
    fn a_spec_without_methods_judges_nothing(
        kinds in prop::collection::vec(0..4usize, 1..4),
        answers in 1..4usize,
        noise in prop::collection::vec(unjudged(), 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let spec = write_methodless_spec(dir.path(), &kinds);
        let mut lines: Vec<String> = noise.iter().map(unjudged_line).collect();
        lines.extend((0..answers).map(|i| judged_line(i % 2 == 1)));
        let paths = write_recordings(dir.path(), &lines, 1, false);
        let (code, out, err) = wire_audit(&paths, Some(&spec));
        prop_assert_eq!(code, 2, "{}{}", out, err);
        prop_assert!(err.contains("wire-audit: nothing to judge"), "{}", err);
        let unknown = err.split("the spec does not have (").nth(1).unwrap_or_default();
        prop_assert!(unknown.contains("pay/getTimesheet"), "{}", err);
        prop_assert!(err.contains(&paths[0].display().to_string()), "{}", err);
    }
}

// ---- spec-audit ----

/// A workspace of `spec` files (name, text) in a temporary directory.
fn workspace(spec: &[(String, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let spec_dir = dir.path().join(SPEC_DIR);
    make_dir(&spec_dir).unwrap();
    for (name, text) in spec {
        write_file(spec_dir.join(name), text).unwrap();
    }
    dir
}

/// The committed spec's files.
fn committed_spec() -> Vec<(String, String)> {
    let dir = codegen::workspace_root().join(SPEC_DIR);
    let mut files: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// A line of Markdown the reference reader recognizes nothing in: titles, prose, lists, code,
/// tables under headers it does not know, and its own section headings with nothing under
/// them it reads.
fn unrecognized_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "# [a-z ]{1,16}",
        "## [a-z ]{1,16}",
        "### [a-z ]{1,16}",
        "[a-z ,.]{0,40}",
        "- [a-z ]{1,20}",
        "```[a-z]{0,4}",
        "\\| [a-z]{1,6} \\| [a-z]{1,6} \\|\n\\|---\\|---\\|\n\\| [a-z]{1,6} \\| [a-z]{1,6} \\|",
        Just("## What the service does".to_owned()),
        Just("## Endpoints".to_owned()),
        Just(String::new()),
    ]
}

fn spec_audit(root: &Path, reference: &Path) -> (u8, String, String) {
    let args = [
        "spec-audit".to_owned(),
        "--reference".to_owned(),
        reference.display().to_string(),
    ];
    run_cli(&args, root)
}

/// A spec file that describes nothing: documentation and comments.
fn empty_spec_file() -> impl Strategy<Value = String> {
    prop_oneof![
        "doc: [a-z]{1,8}( [a-z]{1,8}){0,3}\n",
        "# [a-z ]{0,20}\ndoc: [a-z]{1,8}\n",
        "doc: >-\n  [a-z]{1,8}( [a-z]{1,8}){0,3}\n  [a-z]{1,8}\n",
    ]
}

/// `count` types of a field each, named `Thing0…`.
fn typed_spec(count: usize) -> String {
    let mut text = "doc: Things.\ntypes:\n".to_owned();
    for at in 0..count {
        let _ = write!(
            text,
            "  Thing{at}:\n    doc: A thing.\n    fields:\n      name:\n        type: string\n        doc: Its name.\n"
        );
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// A reference in which nothing is recognized, against the committed spec.
    #[test]
    fn a_reference_without_anything_recognizable_is_an_input_error(
        lines in prop::collection::vec(unrecognized_line(), 0..24),
    ) {
        let root = workspace(&committed_spec());
        let reference = root.path().join("reference.md");
        write_file(&reference, lines.join("\n")).unwrap();
        let (code, out, err) = spec_audit(root.path(), &reference);
        prop_assert_eq!(code, 2, "{}{}", out, err);
        prop_assert!(err.contains("spec-audit: nothing to judge"), "{}", err);
        prop_assert!(err.contains(&reference.display().to_string()), "{}", err);
        prop_assert!(err.contains("0 items the reference documents"), "{}", err);
    }

    /// A spec that describes nothing, against the committed reference.
    #[test]
    fn a_spec_that_describes_nothing_is_an_input_error_for_the_audit(
        files in prop::collection::vec(empty_spec_file(), 0..4),
    ) {
        let spec: Vec<(String, String)> = files
            .into_iter()
            .enumerate()
            .map(|(at, text)| (format!("part{at}.yaml"), text))
            .collect();
        let root = workspace(&spec);
        let reference = codegen::workspace_root().join(SNAPSHOT_REFERENCE);
        let (code, out, err) = spec_audit(root.path(), &reference);
        prop_assert_eq!(code, 2, "{}{}", out, err);
        prop_assert!(err.contains("spec-audit: nothing to judge"), "{}", err);
        prop_assert!(err.contains(&format!("looked at {SPEC_DIR}/ and ")), "{}", err);
        prop_assert!(err.contains(&plural(spec.len(), "spec file")), "{}", err);
    }

    /// Types against the committed reference: each judged (none is documented: findings),
    /// and counted.
    #[test]
    fn types_are_judged_and_counted_by_the_audit(count in 1..6usize) {
        let root = workspace(&[("things.yaml".to_owned(), typed_spec(count))]);
        let reference = codegen::workspace_root().join(SNAPSHOT_REFERENCE);
        let (code, out, err) = spec_audit(root.path(), &reference);
        prop_assert_eq!(code, 1, "{}{}", out, err);
        let expected = format!("; judged {} against", plural(count, "type"));
        prop_assert!(out.contains(&expected), "{} in {}", expected, out);
    }
}

// ---- spec-diff ----

/// What `spec/` holds at a revision.
#[derive(Clone, Debug)]
enum SpecAt {
    /// No `spec/` at all (a revision from before the spec).
    Absent,
    /// A `spec/` without `.yaml` files.
    NoYaml,
    /// `.yaml` files that describe nothing.
    Empty(Vec<String>),
    /// `n` types of a field each.
    Types(usize),
}

impl SpecAt {
    fn describes_something(&self) -> bool {
        matches!(self, SpecAt::Types(_))
    }
}

fn spec_at() -> impl Strategy<Value = SpecAt> {
    prop_oneof![
        Just(SpecAt::Absent),
        Just(SpecAt::NoYaml),
        prop::collection::vec(empty_spec_file(), 1..3).prop_map(SpecAt::Empty),
        (1..5usize).prop_map(SpecAt::Types),
    ]
}

/// Makes `spec/` hold `state` in the work tree, and commits it.
fn commit(root: &Path, state: &SpecAt, message: &str) {
    let spec = root.join(SPEC_DIR);
    if spec.exists() {
        remove_tree(&spec).unwrap();
    }
    match state {
        SpecAt::Absent => {}
        SpecAt::NoYaml => {
            make_dir(&spec).unwrap();
            write_file(spec.join("notes.txt"), "no spec here\n").unwrap();
        }
        SpecAt::Empty(files) => {
            make_dir(&spec).unwrap();
            for (at, text) in files.iter().enumerate() {
                write_file(spec.join(format!("part{at}.yaml")), text).unwrap();
            }
        }
        SpecAt::Types(count) => {
            make_dir(&spec).unwrap();
            write_file(spec.join("things.yaml"), typed_spec(*count)).unwrap();
        }
    }
    write_file(root.join("README.md"), message).unwrap();
    git(root, &["add", "-A", "."]);
    git(root, &["commit", "-q", "-m", message]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Two revisions: when either side describes nothing, exit 2 naming both; otherwise the
    /// items of either side are compared and counted (identical sides too: "no change").
    #[test]
    fn revisions_that_describe_nothing_are_an_input_error_and_others_are_counted(
        base in spec_at(),
        head in spec_at(),
        work_tree in any::<bool>(),
    ) {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        git(root, &["init", "-q", "-b", "main"]);
        commit(root, &base, "base");
        commit(root, &head, "head");
        let mut args: Vec<String> = ["spec-diff", "--base", "HEAD~1"].map(str::to_owned).to_vec();
        if !work_tree {
            args.extend(["--head".to_owned(), "HEAD".to_owned()]);
        }
        let (code, out, err) = run_cli(&args, root);
        if work_tree && matches!(head, SpecAt::Absent) {
            // The work tree must have a spec directory to read.
            prop_assert_eq!(code, 2, "{}{}", out, err);
            prop_assert!(err.contains(SPEC_DIR), "{}", err);
            return Ok(());
        }
        if base.describes_something() && head.describes_something() {
            let (SpecAt::Types(old), SpecAt::Types(new)) = (&base, &head) else { unreachable!() };
            prop_assert_eq!(code, 0, "{}{}", out, err);
            prop_assert!(!err.contains("nothing to judge"), "{}", err);
            let both = (*old).max(*new);
            let expected = format!(
                "; judged {}, {}\n",
                plural(both, "type"),
                plural(both, "field")
            );
            prop_assert!(out.contains(&expected), "{} in {}", expected, out);
            if old == new {
                prop_assert!(out.contains("No change to the API."), "{}", out);
            }
        } else {
            prop_assert_eq!(code, 2, "{}{}", out, err);
            prop_assert!(err.contains("spec-diff: nothing to judge"), "{}", err);
            prop_assert!(err.contains(&format!("looked at {SPEC_DIR}/ at HEAD~1")), "{}", err);
            let head_shown = if work_tree { "the work tree" } else { "HEAD (" };
            prop_assert!(err.contains(head_shown), "{}", err);
            prop_assert!(out.is_empty(), "{}", out);
        }
    }
}

// Fixtures through the one writer (`marketplace_client::files`), as clippy.toml requires.

fn make_dir(path: impl AsRef<Path>) -> std::io::Result<()> {
    marketplace_client::files::OutputDir::create(path.as_ref())
        .map(drop)
        .map_err(std::io::Error::other)
}

fn remove_tree(path: impl AsRef<Path>) -> std::io::Result<()> {
    let path = path.as_ref();
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other(format!(
            "{}: no file name",
            path.display()
        )));
    };
    marketplace_client::files::OutputDir::open(dir)
        .and_then(|dir| dir.remove_all(name))
        .map_err(std::io::Error::other)
}
