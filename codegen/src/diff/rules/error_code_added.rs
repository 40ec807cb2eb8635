//! `error-code-added`: An error code was documented.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "error-code-added",
    summary: "An error code was documented.",
};

pub fn check(cx: &mut Context<'_>) {
    let head = cx.head.api;
    for new in &head.errors {
        if cx.base_lookup.error_named(&new.code).is_some() {
            continue;
        }
        cx.push(
            RULE.id,
            Surface::None,
            false,
            &[Claim::Item("ErrorCode".to_owned())],
            None,
            Some((new.file, vec!["errors", new.code.as_str()])),
            format!("ErrorCode::{} ({}) was added", new.variant, new.code),
        );
    }
}
