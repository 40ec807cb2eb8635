//! The request oracle: what a server following the head spec makes of the base crate's
//! requests with every parameter set.

use super::*;
use crate::meaning::{probes, sent};
/// Per pair, what a server that follows the head spec makes of the requests the base crate
/// sends with every parameter set (observed from the base crate's requests): `Ok(refusals)`,
/// the refused or ignored parameters (empty when every request is taken as meant), or `Err`
/// when a method with a request change was not called (so the pair cannot be judged).
pub(super) fn request_refusals(
    pair: &Pair,
    full: &BTreeMap<(String, String), String>,
) -> Result<Vec<String>, String> {
    let mut refusals = Vec::new();
    let mut called = std::collections::BTreeSet::new();
    for ((pair_name, method), request) in full {
        if *pair_name != pair.name {
            continue;
        }
        let (Some(old), Some(new)) = (
            pair.base.methods.iter().find(|m| &m.name == method),
            pair.head.methods.iter().find(|m| &m.name == method),
        ) else {
            continue;
        };
        called.insert(method.clone());
        let sent = sent(request, old);
        for param in &new.params {
            let alternative = new.at_least_one_of.iter().any(|a| *a == param.wire_name);
            if param.required && !alternative && !sent.contains_key(&param.wire_name) {
                refusals.push(format!(
                    "{method}: {} is required and not sent",
                    param.wire_name
                ));
            }
        }
        if !new.at_least_one_of.is_empty()
            && !new
                .at_least_one_of
                .iter()
                .any(|a| sent.contains_key(a.as_str()))
        {
            refusals.push(format!(
                "{method}: none of {:?} is sent",
                new.at_least_one_of
            ));
        }
        for (wire, value) in &sent {
            let Some(param) = new.params.iter().find(|p| &p.wire_name == wire) else {
                refusals.push(format!("{method}: {wire} is not a parameter (ignored)"));
                continue;
            };
            let number = value.parse::<i64>().ok();
            let fits = match param.ty {
                marketplace_codegen::ir::ParamType::Date => number.is_none(),
                marketplace_codegen::ir::ParamType::Integer => number.is_some(),
                _ => number.is_some_and(|n| n >= 0),
            };
            if !fits {
                refusals.push(format!(
                    "{method}: {wire}={value} is not a {}",
                    param.ty.spec_name()
                ));
            } else if number.zip(param.min).is_some_and(|(n, min)| n < min) {
                refusals.push(format!("{method}: {wire}={value} is below {:?}", param.min));
            }
        }
    }
    for change in pair
        .changes
        .iter()
        .filter(|c| c.surface == Surface::Request)
    {
        let method = change
            .subject
            .strip_prefix("methods.")
            .map(|rest| rest.split(".params").next().unwrap_or(rest));
        if !method.is_some_and(|m| called.contains(m)) {
            return Err(format!("{} is not called", change.subject));
        }
    }
    Ok(refusals)
}

/// The base crate's requests with every parameter set, by (pair, method).
pub(super) fn full_requests(probe_output: &str) -> BTreeMap<(String, String), String> {
    probes(probe_output)
        .filter(|p| p.side == "base" && p.probe == "full")
        .map(|p| {
            (
                (p.pair.to_owned(), p.method.to_owned()),
                p.result.to_owned(),
            )
        })
        .collect()
}
