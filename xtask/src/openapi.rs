//! `cargo xtask openapi [--check] [--html DIR]`: the OpenAPI export `spec/openapi.json`.
//!
//! Without options it writes the export as `cargo xtask codegen` does (only when it differs);
//! `--check` fails with the diff when the committed file is stale. `--html DIR` renders a
//! browsable reference, `DIR/index.html`, with Redocly CLI's `build-docs`. [`lint`] runs
//! Redocly's `lint` with its recommended rules (the workspace test `xtask/tests/openapi.rs`).
//! [`typescript_types`] and [`tsc_strict`] are the typed-client judge: openapi-typescript's
//! types of the export, and TypeScript's compiler holding literals to them
//! (`xtask/tests/openapi_typescript.rs`).
//!
//! Redocly CLI is pinned by `xtask/redocly/package-lock.json`, openapi-typescript and
//! TypeScript by `xtask/openapi-ts/package-lock.json`; each is installed with `npm ci` into a
//! folder of the target directory's `tmp/` (`redocly/`, `openapi-ts/`) on first use (Node.js
//! and npm needed; the npm registry the first time). Redocly runs with its telemetry and update
//! check off: nothing leaves the machine but those installs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
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

/// Where openapi-typescript's and TypeScript's pinned manifest and lockfile are, relative to the
/// workspace root.
pub const OPENAPI_TS_DIR: &str = "xtask/openapi-ts";

/// What to install when Node.js or npm is missing.
const NODE_HINT: &str = "Redocly CLI, openapi-typescript and TypeScript need Node.js (20.19 or \
    later) and npm (Debian: `apt-get install nodejs npm`), and the npm registry the first time";

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

/// `--check`: what was compared, when the committed export is what the spec produces.
pub fn check(root: &Path) -> Result<crate::judgement::Judged, XtaskError> {
    codegen::check_export(root, &export_path(root), OPENAPI_COMMAND)
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
    let output = output_of(
        Command::new(redocly)
            .args(["lint", "--format", "json", "--max-problems", "1000"])
            .arg(export_path(root))
            .envs(QUIET),
        &what,
    )?;
    let unreadable = |why: String| tool_failed(&what, &why, &output);
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

/// openapi-typescript's TypeScript types of the committed export, with its default options:
/// the text of a `.d.ts` module exporting `paths`, `components` and `operations`.
pub fn typescript_types(root: &Path) -> Result<String, OpenApiError> {
    let install = openapi_ts(root)?;
    let what = "openapi-typescript";
    // Run in the install's folder: a `redocly.yaml` where it runs would configure it.
    let output = output_of(
        Command::new(program(&install, what))
            .arg(export_path(root))
            .current_dir(&install),
        what,
    )?;
    let types = String::from_utf8(output.stdout.clone()).unwrap_or_default();
    if !output.status.success() || !types.contains("export interface paths") {
        return Err(tool_failed(what, "no TypeScript module", &output));
    }
    Ok(types)
}

/// What `tsc --noEmit --strict` said of some files.
#[derive(Debug)]
pub struct TscReport {
    /// Each error, in tsc's order.
    pub diagnostics: Vec<TscDiagnostic>,
    /// tsc's whole output.
    pub output: String,
}

/// One error of tsc.
#[derive(Debug)]
pub struct TscDiagnostic {
    /// The file, as tsc names it (relative to the folder it ran in).
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1 (in UTF-16 code units, as tsc counts).
    pub column: usize,
    /// The code and message, with its continuation lines (`TS2322: Type … is not assignable …`).
    pub message: String,
}

/// TypeScript's compiler, `tsc --noEmit --strict`, over `files` of `dir` (ES2022 modules,
/// resolved as a bundler does: `import type { paths } from "./schema"` finds `schema.d.ts`).
/// An error of the files is a [`TscDiagnostic`]; an `Err` is tsc not running, or failing
/// without saying where.
pub fn tsc_strict(root: &Path, dir: &Path, files: &[&str]) -> Result<TscReport, OpenApiError> {
    let install = openapi_ts(root)?;
    let output = output_of(
        Command::new(program(&install, "tsc"))
            .args(["--noEmit", "--strict", "--pretty", "false"])
            .args(["--target", "es2022", "--module", "esnext"])
            .args(["--moduleResolution", "bundler"])
            .args(files)
            .current_dir(dir),
        "tsc",
    )?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut diagnostics: Vec<TscDiagnostic> = Vec::new();
    for line in text.lines() {
        if let Some(diagnostic) = diagnostic(line) {
            diagnostics.push(diagnostic);
        } else if let (Some(last), true) = (diagnostics.last_mut(), line.starts_with(' ')) {
            last.message.push('\n');
            last.message.push_str(line);
        }
    }
    if output.status.success() != diagnostics.is_empty() {
        return Err(OpenApiError::Tool {
            what: "tsc".to_owned(),
            detail: format!(
                "{} with {} errors read:\n{text}",
                output.status,
                diagnostics.len()
            ),
        });
    }
    Ok(TscReport {
        diagnostics,
        output: text,
    })
}

/// A line of tsc's plain output that starts an error: `FILE(LINE,COL): error TSn: MESSAGE`.
fn diagnostic(line: &str) -> Option<TscDiagnostic> {
    let (place, message) = line.split_once("): error ")?;
    let (file, position) = place.rsplit_once('(')?;
    let (line, column) = position.split_once(',')?;
    Some(TscDiagnostic {
        file: file.to_owned(),
        line: line.parse().ok()?,
        column: column.parse().ok()?,
        message: message.to_owned(),
    })
}

/// Redocly CLI without telemetry or update checks.
const QUIET: [(&str, &str); 2] = [
    ("REDOCLY_TELEMETRY", "off"),
    ("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true"),
];

fn run(command: &mut Command, what: &str) -> Result<(), OpenApiError> {
    let output = output_of(command.envs(QUIET), what)?;
    if output.status.success() {
        return Ok(());
    }
    Err(tool_failed(what, "failed", &output))
}

/// What `command` (one of the Node tools, `what`) wrote, once it ended; a tool that cannot
/// start is told with how to get Node.js.
fn output_of(command: &mut Command, what: &str) -> Result<Output, OpenApiError> {
    command.output().map_err(|error| OpenApiError::Tool {
        what: what.to_owned(),
        detail: format!("{error}; {NODE_HINT}"),
    })
}

/// A tool's failure (`why`), with its exit status and all it wrote.
fn tool_failed(what: &str, why: &str, output: &Output) -> OpenApiError {
    OpenApiError::Tool {
        what: what.to_owned(),
        detail: format!(
            "{why} ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// The `redocly` program of the pinned install under the target directory's `tmp/redocly/`,
/// installed with `npm ci` when missing or made from another lockfile.
pub fn redocly(root: &Path) -> Result<PathBuf, OpenApiError> {
    let install = npm_ci(root, REDOCLY_DIR, "redocly", &["redocly"])?;
    Ok(program(&install, "redocly"))
}

/// The pinned install of openapi-typescript and TypeScript under the target directory's
/// `tmp/openapi-ts/`, installed with `npm ci` when missing or made from another lockfile.
pub fn openapi_ts(root: &Path) -> Result<PathBuf, OpenApiError> {
    npm_ci(
        root,
        OPENAPI_TS_DIR,
        "openapi-ts",
        &["openapi-typescript", "tsc"],
    )
}

/// The program `name` of the npm install `install`.
fn program(install: &Path, name: &str) -> PathBuf {
    install.join("node_modules").join(".bin").join(name)
}

/// The folder where the packages pinned by `pinned` (a folder of the workspace holding a
/// `package.json` and its `package-lock.json`) are installed, with the `programs` they bring:
/// the target directory's `tmp/NAME/`, installed with `npm ci` when missing or made from
/// another lockfile.
fn npm_ci(
    root: &Path,
    pinned: &str,
    name: &str,
    programs: &[&str],
) -> Result<PathBuf, OpenApiError> {
    // One install at a time in a process (tests run on threads); other processes are kept
    // apart by the partial folder's name.
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(PoisonError::into_inner);
    let pinned_dir = root.join(pinned);
    let read = |file: &str| {
        let path = pinned_dir.join(file);
        std::fs::read_to_string(&path).map_err(io_error(&path))
    };
    let (manifest, lock) = (read("package.json")?, read("package-lock.json")?);
    let install = target_dir::of_workspace(root)?.join("tmp").join(name);
    let marker = install.join("installed-package-lock.json");
    let installed = |install: &Path| programs.iter().all(|p| program(install, p).is_file());
    if installed(&install) && std::fs::read_to_string(&marker).is_ok_and(|done| done == lock) {
        return Ok(install);
    }
    // Installed beside the final place and renamed into it, so that an interrupted install is
    // never taken for a finished one; every file and folder through the one writer.
    let tmp = OutputDir::create(install.parent().unwrap_or(&install))?;
    let partial_name = format!("{name}.partial-{}", std::process::id());
    tmp.remove_all(&partial_name).ok();
    let partial = tmp.subdir(&partial_name)?;
    partial.write("package.json", manifest)?;
    partial.write("package-lock.json", lock.as_str())?;
    run(
        Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(partial.path()),
        &format!("npm ci (installing {pinned}/package-lock.json)"),
    )?;
    partial.write("installed-package-lock.json", lock.as_str())?;
    tmp.remove_all(name).ok();
    if tmp.rename(&partial_name, name).is_err() {
        // Another process finished first: use its install.
        tmp.remove_all(&partial_name).ok();
    }
    if !installed(&install) {
        return Err(OpenApiError::Tool {
            what: "npm ci".to_owned(),
            detail: format!(
                "installed no {} in {}",
                programs.join(", "),
                install.display()
            ),
        });
    }
    Ok(install)
}
