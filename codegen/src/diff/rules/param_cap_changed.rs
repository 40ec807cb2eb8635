//! `param-cap-changed`: A parameter's documented bounds (min or cap) changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-cap-changed",
    summary: "A parameter's documented bounds (min or cap) changed.",
};

/// The new server refuses values below its minimum and answers values above its cap with the
/// cap: the request simulation sends the old crate's values at the old bounds. A page size
/// answered with a lower cap is the paging simulation's question (a short page does not end
/// a stream). The crate checks both bounds before sending, so bounds that refuse a value the
/// old crate sent are semver-major though every call compiles: an app that upgrades gets an
/// error where it got an answer.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| p.old.min != p.new.min || p.old.max != p.new.max,
        |cx, p| {
            let at = super::index_of(p.old_method, p.old);
            let size = p
                .old_method
                .paging
                .as_ref()
                .is_some_and(|paging| paging.size_param == p.old.wire_name);
            let refused = cx.request_witness(p.old_method, p.new_method, |r| match r {
                Reading::Refused(i, Refused::BelowMinimum) => *i == at,
                Reading::Capped(i) => *i == at && !size,
                _ => false,
            });
            let (surface, wire) = match refused {
                Some(witness) => (Surface::Request, Some(witness)),
                None if size => (
                    Surface::Paging,
                    cx.paging_witness(p.old_method, p.new_method),
                ),
                None => (Surface::Request, None),
            };
            super::ParamVerdict {
                surface,
                wire,
                meaning: refused_before_sending(p),
            }
        },
        |o, n| {
            let mut message = format!("{} -> {}", words::bounds(o), words::bounds(n));
            if let (Some(old), Some(new)) = (o.max, n.max) {
                if new < old {
                    message.push_str(&format!(
                        " (the new crate refuses {} to {old} before sending, which an upgrading \
                         app meets at run time; the server answers them with {new})",
                        new + 1
                    ));
                }
            }
            if let (Some(old), Some(new)) = (o.min, n.min) {
                if new > old + 1 {
                    message.push_str(&format!(
                        " (the new crate refuses {old} to {} before sending)",
                        new - 1
                    ));
                } else if new > old {
                    message.push_str(&format!(" (the new crate refuses {old} before sending)"));
                }
            }
            message
        },
    );
}

/// The witness of a value the old crate sent that the new one refuses before sending: one
/// below a higher minimum or above a lower maximum (a bound where there was none included).
fn refused_before_sending(p: &super::ParamPair<'_>) -> Option<Witness> {
    let (old, new) = (p.old, p.new);
    let floor = match old.ty {
        crate::ir::ParamType::Integer => i64::MIN,
        _ => 0,
    };
    let value = match (old.min, new.min) {
        (o, Some(n)) if o.unwrap_or(floor) < n => Some(n - 1),
        _ => None,
    }
    .or(match (old.max, new.max) {
        (o, Some(n)) if o.is_none_or(|o| o > n) => Some(n + 1),
        _ => None,
    })?;
    let (setter, call) = if super::required(p.old_method, old) {
        (
            format!("Session::{}()", p.old_method.rust_name),
            format!("the argument {} = {value}", old.rust_name),
        )
    } else {
        (
            format!(
                "Request < {} >::{}()",
                crate::naming::request_type_name(p.old_method),
                old.rust_name
            ),
            format!(".{}({value})", old.rust_name),
        )
    };
    Some(Witness::Meaning {
        item: setter,
        finding: format!(
            "{call}, which the old crate sent, is refused by the new crate before sending \
             ({}): an unchanged caller gets an error where it got an answer",
            words::bounds(new)
        ),
    })
}
