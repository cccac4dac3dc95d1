//! Misbehaving clients against the collector served in-process on
//! loopback, with short deadlines: a client that connects and stalls
//! (silent, or inside a packet header), one that sends garbage (random
//! bytes in well-formed packets, over the message bound, and a header
//! announcing 2 GiB), and a flood of connections (within the bound, and
//! over it). Each time a well-behaved client's query is served while the
//! misbehaving one holds its connection, the misbehaving connection is
//! closed within its deadline, and the collector's log (the `tracing`
//! events the daemon writes to `COLLECTOR_LOG`) names the peer and why.
//!
//! `collector/bench/faults.sh` runs the same misbehaviours at full scale
//! against HTCondor's collector and ours (docs/benchmarks.md).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cedar::handshake::{ServerConfig, ServerPolicies};
use cedar::token::FileCheck;
use std::sync::atomic::Ordering;

use cedar::tokio::{Server, ServerOptions, ServerStats, Timeouts};
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Outbound};
use classad::ClassAd;
use collector::config::CollectorConfig;
use collector::server::{Collector, CollectorHandler};
use collector::update::{apply_update, read_update};
use tracing_subscriber::layer::SubscriberExt as _;

/// The deadlines of these tests: short, so a test takes seconds.
/// The first command's deadline (the idle one, between commands, is 10 s).
const FIRST: Duration = Duration::from_millis(1500);
const READ: Duration = Duration::from_millis(700);
const MESSAGE: Duration = Duration::from_secs(3);
/// How much later than its deadline a connection may be closed: the
/// machine running the tests may be loaded.
const SLACK: Duration = Duration::from_secs(3);

/// Every log line the process's `tracing` events make, as the daemon's
/// log would get them (the message of each event at INFO and above).
fn log() -> &'static Mutex<Vec<String>> {
    static LOG: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    static INSTALLED: OnceLock<()> = OnceLock::new();
    let lines = LOG.get_or_init(|| Mutex::new(Vec::new()));
    INSTALLED.get_or_init(|| {
        let subscriber = tracing_subscriber::registry().with(Capture);
        tracing::subscriber::set_global_default(subscriber).expect("no other subscriber");
    });
    lines
}

struct Capture;

struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        // What COLLECTOR_LOG always gets: D_ALWAYS (daemons::log).
        if *event.metadata().level() <= tracing::Level::INFO {
            let mut m = Message(String::new());
            event.record(&mut m);
            log().lock().unwrap().push(m.0);
        }
    }
}

/// Waits up to 3 s for a log line naming `peer` and containing `what`.
fn logged(peer: SocketAddr, what: &str) -> String {
    let name = format!("<{peer}>");
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        if let Some(line) = log().lock().unwrap().iter().find(|l| l.contains(&name) && l.contains(what)) {
            return line.clone();
        }
        assert!(Instant::now() < deadline, "no log line with {name} and {what:?} in {:#?}", log().lock().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The collector, holding three slot ads, on a free loopback port, with
/// the test deadlines and `options`' bounds; and its server's counters.
fn spawn(options: ServerOptions) -> (SocketAddr, Arc<ServerStats>) {
    log();
    let lookup = |k: &str| k.strip_prefix("ALLOW_").map(|_| "*".to_owned());
    let server = ServerConfig::from_config("COLLECTOR", Collector::commands(), &lookup, FileCheck::none())
        .unwrap()
        .hostname("127.0.0.1")
        .policies(ServerPolicies::plaintext());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let collector = Arc::new(Collector::new(CollectorConfig::new("127.0.0.1"), Arc::new(server), format!("<{addr}>")));
    for i in 1..=3 {
        let ad: ClassAd =
            format!(r#"[ MyType = "Machine"; Name = "slot{i}@host"; Machine = "host"; MyAddress = "<127.0.0.1:1>" ]"#)
                .parse()
                .unwrap();
        let mut enc = Encoder::new(false);
        put_classad(&mut enc, &ad, &PutOptions::default()).unwrap();
        let command = cedar::command::UPDATE_STARTD_AD;
        let payload = read_update(command, enc.as_bytes(), false, &AdLimits::default()).unwrap();
        apply_update(collector.store(), command, payload, None, None, 0).unwrap();
    }
    let options = options
        .timeouts(Timeouts::default().first_command(FIRST).idle(Duration::from_secs(10)).read(READ).message(MESSAGE));
    let server = Server::new(collector.server_config().clone(), CollectorHandler(collector.clone())).options(options);
    let stats = server.stats();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            collector.serve_with(server, listener, std::future::pending()).await.unwrap();
        });
    });
    (addr, stats)
}

/// A well-behaved client: a raw `QUERY_STARTD_ADS`, every read and write
/// within 10 s; the names of the ads of the reply.
fn query(addr: SocketAddr) -> Vec<String> {
    try_query(addr).unwrap()
}

/// [`query`], or why it failed.
fn try_query(addr: SocketAddr) -> Result<Vec<String>, std::io::Error> {
    let mut q = ClassAd::new();
    q.insert("MyType", "Query");
    q.insert("TargetType", "Machine");
    q.insert("Requirements", classad::Expr::from(true));
    q.insert("Projection", "Name");
    let mut enc = Encoder::new(false);
    enc.put_int(i64::from(cedar::command::QUERY_STARTD_ADS));
    put_classad(&mut enc, &q, &PutOptions::default()).unwrap();
    let mut wire = Vec::new();
    Outbound::new().frame(enc.as_bytes(), &mut wire).unwrap();
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.set_write_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(&wire)?;
    let mut payload = Vec::new();
    loop {
        let mut header = [0u8; 5];
        s.read_exact(&mut header)?;
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let at = payload.len();
        payload.resize(at + len, 0);
        s.read_exact(&mut payload[at..])?;
        if header[0] != 0 {
            break;
        }
    }
    let mut dec = Decoder::new(&payload, false);
    let mut names = Vec::new();
    while dec.get_int().unwrap() != 0 {
        let ad = get_classad(&mut dec, &AdLimits::default()).unwrap();
        names.push(ad.eval_attr("Name").as_str().unwrap().to_owned());
    }
    names.sort();
    Ok(names)
}

/// Waits up to 3 s for `what` to hold.
fn eventually(check: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + SLACK;
    while !check() {
        assert!(Instant::now() < deadline, "not so: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn served(addr: SocketAddr) {
    assert_eq!(query(addr), ["slot1@host", "slot2@host", "slot3@host"]);
}

/// Reads until the server closes the connection (EOF or reset), at most
/// `limit`; how long that took, `None` if it stayed open.
fn closed_within(s: &mut TcpStream, started: Instant, limit: Duration) -> Option<Duration> {
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            return None;
        }
        s.set_read_timeout(Some(left.min(Duration::from_millis(200)))).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
}

fn assert_closed_at(s: &mut TcpStream, started: Instant, deadline: Duration, what: &str) {
    let after = closed_within(s, started, deadline + SLACK).unwrap_or_else(|| panic!("{what}: never closed"));
    assert!(after + Duration::from_millis(100) >= deadline, "{what}: closed after {after:?}, before {deadline:?}");
}

/// Random bytes, the same every run.
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(n);
    out
}

/// `body` as one message in packets of 64 KiB.
fn framed(body: &[u8]) -> Vec<u8> {
    let mut wire = Vec::new();
    let mut chunks = body.chunks(64 * 1024).peekable();
    while let Some(chunk) = chunks.next() {
        wire.push(u8::from(chunks.peek().is_none()));
        wire.extend((chunk.len() as u32).to_be_bytes());
        wire.extend_from_slice(chunk);
    }
    wire
}

#[test]
fn stalled_clients_are_cut_off_at_their_deadlines_while_others_are_served() {
    let (addr, _) = spawn(ServerOptions::default());
    // Silent: cut off when no command came within the first-command
    // deadline.
    let mut silent = TcpStream::connect(addr).unwrap();
    let silent_started = Instant::now();
    // Three bytes of a packet header, then nothing: the read deadline.
    let mut partial = TcpStream::connect(addr).unwrap();
    partial.write_all(&[1, 0, 0]).unwrap();
    let partial_started = Instant::now();
    served(addr);
    assert_closed_at(&mut partial, partial_started, READ, "the partial header");
    served(addr);
    assert_closed_at(&mut silent, silent_started, FIRST, "the silent client");
    let line = logged(partial.local_addr().unwrap(), "stopped sending inside a message");
    assert!(line.starts_with("Closing the connection from <127.0.0.1:"), "{line}");
    assert!(line.contains("timed out"), "{line}");
    logged(silent.local_addr().unwrap(), "sent no command within 1.5s of connecting");
    served(addr);
}

#[test]
fn garbage_is_refused_with_a_log_line_while_others_are_served() {
    let (addr, _) = spawn(ServerOptions::default().max_inbound_message(1 << 20));
    // 2 MB of random bytes in well-formed packets: over the 1 MiB bound
    // on a message, refused once the bound is passed.
    let mut big = TcpStream::connect(addr).unwrap();
    big.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let _ = big.write_all(&framed(&random_bytes(2_000_000)));
    served(addr);
    assert!(closed_within(&mut big, started, SLACK).is_some(), "the 2 MB message: never closed");
    logged(big.local_addr().unwrap(), "Closing the connection");
    // 100 KB of random bytes, within the bound: not a command.
    let mut small = TcpStream::connect(addr).unwrap();
    let started = Instant::now();
    small.write_all(&framed(&random_bytes(100_000))).unwrap();
    assert!(closed_within(&mut small, started, SLACK).is_some(), "the 100 KB message: never closed");
    // (Its first eight bytes, the command, are out of range: malformed.)
    logged(small.local_addr().unwrap(), "Closing the connection");
    // A header announcing 2 GiB: refused at once, before the bytes come.
    let mut huge = TcpStream::connect(addr).unwrap();
    let started = Instant::now();
    huge.write_all(&[1, 0x80, 0, 0, 0]).unwrap();
    let _ = huge.write_all(&random_bytes(1000));
    let after = closed_within(&mut huge, started, SLACK).expect("the 2 GiB header: never closed");
    assert!(after < READ, "the 2 GiB header: closed after {after:?}");
    logged(huge.local_addr().unwrap(), "Closing the connection");
    served(addr);
}

#[test]
fn a_flood_within_the_bound_is_served_and_one_over_it_is_refused_with_a_log_line() {
    // 100 silent connections, the bound well above: the others are
    // served, and the flood is cut off at the first-command deadline.
    let (addr, stats) = spawn(ServerOptions::default());
    let started = Instant::now();
    let mut flood: Vec<TcpStream> = (0..100).map(|_| TcpStream::connect(addr).unwrap()).collect();
    served(addr);
    for (i, s) in flood.iter_mut().enumerate() {
        assert_closed_at(s, started, FIRST, &format!("flood connection {i}"));
    }
    logged(flood[99].local_addr().unwrap(), "sent no command within 1.5s of connecting");
    // (Counted just after the socket is closed.)
    eventually(|| stats.timed_out.load(Ordering::Relaxed) == 100, "100 timed out");
    served(addr);
    // A bound of 20: the 21st connection on is closed at once, and the
    // log says so (one line, not one per refusal).
    let (addr, stats) = spawn(ServerOptions::default().max_connections(20));
    let held: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(addr).unwrap()).collect();
    // The 20 are accepted before the next come.
    eventually(|| stats.accepted.load(Ordering::Relaxed) == 20, "the 20 accepted");
    let started = Instant::now();
    let mut over: Vec<TcpStream> = (0..30).map(|_| TcpStream::connect(addr).unwrap()).collect();
    for (i, s) in over.iter_mut().enumerate() {
        let after = closed_within(s, started, SLACK).unwrap_or_else(|| panic!("refused connection {i}: never closed"));
        assert!(after < FIRST, "refused connection {i}: closed after {after:?}");
    }
    let line = logged(over[0].local_addr().unwrap(), "Refusing the connection");
    assert!(line.contains("20 connections are being served"), "{line}");
    eventually(|| stats.refused.load(Ordering::Relaxed) == 30, "30 refused");
    // At most a line a second.
    let lines =
        log().lock().unwrap().iter().filter(|l| l.starts_with("Refusing") && l.contains("20 connections")).count();
    assert!(lines as u64 <= 2 + started.elapsed().as_secs(), "{lines} log lines for 30 refusals");
    // Once the held ones are gone, a client is served again.
    drop(held);
    let deadline = Instant::now() + SLACK;
    while try_query(addr).is_err() {
        assert!(Instant::now() < deadline, "never served again");
        std::thread::sleep(Duration::from_millis(50));
    }
    served(addr);
}
