//! Phase 2, accounting: the accountant brought up to date with the
//! cycle's slots (priorities to `now`, usage recounted from the claimed
//! slots), and the pool's slot weight summed.

use std::sync::Arc;

use classad::{ClassAd, EvalContext, Value};

use super::fetch::{gets_figures, SlotAd};
use super::Context;
use crate::accountant::{Accountant, SlotWeigher};
use crate::negotiator::memory::Entry;
use crate::negotiator::NegotiatorError;
use crate::parallel;

/// Below this many slots the accounting is not worth doing on another
/// core.
const ACCOUNT_ALONGSIDE_FROM: usize = 64;

/// Each slot's accountant record (its name remembered for an ad seen).
pub(super) fn resource_names<A: SlotAd>(ads: &[A], known: &[Option<&Entry>]) -> Vec<Arc<str>> {
    ads.iter()
        .zip(known)
        .map(|(ad, known)| match known {
            Some(entry) => entry.resource.clone(),
            None => Arc::from(crate::accountant::resource_name((*ad).borrow())),
        })
        .collect()
}

/// When no slot is given the accountant's figures (there is no
/// preemption, or no slot could be preempted), nothing of the slots'
/// preparation reads what the accounting changes: it is then done
/// alongside, on another core (with the ads as given, shared, returned
/// here), while the slots are shaped. `None`: the accounting comes first.
pub(super) fn alongside<A: SlotAd>(cx: &Context<'_>, ads: &[A], known: &[Option<&Entry>]) -> Option<Vec<Arc<ClassAd>>> {
    let (settings, names) = (&cx.negotiator.settings, &cx.names);
    let figures_read = |ad: &A, known: &Option<&Entry>| {
        let running = match known {
            Some(entry) => entry.running.is_some(),
            None => names.remote_user((*ad).borrow()).is_some(),
        };
        gets_figures(settings, names, (*ad).borrow(), running)
    };
    if ads.len() >= ACCOUNT_ALONGSIDE_FROM
        && !(settings.consider_preemption && ads.iter().zip(known).any(|(ad, known)| figures_read(ad, known)))
    {
        ads.iter().map(|ad| ad.shared().cloned()).collect()
    } else {
        None
    }
}

/// Phase 2: the accountant brought up to date with the cycle's slots
/// (`resources`: their records' names).
pub(super) fn account<S: std::borrow::Borrow<ClassAd>>(
    accountant: &mut Accountant,
    now: i64,
    slots: &[S],
    resources: &[Arc<str>],
) -> Result<(), NegotiatorError> {
    accountant.update_priorities(now)?;
    accountant.check_matches_named(now, slots, resources)?;
    Ok(())
}

/// What the slots weigh: each one's `SlotWeight` and `GhostMultiplier`
/// (remembered for an ad seen, when read the same way: `same_basis`).
pub(super) fn weigh<A: SlotAd>(
    cx: &Context<'_>,
    ads: &[A],
    known: &[Option<&Entry>],
    weigher: &SlotWeigher,
    same_basis: bool,
) -> (Vec<f64>, Vec<f64>) {
    parallel::map_indexed(ads, |i, ad| match known[i] {
        Some(entry) if same_basis => entry.weights,
        _ => (weigher.weight(ad.borrow()), ghost(cx, ad.borrow())),
    })
    .into_iter()
    .unzip()
}

/// A slot's `GhostMultiplier` (1 without one).
fn ghost(cx: &Context<'_>, ad: &ClassAd) -> f64 {
    match ad
        .lookup(cx.names.ghost_multiplier)
        .map(|_| EvalContext::new(&cx.opts).my(ad).eval_attr(cx.names.ghost_multiplier))
    {
        Some(Value::Int(i)) => i as f64,
        _ => 1.0,
    }
}

/// The pool's slot weight (the pie's size: of the slots that pass
/// NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT, or every one) and the smallest
/// slot's weight (`f64::MAX` without slots).
pub(super) fn pool_weight<A: SlotAd>(cx: &Context<'_>, ads: &[A], weights: &[f64], ghosts: &[f64]) -> (f64, f64) {
    let (negotiator, opts) = (cx.negotiator, &cx.opts);
    let settings = &negotiator.settings;
    let mut min_weight = f64::MAX;
    let mut weight_total = 0.0;
    for (w, g) in weights.iter().zip(ghosts) {
        let w = w * g;
        weight_total += w;
        min_weight = min_weight.min(w);
    }
    let pool_weight = match &negotiator.poolsize_constraint {
        Some(c) => {
            let inside: Vec<usize> =
                (0..ads.len()).filter(|&i| EvalContext::new(opts).my(ads[i].borrow()).is_true(c)).collect();
            if inside.is_empty() {
                if settings.use_slot_weights {
                    weight_total
                } else {
                    ads.len() as f64
                }
            } else if settings.use_slot_weights {
                inside.iter().map(|&i| weights[i] * ghost(cx, ads[i].borrow())).sum()
            } else {
                inside.len() as f64
            }
        }
        None if settings.use_slot_weights => weight_total,
        None => ads.len() as f64,
    };
    (pool_weight, min_weight)
}
