//! Fixed-price work: the weekly status reports of bid 310002, with progress per milestone and
//! the invoices of its delivered milestones.

use jiff::Timestamp;
use jiff::civil::date;

use super::{Seeder, dec, item, split_week, spread};
use crate::world::dates::{at, plus_days, plus_seconds};
use crate::world::records::{Comment, InvoiceLine, Progress, StatusReport};

impl Seeder {
    /// Bid 310002: 12 weekly status reports, weeks ending 09-NOV-25 ..= 25-JAN-26: 990192 ..=
    /// 990202 Sent, then the current unstored draft (id 0). 990201 carries invoices 9001 and
    /// 9002 (milestones 660021 and 660022, payments 6996 and 6997).
    pub(super) fn redesign_status_reports(&mut self) {
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
}
