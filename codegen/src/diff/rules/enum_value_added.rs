//! `enum-value-added`: An enum value was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-value-added",
    summary: "An enum value was added.",
};

/// An old closed enum refuses the new value; an open one keeps it in `Other`, the place of
/// values it has no variant for, where an app that upgrades no longer finds it.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        let known = super::Values::of(old);
        for value in &new.values {
            if known.has(value) {
                continue;
            }
            let wire = cx.enum_witness(old, new, &value.wire);
            let refused = wire.is_some();
            let open = format!(
                "; old apps see it as Other(\"{wire}\"), apps built against the new crate as \
                 {name}::{variant}: code that looked for it in Other matches the variant instead",
                wire = value.wire,
                name = new.name,
                variant = value.variant
            );
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
                    if refused {
                        "; the old closed enum refuses it"
                    } else if old.open {
                        &open
                    } else {
                        "; no answer carries it"
                    }
                ),
            );
        }
    }
}
