//! Red team 21, black box: the order in which the spec writes a list either changes nothing, or
//! is reported.
//!
//! The sentences the cases hold the library to:
//!
//! - spec/README.md: "The generated code follows the order in which fields, parameters, enum
//!   values, types and methods are written (`spec-diff` reports a reorder as `order-changed`);
//!   the lists that are sets (`absent_in`, `only_in`, `at_least_one_of`, a method's `errors`, an
//!   error's `methods`, an OAuth endpoint's `response`, a per-method `encoding`'s methods) have
//!   no order: they are read sorted."
//! - ARCHITECTURE.md: "Output is a function of the spec text only: spec order is kept
//!   (IndexMap), no hash order, ... A list the spec writes as a set (`absent_in`,
//!   `at_least_one_of`, an error's `methods`, …) has no order: `resolve::as_set` sorts it, so
//!   writing it in another order changes nothing; a reorder of what has an order is spec-diff's
//!   `order-changed`."
//! - docs/reviewing-spec-changes.md: "`order-changed` (INFO, wire ok, rust ok) reports items
//!   both sides declare that came in another order (a record's fields, an enum's values, a
//!   method's optional parameters, each file's types, enums and methods, the error codes, the
//!   OAuth endpoints) or moved to another spec file: the generated code follows the spec's
//!   order, so it moves, and the report says why. The lists the spec writes as sets have no
//!   order (the IR sorts them): `absent_in`, `only_in`, `at_least_one_of`, a method's `errors`,
//!   an error's `methods`, an OAuth endpoint's `response`, the keys of a per-method `encoding`;
//!   writing them in another order is no change." and the `param-order-changed` example (two
//!   required parameters that swap places: "ERROR param-order-changed wire: ok rust: breaking").
//!
//! How: the real spec (`spec/*.yaml`) is parsed as generic YAML; every sequence and every
//! mapping of two or more entries anywhere in it is a list (a mapping's key order is an order
//! too). One list at a time is permuted (swap two, reverse, rotate; proptest picks the list and
//! the permutation), every file is written back with serde_yaml (the base is the unpermuted
//! spec written back the same way, so the pair differs only by the permutation), and both are
//! run through the library's public API: `resolve`, `generate`, `openapi`, `diff::diff`.
//!
//! Each list is classed by where it is, from the spec format (spec/README.md):
//! - a set (the lists named above): the permuted spec must give the same generated files, the
//!   same OpenAPI export and no change at all;
//! - an ordered list the docs name (a file's `types`, `enums`, `methods`, `errors`; the OAuth
//!   `endpoints`; a type's `fields`; an enum's `values`): `order-changed` (INFO, wire ok, rust
//!   ok) must be reported, and nothing else;
//! - a method's `params`: `param-order-changed` (wire ok) when the required parameters' order
//!   changed, `order-changed` (INFO, ok, ok) when the optional ones' did, nothing else;
//! - any other mapping (the keys of a field, a parameter, a method, `paging`, a file's
//!   top-level keys, ...): the docs give these keys no order, so a reorder must change nothing
//!   (no change reported) or, if the output moves, be reported as `order-changed` (INFO, ok,
//!   ok).
//!
//! In every case: the permuted spec still loads, and when the generated files or the OpenAPI
//! export differ, spec-diff reports at least one change. A definition (type, enum, method,
//! error code) moved to another file is reported as `order-changed` naming it, and nothing else.
//!
//! Findings when written (the cases fail):
//! - `a_required_parameter_written_after_the_optional_ones_is_reported` and
//!   `every_method_parameter_list_in_another_order_is_reported_as_a_reorder` (and the proptest
//!   when it picks such a list): `pay/getTimesheetsForBid`'s (or `getStatusReportsForBid`'s)
//!   `params` written `rpp, bidId, page` or `rpp, page, bidId` instead of `bidId, rpp, page`
//!   moves generated code (`pay.rs`) and the OpenAPI export's parameter order, and spec-diff
//!   reports no change at all.
//! - `oauth_endpoints_in_another_order_are_reported_as_order_changed`: the OAuth endpoints in
//!   another order change no output, and spec-diff reports nothing, though the rule's text names
//!   "the OAuth endpoints" among what `order-changed` reports (low severity: nothing moves).
//!
//! What became of them: `order-changed` now reports a required parameter moved among the
//! optional ones ("X's parameters: …"; the required ones among themselves stay
//! `param-order-changed`'s). The OAuth endpoints have no order: the IR holds them in the flow's
//! order whatever the spec writes, and the docs now say so (spec/README.md,
//! docs/reviewing-spec-changes.md), so they are classed as a set here and their case is
//! `oauth_endpoints_in_another_order_are_no_change`.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use marketplace_codegen::diff::{self, Change, Impact, Level, Side};
use marketplace_codegen::ir::Api;
use marketplace_codegen::{GeneratedFile, SpecSource, generate, load_spec_dir, openapi, resolve};
use proptest::prelude::*;
use serde_yaml::{Mapping, Value};

const ORDER_CHANGED: &str = "order-changed";
const PARAM_ORDER_CHANGED: &str = "param-order-changed";

/// One step of a path into a spec file's YAML.
#[derive(Clone, Debug)]
enum Seg {
    Key(Value),
    Index(usize),
}

/// What the docs say a list's order means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// "the lists that are sets ... have no order: they are read sorted"
    Set,
    /// An order the docs name as `order-changed`'s.
    Ordered,
    /// A method's parameters: required ones are the constructor's arguments.
    Params,
    /// The keys of a mapping of keywords (no documented order).
    Keyword,
}

#[derive(Clone, Debug)]
struct List {
    file: usize,
    path: Vec<Seg>,
    len: usize,
    is_map: bool,
    class: Class,
}

#[derive(Clone, Copy, Debug)]
enum Perm {
    Swap(usize, usize),
    Reverse,
    Rotate(usize),
}

impl Perm {
    /// The new order: position `p` of the result holds the old element `order[p]`.
    fn order(self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        match self {
            Perm::Swap(i, j) => order.swap(i, j),
            Perm::Reverse => order.reverse(),
            Perm::Rotate(k) => order.rotate_left(k),
        }
        order
    }

    /// A permutation of `n >= 2` elements other than the identity, from raw numbers.
    fn pick(n: usize, kind: u8, a: usize, b: usize) -> Perm {
        match kind % 3 {
            0 => {
                let i = a % n;
                let j = (i + 1 + b % (n - 1)) % n;
                Perm::Swap(i.min(j), i.max(j))
            }
            1 => Perm::Reverse,
            _ => Perm::Rotate(1 + a % (n - 1)),
        }
    }
}

struct Spec {
    names: Vec<String>,
    values: Vec<Value>,
    lists: Vec<List>,
}

fn key_str(seg: &Seg) -> Option<&str> {
    match seg {
        Seg::Key(k) => k.as_str(),
        Seg::Index(_) => None,
    }
}

fn show_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                match k.as_str() {
                    Some(s) => out.push_str(s),
                    None => {
                        let _ = write!(out, "{k:?}");
                    }
                }
            }
            Seg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    if out.is_empty() {
        "<the file's top-level keys>".to_owned()
    } else {
        out
    }
}

/// Where a list is, read against the spec format of spec/README.md.
fn classify(path: &[Seg], is_map: bool) -> Class {
    let p: Vec<Option<&str>> = path.iter().map(key_str).collect();
    let last = p.last().copied().flatten();
    let first = p.first().copied().flatten();
    let n = p.len();
    // Sets (spec/README.md, docs/reviewing-spec-changes.md).
    if matches!(last, Some("absent_in" | "only_in" | "at_least_one_of")) && !is_map {
        return Class::Set;
    }
    if n == 3 && first == Some("methods") && last == Some("errors") && !is_map {
        return Class::Set;
    }
    if n == 3 && first == Some("errors") && last == Some("methods") && !is_map {
        return Class::Set;
    }
    if n == 4 && p[..2] == [Some("oauth"), Some("endpoints")] && last == Some("response") {
        return Class::Set;
    }
    if n == 5 && first == Some("types") && p[2] == Some("fields") && last == Some("encoding") {
        return Class::Set;
    }
    // Ordered, as the `order-changed` rule lists them.
    if n == 1 && matches!(first, Some("types" | "enums" | "methods" | "errors")) && is_map {
        return Class::Ordered;
    }
    // "the OAuth endpoints are read in the flow's order" (spec/README.md).
    if n == 2 && p[..] == [Some("oauth"), Some("endpoints")] {
        return Class::Set;
    }
    if n == 3 && first == Some("types") && last == Some("fields") {
        return Class::Ordered;
    }
    if n == 3 && first == Some("enums") && last == Some("values") {
        return Class::Ordered;
    }
    if n == 3 && first == Some("methods") && last == Some("params") {
        return Class::Params;
    }
    Class::Keyword
}

fn walk(v: &Value, path: &mut Vec<Seg>, file: usize, out: &mut Vec<List>) {
    match v {
        Value::Sequence(s) => {
            if s.len() >= 2 {
                out.push(List {
                    file,
                    path: path.clone(),
                    len: s.len(),
                    is_map: false,
                    class: classify(path, false),
                });
            }
            for (i, x) in s.iter().enumerate() {
                path.push(Seg::Index(i));
                walk(x, path, file, out);
                path.pop();
            }
        }
        Value::Mapping(m) => {
            if m.len() >= 2 {
                out.push(List {
                    file,
                    path: path.clone(),
                    len: m.len(),
                    is_map: true,
                    class: classify(path, true),
                });
            }
            for (k, x) in m {
                path.push(Seg::Key(k.clone()));
                walk(x, path, file, out);
                path.pop();
            }
        }
        Value::Tagged(t) => walk(&t.value, path, file, out),
        _ => {}
    }
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let sources = load_spec_dir(&dir, "spec").expect("the real spec loads");
        let names: Vec<String> = sources.iter().map(|s| s.path.clone()).collect();
        let values: Vec<Value> = sources
            .iter()
            .map(|s| serde_yaml::from_str(&s.text).expect("the spec is YAML"))
            .collect();
        let mut lists = Vec::new();
        for (file, value) in values.iter().enumerate() {
            walk(value, &mut Vec::new(), file, &mut lists);
        }
        Spec {
            names,
            values,
            lists,
        }
    })
}

fn render(values: &[Value]) -> Vec<SpecSource> {
    spec()
        .names
        .iter()
        .zip(values)
        .map(|(path, value)| SpecSource {
            path: path.clone(),
            text: serde_yaml::to_string(value).expect("YAML again"),
        })
        .collect()
}

struct Base {
    sources: Vec<SpecSource>,
    api: Api,
    files: Vec<GeneratedFile>,
    openapi: GeneratedFile,
}

/// The unpermuted spec, written back by serde_yaml exactly as the permuted ones are.
fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let sources = render(&spec().values);
        let api = resolve(&sources)
            .unwrap_or_else(|e| panic!("the real spec written back does not load: {e}"));
        let files = generate(&api).expect("the real spec generates");
        let openapi = openapi(&api).expect("the real spec exports");
        Base {
            sources,
            api,
            files,
            openapi,
        }
    })
}

fn at_mut<'a>(mut v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    for seg in path {
        if let Value::Tagged(t) = v {
            v = &mut t.value;
        }
        v = match seg {
            Seg::Key(k) => v
                .as_mapping_mut()
                .and_then(|m| m.get_mut(k))
                .expect("a key of the spec"),
            Seg::Index(i) => &mut v.as_sequence_mut().expect("a sequence of the spec")[*i],
        };
    }
    if let Value::Tagged(t) = v {
        v = &mut t.value;
    }
    v
}

fn permute(v: &mut Value, order: &[usize]) {
    match v {
        Value::Sequence(s) => {
            let old = s.clone();
            *s = order.iter().map(|&i| old[i].clone()).collect();
        }
        Value::Mapping(m) => {
            let old: Vec<(Value, Value)> = m.iter().map(|(k, x)| (k.clone(), x.clone())).collect();
            let mut new = Mapping::new();
            for &i in order {
                new.insert(old[i].0.clone(), old[i].1.clone());
            }
            *m = new;
        }
        other => panic!("not a list: {other:?}"),
    }
}

fn keys_of(v: &Value) -> Vec<String> {
    match v {
        Value::Mapping(m) => m
            .keys()
            .map(|k| k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned))
            .collect(),
        Value::Sequence(s) => s.iter().map(|x| format!("{x:?}")).collect(),
        _ => Vec::new(),
    }
}

/// The names of a `params` mapping's required (or optional) parameters, in order.
fn params_where(params: &Value, required: bool) -> Vec<String> {
    params
        .as_mapping()
        .map(|m| {
            m.iter()
                .filter(|(_, p)| {
                    (p.get("required").and_then(Value::as_bool) == Some(true)) == required
                })
                .map(|(k, _)| k.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn show_change(c: &Change) -> String {
    format!(
        "{} {:?} wire={:?} rust={:?} {}: {}",
        c.rule, c.level, c.wire, c.rust, c.subject, c.message
    )
}

fn show_changes(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "no change".to_owned();
    }
    changes
        .iter()
        .map(show_change)
        .collect::<Vec<_>>()
        .join("\n    ")
}

fn is_info_ok(c: &Change) -> bool {
    c.level == Level::Info && c.wire == Impact::NonBreaking && c.rust == Impact::NonBreaking
}

/// Which generated files differ, with their first differing line.
fn files_diff(old: &[GeneratedFile], new: &[GeneratedFile]) -> Vec<String> {
    let mut out = Vec::new();
    let paths: std::collections::BTreeSet<&str> =
        old.iter().chain(new).map(|f| f.path.as_str()).collect();
    for path in paths {
        let a = old
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.as_str());
        let b = new
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.as_str());
        if a != b {
            out.push(first_difference(path, a.unwrap_or(""), b.unwrap_or("")));
        }
    }
    out
}

fn first_difference(path: &str, a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let line = al
        .iter()
        .zip(&bl)
        .position(|(x, y)| x != y)
        .unwrap_or(al.len().min(bl.len()));
    format!(
        "{path}:{}: `{}` -> `{}`",
        line + 1,
        al.get(line).unwrap_or(&"<end>").trim(),
        bl.get(line).unwrap_or(&"<end>").trim()
    )
}

/// What the permuted spec gives, next to the base.
struct Outcome {
    generated: Vec<String>,
    openapi: Vec<String>,
    changes: Vec<Change>,
}

fn run(head_sources: &[SpecSource]) -> Result<Outcome, String> {
    let base = base();
    let head = resolve(head_sources)
        .map_err(|e| format!("the permuted spec no longer loads (the original did): {e}"))?;
    let files = generate(&head).map_err(|e| format!("generate failed: {e}"))?;
    let export = openapi(&head).map_err(|e| format!("openapi failed: {e}"))?;
    let changes = diff::diff(
        Side {
            api: &base.api,
            sources: &base.sources,
        },
        Side {
            api: &head,
            sources: head_sources,
        },
    )
    .map_err(|e| format!("diff failed: {e}"))?
    .changes;
    Ok(Outcome {
        generated: files_diff(&base.files, &files),
        openapi: files_diff(
            std::slice::from_ref(&base.openapi),
            std::slice::from_ref(&export),
        ),
        changes,
    })
}

/// Holds one permuted list to what the docs say of its class.
fn judge(list: &List, perm: Perm) -> Result<(), String> {
    judge_all(&[(list, perm)])
}

/// Holds lists of one class, all permuted at once, to what the docs say of that class.
fn judge_all(permuted: &[(&List, Perm)]) -> Result<(), String> {
    let spec = spec();
    let class = permuted[0].0.class;
    assert!(permuted.iter().all(|(l, _)| l.class == class));
    let mut values = spec.values.clone();
    let mut wheres = Vec::new();
    let (mut required_moved, mut optional_moved) = (false, false);
    for &(list, perm) in permuted {
        let target = at_mut(&mut values[list.file], &list.path);
        let before = target.clone();
        permute(target, &perm.order(list.len));
        let after = target.clone();
        required_moved |= params_where(&before, true) != params_where(&after, true);
        optional_moved |= params_where(&before, false) != params_where(&after, false);
        wheres.push(format!(
            "{} `{}` ({:?} {}, {} entries) permuted by {perm:?}: {:?} -> {:?}",
            spec.names[list.file],
            show_path(&list.path),
            list.class,
            if list.is_map { "mapping" } else { "sequence" },
            list.len,
            keys_of(&before),
            keys_of(&after)
        ));
    }
    let where_ = wheres.join("; ");
    let head_sources = render(&values);
    let out = run(&head_sources).map_err(|e| format!("{where_}: {e}"))?;
    let moved = !out.generated.is_empty() || !out.openapi.is_empty();
    let what = format!(
        "{where_}\n  generated files that differ: {:?}\n  OpenAPI export: {:?}\n  spec-diff: {}",
        out.generated,
        out.openapi,
        show_changes(&out.changes)
    );
    // "the generated code's diff is never left unexplained" (docs/reviewing-spec-changes.md)
    if moved && out.changes.is_empty() {
        return Err(format!(
            "the output changed but spec-diff reports nothing: {what}"
        ));
    }
    match class {
        // "writing them in another order is no change" / "writing it in another order changes
        // nothing" (docs/reviewing-spec-changes.md, ARCHITECTURE.md)
        Class::Set => {
            if moved || !out.changes.is_empty() {
                return Err(format!(
                    "a set written in another order changed something: {what}"
                ));
            }
        }
        // "`order-changed` (INFO, wire ok, rust ok) reports items both sides declare that came
        // in another order (a record's fields, an enum's values, ... each file's types, enums
        // and methods, the error codes)"
        Class::Ordered => {
            if let Some(c) = out
                .changes
                .iter()
                .find(|c| !(c.rule == ORDER_CHANGED && is_info_ok(c)))
            {
                return Err(format!(
                    "a reorder is reported as something else than order-changed (INFO, ok, ok): `{}`: {what}",
                    show_change(c)
                ));
            }
            if !out.changes.iter().any(|c| c.rule == ORDER_CHANGED) {
                return Err(format!(
                    "a reorder of an ordered list is not reported as order-changed: {what}"
                ));
            }
        }
        // "a method's optional parameters" are order-changed's; two required parameters that
        // swap places are `param-order-changed` ("wire: ok").
        Class::Params => {
            for c in &out.changes {
                let fine = (c.rule == ORDER_CHANGED && is_info_ok(c))
                    || (c.rule == PARAM_ORDER_CHANGED
                        && required_moved
                        && c.wire == Impact::NonBreaking);
                if !fine {
                    return Err(format!(
                        "a reorder of parameters is reported as `{}`, which is not order-changed (INFO, ok, ok) nor (required moved: {required_moved}) param-order-changed (wire ok): {what}",
                        show_change(c)
                    ));
                }
            }
            if required_moved && !out.changes.iter().any(|c| c.rule == PARAM_ORDER_CHANGED) {
                return Err(format!(
                    "the required parameters came in another order, and param-order-changed is not reported: {what}"
                ));
            }
            if optional_moved && !out.changes.iter().any(|c| c.rule == ORDER_CHANGED) {
                return Err(format!(
                    "the optional parameters came in another order, and order-changed is not reported: {what}"
                ));
            }
        }
        // Keys of a keyword mapping: no documented order. Either nothing changes and nothing is
        // reported, or the move is order-changed's.
        Class::Keyword => {
            if !moved && !out.changes.is_empty() {
                return Err(format!(
                    "keys written in another order change no output, yet spec-diff reports: {what}"
                ));
            }
            if let Some(c) = out
                .changes
                .iter()
                .find(|c| !(c.rule == ORDER_CHANGED && is_info_ok(c)))
            {
                return Err(format!(
                    "keys written in another order are reported as something else than order-changed (INFO, ok, ok): `{}`: {what}",
                    show_change(c)
                ));
            }
        }
    }
    Ok(())
}

/// The lists proptest picks from: every one, and (half the time) one of those the docs name
/// (sets, ordered lists, parameters), which are fewer than the keyword mappings.
fn a_list() -> impl Strategy<Value = List> {
    let all: Vec<List> = spec().lists.clone();
    let named: Vec<List> = all
        .iter()
        .filter(|l| l.class != Class::Keyword)
        .cloned()
        .collect();
    prop_oneof![prop::sample::select(all), prop::sample::select(named),]
}

fn a_permuted_list() -> impl Strategy<Value = (List, Perm)> {
    (a_list(), any::<u8>(), any::<usize>(), any::<usize>()).prop_map(|(list, kind, a, b)| {
        let perm = Perm::pick(list.len, kind, a, b);
        (list, perm)
    })
}

/// The permuted specs are compared with the unpermuted spec written back the same way; that
/// write-back must be the same spec as the files on disk, or every other case compares noise.
#[test]
fn the_spec_written_back_is_the_same_spec() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let sources = load_spec_dir(&dir, "spec").expect("the real spec loads");
    let api = resolve(&sources).expect("the real spec resolves");
    let base = base();
    assert_eq!(
        files_diff(&generate(&api).expect("generates"), &base.files),
        Vec::<String>::new(),
        "serde_yaml's write-back of the real spec generates other code"
    );
    assert_eq!(
        openapi(&api).expect("exports"),
        base.openapi,
        "serde_yaml's write-back of the real spec exports another OpenAPI document"
    );
    let lists = &spec().lists;
    for class in [Class::Set, Class::Ordered, Class::Params, Class::Keyword] {
        assert!(
            lists.iter().any(|l| l.class == class),
            "the real spec has no list of class {class:?}: the classification is stale"
        );
    }
}

/// One definition of the spec: a type, an enum, a method or an error code.
#[derive(Clone, Debug)]
struct Definition {
    file: usize,
    section: &'static str,
    name: Value,
}

fn definitions() -> Vec<Definition> {
    let spec = spec();
    let mut out = Vec::new();
    for (file, value) in spec.values.iter().enumerate() {
        for section in ["types", "enums", "methods", "errors"] {
            if let Some(m) = value.get(section).and_then(Value::as_mapping) {
                for name in m.keys() {
                    out.push(Definition {
                        file,
                        section,
                        name: name.clone(),
                    });
                }
            }
        }
    }
    out
}

/// `mapping` without `key`, the others in their order.
fn without(mapping: &Mapping, key: &Value) -> Mapping {
    mapping
        .iter()
        .filter(|(k, _)| *k != key)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `mapping` with `key: value` inserted at position `at`.
fn with_at(mapping: &Mapping, at: usize, key: Value, value: Value) -> Mapping {
    let mut entries: Vec<(Value, Value)> = mapping
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    entries.insert(at.min(entries.len()), (key, value));
    entries.into_iter().collect()
}

/// The spec with `def` moved to file `to`, at position `at` of its section there.
fn moved(def: &Definition, to: usize, at: usize) -> Vec<Value> {
    let mut values = spec().values.clone();
    let section = Value::String(def.section.to_owned());
    let from = values[def.file]
        .as_mapping_mut()
        .expect("a file is a mapping");
    let old = from
        .get(&section)
        .and_then(Value::as_mapping)
        .expect("the section")
        .clone();
    let body = old.get(&def.name).expect("the definition").clone();
    let rest = without(&old, &def.name);
    if rest.is_empty() {
        from.remove(&section);
    } else {
        from.insert(section.clone(), Value::Mapping(rest));
    }
    let into = values[to].as_mapping_mut().expect("a file is a mapping");
    let there = into
        .get(&section)
        .and_then(Value::as_mapping)
        .cloned()
        .unwrap_or_default();
    let at = at % (there.len() + 1);
    into.insert(
        section,
        Value::Mapping(with_at(&there, at, def.name.clone(), body)),
    );
    values
}

fn a_move() -> impl Strategy<Value = (Definition, usize, usize)> {
    let files = spec().names.len();
    (
        prop::sample::select(definitions()),
        1..files,
        any::<usize>(),
    )
        .prop_map(move |(def, offset, at)| {
            let to = (def.file + offset) % files;
            (def, to, at)
        })
}

/// A definition moved to another spec file: "`order-changed` (INFO, wire ok, rust ok) reports
/// items both sides declare that came in another order (...) or moved to another spec file: the
/// generated code follows the spec's order, so it moves, and the report says why"
/// (docs/reviewing-spec-changes.md); "a name may be defined only once across files"
/// (spec/README.md): the spec still loads.
fn judge_move(def: &Definition, to: usize, at: usize) -> Result<(), String> {
    let spec = spec();
    let name = def.name.as_str().unwrap_or_default().to_owned();
    let where_ = format!(
        "{}.{name} moved from {} to {} (position {at} of its `{}`)",
        def.section, spec.names[def.file], spec.names[to], def.section
    );
    let head_sources = render(&moved(def, to, at));
    let out = run(&head_sources).map_err(|e| format!("{where_}: {e}"))?;
    let what = format!(
        "{where_}\n  generated files that differ: {:?}\n  OpenAPI export: {:?}\n  spec-diff: {}",
        out.generated,
        out.openapi,
        show_changes(&out.changes)
    );
    if let Some(c) = out
        .changes
        .iter()
        .find(|c| !(c.rule == ORDER_CHANGED && is_info_ok(c)))
    {
        return Err(format!(
            "a move to another file is reported as something else than order-changed (INFO, ok, ok): `{}`: {what}",
            show_change(c)
        ));
    }
    if !out.changes.iter().any(|c| {
        c.rule == ORDER_CHANGED && (c.subject.contains(&name) || c.message.contains(&name))
    }) {
        return Err(format!(
            "a move to another file is not reported as an order-changed naming {name}: {what}"
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 6,
        failure_persistence: None,
        max_shrink_iters: 0,
        ..ProptestConfig::default()
    })]

    /// Any type, enum, method or error code moved to another file: reported as a move only.
    #[test]
    fn a_definition_moved_to_another_file_is_reported_as_moved((def, to, at) in a_move()) {
        judge_move(&def, to, at).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 20,
        failure_persistence: None,
        max_shrink_iters: 0,
        ..ProptestConfig::default()
    })]

    /// Any one list of the spec, permuted: no change, or a change reported as the docs say.
    #[test]
    fn a_list_in_another_order_changes_nothing_or_is_reported((list, perm) in a_permuted_list()) {
        judge(&list, perm).map_err(TestCaseError::fail)?;
    }
}

/// Every list of one class, all permuted at once (one spec per class and permutation, to keep
/// the run short); when that spec breaks the property, each list is judged alone to say which.
fn sweep(class: Class, perm: fn(usize) -> Perm, skip: &[&str]) {
    let lists: Vec<&List> = spec()
        .lists
        .iter()
        .filter(|l| l.class == class && !skip.contains(&show_path(&l.path).as_str()))
        .collect();
    let permuted: Vec<(&List, Perm)> = lists.iter().map(|&l| (l, perm(l.len))).collect();
    if judge_all(&permuted).is_ok() {
        return;
    }
    let failures: Vec<String> = permuted
        .iter()
        .filter_map(|&(l, p)| judge(l, p).err())
        .collect();
    assert!(
        !failures.is_empty(),
        "the {class:?} lists permuted together break the property, none alone: {:?}",
        judge_all(&permuted)
    );
    panic!(
        "{} of {} {class:?} lists permuted break the property:\n\n{}",
        failures.len(),
        lists.len(),
        failures.join("\n\n")
    );
}

/// "the lists that are sets (...) have no order: they are read sorted" (spec/README.md):
/// every set of the spec reversed, then every set rotated by one, is no change.
#[test]
fn every_set_in_another_order_is_no_change() {
    sweep(Class::Set, |_| Perm::Reverse, &[]);
    sweep(Class::Set, |_| Perm::Rotate(1), &[]);
}

/// "`order-changed` (INFO, wire ok, rust ok) reports items both sides declare that came in
/// another order (a record's fields, an enum's values, ... each file's types, enums and
/// methods, the error codes ...)": every such list reversed.
#[test]
fn every_ordered_list_reversed_is_order_changed_only() {
    sweep(Class::Ordered, |_| Perm::Reverse, &[]);
}

/// "a method's optional parameters" (order-changed) and the required ones that swap places
/// (`param-order-changed`, "wire: ok"): every method's parameters reversed and
/// rotated by one, each method alone (together, one method's reported reorder hides another's
/// unreported one).
#[test]
fn every_method_parameter_list_in_another_order_is_reported_as_a_reorder() {
    let failures: Vec<String> = spec()
        .lists
        .iter()
        .filter(|l| l.class == Class::Params)
        .flat_map(|l| {
            [Perm::Reverse, Perm::Rotate(1)]
                .into_iter()
                .filter_map(move |p| judge(l, p).err())
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} reorders of a method's parameters break the property:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// spec/README.md: "The generated code follows the order in which fields, parameters, enum
/// values, types and methods are written (`spec-diff` reports a reorder as `order-changed`)";
/// docs/reviewing-spec-changes.md: spec-diff "ends with the diff of the generated code" and a
/// reorder is `order-changed`. The required parameter `bidId` written after the optional `rpp`
/// and `page` (neither group's own order changes) moves generated code and the OpenAPI export.
#[test]
fn a_required_parameter_written_after_the_optional_ones_is_reported() {
    let params = spec()
        .lists
        .iter()
        .find(|l| show_path(&l.path) == "methods.pay/getTimesheetsForBid.params")
        .expect("pay/getTimesheetsForBid has parameters");
    judge(params, Perm::Rotate(1)).unwrap_or_else(|e| panic!("{e}"));
}

const OAUTH_ENDPOINTS: &str = "oauth.endpoints";

/// "nor do the OAuth endpoints (the client follows the flow: request token, authorize, access
/// token, revoke); writing them in another order is no change" (docs/reviewing-spec-changes.md).
#[test]
fn oauth_endpoints_in_another_order_are_no_change() {
    let endpoints = spec()
        .lists
        .iter()
        .find(|l| show_path(&l.path) == OAUTH_ENDPOINTS)
        .expect("the spec has OAuth endpoints");
    judge(endpoints, Perm::Reverse).unwrap_or_else(|e| panic!("{e}"));
}
