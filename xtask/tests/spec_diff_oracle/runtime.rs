//! The runtime oracle: the base crate's own runtime (token expiry, plain-HTTP OAuth, the OAuth
//! exchange, clock correction), observed against the head server.

use super::*;
use crate::meaning::probes;

/// Per pair whose base and head both have an OAuth service, whether the base crate's runtime
/// fails against the head server as the tool says: it keeps a token past the head's lifetime
/// (the server refuses it where the app expects `TokenExpired`), it sends OAuth requests over
/// plain HTTP to a server that requires HTTPS, its request-token and access-token exchange
/// fails on answers holding the head's names, or it does not correct its clock when a server
/// 2 h ahead refuses a call with one of the head's authentication codes. What the base crate
/// does is observed (`Session::expires_at`, `Client::request_token` over `http://`, both
/// exchanges and a refused call against loopback servers), not read from its spec.
pub(crate) fn check(pairs: &[Pair], probe_output: &str) -> Vec<String> {
    let observed: BTreeMap<(&str, &str), &str> = probes(probe_output)
        .filter(|p| p.method == "-" && p.side == "base")
        .map(|p| ((p.pair, p.probe), p.result))
        .collect();
    let mut failures = Vec::new();
    for pair in pairs {
        let (Some(_), Some(head)) = (&pair.base.oauth, &pair.head.oauth) else {
            continue;
        };
        let probe = |name: &str| {
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
        for code in marketplace_codegen::diff::runtime::clock_codes(&pair.head) {
            let key = format!("clock-correction {code}");
            let Some(requests) = observed.get(&(pair.name.as_str(), key.as_str())) else {
                continue;
            };
            if requests.parse::<u32>().expect("a count") <= 1 {
                why.push(format!(
                    "does not correct its clock on {code}, which the new spec says is about the signature"
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
        let tool = breaks(pair, Surface::Runtime);
        let oracle = !why.is_empty();
        if tool != oracle {
            failures.push(format!(
                "{} (runtime): the tool says {}, the base crate's runtime {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                if why.is_empty() {
                    "keeps working with the head server".to_owned()
                } else {
                    why.join("; ")
                }
            ));
        }
    }
    failures
}
