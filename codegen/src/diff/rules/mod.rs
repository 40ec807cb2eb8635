//! One rule per file: each finds one kind of difference, says which part of the wire and which
//! public Rust items it touches, and words it; the models decide the verdicts. Adding a change
//! kind is adding a file here, a line to `rules!` below, and a fixture pair in
//! `xtask/tests/spec-diff/`. A rule pairs the members of an item pair (parameters, values,
//! codes) through a map or a set of the other side, never a search of it per member.

mod prelude {
    pub(super) use super::super::context::{Claim, Context, FieldPair};
    pub(super) use super::super::{Rule, Surface, paging, wire, words};
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
            let wire = cx.field_breaks(&pair, &sent);
            let (old_type, new_type) = (
                crate::rust_type::value_type(&cx.base_lookup, pair.old),
                crate::rust_type::value_type(&cx.head_lookup, pair.new),
            );
            let sends = if wire {
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
            let wire = cx.field_breaks(pair, &sent);
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

/// Reports every parameter pair for which `changed` holds.
/// The verdict of a parameter change on the wire, and whether it changes what an unchanged
/// call of the new crate does (a bound the new crate checks before sending refuses a value
/// the old one sent): semver-major though it compiles. A `(surface, wire)` pair has no such
/// change.
struct ParamVerdict {
    surface: prelude::Surface,
    wire: bool,
    meaning: bool,
}

impl From<(prelude::Surface, bool)> for ParamVerdict {
    fn from((surface, wire): (prelude::Surface, bool)) -> Self {
        ParamVerdict {
            surface,
            wire,
            meaning: false,
        }
    }
}

fn check_params<V: Into<ParamVerdict>>(
    cx: &mut context_alias::Context<'_>,
    rule: &'static str,
    changed: impl Fn(&prelude::Method, &prelude::Param, &prelude::Method, &prelude::Param) -> bool,
    verdict: impl Fn(&prelude::Method, &prelude::Param, &prelude::Method, &prelude::Param) -> V,
    message: impl Fn(&prelude::Param, &prelude::Param) -> String,
) {
    use prelude::*;
    let pairs: Vec<(&Method, &Method)> = cx.methods.iter().map(|p| (p.old, p.new)).collect();
    for (old_method, new_method) in pairs {
        let new_params = params_by_wire(new_method);
        let renamed = WireRenames::of(old_method, new_method);
        for old in &old_method.params {
            let new = new_params
                .get(old.wire_name.as_str())
                .copied()
                .or_else(|| renamed.new_of(old));
            let Some(new) = new else {
                continue;
            };
            if !changed(old_method, old, new_method, new) {
                continue;
            }
            let ParamVerdict {
                surface,
                wire,
                meaning,
            } = verdict(old_method, old, new_method, new).into();
            let mut claims = cx.param_claims(old_method, &old.rust_name);
            if meaning {
                // The items an unchanged call goes through: the constructors that take it as an
                // argument, else its setter.
                let argument = required(old_method, old);
                claims = claims
                    .into_iter()
                    .filter_map(|claim| match claim {
                        prelude::Claim::Item(key) if key.starts_with("Session::") == argument => {
                            Some(prelude::Claim::Meaning(key))
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

/// The parameters whose wire name changed while their Rust name stayed (the setter or the
/// constructor argument is the same to a caller): each parameter of `old` that `new` lacks by
/// wire name, paired with the parameter of `new` that `old` lacks by wire name and that has its
/// Rust name. `param-wire-name-changed` reports them; the added and removed rules leave them,
/// and the rules of a parameter's properties compare them as one parameter.
struct WireRenames<'a> {
    pairs: Vec<(&'a prelude::Param, &'a prelude::Param)>,
    /// By the old parameter's address: its new parameter.
    new_of_old: std::collections::HashMap<*const prelude::Param, &'a prelude::Param>,
    /// The new parameters' addresses.
    renamed_to: std::collections::HashSet<*const prelude::Param>,
}

impl<'a> WireRenames<'a> {
    fn of(old: &'a prelude::Method, new: &'a prelude::Method) -> Self {
        let (old_by_wire, new_by_wire) = (params_by_wire(old), params_by_wire(new));
        let mut gone: std::collections::HashMap<&str, &prelude::Param> =
            std::collections::HashMap::new();
        for param in &old.params {
            if !new_by_wire.contains_key(param.wire_name.as_str()) {
                gone.entry(param.rust_name.as_str()).or_insert(param);
            }
        }
        let pairs: Vec<(&prelude::Param, &prelude::Param)> = new
            .params
            .iter()
            .filter(|p| !old_by_wire.contains_key(p.wire_name.as_str()))
            .filter_map(|p| gone.remove(p.rust_name.as_str()).map(|o| (o, p)))
            .collect();
        WireRenames {
            new_of_old: pairs
                .iter()
                .map(|&(o, n)| (std::ptr::from_ref(o), n))
                .collect(),
            renamed_to: pairs.iter().map(|&(_, n)| std::ptr::from_ref(n)).collect(),
            pairs,
        }
    }

    /// The new parameter an old one was renamed to.
    fn new_of(&self, old: &prelude::Param) -> Option<&'a prelude::Param> {
        self.new_of_old.get(&std::ptr::from_ref(old)).copied()
    }

    /// Whether `old` was renamed (so it is not removed).
    fn renamed_from(&self, old: &prelude::Param) -> bool {
        self.new_of(old).is_some()
    }

    /// Whether `new` is a renamed parameter (so it is not added).
    fn renamed_to(&self, new: &prelude::Param) -> bool {
        self.renamed_to.contains(&std::ptr::from_ref(new))
    }
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
