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

/// The runtime's own methods of `Session`, public or not, which a data method's constructor
/// must not take (two inherent methods of one name do not compile). A test reads them from
/// the runtime's source.
const SESSION_METHODS: &[&str] = &[
    "call",
    "check_expiry",
    "expires_at",
    "get",
    "page_concurrency",
    "revoke",
    "revoke_unscrubbed",
    "scrubber",
    "token",
];

/// The runtime's own methods of `Request`, public or not, which a parameter's setter must not
/// take. A test reads them from the runtime's source.
const REQUEST_METHODS: &[&str] = &[
    "customize",
    "items",
    "new",
    "pages",
    "send",
    "send_with_metadata",
    "walk",
];

/// The methods of a record's builder besides its setters: a field must not take them.
pub(super) const BUILDER_METHODS: &[&str] = &["build"];

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
        // A method without parameters is a unit struct, in the namespace of this constant.
        types.insert(
            "SERVICE".to_owned(),
            "the spec's service constant".to_owned(),
        );
        for record in records.iter().filter(|r| !r.opaque) {
            let builder = format!("{}Builder", record.name);
            match types.get(&builder) {
                Some(taken) => self.report(
                    ErrorKind::RustNameTaken,
                    at(record.file, &["types", record.name.as_str()]),
                    format!("its builder '{builder}' is already {taken}; rename one of them"),
                ),
                None => {
                    types.insert(builder, format!("the builder of the type {}", record.name));
                }
            }
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
            self.check_param_names(method);
            let place = || at(method.file, &["methods", method.name.as_str()]);
            let request = request_type_name(method);
            if !naming::is_camel_identifier(&request) {
                self.report(
                    ErrorKind::InvalidRustName,
                    place(),
                    format!(
                        "its request type '{request}' (from the Rust name '{}') is not a Rust \
                         type name; set another rust_name",
                        method.rust_name
                    ),
                );
                continue;
            }
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

    /// Two parameters of a method must not become the same Rust field.
    fn check_param_names(&mut self, method: &ir::Method) {
        let mut taken: HashMap<&str, &str> = HashMap::new();
        for param in &method.params {
            if let Some(previous) = taken.insert(&param.rust_name, &param.wire_name) {
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
                        "'{}' and '{previous}' both become the Rust parameter '{}'; set rust_name",
                        param.wire_name, param.rust_name
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{REQUEST_METHODS, SESSION_METHODS};

    /// The inherent methods of `type_name` in the runtime's `file`, public or not.
    fn inherent_methods(file: &str, type_name: &str) -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../generated-client/src")
            .join(file);
        let text = std::fs::read_to_string(&path).expect("the runtime's source");
        let file = syn::parse_file(&text).expect("the runtime's source parses");
        let mut names = Vec::new();
        for item in file.items {
            let syn::Item::Impl(block) = item else {
                continue;
            };
            let syn::Type::Path(ty) = &*block.self_ty else {
                continue;
            };
            let is_type = ty
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == type_name);
            if block.trait_.is_some() || !is_type {
                continue;
            }
            for member in block.items {
                if let syn::ImplItem::Fn(function) = member {
                    names.push(function.sig.ident.to_string());
                }
            }
        }
        names
    }

    /// A constructor or setter of the name of a runtime method would not compile: the lists
    /// name every one.
    #[test]
    fn the_reserved_method_names_are_the_runtimes() {
        for (file, type_name, reserved) in [
            ("client.rs", "Session", SESSION_METHODS),
            ("request.rs", "Request", REQUEST_METHODS),
        ] {
            let methods = inherent_methods(file, type_name);
            assert!(!methods.is_empty(), "no method of {type_name} in {file}");
            for method in methods {
                assert!(
                    reserved.contains(&method.as_str()),
                    "{type_name}::{method} (in {file}) is missing from the reserved names"
                );
            }
        }
    }
}
