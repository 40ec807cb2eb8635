//! `cargo xtask openapi [--check] [--html DIR]`: the OpenAPI export `spec/openapi.json`.
//!
//! Without options it writes the export as `cargo xtask codegen` does (only when it differs);
//! `--check` fails with the diff when the committed file is stale. `--html DIR` renders a
//! browsable reference, `DIR/index.html`, with Redocly CLI's `build-docs`. [`lint`] runs
//! Redocly's `lint` with its recommended rules (the workspace test `xtask/tests/openapi.rs`).
//!
//! Redocly CLI is pinned by `xtask/redocly/package-lock.json` and installed with `npm ci` into
//! the target directory's `tmp/redocly/` on first use (Node.js and npm needed; the npm registry
//! the first time). It runs with its telemetry and update check off: nothing leaves the machine
//! but that install.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

use marketplace_client::files::{FileError, OutputDir};
use marketplace_codegen::{OPENAPI_DIR, OPENAPI_FILE};

use crate::codegen::{self, Change, XtaskError};
use crate::command_line::CommandError;
use crate::target_dir;

/// The command that writes the export alone.
pub const OPENAPI_COMMAND: &str = "cargo xtask openapi";

/// Where Redocly CLI's pinned manifest and lockfile are, relative to the workspace root.
pub const REDOCLY_DIR: &str = "xtask/redocly";

/// What to install when Node.js or npm is missing.
const NODE_HINT: &str = "Redocly CLI needs Node.js (20.19 or later) and npm (Debian: `apt-get \
    install nodejs npm`), and the npm registry the first time";

/// Anything that stops `cargo xtask openapi`.
#[derive(Debug, thiserror::Error)]
pub enum OpenApiError {
    /// Generating, reading or writing the export failed, or it is stale.
    #[error(transparent)]
    Codegen(#[from] XtaskError),
    /// The target directory is unknown.
    #[error(transparent)]
    TargetDir(#[from] target_dir::TargetDirError),
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file could not be written (through `marketplace_client::files`).
    #[error(transparent)]
    File(#[from] FileError),
    /// A program could not be started, or failed.
    #[error("{what} failed: {detail}")]
    Tool {
        /// What was run.
        what: String,
        /// Its status and output, or why it did not start.
        detail: String,
    },
}

impl CommandError for OpenApiError {
    fn is_finding(&self) -> bool {
        match self {
            OpenApiError::Codegen(error) => error.is_finding(),
            OpenApiError::TargetDir(_)
            | OpenApiError::Io { .. }
            | OpenApiError::File(_)
            | OpenApiError::Tool { .. } => false,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> OpenApiError {
    let path = path.to_path_buf();
    move |source| OpenApiError::Io { path, source }
}

/// The export's path under `root`.
pub fn export_path(root: &Path) -> PathBuf {
    root.join(OPENAPI_DIR).join(OPENAPI_FILE)
}

/// How the committed export differs from what the spec produces (nothing: up to date).
pub fn plan(root: &Path) -> Result<Vec<Change>, XtaskError> {
    let path = export_path(root);
    Ok(codegen::plan(root)?
        .into_iter()
        .filter(|change| change.path() == path)
        .collect())
}

/// Writes the export when it differs; returns what it did, for the command's output.
pub fn write(root: &Path) -> Result<String, XtaskError> {
    let changes = plan(root)?;
    codegen::apply(root, &changes)?;
    Ok(if changes.is_empty() {
        format!("{OPENAPI_DIR}/{OPENAPI_FILE} is up to date with spec/")
    } else {
        codegen::summary(root, &changes)
    })
}

/// `--check`: `Ok` when the committed export is what the spec produces.
pub fn check(root: &Path) -> Result<(), XtaskError> {
    let changes = plan(root)?;
    if changes.is_empty() {
        return Ok(());
    }
    Err(XtaskError::Stale(format!(
        "{OPENAPI_DIR}/{OPENAPI_FILE} is stale: it differs from what spec/ produces:\n\n{}\nRun \
         `{OPENAPI_COMMAND}` (or `cargo xtask codegen`) to update it.",
        codegen::unified_diff(root, &changes)
    )))
}

/// `--html DIR`: writes the export if stale, then renders it into `DIR/index.html`; returns
/// the page's path. Redocly renders into a private scratch folder; the page reaches `DIR`
/// through the one writer (`marketplace_client::files`: temp file and rename, no link
/// followed below `DIR`), so a failed render leaves `DIR` as it was.
pub fn html(root: &Path, dir: &Path) -> Result<PathBuf, OpenApiError> {
    write(root)?;
    let out = OutputDir::create(dir)?;
    let redocly = redocly(root)?;
    let tmp = OutputDir::create(target_dir::of_workspace(root)?.join("tmp"))?;
    let scratch = tmp.create_private("redocly-build-docs")?;
    let rendered = scratch.path().join("index.html");
    let built = run(
        Command::new(redocly)
            .arg("build-docs")
            .arg(export_path(root))
            .arg("--output")
            .arg(&rendered),
        "redocly build-docs",
    )
    .and_then(|()| std::fs::read(&rendered).map_err(io_error(&rendered)))
    .and_then(|page| Ok(out.write("index.html", page)?));
    if let Some(name) = scratch.path().file_name() {
        tmp.remove_all(name).ok();
    }
    built?;
    Ok(dir.join("index.html"))
}

/// What Redocly CLI's `lint` found.
#[derive(Debug)]
pub struct LintReport {
    /// Errors.
    pub errors: u64,
    /// Warnings.
    pub warnings: u64,
    /// Every problem, as Redocly reports it (JSON).
    pub problems: String,
}

/// Redocly CLI's `lint` with its recommended rules on the committed export.
pub fn lint(root: &Path) -> Result<LintReport, OpenApiError> {
    let redocly = redocly(root)?;
    let what = "redocly lint".to_owned();
    let output = Command::new(redocly)
        .args(["lint", "--format", "json", "--max-problems", "1000"])
        .arg(export_path(root))
        .envs(QUIET)
        .output()
        .map_err(|error| OpenApiError::Tool {
            what: what.clone(),
            detail: format!("{error}; {NODE_HINT}"),
        })?;
    let unreadable = |why: String| OpenApiError::Tool {
        what: what.clone(),
        detail: format!(
            "{why} ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    };
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| unreadable(format!("its report is not JSON: {error}")))?;
    let total = |name: &str| report["totals"][name].as_u64();
    let (Some(errors), Some(warnings)) = (total("errors"), total("warnings")) else {
        return Err(unreadable("its report has no totals".to_owned()));
    };
    Ok(LintReport {
        errors,
        warnings,
        problems: serde_json::to_string_pretty(&report["problems"]).unwrap_or_default(),
    })
}

/// Redocly CLI without telemetry or update checks.
const QUIET: [(&str, &str); 2] = [
    ("REDOCLY_TELEMETRY", "off"),
    ("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true"),
];

fn run(command: &mut Command, what: &str) -> Result<(), OpenApiError> {
    let output = command
        .envs(QUIET)
        .output()
        .map_err(|error| OpenApiError::Tool {
            what: what.to_owned(),
            detail: format!("{error}; {NODE_HINT}"),
        })?;
    if output.status.success() {
        return Ok(());
    }
    Err(OpenApiError::Tool {
        what: what.to_owned(),
        detail: format!(
            "{}\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    })
}

/// The `redocly` program of the pinned install under the target directory's `tmp/redocly/`,
/// installed with `npm ci` when missing or made from another lockfile.
pub fn redocly(root: &Path) -> Result<PathBuf, OpenApiError> {
    // One install at a time in a process (tests run on threads); other processes are kept
    // apart by the partial folder's name.
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(PoisonError::into_inner);
    let pinned = root.join(REDOCLY_DIR);
    let read = |name: &str| {
        let path = pinned.join(name);
        std::fs::read_to_string(&path).map_err(io_error(&path))
    };
    let (manifest, lock) = (read("package.json")?, read("package-lock.json")?);
    let install = target_dir::of_workspace(root)?.join("tmp").join("redocly");
    let program = install.join("node_modules").join(".bin").join("redocly");
    let marker = install.join("installed-package-lock.json");
    if program.is_file() && std::fs::read_to_string(&marker).is_ok_and(|done| done == lock) {
        return Ok(program);
    }
    // Installed beside the final place and renamed into it, so that an interrupted install is
    // never taken for a finished one; every file and folder through the one writer.
    let tmp = OutputDir::create(install.parent().unwrap_or(&install))?;
    let partial_name = format!("redocly.partial-{}", std::process::id());
    tmp.remove_all(&partial_name).ok();
    let partial = tmp.subdir(&partial_name)?;
    partial.write("package.json", manifest)?;
    partial.write("package-lock.json", lock.as_str())?;
    run(
        Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(partial.path()),
        "npm ci (installing Redocly CLI, pinned by xtask/redocly/package-lock.json)",
    )?;
    partial.write("installed-package-lock.json", lock.as_str())?;
    tmp.remove_all("redocly").ok();
    if tmp.rename(&partial_name, "redocly").is_err() {
        // Another process finished first: use its install.
        tmp.remove_all(&partial_name).ok();
    }
    if !program.is_file() {
        return Err(OpenApiError::Tool {
            what: "npm ci".to_owned(),
            detail: format!("installed no {}", program.display()),
        });
    }
    Ok(program)
}
