//! A temporary workspace holding a copy of the committed spec and generated folder, shared by
//! the codegen and spec-audit tests.

use std::fs;
use std::path::PathBuf;

use marketplace_client::files::OutputDir;
use xtask::codegen::{GENERATED_DIR, SPEC_DIR, workspace_root};

/// A copy of `spec/` and the generated folders (the client's, the fake's shapes) under a
/// temporary root.
pub struct Scratch {
    _dir: tempfile::TempDir,
    /// The temporary workspace root.
    pub root: PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let out = OutputDir::open(&root).unwrap();
        let real = workspace_root();
        for sub in [
            SPEC_DIR,
            GENERATED_DIR,
            marketplace_codegen::FAKE_SHAPES_DIR,
        ] {
            out.subdir(sub).unwrap();
            for entry in fs::read_dir(real.join(sub)).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    let name = path.file_name().unwrap();
                    out.write(PathBuf::from(sub).join(name), fs::read(&path).unwrap())
                        .unwrap();
                }
            }
        }
        Scratch { _dir: dir, root }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// The scratch root, to write in.
    pub fn out(&self) -> OutputDir {
        OutputDir::open(&self.root).unwrap()
    }

    /// Writes `text` at `relative`.
    pub fn write(&self, relative: &str, text: &str) {
        self.out().write(relative, text).unwrap();
    }

    /// Replaces the first `from` in the file with `to`; `from` must be there.
    pub fn edit(&self, relative: &str, from: &str, to: &str) {
        let text = fs::read_to_string(self.path(relative)).unwrap();
        assert!(text.contains(from), "{from:?} not in {relative}");
        self.write(relative, &text.replacen(from, to, 1));
    }
}
