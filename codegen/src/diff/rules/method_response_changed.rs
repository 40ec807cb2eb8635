//! `method-response-changed`: A data method now responds with another type.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-response-changed",
    summary: "A data method now responds with another type.",
};

/// The wire verdict: whether the old response type decodes every document the new server sends.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| {
            let old = p.old.response.as_str();
            cx.renames.get(old).map_or(old, String::as_str) != p.new.response.as_str()
        })
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let wire = cx.response_breaks(old, new);
        let claims = cx.method_claims(old);
        cx.push(
            RULE.id,
            Surface::Response,
            wire,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{} now responds with {} instead of {}",
                new.name, new.response, old.response
            ),
        );
    }
}
