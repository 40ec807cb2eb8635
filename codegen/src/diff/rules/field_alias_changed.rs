//! `field-alias-changed`: The other name a response field is accepted under (`documented_as`) changed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-alias-changed",
    summary: "The other name a response field is accepted under (`documented_as`) changed.",
};

/// The server sends the wire name, which is unchanged; the alias is only another name the
/// decoders read. The old alias matters where the new server sends something under it (a
/// field of the new spec of that name: the old field reads it too, or twice).
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (pairs, _, _) = cx.fields(old_record, new_record);
        let changed = pairs.iter().filter(|p| {
            p.old.wire_name == p.new.wire_name && p.old.documented_as != p.new.documented_as
        });
        for pair in changed {
            // A misreading at this field with a source is the source field's change (a field
            // added or renamed onto the old alias); the alias alone changes what the new crate
            // reads, not what the new server sends.
            let wire = super::key_witness(cx, old_record, new_record, |m| {
                super::at_field(m, old_record, pair.old) && m.source.is_none()
            });
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[super::field_claim(old_record, pair.old)],
                Some(Context::field_place(old_record, pair.old)),
                Some(Context::field_place(new_record, pair.new)),
                format!(
                    "{}.{}: also accepted as {} -> {}",
                    pair.new_record.name,
                    pair.new.rust_name,
                    words::option(pair.old.documented_as.as_ref()),
                    words::option(pair.new.documented_as.as_ref())
                ),
            );
        }
    }
}
