//! `param-removed`: A parameter was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-removed",
    summary: "A parameter was removed.",
};

/// Old apps still send it; the new server no longer reads it, so what it selected is lost.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let new_params = super::params_by_wire(new_method);
        let renamed = super::WireRenames::of(old_method, new_method);
        for old in &old_method.params {
            if new_params.contains_key(old.wire_name.as_str()) || renamed.renamed_from(old) {
                continue;
            }
            let claims = cx.param_claims(old_method, &old.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                true,
                &claims,
                Some(super::param_place(old_method, old)),
                None,
                format!(
                    "{}: parameter {} was removed",
                    old_method.name, old.wire_name
                ),
            );
        }
    }
}
