//! The walk of each recorded answer beside the spec, and what it adds up to.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use super::{
    Coverage, Finding, FindingKind, Observation, Proposal, ProposedValue, example, json_words,
};
use crate::SpecSource;
use crate::audit::SpecPlace;
use crate::diff::wire::{Json, encodings_of, scalar_fits};
use crate::ir::{
    self, Api, Encoding, Field, FieldEncoding, Kind, Presence, Record, Scalar, TypeRef,
};
use crate::location::SourceIndexes;

/// What a finding is about in the spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Subject {
    /// A field of a record.
    Field { record: String, field: String },
    /// A record itself (a key it does not declare).
    Record { record: String, key: String },
    /// A value of an enum.
    EnumValue { enumeration: String, value: String },
    /// A method (its envelope, its error list).
    Method { method: String },
    /// An error code, for a method.
    Error { method: String, code: String },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    kind: FindingKind,
    subject: Subject,
    method: String,
    path: String,
}

#[derive(Clone, Debug)]
struct Tally {
    count: usize,
    example: Option<String>,
    source: String,
    message: String,
}

/// Where a field was expected and found, per method.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// Objects of the record in this method's answers.
    objects: usize,
    /// Of them, those with the field.
    present: usize,
    /// The JSON path of the record's objects.
    path: String,
    /// A recording line of an object without the field.
    missing_at: Option<String>,
}

/// A key the spec does not declare, over every object of its record.
#[derive(Clone, Debug, Default)]
struct Unknown {
    /// Objects of the record that held the key.
    seen: usize,
    kinds: BTreeSet<&'static str>,
    fraction: bool,
    null: bool,
    collection: Option<bool>,
    elements: BTreeSet<&'static str>,
    methods: BTreeSet<String>,
}

/// The spec's items by name, looked up once per value of the recordings rather than searched.
struct Index<'a> {
    records: HashMap<&'a str, &'a Record>,
    enums: HashMap<&'a str, (&'a ir::Enum, HashSet<&'a str>)>,
    methods: HashMap<&'a str, &'a ir::Method>,
    errors: HashSet<&'a str>,
    /// Per record, its fields by wire name and by documented name.
    fields: HashMap<&'a str, HashMap<&'a str, &'a Field>>,
    /// Error codes by code (the first of each).
    codes: HashMap<&'a str, &'a ir::ErrorCode>,
    /// Per method, the codes it declares (shared with each of its error answers).
    method_errors: HashMap<&'a str, Rc<HashSet<&'a str>>>,
    /// Per field that names methods (by its address), the methods it names.
    named: HashMap<*const Field, Named<'a>>,
}

/// The methods a field names: in `only_in` or `absent_in`, and with an encoding of their own.
#[derive(Default)]
struct Named<'a> {
    listed: HashSet<&'a str>,
    encodings: HashMap<&'a str, Encoding>,
}

impl<'a> Named<'a> {
    fn of(field: &'a Field) -> Option<Self> {
        let mut named = Named::default();
        match &field.presence {
            Presence::OnlyIn(methods) | Presence::AbsentIn(methods) => {
                named.listed = methods.iter().map(|m| m.as_str()).collect();
            }
            Presence::Always | Presence::Optional(_) => {}
        }
        if let FieldEncoding::PerMethod(per_method) = &field.encoding {
            for (method, encoding) in per_method {
                named.encodings.entry(method.as_str()).or_insert(*encoding);
            }
        }
        (!named.listed.is_empty() || !named.encodings.is_empty()).then_some(named)
    }
}

impl<'a> Index<'a> {
    fn new(api: &'a Api) -> Self {
        Index {
            records: api.records.iter().map(|r| (r.name.as_str(), r)).collect(),
            enums: api
                .enums
                .iter()
                .map(|e| {
                    let values = e.values.iter().map(|v| v.wire.as_str()).collect();
                    (e.name.as_str(), (e, values))
                })
                .collect(),
            methods: api.methods.iter().map(|m| (m.name.as_str(), m)).collect(),
            errors: api.errors.iter().map(|e| e.code.as_str()).collect(),
            fields: api
                .records
                .iter()
                .map(|r| {
                    let mut fields = HashMap::new();
                    // The wire name wins over another field's documented name.
                    for field in r.fields.iter().rev() {
                        if let Some(documented) = &field.documented_as {
                            fields.insert(documented.as_str(), field);
                        }
                    }
                    for field in r.fields.iter().rev() {
                        fields.insert(field.wire_name.as_str(), field);
                    }
                    (r.name.as_str(), fields)
                })
                .collect(),
            codes: {
                let mut codes = HashMap::new();
                for error in &api.errors {
                    codes.entry(error.code.as_str()).or_insert(error);
                }
                codes
            },
            method_errors: api
                .methods
                .iter()
                .map(|m| {
                    let codes = m.errors.iter().map(|c| c.as_str()).collect();
                    (m.name.as_str(), Rc::new(codes))
                })
                .collect(),
            named: api
                .records
                .iter()
                .flat_map(|r| &r.fields)
                .filter_map(|f| Named::of(f).map(|named| (std::ptr::from_ref(f), named)))
                .collect(),
        }
    }

    /// Whether `field` must and may be present in `method`'s answers, by the spec.
    fn presence(&self, field: &Field, method: &str) -> (bool, bool) {
        let listed = || match self.named.get(&std::ptr::from_ref(field)) {
            Some(named) => named.listed.contains(method),
            // Not a field of the indexed `Api`: its list, read through.
            None => match &field.presence {
                Presence::OnlyIn(methods) | Presence::AbsentIn(methods) => {
                    methods.iter().any(|m| *m == method)
                }
                Presence::Always | Presence::Optional(_) => false,
            },
        };
        match &field.presence {
            Presence::Always => (true, true),
            Presence::Optional(_) => (false, true),
            Presence::OnlyIn(_) => (false, listed()),
            Presence::AbsentIn(_) => {
                let here = !listed();
                (here, here)
            }
        }
    }

    /// The encodings `field` is sent with in `method`'s answers, as
    /// [`FieldEncoding::in_method`] gives them, looked up.
    fn encodings_in(&self, field: &Field, method: &str) -> Vec<Encoding> {
        match (&field.encoding, self.named.get(&std::ptr::from_ref(field))) {
            (FieldEncoding::PerMethod(_), Some(named)) => match named.encodings.get(method) {
                Some(encoding) => vec![*encoding],
                None => field.encoding.distinct(),
            },
            _ => field.encoding.in_method(method),
        }
    }
}

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
        if method_name.starts_with("oauth/") {
            if success {
                self.coverage.skipped += 1;
            } else {
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

    /// A value where the spec says `place.record`'s object is (`place` has no field).
    fn record(&mut self, place: Place<'_>, json: &Json) {
        let record = place.record;
        let Json::Object(entries) = json else {
            let message = format!(
                "{} is sent as {}, not an object",
                record.name,
                json_words(json)
            );
            self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
            return;
        };
        if record.opaque {
            return;
        }
        *self.objects.entry(record.name.clone()).or_default() += 1;
        // Each declared key's first value and its place: one pass over the object.
        let mut values: HashMap<&str, (usize, &Json)> = HashMap::with_capacity(entries.len());
        for (place_in_object, (key, value)) in entries.iter().enumerate() {
            let declared = self
                .index
                .fields
                .get(record.name.as_str())
                .is_some_and(|fields| fields.contains_key(key.as_str()));
            if declared {
                values
                    .entry(key.as_str())
                    .or_insert((place_in_object, value));
            } else {
                let path = format!("{}.{key}", place.path);
                self.unknown_key(
                    Place {
                        path: &path,
                        ..place
                    },
                    key,
                    value,
                );
            }
        }
        for field in &record.fields {
            // The first of its wire name and its documented name in the object.
            let wire = values.get(field.wire_name.as_str()).copied();
            let documented = field
                .documented_as
                .as_deref()
                .and_then(|name| values.get(name).copied());
            let value = match (wire, documented) {
                (Some(a), Some(b)) => Some(if a.0 <= b.0 { a.1 } else { b.1 }),
                (one, other) => one.or(other).map(|(_, value)| value),
            };
            self.field(place, field, value);
        }
    }

    /// A key of `place.record`'s object that the record does not declare (`place.path` is
    /// the key's).
    fn unknown_key(&mut self, place: Place<'_>, key: &str, value: &Json) {
        let record = place.record;
        let unknown = self
            .unknown
            .entry((record.name.clone(), key.to_owned()))
            .or_default();
        unknown.seen += 1;
        unknown.methods.insert(place.answer.method.to_owned());
        note_kind(unknown, value);
        let message = format!("{key} is not a field of {}", record.name);
        let subject = Subject::Record {
            record: record.name.clone(),
            key: key.to_owned(),
        };
        let tally_key = place.key(FindingKind::UnknownField, subject);
        self.tally(tally_key, Some(value), place.answer.source, message);
    }

    /// `field` of the object at `object` (its place without a field), with its value if the
    /// object has one.
    fn field(&mut self, object: Place<'_>, field: &Field, value: Option<&Json>) {
        let method = object.answer.method;
        let (must, may) = self.index.presence(field, method);
        let seen = self
            .seen
            .entry(per_method(object.record, field, method))
            .or_default();
        seen.objects += 1;
        seen.path = object.path.to_owned();
        let path = format!("{}.{}", object.path, field.wire_name);
        let place = Place {
            field: Some(field),
            path: &path,
            ..object
        };
        let source = place.answer.source;
        let Some(value) = value else {
            if must {
                seen.missing_at.get_or_insert_with(|| source.to_owned());
                let message = format!("the spec says {method} always sends it; it is missing");
                let key = place.key(FindingKind::MissingField, place.subject());
                self.tally(key, None, source, message);
            }
            return;
        };
        seen.present += 1;
        if !may {
            let message = format!("the spec says {method} does not send {}", field.wire_name);
            let key = place.key(FindingKind::UnknownField, place.subject());
            self.tally(key, Some(value), source, message);
            return;
        }
        if *value == Json::Null {
            if !field.nullable {
                let message = "null, and the spec does not say nullable".to_owned();
                self.value_problem(place, FindingKind::UnexpectedNull, value, message);
            }
            return;
        }
        let encodings = self.index.encodings_in(field, method);
        self.value(place, &field.ty, &encodings, value);
    }

    /// A problem of the value `json` at `place`, about its field (its record when it has none).
    fn value_problem(&mut self, place: Place<'_>, kind: FindingKind, json: &Json, message: String) {
        let key = place.key(kind, place.subject());
        self.tally(key, Some(json), place.answer.source, message);
    }

    /// A value of type `ty` at `place` (no field: a list element), declared in `encodings`.
    fn value(&mut self, place: Place<'_>, ty: &TypeRef, encodings: &[Encoding], json: &Json) {
        let api = self.api;
        match ty {
            TypeRef::Record(id) => {
                if let Some(record) = self.index.records.get(id.as_str()).copied() {
                    let object = Place {
                        record,
                        field: None,
                        ..place
                    };
                    self.record(object, json);
                }
            }
            TypeRef::Enum(id) => {
                let Some((e, values)) = self.index.enums.get(id.as_str()) else {
                    return;
                };
                let known = matches!(json, Json::Str(text) if values.contains(text.as_str()));
                let e = *e;
                match json {
                    Json::Str(text) if text.is_empty() => {
                        let message = format!("an empty string, which is no value of {}", e.name);
                        self.value_problem(place, FindingKind::UnexpectedEmpty, json, message);
                    }
                    Json::Str(_) if known => {}
                    Json::Str(text) => {
                        let how = if e.open {
                            "the client keeps it as Other"
                        } else {
                            "the enum is closed: the client refuses it"
                        };
                        let message = format!("{text:?} is not a value of {} ({how})", e.name);
                        let subject = Subject::EnumValue {
                            enumeration: e.name.clone(),
                            value: text.clone(),
                        };
                        let key = place.key(FindingKind::UnlistedEnumValue, subject);
                        self.tally(key, Some(json), place.answer.source, message);
                    }
                    other => {
                        let message = format!("{} where {} is a string", json_words(other), e.name);
                        self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
                    }
                }
            }
            TypeRef::Scalar(scalar) => {
                if *scalar != Scalar::String && *json == Json::Str(String::new()) {
                    let message = format!("an empty string, which no {} is", scalar.spec_name());
                    self.value_problem(place, FindingKind::UnexpectedEmpty, json, message);
                    return;
                }
                self.spelling(place, Kind::Scalar(*scalar), encodings, json);
                if !scalar_fits(api, *scalar, json) {
                    if let Some(field) = place.field {
                        let misfit = self
                            .misfits
                            .entry((place.record.name.clone(), field.wire_name.clone()))
                            .or_default();
                        misfit.0 = true;
                    }
                    let message = format!(
                        "{} {} is no {}: the client refuses it",
                        json_words(json),
                        example(json),
                        scalar.spec_name()
                    );
                    self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
                }
                if let (Some(field), Json::Number(_)) = (place.field, json) {
                    self.misfits
                        .entry((place.record.name.clone(), field.wire_name.clone()))
                        .or_default()
                        .1 = true;
                }
            }
            TypeRef::List(element) => {
                self.spelling(place, Kind::List, encodings, json);
                let Some(items) = json.collection_items() else {
                    return;
                };
                let element_encodings: Vec<Encoding> = match element.kind() {
                    Some(kind @ Kind::Scalar(_)) => Encoding::allowed_for(kind).collect(),
                    _ => Vec::new(),
                };
                let item_path = format!("{}.*", place.path);
                let item_place = Place {
                    path: &item_path,
                    ..place
                };
                for (_, item) in items {
                    if *item == Json::Null {
                        let message = "a null item".to_owned();
                        self.value_problem(item_place, FindingKind::UnexpectedNull, item, message);
                        continue;
                    }
                    let element_place = Place {
                        field: None,
                        ..item_place
                    };
                    self.value(element_place, element, &element_encodings, item);
                }
            }
        }
    }

    /// Checks the spelling of a field's value against its declared encodings and keeps which
    /// encodings it matched, for the proposal.
    fn spelling(&mut self, place: Place<'_>, kind: Kind, declared: &[Encoding], json: &Json) {
        let method = place.answer.method;
        let matched = encodings_of(kind, json);
        if matched.iter().any(|e| declared.contains(e)) {
            if let Some(field) = place.field {
                self.keep_spelling(place.record, field, method, matched);
            }
            return;
        }
        let Some(field) = place.field else {
            // A list element in no encoding of its type: the value check says why.
            return;
        };
        self.keep_spelling(place.record, field, method, matched.clone());
        let names: Vec<&str> = declared.iter().map(|e| e.spec_name()).collect();
        let spelled: Vec<&str> = matched.iter().map(|e| e.spec_name()).collect();
        let message = format!(
            "{} where the spec declares {} for {}{}",
            json_words(json),
            names.join(" or "),
            method,
            if spelled.is_empty() {
                String::new()
            } else {
                format!(" (it is {})", spelled.join(" or "))
            }
        );
        self.value_problem(place, FindingKind::UndeclaredEncoding, json, message);
    }

    fn keep_spelling(
        &mut self,
        record: &Record,
        field: &Field,
        method: &str,
        matched: Vec<Encoding>,
    ) {
        let sets = self
            .spellings
            .entry(per_method(record, field, method))
            .or_default();
        if !sets.contains(&matched) {
            sets.push(matched);
        }
    }

    /// The findings, located, with their proposals; and the coverage.
    pub(super) fn finish(
        mut self,
        locations: &SourceIndexes<'_>,
        sources: &[SpecSource],
    ) -> (Vec<Finding>, Coverage) {
        self.never_seen();
        self.coverage.unrecorded_methods = self
            .api
            .methods
            .iter()
            .filter(|m| !self.recorded.contains(&m.name))
            .map(|m| m.name.clone())
            .collect();
        let findings = self
            .tallies
            .iter()
            .map(|(key, tally)| {
                let spec = self.place(&key.subject, locations, sources);
                Finding {
                    kind: key.kind,
                    spec,
                    method: key.method.clone(),
                    json_path: key.path.clone(),
                    count: tally.count,
                    example: tally.example.clone(),
                    example_source: tally.source.clone(),
                    message: tally.message.clone(),
                    proposal: self.proposal(key),
                }
            })
            .collect();
        (findings, self.coverage)
    }

    /// Declared fields no answer of a method that delivers them held, where answers with the
    /// record were recorded.
    fn never_seen(&mut self) {
        let api = self.api;
        for record in &api.records {
            for field in &record.fields {
                let per_method: Vec<(&String, &Seen)> = self
                    .seen_of(&record.name, &field.wire_name)
                    .filter(|(m, _)| self.index.presence(field, m).1)
                    .collect();
                let objects: usize = per_method.iter().map(|(_, s)| s.objects).sum();
                let present: usize = per_method.iter().map(|(_, s)| s.present).sum();
                if objects == 0 || present > 0 {
                    continue;
                }
                let must = per_method
                    .iter()
                    .any(|(m, _)| self.index.presence(field, m).0);
                if must {
                    // Reported as missing already.
                    continue;
                }
                let methods: Vec<&str> = per_method.iter().map(|(m, _)| m.as_str()).collect();
                let (method, seen) = per_method[0];
                let message = format!(
                    "none of {objects} recorded {} objects of {} has it",
                    record.name,
                    methods.join(", ")
                );
                let key = Key {
                    kind: FindingKind::NeverSeen,
                    subject: Subject::Field {
                        record: record.name.clone(),
                        field: field.wire_name.clone(),
                    },
                    method: method.clone(),
                    path: format!("{}.{}", seen.path, field.wire_name),
                };
                let source = seen.missing_at.clone().unwrap_or_default();
                self.tallies.insert(
                    key,
                    Tally {
                        count: objects,
                        example: None,
                        source,
                        message,
                    },
                );
            }
        }
    }

    fn place(
        &self,
        subject: &Subject,
        locations: &SourceIndexes<'_>,
        sources: &[SpecSource],
    ) -> SpecPlace {
        let api = self.api;
        let (file, path): (usize, Vec<String>) = match subject {
            Subject::Field { record, field } => {
                let r = self.index.records.get(record.as_str());
                (
                    r.map_or(0, |r| r.file),
                    vec![
                        "types".into(),
                        record.clone(),
                        "fields".into(),
                        field.clone(),
                    ],
                )
            }
            Subject::Record { record, .. } => {
                let r = self.index.records.get(record.as_str());
                (
                    r.map_or(0, |r| r.file),
                    vec!["types".into(), record.clone(), "fields".into()],
                )
            }
            Subject::EnumValue { enumeration, .. } => {
                let e = self.index.enums.get(enumeration.as_str()).map(|(e, _)| e);
                (
                    e.map_or(0, |e| e.file),
                    vec!["enums".into(), enumeration.clone(), "values".into()],
                )
            }
            Subject::Method { method } => {
                let m = self.index.methods.get(method.as_str());
                (
                    m.map_or(0, |m| m.file),
                    vec!["methods".into(), method.clone()],
                )
            }
            Subject::Error { method, code } => match self.index.methods.get(method.as_str()) {
                Some(m) => (
                    m.file,
                    vec!["methods".into(), method.clone(), "errors".into()],
                ),
                None => {
                    let file = self
                        .index
                        .codes
                        .get(code.as_str())
                        .copied()
                        .or(api.errors.first())
                        .map(|e| e.file)
                        .or(api.info.as_ref().map(|i| i.file))
                        .unwrap_or(0);
                    (file, vec!["errors".into(), code.clone()])
                }
            },
        };
        SpecPlace {
            file: sources
                .get(file)
                .map_or_else(String::new, |s| s.path.clone()),
            location: locations.find(file, &path),
            path: path.join("."),
        }
    }

    /// What the spec should say, where the evidence tells.
    fn proposal(&self, key: &Key) -> Option<Proposal> {
        let api = self.api;
        match (&key.kind, &key.subject) {
            (FindingKind::UnknownField, Subject::Record { record, key: name }) => {
                self.new_field(record, name)
            }
            (FindingKind::UnknownField, Subject::Field { record, field }) => {
                // Sent where the spec says it is absent: it may be absent, no more.
                let keep = self.absent_everywhere(record, field);
                let (set, remove) = presence_proposal(api, record, &keep);
                Some(Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set,
                    remove,
                })
            }
            (FindingKind::MissingField, Subject::Field { record, field }) => {
                let absent = self.absent_everywhere(record, field);
                let (set, remove) = presence_proposal(api, record, &absent);
                Some(Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set,
                    remove,
                })
            }
            (FindingKind::UndeclaredEncoding, Subject::Field { record, field }) => {
                self.encoding_proposal(record, field)
            }
            (FindingKind::UnexpectedNull, Subject::Field { record, field }) => {
                let f = self.field_of(record, field)?;
                // A null list item is no field's null.
                (!key.path.ends_with(".*") && !f.nullable).then(|| Proposal::EditField {
                    record: record.clone(),
                    field: field.clone(),
                    set: vec![("nullable".into(), ProposedValue::True)],
                    remove: Vec::new(),
                })
            }
            (FindingKind::UnexpectedEmpty, Subject::Field { record, field }) => {
                let f = self.field_of(record, field)?;
                matches!(f.ty, TypeRef::Scalar(_)).then(|| self.as_text(record, field))
            }
            (FindingKind::UnlistedEnumValue, Subject::EnumValue { enumeration, value }) => {
                Some(Proposal::AddEnumValue {
                    enumeration: enumeration.clone(),
                    value: value.clone(),
                })
            }
            (FindingKind::UndeclaredError, Subject::Error { method, code }) => {
                Some(Proposal::AddMethodError {
                    method: method.clone(),
                    code: code.clone(),
                    declare: !self.index.errors.contains(code.as_str()),
                })
            }
            (FindingKind::EnvelopeMismatch, Subject::Method { method }) if key.path == "api" => {
                let tally = self.tallies.get(key)?;
                let sent = tally.example.as_deref()?;
                let name: String = serde_json::from_str(sent).ok()?;
                Some(Proposal::SetMethodKey {
                    method: method.clone(),
                    key: "delivered_api".into(),
                    value: name,
                })
            }
            _ => None,
        }
    }

    fn field_of(&self, record: &str, field: &str) -> Option<&'a Field> {
        // The map holds documented names too, but a wire name wins over them: the field under
        // `field` is the first of that wire name when there is one.
        let found = self.index.fields.get(record)?.get(field).copied()?;
        (found.wire_name == field).then_some(found)
    }

    /// What was seen of a field, per method (a range of the map, not a scan of it).
    fn seen_of<'s>(
        &'s self,
        record: &'s str,
        field: &'s str,
    ) -> impl Iterator<Item = (&'s String, &'s Seen)> + 's {
        let from = (record.to_owned(), field.to_owned(), String::new());
        self.seen
            .range(from..)
            .take_while(move |((r, f, _), _)| r == record && f == field)
            .map(|((_, _, m), seen)| (m, seen))
    }

    /// The methods in whose every recorded answer the field was missing.
    fn absent_everywhere(&self, record: &str, field: &str) -> BTreeMap<String, (usize, usize)> {
        self.seen_of(record, field)
            .map(|(m, seen)| (m.clone(), (seen.present, seen.objects)))
            .collect()
    }

    /// The field as text: `type: string`, kept as its text when numbers came too.
    fn as_text(&self, record: &str, field: &str) -> Proposal {
        let numbers = self
            .misfits
            .get(&(record.to_owned(), field.to_owned()))
            .is_some_and(|(_, numbers)| *numbers);
        let encoding = if numbers {
            "string_or_number"
        } else {
            "string"
        };
        Proposal::EditField {
            record: record.to_owned(),
            field: field.to_owned(),
            set: vec![
                ("type".into(), ProposedValue::Text("string".into())),
                ("encoding".into(), ProposedValue::Text(encoding.into())),
            ],
            remove: vec!["zero_is_none".into(), "narrowed".into()],
        }
    }

    /// The encodings the evidence says the field has, per method that delivers it: the
    /// declared one where every value matched it, else the first encoding (table order) that
    /// every value of that method matched and that covers the declared spelling too, else the
    /// first every value matched, else the one most values matched. A type that cannot hold
    /// some value becomes text.
    fn encoding_proposal(&self, record: &str, field: &str) -> Option<Proposal> {
        let f = self.field_of(record, field)?;
        if self
            .misfits
            .get(&(record.to_owned(), field.to_owned()))
            .is_some_and(|(misfit, _)| *misfit)
        {
            return Some(self.as_text(record, field));
        }
        let kind = f.ty.kind()?;
        let r = self.index.records.get(record).copied()?;
        let methods: Vec<String> = match &f.encoding {
            FieldEncoding::PerMethod(per_method) => {
                per_method.iter().map(|(m, _)| m.to_string()).collect()
            }
            _ => r
                .delivered_by
                .iter()
                .map(|m| m.to_string())
                .filter(|m| self.index.presence(f, m).1)
                .collect(),
        };
        let mut proposed = Vec::new();
        for method in &methods {
            let declared = self.index.encodings_in(f, method);
            let sets = self
                .spellings
                .get(&(record.to_owned(), field.to_owned(), method.clone()))
                .cloned()
                .unwrap_or_default();
            let current = declared.first().copied();
            let fits_all = |e: &Encoding| sets.iter().all(|set| set.contains(e));
            let choice = if sets.is_empty() || current.is_some_and(|c| fits_all(&c)) {
                current
            } else {
                let declared_kinds: Vec<_> = declared
                    .iter()
                    .flat_map(|e| e.info().json.kinds())
                    .collect();
                let candidates: Vec<Encoding> =
                    Encoding::allowed_for(kind).filter(fits_all).collect();
                candidates
                    .iter()
                    .find(|e| {
                        declared_kinds
                            .iter()
                            .all(|k| e.info().json.kinds().contains(k))
                    })
                    .or(candidates.first())
                    .copied()
                    .or_else(|| {
                        Encoding::allowed_for(kind)
                            .max_by_key(|e| sets.iter().filter(|set| set.contains(e)).count())
                    })
            };
            proposed.push((method.clone(), choice?.spec_name().to_owned()));
        }
        let first = proposed.first()?.1.clone();
        let value = if proposed.iter().all(|(_, e)| *e == first) {
            ProposedValue::Text(first)
        } else {
            ProposedValue::PerMethod(proposed)
        };
        Some(Proposal::EditField {
            record: record.to_owned(),
            field: field.to_owned(),
            set: vec![("encoding".into(), value)],
            remove: Vec::new(),
        })
    }

    /// A new field from what its values were: its type, encoding, presence and nullability.
    fn new_field(&self, record: &str, key: &str) -> Option<Proposal> {
        let unknown = self.unknown.get(&(record.to_owned(), key.to_owned()))?;
        let scalar = |kinds: &BTreeSet<&'static str>,
                      fraction: bool|
         -> Option<(String, Option<String>)> {
            match kinds.iter().copied().collect::<Vec<_>>().as_slice() {
                [] | ["string"] => Some(("string".into(), None)),
                ["boolean"] => Some(("boolean".into(), None)),
                ["number"] if fraction => Some(("decimal".into(), None)),
                ["number"] => Some(("integer".into(), None)),
                ["number", "string"] => Some(("string".into(), Some("string_or_number".into()))),
                _ => None,
            }
        };
        let (ty, encoding) = match unknown.collection {
            Some(keyed) => {
                let (element, _) = scalar(&unknown.elements, unknown.fraction)?;
                let encoding = if keyed { "index_object" } else { "array" };
                (format!("list<{element}>"), Some(encoding.to_owned()))
            }
            None => scalar(&unknown.kinds, unknown.fraction)?,
        };
        let mut keys = vec![("type".to_owned(), ty)];
        if let Some(encoding) = encoding {
            keys.push(("encoding".to_owned(), encoding));
        }
        let objects = self.objects.get(record).copied().unwrap_or(0);
        let present = unknown.seen;
        if present < objects {
            keys.push((
                "optional".to_owned(),
                format!("Seen in {present} of {objects} recorded objects."),
            ));
        }
        if unknown.null {
            keys.push(("nullable".to_owned(), "true".to_owned()));
        }
        keys.push((
            "doc".to_owned(),
            "Not in the reference; seen in recorded traffic (cargo xtask wire-audit).".to_owned(),
        ));
        Some(Proposal::AddField {
            record: record.to_owned(),
            field: key.to_owned(),
            keys,
        })
    }
}

/// The key of what is kept per field and method: record, field (wire name), method.
fn per_method(record: &Record, field: &Field, method: &str) -> (String, String, String) {
    (
        record.name.clone(),
        field.wire_name.clone(),
        method.to_owned(),
    )
}

/// The presence the evidence says (`seen`: per method, answers with the field and answers
/// with the record): `absent_in` the methods that never sent it when the others always did,
/// else `optional`, saying how often it came; the keys it replaces removed.
fn presence_proposal(
    api: &Api,
    record: &str,
    seen: &BTreeMap<String, (usize, usize)>,
) -> (Vec<(String, ProposedValue)>, Vec<String>) {
    let every_key = ["optional", "only_in", "absent_in"];
    let never: Vec<String> = seen
        .iter()
        .filter(|(_, (present, _))| *present == 0)
        .map(|(m, _)| m.clone())
        .collect();
    let always = seen
        .iter()
        .all(|(_, (present, objects))| *present == 0 || present == objects);
    let delivering = api
        .records
        .iter()
        .find(|r| r.name == record)
        .map_or(0, |r| r.delivered_by.len());
    let remove = |keep: &str| {
        every_key
            .iter()
            .filter(|k| **k != keep)
            .map(|k| (*k).to_owned())
            .collect()
    };
    if always && !never.is_empty() && never.len() < delivering {
        return (
            vec![("absent_in".into(), ProposedValue::List(never))],
            remove("absent_in"),
        );
    }
    let (present, objects) = seen.values().fold((0, 0), |(p, o), (present, objects)| {
        (p + present, o + objects)
    });
    let sentence = format!("Sent in {present} of {objects} recorded answers.");
    (
        vec![("optional".into(), ProposedValue::Text(sentence))],
        remove("optional"),
    )
}

/// Notes the JSON kind of a value of an unknown key, for its proposed type.
fn note_kind(unknown: &mut Unknown, value: &Json) {
    let scalar_kind = |json: &Json| match json {
        Json::Str(_) => Some("string"),
        Json::Number(_) => Some("number"),
        Json::Bool(_) => Some("boolean"),
        _ => None,
    };
    if let Json::Number(text) = value {
        unknown.fraction |= text.contains(['.', 'e', 'E']);
    }
    match value {
        Json::Null => unknown.null = true,
        Json::List { .. } | Json::Object(_) => match value.collection_items() {
            Some(items)
                if !matches!(value, Json::Object(entries) if entries.is_empty())
                    || unknown.collection.is_none() =>
            {
                unknown.collection = Some(matches!(value, Json::Object(_)));
                for (_, item) in items {
                    if let Json::Number(text) = item {
                        unknown.fraction |= text.contains(['.', 'e', 'E']);
                    }
                    match scalar_kind(item) {
                        Some(kind) => {
                            unknown.elements.insert(kind);
                        }
                        None => {
                            unknown.elements.insert("object");
                        }
                    }
                }
            }
            Some(_) => {}
            None => {
                unknown.kinds.insert("object");
            }
        },
        other => {
            if let Some(kind) = scalar_kind(other) {
                unknown.kinds.insert(kind);
            }
        }
    }
}
