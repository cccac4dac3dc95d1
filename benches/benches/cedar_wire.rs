//! cedar's ClassAds on the wire at pool scale: a `condor_status -l`
//! reply (QUERY_STARTD_ADS: `int 1`, ad, … `int 0`, one message) of 50,000
//! real-looking 158-attribute static-slot ads, decoded and encoded on one
//! core.
//!
//! The ads come from `cedar/tests/data/wire-speed/gen_slots.py` (the
//! anchor's slot-ad model); the file is made on the first run if missing
//! (`CEDAR_WIRE_SLOTS` names another file, `CEDAR_WIRE_ADS` takes fewer
//! ads). See docs/benchmarks.md, "cedar: ClassAds on the wire", for the
//! comparison with HTCondor 23.9.6's own `condor_status`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Inbound, Outbound};
use classad::format::{Format, Reader};
use classad::ClassAd;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The reply is one message; 50,000 slots make about 230 MB.
const MAX_MESSAGE: usize = 1 << 30;

fn slots_file() -> PathBuf {
    if let Ok(p) = std::env::var("CEDAR_WIRE_SLOTS") {
        return PathBuf::from(p);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cedar/tests/data/wire-speed");
    let file = dir.join("slots.ad");
    if !file.exists() {
        let status = std::process::Command::new("python3")
            .arg(dir.join("gen_slots.py"))
            .arg("50000")
            .arg(&file)
            .status()
            .expect("python3 runs gen_slots.py");
        assert!(status.success(), "gen_slots.py failed");
    }
    file
}

fn load_ads() -> Vec<ClassAd> {
    let n: usize = std::env::var("CEDAR_WIRE_ADS").ok().and_then(|s| s.parse().ok()).unwrap_or(50_000);
    let text = std::fs::read(slots_file()).expect("the slot ads");
    let ads: Vec<ClassAd> = Reader::new(&text[..], Some(Format::Old)).take(n).map(|a| a.expect("a slot ad")).collect();
    assert_eq!(ads.len(), n);
    ads
}

/// The reply's packets, as a collector writes them.
pub fn encode_reply(ads: &[ClassAd]) -> Vec<u8> {
    let mut enc = Encoder::new(false);
    let opts = PutOptions::new().exclude_private(true);
    for ad in ads {
        enc.put_int(1);
        put_classad(&mut enc, ad, &opts).expect("the ad encodes");
    }
    enc.put_int(0);
    let mut wire = Vec::with_capacity(enc.len() + enc.len() / (1 << 20) * 5 + 5);
    Outbound::new().frame(enc.as_bytes(), &mut wire).expect("the reply frames");
    wire
}

/// From the first byte to the last ad: the packets joined, then every ad
/// decoded.
pub fn decode_reply(wire: &[u8]) -> Vec<ClassAd> {
    let mut inbound = Inbound::with_max_message(MAX_MESSAGE);
    inbound.feed(wire);
    let message = inbound.next_message().expect("the reply reads").expect("the reply is whole");
    let mut dec = Decoder::new(&message.payload, message.encrypted);
    let limits = AdLimits::default();
    let mut ads = Vec::new();
    while dec.get_int().expect("the more flag") == 1 {
        ads.push(get_classad(&mut dec, &limits).expect("an ad"));
    }
    ads
}

fn time_once<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    eprintln!("cedar_wire: {what}: {:.3} s", start.elapsed().as_secs_f64());
    out
}

fn bench(c: &mut Criterion) {
    let ads = load_ads();
    let wire = time_once("encode (first run)", || encode_reply(&ads));
    let back = time_once("decode (first run)", || decode_reply(&wire));
    assert_eq!(back.len(), ads.len());
    assert!(back.iter().zip(&ads).all(|(a, b)| a.len() == b.len()));
    eprintln!(
        "cedar_wire: {} ads, {} attributes at most, {} bytes on the wire",
        ads.len(),
        ads.iter().map(ClassAd::len).max().unwrap_or(0),
        wire.len()
    );
    drop(back);
    let mut g = c.benchmark_group("cedar_wire");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(ads.len() as u64));
    g.bench_function("decode_query_startd_reply", |b| b.iter(|| black_box(decode_reply(black_box(&wire)))));
    g.bench_function("encode_query_startd_reply", |b| b.iter(|| black_box(encode_reply(black_box(&ads)))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
