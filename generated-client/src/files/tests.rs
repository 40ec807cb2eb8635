//! The module's property: nothing outside the output directory changes, whatever links stand
//! below it; a write that succeeds is whole; one that fails (by the OS's refusal or at any
//! injected failure point) leaves the tree exactly as it was. Tested on random trees against a
//! model of what each operation must do.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;

/// What stands at a path, read without following links.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    File(Vec<u8>),
    Dir,
    Link(PathBuf),
}

type Tree = BTreeMap<PathBuf, Node>;

/// Everything below `dir`, links read as links.
fn snapshot(dir: &Path) -> Tree {
    fn walk(base: &Path, dir: &Path, tree: &mut Tree) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(base).unwrap().to_path_buf();
            let metadata = std::fs::symlink_metadata(&path).unwrap();
            if metadata.file_type().is_symlink() {
                tree.insert(relative, Node::Link(std::fs::read_link(&path).unwrap()));
            } else if metadata.is_dir() {
                tree.insert(relative, Node::Dir);
                walk(base, &path, tree);
            } else {
                tree.insert(relative, Node::File(std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut tree = Tree::new();
    walk(dir, dir, &mut tree);
    tree
}

/// A scratch folder holding `root` (the output directory) and `outside`, with files that
/// links below `root` point to.
struct Scratch {
    _temp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let temp = tempfile::tempdir().unwrap();
        let base = OutputDir::open(temp.path()).unwrap();
        base.write("outside/secret", "outside, untouched").unwrap();
        base.write("outside/dir/inner", "inside outside").unwrap();
        base.subdir("root").unwrap();
        Scratch {
            root: temp.path().join("root"),
            outside: temp.path().join("outside"),
            _temp: temp,
        }
    }

    fn out(&self) -> OutputDir {
        OutputDir::open(&self.root).unwrap()
    }
}

#[test]
fn writes_create_parents_and_replace_whole() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.write("a/b/c.txt", "one").unwrap();
    out.write("a/b/c.txt", "two").unwrap();
    assert_eq!(
        snapshot(&scratch.root),
        Tree::from([
            ("a".into(), Node::Dir),
            ("a/b".into(), Node::Dir),
            ("a/b/c.txt".into(), Node::File(b"two".to_vec())),
        ])
    );
}

#[cfg(unix)]
#[test]
fn a_link_at_the_destination_is_replaced_and_its_target_untouched() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let outside = snapshot(&scratch.outside);
    std::os::unix::fs::symlink(scratch.outside.join("secret"), scratch.root.join("f")).unwrap();
    std::os::unix::fs::symlink("../outside/secret", scratch.root.join("g")).unwrap();
    out.write("f", "mine").unwrap();
    let mut pending = out.pending("g").unwrap();
    pending.write_all(b"mine too").unwrap();
    pending.publish().unwrap();
    assert_eq!(snapshot(&scratch.outside), outside);
    assert_eq!(
        snapshot(&scratch.root),
        Tree::from([
            ("f".into(), Node::File(b"mine".to_vec())),
            ("g".into(), Node::File(b"mine too".to_vec())),
        ])
    );
}

#[cfg(unix)]
#[test]
fn a_link_at_a_directory_on_the_way_is_refused_inside_or_out() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.subdir("real").unwrap();
    std::os::unix::fs::symlink(&scratch.outside, scratch.root.join("away")).unwrap();
    std::os::unix::fs::symlink("real", scratch.root.join("near")).unwrap();
    let outside = snapshot(&scratch.outside);
    let root = snapshot(&scratch.root);
    for path in ["away/new", "away/secret", "near/new", "away/dir/deeper/new"] {
        let error = out.write(path, "x").unwrap_err();
        assert!(matches!(error.problem(), Problem::Link(_)), "{error}");
        assert_eq!(error.action(), Action::Write);
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(matches!(
            out.subdir(path).unwrap_err().problem(),
            Problem::Link(_)
        ));
        let mut set = out.stage();
        set.write("fine", "x").write(path, "x");
        assert!(matches!(
            set.commit().unwrap_err().problem(),
            Problem::Link(_)
        ));
        assert!(matches!(
            out.remove(path).unwrap_err().problem(),
            Problem::Link(_)
        ));
        assert!(matches!(
            out.remove_all(path).unwrap_err().problem(),
            Problem::Link(_)
        ));
    }
    assert_eq!(snapshot(&scratch.outside), outside);
    assert_eq!(snapshot(&scratch.root), root);
}

#[test]
fn paths_that_leave_the_directory_are_refused() {
    let scratch = Scratch::new();
    let out = scratch.out();
    for path in ["../outside/secret", "a/../../x", "/tmp/x", ""] {
        let error = out.write(path, "x").unwrap_err();
        assert!(
            matches!(error.problem(), Problem::NotInside),
            "{path}: {error}"
        );
        assert!(matches!(
            out.remove_all(path).unwrap_err().problem(),
            Problem::NotInside
        ));
    }
    assert!(matches!(
        out.pending("a/b").unwrap_err().problem(),
        Problem::NotAName
    ));
    assert!(snapshot(&scratch.root).is_empty());
}

/// A non-empty directory at a destination makes a write fail for root too; nothing is left.
#[test]
fn a_directory_in_the_way_fails_the_write_and_leaves_nothing() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.write("old.txt", "old").unwrap();
    out.write("blocked/inside", "x").unwrap();
    let before = snapshot(&scratch.root);
    let error = out.write("blocked", "x").unwrap_err();
    assert!(matches!(error.problem(), Problem::Directory), "{error}");
    let mut set = out.stage();
    set.write("old.txt", "new")
        .write("fresh/file", "new")
        .write("blocked", "x");
    let error = set.commit().unwrap_err();
    assert!(matches!(error.problem(), Problem::Directory), "{error}");
    assert!(out.pending("blocked").is_err());
    assert_eq!(snapshot(&scratch.root), before);
}

#[test]
fn a_pending_file_appears_only_when_published() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let mut pending = out.pending("log.jsonl").unwrap();
    pending.write_all(b"line 1\n").unwrap();
    assert!(snapshot(&scratch.root).is_empty());
    pending.write_all(b"line 2\n").unwrap();
    pending.publish().unwrap();
    let mut dropped = out.pending("other.jsonl").unwrap();
    dropped.write_all(b"never seen").unwrap();
    drop(dropped);
    assert_eq!(
        snapshot(&scratch.root),
        Tree::from([("log.jsonl".into(), Node::File(b"line 1\nline 2\n".to_vec()))])
    );
}

#[cfg(unix)]
#[test]
fn removal_takes_links_never_what_they_point_to() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let outside = snapshot(&scratch.outside);
    out.write("tree/a/file", "x").unwrap();
    std::os::unix::fs::symlink(&scratch.outside, scratch.root.join("tree/a/out")).unwrap();
    std::os::unix::fs::symlink(scratch.outside.join("secret"), scratch.root.join("link")).unwrap();
    out.remove("link").unwrap();
    out.remove_all("tree").unwrap();
    out.remove_all("tree").unwrap();
    assert!(out.remove("tree").unwrap_err().is_not_found());
    assert!(snapshot(&scratch.root).is_empty());
    assert_eq!(snapshot(&scratch.outside), outside);
}

#[cfg(unix)]
#[test]
fn a_rename_moves_the_entry_itself_never_through_a_link() {
    let scratch = Scratch::new();
    let out = scratch.out();
    let outside = snapshot(&scratch.outside);
    out.write("staging/marker", "done").unwrap();
    std::os::unix::fs::symlink(&scratch.outside, scratch.root.join("final")).unwrap();
    std::os::unix::fs::symlink(&scratch.outside, scratch.root.join("away")).unwrap();
    // A link at the destination is a file to replace, not a folder to move into: refused for
    // a directory (the OS will not put a directory over a link), and nothing moved.
    assert!(out.rename("staging", "final").is_err());
    out.remove("final").unwrap();
    out.rename("staging", "final").unwrap();
    let error = out.rename("final", "away/inside").unwrap_err();
    assert!(matches!(error.problem(), Problem::Link(_)), "{error}");
    let error = out.rename("away/secret", "stolen").unwrap_err();
    assert!(matches!(error.problem(), Problem::Link(_)), "{error}");
    assert_eq!(snapshot(&scratch.outside), outside);
    assert_eq!(
        snapshot(&scratch.root),
        Tree::from([
            ("away".into(), Node::Link(scratch.outside.clone())),
            ("final".into(), Node::Dir),
            ("final/marker".into(), Node::File(b"done".to_vec())),
        ])
    );
}

#[cfg(unix)]
#[test]
fn a_private_directory_is_fresh_and_its_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new();
    let out = scratch.out();
    let one = out.create_private("cert-").unwrap();
    let two = out.create_private("cert-").unwrap();
    assert_ne!(one.path(), two.path());
    let mode = std::fs::metadata(one.path()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    one.write("cert.pem", "pem").unwrap();
    assert_eq!(std::fs::read(one.path().join("cert.pem")).unwrap(), b"pem");
}

#[test]
fn every_failure_point_of_a_set_leaves_the_old_set_whole() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.write("gen/a.rs", "old a").unwrap();
    out.write("gen/b.rs", "old b").unwrap();
    out.write("gen/stale.rs", "old stale").unwrap();
    let before = snapshot(&scratch.root);
    let commit = || {
        let mut set = out.stage();
        set.write("gen/a.rs", "new a")
            .write("gen/new/c.rs", "new c")
            .remove("gen/stale.rs")
            .write("gen/b.rs", "new b");
        set.commit()
    };
    let mut failures = 0;
    for at in 0.. {
        fault::fail_at(Some(at));
        let result = commit();
        if !fault::fired() {
            result.unwrap();
            break;
        }
        failures += 1;
        assert!(result.is_err());
        assert_eq!(snapshot(&scratch.root), before, "failure point {at}");
    }
    // Every step of the commit was a failure point once: create the new directory, stage
    // three files (create, write), move three old ones aside, rename three new ones in.
    assert_eq!(failures, 1 + 3 * 2 + 3 + 3);
    assert_eq!(
        snapshot(&scratch.root),
        Tree::from([
            ("gen".into(), Node::Dir),
            ("gen/a.rs".into(), Node::File(b"new a".to_vec())),
            ("gen/b.rs".into(), Node::File(b"new b".to_vec())),
            ("gen/new".into(), Node::Dir),
            ("gen/new/c.rs".into(), Node::File(b"new c".to_vec())),
        ])
    );
}

#[test]
fn a_process_killed_at_any_step_of_a_set_leaves_every_name_whole() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.write("gen/a.rs", "old a").unwrap();
    out.write("gen/stale.rs", "old stale").unwrap();
    // What each name may hold at any moment: the old file or the new one, whole.
    let allowed: Vec<(&str, [Option<Node>; 2])> = vec![
        (
            "gen/a.rs",
            [
                Some(Node::File(b"old a".to_vec())),
                Some(Node::File(b"new a".to_vec())),
            ],
        ),
        ("gen/b.rs", [None, Some(Node::File(b"new b".to_vec()))]),
        (
            "gen/stale.rs",
            [Some(Node::File(b"old stale".to_vec())), None],
        ),
    ];
    let root = scratch.root.clone();
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let check = {
        let seen = seen.clone();
        move || {
            let tree = snapshot(&root);
            for (name, states) in &allowed {
                let state = tree.get(Path::new(name)).cloned();
                if !states.contains(&state) {
                    seen.borrow_mut().push(format!("{name}: {state:?}"));
                }
            }
        }
    };
    let check_after = check.clone();
    fault::watch(Some(Box::new(check)));
    let mut set = out.stage();
    set.write("gen/a.rs", "new a")
        .remove("gen/stale.rs")
        .write("gen/b.rs", "new b");
    let committed = set.commit();
    fault::watch(None);
    committed.unwrap();
    check_after();
    assert_eq!(seen.borrow().as_slice(), [] as [String; 0]);
}

#[test]
fn a_commit_removes_what_a_killed_commit_left_in_the_folders_it_writes() {
    let scratch = Scratch::new();
    let out = scratch.out();
    out.write("gen/a.rs", "old a").unwrap();
    out.write("gen/.old-0123456789abcdef", "old a").unwrap();
    out.write("gen/.old-0123", "a person's").unwrap();
    out.write("gen/.old-0123456789abcdeg", "a person's")
        .unwrap();
    out.subdir("gen/.old-fedcba9876543210").unwrap();
    out.write("other/.old-0123456789abcdef", "not written in")
        .unwrap();
    let mut set = out.stage();
    set.write("gen/a.rs", "new a");
    set.commit().unwrap();
    let tree = snapshot(&scratch.root);
    let names: Vec<_> = tree.keys().map(|path| path.display().to_string()).collect();
    assert_eq!(
        names,
        [
            "gen",
            "gen/.old-0123",
            "gen/.old-0123456789abcdeg",
            "gen/.old-fedcba9876543210",
            "gen/a.rs",
            "other",
            "other/.old-0123456789abcdef",
        ]
    );
    assert!(is_left_behind(std::ffi::OsStr::new(
        ".old-0123456789ABCDEF"
    )));
    assert!(!is_left_behind(std::ffi::OsStr::new(
        "old-0123456789abcdef"
    )));
}

// ---- the property, on random trees -----------------------------------------------------

/// Paths from a small alphabet, so that operations meet each other and the planted links.
fn relative_path() -> impl Strategy<Value = PathBuf> {
    prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 1..=3)
        .prop_map(|names| names.iter().collect())
}

/// What is planted before the operations run.
#[derive(Clone, Debug)]
enum Plant {
    File(PathBuf, u8),
    Dir(PathBuf),
    /// A link to another path below the root (relative to the link's directory).
    LinkInside(PathBuf, PathBuf),
    /// A link out: to the outside folder's file or directory, absolute or by `..`.
    LinkOutside(PathBuf, bool, bool),
}

fn plant() -> impl Strategy<Value = Plant> {
    prop_oneof![
        (relative_path(), any::<u8>()).prop_map(|(p, b)| Plant::File(p, b)),
        relative_path().prop_map(Plant::Dir),
        (relative_path(), relative_path()).prop_map(|(p, t)| Plant::LinkInside(p, t)),
        (relative_path(), any::<bool>(), any::<bool>())
            .prop_map(|(p, dir, absolute)| Plant::LinkOutside(p, dir, absolute)),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Write(PathBuf, Vec<u8>),
    Pending(PathBuf, Vec<Vec<u8>>, bool),
    Set(Vec<(PathBuf, Option<Vec<u8>>)>),
    Remove(PathBuf),
    RemoveAll(PathBuf),
}

fn contents() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..64)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (relative_path(), contents()).prop_map(|(p, c)| Op::Write(p, c)),
        (
            relative_path(),
            prop::collection::vec(contents(), 0..4),
            any::<bool>()
        )
            .prop_map(|(p, c, publish)| Op::Pending(p, c, publish)),
        prop::collection::vec((relative_path(), prop::option::of(contents())), 1..4)
            .prop_map(Op::Set),
        relative_path().prop_map(Op::Remove),
        relative_path().prop_map(Op::RemoveAll),
    ]
}

/// Plants `plant` with the module and `symlink` (skipped where the tree does not allow it).
#[cfg(unix)]
fn apply_plant(scratch: &Scratch, plant: &Plant) {
    let out = scratch.out();
    let link = |path: &Path, target: PathBuf| {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if out.subdir(parent).is_err() {
                return;
            }
        }
        let _ = std::os::unix::fs::symlink(target, scratch.root.join(path));
    };
    match plant {
        Plant::File(path, byte) => {
            let _ = out.write(path, [*byte]);
        }
        Plant::Dir(path) => {
            let _ = out.subdir(path);
        }
        Plant::LinkInside(path, target) => {
            let up: PathBuf = path
                .parent()
                .into_iter()
                .flat_map(|p| p.iter())
                .map(|_| "..")
                .collect();
            link(path, up.join(target));
        }
        Plant::LinkOutside(path, dir, absolute) => {
            let target = if *dir { "dir" } else { "secret" };
            let target = if *absolute {
                scratch.outside.join(target)
            } else {
                let depth = path.components().count();
                let up: PathBuf = (0..depth).map(|_| "..").collect();
                up.join("outside").join(target)
            };
            link(path, target);
        }
    }
}

/// What an operation must do to `tree`: the tree after it, or `None` when it must fail.
struct Model;

impl Model {
    /// The directories on the way to `path` (not `path` itself): `Err` when one is a link or
    /// a file, or (without `create`) missing; else the tree with the missing ones created.
    fn walk(tree: &Tree, names: &Path, create: bool) -> Result<Tree, bool> {
        let mut tree = tree.clone();
        let mut prefix = PathBuf::new();
        for name in names {
            prefix.push(name);
            match tree.get(&prefix) {
                Some(Node::Dir) => {}
                Some(_) => return Err(false),
                None if create => {
                    tree.insert(prefix.clone(), Node::Dir);
                }
                // Not found: `remove_all` takes it as done.
                None => return Err(true),
            }
        }
        Ok(tree)
    }

    fn parent(path: &Path) -> &Path {
        path.parent().unwrap_or(Path::new(""))
    }

    fn write(tree: &Tree, path: &Path, contents: &[u8]) -> Option<Tree> {
        let mut tree = Model::walk(tree, Model::parent(path), true).ok()?;
        if tree.get(path) == Some(&Node::Dir) {
            return None;
        }
        tree.insert(path.to_path_buf(), Node::File(contents.to_vec()));
        Some(tree)
    }

    fn remove(tree: &Tree, path: &Path) -> Option<Tree> {
        let mut tree = Model::walk(tree, Model::parent(path), false).ok()?;
        match tree.get(path) {
            Some(Node::File(_) | Node::Link(_)) => {
                tree.remove(path);
                Some(tree)
            }
            _ => None,
        }
    }

    fn remove_all(tree: &Tree, path: &Path) -> Option<Tree> {
        let mut tree = match Model::walk(tree, Model::parent(path), false) {
            Ok(tree) => tree,
            Err(true) => return Some(tree.clone()),
            Err(false) => return None,
        };
        tree.retain(|key, _| !key.starts_with(path));
        Some(tree)
    }

    /// A set whose paths are distinct and none inside another: each change on its own.
    fn set(tree: &Tree, changes: &[(PathBuf, Option<Vec<u8>>)]) -> Option<Option<Tree>> {
        for (i, (a, _)) in changes.iter().enumerate() {
            for (b, _) in &changes[i + 1..] {
                if a.starts_with(b) || b.starts_with(a) {
                    return None;
                }
            }
        }
        let mut next = tree.clone();
        for (path, contents) in changes {
            let changed = match contents {
                Some(contents) => Model::write(&next, path, contents),
                None => Model::remove(&next, path),
            };
            match changed {
                Some(changed) => next = changed,
                None => return Some(None),
            }
        }
        Some(Some(next))
    }
}

/// Runs `op`; returns whether it succeeded, and the trees it may leave on failure besides the
/// one before it (a pending file's directories, made by `subdir`, stay).
fn run(out: &OutputDir, op: &Op) -> bool {
    match op {
        Op::Write(path, contents) => out.write(path, contents).is_ok(),
        Op::Pending(path, chunks, publish) => {
            let parent = Model::parent(path);
            let name = path.file_name().unwrap();
            let sub;
            let dir = if parent.as_os_str().is_empty() {
                out
            } else {
                match out.subdir(parent) {
                    Ok(dir) => {
                        sub = dir;
                        &sub
                    }
                    Err(_) => return false,
                }
            };
            let Ok(mut file) = dir.pending(name) else {
                return false;
            };
            for chunk in chunks {
                if file.write_all(chunk).is_err() {
                    return false;
                }
            }
            !*publish || file.publish().is_ok()
        }
        Op::Set(changes) => {
            let mut set = out.stage();
            for (path, contents) in changes {
                match contents {
                    Some(contents) => set.write(path, contents.clone()),
                    None => set.remove(path),
                };
            }
            set.commit().is_ok()
        }
        Op::Remove(path) => out.remove(path).is_ok(),
        Op::RemoveAll(path) => out.remove_all(path).is_ok(),
    }
}

#[cfg(unix)]
proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn nothing_outside_changes_and_every_write_is_whole_or_absent(
        plants in prop::collection::vec(plant(), 0..12),
        ops in prop::collection::vec((op(), prop::option::of(0_u32..24)), 1..6),
    ) {
        let scratch = Scratch::new();
        for plant in &plants {
            apply_plant(&scratch, plant);
        }
        let outside = snapshot(&scratch.outside);
        let out = scratch.out();
        for (op, fail_at) in &ops {
            let before = snapshot(&scratch.root);
            // The tree a pending file's `subdir` leaves even when the file then fails.
            let mut also_allowed = None;
            let expected = match op {
                Op::Write(path, contents) => Some(Model::write(&before, path, contents)),
                Op::Pending(path, _, publish) => {
                    let parent = Model::parent(path);
                    let made = if parent.as_os_str().is_empty() {
                        Ok(before.clone())
                    } else {
                        // `subdir` opens the parent itself too: it must be a directory.
                        Model::walk(&before, parent, true)
                    };
                    also_allowed = made.clone().ok();
                    Some(made.ok().and_then(|made| {
                        if made.get(path) == Some(&Node::Dir) {
                            None
                        } else if *publish {
                            Model::write(&made, path, b"").map(|_| made)
                        } else {
                            Some(made)
                        }
                    }))
                }
                Op::Set(changes) => Model::set(&before, changes),
                Op::Remove(path) => Some(Model::remove(&before, path)),
                Op::RemoveAll(path) => Some(Model::remove_all(&before, path)),
            };
            fault::fail_at(*fail_at);
            let ok = run(&out, op);
            let fired = fault::fired();
            let after = snapshot(&scratch.root);
            prop_assert_eq!(&snapshot(&scratch.outside), &outside, "outside changed by {:?}", op);
            let failed_cleanly = after == before || also_allowed.as_ref() == Some(&after);
            if fired {
                prop_assert!(!ok, "{:?} succeeded through an injected failure", op);
                prop_assert!(failed_cleanly, "{:?} failed at a failure point and left {:?}", op, after);
                continue;
            }
            let Some(expected) = expected else {
                // A set the model does not predict: it must still be all or nothing.
                prop_assert!(ok || after == before, "{:?} failed and left {:?}", op, after);
                continue;
            };
            match expected {
                Some(mut expected) => {
                    prop_assert!(ok, "{:?} failed on {:?}", op, before);
                    if let Op::Pending(path, chunks, true) = op {
                        expected.insert(path.clone(), Node::File(chunks.concat()));
                    }
                    prop_assert_eq!(&after, &expected, "{:?} on {:?}", op, before);
                }
                None => {
                    prop_assert!(!ok, "{:?} succeeded on {:?}", op, before);
                    prop_assert!(failed_cleanly, "{:?} failed and left {:?}", op, after);
                }
            }
        }
    }
}
