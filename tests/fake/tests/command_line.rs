//! The `fake-marketplace` binary's command line: `-h` and `--help` say what it is for, its
//! option, an example and its exit codes; a wrong argument is a usage error (exit 2) that says
//! what was meant, with no control character of the argument reaching the terminal.

use std::process::{Command, Output};

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
fn help_says_what_it_is_for_its_option_an_example_and_the_exit_codes() {
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
            "Examples:\n  cargo run -p marketplace-fake --bin fake-marketplace",
            "Exit codes:\n  0  ",
            "  2  usage error",
        ] {
            assert!(help.contains(says), "{flag}: {says:?} in {help}");
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
