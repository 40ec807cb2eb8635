//! Generates the typed marketplace client from the YAML spec.
//!
//! The pipeline is `spec/*.yaml` -> [`load_spec_dir`] -> [`resolve`] (shape and cross-reference
//! checks, into the [`ir::Api`]) -> [`generate`] (Rust tokens, formatted with prettyplease).
//! Output is a pure function of the spec text: the same spec gives byte-identical files.
//! [`diff`] compares two resolved specs; [`audit`] checks one against the reference it
//! transcribes; [`wire_audit`] checks recorded traffic against one and proposes spec edits.
//! Nothing here writes files; `cargo xtask codegen` does, and only when generation succeeded.

// A library prints nothing: what it has to say is a value or an error its caller shows (and
// a test's output is the harness's). Every program's line goes through its one writer.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

pub mod audit;
pub mod diagnostic;
pub mod diff;
pub mod docs;
mod emit;
mod ident;
#[path = "../../generated-client/src/input_file.rs"]
mod input_file;
// input_file.rs's tests write their fixtures through the client's one writer, as `crate::files`.
#[cfg(test)]
use marketplace_client::files;
pub mod ir;
pub mod items;
mod location;
mod model;
mod naming;
pub mod openapi;
mod prescan;
mod resolve;
pub mod rust_type;
mod spec_source;
pub mod text;
pub mod wire_audit;
mod yaml_edit;

use std::path::{Path, PathBuf};

pub use diagnostic::{SpecError, SpecErrors};
pub use emit::{
    EmitError, FAKE_SHAPES_DIR, GeneratedFile, REGENERATE_COMMAND, fake_shapes, generate,
};
pub use openapi::{OPENAPI_DIR, OPENAPI_FILE, openapi};
pub use resolve::{resolve, resolve_leniently};
pub use spec_source::SpecSource;

/// Anything that stops generation.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// A spec file could not be read.
    #[error("cannot read {}: {source}", text::Untrusted(path.display()))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A text file (the reference, a committed generated file) holds a byte that starts no
    /// UTF-8 character, at `at` (a spec file's is a spec error, `invalid-yaml`).
    #[error(
        "cannot read {}:{}:{}: not UTF-8 text (no character starts at this byte)",
        text::Untrusted(path.display()),
        at.line,
        at.column
    )]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where the first byte that is no UTF-8 character is.
        at: diagnostic::LineCol,
    },
    /// The spec breaks a rule.
    #[error("{0}")]
    Spec(#[from] SpecErrors),
    /// The generator emitted invalid Rust (a bug here, not in the spec).
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// The most spec files a spec directory may hold.
pub const MAX_SPEC_FILES: usize = 256;

/// The most bytes a spec directory may hold in all (each file at most
/// [`MAX_SPEC_FILE_BYTES`]).
pub const MAX_SPEC_BYTES: u64 = 8 << 20;

/// The largest spec file accepted.
pub const MAX_SPEC_FILE_BYTES: u64 = prescan::MAX_FILE_BYTES as u64;

/// Reads every `*.yaml` file of `dir` in file-name order. Files are named `{shown_as}/{file}`
/// in messages (e.g. `spec/pay.yaml`).
///
/// The files are untrusted and bounded before they are read (`input_file`): regular files
/// only (a FIFO, a device or a directory named `….yaml` is refused, and a symbolic link is
/// followed only to a file inside `dir`), at most [`MAX_SPEC_FILE_BYTES`] each,
/// [`MAX_SPEC_BYTES`] and [`MAX_SPEC_FILES`] in all. A file's name is checked by `resolve`
/// (`invalid-file-name`): it names a generated module.
pub fn load_spec_dir(dir: &Path, shown_as: &str) -> Result<Vec<SpecSource>, CodegenError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CodegenError::Io { path, source }
    };
    let paths = input_file::files_in(dir, "yaml", MAX_SPEC_FILES).map_err(io_error(dir))?;
    let mut total = 0u64;
    let mut sources = Vec::with_capacity(paths.len());
    for path in paths {
        let left = MAX_SPEC_BYTES - total;
        let bytes = input_file::read_file(&path, Some(dir), MAX_SPEC_FILE_BYTES.min(left))
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::FileTooLarge if left < MAX_SPEC_FILE_BYTES => refused(format!(
                    "with it the spec passes {MAX_SPEC_BYTES} bytes in all; refused before reading"
                )),
                _ => source,
            })
            .map_err(io_error(&path))?;
        total += bytes.len() as u64;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        sources.push((format!("{shown_as}/{}", name.unwrap_or_default()), bytes));
    }
    Ok(spec_sources(sources)?)
}

/// Spec files read as bytes (each with the name to report it by), as text: the one way a spec
/// file becomes a [`SpecSource`], from a work tree or from git (`spec-diff`'s revisions). A
/// file that is not UTF-8 is a spec error, `invalid-yaml`, located as every spec error is;
/// every file is still read, so each such file is named at once.
pub fn spec_sources(files: Vec<(String, Vec<u8>)>) -> Result<Vec<SpecSource>, SpecErrors> {
    let mut sources = Vec::with_capacity(files.len());
    let mut not_utf8 = Vec::new();
    for (shown, bytes) in files {
        match utf8_text(bytes) {
            Ok(text) => sources.push(SpecSource { path: shown, text }),
            Err(at) => not_utf8.push(SpecError {
                kind: diagnostic::ErrorKind::InvalidYaml,
                file: shown,
                location: Some(at),
                path: String::new(),
                message: "invalid YAML: not UTF-8 text (no character starts at this byte)"
                    .to_owned(),
            }),
        }
    }
    if !not_utf8.is_empty() {
        return Err(SpecErrors(not_utf8));
    }
    Ok(sources)
}

/// `bytes` as UTF-8 text, or where the first byte that starts no UTF-8 character is.
fn utf8_text(bytes: Vec<u8>) -> Result<String, diagnostic::LineCol> {
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        diagnostic::LineCol::at_byte(error.as_bytes(), offset)
    })
}

/// Reads the untrusted text file `path` with its size bounded before and during the read, as
/// `load_spec_dir` reads spec files: a regular file only, at most `max_bytes`; a symbolic link
/// is followed only to a file inside `within`, or without it inside the file's own directory
/// (a link at a committed file is a pull request's, not the user's). For the tools' other
/// inputs (the reference, committed generated files, `spec/README.md`).
pub fn read_text_file(
    path: &Path,
    within: Option<&Path>,
    max_bytes: u64,
) -> Result<String, CodegenError> {
    let bytes =
        input_file::read_file(path, within, max_bytes).map_err(|source| CodegenError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    utf8_text(bytes).map_err(|at| CodegenError::NotUtf8 {
        path: path.to_path_buf(),
        at,
    })
}

/// The paths of the files of `dir` whose name ends in `.{extension}`, in name order, at most
/// `max_files` of them (names only: [`read_text_file`] checks each file).
pub fn files_in(
    dir: &Path,
    extension: &str,
    max_files: usize,
) -> Result<Vec<PathBuf>, CodegenError> {
    input_file::files_in(dir, extension, max_files).map_err(|source| CodegenError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

fn refused(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

/// Where `path` (e.g. `["types", "Timesheet", "fields", "rate"]`) is written in `source`.
pub fn locate(source: &SpecSource, path: &[&str]) -> Option<diagnostic::LineCol> {
    let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
    location::LocationIndex::new(&source.text).find(&path)
}

/// Resolves and generates in one step.
pub fn generate_from_sources(sources: &[SpecSource]) -> Result<Vec<GeneratedFile>, CodegenError> {
    let api = resolve(sources)?;
    Ok(generate(&api)?)
}

/// Everything `cargo xtask codegen` writes from one spec: the client's generated module, the
/// fake marketplace's wire shapes ([`fake_shapes`], written to [`FAKE_SHAPES_DIR`]) and the
/// OpenAPI export ([`openapi()`], written to [`OPENAPI_DIR`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The files of `generated-client/src/generated/`.
    pub client: Vec<GeneratedFile>,
    /// The file of [`FAKE_SHAPES_DIR`].
    pub fake_shapes: GeneratedFile,
    /// The OpenAPI export, [`OPENAPI_FILE`] in [`OPENAPI_DIR`].
    pub openapi: GeneratedFile,
    /// What the spec describes, from which all of it was generated: a `--check` against a
    /// spec that describes nothing has judged nothing.
    pub described: items::Items,
}

/// Resolves once and generates both outputs.
pub fn generate_everything(sources: &[SpecSource]) -> Result<Generated, CodegenError> {
    let api = resolve(sources)?;
    Ok(Generated {
        client: generate(&api)?,
        fake_shapes: fake_shapes(&api)?,
        openapi: openapi(&api)?,
        described: items::Items::of(&api),
    })
}
