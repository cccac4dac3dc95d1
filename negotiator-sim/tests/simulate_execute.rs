//! The execute side of the simulator: startd policies on running jobs
//! over time (suspend, continue, vacate, kill, retirement) driven by the
//! owners of desktop machines, and concurrency limits held by running
//! jobs across cycles.

use negotiator_sim::simulate::results::Results;
use negotiator_sim::simulate::run::Simulation;
use negotiator_sim::simulate::scenario::Scenario;
use proptest::prelude::*;

mod checked;
use checked::{ints, run_checked, scenario, strs};

/// The `execute` table as (time, job, event, cause, badput) rows.
fn events(r: &Results) -> Vec<(i64, String, String, String, i64)> {
    let t = r.table("execute").expect("an execute table");
    let (time, job, event, cause, badput) =
        (ints(t, "time"), strs(t, "job"), strs(t, "event"), strs(t, "cause"), ints(t, "badput"));
    (0..t.rows()).map(|i| (time[i], job[i].clone(), event[i].clone(), cause[i].clone(), badput[i])).collect()
}

fn row(time: i64, job: &str, event: &str, cause: &str, badput: i64) -> (i64, String, String, String, i64) {
    (time, job.to_string(), event.to_string(), cause.to_string(), badput)
}

/// One desktop (HTCondor's `POLICY : DESKTOP`) whose owner sits at the
/// keyboard at 2:00, 6:00, 10:00... for `length`; one job of six hours
/// that takes `vacate` to exit when asked.
fn desktop(length: &str, vacate: &str) -> Scenario {
    scenario(&format!(
        r#"
        seed = 1
        duration = "1d"
        config = "NEGOTIATOR_INTERVAL = 60"
        [[pool.machines]]
        name = "desk"
        cpus = 1
        memory = 4096
        partitionable = false
        startd_config = "use POLICY : DESKTOP"
        owner = {{ sessions = {{ process = "periodic", at = "2h", every = "4h" }}, length = {{ distribution = "fixed", value = "{length}" }}, load = 1.0 }}
        [[users]]
        name = "amy"
        arrival = {{ process = "burst", at = 0, jobs = 1 }}
        runtime = {{ distribution = "fixed", value = "6h" }}
        vacate_time = "{vacate}"
        "#
    ))
}

#[test]
fn a_short_visit_suspends_the_job_and_it_continues() {
    // The owner types for 4 minutes at 2:00: SUSPEND (KeyboardBusy) at the
    // poll of 7200; CONTINUE once the keyboard has been idle 5 minutes
    // (ContinueIdleTime), at the first poll after 7440 + 300 = 7740.
    let r = run_checked(&desktop("4m", "0"));
    assert_eq!(
        events(&r),
        [
            row(7200, "1.0", "suspend", "SUSPEND", 0),
            row(7745, "1.0", "continue", "CONTINUE", 0),
            row(21600, "1.0", "suspend", "SUSPEND", 0),
            row(22145, "1.0", "continue", "CONTINUE", 0),
        ]
    );
    let jobs = r.table("jobs").expect("jobs");
    // Six hours of work and 2 x 545 s suspended.
    assert_eq!(ints(jobs, "end"), [21600 + 1090]);
    assert_eq!((ints(jobs, "suspended"), ints(jobs, "suspensions")), (&[1090][..], &[2][..]));
    assert_eq!(
        (ints(jobs, "badput"), ints(jobs, "preemptions"), ints(jobs, "vacates")),
        (&[0][..], &[0][..], &[0][..])
    );
    let cycles = r.table("cycles").expect("cycles");
    let (time, suspended) = (ints(cycles, "time"), ints(cycles, "suspended_jobs"));
    for (t, s) in time.iter().zip(suspended) {
        // (The cycle at 7200 and 21600 comes before the startd's poll.)
        let expected = i64::from((7201..7745).contains(t) || (21601..22145).contains(t));
        assert_eq!(*s, expected, "suspended jobs at {t}");
    }
}

#[test]
fn a_long_visit_vacates_the_suspended_job_and_it_restarts_when_the_owner_leaves() {
    // Suspended at 7200; PREEMPT once suspended longer than MaxSuspendTime
    // (10 minutes): at 7805. The job leaves at once (vacate_time 0) with
    // its 7200 s of work lost. START needs 15 minutes of idle keyboard:
    // the owner leaves at 9000, the cycle of 9960 gives the slot back.
    let r = run_checked(&desktop("30m", "0"));
    let e = events(&r);
    assert_eq!(
        e[..4],
        [
            row(7200, "1.0", "suspend", "SUSPEND", 0),
            row(7805, "1.0", "continue", "PREEMPT", 0),
            row(7805, "1.0", "vacate", "MaxJobRetirementTime", 0),
            row(7805, "1.0", "evicted", "", 7200),
        ]
    );
    // Restarted at 9960, it has done 21600 - 9960 s when the owner comes
    // back at 6:00, and so on every four hours: it never finishes.
    assert_eq!(e[7], row(22205, "1.0", "evicted", "", 21600 - 9960));
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(ints(jobs, "end"), [-1]);
    assert_eq!(ints(jobs, "vacates"), [6]);
    assert_eq!(ints(jobs, "preemptions"), [6]);
    assert_eq!(ints(jobs, "badput"), [7200 + 5 * 11640]);
    assert_eq!(ints(jobs, "suspended"), [6 * 605]);
    let users = r.table("users").expect("users");
    let (time, vacates) = (ints(users, "time"), ints(users, "vacates"));
    // amy's vacates so far: one more at each visit.
    for (t, v) in time.iter().zip(vacates) {
        let expected = [7805, 22205, 36605, 51005, 65405, 79805].iter().filter(|&&at| at < *t).count() as i64;
        assert_eq!(*v, expected, "vacates at {t}");
    }
    assert!(ints(users, "kills").iter().all(|&k| k == 0));
    let cycles = r.table("cycles").expect("cycles");
    assert_eq!(ints(cycles, "vacates").iter().sum::<i64>(), 6);
    assert_eq!(ints(cycles, "kills").iter().sum::<i64>(), 0);
}

#[test]
fn a_job_slow_to_leave_is_killed_after_the_vacate_time() {
    // Asked to leave at 7805, the job would take 20 minutes; the startd
    // hard-kills it when MachineMaxVacateTime (10 minutes) runs out. The
    // work lost includes the vacating time.
    let r = run_checked(&desktop("30m", "20m"));
    let e = events(&r);
    assert_eq!(
        e[2..5],
        [
            row(7805, "1.0", "vacate", "MaxJobRetirementTime", 0),
            row(8405, "1.0", "kill", "MachineMaxVacateTime", 0),
            row(8405, "1.0", "evicted", "", 7800),
        ]
    );
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!((ints(jobs, "vacates")[0], ints(jobs, "kills")[0]), (6, 6));
}

fn retiring(runtime: &str) -> Scenario {
    scenario(&format!(
        r#"
        seed = 1
        duration = "12h"
        config = "NEGOTIATOR_INTERVAL = 60"
        [[pool.machines]]
        name = "desk"
        cpus = 1
        memory = 4096
        partitionable = false
        startd_config = """
        START = True
        SUSPEND = False
        WANT_SUSPEND = False
        PREEMPT = KeyboardIdle < 60
        MaxJobRetirementTime = 3 * 3600
        MachineMaxVacateTime = 120
        """
        owner = {{ sessions = {{ process = "periodic", at = "2h" }}, length = {{ distribution = "fixed", value = "10m" }} }}
        [[users]]
        name = "amy"
        arrival = {{ process = "burst", at = 0, jobs = 2 }}
        runtime = {{ distribution = "fixed", value = "{runtime}" }}
        vacate_time = "5m"
        "#
    ))
}

#[test]
fn max_job_retirement_time_lets_a_job_finish_or_ends_it_in_time() {
    // PREEMPT at 2:00; the job retires. Three hours of retirement counted
    // from its start: a 2.5-hour job finishes...
    let r = run_checked(&retiring("9000"));
    assert_eq!(events(&r), [row(7200, "1.0", "retire", "PREEMPT", 0)]);
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(ints(jobs, "end"), [9000, 18000]);
    assert_eq!(ints(jobs, "badput"), [0, 0]);
    // ...a 4-hour job is vacated when its retirement minus its vacating
    // time (120 s) is spent, and killed when that runs out.
    let r = run_checked(&retiring("4h"));
    assert_eq!(
        events(&r),
        [
            row(7200, "1.0", "retire", "PREEMPT", 0),
            row(10680, "1.0", "vacate", "MaxJobRetirementTime", 0),
            row(10800, "1.0", "kill", "MachineMaxVacateTime", 0),
            row(10800, "1.0", "evicted", "", 10800),
        ]
    );
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!(ints(jobs, "start"), [0, 10860 + 14400]);
    assert_eq!(ints(jobs, "end"), [10860 + 14400, 10860 + 2 * 14400]);
}

const OFFICE: &str = r#"
    seed = 11
    duration = "1d"
    claim_delay = "10s"
    config = """
    NEGOTIATOR_INTERVAL = 120
    POLLING_INTERVAL = 30
    PRIORITY_HALFLIFE = 3600
    PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2
    """
    [[pool.machines]]
    name = "desk"
    count = 6
    cpus = 2
    memory = 4096
    partitionable = false
    startd_config = "use POLICY : UWCS_DESKTOP\nMaxSuspendTime = 15 * 60"
    owner = { sessions = { process = "poisson", mean_interval = "2h", diurnal_amplitude = 0.9, peak = "14h" }, length = { distribution = "lognormal", median = "20m", sigma = 1.0 }, load = 0.8 }
    [[pool.machines]]
    name = "pc"
    count = 2
    cpus = 4
    memory = 8192
    startd_config = "use POLICY : DESKTOP"
    owner = { sessions = { process = "poisson", mean_interval = "3h" }, length = { distribution = "exponential", mean = "30m" } }
    [[pool.machines]]
    name = "server"
    count = 1
    cpus = 4
    memory = 8192
    [[users]]
    name = "u"
    count = 3
    arrival = { process = "poisson", mean_interval = "10m" }
    runtime = { distribution = "exponential", mean = "1h" }
    vacate_time = "2m"
"#;

#[test]
fn a_desktop_pool_is_consistent_and_deterministic() {
    let s = scenario(OFFICE);
    let a = run_checked(&s);
    let b = Simulation::new(&s).expect("builds").run(None, &mut |_| {}).expect("runs");
    assert_eq!(a, b, "the same seed gives the same results");
    let c = Simulation::with_seed(&s, 12).expect("builds").run(None, &mut |_| {}).expect("runs");
    assert_ne!(a.table("execute"), c.table("execute"), "another seed, other owners");
    let e = events(&a);
    let count = |what: &str| e.iter().filter(|r| r.2 == what).count();
    assert!(count("suspend") > 10 && count("continue") > 5 && count("vacate") > 0, "{e:?}");
    // Every suspension is followed by a continue or the job's leaving, and
    // no job is seen on a server (no owner, no policy that acts).
    let t = a.table("execute").expect("execute");
    assert!(strs(t, "slot").iter().all(|s| !s.contains("server")));
    let jobs = a.table("jobs").expect("jobs");
    let (badput, vacates, kills) = (ints(jobs, "badput"), ints(jobs, "vacates"), ints(jobs, "kills"));
    let evicted: i64 = e.iter().filter(|r| r.2 == "evicted").map(|r| r.4).sum();
    // The negotiator's preemptions add their own badput; the startd's
    // evictions are part of the total.
    assert!(badput.iter().sum::<i64>() >= evicted);
    assert_eq!(vacates.iter().sum::<i64>() as usize, count("vacate"));
    assert_eq!(kills.iter().sum::<i64>() as usize, count("kill"));
}

#[test]
fn a_policy_that_cannot_act_changes_nothing() {
    let plain = r#"
        seed = 4
        duration = "12h"
        [[pool.machines]]
        count = 3
        cpus = 4
        memory = 8192
        __STARTD__
        [[users]]
        name = "amy"
        arrival = { process = "poisson", mean_interval = "3m" }
        runtime = { distribution = "exponential", mean = "40m" }
    "#;
    let a = Simulation::new(&scenario(&plain.replace("__STARTD__", ""))).expect("builds");
    let b = Simulation::new(&scenario(&plain.replace(
        "__STARTD__",
        "startd_config = \"use POLICY : ALWAYS_RUN_JOBS\\nSUSPEND = False\\nPREEMPT = False\"",
    )))
    .expect("builds");
    let (a, b) = (a.run(None, &mut |_| {}).expect("runs"), b.run(None, &mut |_| {}).expect("runs"));
    assert!(a.table("execute").is_none() && b.table("execute").is_none());
    assert_eq!(a, b);
}

fn licensed(extra: &str, partitionable: bool) -> Scenario {
    scenario(&format!(
        r#"
        seed = 2
        duration = "6h"
        config = """
        NEGOTIATOR_INTERVAL = 60
        MATLAB_LIMIT = 3
        {extra}
        """
        [[pool.machines]]
        count = 4
        cpus = 4
        memory = 16384
        partitionable = {partitionable}
        [[users]]
        name = "amy"
        arrival = {{ process = "burst", at = 0, jobs = 40 }}
        runtime = {{ distribution = "fixed", value = "2h" }}
        concurrency_limits = "matlab"
        [[users]]
        name = "bob"
        arrival = {{ process = "burst", at = 0, jobs = 40 }}
        runtime = {{ distribution = "fixed", value = "2h" }}
        concurrency_limits = "MATLAB:0.5, db"
        "#
    ))
}

#[test]
fn a_concurrency_limit_caps_running_jobs_across_cycles() {
    // 16 CPUs, 80 jobs: MATLAB_LIMIT = 3 lets one of amy's jobs (1 unit)
    // and four of bob's (0.5) or any mix up to 3 units run at once, and it
    // holds over the cycles while they run, with stand-in ads for busy
    // slots (the default), with every slot given, and with dynamic slots
    // (the schedd carving leftovers of a partitionable slot does not
    // count limits: that is the negotiator's business).
    let leftovers = "CLAIM_PARTITIONABLE_LEFTOVERS = False";
    for (extra, partitionable) in [
        ("", false),
        (leftovers, true),
        ("NEGOTIATOR_USE_SLOT_WEIGHTS = False", false),
        ("PREEMPTION_REQUIREMENTS = True\nCLAIM_PARTITIONABLE_LEFTOVERS = False", true),
    ] {
        let r = run_checked(&licensed(extra, partitionable));
        let users = r.table("users").expect("users");
        let (time, user, running) = (ints(users, "time"), strs(users, "user"), ints(users, "running"));
        let mut most = 0.0f64;
        for &t in time.iter() {
            let units: f64 = (0..time.len())
                .filter(|&i| time[i] == t)
                .map(|i| running[i] as f64 * if user[i].starts_with("amy") { 1.0 } else { 0.5 })
                .sum();
            assert!(units <= 3.0 + 1e-9, "{extra} {partitionable}: {units} units of matlab at {t}");
            most = most.max(units);
        }
        assert!(most >= 2.5, "{extra} {partitionable}: the limit is used ({most})");
        let jobs = r.table("jobs").expect("jobs");
        let finished = ints(jobs, "end").iter().filter(|&&e| e >= 0).count();
        // Three 2-hour rounds of at most 3 units (6 jobs of bob's) in 6 hours.
        assert!((4..=20).contains(&finished), "{extra} {partitionable}: {finished} finished");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    /// Arbitrary desktop pools: after every event no job is lost or runs
    /// twice, no slot holds two jobs, no machine hands out more than it
    /// has, time adds up for every finished job (waiting, lost work, run
    /// and suspended time), and the run is the same twice.
    #[test]
    fn arbitrary_desktop_runs_stay_consistent(
        seed in 0u64..1000,
        machines in 1u32..4,
        cpus in 1u32..5,
        partitionable in any::<bool>(),
        uwcs in any::<bool>(),
        session_minutes in 1u32..90,
        mean_gap_minutes in 10u32..300,
        mean_runtime in 5u32..180,
        vacate in 0u32..1200,
        delay in 0u32..60,
        preemption in any::<bool>(),
    ) {
        let text = format!(r#"
            seed = {seed}
            duration = "12h"
            claim_delay = {delay}
            config = """
            NEGOTIATOR_INTERVAL = 60
            POLLING_INTERVAL = 30
            {}
            """
            [[pool.machines]]
            name = "desk"
            count = {machines}
            cpus = {cpus}
            memory = {}
            partitionable = {partitionable}
            startd_config = "use POLICY : {}"
            owner = {{ sessions = {{ process = "poisson", mean_interval = "{mean_gap_minutes}m" }}, length = {{ distribution = "exponential", mean = "{session_minutes}m" }} }}
            [[users]]
            name = "u"
            count = 2
            arrival = {{ process = "poisson", mean_interval = "15m" }}
            runtime = {{ distribution = "exponential", mean = "{mean_runtime}m" }}
            request_memory = 512
            vacate_time = {vacate}
            "#,
            if preemption { "PREEMPTION_REQUIREMENTS = True" } else { "" },
            cpus * 1024,
            if uwcs { "UWCS_DESKTOP" } else { "DESKTOP" },
        );
        let s = scenario(&text);
        let a = run_checked(&s);
        let b = Simulation::new(&s).expect("builds").run(None, &mut |_| {}).expect("runs");
        prop_assert_eq!(&a, &b);
        let jobs = a.table("jobs").expect("jobs");
        let (start, end, suspended) = (ints(jobs, "start"), ints(jobs, "end"), ints(jobs, "suspended"));
        for i in 0..start.len() {
            prop_assert!(suspended[i] >= 0);
            prop_assert!(end[i] == -1 || end[i] - start[i] >= suspended[i]);
        }
    }
}

#[test]
fn the_report_counts_vacates_kills_and_suspended_time() {
    let r = run_checked(&desktop("30m", "20m"));
    let report = negotiator_sim::report::build("desktop", &r.tables).expect("a report");
    let fact = |name: &str| report.facts.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(fact("vacates").as_deref(), Some("6"));
    assert_eq!(fact("kills").as_deref(), Some("6"));
    assert_eq!(fact("time suspended").as_deref(), Some("01:00:30")); // 6 x 605 s
    let plain = run_checked(&licensed("", false));
    let report = negotiator_sim::report::build("plain", &plain.tables).expect("a report");
    assert!(report.facts.iter().all(|(n, _)| n != "vacates" && n != "time suspended"));
}

#[test]
fn a_claim_activated_after_the_owner_came_back_is_refused() {
    // Matched at 0 (the keyboard idle for an hour), the job's claim is
    // activated 2 minutes later: the owner sat down at 61 s, START is
    // false, and the job goes back to the queue (not a preemption). It
    // starts at the first cycle after the owner has been gone 15 minutes:
    // 661 + 900 < 1620.
    let s = scenario(
        r#"
        seed = 1
        duration = "6h"
        claim_delay = "2m"
        config = "NEGOTIATOR_INTERVAL = 60"
        [[pool.machines]]
        name = "desk"
        cpus = 1
        memory = 4096
        partitionable = false
        startd_config = "use POLICY : DESKTOP"
        owner = { sessions = { process = "periodic", at = "61s" }, length = { distribution = "fixed", value = "10m" } }
        [[users]]
        name = "amy"
        arrival = { process = "burst", at = 0, jobs = 1 }
        runtime = { distribution = "fixed", value = "1h" }
        "#,
    );
    let r = run_checked(&s);
    assert_eq!(events(&r), [row(120, "1.0", "refused", "START", 0)]);
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!((ints(jobs, "start"), ints(jobs, "end")), (&[1620 + 120][..], &[1740 + 3600][..]));
    assert_eq!(
        (ints(jobs, "wait"), ints(jobs, "preemptions"), ints(jobs, "badput")),
        (&[1740][..], &[0][..], &[0][..])
    );
}

#[test]
fn a_job_suspended_at_the_end_counts_its_suspension_so_far() {
    let r = Simulation::new(&desktop("4m", "0")).expect("builds").run(Some(7500), &mut |_| {}).expect("runs");
    let jobs = r.table("jobs").expect("jobs");
    assert_eq!((ints(jobs, "suspended"), ints(jobs, "suspensions")), (&[300][..], &[1][..]));
}
