//! RFC 3986 percent-encoding as RFC 5849 section 3.6 uses it, written to any [`Sink`], and the
//! order of percent-encoded strings computed from the raw strings.
//!
//! Signing encodes every parameter twice (once to normalize it, once more as part of the base
//! string) and sorts the parameters by their encoded form; both happen here without building
//! the intermediate strings. Everything written is ASCII.

use std::cmp::Ordering;

/// Where encoded text goes: the signature base string, the HMAC, a header, a key buffer.
pub(super) trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);

    /// Appends the percent-encoding of `text` ([`Times::Once`]) or of its percent-encoding
    /// ([`Times::Twice`]), copying runs of unreserved bytes whole.
    #[inline]
    fn put_encoded(&mut self, text: &[u8], times: Times) {
        let mut rest = text;
        loop {
            let (run, tail) = rest.split_at(unreserved_prefix(rest));
            self.put(run);
            let Some((&byte, after)) = tail.split_first() else {
                return;
            };
            let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0x0f)]);
            match times {
                Times::Once => self.put(&[b'%', high, low]),
                Times::Twice => self.put(&[b'%', b'2', b'5', high, low]),
            }
            rest = after;
        }
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The length of the run of unreserved bytes `text` starts with.
#[inline]
fn unreserved_prefix(text: &[u8]) -> usize {
    text.iter()
        .position(|&byte| !is_unreserved(byte))
        .unwrap_or(text.len())
}

/// RFC 3986's unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
pub(super) fn is_unreserved(byte: u8) -> bool {
    UNRESERVED[usize::from(byte)]
}

/// [`is_unreserved`] as a table: signing looks up every byte of every parameter.
const UNRESERVED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        byte += 1;
    }
    table
};

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// How many times a text is percent-encoded on its way into the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Times {
    /// `%XX` for each byte outside the unreserved set.
    Once,
    /// The encoding of the encoding: `%25XX` (the `%` of `%XX` is itself encoded).
    Twice,
}

impl Times {
    /// The longest encoding of `len` bytes.
    pub(super) fn max_len(self, len: usize) -> usize {
        match self {
            Times::Once => 3 * len,
            Times::Twice => 5 * len,
        }
    }
}

/// Writes the encoding of `text` to the start of `out`, which must hold
/// [`Times::max_len`] bytes; returns how many it wrote. (For sinks that can make room for the
/// worst case once, rather than check for room at every piece.)
#[inline]
pub(super) fn encode_into(out: &mut [u8], text: &[u8], times: Times) -> usize {
    let mut at = 0;
    let mut rest = text;
    loop {
        let run = unreserved_prefix(rest);
        out[at..at + run].copy_from_slice(&rest[..run]);
        at += run;
        let Some((&byte, after)) = rest[run..].split_first() else {
            return at;
        };
        let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0x0f)]);
        match times {
            Times::Once => {
                out[at..at + 3].copy_from_slice(&[b'%', high, low]);
                at += 3;
            }
            Times::Twice => {
                out[at..at + 5].copy_from_slice(&[b'%', b'2', b'5', high, low]);
                at += 5;
            }
        }
        rest = after;
    }
}

/// Orders two strings as their percent-encodings order, without encoding them.
///
/// An unreserved byte encodes to itself, any other byte to `%` and two upper-case hex digits.
/// That code is prefix-free, so two encodings first differ where the raw strings first differ,
/// and there: an unreserved byte sorts after an escape (`%` is below every unreserved byte),
/// two escapes sort as their bytes (upper-case hex digits sort as their values), and two
/// unreserved bytes sort as themselves. A string that is a prefix of the other sorts first.
pub(super) fn cmp_encoded(a: &[u8], b: &[u8]) -> Ordering {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((&x, &y)) => (is_unreserved(x), x).cmp(&(is_unreserved(y), y)),
        None => a.len().cmp(&b.len()),
    }
}

/// A parameter: its name and value, decoded.
pub(super) type Pair<'a> = (&'a [u8], &'a [u8]);

/// RFC 5849 section 3.4.1.3.2's order of parameters: by encoded name, then encoded value.
pub(super) fn cmp_pair(a: &Pair<'_>, b: &Pair<'_>) -> Ordering {
    cmp_encoded(a.0, b.0).then_with(|| cmp_encoded(a.1, b.1))
}

/// A buffer on the stack that moves to the heap only when it outgrows `N` bytes: for the HMAC
/// key, built afresh on every signature.
pub(super) struct StackBuf<const N: usize> {
    inline: [u8; N],
    len: usize,
    /// Everything written, once it no longer fits inline.
    spilled: Vec<u8>,
}

impl<const N: usize> StackBuf<N> {
    pub(super) fn new() -> Self {
        StackBuf {
            inline: [0; N],
            len: 0,
            spilled: Vec::new(),
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        if self.spilled.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }

    /// The free inline space if `len` more bytes fit in it; else moves everything to the heap.
    fn room(&mut self, len: usize) -> Option<&mut [u8]> {
        if self.spilled.is_empty() {
            if self.len + len <= N {
                return Some(&mut self.inline[self.len..]);
            }
            self.spilled.extend_from_slice(&self.inline[..self.len]);
        }
        None
    }
}

impl<const N: usize> Sink for StackBuf<N> {
    fn put(&mut self, bytes: &[u8]) {
        match self.room(bytes.len()) {
            Some(free) => {
                free[..bytes.len()].copy_from_slice(bytes);
                self.len += bytes.len();
            }
            None => self.spilled.put(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(text: &str, times: Times) -> String {
        let mut out = Vec::new();
        out.put_encoded(text.as_bytes(), times);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn encodes_once_and_twice() {
        assert_eq!(encoded("a b/ü~", Times::Once), "a%20b%2F%C3%BC~");
        assert_eq!(encoded("a b/ü~", Times::Twice), "a%2520b%252F%25C3%25BC~");
        assert_eq!(encoded("%", Times::Twice), "%2525");
        assert_eq!(encoded("", Times::Twice), "");
        assert_eq!(encoded("😀x", Times::Once), "%F0%9F%98%80x");
        // Appends to what is there.
        let mut out = b"<".to_vec();
        out.put_encoded(b"/", Times::Once);
        out.put(b">");
        assert_eq!(out, b"<%2F>");
    }

    #[test]
    fn orders_as_the_encodings_order() {
        // Every pair of bytes (as one-byte strings where they are characters, else inside
        // two-byte characters) and prefixes.
        let mut samples: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
        samples.extend(
            [
                "é", "ü", "日", "😀", "a", "ab", "a b", "a~", "a%", "", "~~", "%41",
            ]
            .map(str::to_owned),
        );
        for a in &samples {
            for b in &samples {
                let by_encoding = encoded(a, Times::Once).cmp(&encoded(b, Times::Once));
                assert_eq!(
                    cmp_encoded(a.as_bytes(), b.as_bytes()),
                    by_encoding,
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn the_stack_buffer_spills_whole() {
        let mut buf = StackBuf::<6>::new();
        buf.put(b"ab");
        buf.put_encoded(b"/g", Times::Once);
        assert_eq!(buf.bytes(), b"ab%2Fg");
        assert!(buf.spilled.is_empty());
        buf.put_encoded(b"h ", Times::Once);
        assert_eq!(buf.bytes(), b"ab%2Fgh%20");
        assert!(!buf.spilled.is_empty());
        buf.put(b"i");
        assert_eq!(buf.bytes(), b"ab%2Fgh%20i");
    }
}
