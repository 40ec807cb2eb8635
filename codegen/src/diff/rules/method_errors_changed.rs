//! `method-errors-changed`: The error codes a data method documents changed.

use std::collections::HashSet;

use super::prelude::*;
use crate::ir::Api;

pub const RULE: Rule = Rule {
    id: "method-errors-changed",
    summary: "The error codes a data method documents changed.",
};

/// Documentation of the method; the error enum is compared by `error-code-*`.
///
/// A method documents [`Api::errors_of`] (its own list, then every code that names no
/// method), in that order, in its rustdoc and its OpenAPI operation; the two sides' lists are
/// compared, each read in its own spec. A code that is every method's on either side is set
/// aside: it enters or leaves every method's list at once, and is reported once, by the rule
/// of the code (`error-code-added`, `error-code-removed`, or `doc-changed` for a code whose
/// `methods` became or stopped being absent). One line per method of the service for one edit
/// would bury the changes that are one method's; and listing such a code in a method's own
/// list, or no longer, documents nothing new. What is left is what is the method's alone:
/// codes added or removed, or, with the same codes, another order.
pub fn check(cx: &mut Context<'_>) {
    let (base, head) = (cx.base.api, cx.head.api);
    let every_methods: HashSet<&str> = every_methods(base).chain(every_methods(head)).collect();
    let own = |api: &'_ Api, method: &Method| -> Vec<String> {
        api.error_codes_of(method)
            .filter(|code| !every_methods.contains(code))
            .map(str::to_owned)
            .collect()
    };
    let changed: Vec<(&Method, &Method, String)> = cx
        .methods
        .iter()
        .filter_map(|p| {
            let (old, new) = (own(base, p.old), own(head, p.new));
            if old == new {
                return None;
            }
            let what = words::set_change(&old, &new);
            Some((
                p.old,
                p.new,
                if what.is_empty() {
                    "reordered".to_owned()
                } else {
                    what
                },
            ))
        })
        .collect();
    for (old, new, what) in changed {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!("{}: documented errors: {what}", new.name),
        );
    }
}

/// The codes of `api` that name no method: every method's.
fn every_methods(api: &Api) -> impl Iterator<Item = &str> {
    api.errors
        .iter()
        .filter(|e| e.methods.is_none())
        .map(|e| e.code.as_str())
}
