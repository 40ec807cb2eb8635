//! A scratch workspace under `CARGO_TARGET_TMPDIR` (the target directory's `tmp/`) holding a
//! copy of the client crate's runtime with generated modules of our choosing ("variants") in
//! place of the real generated code, built with one `cargo build` against the workspace's
//! target directory (the parent of `CARGO_TARGET_TMPDIR`; dependencies come from the build
//! cache). Shared by the spec-diff oracle and the compiled snapshots.
//!
//! The runtime never names generated code, so the copy compiles with any set of variants.
//! Each variant is a module with its own `Session` type (a newtype of the runtime's), which its
//! generated `impl Session` blocks extend: two variants with a method of the same name do not
//! clash.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use marketplace_client::files::OutputDir;
use marketplace_codegen::GeneratedFile;

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The scratch workspaces' folder (`CARGO_TARGET_TMPDIR`), through which every file here is
/// written, and `path`'s place in it.
fn in_scratch(path: &Path) -> (OutputDir, &Path) {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let relative = path
        .strip_prefix(root)
        .expect("a path in CARGO_TARGET_TMPDIR");
    (OutputDir::create(root).unwrap(), relative)
}

pub fn write(path: &Path, text: &str) {
    let (out, relative) = in_scratch(path);
    out.write(relative, text).unwrap();
}

/// Removes the tree at `path` (nothing there is fine).
pub fn remove_all(path: &Path) {
    let (out, relative) = in_scratch(path);
    out.remove_all(relative).unwrap();
}

fn copy(from: &Path, to: &Path) {
    let (out, relative) = in_scratch(to);
    out.write(relative, fs::read(from).unwrap()).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            copy(&path, &target);
        }
    }
}

/// The workspace manifest (the pinned dependencies, package settings and profiles of the real
/// workspace, without its path crates) with `members` besides the client copy (`client`),
/// which the members depend on as `marketplace-client`. `package` names the copy: cargo names
/// artifacts by the package and its path relative to the workspace, so two scratch workspaces
/// sharing the target directory need two names.
///
/// The real workspace's profiles make the dependencies the very artifacts of its own builds
/// (same settings, same features: nothing rebuilt).
pub fn write_workspace(scratch: &Path, package: &str, members: &[String]) {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let section = |name: &str| {
        let start = manifest.find(&format!("[{name}]")).unwrap();
        let rest = &manifest[start..];
        let end = rest[1..].find("\n[").map_or(rest.len(), |at| at + 1);
        rest[..end]
            .lines()
            .filter(|line| !line.contains("path ="))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Every `[profile.…]` section of the real workspace, whatever stands around them.
    let profiles: String = manifest
        .lines()
        .filter_map(|line| line.strip_prefix('[')?.strip_suffix(']'))
        .filter(|name| name.starts_with("profile."))
        .map(|name| format!("{}\n\n", section(name)))
        .collect();
    let mut all = vec!["\"client\"".to_owned()];
    all.extend(members.iter().map(|m| format!("{m:?}")));
    write(
        &scratch.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{}\n\n{}\nmarketplace-client = {{ path = \"client\", package = {package:?} }}\n\n{profiles}",
            all.join(", "),
            section("workspace.package"),
            section("workspace.dependencies"),
        ),
    );
    copy(&root.join("Cargo.lock"), &scratch.join("Cargo.lock"));
}

/// The client crate's runtime with `variants` (module name, generated files) as
/// `marketplace_client::variants::<module>`, and no other generated code; `package` as given
/// to [`write_workspace`].
pub fn write_client(scratch: &Path, package: &str, variants: &[(String, Vec<GeneratedFile>)]) {
    let root = workspace_root();
    let client = scratch.join("client");
    let client_manifest = fs::read_to_string(root.join("generated-client/Cargo.toml")).unwrap();
    let dependencies = &client_manifest[client_manifest.find("[dependencies]").unwrap()..];
    let dependencies = &dependencies[..dependencies.find("\n[dev-dependencies]").unwrap()];
    write(
        &client.join("Cargo.toml"),
        &format!(
            "[package]\nname = {package:?}\nversion = \"0.0.0\"\nedition.workspace = true\npublish = false\n\n[lib]\nname = \"marketplace_client\"\n\n{dependencies}\n"
        ),
    );
    copy_dir(&root.join("generated-client/src"), &client.join("src"));
    // The runtime alone: the real generated code is left out.
    remove_all(&client.join("src/generated"));
    write(
        &client.join("src/generated/mod.rs"),
        "//! Left out: the variants stand in for it.\n",
    );
    let lib = client.join("src/lib.rs");
    let mut text = fs::read_to_string(&lib).unwrap();
    text.push_str("\n/// The generated modules under test.\n#[allow(missing_docs, clippy::all)]\npub mod variants;\n");
    write(&lib, &text);
    let mut modules = String::new();
    for (module, files) in variants {
        let _ = writeln!(modules, "#[rustfmt::skip]\npub mod {module};");
        // The module of the file holding the OAuth service's builder, re-exported by `mod.rs`.
        let builder_module = files
            .iter()
            .find(|f| f.contents.lines().any(|line| line == "impl Client {"))
            .and_then(|f| f.path.strip_suffix(".rs"));
        for file in files {
            let mut text = own_client_builder(&own_session(&file.contents));
            if file.path == "mod.rs" {
                text.push_str(SESSION);
                if let Some(module) = builder_module {
                    // As `client`, or `client_`, … when a module of the spec has the name.
                    let mut name = "client".to_owned();
                    while files.iter().any(|f| f.path == format!("{name}.rs")) {
                        name.push('_');
                    }
                    let rename = if name == "client" {
                        String::new()
                    } else {
                        format!(" as {name}")
                    };
                    text.push_str(&format!("\npub use {module}::client{rename};\n"));
                }
            }
            write(
                &client.join("src/variants").join(module).join(&file.path),
                &text,
            );
        }
    }
    write(&client.join("src/variants/mod.rs"), &modules);
}

/// The generated `use crate::{…, Session, …};` with `Session` taken from the variant's module.
fn own_session(text: &str) -> String {
    // A `use crate::{…};` may span lines (prettyplease wraps a long list): joined first.
    let mut joined = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        match &mut open {
            Some(statement) => {
                statement.push(' ');
                statement.push_str(line.trim());
                if line.trim_end().ends_with("};") {
                    joined.push(open.take().unwrap_or_default());
                }
            }
            None if line.starts_with("use crate::{") && !line.trim_end().ends_with("};") => {
                open = Some(line.to_owned());
            }
            None => joined.push(line.to_owned()),
        }
    }
    joined.extend(open);
    joined
        .iter()
        .map(|line| {
            let Some(list) = line
                .strip_prefix("use crate::{")
                .and_then(|rest| rest.trim_end().strip_suffix("};"))
            else {
                return line.to_owned();
            };
            let names: Vec<&str> = list
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .collect();
            if !names.contains(&"Session") {
                return line.to_owned();
            }
            let rest: Vec<&str> = names.into_iter().filter(|n| *n != "Session").collect();
            let mut out = String::from("use super::Session;");
            if !rest.is_empty() {
                out.push_str(&format!("\nuse crate::{{{}}};", rest.join(", ")));
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The generated `impl Client { pub fn builder(…) }` as a module `client` of the variant, so that
/// each variant's builder (with its own `SERVICE`) is `variants::<variant>::client::builder`
/// and two variants do not define `Client::builder` twice.
fn own_client_builder(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line == "impl Client {" {
                // `Client` stays used, as by the `impl Client` it stands for; a spec file may
                // be called `client` too.
                "#[allow(clippy::module_inception)]\npub mod client {\n    use super::*;\n\n    \
                 const _: Option<&Client> = None;"
                    .to_owned()
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Each variant's `Session`: the runtime's, extended by the variant's generated `impl Session`.
const SESSION: &str = r#"
/// The runtime's session, extended by this variant's data methods.
#[derive(Clone, Debug)]
pub struct Session(pub crate::Session);

impl core::ops::Deref for Session {
    type Target = crate::Session;

    fn deref(&self) -> &crate::Session {
        &self.0
    }
}
"#;

/// What one `cargo build` of the scratch workspace produced.
pub struct Built {
    /// Compiler errors by package name.
    pub errors: BTreeMap<String, Vec<String>>,
    /// The lines of each package's source files that errors point at (primary spans), by
    /// package name: `(file, line)`.
    pub error_lines: BTreeMap<String, Vec<(String, usize)>>,
    /// Executables by package name.
    pub executables: BTreeMap<String, PathBuf>,
}

/// Builds every member with `--keep-going`, so each package's errors are its own; without
/// debug information or incremental caches, since the scratch crates are written anew for
/// each run and built once (the spec-diff oracle's build: 276 s to 157 s; the dependencies'
/// settings are the workspace's either way).
pub fn build(scratch: &Path) -> Built {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let output = Command::new(env!("CARGO"))
        .current_dir(scratch)
        .args([
            "build",
            "--workspace",
            "--keep-going",
            "--offline",
            "--message-format=json",
        ])
        .arg("--target-dir")
        .arg(&target)
        .env_remove("RUSTFLAGS")
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    let mut built = Built {
        errors: BTreeMap::new(),
        error_lines: BTreeMap::new(),
        executables: BTreeMap::new(),
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let package = message["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('_', "-");
        match message["reason"].as_str() {
            Some("compiler-message") if message["message"]["level"] == "error" => {
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                let spans = message["message"]["spans"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                for span in spans.iter().filter(|s| s["is_primary"] == true) {
                    if let (Some(file), Some(line)) =
                        (span["file_name"].as_str(), span["line_start"].as_u64())
                    {
                        built
                            .error_lines
                            .entry(package.clone())
                            .or_default()
                            .push((file.to_owned(), line as usize));
                    }
                }
                built
                    .errors
                    .entry(package)
                    .or_default()
                    .push(rendered.lines().take(12).collect::<Vec<_>>().join("\n"));
            }
            Some("compiler-artifact") => {
                if let Some(executable) = message["executable"].as_str() {
                    built.executables.insert(package, PathBuf::from(executable));
                }
            }
            _ => {}
        }
    }
    built
}
