//! The invariants of an [`Api`]: what `resolve` guarantees and the emitters rely on.
//!
//! An `Api` from `resolve` always passes; one edited afterwards (its fields are public) may
//! not, and `generate` refuses it with the first broken invariant instead of emitting less.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::{
    Api, Encoding, Field, FieldEncoding, Id, Kind, Method, OAuth, ParamType, Presence, Record,
    Scalar, TypeRef,
};
use crate::naming;

/// An invariant of the IR that does not hold: a bug in whatever built or edited the `Api`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// Where, as a spec path (`methods.pay/getTimesheet.paging.items`).
    pub at: String,
    /// Which invariant.
    pub invariant: String,
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.invariant)
    }
}

impl std::error::Error for Inconsistency {}

impl Api {
    /// Checks every invariant the emitters rely on: each [`Id`] names an item of this `Api`,
    /// each item's file exists, every generated name is an identifier and free, the OAuth
    /// section has its four endpoints, each field's encodings are ones its type may declare (a
    /// date's carry a day or an instant), a paged method's page and size parameters are
    /// counts, its items a list and its page count a count, and its response no other paged
    /// method's, each JSON key is read into one field of a record, and no record holds itself
    /// by value.
    pub fn check(&self) -> Result<(), Inconsistency> {
        let checker = Checker {
            api: self,
            methods: self.methods.iter().map(|m| m.name.as_str()).collect(),
            records: self.records.iter().map(|r| (r.name.as_str(), r)).collect(),
            fields: self
                .records
                .iter()
                .map(|r| {
                    let mut fields = HashMap::with_capacity(r.fields.len());
                    for field in &r.fields {
                        fields.entry(field.wire_name.as_str()).or_insert(field);
                    }
                    (r.name.as_str(), fields)
                })
                .collect(),
            enums: self.enums.iter().map(|e| e.name.as_str()).collect(),
            errors: self.errors.iter().map(|e| e.code.as_str()).collect(),
        };
        checker.files()?;
        checker.identifiers()?;
        for record in &self.records {
            checker.record(record)?;
        }
        let mut paged = HashSet::new();
        for method in &self.methods {
            checker.method(method)?;
            if method.paging.is_some() && !paged.insert(method.response.as_str()) {
                return broken(
                    &format!("methods.{}.paging", method.name),
                    format!("another paged method pages {}", method.response),
                );
            }
        }
        if let Some(oauth) = &self.oauth {
            for name in OAuth::ENDPOINTS {
                if !oauth.endpoints.iter().any(|e| e.name == name) {
                    return broken("oauth.endpoints", format!("the endpoint {name} is missing"));
                }
            }
        }
        for error in &self.errors {
            let at = format!("errors.{}", error.code);
            for method in error.methods.iter().flatten() {
                checker.method_exists(&at, method)?;
            }
        }
        let contained: Vec<(&str, Vec<(&str, &str)>)> = self
            .records
            .iter()
            .map(|r| {
                let fields = r.fields.iter().map(|f| (f.wire_name.as_str(), &f.ty));
                (r.name.as_str(), contained_records(fields))
            })
            .collect();
        if let Some(cycle) = containment_cycles(&contained).first() {
            let (record, field) = cycle[cycle.len() - 1];
            return broken(
                &format!("types.{record}.fields.{field}"),
                format!("the record contains itself: {}", cycle_text(cycle)),
            );
        }
        Ok(())
    }
}

/// The records a record's fields hold by value (`wire name`, `record`): lists, which may be
/// empty, are left out.
pub(crate) fn contained_records<'a>(
    fields: impl IntoIterator<Item = (&'a str, &'a TypeRef)>,
) -> Vec<(&'a str, &'a str)> {
    fields
        .into_iter()
        .filter_map(|(wire, ty)| match ty {
            TypeRef::Record(id) => Some((wire, id.as_str())),
            _ => None,
        })
        .collect()
}

/// The cycles of records that hold each other by value (a value of any of them would be
/// infinite), each once, as the `(record, field)` steps along it, the last one closing it.
/// `records` gives, in spec order, each record with the records its fields hold
/// ([`contained_records`]). Linear in the records and fields: one depth-first walk, with a
/// stack of its own rather than recursion.
pub(crate) fn containment_cycles<'a>(
    records: &[(&'a str, Vec<(&'a str, &'a str)>)],
) -> Vec<Vec<(&'a str, &'a str)>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unseen,
        OnPath,
        Done,
    }
    let index: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (*name, i))
        .collect();
    let mut state = vec![State::Unseen; records.len()];
    // Where each record on the path is on the stack.
    let mut depth = vec![0; records.len()];
    let mut cycles = Vec::new();
    for start in 0..records.len() {
        if state[start] != State::Unseen {
            continue;
        }
        // The records on the path, each with its next field to follow, and the steps between.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut steps: Vec<(&str, &str)> = Vec::new();
        state[start] = State::OnPath;
        while let Some((record, next)) = stack.last_mut() {
            let (name, fields) = &records[*record];
            let Some(&(field, target)) = fields.get(*next) else {
                state[*record] = State::Done;
                stack.pop();
                steps.pop();
                continue;
            };
            *next += 1;
            let Some(&target) = index.get(target) else {
                continue;
            };
            match state[target] {
                State::Unseen => {
                    steps.push((name, field));
                    state[target] = State::OnPath;
                    depth[target] = stack.len();
                    stack.push((target, 0));
                }
                State::OnPath => {
                    let mut cycle = steps[depth[target]..].to_vec();
                    cycle.push((name, field));
                    cycles.push(cycle);
                }
                State::Done => {}
            }
        }
    }
    cycles
}

/// `A.b -> B.c -> A`.
pub(crate) fn cycle_text(cycle: &[(&str, &str)]) -> String {
    let mut text: Vec<String> = cycle
        .iter()
        .map(|(record, field)| format!("{record}.{field}"))
        .collect();
    text.push(cycle.first().map_or("", |(record, _)| record).to_owned());
    text.join(" -> ")
}

struct Checker<'a> {
    api: &'a Api,
    /// The names ids refer to, so that each reference is looked up once.
    methods: HashSet<&'a str>,
    records: HashMap<&'a str, &'a Record>,
    /// Per record, its fields by wire name (the first of each).
    fields: HashMap<&'a str, HashMap<&'a str, &'a Field>>,
    enums: HashSet<&'a str>,
    errors: HashSet<&'a str>,
}

fn broken(at: &str, invariant: String) -> Result<(), Inconsistency> {
    Err(Inconsistency {
        at: at.to_owned(),
        invariant,
    })
}

impl Checker<'_> {
    fn files(&self) -> Result<(), Inconsistency> {
        let api = self.api;
        let files = api.files.len();
        let declared = (api
            .records
            .iter()
            .map(|r| (r.file, format!("types.{}", r.name))))
        .chain(
            api.enums
                .iter()
                .map(|e| (e.file, format!("enums.{}", e.name))),
        )
        .chain(
            api.methods
                .iter()
                .map(|m| (m.file, format!("methods.{}", m.name))),
        )
        .chain(
            api.errors
                .iter()
                .map(|e| (e.file, format!("errors.{}", e.code))),
        )
        .chain(api.info.iter().map(|i| (i.file, "api".to_owned())))
        .chain(api.oauth.iter().map(|o| (o.file, "oauth".to_owned())));
        for (file, at) in declared {
            if file >= files {
                return broken(&at, format!("declared in file {file}, of {files}"));
            }
        }
        Ok(())
    }

    /// Every name the emitters make an identifier of is one: each module, type, builder,
    /// field, enum, variant, error code, method (its request type and constructors) and
    /// parameter; and no generated type takes a name generated code uses otherwise
    /// (`naming::RESERVED_TYPE_NAMES`). `resolve` refuses a spec that breaks this with a
    /// located error.
    fn identifiers(&self) -> Result<(), Inconsistency> {
        let api = self.api;
        let snake = |at: &str, name: &str| match naming::is_snake_identifier(name) {
            true => Ok(()),
            false => broken(at, format!("'{name}' is not a snake_case Rust identifier")),
        };
        let camel = |at: &str, name: &str| match naming::is_camel_identifier(name) {
            true => Ok(()),
            false => broken(
                at,
                format!("'{name}' is not an UpperCamelCase Rust identifier"),
            ),
        };
        // A generated type: UpperCamelCase and not a name generated code uses otherwise.
        let type_name = |at: &str, name: &str| match naming::type_name_problem(name) {
            None => Ok(()),
            Some(problem) => broken(at, problem),
        };
        for file in &api.files {
            if let Some(problem) = naming::module_name_problem(&file.module) {
                return broken(&file.path, problem);
            }
        }
        for record in &api.records {
            let at = format!("types.{}", record.name);
            type_name(&at, &record.name)?;
            type_name(&at, &format!("{}Builder", record.name))?;
            for field in &record.fields {
                snake(
                    &format!("{at}.fields.{}", field.wire_name),
                    &field.rust_name,
                )?;
            }
        }
        for e in &api.enums {
            let at = format!("enums.{}", e.name);
            type_name(&at, &e.name)?;
            for value in &e.values {
                camel(&format!("{at}.values.{}", value.wire), &value.variant)?;
            }
        }
        for error in &api.errors {
            camel(&format!("errors.{}", error.code), &error.variant)?;
        }
        for method in &api.methods {
            let at = format!("methods.{}", method.name);
            snake(&at, &method.rust_name)?;
            type_name(&at, &naming::request_type_name(method))?;
            for param in &method.params {
                snake(
                    &format!("{at}.params.{}", param.wire_name),
                    &param.rust_name,
                )?;
            }
            let params: HashSet<&str> =
                method.params.iter().map(|p| p.wire_name.as_str()).collect();
            if method
                .at_least_one_of
                .iter()
                .all(|id| params.contains(id.as_str()))
            {
                for constructor in naming::constructor_names(method) {
                    snake(&at, &constructor)?;
                }
            }
        }
        Ok(())
    }

    fn method_exists(&self, at: &str, id: &Id<Method>) -> Result<(), Inconsistency> {
        if self.methods.contains(id.as_str()) {
            Ok(())
        } else {
            broken(
                at,
                format!("refers to the method {id}, which is not in the Api"),
            )
        }
    }

    fn type_exists(&self, at: &str, ty: &TypeRef) -> Result<(), Inconsistency> {
        let found = match ty {
            TypeRef::Scalar(_) => true,
            TypeRef::List(element) => return self.type_exists(at, element),
            TypeRef::Record(id) => self.records.contains_key(id.as_str()),
            TypeRef::Enum(id) => self.enums.contains(id.as_str()),
        };
        if found {
            Ok(())
        } else {
            broken(
                at,
                format!(
                    "refers to the type {}, which is not in the Api",
                    ty.spec_name()
                ),
            )
        }
    }

    fn record(&self, record: &Record) -> Result<(), Inconsistency> {
        for method in &record.delivered_by {
            self.method_exists(&format!("types.{}", record.name), method)?;
        }
        // Each JSON key is read into one field (a wire name, a `documented_as` alias).
        let mut keys = HashSet::new();
        let aliases = record
            .fields
            .iter()
            .filter_map(|f| f.documented_as.as_deref());
        for key in record
            .fields
            .iter()
            .map(|f| f.wire_name.as_str())
            .chain(aliases)
        {
            if !keys.insert(key) {
                return broken(
                    &format!("types.{}", record.name),
                    format!("two fields are read from the JSON key {key}"),
                );
            }
        }
        for field in &record.fields {
            self.field(
                &format!("types.{}.fields.{}", record.name, field.wire_name),
                field,
            )?;
        }
        Ok(())
    }

    fn field(&self, at: &str, field: &Field) -> Result<(), Inconsistency> {
        self.type_exists(at, &field.ty)?;
        if let Some(documented) = &field.documented_type {
            self.type_exists(at, &TypeRef::Record(documented.clone()))?;
        }
        match &field.presence {
            Presence::OnlyIn(methods) | Presence::AbsentIn(methods) => {
                for method in methods {
                    self.method_exists(at, method)?;
                }
            }
            Presence::Always | Presence::Optional(_) => {}
        }
        let declared = match &field.encoding {
            FieldEncoding::Itself => Vec::new(),
            FieldEncoding::Uniform(encoding) => vec![*encoding],
            FieldEncoding::PerMethod(per_method) => {
                for (method, _) in per_method {
                    self.method_exists(at, method)?;
                }
                per_method.iter().map(|(_, encoding)| *encoding).collect()
            }
        };
        let Some(kind) = field.ty.kind() else {
            if !declared.is_empty() {
                return broken(at, "a record or enum field is written as itself".to_owned());
            }
            return Ok(());
        };
        if declared.is_empty() {
            return broken(
                at,
                format!("a field of type {} needs an encoding", field.ty.spec_name()),
            );
        }
        let allowed: Vec<Encoding> = Encoding::allowed_for(kind).collect();
        for encoding in declared {
            if !allowed.contains(&encoding) {
                return broken(
                    at,
                    format!("{encoding} is not an encoding of {}", field.ty.spec_name()),
                );
            }
            if kind == Kind::Scalar(Scalar::Date) && encoding.info().date.is_none() {
                return broken(at, format!("{encoding} carries no date"));
            }
        }
        Ok(())
    }

    fn method(&self, method: &Method) -> Result<(), Inconsistency> {
        let at = format!("methods.{}", method.name);
        self.type_exists(&at, &TypeRef::Record(method.response.clone()))?;
        #[expect(
            clippy::disallowed_fields,
            reason = "each code the method's own list names must exist"
        )]
        let own = &method.errors;
        for code in own {
            if !self.errors.contains(code.as_str()) {
                return broken(
                    &at,
                    format!("refers to the error code {code}, which is not in the Api"),
                );
            }
        }
        let params: HashSet<&str> = method.params.iter().map(|p| p.wire_name.as_str()).collect();
        let has_param = |id: &Id<_>| params.contains(id.as_str());
        for param in &method.at_least_one_of {
            if !has_param(param) {
                return broken(
                    &at,
                    format!("at_least_one_of names {param}, not a parameter"),
                );
            }
        }
        let Some(paging) = &method.paging else {
            return Ok(());
        };
        let at = format!("{at}.paging");
        for param in [&paging.page_param, &paging.size_param] {
            match method.params.iter().find(|p| p.wire_name == *param) {
                Some(p) if p.ty == ParamType::Count => {}
                Some(_) => return broken(&at, format!("the parameter {param} is not a count")),
                None => return broken(&at, format!("{param} is not a parameter of the method")),
            }
        }
        let Some(response) = self.records.get(method.response.as_str()) else {
            return broken(
                &at,
                format!("the response {} is not a record", method.response),
            );
        };
        // The response's fields by wire name: a paged method costs a lookup, not a scan.
        let fields = self.fields.get(method.response.as_str());
        let field = |id: &Id<Field>| fields.and_then(|fields| fields.get(id.as_str()).copied());
        match field(&paging.items).map(|f| &f.ty) {
            Some(TypeRef::List(_)) => {}
            Some(_) => {
                return broken(
                    &at,
                    format!("the items field {} is not a list", paging.items),
                );
            }
            None => {
                return broken(
                    &at,
                    format!("{} is not a field of {}", paging.items, response.name),
                );
            }
        }
        if let Some(total) = &paging.total_pages {
            match field(total).map(|f| &f.ty) {
                Some(TypeRef::Scalar(Scalar::Count)) => {}
                Some(_) => return broken(&at, format!("the page count {total} is not a count")),
                None => return broken(&at, format!("{total} is not a field of {}", response.name)),
            }
        }
        Ok(())
    }
}
