//! `param-type-changed`: A parameter's type changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-type-changed",
    summary: "A parameter's type changed.",
};

/// The new server refuses a value the old crate writes otherwise than the new type (a day for
/// a number, a number for a day) or that the new type cannot hold (a negative count).
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| p.old.ty != p.new.ty,
        |cx, p| {
            let at = super::index_of(p.old_method, p.old);
            let wire = cx.request_witness(p.old_method, p.new_method, |r| {
                matches!(r, Reading::Refused(i, Refused::Format | Refused::Negative) if *i == at)
            });
            (Surface::Request, wire)
        },
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
