//! [`OneLine`]: text the service wrote, fit for one line of a log or a terminal.
//!
//! Every error's `Display` passes through it ([`Error`](crate::Error), [`ApiFailure`],
//! [`DecodeError`](crate::DecodeError)), so no message, code, body, JSON key or value the
//! service sent can start a line of its own in an app's log (forging an entry), drive a
//! terminal (an escape sequence, a carriage return) or reorder what a reader sees (a
//! bidirectional-text control).
//!
//! [`ApiFailure`]: crate::ApiFailure

use std::fmt::{self, Write as _};

/// `T`'s text on one line without a control character: each line break and tab (line feed,
/// carriage return, vertical tab, form feed, next line, the line and paragraph separators)
/// written as a space, every other control character (C0, DEL, C1: ESC starts a terminal
/// sequence) and every bidirectional-text control written as `\u{…}`. Other text is kept as
/// it is. Width, fill, alignment and precision apply to the text as shown.
///
/// The client's errors are written through it; an app prints what the service sent (a job's
/// name, a user's, an error's message) through it the same way.
///
/// ```
/// use marketplace_client::OneLine;
///
/// let name = "Logo\r\nERROR forged entry \u{1b}[2J\u{202e}";
/// assert_eq!(
///     OneLine(name).to_string(),
///     "Logo  ERROR forged entry \\u{1b}[2J\\u{202e}"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OneLine<T>(pub T);

impl<T: fmt::Display> fmt::Display for OneLine<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_none() && f.precision().is_none() {
            return write!(Flattening(f), "{}", self.0);
        }
        // Padded or cut as asked, counting the characters shown.
        let mut shown = String::new();
        write!(Shown(&mut shown), "{}", self.0)?;
        f.pad(&shown)
    }
}

/// Writes what it is given on one line into a `String`.
struct Shown<'a>(&'a mut String);

impl fmt::Write for Shown<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        flatten(text, self.0)
    }
}

/// Writes what it is given on one line, as [`OneLine`] says.
struct Flattening<'a, 'f>(&'a mut fmt::Formatter<'f>);

impl fmt::Write for Flattening<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        flatten(text, self.0)
    }
}

/// `text` written to `out` as [`OneLine`] says: the one rule of both writers.
fn flatten(text: &str, out: &mut impl fmt::Write) -> fmt::Result {
    let mut kept = 0;
    for (at, c) in text.char_indices() {
        let Some(shown) = shown_as(c) else { continue };
        out.write_str(&text[kept..at])?;
        match shown {
            ShownAs::Space => out.write_char(' ')?,
            ShownAs::Escaped => write!(out, "\\u{{{:x}}}", c as u32)?,
        }
        kept = at + c.len_utf8();
    }
    out.write_str(&text[kept..])
}

enum ShownAs {
    Space,
    Escaped,
}

/// How `c` is shown, `None` when as it is.
fn shown_as(c: char) -> Option<ShownAs> {
    match c {
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
            Some(ShownAs::Space)
        }
        c if hides_or_reorders(c) => Some(ShownAs::Escaped),
        _ => None,
    }
}

/// Whether `c` is a control character (C0, DEL, C1: a terminal or a log reads them as
/// commands) or a bidirectional-text control (U+061C, U+200E, U+200F, U+202A to U+202E,
/// U+2066 to U+2069: it reorders what a reader sees). The one definition of the client: what
/// [`OneLine`] never shows as it is, and what a verifier or a callback may not hold.
pub(crate) fn hides_or_reorders(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn is_line_breaking_or_control(c: char) -> bool {
        c.is_control()
            || matches!(
                c,
                '\u{2028}'
                    | '\u{2029}'
                    | '\u{061C}'
                    | '\u{200E}'
                    | '\u{200F}'
                    | '\u{202A}'..='\u{202E}'
                    | '\u{2066}'..='\u{2069}'
            )
    }

    proptest! {
        /// Whatever the text, what is shown holds no control character, and the text's other
        /// characters are all there, in order.
        #[test]
        fn any_text_is_shown_on_one_line_with_its_other_characters_kept(text in any::<String>()) {
            let shown = OneLine(&text).to_string();
            prop_assert!(!shown.chars().any(is_line_breaking_or_control), "{shown:?}");
            let kept: String = text.chars().filter(|&c| shown_as(c).is_none()).collect();
            let mut rest = shown.as_str();
            for c in kept.chars() {
                let at = rest.find(c);
                prop_assert!(at.is_some(), "{c:?} lost from {shown:?}");
                rest = &rest[at.unwrap_or(0) + c.len_utf8()..];
            }
        }
    }

    #[test]
    fn width_and_precision_count_the_characters_shown() {
        assert_eq!(format!("[{:<6}]", OneLine("a\nb")), "[a b   ]");
        assert_eq!(format!("[{:>8.5}]", OneLine("\u{1b}xyz")), "[   \\u{1b]");
    }

    #[test]
    fn text_without_controls_is_shown_as_it_is() {
        let text = "pay/getTimesheet: Ungültige ID «999» — 工时表";
        assert_eq!(OneLine(text).to_string(), text);
    }
}
