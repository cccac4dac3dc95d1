//! The blocking adapter and the test collector, driven by a Rust client
//! speaking raw commands: what the wheel cannot send (LimitResults, a
//! projection expression, QUERY_MULTIPLE_ADS with per-type constraints,
//! UPDATE_STARTD_AD_WITH_ACK), invalidation, and hostile peers.

#[path = "../examples/test_collector.rs"]
mod test_collector;

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use cedar::blocking::{Connection, ServerSession};
use cedar::command::*;
use cedar::handshake::{CloseReason, CommandTable, ServerConfig};
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::Decoder;
use cedar::ErrorKind;
use classad::ClassAd;
use test_collector::{spawn, FixtureOptions};

fn connect(addr: SocketAddr) -> Connection {
    Connection::new(TcpStream::connect(addr).expect("connect"), Duration::from_secs(10)).expect("a connection")
}

/// Sends a raw command with an ad, on a new connection.
fn raw(addr: SocketAddr, command: i32, ad: &str) -> Connection {
    let mut c = connect(addr);
    let ad: ClassAd = ad.parse().expect("an ad");
    let mut enc = c.encoder();
    enc.put_int(i64::from(command));
    put_classad(&mut enc, &ad, &PutOptions::new()).expect("encodes");
    c.send(enc.as_bytes()).expect("sent");
    c
}

/// A raw query: the names of the ads returned and their attributes.
fn query(addr: SocketAddr, command: i32, ad: &str) -> Vec<Vec<String>> {
    let mut c = raw(addr, command, ad);
    let reply = c.expect_message().expect("a reply");
    let mut dec = Decoder::new(&reply.payload, reply.encrypted);
    let mut out = Vec::new();
    while dec.get_int().expect("more") == 1 {
        let got = get_classad(&mut dec, &AdLimits::default()).expect("an ad");
        out.push(got.names().map(|n| n.as_str().to_owned()).collect());
    }
    dec.finish().expect("the reply ends");
    out
}

fn names(addr: SocketAddr, command: i32, ad: &str) -> Vec<String> {
    let mut c = raw(addr, command, ad);
    let reply = c.expect_message().expect("a reply");
    let mut dec = Decoder::new(&reply.payload, reply.encrypted);
    let mut out = Vec::new();
    while dec.get_int().expect("more") == 1 {
        let got = get_classad(&mut dec, &AdLimits::default()).expect("an ad");
        out.push(got.lookup("Name").map(|e| e.to_string()).unwrap_or_default());
    }
    out
}

fn advertise(addr: SocketAddr, command: i32, ads: &[&str]) {
    let mut c = connect(addr);
    for ad in ads {
        let ad: ClassAd = ad.parse().expect("an ad");
        let mut enc = c.encoder();
        enc.put_int(i64::from(command));
        put_classad(&mut enc, &ad, &PutOptions::new()).expect("encodes");
        c.send(enc.as_bytes()).expect("sent");
        if command == UPDATE_STARTD_AD_WITH_ACK {
            let ack = c.expect_message().expect("an ack");
            assert_eq!(Decoder::new(&ack.payload, false).get_int().expect("an int"), 1);
        }
    }
    let mut enc = c.encoder();
    enc.put_int(i64::from(DC_NOP));
    c.send(enc.as_bytes()).expect("sent");
    // The server hangs up after DC_NOP.
    assert!(c.read_message().expect("a clean close").is_none());
}

#[test]
fn queries_updates_and_invalidations() {
    let (addr, _) = spawn("127.0.0.1:0", FixtureOptions::default()).expect("the fixture");
    advertise(
        addr,
        UPDATE_STARTD_AD_WITH_ACK,
        &[
            r#"[ MyType = "Machine"; Name = "a"; Cpus = 1; Memory = Cpus * 1024 ]"#,
            r#"[ MyType = "Machine"; Name = "b"; Cpus = 2; Memory = Cpus * 1024 ]"#,
            r#"[ MyType = "Machine"; Name = "c"; Cpus = 3; Memory = Cpus * 1024 ]"#,
        ],
    );
    advertise(addr, UPDATE_SUBMITTOR_AD, &[r#"[ MyType = "Submitter"; Name = "alice@x"; IdleJobs = 4 ]"#]);
    let all = r#"[ MyType = "Query"; TargetType = "Machine"; Requirements = true ]"#;
    assert_eq!(names(addr, QUERY_STARTD_ADS, all), ["\"a\"", "\"b\"", "\"c\""]);
    let limited = r#"[ MyType = "Query"; TargetType = "Machine"; Requirements = Cpus >= 2; LimitResults = 1 ]"#;
    assert_eq!(names(addr, QUERY_STARTD_ADS, limited), ["\"b\""]);
    // A projection given as an expression, evaluated per ad.
    let proj = r#"[ MyType = "Query"; TargetType = "Machine"; Requirements = Name == "a";
        Projection = ifThenElse(TARGET.Cpus > 0, "Name Memory", "Name") ]"#;
    assert_eq!(query(addr, QUERY_STARTD_ADS, proj), [["Cpus", "Memory", "Name"]]);
    // QUERY_MULTIPLE_ADS: a list of types, each with its own constraint.
    let multi = r#"[ MyType = "Query"; TargetType = "Submitter,Machine";
        MachineRequirements = Cpus == 3; SubmitterRequirements = IdleJobs > 0 ]"#;
    assert_eq!(names(addr, QUERY_MULTIPLE_ADS, multi), ["\"c\"", "\"alice@x\""]);
    // Invalidation by constraint.
    // The server waits for follow-on commands; hanging up ends them.
    drop(raw(
        addr,
        INVALIDATE_STARTD_ADS,
        r#"[ MyType = "Query"; TargetType = "Machine"; Requirements = Name == "b" ]"#,
    ));
    assert_eq!(names(addr, QUERY_STARTD_ADS, all), ["\"a\"", "\"c\""]);
}

/// What the server thread of [`one_connection`] ends with.
type Outcome = (cedar::error::Result<()>, Option<CloseReason>);

fn one_connection(timeout: Duration) -> (SocketAddr, std::thread::JoinHandle<Outcome>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("accept");
        let config =
            Arc::new(ServerConfig::new(CommandTable::new().register(QUERY_STARTD_ADS, cedar::authz::Permission::Read)));
        let mut session = ServerSession::new(stream, config, timeout).expect("a session");
        let result = loop {
            match session.next_command() {
                Ok(Some(req)) => {
                    if let Err(e) = session.read_payload(&req) {
                        break Err(e);
                    }
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        (result, session.close_reason().cloned())
    });
    (addr, handle)
}

#[test]
fn a_silent_peer_times_out() {
    let (addr, handle) = one_connection(Duration::from_millis(200));
    let stream = TcpStream::connect(addr).expect("connect");
    let (result, _) = handle.join().expect("the server thread");
    assert_eq!(result.expect_err("a timeout").kind(), ErrorKind::Timeout);
    drop(stream);
}

#[test]
fn a_trickling_peer_hits_the_message_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let writer = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).expect("connect");
        // A packet of 100 bytes, then a byte every 50 ms: each read makes
        // progress, the message never ends.
        let _ = stream.write_all(&[1, 0, 0, 0, 100]);
        for _ in 0..40 {
            if stream.write_all(&[0]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let (stream, _) = listener.accept().expect("accept");
    let mut c = Connection::new(stream, Duration::from_millis(500)).expect("a connection");
    c.set_message_deadline(Some(Duration::from_millis(300)));
    let started = std::time::Instant::now();
    assert_eq!(c.read_message().expect_err("a deadline").kind(), ErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(1));
    drop(c);
    writer.join().expect("the writer");
}

#[test]
fn a_peer_stopping_inside_a_message_is_closed() {
    let (addr, handle) = one_connection(Duration::from_secs(5));
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(&[1, 0, 0, 0, 100, 1, 2, 3]).expect("write");
    drop(stream);
    let (result, _) = handle.join().expect("the server thread");
    assert_eq!(result.expect_err("closed").kind(), ErrorKind::Closed);
}

#[test]
fn an_oversized_packet_is_refused_at_once() {
    let (addr, handle) = one_connection(Duration::from_secs(5));
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(&[1, 0x7f, 0xff, 0xff, 0xff]).expect("write");
    let (result, _) = handle.join().expect("the server thread");
    assert_eq!(result.expect_err("too big").kind(), ErrorKind::LimitExceeded);
}

#[test]
fn a_payload_may_be_missing_where_none_is_needed() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let client = std::thread::spawn(move || {
        let mut c = connect(addr);
        let ad = std::fs::read_to_string(format!(
            "{}/tests/data/handshake/client_new_session.ad",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("the captured ad");
        let ad = classad::format::parse_ads(&ad, Some(classad::format::Format::Old)).expect("an ad").remove(0);
        let mut enc = c.encoder();
        enc.put_int(i64::from(DC_AUTHENTICATE));
        put_classad(&mut enc, &ad, &PutOptions::new()).expect("encodes");
        c.send(enc.as_bytes()).expect("sent");
        // The response ad and the post-auth ad, then hang up.
        c.expect_message().expect("response");
        c.expect_message().expect("post-auth");
    });
    let (stream, _) = listener.accept().expect("accept");
    let config =
        Arc::new(ServerConfig::new(CommandTable::new().register(QUERY_COLLECTOR_ADS, cedar::authz::Permission::Read)));
    let mut session = ServerSession::new(stream, config, Duration::from_secs(5)).expect("a session");
    let req = session.next_command().expect("a command").expect("not closed");
    assert_eq!(req.command, QUERY_COLLECTOR_ADS);
    client.join().expect("the client");
    let empty = session.read_payload_or_empty(&req).expect("an empty payload");
    assert!(empty.payload.is_empty());
}

#[test]
fn small_packets_on_request() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut sender = connect(addr);
    let (stream, _) = listener.accept().expect("accept");
    let mut raw = stream;
    sender.set_max_packet(16);
    sender.send(&[9u8; 40]).expect("sent");
    drop(sender);
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut raw, &mut bytes).expect("read");
    // 16 + 16 + 8 bytes: three packets, the last with end = 1.
    assert_eq!(bytes.len(), 40 + 3 * 5);
    assert_eq!(&bytes[..5], &[0, 0, 0, 0, 16]);
    assert_eq!(&bytes[42..47], &[1, 0, 0, 0, 8]);
}

#[test]
fn eof_between_messages_is_a_clean_close() {
    let (addr, handle) = one_connection(Duration::from_secs(5));
    let stream = TcpStream::connect(addr).expect("connect");
    drop(stream);
    let (result, reason) = handle.join().expect("the server thread");
    result.expect("a clean close");
    assert_eq!(reason, Some(CloseReason::Eof));
}
