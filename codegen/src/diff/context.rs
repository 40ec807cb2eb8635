//! What every rule works with: both sides, which items correspond (methods, types, fields,
//! values, renames included), the simulation's witnesses, and the changes found so far.
//!
//! Items are paired by name through maps, and a renamed item with the first candidate of its
//! shape in spec order through a queue per shape, never by searching the other side once per
//! item: two specs of n items cost about n lookups, not n squared. Each pairing is the one a
//! search in spec order would make, so the changes and their order are the specs' alone.
//!
//! The witnesses come from running the old crate's behaviour, as the IR describes it, against
//! what the new server does: its answers decoded by the old decoders ([`super::reading`]), the
//! old crate's calls read by the new server ([`super::request`]), the old page streams walked
//! against the new pages ([`super::paging`]), the old runtime's code-keyed behaviour
//! ([`super::runtime`]), and the Rust paths of the old crate that the new one no longer
//! compiles or gives another meaning ([`super::rust_api`], [`super::identity`]). Each question
//! is answered once per diff and kept.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::rc::Rc;

use super::answer::{self, Budget, Values};
use super::json::Json;
use super::reading::{self, Misreading};
use super::request::{self, Call, Reading};
use super::rust_api::{Item, RustApi};
use super::witness::Witness;
use super::{Change, Impact, Level, Location, Side, Surface, decode, identity, paging, pairing};
use super::{rule, runtime};
use crate::ir::{Enum, Field, FieldEncoding, Lookup, Method, Presence, Record, TypeRef};
use crate::location::LocationIndex;

/// What the simulation may build for one diff (see [`Budget`]), in bytes: the real spec diffed
/// against itself changed everywhere needs a few megabytes; a hostile spec could ask for more
/// than any machine has.
pub const MODEL_BUDGET: usize = 1 << 28;

/// Where an item is: the file index and the spec path.
pub type Place<'p> = (usize, Vec<&'p str>);

/// Which public Rust items of the base crate a change touches.
#[derive(Clone, Debug)]
pub enum Claim {
    /// One item, by key.
    Item(String),
    /// A type and everything of it: fields, variants, methods, trait impls.
    Type(String),
    /// Items whose key starts with this.
    Prefix(String),
    /// An item whose signature stays but whose behaviour changes for an unchanged caller (a
    /// value it accepted is refused), with the witness: broken whatever the Rust model finds.
    Meaning(String, Witness),
}

/// A method and its counterpart; `renamed` when matched by shape under another name.
pub struct MethodPair<'a> {
    pub old: &'a Method,
    pub new: &'a Method,
    pub renamed: bool,
}

/// A field and its counterpart in a record pair.
pub struct FieldPair<'a> {
    pub old_record: &'a Record,
    pub old: &'a Field,
    pub new_record: &'a Record,
    pub new: &'a Field,
}

/// A misreading of an answer, with the answer and the method whose answer it is.
#[derive(Clone, Debug)]
pub struct Found {
    pub method: String,
    /// The record of the old crate the answer is an object of.
    pub record: String,
    pub json: Json,
    pub misreading: Misreading,
}

impl Found {
    pub fn witness(&self) -> Witness {
        Witness::Answer {
            method: self.method.clone(),
            record: self.record.clone(),
            json: self.json.to_text(),
            shown: self.json.shown(),
            finding: self.misreading.finding.clone(),
        }
    }
}

/// An old item's name and its counterpart's.
type Names = (String, String);

/// Per pair of enums (by names), the field pairs of that type: the record pair (its index in
/// `records`), the old field and the new (their indices).
type EnumFields = HashMap<Names, Vec<(usize, usize, usize)>>;

/// The old calls of a method and what the new server makes of each.
pub type Readings = Vec<(Call, Vec<Reading>)>;

pub struct Context<'a> {
    pub base: Side<'a>,
    pub head: Side<'a>,
    /// Each side's items by name.
    pub base_lookup: Lookup<'a>,
    pub head_lookup: Lookup<'a>,
    base_rust: &'a RustApi,
    /// The head crate's items: what an added method looks like to a caller.
    pub head_rust: &'a RustApi,
    /// Items of the base crate a caller can no longer use in the head crate.
    broken: BTreeSet<String>,
    /// The broken `impl T for X` items, by each `X` their key ends with after a ` for `.
    broken_impls: HashMap<String, Vec<String>>,
    /// Items of the base crate that denote another thing in the head crate, with the witness.
    meanings: BTreeMap<String, Witness>,
    /// Per head record, the methods that deliver it.
    delivering: HashMap<&'a str, HashSet<&'a str>>,
    /// What the simulation may still build.
    model: Budget,
    /// Whether a question of the change about to be pushed went unanswered by the model.
    unmodelled: Cell<bool>,
    /// How many witnesses the simulation ran.
    witnesses: Cell<usize>,
    /// Types and enums renamed from base to head (old name -> new name).
    pub renames: BTreeMap<String, String>,
    pub methods: Vec<MethodPair<'a>>,
    pub removed_methods: Vec<&'a Method>,
    pub added_methods: Vec<&'a Method>,
    pub records: Vec<(&'a Record, &'a Record)>,
    pub enums: Vec<(&'a Enum, &'a Enum)>,
    /// Per record pair (by names), the misreadings of the new record's answers.
    readings: RefCell<HashMap<Names, Rc<Vec<Found>>>>,
    /// Per pair of enums (old and new names), the field pairs of that type: record pair (in
    /// `records`), old field, new field.
    enum_fields: OnceCell<EnumFields>,
    /// Per method pair (by names), the old calls and what the new server makes of them.
    requests: RefCell<HashMap<Names, Rc<Readings>>>,
    base_index: Vec<OnceCell<LocationIndex>>,
    head_index: Vec<OnceCell<LocationIndex>>,
    changes: Vec<Change>,
}

impl<'a> Context<'a> {
    pub fn new(
        base: Side<'a>,
        head: Side<'a>,
        base_rust: &'a RustApi,
        head_rust: &'a RustApi,
    ) -> Context<'a> {
        let renames = renamed_types(base.api, head.api);
        let broken = head_rust.broken_since(base_rust, &renames);
        let mut broken_impls: HashMap<String, Vec<String>> = HashMap::new();
        for key in &broken {
            for ty in types_after_for(key) {
                broken_impls
                    .entry(ty.to_owned())
                    .or_default()
                    .push(key.clone());
            }
        }
        let (old_api, new_api) = (base.api, head.api);
        let (base_lookup, head_lookup) = (old_api.lookup(), new_api.lookup());
        // A method of the base alone takes the first method of the head alone (in spec order)
        // with its response (renames followed) and its parameters.
        let mut added = Candidates::new(
            new_api
                .methods
                .iter()
                .filter(|m| base_lookup.method_named(&m.name).is_none()),
            |m| (m.response.as_str(), param_names(m)),
        );
        let (mut methods, mut removed) = (Vec::new(), Vec::new());
        for old in &old_api.methods {
            if let Some(new) = head_lookup.method_named(&old.name) {
                methods.push(MethodPair {
                    old,
                    new,
                    renamed: false,
                });
                continue;
            }
            let response = renames
                .get(old.response.as_str())
                .map_or(old.response.as_str(), String::as_str);
            match added.take(&(response, param_names(old))) {
                Some(new) => methods.push(MethodPair {
                    old,
                    new,
                    renamed: true,
                }),
                None => removed.push(old),
            }
        }
        let records = old_api
            .records
            .iter()
            .filter_map(|old| {
                let name = renames.get(&old.name).unwrap_or(&old.name);
                head_lookup.record_named(name).map(|new| (old, new))
            })
            .collect();
        let enums = old_api
            .enums
            .iter()
            .filter_map(|old| {
                let name = renames.get(&old.name).unwrap_or(&old.name);
                head_lookup.enum_named(name).map(|new| (old, new))
            })
            .collect();
        let added_methods = added.left();
        let delivering = new_api
            .records
            .iter()
            .map(|r| {
                let methods = r.delivered_by.iter().map(|m| m.as_str()).collect();
                (r.name.as_str(), methods)
            })
            .collect();
        let method_names: HashMap<&str, &str> = methods
            .iter()
            .map(|p: &MethodPair<'_>| (p.old.name.as_str(), p.new.name.as_str()))
            .collect();
        let meanings = identity::meaning_changes(
            old_api,
            new_api,
            &|name| {
                renames
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| name.to_owned())
            },
            &|name| {
                method_names
                    .get(name)
                    .map_or_else(|| name.to_owned(), |n| (*n).to_owned())
            },
        );
        Context {
            base,
            head,
            base_lookup,
            head_lookup,
            base_rust,
            head_rust,
            broken,
            broken_impls,
            meanings,
            delivering,
            model: Budget::new(MODEL_BUDGET),
            unmodelled: Cell::new(false),
            witnesses: Cell::new(0),
            renames,
            methods,
            removed_methods: removed,
            added_methods,
            records,
            enums,
            readings: RefCell::new(HashMap::new()),
            enum_fields: OnceCell::new(),
            requests: RefCell::new(HashMap::new()),
            base_index: base.sources.iter().map(|_| OnceCell::new()).collect(),
            head_index: head.sources.iter().map(|_| OnceCell::new()).collect(),
            changes: Vec::new(),
        }
    }

    pub fn into_changes(self) -> Vec<Change> {
        self.changes
    }

    /// How many witnesses the simulation ran so far.
    pub fn witnesses(&self) -> usize {
        self.witnesses.get()
    }

    fn ran(&self, n: usize) {
        self.witnesses.set(self.witnesses.get().saturating_add(n));
    }

    /// The witness that a caller of `key` breaks: the use of it that no longer compiles, or
    /// the other thing it denotes.
    fn rust_witness(&self, key: &str) -> Option<Witness> {
        if self.broken.contains(key) {
            return Some(Witness::Caller {
                item: key.to_owned(),
                code: self.base_rust.caller(key, "old_caller").map_or_else(
                    || format!("/* a use of {key} */"),
                    |line| super::rust_api::tidy(&line),
                ),
            });
        }
        self.meanings.get(key).cloned()
    }

    /// The broken items `claim` covers, with their witnesses: one item; those of a prefix (a
    /// range of the sorted sets); a type's own key, its members (`T.x`, `T::x`) and its trait
    /// impls.
    fn covered(&self, claim: &Claim, into: &mut BTreeMap<String, Witness>) {
        let with_prefix = |prefix: &str, into: &mut BTreeMap<String, Witness>| {
            let range = |set: &mut dyn Iterator<Item = &String>| -> Vec<String> {
                set.take_while(|key| key.starts_with(prefix))
                    .cloned()
                    .collect()
            };
            let from = (
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            );
            let mut keys = range(&mut self.broken.range::<str, _>(from));
            keys.extend(range(
                &mut self.meanings.range::<str, _>(from).map(|(k, _)| k),
            ));
            for key in keys {
                if let Some(witness) = self.rust_witness(&key) {
                    into.insert(key, witness);
                }
            }
        };
        match claim {
            Claim::Meaning(item, witness) => {
                into.insert(item.clone(), witness.clone());
            }
            Claim::Item(item) => {
                if let Some(witness) = self.rust_witness(item) {
                    into.insert(item.clone(), witness);
                }
            }
            Claim::Prefix(prefix) => with_prefix(prefix, into),
            Claim::Type(ty) => {
                with_prefix(&format!("{ty}."), into);
                with_prefix(&format!("{ty}::"), into);
                let own = std::iter::once(ty.clone())
                    .chain(self.broken_impls.get(ty).into_iter().flatten().cloned());
                for key in own {
                    if let Some(witness) = self.rust_witness(&key) {
                        into.insert(key, witness);
                    }
                }
            }
        }
    }

    /// Records a change: breaking on the wire when `wire` holds the witness, breaking for the
    /// Rust API when a claimed item of the base crate no longer compiles or denotes another
    /// thing (the first such item's witness is kept). A breaking verdict is built with its
    /// witness, here only.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        rule: &'static str,
        surface: Surface,
        wire: Option<Witness>,
        claims: &[Claim],
        base: Option<Place<'_>>,
        head: Option<Place<'_>>,
        message: String,
    ) {
        let mut covered = BTreeMap::new();
        for claim in claims {
            self.covered(claim, &mut covered);
        }
        let mut message = message;
        let wire = if self.unmodelled.replace(false) {
            message.push_str(&format!(
                " (judged breaking on the wire unseen: the simulation has built all it may for \
                 one diff, {MODEL_BUDGET} bytes, and does not look further)"
            ));
            wire.or(Some(Witness::Unsimulated {
                budget: MODEL_BUDGET,
            }))
        } else {
            wire
        };
        let rust_witness = covered.values().next().cloned();
        let broken_items: Vec<String> = covered.into_keys().collect();
        let subject = head
            .as_ref()
            .or(base.as_ref())
            .map(|(_, path)| path.join("."))
            .unwrap_or_default();
        let (wire_breaks, rust_breaks) = (wire.is_some(), rust_witness.is_some());
        let level = if wire_breaks || rust_breaks {
            Level::Error
        } else if rule == rule::DOC_CHANGED
            || rule == rule::ORDER_CHANGED
            || rule.split('-').any(|word| word == "added")
        {
            // An addition (`field-added`, `param-added-optional`) changes nothing old apps do,
            // nor does a reorder.
            Level::Info
        } else {
            Level::Warning
        };
        let change = Change {
            rule,
            level,
            wire: Impact::when(wire_breaks),
            rust: Impact::when(rust_breaks),
            surface: if wire_breaks || surface != Surface::None {
                surface
            } else {
                Surface::None
            },
            subject,
            message,
            base: base.and_then(|place| locate(self.base, &self.base_index, &place)),
            head: head.and_then(|place| locate(self.head, &self.head_index, &place)),
            broken_items,
            wire_witness: wire,
            rust_witness,
        };
        self.changes.push(change);
    }

    /// A documentation-only change, when the texts differ.
    pub fn doc(&mut self, what: &str, old: &str, new: &str, base: Place<'_>, head: Place<'_>) {
        if old.trim() != new.trim() {
            let (old, new) = super::words::text_change(old, new);
            let message = if old == new {
                format!("{what}: only white space changed")
            } else {
                format!("{what}: {old} -> {new}")
            };
            self.push(
                rule::DOC_CHANGED,
                Surface::None,
                None,
                &[],
                Some(base),
                Some(head),
                message,
            );
        }
    }

    /// The Rust items of a data method in the base crate: its `Session` constructors, the
    /// `Request` of its parameter type (whose setters are the parameters'), and that type with
    /// its trait impls (`DataMethod`, `PagedMethod`, derives).
    pub fn method_claims(&self, method: &Method) -> Vec<Claim> {
        let constructor = format!("Session::{}()", method.rust_name);
        let alternatives = format!("Session::{}_by_", method.rust_name);
        // The constructor and the alternatives' keys, in key order (`(` sorts before `_`), from
        // the sorted items rather than a walk of them all.
        let items = &self.base_rust.items;
        let found = items.get_key_value(&constructor).into_iter().chain(
            items
                .range::<str, _>((
                    std::ops::Bound::Included(alternatives.as_str()),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(key, _)| key.starts_with(&alternatives)),
        );
        let mut claims = vec![
            Claim::Item(constructor.clone()),
            Claim::Prefix(alternatives.clone()),
        ];
        for (_, item) in found {
            if let Item::Method(m) = item {
                claims.push(Claim::Type(m.output.clone()));
                if let Some(inner) = request_of(&m.output) {
                    claims.push(Claim::Type(inner.to_owned()));
                }
            }
        }
        claims
    }

    /// The builder items of a parameter: its setter, and the constructors that take it.
    pub fn param_claims(&self, method: &Method, rust_name: &str) -> Vec<Claim> {
        self.method_claims(method)
            .into_iter()
            .map(|claim| match claim {
                Claim::Type(builder) => Claim::Item(format!("{builder}::{rust_name}()")),
                claim => claim,
            })
            .collect()
    }

    /// The fields of a record pair ([`pairing::fields`]: by Rust name, then by wire name), and
    /// the fields only on one side.
    pub fn fields(
        &self,
        old_record: &'a Record,
        new_record: &'a Record,
    ) -> (Vec<FieldPair<'a>>, Vec<&'a Field>, Vec<&'a Field>) {
        let counterparts = pairing::field_indices(old_record, new_record);
        let mut taken = vec![false; new_record.fields.len()];
        let (mut pairs, mut removed) = (Vec::new(), Vec::new());
        for (old, counterpart) in old_record.fields.iter().zip(counterparts) {
            match counterpart.and_then(|at| Some((at, new_record.fields.get(at)?))) {
                Some((at, new)) => {
                    taken[at] = true;
                    pairs.push(FieldPair {
                        old_record,
                        old,
                        new_record,
                        new,
                    });
                }
                None => removed.push(old),
            }
        }
        let added = new_record
            .fields
            .iter()
            .zip(taken)
            .filter(|(_, taken)| !taken)
            .map(|(f, _)| f)
            .collect();
        (pairs, removed, added)
    }

    /// The methods a head record is judged in, for what `fields` send: the first method that
    /// delivers it, and each method the fields name (in `only_in`, `absent_in` or a per-method
    /// encoding) that delivers it. What a server sends depends on the method only where a
    /// field names it, so the others all send what the first sends.
    fn judged<'r, 'f>(
        &self,
        record: &'r Record,
        fields: impl Iterator<Item = &'f Field>,
    ) -> Vec<&'r str> {
        let mut named = HashSet::new();
        for field in fields {
            named.extend(named_methods(field).map(str::to_owned));
        }
        let delivering = self.delivering.get(record.name.as_str());
        let delivers = |method: &str| delivering.is_some_and(|d| d.contains(method));
        let mut judged: Vec<&str> = record
            .delivered_by
            .iter()
            .map(|m| m.as_str())
            .filter(|m| !named.contains(*m))
            .take(1)
            .collect();
        judged.extend(
            record
                .delivered_by
                .iter()
                .map(|m| m.as_str())
                .filter(|m| named.contains(*m) && delivers(m)),
        );
        judged
    }

    /// The witness of one aspect of a field change: the first value the new server may send
    /// for `sent` (the head field with the aspect a rule judges, the old field's others) in a
    /// method that delivers the head record, that an old app reads otherwise than the server
    /// means it (or not at all). The answer is the old record's baseline with that value.
    pub fn field_witness(&self, pair: &FieldPair<'_>, sent: &Field) -> Option<Witness> {
        self.field_witness_with(pair, sent, None)
    }

    /// [`Self::field_witness`] for the values `only` (else every value the server may send).
    pub fn field_witness_with(
        &self,
        pair: &FieldPair<'_>,
        sent: &Field,
        only: Option<&[Json]>,
    ) -> Option<Witness> {
        for method in self.judged(pair.new_record, std::iter::once(sent)) {
            let values = Values::from(1);
            let sends: Vec<Json> = match only {
                Some(only) => only.to_vec(),
                None => {
                    match answer::field_sends(&self.head_lookup, sent, method, &values, &self.model)
                    {
                        Some(sends) => sends.into_iter().map(|(_, json)| json).collect(),
                        None => {
                            self.unmodelled.set(true);
                            return None;
                        }
                    }
                }
            };
            let baseline = answer::baseline(
                &self.base_lookup,
                pair.old_record,
                method,
                &values,
                &self.model,
            );
            self.ran(sends.len());
            for json in sends {
                let Ok(meant) = decode::field_meant(&self.head_lookup, sent, &json) else {
                    continue;
                };
                let finding = match decode::field(&self.base_lookup, pair.old, &json) {
                    Err(refusal) => format!(
                        "old decoders refuse `{}.{}` = {}: {}",
                        pair.old_record.name,
                        pair.old.rust_name,
                        answer::brief(&json),
                        refusal.reason
                    ),
                    Ok(got) => match reading::differs(
                        &self.base_lookup,
                        &pair.old.ty,
                        &got,
                        &self.head_lookup,
                        &sent.ty,
                        &meant,
                    ) {
                        None => continue,
                        Some(below) => {
                            let path = std::iter::once(pair.old_record.name.as_str())
                                .chain(std::iter::once(pair.old.rust_name.as_str()))
                                .chain(below.iter().map(String::as_str))
                                .collect::<Vec<_>>()
                                .join(".");
                            format!(
                                "an old app reading `{path}` gets {} where the new server means {}",
                                leaf_words(&got, &below),
                                leaf_words(&meant, &below)
                            )
                        }
                    },
                };
                let object = with_value(&baseline, &pair.old.wire_name, json);
                return Some(Witness::Answer {
                    method: method.to_owned(),
                    record: pair.old_record.name.clone(),
                    json: object.to_text(),
                    shown: object.shown(),
                    finding,
                });
            }
        }
        None
    }

    /// What an old app misreads in the answers of a record pair by the names alone: the keys
    /// the new server sends each field under against the keys the old decoders read it from.
    /// Each answer is one the new server may send for `new_record` in each method it is judged
    /// in, with each field's value as the old spec sends it ([`names_only`]): what a field's
    /// type, encoding or presence does to old decoders is its own rule's question, answered
    /// alone, so that one change of a record does not hide another.
    pub fn record_findings(&self, old: &Record, new: &Record) -> Rc<Vec<Found>> {
        let key = (old.name.clone(), new.name.clone());
        if let Some(found) = self.readings.borrow().get(&key) {
            return found.clone();
        }
        let renamed = names_only(&self.base_lookup, old, new);
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        for method in self.judged(new, new.fields.iter()) {
            let values = Values::from(1);
            let Some(answers) =
                answer::answers(&self.base_lookup, &renamed, method, &values, &self.model)
            else {
                self.unmodelled.set(true);
                break;
            };
            self.ran(answers.len());
            for answer in answers {
                for misreading in reading::misreadings(
                    &self.base_lookup,
                    old,
                    &self.base_lookup,
                    &renamed,
                    &answer.json,
                ) {
                    let once = (
                        misreading.at.clone(),
                        misreading.by_key,
                        misreading.source.clone(),
                    );
                    if seen.insert(once) {
                        found.push(Found {
                            method: method.to_owned(),
                            record: old.name.clone(),
                            json: answer.json.clone(),
                            misreading,
                        });
                    }
                }
            }
        }
        let found = Rc::new(found);
        self.readings.borrow_mut().insert(key, found.clone());
        found
    }

    /// Every misreading (one per field of the old crate, the first found) of the answers of a
    /// method pair's responses: every answer the new server sends for `new`, decoded by the
    /// old response record; `None` when the simulation is out of budget.
    pub fn response_misreadings(&self, old: &Method, new: &Method) -> Option<Vec<Found>> {
        let (Some(old_record), Some(new_record)) = (
            self.base_lookup.record_named(old.response.as_str()),
            self.head_lookup.record_named(new.response.as_str()),
        ) else {
            return Some(Vec::new());
        };
        let values = Values::from(1);
        let Some(answers) = answer::answers(
            &self.head_lookup,
            new_record,
            &new.name,
            &values,
            &self.model,
        ) else {
            self.unmodelled.set(true);
            return None;
        };
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        self.ran(answers.len());
        for answer in answers {
            for misreading in reading::misreadings(
                &self.base_lookup,
                old_record,
                &self.head_lookup,
                new_record,
                &answer.json,
            ) {
                if seen.insert(misreading.at.clone()) {
                    found.push(Found {
                        method: new.name.clone(),
                        record: old_record.name.clone(),
                        json: answer.json.clone(),
                        misreading,
                    });
                }
            }
        }
        Some(found)
    }

    /// The first misreading of the answers of a method pair's responses.
    pub fn response_witness(&self, old: &Method, new: &Method) -> Option<Witness> {
        self.response_misreadings(old, new)?
            .first()
            .map(Found::witness)
    }

    /// The witness of an enum value the new server may send (`wire`, of the new enum) that an
    /// old app reads otherwise: in a field of the old enum whose counterpart is of the new one,
    /// in a record some method delivers. No such field, no witness: no answer carries it.
    pub fn enum_witness(&self, old: &Enum, new: &Enum, wire: &str) -> Option<Witness> {
        // The field pairs of each pair of enums, indexed once: a search of every record per
        // enum value would be quadratic.
        let index = self.enum_fields.get_or_init(|| {
            let of = |ty: &TypeRef| match ty {
                TypeRef::Enum(e) => Some(e.as_str().to_owned()),
                TypeRef::List(element) => match &**element {
                    TypeRef::Enum(e) => Some(e.as_str().to_owned()),
                    _ => None,
                },
                _ => None,
            };
            let mut index = EnumFields::new();
            for (at, (old_record, new_record)) in self.records.iter().enumerate() {
                let counterparts = pairing::field_indices(old_record, new_record);
                for (old_index, new_index) in counterparts.into_iter().enumerate() {
                    let Some(new_index) = new_index else {
                        continue;
                    };
                    let (Some(old_enum), Some(new_enum)) = (
                        of(&old_record.fields[old_index].ty),
                        of(&new_record.fields[new_index].ty),
                    ) else {
                        continue;
                    };
                    index
                        .entry((old_enum, new_enum))
                        .or_default()
                        .push((at, old_index, new_index));
                }
            }
            index
        });
        let key = (old.name.clone(), new.name.clone());
        for &(at, old_index, new_index) in index.get(&key).into_iter().flatten() {
            let (old_record, new_record) = self.records[at];
            let pair = FieldPair {
                old_record,
                old: &old_record.fields[old_index],
                new_record,
                new: &new_record.fields[new_index],
            };
            {
                let value = Json::Str(wire.to_owned());
                let json = match pair.old.ty {
                    TypeRef::List(_) => Json::List {
                        keyed: false,
                        items: vec![value],
                    },
                    _ => value,
                };
                let mut sent = pair.old.clone();
                sent.ty = pair.new.ty.clone();
                if let Some(witness) = self.field_witness_with(&pair, &sent, Some(&[json])) {
                    return Some(witness);
                }
            }
        }
        None
    }

    /// The old calls of a method pair and what the new server makes of each.
    pub fn request_readings(&self, old: &Method, new: &Method) -> Rc<Readings> {
        let key = (old.name.clone(), new.name.clone());
        if let Some(found) = self.requests.borrow().get(&key) {
            return found.clone();
        }
        let found: Vec<(Call, Vec<Reading>)> = request::calls(old)
            .into_iter()
            .map(|call| {
                let readings = request::read(old, new, &call);
                (call, readings)
            })
            .collect();
        self.ran(found.len());
        let found = Rc::new(found);
        self.requests.borrow_mut().insert(key, found.clone());
        found
    }

    /// The witness of the first reading of an old call of `old` by the server of `new` that
    /// `wanted` picks.
    pub fn request_witness(
        &self,
        old: &Method,
        new: &Method,
        wanted: impl Fn(&Reading) -> bool,
    ) -> Option<Witness> {
        let readings = self.request_readings(old, new);
        readings.iter().find_map(|(call, readings)| {
            readings
                .iter()
                .find(|r| wanted(r))
                .map(|reading| Witness::Request {
                    method: old.name.clone(),
                    call: call.rust.clone(),
                    query: call.query_text(),
                    finding: reading.words(old, new, call),
                })
        })
    }

    /// The witness of an old app's page stream of `old` that the server of `new` breaks.
    pub fn paging_witness(&self, old: &Method, new: &Method) -> Option<Witness> {
        self.ran(paging::walks(old).len());
        paging::stream_witness(&self.base_lookup, old, &self.head_lookup, new)
    }

    /// The witness of an old crate that does not correct its clock on `code`.
    pub fn clock_witness(&self, code: &str) -> Option<Witness> {
        self.ran(1);
        runtime::clock_witness(self.base.api, self.head.api, code)
    }

    /// The record's place in one side.
    pub fn record_place(record: &'a Record) -> Place<'a> {
        (record.file, vec!["types", record.name.as_str()])
    }

    pub fn field_place(record: &'a Record, field: &'a Field) -> Place<'a> {
        (
            record.file,
            vec![
                "types",
                record.name.as_str(),
                "fields",
                field.wire_name.as_str(),
            ],
        )
    }

    pub fn method_place(method: &'a Method) -> Place<'a> {
        (method.file, vec!["methods", method.name.as_str()])
    }

    pub fn enum_place(e: &'a Enum) -> Place<'a> {
        (e.file, vec!["enums", e.name.as_str()])
    }
}

/// The new record with the old spec's shapes: each field with the names of the new one (wire
/// name, alias, Rust name) and the type, encoding and presence of its old counterpart
/// ([`pairing::meant`]); a field new to it as the new spec has it, where its type is one the
/// old spec knows, else as text. Read with the old spec's types.
fn names_only(base: &Lookup<'_>, old: &Record, new: &Record) -> Record {
    let counterparts: HashMap<*const Field, &Field> = old
        .fields
        .iter()
        .zip(pairing::meant(old, new))
        .filter_map(|(o, n)| n.map(|n| (std::ptr::from_ref(n), o)))
        .collect();
    let mut renamed = new.clone();
    renamed.fields = new
        .fields
        .iter()
        .map(|field| match counterparts.get(&std::ptr::from_ref(field)) {
            Some(o) => Field {
                wire_name: field.wire_name.clone(),
                rust_name: field.rust_name.clone(),
                documented_as: field.documented_as.clone(),
                ..(*o).clone()
            },
            None if known(base, &field.ty) => field.clone(),
            None => Field {
                ty: TypeRef::Scalar(crate::ir::Scalar::String),
                encoding: FieldEncoding::Uniform(crate::ir::Encoding::STRING),
                ..field.clone()
            },
        })
        .collect();
    renamed
}

/// Whether the records and enums `ty` names are the old spec's.
fn known(base: &Lookup<'_>, ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Scalar(_) => true,
        TypeRef::List(element) => known(base, element),
        TypeRef::Record(name) => base.record_named(name.as_str()).is_some(),
        TypeRef::Enum(name) => base.enum_named(name.as_str()).is_some(),
    }
}

/// `object` (a record's JSON object) with the value under `key` replaced by `value`.
fn with_value(object: &Json, key: &str, value: Json) -> Json {
    match object {
        Json::Object(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    if k == key {
                        (k.clone(), value.clone())
                    } else {
                        (k.clone(), v.clone())
                    }
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The words of the value below `path` of a decoded value.
fn leaf_words(value: &decode::Value, path: &[String]) -> String {
    let mut value = value;
    for step in path {
        value = match value {
            decode::Value::Record(fields) => match fields.iter().find(|(n, _)| n == step) {
                Some((_, v)) => v,
                None => break,
            },
            decode::Value::List(items) => {
                match step.parse::<usize>().ok().and_then(|i| items.get(i)) {
                    Some(v) => v,
                    None => break,
                }
            }
            _ => break,
        };
    }
    value.words()
}

/// The methods a field's presence or encoding names.
fn named_methods(field: &Field) -> impl Iterator<Item = &str> {
    let presence = match &field.presence {
        Presence::OnlyIn(methods) | Presence::AbsentIn(methods) => methods.as_slice(),
        Presence::Always | Presence::Optional(_) => &[],
    };
    let encoding = match &field.encoding {
        FieldEncoding::PerMethod(per_method) => per_method.as_slice(),
        FieldEncoding::Itself | FieldEncoding::Uniform(_) => &[],
    };
    presence
        .iter()
        .chain(encoding.iter().map(|(method, _)| method))
        .map(|method| method.as_str())
}

/// Items of one side waiting to be paired by shape: each shape's candidates in spec order, so
/// that taking one gives the first of its shape still waiting, as a search of the waiting
/// items in order would.
struct Candidates<'a, T, K> {
    items: Vec<Option<&'a T>>,
    by_shape: HashMap<K, VecDeque<usize>>,
}

impl<'a, T, K: Eq + Hash> Candidates<'a, T, K> {
    fn new(items: impl Iterator<Item = &'a T>, shape: impl Fn(&'a T) -> K) -> Self {
        let mut candidates = Candidates {
            items: Vec::new(),
            by_shape: HashMap::new(),
        };
        for item in items {
            let at = candidates.items.len();
            candidates.items.push(Some(item));
            candidates
                .by_shape
                .entry(shape(item))
                .or_default()
                .push_back(at);
        }
        candidates
    }

    /// The first waiting item of `shape`, no longer waiting.
    fn take(&mut self, shape: &K) -> Option<&'a T> {
        let at = self.by_shape.get_mut(shape)?.pop_front()?;
        self.items.get_mut(at)?.take()
    }

    /// The items never taken, in order.
    fn left(self) -> Vec<&'a T> {
        self.items.into_iter().flatten().collect()
    }
}

/// The types `X` a key ends with after ` for ` (`impl Clone for X`), one per occurrence.
fn types_after_for(key: &str) -> impl Iterator<Item = &str> {
    const FOR: &str = " for ";
    key.char_indices()
        .filter(move |(at, _)| key[*at..].starts_with(FOR))
        .map(move |(at, _)| &key[at + FOR.len()..])
}

/// Where `place` is written on one side; each file is indexed once, on first use.
fn locate(
    side: Side<'_>,
    indexes: &[OnceCell<LocationIndex>],
    place: &Place<'_>,
) -> Option<Location> {
    let (file, path) = place;
    let source = side.sources.get(*file)?;
    let index = indexes
        .get(*file)?
        .get_or_init(|| LocationIndex::new(&source.text));
    let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
    let at = index.find(&path)?;
    Some(Location {
        file: source.path.clone(),
        line: at.line,
        column: at.column,
    })
}

/// `GetX` in the tokens of `Request < GetX >`.
fn request_of(output: &str) -> Option<&str> {
    output
        .strip_prefix("Request <")
        .and_then(|rest| rest.strip_suffix('>'))
        .map(str::trim)
}

fn param_names(method: &Method) -> Vec<&str> {
    method.params.iter().map(|p| p.wire_name.as_str()).collect()
}

/// Types and enums that exist under a new name only, with the same fields (or values): each
/// type of the base alone takes the first type of the head alone (in spec order) of its shape.
fn renamed_types(base: &crate::ir::Api, head: &crate::ir::Api) -> BTreeMap<String, String> {
    let mut renames = BTreeMap::new();
    let fields = |r: &Record| {
        (
            r.opaque,
            r.fields
                .iter()
                .map(|f| f.wire_name.clone())
                .collect::<Vec<_>>(),
        )
    };
    let names = |records: &[Record]| -> HashSet<String> {
        records.iter().map(|r| r.name.clone()).collect()
    };
    let (base_names, head_names) = (names(&base.records), names(&head.records));
    let mut added = Candidates::new(
        head.records
            .iter()
            .filter(|r| !base_names.contains(&r.name)),
        fields,
    );
    for old in base
        .records
        .iter()
        .filter(|r| !head_names.contains(&r.name))
    {
        if let Some(new) = added.take(&fields(old)) {
            renames.insert(old.name.clone(), new.name.clone());
        }
    }
    let values = |e: &Enum| e.values.iter().map(|v| v.wire.clone()).collect::<Vec<_>>();
    let names =
        |enums: &[Enum]| -> HashSet<String> { enums.iter().map(|e| e.name.clone()).collect() };
    let (base_names, head_names) = (names(&base.enums), names(&head.enums));
    let mut added = Candidates::new(
        head.enums.iter().filter(|e| !base_names.contains(&e.name)),
        values,
    );
    for old in base.enums.iter().filter(|e| !head_names.contains(&e.name)) {
        if let Some(new) = added.take(&values(old)) {
            renames.insert(old.name.clone(), new.name.clone());
        }
    }
    renames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_taken_first_in_order_per_shape() {
        let items = ["a1", "b1", "a2", "b2", "a3"];
        let mut candidates = Candidates::new(items.iter(), |s| s.as_bytes()[0]);
        assert_eq!(candidates.take(&b'a'), Some(&"a1"));
        assert_eq!(candidates.take(&b'a'), Some(&"a2"));
        assert_eq!(candidates.take(&b'c'), None);
        assert_eq!(candidates.take(&b'b'), Some(&"b1"));
        assert_eq!(candidates.left(), [&"b2", &"a3"]);
    }

    #[test]
    fn a_key_ends_with_each_type_after_for() {
        let types: Vec<&str> = types_after_for("impl A for B for C").collect();
        assert_eq!(types, ["B for C", "C"]);
        assert_eq!(types_after_for("Timesheet.rate").count(), 0);
    }
}
