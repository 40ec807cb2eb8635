//! Errors in a spec: what is wrong, in which file, where in it, and the nearest valid name.

use std::fmt;

pub use crate::location::LineCol;

/// One problem in the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
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
        write!(f, "{}", self.file)?;
        if let Some(LineCol { line, column }) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        if !self.path.is_empty() {
            write!(f, ": {}", self.path)?;
        }
        write!(f, ": {}", self.message)
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

/// `" (did you mean 'x'?)"` for the candidate nearest to `name`, or nothing when none is close.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    let best = candidates
        .into_iter()
        .map(|candidate| {
            let (name, lower) = (name.to_ascii_lowercase(), candidate.to_ascii_lowercase());
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
        Some((_, candidate)) => format!(" (did you mean '{candidate}'?)"),
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
            "spec/pay.yaml:41:9: types.Timesheet.fields.rate: unknown type 'decimall' (did you mean 'decimal'?)"
        );
    }
}
