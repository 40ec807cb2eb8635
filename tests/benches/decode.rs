//! Decoding full pages of the wire format: the project's quirk decoders against plain serde.
//!
//! For each paged method at its largest page (25 timesheets of pay/getTimesheetsForBid, 25
//! status reports, 25 providers of manage/getMyProviders, 10 screen buckets of 6 screens of
//! workroom/getWorkviewDetails) and for a large pay/getBilling record (50 invoice details, 50
//! activities, 25 payments), the wire body is built from the first item of the matching fixture
//! in `tests/fixtures/`, cloned with varied ids and keyed `"0"`..`"N-1"` as the service sends it.
//!
//! Measured on the same data in the same run:
//!
//! - `project`: `marketplace_client::decode::<Envelope<T>>` of the wire bytes into the generated
//!   type (numbers in strings, `DD-MON-YY` dates, index-keyed objects, `0` for none, JSON paths
//!   on error);
//! - `plain_derive` (baseline a): `serde_json::from_slice` of the *normalized* JSON (what the
//!   generated type's `Serialize` writes: arrays, JSON integers, decimal strings, ISO dates)
//!   into hand-written plain `#[derive(Deserialize)]` mirror structs with the same field types
//!   and no custom deserializer. The target is project / plain_derive <= 1.15;
//! - `ignored_any` (baseline b): `serde_json::from_slice::<IgnoredAny>` of the wire bytes, the
//!   floor of parsing the body at all (for information);
//! - `no_path` (for information): `serde_json::from_slice::<Envelope<T>>` of the wire bytes,
//!   the generated type without `decode`'s JSON-path tracking.
//!
//! Before timing, every input is checked: the wire decodes, the mirror structs decode the
//! normalized JSON and serialize back to exactly that JSON (so they hold the same data), and
//! each page has the intended number of items.

#[path = "ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use marketplace_client::{
    BillingDetails, Envelope, ProviderList, StatusReportList, TimesheetList, Workview, decode,
};
use marketplace_tests::fixtures;
use ratio::{Row, Target, id};
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::{Value, json};

/// Plain serde mirrors of the generated types: same field Rust types (enums as `String`, the
/// list variant's day-or-instant dates as `Date`), derived `Deserialize` only.
mod plain {
    use jiff::Timestamp;
    use jiff::civil::Date;
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Envelope<T> {
        pub api: String,
        pub api_version: i64,
        pub rcode: i64,
        pub data: T,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Bid {
        pub bid_id: u64,
        pub job_id: String,
        pub job_name: String,
        pub user_type: String,
        pub client_user_id: Option<String>,
        pub client_name: String,
        #[serde(rename = "clientImageURL")]
        pub client_image_url: String,
        pub client_country: String,
        pub client_country_code: String,
        pub client_city: Option<String>,
        pub provider_user_id: Option<u64>,
        pub provider_name: String,
        #[serde(rename = "providerImageURL")]
        pub provider_image_url: String,
        pub provider_country: String,
        pub provider_country_code: String,
        pub provider_city: String,
        pub phase: i64,
        pub status: String,
        pub secondary_status: Option<String>,
        pub is_hourly: bool,
        pub is_sponsored: bool,
        pub is_pre_bid: bool,
        pub bid_amount: Decimal,
        pub hours_per_week: Option<String>,
        pub duration: String,
        pub submission_date: Option<Timestamp>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Timesheet {
        pub id: u64,
        pub week: Date,
        pub bid_id: u64,
        pub client: String,
        pub provider: String,
        pub client_user_id: u64,
        pub provider_user_id: u64,
        pub status: String,
        pub project_status: String,
        pub project_status_changed_by: String,
        pub plan_comment: Option<String>,
        pub start_date: Date,
        pub end_date: Date,
        pub next_end_date: Date,
        pub submit_date: Option<Date>,
        pub sent_date: Option<Date>,
        pub approve_by_date: Option<Date>,
        pub auto_pay_date: Option<Date>,
        pub total_hours: Decimal,
        pub adjusted_hours: Option<Decimal>,
        pub authorized_hours: Decimal,
        pub billed_hours: Decimal,
        pub auto_pay_hours: Decimal,
        pub next_authorized_hours: Decimal,
        pub rate: Decimal,
        pub amount_billed: Option<Decimal>,
        pub amount_paid: Option<Decimal>,
        pub amount_outstanding: Option<Decimal>,
        pub overdue: bool,
        pub seen_by_client: bool,
        pub invoice_id: Option<u64>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct TimesheetList {
        pub total_results: u64,
        pub total_pages: u64,
        pub page: u64,
        pub num_results: u64,
        pub bid_details: Bid,
        pub timesheets: Vec<Timesheet>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct StatusReport {
        pub id: Option<u64>,
        pub week: Date,
        pub bid_id: u64,
        pub client_user_id: u64,
        pub provider_user_id: u64,
        pub client: String,
        pub provider: String,
        pub status: String,
        pub project_status: String,
        pub project_status_changed_by: String,
        pub plan_comment: String,
        pub start_date: Timestamp,
        pub end_date: Timestamp,
        pub next_end_date: Timestamp,
        pub submit_date: Option<Timestamp>,
        pub sent_date: Option<Timestamp>,
        pub approve_by_date: Option<Timestamp>,
        pub total_hours: Decimal,
        pub overdue: bool,
        pub seen_by_client: bool,
        pub invoice_ids: Vec<u64>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct StatusReportList {
        pub total_results: u64,
        pub total_pages: u64,
        pub page: u64,
        pub num_results: u64,
        pub bid_details: Bid,
        pub status_reports: Vec<StatusReport>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ScreenData {
        pub timestamp: Timestamp,
        pub user_id: u64,
        pub user_name: String,
        pub company_name: String,
        #[serde(rename = "logoURL")]
        pub logo_url: String,
        pub num_comments: i64,
        pub bid_id: Option<u64>,
        pub bid_data: Option<Bid>,
        pub date: Date,
        pub screen_id: Option<String>,
        #[serde(rename = "screenURL")]
        pub screen_url: Option<String>,
        #[serde(rename = "thumbURL")]
        pub thumb_url: Option<String>,
        #[serde(rename = "tileURL")]
        pub tile_url: Option<String>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Agent {
        pub screen_data: ScreenData,
        pub is_on_tracker: bool,
        pub hours: Decimal,
        pub hours_today: Decimal,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ProviderList {
        pub job_name: Option<String>,
        pub total_results: u64,
        pub total_pages: u64,
        pub page: u64,
        pub num_results: u64,
        pub agents: Vec<Agent>,
    }

    #[derive(Serialize, Deserialize)]
    pub struct ScreenBucket {
        pub title: String,
        pub screens: Vec<ScreenData>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Workview {
        pub bid_data: Bid,
        pub hours: i64,
        pub date: Date,
        pub prev_date: Option<Date>,
        pub next_date: Option<Date>,
        pub user_name: String,
        pub screen_buckets: Vec<ScreenBucket>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Invoice {
        pub id: u64,
        pub date: Timestamp,
        pub bid_id: u64,
        pub job_id: u64,
        pub client_user_id: u64,
        pub provider_user_id: u64,
        pub client: String,
        pub provider: String,
        #[serde(rename = "type")]
        pub kind: String,
        pub status: String,
        pub amount_billed: Decimal,
        pub amount_paid: Decimal,
        pub amount_outstanding: Decimal,
        pub currency: String,
        pub comments: String,
        pub line_item_count: i64,
        pub payment_ids: Vec<u64>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct InvoiceDetail {
        pub parent_id: u64,
        pub description: String,
        #[serde(rename = "type")]
        pub kind: String,
        pub milestone_id: u64,
        pub milestone_description: String,
        pub rate: Decimal,
        pub hours: Decimal,
        pub amount: Decimal,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct InvoiceActivity {
        pub parent_id: u64,
        pub activity: String,
        pub user: String,
        pub date: Timestamp,
        pub comments: String,
        pub payment_id: Option<u64>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Payment {
        pub id: u64,
        pub date: Timestamp,
        pub bid_id: u64,
        pub job_id: u64,
        pub client_user_id: u64,
        pub provider_user_id: u64,
        pub client: String,
        pub provider: String,
        pub from_account_id: u64,
        pub to_account_id: u64,
        pub invoice_id: u64,
        pub internal_payment_display: String,
        pub external_payment_id: Option<u64>,
        pub external_payment_display: String,
        pub from_amount: Decimal,
        pub to_amount: Decimal,
        pub amount: Decimal,
        pub from_currency: String,
        pub to_currency: String,
        pub from_description: String,
        pub to_description: String,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Billing {
        pub invoice: Invoice,
        pub invoice_details: Vec<InvoiceDetail>,
        pub invoice_activity: Vec<InvoiceActivity>,
        pub payments: Vec<Payment>,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct BillingDetails {
        pub bid_details: Bid,
        pub billing: Billing,
    }
}

/// The inputs of one page: the wire body and its normalized form.
struct Input {
    wire: Vec<u8>,
    normalized: Vec<u8>,
}

fn fixture(name: &str) -> Value {
    let bytes = fixtures::read(name).unwrap_or_else(|error| panic!("{error}"));
    serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// An index-keyed object `{"0": .., "1": .., ...}` in index order, as the service writes it.
/// Written by hand because `serde_json::Map` (without `preserve_order`) would sort the keys as
/// text ("0", "1", "10", ...).
fn keyed(items: &[String]) -> String {
    let members: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(index, item)| format!("\"{index}\":{item}"))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// `value` as JSON text with each `"@hole"` string replaced by the given JSON text.
fn splice(value: &Value, holes: &[(&str, String)]) -> String {
    let mut text = value.to_string();
    for (hole, replacement) in holes {
        let quoted = format!("\"@{hole}\"");
        assert!(text.contains(&quoted), "no hole {hole}");
        text = text.replace(&quoted, replacement);
    }
    text
}

/// `count` clones of `template`, each changed by `vary(item, index)`, as JSON texts.
fn clones(template: &Value, count: usize, vary: impl Fn(&mut Value, usize)) -> Vec<String> {
    (0..count)
        .map(|index| {
            let mut item = template.clone();
            vary(&mut item, index);
            item.to_string()
        })
        .collect()
}

/// Replaces `data[key]` of the envelope by `count` clones of its first item and returns the
/// wire text.
fn page(name: &str, key: &str, count: usize, vary: impl Fn(&mut Value, usize)) -> String {
    let mut envelope = fixture(name);
    let template = envelope["data"][key]["0"].clone();
    envelope["data"][key] = json!(format!("@{key}"));
    splice(&envelope, &[(key, keyed(&clones(&template, count, vary)))])
}

fn timesheets_wire() -> String {
    page(
        "pay/getTimesheetsForBid.json",
        "timesheets",
        25,
        |item, i| {
            item["id"] = json!(880_104 + i);
            item["invoiceId"] = json!((9_003 + i).to_string());
        },
    )
}

fn status_reports_wire() -> String {
    page(
        "pay/getStatusReportsForBid.json",
        "statusReports",
        25,
        |item, i| {
            item["id"] = json!(990_201 + i);
        },
    )
}

fn providers_wire() -> String {
    page("manage/getMyProviders.json", "agents", 25, |item, i| {
        let screen = &mut item["screenData"];
        screen["userId"] = json!((50_001 + i).to_string());
        screen["bidId"] = json!((310_001 + i).to_string());
        screen["bidData"]["bidId"] = json!((310_001 + i).to_string());
    })
}

/// 10 hourly buckets of 6 screens (one every 10 minutes).
fn workview_wire() -> String {
    let mut envelope = fixture("workroom/getWorkviewDetails.json");
    let mut bucket = envelope["data"]["screenBuckets"]["0"].clone();
    let screen = bucket["screens"]["0"].clone();
    bucket["screens"] = json!("@screens");
    let buckets: Vec<String> = (0..10)
        .map(|b| {
            let mut bucket = bucket.clone();
            bucket["title"] = json!(format!("{}:00 - {}:00", 8 + b, 9 + b));
            let screens = clones(&screen, 6, |screen, s| {
                let n = b * 6 + s;
                screen["screenId"] = json!((5_500_101 + n).to_string());
                screen["timestamp"] = json!(1_767_600_000 + 600 * n);
            });
            splice(&bucket, &[("screens", keyed(&screens))])
        })
        .collect();
    envelope["data"]["screenBuckets"] = json!("@screenBuckets");
    splice(&envelope, &[("screenBuckets", keyed(&buckets))])
}

/// 50 invoice details, 50 activities, 25 payments.
fn billing_wire() -> String {
    let mut envelope = fixture("pay/getBilling.json");
    let billing = &mut envelope["data"]["billing"];
    let detail = billing["invoiceDetails"]["0"].clone();
    let activity = billing["invoiceActivity"]["0"].clone();
    let payment = billing["payments"]["0"].clone();
    billing["invoiceDetails"] = json!("@invoiceDetails");
    billing["invoiceActivity"] = json!("@invoiceActivity");
    billing["payments"] = json!("@payments");
    let details = clones(&detail, 50, |item, i| {
        item["milestoneId"] = json!(660_011 + i);
    });
    let activities = clones(&activity, 50, |item, i| {
        item["date"] = json!(1_768_810_445 + 60 * i);
    });
    let payments = clones(&payment, 25, |item, i| {
        item["id"] = json!(7_001 + i);
        item["invoiceId"] = json!(9_003 + i);
    });
    splice(
        &envelope,
        &[
            ("invoiceDetails", keyed(&details)),
            ("invoiceActivity", keyed(&activities)),
            ("payments", keyed(&payments)),
        ],
    )
}

/// Checks the page and derives its normalized form; `count` says how many items it must hold.
fn prepare<T, P>(name: &str, wire: String, count: impl Fn(&T) -> usize, expected: usize) -> Input
where
    T: DeserializeOwned + Serialize,
    P: DeserializeOwned + Serialize,
{
    let typed: Envelope<T> =
        decode(wire.as_bytes()).unwrap_or_else(|error| panic!("{name}: {error}"));
    assert_eq!(count(&typed.data), expected, "{name}: items on the page");
    let normalized = serde_json::to_vec(&typed).expect("serialize");
    let plain: plain::Envelope<P> = serde_json::from_slice(&normalized)
        .unwrap_or_else(|error| panic!("{name}: the mirror structs: {error}"));
    let normalized_value: Value = serde_json::from_slice(&normalized).expect("normalized JSON");
    assert_eq!(
        serde_json::to_value(&plain).expect("serialize the mirror"),
        normalized_value,
        "{name}: the mirror structs must hold exactly the normalized data"
    );
    Input {
        wire: wire.into_bytes(),
        normalized,
    }
}

/// The four functions of one page's group.
fn bench_page<T, P>(c: &mut Criterion, group: &str, input: &Input)
where
    T: DeserializeOwned,
    P: DeserializeOwned,
{
    let mut group = c.benchmark_group(group);
    group.bench_function("project", |b| {
        b.iter(|| decode::<Envelope<T>>(black_box(&input.wire)).expect("decodes"));
    });
    group.bench_function("plain_derive", |b| {
        b.iter(|| {
            serde_json::from_slice::<plain::Envelope<P>>(black_box(&input.normalized))
                .expect("decodes")
        });
    });
    group.bench_function("ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&input.wire)).expect("parses"));
    });
    group.bench_function("no_path", |b| {
        b.iter(|| serde_json::from_slice::<Envelope<T>>(black_box(&input.wire)).expect("decodes"));
    });
    group.finish();
}

/// The pages: (group, table label).
const PAGES: [(&str, &str); 5] = [
    ("decode_timesheets", "25 timesheets"),
    ("decode_status_reports", "25 status reports"),
    ("decode_providers", "25 providers"),
    ("decode_workview", "10 buckets x 6 screens"),
    ("decode_billing", "billing 50/50/25"),
];

fn main() {
    let started = SystemTime::now();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .configure_from_args();

    let timesheets = prepare::<TimesheetList, plain::TimesheetList>(
        "timesheets",
        timesheets_wire(),
        |page| page.timesheets.len(),
        25,
    );
    let status_reports = prepare::<StatusReportList, plain::StatusReportList>(
        "status reports",
        status_reports_wire(),
        |page| page.status_reports.len(),
        25,
    );
    let providers = prepare::<ProviderList, plain::ProviderList>(
        "providers",
        providers_wire(),
        |page| page.agents.len(),
        25,
    );
    let workview = prepare::<Workview, plain::Workview>(
        "workview",
        workview_wire(),
        |page| page.screen_buckets.iter().map(|b| b.screens.len()).sum(),
        60,
    );
    let billing = prepare::<BillingDetails, plain::BillingDetails>(
        "billing",
        billing_wire(),
        |page| {
            let billing = &page.billing;
            billing.invoice_details.len() + billing.invoice_activity.len() + billing.payments.len()
        },
        125,
    );
    for ((group, label), input) in PAGES.iter().zip([
        &timesheets,
        &status_reports,
        &providers,
        &workview,
        &billing,
    ]) {
        println!(
            "{group} ({label}): wire {} bytes, normalized {} bytes",
            input.wire.len(),
            input.normalized.len()
        );
    }

    bench_page::<TimesheetList, plain::TimesheetList>(&mut c, PAGES[0].0, &timesheets);
    bench_page::<StatusReportList, plain::StatusReportList>(&mut c, PAGES[1].0, &status_reports);
    bench_page::<ProviderList, plain::ProviderList>(&mut c, PAGES[2].0, &providers);
    bench_page::<Workview, plain::Workview>(&mut c, PAGES[3].0, &workview);
    bench_page::<BillingDetails, plain::BillingDetails>(&mut c, PAGES[4].0, &billing);
    c.final_summary();

    let mut rows = Vec::new();
    for (group, label) in PAGES {
        let project = id(group, "project");
        rows.push(Row {
            name: label,
            project,
            baseline: Some(id(group, "plain_derive")),
            target: Target {
                max_ratio: Some(1.15),
                min_speedup: None,
            },
        });
        rows.push(Row {
            name: "  vs parse floor (IgnoredAny)",
            project,
            baseline: Some(id(group, "ignored_any")),
            target: Target::default(),
        });
        rows.push(Row {
            name: "  vs same type, no JSON path",
            project,
            baseline: Some(id(group, "no_path")),
            target: Target::default(),
        });
    }
    ratio::report("decode", started, &rows);
}
