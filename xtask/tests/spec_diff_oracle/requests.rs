//! The request oracle: every call the simulation makes of each base method, built with the
//! real base crate, against the query the simulation predicts; and what a server following
//! the head spec makes of the real queries.

use super::*;
use crate::meaning::{probes, query_pairs};
use marketplace_codegen::diff::pairing;
use marketplace_codegen::diff::request::{self, Call};
use marketplace_codegen::ir::ParamType;

/// Per pair, per base method, the simulation's calls.
pub(crate) type Calls = BTreeMap<String, Vec<(String, Vec<Call>)>>;

pub(crate) fn calls(pairs: &[Pair]) -> Calls {
    pairs
        .iter()
        .map(|pair| {
            let calls = pair
                .base
                .methods
                .iter()
                .map(|m| (m.name.clone(), request::calls(m)))
                .collect();
            (pair.name.clone(), calls)
        })
        .collect()
}

pub(crate) fn check(pairs: &[Pair], calls: &Calls, probe_output: &str) -> Vec<String> {
    let real: BTreeMap<(&str, &str, &str), &str> = probes(probe_output)
        .filter(|p| p.side == "base" && p.probe.starts_with("query "))
        .map(|p| ((p.pair, p.method, p.probe), p.result))
        .collect();
    let mut failures = Vec::new();
    for pair in pairs {
        let mut refused = Vec::new();
        for (method, method_calls) in calls.get(&pair.name).into_iter().flatten() {
            let Some(old) = pair.base.methods.iter().find(|m| m.name == *method) else {
                continue;
            };
            let new = pair.head.methods.iter().find(|m| m.name == *method);
            for (index, call) in method_calls.iter().enumerate() {
                let probe = format!("query {index}");
                let Some(sent) = real.get(&(pair.name.as_str(), method.as_str(), probe.as_str()))
                else {
                    failures.push(format!("{}: {method} call {index} was not made", pair.name));
                    continue;
                };
                let predicted: Vec<(String, String)> = call
                    .query
                    .iter()
                    .map(|(w, v, _)| (w.clone(), v.clone()))
                    .collect();
                if query_pairs(sent) != predicted || sent.starts_with("refused") {
                    failures.push(format!(
                        "{} (requests): `{}` sends `{sent}`, the simulation predicts `{}`",
                        pair.name,
                        call.rust,
                        call.query_text()
                    ));
                }
                match new {
                    None => refused.push(format!("{method} is not served")),
                    Some(new) => refused.extend(
                        judged(old, new, &query_pairs(sent))
                            .into_iter()
                            .map(|why| format!("{method}: `{sent}`: {why}")),
                    ),
                }
            }
        }
        refused.extend(constants(pair));
        let tool = breaks(pair, Surface::Request);
        let oracle = !refused.is_empty();
        if tool != oracle {
            failures.push(format!(
                "{} (requests): the tool says {}, the head server {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                if refused.is_empty() {
                    "takes every request of the base crate as meant".to_owned()
                } else {
                    refused.join("; ")
                }
            ));
        }
    }
    failures
}

/// What the head server refuses or reads otherwise in a query the base crate sent for `old`.
fn judged(old: &Method, new: &Method, sent: &[(String, String)]) -> Vec<String> {
    let mut why = Vec::new();
    let counterparts = pairing::params(old, new);
    let paging_param = |p: &marketplace_codegen::ir::Param| {
        new.paging.as_ref().is_some_and(|paging| {
            paging.page_param == p.wire_name || paging.size_param == p.wire_name
        })
    };
    for (wire, value) in sent {
        let Some(param) = new.params.iter().find(|p| p.wire_name == *wire) else {
            why.push(format!("{wire} is not a parameter (ignored)"));
            continue;
        };
        let meant = old
            .params
            .iter()
            .position(|p| p.wire_name == *wire)
            .and_then(|at| counterparts[at]);
        if meant.is_none_or(|m| !std::ptr::eq(m, param)) {
            why.push(format!(
                "{wire}={value} reaches {} ({}), not the parameter meant",
                param.wire_name, param.rust_name
            ));
        }
        let number = value.parse::<i64>().ok();
        let fits = match param.ty {
            ParamType::Date => number.is_none(),
            ParamType::Integer => number.is_some(),
            ParamType::Count | ParamType::Id => number.is_some_and(|n| n >= 0),
        };
        if !fits {
            why.push(format!("{wire}={value} is not {}", param.ty.spec_name()));
        } else if number.zip(param.min).is_some_and(|(n, min)| n < min) {
            why.push(format!("{wire}={value} is below {:?}", param.min));
        } else if number.zip(param.max).is_some_and(|(n, max)| n > max) && !paging_param(param) {
            why.push(format!("{wire}={value} is answered as {:?}", param.max));
        }
    }
    let is_sent = |wire: &str| sent.iter().any(|(w, _)| w == wire);
    for param in &new.params {
        let alternative = new.at_least_one_of.iter().any(|a| *a == param.wire_name);
        if param.required && !alternative && !is_sent(&param.wire_name) {
            why.push(format!("{} is required and not sent", param.wire_name));
        }
    }
    if !new.at_least_one_of.is_empty() && !new.at_least_one_of.iter().any(|a| is_sent(a.as_str())) {
        why.push(format!("none of {:?} is sent", new.at_least_one_of));
    }
    for (old_param, counterpart) in old.params.iter().zip(&counterparts) {
        let Some(new_param) = counterpart else {
            continue;
        };
        let left_out = !is_sent(&old_param.wire_name) && !is_sent(&new_param.wire_name);
        let differs =
            matches!((old_param.default, new_param.default), (Some(a), Some(b)) if a != b);
        // A page or size parameter both sides page by: the paging oracle's question.
        let pages_by = |m: &Method, wire: &str| {
            m.paging
                .as_ref()
                .is_some_and(|p| p.page_param == wire || p.size_param == wire)
        };
        let paged_by = pages_by(old, &old_param.wire_name) && pages_by(new, &new_param.wire_name);
        if left_out && differs && !paged_by {
            why.push(format!(
                "{} left out is taken as {:?}, not {:?}",
                new_param.wire_name, new_param.default, old_param.default
            ));
        }
    }
    why
}

/// The service constants every request carries or goes to, compared.
fn constants(pair: &Pair) -> Vec<String> {
    let mut why = Vec::new();
    if let (Some(old), Some(new)) = (&pair.base.info, &pair.head.info) {
        if old.data_path != new.data_path {
            why.push(format!(
                "data calls go to {}, served at {}",
                old.data_path, new.data_path
            ));
        }
    }
    if let (Some(old), Some(new)) = (&pair.base.oauth, &pair.head.oauth) {
        if old.signature_method != new.signature_method || old.version != new.version {
            why.push("the OAuth signature rules differ".to_owned());
        }
        for endpoint in &old.endpoints {
            let same = new.endpoints.iter().any(|e| {
                e.name == endpoint.name && e.method == endpoint.method && e.path == endpoint.path
            });
            if !same {
                why.push(format!("the {} endpoint moved", endpoint.name));
            }
        }
    }
    why
}
