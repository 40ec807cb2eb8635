//! The tools on hostile inputs, through their real entry points: spec directories holding a
//! device, a FIFO, a link out or a huge sparse file; revisions that look like options; nothing
//! to audit; and untrusted text, generated, that must reach no terminal as control characters.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use marketplace_client::files::OutputDir;
use proptest::prelude::*;
use xtask::cli::{self, Output};
use xtask::codegen::{self, SPEC_DIR};
use xtask::{spec_audit, spec_diff, wire_audit};

mod fixture_files;
mod scratch;
use scratch::Scratch;

/// Each hostile entry a pull request could put in `spec/`, made in `dir`: its file name and
/// the words its refusal must say.
fn plant(dir: &Path, kind: usize) -> (&'static str, &'static str) {
    match kind {
        0 => {
            std::os::unix::fs::symlink("/dev/zero", dir.join("zz-zero.yaml")).unwrap();
            ("zz-zero.yaml", "outside")
        }
        1 => {
            let fifo = dir.join("zz-fifo.yaml");
            assert!(
                Command::new("mkfifo")
                    .arg(&fifo)
                    .status()
                    .unwrap()
                    .success()
            );
            ("zz-fifo.yaml", "a FIFO")
        }
        2 => {
            let outside = dir.parent().unwrap().join("outside.yaml");
            OutputDir::open(dir.parent().unwrap())
                .unwrap()
                .write("outside.yaml", "types: {}\n")
                .unwrap();
            std::os::unix::fs::symlink(&outside, dir.join("zz-away.yaml")).unwrap();
            ("zz-away.yaml", "outside")
        }
        _ => {
            let out = OutputDir::open(dir).unwrap();
            let mut sparse = out.pending("zz-sparse.yaml").unwrap();
            sparse.set_len(2 << 30).unwrap();
            sparse.publish().unwrap();
            ("zz-sparse.yaml", "more than")
        }
    }
}

/// A recording that agrees with nothing in particular: one answer of a method.
fn recording_line(body: &serde_json::Value) -> String {
    serde_json::json!({
        "format": "marketplace-recording/1",
        "side": "server",
        "time": "2024-01-01T00:00:00Z",
        "method": "pay/getTimesheet",
        "http_method": "GET",
        "path": "/api/pay/getTimesheet",
        "status": 200,
        "body": body.to_string(),
    })
    .to_string()
}

#[test]
fn hostile_spec_files_are_refused_by_every_command_naming_the_file() {
    for kind in 0..4 {
        let scratch = Scratch::new();
        let spec = scratch.path(SPEC_DIR);
        let (name, words) = plant(&spec, kind);
        let recording = scratch.path("one.jsonl");
        scratch.write("one.jsonl", &recording_line(&serde_json::json!({})));
        let errors = [
            codegen::check(&scratch.root).unwrap_err().to_string(),
            spec_audit::run(
                &scratch.root,
                &spec_audit::Options {
                    reference: Some(codegen::workspace_root().join(spec_audit::SNAPSHOT_REFERENCE)),
                },
            )
            .unwrap_err()
            .to_string(),
            wire_audit::run(
                &scratch.root,
                &wire_audit::Options::parse(&[recording.to_str().unwrap()]).unwrap(),
            )
            .unwrap_err()
            .to_string(),
        ];
        for error in errors {
            assert!(error.contains(name), "{name}: {error}");
            assert!(error.contains(words), "{name}: {error}");
        }
    }
}

#[test]
fn nothing_to_audit_is_an_error_saying_what_was_looked_at() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    let empty_file = dir.path().join("empty.jsonl");
    out.write("empty.jsonl", "\n\n").unwrap();
    let empty_dir = dir.path().join("nothing");
    out.subdir("nothing").unwrap();
    let other_dir = dir.path().join("other");
    out.write("other/notes.txt", "not a recording").unwrap();
    for (path, says) in [
        (
            &empty_file,
            "read 4 spec files, 1 recording file, 0 exchanges; judged nothing",
        ),
        (
            &empty_dir,
            "(a directory of 0 .jsonl files); read 4 spec files, 0 recording files",
        ),
        (
            &other_dir,
            "(a directory of 0 .jsonl files); read 4 spec files, 0 recording files",
        ),
    ] {
        let args: Vec<String> = ["wire-audit", path.to_str().unwrap()]
            .map(str::to_owned)
            .to_vec();
        let (code, _, err) = run_cli(&args, &codegen::workspace_root());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("wire-audit: nothing to judge"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// A scratch repository with the spec committed twice (the second commit with `subject`).
fn repo(subject: &str) -> Scratch {
    let scratch = Scratch::new();
    let git = |args: &[&str]| fixture_files::git(&scratch.root, args);
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "first"]);
    scratch.edit(
        "spec/pay.yaml",
        "      Released: Released.\n",
        "      Released: Released.\n      Held: Held.\n",
    );
    git(&["commit", "-q", "-a", "-m", subject]);
    scratch
}

/// Every file under `dir`, recursively (`.git` included: git must write nothing either).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                stack.push(path.clone());
            }
            files.push(path);
        }
    }
    files.sort();
    files
}

fn hostile_revision() -> impl Strategy<Value = String> {
    prop_oneof![
        "--output=[a-z]{1,8}",
        "--exec=[a-z]{1,8}",
        "-[a-zA-Z-]{1,12}(=[a-z./]{0,8})?",
        "HEAD\\.\\.[a-z]{0,6}",
        "[a-z]{0,4}@\\{[^}]{0,6}\\}x",
        "[a-z]{1,4} [a-z -]{1,8}",
        "[^\\x00]{1,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// A revision is verified before git reads anything with it: whatever it says, it is a
    /// clear error and no file appears anywhere.
    #[test]
    fn a_hostile_revision_is_an_error_and_writes_nothing(rev in hostile_revision(), head in any::<bool>()) {
        let scratch = repo("second");
        let cwd = std::env::current_dir().unwrap();
        let (before, cwd_before) = (files_under(&scratch.root), files_under(&cwd));
        let options = spec_diff::Options {
            base: Some(if head { "HEAD".to_owned() } else { rev.clone() }),
            head: head.then(|| rev.clone()),
            format: spec_diff::Format::Text,
            fail_on: spec_diff::FailOn::Nothing,
        };
        match spec_diff::run(&scratch.root, &options) {
            Err(spec_diff::SpecDiffError::Git(error)) => {
                prop_assert!(error.to_string().contains("names no commit"), "{error}");
            }
            // Some hostile-looking text is a revision after all (`HEAD@{0}x`? no; `@{-1}`…).
            Ok(_) => {}
            Err(other) => prop_assert!(false, "{rev:?}: {other}"),
        }
        prop_assert_eq!(files_under(&scratch.root), before);
        prop_assert_eq!(files_under(&cwd), cwd_before);
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Untrusted text with control characters (ESC sequences, CR, C1, bidirectional-text
    /// controls), through each command's report or error, and as arguments through clap's
    /// errors (unknown commands, options and values): none reaches the output.
    #[test]
    fn no_control_character_reaches_the_output(text in "[a-z]{0,3}(\\x1b\\[[0-9;]{0,4}[a-zA-Z]|[\\x01-\\x08\\x0b-\\x1f\\x7f\\u{80}-\\u{9f}\\u{200e}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}])[a-z\\x1b\\r\\u{2067}]{0,6}") {
        let scratch = repo(&format!("subject {text}"));
        let root = scratch.root.clone();
        let recording = scratch.path("hostile.jsonl");
        let body = serde_json::json!({"api": text, "apiVersion": 1, "rcode": 1, "data": {text.clone(): text}});
        scratch.write("hostile.jsonl", &recording_line(&body));
        let hostile_name = format!("{SPEC_DIR}/{}.yaml", text.replace('/', "_"));
        let runs: Vec<Vec<String>> = vec![
            vec!["spec-diff".into(), "--base".into(), "HEAD~1".into(), "--head".into(), "HEAD".into()],
            vec!["spec-diff".into(), "--base".into(), text.clone()],
            vec!["spec-audit".into(), "--reference".into(), text.clone()],
            vec!["wire-audit".into(), recording.display().to_string()],
            vec!["wire-audit".into(), text.clone()],
            vec!["target-dir".into(), "--manifest-path".into(), text.clone()],
            vec!["codegen".into(), "--check".into()],
        ];
        // Arguments clap refuses, quoting them in its error (escaped on the way out).
        let refused: Vec<Vec<String>> = vec![
            vec![text.clone()],
            vec![format!("spec-dif{text}")],
            vec![format!("--{text}")],
            vec!["help".into(), text.clone()],
            vec!["spec-diff".into(), format!("--{text}")],
            vec!["spec-diff".into(), "--format".into(), text.clone()],
            vec!["spec-diff".into(), "--fail-on".into(), text.clone()],
            vec!["wire-audit".into(), format!("--propose{text}"), recording.display().to_string()],
            vec!["codegen".into(), text.clone()],
        ];
        let shown = marketplace_codegen::text::escape_controls(&text).into_owned();
        for (i, args) in runs.iter().chain(&refused).enumerate() {
            if i == runs.len() - 1 {
                // A spec file whose name holds the text.
                scratch.write(&hostile_name, "doc: x\n");
            }
            let (code, out, err) = run_cli(args, &root);
            for printed in [&out, &err] {
                let control = printed.chars().find(|c| marketplace_codegen::text::is_control(*c));
                prop_assert!(control.is_none(), "{args:?} printed {control:?}: {printed}");
            }
            if i >= runs.len() {
                prop_assert_eq!(code, 2, "{:?}: {}", args, err);
                prop_assert!(out.is_empty(), "{:?}: {}", args, out);
                prop_assert!(err.contains(&shown), "{:?}: {} in {}", args, shown, err);
            }
        }
    }
}

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

#[test]
fn a_link_or_a_submodule_in_spec_at_a_revision_is_refused() {
    let scratch = repo("second");
    let git = |args: &[&str]| fixture_files::git(&scratch.root, args);
    std::os::unix::fs::symlink("/dev/zero", scratch.path("spec/zz.yaml")).unwrap();
    git(&["add", "spec/zz.yaml"]);
    git(&["commit", "-q", "-m", "a link"]);
    let options = spec_diff::Options::parse(&["--base", "HEAD~1", "--head", "HEAD"]).unwrap();
    let error = spec_diff::run(&scratch.root, &options)
        .unwrap_err()
        .to_string();
    assert!(error.contains("spec/zz.yaml"), "{error}");
    assert!(error.contains("a symbolic link"), "{error}");
    git(&["rm", "-q", "spec/zz.yaml"]);
    let head = git(&["rev-parse", "HEAD"]);
    git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},spec/sub.yaml", head.trim()),
    ]);
    git(&["commit", "-q", "-m", "a submodule"]);
    let options = spec_diff::Options::parse(&["--base", "HEAD~2", "--head", "HEAD"]).unwrap();
    let error = spec_diff::run(&scratch.root, &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("spec/sub.yaml") && error.contains("a submodule"),
        "{error}"
    );
}

/// The recording reader and the walk on megabytes of hostile answers: many unknown keys,
/// thousands of error codes, long values. Every unknown key is one finding.
#[test]
fn megabytes_of_hostile_recordings_are_audited_whole() {
    const CODES: usize = 40_000;
    let dir = tempfile::tempdir().unwrap();
    let keys = 20_000;
    let data: serde_json::Map<String, serde_json::Value> = (0..keys)
        .map(|i| {
            (
                format!("unknown{i}"),
                serde_json::Value::String("x".repeat(64)),
            )
        })
        .collect();
    let body =
        serde_json::json!({"api": "pay/getTimesheet", "apiVersion": 1, "rcode": 1, "data": data});
    let codes: Vec<serde_json::Value> = (0..CODES)
        .map(|i| serde_json::json!({"code": format!("E_HOSTILE_{i}")}))
        .collect();
    let error_body = serde_json::json!({"rcode": 0, "errors": codes});
    let mut lines = recording_line(&body);
    lines.push('\n');
    let mut error_line: serde_json::Value =
        serde_json::from_str(&recording_line(&error_body)).unwrap();
    error_line["status"] = serde_json::json!(400);
    lines.push_str(&error_line.to_string());
    assert!(lines.len() > 2 << 20, "{} bytes", lines.len());
    let recording = dir.path().join("hostile.jsonl");
    OutputDir::open(dir.path())
        .unwrap()
        .write("hostile.jsonl", lines)
        .unwrap();
    let options = wire_audit::Options::parse(&[recording.to_str().unwrap()]).unwrap();
    let outcome = wire_audit::run(&codegen::workspace_root(), &options).unwrap();
    let kinds = |kind| {
        outcome
            .audit
            .findings
            .iter()
            .filter(|f| f.kind == kind)
            .count()
    };
    use marketplace_codegen::wire_audit::FindingKind;
    assert_eq!(kinds(FindingKind::UnknownField), keys);
    assert_eq!(kinds(FindingKind::UndeclaredError), CODES);
}
