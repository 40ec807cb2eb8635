//! Decoding a response of any data method from arbitrary bytes: never a panic, a hang or
//! unbounded memory; a failure names a JSON path. The first byte picks the method.
#![no_main]

use libfuzzer_sys::fuzz_target;
use marketplace_client::{
    BillingDetails, Envelope, InvoiceSummary, PaymentDetails, ProviderList, StatusReportDetails,
    StatusReportList, TimesheetDetails, TimesheetList, Workview, decode,
};

fn check<T: serde::de::DeserializeOwned>(body: &[u8]) {
    if let Err(error) = decode::<Envelope<T>>(body) {
        assert!(!error.path.is_empty());
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&method, body)) = input.split_first() else {
        return;
    };
    match method % 9 {
        0 => check::<TimesheetList>(body),
        1 => check::<StatusReportList>(body),
        2 => check::<TimesheetDetails>(body),
        3 => check::<StatusReportDetails>(body),
        4 => check::<BillingDetails>(body),
        5 => check::<InvoiceSummary>(body),
        6 => check::<PaymentDetails>(body),
        7 => check::<ProviderList>(body),
        _ => check::<Workview>(body),
    }
});
