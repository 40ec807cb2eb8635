//! `field-became-required`: A response field is now always present.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-required",
    summary: "A response field is now always present.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_fields(
        cx,
        RULE.id,
        |p| p.old.is_optional() && !p.new.is_optional(),
        |sent, new| {
            sent.presence = new.presence.clone();
            sent.nullable = new.nullable;
            sent.zero_is_none = new.zero_is_none;
        },
        |p| {
            format!(
                "{}.{}: {} -> {} (no longer Option)",
                p.new_record.name,
                p.new.rust_name,
                words::presence(p.old),
                words::presence(p.new)
            )
        },
    );
}
