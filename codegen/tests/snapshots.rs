//! What the generator emits for each wire quirk, from small spec fragments.
//!
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always cargo test` and read the
//! diff of `tests/snapshots/`).

use marketplace_codegen::{SpecSource, generate_from_sources};

/// The module generated from one fragment file.
fn generate(yaml: &str) -> String {
    let sources = [SpecSource {
        path: "spec/fragment.yaml".to_owned(),
        text: yaml.to_owned(),
    }];
    let files = generate_from_sources(&sources).unwrap_or_else(|error| panic!("{error}"));
    files
        .into_iter()
        .find(|file| file.path == "fragment.rs")
        .map(|file| file.contents)
        .expect("the fragment's module is generated")
}

/// Snapshots the module generated from a fragment (the fragment itself is in the test).
macro_rules! snapshot {
    ($yaml:expr) => {
        insta::with_settings!({ omit_expression => true }, {
            insta::assert_snapshot!(generate(&$yaml));
        })
    };
}

/// A method delivering `response`, so per-method declarations have something to refer to.
fn method(name: &str, response: &str) -> String {
    format!("  {name}:\n    doc: A method.\n    response: {response}\n")
}

#[test]
fn index_keyed_collections_and_real_arrays() {
    snapshot!(format!(
        r#"
types:
  Invoice:
    doc: An invoice.
    fields:
      invoiceDetails:
        type: list<Detail>
        doc: Line items, delivered as an object keyed "0", "1", ...
      paymentIds:
        type: list<id>
        encoding: array
        doc: Payments, a plain JSON array of integers.
  Detail:
    doc: A line item.
    fields:
      description: {{ type: string, doc: What was billed. }}
methods:
{}"#,
        method("pay/getInvoice", "Invoice")
    ));
}

#[test]
fn numbers_delivered_as_strings_in_one_method() {
    snapshot!(format!(
        r#"
types:
  List:
    doc: The list response.
    fields:
      timesheets: {{ type: list<Timesheet>, doc: Timesheets. }}
  Timesheet:
    doc: A timesheet.
    fields:
      bidId:
        type: id
        doc: Workroom.
        encoding: {{ pay/getTimesheetsForBid: string, pay/getTimesheet: number }}
      rate:
        type: decimal
        doc: Hourly rate.
        encoding: {{ pay/getTimesheetsForBid: string, pay/getTimesheet: number }}
      totalResults:
        type: integer
        encoding: string
        doc: May arrive as a string.
methods:
{}{}"#,
        method("pay/getTimesheetsForBid", "List"),
        method("pay/getTimesheet", "Timesheet")
    ));
}

#[test]
fn dates_in_each_format_and_per_method() {
    snapshot!(format!(
        r#"
types:
  Timesheet:
    doc: A timesheet.
    fields:
      week: {{ type: date, encoding: dmy, doc: Week-ending day. }}
      day: {{ type: date, encoding: epoch, doc: The day. }}
      startDate:
        type: date
        doc: Start of the week.
        encoding: {{ pay/getTimesheetsForBid: dmy, pay/getTimesheet: epoch }}
  List:
    doc: The list.
    fields:
      timesheets: {{ type: list<Timesheet>, doc: Timesheets. }}
methods:
{}{}"#,
        method("pay/getTimesheetsForBid", "List"),
        method("pay/getTimesheet", "Timesheet")
    ));
}

#[test]
fn zero_null_and_absent_mean_none() {
    snapshot!(format!(
        r#"
types:
  Progress:
    doc: A progress item.
    fields:
      paidDate: {{ type: date, encoding: epoch, zero_is_none: true, doc: When it was paid. }}
      milestoneId: {{ type: id, zero_is_none: true, doc: The milestone. }}
      nextDate: {{ type: date, encoding: dmy, nullable: true, doc: The next day with data. }}
      invoiceId: {{ type: id, optional: Present only when an invoice exists., doc: The invoice. }}
      planComment: {{ type: string, only_in: [pay/getTimesheet], doc: The plan. }}
      clientUserId: {{ type: id, absent_in: [manage/getMyProviders], encoding: string, doc: The client. }}
methods:
{}{}"#,
        method("pay/getTimesheet", "Progress"),
        method("manage/getMyProviders", "Progress")
    ));
}

#[test]
fn payloads_delivered_under_other_names() {
    snapshot!(format!(
        r#"
types:
  PaymentDetails:
    doc: The data of pay/getPayment.
    fields:
      payment: {{ type: Payment, documented_as: invoice, doc: The payment. }}
  BillingDetails:
    doc: The data of pay/getBilling.
    fields:
      billing: {{ type: Payment, doc: The record the reference lists as siblings of bidDetails. }}
  StatusReportDetails:
    doc: The data of pay/getStatusReport.
    fields:
      statusReport: {{ type: Payment, documented_type: Timesheet, doc: The report. }}
  Payment:
    doc: A payment.
    fields:
      amount: {{ type: decimal, doc: Amount paid. }}
  Timesheet:
    doc: A timesheet.
    fields:
      id: {{ type: id, doc: ID. }}
methods:
{}{}{}"#,
        method("pay/getPayment", "PaymentDetails"),
        method("pay/getBilling", "BillingDetails"),
        method("pay/getStatusReport", "StatusReportDetails")
    ));
}

#[test]
fn open_and_closed_enums() {
    snapshot!(
        r#"
enums:
  ReportStatus:
    doc: Status of a report.
    values:
      Draft: Not yet sent.
      Sent: Sent to the client.
  SignatureMethod:
    doc: How requests are signed.
    open: false
    values:
      HMAC-SHA1: The only method.
"#
    );
}

#[test]
fn renamed_fields_keywords_and_loose_strings() {
    snapshot!(
        r#"
types:
  ScreenData:
    doc: A snapshot.
    fields:
      screenURL: { type: string, doc: Full image. }
      type: { type: string, rust_name: kind, doc: Kind of capture. }
      duration: { type: string, encoding: string_or_number, doc: Text or a number. }
      isHourly: { type: boolean, doc: Hourly work. }
"#
    );
}

#[test]
fn records_whose_fields_are_not_documented() {
    snapshot!(
        r#"
types:
  StatusReportComment:
    doc: A comment.
    opaque: true
"#
    );
}

#[test]
fn service_constants_oauth_endpoints_and_error_codes() {
    snapshot!(
        r#"
api:
  name: Marketplace
  doc: The service.
  data_path: /api
  api_version: 1
oauth:
  doc: OAuth 1.0a.
  https_required: true
  signature_method: HMAC-SHA1
  version: "1.0"
  token_lifetime_seconds: 21600
  endpoints:
    request_token: { method: POST, path: /oauth/getRequestToken, doc: Get a request token., response: [oauth_token, oauth_token_secret] }
    authorize: { method: GET, path: /oauth/authorizeToken, doc: Authorize. }
    access_token: { method: POST, path: /oauth/getAccessToken, doc: Get an access token. }
    revoke: { method: POST, path: /oauth/revokeToken, doc: Revoke. }
errors:
  E_API_AUTH_SIGNATURE_MISMATCH: { doc: The signature differs., kind: authentication }
  E_VALIDATION_INVALID_ID_BIDID: { doc: Neither id nor bidId., methods: [pay/getTimesheet] }
types:
  Timesheet:
    doc: A timesheet.
    fields:
      id: { type: id, doc: ID. }
methods:
  pay/getTimesheet: { doc: One timesheet., response: Timesheet, errors: [E_VALIDATION_INVALID_ID_BIDID] }
"#
    );
}

#[test]
fn paged_methods_and_either_or_parameters() {
    snapshot!(
        r#"
types:
  TimesheetList:
    doc: A page of timesheets.
    fields:
      totalPages: { type: count, doc: Number of pages. }
      timesheets: { type: list<Timesheet>, doc: The page's timesheets. }
  Timesheet:
    doc: A timesheet.
    fields:
      id: { type: id, doc: ID. }
methods:
  pay/getTimesheetsForBid:
    doc: All timesheets of a workroom, paged.
    response: TimesheetList
    params:
      bidId: { type: id, required: true, doc: Workroom. }
      rpp: { type: count, default: 10, min: 1, max: 25, doc: Results per page. }
      page: { type: count, default: 1, min: 1, doc: Page number. }
    paging: { page_param: page, size_param: rpp, items: timesheets, total_pages: totalPages, beyond_last: above_total }
  pay/getTimesheet:
    doc: One timesheet.
    response: Timesheet
    params:
      id: { type: id, doc: Timesheet ID. }
      bidId: { type: id, doc: Workroom; its current timesheet. }
      date: { type: date, doc: A day. }
    at_least_one_of: [id, bidId]
"#
    );
}

#[test]
fn model_builders_with_required_optional_and_list_fields() {
    snapshot!(format!(
        r#"
types:
  Sheet:
    doc: A timesheet.
    fields:
      id: {{ type: id, doc: Timesheet ID. }}
      week: {{ type: date, encoding: dmy, doc: Week-ending day. }}
      rate: {{ type: decimal, doc: Hourly rate. }}
      client: {{ type: string, doc: User name of the client. }}
      note:
        type: string
        optional: Present only once sent.
        doc: A note.
      invoiceIds:
        type: list<id>
        encoding: array
        doc: Invoices.
methods:
{}"#,
        method("pay/getSheet", "Sheet")
    ));
}

/// The generated docs never put "a" before a name that starts with a vowel (`a `Invoice``):
/// items are named without an article that fits only some names.
#[test]
fn docs_put_no_article_before_a_name_that_takes_another() {
    let module = generate(&format!(
        r#"
types:
  Invoice:
    doc: An invoice.
    fields:
      amount: {{ type: decimal, doc: Amount. }}
      item: {{ type: Item, doc: The item. }}
  Item:
    doc: An item.
    fields:
      id: {{ type: id, doc: Item ID. }}
methods:
{}
    params:
      id: {{ type: id, required: true, doc: Invoice ID. }}
      rpp: {{ type: count, default: 10, min: 1, max: 25, doc: Items per page. }}
"#,
        method("account/getInvoice", "Invoice")
    ));
    let wrong: Vec<&str> = module
        .lines()
        .filter(|line| line.trim_start().starts_with("///"))
        .filter(|line| {
            [" a `", " a [`", "A `", "A [`"].iter().any(|article| {
                line.match_indices(article).any(|(at, _)| {
                    line[at + article.len()..].starts_with(['A', 'E', 'I', 'O', 'a', 'e', 'i', 'o'])
                })
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
