//! The collector against HTCondor's real C++ client (the `htcondor` wheel):
//! the wheel scenarios cedar runs against its test fixture
//! (`cedar/tests/wheel/scenarios.rs`, which says how to get the wheel), here
//! against the collector itself, served on tokio with its configuration
//! read from HTCondor knobs as the daemon reads them: queries, advertise,
//! locate and ping in plaintext, raw, AES + CLAIMTOBE, FS and IDTOKENS modes,
//! and denials.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../cedar/examples/test_collector.rs"]
mod test_collector;

#[path = "../../cedar/tests/wheel/scenarios.rs"]
#[allow(dead_code, unused_macros, unused_imports)]
mod scenarios;

use std::net::SocketAddr;
use std::sync::{Arc, PoisonError};

use cedar::handshake::{ServerConfig, ServerPolicies};
use cedar::sinful::Sinful;
use cedar::token::key::FileCheck;
use cedar::tokio::ServerOptions;
use classad::ClassAd;
use collector::config::CollectorConfig;
use collector::server::Collector;
use collector::Table;

pub use test_collector::FixtureOptions;

/// What the scenarios read back: every stored ad, private attributes
/// included.
#[derive(Clone)]
pub struct Store(Arc<Collector>);

impl Store {
    /// All the ads, as the fixture's `Mutex<Vec<ClassAd>>` gives them.
    pub fn lock(&self) -> Result<Vec<ClassAd>, PoisonError<Vec<ClassAd>>> {
        let store = self.0.store();
        let mut ads = Vec::new();
        for table in store.tables() {
            if table == Table::StartdPrivate {
                continue;
            }
            ads.extend(store.snapshot(&table).iter().map(|r| r.with_private().clone()));
        }
        Ok(ads)
    }
}

/// The collector on a free loopback port, on a runtime of its own.
fn spawn(options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    let lookup = |k: &str| options.lookup(k);
    let mut server = ServerConfig::from_config("COLLECTOR", Collector::commands(), &lookup, FileCheck::none())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?
        .hostname("127.0.0.1");
    if !options.secure {
        server = server.policies(ServerPolicies::plaintext());
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let address = Sinful::from_addr(addr).with_param("noUDP", None).to_string();
    let config = CollectorConfig::from_config("127.0.0.1", &lookup)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let collector = Arc::new(Collector::new(config, Arc::new(server), address));
    let store = Store(collector.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let serve_options = ServerOptions::default().max_packet(options.max_packet);
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
            if let Err(e) = collector.serve(listener, serve_options, std::future::pending()).await {
                eprintln!("collector: {e}");
            }
        });
    });
    Ok((addr, store))
}

#[test]
fn negotiated_sessions_with_the_cpp_client() {
    scenarios::negotiated_sessions(spawn);
}

#[test]
fn an_all_optional_client_with_default_crypto_methods() {
    scenarios::all_optional_client(spawn);
}

#[test]
fn raw_commands_with_the_cpp_client() {
    scenarios::raw_commands(spawn);
}

#[test]
fn a_client_requiring_authentication_is_refused_in_plaintext_mode() {
    scenarios::required_authentication_refused(spawn);
}

#[test]
fn a_license_query_is_served_with_no_ads() {
    // The C++ collector registers QUERY_LICENSE_ADS, which the cedar
    // fixture does not: its "unknown command" is a known one here.
    scenarios::license_query_served(spawn);
}

#[test]
fn a_denied_command_is_reported_by_the_client() {
    scenarios::denied_command(spawn);
}

#[test]
fn aes_and_claimtobe_with_the_cpp_client() {
    scenarios::m1_claimtobe_and_aes(spawn);
}

#[test]
fn an_encrypted_reply_in_hundreds_of_packets() {
    scenarios::m1_reply_in_hundreds_of_packets(spawn);
}

#[test]
fn a_client_with_only_blowfish_is_refused() {
    scenarios::m1_blowfish_only_refused(spawn);
}

#[test]
fn an_advertise_outside_allow_advertise_startd_is_denied() {
    scenarios::m1_advertise_outside_allow_denied(spawn);
}

#[test]
fn fs_with_the_cpp_client() {
    scenarios::fs_with_the_cpp_client(spawn);
}

#[test]
fn fs_failing_falls_back_to_claimtobe_with_the_cpp_client() {
    scenarios::fs_failure_falls_back_to_claimtobe(spawn);
}

#[test]
fn idtokens_with_a_real_token() {
    scenarios::m2_idtokens(spawn);
}

#[test]
fn a_scoped_token_is_limited_to_its_scopes() {
    scenarios::m2_scoped_token(spawn);
}

#[test]
fn a_token_signed_by_a_key_we_do_not_have_fails() {
    scenarios::m2_unknown_signing_key(spawn, "collector");
}

/// The interpreter with the wheel, as the scenarios find it
/// (`CEDAR_WHEEL_PYTHON`, else `<workspace>/.venv`); `None` skips,
/// unless `CEDAR_REQUIRE_WHEEL=1`.
fn wheel_python() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("CEDAR_WHEEL_PYTHON") {
        return Some(p.into());
    }
    let venv = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    assert!(std::env::var_os("CEDAR_REQUIRE_WHEEL").is_none_or(|v| v != "1"), "CEDAR_REQUIRE_WHEEL=1 but no wheel");
    eprintln!("skipped: no Python with the htcondor wheel (see cedar/tests/wheel/scenarios.rs)");
    None
}

/// Runs `tests/wheel/knobs.py scenario` against a collector with
/// `options`; the lines it printed.
fn run_knobs(scenario: &str, options: FixtureOptions) -> Option<Vec<String>> {
    let python = wheel_python()?;
    let (addr, _store) = spawn(options).expect("the collector listens");
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wheel/knobs.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(scenario)
        .arg(addr.to_string())
        .env_remove("CONDOR_CONFIG")
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{scenario}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    Some(stdout.lines().map(str::to_owned).collect())
}

#[test]
fn collector_requirements_with_the_cpp_client() {
    // Against condor_collector 23.9.6 with the same knob, both wheels
    // (23.10.29, 25.14.1) printed exactly these lines: a refused plain
    // update is not reported, a refused UPDATE_STARTD_AD_WITH_ACK raises
    // ("startd-with-ack protocol": no acknowledgement came).
    let options = FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE"),
        ("COLLECTOR_REQUIREMENTS", r#"Name =!= "refused""#),
    ]);
    let Some(lines) = run_knobs("requirements", options) else { return };
    assert_eq!(
        lines,
        [
            r#"{"advertise": "ok", "command": "UPDATE_MASTER_AD", "raised": false}"#,
            r#"{"advertise": "refused", "command": "UPDATE_MASTER_AD", "raised": false}"#,
            r#"{"advertise": "refused slot", "error": "startd-with-ack protocol"}"#,
            r#"{"advertise": "refused slot", "command": "UPDATE_STARTD_AD_WITH_ACK", "raised": true}"#,
            r#"{"stored": ["ok"]}"#,
        ]
    );
}

#[test]
fn own_submitter_ads_with_the_cpp_client() {
    // Against condor_collector 23.9.6 (ALLOW_DAEMON and
    // ALLOW_ADVERTISE_SCHEDD leaving everyone out), CLAIMTOBE as alice:
    // the same lines. The update of bob@x is dropped, unreported.
    let nobody = "nobody@nowhere/127.0.0.2";
    let options = FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE"),
        ("ALLOW_DAEMON", nobody),
        ("ALLOW_ADVERTISE_SCHEDD", nobody),
    ]);
    let Some(lines) = run_knobs("own-submitter", options) else { return };
    assert_eq!(
        lines,
        [
            r#"{"advertise": "alice@x", "command": "UPDATE_OWN_SUBMITTOR_AD", "raised": false}"#,
            r#"{"advertise": "group.alice@x", "command": "UPDATE_OWN_SUBMITTOR_AD", "raised": false}"#,
            r#"{"advertise": "bob@x", "command": "UPDATE_OWN_SUBMITTOR_AD", "raised": false}"#,
            r#"{"stored": ["alice@x", "group.alice@x"]}"#,
        ]
    );
}
