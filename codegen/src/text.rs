//! Characters of untrusted text that must not reach a terminal, a CI log or generated code.
//!
//! One definition serves both ways out: `resolve` refuses a spec text holding one
//! ([`ErrorKind::ControlCharacter`](crate::diagnostic::ErrorKind::ControlCharacter)), since
//! doc comments and literals would carry it into the generated files, and the tools pass every
//! report through [`escape_controls`] before printing it, since a spec string, a recorded value,
//! a file name or git's output can hold one. [`escape_controls`] keeps line feeds only (the
//! report's own line breaks; a tab is escaped too, since no report writes one and one quoted
//! would shift the columns after it), so untrusted text a report quotes goes through
//! [`Untrusted`] first, which escapes line feeds too.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

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

/// `text` with each character [`is_control`] finds, and each tab, written as `\u{…}`; line
/// feeds are kept. Borrowed when there is nothing to escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let is_control = |c: char| c == '\t' || is_control(c);
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

/// Untrusted text (a path, a name, a value from a file, the environment or git) to quote in
/// a line of a report: its `Display` writes every control character, line feed, carriage
/// return and tab included, as `\u{…}`, so the text can neither start a line of its own nor
/// move the cursor. [`escape_controls`] keeps line feeds, the tool's own line breaks; text the
/// tool did not write passes through this first.
#[derive(Clone, Copy, Debug)]
pub struct Untrusted<T>(pub T);

impl<T: fmt::Display> fmt::Display for Untrusted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(Escaping(f), "{}", self.0)
    }
}

/// Writes what it is given with every control character escaped.
struct Escaping<'a, 'f>(&'a mut fmt::Formatter<'f>);

impl fmt::Write for Escaping<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for c in text.chars() {
            if c.is_control() || is_control(c) {
                write!(self.0, "\\u{{{:x}}}", c as u32)?;
            } else {
                self.0.write_char(c)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// No text, whatever it holds, quoted through `Untrusted` carries a control
        /// character (a line break or tab among them), and the quote reads back as the text.
        #[test]
        fn untrusted_text_is_quoted_on_one_line_without_controls(
            text in "(\\PC|[\n\r\t\u{0}-\u{1f}\u{7f}-\u{9f}\u{202e}\u{2066}]){0,40}",
        ) {
            prop_assume!(!text.contains("\\u{"));
            let quoted = Untrusted(&text).to_string();
            prop_assert!(!quoted.chars().any(|c| c.is_control() || is_control(c)), "{quoted:?}");
            let mut rest = quoted.as_str();
            let mut read_back = String::new();
            while let Some(start) = rest.find("\\u{") {
                read_back.push_str(&rest[..start]);
                let end = start + rest[start..].find('}').unwrap();
                let code = u32::from_str_radix(&rest[start + 3..end], 16).unwrap();
                read_back.push(char::from_u32(code).unwrap());
                rest = &rest[end + 1..];
            }
            read_back.push_str(rest);
            prop_assert_eq!(read_back, text);
        }
    }

    #[test]
    fn escapes_controls_and_tabs_and_keeps_line_feeds_and_other_text() {
        assert_eq!(escape_controls("a\tb\nc é"), "a\\u{9}b\nc é");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\u{1b}[31mred\r\u{9b}\u{202e}x\u{0}"),
            "\\u{1b}[31mred\\u{d}\\u{9b}\\u{202e}x\\u{0}"
        );
    }
}
