//! Every resource of every method decodes from its wire fixture into the right typed values:
//! a date is a date, "30.00" is the decimal 30.00, `{}` is an empty list, 0 is none.
//! Each fixture also passes the round-trip check (no field dropped, encode/decode stable).

use marketplace_client::jiff::Timestamp;
use marketplace_client::jiff::civil::{Date, date};
use marketplace_client::{
    BidStatus, BillingDetails, DayOrInstant, Decimal, Envelope, InvoiceActivityKind,
    InvoiceDetailType, InvoiceStatus, InvoiceSummary, InvoiceType, PaymentDetails, ProjectStatus,
    ProviderList, ReportStatus, StatusReportDetails, StatusReportList, TimesheetDetails,
    TimesheetList, UserType, WorkItemType, Workview,
};
use marketplace_tests::fixtures::decode_checked;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn fixture<T>(name: &str) -> Envelope<T>
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    decode_checked(name).unwrap_or_else(|error| panic!("{error}"))
}

fn dec(text: &str) -> Decimal {
    text.parse().unwrap()
}

fn at(epoch: i64) -> Timestamp {
    Timestamp::from_second(epoch).unwrap()
}

fn day(y: i16, m: i8, d: i8) -> Date {
    date(y, m, d)
}

#[test]
fn timesheet_list_decodes_strings_and_dmy_dates() {
    let envelope = fixture::<TimesheetList>("pay/getTimesheetsForBid.json");
    assert_eq!(envelope.api, "pay/getTimesheetsForBid");
    assert_eq!((envelope.api_version, envelope.rcode), (1, 1));
    let list = envelope.data;
    assert_eq!(
        (
            list.total_results,
            list.total_pages,
            list.page,
            list.num_results
        ),
        (5, 3, 1, 2)
    );

    let bid = &list.bid_details;
    assert_eq!(bid.bid_id, 310001);
    // Strings in the reference with no evidence of a number stay text.
    assert_eq!(bid.job_id, "220001");
    assert_eq!(bid.hours_per_week.as_deref(), Some("20"));
    assert_eq!(bid.user_type, UserType::Client);
    assert_eq!(bid.client_user_id.as_deref(), Some("40001"));
    assert_eq!(bid.provider_user_id, Some(50001));
    assert_eq!(bid.status, BidStatus::Working);
    assert_eq!(bid.phase, 5);
    assert_eq!(bid.bid_amount, dec("1500.00"));
    assert!(bid.is_hourly);

    assert_eq!(list.timesheets.len(), 2);
    let sent = &list.timesheets[0];
    assert_eq!(sent.id, 880104);
    assert_eq!(sent.week, day(2026, 1, 18));
    assert_eq!(sent.bid_id, 310001);
    assert_eq!(sent.status, ReportStatus::Sent);
    assert_eq!(sent.project_status, ProjectStatus::Ok);
    // "30.00" is the exact decimal 30.00, scale kept.
    assert_eq!(sent.rate, dec("30.00"));
    assert_eq!(sent.rate.to_string(), "30.00");
    assert_eq!(sent.total_hours, dec("12.5"));
    assert!(sent.adjusted_hours.is_some());
    assert_eq!(sent.invoice_id, Some(9003));
    assert_eq!(sent.start_date, DayOrInstant::Day(day(2026, 1, 12)));
    assert_eq!(sent.end_date, DayOrInstant::Day(day(2026, 1, 18)));
    assert!(matches!(sent.submit_date, Some(DayOrInstant::Day(_))));
    assert!(
        sent.plan_comment.is_none(),
        "planComment is only in pay/getTimesheet"
    );
    assert!(sent.amount_billed.is_none());

    let draft = &list.timesheets[1];
    assert_eq!(draft.id, 880105);
    assert_eq!(draft.status, ReportStatus::Draft);
    assert_eq!(draft.week, day(2026, 1, 25));
    assert_eq!(draft.submit_date, None);
    assert_eq!(draft.sent_date, None);
    assert_eq!(draft.approve_by_date, None);
    assert_eq!(draft.auto_pay_date, None);
    assert_eq!(draft.invoice_id, None);
}

#[test]
fn collections_decode_from_objects_arrays_and_both_empty_forms() {
    let keyed = fixture::<TimesheetList>("pay/getTimesheetsForBid.json").data;
    let array = fixture::<TimesheetList>("pay/getTimesheetsForBid-array.json").data;
    assert_eq!(keyed, array);

    let empty_object = fixture::<TimesheetList>("pay/getTimesheetsForBid-empty.json").data;
    let empty_array = fixture::<TimesheetList>("pay/getTimesheetsForBid-empty-array.json").data;
    assert!(empty_object.timesheets.is_empty());
    assert_eq!((empty_object.page, empty_object.num_results), (4, 0));
    assert_eq!(empty_object, empty_array);
}

#[test]
fn status_report_list_decodes_epochs_real_arrays_and_the_unstored_draft() {
    let list = fixture::<StatusReportList>("pay/getStatusReportsForBid.json").data;
    assert_eq!(
        (list.total_results, list.total_pages, list.num_results),
        (3, 1, 3)
    );
    let bid = &list.bid_details;
    assert_eq!(bid.bid_id, 310002);
    assert_eq!(bid.user_type, UserType::Provider);
    assert!(!bid.is_hourly);
    assert_eq!(
        bid.duration, "30",
        "an integer duration is kept as its text"
    );
    assert_eq!(bid.submission_date, Some(at(1767006300)));

    let reports = &list.status_reports;
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[0].id, Some(990201));
    assert_eq!(reports[0].week, day(2026, 1, 11));
    assert_eq!(reports[0].invoice_ids, [9001, 9002]);
    assert!(reports[0].submit_date.is_some());
    assert_eq!(reports[1].id, Some(990202));
    assert!(reports[1].invoice_ids.is_empty());
    assert_eq!(reports[1].approve_by_date, Some(at(1769385600)));

    let draft = &reports[2];
    assert_eq!(draft.id, None, "id 0 is the current, not yet stored draft");
    assert_eq!(draft.status, ReportStatus::Draft);
    assert_eq!(draft.week, day(2026, 1, 25));
    assert_eq!(draft.submit_date, None);
    assert_eq!(draft.total_hours, dec("9.0"));
}

#[test]
fn single_timesheet_decodes_numbers_epochs_and_work_items() {
    let details = fixture::<TimesheetDetails>("pay/getTimesheet.json").data;
    let sheet = &details.timesheet;
    assert_eq!(sheet.id, 880104);
    assert_eq!(sheet.week, day(2026, 1, 18));
    assert_eq!(sheet.client_user_id, 40001);
    assert_eq!(sheet.start_date, DayOrInstant::Instant(at(1768176000)));
    assert_eq!(sheet.start_date.date(), day(2026, 1, 12));
    assert_eq!(sheet.rate, dec("30"));
    assert_eq!(sheet.amount_billed, Some(dec("375.00")));
    assert_eq!(sheet.amount_outstanding, Some(Decimal::ZERO));
    assert_eq!(sheet.invoice_id, Some(9003));
    assert!(sheet.plan_comment.as_deref().is_some_and(|c| !c.is_empty()));
    assert!(
        sheet.adjusted_hours.is_none(),
        "adjustedHours is only in the list"
    );
    assert!(details.bid_details.client_city.is_none());
    assert!(details.bid_details.submission_date.is_none());

    assert!(details.comments.is_empty());
    assert!(details.progress_items.is_empty());
    let items = &details.work_items;
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|item| item.parent_id == Some(880104)));
    assert!(
        items
            .iter()
            .any(|item| item.kind == WorkItemType::HourlyMilestone)
    );
    assert!(
        items
            .iter()
            .any(|item| item.kind == WorkItemType::HourlyOther)
    );
    assert!(
        items.iter().any(|item| item.milestone_id.is_none()),
        "milestoneId 0 is none"
    );
    let hours: Decimal = items.iter().map(|item| item.quantity).sum();
    assert_eq!(hours, sheet.total_hours);
    assert_eq!(sheet.total_hours * sheet.rate, dec("375.00"));
}

#[test]
fn the_current_draft_timesheet_lacks_the_sent_fields() {
    let sheet = fixture::<TimesheetDetails>("pay/getTimesheet-draft.json")
        .data
        .timesheet;
    assert_eq!(sheet.id, 880105);
    assert_eq!(sheet.status, ReportStatus::Draft);
    assert_eq!(sheet.plan_comment.as_deref(), Some(""));
    assert_eq!(sheet.end_date, DayOrInstant::Instant(at(1769299200)));
    assert_eq!(sheet.submit_date, None);
    assert_eq!(sheet.auto_pay_date, None);
    assert_eq!(sheet.invoice_id, None);
    assert_eq!(sheet.amount_billed, Some(Decimal::ZERO));
}

#[test]
fn status_report_is_delivered_with_status_report_fields() {
    let details = fixture::<StatusReportDetails>("pay/getStatusReport.json").data;
    let list = fixture::<StatusReportList>("pay/getStatusReportsForBid.json").data;
    assert_eq!(details.status_report, list.status_reports[1]);
    assert_eq!(details.comments.len(), 1);
    let comment = &details.comments[0].fields;
    assert_eq!(
        comment.get("userName").and_then(|v| v.as_str()),
        Some("dwhitfield")
    );

    let progress = &details.progress_items;
    assert_eq!(progress.len(), 2);
    let paid: Vec<_> = progress.iter().filter(|p| p.paid_date.is_some()).collect();
    assert_eq!(paid.len(), 1, "paidDate 0 is unpaid");
    assert!(progress.iter().all(|p| p.amount == dec("250.00")));
    assert!(progress.iter().any(|p| p.progress_percent == dec("50")));
}

#[test]
fn the_unstored_current_status_report_has_no_ids() {
    let details = fixture::<StatusReportDetails>("pay/getStatusReport-draft.json").data;
    let list = fixture::<StatusReportList>("pay/getStatusReportsForBid.json").data;
    assert_eq!(details.status_report, list.status_reports[2]);
    assert_eq!(details.status_report.id, None);
    assert!(details.comments.is_empty());
    assert_eq!(details.work_items.len(), 3);
    assert!(
        details
            .work_items
            .iter()
            .all(|item| item.parent_id.is_none())
    );
    assert_eq!(details.work_items[0].day, at(1768780800));
    assert_eq!(details.work_items[2].milestone_id, None);
}

#[test]
fn billing_is_decoded_from_inside_billing() {
    let details = fixture::<BillingDetails>("pay/getBilling.json").data;
    let billing = &details.billing;
    let invoice = &billing.invoice;
    assert_eq!(invoice.id, 9003);
    assert_eq!(invoice.date, at(1768810445));
    assert_eq!(invoice.kind, InvoiceType::Invoice);
    assert_eq!(invoice.status, InvoiceStatus::Released);
    assert_eq!(invoice.amount_billed, dec("375.00"));
    assert_eq!(invoice.amount_outstanding, Decimal::ZERO);
    assert_eq!(invoice.currency, "USD");
    assert_eq!(invoice.payment_ids, [7001]);
    assert_eq!(invoice.line_item_count, 1);

    assert_eq!(billing.invoice_details.len(), 1);
    let detail = &billing.invoice_details[0];
    assert_eq!(detail.kind, InvoiceDetailType::Milestone);
    assert_eq!(detail.hours * detail.rate, detail.amount);

    let activity = &billing.invoice_activity;
    assert_eq!(activity.len(), 2);
    assert_eq!(
        activity[0].activity,
        InvoiceActivityKind::ReleaseRequestSent
    );
    assert_eq!(activity[0].payment_id, None, "paymentId 0 is none");
    assert_eq!(activity[1].activity, InvoiceActivityKind::Released);
    assert_eq!(activity[1].payment_id, Some(7001));

    assert_eq!(billing.payments.len(), 1);
    assert_eq!(billing.payments[0].id, 7001);
    assert_eq!(billing.payments[0].invoice_id, 9003);
}

#[test]
fn invoice_and_payment_carry_the_billing_api_name() {
    let invoice = fixture::<InvoiceSummary>("pay/getInvoice.json");
    assert_eq!(invoice.api, "pay/getBilling");
    let billing = fixture::<BillingDetails>("pay/getBilling.json").data;
    assert_eq!(invoice.data.invoice, billing.billing.invoice);

    let payment = fixture::<PaymentDetails>("pay/getPayment.json");
    assert_eq!(payment.api, "pay/getBilling");
    let record = &payment.data.payment;
    assert_eq!(record.id, 7001);
    assert_eq!(record.invoice_id, 9003);
    assert_eq!(
        record.external_payment_id, None,
        "externalPaymentId 0 is none"
    );
    assert_eq!(record.amount, dec("375.00"));
    assert_eq!(record.from_currency, "USD");
    assert_eq!(&billing.billing.payments[0], record);
}

#[test]
fn payment_documented_as_invoice_is_accepted_under_both_names() {
    let body = String::from_utf8(marketplace_tests::fixtures::read("pay/getPayment.json").unwrap())
        .unwrap();
    let documented = body.replacen("\"payment\":", "\"invoice\":", 1);
    let as_documented: Envelope<PaymentDetails> =
        marketplace_client::decode(documented.as_bytes()).unwrap();
    let as_delivered = fixture::<PaymentDetails>("pay/getPayment.json");
    assert_eq!(as_documented.data, as_delivered.data);
}

#[test]
fn providers_decode_total_results_as_string_or_number() {
    let list = fixture::<ProviderList>("manage/getMyProviders.json").data;
    assert_eq!(list.total_results, 3, "\"3\" is the integer 3");
    assert_eq!(list.job_name, None);
    assert_eq!(list.agents.len(), 3);
    let agent = &list.agents[0];
    assert!(agent.is_on_tracker);
    assert_eq!(agent.hours_today, dec("1.25"));
    let screen = &agent.screen_data;
    assert_eq!(screen.user_id, 50001);
    assert_eq!(screen.timestamp, at(1769003538));
    assert_eq!(screen.bid_id, Some(310001));
    let bid = screen
        .bid_data
        .as_ref()
        .expect("the provider-list variant has bidData");
    assert_eq!(
        bid.client_user_id, None,
        "absent in the provider-list variant"
    );
    assert_eq!(bid.provider_user_id, None);
    assert_eq!(
        screen.screen_id, None,
        "the snapshot fields are absent here"
    );

    let one = fixture::<ProviderList>("manage/getMyProviders-bid.json").data;
    assert_eq!(one.total_results, 1);
    assert_eq!(
        one.job_name.as_deref(),
        Some("Inventory sync service for Shopify store")
    );
    assert_eq!(one.agents[0], list.agents[0]);
    assert_eq!(one.agents[0].hours, dec("70.25"));
}

#[test]
fn workview_decodes_buckets_of_snapshots_and_a_null_next_date() {
    let view = fixture::<Workview>("workroom/getWorkviewDetails.json").data;
    assert_eq!(view.bid_data.bid_id, 310003);
    assert_eq!(view.bid_data.client_user_id, None);
    assert_eq!(view.date, day(2026, 1, 5));
    assert_eq!(view.next_date, None, "null is none");
    assert!(view.prev_date.is_some());
    assert_eq!(view.user_name, "tortega");
    assert!(!view.screen_buckets.is_empty());
    let screen = &view.screen_buckets[0].screens[0];
    assert_eq!(screen.screen_id.as_deref(), Some("5500101"));
    assert!(
        screen
            .screen_url
            .as_deref()
            .is_some_and(|url| url.starts_with("http"))
    );
    assert_eq!(
        screen.bid_id, None,
        "the provider-list fields are absent here"
    );
    let screens: usize = view.screen_buckets.iter().map(|b| b.screens.len()).sum();
    assert_eq!(screens, 5);

    let empty = fixture::<Workview>("workroom/getWorkviewDetails-empty.json").data;
    assert!(empty.screen_buckets.is_empty());
    assert_eq!(empty.date, day(2026, 1, 2));
    assert_eq!(empty.prev_date, Some(day(2025, 12, 30)));
    assert_eq!(empty.next_date, Some(day(2026, 1, 5)));
}

/// The reference types BidData.jobId, clientUserId, hoursPerWeek and screenData.screenId as
/// `string` and gives no format: a value that is not all digits, or a JSON number, decodes
/// (kept as text) instead of failing the whole page.
#[test]
fn text_the_reference_calls_string_decodes_whatever_its_spelling() {
    let body = String::from_utf8(
        marketplace_tests::fixtures::read("pay/getTimesheetsForBid.json").unwrap(),
    )
    .unwrap();
    let edited = body
        .replacen(r#""jobId": "220001""#, r#""jobId": "J-220001""#, 1)
        .replacen(r#""clientUserId": "40001""#, r#""clientUserId": 40001"#, 1)
        .replacen(
            r#""hoursPerWeek": "20""#,
            r#""hoursPerWeek": "10-20 hrs/week""#,
            1,
        );
    assert_ne!(edited, body);
    let list: Envelope<TimesheetList> = marketplace_client::decode(edited.as_bytes()).unwrap();
    let bid = &list.data.bid_details;
    assert_eq!(bid.job_id, "J-220001");
    assert_eq!(bid.client_user_id.as_deref(), Some("40001"));
    assert_eq!(bid.hours_per_week.as_deref(), Some("10-20 hrs/week"));
    assert_eq!(
        list.data.timesheets.len(),
        2,
        "every item of the page is kept"
    );

    let body = String::from_utf8(
        marketplace_tests::fixtures::read("workroom/getWorkviewDetails.json").unwrap(),
    )
    .unwrap();
    let edited = body.replacen(
        r#""screenId": "5500101""#,
        r#""screenId": "snap-5500101""#,
        1,
    );
    assert_ne!(edited, body);
    let view: Envelope<Workview> = marketplace_client::decode(edited.as_bytes()).unwrap();
    let screen = &view.data.screen_buckets[0].screens[0];
    assert_eq!(screen.screen_id.as_deref(), Some("snap-5500101"));
}

/// The IDs the spec keeps as integers although the reference types them `string` (they are
/// sent back as integer parameters) decode alike from a string of digits and a JSON number.
#[test]
fn ids_kept_as_integers_decode_from_digits_and_numbers_alike() {
    let read =
        |name: &str| String::from_utf8(marketplace_tests::fixtures::read(name).unwrap()).unwrap();
    let body = read("pay/getTimesheetsForBid.json");
    let numbers = body
        .replacen(r#""bidId": "310001""#, r#""bidId": 310001"#, 1)
        .replacen(
            r#""providerUserId": "50001""#,
            r#""providerUserId": 50001"#,
            1,
        );
    assert_ne!(numbers, body);
    let as_numbers: Envelope<TimesheetList> =
        marketplace_client::decode(numbers.as_bytes()).unwrap();
    let as_digits = fixture::<TimesheetList>("pay/getTimesheetsForBid.json");
    assert_eq!(as_numbers.data.bid_details, as_digits.data.bid_details);
    assert_eq!(as_numbers.data.bid_details.bid_id, 310001);
    assert_eq!(as_numbers.data.bid_details.provider_user_id, Some(50001));

    let body = read("manage/getMyProviders.json");
    let numbers = body
        .replacen(r#""userId": "50001""#, r#""userId": 50001"#, 1)
        .replacen(r#""bidId": "310001""#, r#""bidId": 310001"#, 1);
    assert_ne!(numbers, body);
    let as_numbers: Envelope<ProviderList> =
        marketplace_client::decode(numbers.as_bytes()).unwrap();
    let as_digits = fixture::<ProviderList>("manage/getMyProviders.json");
    assert_eq!(as_numbers.data.agents[0], as_digits.data.agents[0]);
    assert_eq!(as_numbers.data.agents[0].screen_data.user_id, 50001);
    assert_eq!(as_numbers.data.agents[0].screen_data.bid_id, Some(310001));
}
