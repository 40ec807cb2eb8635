//! `method-errors-changed`: The error codes a data method documents changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-errors-changed",
    summary: "The error codes a data method documents changed.",
};

/// Documentation of the method; the error enum is compared by `error-code-*`.
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx
        .methods
        .iter()
        .filter(|p| p.old.errors != p.new.errors)
        .map(|p| (p.old, p.new))
        .collect();
    for (old, new) in pairs {
        let what = words::set_change(&old.errors, &new.errors);
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            Some(Context::method_place(old)),
            Some(Context::method_place(new)),
            format!(
                "{}: documented errors: {}",
                new.name,
                if what.is_empty() {
                    "reordered".to_owned()
                } else {
                    what
                }
            ),
        );
    }
}
