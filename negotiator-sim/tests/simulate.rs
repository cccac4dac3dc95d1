//! The simulator end to end: determinism, consistency after every event,
//! conservation of usage, priorities with the half-life, traces.

use negotiator_sim::simulate::results::Results;
use negotiator_sim::simulate::run::Simulation;
use negotiator_sim::simulate::scenario::Scenario;
use negotiator_sim::table::Column;
use proptest::prelude::*;

mod checked;
use checked::{floats, ints, run_checked, scenario, strs};

const STATIC_PREEMPTING: &str = r#"
    seed = 3
    duration = "8h"
    claim_delay = 7
    config = """
    NEGOTIATOR_INTERVAL = 120
    PRIORITY_HALFLIFE = 1800
    PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
    CLAIM_WORKLIFE = 600
    """
    [[pool.machines]]
    count = 3
    cpus = 4
    memory = 8192
    partitionable = false
    [[users]]
    name = "early"
    arrival = { process = "burst", at = 0, jobs = 60 }
    runtime = { distribution = "exponential", mean = "2h" }
    [[users]]
    name = "late"
    arrival = { process = "poisson", mean_interval = "4m" }
    runtime = { distribution = "uniform", min = "10m", max = "50m" }
"#;

const PARTITIONABLE: &str = r#"
    seed = 11
    duration = "12h"
    claim_delay = "30s"
    config = """
    NEGOTIATOR_INTERVAL = 60
    PRIORITY_HALFLIFE = 3600
    """
    [[pool.machines]]
    count = 4
    cpus = 8
    memory = 16384
    [[pool.machines]]
    name = "big"
    count = 1
    cpus = 32
    memory = 131072
    [[users]]
    name = "small"
    count = 3
    arrival = { process = "poisson", mean_interval = "2m", diurnal_amplitude = 0.8 }
    runtime = { distribution = "lognormal", median = "20m", sigma = 1.0 }
    [[users]]
    name = "wide"
    arrival = { process = "poisson", mean_interval = "10m" }
    runtime = { distribution = "fixed", value = "1h" }
    request_cpus = 6
    request_memory = 10000
"#;

#[test]
fn same_seed_same_results_other_seed_other_results() {
    for text in [STATIC_PREEMPTING, PARTITIONABLE] {
        let s = scenario(text);
        let a = Simulation::new(&s).expect("builds").run(None, &mut |_| {}).expect("runs");
        let b = Simulation::new(&s).expect("builds").run(None, &mut |_| {}).expect("runs");
        assert_eq!(a, b);
        // Bit for bit, floats included.
        for (x, y) in a.tables.iter().zip(&b.tables) {
            for ((_, cx), (_, cy)) in x.columns.iter().zip(&y.columns) {
                if let (Column::Float(u), Column::Float(v)) = (cx, cy) {
                    assert!(u.iter().zip(v).all(|(p, q)| p.to_bits() == q.to_bits()));
                }
            }
        }
        let c = Simulation::with_seed(&s, s.seed + 1).expect("builds").run(None, &mut |_| {}).expect("runs");
        assert_ne!(a.table("jobs"), c.table("jobs"));
    }
}

#[test]
fn static_pool_with_preemption_stays_consistent() {
    let r = run_checked(&scenario(STATIC_PREEMPTING));
    let cycles = r.table("cycles").expect("cycles");
    let preemptions: i64 = ints(cycles, "preemptions").iter().sum();
    assert!(preemptions > 0, "the late user's better priority preempts the early one");
    let jobs = r.table("jobs").expect("jobs");
    let badput: i64 = ints(jobs, "badput").iter().sum();
    assert!(badput > 0);
    // Never more jobs running than slots.
    assert!(ints(cycles, "running_jobs").iter().all(|&n| n <= 12));
    assert!(floats(cycles, "busy_slots").iter().zip(floats(cycles, "total_slots")).all(|(b, t)| b <= t));
    assert_eq!(floats(cycles, "total_slots")[0], 12.0);
}

#[test]
fn retirement_time_protects_young_jobs_from_preemption() {
    // The early user's jobs (4 h) hold every slot; the late user, with a
    // better priority, may preempt them (PREEMPTION_REQUIREMENTS), but
    // only jobs that have run their hour of retirement; and once the late
    // user runs, its priority is still too good for the early one to take
    // the slots back (its factor is ten times the late one's).
    let text = |retirement: &str| {
        format!(
            r#"
            duration = "3h"
            config = """
            NEGOTIATOR_INTERVAL = 60
            PRIORITY_HALFLIFE = 600
            PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
            {retirement}
            """
            [[pool.machines]]
            count = 4
            cpus = 1
            memory = 2048
            partitionable = false
            [[users]]
            name = "early"
            priority_factor = 10000
            arrival = {{ process = "burst", at = 0, jobs = 4 }}
            runtime = {{ distribution = "fixed", value = "4h" }}
            [[users]]
            name = "late"
            arrival = {{ process = "burst", at = "10m", jobs = 4 }}
            runtime = {{ distribution = "fixed", value = "4h" }}
            "#
        )
    };
    let badput = |r: &Results| -> Vec<i64> {
        let jobs = r.table("jobs").expect("jobs");
        let users = strs(jobs, "user");
        (0..users.len()).filter(|&i| users[i] == "early@sim").map(|i| ints(jobs, "badput")[i]).collect()
    };
    let without = run_checked(&scenario(&text("")));
    // Preempted at the first cycle after the late jobs came (at 10 min).
    assert_eq!(badput(&without), [600, 600, 600, 600]);
    let with = run_checked(&scenario(&text("MaxJobRetirementTime = 3600")));
    assert_eq!(badput(&with), [3600, 3600, 3600, 3600]);
}

#[test]
fn partitionable_pool_stays_consistent_and_splits() {
    let r = run_checked(&scenario(PARTITIONABLE));
    let jobs = r.table("jobs").expect("jobs");
    let slots = strs(jobs, "slot");
    assert!(
        slots.iter().any(|s| s.starts_with("slot1_") && s.ends_with("@big0001")),
        "dynamic slots of the big machine"
    );
    let cycles = r.table("cycles").expect("cycles");
    // Total weight is the pool's CPUs whatever the split.
    assert!(floats(cycles, "total_slots").iter().all(|&t| t == 64.0));
    let finished = ints(jobs, "end").iter().filter(|&&e| e >= 0).count();
    assert!(finished > 100, "{finished}");
}

/// A claim given back reaches the collector `update_delay` later: a cycle
/// in between still sees the slot claimed (and charges its user), and the
/// slot is offered at the next one.
#[test]
fn a_claim_given_back_is_seen_after_the_update_delay() {
    // One slot, cycles every 60 s from 0, jobs of 59 s, claims not reused:
    // each job ends a second before a cycle.
    let run = |delay: &str| {
        let s = scenario(&format!(
            r#"
            duration = "5m"
            update_delay = "{delay}"
            config = "NEGOTIATOR_INTERVAL = 60\nCLAIM_WORKLIFE = 0"
            [[pool.machines]]
            cpus = 1
            memory = 2048
            partitionable = false
            [[users]]
            name = "u"
            arrival = {{ process = "burst", at = 0, jobs = 3 }}
            runtime = {{ distribution = "fixed", value = 59 }}
            "#
        ));
        let r = run_checked(&s);
        let starts = ints(r.table("jobs").expect("jobs"), "start").to_vec();
        let usage = floats(r.table("users").expect("users"), "usage").to_vec();
        (starts, usage)
    };
    let (starts, usage) = run("0s");
    assert_eq!(starts, [0, 60, 120]);
    // The user's usage at each cycle (0, 60, ... 300).
    assert_eq!(usage, [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    // Two seconds: the cycle at 60 still sees the first claim, so the next
    // job waits for the cycle at 120; the user is charged the slot meanwhile.
    let (starts, _) = run("1s");
    assert_eq!(starts, [0, 60, 120], "a second: the cycle at 60 sees the news");
    let (starts, usage) = run("2s");
    assert_eq!(starts, [0, 120, 240]);
    assert_eq!(usage, [1.0; 6]);
}

#[test]
fn jobs_start_after_the_claim_delay_and_reuse_claims() {
    // One slot, jobs of 100 s, a claim delay of 10 s, one cycle an hour:
    // the first job starts at 10, the next ones on the same claim right
    // after each other while CLAIM_WORKLIFE (250 s) allows.
    let s = scenario(
        r#"
        duration = "1h"
        claim_delay = 10
        config = "NEGOTIATOR_INTERVAL = 3600\nCLAIM_WORKLIFE = 250"
        [[pool.machines]]
        cpus = 1
        memory = 2048
        partitionable = false
        [[users]]
        name = "u"
        arrival = { process = "burst", at = 0, jobs = 5 }
        runtime = { distribution = "fixed", value = 100 }
        "#,
    );
    let r = run_checked(&s);
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(ints(jobs, "start"), [10, 110, 210, -1, -1]);
    assert_eq!(ints(jobs, "end"), [110, 210, 310, -1, -1]);
    // The claim began at 0 (matched); at 310 it is 310 s old: released,
    // and the next cycle is at 3600, the end.
    assert_eq!(ints(jobs, "wait"), [10, 110, 210, 3600, 3600]);
}

#[test]
fn a_job_matched_but_never_started_has_no_slot() {
    // Two slots, a claim delay of 10 minutes, a run of 14: the job matched
    // at 0 starts at 600 on its slot; the one submitted at 5 minutes is
    // matched at the cycle at 300 (at once: a slot is free) and would
    // start at 900, after the end of the run.
    let s = scenario(
        r#"
        duration = "14m"
        claim_delay = "10m"
        config = "NEGOTIATOR_INTERVAL = 300"
        [[pool.machines]]
        cpus = 2
        memory = 2048
        partitionable = false
        [[users]]
        name = "early"
        arrival = { process = "burst", at = 0, jobs = 1 }
        runtime = { distribution = "fixed", value = "1h" }
        [[users]]
        name = "late"
        arrival = { process = "burst", at = 250, jobs = 1 }
        runtime = { distribution = "fixed", value = "1h" }
        "#,
    );
    let r = run_checked(&s);
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(ints(jobs, "start"), [600, -1]);
    let slot = strs(jobs, "slot");
    assert!(slot[0].starts_with("slot"), "{slot:?}");
    assert_eq!(slot[1], "", "never started, so never ran on a slot");
}

/// HTCondor's startd ends a claim when its job ends only if the claim is
/// more than `CLAIM_WORKLIFE` seconds old: one exactly that old runs the
/// next job (as a real pool did at 240 s with `CLAIM_WORKLIFE = 240`).
#[test]
fn a_claim_exactly_claim_worklife_old_is_reused() {
    // One slot, jobs of 100 s, one cycle in the run (at 0): the claim made
    // then is 100 s old when the first job ends, 200 s when the second does.
    let starts = |worklife: i64| {
        let s = scenario(&format!(
            r#"
            duration = "50m"
            config = "NEGOTIATOR_INTERVAL = 3600\nCLAIM_WORKLIFE = {worklife}"
            [[pool.machines]]
            cpus = 1
            memory = 2048
            partitionable = false
            [[users]]
            name = "u"
            arrival = {{ process = "burst", at = 0, jobs = 4 }}
            runtime = {{ distribution = "fixed", value = 100 }}
            "#
        ));
        ints(run_checked(&s).table("jobs").expect("jobs"), "start").to_vec()
    };
    assert_eq!(starts(200), [0, 100, 200, -1], "200 s old at 200: reused; 300 s at 300: given back");
    assert_eq!(starts(199), [0, 100, -1, -1], "200 s old at 200: more than 199, given back");
    assert_eq!(starts(0), [0, -1, -1, -1]);
}

#[test]
fn priorities_decay_with_the_half_life() {
    // Ten slots busy from the first cycle: after one half-life the real
    // priority is halfway from 0.5 to 10.
    let s = scenario(
        r#"
        duration = "3h"
        config = "NEGOTIATOR_INTERVAL = 60\nPRIORITY_HALFLIFE = 3600"
        [[pool.machines]]
        count = 10
        cpus = 1
        memory = 2048
        partitionable = false
        [[users]]
        name = "u"
        arrival = { process = "burst", at = 0, jobs = 10 }
        runtime = { distribution = "fixed", value = "1d" }
        "#,
    );
    let r = Simulation::new(&s).expect("builds").run(None, &mut |_| {}).expect("runs");
    let users = r.table("users").expect("users");
    let at = ints(users, "time").iter().position(|&t| t == 3600).expect("a row at one hour");
    let rup = floats(users, "rup")[at];
    assert!((rup - 5.25).abs() < 1e-3, "{rup}");
    assert!((floats(users, "eup")[at] - 1000.0 * rup).abs() < 1.0);
    assert!((floats(users, "accumulated_usage")[at] - 36000.0).abs() < 1e-6);
    assert_eq!(floats(users, "usage")[at], 10.0);
    assert_eq!(floats(users, "share")[at], 1.0);
}

#[test]
fn user_usage_adds_up_to_the_busy_pool() {
    let r = run_checked(&scenario(PARTITIONABLE));
    let users = r.table("users").expect("users");
    let cycles = r.table("cycles").expect("cycles");
    let (times, usage, share) = (ints(users, "time"), floats(users, "usage"), floats(users, "share"));
    for (k, &t) in ints(cycles, "time").iter().enumerate() {
        let rows: Vec<usize> = (0..times.len()).filter(|&i| times[i] == t).collect();
        let sum: f64 = rows.iter().map(|&i| usage[i]).sum();
        assert!((sum - floats(cycles, "busy_slots")[k]).abs() < 1e-6, "t={t}");
        let shares: f64 = rows.iter().map(|&i| share[i]).sum();
        assert!(sum == 0.0 || (shares - 1.0).abs() < 1e-9);
    }
    // The accountant charged what the slots were busy for, cycle by cycle
    // (it sees the pool at each cycle), within what the claims begun or
    // ended between two cycles make of a difference.
    let accumulated: f64 = {
        let last = *times.last().expect("rows");
        (0..times.len()).filter(|&i| times[i] == last).map(|i| floats(users, "accumulated_usage")[i]).sum()
    };
    let busy: f64 = floats(cycles, "busy_slots")[..ints(cycles, "time").len() - 1].iter().map(|b| b * 60.0).sum();
    assert!((accumulated - busy).abs() < 0.05 * busy, "accountant {accumulated}, pool {busy}");
}

#[test]
fn history_trace_replays_submission_and_run_times() {
    let dir = std::env::temp_dir().join(format!("sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let history = dir.join("history.json");
    std::fs::write(
        &history,
        r#"[
        {"ClusterId": 7, "ProcId": 0, "Owner": "amy", "QDate": 1000000, "JobCurrentStartDate": 1000010, "CompletionDate": 1000310, "RequestCpus": 1, "RequestMemory": 512},
        {"ClusterId": 7, "ProcId": 1, "Owner": "amy", "QDate": 1000000, "RemoteWallClockTime": 200.0, "RequestCpus": 1, "RequestMemory": 512},
        {"ClusterId": 8, "ProcId": 0, "Owner": "bob", "QDate": 1000125, "RemoteWallClockTime": 60.0, "AccountingGroup": "group_x.bob"},
        {"ClusterId": 9, "ProcId": 0, "Owner": "bob", "QDate": 1000200}
        ]"#,
    )
    .expect("writes");
    let s = Scenario::from_toml_str(
        "duration = \"1h\"\nconfig = \"NEGOTIATOR_INTERVAL = 30\"\nfirst_cycle = 10\n[[pool.machines]]\ncpus = 4\nmemory = 8192\n\
         [trace]\nfile = \"history.json\"\n",
        &dir.join("s.toml"),
    )
    .expect("reads");
    let r = run_checked(&s);
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(strs(jobs, "job"), ["7.0", "7.1", "8.0"]);
    assert_eq!(ints(jobs, "submit"), [0, 0, 125]);
    // Cycles at 10, 40, 70, 100, 130, ...
    assert_eq!(ints(jobs, "start"), [10, 10, 130]);
    assert_eq!(ints(jobs, "run"), [300, 200, 60]);
    assert_eq!(strs(jobs, "user"), ["amy@sim", "amy@sim", "bob@sim"]);
    assert_eq!(strs(jobs, "group"), ["", "", "group_x"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn group_quotas_give_group_rows() {
    let s = scenario(
        r#"
        duration = "2h"
        config = """
        GROUP_NAMES = group_a, group_b
        GROUP_QUOTA_group_a = 6
        GROUP_QUOTA_group_b = 2
        GROUP_ACCEPT_SURPLUS = true
        """
        [[pool.machines]]
        count = 8
        cpus = 1
        memory = 2048
        partitionable = false
        [[users]]
        name = "amy"
        group = "group_a"
        arrival = { process = "burst", at = 0, jobs = 20 }
        runtime = { distribution = "fixed", value = "3h" }
        [[users]]
        name = "bob"
        group = "group_b"
        arrival = { process = "burst", at = 0, jobs = 20 }
        runtime = { distribution = "fixed", value = "3h" }
        "#,
    );
    let r = run_checked(&s);
    let groups = r.table("groups").expect("groups");
    let names = strs(groups, "group");
    let a = names.iter().position(|g| g == "group_a").expect("group_a");
    let b = names.iter().position(|g| g == "group_b").expect("group_b");
    assert_eq!((floats(groups, "quota")[a], floats(groups, "quota")[b]), (6.0, 2.0));
    assert_eq!((floats(groups, "usage")[a], floats(groups, "usage")[b]), (6.0, 2.0));
    let users = r.table("users").expect("users");
    assert_eq!(&strs(users, "group")[..2], ["group_a", "group_b"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    /// Arbitrary small pools and workloads: after every event, no job is
    /// lost or runs twice, no slot holds two jobs, no machine hands out
    /// more than it has, and the counts agree.
    #[test]
    fn arbitrary_runs_stay_consistent(
        seed in 0u64..1000,
        machines in 1u32..5,
        cpus in 1u32..9,
        partitionable in any::<bool>(),
        preemption in any::<bool>(),
        pslot_preemption in any::<bool>(),
        users in 1u32..4,
        interval in 1u32..30,
        mean_runtime in 1u32..120,
        request_cpus in 1u32..4,
        delay in 0u32..90,
        worklife in -1i32..900,
    ) {
        let text = format!(r#"
            seed = {seed}
            duration = "4h"
            claim_delay = {delay}
            config = """
            NEGOTIATOR_INTERVAL = 60
            PRIORITY_HALFLIFE = 600
            CLAIM_WORKLIFE = {worklife}
            ALLOW_PSLOT_PREEMPTION = {pslot_preemption}
            {}
            """
            [[pool.machines]]
            count = {machines}
            cpus = {cpus}
            memory = {}
            partitionable = {partitionable}
            [[users]]
            name = "u"
            count = {users}
            arrival = {{ process = "poisson", mean_interval = "{interval}m" }}
            runtime = {{ distribution = "exponential", mean = "{mean_runtime}m" }}
            request_cpus = {request_cpus}
            request_memory = 700
            "#,
            if preemption { "PREEMPTION_REQUIREMENTS = True" } else { "" },
            cpus * 1024,
        );
        let s = scenario(&text);
        let r = run_checked(&s);
        let jobs = r.table("jobs").expect("jobs");
        let (submit, start, end) = (ints(jobs, "submit"), ints(jobs, "start"), ints(jobs, "end"));
        for i in 0..submit.len() {
            prop_assert!(start[i] == -1 || start[i] >= submit[i]);
            prop_assert!(end[i] == -1 || (start[i] >= 0 && end[i] >= start[i]));
        }
        // Usage is conserved: the users' usage adds up to the busy pool at
        // every cycle, never more than the pool.
        let (users, cycles) = (r.table("users").expect("users"), r.table("cycles").expect("cycles"));
        let (times, usage) = (ints(users, "time"), floats(users, "usage"));
        let (busy, total) = (floats(cycles, "busy_slots"), floats(cycles, "total_slots"));
        for (k, &t) in ints(cycles, "time").iter().enumerate() {
            let sum: f64 = (0..times.len()).filter(|&i| times[i] == t).map(|i| usage[i]).sum();
            prop_assert!((sum - busy[k]).abs() < 1e-6);
            prop_assert!(busy[k] <= total[k] + 1e-9);
        }
    }
}

/// Prints a digest of the results of the test scenarios (to compare two
/// versions of the simulator that should decide the same).
#[test]
#[ignore]
fn print_digests() {
    use std::hash::{Hash, Hasher};
    for text in [STATIC_PREEMPTING, PARTITIONABLE] {
        let r = Simulation::new(&scenario(text)).expect("builds").run(None, &mut |_| {}).expect("runs");
        let mut h = std::collections::hash_map::DefaultHasher::new();
        format!("{:?}", r.tables).hash(&mut h);
        println!("digest {:016x} {:?}", h.finish(), r.summary);
    }
}

#[test]
fn extreme_values_do_not_overflow() {
    // Run times of a heavy tail far beyond any horizon, a huge interval.
    let s = scenario(
        r#"
        duration = "1d"
        config = "NEGOTIATOR_INTERVAL = 9223372036854775000"
        [[pool.machines]]
        cpus = 2
        memory = 4096
        [[users]]
        name = "u"
        arrival = { process = "poisson", mean_interval = "1m" }
        runtime = { distribution = "lognormal", median = "1h", sigma = 60 }
        "#,
    );
    let r = run_checked(&s);
    let cycles = r.table("cycles").expect("cycles");
    assert_eq!(ints(cycles, "time"), [0]);
    assert!(r.summary.jobs > 1000);
}

#[test]
fn partitionable_slot_preemption_takes_dynamic_slots_at_once() {
    // The early user's eight one-CPU jobs fill the one 8-CPU machine; the
    // late user's four-CPU job fits only by preempting four of them at
    // once, which the negotiator does with ALLOW_PSLOT_PREEMPTION (and
    // cannot without: then it waits for the early jobs to end).
    let text = |knob: &str| {
        format!(
            r#"
            duration = "6h"
            claim_delay = 5
            config = """
            NEGOTIATOR_INTERVAL = 60
            PRIORITY_HALFLIFE = 600
            PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
            CLAIM_PARTITIONABLE_LEFTOVERS = False
            {knob}
            """
            [[pool.machines]]
            count = 1
            cpus = 8
            memory = 16384
            [[users]]
            name = "early"
            priority_factor = 10000
            arrival = {{ process = "burst", at = 0, jobs = 8 }}
            runtime = {{ distribution = "fixed", value = "4h" }}
            request_memory = 1024
            [[users]]
            name = "late"
            arrival = {{ process = "burst", at = "10m", jobs = 1 }}
            runtime = {{ distribution = "fixed", value = "1h" }}
            request_cpus = 4
            request_memory = 1024
            "#
        )
    };
    let by_user = |r: &Results, user: &str, column: &str| -> Vec<i64> {
        let jobs = r.table("jobs").expect("jobs");
        let users = strs(jobs, "user");
        (0..users.len()).filter(|&i| users[i] == user).map(|i| ints(jobs, column)[i]).collect()
    };
    let with = run_checked(&scenario(&text("ALLOW_PSLOT_PREEMPTION = True")));
    // The first cycle after 10 min preempts four of the early jobs (and
    // the early user, ten thousand times worse off, cannot take them back).
    let mut preempted = by_user(&with, "early@sim", "preemptions");
    preempted.sort_unstable();
    assert_eq!(preempted, [0, 0, 0, 0, 1, 1, 1, 1]);
    let waited = by_user(&with, "late@sim", "wait");
    assert_eq!(waited.len(), 1);
    assert_eq!(waited[0], 5, "started at the first cycle after it came (at 10 min), after the claim delay");
    let without = run_checked(&scenario(&text("")));
    assert_eq!(by_user(&without, "early@sim", "preemptions"), [0; 8]);
    assert!(by_user(&without, "late@sim", "wait")[0] >= 4 * 3600 - 600, "waited for the early jobs to end");
}

/// Rows of the jobs table streamed as the run goes, a few at a time, are
/// the rows of the table a run keeps, in the same order; the other tables
/// are the same.
#[test]
fn streamed_job_rows_are_the_jobs_table() {
    use negotiator_sim::output::csv::{to_csv_string, write_header, write_rows};
    use std::sync::{Arc, Mutex};
    for text in [STATIC_PREEMPTING, PARTITIONABLE] {
        let s = scenario(text);
        let kept = Simulation::new(&s).expect("simulation").run(None, &mut |_| {}).expect("run");
        let streamed = Arc::new(Mutex::new((Vec::new(), 0usize)));
        let mut sim = Simulation::new(&s).expect("simulation");
        let into = Arc::clone(&streamed);
        sim.stream_jobs(
            Box::new(move |batch: negotiator_sim::table::Table| {
                let mut guard = into.lock().map_err(|e| e.to_string())?;
                let (out, batches) = &mut *guard;
                if *batches == 0 {
                    write_header(out, &batch).map_err(|e| e.to_string())?;
                }
                *batches += 1;
                write_rows(out, &batch).map_err(|e| e.to_string())
            }),
            7,
        );
        let r = sim.run(None, &mut |_| {}).expect("run");
        let (out, batches) = std::mem::take(&mut *streamed.lock().expect("lock"));
        assert!(batches > 2, "{batches} batches");
        let jobs = kept.table("jobs").expect("jobs");
        assert!(jobs.rows() > 14);
        assert_eq!(String::from_utf8(out).expect("utf-8"), to_csv_string(jobs));
        assert!(r.table("jobs").is_none());
        let others = |r: &Results| r.tables.iter().filter(|t| t.name != "jobs").cloned().collect::<Vec<_>>();
        assert_eq!(others(&r), others(&kept));
        assert_eq!(r.summary, kept.summary);
    }
}
