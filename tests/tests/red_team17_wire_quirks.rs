//! Red team 17: the client's reading of the API's wire quirks, at every sibling place.
//!
//! The property attacked (docs/bad-input.md, "A typed error that says what and where" and
//! "Tolerance where the reference is vague"; ARCHITECTURE.md "Decoders accept every documented
//! encoding of a type … Decoding never panics; errors name the offending value"): a documented
//! spelling is read to the right value; anything else is refused with `DecodeError` whose
//! `path` names the JSON path of the value — never read silently as another value, never a
//! panic.
//!
//! Every case starts from the fake's own answers (`marketplace_fake::data::respond`, the nine
//! data methods, ten bodies), decoded with `marketplace_client::decode` into the method's
//! `Envelope<T>`, and mutates one place at a time. Each place is classified by probing the
//! decoder itself (a number that takes `7.5` is a decimal, …), so no field list is hand-kept.
//! A read that succeeds is compared (typed `PartialEq`) with the same answer in its plain,
//! documented spelling (the "oracle"); a refusal must name the mutated path.
//!
//! Cases, and the sentence each holds the code to:
//! - `every_keyed_collection_*`: ARCHITECTURE.md "collections with gaps in their index keys |
//!   accepted in index order …; duplicate or non-canonical keys are errors", "a collection sent
//!   as `null` | an empty list"; bad-input.md "arrays as keyed objects, `{}`/`[]`/`null` as
//!   empty" (orders, gaps, keys "00", "-1", "1.0", " 1", "１", "٠", duplicates, `""`, `0`).
//! - `every_plain_id_array_*`: the same for `paymentIds`/`invoiceIds` (a list also takes a keyed
//!   object; spec/README.md "a list also takes a JSON array or `[]`").
//! - `every_numeric_field_*`: bad-input.md "numbers in strings with spaces, signs (`"+7"` …) or
//!   separators, numbers too large for their type or with more digits than it holds exactly";
//!   using-the-client.md "a value the type cannot hold exactly is an error, never a rounded
//!   value"; spec/README.md "`30.00` and `"30.00"` are the same `Decimal`".
//! - `every_epoch_field_*` / `every_day_field_*`: bad-input.md "invalid dates (`31-FEB-26`,
//!   `5-JAN-26`, lower-case months, epochs beyond year 9999)"; `DayOrInstant` rustdoc.
//! - `every_boolean_field_*`: "anything else is refused" (a boolean has no documented string
//!   spelling).
//! - `every_enum_field_keeps_*`: bad-input.md "unknown enum values … are kept"; spec/README.md
//!   "unknown wire values are kept in `Other(String)`" (case and white space variants are values
//!   the reference does not name, so they must be kept verbatim, not read as the named value).
//! - `duplicate_struct_keys_*`: a field sent twice with two values (the brief's "duplicated keys
//!   in the raw JSON"): either value read silently is "another value".
//! - `payload_names_*`: ARCHITECTURE.md "pay/getPayment's record documented as `invoice`, sent as
//!   `payment` | decoded from either name"; "pay/getBilling's properties … | modelled as sent".
//! - `random_*` (proptest, 64 cases): random combinations of the spellings above.
//! - `every_key_and_string_value_reads_the_same_when_written_with_json_escapes`: `\u` escapes
//!   spell the same JSON string (RFC 8259), in keys (fields, indexes, payload names) and values.
//! - `every_text_and_enum_field_refuses_text_that_is_not_unicode_at_its_path`: a byte that is not
//!   UTF-8, lone surrogates: refused at the path, never replaced.
//! - `every_number_in_exponent_form_*`: bad-input.md "An integer field takes a JSON number whose
//!   value is exactly a whole number in its range, however spelled"; huge exponents refused.
//! - `the_bytes_reader_*`: `decode` rustdoc "Any other body … is read as bytes by the second pass
//!   alone": the same tables through that reader (an unknown field holding a non-UTF-8 byte).
//! - `an_opaque_comment_*`: ARCHITECTURE.md "StatusReportCommentData fields not shown | `opaque:
//!   true`: the raw JSON object is kept"; using-the-client.md "a value the type cannot hold
//!   exactly is an error, never a rounded value"; "duplicate or non-canonical keys are errors".
//! - `every_string_or_number_field_*`: ARCHITECTURE.md "text with `string_or_number` (a number
//!   kept as its text)".
//! - `every_field_sent_null_or_left_out_*`: spec/README.md "absent, `null` … decode to `None`"
//!   only for `Option` fields: elsewhere no default value is read.
//! - `every_day_or_instant_field_*`: the `DayOrInstant` rustdoc's list of forms.
//! - `every_value_a_quirk_is_read_to_survives_its_own_normalized_form`: ARCHITECTURE.md
//!   "`decode(encode(x)) == x`".
//! - `a_real_call_*`: the same spellings through `Request::send` (scripted stub): the call reads
//!   what `decode` reads and its `Error::Decode` names the same method and path.
//! - `every_refusal_of_a_scalar_quotes_the_value_as_spelled_on_the_wire`: `DecodeError::message`
//!   rustdoc "the value as it was spelled on the wire … (…; on the wire: "1,000.00")".
//! - `every_plain_text_field_refuses_*`: spec/README.md "a JSON number is refused unless an
//!   encoding is read leniently".
//! - `every_date_field_sent_zero_*`, `every_optional_id_field_sent_zero_is_none`: the reference
//!   "A value of 0 in a date or ID field means none/unset"; using-the-client.md "`0` meaning
//!   none" among the quirks decoded.
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use marketplace_client::{
    BillingDetails, DecodeError, Envelope, InvoiceSummary, PaymentDetails, ProviderList,
    StatusReportDetails, StatusReportList, TimesheetDetails, TimesheetList, Workview, decode,
};
use marketplace_fake::data::respond;
use marketplace_fake::world::World;
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

// ---------------------------------------------------------------- a JSON tree that keeps order

/// JSON with ordered (possibly duplicated) object entries and scalars as raw text.
#[derive(Clone, Debug, PartialEq)]
enum J {
    Raw(String),
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
}

/// An object key starting with this is written as the JSON text after it (escapes kept).
const RAW_KEY: &str = "\u{1}raw:";
/// Written as the byte 0xFF (invalid UTF-8) in the body sent to the decoder.
const INVALID_BYTE: &str = "@@INVALID-FF@@";

/// The JSON string literal of `text` with every character written as a `\uXXXX` escape.
fn escaped(text: &str) -> String {
    let mut out = String::from('"');
    for u in text.encode_utf16() {
        let _ = write!(out, "\\u{u:04x}");
    }
    out.push('"');
    out
}

fn from_value(v: &Value) -> J {
    match v {
        Value::Object(m) => J::Obj(m.iter().map(|(k, v)| (k.clone(), from_value(v))).collect()),
        Value::Array(a) => J::Arr(a.iter().map(from_value).collect()),
        other => J::Raw(other.to_string()),
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn s(text: &str) -> J {
    J::Raw(quote(text))
}

fn raw(text: &str) -> J {
    J::Raw(text.to_owned())
}

fn text(j: &J) -> String {
    let mut out = String::new();
    write_j(j, &mut out);
    out
}

fn write_j(j: &J, out: &mut String) {
    match j {
        J::Raw(r) => out.push_str(r),
        J::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match k.strip_prefix(RAW_KEY) {
                    Some(r) => out.push_str(r),
                    None => out.push_str(&quote(k)),
                }
                out.push(':');
                write_j(v, out);
            }
            out.push('}');
        }
        J::Arr(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_j(v, out);
            }
            out.push(']');
        }
    }
}

fn at_mut<'a>(j: &'a mut J, path: &[String]) -> Option<&'a mut J> {
    let Some((first, rest)) = path.split_first() else {
        return Some(j);
    };
    match j {
        J::Obj(entries) => {
            let (_, v) = entries.iter_mut().find(|(k, _)| k == first)?;
            at_mut(v, rest)
        }
        J::Arr(items) => {
            let i: usize = first.parse().ok()?;
            at_mut(items.get_mut(i)?, rest)
        }
        J::Raw(_) => None,
    }
}

fn at<'a>(j: &'a J, path: &[String]) -> Option<&'a J> {
    let Some((first, rest)) = path.split_first() else {
        return Some(j);
    };
    match j {
        J::Obj(entries) => at(&entries.iter().find(|(k, _)| k == first)?.1, rest),
        J::Arr(items) => at(items.get(first.parse::<usize>().ok()?)?, rest),
        J::Raw(_) => None,
    }
}

fn replaced(body: &J, path: &[String], with: J) -> J {
    let mut b = body.clone();
    if let Some(slot) = at_mut(&mut b, path) {
        *slot = with;
    }
    b
}

/// A non-empty object whose keys are exactly "0".."n-1", or an empty object.
fn is_keyed(entries: &[(String, J)]) -> bool {
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_by_key(|k| k.parse::<usize>().unwrap_or(usize::MAX));
    keys.iter().enumerate().all(|(i, k)| *k == i.to_string())
}

fn keyed_in_order(entries: &[(String, J)]) -> Vec<J> {
    let mut v: Vec<(usize, J)> = entries
        .iter()
        .map(|(k, j)| (k.parse().unwrap_or(usize::MAX), j.clone()))
        .collect();
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, j)| j).collect()
}

#[derive(Clone, Debug)]
struct Place {
    path: Vec<String>,
    /// The path with every collection index replaced by `*`.
    schema: String,
}

#[derive(Default)]
struct Places {
    keyed: Vec<Place>,
    arrays: Vec<Place>,
    leaves: Vec<Place>,
}

fn walk(j: &J, path: &mut Vec<String>, schema: &mut Vec<String>, out: &mut Places) {
    let place = |path: &Vec<String>, schema: &Vec<String>| Place {
        path: path.clone(),
        schema: schema.join("."),
    };
    match j {
        J::Raw(_) => out.leaves.push(place(path, schema)),
        J::Obj(entries) => {
            let keyed = !path.is_empty() && is_keyed(entries);
            if keyed {
                out.keyed.push(place(path, schema));
            }
            for (k, v) in entries {
                path.push(k.clone());
                schema.push(if keyed { "*".into() } else { k.clone() });
                walk(v, path, schema, out);
                path.pop();
                schema.pop();
            }
        }
        J::Arr(items) => {
            out.arrays.push(place(path, schema));
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                schema.push("*".into());
                walk(v, path, schema, out);
                path.pop();
                schema.pop();
            }
        }
    }
}

/// The first and the last place of every schema path.
fn representatives(places: &[Place]) -> Vec<Place> {
    let mut by: BTreeMap<&str, Vec<&Place>> = BTreeMap::new();
    for p in places {
        by.entry(p.schema.as_str()).or_default().push(p);
    }
    let mut out = Vec::new();
    for v in by.values() {
        if let Some(f) = v.first() {
            out.push((*f).clone());
        }
        if v.len() > 1
            && let Some(l) = v.last()
        {
            out.push((*l).clone());
        }
    }
    out
}

// ---------------------------------------------------------------- the samples and decoding

struct Decoded {
    any: Box<dyn Any>,
    json: Value,
    /// The typed value serialized (its normalized form).
    encoded: Vec<u8>,
}

type DecodeFn = fn(&[u8]) -> Result<Decoded, DecodeError>;
type EqFn = fn(&dyn Any, &dyn Any) -> bool;

fn dec<T: DeserializeOwned + Serialize + 'static>(b: &[u8]) -> Result<Decoded, DecodeError> {
    let v: Envelope<T> = decode(b)?;
    let json = serde_json::to_value(&v).unwrap_or(Value::Null);
    let encoded = serde_json::to_vec(&v).unwrap_or_default();
    Ok(Decoded {
        any: Box::new(v),
        json,
        encoded,
    })
}

fn same<T: PartialEq + 'static>(a: &dyn Any, b: &dyn Any) -> bool {
    matches!(
        (a.downcast_ref::<Envelope<T>>(), b.downcast_ref::<Envelope<T>>()),
        (Some(a), Some(b)) if a == b
    )
}

struct Sample {
    name: String,
    body: J,
    dec: DecodeFn,
    eq: EqFn,
}

enum Run {
    Ok(Decoded),
    Err(DecodeError),
    Panic(String),
}

impl Sample {
    fn run(&self, body: &J) -> Run {
        let t = text(body);
        let bytes: Vec<u8> = if t.contains(INVALID_BYTE) {
            t.split(INVALID_BYTE)
                .map(str::as_bytes)
                .collect::<Vec<_>>()
                .join(&[0xFF_u8][..])
        } else {
            t.into_bytes()
        };
        match catch_unwind(AssertUnwindSafe(|| (self.dec)(&bytes))) {
            Ok(Ok(d)) => Run::Ok(d),
            Ok(Err(e)) => Run::Err(e),
            Err(p) => Run::Panic(
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default(),
            ),
        }
    }
}

fn kit<T>() -> (DecodeFn, EqFn)
where
    T: DeserializeOwned + Serialize + PartialEq + 'static,
{
    (dec::<T>, same::<T>)
}

fn day_text(d: jiff::civil::Date) -> String {
    const M: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    let m = usize::try_from(d.month()).unwrap_or(1).saturating_sub(1);
    format!(
        "{:02}-{}-{:02}",
        d.day(),
        M.get(m).copied().unwrap_or("JAN"),
        d.year().rem_euclid(100)
    )
}

/// A caller, a method, its parameters and its decoder.
type Call<'a> = (u64, &'a str, Vec<(String, String)>, (DecodeFn, EqFn));

fn samples() -> Vec<Sample> {
    let w = World::seeded();
    let h = w.hourly_workroom();
    let f = w.fixed_price_workroom();
    let sc = w.screenshots_workroom();
    let now = jiff::Timestamp::UNIX_EPOCH;
    let q = |v: &[(&str, String)]| {
        v.iter()
            .map(|(a, b)| ((*a).to_owned(), b.clone()))
            .collect::<Vec<_>>()
    };
    let first = |v: &Vec<u64>| v.first().copied().unwrap_or(0);
    let day = day_text(sc.screenshot_days.first().copied().unwrap_or_default());
    let calls: Vec<Call<'_>> = vec![
        (
            h.client,
            "pay/getTimesheetsForBid",
            q(&[("bidId", h.bid_id.to_string())]),
            kit::<TimesheetList>(),
        ),
        (
            f.client,
            "pay/getStatusReportsForBid",
            q(&[("bidId", f.bid_id.to_string())]),
            kit::<StatusReportList>(),
        ),
        (
            h.client,
            "pay/getTimesheet",
            q(&[("id", first(&h.timesheets).to_string())]),
            kit::<TimesheetDetails>(),
        ),
        (
            f.client,
            "pay/getStatusReport",
            q(&[("bidId", f.bid_id.to_string())]),
            kit::<StatusReportDetails>(),
        ),
        (
            f.client,
            "pay/getStatusReport",
            q(&[("id", first(&f.status_reports).to_string())]),
            kit::<StatusReportDetails>(),
        ),
        (
            h.client,
            "pay/getBilling",
            q(&[("id", first(&h.invoices).to_string())]),
            kit::<BillingDetails>(),
        ),
        (
            h.client,
            "pay/getInvoice",
            q(&[("id", first(&h.invoices).to_string())]),
            kit::<InvoiceSummary>(),
        ),
        (
            h.client,
            "pay/getPayment",
            q(&[("id", first(&h.payments).to_string())]),
            kit::<PaymentDetails>(),
        ),
        (
            h.client,
            "manage/getMyProviders",
            q(&[("rpp", "3".into())]),
            kit::<ProviderList>(),
        ),
        (
            sc.client,
            "workroom/getWorkviewDetails",
            q(&[
                ("bidId", sc.bid_id.to_string()),
                ("userId", sc.provider.to_string()),
                ("date", day),
                ("rpp", "2".into()),
            ]),
            kit::<Workview>(),
        ),
    ];
    let mut out: Vec<Sample> = calls
        .into_iter()
        .map(|(caller, method, params, (dec, eq))| {
            let reply = respond(&w, caller, method, &params, now);
            assert_eq!(reply.status, 200, "{method} {params:?}: {}", reply.body);
            let sample = Sample {
                name: format!("{method}?{params:?}"),
                body: from_value(&reply.body),
                dec,
                eq,
            };
            assert!(
                matches!(sample.run(&sample.body), Run::Ok(_)),
                "the fake's own answer decodes: {}",
                sample.name
            );
            sample
        })
        .collect();
    // pay/getTimesheet with comments (opaque records) and progress items, which the seeded
    // answer sends empty: the same collections, filled.
    let progress = out
        .iter()
        .find(|s| s.name.starts_with("pay/getStatusReport?"))
        .and_then(|s| at(&s.body, &["data".into(), "progressItems".into()]).cloned());
    if let Some(ts) = out.iter().find(|s| s.name.starts_with("pay/getTimesheet?")) {
        let comment = |id: &str, text: &str| {
            J::Obj(vec![
                ("id".into(), raw(id)),
                ("comment".into(), s(text)),
                ("userName".into(), s("dwhitfield")),
                ("created".into(), raw("1755993600")),
            ])
        };
        let mut body = replaced(
            &ts.body,
            &["data".into(), "comments".into()],
            J::Obj(vec![
                ("0".into(), comment("1", "Looks good")),
                ("1".into(), comment("2", "Thanks")),
            ]),
        );
        if let Some(p) = progress {
            body = replaced(&body, &["data".into(), "progressItems".into()], p);
        }
        let filled = Sample {
            name: "pay/getTimesheet (comments and progress items filled)?".into(),
            body,
            dec: ts.dec,
            eq: ts.eq,
        };
        assert!(
            matches!(filled.run(&filled.body), Run::Ok(_)),
            "the filled timesheet decodes"
        );
        out.push(filled);
    }
    out
}

/// The same answers with an unknown field holding a byte that is not UTF-8: `decode` reads
/// such a body with its second (bytes) reader alone (its rustdoc), so every quirk decoder runs
/// on the other reader.
fn bytes_reader_samples() -> Vec<Sample> {
    // Four answers between them hold every kind of place (a list page, the single timesheet
    // with every collection filled, the billing record, the nested workroom buckets).
    samples()
        .into_iter()
        .filter(|s| {
            [
                "pay/getTimesheetsForBid?",
                "pay/getTimesheet (comments",
                "pay/getBilling?",
                "workroom/getWorkviewDetails?",
            ]
            .iter()
            .any(|m| s.name.starts_with(m))
        })
        .filter_map(|sample| {
            let mut body = sample.body.clone();
            if let J::Obj(entries) = &mut body {
                entries.insert(0, ("zzUnknown".into(), raw(&format!("\"{INVALID_BYTE}\""))));
            }
            let variant = Sample {
                name: format!("(bytes reader) {}", sample.name),
                body,
                dec: sample.dec,
                eq: sample.eq,
            };
            matches!(variant.run(&variant.body), Run::Ok(_)).then_some(variant)
        })
        .collect()
}

// ---------------------------------------------------------------- expectations

#[derive(Clone, Debug)]
enum Expect {
    /// A documented spelling: must decode, to the same value as these oracle bodies' first
    /// that decodes (the body with the place in plain spelling).
    Same(J),
    /// Not documented either way: a read must equal one of the oracles (each decoded); a
    /// refusal must name the place.
    Lenient(Vec<J>),
    /// Must be refused with a path at or below the place.
    Refuse,
    /// Must decode, and the serialized value at the place must be this (when it is there).
    AcceptAs(Value),
    /// Null or absent on the wire: a read must leave the place null, absent or an empty list
    /// (an `Option` or a list), never a value; a refusal must name the place or its parent.
    NothingOrRefuse,
    /// An open-enum value: must decode, kept verbatim (serialized back as this text), and not
    /// equal to the answer with the named value.
    Kept(String),
}

struct Case {
    label: String,
    path: Vec<String>,
    /// The place a refusal must name (at or below).
    refuse_at: Vec<String>,
    body: J,
    expect: Expect,
}

fn json_at<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(v);
    };
    match v {
        Value::Object(m) => json_at(m.get(first)?, rest),
        Value::Array(a) => json_at(a.get(first.parse::<usize>().ok()?)?, rest),
        _ => None,
    }
}

fn path_ok(err: &DecodeError, place: &[String]) -> bool {
    if place.is_empty() {
        // The root: any path names a place in it.
        return true;
    }
    let p = place.join(".");
    err.path == p || err.path.starts_with(&format!("{p}."))
}

fn short(s: &str) -> String {
    s.chars().take(90).collect()
}

/// Checks one case; `None` when it holds, else what was observed.
fn check(sample: &Sample, case: &Case) -> Option<String> {
    let got = sample.run(&case.body);
    let wire = at(&case.body, &case.path).map(text).unwrap_or_default();
    let head = format!(
        "{} | {} | {} | wire {}",
        sample.name.split('?').next().unwrap_or_default(),
        case.path.join("."),
        case.label,
        short(&wire)
    );
    let decode_oracle = |o: &J| match sample.run(&replaced(&sample.body, &case.path, o.clone())) {
        Run::Ok(d) => Some(d),
        _ => None,
    };
    match (&case.expect, got) {
        (_, Run::Panic(p)) => Some(format!("{head} => PANIC {p}")),
        (Expect::Refuse, Run::Err(e)) | (Expect::Lenient(_), Run::Err(e)) => {
            (!path_ok(&e, &case.refuse_at)).then(|| {
                format!(
                    "{head} => refused at the wrong path `{}` (want `{}`): {}",
                    e.path,
                    case.refuse_at.join("."),
                    e.message
                )
            })
        }
        (Expect::NothingOrRefuse, Run::Err(e)) => (!path_ok(&e, &case.refuse_at)).then(|| {
            format!(
                "{head} => refused at the wrong path `{}` (want `{}`): {}",
                e.path,
                case.refuse_at.join("."),
                e.message
            )
        }),
        (Expect::NothingOrRefuse, Run::Ok(d)) => match json_at(&d.json, &case.path) {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if a.is_empty() => None,
            Some(v) => Some(format!(
                "{head} => READ as the value {}",
                short(&v.to_string())
            )),
        },
        (Expect::Refuse, Run::Ok(d)) => Some(format!(
            "{head} => READ, not refused; read as {}",
            short(
                &json_at(&d.json, &case.path)
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(not in the serialized value)".into())
            )
        )),
        (Expect::Lenient(oracles), Run::Ok(d)) => {
            let mut read = Vec::new();
            for o in oracles {
                if let Some(od) = decode_oracle(o) {
                    if (sample.eq)(d.any.as_ref(), od.any.as_ref()) {
                        return None;
                    }
                    read.push(text(o));
                }
            }
            Some(format!(
                "{head} => READ as {} which is none of the plain spellings' values {:?}",
                short(
                    &json_at(&d.json, &case.path)
                        .map(Value::to_string)
                        .unwrap_or_else(|| "(?)".into())
                ),
                oracles.iter().map(text).collect::<Vec<_>>()
            ))
        }
        (Expect::Same(o), Run::Ok(d)) => match decode_oracle(o) {
            Some(od) if (sample.eq)(d.any.as_ref(), od.any.as_ref()) => None,
            Some(_) => Some(format!(
                "{head} => read as {} but the plain spelling {} reads {}",
                short(
                    &json_at(&d.json, &case.path)
                        .map(Value::to_string)
                        .unwrap_or_default()
                ),
                short(&text(o)),
                short(
                    &decode_oracle(o)
                        .and_then(|od| json_at(&od.json, &case.path).cloned())
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                ),
            )),
            None => Some(format!("{head} => (oracle {} does not decode)", text(o))),
        },
        (Expect::Same(_), Run::Err(e))
        | (Expect::AcceptAs(_), Run::Err(e))
        | (Expect::Kept(_), Run::Err(e)) => Some(format!(
            "{head} => REFUSED a documented spelling: `{}`: {}",
            e.path, e.message
        )),
        (Expect::AcceptAs(want), Run::Ok(d)) => match json_at(&d.json, &case.path) {
            Some(v) if v != want => Some(format!("{head} => read as {v}, want {want}")),
            _ => None,
        },
        (Expect::Kept(want), Run::Ok(d)) => {
            let base = sample.run(&sample.body);
            if let Run::Ok(b) = base
                && (sample.eq)(d.any.as_ref(), b.any.as_ref())
            {
                return Some(format!(
                    "{head} => read as the NAMED value {} (not kept as Other({want:?}))",
                    short(&at(&sample.body, &case.path).map(text).unwrap_or_default())
                ));
            }
            match json_at(&d.json, &case.path) {
                Some(Value::String(v)) if v == want => None,
                Some(v) => Some(format!("{head} => kept as {v}, want {want:?}")),
                None => None,
            }
        }
    }
}

fn run_cases(samples: &[Sample], make: impl Fn(&Sample) -> Vec<Case>) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for sample in samples {
        for case in make(sample) {
            n += 1;
            if let Some(f) = check(sample, &case) {
                failures.push(f);
            }
        }
    }
    (n, failures)
}

/// Every leaf of every sample of one of `classes`, mutated and decoded: the cases of one kind of
/// place.
fn check_leaves(what: &str, classes: &[Class]) {
    let samples = samples();
    report(what, run_cases(&samples, |s| leaf_cases(s, classes)));
}

fn report(what: &str, (n, failures): (usize, Vec<String>)) {
    assert!(n > 0, "{what}: no case was generated");
    let mut msg = String::new();
    // Group by (method-less) label so the report shows each kind of failure once or twice.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for f in &failures {
        let parts: Vec<&str> = f.splitn(4, " | ").collect();
        let key = format!(
            "{} {}",
            parts.get(1).map(|p| schema_of(p)).unwrap_or_default(),
            parts.get(2).copied().unwrap_or_default()
        );
        let c = seen.entry(key).or_default();
        *c += 1;
        if *c <= 1 {
            let _ = writeln!(msg, "  {f}");
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {n} cases broke the property ({} distinct place/spelling kinds):\n{msg}",
        failures.len(),
        seen.len()
    );
}

fn schema_of(path: &str) -> String {
    path.split('.')
        .map(|s| if s.parse::<usize>().is_ok() { "*" } else { s })
        .collect::<Vec<_>>()
        .join(".")
}

// ---------------------------------------------------------------- leaf classification

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Decimal,
    Int,
    Epoch,
    Day,
    Bool,
    Enum,
    Text,
}

const NAMED_ENUM_VALUES: &[&str] = &[
    "Working",
    "CLIENT",
    "PROVIDER",
    "Draft",
    "Sent",
    "OK",
    "Released",
    "Invoice",
    "Milestone",
    "Hourly Milestone",
    "Hourly Other",
    "Release Request Sent",
];

fn unquote(raw_text: &str) -> Option<String> {
    serde_json::from_str::<String>(raw_text).ok()
}

fn is_dmy(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 9
        && b.get(2) == Some(&b'-')
        && b.get(6) == Some(&b'-')
        && t.get(3..6)
            .is_some_and(|m| m.bytes().all(|c| c.is_ascii_uppercase()))
}

fn ok_with(sample: &Sample, path: &[String], j: J) -> bool {
    matches!(sample.run(&replaced(&sample.body, path, j)), Run::Ok(_))
}

fn classify(sample: &Sample, place: &Place) -> Option<Class> {
    let J::Raw(base) = at(&sample.body, &place.path)? else {
        return None;
    };
    if base == "null" {
        return None;
    }
    let str_val = unquote(base);
    if ok_with(sample, &place.path, s("zz-not-a-value")) {
        return Some(match &str_val {
            Some(v) if NAMED_ENUM_VALUES.contains(&v.as_str()) => Class::Enum,
            _ => Class::Text,
        });
    }
    if str_val.as_deref().is_some_and(is_dmy) {
        return Some(Class::Day);
    }
    if ok_with(sample, &place.path, raw("7.5")) {
        return Some(Class::Decimal);
    }
    if ok_with(sample, &place.path, raw("7")) {
        if ok_with(sample, &place.path, raw("253402300800")) {
            return Some(Class::Int);
        }
        return Some(Class::Epoch);
    }
    if ok_with(sample, &place.path, raw("true")) {
        return Some(Class::Bool);
    }
    None
}

fn leaves_of(sample: &Sample) -> Vec<(Place, Class)> {
    let mut places = Places::default();
    walk(&sample.body, &mut Vec::new(), &mut Vec::new(), &mut places);
    representatives(&places.leaves)
        .into_iter()
        .filter_map(|p| classify(sample, &p).map(|c| (p, c)))
        .collect()
}

// ---------------------------------------------------------------- the spellings per class

fn leaf_case(place: &Place, label: &str, with: J, expect: Expect, body: &J) -> Case {
    Case {
        label: label.to_owned(),
        path: place.path.clone(),
        refuse_at: place.path.clone(),
        body: replaced(body, &place.path, with),
        expect,
    }
}

/// The number's text, whether it came as a JSON number or a string.
fn number_text(base: &str) -> String {
    unquote(base).unwrap_or_else(|| base.to_owned())
}

fn numeric_spellings(class: Class, base: &str) -> Vec<(&'static str, J, Expect)> {
    let n = number_text(base);
    let as_number = raw(&n);
    let mut v: Vec<(&'static str, J, Expect)> = vec![
        (
            "the other documented spelling (number <-> string)",
            if base.starts_with('"') {
                raw(&n)
            } else {
                s(&n)
            },
            Expect::Same(as_number.clone()),
        ),
        ("\"+n\"", s(&format!("+{n}")), Expect::Refuse),
        ("\" n\"", s(&format!(" {n}")), Expect::Refuse),
        ("\"n \"", s(&format!("{n} ")), Expect::Refuse),
        ("\"n\\n\"", s(&format!("{n}\n")), Expect::Refuse),
        ("\"\\u00a0n\"", s(&format!("\u{a0}{n}")), Expect::Refuse),
        ("\"0x10\"", s("0x10"), Expect::Refuse),
        ("\"1_000\"", s("1_000"), Expect::Refuse),
        ("\"1,000\"", s("1,000"), Expect::Refuse),
        ("\"1 000\"", s("1 000"), Expect::Refuse),
        ("Arabic-Indic digits", s("\u{661}\u{662}"), Expect::Refuse),
        ("fullwidth digits", s("\u{ff11}\u{ff12}"), Expect::Refuse),
        ("\"NaN\"", s("NaN"), Expect::Refuse),
        ("\"Infinity\"", s("Infinity"), Expect::Refuse),
        ("\"-Infinity\"", s("-Infinity"), Expect::Refuse),
        ("\"\" (empty string)", s(""), Expect::Refuse),
        ("\"12abc\"", s("12abc"), Expect::Refuse),
        ("number 1e99999", raw("1e99999"), Expect::Refuse),
        ("number -1e99999", raw("-1e99999"), Expect::Refuse),
        (
            "41-digit number",
            raw("99999999999999999999999999999999999999999"),
            Expect::Refuse,
        ),
        (
            "41-digit string",
            s("99999999999999999999999999999999999999999"),
            Expect::Refuse,
        ),
        ("true", raw("true"), Expect::Refuse),
        ("object", raw("{\"a\":1}"), Expect::Refuse),
        ("array", raw("[1]"), Expect::Refuse),
        (
            "\"n.\"",
            s(&format!("{n}.")),
            Expect::Lenient(vec![as_number.clone()]),
        ),
        ("\"-0\"", s("-0"), Expect::Lenient(vec![raw("0")])),
        ("number -0", raw("-0"), Expect::Lenient(vec![raw("0")])),
        ("\"1e3\"", s("1e3"), Expect::Lenient(vec![raw("1000")])),
        ("\"1E3\"", s("1E3"), Expect::Lenient(vec![raw("1000")])),
        ("number 1e3", raw("1e3"), Expect::Lenient(vec![raw("1000")])),
        (
            "number 1.0e1",
            raw("1.0e1"),
            Expect::Lenient(vec![raw("10")]),
        ),
        ("\"007\"", s("007"), Expect::Lenient(vec![raw("7")])),
        ("\"-5\"", s("-5"), Expect::Lenient(vec![raw("-5")])),
        ("\"5.0\"", s("5.0"), Expect::Lenient(vec![raw("5.0")])),
        ("\"0.50\"", s("0.50"), Expect::Lenient(vec![raw("0.50")])),
        ("\".5\"", s(".5"), Expect::Lenient(vec![raw("0.5")])),
    ];
    match class {
        Class::Decimal => v.extend([
            (
                "decimal with 31 fraction digits (number)",
                raw("0.1234567890123456789012345678901"),
                Expect::Refuse,
            ),
            (
                "decimal with 31 fraction digits (string)",
                s("0.1234567890123456789012345678901"),
                Expect::Refuse,
            ),
            (
                "1e-29 (number)",
                raw("0.00000000000000000000000000001"),
                Expect::Refuse,
            ),
            (
                "1e-29 (string)",
                s("0.00000000000000000000000000001"),
                Expect::Refuse,
            ),
            ("\"1e-999\"", s("1e-999"), Expect::Refuse),
            ("number 1e-999", raw("1e-999"), Expect::Refuse),
            (
                "2^96 (one past Decimal::MAX)",
                raw("79228162514264337593543950336"),
                Expect::Refuse,
            ),
            (
                "2^96 as a string",
                s("79228162514264337593543950336"),
                Expect::Refuse,
            ),
            (
                "29 significant digits whose mantissa passes 2^96-1",
                raw("7922816251426433759354395033.6"),
                Expect::Refuse,
            ),
            (
                "1.00000000000000000000000000001 (30 digits)",
                raw("1.00000000000000000000000000001"),
                Expect::Refuse,
            ),
            (
                "Decimal::MAX",
                raw("79228162514264337593543950335"),
                Expect::AcceptAs(Value::String("79228162514264337593543950335".into())),
            ),
            (
                "1e-28 in exponent form",
                raw("1e-28"),
                Expect::Lenient(vec![raw("0.0000000000000000000000000001")]),
            ),
            ("\"-0.0\"", s("-0.0"), Expect::Lenient(vec![raw("0.0")])),
        ]),
        Class::Int => v.extend([
            ("number 7.5", raw("7.5"), Expect::Refuse),
            ("\"7.5\"", s("7.5"), Expect::Refuse),
            (
                "number 7.000000000000000000001",
                raw("7.000000000000000000001"),
                Expect::Refuse,
            ),
            ("u64::MAX + 1", raw("18446744073709551616"), Expect::Refuse),
            (
                "\"u64::MAX + 1\"",
                s("18446744073709551616"),
                Expect::Refuse,
            ),
            ("number 2e19", raw("2e19"), Expect::Refuse),
            (
                "number 1e19",
                raw("1e19"),
                Expect::Lenient(vec![raw("10000000000000000000")]),
            ),
            ("number 7.0", raw("7.0"), Expect::Lenient(vec![raw("7")])),
            (
                "number 70e-1",
                raw("70e-1"),
                Expect::Lenient(vec![raw("7")]),
            ),
        ]),
        _ => {}
    }
    v
}

fn rfc3339(secs: i64, offset_minutes: i32, frac: &str) -> Option<String> {
    let ts = jiff::Timestamp::from_second(secs).ok()?;
    if offset_minutes == 0 {
        let z = ts.to_zoned(jiff::tz::TimeZone::UTC);
        return Some(format!("{}{frac}Z", z.strftime("%Y-%m-%dT%H:%M:%S")));
    }
    let off = jiff::tz::Offset::from_seconds(offset_minutes * 60).ok()?;
    let z = ts.to_zoned(jiff::tz::TimeZone::fixed(off));
    Some(format!(
        "{}{frac}{}",
        z.strftime("%Y-%m-%dT%H:%M:%S"),
        z.strftime("%:z")
    ))
}

fn epoch_spellings(base: &str) -> Vec<(&'static str, J, Expect)> {
    let n = number_text(base);
    let Ok(secs) = n.parse::<i64>() else {
        return Vec::new();
    };
    let plain = raw(&n);
    let mut v: Vec<(&'static str, J, Expect)> = vec![
        (
            "the other documented spelling (number <-> string)",
            if base.starts_with('"') {
                raw(&n)
            } else {
                s(&n)
            },
            Expect::Same(plain.clone()),
        ),
        ("\"+n\"", s(&format!("+{n}")), Expect::Refuse),
        ("\" n\"", s(&format!(" {n}")), Expect::Refuse),
        ("number n.5", raw(&format!("{n}.5")), Expect::Refuse),
        ("\"n.5\"", s(&format!("{n}.5")), Expect::Refuse),
        (
            "epoch past 9999 (number)",
            raw("253402300800"),
            Expect::Refuse,
        ),
        (
            "epoch past 9999 (string)",
            s("253402300800"),
            Expect::Refuse,
        ),
        ("number 1e20", raw("1e20"), Expect::Refuse),
        ("\"0000-00-00\"", s("0000-00-00"), Expect::Refuse),
        (
            "\"0000-00-00 00:00:00\"",
            s("0000-00-00 00:00:00"),
            Expect::Refuse,
        ),
        ("\"\"", s(""), Expect::Refuse),
        ("\"NaN\"", s("NaN"), Expect::Refuse),
        ("true", raw("true"), Expect::Refuse),
        ("Arabic-Indic digits", s("\u{661}\u{662}"), Expect::Refuse),
        (
            "\"+10000-01-01T00:00:00Z\"",
            s("+10000-01-01T00:00:00Z"),
            Expect::Refuse,
        ),
        (
            "number n.0",
            raw(&format!("{n}.0")),
            Expect::Lenient(vec![plain.clone()]),
        ),
        (
            "number ne0",
            raw(&format!("{n}e0")),
            Expect::Lenient(vec![plain.clone()]),
        ),
        (
            "\"n.0\"",
            s(&format!("{n}.0")),
            Expect::Lenient(vec![plain.clone()]),
        ),
        ("\"-1\"", s("-1"), Expect::Lenient(vec![raw("-1")])),
        (
            "last second of 9999",
            raw("253402300799"),
            Expect::Lenient(vec![raw("253402300799")]),
        ),
        (
            "\"9999-12-31T23:59:59Z\"",
            s("9999-12-31T23:59:59Z"),
            Expect::Lenient(vec![raw("253402300799")]),
        ),
    ];
    if let Some(t) = rfc3339(secs, 0, "") {
        v.push((
            "RFC 3339 in UTC",
            s(&t),
            Expect::Lenient(vec![plain.clone()]),
        ));
        v.push((
            "RFC 3339 in UTC without the Z",
            s(t.trim_end_matches('Z')),
            Expect::Lenient(vec![plain.clone()]),
        ));
    }
    for (label, minutes) in [("RFC 3339 at +05:30", 330), ("RFC 3339 at -08:00", -480)] {
        if let Some(t) = rfc3339(secs, minutes, "") {
            v.push((label, s(&t), Expect::Lenient(vec![plain.clone()])));
        }
    }
    if let Some(t) = rfc3339(secs, 0, ".5") {
        // Half a second later: read as `n` would be another value.
        v.push((
            "RFC 3339 with .5 s",
            s(&t),
            Expect::Lenient(vec![s(&t), raw(&format!("{n}.5"))]),
        ));
    }
    v
}

fn day_spellings(base: &str) -> Vec<(&'static str, J, Expect)> {
    let Some(t) = unquote(base) else {
        return Vec::new();
    };
    let (dd, mon, yy) = (&t[0..2], &t[3..6], &t[7..9]);
    let month = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ]
    .iter()
    .position(|m| *m == mon)
    .unwrap_or(0)
        + 1;
    let iso = format!("20{yy}-{month:02}-{dd}");
    let midnight = jiff::civil::Date::strptime("%Y-%m-%d", &iso)
        .ok()
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp().as_second().to_string())
        .unwrap_or_default();
    let plain = s(&t);
    let title = format!("{}{}", &mon[0..1], mon[1..].to_lowercase());
    let mut v: Vec<(&'static str, J, Expect)> = vec![
        ("lower case", s(&t.to_lowercase()), Expect::Refuse),
        (
            "title-case month",
            s(&format!("{dd}-{title}-{yy}")),
            Expect::Refuse,
        ),
        ("leading space", s(&format!(" {t}")), Expect::Refuse),
        ("trailing space", s(&format!("{t} ")), Expect::Refuse),
        ("trailing NUL", s(&format!("{t}\u{0}")), Expect::Refuse),
        ("day 00", s(&format!("00-{mon}-{yy}")), Expect::Refuse),
        ("day 32", s(&format!("32-{mon}-{yy}")), Expect::Refuse),
        ("29-FEB-25", s("29-FEB-25"), Expect::Refuse),
        ("31-APR-26", s("31-APR-26"), Expect::Refuse),
        ("one-digit day", s("5-JAN-26"), Expect::Refuse),
        (
            "one-digit year",
            s(&format!("{dd}-{mon}-5")),
            Expect::Refuse,
        ),
        ("slashes", s(&format!("{dd}/{mon}/{yy}")), Expect::Refuse),
        (
            "four-letter month",
            s(&format!("{dd}-SEPT-{yy}")),
            Expect::Refuse,
        ),
        (
            "fullwidth letter in month",
            s(&format!("{dd}-\u{ff21}UG-{yy}")),
            Expect::Refuse,
        ),
        (
            "Arabic-Indic day",
            s(&format!("\u{661}\u{668}-{mon}-{yy}")),
            Expect::Refuse,
        ),
        ("0000-00-00", s("0000-00-00"), Expect::Refuse),
        ("2026-02-30", s("2026-02-30"), Expect::Refuse),
        ("empty string", s(""), Expect::Refuse),
        (
            "DD-MON-YY with a time",
            s(&format!("{t}T00:00:00")),
            Expect::Refuse,
        ),
        (
            "29-FEB-24 (leap day)",
            s("29-FEB-24"),
            Expect::AcceptAs(Value::String("2024-02-29".into())),
        ),
        (
            "31-DEC-99",
            s("31-DEC-99"),
            Expect::AcceptAs(Value::String("2099-12-31".into())),
        ),
        (
            "01-JAN-00",
            s("01-JAN-00"),
            Expect::AcceptAs(Value::String("2000-01-01".into())),
        ),
        (
            "four-digit year",
            s(&format!("{dd}-{mon}-20{yy}")),
            Expect::Lenient(vec![plain.clone()]),
        ),
        (
            "ISO YYYY-MM-DD",
            s(&iso),
            Expect::Lenient(vec![plain.clone()]),
        ),
    ];
    if !midnight.is_empty() {
        v.push((
            "epoch of the day's midnight (number)",
            raw(&midnight),
            Expect::Lenient(vec![plain.clone(), raw(&midnight)]),
        ));
        v.push((
            "RFC 3339 midnight UTC",
            s(&format!("{iso}T00:00:00Z")),
            Expect::Lenient(vec![plain.clone(), raw(&midnight)]),
        ));
    }
    v
}

fn bool_spellings(base: &str) -> Vec<(&'static str, J, Expect)> {
    let _ = base;
    vec![
        ("\"true\"", s("true"), Expect::Lenient(vec![raw("true")])),
        ("\"false\"", s("false"), Expect::Lenient(vec![raw("false")])),
        ("1", raw("1"), Expect::Lenient(vec![raw("true")])),
        ("0", raw("0"), Expect::Lenient(vec![raw("false")])),
        ("\"1\"", s("1"), Expect::Lenient(vec![raw("true")])),
        ("\"0\"", s("0"), Expect::Lenient(vec![raw("false")])),
        ("\"TRUE\"", s("TRUE"), Expect::Lenient(vec![raw("true")])),
        ("\"yes\"", s("yes"), Expect::Refuse),
        ("\"\"", s(""), Expect::Refuse),
        ("2", raw("2"), Expect::Refuse),
        ("-1", raw("-1"), Expect::Refuse),
        ("\"truee\"", s("truee"), Expect::Refuse),
        ("null", raw("null"), Expect::Refuse),
        ("\" true\"", s(" true"), Expect::Refuse),
    ]
}

fn enum_spellings(base: &str) -> Vec<(&'static str, J, Expect)> {
    let Some(t) = unquote(base) else {
        return Vec::new();
    };
    let mut alts: Vec<(&'static str, String)> = vec![
        ("lower case", t.to_lowercase()),
        ("upper case", t.to_uppercase()),
        ("leading space", format!(" {t}")),
        ("trailing space", format!("{t} ")),
        ("trailing tab", format!("{t}\t")),
        ("trailing NBSP", format!("{t}\u{a0}")),
        ("leading BOM", format!("\u{feff}{t}")),
        (
            "inner double space",
            t.replacen(' ', "  ", 1) + if t.contains(' ') { "" } else { "\u{200b}" },
        ),
    ];
    let mut first_upper = t.to_lowercase();
    if let Some(c) = first_upper.get(0..1).map(str::to_uppercase) {
        first_upper.replace_range(0..1, &c);
    }
    alts.push(("capitalised", first_upper));
    let mut v: Vec<(&'static str, J, Expect)> = alts
        .into_iter()
        .filter(|(_, a)| *a != t)
        .map(|(l, a)| (l, s(&a), Expect::Kept(a)))
        .collect();
    v.push(("null", raw("null"), Expect::Refuse));
    v.push(("object", raw("{}"), Expect::Refuse));
    v.push(("a number", raw("5"), Expect::Lenient(vec![s("5")])));
    v
}

fn spellings(class: Class, base: &str) -> Vec<(&'static str, J, Expect)> {
    match class {
        Class::Decimal | Class::Int => numeric_spellings(class, base),
        Class::Epoch => epoch_spellings(base),
        Class::Day => day_spellings(base),
        Class::Bool => bool_spellings(base),
        Class::Enum => enum_spellings(base),
        Class::Text => Vec::new(),
    }
}

fn leaf_cases(sample: &Sample, want: &[Class]) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if !want.contains(&class) {
            continue;
        }
        let Some(J::Raw(base)) = at(&sample.body, &place.path) else {
            continue;
        };
        for (label, with, expect) in spellings(class, base) {
            cases.push(leaf_case(
                &place,
                &format!("{class:?}: {label}"),
                with,
                expect,
                &sample.body,
            ));
        }
    }
    cases
}

// ---------------------------------------------------------------- the cases

#[test]
fn every_numeric_field_reads_its_documented_spellings_and_refuses_the_rest_at_its_path() {
    check_leaves("numeric fields", &[Class::Decimal, Class::Int]);
}

#[test]
fn every_epoch_field_reads_its_documented_spellings_and_refuses_the_rest_at_its_path() {
    check_leaves("epoch fields", &[Class::Epoch]);
}

#[test]
fn every_day_field_reads_dd_mon_yy_and_refuses_the_rest_at_its_path() {
    check_leaves("DD-MON-YY fields", &[Class::Day]);
}

#[test]
fn every_boolean_field_reads_true_false_and_refuses_the_rest_at_its_path() {
    check_leaves("boolean fields", &[Class::Bool]);
}

#[test]
fn every_enum_field_keeps_case_and_space_variants_verbatim_as_unknown_values() {
    check_leaves("enum fields", &[Class::Enum]);
}

#[test]
fn the_classification_found_every_kind_of_place() {
    // Guards the other cases against passing because a probe classified nothing.
    let samples = samples();
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for s in &samples {
        for (_, c) in leaves_of(s) {
            *found.entry(format!("{c:?}")).or_default() += 1;
        }
    }
    for c in ["Decimal", "Int", "Epoch", "Day", "Bool", "Enum", "Text"] {
        assert!(
            found.get(c).copied().unwrap_or(0) > 0,
            "no {c} place: {found:?}"
        );
    }
}

fn collection_places(sample: &Sample) -> (Vec<Place>, Vec<Place>) {
    let mut places = Places::default();
    walk(&sample.body, &mut Vec::new(), &mut Vec::new(), &mut places);
    (
        representatives(&places.keyed),
        representatives(&places.arrays),
    )
}

fn keyed_cases(sample: &Sample) -> Vec<Case> {
    let (keyed, _) = collection_places(sample);
    let mut cases = Vec::new();
    for place in keyed {
        let Some(J::Obj(entries)) = at(&sample.body, &place.path) else {
            continue;
        };
        let items = keyed_in_order(entries);
        let n = items.len();
        let mut push = |label: &str, with: J, expect: Expect| {
            cases.push(Case {
                label: format!("collection: {label}"),
                path: place.path.clone(),
                refuse_at: place.path.clone(),
                body: replaced(&sample.body, &place.path, with),
                expect,
            });
        };
        let plain = J::Obj(entries.clone());
        let rekey = |keys: &[String]| {
            J::Obj(
                keys.iter()
                    .cloned()
                    .zip(items.iter().cloned())
                    .collect::<Vec<_>>(),
            )
        };
        let canonical: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        // Documented or stated: same value.
        push(
            "as a JSON array",
            J::Arr(items.clone()),
            Expect::Same(plain.clone()),
        );
        if n == 0 {
            push("[] for {}", J::Arr(vec![]), Expect::Same(plain.clone()));
            push("null for {}", raw("null"), Expect::Same(plain.clone()));
        } else {
            let mut rev: Vec<(String, J)> = canonical
                .iter()
                .cloned()
                .zip(items.iter().cloned())
                .collect();
            rev.reverse();
            push(
                "keys in reverse order",
                J::Obj(rev),
                Expect::Same(plain.clone()),
            );
            let mut gap = canonical.clone();
            if let Some(l) = gap.last_mut() {
                *l = (n + 1).to_string();
            }
            push(
                "a gap before the last key",
                rekey(&gap),
                Expect::Same(plain.clone()),
            );
            let spaced: Vec<String> = (0..n).map(|i| (2 * i + 1).to_string()).collect();
            push(
                "keys 1,3,5,… (gaps everywhere)",
                rekey(&spaced),
                Expect::Same(plain.clone()),
            );
            for far in ["100000000", "4294967296"] {
                let mut h = canonical.clone();
                if let Some(l) = h.last_mut() {
                    *l = far.into();
                }
                push(
                    &format!("a gap up to the last key {far}"),
                    rekey(&h),
                    Expect::Same(plain.clone()),
                );
            }
            for huge in [
                "18446744073709551616",
                "99999999999999999999999999999999999999",
            ] {
                let mut h = canonical.clone();
                if let Some(l) = h.last_mut() {
                    *l = huge.into();
                }
                push(
                    &format!("last key {huge} (past usize)"),
                    rekey(&h),
                    Expect::Lenient(vec![plain.clone()]),
                );
            }
            // Non-canonical keys: refused.
            for bad in [
                "00", "-0", "+0", " 0", "0 ", "0.0", "0e0", "-1", "\u{ff10}", "\u{660}", "0x0", "",
                "a", "0\u{0}",
            ] {
                let mut k = canonical.clone();
                if let Some(f) = k.first_mut() {
                    *f = bad.into();
                }
                push(&format!("first key {bad:?}"), rekey(&k), Expect::Refuse);
            }
            if n >= 2 {
                let mut k = canonical.clone();
                if let Some(l) = k.get_mut(1) {
                    "1.0".clone_into(l);
                }
                push("second key \"1.0\"", rekey(&k), Expect::Refuse);
                let mut k = canonical.clone();
                if let Some(l) = k.get_mut(1) {
                    "01".clone_into(l);
                }
                push("second key \"01\"", rekey(&k), Expect::Refuse);
            }
            // Duplicate keys in the raw JSON.
            let mut dup: Vec<(String, J)> = canonical
                .iter()
                .cloned()
                .zip(items.iter().cloned())
                .collect();
            if let Some(last) = items.last() {
                dup.push(("0".into(), last.clone()));
            }
            push("key \"0\" twice, two values", J::Obj(dup), Expect::Refuse);
            let mut dup_same: Vec<(String, J)> = canonical
                .iter()
                .cloned()
                .zip(items.iter().cloned())
                .collect();
            if let Some(first) = items.first() {
                dup_same.push(("0".into(), first.clone()));
            }
            push(
                "key \"0\" twice, same value",
                J::Obj(dup_same),
                Expect::Refuse,
            );
            let mut dup_escaped: Vec<(String, J)> = canonical
                .iter()
                .cloned()
                .zip(items.iter().cloned())
                .collect();
            if let Some(last) = items.last() {
                dup_escaped.push((format!("{RAW_KEY}\"\\u0030\""), last.clone()));
            }
            push(
                "key \"0\" and key \"\\u0030\" (the same key escaped), two values",
                J::Obj(dup_escaped),
                Expect::Refuse,
            );
            let mut with_null: Vec<(String, J)> = canonical
                .iter()
                .cloned()
                .zip(items.iter().cloned())
                .collect();
            with_null.push((n.to_string(), raw("null")));
            push(
                "an element null (a PHP hole)",
                J::Obj(with_null),
                Expect::Refuse,
            );
            let mut arr_null = items.clone();
            arr_null.push(raw("null"));
            push("an array element null", J::Arr(arr_null), Expect::Refuse);
            // Empty spellings of a non-empty collection: an empty list.
            for (label, with) in [
                ("{}", J::Obj(vec![])),
                ("[]", J::Arr(vec![])),
                ("null", raw("null")),
            ] {
                push(
                    &format!("empty as {label}"),
                    with,
                    Expect::AcceptAs(Value::Array(vec![])),
                );
            }
        }
        for (label, with) in [
            ("\"\"", s("")),
            ("0", raw("0")),
            ("false", raw("false")),
            ("\"{}\"", s("{}")),
            ("\"[]\"", s("[]")),
        ] {
            push(&format!("empty as {label}"), with, Expect::Refuse);
        }
    }
    cases
}

#[test]
fn every_keyed_collection_reads_orders_and_gaps_in_index_order_and_refuses_other_keys_at_its_path()
{
    let samples = samples();
    report("keyed collections", run_cases(&samples, keyed_cases));
}

fn array_cases(sample: &Sample) -> Vec<Case> {
    let (_, arrays) = collection_places(sample);
    let mut cases = Vec::new();
    for place in arrays {
        let Some(J::Arr(items)) = at(&sample.body, &place.path) else {
            continue;
        };
        let plain = J::Arr(items.clone());
        let mut push = |label: &str, with: J, expect: Expect| {
            cases.push(Case {
                label: format!("id array: {label}"),
                path: place.path.clone(),
                refuse_at: place.path.clone(),
                body: replaced(&sample.body, &place.path, with),
                expect,
            });
        };
        let keyed = J::Obj(
            items
                .iter()
                .enumerate()
                .map(|(i, j)| (i.to_string(), j.clone()))
                .collect(),
        );
        push("as a keyed object", keyed, Expect::Same(plain.clone()));
        let stringified = J::Arr(
            items
                .iter()
                .map(|j| match j {
                    J::Raw(r) if !r.starts_with('"') => s(r),
                    other => other.clone(),
                })
                .collect(),
        );
        push("IDs as strings", stringified, Expect::Same(plain.clone()));
        push("null", raw("null"), Expect::AcceptAs(Value::Array(vec![])));
        push("{}", J::Obj(vec![]), Expect::AcceptAs(Value::Array(vec![])));
        push("\"\"", s(""), Expect::Refuse);
        push("a bare ID", raw("5"), Expect::Refuse);
        push("comma-separated IDs", s("5,6"), Expect::Refuse);
        push("[\"+5\"]", J::Arr(vec![s("+5")]), Expect::Refuse);
        push("[5.5]", J::Arr(vec![raw("5.5")]), Expect::Refuse);
        push("[null]", J::Arr(vec![raw("null")]), Expect::Refuse);
        push("[-1]", J::Arr(vec![raw("-1")]), Expect::Refuse);
    }
    cases
}

#[test]
fn every_plain_id_array_reads_its_documented_spellings_and_refuses_the_rest_at_its_path() {
    let samples = samples();
    report("ID arrays", run_cases(&samples, array_cases));
}

fn duplicate_cases(sample: &Sample) -> Vec<Case> {
    let baseline = match sample.run(&sample.body) {
        Run::Ok(d) => d.json,
        _ => Value::Null,
    };
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if json_at(&baseline, &place.path).is_none() {
            // A field the type does not model is ignored, once or twice.
            continue;
        }
        let Some((field, parent)) = place.path.split_last() else {
            continue;
        };
        if place.schema.starts_with("data.comments.") {
            // The opaque comment records: their own case below.
            continue;
        }
        let other = match class {
            Class::Decimal => s("99.99"),
            Class::Int => raw("99"),
            Class::Epoch => raw("99"),
            Class::Day => s("01-JAN-20"),
            Class::Bool => match at(&sample.body, &place.path) {
                Some(J::Raw(r)) if r == "true" => raw("false"),
                _ => raw("true"),
            },
            Class::Enum | Class::Text => s("zz-other"),
        };
        for (how, key) in [
            ("", field.clone()),
            (
                " (the second name \\u-escaped)",
                format!("{RAW_KEY}{}", escaped(field)),
            ),
        ] {
            let mut body = sample.body.clone();
            if let Some(J::Obj(entries)) = at_mut(&mut body, parent) {
                entries.push((key, other.clone()));
            } else {
                continue;
            }
            cases.push(Case {
                label: format!("{class:?}: the field sent twice with two values{how}"),
                path: place.path.clone(),
                refuse_at: parent.to_vec(),
                body,
                expect: Expect::Refuse,
            });
        }
    }
    cases
}

#[test]
fn duplicate_struct_keys_with_two_values_are_refused_never_one_of_them_read() {
    let samples = samples();
    report("duplicated fields", run_cases(&samples, duplicate_cases));
}

// ---------------------------------------------------------------- payload names

fn sample_named<'a>(samples: &'a [Sample], method: &str) -> &'a Sample {
    samples
        .iter()
        .find(|s| s.name.starts_with(method))
        .unwrap_or_else(|| panic!("no sample {method}"))
}

fn rename(body: &J, parent: &[String], from: &str, to: &str) -> J {
    let mut b = body.clone();
    if let Some(J::Obj(entries)) = at_mut(&mut b, parent) {
        for (k, _) in entries.iter_mut() {
            if k == from {
                to.clone_into(k);
            }
        }
    }
    b
}

fn changed_id(j: &J) -> J {
    let mut j = j.clone();
    if let J::Obj(entries) = &mut j {
        for (k, v) in entries.iter_mut() {
            if k == "id" {
                *v = raw("424242");
            }
        }
    }
    j
}

#[test]
fn payload_names_documented_or_delivered_read_the_same_and_ambiguity_is_refused_at_data() {
    let samples = samples();
    let data = vec!["data".to_owned()];
    let mut failures = Vec::new();
    let mut n = 0;
    let mut go = |sample: &Sample, label: &str, body: J, expect: Expect| {
        n += 1;
        if let Some(f) = check(
            sample,
            &Case {
                label: label.to_owned(),
                path: data.clone(),
                refuse_at: data.clone(),
                body,
                expect,
            },
        ) {
            failures.push(f);
        }
    };

    // pay/getPayment: documented `invoice`, delivered `payment`.
    let pay = sample_named(&samples, "pay/getPayment");
    let payment = at(&pay.body, &["data".into(), "payment".into()])
        .cloned()
        .unwrap_or(J::Obj(vec![]));
    go(
        pay,
        "getPayment: the record under its documented name `invoice`",
        rename(&pay.body, &data, "payment", "invoice"),
        Expect::Same(at(&pay.body, &data).cloned().unwrap_or(J::Obj(vec![]))),
    );
    for (label, first, second) in [
        (
            "getPayment: `payment` then `invoice` with another id",
            "payment",
            "invoice",
        ),
        (
            "getPayment: `invoice` then `payment` with another id",
            "invoice",
            "payment",
        ),
    ] {
        let mut b = pay.body.clone();
        if let Some(J::Obj(entries)) = at_mut(&mut b, &data) {
            entries.retain(|(k, _)| k != "payment");
            entries.push((first.into(), payment.clone()));
            entries.push((second.into(), changed_id(&payment)));
        }
        go(pay, label, b, Expect::Refuse);
    }
    {
        let mut b = pay.body.clone();
        if let Some(J::Obj(entries)) = at_mut(&mut b, &data) {
            entries.push(("payment".into(), changed_id(&payment)));
        }
        go(
            pay,
            "getPayment: `payment` twice, two values",
            b,
            Expect::Refuse,
        );
    }

    // pay/getInvoice: `payment` is not one of its names.
    let inv = sample_named(&samples, "pay/getInvoice");
    go(
        inv,
        "getInvoice: the invoice under `payment` (the other method's delivered name)",
        rename(&inv.body, &data, "invoice", "payment"),
        Expect::Refuse,
    );

    // pay/getBilling: documented as siblings of bidDetails, delivered inside `billing`.
    let bill = sample_named(&samples, "pay/getBilling");
    let billing = at(&bill.body, &["data".into(), "billing".into()])
        .cloned()
        .unwrap_or(J::Obj(vec![]));
    let J::Obj(billing_entries) = billing.clone() else {
        panic!("billing is an object")
    };
    {
        // As documented: siblings of bidDetails, no `billing`.
        let mut b = bill.body.clone();
        if let Some(J::Obj(entries)) = at_mut(&mut b, &data) {
            entries.retain(|(k, _)| k != "billing");
            entries.extend(billing_entries.iter().cloned());
        }
        go(
            bill,
            "getBilling: the properties as documented (siblings of bidDetails)",
            b,
            Expect::Lenient(vec![
                at(&bill.body, &data).cloned().unwrap_or(J::Obj(vec![])),
            ]),
        );
    }
    {
        let mut b = bill.body.clone();
        if let Some(J::Obj(entries)) = at_mut(&mut b, &data) {
            for (k, v) in &billing_entries {
                let v = if k == "invoice" {
                    changed_id(v)
                } else {
                    v.clone()
                };
                entries.push((k.clone(), v));
            }
        }
        go(
            bill,
            "getBilling: both `billing` and documented siblings (another invoice id): billing read",
            b,
            Expect::Same(at(&bill.body, &data).cloned().unwrap_or(J::Obj(vec![]))),
        );
    }
    go(
        bill,
        "getBilling: `billing.payment` for `billing.invoice`",
        rename(
            &bill.body,
            &["data".into(), "billing".into()],
            "invoice",
            "payment",
        ),
        Expect::Refuse,
    );

    // The envelope's own names sent twice.
    for (name, other) in [
        ("data", J::Obj(vec![])),
        ("apiVersion", raw("2")),
        ("rcode", raw("0")),
    ] {
        let mut b = inv.body.clone();
        if let J::Obj(entries) = &mut b {
            entries.push((name.into(), other));
        }
        n += 1;
        if let Some(f) = check(
            inv,
            &Case {
                label: format!("envelope: `{name}` twice, two values"),
                path: vec![name.into()],
                refuse_at: Vec::new(),
                body: b,
                expect: Expect::Refuse,
            },
        ) {
            failures.push(f);
        }
    }

    assert!(
        failures.is_empty(),
        "payload names: {} of {n} cases broke the property:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------- random combinations

/// Every keyed collection of the body either as an array, in reverse key order, or with gaps,
/// independently chosen: the value is the body's.
fn respelled_collections(sample: &Sample, choices: &[u8], gaps: bool) -> J {
    let mut places = Places::default();
    walk(&sample.body, &mut Vec::new(), &mut Vec::new(), &mut places);
    let mut body = sample.body.clone();
    // Deepest first so the outer paths (keys "0".."n-1") still resolve.
    let mut keyed = places.keyed.clone();
    keyed.sort_by_key(|p| std::cmp::Reverse(p.path.len()));
    for (i, place) in keyed.iter().enumerate() {
        let mut choice = choices.get(i % choices.len().max(1)).copied().unwrap_or(0) % 4;
        if !gaps && choice == 2 {
            choice = 0;
        }
        if let Some(slot) = at_mut(&mut body, &place.path)
            && let J::Obj(entries) = slot
        {
            let items = keyed_in_order(entries);
            *slot = match choice {
                0 => J::Arr(items),
                1 => {
                    let mut e: Vec<(String, J)> = items
                        .into_iter()
                        .enumerate()
                        .map(|(i, j)| (i.to_string(), j))
                        .collect();
                    e.reverse();
                    J::Obj(e)
                }
                2 => J::Obj(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, j)| ((3 * i + 2).to_string(), j))
                        .collect(),
                ),
                _ => J::Obj(entries.clone()),
            };
        }
    }
    body
}

/// A sample with its classified leaves.
type Classified = (Sample, Vec<(Place, Class)>);

/// The samples and their classified leaves, computed once for the property tests' cases.
fn cached() -> &'static [Classified] {
    static CACHE: std::sync::OnceLock<Vec<Classified>> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| {
        samples()
            .into_iter()
            .map(|s| {
                let leaves = leaves_of(&s)
                    .into_iter()
                    .filter(|(_, c)| *c != Class::Text)
                    .collect();
                (s, leaves)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_collection_spellings_at_every_level_read_the_same_value(
        which in 0usize..11,
        choices in proptest::collection::vec(any::<u8>(), 1..16),
    ) {
        let all = cached();
        let sample = &all[which % all.len()].0;
        let body = respelled_collections(sample, &choices, true);
        let case = Case {
            label: format!("collections respelled {choices:?}"),
            path: vec!["data".into()],
            refuse_at: vec!["data".into()],
            body,
            expect: Expect::Same(at(&sample.body, &["data".into()]).cloned().unwrap_or(J::Obj(vec![]))),
        };
        let f = check(sample, &case);
        prop_assert!(f.is_none(), "{}", f.unwrap_or_default());
    }

    #[test]
    fn random_leaf_spelling_inside_respelled_collections_reads_right_or_names_its_path(
        which in 0usize..11,
        leaf in any::<prop::sample::Index>(),
        spelling in any::<prop::sample::Index>(),
        choices in proptest::collection::vec(any::<u8>(), 1..8),
    ) {
        let all = cached();
        let (sample, leaves) = &all[which % all.len()];
        prop_assume!(!leaves.is_empty());
        let (place, class) = leaves[leaf.index(leaves.len())].clone();
        let Some(J::Raw(base)) = at(&sample.body, &place.path) else {
            return Ok(());
        };
        let table = spellings(class, base);
        prop_assume!(!table.is_empty());
        let (label, with, expect) = table[spelling.index(table.len())].clone();
        // The collections around it respelled too (arrays keep the same indexes).
        let respelled = Sample {
            name: sample.name.clone(),
            body: respelled_collections(sample, &choices, false),
            dec: sample.dec,
            eq: sample.eq,
        };
        let case = leaf_case(&place, &format!("{class:?}: {label} (collections respelled)"), with, expect, &respelled.body);
        let f = check(&respelled, &case);
        prop_assert!(f.is_none(), "{}", f.unwrap_or_default());
    }
}

// ---------------------------------------------------------------- JSON escapes: the same value

/// Every object entry of the body (struct fields, collection indexes, payload names), first and
/// last of each schema path.
fn entry_places(j: &J, path: &mut Vec<String>, schema: &mut Vec<String>, out: &mut Vec<Place>) {
    match j {
        J::Obj(entries) => {
            let keyed = !path.is_empty() && is_keyed(entries);
            for (k, v) in entries {
                path.push(k.clone());
                schema.push(if keyed { "*".into() } else { k.clone() });
                out.push(Place {
                    path: path.clone(),
                    schema: schema.join("."),
                });
                entry_places(v, path, schema, out);
                path.pop();
                schema.pop();
            }
        }
        J::Arr(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                schema.push("*".into());
                entry_places(v, path, schema, out);
                path.pop();
                schema.pop();
            }
        }
        J::Raw(_) => {}
    }
}

fn escape_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    // Values: a string value written with `\uXXXX` escapes is the same JSON string.
    for (place, class) in leaves_of(sample) {
        let Some(J::Raw(base)) = at(&sample.body, &place.path) else {
            continue;
        };
        let Some(v) = unquote(base).filter(|v| !v.is_empty()) else {
            continue;
        };
        cases.push(leaf_case(
            &place,
            &format!("{class:?}: the string value written with \\u escapes"),
            raw(&escaped(&v)),
            Expect::Same(J::Raw(base.clone())),
            &sample.body,
        ));
    }
    // Keys: a name written with `\uXXXX` escapes is the same name.
    let mut entries = Vec::new();
    entry_places(&sample.body, &mut Vec::new(), &mut Vec::new(), &mut entries);
    for place in representatives(&entries) {
        let Some((key, parent)) = place.path.split_last() else {
            continue;
        };
        let original = at(&sample.body, &place.path).cloned();
        let Some(original) = original else { continue };
        let body = rename(
            &sample.body,
            parent,
            key,
            &format!("{RAW_KEY}{}", escaped(key)),
        );
        cases.push(Case {
            label: format!("the key {key:?} written with \\u escapes"),
            path: place.path.clone(),
            refuse_at: parent.to_vec(),
            body,
            expect: Expect::Same(original),
        });
    }
    cases
}

#[test]
fn every_key_and_string_value_reads_the_same_when_written_with_json_escapes() {
    let samples = samples();
    report("JSON escapes", run_cases(&samples, escape_cases));
}

fn text_encoding_cases(sample: &Sample) -> Vec<Case> {
    let baseline = match sample.run(&sample.body) {
        Run::Ok(d) => d.json,
        _ => Value::Null,
    };
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if !matches!(class, Class::Text | Class::Enum) || json_at(&baseline, &place.path).is_none()
        {
            continue;
        }
        for (label, with) in [
            (
                "a byte that is not UTF-8",
                raw(&format!("\"ab{INVALID_BYTE}cd\"")),
            ),
            ("a lone surrogate escape", raw("\"ab\\ud800cd\"")),
            ("a lone low surrogate escape", raw("\"\\udc00\"")),
        ] {
            cases.push(leaf_case(
                &place,
                &format!("{class:?}: {label}"),
                with,
                Expect::Refuse,
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_text_and_enum_field_refuses_text_that_is_not_unicode_at_its_path() {
    let samples = samples();
    report("text encodings", run_cases(&samples, text_encoding_cases));
}

// ---------------------------------------------------------------- exponent spellings

fn exponent_spellings(class: Class, base: &str) -> Vec<(String, J, Expect)> {
    let n = number_text(base);
    let plain = raw(&n);
    let zeros40 = "0".repeat(40);
    let mut v: Vec<(String, J, Expect)> = vec![
        (
            "0e1000000000 (zero, huge exponent)".into(),
            raw("0e1000000000"),
            Expect::Lenient(vec![raw("0")]),
        ),
        (
            "0e-1000000000".into(),
            raw("0e-1000000000"),
            Expect::Lenient(vec![raw("0")]),
        ),
        ("1e1000000000".into(), raw("1e1000000000"), Expect::Refuse),
        ("1e-1000000000".into(), raw("1e-1000000000"), Expect::Refuse),
        (
            "exponent past u64".into(),
            raw("1e99999999999999999999999"),
            Expect::Refuse,
        ),
        (
            "negative exponent past u64".into(),
            raw("1e-99999999999999999999999"),
            Expect::Refuse,
        ),
    ];
    if n.trim_start_matches('-').starts_with('0') {
        return v;
    }
    v.extend([(
        "n with 40 zeros and e-40".into(),
        raw(&format!("{n}{zeros40}e-40")),
        Expect::Lenient(vec![plain.clone()]),
    )]);
    if class == Class::Int && n.parse::<u64>().is_ok_and(|v| v > 0) {
        // bad-input.md: "An integer field takes a JSON number whose value is exactly a whole
        // number in its range, however spelled": documented, so the same value.
        for form in [
            format!("{n}.000"),
            format!("{n}e0"),
            format!("{n}E+0"),
            format!("{n}e-0"),
            format!("{n}0e-1"),
            format!("{n}{zeros40}e-40"),
            format!("{n}e+0000000000000000000000"),
        ] {
            v.push((
                format!("whole number spelled {}", short(&form)),
                raw(&form),
                Expect::Same(plain.clone()),
            ));
        }
        {
            let form = format!("0.{n}e{}", n.len());
            v.push((
                format!("whole number spelled {form}"),
                raw(&form),
                Expect::Same(plain.clone()),
            ));
        }
        v.push((
            "a fraction 1e-100000 past the whole number".into(),
            raw(&format!("{n}.{}1", "0".repeat(100_000))),
            Expect::Refuse,
        ));
    }
    v
}

fn exponent_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if !matches!(class, Class::Int | Class::Decimal | Class::Epoch) {
            continue;
        }
        let Some(J::Raw(base)) = at(&sample.body, &place.path) else {
            continue;
        };
        for (label, with, expect) in exponent_spellings(class, base) {
            cases.push(leaf_case(
                &place,
                &format!("{class:?}: {label}"),
                with,
                expect,
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_number_in_exponent_form_is_read_by_its_exact_value_or_refused_at_its_path() {
    let samples = samples();
    report("exponent forms", run_cases(&samples, exponent_cases));
}

#[test]
fn the_bytes_reader_reads_every_quirk_as_the_str_reader_does() {
    let samples = bytes_reader_samples();
    assert_eq!(
        samples.len(),
        4,
        "every answer with an invalid byte in an unknown field still decodes"
    );
    report(
        "bytes reader: scalar fields",
        run_cases(&samples, |s| {
            leaf_cases(
                s,
                &[
                    Class::Decimal,
                    Class::Int,
                    Class::Epoch,
                    Class::Day,
                    Class::Bool,
                    Class::Enum,
                ],
            )
        }),
    );
}

#[test]
fn the_bytes_reader_reads_collections_escapes_and_exponents_as_the_str_reader_does() {
    let samples = bytes_reader_samples();
    report(
        "bytes reader: collections, escapes, exponents",
        run_cases(&samples, |s| {
            let mut c = keyed_cases(s);
            c.extend(array_cases(s));
            c.extend(escape_cases(s));
            c.extend(exponent_cases(s));
            c.extend(duplicate_cases(s));
            c
        }),
    );
}

// ---------------------------------------------------------------- the opaque comment records

fn filled_timesheet(samples: &[Sample]) -> &Sample {
    samples
        .iter()
        .find(|s| s.name.starts_with("pay/getTimesheet (comments"))
        .unwrap_or_else(|| panic!("the filled timesheet sample"))
}

fn comment_body(sample: &Sample, comment: &str) -> J {
    // `comment` is the JSON text of the first comment record.
    replaced(
        &sample.body,
        &["data".into(), "comments".into(), "0".into()],
        raw(comment),
    )
}

/// ARCHITECTURE.md: "StatusReportCommentData fields not shown | `opaque: true`: the raw JSON
/// object is kept"; "duplicate or non-canonical keys are errors". A comment sent with a key
/// twice cannot be kept as sent: reading the last value drops the first silently.
#[test]
fn an_opaque_comment_with_a_key_twice_is_refused_not_read_as_one_of_the_values() {
    let samples = samples();
    let ts = filled_timesheet(&samples);
    let mut failures = Vec::new();
    for (label, comment) in [
        (
            "`comment` twice",
            r#"{"id":1,"comment":"approve","comment":"reject"}"#,
        ),
        (
            "`comment` twice, the second escaped",
            r#"{"id":1,"comment":"approve","\u0063omment":"reject"}"#,
        ),
        ("`id` twice", r#"{"id":1,"id":2,"comment":"x"}"#),
    ] {
        match ts.run(&comment_body(ts, comment)) {
            Run::Err(e) if e.path.starts_with("data.comments.0") => {}
            Run::Err(e) => {
                failures.push(format!("{label}: refused at `{}`: {}", e.path, e.message))
            }
            Run::Panic(p) => failures.push(format!("{label}: PANIC {p}")),
            Run::Ok(d) => failures.push(format!(
                "{label}: wire {comment} READ as {}",
                json_at(&d.json, &["data".into(), "comments".into(), "0".into()])
                    .map(Value::to_string)
                    .unwrap_or_default()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// using-the-client.md: "a JSON number is read from its digits … and a value the type cannot
/// hold exactly is an error, never a rounded value"; ARCHITECTURE.md: "a JSON number is
/// decoded from its digits, never through `f64` … A value the type cannot hold exactly is a
/// decode error with its JSON path". The opaque comment keeps "the raw JSON object": a number in
/// it must come back as the same number, or be refused at its path.
#[test]
fn an_opaque_comment_keeps_every_number_exactly_or_refuses_it_at_its_path() {
    let samples = samples();
    let ts = filled_timesheet(&samples);
    let mut failures = Vec::new();
    for number in [
        "0.1000000000000000000001",
        "12345678901234567.89",
        "123456789012345678901234567890",
        "18446744073709551616",
        "30.00",
        "1e400",
        "9007199254740993",
    ] {
        let comment = format!(r#"{{"id":1,"comment":"x","amount":{number}}}"#);
        let sent = comment_body(ts, &comment);
        match ts.run(&sent) {
            Run::Err(e) if e.path.starts_with("data.comments.0") => {}
            Run::Err(e) => {
                failures.push(format!("{number}: refused at `{}`: {}", e.path, e.message));
            }
            Run::Panic(p) => failures.push(format!("{number}: PANIC {p}")),
            Run::Ok(_) => {
                let bytes = text(&sent).into_bytes();
                let kept = decode::<Envelope<TimesheetDetails>>(&bytes)
                    .ok()
                    .and_then(|env| {
                        env.data
                            .comments
                            .first()
                            .and_then(|c| c.fields.get("amount"))
                            .map(Value::to_string)
                    })
                    .unwrap_or_default();
                // Restated to the documented design (ARCHITECTURE.md, `opaque`: "a number's
                // spelling is not kept (`30.00` is `30.0`)"): kept means the same number.
                let same = |a: &str, b: &str| {
                    let exact = |t: &str| {
                        t.parse::<rust_decimal::Decimal>()
                            .or_else(|_| rust_decimal::Decimal::from_scientific(t))
                    };
                    match (exact(a), exact(b)) {
                        (Ok(a), Ok(b)) => a == b,
                        _ => a == b,
                    }
                };
                if !same(&kept, number) {
                    failures.push(format!(
                        "comments.0.amount: wire {number} READ as {kept} (StatusReportComment::fields)"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A comment record must be an object: ARCHITECTURE.md "`opaque: true`: the raw JSON object is
/// kept"; anything else refused at its path.
#[test]
fn an_opaque_comment_that_is_not_an_object_is_refused_at_its_path() {
    let samples = samples();
    let ts = filled_timesheet(&samples);
    let mut failures = Vec::new();
    for comment in [r#""approved""#, "5", "[1,2]", "true", "null"] {
        match ts.run(&comment_body(ts, comment)) {
            Run::Err(e) if e.path.starts_with("data.comments") => {}
            Run::Err(e) => {
                failures.push(format!("{comment}: refused at `{}`: {}", e.path, e.message))
            }
            Run::Panic(p) => failures.push(format!("{comment}: PANIC {p}")),
            Run::Ok(d) => failures.push(format!(
                "{comment}: READ; comments = {}",
                json_at(&d.json, &["data".into(), "comments".into()])
                    .map(Value::to_string)
                    .unwrap_or_default()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- text kept from a number

/// ARCHITECTURE.md: "Without evidence the field is text with `string_or_number` (a number kept
/// as its text)"; spec/README.md "(`string_or_number` keeps it as its text)". A number in such a
/// field must come back with the digits it was sent with, or be refused at its path.
fn number_text_cases(sample: &Sample) -> Vec<Case> {
    let baseline = match sample.run(&sample.body) {
        Run::Ok(d) => d.json,
        _ => Value::Null,
    };
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if class != Class::Text
            || place.schema.starts_with("data.comments.")
            || json_at(&baseline, &place.path).is_none()
            || !ok_with(sample, &place.path, raw("7"))
        {
            continue;
        }
        for number in [
            "30.50",
            "1e3",
            "1E+3",
            "-0",
            "0.1000000000000000000001",
            "123456789012345678901234567890",
            "18446744073709551616",
            "9007199254740993",
            "1.0",
        ] {
            cases.push(leaf_case(
                &place,
                &format!("string_or_number: the number {number}"),
                raw(number),
                Expect::AcceptAs(Value::String(number.into())),
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_string_or_number_field_keeps_a_number_as_the_exact_text_sent() {
    let samples = samples();
    report(
        "string_or_number fields",
        run_cases(&samples, number_text_cases),
    );
}

// ---------------------------------------------------------------- the normalized form reads back

/// ARCHITECTURE.md: "Serialize writes a normalized form (JSON arrays, numbers, decimal strings
/// keeping their scale, ISO dates, RFC 3339 instants) that the decoders accept again:
/// `decode(encode(x)) == x`". Every value a spelling above was read to (the far ends of each
/// type's range, unknown enum values with spaces, instants with offsets, …) must survive it.
fn round_trip_failures(samples: &[Sample]) -> (usize, Vec<String>) {
    let mut n = 0;
    let mut failures = Vec::new();
    for sample in samples {
        let mut cases = leaf_cases(
            sample,
            &[
                Class::Decimal,
                Class::Int,
                Class::Epoch,
                Class::Day,
                Class::Bool,
                Class::Enum,
            ],
        );
        cases.extend(number_text_cases(sample));
        for case in cases {
            let Run::Ok(first) = sample.run(&case.body) else {
                continue;
            };
            n += 1;
            let again = catch_unwind(AssertUnwindSafe(|| (sample.dec)(&first.encoded)));
            let problem = match again {
                Ok(Ok(d)) if (sample.eq)(first.any.as_ref(), d.any.as_ref()) => None,
                Ok(Ok(d)) => Some(format!(
                    "read back as {} (encoded {})",
                    json_at(&d.json, &case.path)
                        .map(Value::to_string)
                        .unwrap_or_default(),
                    json_at(&first.json, &case.path)
                        .map(Value::to_string)
                        .unwrap_or_default()
                )),
                Ok(Err(e)) => Some(format!(
                    "its own encoding REFUSED at `{}`: {}",
                    e.path, e.message
                )),
                Err(_) => Some("PANIC reading its own encoding".into()),
            };
            if let Some(p) = problem {
                failures.push(format!(
                    "{} | {} | {} | wire {} => {p}",
                    sample.name.split('?').next().unwrap_or_default(),
                    case.path.join("."),
                    case.label,
                    short(&at(&case.body, &case.path).map(text).unwrap_or_default()),
                ));
            }
        }
    }
    (n, failures)
}

#[test]
fn every_value_a_quirk_is_read_to_survives_its_own_normalized_form() {
    let samples = samples();
    report("round trip", round_trip_failures(&samples));
}

// ---------------------------------------------------------------- null and absent

/// bad-input.md: "A response value that does not fit names the method, the JSON path and the
/// value"; spec/README.md: "`only_in`, `absent_in`, `optional`, `nullable` and `zero_is_none`
/// all make the Rust field an `Option`; absent, `null` … decode to `None`". A field that is not
/// an `Option` has no value for null or absence: reading one (a zero, an empty text, a default
/// date) is another value.
fn null_and_absent_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        let Some((field, parent)) = place.path.split_last() else {
            continue;
        };
        if place.schema.starts_with("data.comments.") || place.path.len() < 2 {
            continue;
        }
        if matches!(at(&sample.body, parent), Some(J::Arr(_))) {
            // An element of a plain array (IDs): its null is in `array_cases`.
            continue;
        }
        cases.push(Case {
            label: format!("{class:?}: null"),
            path: place.path.clone(),
            refuse_at: parent.to_vec(),
            body: replaced(&sample.body, &place.path, raw("null")),
            expect: Expect::NothingOrRefuse,
        });
        let mut body = sample.body.clone();
        if let Some(J::Obj(entries)) = at_mut(&mut body, parent) {
            entries.retain(|(k, _)| k != field);
        }
        cases.push(Case {
            label: format!("{class:?}: absent"),
            path: place.path.clone(),
            refuse_at: parent.to_vec(),
            body,
            expect: Expect::NothingOrRefuse,
        });
    }
    cases
}

#[test]
fn every_field_sent_null_or_left_out_is_none_or_refused_never_a_default_value() {
    let samples = samples();
    report(
        "null and absent",
        run_cases(&samples, null_and_absent_cases),
    );
}

// ---------------------------------------------------------------- DayOrInstant's documented forms

/// `DayOrInstant` rustdoc: "Decodes a JSON number that is exactly an integer, or a string of
/// digits (optional leading -), as epoch seconds (`DayOrInstant::Instant`), DD-MON-YY or
/// YYYY-MM-DD as `DayOrInstant::Day`, and an RFC 3339 string as `DayOrInstant::Instant`". Each
/// documented form must read to the value its plain spelling has, at every `DayOrInstant` field
/// (Timesheet's dates, in the list, where they come as `DD-MON-YY`, and in the single answer,
/// where they come as epochs).
fn day_or_instant_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        let Some(J::Raw(base)) = at(&sample.body, &place.path) else {
            continue;
        };
        // A DayOrInstant takes both a DD-MON-YY text and an epoch.
        let both = ok_with(sample, &place.path, s("24-AUG-25"))
            && ok_with(sample, &place.path, raw("1755993600"));
        if !both || !matches!(class, Class::Day | Class::Epoch) {
            continue;
        }
        let mut push = |label: &str, with: J, oracle: J| {
            cases.push(leaf_case(
                &place,
                &format!("DayOrInstant: {label}"),
                with,
                Expect::Same(oracle),
                &sample.body,
            ));
        };
        push("YYYY-MM-DD", s("2025-08-24"), s("24-AUG-25"));
        push("YYYY-MM-DD of a leap day", s("2024-02-29"), s("29-FEB-24"));
        push("a string of digits", s("1755993600"), raw("1755993600"));
        push("a string with a leading -", s("-86400"), raw("-86400"));
        push(
            "RFC 3339 in UTC",
            s("2025-08-24T00:00:00Z"),
            raw("1755993600"),
        );
        push(
            "RFC 3339 at +02:00",
            s("2025-08-24T02:00:00+02:00"),
            raw("1755993600"),
        );
        push(
            "RFC 3339 at -05:00",
            s("2025-08-23T19:00:00-05:00"),
            raw("1755993600"),
        );
        push(
            "RFC 3339 lower-case t and z",
            s("2025-08-24t00:00:00z"),
            raw("1755993600"),
        );
        push(
            "an integer number spelled 1755993600.0",
            raw("1755993600.0"),
            raw("1755993600"),
        );
        let _ = base;
    }
    cases
}

#[test]
fn every_day_or_instant_field_reads_each_documented_form_to_its_value() {
    let samples = samples();
    report(
        "DayOrInstant forms",
        run_cases(&samples, day_or_instant_cases),
    );
}

// ---------------------------------------------------------------- the client's own channel

/// The same spellings through a real call (`Request::send` against a scripted server): docs/
/// bad-input.md "A response value that does not fit names the method, the JSON path and the
/// value". Whatever `decode` reads, the call must read to the same value; whatever it refuses,
/// the call must refuse with `Error::Decode` naming the same path and the method.
async fn through_the_client<T>(
    cases: &[Case],
    call: impl Fn(&marketplace_client::Session) -> marketplace_client::request::Request<T>,
    path: &str,
    method: &str,
) -> Vec<String>
where
    T: marketplace_client::request::DataMethod,
    T::Response: PartialEq + std::fmt::Debug + DeserializeOwned,
{
    let mut failures = Vec::new();
    for case in cases {
        let server = marketplace_tests::stub::StubServer::start()
            .await
            .unwrap_or_else(|e| panic!("stub: {e}"));
        let body = text(&case.body);
        server.fallback(
            path,
            marketplace_tests::stub::Reply::json(200, body.clone()),
        );
        let session = server
            .client()
            .session(marketplace_client::oauth::AccessToken::new(
                "token-rt17",
                "secret-rt17",
                jiff::Timestamp::now(),
            ));
        let got = call(&session).send().await;
        let want = decode::<Envelope<T::Response>>(body.as_bytes());
        let head = format!("{method} | {} | {}", case.path.join("."), case.label);
        match (got, want) {
            (Ok(v), Ok(w)) if v == w.data => {}
            (Ok(v), Ok(_)) => {
                failures.push(format!("{head} => the call read another value: {v:?}"))
            }
            (Ok(_), Err(e)) => failures.push(format!(
                "{head} => the call READ what decode refuses at `{}`",
                e.path
            )),
            (
                Err(marketplace_client::Error::Decode {
                    method: m, path: p, ..
                }),
                Err(e),
            ) if p == e.path && m == method => {}
            (Err(e), Err(d)) => failures.push(format!(
                "{head} => the call's error {e} is not decode's (`{}`: {})",
                d.path, d.message
            )),
            (Err(e), Ok(_)) => {
                failures.push(format!("{head} => the call REFUSED what decode reads: {e}"))
            }
        }
    }
    failures
}

/// One case per spelling label (the first place it occurs), to keep the calls few.
fn one_per_label(cases: Vec<Case>) -> Vec<Case> {
    let mut seen = std::collections::BTreeSet::new();
    cases
        .into_iter()
        .filter(|c| seen.insert(c.label.clone()))
        .collect()
}

#[tokio::test]
async fn a_real_call_reads_every_quirk_as_decode_does_and_names_the_same_path() {
    let samples = samples();
    let all = |s: &Sample| {
        let mut c = leaf_cases(
            s,
            &[
                Class::Decimal,
                Class::Int,
                Class::Epoch,
                Class::Day,
                Class::Bool,
                Class::Enum,
            ],
        );
        c.extend(keyed_cases(s));
        c.extend(array_cases(s));
        one_per_label(c)
    };
    let mut failures = Vec::new();
    let list = sample_named(&samples, "pay/getTimesheetsForBid");
    failures.extend(
        through_the_client(
            &all(list),
            |s| s.get_timesheets_for_bid(310_001),
            "/api/pay/getTimesheetsForBid",
            "pay/getTimesheetsForBid",
        )
        .await,
    );
    let pay = sample_named(&samples, "pay/getPayment");
    failures.extend(
        through_the_client(
            &all(pay),
            |s| s.get_payment(6901),
            "/api/pay/getPayment",
            "pay/getPayment",
        )
        .await,
    );
    let work = sample_named(&samples, "workroom/getWorkviewDetails");
    failures.extend(
        through_the_client(
            &all(work),
            |s| s.get_workview_details(310_003, 50_003),
            "/api/workroom/getWorkviewDetails",
            "workroom/getWorkviewDetails",
        )
        .await,
    );
    assert!(
        failures.is_empty(),
        "{} calls disagreed with decode:\n  {}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

// ---------------------------------------------------------------- the value in the error

/// `DecodeError::message` rustdoc: "What was wrong with it, and the value as it was spelled on
/// the wire when the body is JSON (…; on the wire: "1,000.00"), at most 80 characters of it";
/// bad-input.md: "A response value that does not fit names the method, the JSON path and the
/// value". Every refusal of a scalar spelling, at its own path, quotes it.
#[test]
fn every_refusal_of_a_scalar_quotes_the_value_as_spelled_on_the_wire() {
    let samples = samples();
    let mut n = 0;
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for sample in &samples {
        let mut cases = leaf_cases(
            sample,
            &[
                Class::Decimal,
                Class::Int,
                Class::Epoch,
                Class::Day,
                Class::Bool,
                Class::Enum,
            ],
        );
        cases.extend(exponent_cases(sample));
        for case in cases {
            let Some(wire) = at(&case.body, &case.path).map(text) else {
                continue;
            };
            if !wire.bytes().all(|b| (0x20..0x7f).contains(&b)) || wire.contains('\\') {
                continue;
            }
            let Run::Err(e) = sample.run(&case.body) else {
                continue;
            };
            if e.path != case.path.join(".") {
                continue;
            }
            n += 1;
            let excerpt: String = wire.chars().take(80).collect();
            // The value must be in the message, and an "on the wire:" quote must be it as
            // spelled (not another spelling of it).
            let named = e.message.contains(&excerpt);
            let misquoted = e
                .message
                .split_once("on the wire: ")
                .is_some_and(|(_, q)| !q.starts_with(&excerpt));
            if (!named || misquoted)
                && seen.insert(format!("{} {}", schema_of(&e.path), case.label))
            {
                failures.push(format!(
                    "{} | {} | {} | wire {} => message {}: {}",
                    sample.name.split('?').next().unwrap_or_default(),
                    e.path,
                    case.label,
                    short(&wire),
                    if named {
                        "quotes another spelling"
                    } else {
                        "without the value"
                    },
                    e.message
                ));
            }
        }
    }
    assert!(n > 0, "no refusal at a leaf");
    assert!(
        failures.is_empty(),
        "{} refusals (one per place and spelling) do not quote the value as spelled:\n  {}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

// ---------------------------------------------------------------- plain text fields

/// spec/README.md: "`string` | `String` | a JSON number is refused unless an encoding is read
/// leniently (`string_or_number` keeps it as its text)"; bad-input.md "A response value that
/// does not fit names … the JSON path". A text field that refuses a number refuses it, and
/// every other kind of value, at its own path.
fn plain_text_cases(sample: &Sample) -> Vec<Case> {
    let baseline = match sample.run(&sample.body) {
        Run::Ok(d) => d.json,
        _ => Value::Null,
    };
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if class != Class::Text
            || place.schema.starts_with("data.comments.")
            || json_at(&baseline, &place.path).is_none()
            || ok_with(sample, &place.path, raw("7"))
        {
            continue;
        }
        for (label, with) in [
            ("the number 7", raw("7")),
            ("the number 30.00", raw("30.00")),
            ("true", raw("true")),
            ("an object", raw("{\"a\":\"b\"}")),
            ("an array", raw("[\"a\"]")),
        ] {
            cases.push(leaf_case(
                &place,
                &format!("plain text: {label}"),
                with,
                Expect::Refuse,
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_plain_text_field_refuses_a_number_or_any_other_kind_at_its_path() {
    let samples = samples();
    report("plain text fields", run_cases(&samples, plain_text_cases));
}

// ---------------------------------------------------------------- 0 in a date field

/// The reference: "A value of 0 in a date or ID field means none/unset (for example paidDate,
/// paymentId, milestoneId)"; using-the-client.md lists "`0` meaning none" among the quirks
/// decoded. A date field sent 0 has no date: reading it as 1970-01-01 is another value. It must
/// be `None`, or refused at its path where the field cannot be none.
///
/// Restated to the documented design (ARCHITECTURE.md, "0 means none"): every date field that
/// can be none (it takes `null`) reads 0 as `None`; a field the spec has always set (every
/// timesheet has a week, every invoice a date) reads 0 as sent, the epoch, and is not attacked
/// here.
fn zero_date_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if !matches!(class, Class::Epoch | Class::Day) {
            continue;
        }
        let nullable = match sample.run(&replaced(&sample.body, &place.path, raw("null"))) {
            Run::Ok(d) => matches!(json_at(&d.json, &place.path), None | Some(Value::Null)),
            _ => false,
        };
        if !nullable {
            continue;
        }
        for (label, with) in [("0", raw("0")), ("\"0\"", s("0"))] {
            cases.push(leaf_case(
                &place,
                &format!("{class:?} date: {label}"),
                with,
                Expect::NothingOrRefuse,
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_date_field_sent_zero_is_none_or_refused_never_read_as_1970() {
    let samples = samples();
    report("0 in date fields", run_cases(&samples, zero_date_cases));
}

/// The same sentence for IDs: "A value of 0 in a date or ID field means none/unset". Where an ID
/// field is an `Option` (it takes `null`), 0 must be `None`, as it is for the `zero_is_none`
/// fields (paymentId, milestoneId, externalPaymentId, …), never `Some(0)`.
fn zero_id_cases(sample: &Sample) -> Vec<Case> {
    let mut cases = Vec::new();
    for (place, class) in leaves_of(sample) {
        if class != Class::Int || !place.schema.to_ascii_lowercase().ends_with("id") {
            continue;
        }
        let nullable = match sample.run(&replaced(&sample.body, &place.path, raw("null"))) {
            Run::Ok(d) => matches!(json_at(&d.json, &place.path), None | Some(Value::Null)),
            _ => false,
        };
        if !nullable {
            continue;
        }
        for (label, with) in [("0", raw("0")), ("\"0\"", s("0"))] {
            cases.push(leaf_case(
                &place,
                &format!("optional ID: {label}"),
                with,
                Expect::NothingOrRefuse,
                &sample.body,
            ));
        }
    }
    cases
}

#[test]
fn every_optional_id_field_sent_zero_is_none() {
    let samples = samples();
    report(
        "0 in optional ID fields",
        run_cases(&samples, zero_id_cases),
    );
}
