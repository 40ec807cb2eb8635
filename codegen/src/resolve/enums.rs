//! The `enums` section, and the variants of every generated enum (the spec's enums and
//! `ErrorCode`, whose variants come from the error codes): each derived from a wire value, a
//! Rust variant name, once per enum.

use std::collections::HashMap;

use super::{At, Defined, Names, Resolver, at};
use crate::diagnostic::ErrorKind;
use crate::ir;
use crate::model;
use crate::naming;

/// The variants of one generated enum, as they are derived.
pub(super) struct Variants<'w> {
    /// An open enum has `Other(String)` for unknown values.
    open: bool,
    taken: HashMap<String, &'w str>,
}

impl<'w> Variants<'w> {
    pub(super) fn new(open: bool) -> Self {
        Variants {
            open,
            taken: HashMap::new(),
        }
    }
}

impl Resolver<'_> {
    pub(super) fn enumeration(
        &mut self,
        e: &Defined<'_, model::EnumDef>,
        names: &Names<'_>,
    ) -> ir::Enum {
        self.check_type_name(e.file, "enums", e.name, names);
        if e.def.values.is_empty() {
            self.report(
                ErrorKind::EmptyEnum,
                at(e.file, &["enums", e.name]),
                "an enum needs at least one value",
            );
        }
        let mut variants = Variants::new(e.def.open);
        let values = e
            .def
            .values
            .iter()
            .map(|(wire, doc)| {
                let place = at(e.file, &["enums", e.name, "values", wire]);
                let variant = self.variant(&mut variants, wire, place);
                ir::EnumValue {
                    wire: wire.clone(),
                    variant,
                    doc: doc.clone(),
                }
            })
            .collect();
        ir::Enum {
            name: e.name.to_owned(),
            doc: e.def.doc.clone(),
            open: e.def.open,
            values,
            file: e.file,
        }
    }

    /// The variant of the wire value `wire`, checked: a Rust variant name, not `Other` in an
    /// open enum, and no other value's.
    pub(super) fn variant<'w>(
        &mut self,
        variants: &mut Variants<'w>,
        wire: &'w str,
        place: At<'_>,
    ) -> String {
        let variant = naming::variant_name(wire);
        if !naming::is_camel_identifier(&variant) {
            self.report(
                ErrorKind::InvalidVariant,
                place,
                format!(
                    "cannot derive a Rust variant name from '{wire}' (it gives '{variant}', not \
                     an ASCII UpperCamelCase name)"
                ),
            );
        } else if variants.open && variant == "Other" {
            self.report(
                ErrorKind::InvalidVariant,
                place,
                "the variant 'Other' is reserved for unknown values of an open enum",
            );
        } else if let Some(previous) = variants.taken.insert(variant.clone(), wire) {
            self.report(
                ErrorKind::DuplicateVariant,
                place,
                format!("'{wire}' and '{previous}' both become the variant '{variant}'"),
            );
        }
        variant
    }
}
