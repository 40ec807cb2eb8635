//! Sections across files: the files are merged, and a name may be defined only once.

use indexmap::IndexMap;

use super::{At, Defined, Resolver, at};
use crate::diagnostic::ErrorKind;
use crate::model::SpecFile;

impl Resolver<'_> {
    /// Gathers one section across files; a name defined twice is an error.
    pub(super) fn collect<'a, T>(
        &mut self,
        files: &'a [SpecFile],
        section: &'static str,
        get: impl Fn(&'a SpecFile) -> &'a IndexMap<String, T>,
    ) -> IndexMap<&'a str, Defined<'a, T>> {
        let mut all: IndexMap<&str, Defined<T>> = IndexMap::new();
        for (file, spec) in files.iter().enumerate() {
            for (name, def) in get(spec) {
                if let Some(first) = all.get(name.as_str()) {
                    let first = self.sources[first.file].path.clone();
                    self.report(
                        ErrorKind::DuplicateName,
                        at(file, &[section, name]),
                        format!("'{name}' is already defined in {first}"),
                    );
                } else {
                    all.insert(name, Defined { file, name, def });
                }
            }
        }
        all
    }

    /// A section that at most one file may have.
    pub(super) fn single<'a, T>(
        &mut self,
        files: &'a [SpecFile],
        section: &'static str,
        get: impl Fn(&'a SpecFile) -> Option<&'a T>,
    ) -> Option<(usize, &'a T)> {
        let mut found: Option<(usize, &T)> = None;
        for (file, spec) in files.iter().enumerate() {
            if let Some(def) = get(spec) {
                match found {
                    Some((first, _)) => {
                        let first = self.sources[first].path.clone();
                        let place: At<'_> = at(file, &[section]);
                        self.report(
                            ErrorKind::DuplicateSection,
                            place,
                            format!("'{section}' is already declared in {first}"),
                        );
                    }
                    None => found = Some((file, def)),
                }
            }
        }
        found
    }
}
