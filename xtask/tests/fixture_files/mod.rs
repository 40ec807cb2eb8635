//! What the suites share to lay out their fixtures: writing a file through the project's one
//! writer (`marketplace_client::files`: clippy refuses std's writing calls elsewhere), and git
//! in a scratch repository. Each suite uses what it needs of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Writes `contents` to `path`, creating its folder if need be.
pub fn write_file(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let path = path.as_ref();
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other(format!(
            "{}: no file name",
            path.display()
        )));
    };
    marketplace_client::files::OutputDir::create(dir)
        .and_then(|dir| dir.write(name, contents))
        .map_err(std::io::Error::other)
}

/// Runs `git <args>` in the scratch repository `repo`, as a test needs it the same on every
/// machine: an identity, no signing, no line-ending or path-quoting conversion, and neither the
/// user's nor the system's configuration. Gives its standard output, trimmed; a git that fails
/// fails the test, with what it printed.
pub fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(["-c", "core.autocrlf=false", "-c", "core.quotepath=false"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        repo.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
