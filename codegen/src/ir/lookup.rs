//! Finding the items of an [`Api`] by name.
//!
//! The tools walk one spec's items and look others up by name (a field's type, a method's
//! response, the same item on the other side of a diff): a scan of a `Vec` per lookup would
//! make each of those walks quadratic in the spec. [`Api`] scans (for one lookup); a
//! [`Lookup`], built once in linear time, finds each item in constant time. Both answer as a
//! scan would: the first item of the name, in spec order. Functions that look items up take
//! either, as [`Find`].

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use super::{Api, Enum, ErrorCode, Field, Id, Method, PagingParts, Record, TypeRef};

/// Finds the records and enums of an [`Api`] by name.
pub trait Find {
    /// The `Api` looked in.
    fn api(&self) -> &Api;

    /// The first record called `name`.
    fn record_named(&self, name: &str) -> Option<&Record>;

    /// The first enum called `name`.
    fn enum_named(&self, name: &str) -> Option<&Enum>;

    /// Whether `enumeration` lists the value `wire`.
    fn lists(&self, enumeration: &Enum, wire: &str) -> bool {
        enumeration.values.iter().any(|v| v.wire == wire)
    }

    /// The module (spec file stem) that declares the record or enum `ty` names; `None` for
    /// scalars and lists, and for a name the `Api` lacks (see [`Api::check`]).
    fn module_of(&self, ty: &TypeRef) -> Option<&str> {
        let file = match ty {
            TypeRef::Record(id) => self.record_named(id.as_str())?.file,
            TypeRef::Enum(id) => self.enum_named(id.as_str())?.file,
            TypeRef::Scalar(_) | TypeRef::List(_) => return None,
        };
        self.api().files.get(file).map(|f| f.module.as_str())
    }
}

impl Find for Api {
    fn api(&self) -> &Api {
        self
    }

    fn record_named(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|record| record.name == name)
    }

    fn enum_named(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }
}

/// The items of an [`Api`] by name, each found in constant time ([`Api::lookup`]).
pub struct Lookup<'a> {
    api: &'a Api,
    records: HashMap<&'a str, &'a Record>,
    enums: HashMap<&'a str, &'a Enum>,
    methods: HashMap<&'a str, &'a Method>,
    errors: HashMap<&'a str, &'a ErrorCode>,
    /// Per record, its fields by wire name: built on the first field lookup.
    fields: OnceCell<HashMap<&'a str, HashMap<&'a str, &'a Field>>>,
    /// Per enum, its values: built on the first value lookup.
    values: OnceCell<HashMap<&'a str, HashSet<&'a str>>>,
}

/// `items` by `name`, the first of each name kept (as a scan finds it).
fn by_name<'a, T>(items: &'a [T], name: impl Fn(&'a T) -> &'a str) -> HashMap<&'a str, &'a T> {
    let mut map = HashMap::with_capacity(items.len());
    for item in items {
        map.entry(name(item)).or_insert(item);
    }
    map
}

impl Api {
    /// The error codes `method` documents: its own `errors`, then each code that names no
    /// method (every method's) and that it leaves out. The one reading of the two lists that
    /// the generated docs, the OpenAPI export, the wire audit and the spec diff share (clippy's
    /// `disallowed-fields` refuses `Method::errors` elsewhere, but to the code that checks or
    /// writes the list itself).
    pub fn errors_of(&self, method: &Method) -> Vec<Id<ErrorCode>> {
        self.error_codes_of(method).map(Id::new).collect()
    }

    /// [`Api::errors_of`], borrowed, in the same order. Linear in the two lists: membership
    /// is a set's, as a hostile spec's lists are long.
    pub fn error_codes_of<'a>(&'a self, method: &'a Method) -> impl Iterator<Item = &'a str> {
        #[expect(
            clippy::disallowed_fields,
            reason = "the one reader of a method's own list as documented"
        )]
        let own = &method.errors;
        let mut taken: HashSet<&str> = own.iter().map(Id::as_str).collect();
        let every_methods = self
            .errors
            .iter()
            .filter(|e| e.methods.is_none())
            .map(|e| e.code.as_str())
            .filter(move |code| taken.insert(code));
        own.iter().map(Id::as_str).chain(every_methods)
    }

    /// Every item of this `Api` by name (linear, once); see [`Lookup`].
    pub fn lookup(&self) -> Lookup<'_> {
        Lookup {
            api: self,
            records: by_name(&self.records, |r| r.name.as_str()),
            enums: by_name(&self.enums, |e| e.name.as_str()),
            methods: by_name(&self.methods, |m| m.name.as_str()),
            errors: by_name(&self.errors, |e| e.code.as_str()),
            fields: OnceCell::new(),
            values: OnceCell::new(),
        }
    }
}

impl<'a> Lookup<'a> {
    /// The `Api` looked in.
    pub fn api(&self) -> &'a Api {
        self.api
    }

    /// The first record called `name`.
    pub fn record_named(&self, name: &str) -> Option<&'a Record> {
        self.records.get(name).copied()
    }

    /// The first enum called `name`.
    pub fn enum_named(&self, name: &str) -> Option<&'a Enum> {
        self.enums.get(name).copied()
    }

    /// The first method called `name` (`group/method`).
    pub fn method_named(&self, name: &str) -> Option<&'a Method> {
        self.methods.get(name).copied()
    }

    /// The first error code `code`.
    pub fn error_named(&self, code: &str) -> Option<&'a ErrorCode> {
        self.errors.get(code).copied()
    }

    /// The record `id` names, as [`Api::record`].
    pub fn record(&self, id: &Id<Record>) -> &'a Record {
        self.record_named(id.as_str())
            .unwrap_or_else(|| panic!("{id:?} names no record of this Api (see Api::check)"))
    }

    /// The first field of `record` whose wire name is `wire_name`.
    pub fn field_named(&self, record: &'a Record, wire_name: &str) -> Option<&'a Field> {
        let indexed = self
            .record_named(&record.name)
            .is_some_and(|own| std::ptr::eq(own, record));
        if !indexed {
            // Another record of the name, or one of another `Api`.
            return record.fields.iter().find(|f| f.wire_name == wire_name);
        }
        let fields = self.fields.get_or_init(|| {
            self.records
                .iter()
                .map(|(name, record)| (*name, by_name(&record.fields, |f| f.wire_name.as_str())))
                .collect()
        });
        fields.get(record.name.as_str())?.get(wire_name).copied()
    }

    /// The parts of a paged method, as [`Api::paging_of`].
    pub fn paging_of<'m>(&'m self, method: &'m Method) -> Option<PagingParts<'m>>
    where
        'a: 'm,
    {
        let paging = method.paging.as_ref()?;
        let response = self.record(&method.response);
        let field = |id: &Id<Field>| {
            self.field_named(response, id.as_str()).unwrap_or_else(|| {
                panic!(
                    "{id:?} names no field of {} (see Api::check)",
                    response.name
                )
            })
        };
        Some(PagingParts {
            paging,
            page: method.param(&paging.page_param),
            size: method.param(&paging.size_param),
            items: field(&paging.items),
            total_pages: paging.total_pages.as_ref().map(field),
        })
    }
}

impl Find for Lookup<'_> {
    fn api(&self) -> &Api {
        self.api
    }

    fn record_named(&self, name: &str) -> Option<&Record> {
        Lookup::record_named(self, name)
    }

    fn enum_named(&self, name: &str) -> Option<&Enum> {
        Lookup::enum_named(self, name)
    }

    fn lists(&self, enumeration: &Enum, wire: &str) -> bool {
        let indexed = self
            .enum_named(&enumeration.name)
            .is_some_and(|own| std::ptr::eq(own, enumeration));
        if !indexed {
            // Another enum of the name, or one of another `Api`.
            return enumeration.values.iter().any(|v| v.wire == wire);
        }
        let values = self.values.get_or_init(|| {
            self.enums
                .iter()
                .map(|(name, e)| (*name, e.values.iter().map(|v| v.wire.as_str()).collect()))
                .collect()
        });
        values
            .get(enumeration.name.as_str())
            .is_some_and(|values| values.contains(wire))
    }
}
