//! Line and column of every node of a YAML file, by spec path.
//!
//! serde_yaml gives no positions for values that are valid YAML but wrong for the spec, so a
//! second pass with yaml-rust2's event parser records where each mapping key and value starts.
//! It runs only when there are errors to report.

use std::cell::OnceCell;
use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::spec_source::SpecSource;

/// A 1-based line and column in a spec file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

impl LineCol {
    /// Where byte `offset` of `bytes` is: its line (lines end at `\n`) and its column in
    /// characters (a byte that continues a UTF-8 character starts none), so the place of a byte
    /// that is no UTF-8 character is found as every other place is. Every error a reader or
    /// parser locates by offset (the YAML reader's control characters, the pre-scan's limits,
    /// bytes that are not UTF-8 in a spec file or the reference) says it through this one
    /// function. An offset past the end is the end.
    pub fn at_byte(bytes: &[u8], offset: usize) -> LineCol {
        let before = &bytes[..offset.min(bytes.len())];
        let line_start = before
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |newline| newline + 1);
        LineCol {
            line: before.iter().filter(|&&byte| byte == b'\n').count() + 1,
            column: before[line_start..]
                .iter()
                .filter(|&&byte| byte & 0xc0 != 0x80)
                .count()
                + 1,
        }
    }
}

/// Where each path of one file is written: a tree of path segments, each node holding where
/// its key and its value start. A node stores its own segment only (not its whole path), and
/// a lookup walks the path segment by segment, so building and asking are linear in what is
/// read.
#[derive(Debug)]
pub(crate) struct LocationIndex {
    /// The nodes; the first is the document's root (the empty path).
    nodes: Vec<Node>,
}

#[derive(Debug, Default)]
struct Node {
    /// Where the key of a mapping entry is written (`rate:` in `fields: { rate: ... }`).
    key: Option<LineCol>,
    /// Where a value (scalar, mapping or sequence element) starts.
    value: Option<LineCol>,
    /// The nodes one segment below, by segment.
    children: HashMap<Box<str>, usize>,
}

const ROOT: usize = 0;

impl Default for LocationIndex {
    fn default() -> Self {
        LocationIndex {
            nodes: vec![Node::default()],
        }
    }
}

impl LocationIndex {
    /// Indexes `text`. A file that does not parse gives an empty index (serde_yaml reports
    /// the syntax error with its own position).
    pub(crate) fn new(text: &str) -> Self {
        let mut builder = Builder::default();
        // Positions as the loader's parser gives them, and as an editor shows them.
        let text = crate::spec_source::without_byte_order_mark(text);
        let _ = Parser::new_from_str(text).load(&mut builder, false);
        builder.index
    }

    /// The node at `segment` below `parent`, made when missing.
    fn child_or_insert(&mut self, parent: usize, segment: &str) -> usize {
        if let Some(&child) = self.nodes[parent].children.get(segment) {
            return child;
        }
        let child = self.nodes.len();
        self.nodes.push(Node::default());
        self.nodes[parent].children.insert(segment.into(), child);
        child
    }

    /// The nodes along `path` from the root's child down, as far as they exist.
    fn walk<'p>(&'p self, path: &'p [String]) -> impl Iterator<Item = &'p Node> + 'p {
        path.iter().scan(ROOT, |at, segment| {
            *at = *self.nodes[*at].children.get(segment.as_str())?;
            Some(&self.nodes[*at])
        })
    }

    /// The node at exactly `path`.
    fn node(&self, path: &[String]) -> Option<&Node> {
        let mut at = ROOT;
        for segment in path {
            at = *self.nodes[at].children.get(segment.as_str())?;
        }
        self.nodes.get(at)
    }

    /// The position of `path`: its key when it is a mapping entry, else its value.
    /// Falls back to the nearest ancestor that is known.
    pub(crate) fn find(&self, path: &[String]) -> Option<LineCol> {
        let root = &self.nodes[ROOT];
        std::iter::once(root)
            .chain(self.walk(path))
            .filter_map(|node| node.key.or(node.value))
            .last()
    }

    /// Where the key of the mapping entry at `path` is written, exactly (no ancestor).
    pub(crate) fn key(&self, path: &[String]) -> Option<LineCol> {
        self.node(path)?.key
    }

    /// The keys of the mapping at `path`, in the order they are written.
    pub(crate) fn children(&self, path: &[String]) -> Vec<(String, LineCol)> {
        let Some(node) = self.node(path) else {
            return Vec::new();
        };
        let mut children: Vec<(String, LineCol)> = node
            .children
            .iter()
            .filter_map(|(segment, &child)| Some((segment.to_string(), self.nodes[child].key?)))
            .collect();
        children.sort_by_key(|(_, at)| (at.line, at.column));
        children
    }

    /// The position of the value at `path`, for tests of the index itself.
    #[cfg(test)]
    fn find_value(&self, path: &[String]) -> Option<LineCol> {
        self.node(path)?.value
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

struct Builder {
    index: LocationIndex,
    /// The nodes of the path being read, from the root.
    path: Vec<usize>,
    frames: Vec<Frame>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            index: LocationIndex::default(),
            path: vec![ROOT],
            frames: Vec::new(),
        }
    }
}

impl Builder {
    /// Whether the next node is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Mapping { key: None }))
    }

    /// The node the path being read ends at.
    fn here(&self) -> usize {
        self.path.last().copied().unwrap_or(ROOT)
    }

    /// A value node starts: record it and push its path segment.
    fn enter_value(&mut self, mark: Marker) {
        let segment = match self.frames.last_mut() {
            Some(Frame::Sequence { next }) => {
                *next += 1;
                Some((*next - 1).to_string())
            }
            Some(Frame::Mapping { key: Some(key) }) => Some(key.clone()),
            _ => None,
        };
        if let Some(segment) = segment {
            let child = self.index.child_or_insert(self.here(), &segment);
            self.path.push(child);
        }
        let here = self.here();
        self.index.nodes[here].value = Some(to_line_col(mark));
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
                let child = self.index.child_or_insert(self.here(), &text);
                self.index.nodes[child].key = Some(to_line_col(mark));
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
    fn a_byte_offset_is_a_line_and_a_column_in_characters() {
        let at = |line, column| LineCol { line, column };
        let bytes = "ab\nc\u{e9}d\n".as_bytes();
        assert_eq!(LineCol::at_byte(bytes, 0), at(1, 1));
        assert_eq!(LineCol::at_byte(bytes, 2), at(1, 3));
        assert_eq!(LineCol::at_byte(bytes, 3), at(2, 1));
        // After the two bytes of `é`, `d` is the third character of its line.
        assert_eq!(LineCol::at_byte(bytes, 6), at(2, 3));
        // Bytes that are no UTF-8 character: each that does not continue one is one column.
        assert_eq!(LineCol::at_byte(b"\n\xff\xfex", 3), at(2, 3));
        // Past the end: the end.
        assert_eq!(LineCol::at_byte(bytes, 99), at(3, 1));
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
