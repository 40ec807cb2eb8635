//! A time ratio that holds on a loaded machine: two functions timed in alternating batches.
//!
//! criterion measures one function for seconds, then the other; on a machine shared with other
//! work the load changes between the two, and their ratio moves with it. Here each round times
//! a batch of calls of each, alternating which goes first, and the quartiles of the rounds'
//! ratios are reported: the load hardly changes within one round, so the median is steady.

use std::hint::black_box;
use std::time::Instant;

/// The quartiles (first, median, third) of project / baseline over `rounds` rounds of `batch`
/// calls of each.
pub fn ratios(rounds: usize, batch: usize, project: &dyn Fn(), baseline: &dyn Fn()) -> [f64; 3] {
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        black_box(start.elapsed().as_secs_f64())
    };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let ours = time(project);
                ours / time(baseline)
            } else {
                let theirs = time(baseline);
                time(project) / theirs
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    [rounds / 4, rounds / 2, 3 * rounds / 4].map(|at| ratios[at])
}

/// `median (first-third quartile)`.
pub fn show([low, median, high]: [f64; 3]) -> String {
    format!("{median:.3} ({low:.3}-{high:.3})")
}
