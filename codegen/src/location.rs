//! Line and column of every node of a YAML file, by spec path.
//!
//! serde_yaml gives no positions for values that are valid YAML but wrong for the spec, so a
//! second pass with yaml-rust2's event parser records where each mapping key and value starts.
//! It runs only when there are errors to report.

use std::cell::OnceCell;
use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::resolve::SpecSource;

/// A 1-based line and column in a spec file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// Where each path of one file is written.
#[derive(Debug, Default)]
pub(crate) struct LocationIndex {
    /// Where the key of a mapping entry is written (`rate:` in `fields: { rate: ... }`).
    keys: HashMap<Vec<String>, LineCol>,
    /// Where a value (scalar, mapping or sequence element) starts.
    values: HashMap<Vec<String>, LineCol>,
}

impl LocationIndex {
    /// Indexes `text`. A file that does not parse gives an empty index (serde_yaml reports
    /// the syntax error with its own position).
    pub(crate) fn new(text: &str) -> Self {
        let mut builder = Builder::default();
        let _ = Parser::new_from_str(text).load(&mut builder, false);
        builder.index
    }

    /// The position of `path`: its key when it is a mapping entry, else its value.
    /// Falls back to the nearest ancestor that is known.
    pub(crate) fn find(&self, path: &[String]) -> Option<LineCol> {
        (0..=path.len()).rev().find_map(|len| {
            let prefix = &path[..len];
            self.keys
                .get(prefix)
                .or_else(|| self.values.get(prefix))
                .copied()
        })
    }

    /// Where the key of the mapping entry at `path` is written, exactly (no ancestor).
    pub(crate) fn key(&self, path: &[String]) -> Option<LineCol> {
        self.keys.get(path).copied()
    }

    /// The keys of the mapping at `path`, in the order they are written.
    pub(crate) fn children(&self, path: &[String]) -> Vec<(String, LineCol)> {
        let mut children: Vec<(String, LineCol)> = self
            .keys
            .iter()
            .filter(|(key, _)| key.len() == path.len() + 1 && key.starts_with(path))
            .map(|(key, at)| (key[path.len()].clone(), *at))
            .collect();
        children.sort_by_key(|(_, at)| (at.line, at.column));
        children
    }

    /// The position of the value at `path`, for tests of the index itself.
    #[cfg(test)]
    fn find_value(&self, path: &[String]) -> Option<LineCol> {
        self.values.get(path).copied()
    }
}

/// The index of each spec file of a load, built the first time that file is asked about
/// (only reports need positions, and most runs have none to report).
pub(crate) struct SourceIndexes<'s> {
    sources: &'s [SpecSource],
    indexes: Vec<OnceCell<LocationIndex>>,
}

impl<'s> SourceIndexes<'s> {
    pub(crate) fn new(sources: &'s [SpecSource]) -> Self {
        SourceIndexes {
            sources,
            indexes: sources.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// The position of `path` in the file at `file` (an index into the sources), as
    /// [`LocationIndex::find`] gives it.
    pub(crate) fn find(&self, file: usize, path: &[String]) -> Option<LineCol> {
        let index = self.indexes.get(file)?;
        index
            .get_or_init(|| LocationIndex::new(&self.sources[file].text))
            .find(path)
    }
}

enum Frame {
    Mapping { key: Option<String> },
    Sequence { next: usize },
}

#[derive(Default)]
struct Builder {
    index: LocationIndex,
    path: Vec<String>,
    frames: Vec<Frame>,
}

impl Builder {
    /// Whether the next node is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Mapping { key: None }))
    }

    /// A value node starts: record it and push its path segment.
    fn enter_value(&mut self, mark: Marker) {
        match self.frames.last_mut() {
            Some(Frame::Sequence { next }) => {
                self.path.push(next.to_string());
                *next += 1;
            }
            Some(Frame::Mapping { key: Some(key) }) => self.path.push(key.clone()),
            _ => {}
        }
        self.index
            .values
            .insert(self.path.clone(), to_line_col(mark));
    }

    /// A value node ends: pop its path segment and let the mapping expect the next key.
    fn leave_value(&mut self) {
        match self.frames.last_mut() {
            Some(Frame::Sequence { .. }) => {
                self.path.pop();
            }
            Some(Frame::Mapping { key }) => {
                // The mapping now expects its next key; drop the finished entry's segment.
                let finished = key.take().is_some();
                if finished {
                    self.path.pop();
                }
            }
            None => {}
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        match event {
            Event::Scalar(text, ..) if self.expects_key() => {
                let mut key_path = self.path.clone();
                key_path.push(text.clone());
                self.index.keys.insert(key_path, to_line_col(mark));
                if let Some(Frame::Mapping { key }) = self.frames.last_mut() {
                    *key = Some(text);
                }
            }
            Event::Scalar(..) | Event::Alias(..) => {
                self.enter_value(mark);
                self.leave_value();
            }
            Event::MappingStart(..) | Event::SequenceStart(..) if self.expects_key() => {
                // A complex key: not used by the spec. Track it so nesting stays balanced.
                self.frames.push(Frame::Sequence { next: 0 });
            }
            Event::MappingStart(..) => {
                self.enter_value(mark);
                self.frames.push(Frame::Mapping { key: None });
            }
            Event::SequenceStart(..) => {
                self.enter_value(mark);
                self.frames.push(Frame::Sequence { next: 0 });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.frames.pop();
                self.leave_value();
            }
            _ => {}
        }
    }
}

fn to_line_col(mark: Marker) -> LineCol {
    // yaml-rust2 counts lines from 1 and columns from 0.
    LineCol {
        line: mark.line(),
        column: mark.col() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_owned).collect()
    }

    #[test]
    fn finds_keys_and_values_of_nested_mappings_and_sequences() {
        let text = "types:\n  Timesheet:\n    fields:\n      rate:\n        type: decimall\nlist: [a, b]\n";
        let index = LocationIndex::new(text);
        let at = |line, column| Some(LineCol { line, column });
        assert_eq!(index.find(&path("types.Timesheet")), at(2, 3));
        assert_eq!(
            index.find(&path("types.Timesheet.fields.rate.type")),
            at(5, 9)
        );
        assert_eq!(
            index.find_value(&path("types.Timesheet.fields.rate.type")),
            at(5, 15)
        );
        assert_eq!(index.find_value(&path("list.1")), at(6, 11));
    }

    #[test]
    fn falls_back_to_the_nearest_known_ancestor() {
        let index = LocationIndex::new("types:\n  Timesheet:\n    doc: x\n");
        assert_eq!(
            index.find(&path("types.Timesheet.fields.rate")),
            Some(LineCol { line: 2, column: 3 })
        );
    }
}
