//! Text edits of a spec file that keep its formatting and comments: an entry of a block
//! mapping set, replaced, removed or added, found through the location index
//! ([`crate::location`]) and measured by indentation.
//!
//! An entry runs from its key's line to the last line indented deeper than the key (blank
//! lines and comments inside it included, trailing ones not), which is what a YAML block
//! mapping entry is. Entries written in flow style (`{ type: id }`) are edited as a whole
//! line only where they sit on one line; anything else is refused with a reason, never
//! written half.

use crate::location::LocationIndex;

/// A value to write under a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum YamlValue {
    /// A scalar, written plain when YAML reads it back as the same text, else double-quoted.
    Scalar(String),
    /// YAML text written as it is (`true`, `42`).
    Plain(String),
    /// A list, in flow style: `[a, b]`.
    FlowList(Vec<String>),
    /// A mapping of scalars, in block style, one entry per line.
    BlockMap(Vec<(String, String)>),
    /// A mapping of values, in block style (for a new entry's body).
    Entries(Vec<(String, YamlValue)>),
}

impl YamlValue {
    /// The lines of `key: value` at `indent` spaces.
    fn lines(&self, key: &str, indent: usize) -> Vec<String> {
        let pad = " ".repeat(indent);
        let key = scalar(key);
        match self {
            YamlValue::Scalar(text) => vec![format!("{pad}{key}: {}", scalar(text))],
            YamlValue::Plain(text) => vec![format!("{pad}{key}: {text}")],
            YamlValue::FlowList(items) => {
                let items: Vec<String> = items.iter().map(|item| scalar(item)).collect();
                vec![format!("{pad}{key}: [{}]", items.join(", "))]
            }
            YamlValue::BlockMap(entries) => {
                let mut lines = vec![format!("{pad}{key}:")];
                for (name, value) in entries {
                    lines.push(format!("{pad}  {}: {}", scalar(name), scalar(value)));
                }
                lines
            }
            YamlValue::Entries(entries) => {
                let mut lines = vec![format!("{pad}{key}:")];
                for (name, value) in entries {
                    lines.extend(value.lines(name, indent + 2));
                }
                lines
            }
        }
    }
}

/// `text` as a YAML scalar: plain when that reads back as the same string (letters, digits,
/// spaces and `_./-`, not a YAML keyword or number), else as a JSON string, which YAML reads
/// as a double-quoted scalar.
pub(crate) fn scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" _./-()',;<>".contains(&b))
        && text.as_bytes()[0].is_ascii_alphabetic()
        && !text.ends_with(' ')
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        text.to_owned()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

/// One spec file's text being edited.
pub(crate) struct YamlText {
    lines: Vec<String>,
}

/// The lines an entry takes, 0-based and inclusive, and its key's indentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    first: usize,
    last: usize,
    indent: usize,
}

impl YamlText {
    pub(crate) fn new(text: &str) -> YamlText {
        YamlText {
            lines: text.lines().map(str::to_owned).collect(),
        }
    }

    /// The text, with a final line break.
    pub(crate) fn text(&self) -> String {
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }

    fn index(&self) -> LocationIndex {
        LocationIndex::new(&self.text())
    }

    /// The lines of the entry at `path` (its key must be written exactly there).
    fn span(&self, index: &LocationIndex, path: &[String]) -> Option<Span> {
        let at = index.key(path)?;
        let first = at.line - 1;
        let indent = at.column - 1;
        let mut last = first;
        for (number, line) in self.lines.iter().enumerate().skip(first + 1) {
            let trimmed = line.trim_start();
            if trimmed.is_empty() {
                continue;
            }
            if line.len() - trimmed.len() <= indent {
                break;
            }
            last = number;
        }
        Some(Span {
            first,
            last,
            indent,
        })
    }

    /// Sets `key` of the block mapping at `mapping` to `value`: the entry is replaced where it
    /// exists, else added after the entry `after` (or at the end of the mapping).
    pub(crate) fn set(
        &mut self,
        mapping: &[String],
        key: &str,
        value: &YamlValue,
        after: Option<&str>,
    ) -> Result<(), String> {
        let index = self.index();
        let path = join(mapping, key);
        if let Some(span) = self.span(&index, &path) {
            self.lines
                .splice(span.first..=span.last, value.lines(key, span.indent));
            return Ok(());
        }
        let (line, indent) = self.insertion_point(&index, mapping, after)?;
        self.lines.splice(line..line, value.lines(key, indent));
        Ok(())
    }

    /// Adds a new entry `key` with `value` at the end of the block mapping at `mapping`.
    pub(crate) fn append(
        &mut self,
        mapping: &[String],
        key: &str,
        value: &YamlValue,
    ) -> Result<(), String> {
        let index = self.index();
        if index.key(&join(mapping, key)).is_some() {
            return Err(format!("{} already exists", dotted(&join(mapping, key))));
        }
        let (line, indent) = self.insertion_point(&index, mapping, None)?;
        self.lines.splice(line..line, value.lines(key, indent));
        Ok(())
    }

    /// Renames the key of the entry at `path` to `key`, in place (its value, comments and
    /// layout kept). The key must be written as a plain or quoted scalar before its `:`.
    pub(crate) fn rename(&mut self, path: &[String], key: &str) -> Result<(), String> {
        let index = self.index();
        let at = index
            .key(path)
            .ok_or_else(|| format!("{} is not there", dotted(path)))?;
        let line = self
            .lines
            .get_mut(at.line - 1)
            .ok_or_else(|| format!("{} is past the end", dotted(path)))?;
        let start = line
            .char_indices()
            .nth(at.column - 1)
            .map(|(byte, _)| byte)
            .ok_or_else(|| format!("{} is past its line", dotted(path)))?;
        let written = path.last().map(String::as_str).unwrap_or_default();
        let end = [scalar(written), written.to_owned()]
            .iter()
            .find(|text| line[start..].starts_with(text.as_str()))
            .map(|text| start + text.len())
            .ok_or_else(|| format!("{} is not written as a plain key", dotted(path)))?;
        line.replace_range(start..end, &scalar(key));
        Ok(())
    }

    /// The lines of the entry at `path` (its key line and everything indented under it),
    /// removed from the text, with the key's indentation taken off.
    pub(crate) fn take(&mut self, path: &[String]) -> Option<Vec<String>> {
        let index = self.index();
        let span = self.span(&index, path)?;
        let lines = self
            .lines
            .drain(span.first..=span.last)
            .map(|line| line.get(span.indent..).unwrap_or_default().to_owned())
            .collect();
        Some(lines)
    }

    /// Adds `lines` (an entry as [`Self::take`] gives it) at the end of the block mapping at
    /// `mapping`, indented as its entries are.
    pub(crate) fn append_lines(
        &mut self,
        mapping: &[String],
        lines: &[String],
    ) -> Result<(), String> {
        let index = self.index();
        let (line, indent) = self.insertion_point(&index, mapping, None)?;
        let pad = " ".repeat(indent);
        let indented: Vec<String> = lines
            .iter()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{pad}{l}")
                }
            })
            .collect();
        self.lines.splice(line..line, indented);
        Ok(())
    }

    /// Removes the entry at `path`, if it is there.
    pub(crate) fn remove(&mut self, path: &[String]) {
        let index = self.index();
        if let Some(span) = self.span(&index, path) {
            self.lines.drain(span.first..=span.last);
        }
    }

    /// Where a new entry of the block mapping at `mapping` goes (after the entry `after`, or
    /// after the last entry) and how far it is indented (as its siblings are).
    fn insertion_point(
        &self,
        index: &LocationIndex,
        mapping: &[String],
        after: Option<&str>,
    ) -> Result<(usize, usize), String> {
        let children = index.children(mapping);
        let Some((_, first)) = children.first() else {
            return Err(format!(
                "{} is not a block mapping with entries",
                dotted(mapping)
            ));
        };
        let indent = first.column - 1;
        let own = self.span(index, mapping);
        if own.is_some_and(|own| own.first == first.line - 1) {
            return Err(format!(
                "{} is written in flow style: edit it by hand",
                dotted(mapping)
            ));
        }
        let anchor = after
            .and_then(|key| children.iter().find(|(name, _)| name == key))
            .or(children.last())
            .map(|(name, _)| join(mapping, name));
        let span = anchor
            .and_then(|path| self.span(index, &path))
            .ok_or_else(|| format!("cannot find the entries of {}", dotted(mapping)))?;
        Ok((span.last + 1, indent))
    }
}

fn join(mapping: &[String], key: &str) -> Vec<String> {
    let mut path = mapping.to_vec();
    path.push(key.to_owned());
    path
}

fn dotted(path: &[String]) -> String {
    path.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_owned).collect()
    }

    const SPEC: &str = "\
types:
  Timesheet:
    fields:
      # The ID.
      id:
        type: id
        doc: Timesheet ID.

      rate:
        type: decimal
        encoding:
          pay/a: string
          pay/b: number
        doc: |
          Hourly rate.

          Money.
enums:
  Status:
    values:
      Draft: Not sent.
";

    #[test]
    fn replaces_an_entry_with_its_block_and_keeps_everything_else() {
        let mut text = YamlText::new(SPEC);
        text.set(
            &path("types.Timesheet.fields.rate"),
            "encoding",
            &YamlValue::Scalar("string_or_number".into()),
            Some("type"),
        )
        .unwrap();
        let expected = SPEC.replace(
            "        encoding:\n          pay/a: string\n          pay/b: number\n",
            "        encoding: string_or_number\n",
        );
        assert_eq!(text.text(), expected);
    }

    #[test]
    fn adds_an_entry_after_a_sibling_or_at_the_end_of_a_mapping() {
        let mut text = YamlText::new(SPEC);
        let fields = path("types.Timesheet.fields");
        text.set(
            &path("types.Timesheet.fields.id"),
            "nullable",
            &YamlValue::Plain("true".into()),
            Some("type"),
        )
        .unwrap();
        text.append(
            &fields,
            "hours",
            &YamlValue::Entries(vec![("type".into(), YamlValue::Scalar("decimal".into()))]),
        )
        .unwrap();
        text.append(
            &path("enums.Status.values"),
            "On Hold",
            &YamlValue::Scalar("Seen on the wire.".into()),
        )
        .unwrap();
        let out = text.text();
        assert!(
            out.contains("        type: id\n        nullable: true\n        doc: Timesheet ID.\n"),
            "{out}"
        );
        assert!(
            out.contains("          Money.\n      hours:\n        type: decimal\nenums:"),
            "{out}"
        );
        assert!(
            out.ends_with("      Draft: Not sent.\n      On Hold: Seen on the wire.\n"),
            "{out}"
        );
        assert!(out.contains("      # The ID.\n      id:\n"));
    }

    #[test]
    fn removes_an_entry_and_refuses_what_it_cannot_find() {
        let mut text = YamlText::new(SPEC);
        text.remove(&path("types.Timesheet.fields.rate.encoding"));
        assert!(!text.text().contains("pay/a"));
        assert!(
            text.text()
                .contains("        type: decimal\n        doc: |\n")
        );
        let error = text
            .append(
                &path("types.Nothing.fields"),
                "x",
                &YamlValue::Scalar("y".into()),
            )
            .unwrap_err();
        assert!(error.contains("types.Nothing.fields"), "{error}");
    }

    #[test]
    fn a_key_is_renamed_in_place_and_an_entry_moves_whole() {
        let mut text = YamlText::new(SPEC);
        text.rename(&path("types.Timesheet.fields.rate"), "hourlyRate")
            .unwrap();
        assert!(
            text.text()
                .contains("      hourlyRate:\n        type: decimal\n")
        );
        text.rename(&path("enums.Status.values.Draft"), "On Hold")
            .unwrap();
        assert!(text.text().contains("      On Hold: Not sent.\n"));
        assert!(text.rename(&path("types.Nothing"), "x").is_err());
        let entry = text.take(&path("types.Timesheet.fields.id")).unwrap();
        assert_eq!(entry, ["id:", "  type: id", "  doc: Timesheet ID."]);
        text.append_lines(&path("types.Timesheet.fields"), &entry)
            .unwrap();
        let out = text.text();
        assert!(
            out.contains(
                "          Money.\n      id:\n        type: id\n        doc: Timesheet ID.\nenums:"
            ),
            "{out}"
        );
    }

    #[test]
    fn scalars_are_quoted_only_when_yaml_would_read_them_otherwise() {
        assert_eq!(scalar("Release Request Sent"), "Release Request Sent");
        assert_eq!(scalar("pay/getTimesheet"), "pay/getTimesheet");
        assert_eq!(scalar("yes"), "\"yes\"");
        assert_eq!(scalar("30"), "\"30\"");
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar(""), "\"\"");
    }
}
