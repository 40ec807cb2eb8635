//! The client takes nothing from its process's environment (SECURITY.md, Routes: "the
//! environment is not the app's configuration (any parent process sets it)"), enforced on the
//! source of `generated-client/src`, where no caller can reach around it:
//!
//! - no file names `std::env` (an environment variable, the arguments or the current
//!   directory): the crate reads no variable of its own. The `env!` and `option_env!` macros
//!   read the build's environment at compile time and stay allowed;
//! - every HTTP client it makes comes from the one maker, `tls.rs` (`builder_with`, which turns
//!   off reqwest's proxies from the environment, redirects and `Referer`): no other file names
//!   `reqwest::Client::builder`, `reqwest::Client::new`, `reqwest::ClientBuilder::new`,
//!   `reqwest::get` or `reqwest::blocking`, imports `Client` or `ClientBuilder` from reqwest by
//!   name (a bare `Client::new()` would hide behind it), or renames the reqwest crate.
//!
//! The fake holds to the second rule too (its `tls.rs` makes the client it hands apps and its
//! browser, without proxies); it reads two documented variables of its own.
//!
//! The per-variable behaviour (each proxy variable, `SSL_CERT_FILE`, `SSL_CERT_DIR`,
//! `SSLKEYLOGFILE` given to a child process) is proved by `tests/tests/env_proxies.rs` and
//! `red_team_routes_and_state.rs`; this test covers the variables and code paths nobody named.
//! Sources are read as Rust tokens, so comments and doc text never count.

use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The client's source folder, from the workspace root.
const CLIENT_SRC: &str = "generated-client/src";

/// The fake's source folder: it reads two documented variables (its recorder's folder, the
/// spelling seed), and makes its reqwest clients (its own `http_client`, for apps, and its
/// browser) in one place too, without the environment's proxies.
const FAKE_SRC: &str = "tests/fake/src";

/// The one file of each crate allowed to make reqwest clients.
const THE_MAKER: &str = "tls.rs";

/// What a file may name.
#[derive(Clone, Copy)]
struct Allowed {
    environment: bool,
    clients: bool,
}

/// A token of one level of a file, `::` joined into one.
#[derive(Debug)]
enum Token {
    Word(String),
    Punct(String),
    Group(Delimiter, Vec<Token>),
    Literal,
}

fn tokens(stream: TokenStream) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    for tree in stream {
        match tree {
            TokenTree::Ident(ident) => out.push(Token::Word(ident.to_string())),
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                if c == ':' && matches!(out.last(), Some(Token::Punct(p)) if p == ":") {
                    out.pop();
                    out.push(Token::Punct("::".to_owned()));
                } else {
                    out.push(Token::Punct(c.to_string()));
                }
            }
            TokenTree::Group(group) => {
                out.push(Token::Group(group.delimiter(), tokens(group.stream())))
            }
            TokenTree::Literal(_) => out.push(Token::Literal),
        }
    }
    out
}

/// The top-level words of a brace group (`{env, fs::read}` holds `env` and `fs`).
fn heads(inner: &[Token]) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut at_start = true;
    for token in inner {
        match token {
            Token::Word(word) if at_start => {
                heads.push(word.as_str());
                at_start = false;
            }
            Token::Punct(p) if p == "," => at_start = true,
            _ => at_start = false,
        }
    }
    heads
}

/// What a file names that takes from the environment, one line each.
fn offences(text: &str, allowed: Allowed) -> Vec<String> {
    let stream: TokenStream = match text.parse() {
        Ok(stream) => stream,
        Err(error) => return vec![format!("not Rust tokens: {error}")],
    };
    let mut found = Vec::new();
    scan(&tokens(stream), allowed, &mut found);
    found
}

fn scan(level: &[Token], allowed: Allowed, found: &mut Vec<String>) {
    let word = |i: usize| match level.get(i) {
        Some(Token::Word(word)) => Some(word.as_str()),
        _ => None,
    };
    let punct = |i: usize| match level.get(i) {
        Some(Token::Punct(p)) => Some(p.as_str()),
        _ => None,
    };
    let braces = |i: usize| match level.get(i) {
        Some(Token::Group(Delimiter::Brace, inner)) => Some(heads(inner)),
        _ => None,
    };
    for (i, token) in level.iter().enumerate() {
        if let Token::Group(_, inner) = token {
            scan(inner, allowed, found);
            continue;
        }
        let followed = punct(i + 1) == Some("::");
        match word(i) {
            Some("std" | "core" | "alloc") if followed && !allowed.environment => {
                if word(i + 2) == Some("env") {
                    found.push("std::env".to_owned());
                }
                if braces(i + 2).is_some_and(|heads| heads.contains(&"env")) {
                    found.push("std::{env}".to_owned());
                }
            }
            Some("reqwest") if !allowed.clients => {
                if word(i + 1) == Some("as") {
                    found.push("reqwest as …".to_owned());
                }
                if !followed {
                    continue;
                }
                let next = word(i + 2);
                let then = if punct(i + 3) == Some("::") {
                    word(i + 4)
                } else {
                    None
                };
                let named = match (next, then) {
                    (Some("Client"), Some("builder" | "new")) => true,
                    (Some("ClientBuilder"), Some("new")) => true,
                    (Some("get" | "blocking"), _) => true,
                    // An import by name: `use reqwest::Client;`, `… as C;`.
                    (Some("Client" | "ClientBuilder"), None) => {
                        matches!(punct(i + 3), Some(";")) || word(i + 3) == Some("as")
                    }
                    _ => false,
                };
                if named {
                    found.push(format!(
                        "reqwest::{}{}",
                        next.unwrap_or_default(),
                        then.map(|then| format!("::{then}")).unwrap_or_default()
                    ));
                }
                if let Some(heads) = braces(i + 2) {
                    for name in ["Client", "ClientBuilder", "get", "blocking"] {
                        if heads.contains(&name) {
                            found.push(format!("reqwest::{{{name}}}"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// How many times `reqwest::Client::builder` is named in code (not in comments or docs).
fn builders(level: &[Token]) -> usize {
    let mut count = 0;
    for (i, token) in level.iter().enumerate() {
        if let Token::Group(_, inner) = token {
            count += builders(inner);
        }
        let words: Vec<Option<&str>> = (0..5)
            .map(|k| match level.get(i + k) {
                Some(Token::Word(word)) => Some(word.as_str()),
                Some(Token::Punct(p)) if p == "::" => Some("::"),
                _ => None,
            })
            .collect();
        let expected = ["reqwest", "::", "Client", "::", "builder"].map(Some);
        count += usize::from(words == expected);
    }
    count
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// Every offence below `src` (a crate's source folder, from the workspace root), and how many
/// times its maker names `reqwest::Client::builder`.
fn crate_offences(src: &str, environment: bool) -> (Vec<String>, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join(src);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(files.len() > 10, "{src}: only {} files read", files.len());
    let mut offenders = Vec::new();
    let mut makers = 0;
    for path in &files {
        let shown = path.strip_prefix(&dir).unwrap().display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let clients = shown == THE_MAKER;
        if clients {
            makers += builders(&tokens(text.parse().unwrap()));
        }
        for offence in offences(
            &text,
            Allowed {
                environment,
                clients,
            },
        ) {
            offenders.push(format!("{src}/{shown}: {offence}"));
        }
    }
    (offenders, makers)
}

#[test]
fn the_client_reads_no_environment_and_makes_http_clients_in_one_place() {
    let (offenders, makers) = crate_offences(CLIENT_SRC, false);
    assert!(
        offenders.is_empty(),
        "the client takes from the environment (read configuration from the builder; make HTTP \
         clients with tls::builder_with):\n{}",
        offenders.join("\n")
    );
    assert_eq!(
        makers, 1,
        "{THE_MAKER} makes reqwest clients in {makers} places"
    );
}

#[test]
fn the_fake_makes_http_clients_in_one_place() {
    let (offenders, makers) = crate_offences(FAKE_SRC, true);
    assert!(
        offenders.is_empty(),
        "the fake makes a reqwest client outside tls.rs (make it with tls::http_client, which \
         turns off the environment's proxies):\n{}",
        offenders.join("\n")
    );
    assert_eq!(
        makers, 1,
        "the fake's {THE_MAKER} makes reqwest clients in {makers} places"
    );
}

const NOTHING: Allowed = Allowed {
    environment: false,
    clients: false,
};

/// The scanner finds each way of naming what is refused, and passes what is allowed.
#[test]
fn the_scanner_finds_every_spelling_and_passes_the_allowed() {
    let refused = [
        "fn f() { let _ = std::env::var(\"X\"); }",
        "fn f() { let _ = ::std::env::var_os(\"X\"); }",
        "use std::env;",
        "use std::env as e;",
        "use std::{env, fs};",
        "use std::{fs, env::var};",
        "fn f() { let _ = core::env::args(); }",
        "mod m { fn g() { if true { std::env::set_var(\"A\", \"b\"); } } }",
        "fn f() { let _ = reqwest::Client::new(); }",
        "fn f() { let _ = reqwest::Client::builder(); }",
        "fn f() { let _ = crate::reqwest::ClientBuilder::new(); }",
        "async fn f() { let _ = reqwest::get(\"http://x\").await; }",
        "fn f() { let _ = reqwest::blocking::Client::new(); }",
        "use reqwest::Client;",
        "use reqwest::ClientBuilder as B;",
        "use reqwest::{header::HeaderMap, Client};",
        "use reqwest as r;",
        "macro_rules! m { () => { std::env::var(\"X\") }; }",
    ];
    for text in refused {
        assert!(!offences(text, NOTHING).is_empty(), "not found in: {text}");
    }
    let allowed = [
        "/// Reads `std::env::var` never.\nfn f() {}",
        "// std::env::var(\"X\") in a comment\nfn f() {}",
        "const V: &str = env!(\"CARGO_PKG_VERSION\");",
        "const V: Option<&str> = option_env!(\"X\");",
        "fn f(http: reqwest::Client) -> reqwest::ClientBuilder { wrap(http) }",
        "use reqwest::header::{HeaderMap, HeaderName};",
        "fn f() { let _ = Client::builder(&SERVICE, base, consumer); }",
        "fn f() { let _ = \"std::env::var\"; }",
        "pub use reqwest;",
    ];
    for text in allowed {
        assert_eq!(offences(text, NOTHING), Vec::<String>::new(), "in: {text}");
    }
    // The maker may name reqwest's builders, never the environment; the fake the environment.
    let maker = Allowed {
        environment: false,
        clients: true,
    };
    assert!(offences("fn f() { reqwest::Client::builder(); }", maker).is_empty());
    assert!(!offences("fn f() { std::env::var(\"X\"); }", maker).is_empty());
    let fake = Allowed {
        environment: true,
        clients: false,
    };
    assert!(offences("fn f() { std::env::var(\"X\"); }", fake).is_empty());
    assert!(!offences("fn f() { reqwest::Client::new(); }", fake).is_empty());
}
