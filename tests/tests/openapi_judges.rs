//! Python's judges of the OpenAPI export (`spec/openapi.json`), pinned by hash in
//! `support/openapi-judges-requirements.txt` and installed by these tests into a venv under the
//! target directory's `tmp/` (`support/python_venv.rs`, shared with the oauthlib judge):
//!
//! - **openapi-spec-validator** finds the document a valid OpenAPI 3.1 description;
//! - **Schemathesis** holds the fake marketplace to it: it generates requests for every data
//!   operation from the export (valid and invalid parameters), an auth hook signs each with
//!   oauthlib (`support/schemathesis_oauth_hook.py`) as the demo application acting for a
//!   test-kit session, and every answer must be no 5xx, of a documented status and media type,
//!   and valid against its schema (`not_a_server_error`, `status_code_conformance`,
//!   `content_type_conformance`, `response_schema_conformance`). It runs with the fake's fixed
//!   spellings and with spellings varied by seeds 1 and 2 (and `MARKETPLACE_FAKE_SPELLING_SEED`
//!   when set), at most `MAX_EXAMPLES` generated cases per operation and phase.
//!
//! The OAuth endpoints are left out of Schemathesis's run: `revokeToken` would end the session
//! it signs with, and the others need the browser step; `openapi_conformance.rs` judges their
//! answers. Without Python or, the first time, PyPI, the tests fail saying what to install.

#[path = "support/python_venv.rs"]
mod python_venv;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use marketplace_client::recording::{self, Recorder, Rotation};
use marketplace_tests::fake::{FakeMarketplace, Spellings};

const EXPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.json");
const REQUIREMENTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/support/openapi-judges-requirements.txt"
);
const HOOKS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support");

/// Schemathesis's command line, run by the venv's Python.
const SCHEMATHESIS: &str = "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())";

/// Generated cases per operation and phase: the run's cost (see `schemathesis_…`'s output).
const MAX_EXAMPLES: u32 = 25;

fn judges() -> PathBuf {
    python_venv::venv(
        "openapi-judges-venv",
        REQUIREMENTS,
        "import schemathesis, openapi_spec_validator, oauthlib.oauth1",
    )
}

#[test]
fn openapi_spec_validator_accepts_the_export() {
    let venv = judges();
    let output = Command::new(python_venv::bin(&venv, "python"))
        .args(["-m", "openapi_spec_validator"])
        .arg(EXPORT)
        .output()
        .unwrap_or_else(|error| panic!("running openapi-spec-validator: {error}"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && said.contains(": OK"),
        "openapi-spec-validator refuses spec/openapi.json ({}):\n{said}",
        output.status
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_holds_the_fake_to_the_export() {
    let venv = judges();
    let fake = FakeMarketplace::start_plain_http().await.unwrap();
    let session = fake.session(40001).unwrap();
    let mut spellings = vec![
        Spellings::Fixed,
        Spellings::Varied { seed: 1 },
        Spellings::Varied { seed: 2 },
    ];
    if let Ok(from_env @ Spellings::Varied { .. }) = Spellings::from_env() {
        spellings.push(from_env);
    }
    let work = tempfile::tempdir().unwrap();
    // What the fake answered, to see that the signatures were accepted (a run of 401s only
    // would conform vacuously).
    let recorded = work.path().join("recorded");
    let recorder = Recorder::to_dir(&recorded, "schemathesis", Rotation::default()).unwrap();
    fake.record(recorder.clone());
    for (run, spelling) in spellings.into_iter().enumerate() {
        fake.set_spellings(spelling);
        let started = Instant::now();
        // Through the venv's Python: its scripts name the folder the venv was made in.
        let mut command = Command::new(python_venv::bin(&venv, "python"));
        command
            .args(["-c", SCHEMATHESIS, "run"])
            .arg(EXPORT)
            .args(["--url", fake.base_url()])
            .args([
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
            ])
            .args(["--include-path-regex", "^/api/"])
            .args(["--max-examples", &MAX_EXAMPLES.to_string()])
            .args(["--seed", &(run + 1).to_string()])
            .args(["--generation-database", "none"])
            .args(["--workers", "1", "--no-color", "--output-truncate", "true"])
            // Nothing is written into the repository: reports and caches go to a scratch folder.
            .current_dir(work.path())
            .env("PYTHONPATH", HOOKS_DIR)
            .env("SCHEMATHESIS_HOOKS", "schemathesis_oauth_hook")
            .env("MARKETPLACE_BASE_URL", fake.base_url())
            .env("MARKETPLACE_CONSUMER_KEY", &fake.credentials().consumer_key)
            .env("MARKETPLACE_CONSUMER_SECRET", &fake.credentials().consumer_secret)
            .env("MARKETPLACE_TOKEN", session.token().token())
            .env("MARKETPLACE_TOKEN_SECRET", session.token().secret().expose());
        let output = tokio::task::spawn_blocking(move || command.output())
            .await
            .unwrap()
            .unwrap_or_else(|error| {
                panic!(
                    "running schemathesis: {error}; {}",
                    python_venv::INSTALL_HINT
                )
            });
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "Schemathesis finds the fake ({spelling}) disagreeing with spec/openapi.json ({}):\n{said}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let summary: Vec<&str> = said
            .lines()
            .filter(|line| {
                line.contains("passed")
                    || line.contains("test cases")
                    || line.contains("Test cases")
            })
            .collect();
        eprintln!(
            "schemathesis ({spelling}): {:.1?}: {}",
            started.elapsed(),
            summary.join(" | ")
        );
        assert!(
            !said.contains("No operations"),
            "Schemathesis tested nothing:\n{said}"
        );
    }
    recorder.flush().unwrap();
    let mut statuses: BTreeMap<(String, u16), usize> = BTreeMap::new();
    for entry in recording::read(&recorded).unwrap() {
        *statuses
            .entry((entry.exchange.method.clone(), entry.exchange.status))
            .or_default() += 1;
    }
    eprintln!("schemathesis: answers by method and status: {statuses:?}");
    // Accepted signatures: data from the method that needs no ID, a validation refusal (not
    // a 401) from every method. Random IDs name no seeded record, so the other methods answer
    // data rarely; `openapi_conformance.rs` judges their data answers.
    let answered = |method: &str, status: u16| statuses.contains_key(&(method.to_owned(), status));
    assert!(
        answered("manage/getMyProviders", 200),
        "no data answered: {statuses:?}"
    );
    for method in marketplace_tests::fake::data::served_methods() {
        assert!(
            answered(method, 400),
            "no 400 answer to {method}: {statuses:?}"
        );
    }
}
