//! The bids (workrooms): the fixtures' and Mira Khan's, then one per further provider.

use jiff::Timestamp;
use jiff::civil::date;
use rust_decimal::Decimal;

use super::{Seeder, dec, spread};
use crate::world::dates::{at, plus_days, plus_seconds};
use crate::world::records::{AgentFacts, Bid, Milestone};

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

impl Seeder {
    /// Bids 310001..=310003 of the fixtures and Mira Khan's 320001.
    pub(super) fn fixture_bids(&mut self) {
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
    pub(super) fn more_bids(&mut self) {
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
}
