//! JSON values as the wire model writes and reads them: [`Json`] keeps a number's text and an
//! absent key, and the readers here see a value as the runtime's decoders do (a number's
//! digits, a day's text, a collection's index keys).

use crate::ir::JsonKind;

/// A JSON value; `Absent` is a key left out of its object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Json {
    /// The key is not sent.
    Absent,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JSON number, as written.
    Number(String),
    /// A JSON string.
    Str(String),
    /// An object; keys with [`Json::Absent`] are left out.
    Object(Vec<(String, Json)>),
    /// An array, or an object keyed `"0"`, `"1"`, … (`keyed`).
    List {
        /// Sent as an index-keyed object.
        keyed: bool,
        /// The elements.
        items: Vec<Json>,
    },
}

impl Json {
    /// An example of the encoding table, written as JSON text (`true`, `1767571200`,
    /// `"05-JAN-26"`).
    pub fn from_example(text: &str) -> Json {
        match text {
            "null" => Json::Null,
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            _ => match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(inner) => Json::Str(inner.to_owned()),
                None => Json::Number(text.to_owned()),
            },
        }
    }

    /// A parsed JSON document: objects stay objects (an index-keyed list is an object until
    /// a spec says it is a list), arrays are unkeyed lists, numbers keep their text.
    pub fn from_value(value: &serde_json::Value) -> Json {
        use serde_json::Value;
        match value {
            Value::Null => Json::Null,
            Value::Bool(value) => Json::Bool(*value),
            Value::Number(number) => Json::Number(number.to_string()),
            Value::String(text) => Json::Str(text.clone()),
            Value::Array(items) => Json::List {
                keyed: false,
                items: items.iter().map(Json::from_value).collect(),
            },
            Value::Object(entries) => Json::Object(
                entries
                    .iter()
                    .map(|(key, value)| (key.clone(), Json::from_value(value)))
                    .collect(),
            ),
        }
    }

    /// The kind of JSON value (`None` for an absent key).
    pub fn kind(&self) -> Option<JsonKind> {
        Some(match self {
            Json::Absent => return None,
            Json::Null => JsonKind::Null,
            Json::Bool(_) => JsonKind::Boolean,
            Json::Number(_) => JsonKind::Number,
            Json::Str(_) => JsonKind::String,
            Json::Object(_) | Json::List { keyed: true, .. } => JsonKind::Object,
            Json::List { keyed: false, .. } => JsonKind::Array,
        })
    }

    /// The elements of a collection as the runtime's collection decoder reads them: an
    /// array's items, or the values of an object whose every key is a canonical index
    /// (`"0"`, `"17"`: digits without a leading zero), with their keys. `None` for anything
    /// else.
    pub fn collection_items(&self) -> Option<Vec<(String, &Json)>> {
        match self {
            Json::List { items, .. } => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| (index.to_string(), item))
                    .collect(),
            ),
            Json::Object(entries) => entries
                .iter()
                .map(|(key, value)| is_index(key).then(|| (key.clone(), value)))
                .collect(),
            _ => None,
        }
    }

    /// An object as a reviewer reads it: whole when its text is short, else its own entries
    /// with the objects and lists inside it shown as `{…}` and `[…]`.
    pub fn shown(&self) -> String {
        const SHORT: usize = 240;
        let text = self.to_text();
        let Json::Object(entries) = self else {
            return text;
        };
        if text.len() <= SHORT {
            return text;
        }
        let mut out = String::from("{");
        for (key, value) in entries.iter().filter(|(_, v)| *v != Json::Absent) {
            if out.len() > 1 {
                out.push(',');
            }
            write_string(&mut out, key);
            out.push(':');
            match value {
                Json::Object(inner) if inner.is_empty() => out.push_str("{}"),
                Json::Object(_) | Json::List { keyed: true, .. } => out.push_str("{…}"),
                Json::List { items, .. } if items.is_empty() => out.push_str("[]"),
                Json::List { .. } => out.push_str("[…]"),
                other => other.write(&mut out),
            }
        }
        out.push('}');
        out
    }

    /// The JSON text (for an absent value, `null`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Absent | Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(text) => out.push_str(text),
            Json::Str(text) => write_string(out, text),
            Json::Object(entries) => {
                out.push('{');
                let mut first = true;
                for (key, value) in entries.iter().filter(|(_, v)| *v != Json::Absent) {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
            Json::List { keyed, items } => {
                out.push(if *keyed { '{' } else { '[' });
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    if *keyed {
                        write_string(out, &index.to_string());
                        out.push(':');
                    }
                    item.write(out);
                }
                out.push(if *keyed { '}' } else { ']' });
            }
        }
    }
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Whether `key` is a canonical collection index: digits, no leading zero.
pub(super) fn is_index(key: &str) -> bool {
    !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'))
}

/// `DD-MON-YY` (upper-case month) or `YYYY-MM-DD`, the shapes the date decoder takes.
pub(super) fn is_day(text: &str) -> bool {
    day(text).is_some()
}

/// The day `DD-MON-YY` or `YYYY-MM-DD` text names, as `YYYY-MM-DD` (years `YY` are 20YY, as
/// the date decoder reads them).
pub(super) fn day(text: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = text.split('-').collect();
    match parts.as_slice() {
        [day, month, year] if day.len() == 2 && year.len() == 2 => {
            let month = MONTHS.iter().position(|m| m == month)? + 1;
            (digits(day) && digits(year)).then(|| format!("20{year}-{month:02}-{day}"))
        }
        [year, month, day] if year.len() == 4 && month.len() == 2 && day.len() == 2 => {
            (digits(year) && digits(month) && digits(day)).then(|| text.to_owned())
        }
        _ => None,
    }
}

/// What a number decoder sees in a JSON number or a string of digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Number {
    /// Below zero (`-0` is not).
    pub(super) negative: bool,
    /// With a fraction other than zeros.
    pub(super) fraction: bool,
    /// Zero, in any spelling.
    pub(super) zero: bool,
    /// The value, normalized: no leading zeros, no trailing zeros after the point, no
    /// point without a fraction, no sign on zero (`12.50` is `12.5`, `-0.0` is `0`).
    pub(super) canonical: String,
}

/// The number a JSON number or a string of digits holds, as the number decoders read it
/// (`None` for anything else).
pub(super) fn number(json: &Json) -> Option<Number> {
    let (Json::Number(text) | Json::Str(text)) = json else {
        return None;
    };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let zero = whole.bytes().all(|b| b == b'0') && fraction.bytes().all(|b| b == b'0');
    let whole = whole.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let mut canonical = String::new();
    if negative && !zero {
        canonical.push('-');
    }
    canonical.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        canonical.push('.');
        canonical.push_str(fraction);
    }
    Some(Number {
        negative: negative && !zero,
        fraction: !fraction.is_empty(),
        zero,
        canonical,
    })
}
