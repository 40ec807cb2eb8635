//! `param-became-optional`: A required parameter became optional.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-became-optional",
    summary: "A required parameter became optional.",
};

/// Old apps always send it, which the new server still reads.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| super::required(p.old_method, p.old) && !super::required(p.new_method, p.new),
        |_, _| (Surface::Request, None),
        |_, _| "became optional (a setter)".to_owned(),
    );
}
