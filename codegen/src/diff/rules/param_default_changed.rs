//! `param-default-changed`: A parameter's default changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-default-changed",
    summary: "A parameter's default changed.",
};

/// Old apps that leave it out now get the new default: the same call asks for something else.
/// For the page and size parameters of a paged method, the paging simulation says whether an
/// old app's stream still gets every item (a moved first page is
/// `paging-first-page-changed`'s).
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| {
            let first_page_moved = |m: &Method| {
                m.paging
                    .as_ref()
                    .is_some_and(|paging| paging.page_param == p.old.wire_name)
            };
            let moved = first_page_moved(p.old_method)
                && first_page_moved(p.new_method)
                && crate::diff::paging::first_page(p.old_method)
                    != crate::diff::paging::first_page(p.new_method);
            p.old.default != p.new.default && !moved
        },
        |cx, p| {
            if super::pages_by(p.old_method, p.old) && super::pages_by(p.new_method, p.new) {
                (
                    Surface::Paging,
                    cx.paging_witness(p.old_method, p.new_method),
                )
            } else {
                let at = super::index_of(p.new_method, p.new);
                let wire =
                    cx.request_witness(p.old_method, p.new_method, |r| *r == Reading::Default(at));
                (Surface::Request, wire)
            }
        },
        |o, n| {
            format!(
                "default {} -> {}",
                words::option(o.default),
                words::option(n.default)
            )
        },
    );
}
