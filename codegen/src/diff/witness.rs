//! What a breaking verdict shows: the concrete input on which the old crate, run against the
//! server the new spec describes (or compiled against the new crate), does something else.
//!
//! A verdict is the outcome of running the base crate's behaviour, as the IR describes it, on
//! witnesses generated from the head spec: a breaking verdict is a witness the simulation
//! found, and a change for which it finds none breaks nobody. [`super::Change`] is built only
//! by the context's `push`, which takes the witness for the wire and finds one for every
//! Rust item it says is broken, so a breaking verdict without its witness cannot be built.

use serde::Serialize;

/// One witness of a breaking verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Witness {
    /// An answer of the new server that an old app misreads: its decoders refuse it, or a
    /// value lands at another Rust path than the one the server means it for, or is lost.
    Answer {
        /// The data method whose answer holds it.
        method: String,
        /// The record the JSON object is (the answer's `data`, or a record inside it), as the
        /// old crate names it.
        record: String,
        /// The JSON object, as the new server sends it.
        json: String,
        /// The object as the report shows it: whole when short, else its own fields with the
        /// objects and lists inside them shown as `{…}` and `[…]`.
        shown: String,
        /// What the old decoders make of it.
        finding: String,
    },
    /// A call of the old crate that the new server takes otherwise: refused, a value ignored
    /// or read as another parameter, a default that differs.
    Request {
        /// The data method.
        method: String,
        /// The call, as an old app writes it.
        call: String,
        /// The query the old crate sends for it.
        query: String,
        /// What the new server makes of it.
        finding: String,
    },
    /// An old app's page stream, walked by the old crate's rules against the new server's
    /// pages.
    Paging {
        /// The data method.
        method: String,
        /// The pages asked for and what came back.
        walk: String,
        /// What the stream misses or does wrong.
        finding: String,
    },
    /// The old runtime (OAuth flow, token expiry, HTTPS, clock correction, the data path)
    /// against the new server.
    Runtime {
        /// What the old runtime does and what the new server does with it.
        finding: String,
    },
    /// A use of an item of the old crate that no longer compiles against the new one.
    Caller {
        /// The item (a key of [`super::rust_api::RustApi`], shown tidy).
        #[serde(serialize_with = "super::rust_api::serialize_tidy")]
        item: String,
        /// The code, written against the old crate.
        code: String,
    },
    /// A public Rust path of both crates that denotes another thing in the new one, or
    /// behaves otherwise for the same call: an unchanged caller compiles and reads or sends
    /// something else, or fails where it worked.
    Meaning {
        /// The item (a key of [`super::rust_api::RustApi`], shown tidy).
        #[serde(serialize_with = "super::rust_api::serialize_tidy")]
        item: String,
        /// What it denoted and what it denotes.
        finding: String,
    },
    /// No witness: the simulation built all it may for one diff (a hostile spec) before it
    /// could run this change's. The one breaking verdict without a witness, judged so unseen
    /// rather than let a spec hide a break behind its size; the message says so.
    Unsimulated {
        /// The budget, in bytes.
        budget: usize,
    },
}

impl Witness {
    /// The witness in one sentence, with its data (the answer, the query, the code).
    pub fn sentence(&self) -> String {
        match self {
            Witness::Answer {
                method,
                record,
                finding,
                shown,
                ..
            } => format!("{finding}, in this {record} of a {method} answer: {shown}"),
            Witness::Request {
                call,
                query,
                finding,
                ..
            } => format!("`{call}` sends `{query}`: {finding}"),
            Witness::Paging { walk, finding, .. } => format!("{walk}: {finding}"),
            Witness::Runtime { finding } => finding.clone(),
            Witness::Caller { code, .. } => format!("`{code}` no longer compiles"),
            Witness::Meaning { finding, .. } => finding.clone(),
            Witness::Unsimulated { budget } => format!(
                "no witness: the simulation stopped at its budget of {budget} bytes before it \
                 could run this change's"
            ),
        }
    }
}
