//! The spec's items by name, for the walk.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::ir::{self, Api, Encoding, Field, FieldEncoding, Presence, Record};

/// The spec's items by name, looked up once per value of the recordings rather than searched.
pub(super) struct Index<'a> {
    pub(super) records: HashMap<&'a str, &'a Record>,
    pub(super) enums: HashMap<&'a str, (&'a ir::Enum, HashSet<&'a str>)>,
    pub(super) methods: HashMap<&'a str, &'a ir::Method>,
    pub(super) errors: HashSet<&'a str>,
    /// Per record, its fields by wire name and by documented name.
    pub(super) fields: HashMap<&'a str, HashMap<&'a str, &'a Field>>,
    /// Error codes by code (the first of each).
    pub(super) codes: HashMap<&'a str, &'a ir::ErrorCode>,
    /// Per method, the codes it documents (`Api::errors_of`), shared with each of its error
    /// answers.
    pub(super) method_errors: HashMap<&'a str, Rc<HashSet<&'a str>>>,
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
    pub(super) fn new(api: &'a Api) -> Self {
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
                .map(|m| (m.name.as_str(), Rc::new(api.error_codes_of(m).collect())))
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
    pub(super) fn presence(&self, field: &Field, method: &str) -> (bool, bool) {
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
    pub(super) fn encodings_in(&self, field: &Field, method: &str) -> Vec<Encoding> {
        match (&field.encoding, self.named.get(&std::ptr::from_ref(field))) {
            (FieldEncoding::PerMethod(_), Some(named)) => match named.encodings.get(method) {
                Some(encoding) => vec![*encoding],
                None => field.encoding.distinct(),
            },
            _ => field.encoding.in_method(method),
        }
    }
}
