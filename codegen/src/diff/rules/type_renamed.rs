//! `type-renamed`: A type or enum was renamed (same fields or values).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "type-renamed",
    summary: "A type or enum was renamed (same fields or values).",
};

pub fn check(cx: &mut Context<'_>) {
    let records: Vec<_> = cx
        .records
        .iter()
        .filter(|(old, new)| old.name != new.name)
        .map(|(old, new)| {
            (
                "type",
                &old.name,
                &new.name,
                Context::record_place(old),
                Context::record_place(new),
            )
        })
        .collect();
    let enums: Vec<_> = cx
        .enums
        .iter()
        .filter(|(old, new)| old.name != new.name)
        .map(|(old, new)| {
            (
                "enum",
                &old.name,
                &new.name,
                Context::enum_place(old),
                Context::enum_place(new),
            )
        })
        .collect();
    for (kind, old_name, new_name, old, new) in records.into_iter().chain(enums) {
        let message = format!("{kind} {old_name} was renamed {new_name}");
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[Claim::Type(old_name.clone())],
            Some(old),
            Some(new),
            message,
        );
    }
}
