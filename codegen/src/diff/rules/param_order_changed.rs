//! `param-order-changed`: The required parameters, a constructor's arguments, changed order.

use super::prelude::*;
use crate::emit::method::constructor_args;

pub const RULE: Rule = Rule {
    id: "param-order-changed",
    summary: "The required parameters, a constructor's positional arguments, changed order.",
};

/// A constructor takes the required parameters by position, in spec order. Two of the same
/// Rust type that swap places still compile in an old call, which then sends each value as
/// the other parameter: a semver-major change that no compiler reports, which the identity map
/// finds (argument 1 now denotes what argument 2 did). The wire is untouched: each request
/// still names its parameters.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old, new) in pairs {
        let names = |method: &Method| -> Vec<String> {
            constructor_args(method)
                .into_iter()
                .map(|p| p.wire_name.clone())
                .collect()
        };
        let (old_args, new_args) = (names(old), names(new));
        // Whether an old call still compiles: the same Rust type at every position.
        let types = |method: &Method| -> Vec<String> {
            constructor_args(method)
                .into_iter()
                .map(|p| crate::rust_type::param_type(p).to_string())
                .collect()
        };
        let still_compiles = types(old) == types(new);
        // The arguments both sides take, each side in its order: added and removed ones are
        // the other parameter rules' changes.
        let kept = |args: &[String], other: &[String]| -> Vec<String> {
            let other: std::collections::HashSet<&String> = other.iter().collect();
            args.iter().filter(|a| other.contains(a)).cloned().collect()
        };
        let (old_kept, new_kept) = (kept(&old_args, &new_args), kept(&new_args, &old_args));
        if old_kept == new_kept {
            continue;
        }
        let claims: Vec<Claim> = cx
            .method_claims(old)
            .into_iter()
            .filter(|claim| matches!(claim, Claim::Item(key) if key.starts_with("Session::")))
            .collect();
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &claims,
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{}: the constructor's arguments ({}) -> ({}); {}",
                new.name,
                old_kept.join(", "),
                new_kept.join(", "),
                if still_compiles {
                    "old calls still compile (the same types at every position) and send each \
                     value as the parameter now at its position"
                } else {
                    "old calls no longer compile"
                }
            ),
        );
    }
}
