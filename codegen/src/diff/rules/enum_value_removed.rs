//! `enum-value-removed`: An enum value was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-value-removed",
    summary: "An enum value was removed.",
};

/// The new server no longer sends it; old decoders are unaffected.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        let kept = super::Values::of(new);
        for value in &old.values {
            if kept.has(value) {
                continue;
            }
            cx.push(
                RULE.id,
                Surface::Response,
                None,
                &[Claim::Item(format!("{}::{}", old.name, value.variant))],
                Some((
                    old.file,
                    vec!["enums", old.name.as_str(), "values", value.wire.as_str()],
                )),
                None,
                format!(
                    "{}::{} (\"{}\") was removed",
                    old.name, value.variant, value.wire
                ),
            );
        }
    }
}
