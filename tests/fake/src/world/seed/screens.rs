//! Screen snapshots, by workroom, user and day.

use jiff::Timestamp;
use jiff::civil::date;

use super::Seeder;
use crate::world::dates::at;
use crate::world::records::{Screen, ScreenDay, ScreenHour};

impl Seeder {
    /// Snapshots: bid 310003 / user 50003 on 30-DEC-25 (9 hourly buckets), 02-JAN-26 (3) and
    /// 05-JAN-26 (2, the fixture's); bid 310001 / user 50001 on 21-JAN-26 (2).
    pub(super) fn screens(&mut self) {
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
