//! `param-wire-name-changed`: A parameter's wire name changed, its Rust name kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-wire-name-changed",
    summary: "A parameter's wire name changed, its Rust name (setter or argument) kept.",
};

/// Old apps call the same setter and send the value under the old name, which the new server
/// does not read: what it selected is lost. The Rust model judges the setter and constructors
/// (unchanged unless the type changed too, which `param-type-changed` reports).
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        for (old, new) in super::WireRenames::of(old_method, new_method).pairs {
            let claims = cx.param_claims(old_method, &old.rust_name);
            cx.push(
                RULE.id,
                Surface::Request,
                true,
                &claims,
                Some(super::param_place(old_method, old)),
                Some(super::param_place(new_method, new)),
                format!(
                    "{}: parameter {} is sent as {} (the Rust name {} is kept; old apps still \
                     send {}, which the new server does not read)",
                    new_method.name, old.wire_name, new.wire_name, new.rust_name, old.wire_name
                ),
            );
        }
    }
}
