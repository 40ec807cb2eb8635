//! Markdown tables: the header names the kind, the separator row is checked, and the body rows
//! go to the reader of that kind (`fields`, `endpoints`).

use super::Reader;

impl Reader {
    /// The table of `rows`, whose first is at `first_line`.
    pub(super) fn table(&mut self, first_line: usize, rows: &[&str]) {
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
}

enum TableKind {
    Fields,
    Params,
    TokenResponses,
}

/// A body row of a table, with as many cells as its header.
pub(super) struct Row {
    pub(super) line: usize,
    pub(super) source: String,
    pub(super) cells: Vec<String>,
}

/// The cells of a table row, trimmed.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').map(|cell| cell.trim().to_owned()).collect()
}
