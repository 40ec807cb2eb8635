//! The spec files as written: one [`SpecFile`] per YAML file, parsed with serde.
//!
//! This layer only checks shape (known keys, value kinds). Cross references, encodings and
//! names are checked in [`crate::resolve`], which turns these into the [`crate::ir`] model.

use indexmap::IndexMap;
use serde::Deserialize;

/// One YAML file of the spec. Every section is optional; the files are merged.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    /// Module documentation of the generated file.
    pub doc: Option<String>,
    /// The service (exactly one file has it).
    pub api: Option<ApiInfo>,
    /// The OAuth 1.0a endpoints (exactly one file has them).
    pub oauth: Option<OAuthDef>,
    /// Error codes, by code.
    #[serde(default)]
    pub errors: IndexMap<String, ErrorDef>,
    /// Enumerations, by Rust name.
    #[serde(default)]
    pub enums: IndexMap<String, EnumDef>,
    /// Record types, by Rust name.
    #[serde(default)]
    pub types: IndexMap<String, TypeDef>,
    /// Data methods, by `group/method`.
    #[serde(default)]
    pub methods: IndexMap<String, MethodDef>,
}

/// The `api` section.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiInfo {
    pub name: String,
    pub doc: String,
    pub data_path: String,
    pub api_version: i64,
}

/// The `oauth` section.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthDef {
    pub doc: String,
    pub https_required: bool,
    pub signature_method: String,
    pub version: String,
    pub token_lifetime_seconds: u64,
    pub endpoints: OAuthEndpoints,
}

/// The four OAuth endpoints.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthEndpoints {
    pub request_token: EndpointDef,
    pub authorize: EndpointDef,
    pub access_token: EndpointDef,
    pub revoke: EndpointDef,
}

/// One OAuth endpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointDef {
    pub method: String,
    pub path: String,
    pub doc: String,
    /// Names of the variables of the form-encoded response body.
    #[serde(default)]
    pub response: Vec<String>,
}

/// An error code.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorDef {
    pub doc: String,
    pub kind: Option<String>,
    /// The methods that return it; absent means every authenticated method.
    pub methods: Option<Vec<String>>,
}

/// An enumeration of wire strings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumDef {
    pub doc: String,
    /// Open enums keep unknown values; the reference never gives full value sets.
    #[serde(default = "yes")]
    pub open: bool,
    /// Wire value -> documentation.
    pub values: IndexMap<String, String>,
}

fn yes() -> bool {
    true
}

/// A record type (a JSON object).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    pub documented_as: Option<String>,
    pub doc: String,
    /// The reference does not show the fields: keep the raw JSON object.
    #[serde(default)]
    pub opaque: bool,
    #[serde(default)]
    pub fields: IndexMap<String, FieldDef>,
}

/// A field of a record, keyed by its wire name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    #[serde(rename = "type")]
    pub ty: String,
    pub doc: String,
    pub rust_name: Option<String>,
    pub encoding: Option<EncodingDef>,
    pub optional: Option<Optional>,
    pub only_in: Option<Vec<String>>,
    pub absent_in: Option<Vec<String>>,
    #[serde(default)]
    pub nullable: bool,
    #[serde(default)]
    pub zero_is_none: bool,
    pub documented_as: Option<String>,
    pub documented_type: Option<String>,
    /// Why the type is narrower than the reference's, quoting the reference's evidence.
    pub narrowed: Option<String>,
}

/// `encoding:` is one encoding name, or one per method when the methods differ.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum EncodingDef {
    Uniform(String),
    PerMethod(IndexMap<String, String>),
}

/// `optional:` is `true`/`false` or the sentence that says when the field is present.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Optional {
    Flag(bool),
    When(String),
}

/// A data method, keyed by `group/method`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodDef {
    pub doc: String,
    pub rust_name: Option<String>,
    pub response: String,
    pub delivered_api: Option<String>,
    #[serde(default)]
    pub params: IndexMap<String, ParamDef>,
    pub at_least_one_of: Option<Vec<String>>,
    pub paging: Option<PagingDef>,
    #[serde(default)]
    pub errors: Vec<String>,
}

/// A query parameter, keyed by its wire name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    #[serde(rename = "type")]
    pub ty: String,
    pub doc: String,
    #[serde(default)]
    pub required: bool,
    pub default: Option<i64>,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub rust_name: Option<String>,
    /// Why the type is narrower than the reference's, quoting the reference's evidence.
    pub narrowed: Option<String>,
}

/// How a paged method pages.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagingDef {
    pub page_param: String,
    pub size_param: String,
    pub items: String,
    pub total_pages: Option<String>,
    pub beyond_last: String,
}
