//! `cargo xtask wire-audit`: recorded traffic checked against the spec, and the spec edits the
//! evidence proposes.
//!
//! Each recorded answer of a data method is walked beside the spec's description of it, with
//! the spec's own vocabulary: a value is classified into the encodings of the encoding table
//! whose spelling it is ([`encodings_of`](crate::diff::wire::encodings_of)), and whether its type
//! can hold it is asked of the wire model ([`scalar_fits`](crate::diff::wire::scalar_fits), what the runtime's lenient decoders take). What does
//! not agree becomes a [`Finding`] of one [`FindingKind`], aggregated over every exchange (the
//! JSON path with `*` for collection items, how many times, one example), located in the spec,
//! and, where the evidence says what the spec should say, carrying a [`Proposal`]: a spec edit
//! that [`propose`] writes into a copy of the spec files, as text edits keeping their
//! formatting, for `spec-diff` to judge.
//!
//! Error answers are read by the client's rules (the caller hands over what
//! `marketplace_client::ApiFailure::parse` reads, as [`Failure`]): their codes must be declared
//! for the method.

mod propose;
mod walk;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::SpecSource;
use crate::audit::SpecPlace;
use crate::diff::wire::Json;
use crate::ir::Api;
use crate::ir::JsonKind;
use crate::location::SourceIndexes;
use crate::text::Untrusted;

pub use propose::{Proposed, propose};

/// What kind of disagreement a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// A key the spec's record does not declare.
    UnknownField,
    /// A field the spec says is sent, missing from some answers.
    MissingField,
    /// A declared field no recorded answer of a method that delivers it contained.
    NeverSeen,
    /// A value in an encoding the spec does not declare for the field in that method, or of a
    /// form its type cannot hold.
    UndeclaredEncoding,
    /// An enum value the spec does not list.
    UnlistedEnumValue,
    /// `null` where the spec does not say `nullable`.
    UnexpectedNull,
    /// An empty string where the spec's type has no empty value.
    UnexpectedEmpty,
    /// An error code the spec does not declare for the method.
    UndeclaredError,
    /// An error answer (status or `rcode`) from which no code can be read in any shape.
    UnreadableError,
    /// An envelope that is not the spec's: not a JSON object with `data`, or an `api` or
    /// `apiVersion` other than the spec's.
    EnvelopeMismatch,
}

impl FindingKind {
    /// Every kind, in the order reports count them.
    pub const ALL: [FindingKind; 10] = [
        FindingKind::UnknownField,
        FindingKind::MissingField,
        FindingKind::NeverSeen,
        FindingKind::UndeclaredEncoding,
        FindingKind::UnlistedEnumValue,
        FindingKind::UnexpectedNull,
        FindingKind::UnexpectedEmpty,
        FindingKind::UndeclaredError,
        FindingKind::UnreadableError,
        FindingKind::EnvelopeMismatch,
    ];

    /// The stable id, as printed.
    pub fn id(self) -> &'static str {
        match self {
            FindingKind::UnknownField => "unknown-field",
            FindingKind::MissingField => "missing-field",
            FindingKind::NeverSeen => "never-seen",
            FindingKind::UndeclaredEncoding => "undeclared-encoding",
            FindingKind::UnlistedEnumValue => "unlisted-enum-value",
            FindingKind::UnexpectedNull => "unexpected-null",
            FindingKind::UnexpectedEmpty => "unexpected-empty",
            FindingKind::UndeclaredError => "undeclared-error",
            FindingKind::UnreadableError => "unreadable-error",
            FindingKind::EnvelopeMismatch => "envelope-mismatch",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What an error answer says, as the client reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failure {
    /// Every code it lists, in order.
    pub codes: Vec<String>,
    /// The envelope's `rcode`, if any.
    pub rcode: Option<i64>,
}

/// One recorded answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// Where it was recorded (`recordings/a.jsonl:12`), for the report's examples.
    pub source: String,
    /// The API method: a data method's name, or `oauth/…` for an OAuth endpoint.
    pub method: String,
    /// The HTTP status.
    pub status: u16,
    /// The body, parsed, when it is JSON.
    pub body: Option<serde_json::Value>,
    /// What the body says went wrong, read by the client's rules (`None`: not an error).
    pub failure: Option<Failure>,
}

/// A spec edit the evidence proposes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Proposal {
    /// Add a field to a record.
    AddField {
        /// The record.
        record: String,
        /// The wire name.
        field: String,
        /// Its keys (`type`, `encoding`, `optional`, `nullable`, `doc`), in order.
        keys: Vec<(String, String)>,
    },
    /// Set keys of a field (`encoding`, `nullable`, `optional`, `absent_in`, `type`), and
    /// remove the keys they replace.
    EditField {
        /// The record.
        record: String,
        /// The wire name.
        field: String,
        /// The keys set, with their values.
        set: Vec<(String, ProposedValue)>,
        /// Keys removed (`only_in` when `optional` replaces it, …).
        remove: Vec<String>,
    },
    /// Add a value to an enum.
    AddEnumValue {
        /// The enum.
        enumeration: String,
        /// The wire value.
        value: String,
    },
    /// Add an error code to a method's `errors`, declaring the code when the spec does not.
    AddMethodError {
        /// The method (`oauth/…` endpoints have no list: the code is only declared).
        method: String,
        /// The code.
        code: String,
        /// Whether the spec does not declare the code at all.
        declare: bool,
    },
    /// Set a method's key (`delivered_api`).
    SetMethodKey {
        /// The method.
        method: String,
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
}

/// A value of a [`Proposal::EditField`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProposedValue {
    /// A name or a sentence.
    Text(String),
    /// `true`.
    True,
    /// A list of names.
    List(Vec<String>),
    /// One encoding per method.
    PerMethod(Vec<(String, String)>),
}

impl fmt::Display for ProposedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProposedValue::Text(text) => write!(f, "{text}"),
            ProposedValue::True => f.write_str("true"),
            ProposedValue::List(items) => write!(f, "[{}]", items.join(", ")),
            ProposedValue::PerMethod(entries) => {
                let entries: Vec<String> =
                    entries.iter().map(|(m, e)| format!("{m}: {e}")).collect();
                write!(f, "{{{}}}", entries.join(", "))
            }
        }
    }
}

impl fmt::Display for Proposal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proposal::AddField {
                record,
                field,
                keys,
            } => {
                let keys: Vec<String> = keys
                    .iter()
                    .filter(|(key, _)| key != "doc")
                    .map(|(key, value)| format!("{key}: {value}"))
                    .collect();
                write!(
                    f,
                    "add types.{record}.fields.{field} {{{}}}",
                    keys.join(", ")
                )
            }
            Proposal::EditField {
                record,
                field,
                set,
                remove,
            } => {
                let set: Vec<String> = set
                    .iter()
                    .map(|(key, value)| format!("{key}: {value}"))
                    .collect();
                write!(f, "types.{record}.fields.{field}: {}", set.join(", "))?;
                if !remove.is_empty() {
                    write!(f, " (removing {})", remove.join(", "))?;
                }
                Ok(())
            }
            Proposal::AddEnumValue { enumeration, value } => {
                write!(f, "add {value:?} to enums.{enumeration}.values")
            }
            Proposal::AddMethodError {
                method,
                code,
                declare,
            } => {
                if *declare {
                    write!(f, "declare errors.{code}; ")?;
                }
                if method.starts_with("oauth/") {
                    write!(f, "{code} answers the OAuth endpoints")
                } else {
                    write!(f, "add {code} to methods.{method}.errors")
                }
            }
            Proposal::SetMethodKey { method, key, value } => {
                write!(f, "methods.{method}: {key}: {value}")
            }
        }
    }
}

/// One disagreement between the recorded traffic and the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What kind.
    pub kind: FindingKind,
    /// Where in the spec (the field, enum, method or error code).
    pub spec: SpecPlace,
    /// The method whose answers show it.
    pub method: String,
    /// Where in the answers, with `*` for collection items (`data.timesheets.*.rate`).
    pub json_path: String,
    /// How many times it was seen.
    pub count: usize,
    /// One value seen there, as JSON text, shortened (recordings hold no secret).
    pub example: Option<String>,
    /// The recording line of the example.
    pub example_source: String,
    /// What is wrong, in words.
    pub message: String,
    /// The spec edit the evidence proposes, if it says what the spec should say.
    pub proposal: Option<Proposal>,
}

/// `spec/pay.yaml:71:9: undeclared-encoding: types.Timesheet.fields.rate: … [proposed: …]`
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Untrusted(&self.spec.file))?;
        if let Some(at) = self.spec.location {
            write!(f, ":{}:{}", at.line, at.column)?;
        }
        let (path, message) = (Untrusted(&self.spec.path), Untrusted(&self.message));
        write!(f, ": {}: {path}: {message}", self.kind)?;
        let times = if self.count == 1 { "once" } else { "times" };
        let json_path = Untrusted(&self.json_path);
        if self.count == 1 {
            write!(f, " ({json_path} {times}")?;
        } else {
            write!(f, " ({json_path} {} {times}", self.count)?;
        }
        let source = Untrusted(&self.example_source);
        if let Some(example) = &self.example {
            write!(f, ", e.g. {} at {source}", Untrusted(example))?;
        } else if !self.example_source.is_empty() {
            write!(f, ", e.g. {source}")?;
        }
        f.write_str(")")?;
        match &self.proposal {
            Some(proposal) => write!(f, " [proposed: {}]", Untrusted(proposal)),
            None => Ok(()),
        }
    }
}

/// What the recordings held, for the report's closing lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Answers audited: data methods' successes.
    pub answers: usize,
    /// Error answers audited (data methods and OAuth endpoints).
    pub errors: usize,
    /// Answers of methods the spec does not have, by method (a finding of their own would
    /// have nothing in the spec to point at); the OAuth endpoints' too when the spec has no
    /// `oauth`.
    pub unknown_methods: BTreeMap<String, usize>,
    /// Exchanges skipped: successful OAuth endpoint answers (form pairs, no spec record).
    pub skipped: usize,
    /// How many methods (OAuth endpoints included) had an answer audited.
    pub methods: usize,
    /// The spec's data methods no recording answered.
    pub unrecorded_methods: Vec<String>,
}

/// The audit of a set of recordings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// The findings, in spec file and line order.
    pub findings: Vec<Finding>,
    /// What was audited.
    pub coverage: Coverage,
}

/// Audits `observations` against the resolved `api` (loaded from `sources`, in the same order).
pub fn audit(api: &Api, sources: &[SpecSource], observations: &[Observation]) -> Audit {
    let mut walker = walk::Walker::new(api);
    for observation in observations {
        walker.observe(observation);
    }
    let (mut findings, coverage) = walker.finish(&SourceIndexes::new(sources), sources);
    let mut files: HashMap<&str, usize> = HashMap::new();
    for (at, source) in sources.iter().enumerate() {
        files.entry(source.path.as_str()).or_insert(at);
    }
    findings.sort_by_cached_key(|f| {
        (
            files.get(f.spec.file.as_str()).copied(),
            f.spec.location.map(|at| (at.line, at.column)),
            f.kind,
            f.method.clone(),
            f.json_path.clone(),
        )
    });
    Audit { findings, coverage }
}

/// A value as a report shows it: its JSON text, at most 60 characters.
fn example(json: &Json) -> String {
    let text = json.to_text();
    if text.chars().count() <= 60 {
        return text;
    }
    let cut: String = text.chars().take(57).collect();
    format!("{cut}…")
}

/// The JSON kind of a value in words (`a JSON string`; `nothing` for an absent key).
fn json_words(json: &Json) -> &'static str {
    json.kind().map_or("nothing", JsonKind::words)
}
