//! `param-added-required`: A required parameter was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-added-required",
    summary: "A required parameter was added.",
};

pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        for new in &new_method.params {
            if old_method
                .params
                .iter()
                .any(|p| p.wire_name == new.wire_name)
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
