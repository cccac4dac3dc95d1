//! The wheel scenarios, shared by `tests/wheel.rs` (the blocking fixture of
//! `examples/test_collector.rs`) and `tests/tokio_wheel.rs` (the same
//! collector on the tokio adapter, `examples/tokio_collector.rs`).
//!
//! Each scenario runs `tests/wheel/client.py` with HTCondor's real C++
//! client (the `htcondor` Python wheel) against a fresh fixture made by the
//! including test's [`Spawn`] function, then checks what the client printed
//! and what the fixture stored. The including file instantiates every
//! scenario as a `#[test]` with [`wheel_tests!`].
//!
//! The wheel lives in a virtualenv: by default `<workspace>/.venv`, made
//! with
//!
//! ```text
//! python3 -m venv .venv && .venv/bin/pip install htcondor==23.10.29
//! ```
//!
//! or the interpreter named by `CEDAR_WHEEL_PYTHON` (CI runs the scenarios
//! with 23.10.29 and again with 25.14.1). Without one the tests say so and
//! pass, unless `CEDAR_REQUIRE_WHEEL=1`, which makes a missing wheel a
//! failure (for CI).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;

use classad::{ClassAd, EvalContext, EvalOptions, Value};

use super::{FixtureOptions, Store};

/// Starts a fixture collector on a free loopback port.
pub type Spawn = fn(FixtureOptions) -> std::io::Result<(SocketAddr, Store)>;

/// The cedar crate's directory, where the client script and the token
/// fixtures are (the collector's tests include this file too).
fn cedar_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cedar")
}

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CEDAR_WHEEL_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = cedar_dir().join("../.venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    if std::env::var_os("CEDAR_REQUIRE_WHEEL").is_some_and(|v| v == "1") {
        panic!("CEDAR_REQUIRE_WHEEL=1 but no Python with the htcondor wheel (set CEDAR_WHEEL_PYTHON or make .venv)");
    }
    None
}

pub struct Run {
    pub checks: Vec<String>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The string value of the first line `{"<key>": "<value>"}` the
    /// client emitted.
    fn emitted(&self, key: &str) -> Option<&str> {
        let prefix = format!("{{\"{key}\": \"");
        self.stdout.lines().find_map(|l| l.strip_prefix(prefix.as_str())?.split('"').next())
    }

    /// The wheel's major version (23, 25, …).
    fn wheel_major(&self) -> u32 {
        let version = self.emitted("wheel").expect("the client reports its wheel version");
        version.split('.').next().and_then(|m| m.parse().ok()).expect("a numeric major version")
    }
}

/// A fixture token (`tests/data/token/<name>`, made by condor_token_create).
fn token(name: &str) -> PathBuf {
    cedar_dir().join("tests/data/token").join(name)
}

/// Runs `scenario` of `tests/wheel/client.py` against a fresh fixture, the
/// client holding the token file `token` (if any).
fn run_with_token(
    spawn: Spawn,
    scenario: &str,
    options: FixtureOptions,
    token: Option<PathBuf>,
) -> Option<(Run, Store)> {
    let Some(python) = python() else {
        eprintln!("skipped: no Python with the htcondor wheel (see tests/wheel/scenarios.rs)");
        return None;
    };
    let (addr, store) = spawn(options).expect("the fixture listens");
    let script = cedar_dir().join("tests/wheel/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(scenario)
        .arg(addr.to_string())
        .env_remove("CONDOR_CONFIG")
        .env("CEDAR_TOKEN", token.map(|t| t.into_os_string()).unwrap_or_default())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "scenario {scenario} failed\n--- stdout\n{stdout}\n--- stderr (last 6000 bytes)\n{}",
        &stderr[stderr.len().saturating_sub(6000)..]
    );
    // Timings the client measured, for the record (README's measurements).
    for line in stdout.lines().filter(|l| l.starts_with("{\"timing\"")) {
        eprintln!("{scenario}: {line}");
    }
    let checks = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("{\"check\": \""))
        .filter_map(|l| l.split('"').next())
        .map(str::to_owned)
        .collect();
    Some((Run { checks, stdout, stderr }, store))
}

/// As [`run_with_token`], with no token.
fn run(spawn: Spawn, scenario: &str, options: FixtureOptions) -> Option<(Run, Store)> {
    run_with_token(spawn, scenario, options, None)
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

fn not_stored(store: &Store, name: &str) -> bool {
    store
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .all(|a| string(a, "Name").as_deref() != Some(name))
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

/// The common checks with `identity` after the fifth, as the
/// authenticated scenarios print them.
fn authenticated_checks() -> Vec<&'static str> {
    let mut expected: Vec<&str> = COMMON_CHECKS[..5].to_vec();
    expected.push("identity");
    expected.extend_from_slice(&COMMON_CHECKS[5..]);
    expected
}

pub fn negotiated_sessions(spawn: Spawn) {
    let Some((run, store)) = run(spawn, "negotiated", FixtureOptions::default()) else { return };
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

pub fn all_optional_client(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "optional", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, COMMON_CHECKS);
    assert!(run.stderr.contains("sending DC_AUTHENTICATE"), "the client did not negotiate");
    // Our method list is AES only: that is what the response carries.
    assert!(run.stderr.contains("CryptoMethodsList = \"AES\""), "{}", run.stderr);
}

pub fn raw_commands(spawn: Spawn) {
    let Some((run, store)) = run(spawn, "raw", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, &COMMON_CHECKS[..13]);
    assert!(!run.stderr.contains("sending DC_AUTHENTICATE"), "the raw client negotiated");
    // With no peer version, C++ sends private attributes as ZKM + the
    // plaintext string; they must arrive all the same.
    let slot = stored(&store, "slot1@test");
    assert_eq!(string(&slot, "ClaimId").as_deref(), Some("secret-claim-1"));
}

pub fn required_authentication_refused(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "required", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["required-fails"]);
    // We close without a response ad, which the client reads as a hang-up.
    assert!(run.stderr.contains("SECMAN: no classad from server, failing"), "{}", run.stderr);
}

pub fn unknown_command(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "unknown", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["unknown-fails"]);
    assert!(
        run.stderr.contains("Connection closed during command authorization. Probably due to an unknown command."),
        "{}",
        run.stderr
    );
}

/// A server that serves `QUERY_LICENSE_ADS` (as the C++ collector does)
/// answers the query `unknown_command` expects to fail with no ads (the
/// collector's tests; the fixture does not serve it).
#[allow(dead_code)]
pub fn license_query_served(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "license", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["license-empty"]);
}

pub fn forgotten_session(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "restart", FixtureOptions::default()) else { return };
    assert_eq!(run.checks, ["before", "resumed", "stale-session-fails", "new-session"]);
    // SID_NOT_FOUND makes the client drop its session (condor_secman.cpp
    // 2243-2257), so the next command negotiates afresh.
    assert!(run.stderr.contains("SECMAN: Server rejected our session id"), "{}", run.stderr);
    assert!(run.stderr.contains("Invalidating negotiated session rejected by peer"), "{}", run.stderr);
}

pub fn denied_command(spawn: Spawn) {
    let options =
        FixtureOptions { config: vec![("DENY_ADVERTISE_STARTD".into(), "*".into())], ..FixtureOptions::default() };
    let Some((run, store)) = run(spawn, "denied", options) else { return };
    assert_eq!(run.checks, ["denied-fails", "denied-not-stored"]);
    assert!(run.stderr.contains("Received \"DENIED\" from server"), "{}", run.stderr);
    assert!(not_stored(&store, "denied@test"));
}

/// The fixture's configuration for mode M1: our policy at HTCondor's
/// defaults (OPTIONAL) with CLAIMTOBE as the method.
fn m1(extra: &[(&str, &str)]) -> FixtureOptions {
    let mut knobs = vec![("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE")];
    knobs.extend_from_slice(extra);
    FixtureOptions::secure(&knobs)
}

/// The ping's result line.
fn ping_result(run: &Run) -> String {
    run.stdout.lines().find(|l| l.contains("\"ping\": {")).unwrap_or_default().to_owned()
}

pub fn m1_claimtobe_and_aes(spawn: Spawn) {
    let Some((run, store)) = run(spawn, "m1", m1(&[])) else { return };
    let mut expected = authenticated_checks();
    expected.push("big-reply");
    assert_eq!(run.checks, expected);
    // The client authenticated with CLAIMTOBE and turned AES-GCM on.
    assert!(run.stderr.contains("Authentication was a Success"), "{}", run.stderr);
    assert!(run.stderr.contains("AUTHENTICATE: auth_status == 2 (CLAIMTOBE)"), "{}", run.stderr);
    assert!(run.stderr.contains("SECMAN: successfully enabled encryption!"), "{}", run.stderr);
    // Later commands resumed the keyed sessions.
    let resumed = run.stderr.matches("found cached session id").count();
    assert!(resumed >= 5, "only {resumed} resumed sessions:\n{}", run.stderr);
    // The ping reports the method, and our name for the client: the
    // identity the collector recorded.
    // We take the claimed name as sent, adding no domain (23.9.6's server
    // default): a 23.x client claims its login name, a 24.7+ one
    // `login@UID_DOMAIN` (its SEC_CLAIMTOBE_INCLUDE_DOMAIN defaults to true).
    let slot = stored(&store, "slot2@test");
    let who = string(&slot, "AuthenticatedIdentity").unwrap_or_default();
    let claimed = run.emitted("claimed").expect("the client says what it claims");
    assert_eq!(who, claimed);
    assert_eq!(who.contains('@'), run.wheel_major() >= 25, "{who}");
    let ping = ping_result(&run);
    assert!(ping.contains("\"AuthMethods\": \"CLAIMTOBE\""), "{ping}");
    assert!(ping.contains(&format!("\"MyRemoteUserName\": \"{who}\"")), "{ping}");
    assert!(ping.contains("\"Encryption\": \"YES\""), "{ping}");
    // The private attribute arrived through the encrypted stream.
    assert_eq!(string(&slot, "ClaimId").as_deref(), Some("secret-claim-2"));
    assert_eq!(string(&slot, "AuthenticationMethod").as_deref(), Some("CLAIMTOBE"));
}

pub fn m1_reply_in_hundreds_of_packets(spawn: Spawn) {
    // 4 KiB packets: the 1.35 MB reply takes ~330 AES-GCM packets, each with
    // its own IV counter, which the C++ client must all open.
    let mut options = m1(&[]);
    options.max_packet = Some(4096);
    let Some((run, _)) = run(spawn, "m1-packets", options) else { return };
    assert_eq!(run.checks, ["big-reply"]);
}

pub fn m1_blowfish_only_refused(spawn: Spawn) {
    let Some((run, _)) = run(spawn, "m1-blowfish", m1(&[])) else { return };
    assert_eq!(run.checks, ["blowfish-fails"]);
    // No crypto method in common: we close before the response ad.
    assert!(run.stderr.contains("SECMAN: no classad from server, failing"), "{}", run.stderr);
}

pub fn m1_advertise_outside_allow_denied(spawn: Spawn) {
    let Some((run, store)) = run(spawn, "m1-denied", m1(&[("ALLOW_ADVERTISE_STARTD", "*/10.0.0.1")])) else { return };
    assert_eq!(run.checks, ["query", "advertise-denied"]);
    assert!(run.stderr.contains("Received \"DENIED\" from server"), "{}", run.stderr);
    assert!(not_stored(&store, "scoped@test"));
}

/// A fixture offering FS then CLAIMTOBE, with `UID_DOMAIN = fs.test`,
/// naming its FS directories in `fs_local_dir` (HTCondor's default, /tmp,
/// without one).
fn fs(fs_local_dir: Option<&str>) -> FixtureOptions {
    let mut knobs = vec![("SEC_DEFAULT_AUTHENTICATION_METHODS", "FS,CLAIMTOBE"), ("UID_DOMAIN", "fs.test")];
    if let Some(dir) = fs_local_dir {
        knobs.push(("FS_LOCAL_DIR", dir));
    }
    FixtureOptions::secure(&knobs)
}

/// Our effective uid: the owner of a file we make.
#[cfg(unix)]
fn our_uid() -> u32 {
    use std::os::unix::fs::MetadataExt as _;
    let probe = std::env::temp_dir().join(format!("cedar-wheel-uid-{}", std::process::id()));
    std::fs::write(&probe, b"").expect("a probe file");
    let uid = std::fs::metadata(&probe).expect("the probe's metadata").uid();
    let _ = std::fs::remove_file(&probe);
    uid
}

pub fn fs_with_the_cpp_client(spawn: Spawn) {
    let Some((run, store)) = run(spawn, "fs", fs(None)) else { return };
    assert_eq!(run.checks, authenticated_checks());
    // The client made the directory we named, we took its owner.
    assert!(run.stderr.contains("AUTHENTICATE: auth_status == 4 (FS)"), "{}", run.stderr);
    assert!(run.stderr.contains("AUTHENTICATE_FS: used dir /tmp/FS_127.0.0.1_"), "{}", run.stderr);
    // Clients from 24.0.22 on bind the name to our address: the wheel's
    // 25.x appends its view of it to the name, which ends in `_`.
    if run.wheel_major() >= 25 {
        assert!(
            run.stderr.contains("AUTHENTICATE_FS: Adding server ip:port to directory name: 127.0.0.1:"),
            "{}",
            run.stderr
        );
    }
    assert!(run.stderr.contains("SECMAN: successfully enabled encryption!"), "{}", run.stderr);
    // The owner is the user this test runs as (the C++ client makes the
    // directory as itself), named by Python's pwd module.
    let owner = run.emitted("owner").expect("the client says who it runs as");
    let uid = run.emitted("owner_uid").and_then(|u| u.parse::<u32>().ok());
    assert_eq!(uid, Some(our_uid()), "the client runs as we do");
    let who = format!("{owner}@fs.test");
    let slot = stored(&store, "slot2@test");
    assert_eq!(string(&slot, "AuthenticatedIdentity").as_deref(), Some(who.as_str()));
    assert_eq!(string(&slot, "AuthenticationMethod").as_deref(), Some("FS"));
    let ping = ping_result(&run);
    assert!(ping.contains("\"AuthMethods\": \"FS\""), "{ping}");
    assert!(ping.contains(&format!("\"MyRemoteUserName\": \"{who}\"")), "{ping}");
    assert!(ping.contains("\"Encryption\": \"YES\""), "{ping}");
    // The client removed its directories once we had answered.
    for line in run.stderr.lines().filter(|l| l.contains("AUTHENTICATE_FS: used dir ")) {
        let dir = line.split("used dir ").nth(1).and_then(|r| r.split(',').next()).unwrap_or_default();
        assert!(dir.starts_with("/tmp/FS_") && !std::path::Path::new(dir).exists(), "{line}");
    }
}

pub fn fs_failure_falls_back_to_claimtobe(spawn: Spawn) {
    // We cannot name a directory: the client is sent an empty name, says
    // -1, and goes on with CLAIMTOBE.
    let Some((run, store)) = run(spawn, "fs-fallback", fs(Some("/nonexistent/cedar-fs"))) else { return };
    assert_eq!(run.checks, authenticated_checks());
    assert!(run.stderr.contains("AUTHENTICATE_FS: used dir , status: 0"), "{}", run.stderr);
    assert!(run.stderr.contains("AUTHENTICATE: method 4 (FS) failed."), "{}", run.stderr);
    assert!(run.stderr.contains("AUTHENTICATE: auth_status == 2 (CLAIMTOBE)"), "{}", run.stderr);
    let claimed = run.emitted("claimed").expect("the client says what it claims");
    let slot = stored(&store, "slot2@test");
    assert_eq!(string(&slot, "AuthenticatedIdentity").as_deref(), Some(claimed));
    assert_eq!(string(&slot, "AuthenticationMethod").as_deref(), Some("CLAIMTOBE"));
}

/// The fixture's configuration for mode M2: IDTOKENS, the fixture keys.
fn m2(password_directory: Option<&std::path::Path>) -> FixtureOptions {
    let pool = token("keys/POOL");
    let mut options = FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "IDTOKENS"),
        ("TRUST_DOMAIN", "anchor.local"),
        ("SEC_TOKEN_POOL_SIGNING_KEY_FILE", pool.to_str().unwrap_or_default()),
    ]);
    if let Some(dir) = password_directory {
        options.config.push(("SEC_PASSWORD_DIRECTORY".into(), dir.to_string_lossy().into_owned()));
    }
    options
}

pub fn m2_idtokens(spawn: Spawn) {
    let Some((run, store)) = run_with_token(spawn, "m2", m2(None), Some(token("condor.jwt"))) else { return };
    assert_eq!(run.checks, authenticated_checks());
    assert!(run.stderr.contains("SECMAN: successfully enabled encryption!"), "{}", run.stderr);
    // The client's view: the method is TOKEN, we call it condor@anchor.local
    // (and it calls us by the AKEP2 server id, condor@password).
    let ping = ping_result(&run);
    assert!(ping.contains("\"AuthMethodsList\": \"TOKEN\""), "{ping}");
    // The client's record of the method used: the response ad's first
    // method in 23.x, the name of the method it ran in 25.x.
    let method = if run.wheel_major() >= 25 { "IDTOKENS" } else { "TOKEN" };
    assert!(ping.contains(&format!("\"AuthMethods\": \"{method}\"")), "{ping}");
    assert!(ping.contains("\"MyRemoteUserName\": \"condor@anchor.local\""), "{ping}");
    assert!(ping.contains("\"User\": \"condor@password\""), "{ping}");
    let slot = stored(&store, "slot1@test");
    assert_eq!(string(&slot, "AuthenticatedIdentity").as_deref(), Some("condor@anchor.local"));
    assert_eq!(string(&slot, "AuthenticationMethod").as_deref(), Some("IDTOKENS"));
}

pub fn m2_scoped_token(spawn: Spawn) {
    let Some((run, _)) = run_with_token(spawn, "m2-scoped", m2(None), Some(token("authz.jwt"))) else { return };
    assert_eq!(run.checks, ["query", "advertise-startd", "advertise-schedd-denied", "schedd-not-stored"]);
    assert!(run.stderr.contains("Received \"DENIED\" from server"), "{}", run.stderr);
}

pub fn m2_unknown_signing_key(spawn: Spawn, tag: &str) {
    // We list a key "other", but ours is not the one that signed other.jwt.
    let dir = std::env::temp_dir().join(format!("cedar-wheel-keys-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(dir.join("other"), b"not the signing key").expect("a key file");
    let result = run_with_token(spawn, "m2-badkey", m2(Some(&dir)), Some(token("other.jwt")));
    let _ = std::fs::remove_dir_all(&dir);
    let Some((run, _)) = result else { return };
    assert_eq!(run.checks, ["badkey-fails"]);
    // The server's MAC does not verify: the client drops TOKEN, and with
    // nothing left to try the required authentication fails.
    assert!(run.stderr.contains("Failed to authenticate using IDTOKENS"), "{}", run.stderr);
    assert!(run.stderr.contains("no available authentication methods succeeded"), "{}", run.stderr);
}

/// Every scenario as a `#[test]` against the fixture `$spawn` starts
/// (a [`Spawn`]); `$tag` keeps temporary names apart between binaries.
macro_rules! wheel_tests {
    ($spawn:expr, $tag:literal) => {
        #[test]
        fn negotiated_sessions_with_the_cpp_client() {
            scenarios::negotiated_sessions($spawn);
        }
        #[test]
        fn an_all_optional_client_with_default_crypto_methods() {
            scenarios::all_optional_client($spawn);
        }
        #[test]
        fn raw_commands_with_the_cpp_client() {
            scenarios::raw_commands($spawn);
        }
        #[test]
        fn a_client_requiring_authentication_is_refused() {
            scenarios::required_authentication_refused($spawn);
        }
        #[test]
        fn an_unknown_command_is_reported_by_the_client() {
            scenarios::unknown_command($spawn);
        }
        #[test]
        fn a_forgotten_session_fails_one_command_then_a_new_one_is_made() {
            scenarios::forgotten_session($spawn);
        }
        #[test]
        fn a_denied_command_is_reported_by_the_client() {
            scenarios::denied_command($spawn);
        }
        #[test]
        fn m1_claimtobe_and_aes_with_the_cpp_client() {
            scenarios::m1_claimtobe_and_aes($spawn);
        }
        #[test]
        fn m1_an_encrypted_reply_in_hundreds_of_packets() {
            scenarios::m1_reply_in_hundreds_of_packets($spawn);
        }
        #[test]
        fn m1_a_client_with_only_blowfish_is_refused() {
            scenarios::m1_blowfish_only_refused($spawn);
        }
        #[test]
        fn m1_an_advertise_outside_allow_advertise_startd_is_denied() {
            scenarios::m1_advertise_outside_allow_denied($spawn);
        }
        #[test]
        fn fs_with_the_cpp_client() {
            scenarios::fs_with_the_cpp_client($spawn);
        }
        #[test]
        fn fs_failing_falls_back_to_claimtobe_with_the_cpp_client() {
            scenarios::fs_failure_falls_back_to_claimtobe($spawn);
        }
        #[test]
        fn m2_idtokens_with_a_real_token() {
            scenarios::m2_idtokens($spawn);
        }
        #[test]
        fn m2_a_scoped_token_is_limited_to_its_scopes() {
            scenarios::m2_scoped_token($spawn);
        }
        #[test]
        fn m2_a_token_signed_by_a_key_we_do_not_have_fails() {
            scenarios::m2_unknown_signing_key($spawn, $tag);
        }
    };
}
pub(crate) use wheel_tests;
