//! Red team: the tools' rows of SECURITY.md, broken as a black box.
//!
//! Claims attacked (SECURITY.md):
//! - "files the tools write ... only where asked, never half-written: nothing outside the
//!   directory named changes, whatever links stand below it; a file appears whole or not at
//!   all; a set of files (codegen's) changes whole or not at all"
//! - "tools' output ... no control character reaches a terminal or CI log"
//! - "every judgement of the tools ... nothing judged is not a pass"
//! - the Inputs rows about spec files, git revisions, the reference, and the Known limits.
//!
//! Every tool runs as a program (`env!("CARGO_BIN_EXE_xtask")`, the fake's binary); every file
//! a case makes goes through `marketplace_client::files`; links, hard links and FIFOs are made
//! with `ln` and `mkfifo`, git objects with `git` in a scratch repository (`GIT_DIR`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use marketplace_client::files::OutputDir;
use marketplace_client::recording::{self, Exchange, Recorder, Rotation, Side};
use proptest::prelude::*;

// The fake binary as the suite builds it (shared with the marketplace-tests crate).
#[path = "../../tests/tests/support/fake_binary.rs"]
mod fake_binary;
use fake_binary::fake_binary;

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

// ---------------------------------------------------------------------------------------------
// helpers

/// Proptest without a regressions file: nothing is written into the worktree.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch() -> (tempfile::TempDir, OutputDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    (dir, out)
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the program runs")
}

fn sh(program: &str, args: &[&std::ffi::OsStr]) {
    let out = run(Command::new(program).args(args));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    sh(
        "ln",
        &[
            "-s".as_ref(),
            "--".as_ref(),
            target.as_ref().as_os_str(),
            link.as_ref().as_os_str(),
        ],
    );
}

fn hard_link(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    sh(
        "ln",
        &[
            "--".as_ref(),
            target.as_ref().as_os_str(),
            link.as_ref().as_os_str(),
        ],
    );
}

fn fifo(path: impl AsRef<Path>) {
    sh("mkfifo", &["--".as_ref(), path.as_ref().as_os_str()]);
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false)
}

/// Every entry below `root` (links not followed) with what it is and, for files, its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut map = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else if meta.is_file() {
                format!(
                    "file {:?}",
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap())
                )
            } else {
                "other".to_string()
            };
            map.insert(rel, what);
        }
    }
    map
}

/// The control characters of the output other than the line breaks the tool itself writes.
fn controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect()
}

/// Lines of `text` that start with `marker`: a line the input began, not the tool.
fn forged_lines<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(marker)).collect()
}

fn exchange(method: &str, status: u16, body: Option<&str>) -> Exchange {
    let mut exchange = Exchange::new(Side::Client, method, status);
    exchange.http_method = "GET".into();
    exchange.path = format!("/api/{method}");
    if let Some(body) = body {
        exchange = exchange.with_body(body.as_bytes());
    }
    exchange
}

fn recording_text(exchanges: &[Exchange]) -> String {
    exchanges.iter().map(|e| e.to_line() + "\n").collect()
}

/// The committed recording of the app: real traffic the spec agrees with.
fn app_recording() -> Vec<Exchange> {
    recording::read(workspace_root().join("tests/app/tests/recordings/workroom.jsonl"))
        .unwrap()
        .into_iter()
        .map(|r| r.exchange)
        .collect()
}

/// The app's recording with two unknown fields planted: wire-audit finds two drifts and
/// proposes edits to api.yaml and manage.yaml.
fn drifted_recording() -> String {
    let mut out = Vec::new();
    for mut e in app_recording() {
        if let Some(body) = &e.body {
            let mut json: serde_json::Value = serde_json::from_str(body).unwrap();
            if e.method == "pay/getInvoice" {
                json["data"]["bidDetails"]["overtimeHours"] = "2.5".into();
            }
            if e.method == "manage/getMyProviders" {
                json["data"]["surpriseField"] = "x".into();
            }
            e.body = Some(json.to_string());
        }
        out.push(e);
    }
    recording_text(&out)
}

fn xtask(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    run(Command::new(XTASK)
        .args(args)
        .current_dir(cwd)
        .env_remove("GIT_DIR"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

// ---------------------------------------------------------------------------------------------
// files the tools write: the recorder (`Recorder::to_dir`)

fn small_rotation(max_files: usize) -> Rotation {
    Rotation {
        max_file_bytes: 300,
        max_files,
    }
}

/// An exchange longer than `small_rotation`'s files: each one rotates.
fn big_exchange(n: usize) -> Exchange {
    let body = format!(
        r#"{{"api":"pay/getInvoice","apiVersion":1,"rcode":1,"data":{{"n":{n},"pad":"{}"}}}}"#,
        "p".repeat(400)
    );
    exchange("pay/getInvoice", 200, Some(&body))
}

fn jsonl_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn everything_but(
    snapshot: &BTreeMap<PathBuf, String>,
    inside: &Path,
) -> BTreeMap<PathBuf, String> {
    snapshot
        .iter()
        .filter(|(p, _)| !p.starts_with(inside))
        .map(|(p, w)| (p.clone(), w.clone()))
        .collect()
}

fn hostile_prefix() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just("../escaped".to_string()),
        Just("../../escaped".to_string()),
        Just("../sibling/escaped".to_string()),
        Just("sub/../../escaped".to_string()),
        Just("a/b".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        Just("x\n../y".to_string()),
        Just("\u{1b}[31m".to_string()),
        (250usize..400).prop_map(|n| "p".repeat(n)),
        "[a-z./]{1,12}",
    ]
}

proptest! {
    #![proptest_config(config(32))]

    /// "files the tools write (... the recorder ...) | only where asked, never half-written:
    /// nothing outside the directory named changes"; the recorder's files are
    /// `{prefix}-{start}-{pid}-{number}.jsonl` in `dir`. A prefix with `..`, `/`, a newline or
    /// a name too long for the file system must not put a file anywhere but in `dir`, and what
    /// does appear there is whole.
    #[test]
    fn recorder_prefixes_with_dots_slashes_or_long_names_write_only_whole_files_inside_the_directory(
        prefix in hostile_prefix(),
        absolute in any::<bool>(),
    ) {
        let (tmp, out) = scratch();
        out.write("sibling/keep.txt", "kept").unwrap();
        out.subdir("rec").unwrap();
        let prefix = if absolute { format!("{}/abs/{prefix}", tmp.path().display()) } else { prefix };
        let before = snapshot(tmp.path());
        let rec_dir = tmp.path().join("rec");
        if let Ok(recorder) = Recorder::to_dir(&rec_dir, &prefix, Rotation::default()) {
            recorder.record(exchange("pay/getInvoice", 200, Some(r#"{"rcode":1}"#)));
            let _ = recorder.flush();
            drop(recorder);
            std::thread::sleep(Duration::from_millis(50));
        }
        let after = snapshot(tmp.path());
        prop_assert_eq!(
            everything_but(&before, Path::new("rec")),
            everything_but(&after, Path::new("rec")),
            "prefix {:?} wrote outside rec/", prefix
        );
        for name in jsonl_names(&rec_dir) {
            let read = recording::read(rec_dir.join(&name));
            prop_assert!(read.is_ok(), "prefix {:?}: {} is not whole: {:?}", prefix, name, read);
        }
    }
}

/// "the oldest of this recorder's files deleted beyond max_files" (`Rotation`) and "files the
/// tools write | only where asked": rotation may delete the recorder's own files and nothing
/// else, neither another recorder's of the same prefix (an earlier run, another process, an
/// earlier recorder of this process) nor a file of the user's that shares the prefix.
#[test]
fn recorder_rotation_deletes_only_its_own_files_never_another_recorders_of_the_same_prefix() {
    let (tmp, out) = scratch();
    let rec_dir = tmp.path().join("rec");
    let rec = out.subdir("rec").unwrap();
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros();
    let pid = std::process::id();
    let planted = [
        "client-1-1-1.jsonl".to_string(),
        "client-notes.jsonl".to_string(),
        format!("client-{}-{pid}-1.jsonl", now_us - 5_000_000),
        format!("client-{}-{}-1.jsonl", now_us - 1, pid + 1),
        "client-0.jsonl".to_string(),
    ];
    let line = recording_text(&[exchange("pay/getInvoice", 200, Some("{}"))]);
    for name in &planted {
        rec.write(name, &line).unwrap();
    }
    // an earlier recorder of this process, same prefix, still holding its one file
    let earlier = Recorder::to_dir(&rec_dir, "client", small_rotation(1)).unwrap();
    earlier.record(big_exchange(0));
    earlier.flush().unwrap();
    drop(earlier);
    std::thread::sleep(Duration::from_millis(50));
    let after_earlier = jsonl_names(&rec_dir);

    let recorder = Recorder::to_dir(&rec_dir, "client", small_rotation(1)).unwrap();
    for n in 1..8 {
        recorder.record(big_exchange(n));
        recorder.flush().unwrap();
    }
    drop(recorder);
    std::thread::sleep(Duration::from_millis(50));
    let names = jsonl_names(&rec_dir);
    let own: Vec<&String> = names
        .iter()
        .filter(|n| !after_earlier.contains(n))
        .collect();
    assert_eq!(
        own.len(),
        1,
        "the recorder rotated and kept max_files = 1 of its own: {names:?}"
    );
    let lost: Vec<&String> = after_earlier
        .iter()
        .filter(|n| !names.contains(n))
        .collect();
    assert!(
        lost.is_empty(),
        "rotation deleted files that were not its own: {lost:?} (left: {names:?})"
    );
}

/// "removals never go through a link" and "nothing outside the directory named changes":
/// the recorder's oldest file, replaced by a symbolic link to a file outside (or by a hard link
/// to it), is deleted at rotation as a link: the file outside stays whole.
#[test]
fn recorder_rotation_removes_a_link_planted_at_its_oldest_file_not_the_file_it_points_to() {
    for kind in ["symbolic", "hard"] {
        let (tmp, out) = scratch();
        out.write("outside/victim.txt", "the victim").unwrap();
        let rec = out.subdir("rec").unwrap();
        let rec_dir = tmp.path().join("rec");
        let victim = tmp.path().join("outside/victim.txt");
        let recorder = Recorder::to_dir(&rec_dir, "client", small_rotation(2)).unwrap();
        recorder.record(big_exchange(0));
        recorder.flush().unwrap();
        let first = jsonl_names(&rec_dir);
        assert_eq!(first.len(), 1, "{first:?}");
        rec.remove(&first[0]).unwrap();
        match kind {
            "symbolic" => symlink(&victim, rec_dir.join(&first[0])),
            _ => hard_link(&victim, rec_dir.join(&first[0])),
        }
        for n in 1..6 {
            recorder.record(big_exchange(n));
            let _ = recorder.flush();
        }
        drop(recorder);
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            std::fs::symlink_metadata(rec_dir.join(&first[0])).is_err(),
            "rotation removed the oldest file ({kind} link): {:?}",
            jsonl_names(&rec_dir)
        );
        assert_eq!(
            std::fs::read_to_string(&victim).ok().as_deref(),
            Some("the victim"),
            "a {kind} link at the recorder's oldest file: the file it points to changed or went"
        );
    }
}

/// The next file name of a recorder, from the name of its last: `{prefix}-{start}-{pid}-{n}`.
fn next_name(name: &str) -> String {
    let stem = name.strip_suffix(".jsonl").unwrap();
    let (head, number) = stem.rsplit_once('-').unwrap();
    let next = number.parse::<u64>().unwrap() + 1;
    format!("{head}-{next:0width$}.jsonl", width = number.len())
}

proptest! {
    #![proptest_config(config(16))]

    /// "a link there is replaced, never followed" (`Recorder::to_dir`: "a link planted at its
    /// name is replaced, never followed") and "a file appears whole or not at all": whatever
    /// stands at the name the recorder's next file will take (its name is predictable from
    /// the first: the number goes up by one), nothing outside changes and the name ends up
    /// holding either what was planted or a whole recording.
    #[test]
    fn whatever_stands_at_the_recorders_next_file_name_nothing_outside_changes(kind in 0..7usize) {
        let (tmp, out) = scratch();
        out.write("outside/victim.txt", "the victim").unwrap();
        out.subdir("outside/dir").unwrap();
        let rec = out.subdir("rec").unwrap();
        let rec_dir = tmp.path().join("rec");
        let outside = tmp.path().join("outside");
        let recorder = Recorder::to_dir(&rec_dir, "client", small_rotation(100)).unwrap();
        recorder.record(big_exchange(0));
        recorder.flush().unwrap();
        let first = jsonl_names(&rec_dir);
        let next = rec_dir.join(next_name(&first[0]));
        match kind {
            0 => symlink(outside.join("victim.txt"), &next),
            1 => symlink(outside.join("created-through-the-link.txt"), &next),
            2 => symlink(&next, &next),
            3 => hard_link(outside.join("victim.txt"), &next),
            4 => fifo(&next),
            5 => symlink(outside.join("dir"), &next),
            _ => { rec.write(Path::new(next.file_name().unwrap()).join("full"), "x").unwrap(); }
        }
        let before = everything_but(&snapshot(tmp.path()), Path::new("rec"));
        recorder.record(big_exchange(1));
        let _ = recorder.flush();
        drop(recorder);
        std::thread::sleep(Duration::from_millis(50));
        let after = everything_but(&snapshot(tmp.path()), Path::new("rec"));
        prop_assert_eq!(before, after, "kind {}: something outside rec/ changed", kind);
        let meta = std::fs::symlink_metadata(&next).unwrap();
        if kind < 6 {
            prop_assert!(meta.is_file() && !is_link(&next), "kind {}: the planted entry was not replaced", kind);
            prop_assert!(recording::read(&next).is_ok(), "kind {}: the next file is not whole", kind);
        } else {
            prop_assert!(meta.is_dir(), "kind {}: the directory planted went", kind);
        }
    }
}

/// "nothing outside the directory named changes, whatever links stand below it": the
/// directory a recorder was given, moved away between two flushes and replaced by a link to
/// another directory (a scratch folder swapped between two runs), receives the next file in
/// the directory named when it was opened, or nowhere; never through the link.
#[test]
fn a_recording_directory_swapped_for_a_link_between_flushes_gets_nothing_through_the_link() {
    let (tmp, out) = scratch();
    out.subdir("rec").unwrap();
    out.subdir("elsewhere").unwrap();
    let rec_dir = tmp.path().join("rec");
    let recorder = Recorder::to_dir(&rec_dir, "client", small_rotation(100)).unwrap();
    recorder.record(big_exchange(0));
    recorder.flush().unwrap();
    out.rename("rec", "rec-moved").unwrap();
    symlink(tmp.path().join("elsewhere"), &rec_dir);
    for n in 1..4 {
        recorder.record(big_exchange(n));
        let _ = recorder.flush();
    }
    drop(recorder);
    std::thread::sleep(Duration::from_millis(50));
    let elsewhere = jsonl_names(&tmp.path().join("elsewhere"));
    assert!(
        elsewhere.is_empty(),
        "the recorder wrote through the link that replaced its directory: {elsewhere:?}"
    );
    eprintln!(
        "the moved directory holds {:?}",
        jsonl_names(&tmp.path().join("rec-moved"))
    );
}

// ---------------------------------------------------------------------------------------------
// files the tools write: `marketplace_client::files` itself

fn long_name(n: usize) -> String {
    "n".repeat(n)
}

proptest! {
    #![proptest_config(config(32))]

    /// "on failure nothing is left (no temporary file, no directory the write made, the old
    /// file whole)": a write that must first make directories and then fails (a name on the
    /// way, or the file's own, longer than the file system takes) leaves none of them.
    #[test]
    fn a_write_that_fails_after_making_directories_leaves_none_of_them(
        depth in 1..5usize,
        failing_at_leaf in any::<bool>(),
        length in 256..600usize,
    ) {
        let (tmp, out) = scratch();
        out.write("existing/old.txt", "old").unwrap();
        let before = snapshot(tmp.path());
        let mut path = PathBuf::from("existing");
        for i in 0..depth {
            path.push(format!("new{i}"));
        }
        if failing_at_leaf {
            path.push(long_name(length));
        } else {
            path.push(long_name(length));
            path.push("file.txt");
        }
        let result = out.write(&path, "contents");
        prop_assert!(result.is_err(), "a name of {} bytes was written", length);
        prop_assert_eq!(before, snapshot(tmp.path()), "the failed write left directories behind");
    }

    /// "`FileSet` stages every file, then renames each with the old one kept aside, put back
    /// on any failure" and "a set of files ... changes whole or not at all": a set whose last
    /// entry cannot be made (a name too long, a file where another entry needs a directory, a
    /// removal of nothing, `..`) fails, and leaves the tree as it was: no file of the set, no
    /// directory it made, every old file whole.
    #[test]
    fn a_file_set_with_one_impossible_entry_changes_nothing(
        kind in 0..5usize,
        entries in 1..5usize,
        replace_old in any::<bool>(),
    ) {
        let (tmp, out) = scratch();
        out.write("old/a.txt", "old a").unwrap();
        let before = snapshot(tmp.path());
        let mut set = out.stage();
        if replace_old {
            set.write("old/a.txt", "new a");
        }
        for i in 0..entries {
            set.write(format!("made/d{i}/f.txt"), format!("new {i}"));
        }
        match kind {
            0 => { set.write(format!("made/{}", long_name(300)), "x"); }
            1 => { set.write("made/d0/f.txt/under", "x"); }
            2 => { set.remove("made/missing.txt"); }
            3 => { set.write("made/../../escape.txt", "x"); }
            _ => { set.write("conflict", "file").write("conflict/inside", "x"); }
        }
        let result = set.commit();
        prop_assert!(result.is_err(), "kind {}: an impossible set was committed", kind);
        prop_assert_eq!(before, snapshot(tmp.path()), "kind {}: a failed set changed the tree", kind);
    }

    /// "below it paths are relative (no `..`, no absolute path)" and "nothing outside the
    /// directory named changes": relative paths that climb and come back (`a/../b`), climb
    /// twice, or carry `.` and empty segments either stay inside or are refused.
    #[test]
    fn relative_paths_with_dots_never_reach_outside(segments in prop::collection::vec(
        prop_oneof![Just(".."), Just("."), Just("a"), Just("b"), Just(""), Just("..."), Just("c\nd")], 1..7)
    ) {
        let (tmp, out) = scratch();
        out.write("outside/keep.txt", "kept").unwrap();
        let inner = out.subdir("inner").unwrap();
        let path = segments.join("/");
        let before = everything_but(&snapshot(tmp.path()), Path::new("inner"));
        let _ = inner.write(&path, "x");
        let _ = inner.subdir(&path);
        let _ = inner.remove_all(&path);
        prop_assert_eq!(before, everything_but(&snapshot(tmp.path()), Path::new("inner")), "path {:?}", path);
    }
}

/// "the directory named is an `OutputDir` ... each directory is opened as a cap-std
/// capability": once opened, the directory named is the one written to. Moved away and
/// replaced by a link to another directory before a set is committed, nothing goes through
/// the link.
#[test]
fn an_output_dir_swapped_for_a_link_after_opening_writes_nothing_through_it() {
    let (tmp, out) = scratch();
    out.subdir("named").unwrap();
    out.subdir("elsewhere").unwrap();
    let named = OutputDir::open(tmp.path().join("named")).unwrap();
    let mut set = named.stage();
    set.write("a.txt", "a").write("sub/b.txt", "b");
    out.rename("named", "named-moved").unwrap();
    symlink(tmp.path().join("elsewhere"), tmp.path().join("named"));
    let _ = set.commit();
    let _ = named.write("c.txt", "c");
    let elsewhere = snapshot(&tmp.path().join("elsewhere"));
    assert!(
        elsewhere.is_empty(),
        "writes went through the link: {elsewhere:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Known limits: a process killed while writing

const CHILD_MODE: &str = "RED_TEAM_TOOLS_CHILD_MODE";
const CHILD_DIR: &str = "RED_TEAM_TOOLS_CHILD_DIR";
const SET_FILES: usize = 40;

fn set_contents(version: u64, i: usize) -> String {
    format!("v{version} f{i} {}\n", "x".repeat(20 * (i % 7)))
}

/// Not a case: the process the kill cases start and kill (it does nothing unless started by
/// them). It writes until killed, saying "ready" once its first write is whole.
#[test]
fn child_process_of_the_kill_cases_writes_until_killed() {
    let Ok(mode) = std::env::var(CHILD_MODE) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(CHILD_DIR).unwrap());
    let mut stdout = std::io::stdout();
    match mode.as_str() {
        "recorder" => {
            let recorder = Recorder::to_dir(&dir, "client", small_rotation(10_000)).unwrap();
            recorder.record(big_exchange(0));
            recorder.flush().unwrap();
            writeln!(stdout, "ready").unwrap();
            stdout.flush().unwrap();
            for n in 1.. {
                recorder.record(big_exchange(n));
                if n % 3 == 0 {
                    let _ = recorder.flush();
                }
            }
        }
        _ => {
            let out = OutputDir::open(&dir).unwrap();
            for version in 0.. {
                let mut set = out.stage();
                for i in 0..SET_FILES {
                    set.write(
                        format!("generated/m{}/f{i}.rs", i % 4),
                        set_contents(version, i),
                    );
                }
                set.commit().unwrap();
                if version == 0 {
                    writeln!(stdout, "ready").unwrap();
                    stdout.flush().unwrap();
                }
            }
        }
    }
}

/// Waits until the process `pid` is stopped: `kill -STOP` returns once the signal is sent, and
/// the process may still run on another core for a moment, writing while the tree is read.
fn wait_until_stopped(pid: &str) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // `pid (comm) state …`: the state follows the last `)`.
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        if state.is_none_or(|rest| rest.starts_with(['T', 't', 'Z', 'X'])) {
            return;
        }
        std::thread::yield_now();
    }
}

/// Starts the child in `mode` and waits for "ready"; then, at each pause, freezes it
/// (SIGSTOP: the tree is then exactly what a kill at that moment would leave, an anonymous
/// `O_TMPFILE` aside), runs `check` on the tree, and lets it go on (SIGCONT); at the end kills
/// it (SIGKILL) and checks once more. Every signal goes to the child's own process id.
fn freeze_and_kill_a_writer(
    mode: &str,
    dir: &Path,
    pauses: &[u64],
    check: &mut dyn FnMut(&str) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_process_of_the_kill_cases_writes_until_killed",
            "--exact",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD_MODE, mode)
        .env(CHILD_DIR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started = Instant::now();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.contains("ready") => break,
            Some(_) if started.elapsed() < Duration::from_secs(60) => continue,
            other => {
                let _ = child.kill();
                panic!("the child never got ready: {other:?}");
            }
        }
    }
    let mut verdict = Ok(());
    for (n, pause) in pauses.iter().enumerate() {
        std::thread::sleep(Duration::from_micros(*pause));
        sh("kill", &["-STOP".as_ref(), pid.as_ref()]);
        wait_until_stopped(&pid);
        verdict = check(&format!("frozen at sample {n}"));
        sh("kill", &["-CONT".as_ref(), pid.as_ref()]);
        if verdict.is_err() {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    verdict?;
    check("killed")
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_iters: 4, ..config(3) })]

    /// Known limits: "A process killed while writing leaves no file of its own where the OS has
    /// `O_TMPFILE` (Linux)" (false as written: see the corrected limit), and `Recorder::to_dir`: "Each file appears whole ... A process
    /// killed before then leaves no file of its own". A recorder frozen or killed at any
    /// moment leaves only whole recording files, and nothing else.
    #[test]
    fn a_recorder_killed_at_any_moment_leaves_only_whole_recordings(pauses in prop::collection::vec(0..3_000u64, 150)) {
        let (tmp, _out) = scratch();
        let root = tmp.path().to_path_buf();
        freeze_and_kill_a_writer("recorder", &root, &pauses, &mut |when| {
            // SECURITY.md's Known limits, corrected after this case: a file being put in place
            // (linked under a random name, then renamed) can be left whole under that name, one
            // at a time; anything else is not the recorder's.
            let names = jsonl_names(&root);
            let unnamed: Vec<&String> = names.iter().filter(|name| !name.ends_with(".jsonl")).collect();
            prop_assert!(unnamed.len() <= 1, "{}: the recorder left {:?}", when, unnamed);
            for name in names {
                let read = recording::read(root.join(&name));
                prop_assert!(read.is_ok(), "{}: a file that is not whole: {}: {:?}", when, name, read.err());
            }
            Ok(())
        })?;
    }

    /// Known limits: "A process killed while writing leaves no file of its own where the OS has
    /// `O_TMPFILE` (Linux) ...; a set of files (codegen) killed while renaming can leave some new
    /// files in place and an old one under a `.old-…` name" — and nothing else: frozen or killed
    /// at any moment of `FileSet` commits, every file of the set present is whole (old or new),
    /// at most the one being renamed is missing, and nothing is left but old files under
    /// `.old-…` names (no staged file under a name of its own).
    #[test]
    fn a_file_set_killed_at_any_moment_leaves_whole_files_and_nothing_but_old_ones_aside(pauses in prop::collection::vec(0..3_000u64, 150)) {
        let (tmp, _out) = scratch();
        let root = tmp.path().to_path_buf();
        freeze_and_kill_a_writer("fileset", &root, &pauses, &mut |when| {
            let tree = snapshot(&root);
            let mut missing = Vec::new();
            for i in 0..SET_FILES {
                let path = PathBuf::from(format!("generated/m{}/f{i}.rs", i % 4));
                let Ok(contents) = std::fs::read_to_string(root.join(&path)) else {
                    missing.push(path);
                    continue;
                };
                let version: u64 = contents[1..].split(' ').next().unwrap().parse().unwrap();
                prop_assert_eq!(&contents, &set_contents(version, i), "{}: {} is not whole", when, path.display());
            }
            prop_assert!(missing.len() <= 1, "{}: files of the set missing: {:?}", when, missing);
            let strays: Vec<String> = tree
                .iter()
                .filter(|(path, what)| {
                    let name = path.file_name().unwrap().to_string_lossy();
                    !(what.as_str() == "dir" || (name.starts_with('f') && name.ends_with(".rs")) || name.starts_with(".old-"))
                })
                .map(|(path, what)| format!("{} ({})", path.display(), what.chars().take(40).collect::<String>()))
                .collect();
            // SECURITY.md's Known limits, corrected after this case: the one file being put in
            // place (linked under a random name, then renamed) can be left there, whole.
            let whole_in_flight = |path: &Path| {
                let contents = std::fs::read_to_string(root.join(path)).unwrap_or_default();
                let version = contents.get(1..).and_then(|rest| rest.split(' ').next()?.parse::<u64>().ok());
                version.is_some_and(|version| (0..SET_FILES).any(|i| contents == set_contents(version, i)))
            };
            let in_flight: Vec<&PathBuf> = tree
                .iter()
                .filter(|(path, what)| {
                    let name = path.file_name().unwrap().to_string_lossy();
                    !(what.as_str() == "dir" || (name.starts_with('f') && name.ends_with(".rs")) || name.starts_with(".old-"))
                        && whole_in_flight(path)
                })
                .map(|(path, _)| path)
                .collect();
            prop_assert!(strays.len() <= 1 && strays.len() == in_flight.len(), "{}: files that are neither the set's, old ones aside nor one whole file in flight: {:?}", when, strays);
            Ok(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------------
// every judgement: the fake's `check_replay`

/// "recordings replayed by the fake ... a replay no request came to (`check_replay` says how
/// many exchanges it loaded and requests it answered: nothing replayed is not a pass)". Data
/// requests that an injected fault answers "before its normal handling" never reach the
/// replay: when every data request was answered by a fault, nothing was replayed, and
/// `check_replay` must not be a pass.
#[test]
fn check_replay_is_not_a_pass_when_injected_faults_answered_every_data_request() {
    use marketplace_fake::{FakeMarketplace, Fault, Replay};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let faults = [
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        Fault::HtmlErrorPage { status: 502 },
        Fault::Rcode(0),
        Fault::Reset,
    ];
    let recorded = app_recording();
    let invoice = recorded
        .iter()
        .find(|e| e.method == "pay/getInvoice")
        .unwrap();
    let invoice_id: u64 = invoice.params["id"].parse().unwrap();
    for fault in faults {
        let label = format!("{fault:?}");
        let verdict = runtime.block_on(async {
            let fake = FakeMarketplace::start().await.unwrap();
            fake.replay(Replay::from_exchanges(recorded.clone()).unwrap());
            let client = fake
                .client_builder()
                .retry(marketplace_client::RetryPolicy::none())
                .build()
                .unwrap();
            let session = fake.sign_in(&client, "dwhitfield").await.unwrap();
            fake.faults().inject(None, fault, 100);
            let answer = session.get_invoice(invoice_id).send().await;
            assert!(
                answer.is_err(),
                "{label}: the fault did not answer: {answer:?}"
            );
            fake.check_replay()
        });
        assert!(
            verdict.is_err(),
            "{label}: nothing was replayed, yet check_replay passed: {verdict:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// tools' output: no control character reaches a terminal or CI log

/// Control characters a hostile text carries (C0, DEL, C1), the line break among them (the
/// tab is left out: a report may well hold tabs of its own). The classes below are small, so
/// each case tries every character in every place.
const CONTROL_CHARS: [char; 8] = [
    '\u{1b}', '\n', '\r', '\u{7}', '\u{b}', '\u{7f}', '\u{85}', '\u{9b}',
];

/// A text that, printed raw, would start a line of its own (`FORGED ...`) or move the cursor.
fn hostile(c: char) -> String {
    format!("x{c}FORGED: no finding{c}[31m")
}

/// Runs `attempt` for every control character in every place, and fails listing each
/// (place, character) whose output carried a control character or a line the input began.
fn no_output_leaks(places: usize, attempt: &mut dyn FnMut(char, usize) -> String) {
    let mut leaks = Vec::new();
    let mut example = None;
    for place in 0..places {
        for c in CONTROL_CHARS {
            let output = attempt(c, place);
            let controls = controls(&output);
            let forged = forged_lines(&output, "FORGED");
            if !controls.is_empty() || !forged.is_empty() {
                leaks.push(format!(
                    "place {place}, {c:?}: control characters {controls:?}, lines the input began {forged:?}"
                ));
                example.get_or_insert(output);
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} of {} attempts leaked:\n{}\nfirst such output:\n{}",
        leaks.len(),
        places * CONTROL_CHARS.len(),
        leaks.join("\n"),
        example.unwrap_or_default()
    );
}

/// The body of the committed recording's pay/getInvoice answer, with `key` set to `value`
/// under `data.bidDetails` (a field the spec does not know: an `unknown-field` finding that
/// quotes the key and the value).
fn invoice_body_with(key: &str, value: &str) -> String {
    let invoice = app_recording()
        .into_iter()
        .find(|e| e.method == "pay/getInvoice")
        .unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(invoice.body.as_deref().unwrap()).unwrap();
    json["data"]["bidDetails"][key] = value.into();
    json.to_string()
}

/// "tools' output ... | no control character reaches a terminal or CI log": every text a
/// recording holds is untrusted ("recordings" are files a pull request can add). Put a
/// control character (a line break among them) in the method name, a field name or value
/// of a body, an error code, or the recording's file name: the wire-audit report quotes it,
/// and must neither carry the character nor let the recording start a line of its own
/// (a forged `FORGED: no finding` line in a CI log).
#[test]
fn no_text_of_a_recording_reaches_the_wire_audit_report_with_a_control_character() {
    no_output_leaks(5, &mut |c, place| {
        let (tmp, out) = scratch();
        let evil = hostile(c);
        let mut file_name = "r.jsonl".to_string();
        let exchange = match place {
            0 => exchange(&format!("pay/{evil}"), 200, Some("{}")),
            1 => exchange(
                "pay/getInvoice",
                200,
                Some(&invoice_body_with(&format!("k{evil}"), "v")),
            ),
            2 => exchange(
                "pay/getInvoice",
                200,
                Some(&invoice_body_with("overtimeHours", &evil)),
            ),
            3 => exchange(
                "pay/getInvoice",
                400,
                Some(&format!(
                    r#"{{"error":{{"code":"E_{evil}","message":"m"}}}}"#
                )),
            ),
            _ => {
                file_name = format!("r{evil}.jsonl");
                exchange(
                    "pay/getInvoice",
                    200,
                    Some(&invoice_body_with("overtimeHours", "2.5")),
                )
            }
        };
        out.write(&file_name, recording_text(&[exchange])).unwrap();
        let result = xtask(&["wire-audit".as_ref(), tmp.path().as_os_str()], tmp.path());
        text(&result)
    });
}

/// "tools' output ... | no control character reaches a terminal or CI log, the arguments
/// clap's errors quote included": paths given on the command line come back in reports
/// ("looked at …", "against …", "e.g. …:1", "cannot write …"). A path holding a control
/// character (a line break among them) is quoted without it, whichever command quotes it.
#[test]
fn no_path_named_on_the_command_line_reaches_a_report_with_a_control_character() {
    no_output_leaks(5, &mut |c, command| {
        let (tmp, out) = scratch();
        let evil = hostile(c);
        let reference =
            std::fs::read(workspace_root().join("spec/reference/marketplace-api.md")).unwrap();
        let args: Vec<std::ffi::OsString> = match command {
            0 => {
                out.write(format!("r{evil}.jsonl"), drifted_recording())
                    .unwrap();
                vec![
                    "wire-audit".into(),
                    tmp.path().join(format!("r{evil}.jsonl")).into(),
                ]
            }
            1 => {
                out.subdir(format!("d{evil}")).unwrap();
                vec![
                    "wire-audit".into(),
                    tmp.path().join(format!("d{evil}")).into(),
                ]
            }
            2 => {
                out.write(format!("ref{evil}.md"), &reference).unwrap();
                vec![
                    "spec-audit".into(),
                    "--reference".into(),
                    tmp.path().join(format!("ref{evil}.md")).into(),
                ]
            }
            3 => {
                out.write("r.jsonl", drifted_recording()).unwrap();
                vec![
                    "wire-audit".into(),
                    "--spec".into(),
                    tmp.path().join(format!("spec{evil}")).into(),
                    tmp.path().join("r.jsonl").into(),
                ]
            }
            _ => {
                out.write("r.jsonl", drifted_recording()).unwrap();
                out.write(format!("file{evil}"), "a file where a directory is needed")
                    .unwrap();
                vec![
                    "wire-audit".into(),
                    "--propose-into".into(),
                    tmp.path().join(format!("file{evil}")).join("into").into(),
                    tmp.path().join("r.jsonl").into(),
                ]
            }
        };
        let result = run(Command::new(XTASK)
            .args(&args)
            .current_dir(tmp.path())
            .env_remove("GIT_DIR"));
        text(&result)
    });
}

/// "tools' output ... | no control character reaches a terminal or CI log": `cargo xtask
/// target-dir` prints cargo's target directory from the environment (`CARGO_TARGET_DIR`),
/// a value the tool did not choose. Printed, it carries no control character and starts no
/// line of its own.
#[test]
fn an_environment_value_printed_by_target_dir_carries_no_control_character() {
    no_output_leaks(1, &mut |c, _| {
        let (tmp, _out) = scratch();
        let dir = tmp.path().join(hostile(c));
        let result = run(Command::new(XTASK)
            .arg("target-dir")
            .current_dir(tmp.path())
            .env("CARGO_TARGET_DIR", &dir));
        text(&result)
    });
}

// git in a scratch repository: spec-diff reads revisions from `GIT_DIR`, untrusted like a
// pull request's commits.

fn git(repo: &Path, args: &[&str]) -> String {
    let out = run(Command::new("git")
        .args([
            "-c",
            "user.name=red",
            "-c",
            "user.email=red@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
        ])
        .args(args)
        .current_dir(repo)
        .env("GIT_DIR", repo.join(".git"))
        .env("GIT_WORK_TREE", repo));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A scratch repository whose first commit holds the committed spec (`spec/*.yaml`).
fn spec_repo() -> (tempfile::TempDir, OutputDir) {
    let (tmp, out) = scratch();
    git(tmp.path(), &["init", "-q"]);
    for entry in std::fs::read_dir(workspace_root().join("spec"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name();
        if name.to_string_lossy().ends_with(".yaml") {
            out.write(
                Path::new("spec").join(&name),
                std::fs::read(entry.path()).unwrap(),
            )
            .unwrap();
        }
    }
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-q", "-m", "base"]);
    (tmp, out)
}

fn commit_all(repo: &Path, message: &str) {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "--allow-empty", "-m", message]);
}

fn spec_diff(repo: &Path, base: &str, head: &str) -> Output {
    run(Command::new(XTASK)
        .args(["spec-diff", "--base", base, "--head", head])
        .current_dir(repo)
        .env("GIT_DIR", repo.join(".git")))
}

/// "tools' output ... | no control character reaches a terminal or CI log" for what
/// spec-diff reads with git ("git's output and trees" are untrusted): a spec file's name
/// in the tree, a type's name and its doc, each holding a control character (a line break
/// among them). The report or the error naming them carries none and starts no line of
/// the input's.
#[test]
fn no_text_of_a_revision_reaches_the_spec_diff_report_with_a_control_character() {
    no_output_leaks(3, &mut |c, place| {
        let (repo, out) = spec_repo();
        let evil = hostile(c);
        let yaml_string = |s: &str| serde_json::to_string(s).unwrap();
        let (name, contents) = match place {
            0 => (format!("extra{evil}.yaml"), "doc: extra\ntypes:\n  ExtraThing:\n    doc: An extra.\n    fields:\n      a:\n        type: string\n        doc: x\n".to_string()),
            1 => ("extra.yaml".to_string(), format!("doc: extra\ntypes:\n  {}:\n    doc: An extra.\n    fields:\n      a:\n        type: string\n        doc: x\n", yaml_string(&format!("Extra{evil}")))),
            _ => ("extra.yaml".to_string(), format!("doc: extra\ntypes:\n  ExtraThing:\n    doc: {}\n    fields:\n      a:\n        type: string\n        doc: x\n", yaml_string(&format!("An extra{evil}")))),
        };
        out.write(Path::new("spec").join(&name), contents).unwrap();
        commit_all(repo.path(), "head");
        let result = spec_diff(repo.path(), "HEAD~1", "HEAD");
        text(&result)
    });
}

// the fake's binary

/// Runs the fake's binary with `env` until it says how to stop it (or ends), stops it with
/// Ctrl-C (SIGINT, to its own process id), and returns what it printed.
fn run_fake(binary: &Path, env: &[(&str, &std::ffi::OsStr)]) -> String {
    let mut command = Command::new(binary);
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { break };
            let done = String::from_utf8_lossy(&line).contains("Ctrl-C");
            let _ = send.send(line);
            if done {
                break;
            }
        }
    });
    let mut printed = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Ok(line) = receive.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let done = String::from_utf8_lossy(&line).contains("Ctrl-C");
        printed.extend(line);
        printed.push(b'\n');
        if done {
            break;
        }
    }
    if child.try_wait().unwrap().is_none() {
        sh("kill", &["-INT".as_ref(), child.id().to_string().as_ref()]);
    }
    let _ = child.wait();
    let mut errors = Vec::new();
    let _ = stderr.read_to_end(&mut errors);
    printed.extend(errors);
    String::from_utf8_lossy(&printed).into_owned()
}

/// "tools' output (stdout, stderr of `cargo xtask …` and `fake-marketplace`) | no control
/// character reaches a terminal or CI log ... (the fake's binary escapes them by the same
/// rule)": the binary prints the path of its certificate, made in the temporary folder
/// the environment names (`TMPDIR`). A control character in that folder's name is not
/// printed raw.
#[test]
fn the_fakes_certificate_path_reaches_the_terminal_without_control_characters() {
    let binary = fake_binary();
    no_output_leaks(1, &mut |c, _| {
        let (tmp, out) = scratch();
        let evil = hostile(c);
        out.subdir(format!("tmp{evil}")).unwrap();
        let printed = run_fake(
            &binary,
            &[("TMPDIR", tmp.path().join(format!("tmp{evil}")).as_os_str())],
        );
        assert!(printed.contains("certificate"), "{printed}");
        printed
    });
}

/// "tools' output (stdout, stderr of `cargo xtask …` and `fake-marketplace`) | no control
/// character reaches a terminal or CI log", for the fake's own errors: a recording
/// directory the environment names (`MARKETPLACE_FAKE_RECORD_DIR`) that cannot be made is
/// named in the error the binary prints ("cannot start: …"), without a control character.
#[test]
fn the_fakes_error_naming_its_recording_directory_carries_no_control_character() {
    let binary = fake_binary();
    no_output_leaks(1, &mut |c, _| {
        let (tmp, out) = scratch();
        let evil = hostile(c);
        out.write(format!("file{evil}"), "a file where a directory is needed")
            .unwrap();
        let dir = tmp.path().join(format!("file{evil}")).join("recordings");
        out.subdir("tmp").unwrap();
        run_fake(
            &binary,
            &[
                ("MARKETPLACE_FAKE_RECORD_DIR", dir.as_os_str()),
                ("TMPDIR", tmp.path().join("tmp").as_os_str()),
            ],
        )
    });
}

// ---------------------------------------------------------------------------------------------
// every judgement of the tools: nothing judged is not a pass

/// A spelling of a data method that is not the spec's own (case, white space, slashes, the
/// path instead of the name, a look-alike character, a query).
fn lookalike(method: &str) -> impl Strategy<Value = String> {
    let method = method.to_string();
    (0..10usize).prop_map(move |kind| match kind {
        0 => method.to_uppercase(),
        1 => method.to_lowercase(),
        2 => format!(" {method}"),
        3 => format!("{method} "),
        4 => format!("{method}/"),
        5 => format!("/api/{method}"),
        6 => method.replace('/', "\u{ff0f}"),
        7 => method.replacen('e', "\u{435}", 1),
        8 => format!("{method}?id=1"),
        _ => method.replace('/', "\u{200b}/"),
    })
}

proptest! {
    #![proptest_config(config(24))]

    /// "every judgement of the tools (`wire-audit`, …) | nothing judged is not a pass ... judging
    /// nothing, whatever the reason (..., methods the spec does not have, ...), is an input
    /// error (exit 2) naming what was looked at and why". Real answers recorded under a method
    /// name that only resembles the spec's (another case, white space, a trailing slash, the
    /// request path, a Cyrillic `е`, a query), from either side, as GET or as HEAD requests
    /// without a body: if the audit does not judge them, it must exit 2 naming them; it never
    /// passes.
    #[test]
    fn answers_recorded_under_lookalike_method_names_are_never_a_pass(
        spellings in prop::collection::vec(
            prop_oneof![lookalike("pay/getInvoice"), lookalike("manage/getMyProviders"), lookalike("pay/getTimesheet")],
            1..4,
        ),
        side_server in any::<bool>(),
        head_requests in any::<bool>(),
    ) {
        let (tmp, out) = scratch();
        let real = app_recording();
        let exchanges: Vec<Exchange> = spellings
            .iter()
            .map(|spelled| {
                let original = real.iter().find(|e| spelled.to_lowercase().contains(&e.method.to_lowercase()) || e.method == "pay/getInvoice").unwrap();
                let mut e = original.clone();
                e.method = spelled.clone();
                if side_server {
                    e.side = Side::Server;
                    e.attempt = None;
                    e.latency_us = None;
                }
                if head_requests {
                    e.http_method = "HEAD".into();
                    e.body = None;
                }
                e
            })
            .collect();
        out.write("lookalikes.jsonl", recording_text(&exchanges)).unwrap();
        let result = xtask(&["wire-audit".as_ref(), tmp.path().join("lookalikes.jsonl").as_os_str()], tmp.path());
        let report = text(&result);
        let code = result.status.code();
        prop_assert_ne!(code, Some(0), "nothing the spec has was recorded, yet the audit passed:\n{}", report);
        if code == Some(2) {
            prop_assert!(report.contains("nothing to judge") && report.contains("lookalikes.jsonl"), "{}", report);
        } else {
            prop_assert!(!report.contains("judged nothing") && !report.contains("judged 0 "), "{}", report);
        }
    }
}

/// "command-line revisions (`spec-diff --base/--head`) | never an option: verified to a commit
/// id first" and "every judgement ... nothing judged is not a pass": a revision that is a tag,
/// an annotated tag, a tag of a tag or a reflog entry is verified to its
/// commit and judged (the report names the commit and what it judged); a tag that names a
/// tree or a blob, a range, or a tree path names no commit: an input error (exit 2) naming it.
#[test]
fn tags_annotated_tags_and_tags_of_trees_are_verified_to_commits_or_refused() {
    let (repo, out) = spec_repo();
    let path = repo.path();
    git(path, &["tag", "light"]);
    git(path, &["tag", "-a", "-m", "annotated", "annotated"]);
    git(
        path,
        &["tag", "-a", "-m", "a tag of a tag", "nested", "annotated"],
    );
    let tree = git(path, &["rev-parse", "HEAD^{tree}"]);
    git(
        path,
        &["tag", "-a", "-m", "a tag of a tree", "of-a-tree", &tree],
    );
    let blob = git(path, &["rev-parse", "HEAD:spec/api.yaml"]);
    git(path, &["tag", "of-a-blob", &blob]);
    let base_commit = git(path, &["rev-parse", "HEAD"]);
    let api = std::fs::read_to_string(path.join("spec/api.yaml")).unwrap();
    out.write(
        "spec/api.yaml",
        api.replacen("api_version: 1", "api_version: 2", 1),
    )
    .unwrap();
    commit_all(path, "head: api version 2");
    for base in [
        "light",
        "annotated",
        "nested",
        "HEAD@{1}",
        "HEAD~1^0",
        &base_commit[..12],
    ] {
        let result = spec_diff(path, base, "HEAD");
        let report = text(&result);
        assert_eq!(result.status.code(), Some(0), "--base {base}: {report}");
        assert!(
            report.contains(&base_commit[..7]),
            "--base {base}: the report names the commit it verified: {report}"
        );
        assert!(
            report.contains("1 change") && report.contains("judged 1 service description"),
            "--base {base}: {report}"
        );
    }
    for base in [
        "of-a-tree",
        "of-a-blob",
        "HEAD^{tree}",
        "HEAD:spec",
        "light..HEAD",
        "light...HEAD",
        "HEAD^!",
        "^light",
    ] {
        let result = spec_diff(path, base, "HEAD");
        let report = text(&result);
        assert_eq!(result.status.code(), Some(2), "--base {base}: {report}");
        assert!(
            report.contains(base),
            "--base {base}: the error names the revision: {report}"
        );
    }
}

proptest! {
    #![proptest_config(config(16))]

    /// "spec files | regular files only" and "every judgement ... nothing judged is not a pass
    /// ... (a revision without spec files, ...)": a revision whose `spec` holds nothing the
    /// tools read — `spec` a file, the YAML one folder down, spelled `.yml` or `.YAML`, a
    /// folder named `api.yaml`, YAML files empty or of comments only, or no `spec` at all —
    /// is an input error naming the revision; never an empty "No change to the API".
    #[test]
    fn a_revision_whose_spec_holds_nothing_readable_is_an_input_error(shape in 0..8usize, side_is_base in any::<bool>()) {
        let (repo, out) = spec_repo();
        let path = repo.path();
        let files: Vec<(String, Vec<u8>)> = std::fs::read_dir(path.join("spec"))
            .unwrap()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        out.remove_all("spec").unwrap();
        match shape {
            0 => out.write("spec", "not a folder").unwrap(),
            1 => { for (name, bytes) in &files { out.write(format!("spec/v1/{name}"), bytes).unwrap(); } }
            2 => { for (name, bytes) in &files { out.write(format!("spec/{}", name.replace(".yaml", ".yml")), bytes).unwrap(); } }
            3 => { for (name, bytes) in &files { out.write(format!("spec/{}", name.replace(".yaml", ".YAML")), bytes).unwrap(); } }
            4 => { for (name, bytes) in &files { out.write(format!("spec/{name}/contents"), bytes).unwrap(); } }
            5 => { for (name, _) in &files { out.write(format!("spec/{name}"), "").unwrap(); } }
            6 => { for (name, _) in &files { out.write(format!("spec/{name}"), "# nothing here\n---\n# nor here\n").unwrap(); } }
            _ => out.write("README.md", "no spec at all").unwrap(),
        }
        commit_all(path, "hollow");
        let (base, head) = if side_is_base { ("HEAD", "HEAD~1") } else { ("HEAD~1", "HEAD") };
        let result = spec_diff(path, base, head);
        let report = text(&result);
        prop_assert_eq!(result.status.code(), Some(2), "shape {}: {}", shape, report);
        prop_assert!(!report.contains("No change to the API"), "shape {}: {}", shape, report);
        prop_assert!(report.contains("hollow") || report.contains(&git(path, &["rev-parse", "--short", "HEAD"])), "shape {}: the error names the revision: {}", shape, report);
    }
}

// ---------------------------------------------------------------------------------------------
// files the tools write: `wire-audit --propose-into`

/// What a case plants at a name in the folder `--propose-into` writes to.
fn planted_entry() -> impl Strategy<Value = usize> {
    0..9usize
}

fn plant(kind: usize, dir: &OutputDir, at: &Path, outside: &Path) {
    match kind {
        0 => {}
        1 => dir.write(at.file_name().unwrap(), "an old copy").unwrap(),
        2 => hard_link(outside.join("victim.yaml"), at),
        3 => symlink(outside.join("victim.yaml"), at),
        4 => symlink(outside.join("made-through-a-link.yaml"), at),
        5 => symlink(at, at),
        6 => fifo(at),
        7 => symlink(outside, at),
        _ => dir
            .write(
                Path::new(at.file_name().unwrap()).join("inside"),
                "a folder in the way",
            )
            .unwrap(),
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// "files the tools write (... `wire-audit --propose-into` ...) | only where asked, never
    /// half-written: nothing outside the directory named changes, whatever links stand below
    /// it; a file appears whole or not at all" — for what no case of the project plants: a
    /// hard link to a file outside, a dangling link, a link loop, a FIFO, a link to a folder
    /// outside, at any of the proposed files' names. Nothing outside changes; the run either
    /// writes every proposed file whole (exit 1: findings) or fails (exit 2) leaving every
    /// name as it was.
    #[test]
    fn whatever_stands_at_the_proposed_files_names_nothing_outside_changes(
        planted in prop::collection::vec(planted_entry(), 4),
    ) {
        let (tmp, out) = scratch();
        out.write("outside/victim.yaml", "the victim").unwrap();
        out.write("r.jsonl", drifted_recording()).unwrap();
        let into = out.subdir("into").unwrap();
        let clean = out.subdir("clean").unwrap();
        let outside = tmp.path().join("outside");
        let names = ["api.yaml", "manage.yaml", "pay.yaml", "workroom.yaml"];
        for (name, kind) in names.iter().zip(&planted) {
            plant(*kind, &into, &tmp.path().join("into").join(name), &outside);
        }
        let reference = xtask(&["wire-audit".as_ref(), "--propose-into".as_ref(), clean.path().as_os_str(), tmp.path().join("r.jsonl").as_os_str()], tmp.path());
        prop_assert_eq!(reference.status.code(), Some(1), "{}", text(&reference));
        let before = snapshot(tmp.path());
        let result = xtask(&["wire-audit".as_ref(), "--propose-into".as_ref(), tmp.path().join("into").as_os_str(), tmp.path().join("r.jsonl").as_os_str()], tmp.path());
        let after = snapshot(tmp.path());
        let outside_of = |s: &BTreeMap<PathBuf, String>| everything_but(s, Path::new("into"));
        prop_assert_eq!(outside_of(&before), outside_of(&after), "something outside into/ changed: {}", text(&result));
        match result.status.code() {
            Some(1) => {
                for name in names {
                    let written = tmp.path().join("into").join(name);
                    prop_assert!(!is_link(&written), "{} is still a link", name);
                    prop_assert_eq!(std::fs::read(&written).ok(), std::fs::read(tmp.path().join("clean").join(name)).ok(), "{} is not the whole proposal", name);
                }
            }
            Some(2) => {
                let inside = |s: &BTreeMap<PathBuf, String>| s.iter().filter(|(p, _)| p.starts_with("into")).map(|(p, w)| (p.clone(), w.clone())).collect::<BTreeMap<_, _>>();
                prop_assert_eq!(inside(&before), inside(&after), "a failed run changed into/: {}", text(&result));
            }
            other => prop_assert!(false, "exit {:?}: {}", other, text(&result)),
        }
    }
}

/// "a file appears whole or not at all", for `--propose-into DIR` when DIR itself cannot be a
/// folder: a link loop, a dangling link inside the scratch folder, a FIFO, a file. The run is
/// an error (exit 2) naming DIR, and nothing appears anywhere.
#[test]
fn a_propose_into_folder_that_cannot_be_one_is_an_error_and_writes_nothing() {
    for kind in ["loop", "fifo", "file", "dangling-in-loop"] {
        let (tmp, out) = scratch();
        out.write("r.jsonl", drifted_recording()).unwrap();
        let into = tmp.path().join("into");
        match kind {
            "loop" => symlink(&into, &into),
            "fifo" => fifo(&into),
            "file" => out.write("into", "a file").unwrap(),
            _ => {
                symlink(tmp.path().join("b"), tmp.path().join("a"));
                symlink(tmp.path().join("a/x"), tmp.path().join("b"));
                symlink(tmp.path().join("a/into"), &into);
            }
        }
        let before = snapshot(tmp.path());
        let result = xtask(
            &[
                "wire-audit".as_ref(),
                "--propose-into".as_ref(),
                into.as_os_str(),
                tmp.path().join("r.jsonl").as_os_str(),
            ],
            tmp.path(),
        );
        assert_eq!(result.status.code(), Some(2), "{kind}: {}", text(&result));
        assert!(
            text(&result).contains("into"),
            "{kind}: the error names the folder: {}",
            text(&result)
        );
        assert_eq!(
            before,
            snapshot(tmp.path()),
            "{kind}: something was written"
        );
    }
}
