//! Every property of [`PROPERTIES`] changed in a spec, in both directions, and the diff held to
//! what the classification says: a change by one of the property's rules, and no breaking
//! verdict for a property that only documents. A property without a change here fails the
//! test, so the list of changes grows with the IR.

use std::collections::BTreeSet;

use super::{Consumer, PROPERTIES, Property};
use crate::diff::{self, Change, Impact, Side};
use crate::resolve::resolve;
use crate::spec_source::SpecSource;

/// A spec with every kind of item and key the changes below edit.
const SPEC: &str = r#"doc: The pay group.
api: { name: Marketplace, doc: The service., data_path: /api, api_version: 1 }
oauth:
  doc: Three-legged OAuth 1.0.
  https_required: true
  signature_method: HMAC-SHA1
  version: "1.0"
  token_lifetime_seconds: 21600
  endpoints:
    request_token: { method: POST, path: /oauth/getRequestToken, doc: Request token., response: [oauth_token, oauth_token_secret, oauth_callback_confirmed] }
    authorize: { method: GET, path: /oauth/authorizeToken, doc: Authorization. }
    access_token: { method: POST, path: /oauth/getAccessToken, doc: Access token., response: [oauth_token, oauth_token_secret] }
    revoke: { method: POST, path: /oauth/revokeToken, doc: Revocation. }
errors:
  E_VALIDATION_INVALID_ID: { doc: Invalid ID., kind: validation, methods: [pay/getTimesheet] }
enums:
  ReportStatus:
    doc: Status of a timesheet.
    open: false
    values:
      Draft: Not sent yet.
      Sent: Sent to the client.
types:
  TimesheetList:
    doc: A page of timesheets.
    fields:
      totalPages: { type: count, doc: Number of pages. }
      timesheets: { type: list<Timesheet>, doc: The timesheets. }
      others: { type: list<Timesheet>, doc: Other timesheets. }
  Timesheet:
    doc: A timesheet.
    documented_as: TimesheetData
    fields:
      id: { type: id, doc: Timesheet ID. }
      status: { type: ReportStatus, doc: Status. }
      hours: { type: integer, doc: Hours worked. }
      rate: { type: decimal, encoding: string, doc: Hourly rate. }
      week: { type: date, encoding: dmy, doc: Week-ending day. }
      invoiceId: { type: id, optional: true, doc: Invoice. }
      comment: { type: string, doc: A comment. }
      note: { type: Note, doc: A note. }
  Note:
    doc: A note.
    fields:
      text: { type: string, doc: The text. }
  Comment:
    doc: A comment.
    opaque: true
    fields: {}
methods:
  pay/getTimesheetsForBid:
    doc: All timesheets of a workroom, paged.
    response: TimesheetList
    params:
      bidId: { type: id, required: true, doc: Workroom. }
      userId: { type: id, required: true, doc: User. }
      date: { type: date, doc: A day. }
      rpp: { type: count, default: 10, min: 1, max: 25, doc: Page size. }
      page: { type: count, default: 1, min: 1, doc: Page number. }
      size: { type: count, min: 1, max: 25, doc: Another page size. }
    paging: { page_param: page, size_param: rpp, items: timesheets, total_pages: totalPages, beyond_last: above_total }
  pay/getTimesheet:
    doc: One timesheet.
    response: Timesheet
    delivered_api: pay/getTimesheet
    params:
      id: { type: id, doc: Timesheet ID. }
      bidId: { type: id, doc: Workroom. }
    at_least_one_of: [id, bidId]
    errors: [E_VALIDATION_INVALID_ID]
  pay/getNote:
    doc: One note.
    response: Note
"#;

/// Text edits of a spec: `(text, replacement)`.
type Edits = &'static [(&'static str, &'static str)];

/// The changes of each property: `(owner, property, [(text, replacement)])`, each text found
/// once in [`SPEC`] (a rename replaces the name and every reference to it). Each is tried from
/// the spec to the changed one and back. A property the spec does not let change alone (a
/// variant, derived from its wire value) is changed through what it derives from.
const CHANGES: &[(&str, &str, Edits)] = &[
    ("Api", "info", &[("data_path: /api,", "data_path: /v2,")]),
    ("Api", "oauth", &[("version: \"1.0\"", "version: \"1.1\"")]),
    (
        "Api",
        "errors",
        &[(
            "  E_VALIDATION_INVALID_ID: {",
            "  E_EXTRA: { doc: Extra., methods: [] }\n  E_VALIDATION_INVALID_ID: {",
        )],
    ),
    (
        "Api",
        "enums",
        &[(
            "enums:\n",
            "enums:\n  Extra:\n    doc: Extra.\n    values:\n      A: A.\n",
        )],
    ),
    (
        "Api",
        "records",
        &[(
            "types:\n",
            "types:\n  Extra:\n    doc: Extra.\n    fields:\n      a: { type: string, doc: A. }\n",
        )],
    ),
    (
        "Api",
        "methods",
        &[(
            "methods:\n",
            "methods:\n  pay/getExtra:\n    doc: Extra.\n    response: Note\n",
        )],
    ),
    (
        "SpecFileInfo",
        "doc",
        &[("doc: The pay group.", "doc: The pay group, changed.")],
    ),
    (
        "ApiInfo",
        "name",
        &[("name: Marketplace,", "name: Market,")],
    ),
    (
        "ApiInfo",
        "doc",
        &[("doc: The service.,", "doc: The whole service.,")],
    ),
    (
        "ApiInfo",
        "data_path",
        &[("data_path: /api,", "data_path: /api/v2,")],
    ),
    (
        "ApiInfo",
        "api_version",
        &[("api_version: 1 }", "api_version: 2 }")],
    ),
    (
        "OAuth",
        "doc",
        &[(
            "doc: Three-legged OAuth 1.0.",
            "doc: OAuth 1.0, three legs.",
        )],
    ),
    (
        "OAuth",
        "https_required",
        &[("https_required: true", "https_required: false")],
    ),
    (
        "OAuth",
        "version",
        &[("version: \"1.0\"", "version: \"1.1\"")],
    ),
    (
        "OAuth",
        "token_lifetime_seconds",
        &[(
            "token_lifetime_seconds: 21600",
            "token_lifetime_seconds: 3600",
        )],
    ),
    (
        "OAuth",
        "endpoints",
        &[(
            "revoke: { method: POST, path: /oauth/revokeToken,",
            "revoke: { method: POST, path: /oauth/expireToken,",
        )],
    ),
    (
        "OAuthEndpoint",
        "path",
        &[("path: /oauth/getAccessToken,", "path: /oauth/accessToken,")],
    ),
    (
        "OAuthEndpoint",
        "doc",
        &[("doc: Access token.,", "doc: The access token.,")],
    ),
    (
        "OAuthEndpoint",
        "response",
        &[(
            "response: [oauth_token, oauth_token_secret] }",
            "response: [oauth_token, oauth_token_secret, oauth_expires_in] }",
        )],
    ),
    (
        "ErrorCode",
        "code",
        &[
            ("  E_VALIDATION_INVALID_ID: {", "  E_VALIDATION_BAD_ID: {"),
            (
                "errors: [E_VALIDATION_INVALID_ID]",
                "errors: [E_VALIDATION_BAD_ID]",
            ),
        ],
    ),
    (
        "ErrorCode",
        "variant",
        &[
            (
                "  E_VALIDATION_INVALID_ID: {",
                "  E_VALIDATION_INVALID_IDS: {",
            ),
            (
                "errors: [E_VALIDATION_INVALID_ID]",
                "errors: [E_VALIDATION_INVALID_IDS]",
            ),
        ],
    ),
    (
        "ErrorCode",
        "doc",
        &[("doc: Invalid ID.,", "doc: The ID is invalid.,")],
    ),
    (
        "ErrorCode",
        "kind",
        &[("kind: validation,", "kind: authentication,")],
    ),
    // A code's methods and theirs agree (`error-lists-disagree`): both change.
    (
        "ErrorCode",
        "methods",
        &[
            (
                "methods: [pay/getTimesheet] }",
                "methods: [pay/getTimesheet, pay/getNote] }",
            ),
            (
                "    doc: One note.\n    response: Note\n",
                "    doc: One note.\n    response: Note\n    errors: [E_VALIDATION_INVALID_ID]\n",
            ),
        ],
    ),
    (
        "Enum",
        "name",
        &[
            ("  ReportStatus:\n", "  SheetStatus:\n"),
            ("type: ReportStatus,", "type: SheetStatus,"),
        ],
    ),
    (
        "Enum",
        "doc",
        &[("doc: Status of a timesheet.", "doc: A timesheet's status.")],
    ),
    ("Enum", "open", &[("    open: false\n", "")]),
    (
        "Enum",
        "values",
        &[(
            "      Sent: Sent to the client.\n",
            "      Sent: Sent to the client.\n      Paid: Paid.\n",
        )],
    ),
    (
        "EnumValue",
        "wire",
        &[("      Sent: Sent", "      SENT: Sent")],
    ),
    (
        "EnumValue",
        "variant",
        &[(
            "      Sent: Sent to the client.\n",
            "      Shipped: Sent to the client.\n",
        )],
    ),
    (
        "EnumValue",
        "doc",
        &[(
            "Sent: Sent to the client.",
            "Sent: Sent to the client, who pays.",
        )],
    ),
    (
        "Record",
        "name",
        &[
            ("  Note:\n", "  Memo:\n"),
            ("type: Note,", "type: Memo,"),
            ("response: Note\n", "response: Memo\n"),
        ],
    ),
    (
        "Record",
        "documented_as",
        &[("documented_as: TimesheetData", "documented_as: WorkData")],
    ),
    (
        "Record",
        "doc",
        &[("doc: A timesheet.\n", "doc: One week of work.\n")],
    ),
    (
        "Record",
        "opaque",
        &[(
            "    opaque: true\n    fields: {}\n",
            "    fields:\n      text: { type: string, doc: The text. }\n",
        )],
    ),
    (
        "Record",
        "fields",
        &[("      comment: { type: string, doc: A comment. }\n", "")],
    ),
    (
        "Record",
        "delivered_by",
        &[(
            "  pay/getNote:\n    doc: One note.\n    response: Note\n",
            "  pay/getNote:\n    doc: One note.\n    response: Timesheet\n",
        )],
    ),
    (
        "Field",
        "wire_name",
        &[(
            "      hours: { type: integer,",
            "      hoursWorked: { rust_name: hours, type: integer,",
        )],
    ),
    (
        "Field",
        "rust_name",
        &[(
            "      hours: { type: integer,",
            "      hours: { rust_name: worked, type: integer,",
        )],
    ),
    (
        "Field",
        "doc",
        &[("doc: Hours worked. }", "doc: The hours worked. }")],
    ),
    (
        "Field",
        "ty",
        &[("hours: { type: integer,", "hours: { type: decimal,")],
    ),
    (
        "Field",
        "encoding",
        &[(
            "encoding: string, doc: Hourly rate.",
            "encoding: number, doc: Hourly rate.",
        )],
    ),
    (
        "Field",
        "presence",
        &[(
            "invoiceId: { type: id, optional: true,",
            "invoiceId: { type: id, only_in: [pay/getTimesheet],",
        )],
    ),
    (
        "Field",
        "nullable",
        &[(
            "comment: { type: string, doc",
            "comment: { type: string, nullable: true, doc",
        )],
    ),
    (
        "Field",
        "zero_is_none",
        &[(
            "hours: { type: integer, doc",
            "hours: { type: integer, zero_is_none: true, doc",
        )],
    ),
    (
        "Field",
        "documented_as",
        &[(
            "comment: { type: string, doc",
            "comment: { type: string, documented_as: remark, doc",
        )],
    ),
    (
        "Field",
        "documented_type",
        &[(
            "note: { type: Note, doc",
            "note: { type: Note, documented_type: Comment, doc",
        )],
    ),
    (
        "Field",
        "narrowed",
        &[(
            "hours: { type: integer, doc",
            "hours: { type: integer, narrowed: The reference says \"whole hours\"., doc",
        )],
    ),
    (
        "Method",
        "name",
        &[("  pay/getNote:\n", "  pay/getMemo:\n")],
    ),
    (
        "Method",
        "rust_name",
        &[(
            "    doc: One note.\n",
            "    doc: One note.\n    rust_name: fetch_note\n",
        )],
    ),
    ("Method", "doc", &[("doc: One note.\n", "doc: A note.\n")]),
    (
        "Method",
        "path",
        &[("  pay/getNote:\n", "  pay/getNotes:\n")],
    ),
    (
        "Method",
        "response",
        &[("    response: Note\n", "    response: Timesheet\n")],
    ),
    (
        "Method",
        "delivered_api",
        &[(
            "delivered_api: pay/getTimesheet\n",
            "delivered_api: pay/getSheet\n",
        )],
    ),
    (
        "Method",
        "params",
        &[(
            "      bidId: { type: id, doc: Workroom. }\n",
            "      bidId: { type: id, doc: Workroom. }\n      day: { type: date, doc: A day. }\n",
        )],
    ),
    (
        "Method",
        "at_least_one_of",
        &[("    at_least_one_of: [id, bidId]\n", "")],
    ),
    (
        "Method",
        "paging",
        &[("beyond_last: above_total", "beyond_last: at_or_above_total")],
    ),
    // A method's errors and its codes' methods agree (`error-lists-disagree`): both change.
    (
        "Method",
        "errors",
        &[
            ("    errors: [E_VALIDATION_INVALID_ID]\n", ""),
            ("methods: [pay/getTimesheet] }", "methods: [] }"),
        ],
    ),
    (
        "Param",
        "wire_name",
        &[(
            "      date: { type: date,",
            "      day: { rust_name: date, type: date,",
        )],
    ),
    (
        "Param",
        "rust_name",
        &[(
            "      date: { type: date,",
            "      date: { rust_name: day, type: date,",
        )],
    ),
    ("Param", "doc", &[("doc: A day. }", "doc: One day. }")]),
    (
        "Param",
        "ty",
        &[("date: { type: date,", "date: { type: integer,")],
    ),
    (
        "Param",
        "required",
        &[("date: { type: date,", "date: { type: date, required: true,")],
    ),
    (
        "Param",
        "default",
        &[(
            "rpp: { type: count, default: 10,",
            "rpp: { type: count, default: 20,",
        )],
    ),
    (
        "Param",
        "min",
        &[(
            "rpp: { type: count, default: 10, min: 1,",
            "rpp: { type: count, default: 10, min: 5,",
        )],
    ),
    (
        "Param",
        "max",
        &[(
            "min: 1, max: 25, doc: Page size.",
            "min: 1, max: 30, doc: Page size.",
        )],
    ),
    (
        "Param",
        "narrowed",
        &[(
            "date: { type: date, doc",
            "date: { type: date, narrowed: The reference says \"a day\"., doc",
        )],
    ),
    (
        "Paging",
        "page_param",
        &[(
            "paging: { page_param: page, size_param: rpp,",
            "paging: { page_param: size, size_param: rpp,",
        )],
    ),
    (
        "Paging",
        "size_param",
        &[("size_param: rpp, items", "size_param: size, items")],
    ),
    (
        "Paging",
        "items",
        &[("items: timesheets,", "items: others,")],
    ),
    (
        "Paging",
        "total_pages",
        &[("total_pages: totalPages, ", "")],
    ),
    (
        "Paging",
        "beyond_last",
        &[("beyond_last: above_total", "beyond_last: at_or_above_total")],
    ),
];

/// Properties the spec format does not let change, each with a change it refuses and the
/// validation rule that refuses it: `(owner, property, (text, replacement), rule)`.
const FIXED: &[(&str, &str, (&str, &str), &str)] = &[
    // The OAuth flow is the runtime's: the spec states the method it sends each endpoint with.
    (
        "OAuthEndpoint",
        "method",
        (
            "access_token: { method: POST,",
            "access_token: { method: GET,",
        ),
        "unknown-http-method",
    ),
    (
        "OAuth",
        "signature_method",
        ("signature_method: HMAC-SHA1", "signature_method: RSA-SHA1"),
        "unsupported-signature-method",
    ),
    (
        "OAuthEndpoint",
        "name",
        (
            "    revoke: { method: POST, path: /oauth/revokeToken, doc: Revocation. }\n",
            "",
        ),
        "missing-key",
    ),
];

fn sources(text: String) -> Vec<SpecSource> {
    vec![SpecSource {
        path: "spec/pay.yaml".to_owned(),
        text,
    }]
}

/// The changes from `base` to `head`; an error when either spec is invalid (a change of this
/// table that the spec does not allow).
fn changes(base: &[SpecSource], head: &[SpecSource]) -> Result<Vec<Change>, String> {
    let resolved = |s: &[SpecSource]| resolve(s).map_err(|e| format!("an invalid spec: {e}"));
    let (b, h) = (resolved(base)?, resolved(head)?);
    let changes = diff::diff(
        Side {
            api: &b,
            sources: base,
        },
        Side {
            api: &h,
            sources: head,
        },
    )
    .expect("both sides generate")
    .changes;
    Ok(changes)
}

fn judged(property: &Property, changes: &[Change]) -> Result<(), String> {
    if !changes.iter().any(|c| property.rules.contains(&c.rule)) {
        return Err(format!(
            "no change by {:?}; reported: {:?}",
            property.rules,
            changes.iter().map(|c| c.rule).collect::<Vec<_>>()
        ));
    }
    if property.consumer == Consumer::Documentation {
        if let Some(c) = changes
            .iter()
            .find(|c| c.wire == Impact::Breaking || c.rust == Impact::Breaking)
        {
            return Err(format!("documentation judged breaking: {c:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_property_changed_either_way_is_reported_by_its_rules() {
    let base = sources(SPEC.to_owned());
    let mut failures = Vec::new();
    let mut changed = BTreeSet::new();
    for &(owner, name, edits) in CHANGES {
        let property = PROPERTIES
            .iter()
            .find(|p| p.owner == owner && p.name == name)
            .unwrap_or_else(|| panic!("{owner}.{name} is not a property"));
        let mut text = SPEC.to_owned();
        for (from, to) in edits {
            assert_eq!(
                SPEC.matches(from).count(),
                1,
                "{owner}.{name}: `{from}` once"
            );
            text = text.replacen(from, to, 1);
        }
        let head = sources(text);
        for (direction, (b, h)) in [("forward", (&base, &head)), ("back", (&head, &base))] {
            if let Err(why) = changes(b, h).and_then(|found| judged(property, &found)) {
                failures.push(format!("{owner}.{name} ({direction}): {why}"));
            }
        }
        changed.insert((owner, name));
    }
    for property in PROPERTIES {
        let fixed = FIXED
            .iter()
            .any(|(o, n, ..)| (*o, *n) == (property.owner, property.name));
        if property.consumer != Consumer::Position
            && !fixed
            && !changed.contains(&(property.owner, property.name))
        {
            failures.push(format!(
                "{}.{} is never changed here",
                property.owner, property.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_properties_that_cannot_change_are_refused_by_the_spec_validation() {
    for &(owner, name, (from, to), rule) in FIXED {
        assert_eq!(
            SPEC.matches(from).count(),
            1,
            "{owner}.{name}: `{from}` once"
        );
        let errors = resolve(&sources(SPEC.replacen(from, to, 1)))
            .expect_err("the spec validation refuses the change");
        assert!(
            errors.to_string().contains(rule),
            "{owner}.{name}: {errors}"
        );
    }
}

#[test]
fn every_property_is_classified_with_rules_that_exist() {
    let mut seen = BTreeSet::new();
    for property in PROPERTIES {
        assert!(
            seen.insert((property.owner, property.name)),
            "{}.{} twice",
            property.owner,
            property.name
        );
        for rule in property.rules {
            assert!(diff::RULES.iter().any(|r| r.id == *rule), "{rule}");
        }
        assert_eq!(
            property.rules.is_empty(),
            property.consumer == Consumer::Position,
            "{}.{}: a position has no rule, everything else has one",
            property.owner,
            property.name
        );
    }
    // The table a reviewer reads, in one place: a new property shows up here.
    let table: Vec<String> = PROPERTIES
        .iter()
        .map(|p| format!("{}.{}: {:?} {:?}", p.owner, p.name, p.consumer, p.rules))
        .collect();
    insta::assert_snapshot!(table.join("\n"));
}
