//! `enum-opened`: An enum now keeps unknown values.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-opened",
    summary: "An enum now keeps unknown values.",
};

/// Opening an enum says the service sends values the spec does not list; an old closed enum
/// refuses them, where an answer carries one (a field of the enum in a record some method
/// delivers).
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        if old.open || !new.open {
            continue;
        }
        let wire = cx.enum_witness(old, new, &format!("Unlisted{}", new.name));
        let effect = if wire.is_some() {
            "the server may send values the old closed enum refuses"
        } else {
            "no answer carries it"
        };
        cx.push(
            RULE.id,
            Surface::Response,
            wire,
            &[Claim::Item(old.name.clone())],
            Some(Context::enum_place(old)),
            Some(Context::enum_place(new)),
            format!("{} now keeps unknown values in Other: {effect}", new.name),
        );
    }
}
