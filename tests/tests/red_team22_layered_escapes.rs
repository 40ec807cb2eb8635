//! Red team 22 (black box): a known secret never survives the scrubber, whatever bytes it holds
//! and however the text around it is escaped, within what SECURITY.md promises.
//!
//! Siblings of a fixed defect (a secret that itself holds what reads as an escape, `%29`, `\b`,
//! `&lt;`, inside a text escaped twice): generated secrets of 8 to 40 bytes mixing letters and
//! digits with escape look-alikes (`%`, `%2`, `%25`, `%2F`, `\`, `\u00`, `\x`, `&`, `&amp;`,
//! `&#x`, `;`, `+`, `"`, `/`, non-ASCII letters, combining marks), spelled as a reader takes
//! them (a normalization form, ASCII case changed, hexadecimal, base64), then wrapped in zero to
//! three generated layers, each one documented escape scheme applied to the whole text built
//! so far (JSON strings, percent-encoding, form encoding, HTML references, `\xHH`, `\u{H}`),
//! with text of that layer's syntax around it. The property: decoding the cleaned text by the
//! same layers, view after view, never shows the secret (in any normalization form, ASCII case
//! ignored), or the text is withheld. And a text holding only a near miss of the secret comes
//! back unchanged. Through `marketplace_client::redact` and through one real channel (an
//! error's texts and a response hook's body, from a loopback stub).
//!
//! Written against the scrubber as it was, 9 cases, 8 failed: F1, an HTML reference whose
//! digit an outer layer escaped (`&#9\u0032;x61` under JSON), read cut short, left the secret
//! in every view (`redact`, an `Error`'s Display from a real call); F2, a secret whose own
//! escapes decode to under 8 bytes (`00&#65;\a`), never looked for in that reading; F3, a
//! secret's `\u` echoed as `\U` under two layers; F4, a near miss of a secret ending in `%25`
//! partly removed. F1 and F2 are fixed (`scrub/views.rs`, `scrub/spellings.rs`). The general
//! properties then found a deeper class, escapes an outer layer escaped in part, at different
//! depths (a secret holding escapes of its own is the commonest); it, F3 and F4 are
//! SECURITY.md's "Open findings", their cases ignored with that reason (`-- --ignored` runs
//! them). The layers' per-character choices come from proptest's generator, seeded.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ConsumerCredentials, Error, RetryPolicy, Secret, redact};
use marketplace_tests::stub::{Reply, StubServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

// ---------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------

/// Pieces that read as (the start of) an escape in one scheme or another, and characters whose
/// normalization forms differ.
const LOOKALIKES: &[&str] = &[
    "%", "%2", "%25", "%2F", "%2f", "%29", "%41", "%u", "\\", "\\u00", "\\u0041", "\\x", "\\x4",
    "\\x41", "\\b", "\\/", "\\\"", "&", "&amp;", "&lt;", "&#x", "&#", "&#65;", "&#x2F", ";", "+",
    "\"", "/", "'", "=", "é", "ü", "ñ", "ç", "e\u{301}", "n\u{303}", "x\u{301}", "u\u{308}",
];

/// Secret-named words: a secret holding one would be removed by structure, which is not what
/// is attacked here.
const SECRET_WORDS: &[&str] = &["secret", "passw", "private", "signature", "verifier"];

fn secret_strategy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z0-9]{1,4}",
        4 => prop::sample::select(LOOKALIKES).prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 2..10)
        .prop_map(|pieces| pieces.concat())
        .prop_filter("8 to 40 bytes, no secret word", |secret| {
            let lower = secret.to_ascii_lowercase();
            (8..=40).contains(&secret.len())
                && !SECRET_WORDS.iter().any(|word| lower.contains(word))
        })
}

// ---------------------------------------------------------------------------------------------
// Spellings a reader takes for the secret (SECURITY.md, "Output channels": "known secrets in
// every spelling a reader takes for them (`spellings.rs`: each Unicode normalization form, ASCII
// case ignored, their bytes in hexadecimal and in base64 of either alphabet, padded or not ...),
// with each character plain or escaped, mixed").
// ---------------------------------------------------------------------------------------------

/// Canonical decompositions of the precomposed letters the generator uses.
const DECOMPOSED: &[(char, &str)] = &[
    ('é', "e\u{301}"),
    ('ü', "u\u{308}"),
    ('ñ', "n\u{303}"),
    ('ç', "c\u{327}"),
];

fn nfd(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match DECOMPOSED.iter().find(|(composed, _)| *composed == c) {
            Some((_, decomposed)) => out.push_str(decomposed),
            None => out.push(c),
        }
    }
    out
}

fn nfc(text: &str) -> String {
    let mut out = nfd(text);
    for (composed, decomposed) in DECOMPOSED {
        out = out.replace(decomposed, &composed.to_string());
    }
    out
}

/// What a reader compares: the canonical decomposition, ASCII case ignored.
fn key(text: &str) -> String {
    nfd(text).to_ascii_lowercase()
}

#[derive(Clone, Debug)]
enum Spelling {
    AsIs,
    Nfc,
    Nfd,
    /// Each ASCII letter's case flipped when the seed's bit says so.
    CaseFlipped(u64),
    Hex {
        upper: bool,
    },
    /// Base64 of the bytes: alphabet (standard or URL) and padding.
    Base64 {
        url: bool,
        padded: bool,
    },
}

fn spelling_strategy() -> impl Strategy<Value = Spelling> {
    prop_oneof![
        4 => Just(Spelling::AsIs),
        1 => Just(Spelling::Nfc),
        1 => Just(Spelling::Nfd),
        2 => any::<u64>().prop_map(Spelling::CaseFlipped),
        1 => any::<bool>().prop_map(|upper| Spelling::Hex { upper }),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(url, padded)| Spelling::Base64 { url, padded }),
    ]
}

fn spell(secret: &str, spelling: &Spelling) -> String {
    match spelling {
        Spelling::AsIs => secret.to_owned(),
        Spelling::Nfc => nfc(secret),
        Spelling::Nfd => nfd(secret),
        Spelling::CaseFlipped(seed) => secret
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if (seed >> (i % 64)) & 1 == 1 {
                    if c.is_ascii_lowercase() {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                } else {
                    c
                }
            })
            .collect(),
        Spelling::Hex { upper } => secret
            .bytes()
            .map(|b| {
                if *upper {
                    format!("{b:02X}")
                } else {
                    format!("{b:02x}")
                }
            })
            .collect(),
        Spelling::Base64 { url, padded } => match (url, padded) {
            (false, true) => STANDARD.encode(secret),
            (false, false) => STANDARD_NO_PAD.encode(secret),
            (true, true) => URL_SAFE.encode(secret),
            (true, false) => URL_SAFE_NO_PAD.encode(secret),
        },
    }
}

/// Where a view shows the secret, in the spelling placed or any reading of it: `None` when it
/// does not.
fn leak_in(view: &str, secret: &str, spelling: &Spelling) -> Option<String> {
    if key(view).contains(&key(secret)) {
        return Some(format!("the secret {secret:?}"));
    }
    match spelling {
        Spelling::Hex { .. } => {
            let hex = spell(secret, &Spelling::Hex { upper: false });
            view.to_ascii_lowercase()
                .contains(&hex)
                .then(|| format!("its hexadecimal {hex}"))
        }
        Spelling::Base64 { .. } => {
            let written = spell(secret, spelling);
            let unpadded = written.trim_end_matches('=');
            view.contains(unpadded)
                .then(|| format!("its base64 {unpadded}"))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Layers: one documented escape scheme over the whole text built so far (SECURITY.md, "Output
// channels": "views with one, two and three layers of escapes decoded (`views.rs`: percent;
// JSON's, `\/` and surrogate pairs included; the `\xHH` and `\u{H…}` of the languages whose
// errors services print; HTML's numeric references in any case, with leading zeros or without
// `;`, and every named one of WHATWG's table)").
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// A JSON string's escapes: `\"`, `\\`, optional `\/`, optional `\uXXXX` of any character
    /// (surrogate pairs beyond the basic plane).
    Json,
    /// Percent-encoding of some or all bytes (`%` always).
    Percent,
    /// Form encoding: `+` for a space, `%2B` for a plus, percent for the rest.
    Form,
    /// HTML references: numeric (decimal or hexadecimal, any case, leading zeros, `;` left out
    /// where the next character ends the number) or named (WHATWG's table).
    Html,
    /// `\xHH` of ASCII characters, `\\` and `\"` (Python's, PHP's, JavaScript's strings).
    Hex,
    /// `\u{H…}`, `\\` and `\"` (Rust's `Debug`).
    Braced,
    /// Each character plain or escaped by any of the above, mixed (`%`, `\` and `&` always
    /// escaped, so that one reading decodes it exactly): `redact`'s "written as it is or in any
    /// mix of percent, JSON, language and HTML escapes".
    Mixed,
}

const SCHEMES: [Scheme; 7] = [
    Scheme::Json,
    Scheme::Percent,
    Scheme::Form,
    Scheme::Html,
    Scheme::Hex,
    Scheme::Braced,
    Scheme::Mixed,
];

/// The text of a layer's own syntax around what it escapes: nothing in it starts an escape of
/// that layer, so decoding the layer leaves it as it is.
fn surroundings(scheme: Scheme) -> (&'static [&'static str], &'static [&'static str]) {
    match scheme {
        Scheme::Json => (
            &[
                "{\"error\":\"",
                "{\"errors\":[{\"message\":\"",
                "\"",
                "{\"detail\": \"bad input: ",
                "[\"",
            ],
            &[
                "\"}",
                "\"}]}",
                "\"",
                " was refused\", \"code\": 400}",
                "\"]",
            ],
        ),
        Scheme::Percent => (
            &[
                "/api/cb?q=",
                "state=",
                "a=1&b=",
                "https://example.test/cb?x=",
                "",
            ],
            &["", "&page=2", "&z=9#top", "/end"],
        ),
        Scheme::Form => (
            &["error_description=", "q=", "code=E_X&text="],
            &["", "&code=E_BAD", "&n=1"],
        ),
        Scheme::Html => (
            &["<p>", "<a title=\"", "<pre>error: ", "<td>"],
            &["</p>", "\">here</a>", "</pre>", "</td></tr>"],
        ),
        Scheme::Hex => (
            &["ValueError('", "b'", "KeyError(\"", "bad value: '"],
            &["')", "'", "\")", "' refused"],
        ),
        Scheme::Braced => (
            &["Err(Parse(\"", "thread 'main' panicked: \"", "value: \""],
            &["\"))", "\"", "\" at src/main.rs:3:5"],
        ),
        Scheme::Mixed => (&["msg: ", "", "log line: "], &["", " (end)", " ."]),
    }
}

#[derive(Clone, Debug)]
struct Layer {
    scheme: Scheme,
    /// 0: only what must be escaped; 1: about a third of the rest; 2: everything.
    density: u8,
    /// 0: upper-case hexadecimal; 1: lower-case; 2: mixed.
    case: u8,
    prefix: usize,
    suffix: usize,
    seed: u64,
}

fn layer_strategy() -> impl Strategy<Value = Layer> {
    (
        prop::sample::select(SCHEMES.to_vec()),
        0u8..3,
        0u8..3,
        0usize..8,
        0usize..8,
        any::<u64>(),
    )
        .prop_map(|(scheme, density, case, prefix, suffix, seed)| Layer {
            scheme,
            density,
            case,
            prefix,
            suffix,
            seed,
        })
}

/// The per-character choices of a layer, from its seed: proptest's own generator, seeded.
struct Rng(TestRng);

impl Rng {
    fn new(seed: u64) -> Rng {
        // XorShift takes 16 bytes, not all zero.
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..].copy_from_slice(&(!seed).to_le_bytes());
        Rng(TestRng::from_seed(RngAlgorithm::XorShift, &bytes))
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }

    fn chance(&mut self, density: u8) -> bool {
        match density {
            0 => false,
            1 => self.below(3) == 0,
            _ => true,
        }
    }
}

fn hex_digits(value: u32, width: usize, case: u8, rng: &mut Rng) -> String {
    let lower = format!("{value:0width$x}");
    lower
        .chars()
        .map(|c| {
            let upper = match case {
                0 => true,
                1 => false,
                _ => rng.below(2) == 0,
            };
            if upper { c.to_ascii_uppercase() } else { c }
        })
        .collect()
}

/// HTML named references of WHATWG's table, for the characters the generator writes.
const NAMED: &[(char, &str)] = &[
    ('&', "amp"),
    ('&', "AMP"),
    ('<', "lt"),
    ('<', "LT"),
    ('>', "gt"),
    ('"', "quot"),
    ('"', "QUOT"),
    ('\'', "apos"),
    ('%', "percnt"),
    ('/', "sol"),
    ('\\', "bsol"),
    ('#', "num"),
    ('!', "excl"),
    ('(', "lpar"),
    (')', "rpar"),
    (';', "semi"),
    ('=', "equals"),
    ('+', "plus"),
    (',', "comma"),
    ('.', "period"),
    (':', "colon"),
    ('_', "lowbar"),
    ('_', "UnderBar"),
    ('^', "Hat"),
    ('{', "lbrace"),
    ('{', "lcub"),
    ('}', "rbrace"),
    ('}', "rcub"),
    ('|', "verbar"),
    ('|', "vert"),
    ('$', "dollar"),
    ('*', "ast"),
    ('*', "midast"),
    ('?', "quest"),
    ('@', "commat"),
    ('[', "lsqb"),
    ('[', "lbrack"),
    (']', "rsqb"),
    (']', "rbrack"),
    ('é', "eacute"),
    ('ü', "uuml"),
    ('ñ', "ntilde"),
    ('ç', "ccedil"),
];

fn escape(text: &str, layer: &Layer, rng: &mut Rng, utf8_bytes_as_hex: bool) -> String {
    let density = layer.density;
    let case = layer.case;
    let mut out = String::new();
    match layer.scheme {
        Scheme::Json => {
            for c in text.chars() {
                let unicode = |c: char, rng: &mut Rng| {
                    let mut units = [0u16; 2];
                    c.encode_utf16(&mut units)
                        .iter()
                        .map(|unit| format!("\\u{}", hex_digits(u32::from(*unit), 4, case, rng)))
                        .collect::<String>()
                };
                match c {
                    '"' | '\\' if rng.chance(density) => out.push_str(&unicode(c, rng)),
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '/' => match rng.below(3) {
                        0 => out.push_str("\\/"),
                        1 if density > 0 => out.push_str(&unicode(c, rng)),
                        _ => out.push('/'),
                    },
                    c if u32::from(c) < 0x20 => out.push_str(&unicode(c, rng)),
                    c if rng.chance(density) => out.push_str(&unicode(c, rng)),
                    c => out.push(c),
                }
            }
        }
        Scheme::Percent | Scheme::Form => {
            let form = layer.scheme == Scheme::Form;
            for c in text.chars() {
                if form && c == ' ' {
                    out.push('+');
                    continue;
                }
                let must = c == '%' || (form && c == '+');
                if must || rng.chance(density) {
                    let mut buffer = [0u8; 4];
                    for byte in c.encode_utf8(&mut buffer).bytes() {
                        out.push('%');
                        out.push_str(&hex_digits(u32::from(byte), 2, case, rng));
                    }
                } else {
                    out.push(c);
                }
            }
        }
        Scheme::Html => {
            // (text, number that a following digit would extend: `None`, `Some(hex?)`).
            let mut units: Vec<(String, Option<bool>)> = Vec::new();
            for c in text.chars() {
                if c == '&' || rng.chance(density) {
                    let names: Vec<&str> = NAMED
                        .iter()
                        .filter(|(named, _)| *named == c)
                        .map(|(_, name)| *name)
                        .collect();
                    let zeros = "0".repeat(usize::try_from(rng.below(4)).unwrap_or(0));
                    match rng.below(3) {
                        0 if !names.is_empty() => {
                            let pick = usize::try_from(rng.below(names.len() as u64)).unwrap_or(0);
                            units.push((format!("&{};", names[pick]), None));
                        }
                        1 => units.push((format!("&#{zeros}{}", u32::from(c)), Some(false))),
                        _ => {
                            let x = if rng.below(2) == 0 { 'x' } else { 'X' };
                            let digits = hex_digits(u32::from(c), 1, case, rng);
                            units.push((format!("&#{x}{zeros}{digits}"), Some(true)));
                        }
                    }
                } else {
                    units.push((c.to_string(), None));
                }
            }
            for i in 0..units.len() {
                let (unit, number) = &units[i];
                out.push_str(unit);
                if let Some(hex) = number {
                    let next = units.get(i + 1).and_then(|(next, _)| next.chars().next());
                    let extends = next.is_some_and(|n| {
                        n == ';'
                            || if *hex {
                                n.is_ascii_hexdigit()
                            } else {
                                n.is_ascii_digit()
                            }
                    });
                    if extends || rng.below(2) == 0 {
                        out.push(';');
                    }
                }
            }
        }
        Scheme::Hex => {
            for c in text.chars() {
                let byte_escape = |byte: u8, rng: &mut Rng| {
                    format!("\\x{}", hex_digits(u32::from(byte), 2, case, rng))
                };
                match c {
                    '\\' | '"' if rng.chance(density) => {
                        out.push_str(&byte_escape(c as u8, rng));
                    }
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    c if c.is_ascii() && rng.chance(density) => {
                        out.push_str(&byte_escape(c as u8, rng));
                    }
                    c if !c.is_ascii() && utf8_bytes_as_hex && rng.chance(density.max(1)) => {
                        let mut buffer = [0u8; 4];
                        for byte in c.encode_utf8(&mut buffer).bytes() {
                            out.push_str(&byte_escape(byte, rng));
                        }
                    }
                    c => out.push(c),
                }
            }
        }
        Scheme::Braced => {
            for c in text.chars() {
                let braced = |c: char, rng: &mut Rng| {
                    let zeros = "0".repeat(usize::try_from(rng.below(3)).unwrap_or(0));
                    format!("\\u{{{zeros}{}}}", hex_digits(u32::from(c), 1, case, rng))
                };
                match c {
                    c if rng.chance(density) => out.push_str(&braced(c, rng)),
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    c => out.push(c),
                }
            }
        }
        Scheme::Mixed => {
            for c in text.chars() {
                let must = matches!(c, '%' | '\\' | '&');
                if !(must || rng.chance(density)) {
                    out.push(c);
                    continue;
                }
                let named = NAMED.iter().find(|(named, _)| *named == c);
                match rng.below(7) {
                    0 => {
                        let mut buffer = [0u8; 4];
                        for byte in c.encode_utf8(&mut buffer).bytes() {
                            out.push('%');
                            out.push_str(&hex_digits(u32::from(byte), 2, case, rng));
                        }
                    }
                    1 => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units).iter() {
                            out.push_str("\\u");
                            out.push_str(&hex_digits(u32::from(*unit), 4, case, rng));
                        }
                    }
                    2 if c.is_ascii() => {
                        out.push_str("\\x");
                        out.push_str(&hex_digits(u32::from(c), 2, case, rng));
                    }
                    3 => {
                        out.push_str("\\u{");
                        out.push_str(&hex_digits(u32::from(c), 1, case, rng));
                        out.push('}');
                    }
                    4 => out.push_str(&format!("&#{};", u32::from(c))),
                    5 if named.is_some() => {
                        out.push_str(&format!("&{};", named.map_or("amp", |(_, name)| *name)));
                    }
                    6 if c == '\\' || c == '"' || c == '/' => {
                        out.push('\\');
                        out.push(c);
                    }
                    _ => {
                        out.push_str("&#x");
                        out.push_str(&hex_digits(u32::from(c), 1, case, rng));
                        out.push(';');
                    }
                }
            }
        }
    }
    out
}

/// The text a layer wraps: its syntax around the escaped text.
fn wrap(inner: &str, layer: &Layer, utf8_bytes_as_hex: bool) -> String {
    let mut rng = Rng::new(layer.seed);
    let (prefixes, suffixes) = surroundings(layer.scheme);
    format!(
        "{}{}{}",
        prefixes[layer.prefix % prefixes.len()],
        escape(inner, layer, &mut rng, utf8_bytes_as_hex),
        suffixes[layer.suffix % suffixes.len()]
    )
}

// Lenient decoders: an escape that does not read is left as it is (the cleaned text may have
// `[redacted]` where an escape was).

fn hex_value(digits: &[char]) -> Option<u32> {
    let text: String = digits.iter().collect();
    u32::from_str_radix(&text, 16).ok()
}

fn decode_json(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let unit_at = |i: usize| -> Option<u32> {
        (chars.get(i) == Some(&'\\') && chars.get(i + 1) == Some(&'u') && i + 6 <= chars.len())
            .then(|| hex_value(&chars[i + 2..i + 6]))
            .flatten()
            .filter(|_| chars[i + 2..i + 6].iter().all(char::is_ascii_hexdigit))
    };
    while i < chars.len() {
        if chars[i] == '\\' {
            let simple = match chars.get(i + 1) {
                Some('"') => Some('"'),
                Some('\\') => Some('\\'),
                Some('/') => Some('/'),
                Some('b') => Some('\u{8}'),
                Some('f') => Some('\u{c}'),
                Some('n') => Some('\n'),
                Some('r') => Some('\r'),
                Some('t') => Some('\t'),
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                i += 2;
                continue;
            }
            if let Some(unit) = unit_at(i) {
                if (0xD800..0xDC00).contains(&unit)
                    && let Some(low) = unit_at(i + 6)
                    && (0xDC00..0xE000).contains(&low)
                {
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    if let Some(c) = char::from_u32(code) {
                        out.push(c);
                        i += 12;
                        continue;
                    }
                }
                if let Some(c) = char::from_u32(unit) {
                    out.push(c);
                    i += 6;
                    continue;
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn decode_percent(text: &str, form: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let digits = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(digits, 16).unwrap_or(0));
                i += 3;
            }
            b'+' if form => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode_html(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    'outer: while i < chars.len() {
        if chars[i] == '&' {
            if chars.get(i + 1) == Some(&'#') {
                let hex = matches!(chars.get(i + 2), Some('x' | 'X'));
                let start = if hex { i + 3 } else { i + 2 };
                let mut end = start;
                while end < chars.len()
                    && (if hex {
                        chars[end].is_ascii_hexdigit()
                    } else {
                        chars[end].is_ascii_digit()
                    })
                {
                    end += 1;
                }
                if end > start {
                    let digits: String = chars[start..end].iter().collect();
                    let value = u32::from_str_radix(&digits, if hex { 16 } else { 10 }).ok();
                    if let Some(c) = value.and_then(char::from_u32) {
                        out.push(c);
                        i = if chars.get(end) == Some(&';') {
                            end + 1
                        } else {
                            end
                        };
                        continue;
                    }
                }
            } else {
                for (c, name) in NAMED {
                    let reference: Vec<char> = format!("{name};").chars().collect();
                    if chars[i + 1..].starts_with(&reference) {
                        out.push(*c);
                        i += 1 + reference.len();
                        continue 'outer;
                    }
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn decode_hex(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            match bytes.get(i + 1) {
                Some(b'\\' | b'"' | b'\'') => {
                    out.push(bytes[i + 1]);
                    i += 2;
                    continue;
                }
                Some(b'x')
                    if i + 3 < bytes.len()
                        && bytes[i + 2].is_ascii_hexdigit()
                        && bytes[i + 3].is_ascii_hexdigit() =>
                {
                    let digits = std::str::from_utf8(&bytes[i + 2..i + 4]).unwrap_or("00");
                    out.push(u8::from_str_radix(digits, 16).unwrap_or(0));
                    i += 4;
                    continue;
                }
                _ => {}
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode_braced(text: &str, controls: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' {
            match chars.get(i + 1) {
                Some('\\' | '"' | '\'') => {
                    out.push(chars[i + 1]);
                    i += 2;
                    continue;
                }
                Some(c @ ('n' | 'r' | 't' | '0')) if controls => {
                    out.push(match c {
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        _ => '\0',
                    });
                    i += 2;
                    continue;
                }
                Some('u') if chars.get(i + 2) == Some(&'{') => {
                    let start = i + 3;
                    let mut end = start;
                    while end < chars.len() && chars[end].is_ascii_hexdigit() && end - start < 8 {
                        end += 1;
                    }
                    if end > start
                        && chars.get(end) == Some(&'}')
                        && let Some(c) = hex_value(&chars[start..end]).and_then(char::from_u32)
                    {
                        out.push(c);
                        i = end + 1;
                        continue;
                    }
                }
                _ => {}
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Rust's `Debug` of a string, undone (what an `Error`'s `Debug` adds over the body it quotes).
fn decode_rust_debug(text: &str) -> String {
    decode_braced(text, true)
}

/// One reading of every escape of every scheme at once (the mixed layer).
fn decode_mixed(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<u8> = Vec::new();
    let push = |out: &mut Vec<u8>, c: char| {
        let mut buffer = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
    };
    let hex_run = |from: usize, len: usize| -> Option<u32> {
        let digits = chars.get(from..from + len)?;
        digits
            .iter()
            .all(char::is_ascii_hexdigit)
            .then(|| hex_value(digits))
            .flatten()
    };
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '%' => {
                if let Some(byte) = hex_run(i + 1, 2) {
                    out.push(u8::try_from(byte).unwrap_or(0));
                    i += 3;
                    continue;
                }
            }
            '\\' => match chars.get(i + 1) {
                Some(c @ ('\\' | '"' | '/' | '\'')) => {
                    push(&mut out, *c);
                    i += 2;
                    continue;
                }
                Some('x') => {
                    if let Some(byte) = hex_run(i + 2, 2) {
                        out.push(u8::try_from(byte).unwrap_or(0));
                        i += 4;
                        continue;
                    }
                }
                Some('u') if chars.get(i + 2) == Some(&'{') => {
                    let close = (i + 4..chars.len().min(i + 11)).find(|&at| chars[at] == '}');
                    if let Some(close) = close
                        && let Some(c) = hex_run(i + 3, close - i - 3).and_then(char::from_u32)
                    {
                        push(&mut out, c);
                        i = close + 1;
                        continue;
                    }
                }
                Some('u') => {
                    if let Some(unit) = hex_run(i + 2, 4) {
                        let low = (chars.get(i + 6) == Some(&'\\')
                            && chars.get(i + 7) == Some(&'u'))
                        .then(|| hex_run(i + 8, 4))
                        .flatten()
                        .filter(|low| (0xDC00..0xE000).contains(low));
                        if (0xD800..0xDC00).contains(&unit)
                            && let Some(low) = low
                            && let Some(c) =
                                char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        {
                            push(&mut out, c);
                            i += 12;
                            continue;
                        }
                        if let Some(c) = char::from_u32(unit) {
                            push(&mut out, c);
                            i += 6;
                            continue;
                        }
                    }
                }
                _ => {}
            },
            '&' => {
                let rest: String = chars[i..].iter().take(16).collect();
                if let Some(end) = rest.find(';') {
                    let decoded = decode_html(&rest[..=end]);
                    let mut decoded_chars = decoded.chars();
                    if let (Some(c), None) = (decoded_chars.next(), decoded_chars.next()) {
                        push(&mut out, c);
                        i += rest[..=end].chars().count();
                        continue;
                    }
                }
            }
            _ => {}
        }
        push(&mut out, chars[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode(text: &str, scheme: Scheme) -> String {
    match scheme {
        Scheme::Json => decode_json(text),
        Scheme::Percent => decode_percent(text, false),
        Scheme::Form => decode_percent(text, true),
        Scheme::Html => decode_html(text),
        Scheme::Hex => decode_hex(text),
        Scheme::Braced => decode_braced(text, false),
        Scheme::Mixed => decode_mixed(text),
    }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Case {
    secret: String,
    spelling: Spelling,
    layers: Vec<Layer>,
}

impl Case {
    /// The text a service prints: the spelled value, then each layer over the whole so far,
    /// then plain words around it.
    fn text_with(&self, value: &str, utf8_bytes_as_hex: bool) -> String {
        let mut text = spell(value, &self.spelling);
        if self.layers.is_empty() {
            text = format!("error: {text} (refused)");
        }
        for layer in &self.layers {
            text = wrap(&text, layer, utf8_bytes_as_hex);
        }
        text
    }

    /// The views a reader gets by decoding the layers from the outside in: the text itself
    /// first.
    fn views(&self, text: &str) -> Vec<String> {
        let mut views = vec![text.to_owned()];
        for layer in self.layers.iter().rev() {
            let next = decode(views.last().map_or("", String::as_str), layer.scheme);
            views.push(next);
        }
        views
    }

    fn schemes(&self) -> Vec<Scheme> {
        self.layers.iter().map(|layer| layer.scheme).collect()
    }
}

fn case_strategy(layers: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Case> {
    (
        secret_strategy(),
        spelling_strategy(),
        prop::collection::vec(layer_strategy(), layers),
    )
        .prop_map(|(secret, spelling, layers)| Case {
            secret,
            spelling,
            layers,
        })
}

const WITHHELD: &str = "[withheld";

/// The property on one cleaned text: withheld whole, or no view of it by the case's layers
/// shows the secret.
fn check_cleaned(
    case: &Case,
    text: &str,
    cleaned: &str,
    channel: &str,
) -> Result<(), TestCaseError> {
    if cleaned.starts_with(WITHHELD) {
        return Ok(());
    }
    let shown = if channel.contains("Debug") {
        decode_rust_debug(cleaned)
    } else {
        cleaned.to_owned()
    };
    for (depth, view) in case.views(&shown).iter().enumerate() {
        if let Some(what) = leak_in(view, &case.secret, &case.spelling) {
            return Err(TestCaseError::fail(format!(
                "{channel}: {what} survives in the view with {depth} layer(s) decoded \
                 (layers {:?}, spelling {:?}).\n  secret:  {:?}\n  text:    {text:?}\n  \
                 cleaned: {cleaned:?}\n  view:    {view:?}",
                case.schemes(),
                case.spelling,
                case.secret,
            )));
        }
    }
    Ok(())
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        // Reproducible runs: the cases of this file are the same on every run.
        rng_seed: proptest::test_runner::RngSeed::Fixed(22),
        failure_persistence: None,
        max_global_rejects: 100_000,
        ..Config::default()
    }
}

fn run_redact_property(cases: u32, layers: std::ops::RangeInclusive<usize>, bytes_as_hex: bool) {
    let mut runner = TestRunner::new(config(cases));
    runner
        .run(&case_strategy(layers), |case| {
            let text = case.text_with(&case.secret, bytes_as_hex);
            // The generator's own check: the uncleaned text shows the secret where it was put.
            let views = case.views(&text);
            prop_assert!(
                leak_in(views.last().unwrap(), &case.secret, &case.spelling).is_some(),
                "the generator lost the secret: {:?}",
                views
            );
            let secret = Secret::new(case.secret.clone());
            let cleaned = redact(&text, &[&secret]);
            check_cleaned(&case, &text, &cleaned, "redact")
        })
        .unwrap();
}

// SECURITY.md, "Output channels": "views with one, two and three layers of escapes decoded
// (... percent; JSON's, `\/` and surrogate pairs included; the `\xHH` and `\u{H…}` of the
// languages whose errors services print; HTML's numeric references in any case, with leading
// zeros or without `;`, and every named one of WHATWG's table) ... known secrets in every
// spelling a reader takes for them (... each Unicode normalization form, ASCII case ignored,
// their bytes in hexadecimal and in base64 ...), with each character plain or escaped, mixed".
// `redact`'s rustdoc: "every one of `secrets` (in any Unicode normalization form ..., in
// hexadecimal or base64, ..., written as it is or in any mix of percent, JSON, language and
// HTML escapes ...) replaced by `[redacted]`; a text that cannot be cleaned for certain is
// withheld whole."
#[test]
#[ignore = "open: escapes an outer layer escaped in part, at different depths (SECURITY.md, Open findings); run with --ignored"]
fn a_secret_of_escape_lookalikes_under_zero_to_three_layers_never_survives_redact() {
    run_redact_property(320, 0..=3, false);
}

// Same promise, every case at the deepest documented nesting: three layers.
#[test]
#[ignore = "open: escapes an outer layer escaped in part, at different depths (SECURITY.md, Open findings); run with --ignored"]
fn a_secret_under_exactly_three_layers_never_survives_redact() {
    run_redact_property(160, 3..=3, false);
}

// Same promise; the `\xHH` layer also writes a non-ASCII character as its UTF-8 bytes
// (`\xc3\xa9`), as Python's `bytes` repr, PHP and Ruby print them: "the `\xHH` ... of the
// languages whose errors services print".
#[test]
fn a_secret_under_layers_with_utf8_bytes_as_x_escapes_never_survives_redact() {
    run_redact_property(96, 1..=2, true);
}

/// The secret with one letter or digit changed to another one (never its other case): a near
/// miss, `None` when the secret has no letter or digit.
fn near_miss(secret: &str, pick: usize) -> Option<String> {
    let positions: Vec<usize> = secret
        .char_indices()
        .filter(|(_, c)| c.is_ascii_alphanumeric())
        .map(|(i, _)| i)
        .collect();
    let at = *positions.get(pick % positions.len().max(1))?;
    let c = secret[at..].chars().next()?;
    let other = match c {
        '0'..='8' => char::from(c as u8 + 1),
        '9' => '0',
        'a'..='y' | 'A'..='Y' => char::from(c as u8 + 1),
        'z' => 'a',
        'Z' => 'A',
        _ => return None,
    };
    let mut miss = secret.to_owned();
    miss.replace_range(at..at + 1, &other.to_string());
    Some(miss)
}

// SECURITY.md, "Output channels": the scrubber replaces known secrets and secret-named values
// ("then every span replaced, the result read again, and the whole text withheld if anything
// is left"); `redact`'s rustdoc: "`text` cleaned ...: the value of every secret-named name ...
// and every one of `secrets` ... replaced by `[redacted]`". A text holding neither, in no
// reading (a near miss of the secret, under the same layers, no secret word anywhere), has
// nothing to replace and nothing left: it comes back as it was.
#[test]
fn a_near_miss_of_the_secret_under_the_same_layers_is_returned_unchanged() {
    let mut runner = TestRunner::new(config(160));
    runner
        .run(&(case_strategy(0..=3), any::<usize>()), |(case, pick)| {
            let Some(miss) = near_miss(&case.secret, pick) else {
                return Ok(());
            };
            // Base64 "inside a longer base64 text" (SECURITY.md): the last character of a
            // secret's base64 also carries bits of what follows, so a near miss in one of the
            // last three bytes can share every character a reader can compare. Not a near miss
            // there.
            if let Spelling::Base64 { .. } = case.spelling {
                let differs = miss
                    .bytes()
                    .zip(case.secret.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                prop_assume!(differs + 3 < case.secret.len());
            }
            let text = case.text_with(&miss, false);
            // The generator's own check: no view of the text shows the secret.
            for view in case.views(&text) {
                prop_assume!(leak_in(&view, &case.secret, &case.spelling).is_none());
            }
            let secret = Secret::new(case.secret.clone());
            let cleaned = redact(&text, &[&secret]);
            prop_assert_eq!(
                cleaned.as_ref(),
                text.as_str(),
                "benign text changed (near miss {:?} of the secret {:?}, layers {:?}, spelling {:?})",
                miss,
                case.secret,
                case.schemes(),
                case.spelling
            );
            Ok(())
        })
        .unwrap();
}

// The same property through real channels. SECURITY.md, "Output channels", table: `Error`
// (`Display`, `Debug`, every `source()`): "no secret, in any variant or field"; response hooks
// (`ReceivedResponse`: body ...): "no secret in any answer's body or header"; "One scrubber
// (`generated-client/src/scrub/`) serves every channel". The consumer secret is "a known
// secret of every call" (the credentials table).
#[test]
fn a_layered_echo_of_the_consumer_secret_leaves_through_no_error_text_nor_hook_body() {
    let runtime = marketplace_tests::runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let mut runner = TestRunner::new(config(32));
    runner
        .run(&case_strategy(0..=3), |case| {
            let text = case.text_with(&case.secret, false);
            let bodies: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
            let seen = Arc::clone(&bodies);
            let client = Client::builder(
                stub.base_url(),
                ConsumerCredentials::new("app-key", case.secret.as_str()),
            )
            .allow_plain_http_oauth_on_loopback()
            .retry(RetryPolicy::none())
            .deadline(Duration::from_secs(10))
            .on_response(move |response: &marketplace_client::ReceivedResponse<'_>| {
                if let Some(body) = response.body() {
                    seen.lock().unwrap().push(body.to_vec());
                }
            })
            .build()
            .unwrap();
            let session = client.session(AccessToken::new(
                "token",
                "token-secret-x",
                Timestamp::now(),
            ));
            stub.enqueue(
                "/api/pay/getInvoice",
                Reply::text(502, "text/plain; charset=utf-8", text.clone()),
            );
            let error = runtime
                .block_on(session.get_invoice(9003).send())
                .expect_err("a 502 is an error");
            let mut texts = vec![
                ("Error's Display", error.to_string()),
                ("Error's Debug", format!("{error:?}")),
            ];
            if let Error::Status { body, .. } = &error {
                texts.push(("Error::Status's body", body.clone()));
            }
            let mut source = std::error::Error::source(&error);
            while let Some(inner) = source {
                texts.push(("a source's Display", inner.to_string()));
                source = inner.source();
            }
            for body in bodies.lock().unwrap().iter() {
                texts.push((
                    "the response hook's body",
                    String::from_utf8_lossy(body).into_owned(),
                ));
            }
            prop_assert!(
                texts.len() >= 3,
                "no hook body nor error body seen: {:?}",
                texts
            );
            for (channel, shown) in &texts {
                // Display and Debug quote the body inside their own text: the layers are decoded
                // over the whole of it.
                check_cleaned(&case, &text, shown, channel)?;
            }
            Ok(())
        })
        .unwrap();
}

/// A plain secret of letters and digits, no secret word.
fn plain_secret() -> impl Strategy<Value = String> {
    "[a-z0-9]{8,20}".prop_filter("no secret word", |secret| {
        !SECRET_WORDS.iter().any(|word| secret.contains(word))
    })
}

// Found by the generators above, then generated on its own (three layers, every one
// documented): one character of a plain secret written as an escape (`\xHH`, `\u{H}`,
// `\uXXXX` or `%HH`) whose first character (`\` or `%`) is an HTML numeric reference
// (`&#92;`, `&#x5C;`, `&#37;`, `&#x25;`) one of whose digits is a JSON `\u00XX`, inside a JSON
// string: `{"e":"aabbccd&#9\u0032;x64"}` is `aabbccdd` read JSON, then HTML, then `\x`.
// SECURITY.md, "Output channels": "views with one, two and three layers of escapes decoded
// (`views.rs`: percent; JSON's, ...; the `\xHH` and `\u{H…}` of the languages ...; HTML's
// numeric references in any case, with leading zeros or without `;` ...)"; "known secrets ...
// with each character plain or escaped, mixed"; `redact`: "written as it is or in any mix of
// percent, JSON, language and HTML escapes".
#[test]
fn an_escape_whose_lead_is_an_html_reference_with_a_json_escaped_digit_is_still_read() {
    let mut runner = TestRunner::new(config(48));
    runner
        .run(
            &(
                plain_secret(),
                any::<usize>(),
                0u8..4,
                any::<bool>(),
                any::<usize>(),
            ),
            |(secret, at, inner, hex_reference, digit)| {
                let at = at % secret.len();
                let c = secret.as_bytes()[at];
                let (lead, rest) = match inner {
                    0 => ('\\', format!("x{c:02x}")),
                    1 => ('\\', format!("u{{{c:x}}}")),
                    2 => ('\\', format!("u{c:04x}")),
                    _ => ('%', format!("{c:02X}")),
                };
                let number = if hex_reference {
                    format!("x{:X}", u32::from(lead))
                } else {
                    u32::from(lead).to_string()
                };
                // One digit of the reference's number (never the `x`) as a JSON escape.
                let digits: Vec<usize> = number
                    .char_indices()
                    .filter(|(_, d)| d.is_ascii_hexdigit())
                    .map(|(i, _)| i)
                    .collect();
                let pick = digits[digit % digits.len()];
                let mut escaped_number = String::new();
                for (i, d) in number.chars().enumerate() {
                    if i == pick {
                        escaped_number.push_str(&format!("\\u{:04x}", u32::from(d)));
                    } else {
                        escaped_number.push(d);
                    }
                }
                let text = format!(
                    "{{\"error\":\"bad input: {}&#{escaped_number};{rest}{}\"}}",
                    &secret[..at],
                    &secret[at + 1..]
                );
                let read = decode_mixed(&decode_html(&decode_json(&text)));
                prop_assert!(
                    read.contains(&secret),
                    "the generator lost the secret: {}",
                    read
                );
                let cleaned = redact(&text, &[&Secret::new(secret.clone())]);
                let shown = decode_mixed(&decode_html(&decode_json(&cleaned)));
                prop_assert!(
                    cleaned.starts_with(WITHHELD) || !shown.contains(&secret),
                    "redact left the secret {:?} readable (JSON, then HTML, then {:?}) in {:?}: \
                     read back as {:?}",
                    secret,
                    lead,
                    cleaned,
                    shown
                );
                Ok(())
            },
        )
        .unwrap();
}

// Found by the generators above, then generated on its own (two layers): a secret holding the
// text `\u00HH` (an escape look-alike), echoed with that `u` in upper case (`\U00HH`: ASCII
// case ignored) by a language's repr (`\` as `\\`) inside a JSON string (`\\` again), e.g.
// `{"error":"ValueError('ab\\\\U0041cd9')"}` for the secret `ab\u0041cd9`. SECURITY.md, "Output
// channels": "views with one, two and three layers of escapes decoded"; "known secrets in
// every spelling a reader takes for them (`spellings.rs`: each Unicode normalization form,
// ASCII case ignored, ...), with each character plain or escaped, mixed".
#[test]
#[ignore = "open: a secret holding a \\u escape, echoed with its u in upper case under two layers (SECURITY.md, Open findings); run with --ignored"]
fn a_secret_holding_a_u_escape_lookalike_echoed_in_upper_case_under_two_layers_is_removed() {
    let mut runner = TestRunner::new(config(48));
    runner
        .run(
            &("[a-z0-9;%]{3,8}", "[0-9a-f]{2}", "[a-z0-9%]{3,8}"),
            |(before, code, after)| {
                let secret = format!("{before}\\u00{code}{after}");
                prop_assume!(!SECRET_WORDS.iter().any(|word| secret.contains(word)));
                let spelled = secret.replace("\\u00", "\\U00");
                let repr = spelled.replace('\\', "\\\\");
                let text = format!(
                    "{{\"error\":\"ValueError('{}')\"}}",
                    repr.replace('\\', "\\\\")
                );
                let read = decode_hex(&decode_json(&text));
                prop_assert!(
                    read.contains(&spelled),
                    "the generator lost the secret: {}",
                    read
                );
                let cleaned = redact(&text, &[&Secret::new(secret.clone())]);
                let shown = decode_hex(&decode_json(&cleaned));
                prop_assert!(
                    cleaned.starts_with(WITHHELD) || !key(&shown).contains(&key(&secret)),
                    "redact left the secret {:?} readable as {:?} (JSON, then the repr's \
                     backslashes) in {:?}",
                    secret,
                    spelled,
                    cleaned
                );
                Ok(())
            },
        )
        .unwrap();
}

// Found by the generators above, then generated on its own: the direct sibling of the fixed
// defect. A secret holding an escape look-alike (`&#65;`, `&lt;`, `%41`, `%29`) *and* a
// backslash, echoed with the backslash doubled twice (a language's repr inside another, or a
// JSON string inside a JSON string: `{"e":"x('Aa0A&#65;\\\\A')"}` for `Aa0A&#65;\A`), is left
// as it is; the same without the look-alike (`Aa0Azzzz\A`), or escaped once, is removed.
// SECURITY.md, "Output channels": "views with one, two and three layers of escapes decoded
// (`views.rs`: percent; JSON's, ...; the `\xHH` and `\u{H…}` of the languages ...)"; "known
// secrets ... with each character plain or escaped, mixed"; CHANGELOG's fixed defect (a secret
// that itself holds what reads as an escape, inside a text escaped twice).
#[test]
fn a_secret_holding_a_lookalike_and_a_backslash_escaped_twice_is_removed() {
    let mut runner = TestRunner::new(config(48));
    let lookalike = prop::sample::select(vec!["&#65;", "&lt;", "%41", "%29", "&amp;", "%2F"]);
    runner
        .run(
            &(
                "[a-zA-Z0-9]{2,6}",
                lookalike,
                "[a-z0-9]{0,4}",
                "[a-zA-Z0-9]{1,6}",
                any::<bool>(),
            ),
            |(head, lookalike, middle, tail, json)| {
                let secret = format!("{head}{lookalike}{middle}\\{tail}");
                prop_assume!(secret.len() >= 8);
                prop_assume!(!SECRET_WORDS.iter().any(|word| secret.contains(word)));
                let twice = secret.replace('\\', "\\\\\\\\");
                let (text, decode_twice): (String, fn(&str) -> String) = if json {
                    (
                        format!("{{\"error\":\"{{\\\"message\\\":\\\"{twice}\\\"}}\"}}"),
                        |t| decode_json(&decode_json(t)),
                    )
                } else {
                    (format!("ValueError(\"KeyError('{twice}')\")"), |t| {
                        decode_hex(&decode_hex(t))
                    })
                };
                prop_assert!(
                    decode_twice(&text).contains(&secret),
                    "the generator lost the secret: {}",
                    text
                );
                let cleaned = redact(&text, &[&Secret::new(secret.clone())]);
                prop_assert!(
                    cleaned.starts_with(WITHHELD) || !decode_twice(&cleaned).contains(&secret),
                    "redact left the secret {:?} readable in {:?} (its backslash escaped twice, \
                     {})",
                    secret,
                    cleaned,
                    if json {
                        "JSON in JSON"
                    } else {
                        "a repr in a repr"
                    }
                );
                Ok(())
            },
        )
        .unwrap();
}

// Found by the near-miss generator above, then generated on its own. SECURITY.md, "Output
// channels" and `redact`'s rustdoc say what is replaced: secret-named values and the known
// secrets in the readings listed; a text holding neither has nothing to replace. The near miss
// `aA00%25%35` of the secret `aA00%25%25`, percent-encoded once (`q=aA00%2525%2535`), reads as
// `aA00%25%35` once and `aA00%%5` twice: never the secret.
#[test]
#[ignore = "open: over-redaction of a near miss of a secret ending in %25 (SECURITY.md, Open findings); run with --ignored"]
fn a_percent_encoded_near_miss_of_a_secret_ending_in_percent_25_is_returned_unchanged() {
    let mut runner = TestRunner::new(config(32));
    runner
        .run(&("[a-zA-Z0-9]{4,10}", "[0-9][0-9A-F]"), |(head, last)| {
            prop_assume!(last != "25");
            let secret = format!("{head}%25%25");
            prop_assume!(!SECRET_WORDS.iter().any(|word| secret.contains(word)));
            let near_miss = format!("{head}%25%{last}");
            let text = format!("/api/cb?q={}", near_miss.replace('%', "%25"));
            let cleaned = redact(&text, &[&Secret::new(secret.clone())]);
            prop_assert_eq!(
                cleaned.as_ref(),
                text.as_str(),
                "the near miss {:?} of the secret {:?} was changed",
                near_miss,
                secret
            );
            Ok(())
        })
        .unwrap();
}
