//! `method-rust-name-changed`: A data method's Rust name changed; the wire is unchanged.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-rust-name-changed",
    summary: "A data method's Rust name changed; the wire is unchanged.",
};

pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| !p.renamed && p.old.rust_name != p.new.rust_name)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let claims = cx.method_claims(old);
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "Session::{} became Session::{}",
                old.rust_name, new.rust_name
            ),
        );
    }
}
