//! `method-renamed`: A data method's path changed (same response and parameters).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-renamed",
    summary: "A data method's path changed (same response and parameters).",
};

/// Old apps call the old path, which the new server no longer serves.
pub fn check(cx: &mut Context<'_>) {
    let renamed: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.renamed)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in renamed {
        let claims = cx.method_claims(old);
        let rust = if old.rust_name == new.rust_name {
            format!("Session::{} kept", new.rust_name)
        } else {
            format!("Session::{} -> Session::{}", old.rust_name, new.rust_name)
        };
        let wire = (old.path != new.path).then(|| super::unserved_witness(old, Some(&new.path)));
        cx.push(
            RULE.id,
            Surface::Request,
            wire,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{} became {} (path {} -> {}; {rust})",
                old.name, new.name, old.path, new.path
            ),
        );
    }
}
