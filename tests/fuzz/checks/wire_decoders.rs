//! Each quirk decoder of `marketplace_client::wire` on arbitrary JSON: numbers from strings,
//! exact decimals, both date formats, zero as none, index-keyed collections, open enums. And an
//! oracle for exactness: digits decode to the same value as a JSON number and as a string.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use jiff::Timestamp;
use jiff::civil::Date;
use marketplace_client::{DayOrInstant, Decimal, ReportStatus};
use serde::Deserialize;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Quirks {
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    id: Option<u64>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    integer: Option<i64>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    decimal: Option<Decimal>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    flag: Option<bool>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    text: Option<String>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    day: Option<Date>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    instant: Option<Timestamp>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    either: Option<DayOrInstant>,
    #[serde(default, with = "marketplace_client::wire::zero_is_none")]
    zero: Option<u64>,
    #[serde(default, with = "marketplace_client::wire::collection_opt")]
    statuses: Option<Vec<ReportStatus>>,
    #[serde(default, with = "marketplace_client::wire::lenient_list")]
    ids: Vec<u64>,
}

/// One exact number, for the number-versus-string oracle.
#[derive(Deserialize)]
struct Exact {
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    decimal: Option<Decimal>,
    #[serde(default, with = "marketplace_client::wire::lenient_opt")]
    id: Option<u64>,
}

/// `-?[0-9]+(\.[0-9]+)?` with no leading zero: a JSON number that is also a decimal string.
fn plain_number(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "1"));
    let all = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    all(whole) && all(fraction) && (whole == "0" || !whole.starts_with('0'))
}

pub fn check(input: &[u8]) {
    if let Some(text) = std::str::from_utf8(input)
        .ok()
        .filter(|text| plain_number(text))
    {
        for field in ["decimal", "id"] {
            let number = serde_json::from_str::<Exact>(&format!("{{\"{field}\": {text}}}"));
            let string = serde_json::from_str::<Exact>(&format!("{{\"{field}\": \"{text}\"}}"));
            if let (Ok(number), Ok(string)) = (&number, &string) {
                assert_eq!(
                    number.decimal.map(|d| d.serialize()),
                    string.decimal.map(|d| d.serialize()),
                    "{text}"
                );
                assert_eq!(number.id, string.id, "{text}");
            }
            // A decimal is exact or refused the same way in both spellings.
            if field == "decimal" {
                assert_eq!(number.is_ok(), string.is_ok(), "{text}");
            }
        }
    }

    // Every field on its own, so each decoder sees the input directly...
    for name in [
        "id", "integer", "decimal", "flag", "text", "day", "instant", "either", "zero", "statuses",
        "ids",
    ] {
        let mut body = format!("{{\"{name}\": ").into_bytes();
        body.extend_from_slice(input);
        body.push(b'}');
        let _ = serde_json::from_slice::<Quirks>(&body);
    }
    // ...and the input as a whole object.
    let _ = serde_json::from_slice::<Quirks>(input);
}
