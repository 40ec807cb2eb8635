//! The `fake-marketplace` binary's command line: `-h` and `--help` say what it is for, its
//! options, an example and its exit codes; a wrong argument is a usage error (exit 2) that says
//! what was meant, with no control character of the argument reaching the terminal. What it
//! prints at start: the seeded workrooms, as `World::seeded` has them, and how approving in a
//! browser ends. `--port`: a free port given is the one served; one in use is a usage error
//! naming it, before anything is written.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use marketplace_fake::World;

fn fake_marketplace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fake-marketplace"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn help_says_what_it_is_for_its_options_an_example_and_the_exit_codes() {
    for flag in ["-h", "--help"] {
        let output = fake_marketplace(&[flag]);
        assert_eq!(output.status.code(), Some(0), "{flag}");
        assert!(output.stderr.is_empty(), "{flag}");
        let help = text(&output.stdout);
        for says in [
            "Runs the fake marketplace on 127.0.0.1",
            "Usage: fake-marketplace [OPTIONS]",
            "--http",
            "Serve plain HTTP instead of HTTPS",
            "--port <PORT>",
            "Listen on this port of 127.0.0.1, the same on every start",
            "a free port the OS",
            "Examples:\n  cargo run -p marketplace-fake --bin fake-marketplace",
            "-- --port 8443",
            "Exit codes:\n  0  ",
            "  2  usage error",
            "a --port that cannot be listened on",
        ] {
            assert!(help.contains(says), "{flag}: {says:?} in {help}");
        }
        if flag == "--help" {
            assert!(help.contains("then the seeded workrooms"), "{help}");
        }
    }
}

#[test]
fn a_wrong_argument_is_a_usage_error_that_says_what_was_meant_and_prints_no_control() {
    let output = fake_marketplace(&["--htp"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let error = text(&output.stderr);
    assert!(
        error.contains("'--htp'") && error.contains("'--http'"),
        "{error}"
    );

    let output = fake_marketplace(&["\u{1b}]0;title\u{7}\u{1b}[2J\r\u{202e}x", "--http"]);
    assert_eq!(output.status.code(), Some(2));
    let error = text(&output.stderr);
    assert!(
        error.contains("\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{d}\\u{202e}x"),
        "{error}"
    );
    assert!(
        !error
            .chars()
            .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c)),
        "{error:?}"
    );
}

/// The binary started with `args`, its temporary folder a scratch one.
struct Running {
    child: Child,
    _temp: tempfile::TempDir,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let temp = tempfile::tempdir().unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_fake-marketplace"))
            .args(args)
            .env("TMPDIR", temp.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        Running { child, _temp: temp }
    }

    /// What it printed up to and with the line on how to stop it.
    fn start_up(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        for line in BufReader::new(self.child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            let done = line.starts_with("Ctrl-C");
            lines.push(line);
            if done {
                return lines;
            }
        }
        let mut error = String::new();
        let _ = self.child.stderr.take().unwrap().read_to_string(&mut error);
        panic!("the binary stopped before it was ready: {lines:?} {error}");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The start-up output lists every workroom of the seeded world, in its order, with its bid
/// ID, kind and the logins of its client and provider (the only users a workroom answers),
/// and says how approving in a browser ends.
#[test]
fn start_up_lists_the_seeded_workrooms_and_how_approving_in_a_browser_ends() {
    let mut running = Running::start(&["--http"]);
    let printed = running.start_up();

    let world = World::seeded();
    let login = |id: u64| world.user(id).expect("a seeded user").login.clone();
    let expected: Vec<Vec<String>> = world
        .workrooms()
        .iter()
        .map(|room| {
            vec![
                "bid".to_owned(),
                room.bid_id.to_string(),
                if room.hourly { "hourly" } else { "fixed-price" }.to_owned(),
                "client".to_owned(),
                login(room.client),
                "provider".to_owned(),
                login(room.provider),
            ]
        })
        .collect();
    assert!(expected.len() > 3, "the seeded world has its workrooms");
    let header = printed
        .iter()
        .position(|line| line.starts_with("workrooms:"))
        .unwrap_or_else(|| panic!("no workrooms line in {printed:#?}"));
    let listed: Vec<Vec<String>> = printed[header + 1..]
        .iter()
        .take_while(|line| line.starts_with("  bid "))
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect();
    assert_eq!(listed, expected);
    assert!(
        printed[header].contains("client and provider"),
        "{}",
        printed[header]
    );

    let browser = printed
        .iter()
        .find(|line| line.starts_with("in a browser:"))
        .unwrap_or_else(|| panic!("no browser line in {printed:#?}"));
    for says in ["callback URL", "myapp://", "address bar", "oob", "verifier"] {
        assert!(browser.contains(says), "{says:?} in {browser}");
    }
    assert!(
        printed
            .iter()
            .flat_map(|line| line.chars())
            .all(|c| !c.is_control()),
        "{printed:?}"
    );
}

/// A free port (one the test held, then let go) given with `--port` is the one the fake
/// serves: its base URL says so, and the fake answers there.
#[test]
fn a_free_port_given_is_the_one_served() {
    let port = {
        let held = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        held.local_addr().unwrap().port()
    };
    let mut running = Running::start(&["--http", "--port", &port.to_string()]);
    let printed = running.start_up();
    assert_eq!(
        printed[0],
        format!("base URL:        http://127.0.0.1:{port}"),
        "{printed:#?}"
    );

    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /api/nothing HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    assert!(
        answer.contains("\"error\""),
        "the fake's JSON error: {answer}"
    );
}

/// What `command` printed, once it ended within `limit`: a binary that serves instead (it runs
/// until Ctrl-C) is stopped and fails the test, rather than hanging it.
fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().expect("the binary's status").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the binary still ran after {limit:?}: it served instead of refusing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the binary's output")
}

/// A port another socket holds is a usage error (exit 2) naming the port, for HTTPS and plain
/// HTTP: no panic, nothing on standard output, and no certificate left in the temporary folder.
#[test]
fn a_port_in_use_is_a_usage_error_naming_it() {
    let held = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    for args in [vec!["--port", &port], vec!["--http", "--port", &port]] {
        let temp = tempfile::tempdir().unwrap();
        let output = output_within(
            Command::new(env!("CARGO_BIN_EXE_fake-marketplace"))
                .args(&args)
                .env("TMPDIR", temp.path()),
            Duration::from_secs(30),
        );
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let error = text(&output.stderr);
        assert!(
            error.starts_with(&format!(
                "fake-marketplace: --port {port}: 127.0.0.1:{port} is in use"
            )),
            "{error}"
        );
        assert!(!error.contains("panicked"), "{error}");
        assert_eq!(error.lines().count(), 1, "{error}");
        assert_eq!(
            std::fs::read_dir(temp.path()).unwrap().count(),
            0,
            "nothing written"
        );
    }
    drop(held);
}

/// A port that is not one (beyond 65535, not a number, empty) is clap's usage error, naming
/// the value.
#[test]
fn a_port_that_is_not_a_port_is_a_usage_error() {
    for value in ["65536", "https", ""] {
        let output = fake_marketplace(&["--port", value]);
        assert_eq!(output.status.code(), Some(2), "{value}");
        let error = text(&output.stderr);
        assert!(
            error.contains(&format!("'{value}'")) && error.contains("--port <PORT>"),
            "{error}"
        );
    }
}
