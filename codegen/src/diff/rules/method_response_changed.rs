//! `method-response-changed`: A data method now responds with another type.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-response-changed",
    summary: "A data method now responds with another type.",
};

/// The wire verdict: an answer of the new response that the old response type misreads
/// (refuses, or reads a value at another path than the server means it, or loses one).
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
        let wire = cx.response_witness(old, new);
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
