//! The benchmark's 50,000-slot, 20-user, 200-autocluster pool, built in
//! memory (`negotiator_sim::synthetic`), negotiated here: the same matches
//! per submitter and the same rejections, in order, as condor_negotiator
//! 23.9.6 on the real pool (`matchmaker/tests/data/cycle/
//! snap-50000-50000-20-200`, whose clusters start at 60).

use std::path::Path;

use matchmaker::accountant::AccountantConfig;
use matchmaker::autocluster::{queues, significant_attributes};
use matchmaker::config::Config;
use matchmaker::negotiator::Negotiator;
use negotiator_sim::synthetic::{generate, SlotAttrs, Spec};

#[test]
fn the_50000_slot_bench_pool() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle/snap-50000-50000-20-200");
    let summary = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    let spec = Spec { attrs: SlotAttrs::Lean, first_cluster: 60, ..Spec::new(50_000, 50_000, 20, 200) };
    let pool = generate(&spec).expect("pool");
    let config = Config::from_file(dir.join("config.dump")).expect("config");
    let mut negotiator = Negotiator::from_config(&config).expect("negotiator");
    negotiator.settings.resend_matched_jobs = true; // the bench's schedd declined every match
    let queues = queues(&pool.jobs, &significant_attributes(&pool.slots, &negotiator.expressions()));
    let mut accountant = pool.accountant(AccountantConfig::from_config(&config).expect("accountant")).expect("factors");
    let outcome = negotiator.cycle(&mut accountant, &pool.slots, &queues, 0).expect("cycle");

    let mut expected_rejections = Vec::new();
    for line in summary.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["matches_by_submitter", name, n] => {
                assert_eq!(outcome.matches_of(name).to_string(), *n, "{name}");
            }
            ["rejected", job, name, reason] => expected_rejections.push(format!("{job} {name} {reason}")),
            _ => {}
        }
    }
    assert_eq!(outcome.matches.len(), 47_000);
    let ours: Vec<String> =
        outcome.rejections.iter().map(|r| format!("{} {} {}", r.job, r.submitter, r.reason)).collect();
    assert_eq!(ours, expected_rejections);
}
