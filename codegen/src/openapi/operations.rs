//! The operations: every data method (`GET {data_path}/<group>/<method>`, its query
//! parameters, its envelope and its errors) and the four OAuth endpoints.

use std::collections::BTreeMap;

use super::errors::{self, AUTHENTICATION_STATUS, INVALID_PARAMETER_STATUS, RCODE_WITH_DATA};
use super::json::{Json, Object, obj, strings};
use super::schema::{DMY_PATTERN, Records, reference};
use crate::ir::{Api, BeyondLast, Lookup, Method, OAuth, OAuthEndpoint, Param, ParamType};
use crate::naming::{constructor_names, request_type_name};
use crate::rust_type;

/// The name of the security scheme.
pub(crate) const SECURITY_SCHEME: &str = "oauth1";

/// The operation id of a data method: its name with `/` as `_` (`pay_getTimesheet`).
pub(crate) fn operation_id(method: &str) -> String {
    method.replace('/', "_")
}

/// `{path: {"get": operation}}` for every data method, in spec order.
pub(crate) fn data_paths(api: &Api, records: &Records<'_>) -> Object {
    let lookup = api.lookup();
    let mut paths = Object::new();
    for method in &api.methods {
        let operation = data_operation(api, &lookup, records, method);
        paths.insert(method.path.clone(), obj! { "get" => operation });
    }
    paths
}

fn data_operation(api: &Api, lookup: &Lookup<'_>, records: &Records<'_>, method: &Method) -> Json {
    let file = &api.files[method.file];
    let mut description = method.doc.trim_end().to_owned();
    if !method.at_least_one_of.is_empty() {
        let names: Vec<String> = method
            .at_least_one_of
            .iter()
            .map(|id| format!("`{id}`"))
            .collect();
        description.push_str(&format!(
            "\n\nAt least one of {} must be sent (OpenAPI cannot say so of parameters: see \
             `x-marketplace-at-least-one-of`).",
            names.join(", ")
        ));
    }
    if method.delivered_api != method.name {
        description.push_str(&format!(
            "\n\nThe envelope's `api` is `{}`, not the method's name.",
            method.delivered_api
        ));
    }
    let parameters: Vec<Json> = method.params.iter().map(parameter).collect();
    let response = lookup.record(&method.response);
    let envelope = obj! {
        "type" => "object",
        "required" => strings(["api", "apiVersion", "rcode", "data"]),
        "properties" => obj! {
            "api" => obj! {
                "const" => &method.delivered_api,
                "description" => "The method, as the service names it in its answer.",
                "x-marketplace-delivered-api" => &method.delivered_api,
            },
            "apiVersion" => obj! { "const" => api.info.as_ref().map_or(1, |info| info.api_version) },
            "rcode" => obj! { "const" => 1u64, "description" => "1 on success." },
            "data" => reference(&records.name(response, Some(&method.name))),
        },
    };
    let mut responses = Object::new();
    responses.insert(
        "200".to_owned(),
        obj! {
            "description" => format!("The envelope, its `data` a `{}`; or, as a failure with HTTP 200, the envelope with `rcode` 0.", response.name),
            "content" => obj! {
                "application/json" => obj! {
                    "schema" => obj! { "anyOf" => vec![envelope, reference(RCODE_WITH_DATA)] },
                },
            },
        },
    );
    for (status, codes) in error_statuses(api, method) {
        let mut lines: Vec<String> = codes
            .iter()
            .map(|code| {
                let doc = api
                    .errors
                    .iter()
                    .find(|e| e.code == *code)
                    .map_or("", |e| e.doc.trim_end());
                format!("- `{code}`: {}", doc.replace('\n', " "))
            })
            .collect();
        if status == INVALID_PARAMETER_STATUS && !method.params.is_empty() {
            lines.push(
                "- a parameter out of its type or bounds, or missing: a code the reference does \
                 not document (the fake's `E_VALIDATION_INVALID_PARAMETER`)"
                    .to_owned(),
            );
        }
        responses.insert(
            status.to_string(),
            obj! {
                "description" => format!("Refused:\n\n{}", lines.join("\n")),
                "content" => errors::error_content(),
                "x-marketplace-error-codes" => strings(&codes),
            },
        );
    }
    let mut operation = obj! {
        "operationId" => operation_id(&method.name),
        "summary" => &method.name,
        "description" => description,
        "tags" => strings([&file.module]),
    };
    if !parameters.is_empty() {
        operation = operation.with("parameters", parameters);
    }
    let constructors = constructor_names(method);
    operation
        .with("responses", responses)
        .with("x-marketplace-method", &method.name)
        .with("x-marketplace-rust-name", &method.rust_name)
        .with("x-marketplace-request-type", request_type_name(method))
        .with("x-marketplace-constructors", strings(&constructors))
        .with("x-marketplace-delivered-api", &method.delivered_api)
        .with(
            "x-marketplace-response",
            obj! { "record" => method.response.as_str(), "schema" => records.name(response, Some(&method.name)) },
        )
        .with_some(
            "x-marketplace-at-least-one-of",
            (!method.at_least_one_of.is_empty())
                .then(|| strings(method.at_least_one_of.iter().map(|id| id.as_str()))),
        )
        .with_some("x-marketplace-paging", paging(method))
        .with(
            "x-marketplace-errors",
            strings(api.errors_of(method).iter().map(|id| id.as_str())),
        )
        .with("x-marketplace-spec-file", &file.path)
}

/// The error statuses of `method` with the documented codes each answers: its codes by kind,
/// 400 for an invalid parameter when it has any, and 401 for a refused signature always.
fn error_statuses(api: &Api, method: &Method) -> BTreeMap<u16, Vec<String>> {
    let mut statuses: BTreeMap<u16, Vec<String>> = BTreeMap::new();
    statuses.entry(AUTHENTICATION_STATUS).or_default();
    if !method.params.is_empty() {
        statuses.entry(INVALID_PARAMETER_STATUS).or_default();
    }
    for id in &api.errors_of(method) {
        let kind = api
            .errors
            .iter()
            .find(|e| e.code == *id)
            .and_then(|e| e.kind.as_deref());
        statuses
            .entry(errors::status_of(kind))
            .or_default()
            .push(id.to_string());
    }
    statuses
}

fn paging(method: &Method) -> Option<Json> {
    let paging = method.paging.as_ref()?;
    let beyond_last = match paging.beyond_last {
        BeyondLast::AboveTotal => "above_total",
        BeyondLast::AtOrAboveTotal => "at_or_above_total",
    };
    Some(
        obj! {
            "page_param" => paging.page_param.as_str(),
            "size_param" => paging.size_param.as_str(),
            "items" => paging.items.as_str(),
        }
        .with_some(
            "total_pages",
            paging.total_pages.as_ref().map(|id| id.as_str()),
        )
        .with("beyond_last", beyond_last)
        .with(
            "first_page",
            crate::ir::first_page(method.param(&paging.page_param)),
        ),
    )
}

/// A query parameter. `maximum` is the documented cap: the service answers a larger value with
/// the cap, the client refuses it, and a caller should not send it.
fn parameter(param: &Param) -> Json {
    let mut schema = match param.ty {
        ParamType::Integer => obj! {
            "type" => "integer",
            "minimum" => param.min.unwrap_or(i64::MIN),
            "maximum" => param.max.unwrap_or(i64::MAX),
        },
        ParamType::Count => obj! {
            "type" => "integer",
            "minimum" => param.min.unwrap_or(0),
        }
        .with("maximum", param.max.map_or(Json::UInt(u64::MAX), Json::Int)),
        // 0 means none on this API: the client refuses it, the service answers 400.
        ParamType::Id => obj! { "type" => "integer", "minimum" => 1u64, "maximum" => u64::MAX },
        ParamType::Date => obj! { "type" => "string", "pattern" => DMY_PATTERN },
    };
    schema = schema.with_some("default", param.default);
    let mut description = param.doc.trim_end().to_owned();
    if let Some(max) = param.max {
        description.push_str(&format!(
            " At most {max}: the service answers a larger value as {max}; the client refuses it."
        ));
    }
    obj! {
        "name" => &param.wire_name,
        "in" => "query",
        "required" => param.required,
        "description" => description,
        "schema" => schema,
        "x-marketplace-type" => param.ty.spec_name(),
        "x-marketplace-rust-name" => &param.rust_name,
        "x-marketplace-rust-type" => rust_type::param_type(param).to_string(),
    }
    .with_some("x-marketplace-cap", param.max)
    .with_some("x-marketplace-narrowed", param.narrowed.as_ref())
}

/// `{path: {method: operation}}` for the OAuth endpoints.
pub(crate) fn oauth_paths(oauth: &OAuth) -> Object {
    let mut paths = Object::new();
    for endpoint in &oauth.endpoints {
        let http_method = endpoint.method.to_ascii_lowercase();
        let operation = oauth_operation(oauth, endpoint);
        match paths.get_mut(&endpoint.path).and_then(Json::as_object_mut) {
            Some(item) => {
                item.insert(http_method, operation);
            }
            None => {
                let mut item = Object::new();
                item.insert(http_method, operation);
                paths.insert(endpoint.path.clone(), Json::Object(item));
            }
        }
    }
    paths
}

fn oauth_operation(oauth: &OAuth, endpoint: &OAuthEndpoint) -> Json {
    let file_tag = "oauth";
    let common = |operation: Json| {
        operation
            .with("x-marketplace-oauth-endpoint", &endpoint.name)
            .with("x-marketplace-https-required", oauth.https_required)
    };
    if endpoint.response.is_empty() && endpoint.method.eq_ignore_ascii_case("GET") {
        // The user's browser: no signature, a page to log in and approve.
        return common(obj! {
            "operationId" => format!("oauth_{}", endpoint.name),
            "summary" => format!("OAuth: {}", endpoint.name.replace('_', " ")),
            "description" => endpoint.doc.trim_end(),
            "tags" => strings([file_tag]),
            "security" => Json::Array(Vec::new()),
            "parameters" => vec![obj! {
                "name" => "oauth_token",
                "in" => "query",
                "required" => true,
                "description" => "The request token.",
                "schema" => obj! { "type" => "string" },
            }],
            "responses" => obj! {
                "200" => obj! {
                    "description" => "The page where the user logs in and approves or denies the application.",
                    "content" => obj! { "text/html" => obj! { "schema" => obj! { "type" => "string" } } },
                },
                "400" => obj! {
                    "description" => "A page saying the request token is unknown.",
                    "content" => obj! { "text/html" => obj! { "schema" => obj! { "type" => "string" } } },
                },
            },
            "x-marketplace-browser" => true,
        });
    }
    // A refusal may come as an HTTP 200 too, in the envelope with `rcode` 0 (one of the error
    // shapes the client reads, and the fake sends: the reference does not show the format).
    // A response without a body cannot list one as an alternative (a typed client would then
    // expect it always), so there the description says it.
    let refused_with_200 = obj! { "schema" => reference(RCODE_WITH_DATA) };
    let success = if endpoint.response.is_empty() {
        obj! {
            "description" => format!("Done; the reference shows no body (the fake's is empty). Or, as a failure with HTTP 200, the envelope with `rcode` 0 (`application/json`, `#/components/schemas/{RCODE_WITH_DATA}`)."),
        }
    } else {
        let mut properties = Object::new();
        for name in &endpoint.response {
            properties.insert(name.clone(), obj! { "type" => "string" });
        }
        obj! {
            "description" => "Form-encoded name/value pairs; or, as a failure with HTTP 200, the envelope with `rcode` 0.",
            "content" => obj! {
                "application/x-www-form-urlencoded" => obj! {
                    "schema" => obj! {
                        "type" => "object",
                        "required" => strings(&endpoint.response),
                        "properties" => properties,
                    },
                },
                "application/json" => refused_with_200,
            },
        }
    };
    common(obj! {
        "operationId" => format!("oauth_{}", endpoint.name),
        "summary" => format!("OAuth: {}", endpoint.name.replace('_', " ")),
        "description" => endpoint.doc.trim_end(),
        "tags" => strings([file_tag]),
        "responses" => obj! {
            "200" => success,
            "400" => obj! {
                "description" => "A request the endpoint cannot take (the fake: an `oauth_callback` that is not an absolute URI or `oob`).",
                "content" => errors::error_content(),
            },
            "401" => obj! {
                "description" => "The signature, the token, the verifier, the timestamp or the nonce was refused (`authentication` codes).",
                "content" => errors::error_content(),
            },
        },
        "x-marketplace-response-names" => strings(&endpoint.response),
    })
}
