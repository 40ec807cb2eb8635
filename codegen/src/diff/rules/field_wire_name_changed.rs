//! `field-wire-name-changed`: A response field's wire name changed; its Rust name is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-wire-name-changed",
    summary: "A response field's wire name changed; its Rust name is kept.",
};

/// Old decoders read the old wire name and their `documented_as` alias: a new name that is the
/// alias still reaches them; any other leaves the old field without its value, and where the
/// old name is now another field's (two fields that swap names, a field renamed onto a name
/// another one freed), the old field reads that field's value.
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (pairs, _, _) = cx.fields(old_record, new_record);
        for pair in pairs.iter().filter(|p| p.old.wire_name != p.new.wire_name) {
            let wire = super::key_witness(cx, old_record, new_record, |m| {
                super::at_field(m, old_record, pair.old)
            });
            let alias = if pair.old.documented_as.as_ref() == Some(&pair.new.wire_name) {
                " (the old crate's alias for it: old apps read it)"
            } else {
                ""
            };
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[super::field_claim(old_record, pair.old)],
                Some(Context::field_place(old_record, pair.old)),
                Some(Context::field_place(new_record, pair.new)),
                format!(
                    "{}.{} is now sent as \"{}\" instead of \"{}\"{alias}",
                    new_record.name, pair.new.rust_name, pair.new.wire_name, pair.old.wire_name
                ),
            );
        }
    }
}
