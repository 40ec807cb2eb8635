//! The records of the world, as exact values: people, bids and their milestones, timesheets,
//! status reports, invoices, payments and screen snapshots.

use jiff::Timestamp;
use jiff::civil::Date;
use rust_decimal::Decimal;

use super::User;

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
