//! `paging-changed`: How a method pages changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "paging-changed",
    summary: "How a method pages changed.",
};

/// The paging model walks an old app's stream against the new server's pages.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.old.paging != p.new.paging)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let wire = !paging::old_stream_gets_every_item(old, new);
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
