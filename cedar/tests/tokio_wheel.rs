//! The tokio adapter against HTCondor's real C++ client: the same
//! scenarios and checks as `tests/wheel.rs`, with the test collector of
//! `examples/test_collector.rs` served by the tokio adapter
//! (`examples/tokio_collector.rs`) instead of the blocking one. The `htcondor` wheel
//! (23.10.29) drives it through `htcondor2.Collector` (query, advertise,
//! locate) and `htcondor.SecMan.ping`.
//!
//! The wheel lives in a virtualenv: by default `<workspace>/.venv`, made
//! with
//!
//! ```text
//! python3 -m venv .venv && .venv/bin/pip install htcondor==23.10.29
//! ```
//!
//! or the interpreter named by `CEDAR_WHEEL_PYTHON`. Without one the tests
//! say so and pass, unless `CEDAR_REQUIRE_WHEEL=1`, which makes a missing
//! wheel a failure (for CI).

#[path = "../examples/tokio_collector.rs"]
mod tokio_collector;

use std::path::PathBuf;
use std::process::Command;

use classad::{ClassAd, EvalContext, EvalOptions, Value};
use tokio_collector::spawn_tokio_with;
use tokio_collector::test_collector::{FixtureOptions, Store};

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CEDAR_WHEEL_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    if std::env::var_os("CEDAR_REQUIRE_WHEEL").is_some_and(|v| v == "1") {
        panic!("CEDAR_REQUIRE_WHEEL=1 but no Python with the htcondor wheel (set CEDAR_WHEEL_PYTHON or make .venv)");
    }
    None
}

struct Run {
    checks: Vec<String>,
    stderr: String,
}

/// Runs `scenario` of `tests/wheel/client.py` against a fresh fixture.
fn run(scenario: &str, options: FixtureOptions) -> Option<(Run, Store)> {
    run_on(scenario, options, false)
}

/// As [`run`]; `concurrent` serves the fixture on `cedar::tokio::Server`.
fn run_on(scenario: &str, options: FixtureOptions, concurrent: bool) -> Option<(Run, Store)> {
    let Some(python) = python() else {
        eprintln!("skipped: no Python with the htcondor wheel (see tests/wheel.rs)");
        return None;
    };
    let (addr, store) = spawn_tokio_with("127.0.0.1:0", options, concurrent).expect("the fixture listens");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wheel/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(scenario)
        .arg(addr.to_string())
        .env_remove("CONDOR_CONFIG")
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "scenario {scenario} failed\n--- stdout\n{stdout}\n--- stderr (last 6000 bytes)\n{}",
        &stderr[stderr.len().saturating_sub(6000)..]
    );
    let checks = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("{\"check\": \""))
        .filter_map(|l| l.split('"').next())
        .map(str::to_owned)
        .collect();
    Some((Run { checks, stderr }, store))
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    match EvalContext::new(&EvalOptions::new()).my(ad).eval(ad.lookup(name)?) {
        Value::Str(s) => Some(s.as_str().to_owned()),
        _ => None,
    }
}

fn stored(store: &Store, name: &str) -> ClassAd {
    let ads = store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    ads.iter().find(|a| string(a, "Name").as_deref() == Some(name)).cloned().unwrap_or_else(|| panic!("no ad {name}"))
}

const COMMON_CHECKS: [&str; 14] = [
    "query-collector",
    "query-back",
    "values",
    "expression",
    "private-dropped",
    "exact-ad",
    "last-heard-from",
    "constraint",
    "projection",
    "locate",
    "update-replaces",
    "generic",
    "any",
    "ping",
];

#[test]
fn tokio_negotiated_sessions_with_the_cpp_client() {
    let Some((run, store)) = run("negotiated", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, COMMON_CHECKS);
    // The client made sessions and resumed them: one per permission level
    // it used (READ for queries, ADVERTISE_STARTD and DAEMON for updates).
    assert!(run.stderr.contains("SECMAN: startCommand succeeded."), "no command succeeded");
    assert!(run.stderr.contains("resuming session id") || run.stderr.contains("UseSession = \"YES\""));
    let resumed = run.stderr.matches("found cached session id").count();
    assert!(resumed >= 5, "only {resumed} resumed sessions:\n{}", run.stderr);
    // The private attribute arrived in the clear (no key, plaintext stream).
    let slot = stored(&store, "slot2@test");
    assert_eq!(string(&slot, "ClaimId").as_deref(), Some("secret-claim-2"));
}

#[test]
fn an_all_optional_client_with_default_crypto_methods() {
    let Some((run, _)) = run("optional", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, COMMON_CHECKS);
    assert!(run.stderr.contains("sending DC_AUTHENTICATE"), "the client did not negotiate");
    // Our method list is AES only: that is what the response carries.
    assert!(run.stderr.contains("CryptoMethodsList = \"AES\""), "{}", run.stderr);
}

#[test]
fn raw_commands_with_the_cpp_client() {
    let Some((run, store)) = run("raw", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, &COMMON_CHECKS[..13]);
    assert!(!run.stderr.contains("sending DC_AUTHENTICATE"), "the raw client negotiated");
    // With no peer version, C++ sends private attributes as ZKM + the
    // plaintext string; they must arrive all the same.
    let slot = stored(&store, "slot1@test");
    assert_eq!(string(&slot, "ClaimId").as_deref(), Some("secret-claim-1"));
}

#[test]
fn a_client_requiring_authentication_is_refused() {
    let Some((run, _)) = run("required", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["required-fails"]);
    // We close without a response ad, which the client reads as a hang-up.
    assert!(run.stderr.contains("SECMAN: no classad from server, failing"), "{}", run.stderr);
}

#[test]
fn an_unknown_command_is_reported_by_the_client() {
    let Some((run, _)) = run("unknown", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["unknown-fails"]);
    assert!(
        run.stderr.contains("Connection closed during command authorization. Probably due to an unknown command."),
        "{}",
        run.stderr
    );
}

#[test]
fn a_forgotten_session_fails_one_command_then_a_new_one_is_made() {
    let Some((run, _)) = run("restart", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["before", "resumed", "stale-session-fails", "new-session"]);
    // SID_NOT_FOUND makes the client drop its session (condor_secman.cpp
    // 2243-2257), so the next command negotiates afresh.
    assert!(run.stderr.contains("SECMAN: Server rejected our session id"), "{}", run.stderr);
    assert!(run.stderr.contains("Invalidating negotiated session rejected by peer"), "{}", run.stderr);
}

#[test]
fn a_denied_command_is_reported_by_the_client() {
    let Some((run, store)) = run(
        "denied",
        FixtureOptions { config: vec![("DENY_ADVERTISE_STARTD".into(), "*".into())], ..FixtureOptions::default() },
    ) else {
        return;
    };
    assert_eq!(run.checks, ["denied-fails", "denied-not-stored"]);
    assert!(run.stderr.contains("Received \"DENIED\" from server"), "{}", run.stderr);
    assert!(store
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .all(|a| string(a, "Name").as_deref() != Some("denied@test")));
}

/// The scenarios that do not advertise and then query at once, on the
/// concurrent `cedar::tokio::Server` (accept loop, a task per connection).
#[test]
fn the_concurrent_server_with_the_cpp_client() {
    let Some((run, _)) = run_on("unknown", FixtureOptions::default(), true) else { return };
    assert_eq!(run.checks, ["unknown-fails"]);
    assert!(run.stderr.contains("Probably due to an unknown command."), "{}", run.stderr);
    let Some((run, _)) = run_on("required", FixtureOptions::default(), true) else { return };
    assert_eq!(run.checks, ["required-fails"]);
    assert!(run.stderr.contains("SECMAN: no classad from server, failing"), "{}", run.stderr);
    let options =
        FixtureOptions { config: vec![("DENY_ADVERTISE_STARTD".into(), "*".into())], ..FixtureOptions::default() };
    let Some((run, store)) = run_on("denied", options, true) else { return };
    assert_eq!(run.checks, ["denied-fails", "denied-not-stored"]);
    assert!(run.stderr.contains("Received \"DENIED\" from server"), "{}", run.stderr);
    assert!(store
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .all(|a| string(a, "Name").as_deref() != Some("denied@test")));
}
