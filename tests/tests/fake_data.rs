//! The data half of the fake marketplace: every method answers valid input with the wire shapes
//! of the reference (proven by decoding with the client and by its round-trip check), pages as
//! the reference says, fails with the documented codes, and the seeded world is deterministic.

use marketplace_client::jiff::civil::date;
use marketplace_client::{
    BillingDetails, Decimal, Envelope, InvoiceSummary, PaymentDetails, ProviderList,
    StatusReportDetails, StatusReportList, TimesheetDetails, TimesheetList, Workview, decode,
};
use marketplace_tests::fake::data::{DataReply, error_body, respond};
use marketplace_tests::fake::world::World;
use marketplace_tests::fixtures::check_round_trip;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const CLIENT: u64 = 40001;
const OTHER_CLIENT: u64 = 40002;

/// The fixtures' "now": Wednesday 2026-01-21 13:52:18 UTC.
fn now() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1769003538).unwrap()
}

fn call(world: &World, caller: u64, method: &str, query: &[(&str, &str)]) -> DataReply {
    let query: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    respond(world, caller, method, &query, now())
}

/// A successful call decoded by the client into `T`, after the client's round-trip check (no
/// key of the body is dropped by the typed value).
fn ok<T>(world: &World, caller: u64, method: &str, query: &[(&str, &str)]) -> (Envelope<T>, Value)
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let reply = call(world, caller, method, query);
    assert_eq!(reply.status, 200, "{method} {query:?}: {}", reply.body);
    let bytes = serde_json::to_vec(&reply.body).unwrap();
    let envelope: Envelope<T> =
        decode(&bytes).unwrap_or_else(|error| panic!("{method} {query:?}: {error}"));
    check_round_trip(&reply.body, &envelope).unwrap_or_else(|error| panic!("{method}: {error}"));
    assert_eq!((envelope.api_version, envelope.rcode), (1, 1));
    (envelope, reply.body)
}

fn fails(
    world: &World,
    caller: u64,
    method: &str,
    query: &[(&str, &str)],
    status: u16,
    code: &str,
) {
    let reply = call(world, caller, method, query);
    assert_eq!(
        (reply.status, reply.body["error"]["code"].as_str()),
        (status, Some(code)),
        "{method} {query:?} as {caller}: {}",
        reply.body
    );
    let kind = if status == 403 {
        "authorization"
    } else {
        "validation"
    };
    assert_eq!(reply.body["error"]["type"], kind, "{method} {query:?}");
    assert_eq!(reply.body["api"], method);
    assert_eq!(reply.body["rcode"], 0);
    assert_eq!(reply.body["apiVersion"], 1);
}

fn dec(text: &str) -> Decimal {
    text.parse().unwrap()
}

#[test]
fn every_method_answers_and_decodes_into_the_client_types() {
    let world = World::seeded();

    let (list, _) = ok::<TimesheetList>(
        &world,
        CLIENT,
        "pay/getTimesheetsForBid",
        &[("bidId", "310001")],
    );
    assert_eq!(list.api, "pay/getTimesheetsForBid");
    assert_eq!(
        (
            list.data.total_results,
            list.data.total_pages,
            list.data.num_results
        ),
        (23, 3, 10)
    );
    assert_eq!(list.data.timesheets[0].id, 880083);

    let (reports, _) = ok::<StatusReportList>(
        &world,
        CLIENT,
        "pay/getStatusReportsForBid",
        &[("bidId", "310002")],
    );
    assert_eq!(
        (reports.data.total_results, reports.data.total_pages),
        (12, 2)
    );

    let (sheet, _) =
        ok::<TimesheetDetails>(&world, CLIENT, "pay/getTimesheet", &[("id", "880104")]);
    let sheet = sheet.data;
    assert_eq!(sheet.timesheet.invoice_id, Some(9003));
    assert_eq!(
        sheet.timesheet.total_hours * sheet.timesheet.rate,
        dec("375")
    );
    assert_eq!(sheet.timesheet.amount_billed, Some(dec("375")));
    let items: Decimal = sheet.work_items.iter().map(|item| item.quantity).sum();
    assert_eq!(items, sheet.timesheet.total_hours);

    let (current, _) =
        ok::<TimesheetDetails>(&world, CLIENT, "pay/getTimesheet", &[("bidId", "310001")]);
    assert_eq!(current.data.timesheet.id, 880105);
    assert_eq!(current.data.timesheet.invoice_id, None);
    assert!(current.data.timesheet.submit_date.is_none());

    let (report, _) =
        ok::<StatusReportDetails>(&world, 50002, "pay/getStatusReport", &[("id", "990202")]);
    assert_eq!(report.data.comments.len(), 1);
    assert_eq!(report.data.progress_items.len(), 2);
    let (draft, _) = ok::<StatusReportDetails>(
        &world,
        CLIENT,
        "pay/getStatusReport",
        &[("bidId", "310002")],
    );
    assert_eq!(
        draft.data.status_report.id, None,
        "the unstored draft has id 0"
    );
    assert!(
        draft
            .data
            .work_items
            .iter()
            .all(|item| item.parent_id.is_none())
    );

    let (billing, _) = ok::<BillingDetails>(&world, CLIENT, "pay/getBilling", &[("id", "9003")]);
    let billing = billing.data.billing;
    assert_eq!(billing.invoice.payment_ids, vec![7001]);
    assert_eq!(billing.invoice_details[0].amount, dec("375"));
    assert_eq!(billing.invoice_activity[0].payment_id, None);
    assert_eq!(billing.invoice_activity[1].payment_id, Some(7001));
    assert_eq!(billing.payments[0].id, 7001);

    let (invoice, _) = ok::<InvoiceSummary>(&world, CLIENT, "pay/getInvoice", &[("id", "9001")]);
    assert_eq!(invoice.data.invoice.bid_id, 310002);
    assert_eq!(invoice.data.invoice.amount_billed, dec("250"));

    let (payment, _) = ok::<PaymentDetails>(&world, CLIENT, "pay/getPayment", &[("id", "7001")]);
    assert_eq!(
        (payment.data.payment.invoice_id, payment.data.payment.amount),
        (9003, dec("375"))
    );
    assert_eq!(payment.data.payment.external_payment_id, None);

    let (providers, _) = ok::<ProviderList>(&world, CLIENT, "manage/getMyProviders", &[]);
    assert_eq!(
        (providers.data.total_results, providers.data.num_results),
        (27, 20)
    );
    assert_eq!(providers.data.job_name, None);

    let (view, _) = ok::<Workview>(
        &world,
        CLIENT,
        "workroom/getWorkviewDetails",
        &[("bidId", "310003"), ("userId", "50003")],
    );
    assert_eq!(view.data.date, date(2026, 1, 5));
    assert_eq!((view.data.hours, view.data.screen_buckets.len()), (2, 2));
}

#[test]
fn every_seeded_record_decodes() {
    let world = World::seeded();
    for page in ["1", "2"] {
        let (list, _) = ok::<TimesheetList>(
            &world,
            CLIENT,
            "pay/getTimesheetsForBid",
            &[("bidId", "310001"), ("rpp", "25"), ("page", page)],
        );
        for sheet in &list.data.timesheets {
            let id = sheet.id.to_string();
            let (single, _) =
                ok::<TimesheetDetails>(&world, CLIENT, "pay/getTimesheet", &[("id", &id)]);
            let single = single.data.timesheet;
            // The list and the single record describe the same timesheet.
            assert_eq!(
                (single.week, single.total_hours, single.rate),
                (sheet.week, sheet.total_hours, sheet.rate)
            );
            assert_eq!(single.start_date.date(), sheet.start_date.date());
            if let Some(invoice) = sheet.invoice_id {
                let (billing, _) = ok::<BillingDetails>(
                    &world,
                    CLIENT,
                    "pay/getBilling",
                    &[("id", &invoice.to_string())],
                );
                let billing = billing.data.billing;
                assert_eq!(
                    billing.invoice.amount_billed,
                    sheet.total_hours * sheet.rate
                );
                assert_eq!(billing.invoice.amount_outstanding, Decimal::ZERO);
                for id in &billing.invoice.payment_ids {
                    let (payment, _) = ok::<PaymentDetails>(
                        &world,
                        CLIENT,
                        "pay/getPayment",
                        &[("id", &id.to_string())],
                    );
                    assert_eq!(payment.data.payment.invoice_id, invoice);
                    assert_eq!(payment.data.payment.amount, billing.invoice.amount_billed);
                }
            }
        }
    }
    let (reports, _) = ok::<StatusReportList>(
        &world,
        CLIENT,
        "pay/getStatusReportsForBid",
        &[("bidId", "310002"), ("rpp", "25")],
    );
    assert_eq!(reports.data.status_reports.len(), 12);
    for report in &reports.data.status_reports {
        if let Some(id) = report.id {
            ok::<StatusReportDetails>(
                &world,
                CLIENT,
                "pay/getStatusReport",
                &[("id", &id.to_string())],
            );
        }
        for invoice in &report.invoice_ids {
            ok::<InvoiceSummary>(
                &world,
                CLIENT,
                "pay/getInvoice",
                &[("id", &invoice.to_string())],
            );
        }
    }
    // Mira Khan's workroom, seen by her.
    ok::<TimesheetList>(
        &world,
        OTHER_CLIENT,
        "pay/getTimesheetsForBid",
        &[("bidId", "320001")],
    );
    ok::<BillingDetails>(&world, OTHER_CLIENT, "pay/getBilling", &[("id", "9101")]);
    ok::<PaymentDetails>(&world, 50004, "pay/getPayment", &[("id", "7102")]);
    let (mine, _) = ok::<ProviderList>(&world, OTHER_CLIENT, "manage/getMyProviders", &[]);
    assert_eq!(mine.data.agents.len(), 1);
    assert_eq!(mine.data.agents[0].screen_data.user_id, 50004);
}

#[test]
fn list_paging_defaults_clamping_and_beyond_the_last_page() {
    let world = World::seeded();
    let sheets = |query: &[(&str, &str)]| {
        let mut full = vec![("bidId", "310001")];
        full.extend_from_slice(query);
        ok::<TimesheetList>(&world, CLIENT, "pay/getTimesheetsForBid", &full)
            .0
            .data
    };
    let first = sheets(&[]);
    assert_eq!(
        (first.page, first.num_results, first.total_pages),
        (1, 10, 3)
    );
    let last = sheets(&[("page", "3")]);
    assert_eq!(last.num_results, 3);
    assert_eq!(
        last.timesheets.last().unwrap().id,
        880105,
        "oldest first, the Draft last"
    );
    let clamped = sheets(&[("rpp", "1000")]);
    assert_eq!(
        (clamped.num_results, clamped.total_pages),
        (23, 1),
        "rpp above 25 gives 25"
    );
    let beyond = sheets(&[("page", "4")]);
    assert_eq!(
        (beyond.num_results, beyond.total_pages, beyond.page),
        (0, 3, 4)
    );
    assert!(beyond.timesheets.is_empty());
    // Any page the spec's u64 holds is a page: far above the last, an empty one.
    for page in [i64::MAX.unsigned_abs() + 1, u64::MAX] {
        let far = sheets(&[("page", &page.to_string())]);
        assert_eq!((far.num_results, far.page), (0, page));
    }

    let reports = |query: &[(&str, &str)]| {
        let mut full = vec![("bidId", "310002")];
        full.extend_from_slice(query);
        ok::<StatusReportList>(&world, CLIENT, "pay/getStatusReportsForBid", &full)
            .0
            .data
    };
    assert_eq!(reports(&[("page", "2")]).num_results, 2);
    assert_eq!(
        reports(&[("rpp", "5"), ("page", "3")]).status_reports[1].id,
        None
    );
    assert_eq!(reports(&[("page", "9")]).num_results, 0);

    let providers = |query: &[(&str, &str)]| {
        ok::<ProviderList>(&world, CLIENT, "manage/getMyProviders", query)
            .0
            .data
    };
    let page1 = providers(&[]);
    assert_eq!(
        (page1.total_results, page1.total_pages, page1.num_results),
        (27, 2, 20)
    );
    let page2 = providers(&[("page", "2")]);
    assert_eq!(page2.num_results, 7);
    assert_eq!(
        page2.agents.last().unwrap().screen_data.bid_id,
        Some(310027)
    );
    assert_eq!(
        providers(&[("rpp", "26")]).num_results,
        25,
        "rpp above 25 gives 25"
    );
    assert_eq!(providers(&[("page", "3")]).num_results, 0);
    // A provider employs nobody.
    assert_eq!(
        ok::<ProviderList>(&world, 50001, "manage/getMyProviders", &[])
            .0
            .data
            .total_results,
        0
    );

    for method in [
        "pay/getTimesheetsForBid",
        "pay/getStatusReportsForBid",
        "manage/getMyProviders",
    ] {
        for (name, value) in [
            ("rpp", "0"),
            ("rpp", "-3"),
            ("rpp", "ten"),
            ("page", "0"),
            ("page", "x"),
        ] {
            fails(
                &world,
                CLIENT,
                method,
                &[("bidId", "310001"), (name, value)],
                400,
                "E_VALIDATION_INVALID_PARAMETER",
            );
        }
    }
}

#[test]
fn workroom_paging_and_day_navigation() {
    let world = World::seeded();
    let view = |query: &[(&str, &str)]| {
        let mut full = vec![("bidId", "310003"), ("userId", "50003")];
        full.extend_from_slice(query);
        ok::<Workview>(&world, CLIENT, "workroom/getWorkviewDetails", &full)
            .0
            .data
    };
    let busy = view(&[("date", "30-DEC-25")]);
    assert_eq!(
        (busy.hours, busy.screen_buckets.len()),
        (8, 6),
        "default rpp 6"
    );
    assert_eq!(busy.screen_buckets[0].title, "8:00 - 9:00");
    assert_eq!(
        (busy.prev_date, busy.next_date),
        (None, Some(date(2026, 1, 2)))
    );
    // Page 2 holds the last three buckets: page is read as a zero-based index (page - 1)
    // against totalPages = ceil(9 / 6) = 2, so every bucket is reachable.
    let second = view(&[("date", "30-DEC-25"), ("page", "2")]);
    assert_eq!(second.screen_buckets.len(), 3);
    assert_eq!(second.screen_buckets[2].title, "16:00 - 17:00");
    assert!(
        second
            .screen_buckets
            .iter()
            .all(|b| (2..=4).contains(&b.screens.len()))
    );
    assert!(
        view(&[("date", "30-DEC-25"), ("page", "3")])
            .screen_buckets
            .is_empty()
    );
    assert_eq!(
        view(&[("date", "30-DEC-25"), ("rpp", "50")])
            .screen_buckets
            .len(),
        9,
        "cap 10"
    );
    assert_eq!(
        view(&[("date", "30-DEC-25"), ("rpp", "4"), ("page", "3")])
            .screen_buckets
            .len(),
        1
    );

    let newest = view(&[]);
    assert_eq!(
        (newest.date, newest.prev_date, newest.next_date),
        (date(2026, 1, 5), Some(date(2026, 1, 2)), None)
    );
    let empty_day = view(&[("date", "01-JAN-26")]);
    assert_eq!((empty_day.hours, empty_day.screen_buckets.len()), (0, 0));
    assert_eq!(
        (empty_day.prev_date, empty_day.next_date),
        (Some(date(2025, 12, 30)), Some(date(2026, 1, 2)))
    );
    let middle = view(&[("date", "02-JAN-26"), ("page", "2")]);
    assert_eq!((middle.hours, middle.screen_buckets.len()), (3, 0));
    assert_eq!(
        (middle.prev_date, middle.next_date),
        (Some(date(2025, 12, 30)), Some(date(2026, 1, 5)))
    );
    // The provider sees the same workroom; the client's own snapshots are an empty day.
    let own = ok::<Workview>(
        &world,
        50003,
        "workroom/getWorkviewDetails",
        &[("bidId", "310003"), ("userId", "50003")],
    );
    assert_eq!(own.1["data"]["bidData"]["userType"], "PROVIDER");
    let client_day = ok::<Workview>(
        &world,
        CLIENT,
        "workroom/getWorkviewDetails",
        &[("bidId", "310003"), ("userId", "40001")],
    )
    .0
    .data;
    assert_eq!(
        (
            client_day.date,
            client_day.hours,
            client_day.prev_date,
            client_day.next_date
        ),
        (date(2026, 1, 21), 0, None, None)
    );
}

#[test]
fn documented_errors_with_their_statuses() {
    let world = World::seeded();
    let invalid_id = "E_VALIDATION_INVALID_ID";
    for method in ["pay/getTimesheet", "pay/getStatusReport"] {
        fails(
            &world,
            CLIENT,
            method,
            &[],
            400,
            "E_VALIDATION_INVALID_ID_BIDID",
        );
        fails(
            &world,
            CLIENT,
            method,
            &[("id", "")],
            400,
            "E_VALIDATION_INVALID_ID_BIDID",
        );
        fails(&world, CLIENT, method, &[("id", "999")], 400, invalid_id);
        fails(&world, CLIENT, method, &[("id", "abc")], 400, invalid_id);
        fails(
            &world,
            CLIENT,
            method,
            &[("bidId", "320001")],
            400,
            invalid_id,
        );
        fails(
            &world,
            CLIENT,
            method,
            &[("bidId", "399999")],
            400,
            invalid_id,
        );
    }
    fails(
        &world,
        CLIENT,
        "pay/getTimesheet",
        &[("id", "881001")],
        400,
        invalid_id,
    );
    fails(
        &world,
        OTHER_CLIENT,
        "pay/getTimesheet",
        &[("id", "880104")],
        400,
        invalid_id,
    );
    fails(
        &world,
        50002,
        "pay/getTimesheet",
        &[("id", "880104")],
        400,
        invalid_id,
    );
    fails(
        &world,
        OTHER_CLIENT,
        "pay/getStatusReport",
        &[("id", "990201")],
        400,
        invalid_id,
    );
    fails(
        &world,
        CLIENT,
        "pay/getTimesheet",
        &[("bidId", "310002")],
        400,
        invalid_id,
    );
    fails(
        &world,
        CLIENT,
        "pay/getTimesheet",
        &[("id", "880104"), ("bidId", "310003")],
        400,
        invalid_id,
    );

    for method in ["pay/getTimesheetsForBid", "pay/getStatusReportsForBid"] {
        fails(&world, CLIENT, method, &[], 400, invalid_id);
        fails(
            &world,
            CLIENT,
            method,
            &[("bidId", "320001")],
            400,
            invalid_id,
        );
        fails(&world, CLIENT, method, &[("bidId", "1")], 400, invalid_id);
        fails(
            &world,
            50003,
            method,
            &[("bidId", "310001")],
            400,
            invalid_id,
        );
    }
    for (method, id) in [
        ("pay/getBilling", "9101"),
        ("pay/getInvoice", "9101"),
        ("pay/getPayment", "7101"),
    ] {
        fails(&world, CLIENT, method, &[("id", id)], 400, invalid_id);
        fails(&world, CLIENT, method, &[("id", "12345")], 400, invalid_id);
        fails(&world, CLIENT, method, &[], 400, invalid_id);
        fails(&world, 50003, method, &[("id", "9003")], 400, invalid_id);
    }
    fails(
        &world,
        CLIENT,
        "manage/getMyProviders",
        &[("bidId", "320001")],
        400,
        invalid_id,
    );

    let workview = "workroom/getWorkviewDetails";
    fails(
        &world,
        CLIENT,
        workview,
        &[("userId", "50003")],
        400,
        "E_WORKROOM_INVALID_BID",
    );
    fails(
        &world,
        CLIENT,
        workview,
        &[("bidId", "399999"), ("userId", "50003")],
        400,
        "E_WORKROOM_INVALID_BID",
    );
    fails(
        &world,
        CLIENT,
        workview,
        &[("bidId", "320001"), ("userId", "50004")],
        403,
        "E_API_NOT_AUTHORIZED",
    );
    fails(
        &world,
        50001,
        workview,
        &[("bidId", "310003"), ("userId", "50003")],
        403,
        "E_API_NOT_AUTHORIZED",
    );
    fails(
        &world,
        CLIENT,
        workview,
        &[("bidId", "310003"), ("userId", "50001")],
        403,
        "E_WORKROOM_BID_ACCESS",
    );
    fails(
        &world,
        CLIENT,
        workview,
        &[("bidId", "310003"), ("userId", "40002")],
        403,
        "E_WORKROOM_BID_ACCESS",
    );
    for bad in [
        "5-JAN-26",
        "05-jan-26",
        "05-Jan-26",
        "31-FEB-26",
        "2026-01-05",
        "05-JAN-2026",
    ] {
        fails(
            &world,
            CLIENT,
            workview,
            &[("bidId", "310003"), ("userId", "50003"), ("date", bad)],
            400,
            "E_VALIDATION_INVALID_PARAMETER",
        );
    }
    fails(
        &world,
        CLIENT,
        workview,
        &[("bidId", "310003"), ("userId", "50003"), ("rpp", "0")],
        400,
        "E_VALIDATION_INVALID_PARAMETER",
    );

    let unknown = call(&world, CLIENT, "pay/getNothing", &[]);
    assert_eq!(unknown.status, 404);
    assert_eq!(
        unknown.body,
        error_body(
            "pay/getNothing",
            "E_API_UNKNOWN_METHOD",
            "request",
            "Unknown API method pay/getNothing"
        )
    );
    assert_eq!(
        error_body(
            "oauth/getAccessToken",
            "E_API_AUTH_SIGNATURE_MISMATCH",
            "authentication",
            "bad"
        ),
        json!({"api": "oauth/getAccessToken", "apiVersion": 1, "rcode": 0,
               "error": {"code": "E_API_AUTH_SIGNATURE_MISMATCH", "type": "authentication", "message": "bad"}})
    );
}

#[test]
fn the_wire_quirks_are_in_the_json() {
    let world = World::seeded();
    let (_, list) = ok::<TimesheetList>(
        &world,
        CLIENT,
        "pay/getTimesheetsForBid",
        &[("bidId", "310001"), ("page", "3")],
    );
    let sent = &list["data"]["timesheets"]["1"];
    assert_eq!(sent["id"], 880104);
    assert_eq!(
        (&sent["rate"], &sent["totalHours"], &sent["bidId"]),
        (&json!("30.00"), &json!("12.50"), &json!("310001"))
    );
    assert_eq!(
        (&sent["week"], &sent["startDate"], &sent["sentDate"]),
        (
            &json!("18-JAN-26"),
            &json!("12-JAN-26"),
            &json!("19-JAN-26")
        )
    );
    assert_eq!(
        (&sent["invoiceId"], &sent["adjustedHours"]),
        (&json!("9003"), &json!("0.00"))
    );
    assert!(sent.get("planComment").is_none() && sent.get("amountBilled").is_none());
    let draft = &list["data"]["timesheets"]["2"];
    for absent in [
        "submitDate",
        "sentDate",
        "approveByDate",
        "autoPayDate",
        "invoiceId",
    ] {
        assert!(draft.get(absent).is_none(), "{absent}");
    }
    assert_eq!(
        list["data"]["bidDetails"]["submissionDate"]
            .as_i64()
            .map(|_| ()),
        Some(())
    );

    let (_, single) =
        ok::<TimesheetDetails>(&world, CLIENT, "pay/getTimesheet", &[("id", "880104")]);
    let sheet = &single["data"]["timesheet"];
    assert_eq!(
        (&sheet["rate"], &sheet["bidId"], &sheet["startDate"]),
        (&json!(30), &json!(310001), &json!(1768176000))
    );
    assert_eq!(
        (&sheet["week"], &sheet["submitDate"]),
        (&json!("18-JAN-26"), &json!(1768810445))
    );
    assert!(sheet.get("adjustedHours").is_none());
    assert_eq!(
        (
            &single["data"]["comments"],
            &single["data"]["progressItems"]
        ),
        (&json!({}), &json!({}))
    );
    assert!(single["data"]["bidDetails"].get("clientCity").is_none());

    let (_, reports) = ok::<StatusReportList>(
        &world,
        CLIENT,
        "pay/getStatusReportsForBid",
        &[("bidId", "310002"), ("rpp", "3"), ("page", "4")],
    );
    let with_invoices = &reports["data"]["statusReports"]["0"];
    assert_eq!(
        (&with_invoices["id"], &with_invoices["invoiceIds"]),
        (&json!(990201), &json!([9001, 9002]))
    );
    let draft = &reports["data"]["statusReports"]["2"];
    assert_eq!(
        (&draft["id"], &draft["invoiceIds"], &draft["week"]),
        (&json!(0), &json!([]), &json!("25-JAN-26"))
    );
    assert!(draft.get("submitDate").is_none());
    assert_eq!(reports["data"]["bidDetails"]["duration"], 30);

    let (_, payment) = ok::<PaymentDetails>(&world, CLIENT, "pay/getPayment", &[("id", "7001")]);
    assert_eq!(payment["api"], "pay/getBilling");
    assert!(payment["data"].get("payment").is_some() && payment["data"].get("invoice").is_none());
    assert_eq!(payment["data"]["payment"]["externalPaymentId"], 0);
    let (_, invoice) = ok::<InvoiceSummary>(&world, CLIENT, "pay/getInvoice", &[("id", "9003")]);
    assert_eq!(invoice["api"], "pay/getBilling");
    let (_, billing) = ok::<BillingDetails>(&world, CLIENT, "pay/getBilling", &[("id", "9003")]);
    assert_eq!(billing["api"], "pay/getBilling");
    assert_eq!(
        billing["data"]["billing"]["invoice"]["paymentIds"],
        json!([7001])
    );
    assert_eq!(
        billing["data"]["billing"]["invoiceActivity"]["0"]["paymentId"],
        0
    );

    let (_, providers) = ok::<ProviderList>(&world, CLIENT, "manage/getMyProviders", &[]);
    assert_eq!(
        (
            &providers["data"]["totalResults"],
            &providers["data"]["totalPages"]
        ),
        (&json!("27"), &json!(2))
    );
    let agent = &providers["data"]["agents"]["0"];
    assert_eq!(
        (
            &agent["screenData"]["userId"],
            &agent["screenData"]["bidId"]
        ),
        (&json!("50001"), &json!("310001"))
    );
    assert!(agent["screenData"]["bidData"].get("clientUserId").is_none());
    assert_eq!(
        (&agent["isOnTracker"], &agent["hoursToday"]),
        (&json!(true), &json!(1.25))
    );
    assert!(providers.get("jobName").is_none());
    let (_, one) = ok::<ProviderList>(
        &world,
        CLIENT,
        "manage/getMyProviders",
        &[("bidId", "310001")],
    );
    assert_eq!(
        (&one["data"]["jobName"], &one["data"]["numResults"]),
        (
            &json!("Inventory sync service for Shopify store"),
            &json!(1)
        )
    );

    let (_, view) = ok::<Workview>(
        &world,
        CLIENT,
        "workroom/getWorkviewDetails",
        &[("bidId", "310003"), ("userId", "50003")],
    );
    assert_eq!(
        (&view["data"]["nextDate"], &view["data"]["prevDate"]),
        (&Value::Null, &json!("02-JAN-26"))
    );
    let screen = &view["data"]["screenBuckets"]["0"]["screens"]["0"];
    assert_eq!(
        (&screen["screenId"], &screen["timestamp"]),
        (&json!("5500101"), &json!(1767604032))
    );
    assert!(screen.get("bidId").is_none() && screen.get("bidData").is_none());
    let bid = &view["data"]["bidData"];
    assert!(bid.get("clientUserId").is_none() && bid.get("hoursPerWeek").is_none());
    assert_eq!(bid["submissionDate"], 1766047500);
}

#[test]
fn the_world_is_deterministic() {
    let (one, two) = (World::seeded(), World::seeded());
    assert_eq!(format!("{one:?}"), format!("{two:?}"));
    let calls: [(&str, &[(&str, &str)]); 6] = [
        (
            "pay/getTimesheetsForBid",
            &[("bidId", "310001"), ("rpp", "25")],
        ),
        (
            "pay/getStatusReportsForBid",
            &[("bidId", "310002"), ("rpp", "25")],
        ),
        ("pay/getBilling", &[("id", "8905")]),
        ("manage/getMyProviders", &[("rpp", "25")]),
        (
            "workroom/getWorkviewDetails",
            &[
                ("bidId", "310003"),
                ("userId", "50003"),
                ("date", "30-DEC-25"),
                ("rpp", "10"),
            ],
        ),
        ("pay/getStatusReport", &[("id", "990196")]),
    ];
    for (method, query) in calls {
        assert_eq!(
            call(&one, CLIENT, method, query),
            call(&two, CLIENT, method, query),
            "{method}"
        );
    }

    assert_eq!(one.users().len(), 30);
    let dana = one.user_by_login("dwhitfield").unwrap();
    assert_eq!((dana.id, dana.name.as_str()), (40001, "Dana Whitfield"));
    assert_eq!(one.user_by_login("mkhan").unwrap().id, 40002);
    assert_eq!(one.user_by_login("jsato").unwrap().name, "Jun Sato");
    assert!(one.user_by_login("nobody").is_none());
}
