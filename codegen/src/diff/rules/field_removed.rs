//! `field-removed`: A response field was removed.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-removed",
    summary: "A response field was removed.",
};

/// Old decoders see the field absent: fine for an `Option` that may be absent, an error otherwise.
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (_, removed, _) = cx.fields(old_record, new_record);
        let mut new_by_wire = std::collections::HashMap::new();
        for field in &new_record.fields {
            new_by_wire.entry(field.wire_name.as_str()).or_insert(field);
        }
        for field in removed {
            // The names the old decoder reads the field from: a new field delivered under one
            // of them still fills it.
            let still_sent = std::iter::once(field.wire_name.as_str())
                .chain(field.documented_as.as_deref())
                .find_map(|name| new_by_wire.get(name).copied());
            let wire = still_sent.is_none()
                && !wire::field_accepts(&cx.base_lookup, field, &wire::Json::Absent);
            let effect = match still_sent {
                Some(other) => format!(
                    "old apps still read it, from `{}` ({}.{} of the new spec)",
                    other.wire_name, new_record.name, other.rust_name
                ),
                None if wire => "old apps fail to decode without it".to_owned(),
                None => "old apps read None".to_owned(),
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
