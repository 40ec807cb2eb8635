//! Streams over paged methods: every page, or every item across pages.
//!
//! The first page is fetched alone. When it says how many pages there are, the following pages
//! are fetched ahead, up to the client's page concurrency at a time, and yielded in order. When
//! the method gives no page count (workroom/getWorkviewDetails), pages are fetched one after
//! another until a short page. Either way the stream ends cleanly at the first empty page (the
//! reference's "page beyond the last gives zero results"), and ends after the first error.

use std::future::Future;

use futures::stream::{self, FuturesOrdered, Stream, StreamExt};

use crate::Error;

/// A page of a paged method's response.
pub trait Page {
    /// What the page lists.
    type Item;

    /// The number of pages, when the response gives it.
    fn total_pages(&self) -> Option<i64>;

    /// How many items this page holds.
    fn len(&self) -> usize;

    /// Whether this page holds no item.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The page's items.
    fn into_items(self) -> Vec<Self::Item>;
}

/// Which page numbers hold data, per the method's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeyondLast {
    /// Pages above totalPages are empty.
    AboveTotal,
    /// Pages equal to or above totalPages are empty (the workroom rule).
    AtOrAboveTotal,
}

impl BeyondLast {
    fn last_page(self, total_pages: i64) -> i64 {
        match self {
            BeyondLast::AboveTotal => total_pages,
            BeyondLast::AtOrAboveTotal => total_pages - 1,
        }
    }
}

/// How to walk one request's pages.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// The page to start at.
    pub first_page: i64,
    /// Items per page the service will send (the requested size, or the method's default).
    pub page_size: i64,
    /// The method's rule for pages past the end.
    pub beyond_last: BeyondLast,
    /// Pages fetched at once once the page count is known (at least 1).
    pub concurrency: usize,
}

struct State<F, Fut: Future> {
    fetch: F,
    walk: Walk,
    next_page: i64,
    last_page: Option<i64>,
    in_flight: FuturesOrdered<Fut>,
    finished: bool,
}

/// Every page, in order, from `walk.first_page` on; `fetch(n)` fetches page `n`.
pub fn pages<P, F, Fut>(walk: Walk, fetch: F) -> impl Stream<Item = Result<P, Error>>
where
    P: Page,
    F: Fn(i64) -> Fut,
    Fut: Future<Output = Result<P, Error>>,
{
    let state = State {
        fetch,
        walk,
        next_page: walk.first_page,
        last_page: None,
        in_flight: FuturesOrdered::new(),
        finished: false,
    };
    stream::unfold(state, |mut state| async move {
        if state.finished {
            return None;
        }
        state.fill();
        let result = state.in_flight.next().await?;
        match result {
            Err(error) => {
                state.finished = true;
                Some((Err(error), state))
            }
            Ok(page) if page.is_empty() => None,
            Ok(page) => {
                if state.last_page.is_none() {
                    state.last_page = page
                        .total_pages()
                        .map(|t| state.walk.beyond_last.last_page(t));
                }
                state.finished = match state.last_page {
                    Some(last) => state.in_flight.is_empty() && state.next_page > last,
                    // Without a page count, a short page is the last one.
                    None => (page.len() as i64) < state.walk.page_size,
                };
                Some((Ok(page), state))
            }
        }
    })
}

impl<P, F, Fut> State<F, Fut>
where
    F: Fn(i64) -> Fut,
    Fut: Future<Output = Result<P, Error>>,
{
    /// Starts the next fetches: one at a time until the page count is known, then ahead.
    fn fill(&mut self) {
        match self.last_page {
            None if self.in_flight.is_empty() => self.start_next(),
            None => {}
            Some(last) => {
                while self.in_flight.len() < self.walk.concurrency.max(1) && self.next_page <= last
                {
                    self.start_next();
                }
            }
        }
    }

    fn start_next(&mut self) {
        self.in_flight.push_back((self.fetch)(self.next_page));
        self.next_page += 1;
    }
}

/// Every item of every page, in order.
pub fn items<P, S>(pages: S) -> impl Stream<Item = Result<P::Item, Error>>
where
    P: Page,
    S: Stream<Item = Result<P, Error>>,
{
    pages.flat_map(|page| {
        let items: Vec<Result<P::Item, Error>> = match page {
            Ok(page) => page.into_items().into_iter().map(Ok).collect(),
            Err(error) => vec![Err(error)],
        };
        stream::iter(items)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Debug)]
    struct TestPage {
        items: Vec<i64>,
        total: Option<i64>,
    }

    impl Page for TestPage {
        type Item = i64;
        fn total_pages(&self) -> Option<i64> {
            self.total
        }
        fn len(&self) -> usize {
            self.items.len()
        }
        fn into_items(self) -> Vec<i64> {
            self.items
        }
    }

    type Fetched = Arc<Mutex<Vec<i64>>>;

    /// A source of `count` items in pages of `size`; records which pages were fetched.
    fn source(
        count: i64,
        size: i64,
        with_total: bool,
    ) -> (
        Fetched,
        impl Fn(i64) -> futures::future::Ready<Result<TestPage, Error>>,
    ) {
        let fetched = Arc::new(Mutex::new(Vec::new()));
        let log = fetched.clone();
        let fetch = move |page: i64| {
            log.lock().unwrap().push(page);
            let start = (page - 1) * size;
            let items = (start..(start + size).min(count)).collect();
            let total = with_total.then(|| (count + size - 1) / size);
            futures::future::ready(Ok(TestPage { items, total }))
        };
        (fetched, fetch)
    }

    fn walk(size: i64) -> Walk {
        Walk {
            first_page: 1,
            page_size: size,
            beyond_last: BeyondLast::AboveTotal,
            concurrency: 3,
        }
    }

    fn collect_items<P: Page>(s: impl Stream<Item = Result<P, Error>>) -> Vec<P::Item> {
        futures::executor::block_on(items(s).map(|r| r.unwrap()).collect())
    }

    #[test]
    fn yields_every_item_once_in_order_and_fetches_no_page_past_the_total() {
        let (fetched, fetch) = source(23, 5, true);
        assert_eq!(
            collect_items(pages(walk(5), fetch)),
            (0..23).collect::<Vec<_>>()
        );
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn without_a_total_stops_at_a_short_page() {
        let (fetched, fetch) = source(12, 5, false);
        assert_eq!(
            collect_items(pages(walk(5), fetch)),
            (0..12).collect::<Vec<_>>()
        );
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3]);
    }

    #[test]
    fn without_a_total_stops_at_an_empty_page() {
        let (fetched, fetch) = source(10, 5, false);
        assert_eq!(collect_items(pages(walk(5), fetch)).len(), 10);
        assert_eq!(*fetched.lock().unwrap(), [1, 2, 3]);
    }

    #[test]
    fn an_empty_first_page_is_an_empty_stream() {
        let (_, fetch) = source(0, 5, true);
        assert!(collect_items(pages(walk(5), fetch)).is_empty());
    }

    #[test]
    fn ends_after_the_first_error() {
        let fetch = |page: i64| {
            futures::future::ready(if page == 2 {
                Err(Error::Config {
                    reason: "boom".into(),
                })
            } else {
                Ok(TestPage {
                    items: vec![page],
                    total: Some(4),
                })
            })
        };
        let results: Vec<_> = futures::executor::block_on(pages(walk(1), fetch).collect());
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok());
        assert!(results[1].is_err());
    }

    #[test]
    fn the_workroom_rule_ends_one_page_earlier() {
        assert_eq!(BeyondLast::AtOrAboveTotal.last_page(3), 2);
        assert_eq!(BeyondLast::AboveTotal.last_page(3), 3);
    }
}
