//! A data call ready to send: [`Request`], generic over the method it calls.
//!
//! Each data method of the spec is a generated type holding its parameters that implements
//! [`DataMethod`] (what the call is: its name, path, response type and checked query), and,
//! when it pages, [`PagedMethod`]. `Session`'s generated constructors return a
//! `Request<ThatType>`; its setters set the parameters, and everything else (the call options,
//! [`send`](Request::send), and for paged methods [`pages`](Request::pages) and
//! [`items`](Request::items)) is here, once for every method.

use std::fmt;

use futures::Stream;
use serde::de::DeserializeOwned;

use crate::client::Session;
use crate::error::Error;
use crate::options::CallOptions;
use crate::paging::{self, BeyondLast, Items, Page, Pages};
use crate::response::{DataOnly, Metadata, Response, WithMetadata};

pub use crate::query::Query;

/// What one data method sends and receives; implemented by the generated type of each method,
/// which holds its parameters.
pub trait DataMethod: Clone + fmt::Debug + Send + Sync + 'static {
    /// The record the envelope's `data` holds.
    type Response: DeserializeOwned + Send + 'static;
    /// The method as the reference names it, e.g. `pay/getTimesheet`.
    const NAME: &'static str;
    /// Its path below the base URL, e.g. `/api/pay/getTimesheet`.
    const PATH: &'static str;
    /// The query to send, every argument checked first against the spec's rules (bounds, IDs,
    /// dates); an argument the service would refuse is an [`Error::InvalidArgument`].
    fn query(&self) -> Result<Query, Error>;
}

/// A data method that pages: which parameter picks the page, and how its pages end.
pub trait PagedMethod: DataMethod<Response: Page> {
    /// The page a stream starts at when the request sets none (the parameter's default).
    const FIRST_PAGE: u64;
    /// The method's rule for the pages past the last.
    const BEYOND_LAST: BeyondLast;
    /// The page the request asks for, if it sets one.
    fn page(&self) -> Option<u64>;
    /// Asks for page `page`.
    fn set_page(&mut self, page: u64);
}

/// A call of the data method `M` for a session: its parameters (set them with the setters
/// generated for `Request<M>`) and its [`CallOptions`].
#[derive(Clone, Debug)]
#[must_use = "a request does nothing until it is sent"]
pub struct Request<M> {
    session: Session,
    /// The method's parameters; the generated setters write them.
    pub(crate) method: M,
    options: CallOptions,
}

impl<M: DataMethod> Request<M> {
    /// A request of `method` by `session`, with the client's call options. Used by the
    /// generated constructors on `Session`.
    pub(crate) fn new(session: &Session, method: M) -> Self {
        Request {
            session: session.clone(),
            method,
            options: CallOptions::default(),
        }
    }

    /// Overrides the client's timeout, deadline or retry policy, or adds headers, for this call
    /// and, when streamed, for each page's call (see [`CallOptions`]), e.g.
    /// `.customize(|options| options.deadline(Duration::from_secs(5)))`.
    pub fn customize(mut self, customize: impl FnOnce(CallOptions) -> CallOptions) -> Self {
        self.options = customize(self.options);
        self
    }

    /// Sends the request. Arguments are checked first: an invalid one fails without a
    /// request.
    pub async fn send(self) -> Result<M::Response, Error> {
        Ok(call::<M, DataOnly>(self).await?.0)
    }

    /// Sends the request like [`send`](Self::send), and returns the data with what the
    /// response said besides: status, headers, the service's clock, the envelope's `api` and
    /// `apiVersion`, attempts (see [`ResponseMeta`](crate::ResponseMeta)).
    pub async fn send_with_metadata(self) -> Result<Response<M::Response>, Error> {
        let (data, meta) = call::<M, WithMetadata>(self).await?;
        Ok(Response { data, meta })
    }
}

/// Sends `request`, keeping what `K` keeps of the answer besides its data. A function rather
/// than a method: generated setters share `Request`'s namespace, and each method name is
/// reserved.
async fn call<M: DataMethod, K: Metadata>(
    request: Request<M>,
) -> Result<(M::Response, K::Kept), Error> {
    // The session is given what the method says rather than the method, so that the
    // session's module need not know `DataMethod`.
    let query = request.method.query();
    let call = (request.session).call::<M::Response, K>(M::NAME, M::PATH, query, &request.options);
    call.await
}

impl<M> Request<M>
where
    M: PagedMethod,
    <M::Response as Page>::Item: Clone + PartialEq + Send + 'static,
{
    /// Every page from the request's page (the method's first page unless
    /// [`page`](PagedMethod::set_page) was set) on, in order. When the first page gives the
    /// page count, the following pages are fetched ahead (see
    /// `ClientBuilder::page_concurrency`), up to that count, from when the stream is asked for
    /// its second page; without one, pages are fetched one by one. The stream ends there, at the first empty page (a page with fewer items than
    /// asked for does not end it: the service's real cap may be lower than the documented
    /// one), or at the first error.
    ///
    /// At most [`paging::MAX_PAGES`] pages are requested. A service that sends the same items
    /// for two pages in a row, or pages beyond that bound, ends the stream with
    /// [`Error::Paging`] after the pages before.
    ///
    /// The stream is `Unpin`; [`Pages::collect_all`] gathers every page. See [`Items`] for an
    /// example.
    pub fn pages(self) -> Pages<M::Response> {
        Pages::new(self.walk())
    }

    /// Every item of every page, in order (see [`pages`](Self::pages)). The stream is
    /// `Unpin`; [`Items::collect_all`] gathers every item.
    pub fn items(self) -> Items<<M::Response as Page>::Item> {
        paging::items(self.walk())
    }

    /// The pages, as [`paging::pages`] walks them for this request.
    fn walk(self) -> impl Stream<Item = Result<M::Response, Error>> + Send + 'static {
        let walk = paging::Walk {
            method: M::NAME,
            first_page: self.method.page().unwrap_or(M::FIRST_PAGE),
            beyond_last: M::BEYOND_LAST,
            concurrency: self.session.page_concurrency(),
            max_pages: paging::MAX_PAGES,
        };
        paging::pages(walk, move |page| {
            let mut request = self.clone();
            request.method.set_page(page);
            // On a task of its own: a page fetched ahead runs while the app reads the pages
            // before it (`paging::Fetched`).
            paging::Fetched::start(M::NAME, page, request.send())
        })
    }
}
