//! Hourly work: the weekly timesheets of bids 310001 and 320001, each sent one invoiced and paid.

use jiff::Timestamp;
use jiff::civil::date;

use super::{Seeder, dec, item, split_week, spread};
use crate::world::dates::{at, dmy, plus_days, plus_seconds};
use crate::world::records::{InvoiceLine, Timesheet};

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

impl Seeder {
    /// Bid 310001: 23 weekly timesheets, weeks ending 24-AUG-25 ..= 25-JAN-26 (ids 880083 ..=
    /// 880105); the newest is the current Draft, every other one is Sent, invoiced and paid.
    pub(super) fn inventory_sync_timesheets(&mut self) {
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
    pub(super) fn khan_timesheets(&mut self) {
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
}
