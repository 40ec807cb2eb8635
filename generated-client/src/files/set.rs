//! Several files written (and removed) together, all or none: every new file is staged in a
//! temporary file first, and only then is each put in place, the old one kept aside until the
//! last is in place. A failure at any step puts the old files back and leaves nothing else.
//!
//! A name never stands empty while its file is replaced: the old file is kept aside by a second
//! link (a hard link), and the new one renamed over the name, so a process killed at any moment
//! leaves each file whole, old or new (a kill cannot be rolled back: the set may be part old,
//! part new, and a `.old-…` link may remain beside a file). Only where the file system has no
//! hard links is the old file moved aside first, as a removal's is.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;
use cap_tempfile::TempFile;

use super::{Action, FileError, OutputDir, Problem, Walk, fault, random_hex, split};

/// Files to write and remove below an [`OutputDir`] as one change ([`OutputDir::stage`]):
/// nothing happens until [`commit`](Self::commit), which either makes every change or none.
pub struct FileSet<'a> {
    dir: &'a OutputDir,
    changes: Vec<Change>,
}

/// The paths and the size of each new file, never the contents (a file may hold anything).
impl std::fmt::Debug for FileSet<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let changes = self.changes.iter().map(|change| match &change.contents {
            Some(contents) => format!(
                "write {} ({} bytes)",
                change.relative.display(),
                contents.len()
            ),
            None => format!("remove {}", change.relative.display()),
        });
        f.debug_struct("FileSet")
            .field("dir", self.dir)
            .field("changes", &changes.collect::<Vec<_>>())
            .finish()
    }
}

/// The start of an old file's name while a commit keeps it aside; 16 hex digits follow.
const BACKUP_PREFIX: &str = ".old-";

/// Whether `name` is one a [`FileSet`] commit gives an old file while it keeps it aside
/// (`.old-` and 16 hex digits): what a process killed mid-commit may leave beside the file, a
/// second link to the old file, whole. The next commit that writes in that folder removes
/// such names (a tool that compares a folder may count them as stale).
pub fn is_left_behind(name: &OsStr) -> bool {
    name.to_str()
        .and_then(|name| name.strip_prefix(BACKUP_PREFIX))
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|byte| byte.is_ascii_hexdigit()))
}

struct Change {
    relative: PathBuf,
    /// `None` removes the file.
    contents: Option<Vec<u8>>,
}

/// One change of a commit under way: where, and what was done so far (for the rollback).
struct Placed {
    change: usize,
    /// The old file's name while it is kept aside.
    backup: Option<String>,
    /// Whether the old file is kept aside as a second link, still in place under its name
    /// until the new one replaces it (else it was moved aside).
    linked: bool,
    /// Whether the new file is in place.
    new_in_place: bool,
}

impl<'a> FileSet<'a> {
    pub(super) fn new(dir: &'a OutputDir) -> Self {
        FileSet {
            dir,
            changes: Vec::new(),
        }
    }

    /// Adds the file at `relative` with `contents` to the set (parents created as needed).
    pub fn write(&mut self, relative: impl AsRef<Path>, contents: impl Into<Vec<u8>>) -> &mut Self {
        self.changes.push(Change {
            relative: relative.as_ref().to_path_buf(),
            contents: Some(contents.into()),
        });
        self
    }

    /// Adds the removal of the file or link at `relative` (which must exist) to the set.
    pub fn remove(&mut self, relative: impl AsRef<Path>) -> &mut Self {
        self.changes.push(Change {
            relative: relative.as_ref().to_path_buf(),
            contents: None,
        });
        self
    }

    /// Makes every change, in the order added, or none: the paths are checked and every new
    /// file is written to a temporary file beside its destination; then each old file is kept
    /// aside (a second link) and the new one renamed over it, so no name stands empty, even
    /// if the process is killed; then the old ones are deleted.
    ///
    /// # Errors
    ///
    /// The first failure, naming its path and action. Every file is then as it was, and
    /// nothing the commit made (temporary files, directories) is left; should the final
    /// deletion of an old file fail, the error names that file, and the new set is in place.
    pub fn commit(self) -> Result<(), FileError> {
        let root = self.dir;
        let paths: Vec<PathBuf> = self
            .changes
            .iter()
            .map(|change| root.path.join(&change.relative))
            .collect();
        let mut targets: Vec<(Vec<&OsStr>, &OsStr)> = Vec::with_capacity(self.changes.len());
        for (change, path) in self.changes.iter().zip(&paths) {
            let action = action_of(change);
            targets.push(
                split(&change.relative).map_err(|problem| FileError::new(action, path, problem))?,
            );
        }
        let mut walks: Vec<Walk> = Vec::with_capacity(targets.len());
        let opened = (|| {
            for ((change, path), (parents, _)) in self.changes.iter().zip(&paths).zip(&targets) {
                let action = action_of(change);
                walks.push(root.walk(parents, change.contents.is_some(), action, path)?);
            }
            // After every walk: a directory one of them created is in the way too.
            for (((change, path), (_, name)), walk) in
                self.changes.iter().zip(&paths).zip(&targets).zip(&walks)
            {
                check_destination(walk.last(), name, change, path)?;
            }
            Ok(())
        })();
        let staged = opened.and_then(|()| stage(&self.changes, &walks, &paths));
        let result = staged.and_then(|staged| {
            let mut placed = Vec::with_capacity(staged.len());
            let result = place(staged, &walks, &targets, &paths, &mut placed);
            match result {
                Ok(()) => Ok(placed),
                Err(error) => {
                    roll_back(&placed, &walks, &targets);
                    Err(error)
                }
            }
        });
        match result {
            Ok(placed) => delete_old(&placed, &walks, &paths),
            Err(error) => {
                for (walk, (parents, _)) in walks.into_iter().zip(&targets).rev() {
                    walk.undo(parents);
                }
                Err(error)
            }
        }
    }
}

fn action_of(change: &Change) -> Action {
    if change.contents.is_some() {
        Action::Write
    } else {
        Action::Remove
    }
}

/// A directory at the destination is refused, and so is the removal of nothing.
fn check_destination(
    dir: &Dir,
    name: &OsStr,
    change: &Change,
    path: &Path,
) -> Result<(), FileError> {
    let action = action_of(change);
    match dir.symlink_metadata(name) {
        Ok(metadata) if metadata.is_dir() => Err(FileError::new(action, path, Problem::Directory)),
        Ok(_) => Ok(()),
        Err(error) if change.contents.is_none() || error.kind() != io::ErrorKind::NotFound => {
            Err(FileError::io(action, path, error))
        }
        Err(_) => Ok(()),
    }
}

/// Every new file written to a temporary file beside its destination.
fn stage<'w>(
    changes: &[Change],
    walks: &'w [Walk],
    paths: &[PathBuf],
) -> Result<Vec<Option<TempFile<'w>>>, FileError> {
    let mut staged = Vec::with_capacity(changes.len());
    for ((change, walk), path) in changes.iter().zip(walks).zip(paths) {
        let Some(contents) = &change.contents else {
            staged.push(None);
            continue;
        };
        let failed = |error| FileError::io(Action::Write, path, error);
        fault::step().map_err(failed)?;
        let mut temp = TempFile::new(walk.last()).map_err(failed)?;
        fault::step()
            .and_then(|()| temp.write_all(contents))
            .map_err(failed)?;
        staged.push(Some(temp));
    }
    Ok(staged)
}

/// Each old file moved aside and each new one renamed into place, noting what was done.
fn place(
    staged: Vec<Option<TempFile<'_>>>,
    walks: &[Walk],
    targets: &[(Vec<&OsStr>, &OsStr)],
    paths: &[PathBuf],
    placed: &mut Vec<Placed>,
) -> Result<(), FileError> {
    for (change, temp) in staged.into_iter().enumerate() {
        let dir = walks[change].last();
        let name = targets[change].1;
        let path = &paths[change];
        let action = if temp.is_some() {
            Action::Publish
        } else {
            Action::Remove
        };
        let failed = |error| FileError::io(action, path, error);
        let backup = match dir.symlink_metadata(name) {
            // Checked before, but a directory is never moved aside, whatever made it since.
            Ok(metadata) if metadata.is_dir() => {
                return Err(FileError::new(action, path, Problem::Directory));
            }
            Ok(_) => {
                let backup = format!("{BACKUP_PREFIX}{}", random_hex().map_err(failed)?);
                fault::step().map_err(failed)?;
                // A file replaced stays under its name (the new one renamed over it); a file
                // removed, or one on a file system without hard links, is moved aside.
                let linked = temp.is_some() && dir.hard_link(name, dir, &backup).is_ok();
                if !linked {
                    dir.rename(name, dir, &backup).map_err(failed)?;
                }
                Some((backup, linked))
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound && temp.is_some() => None,
            Err(error) => return Err(failed(error)),
        };
        let linked = backup.as_ref().is_some_and(|(_, linked)| *linked);
        placed.push(Placed {
            change,
            backup: backup.map(|(backup, _)| backup),
            linked,
            new_in_place: false,
        });
        if let Some(temp) = temp {
            fault::step()
                .and_then(|()| super::publish(temp, name))
                .map_err(failed)?;
            if let Some(last) = placed.last_mut() {
                last.new_in_place = true;
            }
        }
    }
    Ok(())
}

/// Undoes `placed`, last first: each old file put back over the new one (a name never empty),
/// each new file without an old one removed.
fn roll_back(placed: &[Placed], walks: &[Walk], targets: &[(Vec<&OsStr>, &OsStr)]) {
    for step in placed.iter().rev() {
        let dir = walks[step.change].last();
        let name = targets[step.change].1;
        match &step.backup {
            // The old file never left its name: only its second link goes.
            Some(backup) if step.linked && !step.new_in_place => {
                let _ = dir.remove_file_or_symlink(backup);
            }
            Some(backup) => {
                let _ = dir.rename(backup, dir, name);
            }
            None if step.new_in_place => {
                let _ = dir.remove_file_or_symlink(name);
            }
            None => {}
        }
    }
}

/// The old files kept aside, deleted once every new one is in place; then what a killed
/// commit left in the folders written ([`is_left_behind`]), best effort.
fn delete_old(placed: &[Placed], walks: &[Walk], paths: &[PathBuf]) -> Result<(), FileError> {
    let mut first_error = None;
    for step in placed {
        let Some(backup) = &step.backup else {
            continue;
        };
        let dir = walks[step.change].last();
        if let Err(error) = dir.remove_file_or_symlink(backup) {
            let path = paths[step.change].with_file_name(backup);
            first_error.get_or_insert(FileError::io(Action::Remove, path, error));
        }
    }
    for walk in walks {
        remove_left_behind(walk.last());
    }
    first_error.map_or(Ok(()), Err)
}

/// Removes the names a killed commit left in `dir` (links to old files, never a directory).
fn remove_left_behind(dir: &Dir) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if is_left_behind(&name) && entry.file_type().is_ok_and(|kind| !kind.is_dir()) {
            let _ = dir.remove_file_or_symlink(&name);
        }
    }
}
