//! Full pages of the wire format for the decode and memory benches, and the plain serde
//! structs they are compared with.
//!
//! For each paged method at its largest page (25 timesheets of pay/getTimesheetsForBid, 25
//! status reports, 25 providers of manage/getMyProviders, 10 screen buckets of 6 screens of
//! workroom/getWorkviewDetails) and for a large pay/getBilling record (50 invoice details, 50
//! activities, 25 payments), the wire body is built from the first item of the matching fixture
//! in `tests/fixtures/`, cloned with varied ids and keyed `"0"`..`"N-1"` as the service sends it.
//!
//! The decoders compared on each page ([`Page::decoders`]):
//!
//! - `project`: `marketplace_client::decode::<Envelope<T>>` of the wire bytes into the generated
//!   type (numbers in strings, `DD-MON-YY` dates, index-keyed objects, `0` for none, JSON paths
//!   on error);
//! - `plain_derive` (the baseline): `serde_json::from_slice` of the *normalized* JSON (what the
//!   generated type's `Serialize` writes: arrays, JSON integers, decimal strings, ISO dates)
//!   into hand-written plain `#[derive(Deserialize)]` mirror structs with the same field types
//!   and no custom deserializer;
//! - `ignored_any`: `serde_json::from_slice::<IgnoredAny>` of the wire bytes, the floor of
//!   parsing the body at all (for information);
//! - `no_path`: `serde_json::from_slice::<Envelope<T>>` of the wire bytes, the generated type
//!   without `decode`'s JSON-path pass, which only runs after a failure (for information);
//! - `plain_derive_str`: the plain derive read as `decode` reads a body, its UTF-8 checked once
//!   as a whole and then parsed from a `str` (for information: how much of the project's lead
//!   over the plain derive is that).
//!
//! Every input is checked when it is built: the wire decodes, the mirror structs decode the
//! normalized JSON and serialize back to exactly that JSON (so they hold the same data), and
//! each page has the intended number of items. Each decoder drops what it decoded, as
//! criterion's `iter` does.

use std::hint::black_box;

use marketplace_client::{
    BillingDetails, Envelope, ProviderList, StatusReportList, TimesheetList, Workview, decode,
};
use marketplace_tests::fixtures;
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

/// One page: its wire body, its normalized form, and where it shows in the tables.
pub struct Page {
    /// The criterion group (`decode_timesheets`).
    pub group: &'static str,
    /// The label in the tables (`25 timesheets`).
    pub label: &'static str,
    wire: Vec<u8>,
    normalized: Vec<u8>,
    project: fn(&[u8]),
    plain_derive: fn(&[u8]),
    no_path: fn(&[u8]),
    plain_derive_str: fn(&[u8]),
}

/// A decoder of a page and its input.
pub struct Decoder<'a> {
    /// The criterion function name.
    pub name: &'static str,
    decode: fn(&[u8]),
    input: &'a [u8],
}

impl Decoder<'_> {
    /// Decodes the input once and drops the result.
    pub fn run(&self) {
        (self.decode)(black_box(self.input));
    }
}

impl Page {
    /// The decoders compared on this page (see the module documentation), the project first
    /// and the plain derive second.
    pub fn decoders(&self) -> [Decoder<'_>; 5] {
        let decoder = |name, decode, input| Decoder {
            name,
            decode,
            input,
        };
        [
            decoder("project", self.project, &self.wire),
            decoder("plain_derive", self.plain_derive, &self.normalized),
            decoder("ignored_any", ignored_any, &self.wire),
            decoder("no_path", self.no_path, &self.wire),
            decoder("plain_derive_str", self.plain_derive_str, &self.normalized),
        ]
    }

    /// The sizes of the page's two inputs, for the bench's log.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}): wire {} bytes, normalized {} bytes",
            self.group,
            self.label,
            self.wire.len(),
            self.normalized.len()
        )
    }
}

fn project<T: DeserializeOwned>(wire: &[u8]) {
    black_box(decode::<Envelope<T>>(wire).expect("decodes"));
}

fn plain_derive<P: DeserializeOwned>(normalized: &[u8]) {
    black_box(serde_json::from_slice::<plain::Envelope<P>>(normalized).expect("decodes"));
}

fn plain_derive_str<P: DeserializeOwned>(normalized: &[u8]) {
    let text = std::str::from_utf8(normalized).expect("UTF-8");
    black_box(serde_json::from_str::<plain::Envelope<P>>(text).expect("decodes"));
}

fn ignored_any(wire: &[u8]) {
    black_box(serde_json::from_slice::<IgnoredAny>(wire).expect("parses"));
}

fn no_path<T: DeserializeOwned>(wire: &[u8]) {
    black_box(serde_json::from_slice::<Envelope<T>>(wire).expect("decodes"));
}

/// Checks the page and derives its normalized form; `count` says how many items it must hold.
fn prepare<T, P>(
    (group, label): (&'static str, &'static str),
    wire: String,
    count: impl Fn(&T) -> usize,
    expected: usize,
) -> Page
where
    T: DeserializeOwned + Serialize,
    P: DeserializeOwned + Serialize,
{
    let typed: Envelope<T> =
        decode(wire.as_bytes()).unwrap_or_else(|error| panic!("{label}: {error}"));
    assert_eq!(count(&typed.data), expected, "{label}: items on the page");
    let normalized = serde_json::to_vec(&typed).expect("serialize");
    let plain: plain::Envelope<P> = serde_json::from_slice(&normalized)
        .unwrap_or_else(|error| panic!("{label}: the mirror structs: {error}"));
    let normalized_value: Value = serde_json::from_slice(&normalized).expect("normalized JSON");
    assert_eq!(
        serde_json::to_value(&plain).expect("serialize the mirror"),
        normalized_value,
        "{label}: the mirror structs must hold exactly the normalized data"
    );
    Page {
        group,
        label,
        wire: wire.into_bytes(),
        normalized,
        project: project::<T>,
        plain_derive: plain_derive::<P>,
        no_path: no_path::<T>,
        plain_derive_str: plain_derive_str::<P>,
    }
}

/// The five pages, built and checked.
pub fn all() -> Vec<Page> {
    vec![
        prepare::<TimesheetList, plain::TimesheetList>(
            ("decode_timesheets", "25 timesheets"),
            timesheets_wire(),
            |page| page.timesheets.len(),
            25,
        ),
        prepare::<StatusReportList, plain::StatusReportList>(
            ("decode_status_reports", "25 status reports"),
            status_reports_wire(),
            |page| page.status_reports.len(),
            25,
        ),
        prepare::<ProviderList, plain::ProviderList>(
            ("decode_providers", "25 providers"),
            providers_wire(),
            |page| page.agents.len(),
            25,
        ),
        prepare::<Workview, plain::Workview>(
            ("decode_workview", "10 buckets x 6 screens"),
            workview_wire(),
            |page| page.screen_buckets.iter().map(|b| b.screens.len()).sum(),
            60,
        ),
        prepare::<BillingDetails, plain::BillingDetails>(
            ("decode_billing", "billing 50/50/25"),
            billing_wire(),
            |page| {
                let billing = &page.billing;
                billing.invoice_details.len()
                    + billing.invoice_activity.len()
                    + billing.payments.len()
            },
            125,
        ),
    ]
}
