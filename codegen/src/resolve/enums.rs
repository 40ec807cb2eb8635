//! The `enums` section: variants derived from the wire values, each once.

use std::collections::HashMap;

use super::{Defined, Resolver, at};
use crate::diagnostic::ErrorKind;
use crate::ir;
use crate::model;
use crate::naming;

impl Resolver<'_> {
    pub(super) fn enumeration(&mut self, e: &Defined<'_, model::EnumDef>) -> ir::Enum {
        self.check_type_name(e.file, "enums", e.name);
        if e.def.values.is_empty() {
            self.report(
                ErrorKind::EmptyEnum,
                at(e.file, &["enums", e.name]),
                "an enum needs at least one value",
            );
        }
        let mut variants: HashMap<String, &str> = HashMap::new();
        let values = e
            .def
            .values
            .iter()
            .map(|(wire, doc)| {
                let variant = naming::variant_name(wire);
                let place = at(e.file, &["enums", e.name, "values", wire]);
                if variant.is_empty() {
                    self.report(
                        ErrorKind::InvalidVariant,
                        place,
                        format!("cannot derive a Rust variant name from '{wire}'"),
                    );
                } else if e.def.open && variant == "Other" {
                    self.report(
                        ErrorKind::InvalidVariant,
                        place,
                        "the variant 'Other' is reserved for unknown values of an open enum",
                    );
                } else if let Some(previous) = variants.insert(variant.clone(), wire) {
                    self.report(
                        ErrorKind::DuplicateVariant,
                        place,
                        format!("'{wire}' and '{previous}' both become the variant '{variant}'"),
                    );
                }
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
}
