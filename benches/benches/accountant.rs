//! The accountant: loading a 100,000-submitter log and updating every
//! priority once (the figures the accountant's design is held to: both
//! together under 100 ms on one core).
//!
//! `cargo bench -p classad-benches --bench accountant`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use matchmaker::accountant::{Accountant, AccountantConfig};

/// A compacted log as HTCondor writes one: a header, the accountant's
/// record, then one record per submitter with the attributes a busy
/// submitter has (a third of them using slots).
fn log_text(submitters: usize) -> String {
    let mut out = String::with_capacity(submitters * 700);
    out.push_str("107 7 CreationTimestamp 1760000000\n");
    out.push_str("101 Accountant. * *\n103 Accountant. LastUpdateTime 1764000000\n");
    for i in 0..submitters {
        let key = format!("Customer.user{i:06}@pool.example.org");
        let used = if i % 3 == 0 { (i % 17) as i64 } else { 0 };
        let prio = 0.5 + (i % 1000) as f64 * 1.25;
        out.push_str(&format!("101 {key} * *\n"));
        out.push_str(&format!("103 {key} Priority {prio:.6}\n"));
        out.push_str(&format!("103 {key} PriorityFactor 1000.000000\n"));
        out.push_str(&format!("103 {key} ResourcesUsed {used}\n"));
        out.push_str(&format!("103 {key} WeightedResourcesUsed {:.6}\n", used as f64 * 2.0));
        out.push_str(&format!("103 {key} UnchargedTime 0\n"));
        out.push_str(&format!("103 {key} WeightedUnchargedTime 0.000000\n"));
        out.push_str(&format!("103 {key} AccumulatedUsage {:.6}\n", i as f64 * 3600.0));
        out.push_str(&format!("103 {key} WeightedAccumulatedUsage {:.6}\n", i as f64 * 7200.0));
        out.push_str(&format!("103 {key} BeginUsageTime {}\n", 1_760_000_000 + i));
        out.push_str(&format!("103 {key} LastUsageTime {}\n", 1_763_990_000 + i % 10_000));
    }
    out
}

fn accountant(c: &mut Criterion) {
    let text = log_text(100_000);
    eprintln!("log of 100,000 submitters: {:.1} MB", text.len() as f64 / 1e6);
    let config = AccountantConfig::default();
    let mut group = c.benchmark_group("accountant");
    group.sample_size(20);
    group.bench_function("load_100k_submitters", |b| {
        // The accountant is dropped outside the measurement.
        b.iter_with_large_drop(|| Accountant::from_log_text(config.clone(), &text).expect("log loads"))
    });
    // The log format alone: every record read and checked, none kept.
    struct Nothing;
    impl matchmaker::classad_log::LogTable for Nothing {
        fn new_ad(&mut self, _: &str, _: &str) {}
        fn destroy_ad(&mut self, _: &str) {}
        fn set_attribute(&mut self, _: &str, _: &str, _: &str) {}
        fn delete_attribute(&mut self, _: &str, _: &str) {}
    }
    group.bench_function("read_log_format_100k_submitters", |b| {
        b.iter(|| matchmaker::classad_log::read_log_str(&text, &mut Nothing).expect("log reads"))
    });
    let (loaded, _) = Accountant::from_log_text(config.clone(), &text).expect("log loads");
    group.bench_function("update_100k_submitters", |b| {
        b.iter_batched(
            || Accountant::from_log_text(config.clone(), &text).expect("log loads").0,
            |mut acct| acct.update_priorities(1_764_000_060).expect("update"),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("load_and_update_100k_submitters", |b| {
        b.iter_with_large_drop(|| {
            let (mut acct, _) = Accountant::from_log_text(config.clone(), &text).expect("log loads");
            acct.update_priorities(1_764_000_060).expect("update");
            acct
        })
    });
    drop(loaded);
    group.finish();
}

criterion_group!(benches, accountant);
criterion_main!(benches);
