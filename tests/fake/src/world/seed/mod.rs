//! Builds the seeded [`World`], one concept per module: `people`, `bids`, `hourly` (timesheets),
//! `fixed_price` (status reports), `billing` (invoices and payments) and `screens`.

mod bids;
mod billing;
mod fixed_price;
mod hourly;
mod people;
mod screens;

use jiff::civil::Date;
use rust_decimal::Decimal;

use super::World;
use super::dates::plus_days;
use super::records::{Bid, Invoice, Payment, ScreenDay, StatusReport, Timesheet, WorkItem};

/// The records seeded so far; [`Seeder::run`] seeds them in order and builds the [`World`].
#[derive(Default)]
pub(super) struct Seeder {
    bids: Vec<Bid>,
    timesheets: Vec<Timesheet>,
    reports: Vec<StatusReport>,
    invoices: Vec<Invoice>,
    payments: Vec<Payment>,
    screen_days: Vec<ScreenDay>,
}

impl Seeder {
    pub(super) fn run(mut self) -> World {
        let people = people::people();

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
}

/// Decimal from text; the seed's literals are all valid.
fn dec(text: &str) -> Decimal {
    text.parse().expect("a valid decimal literal")
}

/// A deterministic spread of `0..modulus` from a small integer (no randomness in the seed).
fn spread(n: u64, factor: u64, modulus: u64) -> i64 {
    i64::try_from((n * factor) % modulus).expect("small")
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
