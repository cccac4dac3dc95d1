//! `ALLOW_PSLOT_PREEMPTION`: one job preempting several dynamic slots of a
//! partitionable slot at once.
//!
//! What condor_negotiator 23.9 does when the knob is true (it is false by
//! default), read from its `matchmakingAlgorithm` and `pslotMultiMatch`:
//!
//! * **Dynamic slots are no candidates.** A slot with `DynamicSlot` and
//!   `PslotRollupInformation` true (every d-slot of a startd that
//!   advertises rollups, the default) is skipped when a request looks for
//!   slots. It stays in the pool (its weight counts in the pie, it is not
//!   trimmed); it is only reached through its partitionable parent.
//! * **The p-slot stands for its children.** When a partitionable slot
//!   does not match a request as it is, preemption is considered
//!   (`NEGOTIATOR_CONSIDER_PREEMPTION`) and the job wants it (every schedd
//!   sets `WantPslotPreemption`), the p-slot is tried with the resources of
//!   its children added. The children are read from the p-slot's own
//!   `Child*` lists (`ChildCurrentRank`, `ChildRetirementTimeRemaining`,
//!   `ChildState`, `ChildName` and one list per resource); a p-slot without
//!   children (`NumDynamicSlots` below 1) is not tried. Children still
//!   retiring (`RetirementTimeRemaining` above 0), in the Preempting
//!   state, or already handed out earlier in this cycle are passed over;
//!   the rest are taken in order of their `CurrentRank`, lowest first (ties
//!   in list order), as long as it is not above the p-slot's `Rank` of the
//!   new job (`Rank` evaluated with the p-slot as MY, 0 when it is not a
//!   number):
//!   - a child ranked below is taken for startd rank;
//!   - a child ranked equal is taken for priority only if the request is
//!     not negotiating for startd rank alone, the child's own ad (found by
//!     its `Name`) runs someone other than the submitter
//!     (`PreemptingAccountingGroup`, `PreemptingUser`, `AccountingGroup` or
//!     `RemoteUser`, as for any slot) and `PREEMPTION_REQUIREMENTS`,
//!     evaluated with that d-slot ad as MY and the job as TARGET, is
//!     `true` (an unset `PREEMPTION_REQUIREMENTS` takes nothing here).
//!
//!   After each child taken, its resources are added to the p-slot's: for
//!   every name of the p-slot's `MachineResources` (`Cpus Memory Disk`
//!   without it) that the p-slot has, the p-slot's value rounded down plus
//!   the child's (an integer stays an integer). As soon as the job and the
//!   enlarged p-slot match both ways, the p-slot is a candidate that
//!   preempts the children taken so far; if the list runs out first, it is
//!   none.
//! * **The candidate.** It is taken by priority preemption if any of its
//!   children was taken for priority, else by rank preemption. The
//!   enlarged ad gets `RemoteUser = "various_dSlot_users"` and is what the
//!   rest of the search sees: the submitter limit (checked with the
//!   enlarged ad's `SlotWeight` for a priority preemption, not at all for a
//!   rank one), concurrency limits, `NEGOTIATOR_PRE_JOB_RANK`, the job's
//!   `Rank`, `NEGOTIATOR_POST_JOB_RANK` and `PREEMPTION_RANK` (which
//!   usually reads `RemoteUserPrio`, which the p-slot does not have, so it
//!   fails to a number and ranks lowest). It is sorted with the other
//!   candidates as usual, and stays enlarged while the request's match
//!   list lives. The children it takes are handed out for the rest of the
//!   cycle the moment it becomes a candidate, whether it is then matched or
//!   not (HTCondor clears their claim ids there).
//! * **The match.** The schedd receives the p-slot's claim id followed by
//!   the children's; the log says `preempting N dslots` (after a
//!   `Preempting various_dSlot_users` line). The submitter is charged the
//!   enlarged p-slot's `SlotWeight` (the accountant records a match on the
//!   p-slot with that weight); the preempted children stay charged to
//!   their users until the startd reports them gone. The p-slot leaves the
//!   cycle, as any matched slot without a consumption policy does.
//! * **With a consumption policy.** A p-slot that has not what the job
//!   consumes is enlarged in the same way (from what is left of it in this
//!   cycle), and the enlarged ad is matched without the policy's rounding.
//!   The submitter limit and the charge are then what the job consumes of
//!   the enlarged slot; the consumption is carved from the enlarged ad,
//!   and what is left of it goes back into the match list as an unclaimed
//!   candidate (HTCondor's log names `various_dSlot_users` as preempted when
//!   it is taken). When the list is dropped the p-slot's resources return
//!   to what they were before it was enlarged: the carvings made through
//!   it are forgotten, and the p-slot stays in the cycle.
//!
//! Here the public ads stand in for the private ones HTCondor reads the
//! children's claim ids from: every child of a p-slot is taken to have a
//! claim (a startd gives every slot one).

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Literal, Node, Value};
use rustc_hash::FxHashMap;

use crate::candidates::{number, ClaimKind};

/// What the enlarged p-slot of a candidate carries as `RemoteUser`.
pub const VARIOUS_DSLOT_USERS: &str = "various_dSlot_users";

/// A p-slot enlarged by the children it would preempt.
pub(super) struct Enlarged {
    /// The p-slot's ad with its children's resources added.
    pub ad: ClassAd,
    /// The children taken, by `Name`, in the order they were taken.
    pub children: Vec<String>,
    /// Who runs on them (each once, in order).
    pub users: Vec<String>,
    /// The enlarged ad's slot weight.
    pub weight: f64,
}

/// The cycle's state of `ALLOW_PSLOT_PREEMPTION`.
pub(super) struct PslotPreemption {
    /// Whether p-slots are tried with their children
    /// (NEGOTIATOR_CONSIDER_PREEMPTION).
    pub multi_match: bool,
    /// The partitionable slots with children, in slot order.
    pub pslots: Vec<usize>,
    /// Every slot by `Name` (HTCondor's `m_slotNameToAdMap`).
    by_name: FxHashMap<String, usize>,
    /// Per p-slot, the children already handed out this cycle.
    handed_out: FxHashMap<usize, Vec<bool>>,
    /// The enlarged p-slots of the current match list, by slot.
    pub enlarged: FxHashMap<usize, Enlarged>,
}

/// What one try of a p-slot needs to know.
pub(super) struct Trial<'a> {
    pub opts: &'a EvalOptions,
    /// The request's ad.
    pub request: &'a ClassAd,
    /// The submitter negotiating.
    pub submitter: &'a str,
    /// Negotiating for startd rank only.
    pub only_for_startd_rank: bool,
    /// PREEMPTION_REQUIREMENTS.
    pub preemption_requirements: Option<&'a Expr>,
}

fn is_true(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        _ => false,
    }
}

/// Whether a slot is a dynamic slot whose parent rolls it up (skipped as a
/// candidate when the knob is on).
pub(super) fn is_rolled_up_dynamic_slot(opts: &EvalOptions, ad: &ClassAd) -> bool {
    let ctx = EvalContext::new(opts).my(ad);
    ad.lookup("DynamicSlot").is_some()
        && is_true(&ctx.eval_attr("DynamicSlot"))
        && is_true(&ctx.eval_attr("PslotRollupInformation"))
}

/// Entry `index` of the p-slot's `Child<attr>` list, if the list is a
/// list and the entry a literal (HTCondor's `dslotLookup`).
fn child<'a>(ad: &'a ClassAd, attr: &str, index: usize) -> Option<&'a Literal> {
    let list = ad.lookup(format!("Child{attr}").as_str())?;
    match list.as_node()? {
        Node::List(items) => items.get(index)?.as_literal(),
        _ => None,
    }
}

fn literal_number(literal: &Literal) -> Option<f64> {
    match literal {
        Literal::Int(i) => Some(*i as f64),
        Literal::Real(r) => Some(*r),
        Literal::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

impl PslotPreemption {
    /// The state for a cycle over `ads`; `multi_match`: whether p-slots
    /// are tried with their children.
    pub fn new(opts: &EvalOptions, ads: &[std::sync::Arc<ClassAd>], multi_match: bool) -> PslotPreemption {
        let mut by_name = FxHashMap::default();
        let mut pslots = Vec::new();
        for (i, ad) in ads.iter().enumerate() {
            let ctx = EvalContext::new(opts).my(ad);
            if let Value::Str(name) = ctx.eval_attr("Name") {
                by_name.insert(name.as_str().to_string(), i);
            }
            if is_true(&ctx.eval_attr("PartitionableSlot"))
                && number(&ctx.eval_attr("NumDynamicSlots")).is_some_and(|n| n >= 1.0)
            {
                pslots.push(i);
            }
        }
        PslotPreemption {
            multi_match,
            pslots,
            by_name,
            handed_out: FxHashMap::default(),
            enlarged: FxHashMap::default(),
        }
    }

    /// Tries p-slot `slot`, whose ad is now `pslot` (carved by a
    /// consumption policy, or as it came), with its children for the
    /// request (HTCondor's `pslotMultiMatch`): the enlarged ad, the
    /// children taken (their indices in the `Child*` lists) and how, or
    /// `None`. Children taken are handed out for the rest of the cycle.
    /// `ads` are the cycle's slots, `running` tells who runs on one.
    pub fn try_slot<'r>(
        &mut self,
        trial: &Trial<'_>,
        slot: usize,
        pslot: &ClassAd,
        ads: &[std::sync::Arc<ClassAd>],
        running: impl Fn(usize) -> Option<&'r str>,
    ) -> Option<(ClassAd, Vec<usize>, ClaimKind)> {
        let opts = trial.opts;
        let on_slot = EvalContext::new(opts).my(pslot).target(trial.request);
        let new_rank = number(&on_slot.eval_attr("Rank")).unwrap_or(0.0);
        let count = match number(&EvalContext::new(opts).my(pslot).eval_attr("NumDynamicSlots")) {
            Some(n) if n >= 1.0 => n as usize,
            _ => return None,
        };
        let handed_out = self.handed_out.entry(slot).or_insert_with(|| vec![false; count]);
        if handed_out.len() != count {
            return None;
        }
        // The children that may be preempted, with their current ranks.
        let mut ranks: Vec<(usize, f64)> = Vec::with_capacity(count);
        for (i, &gone) in handed_out.iter().enumerate() {
            let rank = child(pslot, "CurrentRank", i).and_then(literal_number).unwrap_or(0.0);
            let retiring = child(pslot, "RetirementTimeRemaining", i)
                .and_then(literal_number)
                .is_some_and(|r| r.trunc() as i64 > 0);
            let preempting = matches!(child(pslot, "State", i), Some(Literal::Str(s)) if s.as_str() == "Preempting");
            if retiring || preempting || gone {
                continue;
            }
            ranks.push((i, rank));
        }
        if ranks.is_empty() {
            return None;
        }
        ranks.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));

        let resources: Vec<String> = match EvalContext::new(opts).my(pslot).eval_attr("MachineResources") {
            Value::Str(list) => list.as_str().split_whitespace().map(str::to_string).collect(),
            _ => ["cpus", "memory", "disk"].iter().map(|s| s.to_string()).collect(),
        };
        let mut enlarged = pslot.clone();
        let mut claim: Option<ClaimKind> = None;
        let mut taken: Vec<usize> = Vec::new();
        for &(i, rank) in &ranks {
            // Written so that a NaN rank ends the list, as HTCondor's `<=` does.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            if !(rank <= new_rank) {
                break;
            }
            if rank == new_rank {
                if trial.only_for_startd_rank {
                    continue;
                }
                let Some(Literal::Str(name)) = child(pslot, "Name", i) else {
                    continue;
                };
                let Some(&dslot) = self.by_name.get(name.as_str()) else {
                    continue;
                };
                if running(dslot).unwrap_or("") == trial.submitter {
                    continue;
                }
                let allowed = trial.preemption_requirements.is_some_and(|req| {
                    matches!(EvalContext::new(opts).my(&ads[dslot]).target(trial.request).eval(req), Value::Bool(true))
                });
                if !allowed {
                    continue;
                }
                claim = Some(ClaimKind::PriorityPreemption);
            } else if claim != Some(ClaimKind::PriorityPreemption) {
                claim = Some(ClaimKind::RankPreemption);
            }
            taken.push(i);
            for attr in &resources {
                let Some(before) = number(&EvalContext::new(opts).my(&enlarged).eval_attr(attr.as_str())) else {
                    continue;
                };
                let before = before.floor();
                match child(pslot, attr, i) {
                    Some(Literal::Int(v)) => {
                        enlarged.insert(attr.as_str(), (before + *v as f64) as i64);
                    }
                    Some(Literal::Real(v)) => {
                        enlarged.insert(attr.as_str(), before + v);
                    }
                    _ => {}
                }
            }
            if classad::matching::MatchAd::new(opts, trial.request, &enlarged).symmetric_match() {
                for &c in &taken {
                    handed_out[c] = true;
                }
                enlarged.insert("RemoteUser", VARIOUS_DSLOT_USERS);
                return claim.map(|c| (enlarged, taken, c));
            }
        }
        None
    }

    /// The names of children `taken` of p-slot `slot`, and who runs on
    /// them (each user once).
    pub fn describe<'r>(
        &self,
        pslot: &ClassAd,
        taken: &[usize],
        running: impl Fn(usize) -> Option<&'r str>,
    ) -> (Vec<String>, Vec<String>) {
        let mut names = Vec::with_capacity(taken.len());
        let mut users: Vec<String> = Vec::new();
        for &i in taken {
            let name = match child(pslot, "Name", i) {
                Some(Literal::Str(n)) => n.as_str().to_string(),
                _ => format!("child {i}"),
            };
            let user = self.by_name.get(&name).and_then(|&d| running(d)).map(str::to_string).or_else(|| {
                match child(pslot, "RemoteUser", i) {
                    Some(Literal::Str(u)) => Some(u.as_str().to_string()),
                    _ => None,
                }
            });
            if let Some(u) = user {
                if !users.contains(&u) {
                    users.push(u);
                }
            }
            names.push(name);
        }
        (names, users)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use classad::{ClassAd, EvalOptions, Expr, Semantics, Value};

    use super::{PslotPreemption, Trial};
    use crate::candidates::ClaimKind;

    fn ads() -> Vec<Arc<ClassAd>> {
        let pslot = r#"[ Name = "slot1@n"; PartitionableSlot = true; NumDynamicSlots = 3; Rank = 0;
            Cpus = 1.5; Memory = 100.9; MachineResources = "Cpus Memory Gpus";
            Requirements = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory;
            ChildName = { "slot1_1@n", "slot1_2@n", "slot1_3@n" }; ChildCpus = { 1, 1, 1 };
            ChildMemory = { 100, 0.5, 100 }; ChildGpus = { 1, 1, 1 }; ChildCurrentRank = { 0.0, 0.0, 0.0 } ]"#;
        let child = |i: u32| {
            format!(
                r#"[ Name = "slot1_{i}@n"; DynamicSlot = true; PslotRollupInformation = true; RemoteUser = "bob@s" ]"#
            )
        };
        [pslot.to_string(), child(1), child(2), child(3)]
            .iter()
            .map(|t| Arc::new(t.parse::<ClassAd>().expect("parses")))
            .collect()
    }

    /// Resources add up on the p-slot's value rounded down, an integer
    /// child keeping the sum an integer; resources the p-slot lacks (Gpus)
    /// are left alone; children once taken are not taken again.
    #[test]
    fn resources_add_up_and_children_are_handed_out_once() {
        let opts = EvalOptions::new().semantics(Semantics::Old);
        let ads = ads();
        assert!(super::is_rolled_up_dynamic_slot(&opts, &ads[1]));
        assert!(!super::is_rolled_up_dynamic_slot(&opts, &ads[0]));
        let mut state = PslotPreemption::new(&opts, &ads, true);
        assert_eq!(state.pslots, [0]);
        let job: ClassAd = "[ RequestCpus = 3; RequestMemory = 150; Requirements = true ]".parse().expect("parses");
        let always: Expr = "true".parse().expect("parses");
        let trial = Trial {
            opts: &opts,
            request: &job,
            submitter: "amy@s",
            only_for_startd_rank: false,
            preemption_requirements: Some(&always),
        };
        let running = |i: usize| (i > 0).then_some("bob@s");
        let (enlarged, taken, claim) = state.try_slot(&trial, 0, &ads[0], &ads, running).expect("a candidate");
        assert_eq!((taken, claim), (vec![0, 1], ClaimKind::PriorityPreemption));
        let get = |name: &str| classad::EvalContext::new(&opts).my(&enlarged).eval_attr(name);
        // Cpus: floor(1.5) + 1 = 2, then 2 + 1 = 3; Memory: 100 + 100 = 200, then 200 + 0.5.
        assert_eq!(get("Cpus"), Value::Int(3));
        assert_eq!(get("Memory"), Value::Real(200.5));
        assert_eq!(get("Gpus"), Value::Undefined);
        assert!(matches!(get("RemoteUser"), Value::Str(s) if s.as_str() == super::VARIOUS_DSLOT_USERS));
        // Only the third child is left: 1 + 1 cpus is not enough.
        assert!(state.try_slot(&trial, 0, &ads[0], &ads, running).is_none());
        // Without PREEMPTION_REQUIREMENTS equal-rank children are never taken.
        let mut fresh = PslotPreemption::new(&opts, &ads, true);
        let unset = Trial { preemption_requirements: None, ..trial };
        assert!(fresh.try_slot(&unset, 0, &ads[0], &ads, running).is_none());
    }
}
