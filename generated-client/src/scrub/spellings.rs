//! The spellings of a known secret that a reader takes for it, derived once per secret where a
//! set of secrets is built (`known::SecretSet::build`), so that every channel looks for all of
//! them at no cost per text beyond the automaton's.
//!
//! A secret is looked for as it was given and in each Unicode normalization form (NFC, NFD,
//! NFKC, NFKD: `é` and `e` + U+0301 are one text to every Unicode-aware reader); and, from its
//! bytes (and from the bytes it spells when it is itself base64, as a signature is), their
//! hexadecimal digits and their base64: alone (with its last, partly padded character) and at
//! each of the three places a text can start within base64's groups of three bytes (only the
//! characters those bytes alone decide), as `Basic dXNlcjpzZWNyZXQ=` holds a password.
//! Escapes of any of these (percent, JSON, HTML) are the views' (`views.rs`).
//!
//! Every spelling is compared [`fold`]ed: ASCII case ignored (hexadecimal is written in either
//! case, HTTP writes header names in lower case, services change the case of what they quote),
//! `+`, `-` and a space alike and `/` and `_` alike (form encoding's space, base64's two
//! alphabets). Folding only merges texts, so it can remove more than a secret, never less.
//!
//! A derived spelling shorter than [`SHORT_SECRET`] is not looked for (four hexadecimal digits
//! are in every text); the secret itself and its normalization forms always are, by the rule of
//! short secrets (`known.rs`: removed where they stand alone).

use base64::Engine as _;
use base64::alphabet::{self, Alphabet};
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD_NO_PAD};
use unicode_normalization::UnicodeNormalization;

use super::views::{Decoded, raw};
use crate::secret::SHORT_SECRET;

/// A byte as known secrets are compared (see the module docs).
pub(super) const fn fold(byte: u8) -> u8 {
    match byte {
        b'+' | b'-' => b' ',
        b'_' => b'/',
        _ => byte.to_ascii_lowercase(),
    }
}

/// Every spelling of `secret` looked for, folded, each once (see the module docs).
pub(super) fn spellings(secret: &str) -> Vec<Vec<u8>> {
    let mut found: Vec<Vec<u8>> = Vec::new();
    let mut add = |bytes: &[u8], derived: bool| {
        if bytes.is_empty() || (derived && bytes.len() < SHORT_SECRET) {
            return;
        }
        let folded: Vec<u8> = bytes.iter().copied().map(fold).collect();
        if !found.contains(&folded) {
            found.push(folded);
        }
    };
    add(secret.as_bytes(), false);
    // ASCII text is every normalization form of itself (a signature, a key, a token usually
    // are): the forms are computed only for the rest.
    if !secret.is_ascii() {
        for form in [
            secret.nfc().collect::<String>(),
            secret.nfd().collect(),
            secret.nfkc().collect(),
            secret.nfkd().collect(),
        ] {
            add(form.as_bytes(), false);
        }
    }
    // A secret holding what reads as an escape (`%29`, `\b`, `&lt;`): a view decodes every
    // escape of a layer at once, the secret's own with those of the text around it (JSON in a
    // JSON string), so it is looked for as each layer of the views reads it too. Decoding
    // shortens it, so each reading is looked for as the secret is (under 8 bytes, where it
    // stands alone), not as a derived spelling: `00&#65;\a` reads `00A\a`.
    let mut layer = secret.as_bytes().to_vec();
    for _ in 0..super::MAX_LAYERS {
        let decoded: Vec<u8> = Decoded::new(raw(&layer)).map(|unit| unit.byte).collect();
        if decoded == layer {
            break;
        }
        add(&decoded, false);
        layer = decoded;
    }
    // One buffer for every encoding (a signature's spellings are made for every answer the
    // recorder writes).
    let mut placed = Vec::new();
    let mut encoded = String::new();
    let decoded = base64_bytes(secret);
    for bytes in std::iter::once(secret.as_bytes()).chain(decoded.as_deref()) {
        encoded.clear();
        hex_into(bytes, &mut encoded);
        add(encoded.as_bytes(), true);
        encoded.clear();
        STANDARD_NO_PAD.encode_string(bytes, &mut encoded);
        add(encoded.as_bytes(), true);
        // At offset 0 the characters the bytes alone decide are those of their own base64
        // but a last, partly padded one: not encoded again.
        add(within(&encoded, 0, bytes.len()).as_bytes(), true);
        for offset in 1..3 {
            placed.clear();
            placed.resize(offset, 0);
            placed.extend_from_slice(bytes);
            encoded.clear();
            STANDARD_NO_PAD.encode_string(&placed, &mut encoded);
            add(within(&encoded, offset, bytes.len()).as_bytes(), true);
        }
    }
    found
}

/// `bytes` in hexadecimal (lower case: spellings are folded), added to `text`.
fn hex_into(bytes: &[u8], text: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    text.reserve(2 * bytes.len());
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
}

/// The base64 characters `len` bytes alone decide when they start `offset` bytes into a group
/// of three (0, 1 or 2), out of `encoded`, the base64 of `offset` zero bytes and them: the
/// text's characters that a longer base64 text holding them shows whatever comes before and
/// after.
fn within(encoded: &str, offset: usize, len: usize) -> &str {
    // Character i holds bits [6i, 6i + 6) of the bytes: those of the `len` are [8 offset, …).
    let first = (8 * offset).div_ceil(6);
    let last = 8 * (offset + len) / 6;
    encoded.get(first..last).unwrap_or_default()
}

/// The bytes `text` spells when it is base64 (either alphabet, padded or not, its last
/// character's unused bits zero), as an OAuth signature is.
fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    const fn lenient(alphabet: &Alphabet) -> GeneralPurpose {
        GeneralPurpose::new(
            alphabet,
            GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
        )
    }
    const STANDARD: GeneralPurpose = lenient(&alphabet::STANDARD);
    const URL_SAFE: GeneralPurpose = lenient(&alphabet::URL_SAFE);
    STANDARD
        .decode(text)
        .or_else(|_| URL_SAFE.decode(text))
        .ok()
        .filter(|bytes| !bytes.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    fn spelled(secret: &str) -> Vec<String> {
        spellings(secret)
            .into_iter()
            .map(|bytes| String::from_utf8(bytes).unwrap())
            .collect()
    }

    fn folded(text: &str) -> String {
        String::from_utf8(text.bytes().map(fold).collect()).unwrap()
    }

    /// Whether `text`, folded, holds one of `secret`'s spellings.
    fn found_in(secret: &str, text: &str) -> bool {
        let text = folded(text);
        spelled(secret)
            .iter()
            .any(|spelling| text.contains(spelling))
    }

    proptest::proptest! {
        /// The ASCII shortcut skips no form: every normalization form of ASCII text is itself
        /// (unicode-normalization, not this module, is the judge).
        #[test]
        fn ascii_text_is_each_of_its_normalization_forms(secret in "[\\x00-\\x7f]{0,40}") {
            for form in [
                secret.nfc().collect::<String>(),
                secret.nfd().collect(),
                secret.nfkc().collect(),
                secret.nfkd().collect(),
            ] {
                proptest::prop_assert_eq!(&form, &secret);
            }
        }

        /// Hexadecimal as the standard formatter writes it.
        #[test]
        fn hex_is_two_lower_case_digits_a_byte(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            let formatted: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
            let mut hex = String::new();
            hex_into(&bytes, &mut hex);
            proptest::prop_assert_eq!(hex, formatted);
        }
    }

    #[test]
    fn a_secret_is_found_in_each_normalization_form() {
        let secret = "clé-secrète-x";
        let decomposed = secret.nfd().collect::<String>();
        assert_ne!(decomposed, secret);
        assert!(found_in(secret, &format!("echo {decomposed} echo")));
        // Given decomposed, the composed form is found too.
        assert!(found_in(&decomposed, &format!("echo {secret} echo")));
        assert!(found_in("ﬁle-secret", "echo file-secret"));
    }

    #[test]
    fn a_secrets_bytes_are_found_in_hex_and_in_base64_at_every_offset() {
        let secret = "s3cr/t+k3y?>~";
        let hex_upper: String = secret.bytes().map(|b| format!("{b:02X}")).collect();
        assert!(found_in(secret, &format!("key {hex_upper}.")));
        assert!(found_in(
            secret,
            &format!("key {}", STANDARD.encode(secret))
        ));
        assert!(found_in(
            secret,
            &format!("key {}", URL_SAFE_NO_PAD.encode(secret))
        ));
        // Inside a longer base64 text, whatever its place in a group of three bytes.
        for before in ["", "a", "ab", "abc", "user:"] {
            for after in ["", "!", "!!", "tail"] {
                let pair = format!("{before}{secret}{after}");
                for encoded in [STANDARD.encode(&pair), URL_SAFE_NO_PAD.encode(&pair)] {
                    assert!(found_in(secret, &format!("Basic {encoded}")), "{pair:?}");
                }
            }
        }
    }

    #[test]
    fn a_base64_secret_is_found_as_the_bytes_it_spells() {
        // An HMAC-SHA1 signature: 20 bytes.
        let bytes: Vec<u8> = (0u8..20)
            .map(|i| i.wrapping_mul(47).wrapping_add(251))
            .collect();
        let signature = STANDARD.encode(&bytes);
        let hex_lower: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        for echoed in [
            signature.trim_end_matches('=').to_owned(),
            URL_SAFE_NO_PAD.encode(&bytes),
            signature.replace('+', "-").replace('/', "_"),
            hex_lower.clone(),
            hex_lower.to_uppercase(),
        ] {
            assert!(found_in(&signature, &format!("got {echoed}")), "{echoed}");
        }
    }

    #[test]
    fn derived_spellings_shorter_than_a_short_secret_are_not_looked_for() {
        // "ab": its hexadecimal (`6162`) and base64 (`YWI`) would be in every text.
        assert_eq!(spelled("ab"), ["ab"]);
        for spelling in spelled("a-secret-of-some-length") {
            assert!(spelling.len() >= SHORT_SECRET || spelling == "a secret of some length");
        }
    }
}
