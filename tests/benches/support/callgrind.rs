//! Instructions per call, counted by valgrind's callgrind: the figure that does not move with
//! the load of a shared machine, printed beside criterion's times.
//!
//! A bench names its functions once ([`Functions`]) and hands them to criterion and to
//! [`count`]. After criterion, `count` runs the bench's own binary again under
//! `valgrind --tool=callgrind`, once per function, with `BENCH_COUNT_INSTRUCTIONS=<group>/<function>`
//! in its environment. The bench's `main` starts with [`child`]: in such a run it calls the
//! named function once to warm up (first-use allocations, lazy statics, the allocator's heap
//! layout), then once more inside [`counted`], the one function callgrind collects in
//! (`--toggle-collect`), and exits. The count is the `summary:` line of callgrind's output.
//! Without valgrind on the `PATH`, every count is `None` and the tables say "no valgrind".

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::ratio::Id;
use crate::thousands::thousands;

/// The environment variable that makes a bench binary count one function and exit.
const ENV: &str = "BENCH_COUNT_INSTRUCTIONS";

/// A bench's measured functions, by criterion group and function name.
pub struct Functions<'a> {
    entries: Vec<(Id, Box<dyn Fn() + 'a>)>,
}

impl<'a> Functions<'a> {
    pub fn new() -> Self {
        Functions {
            entries: Vec::new(),
        }
    }

    /// Adds `function` of `group`; its result is passed through `black_box`.
    pub fn add<R>(&mut self, id: Id, function: impl Fn() -> R + 'a) {
        self.entries.push((
            id,
            Box::new(move || {
                std::hint::black_box(function());
            }),
        ));
    }

    /// The functions of `group`, in the order they were added.
    pub fn of_group(&self, group: &str) -> impl Iterator<Item = (&'static str, &(dyn Fn() + 'a))> {
        self.entries
            .iter()
            .filter(move |(id, _)| id.group == group)
            .map(|(id, function)| (id.function, function.as_ref()))
    }
}

/// In a run started by [`count`]: counts the requested function and exits. Otherwise returns.
pub fn child(functions: &Functions<'_>) {
    let Ok(wanted) = std::env::var(ENV) else {
        return;
    };
    let (id, function) = functions
        .entries
        .iter()
        .find(|(id, _)| format!("{}/{}", id.group, id.function) == wanted)
        .unwrap_or_else(|| panic!("{ENV}={wanted}: no such function"));
    function();
    counted(function.as_ref());
    println!("counted {}/{}", id.group, id.function);
    std::process::exit(0);
}

/// The function callgrind counts in (by name: keep it out of line and non-generic).
#[inline(never)]
fn counted(function: &dyn Fn()) {
    function();
}

/// The instructions of one call of `id`, or `None` without valgrind.
///
/// # Panics
///
/// If valgrind runs but the count cannot be read (the child failed): a bench must not print a
/// table with a silently missing figure.
pub fn count(id: Id) -> Option<u64> {
    let (_dir, out) = run(id)?;
    let text = std::fs::read_to_string(&out).expect("callgrind's output file");
    Some(summary(&text))
}

/// Runs the bench's binary under callgrind for `id`; the output file in a fresh private
/// folder (valgrind writes it by name: nobody can plant a link there first; removed with the
/// folder), or `None` without valgrind.
fn run(id: Id) -> Option<(tempfile::TempDir, PathBuf)> {
    let exe = std::env::current_exe().expect("the bench's own path");
    let dir = tempfile::tempdir().expect("a private folder for callgrind's output");
    let out = dir
        .path()
        .join(format!("callgrind.{}.{}", id.group, id.function));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--toggle-collect=*callgrind::counted*")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .env(ENV, format!("{}/{}", id.group, id.function))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    assert!(status.success(), "callgrind run of {id:?} failed: {status}");
    Some((dir, out))
}

/// The `summary:` line of callgrind's output: every instruction counted.
fn summary(text: &str) -> u64 {
    let summary = text
        .lines()
        .find_map(|line| line.strip_prefix("summary:"))
        .expect("a summary line in callgrind's output");
    summary.trim().parse().expect("an instruction count")
}

/// One call of a function, function by function: what `callgrind_annotate --inclusive=yes`
/// says of it.
#[allow(dead_code)]
pub struct Profile {
    /// Every instruction counted.
    pub total: u64,
    /// Each function's inclusive count (itself and what it called), by its name as
    /// callgrind_annotate shows it (`file:function`).
    pub functions: Vec<(u64, String)>,
}

#[allow(dead_code)]
impl Profile {
    /// The largest inclusive count of a function whose name contains one of `patterns` (the
    /// largest, so a function nested in another match is not counted twice); 0 when none ran.
    pub fn inclusive(&self, patterns: &[&str]) -> u64 {
        self.functions
            .iter()
            .filter(|(_, name)| patterns.iter().any(|pattern| name.contains(pattern)))
            .map(|&(count, _)| count)
            .max()
            .unwrap_or(0)
    }
}

/// Like [`count`], with the inclusive count of every function (callgrind_annotate must be on
/// the `PATH` too). The raw output is kept as `<temp dir>/callgrind.<group>.<function>` for a
/// closer look.
#[allow(dead_code)]
pub fn profile(id: Id) -> Option<Profile> {
    let (_dir, out) = run(id)?;
    let text = std::fs::read_to_string(&out).expect("callgrind's output file");
    let annotated = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(&out)
        .output()
        .expect("callgrind_annotate");
    // Kept through the one writer: a link planted at the name is replaced, not followed.
    let kept = format!("callgrind.{}.{}", id.group, id.function);
    let _ = marketplace_client::files::OutputDir::open(std::env::temp_dir())
        .and_then(|temp| temp.write(&kept, &text));
    let functions = String::from_utf8_lossy(&annotated.stdout)
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let (count, rest) = line.split_once(' ')?;
            let count: u64 = count.replace(',', "").parse().ok()?;
            // `(12.34%)  file:function [binary]`
            let name = rest
                .trim_start()
                .split_once(')')
                .map_or(rest, |(_, name)| name);
            Some((count, name.trim().to_owned()))
        })
        .collect();
    Some(Profile {
        total: summary(&text),
        functions,
    })
}

/// An instruction count with thousands separators, or "no valgrind".
pub fn show(count: Option<u64>) -> String {
    count.map_or_else(|| "no valgrind".to_owned(), thousands)
}
