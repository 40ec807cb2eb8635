//! The runtime oracle: the base crate's own runtime (token expiry, plain-HTTP OAuth, the OAuth
//! exchange, clock correction), observed against the head server.

use super::*;
use crate::meaning::probes;
/// Per pair whose base and head both have an OAuth service, why the base crate's runtime fails
/// against the head server, if it does: it keeps a token past the head's lifetime (the server
/// refuses it where the app expects `TokenExpired`), it sends OAuth requests over plain HTTP
/// to a server that requires HTTPS, or its request-token and access-token exchange fails on
/// answers holding the head's names. What the base crate does is observed
/// (`Session::expires_at`, `Client::request_token` over `http://`, both exchanges against a
/// loopback server), not read from its spec.
pub(super) fn runtime_breaks(probe_output: &str, pairs: &[Pair]) -> BTreeMap<String, String> {
    let observed: BTreeMap<(&str, &str), &str> = probes(probe_output)
        .filter(|p| p.method == "-" && p.side == "base")
        .map(|p| ((p.pair, p.probe), p.result))
        .collect();
    let mut breaks = BTreeMap::new();
    for pair in pairs {
        let Some(head) = &pair.head.oauth else {
            continue;
        };
        if pair.base.oauth.is_none() {
            continue;
        }
        let probe = |name| {
            *observed
                .get(&(pair.name.as_str(), name))
                .unwrap_or_else(|| panic!("{}: no {name} probe", pair.name))
        };
        let lifetime: u64 = probe("lifetime").parse().expect("seconds");
        let mut why = Vec::new();
        if lifetime > head.token_lifetime_seconds {
            why.push(format!(
                "keeps tokens {lifetime} s where the server keeps them {} s",
                head.token_lifetime_seconds
            ));
        }
        for new in &pair.head.errors {
            let Some(requests) = observed
                .get(
                    &(
                        pair.name.as_str(),
                        format!("clock-correction {}", new.code).as_str(),
                    )
                        .clone(),
                )
                .copied()
            else {
                continue;
            };
            let corrects = requests.parse::<u32>().expect("a count") > 1;
            if new.kind.as_deref() == Some("authentication") && !corrects {
                why.push(format!(
                    "does not correct its clock on {}, which the new spec says is about the signature",
                    new.code
                ));
            }
        }
        let answers = probe("oauth-answers");
        if answers != "ok" {
            why.push(format!(
                "fails the OAuth exchange with the new answers ({answers})"
            ));
        }
        if probe("plain-http-oauth") == "sent" && head.https_required {
            why.push(
                "sends OAuth requests over plain HTTP to a server that requires HTTPS".to_owned(),
            );
        }
        if !why.is_empty() {
            breaks.insert(pair.name.clone(), why.join("; "));
        }
    }
    breaks
}
