//! `field-rust-name-changed`: A response field's Rust name changed; its wire name is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-rust-name-changed",
    summary: "A response field's Rust name changed; its wire name is kept.",
};

/// The wire is unchanged for the field itself; the Rust model judges the rename.
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (pairs, _, _) = cx.fields(old_record, new_record);
        for pair in pairs.iter().filter(|p| p.old.rust_name != p.new.rust_name) {
            let wire = super::key_witness(cx, old_record, new_record, |m| {
                super::at_field(m, old_record, pair.old)
            });
            let surface = if wire.is_some() {
                Surface::Response
            } else {
                Surface::None
            };
            cx.push(
                RULE.id,
                surface,
                wire,
                &[super::field_claim(old_record, pair.old)],
                Some(Context::field_place(old_record, pair.old)),
                Some(Context::field_place(new_record, pair.new)),
                format!(
                    "{}.{} became {}.{}",
                    old_record.name, pair.old.rust_name, new_record.name, pair.new.rust_name
                ),
            );
        }
    }
}
