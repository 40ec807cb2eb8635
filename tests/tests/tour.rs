//! The README's first command, `cargo run --example tour`, as a newcomer runs it from the
//! workspace root: it names one example, the fake's (`tests/fake/examples/tour.rs`), whose
//! build holds none of the dependencies the suites add (criterion, proptest, jsonschema, the
//! codegen crate, …: every dev-dependency of this package that the fake does not itself
//! depend on). The tour runs against the embedded fake, prints no control character, and ends
//! by saying where to go next: its source, the manual's pages (each path it names exists) and
//! the four variables of a real deployment. With `MARKETPLACE_BASE_URL` set it tours that
//! deployment instead, and says which variable it still needs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The variables that take the tour to a real deployment, as the README and the tour name them.
const DEPLOYMENT_VARIABLES: [&str; 4] = [
    "MARKETPLACE_BASE_URL",
    "MARKETPLACE_CONSUMER_KEY",
    "MARKETPLACE_CONSUMER_SECRET",
    "MARKETPLACE_BID_ID",
];

/// How many packages the fake's dev-dependencies may add to its library's: the tour builds them
/// all (today tempfile and fastrand).
const MAX_PACKAGES_OF_DEV_DEPENDENCIES: usize = 10;

/// The manual's pages the tour sends its reader to next.
const NEXT_PAGES: [&str; 2] = ["docs/using-the-client.md", "docs/testing-with-the-fake.md"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// What `cargo build --example tour`, run from the workspace root as the README's command is,
/// built: every compiled target as (manifest path, target kinds, target name, executable).
struct TourBuild {
    artifacts: Vec<(PathBuf, Vec<String>, String, Option<PathBuf>)>,
}

impl TourBuild {
    /// The build, once for the tests of this file.
    fn get() -> &'static TourBuild {
        static BUILT: std::sync::OnceLock<TourBuild> = std::sync::OnceLock::new();
        BUILT.get_or_init(TourBuild::run)
    }

    fn run() -> TourBuild {
        let output = Command::new(env!("CARGO"))
            .args([
                "build",
                "--locked",
                "--example",
                "tour",
                "--message-format=json-render-diagnostics",
            ])
            .current_dir(root())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo build --example tour failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let artifacts = String::from_utf8(output.stdout)
            .expect("cargo's messages are UTF-8")
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|message| message["reason"] == "compiler-artifact")
            .map(|artifact| {
                let strings = |value: &Value| -> Vec<String> {
                    value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|kind| kind.as_str().map(str::to_owned))
                        .collect()
                };
                (
                    PathBuf::from(artifact["manifest_path"].as_str().expect("a manifest path")),
                    strings(&artifact["target"]["kind"]),
                    artifact["target"]["name"]
                        .as_str()
                        .expect("a target name")
                        .to_owned(),
                    artifact["executable"].as_str().map(PathBuf::from),
                )
            })
            .collect();
        TourBuild { artifacts }
    }

    /// The executables of the examples named `tour`, with their packages' manifests.
    fn tours(&self) -> Vec<(&Path, &Path)> {
        self.artifacts
            .iter()
            .filter(|(_, kinds, name, _)| name == "tour" && kinds.iter().any(|k| k == "example"))
            .filter_map(|(manifest, _, _, executable)| {
                Some((manifest.as_path(), executable.as_deref()?))
            })
            .collect()
    }
}

/// The manifests of every package `package` depends on, itself included, as `cargo metadata`
/// resolves the workspace (every platform, the features the whole workspace asks for): its
/// normal and build dependencies, and its dev-dependencies when `dev` (an example builds
/// those), and theirs but dev-dependencies.
fn dependency_closure(metadata: &Value, package: &str, dev: bool) -> BTreeSet<PathBuf> {
    let packages = metadata["packages"].as_array().expect("packages");
    let id_of = |name: &str| {
        packages
            .iter()
            .find(|candidate| candidate["name"] == name)
            .unwrap_or_else(|| panic!("{name} is a package"))["id"]
            .clone()
    };
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .expect("the resolve graph");
    let root = id_of(package);
    let mut seen = vec![root.clone()];
    let mut todo = vec![root.clone()];
    while let Some(id) = todo.pop() {
        let node = nodes.iter().find(|node| node["id"] == id).expect("a node");
        for dependency in node["deps"].as_array().expect("deps") {
            let built = dependency["dep_kinds"]
                .as_array()
                .expect("dep_kinds")
                .iter()
                .any(|kind| kind["kind"] != "dev" || (dev && id == root));
            if built && !seen.contains(&dependency["pkg"]) {
                seen.push(dependency["pkg"].clone());
                todo.push(dependency["pkg"].clone());
            }
        }
    }
    packages
        .iter()
        .filter(|package| seen.contains(&package["id"]))
        .map(|package| PathBuf::from(package["manifest_path"].as_str().expect("a manifest")))
        .collect()
}

fn metadata() -> Value {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--locked", "--format-version", "1"])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON")
}

/// Runs the tour with none of the deployment variables set (whatever the test's environment
/// holds), plus `env`.
fn run_tour(executable: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(executable);
    for variable in DEPLOYMENT_VARIABLES {
        command.env_remove(variable);
    }
    command
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    command.output().expect("the tour runs")
}

#[test]
fn the_readme_command_builds_the_fakes_tour_alone_and_it_ends_saying_where_to_go_next() {
    let root = root();
    let build = TourBuild::get();

    // One example named `tour` in the workspace, so `cargo run --example tour` is not
    // ambiguous, and it is the fake's.
    let tours = build.tours();
    assert_eq!(tours.len(), 1, "examples named tour: {tours:?}");
    let (manifest, executable) = tours[0];
    assert_eq!(manifest, root.join("tests/fake/Cargo.toml"));

    // The tour builds what the fake depends on and nothing else: none of what only the
    // suites need.
    let metadata = metadata();
    let closure = dependency_closure(&metadata, "marketplace-fake", true);
    let outside: BTreeSet<&Path> = build
        .artifacts
        .iter()
        .map(|(manifest, ..)| manifest.as_path())
        .filter(|manifest| !closure.contains(*manifest))
        .collect();
    assert!(
        outside.is_empty(),
        "the tour builds packages the fake does not depend on: {outside:?}"
    );
    let suites = dependency_closure(&metadata, "marketplace-tests", true);
    let suites_only = suites.difference(&closure).count();
    assert!(
        suites_only > 50,
        "only {suites_only} packages are the suites' alone: the closure is not read"
    );
    // And the fake's dev-dependencies stay light: they add a few packages to what its library
    // needs, not a test framework's tree.
    let library = dependency_closure(&metadata, "marketplace-fake", false);
    let added: Vec<_> = closure.difference(&library).collect();
    assert!(
        added.len() <= MAX_PACKAGES_OF_DEV_DEPENDENCIES,
        "the fake's dev-dependencies add {} packages to the tour's build: {added:?}",
        added.len()
    );

    let output = run_tour(executable, &[]);
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        output.status.success(),
        "the tour failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let controls: Vec<char> = stdout
        .chars()
        .filter(|&c| c.is_control() && c != '\n')
        .collect();
    assert!(
        controls.is_empty(),
        "control characters {controls:?} in\n{stdout}"
    );

    // The end: the tour is over, then at most four lines on what to do next.
    let lines: Vec<&str> = stdout.lines().collect();
    let over = lines
        .iter()
        .rposition(|line| line.contains("the tour is over"))
        .expect("the tour says it is over");
    let next = lines[over + 1..].join("\n");
    assert!(
        next.trim().lines().count() <= 4,
        "more than four lines after the tour:\n{next}"
    );
    assert!(
        next.contains("tests/fake/examples/tour.rs"),
        "the tour names its source:\n{next}"
    );
    for page in NEXT_PAGES {
        assert!(next.contains(page), "the tour names {page}:\n{next}");
    }
    for variable in DEPLOYMENT_VARIABLES {
        assert!(
            next.contains(variable),
            "the tour names {variable}:\n{next}"
        );
    }
    // Every file it names is there to be opened.
    let named: Vec<&str> = next
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| word.ends_with(".rs") || word.ends_with(".md"))
        .collect();
    assert!(named.len() >= 3, "{named:?}");
    for file in named {
        assert!(
            root.join(file).is_file(),
            "the tour names {file}, which is not a file"
        );
    }
}

/// With `MARKETPLACE_BASE_URL` set the tour goes to that deployment, not to the fake: without
/// the consumer key it stops before any request, naming the variable to set.
#[test]
fn with_a_base_url_the_tour_tours_that_deployment_and_names_a_missing_variable() {
    let build = TourBuild::get();
    let (_, executable) = build.tours()[0];
    let output = run_tour(
        executable,
        &[("MARKETPLACE_BASE_URL", "https://127.0.0.1:9")],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, "the tour stopped: set MARKETPLACE_CONSUMER_KEY\n");

    let output = run_tour(
        executable,
        &[
            ("MARKETPLACE_BASE_URL", "https://127.0.0.1:9"),
            ("MARKETPLACE_CONSUMER_KEY", "key"),
            ("MARKETPLACE_CONSUMER_SECRET", "secret"),
            ("MARKETPLACE_BID_ID", "not a number"),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, "the tour stopped: MARKETPLACE_BID_ID: not an ID\n");
}
