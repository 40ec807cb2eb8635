//! `param-added-optional`: An optional parameter was added.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-added-optional",
    summary: "An optional parameter was added.",
};

/// Old apps do not send it; the new server takes the call as before (its default, if it says
/// one, is what it assumed when it had no such parameter).
pub fn check(cx: &mut Context<'_>) {
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let (_, added) = super::unpaired(old_method, new_method);
        for new in added {
            if super::required(new_method, new) {
                continue;
            }
            // A setter (or a constructor of an alternative) added breaks no caller.
            cx.push(
                RULE.id,
                Surface::Request,
                None,
                &[],
                None,
                Some(super::param_place(new_method, new)),
                format!(
                    "{}: parameter {} was added{}",
                    new_method.name,
                    new.wire_name,
                    super::notes(
                        std::iter::once("a setter")
                            .chain(super::rename_hint(old_method, new_method, new).as_deref())
                    )
                ),
            );
        }
    }
}
