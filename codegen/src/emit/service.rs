//! The service-level items of the file that declares them: the one `Service` value that
//! `Client::builder` hands to the runtime, and the error codes, the typed view of the runtime's
//! `RawErrorCode`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Module, Use, code_list, doc, enumeration, paragraphs};
use crate::ident::ident;
use crate::ir::{EnumValue, OAuth};

pub(super) fn emit(module: &mut Module<'_>) -> TokenStream {
    let mut tokens = TokenStream::new();
    tokens.extend(service(module));
    tokens.extend(error_codes(module));
    tokens
}

/// `SERVICE` and `Client::builder`, in the file of `api`, when the spec has `oauth` too.
fn service(module: &mut Module<'_>) -> TokenStream {
    let api = module.api;
    let (Some(info), Some(oauth)) = (api.info.as_ref(), api.oauth.as_ref()) else {
        return TokenStream::new();
    };
    if info.file != module.file {
        return TokenStream::new();
    }
    module.export("SERVICE");
    module.uses(Use::Client);
    let endpoint = |name: &str| {
        oauth
            .endpoints
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("Api::check: the OAuth endpoint {name} exists"))
    };
    let [request_token, authorize, access_token, revoke] =
        OAuth::ENDPOINTS.map(|name| &endpoint(name).path);
    let endpoints: Vec<String> = oauth
        .endpoints
        .iter()
        .map(|e| {
            let responds = if e.response.is_empty() {
                String::new()
            } else {
                format!(" Responds with {}.", code_list(&e.response))
            };
            format!(
                "- `{} {}`: {}{responds}",
                e.method,
                e.path,
                e.doc.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    let service_doc = doc(&paragraphs([
        format!(
            "The {}, as the spec describes it: data methods at `{{base_url}}{}/<group>/<method>`, \
             envelopes of `apiVersion` {}. [`Client::builder`] hands it to every client.",
            info.name, info.data_path, info.api_version
        ),
        oauth.doc.clone(),
        format!("The OAuth endpoints:\n{}", endpoints.join("\n")),
    ]));
    let name = &info.name;
    let data_path = &info.data_path;
    let version = info.api_version;
    let authentication: Vec<&str> = api
        .errors
        .iter()
        .filter(|e| e.kind.as_deref() == Some("authentication"))
        .map(|e| e.code.as_str())
        .collect();
    let method = &oauth.signature_method;
    let oauth_version = &oauth.version;
    let https = oauth.https_required;
    let lifetime = oauth.token_lifetime_seconds;
    let builder_doc = doc(&format!(
        "A client of the {name} at `base_url` (e.g. `https://marketplace.example`), for the \
         application with these credentials."
    ));
    quote! {
        #service_doc
        pub const SERVICE: Service = Service {
            name: #name,
            data_path: #data_path,
            api_version: #version,
            authentication_errors: &[#(#authentication),*],
            oauth: OAuthService {
                request_token_path: #request_token,
                authorize_path: #authorize,
                access_token_path: #access_token,
                revoke_path: #revoke,
                signature_method: #method,
                version: #oauth_version,
                https_required: #https,
                token_lifetime: std::time::Duration::from_secs(#lifetime),
            },
        };

        impl Client {
            #builder_doc
            pub fn builder(base_url: impl Into<String>, consumer: ConsumerCredentials) -> ClientBuilder {
                ClientBuilder::new(&SERVICE, base_url, consumer)
            }
        }
    }
}

/// `ErrorCode`, in the file of the first error code, with its conversions from the runtime's
/// `RawErrorCode`.
fn error_codes(module: &mut Module<'_>) -> TokenStream {
    let api = module.api;
    if api
        .errors
        .first()
        .is_none_or(|first| first.file != module.file)
    {
        return TokenStream::new();
    }
    let values: Vec<EnumValue> = api
        .errors
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
    let mut tokens = enumeration::emit_values(
        module,
        "ErrorCode",
        "An error code of the service: the typed view of the [`RawErrorCode`] an error carries \
         (`ErrorCode::of(&error)`). The reference documents these; the list of codes shared by \
         all methods is not shown, so others may occur.",
        true,
        &values,
    );
    module.uses(Use::RawErrorCode);
    let name = ident("ErrorCode");
    tokens.extend(quote! {
        impl #name {
            /// The service's error code in `error`, typed; `None` when it sent none.
            pub fn of(error: &Error) -> Option<#name> {
                error.code().map(#name::from)
            }
        }

        impl From<&RawErrorCode> for #name {
            fn from(code: &RawErrorCode) -> Self {
                Self::from(code.as_str())
            }
        }

        impl PartialEq<#name> for RawErrorCode {
            fn eq(&self, other: &#name) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl PartialEq<RawErrorCode> for #name {
            fn eq(&self, other: &RawErrorCode) -> bool {
                self.as_str() == other.as_str()
            }
        }
    });
    module.uses(Use::Error);
    tokens
}
