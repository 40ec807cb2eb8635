//! The Rust oracle: a use of every public item of the base crate (the line a compile witness
//! shows, `RustApi::caller`), one a line, compiled against the head crate; and the changes of
//! meaning the real crates show (the probe binary's calls through both crates, and each head
//! answer decoded by both).

use super::*;
use crate::answers::{Decode, Why, real_record};
use crate::meaning::meaning_changes;
use marketplace_codegen::diff::decode::Value;
use marketplace_codegen::diff::rust_api::{CALLER_IMPORTS, RustApi};

/// A pair's caller crate: its source, and the item each line of it uses (by line number).
fn caller(pair: &Pair) -> (String, BTreeMap<usize, String>) {
    let items = RustApi::from_files(&pair.base_files).unwrap();
    let mut out = format!(
        "//! Every public item of the base crate of this pair, used through the head crate.\n\
         #![allow(unused, unreachable_patterns)]\n\
         use marketplace_client::variants::{}::*;\n{CALLER_IMPORTS}",
        pair.head_variant
    );
    let mut lines = BTreeMap::new();
    for (index, key) in items.items.keys().enumerate() {
        if let Some(line) = items.caller(key, &format!("item_{index}")) {
            lines.insert(out.lines().count() + 1, key.clone());
            out.push_str(&line);
            out.push('\n');
        }
    }
    (out, lines)
}

pub(crate) fn write(scratch: &Path, pairs: &[Pair]) {
    for pair in pairs {
        write_crate(
            &scratch.join("callers").join(&pair.name),
            &format!("caller-{}", pair.name),
            &["serde", "serde_json", "futures"],
            "lib.rs",
            &caller(pair).0,
        );
    }
}

/// Per pair, the fields of the base crate that read, through the head crate, what another
/// field of the base crate read: each head answer decoded by both crates, a field's value in
/// the head crate found in another field of the base crate's reading (values are distinct).
fn field_meanings(pairs: &[Pair], decoded: &[Decode]) -> BTreeMap<String, Vec<String>> {
    let mut by_answer: BTreeMap<(usize, usize), Vec<&Decode>> = BTreeMap::new();
    for d in decoded.iter().filter(|d| d.why != Why::Witness) {
        by_answer.entry((d.pair, d.answer)).or_default().push(d);
    }
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((index, _), both) in by_answer {
        let pair = &pairs[index];
        let (Some(old), Some(new)) = (
            both.iter().find(|d| d.why == Why::HeadByBase),
            both.iter().find(|d| d.why == Why::HeadByHead),
        ) else {
            continue;
        };
        let (Ok(old_json), Ok(new_json)) = (&old.result, &new.result) else {
            continue;
        };
        let (Some(old_record), Some(new_record)) = (
            pair.base.records.iter().find(|r| r.name == old.record),
            pair.head.records.iter().find(|r| r.name == new.record),
        ) else {
            continue;
        };
        let mut moved = Vec::new();
        fields_moved(
            &old_record.name,
            &real_record(&pair.base, old_record, old_json),
            &real_record(&pair.head, new_record, new_json),
            &mut moved,
        );
        found.entry(pair.name.clone()).or_default().extend(moved);
    }
    found.retain(|_, moved| !moved.is_empty());
    found
}

/// Each field of a record (and of the records inside it, at the same paths) whose value
/// through the head crate is, through the base crate, another field's.
fn fields_moved(path: &str, was: &Value, is: &Value, moved: &mut Vec<String>) {
    match (was, is) {
        (Value::Record(was), Value::Record(is)) => {
            for (name, now) in is {
                let Some((_, before)) = was.iter().find(|(n, _)| n == name) else {
                    continue;
                };
                let scalar = !matches!(now, Value::Record(_) | Value::List(_) | Value::None);
                if now != before && scalar {
                    if let Some((other, _)) = was.iter().find(|(n, v)| n != name && v == now) {
                        moved.push(format!(
                            "{path}.{name} reads through the head crate what {path}.{other} read \
                             through the base crate"
                        ));
                    }
                }
                fields_moved(&format!("{path}.{name}"), before, now, moved);
            }
        }
        (Value::List(was), Value::List(is)) => {
            for (i, (a, b)) in was.iter().zip(is).enumerate() {
                fields_moved(&format!("{path}.{i}"), a, b, moved);
            }
        }
        _ => {}
    }
}

/// The kinds of meaning change the oracle observes: a field's, a constructor's, a setter's.
fn observed_kind(item: &str) -> bool {
    let field = item.contains('.') && !item.contains("::") && !item.contains(' ');
    field || item.starts_with("Session::") || item.starts_with("Request < ")
}

pub(crate) fn check(
    built: &client_copy::Built,
    pairs: &[Pair],
    probe_output: &str,
    decoded: &[Decode],
) -> Vec<String> {
    let mut failures = Vec::new();
    let calls = meaning_changes(probe_output, pairs);
    let fields = field_meanings(pairs, decoded);
    for pair in pairs {
        let (_, lines) = caller(pair);
        let package = format!("caller-{}", pair.name);
        let failing: BTreeSet<String> = built
            .error_lines
            .get(&package)
            .into_iter()
            .flatten()
            .filter(|(file, _)| file.ends_with("lib.rs"))
            .filter_map(|(_, line)| lines.get(line).cloned())
            .collect();
        // Each item a compile witness shows fails to compile.
        let mut meanings = BTreeSet::new();
        for change in &pair.changes {
            match &change.rust_witness {
                Some(Witness::Caller { item, code }) if !failing.contains(item) => {
                    failures.push(format!(
                        "{} (Rust): {}'s witness `{code}` compiles against the head crate",
                        pair.name, change.rule
                    ));
                }
                Some(Witness::Meaning { item, .. }) => {
                    meanings.insert(item.clone());
                }
                _ => {}
            }
        }
        // Each line that fails uses an item the Rust model finds broken (renames aside), or
        // names a type it finds gone.
        let (base_rust, head_rust) = (
            RustApi::from_files(&pair.base_files).unwrap(),
            RustApi::from_files(&pair.head_files).unwrap(),
        );
        let broken = head_rust.broken_since(&base_rust, &BTreeMap::new());
        let gone_types: Vec<&String> = broken
            .iter()
            .filter(|k| !k.contains(['.', ':', ' ']))
            .collect();
        for item in &failing {
            let line = base_rust.caller(item, "x").unwrap_or_default();
            let words: BTreeSet<&str> = line
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .collect();
            // A type gone, or a member gone (a variant an exhaustive match names).
            let names_gone = gone_types.iter().any(|t| words.contains(t.as_str()))
                || broken
                    .iter()
                    .filter(|k| k.contains("::") && !k.contains(' '))
                    .any(|k| line.contains(k.trim_end_matches("()")));
            if !broken.contains(item) && !names_gone {
                failures.push(format!(
                    "{} (Rust): the use of {item} fails to compile against the head crate, which \
                     the Rust model does not find broken",
                    pair.name
                ));
            }
        }
        let changed: Vec<&String> = calls
            .get(&pair.name)
            .into_iter()
            .flatten()
            .chain(fields.get(&pair.name).into_iter().flatten())
            .collect();
        let tool = pair.changes.iter().any(|c| c.rust == Impact::Breaking);
        let oracle = !failing.is_empty() || !changed.is_empty();
        // A tool's verdict that rests on a change of meaning of a kind the oracle does not
        // observe (a variant, a page's getter) is not held to it.
        let unobserved = !oracle
            && tool
            && pair.changes.iter().all(|c| match &c.rust_witness {
                Some(Witness::Meaning { item, .. }) => !observed_kind(item),
                Some(_) => false,
                None => true,
            });
        if tool != oracle && !unobserved {
            failures.push(format!(
                "{} (Rust): the tool says {}, the oracle finds {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                if oracle {
                    format!(
                        "uses that do not compile ({}) or calls and fields that mean something else ({})",
                        listed(&failing),
                        changed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("; ")
                    )
                } else {
                    "every use compiling and every call and field meaning what it meant".to_owned()
                }
            ));
        }
        // Each observed change of meaning is a tool's witness (or a compile break).
        for meaning in &meanings {
            if observed_kind(meaning) && failing.is_empty() && changed.is_empty() {
                failures.push(format!(
                    "{} (Rust): the tool says {meaning} means something else, the oracle sees no call or field that does",
                    pair.name
                ));
            }
        }
    }
    failures
}
