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
            super::ParamVerdict {
                surface: Surface::Request,
                wire,
                meaning: zero_refused(p),
            }
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

/// The witness of a count (or integer) that became an ID, both `u64` in Rust: the new crate
/// refuses `0` before sending (the service uses `0` for no ID), which the old crate sent.
fn zero_refused(p: &super::ParamPair<'_>) -> Option<Witness> {
    use crate::ir::ParamType;
    let allowed_zero = p.old.min.is_none_or(|min| min <= 0) && p.old.max.is_none_or(|max| max >= 0);
    let became_id =
        p.new.ty == ParamType::Id && matches!(p.old.ty, ParamType::Count | ParamType::Integer);
    (became_id && allowed_zero).then(|| {
        let item = if super::required(p.old_method, p.old) {
            format!("Session::{}()", p.old_method.rust_name)
        } else {
            format!(
                "Request < {} >::{}()",
                crate::naming::request_type_name(p.old_method),
                p.old.rust_name
            )
        };
        Witness::Meaning {
            item,
            finding: format!(
                "{} = 0, which the old crate sent, is refused by the new crate before sending (an \
                 ID is never 0): an unchanged caller gets an error where it got an answer",
                p.old.rust_name
            ),
        }
    })
}
