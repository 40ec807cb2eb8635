//! `enum-value-respelled`: An enum value's wire spelling changed; its Rust variant is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-value-respelled",
    summary: "An enum value's wire spelling changed; its Rust variant is kept.",
};

/// Callers still compile; on the wire an old open enum sees the new spelling as `Other`, an old
/// closed one refuses it.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        let (old_values, new_values) = (super::Values::of(old), super::Values::of(new));
        for value in &old.values {
            let Some(respelled) = new_values.respelled(value) else {
                continue;
            };
            let wire = !old.open && !old_values.wires.contains(respelled.wire.as_str());
            let seen = if wire {
                "the old closed enum refuses it".to_owned()
            } else {
                format!(
                    "old apps decode it as {}::Other(\"{}\"), not {}::{}",
                    old.name, respelled.wire, old.name, value.variant
                )
            };
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[Claim::Item(format!("{}::{}", old.name, value.variant))],
                Some((
                    old.file,
                    vec!["enums", old.name.as_str(), "values", value.wire.as_str()],
                )),
                Some((
                    new.file,
                    vec![
                        "enums",
                        new.name.as_str(),
                        "values",
                        respelled.wire.as_str(),
                    ],
                )),
                format!(
                    "{}::{} is now sent as \"{}\" instead of \"{}\"; {seen}",
                    new.name, value.variant, respelled.wire, value.wire
                ),
            );
        }
    }
}
