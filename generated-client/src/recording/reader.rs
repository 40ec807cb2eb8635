//! Reading a recording back: bounded, every line an exchange or an error naming its file and
//! line.

use std::io;
use std::path::{Path, PathBuf};

use super::{Exchange, RecordingError};
use crate::input_file;

/// One exchange read back, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The file it was read from.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// The exchange.
    pub exchange: Exchange,
}

/// The largest recording file [`read`] reads: sixteen times a rotated file of the default
/// [`Rotation`](super::Rotation) (a line is never split, so one exchange with a body at the
/// client's 32 MiB cap, JSON-escaped, can make a file larger than its rotation size).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The most bytes [`read`] reads in all, over every file of a directory.
pub const MAX_TOTAL_BYTES: u64 = 1 << 30;

/// The most recording files [`read`] reads from one directory.
pub const MAX_FILES: usize = 4096;

/// Reads a recording: a `.jsonl` file, or every `.jsonl` file of a directory in name order
/// (the order a recorder wrote them). Blank lines and a byte order mark at the start of a file
/// are skipped; any other line that is not an exchange is an error naming its file and line.
///
/// The input is untrusted and bounded before it is read: only regular files (a FIFO, a device
/// or a directory named `….jsonl` is refused, and a symbolic link is followed only to a file
/// of the same directory), at most [`MAX_FILE_BYTES`] each, [`MAX_FILES`] files and
/// [`MAX_TOTAL_BYTES`] in all.
pub fn read(path: impl AsRef<Path>) -> Result<Vec<Recorded>, RecordingError> {
    let path = path.as_ref();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RecordingError::Io { path, source }
    };
    let (files, within) = if path.is_dir() {
        (
            input_file::files_in(path, "jsonl", MAX_FILES).map_err(io(path))?,
            Some(path),
        )
    } else {
        (vec![path.to_path_buf()], None)
    };
    let mut recorded = Vec::new();
    let mut total: u64 = 0;
    for file in files {
        let left = MAX_TOTAL_BYTES - total;
        let bytes = input_file::read_file(&file, within, MAX_FILE_BYTES.min(left)).map_err(
            |source| match source.kind() {
                io::ErrorKind::FileTooLarge if left < MAX_FILE_BYTES => RecordingError::Io {
                    path: file.clone(),
                    source: io::Error::new(
                        io::ErrorKind::FileTooLarge,
                        format!(
                            "the recording passes {MAX_TOTAL_BYTES} bytes in all with this file; \
                             audit fewer files at once"
                        ),
                    ),
                },
                _ => io(&file)(source),
            },
        )?;
        total += bytes.len() as u64;
        // A byte order mark at the start of a file (an editor's) is no content, as in the
        // spec's files and answers' bodies (one reading of it for both); one anywhere else is
        // text before a line's JSON, refused.
        let text = crate::envelope::content(&bytes);
        for (index, line) in text.split(|&byte| byte == b'\n').enumerate() {
            let line_error = |message: String| RecordingError::Line {
                path: file.clone(),
                line: index + 1,
                message,
            };
            let line = std::str::from_utf8(line).map_err(|error| {
                line_error(format!(
                    "not UTF-8 (invalid byte at column {})",
                    error.valid_up_to() + 1
                ))
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let exchange = Exchange::from_line(line).map_err(line_error)?;
            recorded.push(Recorded {
                file: file.clone(),
                line: index + 1,
                exchange,
            });
        }
    }
    Ok(recorded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::OutputDir;
    use crate::recording::tests::exchange;

    #[test]
    fn a_line_that_is_not_an_exchange_is_named_by_file_and_line() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        OutputDir::open(dir)
            .unwrap()
            .write(
                "a.jsonl",
                format!("{}\n\n{{\"status\": 200}}\n", exchange("{}").to_line()),
            )
            .unwrap();
        let error = read(dir).unwrap_err().to_string();
        assert!(
            error.contains("a.jsonl:3: not a recorded exchange"),
            "{error}"
        );
    }

    /// A file an editor saved with a byte order mark reads as without it; a mark at the
    /// start of a later line (two files joined) is that line's error, at its line.
    #[test]
    fn a_byte_order_mark_at_the_start_of_a_file_is_no_content() {
        let temp = tempfile::tempdir().unwrap();
        let dir = OutputDir::open(temp.path()).unwrap();
        let line = exchange("{}").to_line();
        dir.write("a.jsonl", format!("{line}\n{line}\n")).unwrap();
        dir.write("b.jsonl", format!("\u{feff}{line}\r\n{line}"))
            .unwrap();
        let plain = read(temp.path().join("a.jsonl")).unwrap();
        let marked = read(temp.path().join("b.jsonl")).unwrap();
        let exchanges = |recorded: &[Recorded]| {
            recorded
                .iter()
                .map(|r| (r.line, r.exchange.to_line()))
                .collect::<Vec<_>>()
        };
        assert_eq!(exchanges(&marked), exchanges(&plain));
        dir.write("c.jsonl", format!("{line}\n\u{feff}{line}\n"))
            .unwrap();
        let error = read(temp.path().join("c.jsonl")).unwrap_err();
        assert!(
            matches!(&error, RecordingError::Line { line: 2, .. }),
            "{error:?}"
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named_by_file_and_line() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let mut bytes = exchange("{}").to_line().into_bytes();
        bytes.extend_from_slice(
            b"\n{\"format\": \"marketplace-recording/1\", \"method\": \"\xff\"}\n",
        );
        OutputDir::open(dir)
            .unwrap()
            .write("a.jsonl", &bytes)
            .unwrap();
        let error = read(dir).unwrap_err();
        assert!(
            matches!(&error, RecordingError::Line { path, line: 2, .. } if path.ends_with("a.jsonl")),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .contains("a.jsonl:2: not a recorded exchange: not UTF-8"),
            "{error}"
        );
    }
}
