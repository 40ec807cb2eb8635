//! [`BuildError`]: what a model builder's `build()` says when a required field is unset.

/// A model builder's `build()` without a value for every field the service always sends
/// (`Timesheet::builder()…build()`); optional fields and lists need none.
///
/// ```
/// use marketplace_client::{Decimal, Timesheet};
///
/// let error = Timesheet::builder().id(880104).rate(Decimal::new(3000, 2)).build().unwrap_err();
/// assert_eq!(error.type_name, "Timesheet");
/// assert!(error.missing.contains(&"week"));
/// assert!(!error.missing.contains(&"rate"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot build {type_name}: no value for {}", missing.join(", "))]
#[non_exhaustive]
pub struct BuildError {
    /// The type being built, e.g. `Timesheet`.
    pub type_name: &'static str,
    /// The required fields left unset, by their Rust names (the setters'), in declaration
    /// order.
    pub missing: Vec<&'static str>,
}

impl BuildError {
    /// The error of `type_name`'s builder, from each required field and whether it is unset.
    pub(crate) fn new<const N: usize>(
        type_name: &'static str,
        fields: [(&'static str, bool); N],
    ) -> BuildError {
        BuildError {
            type_name,
            missing: fields
                .into_iter()
                .filter_map(|(name, unset)| unset.then_some(name))
                .collect(),
        }
    }
}
