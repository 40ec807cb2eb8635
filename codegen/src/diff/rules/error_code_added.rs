//! `error-code-added`: An error code was documented.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "error-code-added",
    summary: "An error code was documented.",
};

/// Old crates keep a code they do not know as `ErrorCode::Other`, so a new code breaks nobody,
/// but for the runtime's: a new `authentication` code is one the new server refuses a skewed
/// clock with, which the old runtime does not correct its clock on (a renamed signature code
/// is this and `error-code-removed`). A code that names no method is every method's: it is
/// reported here, once, not by `method-errors-changed` for each method.
pub fn check(cx: &mut Context<'_>) {
    let head = cx.head.api;
    for new in &head.errors {
        if cx.base_lookup.error_named(&new.code).is_some() {
            continue;
        }
        let wire = cx.clock_witness(&new.code);
        let (surface, effect) = if wire.is_some() {
            (
                Surface::Runtime,
                "; an authentication error, on which old crates do not correct their clock",
            )
        } else {
            (Surface::None, "")
        };
        cx.push(
            RULE.id,
            surface,
            wire,
            &[Claim::Item("ErrorCode".to_owned())],
            None,
            Some((new.file, vec!["errors", new.code.as_str()])),
            format!(
                "ErrorCode::{} ({}) was added{}{effect}",
                new.variant,
                new.code,
                words::every_method(new, "documents")
            ),
        );
    }
}
