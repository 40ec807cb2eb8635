//! Red team 18: the files the project's tools write, and what they print.
//!
//! Black box: every command is run through the public `xtask::cli::run` against a scratch copy
//! of the workspace (below the target directory's `tmp/red-team18/`), never against the real
//! `spec/` or generated code (`spec-diff` with hostile revisions reads the real history and
//! writes nothing). Interruption is a child process (this test binary re-executed with
//! `RED_TEAM18_CHILD_*` set) killed with SIGKILL: once after a random moment of the run, then
//! as soon as an output folder's entries change plus a random spin of 0 to 3 ms
//! (`RED_TEAM18_SEED=n` reruns one seed).
//!
//! 1. Nothing half-written is left behind.
//!    SECURITY.md, "files the tools write (codegen, `wire-audit --propose-into`, …)": "only where
//!    asked, never half-written: nothing outside the directory named changes, whatever links
//!    stand below it; a file appears whole or not at all"; "on failure nothing is left (no
//!    temporary file, no directory the write made, the old file whole)". Known limits: "a
//!    process *killed* between two renames can leave some new files in place and an old one
//!    under a `.old-…` name. Accepted: … every file is still whole (old or new), and `cargo
//!    xtask codegen --check` shows the mixed state, which `cargo xtask codegen` repairs by
//!    regenerating"; "Never under the destination's name, never half-written there … the name
//!    is one nothing reads". `xtask::openapi::html`: "a failed render leaves DIR as it was".
//!    - `codegen_killed_at_random_moments_leaves_every_file_old_or_new`,
//!      `openapi_killed_at_random_moments_leaves_the_export_old_or_new`,
//!      `propose_into_killed_at_random_moments_leaves_every_file_old_or_new`,
//!      `openapi_html_killed_at_random_moments_leaves_the_page_old_or_new`: after each kill,
//!      every path of both the old and the new tree holds the old or the new bytes (present),
//!      any other file is whole and under a name no reader takes; the command run again leaves
//!      exactly the new tree ("repairs") and its `--check` passes.
//!    - `codegen_whose_generated_folder_is_a_file_changes_nothing`,
//!      `codegen_whose_fake_folder_is_a_link_out_changes_nothing_outside_or_inside`,
//!      `codegen_whose_export_is_an_empty_directory_changes_nothing` ("a set of files
//!      (codegen's) changes whole or not at all"; "a link on the way refused").
//!    - `propose_into_a_bad_target_is_an_input_error_that_writes_nothing` (a file, a parent
//!      that is a file, a link to a file, `/dev/null`; a link typed is the user's; a link
//!      planted at a destination "is replaced, never followed"),
//!      `propose_into_odd_names_writes_exactly_there` (spaces, leading dash, unicode, control
//!      and bidi characters, bytes that are not UTF-8), `openapi_html_into_odd_and_bad_targets`.
//!    - `codegen_keeps_files_it_did_not_generate` (docs/changing-the-spec.md: "removes
//!      generated files the spec no longer produces").
//! 2. Bad input is a typed error with the documented exit code; nothing panics; nothing prints
//!    a control character. docs/commands.md: "| 2 | a usage or input error, including having
//!    had nothing to judge |"; "Nothing a command prints (its reports, clap's own errors
//!    quoting an argument) carries a control character to the terminal." SECURITY.md: "the
//!    tools must not be made to read without bound, run an option, write a file, panic or print
//!    a control sequence"; `xtask::cli`: "no control character (ESC, CR, other C0 and C1
//!    controls, bidirectional-text controls) reaches a terminal or a CI log from any command".
//!    - `hostile_arguments_to_every_command_exit_2_with_clean_output` (every command and
//!      option, ten control and bidi characters, bytes that are not UTF-8),
//!      `hostile_recorded_text_reaches_no_terminal_through_the_audit_or_its_proposals`
//!      (proptest: keys, values, method and file names of a recording),
//!      `hostile_reference_text_reaches_no_terminal_through_spec_audit`,
//!      `hostile_spec_file_names_reach_no_terminal`,
//!      `recorded_fields_of_any_name_and_value_are_findings_never_a_panic` (proptest: YAML-hostile
//!      field names and JSON values through `--propose-into`).
//!    - `a_fifo_where_a_tool_reads_a_file_is_refused_not_waited_on` (SECURITY.md: "committed
//!      generated files, `spec/README.md`, API snapshots | bounded reads"; the reference "≤ 4 MiB
//!      regular file"; spec files "regular files only").
//!    - `a_readme_with_broken_markers_is_never_passed_over` (`xtask::codegen`: "the part of
//!      `spec/README.md` the generator decides (…, between markers)"; docs/changing-the-spec.md:
//!      "`cargo xtask codegen --check` … fails with a unified diff and the fixing command when
//!      the committed files are stale"; SECURITY.md: "nothing judged is not a pass").
//! 3. Nothing outside the named output directory or the workspace is written: every writer case
//!    compares the case folder (the workspace and an `outside/` beside it) before and after;
//!    `judging_commands_write_nothing_not_even_the_git_index` (docs/reviewing-spec-changes.md:
//!    spec-diff "reads both revisions with git (nothing is written)"; `xtask::spec_audit`:
//!    "Nothing is written.") in a repository whose index is stale.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fixture_files;
use fixture_files::git;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use marketplace_client::files::{FileError, OutputDir};
use proptest::prelude::*;

// Every write of the cases' setup goes through the project's one writer (clippy.toml).

fn split(path: &Path) -> (&Path, &std::ffi::OsStr) {
    (path.parent().unwrap(), path.file_name().unwrap())
}

fn put(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
    let (folder, name) = split(path.as_ref());
    OutputDir::create(folder)?.write(name, bytes)
}

fn mkdirs(path: impl AsRef<Path>) -> Result<(), FileError> {
    OutputDir::create(path.as_ref()).map(drop)
}

fn rm(path: impl AsRef<Path>) -> Result<(), FileError> {
    let (folder, name) = split(path.as_ref());
    OutputDir::open(folder)?.remove(name)
}

fn rm_all(path: impl AsRef<Path>) -> Result<(), FileError> {
    let (folder, name) = split(path.as_ref());
    OutputDir::open(folder)?.remove_all(name)
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What the scratch copy leaves out: build output, history, and test trees no command reads.
const SKIPPED: [&str; 8] = [
    "target",
    ".git",
    "tests/fuzz",
    "xtask/tests",
    "tests/tests",
    "codegen/tests",
    "tests/fake/tests",
    "node_modules",
];

fn copy_tree(from: &Path, to: &Path, rel: &str, skip: bool) {
    mkdirs(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name_text = name.to_string_lossy().into_owned();
        let rel_child = if rel.is_empty() {
            name_text.clone()
        } else {
            format!("{rel}/{name_text}")
        };
        if skip && SKIPPED.contains(&rel_child.as_str()) {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(&name), &rel_child, skip);
        } else if kind.is_file() {
            put(to.join(&name), fs::read(entry.path()).unwrap()).unwrap();
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), to.join(&name))
                .unwrap();
        }
    }
}

fn scratch_base() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
        .join("tmp")
        .join("red-team18");
    mkdirs(&base).unwrap();
    base
}

/// A folder below the scratch base: `ws/` (a copy of the workspace) and room beside it.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("case-")
        .tempdir_in(scratch_base())
        .unwrap()
}

fn scratch_workspace(case: &Path) -> PathBuf {
    let ws = case.join("ws");
    copy_tree(&workspace(), &ws, "", true);
    ws
}

#[derive(Debug)]
struct Ran {
    /// `None`: the command panicked.
    code: Option<u8>,
    out: String,
    err: String,
}

impl Ran {
    fn text(&self) -> String {
        format!(
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.out, self.err
        )
    }

    /// Notes in `failures`, under `label`, a control character the run printed.
    fn note_control(&self, label: &str, failures: &mut Vec<String>) {
        if let Some((_, c)) = control_in(&self.out).or(control_in(&self.err)) {
            failures.push(format!(
                "{label}: the output carries U+{:04X}: {}",
                c as u32,
                self.text().escape_debug()
            ));
        }
    }
}

/// Fails with every failure noted, if any.
fn report(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn run(args: &[OsString], root: &Path) -> Ran {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = {
        let mut output = xtask::cli::Output::new(&mut out, &mut err);
        catch_unwind(AssertUnwindSafe(|| {
            xtask::cli::run(args.to_vec(), root, &mut output)
        }))
        .ok()
    };
    let ran = Ran {
        code,
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&err).into_owned(),
    };
    if std::env::var_os("RED_TEAM18_SHOW").is_some() {
        eprintln!(
            "=== {args:?}\n{}",
            ran.text().escape_debug().to_string().replace("\\n", "\n")
        );
    }
    ran
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// The characters a terminal or a log reader acts on: every C0 control but the line feed, DEL,
/// every C1 control, and the bidirectional-text controls.
fn control_in(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

fn assert_clean(ran: &Ran, what: &str) {
    for (channel, text) in [("stdout", &ran.out), ("stderr", &ran.err)] {
        if let Some((at, c)) = control_in(text) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(i, _)| i);
            panic!(
                "{what}: {channel} carries the control character {:?} (U+{:04X}) after {:?}\n{}",
                c,
                c as u32,
                &text[from..at],
                ran.text().escape_debug()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Trees: every regular file below a folder, by relative path, and the links and folders.

#[derive(Debug, Clone, PartialEq)]
enum Node {
    File(Vec<u8>),
    Dir,
    Link(PathBuf),
}

type Tree = BTreeMap<PathBuf, Node>;

/// Whether the file at `path` holding `bytes` is whole (some file of its folder, old or new),
/// and whether its name is one a reader takes (by its extension).
fn whole_and_read(path: &Path, bytes: &[u8], old: &Tree, new: &Tree) -> (bool, bool) {
    let folder = path.parent();
    let whole = old
        .iter()
        .chain(new.iter())
        .any(|(p, n)| p.parent() == folder && matches!(n, Node::File(b) if b == bytes));
    let name = path.to_string_lossy();
    let read = [".yaml", ".rs", ".json", ".jsonl", ".md", ".html"]
        .iter()
        .any(|extension| name.ends_with(extension));
    (whole, read)
}

fn tree(root: &Path) -> Tree {
    fn walk(dir: &Path, rel: &Path, into: &mut Tree) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let rel_child = rel.join(entry.file_name());
            let kind = entry.file_type().unwrap();
            // A workspace's build directory: the tools install and run their helpers there
            // (Redocly CLI, its scratch page), by design; it is no output a user named.
            if kind.is_dir() && entry.file_name() == "target" && dir.join("Cargo.toml").is_file() {
                continue;
            }
            if kind.is_symlink() {
                into.insert(rel_child, Node::Link(fs::read_link(entry.path()).unwrap()));
            } else if kind.is_dir() {
                into.insert(rel_child.clone(), Node::Dir);
                walk(&entry.path(), &rel_child, into);
            } else {
                into.insert(
                    rel_child,
                    Node::File(fs::read(entry.path()).unwrap_or_default()),
                );
            }
        }
    }
    let mut into = Tree::new();
    walk(root, Path::new(""), &mut into);
    into
}

fn tree_difference(before: &Tree, after: &Tree) -> Vec<String> {
    let mut differences = Vec::new();
    for (path, node) in before {
        match after.get(path) {
            None => differences.push(format!("{} removed", path.display())),
            Some(other) if other != node => differences.push(format!("{} changed", path.display())),
            _ => {}
        }
    }
    for path in after.keys() {
        if !before.contains_key(path) {
            differences.push(format!("{} added", path.display()));
        }
    }
    differences
}

// ---------------------------------------------------------------------------------------------
// Interruption: a child runs one command against a scratch root and is killed at a moment.

const CHILD_ROOT: &str = "RED_TEAM18_CHILD_ROOT";
const CHILD_ARGS: &str = "RED_TEAM18_CHILD_ARGS";

/// In the child: runs the command it was given and exits with its code (101 on a panic).
fn act_as_child() {
    if let Some(root) = std::env::var_os(CHILD_ROOT) {
        let args: Vec<OsString> = std::env::var(CHILD_ARGS)
            .unwrap()
            .split('\u{1f}')
            .map(|a| OsString::from(a.replace("{ROOT}", &root.to_string_lossy())))
            .collect();
        let ran = run(&args, Path::new(&root));
        std::process::exit(i32::from(ran.code.unwrap_or(101)));
    }
}

fn child(test: &str, root: &Path, args: &[String]) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env(CHILD_ROOT, root)
        .env(CHILD_ARGS, args.join("\u{1f}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

fn seed() -> u64 {
    std::env::var("RED_TEAM18_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
}

fn next(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64) / ((1u64 << 53) as f64)
}

/// Runs `args` undisturbed on a copy of `old` to learn the new tree, then `kills` times on fresh
/// copies, each killed with SIGKILL after a random delay within the undisturbed run's length;
/// after each kill, every file at a path of the old or new tree holds the old or the new bytes
/// whole, any other file is whole (the bytes of an old or new file of its folder) and under a
/// name nothing reads, and running the command again repairs the tree to the new one.
/// `watched` are the folders compared (relative to the case folder); the rest must not change.
fn kill_at_random_moments(
    test: &str,
    old: &Path,
    args: &[String],
    kills: usize,
    check: &[&str],
    watched: &[&str],
) {
    let case = old.parent().unwrap();
    let outside_before = tree(&case.join("outside"));
    let expected = case.join("expected");
    copy_tree(old, &expected, "", false);
    let started = Instant::now();
    let status = child(test, &expected, args).status().unwrap();
    let length = started.elapsed();
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "the undisturbed run of {args:?} failed: {status:?}"
    );
    let old_tree = tree(old);
    let new_tree = tree(&expected);
    assert_ne!(
        old_tree, new_tree,
        "the undisturbed run of {args:?} changed nothing to interrupt"
    );
    let seed = seed();
    let mut state = seed;
    let mut failures = Vec::new();
    for kill in 0..kills {
        let victim = case.join(format!("killed-{kill}"));
        copy_tree(old, &victim, "", false);
        // Stratified over the run's length, and a little beyond it.
        let fraction = (kill as f64 + next(&mut state)) / kills as f64;
        let delay = length.mul_f64(fraction * 1.1);
        let started_at = Instant::now();
        let mut process = child(test, &victim, args).spawn().unwrap();
        let how = if kill == 0 {
            // A moment of the run, most likely before anything is written.
            std::thread::sleep(delay);
            format!("after {delay:?}")
        } else {
            // As soon as a watched folder's entries change (a staged file, a rename), then a
            // random spin of up to a few milliseconds.
            let listing = |root: &Path| -> Vec<(OsString, u64)> {
                use std::os::unix::fs::DirEntryExt;
                let mut all = Vec::new();
                for folder in watched {
                    if let Ok(entries) = fs::read_dir(root.join(folder)) {
                        all.extend(
                            entries
                                .filter_map(Result::ok)
                                .map(|e| (e.file_name(), e.ino())),
                        );
                    }
                }
                all.sort();
                all
            };
            let first = listing(&victim);
            let watching = Instant::now();
            while listing(&victim) == first
                && process.try_wait().unwrap().is_none()
                && watching.elapsed() < length * 4
            {}
            let spin = Duration::from_micros(
                (next(&mut state) * [0.0, 30.0, 300.0, 3000.0][kill % 4]) as u64,
            );
            let spinning = Instant::now();
            while spinning.elapsed() < spin {}
            format!(
                "{spin:?} after the first change, {:?} in",
                started_at.elapsed()
            )
        };
        let _ = process.kill();
        let status = process.wait().unwrap();
        let after = tree(&victim);
        let what =
            format!("seed {seed}, kill {kill} {how} (the undisturbed run: {length:?}; {status:?})");
        let changed = new_tree
            .iter()
            .filter(|(p, n)| old_tree.get(*p) != Some(*n) && after.get(*p) == Some(*n))
            .count();
        let stray: Vec<_> = after
            .keys()
            .filter(|p| !old_tree.contains_key(*p) && !new_tree.contains_key(*p))
            .collect();
        let gone: Vec<_> = old_tree
            .keys()
            .filter(|p| !after.contains_key(*p))
            .collect();
        eprintln!("{what}: {changed} files new, others: {stray:?}, gone: {gone:?}");
        for (path, node) in &after {
            match (old_tree.get(path), new_tree.get(path)) {
                (None, None) => {
                    let Node::File(bytes) = node else {
                        failures.push(format!("{what}: {} left behind: {node:?}", path.display()));
                        continue;
                    };
                    let (whole, read) = whole_and_read(path, bytes, &old_tree, &new_tree);
                    if !whole || read {
                        failures.push(format!(
                            "{what}: {} left behind ({} bytes, whole: {whole}, under a name a reader takes: {read})",
                            path.display(),
                            bytes.len()
                        ));
                    }
                }
                (old_node, new_node) => {
                    if Some(node) != old_node && Some(node) != new_node {
                        let shape = match node {
                            Node::File(bytes) => format!("{} bytes", bytes.len()),
                            other => format!("{other:?}"),
                        };
                        failures.push(format!(
                            "{what}: {} is neither the old nor the new file: {shape}",
                            path.display()
                        ));
                    }
                }
            }
        }
        for path in old_tree.keys() {
            if !after.contains_key(path) && new_tree.contains_key(path) {
                failures.push(format!(
                    "{what}: {} vanished: neither the old nor the new file is at its name (it is in both trees)",
                    path.display()
                ));
            }
        }
        // The documented repair: the command again, then its check.
        let root_text = victim.to_string_lossy().into_owned();
        let again_args: Vec<OsString> = args
            .iter()
            .map(|a| OsString::from(a.replace("{ROOT}", &root_text)))
            .collect();
        let again = run(&again_args, &victim);
        let repaired = tree(&victim);
        // SECURITY.md's Known limits: a file killed between its link under a random name and
        // its rename stays there, whole, under a name no reader takes; the `.old-…` links a
        // killed commit left are the repair's to remove.
        let still: Vec<_> = repaired
            .iter()
            .filter(|(p, _)| !old_tree.contains_key(*p) && !new_tree.contains_key(*p))
            .filter(|(p, n)| {
                let Node::File(bytes) = n else { return true };
                let old_link = p
                    .file_name()
                    .is_some_and(marketplace_client::files::is_left_behind);
                old_link || whole_and_read(p, bytes, &old_tree, &new_tree) != (true, false)
            })
            .map(|(p, _)| p)
            .collect();
        if !still.is_empty() {
            failures.push(format!(
                "{what}: after running the command again (the documented repair), what the killed run left is still there: {still:?}"
            ));
        }
        for (path, node) in &new_tree {
            if repaired.get(path) != Some(node) {
                failures.push(format!(
                    "{what}: after running the command again, {} is not the new file ({})",
                    path.display(),
                    again.text()
                ));
            }
        }
        for check_args in check {
            let checked = run(&os(&check_args.split(' ').collect::<Vec<_>>()), &victim);
            if checked.code != Some(0) {
                failures.push(format!(
                    "{what}: after the repair, `{check_args}`: {}",
                    checked.text()
                ));
            }
        }
        let _ = rm_all(&victim);
    }
    assert_eq!(
        tree(&case.join("outside")),
        outside_before,
        "a file outside the case changed"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Puts a marker after the first one-line `doc:` of every spec file: every generated file changes.
fn edit_docs(ws: &Path) {
    for entry in fs::read_dir(ws.join("spec")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = fs::read_to_string(&path).unwrap();
            let mut done = false;
            let edited: Vec<String> = text
                .lines()
                .map(|line| {
                    let trimmed = line.trim_start();
                    if !done
                        && line.starts_with("  ")
                        && trimmed.starts_with("doc: ")
                        && !trimmed[5..].starts_with(['>', '|'])
                    {
                        done = true;
                        line.replacen("doc: ", "doc: Red team 18 was here. ", 1)
                    } else {
                        line.to_owned()
                    }
                })
                .collect();
            put(&path, edited.join("\n") + "\n").unwrap();
        }
    }
}

/// Edits the generated part of spec/README.md (codegen writes it back).
fn stale_readme(ws: &Path) {
    let path = ws.join("spec/README.md");
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        "One row per wire spelling",
        "One stale row per wire spelling",
        1,
    );
    assert_ne!(edited, text);
    put(&path, edited).unwrap();
}

#[test]
fn codegen_killed_at_random_moments_leaves_every_file_old_or_new() {
    act_as_child();
    let case = scratch();
    mkdirs(case.path().join("outside")).unwrap();
    put(case.path().join("outside/keep.txt"), "outside").unwrap();
    let ws = scratch_workspace(case.path());
    edit_docs(&ws);
    stale_readme(&ws);
    kill_at_random_moments(
        "codegen_killed_at_random_moments_leaves_every_file_old_or_new",
        &ws,
        &["codegen".to_owned()],
        3,
        &["codegen --check", "openapi --check"],
        &[
            "generated-client/src/generated",
            "tests/fake/src/generated",
            "spec",
        ],
    );
}

#[test]
fn openapi_killed_at_random_moments_leaves_the_export_old_or_new() {
    act_as_child();
    let case = scratch();
    mkdirs(case.path().join("outside")).unwrap();
    let ws = scratch_workspace(case.path());
    edit_docs(&ws);
    kill_at_random_moments(
        "openapi_killed_at_random_moments_leaves_the_export_old_or_new",
        &ws,
        &["openapi".to_owned()],
        3,
        &["openapi --check"],
        &["spec"],
    );
}

/// The committed recording, audited against a spec that lacks a field it carries
/// (`Bid.clientCity`): one finding, whose proposal is a spec file rewritten.
fn spec_without_client_city(ws: &Path) {
    let path = ws.join("spec/api.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        "      clientCity:\n        type: string\n        optional: Present in some responses.\n        doc: Client city.\n",
        "",
        1,
    );
    assert_ne!(
        edited, text,
        "spec/api.yaml no longer declares clientCity as this test expects"
    );
    put(&path, edited).unwrap();
}

fn recording(ws: &Path) -> PathBuf {
    ws.join("tests/app/tests/recordings/workroom.jsonl")
}

#[test]
fn propose_into_killed_at_random_moments_leaves_every_file_old_or_new() {
    act_as_child();
    let case = scratch();
    mkdirs(case.path().join("outside")).unwrap();
    let ws = scratch_workspace(case.path());
    spec_without_client_city(&ws);
    // An earlier proposal: the spec as it was before the audit, in the folder.
    let into = ws.join("proposed spec");
    copy_tree(&ws.join("spec"), &into, "", false);
    put(into.join("api.yaml"), "# an earlier proposal\n").unwrap();
    let args = [
        "wire-audit".to_owned(),
        "--propose-into".to_owned(),
        "proposed spec".to_owned(),
        "tests/app/tests/recordings/workroom.jsonl".to_owned(),
    ];
    // Paths are relative to the current directory, which is the test's; make them the root's.
    let _ = recording;
    let absolute: Vec<String> = args.to_vec();
    kill_relative(
        "propose_into_killed_at_random_moments_leaves_every_file_old_or_new",
        &ws,
        &absolute,
    );
}

/// `wire-audit` reads its paths relative to the current directory: the child is run from the
/// scratch root, so each copy is audited with its own recording and folder.
fn kill_relative(test: &str, ws: &Path, args: &[String]) {
    // The child's current directory is the process's; copies differ only by root, so the
    // arguments are made absolute per copy by a placeholder the child replaces.
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains('/') || a.contains(' ') {
                format!("{{ROOT}}/{a}")
            } else {
                a.clone()
            }
        })
        .collect();
    kill_at_random_moments(test, ws, &args, 3, &[], &["proposed spec"]);
}

// ---------------------------------------------------------------------------------------------
// Targets that are not plain folders.

/// A case: a scratch workspace whose spec lacks `clientCity`, and an `outside/` beside it
/// holding a file, a folder and a file standing where a folder is asked for.
struct AuditCase {
    case: tempfile::TempDir,
    ws: PathBuf,
}

impl AuditCase {
    fn new() -> Self {
        let case = scratch();
        let outside = case.path().join("outside");
        mkdirs(outside.join("folder")).unwrap();
        put(outside.join("a file"), "a file the user keeps\n").unwrap();
        put(outside.join("folder/victim.yaml"), "victim: true\n").unwrap();
        let ws = scratch_workspace(case.path());
        spec_without_client_city(&ws);
        AuditCase { case, ws }
    }

    fn outside(&self) -> PathBuf {
        self.case.path().join("outside")
    }

    fn propose_into(&self, into: impl Into<OsString>) -> Ran {
        let mut flag = OsString::from("--propose-into=");
        flag.push(into.into());
        run(
            &[
                OsString::from("wire-audit"),
                flag,
                recording(&self.ws).into(),
            ],
            &self.ws,
        )
    }
}

#[test]
fn propose_into_a_bad_target_is_an_input_error_that_writes_nothing() {
    let audit = AuditCase::new();
    let outside = audit.outside();
    // A folder of the proposal written undisturbed, to compare with.
    let reference_dir = audit.case.path().join("reference");
    let undisturbed = audit.propose_into(&reference_dir);
    assert_eq!(undisturbed.code, Some(1), "{}", undisturbed.text());
    let proposal = tree(&reference_dir);
    assert!(
        proposal.keys().any(|p| p.ends_with("api.yaml")),
        "{proposal:?}"
    );

    let mut failures = Vec::new();
    let targets: Vec<(&str, PathBuf)> = vec![
        ("an existing regular file", outside.join("a file")),
        (
            "a path whose parent is a file",
            outside.join("a file/proposal"),
        ),
        (
            "a path whose grandparent is a file",
            outside.join("a file/deeper/proposal"),
        ),
        ("a link to a regular file", {
            let link = audit.case.path().join("link to a file");
            std::os::unix::fs::symlink(outside.join("a file"), &link).unwrap();
            link
        }),
        ("/dev/null", PathBuf::from("/dev/null")),
    ];
    for (what, target) in targets {
        let before = tree(audit.case.path());
        let null_before = fs::metadata("/dev/null").map(|m| m.file_type());
        let ran = audit.propose_into(&target);
        let after = tree(audit.case.path());
        let difference = tree_difference(&before, &after);
        if ran.code != Some(2) {
            failures.push(format!(
                "{what} ({}): exit {:?}, not 2\n{}",
                target.display(),
                ran.code,
                ran.text()
            ));
        }
        if !difference.is_empty() {
            failures.push(format!("{what}: the command changed {difference:?}"));
        }
        if null_before.ok() != fs::metadata("/dev/null").map(|m| m.file_type()).ok() {
            failures.push(format!("{what}: /dev/null is no longer what it was"));
        }
        let named = target.file_name().unwrap().to_string_lossy().into_owned();
        if ran.code == Some(2) && !ran.err.contains(&named) && !ran.out.contains(&named) {
            failures.push(format!(
                "{what}: the error does not name {named:?}: {}",
                ran.text()
            ));
        }
        assert_clean(&ran, what);
    }

    // Links: the folder typed may be a link (the user's), a link planted inside it is replaced.
    let linked = audit.case.path().join("linked");
    std::os::unix::fs::symlink(outside.join("folder"), &linked).unwrap();
    let ran = audit.propose_into(&linked);
    if ran.code != Some(1)
        || tree(&outside.join("folder")).get(Path::new("api.yaml"))
            != proposal.get(Path::new("api.yaml"))
    {
        failures.push(format!(
            "a folder typed as a link was not written through: {}",
            ran.text()
        ));
    }
    let planted = audit.case.path().join("planted");
    mkdirs(&planted).unwrap();
    for name in ["api.yaml", "pay.yaml", "manage.yaml", "workroom.yaml"] {
        std::os::unix::fs::symlink(outside.join("folder/victim.yaml"), planted.join(name)).unwrap();
    }
    let ran = audit.propose_into(&planted);
    if fs::read_to_string(outside.join("folder/victim.yaml")).unwrap() != "victim: true\n" {
        failures.push(format!(
            "a link planted in the folder was written through: {}",
            ran.text()
        ));
    }
    if ran.code != Some(1)
        || tree(&planted).get(Path::new("api.yaml")) != proposal.get(Path::new("api.yaml"))
    {
        failures.push(format!(
            "a link planted at a destination was not replaced by the proposal: {}",
            ran.text()
        ));
    }
    report(&failures);
}

#[test]
fn propose_into_odd_names_writes_exactly_there() {
    let audit = AuditCase::new();
    let base = audit.case.path().join("names");
    mkdirs(&base).unwrap();
    let reference_dir = audit.case.path().join("reference");
    assert_eq!(audit.propose_into(&reference_dir).code, Some(1));
    let proposal = tree(&reference_dir);
    let mut failures = Vec::new();
    let names: Vec<OsString> = vec![
        "with spaces and  two".into(),
        "-leading-dash".into(),
        "--propose".into(),
        "ünïcödé 名前 🚀".into(),
        "new\nline".into(),
        "esc\u{1b}[31mred".into(),
        "bidi\u{202e}txt.yaml".into(),
        "c1\u{9b}31m".into(),
        "bell\u{7}".into(),
        "tab\there".into(),
        OsString::from_vec(b"not utf-8 \x9b\xff".to_vec()),
        " leading and trailing space ".into(),
        "trailing.dot.".into(),
    ];
    for name in names {
        let target = base.join(&name);
        let before_ws = tree(&audit.ws);
        let ran = audit.propose_into(&target);
        let shown = name.to_string_lossy().into_owned();
        if ran.code != Some(1) {
            failures.push(format!("{shown:?}: exit {:?}\n{}", ran.code, ran.text()));
        }
        if tree(&target) != proposal {
            failures.push(format!(
                "{shown:?}: the folder holds {:?}",
                tree(&target).keys().collect::<Vec<_>>()
            ));
        }
        let others: Vec<_> = fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| {
                !fs::symlink_metadata(base.join(n))
                    .map(|m| m.is_dir())
                    .unwrap_or(false)
                    || n == &name
            })
            .filter(|n| n != &name)
            .collect();
        if !others.is_empty() {
            failures.push(format!("{shown:?}: beside it: {others:?}"));
        }
        let difference = tree_difference(&before_ws, &tree(&audit.ws));
        if !difference.is_empty() {
            failures.push(format!("{shown:?}: the workspace changed: {difference:?}"));
        }
        ran.note_control(&format!("{shown:?}"), &mut failures);
    }
    report(&failures);
}

/// codegen over a workspace whose spec was edited (every generated file changes) and one of
/// whose outputs is broken by `break_it`: the run must fail (exit 2) and change nothing, in the
/// workspace or outside.
fn codegen_changes_nothing_when(break_it: impl FnOnce(&Path, &Path)) -> Vec<String> {
    let case = scratch();
    let outside = case.path().join("outside");
    mkdirs(&outside).unwrap();
    let ws = scratch_workspace(case.path());
    edit_docs(&ws);
    stale_readme(&ws);
    break_it(&ws, &outside);
    let before = tree(case.path());
    let ran = run(&os(&["codegen"]), &ws);
    let after = tree(case.path());
    let mut failures = Vec::new();
    if ran.code != Some(2) {
        failures.push(format!("exit {:?}, not 2: {}", ran.code, ran.text()));
    }
    let difference = tree_difference(&before, &after);
    if !difference.is_empty() {
        failures.push(format!("changed: {difference:?}\n{}", ran.text()));
    }
    assert_clean(&ran, "codegen");
    failures
}

#[test]
fn codegen_whose_generated_folder_is_a_file_changes_nothing() {
    let failures = codegen_changes_nothing_when(|ws, _| {
        let folder = ws.join("generated-client/src/generated");
        rm_all(&folder).unwrap();
        put(&folder, "a file where the generated folder was\n").unwrap();
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn codegen_whose_fake_folder_is_a_link_out_changes_nothing_outside_or_inside() {
    let failures = codegen_changes_nothing_when(|ws, outside| {
        let folder = ws.join("tests/fake/src/generated");
        copy_tree(&folder, &outside.join("fake-generated"), "", false);
        // Stale, so that codegen has to write the fake's shapes.
        let shapes = outside.join("fake-generated/shapes.rs");
        let text = fs::read_to_string(&shapes).unwrap();
        put(&shapes, format!("{text}// stale\n")).unwrap();
        rm_all(&folder).unwrap();
        std::os::unix::fs::symlink(outside.join("fake-generated"), &folder).unwrap();
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn codegen_whose_export_is_an_empty_directory_changes_nothing() {
    let failures = codegen_changes_nothing_when(|ws, _| {
        let export = ws.join("spec/openapi.json");
        rm(&export).unwrap();
        mkdirs(&export).unwrap();
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Exit codes and control characters.

const HOSTILE: [&str; 10] = [
    "\u{1b}[31m",
    "\u{7}",
    "\r",
    "\u{9b}2J",
    "\u{85}",
    "\u{202e}",
    "\u{2067}",
    "\u{7f}",
    "\u{200f}",
    "\u{61c}",
];

#[test]
fn hostile_arguments_to_every_command_exit_2_with_clean_output() {
    let case = scratch();
    let ws = scratch_workspace(case.path());
    let file = case.path().join("a file");
    put(&file, "x").unwrap();
    let rec = recording(&ws);
    let mut failures = Vec::new();
    let mut cases: Vec<(Vec<OsString>, PathBuf)> = Vec::new();
    for h in HOSTILE {
        let p = |s: &str| -> OsString { case.path().join(format!("{s}{h}x")).into() };
        let under_file = |s: &str| -> OsString { file.join(format!("{s}{h}")).into() };
        let wsr = ws.clone();
        let real = workspace();
        cases.extend([
            (os(&[&format!("spec-dif{h}")]), wsr.clone()),
            (os(&["codegen", &format!("--check{h}")]), wsr.clone()),
            (os(&["codegen", h]), wsr.clone()),
            (os(&["openapi", "--check", &format!("x{h}")]), wsr.clone()),
            // spec-diff writes nothing: read the real repository's history.
            (
                os(&["spec-diff", "--base", &format!("HEAD{h}")]),
                real.clone(),
            ),
            (
                os(&["spec-diff", "--head", &format!("{h}main")]),
                real.clone(),
            ),
            (
                os(&["spec-diff", "--format", &format!("markdown{h}")]),
                real.clone(),
            ),
            (
                os(&["spec-diff", "--fail-on", &format!("breaking{h}")]),
                real.clone(),
            ),
            (
                vec!["spec-audit".into(), "--reference".into(), p("reference")],
                wsr.clone(),
            ),
            (
                vec![
                    "spec-audit".into(),
                    "--reference".into(),
                    under_file("reference.md"),
                ],
                wsr.clone(),
            ),
            (vec!["wire-audit".into(), p("recording.jsonl")], wsr.clone()),
            (
                vec!["wire-audit".into(), under_file("recording.jsonl")],
                wsr.clone(),
            ),
            (
                vec![
                    "wire-audit".into(),
                    "--spec".into(),
                    format!("no-spec{h}").into(),
                    rec.clone().into(),
                ],
                wsr.clone(),
            ),
            (
                vec![
                    "wire-audit".into(),
                    "--propose-into".into(),
                    under_file("proposal"),
                    rec.clone().into(),
                ],
                wsr.clone(),
            ),
            (
                vec![
                    "target-dir".into(),
                    "--manifest-path".into(),
                    p("Cargo.toml"),
                ],
                wsr.clone(),
            ),
            (os(&["public-api", &format!("--{h}")]), wsr.clone()),
            (os(&["msrv", h]), wsr.clone()),
            (os(&["package", &format!("--dry{h}")]), wsr.clone()),
        ]);
    }
    // Bytes that are not UTF-8 (a C1 CSI as Latin-1 writes it), as a command and as a path.
    cases.push((
        vec![OsString::from_vec(b"codegen\x9b31m".to_vec())],
        ws.clone(),
    ));
    cases.push((
        vec![
            "wire-audit".into(),
            OsString::from_vec(b"/nonexistent/\x9b2J.jsonl".to_vec()),
        ],
        ws.clone(),
    ));
    cases.push((
        vec![
            "spec-audit".into(),
            "--reference".into(),
            OsString::from_vec(b"/nonexistent/\x1b\x9b.md".to_vec()),
        ],
        ws.clone(),
    ));
    let before = tree(case.path());
    for (args, root) in &cases {
        let ran = run(args, root);
        let shown = format!("{args:?}");
        if ran.code != Some(2) {
            failures.push(format!(
                "{shown}: exit {:?}, not 2\n{}",
                ran.code,
                ran.text().escape_debug()
            ));
        }
        if ran.err.trim().is_empty() {
            failures.push(format!(
                "{shown}: nothing on stderr\n{}",
                ran.text().escape_debug()
            ));
        }
        ran.note_control(&shown, &mut failures);
    }
    let difference = tree_difference(&before, &tree(case.path()));
    assert!(
        difference.is_empty(),
        "hostile arguments wrote {difference:?}"
    );
    report(&failures);
}

fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{1b}[2J".to_owned()),
        Just("\u{7}".to_owned()),
        Just("\r".to_owned()),
        Just("\u{0}".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\u{85}".to_owned()),
        Just("\u{202e}".to_owned()),
        Just("\u{2066}".to_owned()),
        Just("\u{200e}".to_owned()),
        Just("\u{61c}".to_owned()),
        Just("\u{7f}".to_owned()),
        Just("\u{8}".to_owned()),
        "[a-z]{1,3}",
    ];
    prop::collection::vec(piece, 1..5).prop_map(|pieces| format!("x{}", pieces.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hostile_recorded_text_reaches_no_terminal_through_the_audit_or_its_proposals(
        key in hostile_text(),
        value in hostile_text(),
        method in hostile_text(),
        file in hostile_text(),
    ) {
        // A file name cannot hold a NUL.
        let file = file.replace('\u{0}', "0");
        let case = scratch();
        let ws = case.path().join("ws");
        mkdirs(&ws).unwrap();
        copy_tree(&workspace().join("spec"), &ws.join("spec"), "", false);
        let text = fs::read_to_string(workspace().join("tests/app/tests/recordings/workroom.jsonl")).unwrap();
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut exchange: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(body) = exchange["body"].as_str() {
                let mut answer: serde_json::Value = serde_json::from_str(body).unwrap();
                if let Some(bid) = answer["data"]["bidDetails"].as_object_mut() {
                    bid.insert(key.clone(), serde_json::Value::String(value.clone()));
                    bid.insert("clientCountryCode".to_owned(), serde_json::Value::String(value.clone()));
                }
                exchange["body"] = serde_json::Value::String(answer.to_string());
            }
            if i == 3 {
                exchange["method"] = serde_json::Value::String(format!("pay/{method}"));
            }
            lines.push(exchange.to_string());
        }
        let recordings = case.path().join(format!("rec{file}"));
        mkdirs(&recordings).unwrap();
        put(recordings.join(format!("{file}.jsonl")), lines.join("\n") + "\n").unwrap();
        let ran = run(
            &[OsString::from("wire-audit"), OsString::from("--propose"), recordings.into()],
            &ws,
        );
        prop_assert!(matches!(ran.code, Some(1 | 2)), "{}", ran.text().escape_debug());
        let found = control_in(&ran.out).or(control_in(&ran.err));
        prop_assert!(found.is_none(), "U+{:04X} printed: {}", found.map_or(0, |(_, c)| c as u32), ran.text().escape_debug());
    }
}

#[test]
fn hostile_reference_text_reaches_no_terminal_through_spec_audit() {
    let case = scratch();
    let ws = case.path().join("ws");
    mkdirs(&ws).unwrap();
    copy_tree(&workspace().join("spec"), &ws.join("spec"), "", false);
    let reference =
        fs::read_to_string(workspace().join("spec/reference/marketplace-api.md")).unwrap();
    let mut failures = Vec::new();
    for h in HOSTILE.iter().chain(["\u{0}", "\u{8}", "\u{2028}"].iter()) {
        // A documented field the spec lacks, a field the spec has documented otherwise, and
        // the reference's own file name.
        let edited = reference
            .replacen(
                "| clientCity | string | Present in some responses. |",
                &format!("| clientCity | string | Present in some{h} responses. |\n| client{h}Town | string | Town{h}. |\n| clientTown | integer{h} | Town. |"),
                1,
            )
            .replacen("| bidId |", &format!("| bidId{h} |"), 1);
        assert_ne!(edited, reference);
        let path = case
            .path()
            .join(format!("reference{}.md", h.replace('\u{0}', "0")));
        put(&path, edited).unwrap();
        let ran = run(
            &[
                OsString::from("spec-audit"),
                "--reference".into(),
                path.into(),
            ],
            &ws,
        );
        if !matches!(ran.code, Some(1 | 2)) {
            failures.push(format!(
                "{h:?}: exit {:?}: {}",
                ran.code,
                ran.text().escape_debug()
            ));
        }
        ran.note_control(&format!("{h:?}"), &mut failures);
    }
    report(&failures);
}

#[test]
fn hostile_spec_file_names_reach_no_terminal() {
    let case = scratch();
    let mut failures = Vec::new();
    for h in HOSTILE {
        let ws = case.path().join(format!("ws{}", h.len()));
        let _ = rm_all(&ws);
        copy_tree(&workspace().join("spec"), &ws.join("spec"), "", false);
        put(
            ws.join(format!("spec/bad{h}.yaml")),
            format!("types:\n  Bad{h}:\n    doc: x{h}\n"),
        )
        .unwrap();
        let other = case.path().join(format!("other spec{h}"));
        let _ = rm_all(&other);
        copy_tree(&ws.join("spec"), &other, "", false);
        for args in [
            vec![OsString::from("codegen"), "--check".into()],
            vec!["openapi".into(), "--check".into()],
            vec!["spec-audit".into()],
            vec![
                "wire-audit".into(),
                "--spec".into(),
                other.clone().into(),
                workspace()
                    .join("tests/app/tests/recordings/workroom.jsonl")
                    .into(),
            ],
        ] {
            let ran = run(&args, &ws);
            if ran.code != Some(2) {
                failures.push(format!(
                    "{h:?} {args:?}: exit {:?}: {}",
                    ran.code,
                    ran.text().escape_debug()
                ));
            }
            ran.note_control(&format!("{h:?} {args:?}"), &mut failures);
        }
    }
    report(&failures);
}

// ---------------------------------------------------------------------------------------------
// `openapi --html DIR`: Redocly renders privately, the page reaches DIR through the one writer.

fn html(ws: &Path, dir: impl Into<OsString>) -> Ran {
    run(
        &[OsString::from("openapi"), "--html".into(), dir.into()],
        ws,
    )
}

#[test]
fn openapi_html_into_odd_and_bad_targets() {
    let case = scratch();
    let outside = case.path().join("outside");
    mkdirs(outside.join("folder")).unwrap();
    put(outside.join("a file"), "keep\n").unwrap();
    let ws = scratch_workspace(case.path());
    let mut failures = Vec::new();

    // Bad targets: an input error (exit 2) naming the target, nothing written anywhere.
    type Prepare = Box<dyn Fn()>;
    let bad: Vec<(&str, PathBuf, Prepare)> = vec![
        ("an existing file", outside.join("a file"), Box::new(|| {})),
        (
            "a path whose parent is a file",
            outside.join("a file/page"),
            Box::new(|| {}),
        ),
        (
            "a folder whose index.html is a non-empty folder",
            case.path().join("busy"),
            {
                let busy = case.path().join("busy");
                Box::new(move || {
                    mkdirs(busy.join("index.html/inner")).unwrap();
                    put(busy.join("index.html/inner/x"), "x").unwrap();
                })
            },
        ),
    ];
    for (what, target, prepare) in bad {
        prepare();
        let before = tree(case.path());
        let ran = html(&ws, &target);
        let difference = tree_difference(&before, &tree(case.path()));
        if ran.code != Some(2) {
            failures.push(format!(
                "{what}: exit {:?}, not 2: {}",
                ran.code,
                ran.text()
            ));
        }
        if !difference.is_empty() {
            failures.push(format!("{what}: changed {difference:?}"));
        }
        if let Some((_, c)) = control_in(&ran.out).or(control_in(&ran.err)) {
            failures.push(format!("{what}: the output carries U+{:04X}", c as u32));
        }
    }

    // A link planted at index.html is replaced, never followed; an odd name is written exactly.
    let odd = case.path().join("-dash \u{1b}[31m 名前\u{202e}\nline");
    mkdirs(&odd).unwrap();
    std::os::unix::fs::symlink(outside.join("a file"), odd.join("index.html")).unwrap();
    let before_outside = tree(&outside);
    let ran = html(&ws, &odd);
    if ran.code != Some(0) {
        failures.push(format!(
            "an odd name: exit {:?}: {}",
            ran.code,
            ran.text().escape_debug()
        ));
    }
    ran.note_control("an odd name", &mut failures);
    match fs::symlink_metadata(odd.join("index.html")) {
        Ok(meta) if meta.is_file() && meta.len() > 1000 => {}
        other => failures.push(format!("an odd name: index.html is {other:?}")),
    }
    if tree(&outside) != before_outside {
        failures.push("a link planted at index.html was written through".to_owned());
    }
    let beside: Vec<_> = fs::read_dir(&odd)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    if beside.len() != 1 {
        failures.push(format!("an odd name: the folder holds {beside:?}"));
    }
    report(&failures);
}

#[test]
fn openapi_html_killed_at_random_moments_leaves_the_page_old_or_new() {
    act_as_child();
    let case = scratch();
    mkdirs(case.path().join("outside")).unwrap();
    let ws = scratch_workspace(case.path());
    let page = ws.join("rendered page");
    mkdirs(&page).unwrap();
    put(page.join("index.html"), "<html>an earlier render</html>\n").unwrap();
    kill_at_random_moments(
        "openapi_html_killed_at_random_moments_leaves_the_page_old_or_new",
        &ws,
        &[
            "openapi".to_owned(),
            "--html".to_owned(),
            "{ROOT}/rendered page".to_owned(),
        ],
        2,
        &[],
        &["rendered page"],
    );
}

// ---------------------------------------------------------------------------------------------
// Commands that judge write nothing.

/// docs/reviewing-spec-changes.md: "It reads both revisions with git (nothing is written)";
/// `xtask::spec_audit`: "Nothing is written."; `--check` compares. Run in a repository whose
/// index is stale (every file touched after the commit), so a git command that refreshes the
/// index would write `.git/index`.
#[test]
fn judging_commands_write_nothing_not_even_the_git_index() {
    let case = scratch();
    let ws = scratch_workspace(case.path());
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "base"]);
    edit_docs(&ws);
    // Touch every file of the commit: the index's stat data goes stale.
    std::thread::sleep(Duration::from_millis(1100));
    for (path, node) in tree(&ws) {
        if let Node::File(bytes) = node {
            if !path.starts_with(".git") {
                put(ws.join(&path), bytes).unwrap();
            }
        }
    }
    let mut failures = Vec::new();
    for args in [
        os(&["spec-diff"]),
        os(&["spec-diff", "--base", "HEAD", "--format", "json"]),
        os(&["spec-audit"]),
        vec!["wire-audit".into(), recording(&ws).into()],
        os(&["codegen", "--check"]),
        os(&["openapi", "--check"]),
    ] {
        let before = tree(case.path());
        let ran = run(&args, &ws);
        let difference = tree_difference(&before, &tree(case.path()));
        if !matches!(ran.code, Some(0 | 1)) {
            failures.push(format!("{args:?}: exit {:?}: {}", ran.code, ran.text()));
        }
        if !difference.is_empty() {
            failures.push(format!("{args:?} wrote: {difference:?}"));
        }
    }
    report(&failures);
}

// ---------------------------------------------------------------------------------------------
// Inputs that are not regular files, and a generated part without its markers.

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Runs a command on a thread; `None` when it has not ended within `limit` (a read that blocks).
fn run_within(args: Vec<OsString>, root: PathBuf, limit: Duration) -> Option<Ran> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(run(&args, &root));
    });
    receive.recv_timeout(limit).ok()
}

/// SECURITY.md: "committed generated files, `spec/README.md`, API snapshots | bounded reads";
/// "the reference (`spec-audit`) | ≤ 4 MiB regular file"; "spec files | regular files only";
/// "the tools must not be made to read without bound". A FIFO where a file is read (nobody
/// writes to it) must be refused, not waited on.
#[test]
fn a_fifo_where_a_tool_reads_a_file_is_refused_not_waited_on() {
    let case = scratch();
    let mut failures = Vec::new();
    // (what, the file made a FIFO, the command's arguments: `FIFO` stands for its path).
    const FIFO: &str = "{fifo}";
    let cases: [(&str, &str, &[&str]); 8] = [
        (
            "spec-audit --reference FIFO",
            "reference.md",
            &["spec-audit", "--reference", FIFO],
        ),
        (
            "openapi --check, spec/openapi.json a FIFO",
            "spec/openapi.json",
            &["openapi", "--check"],
        ),
        (
            "codegen --check, spec/README.md a FIFO",
            "spec/README.md",
            &["codegen", "--check"],
        ),
        (
            "codegen --check, a generated file a FIFO",
            "generated-client/src/generated/pay.rs",
            &["codegen", "--check"],
        ),
        (
            "codegen, spec/README.md a FIFO",
            "spec/README.md",
            &["codegen"],
        ),
        (
            "codegen, the fake's shapes a FIFO",
            "tests/fake/src/generated/shapes.rs",
            &["codegen"],
        ),
        (
            "wire-audit, a recording a FIFO",
            "recording.jsonl",
            &["wire-audit", FIFO],
        ),
        (
            "spec-audit, a spec file a FIFO",
            "spec/fifo.yaml",
            &["spec-audit"],
        ),
    ];
    for (i, (what, fifo, args)) in cases.into_iter().enumerate() {
        let ws = case.path().join(format!("ws{i}"));
        mkdirs(&ws).unwrap();
        for part in [
            "spec",
            "generated-client/src/generated",
            "tests/fake/src/generated",
        ] {
            copy_tree(&workspace().join(part), &ws.join(part), "", false);
        }
        let fifo = ws.join(fifo);
        if fifo.exists() {
            rm(&fifo).unwrap();
        }
        mkfifo(&fifo);
        let args: Vec<OsString> = args
            .iter()
            .map(|&arg| {
                if arg == FIFO {
                    fifo.clone().into()
                } else {
                    arg.into()
                }
            })
            .collect();
        match run_within(args, ws.clone(), Duration::from_secs(20)) {
            None => {
                failures.push(format!("{what}: still waiting after 20 s"));
                // Let the reader go: open each FIFO for writing and close it.
                for (path, _) in tree(&ws) {
                    let full = ws.join(&path);
                    if fs::symlink_metadata(&full).is_ok_and(|m| {
                        use std::os::unix::fs::FileTypeExt;
                        m.file_type().is_fifo()
                    }) {
                        let _ = Command::new("sh")
                            .args(["-c", "exec 3>\"$1\"", "sh"])
                            .arg(&full)
                            .status();
                    }
                }
            }
            Some(ran) => {
                if ran.code != Some(2) {
                    failures.push(format!(
                        "{what}: exit {:?}, not 2: {}",
                        ran.code,
                        ran.text()
                    ));
                }
                assert_clean(&ran, what);
            }
        }
    }
    report(&failures);
}

/// `xtask::codegen`: "the part of `spec/README.md` the generator decides (its encodings and
/// validation rules, between markers)"; docs/changing-the-spec.md: "`cargo xtask codegen
/// --check` … fails with a unified diff and the fixing command when the committed files are
/// stale"; SECURITY.md: "nothing judged is not a pass". A README whose markers are missing,
/// doubled or out of order has no generated part to judge or write: `--check` must not pass
/// (exit 1 or 2, naming the README), and `codegen` must either refuse (exit 2, nothing written)
/// or leave one begin marker before one end marker with the generated part between them.
/// (Control: markers touching, an empty part, is merely stale.)
#[test]
fn a_readme_with_broken_markers_is_never_passed_over() {
    let readme = fs::read_to_string(workspace().join("spec/README.md")).unwrap();
    let begin_at = readme.find("<!-- begin: generated").unwrap();
    let begin_end = begin_at + readme[begin_at..].find("-->").unwrap() + 3;
    let end_at = readme.find("<!-- end: generated").unwrap();
    let end_end = end_at + readme[end_at..].find("-->").unwrap() + 3;
    let begin = &readme[begin_at..begin_end];
    let end = &readme[end_at..end_end];
    let part = &readme[begin_end..end_at];
    let variants: Vec<(&str, String)> = vec![
        (
            "markers touching (control)",
            format!("{}{begin}{end}{}", &readme[..begin_at], &readme[end_end..]),
        ),
        ("no begin marker", readme.replacen(begin, "", 1)),
        ("no end marker", readme.replacen(end, "", 1)),
        (
            "no markers",
            readme.replacen(begin, "", 1).replacen(end, "", 1),
        ),
        (
            "the end before the begin",
            format!("{end}\n{}", readme.replacen(end, "", 1)),
        ),
        (
            "the markers twice",
            format!("{readme}\n{begin}\nagain\n{end}\n"),
        ),
        ("a begin marker twice", format!("{readme}\n{begin}\n")),
        ("an empty file", String::new()),
    ];
    let case = scratch();
    let mut failures = Vec::new();
    for (i, (what, text)) in variants.into_iter().enumerate() {
        let ws = case.path().join(format!("ws{i}"));
        for part in [
            "spec",
            "generated-client/src/generated",
            "tests/fake/src/generated",
        ] {
            copy_tree(&workspace().join(part), &ws.join(part), "", false);
        }
        put(ws.join("spec/README.md"), &text).unwrap();
        let ran = run(&os(&["codegen", "--check"]), &ws);
        if !matches!(ran.code, Some(1 | 2)) || !ran.err.contains("README") {
            failures.push(format!("{what}: `codegen --check` {}", ran.text()));
        }
        let before = tree(&ws);
        let ran = run(&os(&["codegen"]), &ws);
        let now = fs::read_to_string(ws.join("spec/README.md")).unwrap_or_default();
        match ran.code {
            Some(2) => {
                let difference = tree_difference(&before, &tree(&ws));
                if !difference.is_empty() || !ran.err.contains("README") {
                    failures.push(format!(
                        "{what}: `codegen` refused, wrote {difference:?}: {}",
                        ran.text()
                    ));
                }
            }
            Some(0) => {
                let whole = format!("{begin}{part}{end}");
                if now.matches(begin).count() != 1
                    || now.matches(end).count() != 1
                    || !now.contains(&whole)
                {
                    failures.push(format!(
                        "{what}: `codegen` exited 0 and left spec/README.md without its one generated part ({} begin, {} end markers, the part {}): {}",
                        now.matches(begin).count(),
                        now.matches(end).count(),
                        if now.contains(&whole) { "present" } else { "absent" },
                        ran.text()
                    ));
                }
            }
            other => failures.push(format!("{what}: `codegen` exit {other:?}: {}", ran.text())),
        }
    }
    report(&failures);
}

// ---------------------------------------------------------------------------------------------
// Recordings of any shape: a typed error or a finding, never a panic; proposals of odd names.

fn odd_key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("a: b".to_owned()),
        Just("#comment".to_owned()),
        Just("- item".to_owned()),
        Just("&anchor".to_owned()),
        Just("*alias".to_owned()),
        Just("?".to_owned()),
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("0".to_owned()),
        Just("a.b".to_owned()),
        Just("*".to_owned()),
        Just("'quoted'".to_owned()),
        Just("\"dq\"".to_owned()),
        Just("{x}".to_owned()),
        Just("[x]".to_owned()),
        Just("%TAG".to_owned()),
        Just("---".to_owned()),
        Just("...".to_owned()),
        Just("key\nnext: 1".to_owned()),
        Just("\u{feff}bom".to_owned()),
        Just("x".repeat(5000)),
        Just("ÄÖÜ名前🚀".to_owned()),
        Just("type".to_owned()),
        Just("clientCity".to_owned()),
        "[ -~]{0,12}",
    ]
}

fn odd_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(0)),
        Just(json!(-0.0)),
        Just(json!(1.5e300)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!("")),
        Just(json!("12.50")),
        Just(json!("05-JAN-26")),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"0": {"a": 1}, "1": {"a": "x"}})),
        Just(json!([[[[[[1]]]]]])),
        Just(json!({"": {"": {"": 1}}})),
        "[ -~]{0,10}".prop_map(serde_json::Value::String),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// docs/commands.md's exit codes and SECURITY.md's "must not be made to … panic": a recorded
    /// answer with a field of any name and value is a finding with a proposal (exit 1) or an
    /// input error (exit 2), unless the spec already allows it (exit 0), and the proposal
    /// written with `--propose-into` is whole files only.
    #[test]
    fn recorded_fields_of_any_name_and_value_are_findings_never_a_panic(
        fields in prop::collection::vec((odd_key(), odd_value()), 1..4),
        status in prop_oneof![Just(200), Just(0), Just(99), Just(204), Just(400), Just(599), Just(1000)],
    ) {
        let case = scratch();
        let ws = case.path().join("ws");
        copy_tree(&workspace().join("spec"), &ws.join("spec"), "", false);
        let text = fs::read_to_string(workspace().join("tests/app/tests/recordings/workroom.jsonl")).unwrap();
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut exchange: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(body) = exchange["body"].as_str() {
                let mut answer: serde_json::Value = serde_json::from_str(body).unwrap();
                if let Some(bid) = answer.pointer_mut("/data/bidDetails").and_then(|b| b.as_object_mut()) {
                    for (key, value) in &fields {
                        bid.insert(key.clone(), value.clone());
                    }
                }
                exchange["body"] = serde_json::Value::String(answer.to_string());
                if i == 2 {
                    exchange["status"] = status.into();
                }
            }
            lines.push(exchange.to_string());
        }
        let recordings = case.path().join("recordings");
        mkdirs(&recordings).unwrap();
        put(recordings.join("r.jsonl"), lines.join("\n") + "\n").unwrap();
        let into = case.path().join("proposal");
        let ran = run(
            &[OsString::from("wire-audit"), "--propose-into".into(), into.clone().into(), recordings.into()],
            &ws,
        );
        // The one draw the spec already allows: the field it declares (`clientCity`, an
        // optional string) given a string, in an answer of status 200. That agrees with the
        // spec, so it is no finding (exit 0); every other draw disagrees with it (failed CI
        // run 18, which drew `clientCity: ""`).
        let inserted: std::collections::BTreeMap<&str, &serde_json::Value> =
            fields.iter().map(|(key, value)| (key.as_str(), value)).collect();
        let agrees = status == 200
            && inserted.iter().all(|(key, value)| *key == "clientCity" && value.is_string());
        let expected: &[u8] = if agrees { &[0] } else { &[1, 2] };
        prop_assert!(
            ran.code.is_some_and(|code| expected.contains(&code)),
            "expected exit {:?}: {}",
            expected,
            ran.text().escape_debug()
        );
        let found = control_in(&ran.out).or(control_in(&ran.err));
        prop_assert!(found.is_none(), "U+{:04X} printed: {}", found.map_or(0, |(_, c)| c as u32), ran.text().escape_debug());
        if ran.code == Some(1) && into.exists() {
            // The proposal is a spec copy: each file whole YAML the loader reads.
            let checked = run(
                &[OsString::from("wire-audit"), "--spec".into(), into.clone().into(),
                  workspace().join("tests/app/tests/recordings/workroom.jsonl").into()],
                &ws,
            );
            prop_assert!(checked.code.is_some(), "auditing with the proposal panicked: {}", checked.text().escape_debug());
        }
    }
}

/// docs/changing-the-spec.md: codegen "writes only the files that changed, removes generated
/// files the spec no longer produces"; SECURITY.md: "only where asked". A file in the generated
/// folders that codegen never generated (no generated header: a user's note, a `.gitkeep`, a
/// hand-written module) is not a generated file the spec no longer produces: it is kept.
#[test]
fn codegen_keeps_files_it_did_not_generate() {
    let case = scratch();
    let ws = case.path().join("ws");
    for part in [
        "spec",
        "generated-client/src/generated",
        "tests/fake/src/generated",
    ] {
        copy_tree(&workspace().join(part), &ws.join(part), "", false);
    }
    let planted = [
        "generated-client/src/generated/NOTES.md",
        "generated-client/src/generated/.gitkeep",
        "generated-client/src/generated/hand_written.rs",
        "tests/fake/src/generated/hand_written.rs",
        "spec/notes.txt",
    ];
    for path in planted {
        put(ws.join(path), "// written by hand, not by codegen\n").unwrap();
    }
    edit_docs(&ws);
    let ran = run(&os(&["codegen"]), &ws);
    assert_eq!(ran.code, Some(0), "{}", ran.text());
    let gone: Vec<_> = planted.iter().filter(|p| !ws.join(p).exists()).collect();
    assert!(
        gone.is_empty(),
        "codegen removed files it did not generate: {gone:?}\n{}",
        ran.text()
    );
}
