//! `paging-changed`: How a method pages changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "paging-changed",
    summary: "How a method pages changed.",
};

/// The paging simulation walks an old app's stream against the new server's pages (its
/// items and page count read from the fields the old crate reads them from; an old app of a
/// method that did not page reads the one answer it asks for). The page's getters
/// (`Page::items`, `Page::total_pages`) of the old crate that now return another field are a
/// change of meaning the identity map finds.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.old.paging != p.new.paging)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let wire = cx.paging_witness(old, new);
        let mut claims: Vec<Claim> = cx
            .method_claims(old)
            .into_iter()
            .filter_map(|claim| match claim {
                Claim::Type(ty) => Some(Claim::Item(format!("impl PagedMethod for {ty}"))),
                _ => None,
            })
            .collect();
        claims.push(Claim::Item(format!("impl Page for {}", old.response)));
        cx.push(
            RULE.id,
            Surface::Paging,
            wire,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{}: {} -> {}",
                new.name,
                words::paging(old.paging.as_ref()),
                words::paging(new.paging.as_ref())
            ),
        );
    }
}
