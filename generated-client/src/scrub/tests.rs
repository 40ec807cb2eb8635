use super::*;

fn clean(scrubber: &Scrubber<'_>, text: &str) -> (String, Outcome) {
    let cleaned = scrubber.clean(text.as_bytes());
    let outcome = cleaned.outcome;
    (cleaned.into_string(), outcome)
}

fn structural(text: &str) -> String {
    clean(&Scrubber::structural(), text).0
}

#[test]
fn secret_named_values_go_in_every_shape_of_body() {
    for (body, expected) in [
        (
            r#"{"a": {"b": [{"oauth_token_secret": "x1"}]}, "n": 1}"#,
            r#"{"a": {"b": [{"oauth_token_secret": "[redacted]"}]}, "n": 1}"#,
        ),
        // A duplicate key: both values go, whichever a parser would keep.
        (
            r#"{"oauth_token_secret": "x1", "oauth_token_secret": ""}"#,
            r#"{"oauth_token_secret": "[redacted]", "oauth_token_secret": ""}"#,
        ),
        // A name written with escapes, in a body no JSON parser takes (trailing text).
        (
            r#"{"oauth_token_\u0073ecret": "x1"} trailing"#,
            r#"{"oauth_token_\u0073ecret": "[redacted]"} trailing"#,
        ),
        // Bare values stay JSON values; null hides nothing.
        (
            r#"{"Client_Secret": 12345, "password": {"a": [1, {"b": "}"}]}, "passwd": null}"#,
            r#"{"Client_Secret": "[redacted]", "password": "[redacted]", "passwd": null}"#,
        ),
        (
            "oauth_token=t&oauth%5Ftoken%5Fsecret=a%26b&x=1",
            "oauth_token=t&oauth%5Ftoken%5Fsecret=[redacted]&x=1",
        ),
        (
            "<p>oauth_token_secret=a%26b c</p> and \"secret\": \"x y\\\" z\", ok",
            "<p>oauth_token_secret=[redacted] c</p> and \"secret\": \"[redacted]\", ok",
        ),
        // JSON inside a JSON string, its quotes escaped.
        (
            r#"{"detail": "{\"oauth_verifier\": \"v1\"}"}"#,
            r#"{"detail": "{\"oauth_verifier\": \"[redacted]\"}"}"#,
        ),
        (
            "&quot;oauth_signature&quot;: &quot;abc&quot;",
            "&quot;oauth_signature&quot;: &quot;[redacted]&quot;",
        ),
        // A name inside a value may name what follows it.
        (
            r#"secret="oauth_token_secret": "x1""#,
            r#"secret="[redacted]": "[redacted]""#,
        ),
        (
            "<error><oauth_token_secret>abc def</oauth_token_secret></error>",
            "<error><oauth_token_secret>[redacted]</oauth_token_secret></error>",
        ),
        // Prose after a colon: to the end of the line or clause; a name in any spelling.
        (
            "X-OAuth-Verifier: v1 v2\nPrivate Key: k1, ok",
            "X-OAuth-Verifier: \"[redacted]\"\nPrivate Key: \"[redacted]\", ok",
        ),
    ] {
        assert_eq!(structural(body), expected, "{body}");
    }
}

/// `oauth_signature_method` names the algorithm, never a secret: kept in every shape a value
/// takes (so a refusal's base string is shown whole), while `oauth_signature`, a name that goes
/// on past `method`, and one with another secret word before, stay removed.
#[test]
fn the_signature_method_is_kept_and_only_it() {
    for (body, expected) in [
        (
            "base string \"POST&x%26oauth_nonce%3Dn1%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D17%26oauth_version%3D1.0\" end",
            "base string \"POST&x%26oauth_nonce%3Dn1%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D17%26oauth_version%3D1.0\" end",
        ),
        (
            r#"{"oauth_signature_method": "HMAC-SHA1", "oauth_signature": "c2ln"}"#,
            r#"{"oauth_signature_method": "HMAC-SHA1", "oauth_signature": "[redacted]"}"#,
        ),
        (
            "OAuth oauth_signature_method=\"HMAC-SHA1\", oauth_signature=\"c2ln\"",
            "OAuth oauth_signature_method=\"HMAC-SHA1\", oauth_signature=\"[redacted]\"",
        ),
        (
            "<oauth_signature_method>HMAC-SHA1</oauth_signature_method>",
            "<oauth_signature_method>HMAC-SHA1</oauth_signature_method>",
        ),
        (
            "--oauth-signature-method HMAC-SHA1 --OAuth-Signature s1",
            "--oauth-signature-method HMAC-SHA1 --OAuth-Signature [redacted]",
        ),
        (
            "OAUTH SIGNATURE METHOD: HMAC-SHA1",
            "OAUTH SIGNATURE METHOD: HMAC-SHA1",
        ),
        (
            "oauth_signature_methods=m1&oauth_signature_method_x=m2&oauth_signaturemethodx=m3",
            "oauth_signature_methods=[redacted]&oauth_signature_method_x=[redacted]&oauth_signaturemethodx=[redacted]",
        ),
        (
            "secret_oauth_signature_method=m1&oauth_signature_meth=m2",
            "secret_oauth_signature_method=[redacted]&oauth_signature_meth=[redacted]",
        ),
    ] {
        assert_eq!(structural(body), expected, "{body}");
    }
}

#[test]
fn text_without_a_pair_is_kept_as_it_is() {
    for text in [
        "the secret was wrong",
        "oauth_token_secret=",
        r#"{"type": "secret", "rcode": 0}"#,
        r#"{"error": {"code": "E_X", "message": "bad id"}}"#,
        "",
    ] {
        let (cleaned, outcome) = clean(&Scrubber::structural(), text);
        assert_eq!((cleaned.as_str(), outcome), (text, Outcome::Unchanged));
    }
}

#[test]
fn invalid_utf8_and_deep_nesting_are_cleaned_like_any_text() {
    let mut body = b"{\"oauth_token_secret\": \"x1\xff\", \"a\": ".to_vec();
    body.extend(std::iter::repeat_n(b'[', 10_000));
    let cleaned = Scrubber::structural().clean(&body);
    assert_eq!(cleaned.outcome, Outcome::Redacted);
    assert!(
        cleaned
            .bytes
            .starts_with(b"{\"oauth_token_secret\": \"[redacted]\", \"a\": [[[")
    );
}

/// A secret holding what reads as an escape (`%29`, `\b`, `&lt;`) in a text escaped twice (JSON
/// in a JSON string): a view decodes every escape of a layer at once, the secret's own with
/// the text's, so the secret is looked for as each layer reads it too (found by the canary's
/// random cases in CI run 20: a request token secret in a hook's body).
#[test]
fn a_secret_holding_escapes_goes_from_a_text_escaped_twice() {
    for (secret, tail) in [
        ("F,u\u{e9}%29`iH<p\u{65e5}F\\bKaGf", "KaGf"),
        ("a%2Fb&lt;c\\nd%25e", "25e"),
    ] {
        let scrubber = Scrubber::new(KnownSecrets::new("", secret));
        let once = serde_json::to_string(secret).unwrap();
        let twice = serde_json::to_string(&once).unwrap();
        let thrice = serde_json::to_string(&twice).unwrap();
        for written in [secret.to_owned(), once, twice, thrice] {
            let (cleaned, _) = clean(&scrubber, &format!("before {written} after"));
            assert!(
                cleaned.contains("[redacted]") && !cleaned.contains(tail),
                "{secret:?} written {written:?}: {cleaned:?}"
            );
        }
    }
}

#[test]
fn known_secrets_go_in_every_encoding() {
    let known = KnownSecrets::new("c0n&s/umer+é", "");
    let scrubber = Scrubber::new(known);
    for written in [
        "c0n&s/umer+é",
        "c0n%26s%2Fumer%2B%C3%A9",
        "c0n%26s%2fumer%2b%c3%a9",
        "c0n%26s%2Fumer%2B%C3%A9".replace('%', "%25").as_str(),
        r"c0n\u0026s\/umer+\u00e9",
        r"\u0063\u0030\u006e&s/umer+é",
        "c0n&amp;s&#x2F;umer+&#233;",
    ] {
        let (cleaned, _) = clean(&scrubber, &format!("before {written} after"));
        assert_eq!(cleaned, "before [redacted] after", "{written}");
    }
    // The signatures, the verifier and the issued token secrets are known too.
    let signatures = ["sig/+=".to_owned(), "earlier/sig=".to_owned()];
    let issued = ["issued-s3cret".to_owned()];
    let scrubber = Scrubber::new(
        KnownSecrets::new("", "")
            .with_verifier("verif1er")
            .with_signatures(&signatures)
            .with_issued(&issued),
    );
    let (cleaned, _) = clean(
        &scrubber,
        "v=verif1er&s=sig%2F%2B%3D&e=earlier%2Fsig%3D&i=issued-s3cret",
    );
    assert_eq!(
        cleaned,
        "v=[redacted]&s=[redacted]&e=[redacted]&i=[redacted]"
    );
}

#[test]
fn what_cannot_be_cleaned_for_certain_is_withheld() {
    // Replacing `]abcdefg` leaves `]abcdefg` again at the marker's end.
    let scrubber = Scrubber::new(KnownSecrets::new("]abcdefg", ""));
    let (cleaned, outcome) = clean(&scrubber, "x]abcdefgabcdefg");
    assert_eq!(outcome, Outcome::Withheld);
    assert!(cleaned.starts_with("[withheld: 16 bytes"), "{cleaned}");
    // An escape too long to decode (leading zeros have no bound): no view reads it.
    let padded = format!("key &#x{}5f; here", "0".repeat(60));
    let (cleaned, outcome) = clean(&Scrubber::structural(), &padded);
    assert_eq!(outcome, Outcome::Withheld, "{cleaned}");
    let padded = format!(r"key \u{{{}5f}} here", "0".repeat(60));
    assert_eq!(clean(&Scrubber::structural(), &padded).1, Outcome::Withheld);
    // Leading zeros that fit are decoded.
    let scrubber = Scrubber::new(KnownSecrets::new("k3y_s3cr3t", ""));
    let written = format!("k3y&#x{}5f;s3cr3t", "0".repeat(20));
    assert_eq!(clean(&scrubber, &written).0, "[redacted]");
    // A known secret inside the marker word is not one left, and cleaning twice is cleaning
    // once.
    let scrubber = Scrubber::new(KnownSecrets::new("act", ""));
    let (once, outcome) = clean(&scrubber, "x act y");
    assert_eq!(
        (once.as_str(), outcome),
        ("x [redacted] y", Outcome::Redacted)
    );
    assert_eq!(clean(&scrubber, &once), (once.clone(), Outcome::Unchanged));
    let scrubber = Scrubber::new(KnownSecrets::new("t", ""));
    let (once, _) = clean(&scrubber, "a t b");
    assert_eq!(clean(&scrubber, &once).0, once);
    // The note of a withheld text is the scrubber's own word too.
    let (withheld, outcome) = clean(
        &Scrubber::new(KnownSecrets::new("]abcdefg", "")),
        "x]abcdefgabcdefg",
    );
    assert_eq!(outcome, Outcome::Withheld, "{withheld}");
    let scrubber = Scrubber::new(KnownSecrets::new("d", ""));
    assert_eq!(clean(&scrubber, &withheld), (withheld, Outcome::Unchanged));
}

#[test]
fn headers_lose_credentials_and_secrets() {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert("set-cookie", HeaderValue::from_static("session=abc"));
    headers.insert("x-client-secret", HeaderValue::from_static("s3"));
    headers.insert("x-echo", HeaderValue::from_static("key c0nsumer%2Bx"));
    let scrubber = Scrubber::new(KnownSecrets::new("c0nsumer+x", ""));
    let clean = scrubber.headers(&headers);
    assert_eq!(clean["content-type"], "application/json");
    assert_eq!(clean["set-cookie"], REDACTED);
    assert_eq!(clean["x-client-secret"], REDACTED);
    assert_eq!(clean["x-echo"], "key [redacted]");
    // A header named with a known secret, as is, inside a name or percent-encoded (HTTP writes
    // names in lower case): shown renamed, without its value.
    let secret = "C0nsumerSecr3t";
    for name in [
        secret.to_ascii_lowercase(),
        format!("x-{}-echo", secret.to_ascii_lowercase()),
        secret.bytes().map(|b| format!("%{b:02x}")).collect(),
    ] {
        let mut echoed = HeaderMap::new();
        echoed.insert("content-type", HeaderValue::from_static("text/plain"));
        echoed.insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_static("1"),
        );
        let scrubber = Scrubber::new(KnownSecrets::new(secret, ""));
        let clean = scrubber.headers(&echoed);
        let names: Vec<&str> = clean.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["content-type", REDACTED_HEADER.as_str()], "{name}");
        assert_eq!(clean[REDACTED_HEADER], REDACTED);
    }
    let mut plain = HeaderMap::new();
    plain.insert(
        "date",
        HeaderValue::from_static("Wed, 21 Jan 2026 13:52:18 GMT"),
    );
    assert!(matches!(scrubber.headers(&plain), Cow::Borrowed(_)));
}

#[test]
fn urls_lose_user_info_and_oauth_values() {
    let scrubber = Scrubber::new(KnownSecrets::new("c0nsumer", ""));
    assert_eq!(
        scrubber.url("https://evil.example/cb?oauth_token=t&oauth_verifier=v&keep=1&k=c0nsumer#f"),
        "https://evil.example/cb?oauth_token=[redacted]&oauth_verifier=[redacted]&keep=1&k=[redacted]#f"
    );
    // User info, and anything else an `@` may end: what a reader could take for it goes.
    assert_eq!(
        scrubber.url("https://user:pw@evil.example/cb?oauth_verifier=v"),
        "https://[redacted]@evil.example/cb?[redacted]"
    );
    // Not a URL: what could be user info, query or fragment goes.
    assert_eq!(scrubber.url("/relative?password=x"), "/relative?[redacted]");
}

#[test]
fn configured_urls_lose_user_info_every_query_value_and_the_fragment() {
    let scrubber = Scrubber::new(KnownSecrets::new("c0nsumer", ""));
    for (given, shown) in [
        (
            "https://host.example/api?api_key=k3y&x=#frag",
            "https://host.example/api?[redacted]#[redacted]",
        ),
        // A bare credential, a credential as a name: the query goes whole.
        (
            "https://host.example/api?T0K3N",
            "https://host.example/api?[redacted]",
        ),
        (
            "https://host.example/api?v=2;T0K3N=#/T0K3N",
            "https://host.example/api?[redacted]#[redacted]",
        ),
        ("https://host.example/api?", "https://host.example/api"),
        (
            "https://ghp_t0ken@host.example/api?api_key=k3y&x=#frag",
            "https://[redacted]@host.example/api?[redacted]",
        ),
        (
            "http://us%40er:p%3Ass@[::1]:8080/",
            "http://[redacted]@[::1]:8080/",
        ),
        // A parser reads a host and a path, or a query, where a reader sees user info.
        ("https://us/er:pw@host/", "https://[redacted]@host/"),
        (
            "https://us?er:pw@host/?k=v",
            "https://[redacted]@host/?[redacted]",
        ),
        (
            "https://host/?a=1@x&api_key=k3y",
            "https://[redacted]@x&[redacted]",
        ),
        // Not URLs: a parser may still read user info in them.
        ("https://user:hunter2@ho st/", "https://[redacted]@ho st/"),
        (
            "https:user:hunter2@host:99999",
            "https:[redacted]@host:99999",
        ),
        (
            "HTTPS:\\\\user:hunter2@host:x",
            "HTTPS:\\\\[redacted]@host:x",
        ),
        (
            "https://user:hun?ter#2@host:x/",
            "https://[redacted]@host:x/",
        ),
        ("user:hunter2@host:x", "[redacted]@host:x"),
        ("https://host:x/?api_key=k3y", "https://host:x/?[redacted]"),
        ("https://host:x/#k3y", "https://host:x/#[redacted]"),
    ] {
        assert_eq!(scrubber.configured_url(given), shown, "{given}");
    }
}

#[test]
fn many_secret_words_are_read_in_one_pass() {
    // 40,000 words (the case that took 24 s with a rescan from each hit): each `secret=x`
    // pair loses its value, the prose is kept.
    let text = "a secret and secret=x ".repeat(40_000);
    let cleaned = structural(&text);
    assert_eq!(cleaned.matches("[redacted]").count(), 40_000);
    assert!(!cleaned.contains("=x"));
}

#[test]
fn secret_named_values_go_in_the_shapes_of_logs_and_error_pages() {
    for (text, expected) in [
        // XML: an element with attributes, a CDATA section, a nested element.
        (
            r#"<e><password type="string">v1 v2</password></e>"#,
            r#"<e><password type="string">[redacted]</password></e>"#,
        ),
        (
            "<e><client_secret><![CDATA[v]1]]]></client_secret></e>",
            "<e><client_secret><![CDATA[[redacted]]]></client_secret></e>",
        ),
        (
            r#"<password xml:space="preserve"><![CDATA[v1]]></password><ok/>"#,
            r#"<password xml:space="preserve"><![CDATA[[redacted]]]></password><ok/>"#,
        ),
        (
            "<secret><string>v1</string></secret>",
            "<secret><string>[redacted]</string></secret>",
        ),
        // An attribute of a secret-named element that is secret-named too.
        (
            r#"<password secret-kind="k1">v1</password>"#,
            r#"<password secret-kind="[redacted]">[redacted]</password>"#,
        ),
        // Empty elements hide nothing.
        (
            "<password/><password></password><n>1</n>",
            "<password/><password></password><n>1</n>",
        ),
        // Arrows: PHP, Perl and Ruby hashes, `print_r`.
        (
            r#"{"user" => "dana", "password" => "v1"}"#,
            r#"{"user" => "dana", "password" => "[redacted]"}"#,
        ),
        (
            "Array\n(\n    [passwd] => v1 v2\n    [user] => dana\n)",
            "Array\n(\n    [passwd] => [redacted]\n    [user] => dana\n)",
        ),
        // Command lines.
        (
            "login --user dana --password v1 --verbose",
            "login --user dana --password [redacted] --verbose",
        ),
        (
            "login --db-password=v1 -private-key \"v 2\"",
            "login --db-password=[redacted] -private-key \"[redacted]\"",
        ),
    ] {
        assert_eq!(structural(text), expected, "{text}");
    }
    // Prose that only mentions a word is kept. (`<password> is required` is an element by its
    // shape: its content goes, as an element cut short must.)
    for text in ["see the password --help", "a => b secret"] {
        assert_eq!(structural(text), text);
    }
}

#[test]
fn known_secrets_go_in_every_spelling_a_reader_undoes() {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    let secret = "clé-s3cr/t?k3y";
    let scrubber = Scrubber::new(KnownSecrets::new(secret, ""));
    let hex: String = secret.bytes().map(|b| format!("{b:02X}")).collect();
    let decomposed = secret.replace('é', "e\u{301}");
    for written in [
        decomposed.clone(),
        secret.to_ascii_uppercase(),
        hex,
        STANDARD.encode(secret),
        URL_SAFE_NO_PAD.encode(secret),
        // Inside a longer base64 text (`Basic user:secret`), at each offset.
        STANDARD.encode(format!("user:{secret}")),
        STANDARD.encode(format!("us:{secret}")),
        STANDARD.encode(format!("u:{secret}!")),
        // Escapes of every family, mixed.
        "cl&eacute;-s3cr&sol;t&quest;k3y".to_owned(),
        "cl&#xe9&#45s3cr&#X2F;t?k3y".to_owned(),
        r"cl\xc3\xa9-s3cr\u{2f}t?k3y".to_owned(),
    ] {
        let (cleaned, _) = clean(&scrubber, &format!("[{written}]!"));
        assert!(!cleaned.contains(&written), "{written}: {cleaned}");
        assert!(cleaned.contains(REDACTED), "{written}: {cleaned}");
    }
}

#[test]
fn a_body_that_is_not_the_text_the_scrubber_reads_is_withheld() {
    let scrubber = Scrubber::new(KnownSecrets::new("c0nsumer-secret", ""));
    let utf16: Vec<u8> = "key c0nsumer-secret"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut declared = HeaderMap::new();
    declared.insert(
        "content-type",
        HeaderValue::from_static("application/json; charset=utf-16le"),
    );
    let mut gzipped = HeaderMap::new();
    gzipped.insert("content-encoding", HeaderValue::from_static("gzip"));
    for (body, headers) in [
        (&utf16[..], &HeaderMap::new()),
        (b"{}", &declared),
        (b"{}", &gzipped),
    ] {
        let cleaned = scrubber.clean_body(body, headers);
        assert_eq!(cleaned.outcome, Outcome::Withheld, "{body:?} {headers:?}");
    }
    let cleaned = scrubber.clean_body(b"key c0nsumer-secret", &HeaderMap::new());
    assert_eq!(cleaned.into_string(), "key [redacted]");
}

/// A short secret (under `SHORT_SECRET` bytes) and a text of words, none of them the secret.
fn short_secret_and_words() -> impl proptest::strategy::Strategy<Value = (String, Vec<String>)> {
    use proptest::prelude::*;
    (
        "[a-z0-9]{1,7}",
        prop::collection::vec("[a-z0-9]{1,12}", 1..12),
    )
}

proptest::proptest! {
    /// The one rule of short secrets: removed where it stands alone, kept inside a longer run
    /// of letters and digits, so the text around stays readable.
    #[test]
    fn a_short_secret_goes_where_it_stands_alone_only(
        (secret, words) in short_secret_and_words(),
        glue in proptest::sample::select(vec![" ", ", ", "\n", "\": \"", "/"]),
    ) {
        let scrubber = Scrubber::new(KnownSecrets::new("", &secret));
        // Every word made longer with the secret inside it: kept as it is.
        let inside: Vec<String> = words.iter().map(|word| format!("x{word}{secret}{word}")).collect();
        let text = inside.join(glue);
        let (cleaned, outcome) = clean(&scrubber, &text);
        proptest::prop_assert_eq!(&cleaned, &text);
        proptest::prop_assert_eq!(outcome, Outcome::Unchanged);
        // The secret standing alone between them, as is and percent-encoded: removed.
        let encoded: String = secret.bytes().map(|b| format!("%{b:02X}")).collect();
        for alone in [secret.clone(), encoded] {
            let placed = format!("{}{glue}{alone}{glue}{}", inside.join(glue), words[0]);
            let (cleaned, _) = clean(&scrubber, &placed);
            let kept: Vec<&str> = cleaned.split(glue).collect();
            proptest::prop_assert!(!kept.contains(&alone.as_str()), "{} in {}", alone, cleaned);
            proptest::prop_assert!(kept.contains(&REDACTED), "{}", cleaned);
            for word in &inside {
                proptest::prop_assert!(cleaned.contains(word.as_str()), "{} lost in {}", word, cleaned);
            }
        }
        // Named, it goes wherever it is.
        let named = format!("oauth_token_secret=x{secret}x");
        proptest::prop_assert_eq!(clean(&scrubber, &named).0, "oauth_token_secret=[redacted]");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties of every class of text the scrubber reads, with generated secrets. The oracles
// (base64, hexadecimal, decompositions, escapes) are written here, not taken from the
// scrubber's own modules.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use proptest::prelude::*;

/// A secret of at least `SHORT_SECRET` bytes: letters, digits, punctuation, white space and
/// accented letters (which have decomposed forms).
fn long_secret() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9]{3}([éèüñ/+?&=:_ ~.-][a-zA-Z0-9]{2,4}){2,4}"
}

/// The canonical decomposition (NFD) of the accented letters [`long_secret`] uses.
fn decomposed(secret: &str) -> String {
    secret
        .replace('é', "e\u{301}")
        .replace('è', "e\u{300}")
        .replace('ü', "u\u{308}")
        .replace('ñ', "n\u{303}")
}

/// The spellings of a secret's bytes a reader takes for it.
#[derive(Clone, Copy, Debug)]
enum Spelling {
    AsIs,
    Decomposed,
    UpperCase,
    HexLower,
    HexUpper,
    Base64,
    Base64Unpadded,
    Base64UrlSafe,
    Base64UrlSafeUnpadded,
    /// Inside a longer base64 text (`Basic user:secret`), after `before` bytes.
    Base64Inside {
        before: usize,
    },
}

fn spelling() -> impl Strategy<Value = Spelling> {
    prop_oneof![
        Just(Spelling::AsIs),
        Just(Spelling::Decomposed),
        Just(Spelling::UpperCase),
        Just(Spelling::HexLower),
        Just(Spelling::HexUpper),
        Just(Spelling::Base64),
        Just(Spelling::Base64Unpadded),
        Just(Spelling::Base64UrlSafe),
        Just(Spelling::Base64UrlSafeUnpadded),
        (0..6usize).prop_map(|before| Spelling::Base64Inside { before }),
    ]
}

fn spelled(secret: &str, spelling: Spelling) -> String {
    let bytes = secret.as_bytes();
    let hex = |upper: bool| -> String {
        bytes
            .iter()
            .map(|b| {
                if upper {
                    format!("{b:02X}")
                } else {
                    format!("{b:02x}")
                }
            })
            .collect()
    };
    match spelling {
        Spelling::AsIs => secret.to_owned(),
        Spelling::Decomposed => decomposed(secret),
        Spelling::UpperCase => secret.to_ascii_uppercase(),
        Spelling::HexLower => hex(false),
        Spelling::HexUpper => hex(true),
        Spelling::Base64 => STANDARD.encode(bytes),
        Spelling::Base64Unpadded => STANDARD_NO_PAD.encode(bytes),
        Spelling::Base64UrlSafe => URL_SAFE.encode(bytes),
        Spelling::Base64UrlSafeUnpadded => URL_SAFE_NO_PAD.encode(bytes),
        Spelling::Base64Inside { before } => {
            STANDARD.encode(format!("{}:{secret}!?", &"dana:user"[..before]))
        }
    }
}

/// How one character of a spelling is written.
#[derive(Clone, Copy, Debug)]
enum Escape {
    Plain,
    Percent,
    JsonUnicode,
    JsonSolidus,
    HtmlDecimal,
    HtmlHexUpper,
    HtmlNamed,
    HexByte,
    BracedUnicode,
}

fn escape() -> impl Strategy<Value = Escape> {
    prop::sample::select(vec![
        Escape::Plain,
        Escape::Percent,
        Escape::JsonUnicode,
        Escape::JsonSolidus,
        Escape::HtmlDecimal,
        Escape::HtmlHexUpper,
        Escape::HtmlNamed,
        Escape::HexByte,
        Escape::BracedUnicode,
    ])
}

/// HTML5's named references of some characters a secret holds (a table of this test's own).
fn html_named(c: char) -> Option<&'static str> {
    Some(match c {
        '&' => "&amp;",
        '/' => "&sol;",
        '?' => "&quest;",
        '=' => "&equals;",
        ':' => "&colon;",
        '+' => "&plus;",
        '_' => "&lowbar;",
        '.' => "&period;",
        'é' => "&eacute;",
        'è' => "&egrave;",
        'ü' => "&uuml;",
        'ñ' => "&ntilde;",
        _ => return None,
    })
}

/// `text` with each character written as `escapes` (cycled) says, where that escape applies.
fn escaped(text: &str, escapes: &[Escape]) -> String {
    let mut out = String::new();
    for (c, escape) in text.chars().zip(escapes.iter().cycle()) {
        let mut utf8 = [0u8; 4];
        let bytes = c.encode_utf8(&mut utf8).as_bytes();
        match escape {
            Escape::Plain => out.push(c),
            Escape::Percent => bytes
                .iter()
                .for_each(|b| out.push_str(&format!("%{b:02X}"))),
            Escape::JsonUnicode => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            Escape::JsonSolidus if c == '/' => out.push_str("\\/"),
            Escape::HtmlDecimal => out.push_str(&format!("&#{};", c as u32)),
            Escape::HtmlHexUpper => out.push_str(&format!("&#X{:X};", c as u32)),
            Escape::HtmlNamed if html_named(c).is_some() => {
                out.push_str(html_named(c).unwrap_or_default());
            }
            Escape::HexByte => bytes
                .iter()
                .for_each(|b| out.push_str(&format!("\\x{b:02x}"))),
            Escape::BracedUnicode => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            Escape::JsonSolidus | Escape::HtmlNamed => out.push(c),
        }
    }
    out
}

/// Where a text the client hands on can hold an echoed secret.
#[derive(Clone, Copy, Debug)]
enum Shape {
    JsonMessage,
    FormPair,
    Html,
    Xml,
    Traceback,
    HeaderValue,
    RedirectUrl,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop::sample::select(vec![
        Shape::JsonMessage,
        Shape::FormPair,
        Shape::Html,
        Shape::Xml,
        Shape::Traceback,
        Shape::HeaderValue,
        Shape::RedirectUrl,
    ])
}

/// `written` placed in `shape` and handed through the channel of that shape.
fn through_channel(scrubber: &Scrubber<'_>, shape: Shape, written: &str) -> String {
    let text = |body: String| clean(scrubber, &body).0;
    match shape {
        Shape::JsonMessage => text(format!(
            r#"{{"error":{{"code":"E_X","message":"key {written} refused"}}}}"#
        )),
        Shape::FormPair => text(format!("error=E_X&detail={written}&n=1")),
        Shape::Html => text(format!(
            "<html><body><p>Your key: {written}</p></body></html>"
        )),
        Shape::Xml => text(format!("<error><detail>{written}</detail></error>")),
        Shape::Traceback => text(format!("Traceback: KeyError('{written}')")),
        Shape::HeaderValue => {
            let mut headers = HeaderMap::new();
            let value = HeaderValue::from_bytes(format!("echo {written}").as_bytes())
                .unwrap_or_else(|_| HeaderValue::from_static("unrepresentable"));
            headers.insert("x-echo", value);
            let cleaned = scrubber.headers(&headers);
            cleaned
                .iter()
                .map(|(name, value)| {
                    format!("{name}: {}", String::from_utf8_lossy(value.as_bytes()))
                })
                .collect()
        }
        // A URL carries its values percent-encoded: one more layer.
        Shape::RedirectUrl => scrubber.url(&format!(
            "https://evil.example/cb?state={}",
            percent_encoding::utf8_percent_encode(written, percent_encoding::NON_ALPHANUMERIC)
        )),
    }
}

proptest! {
    /// Every spelling of a known secret a reader undoes (as it is, decomposed, another ASCII
    /// case, hexadecimal, base64 in either alphabet, padded or not, alone or inside a longer
    /// base64 text), each character of it written plain or as any escape (percent, JSON
    /// `\u` and `\/`, HTML decimal, hexadecimal and named references, `\x`, `\u{…}`), in
    /// every channel's shape: none of it is left, and something was removed.
    #[test]
    fn every_spelling_of_a_known_secret_in_every_escape_and_shape_is_removed(
        secret in long_secret(),
        spelling in spelling(),
        escapes in prop::collection::vec(escape(), 1..8),
        shape in shape(),
    ) {
        let scrubber = Scrubber::new(KnownSecrets::new("", &secret));
        let spelled = spelled(&secret, spelling);
        let written = escaped(&spelled, &escapes);
        let shown = through_channel(&scrubber, shape, &written);
        prop_assert!(!shown.contains(&written), "{written:?} left in {shown:?}");
        prop_assert!(!shown.contains(&spelled), "{spelled:?} left in {shown:?}");
        prop_assert!(!shown.contains(&secret), "{secret:?} left in {shown:?}");
        prop_assert!(
            shown.contains(REDACTED) || shown.contains(WITHHELD_START),
            "{shown:?}"
        );
    }

    /// A known secret written as a response header's name (as it is, inside a longer name,
    /// percent-encoded, in hexadecimal): the header is shown renamed, without its value.
    #[test]
    fn a_known_secret_in_a_header_name_is_never_shown(
        secret in "[a-z0-9]{4,10}[!#$&'*+.^_|~-][a-z0-9]{4,10}",
        form in 0..4u8,
    ) {
        let name = match form {
            0 => secret.clone(),
            1 => format!("x-{secret}-echo"),
            2 => secret.bytes().map(|b| format!("%{b:02x}")).collect(),
            _ => secret.bytes().map(|b| format!("{b:02x}")).collect(),
        };
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_static("1"),
        );
        let scrubber = Scrubber::new(KnownSecrets::new(&secret, ""));
        let cleaned = scrubber.headers(&headers);
        for (shown, value) in cleaned.iter() {
            prop_assert!(!shown.as_str().contains(&name), "{shown}");
            prop_assert!(!shown.as_str().contains(&secret), "{shown}");
            prop_assert!(!value.as_bytes().windows(secret.len()).any(|w| w == secret.as_bytes()));
        }
        prop_assert_eq!(cleaned.len(), 2);
        prop_assert!(cleaned.contains_key(REDACTED_HEADER));
    }

    /// A secret-named value in every shape logs and error pages write a name and its value:
    /// XML elements with attributes or CDATA, attributes, arrows (`=>`, `print_r`), command
    /// lines (`--name value`, `--name=value`), YAML, Python and JavaScript literals, INI; the
    /// name in any case and separator spelling. The value goes, the rest of the text stays.
    #[test]
    fn a_secret_named_value_goes_in_every_shape_of_logs_and_pages(
        word in prop::sample::select(vec!["secret", "password", "passwd", "private_key", "oauth_verifier", "oauth_signature"]),
        prefix in prop::sample::select(vec!["", "client_", "oauth_token_", "db-", "X-"]),
        upper in any::<bool>(),
        value in "[a-z0-9]{8,16}",
        shape in 0..12u8,
    ) {
        let name = format!("{prefix}{word}");
        let name = if upper { name.to_ascii_uppercase() } else { name };
        let text = match shape {
            0 => format!(r#"<error><{name} type="string">{value}</{name}><user>dana</user></error>"#),
            1 => format!("<error><{name}><![CDATA[{value}]]></{name}><user>dana</user></error>"),
            2 => format!(r#"<{name} xml:space="preserve"><![CDATA[{value}]]></{name}><user>dana</user>"#),
            3 => format!(r#"<credentials user="dana" {name}="{value}"/>"#),
            4 => format!(r#"{{"user" => "dana", "{name}" => "{value}"}}"#),
            5 => format!("Array\n(\n    [user] => dana\n    [{name}] => {value}\n)\n"),
            6 => format!("exec: login --user dana --{name} {value} --verbose"),
            7 => format!("exec: login --user=dana --{name}={value} --verbose"),
            8 => format!("login failed\n{name}: {value}\nuser: dana"),
            9 => format!("KeyError: {{'user': 'dana', '{name}': '{value}'}}"),
            10 => format!(r#"{{user: "dana", {name}: "{value}"}}"#),
            _ => format!("[auth]\nuser = dana\n{name} = {value}\n"),
        };
        let (cleaned, outcome) = clean(&Scrubber::structural(), &text);
        prop_assert!(!cleaned.contains(&value), "{value} left in {cleaned:?}");
        prop_assert_eq!(outcome, Outcome::Redacted);
        prop_assert!(cleaned.contains("dana"), "{cleaned:?}");
    }

    /// Two known secrets where one extends the other (a prefix or a suffix of it), in either
    /// of the two sets (the call's and the remembered ones): no part of the longer is left.
    #[test]
    fn a_secret_extending_another_leaves_no_part_of_itself(
        base in "[a-z0-9]{8,12}",
        extra in "[a-z0-9]{8,12}",
        suffix in any::<bool>(),
        remembered_longer in any::<bool>(),
        same_set in any::<bool>(),
        escapes in prop::collection::vec(escape(), 1..4),
    ) {
        let longer = if suffix { format!("{extra}{base}") } else { format!("{base}{extra}") };
        let registry = SecretRegistry::new(&crate::Secret::new(if remembered_longer { &longer } else { &base }));
        let call = if remembered_longer { &base } else { &longer };
        let scrubber = if same_set {
            Scrubber::new(KnownSecrets::new(&base, &longer))
        } else {
            Scrubber::new(KnownSecrets::new("", call)).remembering(&registry)
        };
        let written = escaped(&longer, &escapes);
        let (cleaned, _) = clean(&scrubber, &format!(r#"{{"message":"your secret is {written}"}}"#));
        prop_assert!(!cleaned.contains(&extra), "{extra} left in {cleaned:?}");
        prop_assert!(!cleaned.contains(&base), "{base} left in {cleaned:?}");
    }

    /// A body a reader decodes before reading (a content coding, a charset other than UTF-8,
    /// a UTF-16 byte order mark, a NUL byte) is withheld whole, whatever it holds; the same
    /// text declared as UTF-8 is cleaned and kept.
    #[test]
    fn a_body_a_reader_would_decode_otherwise_is_withheld(
        secret in "[a-z0-9]{8,20}",
        words in prop::collection::vec("[a-z]{1,8}", 0..6),
        coding in prop::sample::select(vec!["gzip", "GZIP", "br", "deflate", "compress", "identity, gzip", "x-custom"]),
        charset in prop::sample::select(vec!["utf-16", "UTF-16LE", "\"iso-8859-1\"", "windows-1252", "utf-7", "shift_jis"]),
        which in 0..4u8,
    ) {
        let scrubber = Scrubber::new(KnownSecrets::new(&secret, ""));
        let text = format!("{} key {secret} refused", words.join(" "));
        let mut headers = HeaderMap::new();
        let mut body = text.clone().into_bytes();
        match which {
            0 => {
                headers.insert("content-encoding", HeaderValue::from_static(coding));
            }
            1 => {
                let value = format!("application/json; charset={charset}");
                headers.insert("content-type", HeaderValue::from_str(&value).unwrap());
            }
            2 => {
                body = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
            }
            _ => body.insert(body.len() / 2, 0),
        }
        let cleaned = scrubber.clean_body(&body, &headers);
        prop_assert_eq!(cleaned.outcome, Outcome::Withheld);
        let note = cleaned.into_string();
        // The note says its length and why (the reason of this reading), and is the
        // scrubber's own word: cleaning it again changes nothing, whatever the secret.
        let reason = legible::Illegible::ALL[usize::from(which)].reason();
        prop_assert_eq!(
            &note,
            &format!("{WITHHELD_START}{}{WITHHELD_END}: {reason}]", body.len())
        );
        let again = scrubber.clean(note.as_bytes());
        prop_assert_eq!(again.outcome, Outcome::Unchanged);
        for word in reason.split(' ').filter(|word| word.len() >= 4) {
            let word_scrubber = Scrubber::new(KnownSecrets::new(word, ""));
            prop_assert_eq!(word_scrubber.clean(note.as_bytes()).into_string(), note.clone());
        }
        let mut utf8 = HeaderMap::new();
        utf8.insert("content-type", HeaderValue::from_static("application/json; charset=utf-8"));
        utf8.insert("content-encoding", HeaderValue::from_static("identity"));
        let kept = scrubber.clean_body(text.as_bytes(), &utf8).into_string();
        prop_assert_eq!(kept, text.replace(&secret, REDACTED));
    }
}

proptest! {
    /// A short secret of digits written as a number with zeros and an exponent
    /// (`584224e0`, `0.584224e6`, `5842240e-1`, in a JSON value or text) is a number a reader
    /// may take for the secret: removed. The same digits inside a longer run of digits, or
    /// followed by an `e` that is no exponent (a word), are kept.
    #[test]
    fn a_short_secret_of_digits_written_as_a_number_goes(
        digits in "[1-9][0-9]{0,6}",
        zeros in 0usize..4,
        sign in prop::sample::select(vec!["", "+", "-"]),
        exponent in 0u32..20,
        before in prop::sample::select(vec!["", "0.", "-", "\"apiVersion\":", " "]),
        upper in any::<bool>(),
    ) {
        let scrubber = Scrubber::new(KnownSecrets::new("", &digits));
        let e = if upper { "E" } else { "e" };
        let number = format!("{before}{digits}{}{e}{sign}{exponent}", "0".repeat(zeros));
        let (cleaned, outcome) = clean(&scrubber, &format!("{{\"v\": {number}, \"n\": 1}}"));
        let mantissa = format!("{digits}{}{e}", "0".repeat(zeros));
        prop_assert!(!cleaned.contains(&mantissa), "{mantissa} left in {cleaned}");
        prop_assert_eq!(outcome, Outcome::Redacted);
        for word in [format!("9{digits}e{exponent}"), format!("{digits}{e}x{exponent}"), format!("{digits}{e}{sign}")] {
            let text = format!("{{\"v\": \"{word}\"}}");
            prop_assert_eq!(clean(&scrubber, &text), (text.clone(), Outcome::Unchanged));
        }
    }
}

proptest! {
    // Each case cleans up to 16 KiB of costly text four times.
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A scrubber's deadline only ever withholds: whatever the text and wherever the deadline
    /// falls (passed, during the reading, far), each text is either cleaned exactly as
    /// without a deadline or withheld whole, and once it stopped it says so.
    #[test]
    fn a_deadline_only_ever_withholds(
        secret in long_secret(),
        units in prop::collection::vec(
            prop::sample::select(vec!["secret=%25252F\\u0025&amp; ", "plain words ", "{\"k\": 1} "]),
            1..600,
        ),
        at in 0usize..600,
        deadline_in in prop::sample::select(vec![-1i64, 0, 1, 200, 60_000]),
    ) {
        let mut text: String = units.concat();
        let at = text.char_indices().map(|(i, _)| i).nth(at).unwrap_or(text.len());
        text.insert_str(at, &secret);
        let free = Scrubber::new(KnownSecrets::new("", &secret));
        let expected = clean(&free, &text);
        let now = Instant::now();
        let deadline = if deadline_in < 0 {
            now.checked_sub(std::time::Duration::from_millis(1))
        } else {
            now.checked_add(std::time::Duration::from_micros(deadline_in as u64))
        };
        let bounded = Scrubber::new(KnownSecrets::new("", &secret)).until(deadline);
        // Three texts in a row: the count of what was read goes across them.
        for _ in 0..3 {
            let shown = clean(&bounded, &text);
            if shown.1 == Outcome::Withheld && expected.1 != Outcome::Withheld {
                prop_assert!(bounded.stopped(), "withheld without having stopped");
                prop_assert!(!shown.0.contains(&secret));
            } else {
                prop_assert_eq!(&shown, &expected);
            }
        }
        if deadline_in < 0 && text.len() >= CHECK_EVERY {
            prop_assert!(bounded.stopped(), "a deadline passed before {} bytes", text.len());
            prop_assert_eq!(clean(&bounded, &text).1, Outcome::Withheld);
        }
    }
}

/// A stopped scrubber withholds every later text it reads in full, whatever its size: a
/// hook that reads ninety headers after the deadline gets each withheld at once.
#[test]
fn after_its_deadline_a_scrubber_withholds_every_text_it_reads() {
    let deadline = Instant::now().checked_sub(std::time::Duration::from_millis(1));
    let scrubber = Scrubber::new(KnownSecrets::new("", "c0nsumer-secret")).until(deadline);
    assert!(!scrubber.stopped(), "nothing read yet");
    let long = "a%20b ".repeat(CHECK_EVERY);
    assert_eq!(clean(&scrubber, &long).1, Outcome::Withheld);
    assert!(scrubber.stopped());
    for short in ["x%20y", "key c0nsumer-secret"] {
        assert_eq!(clean(&scrubber, short).1, Outcome::Withheld, "{short}");
    }
    // Text the scrubber need not read in full (no escape, no secret) is cleaned as ever.
    assert_eq!(
        clean(&scrubber, "plain"),
        ("plain".to_owned(), Outcome::Unchanged)
    );
}

/// Secrets of the shapes that make anchored threads pile up: periodic (`tttt…`, `abab…`),
/// short, digits, and ordinary ones.
fn any_secret() -> impl Strategy<Value = String> {
    prop_oneof![
        ("[a-c]{1,3}", 1usize..200).prop_map(|(unit, times)| unit.repeat(times)),
        "[0-9]{1,7}",
        "[a-z0-9]{1,7}",
        long_secret(),
    ]
}

/// A text without any escape (no `%`, `\` or `&`), holding the secrets here and there.
fn text_around(secrets: Vec<String>) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-zA-Z0-9 .,:;=\"{}e+-]{0,12}".prop_map(|text| text),
            prop::sample::select(secrets.clone()),
            prop::sample::select(secrets).prop_map(|s| format!("{s}0e-1")),
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    /// The two ways of finding known secrets agree wherever both apply: on a text in which no
    /// escape starts, one unanchored pass (`SecretSet::find_plain`, linear) finds exactly the
    /// spans the anchored threads (`KnownMatcher`, which also follow escapes) find, short
    /// secrets, digits before an exponent and periodic secrets included.
    #[test]
    fn on_text_without_escapes_one_pass_finds_what_the_threads_find(
        (secrets, text) in prop::collection::vec(any_secret(), 1..4)
            .prop_flat_map(|secrets| {
                let text = text_around(secrets.clone());
                (Just(secrets), text)
            }),
    ) {
        prop_assume!(!views::holds_escape(text.as_bytes()));
        let Ok(Some(set)) = known::SecretSet::build(secrets.iter().map(String::as_str), known::Lasting::No) else {
            return Err(TestCaseError::fail("the set builds"));
        };
        let mut threads = set.matcher();
        for unit in views::raw(text.as_bytes()) {
            threads.feed(unit);
        }
        let mut by_threads = threads.finish();
        let mut by_pass = Vec::new();
        prop_assert!(set.find_plain(text.as_bytes(), &Limits::default(), &mut by_pass).is_some());
        by_threads.sort_unstable();
        by_threads.dedup();
        by_pass.sort_unstable();
        by_pass.dedup();
        prop_assert_eq!(by_pass, by_threads, "{:?} in {:?}", secrets, text);
    }

    /// A periodic secret echoed in a body (a 4 KiB secret of one letter, with and without
    /// escapes) is cleaned, or, with escapes under a deadline 50 ms away, withheld at the
    /// deadline: never shown. Without escapes the deadline is a minute away, so what is judged
    /// is the outcome, not the machine's speed (a debug build on two loaded cores missed a
    /// 50 ms one); that the reading is linear is the `readers` bench's figure (BENCHMARKS.md,
    /// section 7), not a timed assertion here.
    #[test]
    fn a_periodic_secret_is_cleaned_by_the_deadline(
        unit in prop::sample::select(vec!["t", "ab", "abc"]),
        escaped in any::<bool>(),
    ) {
        let secret = unit.repeat(4096 / unit.len());
        let body = if escaped {
            format!("{{\"message\":\"no\\u0020invoice for {secret}\"}}")
        } else {
            format!("{{\"message\":\"no invoice for {secret}\"}}")
        };
        let within = std::time::Duration::from_millis(if escaped { 50 } else { 60_000 });
        let deadline = Instant::now().checked_add(within);
        let scrubber = Scrubber::new(KnownSecrets::new("", &secret)).until(deadline);
        let (cleaned, outcome) = clean(&scrubber, &body);
        prop_assert!(!cleaned.contains(&secret[..64]), "{}", &cleaned[..cleaned.len().min(200)]);
        if !escaped {
            prop_assert_eq!(outcome, Outcome::Redacted, "a text without escapes is cleaned");
        }
    }

}

proptest! {
    // Each case reads kilobytes of a secret's partial matches in a debug build: a few suffice.
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Without a deadline (`redact`), cleaning is linear in its text all the same: a text
    /// built to multiply a periodic secret's partial matches (the secret echoed in a text with
    /// escapes) is withheld once it costs more than a linear bound, where reading it through
    /// would cost the square of the secret's length; a text as long, with the same escape, that
    /// echoes a secret of no period is cleaned. Judged by outcome, not by time.
    #[test]
    fn without_a_deadline_a_text_too_costly_for_its_length_is_withheld(
        unit in prop::sample::select(vec!["t", "ab", "abc"]),
        echoes in 8usize..12,
        seed in any::<u64>(),
    ) {
        // A quarter of a token secret's bound: enough to pass the linear bound, few enough
        // that reading it through ends too (the test fails rather than hangs without it).
        let periodic = unit.repeat(1024 / unit.len());
        // A secret of no short period: letters drawn from a simple generator.
        let mut state = seed | 1;
        let aperiodic: String = (0..periodic.len())
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                char::from(b'a' + (state % 26) as u8)
            })
            .collect();
        for (secret, costly) in [(&periodic, true), (&aperiodic, false)] {
            let body = format!("{{\"message\":\"no\\u0020invoice for {}\"}}", secret.repeat(echoes));
            let scrubber = Scrubber::new(KnownSecrets::new("", secret));
            let (cleaned, outcome) = clean(&scrubber, &body);
            prop_assert!(!cleaned.contains(&secret[..64]), "{}", &cleaned[..cleaned.len().min(200)]);
            let expected = if costly { Outcome::Withheld } else { Outcome::Redacted };
            prop_assert_eq!(outcome, expected, "unit {:?}, periodic {}", unit, costly);
        }
    }
}

/// Pieces that make secret words with separators between their letters, in either case, and
/// near misses, among other bytes.
fn word_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(vec![
            "sec",
            "ret",
            "SeC",
            "rEt",
            "pass",
            "PASS",
            "word",
            "wd",
            "private",
            "key",
            "oauth",
            "signature",
            "verifier",
            "secre",
            "passw",
            "_",
            "-",
            ".",
            " ",
            "+",
            "__",
            "s",
            "t",
        ])
        .prop_map(|piece| piece.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..4),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// The word table answers as the words' definition: the text, its name separators left
    /// out and ASCII case ignored, holds a secret word.
    #[test]
    fn a_secret_word_is_found_exactly_where_the_definition_says(
        pieces in prop::collection::vec(word_piece(), 0..12),
    ) {
        let text = pieces.concat();
        let letters: Vec<u8> = text
            .iter()
            .filter(|byte| !is_name_separator(**byte))
            .map(u8::to_ascii_lowercase)
            .collect();
        let defined = SECRET_WORDS
            .iter()
            .any(|word| letters.windows(word.len()).any(|window| window == word.as_bytes()));
        prop_assert_eq!(has_secret_word(&text), defined, "{:?}", String::from_utf8_lossy(&text));
    }
}

/// `c` in the compatibility form `form` picks (none, full-width, mathematical bold, circled),
/// which NFKC reads back as `c`; `c` itself where the form has no such character.
fn compatible(c: char, form: u8) -> char {
    let from = |base: u32, first: char| char::from_u32(base + (u32::from(c) - u32::from(first)));
    let mapped = match form % 4 {
        1 if c.is_ascii_graphic() => from(0xFF01, '!'),
        2 if c.is_ascii_uppercase() => from(0x1D400, 'A'),
        2 if c.is_ascii_lowercase() => from(0x1D41A, 'a'),
        2 if c.is_ascii_digit() => from(0x1D7CE, '0'),
        3 if c.is_ascii_uppercase() => from(0x24B6, 'A'),
        3 if c.is_ascii_lowercase() => from(0x24D0, 'a'),
        _ => None,
    };
    mapped.unwrap_or(c)
}

/// What breaks a spelling where a reader sees no break, or one it skips: white space (ASCII,
/// no-break, ideographic), invisible characters, and (in a dump) the separators of bytes.
fn unseen_break() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " ", "\t", "\n", "\r\n", "\u{a0}", "\u{3000}", "\u{200b}", "\u{200c}", "\u{200d}",
        "\u{2060}", "\u{ad}", "\u{feff}", "\u{180e}",
    ])
}

/// How a spelling that only a folding reader takes for the secret is written.
#[derive(Clone, Debug)]
enum Folding {
    /// Each character in the compatibility form `forms` (cycled) picks, and a break inserted
    /// at each of `breaks`.
    Compatible {
        forms: Vec<u8>,
        breaks: Vec<(prop::sample::Index, &'static str)>,
    },
    /// Its bytes in base64 (after `before` bytes of a longer text), in lines `width` wide.
    Base64 {
        before: usize,
        width: usize,
        eol: &'static str,
    },
    /// Its bytes in hexadecimal, in groups `width` wide.
    Hex {
        upper: bool,
        width: usize,
        separator: &'static str,
    },
}

fn folding() -> impl Strategy<Value = Folding> {
    prop_oneof![
        (
            prop::collection::vec(0..4u8, 1..8),
            prop::collection::vec((any::<prop::sample::Index>(), unseen_break()), 0..5),
        )
            .prop_map(|(forms, breaks)| Folding::Compatible { forms, breaks }),
        (0..6usize, 1..16usize, unseen_break()).prop_map(|(before, width, eol)| Folding::Base64 {
            before,
            width,
            eol
        }),
        (
            any::<bool>(),
            1..16usize,
            prop_oneof![unseen_break(), Just(":"), Just("-")],
        )
            .prop_map(|(upper, width, separator)| Folding::Hex {
                upper,
                width,
                separator,
            }),
    ]
}

/// `text` broken every `width` characters by `separator`.
fn broken(text: &str, width: usize, separator: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(width.max(1))
        .map(|chunk| chunk.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(separator)
}

/// `secret` written as `folding` says, and what a folding reader finds of it in a text.
fn folding_spelled(secret: &str, folding: &Folding) -> (String, String) {
    match folding {
        Folding::Compatible { forms, breaks } => {
            // The first character in a compatibility form (a secret starts with a letter or a
            // digit, which full-width and bold forms have), so no other view reads it.
            let mut forms = forms.clone();
            forms[0] = 1 + forms[0] % 2;
            let mut chars: Vec<String> = secret
                .chars()
                .zip(forms.iter().cycle())
                .map(|(c, &form)| compatible(c, form).to_string())
                .collect();
            for (at, separator) in breaks {
                let at = at.index(chars.len());
                chars[at].push_str(separator);
            }
            (chars.concat(), read_back(secret))
        }
        Folding::Base64 { before, width, eol } => {
            let before = &"dana:user"[..*before];
            let encoded = STANDARD.encode(format!("{before}{secret}!?"));
            // The characters the secret's bytes alone decide.
            let first = (8 * before.len()).div_ceil(6);
            let last = 8 * (before.len() + secret.len()) / 6;
            (
                broken(&encoded, *width, eol),
                read_back(&encoded[first..last]),
            )
        }
        Folding::Hex {
            upper,
            width,
            separator,
        } => {
            let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
            let written = if *upper {
                hex.to_uppercase()
            } else {
                hex.clone()
            };
            (broken(&written, *width, separator), hex)
        }
    }
}

/// `text` as a folding reader takes it: NFKC, ASCII case ignored, and without what it does not
/// see or skips (white space, invisible characters, a dump's `:` and `-`, and `+`, which form
/// encoding makes of a space).
fn read_back(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    text.nfkc()
        .filter(|&c| {
            !c.is_whitespace()
                && !matches!(c, ':' | '-' | '+')
                && !matches!(
                    c,
                    '\u{ad}' | '\u{180e}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
                )
        })
        .collect::<String>()
        .to_ascii_lowercase()
}

proptest! {
    /// The folded view: a known secret written in compatibility characters (full-width,
    /// mathematical bold, circled), broken at random places by white space or invisible
    /// characters, or its bytes in base64 (alone or inside a longer text) or hexadecimal broken
    /// into lines or groups narrower than it, in every channel's shape, is not left for a
    /// reader who folds what it reads (percent-decoded first, as a URL's reader does), and
    /// something was removed. Each spelling here is one no other view reads.
    #[test]
    fn a_known_secret_in_a_spelling_only_folding_reads_is_removed(
        secret in "[a-zA-Z0-9]{5,9}([-/_. ]?[a-zA-Z0-9]{4,8})",
        folding in folding(),
        shape in shape(),
    ) {
        let scrubber = Scrubber::new(KnownSecrets::new("", &secret));
        let (written, needle) = folding_spelled(&secret, &folding);
        let shown = through_channel(&scrubber, shape, &written);
        let decoded = percent_encoding::percent_decode_str(&shown).decode_utf8_lossy();
        prop_assert!(
            !read_back(&decoded).contains(&needle),
            "{:?} ({:?}) left in {:?}",
            written,
            needle,
            shown
        );
        prop_assert!(
            shown.contains(REDACTED) || shown.contains(WITHHELD_START) || shown.contains("unrepresentable"),
            "{shown:?}"
        );
    }
}

/// A text whose folded view would be many times its size (every character folding to many:
/// U+FDFA, 3 bytes, to 33) is withheld rather than held in memory eleven times over; one such
/// character among other text is read as any.
#[test]
fn a_text_that_folds_to_many_times_its_size_is_withheld() {
    let scrubber = Scrubber::new(KnownSecrets::new("consumer-secret-1234", ""));
    let dense = "\u{FDFA}".repeat(10_000);
    assert_eq!(scrubber.clean(dense.as_bytes()).outcome, Outcome::Withheld);
    let long = "\u{FDFA}".repeat(SHORT_TEXT);
    assert_eq!(scrubber.clean(long.as_bytes()).outcome, Outcome::Withheld);
    let sparse = "one \u{FDFA} among other text, and a secret's neighbour: consumer-secret";
    assert_eq!(
        scrubber.clean(sparse.as_bytes()).outcome,
        Outcome::Unchanged
    );
    let with_secret = "one \u{FDFA} and ｃｏｎｓｕｍｅｒ-secret-1234 too";
    let (cleaned, outcome) = clean(&scrubber, with_secret);
    assert_eq!(outcome, Outcome::Redacted, "{cleaned}");
    assert!(!cleaned.contains("secret-1234"), "{cleaned}");
}
