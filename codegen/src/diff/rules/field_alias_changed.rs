//! `field-alias-changed`: The other name a response field is accepted under (`documented_as`) changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-alias-changed",
    summary: "The other name a response field is accepted under (`documented_as`) changed.",
};

/// The server's key is unchanged, so old apps are unaffected; the new crate reads another alias.
pub fn check(cx: &mut Context<'_>) {
    super::check_fields(
        cx,
        RULE.id,
        |p| p.old.wire_name == p.new.wire_name && p.old.documented_as != p.new.documented_as,
        |sent, new| sent.documented_as = new.documented_as.clone(),
        |p| {
            format!(
                "{}.{}: also accepted as {} -> {}",
                p.new_record.name,
                p.new.rust_name,
                words::option(p.old.documented_as.as_ref()),
                words::option(p.new.documented_as.as_ref())
            )
        },
    );
}
