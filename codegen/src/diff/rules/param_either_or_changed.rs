//! `param-either-or-changed`: The set of parameters of which one must be sent changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-either-or-changed",
    summary: "The set of parameters of which one must be sent changed.",
};

/// Old apps send one of the old alternatives; the new server needs one of the new ones (or
/// requires a former alternative).
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.old.at_least_one_of != p.new.at_least_one_of)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let alternatives: Vec<usize> = new
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| old.at_least_one_of.iter().any(|a| *a == p.wire_name))
            .map(|(i, _)| i)
            .collect();
        let wire = cx.request_witness(old, new, |r| match r {
            Reading::NoAlternative => true,
            Reading::Missing(i) => alternatives.contains(i),
            _ => false,
        });
        let claims = cx.method_claims(old);
        cx.push(
            RULE.id,
            Surface::Request,
            wire,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{}: at least one of {} -> at least one of {}",
                new.name,
                words::list(&old.at_least_one_of),
                words::list(&new.at_least_one_of)
            ),
        );
    }
}
