//! The probe binary (`meaning`): each old call made through the base crate (the request
//! oracle's calls) and through both crates (the meaning oracle's: each constructor with the
//! arguments 1, 2, 3, …, each setter, each bound of the old crate), and the base crate's
//! runtime against loopback servers (the runtime oracle's probes). It prints
//! `pair<TAB>method<TAB>side<TAB>probe<TAB>result` lines; a query as `name=value&…`.

use std::process::Command;

use super::*;
use marketplace_codegen::diff::runtime as runtime_model;
use marketplace_codegen::diff::rust_api::{Item, RustApi};
use marketplace_codegen::ir::{Param, ParamType};

/// The constructors the meaning oracle calls through both crates: each one the base and head
/// crates of a pair both have with the same argument types, all integers (so one call compiles
/// against both), as `(method, constructor, argument count)`.
pub(crate) fn same_shape_constructors(pair: &Pair) -> Vec<(String, String, usize)> {
    let (base, head) = (
        RustApi::from_files(&pair.base_files).unwrap(),
        RustApi::from_files(&pair.head_files).unwrap(),
    );
    let mut calls = Vec::new();
    for method in &pair.base.methods {
        for (key, item) in base.items.range(format!("Session::{}", method.rust_name)..) {
            let Some(function) = key
                .strip_prefix("Session::")
                .and_then(|k| k.strip_suffix("()"))
            else {
                break;
            };
            if !function.starts_with(&method.rust_name) {
                break;
            }
            let own = function == method.rust_name
                || function.starts_with(&format!("{}_by_", method.rust_name));
            let (Item::Method(old), Some(Item::Method(new))) = (item, head.items.get(key)) else {
                continue;
            };
            let types = |m: &marketplace_codegen::diff::rust_api::Method| {
                m.params
                    .iter()
                    .map(|(_, ty)| ty.clone())
                    .collect::<Vec<_>>()
            };
            let integers = types(old).iter().all(|ty| ty == "u64" || ty == "i64");
            if own && types(old) == types(new) && integers && !old.params.is_empty() {
                calls.push((method.name.clone(), function.to_owned(), old.params.len()));
            }
        }
    }
    calls
}

/// The setters a call of [`same_shape_constructors`] can set through both crates: those of
/// the same name and an integer type on both sides, `(setter, value)`, the value within the
/// old bounds.
pub(crate) fn setter_probes(pair: &Pair, method: &str) -> Vec<(String, i64)> {
    let (Some(old), Some(new)) = (
        pair.base.methods.iter().find(|m| m.name == method),
        pair.head.methods.iter().find(|m| m.name == method),
    ) else {
        return Vec::new();
    };
    let setter =
        |m: &Method, p: &Param| !p.required || m.at_least_one_of.iter().any(|a| *a == p.wire_name);
    old.params
        .iter()
        .filter(|p| setter(old, p) && p.ty != ParamType::Date)
        .filter(|p| {
            new.params
                .iter()
                .any(|q| q.rust_name == p.rust_name && q.ty == p.ty && setter(new, q))
        })
        .enumerate()
        .map(|(n, p)| {
            let value = p
                .min
                .unwrap_or(0)
                .max(if p.ty == ParamType::Id { 1 } else { 0 })
                + 7
                + n as i64;
            (
                p.rust_name.clone(),
                p.max.map_or(value, |max| value.min(max)),
            )
        })
        .collect()
}

/// The optional integer parameters a call of [`same_shape_constructors`] can set through the
/// same setter in both crates, each with the values at the base crate's bounds (its minimum and
/// its cap): `(wire name, setter, value)`.
pub(crate) fn bound_probes(pair: &Pair, method: &str) -> Vec<(String, String, i64)> {
    let (Some(old), Some(new)) = (
        pair.base.methods.iter().find(|m| m.name == method),
        pair.head.methods.iter().find(|m| m.name == method),
    ) else {
        return Vec::new();
    };
    let mut probes = Vec::new();
    for param in old
        .params
        .iter()
        .filter(|p| !p.required && p.ty != ParamType::Date)
    {
        let Some(counterpart) = new.params.iter().find(|p| {
            p.wire_name == param.wire_name && p.rust_name == param.rust_name && !p.required
        }) else {
            continue;
        };
        // One call compiles against both crates when the Rust types are the same.
        let rust = marketplace_codegen::rust_type::param_type;
        if rust(counterpart) != rust(param) {
            continue;
        }
        // Its lowest value (0 where it has no minimum and is not an ID) and its cap.
        let lowest = param.min.or((param.ty != ParamType::Id).then_some(0));
        for value in [lowest, param.max].into_iter().flatten() {
            probes.push((param.wire_name.clone(), param.rust_name.clone(), value));
        }
    }
    probes
}

pub(crate) fn write_probes(scratch: &Path, pairs: &[Pair], calls: &requests::Calls) {
    // One function a pair, called from `main` in turn: one huge function would cost rustc far
    // more than many small ones.
    let mut functions = String::new();
    let mut main_calls = String::new();
    for (index, pair) in pairs.iter().enumerate() {
        let mut out = String::new();
        let session = |variant: &str| {
            format!("marketplace_client::variants::{variant}::Session(session.clone())")
        };
        // The request oracle's calls, through the base crate.
        for (method, method_calls) in calls.get(&pair.name).into_iter().flatten() {
            for (index, call) in method_calls.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "    {{ let session = {}; println!(\"{{}}\\t{{}}\\tbase\\tquery {index}\\t{{}}\", {:?}, {method:?}, shown(({}).oracle_query())); }}",
                    session(&pair.base_variant),
                    pair.name,
                    call.rust
                );
            }
        }
        // The meaning oracle's calls, through both crates.
        for (method, function, arity) in same_shape_constructors(pair) {
            let args: Vec<String> = (1..=arity).map(|n| n.to_string()).collect();
            let setters = setter_probes(pair, &method);
            let bounds = bound_probes(pair, &method);
            for (side, variant) in [("base", &pair.base_variant), ("head", &pair.head_variant)] {
                let call = format!("{}.{function}({})", session(variant), args.join(", "));
                let _ = writeln!(
                    out,
                    "    println!(\"{{}}\\t{{}}\\t{side}\\tcall {function}\\t{{}}\", {:?}, {method:?}, shown(({call}).oracle_query()));",
                    pair.name
                );
                for (setter, value) in &setters {
                    let _ = writeln!(
                        out,
                        "    println!(\"{{}}\\t{{}}\\t{side}\\tsetter {setter}={value}\\t{{}}\", {:?}, {method:?}, shown(({call}.{setter}({value})).oracle_query()));",
                        pair.name
                    );
                }
                for (wire, setter, value) in &bounds {
                    let _ = writeln!(
                        out,
                        "    println!(\"{{}}\\t{{}}\\t{side}\\tbound {wire}={value}\\t{{}}\", {:?}, {method:?}, outcome(runtime.block_on({call}.{setter}({value}).send())));",
                        pair.name
                    );
                }
            }
        }
        if let (Some(_), Some(head)) = (&pair.base.oauth, &pair.head.oauth) {
            runtime_probes(&mut out, pair, head);
        }
        let _ = writeln!(
            functions,
            "fn probe_{index}(runtime: &tokio::runtime::Runtime, credentials: &marketplace_client::ConsumerCredentials, session: &marketplace_client::Session) {{\n{out}}}\n"
        );
        let _ = writeln!(
            main_calls,
            "    probe_{index}(&runtime, &credentials, &session);"
        );
    }
    let out = main_calls;
    write_binary(scratch, &functions, &out);
}

/// The probes of the base crate's runtime against loopback servers playing the head server.
fn runtime_probes(out: &mut String, pair: &Pair, head: &marketplace_codegen::ir::OAuth) {
    {
        let base = &pair.base_variant;
        // The base crate's clock correction on each code the head refuses a skewed clock with
        // or whose kind changed: a data call refused with that code by a server whose clock is
        // 2 h ahead; a second request is the crate correcting its clock and signing again.
        if let Some((_, function, arity)) = same_shape_constructors(pair).into_iter().next() {
            let mut codes: BTreeSet<String> = runtime_model::clock_codes(&pair.head)
                .map(str::to_owned)
                .collect();
            for old in &pair.base.errors {
                if let Some(new) = pair.head.errors.iter().find(|e| e.code == old.code) {
                    if old.kind != new.kind {
                        codes.insert(old.code.clone());
                    }
                }
            }
            let args: Vec<String> = (1..=arity).map(|n| n.to_string()).collect();
            for code in codes {
                let _ = writeln!(
                    out,
                    "    {{\n        let (port, requests) = refusing_server({code:?});\n        \
                     let client = marketplace_client::variants::{base}::client::builder(format!(\"http://127.0.0.1:{{port}}\"), credentials.clone()).retry(marketplace_client::RetryPolicy::none()).build().unwrap();\n        \
                     let session = marketplace_client::variants::{base}::Session(client.session(marketplace_client::oauth::AccessToken::new(\"token\", \"token-secret\", marketplace_client::jiff::Timestamp::now())));\n        \
                     let _ = runtime.block_on(session.{function}({args}).send());\n        \
                     println!(\"{name}\\t-\\tbase\\tclock-correction {code}\\t{{}}\", requests.load(std::sync::atomic::Ordering::SeqCst));\n    }}",
                    name = pair.name,
                    args = args.join(", "),
                );
            }
        }
        // The base crate's OAuth exchanges against a server that answers with the head spec's
        // names for each endpoint (a loopback server of the binary's own).
        let answer = |name: &str| {
            head.endpoints
                .iter()
                .find(|e| e.name == name)
                .map(|e| {
                    e.response
                        .iter()
                        .enumerate()
                        .map(|(i, key)| format!("{key}=value{i}"))
                        .collect::<Vec<_>>()
                        .join("&")
                })
                .unwrap_or_default()
        };
        let _ = writeln!(
            out,
            "    {{\n        let port = answer_server({request:?}, {access:?});\n        \
             let client = marketplace_client::variants::{base}::client::builder(format!(\"http://127.0.0.1:{{port}}\"), credentials.clone()).retry(marketplace_client::RetryPolicy::none()).allow_plain_http_oauth_on_loopback().build().unwrap();\n        \
             let exchange = runtime.block_on(async {{\n            \
             let request = client.request_token(None).await.map_err(|e| format!(\"request token: {{e}}\"))?;\n            \
             let verifier = marketplace_client::oauth::Verifier::new(\"verifier\").unwrap();\n            \
             client.access_token(&request, &verifier).await.map(|_| ()).map_err(|e| format!(\"access token: {{e}}\"))\n        }});\n        \
             println!(\"{name}\\t-\\tbase\\toauth-answers\\t{{}}\", exchange.err().unwrap_or_else(|| \"ok\".to_owned()).replace(['\\t', '\\n'], \" \"));\n    }}",
            request = answer("request_token"),
            access = answer("access_token"),
            name = pair.name,
        );
        // How long the base crate lets a token live, and whether it sends an OAuth request
        // over plain HTTP.
        let _ = writeln!(
            out,
            "    {{\n        let client = marketplace_client::variants::{base}::client::builder(\"http://127.0.0.1:9\", credentials.clone()).retry(marketplace_client::RetryPolicy::none()).build().unwrap();\n        \
             let granted = marketplace_client::jiff::Timestamp::now();\n        \
             let session = client.session(marketplace_client::oauth::AccessToken::new(\"token\", \"token-secret\", granted));\n        \
             println!(\"{name}\\t-\\tbase\\tlifetime\\t{{}}\", session.expires_at().duration_since(granted).as_secs());\n        \
             println!(\"{name}\\t-\\tbase\\tplain-http-oauth\\t{{}}\", plain_http(runtime.block_on(client.request_token(None))));\n    }}",
            name = pair.name,
        );
    }
}

fn write_binary(scratch: &Path, functions: &str, out: &str) {
    write_crate(
        &scratch.join("meaning"),
        "meaning",
        &["tokio"],
        "main.rs",
        &format!(
            r#"//! The spec-diff oracle's probes of the base and head crates of each pair.
#![allow(unused)]
use marketplace_client::jiff;

fn outcome<T>(result: Result<T, marketplace_client::Error>) -> &'static str {{
    match result {{
        Err(marketplace_client::Error::InvalidArgument {{ .. }}) => "refused",
        _ => "sent",
    }}
}}

/// A query as `name=value&…`, or why the crate refuses it.
fn shown(query: Result<Vec<(String, String)>, String>) -> String {{
    match query {{
        Ok(pairs) => pairs.iter().map(|(n, v)| format!("{{n}}={{v}}")).collect::<Vec<_>>().join("&"),
        Err(error) => format!("refused: {{}}", error.replace(['\t', '\n'], " ")),
    }}
}}

/// A loopback server that answers each request with what `respond` makes of its request
/// line (a whole HTTP response). Its port.
fn serve(respond: impl Fn(&str) -> String + Send + 'static) -> u16 {{
    use std::io::{{Read, Write}};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {{
        for stream in listener.incoming() {{
            let Ok(mut stream) = stream else {{ continue }};
            // The request's head, up to 64 KiB (the body, if any, is not read).
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && head.len() < 65_536 && stream.read(&mut byte).unwrap_or(0) == 1 {{
                head.push(byte[0]);
            }}
            let line = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_owned();
            let _ = stream.write_all(respond(&line).as_bytes());
        }}
    }});
    port
}}

/// A response of `status` with `headers` (each ending in CRLF) and `body`, closing the connection.
fn response(status: &str, headers: &str, body: &str) -> String {{
    format!("HTTP/1.1 {{status}}\r\n{{headers}}Content-Length: {{}}\r\nConnection: close\r\n\r\n{{body}}", body.len())
}}

/// A loopback server whose clock is 2 h ahead, refusing every request with `401` and the error
/// `code`. Its port, and how many requests it answered.
fn refusing_server(code: &'static str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {{
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = requests.clone();
    let port = serve(move |_| {{
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let ahead = marketplace_client::jiff::Timestamp::now() + marketplace_client::jiff::SignedDuration::from_hours(2);
        let date = ahead.strftime("%a, %d %b %Y %H:%M:%S GMT");
        let body = format!("{{{{\"api\":\"x\",\"apiVersion\":1,\"rcode\":0,\"error\":{{{{\"code\":\"{{code}}\",\"type\":\"auth\",\"message\":\"refused\"}}}}}}}}");
        response("401 Unauthorized", &format!("Date: {{date}}\r\nContent-Type: application/json\r\n"), &body)
    }});
    (port, requests)
}}

/// A loopback server that answers every request with `200` and a form body: `request` for
/// the request-token path, `access` for the access-token path. Its port.
fn answer_server(request: &'static str, access: &'static str) -> u16 {{
    serve(move |line| {{
        let body = if line.contains("AccessToken") {{ access }} else {{ request }};
        response("200 OK", "Content-Type: application/x-www-form-urlencoded\r\n", body)
    }})
}}

fn plain_http<T>(result: Result<T, marketplace_client::Error>) -> &'static str {{
    match result {{
        Err(marketplace_client::Error::Config {{ .. }}) => "refused",
        _ => "sent",
    }}
}}

fn main() {{
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let credentials = marketplace_client::ConsumerCredentials::new("key", "secret");
    let client = marketplace_client::variants::service::client::builder(
        "http://127.0.0.1:9",
        credentials.clone(),
    )
    .retry(marketplace_client::RetryPolicy::none())
    .build()
    .expect("a client");
    let token = marketplace_client::oauth::AccessToken::new("token", "token-secret", marketplace_client::jiff::Timestamp::now());
    let session = client.session(token);
{out}}}

{functions}
"#
        ),
    );
}

/// What the probe binary printed: run once, read by every oracle that uses it.
pub(crate) fn run_probes(built: &client_copy::Built) -> String {
    let binary = built
        .executables
        .get("meaning")
        .expect("the probe binary built");
    let output = Command::new(binary)
        .output()
        .expect("the probe binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the probe binary prints text")
}

/// One line of the probe binary (see [`write_probes`]).
pub(crate) struct Probe<'t> {
    pub pair: &'t str,
    /// The method, or `-` for a probe of the runtime.
    pub method: &'t str,
    pub side: &'t str,
    pub probe: &'t str,
    pub result: &'t str,
}

/// The lines of the probe binary's output.
pub(crate) fn probes(text: &str) -> impl Iterator<Item = Probe<'_>> {
    text.lines()
        .map(|line| match line.splitn(5, '\t').collect::<Vec<_>>()[..] {
            [pair, method, side, probe, result] => Probe {
                pair,
                method,
                side,
                probe,
                result,
            },
            _ => panic!("a line of the probe binary: {line}"),
        })
}

/// A query `name=value&…` as pairs.
pub(crate) fn query_pairs(text: &str) -> Vec<(String, String)> {
    if text.is_empty() || text.starts_with("refused") {
        return Vec::new();
    }
    text.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

/// Per pair, the old calls that mean something else through the head crate: a constructor
/// that sends its arguments as other parameters, a setter that sends its value as another of
/// the old crate's parameters, a value at the old bounds the head crate refuses before sending.
pub(crate) fn meaning_changes(probe_output: &str, pairs: &[Pair]) -> BTreeMap<String, Vec<String>> {
    type Key<'t> = (&'t str, &'t str, &'t str);
    let mut results: BTreeMap<(Key<'_>, &str), &str> = BTreeMap::new();
    for p in probes(probe_output) {
        if p.method != "-" && (p.side == "base" || p.side == "head") {
            results.insert(((p.pair, p.method, p.probe), p.side), p.result);
        }
    }
    let mut changed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in pairs {
        let Some(old_methods) = Some(&pair.base.methods) else {
            continue;
        };
        for ((key, side), base_result) in results.range(((pair.name.as_str(), "", ""), "")..) {
            let (name, method, probe) = *key;
            if name != pair.name {
                break;
            }
            if *side != "base" || probe.starts_with("query ") {
                continue;
            }
            let Some(head_result) = results.get(&(*key, "head")) else {
                continue;
            };
            let old = old_methods.iter().find(|m| m.name == method);
            let wires: BTreeSet<&str> = old
                .map(|m| m.params.iter().map(|p| p.wire_name.as_str()).collect())
                .unwrap_or_default();
            let what = if probe.starts_with("bound ") {
                (base_result != head_result).then(|| {
                    format!("{method} with {probe}: {base_result} by the base crate, {head_result} by the head crate")
                })
            } else if probe.starts_with("call ") {
                let (before, after) = (query_pairs(base_result), query_pairs(head_result));
                // An argument sent as another parameter the old crate knew.
                let moved = before.iter().any(|(wire, value)| {
                    after
                        .iter()
                        .any(|(w, v)| v == value && w != wire && wires.contains(w.as_str()))
                });
                moved.then(|| format!("{method}: {probe} sent {base_result}, now {head_result}"))
            } else {
                // A setter: where its value goes.
                let value = probe.rsplit('=').next().unwrap_or_default();
                let at = |query: &str| {
                    query_pairs(query)
                        .into_iter()
                        .filter(|(_, v)| v == value)
                        .map(|(w, _)| w)
                        .collect::<BTreeSet<_>>()
                };
                let (before, after) = (at(base_result), at(head_result));
                let moved = after
                    .iter()
                    .any(|w| !before.contains(w) && wires.contains(w.as_str()));
                moved.then(|| format!("{method}: {probe} sent {base_result}, now {head_result}"))
            };
            if let Some(what) = what {
                changed.entry(pair.name.clone()).or_default().push(what);
            }
        }
    }
    changed
}
