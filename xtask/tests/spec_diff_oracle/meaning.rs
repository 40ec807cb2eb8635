//! The probe binary (`meaning`) and the meaning oracle: each old call made through both crates,
//! what each request holds and whether each crate refuses a value at the base bounds; the
//! binary also runs the request and runtime probes.

use super::*;
use marketplace_codegen::diff::rust_api;
/// The calls the meaning oracle makes: each constructor the base and head crates of a pair both
/// have with the same argument types, all integers (so one call compiles against both), as
/// `(method, constructor, argument count)`.
pub(super) fn same_shape_constructors(pair: &Pair) -> Vec<(String, String, usize)> {
    let (base, head) = (
        RustApi::from_files(&pair.base_files).unwrap(),
        RustApi::from_files(&pair.head_files).unwrap(),
    );
    let mut calls = Vec::new();
    for method in &pair.base.methods {
        let key = format!("Session::{}()", method.rust_name);
        let (Some(Item::Method(old)), Some(Item::Method(new))) =
            (base.items.get(&key), head.items.get(&key))
        else {
            continue;
        };
        let types = |m: &rust_api::Method| {
            m.params
                .iter()
                .map(|(_, ty)| ty.clone())
                .collect::<Vec<_>>()
        };
        let integers = types(old).iter().all(|ty| ty == "u64" || ty == "i64");
        if types(old) == types(new) && integers && !old.params.is_empty() {
            calls.push((
                method.name.clone(),
                method.rust_name.clone(),
                old.params.len(),
            ));
        }
    }
    calls
}

/// The optional integer parameters a call of [`same_shape_constructors`] can set through the
/// same setter in both crates, each with the values at the base crate's bounds (its minimum and
/// its cap): `(wire name, setter, value)`.
pub(super) fn bound_probes(pair: &Pair, method: &str) -> Vec<(String, String, i64)> {
    let (Some(old), Some(new)) = (
        pair.base.methods.iter().find(|m| m.name == method),
        pair.head.methods.iter().find(|m| m.name == method),
    ) else {
        return Vec::new();
    };
    let integer = |p: &marketplace_codegen::ir::Param| {
        !matches!(p.ty, marketplace_codegen::ir::ParamType::Date)
    };
    let mut probes = Vec::new();
    for param in old.params.iter().filter(|p| !p.required && integer(p)) {
        let Some(counterpart) = new.params.iter().find(|p| {
            p.wire_name == param.wire_name && p.rust_name == param.rust_name && !p.required
        }) else {
            continue;
        };
        if counterpart.ty != param.ty {
            continue;
        }
        for value in [param.min, param.max].into_iter().flatten() {
            probes.push((param.wire_name.clone(), param.rust_name.clone(), value));
        }
    }
    probes
}

/// A binary that makes each call of [`same_shape_constructors`] through the base and the head
/// crate, with the arguments 1, 2, 3, …, and prints each request's parameters (`Debug`); then
/// sends each call with each [`bound_probes`] value set (to a closed port: what matters is
/// whether the crate refuses the value before sending). Lines:
/// `pair<TAB>method<TAB>side<TAB>probe<TAB>result`, the probe `call` (the result the request)
/// or `wire=value` (`refused` or `sent`).
pub(super) fn write_meaning(scratch: &Path, pairs: &[Pair]) {
    let mut calls = String::new();
    for pair in pairs {
        for (method, function, arity) in same_shape_constructors(pair) {
            let args: Vec<String> = (1..=arity).map(|n| n.to_string()).collect();
            let probes = bound_probes(pair, &method);
            // The request an old app makes with every parameter set: the constructor's
            // arguments, and each optional parameter at a value the base spec allows.
            if let Some(base_method) = pair.base.methods.iter().find(|m| m.name == method) {
                let setters: String = base_method
                    .params
                    .iter()
                    .filter(|p| {
                        !p.required
                            || base_method
                                .at_least_one_of
                                .iter()
                                .any(|a| *a == p.wire_name)
                    })
                    .map(|p| match p.ty {
                        marketplace_codegen::ir::ParamType::Date => {
                            format!(
                                ".{}(marketplace_client::jiff::civil::date(2026, 1, 2))",
                                p.rust_name
                            )
                        }
                        _ => format!(".{}({})", p.rust_name, p.min.unwrap_or(1)),
                    })
                    .collect();
                let _ = writeln!(
                    calls,
                    "    println!(\"{{}}\\t{{}}\\tbase\\tfull\\t{{:?}}\", {name:?}, {method:?}, \
                     marketplace_client::variants::{ident}_base::Session(session.clone()).{function}({args}){setters});",
                    name = pair.name,
                    ident = pair.ident,
                    args = args.join(", ")
                );
            }
            for side in ["base", "head"] {
                let call = format!(
                    "marketplace_client::variants::{}_{side}::Session(session.clone()).{function}({})",
                    pair.ident,
                    args.join(", ")
                );
                let _ = writeln!(
                    calls,
                    "    println!(\"{{}}\\t{{}}\\t{{}}\\tcall\\t{{:?}}\", {name:?}, {method:?}, {side:?}, {call});",
                    name = pair.name,
                );
                for (wire, setter, value) in &probes {
                    let _ = writeln!(
                        calls,
                        "    println!(\"{{}}\\t{{}}\\t{{}}\\t{{}}\\t{{}}\", {name:?}, {method:?}, {side:?}, \"{wire}={value}\", outcome(runtime.block_on({call}.{setter}({value}).send())));",
                        name = pair.name,
                    );
                }
            }
        }
    }
    // The base crate's clock correction on each error code whose kind differs between the
    // specs: a data call refused with that code by a server whose clock is 2 h ahead; a
    // second request is the crate correcting its clock and signing again.
    for pair in pairs.iter().filter(|p| p.base.oauth.is_some()) {
        let Some((_, function, arity)) = same_shape_constructors(pair).into_iter().next() else {
            continue;
        };
        for old in &pair.base.errors {
            let Some(new) = pair.head.errors.iter().find(|e| e.code == old.code) else {
                continue;
            };
            if old.kind == new.kind {
                continue;
            }
            let args: Vec<String> = (1..=arity).map(|n| n.to_string()).collect();
            let _ = writeln!(
                calls,
                "    {{\n        let (port, requests) = refusing_server({code:?});\n        \
                 let client = marketplace_client::variants::{ident}_base::client::builder(format!(\"http://127.0.0.1:{{port}}\"), credentials.clone()).retry(marketplace_client::RetryPolicy::none()).build().unwrap();\n        \
                 let session = marketplace_client::variants::{ident}_base::Session(client.session(marketplace_client::oauth::AccessToken::new(\"token\", \"token-secret\", marketplace_client::jiff::Timestamp::now())));\n        \
                 let _ = runtime.block_on(session.{function}({args}).send());\n        \
                 println!(\"{name}\\t-\\tbase\\tclock-correction {code}\\t{{}}\", requests.load(std::sync::atomic::Ordering::SeqCst));\n    }}",
                code = old.code,
                ident = pair.ident,
                name = pair.name,
                args = args.join(", "),
            );
        }
    }

    // The base crate's OAuth exchanges against a server that answers with the head spec's
    // names for each endpoint (a loopback server of the binary's own).
    for pair in pairs {
        let (Some(_), Some(head)) = (&pair.base.oauth, &pair.head.oauth) else {
            continue;
        };
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
            calls,
            "    {{\n        let port = answer_server({request:?}, {access:?});\n        \
             let client = marketplace_client::variants::{ident}_base::client::builder(format!(\"http://127.0.0.1:{{port}}\"), credentials.clone()).retry(marketplace_client::RetryPolicy::none()).allow_plain_http_oauth_on_loopback().build().unwrap();\n        \
             let exchange = runtime.block_on(async {{\n            \
             let request = client.request_token(None).await.map_err(|e| format!(\"request token: {{e}}\"))?;\n            \
             let verifier = marketplace_client::oauth::Verifier::new(\"verifier\").unwrap();\n            \
             client.access_token(&request, &verifier).await.map(|_| ()).map_err(|e| format!(\"access token: {{e}}\"))\n        }});\n        \
             println!(\"{name}\\t-\\tbase\\toauth-answers\\t{{}}\", exchange.err().unwrap_or_else(|| \"ok\".to_owned()).replace(['\\t', '\\n'], \" \"));\n    }}",
            request = answer("request_token"),
            access = answer("access_token"),
            ident = pair.ident,
            name = pair.name,
        );
    }

    // The runtime of each base crate with an OAuth service: how long it takes a token to live,
    // and whether it sends an OAuth request over plain HTTP.
    for pair in pairs.iter().filter(|p| p.base.oauth.is_some()) {
        let _ = writeln!(
            calls,
            "    {{\n        let client = marketplace_client::variants::{ident}_base::client::builder(\"http://127.0.0.1:9\", credentials.clone()).retry(marketplace_client::RetryPolicy::none()).build().unwrap();\n        \
             let granted = marketplace_client::jiff::Timestamp::now();\n        \
             let session = client.session(marketplace_client::oauth::AccessToken::new(\"token\", \"token-secret\", granted));\n        \
             println!(\"{name}\\t-\\tbase\\tlifetime\\t{{}}\", session.expires_at().duration_since(granted).as_secs());\n        \
             println!(\"{name}\\t-\\tbase\\tplain-http-oauth\\t{{}}\", plain_http(runtime.block_on(client.request_token(None))));\n    }}",
            ident = pair.ident,
            name = pair.name,
        );
    }
    write(
        &scratch.join("meaning/Cargo.toml"),
        "[package]\nname = \"meaning\"\nversion = \"0.0.0\"\nedition.workspace = true\npublish = false\n\n[dependencies]\nmarketplace-client.workspace = true\ntokio.workspace = true\n",
    );
    write(
        &scratch.join("meaning/src/main.rs"),
        &format!(
            r#"//! Each old call, made through the base and the head crate: what each request holds, and
//! whether each crate refuses a value at the base crate's bounds before sending.
#![allow(unused)]

fn outcome<T>(result: Result<T, marketplace_client::Error>) -> &'static str {{
    match result {{
        Err(marketplace_client::Error::InvalidArgument {{ .. }}) => "refused",
        _ => "sent",
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
{calls}}}
"#
        ),
    );
}

/// The parameters a request holds, by wire name: the `Debug` of its method's fields (`name:
/// value` pairs of the generated struct), each field named by the Rust name of a parameter of
/// `method`. Unset parameters (`None`) are left out.
pub(super) fn sent(request: &str, method: &Method) -> BTreeMap<String, String> {
    let wire_of: BTreeMap<&str, &str> = method
        .params
        .iter()
        .map(|p| (p.rust_name.as_str(), p.wire_name.as_str()))
        .collect();
    // The request's `method: GetX { … }` field (a struct name follows), not a `method: "…"`
    // of the session's service.
    let Some(start) = request
        .match_indices("method: ")
        .map(|(at, _)| at)
        .find(|&at| request[at + "method: ".len()..].starts_with(|c: char| c.is_ascii_uppercase()))
    else {
        return BTreeMap::new();
    };
    let body = &request[start..];
    let (Some(open), Some(close)) = (body.find('{'), body.find('}')) else {
        return BTreeMap::new();
    };
    body[open + 1..close]
        .split(',')
        .filter_map(|pair| pair.split_once(':'))
        .filter_map(|(name, value)| {
            let (name, value) = (name.trim(), value.trim());
            let wire = wire_of.get(name)?;
            (value != "None").then(|| {
                (
                    (*wire).to_owned(),
                    value
                        .trim_start_matches("Some(")
                        .trim_end_matches(')')
                        .to_owned(),
                )
            })
        })
        .collect()
}

/// What the probe binary printed: run once, read by every oracle that uses it.
pub(super) fn run_probes(built: &client_copy::Built) -> String {
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

/// One line of the probe binary (see [`write_meaning`]).
pub(super) struct Probe<'t> {
    pub pair: &'t str,
    /// The method, or `-` for a probe of the runtime.
    pub method: &'t str,
    pub side: &'t str,
    pub probe: &'t str,
    pub result: &'t str,
}

/// The lines of the probe binary's output.
pub(super) fn probes(text: &str) -> impl Iterator<Item = Probe<'_>> {
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

/// Per pair, the old calls that send something else through the head crate.
pub(super) fn meaning_changes<'p>(
    probe_output: &str,
    pairs: &'p [Pair],
) -> BTreeMap<&'p str, Vec<String>> {
    // By (pair, method, side): the request of the call, and each bound probe's outcome.
    type Call<'t> = (&'t str, &'t str, &'t str);
    let mut requests: BTreeMap<Call<'_>, &str> = BTreeMap::new();
    let mut bounds: BTreeMap<Call<'_>, Vec<(&str, &str)>> = BTreeMap::new();
    for Probe {
        pair,
        method,
        side,
        probe,
        result,
    } in probes(probe_output)
    {
        if method == "-" || probe == "full" {
            continue;
        }
        if probe == "call" {
            requests.insert((pair, method, side), result);
        } else {
            bounds
                .entry((pair, method, side))
                .or_default()
                .push((probe, result));
        }
    }
    let mut changed: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for pair in pairs {
        for (method, function, _) in same_shape_constructors(pair) {
            let key = |side| (pair.name.as_str(), method.as_str(), side);
            let (Some(base_request), Some(head_request)) =
                (requests.get(&key("base")), requests.get(&key("head")))
            else {
                panic!("{}: {method} was not called through both crates", pair.name);
            };
            let (Some(old), Some(new)) = (
                pair.base.methods.iter().find(|m| m.name == method),
                pair.head.methods.iter().find(|m| m.name == method),
            ) else {
                continue;
            };
            let (before, after) = (sent(base_request, old), sent(head_request, new));
            if before != after {
                changed
                    .entry(pair.name.as_str())
                    .or_default()
                    .push(format!("{function}(..) sent {before:?}, now {after:?}"));
            }
            let (base_bounds, head_bounds) = (
                bounds.get(&key("base")).cloned().unwrap_or_default(),
                bounds.get(&key("head")).cloned().unwrap_or_default(),
            );
            for ((probe, before), (_, after)) in base_bounds.iter().zip(&head_bounds) {
                if before != after {
                    changed.entry(pair.name.as_str()).or_default().push(format!(
                        "{function}(..) with {probe}: {before} by the base crate, {after} by the head crate"
                    ));
                }
            }
        }
    }
    changed
}
