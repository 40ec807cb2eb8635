//! `field-type-narrowed`: A response field's type was narrowed (e.g. decimal to integer).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-type-narrowed",
    summary: "A response field's type was narrowed (e.g. decimal to integer).",
};

/// The wire verdict comes from the model, not the direction: a narrower type can still be sent
/// in a form the old decoder refuses (an integer as a JSON number to a `String` field).
pub fn check(cx: &mut Context<'_>) {
    super::check_type_change(cx, RULE.id, super::TypeChange::Narrowed);
}
