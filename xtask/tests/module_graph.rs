//! No two hand-written files of a crate import each other: dependencies between a crate's files
//! go one way, so each file reads without the one that reads it. A module and its own
//! submodules may refer to each other (`super::`), as Rust's privacy makes them.
//!
//! Every path of every file is resolved to the file of the deepest module it names: `use`
//! trees, and paths in code that start with `crate::`, `super::`, `self::` or a child module's
//! name (inline `mod tests { … }` included), names re-exported by the crate root followed to
//! the module that defines them. Generated files are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

/// The crates' source folders, from the workspace root.
const CRATES: &[&str] = &[
    "codegen/src",
    "generated-client/src",
    "tests/fake/src",
    "tests/src",
    "xtask/src",
];

type ModulePath = Vec<String>;

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut cycles = Vec::new();
    let mut edges_seen = 0;
    for src in CRATES {
        let graph = Graph::of(&root.join(src));
        edges_seen += graph.edges.values().map(BTreeSet::len).sum::<usize>();
        cycles.extend(
            graph
                .mutual()
                .into_iter()
                .map(|(a, b)| format!("{src}: {a} <-> {b}")),
        );
    }
    assert!(
        edges_seen > 300,
        "only {edges_seen} imports found: the reader is broken"
    );
    assert!(
        cycles.is_empty(),
        "files that import each other (move what both need into a module of its own):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_reader_finds_a_planted_cycle_and_ignores_a_module_with_its_submodule() {
    let dir = tempfile::tempdir().unwrap();
    let out = marketplace_client::files::OutputDir::open(dir.path()).unwrap();
    let write = |name: &str, text: &str| out.write(name, text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::Thing;\n");
    write(
        "a.rs",
        "use crate::b::{helper, other::{x}};\npub fn f() {}\n",
    );
    write("b.rs", "pub fn helper() { crate::a::f(); }\nmod other;\n");
    write("b/other.rs", "pub fn x() { super::helper(); }\n");
    write(
        "c.rs",
        "pub struct Thing;\n#[cfg(test)]\nmod tests { fn t() { super::super::Thing; crate::Thing; } }\n",
    );
    let graph = Graph::of(dir.path());
    assert_eq!(graph.mutual(), [("a.rs".to_owned(), "b.rs".to_owned())]);
    // `crate::Thing` names c.rs through the root's re-export; c.rs naming itself is no edge.
    write("a.rs", "pub fn f() { let _ = crate::Thing; }\n");
    let graph = Graph::of(dir.path());
    assert!(graph.mutual().is_empty());
    assert!(graph.edges[&vec!["a".to_owned()]].contains(&vec!["c".to_owned()]));
}

/// The files of one crate and which files each one's paths name.
struct Graph {
    files: BTreeMap<ModulePath, PathBuf>,
    src: PathBuf,
    edges: BTreeMap<ModulePath, BTreeSet<ModulePath>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        let reexports = reexports(&files);
        let mut graph = Graph {
            files,
            src: src.to_path_buf(),
            edges: BTreeMap::new(),
        };
        let modules: Vec<(ModulePath, PathBuf)> = graph
            .files
            .iter()
            .filter(|(_, path)| !path.components().any(|c| c.as_os_str() == "generated"))
            .map(|(module, path)| (module.clone(), path.clone()))
            .collect();
        for (module, path) in modules {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = syn::parse_file(&text)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let mut named = BTreeSet::new();
            let mut reader = Reader {
                files: &graph.files,
                reexports: &reexports,
                file_module: &module,
                named: &mut named,
            };
            reader.items(&file.items, &module);
            named.remove(&module);
            graph.edges.insert(module, named);
        }
        graph
    }

    /// Pairs of files that name each other, neither inside the other's module.
    fn mutual(&self) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for (a, targets) in &self.edges {
            for b in targets {
                let nested = a.starts_with(b) || b.starts_with(a);
                if a < b && !nested && self.edges.get(b).is_some_and(|back| back.contains(a)) {
                    pairs.push((self.shown(a), self.shown(b)));
                }
            }
        }
        pairs
    }

    fn shown(&self, module: &ModulePath) -> String {
        let path = &self.files[module];
        path.strip_prefix(&self.src)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// Every `.rs` file under `dir`, by the module path its place gives it.
fn collect(src: &Path, dir: &Path, files: &mut BTreeMap<ModulePath, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(src, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: ModulePath = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            files.insert(module, path);
        }
    }
}

/// The crate root's `pub use` re-exports: a name to the module that defines it.
fn reexports(files: &BTreeMap<ModulePath, PathBuf>) -> BTreeMap<String, ModulePath> {
    let mut out = BTreeMap::new();
    let Some(root) = files.get(&Vec::new()) else {
        return out;
    };
    let file = syn::parse_file(&std::fs::read_to_string(root).unwrap()).unwrap();
    for item in &file.items {
        if let syn::Item::Use(item) = item {
            if matches!(item.vis, syn::Visibility::Public(_)) {
                for path in use_paths(&item.tree) {
                    let Some((name, modules)) = path.split_last() else {
                        continue;
                    };
                    let mut target = Vec::new();
                    for segment in modules {
                        let deeper = [target.clone(), vec![segment.clone()]].concat();
                        if files.contains_key(&deeper) {
                            target = deeper;
                        }
                    }
                    out.insert(name.clone(), target);
                }
            }
        }
    }
    out
}

/// `a::{b, c::{d, e as f}}` as the paths `a::b`, `a::c::d`, `a::c::e`.
fn use_paths(tree: &syn::UseTree) -> Vec<Vec<String>> {
    match tree {
        syn::UseTree::Path(path) => use_paths(&path.tree)
            .into_iter()
            .map(|rest| [vec![path.ident.to_string()], rest].concat())
            .collect(),
        syn::UseTree::Name(name) => vec![vec![name.ident.to_string()]],
        syn::UseTree::Rename(rename) => vec![vec![rename.ident.to_string()]],
        syn::UseTree::Glob(_) => vec![Vec::new()],
        syn::UseTree::Group(group) => group.items.iter().flat_map(use_paths).collect(),
    }
}

/// Reads one file's paths.
struct Reader<'a> {
    files: &'a BTreeMap<ModulePath, PathBuf>,
    reexports: &'a BTreeMap<String, ModulePath>,
    file_module: &'a ModulePath,
    named: &'a mut BTreeSet<ModulePath>,
}

impl Reader<'_> {
    /// The items of module `here` (the file's, or an inline module inside it).
    fn items(&mut self, items: &[syn::Item], here: &ModulePath) {
        let children: BTreeSet<String> = items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Mod(module) => Some(module.ident.to_string()),
                _ => None,
            })
            .collect();
        for item in items {
            match item {
                syn::Item::Use(item) => {
                    for path in use_paths(&item.tree) {
                        self.path(&path, here, &children);
                    }
                }
                syn::Item::Mod(module) => {
                    if let Some((_, content)) = &module.content {
                        let inner = [here.clone(), vec![module.ident.to_string()]].concat();
                        self.items(content, &inner);
                    }
                }
                other => self.tokens(other.to_token_stream(), here, &children),
            }
        }
    }

    /// Paths written in code: `crate::a::b`, `super::x`, `child::y` as token runs.
    fn tokens(&mut self, tokens: TokenStream, here: &ModulePath, children: &BTreeSet<String>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut index = 0;
        while index < trees.len() {
            if let TokenTree::Group(group) = &trees[index] {
                self.tokens(group.stream(), here, children);
                index += 1;
                continue;
            }
            let mut path = Vec::new();
            let mut at = index;
            while let Some(TokenTree::Ident(ident)) = trees.get(at) {
                path.push(ident.to_string());
                let separator = matches!(
                    (trees.get(at + 1), trees.get(at + 2)),
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                        if a.as_char() == ':' && b.as_char() == ':'
                );
                if !separator {
                    break;
                }
                at += 3;
            }
            if path.len() > 1 {
                self.path(&path, here, children);
                index = at.max(index + 1);
            } else {
                index += 1;
            }
        }
    }

    /// Resolves one path written in module `here` to the file it names, if any.
    fn path(&mut self, path: &[String], here: &ModulePath, children: &BTreeSet<String>) {
        let Some(first) = path.first() else {
            return;
        };
        let (mut module, rest): (ModulePath, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" | "super" => {
                let mut module = here.clone();
                let mut rest = path;
                while let Some(segment) = rest.first() {
                    match segment.as_str() {
                        "super" => {
                            module.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                (module, rest)
            }
            name if children.contains(name) => (here.clone(), path),
            _ => return,
        };
        // Inline modules live in their file: their paths start from the file's module.
        if !module.starts_with(self.file_module) && !self.files.contains_key(&module) {
            module.truncate(self.file_module.len());
        }
        for segment in rest {
            let deeper = [module.clone(), vec![segment.clone()]].concat();
            if self.files.contains_key(&deeper) {
                module = deeper;
            } else {
                if module.is_empty() {
                    if let Some(defining) = self.reexports.get(segment) {
                        module = defining.clone();
                    }
                }
                break;
            }
        }
        // A path into an inline module of this file is this file.
        while !self.files.contains_key(&module) && !module.is_empty() {
            module.pop();
        }
        self.named.insert(module);
    }
}
