//! The collector's query path in-process (see `classad_benches::collector_query`):
//! `COLLECTOR_QUERY_ADS` slot ads (10,000 by default) stored as updates
//! store them, then each query of `QUERIES` selected and its reply encoded
//! into a sink that counts the bytes, as `condor_status -af Name State`
//! (with the version `condor_status` announces) and a raw
//! `cedar-load query` ask for it.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use classad_benches::collector_query::{load_store, query_ad, run_query_sent, CONDOR_STATUS_VERSION, QUERIES};

fn bench(c: &mut Criterion) {
    let n: usize = std::env::var("COLLECTOR_QUERY_ADS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let store = load_store(n);
    let version: cedar::version::Version = CONDOR_STATUS_VERSION.parse().expect("the version parses");
    let mut group = c.benchmark_group("collector_query");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for (name, projection, constraint) in QUERIES {
        let ad = query_ad(projection, constraint);
        group.bench_function(format!("{name}/raw"), |b| b.iter(|| run_query_sent(&store, &ad, None, false)));
        group.bench_function(format!("{name}/condor_status"), |b| {
            b.iter(|| run_query_sent(&store, &ad, Some(&version), false))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
