//! What a write, a removal or the opening of an output directory can meet: a typed error that
//! says what was being done, to which path, and why.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a file operation of [`OutputDir`](super::OutputDir) failed: the action, the path (the
/// output directory joined with the relative path asked for) and the problem.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {problem}", path.display())]
pub struct FileError {
    action: Action,
    path: PathBuf,
    #[source]
    problem: Problem,
}

/// What was being done when a [`FileError`] happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Opening the output directory, or a directory below it.
    OpenDirectory,
    /// Creating a directory.
    CreateDirectory,
    /// Writing a file (its temporary file, before it is published).
    Write,
    /// Renaming a finished file into place.
    Publish,
    /// Removing a file, a link or a tree.
    Remove,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::OpenDirectory => "open the directory",
            Action::CreateDirectory => "create the directory",
            Action::Write => "write",
            Action::Publish => "publish",
            Action::Remove => "remove",
        })
    }
}

/// Why a [`FileError`] happened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The operating system refused.
    #[error("{0}")]
    Io(#[source] io::Error),
    /// A directory on the way is a symbolic link: no link below the output directory is
    /// followed, whether it points inside or outside.
    #[error("{} is a symbolic link (no link below the output directory is followed)", .0.display())]
    Link(PathBuf),
    /// The path is absolute, empty, or climbs out with `..`.
    #[error("not a relative path inside the output directory (absolute, empty, or with `..`)")]
    NotInside,
    /// A single file name was needed, not a path with directories.
    #[error("a file name without directories is needed here")]
    NotAName,
    /// A directory stands where a file is to be written.
    #[error("a directory stands there")]
    Directory,
}

impl FileError {
    pub(super) fn new(action: Action, path: impl Into<PathBuf>, problem: Problem) -> FileError {
        FileError {
            action,
            path: path.into(),
            problem,
        }
    }

    pub(super) fn io(action: Action, path: impl Into<PathBuf>, error: io::Error) -> FileError {
        FileError::new(action, path, Problem::Io(error))
    }

    /// What was being done.
    pub fn action(&self) -> Action {
        self.action
    }

    /// The path it was done to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why it failed.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Whether the operating system said that the file or a directory on the way does not
    /// exist.
    pub fn is_not_found(&self) -> bool {
        matches!(&self.problem, Problem::Io(error) if error.kind() == io::ErrorKind::NotFound)
    }
}

impl From<FileError> for io::Error {
    /// The error as an `io::Error` of the same kind (`InvalidInput` for a refused path or link,
    /// `IsADirectory` for a directory in the way), its message kept.
    fn from(error: FileError) -> io::Error {
        let kind = match &error.problem {
            Problem::Io(source) => source.kind(),
            Problem::Link(_) | Problem::NotInside | Problem::NotAName => {
                io::ErrorKind::InvalidInput
            }
            Problem::Directory => io::ErrorKind::IsADirectory,
        };
        io::Error::new(kind, error)
    }
}
