//! The generated model builders used from outside the crate, as an app's unit test does: the
//! records are `#[non_exhaustive]`, so this file compiling is the point, and what the builders
//! make must be the values the decoders make of the same data.

use marketplace_client::jiff::civil::date;
use marketplace_client::{
    DayOrInstant, Decimal, ProjectStatus, ReportStatus, Timesheet, TimesheetList, UserType, decode,
};
use marketplace_tests::fixtures;

/// A timesheet with every required field, in the values of the fixture's first list entry.
fn sheet(id: u64, hours: Decimal) -> Timesheet {
    Timesheet::builder()
        .id(id)
        .week(date(2026, 1, 4))
        .bid_id(310001)
        .client("dwhitfield")
        .provider("ravimenon")
        .client_user_id(40001)
        .provider_user_id(50001)
        .status(ReportStatus::Sent)
        .project_status(ProjectStatus::Ok)
        .project_status_changed_by(UserType::Provider)
        .start_date(date(2025, 12, 29))
        .end_date(date(2026, 1, 4))
        .next_end_date(date(2026, 1, 11))
        .total_hours(hours)
        .authorized_hours(20)
        .billed_hours(hours)
        .auto_pay_hours(hours)
        .next_authorized_hours(20)
        .rate(Decimal::new(3000, 2))
        .overdue(false)
        .seen_by_client(true)
        .build()
        .unwrap()
}

#[test]
fn a_built_timesheet_survives_the_wire_round_trip() {
    let built = sheet(880101, Decimal::new(1625, 2));
    assert_eq!(built.invoice_id, None, "optional fields start as None");
    assert_eq!(built.adjusted_hours, None);
    assert_eq!(built.start_date, DayOrInstant::Day(date(2025, 12, 29)));
    let written = serde_json::to_vec(&built).unwrap();
    let decoded: Timesheet = decode(&written).unwrap();
    assert_eq!(decoded, built);
}

#[test]
fn built_and_decoded_values_agree() {
    // The first timesheet of the list fixture, decoded, and the same values through the
    // builder: a decoded value is one an app can also build.
    let body = fixtures::read("pay/getTimesheetsForBid.json").unwrap();
    let page: marketplace_client::Envelope<TimesheetList> = decode(&body).unwrap();
    let decoded = &page.data.timesheets[0];
    let mut builder = Timesheet::builder()
        .id(decoded.id)
        .week(decoded.week)
        .bid_id(decoded.bid_id)
        .client(decoded.client.as_str())
        .provider(decoded.provider.as_str())
        .client_user_id(decoded.client_user_id)
        .provider_user_id(decoded.provider_user_id)
        .status(decoded.status.clone())
        .project_status(decoded.project_status.clone())
        .project_status_changed_by(decoded.project_status_changed_by.clone())
        .start_date(decoded.start_date)
        .end_date(decoded.end_date)
        .next_end_date(decoded.next_end_date)
        .total_hours(decoded.total_hours)
        .authorized_hours(decoded.authorized_hours)
        .billed_hours(decoded.billed_hours)
        .auto_pay_hours(decoded.auto_pay_hours)
        .next_authorized_hours(decoded.next_authorized_hours)
        .rate(decoded.rate)
        .overdue(decoded.overdue)
        .seen_by_client(decoded.seen_by_client);
    if let Some(day) = decoded.submit_date {
        builder = builder.submit_date(day);
    }
    if let Some(day) = decoded.sent_date {
        builder = builder.sent_date(day);
    }
    if let Some(day) = decoded.approve_by_date {
        builder = builder.approve_by_date(day);
    }
    if let Some(day) = decoded.auto_pay_date {
        builder = builder.auto_pay_date(day);
    }
    if let Some(hours) = decoded.adjusted_hours {
        builder = builder.adjusted_hours(hours);
    }
    if let Some(invoice) = decoded.invoice_id {
        builder = builder.invoice_id(invoice);
    }
    assert_eq!(&builder.build().unwrap(), decoded);
}

#[test]
fn every_unset_required_field_is_named() {
    let error = Timesheet::builder()
        .id(1)
        .client("c")
        .rate(30)
        .build()
        .unwrap_err();
    assert_eq!(error.type_name, "Timesheet");
    assert_eq!(
        error.missing,
        [
            "week",
            "bid_id",
            "provider",
            "client_user_id",
            "provider_user_id",
            "status",
            "project_status",
            "project_status_changed_by",
            "start_date",
            "end_date",
            "next_end_date",
            "total_hours",
            "authorized_hours",
            "billed_hours",
            "auto_pay_hours",
            "next_authorized_hours",
            "overdue",
            "seen_by_client"
        ]
    );
    assert!(
        error
            .to_string()
            .starts_with("cannot build Timesheet: no value for week, bid_id")
    );
}

#[test]
fn a_list_response_is_built_from_its_items() {
    // What an app's "total the hours" function is tested with.
    let sheets = vec![
        sheet(1, Decimal::new(125, 1)),
        sheet(2, Decimal::new(75, 1)),
    ];
    let bid = fixtures::read("pay/getTimesheet.json").unwrap();
    let details: marketplace_client::Envelope<marketplace_client::TimesheetDetails> =
        decode(&bid).unwrap();
    let page = TimesheetList::builder()
        .total_results(2)
        .total_pages(1)
        .page(1)
        .num_results(2)
        .bid_details(details.data.bid_details)
        .timesheets(sheets)
        .build()
        .unwrap();
    let total: Decimal = page.timesheets.iter().map(|sheet| sheet.total_hours).sum();
    assert_eq!(total, Decimal::new(20, 0));
    // A list left unset is empty; the other fields are still required.
    let error = TimesheetList::builder().build().unwrap_err();
    assert!(!error.missing.contains(&"timesheets"), "{error}");
    assert!(error.missing.contains(&"bid_details"), "{error}");
}
