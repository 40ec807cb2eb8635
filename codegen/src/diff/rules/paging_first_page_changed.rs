//! `paging-first-page-changed`: The page a paged method's stream starts at changed.

use super::prelude::*;
use crate::diff::paging;

pub const RULE: Rule = Rule {
    id: "paging-first-page-changed",
    summary: "The page a paged method's stream starts at changed (the page parameter's default or minimum).",
};

/// The first page is the page parameter's default, else its minimum, else 1
/// ([`crate::ir::first_page`]): the old crate starts its streams there, and the new server
/// numbers its pages from the new one. The paging simulation walks an old app's stream against
/// the new server: starting past the new first page loses the pages before it, starting below
/// the new minimum is refused.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.old.paging.is_some() && p.new.paging.is_some())
        .filter(|p| paging::first_page(p.old) != paging::first_page(p.new))
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let wire = cx.paging_witness(old, new);
        let (from, to) = (paging::first_page(old), paging::first_page(new));
        let effect = if wire.is_some() {
            if from > to {
                let skipped = if from - to == 1 {
                    format!("page {to}")
                } else {
                    format!("pages {to} to {}", from - 1)
                };
                format!(
                    "old apps' streams start at page {from} and miss the items of {skipped}, the \
                     first the server sends; the pages after it come as before"
                )
            } else {
                format!("old apps' streams ask for page {from}, which the new server refuses")
            }
        } else {
            "old apps' streams still get every item".to_owned()
        };
        cx.push(
            RULE.id,
            Surface::Paging,
            wire,
            &[],
            Some(place(old)),
            Some(place(new)),
            format!(
                "{}: streams start at page {from} -> {to}: {effect}",
                new.name
            ),
        );
    }
}

/// The page parameter's place, else the method's.
fn place(method: &Method) -> crate::diff::context::Place<'_> {
    let page = method.paging.as_ref().and_then(|paging| {
        method
            .params
            .iter()
            .find(|p| p.wire_name == paging.page_param)
    });
    match page {
        Some(param) => super::param_place(method, param),
        None => Context::method_place(method),
    }
}
