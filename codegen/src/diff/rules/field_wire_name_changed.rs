//! `field-wire-name-changed`: A response field's wire name changed; its Rust name is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-wire-name-changed",
    summary: "A response field's wire name changed; its Rust name is kept.",
};

/// Old decoders read the old wire name and their `documented_as` alias: a new name that is the
/// alias still reaches them.
pub fn check(cx: &mut Context<'_>) {
    super::check_fields(
        cx,
        RULE.id,
        |p| p.old.wire_name != p.new.wire_name,
        |sent, new| sent.wire_name = new.wire_name.clone(),
        |p| {
            let alias = if p.old.documented_as.as_ref() == Some(&p.new.wire_name) {
                " (the old crate's alias for it: old apps read it)"
            } else {
                ""
            };
            format!(
                "{}.{} is now sent as \"{}\" instead of \"{}\"{alias}",
                p.new_record.name, p.new.rust_name, p.new.wire_name, p.old.wire_name
            )
        },
    );
}
