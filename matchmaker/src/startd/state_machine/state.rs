//! A slot's states and activities, as the startd names them, and the
//! numbers the HTCondor manual gives the transitions between them.

use std::fmt;
use std::str::FromStr;

/// A slot's state: whether it is available to HTCondor and how far a
/// match has gone.
///
/// ```
/// use matchmaker::startd::State;
/// assert_eq!("claimed".parse::<State>()?, State::Claimed);
/// assert_eq!(State::Preempting.to_string(), "Preempting");
/// # Ok::<(), matchmaker::startd::UnknownName>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// In use by its owner, or otherwise not available to HTCondor
    /// (`IS_OWNER` is true). A slot starts here.
    Owner,
    /// Available, running nothing.
    Unclaimed,
    /// Matched by the negotiator, not yet claimed by the schedd.
    Matched,
    /// Claimed by a schedd.
    Claimed,
    /// Getting rid of a claim's job.
    Preempting,
    /// Running a backfill computation while otherwise idle.
    Backfill,
    /// Being drained (or drained): running nothing and taking nothing.
    Drained,
}

/// What a slot is doing within its state.
///
/// ```
/// use matchmaker::startd::Activity;
/// assert_eq!("Retiring".parse::<Activity>()?, Activity::Retiring);
/// # Ok::<(), matchmaker::startd::UnknownName>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Doing nothing for HTCondor.
    Idle,
    /// Running benchmarks (Unclaimed only).
    Benchmarking,
    /// Running a job (Claimed) or a backfill computation (Backfill).
    Busy,
    /// The claim's job is suspended.
    Suspended,
    /// Waiting for the job to finish before preempting it (Claimed), or
    /// for the other slots to drain (Drained).
    Retiring,
    /// The job was asked to exit gracefully (soft kill).
    Vacating,
    /// The job (or backfill computation) was told to exit at once.
    Killing,
}

/// A state or activity name that is not one of the startd's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{name}'")]
pub struct UnknownName {
    /// `state` or `activity`.
    pub what: &'static str,
    /// The name given.
    pub name: String,
}

impl State {
    /// Every state, in the manual's order.
    pub const ALL: [State; 7] = [
        State::Owner,
        State::Unclaimed,
        State::Matched,
        State::Claimed,
        State::Preempting,
        State::Backfill,
        State::Drained,
    ];

    /// The name the startd publishes in `State`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Owner => "Owner",
            State::Unclaimed => "Unclaimed",
            State::Matched => "Matched",
            State::Claimed => "Claimed",
            State::Preempting => "Preempting",
            State::Backfill => "Backfill",
            State::Drained => "Drained",
        }
    }
}

impl Activity {
    /// Every activity.
    pub const ALL: [Activity; 7] = [
        Activity::Idle,
        Activity::Benchmarking,
        Activity::Busy,
        Activity::Suspended,
        Activity::Retiring,
        Activity::Vacating,
        Activity::Killing,
    ];

    /// The name the startd publishes in `Activity`.
    pub fn as_str(self) -> &'static str {
        match self {
            Activity::Idle => "Idle",
            Activity::Benchmarking => "Benchmarking",
            Activity::Busy => "Busy",
            Activity::Suspended => "Suspended",
            Activity::Retiring => "Retiring",
            Activity::Vacating => "Vacating",
            Activity::Killing => "Killing",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for State {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<State, UnknownName> {
        State::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName { what: "state", name: s.to_string() })
    }
}

impl FromStr for Activity {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Activity, UnknownName> {
        Activity::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName { what: "activity", name: s.to_string() })
    }
}

/// The number the HTCondor manual's state and activity diagram gives the
/// transition from one state/activity pair to another (`None` for the
/// pairs it does not number, such as Owner to Claimed).
///
/// ```
/// use matchmaker::startd::{transition_number, Activity::*, State::*};
/// assert_eq!(transition_number((Owner, Idle), (Unclaimed, Idle)), Some(1));
/// assert_eq!(transition_number((Claimed, Busy), (Claimed, Suspended)), Some(14));
/// assert_eq!(transition_number((Preempting, Vacating), (Preempting, Killing)), Some(21));
/// ```
pub fn transition_number(from: (State, Activity), to: (State, Activity)) -> Option<u8> {
    use Activity::*;
    use State::*;
    let n = match (from, to) {
        ((Owner, _), (Unclaimed, _)) => 1,
        ((Unclaimed, _), (Owner, _)) => 2,
        ((Unclaimed, Idle), (Unclaimed, Benchmarking)) => 3,
        ((Unclaimed, Benchmarking), (Unclaimed, Idle)) => 4,
        ((Unclaimed, _), (Claimed, Idle)) => 5,
        ((Unclaimed, _), (Matched, _)) => 6,
        ((Unclaimed, _), (Backfill, Idle)) => 7,
        ((Matched, _), (Owner, _)) => 8,
        ((Matched, _), (Claimed, Idle)) => 9,
        ((Claimed, Idle), (Preempting, _)) => 10,
        ((Claimed, Idle), (Claimed, Busy)) => 11,
        ((Claimed, Busy), (Claimed, Idle)) => 12,
        ((Claimed, Busy), (Claimed, Retiring)) => 13,
        ((Claimed, Busy), (Claimed, Suspended)) => 14,
        ((Claimed, Suspended), (Claimed, Busy)) => 15,
        ((Claimed, Suspended), (Claimed, Retiring)) => 16,
        ((Claimed, Suspended), (Preempting, _)) => 17,
        ((Claimed, Retiring), (Preempting, _)) => 18,
        ((Claimed, Retiring), (Claimed, Busy)) => 19,
        ((Claimed, Retiring), (Claimed, Suspended)) => 20,
        ((Preempting, Vacating), (Preempting, Killing)) => 21,
        ((Preempting, Vacating), (Owner, _)) => 22,
        ((Preempting, Vacating), (Claimed, Idle)) => 23,
        ((Preempting, Killing), (Claimed, Idle)) => 24,
        ((Preempting, Killing), (Owner, _)) => 25,
        ((Backfill, Idle), (Backfill, Busy)) => 26,
        ((Backfill, Busy), (Backfill, Idle)) => 27,
        ((Backfill, Busy), (Backfill, Killing)) => 28,
        ((Backfill, Killing), (Backfill, Idle)) => 29,
        ((Backfill, Idle | Killing), (Owner, _)) => 30,
        ((Backfill, Idle | Killing), (Claimed, Idle)) => 31,
        ((Backfill, Idle | Killing), (Matched, _)) => 32,
        ((Drained, Retiring), (Drained, Idle)) => 33,
        ((Drained, Idle), (Owner, _)) => 34,
        ((Drained, Retiring), (Owner, _)) => 35,
        ((Owner, _), (Drained, Retiring)) => 36,
        ((Unclaimed, _), (Drained, Retiring)) => 37,
        _ => return None,
    };
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in State::ALL {
            assert_eq!(s.as_str().parse::<State>(), Ok(s));
        }
        for a in Activity::ALL {
            assert_eq!(a.as_str().to_lowercase().parse::<Activity>(), Ok(a));
        }
        assert!("Busy".parse::<State>().is_err());
    }

    #[test]
    fn every_numbered_transition_is_known() {
        let mut seen = std::collections::BTreeSet::new();
        for fs in State::ALL {
            for fa in Activity::ALL {
                for ts in State::ALL {
                    for ta in Activity::ALL {
                        if let Some(n) = transition_number((fs, fa), (ts, ta)) {
                            seen.insert(n);
                        }
                    }
                }
            }
        }
        assert_eq!(seen, (1..=37).collect());
    }
}
