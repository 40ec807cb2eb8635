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
        for field in removed {
            let wire = !wire::field_accepts(&cx.base_lookup, field, &wire::Json::Absent);
            cx.push(
                RULE.id,
                Surface::Response,
                wire,
                &[super::field_claim(old_record, field)],
                Some(Context::field_place(old_record, field)),
                None,
                format!(
                    "{}.{} was removed ({})",
                    old_record.name,
                    field.rust_name,
                    if wire {
                        "old apps fail to decode without it"
                    } else {
                        "old apps read None"
                    }
                ),
            );
        }
    }
}
