//! `param-became-required`: An optional parameter became required.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-became-required",
    summary: "An optional parameter became required.",
};

/// Old apps may leave it out; the new server refuses that.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| !super::required(p.old_method, p.old) && super::required(p.new_method, p.new),
        |cx, p| {
            let at = super::index_of(p.new_method, p.new);
            let wire =
                cx.request_witness(p.old_method, p.new_method, |r| *r == Reading::Missing(at));
            (Surface::Request, wire)
        },
        |_, _| "became required (a constructor argument)".to_owned(),
    );
}
