//! The export's patterns are the decoders', exactly, in both directions: a string the
//! pattern of an `id`/`count`, `integer` or `DD-MON-YY` value in `spec/openapi.json` accepts,
//! the client decodes; a string the client decodes in that form, the pattern accepts. Judged
//! by the `jsonschema` crate (ECMA-262 patterns, as OpenAPI tools read them) against the
//! client's own decoders (`wire::lenient`), over strings made to sit on the edges: runs of
//! digits around `u64` and `i64`'s bounds with and without leading zeros and signs, and
//! every day number 00 to 39 of every month in leap and common years.
//!
//! Decimals are left out: what `Decimal` holds (28 places, 96 bits of magnitude) is no
//! regular language worth writing, so their schema gives the pattern of the form and says the
//! range in `x-marketplace-range`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use marketplace_client::jiff::civil::Date;
use marketplace_client::wire;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Unsigned {
    #[serde(with = "wire::lenient")]
    #[allow(dead_code)]
    value: u64,
}

#[derive(Deserialize)]
struct Signed {
    #[serde(with = "wire::lenient")]
    #[allow(dead_code)]
    value: i64,
}

#[derive(Deserialize)]
struct Day {
    #[serde(with = "wire::lenient")]
    #[allow(dead_code)]
    value: Date,
}

/// Each Rust type's one pattern in the export, from the properties that carry both.
fn patterns() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.json");
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    fn walk(value: &Value, found: &mut BTreeMap<String, Vec<String>>) {
        match value {
            Value::Object(object) => {
                if let (Some(Value::String(pattern)), Some(Value::String(rust))) =
                    (object.get("pattern"), object.get("x-marketplace-rust-type"))
                {
                    // An optional value has the pattern of its type.
                    let rust = rust
                        .strip_prefix("Option<")
                        .and_then(|inner| inner.strip_suffix('>'))
                        .unwrap_or(rust);
                    let patterns = found.entry(rust.to_owned()).or_default();
                    if !patterns.contains(pattern) {
                        patterns.push(pattern.clone());
                    }
                }
                object.values().for_each(|value| walk(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| walk(value, found)),
            _ => {}
        }
    }
    walk(&document, &mut found);
    found
        .into_iter()
        .map(|(rust, patterns)| {
            assert_eq!(patterns.len(), 1, "{rust}: {patterns:?}");
            (rust, patterns.into_iter().next().unwrap())
        })
        .collect()
}

/// Each Rust type's pattern, compiled once as a JSON Schema validator.
static VALIDATORS: LazyLock<BTreeMap<String, jsonschema::Validator>> = LazyLock::new(|| {
    patterns()
        .into_iter()
        .map(|(rust, pattern)| {
            let schema = json!({"type": "string", "pattern": pattern});
            let validator = jsonschema::draft202012::new(&schema)
                .unwrap_or_else(|error| panic!("{pattern} does not compile: {error}"));
            (rust, validator)
        })
        .collect()
});

fn pattern_of(rust: &str) -> &'static jsonschema::Validator {
    VALIDATORS
        .get(rust)
        .unwrap_or_else(|| panic!("no pattern for {rust}"))
}

/// Whether the export's pattern accepts `text`, as a JSON Schema validator reads it.
fn accepts(pattern: &jsonschema::Validator, text: &str) -> bool {
    pattern.is_valid(&json!(text))
}

fn decodes<T: for<'de> Deserialize<'de>>(text: &str) -> bool {
    serde_json::from_value::<T>(json!({ "value": text })).is_ok()
}

/// Runs of digits near `bound`: the bound itself and its neighbours, the same with leading
/// zeros, other lengths, and any digits.
fn digits_near(bound: u128) -> impl Strategy<Value = String> {
    let near = (0u128..3, any::<bool>()).prop_map(move |(offset, above)| {
        if above {
            bound + offset
        } else {
            bound - offset
        }
    });
    prop_oneof![
        (near, 0usize..3).prop_map(|(value, zeros)| format!("{}{value}", "0".repeat(zeros))),
        "[0-9]{1,22}",
        (1u32..39, 0u128..1000)
            .prop_map(|(places, low)| format!("{}", 10u128.pow(places).saturating_sub(low))),
    ]
}

/// `DD-MON-YY` with every day number from 00 to 39, any month (upper or lower case), any year.
fn day_texts() -> impl Strategy<Value = String> {
    const MONTHS: [&str; 13] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC", "Feb",
    ];
    (0u32..40, proptest::sample::select(&MONTHS[..]), 0u32..100)
        .prop_map(|(day, month, year)| format!("{day:02}-{month}-{year:02}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_pattern_of_an_unsigned_id_is_what_the_client_decodes(text in digits_near(u128::from(u64::MAX))) {
        let pattern = pattern_of("u64");
        prop_assert_eq!(accepts(pattern, &text), decodes::<Unsigned>(&text), "{}", text);
    }

    #[test]
    fn the_pattern_of_a_signed_integer_is_what_the_client_decodes(
        digits in prop_oneof![digits_near(i64::MAX as u128), digits_near(u128::from(i64::MIN.unsigned_abs()))],
        negative in any::<bool>(),
    ) {
        let text = if negative { format!("-{digits}") } else { digits };
        let pattern = pattern_of("i64");
        prop_assert_eq!(accepts(pattern, &text), decodes::<Signed>(&text), "{}", text);
    }

    #[test]
    fn the_pattern_of_a_day_is_what_the_client_decodes_in_that_form(text in day_texts()) {
        let pattern = pattern_of("Date");
        prop_assert_eq!(accepts(pattern, &text), decodes::<Day>(&text), "{}", text);
    }
}

/// The generators reach both answers: a test of a pattern that accepted, or refused,
/// everything would pass the properties above only if the decoder did the same.
#[test]
fn the_edges_are_on_both_sides() {
    let unsigned = pattern_of("u64");
    assert!(accepts(unsigned, "0018446744073709551615"));
    assert!(!accepts(unsigned, "18446744073709551616"));
    let signed = pattern_of("i64");
    assert!(accepts(signed, "-09223372036854775808"));
    assert!(!accepts(signed, "9223372036854775808"));
    let day = pattern_of("Date");
    assert!(accepts(day, "29-FEB-24") && accepts(day, "29-FEB-00"));
    assert!(!accepts(day, "29-FEB-23") && !accepts(day, "31-APR-24"));
}
