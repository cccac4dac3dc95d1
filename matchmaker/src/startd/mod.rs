//! The condor_startd's policy state machine.
//!
//! A slot is in one of seven [`State`]s (Owner, Unclaimed, Matched,
//! Claimed, Preempting, Backfill, Drained), each with an [`Activity`]
//! (Idle, Benchmarking, Busy, Suspended, Retiring, Vacating, Killing). The
//! startd moves it between them by evaluating its policy expressions
//! (`START`, `IS_OWNER`, `RANK`, `SUSPEND`, `CONTINUE`, `PREEMPT`,
//! `WANT_SUSPEND`, `WANT_VACATE`, `KILL`, `PERIODIC_CHECKPOINT`,
//! `MaxJobRetirementTime`, `MachineMaxVacateTime`, `CLAIM_WORKLIFE`) and
//! by its timers (`MATCH_TIMEOUT`, `KILLING_TIMEOUT`), and as the
//! negotiator, the schedd and the administrator act on it (matches, claim
//! requests, preempting claims by rank or user priority, job starts and
//! exits, releases, claim leases, `condor_vacate`, `condor_drain`,
//! `condor_suspend`).
//!
//! - [`Policy`]: the expressions and knobs, read once from a
//!   [configuration](crate::config) ([`Policy::from_config`]).
//! - [`Slot`]: what the startd remembers about a slot between
//!   evaluations.
//! - [`step`]: one [`Event`] at one time, as a pure function: the new
//!   slot, each [`Transition`] with the manual's number and its [`Cause`]
//!   (the expression and value, or the timer), the [`Action`]s (suspend,
//!   vacate, kill the job, tell the schedd...), and when to check next.
//!
//! [`slots`] is the other half of the startd: from a machine description
//! and the configuration to the slot ads it advertises, dynamic slots
//! carved from partitionable ones, and the `condor_defrag` draining policy.
//!
//! Nothing here reads a clock or starts a thread: the caller says what
//! time it is and what the machine looks like (`KeyboardIdle`,
//! `LoadAvg`, ...).
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::startd::{step, ActionKind, Activity, Event, Policy, Slot, State};
//!
//! // "Always run jobs", with a week of retirement for running jobs.
//! let policy = Policy::parse_str("use POLICY : ALWAYS_RUN_JOBS\nMaxJobRetirementTime = 7 * 24 * 3600\nRANK = Owner == \"boss\"\n", "always.conf")?;
//! let machine = ClassAd::new();
//! let alice: ClassAd = r#"[ Owner = "alice"; JobUniverse = 5 ]"#.parse()?;
//! let boss: ClassAd = r#"[ Owner = "boss"; JobUniverse = 5 ]"#.parse()?;
//!
//! let mut slot = step(&policy, &Slot::new(0), &machine, &Event::Tick, 0).slot;
//! for (t, event) in [(5, Event::ClaimRequested { job: alice }), (6, Event::JobStarted { job: None })] {
//!     slot = step(&policy, &slot, &machine, &event, t).slot;
//! }
//! // The boss's job ranks higher: alice's job retires rather than being killed...
//! let s = step(&policy, &slot, &machine, &Event::ClaimRequested { job: boss }, 100);
//! assert_eq!(s.slot.activity(), Activity::Retiring);
//! // ...and when it finishes, the boss's claim takes the slot.
//! let s = step(&policy, &s.slot, &machine, &Event::JobExited, 5_000);
//! assert_eq!((s.slot.state(), s.slot.activity()), (State::Claimed, Activity::Idle));
//! assert_eq!(s.transitions.iter().map(|t| t.number).collect::<Vec<_>>(), [Some(18), Some(23)]);
//! assert!(s.action_kinds().contains(&ActionKind::ReleaseClaim));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod slots;
mod state_machine;

pub use state_machine::{
    step, transition_number, Action, ActionKind, Activity, Cause, Claim, DrainHow, Event, Outcome, Pending, Policy,
    PolicyAd, PolicyError, Slot, State, Step, Transition, UnknownName,
};
