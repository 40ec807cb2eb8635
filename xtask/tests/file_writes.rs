//! Every file a program of the project writes goes through `marketplace_client::files`
//! (generated-client/src/files/), and this is enforced by construction: the root `clippy.toml`
//! refuses the standard library's and tokio's writing and deleting calls (CI runs clippy with
//! `-D warnings` on every target), and this test fails when anything turns that ban off outside
//! the one module: an `allow` or `expect` of the lints (or of `clippy::style` or `clippy::all`,
//! the groups that hold them) in a source file, a lint level in a manifest, a flag in a script
//! or cargo configuration, or a second `clippy.toml` that would replace the root one for the
//! crates below it.

use std::path::{Path, PathBuf};

/// The module allowed to name the lints (it takes the process's authority over paths once).
const THE_MODULE: &str = "generated-client/src/files/";

/// The reader of untrusted files, allowed one read-only open through rustix (the flags of
/// which [`the_reader_opens_read_only`] checks).
const THE_READER: &str = "generated-client/src/input_file.rs";

/// rustix's open flags that write or create.
const WRITING_FLAGS: &[&str] = &[
    "CREATE", "WRONLY", "RDWR", "TRUNC", "APPEND", "TMPFILE", "EXCL",
];

/// The lints' names, spelled so that this file does not hold them.
fn lints() -> [String; 2] {
    [
        format!("disallowed{}methods", '_'),
        format!("disallowed{}types", '_'),
    ]
}

/// The calls the root `clippy.toml` must refuse, each with a reason naming the module.
const BANNED: &[&str] = &[
    "std::fs::write",
    "std::fs::File::create",
    "std::fs::File::create_new",
    "std::fs::File::options",
    "std::fs::copy",
    "std::fs::rename",
    "std::fs::hard_link",
    "std::fs::create_dir",
    "std::fs::create_dir_all",
    "std::fs::remove_file",
    "std::fs::remove_dir",
    "std::fs::remove_dir_all",
    "std::fs::OpenOptions",
    "tokio::fs::write",
    "tokio::fs::File::create",
    "tokio::fs::copy",
    "tokio::fs::rename",
    "tokio::fs::create_dir_all",
    "tokio::fs::remove_file",
    "tokio::fs::remove_dir_all",
    "tokio::fs::OpenOptions",
    "cap_std::ambient_authority",
    "rustix::fs::open",
    "rustix::fs::openat",
];

/// Every file below `root` that could turn the ban off, by path relative to `root`: Rust
/// sources, manifests, cargo configurations, scripts, clippy configurations. Build output and
/// git's own folder are left out; links are not followed.
fn files(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap())
            .collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                if !matches!(name.as_str(), "target" | ".git") {
                    walk(root, &path, found);
                }
            } else if kind.is_file()
                && (name.ends_with(".rs")
                    || name.ends_with(".toml")
                    || name.ends_with(".sh")
                    || name == "run"
                    || name == "config")
            {
                found.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut found = Vec::new();
    walk(root, root, &mut found);
    found
}

/// Whether `line` turns the ban off: it names one of the lints, or allows a group that holds
/// them (in an attribute, a command-line flag, or a manifest's lint table).
fn turns_off(line: &str, manifest: bool) -> bool {
    let line = line.trim();
    let names_a_lint = lints().iter().any(|lint| line.contains(lint.as_str()));
    let group = ["clippy::all", "clippy::style"]
        .iter()
        .any(|group| line.contains(group));
    let attribute = (line.starts_with("#[") || line.starts_with("#!["))
        && (line.contains("allow(") || line.contains("expect("));
    let flag = line.contains("-A clippy::") || line.contains("--allow clippy::");
    let manifest_group = manifest
        && (line.starts_with("all") || line.starts_with("style"))
        && line.contains("allow");
    names_a_lint || (group && (attribute || flag)) || manifest_group
}

/// What turns the ban off below `root`, one line each (empty when nothing does).
fn offenders(root: &Path) -> Vec<String> {
    let mut offenders = Vec::new();
    for relative in files(root) {
        let shown = relative.to_string_lossy().replace('\\', "/");
        let name = relative.file_name().unwrap().to_string_lossy();
        if (name == "clippy.toml" || name == ".clippy.toml") && shown != "clippy.toml" {
            offenders.push(format!(
                "{shown}: a clippy configuration besides the root one replaces its ban"
            ));
            continue;
        }
        if shown.starts_with(THE_MODULE) {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&relative)).unwrap_or_default();
        let mut reader_allows = 0;
        for (number, line) in text.lines().enumerate() {
            // The reader's one allow, of the methods' lint only, for its read-only open.
            let reader_open = shown == THE_READER
                && line.trim() == format!("clippy::{},", lints()[0])
                && text.lines().nth(number.wrapping_sub(1)).map(str::trim) == Some("#[allow(");
            if reader_open {
                reader_allows += 1;
                if reader_allows == 1 {
                    continue;
                }
            }
            if turns_off(line, name.ends_with(".toml")) {
                offenders.push(format!("{shown}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    offenders
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn the_ban_on_writing_calls_is_turned_off_nowhere_but_the_one_module() {
    let root = workspace_root();
    let offenders = offenders(&root);
    assert!(
        offenders.is_empty(),
        "the ban of clippy.toml turned off outside {THE_MODULE} (write through \
         marketplace_client::files instead):\n{}",
        offenders.join("\n")
    );
    // The walk saw the sources (a broken walk would find nothing to refuse).
    let seen = files(&root);
    for expected in [
        "xtask/src/codegen.rs",
        "tests/fuzz/fuzz_targets",
        "tests/app/src",
        "generated-client/src/files/mod.rs",
    ] {
        assert!(
            seen.iter().any(|path| path.starts_with(expected)),
            "{expected} not seen"
        );
    }
}

/// The one open through rustix outside the writer is the reader's, and it reads only: no
/// writing flag in the reader, and one call.
#[test]
fn the_reader_opens_read_only() {
    let text = std::fs::read_to_string(workspace_root().join(THE_READER)).unwrap();
    let opens = text.matches("rustix::fs::open(").count();
    assert_eq!(opens, 1, "{THE_READER} opens through rustix {opens} times");
    assert!(text.contains("OFlags::RDONLY"), "{THE_READER}: no RDONLY");
    for flag in WRITING_FLAGS {
        assert!(
            !text.contains(&format!("OFlags::{flag}")),
            "{THE_READER} opens with OFlags::{flag}"
        );
    }
}

#[test]
fn the_root_clippy_toml_refuses_every_writing_call_naming_the_module() {
    let config = std::fs::read_to_string(workspace_root().join("clippy.toml")).unwrap();
    for path in BANNED {
        let entry = config
            .lines()
            .find(|line| line.contains(&format!("path = \"{path}\"")))
            .unwrap_or_else(|| panic!("clippy.toml does not refuse {path}"));
        assert!(
            entry.contains("reason = ") && entry.contains("marketplace_client::files"),
            "{path}: its reason must name the module: {entry}"
        );
    }
}

#[test]
fn an_allow_anywhere_else_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let out = marketplace_client::files::OutputDir::open(dir.path()).unwrap();
    let [methods, types] = lints();
    out.write(
        "generated-client/src/files/mod.rs",
        format!("#[allow(clippy::{methods})]\n"),
    )
    .unwrap();
    out.write("clippy.toml", "disallowed-methods = []\n")
        .unwrap();
    out.write("xtask/src/lib.rs", "//! Fine.\n").unwrap();
    out.write(
        "xtask/src/sneaky.rs",
        format!("fn f() {{}}\n#[expect(clippy::{types})]\nfn g() {{}}\n"),
    )
    .unwrap();
    out.write(
        "tests/fuzz/fuzz_targets/t.rs",
        format!("#![allow(clippy::{methods})]\n"),
    )
    .unwrap();
    out.write(
        "tests/app/Cargo.toml",
        format!("[lints.clippy]\n{methods} = \"allow\"\n"),
    )
    .unwrap();
    out.write(".ci/run", format!("cargo clippy -- -A clippy::{methods}\n"))
        .unwrap();
    out.write("codegen/clippy.toml", "disallowed-methods = []\n")
        .unwrap();
    out.write(
        "codegen/src/lib.rs",
        "#![allow(clippy::style)]\nconst S: &str = \"#[allow(clippy::all)]\";\n",
    )
    .unwrap();
    out.write(
        "codegen/Cargo.toml",
        "[lints.clippy]\nall = { level = \"warn\", priority = -1 }\nstyle = \"allow\"\n",
    )
    .unwrap();
    out.write(
        "target/debug/build/out.rs",
        format!("#[allow(clippy::{methods})]\n"),
    )
    .unwrap();
    assert_eq!(
        offenders(dir.path()),
        [
            format!(".ci/run:1: cargo clippy -- -A clippy::{methods}"),
            "codegen/Cargo.toml:3: style = \"allow\"".to_owned(),
            "codegen/clippy.toml: a clippy configuration besides the root one replaces its ban"
                .to_owned(),
            "codegen/src/lib.rs:1: #![allow(clippy::style)]".to_owned(),
            format!("tests/app/Cargo.toml:2: {methods} = \"allow\""),
            format!("tests/fuzz/fuzz_targets/t.rs:1: #![allow(clippy::{methods})]"),
            format!("xtask/src/sneaky.rs:2: #[expect(clippy::{types})]"),
        ]
    );
}
