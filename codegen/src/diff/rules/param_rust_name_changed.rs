//! `param-rust-name-changed`: A parameter's Rust name (argument or setter) changed; its wire name is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-rust-name-changed",
    summary: "A parameter's Rust name (argument or setter) changed; its wire name is kept.",
};

/// The wire is unchanged. A setter of another name breaks its callers; an argument's name is
/// not part of the Rust API (a call passes it by position), so renaming one breaks nobody.
pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |p| p.old.rust_name != p.new.rust_name,
        |_, _| (Surface::None, None),
        |o, n| format!("Rust name {} -> {}", o.rust_name, n.rust_name),
    );
}
