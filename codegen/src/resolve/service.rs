//! The service-level sections: `api`, `oauth` and `errors`.

use super::enums::Variants;
use super::{Defined, Names, Resolver, as_set, at};
use crate::diagnostic::{ErrorKind, did_you_mean};
use crate::ir::{self, Id};
use crate::model::{self, SpecFile};

impl Resolver<'_> {
    /// The `api` section, which at most one file declares.
    pub(super) fn service_info(&mut self, files: &[SpecFile]) -> Option<ir::ApiInfo> {
        let (file, api) = self.single(files, "api", |spec| spec.api.as_ref())?;
        if !api.data_path.starts_with('/') {
            self.report(
                ErrorKind::InvalidPath,
                at(file, &["api", "data_path"]),
                format!("'{}' must start with '/'", api.data_path),
            );
        }
        Some(ir::ApiInfo {
            name: api.name.clone(),
            doc: api.doc.clone(),
            data_path: api.data_path.trim_end_matches('/').to_owned(),
            api_version: api.api_version,
            file,
        })
    }

    /// The `oauth` section, which at most one file declares.
    pub(super) fn oauth(&mut self, files: &[SpecFile]) -> Option<ir::OAuth> {
        let (file, oauth) = self.single(files, "oauth", |spec| spec.oauth.as_ref())?;
        let e = &oauth.endpoints;
        let endpoints = [
            ("request_token", &e.request_token),
            ("authorize", &e.authorize),
            ("access_token", &e.access_token),
            ("revoke", &e.revoke),
        ];
        let endpoints = endpoints
            .into_iter()
            .map(|(name, endpoint)| self.endpoint(file, name, endpoint))
            .collect();
        if oauth.signature_method != "HMAC-SHA1" {
            self.report(
                ErrorKind::UnsupportedSignatureMethod,
                at(file, &["oauth"]).key("signature_method"),
                format!(
                    "unsupported signature method '{}'; the client signs with HMAC-SHA1 only",
                    oauth.signature_method
                ),
            );
        }
        Some(ir::OAuth {
            doc: oauth.doc.clone(),
            https_required: oauth.https_required,
            signature_method: oauth.signature_method.clone(),
            version: oauth.version.clone(),
            token_lifetime_seconds: oauth.token_lifetime_seconds,
            endpoints,
            file,
        })
    }

    fn endpoint(
        &mut self,
        file: usize,
        name: &str,
        endpoint: &model::EndpointDef,
    ) -> ir::OAuthEndpoint {
        let path = ["oauth", "endpoints", name];
        // The OAuth flow is the runtime's, not generated: the spec states what it does.
        let sent_with = if name == "authorize" { "GET" } else { "POST" };
        if endpoint.method != sent_with {
            self.report(
                ErrorKind::UnknownHttpMethod,
                at(file, &path).key("method"),
                format!(
                    "'{}': the client sends {name} with {sent_with} (its OAuth flow is the \
                     runtime's, not generated)",
                    endpoint.method
                ),
            );
        }
        // A documented answer (the list may be left out) names what the client reads.
        if matches!(name, "request_token" | "access_token") && !endpoint.response.is_empty() {
            for read in ["oauth_token", "oauth_token_secret"] {
                if !endpoint.response.iter().any(|field| field == read) {
                    self.report(
                        ErrorKind::MissingKey,
                        at(file, &path).key("response"),
                        format!("the response must name {read}, which the client reads from it"),
                    );
                }
            }
        }
        let mut response_path = path.to_vec();
        response_path.push("response");
        self.check_unique(file, &response_path, &endpoint.response);
        if !endpoint.path.starts_with('/') {
            self.report(
                ErrorKind::InvalidPath,
                at(file, &path).key("path"),
                format!("'{}' must start with '/'", endpoint.path),
            );
        }
        ir::OAuthEndpoint {
            name: name.to_owned(),
            method: endpoint.method.clone(),
            path: endpoint.path.clone(),
            doc: endpoint.doc.clone(),
            response: as_set(endpoint.response.clone()),
        }
    }

    /// One error code; the methods it names must exist.
    pub(super) fn error_code<'d>(
        &mut self,
        e: &Defined<'d, model::ErrorDef>,
        names: &Names<'_>,
        variants: &mut Variants<'d>,
    ) -> ir::ErrorCode {
        let variant = self.variant(variants, e.name, at(e.file, &["errors", e.name]));
        if let Some(methods) = &e.def.methods {
            self.check_unique(e.file, &["errors", e.name, "methods"], methods);
            for (i, method) in methods.iter().enumerate() {
                if !names.methods.contains(method.as_str()) {
                    let index = i.to_string();
                    self.report(
                        ErrorKind::UnknownMethod,
                        at(e.file, &["errors", e.name, "methods", &index]),
                        format!(
                            "unknown method '{method}'{}",
                            did_you_mean(method, names.methods.iter().copied())
                        ),
                    );
                }
            }
        }
        ir::ErrorCode {
            code: e.name.to_owned(),
            variant,
            doc: e.def.doc.clone(),
            kind: e.def.kind.clone(),
            methods: e
                .def
                .methods
                .as_ref()
                .map(|methods| as_set(methods.iter().map(Id::new).collect())),
            file: e.file,
        }
    }
}
