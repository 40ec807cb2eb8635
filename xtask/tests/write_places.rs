//! Where `cargo xtask public-api` and `cargo xtask package` write: a link planted at a file or
//! at a folder below the place they were given sends nothing elsewhere (replaced, removed or
//! refused with an error naming it), and a write failing midway leaves no half-written file
//! and no temporary one. (Codegen and wire-audit's proposals: `codegen.rs`, `wire_audit.rs`.)

use std::path::{Path, PathBuf};

use marketplace_client::files::OutputDir;
use xtask::package::{self, PackageError, SCRATCH};
use xtask::public_api::{self, PublicApiError, SNAPSHOT};

mod tree;
use tree::{Node, snapshot};

/// A scratch folder holding `root` (the place given) and `outside`, with a file links can
/// point to.
struct Places {
    _temp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Places {
    fn new() -> Places {
        let temp = tempfile::tempdir().unwrap();
        let out = OutputDir::open(temp.path()).unwrap();
        out.write("outside/kept.txt", "outside, untouched\n")
            .unwrap();
        out.subdir("root").unwrap();
        Places {
            root: temp.path().join("root"),
            outside: temp.path().join("outside"),
            _temp: temp,
        }
    }

    fn out(&self) -> OutputDir {
        OutputDir::open(&self.root).unwrap()
    }
}

// ---- public-api: the snapshot ------------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_link_at_the_api_snapshot_is_replaced_and_its_target_untouched() {
    let places = Places::new();
    places.out().subdir("generated-client").unwrap();
    let at = places.root.join("generated-client").join(SNAPSHOT);
    std::os::unix::fs::symlink(places.outside.join("kept.txt"), &at).unwrap();
    let outside = snapshot(&places.outside);
    public_api::write_snapshot(&places.root, "generated-client", "pub fn f()\n").unwrap();
    assert_eq!(snapshot(&places.outside), outside);
    assert_eq!(std::fs::read_to_string(&at).unwrap(), "pub fn f()\n");
    assert!(std::fs::symlink_metadata(&at).unwrap().is_file());
}

#[cfg(unix)]
#[test]
fn a_link_at_the_crate_folder_is_refused_and_nothing_is_written_outside() {
    let places = Places::new();
    std::os::unix::fs::symlink(&places.outside, places.root.join("generated-client")).unwrap();
    let outside = snapshot(&places.outside);
    let error =
        public_api::write_snapshot(&places.root, "generated-client", "pub fn f()\n").unwrap_err();
    let PublicApiError::Io { path, .. } = &error else {
        panic!("expected an I/O error, got {error:?}");
    };
    assert!(
        path.ends_with(Path::new("generated-client").join(SNAPSHOT)),
        "{error}"
    );
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(snapshot(&places.outside), outside);
}

/// A directory standing at the snapshot's name (which fails for root too): an error, and the
/// folder as it was.
#[test]
fn a_failed_api_snapshot_leaves_nothing() {
    let places = Places::new();
    places
        .out()
        .write(
            Path::new("generated-client").join(SNAPSHOT).join("inside"),
            "x",
        )
        .unwrap();
    places
        .out()
        .write("generated-client/other.txt", "kept")
        .unwrap();
    let before = snapshot(&places.root);
    let error =
        public_api::write_snapshot(&places.root, "generated-client", "pub fn f()\n").unwrap_err();
    assert!(error.to_string().contains("directory"), "{error}");
    assert_eq!(snapshot(&places.root), before);
}

// ---- package: the scratch folder ----------------------------------------------------------

/// Links planted in the scratch folder (at the app's folder, and inside it) are removed with
/// it, never followed: what they point to stays.
#[cfg(unix)]
#[test]
fn links_in_the_package_scratch_folder_are_removed_not_followed() {
    let places = Places::new();
    let scratch = places.root.join(SCRATCH);
    places
        .out()
        .write(Path::new(SCRATCH).join("packages/old.crate"), "old")
        .unwrap();
    std::os::unix::fs::symlink(&places.outside, scratch.join("app")).unwrap();
    std::os::unix::fs::symlink(&places.outside, scratch.join("packages/evil")).unwrap();
    let outside = snapshot(&places.outside);
    package::empty_scratch(&places.root).unwrap();
    assert_eq!(snapshot(&places.outside), outside);
    assert_eq!(
        snapshot(&scratch),
        package::SCRATCH_DIRS
            .map(|dir| (dir.into(), Node::Dir))
            .into()
    );
    let root = xtask::codegen::workspace_root();
    package::copy_app(&root, &places.root, "[patch.crates-io]\n").unwrap();
    let app = snapshot(&scratch.join("app"));
    assert_eq!(
        app.get(Path::new("Cargo.lock")),
        Some(&Node::File(std::fs::read(root.join("Cargo.lock")).unwrap()))
    );
    assert_eq!(
        app.get(Path::new(".cargo/config.toml")),
        Some(&Node::File(b"[patch.crates-io]\n".to_vec()))
    );
    assert!(app.contains_key(Path::new("src")), "{app:?}");
}

/// A link at a folder on the way to the scratch folder (`tmp/`, below the target directory)
/// is refused, naming it.
#[cfg(unix)]
#[test]
fn a_link_on_the_way_to_the_package_scratch_folder_is_refused() {
    let places = Places::new();
    std::os::unix::fs::symlink(&places.outside, places.root.join("tmp")).unwrap();
    let outside = snapshot(&places.outside);
    let error = package::empty_scratch(&places.root).unwrap_err();
    assert!(matches!(&error, PackageError::Io { .. }), "{error:?}");
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(snapshot(&places.outside), outside);
}

/// A copy failing midway (the lock's place is a non-empty directory, for root too): an error
/// naming it, every file copied before it whole, no temporary file.
#[test]
fn a_failed_app_copy_leaves_whole_files_only() {
    let places = Places::new();
    package::empty_scratch(&places.root).unwrap();
    let app = Path::new(SCRATCH).join("app");
    places
        .out()
        .write(app.join("Cargo.lock/inside"), "x")
        .unwrap();
    let root = xtask::codegen::workspace_root();
    let error = package::copy_app(&root, &places.root, "").unwrap_err();
    assert!(
        error.to_string().contains("Cargo.lock") && error.to_string().contains("directory"),
        "{error}"
    );
    let copied = snapshot(&places.root.join(&app));
    for (path, node) in &copied {
        if let Node::File(bytes) = node {
            if path.starts_with("Cargo.lock") {
                continue;
            }
            let original = std::fs::read(root.join(package::APP_DIR).join(path)).unwrap();
            assert_eq!(bytes, &original, "{}", path.display());
        }
    }
    assert!(!copied.contains_key(Path::new(".cargo/config.toml")));
}

/// A package that ships examples is copied for their build as a workspace of its own: its files
/// as unpacked, its manifest with an empty `[workspace]` added (the scratch folder lies inside
/// the repository's workspace), the workspace's lock and the patches given; the unpacked
/// package the app builds against stays as it was.
#[test]
fn a_package_with_examples_is_copied_as_a_workspace_of_its_own_and_left_as_unpacked() {
    let places = Places::new();
    package::empty_scratch(&places.root).unwrap();
    let unpacked = Path::new(SCRATCH).join("packages/demo-0.1.0");
    let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n";
    places
        .out()
        .write(unpacked.join("Cargo.toml"), manifest)
        .unwrap();
    places
        .out()
        .write(unpacked.join("examples/tour.rs"), "fn main() {}\n")
        .unwrap();
    places
        .out()
        .write(unpacked.join("src/lib.rs"), "//! A demo.\n")
        .unwrap();
    let packages = snapshot(&places.root.join(SCRATCH).join("packages"));
    let root = xtask::codegen::workspace_root();
    let patches = "[patch.crates-io]\nother = { path = \"../../packages/other-0.1.0\" }\n";

    let copy =
        package::copy_package_for_examples(&root, &places.root, "demo-0.1.0", patches).unwrap();

    assert_eq!(copy, places.root.join(SCRATCH).join("examples/demo-0.1.0"));
    let mut expected = snapshot(&places.root.join(&unpacked));
    expected.insert(
        "Cargo.toml".into(),
        Node::File(
            format!("{manifest}\n# A workspace of its own (cargo xtask package).\n[workspace]\n")
                .into_bytes(),
        ),
    );
    expected.insert(
        "Cargo.lock".into(),
        Node::File(std::fs::read(root.join("Cargo.lock")).unwrap()),
    );
    expected.insert(".cargo".into(), Node::Dir);
    expected.insert(
        ".cargo/config.toml".into(),
        Node::File(patches.as_bytes().to_vec()),
    );
    assert_eq!(snapshot(&copy), expected);
    assert_eq!(
        snapshot(&places.root.join(SCRATCH).join("packages")),
        packages,
        "the unpacked package is left as it was"
    );
}

/// A link in an unpacked package is refused, not followed, when the package is copied for its
/// examples: what it points to is neither read into the copy nor changed.
#[cfg(unix)]
#[test]
fn a_link_in_a_package_copied_for_its_examples_is_refused() {
    let places = Places::new();
    package::empty_scratch(&places.root).unwrap();
    let unpacked = Path::new(SCRATCH).join("packages/demo-0.1.0");
    places
        .out()
        .write(unpacked.join("Cargo.toml"), "[package]\n")
        .unwrap();
    std::os::unix::fs::symlink(
        places.outside.join("kept.txt"),
        places.root.join(&unpacked).join("secret.txt"),
    )
    .unwrap();
    let outside = snapshot(&places.outside);
    let root = xtask::codegen::workspace_root();
    let error =
        package::copy_package_for_examples(&root, &places.root, "demo-0.1.0", "").unwrap_err();
    assert!(
        error.to_string().contains("secret.txt") && error.to_string().contains("refused"),
        "{error}"
    );
    assert_eq!(snapshot(&places.outside), outside);
    let copy = snapshot(&places.root.join(SCRATCH).join("examples/demo-0.1.0"));
    assert!(!copy.contains_key(Path::new("secret.txt")), "{copy:?}");
}
