//! `field-became-optional`: A response field may now be absent (or 0 now means none).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-optional",
    summary: "A response field may now be absent (or 0 now means none).",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_fields(
        cx,
        RULE.id,
        |p| !p.old.is_optional() && p.new.is_optional() && !super::became_nullable(p),
        |sent, new| {
            sent.presence = new.presence.clone();
            sent.nullable = new.nullable;
            sent.zero_is_none = new.zero_is_none;
        },
        |p| {
            format!(
                "{}.{}: {} -> {} (now Option)",
                p.new_record.name,
                p.new.rust_name,
                words::presence(p.old),
                words::presence(p.new)
            )
        },
    );
}
