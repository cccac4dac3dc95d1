//! A load generator for collectors (ours or HTCondor's), over CEDAR.
//!
//! ```text
//! cedar-load updates HOST:PORT [--connections 200] [--seconds 60] [--ads 5] [--pid PID]
//! cedar-load query HOST:PORT [--projection "Name State"] [--runs 3]
//! cedar-load stall HOST:PORT [--partial 0|1] [--limit 400] [--baseline 5]
//! cedar-load garbage HOST:PORT [--megabytes 10] [--command N] [--huge-header 0|1] [--limit 120] [--baseline 5]
//! cedar-load flood HOST:PORT [--connections 1000] [--hold 30] [--baseline 5]
//! ```
//!
//! `updates`: each connection is a startd's persistent update socket: one
//! negotiated session, then `UPDATE_STARTD_AD` after `UPDATE_STARTD_AD` as
//! follow-on commands, cycling through its own `--ads` slot ads (the
//! anchor's machine ads, 49 attributes), each update carrying the next
//! `UpdateSequenceNumber`. It prints the updates sent per second every 10
//! s (and the collector's resident memory when `--pid` names it), then
//! checks that the collector holds, for every ad, the last sequence number
//! sent: no update lost.
//!
//! `query`: a raw `QUERY_STARTD_ADS` (no handshake, plaintext), timed from
//! the query sent to the reply's last byte, without decoding; then the
//! reply is decoded and its ads counted.
//!
//! `stall`, `garbage` and `flood` are misbehaving clients. Each runs while
//! a well-behaved client queries the collector (a raw `QUERY_STARTD_ADS`
//! with the projection `Name`, every 100 ms, each within 10 s), first
//! alone for `--baseline` seconds; the query latencies before and during
//! the misbehaviour (for `--baseline` seconds at least from its start)
//! are reported (median, p99, max, failures).
//!
//! * `stall`: connects and sends nothing (with `--partial 1`: three bytes
//!   of a packet header, then nothing), and waits up to `--limit` seconds
//!   for the server to close the connection.
//! * `garbage`: a message of `--megabytes` of random bytes in well-formed
//!   packets of 64 KiB, its first 8 bytes the command number `--command`
//!   if given, so the rest reaches that command's decoder (with
//!   `--huge-header 1`: one header announcing
//!   2 GiB, then 64 KiB of random bytes); reports how much the server
//!   took and when it closed the connection.
//! * `flood`: `--connections` connections opened at once and held, silent,
//!   for `--hold` seconds (how many the server closed meanwhile, and when);
//!   then each still open sends a query (`Requirements = false`): how many
//!   were served, closed or left unanswered.
//!
//! Every read and write has a deadline: the tool never hangs on a server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cedar::client::{Client, ClientConfig};
use cedar::command::{QUERY_STARTD_ADS, UPDATE_STARTD_AD};
use cedar::sinful::Sinful;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Outbound};
use classad::ClassAd;
use classad_benches::anchor::machine_ad_text;

fn usage() -> ExitCode {
    eprintln!("usage: cedar-load updates HOST:PORT [--connections N] [--seconds S] [--ads K] [--pid PID]");
    eprintln!("       cedar-load query HOST:PORT [--projection \"A B\"] [--runs N]");
    eprintln!("       cedar-load stall HOST:PORT [--partial 0|1] [--limit S] [--baseline S]");
    eprintln!(
        "       cedar-load garbage HOST:PORT [--megabytes M] [--command N] [--huge-header 0|1] [--limit S] [--baseline S]"
    );
    eprintln!("       cedar-load flood HOST:PORT [--connections N] [--hold S] [--baseline S]");
    ExitCode::from(2)
}

/// `--name value` pairs after the address.
fn options(args: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(name) = it.next() {
        let name = name.strip_prefix("--").ok_or_else(|| format!("expected an option, got {name:?}"))?;
        let value = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
        out.push((name.to_owned(), value.clone()));
    }
    Ok(out)
}

fn option<T: std::str::FromStr>(opts: &[(String, String)], name: &str, default: T) -> Result<T, String> {
    match opts.iter().find(|(n, _)| n == name) {
        Some((_, v)) => v.parse().map_err(|_| format!("--{name}: cannot read {v:?}")),
        None => Ok(default),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(addr)) = (args.first(), args.get(1)) else { return usage() };
    let opts = match options(&args[2..]) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cedar-load: {e}");
            return usage();
        }
    };
    let result = match mode.as_str() {
        "updates" => updates(addr, &opts),
        "query" => query(addr, &opts),
        "stall" | "garbage" | "flood" => hostile(mode, addr, &opts),
        _ => return usage(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cedar-load: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The sequence number an ad is encoded with, 13 digits wide, overwritten
/// (right-aligned, space-padded) by each update's.
const PLACEHOLDER: u64 = 1_000_000_000_000;

/// The slot ad `k` of connection `c` with sequence number `seq`.
fn slot_ad(template: &ClassAd, c: usize, k: usize, seq: u64) -> ClassAd {
    let mut ad = template.clone();
    let host = format!("load{c:04}.anchor.invalid");
    ad.insert("Name", format!("slot{}@{host}", k + 1));
    ad.insert("Machine", host.as_str());
    ad.insert("MyAddress", format!("<127.0.0.{}:{}?noUDP>", 1 + c / 250, 10000 + c % 250 * 100 + k));
    ad.insert("UpdateSequenceNumber", seq as i64);
    ad
}

fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()
}

fn updates(addr: &str, opts: &[(String, String)]) -> Result<(), String> {
    let connections: usize = option(opts, "connections", 200)?;
    let seconds: u64 = option(opts, "seconds", 60)?;
    let ads: usize = option(opts, "ads", 5)?.max(1);
    let pid: u32 = option(opts, "pid", 0)?;
    let sinful: Sinful = format!("<{addr}>").parse().map_err(|e| format!("{addr}: {e}"))?;
    let template: ClassAd = machine_ad_text(0).parse().map_err(|e| format!("the template ad: {e}"))?;
    let sent = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut workers = Vec::new();
    for c in 0..connections {
        let (sinful, template, sent, stop) = (sinful.clone(), template.clone(), sent.clone(), stop.clone());
        workers.push(std::thread::spawn(move || -> Result<Vec<u64>, String> {
            let client = Client::new(ClientConfig::default().timeout(Duration::from_secs(60)));
            let mut conn = client.connect(&sinful).map_err(|e| format!("connection {c}: {e}"))?;
            let mut last = vec![0u64; ads];
            let mut seq = 0u64;
            // Each ad encoded once; an update only writes its sequence
            // number into the copy (so the client costs little next to
            // the collector).
            let mut encoded = Vec::with_capacity(ads);
            for k in 0..ads {
                let mut enc = Encoder::new(false);
                put_classad(&mut enc, &slot_ad(&template, c, k, PLACEHOLDER), &PutOptions::default())
                    .map_err(|e| format!("connection {c}: {e}"))?;
                let bytes = enc.into_bytes();
                let digits = PLACEHOLDER.to_string();
                let at = bytes
                    .windows(digits.len())
                    .position(|w| w == digits.as_bytes())
                    .ok_or("the sequence number is not in the encoded ad")?;
                encoded.push((bytes, at));
            }
            while !stop.load(Ordering::Relaxed) {
                let k = (seq as usize) % ads;
                seq += 1;
                let (bytes, at) = &mut encoded[k];
                let text = format!("{seq:>13}");
                bytes[*at..*at + 13].copy_from_slice(text.as_bytes());
                conn.start_command(UPDATE_STARTD_AD).map_err(|e| format!("connection {c}: {e}"))?;
                let mut enc = conn.encoder();
                enc.put_bytes(bytes);
                conn.send(enc).map_err(|e| format!("connection {c}: update {seq}: {e}"))?;
                last[k] = seq;
                sent.fetch_add(1, Ordering::Relaxed);
            }
            let _ = conn.hang_up();
            Ok(last)
        }));
    }
    let mut previous = 0u64;
    let mut tick = Instant::now();
    while started.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_millis(200));
        if tick.elapsed() >= Duration::from_secs(10) || started.elapsed() >= Duration::from_secs(seconds) {
            let now = sent.load(Ordering::Relaxed);
            let rate = (now - previous) as f64 / tick.elapsed().as_secs_f64();
            let memory =
                if pid > 0 { resident_kib(pid).map(|k| format!(", collector RSS {} MiB", k / 1024)) } else { None };
            eprintln!("{:>5.0} s: {rate:.0} updates/s{}", started.elapsed().as_secs_f64(), memory.unwrap_or_default());
            previous = now;
            tick = Instant::now();
        }
    }
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let mut expected = Vec::new();
    for (c, w) in workers.into_iter().enumerate() {
        let last = w.join().map_err(|_| format!("connection {c} panicked"))??;
        for (k, seq) in last.into_iter().enumerate() {
            if seq > 0 {
                expected.push((format!("slot{}@load{c:04}.anchor.invalid", k + 1), seq));
            }
        }
    }
    let total = sent.load(Ordering::Relaxed);
    println!(
        "{total} updates over {connections} connections in {elapsed:.1} s: {:.0} updates/s",
        total as f64 / elapsed
    );
    // The collector may still be reading the last updates: poll until
    // every ad shows its last sequence number, or 30 s pass.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let stored = stored_sequences(addr)?;
        let lost: Vec<_> = expected.iter().filter(|(name, seq)| stored.get(name) != Some(seq)).collect();
        if lost.is_empty() {
            println!("no update lost: all {} ads hold their last sequence number", expected.len());
            return Ok(());
        }
        if Instant::now() >= deadline {
            let (name, seq) = lost[0];
            return Err(format!(
                "{} of {} ads do not hold their last update (e.g. {name}: sent {seq}, stored {:?})",
                lost.len(),
                expected.len(),
                stored.get(name)
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Name → UpdateSequenceNumber of the stored slot ads of the load.
fn stored_sequences(addr: &str) -> Result<std::collections::HashMap<String, u64>, String> {
    let (payload, _) = raw_query(addr, Some("Name UpdateSequenceNumber"), Some(r#"regexp("@load", Name)"#))?;
    let mut dec = Decoder::new(&payload, false);
    let mut out = std::collections::HashMap::new();
    let limits = AdLimits::default();
    while dec.get_int().map_err(|e| e.to_string())? != 0 {
        let ad = get_classad(&mut dec, &limits).map_err(|e| e.to_string())?;
        let name = ad.eval_attr("Name").as_str().map(str::to_owned);
        let seq = ad.lookup("UpdateSequenceNumber").and_then(|e| e.as_literal().cloned());
        if let (Some(name), Some(classad::Literal::Int(seq))) = (name, seq) {
            out.insert(name, seq as u64);
        }
    }
    Ok(out)
}

/// A raw plaintext `QUERY_STARTD_ADS`; returns the reply's payload and the
/// seconds from the query sent to the reply's last byte.
fn raw_query(addr: &str, projection: Option<&str>, constraint: Option<&str>) -> Result<(Vec<u8>, f64), String> {
    raw_query_within(addr, projection, constraint, Duration::from_secs(600))
}

/// A raw `QUERY_STARTD_ADS` as it goes on the wire.
fn query_wire(projection: Option<&str>, constraint: Option<&str>) -> Result<Vec<u8>, String> {
    let mut query = ClassAd::new();
    query.insert("MyType", "Query");
    query.insert("TargetType", "Machine");
    let requirements: classad::Expr = constraint.unwrap_or("true").parse().map_err(|e| format!("constraint: {e}"))?;
    query.insert("Requirements", requirements);
    if let Some(p) = projection {
        query.insert("Projection", p);
    }
    let mut enc = Encoder::new(false);
    enc.put_int(i64::from(QUERY_STARTD_ADS));
    put_classad(&mut enc, &query, &PutOptions::default()).map_err(|e| e.to_string())?;
    let mut wire = Vec::new();
    Outbound::new().frame(enc.as_bytes(), &mut wire).map_err(|e| e.to_string())?;
    Ok(wire)
}

/// The socket address of `addr` (`host:port`).
fn socket_addr(addr: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs as _;
    addr.to_socket_addrs().map_err(|e| format!("{addr}: {e}"))?.next().ok_or_else(|| format!("{addr}: no address"))
}

/// [`raw_query`], every connect, read and write within `limit`.
fn raw_query_within(
    addr: &str,
    projection: Option<&str>,
    constraint: Option<&str>,
    limit: Duration,
) -> Result<(Vec<u8>, f64), String> {
    let wire = query_wire(projection, constraint)?;
    let mut stream = TcpStream::connect_timeout(&socket_addr(addr)?, limit).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_read_timeout(Some(limit)).map_err(|e| e.to_string())?;
    stream.set_write_timeout(Some(limit)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    stream.write_all(&wire).map_err(|e| e.to_string())?;
    let mut payload = Vec::new();
    loop {
        let mut header = [0u8; 5];
        stream.read_exact(&mut header).map_err(|e| format!("reading the reply: {e}"))?;
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        if len > 1 << 21 {
            return Err(format!("a packet of {len} bytes"));
        }
        let at = payload.len();
        payload.resize(at + len, 0);
        stream.read_exact(&mut payload[at..]).map_err(|e| format!("reading the reply: {e}"))?;
        if header[0] != 0 {
            break;
        }
    }
    Ok((payload, started.elapsed().as_secs_f64()))
}

fn query(addr: &str, opts: &[(String, String)]) -> Result<(), String> {
    let projection: String = option(opts, "projection", String::new())?;
    let runs: usize = option(opts, "runs", 3)?;
    for run in 1..=runs {
        let (payload, seconds) = raw_query(addr, (!projection.is_empty()).then_some(projection.as_str()), None)?;
        let decode = Instant::now();
        let mut dec = Decoder::new(&payload, false);
        let mut n = 0usize;
        let limits = AdLimits::default();
        while dec.get_int().map_err(|e| e.to_string())? != 0 {
            get_classad(&mut dec, &limits).map_err(|e| e.to_string())?;
            n += 1;
        }
        println!(
            "run {run}: {n} ads, {:.1} MB, last byte after {seconds:.3} s (decoded in {:.3} s more)",
            payload.len() as f64 / 1e6,
            decode.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The well-behaved client's query latencies, in seconds, and failures,
/// per phase (0: before the misbehaviour, 1: during it).
#[derive(Default)]
struct Latencies {
    seconds: [Vec<f64>; 2],
    failures: [Vec<String>; 2],
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

impl Latencies {
    fn report(&self) {
        for (phase, name) in [(0, "before"), (1, "during")] {
            let mut s = self.seconds[phase].clone();
            s.sort_by(f64::total_cmp);
            let failures = &self.failures[phase];
            println!(
                "well-behaved queries {name}: {} served, median {:.1} ms, p99 {:.1} ms, max {:.1} ms; {} failed{}",
                s.len(),
                percentile(&s, 0.5) * 1e3,
                percentile(&s, 0.99) * 1e3,
                s.last().copied().unwrap_or(f64::NAN) * 1e3,
                failures.len(),
                failures.first().map(|f| format!(" (first: {f})")).unwrap_or_default()
            );
        }
    }
}

/// Queries `addr` every 100 ms until `stop`, each query within 10 s,
/// recording its latency under the phase `phase` says.
fn well_behaved(addr: String, phase: Arc<AtomicU64>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Latencies> {
    std::thread::spawn(move || {
        let mut out = Latencies::default();
        while !stop.load(Ordering::Relaxed) {
            let p = phase.load(Ordering::Relaxed).min(1) as usize;
            let started = Instant::now();
            match raw_query_within(&addr, Some("Name"), None, Duration::from_secs(10)) {
                Ok(_) => out.seconds[p].push(started.elapsed().as_secs_f64()),
                Err(e) => out.failures[p].push(format!("after {:.1} s: {e}", started.elapsed().as_secs_f64())),
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        out
    })
}

/// Reads until EOF, an error or `limit`: `Some(how)` when the server
/// closed the connection ("EOF", "reset"), `None` when it was still open.
fn wait_closed(stream: &mut TcpStream, limit: Duration) -> Option<&'static str> {
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let _ = stream.set_read_timeout(Some(left.min(Duration::from_millis(500))));
        match stream.read(&mut buf) {
            Ok(0) => return Some("EOF"),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Some("reset"),
        }
    }
}

/// A small xorshift generator: random bytes without a dependency.
fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
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

fn hostile(mode: &str, addr: &str, opts: &[(String, String)]) -> Result<(), String> {
    let baseline: u64 = option(opts, "baseline", 5)?;
    let target = socket_addr(addr)?;
    let phase = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let client = well_behaved(addr.to_owned(), phase.clone(), stop.clone());
    std::thread::sleep(Duration::from_secs(baseline));
    phase.store(1, Ordering::Relaxed);
    let during = Instant::now();
    let outcome = match mode {
        "stall" => stall(target, opts),
        "garbage" => garbage(target, opts),
        _ => flood(target, opts),
    };
    // A misbehaviour over in a moment is measured for as long as the
    // baseline, from its start.
    std::thread::sleep(Duration::from_secs(baseline).saturating_sub(during.elapsed()));
    stop.store(true, Ordering::Relaxed);
    let latencies = client.join().map_err(|_| "the well-behaved client panicked")?;
    latencies.report();
    outcome
}

fn stall(target: std::net::SocketAddr, opts: &[(String, String)]) -> Result<(), String> {
    let partial: u8 = option(opts, "partial", 0)?;
    let limit: u64 = option(opts, "limit", 400)?;
    let mut stream = TcpStream::connect_timeout(&target, Duration::from_secs(10)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let what = if partial != 0 {
        stream.write_all(&[1, 0, 0]).map_err(|e| e.to_string())?;
        "three bytes of a packet header, then nothing"
    } else {
        "nothing"
    };
    match wait_closed(&mut stream, Duration::from_secs(limit)) {
        Some(how) => {
            println!("stall ({what}): closed by the server ({how}) after {:.1} s", started.elapsed().as_secs_f64())
        }
        None => println!("stall ({what}): still open after {limit} s (gave up)"),
    }
    Ok(())
}

fn garbage(target: std::net::SocketAddr, opts: &[(String, String)]) -> Result<(), String> {
    let megabytes: usize = option(opts, "megabytes", 10)?;
    let huge: u8 = option(opts, "huge-header", 0)?;
    let command: i64 = option(opts, "command", -1)?;
    let limit: u64 = option(opts, "limit", 120)?;
    const PACKET: usize = 64 * 1024;
    let (wire, what) = if huge != 0 {
        let mut wire = vec![1u8, 0x80, 0, 0, 0];
        wire.extend(random_bytes(PACKET, 0x9e37_79b9_7f4a_7c15));
        (wire, "a header announcing 2 GiB, then 64 KiB of random bytes".to_owned())
    } else {
        let mut body = random_bytes(megabytes * 1_000_000, 0x9e37_79b9_7f4a_7c15);
        if command >= 0 {
            // A real command number first: the random bytes reach its
            // payload's decoder.
            body[..8].copy_from_slice(&command.to_be_bytes());
        }
        let mut wire = Vec::with_capacity(body.len() + body.len() / PACKET * 5 + 5);
        let mut chunks = body.chunks(PACKET).peekable();
        while let Some(chunk) = chunks.next() {
            wire.push(u8::from(chunks.peek().is_none()));
            wire.extend((chunk.len() as u32).to_be_bytes());
            wire.extend_from_slice(chunk);
        }
        let after = if command >= 0 { format!(" after command {command}") } else { String::new() };
        (wire, format!("{megabytes} MB of random bytes{after} in packets of 64 KiB"))
    };
    let mut stream = TcpStream::connect_timeout(&target, Duration::from_secs(10)).map_err(|e| e.to_string())?;
    stream.set_write_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut sent = 0usize;
    let mut write_error = None;
    for chunk in wire.chunks(PACKET) {
        match stream.write(chunk) {
            Ok(n) => {
                sent += n;
                if n < chunk.len() {
                    // The rest of this chunk, once more.
                    if let Err(e) = stream.write_all(&chunk[n..]) {
                        write_error = Some(e.to_string());
                        break;
                    }
                    sent += chunk.len() - n;
                }
            }
            Err(e) => {
                write_error = Some(e.to_string());
                break;
            }
        }
    }
    let wrote = started.elapsed().as_secs_f64();
    let stopped = match &write_error {
        Some(e) => format!("the server stopped taking them after {sent} bytes, {wrote:.2} s ({e})"),
        None => format!("all {sent} bytes sent in {wrote:.2} s"),
    };
    match wait_closed(&mut stream, Duration::from_secs(limit)) {
        Some(how) => println!(
            "garbage ({what}): {stopped}; closed by the server ({how}) after {:.2} s",
            started.elapsed().as_secs_f64()
        ),
        None => println!("garbage ({what}): {stopped}; still open after {limit} s more (gave up)"),
    }
    Ok(())
}

fn flood(target: std::net::SocketAddr, opts: &[(String, String)]) -> Result<(), String> {
    let n: usize = option(opts, "connections", 1000)?;
    let hold: u64 = option(opts, "hold", 30)?;
    let started = Instant::now();
    let mut open: Vec<Option<TcpStream>> = Vec::with_capacity(n);
    let mut connect_failed = Vec::new();
    for _ in 0..n {
        match TcpStream::connect_timeout(&target, Duration::from_secs(2)) {
            Ok(s) => {
                s.set_nonblocking(true).map_err(|e| e.to_string())?;
                open.push(Some(s));
            }
            Err(e) => connect_failed.push(e.to_string()),
        }
    }
    println!(
        "flood: {} of {n} connections opened in {:.2} s{}",
        open.len(),
        started.elapsed().as_secs_f64(),
        connect_failed.first().map(|e| format!(" ({} failed: {e})", connect_failed.len())).unwrap_or_default()
    );
    // Held, silent: which does the server close, and when?
    let mut closed_at = Vec::new();
    let mut buf = [0u8; 4096];
    let hold_until = Instant::now() + Duration::from_secs(hold);
    while Instant::now() < hold_until {
        for slot in open.iter_mut() {
            let Some(s) = slot else { continue };
            let closed = match s.read(&mut buf) {
                Ok(0) => true,
                Ok(_) => false,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => false,
                Err(_) => true,
            };
            if closed {
                closed_at.push(started.elapsed().as_secs_f64());
                *slot = None;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    match (closed_at.first(), closed_at.last()) {
        (Some(first), Some(last)) => println!(
            "flood: {} closed by the server while held {hold} s (the first after {first:.1} s, the last after {last:.1} s)",
            closed_at.len()
        ),
        _ => println!("flood: none closed by the server while held {hold} s"),
    }
    // Each connection still open asks a query whose reply is one packet
    // (no ads); all are sent first, then the replies read, within 30 s.
    let wire = query_wire(Some("Name"), Some("false"))?;
    let mut pending: Vec<(TcpStream, Vec<u8>)> = Vec::new();
    let mut unsent = 0usize;
    for s in open.into_iter().flatten() {
        let mut s = s;
        match s.write(&wire) {
            Ok(k) if k == wire.len() => pending.push((s, Vec::new())),
            _ => unsent += 1,
        }
    }
    let asked = pending.len();
    let (mut served, mut closed) = (0usize, 0usize);
    let deadline = Instant::now() + Duration::from_secs(30);
    let query_started = Instant::now();
    while !pending.is_empty() && Instant::now() < deadline {
        pending.retain_mut(|(s, got)| match s.read(&mut buf) {
            Ok(0) => {
                closed += 1;
                false
            }
            Ok(k) => {
                got.extend_from_slice(&buf[..k]);
                if reply_complete(got) {
                    served += 1;
                    false
                } else {
                    true
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => true,
            Err(_) => {
                closed += 1;
                false
            }
        });
        std::thread::sleep(Duration::from_millis(20));
    }
    println!(
        "flood: then {asked} asked a query ({unsent} could not send it): {served} served, {closed} closed without a reply, {} unanswered after {:.1} s",
        pending.len(),
        query_started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Whether `bytes` hold a whole message: packets up to one with its end flag.
fn reply_complete(bytes: &[u8]) -> bool {
    let mut at = 0usize;
    while bytes.len() >= at + 5 {
        let len = u32::from_be_bytes([bytes[at + 1], bytes[at + 2], bytes[at + 3], bytes[at + 4]]) as usize;
        if bytes.len() < at + 5 + len {
            return false;
        }
        if bytes[at] != 0 {
            return true;
        }
        at += 5 + len;
    }
    false
}
