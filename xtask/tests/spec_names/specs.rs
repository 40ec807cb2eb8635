//! The specs: systematic ones, each putting every core name of the pool into one position a
//! name can take, and random ones (proptest), where names from the pool, their spellings and
//! the runtime's identifiers meet in every position at once, with a family of spellings of one
//! word made likely to collide.

use heck::{ToLowerCamelCase, ToShoutySnakeCase};
use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::plan::{
    EnumPlan, ErrorPlan, FieldPlan, FilePlan, MethodPlan, PagingPlan, ParamPlan, Plan, TypePlan,
};
use super::pool::{Pool, spellings};

/// The field types the generator writes, each a different generated Rust type and decoder.
const SCALARS: &[&str] = &[
    "string",
    "integer",
    "id",
    "count",
    "decimal",
    "boolean",
    "date",
    "list<string>",
    "list<id>",
];

/// The parameter types.
const PARAM_TYPES: &[&str] = &["integer", "count", "id", "date"];

fn field(wire: &str, ty: &str) -> FieldPlan {
    FieldPlan {
        wire: wire.to_owned(),
        rust_name: None,
        ty: ty.to_owned(),
        optional: false,
        nullable: false,
        documented_as: None,
    }
}

fn record(name: &str, fields: Vec<FieldPlan>) -> TypePlan {
    TypePlan {
        name: name.to_owned(),
        documented_as: None,
        opaque: false,
        fields,
    }
}

fn method(name: &str, response: &str) -> MethodPlan {
    MethodPlan {
        name: name.to_owned(),
        rust_name: None,
        response: response.to_owned(),
        params: Vec::new(),
        at_least_one_of: Vec::new(),
        paging: None,
        errors: Vec::new(),
    }
}

fn param(wire: &str, ty: &'static str, required: bool) -> ParamPlan {
    ParamPlan {
        wire: wire.to_owned(),
        rust_name: None,
        ty,
        required,
    }
}

/// The spec the systematic ones start from: a record `Zq` delivered by `zq/zqGet`, in the
/// file that holds the service.
fn base() -> Plan {
    Plan {
        files: vec![FilePlan {
            stem: "zq".to_owned(),
            types: vec![record("Zq", vec![field("zq", "string")])],
            methods: vec![method("zq/zqGet", "Zq")],
            ..FilePlan::default()
        }],
    }
}

/// A second file for the items under test, so that they are named across modules too.
fn with_file(mut plan: Plan, file: FilePlan) -> Plan {
    plan.files.push(file);
    plan
}

/// Every core name in each position, one spec per position.
pub fn systematic(pool: &Pool) -> Vec<(&'static str, Plan)> {
    let names = &pool.core;
    let mut specs = Vec::new();
    let numbered = |prefix: &str, i: usize| format!("{prefix}{i}");

    // Files (modules): every fourth declares a record the service file's `Zq` names (`use super::{file}::…`);
    // the others only a doc (a module that exports nothing).
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        if name.contains(['/', '\\']) || name.is_empty() {
            continue;
        }
        let mut file = FilePlan {
            stem: name.clone(),
            ..FilePlan::default()
        };
        if i % 4 == 0 {
            let ty = numbered("Zm", i);
            plan.files[0].types[0]
                .fields
                .push(field(&numbered("zm", i), &ty));
            let mut opaque = record(&ty, Vec::new());
            opaque.opaque = true;
            file.types.push(opaque);
        }
        plan.files.push(file);
    }
    specs.push(("file name", plan));

    // Records, named by every name, delivered, and named in another module's fields.
    let mut types = FilePlan {
        stem: "zq_items".to_owned(),
        ..FilePlan::default()
    };
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        types.types.push(record(name, vec![field("zq", "string")]));
        plan.files[0].types[0]
            .fields
            .push(field(&numbered("zt", i), name));
        if i % 3 == 0 {
            plan.files[0]
                .methods
                .push(method(&numbered("zq/zt", i), name));
        }
    }
    specs.push(("type name", with_file(plan, types)));

    // Opaque records.
    let mut plan = base();
    for name in names {
        let mut opaque = record(name, Vec::new());
        opaque.opaque = true;
        plan.files[0].types.push(opaque);
    }
    specs.push(("opaque type name", plan));

    // Enums, named by every name, in fields of another module.
    let mut enums = FilePlan {
        stem: "zq_items".to_owned(),
        ..FilePlan::default()
    };
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        enums.enums.push(EnumPlan {
            name: name.clone(),
            open: i % 2 == 0,
            values: vec!["A".to_owned()],
        });
        plan.files[0].types[0]
            .fields
            .push(field(&numbered("ze", i), name));
    }
    specs.push(("enum name", with_file(plan, enums)));

    // Enum values, in an open and a closed enum.
    let mut plan = base();
    for (open, name) in [(true, "ZqOpen"), (false, "ZqClosed")] {
        plan.files[0].enums.push(EnumPlan {
            name: name.to_owned(),
            open,
            values: names.clone(),
        });
        plan.files[0].types[0]
            .fields
            .push(field(&name.to_lower_camel_case(), name));
    }
    // Values whose variants share a prefix or suffix with each other and the enum's name.
    for (name, affix) in [("ZqStatus", "ZqStatus {}"), ("ZqKind", "{} Zq Kind")] {
        let values = names
            .iter()
            .step_by(8)
            .map(|n| affix.replace("{}", n))
            .collect();
        plan.files[0].enums.push(EnumPlan {
            name: name.to_owned(),
            open: true,
            values,
        });
        plan.files[0].types[0]
            .fields
            .push(field(&name.to_lower_camel_case(), name));
    }
    specs.push(("enum value", plan));

    // Error codes, as written and with the `E_` prefix.
    let mut plan = base();
    for name in names {
        for code in [name.clone(), format!("E_{}", name.to_shouty_snake_case())] {
            if plan.files[0].errors.iter().all(|e| e.code != code) {
                plan.files[0].errors.push(ErrorPlan {
                    code: code.clone(),
                    kind: Some("authentication"),
                    methods: Some(vec!["zq/zqGet".to_owned()]),
                });
                plan.files[0].methods[0].errors.push(code);
            }
        }
    }
    specs.push(("error code", plan));

    // Field wire names, of every field type, required, optional and nullable.
    let mut plan = base();
    plan.files[0].enums.push(EnumPlan {
        name: "ZqKind".to_owned(),
        open: true,
        values: vec!["A".to_owned()],
    });
    plan.files[0]
        .types
        .push(record("ZqItem", vec![field("zq", "string")]));
    let kinds: Vec<&str> = SCALARS
        .iter()
        .copied()
        .chain(["ZqKind", "ZqItem", "list<ZqItem>", "list<ZqKind>"])
        .collect();
    for (i, name) in names.iter().enumerate() {
        let mut f = field(name, kinds[i % kinds.len()]);
        f.optional = i % 3 == 1;
        f.nullable = i % 3 == 2;
        plan.files[0].types[0].fields.push(f);
    }
    specs.push(("field wire name", plan));

    // Field Rust names.
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        let mut f = field(&numbered("zf", i), SCALARS[i % SCALARS.len()]);
        f.rust_name = Some(name.clone());
        f.optional = i % 2 == 1;
        plan.files[0].types[0].fields.push(f);
    }
    specs.push(("field rust_name", plan));

    // The names of the reference (`documented_as`): serde aliases, and type doc text.
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        let mut f = field(&numbered("zd", i), "string");
        f.documented_as = Some(name.clone());
        plan.files[0].types[0].fields.push(f);
        // (A type's `documented_as` is only text of its doc: an opaque type shows it.)
        let mut t = record(&numbered("Zd", i), Vec::new());
        t.opaque = true;
        t.documented_as = Some(name.clone());
        plan.files[0].types.push(t);
    }
    specs.push(("documented_as", plan));

    // Method names: the method part and the group part (every fourth name: the Rust names
    // the method part derives are those of `rust_name` below, checked the same way).
    let mut plan = base();
    for (i, name) in names.iter().enumerate().step_by(4) {
        let m = name.to_lower_camel_case();
        let g: String = name
            .to_lowercase()
            .chars()
            .filter(char::is_ascii_lowercase)
            .collect();
        // The group is only text (the method's path); the method part derives Rust names.
        for whole in [
            format!("zq/{m}"),
            format!("{g}/zqGet{i}"),
            format!("zq/{name}"),
        ] {
            if plan.files[0].methods.iter().all(|m| m.name != whole) {
                plan.files[0].methods.push(method(&whole, "Zq"));
            }
        }
    }
    specs.push(("method name", plan));

    // Method Rust names, with and without parameters (a unit request type).
    let mut plan = base();
    for (i, name) in names.iter().enumerate() {
        let mut m = method(&numbered("zq/zr", i), "Zq");
        m.rust_name = Some(name.clone());
        if i % 2 == 1 {
            m.params.push(param("zqId", "id", true));
        }
        plan.files[0].methods.push(m);
    }
    specs.push(("method rust_name", plan));

    // Parameter wire names: optional (setters) and required (constructor arguments).
    let mut plan = base();
    for (required, method_name) in [(false, "zq/zqOptional"), (true, "zq/zqRequired")] {
        let mut m = method(method_name, "Zq");
        for (i, name) in names.iter().enumerate() {
            m.params
                .push(param(name, PARAM_TYPES[i % PARAM_TYPES.len()], required));
        }
        plan.files[0].methods.push(m);
    }
    specs.push(("parameter wire name", plan));

    // Parameter Rust names.
    let mut plan = base();
    for (required, method_name) in [(false, "zq/zqOptional"), (true, "zq/zqRequired")] {
        let mut m = method(method_name, "Zq");
        for (i, name) in names.iter().enumerate() {
            let mut p = param(
                &numbered("zp", i),
                PARAM_TYPES[i % PARAM_TYPES.len()],
                required,
            );
            p.rust_name = Some(name.clone());
            m.params.push(p);
        }
        plan.files[0].methods.push(m);
    }
    specs.push(("parameter rust_name", plan));

    // Alternatives (`at_least_one_of`): a constructor per parameter, `{method}_by_{param}`.
    let mut plan = base();
    for (i, names) in names.chunks(8).enumerate() {
        let mut m = method(&numbered("zq/za", i), "Zq");
        for name in names {
            m.params.push(param(name, "id", false));
        }
        m.at_least_one_of = names.to_vec();
        plan.files[0].methods.push(m);
    }
    specs.push(("alternative", plan));

    // Paging: the page parameter, the items and page-count fields (every sixth name: these
    // are parameter and field names, in every position above; paging adds `self.` paths).
    let mut plan = base();
    for (i, name) in names.iter().enumerate().step_by(6) {
        let page = numbered("ZqPage", i);
        plan.files[0].types.push(record(
            &page,
            vec![
                field(name, "list<Zq>"),
                field(&format!("{name}Total"), "count"),
            ],
        ));
        let mut m = method(&numbered("zq/zg", i), &page);
        m.params.push(param(name, "count", false));
        m.params.push(param("zqSize", "count", false));
        m.paging = Some(PagingPlan {
            page_param: name.clone(),
            size_param: "zqSize".to_owned(),
            items: name.clone(),
            total_pages: Some(format!("{name}Total")),
        });
        plan.files[0].methods.push(m);
    }
    specs.push(("paging", plan));

    // The spellings of a sample of the names, meeting as fields of one record and as types.
    let sample: Vec<String> = names
        .iter()
        .step_by(8)
        .flat_map(|name| spellings(name))
        .collect();
    let mut plan = base();
    for (i, name) in sample.iter().enumerate() {
        plan.files[0].types[0]
            .fields
            .push(field(name, SCALARS[i % SCALARS.len()]));
    }
    specs.push(("spellings as fields", plan));
    // As types, every fourth with fields (and so a builder, `{Name}Builder`), the others
    // opaque.
    let mut plan = base();
    for (i, name) in sample.iter().enumerate() {
        let mut t = record(name, vec![field("zq", "string")]);
        if i % 4 != 0 {
            t.fields.clear();
            t.opaque = true;
        }
        plan.files[0].types.push(t);
    }
    specs.push(("spellings as types", plan));
    for (_, plan) in &mut specs {
        plan.dedupe();
    }
    specs
}

/// What a random spec is made of, before names are resolved to items.
#[derive(Clone, Debug)]
struct RawField {
    wire: String,
    rust_name: Option<String>,
    /// A scalar (below `SCALARS.len()`), else an enum, a record or a list of records.
    kind: usize,
    target: Index,
    optional: bool,
    nullable: bool,
    documented_as: Option<String>,
}

#[derive(Clone, Debug)]
struct RawParam {
    wire: String,
    rust_name: Option<String>,
    ty: usize,
    required: bool,
}

#[derive(Clone, Debug)]
struct RawMethod {
    group: String,
    method: String,
    rust_name: Option<String>,
    response: Index,
    params: Vec<RawParam>,
    alternatives: bool,
    paging: Option<(String, String, String, Option<String>)>,
    errors: Vec<Index>,
    file: Index,
}

/// A name: from the pool, a spelling of a core name, an identifier of the runtime, a
/// spelling of this spec's family word (so that names collide), or a short random one.
fn name(pool: &Pool, family: Vec<String>) -> BoxedStrategy<String> {
    prop_oneof![
        5 => select(pool.core.clone()),
        3 => select(pool.spellings.clone()),
        1 => select(pool.runtime.clone()),
        1 => select(pool.spec.clone()),
        4 => select(family),
        1 => "[A-Za-z_][A-Za-z0-9_]{0,5}",
    ]
    .boxed()
}

fn raw_field(names: BoxedStrategy<String>) -> impl Strategy<Value = RawField> {
    (
        names.clone(),
        prop::option::weighted(0.3, names.clone()),
        0..SCALARS.len() + 3,
        any::<Index>(),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::option::weighted(0.15, names),
    )
        .prop_map(
            |(wire, rust_name, kind, target, optional, nullable, documented_as)| RawField {
                wire,
                rust_name,
                kind,
                target,
                optional,
                nullable,
                documented_as,
            },
        )
}

fn raw_param(names: BoxedStrategy<String>) -> impl Strategy<Value = RawParam> {
    (
        names.clone(),
        prop::option::weighted(0.3, names),
        0..PARAM_TYPES.len(),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(wire, rust_name, ty, required)| RawParam {
            wire,
            rust_name,
            ty,
            required,
        })
}

fn raw_method(names: BoxedStrategy<String>) -> impl Strategy<Value = RawMethod> {
    (
        (
            names.clone(),
            names.clone(),
            prop::option::weighted(0.4, names.clone()),
        ),
        any::<Index>(),
        prop::collection::vec(raw_param(names.clone()), 0..5),
        prop::bool::weighted(0.3),
        prop::option::weighted(
            0.4,
            (
                names.clone(),
                names.clone(),
                names.clone(),
                prop::option::of(names),
            ),
        ),
        prop::collection::vec(any::<Index>(), 0..3),
        any::<Index>(),
    )
        .prop_map(
            |((group, method, rust_name), response, params, alternatives, paging, errors, file)| {
                RawMethod {
                    group,
                    method,
                    rust_name,
                    response,
                    params,
                    alternatives,
                    paging,
                    errors,
                    file,
                }
            },
        )
}

/// A random spec: one to three files, enums, records (fields of every kind, referring to each
/// other), methods (parameters, alternatives, paging, documented errors) and error codes.
pub fn random(pool: &'static Pool) -> impl Strategy<Value = Plan> {
    select(pool.core.clone()).prop_flat_map(move |word| {
        let names = name(pool, spellings(&word));
        let files = prop::collection::vec(names.clone(), 1..4);
        let enums = prop::collection::vec(
            (
                names.clone(),
                any::<bool>(),
                prop::collection::vec(names.clone(), 1..5),
                any::<Index>(),
            ),
            0..4,
        );
        let types = prop::collection::vec(
            (
                names.clone(),
                prop::bool::weighted(0.1),
                prop::collection::vec(raw_field(names.clone()), 1..6),
                any::<Index>(),
            ),
            1..6,
        );
        let methods = prop::collection::vec(raw_method(names.clone()), 0..4);
        let errors = prop::collection::vec(
            (
                names.clone(),
                any::<bool>(),
                prop::collection::vec(any::<Index>(), 0..2),
                any::<Index>(),
            ),
            0..4,
        );
        (files, enums, types, methods, errors).prop_map(build)
    })
}

/// An enum: name, open, values, file.
type RawEnum = (String, bool, Vec<String>, Index);
/// A record: name, opaque, fields, file.
type RawType = (String, bool, Vec<RawField>, Index);
/// An error code: code, `E_` prefixed, methods, file.
type RawError = (String, bool, Vec<Index>, Index);
/// A spec's files (their names), enums, records, methods and error codes.
type RawSpec = (
    Vec<String>,
    Vec<RawEnum>,
    Vec<RawType>,
    Vec<RawMethod>,
    Vec<RawError>,
);

/// The spec of the random choices, each reference resolved to an item of it.
fn build((stems, enums, types, methods, errors): RawSpec) -> Plan {
    let mut files: Vec<FilePlan> = stems
        .into_iter()
        .map(|stem| FilePlan {
            stem: stem.replace(['/', '\\'], "_"),
            ..FilePlan::default()
        })
        .collect();
    let count = files.len();
    let enum_names: Vec<String> = enums.iter().map(|e| e.0.clone()).collect();
    let type_names: Vec<String> = types.iter().map(|t| t.0.clone()).collect();
    for (name, open, values, file) in enums {
        files[file.index(count)]
            .enums
            .push(EnumPlan { name, open, values });
    }
    let mut records: Vec<(usize, TypePlan)> = types
        .into_iter()
        .map(|(name, opaque, fields, file)| {
            let fields = if opaque {
                Vec::new()
            } else {
                fields
                    .into_iter()
                    .map(|f| {
                        let ty = match f.kind.checked_sub(SCALARS.len()) {
                            None => SCALARS[f.kind].to_owned(),
                            Some(0) if !enum_names.is_empty() => f.target.get(&enum_names).clone(),
                            Some(1) => f.target.get(&type_names).clone(),
                            Some(_) => format!("list<{}>", f.target.get(&type_names)),
                        };
                        FieldPlan {
                            wire: f.wire,
                            rust_name: f.rust_name,
                            ty,
                            optional: f.optional,
                            nullable: f.nullable,
                            documented_as: f.documented_as,
                        }
                    })
                    .collect()
            };
            (
                file.index(count),
                TypePlan {
                    name,
                    documented_as: None,
                    opaque,
                    fields,
                },
            )
        })
        .collect();
    let method_names: Vec<String> = methods
        .iter()
        .map(|m| {
            let group: String = m
                .group
                .to_lowercase()
                .chars()
                .filter(char::is_ascii_lowercase)
                .collect();
            let group = if group.is_empty() {
                "g".to_owned()
            } else {
                group
            };
            format!("{group}/{}", m.method.to_lower_camel_case())
        })
        .collect();
    let codes: Vec<String> = errors
        .iter()
        .map(|(code, prefixed, _, _)| {
            if *prefixed {
                format!("E_{}", code.to_shouty_snake_case())
            } else {
                code.clone()
            }
        })
        .collect();
    for (m, name) in methods.into_iter().zip(&method_names) {
        let response = m.response.index(records.len());
        let mut plan = method(name, &records[response].1.name);
        plan.rust_name = m.rust_name;
        plan.params = m
            .params
            .iter()
            .map(|p| ParamPlan {
                wire: p.wire.clone(),
                rust_name: p.rust_name.clone(),
                ty: PARAM_TYPES[p.ty],
                required: p.required,
            })
            .collect();
        if m.alternatives {
            let optional: Vec<String> = plan
                .params
                .iter()
                .filter(|p| !p.required)
                .map(|p| p.wire.clone())
                .collect();
            if optional.len() >= 2 {
                plan.at_least_one_of = optional;
            }
        }
        if let Some((page, size, items, total)) = m.paging {
            plan.params.push(param(&page, "count", false));
            plan.params.push(param(&size, "count", false));
            let element = records[0].1.name.clone();
            let response = &mut records[response].1;
            if !response.opaque {
                response
                    .fields
                    .push(field(&items, &format!("list<{element}>")));
                if let Some(total) = &total {
                    response.fields.push(field(total, "count"));
                }
            }
            plan.paging = Some(PagingPlan {
                page_param: page,
                size_param: size,
                items,
                total_pages: total,
            });
        }
        if !codes.is_empty() {
            plan.errors = m.errors.iter().map(|i| i.get(&codes).clone()).collect();
        }
        files[m.file.index(count)].methods.push(plan);
    }
    for (code, (_, _, methods, file)) in codes.iter().zip(errors) {
        let methods = (!method_names.is_empty() && !methods.is_empty()).then(|| {
            methods
                .iter()
                .map(|i| i.get(&method_names).clone())
                .collect()
        });
        files[file.index(count)].errors.push(ErrorPlan {
            code: code.clone(),
            kind: None,
            methods,
        });
    }
    for (file, record) in records {
        files[file].types.push(record);
    }
    let mut plan = Plan { files };
    plan.dedupe();
    plan
}
