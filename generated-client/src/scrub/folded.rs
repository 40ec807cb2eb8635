//! The folded view: a text as a reader takes it when characters that look alike are one and
//! what no one sees is nothing, so that a known secret written in compatibility characters
//! (full-width `ｓｅｃｒｅｔ`, mathematical bold, a ligature), broken by white space (base64 in
//! MIME or PEM lines, in space-separated groups; hexadecimal as a dump, `73:33:…`, 16 bytes a
//! line) or interleaved with invisible characters (zero-width space, word joiner, soft hyphen,
//! byte order mark) is found like the secret as written.
//!
//! Every character of a view is replaced by its compatibility decomposition (NFKD, which each
//! character has on its own, so a text mixing composed and decomposed forms folds to one text),
//! and every character that then is white space (ASCII or not: the spaces NFKD makes of U+00A0
//! and U+3000 too), a separator of a dump or a grouped code (`+`, `-`, `:`; `+` and `-` already
//! read as a space by [`spellings::fold`]) or invisible ([`invisible`]: general category Cf,
//! and the other default-ignorable code points) is dropped. Each byte of the view keeps the
//! span of the character it came from, so a secret found spans, in the text, from its first
//! character to its last, whatever was dropped between them. Bytes that are not UTF-8 are kept
//! as they are.
//!
//! The known secrets are looked for in it by their own folded spellings ([`spellings()`]: each
//! spelling of `spellings.rs` folded the same way, beside it in the same automaton), so a
//! secret that holds a space, a `-` or an accent is found in its folded form too. Folding only
//! merges texts: benign text that folds to a secret's spelling (`ab-cd ef` for the secret
//! `abcdef`) is removed as the secret, never the reverse.
//!
//! Folding is read only where it can change something: a view is folded when the known
//! secrets are looked for and the text holds ASCII white space, `+`, `-`, `:` or a byte beyond
//! ASCII ([`changes`]); one linear pass, with no allocation per character. The folded bytes of
//! a text without escapes are made whole for the automata's one pass ([`bytes()`]): at most 11
//! times the text (U+FDFA, 3 bytes, decomposes to 33), usually less than it.

use unicode_normalization::char::decompose_compatible;

use super::spellings::{self, fold};
use super::views::Unit;

/// Whether an ASCII byte is dropped by folding: white space and the separators.
pub(super) const fn dropped_ascii(byte: u8) -> bool {
    matches!(
        byte,
        b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'+' | b'-' | b':'
    )
}

/// Whether folding may change a text: [`dropped_ascii`] bytes, or bytes beyond ASCII.
static CHANGES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = byte >= 0x80 || dropped_ascii(byte as u8);
        byte += 1;
    }
    table
};

/// Whether folding `text` may change it (else the folded view is the text itself).
pub(super) fn changes(text: &[u8]) -> bool {
    text.iter().any(|&byte| CHANGES[usize::from(byte)])
}

/// The characters no reader sees: general category Cf (U+00AD soft hyphen, the
/// Arabic and Syriac format marks, U+180E, U+200B..U+200F zero-width and directional marks,
/// U+202A..U+202E and U+2066..U+206F embeddings and isolates, U+2060..U+2064 word joiner and
/// invisible operators, U+FEFF, the interlinear annotations, Egyptian and shorthand format
/// controls, musical symbol formats, the tags) and the other default-ignorable code points
/// (U+034F combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian
/// variation selectors, U+FE00..U+FE0F and U+E0100..U+E01EF variation selectors, the
/// reserved ones), as sorted inclusive ranges.
const INVISIBLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// Whether `c` is a character no reader sees (see [`INVISIBLE`]).
fn invisible(c: char) -> bool {
    let c = u32::from(c);
    if c < 0xAD {
        return false;
    }
    let at = INVISIBLE.partition_point(|&(_, last)| last < c);
    INVISIBLE.get(at).is_some_and(|&(first, _)| first <= c)
}

/// Whether folding drops `c` (a character of a decomposition, or one beyond ASCII).
fn dropped(c: char) -> bool {
    if c.is_ascii() {
        dropped_ascii(c as u8)
    } else {
        c.is_whitespace() || invisible(c)
    }
}

/// The characters `c` folds to, each handed to `out` (none when it is dropped).
fn fold_char(c: char, mut out: impl FnMut(char)) {
    if c.is_ascii() {
        if !dropped_ascii(c as u8) {
            out(c);
        }
        return;
    }
    if dropped(c) {
        return;
    }
    decompose_compatible(c, |part| {
        if !dropped(part) {
            out(part);
        }
    });
}

/// `text` folded (the bytes of [`Folded`] over the text as it is, made in one pass over its
/// bytes, runs of ASCII copied and compacted without a branch a byte): for the one pass of the automata over
/// a text without escapes.
///
/// `None` when the folded bytes would pass [`MAX_GROWTH`] times the text: a text made of
/// characters that each fold to many (U+FDFA, 3 bytes, to 33) is withheld by the scrubber
/// rather than held in memory eleven times over (a body may be 32 MiB).
pub(super) fn bytes(text: &[u8]) -> Option<Vec<u8>> {
    let most = text
        .len()
        .saturating_mul(MAX_GROWTH)
        .saturating_add(GROWTH_SLACK);
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        let ascii = text[at..]
            .iter()
            .position(|byte| !byte.is_ascii())
            .unwrap_or(text.len() - at);
        if ascii > 0 {
            // Copied, then compacted in place: each byte written where the next kept one goes.
            let kept = out.len();
            out.extend_from_slice(&text[at..at + ascii]);
            let mut write = kept;
            for read in kept..kept + ascii {
                let byte = out[read];
                out[write] = byte;
                write += usize::from(!dropped_ascii(byte));
            }
            out.truncate(write);
            at += ascii;
            continue;
        }
        match char_at(&text[at..]) {
            Some((c, len)) => {
                fold_char(c, |part| {
                    let mut utf8 = [0u8; 4];
                    out.extend_from_slice(part.encode_utf8(&mut utf8).as_bytes());
                });
                at += len;
                if out.len() > most {
                    return None;
                }
            }
            // Not a character: the byte as it is.
            None => {
                out.push(text[at]);
                at += 1;
            }
        }
    }
    Some(out)
}

/// How many times its text's size the folded bytes may be ([`bytes()`]): four times holds any
/// text in which such characters are a few (full-width letters fold to fewer bytes; a
/// ligature or a Roman numeral to two or three characters).
pub(super) const MAX_GROWTH: usize = 4;

/// Bytes the folded bytes may have beyond [`MAX_GROWTH`] times the text: a short text (a
/// header value) holding one long-folding character is read, not withheld.
const GROWTH_SLACK: usize = 64;

/// The character `text` starts with and its length in bytes, when it starts with one beyond
/// ASCII: a lead byte, then as many continuation bytes as it announces, UTF-8 as Rust reads it.
fn char_at(text: &[u8]) -> Option<(char, usize)> {
    let width = match *text.first()? {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let utf8 = std::str::from_utf8(text.get(..width)?).ok()?;
    Some((utf8.chars().next()?, width))
}

/// Every spelling of `secret` looked for ([`spellings::spellings`], folded by
/// [`spellings::fold`]) and, beside each that folding changes, its folded form (folded by
/// [`bytes()`], then by [`spellings::fold`], as the view's bytes are compared): what the folded
/// view of a text holding that spelling holds.
pub(super) fn spellings(secret: &str) -> Vec<Vec<u8>> {
    let mut all = spellings::spellings(secret);
    for at in 0..all.len() {
        if !changes(&all[at]) {
            continue;
        }
        // A spelling that folds past the bound (a secret of such characters) is looked for
        // as it is only; texts folding so are withheld whole.
        let Some(folded) = bytes(&all[at]) else {
            continue;
        };
        let folded: Vec<u8> = folded.into_iter().map(fold).collect();
        if !folded.is_empty() && !all.contains(&folded) {
            all.push(folded);
        }
    }
    all
}

/// The spans, in the text, of what was found in its folded bytes ([`bytes()`]): each from the
/// first character of what was found to its last, what folding dropped between them included.
/// One walk of the view, keeping only the places asked for.
pub(super) fn spans_in_text(text: &[u8], found: &mut [super::scan::Finding]) {
    let mut wanted: Vec<usize> = found
        .iter()
        .flat_map(|finding| [finding.start, finding.end.saturating_sub(1)])
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut spans: Vec<(usize, (usize, usize))> = Vec::with_capacity(wanted.len());
    let mut next = wanted.iter().copied().peekable();
    for (at, unit) in Folded::new(super::views::raw(text)).enumerate() {
        if next.next_if_eq(&at).is_some() {
            spans.push((at, (unit.start, unit.end)));
        }
        if next.peek().is_none() {
            break;
        }
    }
    let span = |at: usize| {
        spans
            .binary_search_by_key(&at, |&(place, _)| place)
            .ok()
            .map(|index| spans[index].1)
    };
    for finding in found {
        if let (Some(first), Some(last)) =
            (span(finding.start), span(finding.end.saturating_sub(1)))
        {
            finding.start = first.0;
            finding.end = last.1;
        }
    }
}

/// A view folded (see the module docs): its characters decomposed, what folding drops left
/// out, each byte with the span of the character it came from.
pub(super) struct Folded<I: Iterator<Item = Unit>> {
    source: std::iter::Peekable<I>,
    /// The bytes of a character's folding not yet handed out.
    pending: std::collections::VecDeque<Unit>,
}

impl<I: Iterator<Item = Unit>> Folded<I> {
    pub(super) fn new(source: I) -> Self {
        Folded {
            source: source.peekable(),
            // The longest compatibility decomposition of a character is 33 bytes (U+FDFA).
            pending: std::collections::VecDeque::with_capacity(64),
        }
    }
}

impl<I: Iterator<Item = Unit>> Iterator for Folded<I> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        loop {
            if let Some(unit) = self.pending.pop_front() {
                return Some(unit);
            }
            let first = self.source.next()?;
            if first.byte.is_ascii() {
                if dropped_ascii(first.byte) {
                    continue;
                }
                return Some(first);
            }
            let width = match first.byte {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                // Not the start of a character: as it is.
                _ => return Some(first),
            };
            let mut units = [first; 4];
            let mut len = 1;
            while len < width {
                match self.source.next_if(|unit| unit.byte & 0xC0 == 0x80) {
                    Some(unit) => {
                        units[len] = unit;
                        len += 1;
                    }
                    None => break,
                }
            }
            let mut utf8 = [0u8; 4];
            for (byte, unit) in utf8.iter_mut().zip(&units[..len]) {
                *byte = unit.byte;
            }
            let Some(c) = std::str::from_utf8(&utf8[..len])
                .ok()
                .and_then(|text| text.chars().next())
                .filter(|_| len == width)
            else {
                // Not a character: each byte as it is.
                self.pending.extend(&units[1..len]);
                return Some(first);
            };
            let (start, end) = (first.start, units[len - 1].end);
            let escaped = units[..len].iter().any(|unit| unit.escaped);
            let pending = &mut self.pending;
            fold_char(c, |part| {
                let mut utf8 = [0u8; 4];
                for &byte in part.encode_utf8(&mut utf8).as_bytes() {
                    pending.push_back(Unit {
                        byte,
                        start,
                        end,
                        escaped,
                    });
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scrub::views::raw;
    use proptest::prelude::*;

    fn folded(text: &str) -> String {
        String::from_utf8(bytes(text.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn compatibility_forms_white_space_separators_and_invisible_characters_fold_away() {
        assert_eq!(folded("ｓｅｃｒｅｔ 𝐒𝐞𝐜 ﬁ ①"), "secretSecfi1");
        assert_eq!(
            folded("a\u{200b}b\u{ad}c\u{feff}d\u{2060}e\u{200d}f"),
            "abcdef"
        );
        assert_eq!(folded("dGVz\r\ndA==\n73:33-63 6b"), "dGVzdA==7333636b");
        assert_eq!(folded("a\u{a0}b\u{3000}c\u{2028}d"), "abcd");
        // Decomposed whatever the text's form: one text for both.
        assert_eq!(folded("é"), folded("e\u{301}"));
        assert_eq!(folded("plain"), "plain");
        assert!(!changes(b"plain/text_ok"));
        assert!(changes(b"a b") && changes("é".as_bytes()) && changes(b"a:b"));
    }

    #[test]
    fn each_byte_keeps_the_span_of_its_character() {
        let text = "a ｂ\u{200b}c";
        let units: Vec<Unit> = Folded::new(raw(text.as_bytes())).collect();
        let shown: Vec<(u8, usize, usize)> =
            units.iter().map(|u| (u.byte, u.start, u.end)).collect();
        assert_eq!(shown, [(b'a', 0, 1), (b'b', 2, 5), (b'c', 8, 9)]);
    }

    #[test]
    fn what_is_found_folded_spans_the_text_from_its_first_character_to_its_last() {
        use crate::scrub::scan::Finding;
        let text = "x ａｂ\u{200b}c-d y".as_bytes();
        assert_eq!(bytes(text).unwrap(), b"xabcdy");
        let mut found = [
            Finding {
                start: 1,
                end: 5,
                quoted: false,
            },
            Finding {
                start: 5,
                end: 6,
                quoted: false,
            },
        ];
        spans_in_text(text, &mut found);
        assert_eq!((found[0].start, found[0].end), (2, 14));
        assert_eq!(&text[found[1].start..found[1].end], b"y");
    }

    #[test]
    fn the_invisible_ranges_are_sorted_and_apart() {
        for pair in INVISIBLE.windows(2) {
            assert!(
                pair[0].0 <= pair[0].1 && pair[0].1 + 1 < pair[1].0,
                "{pair:x?}"
            );
        }
        for c in [
            '\u{ad}',
            '\u{200b}',
            '\u{2064}',
            '\u{feff}',
            '\u{e0041}',
            '\u{fe0f}',
        ] {
            assert!(invisible(c), "{c:?}");
        }
        for c in ['a', '\u{ac}', '\u{ae}', '\u{2070}', 'é', '\u{10ffff}'] {
            assert!(!invisible(c), "{c:?}");
        }
    }

    proptest! {
        /// The one pass over a text's characters and the view over its units fold alike,
        /// whatever the bytes (not UTF-8 included).
        #[test]
        fn the_pass_and_the_view_agree(
            pieces in prop::collection::vec(
                prop_oneof![
                    prop::collection::vec(any::<u8>(), 0..6),
                    "[a-z :+-]{0,4}|ｓ|𝐒|é|e\u{301}|\u{200b}|\u{fdfa}|\u{3000}".prop_map(String::into_bytes),
                ],
                0..12,
            ),
        ) {
            let text = pieces.concat();
            let view: Vec<u8> = Folded::new(raw(&text)).map(|unit| unit.byte).collect();
            prop_assert_eq!(bytes(&text), Some(view));
        }
    }
}
