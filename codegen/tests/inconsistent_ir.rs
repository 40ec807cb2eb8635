//! An `Api` edited after `resolve` so that it breaks an invariant is refused by `generate`
//! with the invariant, before anything is emitted: emission never quietly emits less.

use marketplace_codegen::ir::{Api, Encoding, FieldEncoding, TypeRef};
use marketplace_codegen::{EmitError, SpecSource, generate, resolve};

const SPEC: &str = "\
types:
  Page:
    doc: A page.
    fields:
      totalPages: { type: count, doc: Pages. }
      items: { type: list<Item>, doc: Items. }
  Item:
    doc: An item.
    fields:
      id: { type: id, doc: ID. }
methods:
  pay/getItems:
    doc: Items.
    response: Page
    params:
      rpp: { type: count, default: 10, min: 1, max: 25, doc: Size. }
      page: { type: count, default: 1, min: 1, doc: Page. }
    paging: { page_param: page, size_param: rpp, items: items, total_pages: totalPages, beyond_last: above_total }
";

fn api() -> Api {
    let sources = [SpecSource {
        path: "spec/items.yaml".to_owned(),
        text: SPEC.to_owned(),
    }];
    resolve(&sources).expect("the spec is valid")
}

/// What `generate` says about an edited `Api`.
fn refusal(edit: impl FnOnce(&mut Api)) -> String {
    let mut api = api();
    edit(&mut api);
    match generate(&api) {
        Err(EmitError::Inconsistent(inconsistency)) => inconsistency.to_string(),
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("an inconsistent Api was generated"),
    }
}

#[test]
fn the_resolved_api_is_consistent_and_generates_pages() {
    let api = api();
    assert_eq!(api.check(), Ok(()));
    let files = generate(&api).unwrap();
    let module = &files
        .iter()
        .find(|f| f.path == "items.rs")
        .unwrap()
        .contents;
    assert!(module.contains("impl PagedMethod for GetItems"), "{module}");
    assert!(module.contains("impl paging::Page for Page"), "{module}");
}

#[test]
fn paging_items_that_are_not_a_list_are_refused() {
    let message = refusal(|api| {
        let paging = api.methods[0].paging.as_mut().unwrap();
        paging.items = paging.total_pages.clone().unwrap();
    });
    assert_eq!(
        message,
        "methods.pay/getItems.paging: the items field totalPages is not a list"
    );
}

#[test]
fn a_reference_to_a_missing_record_is_refused() {
    let message = refusal(|api| {
        api.records.retain(|record| record.name != "Item");
    });
    assert_eq!(
        message,
        "types.Page.fields.items: refers to the type Item, which is not in the Api"
    );
}

#[test]
fn a_page_parameter_that_is_not_a_count_is_refused() {
    let message = refusal(|api| {
        let method = &mut api.methods[0];
        method.params[1].ty = marketplace_codegen::ir::ParamType::Date;
    });
    assert_eq!(
        message,
        "methods.pay/getItems.paging: the parameter page is not a count"
    );
}

#[test]
fn an_encoding_the_type_may_not_declare_is_refused() {
    let message = refusal(|api| {
        api.records[1].fields[0].encoding = FieldEncoding::Uniform(Encoding::DMY);
    });
    assert_eq!(
        message,
        "types.Item.fields.id: dmy is not an encoding of id"
    );
}

#[test]
fn an_item_declared_in_a_file_that_does_not_exist_is_refused() {
    let message = refusal(|api| api.methods[0].file = 7);
    assert_eq!(message, "methods.pay/getItems: declared in file 7, of 1");
}

#[test]
fn an_oauth_section_without_an_endpoint_is_refused() {
    let spec = "api: { name: M, doc: The service., data_path: /api, api_version: 1 }\noauth:\n  doc: OAuth.\n  https_required: true\n  signature_method: HMAC-SHA1\n  version: '1.0'\n  token_lifetime_seconds: 21600\n  endpoints:\n    request_token: { method: POST, path: /oauth/getRequestToken, doc: a }\n    authorize: { method: GET, path: /oauth/authorizeToken, doc: b }\n    access_token: { method: POST, path: /oauth/getAccessToken, doc: c }\n    revoke: { method: POST, path: /oauth/revokeToken, doc: d }\n";
    let sources = [SpecSource {
        path: "spec/api.yaml".to_owned(),
        text: spec.to_owned(),
    }];
    let mut api = resolve(&sources).unwrap();
    assert!(generate(&api).is_ok());
    api.oauth.as_mut().unwrap().endpoints.pop();
    match generate(&api) {
        Err(EmitError::Inconsistent(inconsistency)) => assert_eq!(
            inconsistency.to_string(),
            "oauth.endpoints: the endpoint revoke is missing"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_record_that_contains_itself_is_refused() {
    let message = refusal(|api| {
        let TypeRef::List(item) = api.records[0].fields[1].ty.clone() else {
            panic!("Page.items is a list");
        };
        let field = &mut api.records[1].fields[0];
        field.ty = *item;
        field.encoding = FieldEncoding::Itself;
    });
    assert_eq!(
        message,
        "types.Item.fields.id: the record contains itself: Item.id -> Item"
    );
}

#[test]
fn a_type_named_as_generated_code_names_another_is_refused() {
    let message = refusal(|api| api.records[1].name = "Result".to_owned());
    assert!(
        message.starts_with("types.Result: 'Result' is reserved"),
        "{message}"
    );
}

#[test]
fn two_paged_methods_of_one_response_are_refused() {
    let message = refusal(|api| {
        let mut more = api.methods[0].clone();
        more.name = "pay/getMore".to_owned();
        more.rust_name = "get_more".to_owned();
        api.methods.push(more);
    });
    assert_eq!(
        message,
        "methods.pay/getMore.paging: another paged method pages Page"
    );
}

#[test]
fn two_fields_read_from_one_json_key_are_refused() {
    let message = refusal(|api| {
        api.records[0].fields[0].documented_as = Some("items".to_owned());
    });
    assert_eq!(
        message,
        "types.Page: two fields are read from the JSON key items"
    );
}
