//! One pass over one view of a text: where a secret-named value is.
//!
//! An automaton of the secret words (`secret`, `password`, …; ASCII case and separators
//! ignored) steps over each byte. A word starts a small machine that reads what follows as a
//! name/value pair in any of the shapes a body, a log or an error page may have:
//! `name=value`, `"name": "value"`, `name: value`, `'name': {…}`, an escaped
//! `\"name\": \"value\"`, `"name" => "value"` (PHP, Perl, Ruby), `[name] => value`
//! (`print_r`), `--name value` and `--name=value` (command lines), and XML's
//! `<name>value</name>`, `<name attr="…">value</name>` and `<name><![CDATA[value]]></name>`, at
//! any depth, duplicated or not: the rest of the name, closing quotes, `:`, `=`, `=>` or `>`,
//! then the value, quoted, bracketed (a whole object or array, nesting counted), a CDATA
//! section, or bare (to the end of the pair, line, word or element). Each byte is looked at
//! once, so a pass is linear in the text whatever it holds.

use aho_corasick::Anchored;
use aho_corasick::automaton::Automaton;
use aho_corasick::automaton::StateID;
use aho_corasick::dfa::DFA;

use super::views::{Overlong, Unit};
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
    /// After the word `oauth_signature` in a name: how many bytes of [`METHOD`] follow it so
    /// far (separators left out), `None` once anything else does. A name that is exactly
    /// `oauth_signature_method` holds no secret ([`EXEMPT_AFTER_SIGNATURE`]).
    signature_tail: Option<usize>,
    /// Whether the text so far is inside a double-quoted string (JSON's strings), and
    /// whether the last byte was an unescaped backslash.
    in_string: bool,
    backslash: bool,
    /// What the bytes since the last `<` or white space make: an element's name, an option.
    context: Context,
    pair: Pair,
    overlong: Overlong,
    /// Whether the view holds a byte that starts an escape: without one, the next view is
    /// the same as this one.
    pub(super) escapes: bool,
    /// Whether the view holds an escape too long to decode ([`Overlong`]): the text cannot be
    /// cleaned for certain.
    pub(super) undecodable: bool,
    pub(super) found: Vec<Finding>,
}

/// What the name a secret word ends in was introduced by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// Nothing known (the start of a text is white space).
    Other,
    /// White space, or the start of the text.
    Space,
    /// Dashes after white space (`-`, `--`).
    Dashes,
    /// Name bytes after those dashes: a command line's option.
    Option,
    /// Right after a `<`.
    Open,
    /// Name bytes right after a `<`: an element's name.
    Tag,
    /// Name bytes after `</`: a closing tag's, which starts no pair.
    Closing,
}

/// What a name holding a secret word is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameKind {
    /// Of a pair, a field or a header: it runs on over spaces (`Private Key: …`).
    Plain,
    /// A command line's option (`--password`): white space ends it, and its value follows.
    Option,
    /// An element's (`<password`): white space ends it, attributes may follow.
    Element,
}

/// Where the pair machine stands.
#[derive(Clone, Copy, Debug)]
enum Pair {
    Idle,
    /// In the name a secret word is part of.
    Name(NameKind),
    /// After the name: closing quotes or brackets, white space.
    BeforeSeparator,
    /// In the start tag of a secret-named element, after its name: attributes up to `>`.
    Attributes(Attributes),
    /// After the separator (`fresh`: right after it, where `=` may turn out to be `=>`).
    BeforeValue {
        separator: Separator,
        fresh: bool,
    },
    /// A tag at the start of a secret-named element's content, `matched` bytes of
    /// `![CDATA[` read after its `<`.
    InnerTag {
        matched: usize,
    },
    /// In a tag that is not a CDATA section, up to its `>`.
    SkippedTag,
    Value(Value),
}

/// The start tag of a secret-named element, after its name.
#[derive(Clone, Copy, Debug, Default)]
struct Attributes {
    /// The quote of the attribute value being read.
    quote: Option<u8>,
    /// The last byte was `/` (a `/>` ends an empty element).
    slash: bool,
    /// A secret word is in the attribute's name: its value is found too.
    named: bool,
    /// The span of that value so far.
    span: Option<(usize, usize)>,
}

/// What stands between a name and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Separator {
    /// `name: value` (JSON, YAML, prose): a bare value runs to the end of its line or
    /// element.
    Colon,
    /// `name => value` (PHP, Perl, Ruby, `print_r`): as after a colon, never JSON.
    Arrow,
    /// `name=value` (form pairs, queries, cookies, attributes): a bare value runs to white
    /// space or the next pair.
    Equals,
    /// `--name value` (a command line): the value is the next word.
    Space,
    /// `<name>value</name>` (XML): the value runs to the next tag.
    Element,
    /// `name:` and then a line break (pretty-printed JSON): only a quoted or bracketed value
    /// may follow, after white space; a word on the next line is prose, not the value.
    ColonBreak,
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
    /// Up to `]]>`: the ends of the `]` bytes not yet known to be the value's (at most two).
    CData {
        brackets: [usize; 2],
        pending: usize,
    },
    /// Up to a byte that ends a bare value after this separator.
    Bare(Separator),
}

/// The bytes after `<` that open a CDATA section.
const CDATA_OPEN: &[u8] = b"![CDATA[";

/// Bytes a name runs on with, after its secret word.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b' ' | b'+' | b'\t')
}

/// Whether `byte` ends a bare value after `separator`.
fn ends_bare(byte: u8, separator: Separator) -> bool {
    let delimiter = matches!(
        byte,
        b'&' | b',' | b';' | b'}' | b']' | b')' | b'<' | b'>' | b'"' | b'\''
    );
    match separator {
        Separator::Equals | Separator::Space => delimiter || byte.is_ascii_whitespace(),
        Separator::Colon | Separator::Arrow | Separator::ColonBreak => {
            delimiter || matches!(byte, b'\n' | b'\r')
        }
        Separator::Element => byte == b'<',
    }
}

impl Context {
    fn next(self, byte: u8) -> Context {
        match (self, byte) {
            (_, b'<') => Context::Open,
            (_, byte) if byte.is_ascii_whitespace() => Context::Space,
            (Context::Space | Context::Dashes, b'-') => Context::Dashes,
            (Context::Dashes | Context::Option, byte) if is_option_byte(byte) => Context::Option,
            (Context::Open, b'/') => Context::Closing,
            (Context::Open | Context::Tag, byte) if is_option_byte(byte) || byte == b':' => {
                Context::Tag
            }
            (Context::Closing, byte) if is_option_byte(byte) || byte == b':' => Context::Closing,
            _ => Context::Other,
        }
    }

    /// The pair a secret word ending here starts.
    fn pair(self) -> Pair {
        match self {
            Context::Option => Pair::Name(NameKind::Option),
            Context::Tag => Pair::Name(NameKind::Element),
            Context::Closing => Pair::Idle,
            Context::Other | Context::Space | Context::Dashes | Context::Open => {
                Pair::Name(NameKind::Plain)
            }
        }
    }
}

/// Bytes of an option's or an element's name.
fn is_option_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')
}

/// `oauth_signature_method` names the signature's algorithm (`HMAC-SHA1`), never a secret,
/// though it holds the secret word `oauth_signature`: its value is kept, so the service's base
/// string in a refusal (`…%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D…`), the
/// evidence for a signature that does not match, is shown whole. Only a name whose first
/// secret word is `oauth_signature` and that ends right after it in `method` (separators and
/// ASCII case aside): any other byte after `method`, or another secret word before, keeps the
/// name secret.
const EXEMPT_AFTER_SIGNATURE: &[u8] = b"method";

/// The secret word a name must end in, followed by [`EXEMPT_AFTER_SIGNATURE`], to be exempt.
const SIGNATURE_WORD: &str = "oauthsignature";

/// The index of [`SIGNATURE_WORD`] among the secret words (the automaton's pattern).
fn signature_pattern() -> Option<usize> {
    crate::secret::SECRET_WORDS
        .iter()
        .position(|word| *word == SIGNATURE_WORD)
}

impl<'a> Scan<'a> {
    pub(super) fn new(words: &'a DFA, plain: bool) -> Self {
        Scan {
            words,
            plain,
            // Unanchored starts always exist: the automaton is built with the default kind.
            word_state: words.start_state(Anchored::No).unwrap_or(StateID::ZERO),
            signature_tail: None,
            in_string: false,
            backslash: false,
            context: Context::Space,
            pair: Pair::Idle,
            overlong: Overlong::default(),
            escapes: false,
            undecodable: false,
            found: Vec::new(),
        }
    }

    pub(super) fn feed(&mut self, unit: Unit) {
        self.escapes |= matches!(unit.byte, b'%' | b'\\' | b'&');
        self.undecodable |= self.overlong.feed(unit.byte);
        if let Pair::Name(_) = self.pair
            && is_name_byte(unit.byte)
            && !is_name_separator(unit.byte)
        {
            let byte = unit.byte.to_ascii_lowercase();
            self.signature_tail = self.signature_tail.and_then(|read| {
                (EXEMPT_AFTER_SIGNATURE.get(read) == Some(&byte)).then_some(read + 1)
            });
        }
        self.step_pair(unit);
        self.context = self.context.next(unit.byte);
        // Separators are left out of names: `oauth-verifier` is `oauth_verifier`. A word is
        // found at its last byte (a separator after it finds it no more).
        let separator = is_name_separator(unit.byte);
        if !separator {
            self.word_state = self
                .words
                .next_state(Anchored::No, self.word_state, unit.byte);
        }
        if !separator && self.words.is_match(self.word_state) {
            // Exempt only a name whose first secret word is `oauth_signature`: one that held
            // another before (`secret_oauth_signature_method`) stays secret.
            let pattern = self.words.match_pattern(self.word_state, 0).as_usize();
            let first_word = !matches!(self.pair, Pair::Name(_) | Pair::BeforeSeparator);
            self.signature_tail = (first_word && Some(pattern) == signature_pattern()).then_some(0);
            match &mut self.pair {
                // A name inside a value (`secret="oauth_token_secret": "x"`) may be the name
                // of what follows the value.
                Pair::Value(value) => value.named = true,
                // An attribute of a secret-named element (`<password secret-kind="a">`).
                Pair::Attributes(attributes) if attributes.quote.is_none() => {
                    attributes.named = true;
                }
                Pair::Attributes(_) => {}
                pair => *pair = self.context.pair(),
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
        let separator = |separator| Pair::BeforeValue {
            separator,
            fresh: true,
        };
        let naming = matches!(self.pair, Pair::Name(_) | Pair::BeforeSeparator);
        let next = match self.pair {
            Pair::Idle => Pair::Idle,
            Pair::Name(NameKind::Plain) if is_name_byte(byte) => Pair::Name(NameKind::Plain),
            Pair::Name(kind @ (NameKind::Option | NameKind::Element)) if is_option_byte(byte) => {
                Pair::Name(kind)
            }
            Pair::Name(NameKind::Option) if matches!(byte, b' ' | b'\t') => {
                separator(Separator::Space)
            }
            Pair::Name(NameKind::Element) if byte.is_ascii_whitespace() => {
                Pair::Attributes(Attributes::default())
            }
            Pair::Name(NameKind::Element) if byte == b'/' => Pair::Idle,
            Pair::Name(_) | Pair::BeforeSeparator => match byte {
                // White space between a name and its separator, line breaks included
                // (pretty-printed JSON may put the colon on a line of its own).
                b'"' | b'\'' | b'\\' | b']' | b')' | b' ' | b'\t' | b'\n' | b'\r' => {
                    Pair::BeforeSeparator
                }
                b':' => separator(Separator::Colon),
                b'=' => separator(Separator::Equals),
                b'>' => separator(Separator::Element),
                _ => Pair::Idle,
            },
            Pair::Attributes(attributes) => self.attributes_step(attributes, unit),
            Pair::BeforeValue {
                separator: Separator::Equals,
                fresh: true,
            } if byte == b'>' => Pair::BeforeValue {
                separator: Separator::Arrow,
                fresh: false,
            },
            Pair::BeforeValue { separator, .. } => self.value_start(unit, separator),
            Pair::InnerTag { matched } => match byte {
                // A closing tag: the element is empty.
                b'/' if matched == 0 => Pair::Idle,
                _ if CDATA_OPEN.get(matched) == Some(&byte) => {
                    if matched + 1 == CDATA_OPEN.len() {
                        self.open(
                            unit,
                            Kind::CData {
                                brackets: [0; 2],
                                pending: 0,
                            },
                            None,
                            false,
                        )
                    } else {
                        Pair::InnerTag {
                            matched: matched + 1,
                        }
                    }
                }
                b'>' => separator(Separator::Element),
                _ => Pair::SkippedTag,
            },
            // A nested start tag (`<password><string>v</string>`) or a comment.
            Pair::SkippedTag if byte == b'>' => separator(Separator::Element),
            Pair::SkippedTag => Pair::SkippedTag,
            Pair::Value(value) => self.value_step(value, unit),
        };
        // The name ended: one that is exactly `oauth_signature_method` has no secret value.
        self.pair = match next {
            Pair::BeforeValue { .. } | Pair::Attributes(_)
                if naming && self.signature_tail == Some(EXEMPT_AFTER_SIGNATURE.len()) =>
            {
                Pair::Idle
            }
            next => next,
        };
    }

    /// A byte of a secret-named element's start tag.
    fn attributes_step(&mut self, mut attributes: Attributes, unit: Unit) -> Pair {
        let byte = unit.byte;
        match attributes.quote {
            Some(quote) if byte == quote && !unit.escaped => {
                if let (true, Some((start, end))) = (attributes.named, attributes.span) {
                    self.found.push(Finding {
                        start,
                        end,
                        quoted: false,
                    });
                }
                attributes = Attributes::default();
            }
            Some(_) => {
                if attributes.named {
                    let start = attributes.span.map_or(unit.start, |(start, _)| start);
                    attributes.span = Some((start, unit.end));
                }
            }
            None => match byte {
                b'"' | b'\'' => attributes.quote = Some(byte),
                b'>' if attributes.slash => return Pair::Idle,
                b'>' => {
                    return Pair::BeforeValue {
                        separator: Separator::Element,
                        fresh: true,
                    };
                }
                _ => attributes.slash = byte == b'/',
            },
        }
        Pair::Attributes(attributes)
    }

    /// A value of `kind` opened at `unit` (`start`: `None` when `unit` is not part of it).
    fn open(&mut self, unit: Unit, kind: Kind, start: Option<usize>, quoted: bool) -> Pair {
        let mut value = Value {
            kind,
            start,
            end: unit.end,
            last_start: unit.start,
            quoted,
            head: [0; 10],
            len: 0,
            named: false,
        };
        if start.is_some() {
            value.push(unit.byte);
        }
        Pair::Value(value)
    }

    fn value_start(&mut self, unit: Unit, separator: Separator) -> Pair {
        // A bare JSON value (after `:`, outside a string, in the text as it is) is replaced by
        // a JSON string, so that JSON stays JSON.
        let json_value = matches!(separator, Separator::Colon | Separator::ColonBreak)
            && self.plain
            && !self.in_string;
        match unit.byte {
            b' ' | b'\t' | b'\\' => Pair::BeforeValue {
                separator,
                fresh: false,
            },
            b'\n' | b'\r' if matches!(separator, Separator::Colon | Separator::ColonBreak) => {
                Pair::BeforeValue {
                    separator: Separator::ColonBreak,
                    fresh: false,
                }
            }
            b'<' if separator == Separator::Element => Pair::InnerTag { matched: 0 },
            quote @ (b'"' | b'\'') if separator != Separator::Element => self.open(
                unit,
                Kind::Quoted {
                    quote,
                    escaped: unit.escaped,
                    backslashed: self.backslash,
                },
                None,
                false,
            ),
            b'{' | b'[' if separator != Separator::Element => self.open(
                unit,
                Kind::Bracketed {
                    depth: 1,
                    in_string: false,
                },
                Some(unit.start),
                json_value,
            ),
            byte if ends_bare(byte, separator) => Pair::Idle,
            _ if separator == Separator::ColonBreak => Pair::Idle,
            _ => self.open(unit, Kind::Bare(separator), Some(unit.start), json_value),
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
            Kind::CData { brackets, pending } => {
                if byte == b'>' && *pending == 2 {
                    return self.close(value);
                }
                if byte == b']' {
                    // The third `]` in a row is the value's: the first of the two kept.
                    if *pending == 2 {
                        value.end = brackets[0];
                        brackets[0] = brackets[1];
                        *pending = 1;
                    }
                    brackets[*pending] = unit.end;
                    *pending += 1;
                    value.start.get_or_insert(unit.start);
                    value.push(byte);
                    return Pair::Value(value);
                }
                *pending = 0;
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
        if !nothing && value.end > start {
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
