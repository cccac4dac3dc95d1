//! The authenticated client (modes M1 and M2) against the test collector
//! of `examples/test_collector.rs` configured as a secure server:
//! CLAIMTOBE and TOKEN (IDTOKENS, with a token made by the real
//! `condor_token_create`, `tests/data/token/condor.jwt`), the ECDH key,
//! AES-GCM on the rest of the connection, keyed resumption and encrypted
//! follow-on commands.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

#[path = "../examples/test_collector.rs"]
mod test_collector;

use std::path::PathBuf;

use cedar::client::collector::Update;
use cedar::client::{Client, ClientConfig, CollectorClient, Query};
use cedar::command::*;
use cedar::handshake::Via;
use cedar::policy::AuthMethod;
use cedar::sinful::Sinful;
use cedar::ErrorKind;
use classad::ClassAd;
use test_collector::{spawn, FixtureOptions};

fn token(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/token").join(name)
}

fn m1() -> FixtureOptions {
    FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION", "REQUIRED"),
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE"),
        ("SEC_DEFAULT_CRYPTO_METHODS", "AES"),
    ])
}

fn m2() -> FixtureOptions {
    let pool = token("keys/POOL");
    FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION", "REQUIRED"),
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "IDTOKENS"),
        ("SEC_DEFAULT_CRYPTO_METHODS", "AES"),
        ("TRUST_DOMAIN", "anchor.local"),
        ("SEC_TOKEN_POOL_SIGNING_KEY_FILE", pool.to_str().unwrap()),
    ])
}

fn slot(name: &str) -> Update {
    let mut ad = ClassAd::new();
    ad.insert("MyType", "Machine");
    ad.insert("Name", name);
    ad.insert("Cpus", 2);
    ad.insert("MyAddress", "<127.0.0.1:5?noUDP>");
    let mut private = ClassAd::new();
    private.insert("ClaimId", "secret");
    Update::with_private(ad, private)
}

/// Queries, updates (follow-ons on one encrypted connection) and a resumed
/// encrypted session, as `user`.
fn exercise(addr: Sinful, config: ClientConfig, user: &str) {
    let client = Client::new(config);
    let mut conn = client.start(&addr, QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    assert!(conn.connection().is_encrypted());
    assert_eq!(conn.my_remote_user(), Some(user));
    conn.send_ads(&[&Query::collector().to_ad()], &Default::default()).unwrap();
    let reply = conn.read_message().unwrap();
    assert!(reply.encrypted);
    conn.hang_up().unwrap();

    let c = CollectorClient::new(client.clone(), addr.clone());
    c.advertise(UPDATE_STARTD_AD, &[slot("a@h"), slot("b@h")]).unwrap();
    let got = c.query(&Query::startd()).unwrap();
    assert_eq!(got.len(), 2);
    // The READ session was resumed, with its key.
    let mut conn = client.start(&addr, QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::ResumedSession));
    assert!(conn.connection().is_encrypted());
    conn.send_ads(&[&Query::startd().to_ad()], &Default::default()).unwrap();
    assert!(conn.read_message().unwrap().encrypted);
}

#[test]
fn m1_claimtobe_with_aes() {
    let (addr, _store) = spawn("127.0.0.1:0", m1()).unwrap();
    let mut config = ClientConfig::authenticated(&[AuthMethod::Claimtobe]);
    config.claim_to_be_user = Some("alice".into());
    exercise(Sinful::from_addr(addr), config, "alice");
}

#[test]
fn m2_idtokens_with_a_real_token() {
    let (addr, _store) = spawn("127.0.0.1:0", m2()).unwrap();
    let mut config = ClientConfig::authenticated(&[AuthMethod::Token]);
    config.tokens = vec![std::fs::read_to_string(token("condor.jwt")).unwrap()];
    exercise(Sinful::from_addr(addr), config.clone(), "condor@anchor.local");

    // From a token directory instead.
    let dir = std::env::temp_dir().join(format!("cedar-client-tokens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(token("condor.jwt"), dir.join("condor")).unwrap();
    config.tokens.clear();
    config.token_dirs = vec![dir.clone()];
    let client = Client::new(config);
    let mut conn = client.start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.my_remote_user(), Some("condor@anchor.local"));
    assert!(conn.connection().is_encrypted());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn without_a_usable_method_authentication_fails() {
    // TOKEN without a token, then a token signed by a key the server does
    // not hold: the client offers nothing, and the required authentication
    // fails with C++'s words.
    let (addr, _store) = spawn("127.0.0.1:0", m2()).unwrap();
    let client = Client::new(ClientConfig::authenticated(&[AuthMethod::Token]));
    let e = client.start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication, "{e}");
    assert_eq!(e.message(), "Failed to authenticate with any method");

    let mut config = ClientConfig::authenticated(&[AuthMethod::Token]);
    config.tokens = vec![std::fs::read_to_string(token("other.jwt")).unwrap()];
    let e = Client::new(config).start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Authentication | ErrorKind::Closed | ErrorKind::Denied), "{e}");

    // CLAIMTOBE without a name fails the method, and so the command.
    let (addr, _store) = spawn("127.0.0.1:0", m1()).unwrap();
    let mut config = ClientConfig::authenticated(&[AuthMethod::Claimtobe]);
    config.claim_to_be_user = None;
    let e = Client::new(config).start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap_err();
    assert_eq!(e.message(), "Failed to authenticate with any method");
}
