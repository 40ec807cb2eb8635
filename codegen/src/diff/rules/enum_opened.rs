//! `enum-opened`: An enum now keeps unknown values.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-opened",
    summary: "An enum now keeps unknown values.",
};

/// Opening an enum says the service sends values the spec does not list; an old closed enum
/// refuses them.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        if old.open || !new.open {
            continue;
        }
        cx.push(
            RULE.id,
            Surface::Response,
            true,
            &[Claim::Item(old.name.clone())],
            Some(Context::enum_place(old)),
            Some(Context::enum_place(new)),
            format!(
                "{} now keeps unknown values in Other: the server may send values the old closed enum refuses",
                new.name
            ),
        );
    }
}
