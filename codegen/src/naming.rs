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
    request_type_name_of(&method.rust_name)
}

/// The request type of a method of the Rust name `rust_name`.
pub(crate) fn request_type_name_of(rust_name: &str) -> String {
    rust_name.to_upper_camel_case()
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

/// Whether `name` is a plain snake_case identifier (`[a-z][a-z0-9_]*` without `__`, which
/// rustc's `non_snake_case` lint refuses), not a keyword.
pub(crate) fn is_snake_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.contains("__")
        && !is_keyword(name)
}

/// Whether `name` is an UpperCamelCase identifier (`[A-Z][A-Za-z0-9]*`).
pub(crate) fn is_camel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
        && !is_keyword(name)
}

/// Names a generated type (a spec type or enum, a builder, a method's request type) must not
/// take. What generated code names without a path: the prelude's types, traits, derives and
/// values and what it imports (a type of the module of that name would take their place), and
/// the names of the runtime's crate root, where `lib.rs` re-exports the generated items with a
/// glob that the root's own names shadow without a word. The tests read both from the code.
pub(crate) const RESERVED_TYPE_NAMES: &[&str] = &[
    // Named without a path by generated code.
    "Client",
    "ClientBuilder",
    "Clone",
    "ConsumerCredentials",
    "DataMethod",
    "Date",
    "DayOrInstant",
    "Debug",
    "Decimal",
    "Default",
    "Deserialize",
    "Deserializer",
    "Eq",
    "Err",
    "Error",
    "ErrorCode",
    "From",
    "Hash",
    "Into",
    "None",
    "OAuthService",
    "Ok",
    "Option",
    "PagedMethod",
    "PartialEq",
    "Query",
    "RawErrorCode",
    "Request",
    "Result",
    "SERVICE",
    "Serialize",
    "Serializer",
    "Service",
    "Session",
    "Some",
    "String",
    "Timestamp",
    "Vec",
    // The runtime's crate root.
    "ApiFailure",
    "BuildError",
    "CallOptions",
    "DecodeError",
    "Envelope",
    "ListedError",
    "OneLine",
    "OutgoingRequest",
    "ReceivedResponse",
    "Response",
    "ResponseMeta",
    "RetryPolicy",
    "Secret",
    "Stream",
    "StreamExt",
    "TimeoutLimit",
    "TransportError",
    "TransportErrorKind",
    "TryStreamExt",
];

/// Why `name` cannot name a generated type (a spec type or enum, a builder, a method's
/// request type), if it cannot.
pub(crate) fn type_name_problem(name: &str) -> Option<String> {
    if !is_camel_identifier(name) {
        Some(format!("'{name}' is not an UpperCamelCase Rust type name"))
    } else if RESERVED_TYPE_NAMES.contains(&name) {
        Some(format!(
            "'{name}' is reserved: generated code names a type, trait or value of the prelude, \
             the runtime or its crate root so"
        ))
    } else {
        None
    }
}

/// The first of `base`, then `base` with 2, 3, … appended (after one `_` in a snake_case
/// name), that `free` accepts: a name to suggest. `free` must accept all but finitely many of
/// those: a valid name of that form, not taken.
pub(crate) fn first_free(base: &str, free: impl Fn(&str) -> bool) -> String {
    if free(base) {
        return base.to_owned();
    }
    let (stem, separator) = if base.starts_with(|c: char| c.is_ascii_lowercase()) {
        (base.trim_end_matches('_'), "_")
    } else {
        (base, "")
    };
    (2..)
        .map(|n| format!("{stem}{separator}{n}"))
        .find(|candidate| free(candidate))
        .expect("some number is free")
}

/// A type name to suggest in place of `name`, which `taken` says is not free: its
/// UpperCamelCase ASCII form, or with `Data` appended when that is reserved or taken.
pub(crate) fn suggest_type_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    let ascii: String = name
        .to_upper_camel_case()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let base = match ascii.chars().next() {
        Some(c) if c.is_ascii_uppercase() => ascii,
        Some(_) => format!("T{ascii}"),
        None => "Type".to_owned(),
    };
    let free = |candidate: &str| type_name_problem(candidate).is_none() && !taken(candidate);
    if free(&base) {
        return base;
    }
    first_free(&format!("{base}Data"), free)
}

/// A snake_case name to suggest in place of `name`: its snake_case ASCII form (`fallback`
/// when it has none), with `_` appended to a keyword, and a number when `taken` says so.
pub(crate) fn suggest_snake_name(
    name: &str,
    fallback: &str,
    taken: impl Fn(&str) -> bool,
) -> String {
    let ascii: String = name
        .to_snake_case()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let mut base = String::new();
    for part in ascii.split('_').filter(|part| !part.is_empty()) {
        if !base.is_empty() {
            base.push('_');
        }
        base.push_str(part);
    }
    if !base.starts_with(|c: char| c.is_ascii_lowercase()) {
        base = if base.is_empty() {
            fallback.to_owned()
        } else {
            format!("{fallback}_{base}")
        };
    }
    if is_keyword(&base) {
        base.push('_');
    }
    first_free(&base, |candidate| {
        is_snake_identifier(candidate) && !taken(candidate)
    })
}

/// Names a generated module (a spec file's stem) may not take: `mod` (the generated
/// `mod.rs`), `generated` (the module of the generated modules: clippy's `module_inception`),
/// and the crates generated code and the client's crate root name, which a module of the same
/// name would make ambiguous in `mod.rs`'s `pub use {module}::…`. A test keeps the list in
/// step with the client's dependencies.
/// The method names clippy's `should_implement_trait` reads as a standard trait's method
/// (`cmp`, `add`, `next`, …), its own list: a generated `Session` constructor, `Request` setter
/// or builder setter of such a name is a warning, and the generated client is held to clippy
/// with warnings denied. Refused like a name the runtime takes, with a free one suggested.
pub(crate) const STD_TRAIT_METHOD_NAMES: &[&str] = &[
    "add",
    "as_mut",
    "as_ref",
    "bitand",
    "bitor",
    "bitxor",
    "borrow",
    "borrow_mut",
    "clone",
    "cmp",
    "default",
    "deref",
    "deref_mut",
    "div",
    "drop",
    "eq",
    "from_iter",
    "from_str",
    "hash",
    "index",
    "index_mut",
    "into_iter",
    "mul",
    "neg",
    "next",
    "not",
    "rem",
    "shl",
    "shr",
    "sub",
];

pub(crate) const RESERVED_MODULE_NAMES: &[&str] = &[
    "mod",
    "generated",
    "alloc",
    "core",
    "std",
    "aho_corasick",
    "base64",
    "bytes",
    "cap_fs_ext",
    "cap_std",
    "cap_tempfile",
    "entities",
    "futures",
    "getrandom",
    "hmac",
    "jiff",
    "httpdate",
    "libc",
    "memchr",
    "openssl_probe",
    "percent_encoding",
    "rand",
    "reqwest",
    "rust_decimal",
    "rustix",
    "rustls",
    "rustls_native_certs",
    "rustls_platform_verifier",
    "serde",
    "serde_json",
    "serde_path_to_error",
    "sha1",
    "thiserror",
    "tokio",
    "tracing",
    "unicode_normalization",
    "url",
];

/// Why `module` (a spec file's stem) cannot name a generated module, if it cannot.
pub(crate) fn module_name_problem(module: &str) -> Option<String> {
    if !is_snake_identifier(module) {
        Some(format!(
            "'{module}' is not a snake_case Rust module name ([a-z][a-z0-9_]* without `__`, \
             not a keyword); the file's name, less `.yaml`, names the generated module: \
             rename the file"
        ))
    } else if RESERVED_MODULE_NAMES.contains(&module) {
        Some(format!(
            "'{module}' is reserved: generated code names a crate or file `{module}`; rename \
             the file"
        ))
    } else {
        None
    }
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
    fn module_names_are_snake_case_and_not_reserved() {
        assert_eq!(module_name_problem("pay"), None);
        assert_eq!(module_name_problem("pay_2"), None);
        for bad in [
            "zz-hostile",
            "zz.rs",
            "1zz",
            "mod",
            "std",
            "self",
            "Pay",
            "",
            "é",
        ] {
            assert!(module_name_problem(bad).is_some(), "{bad}");
        }
    }

    /// Every crate the client depends on (its extern prelude) is a reserved module name.
    #[test]
    fn reserved_module_names_cover_the_clients_dependencies() {
        let manifest =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated-client/Cargo.toml");
        let manifest = std::fs::read_to_string(manifest).expect("the client's manifest");
        let mut section = "";
        for line in manifest.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line;
                continue;
            }
            let dependencies = section == "[dependencies]" || section.ends_with(".dependencies]");
            let Some((name, _)) = line.split_once(['=', '.']) else {
                continue;
            };
            let name = name.trim().replace('-', "_");
            if dependencies && !name.is_empty() && !name.starts_with('#') {
                assert!(
                    RESERVED_MODULE_NAMES.contains(&name.as_str()),
                    "the client depends on {name}: add it to RESERVED_MODULE_NAMES"
                );
            }
        }
    }

    /// Every suggestion is a valid name, free of what `taken` says, near the name refused.
    #[test]
    fn suggests_free_valid_names() {
        let none = |_: &str| false;
        assert_eq!(suggest_snake_name("type", "field", none), "type_");
        assert_eq!(
            suggest_snake_name("type", "field", |c| c == "type_"),
            "type_2"
        );
        assert_eq!(
            suggest_snake_name("hourly__rate", "field", none),
            "hourly_rate"
        );
        assert_eq!(
            suggest_snake_name("HourlyRate", "field", none),
            "hourly_rate"
        );
        assert_eq!(suggest_snake_name("é", "field", none), "field");
        assert_eq!(suggest_snake_name("2x", "param", none), "param_2x");
        assert_eq!(
            suggest_snake_name("id", "param", |c| ["id", "id_2"].contains(&c)),
            "id_3"
        );
        assert_eq!(suggest_type_name("Result", none), "ResultData");
        assert_eq!(suggest_type_name("timesheet", none), "Timesheet");
        assert_eq!(
            suggest_type_name("timesheet", |c| c == "Timesheet"),
            "TimesheetData"
        );
        assert_eq!(suggest_type_name("é", none), "Type");
        assert_eq!(suggest_type_name("9lives", none), "T9lives");
        for name in [
            "self", "Self", "_", "a__", "__", "type_", "Option", "SERVICE", "ü",
        ] {
            let snake = suggest_snake_name(name, "field", |c| c.len() < 8);
            assert!(is_snake_identifier(&snake), "{name}: {snake}");
            let camel = suggest_type_name(name, |c| c.len() < 8);
            assert!(type_name_problem(&camel).is_none(), "{name}: {camel}");
        }
    }

    #[test]
    fn checks_identifiers() {
        assert!(is_snake_identifier("kind"));
        assert!(is_snake_identifier("kind_2"));
        assert!(!is_snake_identifier("type"));
        assert!(!is_snake_identifier("kind__2"));
        assert!(!is_snake_identifier("Kind"));
        assert!(is_camel_identifier("BidData"));
        assert!(!is_camel_identifier("bid_data"));
    }
}
