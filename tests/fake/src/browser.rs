//! [`FakeMarketplace::authorize`]: the user's browser at the authorization step.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use url::Url;

use crate::error::FakeError;
use crate::server::{Authorization, FakeMarketplace};

impl FakeMarketplace {
    /// Plays the user's browser at the authorization step: GETs the authorization URL (the
    /// login page), then POSTs its login form with `login`, the demo password, and Approve or
    /// Deny. Returns where the service sent the browser: the callback redirect, the page with
    /// the verifier, or the access-denied page.
    ///
    /// The browser goes only to this fake: an authorization URL or a login form at another
    /// origin (scheme, host and port) is refused before anything is sent, so the demo login
    /// and password reach no other server. Each of its two requests ends within
    /// [`BROWSER_TIMEOUT`] (30 s), a page the fake was told to delay included.
    ///
    /// # Errors
    ///
    /// [`FakeError::InvalidUrl`] for a URL that does not parse, [`FakeError::ForeignUrl`] for
    /// one at another origin than the fake's, [`FakeError::Browser`] when a request fails or
    /// takes longer than [`BROWSER_TIMEOUT`], [`FakeError::UnexpectedPage`] for any other
    /// answer: a login page that is not served (unknown token), a refused login, a page
    /// without a known outcome.
    pub async fn authorize(
        &self,
        authorization_url: &str,
        login: &str,
        approve: bool,
    ) -> Result<Authorization, FakeError> {
        let page_url = Url::parse(authorization_url).map_err(|source| FakeError::InvalidUrl {
            // A text that does not parse may hold a password anywhere: none of it is shown.
            url: format!("[not shown: {} bytes]", authorization_url.len()),
            source,
        })?;
        self.check_own(&page_url)?;
        let response = self
            .browser()
            .get(page_url.clone())
            .timeout(BROWSER_TIMEOUT)
            .send()
            .await
            .map_err(browser_failed)?;
        let status = response.status();
        let page = response.text().await.map_err(browser_failed)?;
        let unexpected = |what: &str, page: &str| FakeError::UnexpectedPage {
            what: what.to_owned(),
            status: status.as_u16(),
            page: page.to_owned(),
        };
        if status != StatusCode::OK {
            return Err(unexpected("the login page is not served", &page));
        }
        let token = attribute_after(&page, "name=\"oauth_token\"", "value")
            .ok_or_else(|| unexpected("the login page has no oauth_token field", &page))?;
        let action = attribute_after(&page, "<form", "action")
            .and_then(|action| page_url.join(&action).ok())
            .ok_or_else(|| unexpected("the login page has no form to post", &page))?;
        self.check_own(&action)?;

        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("oauth_token", &token)
            .append_pair("login", login)
            .append_pair("password", &self.credentials().password)
            .append_pair("action", if approve { "approve" } else { "deny" })
            .finish();
        let response = self
            .browser()
            .post(action)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form)
            .timeout(BROWSER_TIMEOUT)
            .send()
            .await
            .map_err(browser_failed)?;
        let status = response.status();
        let unexpected = |what: &str, page: &str| FakeError::UnexpectedPage {
            what: what.to_owned(),
            status: status.as_u16(),
            page: page.to_owned(),
        };
        if status.is_redirection() {
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default();
            return Url::parse(location)
                .map(Authorization::Callback)
                .map_err(|_| {
                    // The Location is the app's callback with the verifier: shown as the
                    // client shows a URL it refuses.
                    unexpected(
                        "a redirect without a valid Location",
                        &marketplace_client::redact_url(location),
                    )
                });
        }
        let page = response.text().await.map_err(browser_failed)?;
        if status != StatusCode::OK {
            return Err(unexpected("the login form was refused", &page));
        }
        if let Some(verifier) = element_text(&page, "<code id=\"oauth_verifier\">", "</code>") {
            return Ok(Authorization::Verifier(verifier));
        }
        if page.contains("Access denied") {
            return Ok(Authorization::Denied);
        }
        Err(unexpected(
            "neither a callback, a verifier nor a denial",
            &page,
        ))
    }
}

impl FakeMarketplace {
    /// `Ok` when `url` is at this fake's origin; the browser sends nothing elsewhere.
    fn check_own(&self, url: &Url) -> Result<(), FakeError> {
        let own = Url::parse(self.base_url()).map(|base| base.origin());
        if own.as_ref().is_ok_and(|own| *own == url.origin()) {
            return Ok(());
        }
        Err(FakeError::ForeignUrl {
            url: marketplace_client::redact_url(url.as_str()),
            fake: self.base_url().to_owned(),
        })
    }
}

/// A failed request of the browser, without its URL: the one way a request error becomes a
/// [`FakeError`] (it has no `From`, so `?` cannot skip this).
fn browser_failed(error: reqwest::Error) -> FakeError {
    FakeError::Browser(error.without_url())
}

/// The bound on each request of [`FakeMarketplace::authorize`]'s browser.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(30);

/// The value of `attribute="..."` in the first tag after `marker` (HTML entities for `&` and
/// `"` decoded).
fn attribute_after(page: &str, marker: &str, attribute: &str) -> Option<String> {
    let start = page.find(marker)?;
    let tag_start = page[..start].rfind('<').unwrap_or(start);
    let tag_end = start + page[start..].find('>')?;
    let tag = &page[tag_start..tag_end];
    let needle = format!("{attribute}=\"");
    let value_start = tag.find(&needle)? + needle.len();
    let value_len = tag[value_start..].find('"')?;
    Some(unescape(&tag[value_start..value_start + value_len]))
}

/// The text between `open` and `close`.
fn element_text(page: &str, open: &str, close: &str) -> Option<String> {
    let start = page.find(open)? + open.len();
    let len = page[start..].find(close)?;
    Some(unescape(page[start..start + len].trim()))
}

/// Decodes the entities the fake's pages use.
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_form() {
        let page = "<form method=\"post\" action=\"/oauth/authorizeToken\">\n\
                    <input type=\"hidden\" name=\"oauth_token\" value=\"a&amp;b\">";
        assert_eq!(
            attribute_after(page, "name=\"oauth_token\"", "value").as_deref(),
            Some("a&b")
        );
        assert_eq!(
            attribute_after(page, "<form", "action").as_deref(),
            Some("/oauth/authorizeToken")
        );
        assert_eq!(
            element_text("<code id=\"v\"> 12 </code>", "<code id=\"v\">", "</code>").as_deref(),
            Some("12")
        );
    }
}
