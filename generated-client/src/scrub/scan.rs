//! One pass over one view of a text: where a secret-named value is.
//!
//! An automaton of the secret words (`secret`, `password`, …; ASCII case and separators
//! ignored) steps over each byte. A word starts a small machine that reads what follows as a
//! name/value pair in any of the shapes a body may have (`name=value`, `"name": "value"`,
//! `name: value`, `'name': {…}`, `<name>value</name>`, an escaped `\"name\": \"value\"`, at
//! any depth, duplicated or not): the rest of the name, closing quotes, `:`, `=` or `>`, then
//! the value, quoted, bracketed (a whole object or array, nesting counted) or bare (to the end
//! of the pair, line or element). Each byte is looked at once, so a pass is linear in the text
//! whatever it holds.

use aho_corasick::Anchored;
use aho_corasick::automaton::Automaton;
use aho_corasick::automaton::StateID;
use aho_corasick::dfa::DFA;

use super::views::Unit;
use crate::secret::{REDACTED, is_name_separator};

/// A span of the original text to replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Finding {
    pub(super) start: usize,
    pub(super) end: usize,
    /// Replace with `"[redacted]"` rather than `[redacted]`: a bare JSON value (a number, an
    /// object) stays a JSON value.
    pub(super) quoted: bool,
}

/// A pass over one view.
pub(super) struct Scan<'a> {
    words: &'a DFA,
    /// Whether this is view 0 (the text as it is), where a bare JSON value is replaced by a
    /// JSON string.
    plain: bool,
    word_state: StateID,
    /// Whether the text so far is inside a double-quoted string (JSON's strings), and
    /// whether the last byte was an unescaped backslash.
    in_string: bool,
    backslash: bool,
    pair: Pair,
    /// Whether the view holds a byte that starts an escape: without one, the next view is
    /// the same as this one.
    pub(super) escapes: bool,
    pub(super) found: Vec<Finding>,
}

/// Where the pair machine stands.
#[derive(Clone, Copy, Debug)]
enum Pair {
    Idle,
    /// In the name a secret word is part of.
    Name,
    /// After the name: closing quotes or brackets, white space.
    BeforeSeparator,
    /// After the separator.
    BeforeValue {
        separator: Separator,
    },
    Value(Value),
}

/// What stands between a name and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Separator {
    /// `name: value` (JSON, YAML, prose): a bare value runs to the end of its line or
    /// element.
    Colon,
    /// `name=value` (form pairs, queries, cookies, attributes): a bare value runs to white
    /// space or the next pair.
    Equals,
    /// `<name>value</name>` (XML): the value runs to the next tag.
    Element,
}

#[derive(Clone, Copy, Debug)]
struct Value {
    kind: Kind,
    /// The span read so far (`start` is `None` until the first byte).
    start: Option<usize>,
    end: usize,
    /// Where the last byte read started.
    last_start: usize,
    /// Bare after `:` in view 0, outside a string: replaced by a JSON string.
    quoted: bool,
    /// The first bytes, to tell `[redacted]` and `null` (nothing to hide) from a value.
    head: [u8; 10],
    /// A secret word ended inside it.
    named: bool,
    len: usize,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Up to the same quote, written the same way: as an escape of a lower view or not, and
    /// after a backslash of this view or not (`\"…\"`, a string inside a string).
    Quoted {
        quote: u8,
        escaped: bool,
        backslashed: bool,
    },
    /// Up to the bracket that closes the first, strings skipped.
    Bracketed { depth: usize, in_string: bool },
    /// Up to a byte that ends a bare value after this separator.
    Bare(Separator),
}

/// A byte as known secrets are matched: `+` and a space alike, since form encoding writes a
/// space as `+` and no view can tell which a `+` in a text stands for.
pub(super) fn same_space(byte: u8) -> u8 {
    if byte == b'+' { b' ' } else { byte }
}

/// Bytes a name runs on with, after its secret word.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b' ' | b'\t')
}

/// Whether `byte` ends a bare value after `separator`.
fn ends_bare(byte: u8, separator: Separator) -> bool {
    let delimiter = matches!(
        byte,
        b'&' | b',' | b';' | b'}' | b']' | b')' | b'<' | b'>' | b'"' | b'\''
    );
    match separator {
        Separator::Equals => delimiter || byte.is_ascii_whitespace(),
        Separator::Colon => delimiter || matches!(byte, b'\n' | b'\r'),
        Separator::Element => byte == b'<',
    }
}

impl<'a> Scan<'a> {
    pub(super) fn new(words: &'a DFA, plain: bool) -> Self {
        Scan {
            words,
            plain,
            // Unanchored starts always exist: the automaton is built with the default kind.
            word_state: words.start_state(Anchored::No).unwrap_or(StateID::ZERO),
            in_string: false,
            backslash: false,
            pair: Pair::Idle,
            escapes: false,
            found: Vec::new(),
        }
    }

    pub(super) fn feed(&mut self, unit: Unit) {
        self.escapes |= matches!(unit.byte, b'%' | b'\\' | b'&');
        self.step_pair(unit);
        // Separators are left out of names: `oauth-verifier` is `oauth_verifier`.
        if !is_name_separator(unit.byte) {
            self.word_state = self
                .words
                .next_state(Anchored::No, self.word_state, unit.byte);
        }
        if self.words.is_match(self.word_state) {
            match &mut self.pair {
                // A name inside a value (`secret="oauth_token_secret": "x"`) may be the name
                // of what follows the value.
                Pair::Value(value) => value.named = true,
                pair => *pair = Pair::Name,
            }
        }
        // JSON string state, for how a bare value is replaced.
        let raw = !unit.escaped;
        if raw && unit.byte == b'"' && !self.backslash {
            self.in_string = !self.in_string;
        }
        self.backslash = raw && unit.byte == b'\\' && !self.backslash;
    }

    /// The end of the view: a value still open runs to the end.
    pub(super) fn finish(mut self) -> Self {
        if let Pair::Value(value) = self.pair {
            self.close(value);
        }
        self
    }

    fn step_pair(&mut self, unit: Unit) {
        let byte = unit.byte;
        self.pair = match self.pair {
            Pair::Idle => Pair::Idle,
            Pair::Name if is_name_byte(byte) => Pair::Name,
            Pair::Name | Pair::BeforeSeparator => match byte {
                b'"' | b'\'' | b'\\' | b']' | b')' | b' ' | b'\t' => Pair::BeforeSeparator,
                b':' => Pair::BeforeValue {
                    separator: Separator::Colon,
                },
                b'=' => Pair::BeforeValue {
                    separator: Separator::Equals,
                },
                b'>' => Pair::BeforeValue {
                    separator: Separator::Element,
                },
                _ => Pair::Idle,
            },
            Pair::BeforeValue { separator } => self.value_start(unit, separator),
            Pair::Value(value) => self.value_step(value, unit),
        };
    }

    fn value_start(&mut self, unit: Unit, separator: Separator) -> Pair {
        // A bare JSON value (after `:`, outside a string, in the text as it is) is replaced by
        // a JSON string, so that JSON stays JSON.
        let json_value = separator == Separator::Colon && self.plain && !self.in_string;
        let open = |kind, start| {
            Pair::Value(Value {
                kind,
                start,
                end: unit.end,
                last_start: unit.start,
                quoted: false,
                head: [0; 10],
                len: 0,
                named: false,
            })
        };
        match unit.byte {
            b' ' | b'\t' | b'\\' => Pair::BeforeValue { separator },
            quote @ (b'"' | b'\'') if separator != Separator::Element => open(
                Kind::Quoted {
                    quote,
                    escaped: unit.escaped,
                    backslashed: self.backslash,
                },
                None,
            ),
            b'{' | b'[' if separator != Separator::Element => {
                let mut pair = open(
                    Kind::Bracketed {
                        depth: 1,
                        in_string: false,
                    },
                    Some(unit.start),
                );
                if let Pair::Value(value) = &mut pair {
                    value.quoted = json_value;
                    value.push(unit.byte);
                }
                pair
            }
            byte if ends_bare(byte, separator) => Pair::Idle,
            byte => {
                let mut pair = open(Kind::Bare(separator), Some(unit.start));
                if let Pair::Value(value) = &mut pair {
                    value.quoted = json_value;
                    value.push(byte);
                }
                pair
            }
        }
    }

    fn value_step(&mut self, mut value: Value, unit: Unit) -> Pair {
        let byte = unit.byte;
        let raw = !unit.escaped;
        match &mut value.kind {
            Kind::Quoted {
                quote,
                escaped,
                backslashed,
            } if byte == *quote && unit.escaped == *escaped && self.backslash == *backslashed => {
                if *backslashed {
                    // The backslash before the closing quote is the quote's, not the value's.
                    value.end = value.last_start;
                    value.len = value.len.saturating_sub(1);
                    if value.end <= value.start.unwrap_or(value.end) {
                        value.start = None;
                    }
                }
                return self.close(value);
            }
            Kind::Quoted { .. } => {}
            Kind::Bracketed { depth, in_string } => {
                if raw && byte == b'"' && !self.backslash {
                    *in_string = !*in_string;
                } else if raw && !*in_string {
                    match byte {
                        b'{' | b'[' => *depth += 1,
                        b'}' | b']' => *depth -= 1,
                        _ => {}
                    }
                }
                if *depth == 0 {
                    value.push(byte);
                    value.end = unit.end;
                    return self.close(value);
                }
            }
            Kind::Bare(separator) if raw && ends_bare(byte, *separator) => {
                return self.close(value);
            }
            Kind::Bare(_) => {}
        }
        value.start.get_or_insert(unit.start);
        value.last_start = unit.start;
        value.end = unit.end;
        value.push(byte);
        Pair::Value(value)
    }

    /// Records the value read (unless it hides nothing) and says what comes next.
    fn close(&mut self, value: Value) -> Pair {
        let next = if value.named {
            Pair::BeforeSeparator
        } else {
            Pair::Idle
        };
        let Some(start) = value.start else {
            return next; // An empty value: nothing to hide.
        };
        let head = &value.head[..value.len.min(value.head.len())];
        let nothing = (value.len == REDACTED.len() && head == REDACTED.as_bytes())
            || (matches!(value.kind, Kind::Bare(_)) && value.len == 4 && head == b"null");
        if !nothing {
            self.found.push(Finding {
                start,
                end: value.end,
                quoted: value.quoted,
            });
        }
        next
    }
}

impl Value {
    fn push(&mut self, byte: u8) {
        if let Some(slot) = self.head.get_mut(self.len) {
            *slot = byte;
        }
        self.len += 1;
    }
}
