//! `param-rust-name-changed`: A parameter's Rust name (argument or setter) changed; its wire name is kept.

use super::prelude::*;

pub const RULE: Rule = Rule {
    id: "param-rust-name-changed",
    summary: "A parameter's Rust name (argument or setter) changed; its wire name is kept.",
};

pub fn check(cx: &mut Context<'_>) {
    super::check_params(
        cx,
        RULE.id,
        |_, o, _, n| o.rust_name != n.rust_name,
        |_, _, _, _| (Surface::None, false),
        |o, n| format!("Rust name {} -> {}", o.rust_name, n.rust_name),
    );
}
