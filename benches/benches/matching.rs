//! Criterion benchmarks of batch matching (`matchmaker::matching::Pool`): one
//! job against every machine of a pool, both sides' `Requirements` and, for
//! the pairs that match, both sides' `Rank`, as libclassad's negotiator
//! loop does pair by pair (`anchor/batch-match.cpp` times that loop on the
//! same ads; `compare.sh` prints the two side by side).
//!
//! One iteration is one pass over the pool (for the pool sample: all four
//! jobs against all 143 machines); the throughput is the number of
//! (job, machine) pairs of a pass, so the time per pair is the mean divided
//! by it. The `_parallel` benchmarks split the machines over rayon's thread
//! pool (every core); `pool_prepare_*` times `Pool::new` (each machine's
//! `Requirements` and `Rank` prepared), which a negotiator pays once per
//! cycle, not per job, `_cold` a pass with a fresh pool (preparation
//! and the columns the first request builds included), and
//! `pool_replace_*` one machine replaced in a prepared pool.
//!
//! Environment: `CLASSAD_BENCH_MACHINES` (default 20000) and
//! `CLASSAD_BENCH_SLOTS` (default 100000) are the sizes of the two synthetic
//! pools, built by the anchor's generator.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use classad::{ClassAd, EvalOptions, Parser, Semantics};
use classad_benches::anchor::{job_ad_text, machine_ad_text};
use classad_benches::pool;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use matchmaker::matching::{Match, Pool};

fn count(name: &str, default: u32) -> u32 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn anchor_machines(n: u32) -> Vec<ClassAd> {
    let parser = Parser::default();
    (0..n).map(|i| parser.parse_ad(&machine_ad_text(i)).expect("machine ad parses")).collect()
}

/// The check values `batch-match.cpp` prints: matching pairs, and the sum
/// of both ranks over them.
fn checks(found: &[Match]) -> (usize, f64) {
    (found.len(), found.iter().map(|m| m.left_rank + m.right_rank).sum())
}

fn batch(c: &mut Criterion) {
    let opts = Arc::new(EvalOptions::new().semantics(Semantics::Old));
    let anchor_job = vec![Parser::default().parse_ad(&job_ad_text(0)).expect("job ad parses")];
    let m = count("CLASSAD_BENCH_MACHINES", 20_000);
    let slots = count("CLASSAD_BENCH_SLOTS", 100_000);
    let inputs: Vec<(String, Vec<ClassAd>, Vec<ClassAd>)> = vec![
        ("pool_sample".into(), pool::machines(true), pool::jobs()),
        (format!("anchor_{m}"), anchor_machines(m), anchor_job.clone()),
        (format!("anchor_{slots}"), anchor_machines(slots), anchor_job),
    ];

    let mut group = c.benchmark_group("batch");
    for (label, machines, jobs) in inputs {
        // The pools share the machines (as a negotiator's pool shares its
        // slots with the rest of the negotiator): a pool made of them
        // counts references and copies no ad.
        let machines: Vec<Arc<ClassAd>> = machines.into_iter().map(Arc::new).collect();
        let pool = Pool::new(Arc::clone(&opts), machines.iter().cloned());
        let pass = |found: &mut Vec<Match>| {
            found.clear();
            for job in &jobs {
                pool.matches_into(job, found);
            }
        };
        let mut found = Vec::new();
        pass(&mut found);
        let (matched, ranks) = checks(&found);
        let parallel: Vec<Match> = jobs.iter().flat_map(|job| pool.par_matches(job)).collect();
        assert_eq!(parallel, found, "parallel and sequential agree");
        eprintln!(
            "classad-rs batch checks: {label} jobs={} machines={} pairs={} matches={matched} rank_sum={ranks}",
            jobs.len(),
            machines.len(),
            jobs.len() * machines.len()
        );

        group.throughput(Throughput::Elements((jobs.len() * machines.len()) as u64));
        group.bench_function(format!("batch_{label}"), |b| {
            b.iter(|| {
                pass(&mut found);
                black_box(found.len())
            })
        });
        group.bench_function(format!("batch_{label}_parallel"), |b| {
            b.iter(|| black_box(jobs.iter().map(|job| pool.par_matches(job).len()).sum::<usize>()))
        });
        // A pool prepared and its columns built for one pass: what the
        // first request of a negotiation cycle pays.
        group.bench_function(format!("batch_{label}_cold"), |b| {
            b.iter(|| {
                let cold = Pool::new(Arc::clone(&opts), machines.iter().cloned());
                black_box(jobs.iter().map(|job| cold.matches(job).len()).sum::<usize>())
            })
        });
        group.throughput(Throughput::Elements(machines.len() as u64));
        group.bench_function(format!("pool_prepare_{label}"), |b| {
            b.iter(|| black_box(Pool::new(Arc::clone(&opts), machines.iter().cloned()).len()))
        });
        // One machine replaced in a pool whose columns the jobs built (a
        // slot claimed or released during a cycle): its side prepared and
        // its place in every column updated, the other machines untouched.
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("pool_replace_{label}"), |b| {
            let mut updated = Pool::new(Arc::clone(&opts), machines.iter().cloned());
            for job in &jobs {
                black_box(updated.count(job));
            }
            let mut next = 0;
            b.iter(|| {
                let index = next % machines.len();
                next += 1;
                black_box(updated.replace(index, Arc::clone(&machines[(index + 1) % machines.len()])))
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = batch
}
criterion_main!(benches);
