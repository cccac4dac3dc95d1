//! One negotiation cycle (`matchmaker::negotiator`) on a captured pool:
//! the 1,000-slot, 1,000-job, 4-user snapshot of HTCondor 23.9.6 in
//! `matchmaker/tests/data/cycle/snap-1000-1000-4-8` (condor_negotiator's
//! own figures for it are in that directory's `result.json`), and on the
//! benchmark's 10,000-slot, 100-autocluster synthetic pool built in memory
//! (`negotiator_sim::synthetic`, lean slot ads), also with its users in a
//! 50-group tree, and handed over again as the same shared ads
//! (`Negotiator::cycle_shared`, which remembers them prepared). Reading the snapshot,
//! building the pool and grouping the jobs are timed apart; the slot ads
//! are copied for each cycle outside the measurement.
//!
//! `cargo bench -p classad-benches --bench cycle`

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::negotiator::Negotiator;
use matchmaker::snapshot::{Priorities, Snapshot};
use negotiator_sim::synthetic::{generate, SlotAttrs, Spec};

fn snapshot(dir: &str) -> Snapshot {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle").join(dir);
    Snapshot::read(
        &dir.join("slots.ad.gz"),
        &dir.join("jobs.ad.gz"),
        Some(&dir.join("config.dump")),
        &Priorities::Fresh,
        Some(&dir.join("submitters.ad")),
    )
    .expect("the snapshot reads")
}

fn cycle(c: &mut Criterion) {
    let snap = snapshot("snap-1000-1000-4-8");
    let mut negotiator = Negotiator::from_config(&snap.config).expect("config");
    negotiator.settings.resend_matched_jobs = true;
    let mut group = c.benchmark_group("cycle");
    group.sample_size(20);
    group.bench_function("autoclusters_1000_jobs", |b| b.iter(|| snap.queues(&negotiator)));
    let queues = snap.queues(&negotiator);
    group.bench_function("snapshot_1000_slots_1000_jobs_4_users", |b| {
        b.iter_batched(
            || Accountant::new(AccountantConfig::from_config(&snap.config).expect("config")),
            |mut accountant| negotiator.cycle(&mut accountant, &snap.slots, &queues, 0).expect("cycle"),
            BatchSize::LargeInput,
        )
    });
    let spec = Spec { attrs: SlotAttrs::Lean, ..Spec::new(10_000, 10_000, 10, 100) };
    let pool = generate(&spec).expect("the synthetic pool");
    let config = matchmaker::config::Config::default();
    let mut negotiator = Negotiator::from_config(&config).expect("config");
    negotiator.settings.resend_matched_jobs = true;
    let queues = matchmaker::autocluster::queues(
        &pool.jobs,
        &matchmaker::autocluster::significant_attributes(&pool.slots, &negotiator.expressions()),
    );
    group.sample_size(10);
    group.bench_function("synthetic_10000_slots_10000_jobs_10_users_100_autoclusters", |b| {
        b.iter_batched(
            || (pool.accountant(AccountantConfig::default()).expect("factors"), pool.slots.clone()),
            |(mut accountant, slots)| negotiator.cycle_owned(&mut accountant, slots, &queues, 0).expect("cycle"),
            BatchSize::LargeInput,
        )
    });
    // The same pool handed over as shared ads the negotiator already saw
    // (`cycle_shared`): what a cycle costs when the pool did not change
    // since the last one.
    let shared: Vec<std::sync::Arc<classad::ClassAd>> = pool.slots.iter().cloned().map(std::sync::Arc::new).collect();
    let mut warm = pool.accountant(AccountantConfig::default()).expect("factors");
    negotiator.cycle_shared(&mut warm, shared.clone(), &queues, 0).expect("cycle");
    group.bench_function("synthetic_10000_slots_10000_jobs_10_users_100_autoclusters_remembered", |b| {
        b.iter_batched(
            || pool.accountant(AccountantConfig::default()).expect("factors"),
            |mut accountant| negotiator.cycle_shared(&mut accountant, shared.clone(), &queues, 0).expect("cycle"),
            BatchSize::LargeInput,
        )
    });
    // The same pool with the users in a tree of 50 groups (dynamic quotas
    // of 1/50, surplus accepted): what group quotas add to the cycle.
    let mut grouped = generate(&spec).expect("the synthetic pool");
    let mut config = matchmaker::config::Config::default();
    grouped.put_in_groups(&mut config, 50).expect("groups");
    let mut negotiator = Negotiator::from_config(&config).expect("config");
    negotiator.settings.resend_matched_jobs = true;
    let queues = matchmaker::autocluster::queues(
        &grouped.jobs,
        &matchmaker::autocluster::significant_attributes(&grouped.slots, &negotiator.expressions()),
    );
    let accountant_config = AccountantConfig::from_config(&config).expect("accountant config");
    group.bench_function("synthetic_10000_slots_10000_jobs_10_users_100_autoclusters_50_groups", |b| {
        b.iter_batched(
            || (grouped.accountant(accountant_config.clone()).expect("factors"), grouped.slots.clone()),
            |(mut accountant, slots)| negotiator.cycle_owned(&mut accountant, slots, &queues, 0).expect("cycle"),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, cycle);
criterion_main!(benches);
