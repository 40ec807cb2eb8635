//! `service-changed`: A service constant changed (data path, OAuth endpoint, token lifetime, ...).

use std::collections::BTreeMap;

use super::prelude::*;
use crate::diff::context::Place;
use crate::ir::Api;

pub const RULE: Rule = Rule {
    id: "service-changed",
    summary: "A service constant changed (data path, OAuth endpoint, token lifetime, ...).",
};

/// Every request an old app makes names the data path, the OAuth endpoints and the signature
/// rules; the token lifetime only changes when the old crate's local expiry check fires.
pub fn check(cx: &mut Context<'_>) {
    let base = constants(cx.base.api);
    let head = constants(cx.head.api);
    let names: std::collections::BTreeSet<&String> = base.keys().chain(head.keys()).collect();
    for name in names {
        let (old, new) = (base.get(name), head.get(name));
        let value =
            |entry: Option<&Constant<'_>>| entry.map_or("none".to_owned(), |c| c.value.clone());
        if value(old) == value(new) {
            continue;
        }
        let wire = old.or(new).is_some_and(|c| c.on_the_wire);
        let claims: Vec<Claim> = old
            .and_then(|c| c.rust)
            .map(|item| Claim::Item(item.to_owned()))
            .into_iter()
            .collect();
        cx.push(
            RULE.id,
            if wire {
                Surface::Request
            } else {
                Surface::None
            },
            wire,
            &claims,
            old.map(|c| c.place.clone()),
            new.map(|c| c.place.clone()),
            format!("{name}: {} -> {}", value(old), value(new)),
        );
    }
}

struct Constant<'a> {
    value: String,
    place: Place<'a>,
    /// Whether requests carry it.
    on_the_wire: bool,
    /// The generated constant at the crate root, if any.
    rust: Option<&'static str>,
}

fn constants<'a>(api: &'a Api) -> BTreeMap<String, Constant<'a>> {
    let mut constants = BTreeMap::new();
    let mut add = |name: String,
                   value: String,
                   place: Place<'a>,
                   on_the_wire: bool,
                   rust: Option<&'static str>| {
        constants.insert(
            name,
            Constant {
                value,
                place,
                on_the_wire,
                rust,
            },
        );
    };
    if let Some(info) = &api.info {
        add(
            "data path".to_owned(),
            info.data_path.clone(),
            (info.file, vec!["api", "data_path"]),
            true,
            Some("DATA_PATH"),
        );
        add(
            "api version".to_owned(),
            info.api_version.to_string(),
            (info.file, vec!["api", "api_version"]),
            true,
            Some("API_VERSION"),
        );
    }
    if let Some(oauth) = &api.oauth {
        let at = |key| (oauth.file, vec!["oauth", key]);
        add(
            "token lifetime".to_owned(),
            format!("{} s", oauth.token_lifetime_seconds),
            at("token_lifetime_seconds"),
            false,
            None,
        );
        add(
            "signature method".to_owned(),
            oauth.signature_method.clone(),
            at("signature_method"),
            true,
            None,
        );
        add(
            "OAuth version".to_owned(),
            oauth.version.clone(),
            at("version"),
            true,
            None,
        );
        add(
            "HTTPS required".to_owned(),
            if oauth.https_required { "yes" } else { "no" }.to_owned(),
            at("https_required"),
            true,
            None,
        );
        for endpoint in &oauth.endpoints {
            let place = (
                oauth.file,
                vec!["oauth", "endpoints", endpoint.name.as_str()],
            );
            add(
                format!("{} endpoint", endpoint.name),
                format!("{} {}", endpoint.method, endpoint.path),
                place.clone(),
                true,
                None,
            );
            add(
                format!("{} answer", endpoint.name),
                words::list(&endpoint.response),
                place,
                true,
                None,
            );
        }
    }
    constants
}
