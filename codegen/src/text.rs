//! Characters of untrusted text that must not reach a terminal, a CI log or generated code.
//!
//! One definition serves both ways out: `resolve` refuses a spec text holding one
//! ([`ErrorKind::ControlCharacter`](crate::diagnostic::ErrorKind::ControlCharacter)), since
//! doc comments and literals would carry it into the generated files, and the tools pass every
//! report through [`escape_controls`] before printing it, since a spec string, a recorded value,
//! a file name or git's output can hold one.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is a control character other than line feed and tab (C0, DEL, C1: ESC starts
/// terminal sequences, CR rewrites a line), or a bidirectional-text control, which reorders
/// what a reader sees (and which rustc refuses in comments and literals).
pub fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with each character [`is_control`] finds written as `\u{…}`; line feeds and tabs
/// are kept. Borrowed when there is nothing to escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_control) else {
        return Cow::Borrowed(text);
    };
    let mut escaped = String::with_capacity(text.len() + 16);
    escaped.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_control(c) {
            let _ = write!(escaped, "\\u{{{:x}}}", c as u32);
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_keeps_line_feeds_tabs_and_other_text() {
        assert_eq!(escape_controls("a\tb\nc é"), "a\tb\nc é");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\u{1b}[31mred\r\u{9b}\u{202e}x\u{0}"),
            "\\u{1b}[31mred\\u{d}\\u{9b}\\u{202e}x\\u{0}"
        );
    }
}
