//! Synthetic specs and references that grow with `n`, shared by the `linear_readers` bench
//! (how the tools' cost grows) and `tests/large_specs.rs` (what they find on megabytes).
//!
//! A spec is `n` units. Unit `i` holds an error code, an enum, a paged method over a list
//! type whose fields are of every kind (scalar, enum, record, list of records), a record every
//! unit's list shares, and a method over a type of its own; the head side of a pair differs
//! from the base side in every item (see [`CHANGES_PER_UNIT`]). The audit's spec is `n` types,
//! each with a field typed narrower than the reference, with a `narrowed:` quote that the
//! reference holds for even `i` and not for odd `i`.

use std::fmt::Write as _;

use marketplace_codegen::SpecSource;

/// Which side of a spec change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Before.
    Base,
    /// After: every unit changed.
    Head,
}

/// Units per spec file: a file holds at most 1 MiB, a unit under 2 KB.
const UNITS_PER_FILE: usize = 250;

/// The changes each unit makes from base to head, by rule, with the subject of each (`{i}`
/// stands for the unit's number).
pub const CHANGES_PER_UNIT: &[(&str, &str)] = &[
    ("method-renamed", "methods.g/w{i}"),
    ("param-added-required", "methods.g/m{i}.params.r"),
    ("param-removed", "methods.g/m{i}.params.q"),
    ("param-cap-changed", "methods.g/m{i}.params.rpp"),
    ("method-errors-changed", "methods.g/m{i}"),
    ("field-added", "types.T{i}.fields.added"),
    ("field-removed", "types.T{i}.fields.gone"),
    ("field-type-widened", "types.T{i}.fields.id"),
    ("field-became-optional", "types.T{i}.fields.kind"),
    ("field-became-nullable", "types.T{i}.fields.shared"),
    ("enum-value-added", "enums.E{i}.values.C{i}"),
    ("enum-value-removed", "enums.E{i}.values.B{i}"),
    ("type-renamed", "types.S{i}"),
    ("error-code-added", "errors.E_D{i}"),
    ("error-code-removed", "errors.E_X{i}"),
    ("doc-changed", "errors.E_C{i}"),
    ("doc-changed", "enums.E{i}"),
    ("doc-changed", "types.T{i}"),
    ("doc-changed", "types.T{i}.fields.note"),
    ("doc-changed", "methods.g/m{i}"),
];

/// The spec of `units` units on one side, in files of [`UNITS_PER_FILE`] units.
pub fn api(units: usize, side: Side) -> Vec<SpecSource> {
    let head = side == Side::Head;
    let mut sources = Vec::new();
    for (file, first) in (0..units.max(1)).step_by(UNITS_PER_FILE).enumerate() {
        let range = first..(first + UNITS_PER_FILE).min(units);
        let mut text = String::new();
        text.push_str("errors:\n");
        for i in range.clone() {
            let changed = if head { " Changed." } else { "" };
            let _ = writeln!(
                text,
                "  E_C{i}: {{ doc: Code {i}.{changed}, methods: [g/m{i}] }}"
            );
            let _ = if head {
                writeln!(text, "  E_D{i}: {{ doc: Added {i}., methods: [g/m{i}] }}")
            } else {
                writeln!(text, "  E_X{i}: {{ doc: Removed {i}. }}")
            };
        }
        text.push_str("enums:\n");
        for i in range.clone() {
            let (doc, last) = if head {
                ("Kind, changed.", format!("C{i}: C."))
            } else {
                ("Kind.", format!("B{i}: B."))
            };
            let _ = write!(
                text,
                "  E{i}:\n    doc: {doc}\n    values:\n      A{i}: A.\n      {last}\n"
            );
        }
        text.push_str("types:\n");
        if file == 0 {
            text.push_str(
                "  Shared:\n    doc: Shared by every unit.\n    fields:\n      \
                 x: { type: string, doc: X. }\n",
            );
        }
        for i in range.clone() {
            let (doc, id, kind, shared, last, note) = if head {
                (
                    "A page, changed.",
                    "integer",
                    ", optional: true",
                    ", nullable: true",
                    "added: { type: decimal, doc: Added. }",
                    "Note changed.",
                )
            } else {
                (
                    "A page.",
                    "id",
                    "",
                    "",
                    "gone: { type: string, doc: Gone. }",
                    "Note.",
                )
            };
            let _ = write!(
                text,
                "  T{i}:\n    doc: {doc}\n    fields:\n      \
                 total: {{ type: count, doc: Pages. }}\n      \
                 items: {{ type: list<Shared>, doc: Items. }}\n      \
                 id: {{ type: {id}, doc: ID. }}\n      \
                 kind: {{ type: E{i}, doc: Kind.{kind} }}\n      \
                 shared: {{ type: Shared, doc: Shared.{shared} }}\n      \
                 note: {{ type: string, doc: {note} }}\n      \
                 {last}\n"
            );
            let renamed = if head { 'S' } else { 'R' };
            let _ = write!(
                text,
                "  {renamed}{i}:\n    doc: Renamed.\n    fields:\n      \
                 r{i}: {{ type: string, doc: R. }}\n"
            );
        }
        text.push_str("methods:\n");
        for i in range {
            let (doc, cap, param, errors) = if head {
                (
                    "Method, changed.",
                    20,
                    "r: { type: id, required: true, doc: R. }",
                    format!("[E_C{i}, E_D{i}]"),
                )
            } else {
                (
                    "Method.",
                    25,
                    "q: { type: id, doc: Q. }",
                    format!("[E_C{i}]"),
                )
            };
            let _ = write!(
                text,
                "  g/m{i}:\n    doc: {doc}\n    response: T{i}\n    params:\n      \
                 page: {{ type: count, min: 1, doc: Page. }}\n      \
                 rpp: {{ type: count, min: 1, max: {cap}, doc: Size. }}\n      \
                 {param}\n    \
                 paging: {{ page_param: page, size_param: rpp, items: items, \
                 total_pages: total, beyond_last: above_total }}\n    \
                 errors: {errors}\n"
            );
            let (method, response) = if head { ('w', 'S') } else { ('o', 'R') };
            let _ = write!(
                text,
                "  g/{method}{i}:\n    doc: Other.\n    response: {response}{i}\n"
            );
        }
        sources.push(SpecSource {
            path: format!("spec/unit{file}.yaml"),
            text,
        });
    }
    sources
}

/// The audit's spec: `units` types `Q{i}`, documented as `Q{i}Data`, each with a field `v{i}`
/// typed `id` where the reference says `string`, and a `narrowed:` quoting the reference's
/// row (odd `i`: a row it does not have).
pub fn audited(units: usize) -> Vec<SpecSource> {
    let mut sources = Vec::new();
    for (file, first) in (0..units.max(1)).step_by(UNITS_PER_FILE * 4).enumerate() {
        let mut text = String::from("types:\n");
        for i in first..(first + UNITS_PER_FILE * 4).min(units) {
            let _ = write!(
                text,
                "  Q{i}:\n    documented_as: Q{i}Data\n    doc: A thing.\n    fields:\n      \
                 v{i}:\n        type: id\n        encoding: string\n        doc: V.\n        \
                 narrowed: Notes say \"{}\".\n",
                quote(i)
            );
        }
        sources.push(SpecSource {
            path: format!("spec/audited{file}.yaml"),
            text,
        });
    }
    sources
}

/// What the `narrowed:` of `v{i}` quotes.
pub fn quote(i: usize) -> String {
    if i % 2 == 0 {
        format!("| v{i} | string | Numeric text, {i}. |")
    } else {
        format!("| v{i} | string | Not in the reference, {i}. |")
    }
}

/// The reference of [`audited`]: a resource per type, with its row.
pub fn reference(units: usize) -> String {
    let mut text = String::from("## Resources and their fields\n\n");
    for i in 0..units {
        let _ = write!(
            text,
            "### Q{i}Data\n\n| Field | Type | Notes |\n|---|---|---|\n\
             | v{i} | string | Numeric text, {i}. |\n\n"
        );
    }
    text
}
