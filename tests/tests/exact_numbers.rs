//! Numbers are exact or a typed error naming their JSON path, in every number decoder, whether
//! the value is sent as a JSON number or as a string; and the generated types still round-trip
//! through formats other than JSON text.
//!
//! Expected values are built from mantissa and scale (`Decimal::from_i128_with_scale`), never by
//! the parser under test.

use marketplace_client::jiff::Timestamp;
use marketplace_client::{DayOrInstant, Decimal, DecodeError, TimesheetDetails, decode, wire};
use marketplace_tests::fixtures::decode_checked;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// One field per number decoder, plus an index-keyed collection of records and a list.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Numbers {
    #[serde(with = "wire::lenient")]
    decimal: Decimal,
    #[serde(with = "wire::lenient")]
    unsigned: u64,
    #[serde(with = "wire::lenient")]
    signed: i64,
    #[serde(default, with = "wire::lenient_opt")]
    optional: Option<Decimal>,
    #[serde(default, with = "wire::zero_is_none")]
    zero_is_none: Option<u64>,
    #[serde(with = "wire::lenient_list")]
    list: Vec<Decimal>,
    #[serde(with = "wire::collection")]
    keyed: Vec<Row>,
    #[serde(with = "wire::lenient")]
    epoch: Timestamp,
    #[serde(default, with = "wire::zero_is_none")]
    paid: Option<Timestamp>,
    #[serde(with = "wire::lenient")]
    either: DayOrInstant,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    #[serde(with = "wire::lenient")]
    amount: Decimal,
    #[serde(with = "wire::lenient")]
    id: u64,
}

/// A valid body; `field` (a JSON path) is replaced by `value`.
fn body_with(field: &str, value: &str) -> String {
    let slots = [
        ("decimal", "1"),
        ("unsigned", "1"),
        ("signed", "1"),
        ("optional", "1"),
        ("zero_is_none", "1"),
        ("list.1", "1"),
        ("keyed.1.amount", "1"),
        ("keyed.1.id", "1"),
        ("epoch", "1"),
        ("paid", "1"),
        ("either", "1"),
    ];
    let slot = |path: &str| {
        slots
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(name, default)| if *name == field { value } else { default })
            .unwrap()
    };
    format!(
        r#"{{"decimal":{},"unsigned":{},"signed":{},"optional":{},"zero_is_none":{},"list":[0,{}],"keyed":{{"0":{{"amount":0,"id":1}},"1":{{"amount":{},"id":{}}}}},"epoch":{},"paid":{},"either":{}}}"#,
        slot("decimal"),
        slot("unsigned"),
        slot("signed"),
        slot("optional"),
        slot("zero_is_none"),
        slot("list.1"),
        slot("keyed.1.amount"),
        slot("keyed.1.id"),
        slot("epoch"),
        slot("paid"),
        slot("either"),
    )
}

/// What one field decoded to, comparable exactly (a decimal with its scale and sign).
#[derive(Clone, Debug, PartialEq)]
enum Got {
    Decimal(i128, u32, bool),
    Integer(i128),
    Instant(i64),
    None,
}

fn exact(decimal: Decimal) -> Got {
    Got::Decimal(
        decimal.mantissa(),
        decimal.scale(),
        decimal.is_sign_negative(),
    )
}

fn dec(mantissa: i128, scale: u32) -> Got {
    exact(Decimal::from_i128_with_scale(mantissa, scale))
}

fn read(numbers: &Numbers, field: &str) -> Got {
    match field {
        "decimal" => exact(numbers.decimal),
        "unsigned" => Got::Integer(numbers.unsigned.into()),
        "signed" => Got::Integer(numbers.signed.into()),
        "optional" => numbers.optional.map_or(Got::None, exact),
        "zero_is_none" => numbers
            .zero_is_none
            .map_or(Got::None, |n| Got::Integer(n.into())),
        "list.1" => exact(numbers.list[1]),
        "keyed.1.amount" => exact(numbers.keyed[1].amount),
        "keyed.1.id" => Got::Integer(numbers.keyed[1].id.into()),
        "epoch" => Got::Instant(numbers.epoch.as_second()),
        "paid" => numbers
            .paid
            .map_or(Got::None, |t| Got::Instant(t.as_second())),
        "either" => match numbers.either {
            DayOrInstant::Instant(t) => Got::Instant(t.as_second()),
            DayOrInstant::Day(day) => panic!("a day: {day}"),
        },
        other => panic!("no field {other}"),
    }
}

/// Decodes `value` at `field` through `marketplace_client::decode` (the client's own entry
/// point, which names the JSON path of a failure).
fn decode_at(field: &str, value: &str) -> Result<Got, DecodeError> {
    decode::<Numbers>(body_with(field, value).as_bytes()).map(|numbers| read(&numbers, field))
}

const DECIMALS: [&str; 4] = ["decimal", "optional", "list.1", "keyed.1.amount"];
const UNSIGNED: [&str; 3] = ["unsigned", "zero_is_none", "keyed.1.id"];
const INSTANTS: [&str; 3] = ["epoch", "paid", "either"];

/// Asserts that every field of `fields` decodes `value` to `expected`, or fails at its own path
/// with a message that starts with `error` (and never mentions serde_json's internals).
fn check(fields: &[&str], value: &str, expected: Result<Got, &str>) {
    for field in fields {
        match (decode_at(field, value), &expected) {
            (Ok(got), Ok(want)) => assert_eq!(&got, want, "{field} = {value}"),
            (Err(error), Err(prefix)) => {
                assert_eq!(error.path, *field, "{field} = {value}: {error}");
                assert!(
                    error.message.starts_with(prefix),
                    "{field} = {value}: {}",
                    error.message
                );
                assert!(!error.message.contains("serde_json"), "{error}");
            }
            (got, want) => panic!("{field} = {value}: got {got:?}, expected {want:?}"),
        }
    }
}

#[test]
fn digits_beyond_f64_are_exact_or_refused() {
    let value = "12345678901234567.89";
    for sent in [value.to_owned(), format!("{value:?}")] {
        check(&DECIMALS, &sent, Ok(dec(1_234_567_890_123_456_789, 2)));
    }
    check(
        &UNSIGNED,
        value,
        Err("invalid integer 12345678901234567.89: has a fractional part"),
    );
    check(
        &UNSIGNED,
        &format!("{value:?}"),
        Err(r#"invalid integer "12345678901234567.89": expected only digits"#),
    );
    check(
        &["signed"],
        value,
        Err("invalid integer 12345678901234567.89: has a fractional part"),
    );
    check(
        &INSTANTS[..2],
        value,
        Err("invalid timestamp 12345678901234567.89: expected whole epoch seconds"),
    );
}

#[test]
fn integers_beyond_u64_are_exact_decimals_and_refused_integers() {
    let value = "18446744073709551616";
    for sent in [value.to_owned(), format!("{value:?}")] {
        check(&DECIMALS, &sent, Ok(dec(18_446_744_073_709_551_616, 0)));
    }
    check(
        &UNSIGNED,
        value,
        Err("integer 18446744073709551616 is too large for u64"),
    );
    check(
        &UNSIGNED,
        &format!("{value:?}"),
        Err(r#"integer "18446744073709551616" is too large for u64"#),
    );
    check(
        &["signed"],
        value,
        Err("integer 18446744073709551616 is too large for i64"),
    );
    check(
        &INSTANTS,
        value,
        Err("epoch seconds 18446744073709551616 are out of range"),
    );
    check(
        &INSTANTS,
        &format!("{value:?}"),
        Err(r#"epoch seconds "18446744073709551616" are out of range"#),
    );
}

#[test]
fn tiny_numbers_are_refused_not_rounded_to_zero() {
    check(
        &DECIMALS,
        "1e-999",
        Err("decimal 1e-999 has more digits than a Decimal holds exactly"),
    );
    check(
        &DECIMALS,
        r#""1e-999""#,
        Err(r#"invalid decimal "1e-999": expected digits"#),
    );
    check(
        &UNSIGNED,
        "1e-999",
        Err("invalid integer 1e-999: has a fractional part"),
    );
    check(
        &INSTANTS[..2],
        "1e-999",
        Err("invalid timestamp 1e-999: expected whole epoch seconds"),
    );
}

#[test]
fn exponents_in_numbers_are_exact_and_refused_in_strings() {
    check(&DECIMALS, "1e3", Ok(dec(1000, 0)));
    check(&UNSIGNED, "1e3", Ok(Got::Integer(1000)));
    check(&["signed"], "-1e3", Ok(Got::Integer(-1000)));
    check(&INSTANTS, "1e3", Ok(Got::Instant(1000)));
    check(
        &DECIMALS,
        r#""1e3""#,
        Err(r#"invalid decimal "1e3": expected digits"#),
    );
    check(
        &UNSIGNED,
        r#""1e3""#,
        Err(r#"invalid integer "1e3": expected only digits"#),
    );
    check(
        &INSTANTS[..2],
        r#""1e3""#,
        Err(r#"invalid timestamp "1e3": expected whole epoch seconds"#),
    );
}

#[test]
fn twenty_two_places_are_kept() {
    let value = "0.1000000000000000000001";
    for sent in [value.to_owned(), format!("{value:?}")] {
        check(&DECIMALS, &sent, Ok(dec(1_000_000_000_000_000_000_001, 22)));
    }
    check(
        &UNSIGNED,
        value,
        Err("invalid integer 0.1000000000000000000001: has a fractional part"),
    );
}

#[test]
fn negative_zero_is_zero_with_the_scale_and_sign_of_its_digits() {
    let string_form = decode_at("decimal", r#""-0.0""#).unwrap();
    check(&DECIMALS, "-0.0", Ok(string_form));
    assert!(matches!(
        decode_at("decimal", "-0.0").unwrap(),
        Got::Decimal(0, 1, _)
    ));
    check(&["unsigned", "keyed.1.id"], "-0.0", Ok(Got::Integer(0)));
    check(&["zero_is_none"], "-0.0", Ok(Got::None));
    check(&["signed"], "-0.0", Ok(Got::Integer(0)));
    check(&["epoch", "either"], "-0.0", Ok(Got::Instant(0)));
    check(&["paid"], "-0.0", Ok(Got::None));
    check(
        &UNSIGNED,
        r#""-0.0""#,
        Err(r#"invalid integer "-0.0": expected only digits"#),
    );
}

#[test]
fn numbers_survive_serde_json_value_and_yaml() {
    let numbers: Numbers = decode(
        br#"{"decimal":12345678901234567.89,"unsigned":"18446744073709551615","signed":-7,"optional":"30.00",
            "zero_is_none":0,"list":{"0":"1.50","1":0.1000000000000000000001},"keyed":{"1":{"amount":2.5,"id":"2"},"0":{"amount":"1","id":1}},
            "epoch":1767571200,"paid":"0","either":"05-JAN-26"}"#,
    )
    .unwrap();
    assert_eq!(exact(numbers.decimal), dec(1_234_567_890_123_456_789, 2));
    // Through serde_json::Value: decimals are written as strings, so nothing is lost.
    let value = serde_json::to_value(&numbers).unwrap();
    assert_eq!(value["decimal"], "12345678901234567.89");
    let again: Numbers = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(again, numbers);
    assert_eq!(exact(again.optional.unwrap()), dec(3000, 2));
    let borrowed = Numbers::deserialize(&value).unwrap();
    assert_eq!(borrowed, numbers);
    // Through YAML, a format that is not JSON text (its deserializer knows no raw values).
    let yaml = serde_yaml::to_string(&numbers).unwrap();
    let again: Numbers = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(again, numbers);
    // Hand-written YAML numbers take the ordinary path (through f64, as YAML parses them).
    let row: Row = serde_yaml::from_str("amount: 30.25\nid: 7\n").unwrap();
    assert_eq!((row.amount.to_string(), row.id), ("30.25".to_owned(), 7));
}

#[test]
fn a_whole_response_round_trips_through_value_and_yaml() {
    let envelope = decode_checked::<TimesheetDetails>("pay/getTimesheet.json").unwrap();
    let value = serde_json::to_value(&envelope.data).unwrap();
    assert_eq!(
        serde_json::from_value::<TimesheetDetails>(value).unwrap(),
        envelope.data
    );
    let yaml = serde_yaml::to_string(&envelope.data).unwrap();
    assert_eq!(
        serde_yaml::from_str::<TimesheetDetails>(&yaml).unwrap(),
        envelope.data
    );
}

#[test]
fn buffered_values_inside_flatten_and_untagged_enums_still_decode() {
    // serde buffers these in its private `Content`, which knows no raw values: the decoders
    // fall back to the ordinary visits.
    #[derive(Debug, Deserialize)]
    struct Outer {
        #[serde(flatten)]
        row: Row,
    }
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    enum Either {
        Row(Row),
    }
    let outer: Outer = serde_json::from_str(r#"{"amount":30.25,"id":"7"}"#).unwrap();
    assert_eq!(outer.row.amount.to_string(), "30.25");
    assert_eq!(outer.row.id, 7);
    let Either::Row(row) = serde_json::from_str(r#"{"amount":"30.00","id":7.0}"#).unwrap();
    assert_eq!((row.amount.to_string(), row.id), ("30.00".to_owned(), 7));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any decimal a `Decimal` holds, written out, decodes to itself (same mantissa, scale and
    /// sign) as a JSON number, as a string, and as mantissa-and-exponent.
    #[test]
    fn a_decimal_text_is_the_same_value_as_a_number_and_as_a_string(
        mantissa in -(1_i128 << 96) + 1..(1_i128 << 96),
        scale in 0u32..=28,
    ) {
        let expected = Decimal::from_i128_with_scale(mantissa, scale);
        let text = expected.to_string();
        let want = exact(expected);
        prop_assert_eq!(decode_at("decimal", &text).unwrap(), want.clone());
        prop_assert_eq!(decode_at("keyed.1.amount", &format!("{text:?}")).unwrap(), want.clone());
        let scientific = format!("{mantissa}e-{scale}");
        prop_assert_eq!(decode_at("list.1", &scientific).unwrap(), want);
    }

    /// Any u64, with any number of zero places or as mantissa and exponent, is exact.
    #[test]
    fn an_integer_text_is_exact_in_every_spelling(value in any::<u64>(), places in 0usize..30) {
        let want = Got::Integer(value.into());
        prop_assert_eq!(decode_at("unsigned", &value.to_string()).unwrap(), want.clone());
        prop_assert_eq!(decode_at("unsigned", &format!("\"{value}\"")).unwrap(), want.clone());
        let zeros = "0".repeat(places);
        prop_assert_eq!(decode_at("keyed.1.id", &format!("{value}.{zeros}0")).unwrap(), want.clone());
        prop_assert_eq!(decode_at("zero_is_none", &format!("{value}{zeros}e-{places}")).unwrap(),
            if value == 0 { Got::None } else { want });
    }
}
