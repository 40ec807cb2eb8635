//! `param-default-changed`: A parameter's default changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-default-changed",
    summary: "A parameter's default changed.",
};

/// Old apps that leave it out now get the new default: a change of behaviour, not a break.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |_, o, _, n| o.default != n.default,
        |_, _, _, _| (Surface::Request, false),
        |o, n| {
            format!(
                "default {} -> {}",
                words::option(o.default),
                words::option(n.default)
            )
        },
    );
}
