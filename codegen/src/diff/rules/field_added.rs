//! `field-added`: A response field was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-added",
    summary: "A response field was added.",
};

/// Old decoders skip keys they do not read; only a key an old field reads (its alias, or a
/// name it still reads) reaches them: that field then gets the new field's value, or reads two
/// keys at once, which serde refuses (`duplicate field`). Structs are `#[non_exhaustive]`.
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (_, _, added) = cx.fields(old_record, new_record);
        for field in added {
            let wire = super::key_witness(cx, old_record, new_record, |m| {
                m.source.as_ref().is_some_and(|(record, name)| {
                    *record == new_record.name && *name == field.rust_name
                })
            });
            let effect = match &wire {
                Some(Witness::Answer { finding, .. }) => format!("; {finding}"),
                _ => String::new(),
            };
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[Claim::Item(old_record.name.clone())],
                None,
                Some(Context::field_place(new_record, field)),
                format!(
                    "{}.{} was added ({}){effect}",
                    new_record.name,
                    field.rust_name,
                    crate::rust_type::field_type(&cx.head_lookup, field)
                ),
            );
        }
    }
}
