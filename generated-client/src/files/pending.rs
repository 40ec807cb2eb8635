//! A file written in pieces and published whole: a temporary file in the destination's
//! directory until [`PendingFile::publish`] renames it into place; dropped unpublished, it
//! leaves nothing.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use cap_tempfile::TempFile;

use super::{Action, FileError, fault, refuse_directory};

/// A file being written, not yet at its destination (made by [`OutputDir::pending`]). Writes
/// go to a temporary file in the same directory (anonymous where the OS allows); nobody sees
/// the file at its name until [`publish`](Self::publish) renames it there, whole. Dropped
/// unpublished, the temporary file goes with it.
///
/// [`OutputDir::pending`]: super::OutputDir::pending
pub struct PendingFile<'d> {
    temp: TempFile<'d>,
    name: OsString,
    path: PathBuf,
}

impl fmt::Debug for PendingFile<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingFile")
            .field("path", &self.path)
            .finish()
    }
}

impl<'d> PendingFile<'d> {
    pub(super) fn new(dir: &'d Dir, name: &OsStr, path: PathBuf) -> Result<Self, FileError> {
        refuse_directory(dir, name, &path)?;
        let temp = fault::step()
            .and_then(|()| TempFile::new(dir))
            .map_err(|error| FileError::io(Action::Write, &path, error))?;
        Ok(PendingFile {
            temp,
            name: name.to_owned(),
            path,
        })
    }

    /// Where the file will be once published.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets the file's length (sparse where the file system allows): cut short, or extended
    /// with zeros.
    ///
    /// # Errors
    ///
    /// When the OS refuses.
    pub fn set_len(&mut self, len: u64) -> Result<(), FileError> {
        fault::step()
            .and_then(|()| self.temp.as_file().set_len(len))
            .map_err(|error| FileError::io(Action::Write, &self.path, error))
    }

    /// Renames the finished file into place, over whatever file or link stands there (a link
    /// is replaced, never followed).
    ///
    /// # Errors
    ///
    /// When the rename fails (a directory stands there now, say); the temporary file is then
    /// removed and the destination left as it was.
    pub fn publish(self) -> Result<(), FileError> {
        let PendingFile { temp, name, path } = self;
        fault::step()
            .and_then(|()| super::publish(temp, &name))
            .map_err(|error| FileError::io(Action::Publish, &path, error))
    }
}

impl Write for PendingFile<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        fault::step()?;
        self.temp.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}
