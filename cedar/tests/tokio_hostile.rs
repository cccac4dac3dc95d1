//! The tokio adapter against hostile peers, on real loopback sockets: a
//! slowloris peer, huge packet headers, a flood of connections, random
//! bytes, a peer that stops reading; and graceful shutdown.

#![allow(clippy::unwrap_used)]

mod tokio_support;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cedar::tokio::{ServerOptions, Timeouts};
use rand::{Rng as _, RngCore as _};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_support::*;

/// Reads until EOF or an error; true when the server closed the
/// connection (EOF or reset) within `limit`.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let read_all = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, read_all).await.is_ok()
}

#[test]
fn a_slowloris_peer_is_cut_off_while_fifty_clients_are_served() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().read(Duration::from_secs(2)).message(Duration::from_secs(3));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        let addr = server.addr;
        // One byte a second of a packet announcing 100 bytes: every read
        // makes progress within the read timeout, the message never ends.
        let slow = tokio::spawn(async move {
            let started = Instant::now();
            let stream = TcpStream::connect(addr).await.unwrap();
            let (mut rd, mut wr) = stream.into_split();
            let writer = tokio::spawn(async move {
                let mut bytes = vec![1u8, 0, 0, 0, 100];
                bytes.extend([0u8; 100]);
                for b in bytes {
                    if wr.write_all(&[b]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            });
            let mut buf = [0u8; 64];
            let closed = tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    match rd.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            })
            .await
            .is_ok();
            writer.abort();
            (closed, started.elapsed())
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        // Fifty clients at once, while the slow peer holds its connection.
        let started = Instant::now();
        let clients: Vec<_> =
            (0..50).map(|i| tokio::spawn(echo(addr, Box::leak(format!("client {i}").into_boxed_str())))).collect();
        for (i, c) in clients.into_iter().enumerate() {
            assert_eq!(c.await.unwrap().unwrap(), format!("client {i}"));
        }
        let served_in = started.elapsed();
        let (closed, after) = slow.await.unwrap();
        // All fifty were served while the slow peer still held its
        // connection (it started 0.5 s before them).
        assert!(served_in + Duration::from_millis(500) < after, "50 clients took {served_in:?}");
        assert!(closed, "the slow peer was never cut off");
        // Cut off at the message deadline (3 s after its first byte), long
        // before its 105 bytes would have arrived.
        assert!(after >= Duration::from_millis(2900) && after < Duration::from_secs(5), "cut off after {after:?}");
        assert_eq!(server.stats.timed_out.load(Ordering::Relaxed), 1);
    });
}

#[test]
fn a_packet_over_one_mebibyte_is_refused_at_once() {
    runtime().block_on(async {
        let server = start(ServerOptions::default()).await;
        let rss_before = rss_bytes();
        // 2 GiB, 1 MiB + 1, and u32::MAX, announced in a header.
        for header in [[1u8, 0x80, 0, 0, 0], [1, 0, 0x10, 0, 1], [0, 0xff, 0xff, 0xff, 0xff]] {
            let mut s = TcpStream::connect(server.addr).await.unwrap();
            s.write_all(&header).await.unwrap();
            s.write_all(&[0u8; 1000]).await.unwrap();
            let started = Instant::now();
            assert!(closed_within(&mut s, Duration::from_secs(1)).await, "header {header:?} not refused");
            assert!(started.elapsed() < Duration::from_millis(500));
        }
        assert!(eventually(Duration::from_secs(2), || server.stats.failed.load(Ordering::Relaxed) == 3).await);
        // Nothing of the announced sizes was allocated.
        let grown = rss_bytes().saturating_sub(rss_before);
        assert!(grown < 64 << 20, "RSS grew by {grown} bytes");
        // A packet of exactly 1 MiB is fine.
        let mut c = cedar::tokio::AsyncConnection::connect(server.addr, client_timeouts(), 4 << 20).await.unwrap();
        let mut enc = c.encoder();
        enc.put_int(i64::from(ECHO));
        enc.put_bytes(&vec![b'x'; (1 << 20) - 8]);
        c.send(enc.as_bytes()).await.unwrap();
        assert_eq!(c.expect_message().await.unwrap().payload.len(), (1 << 20) - 8);
    });
}

#[test]
fn a_message_over_the_inbound_bound_is_refused() {
    runtime().block_on(async {
        let server = start(ServerOptions::default().max_inbound_message(100_000)).await;
        let mut c = cedar::tokio::AsyncConnection::connect(server.addr, client_timeouts(), 1 << 20).await.unwrap();
        c.set_max_packet(4096);
        let mut enc = c.encoder();
        enc.put_int(i64::from(ECHO));
        enc.put_bytes(&vec![b'x'; 200_000]);
        // The server may cut us off while we still write.
        let _ = c.send(enc.as_bytes()).await;
        assert!(c.read_message().await.is_err() || c.read_message().await.ok().flatten().is_none());
        assert!(eventually(Duration::from_secs(2), || server.stats.failed.load(Ordering::Relaxed) == 1).await);
    });
}

#[test]
fn ten_thousand_connections_hit_the_bound_and_clients_get_through_after() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().idle(Duration::from_secs(60));
        let server = start(ServerOptions::default().max_connections(200).timeouts(timeouts)).await;
        // 10,000 where the descriptor limit allows it (each connection
        // costs this process one descriptor, two while it is served).
        let peers = open_files_limit().map_or(10_000, |l| l.saturating_sub(600).min(10_000)).max(400);
        if peers < 10_000 {
            eprintln!("the descriptor limit allows {peers} connections, not 10,000");
        }
        let mut flood = Vec::with_capacity(peers);
        for _ in 0..peers {
            match TcpStream::connect(server.addr).await {
                Ok(s) => flood.push(s),
                Err(e) => panic!("connect {} failed: {e}", flood.len()),
            }
        }
        assert!(
            eventually(Duration::from_secs(10), || {
                server.stats.accepted.load(Ordering::Relaxed) + server.stats.refused.load(Ordering::Relaxed)
                    >= peers as u64
            })
            .await
        );
        assert_eq!(server.stats.accepted.load(Ordering::Relaxed), 200);
        assert_eq!(server.stats.refused.load(Ordering::Relaxed), peers as u64 - 200);
        assert_eq!(server.stats.active.load(Ordering::Relaxed), 200);
        // While the flood holds every slot, a client is refused at once.
        assert!(echo(server.addr, "refused").await.is_err());
        drop(flood);
        assert!(eventually(Duration::from_secs(10), || server.stats.active.load(Ordering::Relaxed) == 0).await);
        for i in 0..20 {
            assert_eq!(echo(server.addr, &format!("after {i}")).await.unwrap(), format!("after {i}"));
        }
    });
}

#[test]
fn random_bytes_never_panic_the_server() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().read(Duration::from_millis(300)).message(Duration::from_secs(1));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        let mut rng = rand::thread_rng();
        let mut peers = Vec::new();
        for i in 0..300 {
            let mut bytes = vec![0u8; rng.gen_range(1..4000)];
            rng.fill_bytes(&mut bytes);
            // Some with a plausible header, so the bytes reach the decoders:
            // a raw command, DC_AUTHENTICATE and an ad, or anything.
            if i % 3 == 0 {
                let body = bytes.len().min(60_000) as u32;
                let mut framed = vec![1u8];
                framed.extend(body.to_be_bytes());
                if i % 2 == 0 {
                    framed.extend([0u8, 0, 0, 0, 0, 0, 0xea, 0x6a]); // 60010
                }
                framed.extend(&bytes);
                bytes = framed;
            }
            peers.push(tokio::spawn(async move {
                if let Ok(mut s) = TcpStream::connect(server.addr).await {
                    let _ = s.write_all(&bytes).await;
                    let _ = closed_within(&mut s, Duration::from_secs(3)).await;
                }
            }));
        }
        for p in peers {
            p.await.unwrap();
        }
        assert!(eventually(Duration::from_secs(3), || server.stats.active.load(Ordering::Relaxed) == 0).await);
        assert_eq!(server.stats.accepted.load(Ordering::Relaxed), 300);
        assert!(!server.task.is_finished(), "the server stopped");
        assert_eq!(echo(server.addr, "still here").await.unwrap(), "still here");
    });
}

#[test]
fn a_peer_that_stops_reading_is_cut_off_by_the_write_deadline() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().write(Duration::from_secs(1));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        // Ask for a 64 MiB reply, far more than the socket buffers hold,
        // and never read it.
        let mut enc = cedar::wire::Encoder::new(false);
        enc.put_int(i64::from(BIG));
        enc.put_int(64 << 20);
        let mut wire = Vec::new();
        cedar::wire::Outbound::new().frame(enc.as_bytes(), &mut wire).unwrap();
        s.write_all(&wire).await.unwrap();
        let started = Instant::now();
        assert!(eventually(Duration::from_secs(10), || server.stats.timed_out.load(Ordering::Relaxed) == 1).await);
        assert!(started.elapsed() < Duration::from_secs(5), "cut off after {:?}", started.elapsed());
        assert_eq!(server.stats.active.load(Ordering::Relaxed), 0);
        drop(s);
        assert_eq!(echo(server.addr, "next").await.unwrap(), "next");
    });
}

#[test]
fn shutdown_closes_idle_connections_and_lets_a_running_command_finish() {
    runtime().block_on(async {
        let server = start(ServerOptions::default().shutdown_grace(Duration::from_secs(5))).await;
        // An idle connection, between commands.
        let mut idle = TcpStream::connect(server.addr).await.unwrap();
        // A command whose 16 MiB reply we read only after the shutdown.
        let mut busy = cedar::tokio::AsyncConnection::connect(server.addr, client_timeouts(), 32 << 20).await.unwrap();
        let mut enc = busy.encoder();
        enc.put_int(i64::from(BIG));
        enc.put_int(16 << 20);
        busy.send(enc.as_bytes()).await.unwrap();
        assert!(eventually(Duration::from_secs(2), || server.stats.active.load(Ordering::Relaxed) == 2).await);
        tokio::time::sleep(Duration::from_millis(200)).await;
        server.stop.send(true).unwrap();
        assert!(closed_within(&mut idle, Duration::from_secs(1)).await, "the idle connection stayed open");
        let reply = busy.expect_message().await.unwrap();
        assert_eq!(reply.payload.len(), 16 << 20);
        tokio::time::timeout(Duration::from_secs(5), server.task).await.unwrap().unwrap().unwrap();
        // No longer listening.
        assert!(TcpStream::connect(server.addr).await.is_err());
    });
}

#[test]
fn idle_and_stalled_peers_are_cut_off_at_their_own_deadlines() {
    runtime().block_on(async {
        let timeouts = Timeouts::default()
            .idle(Duration::from_millis(1500))
            .read(Duration::from_millis(400))
            .message(Duration::from_secs(10));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        // Silent: the idle deadline.
        let mut silent = TcpStream::connect(server.addr).await.unwrap();
        let started = Instant::now();
        assert!(closed_within(&mut silent, Duration::from_secs(5)).await);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(1400) && waited < Duration::from_millis(3000), "{waited:?}");
        // Three bytes of a header, then nothing: the read deadline.
        let mut stalled = TcpStream::connect(server.addr).await.unwrap();
        stalled.write_all(&[1, 0, 0]).await.unwrap();
        let started = Instant::now();
        assert!(closed_within(&mut stalled, Duration::from_secs(5)).await);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(350) && waited < Duration::from_millis(2000), "{waited:?}");
        assert_eq!(server.stats.timed_out.load(Ordering::Relaxed), 2);
    });
}

#[test]
fn a_new_connection_has_until_the_first_command_deadline_and_then_the_idle_one() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().idle(Duration::from_secs(2)).first_command(Duration::from_millis(600));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        // Silent: the first-command deadline, shorter than the idle one.
        let mut silent = TcpStream::connect(server.addr).await.unwrap();
        let started = Instant::now();
        assert!(closed_within(&mut silent, Duration::from_secs(5)).await);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(550) && waited < Duration::from_millis(1900), "{waited:?}");
        // One command, then silence: the idle deadline, from the command.
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let mut enc = cedar::wire::Encoder::new(false);
        enc.put_int(i64::from(ECHO));
        enc.put_bytes(b"once");
        let mut wire = Vec::new();
        cedar::wire::Outbound::new().frame(enc.as_bytes(), &mut wire).unwrap();
        s.write_all(&wire).await.unwrap();
        let started = Instant::now();
        assert!(closed_within(&mut s, Duration::from_secs(6)).await);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(1900) && waited < Duration::from_secs(4), "{waited:?}");
        assert!(eventually(Duration::from_secs(2), || server.stats.timed_out.load(Ordering::Relaxed) == 2).await);
    });
}

/// The C++ client's security ad (captured from the wheel), asking for a
/// new session without authentication or encryption for `command`.
fn security_ad(command: i32) -> classad::ClassAd {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/handshake/client_new_session.ad");
    let text = std::fs::read_to_string(path).unwrap();
    let mut ad: classad::ClassAd = format!("[{}]", text.lines().collect::<Vec<_>>().join(";")).parse().unwrap();
    ad.insert("Command", i64::from(command));
    for feature in ["Authentication", "AuthenticationNew", "Encryption", "Integrity"] {
        ad.insert(feature, "NEVER");
    }
    ad
}

#[test]
fn after_a_handshake_the_payload_is_waited_for_under_the_read_deadline() {
    runtime().block_on(async {
        let timeouts = Timeouts::default().idle(Duration::from_secs(30)).read(Duration::from_millis(500));
        let server = start(ServerOptions::default().timeouts(timeouts)).await;
        for send_payload in [true, false] {
            let mut c = cedar::tokio::AsyncConnection::connect(server.addr, client_timeouts(), 1 << 20).await.unwrap();
            let mut enc = c.encoder();
            enc.put_int(i64::from(cedar::command::DC_AUTHENTICATE));
            cedar::wire::ad::put_classad(&mut enc, &security_ad(ECHO), &cedar::wire::ad::PutOptions::new()).unwrap();
            c.send(enc.as_bytes()).await.unwrap();
            // The response ad and the post-auth ad.
            for _ in 0..2 {
                c.expect_message().await.unwrap();
            }
            if send_payload {
                let mut enc = c.encoder();
                enc.put_str("after the handshake").unwrap();
                c.send(enc.as_bytes()).await.unwrap();
                let reply = c.expect_message().await.unwrap();
                assert_eq!(
                    cedar::wire::Decoder::new(&reply.payload, false).get_string().unwrap(),
                    "after the handshake"
                );
            } else {
                let started = Instant::now();
                assert!(c.read_message().await.unwrap().is_none(), "the server did not hang up");
                let waited = started.elapsed();
                assert!(waited >= Duration::from_millis(450) && waited < Duration::from_secs(3), "{waited:?}");
            }
        }
        assert!(eventually(Duration::from_secs(2), || server.stats.timed_out.load(Ordering::Relaxed) == 1).await);
    });
}

#[test]
fn a_panicking_handler_ends_its_connection_only() {
    runtime().block_on(async {
        let server = start(ServerOptions::default()).await;
        let mut c = cedar::tokio::AsyncConnection::connect(server.addr, client_timeouts(), 1 << 20).await.unwrap();
        let mut enc = c.encoder();
        enc.put_int(i64::from(PANIC));
        c.send(enc.as_bytes()).await.unwrap();
        assert!(c.read_message().await.map(|m| m.is_none()).unwrap_or(true), "a reply from a panicked handler");
        assert!(eventually(Duration::from_secs(2), || server.stats.failed.load(Ordering::Relaxed) == 1).await);
        assert_eq!(server.stats.active.load(Ordering::Relaxed), 0);
        assert_eq!(echo(server.addr, "after the panic").await.unwrap(), "after the panic");
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
