//! Which member of an item is which on the other side: a field, a parameter or an enum value
//! is first the one of the same Rust name (what an app's code names, so what it means to the
//! app), else the one of the same wire name (a Rust rename), else, for a field, one that shares
//! a name with its alias (`documented_as`: the old decoders read it under that name too). The
//! simulation compares what an old app gets at a Rust path with what the new server means at
//! the counterpart, so a wire name that moves to another Rust name is a value that lands
//! elsewhere, not a rename.
//!
//! Each pairing is a pass over each side with a map of the other, never a search per member.

use std::collections::HashMap;

use crate::ir::{Enum, EnumValue, Field, Method, Param, Record};

/// The counterparts of the members of one side in the other, by position.
struct Pairs {
    /// Per old member, the index of its new counterpart.
    of_old: Vec<Option<usize>>,
    /// Per new member, whether an old member took it.
    taken: Vec<bool>,
}

impl Pairs {
    fn new(old: usize, new: usize) -> Pairs {
        Pairs {
            of_old: vec![None; old],
            taken: vec![false; new],
        }
    }

    /// Pairs each old member still alone with the first new member still alone that `key`
    /// gives the same key (`None`: no key in this step).
    fn step<'k>(
        &mut self,
        old: impl Iterator<Item = Vec<&'k str>>,
        new: impl Iterator<Item = Vec<&'k str>>,
    ) {
        let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, keys) in new.enumerate() {
            if self.taken[index] {
                continue;
            }
            for key in keys {
                by_key.entry(key).or_default().push(index);
            }
        }
        for (index, keys) in old.enumerate() {
            if self.of_old[index].is_some() {
                continue;
            }
            let found = keys.iter().find_map(|key| {
                by_key
                    .get(key)
                    .and_then(|candidates| candidates.iter().copied().find(|&c| !self.taken[c]))
            });
            if let Some(found) = found {
                self.of_old[index] = Some(found);
                self.taken[found] = true;
            }
        }
    }
}

/// The fields of `old` with their counterparts in `new`: by Rust name, then by wire name.
/// A field of one side alone is removed (or added).
pub fn fields<'a>(old: &'a Record, new: &'a Record) -> Vec<Option<&'a Field>> {
    found(field_steps(old, new, false), &new.fields)
}

/// [`fields`], as indices in `new`.
pub fn field_indices(old: &Record, new: &Record) -> Vec<Option<usize>> {
    field_steps(old, new, false)
}

/// [`meant`], as indices in `new`.
pub fn meant_indices(old: &Record, new: &Record) -> Vec<Option<usize>> {
    field_steps(old, new, true)
}

fn found<T>(indices: Vec<Option<usize>>, items: &[T]) -> Vec<Option<&T>> {
    indices
        .into_iter()
        .map(|at| at.and_then(|at| items.get(at)))
        .collect()
}

/// [`fields`], and then by a name in common with an alias: the field the new server means
/// where an old app reads one (what the old decoders read under the alias is that field).
pub fn meant<'a>(old: &'a Record, new: &'a Record) -> Vec<Option<&'a Field>> {
    found(field_steps(old, new, true), &new.fields)
}

fn field_steps(old: &Record, new: &Record, alias: bool) -> Vec<Option<usize>> {
    let mut pairs = Pairs::new(old.fields.len(), new.fields.len());
    pairs.step(
        old.fields.iter().map(|f| vec![f.rust_name.as_str()]),
        new.fields.iter().map(|f| vec![f.rust_name.as_str()]),
    );
    pairs.step(
        old.fields.iter().map(|f| vec![f.wire_name.as_str()]),
        new.fields.iter().map(|f| vec![f.wire_name.as_str()]),
    );
    if alias {
        let names = |f: &Field| {
            std::iter::once(f.wire_name.clone())
                .chain(f.documented_as.clone())
                .collect::<Vec<_>>()
        };
        let (old_names, new_names): (Vec<Vec<String>>, Vec<Vec<String>>) = (
            old.fields.iter().map(names).collect(),
            new.fields.iter().map(names).collect(),
        );
        pairs.step(
            old_names
                .iter()
                .map(|n| n.iter().map(String::as_str).collect()),
            new_names
                .iter()
                .map(|n| n.iter().map(String::as_str).collect()),
        );
    }
    pairs.of_old
}

/// The parameters of `old` with their counterparts in `new`: by Rust name (the setter's or
/// the argument's), then by wire name.
pub fn params<'a>(old: &'a Method, new: &'a Method) -> Vec<Option<&'a Param>> {
    let mut pairs = Pairs::new(old.params.len(), new.params.len());
    pairs.step(
        old.params.iter().map(|p| vec![p.rust_name.as_str()]),
        new.params.iter().map(|p| vec![p.rust_name.as_str()]),
    );
    pairs.step(
        old.params.iter().map(|p| vec![p.wire_name.as_str()]),
        new.params.iter().map(|p| vec![p.wire_name.as_str()]),
    );
    pairs
        .of_old
        .into_iter()
        .map(|at| at.and_then(|at| new.params.get(at)))
        .collect()
}

/// The values of `old` with their counterparts in `new`: by variant, then by spelling.
pub fn values<'a>(old: &'a Enum, new: &'a Enum) -> Vec<Option<&'a EnumValue>> {
    let mut pairs = Pairs::new(old.values.len(), new.values.len());
    pairs.step(
        old.values.iter().map(|v| vec![v.variant.as_str()]),
        new.values.iter().map(|v| vec![v.variant.as_str()]),
    );
    pairs.step(
        old.values.iter().map(|v| vec![v.wire.as_str()]),
        new.values.iter().map(|v| vec![v.wire.as_str()]),
    );
    pairs
        .of_old
        .into_iter()
        .map(|at| at.and_then(|at| new.values.get(at)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FieldEncoding, Presence, Scalar, TypeRef};

    fn field(wire: &str, rust: &str, alias: Option<&str>) -> Field {
        Field {
            wire_name: wire.to_owned(),
            rust_name: rust.to_owned(),
            doc: "d".to_owned(),
            ty: TypeRef::Scalar(Scalar::String),
            encoding: FieldEncoding::Itself,
            presence: Presence::Always,
            nullable: false,
            zero_is_none: false,
            documented_as: alias.map(str::to_owned),
            documented_type: None,
            narrowed: None,
        }
    }

    fn record(fields: Vec<Field>) -> Record {
        Record {
            name: "R".to_owned(),
            documented_as: None,
            doc: "d".to_owned(),
            opaque: false,
            fields,
            delivered_by: Vec::new(),
            file: 0,
        }
    }

    fn names(pairs: &[Option<&Field>]) -> Vec<Option<String>> {
        pairs
            .iter()
            .map(|f| f.map(|f| format!("{}:{}", f.rust_name, f.wire_name)))
            .collect()
    }

    #[test]
    fn a_rust_name_pairs_first_so_swapped_wire_names_are_not_renames() {
        let old = record(vec![field("x", "a", None), field("y", "b", None)]);
        let new = record(vec![field("y", "a", None), field("x", "b", None)]);
        assert_eq!(
            names(&fields(&old, &new)),
            [Some("a:y".to_owned()), Some("b:x".to_owned())]
        );
    }

    #[test]
    fn a_wire_name_pairs_a_rust_rename_and_an_alias_pairs_only_the_meaning() {
        let old = record(vec![
            field("x", "a", None),
            field("invoiceId", "invoice_id", Some("invoice")),
        ]);
        let new = record(vec![
            field("x", "c", None),
            field("invoice", "invoice_ref", None),
        ]);
        assert_eq!(names(&fields(&old, &new)), [Some("c:x".to_owned()), None]);
        assert_eq!(
            names(&meant(&old, &new)),
            [
                Some("c:x".to_owned()),
                Some("invoice_ref:invoice".to_owned())
            ]
        );
    }
}
