//! `param-became-optional`: A required parameter became optional.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-became-optional",
    summary: "A required parameter became optional.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |om, o, nm, n| super::required(om, o) && !super::required(nm, n),
        |_, _, _, _| (Surface::Request, false),
        |_, _| "became optional (a setter)".to_owned(),
    );
}
