//! `type-added`: A type or enum was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "type-added",
    summary: "A type or enum was added.",
};

pub fn check(cx: &mut Context<'_>) {
    let (base, head) = (cx.base.api, cx.head.api);
    let known = |name: &String| cx.renames.values().any(|n| n == name);
    let records: Vec<_> = head
        .records
        .iter()
        .filter(|r| !base.records.iter().any(|b| b.name == r.name) && !known(&r.name))
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
        .filter(|e| !base.enums.iter().any(|b| b.name == e.name) && !known(&e.name))
        .map(|e| (Context::enum_place(e), format!("enum {} was added", e.name)))
        .collect();
    for (place, message) in records.into_iter().chain(enums) {
        cx.push(
            RULE.id,
            Surface::None,
            false,
            &[],
            None,
            Some(place),
            message,
        );
    }
}
