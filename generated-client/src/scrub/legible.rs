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

/// Whether `body`, with these headers, is text the scrubber reads as any reader would (see
/// the module docs).
pub(super) fn is_legible(body: &[u8], headers: &HeaderMap) -> bool {
    let coded = headers.get_all(CONTENT_ENCODING).iter().any(|value| {
        value
            .as_bytes()
            .split(|&byte| byte == b',')
            .map(<[u8]>::trim_ascii)
            .any(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case(b"identity"))
    });
    let other_charset = headers
        .get_all(CONTENT_TYPE)
        .iter()
        .any(|value| declares_other_charset(value.as_bytes()));
    let wide = [&[0xFF, 0xFE][..], &[0xFE, 0xFF]]
        .iter()
        .any(|mark| body.starts_with(mark));
    !(coded || other_charset || wide || memchr::memchr(0, body).is_some())
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
            assert!(
                is_legible(b"{\"a\": \"\xc3\xa9\"}", &headers(pairs)),
                "{pairs:?}"
            );
        }
        // Invalid UTF-8 is still read as bytes (the scrubber cleans it like any text).
        assert!(is_legible(b"caf\xe9", &HeaderMap::new()));
        // A UTF-8 byte order mark is UTF-8.
        assert!(is_legible(b"\xef\xbb\xbf{}", &HeaderMap::new()));
    }

    #[test]
    fn other_charsets_content_codings_wide_marks_and_nul_bytes_are_not() {
        for pairs in [
            &[("content-type", "application/json; charset=utf-16")][..],
            &[("content-type", "text/html; Charset=\"ISO-8859-1\"")],
            &[
                ("content-type", "text/plain"),
                ("content-type", "text/plain; charset=utf-7"),
            ],
            &[("content-encoding", "gzip")],
            &[("content-encoding", "identity, br")],
            &[
                ("content-encoding", "identity"),
                ("content-encoding", "deflate"),
            ],
        ] {
            assert!(!is_legible(b"{}", &headers(pairs)), "{pairs:?}");
        }
        for body in [
            &b"\xff\xfe{\x00}\x00"[..],
            b"\xfe\xff\x00{",
            b"{\x00\"\x00",
            b"a\x00",
        ] {
            assert!(!is_legible(body, &HeaderMap::new()), "{body:?}");
        }
    }
}
