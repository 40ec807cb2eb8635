//! The credentials of the three-legged flow: request token, verifier, access token.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::secret::Secret;

/// The longest token or token secret the client takes from a token endpoint's answer: far
/// beyond any service's (tens of bytes are usual), small enough that every header carrying
/// one, and the 64 secrets the client remembers, stay small.
pub(crate) const MAX_TOKEN_BYTES: usize = 4096;

/// What no credential holds (a consumer key or secret, a token or token secret, a verifier):
/// a control or bidirectional-text character, white space other than a space, or an invisible
/// formatting character;
/// credentials are opaque printable text, and one of these characters in one is an artifact of
/// where it came from (a file's byte order mark or last line break, a copy from a web page),
/// which would be signed and sent and show only as a signature mismatch far from its cause.
/// The first such character of `text`, with its byte offset and what it is.
pub(crate) fn foreign_character(text: &str) -> Option<(usize, char, &'static str)> {
    text.char_indices().find_map(|(at, c)| {
        let what = if crate::one_line::hides_or_reorders(c) {
            "the control character"
        } else if c.is_whitespace() && c != ' ' {
            // A space is visible and signed as `%20`; the others look like one, or nothing.
            "the white space"
        } else if is_invisible_format(c) {
            "the invisible character"
        } else {
            return None;
        };
        Some((at, c, what))
    })
}

/// Unicode's format characters (general category Cf, Unicode 16) that are not bidirectional
/// controls: invisible, they change how text joins, breaks or is shaped (a byte order mark,
/// zero-width spaces and joiners, a soft hyphen, tags).
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{600}'..='\u{605}'
            | '\u{6DD}'
            | '\u{70F}'
            | '\u{890}'..='\u{891}'
            | '\u{8E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// A temporary (request) token from `oauth/getRequestToken`, to be authorized by the user.
///
/// It is `Serialize` and `Deserialize`: a web app keeps it with the user's session when it
/// redirects them to [`Client::authorization_url`](crate::Client::authorization_url), and reads
/// it back in the handler of its callback URL for
/// [`Client::verifier_from_callback`](crate::Client::verifier_from_callback) and
/// [`Client::access_token`](crate::Client::access_token). It holds the token's secret: store it
/// where the app keeps secrets, not in a cookie the user's browser can read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestToken {
    /// The request token (`oauth_token`).
    pub token: String,
    /// Its secret; signs the access-token exchange.
    pub secret: Secret,
    /// `oauth_callback_confirmed` as sent (always true per the reference).
    pub callback_confirmed: bool,
}

/// The `oauth_verifier` the service gives when the user approves: through the callback, or on a
/// page for the user to type in. It proves the user's approval until it is exchanged, so it is a
/// secret: `Debug` does not show it.
///
/// Every verifier is made by [`Verifier::new`] (deserializing one too), so every verifier the
/// client holds, remembers or sends is within its bounds: non-empty, at most 4 KiB, no control,
/// bidirectional-text or invisible character, no white space but a space.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String")]
pub struct Verifier(String);

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Verifier([redacted])")
    }
}

impl Verifier {
    /// A verifier typed in by the user, or read from a callback (surrounding white space is
    /// ignored).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `oauth_verifier`, and
    /// never showing the verifier, when it is empty, longer than 4 KiB (4,096 bytes, the bound
    /// of tokens: far beyond any service's verifier, and a verifier is sent in a header and
    /// remembered as a secret), or holds a control character (C0, DEL, C1), a
    /// bidirectional-text control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069),
    /// white space other than a space or an invisible formatting character (a byte order mark, a
    /// zero-width space, a soft hyphen: Unicode's format characters), which no service writes in a verifier:
    /// one would reorder or hide what a reader of it sees, or be signed and sent unseen.
    pub fn new(text: &str) -> Result<Self, crate::Error> {
        let refuse = |reason: String| crate::Error::InvalidArgument {
            method: "oauth/getAccessToken",
            name: "oauth_verifier".to_owned(),
            reason,
        };
        let text = text.trim();
        if text.is_empty() {
            return Err(refuse("the verifier is empty".to_owned()));
        }
        if text.len() > MAX_TOKEN_BYTES {
            return Err(refuse(format!(
                "the verifier is {} bytes long, over the {MAX_TOKEN_BYTES} a verifier may be",
                text.len()
            )));
        }
        if let Some((at, c, what)) = foreign_character(text) {
            return Err(refuse(format!(
                "the verifier holds {what} U+{:04X} at byte {at}",
                u32::from(c)
            )));
        }
        Ok(Verifier(text.to_owned()))
    }

    /// The verifier as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Through [`Verifier::new`]: a verifier restored from storage has the bounds of any other.
impl TryFrom<String> for Verifier {
    type Error = crate::Error;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Verifier::new(&text)
    }
}

/// An access token: acts for the user who approved the application, for at most the service's
/// token lifetime (six hours), after which [`Session::expires_at`](crate::Session::expires_at)
/// says it expired.
///
/// Serialize it to persist a session and deserialize it to restore one; the grant time travels
/// with it, so a restored token still knows when it expires.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessToken {
    token: String,
    secret: Secret,
    granted_at: Timestamp,
}

impl AccessToken {
    /// A token granted at `granted_at`.
    pub fn new(token: impl Into<String>, secret: impl Into<String>, granted_at: Timestamp) -> Self {
        AccessToken {
            token: token.into(),
            secret: Secret::new(secret),
            granted_at,
        }
    }

    /// The access token (`oauth_token`).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Its secret.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// When it was granted.
    pub fn granted_at(&self) -> Timestamp {
        self.granted_at
    }

    /// When it expires if tokens live `lifetime` (the service's `token_lifetime`).
    pub(crate) fn expires_after(&self, lifetime: Duration) -> Timestamp {
        let lifetime = SignedDuration::try_from(lifetime).unwrap_or(SignedDuration::MAX);
        self.granted_at
            .checked_add(lifetime)
            .unwrap_or(Timestamp::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expires_a_lifetime_after_it_was_granted() {
        let granted = Timestamp::from_second(1_768_000_000).unwrap();
        let token = AccessToken::new("t", "s", granted);
        let six_hours = Duration::from_secs(6 * 3600);
        assert_eq!(
            token.expires_after(six_hours).as_second() - granted.as_second(),
            6 * 3600
        );
        assert_eq!(token.expires_after(Duration::MAX), Timestamp::MAX);
    }

    #[test]
    fn survives_a_save_and_restore_and_never_shows_its_secret() {
        let token = AccessToken::new(
            "t",
            "hunter2",
            Timestamp::from_second(1_768_000_000).unwrap(),
        );
        let saved = serde_json::to_string(&token).unwrap();
        let restored: AccessToken = serde_json::from_str(&saved).unwrap();
        assert_eq!(restored, token);
        assert_eq!(restored.granted_at(), token.granted_at());
        assert!(!format!("{token:?}").contains("hunter2"));
    }

    #[test]
    fn an_empty_verifier_is_refused() {
        assert!(Verifier::new("  ").is_err());
        assert_eq!(Verifier::new(" abc \n").unwrap().as_str(), "abc");
    }

    /// The reason a verifier is refused, which must never show it.
    fn refusal(text: &str) -> String {
        match Verifier::new(text) {
            Err(crate::Error::InvalidArgument { name, reason, .. }) => {
                assert_eq!(name, "oauth_verifier");
                assert!(!reason.contains(text.trim()), "{reason}");
                reason
            }
            other => panic!("{} bytes taken: {other:?}", text.len()),
        }
    }

    #[test]
    fn a_verifier_is_at_most_4_kib_counted_in_bytes() {
        let at_bound = "é".repeat(MAX_TOKEN_BYTES / 2);
        assert_eq!(Verifier::new(&at_bound).unwrap().as_str(), at_bound);
        assert_eq!(
            refusal(&format!("{at_bound}v")),
            "the verifier is 4097 bytes long, over the 4096 a verifier may be"
        );
        // Surrounding white space is not counted: it is not part of the verifier.
        let padded = format!("  {}  ", "v".repeat(MAX_TOKEN_BYTES));
        assert_eq!(
            Verifier::new(&padded).unwrap().as_str().len(),
            MAX_TOKEN_BYTES
        );
        refusal(&"v".repeat(1 << 20));
    }

    #[test]
    fn control_and_bidi_characters_are_refused_wherever_they_are() {
        for c in [
            '\0', '\u{7}', '\r', '\n', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}',
        ]
        .into_iter()
        .chain(['\u{061C}', '\u{200E}', '\u{200F}', '\u{2066}', '\u{2069}'])
        .chain('\u{202A}'..='\u{202E}')
        {
            let reason = refusal(&format!("abc{c}def"));
            assert_eq!(
                reason,
                format!(
                    "the verifier holds the control character U+{:04X} at byte 3",
                    u32::from(c)
                )
            );
        }
        // Printable text beyond ASCII is a verifier's own business.
        for text in ["caf\u{e9}", "\u{1F600}", "\u{5B57}v"] {
            assert_eq!(Verifier::new(text).unwrap().as_str(), text);
        }
        // White space inside, and invisible characters anywhere, are not (a byte order mark
        // of the file a verifier was pasted from, a zero-width space of a web page).
        assert_eq!(
            refusal("\u{FEFF}v"),
            "the verifier holds the invisible character U+FEFF at byte 0"
        );
        assert_eq!(
            refusal("a\u{A0}b"),
            "the verifier holds the white space U+00A0 at byte 1"
        );
        assert_eq!(
            refusal("ab\u{200B}"),
            "the verifier holds the invisible character U+200B at byte 2"
        );
    }

    proptest::proptest! {
        /// Every control, format and white space character but the space (Unicode's
        /// categories Cc and Cf, and White_Space, as proptest's regex tables give them: an
        /// oracle this code did not write) is found wherever it stands in printable text, at
        /// its byte; printable text of any script (letters, marks, numbers, punctuation,
        /// symbols, spaces) holds none.
        #[test]
        fn a_foreign_character_is_found_at_its_byte_in_any_credential(
            before in "[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S} ]{0,12}",
            foreign in "[[\\p{Cc}\\p{Cf}\\p{White_Space}]&&[^ ]]",
            after in "[\\p{L}\\p{N}\\p{P}\\p{S}\\p{Cf}\\s]{0,12}",
        ) {
            proptest::prop_assert_eq!(foreign_character(&before), None);
            let foreign = foreign.chars().next().expect("one character");
            let text = format!("{before}{foreign}{after}");
            let found = foreign_character(&text).map(|(at, c, _)| (at, c));
            proptest::prop_assert_eq!(found, Some((before.len(), foreign)));
        }
    }

    #[test]
    fn a_deserialized_verifier_has_the_bounds_of_any_other() {
        let saved = serde_json::to_string(&Verifier::new("abc").unwrap()).unwrap();
        assert_eq!(saved, "\"abc\"");
        let restored: Verifier = serde_json::from_str(&saved).unwrap();
        assert_eq!(restored.as_str(), "abc");
        for bad in [
            "\"\"".to_owned(),
            "\"a\\u0007b\"".to_owned(),
            format!("\"{}\"", "v".repeat(4097)),
        ] {
            let error = serde_json::from_str::<Verifier>(&bad)
                .unwrap_err()
                .to_string();
            assert!(error.contains("oauth_verifier"), "{error}");
            assert!(!error.contains("vvvv"), "{error}");
        }
    }
}
