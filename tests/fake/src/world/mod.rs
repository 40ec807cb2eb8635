//! The seeded marketplace the fake serves: people, bids (workrooms), timesheets, status reports,
//! invoices, payments and screen snapshots, all as exact values (dates as civil dates or UTC
//! instants, money and hours as [`Decimal`]). Nothing here knows the wire format; `render.rs`
//! turns these records into the reference's JSON shapes and `data.rs` answers the data methods.
//!
//! The world extends the one of `fixtures/` (see `fixtures/README.md`): the same people, bids,
//! records and epochs wherever a fixture shows them, with more history around them. "Now" is
//! Wednesday 2026-01-21, early afternoon UTC, as in the fixtures; the seeded data never depends
//! on the real clock.
//!
//! Where the longer history changes a fixture's value: bid 310001 was submitted 2025-08-11
//! 14:20 UTC (23 weekly timesheets from week ending 24-AUG-25) and bid 310002 2025-10-27 11:05
//! UTC (12 weekly reports from week ending 09-NOV-25), and the agents' `hours` are the sums of
//! all those timesheets and reports.
//!
//! The records live in `records`, the civil-date helpers in `dates`, and `seed` builds the world
//! one concept at a time (people, bids, hourly timesheets, fixed-price status reports, invoices
//! and payments, screen snapshots).

mod dates;
mod records;
mod seed;

use jiff::civil::Date;
use rust_decimal::Decimal;

pub(crate) use dates::{day_of, dmy, midnight, parse_dmy, plus_days};
pub(crate) use records::{
    ActivityKind, Bid, Comment, Invoice, Payment, Person, Progress, Screen, ScreenDay, ScreenHour,
    StatusReport, Timesheet, WorkItem,
};
use seed::Seeder;

/// A user who can log in at the authorization step.
#[derive(Clone, Debug)]
pub struct User {
    /// The user's ID (clientUserId, providerUserId, screenData.userId, ...).
    pub id: u64,
    /// The login name, also the "user name" of the wire (`client`, `provider`, `userName`).
    pub login: String,
    /// The full name (BidData `clientName` / `providerName`).
    pub name: String,
}

/// A seeded workroom (bid) as an app's test sees it: its parties, and the IDs of its records
/// to pass to the data methods and to compare with what they return.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Workroom {
    /// The bid ID, the `bidId` of every data method.
    pub bid_id: u64,
    /// The job's name (BidData `jobName`).
    pub job_name: String,
    /// The client's user ID.
    pub client: u64,
    /// The provider's user ID.
    pub provider: u64,
    /// Hourly (timesheets) or fixed-price (status reports).
    pub hourly: bool,
    /// Timesheet IDs, oldest week first, as pay/getTimesheetsForBid lists them.
    pub timesheets: Vec<u64>,
    /// Stored status report IDs, oldest week first. The current draft (the report in
    /// progress, `id` 0 for pay/getStatusReport) is made when asked for, so it is not in this
    /// list; pay/getStatusReportsForBid lists it last, as the reference's "submitted and in
    /// progress" says.
    pub status_reports: Vec<u64>,
    /// Invoice IDs.
    pub invoices: Vec<u64>,
    /// Payment IDs of those invoices.
    pub payments: Vec<u64>,
    /// Days with screen snapshots of the provider, oldest first (workroom/getWorkviewDetails).
    pub screenshot_days: Vec<Date>,
}

/// The seeded marketplace: users, bids (workrooms), timesheets, status reports, invoices, payments, screenshots.
#[derive(Clone, Debug)]
pub struct World {
    users: Vec<User>,
    people: Vec<Person>,
    pub(crate) bids: Vec<Bid>,
    pub(crate) timesheets: Vec<Timesheet>,
    pub(crate) reports: Vec<StatusReport>,
    pub(crate) invoices: Vec<Invoice>,
    pub(crate) payments: Vec<Payment>,
    pub(crate) screen_days: Vec<ScreenDay>,
}

impl World {
    /// The seeded world. Deterministic: the same data on every call and every run.
    pub fn seeded() -> World {
        Seeder::default().run()
    }

    /// Every user who can log in: the clients 40001 and 40002, then the providers 50001..=50028.
    pub fn users(&self) -> &[User] {
        &self.users
    }

    /// The user with this login name, e.g. `dwhitfield`.
    pub fn user_by_login(&self, login: &str) -> Option<&User> {
        self.users.iter().find(|user| user.login == login)
    }

    /// The user with this ID, e.g. 40001.
    pub fn user(&self, id: u64) -> Option<&User> {
        self.users.iter().find(|user| user.id == id)
    }

    /// Every workroom, in the order of their bid IDs' seeding: 310001..=310003 (the ones of the
    /// fixtures), Mira Khan's 320001, then 310004..=310027, one per further provider of Dana
    /// Whitfield.
    pub fn workrooms(&self) -> Vec<Workroom> {
        self.bids.iter().map(|bid| self.summary(bid)).collect()
    }

    /// The workroom of this bid.
    pub fn workroom(&self, bid_id: u64) -> Option<Workroom> {
        self.bid(bid_id).map(|bid| self.summary(bid))
    }

    /// Bid 310001, hourly: Dana Whitfield (40001) hires Ravi Menon (50001); 23 weekly
    /// timesheets (the last a Draft), several pages of pay/getTimesheetsForBid, invoices with
    /// payments, and snapshots on the seeded "today".
    pub fn hourly_workroom(&self) -> Workroom {
        self.seeded_workroom(310001)
    }

    /// Bid 310002, fixed-price: Dana Whitfield (40001) hires Lena Kovacs (50002); weekly status
    /// reports with progress per milestone, two milestones invoiced and paid.
    pub fn fixed_price_workroom(&self) -> Workroom {
        self.seeded_workroom(310002)
    }

    /// Bid 310003, hourly: Dana Whitfield (40001) hires Tomas Ortega (50003); screen snapshots
    /// on three days for workroom/getWorkviewDetails.
    pub fn screenshots_workroom(&self) -> Workroom {
        self.seeded_workroom(310003)
    }

    fn seeded_workroom(&self, bid_id: u64) -> Workroom {
        self.workroom(bid_id)
            .expect("the seeded world holds the showcase workrooms")
    }

    fn summary(&self, bid: &Bid) -> Workroom {
        let invoices: Vec<u64> = self
            .invoices
            .iter()
            .filter(|invoice| invoice.bid == bid.id)
            .map(|invoice| invoice.id)
            .collect();
        Workroom {
            bid_id: bid.id,
            job_name: bid.job_name.clone(),
            client: bid.client,
            provider: bid.provider,
            hourly: bid.hourly,
            timesheets: self.timesheets_of(bid.id).iter().map(|t| t.id).collect(),
            status_reports: self
                .reports_of(bid.id)
                .iter()
                .map(|report| report.id)
                .filter(|id| *id != 0)
                .collect(),
            payments: self
                .payments
                .iter()
                .filter(|payment| invoices.contains(&payment.invoice))
                .map(|payment| payment.id)
                .collect(),
            invoices,
            screenshot_days: self
                .screen_days_of(bid.id, bid.provider)
                .iter()
                .map(|day| day.day)
                .collect(),
        }
    }

    pub(crate) fn person(&self, id: u64) -> &Person {
        self.people
            .iter()
            .find(|person| person.user.id == id)
            .expect("every user referenced by the seeded world exists")
    }

    pub(crate) fn bid(&self, id: u64) -> Option<&Bid> {
        self.bids.iter().find(|bid| bid.id == id)
    }

    pub(crate) fn invoice(&self, id: u64) -> Option<&Invoice> {
        self.invoices.iter().find(|invoice| invoice.id == id)
    }

    pub(crate) fn payment(&self, id: u64) -> Option<&Payment> {
        self.payments.iter().find(|payment| payment.id == id)
    }

    /// The timesheets of a bid, oldest week first.
    pub(crate) fn timesheets_of(&self, bid: u64) -> Vec<&Timesheet> {
        let mut sheets: Vec<&Timesheet> = self.timesheets.iter().filter(|t| t.bid == bid).collect();
        sheets.sort_by_key(|t| t.week);
        sheets
    }

    /// The status reports of a bid, oldest week first (the current draft last).
    pub(crate) fn reports_of(&self, bid: u64) -> Vec<&StatusReport> {
        let mut reports: Vec<&StatusReport> =
            self.reports.iter().filter(|r| r.bid == bid).collect();
        reports.sort_by_key(|r| r.week);
        reports
    }

    /// The days with snapshots of `user` in workroom `bid`, oldest first.
    pub(crate) fn screen_days_of(&self, bid: u64, user: u64) -> Vec<&ScreenDay> {
        let mut days: Vec<&ScreenDay> = self
            .screen_days
            .iter()
            .filter(|day| day.bid == bid && day.user == user)
            .collect();
        days.sort_by_key(|day| day.day);
        days
    }

    /// Amount paid on an invoice: the sum of its payments.
    pub(crate) fn amount_paid(&self, invoice: &Invoice) -> Decimal {
        invoice
            .payment_ids
            .iter()
            .filter_map(|id| self.payment(*id))
            .map(|payment| payment.amount)
            .sum()
    }
}
