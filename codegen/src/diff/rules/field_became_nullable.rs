//! `field-became-nullable`: A response field may now be null.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-nullable",
    summary: "A response field may now be null.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_fields(
        cx,
        RULE.id,
        super::became_nullable,
        |sent, new| {
            sent.presence = new.presence.clone();
            sent.nullable = new.nullable;
            sent.zero_is_none = new.zero_is_none;
        },
        |p| {
            format!(
                "{}.{}: {} -> {}",
                p.new_record.name,
                p.new.rust_name,
                words::presence(p.old),
                words::presence(p.new)
            )
        },
    );
}
