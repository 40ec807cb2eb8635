//! `error-code-removed`: An error code was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "error-code-removed",
    summary: "An error code was removed.",
};

/// Unknown codes are kept as `ErrorCode::Other`, so the wire is unaffected. A code that named
/// no method was every method's: it is reported here, once, not by `method-errors-changed`
/// for each method.
pub fn check(cx: &mut Context<'_>) {
    let base = cx.base.api;
    for old in &base.errors {
        if cx.head_lookup.error_named(&old.code).is_some() {
            continue;
        }
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[Claim::Item(format!("ErrorCode::{}", old.variant))],
            Some((old.file, vec!["errors", old.code.as_str()])),
            None,
            format!(
                "ErrorCode::{} ({}) was removed{}",
                old.variant,
                old.code,
                words::every_method(old, "documented")
            ),
        );
    }
}
