//! One pass (or a few) of the collector's query path in-process, for a
//! profiler (`valgrind --tool=callgrind`, `perf record`) or a timing:
//!
//! ```text
//! collector-query-profile N [QUERY] [REPEAT] [--version]
//! ```
//!
//! N slot ads are stored as updates store them, then QUERY (`projected`:
//! `Projection = "Name State"`; `projected-constraint`: the same with
//! `Requirements = State == "Unclaimed"`; `whole`, `whole-constraint`: no
//! projection; `all`, the default: each in turn) runs REPEAT times as the
//! server runs it, the reply's parts going to a sink that counts their bytes (and, in
//! a first pass not timed, checksums them, to compare two builds' replies).
//! `--version`: as `condor_status` 23.9.6, which announces its version
//! (a raw query, as `cedar-load query`, has none).
//!
//! Under callgrind, count only the queries:
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*query_counted*' collector-query-profile 10000 projected`

use std::process::ExitCode;
use std::time::Instant;

use classad_benches::collector_query::{load_store, query_ad, run_query_sent, CONDOR_STATUS_VERSION, QUERIES};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let version = args.iter().any(|a| a == "--version");
    args.retain(|a| a != "--version");
    let usage = || {
        eprintln!("usage: collector-query-profile N [projected|projected-constraint|whole|whole-constraint|all] [REPEAT] [--version]");
        ExitCode::from(2)
    };
    let Some(Ok(n)) = args.first().map(|a| a.parse::<usize>()) else { return usage() };
    let which = args.get(1).map_or("all", String::as_str);
    let Ok(repeat) = args.get(2).map_or(Ok(1), |r| r.parse::<usize>()) else { return usage() };
    let queries: Vec<_> = QUERIES.iter().filter(|(name, _, _)| which == "all" || *name == which).collect();
    if queries.is_empty() {
        return usage();
    }
    let peer_version = version.then(|| CONDOR_STATUS_VERSION.parse().expect("the version parses"));
    let start = Instant::now();
    let store = load_store(n);
    eprintln!("stored {n} ads in {:.1} s", start.elapsed().as_secs_f64());
    for (name, projection, constraint) in queries {
        let ad = query_ad(projection, *constraint);
        let sent = run_query_sent(&store, &ad, peer_version.as_ref(), true);
        println!(
            "{name}: {} ads, {} bytes in {} parts, checksum {:016x}",
            sent.ads, sent.bytes, sent.parts, sent.checksum
        );
        for _ in 0..repeat {
            let start = Instant::now();
            let sent = run_query_sent(&store, &ad, peer_version.as_ref(), false);
            let secs = start.elapsed().as_secs_f64();
            println!("{name}: {:.4} s, {:.0} ns per ad", secs, secs * 1e9 / sent.ads.max(1) as f64);
        }
    }
    ExitCode::SUCCESS
}
