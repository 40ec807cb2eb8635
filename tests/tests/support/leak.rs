//! The leak detector of the canary suites: whether a text still holds a secret, as it is or in
//! any reading a reader could undo (percent, form, JSON, HTML and Rust `Debug` escapes, one
//! inside another). Shared by `canary.rs` and `public_debug.rs`.

/// The ways a text could still hold a value: as it is, and with each escape family a reader
/// could undo, one inside another (two layers). A family is undone only where the text has its
/// escape character, and each distinct reading is kept once.
pub fn readings(text: &str) -> Vec<String> {
    type Undo = fn(&str) -> String;
    let undoes: [(char, Undo); 5] = [
        ('%', |t| percent_decode(t, false)),
        ('+', |t| percent_decode(t, true)),
        ('\\', json_unescape),
        ('\\', debug_unescape),
        ('&', html_unescape),
    ];
    let mut all = vec![text.to_owned()];
    let mut frontier = vec![text.to_owned()];
    for _ in 0..2 {
        let mut next = Vec::new();
        for reading in &frontier {
            for (marker, undo) in undoes {
                if !reading.contains(marker) {
                    continue;
                }
                let undone = undo(reading);
                if !all.contains(&undone) {
                    all.push(undone.clone());
                    next.push(undone);
                }
            }
        }
        frontier = next;
    }
    all
}

fn percent_decode(text: &str, plus: bool) -> String {
    let text = if plus {
        text.replace('+', " ")
    } else {
        text.to_owned()
    };
    percent_encoding::percent_decode_str(&text)
        .decode_utf8_lossy()
        .into_owned()
}

fn json_unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut pending_high: Option<u32> = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let Ok(unit) = u32::from_str_radix(&hex, 16) else {
                    out.push_str("\\u");
                    out.push_str(&hex);
                    continue;
                };
                if (0xD800..0xDC00).contains(&unit) {
                    pending_high = Some(unit);
                    continue;
                }
                let code = match pending_high.take() {
                    Some(high) if (0xDC00..0xE000).contains(&unit) => {
                        0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
                    }
                    _ => unit,
                };
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn html_unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&b| b == b';')
        else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..end];
        let c = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => name.strip_prefix('#').and_then(|number| {
                match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => number.parse().ok(),
                }
                .and_then(char::from_u32)
            }),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Rust `Debug` escapes (`\"`, `\\`, `\u{e9}`).
fn debug_unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let braced: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let code = braced.trim_start_matches('{');
                match u32::from_str_radix(code, 16).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => out.push_str(&braced),
                }
            }
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The first channel text that holds one of `secrets`, in any reading.
pub fn leak(texts: &[(String, String)], secrets: &[(String, String)]) -> Option<String> {
    // A `+` and a space are one in form encoding.
    let spaced: Vec<String> = secrets.iter().map(|(_, s)| s.replace('+', " ")).collect();
    for (channel, text) in texts {
        for reading in readings(text) {
            let spaced_reading = reading.replace('+', " ");
            for ((name, secret), spaced) in secrets.iter().zip(&spaced) {
                if reading.contains(secret.as_str()) || spaced_reading.contains(spaced.as_str()) {
                    return Some(format!(
                        "the {name} {secret:?} shows in {channel}: {}",
                        text.chars().take(2000).collect::<String>()
                    ));
                }
            }
        }
    }
    None
}
