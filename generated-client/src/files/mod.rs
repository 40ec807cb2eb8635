//! Every file a program of the project writes or deletes goes through here: the code
//! generator, the audits' proposals, the API snapshots, the packaging scratch folder, the
//! recorder, the fake's certificate, and the tests' fixtures. `clippy.toml` forbids the
//! standard library's and tokio's writing and deleting calls everywhere else, and
//! `xtask/tests/file_writes.rs` that an `allow` of that ban appears anywhere but here.
//!
//! The property: a write lands only where it was asked, and whole. The directory the user
//! named is an [`OutputDir`] (opened, or created with its parents, as the path says: links in
//! what the user typed are theirs). Below it, paths are relative and each directory is opened
//! as a capability without following a link ([`cap_std`], [`cap_fs_ext`]): `..`, an absolute
//! path, and a symbolic link at any directory on the way (pointing inside or outside) are
//! refused with a [`FileError`], so nothing a pull request or another user plants can lead a
//! write out. A file is written into a temporary file in its own directory ([`cap_tempfile`]:
//! anonymous, `O_TMPFILE`, where the OS has it) and renamed over the destination when whole,
//! so a link standing at the destination is replaced, never followed, and a reader sees the
//! old file or the new one (a process killed in the instant between linking an anonymous
//! file under a random name and that rename leaves it there, whole: SECURITY.md's Known
//! limits). On any failure nothing is left: no temporary file, no directory
//! the write created, the old file whole. Several files written together ([`FileSet`]) are
//! all staged first and put in place only when all are staged, each renamed over its old file
//! (kept aside by a second link), so that no name stands empty even when the process is
//! killed; a failure while putting them in place puts the old ones back.

mod error;
mod fault;
mod pending;
mod set;
#[cfg(test)]
mod tests;

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use cap_tempfile::TempFile;

pub use error::{Action, FileError, Problem};
pub use pending::PendingFile;
pub use set::{FileSet, is_left_behind};

/// A directory the user named, and the only way the project's programs write or delete a file.
/// Every path given to its methods is relative to it and stays below it (see the module docs).
pub struct OutputDir {
    dir: Dir,
    path: PathBuf,
}

impl fmt::Debug for OutputDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputDir")
            .field("path", &self.path)
            .finish()
    }
}

impl OutputDir {
    /// Opens the directory at `path`, which must exist. Symbolic links in `path` are followed:
    /// the path is the user's.
    ///
    /// # Errors
    ///
    /// When it does not exist, is not a directory or cannot be opened.
    pub fn open(path: impl AsRef<Path>) -> Result<OutputDir, FileError> {
        let path = path.as_ref();
        // The one place the project takes authority over a path of the file system; below
        // here everything is relative to the directory opened.
        #[allow(clippy::disallowed_methods)]
        let authority = cap_std::ambient_authority();
        let dir = Dir::open_ambient_dir(path, authority)
            .map_err(|error| FileError::io(Action::OpenDirectory, path, error))?;
        Ok(OutputDir {
            dir,
            path: path.to_path_buf(),
        })
    }

    /// Opens the directory at `path`, creating it and its missing parents first. Symbolic
    /// links in `path` are followed: the path is the user's.
    ///
    /// # Errors
    ///
    /// When it cannot be created or opened.
    pub fn create(path: impl AsRef<Path>) -> Result<OutputDir, FileError> {
        let path = path.as_ref();
        #[allow(clippy::disallowed_methods)]
        let authority = cap_std::ambient_authority();
        fault::step()
            .and_then(|()| Dir::create_ambient_dir_all(path, authority))
            .map_err(|error| FileError::io(Action::CreateDirectory, path, error))?;
        OutputDir::open(path)
    }

    /// The path it was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory at `relative` below this one, created (with its missing parents) if
    /// needed.
    ///
    /// # Errors
    ///
    /// When `relative` is not a relative path below, a directory on the way is a symbolic
    /// link or not a directory, or one cannot be created.
    pub fn subdir(&self, relative: impl AsRef<Path>) -> Result<OutputDir, FileError> {
        let relative = relative.as_ref();
        let path = self.path.join(relative);
        let names = names(relative)
            .map_err(|problem| FileError::new(Action::OpenDirectory, &path, problem))?;
        let mut walk = self.walk(&names, true, Action::OpenDirectory, &path)?;
        let dir = walk.dirs.pop().unwrap_or(walk.root);
        Ok(OutputDir { dir, path })
    }

    /// A new directory below this one with a name nobody could guess (`prefix` and 16 random
    /// hex digits), readable by its owner only (mode 0700 on Unix): the place for a file that
    /// must not be at a predictable path, where another user could plant a link first.
    ///
    /// # Errors
    ///
    /// When the OS random source fails or the directory cannot be created.
    pub fn create_private(&self, prefix: &str) -> Result<OutputDir, FileError> {
        let mut builder = cap_std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use cap_std::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        loop {
            let name = random_hex()
                .map(|hex| format!("{prefix}{hex}"))
                .map_err(|error| FileError::io(Action::CreateDirectory, &self.path, error))?;
            let path = self.path.join(&name);
            let failed = |error| FileError::io(Action::CreateDirectory, &path, error);
            match fault::step().and_then(|()| self.dir.create_dir_with(&name, &builder)) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(failed(error)),
            }
            let dir = self.dir.open_dir_nofollow(&name).map_err(failed)?;
            return Ok(OutputDir { dir, path });
        }
    }

    /// Writes `contents` to the file at `relative` (parents created as needed): into a
    /// temporary file beside it, renamed over it when whole. A link at the destination is
    /// replaced, not followed.
    ///
    /// # Errors
    ///
    /// When `relative` is not a relative path below, a directory on the way is a symbolic
    /// link, a directory stands at the destination, or the OS refuses; then nothing was
    /// changed.
    pub fn write(
        &self,
        relative: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
    ) -> Result<(), FileError> {
        let relative = relative.as_ref();
        let path = self.path.join(relative);
        let (parents, name) =
            split(relative).map_err(|problem| FileError::new(Action::Write, &path, problem))?;
        let walk = self.walk(&parents, true, Action::Write, &path)?;
        let written = write_in(walk.last(), name, contents.as_ref(), &path);
        if written.is_err() {
            walk.undo(&parents);
        }
        written
    }

    /// A file written in pieces at `name` (a file name directly in this directory; see
    /// [`OutputDir::subdir`]), which appears there only when [`PendingFile::publish`] renames
    /// it into place, whole. Dropped unpublished, it leaves nothing.
    ///
    /// # Errors
    ///
    /// When `name` is not a plain file name, a directory stands there, or the temporary file
    /// cannot be created.
    pub fn pending(&self, name: impl AsRef<Path>) -> Result<PendingFile<'_>, FileError> {
        let name = name.as_ref();
        let path = self.path.join(name);
        let (parents, file_name) =
            split(name).map_err(|problem| FileError::new(Action::Write, &path, problem))?;
        if !parents.is_empty() {
            return Err(FileError::new(Action::Write, &path, Problem::NotAName));
        }
        PendingFile::new(&self.dir, file_name, path)
    }

    /// A set of files to write (and remove) together: see [`FileSet`].
    pub fn stage(&self) -> FileSet<'_> {
        FileSet::new(self)
    }

    /// Renames the file, link or directory at `from` to `to`, both below this directory
    /// (`to`'s parents created as needed): a link at either end is renamed or replaced, never
    /// followed. What stands at `to` is replaced as `rename(2)` does: a file or link by a file
    /// or link, an empty directory by a directory; anything else is an error.
    ///
    /// # Errors
    ///
    /// When a path is not a relative path below, a directory on the way is a symbolic link,
    /// or the OS refuses; then nothing was changed.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<(), FileError> {
        let (from, to) = (from.as_ref(), to.as_ref());
        let from_path = self.path.join(from);
        let to_path = self.path.join(to);
        let (from_parents, from_name) =
            split(from).map_err(|problem| FileError::new(Action::Publish, &from_path, problem))?;
        let (to_parents, to_name) =
            split(to).map_err(|problem| FileError::new(Action::Publish, &to_path, problem))?;
        let source = self.walk(&from_parents, false, Action::Publish, &from_path)?;
        let target = self.walk(&to_parents, true, Action::Publish, &to_path)?;
        let renamed = fault::step()
            .and_then(|()| source.last().rename(from_name, target.last(), to_name))
            .map_err(|error| FileError::io(Action::Publish, &to_path, error));
        if renamed.is_err() {
            target.undo(&to_parents);
        }
        renamed
    }

    /// Removes the file or symbolic link at `relative` (a link is removed, not what it points
    /// to).
    ///
    /// # Errors
    ///
    /// When it does not exist ([`FileError::is_not_found`]), is a directory, a directory on the
    /// way is a symbolic link, or the OS refuses.
    pub fn remove(&self, relative: impl AsRef<Path>) -> Result<(), FileError> {
        let relative = relative.as_ref();
        let path = self.path.join(relative);
        let (parents, name) =
            split(relative).map_err(|problem| FileError::new(Action::Remove, &path, problem))?;
        let walk = self.walk(&parents, false, Action::Remove, &path)?;
        fault::step()
            .and_then(|()| walk.last().remove_file_or_symlink(name))
            .map_err(|error| FileError::io(Action::Remove, &path, error))
    }

    /// Removes whatever is at `relative`: a file, a link (not what it points to) or a whole
    /// tree (links in it removed, never followed). Nothing there is not an error.
    ///
    /// # Errors
    ///
    /// When `relative` is not a relative path below, a directory on the way is a symbolic
    /// link, or the OS refuses (a tree may then be partly removed).
    pub fn remove_all(&self, relative: impl AsRef<Path>) -> Result<(), FileError> {
        let relative = relative.as_ref();
        let path = self.path.join(relative);
        let (parents, name) =
            split(relative).map_err(|problem| FileError::new(Action::Remove, &path, problem))?;
        let walk = match self.walk(&parents, false, Action::Remove, &path) {
            Ok(walk) => walk,
            Err(error) if error.is_not_found() => return Ok(()),
            Err(error) => return Err(error),
        };
        let dir = walk.last();
        let failed = |error| FileError::io(Action::Remove, &path, error);
        let is_dir = match dir.symlink_metadata(name) {
            Ok(metadata) => metadata.is_dir(),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(failed(error)),
        };
        fault::step()
            .and_then(|()| {
                if is_dir {
                    dir.remove_dir_all(name)
                } else {
                    dir.remove_file_or_symlink(name)
                }
            })
            .map_err(failed)
    }

    /// Opens the directories `names` below this one, in turn, each without following a link;
    /// with `create`, the missing ones are created first. Errors name `target`, the path the
    /// walk leads to (a link on the way is named in the problem).
    fn walk(
        &self,
        names: &[&OsStr],
        create: bool,
        action: Action,
        target: &Path,
    ) -> Result<Walk, FileError> {
        let root = self
            .dir
            .try_clone()
            .map_err(|error| FileError::io(action, &self.path, error))?;
        let mut walk = Walk {
            root,
            dirs: Vec::with_capacity(names.len()),
            created_from: None,
        };
        for (depth, name) in names.iter().enumerate() {
            let path = || {
                names[..=depth]
                    .iter()
                    .fold(self.path.clone(), |p, n| p.join(n))
            };
            let parent = walk.last();
            let mut created = false;
            let opened = match parent.open_dir_nofollow(name) {
                Err(error) if create && error.kind() == io::ErrorKind::NotFound => {
                    match fault::step().and_then(|()| parent.create_dir(name)) {
                        Ok(()) => created = true,
                        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(error) => {
                            walk.undo(names);
                            return Err(FileError::io(Action::CreateDirectory, target, error));
                        }
                    }
                    parent.open_dir_nofollow(name)
                }
                opened => opened,
            };
            let opened = opened.map_err(|error| {
                let is_link = parent
                    .symlink_metadata(name)
                    .is_ok_and(|metadata| metadata.file_type().is_symlink());
                if is_link {
                    Problem::Link(path())
                } else {
                    Problem::Io(error)
                }
            });
            if created {
                walk.created_from.get_or_insert(depth);
            }
            match opened {
                Ok(dir) => walk.dirs.push(dir),
                Err(problem) => {
                    // A directory created just now that cannot be opened is removed too.
                    if created {
                        let _ = walk.last().remove_dir(name);
                    }
                    walk.undo(names);
                    return Err(FileError::new(action, target, problem));
                }
            }
        }
        Ok(walk)
    }
}

/// The directories from an output directory down to a parent, opened without following links.
struct Walk {
    root: Dir,
    /// One per name walked.
    dirs: Vec<Dir>,
    /// The depth of the first directory this walk created (every deeper one it created too).
    created_from: Option<usize>,
}

impl Walk {
    /// The last directory opened.
    fn last(&self) -> &Dir {
        self.dirs.last().unwrap_or(&self.root)
    }

    /// Removes the directories this walk created (empty again after a failure), deepest
    /// first. Best effort: this runs on the way out of a failure already reported.
    fn undo(self, names: &[&OsStr]) {
        let Some(from) = self.created_from else {
            return;
        };
        for depth in (from..self.dirs.len().min(names.len())).rev() {
            let parent = if depth == 0 {
                &self.root
            } else {
                &self.dirs[depth - 1]
            };
            let _ = parent.remove_dir(names[depth]);
        }
    }
}

/// Writes a whole file at `name` in `dir`: a temporary file, renamed over it.
fn write_in(dir: &Dir, name: &OsStr, contents: &[u8], path: &Path) -> Result<(), FileError> {
    refuse_directory(dir, name, path)?;
    let failed = |error| FileError::io(Action::Write, path, error);
    fault::step().map_err(failed)?;
    let mut temp = TempFile::new(dir).map_err(failed)?;
    fault::step()
        .and_then(|()| temp.write_all(contents))
        .map_err(failed)?;
    fault::step()
        .and_then(|()| publish(temp, name))
        .map_err(|error| FileError::io(Action::Publish, path, error))
}

/// Puts a finished temporary file at `name`, its data on disk first (`fsync`): after a power
/// cut the destination holds the old file or the new one whole, never an empty or short one
/// (a rename can reach the disk before the data it names). The one way a file is published.
#[allow(
    clippy::disallowed_methods,
    reason = "the one rename into place, after the data is synced"
)]
fn publish(temp: TempFile<'_>, name: &OsStr) -> std::io::Result<()> {
    temp.as_file().sync_all()?;
    temp.replace(name)
}

/// An error when a directory stands at `name` (renaming a file over it would fail anyway, but
/// this says why).
fn refuse_directory(dir: &Dir, name: &OsStr, path: &Path) -> Result<(), FileError> {
    match dir.symlink_metadata(name) {
        Ok(metadata) if metadata.is_dir() => {
            Err(FileError::new(Action::Write, path, Problem::Directory))
        }
        _ => Ok(()),
    }
}

/// The names of a relative path below the directory (`.` skipped); an error for anything
/// else.
fn names(relative: &Path) -> Result<Vec<&OsStr>, Problem> {
    let mut names = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(Problem::NotInside);
            }
        }
    }
    if names.is_empty() {
        return Err(Problem::NotInside);
    }
    Ok(names)
}

/// The parent directories' names and the file's name.
fn split(relative: &Path) -> Result<(Vec<&OsStr>, &OsStr), Problem> {
    let mut names = names(relative)?;
    let name = names.pop().ok_or(Problem::NotInside)?;
    Ok((names, name))
}

/// 16 hex digits from the OS random source.
fn random_hex() -> io::Result<String> {
    let mut bytes = [0_u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|error| io::Error::other(format!("the OS random source failed: {error}")))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}
