//! Generated hostile specs, not a list of examples: random renames of the real spec's names
//! and files (generation never panics: it succeeds, or every error is located), random alias
//! bombs (refused at an alias, with memory bounded), and megabytes of errors (all reported,
//! located, in one run).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use marketplace_client::files::OutputDir;
use marketplace_codegen::diagnostic::ErrorKind;
use marketplace_codegen::{SpecSource, generate, load_spec_dir, resolve};
use proptest::prelude::*;
use serde_yaml::Value;

fn real_spec() -> Vec<SpecSource> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    load_spec_dir(&dir, "spec").expect("the spec loads")
}

/// Names a careless or hostile author could write.
fn hostile_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("self".to_owned()),
        Just("Self".to_owned()),
        Just("mod".to_owned()),
        Just("std".to_owned()),
        Just("build".to_owned()),
        Just("send_with_metadata".to_owned()),
        Just("Other".to_owned()),
        Just("SERVICE".to_owned()),
        Just("E_".to_owned()),
        prop::sample::select(vec![
            "type", "fn", "match", "crate", "super", "async", "gen"
        ])
        .prop_map(str::to_owned),
        "[0-9][a-zA-Z0-9_]{0,8}",
        "[a-z]{1,6}[-.][a-z]{1,6}",
        "[A-Za-z_/ -]{1,12}",
        "\\PC{1,12}",
        "[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{202a}-\\u{202e}a-z]{1,8}",
        "[a-z]{300,400}",
    ]
}

/// The mapping under `keys` in `value`, if there is one.
fn mapping_at<'v>(value: &'v mut Value, keys: &[&str]) -> Option<&'v mut serde_yaml::Mapping> {
    let mut value = value;
    for key in keys {
        value = value.as_mapping_mut()?.get_mut(*key)?;
    }
    value.as_mapping_mut()
}

/// Renames the `pick`-th key (modulo their number) of `mapping` to `name`, keeping its place.
fn rename_key(mapping: &mut serde_yaml::Mapping, pick: usize, name: &str) {
    if mapping.is_empty() {
        return;
    }
    let entries: Vec<(Value, Value)> = std::mem::take(mapping).into_iter().collect();
    let pick = pick % entries.len();
    for (i, (key, value)) in entries.into_iter().enumerate() {
        let key = if i == pick {
            Value::String(name.to_owned())
        } else {
            key
        };
        mapping.insert(key, value);
    }
}

/// One hostile rename: of what, which one (a number taken modulo the candidates), and to what.
#[derive(Clone, Debug)]
struct Rename {
    target: usize,
    pick: usize,
    name: String,
}

/// Applies `rename` to the parsed files (`names`: their file names).
fn apply(files: &mut [Value], names: &mut [String], rename: &Rename) {
    let file = rename.pick % files.len();
    let pick = rename.pick / files.len();
    let spec = &mut files[file];
    let first_key = |value: &mut Value, section: &str, pick: usize| -> Option<String> {
        let section = mapping_at(value, &[section])?;
        let keys: Vec<String> = section
            .keys()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect();
        (!keys.is_empty()).then(|| keys[pick % keys.len()].clone())
    };
    match rename.target % 9 {
        0 => names[file] = format!("{}.yaml", rename.name),
        1..=4 => {
            let section = ["types", "enums", "errors", "methods"][rename.target % 9 - 1];
            if let Some(section) = mapping_at(spec, &[section]) {
                rename_key(section, pick, &rename.name);
            }
        }
        5 => {
            if let Some(record) = first_key(spec, "types", pick) {
                if let Some(fields) = mapping_at(spec, &["types", &record, "fields"]) {
                    rename_key(fields, pick / 7, &rename.name);
                }
            }
        }
        6 => {
            if let Some(e) = first_key(spec, "enums", pick) {
                if let Some(values) = mapping_at(spec, &["enums", &e, "values"]) {
                    rename_key(values, pick / 7, &rename.name);
                }
            }
        }
        7 => {
            if let Some(method) = first_key(spec, "methods", pick) {
                if let Some(params) = mapping_at(spec, &["methods", &method, "params"]) {
                    rename_key(params, pick / 7, &rename.name);
                }
            }
        }
        _ => {
            // A `rust_name` (of a field, else of a method).
            let rust_name = Value::String(rename.name.clone());
            if let Some(record) = first_key(spec, "types", pick) {
                if let Some(fields) = mapping_at(spec, &["types", &record, "fields"]) {
                    let count = fields.len().max(1);
                    if let Some(field) = fields.values_mut().nth(pick / 7 % count) {
                        if let Some(field) = field.as_mapping_mut() {
                            field.insert(Value::String("rust_name".into()), rust_name);
                        }
                    }
                }
            } else if let Some(method) = first_key(spec, "methods", pick) {
                if let Some(method) = mapping_at(spec, &["methods", &method]) {
                    method.insert(Value::String("rust_name".into()), rust_name);
                }
            }
        }
    }
}

fn renames() -> impl Strategy<Value = Vec<Rename>> {
    prop::collection::vec(
        (any::<usize>(), any::<usize>(), hostile_name()).prop_map(|(target, pick, name)| Rename {
            target,
            pick,
            name,
        }),
        1..4,
    )
}

/// The file-level rules, whose errors name the file and no line.
fn located_by_file(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::InvalidFileName | ErrorKind::TooLarge)
}

/// Resolves and, when the spec is valid, generates: never a panic; an error always located.
fn resolves_or_is_located(sources: &[SpecSource]) -> Result<(), TestCaseError> {
    let outcome = catch_unwind(AssertUnwindSafe(|| match resolve(sources) {
        Ok(api) => generate(&api)
            .map(|_| ())
            .map_err(|error| error.to_string()),
        Err(errors) => {
            let unlocated: Vec<String> = errors
                .0
                .iter()
                .filter(|e| e.location.is_none() && !located_by_file(e.kind))
                .map(ToString::to_string)
                .collect();
            match unlocated.is_empty() && !errors.0.is_empty() {
                true => Ok(()),
                false => Err(format!("errors without a location: {unlocated:#?}")),
            }
        }
    }));
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(problem)) => Err(TestCaseError::fail(problem)),
        Err(_) => Err(TestCaseError::fail("resolve or generate panicked")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The real spec with random hostile names, file names included.
    #[test]
    fn generation_never_panics_and_every_error_is_located(renames in renames()) {
        let spec = real_spec();
        let mut files: Vec<Value> = spec
            .iter()
            .map(|s| serde_yaml::from_str(&s.text).expect("the spec is YAML"))
            .collect();
        let mut names: Vec<String> = spec
            .iter()
            .map(|s| s.path.trim_start_matches("spec/").to_owned())
            .collect();
        for rename in &renames {
            apply(&mut files, &mut names, rename);
        }
        let sources: Vec<SpecSource> = files
            .iter()
            .zip(&names)
            .map(|(value, name)| SpecSource {
                path: format!("spec/{name}"),
                text: serde_yaml::to_string(value).expect("YAML again"),
            })
            .collect();
        resolves_or_is_located(&sources)?;
    }

    /// Chains of anchors, each aliasing the one before many times, in block or flow style:
    /// refused at an alias when they would expand past the limit, and never costing more
    /// memory than a bounded file.
    #[test]
    fn alias_bombs_are_refused_at_an_alias_with_memory_bounded(
        base in 1usize..4000,
        fanout in 2usize..64,
        levels in 1u32..7,
        flow in any::<bool>(),
    ) {
        let mut text = format!("x0: &l0 [{}]\n", "a,".repeat(base / 2 + 1));
        for level in 1..=levels {
            let aliases = vec![format!("*l{}", level - 1); fanout];
            if flow {
                text.push_str(&format!("x{level}: &l{level} [{}]\n", aliases.join(", ")));
            } else {
                text.push_str(&format!("x{level}: &l{level}\n"));
                for alias in aliases {
                    text.push_str(&format!("  - {alias}\n"));
                }
            }
        }
        let expands = (base as f64) * (fanout as f64).powi(levels as i32);
        let sources = [SpecSource { path: "spec/bomb.yaml".to_owned(), text }];
        let mut errors = None;
        let used = allocation_counter::measure(|| errors = resolve(&sources).err());
        let errors = errors.expect("unknown keys at least");
        prop_assert!(used.bytes_max < 256 << 20, "peak {} bytes", used.bytes_max);
        if expands > (3 << 20) as f64 {
            let refusal = errors.0.iter().find(|e| e.kind == ErrorKind::AliasExpansion);
            prop_assert!(refusal.is_some(), "{errors}");
            prop_assert!(refusal.and_then(|e| e.location).is_some());
        }
    }
}

/// A megabyte of mistakes: every one is reported, located, in one run.
#[test]
fn a_megabyte_of_errors_is_read_whole_and_every_error_located() {
    let mut text = String::from("types:\n  Huge:\n    doc: Many fields.\n    fields:\n");
    let mut count = 0;
    while text.len() < (1 << 20) - 200 {
        text.push_str(&format!(
            "      f{count}: {{ type: Unknown{count}, doc: D, only_in: [no/method{count}] }}\n"
        ));
        count += 1;
    }
    let sources = [SpecSource {
        path: "spec/huge.yaml".to_owned(),
        text,
    }];
    let errors = resolve(&sources).expect_err("unknown types").0;
    let unknown = errors
        .iter()
        .filter(|e| e.kind == ErrorKind::UnknownType)
        .count();
    assert_eq!(unknown, count, "one unknown type a field");
    assert!(errors.iter().all(|e| e.location.is_some()));
}

/// Bytes that are no UTF-8 character in a spec file: an `invalid-yaml` spec error at their line
/// and column (in characters), as every spec error is located, not a byte offset; every such
/// file is named.
#[test]
fn load_spec_dir_locates_bytes_that_are_not_utf8_by_line_and_column() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let out = OutputDir::open(dir.path()).expect("the scratch folder");
    out.write(
        "a.yaml",
        b"types: {}\ndoc: \"caf\xc3\xa9 \xff\"\n".as_slice(),
    )
    .and_then(|()| out.write("b.yaml", b"\n\n\x80\n".as_slice()))
    .and_then(|()| out.write("c.yaml", "types: {}\n"))
    .expect("written");
    let error = load_spec_dir(dir.path(), "spec").expect_err("refused");
    let marketplace_codegen::CodegenError::Spec(errors) = error else {
        panic!("not a spec error: {error}");
    };
    let found: Vec<String> = errors
        .0
        .iter()
        .map(|e| {
            let at = e.location.expect("located");
            format!("{}:{}:{}: {}", e.file, at.line, at.column, e.kind.id())
        })
        .collect();
    assert_eq!(
        found,
        [
            "spec/a.yaml:2:12: invalid-yaml",
            "spec/b.yaml:3:1: invalid-yaml"
        ]
    );
}

/// A spec directory holding what a pull request can add: each is refused by `load_spec_dir`
/// with an error naming the file, before a byte of it is read.
#[cfg(unix)]
#[test]
fn load_spec_dir_refuses_devices_fifos_links_out_and_huge_files() {
    let outside = tempfile::tempdir().expect("a scratch folder");
    OutputDir::open(outside.path())
        .and_then(|out| out.write("real.yaml", "types: {}\n"))
        .expect("written");
    for (name, says) in [
        ("zero.yaml", "outside"),
        ("fifo.yaml", "a FIFO"),
        ("away.yaml", "outside"),
        ("sparse.yaml", "more than"),
    ] {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let path = dir.path().join(name);
        match name {
            "zero.yaml" => std::os::unix::fs::symlink("/dev/zero", &path).expect("a link"),
            "fifo.yaml" => {
                let made = std::process::Command::new("mkfifo").arg(&path).status();
                assert!(made.expect("mkfifo runs").success());
            }
            "away.yaml" => {
                std::os::unix::fs::symlink(outside.path().join("real.yaml"), &path).expect("a link")
            }
            _ => {
                let out = OutputDir::open(dir.path()).expect("the scratch folder");
                let mut sparse = out.pending(name).expect("a sparse file");
                sparse.set_len(2 << 30).expect("a sparse file");
                sparse.publish().expect("a sparse file");
            }
        }
        let error = load_spec_dir(dir.path(), "spec")
            .expect_err(name)
            .to_string();
        assert!(
            error.contains(name) && error.contains(says),
            "{name}: {error}"
        );
    }
}
