//! The scrubber on arbitrary text (`marketplace_client::redact`, what every channel of the
//! client goes through): never a panic; cleaning twice changes nothing more than once; a
//! known secret placed anywhere in the text, as it is or percent-encoded or JSON-escaped, is
//! never left; and a value under `oauth_token_secret` after the text is never left.
//!
//! The input is `secret \0 text \0 where`: the secret the client holds, the text, and a byte
//! choosing where and how the secret is placed.
//!
//! Shared by the fuzz target and by `tests/tests/fuzz_corpus.rs`, which replays every committed
//! corpus input through it on every CI run.
use marketplace_client::{Secret, redact};

const MARKER: &str = "FUZZSECRETMARKER";

pub fn check(input: &[u8]) {
    let mut parts = input.splitn(3, |&byte| byte == 0);
    let secret = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let text = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let choice = parts
        .next()
        .and_then(|rest| rest.first().copied())
        .unwrap_or(0);

    let held = Secret::new(secret.clone());
    let once = redact(&text, &[&held]);
    let twice = redact(&once, &[&held]);
    assert_eq!(once, twice, "cleaning is not idempotent");

    // A secret too short or too common to tell from the markers' own words is not looked for.
    let telling = secret.chars().count() >= 6
        && !"[redacted][withheld: bytes that could not be cleaned of secrets for certain]"
            .contains(secret.as_str());
    if telling {
        let written = match choice % 3 {
            0 => secret.clone(),
            1 => secret.bytes().map(|b| format!("%{b:02X}")).collect(),
            _ => {
                let json = serde_json::to_string(&secret).expect("a string serializes");
                json[1..json.len() - 1].to_owned()
            }
        };
        let at = text
            .char_indices()
            .map(|(at, _)| at)
            .nth(usize::from(choice) % (text.chars().count() + 1))
            .unwrap_or(text.len());
        // A secret shorter than 8 bytes is removed where it stands alone (SECURITY.md, "Why 8
        // bytes"): it is placed so.
        let placed = if secret.len() < 8 {
            format!("{} {written} {}", &text[..at], &text[at..])
        } else {
            format!("{}{written}{}", &text[..at], &text[at..])
        };
        let cleaned = redact(&placed, &[&held]);
        assert!(
            !cleaned.contains(secret.as_str()),
            "the secret {secret:?} is left in {cleaned:?}"
        );
    }

    // (A text that holds the marker itself says nothing about the named value.)
    if !text.contains(MARKER) {
        let named = format!("{text}\n\"oauth_token_secret\": \"{MARKER}\"");
        let cleaned = redact(&named, &[]);
        assert!(
            !cleaned.contains(MARKER),
            "the named value is left in {cleaned:?}"
        );
    }
}
