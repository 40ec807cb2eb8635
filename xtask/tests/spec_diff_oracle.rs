//! The spec-diff verdicts against what really happens, for every fixture pair in
//! `spec-diff/<case>/`:
//! - **Rust**: a caller of every public item of the base crate (each type, field, variant,
//!   constant, method, setter and stream, each trait impl), generated from the base crate's
//!   items, is compiled against the head crate. It fails to compile exactly when the tool says
//!   the pair breaks the Rust API, or when the meaning check below finds an old call that
//!   sends something else.
//! - **Meaning**: each constructor the base and head crates share with the same integer
//!   arguments is called through both with the arguments 1, 2, 3, …, and the parameters each
//!   request holds are compared by wire name: a call that still compiles but sends its values
//!   under other names (two required parameters that swapped places) is semver-major. Each
//!   call is then sent (to a closed port) with each optional integer parameter at the base
//!   crate's minimum and cap: a value the head crate refuses before sending, where the base
//!   crate sent it, is semver-major too.
//! - **Wire**: every response document the head spec lets the server send (each declared
//!   encoding of each field, absent, `null`, `0`, each enum value) is decoded with the base
//!   crate's real types, and every base document with the head types. Each decode agrees with
//!   the wire model's prediction, and some head document fails exactly when the tool says a
//!   response change breaks.
//! - **Paging**: the runtime's own page stream (`marketplace_client::paging`), walked as the
//!   base crate walks it against pages served by the head spec's rules, gets every item exactly
//!   when the tool says no paging change breaks, starting where the base crate starts.
//!
//! - **Requests**: the base crate's request with every parameter set (each optional one at its
//!   base minimum, else 1; dates as a day), observed from the base crate, is judged by the head
//!   spec's rules for a server (required and `at_least_one_of` parameters sent, no parameter
//!   it does not know, each value of its type and not below its minimum): something refused
//!   or ignored exactly when the tool says a request change breaks. Pairs whose changed
//!   method is not called this way (removed or renamed methods, constructors whose arguments
//!   change, the data path) are judged by the compile oracle only.
//! - **Runtime**: for pairs whose specs both have an OAuth service, the base crate's own
//!   runtime is observed (how long `Session::expires_at` lets a token live; whether
//!   `Client::request_token` goes out over plain HTTP; whether its request-token and
//!   access-token exchange succeeds against a loopback server answering with the head's names)
//!   against the head server: the base crate breaks exactly when the tool says a
//!   token-lifetime, HTTPS or OAuth-answer change breaks.
//!
//!   Each error code whose kind changed is sent by a server 2 h ahead refusing a data call with
//!   it: the base crate corrects its clock (a second request) or not, and breaks when the head
//!   calls the code `authentication` and it does not.
//!
//! Both crates of every pair are generated into one scratch workspace under
//! `CARGO_TARGET_TMPDIR` (`client_copy`): one copy of the client crate's runtime holding every variant as a module
//! (each with its own `Session` type, which its generated `impl Session` blocks extend), one
//! small caller crate per pair (so a pair's errors cannot hide another's, and
//! `#[non_exhaustive]` applies), and one binary that decodes samples with any variant's types.
//! One `cargo build` builds them all against the workspace's target directory, so dependencies
//! come from the build cache.
//!
//! The meaning, request and runtime oracles, and the probe binary they read, are modules of
//! their own (`spec_diff_oracle/`); this file holds the pairs, the scratch workspace, the
//! compile, decode and paging checks, and the test that runs them all.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use marketplace_codegen::diff::paging::{self as paging_model, Server};
use marketplace_codegen::diff::rust_api::{Item, RustApi};
use marketplace_codegen::diff::wire::{self, Sample};
mod client_copy;
mod fixture_pairs;
#[path = "spec_diff_oracle/meaning.rs"]
mod meaning;
#[path = "spec_diff_oracle/requests.rs"]
mod requests;
#[path = "spec_diff_oracle/runtime.rs"]
mod runtime;

use meaning::{meaning_changes, run_probes, write_meaning};
use requests::{full_requests, request_refusals};
use runtime::runtime_breaks;

use client_copy::write;

use marketplace_codegen::diff::{self, Change, Impact, Surface};
use marketplace_codegen::ir::{Api, BeyondLast, Method};
use marketplace_codegen::{GeneratedFile, generate};

/// One fixture pair, resolved and generated.
struct Pair {
    name: String,
    /// A Rust identifier for the pair.
    ident: String,
    base: Api,
    head: Api,
    base_files: Vec<GeneratedFile>,
    head_files: Vec<GeneratedFile>,
    changes: Vec<Change>,
}

fn pairs() -> Vec<Pair> {
    fixture_pairs::names()
        .into_iter()
        .map(|name| {
            let (base, head, changes) = fixture_pairs::load(&name);
            Pair {
                ident: name.replace('-', "_"),
                base_files: generate(&base).unwrap(),
                head_files: generate(&head).unwrap(),
                name,
                base,
                head,
                changes,
            }
        })
        .collect()
}

fn breaks(pair: &Pair, surface: Option<Surface>, side: fn(&Change) -> Impact) -> bool {
    pair.changes
        .iter()
        .any(|c| side(c) == Impact::Breaking && surface.is_none_or(|s| c.surface == s))
}

#[test]
fn every_verdict_agrees_with_the_compiler_the_decoders_and_the_page_stream() {
    let pairs = pairs();
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("spec-diff-oracle");
    client_copy::remove_all(&scratch);
    write_workspace(&scratch, &pairs);
    let built = build(&scratch);
    let mut failures = Vec::new();

    // Rust: the tool says breaking exactly when the base crate's callers do not compile
    // against the head crate, or compile and send something else (a call of the same
    // constructor, run through both crates, sends other values under some wire name).
    let probe_output = run_probes(&built);
    let meaning = meaning_changes(&probe_output, &pairs);
    for pair in &pairs {
        let errors = built.errors.get(&format!("caller-{}", pair.name));
        let changed = meaning.get(pair.name.as_str());
        let tool = breaks(pair, None, |c| c.rust);
        if tool != (errors.is_some() || changed.is_some()) {
            let oracle = match (errors, changed) {
                (Some(e), _) => format!("they do not compile:\n{}", e.join("\n")),
                (None, Some(calls)) => format!(
                    "they compile, and these calls send something else: {}",
                    calls.join("; ")
                ),
                (None, None) => {
                    "the base crate's callers compile against the head crate and every old \
                     call sends what it sent"
                        .to_owned()
                }
            };
            failures.push(format!(
                "{} (Rust): the tool says {}, the oracle says {oracle}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
            ));
        }
    }

    // Runtime: the base crate's own token expiry and plain-HTTP check, against the head
    // server's lifetime and HTTPS rule, break exactly when the tool says these changes break.
    let runtime = runtime_breaks(&probe_output, &pairs);
    for pair in pairs
        .iter()
        .filter(|p| p.base.oauth.is_some() && p.head.oauth.is_some())
    {
        let judged = |c: &&Change| {
            c.rule == diff::rule::ERROR_CODE_KIND_CHANGED
                || c.rule == diff::rule::SERVICE_CHANGED
                    && (["oauth.token_lifetime_seconds", "oauth.https_required"]
                        .contains(&c.subject.as_str())
                        || c.message.contains(" answer: "))
        };
        let tool = pair
            .changes
            .iter()
            .filter(judged)
            .any(|c| c.wire == Impact::Breaking);
        let oracle = runtime.get(pair.name.as_str());
        if tool != oracle.is_some() {
            failures.push(format!(
                "{} (runtime): the tool says {}, the base crate's runtime {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                oracle.map_or("keeps working with the head server".to_owned(), |why| why
                    .clone()),
            ));
        }
    }

    // Requests: what a server following the head spec makes of the base crate's requests with
    // every parameter set: something refused or ignored exactly when the tool says a request
    // change breaks (pairs whose changed methods the oracle calls).
    let full = full_requests(&probe_output);
    for pair in &pairs {
        let Ok(refusals) = request_refusals(pair, &full) else {
            continue;
        };
        let tool = breaks(pair, Some(Surface::Request), |c| c.wire);
        let refused = !refusals.is_empty();
        if tool != refused {
            failures.push(format!(
                "{} (requests): the tool says {}, the head server {}",
                pair.name,
                if tool { "breaking" } else { "non-breaking" },
                if refusals.is_empty() {
                    "takes every request of the base crate as meant".to_owned()
                } else {
                    refusals.join("; ")
                }
            ));
        }
    }

    // Wire: every sample decodes as the model predicts; a head sample fails exactly when the
    // tool says a response change breaks.
    let decoder = built
        .executables
        .get("decode")
        .expect("the decoder binary built");
    let mut requests = Vec::new();
    for pair in &pairs {
        for (direction, from, from_ident, to, to_ident) in [
            (
                "head samples, base types",
                &pair.head,
                "head",
                &pair.base,
                "base",
            ),
            (
                "base samples, head types",
                &pair.base,
                "base",
                &pair.head,
                "head",
            ),
        ] {
            let _ = from_ident;
            for method in &from.methods {
                let Some(counterpart) = counterpart(method, to) else {
                    continue;
                };
                let Some(record) = to.records.iter().find(|r| r.name == counterpart.response)
                else {
                    continue;
                };
                for sample in wire::samples(from, method) {
                    let predicted = wire::record_accepts(to, record, &sample.data);
                    requests.push(Decode {
                        pair: &pair.name,
                        direction,
                        forward: to_ident == "base",
                        variant: format!("{}_{to_ident}", pair.ident),
                        ty: record.name.clone(),
                        method: method.name.clone(),
                        sample,
                        predicted,
                    });
                }
            }
        }
    }
    let observed = decode_all(decoder, &requests);
    let mut forward_failures: BTreeMap<&str, usize> = BTreeMap::new();
    for (request, result) in requests.iter().zip(&observed) {
        if result.is_err() && request.forward {
            *forward_failures.entry(request.pair).or_default() += 1;
        }
        if result.is_ok() != request.predicted {
            failures.push(format!(
                "{} (wire, {}): {} {} `{}`: the model says {}, the decoder says {}\n  {}",
                request.pair,
                request.direction,
                request.method,
                request.ty,
                request.sample.what,
                if request.predicted {
                    "accepted"
                } else {
                    "refused"
                },
                match result {
                    Ok(()) => "accepted".to_owned(),
                    Err(e) => format!("refused: {e}"),
                },
                request.sample.data.to_text(),
            ));
        }
    }
    for pair in &pairs {
        let tool = breaks(pair, Some(Surface::Response), |c| c.wire);
        let oracle = forward_failures.contains_key(pair.name.as_str());
        if tool != oracle {
            failures.push(format!(
                "{} (wire): the tool says a response change {}, yet {} head samples fail to decode with the base types",
                pair.name,
                if tool { "breaks" } else { "breaks nothing" },
                forward_failures.get(pair.name.as_str()).unwrap_or(&0),
            ));
        }
    }

    // Paging: the runtime's stream, walked as the base crate walks it, against the head's pages.
    for pair in &pairs {
        let mut oracle_breaks = false;
        for old in pair.base.methods.iter().filter(|m| m.paging.is_some()) {
            let Some(new) = counterpart(old, &pair.head) else {
                continue;
            };
            let requested = paging_model::requested_page_size(old);
            for items in 0..=3 * requested {
                let server = Server::of(new, items, requested);
                let real = runtime_walk(old, &server);
                let model = paging_model::walk(old, &server, requested);
                if real != model {
                    failures.push(format!(
                        "{} (paging, {} items): the model's walk gives {model:?}, the runtime's {real:?}",
                        pair.name, items
                    ));
                }
                oracle_breaks |= real != Some((0..items).collect());
            }
        }
        let tool = breaks(pair, Some(Surface::Paging), |c| c.wire);
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
    assert!(
        failures.is_empty(),
        "{} disagreements:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The method of `api` that answers for `method`: the same name, else the same response.
fn counterpart<'a>(method: &Method, api: &'a Api) -> Option<&'a Method> {
    api.methods
        .iter()
        .find(|m| m.name == method.name)
        .or_else(|| api.methods.iter().find(|m| m.response == method.response))
}

// ---- the paging oracle ------------------------------------------------------------------------

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

/// What the runtime's stream yields when the base crate's method walks `server`: its page
/// count is read when the base spec declares one, by the base rule.
fn runtime_walk(base: &Method, server: &Server) -> Option<Vec<u64>> {
    use marketplace_client::paging;
    let spec = base.paging.as_ref().unwrap();
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
    let reads_count = spec.total_pages.is_some();
    let server = *server;
    let fetch = move |page: u64| {
        // A page number the server refuses is an error answer, as the service's would be.
        let answer = server
            .page(page)
            .map(|items| FakePage {
                items,
                total_pages: if reads_count {
                    server.total_pages()
                } else {
                    None
                },
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

fn write_workspace(scratch: &Path, pairs: &[Pair]) {
    let mut members = vec!["decode".to_owned(), "meaning".to_owned()];
    members.extend(pairs.iter().map(|p| format!("callers/{}", p.name)));
    client_copy::write_workspace(scratch, "oracle-client", &members);
    let mut variants: Vec<(String, Vec<GeneratedFile>)> = pairs
        .iter()
        .flat_map(|pair| {
            [("base", &pair.base_files), ("head", &pair.head_files)]
                .map(|(side, files)| (format!("{}_{side}", pair.ident), files.clone()))
        })
        .collect();
    // One variant holds the OAuth service alone: its builder makes the meaning oracle's client
    // for the calls (each variant's builder is `variants::<variant>::client::builder`).
    let mut service = pairs
        .iter()
        .map(|pair| &pair.base)
        .find(|api| api.oauth.is_some())
        .expect("a fixture pair with an OAuth service")
        .clone();
    (
        service.errors,
        service.enums,
        service.records,
        service.methods,
    ) = Default::default();
    variants.push(("service".to_owned(), generate(&service).unwrap()));
    client_copy::write_client(scratch, "oracle-client", &variants);

    // One caller crate per pair: the base crate's items, used through the head crate.
    for pair in pairs {
        let items = RustApi::from_files(&pair.base_files).unwrap();
        let dir = scratch.join("callers").join(&pair.name);
        write(
            &dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"caller-{}\"\nversion = \"0.0.0\"\nedition.workspace = true\npublish = false\n\n[dependencies]\nmarketplace-client.workspace = true\nserde.workspace = true\nfutures.workspace = true\n",
                pair.name
            ),
        );
        write(&dir.join("src/lib.rs"), &caller(&pair.ident, &items));
    }

    write_meaning(scratch, pairs);

    // The decoder: any variant's response types, by name, on samples read from stdin.
    let mut arms = String::new();
    for pair in pairs {
        for (side, api) in [("base", &pair.base), ("head", &pair.head)] {
            let module = format!("{}_{side}", pair.ident);
            for method in &api.methods {
                let _ = writeln!(
                    arms,
                    "        ({module:?}, {ty:?}) => decode::<marketplace_client::variants::{module}::{ty}>(json),",
                    ty = method.response.as_str()
                );
            }
        }
    }
    write(
        &scratch.join("decode/Cargo.toml"),
        "[package]\nname = \"decode\"\nversion = \"0.0.0\"\nedition.workspace = true\npublish = false\n\n[dependencies]\nmarketplace-client.workspace = true\nserde.workspace = true\nserde_json.workspace = true\n",
    );
    write(
        &scratch.join("decode/src/main.rs"),
        &format!(
            r#"//! Reads `variant<TAB>type<TAB>json` lines; answers `ok` or `error: …` for each.
use std::io::BufRead;

fn decode<T: serde::de::DeserializeOwned>(json: &str) -> Result<(), String> {{
    serde_json::from_str::<T>(json).map(|_| ()).map_err(|e| e.to_string())
}}

fn main() {{
    for line in std::io::stdin().lock().lines() {{
        let line = line.unwrap();
        let mut parts = line.splitn(3, '\t');
        let (variant, ty, json) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let result = match (variant, ty) {{
{arms}        _ => Err(format!("no type {{ty}} in {{variant}}")),
        }};
        match result {{
            Ok(()) => println!("ok"),
            Err(error) => println!("error: {{}}", error.replace('\n', " ")),
        }}
    }}
}}
"#
        ),
    );
}

/// Source that uses every public item of the base crate, written against the head crate.
fn caller(ident: &str, items: &RustApi) -> String {
    let mut out = format!(
        "//! Every public item of the base crate of this pair, used through the head crate.\n#![allow(unused, unreachable_patterns, clippy::all)]\nuse marketplace_client::variants::{ident}_head::*;\nuse marketplace_client::{{CallOptions, ClientBuilder, ConsumerCredentials, DayOrInstant, Decimal, Error, OAuthService, RawErrorCode, Request, Service, paging, wire}};\nuse marketplace_client::request::{{DataMethod, PagedMethod}};\nuse marketplace_client::jiff::{{Timestamp, civil::Date}};\nuse futures::Stream;\n\n"
    );
    let fix = |text: &str, self_ty: &str| {
        text.replace("crate ::", "marketplace_client ::")
            .split(' ')
            .map(|word| if word == "Self" { self_ty } else { word })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (index, (key, item)) in items.items.iter().enumerate() {
        let _ = writeln!(out, "// {key}");
        match item {
            Item::Field { ty } => {
                let (owner, field) = key.split_once('.').unwrap();
                let _ = writeln!(
                    out,
                    "fn item_{index}(value: &{owner}) -> &{} {{ &value.{field} }}",
                    fix(ty, owner)
                );
            }
            Item::Enum { non_exhaustive } => {
                let mut arms: Vec<String> = items
                    .items
                    .iter()
                    .filter_map(|(k, i)| match i {
                        Item::Variant { fields } => k.strip_prefix(&format!("{key}::")).map(|v| {
                            format!(
                                "{key}::{v}{} => {{}}",
                                if fields.is_empty() { "" } else { "(..)" }
                            )
                        }),
                        _ => None,
                    })
                    .collect();
                if *non_exhaustive {
                    arms.push("_ => {}".to_owned());
                }
                let _ = writeln!(
                    out,
                    "fn item_{index}(value: &{key}) {{ match value {{ {} }} }}",
                    arms.join(", ")
                );
            }
            Item::Variant { fields } if fields.is_empty() => {
                let owner = key.split("::").next().unwrap();
                let _ = writeln!(out, "fn item_{index}() -> {owner} {{ {key} }}");
            }
            Item::Const { ty } => {
                let _ = writeln!(out, "const ITEM_{index}: {} = {key};", fix(ty, ""));
            }
            Item::Method(method) => {
                let (owner, name) = key.trim_end_matches("()").split_once("::").unwrap();
                let mut params: Vec<String> = Vec::new();
                let call_args: Vec<String> = method.params.iter().map(|(n, _)| n.clone()).collect();
                let call = match method.receiver.as_deref() {
                    Some(receiver) => {
                        let by_ref = receiver.starts_with('&');
                        params.push(format!(
                            "receiver: {}{owner}",
                            if by_ref { "&" } else { "" }
                        ));
                        format!("receiver.{name}({})", call_args.join(", "))
                    }
                    // The OAuth service's builder is the variant's `client::builder` here
                    // (`client_copy`: one `Client` is shared by every variant).
                    None if owner == "Client" => {
                        format!("client::{name}({})", call_args.join(", "))
                    }
                    None => format!("{owner}::{name}({})", call_args.join(", ")),
                };
                params.extend(
                    method
                        .params
                        .iter()
                        .map(|(n, t)| format!("{n}: {}", fix(t, owner))),
                );
                let output = if method.output.is_empty() {
                    String::new()
                } else {
                    format!(" -> {}", fix(&method.output, owner))
                };
                let (prefix, suffix) = if method.is_async {
                    ("async ", ".await")
                } else {
                    ("", "")
                };
                let _ = writeln!(
                    out,
                    "{prefix}fn item_{index}({}){output} {{ {call}{suffix} }}",
                    params.join(", ")
                );
            }
            Item::TraitImpl { associated } => {
                let (name, ty) = key.trim_start_matches("impl ").split_once(" for ").unwrap();
                let bound = match name {
                    "Clone" | "Copy" | "Default" | "PartialEq" | "Eq" | "PartialOrd" | "Ord" => {
                        name.to_owned()
                    }
                    "Hash" => "std::hash::Hash".to_owned(),
                    "Debug" | "Display" => format!("std::fmt::{name}"),
                    "Serialize" => "serde::Serialize".to_owned(),
                    "Deserialize" => "for<'de> serde::Deserialize<'de>".to_owned(),
                    "Page" | "DataMethod" | "PagedMethod" => {
                        let path = match name {
                            "Page" => "paging::Page",
                            other => other,
                        };
                        let bindings = associated
                            .replace("type ", "")
                            .replace(" ;", "")
                            .replace(';', "");
                        if bindings.trim().is_empty() {
                            path.to_owned()
                        } else {
                            format!("{path}<{}>", bindings.trim())
                        }
                    }
                    "WireEnum" => "wire::WireEnum".to_owned(),
                    _ => continue,
                };
                let _ = writeln!(
                    out,
                    "fn item_{index}() {{ fn bound<T: {bound}>() {{}} bound::<{ty}>(); }}"
                );
            }
            Item::Struct { .. } | Item::Variant { .. } => {}
        }
    }
    out
}

// ---- building and decoding ------------------------------------------------------------------

fn build(scratch: &Path) -> client_copy::Built {
    let built = client_copy::build(scratch);
    assert!(
        !built.errors.contains_key("marketplace-client")
            && !built.errors.contains_key("decode")
            && !built.errors.contains_key("meaning"),
        "the variants, the decoder or the meaning binary do not compile: {:#?}",
        built.errors
    );
    built
}

struct Decode<'a> {
    pair: &'a str,
    direction: &'static str,
    /// Head samples decoded with base types (what the wire verdict is about).
    forward: bool,
    variant: String,
    ty: String,
    method: String,
    sample: Sample,
    predicted: bool,
}

fn decode_all(decoder: &Path, requests: &[Decode<'_>]) -> Vec<Result<(), String>> {
    use std::io::Write;
    let mut input = String::new();
    for request in requests {
        let _ = writeln!(
            input,
            "{}\t{}\t{}",
            request.variant,
            request.ty,
            request.sample.data.to_text()
        );
    }
    let mut child = Command::new(decoder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the decoder runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let answers: Vec<Result<(), String>> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| match line.strip_prefix("error: ") {
            Some(error) => Err(error.to_owned()),
            None => Ok(()),
        })
        .collect();
    assert_eq!(answers.len(), requests.len(), "one answer per sample");
    answers
}
