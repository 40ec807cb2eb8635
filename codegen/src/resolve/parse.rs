//! Reading one file: the pre-scan, the YAML parser, then serde into the [`SpecFile`] shape,
//! each failure reported with its position.

use serde_yaml::Value;

use super::Resolver;
use crate::diagnostic::{ErrorKind, SpecError, did_you_mean};
use crate::location::LineCol;
use crate::model::SpecFile;
use crate::prescan;
use crate::spec_source::SpecSource;
use crate::text;

impl Resolver<'_> {
    /// The file's sections, or `None` after reporting why it cannot be read (not YAML, not the
    /// shape of a spec file, refused by the pre-scan).
    pub(super) fn parse_file(&mut self, file: usize, source: &SpecSource) -> Option<SpecFile> {
        // Hostile nesting or aliases would make the YAML parser take minutes or gigabytes;
        // refuse them first.
        let text = source.yaml();
        if let Err(refusal) = prescan::check(text) {
            self.errors.push(SpecError {
                kind: refusal.kind,
                file: source.path.clone(),
                location: refusal.location,
                path: String::new(),
                message: refusal.message,
            });
            return None;
        }
        // Line breaks to the parser (YAML 1.1) that no editor shows as one, nor YAML 1.2
        // reads as one: text after one in a comment would be read as content, and one in a
        // quoted text would vanish into a space.
        if let Some((at, c)) = text
            .char_indices()
            .find(|(_, c)| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
        {
            self.errors.push(SpecError {
                kind: ErrorKind::InvalidYaml,
                file: source.path.clone(),
                location: Some(LineCol::at_byte(text.as_bytes(), at)),
                path: String::new(),
                message: format!(
                    "invalid YAML: the character U+{:04X}, a line break to the YAML parser but \
                     not to an editor: write a line feed, or remove it",
                    c as u32
                ),
            });
            return None;
        }
        let value: Value = match serde_yaml::from_str(text) {
            Ok(value) => value,
            Err(error) => {
                let (message, location) = yaml_error(text, &error);
                self.errors.push(SpecError {
                    kind: ErrorKind::InvalidYaml,
                    file: source.path.clone(),
                    location,
                    path: String::new(),
                    message: format!("invalid YAML: {message}"),
                });
                return None;
            }
        };
        if value.is_null() {
            return Some(SpecFile::default());
        }
        self.control_characters(file, &value, &mut Vec::new());
        match serde_path_to_error::deserialize::<_, SpecFile>(value) {
            Ok(spec) => Some(spec),
            Err(error) => {
                let path: Vec<String> = error
                    .path()
                    .iter()
                    .map(|segment| match segment {
                        serde_path_to_error::Segment::Seq { index } => index.to_string(),
                        serde_path_to_error::Segment::Map { key } => key.clone(),
                        serde_path_to_error::Segment::Enum { variant } => variant.clone(),
                        serde_path_to_error::Segment::Unknown => "?".to_owned(),
                    })
                    .collect();
                let explained = explain_serde_error(&error.into_inner().to_string());
                let mut shown = path.clone();
                let mut located = path;
                match explained.key {
                    // serde_path_to_error already ends the path with the offending key.
                    Some(key) if shown.last() == Some(&key) => {
                        shown.pop();
                    }
                    Some(key) => located.push(key),
                    None => {}
                }
                let location = self.locations.find(file, &located);
                self.errors.push(SpecError {
                    kind: explained.kind,
                    file: source.path.clone(),
                    location,
                    path: shown.join("."),
                    message: explained.message,
                });
                None
            }
        }
    }
}

/// The YAML parser's message without its position, and where in `text` it is. The parser
/// locates a syntax error by line and column, but a character its reader refuses (a control
/// character) only by byte offset (`... at position 159`, its place left at 1:1): that offset
/// is turned into line and column as every offset is ([`LineCol::at_byte`]).
fn yaml_error(text: &str, error: &serde_yaml::Error) -> (String, Option<LineCol>) {
    let message = error.to_string();
    if let Some(start) = message.find(" at position ") {
        let digits = &message[start + " at position ".len()..];
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        if let Ok(offset) = digits[..end].parse::<usize>() {
            let rest = &digits[end..];
            let location = LineCol::at_byte(text.as_bytes(), offset);
            return (format!("{}{rest}", &message[..start]), Some(location));
        }
    }
    let location = parser_place(error);
    let message = unplaced(error);
    // Two documents in one file are refused with no place: the second one's start is it.
    if location.is_none() && message.contains("more than one document") {
        return (message, second_document(text));
    }
    // The parser places a duplicate key at the start of its mapping; the entry to remove is
    // the repeated one.
    let location = match (message.find("duplicate entry "), location) {
        (Some(at), Some(mapping)) => {
            let textual = message[at..]
                .strip_prefix("duplicate entry with key ")
                .and_then(|key| repeated_key(text, mapping, key));
            Some(
                textual
                    .or_else(|| bisected(text, mapping, &message))
                    .unwrap_or(mapping),
            )
        }
        _ => location,
    };
    (message, location)
}

/// Where the parser places `error`.
fn parser_place(error: &serde_yaml::Error) -> Option<LineCol> {
    error.location().map(|place| LineCol {
        line: place.line(),
        column: place.column(),
    })
}

/// Where the second document of `text` starts: a `---` after the first document began (with
/// an earlier `---` or with content), or anything but a comment after its end (`...`). A
/// marker is a marker at the start of a line only, and no scalar's text can hold one there.
fn second_document(text: &str) -> Option<LineCol> {
    let (mut begun, mut ended) = (false, false);
    for (number, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let marker = |mark: &str| {
            line.strip_prefix(mark)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        };
        let here = Some(LineCol {
            line: number + 1,
            column: 1,
        });
        let content = line.trim_start_matches([' ', '\t']);
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if marker("...") {
            ended |= begun;
            begun = false;
        } else if ended || (begun && marker("---")) {
            return here;
        } else if !line.starts_with('%') {
            // A directive (`%YAML`) comes before its document's `---`.
            begun = true;
        }
    }
    None
}

/// The parser's message without its position.
fn unplaced(error: &serde_yaml::Error) -> String {
    let message = error.to_string();
    match message.find(" at line ") {
        Some(end) => message[..end].to_owned(),
        None => message,
    }
}

/// Where the block mapping whose first key is at `mapping` repeats a key, found by parsing:
/// the file cut before each entry of the mapping is valid YAML (every value before the cut is
/// closed), and the first cut whose parse already fails with `message` ends at the repeated
/// entry. Any spelling of a key (tags, anchors, `? `, escapes, keys that are not text) is
/// found so, in a number of parses logarithmic in the mapping's entries.
fn bisected(text: &str, mapping: LineCol, message: &str) -> Option<LineCol> {
    let indent = mapping.column.checked_sub(1)?;
    let first = mapping.line.checked_sub(1)?;
    // A block mapping only: its first key after indentation or a sequence's `- `.
    let first_line = text.lines().nth(first)?;
    let prefix = first_line.get(..indent)?;
    if !prefix.bytes().all(|b| b == b' ' || b == b'-') || first_line[indent..].starts_with('{') {
        return None;
    }
    // Each later entry of the mapping: its line number and where its line starts.
    let mut entries = Vec::new();
    let mut end = text.len();
    let mut offset = 0;
    for (number, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        if number <= first {
            continue;
        }
        let line = raw.trim_end_matches(['\n', '\r']);
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let depth = line.len() - content.len();
        if depth < indent || (depth == 0 && (line.starts_with("---") || line.starts_with("..."))) {
            end = start;
            break;
        }
        let continues = content.starts_with("- ")
            || content == "-"
            || content.starts_with(": ")
            || content == ":";
        if depth == indent && !continues {
            entries.push((number, start));
        }
    }
    // The same error at the same mapping: not one of a mapping inside an entry's value.
    let fails_so = |cut: usize| {
        serde_yaml::from_str::<Value>(&text[..cut])
            .err()
            .is_some_and(|error| {
                parser_place(&error) == Some(mapping) && unplaced(&error) == message
            })
    };
    // The file cut before later entry `k`, or at the mapping's end for `k` = their number.
    let cut = |k: usize| entries.get(k).map_or(end, |&(_, start)| start);
    // The cut before the first later entry holds one entry: no repeat. The first cut that
    // fails is after the repeated entry.
    let (mut low, mut high) = (0, entries.len());
    if high == 0 || !fails_so(cut(high)) {
        return None;
    }
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if fails_so(cut(middle)) {
            high = middle;
        } else {
            low = middle;
        }
    }
    // A cut inside an entry's value (a line of a multi-line scalar at the mapping's
    // indentation) fails otherwise and may have led the search astray: the answer holds only
    // when the file cut just before it loads.
    if serde_yaml::from_str::<Value>(&text[..cut(high - 1)]).is_err() {
        return None;
    }
    let (number, _) = entries[high - 1];
    Some(LineCol {
        line: number + 1,
        column: mapping.column,
    })
}

/// Where the block mapping whose first key is at `mapping` repeats a key, the key as the
/// parser's message quotes it (`"name"`, Rust's `{:?}`): the first entry whose key an earlier
/// entry of the same mapping has. `None` when the mapping is not a block mapping or no entry
/// is found so (the caller keeps the mapping's place).
fn repeated_key(text: &str, mapping: LineCol, quoted: &str) -> Option<LineCol> {
    let indent = mapping.column.checked_sub(1)?;
    let mut seen = std::collections::BTreeSet::new();
    let first = mapping.line.checked_sub(1)?;
    for (number, line) in text.lines().enumerate().skip(first) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let depth = line.len() - content.len();
        let key_text = if number == first {
            // The mapping may start after a sequence's `- ` on its first line.
            let prefix = line.get(..indent)?;
            if !prefix.bytes().all(|b| b == b' ' || b == b'-') {
                return None;
            }
            &line[indent..]
        } else if depth < indent
            || (depth == 0 && (line.starts_with("---") || line.starts_with("...")))
        {
            return None; // the mapping ended
        } else if depth > indent || content.starts_with("- ") || content == "-" {
            continue; // inside an entry's value
        } else {
            content
        };
        let Some(key) = block_key(key_text) else {
            continue;
        };
        if !seen.insert(key.clone()) {
            return (format!("{key:?}") == quoted).then_some(LineCol {
                line: number + 1,
                column: mapping.column,
            });
        }
    }
    None
}

/// The key of a block mapping entry written at the start of `entry` (`key: …`, `"key": …`,
/// `'key': …`), as the parser reads it; `None` for anything else.
fn block_key(entry: &str) -> Option<String> {
    let (key, rest) = match entry.as_bytes().first()? {
        b'"' => {
            let end = entry[1..]
                .char_indices()
                .scan(false, |escaped, (at, c)| {
                    let closes = c == '"' && !*escaped;
                    *escaped = c == '\\' && !*escaped;
                    Some((at, closes))
                })
                .find_map(|(at, closes)| closes.then_some(at + 1))?;
            let key: String = serde_json::from_str(&entry[..=end]).ok()?;
            (key, &entry[end + 1..])
        }
        b'\'' => {
            let mut key = String::new();
            let mut rest = &entry[1..];
            loop {
                let end = rest.find('\'')?;
                key.push_str(&rest[..end]);
                rest = &rest[end + 1..];
                match rest.strip_prefix('\'') {
                    Some(after) => {
                        key.push('\'');
                        rest = after;
                    }
                    None => break,
                }
            }
            (key, rest)
        }
        b'?' | b'{' | b'[' | b'&' | b'*' | b'!' | b'|' | b'>' => return None,
        _ => {
            let end = entry
                .match_indices(':')
                .map(|(at, _)| at)
                .find(|&at| matches!(entry.as_bytes().get(at + 1), None | Some(b' ')))?;
            (entry[..end].trim_end().to_owned(), &entry[end..])
        }
    };
    let rest = rest.trim_start_matches(' ');
    let after = rest.strip_prefix(':')?;
    (after.is_empty() || after.starts_with(' ')).then_some(key)
}

impl Resolver<'_> {
    /// Reports every key and text of the file holding a control character (see
    /// [`text::is_control`]), at its place. The walk's depth is bounded by the parser's
    /// recursion limit.
    fn control_characters(&mut self, file: usize, value: &Value, path: &mut Vec<String>) {
        match value {
            Value::String(text) => self.control_character(file, text, path),
            Value::Sequence(items) => {
                for (index, item) in items.iter().enumerate() {
                    path.push(index.to_string());
                    self.control_characters(file, item, path);
                    path.pop();
                }
            }
            Value::Mapping(entries) => {
                for (key, item) in entries {
                    let key = match key {
                        Value::String(text) => text.clone(),
                        Value::Number(number) => number.to_string(),
                        Value::Bool(flag) => flag.to_string(),
                        _ => "?".to_owned(),
                    };
                    path.push(key);
                    self.control_character(file, &path[path.len() - 1].clone(), path);
                    self.control_characters(file, item, path);
                    path.pop();
                }
            }
            Value::Tagged(tagged) => {
                self.control_character(file, &tagged.tag.to_string(), path);
                self.control_characters(file, &tagged.value, path);
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn control_character(&mut self, file: usize, text: &str, path: &[String]) {
        let Some((index, c)) = text.chars().enumerate().find(|(_, c)| text::is_control(*c)) else {
            return;
        };
        let location = self.locations.find(file, path);
        let shown: Vec<String> = path
            .iter()
            .map(|segment| text::escape_controls(segment).into_owned())
            .collect();
        self.errors.push(SpecError {
            kind: ErrorKind::ControlCharacter,
            file: self.sources[file].path.clone(),
            location,
            path: shown.join("."),
            message: format!(
                "the text holds the control character U+{:04X} (character {}); generated doc \
                 comments and literals would carry it: remove it",
                c as u32,
                index + 1
            ),
        });
    }
}

/// A serde error in the spec's words.
struct Explained {
    kind: ErrorKind,
    message: String,
    /// The offending key, if any, so the error can point at it.
    key: Option<String>,
}

/// Rewrites serde's message into the spec's words.
fn explain_serde_error(message: &str) -> Explained {
    let ticked = |text: &str| -> Vec<String> {
        text.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let names = ticked(rest);
        if let Some((unknown, expected)) = names.split_first() {
            let hint = did_you_mean(unknown, expected.iter().map(String::as_str));
            let list = if expected.is_empty() {
                "no keys are allowed here".to_owned()
            } else {
                format!("expected one of: {}", expected.join(", "))
            };
            return Explained {
                kind: ErrorKind::UnknownKey,
                message: format!("unknown key '{unknown}'{hint}; {list}"),
                key: Some(unknown.clone()),
            };
        }
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        if let Some(name) = ticked(rest).first() {
            return Explained {
                kind: ErrorKind::MissingKey,
                message: format!("missing key '{name}'"),
                key: None,
            };
        }
    }
    Explained {
        kind: ErrorKind::InvalidValue,
        message: message.to_owned(),
        key: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_serde_unknown_field_with_a_suggestion() {
        let explained = explain_serde_error("unknown field `tyep`, expected one of `type`, `doc`");
        assert_eq!(explained.kind, ErrorKind::UnknownKey);
        assert_eq!(
            explained.message,
            "unknown key 'tyep' (did you mean 'type'?); expected one of: type, doc"
        );
        assert_eq!(explained.key.as_deref(), Some("tyep"));
    }
}
