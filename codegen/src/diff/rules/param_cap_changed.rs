//! `param-cap-changed`: A parameter's documented bounds (min or cap) changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-cap-changed",
    summary: "A parameter's documented bounds (min or cap) changed.",
};

/// The new server refuses values below its minimum and answers values above its cap with the
/// cap; for a page size, the paging model says whether an old app's stream still gets every
/// item. The crate checks both bounds before sending, so bounds that refuse a value the old
/// crate sent are semver-major though every call compiles: an app that upgrades gets an
/// error where it got an answer.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |_, o, _, n| o.min != n.min || o.max != n.max,
        |om, o, nm, n| {
            let pages_by = |m: &Method| {
                m.paging
                    .as_ref()
                    .is_some_and(|p| p.size_param == o.wire_name)
            };
            let (surface, wire) = if pages_by(om) && wire::param_accepts(o, n) {
                (Surface::Paging, !paging::old_stream_gets_every_item(om, nm))
            } else {
                (Surface::Request, !wire::param_accepts(o, n))
            };
            super::ParamVerdict {
                surface,
                wire,
                meaning: refuses_more(o, n),
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
                if new > old {
                    message.push_str(&format!(
                        " (the new crate refuses {old} to {} before sending)",
                        new - 1
                    ));
                }
            }
            message
        },
    );
}

/// Whether the new bounds refuse a value the old ones allowed: a higher minimum or a lower
/// maximum (a bound where there was none included).
fn refuses_more(old: &Param, new: &Param) -> bool {
    let raised = match (old.min, new.min) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(o), Some(n)) => n > o,
    };
    let lowered = match (old.max, new.max) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(o), Some(n)) => n < o,
    };
    raised || lowered
}
