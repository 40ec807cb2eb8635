//! `type-added`: A type or enum was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "type-added",
    summary: "A type or enum was added.",
};

pub fn check(cx: &mut Context<'_>) {
    let head = cx.head.api;
    let targets: std::collections::HashSet<&String> = cx.renames.values().collect();
    let known = |name: &String| targets.contains(name);
    let records: Vec<_> = head
        .records
        .iter()
        .filter(|r| cx.base_lookup.record_named(&r.name).is_none() && !known(&r.name))
        .map(|r| {
            (
                Context::record_place(r),
                format!("type {} was added", r.name),
            )
        })
        .collect();
    let enums: Vec<_> = head
        .enums
        .iter()
        .filter(|e| cx.base_lookup.enum_named(&e.name).is_none() && !known(&e.name))
        .map(|e| (Context::enum_place(e), format!("enum {} was added", e.name)))
        .collect();
    for (place, message) in records.into_iter().chain(enums) {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            None,
            Some(place),
            message,
        );
    }
}
