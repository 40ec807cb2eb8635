//! The witnesses of the request side: the calls an old app can make of a data method (each
//! constructor with only its arguments; every argument and setter set, each to a value of its
//! own; each bounded parameter at the old crate's minimum and at its cap), the query the old
//! crate sends for each (in spec order, as `marketplace_client::query` writes it), and what a
//! server built to the new spec makes of it: which of its parameters each value reaches (by
//! wire name) against the one the old app meant (paired by [`super::pairing::params`]), a
//! value it refuses (another format, below its minimum, a negative count) or answers with its
//! cap, a parameter it requires that is not sent, none of its alternatives sent, and for each
//! parameter left out, the default it now assumes against the old spec's.

use super::pairing;
use crate::ir::{Method, Param, ParamType};
use crate::naming::constructor_names;

/// One call of an old app, and what the old crate sends for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// As an old app writes it: `session.get_timesheets_for_bid(1001).rpp(25)`.
    pub rust: String,
    /// The query the old crate sends, in spec order: each wire name, its text, and the old
    /// parameter (index in the method) that sends it.
    pub query: Vec<(String, String, usize)>,
}

impl Call {
    /// The query as a URL's: `bidId=1001&rpp=25`.
    pub fn query_text(&self) -> String {
        let pairs: Vec<String> = self
            .query
            .iter()
            .map(|(name, value, _)| format!("{name}={value}"))
            .collect();
        if pairs.is_empty() {
            "nothing".to_owned()
        } else {
            pairs.join("&")
        }
    }
}

/// Why the new server refuses a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not written as the new type is (a day for a number, a number for a day).
    Format,
    /// Below zero where it takes counts and IDs.
    Negative,
    /// Below its minimum.
    BelowMinimum,
}

/// What the new server makes of one part of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// It refuses the value the old parameter (its index) sent.
    Refused(usize, Refused),
    /// No parameter of it reads the name the old parameter sent under: it leaves the value out
    /// of the signature it computes, and refuses the call as a signature mismatch.
    Ignored(usize),
    /// The value the old parameter sent reaches another of its parameters (its index in the
    /// new method) than the one the old app meant.
    Elsewhere(usize, usize),
    /// The value is above its cap, which it answers with.
    Capped(usize),
    /// A parameter it requires (its index) is not sent.
    Missing(usize),
    /// None of the parameters of which it needs one is sent.
    NoAlternative,
    /// A parameter left out (its index in the new method) whose default it now assumes
    /// otherwise than the old spec said.
    Default(usize),
}

impl Reading {
    /// The reading in words, for the witness.
    pub fn words(&self, old: &Method, new: &Method, call: &Call) -> String {
        let sent = |at: usize| -> String {
            call.query
                .iter()
                .find(|(_, _, from)| *from == at)
                .map_or_else(String::new, |(name, value, _)| format!("{name}={value}"))
        };
        let old_param = |at: usize| old.params.get(at).map_or("", |p| p.wire_name.as_str());
        let new_param = |at: usize| new.params.get(at);
        match self {
            Reading::Refused(at, why) => {
                let param = new.params.iter().find(|p| p.wire_name == old_param(*at));
                let why = match (why, param) {
                    (Refused::Format, Some(p)) => {
                        format!("not {}", super::words::article(p.ty.spec_name()))
                    }
                    (Refused::Negative, Some(p)) => {
                        format!(
                            "{} is not negative",
                            super::words::article(p.ty.spec_name())
                        )
                    }
                    (Refused::BelowMinimum, Some(p)) => {
                        format!("below its minimum {}", p.min.unwrap_or_default())
                    }
                    _ => "refused".to_owned(),
                };
                format!("the new server refuses {} ({why})", sent(*at))
            }
            // The reference: "A parameter whose name is misspelled is ignored by the service
            // and therefore changes the computed signature"; the fake refuses so too.
            Reading::Ignored(at) => format!(
                "the new server has no parameter {}: it leaves {} out of the signature it \
                 computes, as the service does with any name it does not know, so the old app's \
                 signature does not match and the call is refused",
                old_param(*at),
                sent(*at)
            ),
            Reading::Elsewhere(at, to) => format!(
                "the new server reads {} as its parameter {} ({}), not as the {} the old app \
                 meant",
                sent(*at),
                new_param(*to).map_or("", |p| p.wire_name.as_str()),
                new_param(*to).map_or("", |p| p.rust_name.as_str()),
                old.params.get(*at).map_or("", |p| p.rust_name.as_str()),
            ),
            Reading::Capped(at) => {
                let cap = new
                    .params
                    .iter()
                    .find(|p| p.wire_name == old_param(*at))
                    .and_then(|p| p.max)
                    .unwrap_or_default();
                format!(
                    "the new server answers {} as if it asked for {cap}, its new cap",
                    sent(*at)
                )
            }
            Reading::Missing(at) => format!(
                "the new server requires {}, which the old app does not send",
                new_param(*at).map_or("", |p| p.wire_name.as_str())
            ),
            Reading::NoAlternative => format!(
                "the new server needs at least one of {}, and none is sent",
                super::words::list(&new.at_least_one_of)
            ),
            Reading::Default(at) => {
                let new_param = new_param(*at);
                let old_default = pairing::params(old, new)
                    .iter()
                    .zip(&old.params)
                    .find(|(n, _)| n.is_some_and(|n| Some(n) == new_param))
                    .and_then(|(_, o)| o.default);
                format!(
                    "the old app leaves {} out, which the new server takes as {} where the old \
                     spec said {}",
                    new_param.map_or("", |p| p.wire_name.as_str()),
                    super::words::option(new_param.and_then(|p| p.default)),
                    super::words::option(old_default)
                )
            }
        }
    }
}

/// A value of parameter `param` for a call: the `n`-th of the call, within the old bounds.
fn value(param: &Param, n: i64) -> (i64, String, String) {
    let day = |n: i64| {
        let day = 1 + n.rem_euclid(28);
        (
            n,
            format!("{day:02}-JAN-26"),
            format!("jiff::civil::date(2026, 1, {day})"),
        )
    };
    let number = |v: i64| (v, v.to_string(), v.to_string());
    match param.ty {
        ParamType::Date => day(n),
        ParamType::Id => number(1000 + n),
        ParamType::Count | ParamType::Integer => {
            let floor = match param.ty {
                ParamType::Integer => i64::MIN,
                _ => 0,
            };
            let low = param.min.unwrap_or(floor).max(floor);
            let high = param.max.unwrap_or(i64::MAX);
            // Negative integers where allowed: a count reading one refuses it.
            let wanted = if param.ty == ParamType::Integer && low < 0 {
                -100 - n
            } else {
                low.saturating_add(n)
            };
            number(wanted.clamp(low, high.max(low)))
        }
    }
}

/// A value at a bound: the same shape as [`value`].
fn at(v: i64) -> (i64, String, String) {
    (v, v.to_string(), v.to_string())
}

/// Every call the simulation makes of `method` with the old crate.
pub fn calls(method: &Method) -> Vec<Call> {
    let alternative = |p: &Param| method.at_least_one_of.iter().any(|a| *a == p.wire_name);
    let required: Vec<usize> = (0..method.params.len())
        .filter(|&i| method.params[i].required && !alternative(&method.params[i]))
        .collect();
    let alternatives: Vec<Option<usize>> = if method.at_least_one_of.is_empty() {
        vec![None]
    } else {
        method
            .at_least_one_of
            .iter()
            .filter_map(|id| method.params.iter().position(|p| p.wire_name == *id))
            .map(Some)
            .collect()
    };
    let setters: Vec<usize> = (0..method.params.len())
        .filter(|&i| !method.params[i].required || alternative(&method.params[i]))
        .collect();
    let mut calls = Vec::new();
    let constructors = alternatives.into_iter().zip(constructor_names(method));
    for (index, (chosen, name)) in constructors.enumerate() {
        let args: Vec<usize> = chosen.into_iter().chain(required.iter().copied()).collect();
        // Only the arguments.
        calls.push(call(method, &name, &args, &[], &[]));
        if index == 0 {
            // Every setter too, each with a value of its own.
            let set: Vec<usize> = setters
                .iter()
                .copied()
                .filter(|s| Some(*s) != chosen)
                .collect();
            calls.push(call(method, &name, &args, &set, &[]));
            // Each bounded parameter at the old bounds.
            for &p in args.iter().chain(&setters) {
                let param = &method.params[p];
                if param.ty == ParamType::Date || param.ty == ParamType::Id {
                    continue;
                }
                for bound in [param.min, param.max].into_iter().flatten() {
                    let set: Vec<usize> = if args.contains(&p) {
                        Vec::new()
                    } else {
                        vec![p]
                    };
                    calls.push(call(method, &name, &args, &set, &[(p, bound)]));
                }
            }
        }
    }
    calls
}

/// A call of `constructor` with `args`, then the setters of `set`, each parameter at its own
/// value but those in `fixed`.
fn call(
    method: &Method,
    constructor: &str,
    args: &[usize],
    set: &[usize],
    fixed: &[(usize, i64)],
) -> Call {
    let mut values = std::collections::BTreeMap::new();
    for (n, &p) in args.iter().chain(set).enumerate() {
        let param = &method.params[p];
        let chosen = match fixed.iter().find(|(f, _)| *f == p) {
            Some((_, v)) => at(*v),
            None => value(param, n as i64 + 1),
        };
        values.insert(p, chosen);
    }
    let rust_of = |p: &usize| {
        values
            .get(p)
            .map_or(String::new(), |(_, _, rust)| rust.clone())
    };
    let arguments: Vec<String> = args.iter().map(rust_of).collect();
    let mut rust = format!("session.{constructor}({})", arguments.join(", "));
    for p in set {
        rust.push_str(&format!(".{}({})", method.params[*p].rust_name, rust_of(p)));
    }
    // The query is written in spec order.
    let query = values
        .iter()
        .map(|(&p, (_, text, _))| (method.params[p].wire_name.clone(), text.clone(), p))
        .collect();
    Call { rust, query }
}

/// What the server of `new` makes of `call`, an old app's call of `old`.
pub fn read(old: &Method, new: &Method, call: &Call) -> Vec<Reading> {
    let counterparts = pairing::params(old, new);
    let index_of = |param: &Param| new.params.iter().position(|p| std::ptr::eq(p, param));
    let mut readings = Vec::new();
    for (wire, text, from) in &call.query {
        let Some((at, param)) = new
            .params
            .iter()
            .enumerate()
            .find(|(_, p)| p.wire_name == *wire)
        else {
            readings.push(Reading::Ignored(*from));
            continue;
        };
        let meant = counterparts.get(*from).copied().flatten();
        if meant.and_then(index_of) != Some(at) {
            readings.push(Reading::Elsewhere(*from, at));
        }
        let number = text.parse::<i64>().ok();
        match (param.ty, number) {
            (ParamType::Date, Some(_))
            | (ParamType::Integer | ParamType::Count | ParamType::Id, None) => {
                readings.push(Reading::Refused(*from, Refused::Format));
            }
            (ParamType::Count | ParamType::Id, Some(n)) if n < 0 => {
                readings.push(Reading::Refused(*from, Refused::Negative));
            }
            (_, Some(n)) if param.min.is_some_and(|min| n < min) => {
                readings.push(Reading::Refused(*from, Refused::BelowMinimum));
            }
            (_, Some(n)) if param.max.is_some_and(|max| n > max) => {
                readings.push(Reading::Capped(*from));
            }
            _ => {}
        }
    }
    let sent = |param: &Param| call.query.iter().any(|(wire, ..)| *wire == param.wire_name);
    for (at, param) in new.params.iter().enumerate() {
        let alternative = new.at_least_one_of.iter().any(|a| *a == param.wire_name);
        if param.required && !alternative && !sent(param) {
            readings.push(Reading::Missing(at));
        }
    }
    if !new.at_least_one_of.is_empty()
        && !new
            .at_least_one_of
            .iter()
            .any(|a| call.query.iter().any(|(wire, ..)| wire == a))
    {
        readings.push(Reading::NoAlternative);
    }
    // Defaults: each new parameter left out, against what its old counterpart defaulted to
    // when the old app left it out too.
    for (old_index, counterpart) in counterparts.iter().enumerate() {
        let (Some(new_param), Some(old_param)) = (counterpart, old.params.get(old_index)) else {
            continue;
        };
        let left_out =
            !sent(new_param) && !call.query.iter().any(|(_, _, from)| *from == old_index);
        if left_out
            && matches!((old_param.default, new_param.default), (Some(a), Some(b)) if a != b)
        {
            if let Some(at) = index_of(new_param) {
                readings.push(Reading::Default(at));
            }
        }
    }
    readings
}
