//! Reading the reference (`marketplace-api.md`) into the fields and parameters it documents.
//!
//! The reference is Markdown written to a few conventions, and this reader knows exactly those,
//! so anything else it meets where a field or parameter is expected is an error naming the
//! reference's line, never a guess:
//!
//! - `## What the service does` holds the envelope table (`| Field | Type | Rule |`) and the
//!   type convention, whose sentence "Collections documented as arrays (timesheets, …)" names
//!   the fields that are collections even where a `data:` line gives only their element type.
//! - `## Resources and their fields`: a `### Name (notes)` heading per resource with a
//!   `| Field | Type | Notes |` (or `| Field | Type |`) table. A row may name several fields
//!   (`client, provider`). A line `Name (notes): fields not shown.` is a resource whose fields
//!   the reference does not show.
//! - `## Endpoints`: a `### group/method` heading per data method, its parameters in a
//!   `| Parameter | Required | Type | Rule |` table or in prose (`Parameter: id (integer,
//!   required): …`, `Parameters: id (…) and bidId (…).`, `Parameters identical to
//!   pay/getTimesheetsForBid`), and its response record in a `data:` line: a list of
//!   `name (type; notes)` items separated by `,` or `and`. In a `data:` line, bare names before
//!   a plural type share it (`totalResults, totalPages, page, numResults (integers)`),
//!   `billing, an object with a (…), b (…)` is an inline object holding the rest of the list,
//!   `x (T), documented under the name a and delivered under the name b` renames the item
//!   before, `(declared as T but delivered with the U fields)` types it `U`, and a parenthesis
//!   that is not a type (`date (date of the data)`) states no type. The token endpoints'
//!   `| Endpoint | Response variables |` table lists their response variables.
//!
//! How a Type cell is read:
//!
//! | the reference writes | read as |
//! |---|---|
//! | `string`, `string (URL)`, `string (value X occurs)` | text (the parenthesis is a note) |
//! | `integer`, `integer (string in list)`, `integer JSON number`, `integers` | integer |
//! | `integer (epoch)`, `epoch integer`, `integer` whose Notes begin with `Epoch` | epoch seconds |
//! | `number`, `number (string in list)`, `decimal (JSON number)`, `JSON number` | number |
//! | `boolean`, `object` | boolean, object |
//! | `string or integer` | text or integer |
//! | `DD-MON-YY string`, `string DD-MON-YY` | `DD-MON-YY` text |
//! | `A in group/method; B in group/method` | A or B, per method |
//! | `same two formats` | the row above's per-method type |
//! | `array of T`, `collection of T` | a collection of T |
//! | a resource name (`BidData`, `screenData`) | that resource |
//! | nothing, or a description (`date of the data`) | not stated: text, by the reference's convention ("unless otherwise specified, JSON values are strings"); a collection of unstated elements when the name is one of the collections |
//!
//! A format given only in the Notes of a `string` row (`Numeric text`, `DD-MON-YY`) leaves the
//! type text: the reference's convention is that values are strings cast to the documented
//! type, and the documented type is `string`. Such a note is evidence for a narrower spec type,
//! which the spec must then record (`narrowed:`). Only `Epoch` in the Notes of an `integer` row
//! changes the type, because the reference writes the same thing as `integer (epoch)` in its
//! Type column.
//!
//! The OAuth protocol parameters table is not read: those are what the client runtime signs,
//! which the spec does not describe.
//!
//! One module per part of the reference: `tables` (a table's rows, handed to the reader of its
//! kind), `fields` (the envelope's and the resources' field tables, the collections sentence),
//! `endpoints` (the methods' parameters and `data:` lines, the token endpoints' variables),
//! `lists` (the prose lists of `data:` and `Parameters:` sentences) and `types` (Type cells).

mod endpoints;
mod fields;
mod lists;
mod tables;
mod types;

use std::collections::HashSet;
use std::fmt;

use indexmap::IndexMap;

use crate::diagnostic::write_errors;
use fields::apply_collections;
use types::Checker;

/// Everything the reference documents about fields and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The reference as named in messages (e.g. `../shared/marketplace-api.md`).
    pub path: String,
    /// The fields of the response envelope.
    pub envelope: Vec<RefField>,
    /// The resources, by the reference's name, in document order.
    pub resources: IndexMap<String, Resource>,
    /// The data methods, by `group/method`, in document order.
    pub methods: IndexMap<String, RefMethod>,
    /// The response variables of the OAuth token endpoints.
    pub token_responses: Vec<TokenResponse>,
    /// The text with each run of white space written as one space, to look quotes up in.
    normalized: String,
}

/// A resource of `## Resources and their fields`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Its name, e.g. `BidData`.
    pub name: String,
    /// The line that introduces it (its heading, or its "fields not shown" line).
    pub line: usize,
    /// That line's text.
    pub source: String,
    /// Its fields; `None` when the reference says they are not shown.
    pub fields: Option<Vec<RefField>>,
}

/// A data method of `## Endpoints`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefMethod {
    /// `group/method`.
    pub name: String,
    /// The line of its heading.
    pub line: usize,
    /// Its parameters.
    pub params: Vec<RefField>,
    /// The fields of its response record (its `data:` line), when it has one.
    pub data: Option<Vec<RefField>>,
    /// The line of its `data:` line (its heading's when it has none).
    pub data_line: usize,
    /// The text of its `data:` line.
    pub data_source: String,
}

/// The response variables of one OAuth token endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenResponse {
    /// The endpoint's name, as in its path (`getRequestToken`).
    pub endpoint: String,
    /// The table row's line.
    pub line: usize,
    /// The table row.
    pub source: String,
    /// The variables; `None` when the reference says the body is not shown.
    pub variables: Option<Vec<String>>,
}

/// A documented field or parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefField {
    /// The name as delivered.
    pub name: String,
    /// The name the reference documents, when it says another one is delivered.
    pub documented_as: Option<String>,
    /// Its type.
    pub ty: RefType,
    /// The line that documents it.
    pub line: usize,
    /// What documents it: the table row, or the item of a prose list.
    pub source: String,
}

/// A type as the reference states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefType {
    /// Text.
    Text,
    /// An integer.
    Integer,
    /// Any number.
    Number,
    /// A boolean.
    Boolean,
    /// A JSON object of no stated type (the envelope's `data`).
    Object,
    /// Epoch seconds.
    Epoch,
    /// `DD-MON-YY` text.
    DayText,
    /// Text or an integer.
    TextOrInteger,
    /// One type per method that delivers the field.
    PerMethod(Vec<(String, RefType)>),
    /// A resource, by name.
    Record(String),
    /// An object documented in place, with its fields.
    Inline(Vec<RefField>),
    /// A collection; `None` when the element type is not stated.
    List(Option<Box<RefType>>),
    /// No type stated: a string, by the reference's type convention.
    Unstated,
}

impl fmt::Display for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefType::Text => f.write_str("string"),
            RefType::Integer => f.write_str("integer"),
            RefType::Number => f.write_str("number"),
            RefType::Boolean => f.write_str("boolean"),
            RefType::Object | RefType::Inline(_) => f.write_str("object"),
            RefType::Epoch => f.write_str("epoch integer"),
            RefType::DayText => f.write_str("DD-MON-YY string"),
            RefType::TextOrInteger => f.write_str("string or integer"),
            RefType::PerMethod(per_method) => {
                for (i, (method, ty)) in per_method.iter().enumerate() {
                    let separator = if i == 0 { "" } else { "; " };
                    write!(f, "{separator}{ty} in {method}")?;
                }
                Ok(())
            }
            RefType::Record(name) => f.write_str(name),
            RefType::List(Some(element)) => write!(f, "array of {element}"),
            RefType::List(None) => f.write_str("collection"),
            RefType::Unstated => f.write_str("string (type not stated)"),
        }
    }
}

impl Reference {
    /// Whether the reference contains `excerpt`, white space compared as one space.
    pub fn contains_quote(&self, excerpt: &str) -> bool {
        self.contains_quotes(&[excerpt]) == [true]
    }

    /// For each of `excerpts`, whether the reference contains it, white space compared as one
    /// space: all of them in one pass over the reference (see `quotes.rs`).
    pub fn contains_quotes(&self, excerpts: &[&str]) -> Vec<bool> {
        let normalized: Vec<String> = excerpts.iter().map(|e| normalize_space(e)).collect();
        let normalized: Vec<&str> = normalized.iter().map(String::as_str).collect();
        super::quotes::contained(&self.normalized, &normalized)
    }
}

fn normalize_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line of the reference that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError {
    /// The reference as named in messages.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// Every line of the reference that cannot be read, in line order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ReferenceErrors(pub Vec<ReferenceError>);

impl fmt::Display for ReferenceErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_errors(f, &self.0, "the reference")
    }
}

/// Reads the reference's `text`, named `path` in messages. A byte order mark at its start is
/// no content (as in the spec's files): its first heading is read as an editor shows it.
pub fn parse_reference(text: &str, path: &str) -> Result<Reference, ReferenceErrors> {
    let text = crate::spec_source::without_byte_order_mark(text);
    crate::diagnostic::with_suggestion_budget(|| read(text, path))
}

fn read(text: &str, path: &str) -> Result<Reference, ReferenceErrors> {
    let mut reader = Reader {
        reference: Reference {
            path: path.to_owned(),
            envelope: Vec::new(),
            resources: IndexMap::new(),
            methods: IndexMap::new(),
            token_responses: Vec::new(),
            normalized: normalize_space(text),
        },
        errors: Vec::new(),
        section: Section::Other,
        heading: Heading::None,
        collections: Vec::new(),
        identical: Vec::new(),
        copied: 0,
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut next = 0;
    while next < lines.len() {
        if lines[next].starts_with('|') {
            let start = next;
            while next < lines.len() && lines[next].starts_with('|') {
                next += 1;
            }
            reader.table(start + 1, &lines[start..next]);
        } else {
            reader.prose(next + 1, lines[next]);
            next += 1;
        }
    }
    reader.finish()
}

/// The `##` section a line is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Service,
    Resources,
    Endpoints,
    Other,
}

/// The `###` heading a line is under.
#[derive(Clone, PartialEq, Eq)]
enum Heading {
    None,
    Resource {
        name: String,
        line: usize,
        source: String,
    },
    Method(String),
    Other,
}

struct Reader {
    reference: Reference,
    errors: Vec<ReferenceError>,
    section: Section,
    heading: Heading,
    /// The names of "Collections documented as arrays (…)".
    collections: Vec<String>,
    /// `(method, its line, the method whose parameters it shares)`.
    identical: Vec<(String, usize, String)>,
    /// The bytes of what rows naming several fields and shared parameters copied: what the
    /// reader builds stays within a bound whatever the text repeats.
    copied: u64,
}

/// The most bytes of copies the reader makes (a row's text for each name it lists, a method's
/// parameters for each method that shares them): the reference's take a few kilobytes.
const MAX_COPIED: u64 = 64 << 20;

/// About how many bytes a type takes, for [`MAX_COPIED`].
fn type_size(ty: &RefType) -> usize {
    match ty {
        RefType::PerMethod(per_method) => per_method
            .iter()
            .map(|(method, ty)| method.len() + type_size(ty))
            .sum(),
        RefType::Record(name) => name.len(),
        RefType::Inline(fields) => fields.iter().map(|f| field_size(f) as usize).sum(),
        RefType::List(Some(element)) => type_size(element),
        _ => 8,
    }
}

fn field_size(field: &RefField) -> u64 {
    (field.name.len() + field.source.len() + type_size(&field.ty)) as u64
}

/// A failure to read one line, before it is given the reference's name.
type Read<T> = Result<T, String>;

impl Reader {
    fn error(&mut self, line: usize, message: impl Into<String>) {
        self.errors.push(ReferenceError {
            file: self.reference.path.clone(),
            line,
            message: message.into(),
        });
    }

    fn prose(&mut self, line: usize, text: &str) {
        if let Some(title) = text.strip_prefix("## ") {
            self.section = match title.trim() {
                "What the service does" => Section::Service,
                "Resources and their fields" => Section::Resources,
                "Endpoints" => Section::Endpoints,
                _ => Section::Other,
            };
            self.heading = Heading::None;
            return;
        }
        if let Some(title) = text.strip_prefix("### ") {
            self.heading = self.heading(line, text, title.trim());
            return;
        }
        let result = match (self.section, &self.heading) {
            (Section::Service, _) => self.collections_sentence(text),
            (Section::Resources, _) => self.fields_not_shown(line, text),
            (Section::Endpoints, Heading::Method(method)) => {
                let method = method.clone();
                self.method_prose(line, text, &method)
            }
            _ => Ok(()),
        };
        if let Err(message) = result {
            self.error(line, message);
        }
    }

    fn heading(&mut self, line: usize, text: &str, title: &str) -> Heading {
        let name = title.split(" (").next().unwrap_or(title).trim();
        match self.section {
            Section::Resources if is_identifier(name) => Heading::Resource {
                name: name.to_owned(),
                line,
                source: text.to_owned(),
            },
            Section::Resources => {
                self.error(line, format!("cannot read a resource name from '{title}'"));
                Heading::Other
            }
            Section::Endpoints if is_method_name(title) => {
                let method = RefMethod {
                    name: title.to_owned(),
                    line,
                    params: Vec::new(),
                    data: None,
                    data_line: line,
                    data_source: text.to_owned(),
                };
                if self
                    .reference
                    .methods
                    .insert(title.to_owned(), method)
                    .is_some()
                {
                    self.error(line, format!("the method {title} is documented twice"));
                }
                Heading::Method(title.to_owned())
            }
            _ => Heading::Other,
        }
    }

    /// What is left after the last line: shared parameters, collections, and the check of
    /// every name a type gives.
    fn finish(mut self) -> Result<Reference, ReferenceErrors> {
        self.share_identical_params();
        let Reader {
            mut reference,
            mut errors,
            collections,
            ..
        } = self;
        let resources: Vec<String> = reference.resources.keys().cloned().collect();
        let methods: Vec<String> = reference.methods.keys().cloned().collect();
        let mut checker = Checker::new(resources, methods);
        let mut lists: Vec<&mut Vec<RefField>> = vec![&mut reference.envelope];
        lists.extend(
            reference
                .resources
                .values_mut()
                .filter_map(|resource| resource.fields.as_mut()),
        );
        for method in reference.methods.values_mut() {
            lists.push(&mut method.params);
            lists.extend(method.data.as_mut());
        }
        let collections: HashSet<String> = collections.into_iter().collect();
        for field in lists.into_iter().flatten() {
            apply_collections(field, &collections);
            checker.check(field);
        }
        errors.extend(
            checker
                .problems
                .into_iter()
                .map(|(line, message)| ReferenceError {
                    file: reference.path.clone(),
                    line,
                    message,
                }),
        );
        if errors.is_empty() {
            Ok(reference)
        } else {
            errors.sort_by_key(|error| error.line);
            Err(ReferenceErrors(errors))
        }
    }
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_method_name(text: &str) -> bool {
    text.split_once('/').is_some_and(|(group, method)| {
        !group.is_empty() && group.chars().all(|c| c.is_ascii_lowercase()) && is_identifier(method)
    })
}

/// Splits at `separator` outside parentheses.
fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if c == separator && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_read_with_errors_at_their_lines() {
        let text = "\
## Resources and their fields

### Thing

| Field | Type |
|---|---|
| a, b | integer |
| c | Other |
| d | strnig |
";
        let errors = parse_reference(text, "ref.md").unwrap_err();
        let shown: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "ref.md:8: unknown type 'Other'",
                "ref.md:9: unknown type 'strnig' (did you mean 'string'?)"
            ]
        );
    }

    /// A reference saved with a byte order mark reads as without it: its first heading is a
    /// heading, and every error is at the same line.
    #[test]
    fn a_byte_order_mark_before_the_first_heading_is_no_content() {
        let text = "## Resources and their fields\n\n### Thing\n\n| Field | Type |\n|---|---|\n| a | Other |\n";
        let shown = |text: &str| -> Vec<String> {
            parse_reference(text, "ref.md")
                .unwrap_err()
                .0
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(shown(&format!("\u{feff}{text}")), shown(text));
        assert_eq!(shown(text), ["ref.md:7: unknown type 'Other'"]);
    }

    #[test]
    fn quotes_are_found_whatever_the_white_space() {
        let reference = parse_reference("a  b\nc", "ref.md").unwrap();
        assert!(reference.contains_quote("a b c"));
        assert!(!reference.contains_quote("a c"));
        assert!(!reference.contains_quote(" "));
    }
}
