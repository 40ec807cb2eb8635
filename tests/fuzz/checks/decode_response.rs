//! Decoding a response of any data method from arbitrary bytes: never a panic, a hang or
//! unbounded memory; a failure names a JSON path. The first byte picks the method.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use marketplace_client::{
    BillingDetails, Envelope, InvoiceSummary, PaymentDetails, ProviderList, StatusReportDetails,
    StatusReportList, TimesheetDetails, TimesheetList, Workview, decode,
};

fn decodes<T: serde::de::DeserializeOwned>(body: &[u8]) {
    if let Err(error) = decode::<Envelope<T>>(body) {
        assert!(!error.path.is_empty());
    }
}

pub fn check(input: &[u8]) {
    let Some((&method, body)) = input.split_first() else {
        return;
    };
    match method % 9 {
        0 => decodes::<TimesheetList>(body),
        1 => decodes::<StatusReportList>(body),
        2 => decodes::<TimesheetDetails>(body),
        3 => decodes::<StatusReportDetails>(body),
        4 => decodes::<BillingDetails>(body),
        5 => decodes::<InvoiceSummary>(body),
        6 => decodes::<PaymentDetails>(body),
        7 => decodes::<ProviderList>(body),
        _ => decodes::<Workview>(body),
    }
}
