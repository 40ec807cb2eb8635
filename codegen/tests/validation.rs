//! One test per validation rule: each broken spec is refused with its file, line and column,
//! the path inside the spec, and (where one exists) the nearest valid name.

use marketplace_codegen::{SpecSource, resolve};

/// The messages for a one-file spec named `spec/test.yaml`.
fn errors(yaml: &str) -> Vec<String> {
    errors_in(&[("spec/test.yaml", yaml)])
}

fn errors_in(files: &[(&str, &str)]) -> Vec<String> {
    let sources: Vec<SpecSource> = files
        .iter()
        .map(|(path, text)| SpecSource {
            path: (*path).to_owned(),
            text: (*text).to_owned(),
        })
        .collect();
    match resolve(&sources) {
        Ok(_) => panic!("the spec was accepted"),
        Err(errors) => errors.0.iter().map(ToString::to_string).collect(),
    }
}

/// A valid base to break: a method delivering a record with one field.
const BASE: &str = "\
types:
  Timesheet:
    doc: A timesheet.
    fields:
      rate:
        type: decimal
        doc: Hourly rate.
methods:
  pay/getTimesheet:
    doc: One timesheet.
    response: Timesheet
";

fn broken(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from:?} is not in BASE");
    BASE.replacen(from, to, 1)
}

#[test]
fn the_base_spec_is_valid() {
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: BASE.to_owned(),
    }];
    assert!(resolve(&sources).is_ok());
}

#[test]
fn invalid_yaml_is_reported_with_its_position() {
    let messages = errors("types:\n  Timesheet:\n    doc: [unclosed\n");
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("spec/test.yaml:4:1: invalid YAML: "),
        "{}",
        messages[0]
    );
}

#[test]
fn hostile_nesting_is_refused_before_parsing_with_its_position() {
    // A megabyte of nested flow collections took the YAML parser minutes (quadratic in the
    // nesting); the pre-scan refuses it where the 65th level opens, in one pass.
    let megabyte = 1_000_000;
    for (unit, column) in [("[", 64), ("{a: ", 253), ("- ", 129), ("&a [", 256)] {
        let messages = errors(&unit.repeat(megabyte / unit.len()));
        assert_eq!(
            messages,
            [format!(
                "spec/test.yaml:1:{column}: nesting deeper than 64 levels (a spec needs \
                 about 6); refused before parsing"
            )],
            "{unit:?}"
        );
    }
    let messages = errors(&"a".repeat(2 << 20));
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("spec/test.yaml: the file is 2097152 bytes, more than the"),
        "{}",
        messages[0]
    );
}

#[test]
fn unknown_type_suggests_the_nearest() {
    assert_eq!(
        errors(&broken("type: decimal", "type: decimall")),
        [
            "spec/test.yaml:6:9: types.Timesheet.fields.rate: unknown type 'decimall' (did you mean 'decimal'?)"
        ]
    );
}

#[test]
fn unknown_key_suggests_the_nearest() {
    assert_eq!(
        errors(&broken("type: decimal", "tyep: decimal")),
        [
            "spec/test.yaml:6:9: types.Timesheet.fields.rate: unknown key 'tyep' (did you mean 'type'?); expected one of: type, doc, rust_name, encoding, optional, only_in, absent_in, nullable, zero_is_none, documented_as, documented_type, narrowed"
        ]
    );
}

#[test]
fn narrowed_must_say_why_quoting_the_reference() {
    let with = |narrowed: &str| {
        errors(&broken(
            "type: decimal",
            &format!("type: decimal\n        narrowed: '{narrowed}'"),
        ))
    };
    let at = "spec/test.yaml:7:9: types.Timesheet.fields.rate: narrowed";
    assert_eq!(
        with(" "),
        [format!(
            "{at} is empty: say why the type is narrower than the reference's, quoting the \
             reference's evidence in double quotes"
        )]
    );
    assert_eq!(
        with("Notes say \"Decimal amount text."),
        [format!("{at} has an unclosed double quote")]
    );
    assert_eq!(
        with("Notes say it is a decimal."),
        [format!(
            "{at} must quote the reference's evidence in double quotes (e.g. Notes say \"Numeric text\")"
        )]
    );
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: broken(
            "type: decimal",
            "type: decimal\n        narrowed: 'Notes say \"Decimal amount text.\"'",
        ),
    }];
    let api = resolve(&sources).unwrap();
    assert_eq!(
        api.records[0].fields[0].narrowed.as_deref(),
        Some("Notes say \"Decimal amount text.\"")
    );
}

#[test]
fn narrowed_on_a_parameter_is_checked_the_same_way() {
    let spec = format!(
        "{BASE}    params:\n      id:\n        type: id\n        doc: ID.\n        narrowed: because\n"
    );
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:16:9: methods.pay/getTimesheet.params.id: narrowed must quote the reference's evidence in double quotes (e.g. Notes say \"Numeric text\")"
        ]
    );
}

#[test]
fn missing_key_is_named() {
    assert_eq!(
        errors(&broken("        doc: Hourly rate.\n", "")),
        ["spec/test.yaml:5:7: types.Timesheet.fields.rate: missing key 'doc'"]
    );
}

#[test]
fn encoding_must_fit_the_type() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        encoding: strng"
        )),
        [
            "spec/test.yaml:7:9: types.Timesheet.fields.rate: unknown encoding 'strng' for decimal (did you mean 'string'?); expected number or string"
        ]
    );
}

#[test]
fn dates_need_an_encoding() {
    assert_eq!(
        errors(&broken("type: decimal", "type: date")),
        [
            "spec/test.yaml:5:7: types.Timesheet.fields.rate: a date field needs an encoding: dmy or epoch (or one per method)"
        ]
    );
}

#[test]
fn per_method_encodings_must_name_exactly_the_delivering_methods() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        encoding: { pay/getTimesheets: string }"
        )),
        [
            "spec/test.yaml:7:9: types.Timesheet.fields.rate: the encoding is not given for: pay/getTimesheet",
            "spec/test.yaml:7:21: types.Timesheet.fields.rate.encoding: 'pay/getTimesheets' does not deliver this field (did you mean 'pay/getTimesheet'?); it is delivered by: pay/getTimesheet",
        ]
    );
}

#[test]
fn only_in_must_name_delivering_methods() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        only_in: [pay/getTimeshet]"
        )),
        [
            "spec/test.yaml:7:19: types.Timesheet.fields.rate.only_in.0: 'pay/getTimeshet' does not deliver Timesheet (did you mean 'pay/getTimesheet'?); it is delivered by: pay/getTimesheet"
        ]
    );
}

#[test]
fn presence_is_declared_once() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        optional: true\n        only_in: [pay/getTimesheet]"
        )),
        [
            "spec/test.yaml:5:7: types.Timesheet.fields.rate: use only one of optional, only_in and absent_in"
        ]
    );
}

#[test]
fn zero_is_none_needs_a_type_that_can_be_zero() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        zero_is_none: true"
        )),
        [
            "spec/test.yaml:7:9: types.Timesheet.fields.rate: zero_is_none applies to integer, id, count and epoch date fields only"
        ]
    );
}

#[test]
fn keywords_need_a_rust_name() {
    assert_eq!(
        errors(&broken("      rate:", "      type:")),
        [
            "spec/test.yaml:5:7: types.Timesheet.fields.type: 'type' is a Rust keyword; set rust_name (e.g. 'kind')"
        ]
    );
}

#[test]
fn rust_names_must_be_snake_case() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        rust_name: Rate"
        )),
        [
            "spec/test.yaml:7:9: types.Timesheet.fields.rate: 'Rate' is not a snake_case Rust name (or is a keyword)"
        ]
    );
}

#[test]
fn two_fields_cannot_share_a_rust_name() {
    assert_eq!(
        errors(&broken(
            "        doc: Hourly rate.\n",
            "        doc: Hourly rate.\n      Rate:\n        type: decimal\n        doc: Again.\n"
        )),
        [
            "spec/test.yaml:8:7: types.Timesheet.fields.Rate: 'Rate' and 'rate' both become the Rust field 'rate'; set rust_name"
        ]
    );
}

#[test]
fn a_name_is_defined_once_across_files() {
    let other = "types:\n  Timesheet:\n    doc: Again.\n    opaque: true\n";
    assert_eq!(
        errors_in(&[("spec/a.yaml", BASE), ("spec/b.yaml", other)]),
        ["spec/b.yaml:2:3: types.Timesheet: 'Timesheet' is already defined in spec/a.yaml"]
    );
}

#[test]
fn a_record_and_an_enum_cannot_share_a_name() {
    let spec = format!("{BASE}enums:\n  Timesheet:\n    doc: Clash.\n    values: {{ A: a }}\n");
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:2:3: types.Timesheet: 'Timesheet' is already defined as an enum in spec/test.yaml"
        ]
    );
}

#[test]
fn type_names_are_upper_camel_case_and_not_reserved() {
    assert_eq!(
        errors(
            &broken("  Timesheet:\n", "  timesheet:\n")
                .replace("response: Timesheet", "response: timesheet")
        ),
        [
            "spec/test.yaml:2:3: types.timesheet: 'timesheet' is not an UpperCamelCase Rust type name"
        ]
    );
    let spec = format!("{BASE}enums:\n  Decimal:\n    doc: Clash.\n    values: {{ A: a }}\n");
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:13:3: enums.Decimal: 'Decimal' is reserved: generated code uses it for a runtime type"
        ]
    );
}

#[test]
fn enum_values_need_distinct_variants() {
    let spec = "enums:\n  Status:\n    doc: A status.\n    values:\n      Hourly Other: a\n      HOURLY_OTHER: b\n      Other: c\n";
    assert_eq!(
        errors(spec),
        [
            "spec/test.yaml:6:7: enums.Status.values.HOURLY_OTHER: 'HOURLY_OTHER' and 'Hourly Other' both become the variant 'HourlyOther'",
            "spec/test.yaml:7:7: enums.Status.values.Other: the variant 'Other' is reserved for unknown values of an open enum",
        ]
    );
}

#[test]
fn method_names_are_group_slash_method() {
    assert_eq!(
        errors(&broken("  pay/getTimesheet:", "  getTimesheet:")),
        [
            "spec/test.yaml:9:3: methods.getTimesheet: 'getTimesheet' is not of the form group/method (e.g. pay/getTimesheet)"
        ]
    );
}

#[test]
fn the_response_must_be_a_defined_type() {
    assert_eq!(
        errors(&broken("response: Timesheet", "response: Timesheets")),
        [
            "spec/test.yaml:11:5: methods.pay/getTimesheet: unknown response type 'Timesheets' (did you mean 'Timesheet'?)"
        ]
    );
}

#[test]
fn error_codes_must_be_defined() {
    let spec = format!(
        "{BASE}    errors: [E_VALIDATION_INVALID_IDD]\nerrors:\n  E_VALIDATION_INVALID_ID:\n    doc: Invalid.\n    methods: [pay/getTimesheets]\n"
    );
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:12:14: methods.pay/getTimesheet.errors.0: unknown error code 'E_VALIDATION_INVALID_IDD' (did you mean 'E_VALIDATION_INVALID_ID'?)",
            "spec/test.yaml:16:15: errors.E_VALIDATION_INVALID_ID.methods.0: unknown method 'pay/getTimesheets' (did you mean 'pay/getTimesheet'?)",
        ]
    );
}

#[test]
fn parameters_are_checked() {
    let spec = format!(
        "{BASE}    params:\n      id: {{ type: id, doc: ID. }}\n      bidId: {{ type: id, required: true, doc: Bid. }}\n      rpp: {{ type: integr, doc: Size. }}\n      page: {{ type: integer, default: 0, min: 1, max: 0, doc: Page. }}\n    at_least_one_of: [id, bidId, nope]\n"
    );
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:14:26: methods.pay/getTimesheet.params.bidId: 'bidId' is in at_least_one_of and so cannot be required",
            "spec/test.yaml:15:14: methods.pay/getTimesheet.params.rpp: unknown parameter type 'integr' (did you mean 'integer'?); expected integer, count, id or date",
            "spec/test.yaml:16:30: methods.pay/getTimesheet.params.page: default 0 is outside min..max",
            "spec/test.yaml:16:42: methods.pay/getTimesheet.params.page: min 1 is above max 0",
            "spec/test.yaml:17:5: methods.pay/getTimesheet: unknown parameter 'nope'",
        ]
    );
}

#[test]
fn count_and_id_parameters_are_unsigned() {
    let spec = format!(
        "{BASE}    params:\n      id: {{ type: id, min: -1, doc: ID. }}\n      rpp: {{ type: count, default: -2, doc: Size. }}\n      page: {{ type: count, default: 1, min: 1, doc: Page. }}\n      delta: {{ type: integer, default: -2, min: -5, max: 5, doc: A signed integer. }}\n      date: {{ type: date, max: 3, doc: A day. }}\n"
    );
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:13:23: methods.pay/getTimesheet.params.id: min cannot be negative: the parameter is unsigned",
            "spec/test.yaml:14:27: methods.pay/getTimesheet.params.rpp: default cannot be negative: the parameter is unsigned",
            "spec/test.yaml:17:27: methods.pay/getTimesheet.params.date: max applies to integer, count and id parameters only",
        ]
    );
}

#[test]
fn a_paged_method_with_count_parameters_and_fields_is_valid() {
    let spec = "types:\n  Page:\n    doc: A page.\n    fields:\n      totalPages: { type: count, doc: Pages. }\n      items: { type: list<Item>, doc: Items. }\n  Item:\n    doc: An item.\n    fields:\n      id: { type: id, doc: ID. }\nmethods:\n  pay/getItems:\n    doc: Items.\n    response: Page\n    params:\n      rpp: { type: count, default: 10, min: 1, max: 25, doc: Size. }\n      page: { type: count, default: 1, min: 1, doc: Page. }\n    paging: { page_param: page, size_param: rpp, items: items, total_pages: totalPages, beyond_last: above_total }\n";
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: spec.to_owned(),
    }];
    let api = resolve(&sources).expect("valid");
    let params = &api.methods[0].params;
    assert_eq!(params[0].ty, marketplace_codegen::ir::ParamType::Count);
    assert_eq!(
        api.records[0].fields[0].ty,
        marketplace_codegen::ir::TypeRef::Scalar(marketplace_codegen::ir::Scalar::Count)
    );
}

#[test]
fn paging_refers_to_real_parameters_and_fields() {
    let spec = format!(
        "{BASE}    params:\n      page: {{ type: integer, doc: Page. }}\n      rpp: {{ type: id, doc: Size. }}\n    paging:\n      page_param: page\n      size_param: rpp\n      items: rates\n      total_pages: rate\n      beyond_last: above\n"
    );
    assert_eq!(
        errors(&spec),
        [
            "spec/test.yaml:16:7: methods.pay/getTimesheet.paging: 'page' must be a count parameter",
            "spec/test.yaml:17:7: methods.pay/getTimesheet.paging: 'rpp' must be a count parameter",
            "spec/test.yaml:18:7: methods.pay/getTimesheet.paging: Timesheet has no field 'rates' (did you mean 'rate'?)",
            "spec/test.yaml:19:7: methods.pay/getTimesheet.paging: 'rate' of Timesheet must be a count",
            "spec/test.yaml:20:7: methods.pay/getTimesheet.paging: unknown rule 'above' (did you mean 'above_total'?); expected above_total or at_or_above_total",
        ]
    );
}

#[test]
fn opaque_records_have_no_fields_and_others_have_some() {
    assert_eq!(
        errors(&broken(
            "    doc: A timesheet.\n",
            "    doc: A timesheet.\n    opaque: true\n"
        )),
        [
            "spec/test.yaml:4:5: types.Timesheet: an opaque type keeps the raw object and cannot declare fields"
        ]
    );
    assert_eq!(
        errors("types:\n  Comment:\n    doc: A comment.\n"),
        [
            "spec/test.yaml:2:3: types.Comment: a type needs fields; mark it `opaque: true` if the reference does not show them"
        ]
    );
}

#[test]
fn documented_types_must_exist() {
    assert_eq!(
        errors(&broken(
            "type: decimal",
            "type: decimal\n        documented_type: Timesheat"
        )),
        [
            "spec/test.yaml:7:9: types.Timesheet.fields.rate: unknown type 'Timesheat' (did you mean 'Timesheet'?)"
        ]
    );
}

#[test]
fn nested_lists_are_refused() {
    assert_eq!(
        errors(&broken("type: decimal", "type: list<list<decimal>>")),
        [
            "spec/test.yaml:6:9: types.Timesheet.fields.rate: nested lists are not supported: 'list<list<decimal>>'"
        ]
    );
}

#[test]
fn empty_docs_are_refused() {
    assert_eq!(
        errors(&broken("doc: Hourly rate.", "doc: ''")),
        ["spec/test.yaml:7:9: types.Timesheet.fields.rate: the doc is empty"]
    );
}

const OAUTH: &str = "\
oauth:
  doc: OAuth.
  https_required: true
  signature_method: HMAC-SHA1
  version: '1.0'
  token_lifetime_seconds: 21600
  endpoints:
    request_token: { method: POST, path: /oauth/getRequestToken, doc: a }
    authorize: { method: GET, path: /oauth/authorizeToken, doc: b }
    access_token: { method: POST, path: /oauth/getAccessToken, doc: c }
    revoke: { method: POST, path: /oauth/revokeToken, doc: d }
";

#[test]
fn service_sections_are_declared_once_and_checked() {
    assert_eq!(
        errors_in(&[("spec/a.yaml", OAUTH), ("spec/b.yaml", OAUTH)]),
        ["spec/b.yaml:1:1: oauth: 'oauth' is already declared in spec/a.yaml"]
    );
    let broken_oauth = OAUTH.replace("HMAC-SHA1", "RSA-SHA1").replace(
        "method: GET, path: /oauth/authorizeToken",
        "method: PUT, path: oauth/authorizeToken",
    );
    assert_eq!(
        errors(&broken_oauth),
        [
            "spec/test.yaml:4:3: oauth: unsupported signature method 'RSA-SHA1'; the client signs with HMAC-SHA1 only",
            "spec/test.yaml:9:18: oauth.endpoints.authorize: unknown HTTP method 'PUT'; use GET or POST",
            "spec/test.yaml:9:31: oauth.endpoints.authorize: 'oauth/authorizeToken' must start with '/'",
        ]
    );
    assert_eq!(
        errors("api: { name: M, doc: D, data_path: api, api_version: 1 }\n"),
        ["spec/test.yaml:1:25: api.data_path: 'api' must start with '/'"]
    );
}

#[test]
fn every_problem_is_reported_in_one_run() {
    let spec = BASE
        .replace("type: decimal", "type: decimall")
        .replace("response: Timesheet", "response: Timesheets");
    assert_eq!(errors(&spec).len(), 2);
}
