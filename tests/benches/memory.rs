//! Memory: the allocations and peak heap of decoding a page, against the plain derive, and the
//! peak heap of a long item stream. Counts, not times: the same on any machine and any load.
//!
//! The counting allocator is `allocation_counter`'s global allocator (it wraps the system
//! allocator and counts per thread; `unsafe_code` is forbidden in this workspace, and a
//! `GlobalAlloc` impl cannot be written without `unsafe`). It has no `realloc` of its own, so a
//! vector that grows counts as one more allocation each time; both sides of every comparison
//! are counted alike. It is linked into this bench only, so no other bench's times pay for it.
//!
//! - Per page (the pages of `support/pages.rs`): `allocation_counter::measure` of one decode,
//!   after one decode to warm up. Allocations made, and peak bytes (the most held at once,
//!   the decoded value included, above what was held before). Target: allocations of the
//!   project <= 1.2 x the plain derive's.
//! - Stream: `session.get_timesheets_for_bid(400).rpp(25).items()` (400 pages of 25
//!   timesheets from `support/service.rs`, 20 ms latency, the default page concurrency of 4,
//!   and for comparison 1) read to its end (after one such stream to warm up) on a
//!   current-thread runtime on this
//!   thread, so every allocation of the client (requests, connections, bodies, decoding, the
//!   stream) is counted; the stub server runs on a thread of its own and is not. The peak so
//!   far is taken after 100, 1,000 and 10,000 items (see [`stream_peaks`]). Target: flat, the
//!   later peaks within 10 % of the earlier ones. Shown against the peak after 100 items and
//!   after 1,000: the first hundred items (four pages) see one round of four answers only, and
//!   whether those overlap as later rounds do is a matter of timing. With one page in flight
//!   there is no overlap, and the peak is the same at every checkpoint.

#[path = "support/pages.rs"]
mod pages;
// Only the table printer is used here.
#[allow(dead_code)]
#[path = "ratio.rs"]
mod ratio;
#[path = "support/service.rs"]
mod service;
#[path = "support/thousands.rs"]
mod thousands;

use std::time::Duration;

use allocation_counter::measure;
use futures::StreamExt;
use service::{PAGE_SIZE, Service};
use thousands::thousands;

const MAX_ALLOCATIONS_RATIO: f64 = 1.2;
const MAX_PEAK_GROWTH: f64 = 1.10;
const STREAM_PAGES: u64 = 400;
/// The client's default page concurrency (`ClientBuilder::page_concurrency`).
const DEFAULT_CONCURRENCY: usize = 4;
const CHECKPOINTS: [usize; 3] = [100, 1_000, 10_000];

fn met(ok: bool) -> &'static str {
    if ok { "yes" } else { "NO" }
}

fn decode_pages() {
    let mut lines = vec![
        [
            "page",
            "allocations: project",
            "plain derive",
            "ratio",
            "target",
            "met",
            "peak bytes: project",
            "plain derive",
            "ratio",
        ]
        .map(str::to_owned),
    ];
    for page in pages::all() {
        println!("{}", page.describe());
        let decoders = page.decoders();
        let count = |name| {
            let decoder = decoders.iter().find(|d| d.name == name).expect(name);
            decoder.run();
            measure(|| decoder.run())
        };
        let (ours, theirs) = (count("project"), count("plain_derive"));
        let allocations = ours.count_total as f64 / theirs.count_total as f64;
        lines.push([
            page.label.to_owned(),
            thousands(ours.count_total),
            thousands(theirs.count_total),
            format!("{allocations:.3}"),
            format!("<= {MAX_ALLOCATIONS_RATIO:.2}"),
            met(allocations <= MAX_ALLOCATIONS_RATIO).to_owned(),
            thousands(ours.bytes_max),
            thousands(theirs.bytes_max),
            format!("{:.3}", ours.bytes_max as f64 / theirs.bytes_max as f64),
        ]);
    }
    ratio::print_table(
        "memory of one decode (allocation_counter; a realloc counts as an allocation)",
        &lines,
    );
}

/// The running peak of one stream at each checkpoint: (items read, pages requested so far,
/// peak bytes so far, allocations so far).
///
/// The stream is read in segments, one `measure` each (nested measures do not give a peak). A
/// segment's `bytes_max` is relative to what was held when it began, which is what the
/// segments before it left held (their `bytes_current`, added up): so the peak so far is the
/// largest of (held at the start of a segment + that segment's `bytes_max`).
fn stream_peaks(service: &Service, concurrency: usize) -> Vec<(usize, usize, u64, u64)> {
    let runtime = marketplace_tests::current_thread_runtime();
    let session = service.session(Some(concurrency));
    service.take_arrivals();
    let mut expected = service::expected_ids(STREAM_PAGES);
    let mut items = Box::pin(
        session
            .get_timesheets_for_bid(STREAM_PAGES)
            .rpp(PAGE_SIZE)
            .items(),
    );
    let (mut read, mut held, mut peak, mut allocations) = (0, 0_i64, 0_u64, 0_u64);
    let mut requested = 0;
    let mut checkpoints = Vec::new();
    for checkpoint in CHECKPOINTS {
        let info = measure(|| {
            runtime.block_on(async {
                while read < checkpoint {
                    let item = items.next().await.expect("an item").expect("no error");
                    assert_eq!(Some(item.id), expected.next(), "in order");
                    read += 1;
                }
            });
        });
        peak = peak.max((held + info.bytes_max as i64) as u64);
        held += info.bytes_current;
        allocations += info.count_total;
        requested += service.take_arrivals().len();
        checkpoints.push((read, requested, peak, allocations));
    }
    checkpoints
}

fn item_stream() {
    let service = Service::start(&[STREAM_PAGES], Some(Duration::from_millis(20)));
    let mut lines = vec![
        [
            "pages in flight",
            "items read",
            "requests the stub had read",
            "peak bytes so far",
            "/ peak at 100 items",
            "/ peak at 1,000 items",
            "target",
            "met (against 100 / 1,000)",
            "allocations so far",
            "allocations per item",
        ]
        .map(str::to_owned),
    ];
    for (concurrency, shown) in [(DEFAULT_CONCURRENCY, "4 (default)"), (1, "1")] {
        // One stream to warm up (the runtime, the connection setup, the allocator's heap).
        stream_peaks(&service, concurrency);
        let checkpoints = stream_peaks(&service, concurrency);
        let peak_at = |index: usize| checkpoints[index].2 as f64;
        for &(read, requested, peak, allocations) in &checkpoints {
            let (from_100, from_1000) = (peak as f64 / peak_at(0), peak as f64 / peak_at(1));
            lines.push([
                shown.to_owned(),
                thousands(read as u64),
                format!("{requested} of {STREAM_PAGES}"),
                thousands(peak),
                format!("{from_100:.3}"),
                format!("{from_1000:.3}"),
                format!("<= {MAX_PEAK_GROWTH:.2}"),
                format!(
                    "{} / {}",
                    met(from_100 <= MAX_PEAK_GROWTH),
                    met(from_1000 <= MAX_PEAK_GROWTH)
                ),
                thousands(allocations),
                format!("{:.1}", allocations as f64 / read as f64),
            ]);
        }
    }
    ratio::print_table(
        "memory of one item stream: 400 pages x 25 timesheets, 20 ms latency \
         (allocation_counter, this thread)",
        &lines,
    );
}

fn main() {
    decode_pages();
    item_stream();
}
