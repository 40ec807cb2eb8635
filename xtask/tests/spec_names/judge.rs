//! The judge: the loader refuses a spec with located errors, or the code it generates compiles
//! without a warning, clippy's included.
//!
//! A refused spec is followed by its errors (`Plan::repair`): a name a name rule refuses is
//! renamed to the name the error suggests, which that rule must then accept where it is
//! written, and what any other error points at is taken out, until the loader accepts what is
//! left, every step judged; one random spec thus leads to the largest spec with the rest of its
//! names. The accepted specs of a run are checked together with one `cargo clippy`, each
//! spec's generated files a module of a copy of the client's runtime (`client_copy`; two
//! copies, checked side by side), with more modules standing for what a module of its own does
//! not show:
//!
//! - `root_of_case_N`: the crate root, where `lib.rs` re-exports every generated item with a
//!   glob beside the runtime's own names, which an explicit name shadows without a word: each
//!   generated type must be the type the root's name gives;
//! - `session_names`: the generated `Session` constructors, on the runtime's own `Session`
//!   (each case has a `Session` of its own, so two cases may both have a method): a
//!   constructor that takes the name of a method of the runtime's `Session`, inherent or of a
//!   trait the runtime calls, does not compile there.
//!
//! Every error, and every warning in generated code, counts: the workspace checks the
//! generated client with `-D warnings`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{Command, Stdio};

use marketplace_codegen::diagnostic::ErrorKind;
use marketplace_codegen::{GeneratedFile, SpecError, generate, resolve};

use super::client_copy;
use super::plan::{Follow, Plan, Renamed, is_name_rule, suggestion};
use super::pool::{runtime_root_items, use_leaves};

/// A spec the loader accepted, with its generated files.
pub struct Accepted {
    pub label: String,
    pub plan: Plan,
    pub files: Vec<GeneratedFile>,
}

/// A broken property: which spec, and what went wrong.
pub struct Failure {
    pub label: String,
    pub spec: String,
    pub problem: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "== {}: {}\n{}", self.label, self.problem, self.spec)
    }
}

/// What the loader did with one spec and the specs its errors led to.
pub struct Loaded {
    /// The spec left when the loader accepted it, if it did.
    pub accepted: Option<Accepted>,
    /// Specs refused on the way, every error located.
    pub refused: usize,
    /// Errors seen, by rule.
    pub rules: BTreeMap<&'static str, usize>,
}

/// The rules whose errors name a file and no line: they are about the file itself.
fn located_by_file(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::InvalidFileName | ErrorKind::TooLarge)
}

/// Why `error` is not a located error, if it is not.
fn unlocated(error: &SpecError) -> Option<String> {
    let located = error.location.is_some() || located_by_file(error.kind);
    (!located || error.file.is_empty() || error.kind.id().is_empty())
        .then(|| format!("an error without a place: {error}"))
}

/// The most rounds of following a spec's errors: each removes or renames something.
const ROUNDS: usize = 400;

/// Resolves and generates `plan`; while it is refused, checks every error is located (a name
/// rule's with a suggestion, which once followed that rule accepts) and follows the errors
/// (`Plan::repair`).
pub fn load(label: &str, mut plan: Plan, follow: Follow) -> Result<Loaded, Failure> {
    let mut loaded = Loaded {
        accepted: None,
        refused: 0,
        rules: BTreeMap::new(),
    };
    let fail = |plan: &Plan, problem: String| Failure {
        label: label.to_owned(),
        spec: plan.show(),
        problem,
    };
    let mut renamed: Vec<Renamed> = Vec::new();
    for _ in 0..ROUNDS {
        let sources = plan.sources();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            resolve(&sources).map(|api| generate(&api).map_err(|e| e.to_string()))
        }));
        match outcome {
            Err(_) => return Err(fail(&plan, "the loader or generator panicked".to_owned())),
            Ok(Ok(Err(emit))) => {
                return Err(fail(
                    &plan,
                    format!("accepted, but generation failed: {emit}"),
                ));
            }
            Ok(Ok(Ok(files))) => {
                loaded.accepted = Some(Accepted {
                    label: label.to_owned(),
                    plan,
                    files,
                });
                return Ok(loaded);
            }
            Ok(Err(errors)) => {
                loaded.refused += 1;
                if errors.0.is_empty() {
                    return Err(fail(&plan, "refused without an error".to_owned()));
                }
                if let Some(problem) = errors.0.iter().find_map(unlocated) {
                    return Err(fail(&plan, problem));
                }
                for error in &errors.0 {
                    // The generator writes YAML; a key twice is a name suggested twice.
                    if error.kind == ErrorKind::InvalidYaml {
                        return Err(fail(&plan, format!("not YAML: {error}")));
                    }
                    *loaded.rules.entry(error.kind.id()).or_default() += 1;
                    if is_name_rule(error.kind) && suggestion(error).is_none() {
                        return Err(fail(
                            &plan,
                            format!("a name refused without a suggestion: {error}"),
                        ));
                    }
                    // A suggested name refused by the same rule, where it was written.
                    let place = (error.file.clone(), error.path.clone());
                    if renamed
                        .iter()
                        .any(|r: &Renamed| r.place == place && r.rule == error.kind)
                    {
                        return Err(fail(
                            &plan,
                            format!("the name suggested last is refused by the same rule: {error}"),
                        ));
                    }
                }
                match plan.repair(&errors.0, follow) {
                    Some(places) => renamed = places,
                    None => return Ok(loaded),
                }
            }
        }
    }
    Err(fail(
        &plan,
        format!("still refused after {ROUNDS} rounds of following its errors"),
    ))
}

/// One diagnostic of the compiler.
struct Diagnostic {
    level: String,
    files: Vec<String>,
    rendered: String,
}

/// `cargo clippy` (a `cargo check` with clippy's lints) of the scratch workspace, every error
/// and warning.
fn check(scratch: &Path) -> Vec<Diagnostic> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let output = Command::new(env!("CARGO"))
        .current_dir(scratch)
        .args([
            "clippy",
            "--workspace",
            "--keep-going",
            "--offline",
            "--message-format=json",
        ])
        .arg("--target-dir")
        .arg(target)
        .env_remove("RUSTFLAGS")
        // The scratch crates are written anew for each run and checked once.
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    let mut diagnostics = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-message" {
            continue;
        }
        let message = &message["message"];
        let level = message["level"].as_str().unwrap_or_default().to_owned();
        let files: Vec<String> = message["spans"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|span| span["file_name"].as_str().map(str::to_owned))
            .collect();
        if files.is_empty() || !(level == "error" || level == "warning") {
            continue; // "aborting due to …", "N warnings emitted"
        }
        diagnostics.push(Diagnostic {
            level,
            files,
            rendered: message["rendered"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .take(30)
                .collect::<Vec<_>>()
                .join("\n"),
        });
    }
    diagnostics
}

/// The items `mod.rs` of generated files re-exports.
fn exports(files: &[GeneratedFile]) -> Vec<String> {
    let module = files.iter().find(|f| f.path == "mod.rs").expect("a mod.rs");
    let parsed = syn::parse_file(&module.contents).expect("mod.rs parses");
    let mut names = BTreeSet::new();
    for item in parsed.items {
        if let syn::Item::Use(u) = item {
            use_leaves(&u.tree, &mut names);
        }
    }
    names.into_iter().collect()
}

/// The functions of the `impl Session` blocks of generated files: the constructors.
fn constructors(files: &[GeneratedFile]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files {
        let parsed = syn::parse_file(&file.contents).expect("generated code parses");
        for item in parsed.items {
            let syn::Item::Impl(block) = item else {
                continue;
            };
            let syn::Type::Path(ty) = &*block.self_ty else {
                continue;
            };
            if block.trait_.is_none() && ty.path.is_ident("Session") {
                for member in block.items {
                    if let syn::ImplItem::Fn(function) = member {
                        names.insert(function.sig.ident.to_string());
                    }
                }
            }
        }
    }
    names
}

/// The crate root as `lib.rs` makes it, with `case`'s items in place of the real generated
/// ones: every runtime name imported by name, public where the root makes it public, and the
/// generated items (`exports_of_case_N`, what the generated `mod.rs` re-exports) by the glob.
fn root_check(case: usize, exports: &[String]) -> String {
    let items = runtime_root_items();
    let names = |public: bool| {
        items
            .iter()
            .filter(|(_, p)| **p == public)
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "//! The crate root with case {case}'s generated items.\n\
         #[allow(unused_imports)]\npub use crate::{{{}}};\n\
         #[allow(unused_imports)]\nuse crate::{{{}}};\n\
         pub use exports::*;\n\n\
         #[allow(unused_imports)]\n\
         mod exports {{\n    pub use super::super::case_{case}::{{{}}};\n}}\n",
        names(true),
        names(false),
        exports.join(", "),
    );
    for name in exports.iter().filter(|n| *n != "SERVICE") {
        // Each generated item is reached at the root as itself.
        let _ = writeln!(
            text,
            "const _: fn(super::case_{case}::{name}) -> {name} = |item| item;"
        );
    }
    text
}

/// Every generated constructor on the runtime's own `Session`, returning a type the runtime
/// does not expect.
fn session_names(names: &BTreeSet<String>) -> String {
    let mut text = String::from(
        "//! The constructors of every case on the runtime's own Session.\n\
         pub struct NotTheRuntimes;\n\nimpl crate::Session {\n",
    );
    for name in names {
        let _ = writeln!(
            text,
            "    pub fn {name}(&self) -> NotTheRuntimes {{\n        NotTheRuntimes\n    }}"
        );
    }
    text.push_str("}\n");
    text
}

/// Crates the accepted specs are split between, checked side by side (rustc checks one crate
/// on one core).
const SHARDS: usize = 2;

/// The folder (under the scratch workspace) and package of shard `k`'s copy of the client.
fn shard(k: usize) -> (String, String) {
    match k {
        0 => (String::new(), "spec-names-client".to_owned()),
        _ => (format!("shard{k}/"), format!("spec-names-client-{k}")),
    }
}

/// Writes shard `k`'s copy of the client with `cases` (global index, spec) as its variants,
/// and the checks of the crate root and of `Session`; its constructors, with their cases.
fn write_shard(
    scratch: &Path,
    k: usize,
    cases: &[(usize, &Accepted)],
) -> BTreeMap<String, Vec<usize>> {
    let (folder, package) = shard(k);
    let root = scratch.join(&folder);
    let variants: Vec<(String, Vec<GeneratedFile>)> = cases
        .iter()
        .map(|(i, case)| (format!("case_{i}"), case.files.clone()))
        .collect();
    client_copy::write_client(&root, &package, &variants);
    // Clippy's lints too: the workspace's own check of the generated client (`-D warnings`).
    let lib = root.join("client/src/lib.rs");
    let text = fs::read_to_string(&lib).unwrap();
    let linted = text.replace(
        "#[allow(missing_docs, clippy::all)]",
        "#[allow(missing_docs)]",
    );
    assert_ne!(
        text, linted,
        "client_copy allows clippy's lints on the variants"
    );
    client_copy::write(&lib, &linted);
    let variants_dir = root.join("client/src/variants");
    let mut modules = fs::read_to_string(variants_dir.join("mod.rs")).unwrap();
    let mut by_constructor: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, case) in cases {
        let _ = writeln!(modules, "pub mod root_of_case_{i};");
        client_copy::write(
            &variants_dir.join(format!("root_of_case_{i}.rs")),
            &root_check(*i, &exports(&case.files)),
        );
        for name in constructors(&case.files) {
            by_constructor.entry(name).or_default().push(*i);
        }
    }
    modules.push_str("pub mod session_names;\n");
    client_copy::write(&variants_dir.join("mod.rs"), &modules);
    let names: BTreeSet<String> = by_constructor.keys().cloned().collect();
    client_copy::write(
        &variants_dir.join("session_names.rs"),
        &session_names(&names),
    );
    by_constructor
}

/// Compiles every accepted spec, in [`SHARDS`] crates; the failures, by spec.
pub fn compile(cases: &[Accepted]) -> Vec<Failure> {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spec-names");
    client_copy::remove_all(&scratch);
    // Balanced by the lines each case generates, the largest first.
    let size = |case: &Accepted| -> usize { case.files.iter().map(|f| f.contents.len()).sum() };
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(&cases[i])));
    let mut shards: Vec<(usize, Vec<(usize, &Accepted)>)> = vec![(0, Vec::new()); SHARDS];
    for i in order {
        let lightest = shards.iter_mut().min_by_key(|(load, _)| *load).unwrap();
        lightest.0 += size(&cases[i]);
        lightest.1.push((i, &cases[i]));
    }
    let members: Vec<String> = (1..SHARDS)
        .map(|k| format!("{}client", shard(k).0))
        .collect();
    client_copy::write_workspace(&scratch, &shard(0).1, &members);
    let by_constructor: Vec<BTreeMap<String, Vec<usize>>> = shards
        .iter()
        .enumerate()
        .map(|(k, (_, cases))| write_shard(&scratch, k, cases))
        .collect();

    let mut problems: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut unattributed = Vec::new();
    for diagnostic in check(&scratch) {
        let cases_named: BTreeSet<usize> = diagnostic
            .files
            .iter()
            .filter_map(|file| {
                let rest = file.split("src/variants/").nth(1)?;
                let rest = rest
                    .strip_prefix("root_of_case_")
                    .or_else(|| rest.strip_prefix("case_"))?;
                rest.split(['/', '.']).next()?.parse().ok()
            })
            .collect();
        if cases_named.is_empty() && diagnostic.level == "warning" {
            continue; // the runtime's copy (built without its features)
        }
        let cases_named = if cases_named.is_empty() {
            // The runtime or the constructors on its Session: the cases of the shard with a
            // constructor the message names.
            let k = (1..SHARDS)
                .find(|k| diagnostic.files.iter().any(|f| f.starts_with(&shard(*k).0)))
                .unwrap_or(0);
            by_constructor[k]
                .iter()
                .filter(|(name, _)| mentions(&diagnostic.rendered, name))
                .flat_map(|(_, cases)| cases.iter().copied())
                .collect()
        } else {
            cases_named
        };
        let text = format!("{}: {}", diagnostic.level, diagnostic.rendered);
        if cases_named.is_empty() {
            unattributed.push(text);
        } else {
            for case in cases_named {
                problems.entry(case).or_default().push(text.clone());
            }
        }
    }
    let mut failures: Vec<Failure> = problems
        .into_iter()
        .map(|(case, problems)| Failure {
            label: cases[case].label.clone(),
            spec: cases[case].plan.show(),
            problem: format!(
                "accepted, but the generated code does not compile cleanly:\n{}",
                problems.join("\n")
            ),
        })
        .collect();
    if !unattributed.is_empty() {
        failures.push(Failure {
            label: "the batch".to_owned(),
            spec: String::new(),
            problem: unattributed.join("\n"),
        });
    }
    failures
}

/// Whether `text` has `name` as a word.
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}
