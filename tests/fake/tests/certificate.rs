//! The `fake-marketplace` binary's certificate: written in a new directory of the temporary
//! folder that only its user can read and nobody could name in advance (so a link planted at
//! a predictable name takes nothing), and removed when the server stops.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use marketplace_client::files::OutputDir;

/// Everything below `dir`, links read as links: (path, what stands there).
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let metadata = std::fs::symlink_metadata(&path).unwrap();
        let what = if metadata.file_type().is_symlink() {
            format!("link to {}", std::fs::read_link(&path).unwrap().display())
        } else if metadata.is_dir() {
            "directory".to_owned()
        } else {
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
        };
        found.push((path, what));
    }
    found.sort();
    found
}

#[test]
fn the_certificate_goes_to_a_fresh_private_directory_and_leaves_with_the_server() {
    let temp = tempfile::tempdir().unwrap();
    let out = OutputDir::open(temp.path()).unwrap();
    out.write("victim.txt", "another user's file\n").unwrap();
    // The names the binary used to write, for every port: links another user could plant.
    for port in [0, 443, 8443] {
        std::os::unix::fs::symlink(
            temp.path().join("victim.txt"),
            temp.path().join(format!("fake-marketplace-{port}.pem")),
        )
        .unwrap();
    }
    let before = snapshot(temp.path());
    let mut server = Command::new(env!("CARGO_BIN_EXE_fake-marketplace"))
        .env("TMPDIR", temp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut certificate = None;
    for line in BufReader::new(server.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(path) = line.strip_prefix("certificate:") {
            certificate = Some(PathBuf::from(path.trim()));
        }
        if line.starts_with("Ctrl-C") {
            break;
        }
    }
    let certificate = certificate.expect("the binary prints the certificate's path");
    let dir = certificate.parent().unwrap();
    assert_eq!(dir.parent().unwrap(), temp.path());
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("fake-marketplace-") && name.len() == "fake-marketplace-".len() + 16,
        "{name}"
    );
    let mode = std::fs::metadata(dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "the directory is the user's alone");
    let pem = std::fs::read_to_string(&certificate).unwrap();
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
    // Nothing else changed: the planted links and what they point to are as they were.
    let during: Vec<_> = snapshot(temp.path())
        .into_iter()
        .filter(|(path, _)| path != dir)
        .collect();
    assert_eq!(during, before);

    let interrupted = Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    assert!(server.wait().unwrap().success());
    assert_eq!(
        snapshot(temp.path()),
        before,
        "the private directory is removed"
    );
}

/// A temporary folder that cannot hold a directory (a file stands at its path): a clear
/// error, a failed exit, and nothing written.
#[test]
fn a_certificate_that_cannot_be_written_is_an_error_and_leaves_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let out = OutputDir::open(temp.path()).unwrap();
    out.write("not-a-folder", "a file\n").unwrap();
    let before = snapshot(temp.path());
    let output = Command::new(env!("CARGO_BIN_EXE_fake-marketplace"))
        .env("TMPDIR", temp.path().join("not-a-folder"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("cannot write the certificate") && error.contains("not-a-folder"),
        "{error}"
    );
    assert_eq!(snapshot(temp.path()), before);
}
