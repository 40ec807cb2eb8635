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
        |om, o, nm, n| !super::required(om, o) && super::required(nm, n),
        |_, _, _, _| (Surface::Request, true),
        |_, _| "became required (a constructor argument)".to_owned(),
    );
}
