//! The canary suite: no secret leaves the process, in any channel.
//!
//! Each case generates a client's secrets (consumer secret, request and access token secrets,
//! verifier, an API key a request hook adds and a cookie a call sets) and canaries (values only a hostile server knows, which it sends under
//! secret-named names), then plays a hostile service on a scripted stub: every answer of the
//! whole flow (request token, callback, access token, a data call, a paged stream,
//! revocation) embeds them in random places, encodings, name spellings and body shapes (JSON
//! valid or not: duplicate keys, trailing text, an invalid UTF-8 byte, nesting deeper than any
//! parser takes; form pairs; text; HTML; XML; JSON inside a JSON string; a secret as a name),
//! in headers (the content type among them), cookies and
//! redirect locations, and echoes the signature each request was sent with. Every channel is
//! watched at once: errors (`Display`, `Debug`, every cause), what request and response hooks
//! see (`Debug` of the whole exchange), the recording on disk (half the cases without a response
//! hook: the recorder then cleans each answer on its own thread), tracing at every level with the
//! HTTP stack's `log` records, the response metadata, and the `Debug` of every value the app
//! holds. None may show a secret or a canary, as written or in any encoding a reader could
//! undo (percent, form, JSON, HTML, Rust `Debug` escapes, one inside another).
//!
//! In a test binary of its own: the tracing subscriber is process-wide.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::TryStreamExt;
use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::recording::{Recorder, Rotation};
use marketplace_client::reqwest::header::{HeaderName, HeaderValue};
use marketplace_client::{CallOptions, Client, ConsumerCredentials, Error, RetryPolicy, Secret};
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

#[path = "support/leak.rs"]
mod leak;
use leak::leak;

// ---------------------------------------------------------------------------------------------
// What a hostile answer is made of.

/// Characters that break naive escaping, beside letters and digits.
const SPECIALS: &str = "&/?#[]@!$'()*+,;=% \"\\<>{}|^`~:é日";

/// A secret of the client: 10 to 24 characters, letters, digits and specials.
fn secret_value() -> impl Strategy<Value = String> {
    let chars: Vec<char> = SPECIALS
        .chars()
        .chain('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .collect();
    (
        "[A-Z]",
        prop::collection::vec(prop::sample::select(chars), 9..24),
    )
        .prop_map(|(first, rest)| format!("{first}{}", rest.into_iter().collect::<String>()))
}

/// A canary: a value only the server knows, sent under a secret-named name. Some hold a
/// space, a quote, a backslash or a separator in their middle, which a quoted value keeps
/// and a bare one ends at (the canary is then not whole in any text, and not found).
fn canary_value() -> impl Strategy<Value = String> {
    (
        "[a-z0-9]{7}",
        prop::sample::select(vec!["", "", " ", "\"", "\\", "&", "=", ";", "<", "é"]),
        "[a-z0-9]{7}",
    )
        .prop_map(|(head, middle, tail)| format!("cnry{head}{middle}{tail}"))
}

/// Names that mark a value secret, as a service might spell them.
const SECRET_NAMES: [&str; 11] = [
    "oauth_token_secret",
    "client_secret",
    "consumer_secret",
    "password",
    "Secret",
    "api_secret_key",
    "oauth_verifier",
    "oauth_signature",
    "user password",
    "db_passwd",
    "private_key",
];

/// How a value is written.
#[derive(Clone, Copy, Debug)]
enum Encoding {
    Raw,
    Percent,
    PercentLower,
    Form,
    PercentAll,
    Json,
    JsonAll,
    Html,
    HtmlNumeric,
    DoublePercent,
    PercentOfJson,
    /// Each character as it is, percent-encoded, JSON-escaped or an HTML reference, by the
    /// bits of the seed.
    Mixed(u64),
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Raw),
        Just(Encoding::Percent),
        Just(Encoding::PercentLower),
        Just(Encoding::Form),
        Just(Encoding::PercentAll),
        Just(Encoding::Json),
        Just(Encoding::JsonAll),
        Just(Encoding::Html),
        Just(Encoding::HtmlNumeric),
        Just(Encoding::DoublePercent),
        Just(Encoding::PercentOfJson),
        any::<u64>().prop_map(Encoding::Mixed),
    ]
}

const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

fn percent_all(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

fn json_inner(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_owned()
}

fn json_char(c: char) -> String {
    let mut units = [0u16; 2];
    c.encode_utf16(&mut units)
        .iter()
        .map(|unit| format!("\\u{unit:04x}"))
        .collect()
}

fn html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

impl Encoding {
    fn apply(self, text: &str) -> String {
        match self {
            Encoding::Raw => text.to_owned(),
            Encoding::Percent => percent(text),
            Encoding::PercentLower => lower_hex(&percent(text)),
            Encoding::Form => url::form_urlencoded::byte_serialize(text.as_bytes()).collect(),
            Encoding::PercentAll => percent_all(text),
            Encoding::Json => json_inner(text),
            Encoding::JsonAll => text.chars().map(json_char).collect(),
            Encoding::Html => html(text),
            Encoding::HtmlNumeric => text
                .chars()
                .map(|c| format!("&#{};", u32::from(c)))
                .collect(),
            Encoding::DoublePercent => percent(&percent(text)),
            Encoding::PercentOfJson => percent(&json_inner(text)),
            Encoding::Mixed(seed) => text
                .chars()
                .enumerate()
                .map(|(i, c)| match (seed >> ((2 * i) % 64)) & 3 {
                    0 => c.to_string(),
                    1 => percent_all(&c.to_string()),
                    2 => json_char(c),
                    _ => format!("&#x{:X};", u32::from(c)),
                })
                .collect(),
        }
    }

    /// The value written so that it stays inside a JSON string (escaped again when the
    /// encoding left a quote, a backslash or a control character in it).
    fn in_json_string(self, text: &str) -> String {
        let written = self.apply(text);
        if serde_json::from_str::<String>(&format!("\"{written}\"")).is_ok() {
            written
        } else {
            json_inner(&written)
        }
    }

    /// The value written so that it is a valid header value (percent-encoded when not).
    fn in_header(self, text: &str) -> String {
        let written = self.apply(text);
        if written.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            written
        } else {
            percent(&written)
        }
    }
}

fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut after_percent = 0;
    for c in encoded.chars() {
        if after_percent > 0 {
            out.push(c.to_ascii_lowercase());
            after_percent -= 1;
        } else {
            out.push(c);
            if c == '%' {
                after_percent = 2;
            }
        }
    }
    out
}

/// How a secret name is spelled.
#[derive(Clone, Copy, Debug)]
enum Spelling {
    AsIs,
    Upper,
    /// Characters chosen by the seed's bits escaped the shape's way (`\u00XX` in JSON, `%XX`
    /// in form pairs, `&#NN;` in HTML).
    Escaped(u64),
}

fn spelling() -> impl Strategy<Value = Spelling> {
    prop_oneof![
        Just(Spelling::AsIs),
        Just(Spelling::Upper),
        any::<u64>().prop_map(Spelling::Escaped),
    ]
}

/// Where something hostile goes.
#[derive(Clone, Debug)]
enum Plant {
    /// One of the client's secrets (0 consumer, 1 access token, 2 request token, 3 verifier,
    /// 4 the signature of the request being answered, 5 the app's API key header, 6 its
    /// cookie), written some way.
    Known { which: usize, encoding: Encoding },
    /// A canary under a secret-named name.
    Pair {
        name: &'static str,
        spelling: Spelling,
        canary: usize,
        encoding: Encoding,
        /// In JSON: 0 a string, 1 a bare value, 2 an object, 3 an array, 4 a duplicate key
        /// after it with an empty value.
        form: u8,
    },
}

fn plant(canaries: usize) -> impl Strategy<Value = Plant> {
    prop_oneof![
        (0..7usize, encoding()).prop_map(|(which, encoding)| Plant::Known { which, encoding }),
        (
            prop::sample::select(SECRET_NAMES.to_vec()),
            spelling(),
            0..canaries,
            encoding(),
            0..5u8
        )
            .prop_map(|(name, spelling, canary, encoding, form)| Plant::Pair {
                name,
                spelling,
                canary,
                encoding,
                form,
            }),
    ]
}

/// The shape of a body.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Json,
    /// JSON a strict parser refuses: 0 trailing text, 1 an invalid UTF-8 byte, 2 nesting 300
    /// deep after the plants, 3 cut short.
    BrokenJson(u8),
    /// A JSON document inside a JSON string.
    JsonInString,
    /// XML elements: `<name>value</name>`.
    Xml,
    Form,
    Text,
    Html,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Json),
        (0..4u8).prop_map(Shape::BrokenJson),
        Just(Shape::JsonInString),
        Just(Shape::Form),
        Just(Shape::Text),
        Just(Shape::Html),
        Just(Shape::Xml),
    ]
}

/// One hostile answer.
#[derive(Clone, Debug)]
struct Answer {
    status: u16,
    shape: Shape,
    plants: Vec<Plant>,
    /// Plants in headers (an echo header, a secret-named header, a cookie).
    header_plants: Vec<Plant>,
    /// A 3xx answer's location carries plants in its query.
    redirect: bool,
}

fn answer(canaries: usize) -> impl Strategy<Value = Answer> {
    (
        prop::sample::select(vec![200u16, 200, 200, 400, 401, 403, 500, 503]),
        shape(),
        prop::collection::vec(plant(canaries), 1..5),
        prop::collection::vec(plant(canaries), 0..3),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(status, shape, plants, header_plants, redirect)| Answer {
            status: if redirect { 302 } else { status },
            shape,
            plants,
            header_plants,
            redirect,
        })
}

/// One case: the client's secrets, the canaries and the answers of each endpoint.
#[derive(Clone, Debug)]
struct Case {
    consumer: String,
    access: String,
    request: String,
    verifier: String,
    /// Credentials the app sends in headers: an `X-Api-Key` a request hook adds to every
    /// attempt, and a session cookie the data call sets with `CallOptions::header`.
    api_key: String,
    cookie: String,
    canaries: Vec<String>,
    answers: Vec<Answer>,
    /// The callback URL handed to `verifier_from_callback`: 0 another token's, 1 not a URL.
    callback: u8,
    /// Whether the client has a response hook. Without one, the recorder cleans a successful
    /// data answer on its own thread, from the answer as it arrived and the call's secrets;
    /// with one, it gets the body the call cleaned for the hooks.
    response_hook: bool,
}

const CANARIES: usize = 4;

/// A credential an app puts in a header: visible ASCII, no separator of cookies or
/// parameters, at least `MIN_ECHOED_CREDENTIAL` (8) long.
fn header_credential() -> impl Strategy<Value = String> {
    "[A-Z][A-Za-z0-9!#$%&'*+.^_`|~:/@?-]{9,30}"
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            secret_value(),
            secret_value(),
            secret_value(),
            secret_value(),
        ),
        (header_credential(), header_credential()),
        prop::collection::vec(canary_value(), CANARIES),
        prop::collection::vec(answer(CANARIES), 8),
        0..2u8,
        any::<bool>(),
    )
        .prop_map(
            |(
                (consumer, access, request, verifier),
                (api_key, cookie),
                canaries,
                answers,
                callback,
                response_hook,
            )| Case {
                consumer,
                access,
                request,
                verifier,
                api_key,
                cookie,
                canaries,
                answers,
                callback,
                response_hook,
            },
        )
}

// ---------------------------------------------------------------------------------------------
// Writing an answer.

/// The values a plant can name.
struct Values<'a> {
    case: &'a Case,
    /// The signature of the request being answered.
    signature: String,
    /// Which of the client's secrets it holds when this answer arrives (a hostile server
    /// cannot make the client leak a secret it does not have yet): the others are written as
    /// the consumer secret.
    held: &'static [usize],
}

impl Values<'_> {
    fn known(&self, which: usize) -> &str {
        let which = if self.held.contains(&which) { which } else { 0 };
        match which {
            0 => &self.case.consumer,
            1 => &self.case.access,
            2 => &self.case.request,
            3 => &self.case.verifier,
            5 => &self.case.api_key,
            6 => &self.case.cookie,
            _ => &self.signature,
        }
    }
}

/// `name` spelled the shape's way.
fn spell(name: &str, spelling: Spelling, shape: Shape) -> String {
    match spelling {
        Spelling::AsIs => name.to_owned(),
        Spelling::Upper => name.to_ascii_uppercase(),
        Spelling::Escaped(seed) => name
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if (seed >> (i % 64)) & 1 == 0 {
                    return c.to_string();
                }
                match shape {
                    Shape::Json | Shape::BrokenJson(_) | Shape::JsonInString => json_char(c),
                    Shape::Form => percent_all(&c.to_string()),
                    Shape::Html => format!("&#{};", u32::from(c)),
                    Shape::Text | Shape::Xml => c.to_string(),
                }
            })
            .collect(),
    }
}

/// A plant as a JSON member (`"name": value`).
fn json_member(plant: &Plant, values: &Values<'_>, shape: Shape, index: usize) -> String {
    match plant {
        // A known secret as a value, or as a name.
        Plant::Known { which, encoding } if index % 2 == 0 => format!(
            "\"note{index}\": \"seen {} here\"",
            encoding.in_json_string(values.known(*which))
        ),
        Plant::Known { which, encoding } => format!(
            "\"{}\": {index}",
            encoding.in_json_string(values.known(*which))
        ),
        Plant::Pair {
            name,
            spelling,
            canary,
            encoding,
            form,
        } => {
            let name = spell(name, *spelling, shape);
            let value = encoding.in_json_string(&values.case.canaries[*canary]);
            match form {
                0 => format!("\"{name}\": \"{value}\""),
                1 => format!(
                    "\"{name}\": {}",
                    canary_digits(&values.case.canaries[*canary])
                ),
                2 => format!("\"{name}\": {{\"value\": \"{value}\", \"n\": [1, {{\"x\": 2}}]}}"),
                3 => format!("\"{name}\": [\"{value}\", {{\"v\": \"{value}\"}}]"),
                _ => format!("\"{name}\": \"{value}\", \"{name}\": \"\""),
            }
        }
    }
}

/// The digits of a canary, as a bare JSON number.
fn canary_digits(canary: &str) -> String {
    let digits: String = canary.bytes().map(|b| (b % 10).to_string()).collect();
    format!("9{digits}")
}

/// A plant as a `name=value` pair of a form, or a line of text.
fn pair_text(plant: &Plant, values: &Values<'_>, shape: Shape, index: usize) -> String {
    match plant {
        Plant::Known { which, encoding } => {
            format!("note{index}={}", encoding.apply(values.known(*which)))
        }
        Plant::Pair {
            name,
            spelling,
            canary,
            encoding,
            form,
        } => {
            let name = spell(name, *spelling, shape);
            let value = encoding.apply(&values.case.canaries[*canary]);
            match (shape, form % 3) {
                (Shape::Form, _) | (_, 0) => format!("{name}={value}"),
                (_, 1) => format!("{name}: {value}"),
                _ => format!("\"{name}\": \"{value}\""),
            }
        }
    }
}

fn body(answer: &Answer, values: &Values<'_>) -> (String, Vec<u8>) {
    let members: Vec<String> = answer
        .plants
        .iter()
        .enumerate()
        .map(|(i, plant)| json_member(plant, values, answer.shape, i))
        .collect();
    let envelope = |members: &[String]| {
        let (first, rest) = members.split_at(members.len().div_ceil(2));
        format!(
            r#"{{"api": "pay/getInvoice", "rcode": {}, "error": {{"code": "E_VALIDATION_INVALID_ID", "message": "bad", {}}}, "data": {{"invoice": {{"id": 9003, {}}}}}}}"#,
            if answer.status == 200 { 1 } else { 0 },
            first.join(", "),
            if rest.is_empty() {
                "\"k\": 1".to_owned()
            } else {
                rest.join(", ")
            },
        )
    };
    let lines = || -> Vec<String> {
        answer
            .plants
            .iter()
            .enumerate()
            .map(|(i, plant)| pair_text(plant, values, answer.shape, i))
            .collect()
    };
    match answer.shape {
        Shape::Json => ("application/json".into(), envelope(&members).into_bytes()),
        Shape::BrokenJson(how) => {
            let mut body = envelope(&members).into_bytes();
            match how {
                0 => body.extend_from_slice(b" and then some text"),
                1 => body.splice(1..1, [0xff, b' ']).for_each(drop),
                2 => {
                    body.pop();
                    body.extend_from_slice(b", \"deep\": ");
                    body.extend(std::iter::repeat_n(b'[', 300));
                    body.extend(std::iter::repeat_n(b']', 300));
                    body.push(b'}');
                }
                _ => body.truncate(body.len() - 3),
            }
            ("application/json".into(), body)
        }
        Shape::JsonInString => (
            "application/json".into(),
            format!(
                r#"{{"rcode": 0, "error": {{"code": "E_X", "message": "{}"}}}}"#,
                json_inner(&envelope(&members))
            )
            .into_bytes(),
        ),
        Shape::Form => (
            "application/x-www-form-urlencoded".into(),
            format!("error=E_VALIDATION_INVALID_ID&{}", lines().join("&")).into_bytes(),
        ),
        Shape::Text => (
            "text/plain".into(),
            format!("E_VALIDATION_INVALID_ID\n{}\n", lines().join("\n")).into_bytes(),
        ),
        Shape::Xml => (
            "application/xml".into(),
            format!(
                "<error><code>E_VALIDATION_INVALID_ID</code>{}</error>",
                answer
                    .plants
                    .iter()
                    .enumerate()
                    .map(|(i, plant)| match plant {
                        Plant::Known { which, encoding } => {
                            format!(
                                "<note{i}>{}</note{i}>",
                                encoding.apply(values.known(*which))
                            )
                        }
                        Plant::Pair {
                            name,
                            spelling,
                            canary,
                            encoding,
                            ..
                        } => {
                            let name: String = spell(name, *spelling, Shape::Xml)
                                .chars()
                                .map(|c| if c == ' ' { '_' } else { c })
                                .collect();
                            let value = encoding.apply(&values.case.canaries[*canary]);
                            format!("<{name}>{value}</{name}>")
                        }
                    })
                    .collect::<String>()
            )
            .into_bytes(),
        ),
        Shape::Html => (
            "text/html".into(),
            format!(
                "<html><h1>E_VALIDATION_INVALID_ID</h1>{}</html>",
                lines()
                    .iter()
                    .map(|line| format!("<p>{line}</p>"))
                    .collect::<String>()
            )
            .into_bytes(),
        ),
    }
}

/// The answer as the stub sends it.
fn reply(answer: &Answer, values: &Values<'_>) -> Reply {
    let (content_type, body) = body(answer, values);
    let mut reply = Reply::bytes(answer.status, &content_type, body);
    for (i, plant) in answer.header_plants.iter().enumerate() {
        reply = match plant {
            Plant::Known { which, encoding } if i % 2 == 0 => reply.header(
                &format!("X-Echo-{i}"),
                &encoding.in_header(values.known(*which)),
            ),
            Plant::Known { which, encoding } => reply.header(
                "Content-Type",
                &format!(
                    "text/plain; charset={}",
                    encoding.in_header(values.known(*which))
                ),
            ),
            Plant::Pair {
                name,
                canary,
                encoding,
                form,
                ..
            } => {
                let value = encoding.in_header(&values.case.canaries[*canary]);
                let header_name: String = name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .collect();
                match form % 3 {
                    0 => reply.header(&format!("X-{header_name}"), &value),
                    1 => reply.header("Set-Cookie", &format!("session={value}; HttpOnly")),
                    _ => reply.header(
                        "WWW-Authenticate",
                        &format!("OAuth realm=\"x\", {header_name}=\"{value}\""),
                    ),
                }
            }
        };
    }
    if answer.redirect {
        let query: Vec<String> = answer
            .plants
            .iter()
            .enumerate()
            .map(|(i, plant)| match plant {
                Plant::Known { which, .. } => format!("n{i}={}", percent(values.known(*which))),
                Plant::Pair { name, canary, .. } => {
                    format!("{}={}", percent(name), values.case.canaries[*canary])
                }
            })
            .collect();
        reply = reply.header(
            "Location",
            &format!("https://evil.example/cb?{}", query.join("&")),
        );
    }
    reply
}

/// The signature a request was sent with, decoded.
fn signature_of(request: &RecordedRequest) -> String {
    let header = request.header("authorization").unwrap_or_default();
    let Some(at) = header.find("oauth_signature=\"") else {
        return String::new();
    };
    let value = &header[at + "oauth_signature=\"".len()..];
    let value = &value[..value.find('"').unwrap_or(value.len())];
    percent_encoding::percent_decode_str(value)
        .decode_utf8_lossy()
        .into_owned()
}

// ---------------------------------------------------------------------------------------------
// Watching every channel.

/// Everything a channel wrote, as text.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<String>>>);

impl Sink {
    fn push(&self, text: String) {
        self.0.lock().unwrap().push(text);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// Tracing output of the whole process, at every level.
#[derive(Clone, Default)]
struct TraceBuffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for TraceBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn traces() -> &'static TraceBuffer {
    static TRACES: OnceLock<TraceBuffer> = OnceLock::new();
    TRACES.get_or_init(|| {
        let buffer = TraceBuffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        tracing_log::LogTracer::init().unwrap();
        buffer
    })
}

/// An error as every reader may print it: `Display`, `Debug`, and each cause.
fn error_texts(error: &Error) -> Vec<String> {
    let mut texts = vec![
        error.to_string(),
        format!("{error:?}"),
        format!("{error:#?}"),
    ];
    let mut cause = std::error::Error::source(error);
    while let Some(source) = cause {
        texts.push(source.to_string());
        texts.push(format!("{source:?}"));
        cause = source.source();
    }
    texts
}

// ---------------------------------------------------------------------------------------------
// One case.

/// Runs the whole flow against the hostile stub; returns every channel's text and every
/// secret the answers could have echoed.
async fn run(
    case: &Case,
    stub: &StubServer,
    dir: &std::path::Path,
) -> (Vec<(String, String)>, Vec<(String, String)>) {
    let answers = Arc::new(Mutex::new(VecDeque::from(case.answers.clone())));
    let signatures = Arc::new(Mutex::new(Vec::new()));
    // What the client holds when each endpoint answers: the flow's order.
    // The API key goes with every call, the cookie with the invoice's only.
    const DATA: &[usize] = &[0, 1, 2, 3, 4, 5];
    for (path, held) in [
        ("/oauth/getRequestToken", &[0, 4, 5][..]),
        ("/oauth/getAccessToken", &[0, 2, 3, 4, 5][..]),
        ("/oauth/revokeToken", DATA),
        ("/api/pay/getInvoice", &[0, 1, 2, 3, 4, 5, 6][..]),
        ("/api/pay/getTimesheetsForBid", DATA),
    ] {
        let answers = Arc::clone(&answers);
        let signatures = Arc::clone(&signatures);
        let case = case.clone();
        stub.route(path, move |request| {
            let signature = signature_of(request);
            signatures.lock().unwrap().push(signature.clone());
            let answer = answers
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| case.answers[0].clone());
            reply(
                &answer,
                &Values {
                    case: &case,
                    signature,
                    held,
                },
            )
        });
    }

    let hooks = Sink::default();
    let (seen_request, seen_response) = (hooks.clone(), hooks.clone());
    let seen_later = hooks.clone();
    let api_key = case.api_key.clone();
    let recorder = Recorder::to_dir(dir, "canary", Rotation::default()).unwrap();
    let response_hook = case.response_hook;
    let mut client = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("app-key", case.consumer.clone()),
    )
    .allow_plain_http_oauth_on_loopback()
    .retry(
        RetryPolicy::default()
            .max_attempts(2)
            .base_delay(Duration::from_millis(1))
            .max_delay(Duration::from_millis(2))
            .max_retry_after(Duration::from_millis(1)),
    )
    .deadline(Duration::from_secs(10))
    .on_request(move |request| seen_request.push(format!("request hook: {request:?}")))
    // A hook that adds the app's key, and one after it that prints what it sees.
    .on_request(move |request| {
        request.headers_mut().insert(
            HeaderName::from_static("x-api-key"),
            HeaderValue::from_str(&api_key).unwrap(),
        );
    })
    .on_request(move |request| {
        seen_later.push(format!(
            "later request hook: {request:?} {:?}",
            request.headers()
        ))
    })
    .record(recorder.clone());
    if response_hook {
        client = client.on_response(move |response| {
            seen_response.push(format!(
                "response hook: {response:?} body {}",
                String::from_utf8_lossy(response.body().unwrap_or_default())
            ))
        });
    }
    let client = client.build().unwrap();

    let mut texts: Vec<(String, String)> = Vec::new();
    let mut outcome = |what: &str, result: Result<String, Error>| match result {
        Ok(shown) => texts.push((format!("{what} (its result)"), shown)),
        Err(error) => {
            for text in error_texts(&error) {
                texts.push((format!("{what} (its error)"), text));
            }
        }
    };

    let request = client.request_token(Some("myapp://cb")).await;
    outcome("request_token", request.map(|r| format!("{r:?}")));
    let request = RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new(case.request.clone()),
        callback_confirmed: true,
    };
    let callback = match case.callback {
        0 => format!(
            "myapp://cb?oauth_token=other&oauth_verifier={}&client_secret={}",
            percent(&case.verifier),
            case.canaries[0]
        ),
        // Not a URL (no scheme): the error shows what was given, without its secrets.
        _ => format!(
            "cb?oauth_token=request-token&oauth_verifier={}&client_secret={}",
            percent(&case.verifier),
            case.canaries[0]
        ),
    };
    outcome(
        "verifier_from_callback",
        client
            .verifier_from_callback(&request, &callback)
            .map(|v| format!("{v:?}")),
    );
    let verifier = Verifier::new(&case.verifier).unwrap();
    outcome("the verifier", Ok(format!("{verifier:?} {request:?}")));
    let access = client.access_token(&request, &verifier).await;
    outcome("access_token", access.map(|a| format!("{a:?}")));

    let session = client.session(AccessToken::new(
        "access-token",
        case.access.clone(),
        Timestamp::now(),
    ));
    outcome("the session", Ok(format!("{session:?} {client:?}")));
    let cookie = HeaderValue::from_str(&format!("theme=dark; session={}", case.cookie)).unwrap();
    let options = CallOptions::default().header(HeaderName::from_static("cookie"), cookie);
    outcome("the call options", Ok(format!("{options:?}")));
    let invoice = session
        .get_invoice(9003)
        .customize(|_| options)
        .send_with_metadata()
        .await;
    outcome(
        "get_invoice",
        invoice.map(|r| format!("{:?}", r.into_parts().1)),
    );
    let sheets = session
        .get_timesheets_for_bid(310001)
        .items()
        .try_collect::<Vec<_>>()
        .await;
    outcome(
        "a paged stream",
        sheets.map(|items| items.len().to_string()),
    );
    outcome("revoke", session.revoke().await.map(|()| String::new()));

    recorder.flush().unwrap();
    texts.push(("the recorder's stats".into(), format!("{recorder:?}")));
    drop(client);
    drop(recorder);
    let recordings = marketplace_client::files::OutputDir::open(dir).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        texts.push((format!("the recording {}", path.display()), text));
        recordings.remove(entry.file_name()).unwrap();
    }
    for text in hooks.take() {
        texts.push(("a hook".into(), text));
    }

    let mut secrets = vec![
        ("consumer secret".to_owned(), case.consumer.clone()),
        ("access token secret".to_owned(), case.access.clone()),
        ("request token secret".to_owned(), case.request.clone()),
        ("verifier".to_owned(), case.verifier.clone()),
        ("app's API key".to_owned(), case.api_key.clone()),
        ("app's cookie".to_owned(), case.cookie.clone()),
    ];
    for signature in signatures.lock().unwrap().iter() {
        secrets.push(("signature".to_owned(), signature.clone()));
    }
    for canary in &case.canaries {
        secrets.push(("canary".to_owned(), canary.clone()));
        secrets.push(("canary as digits".to_owned(), canary_digits(canary)));
    }
    (texts, secrets)
}

#[test]
fn no_secret_leaves_through_any_channel() {
    let traces = traces();
    let runtime = marketplace_tests::runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cases = std::env::var("CANARY_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(128);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    });
    runner
        .run(&case(), |case| {
            let (mut texts, secrets) = runtime.block_on(run(&case, &stub, dir.path()));
            let traced = std::mem::take(&mut *traces.0.lock().unwrap());
            texts.push((
                "tracing".into(),
                String::from_utf8_lossy(&traced).into_owned(),
            ));
            eprintln!(
                "texts {} bytes {}",
                texts.len(),
                texts.iter().map(|t| t.1.len()).sum::<usize>()
            );
            if let Some(leak) = leak(&texts, &secrets) {
                return Err(TestCaseError::fail(leak));
            }
            // The channels carried something: a recording, hooks and traces.
            prop_assert!(
                texts
                    .iter()
                    .any(|(channel, text)| channel.starts_with("the recording")
                        && text.contains("pay/getInvoice"))
            );
            prop_assert!(texts.iter().any(|(channel, _)| channel == "a hook"));
            prop_assert!(!traced.is_empty());
            Ok(())
        })
        .unwrap();
}

/// The detector finds what it looks for, in the readings it claims to undo.
#[test]
fn the_detector_sees_a_secret_in_every_encoding() {
    let secret = "Ab&c d/\"é\\x+y";
    let secrets = vec![("secret".to_owned(), secret.to_owned())];
    for encoding in [
        Encoding::Raw,
        Encoding::Percent,
        Encoding::PercentLower,
        Encoding::Form,
        Encoding::PercentAll,
        Encoding::Json,
        Encoding::JsonAll,
        Encoding::Html,
        Encoding::HtmlNumeric,
        Encoding::DoublePercent,
        Encoding::PercentOfJson,
    ] {
        let texts = vec![(
            "a channel".to_owned(),
            format!("before {} after", encoding.apply(secret)),
        )];
        assert!(leak(&texts, &secrets).is_some(), "{encoding:?}");
        let debugged = vec![("debug".to_owned(), format!("{:?}", encoding.apply(secret)))];
        assert!(leak(&debugged, &secrets).is_some(), "Debug of {encoding:?}");
    }
    let clean = vec![("a channel".to_owned(), "before [redacted] after".to_owned())];
    assert!(leak(&clean, &secrets).is_none());
}
