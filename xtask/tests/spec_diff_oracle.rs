//! The spec diff's simulation held to the real crates: the base crate compiled and run against
//! what a server of the head spec sends, for every fixture pair in `spec-diff/<case>/` and for
//! random compositions of edits of the real spec (`marketplace_codegen::diff::compose`).
//!
//! Every witness the simulation produces is run through the real crates, and every verdict is
//! checked against what they do:
//! - **Answers** (`spec_diff_oracle/answers.rs`): every answer the head server sends for each
//!   method's response (each declared spelling, presence, enum value, one variation at a
//!   time), and every answer a witness shows, decoded by the base crate's real types (and
//!   the head answers by the head crate's): each decode gives, at every Rust path, the value
//!   the simulation's decoder model predicts, or fails where it predicts a refusal. A head
//!   answer that the base crate reads otherwise than the head crate (a value at another path,
//!   lost, refused) exists exactly when the tool says a response change breaks.
//! - **Rust** (`spec_diff_oracle/callers.rs`): a use of every public item of the base crate
//!   (the very line a compile witness shows), one a line, compiled against the head crate:
//!   each item the tool finds broken fails to compile, and each line that fails is such an
//!   item or names one. Besides, each old call is made through both crates (each constructor
//!   with the arguments 1, 2, 3, …; each setter; each bound of the old crate) and each head
//!   answer decoded by both: a call that sends its value as another parameter, a bound the
//!   head crate refuses before sending, a field that reads what another field read, is a
//!   change of meaning. The tool says the Rust API breaks exactly when something fails to
//!   compile or changes meaning.
//! - **Requests** (`spec_diff_oracle/requests.rs`): every call the simulation makes, built
//!   with the real base crate, sends exactly the query the simulation predicts; and what a
//!   server of the head spec makes of those queries (refused, ignored, read as another
//!   parameter, a required one missing, a default it now assumes otherwise) is wrong exactly
//!   when the tool says a request change breaks.
//! - **Paging**: the runtime's own page stream (`marketplace_client::paging`), walked as the
//!   base crate walks it against pages served by the head spec's rules and read through the
//!   fields the base crate reads, yields what the simulation's walk yields, for every walk it
//!   runs; some walk misses an item exactly when the tool says a paging change breaks.
//! - **Runtime** (`spec_diff_oracle/runtime.rs`): for pairs whose specs both have an OAuth
//!   service, the base crate's own runtime (how long `Session::expires_at` lets a token live;
//!   whether `Client::request_token` goes out over plain HTTP; whether its OAuth exchange
//!   succeeds against a loopback server answering with the head's names; whether it corrects
//!   its clock when a server 2 h ahead refuses a call with each of the head's authentication
//!   codes) breaks exactly when the tool says a runtime change breaks.
//!
//! Every breaking verdict of every pair carries its witness, and a witness is never the
//! budget's stand-in here.
//!
//! Cost: both crates of every pair are generated into one scratch workspace under
//! `CARGO_TARGET_TMPDIR` (`client_copy`): one copy of the client crate's runtime holding every
//! variant as a module (identical variants once: the compositions share the real spec as
//! their base), one small caller crate per pair, a decoder binary and a probe binary, all
//! built by one `cargo build` against the workspace's target directory. The compositions are
//! the real spec's size: each adds a variant of the real generated crate and a caller of all
//! its items, about 20 s of one core. `SPEC_DIFF_COMPOSITIONS=n` runs `n` random compositions
//! besides the fixed seeds (default 1; the seed of each is printed to rerun it with
//! `SPEC_DIFF_SEEDS=a,b,…`), `SPEC_DIFF_EDITS=n` composes `n` edits (default 3).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

#[path = "spec_diff_oracle/answers.rs"]
mod answers;
#[path = "spec_diff_oracle/callers.rs"]
mod callers;
mod client_copy;
mod fixture_pairs;
#[path = "spec_diff_oracle/meaning.rs"]
mod meaning;
#[path = "spec_diff_oracle/requests.rs"]
mod requests;
#[path = "spec_diff_oracle/runtime.rs"]
mod runtime;

use client_copy::write;
use marketplace_codegen::diff::paging::{self as paging_model, Reader, Server};
use marketplace_codegen::diff::{self, Change, Impact, Surface, Witness};
use marketplace_codegen::ir::{Api, BeyondLast, Method};
use marketplace_codegen::{GeneratedFile, SpecSource, generate};

/// The compositions always run.
const FIXED_SEEDS: &[u64] = &[3, 4, 9];

/// Edits per composition (`SPEC_DIFF_EDITS` for more).
const EDITS: usize = 3;

fn edits() -> usize {
    std::env::var("SPEC_DIFF_EDITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(EDITS)
}

/// One pair of specs, resolved and generated.
pub(crate) struct Pair {
    pub name: String,
    /// The variant modules of its base and head crates.
    pub base_variant: String,
    pub head_variant: String,
    pub base: Api,
    pub head: Api,
    pub base_files: Vec<GeneratedFile>,
    pub head_files: Vec<GeneratedFile>,
    pub changes: Vec<Change>,
}

impl Pair {
    fn new(name: String, base_variant: String, head_variant: String, sides: Sides) -> Pair {
        let (base, head, changes) = sides;
        Pair {
            base_files: generate(&base).unwrap(),
            head_files: generate(&head).unwrap(),
            name,
            base_variant,
            head_variant,
            base,
            head,
            changes,
        }
    }
}

/// Both specs of a pair, resolved, and the changes the tool finds.
type Sides = (Api, Api, Vec<Change>);

/// The changes from `base` to `head`, resolved.
fn compared(base: &[SpecSource], head: &[SpecSource]) -> Sides {
    let resolve = |sources: &[SpecSource]| {
        marketplace_codegen::resolve(sources).unwrap_or_else(|e| panic!("{e}"))
    };
    let (old, new) = (resolve(base), resolve(head));
    let changes = diff::diff(
        diff::Side {
            api: &old,
            sources: base,
        },
        diff::Side {
            api: &new,
            sources: head,
        },
    )
    .unwrap()
    .changes;
    (old, new, changes)
}

/// The seeds of this run's compositions: the fixed ones, and `SPEC_DIFF_SEEDS` or
/// `SPEC_DIFF_COMPOSITIONS` random ones.
fn seeds() -> Vec<u64> {
    let mut seeds = FIXED_SEEDS.to_vec();
    if let Ok(given) = std::env::var("SPEC_DIFF_SEEDS") {
        seeds.extend(
            given
                .split(',')
                .filter_map(|s| s.trim().parse::<u64>().ok()),
        );
        return seeds;
    }
    let random: usize = std::env::var("SPEC_DIFF_COMPOSITIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    for i in 0..random as u64 {
        // SplitMix64 of the clock and the index: distinct seeds, each shown to rerun it.
        let mut z = clock.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let seed = (z ^ (z >> 31)) >> 16;
        eprintln!(
            "spec-diff oracle: random composition seed {seed} (SPEC_DIFF_SEEDS={seed} reruns it)"
        );
        seeds.push(seed);
    }
    seeds
}

fn pairs() -> Vec<Pair> {
    let mut pairs: Vec<Pair> = fixture_pairs::names()
        .into_iter()
        .map(|name| {
            let ident = name.replace('-', "_");
            Pair::new(
                name.clone(),
                format!("{ident}_base"),
                format!("{ident}_head"),
                fixture_pairs::load(&name),
            )
        })
        .collect();
    let real =
        marketplace_codegen::load_spec_dir(&client_copy::workspace_root().join("spec"), "spec")
            .unwrap();
    for seed in seeds() {
        let composition = diff::compose::compose(&real, seed, edits())
            .unwrap_or_else(|| panic!("no composition of seed {seed}"));
        eprintln!(
            "spec-diff oracle: composition {seed}: {}",
            composition.edits.join("; ")
        );
        pairs.push(Pair::new(
            format!("composition-{seed}"),
            "real_spec".to_owned(),
            format!("composition_{seed}"),
            compared(&real, &composition.sources),
        ));
    }
    pairs
}

fn breaks(pair: &Pair, surface: Surface) -> bool {
    pair.changes
        .iter()
        .any(|c| c.wire == Impact::Breaking && c.surface == surface)
}

#[test]
fn every_witness_and_verdict_agrees_with_the_real_crates() {
    let started = std::time::Instant::now();
    let phase = |what: &str| {
        eprintln!(
            "spec-diff oracle: {what} after {:.1} s",
            started.elapsed().as_secs_f64()
        )
    };
    let pairs = pairs();
    phase("the pairs compared");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spec-diff-oracle");
    client_copy::remove_all(&scratch);
    let calls = requests::calls(&pairs);
    write_workspace(&scratch, &pairs, &calls);
    let built = build(&scratch);
    phase("the scratch workspace built");
    let mut failures = Vec::new();

    // Every breaking verdict shows its witness, run below.
    for pair in &pairs {
        for change in &pair.changes {
            for (verdict, witness) in [
                (change.wire, &change.wire_witness),
                (change.rust, &change.rust_witness),
            ] {
                if (verdict == Impact::Breaking) != witness.is_some()
                    || matches!(witness, Some(Witness::Unsimulated { .. }))
                {
                    failures.push(format!(
                        "{}: {} {:?} without its witness ({witness:?})",
                        pair.name, change.rule, verdict
                    ));
                }
            }
        }
    }

    let probe_output = meaning::run_probes(&built);
    let decoded = answers::decode_everything(&built, &pairs);
    failures.extend(answers::check(&pairs, &decoded));
    failures.extend(callers::check(&built, &pairs, &probe_output, &decoded));
    failures.extend(requests::check(&pairs, &calls, &probe_output));
    failures.extend(runtime::check(&pairs, &probe_output));
    failures.extend(check_paging(&pairs));
    phase("every check run");

    assert!(
        failures.is_empty(),
        "{} disagreements:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The method of `api` that answers for `method`: the same name, else the same response.
pub(crate) fn counterpart<'a>(method: &Method, api: &'a Api) -> Option<&'a Method> {
    api.methods
        .iter()
        .find(|m| m.name == method.name)
        .or_else(|| api.methods.iter().find(|m| m.response == method.response))
}

// ---- the paging oracle ------------------------------------------------------------------------

/// The runtime's walks against the simulation's, and the paging verdicts.
fn check_paging(pairs: &[Pair]) -> Vec<String> {
    let mut failures = Vec::new();
    for pair in pairs {
        let mut oracle_breaks = false;
        for old in &pair.base.methods {
            let Some(new) = counterpart(old, &pair.head) else {
                continue;
            };
            if old.paging.is_none() && new.paging.is_none() {
                continue;
            }
            let reader = Reader::of(&pair.base, old, &pair.head, new);
            for (items, asked) in paging_model::walks(old) {
                let server = Server::of(new, items, asked.filter(|_| reader.sizes));
                let real = runtime_walk(old, &server, reader);
                let (model, _) = paging_model::walk(old, &server, reader);
                if real != model {
                    failures.push(format!(
                        "{} (paging, {} over {items} items): the simulation's walk gives \
                         {model:?}, the runtime's {real:?}",
                        pair.name, old.name
                    ));
                }
                oracle_breaks |= real != Some((0..items).collect());
            }
        }
        let tool = breaks(pair, Surface::Paging);
        if tool != oracle_breaks {
            failures.push(format!(
                "{} (paging): the tool says {}, the runtime's stream {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                if oracle_breaks {
                    "misses items"
                } else {
                    "gets every item"
                }
            ));
        }
    }
    failures
}

struct FakePage {
    items: Vec<u64>,
    total_pages: Option<u64>,
}

impl marketplace_client::paging::Page for FakePage {
    type Item = u64;

    fn total_pages(&self) -> Option<u64> {
        self.total_pages
    }

    fn items(&self) -> &[u64] {
        &self.items
    }

    fn into_items(self) -> Vec<u64> {
        self.items
    }
}

/// What the runtime's stream yields when the base crate's method walks `server`, reading each
/// page as `reader` says (its items and page count from the fields the base crate reads); a
/// base method that does not page sends one request.
fn runtime_walk(base: &Method, server: &Server, reader: Reader) -> Option<Vec<u64>> {
    use marketplace_client::paging;
    use paging_model::Source;
    let read_items = move |items: Vec<u64>| match reader.items {
        Source::Meant => items,
        Source::Unrelated => vec![paging_model::UNRELATED_ITEM],
        Source::Nothing => Vec::new(),
    };
    let Some(spec) = base.paging.as_ref() else {
        let page = if server.paged { server.first_page } else { 0 };
        return server.page(page).map(read_items);
    };
    let walk = paging::Walk {
        method: "oracle",
        first_page: paging_model::first_page(base),
        beyond_last: match spec.beyond_last {
            BeyondLast::AboveTotal => paging::BeyondLast::AboveTotal,
            BeyondLast::AtOrAboveTotal => paging::BeyondLast::AtOrAboveTotal,
        },
        concurrency: 3,
        max_pages: paging::MAX_PAGES,
    };
    let count = match reader.count {
        Some(Source::Meant) => server.total_pages(),
        Some(Source::Unrelated) => Some(paging_model::UNRELATED_COUNT),
        Some(Source::Nothing) | None => None,
    };
    let server = *server;
    let fetch = move |page: u64| {
        // A page number the server refuses is an error answer, as the service's would be.
        // A page number the server does not read gets its first page.
        let served = if reader.pages {
            page
        } else {
            server.first_page
        };
        let answer = server
            .page(served)
            .map(|items| FakePage {
                items: read_items(items),
                total_pages: count,
            })
            .ok_or_else(|| marketplace_client::Error::Paging {
                method: "oracle",
                after_page: page,
                reason: format!("the server refuses page {page}"),
            });
        async move { answer }
    };
    let stream = paging::items(paging::pages(walk, fetch));
    futures::executor::block_on(stream.collect_all()).ok()
}

// ---- the scratch workspace ----------------------------------------------------------------------

fn write_workspace(scratch: &Path, pairs: &[Pair], calls: &requests::Calls) {
    let mut members = vec!["decode".to_owned(), "meaning".to_owned()];
    members.extend(pairs.iter().map(|p| format!("callers/{}", p.name)));
    client_copy::write_workspace(scratch, "oracle-client", &members);
    // Each variant once (the compositions share their base).
    let mut variants: BTreeMap<String, Vec<GeneratedFile>> = BTreeMap::new();
    for pair in pairs {
        variants
            .entry(pair.base_variant.clone())
            .or_insert_with(|| pair.base_files.clone());
        variants
            .entry(pair.head_variant.clone())
            .or_insert_with(|| pair.head_files.clone());
    }
    let mut variants: Vec<(String, Vec<GeneratedFile>)> = variants.into_iter().collect();
    // One variant holds the OAuth service alone: its builder makes the probe binary's client
    // for the calls (each variant's builder is `variants::<variant>::client::builder`).
    let mut service = pairs
        .iter()
        .map(|pair| &pair.base)
        .find(|api| api.oauth.is_some())
        .expect("a pair with an OAuth service")
        .clone();
    (
        service.errors,
        service.enums,
        service.records,
        service.methods,
    ) = Default::default();
    variants.push(("service".to_owned(), generate(&service).unwrap()));
    client_copy::write_client(scratch, "oracle-client", &variants);
    // The query a request would send, for the request oracle: a method of the copy only.
    let request = scratch.join("client/src/request.rs");
    let mut text = std::fs::read_to_string(&request).unwrap();
    text.push_str(
        "\nimpl<M: DataMethod> Request<M> {\n    /// The query this request sends (the spec-diff oracle's copy only).\n    pub fn oracle_query(&self) -> Result<Vec<(String, String)>, String> {\n        self.method.query().map(|q| q.pairs().iter().map(|(n, v)| ((*n).to_owned(), v.clone())).collect()).map_err(|e| e.to_string())\n    }\n}\n",
    );
    client_copy::write(&request, &text);

    callers::write(scratch, pairs);
    meaning::write_probes(scratch, pairs, calls);
    answers::write_decoder(scratch, pairs);
}

fn build(scratch: &Path) -> client_copy::Built {
    let built = client_copy::build(scratch);
    assert!(
        !built.errors.contains_key("marketplace-client")
            && !built.errors.contains_key("decode")
            && !built.errors.contains_key("meaning"),
        "the variants, the decoder or the probe binary do not compile: {:#?}",
        built.errors
    );
    built
}

/// Writes `text` as a crate's `src/{file}` with a manifest of `dependencies`.
pub(crate) fn write_crate(dir: &Path, name: &str, dependencies: &[&str], file: &str, text: &str) {
    let mut manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition.workspace = true\npublish = false\n\n[dependencies]\nmarketplace-client.workspace = true\n"
    );
    for dependency in dependencies {
        let _ = writeln!(manifest, "{dependency}.workspace = true");
    }
    write(&dir.join("Cargo.toml"), &manifest);
    write(&dir.join("src").join(file), text);
}

/// The names of the items of `set` (for messages).
pub(crate) fn listed(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(", ")
}
