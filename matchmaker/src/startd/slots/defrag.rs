//! `condor_defrag`: which machines to drain so that whole machines become
//! free for jobs that need them.
//!
//! [`DefragPolicy`] holds the daemon's configuration and [`DefragPolicy::poll`]
//! is one evaluation of it on the pool's slot ads at time `now` (what the
//! daemon does every `DEFRAG_INTERVAL` seconds):
//!
//! 1. How many to drain this time: `DEFRAG_DRAINING_MACHINES_PER_HOUR`
//!    spread over the polls of an hour, whole machines per poll, and the
//!    fractions left over handed out at hour and day boundaries, prorated
//!    by what remains of the hour or day.
//! 2. Machines (one per host, the part of `Name` after `@`) are counted:
//!    *draining* — a partitionable slot (not `Offline`) with `Draining`
//!    whose `DrainReason` is unset or this daemon's; *whole* — one matching
//!    `DEFRAG_WHOLE_MACHINE_EXPR` (default `Cpus == TotalSlotCpus`) among
//!    those.
//! 3. Draining machines matching `DEFRAG_CANCEL_REQUIREMENTS` (default: the
//!    whole-machine expression) have their draining cancelled.
//! 4. Nothing more is done if nothing is to be drained, or
//!    `DEFRAG_MAX_CONCURRENT_DRAINING` machines are draining already, or
//!    `DEFRAG_MAX_WHOLE_MACHINES` are whole already.
//! 5. Otherwise the partitionable slots not draining that match
//!    `DEFRAG_REQUIREMENTS` are ranked by `DEFRAG_RANK` (default
//!    `-ExpectedMachineGracefulDrainingBadput`, evaluated as a single
//!    precision number with the slot as TARGET), and the best machines
//!    that are neither whole, nor just cancelled, are drained.
//!
//! The daemon shuffles the candidates before sorting, so machines of equal
//! rank are drained in a random order; here they are taken in the order of
//! the ads given (a stable sort), which makes the choice reproducible.
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::config::Config;
//! use matchmaker::startd::slots::defrag::DefragPolicy;
//!
//! let config = Config::parse_str(
//!     "DEFRAG_INTERVAL = 600\nDEFRAG_DRAINING_MACHINES_PER_HOUR = 12\nDEFRAG_MAX_WHOLE_MACHINES = 10\n",
//!     "defrag.conf",
//! )?;
//! let policy = DefragPolicy::from_config(&config, "defrag@cm")?;
//! assert_eq!(policy.per_poll, 2);
//! let slot = |host: &str, cpus: i64, badput: i64| -> ClassAd {
//!     format!(r#"[ Name = "slot1@{host}"; PartitionableSlot = true; Cpus = {cpus}; TotalSlotCpus = 8;
//!                 ExpectedMachineGracefulDrainingBadput = {badput} ]"#).parse().expect("ad")
//! };
//! let pool = [slot("a", 0, 5000), slot("b", 1, 100), slot("c", 8, 0), slot("d", 2, 900)];
//! let decision = policy.poll(&pool, 1_700_000_000, None);
//! assert_eq!(decision.whole, ["c"]);
//! assert_eq!(decision.drain, ["slot1@b", "slot1@d"]); // least badput first
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

use std::collections::BTreeSet;

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Value};

use super::SlotError;
use crate::config::Config;

/// `condor_defrag`'s configuration.
#[derive(Debug, Clone)]
pub struct DefragPolicy {
    /// The daemon's name; it marks the drains it starts
    /// (`DrainReason = "Defrag <name>"`).
    pub name: String,
    /// `DEFRAG_INTERVAL` (seconds between polls).
    pub interval: i64,
    /// `DEFRAG_DRAINING_MACHINES_PER_HOUR` (0 when the interval is over an
    /// hour).
    pub per_hour: f64,
    /// Machines drained every poll.
    pub per_poll: i64,
    /// Extra machines at each new hour.
    pub per_poll_hour: i64,
    /// Extra machines at each new day.
    pub per_poll_day: i64,
    /// `DEFRAG_MAX_CONCURRENT_DRAINING` (-1: no limit).
    pub max_concurrent_draining: i64,
    /// `DEFRAG_MAX_WHOLE_MACHINES` (-1: no limit).
    pub max_whole_machines: i64,
    /// `DEFRAG_REQUIREMENTS`, if set.
    pub requirements: Option<Expr>,
    /// `DEFRAG_WHOLE_MACHINE_EXPR`.
    pub whole_machine_expr: Expr,
    /// `DEFRAG_RANK`, if set.
    pub rank: Option<Expr>,
    /// `DEFRAG_CANCEL_REQUIREMENTS`, if set.
    pub cancel_requirements: Option<Expr>,
    /// `DEFRAG_DRAINING_SCHEDULE` (graceful, quick or fast).
    pub schedule: String,
}

/// What one poll decides.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DefragDecision {
    /// How many machines this poll may drain.
    pub num_to_drain: i64,
    /// Hosts draining (by this daemon or for no stated reason).
    pub draining: Vec<String>,
    /// Hosts that are whole machines.
    pub whole: Vec<String>,
    /// Slots whose draining to cancel (one per host).
    pub cancel: Vec<String>,
    /// Slots to drain (one per host), best first.
    pub drain: Vec<String>,
    /// Every slot that could be drained this poll (one per host), best
    /// first: `drain` is its beginning. The daemon goes down this list
    /// until `num_to_drain` drain requests have succeeded, so when some
    /// fail it drains further down.
    pub candidates: Vec<String>,
    /// Why nothing was drained, when nothing was.
    pub idle_reason: Option<String>,
}

fn parse(name: &str, text: &str) -> Result<Expr, SlotError> {
    classad::parse_expr(text.trim())
        .map_err(|e| SlotError::BadExpression { name: name.to_string(), message: format!("'{}': {e}", text.trim()) })
}

fn opt_expr(config: &Config, name: &str) -> Result<Option<Expr>, SlotError> {
    match config.lookup(name).map(|l| l.value).filter(|v| !v.trim().is_empty()) {
        Some(v) => parse(name, &v).map(Some),
        None => Ok(None),
    }
}

/// The host of a slot name (`slot1@host` gives `host`).
fn host_of(name: &str) -> &str {
    name.split_once('@').map_or(name, |(_, h)| h)
}

/// `n` per period, prorated by what remains of the period (plus one polling
/// interval), never more than `n` nor of the other sign.
fn prorate(n: i64, elapsed: i64, period: i64, granularity: i64) -> i64 {
    let frac = (period - elapsed) as f64 / period as f64 + granularity as f64 / period as f64;
    let answer = (n as f64 * frac + 0.5).floor() as i64;
    if (n > 0 && answer > n) || (n < 0 && answer < n) {
        return n;
    }
    if answer * n < 0 {
        return 0;
    }
    answer
}

fn options() -> EvalOptions {
    EvalOptions::new().semantics(Semantics::Old)
}

impl DefragPolicy {
    /// Reads the `DEFRAG_*` settings. `name` is the daemon's name (HTCondor
    /// builds it from `DEFRAG_NAME`, else the local name, and the host).
    /// Errors: a setting that is not a number or not an expression.
    pub fn from_config(config: &Config, name: &str) -> Result<DefragPolicy, SlotError> {
        let interval = config.get_int("DEFRAG_INTERVAL")?;
        let mut per_hour = config.get_real("DEFRAG_DRAINING_MACHINES_PER_HOUR")?.max(0.0);
        let rate = per_hour / 3600.0 * interval as f64;
        let per_poll = ((rate + 0.00001).floor() as i64).max(0);
        let error_per_hour = if interval > 0 { (rate - per_poll as f64) / interval as f64 * 3600.0 } else { 0.0 };
        let per_poll_hour = (error_per_hour + 0.00001).floor() as i64;
        if interval > 3600 {
            per_hour = 0.0;
        }
        let error_per_day = (error_per_hour - per_poll_hour as f64) * 24.0;
        let mut per_poll_day = (error_per_day + 0.5).floor() as i64;
        if per_poll_day < 0 || interval > 3600 * 24 {
            per_poll_day = 0;
        }
        let whole = config.lookup("DEFRAG_WHOLE_MACHINE_EXPR").map(|l| l.value).unwrap_or_default();
        let schedule = config
            .lookup("DEFRAG_DRAINING_SCHEDULE")
            .map(|l| l.value.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "graceful".into());
        if !matches!(schedule.as_str(), "graceful" | "quick" | "fast") {
            return Err(SlotError::BadExpression {
                name: "DEFRAG_DRAINING_SCHEDULE".into(),
                message: format!("invalid draining schedule '{schedule}' (graceful, quick or fast)"),
            });
        }
        Ok(DefragPolicy {
            name: name.to_string(),
            interval,
            per_hour,
            per_poll,
            per_poll_hour,
            per_poll_day,
            max_concurrent_draining: config.get_int("DEFRAG_MAX_CONCURRENT_DRAINING")?.max(-1),
            max_whole_machines: config.get_int("DEFRAG_MAX_WHOLE_MACHINES")?.max(-1),
            requirements: opt_expr(config, "DEFRAG_REQUIREMENTS")?,
            whole_machine_expr: parse("DEFRAG_WHOLE_MACHINE_EXPR", &whole)?,
            rank: opt_expr(config, "DEFRAG_RANK")?,
            cancel_requirements: opt_expr(config, "DEFRAG_CANCEL_REQUIREMENTS")?,
            schedule,
        })
    }

    /// How many machines a poll at `now` may drain, the previous poll
    /// having been at `prev`.
    pub fn num_to_drain(&self, now: i64, prev: Option<i64>) -> i64 {
        let mut n = self.per_poll;
        if let Some(prev) = prev.filter(|p| *p != 0) {
            let (last_hour, current_hour) = (prev / 3600 * 3600, now / 3600 * 3600);
            let (last_day, current_day) = (prev / 86400 * 86400, now / 86400 * 86400);
            if current_hour != last_hour {
                n += prorate(self.per_poll_hour, now - current_hour, 3600, self.interval);
            }
            if current_day != last_day {
                n += prorate(self.per_poll_day, now - current_day, 86400, self.interval);
            }
        }
        n
    }

    fn is_true(ad: &ClassAd, expr: &Expr) -> bool {
        let opts = options();
        matches!(EvalContext::new(&opts).my(ad).eval(expr), Value::Bool(true))
            || matches!(EvalContext::new(&opts).my(ad).eval(expr), Value::Int(i) if i != 0)
    }

    fn attr_true(ad: &ClassAd, attr: &str) -> bool {
        matches!(ad.eval_attr(attr), Value::Bool(true))
    }

    /// A partitionable slot that is not offline.
    fn base(ad: &ClassAd) -> bool {
        Self::attr_true(ad, "PartitionableSlot") && !Self::attr_true(ad, "Offline")
    }

    /// Draining was started by this daemon, or for no stated reason.
    fn drained_by_me(&self, ad: &ClassAd) -> bool {
        match ad.eval_attr("DrainReason") {
            Value::Undefined => true,
            Value::Str(s) => *s == *format!("Defrag {}", self.name),
            _ => false,
        }
    }

    fn rank_of(&self, ad: &ClassAd) -> f32 {
        let Some(rank) = &self.rank else { return 0.0 };
        let rank_ad = ClassAd::new();
        let opts = options();
        match EvalContext::new(&opts).my(&rank_ad).target(ad).eval(rank) {
            Value::Int(i) => i as f32,
            Value::Real(r) => r as f32,
            Value::Bool(b) => f32::from(u8::from(b)),
            _ => 0.0,
        }
    }

    fn name_of(ad: &ClassAd) -> String {
        match ad.eval_attr("Name") {
            Value::Str(s) => s.to_string(),
            _ => String::new(),
        }
    }

    /// Ads sorted by `DEFRAG_RANK`, best first, stable.
    fn ranked<'a>(&self, ads: Vec<&'a ClassAd>) -> Vec<&'a ClassAd> {
        let mut keyed: Vec<(f32, &ClassAd)> = ads.into_iter().map(|a| (self.rank_of(a), a)).collect();
        keyed.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        keyed.into_iter().map(|(_, a)| a).collect()
    }

    /// One poll on `slots` (the pool's slot ads) at `now`; `prev` is the
    /// time of the previous poll, if any.
    pub fn poll(&self, slots: &[ClassAd], now: i64, prev: Option<i64>) -> DefragDecision {
        let mut d = DefragDecision { num_to_drain: self.num_to_drain(now, prev), ..DefragDecision::default() };
        let draining_ad = |ad: &ClassAd| Self::base(ad) && Self::attr_true(ad, "Draining") && self.drained_by_me(ad);
        let draining: BTreeSet<String> =
            slots.iter().filter(|a| draining_ad(a)).map(|a| host_of(&Self::name_of(a)).to_string()).collect();
        let whole: BTreeSet<String> = slots
            .iter()
            .filter(|a| Self::is_true(a, &self.whole_machine_expr) && Self::base(a) && self.drained_by_me(a))
            .map(|a| host_of(&Self::name_of(a)).to_string())
            .collect();
        d.draining = draining.iter().cloned().collect();
        d.whole = whole.iter().cloned().collect();

        let mut cancelled = BTreeSet::new();
        if let Some(cancel) = &self.cancel_requirements {
            let candidates: Vec<&ClassAd> =
                slots.iter().filter(|a| draining_ad(a) && Self::is_true(a, cancel)).collect();
            for ad in self.ranked(candidates) {
                let name = Self::name_of(ad);
                if cancelled.insert(host_of(&name).to_string()) {
                    d.cancel.push(name);
                }
            }
        }

        let why = if d.num_to_drain <= 0 {
            Some(format!("number to drain in the next {}s is {}", self.interval, d.num_to_drain))
        } else if self.per_hour.ceil() <= 0.0 {
            Some(format!("DEFRAG_DRAINING_MACHINES_PER_HOUR={}", self.per_hour))
        } else if self.max_concurrent_draining == 0 {
            Some("DEFRAG_MAX_CONCURRENT_DRAINING=0".to_string())
        } else if self.max_whole_machines == 0 {
            Some("DEFRAG_MAX_WHOLE_MACHINES=0".to_string())
        } else if self.max_concurrent_draining >= 0 && draining.len() as i64 >= self.max_concurrent_draining {
            Some(format!(
                "DEFRAG_MAX_CONCURRENT_DRAINING={} and there are {} draining machines",
                self.max_concurrent_draining,
                draining.len()
            ))
        } else if self.max_whole_machines >= 0 && whole.len() as i64 >= self.max_whole_machines {
            Some(format!(
                "DEFRAG_MAX_WHOLE_MACHINES={} and there are {} whole machines",
                self.max_whole_machines,
                whole.len()
            ))
        } else {
            None
        };
        if why.is_some() {
            d.idle_reason = why;
            return d;
        }
        let candidates: Vec<&ClassAd> = slots
            .iter()
            .filter(|a| {
                Self::base(a)
                    && !Self::attr_true(a, "Draining")
                    && self.requirements.as_ref().is_none_or(|r| Self::is_true(a, r))
            })
            .collect();
        let mut done = BTreeSet::new();
        for ad in self.ranked(candidates) {
            let name = Self::name_of(ad);
            let host = host_of(&name).to_string();
            if cancelled.contains(&host) || done.contains(&host) || whole.contains(&host) {
                continue;
            }
            done.insert(host);
            if (d.drain.len() as i64) < d.num_to_drain {
                d.drain.push(name.clone());
            }
            d.candidates.push(name);
        }
        if d.drain.is_empty() {
            d.idle_reason = Some("no machine matches DEFRAG_REQUIREMENTS".into());
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> DefragPolicy {
        DefragPolicy::from_config(&Config::parse_str(text, "d.conf").expect("config"), "defrag@cm").expect("policy")
    }

    fn ad(text: &str) -> ClassAd {
        text.parse().expect("ad")
    }

    #[test]
    fn rates_per_poll_hour_and_day() {
        // 1 per hour with 10-minute polls: 0 per poll, 1 at each new hour
        let p = policy("DEFRAG_DRAINING_MACHINES_PER_HOUR = 1\n");
        assert_eq!((p.per_poll, p.per_poll_hour, p.per_poll_day), (0, 1, 0));
        let hour = 3600 * 1000;
        assert_eq!(p.num_to_drain(hour + 10, Some(hour - 590)), 1);
        assert_eq!(p.num_to_drain(hour + 1200, Some(hour + 600)), 0);
        // 0.5 per hour: 12 a day, at day boundaries
        let p = policy("DEFRAG_DRAINING_MACHINES_PER_HOUR = 0.5\n");
        assert_eq!((p.per_poll, p.per_poll_hour, p.per_poll_day), (0, 0, 12));
        let day = 86400 * 100;
        assert_eq!(p.num_to_drain(day + 5, Some(day - 595)), 12);
    }

    #[test]
    fn limits_and_cancellation() {
        let pool = [
            ad(r#"[ Name = "slot1@a"; PartitionableSlot = true; Cpus = 8; TotalSlotCpus = 8; Draining = true ]"#),
            ad(r#"[ Name = "slot1@b"; PartitionableSlot = true; Cpus = 1; TotalSlotCpus = 8; Draining = true ]"#),
            ad(r#"[ Name = "slot1@c"; PartitionableSlot = true; Cpus = 1; TotalSlotCpus = 8 ]"#),
            ad(r#"[ Name = "slot1@d"; PartitionableSlot = true; Cpus = 1; TotalSlotCpus = 8; Draining = true;
                    DrainReason = "by hand" ]"#),
        ];
        let p = policy("DEFRAG_DRAINING_MACHINES_PER_HOUR = 60\nDEFRAG_MAX_CONCURRENT_DRAINING = 2\n");
        let d = p.poll(&pool, 1000, None);
        assert_eq!(d.draining, ["a", "b"]);
        assert_eq!(d.whole, ["a"]);
        assert_eq!(d.cancel, ["slot1@a"]); // whole again: stop draining it
        assert!(d.drain.is_empty());
        assert!(d.idle_reason.as_deref().is_some_and(|r| r.contains("MAX_CONCURRENT_DRAINING=2")));
        let p = policy("DEFRAG_DRAINING_MACHINES_PER_HOUR = 60\nDEFRAG_REQUIREMENTS = Cpus < 8\n");
        assert_eq!(p.poll(&pool, 1000, None).drain, ["slot1@c"]);
        let p = policy("DEFRAG_DRAINING_MACHINES_PER_HOUR = 0\n");
        assert!(p.poll(&pool, 1000, None).idle_reason.is_some());
    }

    #[test]
    fn bad_expressions_are_errors() {
        let err = DefragPolicy::from_config(
            &Config::parse_str("DEFRAG_REQUIREMENTS = Cpus >\n", "d.conf").expect("config"),
            "x",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("DEFRAG_REQUIREMENTS: 'Cpus >'"), "{err}");
    }
}
