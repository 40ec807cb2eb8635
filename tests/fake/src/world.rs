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

use jiff::civil::{Date, date};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use rust_decimal::Decimal;

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
    /// Stored status report IDs, oldest week first. The current draft, which
    /// pay/getStatusReport answers for the bid with `id` 0, is not stored and not listed.
    pub status_reports: Vec<u64>,
    /// Invoice IDs.
    pub invoices: Vec<u64>,
    /// Payment IDs of those invoices.
    pub payments: Vec<u64>,
    /// Days with screen snapshots of the provider, oldest first (workroom/getWorkviewDetails).
    pub screenshot_days: Vec<Date>,
}

/// The public profile of a user, beyond [`User`].
#[derive(Clone, Debug)]
pub(crate) struct Person {
    pub(crate) user: User,
    /// Short form of the name, WorkItemData `displayName` ("Ravi M.").
    pub(crate) display_name: String,
    pub(crate) company: String,
    pub(crate) country: String,
    pub(crate) country_code: String,
    pub(crate) city: String,
}

/// A milestone of a bid.
#[derive(Clone, Debug)]
pub(crate) struct Milestone {
    pub(crate) id: u64,
    pub(crate) description: String,
    pub(crate) amount: Decimal,
    pub(crate) target: Date,
    pub(crate) delivery: Date,
    pub(crate) revised: bool,
    /// Day the milestone was paid, if it was.
    pub(crate) paid: Option<Date>,
}

/// What the provider list says about the provider of a bid.
#[derive(Clone, Debug)]
pub(crate) struct AgentFacts {
    pub(crate) on_tracker: bool,
    /// Total hours logged on the project.
    pub(crate) hours: Decimal,
    pub(crate) hours_today: Decimal,
    /// Last activity (screenData.timestamp and its date).
    pub(crate) last_seen: Timestamp,
    pub(crate) num_comments: u32,
}

/// A bid: one hiring, one workroom.
#[derive(Clone, Debug)]
pub(crate) struct Bid {
    pub(crate) id: u64,
    pub(crate) job_id: u64,
    pub(crate) job_name: String,
    pub(crate) client: u64,
    pub(crate) provider: u64,
    pub(crate) hourly: bool,
    pub(crate) sponsored: bool,
    pub(crate) amount: Decimal,
    /// Hourly rate (zero for fixed-price work).
    pub(crate) rate: Decimal,
    /// Zero for fixed-price work.
    pub(crate) hours_per_week: u32,
    /// Days, fixed-price work only (the wire's `duration`, "" otherwise).
    pub(crate) duration_days: Option<u32>,
    pub(crate) submitted: Timestamp,
    pub(crate) milestones: Vec<Milestone>,
    /// Whether `clientCity` appears in this bid's BidData in manage/getMyProviders (the
    /// fixtures show it for some bids and not for others).
    pub(crate) client_city_in_provider_list: bool,
    pub(crate) agent: AgentFacts,
}

impl Bid {
    /// Whether `user` is the client or the provider of this bid.
    pub(crate) fn is_party(&self, user: u64) -> bool {
        self.client == user || self.provider == user
    }

    pub(crate) fn milestone(&self, id: u64) -> Option<&Milestone> {
        self.milestones.iter().find(|m| m.id == id)
    }
}

/// One work item of a timesheet or status report.
#[derive(Clone, Debug)]
pub(crate) struct WorkItem {
    pub(crate) id: u64,
    pub(crate) day: Date,
    /// `Some` for "Hourly Milestone", `None` for "Hourly Other".
    pub(crate) milestone: Option<u64>,
    pub(crate) description: String,
    pub(crate) hours: Decimal,
}

/// A weekly timesheet of hourly work.
#[derive(Clone, Debug)]
pub(crate) struct Timesheet {
    pub(crate) id: u64,
    pub(crate) bid: u64,
    /// Week-ending day (a Sunday).
    pub(crate) week: Date,
    /// When it was submitted and sent; `None` while Draft.
    pub(crate) sent: Option<Timestamp>,
    pub(crate) plan_comment: String,
    pub(crate) authorized_hours: Decimal,
    pub(crate) next_authorized_hours: Decimal,
    pub(crate) seen_by_client: bool,
    pub(crate) invoice: Option<u64>,
    pub(crate) work_items: Vec<WorkItem>,
}

impl Timesheet {
    pub(crate) fn total_hours(&self) -> Decimal {
        self.work_items.iter().map(|item| item.hours).sum()
    }

    /// Hours billed: all of them once sent, none while Draft.
    pub(crate) fn billed_hours(&self) -> Decimal {
        if self.sent.is_some() {
            self.total_hours()
        } else {
            Decimal::ZERO
        }
    }
}

/// A comment on a status report (StatusReportCommentData; its fields are not documented).
#[derive(Clone, Debug)]
pub(crate) struct Comment {
    pub(crate) id: u64,
    pub(crate) user: u64,
    pub(crate) text: String,
    pub(crate) at: Timestamp,
}

/// The progress of one milestone in a status report.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    pub(crate) milestone: u64,
    pub(crate) percent: Decimal,
}

/// A weekly status report of fixed-price work. The current draft is not stored: its id is 0.
#[derive(Clone, Debug)]
pub(crate) struct StatusReport {
    pub(crate) id: u64,
    pub(crate) bid: u64,
    pub(crate) week: Date,
    pub(crate) sent: Option<Timestamp>,
    pub(crate) plan_comment: String,
    pub(crate) seen_by_client: bool,
    pub(crate) invoice_ids: Vec<u64>,
    pub(crate) work_items: Vec<WorkItem>,
    pub(crate) progress: Vec<Progress>,
    pub(crate) comments: Vec<Comment>,
}

impl StatusReport {
    pub(crate) fn total_hours(&self) -> Decimal {
        self.work_items.iter().map(|item| item.hours).sum()
    }
}

/// A line of an invoice. Its amount is `rate x hours`.
#[derive(Clone, Debug)]
pub(crate) struct InvoiceLine {
    pub(crate) description: String,
    pub(crate) milestone: u64,
    pub(crate) rate: Decimal,
    pub(crate) hours: Decimal,
}

impl InvoiceLine {
    pub(crate) fn amount(&self) -> Decimal {
        self.rate * self.hours
    }
}

/// The activities that occur on an invoice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ActivityKind {
    ReleaseRequestSent,
    Released,
}

/// One entry of an invoice's activity log.
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    pub(crate) kind: ActivityKind,
    pub(crate) user: u64,
    pub(crate) at: Timestamp,
    pub(crate) comments: String,
    pub(crate) payment: Option<u64>,
}

/// An invoice (a billing record). Every seeded invoice is Released.
#[derive(Clone, Debug)]
pub(crate) struct Invoice {
    pub(crate) id: u64,
    pub(crate) bid: u64,
    pub(crate) date: Timestamp,
    pub(crate) comments: String,
    pub(crate) lines: Vec<InvoiceLine>,
    pub(crate) activity: Vec<Activity>,
    pub(crate) payment_ids: Vec<u64>,
}

/// A payment of an invoice.
#[derive(Clone, Debug)]
pub(crate) struct Payment {
    pub(crate) id: u64,
    pub(crate) invoice: u64,
    pub(crate) bid: u64,
    pub(crate) at: Timestamp,
    pub(crate) amount: Decimal,
    /// The external (bank) reference, when there is one.
    pub(crate) external: Option<(u64, String)>,
}

/// One screen snapshot.
#[derive(Clone, Debug)]
pub(crate) struct Screen {
    pub(crate) id: u64,
    pub(crate) at: Timestamp,
    pub(crate) num_comments: u32,
}

/// The snapshots of one clock hour.
#[derive(Clone, Debug)]
pub(crate) struct ScreenHour {
    /// Starting hour, 0..=23 (title "9:00 - 10:00" for 9).
    pub(crate) hour: u8,
    pub(crate) screens: Vec<Screen>,
}

/// The snapshots of one user in one workroom on one day.
#[derive(Clone, Debug)]
pub(crate) struct ScreenDay {
    pub(crate) bid: u64,
    pub(crate) user: u64,
    pub(crate) day: Date,
    /// Whole hours worked that day.
    pub(crate) hours: u32,
    pub(crate) buckets: Vec<ScreenHour>,
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

// ---------------------------------------------------------------------------------------------
// Seeding helpers.

/// Decimal from text; the seed's literals are all valid.
pub(crate) fn dec(text: &str) -> Decimal {
    text.parse().expect("a valid decimal literal")
}

/// The instant of `day` at `h:m:s` UTC.
pub(crate) fn at(day: Date, h: i8, m: i8, s: i8) -> Timestamp {
    day.at(h, m, s, 0)
        .to_zoned(TimeZone::UTC)
        .expect("seeded instants are in range")
        .timestamp()
}

/// Midnight UTC of `day`, the instant of a day-type epoch.
pub(crate) fn midnight(day: Date) -> Timestamp {
    at(day, 0, 0, 0)
}

/// The UTC day of an instant.
pub(crate) fn day_of(instant: Timestamp) -> Date {
    instant.to_zoned(TimeZone::UTC).date()
}

/// `day` moved by `n` days.
pub(crate) fn plus_days(day: Date, n: i64) -> Date {
    day.checked_add(n.days())
        .expect("seeded dates are in range")
}

/// `instant` moved by `seconds`.
fn plus_seconds(instant: Timestamp, seconds: i64) -> Timestamp {
    instant
        .checked_add(seconds.seconds())
        .expect("seeded instants are in range")
}

/// A deterministic spread of `0..modulus` from a small integer (no randomness in the seed).
fn spread(n: u64, factor: u64, modulus: u64) -> i64 {
    i64::try_from((n * factor) % modulus).expect("small")
}

/// A row of [`PEOPLE`]: id, login, name, short name, company, country, country code, city.
type PersonRow = (
    u64,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// The people of the world.
#[rustfmt::skip]
const PEOPLE: [PersonRow; 30] = [
    (40001, "dwhitfield", "Dana Whitfield", "Dana W.", "Whitfield Outdoor Goods", "United States", "US", "Portland"),
    (40002, "mkhan", "Mira Khan", "Mira K.", "Khan Analytics Ltd", "United Kingdom", "GB", "Manchester"),
    (50001, "ravimenon", "Ravi Menon", "Ravi M.", "Menon Software Studio", "India", "IN", "Pune"),
    (50002, "lkovacs", "Lena Kovacs", "Lena K.", "Kovacs Design", "Germany", "DE", "Berlin"),
    (50003, "tortega", "Tomas Ortega", "Tomas O.", "Ortega Data Consulting", "Spain", "ES", "Valencia"),
    (50004, "jsato", "Jun Sato", "Jun S.", "Sato Cloud Works", "Japan", "JP", "Osaka"),
    (50005, "anovak", "Ana Novak", "Ana N.", "Novak Web", "Slovenia", "SI", "Ljubljana"),
    (50006, "bchen", "Bo Chen", "Bo C.", "Chen Mobile Labs", "Taiwan", "TW", "Taipei"),
    (50007, "cdubois", "Claire Dubois", "Claire D.", "Dubois Studio", "France", "FR", "Lyon"),
    (50008, "dmwangi", "David Mwangi", "David M.", "Mwangi Digital", "Kenya", "KE", "Nairobi"),
    (50009, "esilva", "Elena Silva", "Elena S.", "Silva Consulting", "Portugal", "PT", "Porto"),
    (50010, "fyilmaz", "Fatma Yilmaz", "Fatma Y.", "Yilmaz Software", "Turkey", "TR", "Izmir"),
    (50011, "grossi", "Giulia Rossi", "Giulia R.", "Rossi Labs", "Italy", "IT", "Turin"),
    (50012, "hnguyen", "Hoang Nguyen", "Hoang N.", "Nguyen Studio", "Vietnam", "VN", "Da Nang"),
    (50013, "ipetrov", "Ivan Petrov", "Ivan P.", "Petrov Consulting", "Bulgaria", "BG", "Sofia"),
    (50014, "jlarsen", "Jonas Larsen", "Jonas L.", "Larsen Digital", "Denmark", "DK", "Aarhus"),
    (50015, "kokafor", "Kemi Okafor", "Kemi O.", "Okafor Software", "Nigeria", "NG", "Lagos"),
    (50016, "lgarcia", "Lucia Garcia", "Lucia G.", "Garcia Labs", "Argentina", "AR", "Cordoba"),
    (50017, "mnowak", "Marek Nowak", "Marek N.", "Nowak Studio", "Poland", "PL", "Krakow"),
    (50018, "nfernando", "Nimal Fernando", "Nimal F.", "Fernando Consulting", "Sri Lanka", "LK", "Colombo"),
    (50019, "oandersson", "Olof Andersson", "Olof A.", "Andersson Digital", "Sweden", "SE", "Gothenburg"),
    (50020, "pmurphy", "Paul Murphy", "Paul M.", "Murphy Software", "Ireland", "IE", "Cork"),
    (50021, "qzhang", "Qing Zhang", "Qing Z.", "Zhang Labs", "Singapore", "SG", "Singapore"),
    (50022, "rsantos", "Rafael Santos", "Rafael S.", "Santos Studio", "Brazil", "BR", "Recife"),
    (50023, "skumar", "Sanjay Kumar", "Sanjay K.", "Kumar Consulting", "India", "IN", "Bengaluru"),
    (50024, "tmoreau", "Theo Moreau", "Theo M.", "Moreau Digital", "Belgium", "BE", "Ghent"),
    (50025, "uhassan", "Umar Hassan", "Umar H.", "Hassan Software", "Pakistan", "PK", "Lahore"),
    (50026, "vkowalski", "Vera Kowalski", "Vera K.", "Kowalski Labs", "Canada", "CA", "Winnipeg"),
    (50027, "wtanaka", "Wataru Tanaka", "Wataru T.", "Tanaka Studio", "Japan", "JP", "Fukuoka"),
    (50028, "xlopez", "Ximena Lopez", "Ximena L.", "Lopez Consulting", "Mexico", "MX", "Guadalajara"),
];

/// Job names of the bids 310004..=310027.
const MORE_JOBS: [&str; 24] = [
    "Landing page A/B testing setup",
    "Android barcode scanner app",
    "Brand refresh: logo and style guide",
    "M-Pesa payment integration",
    "Customer support chatbot",
    "Product photo retouching",
    "Warehouse dashboard in Grafana",
    "Translation of the store to Vietnamese",
    "PostgreSQL performance tuning",
    "Email newsletter templates",
    "Returns portal for customers",
    "Packaging illustration set",
    "Shipping rate calculator API",
    "Accessibility audit of the storefront",
    "Terraform setup for staging",
    "Blog content: 12 articles",
    "Recommendation engine prototype",
    "Instagram shop integration",
    "Payment reconciliation scripts",
    "Trade show booth graphics",
    "Load testing of checkout",
    "Loyalty program backend",
    "Holiday campaign video edit",
    "Spanish customer support FAQ",
];

/// Hours of the timesheets 880083..=880100 of bid 310001 (880101..=880105 are the fixtures').
const OLD_SHEET_HOURS: [&str; 18] = [
    "12.0", "15.5", "18.25", "20.0", "10.5", "16.75", "19.0", "13.25", "17.5", "11.0", "14.75",
    "18.0", "15.25", "9.5", "16.0", "19.75", "12.25", "17.0",
];

const SHEET_TASKS: [&str; 8] = [
    "Shopify product API client and pagination",
    "ERP export parser and field mapping",
    "Stock level sync job and scheduling",
    "Error reporting and alerting for sync failures",
    "Bulk update batching against API rate limits",
    "Variant and SKU matching rules",
    "Integration tests against the Shopify sandbox",
    "Logging, metrics and runbook",
];

const PLAN_COMMENTS: [&str; 5] = [
    "Next week: continue with the sync service and its tests.",
    "Next week: finish the current task and start on error handling.",
    "Next week: performance work on the batch updates.",
    "Next week: review feedback and harden the deployment.",
    "Next week: documentation and the next set of mappings.",
];

const RELEASE_COMMENTS: [&str; 4] = [
    "Approved, thank you.",
    "Thanks, looks good.",
    "Released. Nice work on the edge cases.",
    "Thanks for the detailed notes.",
];

#[derive(Default)]
struct Seeder {
    bids: Vec<Bid>,
    timesheets: Vec<Timesheet>,
    reports: Vec<StatusReport>,
    invoices: Vec<Invoice>,
    payments: Vec<Payment>,
    screen_days: Vec<ScreenDay>,
}

impl Seeder {
    fn run(mut self) -> World {
        let people: Vec<Person> = PEOPLE
            .iter()
            .map(
                |&(id, login, name, short, company, country, code, city)| Person {
                    user: User {
                        id,
                        login: login.to_owned(),
                        name: name.to_owned(),
                    },
                    display_name: short.to_owned(),
                    company: company.to_owned(),
                    country: country.to_owned(),
                    country_code: code.to_owned(),
                    city: city.to_owned(),
                },
            )
            .collect();

        self.fixture_bids();
        self.more_bids();
        self.inventory_sync_timesheets();
        self.redesign_status_reports();
        self.khan_timesheets();
        self.screens();

        // Agent hours follow the records where the world has them.
        for bid in &mut self.bids {
            let from_sheets: Decimal = self
                .timesheets
                .iter()
                .filter(|t| t.bid == bid.id)
                .map(Timesheet::total_hours)
                .sum();
            let from_reports: Decimal = self
                .reports
                .iter()
                .filter(|r| r.bid == bid.id)
                .map(StatusReport::total_hours)
                .sum();
            if !(from_sheets + from_reports).is_zero() {
                bid.agent.hours = from_sheets + from_reports;
            }
        }

        World {
            users: people.iter().map(|person| person.user.clone()).collect(),
            people,
            bids: self.bids,
            timesheets: self.timesheets,
            reports: self.reports,
            invoices: self.invoices,
            payments: self.payments,
            screen_days: self.screen_days,
        }
    }

    /// Bids 310001..=310003 of the fixtures and Mira Khan's 320001.
    fn fixture_bids(&mut self) {
        self.bids.push(Bid {
            id: 310001,
            job_id: 220001,
            job_name: "Inventory sync service for Shopify store".to_owned(),
            client: 40001,
            provider: 50001,
            hourly: true,
            sponsored: false,
            amount: dec("1500.00"),
            rate: dec("30.00"),
            hours_per_week: 20,
            duration_days: None,
            // Earlier than the fixtures' 2025-12-15: 23 weekly timesheets start in August 2025.
            submitted: at(date(2025, 8, 11), 14, 20, 0),
            milestones: vec![Milestone {
                id: 660011,
                description: "Phase 1: inventory sync service".to_owned(),
                amount: dec("1500.00"),
                target: date(2026, 2, 27),
                delivery: date(2026, 2, 27),
                revised: false,
                paid: None,
            }],
            client_city_in_provider_list: true,
            agent: AgentFacts {
                on_tracker: true,
                hours: Decimal::ZERO, // the sum of the timesheets, set by `run`
                hours_today: dec("1.25"),
                last_seen: Timestamp::from_second(1769003538).expect("valid"),
                num_comments: 3,
            },
        });
        self.bids.push(Bid {
            id: 310002,
            job_id: 220002,
            job_name: "Mobile app redesign (iOS and Android)".to_owned(),
            client: 40001,
            provider: 50002,
            hourly: false,
            sponsored: false,
            amount: dec("1500.00"),
            rate: Decimal::ZERO,
            hours_per_week: 0,
            duration_days: Some(30),
            // Earlier than the fixtures' 2025-12-29: 12 weekly reports start in November 2025.
            submitted: at(date(2025, 10, 27), 11, 5, 0),
            milestones: vec![
                Milestone {
                    id: 660021,
                    description: "Research, audit of the current app and information architecture"
                        .to_owned(),
                    amount: dec("250.00"),
                    target: date(2025, 12, 7),
                    delivery: date(2025, 12, 7),
                    revised: false,
                    paid: Some(date(2026, 1, 14)),
                },
                Milestone {
                    id: 660022,
                    description: "User flow prototypes delivered and accepted".to_owned(),
                    amount: dec("250.00"),
                    target: date(2026, 1, 11),
                    delivery: date(2026, 1, 11),
                    revised: false,
                    paid: Some(date(2026, 1, 14)),
                },
                Milestone {
                    id: 660023,
                    description: "Visual design system: colour, type and component tokens"
                        .to_owned(),
                    amount: dec("250.00"),
                    target: date(2026, 1, 23),
                    delivery: date(2026, 1, 25),
                    revised: true,
                    paid: None,
                },
                Milestone {
                    id: 660024,
                    description: "High-fidelity UI screens".to_owned(),
                    amount: dec("750.00"),
                    target: date(2026, 2, 6),
                    delivery: date(2026, 2, 6),
                    revised: false,
                    paid: None,
                },
            ],
            client_city_in_provider_list: true,
            agent: AgentFacts {
                on_tracker: false,
                hours: Decimal::ZERO, // the sum of the reports, set by `run`
                hours_today: dec("0.5"),
                last_seen: Timestamp::from_second(1768987686).expect("valid"),
                num_comments: 0,
            },
        });
        self.bids.push(Bid {
            id: 310003,
            job_id: 220003,
            job_name: "Data pipeline audit".to_owned(),
            client: 40001,
            provider: 50003,
            hourly: true,
            sponsored: true,
            amount: dec("800.00"),
            rate: dec("40.00"),
            hours_per_week: 10,
            duration_days: None,
            submitted: Timestamp::from_second(1766047500).expect("valid"),
            milestones: Vec::new(),
            client_city_in_provider_list: false,
            agent: AgentFacts {
                on_tracker: false,
                hours: dec("32"),
                hours_today: Decimal::ZERO,
                // The last snapshot of 05-JAN-26.
                last_seen: Timestamp::from_second(1767609690).expect("valid"),
                num_comments: 1,
            },
        });
        self.bids.push(Bid {
            id: 320001,
            job_id: 230001,
            job_name: "Churn prediction model for subscription data".to_owned(),
            client: 40002,
            provider: 50004,
            hourly: true,
            sponsored: false,
            amount: dec("2400.00"),
            rate: dec("45.00"),
            hours_per_week: 15,
            duration_days: None,
            submitted: at(date(2025, 12, 22), 10, 30, 0),
            milestones: vec![Milestone {
                id: 670011,
                description: "Model prototype and evaluation report".to_owned(),
                amount: dec("2400.00"),
                target: date(2026, 3, 6),
                delivery: date(2026, 3, 6),
                revised: false,
                paid: None,
            }],
            client_city_in_provider_list: true,
            agent: AgentFacts {
                on_tracker: true,
                hours: Decimal::ZERO,
                hours_today: dec("2.5"),
                last_seen: at(date(2026, 1, 21), 12, 58, 31),
                num_comments: 2,
            },
        });
    }

    /// Bids 310004..=310027 of client 40001 with providers 50005..=50028.
    fn more_bids(&mut self) {
        for (n, job_name) in (0u64..).zip(MORE_JOBS) {
            let hourly = n % 3 != 2;
            let rate = Decimal::from(20 + (n * 5) % 35);
            let hours_per_week = if hourly {
                [10, 20, 30, 40][(n % 4) as usize]
            } else {
                0
            };
            let amount = if hourly {
                rate * Decimal::from(hours_per_week * 4)
            } else {
                Decimal::from(300 + n * 150)
            };
            let on_tracker = n % 6 == 0;
            let hours_today = if on_tracker {
                dec("0.5") + Decimal::from(n % 3) * dec("0.75")
            } else if n % 4 == 1 {
                dec("1.5")
            } else {
                Decimal::ZERO
            };
            let last_seen = if on_tracker {
                plus_seconds(at(date(2026, 1, 21), 13, 0, 0), spread(n, 617, 3000))
            } else {
                plus_seconds(
                    at(date(2026, 1, 21), 9, 0, 0),
                    -(i64::try_from(n).expect("small") * 40_000 + spread(n, 7919, 3600)),
                )
            };
            self.bids.push(Bid {
                id: 310004 + n,
                job_id: 220004 + n,
                job_name: job_name.to_owned(),
                client: 40001,
                provider: 50005 + n,
                hourly,
                sponsored: n % 5 == 1,
                amount: amount.round_dp(2),
                rate: if hourly { rate } else { Decimal::ZERO },
                hours_per_week,
                duration_days: (!hourly).then_some([14, 21, 30, 45, 60][(n % 5) as usize]),
                submitted: plus_seconds(
                    at(
                        plus_days(date(2025, 12, 1), i64::try_from(n).expect("small")),
                        10,
                        0,
                        0,
                    ),
                    spread(n, 421, 7200),
                ),
                milestones: Vec::new(),
                client_city_in_provider_list: n % 4 != 3,
                agent: AgentFacts {
                    on_tracker,
                    hours: dec("5.25") + Decimal::from(n) * dec("3.25"),
                    hours_today,
                    last_seen,
                    num_comments: u32::try_from(n % 4).expect("small"),
                },
            });
        }
    }

    /// Adds an invoice with one line and one payment, released `release` by the client.
    #[allow(clippy::too_many_arguments)]
    fn invoice(
        &mut self,
        bid: (u64, u64, u64), // bid, client, provider
        invoice_id: u64,
        payment_id: u64,
        sent: Timestamp,
        release: Timestamp,
        comments: String,
        line: InvoiceLine,
        request_comment: String,
        release_comment: &str,
        external: Option<(u64, String)>,
    ) {
        let (bid, client, provider) = bid;
        let amount = line.amount();
        self.payments.push(Payment {
            id: payment_id,
            invoice: invoice_id,
            bid,
            at: release,
            amount,
            external,
        });
        self.invoices.push(Invoice {
            id: invoice_id,
            bid,
            date: sent,
            comments,
            lines: vec![line],
            activity: vec![
                Activity {
                    kind: ActivityKind::ReleaseRequestSent,
                    user: provider,
                    at: sent,
                    comments: request_comment,
                    payment: None,
                },
                Activity {
                    kind: ActivityKind::Released,
                    user: client,
                    at: release,
                    comments: release_comment.to_owned(),
                    payment: Some(payment_id),
                },
            ],
            payment_ids: vec![payment_id],
        });
    }

    /// Bid 310001: 23 weekly timesheets, weeks ending 24-AUG-25 ..= 25-JAN-26 (ids 880083 ..=
    /// 880105); the newest is the current Draft, every other one is Sent, invoiced and paid.
    fn inventory_sync_timesheets(&mut self) {
        let newest_week = date(2026, 1, 25);
        for n in 0u64..23 {
            let id = 880083 + n;
            let week = plus_days(newest_week, -7 * i64::try_from(22 - n).expect("small"));
            let monday = plus_days(week, -6);
            let draft = id == 880105;
            let work_items = match id {
                880104 => vec![
                    item(
                        770401,
                        date(2026, 1, 12),
                        Some(660011),
                        "Product and variant mapping between ERP export and Shopify API",
                        "4.5",
                    ),
                    item(
                        770402,
                        date(2026, 1, 14),
                        Some(660011),
                        "Nightly inventory reconciliation job and retry queue",
                        "5.5",
                    ),
                    item(
                        770403,
                        date(2026, 1, 16),
                        None,
                        "Code review call with client and deployment notes",
                        "2.5",
                    ),
                ],
                880105 => vec![
                    item(
                        770501,
                        date(2026, 1, 19),
                        Some(660011),
                        "Webhook receiver for stock level updates",
                        "3.75",
                    ),
                    item(
                        770502,
                        date(2026, 1, 20),
                        Some(660011),
                        "Idempotency keys and dead-letter handling for webhooks",
                        "4.0",
                    ),
                    item(
                        770503,
                        date(2026, 1, 21),
                        None,
                        "Stand-up and backlog grooming",
                        "1.25",
                    ),
                ],
                _ => {
                    let total = match id {
                        880101 => dec("16.0"),
                        880102 => dec("14.25"),
                        880103 => dec("18.5"),
                        _ => dec(OLD_SHEET_HOURS[usize::try_from(n).expect("small")]),
                    };
                    split_week(
                        760000 + (id - 880000) * 10,
                        monday,
                        Some(660011),
                        total,
                        [
                            SHEET_TASKS[(n % 8) as usize],
                            SHEET_TASKS[((n + 3) % 8) as usize],
                            "Weekly call with client",
                        ],
                    )
                }
            };
            let plan_comment = match id {
                880104 => "Next week: webhook receiver for stock updates, then idempotency and dead-letter handling.".to_owned(),
                880105 => String::new(),
                _ => PLAN_COMMENTS[(n % 5) as usize].to_owned(),
            };
            let sent = (!draft).then(|| {
                if id == 880104 {
                    Timestamp::from_second(1768810445).expect("valid")
                } else {
                    plus_seconds(at(plus_days(week, 1), 8, 0, 0), spread(n, 7919, 7200))
                }
            });
            let invoice = match id {
                880105 => None,
                880104 => Some(9003),
                _ => Some(8901 + n),
            };
            let sheet = Timesheet {
                id,
                bid: 310001,
                week,
                sent,
                plan_comment,
                authorized_hours: dec("20.00"),
                next_authorized_hours: dec("20.00"),
                seen_by_client: !draft,
                invoice,
                work_items,
            };
            if let (Some(sent), Some(invoice_id)) = (sent, invoice) {
                let (payment_id, release, release_comment) = if id == 880104 {
                    (
                        7001,
                        Timestamp::from_second(1768926760).expect("valid"),
                        "Thanks, great progress this week.",
                    )
                } else {
                    (
                        6901 + n,
                        plus_seconds(at(plus_days(week, 2), 15, 0, 0), spread(n, 104_729, 7200)),
                        RELEASE_COMMENTS[(n % 4) as usize],
                    )
                };
                // Every fifth older payment went out by wire transfer with an external reference.
                let external = (id != 880104 && n % 5 == 2)
                    .then(|| (4_400_000 + n, format!("WIRE-{}", 4_400_000 + n)));
                let hours = sheet.total_hours();
                self.invoice(
                    (310001, 40001, 50001),
                    invoice_id,
                    payment_id,
                    sent,
                    release,
                    format!("Timesheet {id}, week ending {}", dmy(week)),
                    InvoiceLine {
                        description: format!(
                            "Hourly work, week ending {}: {:.2} h at {:.2}/h",
                            dmy(week),
                            hours,
                            dec("30.00")
                        ),
                        milestone: 660011,
                        rate: dec("30"),
                        hours,
                    },
                    format!("Timesheet {id} submitted"),
                    release_comment,
                    external,
                );
            }
            self.timesheets.push(sheet);
        }
    }

    /// Bid 320001 (client 40002): three timesheets, two Sent (invoices 9101, 9102; payments
    /// 7101, 7102) and the current Draft.
    fn khan_timesheets(&mut self) {
        for (n, (id, week, hours)) in [
            (881001u64, date(2026, 1, 11), "12.0"),
            (881002, date(2026, 1, 18), "14.5"),
            (881003, date(2026, 1, 25), "6.0"),
        ]
        .into_iter()
        .enumerate()
        {
            let n = n as u64;
            let draft = id == 881003;
            let sent = (!draft)
                .then(|| plus_seconds(at(plus_days(week, 1), 7, 30, 0), spread(n, 977, 3600)));
            let invoice = (!draft).then_some(9101 + n);
            let sheet = Timesheet {
                id,
                bid: 320001,
                week,
                sent,
                plan_comment: if draft {
                    String::new()
                } else {
                    "Next week: feature engineering and a baseline model.".to_owned()
                },
                authorized_hours: dec("15.00"),
                next_authorized_hours: dec("15.00"),
                seen_by_client: !draft,
                invoice,
                work_items: split_week(
                    771000 + n * 10,
                    plus_days(week, -6),
                    Some(670011),
                    dec(hours),
                    [
                        "Data export review and cleaning",
                        "Feature engineering for churn signals",
                        "Weekly call with client",
                    ],
                ),
            };
            if let (Some(sent), Some(invoice_id)) = (sent, invoice) {
                let hours = sheet.total_hours();
                self.invoice(
                    (320001, 40002, 50004),
                    invoice_id,
                    7101 + n,
                    sent,
                    plus_seconds(at(plus_days(week, 2), 11, 0, 0), spread(n, 1337, 3600)),
                    format!("Timesheet {id}, week ending {}", dmy(week)),
                    InvoiceLine {
                        description: format!(
                            "Hourly work, week ending {}: {:.2} h at {:.2}/h",
                            dmy(week),
                            hours,
                            dec("45.00")
                        ),
                        milestone: 670011,
                        rate: dec("45"),
                        hours,
                    },
                    format!("Timesheet {id} submitted"),
                    "Approved.",
                    None,
                );
            }
            self.timesheets.push(sheet);
        }
    }

    /// Bid 310002: 12 weekly status reports, weeks ending 09-NOV-25 ..= 25-JAN-26: 990192 ..=
    /// 990202 Sent, then the current unstored draft (id 0). 990201 carries invoices 9001 and
    /// 9002 (milestones 660021 and 660022, payments 6996 and 6997).
    fn redesign_status_reports(&mut self) {
        let newest_week = date(2026, 1, 25);
        // Progress per report (milestone, percent), oldest first.
        let progress: [&[(u64, &str)]; 12] = [
            &[(660021, "20")],
            &[(660021, "45")],
            &[(660021, "70")],
            &[(660021, "90")],
            &[(660021, "100"), (660022, "10")],
            &[(660022, "30")],
            &[(660022, "50")],
            &[(660022, "65")],
            &[(660022, "85"), (660023, "10")],
            &[(660021, "100"), (660022, "100"), (660023, "25")],
            &[(660022, "100"), (660023, "50")],
            &[(660023, "80"), (660024, "0")],
        ];
        let old_hours = [
            "8.5", "11.0", "13.25", "10.0", "9.75", "12.5", "7.0", "6.5", "14.0",
        ];
        let tasks = [
            "Interviews with store staff and app review",
            "Information architecture and navigation map",
            "Wireframes for checkout and account",
            "Clickable prototype iteration",
            "Usability test notes and fixes",
        ];
        for n in 0u64..12 {
            let index = usize::try_from(n).expect("small");
            let draft = n == 11;
            let id = if draft { 0 } else { 990192 + n };
            let week = plus_days(newest_week, -7 * i64::try_from(11 - n).expect("small"));
            let monday = plus_days(week, -6);
            let main_milestone = progress[index].last().map(|&(m, _)| m);
            let work_items = match id {
                990202 => vec![
                    item(
                        770601,
                        date(2026, 1, 12),
                        Some(660023),
                        "Colour palette and type scale for light and dark themes",
                        "6.0",
                    ),
                    item(
                        770602,
                        date(2026, 1, 14),
                        Some(660023),
                        "Button, input and card component tokens",
                        "4.5",
                    ),
                    item(
                        770603,
                        date(2026, 1, 15),
                        None,
                        "Weekly sync call with client",
                        "1.5",
                    ),
                ],
                0 => vec![
                    item(
                        770701,
                        date(2026, 1, 19),
                        Some(660023),
                        "Icon set and elevation tokens",
                        "5.0",
                    ),
                    item(
                        770702,
                        date(2026, 1, 20),
                        Some(660023),
                        "Design system documentation page",
                        "3.5",
                    ),
                    item(
                        770703,
                        date(2026, 1, 21),
                        None,
                        "Asset export check with client",
                        "0.5",
                    ),
                ],
                990201 => split_week(
                    765000 + (id - 990000) * 10,
                    monday,
                    Some(660022),
                    dec("16.25"),
                    [
                        "Prototype polish after client review",
                        "Hand-off notes for the prototypes",
                        "Weekly sync call with client",
                    ],
                ),
                _ => split_week(
                    765000 + (id - 990000) * 10,
                    monday,
                    main_milestone,
                    dec(old_hours[index]),
                    [
                        tasks[index % 5],
                        tasks[(index + 2) % 5],
                        "Weekly sync call with client",
                    ],
                ),
            };
            let sent = (!draft).then(|| match id {
                990201 => Timestamp::from_second(1768208531).expect("valid"),
                990202 => Timestamp::from_second(1768815627).expect("valid"),
                _ => plus_seconds(at(plus_days(week, 1), 9, 0, 0), spread(n, 4099, 5400)),
            });
            let plan_comment = match id {
                990201 => {
                    "Start the visual design system: colour, type scale and component tokens."
                }
                990202 => "Finish component tokens, then begin the high-fidelity screens.",
                0 => "",
                _ => [
                    "Continue the research and share findings.",
                    "Refine the navigation map after feedback.",
                    "Move on to the prototypes.",
                ][index % 3],
            };
            let comments = match id {
                990202 => vec![Comment {
                    id: 41207,
                    user: 40001,
                    text: "Looks good, the token naming is much clearer now.".to_owned(),
                    at: Timestamp::from_second(1768835564).expect("valid"),
                }],
                990196 => vec![
                    Comment {
                        id: 41102,
                        user: 40001,
                        text: "Can we see the checkout flow before the account pages?".to_owned(),
                        at: at(date(2025, 12, 8), 17, 21, 4),
                    },
                    Comment {
                        id: 41103,
                        user: 50002,
                        text: "Sure, checkout comes first in the next prototype round.".to_owned(),
                        at: at(date(2025, 12, 9), 8, 2, 51),
                    },
                ],
                _ => Vec::new(),
            };
            self.reports.push(StatusReport {
                id,
                bid: 310002,
                week,
                sent,
                plan_comment: plan_comment.to_owned(),
                seen_by_client: !draft && id != 990202,
                invoice_ids: if id == 990201 {
                    vec![9001, 9002]
                } else {
                    Vec::new()
                },
                work_items,
                progress: progress[index]
                    .iter()
                    .map(|&(milestone, percent)| Progress {
                        milestone,
                        percent: dec(percent),
                    })
                    .collect(),
                comments,
            });
        }
        let sent = Timestamp::from_second(1768208531).expect("valid");
        for (n, milestone, description) in [
            (
                0u64,
                660021u64,
                "Research, audit of the current app and information architecture",
            ),
            (1, 660022, "User flow prototypes delivered and accepted"),
        ] {
            self.invoice(
                (310002, 40001, 50002),
                9001 + n,
                6996 + n,
                sent,
                plus_seconds(at(date(2026, 1, 14), 10, 15, 0), spread(n, 97, 600)),
                format!("Status report 990201, milestone {milestone}"),
                InvoiceLine {
                    description: format!("Milestone {milestone}: {description}"),
                    milestone,
                    rate: dec("250.00"),
                    hours: dec("1"),
                },
                format!("Milestone {milestone} delivered"),
                "Both milestones accepted, thank you.",
                None,
            );
        }
    }

    /// Snapshots: bid 310003 / user 50003 on 30-DEC-25 (9 hourly buckets), 02-JAN-26 (3) and
    /// 05-JAN-26 (2, the fixture's); bid 310001 / user 50001 on 21-JAN-26 (2).
    fn screens(&mut self) {
        // 30-DEC-25: 8:00 .. 17:00, 2-4 screens per hour, ids 5500001..=5500026.
        let counts = [2u64, 3, 4, 3, 2, 4, 3, 2, 3];
        let mut next_id = 5_500_001u64;
        let day = date(2025, 12, 30);
        let mut buckets = Vec::new();
        for (hour, count) in (8u8..).zip(counts) {
            let mut screens = Vec::new();
            for k in 0..count {
                let minute = i8::try_from(3 + k * (54 / count)).expect("small");
                let second = i8::try_from((next_id * 37) % 60).expect("small");
                screens.push(Screen {
                    id: next_id,
                    at: at(day, i8::try_from(hour).expect("small"), minute, second),
                    num_comments: u32::from(next_id % 7 == 3),
                });
                next_id += 1;
            }
            buckets.push(ScreenHour { hour, screens });
        }
        self.screen_days.push(ScreenDay {
            bid: 310003,
            user: 50003,
            day,
            hours: 8,
            buckets,
        });

        // 02-JAN-26: 13:00 .. 16:00, ids 5500061..=5500068.
        let day = date(2026, 1, 2);
        let mut next_id = 5_500_061u64;
        let mut buckets = Vec::new();
        for (hour, count) in [(13u8, 3u64), (14, 2), (15, 3)] {
            let mut screens = Vec::new();
            for k in 0..count {
                let minute = i8::try_from(6 + k * 17).expect("small");
                let second = i8::try_from((next_id * 23) % 60).expect("small");
                screens.push(Screen {
                    id: next_id,
                    at: at(day, i8::try_from(hour).expect("small"), minute, second),
                    num_comments: 0,
                });
                next_id += 1;
            }
            buckets.push(ScreenHour { hour, screens });
        }
        self.screen_days.push(ScreenDay {
            bid: 310003,
            user: 50003,
            day,
            hours: 3,
            buckets,
        });

        // 05-JAN-26: the fixture's day.
        let shot = |id: u64, epoch: i64, num_comments: u32| Screen {
            id,
            at: Timestamp::from_second(epoch).expect("valid"),
            num_comments,
        };
        self.screen_days.push(ScreenDay {
            bid: 310003,
            user: 50003,
            day: date(2026, 1, 5),
            hours: 2,
            buckets: vec![
                ScreenHour {
                    hour: 9,
                    screens: vec![
                        shot(5500101, 1767604032, 0),
                        shot(5500102, 1767605200, 1),
                        shot(5500103, 1767606483, 0),
                    ],
                },
                ScreenHour {
                    hour: 10,
                    screens: vec![shot(5500104, 1767607975, 0), shot(5500105, 1767609690, 0)],
                },
            ],
        });

        // 21-JAN-26, bid 310001: today's stand-up hour; the last one is the provider list's
        // timestamp of ravimenon.
        let day = date(2026, 1, 21);
        self.screen_days.push(ScreenDay {
            bid: 310001,
            user: 50001,
            day,
            hours: 1,
            buckets: vec![
                ScreenHour {
                    hour: 12,
                    screens: vec![
                        Screen {
                            id: 5600001,
                            at: at(day, 12, 37, 10),
                            num_comments: 0,
                        },
                        Screen {
                            id: 5600002,
                            at: at(day, 12, 55, 42),
                            num_comments: 0,
                        },
                    ],
                },
                ScreenHour {
                    hour: 13,
                    screens: vec![
                        Screen {
                            id: 5600003,
                            at: at(day, 13, 18, 3),
                            num_comments: 0,
                        },
                        Screen {
                            id: 5600004,
                            at: at(day, 13, 52, 18),
                            num_comments: 0,
                        },
                    ],
                },
            ],
        });
    }
}

/// A work item.
fn item(id: u64, day: Date, milestone: Option<u64>, description: &str, hours: &str) -> WorkItem {
    WorkItem {
        id,
        day,
        milestone,
        description: description.to_owned(),
        hours: dec(hours),
    }
}

/// Three work items over Monday, Wednesday and Friday of a week summing to `total`: two on the
/// milestone and one "Hourly Other" (the last task), in quarter hours.
fn split_week(
    first_id: u64,
    monday: Date,
    milestone: Option<u64>,
    total: Decimal,
    tasks: [&str; 3],
) -> Vec<WorkItem> {
    let other = if total > dec("10") {
        dec("1.0")
    } else {
        dec("0.5")
    };
    let first = ((total - other) / dec("2") * dec("4")).floor() / dec("4");
    let second = total - other - first;
    vec![
        WorkItem {
            id: first_id + 1,
            day: monday,
            milestone,
            description: tasks[0].to_owned(),
            hours: first,
        },
        WorkItem {
            id: first_id + 2,
            day: plus_days(monday, 2),
            milestone,
            description: tasks[1].to_owned(),
            hours: second,
        },
        WorkItem {
            id: first_id + 3,
            day: plus_days(monday, 4),
            milestone: None,
            description: tasks[2].to_owned(),
            hours: other,
        },
    ]
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

/// `DD-MON-YY`, e.g. `05-JAN-26`.
pub(crate) fn dmy(day: Date) -> String {
    format!(
        "{:02}-{}-{:02}",
        day.day(),
        MONTHS[usize::try_from(day.month() - 1).expect("month 1..=12")],
        day.year().rem_euclid(100)
    )
}

/// Parses `DD-MON-YY` (two-digit day, upper-case English month, year 20YY); `None` otherwise.
pub(crate) fn parse_dmy(text: &str) -> Option<Date> {
    let bytes = text.as_bytes();
    if !text.is_ascii() || bytes.len() != 9 || bytes[2] != b'-' || bytes[6] != b'-' {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<i16> {
        let part = &text[range];
        if part.bytes().all(|b| b.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let day = digits(0..2)?;
    let year = digits(7..9)?;
    let month = MONTHS.iter().position(|m| *m == &text[3..6])?;
    Date::new(
        2000 + year,
        i8::try_from(month + 1).ok()?,
        i8::try_from(day).ok()?,
    )
    .ok()
}
