//! Reading a file of untrusted input (a recording; in `marketplace-codegen`, which compiles this
//! same file, a spec file or the reference) with its size bounded before and during the read.
//! The bytes are read here; each crate reads them as text itself, locating a byte that is not
//! UTF-8 by its line (a recording's by `recording::reader`, a spec's or the reference's by
//! `marketplace_codegen`'s `LineCol::at_byte`).
//!
//! The property: reading never blocks on anything but a regular file, never allocates more
//! than `max_bytes` (plus one) for it, and never follows a symbolic link out of the directory
//! the file was listed from, or stands in when the user named it. So a spec or recording directory that holds a FIFO, a device, a
//! symbolic link to `/dev/zero` or to a file elsewhere (git stores symbolic links, so a pull
//! request can add one), or a sparse file of gigabytes is refused with an error naming the
//! file and what it is, before a byte is read.
//!
//! The file is opened without blocking (`O_NONBLOCK`: opening a FIFO otherwise waits for a
//! writer) and without following a last symbolic link (`O_NOFOLLOW`, on the path already
//! resolved), then checked through the open handle: a file swapped after the checks on its
//! path is still caught. The size is checked before reading and enforced while reading (a
//! file that grows, or one whose size the file system does not report, such as `/proc`'s).
//!
//! Errors are `io::Error`s whose message says what was refused and why; both crates report
//! them with the path (`RecordingError::Io`, `CodegenError::Io`).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The files of `dir` whose name ends in `.{extension}`, in name order: at most `max_files`
/// of them (more is an error, before any is read, and the listing stops there). Only names
/// are read here; [`read_file`] with `within: Some(dir)` refuses any that is not a regular
/// file.
pub(crate) fn files_in(dir: &Path, extension: &str, max_files: usize) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == extension) {
            if files.len() == max_files {
                return Err(refused(format!(
                    "it holds more than the {max_files} .{extension} files allowed; refused \
                     before reading"
                )));
            }
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The contents of the regular file `path`, at most `max_bytes` of them. A symbolic link at
/// `path` is followed only to a file inside `within`, or without it inside the directory
/// `path` stands in.
pub(crate) fn read_file(path: &Path, within: Option<&Path>, max_bytes: u64) -> io::Result<Vec<u8>> {
    let resolved = resolve(path, within)?;
    let mut file = open_without_blocking(&resolved)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(refused(format!(
            "it is {}, not a regular file; refused before reading",
            kind_of(&metadata.file_type())
        )));
    }
    if metadata.len() > max_bytes {
        return Err(too_large(metadata.len(), max_bytes));
    }
    // The size said now, capped; the read below enforces the limit whatever the size becomes.
    let expected = usize::try_from(metadata.len()).unwrap_or(0);
    let mut contents = Vec::with_capacity(expected);
    (&mut file)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut contents)?;
    if contents.len() as u64 > max_bytes {
        return Err(too_large(contents.len() as u64, max_bytes));
    }
    Ok(contents)
}

/// The path to open: `path` itself, or the target of a symbolic link when it stays within
/// `within` (by default the directory `path` stands in).
fn resolve(path: &Path, within: Option<&Path>) -> io::Result<PathBuf> {
    let link = fs::symlink_metadata(path)?;
    if !link.file_type().is_symlink() {
        return Ok(path.to_path_buf());
    }
    let target = fs::canonicalize(path)?;
    // A link at a file the user named is content of its directory, not the user's choice: git
    // stores links, so a pull request can turn a committed recording or reference into one.
    // The links on the way to that directory are the path the user typed.
    let dir = match within {
        Some(dir) => dir,
        None => match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        },
    };
    let dir = fs::canonicalize(dir)?;
    if !target.starts_with(&dir) {
        return Err(refused(format!(
            "it is a symbolic link to {}, outside {}; refused",
            target.display(),
            dir.display()
        )));
    }
    Ok(target)
}

/// Read-only: this module never writes (writing goes through `crate::files`, and clippy.toml
/// refuses `File::options` elsewhere), so the flags are rustix's, which write nothing here.
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // The one open through rustix outside the writer: read-only, which
    // xtask/tests/file_writes.rs checks in these flags.
    #[allow(
        clippy::disallowed_methods,
        reason = "the reader's read-only open; writes go through marketplace_client::files"
    )]
    let opened = rustix::fs::open(path, flags, Mode::empty());
    match opened {
        Ok(fd) => Ok(File::from(fd)),
        // O_NOFOLLOW on a path swapped for a link since it was resolved.
        Err(rustix::io::Errno::LOOP) => Err(refused(
            "it became a symbolic link while being read".to_owned(),
        )),
        Err(errno) => Err(errno.into()),
    }
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    // Elsewhere the checks on the path come first (a FIFO cannot be named there as on Unix).
    let metadata = fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(refused(format!(
            "it is {}, not a regular file; refused before reading",
            kind_of(&metadata.file_type())
        )));
    }
    File::open(path)
}

/// What a file that is not a regular one is, for a message.
fn kind_of(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn too_large(size: u64, max_bytes: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("it is {size} bytes, more than the {max_bytes} allowed; refused before reading"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::files::OutputDir;

    /// A fresh directory, its path, and the writer of its fixtures.
    fn scratch() -> (tempfile::TempDir, PathBuf, OutputDir) {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        let out = OutputDir::open(&dir).unwrap();
        (temp, dir, out)
    }

    #[test]
    fn reads_a_regular_file_within_its_limit_and_refuses_a_larger_one() {
        let (_temp, dir, out) = scratch();
        let file = dir.join("a.yaml");
        out.write("a.yaml", "x".repeat(100)).unwrap();
        assert_eq!(read_file(&file, Some(&dir), 100).unwrap().len(), 100);
        let error = read_file(&file, Some(&dir), 99).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert!(error.to_string().contains("100 bytes"), "{error}");
        // A sparse file of 4 GiB is refused by its size, not read.
        let mut sparse = out.pending("sparse.yaml").unwrap();
        sparse.set_len(4 << 30).unwrap();
        sparse.publish().unwrap();
        let error = read_file(&dir.join("sparse.yaml"), Some(&dir), 1 << 20).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_devices_fifos_directories_and_links_out_of_the_directory() {
        let (_temp, dir, out) = scratch();
        let zero = dir.join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = read_file(&zero, Some(&dir), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("outside"), "{error}");
        // Named by the user (no directory): a link is still refused out of its own directory.
        let error = read_file(&zero, None, 1 << 20).unwrap_err();
        assert!(error.to_string().contains("outside"), "{error}");

        let fifo = dir.join("fifo.yaml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let error = read_file(&fifo, Some(&dir), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");

        let sub = dir.join("sub.yaml");
        out.subdir("sub.yaml").unwrap();
        let error = read_file(&sub, Some(&dir), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("a directory"), "{error}");

        let (_outside_temp, outside, outside_out) = scratch();
        outside_out.write("real.yaml", "a: 1").unwrap();
        let away = dir.join("away.yaml");
        std::os::unix::fs::symlink(outside.join("real.yaml"), &away).unwrap();
        let error = read_file(&away, Some(&dir), 1 << 20).unwrap_err();
        assert!(error.to_string().contains("outside"), "{error}");

        // A link to a file of the same directory is followed.
        out.write("real.yaml", "b: 2").unwrap();
        let near = dir.join("near.yaml");
        std::os::unix::fs::symlink(dir.join("real.yaml"), &near).unwrap();
        assert_eq!(read_file(&near, Some(&dir), 10).unwrap(), b"b: 2");

        let error = files_in(&dir, "yaml", 5).unwrap_err();
        assert!(error.to_string().contains("more than the 5"), "{error}");
        let names: Vec<String> = files_in(&dir, "yaml", 6)
            .unwrap()
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "away.yaml",
                "fifo.yaml",
                "near.yaml",
                "real.yaml",
                "sub.yaml",
                "zero.yaml"
            ]
        );
    }

    /// Where a generated link points, from the directory read (`inside`).
    #[cfg(unix)]
    #[derive(Clone, Debug)]
    enum Target {
        /// Another entry of the directory, as `name`, `./name` or `../inside/name`.
        Sibling(usize, u8),
        /// The file outside, relatively, absolutely, through `/proc/self/root` or with `//`.
        Outside(u8),
        /// A file of a directory beside it whose name starts like the directory's.
        LookAlike,
        /// Through `sub`, a link of the directory to the outside directory or to itself.
        ThroughSub(usize),
        /// Nothing.
        Dangling,
    }

    #[cfg(unix)]
    fn target_strategy() -> impl proptest::strategy::Strategy<Value = Target> {
        use proptest::prelude::*;
        prop_oneof![
            (0..5usize, 0..3u8).prop_map(|(entry, form)| Target::Sibling(entry, form)),
            (0..5u8).prop_map(Target::Outside),
            Just(Target::LookAlike),
            (0..5usize).prop_map(Target::ThroughSub),
            Just(Target::Dangling),
        ]
    }

    #[cfg(unix)]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 96,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Whatever links stand in a directory (chains, links through a directory link, out
        /// and back in, absolute, through `/proc/self/root`), no byte of a file outside it is
        /// read, whether the directory was listed (`within`) or the file named directly
        /// (`None`, by its path or through a link to the directory); a regular file is read.
        #[test]
        fn no_link_of_any_shape_reads_a_file_outside_its_directory(
            entries in proptest::collection::vec(proptest::option::of(target_strategy()), 5),
            sub_to_outside in proptest::bool::ANY,
        ) {
            use std::os::unix::fs::symlink;
            let temp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(temp.path()).unwrap();
            let out = OutputDir::open(&root).unwrap();
            out.write("outside/secret", "OUTSIDE").unwrap();
            out.write("inside-2/secret", "OUTSIDE").unwrap();
            out.subdir("inside").unwrap();
            let inside = root.join("inside");
            symlink(if sub_to_outside { "../outside" } else { "." }, inside.join("sub")).unwrap();
            symlink("inside", root.join("inside-link")).unwrap();
            for (index, entry) in entries.iter().enumerate() {
                let name = format!("e{index}");
                let Some(target) = entry else {
                    out.write(format!("inside/{name}"), "inside").unwrap();
                    continue;
                };
                let secret = root.join("outside/secret");
                let target: PathBuf = match target {
                    Target::Sibling(other, 0) => format!("e{other}").into(),
                    Target::Sibling(other, 1) => format!("./e{other}").into(),
                    Target::Sibling(other, _) => format!("../inside/e{other}").into(),
                    Target::Outside(0) => "../outside/secret".into(),
                    Target::Outside(1) => secret,
                    Target::Outside(2) => Path::new("/proc/self/root").join(secret.strip_prefix("/").unwrap()),
                    Target::Outside(3) => format!("/{}//outside//secret", root.display()).into(),
                    Target::Outside(_) => "./.././outside/./secret".into(),
                    Target::LookAlike => "../inside-2/secret".into(),
                    Target::ThroughSub(other) => format!("sub/e{other}").into(),
                    Target::Dangling => "nothing-here".into(),
                };
                symlink(&target, inside.join(&name)).unwrap();
            }
            for (index, entry) in entries.iter().enumerate() {
                let name = format!("e{index}");
                for (path, within) in [
                    (inside.join(&name), Some(inside.as_path())),
                    (inside.join(&name), None),
                    (root.join("inside-link").join(&name), None),
                    (root.join("inside-link/sub/..").join("inside").join(&name), None),
                ] {
                    let read = read_file(&path, within, 1 << 10);
                    if let Ok(bytes) = &read {
                        proptest::prop_assert_eq!(
                            &bytes[..], b"inside",
                            "{} (within {:?}) read a file outside: {:?}", path.display(), within, entries
                        );
                    }
                    if entry.is_none() && !path.to_string_lossy().contains("/sub/") {
                        proptest::prop_assert!(read.is_ok(), "{}: {:?}", path.display(), read);
                    }
                }
            }
        }
    }
}
