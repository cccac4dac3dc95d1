//! The client side of the command protocol: the security ads it sends
//! (compared with ads captured from the real C++ client,
//! `tests/data/handshake/`), and whole commands against the test collector
//! of `examples/test_collector.rs`: new and resumed sessions, raw and
//! follow-on commands, `SID_NOT_FOUND`, refusals, shared port, timeouts and
//! hostile servers.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

#[path = "../examples/test_collector.rs"]
mod test_collector;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use cedar::client::collector::Update;
use cedar::client::{Client, ClientConfig, ClientSession, CollectorClient, Query, StartCommand, Step};
use cedar::command::*;
use cedar::handshake::Via;
use cedar::policy::{AuthMethod, SecurityLevel};
use cedar::sinful::Sinful;
use cedar::wire::ad::get_classad;
use cedar::wire::{Decoder, Inbound, Message};
use cedar::ErrorKind;
use classad::ClassAd;
use test_collector::{spawn, FixtureOptions};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/handshake/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// The names of a captured ad (one `Name = value` per line).
fn captured_names(name: &str) -> BTreeSet<String> {
    data(name).lines().filter_map(|l| l.split_once(" = ")).map(|(n, _)| n.to_owned()).collect()
}

/// A captured ad as a ClassAd.
fn captured_ad(name: &str) -> ClassAd {
    format!("[{}]", data(name).lines().collect::<Vec<_>>().join(";")).parse().unwrap()
}

fn names(ad: &ClassAd) -> BTreeSet<String> {
    ad.names().map(|n| n.to_string()).collect()
}

/// The security ad of the first message a [`StartCommand`] sends.
fn first_ad(start: &mut StartCommand) -> ClassAd {
    let Step::Send(payload) = start.poll().unwrap() else { panic!("no message to send") };
    let mut dec = Decoder::new(&payload, false);
    assert_eq!(dec.get_int().unwrap(), i64::from(DC_AUTHENTICATE));
    let ad = get_classad(&mut dec, &Default::default()).unwrap();
    dec.finish().unwrap();
    ad
}

#[test]
fn new_session_ad_has_the_cpp_clients_attributes() {
    // The captured ad is the 23.10.29 wheel's, with CLAIMTOBE and
    // TRUST_DOMAIN = vm. It also carries AuthenticationNew, which 23.10
    // added and 23.9.6 does not send (no such attribute in its
    // condor_secman.cpp or condor_attributes.h).
    let mut config = ClientConfig::default();
    config.policy.authentication = SecurityLevel::Preferred;
    config.policy.encryption = SecurityLevel::Optional;
    config.policy.integrity = SecurityLevel::Optional;
    config.policy.auth_methods = vec![AuthMethod::Claimtobe];
    config.trust_domain = Some("vm".into());
    let mut start = StartCommand::new(&config, "<127.0.0.1:19685>", QUERY_COLLECTOR_ADS, None);
    let ad = first_ad(&mut start);
    let mut expected = captured_names("client_new_session.ad");
    expected.remove("AuthenticationNew");
    assert_eq!(names(&ad), expected);
    // Types and values as C++ sends them.
    assert_eq!(ad.eval_attr("SessionDuration").as_str(), Some("60"));
    assert_eq!(ad.eval_attr("SessionLease"), classad::Value::Int(3600));
    assert_eq!(ad.eval_attr("NegotiatedSession"), classad::Value::Bool(true));
    assert_eq!(ad.eval_attr("Command"), classad::Value::Int(20));
    assert_eq!(ad.eval_attr("ConnectSinful").as_str(), Some("<127.0.0.1:19685>"));
    assert_eq!(ad.eval_attr("Enact").as_str(), Some("NO"));
    assert_eq!(ad.eval_attr("NewSession").as_str(), Some("YES"));
    assert_eq!(ad.eval_attr("AuthMethods").as_str(), Some("CLAIMTOBE"));
    assert_eq!(ad.eval_attr("CryptoMethods").as_str(), Some("AES"));
    assert_eq!(ad.eval_attr("ECDHPublicKey").as_str().map(str::len), Some(88));
    assert!(matches!(ad.eval_attr("ServerPid"), classad::Value::Int(_)));
}

#[test]
fn the_m0_client_offers_no_method_and_refuses_every_feature() {
    let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:9618>", QUERY_STARTD_ADS, None);
    let ad = first_ad(&mut start);
    for feature in ["Authentication", "Encryption", "Integrity"] {
        assert_eq!(ad.eval_attr(feature).as_str(), Some("NEVER"), "{feature}");
    }
    assert_eq!(ad.eval_attr("OutgoingNegotiation").as_str(), Some("PREFERRED"));
    // No method list, so no TrustDomain either (UpdateAuthenticationMetadata
    // runs only for a non-empty list).
    assert!(ad.lookup("AuthMethods").is_none() && ad.lookup("TrustDomain").is_none());
    assert_eq!(ad.eval_attr("Subsystem").as_str(), Some("TOOL"));
    assert!(ad.lookup("AuthCommand").is_none());
    let mut ping = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:9618>", DC_SEC_QUERY, None)
        .with_auth_command(QUERY_STARTD_ADS);
    assert_eq!(first_ad(&mut ping).eval_attr("AuthCommand"), classad::Value::Int(5));
}

/// A session as the post-auth ad of `server_post_auth.ad` makes it.
fn cached(server_version: Option<&str>) -> ClientSession {
    let now = Instant::now();
    ClientSession {
        id: "127.0.0.1:111921:1796188470:2".into(),
        connect_addr: "<127.0.0.1:19685>".into(),
        server_version: server_version.map(str::to_owned),
        my_remote_user: Some("unauthenticated@unmapped".into()),
        auth_method: None,
        encryption: false,
        key: None,
        valid_commands: vec![5, 20],
        expires: Some(now + Duration::from_secs(60)),
        lease: Some(Duration::from_secs(3600)),
        last_used: now,
    }
}

#[test]
fn resume_ad_holds_what_the_cpp_client_puts_on_the_wire() {
    // capture.py's note: on the wire (checked with a proxy) a C++ resume ad
    // holds only these seven attributes for a keyless session of a tool.
    let wire: BTreeSet<String> =
        ["Command", "ConnectSinful", "Nonce", "RemoteVersion", "ResumeResponse", "Sid", "UseSession"]
            .into_iter()
            .map(str::to_owned)
            .collect();
    let session = cached(Some("$CondorVersion: 23.9.6 2024-08-08 BuildID: 0 $"));
    let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:19685>", QUERY_STARTD_ADS, Some(&session));
    let ad = first_ad(&mut start);
    assert_eq!(names(&ad), wire);
    // ... and each of them is in the ad the wheel logged.
    assert!(wire.is_subset(&captured_names("client_resume.ad")));
    assert_eq!(ad.eval_attr("ResumeResponse"), classad::Value::Bool(true));
    assert_eq!(ad.eval_attr("UseSession").as_str(), Some("YES"));
    assert_eq!(ad.eval_attr("Sid").as_str(), Some("127.0.0.1:111921:1796188470:2"));
    assert_eq!(ad.eval_attr("Nonce").as_str().map(str::len), Some(44)); // base64 of 33 bytes
    assert!(matches!(start.poll().unwrap(), Step::Read));

    // A server of unknown version (or older than 9.9.0) is not asked to
    // answer, and the command goes right after the resume ad.
    let old = cached(None);
    let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:19685>", QUERY_STARTD_ADS, Some(&old));
    assert_eq!(first_ad(&mut start).eval_attr("ResumeResponse"), classad::Value::Bool(false));
    let Step::Ready(started) = start.poll().unwrap() else { panic!("not ready") };
    assert_eq!(started.via, Via::ResumedSession);
    assert!(!started.raw);
}

#[test]
fn a_raw_client_sends_nothing_before_the_command() {
    let mut start = StartCommand::new(&ClientConfig::default().raw(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None);
    let Step::Ready(started) = start.poll().unwrap() else { panic!("not ready") };
    assert!(started.raw);
    assert_eq!(started.via, Via::Raw);
    assert!(start.poll().is_err());
}

fn sinful(addr: SocketAddr) -> Sinful {
    Sinful::from_addr(addr)
}

fn fixture() -> (Sinful, test_collector::Store) {
    let (addr, store) = spawn("127.0.0.1:0", FixtureOptions::default()).unwrap();
    (sinful(addr), store)
}

fn stored_names(store: &test_collector::Store) -> Vec<String> {
    let ads = store.lock().unwrap();
    let mut n: Vec<String> = ads.iter().filter_map(|a| a.eval_attr("Name").as_str().map(str::to_owned)).collect();
    n.sort();
    n
}

#[test]
fn sessions_are_made_cached_and_resumed() {
    let (addr, _store) = fixture();
    let client = Client::new(ClientConfig::default());
    let mut conn = client.start(&addr, QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    let sid = conn.session_id().unwrap().to_owned();
    assert_eq!(conn.my_remote_user(), Some("unauthenticated@unmapped"));
    assert!(conn.server_version().is_some_and(|v| v.built_since(23, 9, 0)));
    conn.send_ads(&[&Query::collector().to_ad()], &Default::default()).unwrap();
    let reply = conn.read_message().unwrap();
    let mut dec = Decoder::new(&reply.payload, false);
    assert_eq!(dec.get_int().unwrap(), 1);
    let ad = get_classad(&mut dec, &Default::default()).unwrap();
    assert_eq!(ad.eval_attr("MyType").as_str(), Some("Collector"));
    assert_eq!(dec.get_int().unwrap(), 0);
    conn.hang_up().unwrap();
    // Another READ command to the same address resumes the session.
    let conn = client.start(&addr, QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::ResumedSession));
    assert_eq!(conn.session_id(), Some(sid.as_str()));
    conn.hang_up().unwrap();
    // A command of another level makes its own session.
    let conn = client.start(&addr, UPDATE_SCHEDD_AD).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    assert_ne!(conn.session_id(), Some(sid.as_str()));
    assert_eq!(client.sessions().lock().unwrap().len(), 2);
}

#[test]
fn collector_queries_updates_and_invalidations() {
    let (addr, store) = fixture();
    for config in [ClientConfig::default(), ClientConfig::default().raw()] {
        let collector = CollectorClient::new(Client::new(config), addr.clone());
        let slot = |name: &str, cpus: i64| {
            let mut ad = ClassAd::new();
            ad.insert("MyType", "Machine");
            ad.insert("Name", name);
            ad.insert("Cpus", cpus);
            ad.insert("MyAddress", "<127.0.0.1:5?noUDP>");
            let mut private = ClassAd::new();
            private.insert("ClaimId", format!("secret-{name}"));
            Update::with_private(ad, private)
        };
        // Three updates on one connection: the second and third are follow-on
        // commands.
        collector.advertise(UPDATE_STARTD_AD, &[slot("a@h", 1), slot("b@h", 4), slot("c@h", 8)]).unwrap();
        let got = collector.query(&Query::startd().constraint("Cpus > 2").unwrap().projection(["Name"])).unwrap();
        let mut names: Vec<_> = got.iter().map(|a| a.eval_attr("Name").as_str().unwrap().to_owned()).collect();
        names.sort();
        assert_eq!(names, ["b@h", "c@h"]);
        assert!(got.iter().all(|a| a.len() == 1), "projected to Name");
        assert_eq!(collector.query(&Query::startd().limit(1)).unwrap().len(), 1);
        collector.advertise(UPDATE_STARTD_AD_WITH_ACK, &[Update::new(slot("d@h", 2).ad)]).unwrap();
        assert!(stored_names(&store).contains(&"d@h".to_owned()));
        collector.invalidate(INVALIDATE_STARTD_ADS, &Query::startd().constraint("Cpus >= 1").unwrap()).unwrap();
        // The fixture serves one connection at a time: this query is read
        // after the invalidation's connection is over.
        assert!(collector.query(&Query::startd()).unwrap().is_empty());
        assert_eq!(stored_names(&store), ["test_collector@127.0.0.1"]);
    }
}

#[test]
fn a_forgotten_session_fails_one_command_then_a_new_one_is_made() {
    let (addr, _store) = fixture();
    let client = Client::new(ClientConfig::default());
    let collector = CollectorClient::new(client.clone(), addr.clone());
    collector.query(&Query::startd()).unwrap();
    let forget = || {
        // The fixture's hook: drop every server-side session, as a restart would.
        collector.invalidate(INVALIDATE_ADS_GENERIC, &Query::new(INVALIDATE_ADS_GENERIC, "ForgetSessions")).unwrap();
    };
    forget();
    // As the C++ client (condor_secman.cpp 2243-2257): the command fails,
    // the session is dropped ...
    let mut conn = client.connect(&addr).unwrap();
    let e = conn.start_command(QUERY_STARTD_ADS).unwrap_err();
    assert_eq!(e.message(), "Server rejected our session id");
    assert!(conn.session_rejected());
    // ... and the next command makes a new session.
    let conn = client.start(&addr, QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    drop(conn);

    // With retry_rejected_session the client starts again at once.
    let retrying = Client::new(ClientConfig::default().retry_rejected_session(true));
    let collector = CollectorClient::new(retrying.clone(), addr.clone());
    collector.query(&Query::startd()).unwrap();
    CollectorClient::new(client, addr.clone())
        .invalidate(INVALIDATE_ADS_GENERIC, &Query::new(INVALIDATE_ADS_GENERIC, "ForgetSessions"))
        .unwrap();
    let conn = retrying.start(&addr, QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
}

#[test]
fn unknown_and_denied_commands_fail_with_the_cpp_clients_words() {
    let (addr, _) = spawn(
        "127.0.0.1:0",
        FixtureOptions { config: vec![("DENY_ADVERTISE_SCHEDD".into(), "*".into())], ..Default::default() },
    )
    .unwrap();
    let client = Client::new(ClientConfig::default());
    let e = client.start(&sinful(addr), 4242).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Closed);
    assert_eq!(e.message(), "Connection closed during command authorization. Probably due to an unknown command.");
    let e = client.start(&sinful(addr), UPDATE_SCHEDD_AD).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Denied);
    assert!(e.message().starts_with("Received \"DENIED\" from server for user unauthenticated@unmapped"), "{e}");
}

#[test]
fn server_answers_against_our_policy_are_refused() {
    let mut config = ClientConfig::default();
    config.policy.authentication = SecurityLevel::Required;
    let mut start = StartCommand::new(&config, "<127.0.0.1:1>", QUERY_STARTD_ADS, None);
    first_ad(&mut start);
    // A server answering Authentication = "NO" to our REQUIRED is refused.
    let reply: ClassAd =
        r#"[ Authentication = "NO"; Encryption = "NO"; Integrity = "NO"; Enact = "YES" ]"#.parse().unwrap();
    let e = start.on_message(message(&reply)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Policy);
    // And one that turns authentication on when we said NEVER.
    let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None);
    first_ad(&mut start);
    let reply: ClassAd =
        r#"[ Authentication = "YES"; Encryption = "NO"; Integrity = "NO"; AuthMethodsList = "FS" ]"#.parse().unwrap();
    assert_eq!(start.on_message(message(&reply)).unwrap_err().kind(), ErrorKind::Policy);
    // A missing action attribute is C++'s protocol error.
    let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None);
    first_ad(&mut start);
    let e = start.on_message(message(&ClassAd::new())).unwrap_err();
    assert_eq!(e.message(), "Protocol Error: Action attribute missing.");
}

fn message(ad: &ClassAd) -> Message {
    let mut enc = cedar::wire::Encoder::new(false);
    cedar::wire::ad::put_classad(&mut enc, ad, &Default::default()).unwrap();
    Message { payload: enc.into_bytes(), encrypted: false }
}

#[test]
fn the_post_auth_ad_must_name_a_session_and_its_commands() {
    // The ads a real C++ client accepted from the test collector.
    let response = captured_ad("server_response.ad");
    let post = captured_ad("server_post_auth.ad");
    let run = |post: &ClassAd| {
        let mut start = StartCommand::new(&ClientConfig::default(), "<127.0.0.1:19685>", QUERY_COLLECTOR_ADS, None);
        first_ad(&mut start);
        assert!(matches!(start.on_message(message(&response)).unwrap(), Step::Read));
        start.on_message(message(post))
    };
    let Step::Ready(started) = run(&post).unwrap() else { panic!("not ready") };
    let session = started.new_session.unwrap();
    assert_eq!(session.id, "127.0.0.1:111921:1796188470:1");
    assert_eq!(session.valid_commands, [5, 6, 7, 12, 20, 48, 50, 53, 74, 60020]);
    assert!(session.key.is_none() && !session.encryption);
    let mut no_commands = post.clone();
    no_commands.insert("ValidCommands", "");
    assert_eq!(run(&no_commands).unwrap_err().message(), "Protocol Failure: Unable to lookup valid commands.");
    let mut no_sid = post.clone();
    no_sid.remove("Sid");
    assert_eq!(run(&no_sid).unwrap_err().message(), "Failed to lookup session id.");
}

/// A listener that accepts and runs `serve` on each connection.
fn fake_server(serve: impl Fn(TcpStream) + Send + Sync + 'static) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            serve(stream);
        }
    });
    addr
}

#[test]
fn every_read_times_out() {
    let silent = fake_server(|stream| {
        std::thread::sleep(Duration::from_secs(5));
        drop(stream);
    });
    let client = Client::new(ClientConfig::default().timeout(Duration::from_millis(300)));
    let t = Instant::now();
    let e = client.start(&sinful(silent), QUERY_STARTD_ADS).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
fn hostile_servers_give_errors() {
    // Garbage where the response ad should be, a packet over 1 MiB, a
    // hang-up inside a packet, an ad count of a billion: errors, never a
    // panic.
    let replies: Vec<Vec<u8>> = vec![
        vec![1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff],
        vec![0, 0x7f, 0xff, 0xff, 0xff],
        vec![1, 0, 0, 0, 9, 0, 0, 0],
        {
            let mut enc = cedar::wire::Encoder::new(false);
            enc.put_int(1_000_000_000);
            let mut wire = Vec::new();
            cedar::wire::Outbound::new().frame(enc.as_bytes(), &mut wire).unwrap();
            wire
        },
    ];
    for reply in replies {
        let addr = fake_server(move |mut stream| {
            let mut buf = [0u8; 65536];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(&reply);
        });
        let client = Client::new(ClientConfig::default().timeout(Duration::from_millis(500)));
        assert!(client.start(&sinful(addr), QUERY_STARTD_ADS).is_err());
    }
}

#[test]
fn shared_port_connect_then_a_fresh_stream() {
    let (collector, _store) = fixture();
    let target = collector.socket_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    // A stand-in for condor_shared_port: read the connect message, then
    // splice the socket to the collector.
    let shared = fake_server(move |mut stream| {
        let mut inbound = Inbound::new();
        let mut buf = [0u8; 1];
        let message = loop {
            if let Some(m) = inbound.next_message().unwrap() {
                break m;
            }
            // One byte at a time, so nothing after the message is consumed.
            stream.read_exact(&mut buf).unwrap();
            inbound.feed(&buf);
        };
        let mut dec = Decoder::new(&message.payload, false);
        let fields = (
            dec.get_int().unwrap(),
            dec.get_string().unwrap(),
            dec.get_string().unwrap(),
            dec.get_int().unwrap(),
            dec.get_int().unwrap(),
        );
        tx.send(fields).unwrap();
        let upstream = TcpStream::connect(target).unwrap();
        let (mut a, mut b) = (stream.try_clone().unwrap(), upstream.try_clone().unwrap());
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut a, &mut b);
        });
        let (mut a, mut b) = (upstream, stream);
        let _ = std::io::copy(&mut a, &mut b);
    });
    let addr: Sinful = format!("<{shared}?sock=collector_1_2&noUDP>").parse().unwrap();
    let collector = CollectorClient::new(Client::new(ClientConfig::default()), addr);
    let ads = collector.query(&Query::collector()).unwrap();
    assert_eq!(ads.len(), 1);
    let (cmd, id, name, deadline, more) = rx.recv().unwrap();
    assert_eq!((cmd, id.as_str(), name.as_str(), deadline, more), (75, "collector_1_2", "TOOL", 20, 0));
    // The session is cached under the whole sinful string, sock= included.
    let sessions = collector.client().sessions().lock().unwrap().len();
    assert_eq!(sessions, 1);
    assert!(cedar::client::shared_port::connect_message("../etc", "TOOL", 5).is_err());
}

#[test]
fn hang_up_sends_dc_nop() {
    let (tx, rx) = std::sync::mpsc::channel();
    let addr = fake_server(move |stream| {
        let mut conn = cedar::blocking::Connection::new(stream, Duration::from_secs(5)).unwrap();
        let mut got = Vec::new();
        while let Ok(Some(m)) = conn.read_message() {
            let mut dec = Decoder::new(&m.payload, false);
            got.push(dec.get_int().unwrap());
        }
        tx.send(got).unwrap();
    });
    let client = Client::new(ClientConfig::default().raw());
    let mut conn = client.connect(&sinful(addr)).unwrap();
    conn.start_command(UPDATE_SCHEDD_AD).unwrap();
    conn.send_ads(&[&ClassAd::new()], &Default::default()).unwrap();
    conn.start_command(UPDATE_SCHEDD_AD).unwrap();
    let enc = conn.encoder();
    conn.send(enc).unwrap();
    conn.hang_up().unwrap();
    assert_eq!(rx.recv().unwrap(), [i64::from(UPDATE_SCHEDD_AD), i64::from(UPDATE_SCHEDD_AD), i64::from(DC_NOP)]);
}
