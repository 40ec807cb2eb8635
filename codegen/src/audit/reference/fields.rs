//! The fields the reference documents: the envelope's table (`## What the service does`), a
//! resource's table under its `###` heading or its "fields not shown" line (`## Resources and
//! their fields`), and the sentence naming the collections.

use std::collections::HashSet;

use super::tables::Row;
use super::types::parse_type;
use super::{
    Heading, MAX_COPIED, Read, Reader, RefField, RefType, Resource, Section, is_identifier,
    type_size,
};

impl Reader {
    /// "Collections documented as arrays (timesheets, statusReports, …) are delivered as …".
    pub(super) fn collections_sentence(&mut self, text: &str) -> Read<()> {
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
    pub(super) fn fields_not_shown(&mut self, line: usize, text: &str) -> Read<()> {
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

    /// A `| Field | Type | Notes |` table: the envelope's, or the resource's it is under.
    pub(super) fn field_table(&mut self, rows: &[Row]) -> Read<()> {
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
}

/// A field named among "Collections documented as arrays" whose type is a resource, or not
/// stated, is a collection of it.
pub(super) fn apply_collections(field: &mut RefField, collections: &HashSet<String>) {
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
