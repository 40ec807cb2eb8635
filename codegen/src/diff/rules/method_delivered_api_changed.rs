//! `method-delivered-api-changed`: The envelope's `api` a data method delivers changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-delivered-api-changed",
    summary: "The envelope's `api` a data method delivers changed.",
};

/// The client keeps the envelope's `api` without checking it, so nothing breaks.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        // A renamed method delivers its own name by default: part of the rename.
        .filter(|p| {
            p.old.delivered_api != p.new.delivered_api
                && !(p.old.delivered_api == p.old.name && p.new.delivered_api == p.new.name)
        })
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{}: the envelope's api {} -> {} (kept, not checked)",
                new.name, old.delivered_api, new.delivered_api
            ),
        );
    }
}
