//! `enum-closed`: An enum now refuses unknown values.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-closed",
    summary: "An enum now refuses unknown values.",
};

/// The new server sends only the listed values, which old decoders know.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        if !old.open || new.open {
            continue;
        }
        cx.push(
            RULE.id,
            Surface::Response,
            None,
            &[Claim::Item(format!("{}::Other", old.name))],
            Some(Context::enum_place(old)),
            Some(Context::enum_place(new)),
            format!("{} now refuses unknown values (Other removed)", new.name),
        );
    }
}
