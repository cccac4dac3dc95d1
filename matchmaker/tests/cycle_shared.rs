//! `Negotiator::cycle_shared` remembers the slot ads of its last cycle;
//! its decisions must be those of `Negotiator::cycle` on the same ads,
//! cycle after cycle, whatever changed in between: slots changed (new
//! `Arc`s), gone, given twice, reordered, under preemption (where the cycle
//! writes the accountant's figures into claimed slots) and with
//! `NEGOTIATOR_MATCH_EXPRS` (where it matches a copy of every slot).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use classad::{ClassAd, Expr};
use matchmaker::negotiator::{CycleOutcome, Negotiator};
use matchmaker::snapshot::{Priorities, Snapshot};

fn data(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cycle").join(dir)
}

fn file(dir: &Path, names: &[&str]) -> PathBuf {
    names.iter().map(|n| dir.join(n)).find(|p| p.exists()).unwrap_or_else(|| dir.join(names[0]))
}

fn snapshot(name: &str) -> Snapshot {
    let dir = data(name);
    Snapshot::read(
        &file(&dir, &["slots.ad", "slots.ad.gz"]),
        &file(&dir, &["jobs.ad.gz", "jobs.ad"]),
        Some(&file(&dir, &["config-negotiator.dump", "config.dump"])),
        &Priorities::Userprio(file(&dir, &["userprio-before.ad", "userprio.ad"])),
        Some(&dir.join("submitters.ad")),
    )
    .expect("snapshot reads")
}

/// What a cycle decided (its timings left out).
fn decisions(outcome: &CycleOutcome) -> String {
    format!("{:#?}\n{:#?}\n{:#?}\n{:#?}", outcome.matches, outcome.rejections, outcome.submitters, outcome.groups)
}

/// The pools of four cycles, each made from the last: the first as read;
/// then a few slots changed (their memory halved, one no longer willing
/// to run anything) and one gone; then the same ads in reverse order with
/// one given twice; then the same again.
fn pools(slots: &[ClassAd]) -> Vec<Vec<Arc<ClassAd>>> {
    let first: Vec<Arc<ClassAd>> = slots.iter().cloned().map(Arc::new).collect();
    let mut second = first.clone();
    for (k, i) in (0..second.len()).step_by(7).enumerate() {
        let mut changed = ClassAd::clone(&second[i]);
        match k % 2 {
            0 => {
                let memory = match changed.lookup("Memory").and_then(Expr::as_literal) {
                    Some(classad::Literal::Int(m)) => *m,
                    _ => 1024,
                };
                changed.insert("Memory", memory / 2);
            }
            _ => {
                changed.insert("Requirements", false);
            }
        }
        second[i] = Arc::new(changed);
    }
    if second.len() > 3 {
        second.remove(3);
    }
    let mut third: Vec<Arc<ClassAd>> = second.iter().rev().cloned().collect();
    if let Some(twice) = third.first().cloned() {
        third.push(twice);
    }
    let fourth = third.clone();
    vec![first, second, third, fourth]
}

/// Runs the four cycles with `cycle` and with `cycle_shared`, each on its
/// own accountant, and compares every cycle's decisions.
fn same_decisions(name: &str, adjust: impl Fn(&mut Negotiator)) {
    let mut snapshot = snapshot(name);
    let mut negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator config");
    negotiator.settings.resend_matched_jobs = false;
    adjust(&mut negotiator);
    let remembering = negotiator.clone();
    let queues = snapshot.queues(&negotiator);
    let mut shared = self::snapshot(name).accountant;
    let plain = &mut snapshot.accountant;
    let mut matched = 0;
    for (cycle, pool) in pools(&snapshot.slots).into_iter().enumerate() {
        let now = 1_700_000_000 + 60 * cycle as i64;
        let ads: Vec<ClassAd> = pool.iter().map(|ad| ClassAd::clone(ad)).collect();
        let expected = negotiator.cycle(plain, &ads, &queues, now).expect("cycle");
        let got = remembering.cycle_shared(&mut shared, pool, &queues, now).expect("shared cycle");
        assert_eq!(decisions(&got), decisions(&expected), "{name}: cycle {cycle}");
        matched += got.matches.len();
        assert!(!remembering.memory.is_empty() || ads.is_empty(), "{name}: nothing remembered");
    }
    assert!(matched > 0, "{name}: the cycles match something");
}

#[test]
fn same_decisions_as_cycle_on_a_plain_pool() {
    same_decisions("snap-200-200-3-6", |_| {});
}

#[test]
fn same_decisions_under_preemption() {
    same_decisions("snap-preemption", |_| {});
    same_decisions("snap-preemption-rank", |_| {});
}

#[test]
fn same_decisions_with_group_quotas_and_limits() {
    same_decisions("snap-groups-tree", |_| {});
    same_decisions("snap-limits", |_| {});
}

#[test]
fn same_decisions_with_partitionable_slots() {
    same_decisions("snap-pslot-cp", |_| {});
    same_decisions("snap-pslot-mixed", |_| {});
    same_decisions("snap-pslot-preempt", |_| {});
}

#[test]
fn same_decisions_with_match_expressions() {
    same_decisions("snap-200-200-3-6", |n| {
        n.match_exprs.push(("NegotiatorMatchExprTest".to_string(), Expr::from(7i64)));
    });
}

/// Every slot of this pool has `WantClaiming = false`: with
/// `resend_claimless_matches`, a remembered slot declines its matches as a
/// fresh one does.
#[test]
fn same_decisions_resending_claimless_matches() {
    same_decisions("snap-200-200-3-6", |n| n.settings.resend_claimless_matches = true);
}

#[test]
fn memory_holds_the_last_cycle_only() {
    let mut snapshot = snapshot("snap-200-200-3-6");
    let negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator config");
    let queues = snapshot.queues(&negotiator);
    let accountant = &mut snapshot.accountant;
    let pool: Vec<Arc<ClassAd>> = snapshot.slots.iter().cloned().map(Arc::new).collect();
    negotiator.cycle_shared(accountant, pool.clone(), &queues, 1_700_000_000).expect("cycle");
    assert_eq!(negotiator.memory.len(), pool.len());
    negotiator.cycle_shared(accountant, pool[..10].to_vec(), &queues, 1_700_000_060).expect("cycle");
    assert_eq!(negotiator.memory.len(), 10);
    // `cycle` neither uses nor changes it.
    negotiator.cycle(accountant, &snapshot.slots, &queues, 1_700_000_120).expect("cycle");
    assert_eq!(negotiator.memory.len(), 10);
    assert!(negotiator.clone().memory.is_empty(), "a clone starts empty");
    negotiator.memory.clear();
    assert!(negotiator.memory.is_empty());
}

/// A request's ad missing from a cycle's queues (its submitter had no idle
/// job then) is remembered while the caller holds it, for a while.
#[test]
fn requests_are_remembered_while_their_ads_live() {
    let mut snapshot = snapshot("snap-200-200-3-6");
    let negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator config");
    let queues = snapshot.queues(&negotiator);
    let requests: usize = queues.iter().map(|q| q.requests.len()).sum();
    assert!(queues.len() > 1 && requests > 1);
    let accountant = &mut snapshot.accountant;
    let pool: Vec<Arc<ClassAd>> = snapshot.slots.iter().cloned().map(Arc::new).collect();
    let mut now = 1_700_000_000;
    negotiator.cycle_shared(accountant, pool.clone(), &queues, now).expect("cycle");
    assert_eq!(negotiator.memory.requests(), requests);
    // The first submitter is missing from the next cycles: remembered
    // while `queues` holds its ads, for 64 cycles.
    let fewer = queues[1..].to_vec();
    for _ in 0..64 {
        now += 60;
        negotiator.cycle_shared(accountant, pool.clone(), &fewer, now).expect("cycle");
        assert_eq!(negotiator.memory.requests(), requests);
    }
    now += 60;
    negotiator.cycle_shared(accountant, pool.clone(), &fewer, now).expect("cycle");
    let first = queues[0].requests.len();
    assert_eq!(negotiator.memory.requests(), requests - first, "forgotten after 64 cycles unseen");
    // Forgotten at once when nobody else holds the ads.
    negotiator.cycle_shared(accountant, pool.clone(), &queues, now + 60).expect("cycle");
    assert_eq!(negotiator.memory.requests(), requests);
    drop(queues);
    let second = fewer[0].requests.len();
    let rest = fewer[1..].to_vec();
    drop(fewer);
    negotiator.cycle_shared(accountant, pool, &rest, now + 120).expect("cycle");
    assert_eq!(negotiator.memory.requests(), requests - first - second);
}

/// Slot weights are remembered with the slot ads, for the accountant's
/// way of reading them: a cycle given an accountant that reads them
/// otherwise reads them again.
#[test]
fn remembered_weights_follow_the_accountant() {
    use matchmaker::accountant::{Accountant, AccountantConfig};
    use matchmaker::config::Config;

    let snapshot = snapshot("snap-200-200-3-6");
    let negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator config");
    let queues = snapshot.queues(&negotiator);
    let accountant = |text: &str| {
        let config = Config::parse_str(text, "test.conf").expect("config");
        Accountant::new(AccountantConfig::from_config(&config).expect("accountant config"))
    };
    let pool: Vec<Arc<ClassAd>> = snapshot.slots.iter().cloned().map(Arc::new).collect();
    let texts = ["SLOT_WEIGHT = Cpus * 2\n", "NEGOTIATOR_USE_SLOT_WEIGHTS = False\n", "SLOT_WEIGHT = Cpus * 2\n"];
    let mut totals = Vec::new();
    for (cycle, text) in texts.iter().enumerate() {
        let now = 1_700_000_000 + 60 * cycle as i64;
        let expected = negotiator.cycle(&mut accountant(text), &snapshot.slots, &queues, now).expect("cycle");
        let got = negotiator.cycle_shared(&mut accountant(text), pool.clone(), &queues, now).expect("cycle");
        assert_eq!(got.stats.slot_weight_total, expected.stats.slot_weight_total, "cycle {cycle}");
        assert_eq!(decisions(&got), decisions(&expected), "cycle {cycle}");
        totals.push(got.stats.slot_weight_total);
    }
    assert_ne!(totals[0], totals[1], "the two ways weigh the pool differently");
}
