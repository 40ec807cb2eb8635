//! Each quirk decoder of `marketplace_client::wire` on arbitrary JSON: numbers from strings,
//! exact decimals, both date formats, zero as none, index-keyed collections, open enums.
#![no_main]

use jiff::Timestamp;
use jiff::civil::Date;
use libfuzzer_sys::fuzz_target;
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

fuzz_target!(|input: &[u8]| {
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
});
