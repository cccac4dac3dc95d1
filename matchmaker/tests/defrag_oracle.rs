//! `condor_defrag`'s choice against a real one (HTCondor 23.9.6).
//!
//! `tests/data/defrag/` holds a synthetic pool (`pool.ads`: partitionable
//! slots that are whole, draining, offline, outside `DEFRAG_REQUIREMENTS`,
//! with different expected badputs, and a static slot), the daemon's
//! configuration (`defrag.conf`) and one poll of the real daemon's log on
//! that pool (`defrag.log`), made by `capture.sh`. The slots' addresses lead
//! nowhere, so every drain request fails and the real daemon goes down its
//! whole list of candidates: the log shows their order.

use std::path::{Path, PathBuf};

use matchmaker::config::Config;
use matchmaker::snapshot::read_ads;
use matchmaker::startd::slots::defrag::DefragPolicy;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/defrag")
}

fn after<'a>(line: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    line.trim().strip_prefix(prefix)?.strip_suffix(suffix)
}

/// The hosts the log lists under `heading` (tab-indented lines after it).
fn listed(log: &str, heading: &str) -> Vec<String> {
    log.lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| l.starts_with('\t'))
        .map(|l| l.trim().to_string())
        .filter(|l| l != "(no machines)")
        .collect()
}

#[test]
fn one_poll_decides_as_the_real_daemon() {
    let text = std::fs::read_to_string(data().join("defrag.conf")).expect("defrag.conf");
    let config = Config::parse_str(&text, "defrag.conf").expect("config");
    let policy = DefragPolicy::from_config(&config, "defrag@vm").expect("policy");
    let pool = read_ads(&data().join("pool.ads")).expect("pool.ads");
    let log = std::fs::read_to_string(data().join("defrag.log")).expect("defrag.log");

    let decision = policy.poll(&pool, 1_800_000_000, None);

    let counts =
        log.lines().find_map(|l| after(l, "There are currently ", " whole machines.")).expect("a poll in the log");
    assert_eq!(counts, format!("{} draining and {}", decision.draining.len(), decision.whole.len()));
    assert_eq!(listed(&log, "Set of current whole machines is"), decision.whole);
    assert_eq!(listed(&log, "Set of current draining machines is"), decision.draining);
    let cancelled: Vec<&str> = log.lines().filter_map(|l| after(l, "Cancel draining of ", ".")).collect();
    assert_eq!(cancelled, decision.cancel);
    let looking: i64 = log
        .lines()
        .find_map(|l| after(l, "Looking for ", " machines to drain."))
        .expect("the daemon looked for machines")
        .parse()
        .expect("a number");
    assert_eq!(looking, decision.num_to_drain);
    let initiated: Vec<&str> = log.lines().filter_map(|l| after(l, "Initiating graceful draining of ", ".")).collect();
    assert!(!initiated.is_empty());
    assert_eq!(initiated, decision.candidates);
    assert_eq!(decision.drain, decision.candidates[..2]);
}
