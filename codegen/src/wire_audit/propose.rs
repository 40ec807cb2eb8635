//! The proposals written into a copy of the spec files, as text edits that keep the files'
//! formatting and comments ([`crate::yaml_edit`]).

use std::collections::{BTreeMap, BTreeSet};

use super::{Proposal, ProposedValue};
use crate::SpecSource;
use crate::ir::Api;
use crate::yaml_edit::{YamlText, YamlValue};

/// The spec files with the proposals written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposed {
    /// Every spec file, edited or not, in the order given.
    pub sources: Vec<SpecSource>,
    /// Proposals that could not be written, with the reason (the file keeps the others).
    pub refused: Vec<String>,
}

/// The most edits written in one run: each one locates its place in the file afresh (the
/// edits before it moved the lines), so their number multiplies the file's size; and no
/// reviewer reads more in one spec diff.
const MAX_EDITS: usize = 200;

/// What a new item says of itself in the spec.
const NEW_DOC: &str = "Not in the reference; seen in recorded traffic (cargo xtask wire-audit).";

/// Each spec file's tree, parsed on first use and once: a run may extend a list in every
/// method of a file.
struct Trees<'s> {
    sources: &'s [SpecSource],
    parsed: Vec<std::cell::OnceCell<Option<serde_yaml::Value>>>,
}

impl<'s> Trees<'s> {
    fn new(sources: &'s [SpecSource]) -> Self {
        let parsed = sources.iter().map(|_| std::cell::OnceCell::new()).collect();
        Trees { sources, parsed }
    }

    /// The set `read` (as the IR holds it: sorted) in the order file `file` writes it at
    /// `path`, so that a list extended by a proposal shows in the spec's diff as the items
    /// added, not as a reorder; `read` itself where the file writes another list there (or
    /// none).
    fn as_written(&self, file: usize, path: &[&str], read: Vec<String>) -> Vec<String> {
        let tree = self
            .parsed
            .get(file)
            .and_then(|cell| cell.get_or_init(|| self.sources[file].parsed()).as_ref());
        let Some(written) = tree.and_then(|tree| crate::spec_source::written_list(tree, path))
        else {
            return read;
        };
        let same_set = written.len() == read.len()
            && written.iter().collect::<BTreeSet<_>>() == read.iter().collect::<BTreeSet<_>>();
        if same_set { written } else { read }
    }
}

/// Writes `proposals` into copies of `sources` (the files `api` was resolved from). Each
/// proposal is written once however many findings made it; error codes are declared once,
/// with every method that answered them. The caller resolves the result: an edit the spec
/// format refuses shows there, with its position.
pub fn propose(api: &Api, sources: &[SpecSource], proposals: &[Proposal]) -> Proposed {
    // Items named by proposals, looked up rather than searched per proposal.
    let lookup = api.lookup();
    let trees = Trees::new(sources);
    let mut files: Vec<YamlText> = sources.iter().map(|s| YamlText::new(&s.text)).collect();
    let mut refused = Vec::new();
    let proposals: BTreeSet<&Proposal> = proposals.iter().collect();
    // Error codes: which methods each new or newly listed code needs.
    let mut codes: BTreeMap<&str, (bool, Vec<&str>)> = BTreeMap::new();
    for proposal in &proposals {
        if let Proposal::AddMethodError {
            method,
            code,
            declare,
        } = proposal
        {
            let entry = codes.entry(code.as_str()).or_insert((*declare, Vec::new()));
            if !method.starts_with("oauth/") {
                entry.1.push(method.as_str());
            }
        }
    }
    // Each method's proposed codes, in proposal order (looked up, not searched, per proposal).
    let mut codes_by_method: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for proposal in &proposals {
        if let Proposal::AddMethodError { method, code, .. } = proposal {
            codes_by_method.entry(method).or_default().push(code);
        }
    }
    let mut methods_written: BTreeSet<&str> = BTreeSet::new();
    let path = |parts: &[&str]| -> Vec<String> { parts.iter().map(|p| (*p).to_owned()).collect() };
    let mut edits = 0usize;
    let mut apply =
        |file: usize,
         what: &Proposal,
         edit: &mut dyn FnMut(&mut YamlText) -> Result<(), String>| {
            // Each edit re-reads its file's positions: a bounded number keeps this linear.
            edits += 1;
            if edits > MAX_EDITS {
                refused.push(format!(
                    "{what}: more than {MAX_EDITS} proposals in one run; review these, then \
                     audit again"
                ));
                return;
            }
            match files.get_mut(file) {
                Some(text) => {
                    if let Err(reason) = edit(text) {
                        refused.push(format!("{what}: {reason}"));
                    }
                }
                None => refused.push(format!("{what}: no spec file to write it in")),
            }
        };
    for proposal in &proposals {
        match proposal {
            Proposal::AddField {
                record,
                field,
                keys,
            } => {
                let Some(r) = lookup.record_named(record) else {
                    continue;
                };
                let body = YamlValue::Entries(
                    keys.iter()
                        .map(|(key, value)| (key.clone(), value_of_key(key, value)))
                        .collect(),
                );
                apply(r.file, proposal, &mut |text| {
                    text.append(&path(&["types", record, "fields"]), field, &body)
                });
            }
            Proposal::EditField {
                record,
                field,
                set,
                remove,
            } => {
                let Some(r) = lookup.record_named(record) else {
                    continue;
                };
                let at = path(&["types", record, "fields", field]);
                apply(r.file, proposal, &mut |text| {
                    for key in remove {
                        let mut gone = at.clone();
                        gone.push(key.clone());
                        text.remove(&gone);
                    }
                    for (key, value) in set {
                        text.set(&at, key, &yaml(value), Some("type"))?;
                    }
                    Ok(())
                });
            }
            Proposal::AddEnumValue { enumeration, value } => {
                let Some(e) = lookup.enum_named(enumeration) else {
                    continue;
                };
                apply(e.file, proposal, &mut |text| {
                    let values = path(&["enums", enumeration, "values"]);
                    text.append(&values, value, &YamlValue::Scalar(NEW_DOC.to_owned()))
                });
            }
            Proposal::AddMethodError { method, .. } => {
                let Some(m) = lookup.method_named(method) else {
                    continue;
                };
                // Once per method: the first of its proposals writes every code.
                if !methods_written.insert(method.as_str()) {
                    continue;
                }
                #[expect(
                    clippy::disallowed_fields,
                    reason = "the method's own list is what this writes, extended"
                )]
                let own = &m.errors;
                let listed: BTreeSet<&str> = own.iter().map(|e| e.as_str()).collect();
                let mut list = trees.as_written(
                    m.file,
                    &["methods", method, "errors"],
                    own.iter().map(|c| c.to_string()).collect(),
                );
                list.extend(
                    codes_by_method
                        .get(method.as_str())
                        .into_iter()
                        .flatten()
                        .filter(|code| !listed.contains(*code))
                        .map(|code| (*code).to_owned()),
                );
                apply(m.file, proposal, &mut |text| {
                    text.set(
                        &path(&["methods", method]),
                        "errors",
                        &YamlValue::FlowList(list.clone()),
                        None,
                    )
                });
            }
            Proposal::SetMethodKey { method, key, value } => {
                let Some(m) = lookup.method_named(method) else {
                    continue;
                };
                apply(m.file, proposal, &mut |text| {
                    text.set(
                        &path(&["methods", method]),
                        key,
                        &YamlValue::Scalar(value.clone()),
                        Some("response"),
                    )
                });
            }
        }
    }
    // The codes: declared where the others are, or their method lists extended.
    let errors_file = api
        .errors
        .first()
        .map(|e| e.file)
        .or(api.info.as_ref().map(|i| i.file))
        .unwrap_or(0);
    for (code, (declare, methods)) in codes {
        let what = Proposal::AddMethodError {
            method: methods.first().copied().unwrap_or("oauth/").to_owned(),
            code: code.to_owned(),
            declare,
        };
        let methods: Vec<String> = methods.iter().map(|m| (*m).to_owned()).collect();
        if declare {
            let mut body = vec![("doc".to_owned(), YamlValue::Scalar(NEW_DOC.to_owned()))];
            if !methods.is_empty() {
                body.push(("methods".to_owned(), YamlValue::FlowList(methods)));
            }
            apply(errors_file, &what, &mut |text| {
                text.append(&path(&["errors"]), code, &YamlValue::Entries(body.clone()))
            });
        } else if let Some(declared) = lookup.error_named(code) {
            // A code for every method needs no list; one with a list gains the methods.
            if let Some(listed) = &declared.methods {
                let mut all = trees.as_written(
                    declared.file,
                    &["errors", code, "methods"],
                    listed.iter().map(|m| m.to_string()).collect(),
                );
                let mut present: BTreeSet<String> = all.iter().cloned().collect();
                for method in methods {
                    if present.insert(method.clone()) {
                        all.push(method);
                    }
                }
                apply(declared.file, &what, &mut |text| {
                    text.set(
                        &path(&["errors", code]),
                        "methods",
                        &YamlValue::FlowList(all.clone()),
                        None,
                    )
                });
            }
        }
    }
    Proposed {
        sources: sources
            .iter()
            .zip(&files)
            .map(|(source, text)| {
                let edited = text.text();
                SpecSource {
                    path: source.path.clone(),
                    // An untouched file stays byte for byte as it was.
                    text: if edited.trim_end() == source.text.trim_end() {
                        source.text.clone()
                    } else {
                        edited
                    },
                }
            })
            .collect(),
        refused,
    }
}

/// A key of a new field, as YAML: `true` plain, everything else a scalar.
fn value_of_key(key: &str, value: &str) -> YamlValue {
    match (key, value) {
        ("nullable", "true") => YamlValue::Plain("true".to_owned()),
        _ => YamlValue::Scalar(value.to_owned()),
    }
}

fn yaml(value: &ProposedValue) -> YamlValue {
    match value {
        ProposedValue::Text(text) => YamlValue::Scalar(text.clone()),
        ProposedValue::True => YamlValue::Plain("true".to_owned()),
        ProposedValue::List(items) => YamlValue::FlowList(items.clone()),
        ProposedValue::PerMethod(entries) => YamlValue::BlockMap(entries.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real spec, with `edit` made to the text of the file named `file`.
    fn spec_with(file: &str, edit: impl Fn(&str) -> String) -> (Api, Vec<SpecSource>) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let mut sources = crate::load_spec_dir(&dir, "spec").expect("the spec loads");
        let source = sources
            .iter_mut()
            .find(|s| s.path.ends_with(file))
            .expect("the file is in the spec");
        source.text = edit(&source.text);
        let api = crate::resolve(&sources).expect("the spec is valid");
        (api, sources)
    }

    /// The one line of the proposed copy of `file` that starts with `start` (after its
    /// indentation) and holds `holding`.
    fn proposed_line(proposed: &Proposed, file: &str, start: &str, holding: &str) -> String {
        assert!(proposed.refused.is_empty(), "{:?}", proposed.refused);
        let source = proposed
            .sources
            .iter()
            .find(|s| s.path.ends_with(file))
            .expect("the file is proposed");
        let found: Vec<&str> = source
            .text
            .lines()
            .map(str::trim_start)
            .filter(|line| line.starts_with(start) && line.contains(holding))
            .collect();
        assert_eq!(found.len(), 1, "{start} … {holding}: {found:?}");
        found[0].to_owned()
    }

    /// The IR reads the lists that are sets sorted; a proposal that extends one writes the
    /// list back as the file wrote it, with the new items after, so that the spec's diff
    /// shows what was added and no reorder.
    #[test]
    fn an_extended_list_keeps_the_order_the_spec_writes() {
        // An error's methods, written out of name order by the spec itself.
        let listed = "methods: [pay/getTimesheet, pay/getStatusReport]";
        let (api, sources) = spec_with("api.yaml", |text| {
            assert!(text.contains(listed), "the spec changed: update this test");
            text.to_owned()
        });
        let proposal = Proposal::AddMethodError {
            method: "pay/getInvoice".to_owned(),
            code: "E_VALIDATION_INVALID_ID_BIDID".to_owned(),
            declare: false,
        };
        let proposed = propose(&api, &sources, &[proposal]);
        assert_eq!(
            proposed_line(&proposed, "api.yaml", "methods:", "pay/getInvoice"),
            "methods: [pay/getTimesheet, pay/getStatusReport, pay/getInvoice]"
        );

        // A method's errors, written out of name order.
        let sorted = "errors: [E_API_AUTH_SIGNATURE_MISMATCH, E_VALIDATION_INVALID_ID]";
        let reversed = "errors: [E_VALIDATION_INVALID_ID, E_API_AUTH_SIGNATURE_MISMATCH]";
        let (api, sources) = spec_with("pay.yaml", |text| {
            assert!(text.contains(sorted), "the spec changed: update this test");
            text.replace(sorted, reversed)
        });
        let proposal = Proposal::AddMethodError {
            method: "pay/getInvoice".to_owned(),
            code: "E_API_RATE_LIMITED".to_owned(),
            declare: true,
        };
        let proposed = propose(&api, &sources, &[proposal]);
        let method = api
            .methods
            .iter()
            .find(|m| m.name == "pay/getInvoice")
            .expect("pay/getInvoice");
        let line = proposed_line(
            &proposed,
            &sources[method.file].path,
            "errors:",
            "E_API_RATE_LIMITED",
        );
        assert_eq!(
            line,
            "errors: [E_VALIDATION_INVALID_ID, E_API_AUTH_SIGNATURE_MISMATCH, E_API_RATE_LIMITED]"
        );
    }
}
