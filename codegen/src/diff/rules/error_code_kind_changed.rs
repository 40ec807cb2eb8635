//! `error-code-kind-changed`: An error code's kind changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "error-code-kind-changed",
    summary: "An error code's kind changed (the runtime reads `authentication`).",
};

/// The one kind the runtime reads is `authentication`: the generated `Service` lists those
/// codes, and on one of them, with the server's `Date` off from the local clock, the old crate
/// corrects its clock and signs again (`Transport::correct_clock`). The runtime simulation
/// ([`crate::diff::runtime`]) sends the new server's refusal with the code to the old
/// runtime: a code that becomes `authentication` (and that the runtime does not know by name)
/// leaves old crates failing where the new spec says a corrected clock succeeds; one that
/// stops being it costs an old crate at most one needless retry. Every other kind only
/// documents the code.
pub fn check(cx: &mut Context<'_>) {
    use crate::diff::runtime::AUTHENTICATION;
    let base = cx.base.api;
    for old in &base.errors {
        let Some(new) = cx.head_lookup.error_named(&old.code) else {
            continue;
        };
        if old.kind == new.kind {
            continue;
        }
        let is_auth = |kind: &Option<String>| kind.as_deref() == Some(AUTHENTICATION);
        let (was, is) = (is_auth(&old.kind), is_auth(&new.kind));
        let wire = cx.clock_witness(&new.code);
        let (surface, effect) = match (was, is) {
            (false, true) if wire.is_some() => (
                Surface::Runtime,
                "old crates do not correct their clock on it, as the new spec expects",
            ),
            (false, true) => (
                Surface::Runtime,
                "old crates already correct their clock on it, by its name",
            ),
            (true, false) => (
                Surface::Runtime,
                "old crates may correct their clock on it once, needlessly",
            ),
            _ => (Surface::None, "the runtime does not read this kind"),
        };
        cx.push(
            RULE.id,
            surface,
            wire,
            &[],
            Some((old.file, vec!["errors", old.code.as_str()])),
            Some((new.file, vec!["errors", new.code.as_str()])),
            format!(
                "{}: kind {} -> {} ({effect})",
                old.code,
                words::option(old.kind.as_ref()),
                words::option(new.kind.as_ref())
            ),
        );
    }
}
