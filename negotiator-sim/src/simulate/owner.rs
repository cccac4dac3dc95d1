//! The owners of desktop machines: when they use the keyboard, and the
//! load they put on the machine, drawn from a seeded model.
//!
//! An owner's use of a machine is a list of sessions (from when to when
//! someone is at the keyboard), drawn once for the whole run from the
//! machine's own random stream. During a session the keyboard and the
//! console are busy (`KeyboardIdle` and `ConsoleIdle` are 0) and the
//! owner's programs add `load` to `LoadAvg`; after it, both idle times
//! count from the session's end. Before the first session the machine has
//! been idle for an hour. Sessions start as a Poisson process, steady or
//! following the day (`1 + a·cos(2π(t − peak)/1 day)`, as the users'
//! submissions do), or at fixed times of day; their lengths follow a
//! [`Distribution`].
//!
//! ```
//! use negotiator_sim::simulate::owner::{OwnerActivity, OwnerModel, Sessions};
//! use negotiator_sim::simulate::random::{Distribution, Rng};
//!
//! // Someone sits at the machine for 30 minutes at 9:00 every day.
//! let model = OwnerModel {
//!     sessions: Sessions::Periodic { at: 9.0 * 3600.0, every: Some(86400.0) },
//!     length: Distribution::Fixed { value: 1800.0 },
//!     load: 1.0,
//! };
//! let owner = OwnerActivity::draw(&model, &mut Rng::new(1, 0), 2 * 86400);
//! assert_eq!(owner.sessions(), [(32_400, 34_200), (118_800, 120_600)]);
//! assert_eq!(owner.at(33_000).keyboard_idle, 0);
//! assert_eq!(owner.at(33_000).load, 1.0);
//! assert_eq!(owner.at(34_500).keyboard_idle, 300);
//! assert_eq!(owner.at(34_500).load, 0.0);
//! assert_eq!(owner.at(100).keyboard_idle, 3_700); // idle for an hour at the start
//! ```

use super::random::{Distribution, Rng};

/// Seconds the keyboard has been idle at the start of a run.
pub const IDLE_AT_START: i64 = 3600;

/// When owner sessions start.
#[derive(Debug, Clone, PartialEq)]
pub enum Sessions {
    /// At exponential intervals of mean `mean_interval` seconds; with a
    /// diurnal amplitude `a`, the rate follows `1 + a·cos(2π(t −
    /// peak)/1 day)` (seconds since the start of the run).
    Poisson {
        /// Mean seconds between session starts.
        mean_interval: f64,
        /// Between 0 (steady) and 1 (no session at the trough).
        diurnal_amplitude: f64,
        /// Seconds into the day of the highest rate.
        peak: f64,
    },
    /// At `at` seconds from the start, and again every `every` seconds.
    Periodic {
        /// The first session's start.
        at: f64,
        /// Seconds between session starts (one session without).
        every: Option<f64>,
    },
}

/// The owner model of a machine type (`[pool.machines.owner]`).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerModel {
    /// When sessions start.
    pub sessions: Sessions,
    /// How long each lasts, seconds.
    pub length: Distribution,
    /// What the owner adds to `LoadAvg` during a session.
    pub load: f64,
}

/// What the owner is doing at some time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnerState {
    /// Seconds since the keyboard (and the console) was last used.
    pub keyboard_idle: i64,
    /// The owner's share of `LoadAvg`.
    pub load: f64,
}

/// One machine's owner sessions over a run.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnerActivity {
    /// Sessions `[start, end)`, in order, not overlapping.
    sessions: Vec<(i64, i64)>,
    load: f64,
}

impl OwnerActivity {
    /// Draws the sessions of `model` that start before `until` (seconds
    /// since the start). Overlapping sessions are merged.
    pub fn draw(model: &OwnerModel, rng: &mut Rng, until: i64) -> OwnerActivity {
        let mut sessions: Vec<(i64, i64)> = Vec::new();
        let mut t = 0.0f64;
        let mut first = true;
        loop {
            t = match model.sessions {
                Sessions::Poisson { mean_interval, diurnal_amplitude: a, peak } => loop {
                    t += rng.exponential(mean_interval / (1.0 + a));
                    if a == 0.0 {
                        break t;
                    }
                    let phase = std::f64::consts::TAU * (t - peak) / 86400.0;
                    if rng.uniform() * (1.0 + a) <= 1.0 + a * phase.cos() {
                        break t;
                    }
                },
                Sessions::Periodic { at, every } => match (first, every) {
                    (true, _) => at,
                    (false, Some(e)) => t + e,
                    (false, None) => break,
                },
            };
            first = false;
            if !t.is_finite() || t >= until as f64 {
                break;
            }
            let start = t.round() as i64;
            let length = model.length.sample(rng).clamp(0.0, 1e12).round() as i64;
            let end = start.saturating_add(length.max(1));
            match sessions.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => sessions.push((start, end)),
            }
        }
        OwnerActivity { sessions, load: model.load }
    }

    /// The sessions, `[start, end)` in seconds since the start.
    pub fn sessions(&self) -> &[(i64, i64)] {
        &self.sessions
    }

    /// What the owner is doing at `t`.
    pub fn at(&self, t: i64) -> OwnerState {
        // The last session that started at or before t.
        let k = self.sessions.partition_point(|&(start, _)| start <= t);
        match k.checked_sub(1).map(|k| self.sessions[k]) {
            Some((_, end)) if t < end => OwnerState { keyboard_idle: 0, load: self.load },
            Some((_, end)) => OwnerState { keyboard_idle: t - end, load: 0.0 },
            None => OwnerState { keyboard_idle: t.saturating_add(IDLE_AT_START), load: 0.0 },
        }
    }

    /// Seconds the owner is at the machine between `from` and `to`.
    pub fn busy_between(&self, from: i64, to: i64) -> i64 {
        self.sessions.iter().map(|&(s, e)| (e.min(to) - s.max(from)).max(0)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poisson(mean: f64, a: f64) -> OwnerModel {
        OwnerModel {
            sessions: Sessions::Poisson { mean_interval: mean, diurnal_amplitude: a, peak: 13.0 * 3600.0 },
            length: Distribution::Exponential { mean: 1200.0 },
            load: 0.8,
        }
    }

    #[test]
    fn same_stream_same_sessions_other_stream_other_sessions() {
        let model = poisson(3600.0, 0.0);
        let a = OwnerActivity::draw(&model, &mut Rng::new(7, 1), 7 * 86400);
        let b = OwnerActivity::draw(&model, &mut Rng::new(7, 1), 7 * 86400);
        let c = OwnerActivity::draw(&model, &mut Rng::new(7, 2), 7 * 86400);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn sessions_are_ordered_disjoint_and_as_frequent_as_asked() {
        let model = poisson(3600.0, 0.0);
        let days = 60;
        let owner = OwnerActivity::draw(&model, &mut Rng::new(3, 9), days * 86400);
        let s = owner.sessions();
        assert!(s.windows(2).all(|w| w[0].1 < w[1].0), "sessions overlap or are out of order");
        assert!(s.iter().all(|&(a, b)| a < b));
        // About one session an hour, 20 minutes each: busy about 1/4 of the time
        // (a session starting during another merges into it).
        let busy = owner.busy_between(0, days * 86400) as f64 / (days * 86400) as f64;
        assert!((0.12..0.30).contains(&busy), "busy {busy}");
        assert!(s.len() as i64 > days * 24 / 2, "{} sessions", s.len());
    }

    #[test]
    fn a_full_diurnal_amplitude_keeps_the_night_quiet() {
        let model = OwnerModel { length: Distribution::Fixed { value: 60.0 }, ..poisson(1800.0, 1.0) };
        let owner = OwnerActivity::draw(&model, &mut Rng::new(5, 0), 30 * 86400);
        let (mut day, mut night) = (0, 0);
        for &(start, _) in owner.sessions() {
            let hour = start.rem_euclid(86400) / 3600;
            if (10..16).contains(&hour) {
                day += 1;
            } else if !(3..23).contains(&hour) {
                night += 1;
            }
        }
        // The rate at 13:00 is twice the mean; from 23:00 to 3:00 it is
        // below a seventh of it.
        assert!(day > 300 && day > 10 * night, "day {day}, night {night}");
    }

    #[test]
    fn idle_times_and_load_follow_the_sessions() {
        let model = OwnerModel {
            sessions: Sessions::Periodic { at: 600.0, every: Some(3600.0) },
            length: Distribution::Fixed { value: 120.0 },
            load: 1.5,
        };
        let owner = OwnerActivity::draw(&model, &mut Rng::new(0, 0), 3 * 3600);
        assert_eq!(owner.sessions(), [(600, 720), (4200, 4320), (7800, 7920)]);
        assert_eq!(owner.at(599), OwnerState { keyboard_idle: 599 + IDLE_AT_START, load: 0.0 });
        assert_eq!(owner.at(600), OwnerState { keyboard_idle: 0, load: 1.5 });
        assert_eq!(owner.at(719).keyboard_idle, 0);
        assert_eq!(owner.at(720), OwnerState { keyboard_idle: 0, load: 0.0 });
        assert_eq!(owner.at(4199).keyboard_idle, 3479);
        assert_eq!(owner.busy_between(0, 3 * 3600), 360);
        // One session only without `every`; overlapping sessions merge.
        let once = OwnerModel { sessions: Sessions::Periodic { at: 10.0, every: None }, ..model.clone() };
        assert_eq!(OwnerActivity::draw(&once, &mut Rng::new(0, 0), 86400).sessions(), [(10, 130)]);
        let long = OwnerModel { length: Distribution::Fixed { value: 5000.0 }, ..model };
        assert_eq!(OwnerActivity::draw(&long, &mut Rng::new(0, 0), 3 * 3600).sessions(), [(600, 12800)]);
    }
}
