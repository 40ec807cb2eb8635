//! `field-removed`: A response field was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-removed",
    summary: "A response field was removed.",
};

/// Old decoders find the field absent (fine for an `Option` that may be absent, an error
/// otherwise), or read under its names what the new server sends for another field: its
/// value where the new spec says it means the same (an alias), another field's value where it
/// does not (a field renamed onto the name this one freed).
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (_, removed, _) = cx.fields(old_record, new_record);
        let mut new_by_wire = std::collections::HashMap::new();
        for field in &new_record.fields {
            new_by_wire.entry(field.wire_name.as_str()).or_insert(field);
        }
        for field in removed {
            let wire = super::key_witness(cx, old_record, new_record, |m| {
                super::at_field(m, old_record, field)
            });
            // The names the old decoder reads the field from: a new field delivered under one
            // of them fills it.
            let still_sent = std::iter::once(field.wire_name.as_str())
                .chain(field.documented_as.as_deref())
                .find_map(|name| new_by_wire.get(name).copied());
            let effect = match (&wire, still_sent) {
                (Some(Witness::Answer { finding, .. }), _) => finding.clone(),
                (Some(_), _) => "old apps misread answers without it".to_owned(),
                (None, Some(other)) => format!(
                    "old apps still read it, from `{}` ({}.{} of the new spec)",
                    other.wire_name, new_record.name, other.rust_name
                ),
                (None, None) if new_record.delivered_by.is_empty() => {
                    format!("no answer carries a {}", new_record.name)
                }
                (None, None) => "old apps read None".to_owned(),
            };
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[super::field_claim(old_record, field)],
                Some(Context::field_place(old_record, field)),
                None,
                format!(
                    "{}.{} was removed ({effect})",
                    old_record.name, field.rust_name
                ),
            );
        }
    }
}
