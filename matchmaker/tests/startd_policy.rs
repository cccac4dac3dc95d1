//! The startd's state machine under the policies of HTCondor's policy
//! chapter, transition by transition: each test drives a slot through
//! timed events and machine changes and checks the states, activities,
//! the manual's transition numbers, the causes and the actions.

use classad::ClassAd;
use matchmaker::startd::{step, ActionKind, Activity, DrainHow, Event, Policy, Slot, State, Step};

use ActionKind::*;
use Activity::*;
use State::*;

/// A slot, its machine's attributes and its policy.
struct Sim {
    policy: Policy,
    slot: Slot,
    machine: ClassAd,
}

/// An idle desktop: nobody at the keyboard for an hour, no load.
const IDLE: &str = "KeyboardIdle = 3600; ConsoleIdle = 3600; LoadAvg = 0.0; CondorLoadAvg = 0.0";
/// Someone typing.
const TYPING: &str = "KeyboardIdle = 5; ConsoleIdle = 5";

fn ad(text: &str) -> ClassAd {
    format!("[ {text} ]").parse().expect("ad")
}

fn job(owner: &str) -> ClassAd {
    ad(&format!(
        r#"Owner = "{owner}"; User = "{owner}@site"; JobUniverse = 5; ImageSize = 100000; ClusterId = 1; ProcId = 0"#
    ))
}

impl Sim {
    fn new(config: &str) -> Sim {
        Sim::at(config, 0)
    }

    fn at(config: &str, t: i64) -> Sim {
        let policy = Policy::parse_str(config, "policy.conf").expect("policy");
        Sim { policy, slot: Slot::new(t), machine: ad(IDLE) }
    }

    /// Changes machine attributes (`KeyboardIdle = 5; LoadAvg = 1.0`).
    fn set(&mut self, attrs: &str) {
        self.machine.update(&ad(attrs));
    }

    fn on(&mut self, t: i64, event: Event) -> Step {
        let s = step(&self.policy, &self.slot, &self.machine, &event, t);
        assert!(s.warnings.is_empty(), "warnings at {t}: {:?}", s.warnings);
        self.slot = s.slot.clone();
        s
    }

    fn tick(&mut self, t: i64) -> Step {
        self.on(t, Event::Tick)
    }

    fn is(&self, state: State, activity: Activity) {
        assert_eq!((self.slot.state(), self.slot.activity()), (state, activity));
    }

    /// Unclaimed -> Matched -> Claimed/Idle -> Claimed/Busy.
    fn run_job(&mut self, t: i64, job: ClassAd) {
        let s = self.on(t, Event::Matched);
        assert_eq!(numbers(&s), [Some(6)]);
        let s = self.on(t, Event::ClaimRequested { job });
        assert_eq!(numbers(&s), [Some(9)]);
        assert_eq!(s.action_kinds(), [AcceptClaim]);
        let s = self.on(t, Event::JobStarted { job: None });
        assert_eq!(numbers(&s), [Some(11)]);
        assert_eq!(s.action_kinds(), [StartJob]);
        self.is(Claimed, Busy);
    }
}

fn numbers(s: &Step) -> Vec<Option<u8>> {
    s.transitions.iter().map(|t| t.number).collect()
}

fn knobs(s: &Step) -> Vec<String> {
    s.transitions.iter().map(|t| t.cause.knob().unwrap_or("-").to_string()).collect()
}

const UWCS: &str = "use POLICY : UWCS_DESKTOP\nRunBenchmarks = False\n";

#[test]
fn uwcs_owner_until_the_keyboard_is_idle_then_unclaimed() {
    let mut sim = Sim::new(UWCS);
    sim.set("KeyboardIdle = 34");
    let s = sim.tick(0);
    assert!(s.transitions.is_empty());
    sim.is(Owner, Idle);
    // 15 minutes without the keyboard (StartIdleTime), CPU idle.
    sim.set("KeyboardIdle = 901");
    let s = sim.tick(300);
    assert_eq!(numbers(&s), [Some(1)]);
    assert_eq!(knobs(&s), ["IsOwner"]);
    sim.is(Unclaimed, Idle);
    // Non-HTCondor load: START is false again, back to Owner (#2).
    sim.set("LoadAvg = 1.0");
    let s = sim.tick(600);
    assert_eq!(numbers(&s), [Some(2)]);
    sim.is(Owner, Idle);
}

#[test]
fn uwcs_suspends_on_the_keyboard_then_continues() {
    let mut sim = Sim::new(UWCS);
    sim.tick(0);
    sim.run_job(10, job("alice"));
    // START stays true while claimed, even with HTCondor's own load.
    sim.set("LoadAvg = 1.0; CondorLoadAvg = 1.0");
    assert!(sim.tick(15).transitions.is_empty());
    sim.set(TYPING);
    let s = sim.tick(200);
    assert_eq!(numbers(&s), [Some(14)]);
    assert_eq!(knobs(&s), ["SUSPEND"]);
    assert_eq!(s.action_kinds(), [SuspendJob]);
    // The keyboard idle for 5 minutes (ContinueIdleTime), CPU idle.
    sim.set("KeyboardIdle = 301");
    let s = sim.tick(520);
    assert_eq!(numbers(&s), [Some(15)]);
    assert_eq!(knobs(&s), ["CONTINUE"]);
    assert_eq!(s.action_kinds(), [ContinueJob]);
    sim.is(Claimed, Busy);
    // The job finishes: Claimed/Idle (#12). An idle claim keeps the slot
    // only while START is true, and the keyboard has not been idle for
    // StartIdleTime: the claim goes (#10, #22) and the owner has the
    // machine.
    let s = sim.on(600, Event::JobExited);
    assert_eq!(numbers(&s), [Some(12), Some(10), Some(22)]);
    assert_eq!(knobs(&s), ["-", "START", "-"]);
    sim.is(Owner, Idle);
}

#[test]
fn uwcs_suspended_too_long_retires_then_vacates() {
    let mut sim = Sim::new(UWCS);
    sim.tick(0);
    sim.run_job(10, job("alice"));
    sim.set(TYPING);
    let s = sim.tick(100);
    assert_eq!(numbers(&s), [Some(14)]);
    // Still typing 10 minutes later (MaxSuspendTime): PREEMPT. The job is
    // resumed, retires (MaxJobRetirementTime = 0) and is vacated at once
    // (WANT_VACATE: a vanilla job).
    assert!(sim.tick(700).transitions.is_empty());
    let s = sim.tick(701);
    assert_eq!(numbers(&s), [Some(16), Some(18)]);
    assert_eq!(knobs(&s), ["PREEMPT", "MaxJobRetirementTime"]);
    assert_eq!(s.action_kinds(), [ContinueJob, VacateJob { max_vacate_time: 600 }]);
    sim.is(Preempting, Vacating);
    assert!(sim.slot.claim().expect("claim").preempt_was_true());
    // The job exits: the schedd is told, the owner has the machine (#22).
    let s = sim.on(710, Event::JobExited);
    assert_eq!(numbers(&s), [Some(22)]);
    assert_eq!(s.action_kinds(), [ReleaseClaim]);
    sim.is(Owner, Idle);
    assert!(sim.slot.claim().is_none());
}

#[test]
fn uwcs_kills_a_big_young_job_that_cannot_be_suspended() {
    let mut sim = Sim::new(UWCS);
    sim.tick(0);
    // Not vanilla, not small: WANT_SUSPEND is false, WANT_VACATE is false
    // for the first 10 minutes.
    let big = ad(r#"Owner = "bob"; JobUniverse = 10; ImageSize = 900000"#);
    sim.run_job(10, big);
    sim.set(TYPING);
    let s = sim.tick(100);
    assert_eq!(numbers(&s), [Some(13), Some(18)]);
    assert_eq!(knobs(&s), ["PREEMPT", "MaxJobRetirementTime"]);
    assert_eq!(s.to_owned().path(), [(Claimed, Retiring), (Preempting, Killing)]);
    assert_eq!(s.action_kinds(), [KillJob]);
    // The starter does not exit: KILLING_TIMEOUT (30 s).
    assert_eq!(s.next_check, 105);
    assert!(sim.tick(129).actions.is_empty());
    let s = sim.tick(130);
    assert_eq!(s.action_kinds(), [KillStarter]);
    let s = sim.on(131, Event::JobExited);
    assert_eq!(numbers(&s), [Some(25)]);
    sim.is(Owner, Idle);
}

#[test]
fn uwcs_vacates_an_old_job_that_cannot_be_suspended() {
    let mut sim = Sim::new(UWCS);
    sim.tick(0);
    sim.run_job(10, ad(r#"Owner = "bob"; JobUniverse = 10; ImageSize = 900000"#));
    sim.set(TYPING);
    let s = sim.tick(700); // ActivationTimer 690 > 600: WANT_VACATE
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
    assert_eq!(s.action_kinds(), [VacateJob { max_vacate_time: 600 }]);
}

#[test]
fn always_run_jobs_ignores_the_owner() {
    let mut sim = Sim::new("use POLICY : ALWAYS_RUN_JOBS\nRunBenchmarks = False\n");
    let s = sim.tick(0);
    assert_eq!(numbers(&s), [Some(1)]);
    sim.run_job(10, job("alice"));
    sim.set("KeyboardIdle = 0; LoadAvg = 8.0");
    for t in (15..3000).step_by(5) {
        let s = sim.tick(t);
        assert!(s.transitions.is_empty() && s.actions.is_empty(), "at {t}");
    }
    sim.is(Claimed, Busy);
}

#[test]
fn claim_worklife_ends_an_idle_claim() {
    let mut sim = Sim::new("use POLICY : ALWAYS_RUN_JOBS\nRunBenchmarks = False\n");
    sim.tick(0);
    sim.run_job(100, job("alice"));
    sim.on(500, Event::JobExited);
    sim.is(Claimed, Idle);
    // A second job on the same claim.
    let s = sim.on(600, Event::JobStarted { job: None });
    assert_eq!(numbers(&s), [Some(11)]);
    let s = sim.on(1250, Event::JobExited);
    assert_eq!(numbers(&s), [Some(12)]);
    assert_eq!(s.next_check, 1255);
    // CLAIM_WORKLIFE = 1200 s from the claim at 100.
    assert!(sim.tick(1300).transitions.is_empty());
    let s = sim.tick(1301);
    assert_eq!(numbers(&s), [Some(10), Some(22), Some(1)]);
    assert_eq!(knobs(&s), ["CLAIM_WORKLIFE", "-", "IsOwner"]);
    assert_eq!(s.action_kinds(), [ReleaseClaim]);
    sim.is(Unclaimed, Idle);
}

#[test]
fn run_only_when_idle_desktop_policy_uses_the_cpu_busy_latch() {
    let mut sim = Sim::new("use POLICY : DESKTOP\nRunBenchmarks = False\n");
    sim.tick(0);
    sim.is(Unclaimed, Idle);
    sim.run_job(10, job("alice"));
    // Someone else's process loads the CPU at 200: CpuBusy latches then.
    sim.set("LoadAvg = 1.6; CondorLoadAvg = 1.0");
    assert!(sim.tick(200).transitions.is_empty());
    // SUSPEND once the CPU has been busy for more than 2 minutes.
    assert!(sim.tick(320).transitions.is_empty());
    let s = sim.tick(321);
    assert_eq!(numbers(&s), [Some(14)]);
    assert_eq!(knobs(&s), ["SUSPEND"]);
    // The load goes; CONTINUE needs the activity 10 s old, CPU idle and
    // the keyboard idle for ContinueIdleTime.
    sim.set("LoadAvg = 1.0");
    let s = sim.tick(340);
    assert_eq!(numbers(&s), [Some(15)]);
}

/// The manual's desktop/non-desktop policy, with `IsDesktop`.
const DESKTOP_TOGGLE: &str = r#"
RunBenchmarks = False
STARTD_ATTRS = IsDesktop
START = ( ($(CPUIdle) || (State != "Unclaimed" && State != "Owner")) && (IsDesktop =!= True || (KeyboardIdle > $(StartIdleTime))) )
WANT_SUSPEND = ( $(SmallJob) || $(JustCpu) || $(IsVanilla) )
WANT_VACATE = ( $(ActivationTimer) > 10 * $(MINUTE) || $(IsVanilla) )
SUSPEND = ( ((CpuBusyTime > 2 * $(MINUTE)) && ($(ActivationTimer) > 90)) || ( IsDesktop =?= True && $(KeyboardBusy) ) )
CONTINUE = ( $(CPUIdle) && ($(ActivityTimer) > 300) && (IsDesktop =!= True || (KeyboardIdle > $(ContinueIdleTime))) )
PREEMPT = ( ((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || (SUSPEND && (WANT_SUSPEND == False)) )
MAXJOBRETIREMENTTIME = (IsDesktop =!= True) * 0
MachineMaxVacateTime = 10 * $(MINUTE)
KILL = False
CPUIdle = ($(NonCondorLoadAvg) <= $(BackgroundLoad))
NonCondorLoadAvg = (LoadAvg - CondorLoadAvg)
KeyboardBusy = (KeyboardIdle < $(MINUTE))
JustCpu = False
ActivationTimer = (time() - JobStart)
"#;

#[test]
fn suspend_then_vacate_then_kill_on_a_desktop() {
    let mut sim = Sim::new(&format!("{DESKTOP_TOGGLE}IsDesktop = True\n"));
    sim.tick(0);
    sim.run_job(10, job("alice"));
    sim.set(TYPING);
    let s = sim.tick(50);
    assert_eq!(numbers(&s), [Some(14)]);
    let s = sim.tick(651);
    assert_eq!(numbers(&s), [Some(16), Some(18)]);
    assert_eq!(s.action_kinds(), [ContinueJob, VacateJob { max_vacate_time: 600 }]);
    // The job ignores the soft kill: hard kill at MachineMaxVacateTime
    // (the startd stays in Vacating), the starter is killed 30 s later.
    assert_eq!(s.next_check, 656);
    assert!(sim.tick(1250).actions.is_empty());
    let s = sim.tick(1251);
    assert_eq!(s.action_kinds(), [KillJob]);
    assert_eq!(s.actions[0].cause.knob(), Some("MachineMaxVacateTime"));
    sim.is(Preempting, Vacating);
    let s = sim.tick(1281);
    assert_eq!(s.action_kinds(), [KillStarter]);
    // IS_OWNER is left at its default (False): straight back to Unclaimed.
    let s = sim.on(1282, Event::JobExited);
    assert_eq!(numbers(&s), [Some(22), Some(1)]);
}

#[test]
fn the_same_policy_on_a_cluster_node_ignores_the_keyboard() {
    let mut sim = Sim::new(DESKTOP_TOGGLE);
    sim.set(TYPING);
    sim.tick(0);
    sim.is(Unclaimed, Idle);
    sim.run_job(10, job("alice"));
    assert!(sim.tick(500).transitions.is_empty());
}

#[test]
fn kill_cuts_vacating_short() {
    let mut sim = Sim::new("RunBenchmarks = False\nPREEMPT = KeyboardIdle < 60\nKILL = $(ActivityTimer) > 30\n");
    sim.tick(0);
    sim.run_job(10, job("alice"));
    sim.set(TYPING);
    let s = sim.tick(100);
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
    assert!(sim.tick(130).transitions.is_empty());
    let s = sim.tick(131);
    assert_eq!(numbers(&s), [Some(21)]);
    assert_eq!(knobs(&s), ["KILL"]);
    assert_eq!(s.action_kinds(), [KillJob]);
}

#[test]
fn want_hold_holds_instead_of_evicting() {
    let mut sim = Sim::new("RunBenchmarks = False\nPREEMPT = KeyboardIdle < 60\nWANT_HOLD = True\n");
    sim.tick(0);
    sim.run_job(10, job("alice"));
    sim.set(TYPING);
    let s = sim.tick(100);
    assert_eq!(s.action_kinds(), [HoldJob { soft: true }]);
}

#[test]
fn the_jobs_max_vacate_time_wins_when_shorter() {
    let mut sim = Sim::new("RunBenchmarks = False\nPREEMPT = KeyboardIdle < 60\n");
    sim.tick(0);
    let mut j = job("alice");
    j.insert("JobMaxVacateTime", 42);
    sim.run_job(10, j);
    sim.set(TYPING);
    assert_eq!(sim.tick(100).action_kinds(), [VacateJob { max_vacate_time: 42 }]);
}

#[test]
fn retirement_ends_early_enough_to_vacate_within_it() {
    let mut sim = Sim::new("RunBenchmarks = False\nMaxJobRetirementTime = 600\nMachineMaxVacateTime = 60\n");
    sim.tick(0);
    sim.run_job(0, job("alice"));
    let s = sim.on(100, Event::Vacate { fast: false });
    assert_eq!(numbers(&s), [Some(13)]);
    sim.is(Claimed, Retiring);
    assert!(sim.tick(539).transitions.is_empty());
    let s = sim.tick(540); // 60 s of retirement left = the vacate time
    assert_eq!(numbers(&s), [Some(18)]);
    assert_eq!(knobs(&s), ["MaxJobRetirementTime"]);
    assert_eq!(s.action_kinds(), [VacateJob { max_vacate_time: 60 }]);
}

#[test]
fn suspension_does_not_count_against_retirement() {
    let mut sim = Sim::new(
        "RunBenchmarks = False\nMaxJobRetirementTime = 600\nMachineMaxVacateTime = 0\nWANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = KeyboardIdle > 120\n",
    );
    sim.tick(0);
    sim.run_job(0, job("alice"));
    sim.on(100, Event::Vacate { fast: false });
    sim.set(TYPING);
    let s = sim.tick(200);
    assert_eq!(numbers(&s), [Some(20)]);
    sim.set("KeyboardIdle = 500");
    let s = sim.tick(1000); // suspended 800 s: only 200 s of run time
    assert_eq!(numbers(&s), [Some(16)]);
    sim.is(Claimed, Retiring);
    assert!(sim.tick(1399).transitions.is_empty());
    let s = sim.tick(1400);
    assert_eq!(numbers(&s), [Some(18)]);
}

/// The manual's ranked research group, as on garrison's machine.
const BASS: &str = "RunBenchmarks = False\nRANK = (Owner == \"coltrane\") + (Owner == \"tyner\") + ((Owner == \"garrison\") * 10) + (Owner == \"jones\")\n";

#[test]
fn a_higher_ranked_job_preempts_by_rank() {
    let mut sim = Sim::new(BASS);
    sim.tick(0);
    sim.run_job(10, job("alice"));
    // jones ranks 1 > 0: with no retirement time the job is vacated at
    // once (the startd goes straight from Busy to Preempting, as its log
    // shows: no Retiring in between).
    let s = sim.on(100, Event::ClaimRequested { job: job("jones") });
    assert_eq!(s.action_kinds(), [AcceptClaim, VacateJob { max_vacate_time: 600 }]);
    assert_eq!(s.path(), [(Preempting, Vacating)]);
    assert_eq!(numbers(&s), [None]);
    assert!(sim.slot.preempting_claim().expect("waiting").by_rank());
    // The vacated job exits: jones's claim takes the slot (#23).
    let s = sim.on(110, Event::JobExited);
    assert_eq!(numbers(&s), [Some(23)]);
    assert_eq!(s.action_kinds(), [ReleaseClaim, AcceptClaim]);
    sim.is(Claimed, Idle);
    assert_eq!(sim.slot.claim().map(|c| c.rank()), Some(1.0));
    // jones's job runs; garrison (10) preempts it.
    sim.on(111, Event::JobStarted { job: None });
    let s = sim.on(200, Event::ClaimRequested { job: job("garrison") });
    assert_eq!(s.path(), [(Preempting, Vacating)]);
    // alice (0) cannot preempt garrison's claim once it runs.
    sim.on(210, Event::JobExited);
    assert_eq!(sim.slot.claim().map(|c| c.rank()), Some(10.0));
    let s = sim.on(220, Event::ClaimRequested { job: job("alice") });
    assert_eq!(s.action_kinds(), [RefuseClaim]);
    assert!(s.transitions.is_empty());
}

#[test]
fn an_equal_rank_preempts_by_priority_and_an_idle_claim_goes_at_once() {
    let mut sim = Sim::new(BASS);
    sim.tick(0);
    sim.on(10, Event::Matched);
    sim.on(10, Event::ClaimRequested { job: job("jones") });
    sim.is(Claimed, Idle);
    let s = sim.on(20, Event::ClaimRequested { job: job("tyner") });
    assert!(sim.slot.preempting_claim().is_none());
    // Claimed/Idle with a preempting claim: Preempting (#10), then the new
    // claim (#23) since no job had to leave.
    assert_eq!(numbers(&s), [Some(10), Some(23)]);
    assert!(s.transitions[0].cause.to_string().contains("user priority"));
    assert_eq!(
        sim.slot.claim().map(|c| c.job().eval_attr("Owner").as_str().map(str::to_string)),
        Some(Some("tyner".into()))
    );
}

#[test]
fn a_long_retirement_unretires_when_the_preempting_claim_goes_away() {
    let mut sim = Sim::new(&format!("{BASS}MaxJobRetirementTime = 3600\n"));
    sim.tick(0);
    sim.run_job(10, job("alice"));
    let s = sim.on(100, Event::ClaimRequested { job: job("jones") });
    assert_eq!(numbers(&s), [Some(13)]);
    assert_eq!(s.action_kinds(), [AcceptClaim]);
    let s = sim.on(200, Event::PreemptingClaimWithdrawn);
    assert_eq!(numbers(&s), [Some(19)]);
    sim.is(Claimed, Busy);
}

#[test]
fn a_retiring_job_that_finishes_hands_over_to_the_preempting_claim() {
    let mut sim = Sim::new(&format!("{BASS}MaxJobRetirementTime = 3600\n"));
    sim.tick(0);
    sim.run_job(10, job("alice"));
    sim.on(100, Event::ClaimRequested { job: job("garrison") });
    let s = sim.on(2000, Event::JobExited);
    assert_eq!(s.path(), [(Preempting, Vacating), (Claimed, Idle)]);
    assert_eq!(numbers(&s), [Some(18), Some(23)]);
    assert_eq!(s.action_kinds(), [ReleaseClaim, AcceptClaim]);
}

/// The manual's test-job policy on top of the UWCS desktop.
const COLTRANE: &str = "use POLICY : UWCS_DESKTOP\nRunBenchmarks = False\n\
START = ($(START)) || Owner == \"coltrane\"\n\
SUSPEND = ($(SUSPEND)) && Owner != \"coltrane\"\n\
CONTINUE = $(CONTINUE)\n\
PREEMPT = ($(PREEMPT)) && Owner != \"coltrane\"\n\
KILL = $(KILL)\n";

#[test]
fn test_jobs_from_one_user_run_whatever_the_owner_does() {
    let mut sim = Sim::new(COLTRANE);
    sim.set(TYPING);
    // FALSE || UNDEFINED is UNDEFINED: not the owner's, so Unclaimed.
    let s = sim.tick(0);
    assert_eq!(numbers(&s), [Some(1)]);
    sim.run_job(10, job("coltrane"));
    for t in [100, 800, 2000] {
        assert!(sim.tick(t).transitions.is_empty(), "at {t}");
    }
    sim.on(2100, Event::JobExited);
    // Someone else's claim while the owner types: START is false with the
    // job, the claim is dropped (#10), and the slot is Unclaimed again.
    sim.on(2200, Event::ClaimReleased);
    sim.is(Unclaimed, Idle);
    sim.on(2300, Event::Matched);
    let s = sim.on(2300, Event::ClaimRequested { job: job("alice") });
    assert_eq!(numbers(&s), [Some(9), Some(10), Some(22), Some(1)]);
    assert_eq!(knobs(&s)[1], "START");
    let s = sim.on(2301, Event::JobStarted { job: None });
    assert_eq!(s.action_kinds(), [RefuseActivation]);
}

/// The manual's time-of-day policy (2024-01-01 was a Monday).
const AFTER_HOURS: &str = "RunBenchmarks = False\n\
WorkHours = ( (ClockMin >= 480 && ClockMin < 1020) && (ClockDay > 0 && ClockDay < 6) )\n\
AfterHours = ( (ClockMin < 480 || ClockMin >= 1020) || (ClockDay == 0 || ClockDay == 6) )\n\
START = $(AfterHours)\n\
CPUBusy = ((LoadAvg - CondorLoadAvg) >= 0.5)\n\
KeyboardBusy = (KeyboardIdle < 60)\n\
MachineBusy = ( $(WorkHours) || $(CPUBusy) || $(KeyboardBusy) )\n\
PREEMPT = $(MachineBusy)\n\
IS_OWNER = (START =?= False)\n";
const MONDAY: i64 = 1_704_067_200;

#[test]
fn jobs_run_only_after_hours() {
    let h = 3600;
    let mut sim = Sim::at(AFTER_HOURS, MONDAY + 10 * h);
    assert!(sim.tick(MONDAY + 10 * h).transitions.is_empty());
    sim.is(Owner, Idle);
    let s = sim.tick(MONDAY + 17 * h);
    assert_eq!(numbers(&s), [Some(1)]);
    sim.run_job(MONDAY + 18 * h, job("alice"));
    assert!(sim.tick(MONDAY + 31 * h).transitions.is_empty()); // Tuesday 07:00
    let s = sim.tick(MONDAY + 32 * h); // Tuesday 08:00
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
    assert_eq!(knobs(&s)[0], "PREEMPT");
    let s = sim.on(MONDAY + 32 * h + 5, Event::JobExited);
    assert_eq!(numbers(&s), [Some(22)]);
    sim.is(Owner, Idle);
    // Saturday is after hours all day.
    let s = sim.tick(MONDAY + 5 * 24 * h + 12 * h);
    assert_eq!(numbers(&s), [Some(1)]);
}

#[test]
fn the_manuals_default_policy_never_preempts() {
    let mut sim = Sim::new(
        "RunBenchmarks = False\nWANT_SUSPEND = False\nWANT_VACATE = False\nSTART = True\nSUSPEND = False\nCONTINUE = True\nPREEMPT = False\nMachineMaxVacateTime = 10 * $(MINUTE)\nKILL = False\n",
    );
    sim.tick(0);
    sim.run_job(5, job("alice"));
    sim.set("KeyboardIdle = 0; LoadAvg = 4.0");
    assert!(sim.tick(10_000).transitions.is_empty());
    // condor_vacate still evicts: WANT_VACATE only matters when PREEMPT
    // was true, so the job is vacated, not killed.
    let s = sim.on(10_001, Event::Vacate { fast: false });
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
    let s = sim.on(10_002, Event::Vacate { fast: true });
    assert_eq!(numbers(&s), [Some(21)]);
    assert_eq!(s.action_kinds(), [KillJob]);
}

#[test]
fn match_timeout_returns_an_unclaimed_match() {
    let mut sim = Sim::new("RunBenchmarks = False\nMATCH_TIMEOUT = 120\n");
    sim.tick(0);
    let s = sim.on(100, Event::Matched);
    assert_eq!(numbers(&s), [Some(6)]);
    assert_eq!(s.next_check, 220);
    assert!(sim.tick(219).transitions.is_empty());
    let s = sim.tick(220);
    assert_eq!(numbers(&s), [Some(8), Some(1)]);
    assert_eq!(knobs(&s), ["MATCH_TIMEOUT", "IsOwner"]);
    sim.is(Unclaimed, Idle);
}

#[test]
fn a_claim_can_skip_the_matched_state() {
    let mut sim = Sim::new("RunBenchmarks = False\n");
    sim.tick(0);
    let s = sim.on(10, Event::ClaimRequested { job: job("alice") });
    assert_eq!(numbers(&s), [Some(5)]);
    // Released while idle: Preempting (#10), Owner (#22), Unclaimed (#1).
    let s = sim.on(20, Event::ClaimReleased);
    assert_eq!(numbers(&s), [Some(10), Some(22), Some(1)]);
}

#[test]
fn benchmarks_run_once_when_never_run() {
    let mut sim = Sim::new("");
    let s = sim.tick(0);
    assert_eq!(numbers(&s), [Some(1), Some(3)]);
    assert_eq!(s.action_kinds(), [RunBenchmarks]);
    let s = sim.on(30, Event::BenchmarksDone);
    assert_eq!(numbers(&s), [Some(4)]);
    assert_eq!(sim.slot.last_benchmark(), 30);
    assert!(sim.tick(400).transitions.is_empty());
}

#[test]
fn periodic_checkpoints_of_jobs_that_take_the_signal() {
    let mut sim = Sim::new("RunBenchmarks = False\n");
    sim.tick(0);
    let mut j = job("alice");
    j.insert("WantCheckpointSignal", true);
    sim.run_job(0, j);
    // The default PERIODIC_CHECKPOINT: 180 minutes (the random part fixed
    // at the middle of its range).
    assert!(sim.tick(180 * 60).actions.is_empty());
    let s = sim.tick(180 * 60 + 1);
    assert_eq!(s.action_kinds(), [Checkpoint]);
    assert!(sim.tick(180 * 60 + 5).actions.is_empty());
}

#[test]
fn draining_an_unclaimed_slot_and_canceling() {
    let mut sim = Sim::new("RunBenchmarks = False\n");
    sim.tick(0);
    let s = sim.on(10, Event::Drain { how: DrainHow::Graceful, resume_on_completion: false });
    assert_eq!(numbers(&s), [Some(37), Some(33)]);
    sim.is(Drained, Idle);
    let s = sim.on(20, Event::Matched);
    assert!(s.transitions.is_empty());
    let s = sim.on(30, Event::CancelDrain);
    assert_eq!(numbers(&s), [Some(34), Some(1)]);
}

#[test]
fn draining_a_busy_slot_retires_its_job_then_resumes() {
    let mut sim = Sim::new("RunBenchmarks = False\nMaxJobRetirementTime = 1000\nMachineMaxVacateTime = 0\n");
    sim.tick(0);
    sim.run_job(0, job("alice"));
    let s = sim.on(10, Event::Drain { how: DrainHow::Graceful, resume_on_completion: true });
    assert_eq!(numbers(&s), [Some(13)]);
    let s = sim.on(500, Event::JobExited);
    // Owner/Idle leaves for Unclaimed as it is entered (IS_OWNER is
    // false), and Unclaimed for Drained; drained, the slot resumes.
    assert_eq!(
        s.path(),
        [
            (Preempting, Vacating),
            (Owner, Idle),
            (Unclaimed, Idle),
            (Drained, Retiring),
            (Drained, Idle),
            (Owner, Idle),
            (Unclaimed, Idle)
        ]
    );
    assert!(!sim.slot.is_draining());
}

#[test]
fn quick_and_fast_draining() {
    let mut sim = Sim::new("RunBenchmarks = False\nMaxJobRetirementTime = 1000\n");
    sim.tick(0);
    sim.run_job(0, job("alice"));
    let s = sim.on(10, Event::Drain { how: DrainHow::Quick, resume_on_completion: false });
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
    assert_eq!(s.transitions[1].cause.to_string(), "draining (quick): no retirement");
    let s = sim.on(11, Event::Drain { how: DrainHow::Fast, resume_on_completion: false });
    assert_eq!(numbers(&s), [Some(21)]);
    let s = sim.on(12, Event::JobExited);
    assert_eq!(s.path(), [(Owner, Idle), (Unclaimed, Idle), (Drained, Retiring), (Drained, Idle)]);
}

const BACKFILL: &str =
    "RunBenchmarks = False\nENABLE_BACKFILL = True\nSTART_BACKFILL = KeyboardIdle > 600\nEVICT_BACKFILL = KeyboardIdle < 60\n";

#[test]
fn backfill_runs_while_idle_and_leaves_for_the_owner() {
    let mut sim = Sim::new(BACKFILL);
    let s = sim.tick(0);
    assert_eq!(numbers(&s), [Some(1), Some(7)]);
    assert_eq!(s.action_kinds(), [StartBackfill]);
    let s = sim.on(5, Event::BackfillStarted);
    assert_eq!(numbers(&s), [Some(26)]);
    sim.set(TYPING);
    let s = sim.tick(100);
    assert_eq!(numbers(&s), [Some(28)]);
    assert_eq!(knobs(&s), ["EVICT_BACKFILL"]);
    assert_eq!(s.action_kinds(), [KillBackfill]);
    let s = sim.on(110, Event::BackfillExited);
    assert_eq!(numbers(&s), [Some(30), Some(1)]);
    sim.is(Unclaimed, Idle);
}

#[test]
fn backfill_gives_way_to_a_match_and_to_a_claim() {
    let mut sim = Sim::new(BACKFILL);
    sim.tick(0);
    sim.on(5, Event::BackfillStarted);
    let s = sim.on(10, Event::Matched);
    assert_eq!(numbers(&s), [Some(28)]);
    let s = sim.on(20, Event::BackfillExited);
    assert_eq!(numbers(&s), [Some(32)]);
    sim.is(Matched, Idle);

    let mut sim = Sim::new(BACKFILL);
    sim.tick(0);
    sim.on(5, Event::BackfillStarted);
    sim.on(10, Event::ClaimRequested { job: job("alice") });
    sim.is(Backfill, Killing);
    let s = sim.on(20, Event::BackfillExited);
    assert_eq!(numbers(&s), [Some(31)]);
    sim.is(Claimed, Idle);
}

#[test]
fn vanilla_variants_win_for_vanilla_jobs() {
    let mut sim = Sim::new("RunBenchmarks = False\nPREEMPT = False\nPREEMPT_VANILLA = KeyboardIdle < 60\n");
    sim.tick(0);
    sim.run_job(0, job("alice"));
    sim.set(TYPING);
    let s = sim.tick(10);
    assert_eq!(knobs(&s)[0], "PREEMPT_VANILLA");
}

mod any_sequence {
    //! Random sequences of events and machine changes under each policy
    //! above: no panic, and the slot stays consistent.

    use super::*;
    use matchmaker::startd::transition_number;
    use proptest::prelude::*;

    fn allowed(s: State, a: Activity) -> bool {
        match s {
            Owner | Matched => a == Idle,
            Unclaimed => matches!(a, Idle | Benchmarking),
            Claimed => matches!(a, Idle | Busy | Suspended | Retiring),
            Preempting => matches!(a, Vacating | Killing),
            Backfill => matches!(a, Idle | Busy | Killing),
            Drained => matches!(a, Idle | Retiring),
        }
    }

    fn event(kind: u8, who: u8, how: u8) -> Event {
        let j = job(["alice", "jones", "garrison", "coltrane"][usize::from(who % 4)]);
        let drain = [DrainHow::Graceful, DrainHow::Quick, DrainHow::Fast][usize::from(how % 3)];
        match kind % 18 {
            15 => Event::ScheddGone,
            16 => Event::SuspendClaim,
            17 => Event::ContinueClaim,
            0..=2 => Event::Tick,
            3 => Event::Matched,
            4 | 5 => Event::ClaimRequested { job: j },
            6 => Event::PreemptingClaimWithdrawn,
            7 => Event::JobStarted { job: None },
            8 => Event::JobExited,
            9 => Event::ClaimReleased,
            10 => Event::Vacate { fast: how.is_multiple_of(2) },
            11 => Event::Drain { how: drain, resume_on_completion: how % 2 == 1 },
            12 => Event::CancelDrain,
            13 => Event::BenchmarksDone,
            _ => {
                if how.is_multiple_of(2) {
                    Event::BackfillStarted
                } else {
                    Event::BackfillExited
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn slots_stay_consistent(
            policy in 0usize..6,
            steps in proptest::collection::vec((1i64..400, any::<u8>(), any::<u8>(), any::<u8>(), 0usize..5, 0usize..3), 1..60),
        ) {
            let config = [
                UWCS.to_string(),
                "use POLICY : ALWAYS_RUN_JOBS\nMaxJobRetirementTime = 300\n".to_string(),
                format!("{DESKTOP_TOGGLE}IsDesktop = True\n"),
                format!("{BASS}MaxJobRetirementTime = 120\nMachineMaxVacateTime = 30\nKILL = $(ActivityTimer) > 20\n"),
                COLTRANE.to_string(),
                format!("{BACKFILL}PREEMPT = KeyboardIdle < 60\nWANT_VACATE = False\n"),
            ][policy].clone();
            let policy = Policy::parse_str(&config, "p.conf").expect("policy");
            let mut slot = Slot::new(0);
            let mut machine = ad(IDLE);
            let mut now = 0;
            for (dt, kind, who, how, keyboard, load) in steps {
                now += dt;
                machine.update(&ad(&format!(
                    "KeyboardIdle = {}; LoadAvg = {}",
                    [0, 30, 400, 1000, 3600][keyboard],
                    ["0.0", "0.4", "1.5"][load]
                )));
                let before = (slot.state(), slot.activity());
                let s = step(&policy, &slot, &machine, &event(kind, who, how), now);
                let mut at = before;
                for t in &s.transitions {
                    prop_assert_eq!(t.from, at);
                    prop_assert_eq!(t.number, transition_number(t.from, t.to));
                    at = t.to;
                }
                slot = s.slot;
                prop_assert_eq!(at, (slot.state(), slot.activity()));
                prop_assert!(allowed(slot.state(), slot.activity()), "{:?}", at);
                prop_assert_eq!(slot.claim().is_some(), matches!(slot.state(), Claimed | Preempting));
                prop_assert!(s.next_check > now);
                prop_assert!(s.transitions.len() < 64);
            }
        }
    }
}

#[test]
fn preempt_if_runtime_exceeds_sees_the_jobs_updates() {
    // HTCondor's PREEMPT_IF_RUNTIME_EXCEEDS reads the job's JobState and
    // JobCurrentStartDate, which the starter publishes.
    let mut sim = Sim::new("RunBenchmarks = False\nuse POLICY : PREEMPT_IF_RUNTIME_EXCEEDS(3600)\n");
    sim.tick(0);
    sim.run_job(100, job("alice"));
    sim.on(1000, Event::JobUpdated { changes: ad(r#"JobState = "Running"; JobCurrentStartDate = 100"#) });
    assert!(sim.tick(3700).transitions.is_empty());
    let s = sim.tick(3701);
    assert_eq!(knobs(&s)[0], "PREEMPT");
    assert_eq!(s.path(), [(Claimed, Retiring), (Preempting, Vacating)]);
}

#[test]
fn slot_one_reserved_for_interactive_jobs() {
    let config = "RunBenchmarks = False\nSTART = ( (MY.SlotID == 1) && (TARGET.InteractiveJob =?= True) )\n";
    let mut sim = Sim::new(config);
    sim.set("SlotID = 1");
    sim.tick(0);
    sim.is(Unclaimed, Idle); // IS_OWNER is False by default
    let mut interactive = job("alice");
    interactive.insert("InteractiveJob", true);
    sim.run_job(10, interactive);
    sim.on(100, Event::JobExited);
    sim.on(100, Event::ClaimReleased);
    sim.is(Unclaimed, Idle);
    // A batch job's claim is dropped as soon as START sees the job.
    let s = sim.on(200, Event::ClaimRequested { job: job("bob") });
    assert_eq!(numbers(&s), [Some(5), Some(10), Some(22), Some(1)]);
    assert_eq!(knobs(&s)[1], "START");
    // On slot 2 not even an interactive job is taken.
    let mut sim = Sim::new(config);
    sim.set("SlotID = 2");
    sim.tick(0);
    let mut interactive = job("alice");
    interactive.insert("InteractiveJob", true);
    let s = sim.on(10, Event::ClaimRequested { job: interactive });
    assert_eq!(s.path(), [(Claimed, Idle), (Preempting, Vacating), (Owner, Idle), (Unclaimed, Idle)]);
}

#[test]
fn a_big_memory_machine_prefers_bigger_jobs() {
    let mut sim =
        Sim::new("RunBenchmarks = False\nRANK = ImageSize\nMaxJobRetirementTime = 600\nMachineMaxVacateTime = 60\n");
    sim.tick(0);
    let small = ad(r#"Owner = "a"; JobUniverse = 5; ImageSize = 1000"#);
    let big = ad(r#"Owner = "b"; JobUniverse = 5; ImageSize = 5000000"#);
    sim.run_job(0, small.clone());
    let s = sim.on(10, Event::ClaimRequested { job: big.clone() });
    assert_eq!(numbers(&s), [Some(13)]);
    assert!(sim.slot.preempting_claim().expect("waiting").by_rank());
    // A smaller job cannot displace the waiting bigger one.
    let s = sim.on(20, Event::ClaimRequested { job: small });
    assert_eq!(s.action_kinds(), [RefuseClaim]);
    let s = sim.on(30, Event::JobExited);
    assert_eq!(numbers(&s), [Some(18), Some(23)]);
    assert_eq!(sim.slot.claim().map(|c| c.rank()), Some(5_000_000.0));
}

#[test]
fn the_claim_lease_runs_out_once_the_schedd_is_gone() {
    let mut sim = Sim::new("RunBenchmarks = False\n");
    sim.tick(0);
    let mut j = job("alice");
    j.insert("JobLeaseDuration", 600);
    sim.run_job(10, j);
    assert_eq!(sim.slot.claim().map(|c| c.lease()), Some((600, None)));
    assert!(sim.tick(5000).transitions.is_empty()); // the schedd keeps the lease
    sim.on(5000, Event::ScheddGone);
    let s = sim.tick(5005);
    assert!(s.transitions.is_empty());
    assert_eq!(s.next_check, 5010);
    assert!(sim.tick(5599).transitions.is_empty());
    let s = sim.tick(5600);
    assert_eq!(s.path(), [(Preempting, Killing)]);
    assert_eq!(knobs(&s), ["claim lease"]);
    assert_eq!(s.action_kinds(), [KillJob]);
    // Nobody to tell when the job is gone.
    let s = sim.on(5610, Event::JobExited);
    assert_eq!(numbers(&s), [Some(25), Some(1)]);
    assert!(s.actions.is_empty());
}

#[test]
fn a_running_starter_keeps_the_lease_when_the_schedd_asked_it_to() {
    let mut sim = Sim::new("RunBenchmarks = False\nALIVE_INTERVAL = 100\nCLAIM_WORKLIFE = -1\n");
    sim.tick(0);
    let mut j = job("alice");
    j.insert("StarterHandlesAlives", true);
    sim.run_job(10, j);
    // No JobLeaseDuration: MAX_CLAIM_ALIVES_MISSED (6) keep-alives of 100 s.
    assert_eq!(sim.slot.claim().map(|c| c.lease().0), Some(600));
    sim.on(100, Event::ScheddGone);
    assert!(sim.tick(2000).transitions.is_empty());
    sim.on(2000, Event::JobExited);
    sim.is(Claimed, Idle);
    assert!(sim.tick(2599).transitions.is_empty());
    let s = sim.tick(2600);
    assert_eq!(s.path(), [(Preempting, Killing), (Owner, Idle), (Unclaimed, Idle)]);
    assert!(s.actions.is_empty());
}

#[test]
fn retirement_cut_short_while_suspended_preempts_from_suspension() {
    // #17 needs MaxJobRetirementTime to fall during the suspension.
    let mut sim = Sim::new(
        "RunBenchmarks = False\nMaxJobRetirementTime = RetireFor\nMachineMaxVacateTime = 0\nWANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\nCONTINUE = False\n",
    );
    sim.set("RetireFor = 10000");
    sim.tick(0);
    sim.run_job(0, job("alice"));
    sim.on(100, Event::Vacate { fast: false });
    sim.set(TYPING);
    let s = sim.tick(200);
    assert_eq!(numbers(&s), [Some(20)]);
    sim.set("RetireFor = 0");
    let s = sim.tick(300);
    assert_eq!(numbers(&s), [Some(17)]);
    assert_eq!(s.action_kinds(), [ContinueJob, VacateJob { max_vacate_time: 0 }]);
}

#[test]
fn a_killed_job_hands_over_to_the_preempting_claim() {
    let mut sim = Sim::new(&format!("{BASS}KILL = True\n"));
    sim.tick(0);
    sim.run_job(10, job("alice"));
    let s = sim.on(100, Event::ClaimRequested { job: job("garrison") });
    assert_eq!(s.path(), [(Preempting, Vacating)]);
    let s = sim.tick(105);
    assert_eq!(numbers(&s), [Some(21)]);
    let s = sim.on(110, Event::JobExited);
    assert_eq!(numbers(&s), [Some(24)]);
    sim.is(Claimed, Idle);
}

#[test]
fn a_backfill_client_that_exits_is_started_again() {
    let mut sim = Sim::new(BACKFILL);
    sim.tick(0);
    sim.on(5, Event::BackfillStarted);
    let s = sim.on(50, Event::BackfillExited);
    assert_eq!(numbers(&s), [Some(27)]);
    assert_eq!(s.action_kinds(), [StartBackfill]);
    assert_eq!(s.next_check, 55); // polled while in Backfill
}

#[test]
fn draining_a_slot_in_use_by_its_owner() {
    let mut sim = Sim::new(UWCS);
    sim.set(TYPING);
    sim.tick(0);
    sim.is(Owner, Idle);
    let s = sim.on(10, Event::Drain { how: DrainHow::Graceful, resume_on_completion: false });
    assert_eq!(numbers(&s), [Some(36), Some(33)]);
    let s = sim.on(20, Event::CancelDrain);
    assert_eq!(numbers(&s), [Some(34)]); // the owner is still typing
    sim.is(Owner, Idle);
}

/// The manual's job-suspension policy on a one-core machine shown as two
/// slots (slot 2 suspendable). The manual's `NonSuspendableSlotState` lacks
/// a closing parenthesis; it is added here. `slot1_State` is what the
/// startd publishes for the other slot (`STARTD_SLOT_ATTRS = State`); the
/// caller supplies it.
const SUSPENDABLE: &str = r#"
RunBenchmarks = False
DETECTED_CORES = 1
IsSuspendableSlot = SlotID > $(DETECTED_CORES)
NonSuspendableSlotState = eval(strcat("slot",SlotID-$(DETECTED_CORES),"_State"))
STARTD_SLOT_ATTRS = $(STARTD_SLOT_ATTRS) State
STARTD_ATTRS = $(STARTD_ATTRS) IsSuspendableSlot NonSuspendableSlotState
MyNonSuspendableSlotIsIdle = (NonSuspendableSlotState =!= "Claimed" && NonSuspendableSlotState =!= "Preempting")
START = IsSuspendableSlot!=True && IsSuspendableJob=!=True || IsSuspendableSlot && IsSuspendableJob==True && $(MyNonSuspendableSlotIsIdle)
SUSPEND = IsSuspendableSlot && $(MyNonSuspendableSlotIsIdle)!=True
WANT_SUSPEND = $(SUSPEND)
CONTINUE = ($(SUSPEND)) != True
"#;

#[test]
fn the_manuals_broken_suspension_example_is_reported() {
    let broken = SUSPENDABLE.replace(r#""_State"))"#, r#""_State")"#);
    let err = Policy::parse_str(&broken, "suspend.conf").unwrap_err();
    assert!(err.to_string().starts_with("NonSuspendableSlotState = eval("), "{err}");
}

#[test]
fn a_suspendable_slot_yields_to_its_twin() {
    let mut sim = Sim::new(SUSPENDABLE);
    sim.set(r#"SlotID = 2; slot1_State = "Unclaimed""#);
    sim.tick(0);
    let mut j = job("alice");
    j.insert("IsSuspendableJob", true);
    sim.run_job(10, j);
    // Slot 1 gets a (nonsuspendable) job: slot 2's job is suspended...
    sim.set(r#"slot1_State = "Claimed""#);
    let s = sim.tick(100);
    assert_eq!(numbers(&s), [Some(14)]);
    // ...and resumes when slot 1 is free again.
    sim.set(r#"slot1_State = "Unclaimed""#);
    let s = sim.tick(500);
    assert_eq!(numbers(&s), [Some(15)]);
    // A nonsuspendable job is not for slot 2.
    sim.on(600, Event::JobExited);
    let s = sim.on(600, Event::JobStarted { job: Some(job("bob")) });
    assert_eq!(s.action_kinds(), [RefuseActivation]);
}

#[test]
fn condor_suspend_holds_until_condor_continue() {
    let mut sim = Sim::new("RunBenchmarks = False\n");
    sim.tick(0);
    sim.run_job(10, job("alice"));
    let s = sim.on(100, Event::SuspendClaim);
    assert_eq!(numbers(&s), [Some(14)]);
    assert_eq!(s.action_kinds(), [SuspendJob]);
    // CONTINUE is True by default, but not for a suspension by command.
    assert!(sim.tick(500).transitions.is_empty());
    let s = sim.on(600, Event::ContinueClaim);
    assert_eq!(numbers(&s), [Some(15)]);
    assert_eq!(s.action_kinds(), [ContinueJob]);
    // The suspension does not count as run time.
    assert_eq!(sim.slot.claim().map(|c| c.job_run_time(600)), Some(90));
}
