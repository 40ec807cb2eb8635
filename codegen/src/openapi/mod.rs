//! The OpenAPI 3.1 export of the spec (`spec/openapi.json`), for tools and teams that read
//! OpenAPI rather than this project's YAML: every data method as an operation with its query
//! parameters, envelope and errors; every record, enum and error code as a JSON Schema
//! (2020-12); every row of the encoding table as JSON Schema for each type that declares it;
//! the OAuth 1.0a flow as a security scheme and four operations. What JSON Schema cannot say
//! (encoding names, Rust names, `delivered_api`, `documented_as`, paging, either-or parameter
//! groups, …) is kept in `x-marketplace-…` extensions (`docs/openapi.md`, "Using the spec
//! outside Rust"), so nothing of the spec is lost: `codegen/tests/openapi_export.rs` reads the export
//! back and finds every method, parameter, field and encoding of the `Api` in it.
//!
//! The output is a function of the `Api` only, objects in spec order (an ordered JSON type of
//! its own, `json::Json`): the same spec gives the same bytes.

pub(crate) mod json;

mod errors;
mod operations;
mod schema;

use json::{Json, Object, obj, strings};

use crate::emit::{EmitError, GeneratedFile, REGENERATE_COMMAND};
use crate::ir::Api;

/// Where the export goes, relative to the workspace root.
pub const OPENAPI_DIR: &str = "spec";

/// The export's file name, in [`OPENAPI_DIR`].
pub const OPENAPI_FILE: &str = "openapi.json";

/// The OpenAPI version written.
pub const OPENAPI_VERSION: &str = "3.1.0";

/// The export of `api`: pretty JSON with a trailing newline, named relative to
/// [`OPENAPI_DIR`]. An `Api` that breaks an invariant of [`Api::check`] is refused.
pub fn openapi(api: &Api) -> Result<GeneratedFile, EmitError> {
    api.check()?;
    let document = document(api);
    let mut contents = serde_json::to_string_pretty(&document)
        .expect("an ordered JSON value of strings, numbers and objects always serializes");
    contents.push('\n');
    Ok(GeneratedFile {
        path: OPENAPI_FILE.to_owned(),
        contents,
    })
}

fn document(api: &Api) -> Json {
    let records = schema::Records::new(api);
    let (name, doc, version) = match &api.info {
        Some(info) => (info.name.as_str(), info.doc.trim_end(), info.api_version),
        None => ("API", "", 1),
    };
    let description = format!(
        "{doc}\n\nGenerated from `spec/*.yaml` by `{REGENERATE_COMMAND}`; do not edit. \
         What JSON Schema cannot say is in `x-marketplace-…` extensions (see the project's \
         docs/openapi.md, \"Using the spec outside Rust\"). Outside the operations below, the fake \
         marketplace answers an unknown path 404, another HTTP method 405, a request body over \
         64 KiB 413 and its own bugs 500, in the error shapes of the operations."
    );
    let mut tags: Vec<Json> = api
        .files
        .iter()
        .filter(|file| {
            api.methods
                .iter()
                .any(|m| api.files[m.file].module == file.module)
        })
        .map(|file| {
            obj! { "name" => &file.module }
                .with_some("description", file.doc.as_deref().map(str::trim_end))
        })
        .collect();
    let mut paths = operations::data_paths(api, &records);
    let mut security_schemes = Object::new();
    if let Some(oauth) = &api.oauth {
        tags.push(obj! {
            "name" => "oauth",
            "description" => "The OAuth 1.0a flow (RFC 5849): request token, the user's \
                approval in a browser, access token, revocation.",
        });
        paths.extend(operations::oauth_paths(oauth));
        security_schemes.insert(
            operations::SECURITY_SCHEME.to_owned(),
            obj! {
                "type" => "http",
                "scheme" => "OAuth",
                "description" => format!(
                    "OAuth 1.0a (RFC 5849), signature method {}: every call carries an \
                     `Authorization: OAuth …` header signed with the consumer secret and the \
                     access token's secret. The token comes from the three-legged flow of the \
                     `oauth` operations.\n\n{}",
                    oauth.signature_method,
                    oauth.doc.trim_end()
                ),
                "x-marketplace-oauth" => obj! {
                    "signature_method" => &oauth.signature_method,
                    "version" => &oauth.version,
                    "https_required" => oauth.https_required,
                    "token_lifetime_seconds" => oauth.token_lifetime_seconds,
                    "endpoints" => strings(oauth.endpoints.iter().map(|e| e.name.as_str())),
                },
            },
        );
    }
    let mut schemas = Object::new();
    for enumeration in &api.enums {
        schemas.insert(
            enumeration.name.clone(),
            schema::enum_schema(api, enumeration),
        );
    }
    for (name, schema) in records.schemas() {
        schemas.insert(name, schema);
    }
    schemas.insert(
        errors::ERROR_CODE.to_owned(),
        errors::error_code_schema(api),
    );
    for (name, schema) in errors::shape_schemas() {
        schemas.insert(name.to_owned(), schema);
    }
    let mut root = obj! {
        "openapi" => OPENAPI_VERSION,
        "info" => obj! {
            "title" => name,
            "version" => version.to_string(),
            "description" => description,
            "license" => obj! { "name" => "MIT OR Apache-2.0", "identifier" => "MIT OR Apache-2.0" },
            "x-marketplace-api-version" => version,
        },
        "servers" => vec![obj! {
            "url" => "{baseUrl}",
            "description" => "The service's base URL: data methods below it at `{data_path}/<group>/<method>`.",
            "variables" => obj! {
                "baseUrl" => obj! {
                    "default" => "https://marketplace.invalid",
                    "description" => "The base URL of the service (or of the fake marketplace: `https://127.0.0.1:PORT`, or `http://` when it runs with `--http`).",
                },
            },
        }],
        "tags" => tags,
        "paths" => paths,
        "components" => obj! {
            "schemas" => schemas,
        },
    };
    if !security_schemes.is_empty() {
        if let Some(components) = root
            .as_object_mut()
            .and_then(|root| root.get_mut("components"))
            .and_then(Json::as_object_mut)
        {
            components.insert("securitySchemes".to_owned(), Json::Object(security_schemes));
        }
        root = root.with(
            "security",
            vec![obj! { operations::SECURITY_SCHEME => Json::Array(Vec::new()) }],
        );
    }
    root.with_some(
        "x-marketplace-data-path",
        api.info.as_ref().map(|info| info.data_path.as_str()),
    )
    .with("x-marketplace-encodings", schema::encoding_table())
    .with(
        "x-marketplace-spec-files",
        strings(api.files.iter().map(|f| f.path.as_str())),
    )
}
