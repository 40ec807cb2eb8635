//! `field-presence-changed`: When a response field is present changed; its Rust type did not.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-presence-changed",
    summary: "When a response field is present changed; its Rust type did not.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_presence(
        cx,
        RULE.id,
        |p| {
            p.old.is_optional() == p.new.is_optional()
                && !super::became_nullable(p)
                && (p.old.presence != p.new.presence
                    || p.old.nullable != p.new.nullable
                    || p.old.zero_is_none != p.new.zero_is_none)
        },
        "",
    );
}
