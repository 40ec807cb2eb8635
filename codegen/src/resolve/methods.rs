//! The `methods` section: each data method, its parameters and how it pages.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::{Defined, Names, Resolver, as_set, at, is_method_name};
use crate::diagnostic::{ErrorKind, did_you_mean};
use crate::ir::{self, Id, Scalar, TypeRef};
use crate::model;

/// The most parameters `at_least_one_of` may name: each is a `Session` constructor that
/// initializes every parameter, so generated code grows as their product.
const MAX_ALTERNATIVES: usize = 8;

/// The record types by name, and the type of each of their fields.
pub(super) struct Records<'a, 'd> {
    pub(super) types: &'a IndexMap<&'d str, Defined<'d, model::TypeDef>>,
    pub(super) field_types: &'a HashMap<&'d str, Vec<Option<TypeRef>>>,
}

impl Resolver<'_> {
    pub(super) fn method(
        &mut self,
        m: &Defined<'_, model::MethodDef>,
        names: &Names<'_>,
        data_path: &str,
        records: &Records<'_, '_>,
    ) -> ir::Method {
        let (file, name, def) = (m.file, m.name, m.def);
        if !is_method_name(name) {
            self.report(
                ErrorKind::InvalidMethodName,
                at(file, &["methods", name]),
                format!("'{name}' is not of the form group/method (e.g. pay/getTimesheet)"),
            );
        }
        let rust_name = self
            .rust_name(file, &["methods", name], name, def.rust_name.as_deref())
            .unwrap_or_default();
        if !names.types.contains(def.response.as_str()) {
            self.report(
                ErrorKind::UnknownType,
                at(file, &["methods", name]).key("response"),
                format!(
                    "unknown response type '{}'{}",
                    def.response,
                    did_you_mean(&def.response, names.types.iter().copied())
                ),
            );
        }
        if let Some(delivered) = def.delivered_api.as_deref().filter(|d| !is_method_name(d)) {
            self.report(
                ErrorKind::InvalidMethodName,
                at(file, &["methods", name]).key("delivered_api"),
                format!("'{delivered}' is not of the form group/method"),
            );
        }
        let delivered_api = def.delivered_api.clone().unwrap_or_else(|| name.to_owned());
        let params: Vec<ir::Param> = def
            .params
            .iter()
            .filter_map(|(wire, param)| self.param(file, name, wire, param))
            .collect();
        let at_least_one_of = self.alternatives(m, &params);
        let paging = def
            .paging
            .as_ref()
            .and_then(|paging| self.paging(m, paging, &params, records));
        self.check_unique(file, &["methods", name, "errors"], &def.errors);
        for (i, code) in def.errors.iter().enumerate() {
            if !names.errors.contains(code.as_str()) {
                let index = i.to_string();
                self.report(
                    ErrorKind::UnknownErrorCode,
                    at(file, &["methods", name, "errors", &index]),
                    format!(
                        "unknown error code '{code}'{}",
                        did_you_mean(code, names.errors.iter().copied())
                    ),
                );
            }
        }
        ir::Method {
            name: name.to_owned(),
            rust_name,
            doc: def.doc.clone(),
            path: format!("{data_path}/{name}"),
            response: Id::new(def.response.as_str()),
            delivered_api,
            params,
            at_least_one_of,
            paging,
            errors: as_set(def.errors.iter().map(Id::new).collect()),
            file,
        }
    }

    /// No two paged methods page the same response type: its page's items and count are read
    /// from the type (`paging::Page`, one impl per type).
    pub(super) fn check_paged_responses(&mut self, methods: &[ir::Method]) {
        let mut paged: HashMap<&str, &str> = HashMap::new();
        for method in methods.iter().filter(|m| m.paging.is_some()) {
            if let Some(first) = paged.get(method.response.as_str()) {
                self.report(
                    ErrorKind::InvalidPaging,
                    at(method.file, &["methods", method.name.as_str(), "paging"]),
                    format!(
                        "its response {} is already the page of {first}; a paged method needs a \
                         response type of its own",
                        method.response
                    ),
                );
            } else {
                paged.insert(method.response.as_str(), method.name.as_str());
            }
        }
    }

    /// `at_least_one_of`: two or more optional parameters of the method.
    fn alternatives(
        &mut self,
        m: &Defined<'_, model::MethodDef>,
        params: &[ir::Param],
    ) -> Vec<Id<ir::Param>> {
        let (file, name, def) = (m.file, m.name, m.def);
        let Some(alternatives) = &def.at_least_one_of else {
            return Vec::new();
        };
        if alternatives.len() < 2 {
            self.report(
                ErrorKind::InvalidAlternatives,
                at(file, &["methods", name]).key("at_least_one_of"),
                "at_least_one_of needs two or more parameters",
            );
        } else if alternatives.len() > MAX_ALTERNATIVES {
            // Each alternative is a constructor initializing every parameter.
            self.report(
                ErrorKind::InvalidAlternatives,
                at(file, &["methods", name]).key("at_least_one_of"),
                format!(
                    "at_least_one_of names {} parameters, more than the {MAX_ALTERNATIVES} \
                     constructors a method may have",
                    alternatives.len()
                ),
            );
            return Vec::new();
        }
        self.check_unique(file, &["methods", name, "at_least_one_of"], alternatives);
        let by_wire: HashMap<&str, &ir::Param> =
            params.iter().map(|p| (p.wire_name.as_str(), p)).collect();
        for wanted in alternatives {
            match by_wire.get(wanted.as_str()) {
                None => self.report(
                    ErrorKind::UnknownParameter,
                    at(file, &["methods", name]).key("at_least_one_of"),
                    format!(
                        "unknown parameter '{wanted}'{}",
                        did_you_mean(wanted, def.params.keys().map(String::as_str))
                    ),
                ),
                Some(param) if param.required => self.report(
                    ErrorKind::InvalidAlternatives,
                    at(file, &["methods", name, "params", wanted]).key("required"),
                    format!("'{wanted}' is in at_least_one_of and so cannot be required"),
                ),
                Some(_) => {}
            }
        }
        as_set(alternatives.iter().map(Id::new).collect())
    }

    /// `paging`: count parameters for the page and its size, a list field of the response for
    /// the items and a count field for the page count.
    fn paging(
        &mut self,
        m: &Defined<'_, model::MethodDef>,
        paging: &model::PagingDef,
        params: &[ir::Param],
        records: &Records<'_, '_>,
    ) -> Option<ir::Paging> {
        let (file, name, def) = (m.file, m.name, m.def);
        let path = ["methods", name, "paging"];
        let mut ok = true;
        if paging.page_param == paging.size_param {
            self.report(
                ErrorKind::InvalidPaging,
                at(file, &path).key("size_param"),
                format!(
                    "'{}' is already the page parameter: the page and its size are two parameters",
                    paging.size_param
                ),
            );
            ok = false;
        }
        // A stream starts at the page parameter's default: below it, pages would be skipped.
        if let Some(page) = params.iter().find(|p| p.wire_name == paging.page_param) {
            if let (Some(default), Some(min)) = (page.default, page.min) {
                if default != min {
                    self.report(
                        ErrorKind::InvalidPaging,
                        at(file, &["methods", name, "params", &paging.page_param]).key("default"),
                        format!(
                            "the page parameter's default {default} is the first page a stream \
                             asks for, so it must be its min {min}"
                        ),
                    );
                }
            }
        }
        for (key, wanted) in [
            ("page_param", &paging.page_param),
            ("size_param", &paging.size_param),
        ] {
            match params.iter().find(|p| p.wire_name == *wanted) {
                Some(param) if param.ty == ir::ParamType::Count => {}
                Some(_) => {
                    self.report(
                        ErrorKind::InvalidPaging,
                        at(file, &path).key(key),
                        format!("'{wanted}' must be a count parameter"),
                    );
                    ok = false;
                }
                None => {
                    self.report(
                        ErrorKind::UnknownParameter,
                        at(file, &path).key(key),
                        format!(
                            "unknown parameter '{wanted}'{}",
                            did_you_mean(wanted, def.params.keys().map(String::as_str))
                        ),
                    );
                    ok = false;
                }
            }
        }
        if let Some(response) = records.types.get(def.response.as_str()) {
            let types = records.field_types.get(response.name);
            let wanted_fields = [
                ("items", Some(&paging.items), "a list"),
                ("total_pages", paging.total_pages.as_ref(), "a count"),
            ];
            for (key, wanted, kind) in wanted_fields {
                let Some(wanted) = wanted else { continue };
                let fits = |ty: &TypeRef| match key {
                    "items" => matches!(ty, TypeRef::List(_)),
                    _ => matches!(ty, TypeRef::Scalar(Scalar::Count)),
                };
                let found = response
                    .def
                    .fields
                    .get_index_of(wanted.as_str())
                    .map(|index| {
                        types
                            .and_then(|types| types.get(index))
                            .and_then(Option::as_ref)
                    });
                let field = response.def.fields.get(wanted.as_str());
                let absent_here = field.is_some_and(|field| {
                    field
                        .absent_in
                        .as_ref()
                        .is_some_and(|methods| methods.iter().any(|m| m == name))
                        || field
                            .only_in
                            .as_ref()
                            .is_some_and(|methods| !methods.iter().any(|m| m == name))
                });
                if absent_here {
                    self.report(
                        ErrorKind::InvalidPaging,
                        at(file, &path).key(key),
                        format!(
                            "'{wanted}' of {} is absent from {name}'s answers (its only_in or \
                             absent_in), so it cannot page them",
                            def.response
                        ),
                    );
                    ok = false;
                }
                match found {
                    Some(Some(ty)) if !fits(ty) => {
                        self.report(
                            ErrorKind::InvalidPaging,
                            at(file, &path).key(key),
                            format!("'{wanted}' of {} must be {kind}", def.response),
                        );
                        ok = false;
                    }
                    Some(_) => {}
                    None => {
                        self.report(
                            ErrorKind::InvalidPaging,
                            at(file, &path).key(key),
                            format!(
                                "{} has no field '{wanted}'{}",
                                def.response,
                                did_you_mean(
                                    wanted,
                                    response.def.fields.keys().map(String::as_str)
                                )
                            ),
                        );
                        ok = false;
                    }
                }
            }
        }
        let beyond_last = match paging.beyond_last.as_str() {
            "above_total" => ir::BeyondLast::AboveTotal,
            "at_or_above_total" => ir::BeyondLast::AtOrAboveTotal,
            other => {
                self.report(
                    ErrorKind::InvalidPaging,
                    at(file, &path).key("beyond_last"),
                    format!(
                        "unknown rule '{other}'{}; expected above_total or at_or_above_total",
                        did_you_mean(other, ["above_total", "at_or_above_total"])
                    ),
                );
                return None;
            }
        };
        ok.then(|| ir::Paging {
            page_param: Id::new(paging.page_param.as_str()),
            size_param: Id::new(paging.size_param.as_str()),
            items: Id::new(paging.items.as_str()),
            total_pages: paging.total_pages.as_deref().map(Id::new),
            beyond_last,
        })
    }

    fn param(
        &mut self,
        file: usize,
        method: &str,
        wire: &str,
        param: &model::ParamDef,
    ) -> Option<ir::Param> {
        let path = ["methods", method, "params", wire];
        let ty = match param.ty.as_str() {
            "integer" => ir::ParamType::Integer,
            "count" => ir::ParamType::Count,
            "id" => ir::ParamType::Id,
            "date" => ir::ParamType::Date,
            other => {
                self.report(
                    ErrorKind::UnknownParameterType,
                    at(file, &path).key("type"),
                    format!(
                        "unknown parameter type '{other}'{}; expected integer, count, id or date",
                        did_you_mean(other, ["integer", "count", "id", "date"])
                    ),
                );
                return None;
            }
        };
        if wire.starts_with("oauth_") {
            self.report(
                ErrorKind::ReservedParameter,
                at(file, &path),
                format!(
                    "'{wire}': a parameter named oauth_… is the OAuth protocol's (RFC 5849), \
                     carried by the signature; a data method's cannot take such a name"
                ),
            );
        }
        let rust_name = self.rust_name(file, &path, wire, param.rust_name.as_deref())?;
        self.check_bounds(file, &path, ty, param);
        self.check_narrowed(file, &path, param.narrowed.as_deref());
        Some(ir::Param {
            wire_name: wire.to_owned(),
            rust_name,
            doc: param.doc.clone(),
            ty,
            required: param.required,
            default: param.default,
            min: param.min,
            max: param.max,
            narrowed: param.narrowed.clone(),
        })
    }

    /// `default`, `min` and `max`: numeric parameters only, unsigned for counts and IDs, in
    /// order, and no default for a required parameter.
    fn check_bounds(
        &mut self,
        file: usize,
        path: &[&str],
        ty: ir::ParamType,
        param: &model::ParamDef,
    ) {
        let numeric = ty != ir::ParamType::Date;
        let unsigned = matches!(ty, ir::ParamType::Count | ir::ParamType::Id);
        let report = |this: &mut Self, key: &str, message: String| {
            this.report(ErrorKind::InvalidBounds, at(file, path).key(key), message);
        };
        for (key, value) in [
            ("default", param.default),
            ("min", param.min),
            ("max", param.max),
        ] {
            if value.is_some() && !numeric {
                report(
                    self,
                    key,
                    format!("{key} applies to integer, count and id parameters only"),
                );
            } else if unsigned && value.is_some_and(|value| value < 0) {
                report(
                    self,
                    key,
                    format!("{key} cannot be negative: the parameter is unsigned"),
                );
            } else if ty == ir::ParamType::Id && value.is_some_and(|value| value < 1) {
                // The client refuses ID 0 before sending, and the export says so (minimum 1).
                report(
                    self,
                    key,
                    format!("{key} cannot be below 1: IDs start at 1"),
                );
            }
        }
        if let (Some(min), Some(max)) = (param.min, param.max) {
            if min > max {
                report(self, "min", format!("min {min} is above max {max}"));
            }
        }
        if let Some(default) = param.default {
            if param.min.is_some_and(|min| default < min)
                || param.max.is_some_and(|max| default > max)
            {
                report(
                    self,
                    "default",
                    format!("default {default} is outside min..max"),
                );
            }
            if param.required {
                report(
                    self,
                    "default",
                    "a required parameter cannot have a default".to_owned(),
                );
            }
        }
    }
}
