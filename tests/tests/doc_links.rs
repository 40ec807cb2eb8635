//! Every relative link of the project's Markdown pages resolves: the file it names exists, and
//! the anchor it names (`page.md#a-heading`, `#a-heading`) is a heading of that page, by the
//! slug GitHub gives it. Links in code blocks and to other sites are not followed.
//!
//! And every Rust example an app's author reads (the pages' `rust` blocks, the published
//! crates' doc comments and the example programs they ship, the README's tour among them)
//! imports only what such an app has: the two crates, what they re-export
//! (`marketplace_client::TryStreamExt`, `marketplace_client::jiff`, …), std and tokio. The
//! examples compile in the workspace, where every dependency is at hand, so a `use futures::…`
//! compiled there and failed in an app. Each example is parsed whole with `syn`, hidden lines
//! included, and every `use` tree in it walked, so a group spread over lines or nested is read,
//! and every path of it, so a crate named without `use` (`futures::executor::block_on(..)`) is
//! found too; an example that does not parse fails the test, named by its file and line.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// Every Markdown page of the project, relative to the root: build output, git's folder and the
/// fuzz corpus left out.
fn pages(root: &Path) -> Vec<PathBuf> {
    files_below(root, root, ".md")
}

/// The files below `dir` whose names end with `suffix`, relative to `root`, in name order:
/// build output, git's folder and the fuzz corpus left out.
fn files_below(root: &Path, dir: &Path, suffix: &str) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, suffix: &str, found: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
            .map(|entry| entry.expect("a readable entry"))
            .collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().expect("a file type");
            if kind.is_dir() {
                if !matches!(name.as_str(), "target" | ".git" | "corpus" | "node_modules") {
                    walk(root, &path, suffix, found);
                }
            } else if kind.is_file() && name.ends_with(suffix) {
                found.push(
                    path.strip_prefix(root)
                        .expect("below the root")
                        .to_path_buf(),
                );
            }
        }
    }
    let mut found = Vec::new();
    walk(root, dir, suffix, &mut found);
    found
}

/// The lines of `text` outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// The targets of the inline links `[text](target)` of a line, inline code left out.
fn link_targets(line: &str) -> Vec<String> {
    let mut outside_code = String::new();
    for (index, part) in line.split('`').enumerate() {
        if index % 2 == 0 {
            outside_code.push_str(part);
        }
    }
    let mut targets = Vec::new();
    let mut rest = outside_code.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.to_owned());
        rest = &after[end..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces made
/// `-`, everything else (punctuation, backticks) dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (a repeated heading gets `-1`, `-2`, … as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut again = 0;
        while anchors.contains(&anchor) {
            again += 1;
            anchor = format!("{base}-{again}");
        }
        anchors.insert(anchor);
    }
    anchors
}

/// `path` with `.` and `..` resolved lexically; `None` when it leaves the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// What is wrong with each relative link of the pages below `root`.
fn broken_links(root: &Path) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in pages(root) {
        let text = std::fs::read_to_string(root.join(&page)).expect("a readable page");
        for (number, line) in prose(&text) {
            for target in link_targets(line) {
                if target.is_empty()
                    || target.contains("://")
                    || target.starts_with("mailto:")
                    || target.starts_with('<')
                {
                    continue;
                }
                checked += 1;
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let at = format!("{}:{number}: {target}", page.display());
                let resolved = if file.is_empty() {
                    Some(page.clone())
                } else {
                    normalize(&page.parent().unwrap_or(Path::new("")).join(file))
                };
                let Some(resolved) = resolved else {
                    broken.push(format!("{at}: leaves the repository"));
                    continue;
                };
                let full = root.join(&resolved);
                if !full.exists() {
                    broken.push(format!("{at}: no {}", resolved.display()));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let is_markdown = resolved.extension().is_some_and(|ext| ext == "md");
                    let headings = std::fs::read_to_string(&full)
                        .map(|text| anchors(&text))
                        .unwrap_or_default();
                    if is_markdown && !headings.contains(anchor) {
                        broken.push(format!(
                            "{at}: {} has no heading #{anchor}",
                            resolved.display()
                        ));
                    }
                }
            }
        }
    }
    (checked, broken)
}

#[test]
fn every_relative_link_of_every_page_resolves() {
    let root = root();
    let (checked, broken) = broken_links(&root);
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
    // The pages were read (a walk that found nothing would pass).
    assert!(checked >= 30, "only {checked} relative links checked");
}

#[test]
fn a_missing_page_and_a_missing_heading_are_found() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let out = marketplace_client::files::OutputDir::open(dir.path()).expect("the scratch folder");
    out.write(
        "README.md",
        "# Top\n\n[a](docs/page.md#the-part) [b](docs/gone.md) [c](#top) [d](#nowhere)\n\
         ```text\n[not a link](gone.md)\n```\n`[nor this](gone.md)` [e](https://example.com/x.md)\n",
    )
    .expect("a page");
    out.write(
        "docs/page.md",
        "# Page\n\n## The part\n\n[up](../README.md#top) [out](../../x.md)\n",
    )
    .expect("a page");
    let (checked, broken) = broken_links(dir.path());
    assert_eq!(checked, 6, "{broken:?}");
    assert_eq!(
        broken,
        [
            "README.md:3: docs/gone.md: no docs/gone.md",
            "README.md:3: #nowhere: README.md has no heading #nowhere",
            "docs/page.md:5: ../../x.md: leaves the repository",
        ]
    );
}

#[test]
fn headings_become_github_anchors() {
    assert_eq!(
        slug("Redirects, deadlines, error bodies"),
        "redirects-deadlines-error-bodies"
    );
    assert_eq!(slug("`cargo xtask` and `--help`"), "cargo-xtask-and---help");
    assert_eq!(
        slug("Routes: credentials reach only the configured origin"),
        "routes-credentials-reach-only-the-configured-origin"
    );
    let repeated = anchors("# A\n## A\n### A\n");
    assert_eq!(repeated, ["a", "a-1", "a-2"].map(str::to_owned).into());
}

/// The crates an app that follows the README has: its two dependencies and what it builds on.
const AN_APP_HAS: &[&str] = &[
    "marketplace_client",
    "marketplace_fake",
    "std",
    "core",
    "alloc",
    "tokio",
    "crate",
    "self",
    "super",
];

/// Collects the crate each `use` and `extern crate` item starts from, wherever the item is (at
/// the top, in a function, a module, a block or a closure).
#[derive(Default)]
struct Imports {
    crates: Vec<String>,
    /// The first segment of each path of two segments or more written outside a `use`
    /// (`futures::executor::block_on(..)`, `#[tokio::main]`): a crate, or a name in scope.
    inline: Vec<String>,
    /// The names the example brings into scope (what its `use`s name, its modules): a path
    /// starting from one of them is not a crate's.
    bound: BTreeSet<String>,
}

impl Imports {
    /// The first segment of each path of a `use` tree: `a` of `a::{b::{c, d}}`, each member's
    /// of a group (`{futures::X, tokio::Y}`); nothing of a glob.
    fn tree(&mut self, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                self.crates.push(path.ident.to_string());
                self.bound_by(&path.tree);
            }
            syn::UseTree::Name(name) => {
                self.crates.push(name.ident.to_string());
                self.bound.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) => {
                self.crates.push(rename.ident.to_string());
                self.bound.insert(rename.rename.to_string());
            }
            syn::UseTree::Glob(_) => {}
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.tree(tree);
                }
            }
        }
    }

    /// The names the rest of a `use` tree brings into scope (`time` of `tokio::time`).
    fn bound_by(&mut self, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => self.bound_by(&path.tree),
            syn::UseTree::Name(name) => {
                self.bound.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) => {
                self.bound.insert(rename.rename.to_string());
            }
            syn::UseTree::Glob(_) => {}
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.bound_by(tree);
                }
            }
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Imports {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(&item.tree);
        syn::visit::visit_item_use(self, item);
    }

    fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
        self.crates.push(item.ident.to_string());
        syn::visit::visit_item_extern_crate(self, item);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.bound.insert(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 || path.leading_colon.is_some() {
            if let Some(first) = path.segments.first() {
                self.inline.push(first.ident.to_string());
            }
        }
        syn::visit::visit_path(self, path);
    }
}

/// The crate each `use` and `extern crate` of a Rust example starts from, in order, read from
/// the whole example parsed (a `use` spread over lines, nested groups, a `use` in a function
/// body): `Err` with the parser's words when it is not Rust. An example is what rustdoc
/// compiles, items and statements, so it is parsed as the body of a function, as rustdoc wraps
/// it. A crate named in a path without `use` is [`crates_named_inline`]'s.
fn crates_imported(code: &str) -> Result<Vec<String>, String> {
    Ok(imports_of(code)?.crates)
}

/// Every use, path and name an example brings into scope, read from the whole example parsed
/// as the body of a function, as rustdoc wraps it: `Err` with the parser's words when it is
/// not Rust.
fn imports_of(code: &str) -> Result<Imports, String> {
    let file = syn::parse_file(&format!("fn example() {{\n{code}\n}}"))
        .map_err(|error| error.to_string())?;
    let mut imports = Imports::default();
    syn::visit::Visit::visit_file(&mut imports, &file);
    Ok(imports)
}

/// The crates of `crates` (the workspace's dependencies) an example names in a path without
/// importing it (`futures::executor::block_on(..)`), in order: the first segment of a path of
/// two segments or more that is such a crate and no name the example brought into scope.
fn crates_named_inline(code: &str, crates: &BTreeSet<String>) -> Result<Vec<String>, String> {
    let imports = imports_of(code)?;
    Ok(imports
        .inline
        .into_iter()
        .filter(|first| crates.contains(first) && !imports.bound.contains(first))
        .collect())
}

/// Every package of the workspace's lock file, as code names it (`serde_json`): what a path's
/// first segment names when it is a crate of the workspace.
fn workspace_crates(root: &Path) -> BTreeSet<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
    lock.lines()
        .filter_map(|line| line.strip_prefix("name = \""))
        .filter_map(|rest| rest.strip_suffix('"'))
        .map(|name| name.replace('-', "_"))
        .collect()
}

/// A line of an example as rustdoc compiles it: a hidden line (`# use x;`, `#`) without its
/// mark, `##` as `#`.
fn compiled(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed == "#" {
        ""
    } else if let Some(hidden) = trimmed.strip_prefix("# ") {
        hidden
    } else if trimmed.starts_with("##") {
        &trimmed[1..]
    } else {
        line
    }
}

/// A Rust example an app's author reads: where it starts (`file:line` of its fence), and its
/// code as rustdoc compiles it, hidden lines included.
struct Example {
    place: String,
    code: String,
    lines: usize,
}

/// The Rust examples an app's author reads: `rust` blocks of the Markdown pages for apps (the
/// manual, the READMEs), the examples of the published crates' doc comments, and the example
/// programs those crates ship (`examples/*.rs`).
fn examples(root: &Path) -> Vec<Example> {
    let mut examples = Vec::new();
    // The block being read: its place and lines.
    let mut open: Option<(String, Vec<String>)> = None;
    let mut close = |open: &mut Option<(String, Vec<String>)>| {
        if let Some((place, lines)) = open.take() {
            examples.push(Example {
                place,
                lines: lines.len(),
                code: lines.join("\n"),
            });
        }
    };
    // The pages an app's author reads: the front pages and the manual.
    let for_apps = |page: &Path| {
        page.starts_with("docs")
            || [
                "README.md",
                "generated-client/README.md",
                "tests/fake/README.md",
            ]
            .iter()
            .any(|front| page == Path::new(front))
    };
    for page in pages(root).into_iter().filter(|page| for_apps(page)) {
        let text = std::fs::read_to_string(root.join(&page)).expect("a readable page");
        // `Some(is_rust)` inside a fenced block.
        let mut block: Option<bool> = None;
        for (index, line) in text.lines().enumerate() {
            if let Some(info) = line.trim_start().strip_prefix("```") {
                // A page's block is Rust when it says so (a bare fence is a shell or text block).
                block = match block {
                    Some(_) => None,
                    None => Some(info.starts_with("rust")),
                };
                close(&mut open);
                if block == Some(true) {
                    open = Some((format!("{}:{}", page.display(), index + 1), Vec::new()));
                }
                continue;
            }
            if let Some((_, lines)) = &mut open {
                lines.push(compiled(line).to_owned());
            }
        }
        close(&mut open);
    }
    for crate_dir in ["generated-client/src", "tests/fake/src"] {
        for file in files_below(root, &root.join(crate_dir), ".rs") {
            let text = std::fs::read_to_string(root.join(&file)).expect("a readable source file");
            // `Some(is_rust)` inside a fenced block of a doc comment.
            let mut block: Option<bool> = None;
            for (index, line) in text.lines().enumerate() {
                let trimmed = line.trim_start();
                let Some(doc) = trimmed
                    .strip_prefix("//!")
                    .or_else(|| trimmed.strip_prefix("///"))
                else {
                    block = None;
                    close(&mut open);
                    continue;
                };
                let doc = doc.strip_prefix(' ').unwrap_or(doc);
                if let Some(info) = doc.trim_start().strip_prefix("```") {
                    // A doc comment's block is Rust unless it names another language.
                    block = match block {
                        Some(_) => None,
                        None => Some(
                            info.is_empty()
                                || ["rust", "no_run", "ignore", "should_panic", "compile_fail"]
                                    .iter()
                                    .any(|attribute| info.starts_with(attribute)),
                        ),
                    };
                    close(&mut open);
                    if block == Some(true) {
                        open = Some((format!("{}:{}", file.display(), index + 1), Vec::new()));
                    }
                    continue;
                }
                if let Some((_, lines)) = &mut open {
                    lines.push(compiled(doc).to_owned());
                }
            }
            close(&mut open);
        }
    }
    // The examples the published crates ship (the README's tour), whole.
    for crate_dir in ["generated-client/examples", "tests/fake/examples"] {
        if !root.join(crate_dir).is_dir() {
            continue;
        }
        for file in files_below(root, &root.join(crate_dir), ".rs") {
            let code = std::fs::read_to_string(root.join(&file)).expect("a readable example");
            examples.push(Example {
                place: format!("{}:1", file.display()),
                lines: code.lines().count(),
                code,
            });
        }
    }
    examples
}

#[test]
fn every_example_an_app_reads_imports_only_what_the_app_has() {
    let root = root();
    let examples = examples(&root);
    let lines: usize = examples.iter().map(|example| example.lines).sum();
    assert!(
        examples.len() > 20 && lines > 200,
        "only {} examples of {lines} lines found: the scan is broken",
        examples.len()
    );
    let workspace = workspace_crates(&root);
    let mut foreign = Vec::new();
    let mut unreadable = Vec::new();
    for example in &examples {
        let named = crates_imported(&example.code).and_then(|mut crates| {
            crates.extend(crates_named_inline(&example.code, &workspace)?);
            Ok(crates)
        });
        match named {
            Ok(crates) => foreign.extend(
                crates
                    .into_iter()
                    .filter(|name| !AN_APP_HAS.contains(&name.as_str()))
                    .map(|name| format!("{}: `{name}`", example.place)),
            ),
            Err(error) => unreadable.push(format!("{}: {error}\n{}", example.place, example.code)),
        }
    }
    assert!(
        unreadable.is_empty(),
        "examples that do not parse as Rust (a block of another language names it after its \
         fence, e.g. ```text), so their imports cannot be read:\n{}",
        unreadable.join("\n\n")
    );
    assert!(
        foreign.is_empty(),
        "examples importing a crate an app following the README does not have (use the \
         re-export, e.g. marketplace_client::TryStreamExt):\n{}",
        foreign.join("\n")
    );
}

#[test]
fn the_crates_an_example_names_are_found_in_each_form() {
    let crates = |code: &str| crates_imported(code).unwrap_or_else(|e| panic!("{code}: {e}"));
    assert_eq!(crates("use futures::TryStreamExt;"), ["futures"]);
    assert_eq!(crates("use ::serde::Deserialize;"), ["serde"]);
    assert_eq!(
        crates("    pub use marketplace_client::Error;"),
        ["marketplace_client"]
    );
    assert_eq!(crates("extern crate rand;"), ["rand"]);
    assert_eq!(
        crates("pub(crate) use {futures::StreamExt, tokio::time};"),
        ["futures", "tokio"]
    );
    // A group spread over lines, as rustfmt writes a long one.
    assert_eq!(
        crates("use {\n    futures::TryStreamExt,\n    marketplace_client::Client,\n};"),
        ["futures", "marketplace_client"]
    );
    assert_eq!(
        crates(
            "use marketplace_client::{\n    Client,\n    Error,\n};\nuse futures\n    ::StreamExt;"
        ),
        ["marketplace_client", "futures"]
    );
    // Nested groups: the first segment of each path of the outer group.
    assert_eq!(crates("use a::{b::{c, d}};"), ["a"]);
    assert_eq!(
        crates("use {tokio::{time, sync::{mpsc, oneshot}}, futures::{self, stream::{Stream}}};"),
        ["tokio", "futures"]
    );
    assert_eq!(crates("use futures as f;"), ["futures"]);
    // Wherever the item is: a function of the example, a module, a block.
    assert_eq!(
        crates(
            "#[tokio::main]\nasync fn main() {\n    use {\n        futures::StreamExt,\n    };\n}\n\
             mod inner { extern crate rand; }\nlet _ = async { use serde::Serialize; };"
        ),
        ["futures", "rand", "serde"]
    );
    assert!(crates("let used = futures_count;").is_empty());
    // The hidden lines of a doc comment's example are compiled, so they are read.
    assert_eq!(
        compiled("# use futures::StreamExt;"),
        "use futures::StreamExt;"
    );
    assert_eq!(compiled("#[derive(Debug)]"), "#[derive(Debug)]");
    assert_eq!(compiled("##[derive(Debug)]"), "#[derive(Debug)]");
    assert!(crates_imported("let x = ;").is_err());
}

/// A crate named in a path without a `use` is found; a path from a name the example brought
/// into scope (a `use`d module, a module of its own) is not a crate's, though a crate has the
/// name.
#[test]
fn a_crate_named_in_a_path_without_use_is_found() {
    let crates: BTreeSet<String> = [
        "futures",
        "serde_json",
        "time",
        "tokio",
        "marketplace_client",
    ]
    .map(str::to_owned)
    .into();
    let inline = |code: &str| -> Vec<String> {
        crates_named_inline(code, &crates).unwrap_or_else(|e| panic!("{code}: {e}"))
    };
    assert_eq!(
        inline("let items = futures::executor::block_on(async { 1 });"),
        ["futures"]
    );
    assert_eq!(
        inline("let value = serde_json::json!({ \"a\": 1 });"),
        ["serde_json"]
    );
    assert_eq!(
        inline("let x: ::futures::future::Ready<()> = todo();"),
        ["futures"]
    );
    assert_eq!(inline("#[tokio::main]\nasync fn main() {}"), ["tokio"]);
    assert_eq!(
        inline("fn f(s: impl futures::Stream<Item = u8>) {}"),
        ["futures"]
    );
    // Brought into scope by the example: not the crate of the same name.
    assert!(inline("use tokio::time;\ntime::sleep(d).await;").is_empty());
    assert!(inline("use std::fmt as time;\nlet _ = time::Error;").is_empty());
    assert!(inline("mod futures { pub fn f() {} }\nfutures::f();").is_empty());
    // One segment, or a name that is no crate: not read.
    assert!(inline("let futures = 1;\nlet t = Duration::from_secs(futures);").is_empty());
    // The workspace's crates as code names them.
    let workspace = workspace_crates(&root());
    for name in ["serde_json", "futures", "marketplace_client", "tokio"] {
        assert!(workspace.contains(name), "{name} not among {workspace:?}");
    }
}

/// The scan refuses an example importing a crate an app does not have in each way it can be
/// written, and takes each the app has.
#[test]
fn the_scan_refuses_a_foreign_crate_in_a_multi_line_or_nested_use() {
    let foreign = |code: &str| -> Vec<String> {
        crates_imported(code)
            .unwrap_or_else(|e| panic!("{code}: {e}"))
            .into_iter()
            .filter(|name| !AN_APP_HAS.contains(&name.as_str()))
            .collect()
    };
    for refused in [
        "use {\n    futures::TryStreamExt,\n    marketplace_client::Client,\n};",
        "use {\n    marketplace_client::Client,\n    futures::TryStreamExt,\n};",
        "use marketplace_client::Client;\nuse {\n    tokio::time,\n    futures::{\n        StreamExt,\n        TryStreamExt,\n    },\n};",
        "use futures::{stream::{self, StreamExt}, TryStreamExt};",
        "fn main() {\n    use {std::io, futures::{executor::{block_on}}};\n}",
    ] {
        assert_eq!(foreign(refused), ["futures"], "{refused}");
    }
    for allowed in [
        "use {\n    marketplace_client::{Client, Error},\n    tokio::time,\n};",
        "use marketplace_client::{\n    TryStreamExt,\n    generated::{pay::{Timesheet, TimesheetList}},\n};",
        "use std::{collections::{BTreeMap, HashMap}, io};\nuse marketplace_fake::FakeServer;",
        "use crate::a;\nuse self::b;\nuse super::c;\nuse core::fmt;\nuse alloc::vec;",
    ] {
        assert!(foreign(allowed).is_empty(), "{allowed}");
    }
}
