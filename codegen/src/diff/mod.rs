//! What a spec change does, for reviewers: every difference between two resolved specs as a
//! [`Change`] with a stable rule id (see [`RULES`]) and two verdicts, for the wire (would an
//! existing app break against the server as the new spec describes it?) and for the generated
//! Rust API (is it a semver-major change of the crate?).
//!
//! Rules name and explain; the simulation decides. Each rule (one file in `rules/`, after
//! oasdiff's `check_*`) finds one kind of difference and says which part of the wire and which
//! public Rust items it touches. Its verdicts are what the context finds when it runs the old
//! crate's behaviour, as the IR describes it, against what the new spec's server does, on
//! witnesses generated from the new IR, and a breaking verdict carries its [`Witness`]:
//! - answers ([`answer`]): objects with a value of its own in every field, decoded as the old
//!   crate decodes them ([`decode`]) and compared path by path with what the server means
//!   ([`reading`], through [`pairing`]): a value that lands elsewhere, is lost, is read
//!   otherwise or is refused;
//! - requests ([`request`]): every old call, read by the new server's rules;
//! - paging ([`paging`]): an old app's page stream walked against the new server's pages;
//! - the runtime ([`runtime`] and the `service-changed` rule): the old runtime's code-keyed
//!   behaviour and constants against the new server's;
//! - the Rust API ([`rust_api`], [`identity`]): the public items of both generated crates,
//!   read with `syn` (a use of an old item that no longer compiles), and the wire thing each
//!   public path denotes on each side (a path that now denotes what another path did).
//!
//! [`properties::PROPERTIES`] classifies every property of the IR by what consumes it, with the
//! rules that judge it; its test changes each one both ways and holds the diff to reporting it.
//!
//! `xtask/tests/spec_diff_oracle.rs` runs every witness through the real crates, for every
//! fixture pair and for random compositions of edits of the real spec ([`compose`]).

pub mod answer;
pub mod compose;
mod context;
pub mod decode;
pub mod identity;
mod json;
pub mod paging;
pub mod pairing;
pub mod properties;
pub mod reading;
pub mod request;
mod rules;
pub mod runtime;
pub mod rust_api;
pub mod wire;
pub mod witness;
mod words;

use serde::Serialize;

use crate::emit::{EmitError, generate};
use crate::ir::Api;
use crate::items::Items;
use crate::spec_source::SpecSource;
use context::Context;
pub use witness::Witness;

/// How loud a change is in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Breaks someone.
    Error,
    /// Changes behaviour without breaking a build or a decode.
    Warning,
    /// Worth knowing.
    Info,
}

/// Whether a change breaks users of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Existing users break.
    Breaking,
    /// Existing users keep working.
    NonBreaking,
}

impl Impact {
    fn when(breaking: bool) -> Impact {
        if breaking {
            Impact::Breaking
        } else {
            Impact::NonBreaking
        }
    }
}

/// A kind of change.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rule {
    /// Stable id, used in reports, JSON and CI configuration.
    pub id: &'static str,
    /// What it detects.
    pub summary: &'static str,
}

/// The ids of the rules, as constants.
pub mod rule {
    pub use super::rules::ids::*;
}

/// Every rule, in report order.
pub const RULES: &[Rule] = rules::ALL;

/// A spec side of the comparison: the resolved API and the files it came from (for locations).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The resolved API.
    pub api: &'a Api,
    /// Its spec files.
    pub sources: &'a [SpecSource],
}

/// A position in a spec file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file, e.g. `spec/pay.yaml`.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// Which part of the wire a change's verdict is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surface {
    /// Responses: what the old decoders make of what the new server sends.
    Response,
    /// Requests: what the new server makes of what old apps send.
    Request,
    /// Page streams: whether an old app's stream still gets every item.
    Paging,
    /// The runtime around the data calls: the OAuth flow (its endpoints and answers), token
    /// expiry, HTTPS and clock correction, as the old crate runs them against the new server.
    Runtime,
    /// Nothing on the wire (Rust names, documentation).
    None,
}

/// One difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The rule id (see [`RULES`]).
    pub rule: &'static str,
    /// How loud it is.
    pub level: Level,
    /// Would an existing app break against the server?
    pub wire: Impact,
    /// Is it a semver-major change of the generated crate?
    pub rust: Impact,
    /// Which part of the wire the `wire` verdict is about.
    pub surface: Surface,
    /// What changed, as a spec path, e.g. `types.Timesheet.fields.rate`.
    pub subject: String,
    /// A sentence for reviewers.
    pub message: String,
    /// Where it is in the base spec.
    pub base: Option<Location>,
    /// Where it is in the head spec.
    pub head: Option<Location>,
    /// The public Rust items of the base crate that the change breaks (item keys of
    /// [`rust_api::RustApi`], shown tidy: `Request<GetTimesheet>::id()`); empty when the Rust
    /// verdict is non-breaking.
    #[serde(serialize_with = "rust_api::serialize_tidy_all")]
    pub broken_items: Vec<String>,
    /// What shows the wire verdict: present exactly when it is breaking.
    pub wire_witness: Option<Witness>,
    /// What shows the Rust verdict (for the first broken item): present exactly when it is
    /// breaking.
    pub rust_witness: Option<Witness>,
}

/// What [`diff`] found, and what it compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// Every change, rule by rule in [`RULES`] order, each rule in spec order.
    pub changes: Vec<Change>,
    /// The items of the base spec.
    pub base: Items,
    /// The items of the head spec.
    pub head: Items,
    /// The witnesses the simulation ran: answers decoded, values of a field judged, calls
    /// read, page streams walked, clock codes tried.
    pub witnesses: usize,
    /// The public Rust items of the head crate that the base crate does not have (item keys
    /// of [`rust_api::RustApi`]): what the release adds to the API, whichever rule found the
    /// change (a setter of a new optional parameter, the `Other` variant of an opened enum, the
    /// `Page` impl of a method that now pages).
    pub rust_added: Vec<String>,
}

impl Diff {
    /// The items compared: those of either side, by name. Nothing when a side describes
    /// nothing: there is nothing to compare the other side with.
    pub fn compared(&self) -> Items {
        if self.base.is_empty() || self.head.is_empty() {
            return Items::default();
        }
        self.base.union(&self.head)
    }
}

/// Every change from `base` to `head`, rule by rule in [`RULES`] order, each rule in spec
/// order, with the items of each side and how many witnesses the simulation ran. Generates
/// both crates in memory for the Rust model; fails only when the generator emits invalid Rust
/// (a generator bug).
pub fn diff(base: Side<'_>, head: Side<'_>) -> Result<Diff, EmitError> {
    let base_rust = rust_api::RustApi::from_files(&generate(base.api)?)?;
    let head_rust = rust_api::RustApi::from_files(&generate(head.api)?)?;
    let mut cx = Context::new(base, head, &base_rust, &head_rust);
    for (_, check) in rules::CHECKS {
        check(&mut cx);
    }
    let rust_added = head_rust
        .items
        .keys()
        .filter(|key| !base_rust.items.contains_key(*key))
        .cloned()
        .collect();
    Ok(Diff {
        rust_added,
        witnesses: cx.witnesses(),
        changes: cx.into_changes(),
        base: Items::of(base.api),
        head: Items::of(head.api),
    })
}
