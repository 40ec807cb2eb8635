//! `field-type-widened`: A response field's type was widened (e.g. integer to decimal).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-type-widened",
    summary: "A response field's type was widened (e.g. integer to decimal).",
};

/// The wire verdict comes from the model, not the direction: a narrower type can still be sent
/// in a form the old decoder refuses (an integer as a JSON number to a `String` field).
pub fn check(cx: &mut Context<'_>) {
    super::check_type_change(cx, RULE.id, super::TypeChange::Widened);
}
