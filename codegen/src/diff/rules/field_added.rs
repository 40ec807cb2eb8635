//! `field-added`: A response field was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-added",
    summary: "A response field was added.",
};

/// Old decoders ignore unknown keys; only an exhaustive struct would break.
pub fn check(cx: &mut Context<'_>) {
    for (old_record, new_record) in cx.records.clone() {
        let (_, _, added) = cx.fields(old_record, new_record);
        for field in added {
            cx.push(
                RULE.id,
                Surface::Response,
                false,
                &[Claim::Item(old_record.name.clone())],
                None,
                Some(Context::field_place(new_record, field)),
                format!(
                    "{}.{} was added ({})",
                    new_record.name,
                    field.rust_name,
                    crate::rust_type::field_type(&cx.head_lookup, field)
                ),
            );
        }
    }
}
