//! `field-encoding-changed`: How a response field is encoded on the wire changed (e.g. number to string, index-keyed object to array, DD-MON-YY to epoch).

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "field-encoding-changed",
    summary: "How a response field is encoded on the wire changed (e.g. number to string, index-keyed object to array, DD-MON-YY to epoch).",
};

pub fn check(cx: &mut Context<'_>) {
    let renames = cx.renames.clone();
    // The rule's own lookups: `check_fields` holds the context.
    let (base, head) = (cx.base.api.lookup(), cx.head.api.lookup());
    super::check_fields(
        cx,
        RULE.id,
        |p| super::renamed(&renames, &p.old.ty) == p.new.ty && p.old.encoding != p.new.encoding,
        |sent, new| sent.encoding = new.encoding.clone(),
        |p| {
            let (old_type, new_type) = (
                crate::rust_type::value_type(&base, p.old),
                crate::rust_type::value_type(&head, p.new),
            );
            format!(
                "{}.{}: sent as {} -> {}{}",
                p.new_record.name,
                p.new.rust_name,
                words::encodings(p.old),
                words::encodings(p.new),
                if old_type == new_type {
                    String::new()
                } else {
                    format!(" (Rust type {old_type} -> {new_type})")
                }
            )
        },
    );
}
