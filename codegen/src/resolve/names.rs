//! The Rust names every section derives: type names, field and parameter names, and the names
//! each method adds to the generated crate (its request type and its `Session` constructors),
//! each of which must be free.

use std::collections::HashMap;

use super::{Resolver, at};
use crate::diagnostic::ErrorKind;
use crate::ir;
use crate::naming::{self, constructor_names, request_type_name};

/// Names that generated code imports from the runtime or declares itself; spec types must not
/// shadow them.
pub(crate) const RESERVED_TYPE_NAMES: &[&str] = &[
    "Client",
    "ClientBuilder",
    "DataMethod",
    "Date",
    "DayOrInstant",
    "Decimal",
    "Deserialize",
    "Deserializer",
    "Error",
    "ErrorCode",
    "Option",
    "PagedMethod",
    "Query",
    "RawErrorCode",
    "Request",
    "Serialize",
    "Serializer",
    "Service",
    "Session",
    "String",
    "Timestamp",
    "Vec",
];

/// The runtime's own methods of `Session`, which a data method's constructor must not take.
const SESSION_METHODS: &[&str] = &["expires_at", "revoke", "token"];

/// The runtime's own methods of `Request`, which a parameter's setter must not take.
const REQUEST_METHODS: &[&str] = &["customize", "items", "pages", "send"];

impl Resolver<'_> {
    pub(super) fn check_type_name(&mut self, file: usize, section: &str, name: &str) {
        if !naming::is_camel_identifier(name) {
            self.report(
                ErrorKind::InvalidTypeName,
                at(file, &[section, name]),
                format!("'{name}' is not an UpperCamelCase Rust type name"),
            );
        } else if RESERVED_TYPE_NAMES.contains(&name) {
            self.report(
                ErrorKind::InvalidTypeName,
                at(file, &[section, name]),
                format!("'{name}' is reserved: generated code uses it for a runtime type"),
            );
        }
    }

    /// The Rust name of a field, parameter or method: the override, or the derived snake_case
    /// name.
    pub(super) fn rust_name(
        &mut self,
        file: usize,
        path: &[&str],
        wire: &str,
        explicit: Option<&str>,
    ) -> Option<String> {
        match explicit {
            Some(name) if naming::is_snake_identifier(name) => Some(name.to_owned()),
            Some(name) => {
                self.report(
                    ErrorKind::InvalidRustName,
                    at(file, path).key("rust_name"),
                    format!("'{name}' is not a snake_case Rust name (or is a keyword)"),
                );
                None
            }
            None => {
                let derived = naming::snake_name(wire);
                if naming::is_snake_identifier(&derived) {
                    Some(derived)
                } else if naming::is_keyword(&derived) {
                    self.report(
                        ErrorKind::InvalidRustName,
                        at(file, path),
                        format!("'{derived}' is a Rust keyword; set rust_name (e.g. 'kind')"),
                    );
                    None
                } else {
                    self.report(
                        ErrorKind::InvalidRustName,
                        at(file, path),
                        format!("cannot derive a Rust name from '{wire}'; set rust_name"),
                    );
                    None
                }
            }
        }
    }

    /// A method's request type must not take the name of a type, an enum, a runtime type or
    /// another method's request type; its constructors must not take another method's or one
    /// of `Session`'s own. (Generated code with two items of one name does not compile.)
    pub(super) fn check_method_names(
        &mut self,
        methods: &[ir::Method],
        records: &[ir::Record],
        enums: &[ir::Enum],
    ) {
        let mut types: HashMap<String, String> = HashMap::new();
        for record in records {
            types.insert(record.name.clone(), format!("the type {}", record.name));
        }
        for e in enums {
            types.insert(e.name.clone(), format!("the enum {}", e.name));
        }
        for reserved in RESERVED_TYPE_NAMES {
            types.insert((*reserved).to_owned(), "a runtime type".to_owned());
        }
        let mut constructors: HashMap<String, String> = SESSION_METHODS
            .iter()
            .map(|name| {
                (
                    (*name).to_owned(),
                    "a method of the runtime's Session".to_owned(),
                )
            })
            .collect();
        for method in methods.iter().filter(|m| !m.rust_name.is_empty()) {
            let place = || at(method.file, &["methods", method.name.as_str()]);
            let request = request_type_name(method);
            match types.get(&request) {
                Some(taken) => self.report(
                    ErrorKind::RustNameTaken,
                    place(),
                    format!(
                        "its request type '{request}' (from the Rust name '{}') is already {taken}; \
                         set another rust_name",
                        method.rust_name
                    ),
                ),
                None => {
                    types.insert(request, format!("the request type of {}", method.name));
                }
            }
            for param in &method.params {
                if REQUEST_METHODS.contains(&param.rust_name.as_str()) {
                    self.report(
                        ErrorKind::RustNameTaken,
                        at(
                            method.file,
                            &[
                                "methods",
                                method.name.as_str(),
                                "params",
                                param.wire_name.as_str(),
                            ],
                        ),
                        format!(
                            "its setter Request::{} is a method of the runtime's Request; set \
                             another rust_name",
                            param.rust_name
                        ),
                    );
                }
            }
            if !method
                .at_least_one_of
                .iter()
                .all(|id| method.params.iter().any(|p| p.wire_name == *id))
            {
                continue; // reported as an unknown parameter
            }
            for constructor in constructor_names(method) {
                match constructors.get(&constructor) {
                    Some(taken) => self.report(
                        ErrorKind::RustNameTaken,
                        place(),
                        format!(
                            "its constructor Session::{constructor} is already {taken}; set \
                             another rust_name"
                        ),
                    ),
                    None => {
                        constructors
                            .insert(constructor, format!("the constructor of {}", method.name));
                    }
                }
            }
        }
    }
}
