//! `cargo xtask package`: the published crates as crates.io would get them, and an app built
//! on them.
//!
//! 1. `cargo publish --dry-run --no-verify` of both published crates: what crates.io checks
//!    before an upload (metadata, the files shipped, path dependencies given versions);
//!    `cargo package --no-verify` then writes the `.crate` files to `package/` in the target
//!    directory (wherever cargo puts it: [`crate::target_dir`]).
//! 2. The app of `tests/app` (a workspace of its own, as a user's would be) is copied to a
//!    scratch folder in the target directory and tested against those packages: the `.crate`
//!    files are unpacked there and patched in for the crates.io versions it asks for, so it
//!    compiles against exactly what would be published, never against the workspace's sources. It depends on nothing but the
//!    two crates and tokio.
//!
//! 3. A package that ships examples (the fake's `tour`, the README's `cargo run --example
//!    tour`) has them built from its unpacked copy, with the same patches: an example shipped
//!    must compile from what would be uploaded, with the dependencies its manifest there
//!    declares (cargo's own verification builds a package's library and binaries only).
//!
//! Steps 2 and 3 are the packages' verification: they build both from their `.crate` files,
//! with their default features, and run the app's tests against the fake, so the dry run need
//! not build them a second time on its own.

use std::path::{Path, PathBuf};
use std::process::Command;

use marketplace_client::files::{FileError, OutputDir};

use crate::command_line::CommandError;
use crate::public_api::CRATES;

/// The app, relative to the workspace root.
pub const APP_DIR: &str = "tests/app";

/// Where the app is built, relative to the target directory.
pub const SCRATCH: &str = "tmp/packaged-app";

/// Where `cargo package` writes the `.crate` files, relative to the target directory.
pub const PACKAGES: &str = "package";

/// The folders of the scratch folder, emptied before each run: the unpacked packages, the app,
/// and the copies of the packages whose examples are built.
pub const SCRATCH_DIRS: [&str; 3] = ["packages", "app", "examples"];

/// Why packaging or the app failed.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A command failed.
    #[error("{command} failed ({status})")]
    Command {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
    },
    /// The target directory could not be found.
    #[error(transparent)]
    TargetDir(#[from] crate::target_dir::TargetDirError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl CommandError for PackageError {
    fn is_finding(&self) -> bool {
        match self {
            // The dry run refused a crate, or the app's build or tests failed.
            PackageError::Command { .. } => true,
            PackageError::TargetDir(_) | PackageError::Io { .. } => false,
        }
    }
}

/// Packages and verifies the published crates, then tests the app against the packages.
pub fn run(root: &Path) -> Result<(), PackageError> {
    let version = crate_version(root)?;
    let target = crate::target_dir::of_workspace(root)?;
    for step in [
        &[
            "publish",
            "--dry-run",
            "--no-verify",
            "--locked",
            "--allow-dirty",
        ][..],
        &["package", "--no-verify", "--locked", "--allow-dirty"][..],
    ] {
        let mut command = cargo(root);
        command.args(step);
        for (package, _) in CRATES {
            command.args(["-p", package]);
        }
        status(&mut command)?;
    }

    let scratch = target.join(SCRATCH);
    let packages = scratch.join("packages");
    let app = scratch.join("app");
    empty_scratch(&target)?;
    // Each package's folder in `packages/`, as a `[patch.crates-io]` for the version asked for.
    let mut unpacked = Vec::new();
    for (package, _) in CRATES {
        let file = target
            .join(PACKAGES)
            .join(format!("{package}-{version}.crate"));
        // `--touch`: the files get the time of unpacking, not the archive's, so that a build
        // folder that saw an earlier package does not take these for unchanged.
        status(
            Command::new("tar")
                .args(["--touch", "-xzf"])
                .arg(&file)
                .arg("-C")
                .arg(&packages),
        )?;
        unpacked.push((package, format!("{package}-{version}")));
    }
    copy_app(root, &target, &patches(&unpacked, "..", None))?;

    let mut test = cargo(&app);
    test.args(["test", "--target-dir"])
        .arg(scratch.join("target"));
    status(&mut test)?;

    for (package, name) in &unpacked {
        if !packages.join(name).join("examples").is_dir() {
            continue;
        }
        // The copy is `examples/<name>`, two levels below the scratch folder; it is the root
        // there, so it patches only the other packages.
        let patches = patches(&unpacked, "../..", Some(package));
        let copy = copy_package_for_examples(root, &target, name, &patches)?;
        let mut build = cargo(&copy);
        build
            .args(["build", "--examples", "--target-dir"])
            .arg(scratch.join("target"));
        status(&mut build)?;
    }
    Ok(())
}

/// The `[patch.crates-io]` table that puts the `unpacked` packages (name, folder in
/// `packages/`) in place of their crates.io versions, for a manifest whose folder reaches the
/// scratch folder by `up` (`..`, `../..`); `except` is left out.
fn patches(unpacked: &[(&str, String)], up: &str, except: Option<&str>) -> String {
    let mut table = String::from("[patch.crates-io]\n");
    for (package, folder) in unpacked {
        if Some(*package) != except {
            table.push_str(&format!(
                "{package} = {{ path = \"{up}/packages/{folder}\" }}\n"
            ));
        }
    }
    table
}

/// Empties the scratch folder's `packages/`, `app/` and `examples/` below the target directory `target`
/// (created if needed), through the one writer: below `target` no link is followed, so a link
/// planted in the scratch folder is removed, never written or deleted through.
pub fn empty_scratch(target: &Path) -> Result<(), PackageError> {
    let target_dir = OutputDir::create(target).map_err(files_error)?;
    for dir in SCRATCH_DIRS {
        let dir = Path::new(SCRATCH).join(dir);
        target_dir.remove_all(&dir).map_err(files_error)?;
        target_dir.subdir(&dir).map_err(files_error)?;
    }
    Ok(())
}

/// Copies the app of `root` into the scratch folder's `app/` below `target`, with the
/// workspace's `Cargo.lock` and `patches` as its `.cargo/config.toml`, each file whole.
pub fn copy_app(root: &Path, target: &Path, patches: &str) -> Result<(), PackageError> {
    let app = OutputDir::open(target)
        .and_then(|target| target.subdir(Path::new(SCRATCH).join("app")))
        .map_err(files_error)?;
    copy_dir(&root.join(APP_DIR), &app, Path::new(""))?;
    // The workspace's lock: the app builds with the versions the crates were tested with.
    copy(&root.join("Cargo.lock"), &app, Path::new("Cargo.lock"))?;
    app.write(".cargo/config.toml", patches)
        .map_err(files_error)
}

/// Copies the unpacked package `name` (`<package>-<version>`, in the scratch folder's
/// `packages/` below `target`) to the scratch folder's `examples/<name>`, as a workspace of its
/// own (an empty `[workspace]` appended to its manifest: the copy lies inside the repository's
/// workspace, which does not list it), with the workspace's `Cargo.lock` and `patches` as its
/// `.cargo/config.toml`, each file whole. Returns the copy's folder. The app keeps building
/// against the package as unpacked; nothing else of the package changes.
pub fn copy_package_for_examples(
    root: &Path,
    target: &Path,
    name: &str,
    patches: &str,
) -> Result<PathBuf, PackageError> {
    let scratch = target.join(SCRATCH);
    let unpacked = scratch.join("packages").join(name);
    let dir = OutputDir::open(target)
        .and_then(|target| target.subdir(Path::new(SCRATCH).join("examples").join(name)))
        .map_err(files_error)?;
    copy_dir(&unpacked, &dir, Path::new(""))?;
    let manifest_path = unpacked.join("Cargo.toml");
    let manifest =
        std::fs::read_to_string(&manifest_path).map_err(|source| io(&manifest_path, source))?;
    dir.write(
        "Cargo.toml",
        format!("{manifest}\n# A workspace of its own (cargo xtask package).\n[workspace]\n"),
    )
    .map_err(files_error)?;
    copy(&root.join("Cargo.lock"), &dir, Path::new("Cargo.lock"))?;
    dir.write(".cargo/config.toml", patches)
        .map_err(files_error)?;
    Ok(dir.path().to_path_buf())
}

/// The version of the published crates (they share it).
fn crate_version(root: &Path) -> Result<String, PackageError> {
    let path = root.join(CRATES[0].1).join("Cargo.toml");
    let manifest =
        marketplace_codegen::read_text_file(&path, None, 1 << 20).map_err(|error| match error {
            marketplace_codegen::CodegenError::Io { source, .. } => io(&path, source),
            other => io(&path, std::io::Error::other(other.to_string())),
        })?;
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| io(&path, std::io::Error::other("no version = \"…\" line")))
}

/// A cargo command in `dir`. What it builds (the app, the packages' examples, every
/// dependency of theirs: a build folder of its own) is built to compile and pass its tests,
/// never debugged: without debug information, which would take a good part of the build.
fn cargo(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(dir)
        .env("CARGO_PROFILE_DEV_DEBUG", "false");
    command
}

fn status(command: &mut Command) -> Result<(), PackageError> {
    let status = command.status().map_err(|source| PackageError::Io {
        path: PathBuf::from(command.get_program()),
        source,
    })?;
    if status.success() {
        return Ok(());
    }
    Err(PackageError::Command {
        command: format!(
            "{} {}",
            command.get_program().to_string_lossy(),
            command
                .get_args()
                .map(|arg| arg.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        status: status.to_string(),
    })
}

/// Copies the tree at `from` to `relative` below `to`: directories and regular files (a link
/// in the app's sources is refused, not followed).
fn copy_dir(from: &Path, to: &OutputDir, relative: &Path) -> Result<(), PackageError> {
    for entry in std::fs::read_dir(from).map_err(|source| io(from, source))? {
        let entry = entry.map_err(|source| io(from, source))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|source| io(&path, source))?;
        let target = relative.join(entry.file_name());
        if kind.is_dir() {
            to.subdir(&target).map_err(files_error)?;
            copy_dir(&path, to, &target)?;
        } else if kind.is_file() {
            copy(&path, to, &target)?;
        } else {
            return Err(io(
                &path,
                std::io::Error::other("not a regular file or directory; refused"),
            ));
        }
    }
    Ok(())
}

fn copy(from: &Path, to: &OutputDir, relative: &Path) -> Result<(), PackageError> {
    let contents = std::fs::read(from).map_err(|source| io(from, source))?;
    to.write(relative, contents).map_err(files_error)
}

fn files_error(error: FileError) -> PackageError {
    PackageError::Io {
        path: error.path().to_path_buf(),
        source: error.into(),
    }
}

fn io(path: &Path, source: std::io::Error) -> PackageError {
    PackageError::Io {
        path: path.to_owned(),
        source,
    }
}
