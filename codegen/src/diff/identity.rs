//! The identity map of the Rust API: every public Rust path of a generated crate (a type's
//! field and its builder's setter, a request's setter, a constructor's argument by position, a
//! variant, an `ErrorCode` variant, a page's getters, a request type's method) mapped to the
//! wire thing it denotes. A path of both crates that denotes, in the new crate, what another
//! path denoted in the old one reads or sends another thing though every caller compiles: a
//! semver-major change that no compiler reports. A path whose wire thing was only renamed (no
//! other path of the old crate denoted the new one) keeps its meaning. Argument names are not
//! part of the Rust API: only positions are.
//!
//! Keys are those of [`super::rust_api::RustApi`].

use std::collections::{BTreeMap, HashMap};

use super::witness::Witness;
use crate::ir::{Api, Method};
use crate::naming::{constructor_names, request_type_name};

/// The wire thing a Rust path denotes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Thing {
    /// A field of a record, by the record (named as the new spec names it) and its wire name.
    Field(String, String),
    /// A parameter of a method, by the method (named as the new spec names it) and its wire
    /// name.
    Param(String, String),
    /// An enum value, by the enum (named as the new spec names it) and its spelling.
    Value(String, String),
    /// An error code.
    Code(String),
    /// A data method (named as the new spec names it).
    Method(String),
}

impl Thing {
    fn words(&self) -> String {
        match self {
            Thing::Field(_, wire) => format!("the field \"{wire}\""),
            Thing::Param(_, wire) => format!("the parameter {wire}"),
            Thing::Value(_, wire) => format!("the value \"{wire}\""),
            Thing::Code(code) => format!("the error code {code}"),
            Thing::Method(method) => format!("the method {method}"),
        }
    }
}

/// What each Rust path of one crate denotes: a path may denote several things (a constructor,
/// its arguments by position), each under a label (`argument 1`).
struct Map {
    things: BTreeMap<String, Vec<(String, Thing)>>,
    /// Each thing's paths (with labels).
    paths: HashMap<Thing, Vec<(String, String)>>,
}

impl Map {
    fn new() -> Map {
        Map {
            things: BTreeMap::new(),
            paths: HashMap::new(),
        }
    }

    fn add(&mut self, key: String, label: &str, thing: Thing) {
        self.paths
            .entry(thing.clone())
            .or_default()
            .push((key.clone(), label.to_owned()));
        self.things
            .entry(key)
            .or_default()
            .push((label.to_owned(), thing));
    }

    /// The identity map of `api`, its records, enums and methods named by `name` (the new
    /// spec's names of renamed items).
    fn of(api: &Api, record: &dyn Fn(&str) -> String, method: &dyn Fn(&str) -> String) -> Map {
        let mut map = Map::new();
        for r in api.records.iter().filter(|r| !r.opaque) {
            let named = record(&r.name);
            for f in &r.fields {
                let thing = Thing::Field(named.clone(), f.wire_name.clone());
                map.add(format!("{}.{}", r.name, f.rust_name), "", thing.clone());
                map.add(format!("{}Builder::{}()", r.name, f.rust_name), "", thing);
            }
        }
        for e in &api.enums {
            let named = record(&e.name);
            for v in &e.values {
                map.add(
                    format!("{}::{}", e.name, v.variant),
                    "",
                    Thing::Value(named.clone(), v.wire.clone()),
                );
            }
        }
        for code in &api.errors {
            map.add(
                format!("ErrorCode::{}", code.variant),
                "",
                Thing::Code(code.code.clone()),
            );
        }
        for m in &api.methods {
            map.method(m, &method(&m.name), record);
        }
        map
    }

    fn method(&mut self, m: &Method, named: &str, record: &dyn Fn(&str) -> String) {
        let param = |wire: &str| Thing::Param(named.to_owned(), wire.to_owned());
        let request = request_type_name(m);
        self.add(
            format!("impl DataMethod for {request}"),
            "",
            Thing::Method(named.to_owned()),
        );
        let required: Vec<&crate::ir::Param> = m
            .params
            .iter()
            .filter(|p| p.required && !m.at_least_one_of.iter().any(|a| *a == p.wire_name))
            .collect();
        let alternatives: Vec<Option<&crate::ir::Param>> = if m.at_least_one_of.is_empty() {
            vec![None]
        } else {
            m.at_least_one_of
                .iter()
                .filter_map(|id| m.params.iter().find(|p| p.wire_name == *id))
                .map(Some)
                .collect()
        };
        for (alternative, name) in alternatives.into_iter().zip(constructor_names(m)) {
            let key = format!("Session::{name}()");
            self.add(key.clone(), "", Thing::Method(named.to_owned()));
            for (position, p) in alternative
                .into_iter()
                .chain(required.iter().copied())
                .enumerate()
            {
                self.add(
                    key.clone(),
                    &format!("argument {}", position + 1),
                    param(&p.wire_name),
                );
            }
        }
        for p in m
            .params
            .iter()
            .filter(|p| !p.required || m.at_least_one_of.iter().any(|a| *a == p.wire_name))
        {
            self.add(
                format!("Request < {request} >::{}()", p.rust_name),
                "",
                param(&p.wire_name),
            );
        }
        if let Some(paging) = &m.paging {
            let response = record(m.response.as_str());
            let key = format!("impl Page for {}", m.response);
            self.add(
                key.clone(),
                "items()",
                Thing::Field(response.clone(), paging.items.to_string()),
            );
            if let Some(total) = &paging.total_pages {
                self.add(
                    key,
                    "total_pages()",
                    Thing::Field(response, total.to_string()),
                );
            }
        }
    }
}

/// Per Rust path of the old crate that denotes, in the new crate, what another path of the
/// old crate denoted: the witness. `record` names a record or enum of the old spec as the new
/// one does (renames followed), `method` a method.
pub fn meaning_changes(
    base: &Api,
    head: &Api,
    record: &dyn Fn(&str) -> String,
    method: &dyn Fn(&str) -> String,
) -> BTreeMap<String, Witness> {
    let same = |name: &str| name.to_owned();
    let old = Map::of(base, record, method);
    let new = Map::of(head, &same, &same);
    let mut changes = BTreeMap::new();
    for (key, old_things) in &old.things {
        let Some(new_things) = new.things.get(key) else {
            continue;
        };
        for (label, now) in new_things {
            let Some((_, was)) = old_things.iter().find(|(l, _)| l == label) else {
                continue;
            };
            if was == now {
                continue;
            }
            // The path now denotes what another path of the old crate denoted.
            let Some((other, other_label)) = old
                .paths
                .get(now)
                .and_then(|paths| paths.iter().find(|(k, l)| k != key || l != label))
            else {
                continue;
            };
            let at = |key: &str, label: &str| {
                if label.is_empty() {
                    format!("`{key}`")
                } else {
                    format!("{label} of `{key}`")
                }
            };
            changes
                .entry(key.clone())
                .or_insert_with(|| Witness::Meaning {
                    item: key.clone(),
                    finding: format!(
                        "{} is {} in the old crate and {} in the new one, which {} was in the \
                         old crate: an unchanged caller compiles and reads or sends another thing",
                        at(key, label),
                        was.words(),
                        now.words(),
                        at(other, other_label)
                    ),
                });
        }
    }
    changes
}
