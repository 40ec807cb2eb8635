//! Generates the typed marketplace client from the YAML spec.
//!
//! The pipeline is `spec/*.yaml` -> [`load_spec_dir`] -> [`resolve`] (shape and cross-reference
//! checks, into the [`ir::Api`]) -> [`generate`] (Rust tokens, formatted with prettyplease).
//! Output is a pure function of the spec text: the same spec gives byte-identical files.
//! [`diff`] compares two resolved specs; [`audit`] checks one against the reference it
//! transcribes; [`wire_audit`] checks recorded traffic against one and proposes spec edits.
//! Nothing here writes files; `cargo xtask codegen` does, and only when generation succeeded.

pub mod audit;
pub mod diagnostic;
pub mod diff;
pub mod docs;
mod emit;
pub mod ir;
mod location;
mod model;
mod naming;
mod prescan;
mod resolve;
pub mod rust_type;
pub mod wire_audit;
mod yaml_edit;

use std::path::{Path, PathBuf};

pub use diagnostic::{SpecError, SpecErrors};
pub use emit::{EmitError, GeneratedFile, REGENERATE_COMMAND, generate};
pub use resolve::{SpecSource, resolve};

/// Anything that stops generation.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// A spec file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The spec breaks a rule.
    #[error("{0}")]
    Spec(#[from] SpecErrors),
    /// The generator emitted invalid Rust (a bug here, not in the spec).
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// Reads every `*.yaml` file of `dir` in file-name order. Files are named `{shown_as}/{file}`
/// in messages (e.g. `spec/pay.yaml`).
pub fn load_spec_dir(dir: &Path, shown_as: &str) -> Result<Vec<SpecSource>, CodegenError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CodegenError::Io { path, source }
    };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        if path.extension().is_some_and(|ext| ext == "yaml") {
            paths.push(path);
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            Ok(SpecSource {
                path: format!("{shown_as}/{}", name.unwrap_or_default()),
                text,
            })
        })
        .collect()
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
