//! Our cycle on snapshots of real condor_negotiator 23.9.6 cycles
//! (`tests/data/cycle/`, see its README): the same matches per submitter,
//! the same rejections, the same pie spins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use classad::ClassAd;
use matchmaker::accountant::{GroupQuotas, PriorityRow};
use matchmaker::negotiator::{CycleOutcome, Negotiator};
use matchmaker::snapshot::{Priorities, Snapshot};

fn data(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cycle").join(dir)
}

/// The first of `names` that exists in `dir`.
fn file(dir: &Path, names: &[&str]) -> PathBuf {
    names
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("none of {names:?} in {}", dir.display()))
}

/// What HTCondor decided: matches per submitter, and the rejections (job,
/// submitter, reason) in order, from `summary.txt`.
struct Expected {
    total: usize,
    per_submitter: BTreeMap<String, usize>,
    rejections: Vec<(String, String, String)>,
}

/// A text file, gunzipped when its name ends in `.gz`.
fn read_text(path: &Path) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut classad::format::open(path).expect("opens"), &mut text).expect("reads");
    text
}

fn expected(dir: &Path) -> Expected {
    let text = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    let mut e = Expected { total: 0, per_submitter: BTreeMap::new(), rejections: Vec::new() };
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["matches_by_submitter", name, n] => {
                e.per_submitter.insert(name.to_string(), n.parse().expect("count"));
            }
            ["rejected", job, name, reason] => {
                e.rejections.push((job.to_string(), name.to_string(), reason.to_string()))
            }
            _ => {
                if let Some(n) = line.strip_prefix("matches ") {
                    e.total = n.trim().parse().expect("total");
                }
            }
        }
    }
    e
}

/// Runs our cycle on a snapshot. `fresh`: the bench deleted its users'
/// records and gave them priority factors 1000.001, 1000.002, ... just
/// before the cycle, so they met it with the lowest real priority (0.5)
/// and those factors; userprio.ad was written after later cycles, so its
/// factors and ceilings are the cycle's but its priorities are not.
/// Otherwise userprio.ad was written right after the cycle.
#[derive(Clone, Copy, PartialEq)]
enum Prio {
    /// The bench pools: fresh users with userprio.ad's factors and ceilings.
    Fresh,
    /// userprio.ad as written right after the cycle.
    After,
    /// The scenario snapshots: userprio-before.ad, written just before.
    Before,
}

fn run(dir: &Path, jobs_from: &Path, config_from: &Path, prio: Prio) -> (CycleOutcome, Expected, Vec<ClassAd>) {
    // The snapshots' schedd declined every match (fake startds), so it
    // offered the same jobs again in the second spin.
    run_with(dir, jobs_from, config_from, prio, true)
}

/// [`run`], `resend`: whether the schedd offers matched jobs again.
fn run_with(
    dir: &Path,
    jobs_from: &Path,
    config_from: &Path,
    prio: Prio,
    resend: bool,
) -> (CycleOutcome, Expected, Vec<ClassAd>) {
    let mut snapshot = Snapshot::read(
        &file(dir, &["slots.ad", "slots.ad.gz"]),
        &file(jobs_from, &["jobs.ad.gz", "jobs.ad"]),
        Some(&file(config_from, &["config-negotiator.dump", "config.dump"])),
        &match prio {
            Prio::Fresh => Priorities::Fresh,
            Prio::After => Priorities::Userprio(dir.join("userprio.ad")),
            Prio::Before => Priorities::Userprio(dir.join("userprio-before.ad")),
        },
        Some(&dir.join("submitters.ad")),
    )
    .expect("snapshot reads");
    let userprio = &matchmaker::snapshot::read_ads(&dir.join("userprio.ad")).expect("userprio.ad")[0];
    let (rows, _) = matchmaker::accountant::PriorityRow::from_userprio_ad(userprio);
    for row in rows.iter().filter(|r| !r.is_group && prio != Prio::Before) {
        snapshot.accountant.set_priority_factor(&row.name, row.priority_factor).expect("factor");
        if row.ceiling >= 0 {
            snapshot.accountant.set_ceiling(&row.name, row.ceiling).expect("ceiling");
        }
    }
    let mut negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator config");
    negotiator.settings.resend_matched_jobs = resend;
    let queues = snapshot.queues(&negotiator);
    let outcome = negotiator.cycle(&mut snapshot.accountant, &snapshot.slots, &queues, 0).expect("cycle");
    (outcome, expected(dir), snapshot.slots)
}

/// What tells slots apart in the negotiator's ranking here (its pre- and
/// post-job ranks read `Cpus`, `Memory`, `KFlops`, `SlotID` and the slot's
/// `Rank`; the jobs rank by `Memory` or `KFlops`), with what no job here
/// accepts (`Arch`, `HasFileTransfer`). Slots equal in all of it are
/// ties, which HTCondor breaks by the collector's order, and ours by the
/// input's; which of two tied slots is taken can decide whether a later
/// job that also requires `OpSysMajorVer >= 9` finds one, so that, and
/// the slots' `START`, are left out.
fn tie_class(slot: &ClassAd) -> String {
    ["Cpus", "Memory", "Disk", "KFlops", "SlotID", "Arch", "HasFileTransfer", "Rank", "State"]
        .iter()
        .map(|a| slot.lookup(*a).map(|e| e.to_string()).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Per submitter, the tie classes of the slots it got, counted.
fn classes(matches: impl Iterator<Item = (String, String)>, slots: &[ClassAd]) -> BTreeMap<(String, String), usize> {
    let by_name: BTreeMap<String, &ClassAd> = slots
        .iter()
        .filter_map(|s| match s.eval_attr("Name") {
            classad::Value::Str(n) => Some((n.as_str().to_string(), s)),
            _ => None,
        })
        .collect();
    let mut out = BTreeMap::new();
    for (submitter, slot) in matches {
        let class = by_name.get(&slot).map_or_else(|| format!("unknown slot {slot}"), |s| tie_class(s));
        *out.entry((submitter, class)).or_default() += 1;
    }
    out
}

fn check_slots(dir: &Path, outcome: &CycleOutcome, slots: &[ClassAd]) {
    let text = read_text(&file(dir, &["matches.tsv", "matches.tsv.gz"]));
    let theirs = classes(
        text.lines().skip(1).filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 3).then(|| (f[1].to_string(), f[2].to_string()))
        }),
        slots,
    );
    let ours = classes(outcome.matches.iter().map(|m| (m.submitter.clone(), m.slot.clone())), slots);
    let mut differences = Vec::new();
    for key in ours.keys().chain(theirs.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (a, b) = (ours.get(key).copied().unwrap_or(0), theirs.get(key).copied().unwrap_or(0));
        if a != b {
            differences.push(format!("{} {}: ours {a}, HTCondor's {b}", key.0, key.1));
        }
    }
    assert!(
        differences.is_empty(),
        "{}: the slots each submitter got differ beyond ties:\n{}",
        dir.display(),
        differences.join("\n")
    );
}

fn check(name: &str, outcome: &CycleOutcome, expected: &Expected) {
    let mut ours: BTreeMap<String, usize> = BTreeMap::new();
    for m in &outcome.matches {
        *ours.entry(m.submitter.clone()).or_default() += 1;
    }
    let theirs: Vec<(String, String, String)> = expected.rejections.clone();
    let rejections: Vec<(String, String, String)> =
        outcome.rejections.iter().map(|r| (r.job.to_string(), r.submitter.clone(), r.reason.to_string())).collect();
    assert_eq!(ours, expected.per_submitter, "{name}: matches per submitter");
    assert_eq!(outcome.matches.len(), expected.total, "{name}: matches");
    assert_eq!(rejections, theirs, "{name}: rejections");
}

#[test]
fn snapshot_200_slots_3_users() {
    let dir = data("snap-200-200-3-6");
    let (outcome, expected, slots) = run(&dir, &dir, &dir, Prio::Fresh);
    check("snap-200-200-3-6", &outcome, &expected);
    check_slots(&dir, &outcome, &slots);
    assert_eq!(outcome.stats.pie_spins, 2);
    assert_eq!(outcome.stats.submitters_share_limit, ["bench03@anchor.local"]);
    assert_eq!(outcome.stats.jobs_considered, 195);
}

#[test]
fn snapshot_1000_slots_4_users() {
    let dir = data("snap-1000-1000-4-8");
    let (outcome, expected, slots) = run(&dir, &dir, &dir, Prio::Fresh);
    check("snap-1000-1000-4-8", &outcome, &expected);
    check_slots(&dir, &outcome, &slots);
    assert_eq!(outcome.stats.pie_spins, 2);
}

#[test]
fn snapshot_with_a_ceiling() {
    let dir = data("snap-200-200-3-6-ceiling20");
    let base = data("snap-200-200-3-6");
    let (outcome, expected, slots) = run(&dir, &base, &base, Prio::After);
    check("snap-200-200-3-6-ceiling20", &outcome, &expected);
    check_slots(&dir, &outcome, &slots);
}

/// A scenario snapshot: its slots, jobs, configuration and the priorities
/// written just before the cycle.
fn scenario(name: &str) -> (CycleOutcome, Expected, Vec<ClassAd>) {
    let dir = data(name);
    let (outcome, expected, slots) = run(&dir, &dir, &dir, Prio::Before);
    check(name, &outcome, &expected);
    (outcome, expected, slots)
}

#[test]
fn snapshot_10000_slots_10_autoclusters() {
    let dir = data("snap-10000-10000-10-10");
    let (outcome, expected, _) = run(&dir, &dir, &dir, Prio::Fresh);
    check("snap-10000-10000-10-10", &outcome, &expected);
}

/// In this pool which of several tied slots a job takes decides whether
/// a later job of another class (one that needs `OpSysMajorVer >= 9`)
/// finds one: HTCondor's own runs differ by a few matches (its ties follow
/// the collector's hash order), and so do ours when the slots come in
/// another order (1213/629 in the file's order, 1214/628 reversed, 1216/626
/// in HTCondor's run). The totals and rejections are the same; each
/// submitter is within 5 matches.
#[test]
fn snapshot_10000_slots_100_autoclusters() {
    let dir = data("snap-10000-10000-10-100");
    let (outcome, expected, _) = run(&dir, &dir, &dir, Prio::Fresh);
    assert_eq!(outcome.matches.len(), expected.total);
    assert_eq!(outcome.rejections.len(), expected.rejections.len());
    for (name, theirs) in &expected.per_submitter {
        let ours = outcome.matches_of(name);
        assert!(ours.abs_diff(*theirs) <= 5, "{name}: ours {ours}, HTCondor's {theirs}");
    }
}

#[test]
fn preemption() {
    scenario("snap-preemption");
}

#[test]
fn preemption_off() {
    scenario("snap-nopreempt");
}

#[test]
fn rank_preemption_over_the_limit() {
    scenario("snap-preemption-rank");
}

#[test]
fn partitionable_slots_with_a_consumption_policy() {
    scenario("snap-pslot-cp");
}

#[test]
fn partitionable_slots_without_one() {
    scenario("snap-pslot-nocp");
}

#[test]
fn partitionable_slots_with_claimed_dynamic_slots() {
    scenario("snap-pslot-mixed");
}

/// A scenario on a real startd: its schedd claimed what it was given, so
/// it offers matched jobs no more, and its request of an autocluster in a
/// later spin names the autocluster's next idle job (4.1 once 4.0 was
/// matched) where ours keep naming the first: rejections are compared by
/// cluster.
fn real_scenario(name: &str) -> (CycleOutcome, Vec<ClassAd>) {
    let dir = data(name);
    let (outcome, expected, slots) = run_with(&dir, &dir, &dir, Prio::Before, false);
    let cluster = |job: &str| job.split('.').next().unwrap_or_default().to_string();
    let mut ours: BTreeMap<String, usize> = BTreeMap::new();
    for m in &outcome.matches {
        *ours.entry(m.submitter.clone()).or_default() += 1;
    }
    assert_eq!(ours, expected.per_submitter, "{name}: matches per submitter");
    assert_eq!(outcome.matches.len(), expected.total, "{name}: matches");
    let theirs: Vec<(String, String, String)> =
        expected.rejections.iter().map(|(j, s, r)| (cluster(j), s.clone(), r.clone())).collect();
    let rejections: Vec<(String, String, String)> = outcome
        .rejections
        .iter()
        .map(|r| (r.job.cluster.to_string(), r.submitter.clone(), r.reason.to_string()))
        .collect();
    assert_eq!(rejections, theirs, "{name}: rejections");
    check_slots(&dir, &outcome, &slots);
    (outcome, slots)
}

/// ALLOW_PSLOT_PREEMPTION on a real startd: two p-slots of 8 cpus whose
/// 14 one-cpu dynamic slots run bench01 (12) and bench02 (2); bench02's
/// 6-cpu jobs fit only by preempting several of bench01's dynamic slots.
#[test]
fn partitionable_slot_preemption() {
    let (outcome, _) = real_scenario("snap-pslot-preempt");
    let taken: BTreeMap<&str, (&[String], f64)> =
        outcome.matches.iter().map(|m| (m.slot.as_str(), (m.preempted_dynamic_slots.as_slice(), m.cost))).collect();
    let names = |p: u32, ids: std::ops::RangeInclusive<u32>| ids.map(|i| format!("slot{p}_{i}@vm")).collect::<Vec<_>>();
    // slot1 has 2 cpus left and bench02's own two d-slots (passed over):
    // bench01's slot1_3 .. slot1_6; slot2 has none left: slot2_1 .. slot2_6
    // (what the startd then really preempted, see after.txt).
    assert_eq!(taken["slot1@vm"], (names(1, 3..=6).as_slice(), 6.0));
    assert_eq!(taken["slot2@vm"], (names(2, 1..=6).as_slice(), 6.0));
    for m in &outcome.matches {
        assert_eq!(m.claim, matchmaker::candidates::ClaimKind::PriorityPreemption);
        assert_eq!(m.preempting.as_deref(), Some("bench01@anchor.local"));
    }
}

/// ALLOW_PSLOT_PREEMPTION with the startd's RANK preferring bench03 and
/// bench04's d-slots retiring: bench02 (priority) takes slot2 with five of
/// bench01's d-slots (slot1's two free cpus and two non-retiring children
/// are not enough for 5); bench03 (whose priority PREEMPTION_REQUIREMENTS
/// refuses) takes slot1 by rank with one d-slot, passing over the four
/// retiring ones.
#[test]
fn partitionable_slot_preemption_by_rank() {
    let (outcome, _) = real_scenario("snap-pslot-preempt-rank");
    let how: Vec<(&str, &str, matchmaker::candidates::ClaimKind, Vec<String>, f64)> = outcome
        .matches
        .iter()
        .map(|m| (m.submitter.as_str(), m.slot.as_str(), m.claim, m.preempted_dynamic_slots.clone(), m.cost))
        .collect();
    let names = |p: u32, ids: std::ops::RangeInclusive<u32>| ids.map(|i| format!("slot{p}_{i}@vm")).collect::<Vec<_>>();
    use matchmaker::candidates::ClaimKind::{PriorityPreemption, RankPreemption};
    assert_eq!(
        how,
        [
            ("bench02@anchor.local", "slot2@vm", PriorityPreemption, names(2, 1..=5), 5.0),
            ("bench03@anchor.local", "slot1@vm", RankPreemption, names(1, 5..=5), 3.0),
        ]
    );
}

/// ALLOW_PSLOT_PREEMPTION hands out the dynamic slots of a candidate that
/// is not taken: bench02's 4-cpu job had both p-slots as candidates (one
/// free cpu and three d-slots each) and took slot1; slot2_1 .. slot2_3
/// were handed out all the same, so bench03's 5-cpu job took slot2 with
/// slot2_4 .. slot2_7 (the startd then preempted exactly those, see
/// after.txt).
#[test]
fn partitionable_slot_preemption_hands_out_untaken_candidates() {
    let (outcome, _) = real_scenario("snap-pslot-preempt-handout");
    let how: Vec<(&str, &str, Vec<String>, f64)> = outcome
        .matches
        .iter()
        .map(|m| (m.submitter.as_str(), m.slot.as_str(), m.preempted_dynamic_slots.clone(), m.cost))
        .collect();
    let names = |p: u32, ids: std::ops::RangeInclusive<u32>| ids.map(|i| format!("slot{p}_{i}@vm")).collect::<Vec<_>>();
    assert_eq!(
        how,
        [
            ("bench02@anchor.local", "slot1@vm", names(1, 1..=3), 4.0),
            ("bench03@anchor.local", "slot2@vm", names(2, 4..=7), 5.0),
        ]
    );
}

/// The pool of `partitionable_slot_preemption` with a consumption policy:
/// bench02 runs one job on each p-slot here, so the dynamic slots taken
/// are slot1_2 .. slot1_5 and slot2_2 .. slot2_7 (after.txt shows them
/// gone), each match charged
/// what the job consumes of the enlarged p-slot (6).
#[test]
fn partitionable_slot_preemption_with_a_consumption_policy() {
    let (outcome, _) = real_scenario("snap-pslot-preempt-cp");
    let how: Vec<(&str, Vec<String>, f64)> =
        outcome.matches.iter().map(|m| (m.slot.as_str(), m.preempted_dynamic_slots.clone(), m.cost)).collect();
    let names = |p: u32, ids: std::ops::RangeInclusive<u32>| ids.map(|i| format!("slot{p}_{i}@vm")).collect::<Vec<_>>();
    assert_eq!(how, [("slot1@vm", names(1, 2..=5), 6.0), ("slot2@vm", names(2, 2..=7), 6.0)]);
}

/// A consumption policy with no cpu free and bench01's dynamic slots of
/// 2 cpus: bench02's one-cpu jobs take slot1 and slot2 each with one
/// dynamic slot, and what is left of enlarged slot2 after the job's cpu is
/// carved goes back into the match list, unclaimed: the third job takes
/// it (HTCondor's log says "preempting various_dSlot_users" there).
#[test]
fn partitionable_slot_preemption_carving_an_enlarged_slot() {
    let (outcome, _) = real_scenario("snap-pslot-preempt-cp-split");
    let how: Vec<(&str, Vec<String>, matchmaker::candidates::ClaimKind, f64)> =
        outcome.matches.iter().map(|m| (m.slot.as_str(), m.preempted_dynamic_slots.clone(), m.claim, m.cost)).collect();
    use matchmaker::candidates::ClaimKind::{PriorityPreemption, Unclaimed};
    let one = |s: &str| vec![s.to_string()];
    assert_eq!(
        how,
        [
            ("slot1@vm", one("slot1_1@vm"), PriorityPreemption, 1.0),
            ("slot2@vm", one("slot2_1@vm"), PriorityPreemption, 1.0),
            ("slot2@vm", vec![], Unclaimed, 1.0),
        ]
    );
}

/// The same pool with ALLOW_PSLOT_PREEMPTION = False: no 6-cpu slot, no match.
#[test]
fn partitionable_slot_preemption_off() {
    let (outcome, _) = real_scenario("snap-pslot-preempt-off");
    assert!(outcome.matches.is_empty());
}

#[test]
fn concurrency_limits() {
    scenario("snap-limits");
}

#[test]
fn floors() {
    scenario("snap-floor");
}

#[test]
fn the_manuals_rank_example() {
    scenario("snap-ranks");
}

#[test]
fn round_up() {
    scenario("snap-roundup");
}

/// What condor_negotiator logged about its groups (cycle.log): per round,
/// each group's `quota requested allocated unallocated` (breadth first),
/// the round's totals, and the limits groups negotiated with, in order.
#[derive(Debug, Default)]
struct GroupLog {
    rounds: Vec<Vec<(String, [f64; 4])>>,
    totals: Vec<(f64, f64)>,
    negotiations: Vec<(String, f64)>,
    /// The table of assigned quotas: group, computed quota, configured quota.
    assigned: Vec<(String, f64, f64)>,
}

fn group_log(dir: &Path) -> GroupLog {
    let text = read_text(&file(dir, &["cycle.log", "cycle.log.gz"]));
    let mut log = GroupLog::default();
    let mut table = false;
    let value = |line: &str, key: &str| -> f64 {
        let at = line.find(key).unwrap_or_else(|| panic!("{key} in {line}")) + key.len();
        line[at..].split_whitespace().next().expect("a value").parse().expect("a number")
    };
    for line in text.lines() {
        // Each line starts with the date and time.
        let body = line.splitn(3, ' ').nth(2).unwrap_or("");
        if body.starts_with("Group ") && body.contains("Computed") {
            table = true;
            continue;
        }
        if table {
            let f: Vec<&str> = body.split_whitespace().collect();
            if f.first() == Some(&"Name") || body.starts_with("---") {
                continue;
            }
            if f.len() >= 9 && f[1].parse::<f64>().is_ok() {
                log.assigned.push((f[0].to_string(), f[1].parse().expect("quota"), f[2].parse().expect("config")));
                continue;
            }
            table = false;
        }
        if body.starts_with("group quotas: allocation round") {
            log.rounds.push(Vec::new());
        } else if body.starts_with("group quotas: group= ") && body.contains("unallocated=") {
            let name = body["group quotas: group= ".len()..].split_whitespace().next().expect("name").to_string();
            let figures = [
                value(body, "quota= "),
                value(body, "requested= "),
                value(body, " allocated= "),
                value(body, "unallocated= "),
            ];
            log.rounds.last_mut().expect("a round").push((name, figures));
        } else if body.starts_with("Round ") && body.contains("totals:") {
            log.totals.push((value(body, "allocated= "), value(body, "usage= ")));
        } else if let Some(rest) = body.strip_prefix("Group ") {
            if let Some((name, limit)) = rest.split_once(" - BEGIN NEGOTIATION with a quota limit of ") {
                log.negotiations.push((name.to_string(), limit.trim().parse().expect("limit")));
            }
        }
    }
    log
}

/// `%g`'s six significant digits.
fn same(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 1e-5 * theirs.abs().max(1.0)
}

/// Matches per allocation round, group and submitter (summary.txt's
/// `matches_by_group`, spins added up).
fn matches_by_group(dir: &Path) -> BTreeMap<(u32, String, String), usize> {
    let text = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if let ["matches_by_group", round, group, _spin, submitter, n] = line.split('\t').collect::<Vec<_>>()[..] {
            *out.entry((round.parse().expect("round"), group.to_string(), submitter.to_string())).or_default() +=
                n.parse::<usize>().expect("count");
        }
    }
    out
}

/// A group snapshot: matches per submitter and rejections as HTCondor's,
/// and the negotiator's group figures equal to ours.
fn group_scenario(name: &str) -> CycleOutcome {
    let (outcome, _, _) = scenario(name);
    let dir = data(name);
    let log = group_log(&dir);
    assert!(!log.rounds.is_empty(), "{name}: the log has the group figures");
    // The quotas assigned.
    for (group, quota, _) in &log.assigned {
        let ours = outcome.groups.iter().find(|g| &g.name == group).unwrap_or_else(|| panic!("{name}: group {group}"));
        assert!(same(ours.quota, *quota), "{name}: {group} quota: ours {}, HTCondor's {quota}", ours.quota);
    }
    // Round by round, each group's quota, demand and allocation.
    assert_eq!(outcome.group_rounds.len(), log.rounds.len(), "{name}: allocation rounds");
    for (r, round) in log.rounds.iter().enumerate() {
        for (group, [quota, requested, allocated, unallocated]) in round {
            let g = outcome.groups.iter().find(|g| &g.name == group).expect("group");
            let f = &g.rounds[r];
            for (what, a, b) in [
                ("quota", f.quota, *quota),
                ("requested", f.requested, *requested),
                ("allocated", f.allocated, *allocated),
                ("unallocated", f.unallocated, *unallocated),
            ] {
                assert!(same(a, b), "{name}: round {} {group} {what}: ours {a}, HTCondor's {b}", r + 1);
            }
        }
        let (allocated, usage) = log.totals[r];
        let t = &outcome.group_rounds[r];
        assert!(
            same(t.allocated, allocated) && same(t.usage, usage),
            "{name}: round {} totals {t:?} vs {allocated} {usage}",
            r + 1
        );
    }
    // The limits each group negotiated with, in order (HTCondor logs them
    // before cutting them to whole numbers).
    let ours: Vec<(String, f64)> = outcome
        .group_rounds
        .iter()
        .flat_map(|t| {
            t.order.iter().filter_map(|group| {
                let g = outcome.groups.iter().find(|g| &g.name == group).expect("group");
                g.rounds[(t.round - 1) as usize].limits.first().map(|&l| (group.clone(), l))
            })
        })
        .collect();
    // A NaN limit reaches the negotiator as INT_MIN (x86-64's conversion).
    let theirs: Vec<(String, f64)> = log
        .negotiations
        .iter()
        .map(|(g, l)| (g.clone(), if l.is_nan() { f64::from(i32::MIN) } else { l.trunc() }))
        .collect();
    assert_eq!(ours, theirs, "{name}: the groups negotiated, with their limits");
    // Matches per round, group and submitter.
    let expected = matches_by_group(&dir);
    let mut got: BTreeMap<(u32, String, String), usize> = BTreeMap::new();
    for g in &outcome.groups {
        for f in &g.rounds {
            if f.matches > 0 {
                got.insert((f.round, g.name.clone(), String::new()), f.matches);
            }
        }
    }
    let mut per_group: BTreeMap<(u32, String, String), usize> = BTreeMap::new();
    for ((round, group, _), n) in &expected {
        *per_group.entry((*round, group.clone(), String::new())).or_default() += n;
    }
    assert_eq!(got, per_group, "{name}: matches per round and group");
    // The negotiator's published statistics: one pie per group negotiated.
    let ad = std::fs::read_to_string(dir.join("negotiator-cycle0.ad")).expect("negotiator-cycle0.ad");
    let stat = |attr: &str| -> u64 {
        ad.lines()
            .find_map(|l| l.strip_prefix(&format!("LastNegotiationCycle{attr}0 = ")))
            .unwrap_or_else(|| panic!("{name}: {attr}"))
            .trim()
            .parse()
            .expect("a number")
    };
    let s = &outcome.stats;
    assert_eq!(
        (u64::from(s.pies), u64::from(s.pie_spins), s.jobs_considered, s.rejections as u64),
        (stat("Pies"), stat("PieSpins"), stat("NumJobsConsidered"), stat("Rejections")),
        "{name}: pies, pie spins, requests considered, rejections"
    );
    check_userprio_quotas(name, &dir, &outcome);
    outcome
}

/// The quota figures `condor_userprio -l` showed after the cycle
/// (`ConfigQuota`, `EffectiveQuota`, `SubtreeQuota`, `GroupSortKey`,
/// `SurplusPolicy`, `Requested` of each group) equal the cycle's.
fn check_userprio_quotas(name: &str, dir: &Path, outcome: &CycleOutcome) {
    let text = read_text(&dir.join("userprio.ad"));
    let ads = classad::format::parse_ads(&text, Some(classad::format::Format::Old)).expect("userprio.ad");
    let ad = ads.first().expect("one ad");
    let (rows, _) = PriorityRow::from_userprio_ad(ad);
    let mut groups = 0;
    for theirs in rows.iter().filter(|r| r.is_group) {
        let report =
            outcome.groups.iter().find(|g| g.name == theirs.name).unwrap_or_else(|| panic!("{name}: {}", theirs.name));
        let ours = GroupQuotas::from_report(report);
        let t = theirs.quotas.as_ref().expect("a group's quotas");
        for (what, a, b) in [
            ("ConfigQuota", ours.config_quota, t.config_quota),
            ("EffectiveQuota", ours.effective_quota, t.effective_quota),
            ("SubtreeQuota", ours.subtree_quota, t.subtree_quota),
            ("GroupSortKey", ours.sort_key, t.sort_key),
            ("Requested", ours.requested, t.requested),
        ] {
            assert!(same(a, b), "{name}: {} {what}: ours {a}, HTCondor's {b}", theirs.name);
        }
        assert_eq!(ours.surplus_policy, t.surplus_policy, "{name}: {} SurplusPolicy", theirs.name);
        groups += 1;
    }
    assert!(groups > 1, "{name}: userprio.ad has the groups");
}

#[test]
fn group_quotas_static_dynamic_and_surplus() {
    let outcome = group_scenario("snap-groups");
    let sub1 = outcome.groups.iter().find(|g| g.name == "group_b.sub1").expect("group_b.sub1");
    assert_eq!(sub1.matches, 0);
    assert!(sub1.explanation.contains("held to 0 by group_b (no surplus"), "{}", sub1.explanation);
}

#[test]
fn group_quotas_with_autoregroup() {
    group_scenario("snap-groups-autoregroup");
}

#[test]
fn group_tree_static_and_dynamic_with_slot_weights() {
    group_scenario("snap-groups-tree");
}

#[test]
fn group_tree_unweighted_with_remainders() {
    group_scenario("snap-groups-tree-unweighted");
}
