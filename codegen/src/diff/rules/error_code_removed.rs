//! `error-code-removed`: An error code was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "error-code-removed",
    summary: "An error code was removed.",
};

/// Unknown codes are kept as `ErrorCode::Other`, so the wire is unaffected.
pub fn check(cx: &mut Context<'_>) {
    let (base, head) = (cx.base.api, cx.head.api);
    for old in &base.errors {
        if head.errors.iter().any(|e| e.code == old.code) {
            continue;
        }
        cx.push(
            RULE.id,
            Surface::None,
            false,
            &[Claim::Item(format!("ErrorCode::{}", old.variant))],
            Some((old.file, vec!["errors", old.code.as_str()])),
            None,
            format!("ErrorCode::{} ({}) was removed", old.variant, old.code),
        );
    }
}
