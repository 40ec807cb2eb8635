//! `doc-changed`: Only documentation changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "doc-changed",
    summary: "Only documentation changed.",
};

/// Every spec key that only documents: module, service, OAuth and endpoint docs, error docs
/// and the methods that return them, enum, value, type, field, method and parameter docs, the names the
/// reference uses (`documented_as` of a type, `documented_type` of a field), and the evidence
/// for a type narrower than the reference's (`narrowed` of a field or a parameter).
pub fn check(cx: &mut Context<'_>) {
    let (base, head) = (cx.base.api, cx.head.api);
    let mut head_files = std::collections::HashMap::new();
    for (index, file) in head.files.iter().enumerate() {
        head_files
            .entry(file.path.as_str())
            .or_insert((index, file));
    }
    for (index, old) in base.files.iter().enumerate() {
        if let Some(&(new_index, new)) = head_files.get(old.path.as_str()) {
            let (a, b) = (
                old.doc.clone().unwrap_or_default(),
                new.doc.clone().unwrap_or_default(),
            );
            cx.doc(
                &format!("module {}", old.module),
                &a,
                &b,
                (index, vec!["doc"]),
                (new_index, vec!["doc"]),
            );
        }
    }
    if let (Some(old), Some(new)) = (&base.info, &head.info) {
        cx.doc(
            "service name",
            &old.name,
            &new.name,
            (old.file, vec!["api", "name"]),
            (new.file, vec!["api", "name"]),
        );
        cx.doc(
            "service",
            &old.doc,
            &new.doc,
            (old.file, vec!["api", "doc"]),
            (new.file, vec!["api", "doc"]),
        );
    }
    if let (Some(old), Some(new)) = (&base.oauth, &head.oauth) {
        cx.doc(
            "OAuth",
            &old.doc,
            &new.doc,
            (old.file, vec!["oauth", "doc"]),
            (new.file, vec!["oauth", "doc"]),
        );
        for a in &old.endpoints {
            if let Some(b) = new.endpoints.iter().find(|e| e.name == a.name) {
                cx.doc(
                    &format!("{} endpoint", a.name),
                    &a.doc,
                    &b.doc,
                    (old.file, vec!["oauth", "endpoints", a.name.as_str()]),
                    (new.file, vec!["oauth", "endpoints", b.name.as_str()]),
                );
            }
        }
    }
    for old in &base.errors {
        let Some(new) = cx.head_lookup.error_named(&old.code) else {
            continue;
        };
        let (o, n) = (
            (old.file, vec!["errors", old.code.as_str()]),
            (new.file, vec!["errors", new.code.as_str()]),
        );
        cx.doc(&old.code, &old.doc, &new.doc, o.clone(), n.clone());
        // The methods that return a code only document it (the old crate decodes every code
        // from every method); a list shows what was added and removed.
        if old.methods != new.methods {
            let names = |e: &crate::ir::ErrorCode| -> Option<Vec<String>> {
                e.methods
                    .as_ref()
                    .map(|m| m.iter().map(|id| id.as_str().to_owned()).collect())
            };
            let change = match (names(old), names(new)) {
                (Some(a), Some(b)) => words::set_change(&a, &b),
                (a, b) => {
                    let words = |m: Option<Vec<String>>| {
                        m.map_or("every method".to_owned(), |m| words::list(&m))
                    };
                    format!("{} -> {}", words(a), words(b))
                }
            };
            cx.push(
                RULE.id,
                Surface::None,
                None,
                &[],
                Some(o),
                Some(n),
                format!("{} is returned by: {change}", old.code),
            );
        }
    }
    for (old, new) in cx.enums.clone() {
        cx.doc(
            &format!("enum {}", new.name),
            &old.doc,
            &new.doc,
            Context::enum_place(old),
            Context::enum_place(new),
        );
        let mut values = std::collections::HashMap::new();
        for value in &new.values {
            values
                .entry((value.wire.as_str(), value.variant.as_str()))
                .or_insert(value);
        }
        for a in &old.values {
            if let Some(b) = values.get(&(a.wire.as_str(), a.variant.as_str())) {
                cx.doc(
                    &format!("{}::{}", new.name, b.variant),
                    &a.doc,
                    &b.doc,
                    (
                        old.file,
                        vec!["enums", old.name.as_str(), "values", a.wire.as_str()],
                    ),
                    (
                        new.file,
                        vec!["enums", new.name.as_str(), "values", b.wire.as_str()],
                    ),
                );
            }
        }
    }
    for (old, new) in cx.records.clone() {
        let (o, n) = (Context::record_place(old), Context::record_place(new));
        cx.doc(
            &format!("type {}", new.name),
            &old.doc,
            &new.doc,
            o.clone(),
            n.clone(),
        );
        let documented = |r: &crate::ir::Record| words::option(r.documented_as.as_ref());
        cx.doc(
            &format!("type {}'s name in the reference", new.name),
            &documented(old),
            &documented(new),
            o,
            n,
        );
        let (pairs, _, _) = cx.fields(old, new);
        for pair in pairs {
            let (o, n) = (
                Context::field_place(old, pair.old),
                Context::field_place(new, pair.new),
            );
            let name = format!("{}.{}", new.name, pair.new.rust_name);
            cx.doc(&name, &pair.old.doc, &pair.new.doc, o.clone(), n.clone());
            let ty = |f: &Field| words::option(f.documented_type.as_ref());
            cx.doc(
                &format!("{name}'s type in the reference"),
                &ty(pair.old),
                &ty(pair.new),
                o.clone(),
                n.clone(),
            );
            let narrowed = |f: &Field| words::option(f.narrowed.as_ref());
            cx.doc(
                &format!("{name}'s evidence for a type narrower than the reference"),
                &narrowed(pair.old),
                &narrowed(pair.new),
                o,
                n,
            );
        }
    }
    let methods: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old, new) in methods {
        cx.doc(
            &new.name,
            &old.doc,
            &new.doc,
            Context::method_place(old),
            Context::method_place(new),
        );
        let new_params = super::params_by_wire(new);
        for a in &old.params {
            if let Some(&b) = new_params.get(a.wire_name.as_str()) {
                let subject = format!("{}: parameter {}", new.name, b.wire_name);
                let (o, n) = (super::param_place(old, a), super::param_place(new, b));
                cx.doc(&subject, &a.doc, &b.doc, o.clone(), n.clone());
                let narrowed = |p: &Param| words::option(p.narrowed.as_ref());
                cx.doc(
                    &format!("{subject}'s evidence for a type narrower than the reference"),
                    &narrowed(a),
                    &narrowed(b),
                    o,
                    n,
                );
            }
        }
    }
}
