//! `param-default-changed`: A parameter's default changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-default-changed",
    summary: "A parameter's default changed.",
};

/// Old apps that leave it out now get the new default: a change of behaviour, not a break.
/// The default of a page parameter is where streams start: when that moves, the change is
/// `paging-first-page-changed`'s, judged by the paging model.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |om, o, nm, n| {
            let pages_by = |m: &Method| {
                m.paging
                    .as_ref()
                    .is_some_and(|p| p.page_param == o.wire_name)
            };
            let first_page_moved =
                pages_by(om) && pages_by(nm) && paging::first_page(om) != paging::first_page(nm);
            o.default != n.default && !first_page_moved
        },
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
