//! Every spec the loader accepts generates a client that compiles.
//!
//! Specs are generated with hostile names in every position a name can take (file, type,
//! enum, enum value, error code, field and parameter wire and Rust names, `documented_as`,
//! method and group names, method Rust names, alternatives, paging), drawn from the names the
//! generated code and the runtime use (`pool`, read from the code), the Rust keywords, the
//! prelude, and spellings that meet after case conversion (`specs`). The judge (`judge`): the
//! loader refuses a spec with located errors (a name rule's with a suggestion, which the rule
//! then accepts where it is written), or the generated code passes `cargo clippy` without a
//! warning, in its module, at the crate root and on the runtime's own `Session`.
//!
//! Each run judges the systematic specs (every core name in each position), the random specs
//! of fixed seeds, and a few of fresh seeds (printed; to replay one:
//! `SPEC_NAMES_SEED=<seed> SPEC_NAMES_CASES=1`). `SPEC_NAMES_CASES=<n>` judges `n` fresh
//! ones: a deeper run. A run costs about 25 s of CPU after the first build (which checks the
//! client's dependencies once): a few seconds of loading, then two copies of the runtime and
//! some 85,000 generated lines checked with clippy side by side (17 to 27 s on two quiet
//! cores); each hundred fresh specs adds about 15 s.

use std::collections::BTreeSet;
use std::sync::LazyLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

// The build and its executables are the other tests'.
#[allow(dead_code)]
mod client_copy;
#[path = "spec_names/judge.rs"]
mod judge;
#[path = "spec_names/plan.rs"]
mod plan;
#[path = "spec_names/pool.rs"]
mod pool;
#[path = "spec_names/specs.rs"]
mod specs;

use plan::{Follow, Plan};
use pool::Pool;

static POOL: LazyLock<Pool> = LazyLock::new(Pool::new);

/// Random specs of fixed seeds, judged in every run.
const FIXED_SEEDS: u64 = 24;

/// Random specs of fresh seeds in every run, unless `SPEC_NAMES_CASES` says how many.
const FRESH_CASES: u64 = 8;

/// The random spec of `seed`.
fn random_spec(seed: u64) -> Plan {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    specs::random(&POOL)
        .new_tree(&mut runner)
        .expect("a spec")
        .current()
}

/// One spec to judge.
struct Case {
    label: String,
    plan: Plan,
    /// How its refusals are followed.
    follow: Follow,
    /// Whether the spec it leads to is compiled.
    compiled: bool,
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value} is not a number")),
    )
}

#[test]
fn every_spec_the_loader_accepts_generates_code_that_compiles() {
    let started = Instant::now();
    // The systematic specs twice: suggestions followed (each must be accepted where it is
    // written), and refused names taken out, which leaves the names accepted as written to
    // compile; the random ones with their suggestions followed.
    let mut specs: Vec<Case> = Vec::new();
    for (position, plan) in specs::systematic(&POOL) {
        let label = format!("every name as {position}");
        specs.push(Case {
            label: format!("{label}, suggestions followed"),
            plan: plan.clone(),
            follow: Follow::Suggestions,
            compiled: false,
        });
        specs.push(Case {
            label,
            plan,
            follow: Follow::Drop,
            compiled: true,
        });
    }
    let systematic = specs.len();
    let fresh = env_number("SPEC_NAMES_CASES").unwrap_or(FRESH_CASES);
    let fresh_seed = env_number("SPEC_NAMES_SEED").unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1 << 63
    });
    let fixed = if std::env::var("SPEC_NAMES_SEED").is_ok() {
        0
    } else {
        FIXED_SEEDS
    };
    let seeds = (0..fixed).chain((0..fresh).map(|i| fresh_seed.wrapping_add(i)));
    specs.extend(seeds.map(|seed| Case {
        label: format!("random spec of seed {seed}"),
        plan: random_spec(seed),
        follow: Follow::Suggestions,
        compiled: true,
    }));
    println!(
        "{} specs: {systematic} systematic, {fixed} of fixed seeds, {fresh} fresh from seed {fresh_seed}",
        specs.len()
    );

    let mut failures = Vec::new();
    let mut accepted = Vec::new();
    let mut refused = 0;
    let mut rules = std::collections::BTreeMap::new();
    for case in specs {
        match judge::load(&case.label, case.plan, case.follow) {
            Ok(loaded) => {
                refused += loaded.refused;
                for (rule, count) in loaded.rules {
                    *rules.entry(rule).or_insert(0) += count;
                }
                match loaded.accepted {
                    Some(spec) if case.compiled => accepted.push(spec),
                    Some(_) => {}
                    // Nothing left to compile: the generator's names missed every position.
                    None => failures.push(judge::Failure {
                        label: case.label,
                        spec: String::new(),
                        problem: "no part of the spec is accepted".to_owned(),
                    }),
                }
            }
            Err(failure) => failures.push(failure),
        }
    }
    // The core names compiled in some position: most of them (a keyword is refused as a
    // Rust name, but is a wire name, an enum value, an error code).
    let compiled: BTreeSet<String> = accepted.iter().flat_map(|a| a.plan.names()).collect();
    let covered = POOL.core.iter().filter(|n| compiled.contains(*n)).count();
    println!("{covered} of the {} core names compiled", POOL.core.len());
    assert!(
        covered * 10 >= POOL.core.len() * 9,
        "only {covered} of {} core names compiled in some position",
        POOL.core.len()
    );
    let loaded_in = started.elapsed();
    let names: usize = accepted.iter().map(|a| a.plan.names().len()).sum();
    let lines: usize = accepted
        .iter()
        .flat_map(|a| &a.files)
        .map(|f| f.contents.lines().count())
        .sum();
    println!(
        "pool: {} core names, {} spellings, {} runtime identifiers, {} spec names; {lines} lines generated",
        POOL.core.len(),
        POOL.spellings.len(),
        POOL.runtime.len(),
        POOL.spec.len()
    );
    println!(
        "{} specs accepted ({names} names), {refused} refused on the way ({rules:?}), in {loaded_in:.1?}",
        accepted.len()
    );
    failures.extend(judge::compile(&accepted));
    println!(
        "compiled in {:.1?}; {:.1?} in all",
        started.elapsed() - loaded_in,
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} specs break the property:\n\n{}",
        failures.len(),
        failures
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
