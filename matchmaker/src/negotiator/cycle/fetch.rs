//! Phase 1, the cycle's inputs: the slots the collector would give
//! (NEGOTIATOR_SLOT_CONSTRAINT), the submitters it would give
//! (NEGOTIATOR_SUBMITTER_CONSTRAINT), the slots the negotiator trims
//! (HTCondor's `trimStartdAds`), and what policy expressions read of a
//! slot written into its ad.

use std::sync::Arc;

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Value};

use super::{str_literal, Context, Names};
use crate::accountant::Accountant;
use crate::autocluster::SubmitterQueue;
use crate::candidates::number;
use crate::consumption;
use crate::negotiator::memory::{self, Entry};
use crate::negotiator::{Negotiator, Settings};
use crate::parallel;

/// A slot of the cycle.
pub(super) struct CycleSlot {
    /// Still in the candidate list (HTCondor's `startdAds`).
    pub(super) available: bool,
    /// A partitionable slot with a consumption policy: matched through
    /// `current`, which the cycle's matches carve up.
    pub(super) current: Option<ClassAd>,
    /// Its `Name`.
    pub(super) name: Arc<str>,
    /// Its accountant record's name (`Name@StartdIpAddr`).
    pub(super) resource: Arc<str>,
    /// Who runs on it (see [`Names::remote_user`]), looked up once.
    pub(super) running: Option<Arc<str>>,
    /// With [`Settings::resend_claimless_matches`], whether a schedd
    /// cannot claim it (see [`claimless`]): its match leaves the job idle.
    /// False without the setting. Looked up once.
    pub(super) declines_matches: bool,
}

/// Whether a schedd cannot claim `slot` (`WantClaiming = false` or
/// `Offline = true`): the negotiator sends its match with the claim id
/// `null`, which the schedd rejects.
fn claimless(slot: &ClassAd) -> bool {
    slot.lookup_bool("Offline").unwrap_or(false) || !slot.lookup_bool("WantClaiming").unwrap_or(true)
}

/// A slot ad as a cycle is given it: its own, or shared behind [`Arc`]
/// (then it may be remembered, see [`memory`]).
pub(in crate::negotiator) trait SlotAd:
    std::borrow::Borrow<ClassAd> + Send + Sync + Sized
{
    /// The `Arc`, when shared.
    fn shared(&self) -> Option<&Arc<ClassAd>>;
    /// The ad to write into (a copy first when shared with others).
    fn make_mut(&mut self) -> &mut ClassAd;
    /// The ad behind an `Arc`.
    fn into_arc(self) -> Arc<ClassAd>;
    /// The ad of `arc`.
    fn from_arc(arc: Arc<ClassAd>) -> Self;
}

impl SlotAd for ClassAd {
    fn shared(&self) -> Option<&Arc<ClassAd>> {
        None
    }
    fn make_mut(&mut self) -> &mut ClassAd {
        self
    }
    fn into_arc(self) -> Arc<ClassAd> {
        Arc::new(self)
    }
    fn from_arc(arc: Arc<ClassAd>) -> ClassAd {
        Arc::unwrap_or_clone(arc)
    }
}

impl SlotAd for Arc<ClassAd> {
    fn shared(&self) -> Option<&Arc<ClassAd>> {
        Some(self)
    }
    fn make_mut(&mut self) -> &mut ClassAd {
        Arc::make_mut(self)
    }
    fn into_arc(self) -> Arc<ClassAd> {
        self
    }
    fn from_arc(arc: Arc<ClassAd>) -> Arc<ClassAd> {
        arc
    }
}

/// The slots of `ads` the collector would give: those with a `Name` that
/// pass NEGOTIATOR_SLOT_CONSTRAINT.
pub(super) fn fetch<A: SlotAd>(cx: &Context<'_>, mut ads: Vec<A>) -> Vec<A> {
    let (negotiator, names, opts) = (cx.negotiator, &cx.names, &cx.opts);
    let keep = parallel::map_indexed(&ads, |_, ad| {
        let ad: &ClassAd = ad.borrow();
        ad.lookup(names.name).is_some()
            && negotiator.slot_constraint.as_ref().is_none_or(|c| EvalContext::new(opts).my(ad).is_true(c))
    });
    let mut kept = keep.into_iter();
    ads.retain(|_| kept.next().unwrap_or(false));
    ads
}

/// Where a slot's prepared side comes from.
pub(super) enum Origin {
    /// The last cycle's memory (the ad's key).
    Remembered(usize),
    /// This cycle, which will remember it; with the caller's ad when the
    /// cycle matches a copy.
    Kept(Option<Arc<ClassAd>>),
    /// This cycle, for this cycle only.
    Fresh,
}

/// Trims the slots, then gives them what policy expressions read of them
/// (remembered from the last cycle for an ad it saw, when nothing of this
/// cycle's is written into it): each slot of the cycle and where its
/// prepared side is to come from. `resources` are the slots' accountant
/// records, `known` what the last cycle remembered of them, `figures` the
/// accountant once brought up to date (for the slots given its figures).
pub(super) fn trim_and_decorate<A: SlotAd>(
    cx: &Context<'_>,
    ads: &mut [A],
    resources: &[Arc<str>],
    known: &[Option<&Entry>],
    figures: Option<&Accountant>,
    remember: bool,
) -> Vec<(CycleSlot, Origin)> {
    let (negotiator, names, opts) = (cx.negotiator, &cx.names, &cx.opts);
    let settings = &negotiator.settings;
    let mut items: Vec<(&mut A, &Arc<str>, Option<&Entry>)> =
        ads.iter_mut().zip(resources).zip(known).map(|((ad, resource), known)| (ad, resource, *known)).collect();
    parallel::map_mut(&mut items, |item| {
        let (ad, resource, known): (&mut A, &Arc<str>, Option<&Entry>) = (&mut *item.0, item.1, item.2);
        let available = !trimmed(negotiator, opts, names, (*ad).borrow());
        let known = known.zip(ad.shared());
        let running: Option<Arc<str>> = match known {
            Some((entry, _)) => entry.running.clone(),
            None => names.remote_user((*ad).borrow()).map(Arc::from),
        };
        // (Not a slot no job can match: it is left out after accounting.)
        let decorated = gets_figures(settings, names, (*ad).borrow(), running.is_some());
        if let (Some((entry, input)), false) = (known, decorated) {
            let slot = CycleSlot {
                available,
                current: entry.current.clone(),
                name: entry.name.clone(),
                resource: entry.resource.clone(),
                running,
                declines_matches: settings.resend_claimless_matches && claimless(&entry.ad),
            };
            let key = memory::key(input);
            // The ad the last cycle matched (with the match expressions).
            *ad = A::from_arc(entry.ad.clone());
            return (slot, Origin::Remembered(key));
        }
        let remember = remember && !decorated;
        // The caller's ad, when the cycle writes into a copy it remembers.
        let mut input = None;
        if !negotiator.match_exprs.is_empty() || decorated {
            if remember {
                input = ad.shared().cloned();
            }
            // A copy when the caller shares the ad; in place when it is
            // the cycle's own.
            let ad = ad.make_mut();
            for (name, expr) in &negotiator.match_exprs {
                ad.insert(name.as_str(), expr.clone());
            }
            if decorated {
                // (Decorated only under preemption, when the accountant
                // has been brought up to date first.)
                if let (Some(user), Some(accountant)) = (running.as_deref(), figures) {
                    let prio = f64::from(accountant.effective_priority(user) as f32);
                    ad.insert(names.remote_user_prio, prio);
                    ad.insert(names.remote_user_resources_in_use, accountant.weighted_resources_used(user));
                    let group = accountant.group_of(user).to_string();
                    if group != crate::groups::ROOT {
                        ad.insert(names.remote_group_resources_in_use, accountant.weighted_resources_used(&group));
                        ad.insert(names.remote_group, group.as_str());
                    }
                }
                if let Some(rank) =
                    ad.lookup(names.preempting_rank).and_then(|e| number(&EvalContext::new(opts).my(ad).eval(e)))
                {
                    ad.insert(names.current_rank, rank);
                }
            }
        }
        let ad: &ClassAd = (*ad).borrow();
        let current =
            (ad.lookup(names.machine_resources).is_some() && consumption::has_policy(ad)).then(|| ClassAd::clone(ad));
        let slot = CycleSlot {
            available,
            current,
            name: Arc::from(str_literal(ad, names.name).unwrap_or_default()),
            resource: resource.clone(),
            running,
            declines_matches: settings.resend_claimless_matches && claimless(ad),
        };
        (slot, if remember { Origin::Kept(input) } else { Origin::Fresh })
    })
}

/// Whether the negotiator leaves `slot` out of matchmaking (HTCondor's
/// `trimStartdAds`).
fn trimmed(negotiator: &Negotiator, opts: &EvalOptions, names: &Names, slot: &ClassAd) -> bool {
    let ctx = EvalContext::new(opts).my(slot);
    // (Literals, as startds write them, are read without evaluating.)
    let evaluated;
    let state: Option<&str> = match slot.lookup(names.state).and_then(Expr::as_literal) {
        Some(classad::Literal::Str(s)) => Some(s.as_str()),
        Some(_) => None,
        None => {
            evaluated = ctx.eval_attr(names.state);
            match &evaluated {
                Value::Str(s) => Some(s.as_str()),
                _ => None,
            }
        }
    };
    let is = |text: &str| state == Some(text);
    let claimed = is("Claimed");
    let partitionable = || match slot.lookup(names.partitionable_slot).map(Expr::as_literal) {
        None => false,
        Some(Some(literal)) => matches!(literal, classad::Literal::Bool(true)),
        Some(None) => matches!(ctx.eval_attr(names.partitionable_slot), Value::Bool(true)),
    };
    if negotiator.settings.consider_preemption {
        if !negotiator.settings.consider_early_preemption
            && slot.lookup(names.retirement_time_remaining).is_some()
            && matches!(ctx.eval_attr(names.retirement_time_remaining), Value::Int(r) if r > 0)
        {
            return true;
        }
    } else if (claimed || is("Preempting")) && !partitionable() {
        return true;
    }
    if claimed && partitionable() {
        let want_matching = !matches!(ctx.eval_attr("WantMatching"), Value::Bool(false));
        let working_cm = matches!(ctx.eval_attr("WorkingCM"), Value::Str(w) if !w.as_str().is_empty());
        if !(want_matching && (negotiator.settings.match_working_cm_slots || !working_cm)) {
            return true;
        }
    }
    false
}

/// Whether a submitter passes NEGOTIATOR_SUBMITTER_CONSTRAINT.
pub(super) fn submitter_allowed(negotiator: &Negotiator, opts: &EvalOptions, queue: &SubmitterQueue) -> bool {
    let Some(constraint) = &negotiator.submitter_constraint else {
        return true;
    };
    let mut ad = ClassAd::new();
    ad.insert("Name", queue.name.as_str());
    ad.insert("ScheddName", queue.schedd.as_str());
    ad.insert("IdleJobs", queue.idle_jobs() as i64);
    ad.insert("RunningJobs", i64::from(queue.running_jobs));
    EvalContext::new(opts).my(&ad).is_true(constraint)
}

/// Whether `slot` (`running` a job or not) is given the accountant's
/// figures of the cycle (`RemoteUserPrio` and the like) and its
/// `CurrentRank`: under preemption, a slot that can be preempted.
pub(super) fn gets_figures(settings: &Settings, names: &Names, slot: &ClassAd, running: bool) -> bool {
    settings.consider_preemption
        && (running || slot.lookup(names.preempting_rank).is_some())
        && (settings.allow_pslot_preemption || !requirements_false(names, slot))
}

/// Whether a slot's `Requirements` is the literal `false`.
pub(super) fn requirements_false(names: &Names, ad: &ClassAd) -> bool {
    matches!(ad.lookup(names.requirements).and_then(Expr::as_literal), Some(classad::Literal::Bool(false)))
}
