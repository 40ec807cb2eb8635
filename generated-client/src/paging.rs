//! Streams over paged methods: every page, or every item across pages.
//!
//! The first page is fetched alone. When it says how many pages there are, the following pages
//! are fetched ahead, up to the client's page concurrency at a time, and yielded in order, up to
//! that count. Ahead of the stream, not of the app: the next pages are requested when the
//! stream is asked for its second page (with `items`, for the item after the first page's
//! last), together, and each one after runs while the app awaits or reads those before it. When the method gives no page count (workroom/getWorkviewDetails), pages are
//! fetched one after another until an empty page: a page with fewer items than asked for does
//! not end the stream, because the service's real cap may be lower than the documented one.
//! That costs one request at the end, the empty page. Either way the stream ends cleanly at the
//! first empty page (the reference's "page beyond the last gives zero results"), and ends after
//! the first error.
//!
//! What a stream does is bounded whatever the service sends: at most [`MAX_PAGES`] requests, at
//! most the page concurrency in flight, nothing allocated from the page count; page numbers
//! never overflow. A service that sends the same items for two pages in a row (one that ignores
//! `page`, or repeats its last page instead of an empty one) or pages beyond the bound ends the
//! stream with [`Error::Paging`] after the pages before it.
//!
//! The page count is taken from the first page that gives one; later pages' counts are not
//! read. A count of zero, or one below the first page, ends the stream after the first page.
//! The empty page that ends a stream is not yielded.
//!
//! A request's streams ([`Request::pages`](crate::Request::pages) and `items`; not the
//! generic [`pages`], which polls the futures it is given in place) run each page's call on a
//! task of its own, spawned on the current tokio runtime (which polling them needs): a page
//! fetched ahead is read to its end, within its own deadline, while the app awaits something
//! else (on a multi-thread runtime, while it works too), rather than waiting unread and timing
//! out. So the response hooks and recorders of those calls run on that task, not the app's: a
//! hook that reads a `tokio::task_local!` or a `thread_local!` sees the task's. The calls in
//! flight are aborted when the stream ends in an error or is dropped: no request is sent or
//! retried for it afterwards.
//!
//! A request's streams are the named types [`Pages`] and [`Items`]: `Unpin` (`.next()` and
//! `.try_next()` need no pinning) and `Send`, with `collect_all()` for the whole list at once.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures::stream::{BoxStream, FuturesOrdered, Stream, StreamExt, TryStreamExt};

use crate::Error;

/// The most pages one stream requests; a longer walk ends with [`Error::Paging`]. Far above any
/// documented list (25 items a page: 250,000 timesheets of one workroom); continue with a new
/// stream from `page(MAX_PAGES + first page)` if a list really is longer.
pub const MAX_PAGES: u64 = 10_000;

/// A page's call on a task of its own, so that it runs while the app is busy with the pages
/// before it: a page fetched ahead and polled only with the stream would make no progress
/// meanwhile (its body unread) and end in `Error::Timeout` at its deadline, though the service
/// answered in time. Dropped with the stream, the task is aborted: no request is retried or
/// sent for a stream nobody reads.
pub(crate) struct Fetched<T: Send + 'static> {
    task: tokio::task::JoinHandle<Result<T, Error>>,
    method: &'static str,
    page: u64,
}

impl<T: Send + 'static> Fetched<T> {
    /// Starts `call`, the call for `page` of `method`, on its own task (of the current tokio
    /// runtime, which every call of the client needs for its timers).
    pub(crate) fn start(
        method: &'static str,
        page: u64,
        call: impl Future<Output = Result<T, Error>> + Send + 'static,
    ) -> Self {
        Fetched {
            // In the span the stream is read in, as the call would be without its own task.
            task: tokio::spawn(tracing::Instrument::in_current_span(call)),
            method,
            page,
        }
    }
}

impl<T: Send + 'static> Future for Fetched<T> {
    type Output = Result<T, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(match ready!(Pin::new(&mut self.task).poll(cx)) {
            Ok(result) => result,
            // The call panicked (it does not): as if it had been polled here.
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            // Cancelled by its runtime shutting down, the stream polled from another.
            Err(_) => Err(Error::Paging {
                method: self.method,
                after_page: self.page.saturating_sub(1),
                reason: format!(
                    "the task fetching page {} was cancelled: its runtime shut down",
                    self.page
                ),
            }),
        })
    }
}

impl<T: Send + 'static> Drop for Fetched<T> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A page of a paged method's response.
pub trait Page {
    /// What the page lists.
    type Item;

    /// The number of pages, when the response gives it.
    fn total_pages(&self) -> Option<u64>;

    /// The page's items.
    fn items(&self) -> &[Self::Item];

    /// How many items this page holds.
    fn len(&self) -> usize {
        self.items().len()
    }

    /// Whether this page holds no item.
    fn is_empty(&self) -> bool {
        self.items().is_empty()
    }

    /// The page's items, owned.
    fn into_items(self) -> Vec<Self::Item>;
}

/// Which page numbers hold data, per the method's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeyondLast {
    /// Pages above totalPages are empty.
    AboveTotal,
    /// Pages equal to or above totalPages are empty: the workroom rule read literally, which
    /// the spec does not use (its page is read as the zero-based index, `AboveTotal`; see
    /// ARCHITECTURE.md's decisions), kept for a method that really has it.
    AtOrAboveTotal,
}

impl BeyondLast {
    /// The last page that holds data when there are `total_pages` (0: none).
    fn last_page(self, total_pages: u64) -> u64 {
        match self {
            BeyondLast::AboveTotal => total_pages,
            BeyondLast::AtOrAboveTotal => total_pages.saturating_sub(1),
        }
    }
}

/// How to walk one request's pages.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// The API method, for errors.
    pub method: &'static str,
    /// The page to start at.
    pub first_page: u64,
    /// The method's rule for pages past the end.
    pub beyond_last: BeyondLast,
    /// Pages fetched at once once the page count is known (0 counts as 1).
    pub concurrency: usize,
    /// The most pages to request ([`MAX_PAGES`] in generated code).
    pub max_pages: u64,
}

struct State<F, Fut: Future, T> {
    fetch: F,
    walk: Walk,
    /// The next page to request; `None` once past `u64::MAX`.
    next_page: Option<u64>,
    /// The page number of the next result to arrive (results arrive in page order).
    arriving: u64,
    requested: u64,
    /// The last page with data, once a page gave the count.
    last_page: Option<u64>,
    /// The items of the page yielded last, to notice a service that repeats a page.
    previous: Option<Vec<T>>,
    in_flight: FuturesOrdered<Fut>,
    /// Why no further page can be requested, reported once the pages in flight are yielded.
    blocked: Option<Error>,
    finished: bool,
}

/// Every page, in order, from `walk.first_page` on; `fetch(n)` fetches page `n`.
pub fn pages<P, F, Fut>(walk: Walk, fetch: F) -> impl Stream<Item = Result<P, Error>>
where
    P: Page,
    P::Item: Clone + PartialEq,
    F: Fn(u64) -> Fut,
    Fut: Future<Output = Result<P, Error>>,
{
    let state = State {
        fetch,
        walk,
        next_page: Some(walk.first_page),
        arriving: walk.first_page,
        requested: 0,
        last_page: None,
        previous: None,
        in_flight: FuturesOrdered::new(),
        blocked: None,
        finished: false,
    };
    futures::stream::unfold(state, |mut state| async move {
        if state.finished {
            return None;
        }
        state.fill();
        let Some(result) = state.in_flight.next().await else {
            // Nothing left to fetch: the end, or a page that cannot be requested.
            state.finished = true;
            return state.blocked.take().map(|error| (Err(error), state));
        };
        let page_number = state.arriving;
        state.arriving = state.arriving.saturating_add(1);
        match result {
            Err(error) => {
                state.finish();
                Some((Err(error), state))
            }
            Ok(page) if page.is_empty() => None,
            Ok(page) => {
                if state.previous.as_deref() == Some(page.items()) {
                    state.finish();
                    let previous = page_number.saturating_sub(1);
                    let reason = format!(
                        "page {page_number} holds the same items as page {previous}: the service \
                         seems to ignore the page number"
                    );
                    return Some((Err(state.error(previous, reason)), state));
                }
                // The items kept for the next comparison replace the ones before in the same
                // vector, dropped first: one copy held at a time, no new vector per page.
                let previous = state.previous.get_or_insert_with(Vec::new);
                previous.clear();
                previous.extend_from_slice(page.items());
                if state.last_page.is_none() {
                    state.last_page = page
                        .total_pages()
                        .map(|total| state.walk.beyond_last.last_page(total));
                }
                Some((Ok(page), state))
            }
        }
    })
}

impl<P, F, Fut, T> State<F, Fut, T>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = Result<P, Error>>,
{
    /// Ends the walk at an error: the pages fetched ahead are dropped at once (their tasks
    /// aborted), not when the app drops the stream, which it may keep.
    fn finish(&mut self) {
        self.finished = true;
        self.in_flight = FuturesOrdered::new();
    }

    /// Starts the next fetches: one at a time until the page count is known, then ahead.
    fn fill(&mut self) {
        let wanted = match self.last_page {
            None => 1,
            Some(_) => self.walk.concurrency.max(1),
        };
        while self.blocked.is_none() && self.in_flight.len() < wanted {
            let Some(page) = self.next_page else {
                if self.last_page.is_none() {
                    let reason = format!("page {} is the last page number there is", u64::MAX);
                    self.blocked = Some(self.error(u64::MAX, reason));
                }
                return;
            };
            if self.last_page.is_some_and(|last| page > last) {
                return;
            }
            if self.requested >= self.walk.max_pages {
                let reason = format!(
                    "the service sent {} non-empty pages without an end; a stream requests at \
                     most {} (continue from page {page} with a new stream)",
                    self.requested, self.walk.max_pages
                );
                self.blocked = Some(self.error(page.saturating_sub(1), reason));
                return;
            }
            self.in_flight.push_back((self.fetch)(page));
            self.requested += 1;
            self.next_page = page.checked_add(1);
        }
    }

    fn error(&self, after_page: u64, reason: String) -> Error {
        Error::Paging {
            method: self.walk.method,
            after_page,
            reason,
        }
    }
}

/// Every item of every page, in order; an error is passed on as it comes (the page stream
/// ends after it).
pub fn items<P, S>(pages: S) -> Items<P::Item>
where
    P: Page + Send + 'static,
    P::Item: Send + 'static,
    S: Stream<Item = Result<P, Error>> + Send + 'static,
{
    Items {
        pages: pages.map_ok(Page::into_items).boxed(),
        current: Vec::new().into_iter(),
    }
}

/// Every page of a paged request, in order, as [`Request::pages`](crate::Request::pages) walks
/// them (see the [module docs](self)). `Unpin`, so it needs no pinning;
/// [`collect_all`](Self::collect_all) gathers every page.
#[must_use = "a stream does nothing until it is polled"]
pub struct Pages<P> {
    stream: BoxStream<'static, Result<P, Error>>,
}

impl<P: Send + 'static> Pages<P> {
    /// The pages `stream` yields (a walk of [`pages`]).
    pub fn new(stream: impl Stream<Item = Result<P, Error>> + Send + 'static) -> Self {
        Pages {
            stream: stream.boxed(),
        }
    }
}

impl<P> Pages<P> {
    /// Every page, in order; the first error instead, if any.
    pub async fn collect_all(self) -> Result<Vec<P>, Error> {
        self.stream.try_collect().await
    }
}

impl<P> Stream for Pages<P> {
    type Item = Result<P, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream.poll_next_unpin(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stream.size_hint()
    }
}

impl<P> fmt::Debug for Pages<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pages").finish_non_exhaustive()
    }
}

/// Every item of every page of a paged request, in order, as
/// [`Request::items`](crate::Request::items) walks them (see the [module docs](self)).
/// `Unpin`, so it needs no pinning; [`collect_all`](Self::collect_all) gathers every item.
/// Each page's items are moved out of its own vector as they are yielded: nothing is allocated
/// per page.
///
/// ```no_run
/// use marketplace_client::TryStreamExt;
///
/// # async fn run(session: marketplace_client::Session) -> Result<(), marketplace_client::Error> {
/// // Item by item as the pages arrive (pages after the first are fetched ahead).
/// let mut timesheets = session.get_timesheets_for_bid(310001).rpp(25).items();
/// while let Some(sheet) = timesheets.try_next().await? {
///     println!("{} week ending {}: {} h", sheet.id, sheet.week, sheet.total_hours);
/// }
///
/// // Or the whole list at once: every item, or the first error.
/// let all = session.get_timesheets_for_bid(310001).items().collect_all().await?;
/// println!("{} timesheets", all.len());
///
/// // Page by page, with each page's counts.
/// let mut pages = session.get_timesheets_for_bid(310001).pages();
/// while let Some(page) = pages.try_next().await? {
///     println!("page {} of {}", page.page, page.total_pages);
/// }
/// # Ok(())
/// # }
/// ```
#[must_use = "a stream does nothing until it is polled"]
pub struct Items<T> {
    /// Each page's items.
    pages: BoxStream<'static, Result<Vec<T>, Error>>,
    /// The items of the page being yielded.
    current: std::vec::IntoIter<T>,
}

// The items are never pinned: they are moved out of a vector by value.
impl<T> Unpin for Items<T> {}

impl<T> Items<T> {
    /// Every item, in order; the first error instead, if any.
    pub async fn collect_all(self) -> Result<Vec<T>, Error> {
        self.try_collect().await
    }
}

impl<T> Stream for Items<T> {
    type Item = Result<T, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(item) = this.current.next() {
                return Poll::Ready(Some(Ok(item)));
            }
            // The page yielded is done: its buffer goes before the next page is awaited, so
            // no more than one page's items are held at once.
            this.current = Vec::new().into_iter();
            match ready!(this.pages.poll_next_unpin(cx)) {
                Some(Ok(items)) => this.current = items.into_iter(),
                Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                None => return Poll::Ready(None),
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.current.len(), None)
    }
}

impl<T> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items")
            .field("buffered", &self.current.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Debug)]
    struct TestPage {
        items: Vec<u64>,
        total: Option<u64>,
    }

    impl Page for TestPage {
        type Item = u64;
        fn total_pages(&self) -> Option<u64> {
            self.total
        }
        fn items(&self) -> &[u64] {
            &self.items
        }
        fn into_items(self) -> Vec<u64> {
            self.items
        }
    }

    type Fetched = Arc<Mutex<Vec<u64>>>;

    /// A source of `count` items served `served` per page (whatever size was asked for), with or
    /// without the page count; records which pages were fetched.
    fn source(
        count: u64,
        served: u64,
        with_total: bool,
    ) -> (
        Fetched,
        impl Fn(u64) -> futures::future::Ready<Result<TestPage, Error>>,
    ) {
        let fetched = Arc::new(Mutex::new(Vec::new()));
        let log = fetched.clone();
        let fetch = move |page: u64| {
            log.lock().unwrap().push(page);
            let start = (page - 1).saturating_mul(served);
            let items = (start..start.saturating_add(served).min(count)).collect();
            let total = with_total.then(|| count.div_ceil(served));
            futures::future::ready(Ok(TestPage { items, total }))
        };
        (fetched, fetch)
    }

    fn walk() -> Walk {
        Walk {
            method: "pay/test",
            first_page: 1,
            beyond_last: BeyondLast::AboveTotal,
            concurrency: 3,
            max_pages: MAX_PAGES,
        }
    }

    fn collect<P: Page>(s: impl Stream<Item = Result<P, Error>>) -> Vec<Result<P, Error>> {
        futures::executor::block_on(s.collect())
    }

    fn collect_items<P: Page + Send + 'static>(
        s: impl Stream<Item = Result<P, Error>> + Send + 'static,
    ) -> Vec<P::Item>
    where
        P::Item: Send,
    {
        futures::executor::block_on(items(s).map(|r| r.unwrap()).collect())
    }

    fn paging_error<P: std::fmt::Debug>(result: &Result<P, Error>) -> (u64, &str) {
        match result {
            Err(Error::Paging {
                method: "pay/test",
                after_page,
                reason,
            }) => (*after_page, reason),
            other => panic!("expected a paging error, got {other:?}"),
        }
    }

    #[test]
    fn yields_every_item_once_in_order_and_fetches_no_page_past_the_total() {
        let (fetched, fetch) = source(23, 5, true);
        assert_eq!(
            collect_items(pages(walk(), fetch)),
            (0..23).collect::<Vec<_>>()
        );
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn without_a_total_a_short_page_does_not_end_the_stream() {
        // The service serves 4 items a page, fewer than the caller asked for: its real cap.
        let (fetched, fetch) = source(10, 4, false);
        assert_eq!(
            collect_items(pages(walk(), fetch)),
            (0..10).collect::<Vec<_>>()
        );
        // Pages 1-3 hold 4, 4 and 2 items; page 4 is the empty one that ends the stream.
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3, 4]);
    }

    #[test]
    fn without_a_total_ends_at_the_first_empty_page() {
        let (fetched, fetch) = source(10, 5, false);
        assert_eq!(collect_items(pages(walk(), fetch)).len(), 10);
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3]);
    }

    #[test]
    fn an_empty_first_page_is_an_empty_stream() {
        let (fetched, fetch) = source(0, 5, true);
        assert!(collect_items(pages(walk(), fetch)).is_empty());
        assert_eq!(*fetched.lock().unwrap(), [1]);
    }

    /// Four pages of the two items `10 n` and `10 n + 1`, but page 2 fails.
    fn failing_at_page_2(page: u64) -> futures::future::Ready<Result<TestPage, Error>> {
        futures::future::ready(if page == 2 {
            Err(Error::Config {
                reason: "boom".into(),
            })
        } else {
            Ok(TestPage {
                items: vec![page * 10, page * 10 + 1],
                total: Some(4),
            })
        })
    }

    #[test]
    fn ends_after_the_first_error() {
        let results = collect(pages(walk(), failing_at_page_2));
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok());
        assert!(matches!(results[1], Err(Error::Config { .. })));
    }

    #[test]
    fn items_passes_the_first_error_on_and_ends_there() {
        let results: Vec<Result<u64, Error>> =
            futures::executor::block_on(items(pages(walk(), failing_at_page_2)).collect());
        assert_eq!(results.len(), 3, "{results:?}");
        assert_eq!(results[0].as_ref().ok(), Some(&10));
        assert_eq!(results[1].as_ref().ok(), Some(&11));
        assert!(matches!(results[2], Err(Error::Config { .. })));
    }

    #[test]
    fn the_named_streams_need_no_pinning_and_collect_all_or_the_first_error() {
        fn unpin_and_send<T: Unpin + Send + 'static>(_: &T) {}
        let (_, fetch) = source(7, 3, true);
        let mut all_items = items(pages(walk(), fetch));
        unpin_and_send(&all_items);
        // `.next()` on the stream itself, no `pin!`.
        let first = futures::executor::block_on(all_items.next());
        assert_eq!(first.map(Result::ok), Some(Some(0)));
        let rest = futures::executor::block_on(all_items.collect_all()).unwrap();
        assert_eq!(rest, (1..7).collect::<Vec<_>>());

        let (_, fetch) = source(7, 3, true);
        let mut all_pages = Pages::new(pages(walk(), fetch));
        unpin_and_send(&all_pages);
        let first = futures::executor::block_on(all_pages.next())
            .unwrap()
            .unwrap();
        assert_eq!(first.items, [0, 1, 2]);
        let rest = futures::executor::block_on(all_pages.collect_all()).unwrap();
        assert_eq!(rest.len(), 2);

        let failed = items(pages(walk(), failing_at_page_2)).collect_all();
        assert!(matches!(
            futures::executor::block_on(failed),
            Err(Error::Config { .. })
        ));
        let failed = Pages::new(pages(walk(), failing_at_page_2)).collect_all();
        assert!(matches!(
            futures::executor::block_on(failed),
            Err(Error::Config { .. })
        ));
    }

    #[test]
    fn the_workroom_rule_ends_one_page_earlier() {
        assert_eq!(BeyondLast::AtOrAboveTotal.last_page(3), 2);
        assert_eq!(BeyondLast::AboveTotal.last_page(3), 3);
        assert_eq!(BeyondLast::AtOrAboveTotal.last_page(0), 0);
        assert_eq!(BeyondLast::AboveTotal.last_page(u64::MAX), u64::MAX);
    }

    /// Page `n` holds the one item `n`; with `total`, the response says so.
    fn endless(
        total: Option<u64>,
    ) -> (
        Fetched,
        impl Fn(u64) -> futures::future::Ready<Result<TestPage, Error>>,
    ) {
        let fetched = Arc::new(Mutex::new(Vec::new()));
        let log = fetched.clone();
        let fetch = move |page: u64| {
            log.lock().unwrap().push(page);
            futures::future::ready(Ok(TestPage {
                items: vec![page],
                total,
            }))
        };
        (fetched, fetch)
    }

    #[test]
    fn the_last_page_number_ends_with_an_error_not_an_overflow() {
        for total in [None, Some(5)] {
            let (fetched, fetch) = endless(total);
            let start = Walk {
                first_page: u64::MAX - 1,
                ..walk()
            };
            let results = collect(pages(start, fetch));
            let yielded: Vec<u64> = results
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|page| page.items[0])
                .collect();
            if total.is_some() {
                // Page u64::MAX - 1 is past the stated last page (5): one page, then the end.
                assert_eq!(yielded, [u64::MAX - 1]);
                assert_eq!(results.len(), 1);
            } else {
                assert_eq!(yielded, [u64::MAX - 1, u64::MAX]);
                let (after, reason) = paging_error(&results[2]);
                assert_eq!(after, u64::MAX);
                assert!(
                    reason.contains("is the last page number there is"),
                    "{reason}"
                );
                assert_eq!(results.len(), 3);
            }
            assert_eq!(fetched.lock().unwrap().len(), yielded.len());
        }
        // A page count of u64::MAX from the page u64::MAX: that page is the last, no error.
        let (_, fetch) = endless(Some(u64::MAX));
        let start = Walk {
            first_page: u64::MAX,
            ..walk()
        };
        let results = collect(pages(start, fetch));
        assert_eq!(results.len(), 1);
        assert!(results[0].is_ok());
    }

    #[test]
    fn a_service_that_never_sends_an_empty_page_is_cut_off() {
        for total in [None, Some(u64::MAX)] {
            let (fetched, fetch) = endless(total);
            let bounded = Walk {
                max_pages: 7,
                ..walk()
            };
            let results = collect(pages(bounded, fetch));
            assert_eq!(results.len(), 8, "{total:?}");
            assert!(results[..7].iter().all(Result::is_ok));
            let (after, reason) = paging_error(&results[7]);
            assert_eq!(after, 7);
            assert!(
                reason
                    .contains("without an end; a stream requests at most 7 (continue from page 8"),
                "{reason}"
            );
            // Never more requests than the bound, even with pages fetched ahead.
            assert_eq!(*fetched.lock().unwrap(), (1..=7).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_huge_page_count_fetches_no_more_than_the_pages_with_data_plus_those_in_flight() {
        // totalPages of billions, but page 3 is empty.
        let fetched: Fetched = Arc::new(Mutex::new(Vec::new()));
        let log = fetched.clone();
        let fetch = move |page: u64| {
            log.lock().unwrap().push(page);
            let items = if page < 3 { vec![page] } else { vec![] };
            futures::future::ready(Ok(TestPage {
                items,
                total: Some(4_000_000_000),
            }))
        };
        assert_eq!(collect_items(pages(walk(), fetch)), [1, 2]);
        // Page 1 alone, then 3 at a time: pages 2-4, and page 5 once page 2 was yielded.
        assert!(fetched.lock().unwrap().len() <= 1 + 3 + 1, "{fetched:?}");
    }

    #[test]
    fn a_service_that_ignores_the_page_number_is_noticed_at_once() {
        for total in [None, Some(50)] {
            let fetched: Fetched = Arc::new(Mutex::new(Vec::new()));
            let log = fetched.clone();
            let fetch = move |page: u64| {
                log.lock().unwrap().push(page);
                futures::future::ready(Ok(TestPage {
                    items: vec![10, 11],
                    total,
                }))
            };
            let results = collect(pages(walk(), fetch));
            assert_eq!(results.len(), 2, "{total:?}");
            assert!(results[0].is_ok());
            let (after, reason) = paging_error(&results[1]);
            assert_eq!(after, 1);
            assert!(
                reason.starts_with("page 2 holds the same items as page 1"),
                "{reason}"
            );
        }
    }
}
