//! The OpenAPI export read back: every part of the resolved spec is in it, and equal.
//!
//! The walk destructures every IR struct it reads exhaustively (`let Method { name, .. }`
//! without `..`), so a new property of the IR does not compile here until the walk checks it.
//! From each method's operation it follows the export the way a reader of it does (`$ref`s,
//! `anyOf`, index-keyed collections) and compares each method, parameter, record, field,
//! encoding, enum, error code and OAuth endpoint with the IR. `a_removed_part_is_found` removes
//! each parameter and each field property of the export in turn and requires the walk to
//! notice, so no part of the export is left unread.

use std::collections::BTreeSet;
use std::path::Path;

use marketplace_codegen::ir::{
    Api, ApiInfo, BeyondLast, DateForm, ENCODINGS, EncodingInfo, Enum, EnumValue, ErrorCode, Field,
    FieldEncoding, JsonForm, Method, OAuth, OAuthEndpoint, Paging, Param, ParamType, Presence,
    Record, Scalar, SpecFileInfo, TypeRef,
};
use marketplace_codegen::{load_spec_dir, openapi, resolve};
use serde_json::{Value, json};

fn spec() -> Api {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let sources = load_spec_dir(&dir, "spec").expect("the spec reads");
    resolve(&sources).expect("the spec resolves")
}

fn export(api: &Api) -> Value {
    let file = openapi(api).expect("the spec exports");
    assert!(
        file.contents.ends_with("}\n"),
        "pretty JSON, one trailing newline"
    );
    serde_json::from_str(&file.contents).expect("the export is JSON")
}

/// What the walk found wrong, each with where.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn expect(&mut self, ok: bool, at: &str, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(format!("{at}: {}", what()));
        }
    }

    fn equal(&mut self, at: &str, key: &str, found: &Value, expected: Value) {
        let found = &found[key];
        self.expect(*found == expected, at, || {
            format!("{key} is {found}, expected {expected}")
        });
    }
}

/// `schema`, or what its `$ref` names.
fn follow<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("a reference outside the schemas: {reference}"));
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn text_starts(value: &Value, doc: &str) -> bool {
    value
        .as_str()
        .is_some_and(|text| text.starts_with(doc.trim_end()))
}

/// The HTTP status the project gives an error of `kind` (ARCHITECTURE.md's decisions).
fn status_of(kind: Option<&str>) -> &'static str {
    match kind {
        Some("authentication") => "401",
        Some("authorization") => "403",
        _ => "400",
    }
}

fn check(api: &Api, doc: &Value) -> Problems {
    let mut problems = Problems::default();
    let Api {
        files,
        info,
        oauth,
        errors,
        enums,
        records,
        methods,
    } = api;
    let file_paths: Vec<&str> = files
        .iter()
        .map(
            |SpecFileInfo {
                 path,
                 module: _,
                 doc: _,
             }| path.as_str(),
        )
        .collect();
    problems.equal("root", "x-marketplace-spec-files", doc, json!(file_paths));
    for SpecFileInfo {
        path,
        module,
        doc: file_doc,
    } in files
    {
        let declares_methods = methods.iter().any(|m| files[m.file].path == *path);
        let tag = doc["tags"]
            .as_array()
            .and_then(|tags| tags.iter().find(|tag| tag["name"] == module.as_str()));
        problems.expect(tag.is_some() == declares_methods, path, || {
            format!("tag {module} present: {}", tag.is_some())
        });
        if let (Some(tag), Some(file_doc)) = (tag, file_doc) {
            problems.expect(text_starts(&tag["description"], file_doc), path, || {
                "tag description".into()
            });
        }
    }
    if let Some(ApiInfo {
        name,
        doc: info_doc,
        data_path,
        api_version,
        file: _,
    }) = info
    {
        problems.equal("info", "title", &doc["info"], json!(name));
        problems.equal(
            "info",
            "x-marketplace-api-version",
            &doc["info"],
            json!(api_version),
        );
        problems.equal("root", "x-marketplace-data-path", doc, json!(data_path));
        problems.expect(
            text_starts(&doc["info"]["description"], info_doc),
            "info",
            || "description".into(),
        );
    }
    check_encodings(doc, &mut problems);
    if let Some(oauth) = oauth {
        check_oauth(oauth, doc, &mut problems);
    }
    check_errors(api, errors, doc, &mut problems);
    for enumeration in enums {
        check_enum(enumeration, doc, &mut problems);
    }
    let mut reached = BTreeSet::new();
    for method in methods {
        check_method(api, method, doc, &mut problems, &mut reached);
    }
    for record in records.iter().filter(|r| r.delivered_by.is_empty()) {
        let schema = &doc["components"]["schemas"][&record.name];
        check_record(api, record, None, schema, doc, &mut problems, &mut reached);
    }
    for record in records {
        problems.expect(reached.contains(&record.name), &record.name, || {
            "no schema of the record is reached".into()
        });
    }
    problems
}

fn check_encodings(doc: &Value, problems: &mut Problems) {
    let rows = doc["x-marketplace-encodings"].as_array();
    problems.expect(
        rows.map(Vec::len) == Some(ENCODINGS.len()),
        "x-marketplace-encodings",
        || "one row per encoding".into(),
    );
    for (index, row) in ENCODINGS.iter().enumerate() {
        let EncodingInfo {
            name,
            doc: row_doc,
            types: _,
            default_for: _,
            plain_for: _,
            reader: _,
            json,
            date: _,
            examples: _,
        } = row;
        let found = &doc["x-marketplace-encodings"][index];
        problems.equal("x-marketplace-encodings", "name", found, json!(name));
        problems.equal(
            "x-marketplace-encodings",
            "description",
            found,
            json!(row_doc),
        );
        let kinds: Vec<&str> = json.kinds().iter().map(|kind| kind.words()).collect();
        problems.equal("x-marketplace-encodings", "json", found, json!(kinds));
    }
}

fn check_oauth(oauth: &OAuth, doc: &Value, problems: &mut Problems) {
    let OAuth {
        doc: oauth_doc,
        https_required,
        signature_method,
        version,
        token_lifetime_seconds,
        endpoints,
        file: _,
    } = oauth;
    let scheme = &doc["components"]["securitySchemes"]["oauth1"];
    problems.equal("securitySchemes.oauth1", "type", scheme, json!("http"));
    problems.equal("securitySchemes.oauth1", "scheme", scheme, json!("OAuth"));
    problems.expect(
        scheme["description"]
            .as_str()
            .is_some_and(|text| text.contains(oauth_doc.trim_end())),
        "securitySchemes.oauth1",
        || "the OAuth doc".into(),
    );
    let rules = &scheme["x-marketplace-oauth"];
    problems.equal("oauth", "signature_method", rules, json!(signature_method));
    problems.equal("oauth", "version", rules, json!(version));
    problems.equal("oauth", "https_required", rules, json!(https_required));
    problems.equal(
        "oauth",
        "token_lifetime_seconds",
        rules,
        json!(token_lifetime_seconds),
    );
    problems.equal("root", "security", doc, json!([{"oauth1": []}]));
    for OAuthEndpoint {
        name,
        method,
        path,
        doc: endpoint_doc,
        response,
    } in endpoints
    {
        let operation = &doc["paths"][path][method.to_ascii_lowercase()];
        let at = format!("{method} {path}");
        problems.equal(&at, "x-marketplace-oauth-endpoint", operation, json!(name));
        problems.expect(
            text_starts(&operation["description"], endpoint_doc),
            &at,
            || "description".into(),
        );
        if method.eq_ignore_ascii_case("GET") {
            // The user's browser: the request token in the query, no signature.
            let token = &operation["parameters"][0];
            problems.equal(&at, "name", token, json!("oauth_token"));
            problems.equal(&at, "required", token, json!(true));
            problems.equal(&at, "security", operation, json!([]));
        }
        if !response.is_empty() {
            let schema = &operation["responses"]["200"]["content"]["application/x-www-form-urlencoded"]
                ["schema"];
            problems.equal(&at, "required", schema, json!(response));
        }
    }
}

fn check_errors(api: &Api, errors: &[ErrorCode], doc: &Value, problems: &mut Problems) {
    let schema = &doc["components"]["schemas"]["ErrorCode"];
    for (index, error) in errors.iter().enumerate() {
        let ErrorCode {
            code,
            variant,
            doc: error_doc,
            kind,
            methods,
            file,
        } = error;
        let at = format!("ErrorCode {code}");
        let found = &schema["x-marketplace-values"][index];
        problems.equal(&at, "value", found, json!(code));
        problems.equal(&at, "rust-variant", found, json!(variant));
        problems.equal(&at, "description", found, json!(error_doc.trim_end()));
        problems.equal(&at, "kind", found, json!(kind));
        problems.equal(
            &at,
            "status",
            found,
            json!(status_of(kind.as_deref()).parse::<u16>().unwrap()),
        );
        problems.equal(
            &at,
            "x-marketplace-spec-file",
            found,
            json!(api.files[*file].path),
        );
        let expected_methods = match methods {
            Some(methods) => json!(methods.iter().map(|m| m.as_str()).collect::<Vec<_>>()),
            None => json!("every data method"),
        };
        problems.equal(&at, "methods", found, expected_methods);
        problems.expect(
            schema["anyOf"][0]["enum"][index] == code.as_str(),
            &at,
            || "listed in the enum".into(),
        );
    }
}

fn check_enum(enumeration: &Enum, doc: &Value, problems: &mut Problems) {
    let Enum {
        name,
        doc: enum_doc,
        open,
        values,
        file: _,
    } = enumeration;
    let schema = &doc["components"]["schemas"][name];
    problems.equal(name, "x-marketplace-open", schema, json!(open));
    problems.equal(name, "x-marketplace-rust-name", schema, json!(name));
    problems.expect(text_starts(&schema["description"], enum_doc), name, || {
        "description".into()
    });
    let wires: Vec<&str> = values.iter().map(|v| v.wire.as_str()).collect();
    if *open {
        problems.equal(
            name,
            "anyOf",
            schema,
            json!([{"type": "string", "enum": wires}, {"type": "string"}]),
        );
    } else {
        problems.equal(name, "enum", schema, json!(wires));
    }
    for (
        index,
        EnumValue {
            wire,
            variant,
            doc: value_doc,
        },
    ) in values.iter().enumerate()
    {
        let found = &schema["x-marketplace-values"][index];
        problems.equal(name, "value", found, json!(wire));
        problems.equal(name, "rust-variant", found, json!(variant));
        problems.equal(name, "description", found, json!(value_doc.trim_end()));
    }
}

fn check_method(
    api: &Api,
    method: &Method,
    doc: &Value,
    problems: &mut Problems,
    reached: &mut BTreeSet<String>,
) {
    #[expect(
        clippy::disallowed_fields,
        reason = "the oracle reads the method's own list and derives what it documents itself"
    )]
    let Method {
        name,
        rust_name,
        doc: method_doc,
        path,
        response,
        delivered_api,
        params,
        at_least_one_of,
        paging,
        errors,
        file,
    } = method;
    let at = name.as_str();
    let Some(operation) = doc["paths"][path].get("get") else {
        problems.expect(false, at, || format!("no GET operation at {path}"));
        return;
    };
    problems.equal(at, "operationId", operation, json!(name.replace('/', "_")));
    problems.equal(at, "x-marketplace-method", operation, json!(name));
    problems.equal(at, "x-marketplace-rust-name", operation, json!(rust_name));
    let constructors: Vec<String> = if at_least_one_of.is_empty() {
        vec![rust_name.clone()]
    } else {
        at_least_one_of
            .iter()
            .map(|id| format!("{rust_name}_by_{}", method.param(id).rust_name))
            .collect()
    };
    problems.equal(
        at,
        "x-marketplace-constructors",
        operation,
        json!(constructors),
    );
    problems.equal(at, "tags", operation, json!([api.files[*file].module]));
    problems.equal(
        at,
        "x-marketplace-spec-file",
        operation,
        json!(api.files[*file].path),
    );
    problems.expect(
        text_starts(&operation["description"], method_doc),
        at,
        || "description".into(),
    );
    problems.equal(
        at,
        "x-marketplace-delivered-api",
        operation,
        json!(delivered_api),
    );
    let envelope =
        &operation["responses"]["200"]["content"]["application/json"]["schema"]["anyOf"][0];
    problems.equal(
        at,
        "const",
        &envelope["properties"]["api"],
        json!(delivered_api),
    );
    problems.equal(at, "const", &envelope["properties"]["rcode"], json!(1));
    if let Some(info) = &api.info {
        problems.equal(
            at,
            "const",
            &envelope["properties"]["apiVersion"],
            json!(info.api_version),
        );
    }
    problems.equal(
        at,
        "required",
        envelope,
        json!(["api", "apiVersion", "rcode", "data"]),
    );
    if at_least_one_of.is_empty() {
        problems.expect(
            operation.get("x-marketplace-at-least-one-of").is_none(),
            at,
            || "an either-or group the spec does not have".into(),
        );
    } else {
        let names: Vec<&str> = at_least_one_of.iter().map(|id| id.as_str()).collect();
        problems.equal(at, "x-marketplace-at-least-one-of", operation, json!(names));
    }
    match paging {
        None => problems.expect(operation.get("x-marketplace-paging").is_none(), at, || {
            "paging the spec does not have".into()
        }),
        Some(Paging {
            page_param,
            size_param,
            items,
            total_pages,
            beyond_last,
        }) => {
            let found = &operation["x-marketplace-paging"];
            problems.equal(at, "page_param", found, json!(page_param.as_str()));
            problems.equal(at, "size_param", found, json!(size_param.as_str()));
            problems.equal(at, "items", found, json!(items.as_str()));
            problems.equal(
                at,
                "total_pages",
                found,
                json!(total_pages.as_ref().map(|t| t.as_str())),
            );
            let rule = match beyond_last {
                BeyondLast::AboveTotal => "above_total",
                BeyondLast::AtOrAboveTotal => "at_or_above_total",
            };
            problems.equal(at, "beyond_last", found, json!(rule));
        }
    }
    // What the method documents: its own list, then each code that names no method (every
    // method's) that the list leaves out, in spec order.
    let own: Vec<&str> = errors.iter().map(|id| id.as_str()).collect();
    let every_method = api
        .errors
        .iter()
        .filter(|e| e.methods.is_none() && !own.contains(&e.code.as_str()))
        .map(|e| e.code.as_str());
    let codes: Vec<&str> = own.iter().copied().chain(every_method).collect();
    problems.equal(at, "x-marketplace-errors", operation, json!(codes));
    for code in codes {
        let kind = api
            .errors
            .iter()
            .find(|e| e.code == code)
            .and_then(|e| e.kind.as_deref());
        let listed = &operation["responses"][status_of(kind)]["x-marketplace-error-codes"];
        problems.expect(
            listed
                .as_array()
                .is_some_and(|codes| codes.iter().any(|c| c == code)),
            at,
            || format!("{code} under HTTP {}", status_of(kind)),
        );
    }
    problems.expect(operation["responses"].get("401").is_some(), at, || {
        "no 401".into()
    });
    for param in params {
        check_param(at, param, operation, problems);
    }
    let documented: Vec<&Value> = operation["parameters"]
        .as_array()
        .map_or(Vec::new(), |p| p.iter().collect());
    problems.expect(documented.len() == params.len(), at, || {
        "parameters the spec does not have".into()
    });
    let record = api.record(response);
    let data = follow(doc, &envelope["properties"]["data"]);
    problems.equal(
        at,
        "record",
        &operation["x-marketplace-response"],
        json!(response.as_str()),
    );
    check_record(api, record, Some(name), data, doc, problems, reached);
}

fn check_param(method: &str, param: &Param, operation: &Value, problems: &mut Problems) {
    let Param {
        wire_name,
        rust_name,
        doc,
        ty,
        required,
        default,
        min,
        max,
        narrowed,
    } = param;
    let at = format!("{method} parameter {wire_name}");
    let Some(found) = operation["parameters"]
        .as_array()
        .and_then(|params| params.iter().find(|p| p["name"] == wire_name.as_str()))
    else {
        problems.expect(false, &at, || "missing".into());
        return;
    };
    problems.equal(&at, "in", found, json!("query"));
    problems.equal(&at, "required", found, json!(required));
    problems.equal(&at, "x-marketplace-rust-name", found, json!(rust_name));
    problems.equal(&at, "x-marketplace-type", found, json!(ty.spec_name()));
    problems.equal(&at, "x-marketplace-narrowed", found, json!(narrowed));
    problems.expect(text_starts(&found["description"], doc), &at, || {
        "description".into()
    });
    let schema = &found["schema"];
    problems.equal(&at, "default", schema, json!(default));
    match ty {
        ParamType::Date => {
            problems.equal(&at, "type", schema, json!("string"));
            problems.expect(schema["pattern"].is_string(), &at, || "no pattern".into());
        }
        ParamType::Integer | ParamType::Count | ParamType::Id => {
            problems.equal(&at, "type", schema, json!("integer"));
            // IDs start at 1 (0 means none), counts at 0, unless the spec says more.
            let floor = match ty {
                ParamType::Id => Some(1),
                ParamType::Count => Some(min.unwrap_or(0)),
                _ => *min,
            };
            if let Some(floor) = floor {
                problems.equal(&at, "minimum", schema, json!(floor));
            }
            if let Some(max) = max {
                problems.equal(&at, "maximum", schema, json!(max));
                problems.equal(&at, "x-marketplace-cap", found, json!(max));
            }
        }
    }
}

/// Where a field is in `method`'s answers: required, optional, or absent (`None`).
fn expected_presence(presence: &Presence, method: Option<&str>) -> Option<bool> {
    let listed = |methods: &[marketplace_codegen::ir::Id<Method>]| {
        method.map(|m| methods.iter().any(|id| *id == m))
    };
    match presence {
        Presence::Always => Some(true),
        Presence::Optional(_) => Some(false),
        Presence::OnlyIn(methods) => match listed(methods) {
            Some(true) => Some(true),
            Some(false) => None,
            None => Some(false),
        },
        Presence::AbsentIn(methods) => match listed(methods) {
            Some(true) => None,
            Some(false) => Some(true),
            None => Some(false),
        },
    }
}

fn presence_json(presence: &Presence) -> Value {
    fn names(ids: &[marketplace_codegen::ir::Id<Method>]) -> Vec<&str> {
        ids.iter().map(|id| id.as_str()).collect()
    }
    match presence {
        Presence::Always => json!("always"),
        Presence::Optional(None) => json!({"optional": true}),
        Presence::Optional(Some(when)) => json!({"optional": when}),
        Presence::OnlyIn(ids) => json!({"only_in": names(ids)}),
        Presence::AbsentIn(ids) => json!({"absent_in": names(ids)}),
    }
}

fn check_record(
    api: &Api,
    record: &Record,
    method: Option<&str>,
    schema: &Value,
    doc: &Value,
    problems: &mut Problems,
    reached: &mut BTreeSet<String>,
) {
    let Record {
        name,
        documented_as,
        doc: record_doc,
        opaque,
        fields,
        delivered_by,
        file,
    } = record;
    let at = format!("{name} in {}", method.unwrap_or("any method"));
    reached.insert(name.clone());
    problems.equal(&at, "x-marketplace-rust-name", schema, json!(name));
    problems.equal(&at, "type", schema, json!("object"));
    problems.equal(
        &at,
        "x-marketplace-documented-as",
        schema,
        json!(documented_as),
    );
    problems.equal(
        &at,
        "x-marketplace-spec-file",
        schema,
        json!(api.files[*file].path),
    );
    let delivered: Vec<&str> = delivered_by.iter().map(|id| id.as_str()).collect();
    problems.equal(&at, "x-marketplace-delivered-by", schema, json!(delivered));
    problems.expect(text_starts(&schema["description"], record_doc), &at, || {
        "description".into()
    });
    if *opaque {
        problems.equal(&at, "x-marketplace-opaque", schema, json!(true));
        problems.expect(schema.get("properties").is_none(), &at, || {
            "an opaque record with properties".into()
        });
        problems.equal(&at, "additionalProperties", schema, json!(true));
    }
    let mut required: Vec<&str> = Vec::new();
    for field in fields {
        let Field {
            wire_name,
            rust_name,
            doc: field_doc,
            ty,
            encoding,
            presence,
            nullable,
            zero_is_none,
            documented_as,
            documented_type,
            narrowed,
        } = field;
        let at = format!("{at}: {wire_name}");
        let property = &schema["properties"][wire_name];
        let Some(is_required) = expected_presence(presence, method) else {
            problems.expect(property.is_null(), &at, || {
                "a property where the spec says it is absent".into()
            });
            continue;
        };
        if property.is_null() {
            problems.expect(false, &at, || "missing".into());
            continue;
        }
        if is_required {
            required.push(wire_name);
        }
        problems.equal(&at, "x-marketplace-rust-name", property, json!(rust_name));
        problems.equal(&at, "x-marketplace-type", property, json!(ty.spec_name()));
        problems.equal(
            &at,
            "x-marketplace-presence",
            property,
            presence_json(presence),
        );
        problems.equal(
            &at,
            "x-marketplace-zero-is-none",
            property,
            json!(zero_is_none.then_some(true)),
        );
        problems.equal(
            &at,
            "x-marketplace-documented-as",
            property,
            json!(documented_as),
        );
        problems.equal(
            &at,
            "x-marketplace-documented-type",
            property,
            json!(documented_type.as_ref().map(|t| t.as_str())),
        );
        problems.equal(&at, "x-marketplace-narrowed", property, json!(narrowed));
        problems.expect(
            text_starts(&property["description"], field_doc),
            &at,
            || "description".into(),
        );
        let value = if *nullable {
            problems.equal(
                &at,
                "anyOf",
                &json!({"anyOf": property["anyOf"][1]}),
                json!({"type": "null"}),
            );
            &property["anyOf"][0]
        } else {
            problems.expect(
                !property["anyOf"].as_array().is_some_and(|alternatives| {
                    alternatives.iter().any(|a| *a == json!({"type": "null"}))
                }),
                &at,
                || "null allowed where the spec does not say nullable".into(),
            );
            property
        };
        let encodings = match (encoding, method) {
            (FieldEncoding::Itself, _) => Vec::new(),
            (FieldEncoding::Uniform(encoding), _) => vec![*encoding],
            (FieldEncoding::PerMethod(per_method), Some(method)) => per_method
                .iter()
                .filter(|(m, _)| *m == method)
                .map(|(_, e)| *e)
                .collect(),
            (FieldEncoding::PerMethod(_), None) => encoding.distinct(),
        };
        if let FieldEncoding::PerMethod(per_method) = encoding {
            let map: serde_json::Map<String, Value> = per_method
                .iter()
                .map(|(m, e)| (m.to_string(), json!(e.spec_name())))
                .collect();
            problems.equal(
                &at,
                "x-marketplace-encoding-by-method",
                property,
                Value::Object(map),
            );
        }
        match encodings.as_slice() {
            [] => problems.expect(
                property.get("x-marketplace-encoding").is_none(),
                &at,
                || "an encoding for a record or enum".into(),
            ),
            [one] => {
                problems.equal(
                    &at,
                    "x-marketplace-encoding",
                    property,
                    json!(one.spec_name()),
                );
                // A `zero_is_none` date sent as text in this method: its form, or the 0 the
                // client reads there as none.
                let zero_in_text = *zero_is_none
                    && matches!(ty, TypeRef::Scalar(Scalar::Date))
                    && one.info().date != Some(DateForm::Instant);
                let form = if zero_in_text {
                    problems.equal(
                        &at,
                        "anyOf",
                        &json!({"anyOf": value["anyOf"][1]}),
                        json!({"type": ["integer", "string"], "enum": [0, "0"]}),
                    );
                    &value["anyOf"][0]
                } else {
                    value
                };
                check_json_form(&at, one.info().json, form, problems);
            }
            several => {
                let names: Vec<&str> = several.iter().map(|e| e.spec_name()).collect();
                problems.equal(&at, "x-marketplace-encoding", property, json!(names));
            }
        }
        check_value(api, ty, method, value, doc, &at, problems, reached);
    }
    if !*opaque {
        let found: Vec<&str> = schema["required"]
            .as_array()
            .map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).collect());
        problems.expect(found == required, &at, || {
            format!("required {found:?}, expected {required:?}")
        });
    }
}

/// The JSON types a schema admits, through `anyOf`.
fn admitted(schema: &Value) -> BTreeSet<String> {
    if let Some(alternatives) = schema["anyOf"].as_array() {
        return alternatives.iter().flat_map(admitted).collect();
    }
    match &schema["type"] {
        Value::String(one) => [one.clone()].into(),
        Value::Array(many) => many
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// The schema admits the JSON of the encoding's row (an index-keyed collection also its empty
/// `[]`, which the export documents as PHP's spelling of an empty collection).
fn check_json_form(at: &str, form: JsonForm, value: &Value, problems: &mut Problems) {
    let expected: BTreeSet<String> = match form {
        JsonForm::Number => ["integer", "number"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        JsonForm::String => ["string".to_owned()].into(),
        JsonForm::StringOrNumber => ["string", "integer", "number"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        JsonForm::Boolean => ["boolean".to_owned()].into(),
        JsonForm::IndexObject => ["object", "array"].iter().map(|s| s.to_string()).collect(),
        JsonForm::Array => ["array".to_owned()].into(),
    };
    let found = admitted(value);
    let fits = !found.is_empty()
        && found.is_subset(&expected)
        && match form {
            JsonForm::StringOrNumber => found.contains("string") && found.len() == 2,
            JsonForm::IndexObject => found.contains("object") && value["anyOf"][1]["maxItems"] == 0,
            _ => true,
        };
    problems.expect(fits, at, || format!("admits {found:?} for {form:?}"));
}

#[allow(clippy::too_many_arguments)]
fn check_value(
    api: &Api,
    ty: &TypeRef,
    method: Option<&str>,
    value: &Value,
    doc: &Value,
    at: &str,
    problems: &mut Problems,
    reached: &mut BTreeSet<String>,
) {
    match ty {
        TypeRef::Scalar(_) => {}
        TypeRef::Enum(id) => problems.equal(
            at,
            "$ref",
            value,
            json!(format!("#/components/schemas/{id}")),
        ),
        TypeRef::Record(id) => {
            let held = api.record(id);
            let schema = follow(doc, value);
            problems.expect(!schema.is_null(), at, || {
                format!("{} names no schema", value["$ref"])
            });
            if !schema.is_null() {
                check_record(api, held, method, schema, doc, problems, reached);
            }
        }
        TypeRef::List(element) => {
            let items: Vec<&Value> = match value["anyOf"].as_array() {
                Some(alternatives) => alternatives
                    .iter()
                    .filter_map(|a| a.get("additionalProperties").or_else(|| a.get("items")))
                    .collect(),
                None => value.get("items").into_iter().collect(),
            };
            problems.expect(!items.is_empty(), at, || "a list without its items".into());
            for item in items {
                check_value(api, element, method, item, doc, at, problems, reached);
            }
        }
    }
}

#[test]
fn every_part_of_the_spec_is_in_the_export() {
    let api = spec();
    let doc = export(&api);
    let problems = check(&api, &doc);
    assert!(problems.0.is_empty(), "{}", problems.0.join("\n"));
    assert_eq!(doc["openapi"], "3.1.0");
}

/// The real spec's methods each list the code that names no method; a spec whose lists leave
/// it out documents it all the same, on every operation.
#[test]
fn a_code_that_names_no_method_is_every_operations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let mut sources = load_spec_dir(&dir, "spec").expect("the spec reads");
    let listed = "E_API_AUTH_SIGNATURE_MISMATCH, ";
    let mut left_out = 0;
    for source in &mut sources {
        left_out += source.text.matches(listed).count();
        source.text = source.text.replace(listed, "");
    }
    assert!(left_out > 5, "the spec's lists changed: {left_out}");
    let api = resolve(&sources).expect("the edited spec resolves");
    assert!(
        api.errors
            .iter()
            .any(|e| e.code == "E_API_AUTH_SIGNATURE_MISMATCH" && e.methods.is_none())
    );
    let doc = export(&api);
    let problems = check(&api, &doc);
    assert!(problems.0.is_empty(), "{}", problems.0.join("\n"));
    let methods = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item["get"].get("x-marketplace-method").is_some());
    for (path, item) in methods {
        let codes = &item["get"]["x-marketplace-errors"];
        assert!(
            codes
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c == "E_API_AUTH_SIGNATURE_MISMATCH")),
            "{path}: {codes}"
        );
    }
}

#[test]
fn the_export_is_the_same_bytes_every_time() {
    let api = spec();
    let first = openapi(&api).unwrap();
    assert_eq!(first, openapi(&spec()).unwrap());
    let committed =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.json"))
            .unwrap();
    assert_eq!(
        committed, first.contents,
        "spec/openapi.json is stale: run `cargo xtask codegen`"
    );
}

/// Takes one part out of the export; `false` when it was not there.
type Removal = Box<dyn Fn(&mut Value) -> bool>;

/// Each parameter and each field property removed from the export in turn is found missing:
/// the walk reads every one of them.
#[test]
fn a_removed_part_is_found() {
    let api = spec();
    let doc = export(&api);
    let mut removals: Vec<Removal> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let count = item["get"]["parameters"].as_array().map_or(0, Vec::len);
        for index in 0..count {
            let path = path.clone();
            removals.push(Box::new(move |doc: &mut Value| {
                doc["paths"][&path]["get"]["parameters"]
                    .as_array_mut()
                    .unwrap()
                    .remove(index);
                true
            }));
        }
    }
    let records = doc["components"]["schemas"].as_object().unwrap().iter();
    for (name, schema) in records.filter(|(_, s)| s.get("x-marketplace-delivered-by").is_some()) {
        for property in schema["properties"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys())
        {
            let (name, property) = (name.clone(), property.clone());
            removals.push(Box::new(move |doc: &mut Value| {
                doc["components"]["schemas"][&name]["properties"]
                    .as_object_mut()
                    .unwrap()
                    .remove(&property)
                    .is_some()
            }));
        }
    }
    assert!(removals.len() > 200, "{} parts", removals.len());
    for (index, remove) in removals.iter().enumerate() {
        let mut planted = doc.clone();
        assert!(remove(&mut planted));
        assert!(
            !check(&api, &planted).0.is_empty(),
            "removal {index} went unnoticed"
        );
    }
}
