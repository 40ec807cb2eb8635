//! A linear-time check of a spec file's size and nesting, before the YAML parser sees it.
//!
//! serde_yaml (libyaml's scanner) takes time quadratic in the nesting of flow collections
//! before its own recursion limit applies: 1 MB of `{a: ` took minutes, 1 MB of `[` seconds.
//! The spec needs a handful of levels (see [`MAX_DEPTH`]), so a file nested deeper, or larger
//! than [`MAX_FILE_BYTES`], is refused here, in one pass, with the position where the limit was
//! passed. This is a bound, not a YAML parser: it tells apart just enough of YAML (quoted
//! scalars, comments, block scalars, flow collections, block indentation and compact `- `/`? `
//! entries) not to count a bracket in text as nesting. Anything it lets through is parsed for
//! real afterwards, so a file it misreads can at worst be refused for depth it does not have,
//! which the limit's headroom makes a non-issue for a spec.

use crate::location::LineCol;

/// The largest spec file accepted: fifty times `pay.yaml`, the largest today (22 KB).
pub(crate) const MAX_FILE_BYTES: usize = 1 << 20;

/// The deepest nesting accepted (block and flow collections together, the top-level mapping
/// counted). The spec's deepest point (`types.<t>.fields.<f>.encoding.<m>: …`) is 6 levels.
pub(crate) const MAX_DEPTH: usize = 64;

/// Why a file was refused before parsing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Where the limit was passed (`None` for the size limit: the whole file).
    pub(crate) location: Option<LineCol>,
    /// What was refused and why.
    pub(crate) message: String,
}

/// Checks `text` against [`MAX_FILE_BYTES`] and [`MAX_DEPTH`] and returns its nesting depth.
pub(crate) fn check(text: &str) -> Result<usize, Refusal> {
    if text.len() > MAX_FILE_BYTES {
        return Err(Refusal {
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
    };
    match scanner.run() {
        Ok(()) => Ok(scanner.deepest),
        Err(at) => Err(Refusal {
            location: Some(line_col(text, at)),
            message: format!(
                "nesting deeper than {MAX_DEPTH} levels (a spec needs about 6); refused \
                 before parsing"
            ),
        }),
    }
}

/// The 1-based line and column (in characters) of byte offset `at`.
fn line_col(text: &str, at: usize) -> LineCol {
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    LineCol {
        line: before.bytes().filter(|&byte| byte == b'\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

/// The byte offset where the depth limit was passed.
type TooDeep = usize;

struct Scanner<'t> {
    text: &'t [u8],
    pos: usize,
    /// The columns of the open block collections, innermost last.
    block: Vec<usize>,
    /// Open flow collections (`[`, `{`).
    flow: usize,
    deepest: usize,
}

impl Scanner<'_> {
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

    fn enter(&mut self, at: usize) -> Result<(), TooDeep> {
        let depth = self.block.len() + self.flow;
        self.deepest = self.deepest.max(depth);
        if depth > MAX_DEPTH { Err(at) } else { Ok(()) }
    }

    /// Line by line in block context; flow collections and quoted scalars may span lines.
    fn run(&mut self) -> Result<(), TooDeep> {
        // The indentation of the line that opened a block scalar (`|`, `>`), while in one.
        let mut block_scalar: Option<usize> = None;
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
                if blank || indent > parent {
                    self.pos = end + 1;
                    continue;
                }
                block_scalar = None;
            }
            if blank || self.byte(content) == Some(b'#') {
                self.pos = end + 1;
                continue;
            }
            if indent == 0
                && (self.text[start..].starts_with(b"---")
                    || self.text[start..].starts_with(b"..."))
                && self.is_break(start + 3)
            {
                // A document marker closes every collection.
                self.block.clear();
                self.pos = start + 3;
            } else {
                while self.block.last().is_some_and(|&column| column >= indent) {
                    self.block.pop();
                }
                self.block.push(indent);
                self.enter(content)?;
                self.pos = content;
            }
            if self.line(start)? {
                block_scalar = Some(indent);
            }
        }
        Ok(())
    }

    /// Scans the rest of a block-context line from `self.pos` (and any flow collection or
    /// quoted scalar that goes on past it) and leaves `self.pos` at the start of the next
    /// line. Returns whether the line opened a block scalar.
    fn line(&mut self, line_start: usize) -> Result<bool, TooDeep> {
        let mut node_start = true;
        // The line's first entry was counted by its indentation; later ones on the line
        // (`- - a`) are compact nested collections.
        let mut first = true;
        loop {
            while matches!(self.byte(self.pos), Some(b' ' | b'\t' | b'\r')) {
                self.pos += 1;
            }
            let Some(byte) = self.byte(self.pos) else {
                return Ok(false);
            };
            if byte == b'\n' {
                self.pos += 1;
                return Ok(false);
            }
            if byte == b'#' && self.pos > 0 && self.is_break(self.pos - 1) {
                self.pos = self.line_end(self.pos);
                continue;
            }
            if !node_start {
                // Inside a plain scalar or after a node: only `: ` starts another node.
                if byte == b':' && self.is_break(self.pos + 1) {
                    node_start = true;
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
                    self.pos += 1;
                }
                b':' if self.is_break(self.pos + 1) => self.pos += 1,
                // A tag or an anchor before the node, or an alias as the node.
                b'!' | b'&' | b'*' => {
                    while !self.is_break(self.pos) {
                        self.pos += 1;
                    }
                    node_start = byte != b'*';
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
                    self.pos = self.line_end(self.pos);
                    if self.pos < self.text.len() {
                        self.pos += 1;
                    }
                    return Ok(true);
                }
                _ => node_start = false,
            }
        }
    }

    /// From an opening `[` or `{` to just past its closing bracket (or the end of the text).
    fn flow_collection(&mut self) -> Result<(), TooDeep> {
        let outer = self.flow;
        while let Some(byte) = self.byte(self.pos) {
            match byte {
                b'[' | b'{' => {
                    self.flow += 1;
                    self.enter(self.pos)?;
                    self.pos += 1;
                }
                b']' | b'}' => {
                    self.flow -= 1;
                    self.pos += 1;
                    if self.flow == outer {
                        return Ok(());
                    }
                }
                b'"' | b'\'' => self.quoted(byte),
                b'#' if self.pos > 0 && self.is_break(self.pos - 1) => {
                    self.pos = self.line_end(self.pos);
                }
                _ => self.pos += 1,
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
        check(text).unwrap_or_else(|refusal| panic!("{text:?} refused: {refusal:?}"))
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
}
