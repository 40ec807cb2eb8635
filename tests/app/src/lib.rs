//! Lists a workroom's timesheets and totals their hours and amounts.

use marketplace_client::{Decimal, Error, ErrorCode, Session, Timesheet, TryStreamExt};

/// Hours and money of a workroom's timesheets.
#[derive(Debug, PartialEq, Eq)]
pub struct Totals {
    /// How many timesheets.
    pub timesheets: usize,
    /// Their hours.
    pub hours: Decimal,
    /// Hours times rate.
    pub amount: Decimal,
}

/// Totals of the given timesheets.
pub fn totals(sheets: &[Timesheet]) -> Totals {
    Totals {
        timesheets: sheets.len(),
        hours: sheets.iter().map(|sheet| sheet.total_hours).sum(),
        amount: sheets
            .iter()
            .map(|sheet| sheet.total_hours * sheet.rate)
            .sum(),
    }
}

/// Every timesheet of the workroom, or `None` when the user may not see it.
pub async fn workroom_timesheets(
    session: &Session,
    bid: u64,
) -> Result<Option<Vec<Timesheet>>, Error> {
    let sheets = session
        .get_timesheets_for_bid(bid)
        .rpp(10)
        .items()
        .try_collect()
        .await;
    match sheets {
        Ok(sheets) => Ok(Some(sheets)),
        Err(error) if ErrorCode::of(&error) == Some(ErrorCode::ValidationInvalidId) => Ok(None),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use marketplace_client::jiff::civil::date;
    use marketplace_client::{ProjectStatus, ReportStatus, UserType};

    use super::*;

    fn sheet(hours: Decimal, rate: i32) -> Timesheet {
        Timesheet::builder()
            .id(1)
            .week(date(2026, 1, 18))
            .bid_id(310001)
            .client("client")
            .provider("provider")
            .client_user_id(1)
            .provider_user_id(2)
            .status(ReportStatus::Sent)
            .project_status(ProjectStatus::Ok)
            .project_status_changed_by(UserType::Provider)
            .start_date(date(2026, 1, 12))
            .end_date(date(2026, 1, 18))
            .next_end_date(date(2026, 1, 25))
            .total_hours(hours)
            .authorized_hours(40)
            .billed_hours(hours)
            .auto_pay_hours(hours)
            .next_authorized_hours(40)
            .rate(rate)
            .overdue(false)
            .seen_by_client(true)
            .build()
            .unwrap()
    }

    #[test]
    fn totals_add_hours_and_amounts() {
        let sheets = [
            sheet(Decimal::new(125, 1), 30),
            sheet(Decimal::new(75, 1), 40),
        ];
        assert_eq!(
            totals(&sheets),
            Totals {
                timesheets: 2,
                hours: Decimal::new(20, 0),
                amount: Decimal::new(675, 0)
            }
        );
    }
}
