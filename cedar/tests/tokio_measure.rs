//! Measurements of the tokio adapter on loopback, with loose bounds so
//! that a regression fails: connections per second for a DC_NOP loop, and
//! the memory of an idle connection. Run with `--no-capture` to see the
//! numbers (debug builds are several times slower than release).

#![allow(clippy::unwrap_used)]

mod tokio_support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cedar::command::DC_NOP;
use cedar::tokio::{AsyncConnection, ServerOptions, Timeouts};
use tokio::net::TcpStream;
use tokio_support::*;

/// One connection: a raw DC_NOP, then the server's hang-up.
async fn nop(addr: std::net::SocketAddr) {
    let mut c = AsyncConnection::connect(addr, client_timeouts(), 1 << 20).await.unwrap();
    let mut enc = c.encoder();
    enc.put_int(i64::from(DC_NOP));
    c.send(enc.as_bytes()).await.unwrap();
    assert!(c.read_message().await.unwrap().is_none(), "the server did not hang up");
}

#[test]
fn dc_nop_connections_per_second() {
    runtime().block_on(async {
        let server = start(ServerOptions::default()).await;
        let n: u32 = 2000;
        let started = Instant::now();
        for _ in 0..n {
            nop(server.addr).await;
        }
        let sequential = f64::from(n) / started.elapsed().as_secs_f64();
        let started = Instant::now();
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let addr = server.addr;
                tokio::spawn(async move {
                    for _ in 0..n / 8 {
                        nop(addr).await;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        let concurrent = f64::from(n) / started.elapsed().as_secs_f64();
        println!("DC_NOP: {sequential:.0} connections/s one at a time, {concurrent:.0}/s with 8 clients (client and server in one process)");
        assert_eq!(server.stats.accepted.load(Ordering::Relaxed), 2 * u64::from(n));
        assert!(sequential > 200.0 && concurrent > 200.0);
    });
}

/// One connection: `DC_AUTHENTICATE` with the C++ client's security ad
/// (captured from the wheel, `tests/data/handshake/`), asking for a new
/// session without authentication or encryption for `DC_NOP`; the server
/// answers with its ads and hangs up. Returns how many messages came.
async fn handshake_nop(addr: std::net::SocketAddr, ad: &classad::ClassAd) -> usize {
    let mut c = AsyncConnection::connect(addr, client_timeouts(), 1 << 20).await.unwrap();
    let mut enc = c.encoder();
    enc.put_int(i64::from(cedar::command::DC_AUTHENTICATE));
    cedar::wire::ad::put_classad(&mut enc, ad, &cedar::wire::ad::PutOptions::new()).unwrap();
    c.send(enc.as_bytes()).await.unwrap();
    let mut messages = 0;
    while c.read_message().await.unwrap().is_some() {
        messages += 1;
    }
    messages
}

#[test]
fn new_session_handshakes_per_second() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/handshake/client_new_session.ad"))
            .unwrap();
    let mut ad: classad::ClassAd = format!("[{}]", text.lines().collect::<Vec<_>>().join(";")).parse().unwrap();
    ad.insert("Command", i64::from(DC_NOP));
    for feature in ["Authentication", "AuthenticationNew", "Encryption", "Integrity"] {
        ad.insert(feature, "NEVER");
    }
    runtime().block_on(async {
        let server = start(ServerOptions::default()).await;
        assert!(handshake_nop(server.addr, &ad).await >= 2, "no response and post-auth ads");
        let n: u32 = 1000;
        let started = Instant::now();
        for _ in 0..n {
            handshake_nop(server.addr, &ad).await;
        }
        let rate = f64::from(n) / started.elapsed().as_secs_f64();
        println!("DC_AUTHENTICATE (new session, then DC_NOP): {rate:.0} connections/s one at a time");
        assert!(rate > 50.0);
    });
}

#[test]
fn memory_per_idle_connection() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().idle(Duration::from_secs(60));
        let server = start(ServerOptions::default().timeouts(timeouts).max_connections(10_000)).await;
        // Warm up the runtime and allocator.
        for _ in 0..50 {
            nop(server.addr).await;
        }
        // 5,000 where the descriptor limit allows it (two per connection).
        let n = open_files_limit().map_or(5000, |l| (l.saturating_sub(200) / 2).min(5000)).max(100);
        let before = rss_bytes();
        let mut idle = Vec::with_capacity(n);
        for _ in 0..n {
            idle.push(TcpStream::connect(server.addr).await.unwrap());
        }
        assert!(
            eventually(Duration::from_secs(10), || server.stats.active.load(Ordering::Relaxed) == n).await,
            "not all connections were accepted"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        let per = rss_bytes().saturating_sub(before) / n;
        println!("idle connection: about {per} bytes of process memory each (server task and client socket; kernel buffers not counted)");
        assert!(per < 32 * 1024, "{per} bytes per idle connection");
        drop(idle);
    });
}

/// The soft limit on open files, from `/proc/self/limits`.
fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<usize>().ok()))
        .map(|pages| pages * 4096)
        .unwrap_or(0)
}
