//! The authenticated client (modes M1 and M2) against the test collector
//! of `examples/test_collector.rs` configured as a secure server:
//! CLAIMTOBE, FS and TOKEN (IDTOKENS, with a token made by the real
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

/// FS against the fixture naming its directories in `dir` (`None`: one
/// that does not exist), with CLAIMTOBE second.
#[cfg(unix)]
fn fs_fixture(dir: Option<&std::path::Path>) -> FixtureOptions {
    let dir = dir.map(|d| d.to_str().unwrap().to_owned()).unwrap_or_else(|| "/nonexistent/cedar-fs".into());
    FixtureOptions::secure(&[
        ("SEC_DEFAULT_AUTHENTICATION", "REQUIRED"),
        ("SEC_DEFAULT_AUTHENTICATION_METHODS", "FS,CLAIMTOBE"),
        ("SEC_DEFAULT_CRYPTO_METHODS", "AES"),
        ("UID_DOMAIN", "Client.Test"),
        ("FS_LOCAL_DIR", &dir),
    ])
}

#[cfg(unix)]
#[test]
fn fs_as_the_user_we_run_as_and_the_directory_is_removed() {
    let dir = std::env::temp_dir().join(format!("cedar-client-fs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    let (addr, store) = spawn("127.0.0.1:0", fs_fixture(Some(&dir))).unwrap();
    let me = nix::unistd::User::from_uid(nix::unistd::geteuid()).unwrap().unwrap().name;
    let who = format!("{me}@client.test");
    exercise(Sinful::from_addr(addr), ClientConfig::authenticated(&[AuthMethod::Fs]), &who);
    // The updates were recorded with the method and the identity.
    let ads = store.lock().unwrap().clone();
    let slot = ads.iter().find(|a| a.eval_attr("Name") == classad::Value::from("a@h")).unwrap();
    assert_eq!(slot.eval_attr("AuthenticationMethod"), classad::Value::from("FS"));
    assert_eq!(slot.eval_attr("AuthenticatedIdentity"), classad::Value::from(who.as_str()));
    // Each FS exchange made a directory there; the client removed them all.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn fs_failing_falls_back_to_claimtobe() {
    // The server cannot name a directory: it sends an empty path, we send
    // -1, it refuses, and the next method is CLAIMTOBE.
    let (addr, _store) = spawn("127.0.0.1:0", fs_fixture(None)).unwrap();
    let mut config = ClientConfig::authenticated(&[AuthMethod::Fs, AuthMethod::Claimtobe]);
    config.claim_to_be_user = Some("alice".into());
    let conn = Client::new(config.clone()).start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.my_remote_user(), Some("alice"));
    drop(conn);
    // FS alone: the required authentication fails.
    let config = ClientConfig::authenticated(&[AuthMethod::Fs]);
    let e = Client::new(config).start(&Sinful::from_addr(addr), QUERY_STARTD_ADS).unwrap_err();
    assert_eq!(e.message(), "Failed to authenticate with any method");
}

/// The client's FS steps, sans-IO, against a scripted server: the
/// directory it makes for the path the server names, and its removal
/// whatever the server's verdict.
#[cfg(unix)]
#[test]
fn fs_client_steps_make_and_remove_the_directory() {
    use std::os::unix::fs::PermissionsExt;

    use cedar::client::{StartCommand, Step};
    use cedar::wire::{Decoder, Encoder, Message};

    fn msg(build: impl FnOnce(&mut Encoder)) -> Message {
        let mut enc = Encoder::new(false);
        build(&mut enc);
        Message { payload: enc.into_bytes(), encrypted: false }
    }
    fn sent_int(step: Step) -> i64 {
        let Step::Send(bytes) = step else { panic!("{step:?}") };
        let mut dec = Decoder::new(&bytes, false);
        let v = dec.get_int().unwrap();
        dec.finish().unwrap();
        v
    }
    let kx = cedar::crypto::KeyExchange::generate();
    let response: ClassAd = format!(
        r#"[ Authentication = "YES"; Encryption = "YES"; Integrity = "YES"; AuthMethodsList = "FS";
            AuthMethods = "FS"; CryptoMethods = "AES"; CryptoMethodsList = "AES"; ECDHPublicKey = "{}";
            Enact = "YES"; AuthRequired = true; SessionDuration = "60"; SessionLease = 3600;
            NegotiatedSession = true; RemoteVersion = "$CondorVersion: 23.9.6 2024-10-10 BuildID: 0 $" ]"#,
        kx.public_key_base64()
    )
    .parse()
    .unwrap();
    let dir = std::env::temp_dir().join(format!("cedar-client-fs-steps-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    // `path` as the server's name; the server's verdict `verdict`. What
    // the client sent for its mkdir, and after the verdict (-2: it reads
    // exchangeKey's flag; otherwise its next bitmask).
    let run_with = |config: &ClientConfig, peer: Option<&str>, path: &str, verdict: i64| -> (i64, String, i64) {
        let mut start = StartCommand::new(config, "<127.0.0.1:9618?sock=collector>", QUERY_STARTD_ADS, None)
            .with_peer_addr(peer.map(|p| p.parse().unwrap()));
        assert!(matches!(start.poll().unwrap(), Step::Send(_))); // our security ad
        assert!(matches!(start.poll().unwrap(), Step::Read));
        let step = start.on_message(msg(|e| cedar::wire::ad::put_classad(e, &response, &Default::default()).unwrap()));
        assert_eq!(sent_int(step.unwrap()), 4, "the bitmask: FS");
        assert!(matches!(start.poll().unwrap(), Step::Read));
        assert!(matches!(start.on_message(msg(|e| e.put_int(4))).unwrap(), Step::Read));
        let Step::Send(bytes) = start.on_message(msg(|e| e.put_str(path).unwrap())).unwrap() else { panic!() };
        let mut dec = Decoder::new(&bytes, false);
        let result = dec.get_int().unwrap();
        let ext = if dec.remaining().is_empty() { String::new() } else { dec.get_string().unwrap() };
        dec.finish().unwrap();
        let made = format!("{path}{ext}");
        let p = std::path::Path::new(&made);
        if result == 0 {
            let meta = std::fs::symlink_metadata(p).unwrap();
            assert!(meta.is_dir() && meta.permissions().mode() & 0o7777 == 0o700, "{meta:?}");
        }
        assert!(matches!(start.poll().unwrap(), Step::Read));
        let next = start.on_message(msg(|e| e.put_int(verdict)));
        if result == 0 {
            assert!(!p.exists(), "{made} was removed");
        }
        let next = match next.unwrap() {
            Step::Read => -2,
            s => sent_int(s),
        };
        (result, ext, next)
    };
    let fs_only = ClientConfig::authenticated(&[AuthMethod::Fs]);
    let run = |path: &str, verdict: i64| {
        let (result, ext, next) = run_with(&fs_only, None, path, verdict);
        assert_eq!(ext, "");
        (result, next)
    };
    let path = dir.join("FS_abc");
    assert_eq!(run(path.to_str().unwrap(), 0), (0, -2));
    assert_eq!(run(path.to_str().unwrap(), -1), (0, 0));
    // An empty name, a relative one, one we cannot make: -1, nothing made.
    assert_eq!(run("", -1), (-1, 0));
    assert_eq!(run("FS_relative", -1), (-1, 0));
    assert!(!std::path::Path::new("FS_relative").exists());
    assert_eq!(run("/nonexistent/cedar/FS_x", -1), (-1, 0));
    // A path that exists already is not ours: mkdir fails, and it stays.
    std::fs::create_dir(&path).unwrap();
    assert_eq!(run(path.to_str().unwrap(), -1), (-1, 0));
    assert!(path.is_dir());

    // Channel binding, knowing the server's address: a name ending in `_`
    // gets our view of it (and the shared-port id we connected to)
    // appended, and the server is told; another name must start with
    // FS_<ip>_<port>_.
    let bound = |path: &str| run_with(&fs_only, Some("127.0.0.1:9618"), path, 0);
    let d = dir.to_str().unwrap();
    assert_eq!(bound(&format!("{d}/FS_127.0.0.1_9618_abc_")), (0, "127.0.0.1:9618?sock=collector".into(), -2));
    assert_eq!(bound(&format!("{d}/FS_127.0.0.1_9618_abc")), (0, String::new(), -2));
    assert_eq!(bound(&format!("{d}/FS_127.0.0.1_9619_abc")), (-1, String::new(), 0));
    assert_eq!(bound(&format!("{d}/FS_abc")), (-1, String::new(), 0), "a 23.x server's name");
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| e.unwrap().path() == path), "nothing else was made");
    // Without binding (SEC_FS_ENFORCE_CHANNEL_BINDING = false), as 23.x.
    let mut unbound = fs_only.clone();
    unbound.fs_channel_binding = false;
    let name = format!("{d}/FS_abc_");
    assert_eq!(run_with(&unbound, Some("127.0.0.1:9618"), &name, 0), (0, String::new(), -2));
    let _ = std::fs::remove_dir_all(&dir);
}
