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
use std::time::{Duration, Instant};

use classad::ClassAd;
use classad_benches::cedar_wire::{
    decode_reply, decode_reply_streamed, encode_reply, encode_reply_kept, encode_reply_streamed, load_ads,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn time_once<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    eprintln!("cedar_wire: {what}: {:.3} s", start.elapsed().as_secs_f64());
    out
}

fn bench(c: &mut Criterion) {
    let n = std::env::var("CEDAR_WIRE_ADS").ok().and_then(|s| s.parse().ok()).unwrap_or(50_000);
    let ads = load_ads(n);
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
    g.bench_function("decode_query_startd_reply_streamed", |b| {
        b.iter(|| black_box(decode_reply_streamed(black_box(&wire))))
    });
    g.bench_function("encode_query_startd_reply", |b| b.iter(|| black_box(encode_reply_kept(black_box(&ads)))));
    g.bench_function("encode_query_startd_reply_streamed", |b| {
        b.iter(|| black_box(encode_reply_streamed(black_box(&ads))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
