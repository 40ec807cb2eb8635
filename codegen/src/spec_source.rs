//! A spec file as read. Its own module because the loader, the resolver, the location index and
//! the tools all take it: `location` and `resolve` then need not import each other.

/// One spec file's text and the name to report it by (e.g. `spec/pay.yaml`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecSource {
    /// The path shown in messages.
    pub path: String,
    /// The YAML text.
    pub text: String,
}
