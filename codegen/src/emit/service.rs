//! The service-level items of the file that declares them: API constants, the OAuth endpoints
//! and the error codes.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, code_list, doc, enumeration, ident, paragraphs};
use crate::ir::EnumValue;

pub(super) fn emit(module: &mut Module<'_>) -> TokenStream {
    let mut tokens = TokenStream::new();
    let api = module.api;
    let file = module.file;

    if let Some(info) = api.info.as_ref().filter(|i| i.file == file) {
        module.export("DATA_PATH");
        module.export("API_VERSION");
        let data_path = &info.data_path;
        let version = info.api_version;
        let path_doc = doc(&format!(
            "Path prefix of the data methods of the {}: `{{base_url}}{data_path}/<group>/<method>`.",
            info.name
        ));
        tokens.extend(quote! {
            #path_doc
            pub const DATA_PATH: &str = #data_path;
            /// The `apiVersion` every response envelope carries.
            pub const API_VERSION: i64 = #version;
        });
    }

    if let Some(oauth) = api.oauth.as_ref().filter(|o| o.file == file) {
        // Not re-exported at the root: the client's hand-written `oauth` module (the flow and
        // signing) re-exports these constants.
        let oauth_doc = doc(&oauth.doc);
        let endpoints = oauth.endpoints.iter().map(|endpoint| {
            let name = ident(&format!("{}_PATH", endpoint.name.to_ascii_uppercase()));
            let path = &endpoint.path;
            let mut notes = vec![
                endpoint.doc.clone(),
                format!("`{} {path}`", endpoint.method),
            ];
            if !endpoint.response.is_empty() {
                notes.push(format!("Responds with {}.", code_list(&endpoint.response)));
            }
            let endpoint_doc = doc(&paragraphs(notes));
            quote! {
                #endpoint_doc
                pub const #name: &str = #path;
            }
        });
        let method = &oauth.signature_method;
        let version = &oauth.version;
        let https = oauth.https_required;
        let lifetime = oauth.token_lifetime_seconds;
        tokens.extend(quote! {
            #oauth_doc
            pub mod oauth {
                #(#endpoints)*
                /// The only accepted `oauth_signature_method`.
                pub const SIGNATURE_METHOD: &str = #method;
                /// The only accepted `oauth_version`.
                pub const VERSION: &str = #version;
                /// Whether the OAuth endpoints must be called over HTTPS.
                pub const HTTPS_REQUIRED: bool = #https;
                /// The longest an access token lives after it is granted.
                pub const TOKEN_LIFETIME: std::time::Duration = std::time::Duration::from_secs(#lifetime);
            }
        });
    }

    let errors: Vec<_> = api.errors.iter().collect();
    if errors.first().is_some_and(|first| first.file == file) {
        let values: Vec<EnumValue> = errors
            .iter()
            .map(|e| {
                let kind = e.kind.as_ref().map(|k| format!("Error type: {k}."));
                let methods = match &e.methods {
                    Some(methods) => format!("Returned by {}.", code_list(methods)),
                    None => "Returned by any authenticated method.".to_owned(),
                };
                EnumValue {
                    wire: e.code.clone(),
                    variant: e.variant.clone(),
                    doc: paragraphs([e.doc.clone(), methods].into_iter().chain(kind)),
                }
            })
            .collect();
        tokens.extend(enumeration::emit_values(
            module,
            "ErrorCode",
            "An error code of the service. The reference documents these; the list of codes \
             shared by all methods is not shown, so others may occur.",
            true,
            &values,
        ));
    }
    tokens
}
