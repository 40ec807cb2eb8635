//! Whether a body is the text the scrubber reads: UTF-8 (or ASCII) bytes as they came.
//!
//! The scrubber reads bytes; a reader that honours what the answer declares decodes them first.
//! A body in another charset (`charset=utf-16`, a byte order mark) or under a content coding
//! (`Content-Encoding: gzip`, which the client never asks for and never decodes) shows a reader
//! text that no view of its bytes holds: the consumer secret in UTF-16 is its letters with a
//! NUL between each. Such a body cannot be cleaned for certain, so it is withheld whole
//! (`Scrubber::clean_body`), wherever it would be handed on. The test, each part a reading some
//! reader makes:
//!
//! - a `Content-Encoding` other than `identity`;
//! - a `charset` parameter of the `Content-Type` other than UTF-8 or US-ASCII (by any of
//!   their names: a single-byte charset spells a secret's non-ASCII letters differently);
//! - a UTF-16 or UTF-32 byte order mark at the start;
//! - a NUL byte anywhere (UTF-16 or UTF-32 without a mark: JSON readers detect them by their
//!   NULs; no text the service means holds one).

use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, HeaderMap};

/// Why a body is not read, in the order [`illegible`] tests them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Illegible {
    ContentCoding,
    OtherCharset,
    WideByteOrderMark,
    NulByte,
}

impl Illegible {
    /// Every reason, in the order of the variants (the last is [`Illegible::NulByte`]).
    pub(super) const ALL: [Illegible; 4] = [
        Illegible::ContentCoding,
        Illegible::OtherCharset,
        Illegible::WideByteOrderMark,
        Illegible::NulByte,
    ];

    /// The reason as the note of a withheld body says it.
    pub(super) fn reason(self) -> &'static str {
        match self {
            Illegible::ContentCoding => "it is under a content coding",
            Illegible::OtherCharset => "it declares a charset other than UTF-8",
            Illegible::WideByteOrderMark => "it starts with a UTF-16 or UTF-32 byte order mark",
            Illegible::NulByte => "it holds a NUL byte",
        }
    }
}

/// Why `body`, with these headers, is not text the scrubber reads as any reader would (see the
/// module docs); `None` when it is. The first reason found, in [`Illegible`]'s order.
pub(super) fn illegible(body: &[u8], headers: &HeaderMap) -> Option<Illegible> {
    let coded = || {
        headers.get_all(CONTENT_ENCODING).iter().any(|value| {
            value
                .as_bytes()
                .split(|&byte| byte == b',')
                .map(<[u8]>::trim_ascii)
                .any(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case(b"identity"))
        })
    };
    let other_charset = || {
        headers
            .get_all(CONTENT_TYPE)
            .iter()
            .any(|value| declares_other_charset(value.as_bytes()))
    };
    let wide = || {
        [&[0xFF, 0xFE][..], &[0xFE, 0xFF]]
            .iter()
            .any(|mark| body.starts_with(mark))
    };
    let nul = || memchr::memchr(0, body).is_some();
    Illegible::ALL.into_iter().find(|reason| match reason {
        Illegible::ContentCoding => coded(),
        Illegible::OtherCharset => other_charset(),
        Illegible::WideByteOrderMark => wide(),
        Illegible::NulByte => nul(),
    })
}

/// Whether a `Content-Type` value has a `charset` parameter that is not UTF-8 or US-ASCII.
fn declares_other_charset(content_type: &[u8]) -> bool {
    const READ: [&[u8]; 5] = [
        b"utf-8",
        b"utf8",
        b"us-ascii",
        b"ascii",
        b"unicode-1-1-utf-8",
    ];
    content_type
        .split(|&byte| byte == b';')
        .skip(1)
        .any(|parameter| {
            let Some(at) = parameter.iter().position(|&byte| byte == b'=') else {
                return false;
            };
            let (name, value) = (parameter[..at].trim_ascii(), &parameter[at + 1..]);
            let value = value.trim_ascii();
            let value = value
                .strip_prefix(b"\"")
                .and_then(|value| value.strip_suffix(b"\""))
                .unwrap_or(value);
            name.eq_ignore_ascii_case(b"charset")
                && !READ.iter().any(|read| value.eq_ignore_ascii_case(read))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn utf8_and_ascii_bodies_as_they_came_are_legible() {
        for pairs in [
            &[][..],
            &[("content-type", "application/json")],
            &[("content-type", "text/html; charset=UTF-8")],
            &[(
                "content-type",
                "text/plain;charset=\"us-ascii\"; format=flowed",
            )],
            &[("content-encoding", "identity")],
            &[("content-encoding", "")],
        ] {
            assert_eq!(
                illegible(b"{\"a\": \"\xc3\xa9\"}", &headers(pairs)),
                None,
                "{pairs:?}"
            );
        }
        // Invalid UTF-8 is still read as bytes (the scrubber cleans it like any text).
        assert_eq!(illegible(b"caf\xe9", &HeaderMap::new()), None);
        // A UTF-8 byte order mark is UTF-8.
        assert_eq!(illegible(b"\xef\xbb\xbf{}", &HeaderMap::new()), None);
    }

    #[test]
    fn every_reason_is_listed_once_in_the_order_of_the_variants() {
        for (index, reason) in Illegible::ALL.into_iter().enumerate() {
            assert_eq!(reason as usize, index, "{reason:?}");
        }
        assert_eq!(Illegible::ALL.len(), Illegible::NulByte as usize + 1);
    }

    #[test]
    fn other_charsets_content_codings_wide_marks_and_nul_bytes_are_not() {
        let [coding, charset, wide, nul] = Illegible::ALL;
        for (pairs, why) in [
            (
                &[("content-type", "application/json; charset=utf-16")][..],
                charset,
            ),
            (
                &[("content-type", "text/html; Charset=\"ISO-8859-1\"")],
                charset,
            ),
            (
                &[
                    ("content-type", "text/plain"),
                    ("content-type", "text/plain; charset=utf-7"),
                ],
                charset,
            ),
            (&[("content-encoding", "gzip")], coding),
            (&[("content-encoding", "identity, br")], coding),
            (
                &[
                    ("content-encoding", "identity"),
                    ("content-encoding", "deflate"),
                ],
                coding,
            ),
        ] {
            assert_eq!(illegible(b"{}", &headers(pairs)), Some(why), "{pairs:?}");
        }
        for (body, why) in [
            (&b"\xff\xfe{\x00}\x00"[..], wide),
            (b"\xfe\xff\x00{", wide),
            (b"{\x00\"\x00", nul),
            (b"a\x00", nul),
        ] {
            assert_eq!(illegible(body, &HeaderMap::new()), Some(why), "{body:?}");
        }
    }
}
