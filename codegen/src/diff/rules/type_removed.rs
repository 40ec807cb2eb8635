//! `type-removed`: A type or enum was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "type-removed",
    summary: "A type or enum was removed.",
};

/// The wire is judged where the references to it changed (fields, responses).
pub fn check(cx: &mut Context<'_>) {
    let base = cx.base.api;
    let gone = |name: &String| !cx.renames.contains_key(name);
    let records: Vec<_> = base
        .records
        .iter()
        .filter(|r| cx.head_lookup.record_named(&r.name).is_none() && gone(&r.name))
        .map(|r| {
            (
                r.name.clone(),
                Context::record_place(r),
                format!("type {} was removed", r.name),
            )
        })
        .collect();
    let enums: Vec<_> = base
        .enums
        .iter()
        .filter(|e| cx.head_lookup.enum_named(&e.name).is_none() && gone(&e.name))
        .map(|e| {
            (
                e.name.clone(),
                Context::enum_place(e),
                format!("enum {} was removed", e.name),
            )
        })
        .collect();
    for (name, place, message) in records.into_iter().chain(enums) {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[Claim::Type(name)],
            Some(place),
            None,
            message,
        );
    }
}
