//! One reading of a workroom through the client, as an app would make it: every timesheet (paged),
//! the current one, an invoice and the providers on the tracker. `examples/record.rs` records it
//! against the fake into the committed recording `tests/app/tests/recordings/workroom.jsonl`;
//! the replay suite (`tests/replay.rs`) plays it back and compares with a live reading.

use marketplace_client::{Decimal, Error, Session};

/// What [`read_workroom`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkroomReading {
    /// Every timesheet of the workroom: ID and total hours, oldest week first.
    pub timesheets: Vec<(u64, Decimal)>,
    /// The current timesheet's ID.
    pub current: u64,
    /// The invoice's ID and amount billed.
    pub invoice: (u64, Decimal),
    /// The providers of the workroom on the tracker: login and hours.
    pub providers: Vec<(String, Decimal)>,
}

/// The page size of the timesheet list: 23 timesheets come in three pages.
pub const PAGE_SIZE: u64 = 10;

/// Reads workroom `bid_id` and invoice `invoice_id`.
///
/// # Errors
///
/// The first call that fails.
pub async fn read_workroom(
    session: &Session,
    bid_id: u64,
    invoice_id: u64,
) -> Result<WorkroomReading, Error> {
    let timesheets = session
        .get_timesheets_for_bid(bid_id)
        .rpp(PAGE_SIZE)
        .items()
        .collect_all()
        .await?
        .into_iter()
        .map(|sheet| (sheet.id, sheet.total_hours))
        .collect();
    let current = session.get_timesheet_by_bid_id(bid_id).send().await?;
    let invoice = session.get_invoice(invoice_id).send().await?.invoice;
    let providers = session
        .get_my_providers()
        .bid_id(bid_id)
        .items()
        .collect_all()
        .await?
        .into_iter()
        .map(|agent| (agent.screen_data.user_name, agent.hours))
        .collect();
    Ok(WorkroomReading {
        timesheets,
        current: current.timesheet.id,
        invoice: (invoice.id, invoice.amount_billed),
        providers,
    })
}
