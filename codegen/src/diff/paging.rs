//! The paging model: an old app's page stream, as the old crate walks it, against the pages the
//! new server sends. The stream's rules are the runtime's (`marketplace_client::paging`, and
//! "How a paged method's stream ends" in spec/README.md): it starts at the old crate's first
//! page ([`ir::first_page`]); with a page count, it stops after the last page the count allows
//! by the old `beyond_last`, or at the first empty page; without one, at the first empty page;
//! the same items on two pages in a row are an error; a short page never ends a stream. The
//! server numbers its pages from the new spec's first page and refuses a page number below the
//! new minimum. The oracle test walks the real runtime against the same [`Server`].

use crate::ir::{self, BeyondLast, Method, Paging, Param};

/// Whether a page shorter than asked for ends a stream. The runtime's rule; the oracle test
/// checks it against `marketplace_client::paging`.
pub const SHORT_PAGE_ENDS_STREAM: bool = false;

/// A server of `items` items paged as a spec says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// How many items the list holds.
    pub items: u64,
    /// Items per page: what the app asked for, capped by the server.
    pub per_page: u64,
    /// Whether responses carry a page count, and by which rule.
    pub total_pages: Option<BeyondLast>,
    /// Whether the method pages at all (an unpaged server sends every item for every page).
    pub paged: bool,
    /// The page number of the first page of items.
    pub first_page: u64,
    /// The lowest page number the server takes; below it, it refuses the request.
    pub min_page: u64,
}

impl Server {
    /// The server of `head` when an app asks for `requested` items per page.
    pub fn of(head: &Method, items: u64, requested: u64) -> Server {
        let paging = head.paging.as_ref();
        let cap = paging
            .and_then(|p| size_param(head, p))
            .and_then(|p| p.max)
            .and_then(|max| u64::try_from(max).ok())
            .unwrap_or(u64::MAX);
        let page_param = paging.and_then(|p| page_param(head, p));
        let number = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
        Server {
            items,
            per_page: requested.min(cap).max(1),
            total_pages: paging.and_then(|p| p.total_pages.as_ref().map(|_| p.beyond_last)),
            paged: paging.is_some(),
            first_page: number(page_param.map(ir::first_page)).unwrap_or(1),
            min_page: number(page_param.and_then(|p| p.min)).unwrap_or(0),
        }
    }

    /// Pages holding data.
    pub fn data_pages(&self) -> u64 {
        self.items.div_ceil(self.per_page)
    }

    /// The items of page `page`, as item numbers; `None` when the server refuses the page
    /// number (below its minimum). A page before the first holds nothing.
    pub fn page(&self, page: u64) -> Option<Vec<u64>> {
        if !self.paged {
            return Some((0..self.items).collect());
        }
        if page < self.min_page {
            return None;
        }
        let Some(index) = page.checked_sub(self.first_page) else {
            return Some(Vec::new());
        };
        let start = index.saturating_mul(self.per_page);
        Some((start..self.items.min(start.saturating_add(self.per_page))).collect())
    }

    /// The page count the response carries, if any.
    pub fn total_pages(&self) -> Option<u64> {
        self.total_pages.map(|rule| match rule {
            BeyondLast::AboveTotal => self.data_pages(),
            BeyondLast::AtOrAboveTotal => self.data_pages() + 1,
        })
    }
}

/// The page size an old app of `base` asks for: the documented cap, else the default, else 10.
pub fn requested_page_size(base: &Method) -> u64 {
    base.paging
        .as_ref()
        .and_then(|p| size_param(base, p))
        .and_then(|p| p.max.or(p.default))
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(10)
}

fn size_param<'a>(method: &'a Method, paging: &Paging) -> Option<&'a Param> {
    method
        .params
        .iter()
        .find(|p| p.wire_name == paging.size_param)
}

fn page_param<'a>(method: &'a Method, paging: &Paging) -> Option<&'a Param> {
    method
        .params
        .iter()
        .find(|p| p.wire_name == paging.page_param)
}

/// The page an old app's stream of `base` starts at (the generated `FIRST_PAGE`).
pub fn first_page(base: &Method) -> u64 {
    base.paging
        .as_ref()
        .and_then(|p| page_param(base, p))
        .map(ir::first_page)
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(1)
}

/// The items an old app's stream of `base` yields, by the old crate's rules, or `None` when it
/// ends in an error.
pub fn walk(base: &Method, server: &Server, requested: u64) -> Option<Vec<u64>> {
    let paging = base.paging.as_ref()?;
    let reads_count = paging.total_pages.is_some();
    let first = first_page(base);
    let mut items = Vec::new();
    let mut last_page = None;
    let mut previous: Option<Vec<u64>> = None;
    for page in first..=first.saturating_add(10_000) {
        if last_page.is_some_and(|last| page > last) {
            return Some(items);
        }
        let got = server.page(page)?;
        if got.is_empty() {
            return Some(items);
        }
        if previous.as_ref() == Some(&got) {
            return None;
        }
        if page == first && reads_count {
            last_page = server.total_pages().map(|total| match paging.beyond_last {
                BeyondLast::AboveTotal => total,
                BeyondLast::AtOrAboveTotal => total.saturating_sub(1),
            });
        }
        let short = (got.len() as u64) < requested;
        items.extend(&got);
        previous = Some(got);
        if SHORT_PAGE_ENDS_STREAM && short {
            return Some(items);
        }
    }
    None
}

/// Whether an old app streaming `base` from the server of `head` gets every item exactly once,
/// for every list length up to three full pages.
pub fn old_stream_gets_every_item(base: &Method, head: &Method) -> bool {
    if base.paging.is_none() {
        return true;
    }
    let requested = requested_page_size(base);
    (0..=3 * requested.min(1000)).all(|items| {
        let server = Server::of(head, items, requested);
        walk(base, &server, requested) == Some((0..items).collect())
    })
}
