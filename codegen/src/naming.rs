//! How Rust names are derived from wire names, predictably.

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::ir;

/// Rust keywords (strict and reserved, 2024 edition) that cannot be field names.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Whether `name` is a Rust keyword.
pub(crate) fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// The Rust field or function name for a wire name: `clientImageURL` -> `client_image_url`,
/// `pay/getTimesheet` -> `get_timesheet` (the group is dropped).
pub(crate) fn snake_name(wire: &str) -> String {
    let last = wire.rsplit('/').next().unwrap_or(wire);
    last.to_snake_case()
}

/// The Rust variant name for a wire value: `Hourly Milestone` -> `HourlyMilestone`,
/// `CLIENT` -> `Client`, `E_WORKROOM_BID_ACCESS` -> `WorkroomBidAccess` (an `E_` prefix of
/// error codes is dropped).
pub(crate) fn variant_name(wire: &str) -> String {
    let stripped = wire.strip_prefix("E_").unwrap_or(wire);
    let name = stripped.to_upper_camel_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else {
        name
    }
}

/// What serde's `rename_all = "camelCase"` makes of a snake_case field name, so that a
/// `rename` is emitted exactly where the wire name differs from it.
pub(crate) fn serde_camel_case(snake: &str) -> String {
    let mut camel = String::with_capacity(snake.len());
    let mut capitalize = false;
    for c in snake.chars() {
        if c == '_' {
            capitalize = true;
        } else if capitalize {
            camel.push(c.to_ascii_uppercase());
            capitalize = false;
        } else {
            camel.push(c);
        }
    }
    camel
}

/// The name of a method's request type: `get_timesheet` -> `GetTimesheet`.
pub(crate) fn request_type_name(method: &ir::Method) -> String {
    method.rust_name.to_upper_camel_case()
}

/// The names of a method's `Session` constructors: one, or one per parameter of
/// `at_least_one_of` (`get_timesheet_by_id`, …).
pub(crate) fn constructor_names(method: &ir::Method) -> Vec<String> {
    if method.at_least_one_of.is_empty() {
        return vec![method.rust_name.clone()];
    }
    method
        .at_least_one_of
        .iter()
        .map(|id| format!("{}_by_{}", method.rust_name, method.param(id).rust_name))
        .collect()
}

/// Whether `name` is a plain snake_case identifier (`[a-z][a-z0-9_]*`), not a keyword.
pub(crate) fn is_snake_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !is_keyword(name)
}

/// Whether `name` is an UpperCamelCase identifier (`[A-Z][A-Za-z0-9]*`).
pub(crate) fn is_camel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
        && !is_keyword(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_snake_names_from_wire_names() {
        assert_eq!(snake_name("bidId"), "bid_id");
        assert_eq!(snake_name("clientImageURL"), "client_image_url");
        assert_eq!(snake_name("screenURL"), "screen_url");
        assert_eq!(
            snake_name("pay/getTimesheetsForBid"),
            "get_timesheets_for_bid"
        );
        assert_eq!(snake_name("type"), "type");
    }

    #[test]
    fn derives_variant_names_from_wire_values() {
        assert_eq!(variant_name("Hourly Milestone"), "HourlyMilestone");
        assert_eq!(variant_name("Release Request Sent"), "ReleaseRequestSent");
        assert_eq!(variant_name("CLIENT"), "Client");
        assert_eq!(variant_name("OK"), "Ok");
        assert_eq!(
            variant_name("E_API_AUTH_SIGNATURE_MISMATCH"),
            "ApiAuthSignatureMismatch"
        );
        assert_eq!(variant_name("5"), "V5");
    }

    #[test]
    fn mirrors_serde_camel_case() {
        assert_eq!(serde_camel_case("bid_id"), "bidId");
        assert_eq!(serde_camel_case("client_image_url"), "clientImageUrl");
        assert_eq!(serde_camel_case("id"), "id");
    }

    #[test]
    fn checks_identifiers() {
        assert!(is_snake_identifier("kind"));
        assert!(!is_snake_identifier("type"));
        assert!(!is_snake_identifier("Kind"));
        assert!(is_camel_identifier("BidData"));
        assert!(!is_camel_identifier("bid_data"));
    }
}
