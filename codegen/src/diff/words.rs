//! Human words for the values a change compares: ranges, sets, options, encodings.

use std::collections::HashSet;

use crate::ir::{BeyondLast, ErrorCode, Field, Paging, Param, Presence};

/// `at least 1, at most 25`, `at most 20`, `any value`.
pub fn bounds(param: &Param) -> String {
    match (param.min, param.max) {
        (Some(min), Some(max)) => format!("at least {min}, at most {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("at most {max}"),
        (None, None) => "any value".to_owned(),
    }
}

/// `a count`, `an integer`, `an id`.
pub fn article(noun: &str) -> String {
    let vowel = noun.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// `10` or `none`.
pub fn option<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or("none".to_owned(), |v| v.to_string())
}

/// `a, b and c`, `none`.
pub fn list<T: AsRef<str>>(items: &[T]) -> String {
    match items {
        [] => "none".to_owned(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => format!(
            "{} and {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

/// What was added to and removed from a set: `+ E_X, - E_Y`.
pub fn set_change<T: AsRef<str>>(old: &[T], new: &[T]) -> String {
    fn set<T: AsRef<str>>(items: &[T]) -> HashSet<&str> {
        items.iter().map(AsRef::as_ref).collect()
    }
    let (old_set, new_set) = (set(old), set(new));
    let added: Vec<&str> = new
        .iter()
        .map(AsRef::as_ref)
        .filter(|x| !old_set.contains(x))
        .collect();
    let removed: Vec<&str> = old
        .iter()
        .map(AsRef::as_ref)
        .filter(|x| !new_set.contains(x))
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("added {}", list(&added)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", list(&removed)));
    }
    parts.join("; ")
}

/// `, which every method documents` (with `verb`) for a code that names no method (every
/// method's, as `Api::errors_of` reads it), else nothing.
pub fn every_method(code: &ErrorCode, verb: &str) -> String {
    if code.methods.is_none() {
        format!(", which every method {verb}")
    } else {
        String::new()
    }
}

/// `string or number`, `DD-MON-YY`.
pub fn encodings(field: &Field) -> String {
    let names: Vec<&str> = field
        .encoding
        .distinct()
        .iter()
        .map(|e| e.spec_name())
        .collect();
    list(&names)
}

/// When a field is present, in words.
pub fn presence(field: &Field) -> String {
    let mut words = match &field.presence {
        Presence::Always => "always present".to_owned(),
        Presence::Optional(None) => "optional".to_owned(),
        Presence::Optional(Some(when)) => format!("optional ({})", short(when)),
        Presence::OnlyIn(methods) => format!("only in {}", list(methods)),
        Presence::AbsentIn(methods) => format!("absent in {}", list(methods)),
    };
    if field.nullable {
        words.push_str(", may be null");
    }
    if field.zero_is_none {
        words.push_str(", 0 means none");
    }
    words
}

/// How a method pages, in words.
pub fn paging(paging: Option<&Paging>) -> String {
    let Some(p) = paging else {
        return "not paged".to_owned();
    };
    let count = match &p.total_pages {
        Some(field) => format!(
            "page count in {field}, pages {} it empty",
            match p.beyond_last {
                BeyondLast::AboveTotal => "above",
                BeyondLast::AtOrAboveTotal => "at or above",
            }
        ),
        None => "no page count".to_owned(),
    };
    format!(
        "pages by {} and {}, items in {}, {count}",
        p.page_param, p.size_param, p.items
    )
}

/// The first 60 characters of a text, on one line, quoted.
pub fn short(doc: &str) -> String {
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(60) {
        Some((at, _)) => format!("\"{}…\"", &flat[..at]),
        None => format!("\"{flat}\""),
    }
}

/// Two texts, each on one line and quoted, cut to where they differ: the common start and end
/// are left out (`…`) but for a few words of context, so that two long texts that differ in
/// their last word do not read the same.
pub fn text_change(old: &str, new: &str) -> (String, String) {
    const CONTEXT: usize = 20;
    const MOST: usize = 80;
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let (old, new) = (flat(old), flat(new));
    let (a, b): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let rest = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(rest)
        .take_while(|(x, y)| x == y)
        .count();
    let start = prefix.saturating_sub(CONTEXT);
    let cut = |chars: &[char]| {
        let end = (chars.len() - suffix + CONTEXT).min(chars.len());
        let mut shown: String = chars[start..end].iter().take(MOST).collect();
        if start > 0 {
            shown.insert(0, '…');
        }
        if end - start > MOST || end < chars.len() {
            shown.push('…');
        }
        format!("\"{shown}\"")
    };
    (cut(&a), cut(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_lists_read_as_words() {
        assert_eq!(list(&["a"]), "a");
        assert_eq!(list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(set_change(&["a", "b"], &["b", "c"]), "added c; removed a");
        assert_eq!(option(Some(3)), "3");
        assert_eq!(option::<u8>(None), "none");
    }

    #[test]
    fn a_text_change_shows_where_the_texts_differ() {
        let list = |last: &str| {
            format!("pay/getTimesheets, pay/getTimesheet, pay/getStatusReports, pay/{last}")
        };
        let (old, new) = text_change(&list("getInvoice"), &list("getPayment"));
        assert_ne!(old, new);
        assert!(
            old.contains("getInvoice") && new.contains("getPayment"),
            "{old} {new}"
        );
        assert!(old.starts_with("\"…"), "{old}");
        assert_eq!(
            text_change("A.", "B."),
            ("\"A.\"".to_owned(), "\"B.\"".to_owned())
        );
        let (old, new) = text_change(
            "Same start. Old middle. Same end.",
            "Same start. New. Same end.",
        );
        assert!(
            old.contains("Old middle") && new.contains("New."),
            "{old} {new}"
        );
        // Texts of any length, differing anywhere, never read the same.
        for at in [0, 10, 200] {
            let text = "word ".repeat(60);
            let mut other = text.clone();
            other.replace_range(at..at + 4, "WORD");
            let (a, b) = text_change(&text, &other);
            assert_ne!(a, b, "a change at {at}");
        }
    }
}
