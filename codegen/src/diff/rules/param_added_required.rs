//! `param-added-required`: A required parameter was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-added-required",
    summary: "A required parameter was added.",
};

/// Old apps do not send it; the new server refuses their calls.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let (_, added) = super::unpaired(old_method, new_method);
        for new in added {
            if !super::required(new_method, new) {
                continue;
            }
            let at = super::index_of(new_method, new);
            let wire = cx.request_witness(old_method, new_method, |r| *r == Reading::Missing(at));
            let claims = cx.param_claims(old_method, &new.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                wire,
                &claims,
                None,
                Some(super::param_place(new_method, new)),
                format!(
                    "{}: parameter {} was added{}",
                    new_method.name,
                    new.wire_name,
                    super::notes(
                        std::iter::once("old apps do not send it")
                            .chain(super::rename_hint(old_method, new_method, new).as_deref())
                    )
                ),
            );
        }
    }
}
