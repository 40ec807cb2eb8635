//! `enum-value-respelled`: An enum value's wire spelling changed; its Rust variant is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "enum-value-respelled",
    summary: "An enum value's wire spelling changed; its Rust variant is kept.",
};

/// Callers still compile; on the wire an old open enum reads the new spelling as `Other`
/// where the server means the variant (a value that lands elsewhere: a match on the variant
/// no longer takes it), an old closed one refuses it; where an answer carries it.
pub fn check(cx: &mut Context<'_>) {
    for (old, new) in cx.enums.clone() {
        let (old_values, new_values) = (super::Values::of(old), super::Values::of(new));
        for value in &old.values {
            let Some(respelled) = new_values.respelled(value) else {
                continue;
            };
            let wire = cx.enum_witness(old, new, &respelled.wire);
            let seen = if wire.is_none() {
                "no answer carries it".to_owned()
            } else if old.open || old_values.wires.contains(respelled.wire.as_str()) {
                format!(
                    "old apps decode it as {}::Other(\"{}\"), not {}::{}",
                    old.name, respelled.wire, old.name, value.variant
                )
            } else {
                "the old closed enum refuses it".to_owned()
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
