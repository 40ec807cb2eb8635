//! The wire shapes of the reference, exactly as `fixtures/` shows them: which figures are JSON
//! strings and which numbers, which dates are `DD-MON-YY` text and which epochs, which optional
//! fields each response variant carries, collections as objects keyed `"0"`, `"1"`, ... (only
//! `paymentIds` and `invoiceIds` are plain arrays).

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Value, json};

use crate::world::{
    ActivityKind, Bid, Comment, Invoice, Payment, Person, Progress, Screen, ScreenDay, ScreenHour,
    StatusReport, Timesheet, WorkItem, World, day_of, dmy, midnight, plus_days,
};

/// The success envelope.
pub(crate) fn envelope(api: &str, data: Value) -> Value {
    json!({"api": api, "apiVersion": 1, "rcode": 1, "data": data})
}

/// A collection: an object keyed by zero-based index strings; `{}` when empty.
pub(crate) fn keyed(items: impl IntoIterator<Item = Value>) -> Value {
    Value::Object(
        items
            .into_iter()
            .enumerate()
            .map(|(index, item)| (index.to_string(), item))
            .collect::<Map<String, Value>>(),
    )
}

/// A decimal as a JSON number: an integer literal when whole (`30`, `0`), else the shortest
/// float that reads back as the decimal (`12.5`, `70.25`).
pub(crate) fn number(value: Decimal) -> Value {
    // Not a let chain: those need Rust 1.88, above the declared rust-version.
    if let Some(whole) = value.to_i64().filter(|_| value.fract().is_zero()) {
        return Value::from(whole);
    }
    let float: f64 = value
        .to_string()
        .parse()
        .expect("a decimal's text is a float");
    Value::from(float)
}

/// A decimal as text with two places (`"12.50"`, `"30.00"`).
fn text2(value: Decimal) -> Value {
    Value::from(format!("{:.2}", value.round_dp(2)))
}

fn epoch(instant: Timestamp) -> Value {
    Value::from(instant.as_second())
}

fn day_epoch(day: Date) -> Value {
    epoch(midnight(day))
}

fn avatar(user: u64) -> String {
    format!("https://img.example-market.com/u/{user}/avatar.jpg")
}

fn logo(user: u64) -> String {
    format!("https://img.example-market.com/c/{user}/logo.png")
}

/// The BidData variants of the fixtures, by the optional fields each carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BidVariant {
    /// pay/getTimesheetsForBid, pay/getStatusReportsForBid: every field.
    List,
    /// pay/getTimesheet, pay/getStatusReport: no clientCity, no submissionDate.
    Single,
    /// pay/getBilling, pay/getInvoice, pay/getPayment: no clientCity, secondaryStatus,
    /// hoursPerWeek, submissionDate.
    Billing,
    /// manage/getMyProviders: no clientUserId, providerUserId, submissionDate; clientCity for
    /// some bids only.
    Providers,
    /// workroom/getWorkviewDetails: no clientUserId, providerUserId, clientCity,
    /// secondaryStatus, hoursPerWeek; with submissionDate.
    Workview,
}

/// BidData for `caller` (who decides `userType`).
pub(crate) fn bid_data(world: &World, bid: &Bid, caller: u64, variant: BidVariant) -> Value {
    use BidVariant::{Billing, List, Providers, Single, Workview};
    let client = world.person(bid.client);
    let provider = world.person(bid.provider);
    let with_ids = !matches!(variant, Providers | Workview);
    let client_city = match variant {
        List => true,
        Providers => bid.client_city_in_provider_list,
        Single | Billing | Workview => false,
    };
    let with_status_extras = matches!(variant, List | Single | Providers);
    let with_submission = matches!(variant, List | Workview);

    let mut data = Map::new();
    let mut put = |key: &str, value: Value| {
        data.insert(key.to_owned(), value);
    };
    put("bidId", bid.id.to_string().into());
    put("jobId", bid.job_id.to_string().into());
    put("jobName", bid.job_name.clone().into());
    put(
        "userType",
        if caller == bid.client {
            "CLIENT"
        } else {
            "PROVIDER"
        }
        .into(),
    );
    if with_ids {
        put("clientUserId", bid.client.to_string().into());
    }
    put("clientName", client.user.name.clone().into());
    put("clientImageURL", avatar(bid.client).into());
    put("clientCountry", client.country.clone().into());
    put("clientCountryCode", client.country_code.clone().into());
    if client_city {
        put("clientCity", client.city.clone().into());
    }
    if with_ids {
        put("providerUserId", bid.provider.to_string().into());
    }
    put("providerName", provider.user.name.clone().into());
    put("providerImageURL", avatar(bid.provider).into());
    put("providerCountry", provider.country.clone().into());
    put("providerCountryCode", provider.country_code.clone().into());
    put("providerCity", provider.city.clone().into());
    put("phase", "5".into());
    put("status", "Working".into());
    if with_status_extras {
        put("secondaryStatus", "".into());
    }
    put("isHourly", bid.hourly.into());
    put("isSponsored", bid.sponsored.into());
    put("isPreBid", false.into());
    put("bidAmount", text2(bid.amount));
    if with_status_extras {
        put("hoursPerWeek", bid.hours_per_week.to_string().into());
    }
    put(
        "duration",
        match bid.duration_days {
            Some(days) => days.into(),
            None => "".into(),
        },
    );
    if with_submission {
        put("submissionDate", epoch(bid.submitted));
    }
    Value::Object(data)
}

/// The dates every timesheet and status report derives from its week-ending day.
struct WeekDates {
    start: Date,
    end: Date,
    next_end: Date,
    approve_by: Date,
    auto_pay: Date,
}

fn week_dates(week: Date) -> WeekDates {
    WeekDates {
        start: plus_days(week, -6),
        end: week,
        next_end: plus_days(week, 7),
        approve_by: plus_days(week, 8),
        auto_pay: plus_days(week, 10),
    }
}

fn status(sent: Option<Timestamp>) -> &'static str {
    if sent.is_some() { "Sent" } else { "Draft" }
}

/// A timesheet in the list variant of pay/getTimesheetsForBid.
pub(crate) fn timesheet_list_entry(world: &World, bid: &Bid, sheet: &Timesheet) -> Value {
    let client = world.person(bid.client);
    let provider = world.person(bid.provider);
    let dates = week_dates(sheet.week);
    let text_day = |day: Date| Value::from(dmy(day));
    let mut data = Map::new();
    let mut put = |key: &str, value: Value| {
        data.insert(key.to_owned(), value);
    };
    put("id", sheet.id.into());
    put("week", text_day(sheet.week));
    put("bidId", bid.id.to_string().into());
    put("client", client.user.login.clone().into());
    put("provider", provider.user.login.clone().into());
    put("clientUserId", bid.client.to_string().into());
    put("providerUserId", bid.provider.to_string().into());
    put("status", status(sheet.sent).into());
    put("projectStatus", "OK".into());
    put("projectStatusChangedBy", "PROVIDER".into());
    put("startDate", text_day(dates.start));
    put("endDate", text_day(dates.end));
    put("nextEndDate", text_day(dates.next_end));
    if let Some(sent) = sheet.sent {
        put("submitDate", text_day(day_of(sent)));
        put("sentDate", text_day(day_of(sent)));
        put("approveByDate", text_day(dates.approve_by));
        put("autoPayDate", text_day(dates.auto_pay));
    }
    put("totalHours", text2(sheet.total_hours()));
    put("adjustedHours", text2(Decimal::ZERO));
    put("authorizedHours", text2(sheet.authorized_hours));
    put("billedHours", text2(sheet.billed_hours()));
    put("autoPayHours", text2(sheet.billed_hours()));
    put("nextAuthorizedHours", text2(sheet.next_authorized_hours));
    put("rate", text2(bid.rate));
    put("overdue", false.into());
    put("seenByClient", sheet.seen_by_client.into());
    if let Some(invoice) = sheet.invoice {
        put("invoiceId", invoice.to_string().into());
    }
    Value::Object(data)
}

/// A timesheet in the single variant of pay/getTimesheet.
pub(crate) fn timesheet_single(world: &World, bid: &Bid, sheet: &Timesheet) -> Value {
    let client = world.person(bid.client);
    let provider = world.person(bid.provider);
    let dates = week_dates(sheet.week);
    let billed = sheet.billed_hours() * bid.rate;
    let paid = sheet
        .invoice
        .and_then(|id| world.invoice(id))
        .map_or(Decimal::ZERO, |invoice| world.amount_paid(invoice));
    let mut data = Map::new();
    let mut put = |key: &str, value: Value| {
        data.insert(key.to_owned(), value);
    };
    put("id", sheet.id.into());
    put("week", dmy(sheet.week).into());
    put("bidId", bid.id.into());
    put("client", client.user.login.clone().into());
    put("provider", provider.user.login.clone().into());
    put("clientUserId", bid.client.into());
    put("providerUserId", bid.provider.into());
    put("status", status(sheet.sent).into());
    put("projectStatus", "OK".into());
    put("projectStatusChangedBy", "PROVIDER".into());
    put("planComment", sheet.plan_comment.clone().into());
    put("startDate", day_epoch(dates.start));
    put("endDate", day_epoch(dates.end));
    put("nextEndDate", day_epoch(dates.next_end));
    if let Some(sent) = sheet.sent {
        put("submitDate", epoch(sent));
        put("sentDate", epoch(sent));
        put("approveByDate", day_epoch(dates.approve_by));
        put("autoPayDate", day_epoch(dates.auto_pay));
    }
    put("totalHours", number(sheet.total_hours()));
    put("authorizedHours", number(sheet.authorized_hours));
    put("billedHours", number(sheet.billed_hours()));
    put("autoPayHours", number(sheet.billed_hours()));
    put("nextAuthorizedHours", number(sheet.next_authorized_hours));
    put("rate", number(bid.rate));
    put("amountBilled", number(billed));
    put("amountPaid", number(paid));
    put("amountOutstanding", number(billed - paid));
    put("overdue", false.into());
    put("seenByClient", sheet.seen_by_client.into());
    if let Some(invoice) = sheet.invoice {
        put("invoiceId", invoice.into());
    }
    Value::Object(data)
}

/// StatusReportData (the same shape in the list and in pay/getStatusReport).
pub(crate) fn status_report(world: &World, bid: &Bid, report: &StatusReport) -> Value {
    let client = world.person(bid.client);
    let provider = world.person(bid.provider);
    let dates = week_dates(report.week);
    let mut data = Map::new();
    let mut put = |key: &str, value: Value| {
        data.insert(key.to_owned(), value);
    };
    put("id", report.id.into());
    put("week", dmy(report.week).into());
    put("bidId", bid.id.into());
    put("clientUserId", bid.client.into());
    put("providerUserId", bid.provider.into());
    put("client", client.user.login.clone().into());
    put("provider", provider.user.login.clone().into());
    put("status", status(report.sent).into());
    put("projectStatus", "OK".into());
    put("projectStatusChangedBy", "PROVIDER".into());
    put("planComment", report.plan_comment.clone().into());
    put("startDate", day_epoch(dates.start));
    put("endDate", day_epoch(dates.end));
    put("nextEndDate", day_epoch(dates.next_end));
    if let Some(sent) = report.sent {
        put("submitDate", epoch(sent));
        put("sentDate", epoch(sent));
        put("approveByDate", day_epoch(dates.approve_by));
    }
    put("totalHours", number(report.total_hours()));
    put("overdue", false.into());
    put("seenByClient", report.seen_by_client.into());
    put("invoiceIds", report.invoice_ids.clone().into());
    Value::Object(data)
}

/// WorkItemData of a timesheet or report `parent` (0 for the unstored draft report).
pub(crate) fn work_item(
    provider: &Person,
    parent: u64,
    sent: Option<Timestamp>,
    item: &WorkItem,
) -> Value {
    json!({
        "parentId": parent,
        "workUnitId": item.id,
        "userId": provider.user.id,
        "userName": provider.user.login,
        "displayName": provider.display_name,
        "day": day_epoch(item.day),
        "type": if item.milestone.is_some() { "Hourly Milestone" } else { "Hourly Other" },
        "status": status(sent),
        "description": item.description,
        "quantity": number(item.hours),
        "milestoneId": item.milestone.unwrap_or(0),
    })
}

/// ProgressItemData of report `parent`.
pub(crate) fn progress_item(bid: &Bid, parent: u64, progress: &Progress) -> Value {
    let milestone = bid
        .milestone(progress.milestone)
        .expect("progress items name milestones of their bid");
    json!({
        "parentId": parent,
        "description": milestone.description,
        "milestoneId": milestone.id,
        "targetCompletionDate": day_epoch(milestone.target),
        "deliveryDate": day_epoch(milestone.delivery),
        "revised": milestone.revised,
        "progressPercent": number(progress.percent),
        "amount": number(milestone.amount),
        "paidDate": milestone.paid.map_or(Value::from(0), day_epoch),
    })
}

/// A status report comment (fields not documented; shaped as in the fixture).
pub(crate) fn comment(world: &World, comment: &Comment) -> Value {
    json!({
        "id": comment.id.to_string(),
        "userId": comment.user.to_string(),
        "userName": world.person(comment.user).user.login,
        "comment": comment.text,
        "date": epoch(comment.at),
    })
}

/// InvoiceData.
pub(crate) fn invoice(world: &World, bid: &Bid, invoice: &Invoice) -> Value {
    let billed: Decimal = invoice.lines.iter().map(|line| line.amount()).sum();
    let paid = world.amount_paid(invoice);
    json!({
        "id": invoice.id,
        "date": epoch(invoice.date),
        "bidId": bid.id,
        "jobId": bid.job_id,
        "clientUserId": bid.client,
        "providerUserId": bid.provider,
        "client": world.person(bid.client).user.login,
        "provider": world.person(bid.provider).user.login,
        "type": "Invoice",
        "status": "Released",
        "amountBilled": number(billed),
        "amountPaid": number(paid),
        "amountOutstanding": number(billed - paid),
        "currency": "USD",
        "comments": invoice.comments,
        "lineItemCount": invoice.lines.len(),
        "paymentIds": invoice.payment_ids,
    })
}

/// The billing record of pay/getBilling: invoice, invoiceDetails, invoiceActivity, payments.
pub(crate) fn billing(world: &World, bid: &Bid, record: &Invoice) -> Value {
    let details = record.lines.iter().map(|line| {
        let milestone = bid
            .milestone(line.milestone)
            .map_or("", |m| m.description.as_str());
        json!({
            "parentId": record.id,
            "description": line.description,
            "type": "Milestone",
            "milestoneId": line.milestone,
            "milestoneDescription": milestone,
            "rate": number(line.rate),
            "hours": number(line.hours),
            "amount": number(line.amount()),
        })
    });
    let activity = record.activity.iter().map(|entry| {
        json!({
            "parentId": record.id,
            "activity": match entry.kind {
                ActivityKind::ReleaseRequestSent => "Release Request Sent",
                ActivityKind::Released => "Released",
            },
            "user": world.person(entry.user).user.login,
            "date": epoch(entry.at),
            "comments": entry.comments,
            "paymentId": entry.payment.unwrap_or(0),
        })
    });
    let payments = record
        .payment_ids
        .iter()
        .filter_map(|id| world.payment(*id))
        .map(|p| payment(world, bid, p));
    json!({
        "invoice": invoice(world, bid, record),
        "invoiceDetails": keyed(details),
        "invoiceActivity": keyed(activity),
        "payments": keyed(payments),
    })
}

/// PaymentData.
pub(crate) fn payment(world: &World, bid: &Bid, payment: &Payment) -> Value {
    let client = &world.person(bid.client).user.login;
    let provider = &world.person(bid.provider).user.login;
    let (external_id, external_display) = payment
        .external
        .clone()
        .unwrap_or_else(|| (0, String::new()));
    json!({
        "id": payment.id,
        "date": epoch(payment.at),
        "bidId": bid.id,
        "jobId": bid.job_id,
        "clientUserId": bid.client,
        "providerUserId": bid.provider,
        "client": client,
        "provider": provider,
        "fromAccountId": 81_000_000 + bid.client,
        "toAccountId": 82_000_000 + bid.provider,
        "invoiceId": payment.invoice,
        "internalPaymentDisplay": format!("PMT-{}", payment.id),
        "externalPaymentId": external_id,
        "externalPaymentDisplay": external_display,
        "fromAmount": number(payment.amount),
        "toAmount": number(payment.amount),
        "amount": number(payment.amount),
        "fromCurrency": "USD",
        "toCurrency": "USD",
        "fromDescription": format!("Payment to {provider} for invoice {}", payment.invoice),
        "toDescription": format!("Payment from {client} for invoice {}", payment.invoice),
    })
}

/// An Agent of manage/getMyProviders: the provider-list variant of screenData and the tracker
/// figures.
pub(crate) fn agent(world: &World, bid: &Bid, caller: u64) -> Value {
    let provider = world.person(bid.provider);
    json!({
        "screenData": {
            "timestamp": epoch(bid.agent.last_seen),
            "userId": bid.provider.to_string(),
            "userName": provider.user.login,
            "companyName": provider.company,
            "logoURL": logo(bid.provider),
            "numComments": bid.agent.num_comments,
            "bidId": bid.id.to_string(),
            "bidData": bid_data(world, bid, caller, BidVariant::Providers),
            "date": dmy(day_of(bid.agent.last_seen)),
        },
        "isOnTracker": bid.agent.on_tracker,
        "hours": number(bid.agent.hours),
        "hoursToday": number(bid.agent.hours_today),
    })
}

/// A ScreenBucket of workroom/getWorkviewDetails: the snapshot variant of screenData.
pub(crate) fn screen_bucket(world: &World, day: &ScreenDay, bucket: &ScreenHour) -> Value {
    let user = world.person(day.user);
    let folder = format!(
        "https://screens.example-market.com/{}/{}/{:04}{:02}{:02}",
        day.bid,
        day.user,
        day.day.year(),
        day.day.month(),
        day.day.day()
    );
    let screen = |screen: &Screen| {
        json!({
            "timestamp": epoch(screen.at),
            "userId": day.user.to_string(),
            "userName": user.user.login,
            "companyName": user.company,
            "logoURL": logo(day.user),
            "numComments": screen.num_comments,
            "date": dmy(day.day),
            "screenId": screen.id.to_string(),
            "screenURL": format!("{folder}/{}.jpg", screen.id),
            "thumbURL": format!("{folder}/{}_thumb.jpg", screen.id),
            "tileURL": format!("{folder}/{}_tile.jpg", screen.id),
        })
    };
    json!({
        "title": format!("{}:00 - {}:00", bucket.hour, bucket.hour + 1),
        "screens": keyed(bucket.screens.iter().map(screen)),
    })
}
