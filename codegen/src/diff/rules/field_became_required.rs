//! `field-became-required`: A response field is now always present.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-required",
    summary: "A response field is now always present.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_presence(
        cx,
        RULE.id,
        |p| p.old.is_optional() && !p.new.is_optional(),
        " (no longer Option)",
    );
}
