//! The negotiation cycle on small, hand-checked pools: the manual's
//! "layperson's description of the pie spin" step by step (slices by
//! priority, the floor round, ceilings, the slot's RANK preempting, spins
//! repeating with what is left), and determinism.

use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::autocluster::{queues, significant_attributes, SubmitterQueue};
use matchmaker::candidates::ClaimKind;
use matchmaker::config::Config;
use matchmaker::negotiator::{CycleOutcome, Negotiator, RejectReason, Stopped};

fn ad(text: &str) -> ClassAd {
    text.parse().unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `n` one-core unclaimed slots, `extra` added to each.
fn slots(n: usize, extra: &str) -> Vec<ClassAd> {
    (0..n)
        .map(|i| {
            ad(&format!(
                r#"[ Name = "slot{}@node{}"; StartdIpAddr = "<10.0.0.{}:9618>"; SlotID = {}; Cpus = 1; Memory = 2048;
                    State = "Unclaimed"; Activity = "Idle"; Start = true; Requirements = START; Rank = 0; {extra} ]"#,
                i % 8 + 1,
                i / 8,
                i / 8,
                i % 8 + 1
            ))
        })
        .collect()
}

/// `n` idle one-core jobs of `user` in cluster `cluster`.
fn jobs(user: &str, cluster: i64, n: usize) -> Vec<ClassAd> {
    (0..n)
        .map(|p| {
            ad(&format!(
                r#"[ ClusterId = {cluster}; ProcId = {p}; JobStatus = 1; Owner = "{user}"; User = "{user}@site";
                    RequestCpus = 1; RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]"#
            ))
        })
        .collect()
}

struct Pool {
    negotiator: Negotiator,
    accountant: Accountant,
    slots: Vec<ClassAd>,
    queues: Vec<SubmitterQueue>,
}

fn pool(config: &str, slots: Vec<ClassAd>, jobs: &[ClassAd]) -> Pool {
    let config = Config::parse_str(config, "test.conf").expect("config");
    let negotiator = Negotiator::from_config(&config).expect("negotiator");
    let accountant = Accountant::new(AccountantConfig::from_config(&config).expect("accountant config"));
    let queues = queues(jobs, &significant_attributes(&slots, &negotiator.expressions()));
    Pool { negotiator, accountant, slots, queues }
}

impl Pool {
    fn cycle(&mut self) -> CycleOutcome {
        // At the accountant's last update: priorities are used as set.
        self.negotiator.cycle(&mut self.accountant, &self.slots, &self.queues, 0).expect("cycle")
    }
}

/// Slices follow the priorities: EUP 500 against 1000 is two thirds of
/// the pool against one third.
#[test]
fn slices_follow_priorities() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 100), jobs("bob", 2, 100)].concat();
    let mut p = pool("", slots(90, ""), &all);
    p.accountant.set_priority("amy@site", 0.5).expect("prio");
    p.accountant.set_priority("bob@site", 1.0).expect("prio");
    let outcome = p.cycle();
    assert_eq!((outcome.matches_of("amy@site"), outcome.matches_of("bob@site")), (60, 30));
    let amy = &outcome.submitters[0];
    assert_eq!(amy.name, "amy@site");
    assert!((amy.share - 2.0 / 3.0).abs() < 1e-12);
    assert!((amy.limit - 60.0).abs() < 1e-9);
    assert_eq!(amy.stopped, Stopped::ShareLimit);
}

/// A user below its floor is served first, up to the floor, whatever its
/// priority.
#[test]
fn the_floor_round_goes_first() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 100), jobs("bob", 2, 100)].concat();
    let mut p = pool("", slots(40, ""), &all);
    p.accountant.set_priority("amy@site", 0.5).expect("prio");
    p.accountant.set_priority("bob@site", 50.0).expect("prio"); // far worse
    p.accountant.set_floor("bob@site", 25).expect("floor");
    let outcome = p.cycle();
    let floor_round: Vec<&str> = outcome.matches.iter().filter(|m| m.spin == 0).map(|m| m.submitter.as_str()).collect();
    assert_eq!(floor_round.len(), 25);
    assert!(floor_round.iter().all(|s| *s == "bob@site"));
    assert_eq!(outcome.matches_of("amy@site"), 15);
    assert_eq!(outcome.stats.pies, 2);
}

/// A ceiling smaller than the slice caps the user.
#[test]
fn a_ceiling_caps_the_slice() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 100), jobs("bob", 2, 100)].concat();
    let mut p = pool("", slots(60, ""), &all);
    p.accountant.set_ceiling("amy@site", 7).expect("ceiling");
    let outcome = p.cycle();
    assert_eq!(outcome.matches_of("amy@site"), 7);
    assert_eq!(outcome.matches_of("bob@site"), 53, "bob takes what amy leaves, in the next spins");
    assert_eq!(outcome.submitters.iter().find(|r| r.name == "amy@site").map(|r| r.stopped), Some(Stopped::Ceiling));
}

/// A slot whose RANK prefers a job preempts the job it runs for it,
/// however the users' priorities compare; a slot running a job of the same
/// user it does not prefer is left alone.
#[test]
fn the_slots_rank_preempts() {
    let claimed = r#"State = "Claimed"; Activity = "Busy"; RemoteUser = "cal@site"; RemoteOwner = "cal";
        AccountingGroup = "cal@site"; CurrentRank = 0; Rank = (TARGET.Owner =?= "amy") * 10"#;
    let all = jobs("amy", 1, 5);
    let mut p = pool("", slots(3, claimed), &all);
    p.accountant.set_priority("amy@site", 100.0).expect("prio");
    let outcome = p.cycle();
    assert_eq!(outcome.matches.len(), 3);
    for m in &outcome.matches {
        assert_eq!(m.claim, ClaimKind::RankPreemption);
        assert_eq!(m.preempting.as_deref(), Some("cal@site"));
    }
    // cal gets nothing back from its own slots without a RANK for it.
    let mut q = pool("", slots(3, claimed), &jobs("cal", 2, 5));
    let outcome = q.cycle();
    assert!(outcome.matches.is_empty());
    assert_eq!(outcome.rejections.first().map(|r| &r.reason), Some(&RejectReason::NoMatch));
}

/// A user that cannot use its slice leaves it to the others: the next
/// spin hands out what is left, with slices recomputed.
#[test]
fn spins_repeat_with_what_is_left() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 5), jobs("bob", 2, 100)].concat();
    let mut p = pool("", slots(40, ""), &all);
    let outcome = p.cycle();
    assert_eq!(outcome.matches_of("amy@site"), 5);
    assert_eq!(outcome.matches_of("bob@site"), 35);
    assert!(outcome.stats.pie_spins >= 2);
    assert!(outcome.matches.iter().any(|m| m.submitter == "bob@site" && m.spin == 2));
}

/// A match to a slot the schedd cannot claim (`WantClaiming = false`: the
/// claim id is "null") is rejected by a real schedd, whose job is then
/// offered again in the next spin. Amy (30 jobs) reaches her slice of 20
/// in the first spin; bob's 5 jobs are all matched. In the second spin the
/// 15 slots left are amy's: with `resend_claimless_matches` her declined
/// jobs are offered again and take all 15; to claimable slots, or without
/// the setting, only her 10 unmatched jobs remain.
#[test]
fn claimless_matches_are_offered_again_when_the_schedd_declines_them() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 30), jobs("bob", 2, 5)].concat();
    let run = |extra: &str, resend: bool| {
        let mut p = pool("", slots(40, extra), &all);
        p.negotiator.settings.resend_claimless_matches = resend;
        p.cycle()
    };
    let declined = run("WantClaiming = false", true);
    assert_eq!((declined.matches_of("amy@site"), declined.matches_of("bob@site")), (35, 5));
    assert!(declined.matches.iter().filter(|m| m.submitter == "amy@site").all(|m| m.spin <= 2));
    assert_eq!(declined.matches.iter().filter(|m| m.submitter == "amy@site" && m.spin == 2).count(), 15);
    let offline = run("Offline = true", true);
    assert_eq!(offline.matches_of("amy@site"), 35);
    for (extra, resend) in [("WantClaiming = true", true), ("WantClaiming = false", false), ("", true)] {
        let outcome = run(extra, resend);
        assert_eq!(outcome.matches_of("amy@site"), 30, "{extra} resend={resend}");
        assert_eq!(outcome.matches_of("bob@site"), 5, "{extra} resend={resend}");
    }
}

/// Out of machines or out of jobs, the cycle stops; either way it decides
/// the same for the same inputs. Three equal users on 50 slots get 16
/// each: a 17th would pass their slice of 16.67, and in the next spin
/// what is left of each slice (0.67) is less than a slot, so, as in
/// HTCondor, the last 2 slots stay free this cycle.
#[test]
fn it_stops_and_repeats_itself() {
    let all: Vec<ClassAd> = [jobs("amy", 1, 30), jobs("bob", 2, 30), jobs("cal", 3, 30)].concat();
    let first = pool("", slots(50, ""), &all).cycle();
    let second = pool("", slots(50, ""), &all).cycle();
    assert_eq!(first.matches.len(), 48);
    assert_eq!(first.matches_of("cal@site"), 16);
    let names = |o: &CycleOutcome| o.matches.iter().map(|m| (m.submitter.clone(), m.slot.clone())).collect::<Vec<_>>();
    assert_eq!(names(&first), names(&second));
    let few = pool("", slots(50, ""), &jobs("amy", 1, 10)).cycle();
    assert_eq!(few.matches.len(), 10);
    assert_eq!(few.submitters[0].stopped, Stopped::GotAll);
}

/// Slots the negotiator may not use are left out: NEGOTIATOR_SLOT_CONSTRAINT,
/// and claimed slots when preemption is not considered.
#[test]
fn constraints_and_trimming() {
    let mut all = slots(10, "");
    all.extend(slots(5, r#"State = "Claimed"; RemoteUser = "cal@site"; CurrentRank = 0"#));
    let mut p = pool("NEGOTIATOR_CONSIDER_PREEMPTION = False\n", all.clone(), &jobs("amy", 1, 50));
    let outcome = p.cycle();
    assert_eq!((outcome.stats.total_slots, outcome.stats.trimmed_slots), (15, 10));
    assert_eq!(outcome.matches.len(), 10);
    let mut q = pool("NEGOTIATOR_SLOT_CONSTRAINT = SlotID <= 4\n", slots(16, ""), &jobs("amy", 1, 50));
    assert_eq!(q.cycle().stats.total_slots, 8);
}

/// Slots no job can match (`Requirements = false`, as a simulator's
/// stand-ins for claimed slots) still count in the pool's size and charge
/// their users, are never matched, and the matches name the input slots
/// they took even with such slots between them.
#[test]
fn unmatchable_slots_count_but_take_no_match() {
    let free = slots(6, "");
    let mut all = Vec::new();
    for (i, slot) in free.into_iter().enumerate() {
        all.push(slot);
        all.push(ad(&format!(
            r#"[ Name = "claims-{i}"; State = "Claimed"; Activity = "Busy"; RemoteUser = "cal@site";
                SlotWeight = 2; Cpus = 2; Start = false; Requirements = false; Rank = 0 ]"#
        )));
    }
    let mut p = pool("", all.clone(), &jobs("amy", 1, 50));
    let outcome = p.cycle();
    assert_eq!(outcome.stats.total_slots, 12);
    assert_eq!(outcome.stats.slot_weight_total, 6.0 + 12.0, "the stand-ins weigh in the pool's size");
    assert_eq!(outcome.matches.len(), 6);
    for m in &outcome.matches {
        assert_eq!(m.slot_index % 2, 0, "only free slots are matched");
        let name = all[m.slot_index].eval_attr("Name");
        assert_eq!(name.to_string(), format!("\"{}\"", m.slot), "slot_index points at the slot matched");
    }
    assert_eq!(p.accountant.weighted_resources_used("cal@site"), 12.0, "the stand-ins charge their user");
}

/// A job's concurrency limit refuses matches past its capacity, with
/// HTCondor's reason.
#[test]
fn concurrency_limits_refuse() {
    let limited: Vec<ClassAd> = (0..10)
        .map(|p| {
            ad(&format!(
                r#"[ ClusterId = 1; ProcId = {p}; JobStatus = 1; Owner = "amy"; User = "amy@site"; RequestCpus = 1;
                    RequestMemory = 1; ConcurrencyLimits = "matlab"; Requirements = true ]"#
            ))
        })
        .collect();
    let mut p = pool("MATLAB_LIMIT = 3\n", slots(10, ""), &limited);
    let outcome = p.cycle();
    assert_eq!(outcome.matches.len(), 3);
    assert_eq!(outcome.rejections[0].reason, RejectReason::ConcurrencyLimit(vec!["matlab".to_string()]));
    assert_eq!(outcome.rejections[0].reason.to_string(), "concurrency limit matlab reached");
}

/// `n` idle one-core jobs of `user` in accounting group `group`.
fn group_jobs(group: &str, user: &str, cluster: i64, n: usize) -> Vec<ClassAd> {
    jobs(user, cluster, n)
        .into_iter()
        .map(|mut j| {
            j.insert("AccountingGroup", format!("{group}.{user}").as_str());
            j
        })
        .collect()
}

/// With groups, policy expressions see the group being negotiated and the
/// submitter's group quota: here half the slots take only group `a`'s
/// negotiation, the others only submitters of other groups whose quota is 5.
#[test]
fn group_attributes_reach_policy_expressions() {
    let all: Vec<ClassAd> = [group_jobs("a", "amy", 1, 20), group_jobs("b", "bob", 2, 20), jobs("cal", 3, 20)].concat();
    let mut slots = slots(5, r#"Start = TARGET.SubmitterNegotiatingGroup =?= "a""#);
    let mut quota5 = self::slots(
        10,
        r#"Start = TARGET.SubmitterGroupQuota == 5 && TARGET.SubmitterAutoregroup =?= false && TARGET.SubmitterNegotiatingGroup =!= "a""#,
    );
    for (i, s) in quota5.iter_mut().enumerate() {
        s.insert("Name", format!("q5slot{i}@node").as_str());
    }
    slots.extend(quota5);
    let mut p = pool("GROUP_NAMES = a, b\nGROUP_QUOTA_a = 5\nGROUP_QUOTA_b = 5\n", slots, &all);
    let outcome = p.cycle();
    // a: 5 (it negotiates first, at the same sort key, breadth first); b: 5;
    // cal in <none> (quota 5) takes the last 5 of the quota-5 slots.
    assert_eq!(
        (outcome.matches_of("a.amy@site"), outcome.matches_of("b.bob@site"), outcome.matches_of("cal@site")),
        (5, 5, 5)
    );
    let names: Vec<&str> = outcome.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["<none>", "a", "b"]);
}

/// A submitter below its floor gets a floor round inside its group, first.
#[test]
fn floors_apply_inside_groups() {
    let all: Vec<ClassAd> = [group_jobs("a", "amy", 1, 20), group_jobs("a", "ann", 2, 20)].concat();
    let mut p = pool("GROUP_NAMES = a\nGROUP_QUOTA_a = 10\n", slots(20, ""), &all);
    p.accountant.set_priority("a.amy@site", 0.5).expect("prio");
    p.accountant.set_priority("a.ann@site", 50.0).expect("prio");
    p.accountant.set_floor("a.ann@site", 6).expect("floor");
    let outcome = p.cycle();
    let floor_round = outcome.matches.iter().filter(|m| m.spin == 0).count();
    assert_eq!(floor_round, 6);
    // The group's quota holds both: 10 in all.
    assert_eq!(outcome.matches_of("a.ann@site") + outcome.matches_of("a.amy@site"), 10);
    assert_eq!(outcome.matches_of("a.ann@site"), 6);
}

/// Without slot weights, the slot left when three groups split ten goes
/// round-robin: the negotiator remembers from cycle to cycle which group
/// it last served, as HTCondor's does, so each cycle's extra slot goes to
/// the next group; a new negotiator starts over.
#[test]
fn remainders_go_round_robin_across_cycles() {
    let all: Vec<ClassAd> =
        [group_jobs("a", "amy", 1, 20), group_jobs("b", "bob", 2, 20), group_jobs("c", "cy", 3, 20)].concat();
    let config = "GROUP_NAMES = a, b, c\nGROUP_QUOTA_DYNAMIC_a = 0.3333\nGROUP_QUOTA_DYNAMIC_b = 0.3333\n\
                  GROUP_QUOTA_DYNAMIC_c = 0.3333\nGROUP_ACCEPT_SURPLUS = True\nNEGOTIATOR_USE_SLOT_WEIGHTS = False\n";
    let p = pool(config, slots(10, ""), &all);
    let parsed = Config::parse_str(config, "test.conf").expect("config");
    let with_four = |negotiator: &Negotiator, now: i64| -> Vec<String> {
        // Usage starts from nothing each time: only the negotiator remembers.
        let mut accountant = Accountant::new(AccountantConfig::from_config(&parsed).expect("accountant config"));
        let outcome = negotiator.cycle(&mut accountant, &p.slots, &p.queues, now).expect("cycle");
        let per_group: Vec<usize> =
            ["a.amy@site", "b.bob@site", "c.cy@site"].iter().map(|s| outcome.matches_of(s)).collect();
        assert_eq!(per_group.iter().sum::<usize>(), 10, "{per_group:?}");
        outcome.groups.iter().filter(|g| g.matches == 4).map(|g| g.name.clone()).collect()
    };
    let served: Vec<Vec<String>> = (1..=4).map(|k| with_four(&p.negotiator, 100 * k)).collect();
    assert_eq!(served, [["a"], ["b"], ["c"], ["a"]]);
    // A negotiator that forgot (restarted, or reconfigured) serves `a` again.
    p.negotiator.round_robin.clear();
    assert_eq!(with_four(&p.negotiator, 500), ["a"]);
    let restarted =
        Negotiator::from_config(&Config::parse_str(config, "test.conf").expect("config")).expect("negotiator");
    assert_eq!(with_four(&restarted, 600), ["a"]);
}
