//! The spec diff against what each method documents, on generated pairs of error lists: a
//! code of each side is absent, every method's (no `methods`) or named by some methods (which
//! list it, as `error-lists-disagree` requires), each method lists codes every method has or
//! not, in any order, and the codes are declared in any order. What a method documents is read
//! from the OpenAPI export of each side (`x-marketplace-errors`, the list its rustdoc shows),
//! not from the IR, and the diff is held to it:
//! - `method-errors-changed` reports a method exactly when its documented list, set aside the
//!   codes that are every method's on either side, differs; its words name each code added or
//!   removed, or say `reordered`, and never a code set aside;
//! - a code set aside that enters or leaves a method's list is reported once, by the code's
//!   own rule (`error-code-added`, `error-code-removed`, `doc-changed` of its `methods`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use marketplace_codegen::diff::{self, Change, Side};
use marketplace_codegen::{SpecSource, openapi, resolve};
use proptest::prelude::*;

const CODES: [&str; 4] = ["E_ALPHA", "E_BRAVO", "E_CHARLIE", "E_DELTA"];
const METHODS: [&str; 3] = ["g/m0", "g/m1", "g/m2"];

/// Which methods return a code.
#[derive(Clone, Debug)]
enum Scope {
    /// Not declared.
    Absent,
    /// Declared without `methods`: every method's.
    Every,
    /// Declared with `methods`: per method, whether it is named.
    Named(Vec<bool>),
}

/// One side's error lists.
#[derive(Clone, Debug)]
struct Lists {
    /// Per code (of [`CODES`]).
    scopes: Vec<Scope>,
    /// Per method, per code: whether the method's own list names a code every method has.
    listed: Vec<Vec<bool>>,
    /// Per method, the order of its own list (indices of [`CODES`]).
    order: Vec<Vec<usize>>,
    /// The order the codes are declared in.
    declared: Vec<usize>,
}

impl Lists {
    fn own(&self, method: usize) -> Vec<usize> {
        self.order[method]
            .iter()
            .copied()
            .filter(|&code| match &self.scopes[code] {
                Scope::Absent => false,
                Scope::Every => self.listed[method][code],
                Scope::Named(named) => named[method],
            })
            .collect()
    }

    fn spec(&self) -> Vec<SpecSource> {
        let mut text = String::from(
            "api: { name: Marketplace, doc: The service., data_path: /api, api_version: 1 }\n",
        );
        let declared: Vec<usize> = self
            .declared
            .iter()
            .copied()
            .filter(|&code| !matches!(self.scopes[code], Scope::Absent))
            .collect();
        if !declared.is_empty() {
            text.push_str("errors:\n");
        }
        for code in declared {
            let methods = match &self.scopes[code] {
                Scope::Absent => unreachable!("left out above"),
                Scope::Every => String::new(),
                Scope::Named(named) => {
                    let names: Vec<&str> = (0..METHODS.len())
                        .filter(|&m| named[m])
                        .map(|m| METHODS[m])
                        .collect();
                    format!(", methods: [{}]", names.join(", "))
                }
            };
            text.push_str(&format!("  {}: {{ doc: A code.{methods} }}\n", CODES[code]));
        }
        text.push_str(
            "types:\n  Note:\n    doc: A note.\n    fields:\n      text: { type: string, doc: The text. }\nmethods:\n",
        );
        for (m, name) in METHODS.iter().enumerate() {
            text.push_str(&format!(
                "  {name}:\n    doc: A method.\n    response: Note\n"
            ));
            let own: Vec<&str> = self.own(m).into_iter().map(|c| CODES[c]).collect();
            if !own.is_empty() {
                text.push_str(&format!("    errors: [{}]\n", own.join(", ")));
            }
        }
        vec![SpecSource {
            path: "spec/api.yaml".to_owned(),
            text,
        }]
    }
}

fn scope() -> impl Strategy<Value = Scope> {
    prop_oneof![
        Just(Scope::Absent),
        Just(Scope::Every),
        prop::collection::vec(any::<bool>(), METHODS.len()).prop_map(Scope::Named),
    ]
}

fn order() -> impl Strategy<Value = Vec<usize>> {
    Just((0..CODES.len()).collect::<Vec<_>>()).prop_shuffle()
}

fn lists() -> impl Strategy<Value = Lists> {
    (
        prop::collection::vec(scope(), CODES.len()),
        prop::collection::vec(
            prop::collection::vec(any::<bool>(), CODES.len()),
            METHODS.len(),
        ),
        prop::collection::vec(order(), METHODS.len()),
        order(),
    )
        .prop_map(|(scopes, listed, order, declared)| Lists {
            scopes,
            listed,
            order,
            declared,
        })
}

/// One edit of `base`: most heads differ from their base in one thing, so that unchanged
/// methods and reorders are common.
fn edited(base: Lists) -> impl Strategy<Value = Lists> {
    (
        0..4usize,
        0..CODES.len(),
        0..METHODS.len(),
        scope(),
        order(),
    )
        .prop_map(move |(what, code, method, scope, order)| {
            let mut head = base.clone();
            match what {
                0 => head.scopes[code] = scope,
                1 => head.listed[method][code] = !head.listed[method][code],
                2 => head.order[method] = order,
                _ => head.declared = order,
            }
            head
        })
}

fn pair() -> impl Strategy<Value = (Lists, Lists)> {
    lists().prop_flat_map(|base| {
        let head = prop_oneof![1 => lists(), 3 => edited(base.clone())];
        (Just(base), head)
    })
}

/// Per method, the codes its OpenAPI operation documents, in order.
fn documented(sources: &[SpecSource]) -> BTreeMap<String, Vec<String>> {
    let api = resolve(sources).unwrap_or_else(|e| panic!("{e}\n{}", sources[0].text));
    let file = openapi(&api).expect("the spec exports");
    let doc: serde_json::Value = serde_json::from_str(&file.contents).unwrap();
    doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|item| {
            let operation = &item["get"];
            let method = operation.get("x-marketplace-method")?.as_str()?.to_owned();
            let codes = operation["x-marketplace-errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect();
            Some((method, codes))
        })
        .collect()
}

fn changes(base: &[SpecSource], head: &[SpecSource]) -> Vec<Change> {
    let (old, new) = (resolve(base).unwrap(), resolve(head).unwrap());
    diff::diff(
        Side {
            api: &old,
            sources: base,
        },
        Side {
            api: &new,
            sources: head,
        },
    )
    .unwrap()
    .changes
}

/// What is wrong with the diff's account of the documented lists, if anything.
fn judge(base: &Lists, head: &Lists) -> Result<(), String> {
    let (base_spec, head_spec) = (base.spec(), head.spec());
    let (old_docs, new_docs) = (documented(&base_spec), documented(&head_spec));
    let changes = changes(&base_spec, &head_spec);
    let every: BTreeSet<&str> = (0..CODES.len())
        .filter(|&c| {
            matches!(base.scopes[c], Scope::Every) || matches!(head.scopes[c], Scope::Every)
        })
        .map(|c| CODES[c])
        .collect();
    let by = |rule: &str, subject: &str| -> Vec<&Change> {
        changes
            .iter()
            .filter(|c| c.rule == rule && c.subject == subject)
            .collect()
    };
    for method in METHODS {
        let (old, new) = (&old_docs[method], &new_docs[method]);
        let own = |list: &[String]| -> Vec<String> {
            list.iter()
                .filter(|c| !every.contains(c.as_str()))
                .cloned()
                .collect()
        };
        let (old_own, new_own) = (own(old), own(new));
        let reported = by(
            diff::rule::METHOD_ERRORS_CHANGED,
            &format!("methods.{method}"),
        );
        if reported.len() != usize::from(old_own != new_own) {
            return Err(format!(
                "{method}: documented {old:?} -> {new:?}, every method's {every:?}: reported {reported:#?}"
            ));
        }
        if let Some(change) = reported.first() {
            let message = &change.message;
            let (old_set, new_set): (BTreeSet<&String>, BTreeSet<&String>) =
                (old_own.iter().collect(), new_own.iter().collect());
            for code in old_set.symmetric_difference(&new_set) {
                if !message.contains(code.as_str()) {
                    return Err(format!("{method}: {message:?} leaves out {code}"));
                }
            }
            if old_set == new_set && !message.ends_with("reordered") {
                return Err(format!("{method}: {message:?} for a reorder"));
            }
            if let Some(code) = every.iter().find(|c| message.contains(*c)) {
                return Err(format!(
                    "{method}: {message:?} names {code}, every method's"
                ));
            }
        }
        let (old_set, new_set): (BTreeSet<&str>, BTreeSet<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        for code in old_set.symmetric_difference(&new_set) {
            if !every.contains(code) {
                continue;
            }
            let subject = format!("errors.{code}");
            let once = [
                diff::rule::ERROR_CODE_ADDED,
                diff::rule::ERROR_CODE_REMOVED,
                diff::rule::DOC_CHANGED,
            ]
            .iter()
            .map(|rule| by(rule, &subject).len())
            .sum::<usize>();
            if once != 1 {
                return Err(format!(
                    "{code}, every method's, enters or leaves {method}'s list: {once} changes of the code"
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn method_errors_changed_reports_what_a_method_alone_documents_otherwise((base, head) in pair()) {
        if let Err(problem) = judge(&base, &head) {
            prop_assert!(
                false,
                "{problem}\n--- base\n{}\n--- head\n{}",
                base.spec()[0].text,
                head.spec()[0].text
            );
        }
    }
}

/// The places that read a method's own list rather than what it documents: each names clippy's
/// `disallowed-fields` lint in an `expect` or `allow` (the root `clippy.toml` refuses
/// `Method::errors`, and CI runs clippy with `-D warnings`). A new one is a decision to make
/// here, not an `allow` that slips in.
const OWN_LIST_READERS: &[&str] = &[
    "codegen/src/diff/properties.rs",
    "codegen/src/ir/check.rs",
    "codegen/src/ir/lookup.rs",
    "codegen/src/ir/mod.rs",
    "codegen/src/resolve/mod.rs",
    "codegen/src/wire_audit/propose.rs",
    "codegen/tests/openapi_export.rs",
];

#[test]
fn only_the_checkers_and_writers_of_a_methods_own_list_read_it() {
    fn walk(root: &Path, dir: &Path, lint: &str, found: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let (path, kind) = (entry.path(), entry.file_type().unwrap());
            let name = entry.file_name().to_string_lossy().into_owned();
            if kind.is_dir() && !matches!(name.as_str(), "target" | ".git") {
                walk(root, &path, lint, found);
            } else if kind.is_file()
                && (name.ends_with(".rs") || name.ends_with(".toml"))
                && std::fs::read_to_string(&path).is_ok_and(|text| text.contains(lint))
            {
                let relative = path.strip_prefix(root).unwrap();
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lint = format!("disallowed{}fields", '_');
    let mut found = Vec::new();
    walk(&root, &root, &lint, &mut found);
    found.retain(|file| file != "codegen/tests/spec_diff_error_lists.rs");
    assert_eq!(found, OWN_LIST_READERS);
    let config = std::fs::read_to_string(root.join("clippy.toml")).unwrap();
    assert!(
        config.contains("{ path = \"marketplace_codegen::ir::Method::errors\""),
        "clippy.toml no longer refuses Method::errors"
    );
}
