//! The attribute and knob names the state machine reads and writes,
//! interned once.

use std::sync::OnceLock;

use classad::{Expr, Name};

use super::{Activity, State};

/// The names the state machine reads and writes, interned once.
pub(super) struct Names {
    pub(super) state: Name,
    pub(super) activity: Name,
    pub(super) entered_current_state: Name,
    pub(super) entered_current_activity: Name,
    pub(super) my_current_time: Name,
    pub(super) clock_min: Name,
    pub(super) clock_day: Name,
    pub(super) last_benchmark: Name,
    pub(super) requirements: Name,
    pub(super) remote_user: Name,
    pub(super) remote_owner: Name,
    pub(super) job_id: Name,
    pub(super) job_start: Name,
    pub(super) last_periodic_checkpoint: Name,
    pub(super) current_rank: Name,
    pub(super) user: Name,
    pub(super) owner: Name,
    pub(super) cluster_id: Name,
    pub(super) proc_id: Name,
    pub(super) want_checkpoint_signal: Name,
    pub(super) starter_handles_alives: Name,
    pub(super) job_universe: Name,
    pub(super) max_job_retirement_time: Name,
    pub(super) job_max_vacate_time: Name,
    pub(super) kill_sig_timeout: Name,
    pub(super) job_lease_duration: Name,
    pub(super) machine_max_vacate_time: Name,
    pub(super) claim_worklife: Name,
    pub(super) rank: Name,
    pub(super) start: Knob,
    pub(super) is_owner: Knob,
    pub(super) want_suspend: Knob,
    pub(super) want_vacate: Knob,
    pub(super) want_hold: Knob,
    pub(super) periodic_checkpoint: Knob,
    pub(super) kill: Knob,
    pub(super) run_benchmarks: Knob,
    pub(super) start_backfill: Knob,
    pub(super) evict_backfill: Knob,
    pub(super) preempt: Knob,
    pub(super) suspend: Knob,
    pub(super) cont: Knob,
    /// `Requirements` of an available slot: `START`.
    pub(super) start_ref: Expr,
    /// The values of `State`, by [`State`].
    pub(super) states: Vec<Expr>,
    /// The values of `Activity`, by [`Activity`].
    pub(super) activities: Vec<Expr>,
}

/// A policy expression's name, and the names of its `_VANILLA` and `_VM`
/// forms when the startd reads them first.
#[derive(Clone, Copy)]
pub(super) struct Knob {
    pub(super) name: Name,
    pub(super) variants: Option<(Name, Name)>,
}

impl Knob {
    fn plain(name: &str) -> Knob {
        Knob { name: Name::new(name), variants: None }
    }

    fn with_variants(name: &str) -> Knob {
        let vanilla = Name::new(&format!("{name}_VANILLA"));
        let vm = Name::new(&format!("{name}_VM"));
        Knob { name: Name::new(name), variants: Some((vanilla, vm)) }
    }
}

pub(super) fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| Names {
        state: Name::new("State"),
        activity: Name::new("Activity"),
        entered_current_state: Name::new("EnteredCurrentState"),
        entered_current_activity: Name::new("EnteredCurrentActivity"),
        my_current_time: Name::new("MyCurrentTime"),
        clock_min: Name::new("ClockMin"),
        clock_day: Name::new("ClockDay"),
        last_benchmark: Name::new("LastBenchmark"),
        requirements: Name::new("Requirements"),
        remote_user: Name::new("RemoteUser"),
        remote_owner: Name::new("RemoteOwner"),
        job_id: Name::new("JobId"),
        job_start: Name::new("JobStart"),
        last_periodic_checkpoint: Name::new("LastPeriodicCheckpoint"),
        current_rank: Name::new("CurrentRank"),
        user: Name::new("User"),
        owner: Name::new("Owner"),
        cluster_id: Name::new("ClusterId"),
        proc_id: Name::new("ProcId"),
        want_checkpoint_signal: Name::new("WantCheckpointSignal"),
        starter_handles_alives: Name::new("StarterHandlesAlives"),
        job_universe: Name::new("JobUniverse"),
        max_job_retirement_time: Name::new("MaxJobRetirementTime"),
        job_max_vacate_time: Name::new("JobMaxVacateTime"),
        kill_sig_timeout: Name::new("KillSigTimeout"),
        job_lease_duration: Name::new("JobLeaseDuration"),
        machine_max_vacate_time: Name::new("MachineMaxVacateTime"),
        claim_worklife: Name::new("CLAIM_WORKLIFE"),
        rank: Name::new("Rank"),
        start: Knob::plain("START"),
        is_owner: Knob::plain("IsOwner"),
        want_suspend: Knob::with_variants("WANT_SUSPEND"),
        want_vacate: Knob::with_variants("WANT_VACATE"),
        want_hold: Knob::plain("WANT_HOLD"),
        periodic_checkpoint: Knob::plain("PERIODIC_CHECKPOINT"),
        kill: Knob::with_variants("KILL"),
        run_benchmarks: Knob::plain("RunBenchmarks"),
        start_backfill: Knob::plain("START_BACKFILL"),
        evict_backfill: Knob::plain("EVICT_BACKFILL"),
        preempt: Knob::with_variants("PREEMPT"),
        suspend: Knob::with_variants("SUSPEND"),
        cont: Knob::with_variants("CONTINUE"),
        start_ref: classad::parse_expr("START").unwrap_or_else(|_| Expr::from(true)),
        states: State::ALL.iter().map(|s| Expr::from(s.as_str())).collect(),
        activities: Activity::ALL.iter().map(|a| Expr::from(a.as_str())).collect(),
    })
}
