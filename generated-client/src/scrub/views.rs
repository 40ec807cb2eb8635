//! Views of a text with its escapes decoded, as streams of bytes that remember where in the text
//! each came from, so that what is found in a view is removed from the text itself.
//!
//! View 0 is the text as it is. Each further view decodes one more layer of every escape a
//! secret may be written with in a body or a URL: percent-encoding (`%2F`, either case), JSON
//! string escapes (`\u00e9`, surrogate pairs, `\"`, `\/`, …)
//! and HTML character references (`&amp;`, `&#39;`, `&#x2F;`). A secret encoded twice
//! (`%2526`, a JSON-escaped percent-encoding) is plain in view 2. Decoding is a stream with a
//! lookahead of one escape, so a view costs no memory beyond that, and each is one linear pass.
//! Form encoding's `+` for a space is not decoded: known secrets are matched with `+` and a
//! space taken as one byte (`scan::same_space`), in every view.

use std::collections::VecDeque;

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

/// The longest escape read: `\uD83D\uDE00` (a surrogate pair), 12 bytes.
pub(super) const LONGEST_ESCAPE: usize = 12;

/// What an escape stands for: up to four bytes (one UTF-8 character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Escape {
    /// How many bytes of the text it takes.
    pub(super) len: usize,
    bytes: [u8; 4],
    count: usize,
}

impl Escape {
    fn of_byte(len: usize, byte: u8) -> Escape {
        Escape {
            len,
            bytes: [byte, 0, 0, 0],
            count: 1,
        }
    }

    fn of_char(len: usize, c: char) -> Escape {
        let mut bytes = [0u8; 4];
        let count = c.encode_utf8(&mut bytes).len();
        Escape { len, bytes, count }
    }

    /// The bytes it stands for.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes[..self.count]
    }
}

/// The escape at the start of a text whose bytes `at(i)` gives (`None` past its end), if one
/// starts there: `%HH`, a JSON escape (`\uXXXX` with surrogate pairs, `\"`, `\\`, `\/`, …) or
/// an HTML character reference (`&amp;`, `&#39;`, `&#x2F;`).
pub(super) fn escape_at(at: impl Fn(usize) -> Option<u8>) -> Option<Escape> {
    let hex = |from: usize, count: usize| -> Option<u32> {
        (from..from + count).try_fold(0u32, |value, i| {
            Some(value * 16 + char::from(at(i)?).to_digit(16)?)
        })
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
        b'&' => {
            // `&name;`, `&#digits;` or `&#xhex;`, at most 11 bytes in all.
            let mut name = [0u8; 9];
            let mut len = 0;
            loop {
                let byte = at(len + 1)?;
                if byte == b';' {
                    break;
                }
                if len == name.len() || !byte.is_ascii_alphanumeric() && byte != b'#' {
                    return None;
                }
                name[len] = byte;
                len += 1;
            }
            let c = match &name[..len] {
                b"amp" => '&',
                b"lt" => '<',
                b"gt" => '>',
                b"quot" => '"',
                b"apos" => '\'',
                [b'#', b'x' | b'X', hex @ ..] if !hex.is_empty() => {
                    char::from_u32(u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?)?
                }
                [b'#', decimal @ ..] if !decimal.is_empty() => {
                    char::from_u32(std::str::from_utf8(decimal).ok()?.parse().ok()?)?
                }
                _ => return None,
            };
            Some(Escape::of_char(len + 2, c))
        }
        _ => None,
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
            pending: VecDeque::with_capacity(4),
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
