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

use std::fmt;

use std::collections::HashSet;

use indexmap::IndexMap;

use crate::diagnostic::{did_you_mean, write_errors};

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

/// Reads the reference's `text`, named `path` in messages.
pub fn parse_reference(text: &str, path: &str) -> Result<Reference, ReferenceErrors> {
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

    /// "Collections documented as arrays (timesheets, statusReports, …) are delivered as …".
    fn collections_sentence(&mut self, text: &str) -> Read<()> {
        const LEAD: &str = "Collections documented as arrays (";
        let Some(start) = text.find(LEAD) else {
            return Ok(());
        };
        let list = &text[start + LEAD.len()..];
        let end = list
            .find(')')
            .ok_or("the list of collections has no closing parenthesis")?;
        for name in list[..end].split(',').map(str::trim) {
            if !is_identifier(name) {
                return Err(format!("cannot read a collection name from '{name}'"));
            }
            self.collections.push(name.to_owned());
        }
        Ok(())
    }

    /// "StatusReportCommentData (element of comments): fields not shown."
    fn fields_not_shown(&mut self, line: usize, text: &str) -> Read<()> {
        let Some((subject, _)) = text.split_once(": fields not shown") else {
            return Ok(());
        };
        let name = subject.split(" (").next().unwrap_or(subject).trim();
        if !is_identifier(name) {
            return Err(format!("cannot read a resource name from '{subject}'"));
        }
        self.add_resource(Resource {
            name: name.to_owned(),
            line,
            source: text.to_owned(),
            fields: None,
        })
    }

    fn add_resource(&mut self, resource: Resource) -> Read<()> {
        let name = resource.name.clone();
        match self.reference.resources.insert(name.clone(), resource) {
            Some(_) => Err(format!("the resource {name} is documented twice")),
            None => Ok(()),
        }
    }

    fn method_prose(&mut self, line: usize, text: &str, method: &str) -> Read<()> {
        if let Some(list) = text.strip_prefix("data: ") {
            let fields = data_fields(line, list)?;
            let entry = &mut self.reference.methods[method];
            if entry.data.is_some() {
                return Err(format!("{method} has a second data: line"));
            }
            entry.data = Some(fields);
            entry.data_line = line;
            entry.data_source = text.to_owned();
            return Ok(());
        }
        if let Some(start) = sentence_starting(text, "Parameters identical to ") {
            let target = text[start..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .trim_end_matches(['.', ',']);
            self.identical
                .push((method.to_owned(), line, target.to_owned()));
            return Ok(());
        }
        let lead = ["Parameters: ", "Parameter: "]
            .into_iter()
            .find_map(|lead| sentence_starting(text, lead));
        if let Some(start) = lead {
            let params = prose_params(line, &text[start..])?;
            self.set_params(method, params)?;
        }
        Ok(())
    }

    fn set_params(&mut self, method: &str, params: Vec<RefField>) -> Read<()> {
        let entry = &mut self.reference.methods[method];
        if !entry.params.is_empty() {
            return Err(format!("the parameters of {method} are documented twice"));
        }
        entry.params = params;
        Ok(())
    }

    // ---- tables ------------------------------------------------------------------------

    fn table(&mut self, first_line: usize, rows: &[&str]) {
        let header = cells(rows[0]);
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let kind = match header.as_slice() {
            ["Field", "Type", "Rule" | "Notes"] | ["Field", "Type"] => TableKind::Fields,
            ["Parameter", "Required", "Type", "Rule"] => TableKind::Params,
            ["Endpoint", "Response variables"] => TableKind::TokenResponses,
            // The OAuth protocol parameters: what the runtime signs, not described by the spec.
            ["Parameter", "getRequestToken", ..] => return,
            [first, ..] if matches!(*first, "Field" | "Parameter" | "Endpoint") => {
                let shown = rows[0].trim();
                self.error(first_line, format!("unknown kind of table '{shown}'"));
                return;
            }
            _ => return,
        };
        let separator_ok = rows.get(1).is_some_and(|row| {
            cells(row)
                .iter()
                .all(|cell| !cell.is_empty() && cell.chars().all(|c| matches!(c, '-' | ':')))
        });
        if !separator_ok {
            // A table of one row has no second line to point at: its header is where it is.
            let line = if rows.len() > 1 {
                first_line + 1
            } else {
                first_line
            };
            self.error(line, "a table's second row must be its |---| separator");
            return;
        }
        let mut body = Vec::new();
        for (offset, row) in rows.iter().enumerate().skip(2) {
            let line = first_line + offset;
            let row_cells = cells(row);
            if row_cells.len() == header.len() {
                body.push(Row {
                    line,
                    source: row.trim().to_owned(),
                    cells: row_cells,
                });
            } else {
                self.error(
                    line,
                    format!(
                        "the row has {} cells, its table {}",
                        row_cells.len(),
                        header.len()
                    ),
                );
            }
        }
        let result = match kind {
            TableKind::Fields => self.field_table(&body),
            TableKind::Params => self.param_table(&body),
            TableKind::TokenResponses => {
                self.token_table(&body);
                Ok(())
            }
        };
        if let Err(message) = result {
            self.error(first_line, message);
        }
    }

    fn field_table(&mut self, rows: &[Row]) -> Read<()> {
        let mut fields = Vec::new();
        let mut above: Option<RefType> = None;
        for row in rows {
            let (names, ty, notes) = (&row.cells[0], &row.cells[1], row.cells.get(2));
            let ty = match (ty.as_str(), &above) {
                ("same two formats", Some(per_method @ RefType::PerMethod(_))) => {
                    Ok(per_method.clone())
                }
                ("same two formats", _) => {
                    Err("'same two formats' follows no row with two formats".to_owned())
                }
                (text, _) => parse_type(text),
            };
            let ty = match ty {
                Ok(RefType::Integer) if notes.is_some_and(|n| n.starts_with("Epoch")) => {
                    RefType::Epoch
                }
                Ok(ty) => ty,
                Err(message) => {
                    self.error(row.line, message);
                    continue;
                }
            };
            above = Some(ty.clone());
            // Every name of a row gets a copy of the row and its type: bounded in all.
            self.copied +=
                (row.source.len() + type_size(&ty)) as u64 * names.split(',').count() as u64;
            if self.copied > MAX_COPIED {
                return Err(format!(
                    "the tables' rows name fields whose copies of the row pass {MAX_COPIED} bytes \
                     in all; refused"
                ));
            }
            for name in names.split(',').map(str::trim) {
                if !is_identifier(name) {
                    self.error(row.line, format!("cannot read a field name from '{name}'"));
                    continue;
                }
                fields.push(RefField {
                    name: name.to_owned(),
                    documented_as: None,
                    ty: ty.clone(),
                    line: row.line,
                    source: row.source.clone(),
                });
            }
        }
        match (self.section, &self.heading) {
            (Section::Service, _) => {
                self.reference.envelope.extend(fields);
                Ok(())
            }
            (Section::Resources, Heading::Resource { name, line, source }) => {
                let resource = Resource {
                    name: name.clone(),
                    line: *line,
                    source: source.clone(),
                    fields: Some(fields),
                };
                self.add_resource(resource)
            }
            _ => Err(
                "a field table must be the envelope's or under a resource's ### heading".to_owned(),
            ),
        }
    }

    fn param_table(&mut self, rows: &[Row]) -> Read<()> {
        let Heading::Method(method) = self.heading.clone() else {
            return Err("a parameter table must be under a method's ### heading".to_owned());
        };
        let mut params = Vec::new();
        for row in rows {
            let name = row.cells[0].as_str();
            if !is_identifier(name) {
                self.error(
                    row.line,
                    format!("cannot read a parameter name from '{name}'"),
                );
                continue;
            }
            match parse_type(&row.cells[2]) {
                Ok(ty) => params.push(RefField {
                    name: name.to_owned(),
                    documented_as: None,
                    ty,
                    line: row.line,
                    source: row.source.clone(),
                }),
                Err(message) => self.error(row.line, message),
            }
        }
        self.set_params(&method, params)
    }

    fn token_table(&mut self, rows: &[Row]) {
        for row in rows {
            let endpoint = row.cells[0].as_str();
            // `authorizeToken (request)`, `authorizeToken (callback …)`: parameters sent to
            // the browser or the callback, not a response body.
            if !is_identifier(endpoint) {
                continue;
            }
            let text = row.cells[1].trim();
            let variables = if text == "Body not shown." {
                None
            } else {
                let mut names = Vec::new();
                for item in text.trim_end_matches('.').split(';') {
                    let name = item.split(" (").next().unwrap_or(item).trim();
                    if is_identifier(name) {
                        names.push(name.to_owned());
                    } else {
                        self.error(
                            row.line,
                            format!("cannot read a variable name from '{name}'"),
                        );
                    }
                }
                Some(names)
            };
            self.reference.token_responses.push(TokenResponse {
                endpoint: endpoint.to_owned(),
                line: row.line,
                source: row.source.clone(),
                variables,
            });
        }
    }

    // ---- after the last line -----------------------------------------------------------

    fn finish(mut self) -> Result<Reference, ReferenceErrors> {
        for (method, line, target) in std::mem::take(&mut self.identical) {
            match self.reference.methods.get(&target) {
                Some(shared) if !shared.params.is_empty() => {
                    self.copied += shared.params.iter().map(field_size).sum::<u64>();
                    if self.copied > MAX_COPIED {
                        self.error(
                            line,
                            format!(
                                "the parameters shared with {target} pass {MAX_COPIED} bytes of \
                                 copies in all; refused"
                            ),
                        );
                        continue;
                    }
                    let params = shared.params.clone();
                    if let Err(message) = self.set_params(&method, params) {
                        self.error(line, message);
                    }
                }
                _ => {
                    let known = self.reference.methods.keys().map(String::as_str);
                    let hint = did_you_mean(&target, known);
                    self.error(
                        line,
                        format!("no method {target} documents parameters{hint}"),
                    );
                }
            }
        }
        let Reader {
            mut reference,
            mut errors,
            collections,
            ..
        } = self;
        let resources: Vec<String> = reference.resources.keys().cloned().collect();
        let methods: Vec<String> = reference.methods.keys().cloned().collect();
        let mut checker = Checker {
            resource_set: resources.iter().cloned().collect(),
            method_set: methods.iter().cloned().collect(),
            resources,
            methods,
            problems: Vec::new(),
        };
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

/// A field named among "Collections documented as arrays" whose type is a resource, or not
/// stated, is a collection of it.
fn apply_collections(field: &mut RefField, collections: &HashSet<String>) {
    if let RefType::Inline(fields) = &mut field.ty {
        for inner in fields {
            apply_collections(inner, collections);
        }
    }
    if !collections.contains(&field.name) {
        return;
    }
    field.ty = match std::mem::replace(&mut field.ty, RefType::Unstated) {
        RefType::Record(name) => RefType::List(Some(Box::new(RefType::Record(name)))),
        RefType::Unstated => RefType::List(None),
        other => other,
    };
}

/// Checks that every resource and method a type names is documented.
struct Checker {
    /// In document order, for suggestions.
    resources: Vec<String>,
    methods: Vec<String>,
    /// The same, to look names up in.
    resource_set: HashSet<String>,
    method_set: HashSet<String>,
    problems: Vec<(usize, String)>,
}

impl Checker {
    fn check(&mut self, field: &RefField) {
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

enum TableKind {
    Fields,
    Params,
    TokenResponses,
}

struct Row {
    line: usize,
    source: String,
    cells: Vec<String>,
}

/// The cells of a table row, trimmed.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').map(|cell| cell.trim().to_owned()).collect()
}

/// Where `lead` starts a sentence of `text` (at its start or after ". "), just after `lead`.
fn sentence_starting(text: &str, lead: &str) -> Option<usize> {
    text.match_indices(lead)
        .find(|(at, _)| *at == 0 || text[..*at].ends_with(". "))
        .map(|(at, _)| at + lead.len())
}

// ---- types -------------------------------------------------------------------------------

/// Reads a Type cell (see the module docs).
fn parse_type(text: &str) -> Read<RefType> {
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
fn plural_type(text: &str) -> Option<RefType> {
    match text.trim() {
        "integers" => Some(RefType::Integer),
        "strings" => Some(RefType::Text),
        "numbers" => Some(RefType::Number),
        "booleans" => Some(RefType::Boolean),
        _ => None,
    }
}

// ---- prose lists -------------------------------------------------------------------------

/// One item of a prose list: `name (parenthesis)`, possibly renamed or holding an object.
struct Item<'t> {
    /// The whole item as written.
    text: &'t str,
    /// What comes before the parenthesis.
    phrase: &'t str,
    parenthesis: Option<&'t str>,
    /// `documented under the name a and delivered under the name b`.
    renamed: Option<(&'t str, &'t str)>,
    /// `x, an object with …`.
    object: Option<Vec<Item<'t>>>,
}

impl Item<'_> {
    /// The name as delivered.
    fn name(&self) -> Read<&str> {
        match self.renamed {
            Some((_, delivered)) => Ok(delivered),
            None if is_identifier(self.phrase) => Ok(self.phrase),
            None => Err(format!("cannot read a field name from '{}'", self.phrase)),
        }
    }
}

/// The list of a `data:` or `Parameters:` sentence: up to its first top-level `:` or `. `.
fn list_part(text: &str) -> &str {
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return &text[..at],
            '.' if depth == 0 && chars.peek().is_none_or(|(_, next)| *next == ' ') => {
                return &text[..at];
            }
            _ => {}
        }
    }
    text
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

/// The text inside the parenthesis `text` starts just after, and what follows it.
fn parenthesis(text: &str) -> Read<(&str, &str)> {
    let mut depth = 1usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((&text[..at], &text[at + 1..]));
                }
            }
            _ => {}
        }
    }
    Err(format!("unclosed parenthesis in '({text}'"))
}

/// What follows an item: `, `, ` and `, `and ` or the end.
fn after_separator(text: &str) -> Read<&str> {
    if text.is_empty() {
        return Ok(text);
    }
    [", and ", ", ", " and "]
        .into_iter()
        .find_map(|separator| text.strip_prefix(separator))
        .ok_or_else(|| format!("expected ',' or 'and' before '{}'", text.trim()))
}

/// Where the first ` (`, `, ` or ` and ` of `text` starts (its length when none does), in one
/// pass: searching for each in turn would read a long line once per item.
fn first_stop(text: &str) -> usize {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find(|&at| {
            let rest = &bytes[at..];
            rest.starts_with(b" (") || rest.starts_with(b", ") || rest.starts_with(b" and ")
        })
        .unwrap_or(text.len())
}

/// How deep `an object with` may nest in a list (the reference nests one level).
const MAX_OBJECT_DEPTH: usize = 8;

/// Reads the items of a prose list.
fn items(text: &str) -> Read<Vec<Item<'_>>> {
    items_within(text, 0)
}

fn items_within(text: &str, depth: usize) -> Read<Vec<Item<'_>>> {
    const RENAMED: &str = "documented under the name ";
    const DELIVERED: &str = " and delivered under the name ";
    const OBJECT: &str = "an object with ";
    let mut items: Vec<Item> = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(fields) = rest.strip_prefix(OBJECT) {
            let last = items
                .last_mut()
                .ok_or_else(|| format!("'{OBJECT}' names no field before it"))?;
            if depth >= MAX_OBJECT_DEPTH {
                return Err(format!(
                    "'{OBJECT}' nested more than {MAX_OBJECT_DEPTH} levels deep"
                ));
            }
            last.object = Some(items_within(fields, depth + 1)?);
            break;
        }
        if let Some(names) = rest.strip_prefix(RENAMED) {
            let (documented, names) = names
                .split_once(DELIVERED)
                .ok_or_else(|| format!("expected '{RENAMED}a{DELIVERED}b' in '{rest}'"))?;
            let end = names.find(',').unwrap_or(names.len());
            let delivered = &names[..end];
            let last = items
                .last_mut()
                .ok_or_else(|| format!("'{RENAMED}' names no field before it"))?;
            if !is_identifier(documented) || !is_identifier(delivered) {
                return Err(format!("cannot read the names in '{rest}'"));
            }
            last.renamed = Some((documented, delivered));
            rest = after_separator(&names[end..])?;
            continue;
        }
        let end = first_stop(rest);
        let phrase = &rest[..end];
        let mut after = &rest[end..];
        let mut inside = None;
        if let Some(open) = after.strip_prefix(" (") {
            let (text, following) = parenthesis(open)?;
            inside = Some(text);
            after = following;
        }
        items.push(Item {
            text: &rest[..rest.len() - after.len()],
            phrase,
            parenthesis: inside,
            renamed: None,
            object: None,
        });
        rest = after_separator(after)?;
    }
    Ok(items)
}

/// The first clause of a parenthesis: its text up to the first top-level `;` or `,`.
fn first_clause(text: &str) -> &str {
    let semicolon = split_top_level(text, ';')[0];
    split_top_level(semicolon, ',')[0].trim()
}

/// The fields of a `data:` line (its text after `data: `).
fn data_fields(line: usize, text: &str) -> Read<Vec<RefField>> {
    fields_of_items(line, &items(list_part(text))?)
}

fn fields_of_items(line: usize, items: &[Item<'_>]) -> Read<Vec<RefField>> {
    const DECLARED: &str = "declared as ";
    const DELIVERED: &str = " but delivered with the ";
    let mut fields: Vec<RefField> = Vec::new();
    // Bare names waiting for a plural type: `totalResults, totalPages (integers)`.
    let mut bare: Vec<usize> = Vec::new();
    for item in items {
        let ty = if let Some(object) = &item.object {
            RefType::Inline(fields_of_items(line, object)?)
        } else if let Some(inside) = item.parenthesis {
            let clause = first_clause(inside);
            if let Some(plural) = plural_type(clause) {
                for &at in &bare {
                    fields[at].ty = plural.clone();
                }
                plural
            } else if let Some(types) = clause.strip_prefix(DECLARED) {
                // `declared as TimesheetData but delivered with the StatusReportData fields`
                let delivered = types
                    .split_once(DELIVERED)
                    .and_then(|(_, delivered)| delivered.strip_suffix(" fields"))
                    .filter(|name| is_identifier(name))
                    .ok_or_else(|| format!("cannot read the delivered type in '{clause}'"))?;
                RefType::Record(delivered.to_owned())
            } else {
                // A description rather than a type states none.
                parse_type(clause).unwrap_or(RefType::Unstated)
            }
        } else {
            RefType::Unstated
        };
        if item.parenthesis.is_some() {
            bare.clear();
        } else if item.object.is_none() {
            bare.push(fields.len());
        }
        fields.push(RefField {
            name: item.name()?.to_owned(),
            documented_as: item.renamed.map(|(documented, _)| documented.to_owned()),
            ty,
            line,
            source: format!("data: {}", item.text),
        });
    }
    Ok(fields)
}

/// The parameters of a `Parameter:`/`Parameters:` sentence (its text after the lead).
fn prose_params(line: usize, text: &str) -> Read<Vec<RefField>> {
    items(list_part(text))?
        .iter()
        .map(|item| {
            let inside = item
                .parenthesis
                .ok_or_else(|| format!("the parameter '{}' has no (type)", item.phrase))?;
            if item.renamed.is_some() || item.object.is_some() {
                return Err(format!("cannot read the parameter '{}'", item.text));
            }
            Ok(RefField {
                name: item.name()?.to_owned(),
                documented_as: None,
                ty: parse_type(first_clause(inside))?,
                line,
                source: item.text.to_owned(),
            })
        })
        .collect()
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

    #[test]
    fn data_lines_share_plural_types_rename_and_nest() {
        let fields = data_fields(
            7,
            "a, b (integers), c (BidData) and billing, an object with d (collection of X), \
             e (Y). The properties are documented elsewhere.",
        )
        .unwrap();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "billing"]);
        assert_eq!(fields[0].ty, RefType::Integer);
        assert_eq!(fields[2].ty, record("BidData"));
        let RefType::Inline(inner) = &fields[3].ty else {
            panic!("{:?}", fields[3].ty)
        };
        assert_eq!(inner[0].ty, RefType::List(Some(Box::new(record("X")))));
        assert_eq!(inner[1].ty, record("Y"));

        let renamed = data_fields(
            9,
            "bidDetails (BidData) and the payment record (PaymentData), documented under the \
             name invoice and delivered under the name payment.",
        )
        .unwrap();
        assert_eq!(renamed[1].name, "payment");
        assert_eq!(renamed[1].documented_as.as_deref(), Some("invoice"));
        assert_eq!(renamed[1].ty, record("PaymentData"));
    }

    #[test]
    fn data_items_without_a_type_state_none() {
        let fields = data_fields(
            3,
            "date (date of the data), comments, s (declared as A but delivered with the B fields), \
             hours (integer JSON number; hours worked), n (JSON number).",
        )
        .unwrap();
        let types: Vec<&RefType> = fields.iter().map(|f| &f.ty).collect();
        assert_eq!(
            types,
            [
                &RefType::Unstated,
                &RefType::Unstated,
                &record("B"),
                &RefType::Integer,
                &RefType::Number
            ]
        );
    }

    #[test]
    fn prose_parameters_end_at_the_sentence_or_colon() {
        let params = prose_params(
            4,
            "id (integer; required when bidId absent) and bidId (integer; required when id \
             absent; when id is absent, the current report is returned).",
        )
        .unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[1].name, "bidId");
        let params =
            prose_params(5, "id (integer, required): invoice ID, taken from A.b.").unwrap();
        assert_eq!(params.len(), 1);
        assert_eq!(params[0].ty, RefType::Integer);
        assert_eq!(params[0].source, "id (integer, required)");
    }

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

    #[test]
    fn quotes_are_found_whatever_the_white_space() {
        let reference = parse_reference("a  b\nc", "ref.md").unwrap();
        assert!(reference.contains_quote("a b c"));
        assert!(!reference.contains_quote("a c"));
        assert!(!reference.contains_quote(" "));
    }
}
