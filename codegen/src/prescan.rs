//! A linear-time check of a spec file's size, nesting and alias expansion, before the YAML
//! parser sees it.
//!
//! serde_yaml (libyaml's scanner) takes time quadratic in the nesting of flow collections
//! before its own recursion limit applies: 1 MB of `{a: ` took minutes, 1 MB of `[` seconds.
//! And it expands every alias into a copy of its anchor's node: one anchor referenced by
//! 150,000 aliases (750 KB) became 600 MB. The spec needs a handful of levels (see
//! [`MAX_DEPTH`]) and no alias at all, so a file nested deeper, larger than
//! [`MAX_FILE_BYTES`], or whose aliases would expand it beyond [`MAX_EXPANDED_BYTES`], is
//! refused here, in one pass, with the position where the limit was passed.
//!
//! This is a bound, not a YAML parser: it tells apart just enough of YAML (quoted scalars,
//! comments, block scalars, flow collections, block indentation, compact `- `/`? ` entries,
//! anchors and aliases) not to count a bracket in text as nesting. Anything it lets through is
//! parsed for real afterwards. Where it cannot tell, it errs towards refusing: a file it
//! misreads can at worst be refused for depth or expansion it does not have, never let
//! through with more.
//!
//! Alias expansion is measured in bytes of text: each alias costs the bytes of its anchor's
//! node (the text from the anchor to where the node ends, plus what the aliases inside it
//! expand to), so the expanded size of a file is its length plus what every alias adds. A
//! node's extent is over-estimated, never under: in block context it runs from the anchor to
//! the first later line indented no deeper than the entry that holds it (a `- ` line at the
//! indentation of a mapping key continues the key's value), in a flow collection to the next
//! `,` or closing bracket of its level. Counting bytes bounds nodes too (every node is at
//! least one byte of the text it is copied from), so memory and parsing time stay within a
//! constant of a file of [`MAX_EXPANDED_BYTES`].

use std::collections::HashMap;

use crate::diagnostic::ErrorKind;
use crate::location::LineCol;

/// The largest spec file accepted: fifty times `pay.yaml`, the largest today (22 KB).
pub(crate) const MAX_FILE_BYTES: usize = 1 << 20;

/// The deepest nesting accepted (block and flow collections together, the top-level mapping
/// counted). The spec's deepest point (`types.<t>.fields.<f>.encoding.<m>: …`) is 6 levels.
pub(crate) const MAX_DEPTH: usize = 64;

/// The most a file may expand to with its aliases: twice the size limit, so a file with
/// aliases costs the parser at most what two files at [`MAX_FILE_BYTES`] would.
pub(crate) const MAX_EXPANDED_BYTES: u64 = 2 * MAX_FILE_BYTES as u64;

/// How many times serde_yaml follows an alias inside its own anchor's node before its
/// recursion limit stops it: such an alias costs its node's size that many times.
const RECURSION_LIMIT: u64 = 128;

/// Why a file was refused before parsing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The rule: [`ErrorKind::TooLarge`] or [`ErrorKind::AliasExpansion`].
    pub(crate) kind: ErrorKind,
    /// Where the limit was passed (`None` for the size limit: the whole file).
    pub(crate) location: Option<LineCol>,
    /// What was refused and why.
    pub(crate) message: String,
}

/// What the scan measured of a file it accepts (read by the tests).
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Counted {
    /// The deepest nesting.
    pub(crate) depth: usize,
    /// The bytes the file expands to with its aliases (at least its length).
    pub(crate) expanded: u64,
}

/// Checks `text` against [`MAX_FILE_BYTES`], [`MAX_DEPTH`] and [`MAX_EXPANDED_BYTES`].
pub(crate) fn check(text: &str) -> Result<Counted, Refusal> {
    if text.len() > MAX_FILE_BYTES {
        return Err(Refusal {
            kind: ErrorKind::TooLarge,
            location: None,
            message: format!(
                "the file is {} bytes, more than the {MAX_FILE_BYTES} a spec file may have; \
                 refused before parsing",
                text.len()
            ),
        });
    }
    let mut scanner = Scanner {
        text: text.as_bytes(),
        pos: 0,
        block: Vec::new(),
        flow: 0,
        deepest: 0,
        regions: Vec::new(),
        open: HashMap::new(),
        anchors: HashMap::new(),
        added: 0,
    };
    match scanner.run() {
        Ok(()) => Ok(Counted {
            depth: scanner.deepest,
            expanded: text.len() as u64 + scanner.added,
        }),
        Err(Stop::TooDeep(at)) => Err(Refusal {
            kind: ErrorKind::TooLarge,
            location: Some(LineCol::at_byte(text.as_bytes(), at)),
            message: format!(
                "nesting deeper than {MAX_DEPTH} levels (a spec needs about 6); refused \
                 before parsing"
            ),
        }),
        Err(Stop::Expands { at, anchor, cost }) => Err(Refusal {
            kind: ErrorKind::AliasExpansion,
            location: Some(LineCol::at_byte(text.as_bytes(), at)),
            message: format!(
                "with this alias of '{}' (which adds {cost} bytes), the aliases would expand \
                 the file to more than {MAX_EXPANDED_BYTES} bytes; refused before parsing",
                String::from_utf8_lossy(anchor)
            ),
        }),
    }
}

/// Why the scan stopped.
enum Stop<'t> {
    /// The depth limit was passed at this byte offset.
    TooDeep(usize),
    /// The alias at `at` of `anchor`, costing `cost` bytes, passes the expansion limit.
    Expands {
        at: usize,
        anchor: &'t [u8],
        cost: u64,
    },
}

/// Where an anchored node ends.
#[derive(Clone, Copy)]
enum Close {
    /// At the first later line indented at most `column` (`-1`: none, the document's end),
    /// except, with `sequence`, a line starting with `- ` at exactly `column`.
    Block { column: isize, sequence: bool },
    /// At a `,` or a closing bracket of flow `level` (the level of the collection holding
    /// the node).
    Flow { level: usize },
}

/// An anchored node being scanned.
struct Region<'t> {
    name: &'t [u8],
    start: usize,
    /// [`Scanner::added`] when the node started: what aliases add inside it is the
    /// difference (regions nest, so every alias since then is inside).
    added_before: u64,
    close: Close,
    /// The open region of the same name this one hides, by index.
    shadowed: Option<usize>,
}

/// What comes before the next node on a block line, which says where that node's parent is.
#[derive(Clone, Copy)]
enum Before {
    /// Nothing: the node starts the line.
    LineStart,
    /// A `- ` or `? ` indicator at this column.
    Indicator(isize),
    /// The `: ` of a key that starts at this column.
    Value(isize),
}

struct Scanner<'t> {
    text: &'t [u8],
    pos: usize,
    /// The columns of the open block collections, innermost last.
    block: Vec<usize>,
    /// Open flow collections (`[`, `{`).
    flow: usize,
    deepest: usize,
    /// The anchored nodes being scanned, innermost last.
    regions: Vec<Region<'t>>,
    /// The innermost open region of each anchor name, by index.
    open: HashMap<&'t [u8], usize>,
    /// The expanded size of each anchor's node, once it ended.
    anchors: HashMap<&'t [u8], u64>,
    /// The bytes every alias so far adds to the file.
    added: u64,
}

impl<'t> Scanner<'t> {
    fn byte(&self, at: usize) -> Option<u8> {
        self.text.get(at).copied()
    }

    /// Whether `at` ends a token: white space, a line end or the end of the text.
    fn is_break(&self, at: usize) -> bool {
        matches!(self.byte(at), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    fn line_end(&self, from: usize) -> usize {
        self.text[from..]
            .iter()
            .position(|&byte| byte == b'\n')
            .map_or(self.text.len(), |offset| from + offset)
    }

    fn enter(&mut self, at: usize) -> Result<(), Stop<'t>> {
        let depth = self.block.len() + self.flow;
        self.deepest = self.deepest.max(depth);
        if depth > MAX_DEPTH {
            Err(Stop::TooDeep(at))
        } else {
            Ok(())
        }
    }

    /// The anchor or alias name starting at `from` (libyaml's: ASCII letters, digits, `_`
    /// and `-`); `self.pos` is left after it.
    fn name(&mut self, from: usize) -> &'t [u8] {
        let text = self.text;
        let mut end = from;
        while text
            .get(end)
            .is_some_and(|&byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-'))
        {
            end += 1;
        }
        self.pos = end;
        &text[from..end]
    }

    /// An anchor at `self.pos` (its `&`): its node's region opens.
    fn anchor(&mut self, close: Close) {
        let start = self.pos;
        let name = self.name(start + 1);
        let index = self.regions.len();
        let shadowed = self.open.insert(name, index);
        self.regions.push(Region {
            name,
            start,
            added_before: self.added,
            close,
            shadowed,
        });
    }

    /// An alias at `self.pos` (its `*`): it adds its anchor's node.
    fn alias(&mut self) -> Result<(), Stop<'t>> {
        let at = self.pos;
        let name = self.name(at + 1);
        let ended = self.anchors.get(name).copied().unwrap_or(0);
        // An alias inside its own anchor's node is followed until the parser gives up.
        let recursive = self.open.get(name).map_or(0, |&index| {
            let region = &self.regions[index];
            let so_far = (at - region.start) as u64 + (self.added - region.added_before);
            so_far.saturating_mul(RECURSION_LIMIT)
        });
        let cost = ended.max(recursive);
        self.added = self.added.saturating_add(cost);
        if self.text.len() as u64 + self.added > MAX_EXPANDED_BYTES {
            return Err(Stop::Expands {
                at,
                anchor: name,
                cost,
            });
        }
        Ok(())
    }

    /// The innermost region ends at `end`: its anchor's size is known.
    fn close_region(&mut self, end: usize) {
        let Some(region) = self.regions.pop() else {
            return;
        };
        let size = (end - region.start) as u64 + (self.added - region.added_before);
        self.anchors.insert(region.name, size);
        match region.shadowed {
            Some(index) => self.open.insert(region.name, index),
            None => self.open.remove(region.name),
        };
    }

    /// Ends the block regions a line at `indent` (starting at `start`, its content at
    /// `content`) is outside of.
    fn close_block_regions(&mut self, start: usize, indent: usize, content: usize) {
        let indent = indent as isize;
        let dash = self.byte(content) == Some(b'-') && self.is_break(content + 1);
        while let Some(region) = self.regions.last() {
            let inside = match region.close {
                Close::Block { column, sequence } => {
                    indent > column || (sequence && dash && indent == column)
                }
                // Flow regions end inside their collection; one left open by an
                // unterminated collection ends here.
                Close::Flow { .. } => false,
            };
            if inside {
                return;
            }
            self.close_region(start);
        }
    }

    /// Ends the flow regions of `level` and deeper at `end`.
    fn close_flow_regions(&mut self, level: usize, end: usize) {
        while let Some(Region {
            close: Close::Flow { level: at },
            ..
        }) = self.regions.last()
        {
            if *at < level {
                return;
            }
            self.close_region(end);
        }
    }

    /// Line by line in block context; flow collections and quoted scalars may span lines.
    fn run(&mut self) -> Result<(), Stop<'t>> {
        // While in a block scalar (`|`, `>`): the column its lines must be indented beyond.
        let mut block_scalar: Option<isize> = None;
        while self.pos < self.text.len() {
            let start = self.pos;
            let end = self.line_end(start);
            let indent = self.text[start..end]
                .iter()
                .take_while(|&&byte| byte == b' ')
                .count();
            let content = start + indent;
            let blank = self.text[content..end]
                .iter()
                .all(|byte| matches!(byte, b' ' | b'\t' | b'\r'));
            if let Some(parent) = block_scalar {
                if blank || indent as isize > parent {
                    self.pos = end + 1;
                    continue;
                }
                block_scalar = None;
            }
            if blank || self.byte(content) == Some(b'#') {
                self.pos = end + 1;
                continue;
            }
            let parent;
            if indent == 0
                && (self.text[start..].starts_with(b"---")
                    || self.text[start..].starts_with(b"..."))
                && self.is_break(start + 3)
            {
                // A document marker closes every collection and every anchored node.
                while !self.regions.is_empty() {
                    self.close_region(start);
                }
                self.block.clear();
                parent = -1;
                self.pos = start + 3;
            } else {
                self.close_block_regions(start, indent, content);
                while self.block.last().is_some_and(|&column| column >= indent) {
                    self.block.pop();
                }
                parent = self.block.last().map_or(-1, |&column| column as isize);
                self.block.push(indent);
                self.enter(content)?;
                self.pos = content;
            }
            block_scalar = self.line(start, parent)?;
        }
        while !self.regions.is_empty() {
            self.close_region(self.text.len());
        }
        Ok(())
    }

    /// Scans the rest of a block-context line from `self.pos` (and any flow collection or
    /// quoted scalar that goes on past it) and leaves `self.pos` at the start of the next
    /// line. `parent` is the column of the block entry the line is inside (`-1`: none).
    /// Returns, when the line opened a block scalar, the column its lines are indented beyond.
    fn line(&mut self, line_start: usize, parent: isize) -> Result<Option<isize>, Stop<'t>> {
        let mut node_start = true;
        // The line's first entry was counted by its indentation; later ones on the line
        // (`- - a`) are compact nested collections.
        let mut first = true;
        let mut before = Before::LineStart;
        // Where the node being read began (its properties included), once it has.
        let mut node_column: Option<isize> = None;
        loop {
            while matches!(self.byte(self.pos), Some(b' ' | b'\t' | b'\r')) {
                self.pos += 1;
            }
            let Some(byte) = self.byte(self.pos) else {
                return Ok(None);
            };
            if byte == b'\n' {
                self.pos += 1;
                return Ok(None);
            }
            if byte == b'#' && self.pos > 0 && self.is_break(self.pos - 1) {
                self.pos = self.line_end(self.pos);
                continue;
            }
            let column = (self.pos - line_start) as isize;
            if !node_start {
                // Inside a plain scalar or after a node: only `: ` starts another node.
                if byte == b':' && self.is_break(self.pos + 1) {
                    node_start = true;
                    before = Before::Value(node_column.unwrap_or(column));
                    node_column = None;
                }
                self.pos += 1;
                continue;
            }
            let was_first = std::mem::replace(&mut first, false);
            match byte {
                // A compact nested entry (`- - a`, `? key`): one more block level.
                b'-' | b'?' if self.is_break(self.pos + 1) => {
                    if !was_first {
                        self.block.push(self.pos - line_start);
                        self.enter(self.pos)?;
                    }
                    before = Before::Indicator(column);
                    node_column = None;
                    self.pos += 1;
                    continue;
                }
                b':' if self.is_break(self.pos + 1) => {
                    before = Before::Value(node_column.unwrap_or(column));
                    node_column = None;
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            let node_column = *node_column.get_or_insert(column);
            match byte {
                // Properties before the node: a tag, or an anchor, whose node's region opens.
                b'&' => {
                    let close = match before {
                        Before::LineStart => Close::Block {
                            column: parent,
                            sequence: true,
                        },
                        Before::Indicator(column) => Close::Block {
                            column,
                            sequence: false,
                        },
                        Before::Value(key) => Close::Block {
                            column: key,
                            sequence: true,
                        },
                    };
                    self.anchor(close);
                }
                b'!' => {
                    while !self.is_break(self.pos) {
                        self.pos += 1;
                    }
                }
                b'*' => {
                    self.alias()?;
                    node_start = false;
                }
                b'[' | b'{' => {
                    self.flow_collection()?;
                    node_start = false;
                }
                b'"' | b'\'' => {
                    self.quoted(byte);
                    node_start = false;
                }
                b'|' | b'>' => {
                    // Its lines are indented beyond its parent: the key or entry holding it.
                    let beyond = match before {
                        Before::Value(key) => key,
                        Before::Indicator(column) => column,
                        Before::LineStart => node_column - 1,
                    };
                    self.pos = self.line_end(self.pos);
                    if self.pos < self.text.len() {
                        self.pos += 1;
                    }
                    return Ok(Some(beyond));
                }
                _ => node_start = false,
            }
        }
    }

    /// From an opening `[` or `{` to just past its closing bracket (or the end of the text).
    fn flow_collection(&mut self) -> Result<(), Stop<'t>> {
        let outer = self.flow;
        let mut node_start = true;
        while let Some(byte) = self.byte(self.pos) {
            match byte {
                b'[' | b'{' => {
                    self.flow += 1;
                    self.enter(self.pos)?;
                    self.pos += 1;
                    node_start = true;
                }
                b']' | b'}' => {
                    self.close_flow_regions(self.flow, self.pos);
                    self.flow -= 1;
                    self.pos += 1;
                    node_start = false;
                    if self.flow == outer {
                        return Ok(());
                    }
                }
                b',' => {
                    self.close_flow_regions(self.flow, self.pos);
                    self.pos += 1;
                    node_start = true;
                }
                b':' | b'?' => {
                    self.pos += 1;
                    node_start = true;
                }
                b'"' | b'\'' => {
                    self.quoted(byte);
                    node_start = false;
                }
                b'#' if self.pos > 0 && self.is_break(self.pos - 1) => {
                    self.pos = self.line_end(self.pos);
                }
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'&' if node_start => self.anchor(Close::Flow { level: self.flow }),
                b'*' if node_start => {
                    self.alias()?;
                    node_start = false;
                }
                b'!' if node_start => {
                    while !self.is_break(self.pos)
                        && !matches!(self.byte(self.pos), Some(b',' | b'[' | b']' | b'{' | b'}'))
                    {
                        self.pos += 1;
                    }
                }
                _ => {
                    self.pos += 1;
                    node_start = false;
                }
            }
        }
        self.flow = outer;
        Ok(())
    }

    /// From an opening quote to just past its closing quote (or the end of the text).
    fn quoted(&mut self, quote: u8) {
        self.pos += 1;
        while let Some(byte) = self.byte(self.pos) {
            self.pos += 1;
            if quote == b'"' && byte == b'\\' {
                self.pos += 1;
            } else if byte == quote {
                // `''` inside single quotes is an escaped quote.
                if quote == b'\'' && self.byte(self.pos) == Some(b'\'') {
                    self.pos += 1;
                } else {
                    return;
                }
            }
        }
        self.pos = self.pos.min(self.text.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(text: &str) -> usize {
        check(text)
            .unwrap_or_else(|refusal| panic!("{text:?} refused: {refusal:?}"))
            .depth
    }

    fn refused_at(text: &str) -> LineCol {
        check(text)
            .expect_err("should be refused")
            .location
            .expect("a depth refusal has a position")
    }

    #[test]
    fn counts_block_and_flow_nesting() {
        assert_eq!(depth(""), 0);
        assert_eq!(depth("a: 1\nb: 2\n"), 1);
        assert_eq!(depth("a:\n  b:\n    c: 1\n"), 3);
        assert_eq!(depth("a: [1, {b: [2]}]\n"), 4);
        assert_eq!(depth("- - - a\n"), 3);
        assert_eq!(depth("a:\n  - b\n  - c\n"), 2);
    }

    #[test]
    fn brackets_in_text_are_not_nesting() {
        let text = concat!(
            "doc: see [this and {that\n",
            "quoted: \"[[[{{{\\\"[\"\n",
            "single: '[[[''[['\n",
            "comment: 1 # [[[[[\n",
            "block: |\n",
            "  [[[[[[[[\n",
            "  {{{{{{{{\n",
            "\n",
            "  still text [[[[\n",
            "after: [1]\n",
        );
        assert_eq!(depth(text), 2);
    }

    #[test]
    fn the_committed_spec_is_far_below_the_limit() {
        let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        for entry in std::fs::read_dir(spec).expect("spec/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|ext| ext == "yaml") {
                let text = std::fs::read_to_string(&path).expect("a spec file is readable");
                let depth = depth(&text);
                assert!(depth <= 8, "{}: depth {depth}", path.display());
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_where_it_passes_the_limit() {
        let mb = 1_000_000;
        // Where the 65th level opens (the line itself is the first), in characters from 1.
        for (unit, column) in [
            ("[", 64),
            ("{", 64),
            ("{a: ", 4 * 63 + 1),
            ("[a, ", 4 * 63 + 1),
        ] {
            let text = unit.repeat(mb / unit.len());
            assert_eq!(refused_at(&text), LineCol { line: 1, column }, "{unit:?}");
        }
        // Compact entries on one line, and indentation growing line by line.
        assert_eq!(refused_at(&"- ".repeat(mb / 2)).column, 2 * 64 + 1);
        let indented: String = (0..1000)
            .map(|i| format!("{}a:\n", " ".repeat(i)))
            .collect();
        assert_eq!(
            refused_at(&indented),
            LineCol {
                line: 65,
                column: 65
            }
        );
        // Unterminated quotes and collections are left to the parser to report.
        assert!(check(&"\"".repeat(mb)).is_ok());
        assert!(check("a: [1, 2").is_ok());
    }

    #[test]
    fn a_file_over_the_size_limit_is_refused_whole() {
        let refusal = check(&"a".repeat(MAX_FILE_BYTES + 1)).expect_err("too large");
        assert_eq!(refusal.location, None);
        assert!(
            refusal.message.contains("more than the"),
            "{}",
            refusal.message
        );
    }

    #[test]
    fn aliases_are_counted_at_the_size_of_their_anchors_node() {
        let expanded = |text: &str| check(text).expect("accepted").expanded;
        // A node runs from its anchor to the start of the line that ends it.
        let text = "a: &x [1, 2, 3]\nb: *x\nc: [*x, *x]\n";
        assert_eq!(
            expanded(text),
            (text.len() + 3 * "&x [1, 2, 3]\n".len()) as u64
        );
        let block = "a: &x\n  - 1\n  - 2\nb: *x\n";
        assert_eq!(
            expanded(block),
            (block.len() + "&x\n  - 1\n  - 2\n".len()) as u64
        );
        // A multi-line scalar is counted whole.
        let scalar = "a: &x one\n  two three\nb: *x\n";
        assert_eq!(
            expanded(scalar),
            (scalar.len() + "&x one\n  two three\n".len()) as u64
        );
        // Nested: an alias of an anchor holding aliases costs what they expand to.
        let nested = "a: &x [1]\nb: &y [*x, *x]\nc: *y\n";
        let x = "&x [1]\n".len();
        let y = "&y [*x, *x]\n".len() + 2 * x;
        assert_eq!(expanded(nested), (nested.len() + 2 * x + y) as u64);
    }

    #[test]
    fn a_bomb_is_refused_at_the_alias_that_passes_the_limit() {
        let anchor = format!("a: &x [{}]\n", "1,".repeat(50_000));
        let text = format!("{anchor}b: [{}]\n", "*x, ".repeat(100));
        let refusal = check(&text).expect_err("a bomb");
        assert_eq!(refusal.kind, ErrorKind::AliasExpansion);
        let at = refusal.location.expect("located");
        assert_eq!(at.line, 2);
        // The alias that passes 2 MiB (100 KB each, so about the 20th).
        let line = text.lines().nth(1).expect("two lines");
        assert!(
            line[at.column - 1..].starts_with("*x"),
            "{}",
            refusal.message
        );
        assert!((75..=90).contains(&at.column), "{}", refusal.message);
        // An alias inside its own anchor's node costs it many times over.
        let recursive = format!("a: &x [{}, *x]\n", "1,".repeat(20_000));
        assert_eq!(
            check(&recursive).expect_err("recursive").kind,
            ErrorKind::AliasExpansion
        );
    }

    /// A random value, for the soundness property below.
    #[derive(Clone, Debug)]
    enum Shape {
        Scalar(usize),
        List(Vec<Shape>),
        Map(Vec<Shape>),
        Alias(usize),
    }

    fn shape() -> impl Strategy<Value = Shape> {
        let leaf = prop_oneof![
            (1usize..40).prop_map(Shape::Scalar),
            any::<usize>().prop_map(Shape::Alias)
        ];
        leaf.prop_recursive(3, 24, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Shape::List),
                prop::collection::vec(inner, 1..5).prop_map(Shape::Map),
            ]
        })
    }

    /// `shape` in flow style; aliases name one of the `anchors` before it (a word without).
    fn flow(shape: &Shape, anchors: usize) -> String {
        match shape {
            Shape::Scalar(len) => "w".repeat(*len),
            Shape::Alias(which) if anchors > 0 => format!("*x{}", which % anchors),
            Shape::Alias(_) => "w".to_owned(),
            Shape::List(items) => {
                let items: Vec<String> = items.iter().map(|i| flow(i, anchors)).collect();
                format!("[{}]", items.join(", "))
            }
            Shape::Map(items) => {
                let items: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| format!("k{k}: {}", flow(i, anchors)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }

    /// An anchored entry at the top level, in one of the styles the scan tells apart.
    fn entry(index: usize, style: u8, shape: &Shape) -> String {
        let head = format!("x{index}: &x{index}");
        match (style % 4, shape) {
            // An anchor cannot hold an alias itself.
            (_, Shape::Alias(_)) => format!("{head} [{}]\n", flow(shape, index)),
            (0, _) => format!("{head} {}\n", flow(shape, index)),
            (1, Shape::List(items)) => {
                let lines: String = items
                    .iter()
                    .map(|i| format!("  - {}\n", flow(i, index)))
                    .collect();
                format!("{head}\n{lines}")
            }
            (1, Shape::Map(items)) => {
                let lines: String = items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| format!("  k{k}: {}\n", flow(i, index)))
                    .collect();
                format!("{head}\n{lines}")
            }
            (2, _) => format!("{head} |\n  {}\n  more\n", flow(shape, index)),
            _ => format!("{head} word\n  {} words\n", "w".repeat(index + 1)),
        }
    }

    fn nodes_and_bytes(value: &serde_yaml::Value) -> (u64, u64) {
        use serde_yaml::Value;
        match value {
            Value::String(text) => (1, text.len() as u64),
            Value::Sequence(items) => items
                .iter()
                .map(nodes_and_bytes)
                .fold((1, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
            Value::Mapping(entries) => entries
                .iter()
                .map(|(k, v)| {
                    let (k, v) = (nodes_and_bytes(k), nodes_and_bytes(v));
                    (k.0 + v.0, k.1 + v.1)
                })
                .fold((1, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
            Value::Tagged(tagged) => nodes_and_bytes(&tagged.value),
            _ => (1, 0),
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// What the parser builds never exceeds what the scan counted: the expanded size
        /// bounds both the nodes and the text of the parsed value.
        #[test]
        fn the_expanded_size_bounds_what_the_parser_builds(
            entries in prop::collection::vec((any::<u8>(), shape()), 1..6),
        ) {
            let text: String = entries
                .iter()
                .enumerate()
                .map(|(index, (style, shape))| entry(index, *style, shape))
                .collect();
            let counted = check(&text).map_err(|refusal| TestCaseError::fail(refusal.message))?;
            // A document the parser refuses expands nothing.
            let Ok(value) = serde_yaml::from_str::<serde_yaml::Value>(&text) else {
                return Ok(());
            };
            let (nodes, bytes) = nodes_and_bytes(&value);
            prop_assert!(nodes <= counted.expanded, "{nodes} nodes > {}\n{text}", counted.expanded);
            prop_assert!(bytes <= counted.expanded, "{bytes} bytes > {}\n{text}", counted.expanded);
        }
    }
}
