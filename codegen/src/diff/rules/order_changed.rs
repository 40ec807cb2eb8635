//! `order-changed`: Items both sides declare, in another order or another file.

use super::prelude::*;
use crate::diff::context::Place;
use crate::emit::method::constructor_args;

pub const RULE: Rule = Rule {
    id: "order-changed",
    summary: "Items both sides declare (fields, parameters, enum values, types, methods, error \
              codes) came in another order or another file.",
};

/// The generated code follows the spec's order: a record's fields are its struct's fields (so
/// its `Debug` output and the key order it serializes), an enum's values its variants, a
/// method's parameters its request's fields, setters, query and export (a required one among
/// the optional ones moves all of these, not the constructor), each spec file's types and
/// methods a module's items, the error codes `ErrorCode`'s variants. A reorder moves that code
/// and nothing else: every item is named, on the wire and in Rust (the order of the required
/// parameters, a constructor's positional arguments, is `param-order-changed`'s). Reported so
/// that the generated code's diff is never left unexplained. The lists the spec writes as sets
/// (`absent_in`, `at_least_one_of`, an error's `methods`, a per-method `encoding`) have no
/// order: the IR sorts them; nor do the OAuth endpoints, which the IR holds in the flow's
/// order (request token, authorize, access token, revoke) however the spec writes them.
pub fn check<'a>(cx: &mut Context<'a>) {
    let (base, head) = (cx.base.api, cx.head.api);
    // Each named by its wire name and its Rust name.
    let fields = |r: &crate::ir::Record| -> Vec<(String, String)> {
        r.fields
            .iter()
            .map(|f| (f.wire_name.clone(), f.rust_name.clone()))
            .collect()
    };
    let values = |e: &crate::ir::Enum| -> Vec<(String, String)> {
        e.values
            .iter()
            .map(|v| (v.wire.clone(), v.variant.clone()))
            .collect()
    };
    let params = |m: &Method, only_optional: bool| -> Vec<(String, String)> {
        m.params
            .iter()
            .filter(|p| !(only_optional && p.required))
            .map(|p| (p.wire_name.clone(), p.rust_name.clone()))
            .collect()
    };
    let constructor = |m: &Method| -> Vec<String> {
        constructor_args(m)
            .into_iter()
            .map(|p| p.wire_name.clone())
            .collect()
    };
    let mut found: Vec<(Place<'a>, Place<'a>, String)> = Vec::new();
    for (old, new) in cx.records.clone() {
        if let Some(change) = moved_by_both_names(&fields(old), &fields(new)) {
            let (a, b) = (Context::record_place(old), Context::record_place(new));
            found.push((a, b, format!("{}'s fields: {change}", new.name)));
        }
    }
    for (old, new) in cx.enums.clone() {
        if let Some(change) = moved_by_both_names(&values(old), &values(new)) {
            let (a, b) = (Context::enum_place(old), Context::enum_place(new));
            found.push((a, b, format!("{}'s values: {change}", new.name)));
        }
    }
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old, new) in pairs {
        // The optional ones among themselves; else a required one among them, unless the
        // constructor's arguments moved, which is `param-order-changed`'s.
        let change = moved_by_both_names(&params(old, true), &params(new, true))
            .map(|change| format!("{}'s optional parameters: {change}", new.name))
            .or_else(|| {
                reordered(&constructor(old), &constructor(new))
                    .is_none()
                    .then(|| moved_by_both_names(&params(old, false), &params(new, false)))
                    .flatten()
                    .map(|change| format!("{}'s parameters: {change}", new.name))
            });
        if let Some(change) = change {
            let (a, b) = (Context::method_place(old), Context::method_place(new));
            found.push((a, b, change));
        }
    }
    // The items of each spec file, each kind in its order (one moved to another file is
    // reported once, as moved); the error codes in the spec's order. Each
    // change is located at the first item out of place (or the item moved).
    let (base_items, head_items) = (items(base), items(head));
    let mut lists: Vec<&str> = Vec::new();
    for item in &base_items {
        if !lists.contains(&item.list.as_str()) {
            lists.push(&item.list);
        }
    }
    for list in lists {
        let of = |items: &[Item<'_>]| -> Vec<String> {
            items
                .iter()
                .filter(|item| item.list == list)
                .map(|item| item.name.to_owned())
                .collect()
        };
        let (old, new) = (of(&base_items), of(&head_items));
        if let Some(Reorder { first, change }) = reordered(&old, &new) {
            let place = |items: &[Item<'a>]| {
                let item = items
                    .iter()
                    .find(|item| item.list == list && item.name == first);
                item.map_or((0, Vec::new()), |item| item.place.clone())
            };
            found.push((
                place(&base_items),
                place(&head_items),
                format!("{list}: {change}"),
            ));
        }
    }
    for old in &base_items {
        let Some(new) = head_items
            .iter()
            .find(|new| new.kind == old.kind && new.name == old.name)
        else {
            continue;
        };
        if new.file != old.file {
            let message = format!(
                "{} moved to another file: {} -> {}",
                old.name, old.file, new.file
            );
            found.push((old.place.clone(), new.place.clone(), message));
        }
    }
    for (base, head, message) in found {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            Some(base),
            Some(head),
            message,
        );
    }
}

/// One item of a spec's list whose order the generated code follows.
struct Item<'a> {
    /// Which list: the file and the kind, or a list of the whole spec.
    list: String,
    kind: &'static str,
    name: &'a str,
    /// The spec file declaring it.
    file: String,
    place: Place<'a>,
}

/// The types, enums and methods of each file, and the error codes.
fn items(api: &crate::ir::Api) -> Vec<Item<'_>> {
    let file = |index: usize| -> String {
        api.files
            .get(index)
            .map_or_else(String::new, |f| f.path.clone())
    };
    let item = |list: String, kind, name, index: usize, place| Item {
        list,
        kind,
        name,
        file: file(index),
        place,
    };
    let mut items = Vec::new();
    for r in &api.records {
        let list = format!("{} types", file(r.file));
        items.push(item(
            list,
            "type",
            &r.name,
            r.file,
            Context::record_place(r),
        ));
    }
    for e in &api.enums {
        let list = format!("{} enums", file(e.file));
        items.push(item(list, "enum", &e.name, e.file, Context::enum_place(e)));
    }
    for m in &api.methods {
        let list = format!("{} methods", file(m.file));
        items.push(item(
            list,
            "method",
            &m.name,
            m.file,
            Context::method_place(m),
        ));
    }
    for e in &api.errors {
        let place = (e.file, vec!["errors", e.code.as_str()]);
        items.push(item(
            "error codes".to_owned(),
            "error code",
            &e.code,
            e.file,
            place,
        ));
    }
    items
}

fn kept(list: &[String], other: &[String]) -> Vec<String> {
    let other: std::collections::HashSet<&String> = other.iter().collect();
    list.iter()
        .filter(|item| other.contains(item))
        .cloned()
        .collect()
}

/// Items named on the wire and in Rust (the first and second of each pair) that moved by both
/// names, by their wire names: two that swap wire names only (`field-wire-name-changed`) stay
/// in place in the generated code.
fn moved_by_both_names(old: &[(String, String)], new: &[(String, String)]) -> Option<String> {
    let wire = |items: &[(String, String)]| -> Vec<String> {
        items.iter().map(|(wire, _)| wire.clone()).collect()
    };
    let rust = |items: &[(String, String)]| -> Vec<String> {
        items.iter().map(|(_, rust)| rust.clone()).collect()
    };
    reordered(&rust(old), &rust(new))?;
    reordered(&wire(old), &wire(new)).map(|reorder| reorder.change)
}

/// How the items both lists hold moved.
struct Reorder {
    /// The first of them out of place, in `old`'s order: where the change is located.
    first: String,
    /// The span from the first item out of place to the last, in each side's order.
    change: String,
}

/// The items both `old` and `new` hold, when they are in another order.
fn reordered(old: &[String], new: &[String]) -> Option<Reorder> {
    let (old_kept, new_kept) = (kept(old, new), kept(new, old));
    // The span from the first item out of place to the last.
    let first = old_kept.iter().zip(&new_kept).position(|(a, b)| a != b)?;
    let last = old_kept.len()
        - old_kept
            .iter()
            .rev()
            .zip(new_kept.iter().rev())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
    Some(Reorder {
        first: old_kept[first].clone(),
        change: format!(
            "{} -> {}",
            old_kept[first..last].join(", "),
            new_kept[first..last].join(", ")
        ),
    })
}
