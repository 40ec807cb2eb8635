//! Type cells (see the table in the parent module's docs), and the check that every resource
//! and method a type names is documented.

use std::collections::HashSet;

use super::{Read, RefField, RefType, is_identifier, is_method_name, split_top_level};
use crate::diagnostic::did_you_mean;

/// Reads a Type cell (see the module docs).
pub(super) fn parse_type(text: &str) -> Read<RefType> {
    let text = text.trim();
    let parts = split_top_level(text, ';');
    let per_method: Option<Vec<(String, &str)>> = parts
        .iter()
        .map(|part| {
            let (ty, method) = part.trim().rsplit_once(" in ")?;
            is_method_name(method).then(|| (method.to_owned(), ty))
        })
        .collect();
    match per_method {
        Some(per_method) => per_method
            .into_iter()
            .map(|(method, ty)| Ok((method, single_type(ty)?)))
            .collect::<Read<_>>()
            .map(RefType::PerMethod),
        None if parts.len() > 1 => Err(format!(
            "cannot read the type '{text}': parts separated by ';' must each end in 'in group/method'"
        )),
        None => single_type(text),
    }
}

fn single_type(text: &str) -> Read<RefType> {
    let text = text.trim();
    let (base, qualifier) = match text.strip_suffix(')').and_then(|t| t.split_once(" (")) {
        Some((base, qualifier)) => (base.trim(), Some(qualifier)),
        None => (text, None),
    };
    Ok(match base {
        "string" => RefType::Text,
        "integer" if qualifier == Some("epoch") => RefType::Epoch,
        "integer" | "integer JSON number" => RefType::Integer,
        "number" | "decimal" | "JSON number" => RefType::Number,
        "boolean" => RefType::Boolean,
        "object" => RefType::Object,
        "string or integer" => RefType::TextOrInteger,
        "DD-MON-YY string" | "string DD-MON-YY" => RefType::DayText,
        "epoch integer" => RefType::Epoch,
        _ => {
            let element = base
                .strip_prefix("array of ")
                .or_else(|| base.strip_prefix("collection of "));
            match element {
                Some(element) => RefType::List(Some(Box::new(single_type(element)?))),
                None if is_identifier(base) => RefType::Record(base.to_owned()),
                None => return Err(format!("cannot read the type '{text}'")),
            }
        }
    })
}

/// `integers` and the like: a plural scalar type shared by the bare names before it.
pub(super) fn plural_type(text: &str) -> Option<RefType> {
    match text.trim() {
        "integers" => Some(RefType::Integer),
        "strings" => Some(RefType::Text),
        "numbers" => Some(RefType::Number),
        "booleans" => Some(RefType::Boolean),
        _ => None,
    }
}

/// Checks that every resource and method a type names is documented.
pub(super) struct Checker {
    /// In document order, for suggestions.
    resources: Vec<String>,
    methods: Vec<String>,
    /// The same, to look names up in.
    resource_set: HashSet<String>,
    method_set: HashSet<String>,
    /// Each problem found, with its line.
    pub(super) problems: Vec<(usize, String)>,
}

impl Checker {
    /// A checker of the names `resources` and `methods` (in document order).
    pub(super) fn new(resources: Vec<String>, methods: Vec<String>) -> Checker {
        Checker {
            resource_set: resources.iter().cloned().collect(),
            method_set: methods.iter().cloned().collect(),
            resources,
            methods,
            problems: Vec::new(),
        }
    }

    pub(super) fn check(&mut self, field: &RefField) {
        self.check_type(field.line, &field.ty);
    }

    fn check_type(&mut self, line: usize, ty: &RefType) {
        match ty {
            RefType::Record(name) if !self.resource_set.contains(name) => {
                let scalars = [
                    "string", "integer", "number", "decimal", "boolean", "object",
                ];
                let candidates = self.resources.iter().map(String::as_str).chain(scalars);
                let hint = did_you_mean(name, candidates);
                self.problems
                    .push((line, format!("unknown type '{name}'{hint}")));
            }
            RefType::PerMethod(per_method) => {
                for (method, ty) in per_method {
                    if !self.method_set.contains(method) {
                        let hint = did_you_mean(method, self.methods.iter().map(String::as_str));
                        self.problems
                            .push((line, format!("unknown method '{method}'{hint}")));
                    }
                    self.check_type(line, ty);
                }
            }
            RefType::List(Some(element)) => self.check_type(line, element),
            RefType::Inline(fields) => {
                for field in fields {
                    self.check(field);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> RefType {
        parse_type(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn record(name: &str) -> RefType {
        RefType::Record(name.to_owned())
    }

    #[test]
    fn type_cells_are_read_by_the_documented_conventions() {
        assert_eq!(ty("string (URL)"), RefType::Text);
        assert_eq!(ty("string (value Milestone occurs)"), RefType::Text);
        assert_eq!(ty("integer (string in list)"), RefType::Integer);
        assert_eq!(ty("integer (epoch)"), RefType::Epoch);
        assert_eq!(ty("integer (0 when none)"), RefType::Integer);
        assert_eq!(
            ty("number (string \"30.00\" style in list)"),
            RefType::Number
        );
        assert_eq!(ty("decimal (JSON number)"), RefType::Number);
        assert_eq!(ty("string or integer"), RefType::TextOrInteger);
        assert_eq!(ty("string DD-MON-YY"), RefType::DayText);
        assert_eq!(
            ty("array of integer"),
            RefType::List(Some(Box::new(RefType::Integer)))
        );
        assert_eq!(
            ty("array of screenData (snapshot variant)"),
            RefType::List(Some(Box::new(record("screenData"))))
        );
        assert_eq!(
            ty("DD-MON-YY string in pay/getTimesheetsForBid; epoch integer in pay/getTimesheet"),
            RefType::PerMethod(vec![
                ("pay/getTimesheetsForBid".to_owned(), RefType::DayText),
                ("pay/getTimesheet".to_owned(), RefType::Epoch),
            ])
        );
    }

    #[test]
    fn unreadable_types_are_errors() {
        assert_eq!(
            parse_type("strin g"),
            Err("cannot read the type 'strin g'".to_owned())
        );
        assert!(parse_type("string; integer").is_err());
    }
}
