//! `param-type-changed`: A parameter's type changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-type-changed",
    summary: "A parameter's type changed.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |_, o, _, n| o.ty != n.ty,
        |_, o, _, n| (Surface::Request, !wire::param_accepts(o, n)),
        |o, n| {
            format!(
                "{} -> {}",
                crate::rust_type::param_type(o),
                crate::rust_type::param_type(n)
            )
        },
    );
}
