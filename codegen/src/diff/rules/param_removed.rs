//! `param-removed`: A parameter was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-removed",
    summary: "A parameter was removed.",
};

/// Old apps still send it; the new server no longer knows it, leaves it out of the signature
/// it computes and refuses the call (or, where another parameter now has its name, that
/// parameter reads it).
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let (removed, _) = super::unpaired(old_method, new_method);
        for old in removed {
            let at = super::index_of(old_method, old);
            let wire = cx.request_witness(
                old_method,
                new_method,
                |r| matches!(r, Reading::Ignored(i) | Reading::Elsewhere(i, _) if *i == at),
            );
            let claims = cx.param_claims(old_method, &old.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                wire,
                &claims,
                Some(super::param_place(old_method, old)),
                None,
                format!(
                    "{}: parameter {} was removed{}",
                    old_method.name,
                    old.wire_name,
                    super::notes(super::rename_hint(old_method, new_method, old).as_deref())
                ),
            );
        }
    }
}
