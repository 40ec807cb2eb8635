//! The nine data methods of the reference over the seeded [`World`]: parameters, paging,
//! permissions and errors. The JSON shapes are `render.rs`'s.
//!
//! Where the reference is silent the fake decides, and says so at the place:
//! - error bodies: by default `{"api", "apiVersion": 1, "rcode": 0, "error": {"code", "type",
//!   "message"}}` ([`error_body`]; the server can answer in other shapes, see
//!   [`ErrorShape`](crate::ErrorShape)), HTTP 400 for validation errors (type `validation`), 403
//!   for authorization errors (type `authorization`), 404 for an unknown method (type
//!   `request`, as the server half uses);
//! - a parameter given twice counts with its last value; an empty value counts as absent;
//! - `rpp` or `page` below 1 or not an integer: 400 `E_VALIDATION_INVALID_PARAMETER` (the
//!   reference only says what large values do); an `rpp` above the cap is clamped;
//! - list methods on a bid the caller is not party to: 400 `E_VALIDATION_INVALID_ID`, like the
//!   single-record methods (the reference documents that code for getTimesheet/getStatusReport
//!   only);
//! - workroom/getWorkviewDetails without a numeric `userId`: 400
//!   `E_VALIDATION_INVALID_PARAMETER`.
//!
//! Where the reference has a rough edge the fake decides too (ARCHITECTURE.md, "decisions"):
//! - workroom/getWorkviewDetails' `page`: the reference says "when equal to or above
//!   totalPages, no records are returned", with pages counted from 1 and no `totalPages` in
//!   the answer. Read literally, a day's last page could never be fetched (a day of one page
//!   would show nothing at page 1, the default), so the fake reads it as every other paged
//!   method does: pages 1 to totalPages hold the buckets, and a page above totalPages none.
//!
//! And where the reference is explicit the fake follows it: a parameter a method does not
//! take (a misspelled name, `oauth_` ones included) is ignored by the service and so not in
//! the base string it computes: a signer that signed it is refused with
//! `E_API_AUTH_SIGNATURE_MISMATCH`, the message naming it.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Value, json};

use crate::error_shape::ServiceError;
use crate::render::{self, BidVariant};
use crate::world::{Bid, World, dmy, parse_dmy};

/// The answer to one data call.
#[derive(Clone, Debug, PartialEq)]
pub struct DataReply {
    /// HTTP status: 200 on success, 400/403/404 on failure.
    pub status: u16,
    /// The JSON body: the success envelope or [`error_body`].
    pub body: Value,
    /// On failure, the error, for the server to answer in the shape it is set to.
    pub error: Option<ServiceError>,
}

pub use crate::error_shape::error_body;

/// What answers one data method.
type Answer = fn(&Call<'_>, Timestamp) -> Outcome;

/// The data methods the fake serves, each with what answers it. The spec-fake conformance test
/// (`tests/tests/spec_conformance.rs`) holds this list to the spec's methods.
const METHODS: &[(&str, Answer)] = &[
    ("pay/getTimesheetsForBid", |call, _| {
        call.timesheets_for_bid()
    }),
    ("pay/getStatusReportsForBid", |call, _| {
        call.status_reports_for_bid()
    }),
    ("pay/getTimesheet", |call, _| call.timesheet()),
    ("pay/getStatusReport", |call, _| call.status_report()),
    ("pay/getBilling", |call, _| call.billing()),
    ("pay/getInvoice", |call, _| call.invoice()),
    ("pay/getPayment", |call, _| call.payment()),
    ("manage/getMyProviders", |call, _| call.my_providers()),
    ("workroom/getWorkviewDetails", |call, now| {
        call.workview(now)
    }),
];

/// The data methods the fake serves (`group/method`), in the reference's order.
pub fn served_methods() -> impl Iterator<Item = &'static str> {
    METHODS.iter().map(|(name, _)| *name)
}

/// Answers `method` (`pay/getTimesheet`, ..., the nine data methods of the reference) for
/// `caller` (the user the access token acts for), given the decoded query parameters. `now` is
/// the fake's clock; the seeded data is static, so it only picks the day of
/// workroom/getWorkviewDetails when the date is omitted and the user has no snapshots at all.
/// An unknown method gives 404 `E_API_UNKNOWN_METHOD`.
pub fn respond(
    world: &World,
    caller: u64,
    method: &str,
    query: &[(String, String)],
    now: Timestamp,
) -> DataReply {
    let params = Params(query);
    let call = Call {
        world,
        caller,
        params: &params,
    };
    let outcome = match METHODS.iter().find(|(name, _)| *name == method) {
        Some((_, answer)) => answer(&call, now),
        None => Err(Failure {
            status: 404,
            code: "E_API_UNKNOWN_METHOD",
            kind: "request",
            message: format!("Unknown API method {method}"),
        }),
    };
    match outcome {
        Ok(data) => {
            // The reference's examples for getInvoice and getPayment carry pay/getBilling.
            let api = match method {
                "pay/getInvoice" | "pay/getPayment" => "pay/getBilling",
                other => other,
            };
            DataReply {
                status: 200,
                body: render::envelope(api, data),
                error: None,
            }
        }
        Err(failure) => DataReply {
            status: failure.status,
            body: error_body(method, failure.code, failure.kind, &failure.message),
            error: Some(ServiceError::new(
                method,
                failure.status,
                failure.code,
                failure.kind,
                &failure.message,
            )),
        },
    }
}

/// A failed call.
struct Failure {
    status: u16,
    code: &'static str,
    kind: &'static str,
    message: String,
}

type Outcome = Result<Value, Failure>;

fn validation(code: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        status: 400,
        code,
        kind: "validation",
        message: message.into(),
    }
}

fn authorization(code: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        status: 403,
        code,
        kind: "authorization",
        message: message.into(),
    }
}

fn invalid_id(message: impl Into<String>) -> Failure {
    validation("E_VALIDATION_INVALID_ID", message)
}

/// The fake's code for a parameter out of its type or bounds (the reference documents none):
/// the refusal of a request the spec does not describe, which the server marks as outside
/// the API, so the wire audit does not hold it to the spec.
pub(crate) const INVALID_PARAMETER: &str = "E_VALIDATION_INVALID_PARAMETER";

fn invalid_parameter(name: &str, value: &str) -> Failure {
    validation(
        INVALID_PARAMETER,
        format!("Invalid value {value:?} for parameter {name}"),
    )
}

/// The query parameters: the last value of a name wins; an empty value counts as absent.
struct Params<'a>(&'a [(String, String)]);

impl Params<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.is_empty())
    }

    /// An ID parameter: `Ok(None)` when absent, `Err(text)` when not a positive integer.
    fn id(&self, name: &str) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(text) => match text.parse::<u64>() {
                Ok(id) if id > 0 => Ok(Some(id)),
                _ => Err(text.to_owned()),
            },
        }
    }

    /// A positive integer parameter with a default; values above `cap` give `cap`.
    fn positive(&self, name: &str, default: u64, cap: Option<u64>) -> Result<u64, Failure> {
        let Some(text) = self.get(name) else {
            return Ok(default);
        };
        // Any page number the spec's `count` (u64) can hold: a page far above the last is
        // empty, not an error.
        match text.parse::<u64>() {
            Ok(value) if value >= 1 => Ok(cap.map_or(value, |cap| value.min(cap))),
            _ => Err(invalid_parameter(name, text)),
        }
    }

    /// `(rpp, page)` with the method's default page size and cap.
    fn paging(&self, default_rpp: u64, cap: u64) -> Result<(u64, u64), Failure> {
        Ok((
            self.positive("rpp", default_rpp, Some(cap))?,
            self.positive("page", 1, None)?,
        ))
    }
}

/// One page of `len` records: `(totalPages, the index range of the page)`. Page `p` holds the
/// records `(p - 1) * rpp ..`; a page above the last is empty.
fn page_of(len: usize, rpp: u64, page: u64) -> (usize, std::ops::Range<usize>) {
    let rpp = usize::try_from(rpp).unwrap_or(usize::MAX);
    let index = usize::try_from(page - 1).unwrap_or(usize::MAX);
    let total_pages = len.div_ceil(rpp);
    let start = index.saturating_mul(rpp).min(len);
    let end = start.saturating_add(rpp).min(len);
    (total_pages, start..end)
}

struct Call<'a> {
    world: &'a World,
    caller: u64,
    params: &'a Params<'a>,
}

impl<'a> Call<'a> {
    /// The bid named by `bidId`, which the caller must be party to (client or provider);
    /// otherwise (missing, malformed, unknown, someone else's) 400 `E_VALIDATION_INVALID_ID`.
    fn party_bid(&self) -> Result<&'a Bid, Failure> {
        let id = self
            .params
            .id("bidId")
            .map_err(|text| invalid_id(format!("Invalid bidId {text:?}")))?
            .ok_or_else(|| invalid_id("Parameter bidId is required"))?;
        self.owned_bid(id, "bidId")
    }

    /// Bid `id` if the caller is party to it, else 400 `E_VALIDATION_INVALID_ID` (an unknown
    /// bid and one without permission are not told apart).
    fn owned_bid(&self, id: u64, name: &str) -> Result<&'a Bid, Failure> {
        self.world
            .bid(id)
            .filter(|bid| bid.is_party(self.caller))
            .ok_or_else(|| {
                invalid_id(format!(
                    "Invalid {name} {id}, or no permission to access it"
                ))
            })
    }

    /// A required `id` parameter.
    fn required_id(&self) -> Result<u64, Failure> {
        self.params
            .id("id")
            .map_err(|text| invalid_id(format!("Invalid id {text:?}")))?
            .ok_or_else(|| invalid_id("Parameter id is required"))
    }

    /// pay/getTimesheetsForBid. A bid the caller is not party to gives 400
    /// `E_VALIDATION_INVALID_ID` (not documented for this method; the fake uses the code the
    /// reference gives for the single-record methods).
    fn timesheets_for_bid(&self) -> Outcome {
        let bid = self.party_bid()?;
        let (rpp, page) = self.params.paging(10, 25)?;
        let sheets = self.world.timesheets_of(bid.id);
        let (total_pages, range) = page_of(sheets.len(), rpp, page);
        let items: Vec<Value> = sheets[range]
            .iter()
            .map(|sheet| render::timesheet_list_entry(self.world, bid, sheet))
            .collect();
        Ok(json!({
            "totalResults": sheets.len(),
            "totalPages": total_pages,
            "page": page,
            "numResults": items.len(),
            "bidDetails": render::bid_data(self.world, bid, self.caller, BidVariant::List),
            "timesheets": render::keyed(items),
        }))
    }

    /// pay/getStatusReportsForBid; permissions as pay/getTimesheetsForBid (undocumented).
    fn status_reports_for_bid(&self) -> Outcome {
        let bid = self.party_bid()?;
        let (rpp, page) = self.params.paging(10, 25)?;
        let reports = self.world.reports_of(bid.id);
        let (total_pages, range) = page_of(reports.len(), rpp, page);
        let items: Vec<Value> = reports[range]
            .iter()
            .map(|report| render::status_report(self.world, bid, report))
            .collect();
        Ok(json!({
            "totalResults": reports.len(),
            "totalPages": total_pages,
            "page": page,
            "numResults": items.len(),
            "bidDetails": render::bid_data(self.world, bid, self.caller, BidVariant::List),
            "statusReports": render::keyed(items),
        }))
    }

    /// `(id, bidId)` of getTimesheet / getStatusReport: neither gives 400
    /// `E_VALIDATION_INVALID_ID_BIDID`; a malformed or zero value 400 `E_VALIDATION_INVALID_ID`.
    fn id_or_bid(&self) -> Result<(Option<u64>, Option<u64>), Failure> {
        let id = self
            .params
            .id("id")
            .map_err(|text| invalid_id(format!("Invalid id {text:?}")))?;
        let bid = self
            .params
            .id("bidId")
            .map_err(|text| invalid_id(format!("Invalid bidId {text:?}")))?;
        if id.is_none() && bid.is_none() {
            return Err(validation(
                "E_VALIDATION_INVALID_ID_BIDID",
                "Either id or bidId is required",
            ));
        }
        Ok((id, bid))
    }

    /// pay/getTimesheet: by id, or the current (newest) timesheet of bidId. With both, the
    /// timesheet must belong to that bid.
    fn timesheet(&self) -> Outcome {
        let (id, bid_id) = self.id_or_bid()?;
        let world = self.world;
        let sheet = match id {
            Some(id) => {
                let sheet = world
                    .timesheets
                    .iter()
                    .find(|sheet| sheet.id == id && bid_id.is_none_or(|b| b == sheet.bid))
                    .ok_or_else(|| invalid_id(format!("Invalid timesheet id {id}")))?;
                self.owned_bid(sheet.bid, "id")
                    .map_err(|_| invalid_id(format!("Invalid timesheet id {id}")))?;
                sheet
            }
            None => {
                let bid = bid_id.expect("id or bidId is present");
                self.owned_bid(bid, "bidId")?;
                *world
                    .timesheets_of(bid)
                    .last()
                    .ok_or_else(|| invalid_id(format!("Bid {bid} has no timesheet")))?
            }
        };
        let bid = world.bid(sheet.bid).expect("a timesheet's bid exists");
        let provider = world.person(bid.provider);
        Ok(json!({
            "bidDetails": render::bid_data(world, bid, self.caller, BidVariant::Single),
            "timesheet": render::timesheet_single(world, bid, sheet),
            "comments": render::keyed([]),
            "workItems": render::keyed(
                sheet.work_items.iter().map(|item| render::work_item(provider, sheet.id, sheet.sent, item)),
            ),
            "progressItems": render::keyed([]),
        }))
    }

    /// pay/getStatusReport: by id, or the current report of bidId (for 310002 the unstored
    /// draft with id 0). An explicit id 0 is not an ID (0 means none) and gives 400
    /// `E_VALIDATION_INVALID_ID`.
    fn status_report(&self) -> Outcome {
        let (id, bid_id) = self.id_or_bid()?;
        let world = self.world;
        let report = match id {
            Some(id) => {
                let report = world
                    .reports
                    .iter()
                    .find(|report| report.id == id && bid_id.is_none_or(|b| b == report.bid))
                    .ok_or_else(|| invalid_id(format!("Invalid status report id {id}")))?;
                self.owned_bid(report.bid, "id")
                    .map_err(|_| invalid_id(format!("Invalid status report id {id}")))?;
                report
            }
            None => {
                let bid = bid_id.expect("id or bidId is present");
                self.owned_bid(bid, "bidId")?;
                *world
                    .reports_of(bid)
                    .last()
                    .ok_or_else(|| invalid_id(format!("Bid {bid} has no status report")))?
            }
        };
        let bid = world.bid(report.bid).expect("a report's bid exists");
        let provider = world.person(bid.provider);
        Ok(json!({
            "bidDetails": render::bid_data(world, bid, self.caller, BidVariant::Single),
            "statusReport": render::status_report(world, bid, report),
            "comments": render::keyed(report.comments.iter().map(|c| render::comment(world, c))),
            "workItems": render::keyed(
                report.work_items.iter().map(|item| render::work_item(provider, report.id, report.sent, item)),
            ),
            "progressItems": render::keyed(
                report.progress.iter().map(|p| render::progress_item(bid, report.id, p)),
            ),
        }))
    }

    /// The invoice named by `id` and its bid, if the caller is party to it.
    fn own_invoice(&self) -> Result<(&'a Bid, &'a crate::world::Invoice), Failure> {
        let id = self.required_id()?;
        let invoice = self
            .world
            .invoice(id)
            .ok_or_else(|| invalid_id(format!("Invalid invoice id {id}")))?;
        let bid = self
            .owned_bid(invoice.bid, "id")
            .map_err(|_| invalid_id(format!("Invalid invoice id {id}")))?;
        Ok((bid, invoice))
    }

    /// pay/getBilling: the record is delivered inside `billing`.
    fn billing(&self) -> Outcome {
        let (bid, invoice) = self.own_invoice()?;
        Ok(json!({
            "bidDetails": render::bid_data(self.world, bid, self.caller, BidVariant::Billing),
            "billing": render::billing(self.world, bid, invoice),
        }))
    }

    /// pay/getInvoice.
    fn invoice(&self) -> Outcome {
        let (bid, invoice) = self.own_invoice()?;
        Ok(json!({
            "bidDetails": render::bid_data(self.world, bid, self.caller, BidVariant::Billing),
            "invoice": render::invoice(self.world, bid, invoice),
        }))
    }

    /// pay/getPayment: the record is delivered under `payment` (documented as `invoice`).
    fn payment(&self) -> Outcome {
        let id = self.required_id()?;
        let payment = self
            .world
            .payment(id)
            .ok_or_else(|| invalid_id(format!("Invalid payment id {id}")))?;
        let bid = self
            .owned_bid(payment.bid, "id")
            .map_err(|_| invalid_id(format!("Invalid payment id {id}")))?;
        Ok(json!({
            "bidDetails": render::bid_data(self.world, bid, self.caller, BidVariant::Billing),
            "payment": render::payment(self.world, bid, payment),
        }))
    }

    /// manage/getMyProviders: the providers of the bids where the caller is the client, by bid
    /// ID. With bidId (which the caller must be party to, else 400 `E_VALIDATION_INVALID_ID`)
    /// only that workroom's provider, plus `jobName`; a provider caller gets no agents.
    /// totalResults is a string without bidId and a number with it, as in the two fixtures.
    fn my_providers(&self) -> Outcome {
        let filter = match self.params.id("bidId") {
            Ok(None) => None,
            Ok(Some(id)) => Some(self.owned_bid(id, "bidId")?),
            Err(text) => return Err(invalid_id(format!("Invalid bidId {text:?}"))),
        };
        let (rpp, page) = self.params.paging(20, 25)?;
        let mut bids: Vec<&Bid> = self
            .world
            .bids
            .iter()
            .filter(|bid| bid.client == self.caller)
            .filter(|bid| filter.is_none_or(|only| only.id == bid.id))
            .collect();
        bids.sort_by_key(|bid| bid.id);
        let (total_pages, range) = page_of(bids.len(), rpp, page);
        let agents: Vec<Value> = bids[range]
            .iter()
            .map(|bid| render::agent(self.world, bid, self.caller))
            .collect();
        let mut data = json!({
            "totalResults": if filter.is_some() {
                Value::from(bids.len())
            } else {
                Value::from(bids.len().to_string())
            },
            "totalPages": total_pages,
            "page": page,
            "numResults": agents.len(),
            "agents": render::keyed(agents),
        });
        if let Some(bid) = filter {
            data["jobName"] = bid.job_name.clone().into();
        }
        Ok(data)
    }

    /// workroom/getWorkviewDetails.
    fn workview(&self, now: Timestamp) -> Outcome {
        let world = self.world;
        let bid = match self.params.id("bidId") {
            Ok(Some(id)) => world.bid(id),
            Ok(None) | Err(_) => None,
        }
        .ok_or_else(|| validation("E_WORKROOM_INVALID_BID", "Invalid or missing bidId"))?;
        if !bid.is_party(self.caller) {
            return Err(authorization(
                "E_API_NOT_AUTHORIZED",
                "You are not authorized to access this workroom",
            ));
        }
        let user = match self.params.get("userId") {
            None => return Err(invalid_parameter("userId", "")),
            Some(text) => text
                .parse::<u64>()
                .map_err(|_| invalid_parameter("userId", text))?,
        };
        if !bid.is_party(user) {
            return Err(authorization(
                "E_WORKROOM_BID_ACCESS",
                format!("User {user} has no access to workroom {}", bid.id),
            ));
        }
        let requested = match self.params.get("date") {
            None => None,
            Some(text) => Some(parse_dmy(text).ok_or_else(|| invalid_parameter("date", text))?),
        };
        let (rpp, page) = self.params.paging(6, 10)?;
        let days = world.screen_days_of(bid.id, user);
        // Without a date: the most recent day with data (today when there is none at all).
        let day = requested
            .or_else(|| days.last().map(|day| day.day))
            .unwrap_or_else(|| now.to_zoned(TimeZone::UTC).date());
        let record = days.iter().find(|d| d.day == day);
        let prev = days.iter().rev().find(|d| d.day < day).map(|d| dmy(d.day));
        let next = days.iter().find(|d| d.day > day).map(|d| dmy(d.day));
        // The reference: "when equal to or above totalPages, no records are returned". The
        // response has no totalPages, and read literally (page >= totalPages with pages
        // counted from 1) the last page could never be fetched. The fake reads page as a
        // zero-based index into totalPages = ceil(buckets / rpp): page p returns nothing when
        // p - 1 >= totalPages, so every bucket is reachable and the first page past the end
        // is empty (which is where the client's paging stops).
        let buckets: Vec<Value> = match record {
            Some(record) => {
                let (_, range) = page_of(record.buckets.len(), rpp, page);
                record.buckets[range]
                    .iter()
                    .map(|bucket| render::screen_bucket(world, record, bucket))
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(json!({
            "bidData": render::bid_data(world, bid, self.caller, BidVariant::Workview),
            "hours": record.map_or(0, |record| record.hours),
            "date": dmy(day),
            "prevDate": prev,
            "nextDate": next,
            "userName": world.person(user).user.login,
            "screenBuckets": render::keyed(buckets),
        }))
    }
}
