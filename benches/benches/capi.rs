//! Criterion benchmarks of matching through the C ABI (`classad-capi`)
//! next to the same work through the Rust API, in the same run: one job
//! against every machine of a pool (`classad_pool_matches` and
//! `Pool::matches_into`), and one pair at a time (`classad_match` and
//! `MatchAd`). The C ABI's cost is its boundary: the arguments checked,
//! the panic guard, the matches copied into the caller's array. The goal
//! is a time per pair within 10% of the Rust API's.
//!
//! The ads are the pool sample's (143 machines, 4 jobs) and the anchor's
//! synthetic machines (`CLASSAD_BENCH_MACHINES`, default 20000).

// The benchmark calls the C ABI as C does, through raw pointers.
#![allow(unsafe_code)]

use std::hint::black_box;
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::Duration;

use classad::matching::MatchAd;
use classad::{ClassAd, EvalOptions, Parser, Semantics};
use classad_benches::anchor::{job_ad_text, machine_ad_text};
use classad_benches::pool;
use classad_capi as capi;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use matchmaker::matching::Pool;

fn count(name: &str, default: u32) -> u32 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// The ads as one text of the new syntax, for the C ABI to read.
fn text_of(ads: &[ClassAd]) -> String {
    classad::format::to_string(ads, classad::format::Format::New)
}

/// Ads read through the C ABI: the caller frees the list.
fn c_list(ads: &[ClassAd]) -> *mut capi::ClassadAdList {
    let text = text_of(ads);
    let mut list = null_mut();
    // SAFETY: the text and the result place are valid for the call.
    let status = unsafe {
        capi::classad_ad_list_parse(text.as_ptr().cast(), text.len(), capi::CLASSAD_FORMAT_NEW, &mut list, null_mut())
    };
    assert_eq!(status, capi::ClassadStatus::Ok);
    list
}

fn matching(c: &mut Criterion) {
    let opts = Arc::new(EvalOptions::new().semantics(Semantics::Old));
    let m = count("CLASSAD_BENCH_MACHINES", 20_000);
    let anchor_job = vec![Parser::default().parse_ad(&job_ad_text(0)).expect("job ad parses")];
    let anchor: Vec<ClassAd> =
        (0..m).map(|i| Parser::default().parse_ad(&machine_ad_text(i)).expect("machine ad parses")).collect();
    let inputs = vec![
        ("pool_sample".to_string(), pool::machines(true), pool::jobs()),
        (format!("anchor_{m}"), anchor, anchor_job),
    ];

    let mut group = c.benchmark_group("capi");
    for (label, machines, jobs) in inputs {
        let pairs = (jobs.len() * machines.len()) as u64;
        let rust = Pool::new(Arc::clone(&opts), machines.iter().cloned());
        let (c_machines, c_jobs) = (c_list(&machines), c_list(&jobs));
        let mut c_pool = null_mut();
        // SAFETY: the list is live; the result place is valid.
        let status =
            unsafe { capi::classad_pool_new(c_machines, capi::CLASSAD_SEMANTICS_OLD, &mut c_pool, null_mut()) };
        assert_eq!(status, capi::ClassadStatus::Ok);
        let c_matches = capi::classad_matches_new();
        // SAFETY: the list is live; each index is in range.
        let c_job_ads: Vec<*const capi::ClassadAd> =
            (0..jobs.len()).map(|i| unsafe { capi::classad_ad_list_get(c_jobs, i) }).collect();

        // Both give the same matches.
        let mut found = Vec::new();
        let mut same = 0;
        for (job, &c_job) in jobs.iter().zip(&c_job_ads) {
            found.clear();
            rust.matches_into(job, &mut found);
            // SAFETY: the pool, the job and the matches are live.
            unsafe { capi::classad_pool_matches(c_pool, c_job, c_matches, null_mut()) };
            // SAFETY: the matches are live.
            assert_eq!(unsafe { capi::classad_matches_len(c_matches) }, found.len());
            same += found.len();
        }
        eprintln!(
            "classad-rs capi checks: {label} pairs={pairs} matches={same} (the C ABI's and the Rust API's agree)"
        );

        group.throughput(Throughput::Elements(pairs));
        group.bench_function(format!("pool_{label}_rust"), |b| {
            b.iter(|| {
                let mut n = 0;
                for job in &jobs {
                    found.clear();
                    rust.matches_into(job, &mut found);
                    n += found.len();
                }
                black_box(n)
            })
        });
        group.bench_function(format!("pool_{label}_c_abi"), |b| {
            b.iter(|| {
                let mut n = 0;
                for &job in &c_job_ads {
                    // SAFETY: the pool, the job and the matches are live.
                    unsafe {
                        capi::classad_pool_matches(c_pool, job, c_matches, null_mut());
                        n += capi::classad_matches_len(c_matches);
                    }
                }
                black_box(n)
            })
        });
        // One pair at a time, over the first 1000 machines.
        let few = machines.len().min(1000);
        group.throughput(Throughput::Elements((jobs.len() * few) as u64));
        group.bench_function(format!("pair_{label}_rust"), |b| {
            b.iter(|| {
                let mut n = 0;
                for job in &jobs {
                    for machine in &machines[..few] {
                        n += usize::from(MatchAd::new(&opts, job, machine).symmetric_match());
                    }
                }
                black_box(n)
            })
        });
        group.bench_function(format!("pair_{label}_c_abi"), |b| {
            b.iter(|| {
                let mut n = 0;
                for &job in &c_job_ads {
                    for i in 0..few {
                        let mut matched = false;
                        // SAFETY: the ads are live; the result place is valid.
                        unsafe {
                            let machine = capi::classad_ad_list_get(c_machines, i);
                            capi::classad_match(
                                job,
                                machine,
                                capi::CLASSAD_SEMANTICS_OLD,
                                &mut matched,
                                null_mut(),
                                null_mut(),
                                null_mut(),
                            );
                        }
                        n += usize::from(matched);
                    }
                }
                black_box(n)
            })
        });
        // SAFETY: each was made above and is freed once.
        unsafe {
            capi::classad_matches_free(c_matches);
            capi::classad_pool_free(c_pool);
            capi::classad_ad_list_free(c_jobs);
            capi::classad_ad_list_free(c_machines);
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = matching
}
criterion_main!(benches);
