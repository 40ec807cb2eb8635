//! One rule per file: each finds one kind of difference, says which part of the wire and which
//! public Rust items it touches, and names and words what the simulation found for it: the
//! verdicts are the witnesses the context's simulation finds (a wire verdict breaks exactly
//! when the rule is handed a witness). Adding a change kind is adding a file here, a line to
//! `rules!` below, and a fixture pair in `xtask/tests/spec-diff/`. A rule pairs the members of
//! an item pair (parameters, values, codes) through a map or a set of the other side, never a
//! search of it per member.

mod prelude {
    pub(super) use super::super::context::{Claim, Context, FieldPair};
    pub(super) use super::super::request::{Reading, Refused};
    pub(super) use super::super::witness::Witness;
    pub(super) use super::super::{Rule, Surface, words};
    pub(super) use crate::ir::{Field, Method, Param};
}

macro_rules! rules {
    ($($name:ident => $module:ident,)*) => {
        $(mod $module;)*
        /// The ids of the rules, as constants.
        pub mod ids {
            $(#[doc = concat!("The id of the rule in `rules/", stringify!($module), ".rs`.")] pub const $name: &str = super::$module::RULE.id;)*
        }
        /// Every rule, in report order.
        pub const ALL: &[super::Rule] = &[$($module::RULE,)*];
        /// Every rule with its check, in report order.
        pub const CHECKS: &[(super::Rule, fn(&mut super::context::Context<'_>))] =
            &[$(($module::RULE, $module::check),)*];
    };
}

rules! {
    METHOD_ADDED => method_added,
    METHOD_REMOVED => method_removed,
    METHOD_RENAMED => method_renamed,
    METHOD_RUST_NAME_CHANGED => method_rust_name_changed,
    METHOD_RESPONSE_CHANGED => method_response_changed,
    METHOD_DELIVERED_API_CHANGED => method_delivered_api_changed,
    METHOD_ERRORS_CHANGED => method_errors_changed,
    PARAM_ADDED_REQUIRED => param_added_required,
    PARAM_ADDED_OPTIONAL => param_added_optional,
    PARAM_REMOVED => param_removed,
    PARAM_BECAME_REQUIRED => param_became_required,
    PARAM_BECAME_OPTIONAL => param_became_optional,
    PARAM_TYPE_CHANGED => param_type_changed,
    PARAM_RUST_NAME_CHANGED => param_rust_name_changed,
    PARAM_WIRE_NAME_CHANGED => param_wire_name_changed,
    PARAM_DEFAULT_CHANGED => param_default_changed,
    PARAM_CAP_CHANGED => param_cap_changed,
    PARAM_EITHER_OR_CHANGED => param_either_or_changed,
    PARAM_ORDER_CHANGED => param_order_changed,
    PAGING_CHANGED => paging_changed,
    PAGING_FIRST_PAGE_CHANGED => paging_first_page_changed,
    FIELD_ADDED => field_added,
    FIELD_REMOVED => field_removed,
    FIELD_TYPE_CHANGED => field_type_changed,
    FIELD_TYPE_WIDENED => field_type_widened,
    FIELD_TYPE_NARROWED => field_type_narrowed,
    FIELD_BECAME_OPTIONAL => field_became_optional,
    FIELD_BECAME_NULLABLE => field_became_nullable,
    FIELD_BECAME_REQUIRED => field_became_required,
    FIELD_PRESENCE_CHANGED => field_presence_changed,
    FIELD_WIRE_NAME_CHANGED => field_wire_name_changed,
    FIELD_ALIAS_CHANGED => field_alias_changed,
    FIELD_RUST_NAME_CHANGED => field_rust_name_changed,
    FIELD_ENCODING_CHANGED => field_encoding_changed,
    ENUM_VALUE_ADDED => enum_value_added,
    ENUM_VALUE_REMOVED => enum_value_removed,
    ENUM_VALUE_RESPELLED => enum_value_respelled,
    ENUM_OPENED => enum_opened,
    ENUM_CLOSED => enum_closed,
    TYPE_ADDED => type_added,
    TYPE_REMOVED => type_removed,
    TYPE_RENAMED => type_renamed,
    ERROR_CODE_ADDED => error_code_added,
    ERROR_CODE_REMOVED => error_code_removed,
    ERROR_CODE_KIND_CHANGED => error_code_kind_changed,
    SERVICE_CHANGED => service_changed,
    ORDER_CHANGED => order_changed,
    DOC_CHANGED => doc_changed,
}

/// How a field's type changed, for the three type rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeChange {
    /// The new type holds every value of the old and more (integer to decimal).
    Widened,
    /// The reverse (decimal to integer, string to an enum).
    Narrowed,
    /// Neither.
    Other,
}

/// How the type of a field pair changed, or `None` when it did not (renames aside).
fn type_change(
    cx: &context_alias::Context<'_>,
    pair: &prelude::FieldPair<'_>,
) -> Option<TypeChange> {
    use crate::ir::{Scalar, TypeRef};
    fn rank(ty: &TypeRef) -> Option<u8> {
        match ty {
            TypeRef::Scalar(Scalar::Id | Scalar::Count) => Some(0),
            TypeRef::Scalar(Scalar::Integer) => Some(1),
            TypeRef::Scalar(Scalar::Decimal) => Some(2),
            TypeRef::Scalar(Scalar::String) => Some(3),
            _ => None,
        }
    }
    fn widening(old: &TypeRef, new: &TypeRef) -> TypeChange {
        match (old, new) {
            (TypeRef::List(a), TypeRef::List(b)) => widening(a, b),
            (TypeRef::Enum(_), TypeRef::Scalar(Scalar::String)) => TypeChange::Widened,
            (TypeRef::Scalar(Scalar::String), TypeRef::Enum(_)) => TypeChange::Narrowed,
            _ => match (rank(old), rank(new)) {
                (Some(a), Some(b)) if a < b => TypeChange::Widened,
                (Some(a), Some(b)) if a > b => TypeChange::Narrowed,
                _ => TypeChange::Other,
            },
        }
    }
    let old = renamed(&cx.renames, &pair.old.ty);
    (old != pair.new.ty).then(|| widening(&old, &pair.new.ty))
}

/// `ty` with the names of renamed types replaced by their new names.
fn renamed(
    renames: &std::collections::BTreeMap<String, String>,
    ty: &crate::ir::TypeRef,
) -> crate::ir::TypeRef {
    use crate::ir::{Id, TypeRef};
    match ty {
        TypeRef::Record(id) => {
            TypeRef::Record(renames.get(id.as_str()).map_or(id.clone(), Id::new))
        }
        TypeRef::Enum(id) => TypeRef::Enum(renames.get(id.as_str()).map_or(id.clone(), Id::new)),
        TypeRef::List(element) => TypeRef::List(Box::new(renamed(renames, element))),
        TypeRef::Scalar(_) => ty.clone(),
    }
}

/// Reports every field pair whose type changed in the given way.
fn check_type_change(cx: &mut context_alias::Context<'_>, rule: &'static str, kind: TypeChange) {
    use prelude::*;
    for (old_record, new_record) in cx.records.clone() {
        let (pairs, _, _) = cx.fields(old_record, new_record);
        for pair in pairs {
            if type_change(cx, &pair) != Some(kind) {
                continue;
            }
            let mut sent = pair.old.clone();
            sent.ty = pair.new.ty.clone();
            sent.encoding = pair.new.encoding.clone();
            let wire = cx.field_witness(&pair, &sent);
            let (old_type, new_type) = (
                crate::rust_type::value_type(&cx.base_lookup, pair.old),
                crate::rust_type::value_type(&cx.head_lookup, pair.new),
            );
            let sends = if wire.is_some() {
                "; old decoders refuse some values the new server sends"
            } else {
                "; old decoders take every value the new server sends"
            };
            cx.push(
                rule,
                Surface::Response,
                wire,
                &[field_claim(pair.old_record, pair.old)],
                Some(Context::field_place(pair.old_record, pair.old)),
                Some(Context::field_place(pair.new_record, pair.new)),
                format!(
                    "{}.{}: {} -> {} ({old_type} -> {new_type}){sends}",
                    pair.new_record.name,
                    pair.new.rust_name,
                    pair.old.ty.spec_name(),
                    pair.new.ty.spec_name(),
                ),
            );
        }
    }
}

/// The Rust item of a record's field in the base crate.
fn field_claim(record: &crate::ir::Record, field: &crate::ir::Field) -> prelude::Claim {
    prelude::Claim::Item(format!("{}.{}", record.name, field.rust_name))
}

/// Reports every field pair for which `changed` holds, with the head's `aspect` applied to
/// the old field to judge the wire.
fn check_fields(
    cx: &mut context_alias::Context<'_>,
    rule: &'static str,
    changed: impl Fn(&prelude::FieldPair<'_>) -> bool,
    aspect: impl Fn(&mut prelude::Field, &prelude::Field),
    message: impl Fn(&prelude::FieldPair<'_>) -> String,
) {
    use prelude::*;
    for (old_record, new_record) in cx.records.clone() {
        let (pairs, _, _) = cx.fields(old_record, new_record);
        for pair in pairs.iter().filter(|pair| changed(pair)) {
            let mut sent = pair.old.clone();
            aspect(&mut sent, pair.new);
            let wire = cx.field_witness(pair, &sent);
            cx.push(
                rule,
                Surface::Response,
                wire,
                &[field_claim(pair.old_record, pair.old)],
                Some(Context::field_place(pair.old_record, pair.old)),
                Some(Context::field_place(pair.new_record, pair.new)),
                message(pair),
            );
        }
    }
}

/// The verdict of a parameter change: its surface, the wire witness, and the witness of a
/// change of what an unchanged call of the new crate does (a bound the new crate checks
/// before sending refuses a value the old one sent): semver-major though it compiles.
struct ParamVerdict {
    surface: prelude::Surface,
    wire: Option<prelude::Witness>,
    meaning: Option<prelude::Witness>,
}

impl From<(prelude::Surface, Option<prelude::Witness>)> for ParamVerdict {
    fn from((surface, wire): (prelude::Surface, Option<prelude::Witness>)) -> Self {
        ParamVerdict {
            surface,
            wire,
            meaning: None,
        }
    }
}

/// A parameter pair of a method pair, as [`crate::diff::pairing::params`] pairs them.
pub(super) struct ParamPair<'a> {
    pub old_method: &'a prelude::Method,
    pub old: &'a prelude::Param,
    pub new_method: &'a prelude::Method,
    pub new: &'a prelude::Param,
}

/// Every parameter pair of every method pair.
fn param_pairs<'a>(cx: &context_alias::Context<'a>) -> Vec<ParamPair<'a>> {
    let mut pairs = Vec::new();
    for pair in &cx.methods {
        let counterparts = crate::diff::pairing::params(pair.old, pair.new);
        for (old, new) in pair.old.params.iter().zip(counterparts) {
            if let Some(new) = new {
                pairs.push(ParamPair {
                    old_method: pair.old,
                    old,
                    new_method: pair.new,
                    new,
                });
            }
        }
    }
    pairs
}

/// The parameters of `old` without a counterpart in `new`, and those of `new` without one in
/// `old`.
fn unpaired<'a>(
    old: &'a prelude::Method,
    new: &'a prelude::Method,
) -> (Vec<&'a prelude::Param>, Vec<&'a prelude::Param>) {
    let counterparts = crate::diff::pairing::params(old, new);
    let taken: std::collections::HashSet<*const prelude::Param> = counterparts
        .iter()
        .flatten()
        .map(|p| std::ptr::from_ref(*p))
        .collect();
    let removed = old
        .params
        .iter()
        .zip(&counterparts)
        .filter(|(_, c)| c.is_none())
        .map(|(p, _)| p)
        .collect();
    let added = new
        .params
        .iter()
        .filter(|p| !taken.contains(&std::ptr::from_ref(*p)))
        .collect();
    (removed, added)
}

/// What links a parameter removed from a method to one added to it, when the change reads
/// as a rename of both its names: the only one removed and the only one added, of the same
/// type. Said on both changes, so a reviewer reads them as one; each keeps its own verdict
/// (old apps send the old name, which the new server does not know).
fn rename_hint(
    old_method: &prelude::Method,
    new_method: &prelude::Method,
    param: &prelude::Param,
) -> Option<String> {
    let (removed, added) = unpaired(old_method, new_method);
    let ([old], [new]) = (removed.as_slice(), added.as_slice()) else {
        return None;
    };
    if old.ty != new.ty {
        None
    } else if std::ptr::eq(*old, param) {
        Some(format!(
            "perhaps renamed to {}: the only parameter added, of the same type",
            new.wire_name
        ))
    } else if std::ptr::eq(*new, param) {
        Some(format!(
            "perhaps {} renamed: the only parameter removed, of the same type",
            old.wire_name
        ))
    } else {
        None
    }
}

/// ` (a; b)`: the notes of a message in one parenthesis, nothing when there are none.
fn notes<'n>(notes: impl IntoIterator<Item = &'n str>) -> String {
    let notes: Vec<&str> = notes.into_iter().collect();
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    }
}

/// The index of `param` in `method`.
fn index_of(method: &prelude::Method, param: &prelude::Param) -> usize {
    method
        .params
        .iter()
        .position(|p| std::ptr::eq(p, param))
        .unwrap_or(usize::MAX)
}

/// Reports every parameter pair for which `changed` holds, with the verdict `verdict` finds.
fn check_params<V: Into<ParamVerdict>>(
    cx: &mut context_alias::Context<'_>,
    rule: &'static str,
    changed: impl Fn(&ParamPair<'_>) -> bool,
    verdict: impl Fn(&context_alias::Context<'_>, &ParamPair<'_>) -> V,
    message: impl Fn(&prelude::Param, &prelude::Param) -> String,
) {
    for pair in param_pairs(cx) {
        if !changed(&pair) {
            continue;
        }
        let ParamVerdict {
            surface,
            wire,
            meaning,
        } = verdict(cx, &pair).into();
        let (old_method, old, new_method, new) =
            (pair.old_method, pair.old, pair.new_method, pair.new);
        let mut claims = cx.param_claims(old_method, &old.rust_name);
        if let Some(witness) = meaning {
            // The items an unchanged call goes through: the constructors that take it as an
            // argument, else its setter.
            let argument = required(old_method, old);
            claims = claims
                .into_iter()
                .filter_map(|claim| match claim {
                    prelude::Claim::Item(key) if key.starts_with("Session::") == argument => {
                        Some(prelude::Claim::Meaning(key, witness.clone()))
                    }
                    _ => None,
                })
                .collect();
        }
        cx.push(
            rule,
            surface,
            wire,
            &claims,
            Some(param_place(old_method, old)),
            Some(param_place(new_method, new)),
            format!(
                "{}: parameter {}: {}",
                new_method.name,
                new.wire_name,
                message(old, new)
            ),
        );
    }
}

fn param_place<'a>(
    method: &'a prelude::Method,
    param: &'a prelude::Param,
) -> super::context::Place<'a> {
    (
        method.file,
        vec![
            "methods",
            method.name.as_str(),
            "params",
            param.wire_name.as_str(),
        ],
    )
}

/// Reports every field pair for which `changed` holds as a change of when the field is present,
/// judged with the head's presence, nullability and `zero_is_none`.
fn check_presence(
    cx: &mut context_alias::Context<'_>,
    rule: &'static str,
    changed: impl Fn(&prelude::FieldPair<'_>) -> bool,
    suffix: &str,
) {
    check_fields(
        cx,
        rule,
        changed,
        |sent, new| {
            sent.presence = new.presence.clone();
            sent.nullable = new.nullable;
            sent.zero_is_none = new.zero_is_none;
        },
        |p| {
            format!(
                "{}.{}: {} -> {}{suffix}",
                p.new_record.name,
                p.new.rust_name,
                prelude::words::presence(p.old),
                prelude::words::presence(p.new)
            )
        },
    );
}

/// Whether a field may now be `null` where it could not before.
fn became_nullable(pair: &prelude::FieldPair<'_>) -> bool {
    pair.new.nullable && !pair.old.nullable
}

/// An enum's values as sets of their wire spellings and variants, and by variant in order.
struct Values<'a> {
    wires: std::collections::HashSet<&'a str>,
    variants: std::collections::HashMap<&'a str, Vec<&'a crate::ir::EnumValue>>,
}

impl<'a> Values<'a> {
    fn of(e: &'a crate::ir::Enum) -> Self {
        let mut variants: std::collections::HashMap<&str, Vec<&crate::ir::EnumValue>> =
            std::collections::HashMap::new();
        for value in &e.values {
            variants
                .entry(value.variant.as_str())
                .or_default()
                .push(value);
        }
        Values {
            wires: e.values.iter().map(|v| v.wire.as_str()).collect(),
            variants,
        }
    }

    /// Whether some value has `value`'s spelling or its variant.
    fn has(&self, value: &crate::ir::EnumValue) -> bool {
        self.wires.contains(value.wire.as_str())
            || self.variants.contains_key(value.variant.as_str())
    }

    /// The first value with `value`'s variant and another spelling.
    fn respelled(&self, value: &crate::ir::EnumValue) -> Option<&'a crate::ir::EnumValue> {
        // Spellings are distinct within an enum: at most one value of the variant is skipped.
        self.variants
            .get(value.variant.as_str())?
            .iter()
            .find(|v| v.wire != value.wire)
            .copied()
    }
}

/// A method's parameters by wire name (the first of each, as a search in order finds it).
fn params_by_wire(method: &prelude::Method) -> std::collections::HashMap<&str, &prelude::Param> {
    let mut params = std::collections::HashMap::with_capacity(method.params.len());
    for param in &method.params {
        params.entry(param.wire_name.as_str()).or_insert(param);
    }
    params
}

/// Whether a parameter is a constructor argument: required, and not one of the alternatives
/// of `at_least_one_of` (each has a constructor of its own and a setter).
fn required(method: &prelude::Method, param: &prelude::Param) -> bool {
    param.required
        && !method
            .at_least_one_of
            .iter()
            .any(|id| *id == param.wire_name)
}

use super::context as context_alias;

/// The witness of the first misreading by key (which key an old field reads) of the answers
/// of a record pair that `wanted` picks.
fn key_witness(
    cx: &context_alias::Context<'_>,
    old_record: &crate::ir::Record,
    new_record: &crate::ir::Record,
    wanted: impl Fn(&crate::diff::reading::Misreading) -> bool,
) -> Option<prelude::Witness> {
    cx.record_findings(old_record, new_record)
        .iter()
        .find(|found| found.misreading.by_key && wanted(&found.misreading))
        .map(super::context::Found::witness)
}

/// Whether a misreading is at the old field `field` of `record`.
fn at_field(
    misreading: &crate::diff::reading::Misreading,
    record: &crate::ir::Record,
    field: &crate::ir::Field,
) -> bool {
    misreading.at.0 == record.name && misreading.at.1 == field.rust_name
}

/// Whether `param` is the page or the size parameter of `method`'s paging.
fn pages_by(method: &prelude::Method, param: &prelude::Param) -> bool {
    method
        .paging
        .as_ref()
        .is_some_and(|p| p.page_param == param.wire_name || p.size_param == param.wire_name)
}

/// The witness of an old app's call of `old` sent where the new server serves no such method:
/// the old crate's first call of it, and the path it goes to.
fn unserved_witness(old: &prelude::Method, served: Option<&str>) -> prelude::Witness {
    let calls = crate::diff::request::calls(old);
    let (call, query) = calls.first().map_or_else(
        || (format!("session.{}()", old.rust_name), "nothing".to_owned()),
        |c| (c.rust.clone(), c.query_text()),
    );
    prelude::Witness::Request {
        method: old.name.clone(),
        call,
        query,
        finding: format!(
            "the old crate sends it to {}, which the new server does not serve{}",
            old.path,
            served.map_or_else(String::new, |path| format!(
                " (it serves the method at {path})"
            ))
        ),
    }
}
