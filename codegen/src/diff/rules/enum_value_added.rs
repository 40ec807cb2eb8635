//! `enum-value-added`: An enum value was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-value-added",
    summary: "An enum value was added.",
};

/// An old closed enum refuses the new value; an open one keeps it in `Other`.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        let known = super::Values::of(old);
        for value in &new.values {
            if known.has(value) {
                continue;
            }
            let wire = !old.open;
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[Claim::Item(old.name.clone())],
                None,
                Some((
                    new.file,
                    vec!["enums", new.name.as_str(), "values", value.wire.as_str()],
                )),
                format!(
                    "{}::{} (\"{}\") was added{}",
                    new.name,
                    value.variant,
                    value.wire,
                    if wire {
                        "; the old closed enum refuses it"
                    } else {
                        "; old apps see it as Other"
                    }
                ),
            );
        }
    }
}
