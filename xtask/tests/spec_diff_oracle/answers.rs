//! The answers oracle: every answer of the head server (each method's response, one variation
//! at a time) and every answer a witness shows, decoded by the real crates, against the
//! simulation's decoder model and its verdicts.

use std::io::Write as _;
use std::process::{Command, Stdio};

use super::*;
use marketplace_codegen::diff::answer::{self, Budget, Values};
use marketplace_codegen::diff::decode::{self, Value};
use marketplace_codegen::diff::wire::Json;
use marketplace_codegen::diff::{pairing, reading};
use marketplace_codegen::ir::{Record, Scalar, TypeRef};

/// Why an answer is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// A head answer, by the base crate.
    HeadByBase,
    /// A head answer, by the head crate.
    HeadByHead,
    /// The answer of a witness, by the base crate.
    Witness,
    /// A head page (three items, a page count of 7) read by the base crate's `Page` impl.
    Page,
}

/// The page count a head page of the page check carries.
const PAGE_COUNT: u64 = 7;

/// The items a head page of the page check carries.
const PAGE_ITEMS: usize = 3;

/// One decode by a real crate.
pub(crate) struct Decode {
    pub pair: usize,
    pub why: Why,
    /// Which head answer (for the head answers: its index among the pair's).
    pub answer: usize,
    pub method: String,
    pub variant: String,
    pub record: String,
    /// The record's type, for a response.
    pub ty: Option<TypeRef>,
    pub json: Json,
    /// `Ok(serialized)` or `Err(the decoder's message)`.
    pub result: Result<serde_json::Value, String>,
}

/// A decoder binary: the record types the oracle decodes (each method's response, each
/// witness's record), by variant and name, on answers read from stdin.
pub(crate) fn write_decoder(scratch: &Path, pairs: &[Pair]) {
    let mut types = BTreeSet::new();
    for pair in pairs {
        for (variant, api) in [
            (&pair.base_variant, &pair.base),
            (&pair.head_variant, &pair.head),
        ] {
            for method in &api.methods {
                types.insert((variant.clone(), method.response.as_str().to_owned()));
            }
        }
        for change in &pair.changes {
            if let Some(Witness::Answer { record, .. }) = &change.wire_witness {
                types.insert((pair.base_variant.clone(), record.clone()));
            }
        }
    }
    let mut arms = String::new();
    for (variant, ty) in types {
        let _ = writeln!(
            arms,
            "        ({variant:?}, {ty:?}) => decode::<marketplace_client::variants::{variant}::{ty}>(json),"
        );
    }
    // What each paged base method's `Page` impl reads from a page.
    let mut pages = BTreeSet::new();
    for pair in pairs {
        for method in pair.base.methods.iter().filter(|m| m.paging.is_some()) {
            pages.insert((
                pair.base_variant.clone(),
                method.response.as_str().to_owned(),
            ));
        }
    }
    for (variant, ty) in pages {
        let _ = writeln!(
            arms,
            "        ({variant:?}, \"page {ty}\") => page::<marketplace_client::variants::{variant}::{ty}>(json),"
        );
    }
    write_crate(
        &scratch.join("decode"),
        "decode",
        &["serde", "serde_json"],
        "main.rs",
        &format!(
            r#"//! Reads `variant<TAB>type<TAB>json` lines; answers `ok<TAB>serialized` or `error<TAB>…`.
use std::io::BufRead;

fn decode<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str) -> Result<String, String> {{
    let value: T = serde_json::from_str(json).map_err(|e| e.to_string())?;
    serde_json::to_string(&value).map_err(|e| e.to_string())
}}

/// How many items and what page count the type's `Page` impl reads, as JSON.
fn page<T: serde::de::DeserializeOwned + marketplace_client::paging::Page>(json: &str) -> Result<String, String> {{
    let value: T = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(format!("[{{}},{{}}]", value.items().len(), value.total_pages().map_or("null".to_owned(), |n| n.to_string())))
}}

fn main() {{
    for line in std::io::stdin().lock().lines() {{
        let line = line.unwrap();
        let mut parts = line.splitn(3, '\t');
        let (variant, ty, json) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let result = match (variant, ty) {{
{arms}        _ => Err(format!("no type {{ty}} in {{variant}}")),
        }};
        match result {{
            Ok(text) => println!("ok\t{{text}}"),
            Err(error) => println!("error\t{{}}", error.replace('\n', " ")),
        }}
    }}
}}
"#
        ),
    );
}

/// Every answer the oracle decodes, decoded.
pub(crate) fn decode_everything(built: &client_copy::Built, pairs: &[Pair]) -> Vec<Decode> {
    let mut decodes = Vec::new();
    for (index, pair) in pairs.iter().enumerate() {
        let mut answer_index = 0;
        for old in &pair.base.methods {
            let Some(new) = counterpart(old, &pair.head) else {
                continue;
            };
            let (Some(old_record), Some(new_record)) = (
                record(&pair.base, old.response.as_str()),
                record(&pair.head, new.response.as_str()),
            ) else {
                continue;
            };
            let answers = answer::answers(
                &pair.head,
                new_record,
                &new.name,
                &Values::from(1),
                &Budget::unlimited(),
            )
            .unwrap_or_default();
            for answer in answers {
                for (why, variant, name, ty) in [
                    (
                        Why::HeadByBase,
                        &pair.base_variant,
                        &old_record.name,
                        &old.response,
                    ),
                    (
                        Why::HeadByHead,
                        &pair.head_variant,
                        &new_record.name,
                        &new.response,
                    ),
                ] {
                    decodes.push(Decode {
                        pair: index,
                        why,
                        answer: answer_index,
                        method: new.name.clone(),
                        variant: variant.clone(),
                        record: name.clone(),
                        ty: Some(TypeRef::Record(ty.clone())),
                        json: answer.json.clone(),
                        result: Err(String::new()),
                    });
                }
                answer_index += 1;
            }
        }
        // A page of each paged base method's counterpart, as the head server sends it: three
        // items in the head's items field, 7 in its page-count field.
        for old in pair.base.methods.iter().filter(|m| m.paging.is_some()) {
            let Some(new) = counterpart(old, &pair.head) else {
                continue;
            };
            let Some(new_record) = record(&pair.head, new.response.as_str()) else {
                continue;
            };
            let reader = Reader::of(&pair.base, old, &pair.head, new);
            let items_field = match &new.paging {
                Some(paging) => Some(paging.items.as_str().to_owned()),
                // Unpaged, the whole list is in the field the old items field is paired with.
                None => record(&pair.base, old.response.as_str()).and_then(|o| {
                    let wire = old.paging.as_ref()?.items.as_str().to_owned();
                    let at = o.fields.iter().position(|f| f.wire_name == wire)?;
                    Some(pairing::meant(o, new_record)[at]?.wire_name.clone())
                }),
            };
            let count_field = new
                .paging
                .as_ref()
                .and_then(|p| p.total_pages.as_ref().map(|t| t.as_str().to_owned()));
            let Json::Object(entries) = answer::baseline(
                &pair.head,
                new_record,
                &new.name,
                &Values::from(1),
                &Budget::unlimited(),
            ) else {
                continue;
            };
            let entries = entries
                .into_iter()
                .map(|(key, value)| {
                    let value = match &value {
                        Json::List { keyed, items } if Some(&key) == items_field.as_ref() => {
                            Json::List {
                                keyed: *keyed,
                                items: std::iter::repeat_n(
                                    items.first().cloned().unwrap_or(Json::Null),
                                    PAGE_ITEMS,
                                )
                                .collect(),
                            }
                        }
                        _ if Some(&key) == count_field.as_ref() => {
                            Json::Number(PAGE_COUNT.to_string())
                        }
                        _ => value,
                    };
                    (key, value)
                })
                .collect();
            decodes.push(Decode {
                pair: index,
                why: Why::Page,
                answer: usize::MAX,
                method: format!("{} ({reader:?})", old.name),
                variant: pair.base_variant.clone(),
                record: format!("page {}", old.response),
                ty: None,
                json: Json::Object(entries),
                result: Err(String::new()),
            });
        }
        for change in &pair.changes {
            if let Some(Witness::Answer {
                method,
                record,
                json,
                ..
            }) = &change.wire_witness
            {
                let parsed: serde_json::Value = serde_json::from_str(json).expect("a JSON witness");
                decodes.push(Decode {
                    pair: index,
                    why: Why::Witness,
                    answer: usize::MAX,
                    method: method.clone(),
                    variant: pair.base_variant.clone(),
                    record: record.clone(),
                    ty: None,
                    json: Json::from_value(&parsed),
                    result: Err(String::new()),
                });
            }
        }
    }
    let decoder = built.executables.get("decode").expect("the decoder built");
    let mut input = String::new();
    for d in &decodes {
        let _ = writeln!(input, "{}\t{}\t{}", d.variant, d.record, d.json.to_text());
    }
    let mut child = Command::new(decoder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the decoder runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), decodes.len(), "one answer per decode");
    for (d, line) in decodes.iter_mut().zip(lines) {
        d.result = match line.split_once('\t') {
            Some(("ok", text)) => Ok(serde_json::from_str(text).expect("serialized JSON")),
            Some((_, error)) => Err(error.to_owned()),
            None => Err(line),
        };
    }
    decodes
}

fn record<'a>(api: &'a Api, name: &str) -> Option<&'a Record> {
    api.records.iter().find(|r| r.name == name)
}

/// The decoder model's prediction against every real decode, and the response verdicts
/// against the real crates' readings of the head answers.
pub(crate) fn check(pairs: &[Pair], decodes: &[Decode]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut misread: BTreeMap<usize, String> = BTreeMap::new();
    for d in decodes.iter().filter(|d| d.why == Why::Page) {
        failures.extend(page_read(&pairs[d.pair], d));
    }
    for d in decodes.iter().filter(|d| d.why != Why::Page) {
        let pair = &pairs[d.pair];
        let api = match d.why {
            Why::HeadByHead => &pair.head,
            _ => &pair.base,
        };
        let Some(r) = record(api, &d.record) else {
            failures.push(format!("{}: no record {} to decode", pair.name, d.record));
            continue;
        };
        // The model of this crate's decoder, against the real one.
        let model = decode::record(api, r, &d.json).map(decode::Read::value);
        let real = d.result.as_ref().map(|json| real_record(api, r, json));
        let agree = match (&model, &real) {
            (Ok(m), Ok(r)) => same(m, r),
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !agree {
            failures.push(format!(
                "{} (answers, {:?}): {} {} decoded by {}: the model says {}, the crate {}\n  {}",
                pair.name,
                d.why,
                d.method,
                d.record,
                d.variant,
                match &model {
                    Ok(v) => format!("{v:?}"),
                    Err(e) => format!("refused ({})", e.reason),
                },
                match &d.result {
                    Ok(json) => format!("{json}"),
                    Err(e) => format!("refuses ({e})"),
                },
                d.json.to_text()
            ));
        }
    }
    // The real readings of each head answer: the base crate's against the head crate's (or,
    // where the head crate refuses its own answer, what the server means by its wire names).
    let by_answer: BTreeMap<(usize, usize), Vec<&Decode>> = decodes
        .iter()
        .filter(|d| d.why == Why::HeadByBase || d.why == Why::HeadByHead)
        .fold(BTreeMap::new(), |mut map, d| {
            map.entry((d.pair, d.answer)).or_default().push(d);
            map
        });
    for ((pair_index, _), both) in &by_answer {
        let pair = &pairs[*pair_index];
        let (Some(old), Some(new)) = (
            both.iter().find(|d| d.why == Why::HeadByBase),
            both.iter().find(|d| d.why == Why::HeadByHead),
        ) else {
            continue;
        };
        let (Some(old_record), Some(new_record)) = (
            record(&pair.base, &old.record),
            record(&pair.head, &new.record),
        ) else {
            continue;
        };
        let (Some(old_ty), Some(new_ty)) = (&old.ty, &new.ty) else {
            continue;
        };
        let meant = match &new.result {
            Ok(json) => real_record(&pair.head, new_record, json),
            Err(_) => match decode::meant(&pair.head, new_record, &new.json) {
                Ok(read) => read.value(),
                Err(_) => continue,
            },
        };
        let finding = match &old.result {
            Err(error) => Some(format!("the base crate refuses it: {error}")),
            Ok(json) => {
                let got = real_record(&pair.base, old_record, json);
                let path = reading::differs(&pair.base, old_ty, &got, &pair.head, new_ty, &meant);
                // A value read otherwise is explained by a breaking response change of its
                // record (or of the method's response, or of an enum).
                if let Some(path) = &path {
                    let at = record_at(&pair.base, old_record, path);
                    let explained = pair.changes.iter().any(|c| {
                        c.wire == Impact::Breaking
                            && c.surface == Surface::Response
                            && (c.subject.starts_with(&format!("types.{at}."))
                                || c.subject.starts_with("methods.")
                                || c.subject.starts_with("enums.")
                                || c.subject.starts_with("types.")
                                    && renamed_from(pair, &at, &c.subject))
                    });
                    if !explained {
                        failures.push(format!(
                            "{} (answers): the real crates read {} {} otherwise at {} ({at}), and \
                             no breaking change of {at} says so\n  {}",
                            pair.name,
                            old.method,
                            old.record,
                            path.join("."),
                            old.json.to_text()
                        ));
                    }
                }
                path.map(|path| format!("the base crate reads otherwise at {}", path.join(".")))
            }
        };
        if let Some(finding) = finding {
            misread.entry(*pair_index).or_insert_with(|| {
                format!(
                    "{} {}: {finding}\n  {}",
                    old.method,
                    old.record,
                    old.json.to_text()
                )
            });
        }
    }
    for (index, pair) in pairs.iter().enumerate() {
        let tool = breaks(pair, Surface::Response);
        let oracle = misread.get(&index);
        if tool != oracle.is_some() {
            failures.push(format!(
                "{} (answers): the tool says {}, the real crates {}",
                pair.name,
                if tool {
                    "a response change breaks"
                } else {
                    "no response change breaks"
                },
                oracle.map_or(
                    "read every head answer as the head crate does".to_owned(),
                    |w| { format!("misread a head answer: {w}") }
                )
            ));
        }
    }
    failures
}

/// What the base crate's `Page` impl read from a head page, against what the paging
/// simulation's reader says it reads: the three items when it reads the head's items, another
/// count otherwise; the page count 7 when it reads the head's count, another or none
/// otherwise.
fn page_read(pair: &Pair, d: &Decode) -> Vec<String> {
    use marketplace_codegen::diff::paging::Source;
    let Some(old) = pair
        .base
        .methods
        .iter()
        .find(|m| d.method.starts_with(&format!("{} (", m.name)))
    else {
        return Vec::new();
    };
    let Some(new) = counterpart(old, &pair.head) else {
        return Vec::new();
    };
    let reader = Reader::of(&pair.base, old, &pair.head, new);
    // A page the base crate refuses for a value in it is the answers check's: the reader is
    // only about where the items and the count are read from.
    if d.result.is_err() && reader.items != Source::Nothing {
        return Vec::new();
    }
    let (items, count) = match &d.result {
        Ok(serde_json::Value::Array(read)) => (
            read.first().and_then(serde_json::Value::as_u64),
            read.get(1).and_then(serde_json::Value::as_u64),
        ),
        _ => (None, None),
    };
    let items_agree = match reader.items {
        Source::Meant => items == Some(PAGE_ITEMS as u64),
        Source::Unrelated => items.is_some_and(|n| n != PAGE_ITEMS as u64),
        Source::Nothing => items.is_none_or(|n| n == 0),
    };
    let count_agree = match reader.count {
        Some(Source::Meant) => count == Some(PAGE_COUNT),
        Some(Source::Unrelated) => count != Some(PAGE_COUNT) && count.is_some(),
        Some(Source::Nothing) | None => count.is_none() || items.is_none(),
    };
    if items_agree && count_agree {
        return Vec::new();
    }
    vec![format!(
        "{} (paging): the simulation reads {} pages through {reader:?}, the base crate's Page \
         impl reads {:?} items and the count {count:?} from {}",
        pair.name,
        old.name,
        items,
        d.json.to_text()
    )]
}

/// Two values, the same (an opaque record's object compared as JSON).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            serde_json::from_str::<serde_json::Value>(x).ok()
                == serde_json::from_str::<serde_json::Value>(y).ok()
        }
        (Value::Record(x), Value::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((n, v), (m, w))| n == m && same(v, w))
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// A number's text without trailing zeros (`12.50` is `12.5`, `-0` is `0`).
fn normalized(text: &str) -> String {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let whole = whole.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let zero = whole == "0" && fraction.is_empty();
    let mut out = String::new();
    if negative && !zero {
        out.push('-');
    }
    out.push_str(whole);
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

/// What a real crate's serialized value (its normalized form: JSON numbers, decimal strings,
/// ISO days, RFC 3339 instants, enum spellings, `null` for `None`) is, read by the spec.
pub(crate) fn real_value(api: &Api, ty: &TypeRef, json: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    if json.is_null() {
        return Value::None;
    }
    match (ty, json) {
        (TypeRef::Scalar(Scalar::String), J::String(s)) => Value::Text(s.clone()),
        (TypeRef::Scalar(Scalar::Boolean), J::Bool(b)) => Value::Bool(*b),
        (TypeRef::Scalar(_), J::Number(n)) => Value::Number(normalized(&n.to_string())),
        (TypeRef::Scalar(Scalar::Date), J::String(s)) => {
            if s.len() == 10 {
                Value::Day(s.clone())
            } else {
                let instant: marketplace_client::jiff::Timestamp =
                    s.parse().expect("an RFC 3339 instant");
                Value::Instant(instant.as_second().to_string())
            }
        }
        (TypeRef::Scalar(_), J::String(s)) => Value::Number(normalized(s)),
        (TypeRef::Enum(name), J::String(s)) => {
            let variant = api
                .enums
                .iter()
                .find(|e| e.name == name.as_str())
                .and_then(|e| e.values.iter().find(|v| v.wire == *s))
                .map(|v| v.variant.clone());
            Value::Variant {
                variant,
                wire: s.clone(),
            }
        }
        (TypeRef::List(element), J::Array(items)) => {
            Value::List(items.iter().map(|i| real_value(api, element, i)).collect())
        }
        (TypeRef::Record(name), J::Object(_)) => match record(api, name.as_str()) {
            Some(r) => real_record(api, r, json),
            None => Value::Object(json.to_string()),
        },
        _ => Value::Object(json.to_string()),
    }
}

/// [`real_value`] of a record: its fields by their wire names (an opaque record's object
/// whole, as the model keeps it in its one field).
pub(crate) fn real_record(api: &Api, r: &Record, json: &serde_json::Value) -> Value {
    if r.opaque {
        return Value::Record(vec![("fields".to_owned(), Value::Object(json.to_string()))]);
    }
    Value::Record(
        r.fields
            .iter()
            .map(|f| {
                let value = json
                    .get(&f.wire_name)
                    .map_or(Value::None, |v| real_value(api, &f.ty, v));
                (f.rust_name.clone(), value)
            })
            .collect(),
    )
}

/// The record of the base crate a path below `record` ends in.
fn record_at(api: &Api, top: &Record, path: &[String]) -> String {
    let mut at = top;
    let mut steps = path.iter();
    while let Some(step) = steps.next() {
        let Some(field) = at.fields.iter().find(|f| f.rust_name == *step) else {
            break;
        };
        let mut ty = &field.ty;
        if let TypeRef::List(element) = ty {
            ty = element;
            steps.next();
        }
        match ty {
            TypeRef::Record(name) if steps.len() > 0 => match record(api, name.as_str()) {
                Some(inner) => at = inner,
                None => break,
            },
            _ => break,
        }
    }
    at.name.clone()
}

/// Whether `subject` (a head place) is a field of the head record a base record was renamed
/// to (a record of another name with the same fields).
fn renamed_from(pair: &Pair, base_record: &str, subject: &str) -> bool {
    let Some(head_record) = subject
        .strip_prefix("types.")
        .and_then(|rest| rest.split('.').next())
    else {
        return false;
    };
    pair.changes.iter().any(|c| {
        c.rule == diff::rule::TYPE_RENAMED
            && c.message == format!("type {base_record} was renamed {head_record}")
    })
}
