//! Views of a text with its escapes decoded, as streams of bytes that remember where in the text
//! each came from, so that what is found in a view is removed from the text itself.
//!
//! View 0 is the text as it is. Each further view decodes one more layer of every escape a
//! secret may be written with in a body, a URL or an error a language printed: percent-encoding
//! (`%2F`, either case), JSON string escapes (`\u00e9`, surrogate pairs, `\"`, `\/`, …), the
//! escapes of the languages whose errors services print (`\x5f`, `\u{5f}`), and HTML character
//! references: every named one of HTML5 (`&amp;`, `&colon;`, `&lowbar;`, `&eacute;`, WHATWG's
//! table, the legacy ones without their `;` too) and numeric ones, decimal or hexadecimal, with
//! or without their `;` and with leading zeros. A secret encoded twice (`%2526`, a JSON-escaped
//! percent-encoding) is plain in view 2. Decoding is a stream with a lookahead of one escape
//! ([`LONGEST_ESCAPE`] bytes), so a view costs no memory beyond that, and each is one linear
//! pass. An HTML reference without its `;` followed by a `\` or `%` escape that stands for
//! what would continue it (a digit, a letter of a name, the `;`, or another escape's start) is
//! left for a later view:
//! an outer layer escaped part of it (`&#9\u0032;` in JSON is `&#92;`). A numeric escape too
//! long for that lookahead (leading zeros have no bound) is not
//! decoded but found by [`Overlong`]: a text holding one is withheld. Form encoding's `+` for a
//! space is not decoded: known secrets are matched with `+` and a space taken as one byte
//! (`spellings::fold`), in every view.

use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::LazyLock;

/// One byte of a view: the byte as decoded, the span of the original text it was read from,
/// and whether it was written as an escape (in this view or one below it), which tells a
/// delimiter of the text (a quote closing a value) from a character inside a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unit {
    pub(super) byte: u8,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) escaped: bool,
}

/// The text as it is: view 0.
pub(super) fn raw(text: &[u8]) -> impl Iterator<Item = Unit> + '_ {
    text.iter().enumerate().map(|(at, &byte)| Unit {
        byte,
        start: at,
        end: at + 1,
        escaped: false,
    })
}

/// The longest escape read, in bytes: more than the longest HTML5 named reference
/// (`&CounterClockwiseContourIntegral;`, 33) and a numeric reference with a few dozen leading
/// zeros; an escape is never read past it (see [`Overlong`]).
pub(super) const LONGEST_ESCAPE: usize = 40;

/// The most bytes an escape stands for: two characters (some HTML references are two).
const MOST_DECODED: usize = 8;

/// What an escape stands for: up to [`MOST_DECODED`] bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Escape {
    /// How many bytes of the text it takes.
    pub(super) len: usize,
    bytes: [u8; MOST_DECODED],
    count: usize,
}

impl Escape {
    fn of_byte(len: usize, byte: u8) -> Escape {
        let mut bytes = [0u8; MOST_DECODED];
        bytes[0] = byte;
        Escape {
            len,
            bytes,
            count: 1,
        }
    }

    fn of_char(len: usize, c: char) -> Escape {
        let mut bytes = [0u8; MOST_DECODED];
        let count = c.encode_utf8(&mut bytes).len();
        Escape { len, bytes, count }
    }

    /// The escape of a text of at most [`MOST_DECODED`] bytes (an HTML reference's).
    fn of_text(len: usize, text: &str) -> Option<Escape> {
        let mut bytes = [0u8; MOST_DECODED];
        bytes
            .get_mut(..text.len())?
            .copy_from_slice(text.as_bytes());
        Some(Escape {
            len,
            bytes,
            count: text.len(),
        })
    }

    /// The bytes it stands for.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes[..self.count]
    }
}

/// HTML5's named character references (WHATWG's table), by name after the `&`: `amp;`, and
/// `amp` for the legacy ones a parser reads without their `;`.
static NAMED_REFERENCES: LazyLock<HashMap<&'static [u8], &'static str>> = LazyLock::new(|| {
    entities::ENTITIES
        .iter()
        .filter_map(|entity| {
            let name = entity.entity.strip_prefix('&')?;
            (entity.characters.len() <= MOST_DECODED)
                .then_some((name.as_bytes(), entity.characters))
        })
        .collect()
});

/// The longest name of a legacy reference (read without its `;`): `middot`, `plusmn`.
const LONGEST_LEGACY_NAME: usize = 6;

/// The character a numeric reference stands for, as HTML reads it: a value that is no
/// character (zero, a surrogate, past U+10FFFF) is U+FFFD.
fn numeric_reference(value: u32) -> char {
    char::from_u32(value)
        .filter(|&c| c != '\0')
        .unwrap_or('\u{FFFD}')
}

/// Whether an escape ([`escape_at`]) starts anywhere in `text`: without one, each byte of it
/// has one reading.
pub(super) fn holds_escape(text: &[u8]) -> bool {
    memchr::memchr3_iter(b'%', b'\\', b'&', text)
        .any(|at| escape_at(|i| text.get(at + i).copied()).is_some())
}

/// The escape at the start of a text whose bytes `at(i)` gives (`None` past its end), if one
/// starts there: `%HH`, a JSON escape (`\uXXXX` with surrogate pairs, `\"`, `\\`, `\/`, …),
/// `\xHH`, `\u{H…}`, or an HTML character reference (see the module docs). Never reads at
/// [`LONGEST_ESCAPE`] or beyond.
pub(super) fn escape_at(at: impl Fn(usize) -> Option<u8>) -> Option<Escape> {
    let at = |i: usize| if i < LONGEST_ESCAPE { at(i) } else { None };
    let hex = |from: usize, count: usize| -> Option<u32> {
        (from..from + count).try_fold(0u32, |value, i| {
            Some(value * 16 + char::from(at(i)?).to_digit(16)?)
        })
    };
    // The digits from `from` on, in `radix`, up to the first byte that is none, and where it
    // is; `None` when there are none, or when they run to the lookahead's end (more may come).
    let digits = |from: usize, radix: u32| -> Option<(u32, usize)> {
        let mut value = 0u32;
        let mut i = from;
        loop {
            if i + 1 >= LONGEST_ESCAPE {
                return None;
            }
            match at(i).and_then(|byte| char::from(byte).to_digit(radix)) {
                Some(digit) => value = value.saturating_mul(radix).saturating_add(digit),
                None if i > from => return Some((value, i)),
                None => return None,
            }
            i += 1;
        }
    };
    match at(0)? {
        b'%' => Some(Escape::of_byte(3, hex(1, 2)? as u8)),
        b'\\' => {
            let simple = match at(1)? {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'\'' => b'\'',
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                // `\x5f`: a byte, as Python's bytes and PHP's strings write one.
                b'x' => return Some(Escape::of_byte(4, hex(2, 2)? as u8)),
                // `\u{5f}` (JavaScript, Rust).
                b'u' if at(2) == Some(b'{') => {
                    let (value, end) = digits(3, 16)?;
                    if at(end) != Some(b'}') {
                        return None;
                    }
                    return Some(Escape::of_char(end + 1, char::from_u32(value)?));
                }
                b'u' => {
                    let first = hex(2, 4)?;
                    if (0xD800..0xDC00).contains(&first)
                        && at(6) == Some(b'\\')
                        && at(7) == Some(b'u')
                    {
                        if let Some(second) = hex(8, 4).filter(|low| (0xDC00..0xE000).contains(low))
                        {
                            let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                            return Some(Escape::of_char(
                                12,
                                char::from_u32(c).unwrap_or('\u{FFFD}'),
                            ));
                        }
                    }
                    return Some(Escape::of_char(
                        6,
                        char::from_u32(first).unwrap_or('\u{FFFD}'),
                    ));
                }
                _ => return None,
            };
            Some(Escape::of_byte(2, simple))
        }
        b'&' if at(1) == Some(b'#') => {
            // `&#95;`, `&#x5F;`, `&#X00005f;`, and without the `;`.
            let (from, radix) = match at(2)? {
                b'x' | b'X' => (3, 16),
                _ => (2, 10),
            };
            let (value, end) = digits(from, radix)?;
            if at(end) == Some(b';') {
                return Some(Escape::of_char(end + 1, numeric_reference(value)));
            }
            // Without its `;`, an escape after the digits that stands for another digit or the
            // `;` (or for the start of an escape of the next view, `%2535` for `5`) is the
            // reference's own, escaped by an outer layer (`&#9\u0032;` in JSON is `&#92;`):
            // read in a later view, not cut short here.
            let continued =
                |byte: u8| matches!(byte, b';' | b'\\' | b'%') || char::from(byte).is_digit(radix);
            if escape_continues(&at, end, &continued) {
                return None;
            }
            Some(Escape::of_char(end, numeric_reference(value)))
        }
        b'&' => {
            // A name, then its `;`; a legacy name may come without it (`&eacute`, `&amp`).
            let mut name = [0u8; LONGEST_ESCAPE];
            let mut len = 0;
            while let Some(byte) = at(len + 1).filter(u8::is_ascii_alphanumeric) {
                name[len] = byte;
                len += 1;
            }
            if at(len + 1) == Some(b';') {
                name[len] = b';';
                if let Some(text) = NAMED_REFERENCES.get(&name[..=len]) {
                    return Escape::of_text(len + 2, text);
                }
            }
            // A legacy name followed by an escape that stands for a letter, a digit or the `;`
            // (or for the start of another escape) may be a longer name escaped by an outer
            // layer: read in a later view.
            let continued =
                |byte: u8| matches!(byte, b';' | b'\\' | b'%') || byte.is_ascii_alphanumeric();
            if escape_continues(&at, len + 1, &continued) {
                return None;
            }
            (1..=len.min(LONGEST_LEGACY_NAME)).rev().find_map(|prefix| {
                let text = NAMED_REFERENCES.get(&name[..prefix])?;
                Escape::of_text(prefix + 1, text)
            })
        }
        _ => None,
    }
}

/// Whether an escape of another family than HTML's (`\…`, `%HH`: what an outer layer writes)
/// starts at `from` of the text `at` reads, standing for a byte `continued` takes. A reference
/// right after a reference is the same layer's next one (`&#65&#66;` is `AB`). Each call reads
/// further into the same bounded lookahead, so the recursion ends within [`LONGEST_ESCAPE`]
/// bytes.
fn escape_continues(
    at: &dyn Fn(usize) -> Option<u8>,
    from: usize,
    continued: &dyn Fn(u8) -> bool,
) -> bool {
    if !matches!(at(from), Some(b'\\' | b'%')) {
        return false;
    }
    let rest = |i: usize| at(from + i);
    let rest: &dyn Fn(usize) -> Option<u8> = &rest;
    escape_at(rest).is_some_and(|escape| escape.bytes().first().is_some_and(|&b| continued(b)))
}

/// Finds, byte by byte of a view, an escape too long for [`escape_at`] to read: a numeric
/// reference (`&#`, `&#x`) or a braced `\u{` whose digits run on past [`LONGEST_ESCAPE`]
/// (leading zeros have no bound). The views cannot decode it, so a text holding one cannot be
/// cleaned for certain.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Overlong {
    state: OverlongState,
}

#[derive(Clone, Copy, Debug, Default)]
enum OverlongState {
    #[default]
    Idle,
    Ampersand,
    Backslash,
    /// `&#` or `\u`, before its `x` or `{`.
    Introduced {
        reference: bool,
    },
    /// Digits after `&#`, `&#x` or `\u{`, with the bytes the escape has taken so far.
    Digits {
        taken: usize,
    },
}

impl Overlong {
    /// Reads the next byte; whether an escape too long to read ends with it.
    pub(super) fn feed(&mut self, byte: u8) -> bool {
        use OverlongState::*;
        self.state = match (self.state, byte) {
            (Ampersand, b'#') => Introduced { reference: true },
            (Backslash, b'u') => Introduced { reference: false },
            (Introduced { reference: true }, b'x' | b'X') => Digits { taken: 3 },
            (Introduced { reference: false }, b'{') => Digits { taken: 3 },
            (Introduced { reference: true }, byte) if byte.is_ascii_digit() => Digits { taken: 3 },
            (Digits { taken }, byte) if byte.is_ascii_hexdigit() => Digits { taken: taken + 1 },
            (_, b'&') => Ampersand,
            (_, b'\\') => Backslash,
            _ => Idle,
        };
        // `escape_at` reads digits up to one byte before the lookahead's end.
        matches!(self.state, Digits { taken } if taken + 1 >= LONGEST_ESCAPE)
    }
}

/// `source` with one more layer of escapes decoded.
pub(super) struct Decoded<I: Iterator<Item = Unit>> {
    source: I,
    ahead: VecDeque<Unit>,
    /// The bytes of a decoded character not yet handed out.
    pending: VecDeque<Unit>,
}

impl<I: Iterator<Item = Unit>> Decoded<I> {
    pub(super) fn new(source: I) -> Self {
        Decoded {
            source,
            ahead: VecDeque::with_capacity(LONGEST_ESCAPE + 1),
            pending: VecDeque::with_capacity(MOST_DECODED),
        }
    }

    /// The escape at the current unit, decoded, if one starts there.
    fn escape(&mut self) -> Option<Unit> {
        while self.ahead.len() < LONGEST_ESCAPE {
            match self.source.next() {
                Some(unit) => self.ahead.push_back(unit),
                None => break,
            }
        }
        let ahead = &self.ahead;
        let escape = escape_at(|i| ahead.get(i).map(|unit| unit.byte))?;
        let start = self.ahead.front()?.start;
        let end = self.ahead.get(escape.len - 1)?.end;
        self.ahead.drain(..escape.len);
        self.pending.extend(escape.bytes().iter().map(|&byte| Unit {
            byte,
            start,
            end,
            escaped: true,
        }));
        self.pending.pop_front()
    }
}

impl<I: Iterator<Item = Unit>> Iterator for Decoded<I> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        if let Some(unit) = self.pending.pop_front() {
            return Some(unit);
        }
        if let Some(unit) = self.escape() {
            return Some(unit);
        }
        // Not an escape (or an incomplete one at the end): the unit as it is.
        self.ahead.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoded bytes of one more view, and each byte's source span.
    fn decode(text: &str) -> (String, Vec<(usize, usize)>) {
        let units: Vec<Unit> = Decoded::new(raw(text.as_bytes())).collect();
        let bytes: Vec<u8> = units.iter().map(|unit| unit.byte).collect();
        let spans = units.iter().map(|unit| (unit.start, unit.end)).collect();
        (String::from_utf8(bytes).unwrap(), spans)
    }

    #[test]
    fn decodes_one_layer_of_every_escape_family() {
        assert_eq!(decode("a%2Fb%2fc+d").0, "a/b/c+d");
        assert_eq!(decode(r#"\u0073\"\\\/\n"#).0, "s\"\\/\n");
        assert_eq!(decode(r"\ud83d\ude00 \u00e9").0, "😀 é");
        assert_eq!(decode("&amp;&lt;&#39;&#x2F;&quot;").0, "&<'/\"");
        // Two layers: the second view is plain.
        let once: Vec<Unit> = Decoded::new(raw(b"%2526")).collect();
        let twice: Vec<u8> = Decoded::new(once.into_iter()).map(|u| u.byte).collect();
        assert_eq!(twice, b"&");
    }

    #[test]
    fn keeps_what_is_not_an_escape_and_maps_back_to_the_source() {
        assert_eq!(decode("100% &x; \\q %4").0, "100% &x; \\q %4");
        let (text, spans) = decode("a%41b");
        assert_eq!(text, "aAb");
        assert_eq!(spans, [(0, 1), (1, 4), (4, 5)]);
        let (text, spans) = decode(r"\u00e9");
        assert_eq!(text, "é");
        assert_eq!(spans, [(0, 6), (0, 6)]);
    }
}
