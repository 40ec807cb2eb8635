//! The four `/oauth/...` endpoints and the login page, over the token store (`tokens.rs`):
//! request tokens, the user's approval, access tokens and their revocation.
//!
//! Every rejected signed request answers 401 with `E_API_AUTH_SIGNATURE_MISMATCH` (error type
//! `authentication`) and a message saying what was wrong, in the server's error shape.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::app::{App, ReadRequest};
use crate::error_shape::ServiceError;
use crate::html::escape;
use crate::tokens::{Approval, Expect, RequestToken, random_hex};
use crate::verify::OAuthRequest;

/// The error code of every OAuth failure.
const SIGNATURE_MISMATCH: &str = "E_API_AUTH_SIGNATURE_MISMATCH";

/// The 401 answer to a request that failed OAuth.
pub(crate) fn auth_error(app: &App, api: &str, message: &str) -> Response {
    app.error(ServiceError::new(
        api,
        401,
        SIGNATURE_MISMATCH,
        "authentication",
        message,
    ))
}

/// Parses and checks the OAuth parameters of a data call taking `params`; returns the caller's
/// user ID, or why the call is refused (for [`auth_error`]).
pub(crate) fn authenticate_data_call(
    app: &App,
    read: &ReadRequest,
    params: &[&str],
) -> Result<u64, String> {
    let request = OAuthRequest::parse(&read.raw(app.scheme))?.recognizing(params);
    let now = app.clock.now();
    let mut tokens = app.tokens();
    let token = tokens.authenticate(&app.credentials, &request, Expect::Access, now)?;
    tokens.access_user(&token, now)
}

/// Reads and checks a signed OAuth endpoint request.
async fn signed(
    app: &App,
    api: &str,
    request: Request,
    expect: Expect,
) -> Result<(OAuthRequest, String), Response> {
    let read = ReadRequest::read(app, request).await?;
    // The OAuth endpoints take the protocol's parameters only.
    let request = OAuthRequest::parse(&read.raw(app.scheme))
        .map_err(|m| auth_error(app, api, &m))?
        .recognizing(&[]);
    let token = app
        .tokens()
        .authenticate(&app.credentials, &request, expect, app.clock.now())
        .map_err(|m| {
            // The refusal quotes the base string, the app's callback in it: what the client
            // counts among its secrets, the fake's recorder removes too.
            let mut refusal = auth_error(app, api, &m);
            if let Some(callback) = request.get("oauth_callback") {
                let secrets = marketplace_client::callback_secrets(callback);
                refusal.extensions_mut().insert(AppSecrets(secrets));
            }
            refusal
        })?;
    Ok((request, token))
}

/// Values of the app that an answer may echo (its callback's, in a refusal's base string),
/// removed from what the fake's recorder writes of that answer.
#[derive(Clone)]
pub(crate) struct AppSecrets(pub(crate) Vec<marketplace_client::Secret>);

/// `POST /oauth/getRequestToken`: a new unauthorized request token.
pub(crate) async fn get_request_token(State(app): State<Arc<App>>, request: Request) -> Response {
    const API: &str = "oauth/getRequestToken";
    let (request, _) = match signed(&app, API, request, Expect::Blank).await {
        Ok(checked) => checked,
        Err(response) => return response,
    };
    let callback = match request.get("oauth_callback") {
        None | Some("oob") => None,
        Some(callback) if url::Url::parse(callback).is_ok() => Some(callback.to_owned()),
        Some(callback) => {
            return app.error(ServiceError::new(
                API,
                400,
                "E_VALIDATION_INVALID_CALLBACK",
                "validation",
                &format!("oauth_callback {callback:?} is not an absolute URI or \"oob\""),
            ));
        }
    };
    let (Some(token), Some(secret)) = (random_hex(16), random_hex(20)) else {
        return no_randomness(&app, API);
    };
    let consumer_key = app.credentials.consumer_key.clone();
    app.tokens().requests.insert(
        token.clone(),
        RequestToken {
            secret: secret.clone(),
            consumer_key,
            callback,
            approval: None,
        },
    );
    form_response(&[
        ("oauth_token", &token),
        ("oauth_token_secret", &secret),
        ("oauth_callback_confirmed", "true"),
    ])
}

/// `POST /oauth/getAccessToken`: exchanges an authorized request token and its verifier for
/// an access token; the request token is discarded.
pub(crate) async fn get_access_token(State(app): State<Arc<App>>, request: Request) -> Response {
    const API: &str = "oauth/getAccessToken";
    let (request, request_token) = match signed(&app, API, request, Expect::Request).await {
        Ok(checked) => checked,
        Err(response) => return response,
    };
    let (Some(token), Some(secret)) = (random_hex(16), random_hex(20)) else {
        return no_randomness(&app, API);
    };
    let now = app.clock.now();
    let mut tokens = app.tokens();
    let Some(issued) = tokens.requests.get(&request_token) else {
        return auth_error(&app, API, "unknown request token");
    };
    let Some(approval) = &issued.approval else {
        return auth_error(
            &app,
            API,
            "the request token has not been authorized by the user",
        );
    };
    match request.get("oauth_verifier") {
        None | Some("") => return auth_error(&app, API, "oauth_verifier is missing"),
        Some(verifier) if verifier != approval.verifier => {
            return auth_error(&app, API, "oauth_verifier is wrong for this request token");
        }
        Some(_) => {}
    }
    let user = approval.user;
    let consumer_key = issued.consumer_key.clone();
    tokens.requests.remove(&request_token);
    tokens.grant(&token, &secret, consumer_key, user, now);
    drop(tokens);
    form_response(&[("oauth_token", &token), ("oauth_token_secret", &secret)])
}

/// `POST /oauth/revokeToken`: expires the access token the request is signed with.
pub(crate) async fn revoke_token(State(app): State<Arc<App>>, request: Request) -> Response {
    const API: &str = "oauth/revokeToken";
    let (_, token) = match signed(&app, API, request, Expect::Access).await {
        Ok(checked) => checked,
        Err(response) => return response,
    };
    let now = app.clock.now();
    let mut tokens = app.tokens();
    if let Err(message) = tokens.access_user(&token, now) {
        drop(tokens);
        return auth_error(&app, API, &message);
    }
    if let Some(issued) = tokens.access.get_mut(&token) {
        issued.revoked = true;
    }
    Response::new(Body::empty())
}

/// `GET /oauth/authorizeToken?oauth_token=...`: the login page where the user approves or
/// denies the application.
pub(crate) async fn login_page(State(app): State<Arc<App>>, request: Request) -> Response {
    let token = request
        .uri()
        .query()
        .and_then(|query| {
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "oauth_token")
                .map(|(_, value)| value.into_owned())
        })
        .unwrap_or_default();
    if !app.tokens().has_request(&token) {
        return unknown_token_page(&token);
    }
    html(
        StatusCode::OK,
        "Authorize the application",
        &login_form(&token, None),
    )
}

/// `POST /oauth/authorizeToken` (the login form): checks the user's login and password, then
/// approves (redirect to the callback, or a page showing the verifier) or denies.
pub(crate) async fn login(State(app): State<Arc<App>>, request: Request) -> Response {
    let read = match ReadRequest::read(&app, request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let body: &[u8] = &read.body;
    let field = |wanted: &str| {
        url::form_urlencoded::parse(body)
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default()
    };
    let (token, login, password, action) = (
        field("oauth_token"),
        field("login"),
        field("password"),
        field("action"),
    );
    let Some(user) = app.world.user_by_login(&login).map(|user| user.id) else {
        return wrong_login(&app, &token);
    };
    if password != app.credentials.password {
        return wrong_login(&app, &token);
    }
    let approve = match action.as_str() {
        "approve" => true,
        "deny" => false,
        _ => {
            return html(
                StatusCode::BAD_REQUEST,
                "Authorize the application",
                "<p>Choose <b>Approve</b> or <b>Deny</b>.</p>",
            );
        }
    };
    let mut tokens = app.tokens();
    let Some(issued) = tokens.requests.get_mut(&token) else {
        drop(tokens);
        return unknown_token_page(&token);
    };
    if !approve {
        return html(
            StatusCode::OK,
            "Access denied",
            "<p id=\"denied\">Access denied: the application was not authorized.</p>",
        );
    }
    let Some(verifier) = random_hex(10) else {
        return html(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error",
            "<p>No randomness available.</p>",
        );
    };
    issued.approval = Some(Approval {
        user,
        verifier: verifier.clone(),
    });
    match &issued.callback {
        Some(callback) => {
            let target = callback_target(callback, &token, &verifier);
            let Ok(location) = HeaderValue::from_str(&target) else {
                return html(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Error",
                    "<p>The callback cannot be used as a redirect target.</p>",
                );
            };
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::FOUND;
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        None => html(
            StatusCode::OK,
            "Application authorized",
            &format!(
                "<p>Enter this verification code in the application:</p>\n\
                 <p><code id=\"oauth_verifier\">{verifier}</code></p>"
            ),
        ),
    }
}

/// The callback URI with `oauth_token` and `oauth_verifier` appended to its query (before any
/// fragment).
fn callback_target(callback: &str, token: &str, verifier: &str) -> String {
    let (base, fragment) = match callback.find('#') {
        Some(at) => callback.split_at(at),
        None => (callback, ""),
    };
    let separator = match base.find('?') {
        None => "?",
        Some(at) if at + 1 == base.len() || base.ends_with('&') => "",
        Some(_) => "&",
    };
    format!("{base}{separator}oauth_token={token}&oauth_verifier={verifier}{fragment}")
}

/// 401: the login page again, with an error.
fn wrong_login(app: &App, token: &str) -> Response {
    if !app.tokens().has_request(token) {
        return unknown_token_page(token);
    }
    html(
        StatusCode::UNAUTHORIZED,
        "Authorize the application",
        &login_form(token, Some("Wrong login or password.")),
    )
}

/// 400: a page for an unknown request token.
fn unknown_token_page(token: &str) -> Response {
    html(
        StatusCode::BAD_REQUEST,
        "Unknown request token",
        &format!(
            "<p>The request token <code>{}</code> is unknown or has already been used.</p>",
            escape(token)
        ),
    )
}

/// The login form for a request token.
fn login_form(token: &str, error: Option<&str>) -> String {
    let error = error
        .map(|error| format!("<p class=\"error\">{}</p>\n", escape(error)))
        .unwrap_or_default();
    format!(
        "<p>An application asks to access your marketplace account.</p>\n{error}\
         <form method=\"post\" action=\"/oauth/authorizeToken\">\n\
         <input type=\"hidden\" name=\"oauth_token\" value=\"{}\">\n\
         <label>Login <input type=\"text\" name=\"login\"></label>\n\
         <label>Password <input type=\"password\" name=\"password\"></label>\n\
         <button type=\"submit\" name=\"action\" value=\"approve\">Approve</button>\n\
         <button type=\"submit\" name=\"action\" value=\"deny\">Deny</button>\n\
         </form>",
        escape(token)
    )
}

/// An HTML page.
fn html(status: StatusCode, title: &str, content: &str) -> Response {
    let page = format!(
        "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body>\n<h1>{title}</h1>\n{content}\n</body>\n</html>\n"
    );
    let mut response = Response::new(Body::from(page));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// A token endpoint's `application/x-www-form-urlencoded` answer.
fn form_response(pairs: &[(&str, &str)]) -> Response {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    response
}

/// 500 when the OS random source fails.
fn no_randomness(app: &App, api: &str) -> Response {
    app.error(ServiceError::new(
        api,
        500,
        "E_API_INTERNAL",
        "internal",
        "no randomness available",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_to_the_callback_query() {
        assert_eq!(
            callback_target("myapp://cb", "t", "v"),
            "myapp://cb?oauth_token=t&oauth_verifier=v"
        );
        assert_eq!(
            callback_target("https://app/cb?x=1#top", "t", "v"),
            "https://app/cb?x=1&oauth_token=t&oauth_verifier=v#top"
        );
        assert_eq!(
            callback_target("https://app/cb?", "t", "v"),
            "https://app/cb?oauth_token=t&oauth_verifier=v"
        );
    }
}
