//! The slot's ad the policy is evaluated against: the machine's
//! attributes, the policy's expressions, and what the startd maintains
//! (`State`, `Activity`, the clocks, the latches, the claim), kept up to
//! date in place from step to step ([`PolicyAd`]).

use std::cell::{Cell, Ref, RefCell};
use std::sync::Arc;

use classad::{ClassAd, Expr, Name, Value};

use super::claim::Claim;
use super::memory::Slot;
use super::names::names;
use super::{Activity, Policy, State};

impl Slot {
    /// The slot's ad as the startd evaluates policy against it at `now`:
    /// `base` (the machine's attributes: `KeyboardIdle`, `LoadAvg`, ...),
    /// then the policy's expressions, then what the startd maintains
    /// (`State`, `Activity`, `EnteredCurrentState`,
    /// `EnteredCurrentActivity`, `MyCurrentTime`, `ClockMin`, `ClockDay`,
    /// `LastBenchmark`, `Requirements`, the latches' `<name>Value` and
    /// `<name>Time`, and while claimed `RemoteUser`, `RemoteOwner`,
    /// `JobId`, `JobStart`, `LastPeriodicCheckpoint`, `CurrentRank`).
    ///
    /// ```
    /// use classad::ClassAd;
    /// use matchmaker::startd::{Policy, Slot};
    /// let policy = Policy::parse_str("", "defaults")?;
    /// let ad = Slot::new(1_000).ad(&policy, &ClassAd::new(), 1_060);
    /// assert_eq!(ad.eval_attr("State").as_str(), Some("Owner"));
    /// assert_eq!(ad.eval_attr("EnteredCurrentState"), classad::Value::Int(1_000));
    /// # Ok::<(), matchmaker::startd::PolicyError>(())
    /// ```
    pub fn ad(&self, policy: &Policy, base: &ClassAd, now: i64) -> ClassAd {
        let mut ad = base.clone();
        ad.update(policy.ad());
        self.insert_dynamic(policy, now, &mut ad);
        ad
    }

    /// What the startd maintains, inserted into `ad`.
    fn insert_dynamic(&self, policy: &Policy, now: i64, ad: &mut ClassAd) {
        self.insert_clocks(policy, now, ad);
        let n = names();
        for latch in &self.latches {
            if let Some(v) = latch.value {
                ad.insert(latch.value_name, v);
            }
            if let Some(t) = latch.changed_at {
                ad.insert(latch.time_name, t);
            }
        }
        if let Some(claim) = &self.claim {
            let job = &claim.job;
            let user = job.eval_attr(n.user);
            let owner = job.eval_attr(n.owner);
            if let Some(u) = user.as_str().or(owner.as_str()) {
                ad.insert(n.remote_user, u);
            }
            if let Some(o) = owner.as_str() {
                ad.insert(n.remote_owner, o);
            }
            if let (Value::Int(c), Value::Int(p)) = (job.eval_attr(n.cluster_id), job.eval_attr(n.proc_id)) {
                ad.insert(n.job_id, format!("{c}.{p}"));
            }
            self.insert_claim_clocks(claim, ad);
        }
    }

    /// The attributes the startd maintains that are always there.
    fn insert_clocks(&self, policy: &Policy, now: i64, ad: &mut ClassAd) {
        let n = names();
        ad.insert(n.state, n.states[self.state as usize].clone());
        ad.insert(n.activity, n.activities[self.activity as usize].clone());
        ad.insert(n.entered_current_state, self.entered_state);
        ad.insert(n.entered_current_activity, self.entered_activity);
        ad.insert(n.my_current_time, now);
        let local = now.saturating_add(policy.utc_offset);
        ad.insert(n.clock_min, local.rem_euclid(86_400) / 60);
        // 1970-01-01 was a Thursday (day 4, Sunday being 0).
        ad.insert(n.clock_day, (local.div_euclid(86_400) + 4).rem_euclid(7));
        ad.insert(n.last_benchmark, self.last_benchmark);
        let available = !matches!(self.state, State::Matched | State::Preempting | State::Drained);
        ad.insert(n.requirements, if available { n.start_ref.clone() } else { Expr::from(false) });
    }

    /// Writes what differs between `last` and `key` (of the same shape)
    /// into an ad that has the attributes of `last`.
    fn update_clocks(&self, policy: &Policy, now: i64, ad: &mut ClassAd, last: &AdKey, key: &AdKey) {
        let n = names();
        if last.state != key.state {
            ad.insert(n.state, n.states[self.state as usize].clone());
            let available = !matches!(self.state, State::Matched | State::Preempting | State::Drained);
            ad.insert(n.requirements, if available { n.start_ref.clone() } else { Expr::from(false) });
        }
        if last.activity != key.activity {
            ad.insert(n.activity, n.activities[self.activity as usize].clone());
        }
        if last.entered.0 != key.entered.0 {
            ad.insert(n.entered_current_state, self.entered_state);
        }
        if last.entered.1 != key.entered.1 {
            ad.insert(n.entered_current_activity, self.entered_activity);
        }
        if last.now != key.now || last.utc_offset != key.utc_offset {
            ad.insert(n.my_current_time, now);
            let local = now.saturating_add(policy.utc_offset);
            let before = last.now.saturating_add(last.utc_offset);
            if local.div_euclid(60) != before.div_euclid(60) {
                ad.insert(n.clock_min, local.rem_euclid(86_400) / 60);
            }
            if local.div_euclid(86_400) != before.div_euclid(86_400) {
                ad.insert(n.clock_day, (local.div_euclid(86_400) + 4).rem_euclid(7));
            }
        }
        if last.last_benchmark != key.last_benchmark {
            ad.insert(n.last_benchmark, self.last_benchmark);
        }
        if last.claim != key.claim {
            if let Some(claim) = &self.claim {
                self.insert_claim_clocks(claim, ad);
            }
        }
    }

    /// The claim's clocks and rank.
    fn insert_claim_clocks(&self, claim: &Claim, ad: &mut ClassAd) {
        let n = names();
        if let Some(t) = claim.job_start {
            ad.insert(n.job_start, t);
        }
        if let Some(t) = claim.last_checkpoint {
            ad.insert(n.last_periodic_checkpoint, t);
        }
        ad.insert(n.current_rank, claim.rank);
    }

    /// What the slot's maintained attributes depend on, besides the
    /// policy and the time (see [`PolicyAd`]).
    fn ad_key(&self, policy: &Policy, now: i64) -> AdKey {
        let claim = self.claim.as_ref().map(|c| (c.job_start, c.last_checkpoint, c.rank.to_bits()));
        let present = self.claim.as_ref().map(|c| (c.job_start.is_some(), c.last_checkpoint.is_some()));
        AdKey {
            state: self.state,
            activity: self.activity,
            entered: (self.entered_state, self.entered_activity),
            now,
            utc_offset: policy.utc_offset,
            last_benchmark: self.last_benchmark,
            latches: (self.latches.len(), self.latch_changes),
            claim_changes: self.claim_changes,
            claim,
            present,
        }
    }
}

/// What a slot's maintained attributes were last computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
struct AdKey {
    state: State,
    activity: Activity,
    entered: (i64, i64),
    now: i64,
    utc_offset: i64,
    last_benchmark: i64,
    latches: (usize, u64),
    claim_changes: u64,
    claim: Option<(Option<i64>, Option<i64>, u64)>,
    /// Whether there is a claim, with `JobStart` and
    /// `LastPeriodicCheckpoint`.
    present: Option<(bool, bool)>,
}

/// The ad a slot's policy is evaluated against, kept from step to step:
/// the machine's attributes (`KeyboardIdle`, `LoadAvg`, ... as the
/// caller sets them), the policy's expressions, and what the startd
/// maintains (as in [`Slot::ad`]), each updated in place when it changes.
/// Use one per slot with [`Slot::advance`]; [`step`](fn@super::step) builds a new one
/// every time.
///
/// ```
/// use std::sync::Arc;
/// use classad::{ClassAd, Name};
/// use matchmaker::startd::{Activity, Event, Policy, PolicyAd, Slot, State};
///
/// let policy = Policy::parse_str("IS_OWNER = KeyboardIdle < 900\nRunBenchmarks = False\n", "idle.conf")?;
/// let mut ad = PolicyAd::new(&policy, Arc::new(ClassAd::new()));
/// let keyboard = Name::new("KeyboardIdle");
/// let mut slot = Slot::new(0);
/// ad.set(&policy, keyboard, 60);
/// slot.advance(&policy, &mut ad, &Event::Tick, 0);
/// assert_eq!(slot.state(), State::Owner);
/// ad.set(&policy, keyboard, 1000);
/// let out = slot.advance(&policy, &mut ad, &Event::Tick, 300);
/// assert_eq!((slot.state(), slot.activity()), (State::Unclaimed, Activity::Idle));
/// assert_eq!(out.transitions[0].cause.knob(), Some("IsOwner"));
/// # Ok::<(), matchmaker::startd::PolicyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PolicyAd {
    /// What the startd maintains, chained to the machine's attributes
    /// and the policy's expressions, themselves chained to the base ad.
    maintained: RefCell<ClassAd>,
    key: Cell<Option<AdKey>>,
}

impl PolicyAd {
    /// The ad of a slot whose own attributes are `base`, under `policy`
    /// (whose expressions take the place of `base`'s of the same name).
    pub fn new(policy: &Policy, base: Arc<ClassAd>) -> PolicyAd {
        let mut fixed = ClassAd::with_capacity(policy.ad().len() + 8);
        fixed.chain_to(base);
        fixed.update(policy.ad());
        PolicyAd::over(fixed)
    }

    /// As [`new`](PolicyAd::new), with `base` copied rather than shared.
    pub(super) fn copied(policy: &Policy, base: &ClassAd) -> PolicyAd {
        let mut fixed = base.clone();
        fixed.update(policy.ad());
        PolicyAd::over(fixed)
    }

    fn over(fixed: ClassAd) -> PolicyAd {
        let mut maintained = ClassAd::with_capacity(24);
        maintained.chain_to(Arc::new(fixed));
        PolicyAd { maintained: RefCell::new(maintained), key: Cell::new(None) }
    }

    /// Sets a machine attribute (`KeyboardIdle`, `LoadAvg`, ...), in
    /// place. An attribute the policy defines keeps the policy's
    /// expression, as in [`Slot::ad`].
    pub fn set(&mut self, policy: &Policy, name: Name, value: impl Into<Expr>) {
        self.set_all(policy, [(name, value.into())]);
    }

    /// Sets several machine attributes at once (as [`set`](PolicyAd::set)).
    pub fn set_all(&mut self, policy: &Policy, attrs: impl IntoIterator<Item = (Name, Expr)>) {
        let maintained = self.maintained.get_mut();
        let Some(mut fixed) = maintained.unchain() else { return };
        let machine = Arc::make_mut(&mut fixed);
        for (name, value) in attrs {
            if !policy.ad().contains(name) {
                machine.insert(name, value);
            }
        }
        maintained.chain_to(fixed);
    }

    /// The ad as it was last evaluated: machine attributes, policy and
    /// maintained attributes.
    pub fn ad(&self) -> Ref<'_, ClassAd> {
        self.maintained.borrow()
    }

    /// The ad for `slot` at `now`: the maintained attributes brought up
    /// to date (in place unless an optional one came or went).
    pub(super) fn current(&self, slot: &Slot, policy: &Policy, now: i64) -> Ref<'_, ClassAd> {
        let key = slot.ad_key(policy, now);
        let last = self.key.get();
        if last != Some(key) {
            let mut ad = self.maintained.borrow_mut();
            // The latches and what comes from the job ad change seldom:
            // then everything is written again.
            let same_shape = last.is_some_and(|k| {
                k.present == key.present && k.claim_changes == key.claim_changes && k.latches == key.latches
            });
            match last.filter(|_| same_shape) {
                Some(last) => slot.update_clocks(policy, now, &mut ad, &last, &key),
                None => {
                    ad.clear();
                    slot.insert_dynamic(policy, now, &mut ad);
                }
            }
            self.key.set(Some(key));
        }
        self.maintained.borrow()
    }
}
