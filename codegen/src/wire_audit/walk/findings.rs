//! The tallies as findings: each located in the spec, with its proposal; and the fields no
//! answer held.

use super::Walker;
use super::evidence::{Key, Seen, Subject, Tally};
use crate::SpecSource;
use crate::audit::SpecPlace;
use crate::location::SourceIndexes;
use crate::wire_audit::{Coverage, Finding, FindingKind};

impl Walker<'_> {
    /// The findings, located, with their proposals; and the coverage.
    pub(in crate::wire_audit) fn finish(
        mut self,
        locations: &SourceIndexes<'_>,
        sources: &[SpecSource],
    ) -> (Vec<Finding>, Coverage) {
        self.never_seen();
        self.coverage.methods = self.recorded.len();
        self.coverage.unrecorded_methods = self
            .api
            .methods
            .iter()
            .filter(|m| !self.recorded.contains(&m.name))
            .map(|m| m.name.clone())
            .collect();
        let findings = self
            .tallies
            .iter()
            .map(|(key, tally)| {
                let spec = self.spec_place(&key.subject, locations, sources);
                Finding {
                    kind: key.kind,
                    spec,
                    method: key.method.clone(),
                    json_path: key.path.clone(),
                    count: tally.count,
                    example: tally.example.clone(),
                    example_source: tally.source.clone(),
                    message: tally.message.clone(),
                    proposal: self.proposal(key),
                }
            })
            .collect();
        (findings, self.coverage)
    }

    /// Declared fields no answer of a method that delivers them held, where answers with the
    /// record were recorded.
    fn never_seen(&mut self) {
        let api = self.api;
        for record in &api.records {
            for field in &record.fields {
                let per_method: Vec<(&String, &Seen)> = self
                    .seen_of(&record.name, &field.wire_name)
                    .filter(|(m, _)| self.index.presence(field, m).1)
                    .collect();
                let objects: usize = per_method.iter().map(|(_, s)| s.objects).sum();
                let present: usize = per_method.iter().map(|(_, s)| s.present).sum();
                if objects == 0 || present > 0 {
                    continue;
                }
                let must = per_method
                    .iter()
                    .any(|(m, _)| self.index.presence(field, m).0);
                if must {
                    // Reported as missing already.
                    continue;
                }
                let methods: Vec<&str> = per_method.iter().map(|(m, _)| m.as_str()).collect();
                let (method, seen) = per_method[0];
                let message = format!(
                    "none of {objects} recorded {} objects of {} has it",
                    record.name,
                    methods.join(", ")
                );
                let key = Key {
                    kind: FindingKind::NeverSeen,
                    subject: Subject::Field {
                        record: record.name.clone(),
                        field: field.wire_name.clone(),
                    },
                    method: method.clone(),
                    path: format!("{}.{}", seen.path, field.wire_name),
                };
                let source = seen.missing_at.clone().unwrap_or_default();
                self.tallies.insert(
                    key,
                    Tally {
                        count: objects,
                        example: None,
                        source,
                        message,
                    },
                );
            }
        }
    }

    /// Where `subject` is in the spec files.
    fn spec_place(
        &self,
        subject: &Subject,
        locations: &SourceIndexes<'_>,
        sources: &[SpecSource],
    ) -> SpecPlace {
        let api = self.api;
        let (file, path): (usize, Vec<String>) = match subject {
            Subject::Field { record, field } => {
                let r = self.index.records.get(record.as_str());
                (
                    r.map_or(0, |r| r.file),
                    vec![
                        "types".into(),
                        record.clone(),
                        "fields".into(),
                        field.clone(),
                    ],
                )
            }
            Subject::Record { record, .. } => {
                let r = self.index.records.get(record.as_str());
                (
                    r.map_or(0, |r| r.file),
                    vec!["types".into(), record.clone(), "fields".into()],
                )
            }
            Subject::EnumValue { enumeration, .. } => {
                let e = self.index.enums.get(enumeration.as_str()).map(|(e, _)| e);
                (
                    e.map_or(0, |e| e.file),
                    vec!["enums".into(), enumeration.clone(), "values".into()],
                )
            }
            Subject::Method { method } => {
                let m = self.index.methods.get(method.as_str());
                (
                    m.map_or(0, |m| m.file),
                    vec!["methods".into(), method.clone()],
                )
            }
            Subject::Error { method, code } => match self.index.methods.get(method.as_str()) {
                Some(m) => (
                    m.file,
                    vec!["methods".into(), method.clone(), "errors".into()],
                ),
                None => {
                    let file = self
                        .index
                        .codes
                        .get(code.as_str())
                        .copied()
                        .or(api.errors.first())
                        .map(|e| e.file)
                        .or(api.info.as_ref().map(|i| i.file))
                        .unwrap_or(0);
                    (file, vec!["errors".into(), code.clone()])
                }
            },
        };
        SpecPlace {
            file: sources
                .get(file)
                .map_or_else(String::new, |s| s.path.clone()),
            location: locations.find(file, &path),
            path: path.join("."),
        }
    }
}
