//! Random compositions of edits of a spec, for holding the spec diff's simulation to the oracle
//! test on changes nobody wrote a fixture for (`xtask/tests/spec_diff_oracle.rs`).
//!
//! Each edit is a text edit of the spec files that keeps their layout (`yaml_edit.rs`),
//! picked from the resolved spec so that it names things that exist: names permuted (two
//! fields or two parameters that swap wire names, a field renamed onto the name another one
//! frees, a field added under a name an old field reads as its alias, an alias that is another
//! field's name, an enum value respelled), types, encodings and presence changed, fields and
//! parameters added and removed, bounds and defaults moved, paging changed (its rule, its page
//! count, its first page, its cap, paging dropped), runtime constants and error kinds
//! changed, a method's Rust name, and types moved between files. A composition whose result
//! the spec validation refuses is retried with other edits. The same seed gives the same
//! composition.

use crate::ir::{Api, Field, Method, ParamType, Presence, Scalar, TypeRef};
use crate::spec_source::SpecSource;
use crate::yaml_edit::{YamlText, YamlValue};

/// A spec edited by a few random edits.
#[derive(Clone, Debug)]
pub struct Composition {
    /// The seed it was made from.
    pub seed: u64,
    /// What each edit did, in words.
    pub edits: Vec<String>,
    /// The edited spec files.
    pub sources: Vec<SpecSource>,
}

/// A composition of `edits` random edits of `sources` (a valid spec) from `seed`; `None` when
/// no valid composition was found in a bounded number of tries.
pub fn compose(sources: &[SpecSource], seed: u64, edits: usize) -> Option<Composition> {
    let mut rng = Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B);
    for _ in 0..64 {
        let mut current = sources.to_vec();
        let mut done = Vec::new();
        let mut tries = 0;
        while done.len() < edits && tries < 64 {
            tries += 1;
            let Ok(api) = crate::resolve(&current) else {
                break;
            };
            let Some((what, ops)) = pick(&api, &mut rng) else {
                continue;
            };
            let Some(edited) = apply(&current, &ops) else {
                continue;
            };
            if crate::resolve(&edited).is_ok() && edited != current {
                current = edited;
                done.push(what);
            }
        }
        if done.len() == edits {
            return Some(Composition {
                seed,
                edits: done,
                sources: current,
            });
        }
    }
    None
}

/// SplitMix64: small, seedable, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

/// One text edit of one spec file.
#[derive(Clone, Debug)]
enum Op {
    Set(usize, Vec<String>, String, YamlValue),
    Remove(usize, Vec<String>),
    Rename(usize, Vec<String>, String),
    /// Moves the entry at the path from one file to the same mapping of another.
    Move(usize, usize, Vec<String>),
}

fn path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| (*p).to_owned()).collect()
}

fn apply(sources: &[SpecSource], ops: &[Op]) -> Option<Vec<SpecSource>> {
    let mut texts: Vec<YamlText> = sources.iter().map(|s| YamlText::new(&s.text)).collect();
    for op in ops {
        match op {
            Op::Set(file, mapping, key, value) => {
                texts.get_mut(*file)?.set(mapping, key, value, None).ok()?;
            }
            Op::Remove(file, at) => texts.get_mut(*file)?.remove(at),
            Op::Rename(file, at, key) => texts.get_mut(*file)?.rename(at, key).ok()?,
            Op::Move(from, to, at) => {
                let lines = texts.get_mut(*from)?.take(at)?;
                let mapping = &at[..at.len() - 1];
                texts.get_mut(*to)?.append_lines(mapping, &lines).ok()?;
            }
        }
    }
    Some(
        sources
            .iter()
            .zip(texts)
            .map(|(source, text)| SpecSource {
                path: source.path.clone(),
                text: text.text(),
            })
            .collect(),
    )
}

/// The fields of records that a method's paging names (their wire names are referenced).
fn paged_fields(api: &Api) -> Vec<(String, String)> {
    api.methods
        .iter()
        .filter_map(|m| Some((m, m.paging.as_ref()?)))
        .flat_map(|(m, p)| {
            let response = m.response.as_str().to_owned();
            std::iter::once((response.clone(), p.items.as_str().to_owned())).chain(
                p.total_pages
                    .iter()
                    .map(move |t| (response.clone(), t.as_str().to_owned())),
            )
        })
        .collect()
}

/// Parameters a method names elsewhere (paging, `at_least_one_of`).
fn named_param(method: &Method, wire: &str) -> bool {
    method.at_least_one_of.iter().any(|a| *a == wire)
        || method
            .paging
            .as_ref()
            .is_some_and(|p| p.page_param == wire || p.size_param == wire)
}

const EDITS: usize = 16;

/// One random edit of `api`: its description and its text edits.
fn pick(api: &Api, rng: &mut Rng) -> Option<(String, Vec<Op>)> {
    let paged = paged_fields(api);
    let free = |record: &str, field: &Field| {
        !paged
            .iter()
            .any(|(r, f)| r == record && *f == field.wire_name)
    };
    let records: Vec<&crate::ir::Record> = api.records.iter().filter(|r| !r.opaque).collect();
    let record = *rng.pick(&records)?;
    let fields_at = |r: &crate::ir::Record| path(&["types", r.name.as_str(), "fields"]);
    let field_at = |r: &crate::ir::Record, f: &str| {
        let mut p = fields_at(r);
        p.push(f.to_owned());
        p
    };
    let loose: Vec<&Field> = record
        .fields
        .iter()
        .filter(|f| free(&record.name, f))
        .collect();
    let method = rng.pick(&api.methods)?;
    let method_at = |m: &Method| path(&["methods", m.name.as_str()]);
    let param_at = |m: &Method, p: &str| path(&["methods", m.name.as_str(), "params", p]);
    let file = record.file;
    match rng.below(EDITS) {
        // Two fields of the same Rust type swap wire names, their Rust names kept.
        0 => {
            let a = *rng.pick(&loose)?;
            let b = *loose
                .iter()
                .find(|b| b.wire_name != a.wire_name && b.ty == a.ty && b.presence == a.presence)?;
            let swap = "zzSwapped".to_owned();
            Some((
                format!(
                    "{}.{} and {}.{} swap wire names",
                    record.name, a.rust_name, record.name, b.rust_name
                ),
                vec![
                    Op::Rename(file, field_at(record, &a.wire_name), swap.clone()),
                    Op::Rename(file, field_at(record, &b.wire_name), a.wire_name.clone()),
                    Op::Rename(file, field_at(record, &swap), b.wire_name.clone()),
                    Op::Set(
                        file,
                        field_at(record, &b.wire_name),
                        "rust_name".into(),
                        YamlValue::Scalar(a.rust_name.clone()),
                    ),
                    Op::Set(
                        file,
                        field_at(record, &a.wire_name),
                        "rust_name".into(),
                        YamlValue::Scalar(b.rust_name.clone()),
                    ),
                ],
            ))
        }
        // A field is removed and another takes its wire name.
        1 => {
            let a = *rng.pick(&loose)?;
            let b = *rng.pick(&loose)?;
            (a.wire_name != b.wire_name).then(|| {
                (
                    format!(
                        "{}.{} is removed and {}.{} takes its wire name {}",
                        record.name, a.rust_name, record.name, b.rust_name, a.wire_name
                    ),
                    vec![
                        Op::Remove(file, field_at(record, &a.wire_name)),
                        Op::Rename(file, field_at(record, &b.wire_name), a.wire_name.clone()),
                        Op::Set(
                            file,
                            field_at(record, &a.wire_name),
                            "rust_name".into(),
                            YamlValue::Scalar(b.rust_name.clone()),
                        ),
                    ],
                )
            })
        }
        // A field is added under the alias an old field reads, or a field gets another
        // field's wire name as its alias.
        2 => {
            if let Some((r, f)) = api
                .records
                .iter()
                .flat_map(|r| r.fields.iter().map(move |f| (r, f)))
                .find(|(_, f)| f.documented_as.is_some())
                .filter(|_| rng.below(2) == 0)
            {
                let alias = f.documented_as.clone()?;
                return Some((
                    format!(
                        "{}.{alias} is added under {}.{}'s alias",
                        r.name, r.name, f.rust_name
                    ),
                    vec![Op::Set(
                        r.file,
                        fields_at(r),
                        alias.clone(),
                        YamlValue::Entries(vec![
                            ("type".into(), YamlValue::Scalar("id".into())),
                            ("optional".into(), YamlValue::Plain("true".into())),
                            (
                                "rust_name".into(),
                                YamlValue::Scalar(format!("{}_added", f.rust_name)),
                            ),
                            (
                                "doc".into(),
                                YamlValue::Scalar("Added under an alias.".into()),
                            ),
                        ]),
                    )],
                ));
            }
            let a = *rng.pick(&loose)?;
            let b = *loose.iter().find(|b| b.wire_name != a.wire_name)?;
            Some((
                format!(
                    "{}.{} is also read as {}, {}.{}'s wire name",
                    record.name, a.rust_name, b.wire_name, record.name, b.rust_name
                ),
                vec![Op::Set(
                    file,
                    field_at(record, &a.wire_name),
                    "documented_as".into(),
                    YamlValue::Scalar(b.wire_name.clone()),
                )],
            ))
        }
        // Two optional parameters of the same type swap wire names, their Rust names kept.
        3 => {
            let params: Vec<&crate::ir::Param> = method
                .params
                .iter()
                .filter(|p| !p.required && !named_param(method, &p.wire_name))
                .collect();
            let a = *rng.pick(&params)?;
            let b = *params
                .iter()
                .find(|b| b.wire_name != a.wire_name && b.ty == a.ty)?;
            let swap = "zzSwapped".to_owned();
            Some((
                format!(
                    "{}: parameters {} and {} swap wire names",
                    method.name, a.wire_name, b.wire_name
                ),
                vec![
                    Op::Rename(method.file, param_at(method, &a.wire_name), swap.clone()),
                    Op::Rename(
                        method.file,
                        param_at(method, &b.wire_name),
                        a.wire_name.clone(),
                    ),
                    Op::Rename(method.file, param_at(method, &swap), b.wire_name.clone()),
                    Op::Set(
                        method.file,
                        param_at(method, &b.wire_name),
                        "rust_name".into(),
                        YamlValue::Scalar(a.rust_name.clone()),
                    ),
                    Op::Set(
                        method.file,
                        param_at(method, &a.wire_name),
                        "rust_name".into(),
                        YamlValue::Scalar(b.rust_name.clone()),
                    ),
                ],
            ))
        }
        // An enum value is respelled in capitals (the same variant).
        4 => {
            let e = rng.pick(&api.enums)?;
            let v = rng.pick(&e.values)?;
            let respelled = v.wire.to_uppercase();
            (respelled != v.wire).then(|| {
                (
                    format!("{}::{} is respelled {respelled}", e.name, v.variant),
                    vec![Op::Rename(
                        e.file,
                        path(&["enums", e.name.as_str(), "values", v.wire.as_str()]),
                        respelled,
                    )],
                )
            })
        }
        // A field's type changes.
        5 => {
            let f = *rng.pick(&loose)?;
            let to = match &f.ty {
                TypeRef::Scalar(Scalar::Integer) => "decimal",
                TypeRef::Scalar(Scalar::Decimal) => "integer",
                TypeRef::Scalar(Scalar::Id | Scalar::Count) => "integer",
                TypeRef::Scalar(Scalar::String) => "integer",
                TypeRef::Scalar(Scalar::Boolean) => "string",
                _ => return None,
            };
            let mut ops = vec![Op::Set(
                file,
                field_at(record, &f.wire_name),
                "type".into(),
                YamlValue::Scalar(to.into()),
            )];
            if to == "integer" && matches!(f.ty, TypeRef::Scalar(Scalar::String)) {
                ops.push(Op::Set(
                    file,
                    field_at(record, &f.wire_name),
                    "encoding".into(),
                    YamlValue::Scalar("string".into()),
                ));
            } else if to == "string" {
                ops.push(Op::Remove(file, {
                    let mut p = field_at(record, &f.wire_name);
                    p.push("encoding".into());
                    p
                }));
            }
            Some((format!("{}.{} becomes {to}", record.name, f.rust_name), ops))
        }
        // A field's presence changes.
        6 => {
            let f = *rng.pick(&loose)?;
            let at = field_at(record, &f.wire_name);
            Some(match &f.presence {
                Presence::Always if !f.nullable => (
                    format!("{}.{} may be absent", record.name, f.rust_name),
                    vec![Op::Set(
                        file,
                        at,
                        "optional".into(),
                        YamlValue::Plain("true".into()),
                    )],
                ),
                Presence::Optional(_) => (
                    format!("{}.{} is always sent", record.name, f.rust_name),
                    vec![Op::Remove(file, {
                        let mut p = at;
                        p.push("optional".into());
                        p
                    })],
                ),
                _ => (
                    format!("{}.{} may be null", record.name, f.rust_name),
                    vec![Op::Set(
                        file,
                        at,
                        "nullable".into(),
                        YamlValue::Plain("true".into()),
                    )],
                ),
            })
        }
        // A field is removed, or one is added.
        7 => {
            if rng.below(2) == 0 {
                let f = *rng.pick(&loose)?;
                Some((
                    format!("{}.{} is removed", record.name, f.rust_name),
                    vec![Op::Remove(file, field_at(record, &f.wire_name))],
                ))
            } else {
                Some((
                    format!("{}.addedNote is added", record.name),
                    vec![Op::Set(
                        file,
                        fields_at(record),
                        "addedNote".into(),
                        YamlValue::Entries(vec![
                            ("type".into(), YamlValue::Scalar("string".into())),
                            ("doc".into(), YamlValue::Scalar("Added.".into())),
                        ]),
                    )],
                ))
            }
        }
        // A parameter's bounds, default or need change, or it goes.
        8 => {
            let p = rng.pick(&method.params)?;
            let at = param_at(method, &p.wire_name);
            let numeric = matches!(p.ty, ParamType::Count | ParamType::Integer);
            Some(match rng.below(5) {
                0 if numeric => (
                    format!("{}: {}'s minimum rises", method.name, p.wire_name),
                    vec![Op::Set(
                        method.file,
                        at,
                        "min".into(),
                        YamlValue::Plain((p.min.unwrap_or(0) + 2).to_string()),
                    )],
                ),
                1 if numeric => (
                    format!("{}: {}'s cap falls", method.name, p.wire_name),
                    vec![Op::Set(
                        method.file,
                        at,
                        "max".into(),
                        YamlValue::Plain(
                            (p.max.unwrap_or(50) / 2)
                                .max(p.min.unwrap_or(1))
                                .to_string(),
                        ),
                    )],
                ),
                2 if numeric && !named_param(method, &p.wire_name) => (
                    format!("{}: {}'s default moves", method.name, p.wire_name),
                    vec![Op::Set(
                        method.file,
                        at,
                        "default".into(),
                        YamlValue::Plain((p.default.unwrap_or(0) + 1).to_string()),
                    )],
                ),
                3 if !p.required && !named_param(method, &p.wire_name) => (
                    format!("{}: {} becomes required", method.name, p.wire_name),
                    vec![Op::Set(
                        method.file,
                        at,
                        "required".into(),
                        YamlValue::Plain("true".into()),
                    )],
                ),
                _ if !named_param(method, &p.wire_name) => (
                    format!("{}: {} is removed", method.name, p.wire_name),
                    vec![Op::Remove(method.file, at)],
                ),
                _ => return None,
            })
        }
        // A paged method pages otherwise.
        9 => {
            let m = api
                .methods
                .iter()
                .filter(|m| m.paging.is_some())
                .nth(rng.below(4))?;
            let paging = m.paging.as_ref()?;
            let at = {
                let mut p = method_at(m);
                p.push("paging".into());
                p
            };
            let page = param_at(m, paging.page_param.as_str());
            let size = param_at(m, paging.size_param.as_str());
            Some(match rng.below(5) {
                0 => (
                    format!("{}: pages past the count are the other rule", m.name),
                    vec![Op::Set(
                        m.file,
                        at,
                        "beyond_last".into(),
                        YamlValue::Scalar(
                            match paging.beyond_last {
                                crate::ir::BeyondLast::AboveTotal => "at_or_above_total",
                                crate::ir::BeyondLast::AtOrAboveTotal => "above_total",
                            }
                            .into(),
                        ),
                    )],
                ),
                1 if paging.total_pages.is_some() => (
                    format!("{}: the answer gives no page count", m.name),
                    vec![Op::Remove(m.file, {
                        let mut p = at;
                        p.push("total_pages".into());
                        p
                    })],
                ),
                2 => (
                    format!("{}: pages count from 0", m.name),
                    vec![
                        Op::Set(
                            m.file,
                            page.clone(),
                            "default".into(),
                            YamlValue::Plain("0".into()),
                        ),
                        Op::Set(m.file, page, "min".into(), YamlValue::Plain("0".into())),
                    ],
                ),
                3 => (
                    format!("{}: the page size's cap falls to 3", m.name),
                    vec![Op::Set(
                        m.file,
                        size,
                        "max".into(),
                        YamlValue::Plain("3".into()),
                    )],
                ),
                _ => (
                    format!("{}: no longer paged", m.name),
                    vec![Op::Remove(m.file, at)],
                ),
            })
        }
        // A runtime constant or an error code's kind changes.
        10 => {
            let oauth = api.oauth.as_ref()?;
            let code = rng.pick(&api.errors)?;
            let code_at = path(&["errors", code.code.as_str()]);
            Some(match rng.below(4) {
                0 => (
                    format!("{} becomes an authentication error", code.code),
                    vec![Op::Set(
                        code.file,
                        code_at,
                        "kind".into(),
                        YamlValue::Scalar("authentication".into()),
                    )],
                ),
                1 => (
                    "a new authentication error code".to_owned(),
                    vec![Op::Set(
                        code.file,
                        path(&["errors"]),
                        "E_API_SIGNATURE_REFUSED".into(),
                        YamlValue::Entries(vec![
                            (
                                "doc".into(),
                                YamlValue::Scalar("The signature is refused.".into()),
                            ),
                            ("kind".into(), YamlValue::Scalar("authentication".into())),
                        ]),
                    )],
                ),
                2 => (
                    "the token lifetime halves".to_owned(),
                    vec![Op::Set(
                        oauth.file,
                        path(&["oauth"]),
                        "token_lifetime_seconds".into(),
                        YamlValue::Plain((oauth.token_lifetime_seconds / 2).to_string()),
                    )],
                ),
                _ => (
                    format!("{} is no longer an authentication error", code.code),
                    vec![Op::Remove(code.file, {
                        let mut p = code_at;
                        p.push("kind".into());
                        p
                    })],
                ),
            })
        }
        // A method's Rust name changes.
        11 => Some((
            format!("{}'s Rust name changes", method.name),
            vec![Op::Set(
                method.file,
                method_at(method),
                "rust_name".into(),
                YamlValue::Scalar(format!("fetch_{}", method.rust_name)),
            )],
        )),
        // A type moves to another file.
        12 => {
            let to = rng.below(api.files.len());
            (to != record.file).then(|| {
                (
                    format!("{} moves to {}", record.name, api.files[to].path),
                    vec![Op::Move(
                        record.file,
                        to,
                        path(&["types", record.name.as_str()]),
                    )],
                )
            })
        }
        // An enum value is added or removed.
        13 => {
            let e = rng.pick(&api.enums)?;
            if rng.below(2) == 0 && e.values.len() > 1 {
                let v = rng.pick(&e.values)?;
                Some((
                    format!("{}::{} is removed", e.name, v.variant),
                    vec![Op::Remove(
                        e.file,
                        path(&["enums", e.name.as_str(), "values", v.wire.as_str()]),
                    )],
                ))
            } else {
                Some((
                    format!("{}::Added is added", e.name),
                    vec![Op::Set(
                        e.file,
                        path(&["enums", e.name.as_str(), "values"]),
                        "Added".into(),
                        YamlValue::Scalar("Added.".into()),
                    )],
                ))
            }
        }
        // A field's wire name changes, its Rust name kept.
        14 => {
            let f = *rng.pick(&loose)?;
            let renamed = format!("{}Renamed", f.wire_name);
            Some((
                format!("{}.{} is sent as {renamed}", record.name, f.rust_name),
                vec![
                    Op::Rename(file, field_at(record, &f.wire_name), renamed.clone()),
                    Op::Set(
                        file,
                        field_at(record, &renamed),
                        "rust_name".into(),
                        YamlValue::Scalar(f.rust_name.clone()),
                    ),
                ],
            ))
        }
        // A field's encoding changes.
        _ => {
            let f = *rng.pick(&loose)?;
            let to = match &f.ty {
                TypeRef::Scalar(Scalar::Integer | Scalar::Id | Scalar::Count | Scalar::Decimal) => {
                    *rng.pick(&["string", "number", "string_or_number"])?
                }
                TypeRef::Scalar(Scalar::String) => "string_or_number",
                TypeRef::Scalar(Scalar::Date) => *rng.pick(&["dmy", "epoch"])?,
                TypeRef::List(_) => *rng.pick(&["array", "index_object"])?,
                _ => return None,
            };
            Some((
                format!("{}.{} is sent as {to}", record.name, f.rust_name),
                vec![Op::Set(
                    file,
                    field_at(record, &f.wire_name),
                    "encoding".into(),
                    YamlValue::Scalar(to.into()),
                )],
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Vec<SpecSource> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        crate::load_spec_dir(&dir, "spec").expect("the spec loads")
    }

    #[test]
    fn a_seed_gives_one_valid_composition_that_edits_the_spec() {
        let sources = spec();
        for seed in 0..8 {
            let first = compose(&sources, seed, 3).expect("a composition");
            let again = compose(&sources, seed, 3).expect("a composition");
            assert_eq!(first.sources, again.sources, "seed {seed}");
            assert_eq!(first.edits.len(), 3);
            assert_ne!(first.sources, sources, "seed {seed}: {:?}", first.edits);
            crate::resolve(&first.sources).expect("a valid spec");
        }
    }
}
