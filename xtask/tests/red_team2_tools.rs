//! Red team, round 2: the tools' rows of SECURITY.md, attacked from the outside.
//!
//! - "files the tools write": writers and link positions the other suites do not plant (the
//!   export alone, `spec/README.md`, the fake's shapes, a link at the `spec/` folder itself, a
//!   `--propose-into` that fails before it writes);
//! - "generated code": hostile text in every text position of the spec, and hostile wire
//!   strings, must stay in literals of code that still parses;
//! - "nothing judged is not a pass": `codegen --check` and `openapi --check` on specs that
//!   describe nothing, `spec-diff` in every format, the fake's replay after an OAuth-only run
//!   or from no files, and whether `openapi --check` counts what it judged;
//! - exit codes and control characters of the real binary (`CARGO_BIN_EXE_xtask`): arguments
//!   that are not UTF-8, hostile names of recordings found in a directory, of spec files at a
//!   git revision, and control characters in the reference's lines.
//!
//! The binary finds its workspace where it was built, whatever its current directory (see the
//! report): the cases that need a changed spec or a git repository of their own call the
//! command line's entry point (`xtask::cli::run`) with the scratch copy as the root; the
//! others run the binary, read-only on the worktree, with its current directory a temporary
//! folder.

mod fixture_files;
use fixture_files::git;

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::ffi::OsStringExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr as _;
use std::time::{Duration, Instant};

use marketplace_client::files::OutputDir;
use proptest::prelude::*;
use xtask::cli::{self, Output};
use xtask::codegen::{GENERATED_DIR, SPEC_DIR};

mod scratch;
mod tree;
use scratch::Scratch;
use tree::snapshot;

// ---- helpers ----

/// The real binary with `args`, in `cwd`: its exit code (-1 for a signal), stdout and stderr.
/// A run longer than 180 s is killed (by its own id) and fails the case.
fn run_bin(args: &[OsString], cwd: &Path) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        err.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("xtask {args:?} did not end within 180 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    )
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// `cargo xtask ARGS` through the command line's entry point, with `root` as the workspace.
fn run_cli(args: &[&str], root: &Path) -> (u8, String, String) {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(&args, root, &mut Output::new(&mut out, &mut err));
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// The first control or bidirectional-text character of `text`, by the project's own rule.
fn control_in(text: &str) -> Option<char> {
    text.chars()
        .find(|c| marketplace_codegen::text::is_control(*c))
}

fn assert_no_control(what: &str, out: &str, err: &str) {
    for printed in [out, err] {
        let found = control_in(printed);
        assert!(found.is_none(), "{what}: printed {found:?}: {printed}");
    }
}

/// A scratch workspace committed once on `main`.
fn repo() -> Scratch {
    let scratch = Scratch::new();
    git(&scratch.root, &["init", "-q", "-b", "main"]);
    git(&scratch.root, &["add", "-A", "."]);
    git(&scratch.root, &["commit", "-q", "-m", "first"]);
    scratch
}

/// The `.yaml` files of the scratch's spec.
fn spec_yaml_files(scratch: &Scratch) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scratch.path(SPEC_DIR))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    names.sort();
    names
}

/// A recorded exchange line (the recording format of `marketplace_client::recording`).
fn exchange_line(method: &str, status: u16, body: Option<&str>) -> String {
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
    line.to_string()
}

/// A data answer of a method of the committed spec (it has findings: fields missing).
fn data_line() -> String {
    exchange_line(
        "pay/getTimesheet",
        200,
        Some(r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":1,"data":{}}"#),
    )
}

/// An OAuth token answer: nothing the wire audit judges.
fn token_line() -> String {
    exchange_line("oauth/getAccessToken", 200, None)
}

/// What a folder holds, by relative path: a regular file's bytes, `None` for anything else
/// (a folder, a FIFO, a link), read without following links and without opening a FIFO.
fn listing(dir: &Path) -> std::collections::BTreeMap<PathBuf, Option<Vec<u8>>> {
    fn walk(
        base: &Path,
        dir: &Path,
        found: &mut std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    ) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(base).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_file() {
                found.insert(relative, Some(std::fs::read(&path).unwrap()));
            } else {
                found.insert(relative, None);
                if meta.is_dir() {
                    walk(base, &path, found);
                }
            }
        }
    }
    let mut found = std::collections::BTreeMap::new();
    walk(dir, dir, &mut found);
    found
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Hostile bytes for names and arguments: ESC sequences, BEL, CR, C1 (raw and UTF-8), bidi
/// overrides, and bytes that are not UTF-8.
fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    let chunks: Vec<&'static [u8]> = vec![
        b"\x1b[31m",
        b"\x1b]0;owned\x07",
        b"\x1b[2J",
        b"\r",
        b"\x07",
        b"\x08",
        b"\x7f",
        b"\xc2\x9b",     // U+009B, C1 CSI
        b"\xe2\x80\xae", // U+202E, right-to-left override
        b"\xe2\x81\xa7", // U+2067
        b"\xff",
        b"\x9b",
        b"\xc3",
        b"ab",
    ];
    prop::collection::vec(prop::sample::select(chunks), 1..5).prop_map(|chunks| {
        let mut bytes = b"zz".to_vec();
        for chunk in chunks {
            bytes.extend_from_slice(chunk);
        }
        // At least one control character, whatever was drawn.
        bytes.extend_from_slice(b"\x1b[0m");
        bytes
    })
}

// ---- exit codes and control characters, through the real binary ----

/// SECURITY.md, tools' output: "no control character reaches a terminal or CI log, the
/// arguments clap's errors quote included". docs/commands.md: exit 2 for "a usage or input
/// error". Arguments that are not UTF-8 (which `cli::run`, taking `String`s, never sees: the
/// binary converts them) in every position: as a command, an option, an option's value, a
/// path. The process must end with 0, 1 or 2 (never a panic's 101 or a signal), 2 where the
/// argument is refused, and print no control character.
#[test]
fn arguments_that_are_not_utf8_are_refused_or_escaped_and_never_reach_the_terminal_raw() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 6,
        ..ProptestConfig::default()
    });
    runner
        .run(&hostile_bytes(), |bytes| {
            let dir = tempfile::tempdir().unwrap();
            let out = OutputDir::open(dir.path()).unwrap();
            out.write("good.jsonl", format!("{}\n", data_line()))
                .unwrap();
            let hostile = OsString::from_vec(bytes.clone());
            let mut dashed = b"--".to_vec();
            dashed.extend_from_slice(&bytes);
            let dashed = OsString::from_vec(dashed);
            let with = |head: &[&str], tail: &[OsString]| -> Vec<OsString> {
                let mut args = os(head);
                args.extend(tail.iter().cloned());
                args
            };
            // (arguments, the exit code required: None for "0, 1 or 2")
            let runs: Vec<(Vec<OsString>, Option<i32>)> = vec![
                (vec![hostile.clone()], Some(2)),
                (vec![dashed.clone()], Some(2)),
                (with(&["help"], std::slice::from_ref(&hostile)), Some(2)),
                (with(&["codegen"], std::slice::from_ref(&hostile)), Some(2)),
                (with(&["codegen"], std::slice::from_ref(&dashed)), Some(2)),
                (
                    with(&["wire-audit"], std::slice::from_ref(&hostile)),
                    Some(2),
                ),
                (
                    with(
                        &["wire-audit", "--spec"],
                        &[hostile.clone(), "good.jsonl".into()],
                    ),
                    Some(2),
                ),
                (
                    with(
                        &["wire-audit", "--propose-into"],
                        &[hostile.clone(), "good.jsonl".into()],
                    ),
                    None,
                ),
                (
                    with(
                        &["spec-audit", "--reference"],
                        std::slice::from_ref(&hostile),
                    ),
                    Some(2),
                ),
                (
                    with(&["spec-diff", "--base"], std::slice::from_ref(&hostile)),
                    Some(2),
                ),
                (
                    with(&["spec-diff", "--format"], std::slice::from_ref(&hostile)),
                    Some(2),
                ),
                (
                    with(
                        &["target-dir", "--manifest-path"],
                        std::slice::from_ref(&hostile),
                    ),
                    None,
                ),
            ];
            for (args, want) in runs {
                let (code, stdout, stderr) = run_bin(&args, dir.path());
                prop_assert!(
                    [0, 1, 2].contains(&code),
                    "{args:?}: exit {code} (not a documented exit code)\n{stderr}"
                );
                if let Some(want) = want {
                    prop_assert_eq!(code, want, "{:?}: {}", args, stderr);
                }
                for printed in [&stdout, &stderr] {
                    let found = control_in(printed);
                    prop_assert!(found.is_none(), "{args:?} printed {found:?}: {printed}");
                }
                // Named when it can be shown (clap refuses bytes that are not UTF-8 without
                // quoting them, which the docs allow).
                if want == Some(2) && std::str::from_utf8(&bytes).is_ok() {
                    prop_assert!(
                        stdout.contains("zz") || stderr.contains("zz"),
                        "{args:?}: the argument is not named: {stdout}{stderr}"
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}

/// SECURITY.md, tools' output: "no control character reaches a terminal or CI log";
/// recordings: "a line that is not an exchange named by file and line". The names of the
/// recordings the audit finds in a directory (not typed on the command line: a pull request
/// commits them) carry ESC sequences, C1, bidi controls and bytes that are not UTF-8; the file
/// is named in its error (exit 2) and in a finding's example (exit 1), escaped.
#[test]
fn recordings_found_in_a_directory_under_hostile_names_are_named_escaped() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 6,
        ..ProptestConfig::default()
    });
    runner
        .run(&(hostile_bytes(), any::<bool>()), |(bytes, broken)| {
            let dir = tempfile::tempdir().unwrap();
            let out = OutputDir::open(dir.path()).unwrap();
            let recordings = out.subdir("recordings").unwrap();
            let mut name = bytes.clone();
            name.extend_from_slice(b".jsonl");
            let name = PathBuf::from(OsString::from_vec(name));
            let text = if broken {
                "{\"format\": \"not an exchange\"}\n".to_owned()
            } else {
                format!("{}\n", data_line())
            };
            recordings.write(&name, text).unwrap();
            let (code, stdout, stderr) = run_bin(&os(&["wire-audit", "recordings"]), dir.path());
            prop_assert_eq!(code, if broken { 2 } else { 1 }, "{}{}", stdout, stderr);
            for printed in [&stdout, &stderr] {
                let found = control_in(printed);
                prop_assert!(found.is_none(), "printed {found:?}: {printed}");
            }
            prop_assert!(
                stdout.contains("zz") || stderr.contains("zz"),
                "the recording is not named: {stdout}{stderr}"
            );
            Ok(())
        })
        .unwrap();
}

/// SECURITY.md, threat model: "git's output" is untrusted; tools' output: no control
/// character reaches a terminal; spec files: hostile ones are "refused by every command naming
/// the file" (`hostile_spec_files_are_refused_by_every_command_naming_the_file`). A revision commits a spec file whose name holds control
/// characters and bytes that are not UTF-8 (git takes any name but `/` and NUL) and whose text
/// is invalid: `spec-diff` reads it from git's tree and names it in a located error (exit 2),
/// escaped, and never panics.
#[test]
fn a_hostile_spec_file_name_at_a_git_revision_is_named_escaped_by_spec_diff() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 4,
        ..ProptestConfig::default()
    });
    runner
        .run(&hostile_bytes(), |bytes| {
            let scratch = repo();
            let mut name = b"spec/".to_vec();
            name.extend_from_slice(&bytes);
            name.extend_from_slice(b".yaml");
            let name = PathBuf::from(OsString::from_vec(name));
            scratch
                .out()
                .write(
                    &name,
                    "doc: A type.\ntypes:\n  Zthing:\n    doc: A thing.\n    fields:\n      name:\n        type: decimall\n        doc: Its name.\n",
                )
                .unwrap();
            git(&scratch.root, &["add", "-A", "."]);
            git(&scratch.root, &["commit", "-q", "-m", "hostile name"]);
            let (code, stdout, stderr) = run_cli(
                &["spec-diff", "--base", "HEAD~1", "--head", "HEAD"],
                &scratch.root,
            );
            prop_assert_eq!(code, 2, "{}{}", stdout, stderr);
            for printed in [&stdout, &stderr] {
                let found = control_in(printed);
                prop_assert!(found.is_none(), "printed {found:?}: {printed}");
            }
            prop_assert!(stderr.contains("zz"), "the file is not named: {stderr}");
            prop_assert!(stderr.contains("decimall"), "the error is not said: {stderr}");
            Ok(())
        })
        .unwrap();
}

/// SECURITY.md, tools' output: "no control character reaches a terminal or CI log";
/// docs/auditing.md: spec-audit quotes "the reference's line" in each finding. A reference
/// whose table row (a field the spec lacks, so a finding quotes the line) holds control and
/// bidi characters: exit 1 with the finding or 2 naming the line, never the raw character.
#[test]
fn control_characters_in_a_reference_line_quoted_by_spec_audit_are_escaped() {
    let reference = std::fs::read_to_string("/work/shared/marketplace-api.md")
        .or_else(|_| {
            std::fs::read_to_string(
                xtask::codegen::workspace_root().join(xtask::spec_audit::SNAPSHOT_REFERENCE),
            )
        })
        .unwrap();
    let anchor = "| jobId | string | |\n";
    assert!(reference.contains(anchor));
    for control in [
        "\u{1b}[31m",
        "\u{1b}]0;title\u{7}",
        "\u{9b}2J",
        "\r",
        "\u{202e}",
        "\u{2067}",
        "\u{7f}",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let row = format!("| zzField{control} | string | zz notes{control} here |\n");
        let text = reference.replacen(anchor, &format!("{anchor}{row}"), 1);
        OutputDir::open(dir.path())
            .unwrap()
            .write("reference.md", text)
            .unwrap();
        let (code, stdout, stderr) = run_bin(
            &os(&["spec-audit", "--reference", "reference.md"]),
            dir.path(),
        );
        assert!(
            [1, 2].contains(&code),
            "{control:?}: exit {code}: {stdout}{stderr}"
        );
        assert_no_control(&format!("{control:?}"), &stdout, &stderr);
        assert!(
            stdout.contains("zzField") || stderr.contains("zzField"),
            "{control:?}: the row is not named: {stdout}{stderr}"
        );
    }
}

/// docs/commands.md, "Exit codes, the same for every command": 0 done and nothing found, 1
/// findings, 2 a usage or input error. The process's own status (not `cli::run`'s return
/// value) for one case of each, read-only on the worktree.
#[test]
fn the_binary_exits_with_the_documented_code_for_each_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    out.write("good.jsonl", format!("{}\n", data_line()))
        .unwrap();
    out.write("tokens.jsonl", format!("{}\n", token_line()))
        .unwrap();
    out.write("empty.md", "").unwrap();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["--help"], 0),
        (vec!["codegen", "--help"], 0),
        (vec![], 2),
        (vec!["spec-dif"], 2),
        (vec!["codegen", "--chek"], 2),
        (vec!["codegen", "--check"], 0),
        (vec!["openapi", "--check"], 0),
        (vec!["openapi", "--check", "--check"], 2),
        (vec!["spec-diff", "--fail-on", "sometimes"], 2),
        (vec!["wire-audit"], 2),
        (vec!["wire-audit", "good.jsonl"], 1),
        (vec!["wire-audit", "tokens.jsonl"], 2),
        (vec!["wire-audit", "missing.jsonl"], 2),
        (vec!["spec-audit", "--reference", "empty.md"], 2),
        (vec!["spec-audit", "--reference", "."], 2),
    ];
    for (args, want) in cases {
        let (code, stdout, stderr) = run_bin(&os(&args), dir.path());
        assert_eq!(code, want, "{args:?}: {stdout}{stderr}");
    }
}

/// SECURITY.md, tools' output: no control character reaches a terminal; spec files are
/// refused "naming the file". The spec directory named with `wire-audit --spec` (a folder a
/// pull request fills) holds an invalid file whose name carries control characters and bytes
/// that are not UTF-8: exit 2, the file named, escaped, through the real binary.
#[test]
fn a_hostile_spec_file_name_under_wire_audit_spec_is_named_escaped() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 6,
        ..ProptestConfig::default()
    });
    runner
        .run(&hostile_bytes(), |bytes| {
            let dir = tempfile::tempdir().unwrap();
            let out = OutputDir::open(dir.path()).unwrap();
            out.write("good.jsonl", format!("{}\n", data_line())).unwrap();
            let spec = out.subdir("spec").unwrap();
            for entry in std::fs::read_dir(xtask::codegen::workspace_root().join(SPEC_DIR)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|ext| ext == "yaml") {
                    spec.write(path.file_name().unwrap(), std::fs::read(&path).unwrap())
                        .unwrap();
                }
            }
            let mut name = bytes.clone();
            name.extend_from_slice(b".yaml");
            spec.write(
                PathBuf::from(OsString::from_vec(name)),
                "types:\n  Zthing:\n    doc: A thing.\n    fields:\n      name:\n        type: decimall\n        doc: Its name.\n",
            )
            .unwrap();
            let spec_arg = dir.path().join("spec").display().to_string();
            let (code, stdout, stderr) =
                run_bin(&os(&["wire-audit", "--spec", &spec_arg, "good.jsonl"]), dir.path());
            prop_assert_eq!(code, 2, "{}{}", stdout, stderr);
            for printed in [&stdout, &stderr] {
                let found = control_in(printed);
                prop_assert!(found.is_none(), "printed {found:?}: {printed}");
            }
            prop_assert!(stderr.contains("zz"), "the file is not named: {stderr}");
            Ok(())
        })
        .unwrap();
}

// ---- nothing judged is not a pass ----

/// SECURITY.md, recordings replayed by the fake: "no data exchange at all is an error (naming
/// the files and how many exchanges they held)". Recordings that hold nothing in ways the
/// replay suites do not try: an empty directory given as a recording, a file of white space
/// only, a file of zero bytes, together: an error, never a replay of nothing.
#[test]
fn a_replay_from_an_empty_directory_or_blank_files_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    out.subdir("empty-dir").unwrap();
    out.write("blank.jsonl", "\n  \n\t\n").unwrap();
    out.write("zero.jsonl", "").unwrap();
    for paths in [
        vec!["empty-dir"],
        vec!["blank.jsonl"],
        vec!["zero.jsonl"],
        vec!["blank.jsonl", "zero.jsonl", "empty-dir"],
    ] {
        let full: Vec<PathBuf> = paths.iter().map(|path| dir.path().join(path)).collect();
        let replay = marketplace_fake::replay::Replay::from_files(&full);
        assert!(
            replay.is_err(),
            "{paths:?}: a replay of nothing is not an error ({:?} exchanges)",
            replay.map(|replay| replay.len())
        );
    }
}

/// docs/commands.md, "Nothing judged is not a pass": "Every command that judges ... says what
/// it read, judged and left out" (the brief and the help list `openapi --check`, which exits
/// 1 on a stale export: a judgement). Like `codegen --check`'s last line ("read 4 spec files;
/// judged 7 generated files ..."), `openapi --check` must say what it read and judged.
#[test]
fn openapi_check_says_what_it_read_and_judged() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run_bin(&os(&["openapi", "--check"]), dir.path());
    assert_eq!(code, 0, "{stdout}{stderr}");
    let printed = format!("{stdout}{stderr}");
    assert!(
        printed.contains("read") && printed.contains("judged"),
        "openapi --check does not say what it read and judged: {printed}"
    );
}

/// The states of `spec/` that describe nothing.
#[derive(Clone, Debug)]
enum Nothing {
    /// No `spec/` at all.
    Absent,
    /// `spec/` with its README and export, but no `.yaml` file.
    NoYaml,
    /// `.yaml` files that describe no item.
    Files(Vec<&'static str>),
}

fn nothing() -> impl Strategy<Value = Nothing> {
    let file = prop::sample::select(vec![
        "doc: Nothing but words.\n",
        "# only a comment\n",
        "",
        "---\n",
        "doc: >-\n  Words.\n",
        "{}\n",
    ]);
    prop_oneof![
        Just(Nothing::Absent),
        Just(Nothing::NoYaml),
        prop::collection::vec(file, 1..4).prop_map(Nothing::Files),
    ]
}

fn make_nothing(scratch: &Scratch, state: &Nothing) {
    let out = scratch.out();
    match state {
        Nothing::Absent => out.remove_all(SPEC_DIR).unwrap(),
        Nothing::NoYaml | Nothing::Files(_) => {
            for name in spec_yaml_files(scratch) {
                out.remove(format!("{SPEC_DIR}/{name}")).unwrap();
            }
        }
    }
    if let Nothing::Files(files) = state {
        for (at, text) in files.iter().enumerate() {
            out.write(format!("{SPEC_DIR}/part{at}.yaml"), text)
                .unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// SECURITY.md, every judgement of the tools (`codegen --check` among them): "judging
    /// nothing, whatever the reason (... a revision without spec files, ... a spec that
    /// describes nothing), is an input error (exit 2)". A spec that describes nothing, after
    /// `codegen` and `openapi` have had their chance to write what it generates (so the files
    /// compared may well agree): `codegen --check` and `openapi --check` exit 2 naming the
    /// spec, never 0.
    #[test]
    fn checks_of_a_spec_that_describes_nothing_are_input_errors(state in nothing()) {
        let scratch = Scratch::new();
        make_nothing(&scratch, &state);
        let _ = run_cli(&["codegen"], &scratch.root);
        let _ = run_cli(&["openapi"], &scratch.root);
        for args in [["codegen", "--check"], ["openapi", "--check"]] {
            let (code, stdout, stderr) = run_cli(&args, &scratch.root);
            prop_assert_eq!(code, 2, "{:?} on {:?}: {}{}", args, state, stdout, stderr);
            prop_assert!(stderr.contains("spec"), "{:?}: does not name the spec: {}", args, stderr);
        }
    }

    /// SECURITY.md: judging nothing "is an input error (exit 2)"; docs/reviewing-spec-changes.md:
    /// "a side that describes nothing ... exits 2", and `--format json` "is stable, for tools".
    /// The work tree (the default head) or the base describing nothing, in every format and
    /// with `--fail-on never` (the report is the product): exit 2, and no report on stdout a
    /// tool could take for a judgement ("No change", a JSON summary).
    #[test]
    fn spec_diff_of_a_side_that_describes_nothing_is_an_input_error_in_every_format(
        state in nothing(),
        base_side in any::<bool>(),
    ) {
        let scratch = repo();
        let full: Vec<(String, Vec<u8>)> = spec_yaml_files(&scratch)
            .into_iter()
            .map(|name| {
                let bytes = std::fs::read(scratch.path(&format!("{SPEC_DIR}/{name}"))).unwrap();
                (name, bytes)
            })
            .collect();
        make_nothing(&scratch, &state);
        if base_side {
            // Commit the empty state, then put the full spec back in the work tree.
            git(&scratch.root, &["add", "-A", "."]);
            git(&scratch.root, &["commit", "-q", "--allow-empty", "-m", "nothing"]);
            let out = scratch.out();
            out.subdir(SPEC_DIR).unwrap();
            for (name, bytes) in &full {
                out.write(format!("{SPEC_DIR}/{name}"), bytes).unwrap();
            }
        }
        for format in ["text", "markdown", "json", "changelog"] {
            let (code, stdout, stderr) = run_cli(
                &["spec-diff", "--base", "HEAD", "--format", format, "--fail-on", "never"],
                &scratch.root,
            );
            prop_assert_eq!(code, 2, "{} {:?} (base side {}): {}{}", format, state, base_side, stdout, stderr);
            prop_assert!(!stdout.contains("No change"), "{}: {}", format, stdout);
            prop_assert!(!stdout.contains("\"summary\""), "{}: {}", format, stdout);
        }
    }
}

/// SECURITY.md, every judgement of the tools (`wire-audit`): nothing judged is an input
/// error; files the tools write: "on failure nothing is left (no temporary file, no directory
/// the write made)". `wire-audit --propose-into DIR` that fails (nothing judged, a recording
/// that cannot be read after a good one, DIR a regular file or a FIFO, DIR below a file):
/// exit 2 and the folder it ran in exactly as it was: no DIR made, no parent made, nothing
/// beside, the file or FIFO untouched, no hang.
#[test]
fn a_failed_propose_into_leaves_the_folder_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    out.write("good.jsonl", format!("{}\n", data_line()))
        .unwrap();
    out.write("tokens.jsonl", format!("{}\n", token_line()))
        .unwrap();
    out.write("bad.jsonl", "not json at all\n").unwrap();
    out.write("a-file", "kept\n").unwrap();
    mkfifo(&dir.path().join("a-fifo"));
    mkfifo(&dir.path().join("fifo.jsonl"));
    out.write("old/api.yaml", "old copy\n").unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["wire-audit", "--propose-into", "new/deeper", "tokens.jsonl"],
        vec![
            "wire-audit",
            "--propose-into",
            "new",
            "good.jsonl",
            "bad.jsonl",
        ],
        vec![
            "wire-audit",
            "--propose-into",
            "new",
            "good.jsonl",
            "fifo.jsonl",
        ],
        vec![
            "wire-audit",
            "--propose-into",
            "old",
            "good.jsonl",
            "bad.jsonl",
        ],
        vec!["wire-audit", "--propose-into", "a-file", "good.jsonl"],
        vec!["wire-audit", "--propose-into", "a-fifo", "good.jsonl"],
        vec!["wire-audit", "--propose-into", "a-file/below", "good.jsonl"],
    ];
    for args in cases {
        let before = listing(dir.path());
        let (code, stdout, stderr) = run_bin(&os(&args), dir.path());
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert_eq!(
            listing(dir.path()),
            before,
            "{args:?} changed the folder: {stderr}"
        );
    }
}

/// SECURITY.md, recordings replayed by the fake: "no data exchange at all is an error ...,
/// and so is a replay no request came to (`check_replay` says how many exchanges it loaded
/// and requests it answered: nothing replayed is not a pass)". Two routes the replay suites do
/// not take: a replay made from no file at all, and a fake whose replay saw only the OAuth
/// flow (a signed-in app that never made a data call): both are errors, not counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_of_no_file_or_of_an_oauth_only_run_is_not_a_pass() {
    let none: Vec<PathBuf> = Vec::new();
    let replay = marketplace_fake::replay::Replay::from_files(none);
    assert!(
        replay.is_err(),
        "a replay made from no file at all is not an error: {:?}",
        replay.map(|replay| replay.len())
    );

    let line = exchange_line(
        "pay/getTimesheet",
        200,
        Some(r#"{"api":"pay/getTimesheet","apiVersion":1,"rcode":1,"data":{}}"#),
    );
    let exchange = marketplace_client::recording::Exchange::from_line(&line).unwrap();
    let replay = marketplace_fake::replay::Replay::from_exchanges([exchange]).unwrap();
    let fake = marketplace_fake::FakeMarketplace::start().await.unwrap();
    fake.replay(replay);
    let client = fake.client().unwrap();
    let _session = fake.sign_in(&client, "dwhitfield").await.unwrap();
    let checked = fake.check_replay();
    assert!(
        checked.is_err(),
        "only the OAuth flow reached the fake, yet check_replay passes: {checked:?}"
    );
}

// ---- files the tools write ----

/// SECURITY.md, files the tools write: "nothing outside the directory named changes, whatever
/// links stand below it ... every symbolic link below the directory named is refused, pointing
/// inside or out". The tests plant links at the client's generated files and folder; here a
/// link stands at each other file codegen and `openapi` write (the export
/// `spec/openapi.json`, `spec/README.md` whose part codegen rewrites, the fake's wire shapes),
/// pointing out, with the spec changed so that the file must be rewritten: the file outside
/// is untouched, and the link is either refused (exit 2) or replaced by a regular file.
#[test]
fn a_link_at_the_export_the_spec_readme_or_the_fakes_shapes_sends_no_write_outside() {
    let shapes_dir = marketplace_codegen::FAKE_SHAPES_DIR;
    let shapes: Vec<String> = std::fs::read_dir(xtask::codegen::workspace_root().join(shapes_dir))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .map(|name| format!("{shapes_dir}/{name}"))
        .collect();
    let mut targets = vec![
        format!("{SPEC_DIR}/openapi.json"),
        format!("{SPEC_DIR}/README.md"),
    ];
    targets.extend(shapes);
    for target in &targets {
        for command in ["codegen", "openapi"] {
            let scratch = Scratch::new();
            // A change every generated file reflects: a new value of an enum.
            scratch.edit(
                "spec/pay.yaml",
                "      Released: Released.\n",
                "      Released: Released.\n      Held: Held on request.\n",
            );
            let outside = tempfile::tempdir().unwrap();
            let original = std::fs::read(scratch.path(target)).unwrap();
            OutputDir::open(outside.path())
                .unwrap()
                .write("kept", &original)
                .unwrap();
            scratch.out().remove(target).unwrap();
            std::os::unix::fs::symlink(outside.path().join("kept"), scratch.path(target)).unwrap();
            let before = snapshot(outside.path());
            let (code, stdout, stderr) = run_cli(&[command], &scratch.root);
            assert_eq!(
                snapshot(outside.path()),
                before,
                "{command} wrote through a link at {target}: {stdout}{stderr}"
            );
            assert!(
                [0, 2].contains(&code),
                "{command} at {target}: {code}: {stderr}"
            );
            let meta = std::fs::symlink_metadata(scratch.path(target)).unwrap();
            if code == 0 {
                assert!(
                    meta.is_file() || command == "openapi" && !target.ends_with("openapi.json"),
                    "{command}: {target} is still a link after success"
                );
            }
        }
    }
}

/// SECURITY.md, files the tools write: "nothing outside the directory named changes, whatever
/// links stand below it: ... every symbolic link below the directory named is refused";
/// threat model: "symbolic links" are what a pull request can add. A pull request replaces
/// the `spec/` folder itself with a link to a folder elsewhere holding a spec (one whose
/// generated parts, the export and README, are stale): `codegen` and `openapi` run in the
/// workspace must not write into that folder.
#[test]
fn a_link_at_the_spec_folder_sends_no_write_outside_the_workspace() {
    for command in ["codegen", "openapi"] {
        let scratch = Scratch::new();
        let outside = tempfile::tempdir().unwrap();
        let elsewhere = OutputDir::open(outside.path()).unwrap();
        for entry in std::fs::read_dir(scratch.path(SPEC_DIR)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let name = path.file_name().unwrap();
                elsewhere
                    .write(
                        PathBuf::from("spec").join(name),
                        std::fs::read(&path).unwrap(),
                    )
                    .unwrap();
            }
        }
        // Stale there: the spec changed, its export and README not.
        let pay = outside.path().join("spec/pay.yaml");
        let text = std::fs::read_to_string(&pay).unwrap();
        elsewhere
            .write(
                "spec/pay.yaml",
                text.replacen(
                    "      Released: Released.\n",
                    "      Released: Released.\n      Held: Held on request.\n",
                    1,
                ),
            )
            .unwrap();
        scratch.out().remove_all(SPEC_DIR).unwrap();
        std::os::unix::fs::symlink(outside.path().join("spec"), scratch.path(SPEC_DIR)).unwrap();
        let before = snapshot(outside.path());
        let (code, stdout, stderr) = run_cli(&[command], &scratch.root);
        assert_eq!(
            snapshot(outside.path()),
            before,
            "{command} (exit {code}) wrote into the folder the spec/ link points to: {stdout}{stderr}"
        );
    }
}

// ---- generated code: spec text is never code ----

/// Text that breaks out of every Rust context it could be pasted in, each fragment carrying
/// the marker `PWNED` (upper case: no case conversion of a name keeps it).
fn breakout() -> impl Strategy<Value = String> {
    let fragments = vec![
        "\"PWNED\"",
        "\\\"); PWNED(); (\"",
        "*/ PWNED /*",
        "\"] PWNED #[doc = \"",
        "{PWNED}",
        "{0} PWNED {}",
        "r#\"PWNED\"#",
        "\"# PWNED r#\"",
        "'PWNED'",
        "`PWNED`",
        "\\PWNED\\",
        "PWNED\nfn pwned() {}",
        "<script>PWNED</script>",
        "$PWNED",
        "// PWNED",
        "/// PWNED",
        "PWNED }",
        "é PWNED ✓",
    ];
    prop::collection::vec(prop::sample::select(fragments), 1..4)
        .prop_map(|parts| format!("Zq {}", parts.join(" ")))
}

/// The generated Rust files of a scratch (the client's and the fake's shapes).
fn generated_rust(scratch: &Scratch) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for dir in [GENERATED_DIR, marketplace_codegen::FAKE_SHAPES_DIR] {
        let Ok(entries) = std::fs::read_dir(scratch.path(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path, text));
            }
        }
    }
    files
}

const FORMAT_MACROS: &[&str] = &[
    "format",
    "format_args",
    "write",
    "writeln",
    "print",
    "println",
    "eprint",
    "eprintln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
];

/// Every occurrence of `PWNED` in generated code: how many are inside literal tokens, and the
/// format strings holding it with braces that are not escaped.
fn literal_occurrences(
    stream: proc_macro2::TokenStream,
    in_literals: &mut usize,
    formats: &mut Vec<String>,
) {
    let tokens: Vec<proc_macro2::TokenTree> = stream.into_iter().collect();
    for (at, token) in tokens.iter().enumerate() {
        match token {
            proc_macro2::TokenTree::Literal(literal) => {
                *in_literals += literal.to_string().matches("PWNED").count();
            }
            proc_macro2::TokenTree::Group(group) => {
                let is_format = at >= 2
                    && matches!(&tokens[at - 1], proc_macro2::TokenTree::Punct(p) if p.as_char() == '!')
                    && matches!(&tokens[at - 2], proc_macro2::TokenTree::Ident(i) if FORMAT_MACROS.contains(&i.to_string().as_str()));
                if is_format {
                    for inner in group.stream() {
                        if let proc_macro2::TokenTree::Literal(literal) = inner {
                            let text = literal.to_string();
                            let bare = text.replace("{{", "").replace("}}", "");
                            if text.contains("PWNED") && (bare.contains('{') || bare.contains('}'))
                            {
                                formats.push(text);
                            }
                            break;
                        }
                    }
                }
                literal_occurrences(group.stream(), in_literals, formats);
            }
            _ => {}
        }
    }
}

/// Runs codegen in `scratch`; on success, checks that spec text stayed text: every generated
/// file parses, every `PWNED` is inside a literal (a doc attribute, a string), none is in a
/// format string with live braces, the export is JSON; `PWNED` must reach the output. On
/// refusal, the error is located (`spec/<file>.yaml:line:column`).
fn assert_text_stays_text(scratch: &Scratch, what: &str) -> Result<(), TestCaseError> {
    let (code, stdout, stderr) = run_cli(&["codegen"], &scratch.root);
    if code == 2 {
        let located = stderr.lines().any(|line| {
            let line = line.trim_start_matches("error: ");
            line.starts_with("spec/")
                && line
                    .split(':')
                    .nth(1)
                    .is_some_and(|n| n.parse::<u32>().is_ok())
                && line
                    .split(':')
                    .nth(2)
                    .is_some_and(|n| n.parse::<u32>().is_ok())
        });
        prop_assert!(located, "{what}: refused without a location: {stderr}");
        return Ok(());
    }
    prop_assert_eq!(code, 0, "{}: {}{}", what, stdout, stderr);
    let mut total = 0;
    for (path, text) in generated_rust(scratch) {
        if let Err(error) = syn::parse_file(&text) {
            prop_assert!(false, "{what}: {} does not parse: {error}", path.display());
        }
        let stream = proc_macro2::TokenStream::from_str(&text).unwrap();
        let (mut in_literals, mut formats) = (0, Vec::new());
        literal_occurrences(stream, &mut in_literals, &mut formats);
        let in_text = text.matches("PWNED").count();
        total += in_text;
        prop_assert_eq!(
            in_literals,
            in_text,
            "{}: {} holds spec text outside literals",
            what,
            path.display()
        );
        prop_assert!(
            formats.is_empty(),
            "{what}: {}: spec text in a format string: {formats:?}",
            path.display()
        );
    }
    prop_assert!(total > 0, "{what}: the text reached no generated file");
    let export = std::fs::read_to_string(scratch.path("spec/openapi.json")).unwrap();
    prop_assert!(
        serde_json::from_str::<serde_json::Value>(&export).is_ok(),
        "{what}: the export is not JSON"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// SECURITY.md, generated code: "spec text is never code ... text goes into literals and
    /// doc attributes". Text built to break out of a string, a doc comment, a block comment,
    /// a raw string, an attribute or a format string, put at once in every free-text position
    /// (an enum's doc, a value's doc, a field's doc, a method's doc, a parameter's doc, an
    /// error code's doc, a field's `optional:` reason): codegen either refuses it, located, or
    /// generates files that parse, with the text only inside literals.
    #[test]
    fn hostile_text_in_every_text_position_stays_inside_literals(text in breakout()) {
        let scratch = Scratch::new();
        let quoted = serde_json::to_string(&text).unwrap();
        let edits: [(&str, &str, String); 8] = [
            ("spec/pay.yaml", "    doc: Type of an invoice. Only the value Invoice occurs; the complete set is not shown.\n", format!("    doc: {quoted}\n")),
            ("spec/pay.yaml", "      Invoice: An invoice.\n", format!("      Invoice: {quoted}\n")),
            ("spec/pay.yaml", "        doc: Timesheet ID.\n", format!("        doc: {quoted}\n")),
            ("spec/pay.yaml", "    doc: All timesheets of a project in progress, paged.\n", format!("    doc: {quoted}\n")),
            ("spec/pay.yaml", "        doc: Results per page; the service answers a larger value with the cap.\n", format!("        doc: {quoted}\n")),
            ("spec/api.yaml", "    doc: Neither id nor bidId was supplied.\n", format!("    doc: {quoted}\n")),
            ("spec/pay.yaml", "      client:\n        type: string\n", format!("      zqExtra:\n        type: string\n        optional: {quoted}\n        doc: {quoted}\n      client:\n        type: string\n")),
            ("spec/pay.yaml", "      Released: Released.\n", format!("      Released: {quoted}\n")),
        ];
        for (file, from, to) in &edits {
            scratch.edit(file, from, to);
        }
        assert_text_stays_text(&scratch, &format!("{text:?}"))?;
    }

    /// SECURITY.md, generated code: "every name that becomes an identifier ... is checked with
    /// a located error ...; text goes into literals". Wire strings (an enum value the service
    /// sends, a field's JSON key) that hold quotes, backslashes, braces and comment openers
    /// become both a Rust name (converted) and a literal (the serde name): refused with a
    /// location, or generated with the text only inside literals.
    #[test]
    fn hostile_wire_strings_are_refused_located_or_stay_inside_literals(text in breakout(), key in any::<bool>()) {
        let scratch = Scratch::new();
        let quoted = serde_json::to_string(&text).unwrap();
        if key {
            scratch.edit(
                "spec/pay.yaml",
                "      client:\n        type: string\n",
                &format!("      {quoted}:\n        type: string\n        optional: Sometimes.\n        doc: A hostile key.\n      client:\n        type: string\n"),
            );
        } else {
            scratch.edit(
                "spec/pay.yaml",
                "      Released: Released.\n",
                &format!("      Released: Released.\n      {quoted}: A hostile value.\n"),
            );
        }
        assert_text_stays_text(&scratch, &format!("{text:?} as a {}", if key { "key" } else { "value" }))?;
    }
}
