//! What `## Endpoints` documents of each method: its parameters (a table, a prose sentence, or
//! "Parameters identical to" another method's), its `data:` line, and the token endpoints'
//! response variables.

use super::lists::{data_fields, prose_params, sentence_starting};
use super::tables::Row;
use super::types::parse_type;
use super::{
    Heading, MAX_COPIED, Read, Reader, RefField, TokenResponse, field_size, is_identifier,
};
use crate::diagnostic::did_you_mean;

impl Reader {
    /// A prose line under a method's heading: its `data:` line or its parameters.
    pub(super) fn method_prose(&mut self, line: usize, text: &str, method: &str) -> Read<()> {
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

    /// A `| Parameter | Required | Type | Rule |` table, under a method's heading.
    pub(super) fn param_table(&mut self, rows: &[Row]) -> Read<()> {
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

    /// The `| Endpoint | Response variables |` table of the token endpoints.
    pub(super) fn token_table(&mut self, rows: &[Row]) {
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

    /// Copies the parameters each "Parameters identical to" names, once every method is read.
    pub(super) fn share_identical_params(&mut self) {
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
    }
}
