//! Prose lists: the items of a `data:` line and of a `Parameter:`/`Parameters:` sentence.

use super::types::{parse_type, plural_type};
use super::{Read, RefField, RefType, is_identifier, split_top_level};

/// Where `lead` starts a sentence of `text` (at its start or after ". "), just after `lead`.
pub(super) fn sentence_starting(text: &str, lead: &str) -> Option<usize> {
    text.match_indices(lead)
        .find(|(at, _)| *at == 0 || text[..*at].ends_with(". "))
        .map(|(at, _)| at + lead.len())
}

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
pub(super) fn data_fields(line: usize, text: &str) -> Read<Vec<RefField>> {
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
pub(super) fn prose_params(line: usize, text: &str) -> Read<Vec<RefField>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str) -> RefType {
        RefType::Record(name.to_owned())
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
}
