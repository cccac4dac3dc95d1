//! ALLOW_PSLOT_PREEMPTION on small hand-made pools: a job too big for any
//! dynamic slot takes a partitionable slot together with several of its
//! dynamic slots; which of them, how, and what it costs.

use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::autocluster::{queues, significant_attributes};
use matchmaker::candidates::ClaimKind;
use matchmaker::config::Config;
use matchmaker::negotiator::{CycleOutcome, MatchRecord, Negotiator};

fn ad(text: &str) -> ClassAd {
    text.parse().unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// One dynamic slot of the p-slot `slot1@node`.
struct Child {
    cpus: i64,
    user: &'static str,
    rank: f64,
    retiring: i64,
    state: &'static str,
}

fn child(cpus: i64, user: &'static str) -> Child {
    Child { cpus, user, rank: 0.0, retiring: 0, state: "Claimed" }
}

/// The p-slot `slot1@node` with `free` cpus left (1024 MB per cpu) and
/// `children`, its `Rank` being `rank`, followed by the children's own ads.
fn pslot(free: i64, rank: &str, children: &[Child]) -> Vec<ClassAd> {
    let list = |f: &dyn Fn(usize, &Child) -> String| {
        format!("{{ {} }}", children.iter().enumerate().map(|(i, c)| f(i, c)).collect::<Vec<_>>().join(", "))
    };
    let mut ads = vec![ad(&format!(
        r#"[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>"; SlotID = 1; PartitionableSlot = true;
            SlotType = "Partitionable"; State = "Unclaimed"; Activity = "Idle"; Cpus = {free};
            Memory = {}; Disk = 100000; MachineResources = "Cpus Memory Disk"; SlotWeight = Cpus;
            NumDynamicSlots = {}; Start = true; Rank = {rank};
            Requirements = START && MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory;
            ChildName = {}; ChildCpus = {}; ChildMemory = {}; ChildDisk = {}; ChildCurrentRank = {};
            ChildRetirementTimeRemaining = {}; ChildState = {}; ChildRemoteUser = {} ]"#,
        free * 1024,
        children.len(),
        list(&|i, _| format!("\"slot1_{}@node\"", i + 1)),
        list(&|_, c| c.cpus.to_string()),
        list(&|_, c| (c.cpus * 1024).to_string()),
        list(&|_, _| "100".to_string()),
        list(&|_, c| format!("{:.1}", c.rank)),
        list(&|_, c| c.retiring.to_string()),
        list(&|_, c| format!("\"{}\"", c.state)),
        list(&|_, c| format!("\"{}\"", c.user)),
    ))];
    for (i, c) in children.iter().enumerate() {
        ads.push(ad(&format!(
            r#"[ Name = "slot1_{}@node"; StartdIpAddr = "<10.0.0.1:9618>"; SlotID = 1; DynamicSlot = true;
                PslotRollupInformation = true; SlotType = "Dynamic"; State = "{}"; Activity = "Busy";
                Cpus = {}; Memory = {}; Disk = 100; SlotWeight = Cpus; RemoteUser = "{}";
                RemoteOwner = "{}"; CurrentRank = {:.1}; RetirementTimeRemaining = {}; Start = true;
                Rank = {rank}; Requirements = START && TARGET.RequestCpus <= MY.Cpus ]"#,
            i + 1,
            c.state,
            c.cpus,
            c.cpus * 1024,
            c.user,
            c.user,
            c.rank,
            c.retiring,
        )));
    }
    ads
}

/// `n` idle jobs of `user` asking for `cpus` cpus (1024 MB each).
fn jobs(user: &str, cluster: i64, n: usize, cpus: i64) -> Vec<ClassAd> {
    (0..n)
        .map(|p| {
            ad(&format!(
                r#"[ ClusterId = {cluster}; ProcId = {p}; JobStatus = 1; Owner = "{user}"; User = "{user}@site";
                    RequestCpus = {cpus}; RequestMemory = {}; RequestDisk = 1;
                    Requirements = TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory ]"#,
                cpus * 1024
            ))
        })
        .collect()
}

/// One cycle: `config` (HTCondor configuration text), bob and cal with
/// priority factors of a million, amy with the default.
fn cycle(config: &str, slots: &[ClassAd], jobs: &[ClassAd]) -> CycleOutcome {
    let config = Config::parse_str(config, "test.conf").expect("config");
    let negotiator = Negotiator::from_config(&config).expect("negotiator");
    let mut accountant = Accountant::new(AccountantConfig::from_config(&config).expect("accountant config"));
    accountant.set_priority_factor("bob@site", 1e6).expect("factor");
    accountant.set_priority_factor("cal@site", 1e6).expect("factor");
    let queues = queues(jobs, &significant_attributes(slots, &negotiator.expressions()));
    negotiator.cycle(&mut accountant, slots, &queues, 1_000_000).expect("cycle")
}

const ON: &str = "ALLOW_PSLOT_PREEMPTION = True\nPREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n";
const OFF: &str = "PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2\n";

fn names(ids: &[usize]) -> Vec<String> {
    ids.iter().map(|i| format!("slot1_{i}@node")).collect()
}

fn only(outcome: &CycleOutcome) -> &MatchRecord {
    assert_eq!(outcome.matches.len(), 1, "{:?} {:?}", outcome.matches, outcome.rejections);
    &outcome.matches[0]
}

/// Four one-cpu d-slots of bob and one cpu free: a 3-cpu job of amy takes
/// the p-slot with the first two (1 + 2 = 3), by priority, and is charged
/// the enlarged p-slot's weight. Without the knob nothing is big enough.
#[test]
fn a_big_job_takes_the_pslot_with_enough_children() {
    let slots =
        pslot(1, "0", &[child(1, "bob@site"), child(1, "bob@site"), child(1, "bob@site"), child(1, "bob@site")]);
    let amy = jobs("amy", 1, 1, 3);
    let m = cycle(ON, &slots, &amy);
    let m = only(&m);
    assert_eq!(m.slot, "slot1@node");
    assert_eq!(m.claim, ClaimKind::PriorityPreemption);
    assert_eq!(m.preempted_dynamic_slots, names(&[1, 2]));
    assert_eq!(m.preempting.as_deref(), Some("bob@site"));
    assert_eq!(m.cost, 3.0);
    assert!(cycle(OFF, &slots, &amy).matches.is_empty());
}

/// With the knob on, dynamic slots are no candidates of their own: a
/// one-cpu job that would preempt one d-slot takes the p-slot with it.
/// Without the knob it takes the d-slot itself.
#[test]
fn dynamic_slots_are_reached_through_their_parent() {
    let slots = pslot(0, "0", &[child(1, "bob@site"), child(1, "bob@site")]);
    let amy = jobs("amy", 1, 1, 1);
    let on = cycle(ON, &slots, &amy);
    let m = only(&on);
    assert_eq!((m.slot.as_str(), m.preempted_dynamic_slots.clone()), ("slot1@node", names(&[1])));
    let off = cycle(OFF, &slots, &amy);
    let m = only(&off);
    assert_eq!((m.slot.as_str(), m.preempted_dynamic_slots.len()), ("slot1_1@node", 0));
}

/// Passed over: a child still retiring, one in the Preempting state, and
/// the submitter's own; the rest is taken in order of current rank.
#[test]
fn retiring_preempting_and_own_children_are_passed_over() {
    let children = [
        Child { retiring: 600, ..child(1, "bob@site") },
        Child { state: "Preempting", ..child(1, "bob@site") },
        child(1, "amy@site"),
        child(1, "bob@site"),
        child(1, "cal@site"),
        child(1, "bob@site"),
    ];
    let slots = pslot(0, "0", &children);
    let m = cycle(ON, &slots, &jobs("amy", 1, 1, 3));
    let m = only(&m);
    assert_eq!(m.preempted_dynamic_slots, names(&[4, 5, 6]));
    assert_eq!(m.preempting.as_deref(), Some("bob@site, cal@site"));
}

/// A p-slot whose `Rank` prefers the job takes lower-ranked children by
/// rank preemption, even where PREEMPTION_REQUIREMENTS is false; equally
/// ranked children then need PREEMPTION_REQUIREMENTS; children ranked
/// above the job are never taken. Children go lowest current rank first.
#[test]
fn the_pslots_rank_orders_and_allows_the_children() {
    let rank = r#"(TARGET.Owner =?= "amy") * 5"#;
    let children = [
        Child { rank: 5.0, ..child(1, "bob@site") },
        Child { rank: 9.0, ..child(1, "bob@site") },
        Child { rank: 1.0, ..child(1, "bob@site") },
        Child { rank: 0.0, ..child(1, "bob@site") },
    ];
    let slots = pslot(0, rank, &children);
    // Two cpus: the two children ranked below 5, lowest first.
    let no_priority = "ALLOW_PSLOT_PREEMPTION = True\nPREEMPTION_REQUIREMENTS = False\n";
    let m = cycle(no_priority, &slots, &jobs("amy", 1, 1, 2));
    let m = only(&m);
    assert_eq!((m.claim, m.preempted_dynamic_slots.clone()), (ClaimKind::RankPreemption, names(&[4, 3])));
    // Three cpus: the one ranked 5 too, which needs PREEMPTION_REQUIREMENTS.
    assert!(cycle(no_priority, &slots, &jobs("amy", 1, 1, 3)).matches.is_empty());
    let m = cycle(ON, &slots, &jobs("amy", 1, 1, 3));
    let m = only(&m);
    assert_eq!((m.claim, m.preempted_dynamic_slots.clone()), (ClaimKind::PriorityPreemption, names(&[4, 3, 1])));
    // Four cpus would need the child ranked 9: no match.
    assert!(cycle(ON, &slots, &jobs("amy", 1, 1, 4)).matches.is_empty());
}

/// The pool of the two tests below: the p-slot without free cpus and with
/// bob's children of 1, 1 and 3 cpus, plus a free static 1-cpu slot; the
/// pool weighs 6 and amy shares it with dan (whose job matches nothing), so
/// amy's limit is 3. Amy's first job, one cpu, takes the static slot
/// (`pinned`: it can take only that one); her second asks for `cpus`.
fn limited(pinned: bool, cpus: i64) -> CycleOutcome {
    let mut slots = pslot(0, "0", &[child(1, "bob@site"), child(1, "bob@site"), child(3, "bob@site")]);
    // SlotID 1 as the p-slot: the default NEGOTIATOR_POST_JOB_RANK prefers lower ids.
    slots.push(ad(r#"[ Name = "slot2@node"; StartdIpAddr = "<10.0.0.1:9618>"; SlotID = 1; Cpus = 1;
        Memory = 1024; Disk = 100; SlotWeight = Cpus; State = "Unclaimed"; Activity = "Idle"; Start = true;
        Rank = 0; Requirements = START ]"#));
    let mut all = jobs("amy", 1, 1, 1);
    if pinned {
        all[0].insert("Requirements", "TARGET.Name == \"slot2@node\"".parse::<classad::Expr>().expect("parses"));
    }
    all.extend(jobs("amy", 2, 1, cpus));
    all.push(ad(r#"[ ClusterId = 9; ProcId = 0; JobStatus = 1; Owner = "dan"; User = "dan@site";
        RequestCpus = 1; RequestMemory = 1; Requirements = false ]"#));
    let outcome = cycle(ON, &slots, &all);
    assert_eq!(outcome.matches.first().map(|m| m.slot.as_str()), Some("slot2@node"));
    outcome
}

fn rejection(outcome: &CycleOutcome) -> Option<String> {
    outcome.rejections.iter().find(|r| r.submitter == "amy@site").map(|r| r.reason.to_string())
}

/// A priority preemption through a p-slot is held to the submitter's
/// limit with the enlarged p-slot's weight: after her first match (1) a
/// 2-cpu job fits amy's limit of 3 (the p-slot with two children weighs
/// 2), a 3-cpu job does not (it needs the third child too: 5 cpus).
#[test]
fn the_enlarged_weight_counts_against_the_limit() {
    let two = limited(true, 2);
    assert_eq!(two.matches.len(), 2, "{:?}", two.matches);
    let m = &two.matches[1];
    assert_eq!((m.slot.as_str(), m.cost, m.preempted_dynamic_slots.clone()), ("slot1@node", 2.0, names(&[1, 2])));
    let three = limited(true, 3);
    assert_eq!(three.matches.len(), 1);
    assert_eq!(rejection(&three).as_deref(), Some("submitter limit exceeded"));
}

/// HTCondor hands the children out when the enlarged p-slot becomes a
/// candidate, not when it is matched: the first job, whose candidates were
/// the static slot and the p-slot with its first child, took the static
/// slot, and that child is gone for the rest of the cycle all the same. The
/// 2-cpu job then needs the second and the 3-cpu child (weight 4, over the
/// limit).
#[test]
fn children_are_handed_out_by_a_candidate_not_taken() {
    let outcome = limited(false, 2);
    assert_eq!(outcome.matches.len(), 1, "{:?}", outcome.matches);
    assert_eq!(rejection(&outcome).as_deref(), Some("submitter limit exceeded"));
}

/// Over her limit in the first spin, a submitter still looks for slots
/// whose startd ranks her jobs above what they run, and a p-slot preferring
/// amy is tried with its children only when it does not match as it is.
/// Amy shares the pool with dan, whose job matches nothing; her first job
/// takes a static slot of half the pool's weight and uses up her limit.
/// With no cpu free, her second takes the p-slot with a child by rank in
/// that spin; with one free, the p-slot matches as it is and is no
/// candidate for the startd's rank: the job takes it unclaimed in the next
/// spin, with dan's share.
#[test]
fn over_the_limit_a_pslot_is_taken_for_its_rank_only_when_it_does_not_fit() {
    let run = |free: i64| {
        let rank = r#"(TARGET.Owner =?= "amy") * 5"#;
        let mut slots = pslot(free, rank, &[child(1, "bob@site"), child(1, "bob@site")]);
        // A static slot of 2 + free cpus, half the pool's weight.
        slots.push(ad(&format!(
            r#"[ Name = "slot2@node"; StartdIpAddr = "<10.0.0.1:9618>"; SlotID = 1; Cpus = {};
            Memory = 8192; Disk = 100; SlotWeight = Cpus; State = "Unclaimed"; Activity = "Idle"; Start = true;
            Rank = 0; Requirements = START ]"#,
            2 + free
        )));
        // The p-slot last, in a range apart from its running children.
        slots.rotate_left(1);
        let mut all = jobs("amy", 1, 1, 2 + free);
        all[0].insert("Requirements", "TARGET.Name == \"slot2@node\"".parse::<classad::Expr>().expect("parses"));
        all.extend(jobs("amy", 2, 1, 1));
        all.push(ad(r#"[ ClusterId = 9; ProcId = 0; JobStatus = 1; Owner = "dan"; User = "dan@site";
            RequestCpus = 1; RequestMemory = 1; Requirements = false ]"#));
        let config = "ALLOW_PSLOT_PREEMPTION = True\nPREEMPTION_REQUIREMENTS = False\nSLOT_WEIGHT = Cpus\n";
        let outcome = cycle(config, &slots, &all);
        outcome.matches.iter().map(|m| (m.slot.clone(), m.claim, m.preempted_dynamic_slots.clone())).collect::<Vec<_>>()
    };
    let slot2 = ("slot2@node".to_string(), ClaimKind::Unclaimed, vec![]);
    assert_eq!(run(0), [slot2.clone(), ("slot1@node".to_string(), ClaimKind::RankPreemption, names(&[1]))]);
    assert_eq!(run(1), [slot2, ("slot1@node".to_string(), ClaimKind::Unclaimed, vec![])]);
}
