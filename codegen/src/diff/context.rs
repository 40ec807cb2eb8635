//! What every rule works with: both sides, which items correspond (methods, types, fields,
//! values, renames included), both models, and the changes found so far.
//!
//! Items are paired by name through maps, and a renamed item with the first candidate of its
//! shape in spec order through a queue per shape, never by searching the other side once per
//! item: two specs of n items cost about n lookups, not n squared. Each pairing is the one a
//! search in spec order would make, so the changes and their order are the specs' alone.

use std::cell::{Cell, OnceCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;

use super::rust_api::{Item, RustApi};
use super::{Change, Impact, Level, Location, Side, Surface, rule, wire};
use crate::ir::{Enum, Field, FieldEncoding, Lookup, Method, Presence, Record};
use crate::location::LocationIndex;

/// What the wire model may build for one diff (see [`wire::Budget`]), in bytes: the real
/// spec diffed against itself changed everywhere needs a few megabytes; a hostile spec could
/// ask for more than any machine has.
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
    /// value it accepted is refused): broken whatever the Rust model finds.
    Meaning(String),
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

pub struct Context<'a> {
    pub base: Side<'a>,
    pub head: Side<'a>,
    /// Each side's items by name.
    pub base_lookup: Lookup<'a>,
    pub head_lookup: Lookup<'a>,
    base_rust: &'a RustApi,
    /// Items of the base crate a caller can no longer use in the head crate.
    broken: BTreeSet<String>,
    /// The broken `impl T for X` items, by each `X` their key ends with after a ` for `.
    broken_impls: HashMap<String, Vec<String>>,
    /// Per head record, the methods that deliver it.
    delivering: HashMap<&'a str, HashSet<&'a str>>,
    /// What the wire model may still build.
    model: wire::Budget,
    /// Whether a question of the change about to be pushed went unanswered by the model.
    unmodelled: Cell<bool>,
    /// Types and enums renamed from base to head (old name -> new name).
    pub renames: BTreeMap<String, String>,
    pub methods: Vec<MethodPair<'a>>,
    pub removed_methods: Vec<&'a Method>,
    pub added_methods: Vec<&'a Method>,
    pub records: Vec<(&'a Record, &'a Record)>,
    pub enums: Vec<(&'a Enum, &'a Enum)>,
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
        Context {
            base,
            head,
            base_lookup,
            head_lookup,
            base_rust,
            broken,
            broken_impls,
            delivering,
            model: wire::Budget::new(MODEL_BUDGET),
            unmodelled: Cell::new(false),
            renames,
            methods,
            removed_methods: removed,
            added_methods,
            records,
            enums,
            base_index: base.sources.iter().map(|_| OnceCell::new()).collect(),
            head_index: head.sources.iter().map(|_| OnceCell::new()).collect(),
            changes: Vec::new(),
        }
    }

    pub fn into_changes(self) -> Vec<Change> {
        self.changes
    }

    /// The broken items `claim` covers: one item; those of a prefix (a range of the sorted
    /// set); a type's own key, its members (`T.x`, `T::x`) and its trait impls.
    fn covered(&self, claim: &Claim, into: &mut BTreeSet<String>) {
        let mut with_prefix = |prefix: &str| {
            into.extend(
                self.broken
                    .range::<str, _>((
                        std::ops::Bound::Included(prefix),
                        std::ops::Bound::Unbounded,
                    ))
                    .take_while(|key| key.starts_with(prefix))
                    .cloned(),
            );
        };
        match claim {
            Claim::Meaning(item) => {
                into.insert(item.clone());
            }
            Claim::Item(item) => into.extend(self.broken.get(item).cloned()),
            Claim::Prefix(prefix) => with_prefix(prefix),
            Claim::Type(ty) => {
                with_prefix(&format!("{ty}."));
                with_prefix(&format!("{ty}::"));
                into.extend(self.broken.get(ty).cloned());
                for key in self.broken_impls.get(ty).into_iter().flatten() {
                    into.extend(self.broken.get(key).cloned());
                }
            }
        }
    }

    /// Records a change; the Rust verdict is whether the Rust model finds any claimed item
    /// broken.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        rule: &'static str,
        surface: Surface,
        wire_breaks: bool,
        claims: &[Claim],
        base: Option<Place<'_>>,
        head: Option<Place<'_>>,
        message: String,
    ) {
        let mut covered = BTreeSet::new();
        for claim in claims {
            self.covered(claim, &mut covered);
        }
        let mut message = message;
        if self.unmodelled.replace(false) {
            message.push_str(&format!(
                " (judged breaking on the wire: the wire model has built all it may for one \
                 diff, {MODEL_BUDGET} bytes, and does not look further)"
            ));
        }
        let broken_items: Vec<String> = covered.into_iter().collect();
        let subject = head
            .as_ref()
            .or(base.as_ref())
            .map(|(_, path)| path.join("."))
            .unwrap_or_default();
        let rust_breaks = !broken_items.is_empty();
        let level = if wire_breaks || rust_breaks {
            Level::Error
        } else if rule == rule::DOC_CHANGED || rule.ends_with("-added") {
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
                false,
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

    /// The fields of a record pair: matched by wire name, then (a wire name change) by Rust
    /// name with the first field of the head alone of that Rust name; and the fields only on
    /// one side.
    pub fn fields(
        &self,
        old_record: &'a Record,
        new_record: &'a Record,
    ) -> (Vec<FieldPair<'a>>, Vec<&'a Field>, Vec<&'a Field>) {
        let old_wire: HashSet<&str> = old_record
            .fields
            .iter()
            .map(|f| f.wire_name.as_str())
            .collect();
        let mut new_by_wire: HashMap<&str, &'a Field> = HashMap::new();
        for field in &new_record.fields {
            new_by_wire.entry(field.wire_name.as_str()).or_insert(field);
        }
        let mut added = Candidates::new(
            new_record
                .fields
                .iter()
                .filter(|f| !old_wire.contains(f.wire_name.as_str())),
            |f| f.rust_name.as_str(),
        );
        let (mut pairs, mut removed) = (Vec::new(), Vec::new());
        for old in &old_record.fields {
            let new = match new_by_wire.get(old.wire_name.as_str()) {
                Some(new) => Some(*new),
                None => added.take(&old.rust_name.as_str()),
            };
            match new {
                Some(new) => pairs.push(FieldPair {
                    old_record,
                    old,
                    new_record,
                    new,
                }),
                None => removed.push(old),
            }
        }
        (pairs, removed, added.left())
    }

    /// Whether an old app's decoder for `pair.old` refuses something the new server sends for
    /// `sent`: the head field with some of its properties (the aspect a rule judges) and the old
    /// field's others. Looked at in every method that delivers the head record.
    ///
    /// What the model sends depends on the method only where the field names it (in `only_in`,
    /// `absent_in` or a per-method encoding): the methods it names are judged each, and of the
    /// others (which all get the same values) the first.
    pub fn field_breaks(&self, pair: &FieldPair<'_>, sent: &Field) -> bool {
        // The old decoder reads its wire name or its alias; any other key is unknown, and
        // whatever is sent under it is, to the old decoder, nothing.
        let read = sent.wire_name == pair.old.wire_name
            || pair.old.documented_as.as_ref() == Some(&sent.wire_name);
        if !read {
            return !pair.new_record.delivered_by.is_empty()
                && !wire::field_accepts(&self.base_lookup, pair.old, &wire::Json::Absent);
        }
        let named: HashSet<&str> = named_methods(sent).collect();
        let delivering = self.delivering.get(pair.new_record.name.as_str());
        let delivers = |method: &str| delivering.is_some_and(|d| d.contains(method));
        let mut judged: Vec<&str> = pair
            .new_record
            .delivered_by
            .iter()
            .map(|m| m.as_str())
            .filter(|m| !named.contains(m))
            .take(1)
            .collect();
        judged.extend(named.iter().copied().filter(|m| delivers(m)));
        judged.iter().any(|method| {
            match wire::field_sends_within(&self.head_lookup, sent, method, &self.model) {
                Some(sends) => sends
                    .iter()
                    .any(|json| !wire::field_accepts(&self.base_lookup, pair.old, json)),
                None => self.unmodelled(),
            }
        })
    }

    /// Whether the old response record of a method refuses some document the new server
    /// sends for the new one.
    pub fn response_breaks(&self, old: &Method, new: &Method) -> bool {
        let old_record = self.base_lookup.record_named(old.response.as_str());
        match wire::samples_within(&self.head_lookup, new, &self.model) {
            Some(samples) => samples.iter().any(|sample| {
                !old_record
                    .is_some_and(|r| wire::record_accepts(&self.base_lookup, r, &sample.data))
            }),
            None => self.unmodelled(),
        }
    }

    /// A question the wire model could not answer within its budget: judged breaking, and the
    /// next change pushed says so.
    fn unmodelled(&self) -> bool {
        self.unmodelled.set(true);
        true
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
