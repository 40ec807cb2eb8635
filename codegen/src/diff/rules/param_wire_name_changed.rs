//! `param-wire-name-changed`: A parameter's wire name changed, its Rust name kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-wire-name-changed",
    summary: "A parameter's wire name changed, its Rust name (setter or argument) kept.",
};

/// Old apps call the same setter and send the value under the old name, which the new server
/// does not know (it leaves it out of the signature it computes and refuses the call), or
/// reads as another parameter (two parameters
/// that swap names, one renamed onto a name another freed); a required one is then missing.
/// The Rust model judges the setter and constructors (unchanged unless the type changed too,
/// which `param-type-changed` reports); the identity map, a setter that now sends what
/// another one sent.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let counterparts = crate::diff::pairing::params(old_method, new_method);
        for (old, new) in old_method.params.iter().zip(counterparts) {
            let Some(new) = new else {
                continue;
            };
            if old.wire_name == new.wire_name {
                continue;
            }
            let (from, to) = (
                super::index_of(old_method, old),
                super::index_of(new_method, new),
            );
            let wire = cx.request_witness(old_method, new_method, |r| match r {
                Reading::Ignored(i) | Reading::Elsewhere(i, _) => *i == from,
                Reading::Missing(i) => *i == to,
                _ => false,
            });
            let effect = match &wire {
                Some(Witness::Request { finding, .. }) => finding.clone(),
                _ => format!("old apps still send {}", old.wire_name),
            };
            let claims = cx.param_claims(old_method, &old.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                wire,
                &claims,
                Some(super::param_place(old_method, old)),
                Some(super::param_place(new_method, new)),
                format!(
                    "{}: parameter {} is sent as {} (the Rust name {} is kept; {effect})",
                    new_method.name, old.wire_name, new.wire_name, new.rust_name
                ),
            );
        }
    }
}
