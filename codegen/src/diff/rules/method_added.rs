//! `method-added`: A data method was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "method-added",
    summary: "A data method was added.",
};

pub fn check(cx: &mut Context<'_>) {
    for new in cx.added_methods.clone() {
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            None,
            Some(Context::method_place(new)),
            format!("{} was added (Session::{})", new.name, new.rust_name),
        );
    }
}
