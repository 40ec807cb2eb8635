//! What a folder holds, read without following links: the tests of the commands that write
//! compare it before and after, inside and outside the place they were told to write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What stands at a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    File(Vec<u8>),
    Dir,
    Link(PathBuf),
}

/// Everything below `dir` by relative path, links read as links (empty if `dir` is missing).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Node> {
    fn walk(base: &Path, dir: &Path, tree: &mut BTreeMap<PathBuf, Node>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
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
    let mut tree = BTreeMap::new();
    walk(dir, dir, &mut tree);
    tree
}
