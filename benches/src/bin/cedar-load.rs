//! A load generator for collectors (ours or HTCondor's), over CEDAR.
//!
//! ```text
//! cedar-load updates HOST:PORT [--connections 200] [--seconds 60] [--ads 5] [--pid PID]
//! cedar-load query HOST:PORT [--projection "Name State"] [--runs 3]
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
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(600))).map_err(|e| e.to_string())?;
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
