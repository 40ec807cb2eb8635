//! The paging simulation: an old app's page stream, as the old crate walks it, against the pages
//! the new server sends. The stream's rules are the runtime's (`marketplace_client::paging`, and
//! "How a paged method's stream ends" in spec/README.md): it starts at the old crate's first
//! page ([`ir::first_page`]); with a page count, it stops after the last page the count allows
//! by the old `beyond_last`, or at the first empty page; without one, at the first empty page;
//! the same items on two pages in a row are an error; a short page never ends a stream. The
//! server numbers its pages from the new spec's first page, refuses a page number below the
//! new minimum, answers a page size above its cap with the cap, and sends every item at once
//! when the new spec does not page the method.
//!
//! What the old crate reads from each page is the old response's items field and page count,
//! each the new field it is paired with ([`super::pairing::meant`]): the new server's items and
//! count when those are the fields the new spec pages by, else a value that is not (a list of
//! something else, a count of 1), else nothing. An old app of a method that did not page reads
//! the one answer its request gets. The oracle test walks the real runtime against the same
//! [`Server`] and [`Reader`].

use super::pairing;
use super::witness::Witness;
use crate::ir::{self, BeyondLast, Find, Method, Paging, Param};

/// Whether a page shorter than asked for ends a stream. The runtime's rule; the oracle test
/// checks it against `marketplace_client::paging`.
pub const SHORT_PAGE_ENDS_STREAM: bool = false;

/// The item an old stream reads where the new server sends something other than the page's
/// items.
pub const UNRELATED_ITEM: u64 = u64::MAX;

/// The page count an old stream reads from a field that the new server does not fill with the
/// page count (a count of something else).
pub const UNRELATED_COUNT: u64 = 1;

/// A server of `items` items paged as a spec says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// How many items the list holds.
    pub items: u64,
    /// Items per page: what the app asked for (or the server's default), capped by the server.
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
    /// The server of `head` when an app asks for `requested` items per page (`None`: it does
    /// not say, and the server's default applies).
    pub fn of(head: &Method, items: u64, requested: Option<u64>) -> Server {
        let paging = head.paging.as_ref();
        let size = paging.and_then(|p| size_param(head, p));
        let number = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
        let cap = number(size.and_then(|p| p.max)).unwrap_or(u64::MAX);
        let asked = requested
            .or_else(|| number(size.and_then(|p| p.default)))
            .unwrap_or_else(|| cap.min(DEFAULT_PAGE_SIZE));
        let page_param = paging.and_then(|p| page_param(head, p));
        Server {
            items,
            per_page: asked.min(cap).max(1),
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

/// The page size a server assumes when neither the app nor the spec says.
pub const DEFAULT_PAGE_SIZE: u64 = 10;

/// What the old crate reads from the field the new server sends something in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// What the new server means there (the page's items, the page count).
    Meant,
    /// Something else the new server sends there.
    Unrelated,
    /// Nothing: the new server sends nothing there.
    Nothing,
}

/// What an old app's stream reads from each page of the new server, and what the new server
/// reads from its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reader {
    /// Where its items come from.
    pub items: Source,
    /// Where its page count comes from (`None`: the old crate reads none).
    pub count: Option<Source>,
    /// Whether the new server reads the page number the old app sends (under the name the
    /// new spec pages by); else it serves its first page to every request.
    pub pages: bool,
    /// Whether the new server reads the page size the old app sends; else its default.
    pub sizes: bool,
}

impl Reader {
    /// What the old crate of `base` reads from the pages of `head`'s server: the old items
    /// field and page count field read the keys their old decoders read (their wire names and
    /// aliases, but a key an earlier field of the old record reads first); what the new server
    /// sends under one of them is the items (or the count) where it is the new spec's items
    /// (or count) field, something else where it is another field.
    pub fn of(base_api: &dyn Find, base: &Method, head_api: &dyn Find, head: &Method) -> Reader {
        let new_paging = head.paging.as_ref();
        let Some(old_paging) = base.paging.as_ref() else {
            return Reader {
                items: Source::Meant,
                count: None,
                pages: true,
                sizes: true,
            };
        };
        let reads = |wire: &str, param: Option<&str>| param == Some(wire);
        let pages = reads(
            old_paging.page_param.as_str(),
            new_paging.map(|p| p.page_param.as_str()),
        );
        let sizes = reads(
            old_paging.size_param.as_str(),
            new_paging.map(|p| p.size_param.as_str()),
        );
        let (Some(old), Some(new)) = (
            base_api.record_named(base.response.as_str()),
            head_api.record_named(head.response.as_str()),
        ) else {
            return Reader {
                items: Source::Nothing,
                count: None,
                pages,
                sizes,
            };
        };
        // The keys each old field reads: its names, less those an earlier field reads.
        let mut claimed: Vec<&str> = Vec::new();
        let mut keys_of = std::collections::HashMap::new();
        for field in &old.fields {
            let own: Vec<&str> = std::iter::once(field.wire_name.as_str())
                .chain(field.documented_as.as_deref())
                .filter(|k| !claimed.contains(k))
                .collect();
            claimed.extend(&own);
            keys_of.insert(field.wire_name.as_str(), own);
        }
        let sent: Vec<&str> = new.fields.iter().map(|f| f.wire_name.as_str()).collect();
        let source = |old_wire: &str, meant_wire: Option<&str>| {
            let keys = keys_of.get(old_wire).cloned().unwrap_or_default();
            if meant_wire.is_some_and(|w| keys.contains(&w)) {
                Source::Meant
            } else if keys.iter().any(|k| sent.contains(k)) {
                Source::Unrelated
            } else {
                Source::Nothing
            }
        };
        let items_wire = match new_paging {
            Some(p) => Some(p.items.as_str().to_owned()),
            // An unpaged answer holds the whole list in the field of the same meaning.
            None => old
                .fields
                .iter()
                .zip(pairing::meant(old, new))
                .find(|(f, _)| f.wire_name == old_paging.items.as_str())
                .and_then(|(_, n)| n.map(|n| n.wire_name.clone())),
        };
        let items = source(old_paging.items.as_str(), items_wire.as_deref());
        let count = old_paging.total_pages.as_ref().map(|field| {
            source(
                field.as_str(),
                new_paging.and_then(|p| p.total_pages.as_ref().map(|t| t.as_str())),
            )
        });
        Reader {
            items,
            count,
            pages,
            sizes,
        }
    }
}

/// The page size an old app of `base` asks for: the documented cap, else the default, else
/// [`DEFAULT_PAGE_SIZE`].
pub fn requested_page_size(base: &Method) -> u64 {
    base.paging
        .as_ref()
        .and_then(|p| size_param(base, p))
        .and_then(|p| p.max.or(p.default))
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(DEFAULT_PAGE_SIZE)
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

/// One page an old stream asked for, and what it read from it (`None`: the server refused it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The page number.
    pub page: u64,
    /// The items read ([`UNRELATED_ITEM`] for something else), or `None` for a refusal.
    pub items: Option<Vec<u64>>,
}

/// The items an old app's stream of `base` yields by the old crate's rules reading `server`'s
/// pages through `reader`, or `None` when it ends in an error; with the pages it asked for.
pub fn walk(base: &Method, server: &Server, reader: Reader) -> (Option<Vec<u64>>, Vec<Step>) {
    let mut steps = Vec::new();
    let Some(paging) = base.paging.as_ref() else {
        // No stream: the app sends the request once, without a page number.
        let page = if server.paged { server.first_page } else { 0 };
        let got = server.page(page).map(|items| read_items(items, reader));
        steps.push(Step {
            page,
            items: got.clone(),
        });
        return (got, steps);
    };
    let reads_count = paging.total_pages.is_some();
    let first = first_page(base);
    let mut items = Vec::new();
    let mut last_page = None;
    let mut previous: Option<Vec<u64>> = None;
    for page in first..=first.saturating_add(10_000) {
        if last_page.is_some_and(|last| page > last) {
            return (Some(items), steps);
        }
        // A page number the new server does not read gets its first page.
        let served = if reader.pages {
            page
        } else {
            server.first_page
        };
        let got = server.page(served).map(|items| read_items(items, reader));
        steps.push(Step {
            page,
            items: got.clone(),
        });
        let Some(got) = got else {
            return (None, steps);
        };
        if got.is_empty() {
            return (Some(items), steps);
        }
        if previous.as_ref() == Some(&got) {
            return (None, steps);
        }
        if last_page.is_none() && reads_count {
            let count = match reader.count {
                Some(Source::Meant) => server.total_pages(),
                Some(Source::Unrelated) => Some(UNRELATED_COUNT),
                Some(Source::Nothing) | None => None,
            };
            last_page = count.map(|total| match paging.beyond_last {
                BeyondLast::AboveTotal => total,
                BeyondLast::AtOrAboveTotal => total.saturating_sub(1),
            });
        }
        let short = (got.len() as u64) < server.per_page;
        items.extend(&got);
        previous = Some(got);
        if SHORT_PAGE_ENDS_STREAM && short {
            return (Some(items), steps);
        }
    }
    (None, steps)
}

fn read_items(items: Vec<u64>, reader: Reader) -> Vec<u64> {
    match reader.items {
        Source::Meant => items,
        Source::Unrelated => vec![UNRELATED_ITEM],
        Source::Nothing => Vec::new(),
    }
}

/// The walks the simulation runs for a method: every list length up to three full pages, the
/// app asking for the old crate's page size and leaving it to the server. Each as
/// `(items, requested)`.
pub fn walks(base: &Method) -> Vec<(u64, Option<u64>)> {
    let requested = requested_page_size(base);
    // An app of a method that does not page sets no page size.
    let asked: &[Option<u64>] = if base.paging.is_some() {
        &[Some(requested), None]
    } else {
        &[None]
    };
    let mut walks = Vec::new();
    for &asked in asked {
        // The empty list last: a witness over some items reads best.
        for items in (1..=3 * requested.min(1000)).chain([0]) {
            walks.push((items, asked));
        }
    }
    walks
}

/// The first walk in which an old app streaming `base` (reading `base_api`'s types) from the
/// server of `head` does not get every item exactly once, as its witness.
pub fn stream_witness(
    base_api: &dyn Find,
    base: &Method,
    head_api: &dyn Find,
    head: &Method,
) -> Option<Witness> {
    if base.paging.is_none() && head.paging.is_none() {
        return None;
    }
    let reader = Reader::of(base_api, base, head_api, head);
    walks(base).into_iter().find_map(|(items, asked)| {
        let server = Server::of(head, items, asked.filter(|_| reader.sizes));
        let (got, steps) = walk(base, &server, reader);
        let all: Vec<u64> = (0..items).collect();
        (got.as_ref() != Some(&all)).then(|| witness(base, head, &server, asked, got, &steps))
    })
}

fn witness(
    base: &Method,
    head: &Method,
    server: &Server,
    asked: Option<u64>,
    got: Option<Vec<u64>>,
    steps: &[Step],
) -> Witness {
    let pages: Vec<String> = steps
        .iter()
        .map(|step| match &step.items {
            Some(items) if items.contains(&UNRELATED_ITEM) => {
                format!("page {} (something other than items)", step.page)
            }
            Some(items) => format!("page {} ({})", step.page, runs(items)),
            None => format!("page {} (refused)", step.page),
        })
        .collect();
    let size = match asked {
        Some(n) => format!("asking {n} a page"),
        None => "leaving the page size to the server".to_owned(),
    };
    let served = if server.paged {
        format!(
            "the new server's pages of {} from page {}",
            server.per_page, server.first_page
        )
    } else {
        "the new server sends every item at once".to_owned()
    };
    let how = if base.paging.is_some() {
        "an old app's stream"
    } else {
        "an old app's one request"
    };
    let walk = format!(
        "{how} of {} over {} item{} ({size}; {served}) reads {}",
        head.name,
        server.items,
        if server.items == 1 { "" } else { "s" },
        pages.join(", ")
    );
    let finding = match got {
        None => "it ends in an error".to_owned(),
        Some(got) if got.contains(&UNRELATED_ITEM) => {
            "it yields something other than the list's items".to_owned()
        }
        Some(got) => {
            let missed: Vec<u64> = (0..server.items).filter(|i| !got.contains(i)).collect();
            if missed.is_empty() {
                format!("it yields {} instead of every item once", runs(&got))
            } else {
                format!("it misses {}", runs(&missed))
            }
        }
    };
    Witness::Paging {
        method: head.name.clone(),
        walk,
        finding,
    }
}

/// Item numbers (from 0) as a reader counts them (from 1), in runs: `items 1–10, 12`.
fn runs(items: &[u64]) -> String {
    if items.is_empty() {
        return "nothing".to_owned();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut start = items[0];
    let mut end = items[0];
    for &item in &items[1..] {
        if item == end + 1 {
            end = item;
            continue;
        }
        parts.push(run(start, end));
        (start, end) = (item, item);
    }
    parts.push(run(start, end));
    let noun = if items.len() == 1 { "item" } else { "items" };
    format!("{noun} {}", parts.join(", "))
}

fn run(start: u64, end: u64) -> String {
    if start == end {
        (start + 1).to_string()
    } else {
        format!("{}–{}", start + 1, end + 1)
    }
}
