//! `field-became-nullable`: A response field may now be null.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-became-nullable",
    summary: "A response field may now be null.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_presence(cx, RULE.id, super::became_nullable, "");
}
