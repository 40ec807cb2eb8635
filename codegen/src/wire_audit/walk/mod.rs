//! The walk of each recorded answer beside the spec, and what it adds up to.
//!
//! This module walks an answer (its envelope, its error codes) and hands the values to
//! `values` (each value classified against its field's type and encodings), which keeps what
//! it sees in the tallies of `evidence`; `index` looks the spec's items up by name;
//! `findings` turns the tallies into located findings, with the spec edit `proposals` reads
//! from the evidence.

mod evidence;
mod findings;
mod index;
mod proposals;
mod values;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use super::{Coverage, FindingKind, Observation, example};
use crate::diff::wire::Json;
use crate::ir::{Api, Encoding, Field, Record};
use evidence::{Key, Seen, Subject, Tally, Unknown};
use index::Index;

/// The walk over every answer, and what it has kept so far.
pub(super) struct Walker<'a> {
    api: &'a Api,
    index: Index<'a>,
    tallies: BTreeMap<Key, Tally>,
    seen: BTreeMap<(String, String, String), Seen>,
    /// The encodings each value of a field matched, per method (one set per distinct set).
    spellings: BTreeMap<(String, String, String), Vec<Vec<Encoding>>>,
    /// Whether some value of a field did not fit its type, and whether numbers came.
    misfits: BTreeMap<(String, String), (bool, bool)>,
    unknown: BTreeMap<(String, String), Unknown>,
    /// Objects of each record seen, over all methods.
    objects: BTreeMap<String, usize>,
    coverage: Coverage,
    recorded: BTreeSet<String>,
}

/// The answer being walked: its method, and the recording line it came from.
#[derive(Clone, Copy)]
struct Answer<'o> {
    method: &'o str,
    source: &'o str,
}

/// Where a value is: the answer, the record whose object holds it, the field it is the value
/// of (`None` for a list element, or for the object itself), and its JSON path.
#[derive(Clone, Copy)]
struct Place<'p> {
    answer: Answer<'p>,
    record: &'p Record,
    field: Option<&'p Field>,
    path: &'p str,
}

impl Place<'_> {
    /// What a problem of the value is about: its field, else its record.
    fn subject(&self) -> Subject {
        match self.field {
            Some(field) => Subject::Field {
                record: self.record.name.clone(),
                field: field.wire_name.clone(),
            },
            None => Subject::Record {
                record: self.record.name.clone(),
                key: String::new(),
            },
        }
    }

    /// The tally key of a finding of `kind` about `subject`, here.
    fn key(&self, kind: FindingKind, subject: Subject) -> Key {
        Key {
            kind,
            subject,
            method: self.answer.method.to_owned(),
            path: self.path.to_owned(),
        }
    }
}

impl<'a> Walker<'a> {
    pub(super) fn new(api: &'a Api) -> Self {
        Walker {
            api,
            index: Index::new(api),
            tallies: BTreeMap::new(),
            seen: BTreeMap::new(),
            spellings: BTreeMap::new(),
            misfits: BTreeMap::new(),
            unknown: BTreeMap::new(),
            objects: BTreeMap::new(),
            coverage: Coverage::default(),
            recorded: BTreeSet::new(),
        }
    }

    fn tally(&mut self, key: Key, json: Option<&Json>, source: &str, message: String) {
        let tally = self.tallies.entry(key).or_insert_with(|| Tally {
            count: 0,
            example: json.map(example),
            source: source.to_owned(),
            message,
        });
        tally.count += 1;
    }

    pub(super) fn observe(&mut self, observation: &Observation) {
        let api = self.api;
        let method_name = observation.method.as_str();
        let answer = Answer {
            method: method_name,
            source: &observation.source,
        };
        let success = (200..300).contains(&observation.status) && observation.failure.is_none();
        let method = self.index.methods.get(method_name).copied();
        // The OAuth endpoints' answers are judged against a spec that describes them; for
        // any other, they are of methods it does not have.
        if method_name.starts_with("oauth/") && api.oauth.is_some() {
            if success {
                self.coverage.skipped += 1;
            } else {
                self.recorded.insert(method_name.to_owned());
                self.error(observation, answer, None);
            }
            return;
        }
        let Some(method) = method else {
            *self
                .coverage
                .unknown_methods
                .entry(method_name.to_owned())
                .or_default() += 1;
            return;
        };
        self.recorded.insert(method.name.clone());
        if !success {
            let declared = self.index.method_errors.get(method.name.as_str()).cloned();
            self.error(observation, answer, Some(declared.unwrap_or_default()));
            return;
        }
        self.coverage.answers += 1;
        let subject = Subject::Method {
            method: method.name.clone(),
        };
        let envelope = |path: &str| Key {
            kind: FindingKind::EnvelopeMismatch,
            subject: subject.clone(),
            method: method.name.clone(),
            path: path.to_owned(),
        };
        let body = observation.body.as_ref().map(Json::from_value);
        let Some(Json::Object(entries)) = &body else {
            let message = "the answer is not a JSON object: the client cannot read it".to_owned();
            self.tally(envelope("(body)"), body.as_ref(), answer.source, message);
            return;
        };
        let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        match get("api") {
            Some(Json::Str(api_name)) if *api_name == method.delivered_api => {}
            other => {
                let message = format!(
                    "the envelope's api is {}; the spec says {:?}",
                    other.map_or("missing".to_owned(), Json::to_text),
                    method.delivered_api
                );
                self.tally(envelope("api"), other, answer.source, message);
            }
        }
        if let Some(info) = &api.info {
            let version = info.api_version.to_string();
            match get("apiVersion") {
                Some(Json::Number(text)) if *text == version => {}
                other => {
                    let message = format!(
                        "the envelope's apiVersion is {}; the spec says {version}",
                        other.map_or("missing".to_owned(), Json::to_text)
                    );
                    self.tally(envelope("apiVersion"), other, answer.source, message);
                }
            }
        }
        match get("data") {
            Some(data) => {
                if let Some(record) = self.index.records.get(method.response.as_str()).copied() {
                    let place = Place {
                        answer,
                        record,
                        field: None,
                        path: "data",
                    };
                    self.record(place, data);
                }
            }
            None => {
                let message = "the envelope has no data".to_owned();
                self.tally(envelope("data"), None, answer.source, message);
            }
        }
    }

    /// An error answer: every code it lists must be declared for the method (`declared`:
    /// the method's list; `None` for an OAuth endpoint, which any declared code may answer).
    fn error(
        &mut self,
        observation: &Observation,
        answer: Answer<'_>,
        declared: Option<Rc<HashSet<&str>>>,
    ) {
        self.coverage.errors += 1;
        let method = answer.method.to_owned();
        let failure = observation.failure.clone().unwrap_or_default();
        if failure.codes.is_empty() {
            let rcode = failure
                .rcode
                .map_or(String::new(), |rcode| format!(" and rcode {rcode}"));
            let message = format!(
                "HTTP {}{rcode}, and no error code can be read from the body in any shape",
                observation.status
            );
            let key = Key {
                kind: FindingKind::UnreadableError,
                subject: Subject::Method {
                    method: method.clone(),
                },
                method,
                path: "(body)".to_owned(),
            };
            let body = observation.body.as_ref().map(Json::from_value);
            self.tally(key, body.as_ref(), answer.source, message);
            return;
        }
        for code in &failure.codes {
            let known = self.index.errors.contains(code.as_str());
            let listed = match &declared {
                Some(list) => list.contains(code.as_str()),
                None => known,
            };
            if listed {
                continue;
            }
            let message = if known {
                format!("{code} is declared, but not among {method}'s errors")
            } else {
                format!("{method} answered {code}, which is not a declared error code")
            };
            let key = Key {
                kind: FindingKind::UndeclaredError,
                subject: Subject::Error {
                    method: method.clone(),
                    code: code.clone(),
                },
                method: method.clone(),
                path: format!("HTTP {}", observation.status),
            };
            self.tally(key, Some(&Json::Str(code.clone())), answer.source, message);
        }
    }
}
