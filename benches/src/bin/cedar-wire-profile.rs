//! One pass of the `cedar_wire` benchmark's decode or encode, for a
//! profiler (`valgrind --tool=callgrind`, `perf record`):
//!
//! ```text
//! cedar-wire-profile decode N [REPEAT]   N slot ads encoded once, then decoded REPEAT times (kept)
//! cedar-wire-profile decode-streamed N [REPEAT]   the same, each ad dropped once read
//! cedar-wire-profile decode-joined N [REPEAT]     the message joined first, then get_classad
//! cedar-wire-profile encode N [REPEAT]   N slot ads encoded REPEAT times (every packet kept)
//! cedar-wire-profile encode-streamed N [REPEAT]   the same, each part dropped once framed
//! cedar-wire-profile encode-joined N [REPEAT]     the whole payload first, then framed
//! cedar-wire-profile query ADDR [REPEAT]  QUERY_STARTD_ADS of a real collector, streamed
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use classad_benches::cedar_wire::{
    decode_reply, decode_reply_joined, decode_reply_streamed, encode_reply, encode_reply_joined, encode_reply_kept,
    encode_reply_streamed, load_ads,
};

/// `query ADDR [REPEAT]`: our client's `condor_status -l` against a real
/// collector (raw, unauthenticated): every slot ad streamed through
/// `CollectorClient::query_each` and dropped.
fn query(addr: &str, repeat: usize) -> ExitCode {
    use cedar::client::{Client, ClientConfig, CollectorClient, Query};
    let Ok(addr) = addr.parse() else {
        eprintln!("cedar-wire-profile: bad address {addr}");
        return ExitCode::from(2);
    };
    let mut config = ClientConfig::default().raw();
    config.timeout = std::time::Duration::from_secs(120);
    let collector = CollectorClient::new(Client::new(config), addr);
    for _ in 0..repeat {
        let start = Instant::now();
        let mut attributes = 0;
        match collector.query_each(&Query::startd(), |ad| attributes += ad.len()) {
            Ok(n) => eprintln!("query: {n} ads, {attributes} attributes in {:.3} s", start.elapsed().as_secs_f64()),
            Err(e) => {
                eprintln!("query: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, addr, rest @ ..] = &args[..] {
        if mode == "query" {
            return query(addr, rest.first().and_then(|r| r.parse().ok()).unwrap_or(1));
        }
    }
    let (mode, n, repeat) = match &args[..] {
        [mode, n] => (mode.as_str(), n.parse::<usize>(), Ok(1)),
        [mode, n, r] => (mode.as_str(), n.parse::<usize>(), r.parse::<usize>()),
        _ => (String::new().leak() as &str, Ok(0), Ok(0)),
    };
    let (Ok(n), Ok(repeat)) = (n, repeat) else {
        eprintln!("usage: cedar-wire-profile decode|decode-streamed|decode-joined|encode|encode-streamed|encode-joined N [REPEAT]");
        return ExitCode::from(2);
    };
    let ads = load_ads(n);
    let attributes: usize = ads.iter().map(classad::ClassAd::len).sum();
    let wire = encode_reply(&ads);
    let start = Instant::now();
    match mode {
        "decode" => {
            for _ in 0..repeat {
                black_box(decode_reply(black_box(&wire)));
            }
        }
        "decode-streamed" => {
            for _ in 0..repeat {
                black_box(decode_reply_streamed(black_box(&wire)));
            }
        }
        "decode-joined" => {
            for _ in 0..repeat {
                black_box(decode_reply_joined(black_box(&wire)));
            }
        }
        "encode" => {
            for _ in 0..repeat {
                black_box(encode_reply_kept(black_box(&ads)));
            }
        }
        "encode-joined" => {
            for _ in 0..repeat {
                black_box(encode_reply_joined(black_box(&ads)));
            }
        }
        "encode-streamed" => {
            for _ in 0..repeat {
                black_box(encode_reply_streamed(black_box(&ads)));
            }
        }
        _ => {
            eprintln!("usage: cedar-wire-profile decode|decode-streamed|decode-joined|encode|encode-streamed|encode-joined N [REPEAT]");
            return ExitCode::from(2);
        }
    }
    let per = start.elapsed().as_secs_f64() / repeat.max(1) as f64;
    eprintln!(
        "{mode}: {n} ads, {attributes} attributes, {} bytes: {:.3} s per pass, {:.1} ns per attribute",
        wire.len(),
        per,
        per * 1e9 / attributes.max(1) as f64
    );
    ExitCode::SUCCESS
}
