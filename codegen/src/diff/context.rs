//! What every rule works with: both sides, which items correspond (methods, types, fields,
//! values, renames included), both models, and the changes found so far.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use super::rust_api::{Item, RustApi};
use super::{Change, Impact, Level, Location, Side, Surface, rule, wire};
use crate::ir::{Enum, Field, Method, Record};
use crate::location::LocationIndex;

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
}

impl Claim {
    fn covers(&self, key: &str) -> bool {
        match self {
            Claim::Item(item) => key == item,
            Claim::Prefix(prefix) => key.starts_with(prefix.as_str()),
            Claim::Type(ty) => {
                key == ty
                    || key
                        .strip_prefix(ty.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("::"))
                    || key.ends_with(&format!(" for {ty}"))
            }
        }
    }
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
    base_rust: &'a RustApi,
    /// Items of the base crate a caller can no longer use in the head crate.
    broken: BTreeSet<String>,
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
        let (old_api, new_api) = (base.api, head.api);
        let mut added: Vec<&Method> = new_api
            .methods
            .iter()
            .filter(|m| !old_api.methods.iter().any(|b| b.name == m.name))
            .collect();
        let (mut methods, mut removed) = (Vec::new(), Vec::new());
        for old in &old_api.methods {
            if let Some(new) = new_api.methods.iter().find(|m| m.name == old.name) {
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
            let same_shape =
                |m: &&Method| m.response == response && param_names(m) == param_names(old);
            match added.iter().position(same_shape) {
                Some(index) => methods.push(MethodPair {
                    old,
                    new: added.remove(index),
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
                new_api
                    .records
                    .iter()
                    .find(|r| &r.name == name)
                    .map(|new| (old, new))
            })
            .collect();
        let enums = old_api
            .enums
            .iter()
            .filter_map(|old| {
                let name = renames.get(&old.name).unwrap_or(&old.name);
                new_api
                    .enums
                    .iter()
                    .find(|e| &e.name == name)
                    .map(|new| (old, new))
            })
            .collect();
        Context {
            base,
            head,
            base_rust,
            broken,
            renames,
            methods,
            removed_methods: removed,
            added_methods: added,
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
        let broken_items: Vec<String> = self
            .broken
            .iter()
            .filter(|key| claims.iter().any(|claim| claim.covers(key)))
            .cloned()
            .collect();
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
            self.push(
                rule::DOC_CHANGED,
                Surface::None,
                false,
                &[],
                Some(base),
                Some(head),
                format!(
                    "{what}: {} -> {}",
                    super::words::short(old),
                    super::words::short(new)
                ),
            );
        }
    }

    /// The Rust items of a data method in the base crate: its `Session` constructors, the
    /// `Request` of its parameter type (whose setters are the parameters'), and that type with
    /// its trait impls (`DataMethod`, `PagedMethod`, derives).
    pub fn method_claims(&self, method: &Method) -> Vec<Claim> {
        let constructor = format!("Session::{}()", method.rust_name);
        let alternatives = format!("Session::{}_by_", method.rust_name);
        let mut claims = vec![
            Claim::Item(constructor.clone()),
            Claim::Prefix(alternatives.clone()),
        ];
        for (key, item) in &self.base_rust.items {
            if let Item::Method(m) = item {
                if *key == constructor || key.starts_with(&alternatives) {
                    claims.push(Claim::Type(m.output.clone()));
                    if let Some(inner) = request_of(&m.output) {
                        claims.push(Claim::Type(inner.to_owned()));
                    }
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
    /// name; and the fields only on one side.
    pub fn fields(
        &self,
        old_record: &'a Record,
        new_record: &'a Record,
    ) -> (Vec<FieldPair<'a>>, Vec<&'a Field>, Vec<&'a Field>) {
        let mut added: Vec<&Field> = new_record
            .fields
            .iter()
            .filter(|f| !old_record.fields.iter().any(|o| o.wire_name == f.wire_name))
            .collect();
        let (mut pairs, mut removed) = (Vec::new(), Vec::new());
        for old in &old_record.fields {
            let by_wire = new_record
                .fields
                .iter()
                .find(|f| f.wire_name == old.wire_name);
            let new = match by_wire {
                Some(new) => Some(new),
                None => added
                    .iter()
                    .position(|f| f.rust_name == old.rust_name)
                    .map(|index| added.remove(index)),
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
        (pairs, removed, added)
    }

    /// Whether an old app's decoder for `pair.old` refuses something the new server sends for
    /// `sent`: the head field with some of its properties (the aspect a rule judges) and the old
    /// field's others. Looked at in every method that delivers the head record.
    pub fn field_breaks(&self, pair: &FieldPair<'_>, sent: &Field) -> bool {
        pair.new_record.delivered_by.iter().any(|method| {
            wire::field_sends(self.head.api, sent, method.as_str())
                .iter()
                .any(|json| {
                    // The old decoder reads its wire name or its alias; any other key is unknown.
                    let read = sent.wire_name == pair.old.wire_name
                        || pair.old.documented_as.as_ref() == Some(&sent.wire_name);
                    let seen = if read { json } else { &wire::Json::Absent };
                    !wire::field_accepts(self.base.api, pair.old, seen)
                })
        })
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

/// Types and enums that exist under a new name only, with the same fields (or values).
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
    let mut added: Vec<&Record> = head
        .records
        .iter()
        .filter(|r| !base.records.iter().any(|b| b.name == r.name))
        .collect();
    for old in base
        .records
        .iter()
        .filter(|r| !head.records.iter().any(|h| h.name == r.name))
    {
        if let Some(index) = added.iter().position(|new| fields(new) == fields(old)) {
            renames.insert(old.name.clone(), added.remove(index).name.clone());
        }
    }
    let values = |e: &Enum| e.values.iter().map(|v| v.wire.clone()).collect::<Vec<_>>();
    let mut added: Vec<&Enum> = head
        .enums
        .iter()
        .filter(|e| !base.enums.iter().any(|b| b.name == e.name))
        .collect();
    for old in base
        .enums
        .iter()
        .filter(|e| !head.enums.iter().any(|h| h.name == e.name))
    {
        if let Some(index) = added.iter().position(|new| values(new) == values(old)) {
            renames.insert(old.name.clone(), added.remove(index).name.clone());
        }
    }
    renames
}
