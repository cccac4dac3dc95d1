//! The startd state machine against a real condor_startd's StartLog
//! (HTCondor 23.9.6): for each policy of `tests/data/startd/startlog`, a
//! real startd with one slot ran one sleep job (`capture.sh` there). The
//! events its log shows (the claim, the shadow's activation, the starter's
//! exit, the schedd's release of the claim) are replayed at the same times
//! through `matchmaker::startd::step`, with the startd's own periodic
//! evaluations in between (ours every `POLLING_INTERVAL`, and one where the
//! log shows the real startd's timer changed something: its timer runs at
//! its own phase, and a release that follows a preemption within the same
//! second must find the slot already preempting), and the slot must go
//! through the same states and activities, each change within a polling
//! interval of the real one.

use std::path::{Path, PathBuf};

use classad::format::{self, Format};
use classad::ClassAd;
use matchmaker::startd::{step, Activity, Event, Policy, Slot, State};

fn dir(policy: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/startd/startlog").join(policy)
}

fn read(policy: &str, file: &str) -> String {
    let path = dir(policy).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a StartLog line says: a change of state and/or activity, or an
/// event that drives the slot.
#[derive(Debug, Clone, PartialEq)]
enum Line {
    Change {
        from: (Option<State>, Option<Activity>),
        to: (Option<State>, Option<Activity>),
    },
    Claim,
    Activate,
    StarterExit,
    Release,
    /// A release the startd logs as ignored (the slot is already
    /// preempting).
    IgnoredRelease,
}

/// Seconds since midnight of an `HH:MM:SS.mmm` time stamp.
fn seconds(stamp: &str) -> f64 {
    let parts: Vec<f64> = stamp.split(':').map(|p| p.parse().expect("time stamp")).collect();
    assert_eq!(parts.len(), 3, "time stamp {stamp}");
    parts[0] * 3600.0 + parts[1] * 60.0 + parts[2]
}

fn state_activity(text: &str) -> (Option<State>, Option<Activity>) {
    match text.split_once('/') {
        Some((s, a)) => (Some(s.parse().expect("state")), Some(a.parse().expect("activity"))),
        None => match text.parse::<State>() {
            Ok(s) => (Some(s), None),
            Err(_) => (None, Some(text.parse().expect("state or activity"))),
        },
    }
}

/// The StartLog excerpt as (time, what) pairs.
fn startlog(policy: &str) -> Vec<(f64, Line)> {
    let mut out = Vec::new();
    for l in read(policy, "startlog.txt").lines() {
        let Some((stamp, msg)) = l.split_once(' ') else { continue };
        let t = seconds(stamp);
        let msg = msg.strip_prefix("slot1: ").unwrap_or(msg);
        let line = if let Some(rest) = msg
            .strip_prefix("Changing state and activity: ")
            .or_else(|| msg.strip_prefix("Changing state: "))
            .or_else(|| msg.strip_prefix("Changing activity: "))
        {
            let (from, to) = rest.split_once(" -> ").expect("a change");
            Line::Change { from: state_activity(from.trim()), to: state_activity(to.trim()) }
        } else if msg.starts_with("State change: claiming protocol successful") {
            Line::Claim
        } else if msg.starts_with("Got activate_claim request") {
            Line::Activate
        } else if msg.starts_with("Starter pid") && msg.contains("exited") {
            Line::StarterExit
        } else if msg.starts_with("Got RELEASE_CLAIM") && msg.ends_with("ignoring.") {
            Line::IgnoredRelease
        } else if msg.starts_with("State change: received RELEASE_CLAIM") {
            Line::Release
        } else {
            continue;
        };
        out.push((t, line));
    }
    out
}

/// The real slot's (state, activity) after each change, with the time.
fn real_path(log: &[(f64, Line)]) -> Vec<(f64, State, Activity)> {
    let mut cur = (State::Owner, Activity::Idle);
    let mut out = Vec::new();
    for (t, line) in log {
        if let Line::Change { from, to } = line {
            let was = (from.0.unwrap_or(cur.0), from.1.unwrap_or(cur.1));
            assert_eq!(was, cur, "at {t}: the log changes from {was:?}, the slot was {cur:?}");
            cur = (to.0.unwrap_or(cur.0), to.1.unwrap_or(cur.1));
            out.push((*t, cur.0, cur.1));
        }
    }
    out
}

/// Replays the log's events through `step`, with the startd's periodic
/// evaluations (`Step::next_check`) in between; gives our path.
fn replay(policy_name: &str, log: &[(f64, Line)]) -> Vec<(f64, State, Activity)> {
    let pool = std::fs::read_to_string(dir("pool.conf")).expect("pool.conf");
    let text = format!("{pool}\n{}", read(policy_name, "policy.conf"));
    let policy = Policy::parse_str(&text, "policy.conf").expect("policy");
    let ads = format::parse_ads(&read(policy_name, "job.ad"), Some(Format::Old)).expect("job.ad");
    let job: ClassAd = ads.into_iter().next().expect("one job ad");
    let machine = ClassAd::new();
    let t0 = log.first().map(|(t, _)| t.floor() as i64).expect("a log");
    let mut slot = Slot::new(t0);
    let mut out = Vec::new();
    let mut next = t0;
    let events: Vec<(i64, Event, bool)> = log
        .iter()
        .map(|(t, line)| {
            let event = match line {
                Line::Claim => Event::ClaimRequested { job: job.clone() },
                Line::Activate => Event::JobStarted { job: None },
                Line::StarterExit => Event::JobExited,
                Line::Release | Line::IgnoredRelease => Event::ClaimReleased,
                // the startd evaluated its policy here (its polling timer
                // runs at its own phase; the log shows it where it changed
                // something)
                Line::Change { .. } => Event::Tick,
            };
            (t.floor() as i64, event, *line == Line::IgnoredRelease)
        })
        .collect();
    let end = log.last().map(|(t, _)| t.ceil() as i64).unwrap_or(t0) + 1;
    let apply = |slot: &mut Slot, event: &Event, t: i64, ignored: bool, out: &mut Vec<(f64, State, Activity)>| -> i64 {
        let s = step(&policy, slot, &machine, event, t);
        if ignored {
            // ours may say why it ignores it; it must change nothing
            assert!(s.transitions.is_empty(), "{policy_name}: an ignored release at {t} changed {:?}", s.path());
        } else {
            assert!(s.warnings.is_empty(), "{policy_name}: warnings at {t}: {:?}", s.warnings);
        }
        for tr in &s.transitions {
            out.push((t as f64, tr.to.0, tr.to.1));
        }
        *slot = s.slot;
        s.next_check
    };
    for (t, event, ignored) in
        events.iter().map(|(t, e, i)| (*t, Some(e), *i)).chain(std::iter::once((end, None, false)))
    {
        while next <= t {
            let at = next;
            next = apply(&mut slot, &Event::Tick, at, false, &mut out).max(at + 1);
        }
        if let Some(event) = event {
            next = apply(&mut slot, event, t, ignored, &mut out).max(t);
        }
    }
    out
}

fn compare(policy: &str) -> Vec<(State, Activity)> {
    let log = startlog(policy);
    let real = real_path(&log);
    let ours = replay(policy, &log);
    let names = |p: &[(f64, State, Activity)]| p.iter().map(|(_, s, a)| format!("{s}/{a}")).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&real), "{policy}: states and activities, ours vs the StartLog's");
    let poll = 5.0;
    for ((t_ours, s, a), (t_real, ..)) in ours.iter().zip(&real) {
        assert!(
            (t_ours - t_real).abs() <= poll + 1.0,
            "{policy}: {s}/{a} at {t_ours} here, at {t_real} in the StartLog"
        );
    }
    real.iter().map(|(_, s, a)| (*s, *a)).collect()
}

use Activity::*;
use State::*;

/// The start of every run: the slot leaves Owner, is claimed, and its job
/// starts.
const CLAIMED_BUSY: [(State, Activity); 3] = [(Unclaimed, Idle), (Claimed, Idle), (Claimed, Busy)];

fn with_start(rest: &[(State, Activity)]) -> Vec<(State, Activity)> {
    CLAIMED_BUSY.iter().chain(rest).copied().collect()
}

/// `use POLICY : ALWAYS_RUN_JOBS`: the job runs to its end; the schedd,
/// out of jobs, releases the claim while the starter is still exiting.
#[test]
fn always_run_jobs() {
    assert_eq!(compare("always_run"), with_start(&[(Preempting, Vacating), (Owner, Idle), (Unclaimed, Idle)]));
}

/// `PREEMPT` after 20 s of run time, 40 s of retirement, 10 s of vacating
/// time: Retiring, then Vacating 30 s into the run.
#[test]
fn preempt_with_retirement_then_vacate() {
    assert_eq!(
        compare("preempt_retire"),
        with_start(&[(Claimed, Retiring), (Preempting, Vacating), (Owner, Idle), (Unclaimed, Idle)])
    );
}

/// `SUSPEND` from 20 s to 45 s of run time with `WANT_SUSPEND`, then
/// `CONTINUE`; the job finishes.
#[test]
fn suspend_then_continue_on_run_time() {
    assert_eq!(
        compare("suspend_continue"),
        with_start(&[(Claimed, Suspended), (Claimed, Busy), (Preempting, Vacating), (Owner, Idle), (Unclaimed, Idle)])
    );
}

/// `PREEMPT` after 20 s with no retirement and `WANT_VACATE = False`: the
/// job passes through Retiring and is killed at once.
#[test]
fn preempt_without_vacate_kills() {
    assert_eq!(
        compare("kill_no_vacate"),
        with_start(&[(Claimed, Retiring), (Preempting, Killing), (Owner, Idle), (Unclaimed, Idle)])
    );
}
