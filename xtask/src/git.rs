//! Every git invocation of the tools, in one place that keeps untrusted text from being read as
//! options and bounds what git prints.
//!
//! A revision given by a user (`spec-diff --base`, `--head`) is never handed to a command as
//! it is: [`Git::commit`] verifies it (`git rev-parse --verify --end-of-options <rev>^{commit}`)
//! and what the commands get is the verified object id, a [`Commit`]. Paths go after `--`. So
//! `--base '--output=F'` is a revision that does not exist, never an option that writes `F`.
//! The only other text that reaches git is the tools' own (fixed arguments, tag patterns they
//! build). What git prints is read up to a bound ([`MAX_OUTPUT_BYTES`], or a blob's checked
//! size), so a repository cannot make the tools read without end; a spec file at a revision is
//! read only if its tree entry is a regular blob (a symbolic link or a submodule in `spec/`
//! is refused) and its size, asked first, is within the spec file limit.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use marketplace_codegen::{MAX_SPEC_BYTES, MAX_SPEC_FILE_BYTES, MAX_SPEC_FILES};

/// The most git may print for a command whose output is not a blob (listings, ids, subjects).
pub const MAX_OUTPUT_BYTES: u64 = 1 << 20;

/// What git says when it stops a tool.
#[derive(Debug, thiserror::Error)]
#[error("git {args}: {message}")]
pub struct GitError {
    /// The arguments, as run.
    pub args: String,
    /// What went wrong.
    pub message: String,
}

/// A commit's object id, as `git rev-parse --verify` gave it: hex digits only, so never an
/// option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit(String);

impl Commit {
    /// The id.
    pub fn id(&self) -> &str {
        &self.0
    }
}

/// An argument: the tools' own text, a verified id, or text from elsewhere that git must not
/// read as an option (it follows `--end-of-options` or `--`).
enum Arg<'a> {
    Fixed(&'a str),
    Id(&'a str),
    Untrusted(&'a str),
}

/// The repository at `root`.
pub struct Git<'r> {
    root: &'r Path,
}

impl<'r> Git<'r> {
    /// The repository whose work tree is `root`.
    pub fn new(root: &'r Path) -> Self {
        Git { root }
    }

    /// The commit `revision` names, verified; an error naming it when it names none (an
    /// option, a range, anything git cannot resolve to one commit).
    pub fn commit(&self, revision: &str) -> Result<Commit, GitError> {
        let named = format!("{revision}^{{commit}}");
        let output = self
            .run(
                &[
                    Arg::Fixed("rev-parse"),
                    Arg::Fixed("--verify"),
                    Arg::Fixed("--quiet"),
                    Arg::Fixed("--end-of-options"),
                    Arg::Untrusted(&named),
                ],
                MAX_OUTPUT_BYTES,
            )
            .map_err(|error| GitError {
                args: format!("rev-parse --verify {revision:?}"),
                message: if error.message.trim().is_empty() {
                    format!("{revision:?} names no commit of this repository")
                } else {
                    format!(
                        "{revision:?} names no commit of this repository ({})",
                        error.message.trim()
                    )
                },
            })?;
        object_id(output.trim())
            .map(|id| Commit(id.to_owned()))
            .ok_or_else(|| GitError {
                args: format!("rev-parse --verify {revision:?}"),
                message: format!("printed {:?}, not an object id", output.trim()),
            })
    }

    /// The merge base of `HEAD` and `main`.
    pub fn merge_base_with_main(&self) -> Result<Commit, GitError> {
        let output = self.run(
            &[
                Arg::Fixed("merge-base"),
                Arg::Fixed("--end-of-options"),
                Arg::Fixed("HEAD"),
                Arg::Fixed("main"),
            ],
            MAX_OUTPUT_BYTES,
        )?;
        self.commit_of(output.trim())
    }

    /// `abc1234 subject` of a commit, the whole line cut to [`SUBJECT_CHARS`] characters (an
    /// ellipsis marks the cut): a report's header names the revisions, it does not quote them.
    pub fn describe(&self, commit: &Commit) -> Result<String, GitError> {
        let output = self.run(
            &[
                Arg::Fixed("log"),
                Arg::Fixed("-1"),
                Arg::Fixed("--format=%h %s"),
                Arg::Fixed("--end-of-options"),
                Arg::Id(commit.id()),
                Arg::Fixed("--"),
            ],
            MAX_OUTPUT_BYTES,
        )?;
        Ok(shortened(output.trim(), SUBJECT_CHARS))
    }

    /// The names of the files under `path` that differ between `commit` and the work tree.
    pub fn changed_since(&self, commit: &Commit, path: &str) -> Result<String, GitError> {
        self.run(
            &[
                Arg::Fixed("diff"),
                Arg::Fixed("--name-only"),
                Arg::Fixed("--end-of-options"),
                Arg::Id(commit.id()),
                Arg::Fixed("--"),
                Arg::Untrusted(path),
            ],
            MAX_OUTPUT_BYTES,
        )
    }

    /// The tags matching `pattern`, one a line.
    pub fn tags(&self, pattern: &str) -> Result<String, GitError> {
        self.run(
            &[
                Arg::Fixed("tag"),
                Arg::Fixed("--list"),
                Arg::Fixed("--end-of-options"),
                Arg::Untrusted(pattern),
            ],
            MAX_OUTPUT_BYTES,
        )
    }

    /// The text of the file `path` at `commit` (a regular blob of at most `max_bytes`), or
    /// `None` when the commit has no such file.
    pub fn file_at(
        &self,
        commit: &Commit,
        path: &str,
        max_bytes: u64,
    ) -> Result<Option<String>, GitError> {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let entries = self.tree(commit, dir)?;
        match entries.into_iter().find(|entry| entry.name == name) {
            None => Ok(None),
            Some(entry) => {
                let bytes = self.blob(commit, &entry, path, max_bytes)?;
                String::from_utf8(bytes).map(Some).map_err(|error| {
                    let at = error.utf8_error().valid_up_to();
                    self.refused(commit, path, format!("not UTF-8 text (byte {at})"))
                })
            }
        }
    }

    /// The `.yaml` files of the directory `dir` at `commit`, read as spec files are from a
    /// work tree: regular files only, each at most the spec file limit, within the limits of
    /// a spec directory in all. Named `{dir}/{file}`, as bytes: the caller reads them as text
    /// with `marketplace_codegen::spec_sources`, as the work tree's are. None when the commit
    /// has no `dir` (a revision from before the spec): the caller judges that there is nothing
    /// to compare.
    pub fn spec_files(
        &self,
        commit: &Commit,
        dir: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, GitError> {
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        if !self
            .tree(commit, parent)?
            .iter()
            .any(|entry| entry.name == name)
        {
            return Ok(Vec::new());
        }
        let mut entries = self.tree(commit, dir)?;
        entries.retain(|entry| entry.name.ends_with(".yaml"));
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        if entries.len() > MAX_SPEC_FILES {
            return Err(self.refused(
                commit,
                dir,
                format!(
                    "{} spec files, more than the {MAX_SPEC_FILES} allowed",
                    entries.len()
                ),
            ));
        }
        let mut total = 0;
        let mut sources = Vec::with_capacity(entries.len());
        for entry in entries {
            let path = format!("{dir}/{}", entry.name);
            let left = MAX_SPEC_BYTES - total;
            let bytes = self.blob(commit, &entry, &path, MAX_SPEC_FILE_BYTES.min(left))?;
            total += bytes.len() as u64;
            sources.push((path, bytes));
        }
        Ok(sources)
    }

    /// The entries of the directory `dir` (`""`: the root) at `commit`; an error when `dir`
    /// is not a directory there.
    fn tree(&self, commit: &Commit, dir: &str) -> Result<Vec<Entry>, GitError> {
        let tree = match dir {
            "" => format!("{}^{{tree}}", commit.id()),
            dir => format!("{}:{dir}", commit.id()),
        };
        // Names are bytes (git takes any but `/` and NUL): read as bytes, each name shown
        // with what is not UTF-8 replaced (U+FFFD); a blob is read by its object id.
        let output = self
            .run_bytes(
                &[
                    Arg::Fixed("ls-tree"),
                    Arg::Fixed("-z"),
                    Arg::Fixed("--end-of-options"),
                    Arg::Untrusted(&tree),
                ],
                MAX_OUTPUT_BYTES,
            )
            .map_err(|error| {
                self.refused(commit, dir, format!("not a directory ({})", error.message))
            })?;
        output
            .split(|&byte| byte == 0)
            .filter(|line| !line.is_empty())
            .map(|line| {
                let line = String::from_utf8_lossy(line);
                Entry::parse(&line).ok_or_else(|| {
                    self.refused(commit, dir, format!("cannot read the tree entry {line:?}"))
                })
            })
            .collect()
    }

    /// A tree entry's blob: a regular file's, its size asked and checked before it is read.
    fn blob(
        &self,
        commit: &Commit,
        entry: &Entry,
        path: &str,
        max_bytes: u64,
    ) -> Result<Vec<u8>, GitError> {
        let kind = match entry.mode.as_str() {
            "100644" | "100755" if entry.kind == "blob" => None,
            "120000" => Some("a symbolic link"),
            "160000" => Some("a submodule"),
            "040000" => Some("a directory"),
            _ => Some("not a regular file"),
        };
        if let Some(kind) = kind {
            return Err(self.refused(
                commit,
                path,
                format!(
                    "it is {kind} (mode {}), not a regular file; refused",
                    entry.mode
                ),
            ));
        }
        let size = self.run(
            &[
                Arg::Fixed("cat-file"),
                Arg::Fixed("-s"),
                Arg::Fixed("--end-of-options"),
                Arg::Id(&entry.object),
            ],
            MAX_OUTPUT_BYTES,
        )?;
        let size: u64 = size.trim().parse().map_err(|_| {
            self.refused(commit, path, format!("git gave the size {:?}", size.trim()))
        })?;
        if size > max_bytes {
            return Err(self.refused(
                commit,
                path,
                format!(
                    "it is {size} bytes, more than the {max_bytes} allowed; refused before reading"
                ),
            ));
        }
        self.run_bytes(
            &[
                Arg::Fixed("cat-file"),
                Arg::Fixed("blob"),
                Arg::Fixed("--end-of-options"),
                Arg::Id(&entry.object),
            ],
            max_bytes,
        )
    }

    /// The commit git printed as an id (from `merge-base`), checked to be one.
    fn commit_of(&self, printed: &str) -> Result<Commit, GitError> {
        object_id(printed)
            .map(|id| Commit(id.to_owned()))
            .ok_or_else(|| GitError {
                args: "merge-base HEAD main".to_owned(),
                message: format!("printed {printed:?}, not an object id"),
            })
    }

    fn refused(&self, commit: &Commit, path: &str, message: String) -> GitError {
        GitError {
            args: format!("ls-tree {}", commit.id()),
            message: format!(
                "{path} at {}: {message}",
                &commit.id()[..commit.id().len().min(10)]
            ),
        }
    }

    /// Runs git with `args` in the repository; its standard output (at most `max_bytes`, as
    /// UTF-8), or what went wrong.
    fn run(&self, args: &[Arg<'_>], max_bytes: u64) -> Result<String, GitError> {
        let stdout = self.run_bytes(args, max_bytes)?;
        String::from_utf8(stdout).map_err(|error| GitError {
            args: args
                .iter()
                .map(|arg| match arg {
                    Arg::Fixed(text) | Arg::Id(text) | Arg::Untrusted(text) => *text,
                })
                .collect::<Vec<_>>()
                .join(" "),
            message: format!("printed non-UTF-8: {error}"),
        })
    }

    /// Runs git with `args` in the repository; its standard output (at most `max_bytes`), or
    /// what went wrong.
    fn run_bytes(&self, args: &[Arg<'_>], max_bytes: u64) -> Result<Vec<u8>, GitError> {
        let mut command = Command::new("git");
        command.arg("-C").arg(self.root);
        let mut shown = Vec::new();
        let mut options_ended = false;
        for arg in args {
            let text = match arg {
                Arg::Fixed(text) => {
                    options_ended |= matches!(*text, "--end-of-options" | "--");
                    *text
                }
                Arg::Id(id) => *id,
                Arg::Untrusted(text) => {
                    // By construction; a violation is refused, never run.
                    if !options_ended {
                        return Err(GitError {
                            args: shown.join(" "),
                            message: "untrusted text before --end-of-options".to_owned(),
                        });
                    }
                    *text
                }
            };
            command.arg(text);
            shown.push(text.to_owned());
        }
        let failed = |message: String| GitError {
            args: shown.join(" "),
            message,
        };
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| failed(error.to_string()))?;
        // Standard error on a thread of its own (so that neither pipe fills while the other is
        // read), its first kilobytes kept.
        let stderr = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let _ = (&mut stderr).take(16 << 10).read_to_end(&mut kept);
                let _ = std::io::copy(&mut stderr, &mut std::io::sink());
                kept
            })
        });
        let mut stdout = Vec::new();
        if let Some(out) = child.stdout.take() {
            out.take(max_bytes + 1)
                .read_to_end(&mut stdout)
                .map_err(|error| failed(error.to_string()))?;
        }
        if stdout.len() as u64 > max_bytes {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failed(format!(
                "printed more than the {max_bytes} bytes expected; stopped"
            )));
        }
        let status = child.wait().map_err(|error| failed(error.to_string()))?;
        let stderr = stderr
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        if !status.success() {
            return Err(failed(String::from_utf8_lossy(&stderr).trim().to_owned()));
        }
        Ok(stdout)
    }
}

/// How much of a commit's subject [`Git::describe`] keeps, in characters.
pub const SUBJECT_CHARS: usize = 60;

/// `line` cut to `chars` characters, an ellipsis marking the cut.
fn shortened(line: &str, chars: usize) -> String {
    match line.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line.to_owned(),
    }
}

/// `text` if it is an object id: 40 (SHA-1) or 64 (SHA-256) hex digits.
fn object_id(text: &str) -> Option<&str> {
    (matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())).then_some(text)
}

/// One entry of `git ls-tree -z`: `<mode> SP <type> SP <object> TAB <name>`.
struct Entry {
    mode: String,
    kind: String,
    object: String,
    name: String,
}

impl Entry {
    fn parse(line: &str) -> Option<Entry> {
        let (meta, name) = line.split_once('\t')?;
        let mut meta = meta.split(' ');
        let (mode, kind, object) = (meta.next()?, meta.next()?, meta.next()?);
        Some(Entry {
            mode: mode.to_owned(),
            kind: kind.to_owned(),
            object: object_id(object)?.to_owned(),
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_at_a_character_with_an_ellipsis_and_a_short_one_kept() {
        assert_eq!(shortened("abc1234 fix", SUBJECT_CHARS), "abc1234 fix");
        let long = format!("abc1234 {}", "é".repeat(100));
        let cut = shortened(&long, SUBJECT_CHARS);
        assert_eq!(cut.chars().count(), SUBJECT_CHARS + 1);
        assert!(cut.ends_with('…'), "{cut}");
        assert_eq!(shortened("abc1234 word      next", 12), "abc1234 word…");
    }
}
