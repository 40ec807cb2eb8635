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
            let (old_rust, new_rust) = (
                crate::rust_type::param_type(o).to_string(),
                crate::rust_type::param_type(n).to_string(),
            );
            let rust = if old_rust == new_rust {
                format!("{new_rust} in Rust either way")
            } else {
                format!("{old_rust} -> {new_rust} in Rust")
            };
            format!("{} -> {} ({rust})", o.ty.spec_name(), n.ty.spec_name())
        },
    );
}
