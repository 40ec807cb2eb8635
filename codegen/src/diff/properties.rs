//! Every property of the IR, classified by what consumes it, with the rules that judge a change
//! of it: the spec diff's completeness, stated once.
//!
//! Each IR struct is destructured below with every field named and no `..`, so a field added
//! to an IR struct does not compile until it is classified here. The test beside this module
//! then changes each property of the real spec, in both directions, and holds the diff to
//! reporting it by one of the listed rules, with no breaking verdict for a property that only
//! documents (`diff/properties/tests.rs`).

use super::rule;
use crate::ir::{
    Api, ApiInfo, Enum, EnumValue, ErrorCode, Field, Method, OAuth, OAuthEndpoint, Paging, Param,
    Record, SpecFileInfo,
};

/// What consumes a property, which decides where a change of it can break.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consumer {
    /// The old crate sends it, or reads answers by it (decoders, query builder, paging, OAuth
    /// flow, runtime checks): the simulation judges a change, by direction.
    Wire,
    /// The generated Rust API (names, types, positions): the Rust model and the identity map
    /// judge a change.
    Rust,
    /// Both.
    WireAndRust,
    /// Only documentation (rustdoc, the spec README): a change never breaks.
    Documentation,
    /// The item's name, which pairs it across the two sides: a change is a rename (or an item
    /// removed and another added), judged by both models.
    Identity,
    /// A list of items, each judged by its own properties; the rules report items added and
    /// removed.
    Items,
    /// Where the item is written (a spec file): not compared, only used to locate changes.
    Position,
    /// Computed from other properties, and judged through them (a record's methods, from the
    /// methods' responses).
    Derived,
}

/// One property of one IR struct.
#[derive(Clone, Copy, Debug)]
pub struct Property {
    /// The IR struct, e.g. `Param`.
    pub owner: &'static str,
    /// The field, e.g. `default`.
    pub name: &'static str,
    /// What consumes it.
    pub consumer: Consumer,
    /// The rules that report a change of it (none for a position).
    pub rules: &'static [&'static str],
    /// Why it is classified so, in a sentence.
    pub why: &'static str,
}

macro_rules! properties {
    ($($owner:ident {
        $($name:ident: $consumer:ident [$($rule:ident),*] $why:literal,)*
    })*) => {
        // Every field named, no `..`: a field added to an IR struct fails to compile here.
        $(const _: fn(&$owner) = |value| {
            #[allow(clippy::disallowed_fields, reason = "names every field, reads none")]
            let $owner { $($name: _,)* } = value;
        };)*

        /// Every property of the IR, struct by struct, field by field in declaration order.
        pub const PROPERTIES: &[Property] = &[$($(Property {
            owner: stringify!($owner),
            name: stringify!($name),
            consumer: Consumer::$consumer,
            rules: &[$(rule::$rule),*],
            why: $why,
        },)*)*];
    };
}

properties! {
    Api {
        files: Position [] "The spec files; the generated modules take their names, private behind the crate root's re-exports.",
        info: Items [SERVICE_CHANGED, DOC_CHANGED] "The service: each of its properties below.",
        oauth: Items [SERVICE_CHANGED, DOC_CHANGED] "The OAuth service: each of its properties below.",
        errors: Items [ERROR_CODE_ADDED, ERROR_CODE_REMOVED] "Error codes, added and removed.",
        enums: Items [TYPE_ADDED, TYPE_REMOVED, TYPE_RENAMED] "Enumerations, added, removed and renamed.",
        records: Items [TYPE_ADDED, TYPE_REMOVED, TYPE_RENAMED] "Records, added, removed and renamed.",
        methods: Items [METHOD_ADDED, METHOD_REMOVED, METHOD_RENAMED] "Data methods, added, removed and renamed.",
    }
    SpecFileInfo {
        path: Position [] "Where the file is; items are compared by name, wherever they are written.",
        module: Position [] "The generated module's name, private behind the crate root's re-exports.",
        doc: Documentation [DOC_CHANGED] "The module's rustdoc.",
    }
    ApiInfo {
        name: Documentation [DOC_CHANGED] "The service's name in rustdoc and `Service::name`, which the runtime does not read.",
        doc: Documentation [DOC_CHANGED] "The service's rustdoc.",
        data_path: Wire [SERVICE_CHANGED] "Every data request goes to it.",
        api_version: Documentation [SERVICE_CHANGED] "No request carries it and the runtime does not check the envelope's.",
        file: Position [] "Where it is written.",
    }
    OAuth {
        doc: Documentation [DOC_CHANGED] "The OAuth rustdoc.",
        https_required: Wire [SERVICE_CHANGED] "The old crate refuses a plain-HTTP base URL when set; breaks when the server starts requiring it.",
        signature_method: Wire [SERVICE_CHANGED] "Every signed request names it.",
        version: Wire [SERVICE_CHANGED] "Every signed request names it.",
        token_lifetime_seconds: Wire [SERVICE_CHANGED] "The old crate's local expiry of access tokens; breaks when shortened.",
        endpoints: Items [SERVICE_CHANGED] "The OAuth endpoints: each of their properties below.",
        file: Position [] "Where it is written.",
    }
    OAuthEndpoint {
        name: Identity [SERVICE_CHANGED] "Which step of the flow the endpoint is.",
        method: Wire [SERVICE_CHANGED] "The old crate sends the step's request with it.",
        path: Wire [SERVICE_CHANGED] "The old crate sends the step's request to it.",
        doc: Documentation [DOC_CHANGED] "The endpoint's rustdoc.",
        response: Wire [SERVICE_CHANGED] "The answer's names: the runtime fails without `oauth_token` and `oauth_token_secret`, ignores the rest.",
    }
    ErrorCode {
        code: Identity [ERROR_CODE_ADDED, ERROR_CODE_REMOVED] "The code on the wire, which pairs it across the sides.",
        variant: Rust [ERROR_CODE_ADDED, ERROR_CODE_REMOVED] "The `ErrorCode` variant.",
        doc: Documentation [DOC_CHANGED] "The variant's rustdoc.",
        kind: Wire [ERROR_CODE_KIND_CHANGED] "`authentication` codes make the old crate correct its clock; other kinds only document.",
        methods: Documentation [DOC_CHANGED] "Which methods return it; the old crate decodes every code from every method.",
        file: Position [] "Where it is written.",
    }
    Enum {
        name: Identity [TYPE_ADDED, TYPE_REMOVED, TYPE_RENAMED] "The Rust type's name, which pairs it across the sides.",
        doc: Documentation [DOC_CHANGED] "The enum's rustdoc.",
        open: WireAndRust [ENUM_OPENED, ENUM_CLOSED] "Whether unknown values decode (`Other`) and whether the enum has that variant.",
        values: Items [ENUM_VALUE_ADDED, ENUM_VALUE_REMOVED] "Its values, added and removed.",
        file: Position [] "Where it is written.",
    }
    EnumValue {
        wire: Identity [ENUM_VALUE_ADDED, ENUM_VALUE_REMOVED, ENUM_VALUE_RESPELLED] "The value on the wire, which pairs it across the sides.",
        variant: Rust [ENUM_VALUE_RESPELLED, ENUM_VALUE_ADDED, ENUM_VALUE_REMOVED] "The Rust variant's name.",
        doc: Documentation [DOC_CHANGED] "The variant's rustdoc.",
    }
    Record {
        name: Identity [TYPE_ADDED, TYPE_REMOVED, TYPE_RENAMED] "The Rust type's name, which pairs it across the sides.",
        documented_as: Documentation [DOC_CHANGED] "The reference's name for it, in rustdoc.",
        doc: Documentation [DOC_CHANGED] "The type's rustdoc.",
        opaque: WireAndRust [FIELD_ADDED, FIELD_REMOVED] "An opaque record keeps its JSON whole: its fields appear or disappear.",
        fields: Items [FIELD_ADDED, FIELD_REMOVED] "Its fields, added and removed.",
        delivered_by: Derived [METHOD_RESPONSE_CHANGED] "The methods that deliver it, from their responses; judged there.",
        file: Position [] "Where it is written.",
    }
    Field {
        wire_name: WireAndRust [FIELD_WIRE_NAME_CHANGED, FIELD_ADDED, FIELD_REMOVED] "The key old decoders read.",
        rust_name: Rust [FIELD_RUST_NAME_CHANGED] "The Rust field's name.",
        doc: Documentation [DOC_CHANGED] "The field's rustdoc.",
        ty: WireAndRust [FIELD_TYPE_CHANGED, FIELD_TYPE_WIDENED, FIELD_TYPE_NARROWED] "What old decoders accept and the Rust type.",
        encoding: Wire [FIELD_ENCODING_CHANGED] "The spellings the new server sends, against what old decoders accept.",
        presence: WireAndRust [FIELD_PRESENCE_CHANGED, FIELD_BECAME_OPTIONAL, FIELD_BECAME_REQUIRED] "Whether the key may be absent, and whether the Rust field is an `Option`.",
        nullable: WireAndRust [FIELD_BECAME_NULLABLE, FIELD_BECAME_REQUIRED] "Whether `null` decodes, and whether the Rust field is an `Option`.",
        zero_is_none: WireAndRust [FIELD_BECAME_OPTIONAL, FIELD_BECAME_NULLABLE, FIELD_BECAME_REQUIRED] "Whether `0` decodes as none, and whether the Rust field is an `Option`.",
        documented_as: WireAndRust [FIELD_ALIAS_CHANGED] "The alias old decoders also read the field from.",
        documented_type: Documentation [DOC_CHANGED] "The reference's type for it, in rustdoc.",
        narrowed: Documentation [DOC_CHANGED] "The evidence for a type narrower than the reference's, in rustdoc.",
    }
    Method {
        name: Identity [METHOD_ADDED, METHOD_REMOVED, METHOD_RENAMED] "The method's name (`group/method`), which pairs it across the sides.",
        rust_name: Rust [METHOD_RUST_NAME_CHANGED] "The `Session` constructor's name.",
        doc: Documentation [DOC_CHANGED] "The method's rustdoc.",
        path: Wire [METHOD_RENAMED, METHOD_ADDED, METHOD_REMOVED] "Where old apps send the request; it follows the name.",
        response: WireAndRust [METHOD_RESPONSE_CHANGED] "The record old decoders read the answer as.",
        delivered_api: Wire [METHOD_DELIVERED_API_CHANGED] "The envelope's `api` the old crate checks.",
        params: Items [PARAM_ADDED_REQUIRED, PARAM_ADDED_OPTIONAL, PARAM_REMOVED] "Its parameters, added and removed.",
        at_least_one_of: WireAndRust [PARAM_EITHER_OR_CHANGED] "The alternatives the old crate's constructors select by.",
        paging: WireAndRust [PAGING_CHANGED, PAGING_FIRST_PAGE_CHANGED] "How old streams walk the pages.",
        errors: Documentation [METHOD_ERRORS_CHANGED] "The codes it lists, which with every method's codes are what it documents (`Api::errors_of`); the old crate decodes every code.",
        file: Position [] "Where it is written.",
    }
    Param {
        wire_name: WireAndRust [PARAM_WIRE_NAME_CHANGED, PARAM_ADDED_REQUIRED, PARAM_ADDED_OPTIONAL, PARAM_REMOVED] "The name old apps send the value under.",
        rust_name: Rust [PARAM_RUST_NAME_CHANGED] "The setter's or the constructor argument's name.",
        doc: Documentation [DOC_CHANGED] "The parameter's rustdoc.",
        ty: WireAndRust [PARAM_TYPE_CHANGED] "How old apps write the value, and its Rust type.",
        required: WireAndRust [PARAM_BECAME_REQUIRED, PARAM_BECAME_OPTIONAL, PARAM_ORDER_CHANGED] "Whether old apps always send it; a constructor argument or a setter.",
        default: Wire [PARAM_DEFAULT_CHANGED, PAGING_FIRST_PAGE_CHANGED] "What the new server assumes when old apps leave it out; where a page parameter's streams start.",
        min: Wire [PARAM_CAP_CHANGED, PAGING_FIRST_PAGE_CHANGED] "What the new server refuses, and the old crate checks before sending.",
        max: Wire [PARAM_CAP_CHANGED] "What the new server caps or refuses, and the old crate checks before sending.",
        narrowed: Documentation [DOC_CHANGED] "The evidence for a type narrower than the reference's, in rustdoc.",
    }
    Paging {
        page_param: WireAndRust [PAGING_CHANGED] "The parameter old streams number pages by.",
        size_param: WireAndRust [PAGING_CHANGED] "The parameter old streams size pages by.",
        items: WireAndRust [PAGING_CHANGED] "The field old streams take the items from.",
        total_pages: WireAndRust [PAGING_CHANGED] "The page count old streams stop by.",
        beyond_last: Wire [PAGING_CHANGED] "Which pages old streams take as past the end.",
    }
}

#[cfg(test)]
mod tests;
