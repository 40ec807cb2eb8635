//! Errors in a spec: which rule it breaks, in which file, where in it, and the nearest valid
//! name.

use std::cell::Cell;
use std::fmt;

use crate::text::Untrusted;

pub use crate::location::LineCol;

/// Declares the validation rules: each variant with its stable id and what it refuses.
macro_rules! error_kinds {
    ($($(#[doc = $doc:literal])+ $variant:ident = $id:literal,)*) => {
        /// The validation rule a spec breaks. Each has a stable id, shown in messages
        /// (`spec/pay.yaml:41:9: unknown-type: …`) and listed in `spec/README.md`; tests and
        /// tools match on the kind, never on the wording.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $($(#[doc = $doc])+ $variant,)*
        }

        impl ErrorKind {
            /// Every rule, in the order of `spec/README.md`.
            pub const ALL: &[ErrorKind] = &[$(ErrorKind::$variant,)*];

            /// The stable id, e.g. `unknown-type`.
            pub fn id(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => $id,)*
                }
            }

            /// What the rule refuses, in one sentence.
            pub fn summary(self) -> &'static str {
                match self {
                    $(ErrorKind::$variant => concat!($($doc),+).trim_ascii(),)*
                }
            }
        }
    };
}

error_kinds! {
    /// A file larger than 1 MiB or nested deeper than 64 levels (refused before parsing), or
    /// methods that deliver types more than a million times in all.
    TooLarge = "too-large",
    /// Aliases that would expand a file to more than 2 MiB (twice the size limit), refused
    /// before parsing.
    AliasExpansion = "alias-expansion",
    /// A file that is not YAML (or not UTF-8 text, or has a line break only YAML 1.1 reads as
    /// one: U+0085, U+2028, U+2029).
    InvalidYaml = "invalid-yaml",
    /// A spec file whose name, less `.yaml`, is not a snake_case Rust module name, is one
    /// generated code reserves (`mod`, `std`, the crates it uses), or is another file's.
    InvalidFileName = "invalid-file-name",
    /// A control character (other than line feed and tab) or a bidirectional-text control in
    /// any text of the spec: generated doc comments and literals would carry it.
    ControlCharacter = "control-character",
    /// A key the format does not have (with the nearest one).
    UnknownKey = "unknown-key",
    /// A required key left out, or a token endpoint's documented `response` without
    /// `oauth_token` and `oauth_token_secret`, which the client reads.
    MissingKey = "missing-key",
    /// A value of the wrong kind for its key (a list for a text, …), or a `documented_type`
    /// that is the field's own type.
    InvalidValue = "invalid-value",
    /// A type, enum, method or error code defined twice, in one file or across files; a JSON
    /// key a type's fields are read from twice (a field's name and another's `documented_as`,
    /// or its own); a type's `documented_as` that is another's, or a type's name; a path two
    /// endpoints or methods share; or a list (`errors`, an error's `methods`, `only_in`,
    /// `absent_in`, `at_least_one_of`, `response`) naming one thing twice.
    DuplicateName = "duplicate-name",
    /// `api` or `oauth` declared by more than one file.
    DuplicateSection = "duplicate-section",
    /// A path that does not start with `/`.
    InvalidPath = "invalid-path",
    /// An OAuth endpoint's HTTP method other than the one the client sends it with (GET for
    /// `authorize`, POST for the others): the OAuth flow is the runtime's, not generated.
    UnknownHttpMethod = "unknown-http-method",
    /// A signature method other than HMAC-SHA1, the only one the client signs with.
    UnsupportedSignatureMethod = "unsupported-signature-method",
    /// An enum without values.
    EmptyEnum = "empty-enum",
    /// An enum value no Rust variant name can be derived from, or that takes `Other`, the
    /// variant of unknown values of an open enum.
    InvalidVariant = "invalid-variant",
    /// Two enum values that become the same variant.
    DuplicateVariant = "duplicate-variant",
    /// A type or enum name that is not an UpperCamelCase Rust name, or that generated code
    /// names otherwise: a prelude or runtime name it uses without a path (`Result`, `Into`,
    /// `Decimal`, `Session`, …) or one of the runtime's crate root (`Response`, `Envelope`, …).
    InvalidTypeName = "invalid-type-name",
    /// A type that is not a scalar, `list<T>`, a declared type or a declared enum (nested
    /// lists included).
    UnknownType = "unknown-type",
    /// An opaque type with fields, or a type with no fields that is not opaque.
    InvalidFields = "invalid-fields",
    /// A type that contains itself, through its own fields or other types' that are not
    /// lists: a value of it would be infinite (a list, which may be empty, breaks the cycle).
    RecursiveType = "recursive-type",
    /// A field, parameter or method whose Rust name (or a name derived from it: its request
    /// type, its constructors) is not snake_case without `__`, is a keyword, or cannot be
    /// derived.
    InvalidRustName = "invalid-rust-name",
    /// Two Rust items of the same name: two fields of a type, a method's request type and a
    /// type, an enum, a reserved type name or another method's request type, two `Session`
    /// constructors, a builder and a type, or a setter or constructor taking a method of the
    /// runtime's `Request` or `Session` or of a builder, their own or of a trait they derive
    /// (`build`, `clone`, `default`, …).
    RustNameTaken = "rust-name-taken",
    /// More than one of `optional`, `only_in` and `absent_in`, an empty method list, or one
    /// that names every method delivering the field (always there, or never).
    InvalidPresence = "invalid-presence",
    /// A method that is not declared.
    UnknownMethod = "unknown-method",
    /// A method named where the field or record is not delivered by it (`only_in`,
    /// `absent_in`, a per-method encoding).
    NotDelivered = "not-delivered",
    /// An encoding the field's type may not declare.
    UnknownEncoding = "unknown-encoding",
    /// A date without an encoding, or a per-method encoding that leaves out a method that
    /// delivers the field.
    MissingEncoding = "missing-encoding",
    /// `zero_is_none` on a field that cannot be 0 (not an integer, id or count, nor a date
    /// some method sends as epoch seconds).
    InvalidZeroIsNone = "invalid-zero-is-none",
    /// An empty `doc`.
    EmptyDoc = "empty-doc",
    /// A `narrowed:` that is empty or quotes no evidence in double quotes.
    InvalidNarrowed = "invalid-narrowed",
    /// A method name (or `delivered_api`) not of the form `group/method`.
    InvalidMethodName = "invalid-method-name",
    /// A parameter named in `at_least_one_of` or `paging` that the method does not have.
    UnknownParameter = "unknown-parameter",
    /// An `at_least_one_of` of fewer than two parameters or more than eight, or naming a
    /// required one.
    InvalidAlternatives = "invalid-alternatives",
    /// A parameter type other than integer, count, id and date.
    UnknownParameterType = "unknown-parameter-type",
    /// `default`, `min` or `max` that do not fit the parameter: on a date, negative for an
    /// unsigned type, below 1 for an ID, min above max, a default outside them or on a
    /// required parameter.
    InvalidBounds = "invalid-bounds",
    /// Paging by a parameter that is not a count, or by one parameter for the page and its
    /// size; a page parameter whose default (the first page a stream asks for) is not its
    /// min; items that are not a list, a page count that is not a count, a response field that
    /// does not exist or is absent from the method's answers, an unknown `beyond_last`, or a
    /// response type another paged method pages (its items are read from the type, once).
    InvalidPaging = "invalid-paging",
    /// An error code that is not declared.
    UnknownErrorCode = "unknown-error-code",
    /// An error code whose `methods` names a method whose `errors` leaves the code out, or a
    /// method's `errors` naming a code whose `methods` leaves the method out: documentation,
    /// the fake and the OpenAPI export would each tell a different story.
    ErrorListsDisagree = "error-lists-disagree",
    /// A data method's parameter named as an OAuth protocol parameter (`oauth_…`, RFC 5849),
    /// which the signature carries.
    ReservedParameter = "reserved-parameter",
}

impl ErrorKind {
    /// Whether the rule is one of agreement between two places of the spec that state the same
    /// fact, rather than one of what can be described or generated: a spec that breaks only
    /// such rules still resolves to a whole description. `spec-diff` reads its base revision so
    /// ([`resolve_leniently`](crate::resolve_leniently)), which an older spec, written before
    /// the rule, may break. A new rule must say which it is: this match has no wildcard.
    pub fn is_agreement(self) -> bool {
        match self {
            ErrorKind::ErrorListsDisagree => true,
            ErrorKind::TooLarge
            | ErrorKind::AliasExpansion
            | ErrorKind::InvalidYaml
            | ErrorKind::InvalidFileName
            | ErrorKind::ControlCharacter
            | ErrorKind::UnknownKey
            | ErrorKind::MissingKey
            | ErrorKind::InvalidValue
            | ErrorKind::DuplicateName
            | ErrorKind::DuplicateSection
            | ErrorKind::InvalidPath
            | ErrorKind::UnknownHttpMethod
            | ErrorKind::UnsupportedSignatureMethod
            | ErrorKind::EmptyEnum
            | ErrorKind::InvalidVariant
            | ErrorKind::DuplicateVariant
            | ErrorKind::InvalidTypeName
            | ErrorKind::UnknownType
            | ErrorKind::InvalidFields
            | ErrorKind::RecursiveType
            | ErrorKind::InvalidRustName
            | ErrorKind::RustNameTaken
            | ErrorKind::InvalidPresence
            | ErrorKind::UnknownMethod
            | ErrorKind::NotDelivered
            | ErrorKind::UnknownEncoding
            | ErrorKind::MissingEncoding
            | ErrorKind::InvalidZeroIsNone
            | ErrorKind::EmptyDoc
            | ErrorKind::InvalidNarrowed
            | ErrorKind::InvalidMethodName
            | ErrorKind::UnknownParameter
            | ErrorKind::InvalidAlternatives
            | ErrorKind::UnknownParameterType
            | ErrorKind::InvalidBounds
            | ErrorKind::InvalidPaging
            | ErrorKind::UnknownErrorCode
            | ErrorKind::ReservedParameter => false,
        }
    }
}

/// One problem in the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The rule it breaks.
    pub kind: ErrorKind,
    /// The spec file, as given to the loader (e.g. `spec/pay.yaml`).
    pub file: String,
    /// Where in the file, when known.
    pub location: Option<LineCol>,
    /// The path inside the spec, e.g. `types.Timesheet.fields.rate` (empty for the whole file).
    pub path: String,
    /// What is wrong, with a suggestion where one exists.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Untrusted(&self.file))?;
        if let Some(LineCol { line, column }) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.kind.id())?;
        if !self.path.is_empty() {
            write!(f, ": {}", Untrusted(&self.path))?;
        }
        write!(f, ": {}", Untrusted(&self.message))
    }
}

/// Every problem found in a spec, in file and line order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SpecErrors(pub Vec<SpecError>);

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_errors(f, &self.0, "the spec")
    }
}

/// One line per error, then `N error(s) in {source}`.
pub(crate) fn write_errors(
    f: &mut fmt::Formatter<'_>,
    errors: &[impl fmt::Display],
    source: &str,
) -> fmt::Result {
    for error in errors {
        writeln!(f, "{error}")?;
    }
    let count = errors.len();
    let plural = if count == 1 { "" } else { "s" };
    write!(f, "{count} error{plural} in {source}")
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(items: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let items: Vec<String> = items.into_iter().map(|i| i.as_ref().to_owned()).collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// How much work suggestions may take in one run (of `resolve`, of the reference reader),
/// in pairs of characters compared: each error compares its name with every candidate, so a
/// spec with many errors and many names would otherwise take time quadratic in its size. Past
/// the budget, errors come without a suggestion. A spec's errors use a tiny part of it.
const SUGGESTION_BUDGET: u64 = 2_000_000;

/// Names longer than this are not typos worth a suggestion (and cost the most to compare).
const MAX_SUGGESTED_LEN: usize = 64;

thread_local! {
    static SUGGESTIONS_LEFT: Cell<u64> = const { Cell::new(SUGGESTION_BUDGET) };
}

/// Runs `run` (one run of a reader) with a fresh suggestion budget.
pub(crate) fn with_suggestion_budget<T>(run: impl FnOnce() -> T) -> T {
    SUGGESTIONS_LEFT.with(|left| left.set(SUGGESTION_BUDGET));
    run()
}

/// Takes `cost` from the suggestion budget; `false` when it is spent.
fn spend(cost: u64) -> bool {
    SUGGESTIONS_LEFT.with(|left| match left.get().checked_sub(cost) {
        Some(rest) => {
            left.set(rest);
            true
        }
        None => {
            left.set(0);
            false
        }
    })
}

/// `" (did you mean 'name'?)"`: a name to write instead.
pub(crate) fn suggesting(name: &str) -> String {
    format!(" (did you mean '{name}'?)")
}

/// `" (did you mean 'x'?)"` for the candidate nearest to `name`, or nothing when none is close
/// (or the run's suggestion budget is spent).
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    if name.len() > MAX_SUGGESTED_LEN {
        return String::new();
    }
    let name = name.to_ascii_lowercase();
    let best = candidates
        .into_iter()
        .take_while(|candidate| {
            let compared = match candidate.len() {
                0..=MAX_SUGGESTED_LEN => name.len().max(1) * candidate.len().max(1),
                _ => 1,
            };
            spend(compared as u64)
        })
        .filter(|candidate| candidate.len() <= MAX_SUGGESTED_LEN)
        .map(|candidate| {
            let lower = candidate.to_ascii_lowercase();
            let mut score = strsim::normalized_damerau_levenshtein(&name, &lower);
            // A truncated name ('above' for 'above_total') is a likely slip too.
            if name.len() >= 3 && lower.starts_with(&name) {
                score = score.max(0.6);
            }
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, candidate)) => suggesting(candidate),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_candidate_only_when_close() {
        let names = ["decimal", "date", "string"];
        assert_eq!(
            did_you_mean("decimall", names),
            " (did you mean 'decimal'?)"
        );
        assert_eq!(did_you_mean("Strng", names), " (did you mean 'string'?)");
        assert_eq!(did_you_mean("xyzzy", names), "");
    }

    #[test]
    fn displays_file_line_column_path_and_message() {
        let error = SpecError {
            kind: ErrorKind::UnknownType,
            file: "spec/pay.yaml".into(),
            location: Some(LineCol {
                line: 41,
                column: 9,
            }),
            path: "types.Timesheet.fields.rate".into(),
            message: "unknown type 'decimall' (did you mean 'decimal'?)".into(),
        };
        assert_eq!(
            error.to_string(),
            "spec/pay.yaml:41:9: unknown-type: types.Timesheet.fields.rate: unknown type 'decimall' (did you mean 'decimal'?)"
        );
    }

    #[test]
    fn rule_ids_are_distinct_kebab_case_and_described() {
        let mut ids: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.id()).collect();
        for kind in ErrorKind::ALL {
            let id = kind.id();
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id}"
            );
            assert!(kind.summary().ends_with('.'), "{id}: {}", kind.summary());
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), ErrorKind::ALL.len());
    }
}
