//! `service-changed`: A service constant changed (data path, OAuth endpoint, token lifetime, ...).

use std::collections::BTreeMap;

use super::prelude::*;
use crate::diff::context::Place;
use crate::ir::Api;

pub const RULE: Rule = Rule {
    id: "service-changed",
    summary: "A service constant changed (data path, OAuth endpoint, token lifetime, ...).",
};

/// Each constant's verdict comes from what the old crate does with it ([`Consumer`]): what
/// every request carries or goes to breaks in both directions; the token lifetime only in the
/// direction that leaves the old crate using tokens the server refuses; HTTPS only when the
/// server starts requiring it; an OAuth answer only when it loses a value the runtime reads;
/// the envelope's `apiVersion`, which no request carries and the runtime never checks, never.
pub fn check(cx: &mut Context<'_>) {
    let base = constants(cx.base.api);
    let head = constants(cx.head.api);
    let names: std::collections::BTreeSet<&String> = base.keys().chain(head.keys()).collect();
    for name in names {
        let (old, new) = (base.get(name), head.get(name));
        let (old_value, new_value) = (old.map(|c| &c.value), new.map(|c| &c.value));
        if old_value == new_value {
            continue;
        }
        let consumer = old.or(new).map_or(Consumer::Documentation, |c| c.consumer);
        let (surface, breaks, effect) = consumer.judge(old_value, new_value);
        let claims: Vec<Claim> = old
            .and_then(|c| c.rust)
            .map(|item| Claim::Item(item.to_owned()))
            .into_iter()
            .collect();
        let shown =
            |entry: Option<&Constant<'_>>| entry.map_or("none".to_owned(), |c| c.value.words());
        let change = match (old_value, new_value) {
            (Some(Value::List(o)), Some(Value::List(n))) => words::set_change(o, n),
            _ => format!("{} -> {}", shown(old), shown(new)),
        };
        // The old runtime run against the new server's constant: what it sends or relies on,
        // and what the new server does with it.
        let wire = breaks.then(|| Witness::Runtime {
            finding: format!(
                "the old crate's {name} is {}, the new server's {}: {effect}",
                shown(old),
                shown(new)
            ),
        });
        cx.push(
            RULE.id,
            surface,
            wire,
            &claims,
            old.map(|c| c.place.clone()),
            new.map(|c| c.place.clone()),
            format!("{name}: {change} ({effect})"),
        );
    }
}

/// A constant's value, typed so that a direction can be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Text(String),
    Seconds(u64),
    Flag(bool),
    List(Vec<String>),
}

impl Value {
    fn words(&self) -> String {
        match self {
            Value::Text(text) => text.clone(),
            Value::Seconds(seconds) => format!("{seconds} s"),
            Value::Flag(flag) => if *flag { "yes" } else { "no" }.to_owned(),
            Value::List(items) => words::list(items),
        }
    }
}

/// What the old crate does with a constant.
#[derive(Clone, Copy, Debug)]
enum Consumer {
    /// Every request carries it or is sent to it (paths, methods, signature rules): the new
    /// server refuses what differs.
    Sent,
    /// The old crate's local expiry of access tokens (`token_lifetime`): a shorter new
    /// lifetime leaves it signing with tokens the server has expired.
    TokenLifetime,
    /// The old crate refuses a plain-HTTP base URL when it is `yes`: a server that starts
    /// requiring HTTPS refuses old apps on HTTP; one that stops still serves HTTPS.
    HttpsRequired,
    /// An OAuth endpoint's answer: the runtime reads these names and fails without them
    /// (`Client::request_token` and `access_token` in `client.rs`); others it ignores.
    Answer(&'static [&'static str]),
    /// Neither sent nor read (the envelope's `apiVersion`: the runtime passes it on in
    /// `ResponseMeta` and never checks it).
    Documentation,
}

impl Consumer {
    /// The surface, whether the change breaks an old app, and why, in words.
    fn judge(self, old: Option<&Value>, new: Option<&Value>) -> (Surface, bool, String) {
        match (self, old, new) {
            (Consumer::Documentation, ..) => (
                Surface::None,
                false,
                "requests never carry it and the runtime does not check it".to_owned(),
            ),
            (_, None, _) => (
                Surface::None,
                false,
                "the old crate does not use it".to_owned(),
            ),
            (Consumer::Sent, Some(_), _) => (
                Surface::Request,
                true,
                "old apps still send the old value".to_owned(),
            ),
            (Consumer::TokenLifetime, Some(Value::Seconds(o)), Some(Value::Seconds(n))) => {
                if n < o {
                    (
                        Surface::Runtime,
                        true,
                        format!(
                            "old apps keep signing with access tokens for {} s after the server has \
                             expired them, and get its refusal instead of the `TokenExpired` the \
                             old crate reports before sending",
                            o - n
                        ),
                    )
                } else {
                    (
                        Surface::Runtime,
                        false,
                        "old apps renew their tokens earlier than they must".to_owned(),
                    )
                }
            }
            (Consumer::HttpsRequired, Some(Value::Flag(o)), Some(Value::Flag(n))) => {
                if *n && !*o {
                    (
                        Surface::Runtime,
                        true,
                        "old apps with a plain-HTTP base URL are refused".to_owned(),
                    )
                } else {
                    (
                        Surface::Runtime,
                        false,
                        "old apps use HTTPS, which the server still takes".to_owned(),
                    )
                }
            }
            (Consumer::Answer(reads), Some(Value::List(o)), new) => {
                let kept = |name: &&str| match new {
                    Some(Value::List(n)) => n.iter().any(|v| v == name),
                    _ => false,
                };
                let lost: Vec<&str> = reads
                    .iter()
                    .filter(|name| o.iter().any(|v| v == *name) && !kept(name))
                    .copied()
                    .collect();
                if lost.is_empty() {
                    (
                        Surface::Runtime,
                        false,
                        format!("the runtime reads only {}", words::list(reads)),
                    )
                } else {
                    (
                        Surface::Runtime,
                        true,
                        format!("the old crate fails without {}", words::list(&lost)),
                    )
                }
            }
            // A constant removed, or of another kind on each side.
            (_, Some(_), _) => (
                Surface::Request,
                true,
                "the old crate still relies on it".to_owned(),
            ),
        }
    }
}

struct Constant<'a> {
    value: Value,
    place: Place<'a>,
    consumer: Consumer,
    /// The generated constant at the crate root, if any.
    rust: Option<&'static str>,
}

/// The names of each OAuth endpoint's answer the runtime reads (`client.rs`).
fn answer_reads(endpoint: &str) -> &'static [&'static str] {
    match endpoint {
        "request_token" | "access_token" => &["oauth_token", "oauth_token_secret"],
        _ => &[],
    }
}

fn constants<'a>(api: &'a Api) -> BTreeMap<String, Constant<'a>> {
    let mut constants = BTreeMap::new();
    let mut add = |name: String,
                   value: Value,
                   place: Place<'a>,
                   consumer: Consumer,
                   rust: Option<&'static str>| {
        constants.insert(
            name,
            Constant {
                value,
                place,
                consumer,
                rust,
            },
        );
    };
    if let Some(info) = &api.info {
        add(
            "data path".to_owned(),
            Value::Text(info.data_path.clone()),
            (info.file, vec!["api", "data_path"]),
            Consumer::Sent,
            Some("DATA_PATH"),
        );
        add(
            "api version".to_owned(),
            Value::Text(info.api_version.to_string()),
            (info.file, vec!["api", "api_version"]),
            Consumer::Documentation,
            Some("API_VERSION"),
        );
    }
    if let Some(oauth) = &api.oauth {
        let at = |key| (oauth.file, vec!["oauth", key]);
        add(
            "token lifetime".to_owned(),
            Value::Seconds(oauth.token_lifetime_seconds),
            at("token_lifetime_seconds"),
            Consumer::TokenLifetime,
            None,
        );
        add(
            "signature method".to_owned(),
            Value::Text(oauth.signature_method.clone()),
            at("signature_method"),
            Consumer::Sent,
            None,
        );
        add(
            "OAuth version".to_owned(),
            Value::Text(oauth.version.clone()),
            at("version"),
            Consumer::Sent,
            None,
        );
        add(
            "HTTPS required".to_owned(),
            Value::Flag(oauth.https_required),
            at("https_required"),
            Consumer::HttpsRequired,
            None,
        );
        for endpoint in &oauth.endpoints {
            let place = (
                oauth.file,
                vec!["oauth", "endpoints", endpoint.name.as_str()],
            );
            add(
                format!("{} endpoint", endpoint.name),
                Value::Text(format!("{} {}", endpoint.method, endpoint.path)),
                place.clone(),
                Consumer::Sent,
                None,
            );
            add(
                format!("{} answer", endpoint.name),
                Value::List(endpoint.response.clone()),
                place,
                Consumer::Answer(answer_reads(&endpoint.name)),
                None,
            );
        }
    }
    constants
}
