//! The tools on megabytes of spec: generation, the spec diff and the spec audit on synthetic
//! specs of tens of thousands of items (`support/synthetic.rs`), each checked for what it
//! must find. How their cost grows is the `linear_readers` bench's (BENCHMARKS.md, section 7):
//! nothing here is timed.

#[path = "support/synthetic.rs"]
mod synthetic;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use marketplace_codegen::audit::{FindingKind, audit, parse_reference};
use marketplace_codegen::diff::{self, Impact, RULES, Side};
use marketplace_codegen::ir::Api;
use marketplace_codegen::{SpecSource, generate, resolve};
use synthetic::CHANGES_PER_UNIT;

/// Units of the generated and compared specs: over 1 MiB and 30,000 items a side.
const UNITS: usize = 1_200;

/// Types of the audited spec: about 4 MB.
const AUDITED: usize = 20_000;

fn resolved(sources: &[SpecSource]) -> Api {
    resolve(sources).unwrap_or_else(|errors| panic!("the synthetic spec is invalid: {errors}"))
}

fn size(sources: &[SpecSource]) -> usize {
    sources.iter().map(|s| s.text.len()).sum()
}

#[test]
fn a_large_spec_generates_every_item() {
    let sources = synthetic::api(UNITS, synthetic::Side::Base);
    assert!(size(&sources) > 1 << 20, "{} bytes", size(&sources));
    let api = resolved(&sources);
    let files = generate(&api).expect("generates");
    // Indexed once: a `contains` per expected item would make the check itself quadratic.
    let mut lines = HashSet::new();
    for line in files.iter().flat_map(|f| f.contents.lines()) {
        let line = line.trim();
        lines.insert(line);
        // A method's signature continues past its name; `pub fn m0(` stands for it.
        if let Some(open) = line.find('(') {
            lines.insert(&line[..=open]);
        }
    }
    for i in 0..UNITS {
        for expected in [
            format!("pub struct T{i} {{"),
            format!("pub struct T{i}Builder {{"),
            format!("pub enum E{i} {{"),
            format!("pub fn m{i}("),
            format!("impl PagedMethod for M{i} {{"),
            format!("impl paging::Page for T{i} {{"),
            format!("pub struct R{i} {{"),
            format!("C{i},"),
        ] {
            assert!(
                lines.contains(expected.as_str()),
                "no line `{expected}` in the generated code"
            );
        }
    }
    // Every unit's list shares one record, delivered by every paged method.
    let shared = files
        .iter()
        .find(|f| f.contents.contains("pub struct Shared {"))
        .expect("Shared is generated");
    assert!(shared.contents.contains(&format!("`g/m{}`", UNITS - 1)));
    assert_eq!(generate(&api).expect("generates again"), files);
}

#[test]
fn a_large_spec_diff_finds_every_change_in_order() {
    let base_sources = synthetic::api(UNITS, synthetic::Side::Base);
    let head_sources = synthetic::api(UNITS, synthetic::Side::Head);
    let (base, head) = (resolved(&base_sources), resolved(&head_sources));
    let changes = diff::diff(
        Side {
            api: &base,
            sources: &base_sources,
        },
        Side {
            api: &head,
            sources: &head_sources,
        },
    )
    .expect("both sides generate")
    .changes;

    let mut expected: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for i in 0..UNITS {
        for (rule, subject) in CHANGES_PER_UNIT {
            let subject = subject.replace("{i}", &i.to_string());
            assert!(expected.entry(rule).or_default().insert(subject));
        }
    }
    let mut found: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for change in &changes {
        let new = found
            .entry(change.rule)
            .or_default()
            .insert(change.subject.clone());
        assert!(new, "reported twice: {} {}", change.rule, change.subject);
        assert!(
            change.base.is_some() || change.head.is_some(),
            "not located: {change:?}"
        );
    }
    assert_eq!(changes.len(), UNITS * CHANGES_PER_UNIT.len());
    assert_eq!(found, expected);

    // Rule by rule in RULES order, each rule in spec order (unit by unit).
    let rank = |rule: &str| RULES.iter().position(|r| r.id == rule).expect("a rule");
    let unit = |subject: &str| -> usize {
        let digits: String = subject
            .split('.')
            .nth(1)
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        digits.parse().expect("a unit number")
    };
    for pair in changes.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(rank(a.rule) <= rank(b.rule), "{} before {}", a.rule, b.rule);
        if a.rule == b.rule && a.rule != "doc-changed" {
            assert!(unit(&a.subject) < unit(&b.subject), "{a:?} before {b:?}");
        }
    }

    // The verdicts of the kinds the models decide.
    let verdict = |rule: &str, i: usize| {
        let subject = CHANGES_PER_UNIT
            .iter()
            .find(|(r, _)| *r == rule)
            .map(|(_, s)| s.replace("{i}", &i.to_string()))
            .expect("a rule of the unit");
        let change = changes
            .iter()
            .find(|c| c.rule == rule && c.subject == subject)
            .expect("reported");
        (change.wire, change.rust)
    };
    use Impact::{Breaking, NonBreaking};
    for i in [0, UNITS / 2, UNITS - 1] {
        assert_eq!(verdict("param-added-required", i), (Breaking, Breaking));
        assert_eq!(verdict("field-removed", i), (Breaking, Breaking));
        assert_eq!(verdict("field-added", i), (NonBreaking, NonBreaking));
        assert_eq!(verdict("field-type-widened", i), (Breaking, Breaking));
        assert_eq!(verdict("enum-value-added", i), (NonBreaking, NonBreaking));
        assert_eq!(verdict("type-renamed", i).1, Breaking);
        assert_eq!(verdict("doc-changed", i), (NonBreaking, NonBreaking));
    }
}

#[test]
fn a_large_spec_audit_finds_every_quote_missing_from_the_reference() {
    let sources = synthetic::audited(AUDITED);
    assert!(size(&sources) > 3 << 20, "{} bytes", size(&sources));
    let api = resolved(&sources);
    let reference =
        parse_reference(&synthetic::reference(AUDITED), "ref.md").expect("the reference reads");
    for i in [0, 1, AUDITED - 2, AUDITED - 1] {
        assert_eq!(reference.contains_quote(&synthetic::quote(i)), i % 2 == 0);
    }
    let findings = audit(&api, &sources, &reference).findings;
    let missing: Vec<String> = (0..AUDITED)
        .filter(|i| i % 2 == 1)
        .map(|i| format!("types.Q{i}.fields.v{i}"))
        .collect();
    let found: Vec<String> = findings
        .iter()
        .map(|f| {
            assert_eq!(f.kind, FindingKind::EvidenceNotInReference, "{f}");
            f.spec.as_ref().expect("located in the spec").path.clone()
        })
        .collect();
    // In spec order: file by file, line by line.
    assert_eq!(found, missing);
    for (finding, i) in findings.iter().zip((0..AUDITED).filter(|i| i % 2 == 1)) {
        assert!(finding.message.contains(&synthetic::quote(i)), "{finding}");
    }
}
