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

impl SpecSource {
    /// The text the YAML is read from: without a byte order mark, which is no content (an
    /// editor does not show it). Every reader of the spec's YAML takes this, so that positions
    /// on line 1 are counted as the editor shows them, and the parser does not read the mark
    /// as a second document when it reports a duplicate key.
    pub fn yaml(&self) -> &str {
        without_byte_order_mark(&self.text)
    }

    /// The list of scalars at `path` (mapping keys from the file's root) as this file writes
    /// it, in its order: the IR reads the lists that are sets sorted (`resolve::as_set`), so a
    /// tool that writes one back or points into one reads it here. `None` where the file holds
    /// no such list there (or does not parse).
    pub(crate) fn written_list(&self, path: &[&str]) -> Option<Vec<String>> {
        written_list(&self.parsed()?, path)
    }

    /// The file's YAML as a tree, for readers that look into it more than once
    /// ([`written_list`]); `None` where it does not parse.
    pub(crate) fn parsed(&self) -> Option<serde_yaml::Value> {
        serde_yaml::from_str(self.yaml()).ok()
    }
}

/// The list of scalars at `path` of a spec file's tree ([`SpecSource::written_list`]).
pub(crate) fn written_list(root: &serde_yaml::Value, path: &[&str]) -> Option<Vec<String>> {
    let list = path.iter().try_fold(root, |node, key| node.get(*key))?;
    list.as_sequence()?
        .iter()
        .map(|value| value.as_str().map(str::to_owned))
        .collect()
}

/// `text` without the byte order mark it may start with ([`SpecSource::yaml`]).
pub(crate) fn without_byte_order_mark(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
