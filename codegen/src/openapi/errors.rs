//! Error answers: the HTTP status of each error code (by its kind), the documented codes as an
//! open enumeration, and every shape of error body the fake marketplace answers in and the
//! client reads (`tests/fake/src/error_shape.rs`, `generated-client/src/error_body.rs`).
//!
//! The reference shows neither error bodies nor statuses; ARCHITECTURE.md records the
//! project's decisions, which the fake follows and this export states: 401 for `authentication`
//! codes, 403 for `authorization` codes, 400 for the others (validation), in the shape
//! `{api, apiVersion, rcode: 0, error: {code, type, message}}` by default, or in one of the
//! other shapes (a test switch of the fake; what other servers plausibly send).

use super::json::{Json, obj, strings};
use super::schema::reference;
use crate::ir::{Api, ErrorCode};

/// The HTTP status of an error of `kind`.
pub(crate) fn status_of(kind: Option<&str>) -> u16 {
    match kind {
        Some("authentication") => 401,
        Some("authorization") => 403,
        _ => 400,
    }
}

/// The status of an answer with an invalid or missing parameter whose code the spec does not
/// document (the fake's `E_VALIDATION_INVALID_PARAMETER`).
pub(crate) const INVALID_PARAMETER_STATUS: u16 = 400;

/// The status of a refused signature (the `authentication` codes).
pub(crate) const AUTHENTICATION_STATUS: u16 = 401;

/// The name of the error-code schema.
pub(crate) const ERROR_CODE: &str = "ErrorCode";

/// The JSON error bodies, by schema name, the fake's default first.
pub(crate) const JSON_SHAPES: [&str; 5] = [
    "ErrorBody.nested",
    "ErrorBody.topLevelCode",
    "ErrorBody.topLevelError",
    "ErrorBody.errorsArray",
    "ErrorBody.rcodeWithoutData",
];

/// The failure the service may answer with HTTP 200: the envelope with `rcode` 0.
pub(crate) const RCODE_WITH_DATA: &str = "ErrorBody.rcodeWithData";

/// The form-encoded error bodies.
pub(crate) const FORM_SHAPE: &str = "ErrorBody.form";

/// The documented error codes, open: an undocumented `E_…` code is an error too.
pub(crate) fn error_code_schema(api: &Api) -> Json {
    let codes = strings(api.errors.iter().map(|error| error.code.as_str()));
    obj! {
        "anyOf" => vec![
            obj! { "type" => "string", "enum" => codes },
            obj! { "type" => "string" },
        ],
        "description" => "An error code: one the spec documents, or another (the service may \
            answer conditions the reference does not document with codes of its own).",
        "x-marketplace-rust-name" => "ErrorCode",
        "x-marketplace-open" => true,
        "x-marketplace-values" => Json::Array(api.errors.iter().map(|e| error_value(api, e)).collect()),
    }
}

fn error_value(api: &Api, error: &ErrorCode) -> Json {
    let methods = match &error.methods {
        Some(methods) => strings(methods.iter().map(|m| m.as_str())),
        None => "every data method".into(),
    };
    obj! {
        "value" => &error.code,
        "rust-variant" => &error.variant,
        "description" => error.doc.trim_end(),
        "status" => u64::from(status_of(error.kind.as_deref())),
        "methods" => methods,
        "x-marketplace-spec-file" => &api.files[error.file].path,
    }
    .with_some("kind", error.kind.as_ref())
}

/// Every error-body schema, by name.
pub(crate) fn shape_schemas() -> Vec<(&'static str, Json)> {
    let code = || reference(ERROR_CODE);
    let text = || obj! { "type" => "string" };
    let failed_rcode = || obj! { "type" => "integer", "not" => obj! { "const" => 1u64 } };
    let envelope_head = |rest: Vec<(&str, Json)>, required: &[&str]| {
        let mut properties = obj! {
            "api" => text(),
            "apiVersion" => obj! { "type" => "integer" },
            "rcode" => failed_rcode(),
        };
        for (name, schema) in rest {
            properties = properties.with(name, schema);
        }
        obj! {
            "type" => "object",
            "required" => strings(["api", "apiVersion", "rcode"].iter().chain(required)),
            "properties" => properties,
        }
    };
    let shape = |schema: Json, name: &str, description: &str| {
        schema
            .with("description", description)
            .with("x-marketplace-error-shape", name)
    };
    vec![
        (
            JSON_SHAPES[0],
            shape(
                envelope_head(
                    vec![(
                        "error",
                        obj! {
                            "type" => "object",
                            "required" => strings(["code"]),
                            "properties" => obj! { "code" => code(), "type" => text(), "message" => text() },
                        },
                    )],
                    &["error"],
                ),
                "nested",
                "The envelope with `rcode` 0 and the error inside `error`: the fake's default.",
            ),
        ),
        (
            JSON_SHAPES[1],
            shape(
                obj! {
                    "type" => "object",
                    "required" => strings(["code"]),
                    "properties" => obj! { "code" => code(), "message" => text(), "type" => text() },
                },
                "top-level-code",
                "`{code, message, type}`.",
            ),
        ),
        (
            JSON_SHAPES[2],
            shape(
                obj! {
                    "type" => "object",
                    "required" => strings(["error"]),
                    "properties" => obj! { "error" => code(), "error_description" => text() },
                },
                "top-level-error",
                "`{error, error_description}`, as OAuth 2 servers write errors.",
            ),
        ),
        (
            JSON_SHAPES[3],
            shape(
                obj! {
                    "type" => "object",
                    "required" => strings(["errors"]),
                    "properties" => obj! {
                        "errors" => obj! {
                            "type" => "array",
                            "minItems" => 1u64,
                            "items" => obj! {
                                "type" => "object",
                                "properties" => obj! { "code" => code(), "description" => text(), "type" => text() },
                            },
                        },
                    },
                },
                "errors-array",
                "`{errors: [...]}`: every entry is kept; the first entry with a code gives it.",
            ),
        ),
        (
            JSON_SHAPES[4],
            shape(
                envelope_head(
                    vec![
                        ("error_code", code()),
                        ("error_message", text()),
                        ("error_type", text()),
                    ],
                    &["error_code"],
                ),
                "rcode-without-data",
                "The envelope with `rcode` 0 and the error beside it.",
            ),
        ),
        (
            RCODE_WITH_DATA,
            shape(
                envelope_head(
                    vec![(
                        "data",
                        // No field required: an `rcode` other than 1 is the failure, whatever
                        // `data` holds (`{}` too, as the fake's `Fault::Rcode` sends it).
                        obj! {
                            "type" => "object",
                            "properties" => obj! { "errorCode" => code(), "errorMessage" => text(), "errorType" => text() },
                        },
                    )],
                    &["data"],
                ),
                "rcode-with-data",
                "HTTP 200 with the envelope's `rcode` 0 and the error, if any, in `data`: a \
                 failure all the same (the client reads any `rcode` other than 1 as one).",
            ),
        ),
        (
            FORM_SHAPE,
            shape(
                obj! {
                    "type" => "object",
                    "properties" => obj! {
                        "error" => code(),
                        "error_description" => text(),
                        "error_type" => text(),
                        "oauth_problem" => code(),
                        "oauth_problem_advice" => text(),
                    },
                    "anyOf" => vec![
                        obj! { "required" => strings(["error"]) },
                        obj! { "required" => strings(["oauth_problem"]) },
                    ],
                },
                "form",
                "Form pairs: `error`, `error_description`, `error_type`, or OAuth problem \
                 reporting's `oauth_problem`, `oauth_problem_advice`.",
            ),
        ),
    ]
}

/// The content of an error answer: every shape, by media type.
pub(crate) fn error_content() -> Json {
    let json_shapes: Vec<Json> = JSON_SHAPES.iter().map(|name| reference(name)).collect();
    obj! {
        "application/json" => obj! { "schema" => obj! { "anyOf" => json_shapes } },
        "application/x-www-form-urlencoded" => obj! { "schema" => reference(FORM_SHAPE) },
        "text/plain" => obj! { "schema" => obj! {
            "type" => "string",
            "description" => "`E_…: message`: every `E_…` word is a code.",
        } },
        "text/html" => obj! { "schema" => obj! {
            "type" => "string",
            "description" => "A page naming the code; every `E_…` word is a code.",
        } },
    }
}
