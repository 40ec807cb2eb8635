//! `field-became-optional`: A response field may now be absent (or 0 now means none).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-optional",
    summary: "A response field may now be absent (or 0 now means none).",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_presence(
        cx,
        RULE.id,
        |p| !p.old.is_optional() && p.new.is_optional() && !super::became_nullable(p),
        " (now Option)",
    );
}
