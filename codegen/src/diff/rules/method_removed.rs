//! `method-removed`: A data method was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-removed",
    summary: "A data method was removed.",
};

/// Old apps call a path the new server no longer serves.
pub fn check(cx: &mut Context<'_>) {
    for old in cx.removed_methods.clone() {
        let claims = cx.method_claims(old);
        cx.push(
            RULE.id,
            Surface::Request,
            Some(super::unserved_witness(old, None)),
            &claims,
            Some(Context::method_place(old)),
            None,
            format!("{} was removed (Session::{})", old.name, old.rust_name),
        );
    }
}
