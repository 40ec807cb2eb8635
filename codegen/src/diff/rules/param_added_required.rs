//! `param-added-required`: A required parameter was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-added-required",
    summary: "A required parameter was added.",
};

pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let old_params = super::params_by_wire(old_method);
        let renamed = super::WireRenames::of(old_method, new_method);
        for new in &new_method.params {
            if old_params.contains_key(new.wire_name.as_str())
                || renamed.renamed_to(new)
                || !super::required(new_method, new)
            {
                continue;
            }
            let claims = cx.param_claims(old_method, &new.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                true,
                &claims,
                None,
                Some(super::param_place(new_method, new)),
                format!(
                    "{}: parameter {} was added ({})",
                    new_method.name, new.wire_name, "old apps do not send it"
                ),
            );
        }
    }
}
